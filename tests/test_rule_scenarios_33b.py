"""Duel scenarios a second head judge rules on (issue 25, seventeenth pass: judge17b), after
judge17's (``test_rule_scenarios_33``): its two open rulings decided.

judge17's rulings reviewed and upheld, against the official rules and EDOPro's core: SPS-11 (a
summon both players passed on has succeeded: the core's summon window is one chain point),
WIN-01/04 (a player at 0 LP loses at once: the core checks the win between Chain Links, so only
one effect's damage to both players is a draw), PEND-01 (a Pendulum card whose activation was
negated goes to the GY: ``send_to`` redirects to the Extra Deck only without
``STATUS_ACTIVATE_DISABLED``), SPELL-07 (an Equip whose monster left goes at once) and NIS-06 (a
mandatory trigger never misses the timing: the core offers every ``TRIGGER_F``).

Let through though illegal:

* SPS-11, TRAP-06: while a summon is attempted only an effect that negates a summon is activated
  (Solemn Judgment, Black Horn of Heaven, Thunder King Rai-Oh); EDOPro's summon opens a chain
  point that skips free-chain effects and triggers, offering only effects answering
  ``EVENT_SUMMON``, ``EVENT_SPSUMMON`` or ``EVENT_FLIP_SUMMON``. Any other activation (Mystical
  Space Typhoon) means the summon has succeeded, so a Solemn Judgment chained to it negated the
  summoned monster, in a record that states no passes or before both had passed. Now the first
  link decides: its script's events, or without a script its kind (a Spell Card's activation, an
  Ignition, trigger or FLIP effect never negates a summon; a Trap Card or a Quick Effect may).
  At the table the negation is kept and flagged.
* BATTLE-06: a replay is the Battle Step's: in the Damage Step a change of the opponent's
  monsters makes none (EDOPro sets ``attack_rollback`` only outside the Damage Step). An attack
  retargeted there, or called off while both monsters were still in the battle, was accepted.

Refused though legal:

* BATTLE-06: a direct attack goes on when a monster is Special Summoned to the defender's field
  in the Damage Step; its damage calculation was refused as a replay owed. Whether one was owed
  is now settled as the Damage Step begins. And an attack that stopped in the Damage Step (its
  target destroyed) was counted as forfeited in a replay (BATTLE-07): it was made (BATTLE-03).
"""
from __future__ import annotations

import msgpack
from test_rule_scenarios_27 import ev
from test_rule_scenarios_28 import passed
from test_rule_scenarios_33 import NEGATE, NOT_NOW, SOLEMN_, SUMMON, SUMMONING, solemn_resolves, witnessed
from test_rules_battle import attack, battle, battle_damage, calc, mon, step

from duel import (
    BATTLE_OX, CARDS, CELTIC, KURIBOH, MST, SOLEMN, TRAP_HOLE, UTOPIA, VORSE, fold, position, refused_with)
from ygoreplay.cards import CardDB, CardFacts
from ygoreplay.effect_facts import EffectFact
from ygoreplay.state import DuelState

# == SPS-11, TRAP-06: before a summon succeeds, only an effect that negates a summon ================

P0_MST = ev("activated", player=0, card="mst", zone=0, targets=["p1_mst"])


def test_sps_11_solemn_chained_to_a_spell_right_after_the_summon_cannot_negate_it() -> None:
    """SPS-11: player 0 summons Celtic Guardian and at once activates Mystical Space Typhoon (the
    record states no passes): a Quick-Play Spell negates no summon, so the summon has succeeded,
    and player 1's Solemn Judgment chained to it cannot negate it. Before: Celtic Guardian was
    negated and sent to the GY."""
    refused_with([SUMMONING, SUMMON, P0_MST, SOLEMN_, ev("chain_link_resolved", link=2), NEGATE],
                 "SPS-11", NOT_NOW)


SET_TRAP = position({"hand": [{"code": CELTIC, "id": "celtic"}],
                     "szone": [{"code": TRAP_HOLE, "id": "p0_set", "position": "set"}]},
                    {"szone": [{"code": SOLEMN, "id": "solemn", "position": "set"},
                               {"code": MST, "id": "p1_mst", "position": "set"}]})


def test_sps_11_the_opponents_speed_2_answer_means_the_summon_succeeded() -> None:
    """SPS-11, PRIO-03: player 0 summons and passes; player 1, holding priority, activates
    Mystical Space Typhoon on player 0's Set card instead of negating. Player 0 passes and player 1
    chains Solemn Judgment: too late for the summon. Before: only both players' passes closed its
    window, and one had been made."""
    p1_mst = ev("activated", player=1, card="p1_mst", targets=["p0_set"])
    refused_with([SET_TRAP, SUMMON, passed(0), p1_mst, passed(0), SOLEMN_, *solemn_resolves(2), NEGATE],
                 "SPS-11", NOT_NOW)


