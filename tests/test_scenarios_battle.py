"""Judge scenarios for summons, positions, battle, damage, tokens, Xyz materials, control, the
end of the duel and zones (RULES.md §8, §11-15, §20-22), beside the one-case-per-rule tests.

Each is a play a judge tests at the table: a legal one must fold clean, an illegal one must be
refused with the rule a judge would cite (and leave the state unchanged, which ``refused`` checks).
"""
from __future__ import annotations

import pytest
from duel import (
    BATTLE_OX, BLUE_EYES, CELTIC, DARK_MAGICIAN, DECODE_TALKER, GIANT_SOLDIER, JINZO, KURIBOH,
    LINK_SPIDER, MYSTICAL_ELF, ODD_EYES, SHEEP_TOKEN, STARDUST, STARGAZER, SUMMONED_SKULL, TIMEGAZER,
    UTOPIA, VORSE, fold, position, refused)
from test_rules_battle import attack, battle_damage, calc, mon, to_gy
from test_rules_summon import change, flip, monster_set, special, summon, token
from test_rules_turn import START, draw, ended, phase, register, step, turn

JUNK_SYNCHRON, BLS, THOUSAND_DRAGON = 63977008, 5405694, 41462083
BATTLE = {"phase": "battle", "step": "battle"}


def c(code: int, card_id: str, **flags) -> dict:
    return {"code": code, "id": card_id, **flags}


def check(events: list[dict], rule: str, says: str = "") -> None:
    """The last event is refused with ``rule`` (its message holding ``says``)."""
    v = refused(*events)
    assert v.rule == rule, v
    assert says in v.message, v.message


HAND = [c(CELTIC, "celtic"), c(SUMMONED_SKULL, "skull"), c(DARK_MAGICIAN, "dm"), c(BLUE_EYES, "bewd"),
        c(KURIBOH, "kuriboh")]
P0 = {"hand": HAND, "mzone": [c(BATTLE_OX, "ox"), c(GIANT_SOLDIER, "soldier", position="set"),
                              c(VORSE, "vorse")],
      "extra": [c(STARDUST, "stardust"), c(UTOPIA, "utopia"), c(LINK_SPIDER, "spider"),
                c(DECODE_TALKER, "decode")]}
P1 = {"mzone": [c(MYSTICAL_ELF, "elf")]}


def board(p0: dict | None = None, p1: dict | None = None, **fields) -> dict:
    return position(P0 if p0 is None else p0, P1 if p1 is None else p1, **fields)


# -- SUM: Normal Summon, Tribute Summon, Set, Flip Summon -----------------------------------------

SUM_REFUSED = [
    pytest.param([summon("dm", 3, "ox")], "SUM-04", id="SUM-04-level-7-with-one-tribute"),
    pytest.param([summon("skull", 3, "ox", "vorse")], "SUM-04", id="SUM-04-level-6-with-two-tributes"),
    pytest.param([summon("skull", 3)], "SUM-04", id="SUM-04-level-6-without-tribute"),
    pytest.param([monster_set("dm", 3)], "SUM-04", id="SUM-08-set-level-7-without-tributes"),
    pytest.param([summon("skull", 3, "elf")], "SUM-06", id="SUM-06-tribute-opponents-monster"),
    pytest.param([summon("celtic", 3), summon("kuriboh", 4)], "SUM-01", id="SUM-01-second-normal-summon"),
    pytest.param([summon("celtic", 3), monster_set("kuriboh", 4)], "SUM-01", id="SUM-01-set-after-summon"),
    pytest.param([monster_set("celtic", 3), flip("celtic")], "SUM-11", id="SUM-11-flip-the-turn-it-was-set"),
    pytest.param([flip("soldier"), change("soldier", "defense")], "POS-07",
                 id="SUM-11-POS-07-change-after-flip-summon"),
    pytest.param([change("ox", "defense"), change("ox", "attack")], "POS-07", id="POS-07-second-manual-change"),
    pytest.param([summon("celtic", 3), change("celtic", "defense")], "POS-08",
                 id="POS-08-change-monster-summoned-this-turn"),
    pytest.param([change("soldier", "defense")], "POS-09", id="POS-09-face-down-to-face-up-defense"),
    pytest.param([change("ox", "set")], "POS-09", id="POS-09-manual-turn-face-down"),
]


@pytest.mark.parametrize("events, rule", SUM_REFUSED)
def test_sum_pos_illegal_plays_refused(events: list[dict], rule: str) -> None:
    """SUM-01/04/06/08/11, POS-07/08/09: the plays a judge stops, with the rule that stops them."""
    check([board(), *events], rule)


@pytest.mark.parametrize("events", [
    pytest.param([summon("skull", 3, "soldier")], id="SUM-06-tribute-a-face-down-monster"),
    pytest.param([flip("soldier"), summon("celtic", 3)], id="SUM-10-flip-summon-uses-no-normal-summon"),
    pytest.param([summon("dm", 3, "ox", "vorse")], id="SUM-04-level-7-two-tributes"),
    pytest.param([change("ox", "defense"), change("vorse", "defense")], id="POS-07-several-monsters-change"),
    pytest.param([change("ox", "defense"), change("ox", "attack", cause="x")], id="POS-07-effect-changes-unlimited"),
    pytest.param([flip("soldier"), {"kind": "phase_entered", "phase": "battle"}, step("battle"),
                  attack("soldier", "elf")], id="SUM-10-flip-summoned-monster-attacks"),
])
def test_sum_pos_legal_plays_fold(events: list[dict]) -> None:
    """SUM-04/06/10, POS-07: legal plays fold clean."""
    fold(board(), *events)


def test_sum_05_tribute_summon_into_a_full_field() -> None:
    """SUM-05: with all 5 Main Monster Zones taken, a Tribute Summon uses the zone its Tribute frees."""
    full = {**P0, "mzone": [c(BATTLE_OX, "ox"), c(GIANT_SOLDIER, "soldier", position="set"), c(VORSE, "vorse"),
                            c(CELTIC, "c2"), c(KURIBOH, "k2")]}
    state = fold(board(full), summon("skull", 0, "ox"))
    assert state.cards["skull"].zone == "mzone" and state.cards["ox"].zone == "gy"
    check([board(full), summon("celtic", 0)], "ZONE-01")


def test_sum_10_flip_summon_a_monster_set_last_turn_then_it_cannot_change_again() -> None:
    """SUM-10/11: a monster Set on an earlier turn may be Flip Summoned; it is then face-up Attack."""
    state = fold(board(), flip("soldier"))
    assert state.cards["soldier"].position == "attack"


