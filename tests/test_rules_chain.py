"""Activations, Spell/Trap timing and chains (RULES.md §16-18; rules/chain.py, rules/spell_trap.py).

Every rule ID the two modules enforce has a legal case (the play folds and the state shows it) and
an illegal one (refused with exactly that ID, the state left as it was).
"""
from __future__ import annotations

import pytest
from duel import (
    BATTLE_OX, CELTIC, DARK_HOLE, MAGIC_JAMMER, MIRROR_FORCE, MONSTER_REBORN, MPZ, MST, POT, ROYAL_DECREE,
    SEVEN_TOOLS, STARDUST, STARGAZER, SUMMONED_SKULL, TIMEGAZER, TRAP_HOLE, VORSE, YAMI, fold, position,
    refused, refused_with)

from ygoreplay.events import from_dict
from ygoreplay.rules import RuleViolation, apply

EXILED_FORCE, SANGAN, WITCH, KURIBOH = 74131780, 26202165, 78010363, 40640057
BURNING_LAND, MIRROR_WALL, BOOK_OF_MOON = 24294108, 22359980, 14087893

# Player 0 (the turn player) and player 1, as most tests start them. Set cards are Set on an
# earlier turn unless a test says otherwise.
P0 = {
    "hand": [{"code": DARK_HOLE, "id": "hole"}, {"code": POT, "id": "pot"},
             {"code": MST, "id": "mst_hand"}, {"code": MONSTER_REBORN, "id": "reborn"},
             {"code": TRAP_HOLE, "id": "trap_hand"}, {"code": YAMI, "id": "yami"},
             {"code": STARGAZER, "id": "stargazer"}, {"code": VORSE, "id": "vorse"},
             {"code": KURIBOH, "id": "kuriboh"}, {"code": BURNING_LAND, "id": "land_hand"}],
    "mzone": [{"code": CELTIC, "id": "celtic"}, {"code": EXILED_FORCE, "id": "exiled"}],
    "szone": [{"code": SEVEN_TOOLS, "id": "tools"}, {"code": MST, "id": "mst"}],
    "gy": [{"code": SUMMONED_SKULL, "id": "skull"}, {"code": SANGAN, "id": "sangan"},
           {"code": POT, "id": "pot_gy"}],
    "extra": [{"code": STARDUST, "id": "stardust"}],
}
P1 = {
    "hand": [{"code": BATTLE_OX, "id": "p1_ox"}, {"code": MST, "id": "p1_mst"},
             {"code": POT, "id": "p1_pot"}],
    "mzone": [{"code": BATTLE_OX, "id": "ox"}],
    "szone": [{"code": ROYAL_DECREE, "id": "decree"}, {"code": MAGIC_JAMMER, "id": "jammer"},
              {"code": MIRROR_FORCE, "id": "mforce"}, None, {"code": BOOK_OF_MOON, "id": "book"}],
    "gy": [{"code": WITCH, "id": "witch"}],
}
SCALES = {"szone": [{"code": STARGAZER, "id": "sg"}, None, None, None,
                    {"code": TIMEGAZER, "id": "tg"}]}


def board(p0: dict | None = None, p1: dict | None = None, lp: int = 8000, **fields) -> dict:
    """The standard position, with some of player 0's or player 1's zones replaced."""
    return position({**P0, "lp": lp, **(p0 or {})}, {**P1, **(p1 or {})}, **fields)


def act(card: str, player: int = 0, **fields) -> dict:
    return {"kind": "activated", "player": player, "card": card, **fields}


def resolve(link: int) -> dict:
    return {"kind": "chain_link_resolved", "link": link}


def moved(card: str, player: int, zone: str = "gy", reason: str = "resolved", **fields) -> dict:
    return {"kind": "card_moved", "card": card, "to": [player, zone], "reason": reason, **fields}


def set_card(card: str, zone: int = 2, player: int = 0, **fields) -> dict:
    return {"kind": "spell_trap_set", "player": player, "card": card, "zone": zone, **fields}


END = {"kind": "chain_ended"}
BATTLE_STEP = {"phase": "battle", "step": "battle"}
HOLE = act("hole", zone=2)


def check_refused(events: list[dict], rule: str, says: str):
    """The last event is refused with exactly ``rule``, at its own index, saying ``says``."""
    return refused_with(events, rule, says)


def refused_without_override(events: list[dict], rule: str) -> None:
    """A cited event that cannot be applied anyway is refused and records no GEN-01 override."""
    state = fold(*events[:-1])
    with pytest.raises(RuleViolation) as info:
        apply(state, from_dict(events[-1]))
    assert info.value.rule == rule and state.overrides == []


# -- CHAIN-01: spell speeds ----------------------------------------------------------------------

SPEEDS = [
    pytest.param([], act("hole", zone=2, speed=1), 1, id="normal-spell-1"),
    pytest.param([], act("decree", player=1, speed=2), 2, id="continuous-trap-2"),
    pytest.param([], act("jammer", player=1, speed=3), 3, id="counter-trap-3-at-cl1"),
    pytest.param([], act("mst", speed=2, targets=["decree"]), 2, id="set-quickplay-2"),
    pytest.param([], act("exiled", effect_type="ignition", speed=1), 1, id="ignition-1"),
    pytest.param([HOLE], act("kuriboh", effect_type="quick", speed=2), 2, id="quick-effect-2"),
]


