"""A duel's history under judge rollbacks: which events are in effect, which were reverted.

A rollback (``rolled_back``) is itself an event: play goes on from the state before event ``to``,
and the events in between stay in the log, marked reverted. ``History`` folds a stream of events
in order, honouring rollbacks; the rules fold (``rules.apply``) never sees a rollback. Positions
are stream positions (0-based), the same numbers violations carry.

To go back, ``History`` restores the nearest checkpoint it took itself (every
``CHECKPOINT_EVERY`` events in effect, and at every rollback) and folds forward from there, so a
rollback costs at most that many events, however long the duel and however many rollbacks came
before. A history takes no checkpoint until its first rollback (most never see one): that one
folds the events in effect again from the start, taking the checkpoints as it goes. A history resumed from a store's snapshot knows nothing before it: going back past the
snapshot asks the ``restore`` function it was given.

``before``/``after`` hooks run around every event, also when events are folded again to restore a
state: a view's fold uses them to name the cards each event shows (``views.ViewReplay``), so a
restored state knows exactly what the viewer knew then.
"""
from __future__ import annotations

import bisect
from typing import Callable, Iterable

import msgpack

from ..cards import CardDB
from ..events import Event, RolledBack, from_dict
from ..state import DuelState, Violation
from .base import RuleViolation, judges_word
from .fold import apply

CHECKPOINT_EVERY = 256
Hook = Callable[[int, DuelState], None]


