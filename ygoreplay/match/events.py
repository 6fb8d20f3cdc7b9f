"""The match stream's event kinds, version 1: a best-of-three from its start to its result.

They share the duel's event base, wire form and decoder (``@event_kind`` registers each in the
one vocabulary of ``ygoreplay.events``), so a match is written, hashed, stored and signed like a
duel; a match kind is a ``MatchEvent``, whose class attributes say what the match fold needs. A match's duels are separate streams,
named by ``game_started.duel`` (a duel id in a store, or a file beside the match file).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar, Mapping

from ..events import EVENT_TYPES, PHASES, Event, _int, _passcode, _seq, _str, event_kind, register
from ..i18n import N_, say
from .policies import POLICIES

#: How a duel of a match ended (the duel's own ``duel_ended`` reasons a match distinguishes).
GAME_ENDINGS = ("lp", "deck_out", "effect", "surrender", "draw", "disconnect", "judge")
#: How a duel judged at time was decided: on LP after the extra turns (TIME-04), at the end of
#: the phase (FINISH_PHASE policies), in sudden death (TIME-05), after an extra duel's 4 turns (TIME-08).
DECISION_STAGES = ("extra_turns", "phase_end", "sudden_death", "extra_duel")
#: PEN-02's listed infractions, in its order, and "other" for what it does not list.
INFRACTIONS = (
    "lateness", "unsporting_conduct", "slow_play", "long_interval", "decklist_changed", "peeking",
    "misstated_card", "misstated_hand_or_lp", "draw_manipulation", "outside_assistance",
    "marked_cards", "objects_in_sleeves", "marking_cards", "banlist", "deck_too_small",
    "unrelated_objects", "other")
PENALTIES = ("caution", "warning", "game_loss", "match_loss", "disqualification")
#: How a match ended (``match_ended.how``).
MATCH_ENDINGS = ("games", "time", "penalty", "concession", "double_loss")
APPEAL_DECISIONS = ("upheld", "overturned")


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchEvent(Event):
    """An event of a match's stream; what the match fold (``match.rules``) needs to know of a kind."""

    stream: ClassVar[str] = "match"
    #: A match begins with it (LOG-03).
    opens_match: ClassVar[bool] = False
    #: It may follow the match's result (an appeal of the last ruling, MATCH-10).
    after_result: ClassVar[bool] = False
    #: It plays the match's duels on: refused once the match is decided, when only its result
    #: may follow (LOG-03).
    continues_play: ClassVar[bool] = False


@event_kind
class MatchStarted(MatchEvent):
    """The first event: players, format, the end-of-match policy, and the banlist by name, content
    and hash (DECK-08/09: the list travels with the record, so the record judges itself)."""

    kind: ClassVar[str] = "match_started"
    opens_match: ClassVar[bool] = True
    in_header: ClassVar[tuple[str, ...]] = ("players", "banlist", "banlist_hash")
    vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"policy": tuple(POLICIES)}
    players: tuple[str, ...]
    policy: str
    banlist: str
    banlist_hash: str
    limits: tuple[dict, ...] = ()       # [{"code": passcode, "limit": 0|1|2}, ...]
    whitelist: bool = False
    format: str = ""
    event_name: str = ""
    round: int | None = None
    time_limit: int = 40                # minutes (TIME-01)


@event_kind
class DecklistRegistered(MatchEvent):
    """A player's decklist with its Side Deck, once per tournament (MATCH-04), judged by DECK rules."""

    kind: ClassVar[str] = "decklist_registered"
    player: int
    main: tuple[int, ...]
    extra: tuple[int, ...] = ()
    side: tuple[int, ...] = ()


@event_kind
class GameStarted(MatchEvent):
    """Duel ``game`` of the match starts: its own stream ``duel``, who goes first, who chose (MATCH-07)."""

    kind: ClassVar[str] = "game_started"
    continues_play: ClassVar[bool] = True
    game: int
    duel: str
    first_player: int
    chosen_by: int | None = None
    extra_duel: bool = False            # the 4-turn extra duel from 8000 LP (TIME-08)


@event_kind
class SideDeckSwapped(MatchEvent):
    """Between duels, cards swapped one-for-one with the Side Deck, every deck keeping its size (MATCH-06)."""

    kind: ClassVar[str] = "side_deck_swapped"
    continues_play: ClassVar[bool] = True
    player: int
    main_out: tuple[int, ...] = ()
    main_in: tuple[int, ...] = ()
    extra_out: tuple[int, ...] = ()
    extra_in: tuple[int, ...] = ()


@event_kind
class GameEnded(MatchEvent):
    """A duel ended by itself (WIN-01..04, a surrender): ``winner`` 0, 1 or None for a draw."""

    kind: ClassVar[str] = "game_ended"
    continues_play: ClassVar[bool] = True
    vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"how": GAME_ENDINGS}
    game: int
    winner: int | None
    how: str


@event_kind
class TimeCalled(MatchEvent):
    """The match's time is up (TIME-01): the wall clock, and where the duel in progress stood;
    ``game`` None when time is called between duels (during deck adjustment: TIME-08/09)."""

    kind: ClassVar[str] = "time_called"
    continues_play: ClassVar[bool] = True
    vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"phase": PHASES}
    clock: str
    game: int | None = None
    turn: int | None = None
    phase: str | None = None
    turn_player: int | None = None


