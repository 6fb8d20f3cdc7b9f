"""Attacks and damage calculation (RULES.md §14-15; rules/battle.py, battle outcomes in outcome.py).

The whole DMG-01..09 table is checked both ways: the result the rules give folds, and a record
that disagrees with it is refused with that case's ID. Battle damage is then applied with
``life_points_changed`` (reason ``battle_damage``) and destroyed monsters leave with
``card_moved`` (reason ``battle``).
"""
from __future__ import annotations

import pytest
from duel import (
    BATTLE_OX, BLUE_EYES, CELTIC, DECODE_TALKER, GIANT_SOLDIER, MST, ODD_EYES,
    SHEEP_TOKEN, VORSE, fold, position)
from test_rules_chain import check_refused, refused_without_override
from test_rules_turn import START, draw, phase, register, turn

GEMINI_ELF, TSUKUYOMI, MARSHMALLON, SCAPEGOAT, NEGATE_ATTACK = 69140098, 34853266, 31305911, 73915051, 14315573

BATTLE = {"phase": "battle", "step": "battle"}


def battle(p0_monsters: list, p1_monsters: list, p0: dict | None = None, p1: dict | None = None,
           **fields) -> dict:
    """Player 0's Battle Step on turn 2 with these monsters (and any other zones given)."""
    return position({"mzone": p0_monsters, **(p0 or {})}, {"mzone": p1_monsters, **(p1 or {})},
                    **{**BATTLE, **fields})


def mon(card_id: str, code: int, pos: str = "attack", **flags) -> dict:
    return {"code": code, "id": card_id, "position": pos, **flags}


def attack(attacker: str, target: str | None = None, player: int = 0) -> dict:
    return {"kind": "attack_declared", "player": player, "attacker": attacker, "target": target}


def calc(destroyed=(), damage=(0, 0), **fields) -> dict:
    return {"kind": "damage_calculated", "destroyed": list(destroyed), "damage": list(damage), **fields}


def step(name: str) -> dict:
    return {"kind": "step_entered", "step": name}


def battle_damage(player: int, amount: int, lp: int | None = None) -> dict:
    event = {"kind": "life_points_changed", "player": player, "amount": amount, "reason": "battle_damage"}
    return event if lp is None else {**event, "lp": lp}


def to_gy(card: str, player: int, reason: str = "battle", zone: str = "gy") -> dict:
    return {"kind": "card_moved", "card": card, "to": [player, zone], "reason": reason}


DAMAGE = step("damage")
DESTROY_OX = {"kind": "card_moved", "card": "ox", "to": [1, "gy"], "reason": "destroyed", "cause": "x"}
VORSE_ = mon("vorse", VORSE)                       # 1900 ATK
CELTIC_ = mon("celtic", CELTIC)                    # 1400 ATK / 1200 DEF
SHEEP = {"code": SHEEP_TOKEN, "id": "sheep"}       # 0 ATK / 0 DEF token
OX = mon("ox", BATTLE_OX)                          # 1700 ATK / 1000 DEF


# -- DMG-01..09: the whole damage calculation table ----------------------------------------------
#  rule, attacker (player 0), target (player 1, None = direct attack),
#  the result the rules give (destroyed, damage) and a record that disagrees with it.

DMG_TABLE = [
    pytest.param("DMG-01", VORSE_, CELTIC_, (["celtic"], [0, 500]), (["celtic"], [500, 0]),
                 id="DMG-01-atk-beats-atk"),
    pytest.param("DMG-02", VORSE_, mon("gelf", GEMINI_ELF), (["vorse", "gelf"], [0, 0]),
                 (["gelf"], [0, 0]), id="DMG-02-equal-atk-both-destroyed"),
    pytest.param("DMG-03", {**SHEEP, "id": "lamb"}, SHEEP, ([], [0, 0]), (["lamb", "sheep"], [0, 0]),
                 id="DMG-03-zero-vs-zero-neither-destroyed"),
    pytest.param("DMG-04", CELTIC_, VORSE_, (["celtic"], [500, 0]), (["celtic"], [0, 500]),
                 id="DMG-04-atk-loses-to-atk"),
    pytest.param("DMG-05", VORSE_, mon("celtic", CELTIC, "defense"), (["celtic"], [0, 0]),
                 (["celtic"], [0, 700]), id="DMG-05-atk-beats-def-no-damage"),
    pytest.param("DMG-06", CELTIC_, mon("tsukuyomi", TSUKUYOMI, "defense"), ([], [0, 0]),
                 (["tsukuyomi"], [0, 0]), id="DMG-06-atk-equals-def"),
    pytest.param("DMG-07", VORSE_, mon("giant", GIANT_SOLDIER, "defense"), ([], [100, 0]),
                 ([], [0, 100]), id="DMG-07-atk-below-def"),
    pytest.param("DMG-08", VORSE_, None, ([], [0, 1900]), ([], [0, 1400]), id="DMG-08-direct"),
    pytest.param("DMG-09", {**SHEEP, "id": "lamb"}, None, ([], [0, 0]), ([], [0, 100]),
                 id="DMG-09-zero-atk-direct"),
]


