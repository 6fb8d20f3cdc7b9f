"""Missing the timing (NIS-06): an optional "when ... you can" trigger needs its event to be the
last thing that happened; so the Tributes of a Tribute Summon (SUM-07) and the materials a summon
procedure sends to the GY (SPS-09) miss theirs.

The log shows what happened while a chain resolved, link by link (the events after each
``chain_link_resolved``). A card that moved (or was summoned) while one link resolved, with
something happening after it while a later link resolved, was not the last thing to happen: once
the chain has ended, its "when ... you can" trigger on that event (``TRIGGER_O`` without
``EFFECT_FLAG_DELAY`` in its script, or ``timing: "when"`` on the event) cannot be activated.
"If" triggers and mandatory ones do not miss. An inherent Special Summon's costs (a discard, a
Tribute, a banishment, moved right before it) miss theirs as its materials do, and a material a
summon procedure banishes misses its "when banished" (``procedure_sent``).
What happened within one link is not judged (its
actions may be simultaneous: "destroy them, and if you do ..." is not "then"); neither is a card
whose trigger's kind is unknown (no script, no ``timing``). A card paid as a cost (CHAIN-11) went
as its link was activated, before any link resolved: a link that did something as it resolved was
the last thing to happen, so it missed its timing too (``cost_paid``).

The state keeps, for the chain resolving, the segment (links resolved so far), the last segment
in which something happened, and what each card did in which segment; when the chain ends, the
cards that missed their timing (and the rule), until the next chain ends, the turn moves on or
the card moves again.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..i18n import N_, say
from ..events import Event
from ..state import Card, DuelState
from .effects import candidates

if TYPE_CHECKING:                  # annotations only: a kind is made on its first use (events._lazy)
    from ..events import Activated

#: What "happens" while a chain link resolves; bookkeeping (a link resolving, a pass, a note) and
#: a card that leaves the field after resolving by the rules (SPELL-04) do not.
HAPPENINGS = frozenset(("cards_drawn", "normal_summoned", "monster_set", "flip_summoned", "special_summoned",
                        "position_changed", "spell_trap_set", "card_moved", "control_changed", "cards_swapped",
                        "counters_changed", "token_created", "life_points_changed"))
_RULE_MOVES = frozenset(("resolved", "negated", "rule"))
#: How a card noted by ``cost_paid`` went: as a cost, not while a link resolved.
_COST = "cost"
#: A mark's word for a card a Tribute Summon sent to the GY without Tributing it (SUM-07, NIS-05).
_SENT = "sent"
_SUMMONS = frozenset(("normal_summoned", "flip_summoned", "special_summoned"))
#: The trigger events of a card's own (``single``) "when" trigger, and what the card did for each.
WHEN_EVENTS = {"EVENT_TO_GRAVE": {"gy"}, "EVENT_DESTROYED": {"gy", "banished", "extra"},
               "EVENT_REMOVE": {"banished"}, "EVENT_TO_HAND": {"hand"}, "EVENT_TO_DECK": {"deck", "extra"},
               "EVENT_SPSUMMON_SUCCESS": {"special_summoned"}, "EVENT_SUMMON_SUCCESS": {"normal_summoned"},
               "EVENT_FLIP_SUMMON_SUCCESS": {"flip_summoned"}}


#: Kinds after which ``after`` looks: what happens, and the turn moving on (no trigger waits past it).
TIMED = HAPPENINGS | frozenset(("turn_started", "phase_entered", "step_entered"))
#: Special Summons by a procedure whose materials are sent to the GY for it (SPS-09).
_BY_PROCEDURE = frozenset(("inherent", "synchro", "link"))
#: The kinds ``after`` has work for outside a chain while no card waits with a missed timing: a
#: summon whose Tributes or materials miss theirs (SUM-07, SPS-09). After any other kind it has
#: none then, and ``rules.fold`` does not call it (most events of a duel are outside chains).
SENDS = frozenset(("normal_summoned", "monster_set", "special_summoned"))


def after(state: DuelState, event: Event) -> None:
    """After ``event`` (a ``TIMED`` kind) was applied: while a chain resolves, note what happened;
    outside one, a card that moves again no longer waits with a missed timing, and the Tributes of
    a Tribute Summon (SUM-07) or the materials a summon procedure sent to the GY (SPS-09) missed
    theirs: the summon, not their going, was the last thing to happen."""
    kind = event.kind
    if state.resolving:                          # something happened while a chain resolves: note it,
        if kind in HAPPENINGS and not (kind == "card_moved" and event.reason in _RULE_MOVES):
            timing = state.timing                # and what its card did
            segment = timing[1] = timing[0]
            card = state.cards.get(getattr(event, "card", None) or "")
            if card is not None:
                timing[2][card.id] = [segment, kind if kind in _SUMMONS else card.zone]
        return
    missed_now = state.timing[3]
    if kind not in HAPPENINGS:
        if missed_now:
            state.timing[3] = {}
        return
    if missed_now:
        missed_now.pop(getattr(event, "card", None) or "", None)
    sent: tuple[str, ...] = ()
    if kind == "normal_summoned" or kind == "monster_set":
        sent, rule = event.tributes, "SUM-07"
    elif kind == "special_summoned" and event.method in _BY_PROCEDURE:
        sent, rule = event.materials, "SPS-09"
    for card_id in sent:
        card = state.cards.get(card_id)
        if card is not None and card.zone == "gy":
            state.timing[3][card_id] = ["gy", rule]


#: The marks a summon's own procedure leaves (its Tributes, materials and costs missed their timing),
#: and the segment that keeps one past a chain answering that summon (``summon_answered``).
_PROCEDURES = frozenset(("SUM-07", "SPS-09"))
_KEPT = -2
#: Where a summon procedure's cost or material goes, and the one trigger event its going is
#: (SPS-09: sent or banished for a summon, never destroyed).
_PROCEDURE_EVENTS = {"gy": "EVENT_TO_GRAVE", "banished": "EVENT_REMOVE"}


def procedure_sent(state: DuelState, cards: frozenset[str], tribute: bool = False) -> None:
    """SPS-09, SPS-07: the cards a Special Summon by procedure sent to the GY or banished right
    before it, as its cost (an inherent summon's discard, Tribute or banishment: Chaos Sorcerer's)
    or its materials (a Synchro or Link material banished, by its text or a card that banishes
    what would go to the GY), went for
    the summon, which was made after them: their going was not the last thing to happen, so their
    optional "when" triggers ("when sent to the GY", "when banished") missed it. "If" triggers
    and mandatory ones activate once the summon is made (NIS-06). ``tribute``: the Xyz materials
    of a Tribute Summon's Tributes, which went with them (NIS-05), sent, not Tributed (SUM-07)."""
    mark = ["SUM-07", _SENT] if tribute else ["SPS-09"]
    for card_id in cards:
        card = state.cards.get(card_id)
        if card is not None and card.zone in _PROCEDURE_EVENTS:
            state.timing[3][card_id] = [card.zone, *mark]


