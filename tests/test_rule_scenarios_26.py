"""Rule scenarios for the catalogue IDs the code cites and no test did (issue 25, tenth pass).

RIT-03 / FUS-03 first: they are judged at the summon now, not at the activation (a Ritual Spell
may resolve and summon nothing, and a record need not show it leaving nor the chain's end: an
activation after it was refused, legal as it was; a summon after an interrupting chain that had
resolved was accepted). Then one scenario per game rule the fold follows under another ID
(coverage.py says which): the legal play is accepted, the illegal one refused with the ID that
forbids it, and the test says which. Then the CONF-nn choices the engine has made, each shown by
the play its reading allows and the one it refuses.

No test here, and why (coverage.py's rows say the same): card text the engine cannot read
(GEN-04, GEN-06, TURN-03, TURN-08, FUS-04, SYN-02, BATTLE-13, CHAIN-09, POS-05's refusal);
outside the record (CARD-02, DECK-11..13, MATCH-11..13, PEN-01, PEN-03, SETUP-03, TERM-15,
MR-00..02, NIS-09); recorded only, with nothing a record can break without also breaking a rule
tested elsewhere (TERM-01, TERM-02, TERM-06, TERM-09, TERM-11, MATCH-09, TIME-01); not yet
(TIME-06: sudden death is the match's, CONF-05 not chosen); data, not a check (CARD-05, NIS-07,
NIS-08, MR-05). Of the CONF-nn choices, those whose reading decides a play are shown here; the
others name the rule whose own tests show it (CONF-04, 07, 12, 20, 23, 27, 31, 32, 34) or
are not chosen (CONF-02, 05, 06, 13, 14, 18, 22, 24, 28, 29, 30).
"""
from __future__ import annotations

import pytest
from test_rule_scenarios_25 import JAMMER, P1_TRAPS, RITUAL_BOARD, RITUAL_START
from test_rule_review_25 import FUSION_BOARD, MST_ON_JAMMER, RITUAL_GONE
from test_rules_battle import OX, VORSE_, attack, battle, calc, mon
from test_rules_chain import board as chain_board
from test_rules_summon import SYNCHRO, TO_GY, TUNED, monster_set, negate, special, summon
from test_rules_summon import board as summon_board
from test_rules_turn import SEVEN_IN_HAND, discard, draw, phase, step, turn_started
from test_rules_zones import MOVE_BOARD
from test_special_summons import (
    DESTROY_CELTIC, EQUIP_AXE, LIMITS, THOUSAND_DRAGON, act, board, c, check, fold, fuse, moved, resolved, ritual,
    ss)

from duel import BATTLE_OX, CELTIC, DARK_MAGICIAN, GIANT_SOLDIER, KURIBOH, MST, MYSTICAL_ELF, SUMMONED_SKULL, VORSE

#: Player 1's turn 3 up to its Main Phase 1, after player 0's turn 2 (no chain_ended recorded).
NEXT_TURN = [phase("end"), turn_started(1, 3), phase("draw"), draw(1), phase("standby"), phase("main1")]
DESTROY_JAMMER = moved("jammer", [1, "gy"], "destroyed", cause="mst")
REVIVE_VORSE = ss("vorse", 3, cause="x")


# == RIT-03 / FUS-03: judged at the summon =========================================================

@pytest.mark.parametrize("events", [
    pytest.param([MST_ON_JAMMER], id="summoned-nothing-its-leaving-unrecorded"),
    pytest.param([*NEXT_TURN, JAMMER], id="summoned-nothing-then-the-next-turn"),
    pytest.param([ritual("dm", "kuriboh"), *NEXT_TURN, JAMMER], id="summoned-last-turn-its-leaving-unrecorded"),
])
def test_rit_03_a_resolved_ritual_spell_holds_nothing_back_its_record_may_omit_leaving(events: list[dict]) -> None:
    """RIT-03: Black Luster Ritual resolved; the record shows neither it going to the GY (SPELL-04)
    nor the chain's end. If it summoned nothing (its Tributes or monster gone in response), its
    resolution ended at once; if it summoned in turn 2, turn 3 is long past it. Each activation
    here is legal; all three were refused as RIT-03 before (judged at the activation)."""
    state = fold(*RITUAL_START, *events)
    assert len(state.chain) == 1 and state.chain[0].card == events[-1]["card"]


