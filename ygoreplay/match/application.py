"""The match's application layer: what the ``ygoreplay match`` commands and the service's match
endpoints both do, so that each is a thin face (as ``ygoreplay/application.py`` is for duels)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from ..access import Access
from ..card_sources import facts_of
from ..cards import CardFacts
from ..decks import Banlist, Deck
from ..errors import ConflictError, InputError
from ..events import Event, from_dict
from ..files import mode_for, read_limited, rewrite, write_atomic
from ..jsonl import MAX_FILE_SIZE, dumps, loads_events, read_events
from ..receipts import Receipt, Witness, issue_all
from ..state import Violation
from ..store.reading import Store
from ..i18n import say
from .files import Match
from .links import LinkProblem
from .policies import FINISH_PHASE
from .rules import MatchState, fold, is_match
from . import stream as _stream  # noqa: F401  (a match is written as a stream of this kind: registered)


def started(players: list[str], policy: str, banlist: Banlist, *, format: str = "", event_name: str = "",
            round: int | None = None, decks: Iterable[Deck | None] = ()) -> list[Event]:
    """The opening events of a match: ``match_started`` carrying the banlist, then each decklist given."""
    limits = [{"code": code, "limit": limit} for code, limit in sorted(banlist.limits.items())]
    opening: list[dict] = [{"kind": "match_started", "players": players, "policy": policy, "banlist": banlist.name,
                            "banlist_hash": banlist.content_hash(),
                            "limits": limits, "whitelist": banlist.whitelist, "format": format,
                            "event_name": event_name, "round": round}]
    for player, deck in enumerate(decks):
        if deck is not None:
            opening.append({"kind": "decklist_registered", "player": player, "main": deck.main,
                            "extra": deck.extra, "side": deck.side})
    return [from_dict(d, f"event {i}") for i, d in enumerate(opening)]


def match_stream(events: list[Event], title: str, visibility: str,
                 release: tuple[str | None, str | None, str | None] = (None, None, None),
                 mode: str = "machine") -> tuple[dict, dict[str, str]]:
    """A new stored match as ``Store.record``'s arguments (its events, checked strictly, and its
    access record) and the tokens to hand out: the one way a match is created (``POST /matches``,
    a round's tables). ``mode`` is its duels' (``access.MODES``): a paper table's are witnessed."""
    access, tokens = Access.issue(visibility, 0, 0.0, *release, mode=mode)
    return {"events": events, "title": title, "kind": "match", "strict": True,
            "attachments": {"access": access.to_dict()}}, tokens


def witness_heads(store: Store, witness: Witness | None, heads: Iterable[tuple[str, int, bytes | None]],
                  also: Iterable[Receipt] = ()) -> None:
    """Each head (stream, events, chain hash or None for its signed anchor's) a match's write left
    given to the witness, as a duel's append gives its own (``receipts.issue``): a new match (a
    round's, ``POST /matches``), its later events, each duel its game end closed, each duel it
    made. Unwitnessed, a match cut back (its game end, a penalty deleted with its anchor) or
    deleted whole was found by no ``verify --witness``, nor the duel's end it wrote. ``also``:
    receipts signed already, given with them (a round's seal)."""
    if witness is not None:
        issue_all(store, heads, witness, also)


def judged(events: list[Event], added: list[Event], cards: Mapping[int, CardFacts]) -> MatchState:
    """The match after ``events`` and ``added``; RuleViolation (rule ID) at the first refused one."""
    every = events + added
    return fold(every, facts_of(every, cards))


def create_file(path: str | Path, events: list[Event], cards: Mapping[int, CardFacts]) -> MatchState:
    """A new match file of ``events``, checked first; an existing file is never replaced, nor one
    another process made meanwhile (``files.write_atomic``'s ``exclusive``: two ``match start``
    of one file at once wrote both, the later replacing the earlier's decklists)."""
    path = Path(path)
    if path.exists():
        raise InputError(say("{path}: exists already; a match file is started once", path=path))
    state = judged([], events, cards)
    try:
        write_atomic(path, dumps(events).encode("utf-8"), mode_for("judge"), exclusive=True)
    except FileExistsError:
        raise InputError(say("{path}: exists already; a match file is started once", path=path)) from None
    return state


def append_to_file(path: str | Path, added: list[Event], cards: Mapping[int, CardFacts], *,
                   expected: int | None = None, waiting: Callable[[], object] | None = None) -> MatchState:
    """Check ``added`` after the match file's events and write the file whole with them, or,
    when one is refused, raise its RuleViolation and write nothing.

    One writer at a time (``files.rewrite``): the file is read once its lock is held, so what
    another process appended meanwhile is kept, and ``added`` judged after it (two appends at
    once each read the old file and the later rename dropped the other's events, both saying
    ok). ``expected``: how many events the caller read when it made ``added`` of them
    (``state_of``: a duel's number, a decision, the result); a file that holds other than that
    by now is a ConflictError, nothing written, as a store's append at a stale position is.
    ``waiting`` is called when another writer holds the file, before waiting for it."""
    path = Path(path)
    after: list[MatchState] = []

    def change(target: Path) -> bytes:
        data = read_limited(target, MAX_FILE_SIZE, "match file")
        events = loads_events(data, str(path), getattr(cards, "passcode", None))
        if not is_match(events):
            raise InputError(say("{path}: not a match file (it does not begin with match_started)", path=path))
        if expected is not None and len(events) != expected:
            raise ConflictError(say("{path}: the match file changed since this command read it ({expected} "
                                    "events, now {count}): another writer added to it; nothing was written, "
                                    "run the command again", path=path, expected=expected, count=len(events)))
        after.append(judged(events, added, cards))
        return data + (b"\n" if data and not data.endswith(b"\n") else b"") + dumps(added).encode("utf-8")

    rewrite(path, change, mode_for("judge"), waiting=waiting)      # both decklists: the judge's
    return after[0]


def state_of(path: str | Path, cards: Mapping[int, CardFacts]) -> MatchState:
    events = read_events(Path(path), getattr(cards, "passcode", None))
    if not is_match(events):
        raise InputError(say("{path}: not a match file (it does not begin with match_started)", path=path))
    return fold(events, facts_of(events, cards))


def decision(state: MatchState, given: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of ``game_decided`` for the duel in progress judged on LP (TIME-04/05/08), the
    one place both faces fill in what was not given: the stage is what the policy does at time
    (an extra duel's own), the winner the one the LP favour; the match rules check the rest."""
    game = state.current
    fields = {"stage": None, "turn": None, **given, "game": game.number if game else len(state.games)}
    if fields["stage"] is None:
        fields["stage"] = "extra_duel" if game and game.extra_duel else (
            "phase_end" if state.policy.at_time == FINISH_PHASE else "extra_turns")
    lp = fields.get("lp")
    if isinstance(lp, list) and len(lp) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in lp):
        fields["winner"] = 0 if lp[0] > lp[1] else 1 if lp[1] > lp[0] else None
    return fields


def result_event(state: MatchState) -> Event:
    """The ``match_ended`` the rules give now; RuleViolation-like InputError when it cannot end yet."""
    result = state.result()
    if not result.final:
        from ..rules.base import RuleViolation
        raise RuleViolation(result.rule, say("the match cannot end yet: {why}", why=result.why), state.index,
                            "match_ended")
    return from_dict({"kind": "match_ended", "winner": result.winner, "how": result.how,
                      "games": list(result.games), "points": list(result.points)})


@dataclass
class MatchReport:
    """What the rules say of a match: its violations, its duels' problems, the result."""

    events: int
    state: MatchState
    problems: list[LinkProblem]
    missing: dict[int, str]

    @property
    def violations(self) -> list[Violation]:
        return self.state.violations or []

    @property
    def legal(self) -> bool:
        return not self.violations and not self.problems

    def to_dict(self) -> dict:
        state = self.state
        result = state.ended and {"winner": state.ended.winner, "games": list(state.ended.games),
                                  "how": state.ended.how, "points": list(state.ended.points)}
        if not result:
            current = state.result()
            result = {"winner": None, "games": list(current.games), "how": None, "points": None}
        return {
            "events": self.events, "legal": self.legal,
            "violations": [{"index": v.index, "rule": v.rule, "message": v.message} for v in self.violations]
                          + [{"index": None, "game": p.game, "duel_index": p.index, "rule": p.rule,
                              "message": p.message} for p in self.problems],
            "overrides": [],
            "match": {"policy": state.policy.name if state.policy else None, "result": result,
                      "ended": state.ended is not None, "players": list(state.players),
                      "banlist": {"name": state.banlist.name, "hash": state.banlist_hash} if state.banlist else None,
                      "games": [g.to_dict() for g in state.games],
                      "time": state.time.to_dict() if state.time else None,
                      "penalties": [p.to_dict() for p in state.penalties],
                      "unread_duels": {str(k): v for k, v in self.missing.items()}}}


def report(match: Match) -> MatchReport:
    state, problems = match.audit()
    return MatchReport(len(match.events), state, problems, match.missing)