@pytest.mark.parametrize("before, activation, speed", SPEEDS)
def test_chain_01_recorded_speed_matches_the_card(before, activation, speed):
    """CHAIN-01: each activation has the Spell Speed its card or effect type gives it."""
    state = fold(board(), *before, activation)
    link = state.chain[-1]
    assert (link.card, link.speed, link.number) == (activation["card"], speed, len(before) + 1)


@pytest.mark.parametrize("before, activation, speed", SPEEDS)
def test_chain_01_wrong_recorded_speed_refused(before, activation, speed):
    """CHAIN-01: a record claiming another Spell Speed than the card's is refused."""
    wrong = {**activation, "speed": speed % 3 + 1}
    check_refused([board(), *before, wrong], "CHAIN-01", f"Spell Speed {speed}, not {speed % 3 + 1}")


# -- CHAIN-02 / CHAIN-08: Speed 1 only as Chain Link 1, simultaneous triggers excepted -----------

def test_chain_02_speed_1_starts_a_chain():
    """CHAIN-02: a Speed 1 Normal Spell is Chain Link 1, placed face-up in its zone."""
    state = fold(board(), act("pot", zone=2))
    assert [(l.number, l.speed) for l in state.chain] == [(1, 1)]
    assert state.sides[0].szone[2] == "pot" and state.cards["pot"].position == "faceup"


def test_chain_02_simultaneous_triggers_build_one_chain():
    """CHAIN-02 exception (CHAIN-08): simultaneous Speed 1 triggers are chained together."""
    state = fold(board(), act("sangan", effect_type="trigger", simultaneous=True),
                 act("witch", player=1, effect_type="trigger", simultaneous=True))
    assert [(l.card, l.speed) for l in state.chain] == [("sangan", 1), ("witch", 1)]


@pytest.mark.parametrize("activation", [
    pytest.param(act("pot", zone=2), id="normal-spell"),
    pytest.param(act("sangan", effect_type="trigger"), id="trigger"),
    pytest.param(act("sangan", effect_type="trigger", simultaneous=True), id="trigger-on-a-trap"),
])
def test_chain_02_speed_1_cannot_be_chain_link_2(activation):
    """CHAIN-02: a Speed 1 activation cannot respond to an open chain."""
    check_refused([board(), act("decree", player=1), activation], "CHAIN-02",
                  "can only be Chain Link 1")


# -- CHAIN-03: a response needs at least the speed of the link it answers -----------------------

@pytest.mark.parametrize("before, response", [
    pytest.param([act("decree", player=1)], act("mst", targets=["decree"]), id="speed-2-on-2"),
    pytest.param([act("jammer", player=1, targets=["hole"])], act("tools"), id="speed-3-on-3"),
    pytest.param([], act("jammer", player=1, targets=["hole"]), id="speed-3-on-1"),
])
def test_chain_03_equal_or_higher_speed_may_respond(before, response):
    """CHAIN-03: Speed 2 answers Speed 1 or 2; Speed 3 answers anything."""
    state = fold(board(), HOLE, *before, response)
    assert state.chain[-1].card == response["card"]
    assert state.cards[response["card"]].position == "faceup"


@pytest.mark.parametrize("response", [
    pytest.param(act("mst", targets=["jammer"]), id="set-quickplay"),
    pytest.param(act("kuriboh", effect_type="quick"), id="quick-effect"),
])
def test_chain_03_speed_2_cannot_answer_counter_trap(response):
    """CHAIN-03: a Speed 2 activation cannot respond to a Speed 3 Counter Trap."""
    check_refused([board(), HOLE, act("jammer", player=1, targets=["hole"]), response],
                  "CHAIN-03", "Chain Link 2 is Spell Speed 3")


# -- CHAIN-04: the next link answers the newest one ---------------------------------------------

def test_chain_04_links_are_numbered_in_order():
    """CHAIN-04: a response is the next chain link."""
    state = fold(board(), HOLE, act("decree", player=1, link=2))
    assert [l.number for l in state.chain] == [1, 2]


def test_chain_04_wrong_link_number_refused():
    """CHAIN-04: a response cannot claim another link number than the next one."""
    check_refused([board(), HOLE, act("decree", player=1, link=3)], "CHAIN-04",
                  "the next is Chain Link 2, not 3")


# -- CHAIN-05 / CHAIN-07: reverse resolution -----------------------------------------------------

WORKED_EXAMPLE = [
    board(turn=3),
    act("hole", zone=2, speed=1),
    act("decree", player=1, speed=2),
    act("mst", speed=2, targets=["decree"]),
    act("jammer", player=1, speed=3, targets=["mst"],
        costs=[{"card": "p1_ox", "to": "gy", "reason": "discarded"}]),
    act("tools", speed=3, costs=[{"lp": 1000}]),
]


