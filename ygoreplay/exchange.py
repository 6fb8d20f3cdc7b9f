"""Replay files from full records, and the proof that a view came from one.

A judge file carries the record's own hash chain (its root is the duel's root, 32 random bytes)
and the duel's secret; a view's chain starts from a root derived from the record's, and its
commitments and card names are keyed with that secret, which no view holds: only the holder of
the full record can open them, and ``verify_against`` recomputes a view from a judge file to
prove every byte of it.
"""
from __future__ import annotations

import hashlib

import msgpack

from . import chain
from .cards import CardDB
from .events import DeckRegistered, DeckShuffled, DuelStarted, Event, PositionSetUp
from .i18n import say
from .replay_file import ReplayFile, ReplayFileError, referenced_codes, verify_chain
from .rules import History
from .views import ID_IN_TEXT, ViewReplay, public_board, redact, view_cards, viewer


def view_root(root: bytes, view: str) -> bytes:
    """The root of a view's chain: derived from the record's, which it does not reveal."""
    return root if view == "judge" else hashlib.sha256(root + view.encode()).digest()


def sheet_head(view: str, root: bytes, events: list[Event], recorded: list[str], record_head: bytes) -> bytes:
    """What ties a paper LP sheet of ``view`` (``events``, as it has them) to the record whose
    chain starts at ``root``: the record's head (``record_head``) on a judge's sheet; on a view's,
    its own file's (the chain from ``view_root``: ``verify --against`` ties that to the record).
    Never the record's head on a view's paper: from two of them and the view's copy of the
    entries between, each guess of a hidden card an entry holds could be hashed until one met
    the next head. Every face's sheet (the service's, the command line's) asks here."""
    if view == "judge":
        return record_head
    return chain.hashes(view_root(root, view), [e.to_dict() for e in events], recorded)[-1]


def ruleset_and_players(events: list[Event]) -> tuple[str, list[str]]:
    first = events[0] if events else None
    if isinstance(first, DuelStarted):
        return first.ruleset, list(first.players)
    if isinstance(first, PositionSetUp):
        return first.ruleset, []
    return "mr2020", []


def make_replay(events: list[Event], times: list[str], cards: CardDB, view: str, root: bytes,
                secret: bytes, match: dict | None = None, source: dict | None = None,
                created: str = "", chain: list[bytes] | None = None) -> ReplayFile:
    """A replay file of ``events`` (the full record) as ``view`` may see it. ``chain`` is the
    record's stored chain, carried as it is into a judge file (never recomputed over a record
    that was not verified first)."""
    referenced = referenced_codes(events)
    missing = {code for code in referenced if code not in cards}
    if missing:
        raise ReplayFileError(say("no card facts for passcode(s) {value}: a replay file carries the facts of every "
                                  "card it mentions (give a cards.cdb)", value=sorted(missing)[:5]))
    ruleset, players = ruleset_and_players(events)
    if view == "judge":
        facts = cards.subset(c for c in referenced if c in cards)
        return ReplayFile(events, facts, times, view, ruleset, players, match or {}, created, root,
                          commit_key=secret, source=source or {}, chain=list(chain or []))
    red = redact(events, cards, view, secret)
    return ReplayFile(red.events, view_cards(cards, red.codes), times, view, ruleset, players,
                      match or {}, created, view_root(root, view), red.disclosures, red.commitments,
                      red.renames, red.decklist, source=source or {})


#: Header fields a view shares with its record, beside what ``make_replay`` derives.
_SHARED = ("ruleset", "players", "created", "source")


def verify_against(view: ReplayFile, judge: ReplayFile) -> list[str]:
    """Problems found checking a view against the full record it claims to come from ([] = proven):
    its header, times, card facts, events, disclosures, names and commitments are recomputed
    from the judge file and compared."""
    problems = []
    for name, f in (("view", view), ("judge", judge)):
        bad = verify_chain(f)
        if bad is not None:
            problems.append(f"the {name} file's hash chain is broken at event {bad}")
    if judge.view != "judge" or not judge.commit_key:
        return problems + [f"the --against file is a {judge.view} view, not a judge record"]
    if view_root(judge.root, view.view) != view.root:
        return problems + ["the view does not come from this record (different chain root)"]
    expected = make_replay(judge.events, judge.times, judge.cards, view.view, judge.root, judge.commit_key,
                           judge.match, judge.source, judge.created)
    if view.view != "judge" and view.format < 3:
        return problems + _legacy_problems(view, judge, expected) + _header_problems(view, judge, expected)
    if expected.commitments != view.commitments:
        problems.append("the judge record's deck orders do not match the view's commitments")
    if [e.to_dict() for e in expected.events] != [e.to_dict() for e in view.events]:
        first = next(i for i, (a, b) in enumerate(zip(expected.events + [None], view.events + [None])) if a != b)
        problems.append(f"the view's events differ from the record's from event {first}")
    if expected.disclosures != view.disclosures:
        problems.append("the view discloses different cards than the record shows")
    if expected.renames != view.renames or expected.decklist != view.decklist:
        problems.append("the view names cards or lists a decklist differently than the record gives")
    if expected.times != view.times:
        first = next(i for i, (a, b) in enumerate(zip(expected.times + [""], view.times + [""])) if a != b)
        problems.append(f"the view's recording times differ from the record's from event {first}")
    return problems + _header_problems(view, judge, expected)