def test_rit_03_an_activation_then_the_ritual_summon_it_interrupted_refused() -> None:
    """RIT-03: the same activation followed by the Ritual Summon of the resolved Spell proves it
    came during the resolution: the summon is refused, naming it."""
    check([*RITUAL_START, MST_ON_JAMMER, ritual("dm", "kuriboh")], "RIT-03", "Chain Link 1 (mst) was activated after")


@pytest.mark.parametrize("start, events, summon, rule, says", [
    pytest.param(RITUAL_START, [MST_ON_JAMMER, resolved(), DESTROY_JAMMER], ritual("dm", "kuriboh"), "RIT-03",
                 "mst was activated after it began to resolve", id="ritual-after-a-resolved-spell"),
    pytest.param(RITUAL_START, [act("p1_kuriboh", player=1, effect_type="trigger"), resolved()],
                 ritual("dm", "kuriboh"), "RIT-03", "p1_kuriboh was activated after",
                 id="ritual-after-a-resolved-trigger"),
    pytest.param([board(FUSION_BOARD, P1_TRAPS), act("poly", zone=0), resolved()],
                 [MST_ON_JAMMER, resolved(), DESTROY_JAMMER], fuse("hand_celtic", "ox"), "FUS-03",
                 "mst was activated after it began to resolve", id="fusion-after-a-resolved-spell"),
])
def test_rit_03_fus_03_a_summon_after_an_interrupting_chain_resolved_refused(
        start: list[dict], events: list[dict], summon: dict, rule: str, says: str) -> None:
    """RIT-03, FUS-03: an activation after the Ritual or Fusion Spell resolved started a chain that
    has resolved too; the summon the Spell makes after it is refused. Before: accepted once that
    chain had started resolving (the Ritual case refused the activation instead, see above)."""
    check([*start, *events, summon], rule, says)


@pytest.mark.parametrize("events", [
    pytest.param([act("ritual", zone=0), MST_ON_JAMMER, resolved(2), DESTROY_JAMMER, resolved(1),
                  ritual("dm", "kuriboh")], id="chained-to-before-it-resolves"),
    pytest.param([act("ritual", zone=0), resolved(), ritual("dm", "kuriboh"), RITUAL_GONE, MST_ON_JAMMER,
                  resolved(), DESTROY_JAMMER, moved("mst", [0, "gy"], "resolved"), *NEXT_TURN,
                  act("p1_kuriboh", player=1, effect_type="quick")],
                 id="summoned-then-chains-and-turns-without-an-end"),
])
def test_rit_03_activations_before_the_resolution_or_after_the_summon(events: list[dict]) -> None:
    """RIT-03: a response before the Ritual Spell resolves, and activations once its Ritual Summon
    has succeeded, are no activation during its resolution."""
    state = fold(board(RITUAL_BOARD, P1_TRAPS), *events)
    assert state.cards["bls"].summon_method == "ritual"


def test_fus_03_a_card_that_resolves_again_makes_its_summon_again() -> None:
    """FUS-03: Dark Magician's (made-up) Fusion effect resolves and summons; Mystical Space Typhoon
    starts a chain after it (no chain_ended recorded); the effect is activated again, resolves and
    summons: that resolution is a new one, nothing came between it and its summon."""
    p0 = {"hand": [c(CELTIC, "c1"), c(CELTIC, "c2"), c(MST, "mst")],
          "mzone": [c(DARK_MAGICIAN, "fuser"), c(BATTLE_OX, "o1"), c(BATTLE_OX, "o2")],
          "extra": [c(THOUSAND_DRAGON, "t1"), c(THOUSAND_DRAGON, "t2")]}
    fusing = [act("fuser", effect_type="ignition"), resolved()]
    state = fold(board(p0, P1_TRAPS), *fusing, ss("t1", 3, "fusion", materials=["c1", "o1"], cause="fuser"),
                 MST_ON_JAMMER, resolved(), DESTROY_JAMMER, moved("mst", [0, "gy"], "resolved"), *fusing,
                 ss("t2", 1, "fusion", materials=["c2", "o2"], cause="fuser"))
    assert state.cards["t2"].summon_method == "fusion"


# == Rules the fold follows under another ID =======================================================