def _dmg_events(attacker: dict, target: dict | None) -> list[dict]:
    return [battle([attacker], [target] if target else []),
            attack(attacker["id"], target["id"] if target else None), DAMAGE]


@pytest.mark.parametrize("rule, attacker, target, result, wrong", DMG_TABLE)
def test_dmg_01_to_09_legal_result_is_applied(rule, attacker, target, result, wrong):
    """DMG-01..09: the recorded result the rules give folds; damage and destruction follow."""
    destroyed, damage = result
    owner = {attacker["id"]: 0, **({target["id"]: 1} if target else {})}
    state = fold(*_dmg_events(attacker, target), calc(destroyed, damage))
    assert state.attack.calculated and set(state.attack.destroyed) == set(destroyed)
    assert state.attack.pending_damage == damage
    follow = [battle_damage(p, amount, 8000 - amount) for p, amount in enumerate(damage) if amount]
    follow += [to_gy(card, owner[card]) for card in destroyed]
    state = fold(*_dmg_events(attacker, target), calc(destroyed, damage), *follow, step("battle"))
    assert [s.lp for s in state.sides] == [8000 - d for d in damage]
    for card in destroyed:                       # tokens vanish (TOKEN-02), cards go to the GY
        assert card not in state.cards or state.cards[card].zone == "gy"
    survivors = {attacker["id"], *(target and [target["id"]] or [])} - set(destroyed)
    assert all(state.cards[c].zone == "mzone" for c in survivors)
    assert state.attack is None and state.step == "battle"


@pytest.mark.parametrize("rule, attacker, target, result, wrong", DMG_TABLE)
def test_dmg_01_to_09_disagreeing_record_refused(rule, attacker, target, result, wrong):
    """DMG-01..09: a recorded result the rules do not give is refused with the case's ID."""
    v = check_refused([*_dmg_events(attacker, target), calc(*wrong)], rule, "the rules give destroyed")
    assert f"battle damage {result[1]}" in v.message


def zero_atk_battle(options: list[str], result: dict) -> list[dict]:
    """A duel to turn 2, where player 1's Sheep Token (0 ATK) attacks player 0's, then ``result``."""
    goat = {**START, "v": 2, "options": options}
    return [goat, register(0), register(1), draw(0, 5), draw(1, 5), *turn(1, 0, drawn=False),
            {"kind": "token_created", "card": "lamb", "code": SHEEP_TOKEN, "zone": 0, "player": 0, "cause": "x"},
            phase("end"), *turn(2, 1),
            {"kind": "token_created", "card": "sheep", "code": SHEEP_TOKEN, "zone": 0, "player": 1, "cause": "x"},
            phase("battle"), step("battle"), attack("sheep", "lamb", player=1), DAMAGE, result]


def test_dmg_03_zero_atk_destroyed_option_destroys_both() -> None:
    """DMG-03 under zero_atk_destroyed (an older ruling, kept by EDOPro's Goat format): two 0 ATK
    Attack Position monsters that battle are both destroyed, like any equal ATK (DMG-02)."""
    state = fold(*zero_atk_battle(["zero_atk_destroyed"], calc(["sheep", "lamb"])), to_gy("sheep", 1),
                 to_gy("lamb", 0), step("battle"))
    assert "sheep" not in state.cards and "lamb" not in state.cards and state.overrides == []


@pytest.mark.parametrize("options, destroyed", [
    pytest.param(["zero_atk_destroyed"], [], id="neither-destroyed-under-the-option"),
    pytest.param([], ["sheep", "lamb"], id="both-destroyed-without-it"),
])
def test_dmg_03_zero_atk_destroyed_option_refused(options: list[str], destroyed: list[str]) -> None:
    """DMG-03: without the option neither 0 ATK monster is destroyed; with it both are."""
    check_refused(zero_atk_battle(options, calc(destroyed)), "DMG-03", "the rules give destroyed")