def test_sum_10_flip_summon_outside_main_phase_refused() -> None:
    """SUM-10: a Flip Summon is made in your Main Phase, not in the Battle Phase."""
    v = refused(board(**BATTLE), flip("soldier"))
    assert v.rule in ("SUM-10", "SUM-11"), v


def test_sum_10_flip_summon_of_opponents_monster_refused() -> None:
    """SUM-10: only your own face-down monster is Flip Summoned."""
    p1 = {"mzone": [c(MYSTICAL_ELF, "elf", position="set")]}
    refused(board(p1=p1), flip("elf"))


# -- BATTLE: who attacks, what, how often ----------------------------------------------------------

BATTLE_REFUSED = [
    pytest.param(board(p0={**P0, "mzone": [mon("ox", BATTLE_OX, "defense")]}, **BATTLE), [attack("ox", "elf")],
                 "POS-03", id="POS-03-defense-position-attacks"),
    pytest.param(board(**BATTLE), [attack("soldier", "elf")], "POS-03", id="POS-04-face-down-attacks"),
    pytest.param(board(**BATTLE), [attack("ox", "elf"), step("damage"), calc(["elf"], [0, 900]),
                                   battle_damage(1, 900), to_gy("elf", 1), step("battle"), attack("ox")], "BATTLE-03",
                 id="BATTLE-03-second-attack"),
    pytest.param(board(p1={"mzone": [c(MYSTICAL_ELF, "elf", position="set")]}, **BATTLE), [attack("ox")],
                 "BATTLE-02", id="BATTLE-02-direct-attack-past-a-face-down-monster"),
    pytest.param(board(p1={"mzone": [None, None, None, None, None, c(STARDUST, "sd")]}, **BATTLE),
                 [attack("ox")], "BATTLE-02", id="BATTLE-04-direct-attack-past-an-emz-monster"),
    pytest.param(board(**BATTLE), [attack("ox", "vorse")], "BATTLE-02", id="BATTLE-02-attack-own-monster"),
    pytest.param(board(), [attack("ox", "elf")], "BATTLE-02", id="BATTLE-02-attack-in-main-phase"),
    pytest.param(board(**BATTLE), [attack("elf", "ox", player=1)], "BATTLE-02",
                 id="BATTLE-02-non-turn-player-attacks"),
    pytest.param(board(**BATTLE), [attack("ox", "elf"), step("damage"), calc(["elf"], [0, 900]),
                                   calc(["elf"], [0, 900])], "BATTLE-11", id="BATTLE-11-second-damage-calculation"),
    pytest.param(board(**BATTLE), [attack("ox", "elf"), {"kind": "attack_retargeted", "target": None}],
                 "BATTLE-06", id="BATTLE-06-retarget-without-a-change"),
    pytest.param(board(**BATTLE), [attack("ox", "elf"), {"kind": "attack_cancelled"}],
                 "BATTLE-06", id="BATTLE-06-cancel-without-a-change"),
    pytest.param(board(**BATTLE), [attack("ox", "elf"),
                                   {"kind": "card_moved", "card": "elf", "to": [1, "gy"], "reason": "destroyed",
                                    "cause": "x"}, step("damage"), calc([], [0, 1700])],
                 "BATTLE-06", id="BATTLE-06-target-left-then-damage-calculated"),
    pytest.param(board(**BATTLE), [attack("ox", "elf"), step("damage"), calc(["elf"], [0, 900]),
                                   battle_damage(1, 900), to_gy("elf", 1), step("battle"),
                                   {"kind": "phase_entered", "phase": "main2"}, change("ox", "defense")], "POS-08", id="POS-08-change-after-attacking"),
]


@pytest.mark.parametrize("setup, events, rule", BATTLE_REFUSED)
def test_battle_illegal_attacks_refused(setup: dict, events: list[dict], rule: str) -> None:
    """POS-03/04, BATTLE-02/03/04/06/11, POS-08: attacks a judge stops."""
    check([setup, *events], rule)


def test_battle_06_replay_target_leaves_then_retarget_or_direct() -> None:
    """BATTLE-06: the target is destroyed by an effect after the attack: the attacker may attack
    directly (the opponent has no monster left) or cancel; neither is a new attack (BATTLE-03)."""
    gone = {"kind": "card_moved", "card": "elf", "to": [1, "gy"], "reason": "destroyed", "cause": "x"}
    state = fold(board(**BATTLE), attack("ox", "elf"), gone, {"kind": "attack_retargeted", "target": None},
                 step("damage"), calc([], [0, 1700]), battle_damage(1, 1700, 6300))
    assert state.sides[1].lp == 6300
    fold(board(**BATTLE), attack("ox", "elf"), gone, {"kind": "attack_cancelled"})


def test_battle_07_forfeited_attack_cannot_attack_again() -> None:
    """BATTLE-07: after a replay the player attacks with another monster; the first has used its attack."""
    p1 = {"mzone": [c(MYSTICAL_ELF, "elf"), c(CELTIC, "c1")]}
    gone = {"kind": "card_moved", "card": "elf", "to": [1, "gy"], "reason": "destroyed", "cause": "x"}
    events = [board(p1=p1, **BATTLE), attack("ox", "elf"), gone, attack("vorse", "c1"), step("damage"),
              calc(["c1"], [0, 500]), battle_damage(1, 500), to_gy("c1", 1), step("battle")]
    fold(*events)
    check([*events, attack("ox")], "BATTLE-07")


def test_battle_12_attack_a_face_down_monster_uses_its_def() -> None:
    """POS-04/BATTLE-12: Vorse Raider (1900) attacks a Set Giant Soldier of Stone (2000 DEF): it is
    flipped face-up Defense, nothing is destroyed and the attacker's controller takes 100."""
    p1 = {"mzone": [c(GIANT_SOLDIER, "gs", position="set")]}
    state = fold(board(p1=p1, **BATTLE), attack("vorse", "gs"), step("damage"), calc([], [100, 0]),
                 battle_damage(0, 100, 7900))
    assert state.cards["gs"].position == "defense" and state.sides[0].lp == 7900
    check([board(p1=p1, **BATTLE), attack("vorse", "gs"), step("damage"), calc(["gs"], [0, 0])], "DMG-07")


def test_dmg_05_no_piercing_damage_against_a_set_monster() -> None:
    """DMG-05: Summoned Skull (2500) destroys a Set Celtic Guardian (1200 DEF) and deals no damage."""
    p0 = {**P0, "mzone": [c(SUMMONED_SKULL, "sk")]}
    p1 = {"mzone": [c(CELTIC, "cg", position="set")]}
    fold(board(p0, p1, **BATTLE), attack("sk", "cg"), step("damage"), calc(["cg"], [0, 0]), to_gy("cg", 1))
    check([board(p0, p1, **BATTLE), attack("sk", "cg"), step("damage"), calc(["cg"], [0, 1300])], "DMG-05")