def test_sps_08_an_inherent_special_summon_is_negated_as_a_summon() -> None:
    """SPS-08, checked as SPS-11 and CHAIN-10: Solemn Judgment ("negate the Summon") negates an
    inherent Special Summon as it is attempted; a summon is no activation, so no chain link (Magic
    Jammer's kind, "negate the activation") can answer it, and a Special Summon by a resolving
    effect cannot be negated at all."""
    state = fold(board(LIMITS), ss("cyber", 2, "inherent"), {"kind": "summon_negated", "card": "cyber"})
    assert state.cards["cyber"].zone == "gy" and not state.cards["cyber"].properly_summoned
    check([board(LIMITS), ss("cyber", 2, "inherent"), act("jammer", player=1, link=2)], "CHAIN-10",
          "not activations and cannot be chained to")
    check([board(LIMITS), ss("gy_bewd", 2, cause="reborn"), {"kind": "summon_negated", "card": "gy_bewd"}],
          "SPS-11", "by a resolving effect cannot be negated")


def test_term_03_pos_05_a_tribute_is_a_monster_you_control_face_down_too() -> None:
    """TERM-03, POS-05, checked as SUM-06: a Tribute is your monster on the field sent to the GY for
    a summon (a face-down one may be Tributed); a card in the hand is Tributed only by a resolving
    effect that says so (a Ritual Spell: RIT-02), so a hand card "Tributed" on its own is refused."""
    p0 = {"hand": [c(SUMMONED_SKULL, "skull"), c(KURIBOH, "kuriboh")],
          "mzone": [c(MYSTICAL_ELF, "set_elf", position="set")]}
    state = fold(board(p0), {"kind": "normal_summoned", "card": "skull", "zone": 1, "tributes": ["set_elf"]})
    assert state.cards["set_elf"].zone == "gy" and state.cards["skull"].zone == "mzone"
    check([board(p0), moved("kuriboh", [0, "gy"], "tributed")], "SUM-06", "Kuriboh is in the hand")


def test_term_04_a_cost_is_paid_on_activation_and_never_refunded() -> None:
    """TERM-04, checked as CHAIN-11 and TERM-14: Magic Jammer's discard is paid as it is activated
    (in the GY before anything resolves) and stays paid when Solemn Judgment negates it: no rule
    brings it back; a cost larger than the LP left cannot be paid."""
    p1 = {**P1_TRAPS, "hand": [c(VORSE, "p1_vorse")]}
    jammer = act("jammer", player=1, costs=[{"card": "p1_vorse", "to": "gy", "reason": "discarded"}])
    negated = [board(RITUAL_BOARD, p1), act("ritual", zone=0), jammer,
               act("solemn", player=1, negates=2, costs=[{"lp": 4000}]), resolved(3),
               {"kind": "chain_link_negated", "link": 2, "by": 3}]
    state = fold(*negated)
    assert state.cards["p1_vorse"].zone == "gy" and state.sides[1].lp == 4000
    check([*negated, moved("p1_vorse", [1, "hand"], "returned")], "TERM-14", "a cost is never refunded")
    check([board(RITUAL_BOARD, {**p1, "lp": 3999}), act("ritual", zone=0), jammer,
           act("solemn", player=1, negates=2, costs=[{"lp": 4000}])], "CHAIN-11", "cannot pay a cost of 4000 LP")


def test_term_08_a_set_monster_uses_the_normal_summon_and_is_no_summon() -> None:
    """TERM-08, checked as SUM-01 and SUM-02: a monster Set is a Normal Summon (the turn's one is
    used: a Normal Summon after it is refused) but no "Summon" (nothing negates it; it stays Set)."""
    state = fold(summon_board(), monster_set("celtic", 3), phase("battle"))
    assert (state.cards["celtic"].position, state.sides[0].normal_summon_turn) == ("set", 2)
    check([summon_board(), monster_set("celtic", 3), summon("kuriboh", 4)], "SUM-01", "already used")
    check([summon_board(), monster_set("celtic", 3), negate("celtic")], "SUM-02", "a Set is not a Summon")


def test_term_12_an_equip_card_stays_with_its_equipped_monster() -> None:
    """TERM-12, checked as SPELL-05 and SPELL-07: Axe of Despair equips the monster it targeted and
    goes to the GY with it; kept on the field after its monster left, it is refused."""
    assert fold(*EQUIP_AXE).cards["axe"].equipped_to == "celtic"
    state = fold(*EQUIP_AXE, DESTROY_CELTIC, moved("axe", [0, "gy"], "rule", cause="celtic"), REVIVE_VORSE)
    assert (state.cards["axe"].zone, state.equips) == ("gy", [])
    check([*EQUIP_AXE, DESTROY_CELTIC, REVIVE_VORSE], "SPELL-07", "has left the field")


