"""A duel as readable text, one entry per event, grouped by turn and phase (like a PGN move list).

Each event is described against the state just before it, so cards are named as the viewer of the
log knew them then: a hidden card stays "a card" until the event that shows it. What a judge asks
of a log line is answered on it: who acted, which copy of a card (its zone on the field, a copy
number elsewhere), what was paid, why LP changed and where they stand now, what flipped, what
cancelled an attack. Every line carries its turn and phase, so ``grep`` keeps the context::

    >>> for line in log_lines(narrate(judge_steps(events, cards))): print(line)   # doctest: +SKIP
    Turn 2 — Kaiba
      Battle Phase, damage step
        #22   T2 BP  Damage calculation: Vorse Raider [M2] 1900 ATK vs Giant Soldier of Stone [M2] 2000 DEF ...

``narrate`` yields ``Entry`` objects (``to_dict()`` is what ``log --json`` prints); ``log_lines``
lays them out; ``EntryFilter`` keeps the entries of a turn, a card or a player.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator

from .cards import CardDB
from .events import BATTLE_STEPS, PHASES, Event
from .i18n import t
from .rules import History
from .sentences import SENTENCES, Line, lp_after, phase_name, step_name
from .state import DuelState
from .text import printable

PHASE_TAGS = {"draw": "DP", "standby": "SP", "main1": "M1", "battle": "BP", "main2": "M2", "end": "EP"}


@dataclass
class Entry:
    """One event as a line of the log: where in the duel it happened, what it says, the cards it
    names (the view's ids and names) and the LP after it."""

    index: int
    event: Event
    turn: int
    phase: str | None
    step: str | None
    player: int | None            # the player it is about: who acted, or whose card it moved
    text: str
    cards: list[dict[str, Any]] = field(default_factory=list)
    lp: tuple[int, int] = (0, 0)
    reverted_by: int | None = None
    turn_player: str = ""          # the name of the player whose turn it is
    marks: dict | None = None      # a witnessed duel's: who entered it, flags, ... (``History.marks``)

    @property
    def kind(self) -> str:
        return self.event.kind

    @property
    def tag(self) -> str:
        """``T4 BP``: the turn and phase, on every line."""
        return f"T{self.turn} {PHASE_TAGS.get(self.phase or '', '--')}"

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "turn": self.turn, "phase": self.phase, "step": self.step,
                "kind": self.kind, "player": self.player, "text": self.text, "cards": self.cards,
                "lp": list(self.lp), "reverted_by": self.reverted_by, "event": self.event.to_dict(),
                **({"marks": self.marks} if self.marks is not None else {})}

    def __repr__(self) -> str:
        return f"<Entry #{self.index} {self.tag} {self.kind}: {self.text[:60]!r}>"


_SUBJECT = ("card", "attacker", "cards", "tributes")


class Narrator:
    """Describes the events of one duel in order, remembering what a reader of the log does: the
    chain link that resolved last, the cause of the outcomes that follow it when a record does
    not name one."""

    def __init__(self) -> None:
        self.resolved: str | None = None

    def entry(self, index: int, event: Event, before: DuelState, reverted_by: int | None = None) -> Entry:
        """The entry of ``event``, described against ``before`` (the state just before it)."""
        words = Line(before, event.shows)
        text = printable(SENTENCES[event.kind](words, event, self) + words.unmentioned_shows())
        kind = event.kind
        if kind == "chain_link_resolved":
            chain = before.chain
            self.resolved = chain[event.link - 1].card if 0 < event.link <= len(chain) else None
        elif kind in ("activated", "chain_ended", "turn_started", "phase_entered"):
            self.resolved = None
        turn, phase, step = before.turn, before.phase, before.step
        if kind == "turn_started":
            turn, phase, step = event.turn, None, None
        elif kind == "phase_entered":
            phase, step = event.phase, None
        elif kind == "step_entered":
            step = event.step
        turn_player = words.who(event.player if kind == "turn_started" else before.turn_player)
        return Entry(index, event, turn, phase, step, _about(before, event), text, words.cards,
                     _lp_after(before, event), reverted_by, printable(turn_player))

    def describe(self, state: DuelState, event: Event) -> str:
        """The line of ``event`` alone (the web viewer's log), said against ``state``."""
        return self.entry(state.index, event, state).text


def _about(state: DuelState, event: Event) -> int | None:
    """The player an event is about: who acted, else the controller of the card it names."""
    if event.player is not None:
        return event.player
    for name in _SUBJECT:
        value = getattr(event, name, None)
        card_id = value[0] if isinstance(value, tuple) and value else value
        if isinstance(card_id, str) and card_id in state.cards:
            return state.cards[card_id].controller
    return None


def _lp_after(state: DuelState, event: Event) -> tuple[int, int]:
    lp = [side.lp for side in state.sides]
    if event.kind == "life_points_changed":
        player = state.turn_player if event.player is None else event.player
        if player in (0, 1):
            lp[player] = lp_after(lp[player], event.amount, event.reason)
    elif event.kind == "activated":
        player = state.turn_player if event.player is None else event.player
        if player in (0, 1):
            lp[player] = max(0, lp[player] - sum(c.lp for c in event.costs))
    return lp[0], lp[1]


