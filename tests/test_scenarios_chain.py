"""Judge scenarios for priority, chains, Spells, Traps and effect types (RULES.md §10, §16-19,
§25, TERM-14) that the rule tests do not already cover: edge cases, the exceptions each rule's
text states, and their interactions. A legal play folds clean; an illegal one is refused with the
rule a judge would cite, at the event that breaks it.
"""
from __future__ import annotations

from typing import Any

import pytest
from duel import (
    AXE, BATTLE_OX, CALL_OF_THE_HAUNTED, CELTIC, DARK_HOLE, MAGIC_JAMMER, MIRROR_FORCE, MONSTER_REBORN, MPZ,
    MST, POT, ROYAL_DECREE, SEVEN_TOOLS, SOLEMN, SUMMONED_SKULL, TRAP_HOLE, VORSE, YAMI, fold, position,
    refused, refused_with)

SANGAN, BOOK_OF_MOON, BURNING_LAND, BLACK_LUSTER_RITUAL = 26202165, 14087893, 24294108, 55761792
EXILED_FORCE, MIRROR_WALL = 74131780, 22359980


def c(code: int, card_id: str, **flags: Any) -> dict:
    return {"code": code, "id": card_id, **flags}


def ev(kind: str, **fields: Any) -> dict:
    return {"kind": kind, **fields}


def act(card: str, player: int = 0, **fields: Any) -> dict:
    return ev("activated", player=player, card=card, **fields)


def res(link: int) -> dict:
    return ev("chain_link_resolved", link=link)


def neg(link: int, by: int) -> dict:
    return ev("chain_link_negated", link=link, by=by)


def passed(player: int) -> dict:
    return ev("priority_passed", player=player)


def moved(card: str, player: int, zone: str = "gy", reason: str = "resolved", **fields: Any) -> dict:
    return ev("card_moved", card=card, to=[player, zone], reason=reason, **fields)


def st_set(card: str, zone: int, player: int = 0, **fields: Any) -> dict:
    return ev("spell_trap_set", player=player, card=card, zone=zone, **fields)


def phase(name: str) -> dict:
    return ev("phase_entered", phase=name)


def turn(number: int, player: int) -> list[dict]:
    return [ev("turn_started", player=player, turn=number), phase("draw"),
            ev("cards_drawn", player=player, count=1), phase("standby"), phase("main1")]


END = ev("chain_ended")
JAMMER_COST = [{"card": "p1_ox", "to": "gy", "reason": "discarded"}]

P0 = {"hand": [c(DARK_HOLE, "hole"), c(POT, "pot"), c(MST, "mst_hand"), c(AXE, "axe"), c(YAMI, "yami"),
               c(BURNING_LAND, "land"), c(BLACK_LUSTER_RITUAL, "ritual"), c(TRAP_HOLE, "trap_hand"),
               c(SEVEN_TOOLS, "tools_hand"), c(BOOK_OF_MOON, "book_hand")],
      "mzone": [c(CELTIC, "celtic"), c(EXILED_FORCE, "exiled"), c(SANGAN, "sangan")],
      "szone": [c(SEVEN_TOOLS, "tools", position="set"), c(MST, "mst", position="set"),
                c(MIRROR_FORCE, "p0_mforce", position="set")],
      "gy": [c(SUMMONED_SKULL, "skull")]}
P1 = {"hand": [c(BATTLE_OX, "p1_ox"), c(MST, "p1_mst_hand")],
      "mzone": [c(BATTLE_OX, "ox")],
      "szone": [c(ROYAL_DECREE, "decree", position="set"), c(MAGIC_JAMMER, "jammer", position="set"),
                c(MIRROR_FORCE, "mforce", position="set"), c(BOOK_OF_MOON, "book", position="set"),
                c(SOLEMN, "solemn", position="set")]}

#: Player 0 with a hand they may end the turn with (HAND-01); player 1 with a free S/T zone (4).
SMALL_HAND = {"hand": [c(MST, "mst_hand"), c(TRAP_HOLE, "trap_hand")]}
P1_ROOM = {"szone": P1["szone"][:4]}


def board(p0: dict | None = None, p1: dict | None = None, **fields: Any) -> dict:
    """Turn 2, player 0's Main Phase 1; every Set card was Set on an earlier turn."""
    return position({**P0, **(p0 or {})}, {**P1, **(p1 or {})}, **fields)


