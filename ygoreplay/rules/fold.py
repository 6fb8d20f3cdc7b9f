"""The fold: ``apply(state, event)`` checks one event against the rules and applies it.

It does no I/O, reads no clock and draws no random number. Each event kind has one handler, in
the module of its rule area, registered there by its kind, ``@handles("card_moved")``; what the fold
must know of a kind besides (may it follow a loss, does it keep a run of passes ...) its class says
(``events.Event``). Both become the tables below on the kind's first event. A handler checks before it
changes anything, so a refused event leaves the state untouched. For speed the state is changed
in place and returned.
"""
from __future__ import annotations

from typing import Callable

from ..i18n import N_, say
from ..events import Event, kind_class, kind_names, made
from ..state import DuelState
from . import battle, chain, outcome, position, setup, spell_trap, summon, turn, win  # noqa: F401  (register their handlers)
from . import card_text, timing
from .base import RuleViolation, bury, call, fail, handles, impossible, judges_word
from .candidates import decide, named_unknowns
from .identity import identify

@handles("judge_note")
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


@handles("rolled_back", "entry_corrected", "entry_confirmed", "entry_disputed")
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


def _has(kind: str, trait: str) -> bool:
    """Whether duel kind ``kind``'s class declares ``trait`` (``events.Event``'s class attributes)."""
    cls = kind_class(kind)
    return cls is not None and cls.stream == "duel" and bool(getattr(cls, trait))


def __getattr__(name: str) -> frozenset[str]:
    """``AFTER_LOSS``: what may still be recorded once a player has lost (``Event.after_loss``; the
    importer reads it), made on first use: it makes every kind (``events._lazy``)."""
    if name != "AFTER_LOSS":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from ..events import EVENT_TYPES
    after_loss = globals()["AFTER_LOSS"] = frozenset(kind for kind in EVENT_TYPES if _has(kind, "after_loss"))
    return after_loss


#: Every duel kind's handler, as the rule modules registered them by kind (``rules.base.handles``):
#: a plain dict, built once, so the dispatch below costs what a literal table did.
HANDLERS: dict[str, Callable[[DuelState, Event], None]] = {kind: handles[kind] for kind in kind_names() if kind in handles}
_HAS_FACTS, _SEEN = card_text.HAS_FACTS, card_text.SEEN

# What the fold does around each kind's handler, as bits of one number per kind (``_PLAN``): every
# event pays one dict look-up for its handler and these, instead of one set look-up for each.
(_ENDED_OK, _OPENS, _LOST_OK, _MOVES_ON, _TIMED, _SENDS, _OWING, _RESETS_WINDOW, _RESETS_PASSES,
 _ENDS_PENDULUM, _END_EFFECT) = (1 << bit for bit in range(11))


def _traits(kind: str) -> int:
    """The bits of ``_PLAN`` that hold for ``kind``."""
    return (_has(kind, "after_end") * _ENDED_OK | _has(kind, "opens_duel") * _OPENS
            | _has(kind, "after_loss") * _LOST_OK
            | (kind in card_text.MOVES_ON) * _MOVES_ON | (kind in timing.TIMED) * _TIMED
            | (kind in timing.TIMED and kind in timing.SENDS) * _SENDS
            | (kind in timing.TIMED and kind in card_text.OWING) * _OWING
            # what keeps the passes (uses no priority: a stats change, a coin, a judge's note) keeps
            # the summon's window too (SUM-03, SPS-11): else its two passes, kept, read as the end
            | (not _has(kind, "keeps_summon_window") and not _has(kind, "keeps_passes")) * _RESETS_WINDOW
            | (not _has(kind, "keeps_passes")) * _RESETS_PASSES
            | (not _has(kind, "continues_pendulum_summon")) * _ENDS_PENDULUM
            | (kind in turn.END_PHASE_EFFECTS) * _END_EFFECT)


_UNHANDLED = (None, _RESETS_WINDOW | _RESETS_PASSES | _ENDS_PENDULUM)
#: Per duel kind met: its handler and its ``_traits``. A kind without a handler (a match event) has
#: None and the traits of no kind in particular (``_UNHANDLED``).
_PLAN: dict[str, tuple[Callable[[DuelState, Event], None] | None, int]] = {}
#: An event's plan: its handler, its ``_traits``, its kind, and the traits every event tests as
#: booleans (moves on, timed, timed and sends, owing, resets the summon's window, ends a Pendulum
#: Summon): ``traits & bit`` is a generic binary operation in Python 3.11 (an int made or looked up
#: and a call each), a local's truth one instruction; five such tests an event were 1-2% of the fold.
_Plan = tuple[Callable[[DuelState, Event], None] | None, int, str, bool, bool, bool, bool, bool, bool]
#: The same per event class met: ``type(event)`` is a cheaper key than ``event.kind``,
#: a class attribute read through the instance, which Python 3.11 does not specialise (one such
#: read an event). Both are plain dicts filled on a kind's first event (``_plan``), so that no kind
#: is made before it is met (``events._lazy``) and every event after pays one look-up.
_PLAN_OF: dict[type, _Plan] = {}


def _unpacked(handler: Callable[[DuelState, Event], None] | None, traits: int, kind: str) -> _Plan:
    """The plan of ``_PLAN_OF``: the handler, traits and kind, and the traits tested on every event."""
    return (handler, traits, kind, bool(traits & _MOVES_ON), bool(traits & _TIMED), bool(traits & _SENDS),
            bool(traits & _OWING), bool(traits & _RESETS_WINDOW), bool(traits & _ENDS_PENDULUM))


def _plan(event: Event) -> _Plan:
    """An event's plan the first time its class is met (``_PLAN_OF``); an event of any other class
    than its kind's (a subclass) or of no duel kind (a match's) is planned by its kind each time."""
    kind = event.kind
    plan = _PLAN.get(kind)
    if plan is None:
        handler = HANDLERS.get(kind)
        plan = _PLAN[kind] = _UNHANDLED if handler is None else (handler, _traits(kind))
    unpacked = _unpacked(*plan, kind)
    if plan[0] is not None and made(kind) is type(event):
        _PLAN_OF[type(event)] = unpacked
    return unpacked


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
        handler, traits, kind, moves_on, timed, sends, owing, resets_window, ends_pendulum = _PLAN_OF[type(event)]
    except KeyError:                              # a class met first, or of another class (a subclass): by its kind
        handler, traits, kind, moves_on, timed, sends, owing, resets_window, ends_pendulum = _plan(event)
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
        if moves_on and state.card_text[0]:
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
    if moves_on and (state.card_text[0] or state.card_text[_SEEN]):
        card_text.moved_on(state)                # nothing is owed past it, no trigger waits (EFF-04)
    if timed and (sends or state.resolving or state.timing[3]):
        timing.after(state, event)               # NIS-06: what happened last, who missed the timing
    if owing and state.card_text[_HAS_FACTS] is not False:
        card_text.owe(state, event)              # GEN-03, EFF-05: the mandatory triggers it leaves owed
    if unknowns and before is not None and len(undecided) > unsure:
        _decide(state, before, event, unsure)
    if resets_window:
        state.summon_window = None
    if state.passes:
        if traits & _RESETS_PASSES:
            state.passes = 0                      # PRIO-03: passes count only in succession
        elif traits & _END_EFFECT and state.phase == "end":
            turn.end_phase_effect(state, event)   # TURN-08, PRIO-01: what an End Phase effect changed
    if ends_pendulum:
        state.pendulum_summon_open = False
    state.last_kind = kind
    state.index += 1
    return state
