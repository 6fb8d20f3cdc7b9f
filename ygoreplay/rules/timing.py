"""Missing the timing (NIS-06): an optional "when ... you can" trigger needs its event to be the
last thing that happened.

The log shows what happened while a chain resolved, link by link (the events after each
``chain_link_resolved``). A card that moved (or was summoned) while one link resolved, with
something happening after it while a later link resolved, was not the last thing to happen: once
the chain has ended, its "when ... you can" trigger on that event (``TRIGGER_O`` without
``EFFECT_FLAG_DELAY`` in its script, or ``timing: "when"`` on the event) cannot be activated.
"If" triggers and mandatory ones do not miss. What happened within one link is not judged (its
actions may be simultaneous: "destroy them, and if you do ..." is not "then"); neither is a card
whose trigger's kind is unknown (no script, no ``timing``).

The state keeps, for the chain resolving, the segment (links resolved so far), the last segment
in which something happened, and what each card did in which segment; when the chain ends, the
cards that missed their timing, until the next chain ends.
"""
from __future__ import annotations

from ..events import Activated, Event
from ..state import Card, DuelState
from .effects import candidates

#: What "happens" while a chain link resolves; bookkeeping (a link resolving, a pass, a note) and
#: a card that leaves the field after resolving by the rules (SPELL-04) do not.
HAPPENINGS = frozenset(("cards_drawn", "normal_summoned", "monster_set", "flip_summoned", "special_summoned",
                        "position_changed", "spell_trap_set", "card_moved", "control_changed", "cards_swapped",
                        "counters_changed", "token_created", "life_points_changed"))
_RULE_MOVES = frozenset(("resolved", "negated", "rule"))
_SUMMONS = frozenset(("normal_summoned", "flip_summoned", "special_summoned"))
#: The trigger events of a card's own (``single``) "when" trigger, and what the card did for each.
WHEN_EVENTS = {"EVENT_TO_GRAVE": {"gy"}, "EVENT_DESTROYED": {"gy", "banished", "extra"},
               "EVENT_REMOVE": {"banished"}, "EVENT_TO_HAND": {"hand"}, "EVENT_TO_DECK": {"deck", "extra"},
               "EVENT_SPSUMMON_SUCCESS": {"special_summoned"}, "EVENT_SUMMON_SUCCESS": {"normal_summoned"},
               "EVENT_FLIP_SUMMON_SUCCESS": {"flip_summoned"}}


def happened(state: DuelState, event: Event) -> None:
    """After ``event`` was applied while a chain resolves: note it, and what its card did."""
    if event.kind == "card_moved" and event.reason in _RULE_MOVES:
        return
    segment = state.timing[0]
    state.timing[1] = segment
    card = state.cards.get(getattr(event, "card", None) or "")
    if card is not None:
        state.timing[2][card.id] = [segment, event.kind if event.kind in _SUMMONS else card.zone]


def link_resolved(state: DuelState) -> None:
    """A link resolved or was negated: what follows happens in the next segment."""
    state.timing[0] += 1


def chain_over(state: DuelState) -> None:
    """The chain ended: the cards whose event was followed by another link's are the ones that
    missed their timing, for the chain that may follow."""
    _, last, marks = state.timing[:3]
    state.timing = [0, -1, {}, {card: what for card, (segment, what) in marks.items() if segment < last}]


def missed(state: DuelState, ev: Activated, card: Card) -> str | None:
    """NIS-06: why this trigger activation missed its timing, or None."""
    what = state.timing[3].get(card.id) if state.timing[3] else None
    if what is None:
        return None
    found = candidates(state, card, ev.effect_type)
    if found:
        triggers = [f for f in found if f.kind == "trigger"]
        if not triggers or not all(f.when_optional and "single" in f.types for f in triggers):
            return None
        if not any(what in WHEN_EVENTS.get(f.code, ()) for f in triggers):
            return None
        said = "its script declares an optional trigger without EFFECT_FLAG_DELAY"
    elif ev.timing == "when":
        said = "the record says it is a 'when'"
    else:
        return None
    done = what.replace("_", " ") if what in _SUMMONS else f"went to the {what}"
    return (f"{card.name} {done} while a chain link resolved, and a later link did something after it: "
            f"it was not the last thing to happen, so its 'when ... you can' trigger missed the timing ({said})")


__all__ = ["HAPPENINGS", "WHEN_EVENTS", "chain_over", "happened", "link_resolved", "missed"]