def test_chain_05_worked_example_resolves_in_reverse():
    """CHAIN-05, CHAIN-07: the five-link worked example resolves last link first."""
    state = fold(
        *WORKED_EXAMPLE,
        resolve(5), {"kind": "chain_link_negated", "link": 4, "by": 5},
        moved("jammer", 1, reason="negated"),
        resolve(3), moved("decree", 1, reason="destroyed", cause="mst"),
        resolve(2), resolve(1),
        moved("celtic", 0, reason="destroyed", cause="hole"),
        moved("exiled", 0, reason="destroyed", cause="hole"),
        moved("ox", 1, reason="destroyed", cause="hole"),
        *(moved(card, 0) for card in ("tools", "mst", "hole")),
        END)
    assert not state.chain and not state.to_leave
    assert state.sides[0].lp == 7000                           # CHAIN-11: the cost stays paid
    assert state.sides[1].gy[-4:] == ["p1_ox", "jammer", "decree", "ox"]
    assert state.sides[0].gy[-5:] == ["celtic", "exiled", "tools", "mst", "hole"]
    assert not any(state.sides[0].mzone) and not any(state.sides[1].mzone)


@pytest.mark.parametrize("event, says", [
    pytest.param(resolve(4), "Chain Link 5 resolves before link 4", id="link-4-before-5"),
    pytest.param(END, "5 link(s) never resolved", id="chain-ended-early"),
])
def test_chain_05_out_of_order_resolution_refused(event, says):
    """CHAIN-05: the newest link resolves first, and a chain ends only when all have resolved."""
    check_refused([*WORKED_EXAMPLE, event], "CHAIN-05", says)


# -- CHAIN-10: summons and attack declarations are not activations ------------------------------

SUMMON_VORSE = {"kind": "normal_summoned", "player": 0, "card": "vorse", "zone": 2}


def test_chain_10_activation_after_a_summon_starts_a_new_chain():
    """CHAIN-10: a Trap answering a summon is Chain Link 1, not a response to the summon."""
    state = fold(board(), SUMMON_VORSE, act("mforce", player=1, link=1))
    assert [(l.number, l.card) for l in state.chain] == [(1, "mforce")]


def test_chain_10_nothing_to_chain_to_after_a_summon():
    """CHAIN-10: a summon is not an activation, so no Chain Link 2 can answer it."""
    check_refused([board(), SUMMON_VORSE, act("mforce", player=1, link=2)], "CHAIN-10",
                  "not activations and cannot be chained to")


# -- CHAIN-11 / LOG-04 / LOG-07: costs and link bookkeeping --------------------------------------

def test_chain_11_costs_are_paid_on_activation():
    """CHAIN-11, TERM-01: a discard and an LP cost are paid as the card is activated (a cost sends or
    discards; destroying is never one)."""
    state = fold(board(), HOLE,
                 act("jammer", player=1, costs=[{"card": "p1_ox", "to": "gy", "reason": "discarded"}]),
                 act("tools", costs=[{"lp": 1000}]))
    assert state.sides[1].gy[-1] == "p1_ox" and "p1_ox" not in state.sides[1].hand
    assert state.sides[0].lp == 7000


@pytest.mark.parametrize("lp", [1000, 1500])
def test_chain_11_lp_cost_up_to_all_your_lp(lp):
    """CHAIN-11, WIN-01: an LP cost may take all the LP a player has (and then they lose)."""
    state = fold(board(lp=lp), act("tools", costs=[{"lp": 1000}]))
    assert state.sides[0].lp == lp - 1000 and (0 in state.must_lose) == (lp == 1000)


def test_chain_11_lp_cost_above_your_lp_refused():
    """CHAIN-11: a player cannot pay an LP cost larger than their LP."""
    check_refused([board(lp=999), act("tools", costs=[{"lp": 1000}])], "CHAIN-11",
                  "has 999 LP and cannot pay a cost of 1000 LP")


@pytest.mark.parametrize("events, rule, says", [
    pytest.param([act("jammer", player=1, costs=[{"card": "jammer", "to": "gy"}])],
                 "LOG-04", "cannot pay itself", id="cost-is-itself"),
    pytest.param([resolve(1)], "LOG-07", "no chain is open", id="resolve-without-chain"),
    pytest.param([HOLE, resolve(3)], "LOG-07", "has no link 3", id="resolve-missing-link"),
    pytest.param([HOLE, act("jammer", player=1), {"kind": "chain_link_negated", "link": 2, "by": 1}],
                 "LOG-07", "only by a later link", id="negated-by-earlier-link"),
])
def test_log_04_log_07_chain_bookkeeping_refused(events, rule, says):
    """LOG-04/LOG-07: a self-paid cost and links that do not exist cannot be applied."""
    check_refused([board(), *events], rule, says)


# -- SPELL-04 / TRAP-04: what leaves the field after resolving -----------------------------------

@pytest.mark.parametrize("events, card, zone", [
    pytest.param([HOLE, resolve(1), moved("hole", 0)], "hole", "gy", id="spell-04-normal-spell-to-gy"),
    pytest.param([act("land_hand", zone=2), resolve(1)], "land_hand", "szone", id="spell-04-continuous-stays"),
    pytest.param([act("decree", player=1), resolve(1)], "decree", "szone", id="trap-04-continuous-stays"),
    pytest.param([act("mforce", player=1), resolve(1), moved("mforce", 1)], "mforce", "gy",
                 id="trap-04-normal-trap-to-gy"),
])
def test_spell_04_trap_04_resolved_cards_leave_or_stay(events, card, zone):
    """SPELL-04, TRAP-04: Normal Spells/Traps go to the GY; Continuous ones stay face-up."""
    state = fold(board(), *events, END)
    assert state.cards[card].zone == zone and not state.to_leave
    assert state.cards[card].position == ("faceup" if zone == "szone" else None)