def check(events: list[dict], rule: str, says: str = "") -> None:
    refused_with(events, rule, says)


HOLE = act("hole", zone=3)
HOLE_RESOLVES = [res(1), *(moved(card, owner, reason="destroyed", cause="hole")
                           for card, owner in (("celtic", 0), ("exiled", 0), ("sangan", 0), ("ox", 1))),
                 moved("hole", 0), END]


# == PRIO: priority =============================================================================

def test_prio_01_after_a_chain_resolves_the_turn_player_holds_priority_again():
    """PRIO-01, PRIO-03: player 1 started and closed a chain in player 0's turn; once it has
    resolved the turn player holds priority first, so player 1 passing first is refused."""
    chain = [board(), passed(0), act("book", player=1, targets=["celtic"]), passed(0), passed(1), res(1),
             ev("position_changed", card="celtic", position="set", cause="book"), moved("book", 1), END]
    fold(*chain, passed(0), passed(1))
    check([*chain, passed(1)], "PRIO-01", "the turn player holds priority first")
    check([*chain, act("mforce", player=1)], "PRIO-01", "the turn player holds it first")


def test_prio_01_a_new_phase_gives_the_turn_player_priority_first():
    """PRIO-01, PRIO-04: entering a phase, the turn player holds priority first; the opponent's
    Set Trap waits for the turn player to pass in that phase, a pass in the last phase counts not."""
    start = [board(), passed(0), passed(1), phase("battle")]
    fold(*start, passed(0), act("mforce", player=1))
    check([*start, act("mforce", player=1)], "PRIO-01", "the turn player holds it first")


def test_prio_03_the_turn_player_who_passed_cannot_activate_before_it_comes_back():
    """PRIO-03: passing hands priority to the opponent; the turn player activates again only
    once it comes back: after the opponent answered the end (PRIO-05) and the chain resolved (a
    pass back with nothing answered ends the phase, PRIO-05: tests/test_rule_scenarios_28.py)."""
    fold(board(), passed(0), act("book", player=1, targets=["sangan"]), passed(0), passed(1), res(1),
         moved("book", 1), END, act("pot", zone=3))
    check([board(), passed(0), act("mst_hand", zone=3, targets=["decree"])], "PRIO-03", "the turn player passed it")


def test_prio_02_the_opponent_activates_a_trigger_without_priority():
    """PRIO-02: while the turn player holds priority the opponent may still activate a trigger
    (Sangan's, its controller's own): no pass is needed for it."""
    p1 = {"mzone": [c(SANGAN, "p1_sangan")]}
    events = [board(None, p1), HOLE, passed(1), passed(0), res(1),
              moved("p1_sangan", 1, reason="destroyed", cause="hole"), moved("hole", 0), END]
    fold(*events, act("p1_sangan", player=1, effect_type="trigger"))


def test_prio_06_no_normal_summon_while_a_chain_is_open():
    """PRIO-06: a Normal Summon needs an open game state: not with a chain open."""
    p0 = {"hand": [*P0["hand"], c(VORSE, "vorse")], "mzone": [c(CELTIC, "celtic")]}
    v = refused(board(p0), HOLE, act("decree", player=1),
                ev("normal_summoned", player=0, card="vorse", zone=2))
    assert "chain" in v.message and v.index == 3, v


# == CHAIN-01..05: speeds, responses, reverse order ===============================================

SPEED_1_SPELLS = [
    pytest.param(act("axe", zone=3, targets=["celtic"]), id="equip-spell"),
    pytest.param(act("yami", field_zone=True), id="field-spell"),
    pytest.param(act("land", zone=3), id="continuous-spell"),
    pytest.param(act("ritual", zone=3), id="ritual-spell"),
]


@pytest.mark.parametrize("activation", SPEED_1_SPELLS)
def test_chain_02_spell_01_a_speed_1_spell_cannot_respond(activation):
    """CHAIN-02, SPELL-01: Equip, Field, Continuous and Ritual Spells are Speed 1: only Chain Link 1."""
    check([board(), act("decree", player=1), activation], "CHAIN-02", "only be Chain Link 1")


@pytest.mark.parametrize("activation", SPEED_1_SPELLS)
def test_chain_02_spell_02_a_speed_1_spell_starts_a_chain(activation):
    """CHAIN-02, SPELL-02: the same Spells are Chain Link 1 in your own Main Phase."""
    state = fold(board(), activation)
    assert [(link.number, link.speed) for link in state.chain] == [(1, 1)]