def test_link_05_a_link_monster_battles_with_its_atk() -> None:
    """LINK-05: a Link monster is always in Attack Position: Vorse Raider (1900) against Link Spider
    (1000 ATK) destroys it and deals 900."""
    p1 = {"mzone": [None, None, None, None, None, c(LINK_SPIDER, "ls")]}
    fold(board(p1=p1, **BATTLE), attack("vorse", "ls"), step("damage"), calc(["ls"], [0, 900]))
    check([board(p1=p1, **BATTLE), attack("vorse", "ls"), step("damage"), calc(["ls"], [0, 0])], "DMG-01")


def test_dmg_uses_the_changed_atk() -> None:
    """DMG-01/04: the calculation uses current ATK: Celtic (1400) raised to 2000 beats Vorse (1900)."""
    p0 = {**P0, "mzone": [c(CELTIC, "cg")]}
    p1 = {"mzone": [c(VORSE, "vr")]}
    events = [board(p0, p1, **BATTLE), {"kind": "stats_changed", "card": "cg", "atk": 2000, "cause": "x"},
              attack("cg", "vr"), step("damage")]
    fold(*events, calc(["vr"], [0, 100]))
    check([*events, calc(["cg"], [500, 0])], "DMG-01")


# -- the first turn --------------------------------------------------------------------------------

def test_turn_1_no_battle_phase_for_the_first_player() -> None:
    """The player going first has no Battle Phase on turn 1 (so no attack on turn 1)."""
    opening = [START, register(0), register(1), draw(0, 5), draw(1, 5), *turn(1, 0, drawn=False)]
    v = refused(*opening, phase("battle"))
    assert v.rule == "NIS-04", v


# -- SYN, XYZ, LINK, PEND: Extra Deck procedures ---------------------------------------------------

TUNED = {**P0, "mzone": [*P0["mzone"], None, c(JUNK_SYNCHRON, "junk", level=4)]}

EXTRA_REFUSED = [
    pytest.param(P0, special("stardust", 5, "synchro", materials=["ox", "vorse"]), "SYN-01",
                 id="SYN-01-no-tuner"),
    pytest.param(TUNED, special("stardust", 5, "synchro", materials=["junk"]), "SYN-01",
                 id="SYN-01-tuner-only"),
    pytest.param(TUNED, special("stardust", 5, "synchro", materials=["junk", "ox", "vorse"]), "SYN-01",
                 id="SYN-01-levels-over"),
    pytest.param(TUNED, special("stardust", 5, "synchro", materials=["junk", "soldier"]), "SYN-01",
                 id="SYN-01-face-down-material"),
    pytest.param({**P0, "mzone": [c(BATTLE_OX, "ox"), c(SUMMONED_SKULL, "sk")]},
                 special("utopia", 5, "xyz", materials=["ox", "sk"]), "XYZ-01", id="XYZ-01-different-levels"),
    pytest.param(P0, special("utopia", 5, "xyz", materials=["ox"]), "XYZ-01", id="XYZ-01-one-material"),
    pytest.param(P0, special("utopia", 5, "xyz", materials=["ox", "soldier"]), "XYZ-01",
                 id="XYZ-01-face-down-material"),
    pytest.param({**P0, "mzone": [c(BATTLE_OX, "ox"), c(SHEEP_TOKEN, "tok", token=True, level=4)]},
                 special("utopia", 5, "xyz", materials=["ox", "tok"]), "XYZ-02", id="XYZ-02-token-material"),
    pytest.param(P0, special("decode", 5, "link", materials=["ox", "vorse"]), "LINK-02",
                 id="LINK-02-rating-short"),
    pytest.param(P0, special("spider", 5, "link", materials=["soldier"]), "LINK-01",
                 id="LINK-01-face-down-material"),
    pytest.param(P0, special("spider", 5, "link", materials=["elf"]), "LINK-01",
                 id="LINK-01-opponents-material"),
]


@pytest.mark.parametrize("p0, event, rule", EXTRA_REFUSED)
def test_extra_deck_summon_refused(p0: dict, event: dict, rule: str) -> None:
    """SYN-01, XYZ-01/02, LINK-01/02: Extra Deck procedures with the wrong materials."""
    v = refused(board(p0), event)
    assert v.rule == rule, v


def test_xyz_detach_and_leave_field_materials_go_to_gy() -> None:
    """XMAT-01/02: a detached material goes to the GY; when the Xyz monster leaves, the rest follow."""
    p0 = {**P0, "mzone": [c(BATTLE_OX, "ox"), c(VORSE, "vorse"), c(CELTIC, "cg")]}
    state = fold(board(p0), special("utopia", 5, "xyz", materials=["ox", "vorse", "cg"]),
                 {"kind": "card_moved", "card": "ox", "to": [0, "gy"], "reason": "detached"})
    assert state.cards["utopia"].materials == ["vorse", "cg"] and state.cards["ox"].zone == "gy"
    state = fold(board(p0), special("utopia", 5, "xyz", materials=["ox", "vorse", "cg"]),
                 {"kind": "card_moved", "card": "utopia", "to": [0, "gy"], "reason": "destroyed", "cause": "x"})
    assert {state.cards[m].zone for m in ("ox", "vorse", "cg")} == {"gy"}


def test_token_03_token_may_be_link_material_and_vanishes() -> None:
    """TOKEN-03/LINK-04: a Token may be a Link material; it vanishes instead of going to the GY."""
    p0 = {**P0, "mzone": [None, None, None, c(SHEEP_TOKEN, "tok", token=True)]}
    state = fold(board(p0), special("spider", 5, "link", materials=["tok"]))
    assert "tok" not in state.cards or state.cards["tok"].zone != "gy"


def test_token_02_token_bounced_vanishes() -> None:
    """TOKEN-02: a Token an effect returns to the hand leaves the field and vanishes; it never
    reaches the hand (so the move is legal, not a refusal)."""
    p0 = {**P0, "mzone": [None, None, None, c(SHEEP_TOKEN, "tok", token=True)]}
    state = fold(board(p0), {"kind": "card_moved", "card": "tok", "to": [0, "hand"], "reason": "returned",
                             "cause": "x"})
    assert "tok" not in state.sides[0].hand and ("tok" not in state.cards or state.cards["tok"].zone != "hand")


SCALES = [c(STARGAZER, "stargazer"), None, None, None, c(TIMEGAZER, "timegazer")]   # Scales 1 and 8
PEND = {"hand": [c(ODD_EYES, "odd"), c(KURIBOH, "kuriboh"), c(BLUE_EYES, "bewd")], "szone": SCALES,
        "extra": [c(ODD_EYES, "odd2", position="faceup")]}