def cost_paid(state: DuelState, card: Card) -> None:
    """NIS-06, CHAIN-11: ``card`` was paid as the cost of an activation, while the chain was built
    (before any of its links resolved): noted as happening then, with how it went, so a link that
    does something as it resolves leaves it having missed its timing once the chain ends."""
    state.timing[2][card.id] = [state.timing[0], card.zone, _COST]


def link_resolved(state: DuelState) -> None:
    """A link resolved or was negated: what follows happens in the next segment."""
    state.timing[0] += 1


def summon_answered(state: DuelState) -> None:
    """SPS-11: a chain is opened answering a summon as it is attempted (Solemn Judgment). It is no
    chance for the "when" triggers of the summon's Tributes, materials and costs (SUM-07, SPS-09),
    while their "if" ones wait past it (EFF-04): their marks are kept past the chain (``_KEPT``),
    for each card that does nothing in it (what it does there replaces its mark)."""
    marks = state.timing[2]
    for card, mark in state.timing[3].items():
        if mark[1] in _PROCEDURES and card not in marks:     # not one paid as its cost
            marks[card] = [_KEPT, *mark]


def chain_over(state: DuelState) -> None:
    """The chain ended: the cards whose event was followed by another link's are the ones that
    missed their timing, for the chain that may follow; and those whose mark a chain answering a
    summon kept (``summon_answered``)."""
    timing = state.timing                         # the same list, reset in place (nothing else holds it)
    marks = timing[2]
    if marks:
        last = timing[1]
        timing[3] = {card: mark[1:] if mark[0] == _KEPT else [mark[1], "NIS-06", *mark[2:]]
                     for card, mark in marks.items() if mark[0] < last or mark[0] == _KEPT}
        timing[2] = {}
    elif timing[3]:
        timing[3] = {}
    timing[0], timing[1] = 0, -1


def missed(state: DuelState, ev: Activated, card: Card) -> tuple[str, str] | None:
    """NIS-06 (SUM-07, SPS-09): (rule, why) this trigger activation missed its timing, or None."""
    mark = state.timing[3].get(card.id) if state.timing[3] else None
    if mark is None:
        return None
    what, rule = mark[0], mark[1]
    found = candidates(state, card, ev.effect_type)
    if found:
        triggers = [f for f in found if f.kind == "trigger"]
        if not triggers or not all(f.when_optional and "single" in f.types for f in triggers):
            return None
        answers = [f.code for f in triggers if what in WHEN_EVENTS.get(f.code, ())]
        if not answers or (rule != "NIS-06" and _PROCEDURE_EVENTS.get(what) not in answers):
            return None
        said = N_("its script declares an optional trigger without EFFECT_FLAG_DELAY")
    elif ev.timing == "when" and not ev.mandatory:   # NIS-06: a mandatory trigger never misses
        said = N_("the record says it is a 'when'")
    else:
        return None
    if rule == "SUM-07" and mark[2:] != [_SENT]:
        how = N_("was Tributed for a Tribute Summon: the summon was still being made")
    elif rule == "SPS-09" and what == "banished":
        how = N_("was banished for a summon procedure: the summon was still being made")
    elif rule in _PROCEDURES:
        how = N_("was sent to the GY for a summon procedure: the summon was still being made")
    elif mark[2:] == [_COST]:
        how = say("went to the {zone} as a cost of activating a chain link, and a link did something after it as it "
                  "resolved", zone=what)
    else:
        done = what.replace("_", " ") if what in _SUMMONS else say("went to the {zone}", zone=what)
        how = say("{done} while a chain link resolved, and a later link did something after it", done=done)
    return rule, say("{name} {how}: it was not the last thing to happen, so its 'when ... you can' trigger missed the "
                     "timing ({said})", name=card.name, how=how, said=said)


__all__ = ["HAPPENINGS", "SENDS", "TIMED", "WHEN_EVENTS", "after", "chain_over", "cost_paid", "link_resolved", "missed",
           "procedure_sent", "summon_answered"]
