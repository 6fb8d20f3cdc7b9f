"""Setting and activating Spell and Trap cards (SPELL, TRAP, ZONE-08..10, PEND-01).

Which Spells and Traps may be activated when, and where they go; the chain they join is
``chain.py``'s business. Which S/T indexes are Pendulum Zones depends on the rule set
(``zones.py``: 0 and 4 under the New Master Rule, the separate 5 and 6 under MR3).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from collections.abc import Sequence

from ..i18n import N_, say
from ..cards import CardFacts
from ..events import FACEUP, FZONE, GY, HAND, MZONE, SET, SZONE, Event
from ..state import Card, DuelState
from . import card_text
from .base import (
    call, fail, get_card, handles, impossible, open_game_state, player_of, put, refuse_by_identity, take,
    unseen_by_writer)
from .zones import check_spell_trap_zone, in_pendulum_zone, pendulum_zones, ruleset_of

if TYPE_CHECKING:                  # annotations only: a kind is made on its first use (events._lazy)
    from ..events import Activated, SpellTrapSet

#: After resolution these go to the GY (SPELL-04, TRAP-04); the others stay on the field.
LEAVES_AFTER_RESOLVING = frozenset(("normal", "quickplay", "ritual", "counter"))
#: SPELL-04's own exception, a card fact the type does not carry: Normal Spells whose text keeps
#: them on the field once resolved, the ones the rule names: Swords of Revealing Light (3 turns),
#: Different Dimension Capsule (「時間膠囊」) and Big Evolution Pill. Another card that stays is
#: cited by the record (a ``cite`` on its ``chain_ended``: GEN-01).
STAYS_ON_THE_FIELD = frozenset((72302403, 11961740, 84808313))


def leaves_after_resolving(facts: CardFacts) -> bool:
    """SPELL-04, TRAP-04: whether a resolved card activation goes to the GY as its chain ends."""
    return ((facts.spell_subtype or facts.trap_subtype) in LEAVES_AFTER_RESOLVING
            and facts.code not in STAYS_ON_THE_FIELD and facts.alias not in STAYS_ON_THE_FIELD)


@handles("spell_trap_set")
def spell_trap_set(state: DuelState, ev: SpellTrapSet) -> None:
    player = player_of(state, ev)
    card = get_card(state, ev, ev.card)
    facts = card.facts
    if not ev.field_zone:
        _check_szone(state, ev, player, ev.zone, card)
    if card.zone != HAND or card.controller != player:
        fail(state, ev, "SPELL-03", say("{name} ({id}) is not in player {player}'s hand; a card is Set from the "
                                        "hand", name=card.name, id=card.id, player=player))
    if not (facts.is_spell or facts.is_trap):
        rule = "PEND-01" if facts.is_pendulum else "SPELL-03"
        fail(state, ev, rule, say("{name} is a monster and cannot be Set in a Spell & Trap Zone", name=card.name))
    why = open_game_state(state, player)
    if why:
        fail(state, ev, "TURN-04", say("Spells and Traps are Set in your own Main Phase with an open game state: "
                                       "{why}", why=why))
    is_field = facts.spell_subtype == "field"
    if is_field != ev.field_zone:
        fail(state, ev, "ZONE-10", say("{name} is a Field Spell: only the Field Zone", name=card.name) if is_field
             else say("{name} is not a Field Spell: not the Field Zone", name=card.name))
    stranded = check_equips(state, ev)                     # SPELL-07
    if ev.field_zone:
        _replace_field_spell(state, player)
    take(state, card)
    put(state, card, FZONE if ev.field_zone else SZONE, player, ev.zone, SET)
    card.set_turn = state.turn
    if facts is state.unknown and ev.cite is None:        # what it is is judged once it is shown
        card.note_unseen(state.index, "field" if ev.field_zone else "spell_trap", 0)
    settle_equips(state, stranded)


def judge_unseen_set(state: DuelState, ev: Event, card: Card, facts: CardFacts, index: int, how: str,
                     _number: int) -> None:
    """SPELL-03, PEND-01, ZONE-10 for a card Set in a Spell & Trap Zone or the Field Zone while the
    record did not know it: the first event that shows it (``rules.identity.bind``) tells what it
    is, and so judges that Set: a monster is never Set there, and only a Field Spell in the Field
    Zone. What was played there is called here, naming it."""
    if not (facts.is_spell or facts.is_trap):
        fail(state, ev, "PEND-01" if facts.is_pendulum else "SPELL-03",
             say("{name}, Set at #{index} while the record did not know it, is a monster and cannot be Set in a "
                 "Spell & Trap Zone", name=facts.name, index=index))
    elif (facts.spell_subtype == "field") != (how == "field"):
        fail(state, ev, "ZONE-10",
             say("{name}, Set at #{index} while the record did not know it, is a Field Spell: only the Field Zone",
                 name=facts.name, index=index) if how != "field"
             else say("{name}, Set at #{index} while the record did not know it, is not a Field Spell: not the "
                      "Field Zone", name=facts.name, index=index))


def _check_szone(state: DuelState, ev: Event, player: int, zone: int | None, card: Card | None = None) -> None:
    check_spell_trap_zone(state, ev, player, zone, card)


def _replace_field_spell(state: DuelState, player: int) -> None:
    """SPELL-11: a new Field Spell in your Field Zone sends your old one to the GY, neither
    destroyed nor sent by an effect; the opponent's stays. The same under every rule set this
    program knows (MR3 and later: CONF-03, ``RuleSet.field_spell_replacement``); the duel option
    ``one_field_spell`` keeps the older ruling (destroyed). The record may state that move right
    after (``outcome.card_moved``): ``field_placed`` remembers it."""
    old_id = state.sides[player].fzone
    if old_id is not None:
        old = state.cards[old_id]
        take(state, old)
        put(state, old, GY, old.owner)
    state.field_placed = [state.index, player, old_id]


def _unnamed(card: Card) -> str:
    """LOG-05's words for an activated card its entry does not name: one message whether the record
    knows the card or not (a refusal told as it is, ``RuleViolation.public``)."""
    return say("{id} is activated but not named: an activated card is shown to all, so name it "
               "(\"shows\": {{\"{id}\": passcode}})", id=card.id)


def check_card_activation(state: DuelState, ev: Activated, card: Card, player: int) -> int:
    """Check the activation of a Spell or Trap card itself and return its spell speed (CHAIN-01)."""
    facts = card.facts
    if facts is state.unknown:                   # everyone sees the card activated: it is named
        impossible(state, ev, "LOG-05", _unnamed(card), public=True)
    if ev.entered_by is not None and unseen_by_writer(state, ev, card) \
            and all(card_id != card.id for card_id, _code in ev.shows):
        # LOG-05 whether the record knows the card or not: a player's device may have named it, for
        # itself. Refused only where the record does not know it, the table's recorder (or the other
        # player's device) learned from 200 against 422 whether a device had named its Set card.
        # The writer sees it now, face-up: naming it costs a tap, and the refusal, reading nothing
        # of the card, says so (``public``). An entry no writer typed (a judge's file made
        # witnessed) asks nothing; a record stored before folds on (``call``, not ``impossible``:
        # an audit lists it and applies the activation).
        call(state, ev, "LOG-05", _unnamed(card), play=False, public=True)
    from_hand = card.zone == HAND
    scale = facts.is_pendulum and facts.is_monster
    subtype = facts.spell_subtype                # a known card's facts (the unknown one is refused above)
    # What cannot be applied at all is refused first, so a cited refusal records no override.
    if from_hand:
        pass
    elif card.zone not in (SZONE, FZONE):
        impossible(state, ev, "LOG-02", say("{name} is in the {zone}; a card is activated from the hand, a Spell & "
                                            "Trap Zone or the Field Zone (name the effect_type to activate an "
                                            "effect)", name=card.name, zone=card.zone))
    elif card.position != SET:
        impossible(state, ev, "LOG-02", say("{name} is already face-up; name the effect_type to activate one of "
                                            "its effects", name=card.name))
    if not (scale or subtype is not None or facts.is_trap):
        refuse_by_identity(state, ev, card, "LOG-05", say("{name} is a monster: name the effect_type of the effect "
                                                          "activated", name=card.name))
    if from_hand and subtype != "field":
        _check_szone(state, ev, player, ev.zone, card)     # ZONE-08: it is placed in a free zone
    if card.controller != player:
        fail(state, ev, "CTRL-01", say("player {player} does not control {name}", player=player, name=card.name))
    if scale:
        _check_scale_activation(state, ev, card, player)
        return 1
    if facts.is_trap:
        if from_hand and not card_text.text_allows(state, "EFFECT_TRAP_ACT_IN_HAND", card):   # TRAP-03
            fail(state, ev, "TRAP-02", say("{name} is a Trap: it must be Set before it is activated", name=card.name))
        elif card.set_turn == state.turn and not card_text.text_allows(state, "EFFECT_TRAP_ACT_IN_SET_TURN", card):
            fail(state, ev, "TRAP-02", say("{name} was Set this turn and cannot be activated until the next",
                                           name=card.name))
        return 3 if facts.trap_subtype == "counter" else 2
    if subtype == "quickplay":
        if from_hand and player != state.turn_player:
            fail(state, ev, "SPELL-12", N_("a Quick-Play Spell is activated from the hand only in your own turn"))
        elif not from_hand and card.set_turn == state.turn:
            fail(state, ev, "SPELL-12", say("{name} was Set this turn: a Set Quick-Play Spell waits until the next "
                                            "turn", name=card.name))
        return 2
    why = open_game_state(state, player)
    if why and not state.chain:
        fail(state, ev, "SPELL-02", say("{spell} is activated in your own Main Phase with an open game state: {why}",
                                        spell=_SPELL_PHRASES.get(subtype or "normal", subtype), why=why))
    if from_hand and subtype == "field" and not ev.field_zone:
        fail(state, ev, "ZONE-10", say("{name} is a Field Spell and is activated in the Field Zone", name=card.name))
    if subtype == "equip":
        _check_equip_target(state, ev, card)
    return 1


def _check_equip_target(state: DuelState, ev: Activated, card: Card) -> None:
    """SPELL-05: an Equip Spell targets 1 monster when activated: face-up on the field (or, as the
    card says, in the GY or banished). POS-06: a face-down Defense monster cannot be equipped;
    POS-02: nor one in face-down Attack (an effect's position)."""
    if len(ev.targets) != 1:
        fail(state, ev, "SPELL-05", say("{name} is an Equip Spell: its activation targets 1 monster, not {count}",
                                        name=card.name, count=len(ev.targets)))
        return
    target = state.cards.get(ev.targets[0])
    if target is None or not target.facts.is_monster:
        fail(state, ev, "SPELL-05", say("an Equip Spell targets a monster; {targets} is not one",
                                        targets=ev.targets[0]))
    elif target.zone == MZONE and not target.face_up:
        if target.position == SET:
            fail(state, ev, "POS-06", say("{name} is face-down in Defense Position: a face-down Defense monster "
                                          "cannot be equipped (an Equip Spell equips only a face-up monster)",
                                          name=target.name))
        else:
            fail(state, ev, "SPELL-05", say("{name} is face-down: an Equip Spell equips only a face-up monster "
                                            "(POS-02)", name=target.name))
    elif target.zone in (SZONE, FZONE, HAND):
        fail(state, ev, "SPELL-05", say("{name} is in the {zone}: an Equip Spell targets a monster on the field "
                                        "(or in the GY or banished, as the card says)",
                                        name=target.name, zone=target.zone))

def _check_scale_activation(state: DuelState, ev: Activated, card: Card, player: int) -> None:
    """PEND-01/ZONE-09: a Pendulum monster is activated as a Spell into a Pendulum Zone: the
    outer S/T zones 0 and 4 under the New Master Rule, the separate zones 5 and 6 under MR3."""
    if card.zone != HAND:
        fail(state, ev, "PEND-01", say("{name} is activated as a Pendulum Scale from the hand (it cannot be Set)",
                                       name=card.name))
    why = open_game_state(state, player)
    if why and not state.chain:
        fail(state, ev, "SPELL-02", say("a Pendulum Scale is activated in your own Main Phase: {why}", why=why))
    left, right = pendulum_zones(state)
    if ev.zone not in (left, right):
        where = ("the separate zones 5 and 6 (MR-03)" if ruleset_of(state).separate_pendulum_zones
                 else "the outer S/T zones 0 and 4")
        fail(state, ev, "ZONE-09", say("Pendulum Zones are {where}, not {zone} ({title})",
                                       where=where, zone=ev.zone, title=ruleset_of(state).title))


def place_activated_card(state: DuelState, ev: Activated, card: Card, player: int) -> None:
    """Put an activated Spell/Trap face-up where it resolves (SPELL-02, SPELL-11, ZONE-08)."""
    if card.zone == HAND:
        if card.facts.spell_subtype == "field":
            _replace_field_spell(state, player)
            take(state, card)
            put(state, card, FZONE, player, 0, FACEUP)
        else:
            take(state, card)
            put(state, card, SZONE, player, ev.zone, FACEUP)
    else:
        card.position = FACEUP


#: The effect types ``effect_timing_problem`` judges; the others (trigger, quick, flip) have no timing of theirs to check.
#: Each Spell a sentence names, article and capitals right (a value translated whole).
_SPELL_PHRASES = {"normal": N_("a Normal Spell"), "continuous": N_("a Continuous Spell"),
                  "equip": N_("an Equip Spell"), "field": N_("a Field Spell"), "ritual": N_("a Ritual Spell")}
TIMED_EFFECTS = frozenset(("ignition", "pendulum", "continuous"))


def effect_timing_problem(state: DuelState, card: Card, player: int, effect_type: str) -> tuple[str, str] | None:
    """When an effect of this type may be activated (EFF-02, PEND-02, SPELL-08)."""
    if effect_type == "ignition" or effect_type == "pendulum":
        why = open_game_state(state, player)
        if why:
            return ("EFF-02" if effect_type == "ignition" else "PEND-02",
                    say("{effect} is activated in your own Main Phase with an open game state: {why}",
                        effect=N_("an Ignition Effect") if effect_type == "ignition" else N_("a Pendulum Effect"),
                        why=why))
    if effect_type == "pendulum" and not (in_pendulum_zone(state, card) and card.face_up):
        return "PEND-02", say("{name}'s Pendulum Effect is used only while it is in a Pendulum Zone", name=card.name)
    if effect_type == "continuous" and not (card.zone in (SZONE, FZONE) and card.face_up):
        return "SPELL-10", say("{name} applies its effects only while face-up in its zone", name=card.name)
    return None


def speed_of_effect(card: Card, effect_type: str) -> int:
    """CHAIN-01: Quick effects are Speed 2, as are effects a face-up Trap activates (TRAP-05)."""
    if effect_type == "quick":
        return 2
    if effect_type == "continuous" and card.facts.is_trap:
        return 2
    return 1


# -- equip cards follow their monster (SPELL-05/07) ------------------------------------------------

def bind_equip(state: DuelState, card: Card, targets: tuple[str, ...]) -> None:
    """SPELL-05: an Equip Spell whose activation resolves is equipped to the monster it targeted.

    The monster may not be on the field yet (an equip that revives it, like Premature Burial):
    the equip then waits for it, until the chain ends."""
    if card.facts.spell_subtype != "equip" or card.zone != SZONE or not card.face_up or len(targets) != 1:
        return
    target = state.cards.get(targets[0])
    if target is None or not target.facts.is_monster:
        return
    card.equipped_to = target.id
    card.equip_exits = target.field_exits
    card.equip_pending = target.zone != MZONE
    if card.id not in state.equips:
        state.equips.append(card.id)


def _equip_problem(state: DuelState, equip: Card, chain_over: bool) -> str | None:
    """Why ``equip`` must already have left the field (SPELL-07), or None."""
    target = state.cards.get(equip.equipped_to or "")
    if target is None or target.field_exits != equip.equip_exits:
        name = target.name if target is not None else equip.equipped_to
        return say("the monster it equipped, {name}, has left the field", name=name)
    if target.zone != MZONE:
        if equip.equip_pending and not chain_over:
            return None                         # still to arrive while its chain resolves
        return say("{name}, the monster it was to equip, is not on the field", name=target.name)
    if not target.face_up:
        return say("the monster it equips, {name}, is face-down", name=target.name)
    return None


def check_equips(state: DuelState, ev: Event) -> list[Card]:
    """SPELL-07: an Equip Spell whose monster left the field or turned face-down goes to the GY at
    once, as a rule (not destroyed by its own effect): the record moves it before the next event
    that ends a step of play (a summon, an activation, a chain link resolving, the chain ending).
    Returns the equips found stranded; ``settle_equips`` forgets them once the event is applied."""
    stranded = []
    if not state.equips:                         # the common case: nothing is equipped
        return stranded
    chain_over = ev.kind == "chain_ended"
    for card_id in state.equips:
        equip = state.cards.get(card_id)
        if equip is None or equip.equipped_to is None or equip.zone != SZONE:
            continue
        problem = _equip_problem(state, equip, chain_over)
        if problem:
            fail(state, ev, "SPELL-07", say("{name} ({id}) must go to the GY: {problem} (record its card_moved "
                                            "before this event)", name=equip.name, id=equip.id, problem=problem))
            stranded.append(equip)
    return stranded


def settle_equips(state: DuelState, stranded: Sequence[Card]) -> None:
    """After an event is applied: stranded equips are reported once; a waiting equip whose
    monster has arrived is equipped to it now."""
    if not state.equips:
        return
    for equip in stranded:
        equip.equipped_to = None
        equip.equip_pending = False
    live = []
    for card_id in state.equips:
        equip = state.cards.get(card_id)
        if equip is None or equip.equipped_to is None or equip.zone != SZONE:
            continue                              # no longer equipped: forget it
        live.append(card_id)
        if equip.equip_pending:
            target = state.cards.get(equip.equipped_to)
            if target is not None and target.zone == MZONE and target.field_exits == equip.equip_exits:
                equip.equip_pending = False
    state.equips[:] = live


def in_chain(state: DuelState) -> bool:
    """A chain is being built or resolved (from its first activation to chain_ended)."""
    return bool(state.chain) or state.resolving