def test_term_13_a_proper_summon_lets_a_monster_be_revived() -> None:
    """TERM-13, checked as SPS-12: Stardust Dragon Synchro Summoned (its printed method) and then
    destroyed may be revived; the one in the GY never summoned so may not."""
    state = fold(summon_board(TUNED), special("stardust", 5, "synchro", materials=SYNCHRO), TO_GY,
                 special("stardust", 0, cause="reborn"))
    assert state.cards["stardust"].zone == "mzone" and state.cards["stardust"].properly_summoned
    check([summon_board(), special("gy_stardust", 3, cause="reborn")], "SPS-12", "must first be properly summoned")


def test_spell_13_a_monster_made_an_equip_card_returns_to_its_owners_hand() -> None:
    """SPELL-13, checked as CTRL-03: player 1's Mystical Elf made an equip card in player 0's zone
    (an effect: the engine reads no text) returns to its owner's hand, not its controller's."""
    equip = moved("elf", [0, "szone", 2], "sent", cause="x")
    state = fold(summon_board(), equip, moved("elf", [1, "hand"], "returned", cause="y"))
    assert state.cards["elf"].zone == "hand" and "elf" in state.sides[1].hand
    check([summon_board(), equip, moved("elf", [0, "hand"], "returned", cause="y")], "CTRL-03",
          "goes to its owner's hand (player 1), not player 0's")


def test_battle_15_damage_is_calculated_in_the_damage_step() -> None:
    """BATTLE-15, checked as NIS-03: Master Rule 3's Damage Step holds damage calculation; it is
    not made in the Battle Step."""
    start = [battle([VORSE_], [OX]), attack("vorse", "ox")]
    state = fold(*start, step("damage"), calc(["ox"], [0, 200]))
    assert state.step == "damage" and state.attack.calculated
    check([*start, calc(["ox"], [0, 200])], "NIS-03", "in the Damage Step")


# == CONF-nn: the reading the engine follows =======================================================

def test_conf_11_a_pendulum_leaving_the_field_goes_straight_to_the_extra_deck() -> None:
    """CONF-11 (PEND-05): Odd-Eyes destroyed on the field goes face-up to the Extra Deck, with no GY
    stop between; a record sending it to the GY is refused."""
    state = fold(MOVE_BOARD, moved("odd", [0, "extra"], "destroyed", cause="x"))
    assert (state.cards["odd"].zone, state.cards["odd"].position) == ("extra", "faceup")
    check([MOVE_BOARD, moved("odd", [0, "gy"], "destroyed", cause="x")], "PEND-05", "face-up to the Extra Deck")


def test_conf_21_an_attached_xyz_material_is_off_the_field_with_no_gy_event() -> None:
    """CONF-21 (XMAT-01): a card attached goes under the Xyz monster directly, not through the GY;
    detached, it goes to the GY (NIS-05), nowhere else."""
    state = fold(MOVE_BOARD, moved("skull", [0, "overlay", 1], "attached", cause="x"))
    assert state.cards["skull"].zone == "overlay" and state.cards["utopia"].materials == ["mat", "skull"]
    check([MOVE_BOARD, moved("mat", [0, "hand"], "detached", cause="x")], "NIS-05", "goes to the GY, not the hand")


def test_conf_26_only_the_turn_player_discards_for_the_hand_size() -> None:
    """CONF-26 (HAND-01): at the end of turn 2 player 0 discards from 7 to 6; player 1 keeps 7 (it
    is not their turn), and may not discard for it."""
    state = fold(SEVEN_IN_HAND, discard("h0"), turn_started(1, 3))
    assert (len(state.sides[0].hand), len(state.sides[1].hand)) == (6, 7)
    check([SEVEN_IN_HAND, discard("o0", player=1)], "HAND-01", "only the turn player")


def test_conf_33_a_counter_trap_may_be_chain_link_1() -> None:
    """CONF-33 (CHAIN-13): Solemn Judgment (Spell Speed 3) starts a chain at a summon; a Spell Speed
    2 card cannot respond to it (CHAIN-03)."""
    p0 = {"hand": [c(CELTIC, "celtic"), c(MST, "mst")]}
    start = [board(p0, P1_TRAPS), summon("celtic", 3), act("solemn", player=1, costs=[{"lp": 4000}])]
    state = fold(*start)
    assert (state.chain[0].card, state.chain[0].speed) == ("solemn", 3)
    check([*start, act("mst", zone=1, targets=["jammer"])], "CHAIN-03", "Spell Speed 3")


