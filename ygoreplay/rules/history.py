"""A duel's history under judge rollbacks: which events are in effect, which were reverted.

A rollback (``rolled_back``) is itself an event: play goes on from the state before event ``to``,
and the events in between stay in the log, marked reverted. A correction of a mis-entry
(``entry_corrected``, a witnessed duel's) goes back the same way, but is no judge's: only over the
current turn's entries, never after the end (LOG-12); what it undid is *struck*, not reverted by
a judge. A witnessed duel's ``flags`` (rules broken and kept, ``rules.base.fail``) and its book of
entries (who entered each, confirmations, disputes, rulings: ``rules.entries``) are kept here too. ``History`` folds a stream of events
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
from typing import Callable, Iterable, TYPE_CHECKING

from ..i18n import N_, say
from ..cards import CardDB
from ..events import Event, from_dict, made
from ..state import DuelState, Violation
from .base import RuleViolation, judges_word
from .card_text import HAS_FACTS
from .entries import Entries, Ruling
from .fold import apply

if TYPE_CHECKING:                  # annotations only: a kind is made on its first use (events._lazy)
    from ..events import EntryConfirmed, EntryCorrected, EntryDisputed, JudgeNote, RolledBack

CHECKPOINT_EVERY = 256
#: The shape of ``History.to_data`` (a store's snapshots), stamped in it as ``v``. Bumped whenever
#: that shape or the meaning of a field changes (a slot added to a card, to ``card_text``): a
#: reader reads only the versions its ``from_data`` knows (``readable``), so an older ygoreplay
#: meeting a newer one's snapshot folds the events (versioned and upcast) instead of misreading it.
#: tests/test_snapshot_version.py pins the shape each version stands for.
SNAPSHOT_VERSION = 1
#: What a snapshot holds, and a witnessed duel's part of it (``History.to_data``).
_DATA_KEYS = frozenset(("v", "state", "position", "reverted", "rollbacks", "witnessed"))
_WITNESSED_KEYS = frozenset(("flags", "corrections", "struck", "entries", "notes", "calls"))
#: What ``History.append`` does with an event, by its class (``_role``): the rules apply it (a
#: judge's note is also kept as a ruling), or the history does (a rollback, a correction, a
#: confirmation or dispute of an entry).
_PLAY, _NOTE, _ROLLBACK, _CORRECTION, _REMARK = range(5)
_ROLE_KINDS = (("judge_note", _NOTE), ("rolled_back", _ROLLBACK), ("entry_corrected", _CORRECTION),
               ("entry_confirmed", _REMARK), ("entry_disputed", _REMARK))
#: Per event class met: its role. A plain dict, filled on each class's first event, so that the
#: history's kinds are not made to be compared with (``events._lazy``) and each event pays one look-up.
_ROLES: dict[type, int] = {}


def _role(cls: type) -> int:
    """The role of events of ``cls``: that of the first history kind it is (or subclasses)."""
    role = next((role for kind, role in _ROLE_KINDS if (of := made(kind)) is not None and issubclass(cls, of)), _PLAY)
    _ROLES[cls] = role
    return role
Hook = Callable[[int, DuelState], None]


def _read_scripts(state: dict) -> bool:
    """Whether the fold that wrote an unnamed snapshot's ``state`` (one ``DuelState.fits``) had read
    its cards' scripts (``card_text``'s ``HAS_FACTS``): what it kept of them then is what that
    version's rules noted, of the same shape but not the same meaning (EFF-04, GEN-03: this one
    also notes a card's own move to the hand or the Deck, a material, a cost, and moves on at a
    chain no trigger opens), so it is folded again, never read as this version's: read, a late
    trigger was let through on an upgraded store and its unaltered record failed ``verify``
    (attack25bg). A duel whose fold read no script keeps none of it: its snapshots are read."""
    text = state["scalars"].get("card_text", ())
    return len(text) > HAS_FACTS and text[HAS_FACTS] not in (None, False)

class History:
    """Folds events one by one into ``state``; rollbacks restore an earlier state.

    With ``audit=True`` violations are collected in ``violations`` instead of raised; one append
    can still ask to be checked strictly (``append(event, strict=True)``), as a store does for a
    new event after folding a stored record that may hold violations.
    """

    def __init__(self, cards: CardDB, *, audit: bool = False,
                 restore: Callable[[int], DuelState] | None = None,
                 state: DuelState | None = None, position: int = 0,
                 before: Hook | None = None, after: Hook | None = None, restorable: bool = False) -> None:
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
        # A witnessed duel's rules broken and kept: collected in every mode, strict included.
        self.flags: list[Violation] = []
        self.state.flags = self.flags
        self.entries = Entries()
        # The judge's notes in effect, in order: a correction strikes none (LOG-12). Kept here and
        # in the snapshot, not read off ``effective``: a fold resumed from a snapshot holds no
        # event before it, and let the recorder's correction strike a note made before it.
        self.notes: list[int] = []
        # The table's judge calls in effect (position, caller): the caller's own word, theirs to
        # withdraw (LOG-12, ``access.CALL``); no other's correction strikes one. In the snapshot too.
        self.calls: list[tuple[int, str]] = []
        self.corrections: list[tuple[int, EntryCorrected]] = []
        self.struck: dict[int, int] = {}         # corrected position -> the correction's (also in ``reverted``)
        self._correction_positions: set[int] = set()
        self._restore = restore
        self._before, self._after = before, after
        self._checkpoint_due = False
        # (next position, the state packed, len(effective)): the state once every event in effect
        # before that position is applied; packed, so that later changes cannot reach it. The first
        # is None when it can be made again (a fresh state, or ``restorable``: ``restore(position)``
        # gives it): most histories never go back, and packing it was a fifth of a seek (issue 25).
        fresh = state is None or (restorable and restore is not None)
        self._fresh_start = state is None        # its first state is DuelState(cards), whatever the store holds
        self._checkpoints: list[tuple[int, bytes | None, int]] = [
            (position, None if fresh else _pack(self.state), 0)]
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
            role = _ROLES.get(type(event))
            if role is None:
                role = _role(type(event))
            if role <= _NOTE:                      # the common case: an event of play, for the rules
                apply(state, event)
                self.effective.append((position, event))
                self._since_checkpoint += 1
                if state.unknown.reads != state.reads_before:
                    self.unknown_events += 1
                if role == _NOTE:
                    self.entries.ruling(position, event)
                    if not _tables_call(event):    # the table's own word, theirs to withdraw
                        self.notes.append(position)
                    else:
                        self.calls.append((position, str(event.entered_by)))
            elif role == _ROLLBACK:
                self._roll_back(position, event)
            elif role == _CORRECTION:
                self._correct(position, event)
            else:
                self._remark(position, event)
            if event.entered_by is not None:
                self.entries.entered(position, event)
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
            raise RuleViolation("MATCH-10", N_("the duel is over: appeals and rollbacks after its end are not "
                                               "accepted"),
                                position, event.kind)
        self._check_target("LOG-02", position, event, "rollback", 1)
        self._go_back(position, event.to)
        self.rollbacks.append((position, event))

    def _correct(self, position: int, event: EntryCorrected) -> None:
        """LOG-12: a mis-entry is corrected by going back over the current turn's entries only
        (before the first turn, over the set-up's), while the duel goes on; no judge needed, and
        it is no judge's rollback: it strikes no judge's note (a ruling on a disputed entry
        struck by the recorder's correction left the entry "corrected", the judge's word gone),
        nor a seal but its sealer's (LOG-11: a seal struck by the recorder left the card unsealed,
        its player free to open it later as any card), nor a table's judge call but its caller's
        (MATCH-08: the recorder's Undo withdrew the call a player's device made, and the judge
        called no longer found it), nor an entry another confirmed or disputed (a device struck
        its own entry the other player had confirmed, or disputed, and entered another in its
        place: ``_remarked_by_another``)."""
        state = self.state
        if not state.witnessed:
            raise RuleViolation("LOG-12", N_("a correction belongs to a witnessed duel: a machine's record refuses "
                                             "a wrong event, it does not correct it"), position, event.kind)
        if state.ended:
            raise RuleViolation("LOG-12", N_("the duel is over: an entry is corrected while the duel goes on, "
                                             "after its end only a judge's note rules on it"), position, event.kind)
        first = max(1, state.turn_began)
        self._check_target("LOG-12", position, event, "correction", first)
        corrector = event.entered_by
        if corrector in ("p0", "p1"):             # a player corrects what they entered; else a dispute
            theirs = [pos for pos in [*self._unheld(event.to), *(pos for pos, _ in self.effective if pos >= event.to)]
                      if self.entries.by.get(pos) not in (corrector, None)]
            if theirs:
                raise RuleViolation("LOG-12", say("{corrector} corrects their own entries; #{theirs} was entered "
                                                  "by {by}: dispute it, and a judge rules",
                                                  corrector=corrector, theirs=theirs[0], by=self.entries.by[theirs[0]]), position, event.kind)
        if self.notes and self.notes[-1] >= event.to:   # the judge's word, no mis-entry
            raise RuleViolation("LOG-12", say("a correction strikes no judge's note: #{note} is the judge's "
                                              "word (a judge's rollback goes back past it)", note=self.notes[-1]),
                                position, event.kind)
        called = next(((pos, by) for pos, by in self.calls if pos >= event.to and by != corrector), None)
        if called is not None:                    # the caller's word: the judge was called to it
            raise RuleViolation("LOG-12", say("a correction strikes no other's judge call: #{call} is {by}'s call "
                                              "of a judge (they withdraw it, or a judge's rollback goes back past "
                                              "it)", call=called[0], by=called[1]), position, event.kind)
        remarked = self._remarked_by_another(event.to, corrector)
        if remarked is not None:                  # the other side's word on it: a judge rules now
            entry, kind, at, by = remarked
            raise RuleViolation("LOG-12", say("a correction strikes no entry the other side confirmed: #{entry} was "
                                              "confirmed by {by} at #{at} (dispute it, and a judge rules; or a judge's "
                                              "rollback goes back past it)", entry=entry, by=by, at=at)
                                if kind == "confirmed" else
                                say("a correction strikes no entry the other side disputed: #{entry} was disputed "
                                    "by {by} at #{at}, a call of the judge, who rules on it as it stands (or a "
                                    "judge's rollback goes back past it)", entry=entry, by=by, at=at),
                                position, event.kind)
        for pos, ev in reversed(self.effective):   # the current turn's, latest first
            if pos < event.to:
                break
            if (sealed := made("cards_sealed")) is not None and isinstance(ev, sealed) and corrector != f"p{ev.player}":   # LOG-11: the sealer's word
                raise RuleViolation("LOG-12", say("a correction strikes no other's seal: #{seal} is player {player}'s "
                                                  "seal of their hidden cards (they correct it, or a judge's "
                                                  "rollback goes back past it)", seal=pos, player=ev.player),
                                    position, event.kind)
        before = None
        if event.to < self.base:   # a fold resumed from a snapshot holds no event before it: the seals
            before = self.state_before(event.to)   # standing now that did not before ``to`` were made since
            for card_id, card in self.state.cards.items():
                had = before.cards.get(card_id)
                if card.seal is not None and (had is None or had.seal != card.seal) and corrector != f"p{card.seal[0]}":
                    raise RuleViolation("LOG-12", say("a correction strikes no other's seal: {card} was sealed by "
                                                      "player {player} since #{to} (they correct it, or a judge's "
                                                      "rollback goes back past it)",
                                                      card=card_id, player=card.seal[0], to=event.to),
                                        position, event.kind)
        self._go_back(position, event.to, before)
        self.corrections.append((position, event))
        self._correction_positions.add(position)
        self.struck.update((pos, by) for pos, by in self.reverted.items() if by == position)

    def _remark(self, position: int, event: EntryConfirmed | EntryDisputed) -> None:
        """LOG-02: the other side confirms or disputes an entry in effect. One a correction struck
        or a rollback reverted is no longer what the record says happened: confirmed, the book said
        a struck entry was agreed to; disputed, it held an open judge call on an entry gone from
        play (and every entry's "unconfirmed" already leaves it out, ``needs_confirming``)."""
        if event.on in self.reverted:
            raise RuleViolation("LOG-02", say("entry {on} was {undone} at {at}: only an entry still in effect is "
                                              "confirmed or disputed", on=event.on, undone=self._undone(event.on),
                                              at=self.reverted[event.on]), position, event.kind)
        # a correction is one side's entry (LOG-12), the other's to confirm or dispute; a
        # judge's rollback is the judge's word (MATCH-08), no side's
        self.entries.remark(self.state, position, event, self._rollback_positions - self._correction_positions)

    def _undone(self, position: int) -> str:
        """How a reverted ``position`` was undone, as a refusal says it."""
        return "struck by the correction" if position in self.struck else "reverted by the rollback"

    def _remarked_by_another(self, to: int, corrector: str | None) -> tuple[int, str, int, str] | None:
        """The first entry from ``to`` on, still in effect, that another than ``corrector`` confirmed
        or disputed (entry, "confirmed" or "disputed", the remark's index, its author), or None.
        LOG-12: a correction is the corrector's own slip; an entry the other side agreed to, or
        called a judge on, is no longer one side's to strike (struck, the confirmed entry stood
        changed by one device alone, and the disputed one was gone before the judge came). A
        correction the other side confirmed or disputed is not among them: no correction strikes
        one (it stays in effect), so a later correction leaves that word where it was. Read off
        the book of entries, which a snapshot keeps whole."""
        entries = self.entries
        remarks = [(on, "confirmed", at, entries.by.get(at)) for on, at in entries.confirmed.items()]
        remarks += [(on, "disputed", at, who) for on, (at, who, _reason) in entries.disputed.items()]
        return min(((on, kind, at, str(by)) for on, kind, at, by in remarks
                    if on >= to and on not in self.reverted and on not in self._correction_positions
                    and by != corrector), default=None)

    def _check_target(self, rule: str, position: int, event: RolledBack | EntryCorrected, what: str,
                      first: int) -> None:
        """Where a rollback or a correction goes back to: an earlier event of play in effect."""
        to = event.to
        if not first <= to < position:
            scope = " entry of the current turn" if rule == "LOG-12" else " event"
            raise RuleViolation(rule, say("a {what} goes back to an earlier{scope} ({first}..{value}), not {to}",
                                          what=what, scope=scope, first=first, value=position - 1, to=to),
                                position, event.kind)
        if to in self.reverted:
            raise RuleViolation(rule, say("event {to} was already {undone} at {reverted}",
                                          to=to, undone=self._undone(to), reverted=self.reverted[to]),
                                position, event.kind)
        if to in self._rollback_positions or to in self.entries.remarks:   # "before a rollback" is ambiguous
            itself = "a correction" if to in self._correction_positions else (
                "a confirmation or dispute" if to in self.entries.remarks else "a rollback")
            raise RuleViolation(rule, say("event {to} is itself {itself}: go back to an event of play",
                                          to=to, itself=itself),
                                position, event.kind)

    def went_back(self, position: int) -> int | None:
        """Where the rollback or correction at ``position`` went back to (None: it is neither)."""
        for pos, event in (self.rollbacks[-1:] + self.corrections[-1:]):
            if pos == position:
                return event.to
        return None

    def _go_back(self, position: int, to: int, state: DuelState | None = None) -> None:
        """Play goes on from the state before event ``to`` (``state``, when the caller made it
        already); the events from there are reverted."""
        state = state if state is not None else self.state_before(to)
        while self.effective and self.effective[-1][0] >= to:   # rollbacks are never reverted
            self.reverted[self.effective.pop()[0]] = position
        self.entries.rulings_reverted(to, self.effective)
        del self.notes[bisect.bisect_left(self.notes, to):]
        self.calls = [(pos, by) for pos, by in self.calls if pos < to]
        if to < self.base:                              # events before ``base`` were never in memory
            for pos in self._unheld(to):
                self.reverted[pos] = position
            self.base = to
        self._rollback_positions.add(position)
        if self.audit:
            state.violations = self.violations
        state.undecided = self.undecided
        state.flags = self.flags
        self.state = state
        cut = bisect.bisect_right(self._checkpoints, to, key=lambda c: c[0])
        del self._checkpoints[cut:]
        self._checkpoint_due = True              # once this event's ``after`` hook has run

    def _unheld(self, to: int) -> list[int]:
        """The positions from ``to`` in effect that this fold does not hold (before ``base``: it was
        resumed from a snapshot): neither reverted, nor a rollback, correction, confirmation or dispute."""
        return [pos for pos in range(to, self.base) if pos not in self.reverted
                and pos not in self._rollback_positions and pos not in self.entries.remarks]

    def state_before(self, to: int) -> DuelState:
        """A copy of the state before event ``to``: the nearest checkpoint, then the events in
        effect; the checkpoints this replay passes are kept, from the first call on, so a rollback
        and a reader who knows less than the record (``views.flag_seen``, which judges each flag
        again) pay for a stretch of the duel once (made from the start each time, a witnessed duel
        of thousands of flagged events took time growing as their square: 4,000, half a minute, on
        every append and every reindex). RuleViolation when it is before ``base`` and cannot be
        restored."""
        if to < self.base:
            if self._restore is None:
                raise RuleViolation("LOG-02", say("event {to} is before this history's first event ({base})",
                                                  to=to, base=self.base),
                                    to, "rolled_back")
            state = self._restore(to)
            state.db = self.cards                        # judge with today's facts: an append may add some
            return state
        at = bisect.bisect_right(self._checkpoints, to, key=lambda c: c[0]) - 1
        position, packed, count = self._checkpoints[at]
        if packed is not None:
            import msgpack                               # here: a short duel keeps no checkpoint
            state = DuelState.from_data(msgpack.unpackb(packed), self.cards)
        elif at == 0 and self._fresh_start or self._restore is None:
            state = DuelState(self.cards)                # the card facts as they are now: an append may add some
        else:
            state = self._restore(position)
            state.db = self.cards                        # restored from the store: judge with today's facts
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

    def marks(self, position: int) -> dict:
        """What the record says of the entry at ``position`` of a witnessed duel: who entered it,
        its flags, whether the other side confirmed or disputed it, what followed it."""
        entries = self.entries
        dispute = entries.disputed.get(position)
        confirmed = entries.confirmed.get(position)
        return {"by": entries.by.get(position),
                "unconfirmed": confirmed is None and self.needs_confirming(position),
                "flags": [{"rule": f.rule, "message": f.message} for f in self.flags if f.index == position],
                "struck": self.struck.get(position), "confirmed": confirmed,
                "disputed": None if dispute is None else {"at": dispute[0], "by": dispute[1], "reason": dispute[2],
                                                          "open": entries.open_dispute(position, self.reverted)},
                "ruled": self.ruling_on(position)}

    def waiting_for_judge(self) -> dict[str, int]:
        """What of the table waits for a judge now (MATCH-08), as a round's organiser follows it:
        the table's judge calls in effect made after the judge's last word (a note or a rollback),
        and the disputed entries no judge has ruled on. Only the counts that are not 0. (Asked at
        every append, for the status its anchor signs: a table that never called a judge nor
        disputed an entry, most of them, is answered without building the counts, issue 25.)"""
        if not self.calls and not self.entries.disputed:
            return {}
        answered = max([-1, *self.notes[-1:], *(pos for pos, _ in self.rollbacks[-1:])])
        counts = {"calls": sum(pos > answered for pos, _ in self.calls),
                  "disputes": sum(self.entries.open_dispute(on, self.reverted) for on in self.entries.disputed)}
        return {name: count for name, count in counts.items() if count}

    def ruling_on(self, position: int) -> dict | None:
        """What followed the entry: the latest of a judge's ruling on it, the rollback that
        reverted it, the correction that struck it; None while nothing did (open)."""
        found = [r for r in (self.entries.ruled.get(position),) if r is not None]
        undone = self.reverted.get(position)
        if undone is not None:
            if position in self.struck:
                found.append(Ruling(undone, "entry_corrected", "corrected"))
            else:
                judge = next((e.judge for pos, e in self.rollbacks if pos == undone), None)
                found.append(Ruling(undone, "rolled_back", "reverted", judge))
        return max(found, key=lambda r: r.at).to_dict() if found else None

    def needs_confirming(self, position: int) -> bool:
        """An entry of play or a correction, in effect, not the judge's: the other side's to confirm
        (or dispute: ``Entries.remark`` takes either on both, LOG-02, LOG-12)."""
        judges = position in self._rollback_positions and position not in self._correction_positions
        return (position < self.position and position not in self.reverted and position not in self.entries.remarks
                and not judges and self.entries.by.get(position) != "judge")

    def to_data(self) -> dict:
        """What a snapshot keeps: its shape's version (``SNAPSHOT_VERSION``), the state, the
        rollbacks and what they reverted; a witnessed duel's flags, corrections and book of
        entries besides."""
        data = {"v": SNAPSHOT_VERSION, "state": self.state.to_data(), "position": self.position,
                "reverted": sorted(self.reverted.items()),
                "rollbacks": [[pos, e.to_dict()] for pos, e in self.rollbacks]}
        if self.state.witnessed:
            data["witnessed"] = {"flags": [[f.index, f.rule, f.message] for f in self.flags],
                                 "corrections": [[pos, e.to_dict()] for pos, e in self.corrections],
                                 "struck": sorted(self.struck.items()), "entries": self.entries.to_data(),
                                 "notes": list(self.notes), "calls": [list(c) for c in self.calls]}
        return data

    @staticmethod
    def readable(data: object) -> bool:
        """Whether ``from_data`` reads a snapshot's ``data``: of ``SNAPSHOT_VERSION``, or naming no
        version (written before snapshots carried one) and no wider than this version's
        (``DuelState.fits``). Not another version's (a newer ygoreplay's, or one too old to be
        upcast), nor one of another shape: the store then folds the events instead."""
        if type(data) is not dict:
            return False
        version = data.get("v")
        if version is not None:
            return type(version) is int and version == SNAPSHOT_VERSION
        witnessed = data.get("witnessed")
        return (data.keys() <= _DATA_KEYS and DuelState.fits(data.get("state")) and not _read_scripts(data["state"])
                and (witnessed is None or type(witnessed) is dict and witnessed.keys() <= _WITNESSED_KEYS))

    @classmethod
    def from_data(cls, data: dict, cards: CardDB, *, audit: bool = False,
                  restore: Callable[[int], DuelState] | None = None) -> "History":
        """Resume from a snapshot (one that is ``readable``); rollbacks past it are restored with ``restore``. A witnessed
        duel's snapshot written before it kept the judge's notes (or the table's judge calls) in
        effect raises KeyError while the duel goes on: a correction may follow, and the resumed fold
        could not know the notes (calls) it must not strike, so a store resumes from an earlier snapshot or the duel's start
        (``Store._resume``), and writes the new form next. After the end none follows (LOG-12)."""
        history = cls(cards, audit=audit, restore=restore, restorable=True,
                      state=DuelState.from_data(data["state"], cards), position=data["position"])
        history.reverted = {pos: by for pos, by in data["reverted"]}
        history.rollbacks = [(pos, from_dict(e)) for pos, e in data["rollbacks"]]
        witnessed = data.get("witnessed")
        if witnessed is not None:
            history.flags[:] = [Violation(*row) for row in witnessed["flags"]]
            history.corrections = [(pos, from_dict(e)) for pos, e in witnessed["corrections"]]
            history.struck = {pos: by for pos, by in witnessed["struck"]}
            history._correction_positions = {pos for pos, _ in history.corrections}
            history.entries = Entries.from_data(witnessed["entries"])
            notes = witnessed.get("notes")
            if notes is None and not history.state.ended:
                raise KeyError("a witnessed duel's snapshot without the judge's notes in effect")
            history.notes = list(notes or ())
            calls = witnessed.get("calls")
            if calls is None and not history.state.ended:
                raise KeyError("a witnessed duel's snapshot without the table's judge calls in effect")
            history.calls = [(pos, by) for pos, by in calls or ()]
        history._rollback_positions = {pos for pos, _ in history.rollbacks + history.corrections}
        return history


def _pack(state: DuelState) -> bytes:
    import msgpack
    return msgpack.packb(state.to_data())


def _tables_call(event: JudgeNote) -> bool:
    """A judge call the table entered (``access.CALL``: the recorder's or a player's device's, on
    no entry): no judge's word, so a correction may strike it (LOG-12) — a call tapped by mistake
    is withdrawn by the page's Undo, kept in the record struck through."""
    return event.category == "call" and event.on is None and event.entered_by in ("recorder", "p0", "p1")