class History:
    """Folds events one by one into ``state``; rollbacks restore an earlier state.

    With ``audit=True`` violations are collected in ``violations`` instead of raised; one append
    can still ask to be checked strictly (``append(event, strict=True)``), as a store does for a
    new event after folding a stored record that may hold violations.
    """

    def __init__(self, cards: CardDB, *, audit: bool = False,
                 restore: Callable[[int], DuelState] | None = None,
                 state: DuelState | None = None, position: int = 0,
                 before: Hook | None = None, after: Hook | None = None) -> None:
        self.cards = cards
        self.audit = audit
        self.state = state if state is not None else DuelState(cards)
        self.position = position                 # the stream position of the next event
        self.base = position                     # nothing before it is held in memory
        self.effective: list[tuple[int, Event]] = []   # events in effect since ``base``, in order
        self.reverted: dict[int, int] = {}       # reverted position -> the rollback's position
        self.rollbacks: list[tuple[int, RolledBack]] = []
        self._rollback_positions: set[int] = set()
        self.violations: list[Violation] = []
        # Rules that read a card the record does not know: neither kept nor called (``rules.base.fail``).
        self.undecided: list[Violation] = []
        self.unknown_events = 0                  # events whose checks read a card it does not know
        self.state.undecided = self.undecided
        self._restore = restore
        self._before, self._after = before, after
        self._checkpoint_due = False
        # (next position, the state packed, len(effective)): the state once every event in effect
        # before that position is applied; packed, so that later changes cannot reach it.
        self._checkpoints: list[tuple[int, bytes, int]] = [(position, _pack(self.state), 0)]
        self._since_checkpoint = 0
        self._checkpointing = False              # from the first rollback on
        if audit:
            self.state.violations = self.violations

    def append(self, event: Event, *, strict: bool = False) -> DuelState:
        """Apply the next event; when not auditing (or ``strict``) a violation is raised and the
        history is left as it was."""
        position = self.position
        state = self.state
        state.index = position
        checked = strict or not self.audit
        collected = state.violations
        if strict:
            state.violations = None
        if self._before is not None:
            self._before(position, state)
        try:
            if isinstance(event, RolledBack):
                self._roll_back(position, event)
            else:
                apply(state, event)
                self.effective.append((position, event))
                self._since_checkpoint += 1
                if state.unknown.reads != state.reads_before:
                    self.unknown_events += 1
        except RuleViolation as v:
            if checked:
                raise
            self.violations.append(Violation(v.index, v.rule, v.message))
        finally:
            if strict:
                self.state.violations = collected
        if self._after is not None:
            self._after(position, self.state)
        self.position = position + 1
        self.state.index = self.position
        if self._checkpoint_due or (self._checkpointing and self._since_checkpoint >= CHECKPOINT_EVERY):
            self._checkpoint()
        return self.state

    def extend(self, events: Iterable[Event]) -> DuelState:
        for event in events:
            self.append(event)
        return self.state

    def _checkpoint(self) -> None:
        """Keep the state now. Kept states stay CHECKPOINT_EVERY events in effect apart (a newer
        one replaces one too close to it), so however many rollbacks a duel holds, it keeps at
        most one state per that many events."""
        count = len(self.effective)
        if len(self._checkpoints) > 1 and self._checkpoints[-1][2] > count - CHECKPOINT_EVERY:
            self._checkpoints.pop()
        self._checkpoints.append((self.position, _pack(self.state), count))
        self._since_checkpoint = 0
        self._checkpoint_due = False

    def _roll_back(self, position: int, event: RolledBack) -> None:
        judges_word(self.state, event, event.reason, "reason")
        if self.state.ended:
            raise RuleViolation("MATCH-10", "the duel is over: appeals and rollbacks after its end are not accepted",
                                position, event.kind)
        if not 0 < event.to < position:
            raise RuleViolation("LOG-02", f"a rollback goes back to an earlier event (1..{position - 1}), not {event.to}",
                                position, event.kind)
        if event.to in self.reverted:
            raise RuleViolation("LOG-02", f"event {event.to} was already reverted by the rollback at {self.reverted[event.to]}",
                                position, event.kind)
        if event.to in self._rollback_positions:       # "before a rollback" is ambiguous
            raise RuleViolation("LOG-02", f"event {event.to} is itself a rollback: go back to an event of play",
                                position, event.kind)
        state = self._state_before(event.to)
        while self.effective and self.effective[-1][0] >= event.to:   # rollbacks are never reverted
            self.reverted[self.effective.pop()[0]] = position
        if event.to < self.base:                        # events before ``base`` were never in memory
            for pos in range(event.to, self.base):
                if pos not in self.reverted and pos not in self._rollback_positions:
                    self.reverted[pos] = position
            self.base = event.to
        self.rollbacks.append((position, event))
        self._rollback_positions.add(position)
        if self.audit:
            state.violations = self.violations
        state.undecided = self.undecided
        self.state = state
        cut = bisect.bisect_right(self._checkpoints, event.to, key=lambda c: c[0])
        del self._checkpoints[cut:]
        self._checkpoint_due = True              # once this event's ``after`` hook has run

    def _state_before(self, to: int) -> DuelState:
        """The state before event ``to``: the nearest checkpoint, then the events in effect."""
        if to < self.base:
            if self._restore is None:
                raise RuleViolation("LOG-02", f"event {to} is before this history's first event ({self.base})",
                                    to, "rolled_back")
            return self._restore(to)
        at = bisect.bisect_right(self._checkpoints, to, key=lambda c: c[0]) - 1
        _position, packed, count = self._checkpoints[at]
        state = DuelState.from_data(msgpack.unpackb(packed), self.cards)
        state.violations = [] if self.audit else None   # already reported once
        before, after = self._before, self._after
        first = not self._checkpointing                 # the first rollback: checkpoints from here
        folded, taken = 0, []
        for pos, event in self.effective[count:]:
            if pos >= to:
                break
            state.index = pos
            if before is not None:
                before(pos, state)
            apply(state, event)
            if after is not None:
                after(pos, state)
            folded += 1
            if first and folded % CHECKPOINT_EVERY == 0:
                taken.append((pos + 1, _pack(state), count + folded))
        self._checkpoints[at + 1:at + 1] = taken
        self._checkpointing = True
        state.index = to
        state.violations = None
        return state

    def to_data(self) -> dict:
        """What a snapshot keeps besides the state: the rollbacks and what they reverted."""
        return {"state": self.state.to_data(), "position": self.position,
                "reverted": sorted(self.reverted.items()),
                "rollbacks": [[pos, e.to_dict()] for pos, e in self.rollbacks]}

    @classmethod
    def from_data(cls, data: dict, cards: CardDB, *, audit: bool = False,
                  restore: Callable[[int], DuelState] | None = None) -> "History":
        """Resume from a snapshot; rollbacks past it are restored with ``restore``."""
        history = cls(cards, audit=audit, restore=restore,
                      state=DuelState.from_data(data["state"], cards), position=data["position"])
        history.reverted = {pos: by for pos, by in data["reverted"]}
        history.rollbacks = [(pos, from_dict(e)) for pos, e in data["rollbacks"]]
        history._rollback_positions = {pos for pos, _ in history.rollbacks}
        return history


def _pack(state: DuelState) -> bytes:
    return msgpack.packb(state.to_data())