@pytest.mark.parametrize("events, rule, card", [
    pytest.param([HOLE, resolve(1)], "SPELL-04", "hole", id="normal-spell-left-on-field"),
    pytest.param([act("mforce", player=1), resolve(1)], "TRAP-04", "mforce", id="normal-trap-left"),
    pytest.param([HOLE, act("jammer", player=1), act("tools"), resolve(3),
                  {"kind": "chain_link_negated", "link": 2, "by": 3}, resolve(1),
                  moved("tools", 0), moved("hole", 0)], "TRAP-04", "jammer",
                 id="negated-counter-trap-left"),
])
def test_spell_04_trap_04_resolved_card_left_on_field_refused(events, rule, card):
    """SPELL-04, TRAP-04: the chain cannot end while a resolved or negated card stays face-up."""
    check_refused([board(), *events, END], rule, f"({card}) must leave the field")


def set_again(card: str, cause: str | None = None, player: int = 0) -> dict:
    event = {"kind": "position_changed", "player": player, "card": card, "position": "set"}
    return event if cause is None else {**event, "cause": cause}


@pytest.mark.parametrize("events, card", [
    pytest.param([act("mforce", player=1), resolve(1), set_again("mforce", "mforce", 1)], "mforce",
                 id="trap-set-again-by-its-own-effect"),
    pytest.param([act("mforce", player=1), act("tools"), resolve(2), {"kind": "chain_link_negated", "link": 1,
                  "by": 2}, moved("tools", 0), set_again("mforce", "tools", 1)], "mforce",
                 id="negated-trap-set-again-by-another-effect"),
])
def test_spell_04_trap_04_a_card_an_effect_sets_again_stays_on_the_field(events, card):
    """SPELL-03, SPELL-04, TRAP-04: an effect may turn a Spell/Trap face-down again instead of its
    going to the GY (EDOPro shows it as MSG_POS_CHANGE); Set again, it stays, as a card Set now."""
    state = fold(board(), *events, END)
    moved_card = state.cards[card]
    assert (moved_card.zone, moved_card.position, moved_card.set_turn) == ("szone", "set", 2)
    assert not state.to_leave and state.overrides == []


def test_spell_03_a_spell_trap_turned_face_down_needs_an_effect():
    """SPELL-03: no basic rule turns a face-up Spell/Trap face-down: an effect does (its cause)."""
    check_refused([board(), act("mforce", player=1), resolve(1), set_again("mforce", player=1)],
                  "SPELL-03", "only an effect turns Mirror Force face-down")


# -- CHAIN-11: costs are paid in the order recorded ---------------------------------------------------

@pytest.mark.parametrize("costs, gy_end", [
    pytest.param(["exiled", "kuriboh"], ["exiled", "kuriboh"], id="itself-first"),
    pytest.param(["kuriboh", "exiled"], ["kuriboh", "exiled"], id="itself-last"),
])
def test_chain_11_costs_are_paid_in_their_order_the_activating_monster_included(costs, gy_end):
    """CHAIN-11, ZONE-13: an activation's costs are paid in the order the record lists them, the
    monster whose effect it is among them ("Tribute this card"): the GY shows that order (EDOPro
    moves the activating card first when it pays with itself)."""
    paid = [{"card": c, "to": "gy", "reason": "tributed" if c == "exiled" else "discarded"} for c in costs]
    state = fold(board(), act("exiled", effect_type="ignition", costs=paid))
    assert state.sides[0].gy[-2:] == gy_end and state.chain[0].card == "exiled"


# -- TERM-05: hidden cards cannot be targeted ----------------------------------------------------

@pytest.mark.parametrize("activation, target", [
    pytest.param(act("reborn", zone=2, targets=["skull"]), "skull", id="gy-monster"),
    pytest.param(act("mst", targets=["decree"]), "decree", id="set-card-on-field"),
])
def test_term_05_public_cards_can_be_targeted(activation, target):
    """TERM-05: cards on the field (even Set) and in the GY can be targeted."""
    state = fold(board(), activation)
    assert state.chain[0].targets == (target,)


@pytest.mark.parametrize("target, zone", [
    ("vorse", "hand"), ("p0.s1", "deck"), ("stardust", "extra")])
def test_term_05_hidden_cards_cannot_be_targeted(target, zone):
    """TERM-05: a card in the hand, Deck or face-down Extra Deck is not a legal target."""
    check_refused([board(), act("reborn", zone=2, targets=[target])], "TERM-05",
                  f"hidden zone ({zone})")


# -- CTRL-01: only the controller activates a card or its effects --------------------------------

@pytest.mark.parametrize("activation", [
    pytest.param(act("decree", player=0), id="opponents-set-trap"),
    pytest.param(act("ox", player=0, effect_type="ignition"), id="opponents-monster-effect"),
])
def test_ctrl_01_cannot_activate_opponents_card(activation):
    """CTRL-01: a player cannot activate a card or an effect of a card they do not control."""
    check_refused([board(), activation], "CTRL-01", "player 0 does not control")


def test_ctrl_01_controller_activates_own_set_card_in_opponents_turn():
    """CTRL-01, TRAP-02: player 1 activates their own Set Trap during player 0's turn."""
    state = fold(board(), act("decree", player=1))
    assert (state.chain[0].player, state.cards["decree"].position) == (1, "faceup")


# -- EFF-02 / PEND-02: Ignition and Pendulum Effects need an open game state ----------------------

