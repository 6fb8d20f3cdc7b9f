"""Duel scenarios a head judge rules on (issue 25, twenty-fourth pass, third file: judge24b): what
``test_rule_scenarios_45`` left open (a mandatory Flip effect an attack gave, never activated; a
Pendulum Summon's refusals said right; a renamed card keeping its passed Flip effect), then the
End Phase, the first turn, Normal Summon counts and the wins.

Let through though illegal, or refused saying the wrong thing, now right:

* EFF-05, BATTLE-12 (a Flip effect is mandatory; one an attack's flip gave is activated in that
  attack's Damage Step): Test Flipper ("FLIP: draw 1 card", mandatory, no condition, cost or
  target), Set, attacked and destroyed, never activated its Flip effect, and the Damage Step ended
  (the next Battle Step, Main Phase 2): accepted (mandatory triggers are not tracked in the Damage
  Step: BATTLE-09). Now refused EFF-05 where that Damage Step ends. Activated and resolved in it:
  legal as before.
* PEND-03: a Pendulum Summon in the Battle Phase was refused saying "an pendulum Special Summon
  needs an open game state" (the sentence built from the method's name; translated "Pendulum
  Special Summon", not "Pendulum Summon"). Now "a Pendulum Summon needs an open game state in your
  own Main Phase" (and "an inherent Special Summon" for SPS-07), each its own sentence.
* SPS-05, XYZ-01, SPELL-02, EFF-02, PEND-02: the same sentence builder elsewhere: "a xyz Summon
  places the monster face-up" (an Xyz Summon Set), "a Xyz Summon is made in your own Main Phase"
  (in the Battle Phase), "a equip Spell is activated" (Axe of Despair in the Battle Phase), "an
  pendulum effect is activated" (Stargazer Magician's Pendulum Effect in the Battle Phase), "an
  ignition effect"; the translations kept the English sub-types the catalogue lacks ("equip魔法",
  "field", "normal"). Now each
  names the summon, Spell or effect with its article and capitals ("an Xyz Summon", "an Equip
  Spell", "a Pendulum Effect"), a phrase translated whole.
* PEND-03, PRIO-06: player 0's Pendulum Summon, recorded with no player, in player 1's turn (player
  0's Scales set) was refused saying a Pendulum Summon needs a card in both Pendulum Zones (player
  1's, taken as the summoner's). A procedure summons from its summoner's own hand or Extra Deck:
  the summoner is the card's controller, and the reason is that it is not their turn. Now said so.
* BATTLE-12: a card the view renames (it went where it can no longer be followed) kept its flips
  and used Flip effects under the new id but not the Flip effect its attack's Damage Step passed:
  Man-Eater Bug, flipped by an attack, its effect not activated in that Damage Step, renamed, then
  activating it was accepted. Now refused BATTLE-12, as under its old id.

Probed and found right, each as a recorded event sequence (kept out of the suite: they pass on
main; legal accepted, illegal refused with the ID): see the list at the end of this docstring,
filled in as the pass goes.
"""
from __future__ import annotations

import pytest

from test_rule_scenarios_27 import ev
from test_rule_scenarios_29 import MAN_EATER, TO_DAMAGE_STEP
from test_rule_scenarios_39 import card
from test_rule_scenarios_45 import FLIP_EFFECT, FLIPPED
from test_rules_battle import calc, mon, step, to_gy
from test_rules_card_text import TEXT

from duel import AXE, CELTIC, UTOPIA, STARGAZER, TIMEGAZER, fold, position, refused_with
from ygoreplay import i18n
from ygoreplay.events import from_dict
from ygoreplay.rules import RuleViolation, apply


# == EFF-05, BATTLE-12: a mandatory Flip effect an attack gave, never activated ====================

@pytest.mark.parametrize("later", [
    pytest.param([step("battle")], id="next-battle-step"),
    pytest.param([ev("phase_entered", phase="main2")], id="main-phase-2"),
])
def test_eff_05_a_mandatory_flip_effect_an_attack_gave_never_activated_refused(later: list) -> None:
    """EFF-05, BATTLE-12: Test Flipper, flipped by Vorse Raider's attack and destroyed by it, never
    activates its mandatory Flip effect; the Damage Step ends: refused EFF-05 there. Before:
    accepted. Activated in that Damage Step and resolved: legal."""
    refused_with([*FLIPPED, to_gy("flipper", 1), *later], "EFF-05", "not activated before that Damage Step ended",
                 cards=TEXT)
    resolved = [FLIP_EFFECT, ev("chain_link_resolved", link=1), ev("chain_ended")]
    assert fold(*FLIPPED, to_gy("flipper", 1), *resolved, *later, cards=TEXT).cards["flipper"].zone == "gy"


# == PEND-03: a Pendulum Summon's refusals said right ================================================

def pendulum_board(turn_player: int, phase: str = "main1") -> dict:
    """Player 0 has Stargazer (Scale 1) and Timegazer Magician (Scale 8) in the Pendulum Zones and
    Celtic Guardian (Level 4) in the hand."""
    return position({"hand": [card("celtic", CELTIC)],
                     "szone": [card("sg", STARGAZER), None, None, None, card("tg", TIMEGAZER)]},
                    turn=5, turn_player=turn_player, phase=phase)


PEND_SUMMON = ev("special_summoned", player=0, card="celtic", zone=0, method="pendulum", position="attack")


