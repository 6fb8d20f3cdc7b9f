"""A match as a stream of the store (``store.StreamKind``): folded by the match rules, its anchors
signing the score and the result. The store writes, chains, anchors, signs and verifies a match
exactly as it does a duel; only the fold and the status differ."""
from __future__ import annotations

from ..cards import CardDB
from ..events import Event
from ..store.records import MATCH_TOPIC, StreamKind, register_kind
from .rules import MatchState, apply, outcome


class MatchFold:
    """The match fold as the store drives a fold: ``position``, ``append``, ``state``."""

    __slots__ = ("state",)

    def __init__(self, cards: CardDB) -> None:
        self.state = MatchState(cards, violations=[])

    @property
    def position(self) -> int:
        return self.state.index

    def append(self, event: Event, *, strict: bool = False) -> MatchState:
        """Apply the next event; ``strict`` raises its RuleViolation (and changes nothing), else
        a refused event is collected and skipped, as an audit does."""
        state = self.state
        if not strict:
            return apply(state, event)
        collected, state.violations = state.violations, None
        try:
            return apply(state, event)
        finally:
            state.violations = collected


class MatchKind(StreamKind):
    """The match's kind of stream."""

    name = "match"
    topic = MATCH_TOPIC
    snapshots = False                 # a match is a few dozen events: it is folded from its start

    def new(self, cards: CardDB) -> MatchFold:
        return MatchFold(cards)

    def use_cards(self, fold: MatchFold, cards: CardDB) -> None:
        fold.state.cards = cards

    def status(self, fold: MatchFold) -> dict:
        """What ``list`` shows of a match and its anchor signs: players, policy, score, result."""
        state = fold.state
        current = state.current
        ended = state.ended
        return {"players": list(state.players), "policy": state.policy.name if state.policy else None,
                "games": list(state.score()), "playing": current.number if current else None,
                "ended": ended is not None, "winner": ended.winner if ended else None,
                "how": ended.how if ended else None, "points": list(ended.points) if ended else None,
                **attention(state)}


def attention(state: MatchState) -> dict:
    """What of a match a round's organiser must act on (only what is so): a judge called and
    not ruled yet (MATCH-08), the time called (TIME-01, and the extra turns played: TIME-03),
    and a result the rules give (two duels won, a concession, a penalty: MATCH-01, PEN-02) that
    no one has recorded yet: the table's standing is not in the round until it is."""
    out: dict = {}
    if state.call_open:
        out["judge_called"] = True
    if state.time is not None:
        current = state.current
        out["time"] = {"clock": state.time.clock, "extra_turns": current.extra_turns if current else None}
    if state.ended is None and state.started and outcome(state).final:
        out["result_due"] = True
    return out


MATCH = register_kind(MatchKind())
