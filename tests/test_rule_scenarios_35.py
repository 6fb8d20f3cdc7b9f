"""Duel scenarios a head judge rules on (issue 25, nineteenth pass: judge19), recorded as a
table's recorder writes them: the leftovers of the eighteenth pass settled.

Let through though illegal:

* EFF-05 ("a trigger on any flip face-up (Flip Summon, attacked, effect)"): the fold kept which
  monsters were flipped this turn, not how many of their Flip effects were used. Man-Eater Bug,
  Flip Summoned once, destroyed Battle Ox with its Flip effect and then Celtic Guardian with a
  second activation in a new chain: accepted. Now each flip triggers each Flip effect once (as
  many as its script declares ``FLIP`` effects; one unread: no card text holds two "FLIP:"); a
  monster flipped again (turned face-down between) activates again, and one destroyed by the
  attack that flipped it counts its activations from the GY too. The EDOPro importer, which
  called every Chain Link 1 activation of a flipped Flip monster on the field a Flip effect, now
  calls only the first after each flip one.
* NIS-03 ("start of the Damage Step → before damage calculation → damage calculation → after
  damage calculation → end of the Damage Step"), BATTLE-02 ("declare an attack ... Then go to the
  Damage Step and back"): an attack whose battle went on (both monsters still in it, not negated)
  left the Damage Step for the Battle Step, the End Step, Main Phase 2 or the End Phase with no
  damage calculation, and an attack declared in the Battle Step was left for the End Step or Main
  Phase 2 with no Damage Step: all accepted (the eighteenth pass left it: "the record does not
  say why"). The record does say why: a negation is ``attack_cancelled`` with its cause, and a
  monster that left is a move; with neither, the damage calculation is owed.
* XMAT-02 ("Xyz materials are not cards on the field"; ZONE-16, CONF-23): an activation
  targeting an Xyz material (Monster Reborn on the monster under Number 39: Utopia) was accepted:
  only the hidden zones and face-down banished cards were judged as targets.

Probed and found right (kept out of the suite: they pass on the baseline): a Flip effect after a
flip by an effect (``position_changed`` with a cause) or a Flip Summon, after a flip face-up, Book
of Moon and a second flip (twice), a second Flip effect chained as Chain Link 2 without
``simultaneous`` (CHAIN-02); the attacked monster banished at the start of the Damage Step, then
the Battle Step, the End Step or Main Phase 2 (accepted), and damage calculated after it left
(BATTLE-06), an attack negated in the Damage Step (``attack_cancelled`` with a cause) or the
Battle Step then the End Step (accepted), one called off in the Damage Step without a cause
(BATTLE-06), the attacker turned to Defense Position in the Damage Step then the Battle Step
(accepted); an Xyz material turned to Defense Position (POS-01), taken by a control change
(CTRL-02), attacked (BATTLE-02), detached as a cost to the GY (accepted) or banished (NIS-05),
sent to the GY with its Xyz monster (NIS-05), and Monster Reborn on it once there (accepted).
"""
from __future__ import annotations

from test_rule_scenarios_27 import ev
from test_rule_scenarios_33 import witnessed
from test_rules_battle import mon

from duel import BATTLE_OX, CARDS, CELTIC, MONSTER_REBORN, MST, UTOPIA, VORSE, fold, position, refused_with
from ygoreplay.effect_facts import EffectFact

MAN_EATER = 54652250                              # Man-Eater Bug: "FLIP: Target 1 monster on the field; destroy it."

# == EFF-05: one flip, one activation of each Flip effect ==========================================

FLIP_BOARD = position({"mzone": [mon("meb", MAN_EATER, "set")]},
                      {"mzone": [mon("ox", BATTLE_OX), mon("cel", CELTIC)]}, turn=4)


def eats(target: str, **fields) -> dict:
    return ev("activated", player=0, card="meb", effect_type="flip", targets=[target], **fields)


def eaten(target: str) -> list[dict]:
    return [ev("chain_link_resolved", link=1),
            ev("card_moved", card=target, to=[1, "gy"], reason="destroyed", cause="meb"), ev("chain_ended")]


FLIP_SUMMON = ev("flip_summoned", player=0, card="meb")
ONCE_MORE = "its Flip effect was activated for each flip already"


