"""Moving duels between the store and replay files: export (any view), import, verify a view.

A judge file carries the store's own hash chain (its root is the duel header's hash), so a file
and the stored record can be checked against each other. A view's chain starts from a root
derived from the same header, and its deck-order commitments use a key derived from it too:
only the holder of the full record can open them.
"""
from __future__ import annotations

import hashlib
import secrets

from .cards import CardDB
from .events import DuelStarted, Event, PositionSetUp
from .replay_file import ReplayFile, ReplayFileError, referenced_codes, verify_chain
from .store import Store
from .views import redact, view_cards


def commit_key(root: bytes) -> bytes:
    return hashlib.sha256(b"ygoreplay commit key" + root).digest()[:16]


def view_root(root: bytes, view: str) -> bytes:
    return root if view == "judge" else hashlib.sha256(root + view.encode()).digest()


def _ruleset_and_players(events: list[Event]) -> tuple[str, list[str]]:
    first = events[0] if events else None
    if isinstance(first, DuelStarted):
        return first.ruleset, list(first.players)
    if isinstance(first, PositionSetUp):
        return first.ruleset, []
    return "mr2020", []


def make_replay(events: list[Event], times: list[str], cards: CardDB, view: str, root: bytes,
                match: dict | None = None, source: dict | None = None, created: str = "") -> ReplayFile:
    """A replay file of ``events`` (the full record) as ``view`` may see it."""
    missing = referenced_codes(events) - set(cards)
    if missing:
        raise ReplayFileError(f"no card facts for passcode(s) {sorted(missing)[:5]}: a replay file carries "
                              "the facts of every card it mentions (give a cards.cdb)")
    ruleset, players = _ruleset_and_players(events)
    key = commit_key(root)
    if view == "judge":
        facts = cards.subset(referenced_codes(events) & set(cards))
        return ReplayFile(events, facts, times, view, ruleset, players, match or {}, created, root,
                          commit_key=key, source=source or {})
    red = redact(events, cards, view, key)
    return ReplayFile(red.events, view_cards(cards, red.codes), times, view, ruleset, players,
                      match or {}, created, view_root(root, view), red.disclosures, red.commitments,
                      source=source or {})


def export_duel(store: Store, duel_id: str, view: str = "judge") -> ReplayFile:
    records = store.records(duel_id)
    info = store.info(duel_id)
    match = {"duel": duel_id, "title": info.title}
    if info.parent:
        match.update(parent=info.parent, branch_at=info.branch_at)
    return make_replay([r.event for r in records], [r.recorded for r in records], store.cards, view,
                       store.header_hash(duel_id), match, created=info.created)


def import_replay(store: Store, replay: ReplayFile, title: str) -> str:
    """Record a judge file's events (with their times) as a new duel; returns its id."""
    if replay.view != "judge":
        raise ReplayFileError(f"a {replay.view} view lacks hidden information and cannot be recorded; "
                              "import the judge file")
    duel_id = store.create_duel(title)
    store.cards = store.cards.merged(replay.cards)
    store.append(duel_id, replay.events, times=replay.times)
    return duel_id


def verify_against(view: ReplayFile, judge: ReplayFile) -> list[str]:
    """Problems found checking a view against the full record it claims to come from ([] = proven)."""
    problems = []
    for name, f in (("view", view), ("judge", judge)):
        bad = verify_chain(f)
        if bad is not None:
            problems.append(f"the {name} file's hash chain is broken at event {bad}")
    if judge.view != "judge":
        return problems + [f"the --against file is a {judge.view} view, not a judge record"]
    if view_root(judge.root, view.view) != view.root:
        problems.append("the view does not come from this record (different chain root)")
        return problems
    expected = make_replay(judge.events, judge.times, judge.cards, view.view, judge.root)
    if expected.commitments != view.commitments:
        problems.append("the judge record's deck orders do not match the view's commitments")
    if [e.to_dict() for e in expected.events] != [e.to_dict() for e in view.events]:
        first = next(i for i, (a, b) in enumerate(zip(expected.events + [None], view.events + [None])) if a != b)
        problems.append(f"the view's events differ from the record's from event {first}")
    if expected.disclosures != view.disclosures:
        problems.append("the view discloses different cards than the record shows")
    return problems


def new_root() -> bytes:
    """A chain root for a record that did not come from a store (a JSON Lines file)."""
    return secrets.token_bytes(32)