def test_pend_03_a_pendulum_summon_in_the_battle_phase_refused_in_plain_words() -> None:
    """PEND-03, PRIO-06: player 0 Pendulum Summons Celtic Guardian in their Battle Phase: refused,
    "a Pendulum Summon needs an open game state in your own Main Phase". Before: "an pendulum
    Special Summon". In Main Phase 1: legal."""
    v = refused_with([pendulum_board(0, "battle"), PEND_SUMMON], "PEND-03",
                     "a Pendulum Summon needs an open game state in your own Main Phase: it is the Battle Phase")
    said = said_in_every_language(v.message)
    assert all("pendulum" not in text.lower() and "Special Summon" not in text for text in said.values()), said
    assert "ペンデュラム召喚" in said["ja"] and "펜듈럼 소환" in said["ko"]
    assert "灵摆召唤" in said["zh-Hans"] and "靈擺召喚" in said["zh-Hant"]
    assert fold(pendulum_board(0), PEND_SUMMON).cards["celtic"].zone == "mzone"


def said_in_every_language(message: str) -> dict[str, str]:
    """``message`` as a reader of each translated language reads it."""
    said = {}
    for language in ("ja", "ko", "zh-Hans", "zh-Hant"):
        with i18n.using(language):
            said[language] = i18n.said(message)
    return said


IN_BATTLE = {"phase": "battle", "step": "battle"}
XYZ_BOARD = {"mzone": [mon("a", CELTIC), mon("b", CELTIC)], "extra": [card("u", UTOPIA)]}


@pytest.mark.parametrize("events, rule, says, word", [
    pytest.param([position(XYZ_BOARD), ev("special_summoned", player=0, card="u", zone=2, method="xyz", position="set",
                                          materials=["a", "b"])],
                 "SPS-05", "an Xyz Summon places the monster face-up", "xyz", id="sps-05-xyz-set"),
    pytest.param([position(XYZ_BOARD, **IN_BATTLE), ev("special_summoned", player=0, card="u", zone=2, method="xyz",
                                                       position="attack", materials=["a", "b"])],
                 "XYZ-01", "an Xyz Summon is made in your own Main Phase", "xyz", id="xyz-01-battle-phase"),
    pytest.param([position({"hand": [card("axe", AXE)], "mzone": [mon("c", CELTIC)]}, **IN_BATTLE),
                  ev("activated", player=0, card="axe", zone=1, targets=["c"])],
                 "SPELL-02", "an Equip Spell is activated in your own Main Phase", "equip", id="spell-02-equip"),
    pytest.param([position({"mzone": [mon("c", CELTIC)]}, **IN_BATTLE),
                  ev("activated", player=0, card="c", effect_type="ignition")],
                 "EFF-02", "an Ignition Effect is activated in your own Main Phase", "ignition", id="eff-02-ignition"),
    pytest.param([position({"szone": [card("sg", STARGAZER)]}, **IN_BATTLE),
                  ev("activated", player=0, card="sg", effect_type="pendulum")],
                 "PEND-02", "a Pendulum Effect is activated in your own Main Phase", "pendulum", id="pend-02-effect"),
])
def test_sps_05_xyz_01_spell_02_eff_02_pend_02_refusals_name_what_was_played_in_plain_words_refused(
        events: list, rule: str, says: str, word: str) -> None:
    """SPS-05, XYZ-01, SPELL-02, EFF-02, PEND-02: each refused as before, now saying "an Xyz
    Summon", "an Equip Spell", "an Ignition Effect", "a Pendulum Effect" (before: "a xyz Summon",
    "a Xyz Summon", "a equip Spell", "an ignition effect", "an pendulum effect"), and no
    translation keeps the English word (before: "equip魔法")."""
    v = refused_with(events, rule, says)
    said = said_in_every_language(v.message)
    assert all(word not in text.lower() for text in said.values()), said


def test_pend_03_a_pendulum_summon_with_no_player_in_the_opponents_turn_refused_as_not_their_turn() -> None:
    """PEND-03, PRIO-06: player 0's Pendulum Summon of Celtic Guardian from their own hand, recorded
    with no player, in player 1's turn: refused, it is not their turn. Before: refused saying both
    Pendulum Zones need a card (player 1's were read, player 1 taken as the summoner), though
    player 0's Scales are set. In player 0's turn with no player: legal."""
    no_player = {k: v for k, v in PEND_SUMMON.items() if k != "player"}
    refused_with([pendulum_board(1), no_player], "PEND-03", "it is not their turn")
    assert fold(pendulum_board(0), no_player).cards["celtic"].zone == "mzone"


# == BATTLE-12: a renamed card keeps the Flip effect its attack passed ================================

MAN_EATER_DESTROYED = [*TO_DAMAGE_STEP, calc(["meb"], (0, 0)),
                       ev("card_moved", card="meb", to=[1, "gy"], reason="battle"), step("battle")]


def test_battle_12_a_passed_flip_effect_of_a_renamed_card_refused() -> None:
    """BATTLE-12: Man-Eater Bug, flipped by Vorse Raider's attack, did not activate its Flip effect
    in that Damage Step; a view then renames it (``DuelState.rename_card``, as when it goes where
    the viewer cannot follow it); its Flip effect under the new id: refused BATTLE-12, as under the
    old one. Before: accepted (the passed mark was left under the old id)."""
    refused_with([*MAN_EATER_DESTROYED, MAN_EATER], "BATTLE-12", "that Damage Step has ended")
    state = fold(*MAN_EATER_DESTROYED)
    state.rename_card("meb", "meb2")
    with pytest.raises(RuleViolation) as info:
        apply(state, from_dict({**MAN_EATER, "card": "meb2"}))
    assert info.value.rule == "BATTLE-12" and "that Damage Step has ended" in info.value.message
    assert state.cards["meb2"].zone == "gy"
