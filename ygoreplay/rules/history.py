"""A duel's history under judge rollbacks: which events are in effect, which were reverted.

A rollback (``rolled_back``) is itself an event: play goes on from the state before event ``to``,
and the events in between stay in the log, marked reverted. ``History`` folds a stream of events
in order, honouring rollbacks; the rules fold (``rules.apply``) never sees a rollback. Positions
are stream positions (0-based), the same numbers violations carry.
"""
from __future__ import annotations

from typing import Callable, Iterable

from ..cards import CardDB
from ..events import Event, RolledBack, from_dict
from ..state import DuelState, Violation
from .base import RuleViolation
from .fold import apply


class History:
    """Folds events one by one into ``state``; rollbacks restore an earlier state.

    ``restore(position)`` returns the state before the event at ``position``; by default it is
    rebuilt from the events still in effect (a store passes one that starts from a snapshot).
    With ``audit=True`` violations are collected in ``violations`` instead of raised.
    """

    def __init__(self, cards: CardDB, *, audit: bool = False,
                 restore: Callable[[int], DuelState] | None = None,
                 state: DuelState | None = None, position: int = 0) -> None:
        self.cards = cards
        self.audit = audit
        self.state = state if state is not None else DuelState(cards)
        self.position = position                 # the stream position of the next event
        self.effective: list[tuple[int, Event]] = []
        self.reverted: dict[int, int] = {}       # reverted position -> the rollback's position
        self.rollbacks: list[tuple[int, RolledBack]] = []
        self.violations: list[Violation] = []
        self._restore = restore or self._refold
        if audit:
            self.state.violations = self.violations

    def append(self, event: Event) -> DuelState:
        """Apply the next event; raises RuleViolation (not auditing) and leaves the history as it was."""
        position = self.position
        self.state.index = position
        try:
            if isinstance(event, RolledBack):
                self._roll_back(position, event)
            else:
                apply(self.state, event)
                self.effective.append((position, event))
        except RuleViolation as v:
            if not self.audit:
                raise
            self.violations.append(Violation(v.index, v.rule, v.message))
        self.position = position + 1
        self.state.index = self.position
        return self.state

    def extend(self, events: Iterable[Event]) -> DuelState:
        for event in events:
            self.append(event)
        return self.state

    def _roll_back(self, position: int, event: RolledBack) -> None:
        if self.state.ended:
            raise RuleViolation("MATCH-10", "the duel is over: appeals and rollbacks after its end are not accepted",
                                position, event.kind)
        if not 0 < event.to < position:
            raise RuleViolation("LOG-02", f"a rollback goes back to an earlier event (1..{position - 1}), not {event.to}",
                                position, event.kind)
        if event.to in self.reverted:
            raise RuleViolation("LOG-02", f"event {event.to} was already reverted by the rollback at {self.reverted[event.to]}",
                                position, event.kind)
        if any(pos == event.to for pos, _ in self.rollbacks):   # "before a rollback" is ambiguous
            raise RuleViolation("LOG-02", f"event {event.to} is itself a rollback: go back to an event of play",
                                position, event.kind)
        state = self._restore(event.to)
        rolled = {pos for pos, _ in self.rollbacks}
        for pos in range(event.to, position):         # rollbacks themselves are never reverted
            if pos not in self.reverted and pos not in rolled:
                self.reverted[pos] = position
        self.effective = [(pos, e) for pos, e in self.effective if pos < event.to]
        self.rollbacks.append((position, event))
        if self.audit:
            state.violations = self.violations
        self.state = state

    def to_data(self) -> dict:
        """What a snapshot keeps besides the state: the rollbacks and what they reverted."""
        return {"state": self.state.to_data(), "position": self.position,
                "reverted": sorted(self.reverted.items()),
                "rollbacks": [[pos, e.to_dict()] for pos, e in self.rollbacks]}

    @classmethod
    def from_data(cls, data: dict, cards: CardDB, *, restore: Callable[[int], DuelState]) -> "History":
        """Resume from a snapshot; rollbacks past it are restored with ``restore``."""
        history = cls(cards, restore=restore, state=DuelState.from_data(data["state"], cards),
                      position=data["position"])
        history.reverted = {pos: by for pos, by in data["reverted"]}
        history.rollbacks = [(pos, from_dict(e)) for pos, e in data["rollbacks"]]
        return history

    def _refold(self, to: int) -> DuelState:
        """The state before event ``to``, folded again from the events in effect."""
        state = DuelState(self.cards)
        state.violations = [] if self.audit else None   # already reported once
        for pos, event in self.effective:
            if pos >= to:
                break
            state.index = pos
            apply(state, event)
        state.index = to
        state.violations = None
        return state