@pytest.mark.parametrize("event, fields, rule", [
    pytest.param(special("kuriboh", 0, "pendulum"), {}, "PEND-03", id="PEND-03-level-equal-to-low-scale"),
    pytest.param(special("odd", 0, "pendulum"), {"turn_player": 1}, "PEND-03", id="PEND-03-opponents-turn"),
    pytest.param(special("odd2", 0, "pendulum"), {}, "NIS-01", id="ZONE-07-extra-deck-pendulum-to-main-zone"),
])
def test_pend_03_zone_07_pendulum_summon_refused(event: dict, fields: dict, rule: str) -> None:
    """PEND-03, ZONE-07: Levels strictly between the Scales, in your own turn; a Pendulum from the
    Extra Deck goes to the EMZ or a linked zone."""
    v = refused(position(PEND, P1, **fields), event)
    assert v.rule == rule, v


def test_pend_05_pendulum_destroyed_goes_to_extra_deck() -> None:
    """PEND-05: a Pendulum monster destroyed on the field goes face-up to the Extra Deck, not the GY."""
    p0 = {**P0, "mzone": [c(ODD_EYES, "odd")]}
    state = fold(board(p0), {"kind": "card_moved", "card": "odd", "to": [0, "extra"], "reason": "destroyed",
                             "cause": "x"})
    assert state.cards["odd"].zone == "extra"
    refused(board(p0), {"kind": "card_moved", "card": "odd", "to": [0, "gy"], "reason": "destroyed", "cause": "x"})


# -- CTRL: control and ownership --------------------------------------------------------------------

def test_ctrl_02_03_taken_monster_attacks_and_goes_to_owners_gy() -> None:
    """CTRL-02/03: a monster taken from the opponent attacks for its new controller, and when it is
    destroyed it goes to its owner's GY."""
    p1 = {"mzone": [c(MYSTICAL_ELF, "elf"), c(CELTIC, "cg")]}
    events = [board(p1=p1), {"kind": "control_changed", "card": "cg", "to_player": 0, "zone": 3, "cause": "x"},
              {"kind": "phase_entered", "phase": "battle"}, step("battle"), attack("cg", "elf"), step("damage"),
              calc(["elf"], [0, 600]), battle_damage(1, 600)]
    fold(*events)
    destroyed = {"kind": "card_moved", "card": "cg", "to": [1, "gy"], "reason": "destroyed", "cause": "x"}
    assert fold(*events, destroyed).cards["cg"].zone == "gy"
    v = refused(*events, {**destroyed, "to": [0, "gy"]})
    assert v.rule == "CTRL-03", v


# -- WIN: the end of the duel -----------------------------------------------------------------------

def test_win_01_battle_damage_to_zero_ends_the_duel() -> None:
    """WIN-01: battle damage that takes LP to 0 loses the duel; nothing but the end may follow."""
    events = [board(p1={"mzone": [], "lp": 1000}, **BATTLE), attack("vorse"), step("damage"),
              calc([], [0, 1900]), battle_damage(1, 1900, 0)]
    state = fold(*events)
    assert state.must_lose == {1: "lp"}
    check([*events, attack("ox")], "WIN-01")
    check([*events, ended(None, "draw")], "WIN-01")
    assert fold(*events, ended(0, "lp")).winner == 0


def test_win_04_both_reach_zero_is_a_draw() -> None:
    """WIN-04: both players reach 0 LP at once: a draw, not a win."""
    events = [board({**P0, "lp": 500}, {**P1, "lp": 500}), {"kind": "life_points_changed", "player": 0, "amount": 500,
                                     "reason": "effect_damage", "cause": "x"},
              {"kind": "life_points_changed", "player": 1, "amount": 500, "reason": "effect_damage", "cause": "x"}]
    assert fold(*events, ended(None, "draw")).winner is None
    check([*events, ended(0, "lp")], "WIN-04")


def test_win_02_drawing_from_an_empty_deck_loses() -> None:
    """WIN-02: a player who must draw in the Draw Phase with an empty Deck loses."""
    events = [board(p1={**P1, "deck": []}), {"kind": "phase_entered", "phase": "end"},
              {"kind": "turn_started", "player": 1, "turn": 3}, phase("draw")]
    state = fold(*events, draw(1))
    assert state.must_lose == {1: "deck_out"}
    assert fold(*events, draw(1), ended(0, "deck_out")).winner == 0
    check([*events, draw(1), phase("standby")], "WIN-02")


# -- position changes by effect during an attack, and what follows an attack ----------------------

GONE_ELF = {"kind": "card_moved", "card": "elf", "to": [1, "gy"], "reason": "destroyed", "cause": "x"}


def test_pos_04_target_turned_face_down_after_the_attack_battles_with_def() -> None:
    """POS-04, DMG-07: the target is turned face-down (Book of Moon) after the attack is declared:
    no replay (the opponent's monsters are the same), it is flipped and battles with its DEF."""
    events = [board(**BATTLE), attack("vorse", "elf"), change("elf", "set", player=1, cause="x"), step("damage")]
    state = fold(*events, calc([], [100, 0]), battle_damage(0, 100))
    assert state.cards["elf"].position == "defense"
    check([*events, calc(["elf"], [0, 1100])], "DMG-07")


def test_battle_06_attacker_turned_to_defense_ends_the_attack() -> None:
    """POS-03: an attacker turned to Defense Position by an effect after its declaration no longer
    attacks: no damage calculation follows, but another monster may attack."""
    events = [board(**BATTLE), attack("vorse", "elf"), change("vorse", "defense", cause="x")]
    fold(*events, attack("ox", "elf"))
    check([*events, step("damage"), calc(["elf"], [0, 1100])], "POS-03", "only face-up Attack Position")


def test_battle_06_new_monster_after_attack_player_keeps_the_target() -> None:
    """BATTLE-06: the opponent Special Summons a monster after an attack on a monster: a replay
    lets the attacker keep its target; damage calculation against it is legal."""
    p1 = {"mzone": [c(MYSTICAL_ELF, "elf")], "hand": [c(KURIBOH, "kb")]}
    fold(board(p1=p1, **BATTLE), attack("vorse", "elf"), special("kb", 2, player=1, cause="x"), step("damage"),
         calc(["elf"], [0, 1100]))


