"""Rules that needed no card text and were not enforced (issue 13, part 2): priority and passes,
what a negation applies to, summons negated or made together, what follows a loss mid-chain,
Tokens face-down, Ritual Tributes from the hand, Flip effects and the Damage Step, Field Spell
replacement, costs of negated links, the last controller of a card that left the field.

Every rule has a legal case and an illegal one refused with exactly that ID.
"""
from __future__ import annotations

import pytest
from duel import (
    BATTLE_OX, CELTIC, DARK_HOLE, MAGIC_JAMMER, MST, ODD_EYES, ROYAL_DECREE, SEVEN_TOOLS, SHEEP_TOKEN,
    STARGAZER, TIMEGAZER, VORSE, fold, position, refused, refused_with)
from test_rules_turn import MAIN_POOL, START, cards_of, draw, register, turn

from ygoreplay import i18n
from ygoreplay.cards import CardDB
from ygoreplay.events import from_dict
from ygoreplay.rules import audit

SANGAN, SOLEMN, MAN_EATER, YAMI, MPZ = 26202165, 41420027, 54652250, 59197169, 18161786
BLACK_LUSTER_SOLDIER, BLACK_LUSTER_RITUAL, CHANGE_OF_HEART = 5405694, 55761792, 4031928


def c(code: int, card_id: str, **flags) -> dict:
    return {"code": code, "id": card_id, **flags}


def ev(kind: str, **fields) -> dict:
    return {"kind": kind, **fields}


def act(card: str, player: int = 0, **fields) -> dict:
    return ev("activated", player=player, card=card, **fields)


def passed(player: int) -> dict:
    return ev("priority_passed", player=player)


def moved(card: str, to: list, reason: str = "resolved", **fields) -> dict:
    return ev("card_moved", card=card, to=to, reason=reason, **fields)


RESOLVE_1, RESOLVE_2, END = ev("chain_link_resolved", link=1), ev("chain_link_resolved", link=2), ev("chain_ended")

P0 = {"hand": [c(DARK_HOLE, "hole"), c(MST, "mst_hand"), c(CELTIC, "celtic_hand")],
      "szone": [c(SEVEN_TOOLS, "tools", position="set"), c(MST, "mst", position="set")]}
P1 = {"szone": [c(ROYAL_DECREE, "decree", position="set"), c(MAGIC_JAMMER, "jammer", position="set"),
                c(MST, "p1_mst", position="set")],
      "hand": [c(BATTLE_OX, "p1_ox"), c(VORSE, "p1_vorse")]}


def board(p0: dict | None = None, p1: dict | None = None, **fields) -> dict:
    return position({**P0, **(p0 or {})}, {**P1, **(p1 or {})}, **fields)


def check(events: list[dict], rule: str, says: str = "") -> None:
    refused_with(events, rule, says)


def close(*cards: tuple[str, int]) -> list[dict]:
    return [moved(card, [player, "gy"]) for card, player in cards] + [END]


# -- PRIO-01/03, CHAIN-04: priority and passes --------------------------------------------------

HOLE = act("hole", zone=2)


def test_chain_04_a_chain_resolves_after_both_players_pass():
    """CHAIN-04, PRIO-03: the opponent of the activating player passes first, then that player."""
    state = fold(board(), HOLE, passed(1), passed(0), RESOLVE_1, *close(("hole", 0)))
    assert state.cards["hole"].zone == "gy" and state.passes_recorded


def test_chain_04_a_record_without_passes_is_not_held_to_them():
    fold(board(), HOLE, RESOLVE_1, *close(("hole", 0)))


@pytest.mark.parametrize("events, rule, says", [
    pytest.param([HOLE, passed(1), RESOLVE_1], "CHAIN-04", "1 pass(es) since Chain Link 1", id="one-pass"),
    pytest.param([HOLE, passed(1), passed(0), RESOLVE_1, *close(("hole", 0)), act("mst_hand", zone=3,
                  targets=["decree"]), RESOLVE_1], "CHAIN-04", "0 pass(es)", id="passes-earlier-not-now"),
    pytest.param([HOLE, passed(1), passed(0), passed(1)], "CHAIN-04", "the chain resolves now", id="third-pass"),
    pytest.param([HOLE, passed(0)], "PRIO-03", "player 1 holds priority, not player 0", id="activator-passes-first"),
    pytest.param([HOLE, passed(1), passed(1)], "PRIO-03", "player 0 holds priority, not player 1",
                 id="same-player-twice"),
    pytest.param([passed(1)], "PRIO-01", "the turn player holds priority first", id="opponent-passes-first"),
    pytest.param([passed(0), passed(0)], "PRIO-03", "passed it to player 1", id="turn-player-twice"),
])
def test_prio_chain_04_passes_refused(events, rule, says):
    check([board(), *events], rule, says)