@pytest.mark.parametrize("response, rule", [
    pytest.param(act("mforce", player=1), "CHAIN-03", id="normal-trap"),
    pytest.param(act("decree", player=1), "CHAIN-03", id="continuous-trap"),
    pytest.param(act("book", player=1, targets=["celtic"]), "CHAIN-03", id="set-quick-play"),
    pytest.param(act("mst_hand", zone=4, targets=["decree"]), "CHAIN-03", id="quick-play-from-the-hand"),
    pytest.param(act("exiled", effect_type="ignition"), "EFF-02", id="ignition"),
])
def test_trap_06_chain_03_a_counter_trap_is_answered_only_by_counter_traps(response, rule):
    """TRAP-06, CHAIN-03, TRAP-01: a Counter Trap is Speed 3: only another Speed 3 answers it."""
    check([board(), act("pot", zone=3), act("jammer", player=1, negates=1, costs=JAMMER_COST), response], rule)


def test_trap_06_chain_03_a_counter_trap_answers_a_counter_trap():
    """TRAP-06, CHAIN-03: Seven Tools negates the Magic Jammer that negates Pot of Greed: Jammer
    does nothing, Pot resolves; Jammer's discard and Tools' 1000 LP stay paid (CHAIN-11)."""
    state = fold(board(), act("pot", zone=3), act("jammer", player=1, negates=1, costs=JAMMER_COST),
                 act("tools", negates=2, costs=[{"lp": 1000}]), res(3), neg(2, 3), res(1),
                 ev("cards_drawn", player=0, count=2, cause="pot"),
                 moved("tools", 0), moved("jammer", 1, reason="negated"), moved("pot", 0), END)
    assert state.sides[0].lp == 7000 and state.cards["p1_ox"].zone == "gy"
    assert [state.cards[card].zone for card in ("pot", "jammer", "tools")] == ["gy", "gy", "gy"]


def test_chain_03_13_a_speed_2_response_to_a_counter_trap_at_chain_link_1():
    """CHAIN-13, CHAIN-03: Solemn Judgment answers a summon as Chain Link 1 (Speed 3): a Trap
    (Speed 2) cannot answer it, a Counter Trap can."""
    p0 = {"hand": [*P0["hand"], c(VORSE, "vorse")], "mzone": [c(CELTIC, "celtic")]}
    summoned = [board(p0), ev("normal_summoned", player=0, card="vorse", zone=2),
                act("solemn", player=1, costs=[{"lp": 4000}])]
    fold(*summoned, act("tools", negates=1, costs=[{"lp": 1000}]))
    check([*summoned, act("p0_mforce")], "CHAIN-03", "Chain Link 1 is Spell Speed 3")


def test_chain_03_speed_2_answers_speed_2_and_a_quick_play_of_your_own_turn():
    """CHAIN-03, SPELL-12: player 1's Set Trap answers Dark Hole; in their own turn player 0
    answers it with a Quick-Play from the hand (Speed 2 on Speed 2)."""
    state = fold(board(), HOLE, act("decree", player=1), act("mst_hand", zone=4, targets=["decree"]))
    assert [(link.card, link.speed) for link in state.chain] == [("hole", 1), ("decree", 2), ("mst_hand", 2)]


def test_chain_05_links_resolve_last_first_and_a_negated_link_does_nothing():
    """CHAIN-05, CHAIN-07, TERM-14: MST (CL3) destroys Royal Decree (CL2), which then applies
    nothing; Dark Hole (CL1) resolves last. Resolving CL2 first is refused."""
    chain = [board(), HOLE, act("decree", player=1), act("mst", targets=["decree"])]
    fold(*chain, res(3), moved("decree", 1, reason="destroyed", cause="mst"), res(2), *HOLE_RESOLVES[:-2],
         moved("mst", 0), moved("hole", 0), END)
    check([*chain, res(2)], "CHAIN-05", "Chain Link 3 resolves before link 2")