def test_gen_01_cited_effect_changes_battle_result():
    """GEN-01: "cannot be destroyed by battle" (Marshmallon), cited, overrides DMG-01."""
    cite = {"card": "marsh", "effect": "Marshmallon: cannot be destroyed by battle"}
    state = fold(battle([VORSE_], [mon("marsh", MARSHMALLON)]), attack("vorse", "marsh"), DAMAGE,
                 calc([], [0, 1600], cite=cite), battle_damage(1, 1600, 6400), step("battle"))
    assert state.cards["marsh"].zone == "mzone" and state.sides[1].lp == 6400
    [override] = state.overrides
    assert (override.rule, override.cite.card) == ("DMG-01", "marsh")
    assert "rules give destroyed ['marsh']" in override.message


@pytest.mark.parametrize("setup, events, rule", [
    pytest.param({"phase": "main1", "step": None}, [{**attack("vorse", "nobody"), "cite": "x"}], "LOG-01",
                 id="battle-02-cited-unknown-target"),
    pytest.param({}, [attack("vorse", "ox"), DESTROY_OX, {**calc(), "cite": "x"}], "BATTLE-06",
                 id="nis-03-cited-target-gone"),
])
def test_gen_01_cited_but_impossible_battle_event_records_no_override(setup, events, rule):
    """GEN-01: a cited attack or damage calculation that cannot be applied records no override."""
    refused_without_override([battle([VORSE_], [OX], **setup), *events], rule)


# -- POS-04 / BATTLE-12: a face-down target is flipped before damage calculation ---------------------

@pytest.mark.parametrize("target, result, flipped_to", [
    pytest.param(mon("giant", GIANT_SOLDIER, "set"), ([], [100, 0]), "defense", id="set-uses-def"),
    pytest.param(mon("celtic", CELTIC, "facedown_attack"), (["celtic"], [0, 500]), "attack",
                 id="facedown-attack-uses-atk"),
])
def test_pos_04_face_down_target_flipped_before_damage_calculation(target, result, flipped_to):
    """POS-04, BATTLE-12, POS-02: the attacked face-down monster is flipped, then battles."""
    state = fold(battle([VORSE_], [target]), attack("vorse", target["id"]), DAMAGE, calc(*result))
    assert state.cards[target["id"]].position == flipped_to


def test_pos_04_refused_calculation_leaves_target_face_down():
    """POS-04, DMG-07: a record using the Set monster's hidden state wrongly is refused, still Set."""
    v = check_refused([battle([VORSE_], [mon("giant", GIANT_SOLDIER, "set")]), attack("vorse", "giant"),
                       DAMAGE, calc(["giant"], [0, 0])], "DMG-07", "2000 DEF")
    assert "(2000 DEF, defense), flipped face-up" in v.message


def flip(card: str, to: str, player: int = 1) -> dict:
    return {"kind": "position_changed", "player": player, "card": card, "position": to}


@pytest.mark.parametrize("target, result, flipped_to", [
    pytest.param(mon("giant", GIANT_SOLDIER, "set"), ([], [100, 0]), "defense", id="set-to-defense"),
    pytest.param(mon("celtic", CELTIC, "facedown_attack"), (["celtic"], [0, 500]), "attack",
                 id="facedown-attack-to-attack"),
])
def test_pos_04_the_record_may_state_the_flip_when_the_engine_makes_it(target, result, flipped_to):
    """POS-04, POS-02, BATTLE-12: the rules flip the attacked face-down monster in the Damage Step,
    before damage calculation; a record may say so at that moment (EDOPro does), with no cause: it is
    neither a manual change (POS-07/09) nor an effect's, and damage calculation then uses it."""
    state = fold(battle([VORSE_], [target]), attack("vorse", target["id"]), DAMAGE,
                 flip(target["id"], flipped_to))
    card = state.cards[target["id"]]
    assert card.position == flipped_to and card.position_changed_turn == 0 and state.overrides == []
    state = fold(battle([VORSE_], [target]), attack("vorse", target["id"]), DAMAGE,
                 flip(target["id"], flipped_to), calc(*result))
    assert state.attack.calculated and state.cards[target["id"]].position == flipped_to