@pytest.mark.parametrize("events, language, reads", [
    pytest.param([passed(1)], "ja", "優先権はまずターンプレイヤーが持つ：優先権を持つのはプレイヤー0で、プレイヤー1ではない",
                 id="prio-01-ja"),
    pytest.param([passed(1)], "ko", "우선권은 먼저 턴 플레이어가 가진다: 우선권을 가진 것은 플레이어 0이며 플레이어 1가 아니다",
                 id="prio-01-ko"),
    pytest.param([passed(0), passed(0)], "zh-Hans", "玩家0已将优先权交给玩家1：持有优先权的是玩家1，不是玩家0",
                 id="prio-03-zh-Hans"),
    pytest.param([passed(0), passed(0)], "zh-Hant", "玩家0已將優先權交給玩家1：持有優先權的是玩家1，不是玩家0",
                 id="prio-03-zh-Hant"),
])
def test_prio_01_03_a_refused_pass_reads_wholly_in_the_readers_language(events, language, reads):
    """PRIO-01, PRIO-03: the reason a pass is refused is a catalogued sentence of its own; it was an
    English f-string, left English inside the translated refusal. The record keeps the English."""
    v = refused(board(), *events)
    assert v.rule == ("PRIO-01" if len(events) == 1 else "PRIO-03")
    with i18n.using(language):
        assert i18n.said(v.message) == reads, i18n.said(v.message)
    assert v.message.endswith("not player 1" if len(events) == 1 else "not player 0")


def test_prio_01_a_refused_pass_leaves_a_record_without_passes():
    """PRIO-01: a refused pass changes nothing, so the record is still not held to passes."""
    state = fold(board())
    with pytest.raises(Exception) as info:
        fold(board(), passed(1))
    assert getattr(info.value, "rule", None) == "PRIO-01"
    from ygoreplay.rules import apply
    with pytest.raises(Exception):
        apply(state, from_dict(passed(1)))
    assert not state.passes_recorded and state.passes == 0
    fold(board(), HOLE, RESOLVE_1, *close(("hole", 0)))


def test_chain_04_the_activating_player_adds_a_link_once_the_opponent_passed():
    state = fold(board(), HOLE, passed(1), act("mst", targets=["decree"]), passed(1), passed(0),
                 RESOLVE_2)
    assert [link.card for link in state.chain] == ["hole"]


def test_chain_04_no_link_on_your_own_before_the_opponent_is_asked():
    check([board(), HOLE, passed(1), passed(0), act("mst", targets=["decree"])][:2] + [
        passed(1), act("mst", targets=["decree"]), act("tools", costs=[{"lp": 1000}])], "CHAIN-04",
        "player 1 is asked first")


def test_prio_01_the_opponent_activates_once_the_turn_player_passed():
    fold(board(), passed(0), act("p1_mst", player=1, targets=["mst"]), passed(0), passed(1), RESOLVE_1)
    check([board(), HOLE, passed(1), passed(0), RESOLVE_1, *close(("hole", 0)),
           act("p1_mst", player=1, targets=["mst"])], "PRIO-01", "the turn player holds it first")


# -- TRAP-06: a negating Counter Trap chains directly to what it negates --------------------------

JAMMER_COST = [{"card": "p1_ox", "to": "gy", "reason": "discarded"}]


def test_trap_06_counter_trap_negates_the_link_it_chains_to():
    state = fold(board(), HOLE, act("jammer", player=1, negates=1, costs=JAMMER_COST), RESOLVE_2,
                 ev("chain_link_negated", link=1, by=2))
    assert state.chain == [] and "hole" in state.to_leave


@pytest.mark.parametrize("negates, rule, says", [
    pytest.param(1, "TRAP-06", "negates only the activation it chains directly to, Chain Link 2", id="a-link-below"),
    pytest.param(3, "LOG-07", "no Chain Link 3", id="no-such-link"),
])
def test_trap_06_counter_trap_negating_another_link_refused(negates, rule, says):
    check([board(), HOLE, act("p1_mst", player=1, targets=["mst"]),
           act("jammer", player=1, negates=negates, costs=JAMMER_COST)][:2] + [
        passed(1), act("mst", targets=["p1_mst"]), act("jammer", player=1, negates=negates, costs=JAMMER_COST)],
        rule, says)


