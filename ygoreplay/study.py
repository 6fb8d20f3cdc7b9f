"""A duel opened for stepping through, as ``ygoreplay play`` does: where the reader is, in which
view, what each event said, what it changed, and how to get somewhere (an event, a turn, the next
event naming a card or holding a word).

The terminal viewer (``tui.py``) and the line-by-line fallback of ``play`` (``cli/duels.py``) both move
a ``Study``; neither folds a duel itself. Positions are event indices as ``show --at`` takes them:
``index`` is the event just shown, and the board is the board after it.
"""
from __future__ import annotations

from .access import CALL
from .i18n import say
from .log import Entry, narrate
from .render import changes
from .source import Source, SourceError
from .state import DuelState
from .views import VIEWS


class Study:
    """One duel, one view at a time, one event shown."""

    def __init__(self, source: Source, view: str | None = None) -> None:
        self.source = source
        self.view = view or source.view
        self.index = 0
        self._entries: dict[str, list[Entry]] = {}
        self._states: dict[tuple[str, int], DuelState] = {}
        if not self.entries:                           # an unknown or wider view fails here, not later
            raise SourceError(say("{name}: the duel has no events", name=source.name))

    def __repr__(self) -> str:
        return f"<Study {self.source.name!r} event {self.index}/{self.last} {self.view} view>"

    @property
    def shown(self) -> Source:
        """The duel as far as the current view may see it (``Source.seen``: a judge's what-if
        branch stops where the service's views of it stop, ZONE-12, ZONE-13): every event,
        turn and reverted position is read from it."""
        return self.source.seen(self.view)

    @property
    def last(self) -> int:
        return len(self.shown.events) - 1

    @property
    def entries(self) -> list[Entry]:
        """The log of the duel in the current view (worked out once per view)."""
        if self.view not in self._entries:
            shown = self.shown
            self._entries[self.view] = list(narrate(shown.steps(self.view), shown.reverted, shown.marks(self.view)))
        return self._entries[self.view]

    @property
    def entry(self) -> Entry:
        return self.entries[self.index]

    def state(self, index: int | None = None) -> DuelState:
        """The board after event ``index`` (default: the one shown) in the current view; the last
        few are kept, since a step draws the board before it and after it."""
        key = (self.view, self.index if index is None else index)
        if key not in self._states:
            if len(self._states) >= 4:
                self._states.pop(next(iter(self._states)))
            self._states[key] = self.shown.state_after(key[1], self.view)
        return self._states[key]

    def changed(self) -> set[str]:
        """What the event shown changed on the board (``render.changes``)."""
        if self.index == 0:
            return set()
        return changes(self.state(self.index - 1), self.state())

    # -- moving ---------------------------------------------------------------------------------

    def go(self, index: int) -> int:
        """Show event ``index``, kept within the duel."""
        self.index = max(0, min(self.last, index))
        return self.index

    def step(self, by: int) -> int:
        return self.go(self.index + by)

    def turn_start(self, turn: int) -> int:
        """The turn_started event of turn ``turn``; SourceError if the duel has none."""
        return self.go(self.shown.turn_start(turn))

    def next_turn(self, direction: int) -> int:
        """The start of the next turn (``direction`` 1), or of this one and then the one before (-1)."""
        starts = [i for i, e in enumerate(self.shown.events) if e.kind == "turn_started"]
        if direction > 0:
            later = [i for i in starts if i > self.index]
            return self.go(later[0] if later else self.last)
        earlier = [i for i in starts if i < self.index]
        return self.go(earlier[-1] if earlier else 0)

    def find(self, text: str, direction: int = 1) -> int | None:
        """The next event (or the previous, ``direction`` -1) whose log line holds ``text`` or
        names a card whose name holds it, any case; None when no other event does."""
        wanted = text.casefold().strip()
        if not wanted:
            return None
        count = len(self.entries)
        for offset in range(1, count):
            i = (self.index + direction * offset) % count
            entry = self.entries[i]
            if wanted in entry.text.casefold() or any(c["name"] and wanted in c["name"].casefold() for c in entry.cards):
                return self.go(i)
        return None

    def next_call(self, direction: int = 1) -> int | None:
        """The next event (or the previous, ``direction`` -1) where the judge was wanted: a judge
        call entered (``judge_note`` of category ``call``), an entry flagged or disputed; None
        when no later (earlier) one is, the event shown kept. What a judge reviewing a witnessed
        duel jumps between."""
        entries = self.entries
        i = self.index + direction
        while 0 <= i < len(entries):
            if _wanted_the_judge(entries[i]):
                return self.go(i)
            i += direction
        return None

    def switch(self, view: str) -> None:
        """See the duel as another view saw it (a view file shows only its own)."""
        if view not in VIEWS:
            raise SourceError(say("unknown view {view!r} (views: {names_list})",
                                  view=view, names_list=', '.join(VIEWS)))
        previous, self.view = self.view, view
        try:
            if not self.entries:
                raise SourceError(say("{name}: the duel has no events", name=self.source.name))
        except SourceError:
            self.view = previous
            raise
        self.go(self.index)                     # within what this view may see

    def views(self) -> tuple[str, ...]:
        """The views this duel can be seen in: every view of a full record, else its own."""
        return VIEWS if self.source.view == "judge" else (self.source.view,)


def _wanted_the_judge(entry: Entry) -> bool:
    """A judge call, or an entry the rules flagged or the other side disputed (its marks)."""
    if entry.kind == "judge_note" and getattr(entry.event, "category", None) == CALL:
        return True
    marks = entry.marks or {}
    return bool(marks.get("flags") or marks.get("disputed"))