def test_sps_11_a_witnessed_negation_chained_to_a_spell_is_flagged_and_kept() -> None:
    """At the table the negation played stands, flagged SPS-11: Celtic Guardian is in the GY."""
    state = witnessed(SUMMONING, SUMMON, P0_MST, SOLEMN_, ev("chain_link_resolved", link=2), NEGATE)
    assert [f.rule for f in state.flags] == ["SPS-11"] and state.cards["celtic"].zone == "gy"


def test_sps_11_a_counter_trap_answering_the_summon_with_no_passes_recorded_negates_it() -> None:
    """TRAP-06: with no passes in the record, Solemn Judgment as the first link answers the summon
    and negates it (a guard: legal before and after)."""
    state = fold(SUMMONING, SUMMON, SOLEMN_, ev("chain_link_resolved", link=1), NEGATE)
    assert state.cards["celtic"].zone == "gy" and state.sides[0].summon_negated_turn == 2


# -- what the scripts say: the events the first link answers ----------------------------------------

VEILER, RAI_OH = 990201, 71564252     # this file's own Quick Effect monster (free chain); Thunder King Rai-Oh
CARDS_HERE = CARDS.merged(CardDB([
    CardFacts(code=VEILER, name="Test Veiler", type=0x21, level=1, atk=0),
    CardFacts(code=RAI_OH, name="Thunder King Rai-Oh", type=0x21, level=4, atk=1900, defense=800)]))
#: As ``card_scripts`` reads them: Solemn Judgment answers the summons themselves (and activations),
#: Mystical Space Typhoon and the Veiler are free-chain, Rai-Oh answers a Special Summon.
SCRIPTS = CARDS_HERE.with_effects({
    SOLEMN: tuple(EffectFact(("activate",), code, (), ("disable_summon", "destroy"))
                  for code in ("EVENT_SUMMON", "EVENT_FLIP_SUMMON", "EVENT_SPSUMMON", "EVENT_CHAINING")),
    MST: (EffectFact(("activate",), "EVENT_FREE_CHAIN", ("card_target",), ("destroy",)),),
    VEILER: (EffectFact(("quick_o",), "EVENT_FREE_CHAIN", ("card_target",), ("disable",)),),
    RAI_OH: (EffectFact(("quick_o",), "EVENT_SPSUMMON", (), ("disable_summon", "destroy")),)})

QUICK = position({"hand": [{"code": CELTIC, "id": "celtic"}]},
                 {"mzone": [mon("veiler", VEILER), mon("rai_oh", RAI_OH)],
                  "szone": [{"code": SOLEMN, "id": "solemn", "position": "set"}]})
VEILED = ev("activated", player=1, card="veiler", effect_type="quick", targets=["celtic"])


def test_sps_11_a_free_chain_quick_effect_by_its_script_means_the_summon_succeeded() -> None:
    """SPS-11: the Veiler's Quick Effect is free-chain (its script): activated on the summoned
    Celtic Guardian, it says the summon succeeded, and Solemn Judgment chained to it negates no
    summon. Before: negated."""
    negating = [QUICK, SUMMON, VEILED, SOLEMN_, ev("chain_link_resolved", link=2), NEGATE]
    refused_with(negating, "SPS-11", NOT_NOW, cards=SCRIPTS)


def test_sps_11_a_quick_effect_without_a_script_is_left_to_the_record() -> None:
    """SPS-11: without its script a Quick Effect may be one that negates a summon (Rai-Oh's), so
    the record is followed (a guard: legal before and after); with the scripts, Solemn Judgment
    as the first link still negates."""
    fold(QUICK, SUMMON, VEILED, SOLEMN_, ev("chain_link_resolved", link=2), NEGATE, cards=CARDS_HERE)
    state = fold(QUICK, SUMMON, SOLEMN_, ev("chain_link_resolved", link=1), NEGATE, cards=SCRIPTS)
    assert state.cards["celtic"].zone == "gy"


XYZ = position({"mzone": [mon("ox", BATTLE_OX), mon("vorse", VORSE)], "extra": [{"code": UTOPIA, "id": "utopia"}]},
               {"mzone": [mon("rai_oh", RAI_OH)]})


def test_sps_11_a_quick_effect_answering_the_summon_negates_it_whatever_kind_the_record_names() -> None:
    """SPS-11: player 0 Xyz Summons Utopia; player 1's Thunder King Rai-Oh answers the Special
    Summon (its script: a Quick Effect on ``EVENT_SPSUMMON``) and negates it, recorded as a trigger
    as EDOPro's importer guesses a kind from when it was activated (a guard: legal before and
    after)."""
    state = fold(XYZ, ev("special_summoned", player=0, card="utopia", zone=2, method="xyz", materials=["ox", "vorse"]),
                 ev("activated", player=1, card="rai_oh", effect_type="trigger",
                    costs=[{"card": "rai_oh", "to": "gy"}]),
                 ev("chain_link_resolved", link=1), ev("summon_negated", card="utopia", cause="rai_oh"),
                 cards=SCRIPTS)
    assert state.cards["utopia"].zone == "gy"