@pytest.mark.parametrize("events, rule, says", [
    pytest.param([attack("vorse", "giant"), flip("giant", "defense")], "NIS-03", "flipped face-up in the Damage Step",
                 id="before-the-damage-step"),
    pytest.param([attack("vorse", "giant"), DAMAGE, flip("giant", "attack")], "POS-04",
                 "is flipped to face-up Defense Position", id="set-to-attack-is-no-flip-by-the-rules"),
    pytest.param([attack("vorse", "ox"), DAMAGE, flip("giant", "defense")], "POS-09",
                 "face-down -> face-up Defense", id="not-the-attack-target"),
])
def test_pos_04_only_the_attack_target_is_flipped_by_the_rules(events, rule, says):
    """POS-04: only the attack's target, in the Damage Step, and only face-up in the position it
    battles in (face-down Defense to face-up Defense): the target flipped before the Damage Step
    (NIS-03) or to another position (POS-04) is refused by the rule it breaks; any other monster
    needs an effect (POS-09)."""
    board = battle([VORSE_], [mon("giant", GIANT_SOLDIER, "set"), OX])
    check_refused([board, *events], rule, says)


# -- BATTLE-02 / BATTLE-04: declaring an attack --------------------------------------------------

@pytest.mark.parametrize("p1_monsters, target", [
    pytest.param([OX], "ox", id="on-a-monster"),
    pytest.param([], None, id="direct-on-empty-field"),
])
def test_battle_02_attack_declared_in_battle_step(p1_monsters, target):
    """BATTLE-02: a face-up Attack monster attacks a monster, or directly if there is none."""
    state = fold(battle([VORSE_], p1_monsters), attack("vorse", target))
    assert (state.attack.attacker, state.attack.target) == ("vorse", target)
    assert state.cards["vorse"].attacked_turn == 2


EMZ_ONLY = [None] * 5 + [{"code": DECODE_TALKER, "id": "decode"}]


@pytest.mark.parametrize("p1_monsters, setup, events, says", [
    pytest.param([OX], {}, [attack("vorse")], "controls a monster", id="direct-with-monster-there"),
    pytest.param(EMZ_ONLY, {}, [attack("vorse")], "controls a monster",
                 id="direct-past-extra-monster-zone"),
    pytest.param([OX], {"phase": "main1", "step": None}, [attack("vorse", "ox")],
                 "not the Main Phase 1", id="main-phase"),
    pytest.param([OX], {"step": "start"}, [attack("vorse", "ox")], "not the start step", id="start-step"),
    pytest.param([OX], {}, [attack("vorse", "celtic")], "not a monster the opponent controls",
                 id="own-monster"),
    pytest.param([OX], {"p1": {"gy": [{"code": VORSE, "id": "p1_vorse"}]}}, [attack("vorse", "p1_vorse")],
                 "not a monster the opponent controls", id="monster-in-gy"),
    pytest.param([OX], {}, [attack("ox", "vorse", player=1)], "only the turn player", id="not-turn-player"),
    pytest.param([OX], {}, [attack("vorse", "ox"), attack("celtic", "ox")], "is not over yet",
                 id="attack-in-progress"),
])
def test_battle_02_illegal_attack_declaration_refused(p1_monsters, setup, events, says):
    """BATTLE-02, BATTLE-04: only in your Battle Step, on an opponent's monster, or directly when
    the opponent controls none (a monster in an Extra Monster Zone counts)."""
    check_refused([battle([VORSE_, CELTIC_], p1_monsters, **setup), *events], "BATTLE-02", says)


# -- BATTLE-03: each monster attacks once ----------------------------------------------------------

def test_battle_03_each_monster_attacks_once():
    """BATTLE-03: after one attack is over, another monster may attack."""
    state = fold(battle([VORSE_, CELTIC_], []), attack("vorse"), DAMAGE, calc([], [0, 1900]),
                 battle_damage(1, 1900), step("battle"), attack("celtic"))
    assert state.attack.attacker == "celtic" and state.sides[1].lp == 6100
    assert state.cards["vorse"].attacked_turn == state.cards["celtic"].attacked_turn == 2


