"""Duel scenarios a head judge rules on (issue 25, eighteenth pass: judge18), recorded as a
table's recorder writes them.

Let through though illegal:

* SPELL-10, TRAP-05 (continuous effects while face-down): a Set Spell or Trap Card applies and
  activates none of its effects until it is face-up; Set, it is activated as a card, which turns
  it face-up. A Set Call of the Haunted, Messenger of Peace or Yami activating one of its effects
  (a Quick Effect, a trigger, an Ignition effect: ``effect_type`` named) was accepted, the card
  left face-down and a chain link built on it; only a recorded ``continuous`` effect was judged.
  EDOPro's core offers the effect of a face-down card on the field only with
  ``EFFECT_FLAG_SET_AVAILABLE`` (``effect::is_activateable``), which its script declaring it
  still lets through.
* COUNTER-01 (CONF-20, POS-04): counters go on face-up cards on the field. A counter placed by a
  face-up card's effect on a Set monster or a Set Spell was accepted (only the zone, and a card
  with no effect of its own placing it, were judged); EDOPro's ``card::is_can_add_counter``
  wants the card face-up on the field.

Refused though legal, and kept though gone:

* POS-04: no effect that changes ATK/DEF applies to a face-down monster; turned face-down (Book
  of Moon), what effects changed is gone: EDOPro resets the card with ``RESET_TURN_SET``, part of
  every ``RESETS_STANDARD``. The fold kept an ATK boost through it: Flip Summoned a turn later,
  Vorse Raider still had 2400 ATK, and a damage calculation with its printed 1900 was refused as
  DMG-01.
* COUNTER-01: so are its counters (``card::reset`` clears them on ``RESET_TURN_SET``, with no
  message a record could show); the fold kept them on the face-down card, a monster or a Spell
  turned Set, and on it once face-up again.

Probed and found right (kept out of the suite: they pass on the baseline): Link material totals
(LINK-02/03: a Link-1 counted as 1 short of a Link-3, a Link-2 and a monster for Decode Talker, 3 or
4 materials where a Link material may count 1, one Link-2 or Link-3 material alone: CONF-30, World
Ocean Dragon - Zealantis lists "1+ Effect Monsters", so the count is card text), Xyz materials (a
Rank, a Level 5 for a Rank 4, a Token, counters placed on a material, the Xyz monster destroyed: its
materials, a Pendulum one too, to the GY, not the Extra Deck, a detached Pendulum material to the
GY), Pendulum monsters leaving the field (destroyed by battle to the Extra Deck, to the GY refused,
a Link material face-up to the Extra Deck), Pendulum Scales (Set, in S/T zone 2, in the opponent's
turn or the Battle Phase, chained as Chain Link 2, zones 0 and 5 under mr3), Pendulum Summons (3
from the hand, a second one after a Normal Summon or a chain, face-down, in Defense Position, in the
Battle Phase), control change (a taken monster Tributed to its owner's GY, sent to the taker's GY
refused, attacking), a Set monster attacked (DEF higher: damage to the attacker; lower: destroyed,
none), direct attacks past a Set monster, the first turn's draw and Battle Phase, two Normal
Summons, a Summon then a Set, a Normal Summon in Main Phase 2 or the opponent's turn, a Token
Tributed, a Level 7 Set with one Tribute, a Link monster to Defense Position, the hand size at the
end of the turn, a face-down monster's Ignition effect, a face-up Field Spell's; the turn's
structure (2 cards or the opponent's in the Draw Phase, leaving it without drawing, Main Phase 1 to
2, the Damage Step after the Start Step, an attack in the Start Step, by a Defense Position monster,
twice, by the opponent; a monster summoned this turn attacking, manual changes in the Battle Phase,
twice, after a Flip Summon, in Main Phase 2, two turns in a row, a turn number skipped); an Xyz
Summon negated (its materials, a Pendulum one too, to the GY), Synchro Levels short or over, a
Pendulum Tributed (face-up to the Extra Deck), a face-down Special Summon by an effect (CONF-27),
Monster Reborn on the opponent's monster (to its owner's GY after); the match's outcomes after draws
(MATCH-02) and who chooses after a loss or a draw (MATCH-07), read in match/rules.py. Not changed,
left for a ruling the catalogue does not give: an Xyz material targeted by an effect (XMAT-02 says
it is no card on the field; EDOPro's targeting of overlays was not read), an ATK/DEF change recorded
on a face-down monster (POS-04; the importer's values were not checked for it), an effect activated
from the face-down Extra Deck (EDOPro allows a script ranged there).
"""
from __future__ import annotations