def test_chain_05_a_trigger_during_resolution_waits_for_the_chain_to_end():
    """CHAIN-05, EFF-04: Sangan destroyed by Dark Hole resolving as Chain Link 1 of a 2-link
    chain: its trigger waits for the chain's end, then starts a new chain. Nothing is activated
    between two links resolving."""
    chain = [board(), HOLE, act("decree", player=1), res(2), res(1),
             *(moved(card, owner, reason="destroyed", cause="hole")
               for card, owner in (("celtic", 0), ("exiled", 0), ("sangan", 0), ("ox", 1)))]
    state = fold(*chain, moved("hole", 0), END, act("sangan", effect_type="trigger"))
    assert [(link.number, link.card) for link in state.chain] == [(1, "sangan")]
    check([board(), act("pot", zone=3), act("mst", targets=["decree"]), res(2),
           moved("decree", 1, reason="destroyed", cause="mst"), act("sangan", effect_type="trigger")],
          "CHAIN-05", "started resolving")


def test_chain_05_a_trigger_after_the_last_link_starts_a_new_chain_when_no_end_is_recorded():
    """CHAIN-05: a record need not mark a chain's end: once its last link has resolved, a
    trigger of what happened in it is Chain Link 1 of a new chain (never a false call); while a
    link is left, the same trigger is refused."""
    state = fold(board(), HOLE, *HOLE_RESOLVES[:-2], moved("hole", 0), act("sangan", effect_type="trigger"))
    assert [(link.number, link.card) for link in state.chain] == [(1, "sangan")]
    check([board(), HOLE, act("decree", player=1), res(2), act("sangan", effect_type="trigger")], "CHAIN-05",
          "started resolving")


def test_chain_04_both_players_pass_then_it_resolves_and_a_third_pass_is_refused():
    """CHAIN-04, PRIO-03: a chain with two links resolves after two passes in succession; a link
    added after one pass restarts the count."""
    fold(board(), HOLE, passed(1), act("mst", targets=["decree"]), passed(1), passed(0), res(2),
         moved("decree", 1, reason="destroyed", cause="mst"), moved("mst", 0))
    check([board(), HOLE, passed(1), act("mst", targets=["decree"]), passed(1), res(2)], "CHAIN-04",
          "1 pass(es)")


# == SPELL ======================================================================================

@pytest.mark.parametrize("card, fields", [
    pytest.param("land", {}, id="continuous-spell"),
    pytest.param("axe", {"targets": ["celtic"]}, id="equip-spell"),
])
def test_spell_03_a_set_spell_other_than_a_quick_play_is_activated_the_turn_it_was_set(card, fields):
    """SPELL-03: a Set Continuous or Equip Spell may be activated the turn it was Set."""
    state = fold(board(), st_set(card, 3), act(card, **fields), res(1), END)
    assert (state.cards[card].zone, state.cards[card].position) == ("szone", "faceup")


def test_spell_03_11_a_set_field_spell_is_activated_the_turn_it_was_set():
    """SPELL-03, SPELL-11: a Field Spell Set face-down is activated in place the same turn; it
    replaces nothing (it already is the one in the Field Zone)."""
    state = fold(board(), ev("spell_trap_set", player=0, card="yami", field_zone=True), act("yami"), res(1), END)
    assert (state.sides[0].fzone, state.cards["yami"].position) == ("yami", "faceup")


@pytest.mark.parametrize("setup, before, card, fields", [
    pytest.param({"phase": "battle", "step": "battle"}, [], "land", {"zone": 3}, id="continuous-in-battle-phase"),
    pytest.param({"phase": "standby"}, [], "axe", {"zone": 3, "targets": ["celtic"]}, id="equip-in-standby"),
    pytest.param({"turn_player": 1}, [], "yami", {"field_zone": True}, id="field-in-opponents-turn"),
    pytest.param({"turn_player": 1, "phase": "end"}, [], "ritual", {"zone": 3}, id="ritual-in-opponents-end"),
])
def test_spell_02_a_speed_1_spell_only_in_your_own_main_phase_refused(setup, before, card, fields):
    """SPELL-02: a Spell other than a Quick-Play only in your own Main Phase (open game state)."""
    check([board(**setup), *before, act(card, **fields)], "SPELL-02")


def test_spell_02_a_speed_1_spell_in_main_phase_2():
    """SPELL-02: Main Phase 2 is a Main Phase too."""
    state = fold(board(phase="main2"), act("land", zone=3), res(1), END)
    assert state.cards["land"].zone == "szone"