def test_battle_06_direct_attack_then_a_monster_appears() -> None:
    """BATTLE-06: after a direct attack the opponent Special Summons a monster: a replay must come
    before the Damage Step; entering it with the attack still direct is refused."""
    p1 = {"mzone": [], "hand": [c(KURIBOH, "kb")]}
    events = [board(p1=p1, **BATTLE), attack("vorse"), special("kb", 2, player=1, cause="x")]
    check([*events, step("damage")], "BATTLE-06")
    fold(*events, {"kind": "attack_retargeted", "target": "kb"}, step("damage"), calc(["kb"], [0, 1600]))


def test_dmg_10_battle_damage_must_match_the_calculation() -> None:
    """DMG-10: the LP change that follows is the damage the calculation gave."""
    events = [board(**BATTLE), attack("vorse", "elf"), step("damage"), calc(["elf"], [0, 1100])]
    check([*events, battle_damage(1, 1000)], "DMG-10")


def test_battle_14_monster_destroyed_by_battle_must_leave() -> None:
    """BATTLE-14: a monster destroyed by battle leaves the field before the attack is over."""
    events = [board(**BATTLE), attack("vorse", "elf"), step("damage"), calc(["elf"], [0, 1100]),
              battle_damage(1, 1100)]
    check([*events, step("battle")], "BATTLE-14")


def test_pend_05_battle_14_pendulum_destroyed_by_battle_goes_to_extra() -> None:
    """PEND-05/BATTLE-14: a Pendulum monster destroyed by battle goes face-up to the Extra Deck."""
    p1 = {"mzone": [c(ODD_EYES, "oe", position="defense")]}          # 2500 ATK / 2000 DEF
    p0 = {**P0, "mzone": [c(BLUE_EYES, "be")]}
    events = [board(p0, p1, **BATTLE), attack("be", "oe"), step("damage"), calc(["oe"], [0, 0])]
    state = fold(*events, to_gy("oe", 1, zone="extra"), step("battle"))
    assert state.cards["oe"].zone == "extra"
    refused(*events, to_gy("oe", 1))


def test_token_02_token_destroyed_by_battle_vanishes() -> None:
    """TOKEN-02: a Token destroyed by battle leaves the field and vanishes."""
    p1 = {"mzone": [c(SHEEP_TOKEN, "tok", token=True, position="defense")]}
    state = fold(board(p1=p1, **BATTLE), attack("vorse", "tok"), step("damage"), calc(["tok"], [0, 0]),
                 to_gy("tok", 1), step("battle"))
    assert "tok" not in state.cards or state.cards["tok"].zone != "gy"


def test_battle_attack_with_monster_special_summoned_this_turn() -> None:
    """BATTLE-02: no summoning sickness: a monster summoned this turn may attack."""
    fold(board(), summon("celtic", 3), {"kind": "phase_entered", "phase": "battle"}, step("battle"),
         attack("celtic", "elf"))


# -- more summons and positions ------------------------------------------------------------------

MORE_REFUSED = [
    pytest.param(board(), [summon("celtic", 5)], "ZONE-03", id="ZONE-03-normal-summon-into-emz"),
    pytest.param(board(TUNED), [special("stardust", 5, "synchro", materials=["junk", "ox"]),
                           special("utopia", 6, "effect", cause="x")], "ZONE-04", id="ZONE-04-second-emz"),
    pytest.param(board(**BATTLE), [summon("celtic", 3)], "TURN-06", id="TURN-06-normal-summon-in-battle-phase"),
    pytest.param(board(turn_player=1), [summon("celtic", 3)], "SUM-01", id="SUM-01-opponents-turn"),
    pytest.param(board(), [summon("celtic", 3, position="defense")], "SUM-09", id="SUM-09-face-up-defense"),
    pytest.param(board(), [monster_set("celtic", 3), change("celtic", "attack")], "SUM-11",
                 id="POS-08-set-this-turn-to-attack"),
    pytest.param(board(TUNED, **BATTLE), [special("stardust", 5, "synchro", materials=["junk", "ox"])], "SYN-01",
                 id="SYN-01-battle-phase"),
    pytest.param(board(turn_player=1), [special("utopia", 5, "xyz", materials=["ox", "vorse"])], "XYZ-01",
                 id="XYZ-01-opponents-turn"),
    pytest.param(board(), [special("utopia", 5, "xyz", materials=["ox", "vorse"]), change("utopia", "defense")],
                 "POS-08", id="POS-08-xyz-summoned-this-turn"),
    pytest.param(board(), [special("spider", 5, "link", materials=["ox"]), change("spider", "defense", cause="x")],
                 "LINK-05", id="LINK-05-link-to-defense-by-effect"),
    pytest.param(board(), [summon("celtic", 3), {"kind": "summon_negated", "card": "celtic"},
                           monster_set("kuriboh", 4)], "SUM-03", id="SUM-03-set-after-negated-summon"),
]


@pytest.mark.parametrize("setup, events, rule", MORE_REFUSED)
def test_more_summon_and_position_plays_refused(setup: dict, events: list[dict], rule: str) -> None:
    """ZONE-03/04, SUM-01/03/09, POS-08, SYN-01, XYZ-01, LINK-05."""
    check([setup, *events], rule)


@pytest.mark.parametrize("events", [
    pytest.param([change("soldier", "attack", cause="x"), change("soldier", "set", cause="x"), flip("soldier")],
                 id="SUM-11-flip-after-effect-changes"),
    pytest.param([summon("skull", 3, "ox"), {"kind": "summon_negated", "card": "skull"}, flip("soldier")],
                 id="SUM-03-tributes-stay-flip-still-allowed"),
    pytest.param([special("stardust", 5, "synchro", materials=["junk", "ox"]), summon("celtic", 3)],
                 id="SPS-02-normal-summon-after-synchro"),
    pytest.param([special("stardust", 5, "synchro", materials=["junk", "ox"]),
                  {"kind": "card_moved", "card": "stardust", "to": [0, "extra"], "reason": "returned", "cause": "x"}],
                 id="SPS-14-synchro-returned-to-extra"),
])
def test_more_summon_plays_fold(events: list[dict]) -> None:
    """SUM-03/11, SPS-02/14: legal plays fold clean."""
    fold(board(TUNED), *events)


def test_sum_03_negated_tribute_summon_tributes_stay_in_gy() -> None:
    """SUM-03/SUM-07: a negated Tribute Summon: the Tributes stay in the GY, the monster goes there."""
    state = fold(board(), summon("skull", 3, "ox"), {"kind": "summon_negated", "card": "skull"})
    assert state.cards["ox"].zone == "gy" and state.cards["skull"].zone == "gy"