def narrate(steps: Iterable[tuple[int, Event, DuelState]], reverted: dict[int, int] | None = None,
            marks: dict[int, dict] | None = None) -> Iterator[Entry]:
    """The entries of a duel. ``steps`` yields (index, event, state before it) — ``judge_steps``
    or ``ViewReplay.steps`` — so each event is described with what was known when it happened;
    ``reverted`` maps the events a judge's rollback (or a correction) undid to it; ``marks`` are
    a witnessed duel's, by index (``History.marks``)."""
    reverted = reverted or {}
    narrator = Narrator()
    for index, event, before in steps:
        entry = narrator.entry(index, event, before, reverted.get(index))
        if marks is not None:
            entry.marks = marks.get(index)
        yield entry


def mark_text(entry: Entry) -> str:
    """What a log line adds: reverted by a judge's rollback, or struck by a correction; in a
    witnessed duel the rules it broke (flagged, with what followed), a dispute, unconfirmed."""
    marks = entry.marks or {}
    said = []
    if marks.get("struck") is not None:
        said.append(t("struck: corrected at #{index}", index=marks["struck"]))
    elif entry.reverted_by is not None:
        said.append(t("reverted by #{index}", index=entry.reverted_by))
    for flag in marks.get("flags", ()):
        said.append(t("flagged {rule}", rule=flag["rule"]))
    ruled = marks.get("ruled")
    if ruled is not None and ruled["how"] == "judge_note":
        said.append(t("ruled at #{index}: {decision}", index=ruled["at"], decision=ruled["decision"]))
    dispute = marks.get("disputed")
    if dispute is not None:
        said.append(t("disputed by {who} at #{index}: open", who=dispute["by"], index=dispute["at"]) if dispute["open"]
                    else t("disputed by {who} at #{index}", who=dispute["by"], index=dispute["at"]))
    elif marks.get("unconfirmed"):
        said.append(t("unconfirmed"))
    return "".join(f"  [{text}]" for text in said)


# -- choosing entries ------------------------------------------------------------------------------

@dataclass
class EntryFilter:
    """Which entries ``log`` prints: of some turns, naming a card, about a player. An empty
    filter keeps every entry."""

    turns: tuple[int, int] | None = None       # first and last turn, inclusive
    card: str | None = None                    # part of a card's name (any case), or its id
    player: int | None = None

    def __bool__(self) -> bool:
        return self.turns is not None or self.card is not None or self.player is not None

    def keeps(self, entry: Entry) -> bool:
        if self.turns is not None and not self.turns[0] <= entry.turn <= self.turns[1]:
            return False
        if self.player is not None and entry.player != self.player:
            return False
        if self.card is not None:
            wanted = self.card.casefold()
            return any(c["id"] == self.card or (c["name"] and wanted in c["name"].casefold()) for c in entry.cards)
        return True


def log_lines(entries: Iterable[Entry], keep: EntryFilter | None = None) -> Iterator[str]:
    """Lines of text: a heading whenever the turn, the phase or the Battle Phase step changes
    (also back to an earlier one after a judge's rollback), then one line per event, each with
    its turn and phase. Turn, phase and step events are the headings themselves."""
    heading: tuple | None = None
    turn_shown: int | None = None
    for entry in entries:
        if entry.kind in ("turn_started", "phase_entered", "step_entered") and not _undone_or_flagged(entry):
            continue
        if keep and not keep.keeps(entry):
            continue
        now = (entry.turn, entry.phase, entry.step)
        if now != heading:
            again = heading is not None and _order(now) < _order(heading)
            if entry.turn != turn_shown or heading is None:
                yield ""
                yield _turn_heading(entry) + (t(" (again, after a rollback)") if again else "")
                turn_shown = entry.turn
                again = False
            if entry.turn:
                yield ("  " + phase_name(entry.phase) + (t(", {step}", step=step_name(entry.step)) if entry.step else "")
                       + (t(" (again, after a rollback)") if again else ""))
            heading = now
        yield f"    #{entry.index:<5} {entry.tag:<6} {entry.text}{mark_text(entry)}"


def _undone_or_flagged(entry: Entry) -> bool:
    """A heading's own event is listed too when a correction struck it or it broke a rule."""
    marks = entry.marks or {}
    return marks.get("struck") is not None or bool(marks.get("flags"))


def _order(where: tuple) -> tuple[int, int, int]:
    """Where a heading stands in the duel: turn, phase, step (a rollback goes back)."""
    turn, phase, step = where
    return (turn, PHASES.index(phase) + 1 if phase in PHASES else 0,
            BATTLE_STEPS.index(step) + 1 if step in BATTLE_STEPS else 0)


def _turn_heading(entry: Entry) -> str:
    if not entry.turn:
        return t("Before the first turn")
    return t("Turn {turn} — {player}", turn=entry.turn, player=entry.turn_player)


def judge_steps(events: list[Event], cards: CardDB) -> Iterator[tuple[int, Event, DuelState]]:
    """(index, event, state before it) over a full record, folding as it goes."""
    history = History(cards, audit=True)
    for index, event in enumerate(events):
        yield index, event, history.state
        history.append(event)