@pytest.mark.parametrize("events, card", [
    pytest.param([act("mst_hand", zone=3, targets=["decree"]), res(1),
                  moved("decree", 1, reason="destroyed", cause="mst_hand")], "mst_hand", id="quick-play"),
    pytest.param([act("tools_hand", zone=3)], "tools_hand", id="counter-trap-from-hand-cited"),
])
def test_spell_04_trap_04_a_quick_play_or_counter_trap_left_on_the_field_refused(events, card):
    """SPELL-04, TRAP-04: a Quick-Play Spell and a Counter Trap go to the GY once resolved."""
    if card == "tools_hand":
        events = [{**events[0], "cite": {"card": "tools_hand", "effect": "from the hand"}}, res(1)]
        check([board(), *events, END], "TRAP-04", "must leave the field")
    else:
        check([board(), *events, END], "SPELL-04", "must leave the field")


@pytest.mark.parametrize("events, card, zone", [
    pytest.param([act("yami", field_zone=True), res(1)], "yami", "fzone", id="field-spell-stays"),
    pytest.param([act("axe", zone=3, targets=["celtic"]), res(1)], "axe", "szone", id="equip-stays"),
    pytest.param([act("ritual", zone=3), res(1), moved("ritual", 0)], "ritual", "gy", id="ritual-to-gy"),
])
def test_spell_04_what_stays_after_resolving(events, card, zone):
    """SPELL-04, SPELL-10: Field and Equip Spells stay face-up once resolved; a Ritual Spell goes."""
    state = fold(board(), *events, END)
    assert state.cards[card].zone == zone


def test_spell_04_a_ritual_spell_left_on_the_field_refused():
    """SPELL-04: a resolved Ritual Spell goes to the GY."""
    check([board(), act("ritual", zone=3), res(1), END], "SPELL-04", "(ritual) must leave the field")


def test_spell_11_the_opponents_new_field_spell_leaves_mine():
    """SPELL-11: in player 1's turn their new Field Spell goes to their Field Zone and replaces
    their own old one only; player 0's stays."""
    state = fold(position({"fzone": c(YAMI, "yami")}, {"hand": [c(MPZ, "p1_mpz")], "fzone": c(YAMI, "p1_yami")},
                          turn_player=1),
                 act("p1_mpz", player=1, field_zone=True), res(1), END)
    assert state.sides[0].fzone == "yami" and state.sides[1].fzone == "p1_mpz"
    assert state.cards["p1_yami"].zone == "gy"


def test_spell_12_a_quick_play_set_in_my_turn_activated_in_my_next_turn():
    """SPELL-12: a Set Quick-Play waits one turn only: Set in turn 2, it is used in the
    opponent's turn 3 or in turn 4."""
    events = [board(SMALL_HAND), st_set("mst_hand", 3), phase("end"), *turn(3, 1), phase("end"), *turn(4, 0),
              act("mst_hand", targets=["decree"])]
    fold(*events)


@pytest.mark.parametrize("later", [
    pytest.param([phase("battle")], id="own-battle-phase"),
    pytest.param([act("pot", zone=4)], id="chained-to-own-spell"),
    pytest.param([act("decree", player=1)], id="chained-to-opponents-trap"),
])
def test_spell_12_a_quick_play_set_this_turn_refused(later):
    """SPELL-12: not the turn it was Set, whatever the phase or chain."""
    check([board(), st_set("book_hand", 3), *later, act("book_hand", targets=["ox"])], "SPELL-12",
          "Set this turn")


def test_spell_12_a_quick_play_from_the_hand_in_my_draw_phase():
    """SPELL-12: from the hand in your own turn whenever you hold priority: the Draw Phase too,
    once the turn player has drawn (TURN-02)."""
    fold(board(phase="draw"), {"kind": "cards_drawn", "player": 0, "count": 1},
         act("mst_hand", zone=3, targets=["decree"]))


def test_spell_12_a_quick_play_from_the_hand_in_the_opponents_turn_refused_even_in_a_chain():
    """SPELL-12: not from the hand in the opponent's turn, even answering their chain."""
    check([board(None, P1_ROOM, turn_player=1), act("p1_mst_hand", player=1, zone=4, targets=["tools"]),
           act("book_hand", zone=3, targets=["ox"])], "SPELL-12", "only in your own turn")


# == TRAP =======================================================================================

def test_trap_02_a_trap_set_this_turn_is_activated_in_the_opponents_next_turn():
    """TRAP-02: Set in turn 2 it cannot answer in turn 2; in the opponent's turn 3 it can."""
    set_ = [board(SMALL_HAND), st_set("trap_hand", 3)]
    check([*set_, act("trap_hand")], "TRAP-02", "Set this turn")
    fold(*set_, phase("end"), *turn(3, 1), ev("normal_summoned", player=1, card="p1_ox", zone=1),
         act("trap_hand", targets=["p1_ox"]))


