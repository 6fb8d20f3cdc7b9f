"""The fold: ``apply(state, event)`` checks one event against the rules and applies it.

It does no I/O, reads no clock and draws no random number. Each event kind has one handler, in
the module of its rule area, registered there with ``@handles(EventClass)``; what the fold must
know of a kind besides (may it follow a loss, does it keep a run of passes ...) its class says
(``events.Event``). Both become the tables below once, at import. A handler checks before it
changes anything, so a refused event leaves the state untouched. For speed the state is changed
in place and returned.
"""
from __future__ import annotations

from typing import Callable

from ..i18n import N_, say
from ..events import EVENT_TYPES, EntryConfirmed, EntryCorrected, EntryDisputed, Event, JudgeNote, RolledBack
from ..state import DuelState
from . import battle, chain, outcome, position, setup, spell_trap, summon, turn, win  # noqa: F401  (register their handlers)
from . import card_text, timing
from .base import RuleViolation, bury, call, fail, handles, impossible, judges_word
from .candidates import decide, named_unknowns
from .identity import identify

@handles(JudgeNote)
def judge_note(state: DuelState, event: Event) -> None:
    """Kept in the record; changes nothing on the board. A judge's word names the judge and
    says something (MATCH-08), whichever door it came through; a call on no entry says why only
    (the table calls whichever judge comes: ``access.CALL``)."""
    judges_word(state, event, event.note, "note", signed=event.category != "call" or event.on is not None)
    if (event.on is None) != (event.decision is None):
        fail(state, event, "LOG-05", N_("a ruling on an entry names the entry (on) and what was decided "
                                        "(decision): both or neither"), play=False)
    elif event.on is not None and not 0 <= event.on < state.index:
        fail(state, event, "LOG-02", say("a ruling is on an earlier entry (0..{value}), not {on}",
                                         value=state.index - 1, on=event.on),
             play=False)


@handles(RolledBack, EntryCorrected, EntryConfirmed, EntryDisputed)
def to_history(state: DuelState, event: Event) -> None:
    """Going back (a rollback, a correction) and what the other side says of an entry are the
    history's: they change which events are in effect, or nothing on the board."""
    impossible(state, event, "LOG-08", say("a {kind} is applied to a duel's history (rules.History), not to one "
                                           "state", kind=event.kind))


def _decide(state: DuelState, before: DuelState, event: Event, unsure: int) -> None:
    """Call the undecided rules the event breaks whoever its unknown cards are
    (``candidates.decide``), as any broken rule is: refused (the state as it was before), kept
    flagged in a witnessed duel, or collected when auditing."""
    undecided = state.undecided
    decided = decide(before, event, undecided[unsure:], apply)
    if not decided:
        return
    if state.violations is None and not state.witnessed:   # refused: the event leaves the state as it was
        kept = {name: getattr(state, name) for name in ("undecided", "flags", "violations")}
        state.become(before)
        for name, value in kept.items():
            setattr(state, name, value)
        del undecided[unsure:]
    else:
        rules = {entry.rule for entry in decided}
        undecided[unsure:] = [entry for entry in undecided[unsure:] if entry.rule not in rules]
    for entry in decided:
        call(state, event, entry.rule, entry.message)


def _kinds(trait: str) -> frozenset[str]:
    """The duel kinds whose class declares ``trait`` (``events.Event``'s class attributes)."""
    return frozenset(kind for kind, cls in EVENT_TYPES.items() if cls.stream == "duel" and getattr(cls, trait))


#: Every duel kind's handler, as the rule modules registered them (``rules.base.handles``): a
#: plain dict, built once, so the dispatch below costs what a literal table did.
HANDLERS: dict[str, Callable[[DuelState, Event], None]] = {
    kind: handles[kind] for kind in EVENT_TYPES if kind in handles}
_OPENERS = _kinds("opens_duel")
#: What may still be recorded once a player has lost (``Event.after_loss``; the importer reads it too).
AFTER_LOSS = _kinds("after_loss")
_AFTER_END = _kinds("after_end")
_KEEP_SUMMON_WINDOW = _kinds("keeps_summon_window")
_KEEP_PASSES = _kinds("keeps_passes")
_PENDULUM_SUMMON = _kinds("continues_pendulum_summon")
_HAS_FACTS, _SEEN = card_text.HAS_FACTS, card_text.SEEN

# What the fold does around each kind's handler, as bits of one number per kind (``_PLAN``): every
# event pays one dict look-up for its handler and these, instead of one set look-up for each.
(_ENDED_OK, _OPENS, _LOST_OK, _MOVES_ON, _TIMED, _SENDS, _OWING, _RESETS_WINDOW, _RESETS_PASSES,
 _ENDS_PENDULUM, _END_EFFECT) = (1 << bit for bit in range(11))


def _traits(kind: str) -> int:
    """The bits of ``_PLAN`` that hold for ``kind``."""
    return ((kind in _AFTER_END) * _ENDED_OK | (kind in _OPENERS) * _OPENS | (kind in AFTER_LOSS) * _LOST_OK
            | (kind in card_text.MOVES_ON) * _MOVES_ON | (kind in timing.TIMED) * _TIMED
            | (kind in timing.TIMED and kind in timing.SENDS) * _SENDS
            | (kind in timing.TIMED and kind in card_text.OWING) * _OWING
            # what keeps the passes (uses no priority: a stats change, a coin, a judge's note) keeps
            # the summon's window too (SUM-03, SPS-11): else its two passes, kept, read as the end
            | (kind not in _KEEP_SUMMON_WINDOW and kind not in _KEEP_PASSES) * _RESETS_WINDOW
            | (kind not in _KEEP_PASSES) * _RESETS_PASSES
            | (kind not in _PENDULUM_SUMMON) * _ENDS_PENDULUM
            | (kind in turn.END_PHASE_EFFECTS) * _END_EFFECT)


