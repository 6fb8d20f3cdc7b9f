"""Duel scenarios a head judge rules on (issue 25, twenty-fourth pass, second file: judge24): the
Flip effect of a monster an attack flipped face-up, and the Damage Step it belongs to.

Let through though illegal, now right:

* BATTLE-12, EFF-05 (an attacked face-down monster is flipped before damage calculation; its Flip
  effect activates after damage calculation, in that Damage Step): Test Flipper, Set and attacked,
  destroyed by the battle, activated its Flip effect once the Damage Step had ended (in the next
  Battle Step, or in Main Phase 2): accepted (the effect's flip was counted for the whole turn).
  Now refused, BATTLE-12. In the Damage Step after damage calculation, before or after it has
  gone to the GY: legal as before.

Probed and found right, each as a recorded event sequence (kept out of the suite: they pass on
main; legal accepted, illegal refused with the ID): BATTLE-12 Man-Eater Bug's Flip effect before
damage calculation (refused), after it (legal); EFF-05 a Flip effect after its Flip Summon (legal),
left behind by a new phase (refused); PEND-03 a Pendulum Summon from the hand to an Extra Monster
Zone (ZONE-03), of a face-down Extra Deck Pendulum, with one Pendulum Scale, in the Battle Phase
(refused); ZONE-04 two monsters from the face-up Extra Deck to both Extra Monster Zones (refused);
NIS-01 a Link Summon to a Main Monster Zone no arrow points to (refused), to one Link Spider in the
Extra Monster Zone points to (legal), Link Spider used as material for one in its own Extra
Monster Zone (legal); TOKEN-02 a Token used as Link Material then targeted in the GY (LOG-01, gone),
returned to the Deck or hand or banished (vanishes: legal); XYZ-02 two Tokens as Xyz materials
(refused). The 100 real EDOPro duels fold with no violation: none before, none after.

Left for a later pass: a mandatory Flip effect an attack gave and that was never activated is not
called when its Damage Step ends (GEN-03 is not judged in the Damage Step: BATTLE-09's own rules).
"""
from __future__ import annotations

import pytest

from test_rule_scenarios_27 import ev
from test_rule_scenarios_40 import witnessed
from test_rules_battle import DAMAGE, attack, calc, mon, step, to_gy
from test_rules_card_text import FLIPPER, TEXT

from duel import BATTLE_OX, VORSE, fold, position

#: Vorse Raider (1900 ATK) attacks player 1's Set Test Flipper (1000 DEF, "FLIP: ..."), destroying it.
FLIPPED = [position({"mzone": [mon("vorse", VORSE), mon("ox", BATTLE_OX)]}, {"mzone": [mon("flipper", FLIPPER, "set")]},
                    turn=3),
           ev("phase_entered", phase="battle"), step("battle"), attack("vorse", "flipper"), DAMAGE,
           calc(["flipper"], [0, 0])]
FLIP_EFFECT = ev("activated", player=1, card="flipper", effect_type="flip")


@pytest.mark.parametrize("later", [
    pytest.param([step("battle")], id="next-battle-step"),
    pytest.param([step("battle"), ev("phase_entered", phase="main2")], id="main-phase-2"),
])
def test_battle_12_a_flip_effect_after_the_damage_step_of_its_attack_refused(later: list) -> None:
    """BATTLE-12, EFF-05: Test Flipper, flipped by Vorse Raider's attack and destroyed by it,
    activates its Flip effect once that Damage Step has ended: refused, BATTLE-12. Before:
    accepted. In the Damage Step after damage calculation, before or after it went to the GY: legal.
    (That Damage Step's end, its mandatory Flip effect never activated, is itself EFF-05 since
    ``test_rule_scenarios_46``: at the table both are flagged, the late activation BATTLE-12.)"""
    state = witnessed(*FLIPPED, to_gy("flipper", 1), *later, FLIP_EFFECT, cards=TEXT)
    assert [(f.index, f.rule) for f in state.flags] == [(len(FLIPPED) + 1, "EFF-05"),
                                                        (len(FLIPPED) + 1 + len(later), "BATTLE-12")]
    assert "that Damage Step has ended" in state.flags[-1].message
    assert fold(*FLIPPED, FLIP_EFFECT, cards=TEXT).chain[0].card == "flipper"
    assert fold(*FLIPPED, to_gy("flipper", 1), FLIP_EFFECT, cards=TEXT).chain[0].card == "flipper"
