"""Who said so, in a witnessed duel: who entered each event, what the other side said of it,
and what a judge ruled on it.

A witnessed duel (``duel_started.witnessed``) is recorded at a table as it was played: an entry
that breaks a rule stands, flagged (``rules.base.fail``). The other side confirms an entry
(``entry_confirmed``) or disputes it (``entry_disputed``, a judge call: marked until a judge's
note ``on`` it rules); an entry neither confirmed nor disputed is *unconfirmed*, a state, not an
error. ``rules.History`` feeds this book every event and every ruling; the audit, the log and
the live viewer read its ``marks``. These are rules of the record itself, refused through every
door (kept and listed by an audit), never made to stand.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..i18n import N_, say
from ..events import Event, made
from ..lazy_dataclass import dataclass
from ..state import DuelState
from .base import RuleViolation

if TYPE_CHECKING:                  # annotations only: a kind is made on its first use (events._lazy)
    from ..events import EntryConfirmed, EntryDisputed, JudgeNote

PLAYERS = ("p0", "p1")


@dataclass(slots=True)
class Ruling:
    """What followed a flagged or disputed entry: a judge's note ruling ``on`` it, a judge's
    rollback that reverted it, or a correction that struck it; ``at`` is that event's index."""

    at: int
    how: str                 # judge_note, rolled_back, entry_corrected
    decision: str            # judge_note.decision, "reverted" or "corrected"
    judge: str | None = None

    def to_dict(self) -> dict:
        return {"at": self.at, "how": self.how, "decision": self.decision, "judge": self.judge}


class Entries:
    """The book of a witnessed duel's entries, by event index."""

    def __init__(self) -> None:
        self.by: dict[int, str] = {}                          # entry -> who entered it
        self.confirmed: dict[int, int] = {}                   # entry -> the confirmation's index
        self.disputed: dict[int, tuple[int, str, str]] = {}   # entry -> (index, by, reason)
        self.ruled: dict[int, Ruling] = {}                    # entry -> the judge's last note on it
        self.remarks: set[int] = set()                        # indexes of confirmations and disputes

    def entered(self, position: int, event: Event) -> None:
        if event.entered_by is not None:
            self.by[position] = event.entered_by

    def remark(self, state: DuelState, position: int, event: EntryConfirmed | EntryDisputed,
               went_back: set[int]) -> None:
        """Check and keep a confirmation or a dispute of entry ``on`` by the other side: an entry
        of play, a judge's, or a correction (LOG-12: one side's word that its entry was a
        mis-entry, the other's to agree to or to call a judge on, as the record marks it
        unconfirmed until then); never a judge's rollback (``went_back``) nor another remark."""
        who, on = event.entered_by, event.on
        if not state.witnessed:
            raise RuleViolation("LOG-05", say("a {kind} belongs to a witnessed duel: this record is a machine's",
                                              kind=event.kind),
                                position, event.kind)
        if who not in PLAYERS:
            raise RuleViolation("LOG-05", say("an entry is confirmed or disputed by a player (entered_by p0 or "
                                              "p1), not {entered_by!r}", entered_by=who) if who else
                                say("an entry is confirmed or disputed by a player (entered_by p0 or p1), not {who}",
                                    who=N_("nobody named")), position, event.kind)
        if not 0 <= on < position or on in self.remarks or on in went_back:
            raise RuleViolation("LOG-02", say("a {kind} is on an earlier entry of play, a correction or a judge's "
                                              "(0..{value}, not a confirmation, dispute or judge's rollback), not {on}",
                                              kind=event.kind, value=position - 1, on=on),
                                position, event.kind)
        if self.by.get(on) == who:
            raise RuleViolation("LOG-05", say("entry {on} is {entered_by}'s own: the other side confirms or disputes it",
                                              on=on, entered_by=who),
                                position, event.kind)
        # one open call on an entry (one in effect, ``History._remark``: nothing reverted it): the first
        if isinstance(event, made("entry_disputed") or ()) and self.open_dispute(on, {}):
            at, by, _reason = self.disputed[on]
            raise RuleViolation("LOG-02", say("entry {on} is disputed already (#{at}, by {by}) and no judge has ruled "
                                              "on it yet: a second dispute would replace the first in the record's "
                                              "book, so it waits for the ruling", on=on, at=at, by=by),
                                position, event.kind)
        self.remarks.add(position)
        if isinstance(event, made("entry_confirmed") or ()):
            self.confirmed[on] = position
        else:
            self.disputed[on] = (position, who, event.reason)

    def ruling(self, position: int, event: JudgeNote) -> None:
        if event.on is not None and event.decision is not None:
            self.ruled[event.on] = Ruling(position, "judge_note", event.decision, event.judge)

    def rulings_reverted(self, to: int, effective: list[tuple[int, Event]]) -> None:
        """A rollback to ``to`` reverted the judge's rulings from there (MATCH-08): an entry they
        ruled on is ruled by the latest ruling still in ``effective`` (the events in effect this
        fold holds), else open again, as the judge's page shows it (a call, a dispute: open)."""
        undone = {on for on, ruling in self.ruled.items() if ruling.at >= to}
        if not undone:
            return
        for on in undone:
            del self.ruled[on]
        for position, event in effective:
            if isinstance(event, made("judge_note") or ()) and event.on in undone:
                self.ruling(position, event)

    def open_dispute(self, entry: int, reverted: Mapping[int, int]) -> bool:
        """Disputed, and no judge has ruled on it since: a note on it, or a rollback that reverted
        it (``reverted``, ``History.reverted``: the entry, the rollback's index). A judge who rules
        and then backs the game up (MATCH-08) reverts the note too (``rulings_reverted``), and the
        dispute stayed open for good: in ``check``, and on the round's page as a table waiting."""
        dispute = self.disputed.get(entry)
        if dispute is None:
            return False
        ruling = self.ruled.get(entry)
        return max(-1 if ruling is None else ruling.at, reverted.get(entry, -1)) < dispute[0]

    def to_data(self) -> dict:
        return {"by": sorted(self.by.items()), "confirmed": sorted(self.confirmed.items()),
                "disputed": [[on, *d] for on, d in sorted(self.disputed.items())],
                "ruled": [[on, r.at, r.how, r.decision, r.judge] for on, r in sorted(self.ruled.items())],
                "remarks": sorted(self.remarks)}

    @classmethod
    def from_data(cls, data: dict) -> "Entries":
        book = cls()
        book.by = {pos: who for pos, who in data["by"]}
        book.confirmed = {on: at for on, at in data["confirmed"]}
        book.disputed = {on: (at, who, reason) for on, at, who, reason in data["disputed"]}
        book.ruled = {on: Ruling(at, how, decision, judge) for on, at, how, decision, judge in data["ruled"]}
        book.remarks = set(data["remarks"])
        return book