def test_eff_02_ignition_effect_in_open_game_state():
    """EFF-02: an Ignition effect is Chain Link 1 in the controller's own Main Phase."""
    state = fold(board(), act("exiled", effect_type="ignition"))
    assert (state.chain[0].effect_type, state.chain[0].speed) == ("ignition", 1)


@pytest.mark.parametrize("setup, before, says", [
    pytest.param(BATTLE_STEP, [], "Battle Phase", id="battle-phase"),
    pytest.param({"turn_player": 1}, [], "not their turn", id="opponents-turn"),
    pytest.param({}, [act("decree", player=1)], "chain of 1 link(s) is open", id="chain-open"),
])
def test_eff_02_ignition_effect_outside_open_game_state_refused(setup, before, says):
    """EFF-02: no Ignition effect in the Battle Phase, the opponent's turn, or as a response."""
    check_refused([board(**setup), *before, act("exiled", effect_type="ignition")], "EFF-02", says)


def test_pend_02_pendulum_effect_from_a_pendulum_zone():
    """PEND-02: a Pendulum Effect is activated from the Pendulum Zone at Speed 1."""
    state = fold(board(SCALES), act("sg", effect_type="pendulum"))
    assert (state.chain[0].card, state.chain[0].speed) == ("sg", 1)


@pytest.mark.parametrize("setup, card, says", [
    pytest.param(BATTLE_STEP, "sg", "open game state", id="battle-phase"),
    pytest.param({}, "stargazer", "only while it is in a Pendulum Zone", id="from-the-hand"),
])
def test_pend_02_pendulum_effect_refused(setup, card, says):
    """PEND-02: a Pendulum Effect is Speed 1, in the Main Phase, from a Pendulum Zone only."""
    check_refused([board(SCALES, **setup), act(card, effect_type="pendulum")], "PEND-02", says)


# -- LOG-02 / LOG-05: what can be activated at all -----------------------------------------------

@pytest.mark.parametrize("setup, activation, rule, says", [
    pytest.param({}, act("pot_gy", zone=2), "LOG-02", "is in the gy", id="spell-in-gy"),
    pytest.param({"szone": [{"code": BURNING_LAND, "id": "land", "position": "faceup"}]},
                 act("land"), "LOG-02", "already face-up", id="face-up-card-again"),
    pytest.param({}, act("celtic"), "LOG-02", "name the effect_type", id="monster-on-field"),
    pytest.param({}, act("vorse"), "LOG-05", "is a monster", id="monster-in-hand"),
])
def test_log_02_log_05_card_that_cannot_be_activated_refused(setup, activation, rule, says):
    """LOG-02/LOG-05: a Spell in the GY, a face-up card, a monster card are not card activations."""
    check_refused([board(setup), activation], rule, says)


# -- PEND-01 / ZONE-09: Pendulum Scales ----------------------------------------------------------

@pytest.mark.parametrize("zone", [0, 4])
def test_pend_01_zone_09_scale_activated_in_outer_zone(zone):
    """PEND-01, ZONE-09: a Pendulum monster is activated as a Spell into zone 0 or 4."""
    state = fold(board({"szone": []}), act("stargazer", zone=zone))
    assert state.sides[0].szone[zone] == "stargazer"
    assert (state.cards["stargazer"].position, state.chain[0].speed) == ("faceup", 1)


def test_pend_01_pendulum_monster_cannot_be_set():
    """PEND-01: a Pendulum monster cannot be Set in a Spell & Trap Zone."""
    check_refused([board(), set_card("stargazer", zone=4)], "PEND-01", "cannot be Set")


def test_zone_09_scale_in_middle_zone_refused():
    """ZONE-09: the Pendulum Zones are the outer S/T zones only."""
    check_refused([board({"szone": []}), act("stargazer", zone=2)], "ZONE-09", "zones 0 and 4, not 2")


# -- SPELL-02: non-Quick-Play Spells in your own open game state ---------------------------------

@pytest.mark.parametrize("setup", [{}, {"phase": "main2"}], ids=["main1", "main2"])
def test_spell_02_normal_spell_in_own_main_phase(setup):
    """SPELL-02: a Normal Spell is activated in either of your Main Phases."""
    state = fold(board(**setup), act("pot", zone=3))
    assert state.sides[0].szone[3] == "pot" and state.chain[0].is_card_activation


@pytest.mark.parametrize("setup, activation, says", [
    pytest.param(BATTLE_STEP, act("pot", zone=2), "Battle Phase", id="battle-phase"),
    pytest.param({}, act("p1_pot", player=1, zone=3), "not their turn", id="opponents-turn"),
    pytest.param(BATTLE_STEP, act("stargazer", zone=4), "Main Phase", id="scale-in-battle-phase"),
])
def test_spell_02_speed_1_spell_outside_own_main_phase_refused(setup, activation, says):
    """SPELL-02: Normal Spells and Pendulum Scales need your own Main Phase."""
    p0 = {"szone": []} if activation["card"] == "stargazer" else None
    check_refused([board(p0, **setup), activation], "SPELL-02", says)


# -- SPELL-03 / TURN-04: Setting Spells and Traps -------------------------------------------------

def test_spell_03_set_spell_activated_the_same_turn():
    """SPELL-03: a Set Normal Spell may be activated the turn it was Set."""
    state = fold(board(), set_card("pot"), act("pot"))
    assert state.cards["pot"].position == "faceup" and state.chain[0].card == "pot"