from test_rule_scenarios_27 import ev
from test_rule_scenarios_33 import witnessed
from test_rules_battle import mon

from duel import BATTLE_OX, CALL_OF_THE_HAUNTED, CARDS, CELTIC, VORSE, YAMI, fold, position, refused_with
from ygoreplay.effect_facts import EffectFact

PEACE = 44656491                                 # Messenger of Peace (Continuous Spell)

# == SPELL-10, TRAP-05: a Set Spell or Trap activates no effect of its own =========================

SET_BACK_ROW = position({"szone": [{"code": CALL_OF_THE_HAUNTED, "id": "call", "position": "set"},
                                   {"code": PEACE, "id": "peace", "position": "set"}],
                         "fzone": {"code": YAMI, "id": "yami", "position": "set"},
                         "mzone": [mon("cel", CELTIC)], "gy": [{"code": VORSE, "id": "vorse"}]})
SET_SAYS = "is Set: a Spell or Trap Card applies and activates its effects only while face-up"


def test_trap_05_a_set_continuous_trap_activates_no_effect_of_its_own() -> None:
    """TRAP-05: player 0's Call of the Haunted is Set; a Quick Effect of it is recorded (not the
    card's activation). Face-down it applies and activates nothing: it is activated as a card
    first. Before: accepted, a Chain Link 1 of Call of the Haunted still face-down. TRAP-02: the
    card itself activated (no ``effect_type``) is legal and turns face-up."""
    refused_with([SET_BACK_ROW, ev("activated", player=0, card="call", effect_type="quick")], "TRAP-05", SET_SAYS)
    refused_with([SET_BACK_ROW, ev("activated", player=0, card="call", effect_type="trigger")], "TRAP-05", SET_SAYS)
    state = fold(SET_BACK_ROW, ev("activated", player=0, card="call", targets=["vorse"]))
    assert state.cards["call"].face_up and state.chain[0].is_card_activation


def test_spell_10_a_set_continuous_or_field_spell_activates_no_effect_of_its_own() -> None:
    """SPELL-10: a Set Messenger of Peace, or a Set Yami in the Field Zone, activating an Ignition
    effect in player 0's Main Phase. Before: both accepted. Face-up, Yami's effect is activated."""
    refused_with([SET_BACK_ROW, ev("activated", player=0, card="peace", effect_type="ignition")], "SPELL-10", SET_SAYS)
    refused_with([SET_BACK_ROW, ev("activated", player=0, card="yami", effect_type="ignition")], "SPELL-10", SET_SAYS)
    face_up = position({"fzone": {"code": YAMI, "id": "yami", "position": "faceup"}})
    assert fold(face_up, ev("activated", player=0, card="yami", effect_type="ignition")).chain[0].card == "yami"


def test_spell_10_a_witnessed_effect_of_a_set_card_is_flagged_and_kept() -> None:
    """At the table the effect played stands, flagged TRAP-05: the chain link is built."""
    state = witnessed(SET_BACK_ROW, ev("activated", player=0, card="call", effect_type="quick"))
    assert [f.rule for f in state.flags] == ["TRAP-05"] and state.chain[0].card == "call"


def test_spell_10_a_script_that_declares_it_usable_while_set_lets_it_through() -> None:
    """EDOPro's ``EFFECT_FLAG_SET_AVAILABLE``: Messenger of Peace given (for this test) a Quick
    Effect its script declares usable while Set is activated face-down; without the flag in its
    script the same activation is refused."""
    usable = CARDS.with_effects({PEACE: (EffectFact(("quick_o",), "EVENT_FREE_CHAIN", ("set_available",)),)})
    hidden = CARDS.with_effects({PEACE: (EffectFact(("quick_o",), "EVENT_FREE_CHAIN", ()),)})
    quick = ev("activated", player=0, card="peace", effect_type="quick")
    assert fold(SET_BACK_ROW, quick, cards=usable).chain[0].card == "peace"
    refused_with([SET_BACK_ROW, quick], "SPELL-10", SET_SAYS, cards=hidden)


# == COUNTER-01: counters go on face-up cards on the field =========================================

COUNTERS = position({"mzone": [mon("cel", CELTIC, "set"), mon("vorse", VORSE)],
                     "szone": [{"code": PEACE, "id": "peace", "position": "set"},
                               {"code": PEACE, "id": "peace_up", "position": "faceup"}]})
FACE_DOWN_SAYS = "is face-down: counters are placed only on face-up cards on the field"