# == BATTLE-06: no replay in the Damage Step ========================================================

DIRECT = battle([mon("vorse", VORSE)], [], p1={"hand": [{"code": KURIBOH, "id": "kb"}]})
KB_ARRIVES = ev("special_summoned", player=1, card="kb", zone=0, cause="kb")


def test_battle_06_a_direct_attack_goes_on_when_a_monster_comes_in_the_damage_step() -> None:
    """BATTLE-06: Vorse Raider attacks directly; in the Damage Step player 1 Special Summons
    Kuriboh: no replay, the direct attack goes on and deals 1900. Before: refused as a replay owed."""
    state = fold(DIRECT, attack("vorse"), step("damage"), KB_ARRIVES, calc((), (0, 1900)),
                 battle_damage(1, 1900), step("battle"))
    assert state.sides[1].lp == 6100 and state.cards["kb"].zone == "mzone"


def test_battle_06_a_monster_that_came_in_the_battle_step_still_owes_the_replay() -> None:
    """BATTLE-06: the same Kuriboh Special Summoned in the Battle Step, before the Damage Step:
    a replay was owed, and the Damage Step is not entered without it (judge20: refused as it
    begins, no longer only at the direct damage calculation)."""
    refused_with([DIRECT, attack("vorse"), KB_ARRIVES, step("damage")], "BATTLE-06", "a replay")


ON_OX = battle([mon("vorse", VORSE)], [mon("ox", BATTLE_OX)], p1={"hand": [{"code": KURIBOH, "id": "kb"}]})
KB_BESIDE = {**KB_ARRIVES, "zone": 1}
NO_REPLAY = "there is no replay in the Damage Step"


def test_battle_06_no_retarget_in_the_damage_step() -> None:
    """BATTLE-06: Vorse Raider attacks Battle Ox; Kuriboh comes in the Damage Step: the attack
    is not moved to it. Before: accepted as a replay."""
    refused_with([ON_OX, attack("vorse", "ox"), step("damage"), KB_BESIDE, ev("attack_retargeted", target="kb")],
                 "BATTLE-06", NO_REPLAY)


def test_battle_06_no_calling_off_in_the_damage_step_while_the_battle_goes_on() -> None:
    """BATTLE-06: nor is the attack called off without an effect while both monsters are still in
    the battle. Before: accepted as a replay's choice."""
    refused_with([ON_OX, attack("vorse", "ox"), step("damage"), KB_BESIDE, ev("attack_cancelled")],
                 "BATTLE-06", NO_REPLAY)


def test_battle_03_an_attack_stopped_in_the_damage_step_was_made_not_forfeited() -> None:
    """BATTLE-03: Battle Ox destroyed in the Damage Step: the battle stops (recorded as called
    off) and Vorse Raider has attacked: attacking again is BATTLE-03, not a forfeit in a replay.
    Before: BATTLE-07."""
    stopped = [ON_OX, attack("vorse", "ox"), step("damage"),
               ev("card_moved", card="ox", to=[1, "gy"], reason="destroyed", cause="x"), ev("attack_cancelled"),
               step("battle")]
    assert fold(*stopped).attack is None
    refused_with([*stopped, attack("vorse")], "BATTLE-03", "has already attacked")


def test_battle_06_a_witnessed_retarget_in_the_damage_step_is_flagged_and_kept() -> None:
    """At the table the attack moved to Kuriboh stands, flagged BATTLE-06."""
    state = witnessed(ON_OX, attack("vorse", "ox"), step("damage"), KB_BESIDE, ev("attack_retargeted", target="kb"))
    assert [f.rule for f in state.flags] == ["BATTLE-06"] and state.attack.target == "kb"


def test_battle_06_whether_a_replay_was_owed_survives_a_snapshot() -> None:
    """A snapshot taken in the Damage Step keeps what the Battle Step left (the replay owed); one
    stored before it was kept reads as not settled, and the monsters decide as before."""
    state = witnessed(DIRECT, attack("vorse"), KB_ARRIVES, step("damage"))   # flagged BATTLE-06, kept
    data = msgpack.unpackb(msgpack.packb(state.to_data()))
    assert DuelState.from_data(data, CARDS).attack.replay_owed is True
    data["attack"] = data["attack"][:6]
    assert DuelState.from_data(data, CARDS).attack.replay_owed is None