@pytest.mark.parametrize("events", [
    pytest.param([attack("vorse"), DAMAGE, calc([], [0, 1900]), battle_damage(1, 1900), step("battle")],
                 id="attacked-this-battle-phase"),
    pytest.param([], id="attacked-flag-in-set-up"),
])
def test_battle_03_second_attack_refused(events):
    """BATTLE-03: a monster that has attacked cannot attack again this Battle Phase."""
    flags = {} if events else {"attacked": True}
    check_refused([battle([mon("vorse", VORSE, **flags)], []), *events, attack("vorse")],
                  "BATTLE-03", "already attacked")


# -- POS-03: only face-up Attack Position monsters attack ----------------------------------------

@pytest.mark.parametrize("pos", ["defense", "set"])
def test_pos_03_defense_or_face_down_monster_cannot_attack(pos):
    """POS-03: a monster in Defense Position (face-up or face-down) does not attack."""
    check_refused([battle([mon("celtic", CELTIC, pos)], [OX]), attack("celtic", "ox")],
                  "POS-03", f"is in {pos} position")


def test_pos_03_attack_position_monster_attacks():
    """POS-03: a face-up Attack Position monster battles with its ATK."""
    state = fold(battle([CELTIC_], [OX]), attack("celtic", "ox"), DAMAGE, calc(["celtic"], [300, 0]))
    assert state.attack.destroyed == ("celtic",)


# -- CHAIN-10 / BATTLE-08: an attack is declared with no chain open -------------------------------

QUICK_PLAY = {"kind": "activated", "player": 0, "card": "mst", "zone": 0, "targets": ["trap"]}
CHAIN_DONE = [{"kind": "chain_link_resolved", "link": 1}, to_gy("mst", 0, "resolved"),
              to_gy("trap", 1, "destroyed"), {"kind": "chain_ended"}]
WITH_QP = {"p0": {"hand": [{"code": MST, "id": "mst"}]},
           "p1": {"szone": [{"code": NEGATE_ATTACK, "id": "trap"}]}}


def test_chain_10_attack_after_the_chain_ended():
    """CHAIN-10: once the Battle Step chain has ended, an attack may be declared."""
    state = fold(battle([VORSE_], [OX], **WITH_QP), QUICK_PLAY, *CHAIN_DONE, attack("vorse", "ox"))
    assert state.attack.target == "ox" and state.cards["trap"].zone == "gy"


def test_chain_10_attack_declaration_during_a_chain_refused():
    """CHAIN-10: an attack declaration is not an activation; it cannot join an open chain."""
    check_refused([battle([VORSE_], [OX], **WITH_QP), QUICK_PLAY, attack("vorse", "ox")],
                  "CHAIN-10", "not an activation")


# -- BATTLE-06: replays and cancelled attacks ----------------------------------------------------

SCAPEGOAT_SET = {"p1": {"szone": [{"code": SCAPEGOAT, "id": "goat"}]}}
SHEEP_APPEAR = [
    {"kind": "activated", "player": 1, "card": "goat"},
    {"kind": "chain_link_resolved", "link": 1},
    {"kind": "token_created", "player": 1, "card": "p1.t1", "code": SHEEP_TOKEN, "zone": 0,
     "position": "defense", "cause": "goat"},
    to_gy("goat", 1, "resolved"), {"kind": "chain_ended"},
]


@pytest.mark.parametrize("replay, target", [
    pytest.param({"kind": "attack_retargeted", "target": "p1.t1"}, "p1.t1", id="new-target"),
    pytest.param({"kind": "attack_cancelled"}, None, id="cancelled"),
])
def test_battle_06_replay_after_opponents_monsters_change(replay, target):
    """BATTLE-06: a new monster appeared, so the attacker may pick a new target or stop."""
    state = fold(battle([VORSE_], [], **SCAPEGOAT_SET), attack("vorse"), *SHEEP_APPEAR, replay)
    if target:
        assert (state.attack.target, state.attack.defender_monsters) == (target, frozenset({target}))
    else:
        assert state.attack is None and state.cards["vorse"].attacked_turn == 2   # BATTLE-07


def test_battle_06_attack_cancelled_by_an_effect():
    """BATTLE-06: an effect (Negate Attack) cancels the attack without any replay."""
    state = fold(battle([VORSE_], [OX], p1={"szone": [{"code": NEGATE_ATTACK, "id": "negate"}]}),
                 attack("vorse", "ox"), {"kind": "activated", "player": 1, "card": "negate", "speed": 3},
                 {"kind": "chain_link_resolved", "link": 1},
                 {"kind": "attack_cancelled", "cause": "negate"},
                 to_gy("negate", 1, "resolved"), {"kind": "chain_ended"})
    assert state.attack is None and state.cards["negate"].zone == "gy"