def test_counter_01_no_counter_is_placed_on_a_face_down_card() -> None:
    """COUNTER-01 (CONF-20), POS-04: a face-up card's effect (``peace_up``) places a counter on
    player 0's Set Celtic Guardian, or on the Set Messenger of Peace: a face-down card has no
    effect that applies, so none that lets it receive counters (EDOPro's
    ``card::is_can_add_counter`` wants the card face-up on the field). Before: both accepted. On
    the face-up Vorse Raider it is placed, and taking a counter off is no placing."""
    refused_with([COUNTERS, ev("counters_changed", card="cel", counter="spell", count=1, cause="peace_up")],
                 "COUNTER-01", FACE_DOWN_SAYS)
    refused_with([COUNTERS, ev("counters_changed", card="peace", counter="spell", count=1, cause="peace_up")],
                 "COUNTER-01", FACE_DOWN_SAYS)
    state = fold(COUNTERS, ev("counters_changed", card="vorse", counter="spell", count=1, cause="peace_up"),
                 ev("counters_changed", card="vorse", counter="spell", count=0, cause="peace_up"))
    assert state.cards["vorse"].counters == {}


def test_counter_01_a_witnessed_counter_on_a_face_down_card_is_flagged_and_kept() -> None:
    """At the table the counter placed stands, flagged COUNTER-01."""
    state = witnessed(COUNTERS, ev("counters_changed", card="cel", counter="spell", count=1, cause="peace_up"))
    assert [f.rule for f in state.flags] == ["COUNTER-01"] and state.cards["cel"].counters == {"spell": 1}


def test_counter_01_a_card_turned_face_down_loses_its_counters() -> None:
    """COUNTER-01: Vorse Raider holds a counter; an effect (Book of Moon, cause ``book``) turns it
    face-down: it has none now (EDOPro's ``card::reset`` clears them on ``RESET_TURN_SET``, with no
    message a record could show), so flipped face-up again it still has none. The same for a
    face-up Messenger of Peace turned Set. Before: the counters stayed on the face-down cards."""
    placed = [ev("counters_changed", card="vorse", counter="spell", count=1, cause="peace_up"),
              ev("counters_changed", card="peace_up", counter="peace", count=2, cause="peace_up")]
    state = fold(COUNTERS, *placed, ev("position_changed", card="vorse", position="set", cause="book"),
                 ev("position_changed", card="peace_up", position="set", cause="book"),
                 ev("position_changed", card="vorse", position="defense", cause="book"))
    assert state.cards["vorse"].counters == {} and state.cards["peace_up"].counters == {}


# == POS-04: a monster turned face-down loses what effects changed ==================================

BOOSTED = position({"mzone": [mon("vorse", VORSE)]}, {"mzone": [mon("ox", BATTLE_OX)]})
#: Vorse Raider gains 500 ATK (1900 -> 2400) from an effect, then Book of Moon turns it face-down.
BOOST_THEN_BOOK = [ev("stats_changed", card="vorse", atk=2400, cause="boost"),
                   ev("position_changed", card="vorse", position="set", cause="book")]
#: Turn 2 ends; turn 3 is player 1's, with nothing done; turn 4, player 0's Main Phase 1.
TO_TURN_4 = [ev("phase_entered", phase="end"), ev("turn_started", player=1, turn=3), ev("phase_entered", phase="draw"),
             ev("cards_drawn", player=1, count=1), ev("phase_entered", phase="standby"),
             ev("phase_entered", phase="main1"), ev("phase_entered", phase="end"), ev("turn_started", player=0, turn=4),
             ev("phase_entered", phase="draw"), ev("cards_drawn", player=0, count=1),
             ev("phase_entered", phase="standby"), ev("phase_entered", phase="main1")]


def test_pos_04_a_monster_turned_face_down_loses_its_boost() -> None:
    """POS-04: no effect that changes ATK/DEF applies to a face-down monster; turned face-down, what
    effects changed is gone (EDOPro resets the card with ``RESET_TURN_SET``, part of every
    ``RESETS_STANDARD``). Flip Summoned on turn 4, Vorse Raider attacks Battle Ox with its printed
    1900 ATK: 200 damage. Before: the fold still held 2400 and refused the record's damage
    calculation as DMG-01 (500 owed), a legal play refused."""
    attack_ox = [ev("flip_summoned", player=0, card="vorse"), ev("phase_entered", phase="battle"),
                 ev("step_entered", step="battle"), ev("attack_declared", player=0, attacker="vorse", target="ox"),
                 ev("step_entered", step="damage"), ev("damage_calculated", destroyed=["ox"], damage=[0, 200])]
    state = fold(BOOSTED, *BOOST_THEN_BOOK, *TO_TURN_4, *attack_ox)
    assert state.cards["vorse"].current_atk == 1900 and state.attack.pending_damage == [0, 200]