def test_trap_06_cited_card_negates_any_link():
    fold(board(), HOLE, passed(1), act("mst", targets=["p1_mst"]),
         act("jammer", player=1, negates=1, costs=JAMMER_COST, cite={"card": "jammer", "effect": "negates every link"}))


# -- TERM-14: the cost of a negated link stays paid -----------------------------------------------

NEGATED = [board(), HOLE, act("jammer", player=1, negates=1, costs=JAMMER_COST),
           act("tools", negates=2, costs=[{"lp": 1000}]), ev("chain_link_resolved", link=3),
           ev("chain_link_negated", link=2, by=3)]


def test_term_14_a_refund_by_an_effect_is_recorded_with_its_cause():
    fold(*NEGATED, moved("p1_ox", [1, "hand"], "returned", cause="p1_vorse"),
         ev("life_points_changed", player=0, amount=1000, reason="gain", cause="celtic_hand"))


def test_term_14_a_card_paid_for_a_negated_link_moved_back_by_no_effect_refused():
    check([*NEGATED, moved("p1_ox", [1, "hand"], "returned")], "TERM-14", "never refunded")


def test_term_14_lp_paid_for_a_negated_link_given_back_by_no_effect_refused():
    tools_negated = [board(), HOLE, passed(1), act("tools", costs=[{"lp": 1000}]),
                     act("jammer", player=1, negates=2, costs=JAMMER_COST), passed(0), passed(1),
                     ev("chain_link_resolved", link=3), ev("chain_link_negated", link=2, by=3)]
    assert fold(*tools_negated).sides[0].lp == 7000
    check([*tools_negated, ev("life_points_changed", player=0, amount=1000, reason="gain")], "TERM-14", "stay paid")


# -- SUM-03 (see also test_rules_summon): a negated Tribute Summon ---------------------------------

def test_sum_03_after_a_negated_summon_a_set_is_refused_too():
    p0 = {"hand": [c(CELTIC, "a"), c(VORSE, "b")]}
    p1 = {"szone": [c(SOLEMN, "solemn", position="set")]}
    events = [position(p0, p1), ev("normal_summoned", card="a", zone=0),
              act("solemn", player=1, costs=[{"lp": 4000}]), RESOLVE_1,
              ev("summon_negated", card="a", cause="solemn"), moved("solemn", [1, "gy"]), END]
    fold(*events)
    check([*events, ev("monster_set", card="b", zone=1)], "SUM-03", "was negated this turn")
    fold(position(p0, p1), ev("monster_set", card="b", zone=1), ev("phase_entered", phase="battle"))


# -- after a loss in the middle of a chain: the chain's own end ------------------------------------

LETHAL = [board(), HOLE, passed(1), act("mst", targets=["decree"]), passed(1), passed(0), RESOLVE_2,
          ev("life_points_changed", player=1, amount=8000, reason="effect_damage", cause="mst")]


def test_win_01_the_chain_ends_at_once_when_a_player_loses_in_it():
    state = fold(*LETHAL, END, ev("duel_ended", winner=0, reason="lp"))
    assert state.ended and state.winner == 0


@pytest.mark.parametrize("event", [RESOLVE_1, act("jammer", player=1, costs=JAMMER_COST)], ids=["link-resolves", "activation"])
def test_win_01_no_link_resolves_after_the_loss(event):
    check([*LETHAL, event], "WIN-01", "has lost")


# -- PEND-03: one Pendulum Summon of several monsters ----------------------------------------------

PEND = position({"hand": [c(ODD_EYES, "odd"), c(CELTIC, "celtic"), c(VORSE, "vorse")],
                 "szone": [c(STARGAZER, "sg"), None, None, None, c(TIMEGAZER, "tg")]}, {})


def pendulum(card: str, zone: int, **fields) -> dict:
    return ev("special_summoned", player=0, card=card, zone=zone, method="pendulum", **fields)


def test_pend_03_one_pendulum_summon_of_three_monsters_is_one_summon():
    state = fold(PEND, pendulum("odd", 0), pendulum("celtic", 1, together=True),
                 pendulum("vorse", 2, together=True))
    assert state.summon_group == ["odd", "celtic", "vorse"]


def test_pend_03_a_record_that_does_not_say_keeps_consecutive_summons_one():
    """Older records (version 2, no ``together``) and EDOPro imports: consecutive is one summon."""
    line = from_dict({"kind": "special_summoned", "v": 2, "player": 0, "card": "celtic", "zone": 1,
                      "method": "pendulum"})
    assert line.together is None and line.to_dict()["v"] == 2
    fold(PEND, pendulum("odd", 0), line.to_dict())