DESTROY_VORSE = {**DESTROY_OX, "card": "vorse", "to": [0, "gy"]}


@pytest.mark.parametrize("events, says", [
    pytest.param([{"kind": "attack_retargeted", "target": "ox"}], "only when the opponent's monsters",
                 id="retarget-without-change"),
    pytest.param([{"kind": "attack_cancelled"}], "only in a replay", id="cancel-without-change"),
    pytest.param([DESTROY_OX, DAMAGE, calc()], "target left the field", id="calc-after-target-left"),
    pytest.param([DESTROY_VORSE, DAMAGE, calc()], "attacking monster is no longer on the field",
                 id="calc-after-attacker-left"),
    pytest.param([DAMAGE, calc(["ox"], [0, 200]), {"kind": "attack_retargeted"}],
                 "no attack is waiting", id="retarget-after-calculation"),
])
def test_battle_06_replay_without_change_refused(events, says):
    """BATTLE-06: no replay or plain cancellation unless the opponent's monsters changed; a
    battle whose monster left the field has no damage calculation."""
    check_refused([battle([VORSE_], [OX]), attack("vorse", "ox"), *events], "BATTLE-06", says)


# -- BATTLE-11 / NIS-03 / LOG-05: the damage calculation event itself ----------------------------

def test_nis_03_damage_calculated_in_damage_step():
    """NIS-03, BATTLE-11: damage calculation happens once, in the Damage Step."""
    state = fold(battle([VORSE_], [OX]), attack("vorse", "ox"), DAMAGE, calc(["ox"], [0, 200]))
    assert state.step == "damage" and state.attack.calculated


@pytest.mark.parametrize("events, rule, says", [
    pytest.param([attack("vorse", "ox"), calc(["ox"], [0, 200])], "NIS-03", "in the Damage Step",
                 id="nis-03-in-battle-step"),
    pytest.param([calc()], "BATTLE-11", "no attack is waiting", id="battle-11-no-attack"),
    pytest.param([attack("vorse", "ox"), DAMAGE, calc(["ox"], [0, 200]), calc(["ox"], [0, 200])],
                 "BATTLE-11", "no attack is waiting", id="battle-11-twice"),
    pytest.param([attack("vorse", "ox"), DAMAGE, calc(["ox"], [0, 200, 0])], "LOG-05",
                 "damage is [damage to player 0", id="log-05-three-players"),
    pytest.param([attack("vorse", "ox"), DAMAGE, calc(["ox"], [0, -200])], "LOG-05", ">= 0",
                 id="log-05-negative"),
])
def test_nis_03_battle_11_log_05_damage_calculation_refused(events, rule, says):
    """NIS-03, BATTLE-11, LOG-05: outside the Damage Step, with no attack, twice, or malformed."""
    check_refused([battle([VORSE_], [OX]), *events], rule, says)


# -- DMG-10 / BATTLE-14: applying the result ------------------------------------------------------

def test_dmg_10_battle_14_result_applied_then_attack_closes():
    """DMG-10, BATTLE-14: battle damage is lost as LP, the destroyed monster goes to the GY."""
    state = fold(battle([VORSE_], [OX]), attack("vorse", "ox"), DAMAGE, calc(["ox"], [0, 200]),
                 battle_damage(1, 200, 7800), to_gy("ox", 1), step("battle"), step("end"))
    assert state.sides[1].lp == 7800 and state.sides[1].gy == ["ox"]
    assert state.attack is None and state.step == "end"


def test_win_01_lethal_battle_damage_ends_the_duel():
    """DMG-08, DMG-10, WIN-01: battle damage that brings LP to 0 loses the duel."""
    state = fold(battle([VORSE_], [], p1={"lp": 1500}), attack("vorse"), DAMAGE, calc([], [0, 1900]),
                 battle_damage(1, 1900, 0), {"kind": "duel_ended", "winner": 0, "reason": "lp"})
    assert state.ended and state.winner == 0 and state.sides[1].lp == 0


CALCULATED = [attack("vorse", "ox"), DAMAGE, calc(["ox"], [0, 200])]