def _header_problems(view: ReplayFile, judge: ReplayFile, expected: ReplayFile) -> list[str]:
    """What a view of any format shares with its record, byte for byte: its card and effect facts
    and its header (a view written before format 3 too: only its redaction was another)."""
    problems = []
    if sorted(expected.cards.to_json_list(), key=_code) != sorted(view.cards.to_json_list(), key=_code):
        problems.append("the view's card facts are not the record's")
    if expected.cards.effects_record() != view.cards.effects_record():
        problems.append("the view's effect facts are not the record's")
    differing = [name for name in _SHARED if getattr(expected, name) != getattr(view, name)]
    for name in ("title", "parent", "branch_at"):       # the duel's id is the store's own
        if view.match.get(name) != judge.match.get(name):
            differing.append(name)
    if differing:
        problems.append(f"the view's header differs from the record's in {', '.join(differing)}")
    return problems


def _code(card: dict) -> int:
    return card["code"]


def _legacy_problems(view: ReplayFile, judge: ReplayFile, now: ReplayFile) -> list[str]:
    """A view written before format 3 (another redaction: hidden cards named by other ids): its
    commitments, times, its events but for the card ids they name (the record as
    this view sees it ``now``), and the public board at every event are checked against the record.
    A downgraded file is held to all of it: its notes, names and every field but a card id."""
    problems = []
    if legacy_commitments(judge, view.view) != view.commitments:
        problems.append("the judge record's deck orders do not match the view's commitments")
    if view.times != judge.times or len(view.events) != len(judge.events):
        problems.append("the view's events or recording times are not the record's")
        return problems
    first = next((i for i, (a, b) in enumerate(zip(now.events, view.events))
                  if _without_ids(a.to_dict()) != _without_ids(b.to_dict())), None)
    if first is not None:
        problems.append(f"the view's events differ from the record's from event {first}")
    truth = History(judge.cards, audit=True)
    states = ViewReplay(view.events, view.cards, view.disclosures).states()
    for index, (event, state) in enumerate(zip(judge.events, states)):
        truth.append(event)
        if public_board(state, view.view) != public_board(truth.state, view.view):
            problems.append(f"the view's public board differs from the record's from event {index}")
            break
    return problems


def legacy_commitments(judge: ReplayFile, view: str) -> list[list]:
    """What a ``view`` of the record ``judge`` written before format 3 commits to: each Deck's
    order as shuffled, registered (the other player's) or set up, keyed with the duel's secret."""
    me = viewer(view)
    orders, history = [], History(judge.cards, audit=True)
    for index, event in enumerate(judge.events):
        if isinstance(event, DeckShuffled):
            orders.append([index, event.player, list(event.order)])
        elif isinstance(event, DeckRegistered) and event.player != me:
            orders.append([index, event.player, [list(event.main), list(event.extra), list(event.side)]])
        history.append(event)
        if isinstance(event, PositionSetUp):
            for player, side in enumerate(history.state.sides):
                orders.append([index, player, [history.state.cards[c].code for c in side.deck]])
    return [[i, p, hashlib.sha256(judge.commit_key + msgpack.packb([i, p, order])).digest()]
            for i, p, order in orders]


def _without_ids(value: object) -> object:
    """An event's wire with every card id (``p0.m3``, in a field or a text) said alike: what a
    view written before format 3 shares with the record, whose redaction named hidden cards
    by other ids (the public board at every event checks where each card is)."""
    if isinstance(value, dict):
        return {k: _without_ids(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_ids(v) for v in value]
    return ID_IN_TEXT.sub("p?", value) if isinstance(value, str) else value