@pytest.mark.parametrize("event, says", [
    pytest.param(set_card("pot_gy"), "not in player 0's hand", id="from-gy"),
    pytest.param(set_card("vorse"), "is a monster", id="monster"),
])
def test_spell_03_only_spells_and_traps_from_hand_are_set(event, says):
    """SPELL-03: only a Spell or Trap from your hand is Set."""
    check_refused([board(), event], "SPELL-03", says)


def test_turn_04_set_in_main_phase_2():
    """TURN-04: Spells and Traps are Set in either Main Phase."""
    state = fold(board(phase="main2"), set_card("trap_hand", zone=3))
    card = state.cards["trap_hand"]
    assert (card.zone, card.position, card.set_turn) == ("szone", "set", 2)


@pytest.mark.parametrize("setup, event, says", [
    pytest.param(BATTLE_STEP, set_card("pot"), "Battle Phase", id="battle-phase"),
    pytest.param({}, set_card("p1_mst", zone=3, player=1), "not their turn", id="opponents-turn"),
])
def test_turn_04_set_outside_own_main_phase_refused(setup, event, says):
    """TURN-04: a card is Set only in your own Main Phase with an open game state."""
    check_refused([board(**setup), event], "TURN-04", says)


# -- SPELL-10: effects of Continuous cards while face-up ----------------------------------------

@pytest.mark.parametrize("code, speed", [(BURNING_LAND, 1), (MIRROR_WALL, 2)])
def test_spell_10_face_up_continuous_card_activates_its_effect(code, speed):
    """SPELL-10, SPELL-08, TRAP-05: a face-up Continuous card's effect: Speed 1 (Spell), 2 (Trap)."""
    state = fold(board({"szone": [{"code": code, "id": "cont", "position": "faceup"}]}),
                 act("cont", effect_type="continuous"))
    assert state.chain[0].speed == speed


@pytest.mark.parametrize("p0, card", [
    pytest.param({"szone": [{"code": BURNING_LAND, "id": "land", "position": "set"}]}, "land",
                 id="set-face-down"),
    pytest.param({}, "land_hand", id="in-hand"),
])
def test_spell_10_continuous_effect_off_the_field_refused(p0, card):
    """SPELL-10: a Continuous card applies its effects only face-up in its zone."""
    check_refused([board(p0), act(card, effect_type="continuous")], "SPELL-10", "only while face-up")


# -- SPELL-12: Quick-Play Spells -----------------------------------------------------------------

@pytest.mark.parametrize("setup, before, activation", [
    pytest.param(BATTLE_STEP, [], act("mst_hand", zone=2, targets=["decree"]), id="hand-own-battle-phase"),
    pytest.param({}, [HOLE], act("book", player=1, targets=["celtic"]), id="set-in-opponents-turn"),
])
def test_spell_12_quick_play_spell_timing(setup, before, activation):
    """SPELL-12: from the hand in your own turn; once Set, in either turn (not the turn Set)."""
    state = fold(board(**setup), *before, activation)
    assert (state.chain[-1].card, state.chain[-1].speed) == (activation["card"], 2)


@pytest.mark.parametrize("p0, before, activation, says", [
    pytest.param(None, [HOLE], act("p1_mst", player=1, zone=3, targets=["tools"]),
                 "only in your own turn", id="hand-opponents-turn"),
    pytest.param({"szone": [None, {"code": MST, "id": "mst", "set": True}]}, [],
                 act("mst", targets=["decree"]), "was Set this turn", id="set-this-turn"),
])
def test_spell_12_quick_play_spell_timing_refused(p0, before, activation, says):
    """SPELL-12: not from the hand in the opponent's turn, not the turn it was Set."""
    check_refused([board(p0), *before, activation], "SPELL-12", says)


# -- TRAP-02 / GEN-01: Traps are Set first, and wait a turn --------------------------------------

def test_trap_02_set_trap_in_opponents_turn():
    """TRAP-02: a Trap Set on an earlier turn is activated in the opponent's turn."""
    state = fold(board(), SUMMON_VORSE, act("mforce", player=1, targets=["vorse"]))
    assert state.cards["mforce"].position == "faceup" and state.chain[0].speed == 2


@pytest.mark.parametrize("before, activation, says", [
    pytest.param([], act("trap_hand", zone=2), "must be Set", id="from-hand"),
    pytest.param([set_card("trap_hand")], act("trap_hand"), "Set this turn", id="set-this-turn"),
])
def test_trap_02_trap_timing_refused(before, activation, says):
    """TRAP-02: a Trap cannot be activated from the hand, nor on the turn it was Set."""
    check_refused([board(), *before, activation], "TRAP-02", says)


@pytest.mark.parametrize("before, activation", [
    pytest.param([set_card("trap_hand")], act("trap_hand"), id="the-turn-it-was-set"),
    pytest.param([], act("trap_hand", zone=3), id="from-the-hand"),
])
def test_gen_01_cited_effect_overrides_trap_timing(before, activation):
    """GEN-01, TRAP-03: a Trap activated against TRAP-02 by a cited effect is accepted and listed."""
    cite = {"card": "temple", "effect": "Temple of the Kings: Traps can be activated the turn Set"}
    state = fold(board(), *before, {**activation, "cite": cite})
    assert state.cards["trap_hand"].position == "faceup" and state.chain[0].card == "trap_hand"
    [override] = state.overrides
    assert (override.rule, override.cite.card, override.index) == ("TRAP-02", "temple", len(before) + 1)
    assert "temple" in override.cite.effect.lower()