def test_ctrl_03_taken_monster_tributed_and_bounced_go_to_owner() -> None:
    """CTRL-03: a monster taken from the opponent may be Tributed (you control it) and goes to its
    owner's GY; bounced, it goes to its owner's hand."""
    p1 = {"mzone": [c(MYSTICAL_ELF, "elf"), c(CELTIC, "cg")]}
    take = {"kind": "control_changed", "card": "cg", "to_player": 0, "zone": 3, "cause": "x"}
    state = fold(board(p1=p1), take, summon("skull", 4, "cg"))
    assert state.cards["cg"].zone == "gy" and "cg" in state.sides[1].gy
    bounce = {"kind": "card_moved", "card": "cg", "to": [1, "hand"], "reason": "returned", "cause": "x"}
    assert "cg" in fold(board(p1=p1), take, bounce).sides[1].hand
    v = refused(board(p1=p1), take, {**bounce, "to": [0, "hand"]})
    assert v.rule == "CTRL-03", v


def test_win_02_effect_draw_from_an_empty_deck_loses() -> None:
    """WIN-02: a draw by an effect from an empty Deck loses too."""
    state = fold(board({**P0, "deck": []}), draw(0, 1, cause="x"))
    assert state.must_lose == {0: "deck_out"}


def test_win_01_no_loss_recorded_without_zero_lp() -> None:
    """WIN-01: a duel ended 'by LP' while both players have LP left is refused."""
    check([board(), ended(0, "lp")], "WIN-01")
    fold(board(), ended(1, "surrender"))


# -- batch 3: materials, Ranks, Link Ratings, Damage Step positions, LP ---------------------------

EFFECTS = {**P0, "mzone": [c(KURIBOH, "kb"), c(JINZO, "jz"), c(BATTLE_OX, "ox"), c(CELTIC, "l3a", level=3),
                           c(VORSE, "l3b", level=3)]}


@pytest.mark.parametrize("p0, event, rule", [
    pytest.param(EFFECTS, special("utopia", 5, "xyz", materials=["l3a", "l3b"]), "XYZ-01",
                 id="XYZ-01-rank-4-from-level-3s"),
    pytest.param({**P0, "mzone": [c(BATTLE_OX, "ox"), c(UTOPIA, "u2")]},
                 special("utopia", 5, "xyz", materials=["ox", "u2"]), "CARD-07", id="CARD-07-xyz-monster-has-no-level"),
    pytest.param({**P0, "mzone": [c(BATTLE_OX, "ox")]}, special("stardust", 5, "synchro",
                                                                materials=["ox", "p1junk"]), "SYN-01",
                 id="SYN-01-opponents-tuner"),
    pytest.param({**P0, "mzone": [c(BATTLE_OX, "ox")]},
                 special("decode", 5, "link", materials=["ox", "spider_f"]), "LINK-02", id="LINK-02-link-1-plus-one"),
])
def test_batch3_extra_deck_refused(p0: dict, event: dict, rule: str) -> None:
    """XYZ-01: a Rank needs materials of that Level (CARD-07: an Xyz monster has none); SYN-01: your own
    Tuner; LINK-02: a Link-1 material and one monster make 2, not Decode Talker's 3."""
    p1 = {"mzone": [c(MYSTICAL_ELF, "elf"), c(JUNK_SYNCHRON, "p1junk", level=4)]}
    p0 = {**p0, "mzone": [*p0["mzone"], *([None] * (4 - len(p0["mzone"]))), c(LINK_SPIDER, "spider_f")]} \
        if event["method"] == "link" else p0
    v = refused(board(p0, p1), event)
    assert v.rule == rule, v


def test_link_02_link_material_counts_its_rating_or_one() -> None:
    """LINK-02/03: Decode Talker (Link-3) from Link Spider (Link-1, counts 1) and two Effect monsters."""
    p0 = {**EFFECTS, "mzone": [c(KURIBOH, "kb"), c(JINZO, "jz"), None, None, None, c(LINK_SPIDER, "sp")]}
    state = fold(board(p0), special("decode", 6, "link", materials=["sp", "kb", "jz"]))
    assert state.cards["decode"].zone == "mzone"


@pytest.mark.parametrize("events, rule", [
    pytest.param([special("kuriboh", 3, position="set", cause="x"), flip("kuriboh")], "SUM-11",
                 id="SUM-11-set-by-effect-this-turn"),
    pytest.param([summon("utopia", 3)], "SUM-01", id="SUM-01-normal-summon-from-extra-deck"),
    pytest.param([special("bls", 3, "ritual")], "RIT-01", id="RIT-01-ritual-without-a-ritual-spell"),
    pytest.param([special("thousand", 5, "fusion")], "FUS-01", id="FUS-01-fusion-without-a-card"),
    pytest.param([{"kind": "phase_entered", "phase": "battle"}, step("battle"), attack("ox", "elf"),
                  step("damage"), change("vorse", "defense")], "POS-07", id="POS-07-manual-change-in-damage-step"),
    pytest.param([{"kind": "phase_entered", "phase": "battle"}, step("battle"), attack("ox", "elf"),
                  attack("vorse", "elf")], "BATTLE-02", id="BATTLE-02-attack-before-the-last-is-over"),
])
def test_batch3_refused(events: list[dict], rule: str) -> None:
    """SUM-01/11, RIT-01, FUS-01, POS-07, BATTLE-02."""
    p0 = {**P0, "hand": [*HAND, c(BLS, "bls")], "extra": [*P0["extra"], c(THOUSAND_DRAGON, "thousand")]}
    v = refused(board(p0), *events)
    assert v.rule == rule, v


@pytest.mark.parametrize("events", [
    pytest.param([monster_set("skull", 3, "ox")], id="SUM-08-set-level-6-with-one-tribute"),
    pytest.param([token("tok", 3, cause="x"), summon("skull", 4, "tok")], id="SUM-06-token-tributed"),
    pytest.param([change("soldier", "defense", cause="x"), change("soldier", "attack")],
                 id="POS-07-manual-after-effect-flip"),
    pytest.param([{"kind": "phase_entered", "phase": "battle"}, step("battle"), attack("ox", "elf"),
                  {"kind": "card_moved", "card": "elf", "to": [1, "gy"], "reason": "destroyed", "cause": "x"},
                  {"kind": "attack_retargeted", "target": None}, step("damage"), calc([], [0, 1700]),
                  battle_damage(1, 1700), step("battle"), attack("vorse")], id="BATTLE-02-direct-after-a-replay"),
])
def test_batch3_legal(events: list[dict]) -> None:
    """SUM-06/08, POS-07, BATTLE-02/06: legal plays fold clean."""
    fold(board(), *events)


def test_zone_14_stated_lp_never_below_zero() -> None:
    """ZONE-14/WIN-01: damage above the LP left takes them to 0, not below."""
    events = [board(p1={"mzone": [], "lp": 1000}, **BATTLE), attack("vorse"), step("damage"), calc([], [0, 1900])]
    check([*events, battle_damage(1, 1900, -900)], "ZONE-14")