def test_trap_02_a_counter_trap_set_this_turn_refused():
    """TRAP-02: the wait applies to Counter Traps too."""
    check([board(), st_set("tools_hand", 3), act("pot", zone=4), act("tools_hand", costs=[{"lp": 1000}])],
          "TRAP-02", "Set this turn")


def test_trap_02_a_set_trap_in_your_own_turn():
    """TRAP-02: a Set Trap (earlier turn) may be activated in your own turn too."""
    state = fold(board(), act("p0_mforce"))
    assert state.chain[0].speed == 2


def test_trap_04_a_continuous_trap_stays_a_normal_trap_leaves():
    """TRAP-04: Call of the Haunted stays face-up once resolved; Mirror Force goes to the GY."""
    p1 = {"szone": [c(CALL_OF_THE_HAUNTED, "call", position="set"), *P1["szone"][1:]], "gy": [c(VORSE, "p1_vorse")]}
    state = fold(board(None, p1), act("call", player=1, targets=["p1_vorse"]), res(1),
                 ev("special_summoned", player=1, card="p1_vorse", zone=2, cause="call"), END)
    assert (state.cards["call"].zone, state.cards["call"].position) == ("szone", "faceup")


def test_trap_05_a_face_up_continuous_traps_effect_is_speed_2():
    """TRAP-05, SPELL-08: a face-up Continuous Trap's later effect answers a Speed 2 link; a face-up
    Continuous Spell's is Speed 1 and cannot."""
    p0 = {"szone": [c(MIRROR_WALL, "wall", position="faceup"), c(BURNING_LAND, "land_up", position="faceup")]}
    state = fold(board(p0, P1_ROOM, turn_player=1), act("p1_mst_hand", player=1, zone=4, targets=["wall"]),
                 act("wall", effect_type="continuous"))
    assert state.chain[-1].speed == 2
    check([board(p0, P1_ROOM, turn_player=1), act("p1_mst_hand", player=1, zone=4, targets=["wall"]),
           act("land_up", effect_type="continuous")], "CHAIN-02")


# == EFF ========================================================================================

def test_eff_02_an_ignition_effect_after_a_chain_has_ended():
    """EFF-02, PRIO-06: once the chain has ended the game state is open again."""
    fold(board(), act("pot", zone=3), res(1), ev("cards_drawn", player=0, count=2, cause="pot"),
         moved("pot", 0), END, act("exiled", effect_type="ignition"))


def test_eff_04_a_trigger_cannot_answer_a_chain():
    """EFF-04, CHAIN-02: a trigger not simultaneous with the chain's triggers cannot respond."""
    check([board(), HOLE, act("sangan", effect_type="trigger")], "CHAIN-02")


# == TERM-14: a negated activation does nothing =================================================

def test_term_14_a_negated_trap_destroys_nothing_and_goes_to_the_gy():
    """TERM-14: Seven Tools negates Mirror Force: nothing is destroyed, Mirror Force goes to the GY."""
    negated = [board(), act("mforce", player=1), act("tools", negates=1, costs=[{"lp": 1000}]), res(2),
               moved("tools", 0), neg(1, 2)]
    state = fold(*negated, moved("mforce", 1, reason="negated"), END)
    assert state.cards["celtic"].zone == "mzone" and state.cards["mforce"].zone == "gy"
    check([*negated, moved("celtic", 0, reason="destroyed", cause="mforce")], "TERM-14", "applies nothing")
    check([*negated, END], "TRAP-04", "(mforce) must leave the field")


def test_term_14_a_negated_monster_effect_leaves_the_monster_on_the_field():
    """TERM-14: an effect activation negated: the monster is not a card activation, it stays."""
    state = fold(board(), act("exiled", effect_type="ignition"),
                 act("jammer", player=1, negates=1, costs=JAMMER_COST, cite={"card": "jammer", "effect": "x"}),
                 res(2), moved("jammer", 1), neg(1, 2), END)
    assert state.cards["exiled"].zone == "mzone"