@pytest.mark.parametrize("event, rule", [
    pytest.param(act("trap_hand", zone=1), "ZONE-08", id="trap-02-cited-zone-taken"),
    pytest.param(act("decree", player=0, zone=9), "LOG-02", id="ctrl-01-cited-already-on-field"),
    pytest.param(set_card("p1_mst", zone=0, player=1), "ZONE-08", id="turn-04-cited-zone-taken"),
])
def test_gen_01_cited_but_impossible_event_records_no_override(event, rule):
    """GEN-01: an override is recorded only for an event that is applied."""
    p1 = {"szone": [{"code": MST, "id": "p1_set"}, {"code": ROYAL_DECREE, "id": "decree", "position": "faceup"}]}
    refused_without_override([board(None, p1), {**event, "cite": "effect"}], rule)


# -- ZONE-08 / ZONE-10 / SPELL-11: where activated and Set cards go -------------------------------

def test_zone_08_set_in_free_zone_and_field_zone_is_not_counted():
    """ZONE-08, ZONE-10: with all 5 S/T zones full a Field Spell can still be activated."""
    full = {"szone": [{"code": SEVEN_TOOLS, "id": "tools"}, {"code": MST, "id": "mst"}]}
    state = fold(board(full), set_card("pot", zone=2), set_card("trap_hand", zone=3),
                 set_card("mst_hand", zone=4), act("yami", field_zone=True))
    assert all(state.sides[0].szone) and state.sides[0].fzone == "yami"


@pytest.mark.parametrize("event, says", [
    pytest.param(set_card("pot", zone=0), "holds tools already", id="set-into-occupied"),
    pytest.param(set_card("pot", zone=5), "does not exist", id="set-into-zone-5"),
    pytest.param(act("hole", zone=1), "holds mst already", id="spell-into-occupied"),
    pytest.param(act("mst_hand", zone=0, targets=["decree"]), "holds tools already",
                 id="quickplay-into-occupied"),
    pytest.param(act("mst_hand", targets=["decree"]), "None", id="quickplay-without-zone"),
    pytest.param(act("pot"), "None", id="spell-without-zone"),
    pytest.param({**act("trap_hand", zone=1), "cite": "hand-trap-effect"}, "holds mst already",
                 id="cited-hand-trap-into-occupied"),
])
def test_zone_08_spell_trap_zone_must_exist_and_be_free(event, says):
    """ZONE-08: a Set or activated card needs one of the 5 S/T zones, and a free one."""
    check_refused([board(), event], "ZONE-08", says)


@pytest.mark.parametrize("event", [
    pytest.param(act("yami", field_zone=True), id="activated"),
    pytest.param({"kind": "spell_trap_set", "player": 0, "card": "yami", "field_zone": True}, id="set"),
])
def test_spell_11_new_field_spell_sends_old_one_to_gy(event):
    """ZONE-10, SPELL-11: a new Field Spell goes to the Field Zone; the old one goes to the GY."""
    state = fold(board({"fzone": {"code": MPZ, "id": "mpz"}}, {"fzone": {"code": MPZ, "id": "p1_mpz"}}), event)
    assert state.sides[0].fzone == "yami" and state.cards["mpz"].zone == "gy"
    assert state.sides[1].fzone == "p1_mpz"                    # the opponent's is untouched


@pytest.mark.parametrize("event, says", [
    pytest.param(set_card("yami", zone=2), "only the Field Zone", id="set-field-spell-in-szone"),
    pytest.param({"kind": "spell_trap_set", "player": 0, "card": "pot", "field_zone": True},
                 "not the Field Zone", id="set-normal-spell-in-fzone"),
    pytest.param(act("yami", zone=2), "activated in the Field Zone", id="activate-field-in-szone"),
])
def test_zone_10_field_spells_and_only_they_use_the_field_zone(event, says):
    """ZONE-10: the Field Zone holds a Field Spell, and a Field Spell goes nowhere else."""
    check_refused([board(), event], "ZONE-10", says)


# -- TERM-14, SPELL-06: a negated activation does nothing ----------------------------------------

AXE, SWORDS = 40619825, 72302403
JAMMER_COST = [{"card": "p1_ox", "to": "gy", "reason": "discarded"}]
AXE_NEGATED = [board({"hand": [{"code": AXE, "id": "axe"}, {"code": DARK_HOLE, "id": "hole"}]}),
               act("axe", zone=2, targets=["celtic"]), act("jammer", player=1, negates=1, costs=JAMMER_COST),
               resolve(2), moved("jammer", 1)]
NEGATED_LINK_1 = {"kind": "chain_link_negated", "link": 1, "by": 2}


def test_term_14_spell_06_a_negated_equip_equips_nothing_and_goes_to_the_gy():
    """SPELL-06, TERM-14: Magic Jammer negates Axe of Despair's activation: nothing is equipped, no
    ATK changes, and the Axe goes to the GY as the chain ends."""
    state = fold(*AXE_NEGATED, NEGATED_LINK_1, moved("axe", 0), END)
    axe, celtic = state.cards["axe"], state.cards["celtic"]
    assert (axe.zone, axe.equipped_to, state.equips) == ("gy", None, [])
    assert celtic.current_atk == celtic.facts.base_atk