# -- batch 4: a monster in the battle leaves and comes back, or changes control (BATTLE-06) -------

TAKE_ELF = {"kind": "control_changed", "card": "elf", "to_player": 0, "zone": 3, "cause": "x"}
TAKE_VORSE = {"kind": "control_changed", "card": "vorse", "to_player": 1, "zone": 3, "cause": "x"}
BANISH_ELF = {"kind": "card_moved", "card": "elf", "to": [1, "banished"], "reason": "banished", "cause": "x"}
BANISH_VORSE = {"kind": "card_moved", "card": "vorse", "to": [0, "banished"], "reason": "banished", "cause": "x"}
ELF_BACK = special("elf", 3, player=1, cause="x")
VORSE_BACK = special("vorse", 3, cause="x")


@pytest.mark.parametrize("events, says", [
    pytest.param([TAKE_ELF], "changed control", id="target-taken-by-the-attacker"),
    pytest.param([TAKE_VORSE], "changed control", id="attacker-taken-by-the-opponent"),
    pytest.param([BANISH_ELF, ELF_BACK], "attack target left the field", id="target-banished-and-back"),
    pytest.param([BANISH_VORSE, VORSE_BACK], "attacking monster is no longer on the field",
                 id="attacker-banished-and-back"),
])
def test_battle_06_no_damage_calculation_with_a_changed_monster(events: list[dict], says: str) -> None:
    """BATTLE-06: a monster that left the field and came back is a new card, and one whose
    control changed no longer battles for its old side: the declared battle does not happen."""
    check([board(**BATTLE), attack("vorse", "elf"), *events, step("damage"), calc(["elf"], [0, 1100])],
          "BATTLE-06", says)


def test_battle_06_target_back_on_the_field_is_a_replay() -> None:
    """BATTLE-06: the target left the field and came back (a new card): the opponent's monsters
    have changed, so the attacker may choose it again as a new target."""
    fold(board(**BATTLE), attack("vorse", "elf"), BANISH_ELF, ELF_BACK,
         {"kind": "attack_retargeted", "target": "elf"}, step("damage"), calc(["elf"], [0, 1100]))
    fold(board(**BATTLE), attack("vorse", "elf"), BANISH_ELF, ELF_BACK, {"kind": "attack_cancelled"})


def test_battle_03_attacker_back_on_the_field_is_a_new_monster() -> None:
    """BATTLE-03: a monster that attacked, left the field and came back is a new card: it may
    declare an attack (its first) in the same Battle Phase."""
    fold(board(**BATTLE), attack("vorse", "elf"), BANISH_VORSE, VORSE_BACK, attack("vorse", "elf"))


def test_battle_06_target_moved_within_its_side_is_no_replay() -> None:
    """BATTLE-06: the target moved to another zone of its controller's row is the same monster:
    no replay, and damage calculation against it goes on."""
    move = {"kind": "zone_changed", "card": "elf", "zone": 2, "cause": "x"}
    fold(board(**BATTLE), attack("vorse", "elf"), move, step("damage"), calc(["elf"], [0, 1100]))
    check([board(**BATTLE), attack("vorse", "elf"), move, {"kind": "attack_cancelled"}], "BATTLE-06")


# -- batch 5: a summon by procedure takes the summoner's own monster ------------------------------

@pytest.mark.parametrize("setup, event, rule", [
    pytest.param(board(TUNED, {"mzone": [c(MYSTICAL_ELF, "elf")], "extra": [c(STARDUST, "sd9")]}),
                 special("sd9", 5, "synchro", materials=["junk", "ox"]), "SYN-01", id="SYN-01-opponents-extra-deck"),
    pytest.param(board(None, {"mzone": [c(MYSTICAL_ELF, "elf")], "extra": [c(UTOPIA, "u9")]}),
                 special("u9", 5, "xyz", materials=["ox", "vorse"]), "XYZ-01", id="XYZ-01-opponents-extra-deck"),
    pytest.param(board(None, {"mzone": [c(MYSTICAL_ELF, "elf")], "extra": [c(LINK_SPIDER, "ls9")]}),
                 special("ls9", 5, "link", materials=["ox"]), "LINK-01", id="LINK-01-opponents-extra-deck"),
    pytest.param(position(PEND, {"mzone": [c(MYSTICAL_ELF, "elf")], "hand": [c(ODD_EYES, "oe9")]}),
                 special("oe9", 0, "pendulum"), "PEND-03", id="PEND-03-opponents-hand"),
])
def test_procedure_summons_the_summoners_own_monster(setup: dict, event: dict, rule: str) -> None:
    """SYN-01, XYZ-01, LINK-01, PEND-03: the monster a procedure summons is the summoner's own, from
    their Extra Deck or hand; a Synchro Monster in the opponent's Extra Deck is out of reach."""
    check([setup, event], rule, "summoner's own")


# -- batch 6: what goes to the Extra Deck (ZONE-12, PEND-05) ----------------------------------------

def _to_extra(card: str, **fields) -> dict:
    return {"kind": "card_moved", "card": card, "to": [0, "extra"], "reason": "sent", "cause": "x", **fields}


@pytest.mark.parametrize("card, fields", [
    pytest.param("bewd", {}, id="ZONE-12-main-deck-monster-to-extra-deck"),
    pytest.param("odd", {"position": "facedown"}, id="ZONE-12-main-deck-pendulum-face-down"),
])
def test_zone_12_main_deck_card_to_extra_deck_refused(card: str, fields: dict) -> None:
    """ZONE-12: the Extra Deck holds Extra Deck monsters, and Main Deck Pendulums only face-up."""
    check([position(PEND, P1), _to_extra(card, **fields)], "ZONE-12", "Main Deck card")


def test_zone_12_main_deck_pendulum_from_hand_is_face_up() -> None:
    """ZONE-12: an effect that adds a Pendulum from the hand to the Extra Deck places it face-up,
    and from there it may be Pendulum Summoned (PEND-03)."""
    state = fold(position(PEND, P1), _to_extra("odd"))
    assert (state.cards["odd"].zone, state.cards["odd"].position) == ("extra", "faceup")
    fold(position(PEND, P1), _to_extra("odd"), special("odd", 5, "pendulum"))


