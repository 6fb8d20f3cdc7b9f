"""How much a record of what its recorder saw still catches (issue 22's closing note).

Over every illegal scenario the repository ships as a recorded duel (``replays/illegal/*.jsonl``,
each breaking one rule at its last event), for each rule ID: is the violation still caught

(a) from the spectator's record (``views.recorded_by``: no hidden information at all),
(b) from the spectator's record plus both players' registered decklists (``unordered``),
(c) from each player's own record (p0's, p1's; "either" when one of them catches it)?

A rule whose check needs a card the record does not know is undecided, never called: it counts
as not caught. Prints one row per rule, then the count of rules caught in each case.

``--tests`` asks the same of every refusal the rule tests make (``tests/test_rules_*.py`` and
the other test files given): each event the fold refuses there is tried again on the same board
as each viewer knows it (the cards it cannot see unknown, the cards the event shows it named), and
with the decklists (the cards it cannot see, listed); a rule counts as checkable from a record
when every refusal of it in the tests is still caught from that record.

    python bench/checkable.py [--quick] [--tests [TEST_FILE ...]]
"""
from __future__ import annotations

import argparse
import dataclasses
import re
from pathlib import Path

from ygoreplay.cards import CardDB
from ygoreplay.events import ID_FIELDS, Event, Shows
from ygoreplay.jsonl import read_events
from ygoreplay.rules import RuleViolation, audit, fold
from ygoreplay.state import DuelState
from ygoreplay.views import can_see, recorded_by

ROOT = Path(__file__).resolve().parent.parent
CASES = ("spectator", "spectator+decklists", "p0", "p1")


def with_decklists(events: list[Event], source: list[Event]) -> list[Event]:
    """``events`` with both players' decklists, as registered with the tournament (unordered)."""
    lists = {e.player: e for e in source if e.kind == "deck_registered"}
    return [dataclasses.replace(e, main=lists[e.player].main, extra=lists[e.player].extra, unordered=True)
            if e.kind == "deck_registered" and e.player in lists else e for e in events]


def caught(events: list[Event], cards: CardDB, rule: str, index: int) -> bool:
    return any(v.index == index and v.rule == rule for v in audit(events, cards).violations)


def records(events: list[Event], cards: CardDB) -> dict[str, list[Event]]:
    spectator = recorded_by(events, cards, "spectator")
    return {"spectator": spectator, "spectator+decklists": with_decklists(spectator, events),
            "p0": recorded_by(events, cards, "p0"), "p1": recorded_by(events, cards, "p1")}


def harvest(test_files: list[str]) -> list[tuple[DuelState, Event, str]]:
    """Every event the fold refuses while the tests run: the board before it, the event, the rule."""
    import pytest

    import ygoreplay.rules as rules
    from ygoreplay.rules import fold, history

    real = fold.apply
    seen: list[tuple[DuelState, Event, str]] = []

    def spying(state: DuelState, event: Event) -> DuelState:
        try:
            return real(state, event)
        except RuleViolation as refusal:
            if state.violations is None and not state.unknowns:     # refused, the board untouched
                seen.append((state.copy(), event, refusal.rule))
            raise

    for module in (rules, fold, history):
        module.apply = spying
    try:
        pytest.main([*test_files, "-q", "-p", "no:cacheprovider", "--no-header", "-x", "-W", "ignore"],
                     plugins=[])
    finally:
        for module in (rules, fold, history):
            module.apply = real
    return seen


def as_seen(before: DuelState, event: Event, view: str, decklists: bool) -> tuple[DuelState, Event] | None:
    """The board before ``event`` as ``view`` knows it, and the event naming what it shows it."""
    after = before.copy()
    after.violations = []
    try:
        fold.apply(after, event)
    except RuleViolation:
        after = None
    board = before.copy()
    board.unknowns = True
    hidden = [c for c in board.cards.values() if not c.is_token and not can_see(view, c)]
    if decklists:
        for owner in (0, 1):
            mine = [c for c in hidden if c.owner == owner]
            for card in mine:
                card.pile = "extra" if card.facts.is_extra_deck else "main"
            board.sides[owner].listed = [[c.code for c in mine if c.pile == "main"],
                                         [c.code for c in mine if c.pile == "extra"]]
    for card in hidden:
        card.code, card.facts = 0, board.unknown
    named = [n for n in ID_FIELDS if hasattr(event, n)]
    ids = {v for n in named for v in ((getattr(event, n),) if isinstance(getattr(event, n), str)
                                      else getattr(event, n) or ())}
    shown = {cid for cid in ids if isinstance(cid, str) and cid in before.cards and board.cards[cid].code == 0
             and (after is None or cid not in after.cards or can_see(view, after.cards[cid])
                  or event.kind in ("activated", "card_revealed"))}
    shows = Shows(sorted((cid, before.cards[cid].code) for cid in shown))
    return board, dataclasses.replace(event, shows=shows) if shows else event