def test_pend_03_a_second_pendulum_summon_in_a_row_is_refused():
    check([PEND, pendulum("odd", 0), pendulum("celtic", 1, together=False)], "PEND-03",
          "already Pendulum Summoned this turn")


def test_together_names_a_summon_right_before():
    check([PEND, pendulum("odd", 0, together=True)], "LOG-03", "no pendulum Special Summon")


# -- TOKEN-02: a Token is never face-down -----------------------------------------------------------

def test_token_02_face_down_token_is_a_violation_with_its_index():
    token = ev("token_created", player=0, card="p0.t1", code=SHEEP_TOKEN, zone=3, position="set", cause="x")
    check([position(), token], "TOKEN-02", "not set")
    report = audit([from_dict(position()), from_dict(token)], CardDB.classic())
    assert [(v.index, v.rule) for v in report.violations] == [(1, "TOKEN-02")]
    fold(position(), {**token, "position": "defense"})


# -- RIT-02: Ritual Tributes from the hand ------------------------------------------------------------

RIT = position({"hand": [c(BLACK_LUSTER_RITUAL, "ritual"), c(BLACK_LUSTER_SOLDIER, "bls"), c(VORSE, "v1"),
                         c(VORSE, "v2")]}, {})


def test_rit_02_tributes_from_the_hand_recorded_as_tributes():
    state = fold(RIT, act("ritual", zone=0), passed(1), passed(0), RESOLVE_1,
                 moved("v1", [0, "gy"], "tributed", cause="ritual"), moved("v2", [0, "gy"], "tributed", cause="ritual"),
                 ev("special_summoned", player=0, card="bls", zone=2, method="ritual", cause="ritual"),
                 moved("ritual", [0, "gy"]), END)
    assert state.cards["bls"].properly_summoned and state.cards["v1"].zone == "gy"


def test_rit_02_too_few_tributes_from_the_hand_refused():
    check([RIT, act("ritual", zone=0), RESOLVE_1, moved("v1", [0, "gy"], "tributed", cause="ritual"),
           ev("special_summoned", player=0, card="bls", zone=2, method="ritual", cause="ritual")], "RIT-02",
          "Levels total 4")


def test_sum_06_no_rule_tributes_from_the_hand_outside_an_effect():
    check([RIT, moved("v1", [0, "gy"], "tributed")], "SUM-06", "in the hand: RIT-02")


# -- BATTLE-12, BATTLE-09: the Damage Step -----------------------------------------------------------

def attack_on(target: str) -> list[dict]:
    return [ev("attack_declared", player=0, attacker="vorse", target=target), ev("step_entered", step="damage")]


DAMAGE_STEP = position({"mzone": [c(VORSE, "vorse", position="attack")], "hand": [c(MST, "mst_hand")],
                        "szone": [c(MST, "mst", position="set"), c(SEVEN_TOOLS, "tools", position="set")]},
                       {"mzone": [c(MAN_EATER, "bug", position="set")],
                        "szone": [c(MST, "p1_mst", position="set"), c(MAGIC_JAMMER, "jammer", position="set")],
                        "hand": [c(BATTLE_OX, "p1_ox")]}, phase="battle", step="battle")
CALC = ev("damage_calculated", destroyed=["bug"], damage=[0, 0])


def test_battle_12_flip_effect_activates_after_damage_calculation():
    fold(DAMAGE_STEP, *attack_on("bug"), CALC, act("bug", player=1, effect_type="flip", targets=["vorse"]))


def test_battle_12_flip_effect_before_damage_calculation_refused():
    check([DAMAGE_STEP, *attack_on("bug"), ev("position_changed", card="bug", position="defense"),
           act("bug", player=1, effect_type="flip", targets=["vorse"])], "BATTLE-12", "after damage calculation")


def test_battle_09_after_damage_calculation_only_negation_and_counter_traps():
    fold(DAMAGE_STEP, *attack_on("bug"), CALC, act("tools", costs=[{"lp": 1000}]))
    fold(DAMAGE_STEP, *attack_on("bug"), act("mst", targets=["p1_mst"]))        # before calculation: by card text
    fold(DAMAGE_STEP, *attack_on("bug"), CALC, act("tools", costs=[{"lp": 1000}]),
         act("p1_mst", player=1, targets=["tools"], negates=1, cite={"card": "p1_mst", "effect": "negates"}))