#: Per duel kind: its handler and its ``_traits``. A kind without a handler (a match event) has
#: None and the traits of no kind in particular.
_PLAN: dict[str, tuple[Callable[[DuelState, Event], None], int]] = {
    kind: (handler, _traits(kind)) for kind, handler in HANDLERS.items()}
_UNHANDLED = (None, _RESETS_WINDOW | _RESETS_PASSES | _ENDS_PENDULUM)
#: The same per event class, with its kind: ``type(event)`` is a cheaper key than ``event.kind``,
#: a class attribute read through the instance, which Python 3.11 does not specialise (one such
#: read an event). An event of any other class (a subclass) is planned by its kind.
_PLAN_OF: dict[type, tuple[Callable[[DuelState, Event], None], int, str]] = {
    cls: (*_PLAN[kind], kind) for kind, cls in EVENT_TYPES.items() if kind in _PLAN and cls.kind == kind}


def _out_of_place(state: DuelState, event: Event, handler: Callable | None, traits: int) -> None:
    """LOG-03, WIN-01..04: refuse an event that no duel in this state may take (one after the
    end, one before the start, a match's event); return for one that may."""
    if state.ended and not traits & _ENDED_OK:
        rule = win.LOSS_RULES.get(state.end_reason or "", "WIN-04" if state.end_reason == "draw" else "LOG-03")
        impossible(state, event, rule, say("the duel is over ({end_reason}); nothing may follow its end",
                                           end_reason=state.end_reason))
    if not state.started and not traits & _OPENS:
        impossible(state, event, "LOG-03", N_("a duel begins with duel_started or position_set_up"))
    if handler is None:                           # a match event (match/events.py) in a duel
        impossible(state, event, "LOG-03", say("a {kind} event belongs to a match's stream, not to a duel",
                                               kind=event.kind))


def apply(state: DuelState, event: Event) -> DuelState:
    """Check ``event`` against the rules and apply it to ``state`` (in place); return the state.

    Raises ``RuleViolation`` (rule ID, event index, message) for an uncited broken rule, before
    the state is changed. When ``state.violations`` is a list (auditing) they are collected instead.
    """
    try:
        handler, traits, kind = _PLAN_OF[type(event)]
    except KeyError:                              # an event of another class (a subclass): by its kind
        kind = event.kind
        handler, traits = _PLAN.get(kind, _UNHANDLED)
    if state.ended or not state.started or handler is None:   # one test for the rare cases
        _out_of_place(state, event, handler, traits)
    overrides = state.overrides
    overridden = len(overrides)
    flags = state.flags
    flagged = len(flags) if flags is not None else 0
    unknowns = state.unknowns                     # a record that does not know every card
    if unknowns:
        state.reads_before = state.unknown.reads
        undecided = state.undecided
        unsure = len(undecided) if undecided is not None else 0
        # One that names such a card may be decided by every card it could be (``candidates``).
        before = state.copy() if undecided is not None and named_unknowns(state, event) else None
    try:
        if state.must_lose and not traits & _LOST_OK:
            win.after_loss(state, event)
        if state.shed and kind != "card_moved":      # left by a card_moved ``with_next``
            fail(state, event, "LOG-03", say("the card_moved before said the next card moved with it; a {kind} "
                                             "moves none", kind=kind))
            bury(state)                           # audited: the group ended there
        if state.last_kind == "summon_negated" and state.summon_group and kind != "summon_negated":
            summon.negation_unfinished(state, event)   # PEND-04: a summon of several is negated whole
        if event.shows:
            identify(state, event)                # the cards it shows are named before it is judged
        if state.card_text[0] and traits & _MOVES_ON:
            card_text.left_behind(state, event)   # GEN-03, EFF-05: a mandatory trigger not activated
        handler(state, event)
        if state.shed and not (kind == "card_moved" and event.with_next):
            bury(state)                           # NIS-05: materials follow the monsters (the group) that left
    except RuleViolation:
        del overrides[overridden:]                # a refused event sets no rule aside
        if unknowns and undecided is not None:
            del undecided[unsure:]                # nor leaves one undecided
        if flags is not None:
            del flags[flagged:]                   # nor flagged: it was not kept
        raise
    if traits & _MOVES_ON and (state.card_text[0] or state.card_text[_SEEN]):
        card_text.moved_on(state)                # nothing is owed past it, no trigger waits (EFF-04)
    if traits & _TIMED and (traits & _SENDS or state.resolving or state.timing[3]):
        timing.after(state, event)               # NIS-06: what happened last, who missed the timing
    if traits & _OWING and state.card_text[_HAS_FACTS] is not False:
        card_text.owe(state, event)              # GEN-03, EFF-05: the mandatory triggers it leaves owed
    if unknowns and before is not None and len(undecided) > unsure:
        _decide(state, before, event, unsure)
    if traits & _RESETS_WINDOW:
        state.summon_window = None
    if state.passes:
        if traits & _RESETS_PASSES:
            state.passes = 0                      # PRIO-03: passes count only in succession
        elif traits & _END_EFFECT and state.phase == "end":
            turn.end_phase_effect(state, event)   # TURN-08, PRIO-01: what an End Phase effect changed
    if traits & _ENDS_PENDULUM:
        state.pendulum_summon_open = False
    state.last_kind = kind
    state.index += 1
    return state