def test_term_14_a_negated_counter_trap_negates_nothing():
    """TERM-14: Seven Tools (CL3) negates Magic Jammer (CL2): Jammer applies nothing, so Pot of
    Greed (CL1) is not negated by it; a record saying Jammer negated it is refused."""
    chain = [board(), act("pot", zone=3), act("jammer", player=1, negates=1, costs=JAMMER_COST),
             act("tools", negates=2, costs=[{"lp": 1000}]), res(3), neg(2, 3)]
    check([*chain, neg(1, 2)], "TERM-14")


def test_term_14_trap_06_a_counter_trap_negates_only_the_link_it_named():
    """TERM-14, TRAP-06: Magic Jammer (CL3) negates MST (CL2): Royal Decree stays, and Dark Hole
    (CL1) still resolves."""
    fold(board(), HOLE, passed(1), act("mst", targets=["decree"]),
         act("jammer", player=1, negates=2, costs=JAMMER_COST), passed(0), passed(1), res(3), moved("jammer", 1),
         neg(2, 3), moved("mst", 0, reason="negated"), *HOLE_RESOLVES)


@pytest.mark.parametrize("card, fields, zone", [
    pytest.param("land", {"zone": 3}, "szone", id="continuous-spell"),
    pytest.param("yami", {"field_zone": True}, "fzone", id="field-spell"),
])
def test_term_14_spell_04_a_negated_continuous_or_field_spell_goes_to_the_gy(card, fields, zone):
    """TERM-14, SPELL-04: a Continuous or Field Spell whose activation is negated applies nothing
    and goes to the GY; left on the field it is refused."""
    negated = [board(), act(card, **fields), act("jammer", player=1, negates=1, costs=JAMMER_COST), res(2),
               moved("jammer", 1), neg(1, 2)]
    state = fold(*negated, moved(card, 0, reason="negated"), END)
    assert state.cards[card].zone == "gy"
    check([*negated, END], "SPELL-04", f"({card}) must leave the field")


# == TRAP-02 / SPELL-12: a card Set by an effect waits a turn too =================================

SET_BY_EFFECT = [ev("card_moved", card="deck_trap", to=[0, "szone", 3], reason="sent", position="set", cause="pot"),
                 ev("card_moved", card="deck_qp", to=[0, "szone", 4], reason="sent", position="set", cause="pot")]
FROM_DECK = {**SMALL_HAND, "szone": [], "deck": [c(MIRROR_FORCE, "deck_trap"), c(BOOK_OF_MOON, "deck_qp"), c(CELTIC, "d1"),
                                             c(CELTIC, "d2"), c(CELTIC, "d3")]}


@pytest.mark.parametrize("activation, rule", [
    pytest.param(act("deck_trap"), "TRAP-02", id="trap"),
    pytest.param(act("deck_qp", targets=["ox"]), "SPELL-12", id="quick-play"),
])
def test_trap_02_spell_12_a_card_set_by_an_effect_waits_a_turn_refused(activation, rule):
    """TRAP-02, SPELL-12: a Trap or Quick-Play an effect Sets is Set all the same: not activated
    the turn it was Set (unless a text says so: TRAP-03)."""
    check([board(FROM_DECK), *SET_BY_EFFECT, activation], rule, "Set this turn")


def test_trap_02_spell_12_a_card_set_by_an_effect_is_activated_in_the_next_turn():
    """TRAP-02, SPELL-12: the turn after, both may be activated (here in the opponent's turn)."""
    fold(board(FROM_DECK), *SET_BY_EFFECT, phase("end"), *turn(3, 1), act("deck_trap"),
         act("deck_qp", targets=["ox"]))


def test_spell_11_term_14_a_negated_field_spell_has_already_replaced_the_old_one():
    """SPELL-11, TERM-14: activating Mystic Plasma Zone sends Yami to the GY at once; Magic Jammer
    negates it: it goes to the GY too, and neither stays."""
    state = fold(board({"hand": [c(MPZ, "mpz")], "fzone": c(YAMI, "yami")}), act("mpz", field_zone=True),
                 act("jammer", player=1, negates=1, costs=JAMMER_COST), res(2), moved("jammer", 1), neg(1, 2),
                 moved("mpz", 0, reason="negated"), END)
    assert state.sides[0].fzone is None and state.sides[0].gy[-2:] == ["yami", "mpz"]


def test_spell_05_an_equip_spell_on_the_opponents_monster_stays_in_my_zone():
    """SPELL-05: with no side named, an Equip Spell may equip an opponent's monster; it stays in
    its activator's zone."""
    state = fold(board(), act("axe", zone=3, targets=["ox"]), res(1), END)
    axe = state.cards["axe"]
    assert (axe.zone, axe.controller, axe.equipped_to) == ("szone", 0, "ox")