@pytest.mark.parametrize("events, rule, says", [
    pytest.param([resolve(1)], "TERM-14", "Chain Link 2 negated its activation", id="negated-link-resolves"),
    pytest.param([NEGATED_LINK_1, {"kind": "stats_changed", "card": "celtic", "atk": 2400, "cause": "axe"}],
                 "SPELL-06", "equips nothing and changes nothing", id="negated-equip-changes-atk"),
    pytest.param([NEGATED_LINK_1, END], "SPELL-06", "(axe) must leave the field", id="negated-equip-stays"),
])
def test_term_14_spell_06_a_negated_equip_refused(events, rule, says):
    """TERM-14, SPELL-06: a link whose activation was negated does not resolve, applies nothing,
    and its Spell card goes to the GY at the chain's end."""
    check_refused([*AXE_NEGATED, *events], rule, says)


def test_term_14_a_negated_normal_spell_destroys_nothing():
    """TERM-14: Dark Hole negated by Magic Jammer destroys nothing: a move it caused is refused."""
    negated = [board(), HOLE, act("jammer", player=1, negates=1, costs=JAMMER_COST), resolve(2),
               moved("jammer", 1), NEGATED_LINK_1]
    fold(*negated, moved("hole", 0), END)
    check_refused([*negated, moved("ox", 1, reason="destroyed", cause="hole")], "TERM-14", "applies nothing")


# -- SPELL-04: Normal Spells whose text keeps them on the field -----------------------------------

SWORDS_BOARD = board({"hand": [{"code": SWORDS, "id": "swords"}, {"code": MONSTER_REBORN, "id": "reborn"}]})


def test_spell_04_swords_of_revealing_light_stays_on_the_field():
    """SPELL-04: a Normal Spell goes to the GY once resolved, except one whose text keeps it on the
    field (Swords of Revealing Light: the card facts list ``spell_trap.STAYS_ON_THE_FIELD``). A
    card the list does not name stays only when the record cites the card's text."""
    state = fold(SWORDS_BOARD, act("swords", zone=2), resolve(1), END)
    assert (state.cards["swords"].zone, state.cards["swords"].position) == ("szone", "faceup")
    cited = fold(SWORDS_BOARD, act("reborn", zone=2, targets=["skull"]), resolve(1),
                 {"kind": "special_summoned", "player": 0, "card": "skull", "zone": 2, "cause": "reborn"},
                 {**END, "cite": {"card": "reborn", "effect": "stays on the field (its text)"}})
    assert cited.cards["reborn"].zone == "szone" and [o.rule for o in cited.overrides] == ["SPELL-04"]


def test_spell_04_negated_swords_of_revealing_light_goes_to_the_gy_refused():
    """SPELL-04, TERM-14: only a resolved Swords stays; its negated activation goes to the GY."""
    check_refused([SWORDS_BOARD, act("swords", zone=2), act("jammer", player=1, negates=1, costs=JAMMER_COST),
                   resolve(2), moved("jammer", 1), NEGATED_LINK_1, END], "SPELL-04", "(swords) must leave the field")


# -- CTRL-01: a card that left the field is its owner's -------------------------------------------

CHANGE_OF_HEART = 4031928
STOLEN = [board({"hand": [{"code": DARK_HOLE, "id": "hole"}, {"code": CHANGE_OF_HEART, "id": "coh"},
                          {"code": POT, "id": "pot"}]},
                {"mzone": [{"code": SANGAN, "id": "p1_sangan"}]}),
          act("coh", zone=2, targets=["p1_sangan"]), resolve(1),
          {"kind": "control_changed", "card": "p1_sangan", "to_player": 0, "zone": 2, "cause": "coh"},
          moved("coh", 0), END, HOLE, resolve(1),
          *[moved(card, owner, reason="destroyed", cause="hole") for card, owner in
            (("celtic", 0), ("exiled", 0), ("p1_sangan", 1))],
          moved("hole", 0), END]


def test_ctrl_01_a_stolen_card_in_its_owners_gy_is_its_owners():
    """CTRL-01, CTRL-03: Sangan taken by Change of Heart and destroyed: the player who controlled it
    as it left activates its trigger in the next chain; after that it is its owner's card."""
    state = fold(*STOLEN, act("p1_sangan", player=0, effect_type="trigger"), resolve(1), END)
    assert state.cards["p1_sangan"].controller == 1 and state.cards["p1_sangan"].last_controller is None
    fold(*STOLEN, act("p1_sangan", player=1, effect_type="trigger", cite={"card": "p1_sangan", "effect": "x"}))


@pytest.mark.parametrize("later", [
    pytest.param([act("pot", zone=2), resolve(1), moved("pot", 0), END], id="after-another-chain"),
    pytest.param([{"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "turn": 3, "player": 1},
                  {"kind": "phase_entered", "phase": "draw"}], id="next-turn"),
])
def test_ctrl_01_the_thief_cannot_activate_it_in_its_owners_gy_later(later):
    """CTRL-01: once its trigger's timing has passed, the stolen card in its owner's GY is the
    owner's: the player who stole it cannot activate its effects there."""
    check_refused([*STOLEN, *later, act("p1_sangan", player=0, effect_type="trigger")], "CTRL-01",
                  "player 0 does not control Sangan")