def test_eff_05_one_flip_triggers_a_flip_effect_once() -> None:
    """EFF-05: Man-Eater Bug is Flip Summoned and destroys Battle Ox with its Flip effect; a
    second activation of it (on Celtic Guardian) has no flip to answer. Before: accepted, the
    monster kept as flipped this turn for any number of activations."""
    state = fold(FLIP_BOARD, FLIP_SUMMON, eats("ox"), *eaten("ox"))
    assert state.cards["ox"].zone == "gy"
    refused_with([FLIP_BOARD, FLIP_SUMMON, eats("ox"), *eaten("ox"), eats("cel")], "EFF-05", ONCE_MORE)


def test_eff_05_a_second_flip_triggers_it_again() -> None:
    """EFF-05: flipped face-up by an effect, Man-Eater Bug destroys Battle Ox; turned face-down by
    Book of Moon and flipped face-up again by an effect, its Flip effect is activated again (the
    second flip's), and a third activation after it is refused."""
    again = [ev("position_changed", card="meb", position="set", cause="book"),
             ev("position_changed", card="meb", position="defense", cause="turn")]
    flipped = [FLIP_BOARD, ev("position_changed", card="meb", position="defense", cause="turn"), eats("ox"),
               *eaten("ox"), *again, eats("cel")]
    assert fold(*flipped).chain[0].targets == ("cel",)
    refused_with([*flipped, *eaten("cel"), eats("cel")], "EFF-05", ONCE_MORE)


def test_eff_05_a_script_with_two_flip_effects_activates_both_for_one_flip() -> None:
    """EFF-05: Man-Eater Bug given (for this test) two Flip effects by its script: one flip
    triggers both, the second chained to the first as a simultaneous trigger (CHAIN-08); a third
    activation is refused."""
    flip = EffectFact(("single", "flip"), "", ("card_target",))
    two = CARDS.with_effects({MAN_EATER: (flip, flip)})
    both = [FLIP_BOARD, FLIP_SUMMON, eats("ox"), eats("cel", link=2, simultaneous=True)]
    assert [link.card for link in fold(*both, cards=two).chain] == ["meb", "meb"]
    refused_with([*both, eats("ox", link=3, simultaneous=True)], "EFF-05", ONCE_MORE, cards=two)


def test_eff_05_destroyed_by_the_attack_that_flipped_it_it_activates_once() -> None:
    """EFF-05, BATTLE-12: player 1's Set Man-Eater Bug is attacked by Vorse Raider, flipped and
    destroyed by battle; after damage calculation its Flip effect is activated from the GY and
    destroys Vorse Raider. A second activation (on Battle Ox) has no flip to answer. Before:
    accepted (only a Flip effect on the field was counted)."""
    board = position({"mzone": [mon("vorse", VORSE), mon("ox", BATTLE_OX)]}, {"mzone": [mon("meb", MAN_EATER, "set")]},
                     turn=4)
    battle = [ev("phase_entered", phase="battle"), ev("step_entered", step="battle"),
              ev("attack_declared", player=0, attacker="vorse", target="meb"), ev("step_entered", step="damage"),
              ev("damage_calculated", destroyed=["meb"], damage=[0, 0]),
              ev("card_moved", card="meb", to=[1, "gy"], reason="battle")]
    bites = [ev("activated", player=1, card="meb", effect_type="flip", targets=["vorse"]),
             ev("chain_link_resolved", link=1),
             ev("card_moved", card="vorse", to=[0, "gy"], reason="destroyed", cause="meb"), ev("chain_ended")]
    assert fold(board, *battle, *bites).cards["vorse"].zone == "gy"
    refused_with([board, *battle, *bites, ev("activated", player=1, card="meb", effect_type="flip", targets=["ox"])],
                 "EFF-05", ONCE_MORE)


# == NIS-03, BATTLE-02: an attack that goes on owes its damage calculation =========================

BATTLE = position({"mzone": [mon("vorse", VORSE)]}, {"mzone": [mon("ox", BATTLE_OX)]}, turn=4)
DECLARED = [ev("phase_entered", phase="battle"), ev("step_entered", step="battle"),
            ev("attack_declared", player=0, attacker="vorse", target="ox")]
DAMAGE_STEP = [*DECLARED, ev("step_entered", step="damage")]
NO_CALCULATION = "goes on: the Damage Step runs from its start through damage calculation to its end"
NO_DAMAGE_STEP = "it goes to the Damage Step and back"