@pytest.mark.parametrize("fields", [pytest.param({"phase": "standby"}, id="standby-phase"),
                                    pytest.param({"phase": "end"}, id="end-phase")])
def test_conf_17_a_quick_play_spell_from_the_hand_at_any_time_of_your_own_turn(fields: dict) -> None:
    """CONF-17 (SPELL-12): Mystical Space Typhoon from the hand in your own Standby or End Phase
    (not only the Main and Battle Phases); in the opponent's turn it is refused."""
    state = fold(chain_board(**fields), act("mst_hand", zone=2, targets=["decree"]))
    assert (state.chain[0].card, state.chain[0].speed) == ("mst_hand", 2)
    check([chain_board(**fields, turn_player=1), act("mst_hand", player=0, zone=2, targets=["decree"])], "SPELL-12",
          "only in your own turn")


def test_conf_16_an_ignition_effect_from_the_gy_in_your_main_phase() -> None:
    """CONF-16 (EFF-02): an Ignition effect may be activated where its card says, the GY included
    (not the field only); outside your Main Phase's open game state it is refused."""
    state = fold(chain_board(), act("skull", effect_type="ignition"))
    assert state.chain[0].card == "skull" and state.cards["skull"].zone == "gy"
    check([chain_board(phase="battle", step="battle"), act("skull", effect_type="ignition")], "EFF-02", "Main Phase")


# == TERM-10 / EFF-05: a Flip effect needs a flip ==================================================

FLIP_BOARD = {"mzone": [c(GIANT_SOLDIER, "soldier", position="set")], "hand": [c(CELTIC, "celtic")]}
FLIP_EFFECT = act("soldier", effect_type="flip")
TO_DEFENSE = {"kind": "position_changed", "card": "soldier", "position": "defense", "cause": "x"}
TO_SET = {"kind": "position_changed", "card": "soldier", "position": "set", "cause": "y"}


@pytest.mark.parametrize("events", [
    pytest.param([{"kind": "flip_summoned", "card": "soldier"}], id="flip-summoned"),
    pytest.param([TO_DEFENSE], id="flipped-by-an-effect"),
    pytest.param([TO_DEFENSE, TO_SET], id="flipped-then-face-down-again"),
])
def test_term_10_eff_05_a_flip_effect_follows_a_flip_face_up(events: list[dict]) -> None:
    """EFF-05: a Flip effect is a trigger on any flip face-up: Flip Summoned, or flipped by an effect;
    flipped and then turned face-down again before it is activated (Book of Moon in the chain), the
    flip still happened."""
    state = fold(board(FLIP_BOARD), *events, FLIP_EFFECT)
    assert state.chain[0].card == "soldier" and state.chain[0].effect_type == "flip"


def test_eff_05_a_monster_flipped_by_an_attack_keeps_its_flip_effect() -> None:
    """EFF-05, BATTLE-12: Giant Soldier of Stone, attacked face-down, is flipped before damage
    calculation; turned face-down again by an effect, its Flip effect is still activated after."""
    state = fold(battle([VORSE_], [mon("soldier", GIANT_SOLDIER, "set")]), attack("vorse", "soldier"), step("damage"),
                 calc([], [100, 0]), {**TO_SET, "player": 1}, act("soldier", player=1, effect_type="flip"))
    assert state.chain[0].card == "soldier" and state.cards["soldier"].position == "set"


@pytest.mark.parametrize("events, says", [
    pytest.param([{"kind": "card_revealed", "cards": ["soldier"]}], "it does not flip it, TERM-10", id="confirmed"),
    pytest.param([TO_DEFENSE, TO_SET, phase("end"), turn_started(1, 3)], "not flipped face-up this turn",
                 id="flipped-last-turn"),
])
def test_term_10_eff_05_a_flip_effect_without_a_flip_refused(events: list[dict], says: str) -> None:
    """TERM-10, checked as EFF-05: a face-down monster only confirmed (shown) has not been flipped:
    its Flip effect cannot be activated; nor a turn after its flip. Accepted before."""
    check([board(FLIP_BOARD), *events, {**FLIP_EFFECT, "player": 0}], "EFF-05", says)