@event_kind
class ExtraTurnStarted(MatchEvent):
    """Extra turn ``n`` after time (TIME-03): duel turn ``turn`` of game ``game``."""

    kind: ClassVar[str] = "extra_turn_started"
    continues_play: ClassVar[bool] = True
    game: int
    n: int
    turn: int


@event_kind
class GameDecided(MatchEvent):
    """A duel ended by the end-of-match procedure: the LP it was judged on and the result they
    give under the policy (TIME-04/05/08; ``winner`` None for a draw)."""

    kind: ClassVar[str] = "game_decided"
    continues_play: ClassVar[bool] = True
    vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"stage": DECISION_STAGES}
    game: int
    lp: tuple[int, ...]
    winner: int | None
    stage: str
    turn: int | None = None


@event_kind
class JudgeCalled(MatchEvent):
    """A player calls a judge (MATCH-08)."""

    kind: ClassVar[str] = "judge_called"
    player: int
    judge: str
    question: str = ""


@event_kind
class JudgeRuled(MatchEvent):
    """The judge's ruling, which the players must follow (MATCH-08)."""

    kind: ClassVar[str] = "judge_ruled"
    judge: str
    ruling: str


@event_kind
class RulingAppealed(MatchEvent):
    """A player appeals the last ruling to another judge, before the match ends (MATCH-10)."""

    kind: ClassVar[str] = "ruling_appealed"
    after_result: ClassVar[bool] = True
    vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"decision": APPEAL_DECISIONS}
    player: int
    judge: str
    decision: str
    note: str = ""


@event_kind
class PenaltyGiven(MatchEvent):
    """A penalty for a PEN-02 infraction. A game loss ends the duel in progress (or, between duels,
    counts as the next one) for the opponent; a match loss or disqualification ends the match."""

    kind: ClassVar[str] = "penalty_given"
    vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"infraction": INFRACTIONS, "penalty": PENALTIES}
    player: int
    judge: str
    infraction: str
    penalty: str
    note: str = ""


@event_kind
class MatchConceded(MatchEvent):
    """A player concedes the match; the opponent wins it."""

    kind: ClassVar[str] = "match_conceded"
    player: int


@event_kind
class MatchEnded(MatchEvent):
    """The result: ``winner`` 0, 1 or None (a draw, or a double loss), how, the duels won by each
    player and drawn (``games``: [wins 0, wins 1, draws]) and the standing points each earns."""

    kind: ClassVar[str] = "match_ended"
    vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"how": MATCH_ENDINGS}
    winner: int | None
    how: str
    games: tuple[int, ...]
    points: tuple[int, ...]


def _limit(value: Any) -> dict:
    """A banlist entry: ``{"code": passcode, "limit": copies}``."""
    if not isinstance(value, dict) or set(value) != {"code", "limit"}:
        raise ValueError(say('a banlist entry is {{"code": passcode, "limit": copies}}, got {value!r:.80}', value=value))
    limit = value["limit"]
    if not isinstance(limit, int) or isinstance(limit, bool) or not 0 <= limit <= 3:
        raise ValueError(say("a banlist limit is 0 to 3 copies, got {limit!r:.20}", limit=limit))
    return {"code": _passcode(value["code"]), "limit": limit}


#: A wall clock as ``time_called`` records it: an ISO 8601 date and time with its offset from UTC.
CLOCK_FORMAT = "an ISO 8601 date and time with its UTC offset (2025-12-06T10:40:00Z, 2025-12-06T19:40+09:00)"
CLOCK_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?(Z|[+-][0-9]{2}:[0-9]{2})$"
_CLOCK = re.compile(CLOCK_PATTERN.removeprefix("^").removesuffix("$"))


def is_clock(value: str) -> bool:
    """A real date and time as ``time_called`` records it, at most 32 characters. The match
    rules check it (LOG-05) on every write, whatever the door, rather than the decoder: a match
    recorded before the check, with a clock as it was typed, still loads, its clock flagged."""
    if len(value) > 32 or not _CLOCK.fullmatch(value):
        return False
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True


#: The match stream's kinds: every kind defined on ``MatchEvent``, in the order defined.
MATCH_KINDS = tuple(cls for cls in EVENT_TYPES.values() if cls.stream == "match")
KINDS = frozenset(cls.kind for cls in MATCH_KINDS)

_PASSCODES = _seq(_passcode)
register({
    ("match_started", "players"): _seq(_str, least=2, most=2, count=N_(" (one name per player)")),
    ("match_started", "limits"): _seq(_limit, most=100_000),
    **{("decklist_registered", part): _PASSCODES for part in ("main", "extra", "side")},
    **{("side_deck_swapped", part): _PASSCODES for part in ("main_out", "main_in", "extra_out", "extra_in")},
    ("game_decided", "lp"): _seq(_int, least=2, most=2, count=N_(" (LP of player 0, of player 1)")),
    ("match_ended", "games"): _seq(_int, least=3, most=3, count=N_(" (wins 0, wins 1, draws)")),
    ("match_ended", "points"): _seq(_int, least=2, most=2, count=N_(" (points of player 0, of player 1)")),
})