NEGATED_IGNITION = [board(), act("exiled", effect_type="ignition", targets=["ox"],
                                 costs=[{"card": "exiled", "to": "gy", "reason": "tributed"}]),
                    act("jammer", player=1, negates=1, costs=JAMMER_COST, cite={"card": "jammer", "effect": "x"}),
                    res(2), moved("jammer", 1), neg(1, 2)]


def test_term_14_a_negated_monster_effect_destroys_nothing():
    """TERM-14: Exiled Force's effect negated: its cost stays paid, Battle Ox stays, and a
    destruction it would have caused is refused."""
    state = fold(*NEGATED_IGNITION, END)
    assert state.cards["exiled"].zone == "gy" and state.cards["ox"].zone == "mzone"
    check([*NEGATED_IGNITION, moved("ox", 1, reason="destroyed", cause="exiled")], "TERM-14", "applies nothing")


def test_term_14_a_monster_with_another_link_below_still_applies_that_one():
    """TERM-14: a card whose one effect was negated still applies another of its links that was not
    (Sangan's trigger at CL1 and a cited second effect at CL2, negated): CL1 adds its card."""
    p0 = {"deck": [c(CELTIC, "d_celtic"), c(CELTIC, "d2"), c(CELTIC, "d3")]}
    fold(board(p0), act("sangan", effect_type="trigger", cite={"card": "sangan", "effect": "x"}),
         act("sangan", effect_type="quick", cite={"card": "sangan", "effect": "y"}),
         act("tools", negates=2, costs=[{"lp": 1000}], cite={"card": "tools", "effect": "z"}),
         res(3), moved("tools", 0), neg(2, 3), res(1), moved("d_celtic", 0, "hand", reason="added", cause="sangan"), END)


def test_spell_12_a_quick_play_set_by_an_effect_in_the_opponents_turn_waits_for_my_turn():
    """SPELL-12: Set by an effect in the opponent's turn 3, a Quick-Play is not activated that
    turn; in my turn 4 it is."""
    p0 = {**FROM_DECK, "mzone": []}
    set_in_3 = [board(p0, turn=3, turn_player=1), SET_BY_EFFECT[1]]
    check([*set_in_3, act("deck_qp", targets=["ox"])], "SPELL-12", "Set this turn")
    fold(*set_in_3, phase("end"), *turn(4, 0), act("deck_qp", targets=["ox"]))


@pytest.mark.parametrize("event", [
    pytest.param(st_set("pot", 4), id="spell-trap-set"),
    pytest.param(ev("monster_set", player=0, card="vorse", zone=3), id="monster-set"),
])
def test_prio_06_nothing_is_set_while_a_chain_is_open_or_resolving(event):
    """PRIO-06, TURN-04, CHAIN-05: Setting needs an open game state: not while a chain of two
    links is open, nor after its last link has resolved while the first is left."""
    p0 = {"hand": [*P0["hand"], c(VORSE, "vorse")], "mzone": [c(CELTIC, "celtic")]}
    for before in ([HOLE, act("decree", player=1)], [HOLE, act("decree", player=1), res(2)]):
        v = refused(board(p0), *before, event)
        assert v.index == len(before) + 1 and "chain" in v.message, v


STARGAZER, TIMEGAZER, MAN_EATER = 94415058, 20409757, 54652250


@pytest.mark.parametrize("p0, activation, rule", [
    pytest.param({"szone": [c(STARGAZER, "sg", position="faceup"), None, None, None,
                            c(TIMEGAZER, "tg", position="faceup")]},
                 act("sg", effect_type="pendulum"), "PEND-02", id="pendulum-effect"),
    pytest.param({"mzone": [c(MAN_EATER, "bug", position="defense")]},
                 act("bug", effect_type="flip", targets=["ox"]), "CHAIN-02", id="flip-effect"),
])
def test_chain_01_02_pendulum_and_flip_effects_are_speed_1(p0, activation, rule):
    """CHAIN-01, CHAIN-02, PEND-02: Pendulum Effects and Flip effects are Speed 1: they cannot
    respond (a Pendulum Effect also needs an open game state)."""
    check([board(p0), act("pot", zone=3), act("decree", player=1), activation], rule)