def test_battle_14_a_monster_destroyed_by_battle_that_an_effect_brings_back_has_left():
    """BATTLE-14, GEN-01: Ox, destroyed by battle, is banished instead by an effect and Special
    Summoned back before the attack ends (Goyo Guardian's kind of text): it left the field as
    it had to; the one on the field is a new card, and the attack closes with no violation."""
    state = fold(battle([VORSE_], [OX]), *CALCULATED, battle_damage(1, 200, 7800),
                 {"kind": "card_moved", "card": "ox", "to": [1, "banished"], "reason": "banished", "cause": "crow"},
                 {"kind": "special_summoned", "player": 0, "card": "ox", "zone": 3, "method": "effect",
                  "position": "defense", "cause": "goyo", "controller": 0, "cite": {"card": "goyo", "effect": "x"}},
                 step("battle"))
    assert state.attack is None and state.sides[0].mzone[3] == "ox" and state.violations is None


@pytest.mark.parametrize("events, rule, says", [
    pytest.param([*CALCULATED, battle_damage(1, 300)], "DMG-10", "200 battle damage, not 300",
                 id="wrong-amount"),
    pytest.param([*CALCULATED, battle_damage(0, 200)], "DMG-10", "player 0 0 battle damage",
                 id="wrong-player"),
    pytest.param([battle_damage(1, 500)], "DMG-10", "0 battle damage, not 500", id="no-battle"),
    pytest.param([*CALCULATED, to_gy("ox", 1), step("battle")], "DMG-10", "never applied",
                 id="damage-never-applied"),
    pytest.param([*CALCULATED, to_gy("vorse", 0)], "BATTLE-14", "not destroyed by battle",
                 id="survivor-moved-as-battle"),
    pytest.param([*CALCULATED, battle_damage(1, 200), step("battle")], "BATTLE-14",
                 "still on the field", id="destroyed-left-on-field"),
    pytest.param([*CALCULATED, battle_damage(1, 200, 7900)], "ZONE-14", "has 7800 LP after this change",
                 id="zone-14-wrong-lp-stated"),
])
def test_dmg_10_battle_14_result_not_applied_as_calculated_refused(events, rule, says):
    """DMG-10, BATTLE-14, ZONE-14: the damage and destruction that follow must be those calculated."""
    check_refused([battle([VORSE_], [OX]), *events], rule, says)


@pytest.mark.parametrize("zone, rule", [("extra", None), ("gy", "PEND-05")])
def test_pend_05_pendulum_destroyed_by_battle_goes_to_extra_deck(zone, rule):
    """BATTLE-14, PEND-05: a Pendulum monster destroyed by battle goes face-up to the Extra Deck."""
    events = [battle([mon("blue", BLUE_EYES)], [mon("odd", ODD_EYES)]), attack("blue", "odd"), DAMAGE,
              calc(["odd"], [0, 500]), battle_damage(1, 500), to_gy("odd", 1, zone=zone)]
    if rule:
        check_refused(events, rule, "face-up to the Extra Deck")
    else:
        state = fold(*events)
        assert state.cards["odd"].zone == "extra" and state.cards["odd"].position == "faceup"



# -- BATTLE-12: a FLIP effect cannot target a monster that battle has destroyed ---------------------

MAN_EATER = 54652250                               # FLIP: target 1 monster on the field; destroy it


def _flipped_bug() -> list[dict]:
    """Vorse attacks a Set Man-Eater Bug (600 DEF): the Bug is destroyed by battle."""
    return [battle([VORSE_, CELTIC_], [mon("bug", MAN_EATER, "set")]), attack("vorse", "bug"), DAMAGE,
            calc(["bug"], [0, 0])]


def bug_flips(*targets: str) -> dict:
    return {"kind": "activated", "player": 1, "card": "bug", "effect_type": "flip", "targets": list(targets)}


def test_battle_12_flip_effect_after_damage_calculation_targets_a_monster_still_in_play():
    """BATTLE-12: the destroyed Bug's FLIP effect still activates after damage calculation, and may
    target a monster the battle did not destroy."""
    state = fold(*_flipped_bug(), bug_flips("celtic"))
    assert state.chain[0].targets == ("celtic",)


def test_battle_12_flip_effect_targeting_a_monster_destroyed_in_that_battle_refused():
    """BATTLE-12: a monster already confirmed destroyed in that battle (here the Bug itself) cannot
    be chosen as a target."""
    check_refused([*_flipped_bug(), bug_flips("bug")], "BATTLE-12", "confirmed destroyed in this battle")
