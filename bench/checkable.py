"""How much a record of what its recorder saw still catches (issue 22's closing note).

Over every illegal scenario the repository ships as a recorded duel (``replays/illegal/*.jsonl``,
each breaking one rule at its last event), for each rule ID: is the violation still caught

(a) from the spectator's record (``views.recorded_by``: no hidden information at all),
(b) from the spectator's record plus both players' registered decklists (``unordered``),
(c) from each player's own record (p0's, p1's; "either" when one of them catches it)?

A rule whose check needs a card the record does not know is undecided, never called: it counts
as not caught. Prints one row per rule, then the count of rules caught in each case.

    python bench/checkable.py [--quick]
"""
from __future__ import annotations

import argparse
import dataclasses
import re
from pathlib import Path

from ygoreplay.cards import CardDB
from ygoreplay.events import Event
from ygoreplay.jsonl import read_events
from ygoreplay.rules import audit
from ygoreplay.views import recorded_by

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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the first five scenarios only")
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
    print(f"{'rule':<10} " + " ".join(f"{c:>20}" for c in (*CASES, "either player")))
    for rule, row in sorted(by_rule.items()):
        marks = [row[c] for c in CASES] + [row["p0"] or row["p1"]]
        print(f"{rule:<10} " + " ".join(f"{'caught' if m else 'undecided':>20}" for m in marks))
    totals = {c: sum(row[c] for row in by_rule.values()) for c in CASES}
    totals["either player"] = sum(row["p0"] or row["p1"] for row in by_rule.values())
    for case, n in totals.items():
        print(f"rules caught from the {case}'s record: {n} of {len(by_rule)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