def still_caught(before: DuelState, event: Event, rule: str, view: str, decklists: bool = False) -> str:
    board, seen_event = as_seen(before, event, view, decklists)
    board.violations, board.undecided = [], []
    try:
        fold.apply(board, seen_event)
    except RuleViolation as refusal:
        return "caught" if refusal.rule == rule else "other"
    if any(v.rule == rule for v in board.violations):
        return "caught"
    return "undecided" if any(v.rule == rule for v in board.undecided) else "missed"


def from_tests(test_files: list[str]) -> None:
    seen = harvest(test_files)
    cases = {"spectator": ("spectator", False), "spectator+decklists": ("spectator", True),
             "p0": ("p0", False), "p1": ("p1", False)}
    by_rule: dict[str, dict[str, bool]] = {}
    counts: dict[str, int] = {}
    for before, event, rule in seen:
        counts[rule] = counts.get(rule, 0) + 1
        row = by_rule.setdefault(rule, dict.fromkeys(cases, True))
        for case, (view, lists) in cases.items():
            # refused by another rule first (the board as the viewer knows it breaks that one): caught
            row[case] = row[case] and still_caught(before, event, rule, view, lists) in ("caught", "other")
    print(f"\n{len(seen)} refusals in the tests, {len(by_rule)} rules")
    table(by_rule, ("all caught", "not all"), "rules whose every refusal in the tests is caught", counts)


def table(by_rule: dict[str, dict[str, bool]], marks: tuple[str, str], total: str,
          counts: dict[str, int] | None = None) -> None:
    """One row per rule (caught or not from each record, and from either player's), then the totals."""
    extra = f" {'refusals':>8}" if counts else ""
    print(f"{'rule':<10}{extra} " + " ".join(f"{c:>20}" for c in (*CASES, "either player")))
    for rule, row in sorted(by_rule.items()):
        caught_by = [row[c] for c in CASES] + [row["p0"] or row["p1"]]
        count = f" {counts[rule]:>8}" if counts else ""
        print(f"{rule:<10}{count} " + " ".join(f"{marks[0] if m else marks[1]:>20}" for m in caught_by))
    totals = {c: sum(row[c] for row in by_rule.values()) for c in CASES}
    totals["either player"] = sum(row["p0"] or row["p1"] for row in by_rule.values())
    for case, n in totals.items():
        print(f"{total} from the {case}'s record: {n} of {len(by_rule)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the first five scenarios only")
    parser.add_argument("--tests", nargs="*", default=None, metavar="TEST_FILE",
                        help="also every refusal the rule tests make (default: tests/test_rules_*.py)")
    args = parser.parse_args()
    cards = CardDB.classic()
    paths = sorted((ROOT / "replays" / "illegal").glob("*.jsonl"))[:5 if args.quick else None]
    by_rule: dict[str, dict[str, bool]] = {}
    for path in paths:
        rule = re.search(r"breaks (\S+) at its last event", path.read_text(encoding="utf-8")).group(1)
        events = read_events(path)
        index = len(events) - 1
        assert caught(events, cards, rule, index), f"{path.name}: the full record does not catch {rule}"
        row = by_rule.setdefault(rule, dict.fromkeys(CASES, True))
        for case, record in records(events, cards).items():
            row[case] = row[case] and caught(record, cards, rule, index)
    print(f"{len(paths)} illegal scenarios, {len(by_rule)} rules (replays/illegal/*.jsonl)")
    table(by_rule, ("caught", "undecided"), "rules caught")
    if args.tests is not None:
        import sys
        sys.path.insert(0, str(ROOT / "tests"))
        from_tests(args.tests or sorted(str(p) for p in (ROOT / "tests").glob("test_rules_*.py")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