def test_pend_05_pendulum_xyz_material_goes_to_the_gy() -> None:
    """PEND-05/NIS-05: a Pendulum that is an Xyz material is not on the field (XMAT-02): detached,
    it goes to the GY, not the Extra Deck."""
    p0 = {**P0, "mzone": [c(ODD_EYES, "oe", level=4), c(VORSE, "vorse")]}
    events = [board(p0), special("utopia", 5, "xyz", materials=["oe", "vorse"])]
    fold(*events, {"kind": "card_moved", "card": "oe", "to": [0, "gy"], "reason": "detached"})
    check([*events, {"kind": "card_moved", "card": "oe", "to": [0, "extra"], "reason": "detached"}], "NIS-05")


def test_ctrl_02_control_changes_only_by_an_effect() -> None:
    """CTRL-02: control passes by an effect (named as the cause); no basic rule gives a player the
    opponent's monster."""
    take = {"kind": "control_changed", "card": "elf", "to_player": 0, "zone": 3}
    check([board(), take], "CTRL-02", "name it as the cause")
    assert fold(board(), {**take, "cause": "x"}).cards["elf"].controller == 0


@pytest.mark.parametrize("ruleset, card, method, materials, rule", [
    pytest.param("mr2020", "stardust", "synchro", ["junk", "ox"], None, id="mr2020-synchro-to-main-zone"),
    pytest.param("nmr2017", "stardust", "synchro", ["junk", "ox"], "ZONE-03", id="nmr2017-synchro-to-main-zone"),
    pytest.param("mr2020", "utopia", "xyz", ["ox", "vorse"], None, id="mr2020-xyz-to-main-zone"),
    pytest.param("mr2020", "spider", "link", ["ox"], "NIS-01", id="mr2020-link-to-unlinked-main-zone"),
])
def test_zone_03_extra_deck_monster_to_a_main_monster_zone(ruleset: str, card: str, method: str,
                                                            materials: list[str], rule: str | None) -> None:
    """ZONE-03/06: under Master Rule 2020 Fusion, Synchro and Xyz monsters may enter a Main Monster
    Zone; Link monsters (and, under 2017, all of them) only a zone a link arrow points to."""
    events = [board(TUNED, ruleset=ruleset), special(card, 3, method, materials=materials)]
    if rule is None:
        assert fold(*events).cards[card].zone == "mzone"
    else:
        check(events, rule, "link arrow points to it")


def test_pos_08_sum_11_no_flip_summon_after_attacking() -> None:
    """POS-08/SUM-11: a monster that declared an attack, then was turned face-down by an effect
    (Book of Moon), cannot be Flip Summoned in Main Phase 2: a Flip Summon is a position change."""
    events = [board(**BATTLE), attack("vorse", "elf"), step("damage"), calc(["elf"], [0, 1100]),
              battle_damage(1, 1100), to_gy("elf", 1), step("battle"), change("vorse", "set", cause="x"),
              {"kind": "phase_entered", "phase": "main2"}]
    check([*events, flip("vorse")], "POS-08", "declared an attack this turn")
    fold(*events, flip("soldier"))                  # one that did not attack may


def test_pend_04_negated_pendulum_summon_sends_all_to_the_gy() -> None:
    """PEND-04: a negated Pendulum Summon destroys all its monsters, and they go to the GY, the
    ones from the Extra Deck included (they never were on the field: PEND-05 does not apply)."""
    state = fold(position(PEND, P1), special("odd", 0, "pendulum"), special("odd2", 5, "pendulum"),
                 {"kind": "summon_negated", "card": "odd"}, {"kind": "summon_negated", "card": "odd2"})
    assert [state.cards[c].zone for c in ("odd", "odd2")] == ["gy", "gy"]


@pytest.mark.parametrize("p0, card, rule", [
    pytest.param({**P0, "mzone": [None] * 5 + [c(LINK_SPIDER, "ls")]}, "ls", "LINK-05", id="LINK-05-link-face-down"),
    pytest.param({**P0, "mzone": [c(SHEEP_TOKEN, "tok", token=True)]}, "tok", "TOKEN-02", id="TOKEN-02-token-face-down"),
])
def test_no_effect_turns_links_or_tokens_face_down(p0: dict, card: str, rule: str) -> None:
    """LINK-05, TOKEN-02: Book of Moon cannot turn a Link monster or a Token face-down."""
    check([board(p0), change(card, "set", cause="x")], rule)


def test_token_02_tributed_token_vanishes() -> None:
    """SUM-06/TOKEN-02: a Token may be Tributed for a Tribute Summon; it does not reach the GY."""
    state = fold(board({**P0, "mzone": [c(SHEEP_TOKEN, "tok", token=True)]}), summon("skull", 1, "tok"))
    assert "tok" not in state.cards and state.cards["skull"].zone == "mzone"


def test_sps_02_a_negated_pendulum_summon_still_used_the_turns_one() -> None:
    """SPS-02/PEND-04: a negated Pendulum Summon was still the turn's one Pendulum Summon; the
    Normal Summon is untouched."""
    pp = {**PEND, "hand": [*PEND["hand"], c(ODD_EYES, "odd3")]}
    events = [position(pp, P1), special("odd", 0, "pendulum"), {"kind": "summon_negated", "card": "odd"}]
    check([*events, special("odd3", 1, "pendulum")], "SPS-02", "already Pendulum Summoned")
    fold(*events, summon("kuriboh", 1))


@pytest.mark.parametrize("event", [summon("skull", 5, "ox"), monster_set("celtic", 6)],
                         ids=["tribute-summon-into-emz", "set-into-emz"])
def test_zone_03_normal_summons_use_main_monster_zones(event: dict) -> None:
    """ZONE-03: a Normal Summoned or Set monster (Tribute Summon included) goes to a Main Monster Zone."""
    check([board(), event], "ZONE-03", "Main Monster Zone")


def test_battle_07_forfeited_attacker_cannot_change_position_in_main_2() -> None:
    """BATTLE-07/POS-08: the monster whose attack was replayed away declared an attack: it cannot
    change position in Main Phase 2. One that left the field and came back is a new card: its
    summon now, not the attack, is what keeps its position."""
    p1 = {"mzone": [c(MYSTICAL_ELF, "elf"), c(CELTIC, "c1")]}
    events = [board(p1=p1, **BATTLE), attack("ox", "elf"), GONE_ELF, attack("vorse", "c1"), step("damage"),
              calc(["c1"], [0, 500]), battle_damage(1, 500), to_gy("c1", 1), step("battle"),
              {"kind": "phase_entered", "phase": "main2"}]
    check([*events, change("ox", "defense")], "POS-08", "declared an attack this turn")
    back = [board(**BATTLE), attack("vorse", "elf"), BANISH_VORSE, {**VORSE_BACK, "position": "defense"},
            {"kind": "phase_entered", "phase": "main2"}]
    check([*back, change("vorse", "attack")], "POS-08", "summoned or Set this turn")   # new, but summoned now
