"""The rules engine: one fold, three uses.

``apply(state, event)`` (``fold.py``) checks one event against the rules and applies it, with no
I/O, clock or randomness. The same function

* validates a new action before it is recorded (a refused event leaves the state untouched),
* rebuilds the state of a duel at any event (``replay``), and
* audits a finished record (``audit``: every violation is collected and the fold goes on).

``History`` (``history.py``) runs the fold over a whole stream and honours judge rollbacks.
"""
from __future__ import annotations

from typing import Callable, Iterable

from ..cards import CardDB
from ..events import Event
from ..lazy_dataclass import dataclass
from ..state import DuelState, Override, Violation
from .base import RuleViolation
from .fold import HANDLERS, apply
from .history import History

__all__ = ["AuditReport", "HANDLERS", "History", "RuleViolation", "apply", "audit", "replay"]


def replay(events: Iterable[Event], cards: CardDB, at: int | None = None) -> DuelState:
    """The state after event ``#at`` (0-based, as the log numbers events; the last when None);
    raises at the first violation."""
    history = History(cards)
    for i, event in enumerate(events):
        if at is not None and i > at:
            break
        history.append(event)
    return history.state


@dataclass
class AuditReport:
    """What an audit found: every violation, every cited override, rollbacks, the final state."""

    history: History
    events: int

    @property
    def state(self) -> DuelState:
        return self.history.state

    @property
    def violations(self) -> list[Violation]:
        return self.history.violations

    @property
    def overrides(self) -> list[Override]:
        return self.history.state.overrides

    @property
    def legal(self) -> bool:
        return not self.violations

    def __repr__(self) -> str:
        verdict = "legal" if self.legal else f"{len(self.violations)} violation(s)"
        state = self.state
        result = ("a draw" if state.winner is None else f"player {state.winner} won") if state.ended else "not finished"
        return (f"<AuditReport {self.events} events, {verdict}, {len(self.overrides)} override(s), "
                f"{len(self.history.rollbacks)} rollback(s), {result}>")


def audit(events: Iterable[Event], cards: CardDB,
          after: Callable[[int, DuelState], None] | None = None) -> AuditReport:
    """Re-check a whole record: collect every violation and go on past it. ``after(position,
    state)``: called after each event, for a caller that reads the states on the way (one fold)."""
    history = History(cards, audit=True, after=after)
    count = 0
    for event in events:
        history.append(event)
        count += 1
    history.state.violations = None
    return AuditReport(history, count)