def test_nis_03_the_damage_step_is_not_left_before_damage_calculation() -> None:
    """NIS-03: Vorse Raider attacks Battle Ox; in the Damage Step nothing happens, and the record
    goes back to the Battle Step, on to the End Step, Main Phase 2 or the End Phase: refused, the
    battle still had both its monsters. Before: all accepted, no damage ever calculated. Battle Ox
    banished at the start of the Damage Step, or the attack negated there, it ends with no damage
    calculation: legal (a probe that held)."""
    for leaving in (ev("step_entered", step="battle"), ev("step_entered", step="end"),
                    ev("phase_entered", phase="main2"), ev("phase_entered", phase="end")):
        refused_with([BATTLE, *DAMAGE_STEP, leaving], "NIS-03", NO_CALCULATION)
    # the attack stopped (BATTLE-06): Battle Ox banished by an effect at the start of the Damage
    # Step, or the attack negated (``attack_cancelled`` with its cause): no damage calculation
    gone = ev("card_moved", card="ox", to=[1, "banished"], reason="banished", cause="effect")
    assert fold(BATTLE, *DAMAGE_STEP, gone, ev("step_entered", step="end")).attack is None
    negated = ev("attack_cancelled", player=0, cause="negate")
    assert fold(BATTLE, *DAMAGE_STEP, negated, ev("step_entered", step="battle")).step == "battle"


def test_nis_03_a_direct_attack_owes_its_damage_calculation_too() -> None:
    """NIS-03: a direct attack in the Damage Step, left for the End Step: refused. Before: accepted."""
    alone = position({"mzone": [mon("vorse", VORSE)]}, turn=4)
    direct = [ev("phase_entered", phase="battle"), ev("step_entered", step="battle"),
              ev("attack_declared", player=0, attacker="vorse"), ev("step_entered", step="damage")]
    refused_with([alone, *direct, ev("step_entered", step="end")], "NIS-03", NO_CALCULATION)


def test_battle_02_a_declared_attack_goes_to_the_damage_step() -> None:
    """BATTLE-02: Vorse Raider's attack is declared, and the record goes on to the End Step or
    Main Phase 2 with no Damage Step: refused. Before: accepted. Negated in the Battle Step
    (Negate Attack's "negate the attack, then end the Battle Phase"), or after a replay (Battle Ox
    left the field: the turn player may call the attack off, BATTLE-06), it is legal."""
    refused_with([BATTLE, *DECLARED, ev("step_entered", step="end")], "BATTLE-02", NO_DAMAGE_STEP)
    refused_with([BATTLE, *DECLARED, ev("phase_entered", phase="main2")], "BATTLE-02", NO_DAMAGE_STEP)
    negated = [ev("attack_cancelled", player=0, cause="negate"), ev("step_entered", step="end")]
    assert fold(BATTLE, *DECLARED, *negated).step == "end"
    replay = [ev("card_moved", card="ox", to=[1, "gy"], reason="destroyed", cause="effect"),
              ev("phase_entered", phase="main2")]
    assert fold(BATTLE, *DECLARED, *replay).phase == "main2"


def test_nis_03_a_witnessed_skipped_damage_calculation_is_flagged_and_kept() -> None:
    """At the table the battle left as played stands, flagged NIS-03."""
    state = witnessed(BATTLE, *DAMAGE_STEP, ev("step_entered", step="battle"))
    assert [f.rule for f in state.flags] == ["NIS-03"] and state.step == "battle" and state.attack is None


# == XMAT-02: an Xyz material is not targeted ======================================================

XYZ = position({"hand": [{"code": MONSTER_REBORN, "id": "reborn"}, {"code": MST, "id": "mst"}]},
               {"mzone": [{"code": UTOPIA, "id": "uto", "position": "attack",
                           "materials": [{"code": CELTIC, "id": "m1"}, {"code": BATTLE_OX, "id": "m2"}]}]}, turn=4)
MATERIAL = "is an Xyz material: Xyz materials are not cards on the field, and it cannot be targeted"


def test_xmat_02_an_xyz_material_is_not_targeted() -> None:
    """XMAT-02: Monster Reborn activated targeting Celtic Guardian, an Xyz material under player
    1's Utopia: refused, a material is no card on the field (nor in the GY). Before: accepted.
    Utopia itself is targeted (Mystical Space Typhoon's activation is judged on its own), and once
    Utopia is destroyed its materials are in the GY (NIS-05), where Monster Reborn targets one."""
    refused_with([XYZ, ev("activated", player=0, card="reborn", zone=0, targets=["m1"])], "XMAT-02", MATERIAL)
    state = fold(XYZ, ev("card_moved", card="uto", to=[1, "gy"], reason="destroyed", cause="effect"),
                 ev("activated", player=0, card="reborn", zone=0, targets=["m1"]))
    assert state.cards["m1"].zone == "gy" and state.chain[0].targets == ("m1",)