def test_battle_09_quick_play_after_damage_calculation_refused():
    check([DAMAGE_STEP, *attack_on("bug"), CALC, act("mst", targets=["p1_mst"])], "BATTLE-09",
          "damage has been calculated")


# -- SPELL-11: the old Field Spell goes to the GY -------------------------------------------------------

FIELDS = position({"hand": [c(MPZ, "mpz")], "fzone": c(YAMI, "yami")}, {"fzone": c(YAMI, "p1_yami")})
MPZ_ON = act("mpz", field_zone=True)


def test_spell_11_the_record_may_state_the_old_field_spell_going_to_the_gy():
    state = fold(FIELDS, MPZ_ON, moved("yami", [0, "gy"], "rule"))
    assert state.cards["yami"].zone == "gy" and state.sides[0].fzone == "mpz" and state.sides[1].fzone == "p1_yami"
    assert state.sides[0].gy == ["yami"]
    fold(FIELDS, MPZ_ON, moved("p1_yami", [1, "gy"], "destroyed", cause="mpz"))   # by an effect: recorded


@pytest.mark.parametrize("event, says", [
    pytest.param(moved("yami", [0, "gy"], "destroyed"), "neither destroyed", id="destroyed"),
    pytest.param(moved("yami", [0, "banished"], "banished"), "neither destroyed", id="banished"),
    pytest.param(moved("p1_yami", [1, "gy"], "rule"), "leaves player 1's Yami where it is", id="opponents-field"),
])
def test_spell_11_wrong_replacement_refused(event, says):
    check([FIELDS, MPZ_ON, event], "SPELL-11", says)


def one_field(options: list[str], *events: dict) -> list[dict]:
    """A duel's turn 1: player 0 activates Yami from the hand, it resolves, then Mystic Plasma Zone
    from the hand (Yami is replaced), then ``events``."""
    deck = [YAMI, MPZ, *cards_of(MAIN_POOL, 38)]
    return [{**START, "v": 2, "options": options}, register(0, deck), register(1), draw(0, 5), draw(1, 5),
            *turn(1, 0, drawn=False), act("p0.m0", field_zone=True), RESOLVE_1, END,
            act("p0.m1", field_zone=True), *events]


def test_spell_11_one_field_spell_option_destroys_the_old_field_spell():
    """SPELL-11, CONF-03 under one_field_spell (the older ruling, kept by EDOPro's Goat format):
    your old Field Spell is destroyed by the new one, not sent; the new one still resolves."""
    state = fold(*one_field(["one_field_spell"], moved("p0.m0", [0, "gy"], "destroyed"), RESOLVE_1, END))
    assert state.cards["p0.m0"].zone == "gy" and state.sides[0].fzone == "p0.m1" and state.overrides == []


@pytest.mark.parametrize("options, reason, says", [
    pytest.param(["one_field_spell"], "rule", "is destroyed (one_field_spell)", id="sent-under-the-option"),
    pytest.param([], "destroyed", "neither destroyed", id="destroyed-without-it"),
])
def test_spell_11_one_field_spell_option_refused(options, reason, says):
    check(one_field(options, moved("p0.m0", [0, "gy"], reason)), "SPELL-11", says)


# -- CTRL-01: the last controller of a card that left the field --------------------------------------

SANGAN_BOARD = position({"mzone": [c(SANGAN, "sangan")], "hand": [c(DARK_HOLE, "hole")],
                         "szone": [None, c(CHANGE_OF_HEART, "coh", position="set")]}, {})
DESTROY_ALL = [act("hole", zone=0), RESOLVE_1, moved("sangan", [0, "gy"], "destroyed", cause="hole"),
               moved("hole", [0, "gy"]), END]


def test_ctrl_01_the_player_who_controlled_it_as_it_left_activates_its_trigger():
    fold(SANGAN_BOARD, *DESTROY_ALL, act("sangan", effect_type="trigger"))
    taken = [ev("control_changed", card="sangan", to_player=1, zone=0, cause="coh"),
             act("hole", zone=0), RESOLVE_1, moved("sangan", [0, "gy"], "destroyed", cause="hole"),
             moved("hole", [0, "gy"]), END]
    fold(SANGAN_BOARD, *taken, act("sangan", player=1, effect_type="trigger"))


def test_ctrl_01_the_other_player_cannot_activate_it():
    check([SANGAN_BOARD, *DESTROY_ALL, act("sangan", player=1, effect_type="trigger")], "CTRL-01",
          "does not control Sangan")
