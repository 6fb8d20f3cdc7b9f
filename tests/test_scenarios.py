"""Judge scenarios: whole plays, many of them multi-turn, checked against RULES.md.

Most are LEGAL plays a real duel contains and that an engine easily refuses by mistake (a false
violation on a legal duel is the worst failure); the rest are illegal plays a judge expects
refused, with the rule ID a judge would cite. Each scenario says what happens at the table.
"""
from __future__ import annotations

from typing import Any

import pytest
from duel import (
    BATTLE_OX, BLUE_EYES, CALL_OF_THE_HAUNTED, CELTIC, DARK_MAGICIAN, DECODE_TALKER, GIANT_SOLDIER,
    JINZO, KURIBOH, LINK_SPIDER, MAGIC_JAMMER, MIRROR_FORCE, MONSTER_REBORN, MST, MYSTICAL_ELF,
    ODD_EYES, POT, SHEEP_TOKEN, SOLEMN, STARDUST, STARGAZER, SUMMONED_SKULL, TIMEGAZER, TRAP_HOLE,
    UTOPIA, VORSE, AXE, CARDS, fold, position, refused)

from ygoreplay.cards import CardDB, CardFacts, CardType

SANGAN, WITCH, SAKURETSU, BOOK_OF_MOON, SCAPEGOAT = 26202165, 78010363, 56120475, 14087893, 73915051
CHANGE_OF_HEART, SNATCH_STEAL, NEGATE_ATTACK, MAGIC_CYLINDER = 4031928, 45986603, 14315573, 62279055
JUNK_SYNCHRON, FLASH_KNIGHT, PROXY_DRAGON, MAN_EATER = 63977008, 17390179, 22862454, 54652250
TORRENTIAL, RING, DUST_TORNADO, GRACEFUL = 53582587, 83555666, 60082869, 79571449
POLY, THOUSAND_DRAGON, PREMATURE, BLACK_LUSTER_RITUAL, BLS = 24094653, 41462083, 70828912, 55761792, 5405694
YAMI, MPZ, HEAVY_STORM, BLS_ENVOY, CYBER_DRAGON, DARK_HOLE = 59197169, 18161786, 19613556, 72989439, 70095154, 53129443


# -- helpers ------------------------------------------------------------------------------------

def c(code: int, card_id: str, **flags: Any) -> dict:
    return {"code": code, "id": card_id, **flags}


def ev(kind: str, **fields: Any) -> dict:
    return {"kind": kind, **fields}


def summon(card: str, zone: int, player: int = 0, **f: Any) -> dict:
    return ev("normal_summoned", player=player, card=card, zone=zone, **f)


def mset(card: str, zone: int, player: int = 0, **f: Any) -> dict:
    return ev("monster_set", player=player, card=card, zone=zone, **f)


def flip(card: str, player: int = 0) -> dict:
    return ev("flip_summoned", player=player, card=card)


def ss(card: str, zone: int, method: str = "effect", player: int = 0, **f: Any) -> dict:
    return ev("special_summoned", player=player, card=card, zone=zone, method=method, **f)


def st_set(card: str, zone: int, player: int = 0, **f: Any) -> dict:
    return ev("spell_trap_set", player=player, card=card, zone=zone, **f)


def act(card: str, player: int = 0, **f: Any) -> dict:
    return ev("activated", player=player, card=card, **f)


def res(link: int) -> dict:
    return ev("chain_link_resolved", link=link)


def neg(link: int, by: int) -> dict:
    return ev("chain_link_negated", link=link, by=by)


END_CHAIN = ev("chain_ended")


def moved(card: str, to: list, reason: str = "sent", **f: Any) -> dict:
    return ev("card_moved", card=card, to=to, reason=reason, **f)


def pos(card: str, position_: str, player: int = 0, **f: Any) -> dict:
    return ev("position_changed", player=player, card=card, position=position_, **f)


def phase(name: str) -> dict:
    return ev("phase_entered", phase=name)


def step(name: str) -> dict:
    return ev("step_entered", step=name)


def attack(attacker: str, target: str | None = None, player: int = 0) -> dict:
    return ev("attack_declared", player=player, attacker=attacker, target=target)


def calc(destroyed=(), damage=(0, 0)) -> dict:
    return ev("damage_calculated", destroyed=list(destroyed), damage=list(damage))


def lp(player: int, amount: int, reason: str = "battle_damage", **f: Any) -> dict:
    return ev("life_points_changed", player=player, amount=amount, reason=reason, **f)


def draw(player: int, count: int = 1, **f: Any) -> dict:
    return ev("cards_drawn", player=player, count=count, **f)


def turn(number: int, player: int, drawn: bool = True) -> list[dict]:
    return [ev("turn_started", player=player, turn=number), phase("draw"),
            *([draw(player)] if drawn else []), phase("standby"), phase("main1")]


def stats(card: str, **f: Any) -> dict:
    return ev("stats_changed", card=card, **f)


def check(events: list[dict], rule: str, says: str = "") -> None:
    """The last event is refused with ``rule`` (and a message holding ``says``)."""
    v = refused(*events)
    assert v.rule == rule, v
    assert says in v.message, v.message


def battle_position(p0: dict, p1: dict, **f: Any) -> dict:
    return position(p0, p1, **{"phase": "battle", "step": "battle", **f})


# ================================================================================================
# 1. A full duel from the opening: multi-turn facts carried from one turn to the next
# ================================================================================================

FILLER = [DARK_MAGICIAN, SUMMONED_SKULL, POT, MONSTER_REBORN, BLUE_EYES, JINZO, MYSTICAL_ELF,
          WITCH, SANGAN, KURIBOH, MAN_EATER]


def deck(top: list[int]) -> list[int]:
    """A legal 40-card Main Deck whose first cards (the top, unshuffled) are ``top``."""
    out = list(top)
    for code in FILLER:
        while out.count(code) < 3 and len(out) < 40:
            out.append(code)
    assert len(out) == 40 and all(out.count(x) <= 3 for x in out)
    return out


# Player 0: m0 Celtic, m1 MST, m2 Trap Hole, m3 Vorse, m4 Battle Ox | m5 Mystical Elf (turn 3), m6 (turn 5)
P0_DECK = deck([CELTIC, MST, TRAP_HOLE, VORSE, BATTLE_OX, GIANT_SOLDIER, CELTIC])
# Player 1: m0 Giant Soldier, m1 Sakuretsu, m2 Book of Moon, m3 MST, m4 Kuriboh | m5 Vorse (turn 2)
P1_DECK = deck([GIANT_SOLDIER, SAKURETSU, BOOK_OF_MOON, MST, KURIBOH, VORSE, BATTLE_OX, CELTIC])

OPENING = [
    ev("duel_started", first_player=0, chosen_by=0, method="rps", ruleset="mr2020"),
    ev("deck_registered", player=0, main=P0_DECK),
    ev("deck_registered", player=1, main=P1_DECK),
    draw(0, 5), draw(1, 5),
]

TURN_1 = [
    *turn(1, 0, drawn=False),                            # SETUP-04: no draw for the first player
    mset("p0.m0", 2),                                    # Celtic Set
    st_set("p0.m1", 0),                                  # MST Set
    st_set("p0.m2", 1),                                  # Trap Hole Set
    phase("end"),
]

TURN_2 = [
    *turn(2, 1),                                         # the second player's first draw (p1.m5)
    summon("p1.m5", 0, player=1),                        # Vorse Raider, 1900 ATK
    # Trap Hole, Set last turn, activated in the opponent's turn in answer to the summon (TRAP-02)
    act("p0.m2", player=0, targets=["p1.m5"]), res(1),
    moved("p1.m5", [1, "gy"], "destroyed", cause="p0.m2"), moved("p0.m2", [0, "gy"], "resolved"),
    END_CHAIN,
    st_set("p1.m2", 0, player=1),                        # Book of Moon Set
    # MST from the hand at the Set MST; the Set MST (Set turn 1) chains in the opponent's turn (SPELL-12)
    act("p1.m3", player=1, zone=1, targets=["p0.m1"]),
    act("p0.m1", player=0, targets=["p1.m2"]),
    res(2), moved("p1.m2", [1, "gy"], "destroyed", cause="p0.m1"),
    res(1), moved("p0.m1", [0, "gy"], "resolved"), moved("p1.m3", [1, "gy"], "resolved"),
    END_CHAIN,
    phase("end"),
]

TURN_3 = [
    *turn(3, 0),                                         # draws p0.m5
    flip("p0.m0"),                                       # Set on turn 1, Flip Summoned on turn 3
    summon("p0.m3", 1),                                  # Vorse Raider
    phase("battle"), step("battle"),
    attack("p0.m0"), step("damage"), calc(damage=(0, 1400)), lp(1, 1400, lp=6600),
    step("battle"),
    attack("p0.m3"), step("damage"), calc(damage=(0, 1900)), lp(1, 1900, lp=4700),
    step("battle"), step("end"),
    phase("main2"),
    phase("end"),
]

TURN_4 = [
    *turn(4, 1),                                         # draws p1.m6
    mset("p1.m0", 2, player=1),                          # Giant Soldier of Stone Set (DEF 2000)
    phase("end"),
]

TURN_5 = [
    *turn(5, 0),
    pos("p0.m3", "defense"),                             # Vorse attacked on turn 3: it may change now
    phase("battle"), step("battle"),
    attack("p0.m0", "p1.m0"), step("damage"),
    calc(damage=(600, 0)),                               # DMG-07 against the flipped Giant Soldier
    lp(0, 600, lp=7400),
    step("battle"), step("end"), phase("main2"), phase("end"),
]

TURN_6 = [
    *turn(6, 1),
    pos("p1.m0", "attack", player=1),                    # flipped by battle last turn: not a manual change
    phase("battle"), step("battle"),
    attack("p1.m0", "p0.m3", player=1), step("damage"),
    calc(destroyed=["p0.m3"]),                           # 1300 ATK vs 1200 DEF: DMG-05
    moved("p0.m3", [0, "gy"], "battle"),
    step("battle"), step("end"), phase("main2"), phase("end"),
]

FULL_DUEL = [*OPENING, *TURN_1, *TURN_2, *TURN_3, *TURN_4, *TURN_5, *TURN_6]


def test_full_duel_six_turns_folds() -> None:
    state = fold(*FULL_DUEL)
    assert [s.lp for s in state.sides] == [7400, 4700]
    assert state.cards["p1.m0"].position == "attack" and state.cards["p0.m0"].position == "attack"
    assert state.cards["p0.m3"].zone == "gy" and state.turn == 6


def test_full_duel_the_second_players_first_draw_is_required() -> None:
    # TURN-02: player 1 leaves the Draw Phase of turn 2 without drawing
    check([*OPENING, *TURN_1, ev("turn_started", player=1, turn=2), phase("draw"), phase("standby")],
          "TURN-02", "without drawing")


def test_full_duel_flip_summon_the_turn_it_was_set_is_refused() -> None:
    check([*OPENING, *TURN_1[:-1], flip("p0.m0")], "SUM-11")


def test_full_duel_a_trap_set_this_turn_cannot_answer_a_summon_in_the_same_turn() -> None:
    # Player 0 Sets Trap Hole on turn 1; it cannot be activated on turn 1 (TRAP-02)
    check([*OPENING, *turn(1, 0, drawn=False), st_set("p0.m2", 1), summon("p0.m3", 2),
           act("p0.m2", targets=["p0.m3"])], "TRAP-02")


def test_full_duel_vorse_cannot_change_position_in_main_phase_2_of_its_attack() -> None:
    check([*OPENING, *TURN_1, *TURN_2, *TURN_3[:-1], pos("p0.m3", "defense")], "POS-08")


def test_full_duel_no_battle_phase_on_turn_one() -> None:
    check([*OPENING, *turn(1, 0, drawn=False), phase("battle")], "NIS-04")


def test_full_duel_hand_of_exactly_six_needs_no_discard_then_seven_discards_one() -> None:
    # Player 1 does nothing on turn 2: 6 cards at the end, no discard (HAND-01: "more than 6")
    events = [*OPENING, *TURN_1, *turn(2, 1), phase("end"), *turn(3, 0), phase("end"),
              *turn(4, 1), phase("end")]
    check(events + [ev("turn_started", player=0, turn=5)], "HAND-01", "7 cards")
    state = fold(*events, ev("hand_size_discard", player=1, cards=["p1.m4"]),
                 ev("turn_started", player=0, turn=5))
    assert len(state.sides[1].hand) == 6 and state.sides[1].gy == ["p1.m4"]
    # discarding to 5 is not "down to 6"
    check([*events, ev("hand_size_discard", player=1, cards=["p1.m4", "p1.m3"])], "HAND-01")


def test_full_duel_the_opponent_does_not_adjust_their_hand_in_my_end_phase() -> None:
    # Player 1 holds 6, player 0 (turn player) ends with 7 after discarding none: only the turn player discards
    events = [*OPENING, *TURN_1, *turn(2, 1), phase("end"), *turn(3, 0), phase("end")]
    check([*events, ev("hand_size_discard", player=1, cards=["p1.m4"])], "HAND-01")


# ================================================================================================
# 2. Positions and multi-turn facts from a set-up position
# ================================================================================================

def test_set_last_turn_flip_summoned_then_attacks_then_no_change_in_main_2() -> None:
    p0 = {"mzone": [c(MAN_EATER, "bug", position="set")]}
    state = fold(position(p0, {}, turn=4), flip("bug"), phase("battle"), step("battle"), attack("bug"),
                 step("damage"), calc(damage=(0, 450)), lp(1, 450), step("battle"), step("end"), phase("main2"))
    assert state.sides[1].lp == 7550
    check([position(p0, {}, turn=4), flip("bug"), pos("bug", "defense")], "POS-07", "already changed")


def test_flip_summon_by_position_change_event_is_the_same_flip_summon() -> None:
    p0 = {"mzone": [c(MAN_EATER, "bug", position="set")]}
    state = fold(position(p0, {}, turn=4), pos("bug", "attack"))
    assert state.cards["bug"].position == "attack"


def test_monster_turned_face_down_by_book_of_moon_in_the_opponents_turn_is_flip_summoned() -> None:
    p0 = {"mzone": [c(VORSE, "vorse")]}
    p1 = {"szone": [c(BOOK_OF_MOON, "book", position="set")]}
    events = [position(p0, p1, turn=3, turn_player=1, phase="main1"),
              act("book", player=1, targets=["vorse"]), res(1),
              pos("vorse", "set", cause="book"), moved("book", [1, "gy"], "resolved"), END_CHAIN,
              phase("end"), ev("turn_started", player=0, turn=4), phase("draw"), draw(0),
              phase("standby"), phase("main1"), flip("vorse")]
    assert fold(*events).cards["vorse"].position == "attack"


def test_my_own_book_of_moon_then_flip_summon_the_same_turn() -> None:
    """Book of Moon changes position by effect: a manual change (a Flip Summon) is still allowed."""
    p0 = {"mzone": [c(MAN_EATER, "bug")], "hand": [c(BOOK_OF_MOON, "book")]}
    state = fold(position(p0, {}, turn=4), act("book", zone=0, targets=["bug"]), res(1),
                 pos("bug", "set", cause="book"), moved("book", [0, "gy"], "resolved"), END_CHAIN, flip("bug"))
    assert state.cards["bug"].position == "attack"


def test_face_down_to_face_up_defense_manually_is_refused() -> None:
    p0 = {"mzone": [c(MAN_EATER, "bug", position="set")]}
    check([position(p0, {}, turn=4), pos("bug", "defense")], "POS-09")


def test_special_summoned_in_the_opponents_turn_changes_position_in_mine() -> None:
    p0 = {"szone": [c(CALL_OF_THE_HAUNTED, "call", position="set")], "gy": [c(DARK_MAGICIAN, "dm")]}
    events = [position(p0, {}, turn=3, turn_player=1, phase="end"),
              act("call", player=0, targets=["dm"]), res(1), ss("dm", 2, cause="call", player=0), END_CHAIN,
              ev("turn_started", player=0, turn=4), phase("draw"), draw(0), phase("standby"), phase("main1"),
              pos("dm", "defense")]
    assert fold(*events).cards["dm"].position == "defense"


def test_special_summoned_this_turn_cannot_change_position() -> None:
    p0 = {"hand": [c(MONSTER_REBORN, "reborn")], "gy": [c(DARK_MAGICIAN, "dm")]}
    check([position(p0, {}, turn=4), act("reborn", zone=0, targets=["dm"]), res(1), ss("dm", 0, cause="reborn"),
           moved("reborn", [0, "gy"], "resolved"), END_CHAIN, pos("dm", "defense")], "POS-08")


def test_special_summoned_this_turn_may_attack() -> None:
    p0 = {"hand": [c(MONSTER_REBORN, "reborn")], "gy": [c(DARK_MAGICIAN, "dm")]}
    fold(position(p0, {}, turn=4), act("reborn", zone=0, targets=["dm"]), res(1), ss("dm", 0, cause="reborn"),
         moved("reborn", [0, "gy"], "resolved"), END_CHAIN, phase("battle"), step("battle"), attack("dm"),
         step("damage"), calc(damage=(0, 2500)), lp(1, 2500))


def test_defense_to_attack_then_attack_the_same_turn() -> None:
    p0 = {"mzone": [c(VORSE, "vorse", position="defense")]}
    fold(position(p0, {}, turn=4), pos("vorse", "attack"), phase("battle"), step("battle"), attack("vorse"),
         step("damage"), calc(damage=(0, 1900)), lp(1, 1900))


def test_tribute_summon_with_a_face_down_monster_and_a_taken_monster() -> None:
    """SUM-06: face-down monsters may be Tributed; a monster you took control of is yours to Tribute,
    and goes to its owner's GY (CTRL-03)."""
    p0 = {"mzone": [c(MAN_EATER, "bug", position="set")], "hand": [c(CHANGE_OF_HEART, "coh"), c(BLUE_EYES, "bewd")]}
    p1 = {"mzone": [c(VORSE, "vorse")]}
    state = fold(position(p0, p1, turn=4), act("coh", zone=0, targets=["vorse"]), res(1),
                 ev("control_changed", card="vorse", to_player=0, zone=1, cause="coh"),
                 moved("coh", [0, "gy"], "resolved"), END_CHAIN,
                 summon("bewd", 0, tributes=["bug", "vorse"]))
    assert state.sides[1].gy == ["vorse"] and state.sides[0].mzone[0] == "bewd"


# ================================================================================================
# 3. Battle
# ================================================================================================

def test_two_attacks_by_two_monsters_then_direct_after_the_only_monster_is_gone() -> None:
    p0 = {"mzone": [c(VORSE, "vorse"), c(CELTIC, "celtic")]}
    p1 = {"mzone": [c(KURIBOH, "kuri")]}
    state = fold(battle_position(p0, p1), attack("vorse", "kuri"), step("damage"),
                 calc(["kuri"], (0, 1600)), lp(1, 1600), moved("kuri", [1, "gy"], "battle"), step("battle"),
                 attack("celtic"), step("damage"), calc(damage=(0, 1400)), lp(1, 1400, lp=5000))
    assert state.sides[1].lp == 5000


def test_replay_the_target_destroyed_by_an_effect_then_attack_directly() -> None:
    """BATTLE-06: the target left in answer to the attack; the attacker attacks directly instead."""
    p0 = {"mzone": [c(VORSE, "vorse")], "hand": [c(MST, "mst")]}
    p1 = {"mzone": [c(KURIBOH, "kuri")], "hand": [c(SCAPEGOAT, "goat")],
          "szone": [c(RING, "ring", position="set")]}
    state = fold(battle_position(p0, p1), attack("vorse", "kuri"),
                 act("ring", player=1, targets=["kuri"]), res(1), moved("kuri", [1, "gy"], "destroyed", cause="ring"),
                 lp(1, 300, "effect_damage"), lp(0, 300, "effect_damage"), moved("ring", [1, "gy"], "resolved"),
                 END_CHAIN, ev("attack_retargeted", target=None), step("damage"), calc(damage=(0, 1900)), lp(1, 1900))
    assert state.sides[1].lp == 8000 - 300 - 1900


def test_replay_cancel_then_another_monster_attacks_and_the_first_has_forfeited() -> None:
    p0 = {"mzone": [c(VORSE, "vorse"), c(CELTIC, "celtic")]}
    p1 = {"mzone": [c(KURIBOH, "kuri")], "szone": [c(RING, "ring", position="set")]}
    events = [battle_position(p0, p1), attack("vorse", "kuri"),
              act("ring", player=1, targets=["kuri"]), res(1), moved("kuri", [1, "gy"], "destroyed", cause="ring"),
              lp(1, 300, "effect_damage"), lp(0, 300, "effect_damage"), moved("ring", [1, "gy"], "resolved"),
              END_CHAIN, ev("attack_cancelled"), attack("celtic"), step("damage"), calc(damage=(0, 1400)),
              lp(1, 1400), step("battle")]
    fold(*events)
    check([*events, attack("vorse")], "BATTLE-07")          # the forfeited attack (judgerev15: was BATTLE-03)


def test_attacker_destroyed_by_sakuretsu_then_another_monster_attacks() -> None:
    p0 = {"mzone": [c(VORSE, "vorse"), c(CELTIC, "celtic")]}
    p1 = {"szone": [c(SAKURETSU, "armor", position="set")]}
    fold(battle_position(p0, p1), attack("vorse"), act("armor", player=1, targets=["vorse"]), res(1),
         moved("vorse", [0, "gy"], "destroyed", cause="armor"), moved("armor", [1, "gy"], "resolved"), END_CHAIN,
         attack("celtic"), step("damage"), calc(damage=(0, 1400)), lp(1, 1400))


def test_attack_negated_by_negate_attack_ends_the_battle_phase() -> None:
    p0 = {"mzone": [c(VORSE, "vorse")]}
    p1 = {"szone": [c(NEGATE_ATTACK, "negate", position="set")]}
    fold(battle_position(p0, p1), attack("vorse"), act("negate", player=1), res(1),
         ev("attack_cancelled", cause="negate"), moved("negate", [1, "gy"], "resolved"), END_CHAIN,
         step("end"), phase("main2"))


def test_attack_negated_by_magic_cylinder_then_another_monster_attacks() -> None:
    """Magic Cylinder negates the attack (recorded as attack_cancelled by its cause); the Battle
    Phase goes on and another monster may attack."""
    p0 = {"mzone": [c(VORSE, "vorse"), c(CELTIC, "celtic")]}
    p1 = {"szone": [c(MAGIC_CYLINDER, "cyl", position="set")]}
    state = fold(battle_position(p0, p1), attack("vorse"), act("cyl", player=1, targets=["vorse"]), res(1),
                 ev("attack_cancelled", cause="cyl"), lp(0, 1900, "effect_damage", cause="cyl"),
                 moved("cyl", [1, "gy"], "resolved"), END_CHAIN,
                 attack("celtic"), step("damage"), calc(damage=(0, 1400)), lp(1, 1400))
    assert [s.lp for s in state.sides] == [6100, 6600]


def test_face_down_monster_destroyed_by_battle() -> None:
    p0 = {"mzone": [c(VORSE, "vorse")]}
    p1 = {"mzone": [c(SANGAN, "sangan", position="set")]}
    state = fold(battle_position(p0, p1), attack("vorse", "sangan"), step("damage"), calc(["sangan"]),
                 moved("sangan", [1, "gy"], "battle"),
                 # Sangan's trigger (it was flipped face-up, then destroyed) in the Damage Step
                 act("sangan", player=1, effect_type="trigger"), res(1), END_CHAIN,
                 step("battle"))
    assert state.cards["sangan"].zone == "gy"


def test_flip_effect_of_an_attacked_set_monster_after_damage_calculation() -> None:
    p0 = {"mzone": [c(CELTIC, "celtic"), c(VORSE, "vorse")]}
    p1 = {"mzone": [c(MAN_EATER, "bug", position="set")]}
    state = fold(battle_position(p0, p1), attack("celtic", "bug"), step("damage"), calc(["bug"]),
                 act("bug", player=1, effect_type="flip", targets=["vorse"]), res(1),
                 moved("vorse", [0, "gy"], "destroyed", cause="bug"), END_CHAIN,
                 moved("bug", [1, "gy"], "battle"), step("battle"))
    assert state.cards["vorse"].zone == "gy" and state.cards["bug"].zone == "gy"


def test_quick_atk_change_in_the_damage_step_then_damage_matches_the_new_atk() -> None:
    """Celtic (1400) attacks Vorse (1900); in the Damage Step a Quick effect of player 0's face-up
    monster raises its ATK to 2400 (stats_changed by its cause); damage follows the new ATK."""
    p0 = {"mzone": [c(CELTIC, "celtic"), c(JUNK_SYNCHRON, "booster")]}
    p1 = {"mzone": [c(VORSE, "vorse")]}
    state = fold(battle_position(p0, p1), attack("celtic", "vorse"), step("damage"),
                 act("booster", effect_type="quick", targets=["celtic"]), res(1),
                 stats("celtic", atk=2400, cause="booster"), END_CHAIN,
                 calc(["vorse"], (0, 500)), lp(1, 500), moved("vorse", [1, "gy"], "battle"), step("battle"))
    assert state.sides[1].lp == 7500


def test_damage_must_match_the_changed_atk() -> None:
    p0 = {"mzone": [c(CELTIC, "celtic")]}
    p1 = {"mzone": [c(VORSE, "vorse")]}
    check([battle_position(p0, p1), attack("celtic", "vorse"), step("damage"), stats("celtic", atk=2400, cause="x"),
           calc(["celtic"], (500, 0))], "DMG-01")


def test_battle_damage_of_zero_and_both_destroyed() -> None:
    p0 = {"mzone": [c(VORSE, "vorse"), c(CELTIC, "celtic")]}
    p1 = {"mzone": [c(VORSE, "vorse2"), c(GIANT_SOLDIER, "giant", position="defense")]}
    state = fold(battle_position(p0, p1),
                 attack("vorse", "vorse2"), step("damage"), calc(["vorse", "vorse2"]),
                 moved("vorse", [0, "gy"], "battle"), moved("vorse2", [1, "gy"], "battle"), step("battle"),
                 attack("celtic", "giant"), step("damage"), calc(damage=(600, 0)), lp(0, 600), step("battle"))
    assert state.sides[0].lp == 7400 and state.sides[1].lp == 8000


def test_lp_to_exactly_zero_ends_the_duel() -> None:
    p0 = {"mzone": [c(VORSE, "vorse")]}
    state = fold(battle_position(p0, {"lp": 1900}), attack("vorse"), step("damage"), calc(damage=(0, 1900)),
                 lp(1, 1900, lp=0), ev("duel_ended", winner=0, reason="lp"))
    assert state.ended and state.winner == 0


def test_after_lp_zero_no_more_play() -> None:
    p0 = {"mzone": [c(VORSE, "vorse")]}
    check([battle_position(p0, {"lp": 1900}), attack("vorse"), step("damage"), calc(damage=(0, 1900)),
           lp(1, 1900), step("battle")], "WIN-01")


def test_direct_attack_with_a_monster_on_the_opponents_field_is_refused() -> None:
    check([battle_position({"mzone": [c(VORSE, "vorse")]}, {"mzone": [c(KURIBOH, "kuri", position="set")]}),
           attack("vorse")], "BATTLE-02")


def test_defense_position_monster_cannot_attack() -> None:
    check([battle_position({"mzone": [c(VORSE, "vorse", position="defense")]}, {}), attack("vorse")], "POS-03")


def test_same_monster_cannot_attack_twice() -> None:
    check([battle_position({"mzone": [c(VORSE, "vorse")]}, {}), attack("vorse"), step("damage"),
           calc(damage=(0, 1900)), lp(1, 1900), step("battle"), attack("vorse")], "BATTLE-03")


def test_scapegoat_in_answer_to_a_direct_attack_then_replay_onto_a_token() -> None:
    p0 = {"mzone": [c(VORSE, "vorse")]}
    p1 = {"szone": [c(SCAPEGOAT, "goat", position="set")]}
    events = [battle_position(p0, p1), attack("vorse"), act("goat", player=1), res(1)]
    for i, zone in enumerate(range(4)):
        events.append(ev("token_created", player=1, card=f"p1.t{i + 1}", code=SHEEP_TOKEN, zone=zone,
                         position="defense", cause="goat"))
    events += [moved("goat", [1, "gy"], "resolved"), END_CHAIN, ev("attack_retargeted", target="p1.t1"),
               step("damage"), calc(["p1.t1"]), moved("p1.t1", [1, "gy"], "battle"), step("battle")]
    state = fold(*events)
    assert "p1.t1" not in state.cards and state.monster_count(1) == 3


# ================================================================================================
# 4. Spells and Traps across turns
# ================================================================================================

def test_quick_play_set_in_the_opponents_turn_is_activated_in_mine() -> None:
    p1 = {"hand": [c(MST, "mst")]}
    p0 = {"szone": [c(TRAP_HOLE, "hole", position="set")]}
    # turn 3: player 1 Sets MST; turn 4: player 1 is not the turn player but it's player 0's turn;
    events = [position(p0, p1, turn=3, turn_player=1), st_set("mst", 2, player=1), phase("end"),
              *turn(4, 0), act("mst", player=1, targets=["hole"]), res(1),
              moved("hole", [0, "gy"], "destroyed", cause="mst"), moved("mst", [1, "gy"], "resolved"), END_CHAIN]
    fold(*events)


def test_quick_play_set_in_my_turn_activated_in_the_opponents_next_turn() -> None:
    p0 = {"hand": [c(MST, "mst")]}
    p1 = {"szone": [c(TRAP_HOLE, "hole", position="set")]}
    fold(position(p0, p1, turn=3), st_set("mst", 2), phase("end"), *turn(4, 1),
         act("mst", player=0, targets=["hole"]), res(1),
         moved("hole", [1, "gy"], "destroyed", cause="mst"), moved("mst", [0, "gy"], "resolved"), END_CHAIN)


def test_quick_play_from_the_hand_in_the_opponents_turn_is_refused() -> None:
    check([position({}, {"hand": [c(MST, "mst")]}), act("mst", player=1, zone=0)], "SPELL-12")


def test_set_normal_spell_activated_the_same_turn() -> None:
    p0 = {"hand": [c(POT, "pot")]}
    fold(position(p0, {}), st_set("pot", 0), act("pot"), res(1), draw(0, 2, cause="pot"),
         moved("pot", [0, "gy"], "resolved"), END_CHAIN)


def test_set_normal_spell_in_the_opponents_turn_is_refused() -> None:
    p1 = {"szone": [c(POT, "pot", position="set")]}
    check([position({}, p1), act("pot", player=1)], "SPELL-02")


def test_trap_set_then_activated_in_the_opponents_next_turn_end_phase() -> None:
    p0 = {"hand": [c(DUST_TORNADO, "dust")]}
    p1 = {"szone": [c(CALL_OF_THE_HAUNTED, "call", position="set")]}
    fold(position(p0, p1, turn=3), st_set("dust", 1), phase("end"), *turn(4, 1), phase("end"),
         act("dust", player=0, targets=["call"]), res(1), moved("call", [1, "gy"], "destroyed", cause="dust"),
         moved("dust", [0, "gy"], "resolved"), END_CHAIN)


def test_trap_in_the_opponents_draw_phase() -> None:
    p0 = {"szone": [c(DUST_TORNADO, "dust", position="set")]}
    p1 = {"szone": [c(CALL_OF_THE_HAUNTED, "call", position="set")]}
    fold(position(p0, p1, turn=3, turn_player=0, phase="end"), ev("turn_started", player=1, turn=4),
         phase("draw"), draw(1), act("dust", player=0, targets=["call"]), res(1),
         moved("call", [1, "gy"], "destroyed", cause="dust"), moved("dust", [0, "gy"], "resolved"), END_CHAIN,
         phase("standby"))


def test_continuous_trap_stays_and_equip_goes_when_its_monster_leaves() -> None:
    p0 = {"hand": [c(AXE, "axe")], "mzone": [c(VORSE, "vorse")]}
    p1 = {"szone": [c(RING, "ring", position="set")]}
    state = fold(position(p0, p1), act("axe", zone=0, targets=["vorse"]), res(1), END_CHAIN,
                 stats("vorse", atk=2900, cause="axe"),
                 act("ring", player=1, targets=["vorse"]), res(1),
                 moved("vorse", [0, "gy"], "destroyed", cause="ring"),
                 lp(0, 2900, "effect_damage"), lp(1, 2900, "effect_damage"),
                 moved("axe", [0, "gy"], "rule"), moved("ring", [1, "gy"], "resolved"), END_CHAIN)
    assert state.cards["axe"].zone == "gy" and [s.lp for s in state.sides] == [5100, 5100]


def test_equip_left_on_the_field_after_its_monster_left_is_refused() -> None:
    p0 = {"hand": [c(AXE, "axe"), c(VORSE, "vorse2")], "mzone": [c(VORSE, "vorse")]}
    p1 = {"szone": [c(RING, "ring", position="set")]}
    check([position(p0, p1), act("axe", zone=0, targets=["vorse"]), res(1), END_CHAIN,
           act("ring", player=1, targets=["vorse"]), res(1), moved("vorse", [0, "gy"], "destroyed", cause="ring"),
           moved("ring", [1, "gy"], "resolved"), END_CHAIN], "SPELL-07")


def test_trap_from_the_hand_is_refused() -> None:
    check([position({"hand": [c(TRAP_HOLE, "hole")]}, {}), act("hole", zone=0)], "TRAP-02")


# ================================================================================================
# 5. Chains
# ================================================================================================

def test_solemn_judgment_negates_a_summon_and_the_normal_summon_is_spent() -> None:
    p0 = {"hand": [c(VORSE, "vorse"), c(CELTIC, "celtic")]}
    p1 = {"szone": [c(SOLEMN, "solemn", position="set")]}
    events = [position(p0, p1), summon("vorse", 0),
              act("solemn", player=1, costs=[{"lp": 4000}]), res(1),
              ev("summon_negated", card="vorse", cause="solemn"),
              moved("solemn", [1, "gy"], "resolved"), END_CHAIN]
    state = fold(*events)
    assert state.cards["vorse"].zone == "gy" and state.sides[1].lp == 4000
    check([*events, summon("celtic", 1)], "SUM-03")


def test_solemn_judgment_negates_a_summon_recorded_before_its_link_resolves() -> None:
    p0 = {"hand": [c(VORSE, "vorse")]}
    p1 = {"szone": [c(SOLEMN, "solemn", position="set")]}
    fold(position(p0, p1), summon("vorse", 0), act("solemn", player=1, costs=[{"lp": 4000}]),
         ev("summon_negated", card="vorse", cause="solemn"), res(1),
         moved("solemn", [1, "gy"], "resolved"), END_CHAIN)


def test_solemn_negates_a_flip_summon() -> None:
    p0 = {"mzone": [c(MAN_EATER, "bug", position="set")]}
    p1 = {"szone": [c(SOLEMN, "solemn", position="set")]}
    state = fold(position(p0, p1, turn=4), flip("bug"), act("solemn", player=1, costs=[{"lp": 4000}]), res(1),
                 ev("summon_negated", card="bug", cause="solemn"), moved("solemn", [1, "gy"], "resolved"), END_CHAIN)
    assert state.cards["bug"].zone == "gy"


def test_a_trap_cannot_answer_a_counter_trap() -> None:
    p0 = {"szone": [c(MAGIC_JAMMER, "jammer", position="set"), c(SAKURETSU, "armor", position="set")],
          "hand": [c(POT, "pot"), c(VORSE, "v")]}
    p1 = {"szone": [c(SOLEMN, "solemn", position="set")], "mzone": [c(VORSE, "vorse")]}
    check([position(p0, p1), act("pot", zone=2), act("solemn", player=1, costs=[{"lp": 4000}]),
           act("armor", player=0, targets=["vorse"])], "CHAIN-03")


def test_counter_trap_chain_magic_jammer_with_discard_cost() -> None:
    p0 = {"hand": [c(POT, "pot")]}
    p1 = {"szone": [c(MAGIC_JAMMER, "jammer", position="set")], "hand": [c(VORSE, "v1")]}
    state = fold(position(p0, p1), act("pot", zone=0),
                 act("jammer", player=1, costs=[{"card": "v1", "to": "gy", "reason": "discarded"}]),
                 res(2), neg(1, 2), moved("jammer", [1, "gy"], "resolved"), moved("pot", [0, "gy"], "negated"),
                 END_CHAIN)
    assert state.cards["v1"].zone == "gy" and state.cards["pot"].zone == "gy"


def test_same_player_two_links_in_a_row_after_a_pass() -> None:
    """CHAIN-04: the opponent passes, the activating player adds the next link."""
    p0 = {"hand": [c(MST, "mst"), c(MST, "mst2")]}
    p1 = {"szone": [c(TRAP_HOLE, "hole", position="set"), c(MIRROR_FORCE, "mf", position="set")]}
    fold(position(p0, p1), act("mst", zone=0, targets=["hole"]), ev("priority_passed", player=1),
         act("mst2", zone=1, targets=["mf"]), ev("priority_passed", player=1), ev("priority_passed", player=0), res(2), moved("mf", [1, "gy"], "destroyed", cause="mst2"),
         res(1), moved("hole", [1, "gy"], "destroyed", cause="mst"),
         moved("mst2", [0, "gy"], "resolved"), moved("mst", [0, "gy"], "resolved"), END_CHAIN)


def test_simultaneous_triggers_segoc() -> None:
    """CHAIN-08/NIS-02: Sangan and Witch destroyed together by Dark Hole: both triggers, one chain."""
    p0 = {"hand": [c(DARK_HOLE, "hole")], "mzone": [c(SANGAN, "sangan")], "deck": [c(KURIBOH, "kdeck"), c(WITCH, "wdeck")]}
    p1 = {"mzone": [c(WITCH, "witch")], "deck": [c(SANGAN, "sdeck"), c(CELTIC, "cdeck")]}
    fold(position(p0, p1), act("hole", zone=0), res(1),
         moved("sangan", [0, "gy"], "destroyed", cause="hole"), moved("witch", [1, "gy"], "destroyed", cause="hole"),
         moved("hole", [0, "gy"], "resolved"), END_CHAIN,
         act("sangan", effect_type="trigger"), act("witch", player=1, effect_type="trigger", simultaneous=True),
         res(2), moved("sdeck", [1, "hand"], "added", cause="witch"),
         res(1), moved("kdeck", [0, "hand"], "added", cause="sangan"), END_CHAIN)


def test_a_speed_1_trigger_chained_without_being_simultaneous_is_refused() -> None:
    p0 = {"hand": [c(MST, "mst")], "mzone": [c(SANGAN, "sangan")]}
    p1 = {"szone": [c(TRAP_HOLE, "hole", position="set")]}
    check([position(p0, p1), act("mst", zone=0, targets=["hole"]), act("sangan", effect_type="trigger")], "CHAIN-02")


def test_trigger_in_response_to_a_summon_with_a_tribute_cost_quick_effect() -> None:
    """Summoned; the opponent's trap answers; the summoner chains a Quick-Play."""
    p0 = {"hand": [c(VORSE, "vorse"), c(MST, "mst")]}
    p1 = {"szone": [c(TRAP_HOLE, "hole", position="set")]}
    state = fold(position(p0, p1), summon("vorse", 0), act("hole", player=1, targets=["vorse"]),
                 act("mst", player=0, zone=0, targets=["hole"]), res(2),
                 moved("hole", [1, "gy"], "destroyed", cause="mst"), res(1),
                 moved("mst", [0, "gy"], "resolved"), END_CHAIN)
    assert state.cards["vorse"].zone == "mzone"


def test_tribute_as_a_cost() -> None:
    p0 = {"mzone": [c(CELTIC, "celtic"), c(SANGAN, "sangan")], "deck": [c(KURIBOH, "kdeck")]}
    state = fold(position(p0, {}), act("celtic", effect_type="ignition",
                                       costs=[{"card": "sangan", "to": "gy", "reason": "tributed"}]),
                 res(1), END_CHAIN, act("sangan", effect_type="trigger"), res(1),
                 moved("kdeck", [0, "hand"], "added", cause="sangan"), END_CHAIN)
    assert state.cards["kdeck"].zone == "hand"


def test_sangan_taken_by_change_of_heart_triggers_for_its_controller() -> None:
    """A monster's "sent to the GY" trigger is activated by the player who controlled it when it
    left the field, even when the opponent owns it (a well-known Sangan ruling)."""
    p0 = {"hand": [c(CHANGE_OF_HEART, "coh"), c(DARK_MAGICIAN, "dm")], "mzone": [c(CELTIC, "celtic")],
          "deck": [c(KURIBOH, "kdeck")]}
    p1 = {"mzone": [c(SANGAN, "sangan")]}
    state = fold(position(p0, p1), act("coh", zone=0, targets=["sangan"]), res(1),
                 ev("control_changed", card="sangan", to_player=0, zone=1, cause="coh"),
                 moved("coh", [0, "gy"], "resolved"), END_CHAIN,
                 summon("dm", 1, tributes=["celtic", "sangan"]),
                 act("sangan", player=0, effect_type="trigger"), res(1),
                 moved("kdeck", [0, "hand"], "added", cause="sangan"), END_CHAIN)
    assert state.cards["sangan"].zone == "gy" and state.sides[1].gy == ["sangan"]


# ================================================================================================
# 6. Effects' outcomes
# ================================================================================================

def test_returned_to_hand_banished_face_down_and_shuffled_into_the_deck() -> None:
    p0 = {"mzone": [c(VORSE, "vorse"), c(CELTIC, "celtic"), c(SANGAN, "sangan")]}
    p1 = {"mzone": [c(BATTLE_OX, "ox")], "szone": [c(POT, "pot", position="set")]}
    state = fold(position(p0, p1), moved("vorse", [0, "hand"], "returned", cause="x"),
                 moved("celtic", [0, "banished"], "banished", position="facedown", cause="x"),
                 moved("sangan", [0, "deck"], "shuffled", cause="x"),
                 moved("pot", [1, "hand"], "returned", cause="x"))
    assert state.cards["celtic"].position == "facedown" and state.cards["sangan"].zone == "deck"


def test_control_switches_back_at_the_end_phase() -> None:
    p0 = {"hand": [c(CHANGE_OF_HEART, "coh")]}
    p1 = {"mzone": [c(VORSE, "vorse")]}
    state = fold(position(p0, p1), act("coh", zone=0, targets=["vorse"]), res(1),
                 ev("control_changed", card="vorse", to_player=0, zone=0, cause="coh"),
                 moved("coh", [0, "gy"], "resolved"), END_CHAIN,
                 phase("battle"), step("battle"), attack("vorse"), step("damage"), calc(damage=(0, 1900)),
                 lp(1, 1900), step("battle"), step("end"), phase("main2"), phase("end"),
                 ev("control_changed", card="vorse", to_player=1, zone=2, cause="coh"),
                 ev("turn_started", player=1, turn=3), phase("draw"), draw(1), phase("standby"), phase("main1"),
                 pos("vorse", "defense", player=1))
    assert state.cards["vorse"].controller == 1 and state.cards["vorse"].position == "defense"


def test_taken_monster_bounced_goes_to_its_owners_hand() -> None:
    p0 = {"hand": [c(CHANGE_OF_HEART, "coh")]}
    p1 = {"mzone": [c(VORSE, "vorse")]}
    events = [position(p0, p1), act("coh", zone=0, targets=["vorse"]), res(1),
              ev("control_changed", card="vorse", to_player=0, zone=0, cause="coh"),
              moved("coh", [0, "gy"], "resolved"), END_CHAIN]
    state = fold(*events, moved("vorse", [1, "hand"], "returned", cause="x"))
    assert state.cards["vorse"].zone == "hand" and "vorse" in state.sides[1].hand
    check([*events, moved("vorse", [0, "hand"], "returned", cause="x")], "CTRL-03")


def test_xyz_detach_as_a_cost_then_attack() -> None:
    p0 = {"mzone": [c(CELTIC, "celtic"), c(VORSE, "vorse")], "extra": [c(UTOPIA, "utopia")]}
    p1 = {"mzone": [c(BLUE_EYES, "bewd")]}
    state = fold(position(p0, p1), ss("utopia", 2, "xyz", materials=["celtic", "vorse"]),
                 phase("battle"), step("battle"), attack("utopia", "bewd"),
                 act("utopia", effect_type="quick",
                     costs=[{"card": "celtic", "to": "gy", "reason": "detached"}]),
                 res(1), ev("attack_cancelled", cause="utopia"), END_CHAIN)
    assert state.cards["utopia"].materials == ["vorse"] and state.cards["celtic"].zone == "gy"


def test_detach_as_a_card_moved() -> None:
    p0 = {"mzone": [c(UTOPIA, "utopia", materials=[c(CELTIC, "mat1"), c(VORSE, "mat2")])]}
    state = fold(position(p0, {}), moved("mat1", [0, "gy"], "detached", cause="utopia"))
    assert state.cards["utopia"].materials == ["mat2"]


def test_xyz_monster_leaves_and_its_materials_go_to_the_gy() -> None:
    p0 = {"mzone": [c(UTOPIA, "utopia", materials=[c(CELTIC, "mat1")])]}
    state = fold(position(p0, {}), moved("utopia", [0, "extra"], "returned", cause="x"))
    assert state.cards["mat1"].zone == "gy"


def test_token_cannot_go_to_the_hand_it_vanishes() -> None:
    p0 = {"mzone": [c(SHEEP_TOKEN, "sheep")]}
    state = fold(position(p0, {}), moved("sheep", [0, "hand"], "returned", cause="x"))
    assert "sheep" not in state.cards


# ================================================================================================
# 7. Special Summons across rule sets
# ================================================================================================

@pytest.mark.parametrize("ruleset, zone, ok", [
    ("mr2020", 3, True), ("mr2020", 5, True), ("nmr2017", 5, True), ("nmr2017", 3, False),
    ("mr3", 3, True),
])
def test_synchro_placement_per_ruleset(ruleset: str, zone: int, ok: bool) -> None:
    """Stardust (Level 8) from Junk Synchron (3) and Dark Magician made Level 5 by an effect:
    any Main Monster Zone under MR3 and the 2020 revision, EMZ or a linked zone under NMR 2017."""
    p0 = {"mzone": [c(JUNK_SYNCHRON, "junk"), c(DARK_MAGICIAN, "dm")], "extra": [c(STARDUST, "stardust")]}
    events = [position(p0, {}, ruleset=ruleset), stats("dm", level=5, cause="x"),
              ss("stardust", zone, "synchro", materials=["junk", "dm"])]
    if ok:
        assert fold(*events).cards["stardust"].zone == "mzone"
    else:
        check(events, "ZONE-03")


def test_link_climb_spider_to_proxy_to_decode_talker_then_synchro_into_its_arrow() -> None:
    p0 = {"mzone": [c(CELTIC, "celtic"), c(VORSE, "vorse"), c(BATTLE_OX, "ox"), c(JUNK_SYNCHRON, "junk")],
          "extra": [c(LINK_SPIDER, "spider"), c(PROXY_DRAGON, "proxy"), c(DECODE_TALKER, "decode"),
                    c(STARDUST, "stardust")]}
    state = fold(position(p0, {}, ruleset="nmr2017"),
                 ss("spider", 5, "link", materials=["celtic"]),
                 ss("proxy", 5, "link", materials=["spider", "vorse"]),
                 ss("decode", 5, "link", materials=["proxy", "ox"]))
    assert state.mzone_card(0, 5) == "decode"
    # Decode Talker points to main zones 0 and 2 (bottom-left, bottom-right)
    p0b = {"mzone": [None, c(JUNK_SYNCHRON, "junk"), None, c(VORSE, "vorse")],
           "extra": [c(STARDUST, "stardust")]}
    fold(position({**p0b, "mzone": [*p0b["mzone"], None, c(DECODE_TALKER, "decode")]}, {}, ruleset="nmr2017"),
         stats("vorse", level=5, cause="x"), ss("stardust", 2, "synchro", materials=["junk", "vorse"]))


def test_pendulum_from_the_extra_deck_into_the_linked_zone() -> None:
    p0 = {"szone": [c(STARGAZER, "sg"), None, None, None, c(TIMEGAZER, "tg")],
          "mzone": [None, None, None, None, None, c(LINK_SPIDER, "spider")],
          "extra": [c(ODD_EYES, "odd", position="faceup"), c(FLASH_KNIGHT, "fk", position="faceup")],
          "hand": [c(FLASH_KNIGHT, "fk2")]}
    state = fold(position(p0, {}), ss("odd", 1, "pendulum"), ss("fk2", 3, "pendulum"))
    assert state.mzone_card(0, 1) == "odd"
    check([position(p0, {}), ss("odd", 1, "pendulum"), ss("fk", 2, "pendulum")], "NIS-01")
    check([position(p0, {}), ss("odd", 1, "pendulum"), ss("fk", 6, "pendulum")], "ZONE-04")


def test_pendulum_destroyed_goes_to_the_extra_deck_face_up_then_pendulum_summoned_next_turn() -> None:
    p0 = {"szone": [c(STARGAZER, "sg"), None, None, None, c(TIMEGAZER, "tg")],
          "mzone": [c(FLASH_KNIGHT, "fk")]}
    p1 = {"mzone": [c(BLUE_EYES, "bewd")]}
    events = [position(p0, p1, turn=3, turn_player=1, phase="battle", step="battle"),
              attack("bewd", "fk", player=1), step("damage"), calc(["fk"], (1200, 0)), lp(0, 1200),
              moved("fk", [0, "extra"], "battle"), step("battle"), step("end"), phase("main2"), phase("end"),
              *turn(4, 0), ss("fk", 5, "pendulum")]
    state = fold(*events)
    assert state.mzone_card(0, 5) == "fk"
    check([*events[:5], moved("fk", [0, "gy"], "battle")], "PEND-05")


def test_xyz_summon_under_mr3_into_any_zone_and_no_link() -> None:
    p0 = {"mzone": [c(CELTIC, "celtic"), c(VORSE, "vorse")], "extra": [c(UTOPIA, "utopia"), c(LINK_SPIDER, "spider")]}
    fold(position(p0, {}, ruleset="mr3"), ss("utopia", 4, "xyz", materials=["celtic", "vorse"]))
    check([position(p0, {}, ruleset="mr3"), ss("spider", 4, "link", materials=["celtic"])], "MR-04")


def test_tokens_are_link_material_not_xyz_material() -> None:
    p0 = {"mzone": [c(SHEEP_TOKEN, "t1", token=True), c(SHEEP_TOKEN, "t2", token=True)],
          "extra": [c(LINK_SPIDER, "spider"), c(UTOPIA, "utopia")]}
    fold(position(p0, {}), ss("spider", 5, "link", materials=["t1"]))
    check([position(p0, {}), stats("t1", level=4, cause="x"), stats("t2", level=4, cause="x"),
           ss("utopia", 2, "xyz", materials=["t1", "t2"])], "XYZ-02")


def test_monster_reborn_on_a_properly_summoned_synchro() -> None:
    p0 = {"hand": [c(MONSTER_REBORN, "reborn")], "mzone": [c(JUNK_SYNCHRON, "junk"), c(VORSE, "vorse")],
          "extra": [c(STARDUST, "stardust")]}
    p1 = {"hand": [], "szone": [c(TRAP_HOLE, "hole", position="set")]}
    fold(position(p0, p1), stats("vorse", level=5, cause="x"), ss("stardust", 5, "synchro", materials=["junk", "vorse"]),
         moved("stardust", [0, "gy"], "destroyed", cause="y"),
         act("reborn", zone=0, targets=["stardust"]), res(1), ss("stardust", 2, cause="reborn"),
         moved("reborn", [0, "gy"], "resolved"), END_CHAIN)


def test_reborn_on_a_synchro_sent_from_the_extra_deck_is_refused() -> None:
    p0 = {"hand": [c(MONSTER_REBORN, "reborn")], "gy": [c(STARDUST, "stardust")]}
    check([position(p0, {}), act("reborn", zone=0, targets=["stardust"]), res(1),
           ss("stardust", 2, cause="reborn")], "SPS-12")


# ================================================================================================
# 8. More plays from real duels
# ================================================================================================

def test_hand_trap_discarding_itself_in_the_damage_step() -> None:
    """Kuriboh: a Quick effect from the hand whose cost is discarding itself (recorded as its own
    card_moved right after the activation: a card does not pay itself in ``costs``)."""
    p0 = {"mzone": [c(BLUE_EYES, "bewd")]}
    p1 = {"hand": [c(KURIBOH, "kuri")]}
    state = fold(battle_position(p0, p1), attack("bewd"), step("damage"),
                 act("kuri", player=1, effect_type="quick"), moved("kuri", [1, "gy"], "discarded"),
                 res(1), END_CHAIN, ev("damage_calculated", destroyed=[], damage=[0, 0],
                                       cite={"card": "kuri", "effect": "no battle damage"}))
    assert state.sides[1].lp == 8000


def test_premature_burial_pays_800_and_equips_the_revived_monster() -> None:
    p0 = {"hand": [c(PREMATURE, "burial")], "gy": [c(DARK_MAGICIAN, "dm")]}
    state = fold(position(p0, {}), act("burial", zone=1, targets=["dm"], costs=[{"lp": 800}]), res(1),
                 ss("dm", 2, cause="burial"), END_CHAIN)
    assert state.cards["burial"].equipped_to == "dm" and state.sides[0].lp == 7200


def test_snatch_steal_then_the_equip_is_destroyed_and_control_returns() -> None:
    p0 = {"hand": [c(SNATCH_STEAL, "snatch")]}
    p1 = {"mzone": [c(VORSE, "vorse")], "szone": [c(DUST_TORNADO, "dust", position="set")]}
    state = fold(position(p0, p1), act("snatch", zone=0, targets=["vorse"]), res(1),
                 ev("control_changed", card="vorse", to_player=0, zone=0, cause="snatch"), END_CHAIN,
                 act("dust", player=1, targets=["snatch"]), res(1),
                 moved("snatch", [0, "gy"], "destroyed", cause="dust"),
                 ev("control_changed", card="vorse", to_player=1, zone=0, cause="snatch"),
                 moved("dust", [1, "gy"], "resolved"), END_CHAIN)
    assert state.cards["vorse"].controller == 1


def test_ritual_summon_with_tributes_from_hand_and_field() -> None:
    p0 = {"hand": [c(BLACK_LUSTER_RITUAL, "ritual"), c(BLS, "bls"), c(DARK_MAGICIAN, "dm")],
          "mzone": [c(MYSTICAL_ELF, "elf", position="set")]}
    state = fold(position(p0, {}), act("ritual", zone=0), res(1),
                 ss("bls", 1, "ritual", materials=["dm", "elf"], cause="ritual"),
                 moved("ritual", [0, "gy"], "resolved"), END_CHAIN)
    assert state.cards["bls"].properly_summoned


def test_fusion_summon_with_polymerization() -> None:
    p0 = {"hand": [c(POLY, "poly"), c(DARK_MAGICIAN, "dm")], "mzone": [c(BLUE_EYES, "bewd")],
          "extra": [c(THOUSAND_DRAGON, "thousand")]}
    fold(position(p0, {}, ruleset="nmr2017"), act("poly", zone=0), res(1),
         ss("thousand", 5, "fusion", materials=["dm", "bewd"], cause="poly"),
         moved("poly", [0, "gy"], "resolved"), END_CHAIN)


def test_pendulum_scales_activated_then_pendulum_summon_under_mr3() -> None:
    p0 = {"hand": [c(STARGAZER, "sg"), c(TIMEGAZER, "tg"), c(FLASH_KNIGHT, "fk"), c(VORSE, "vorse")]}
    state = fold(position(p0, {}, ruleset="mr3"), act("sg", zone=5), res(1), END_CHAIN,
                 act("tg", zone=6), res(1), END_CHAIN,
                 ss("fk", 0, "pendulum"), ss("vorse", 1, "pendulum", position="defense"))
    assert state.cards["fk"].zone == "mzone" and state.cards["vorse"].position == "defense"


def test_pendulum_summon_then_normal_summon_the_same_turn() -> None:
    p0 = {"szone": [c(STARGAZER, "sg"), None, None, None, c(TIMEGAZER, "tg")],
          "hand": [c(FLASH_KNIGHT, "fk"), c(VORSE, "vorse"), c(CELTIC, "celtic")]}
    fold(position(p0, {}), ss("fk", 0, "pendulum"), ss("vorse", 1, "pendulum"), summon("celtic", 2))
    check([position(p0, {}), ss("fk", 0, "pendulum"), summon("celtic", 2), ss("vorse", 1, "pendulum")], "SPS-02")


def test_spell_from_the_hand_with_every_spell_trap_zone_full_is_refused() -> None:
    full = {"szone": [c(TRAP_HOLE, f"t{i}", position="set") for i in range(5)], "hand": [c(POT, "pot")]}
    v = refused(position(full, {}), act("pot", zone=0))
    assert v.rule == "ZONE-08"


def test_field_spell_replaced_by_a_new_one_the_old_goes_to_the_gy() -> None:
    p0 = {"fzone": c(YAMI, "yami"), "hand": [c(MPZ, "mpz")]}
    state = fold(position(p0, {}), act("mpz", field_zone=True), res(1), END_CHAIN)
    assert state.cards["yami"].zone == "gy" and state.sides[0].fzone == "mpz"


def test_tribute_set_a_level_5() -> None:
    p0 = {"hand": [c(SUMMONED_SKULL, "flame")], "mzone": [c(KURIBOH, "kuri")]}
    fold(position(p0, {}), mset("flame", 0, tributes=["kuri"]))
    check([position(p0, {}), mset("flame", 1)], "SUM-04")


def test_normal_summon_in_main_phase_2_after_battle() -> None:
    p0 = {"hand": [c(VORSE, "vorse")]}
    fold(position(p0, {}), phase("battle"), step("battle"), step("end"), phase("main2"), summon("vorse", 0))


def test_normal_summon_in_the_battle_phase_is_refused() -> None:
    check([position({"hand": [c(VORSE, "vorse")]}, {}), phase("battle"), summon("vorse", 0)], "TURN-06")


def test_first_player_drawing_on_turn_one_is_refused() -> None:
    check([*OPENING, ev("turn_started", player=0, turn=1), phase("draw"), draw(0)], "SETUP-04")


def test_counter_trap_on_counter_trap() -> None:
    p0 = {"hand": [c(POT, "pot")], "szone": [c(SOLEMN, "solemn", position="set")]}
    p1 = {"szone": [c(MAGIC_JAMMER, "jammer", position="set")], "hand": [c(VORSE, "v1")]}
    state = fold(position(p0, p1), act("pot", zone=1),
                 act("jammer", player=1, costs=[{"card": "v1", "to": "gy", "reason": "discarded"}]),
                 act("solemn", player=0, costs=[{"lp": 4000}]),
                 res(3), neg(2, 3), res(1), draw(0, 2, cause="pot"),
                 moved("solemn", [0, "gy"], "resolved"), moved("jammer", [1, "gy"], "negated"),
                 moved("pot", [0, "gy"], "resolved"), END_CHAIN)
    assert state.sides[0].lp == 4000


def test_mirror_force_destroys_every_attacker_and_the_battle_phase_goes_on() -> None:
    p0 = {"mzone": [c(VORSE, "vorse"), c(CELTIC, "celtic"), c(MYSTICAL_ELF, "elf", position="defense")]}
    p1 = {"szone": [c(MIRROR_FORCE, "mf", position="set")]}
    state = fold(battle_position(p0, p1), attack("vorse"), act("mf", player=1), res(1),
                 moved("vorse", [0, "gy"], "destroyed", cause="mf"), moved("celtic", [0, "gy"], "destroyed", cause="mf"),
                 moved("mf", [1, "gy"], "resolved"), END_CHAIN, step("end"), phase("main2"),
                 pos("elf", "attack"))
    assert state.cards["elf"].position == "attack"


def test_direct_attack_with_zero_atk_deals_nothing() -> None:
    state = fold(battle_position({"mzone": [c(SHEEP_TOKEN, "t", token=True)]}, {}), attack("t"),
                 step("damage"), calc(), step("battle"))
    assert state.sides[1].lp == 8000


def test_activating_the_opponents_monster_effect_is_refused() -> None:
    check([position({}, {"mzone": [c(CELTIC, "celtic")]}), act("celtic", player=0, effect_type="ignition")], "CTRL-01")


def test_chain_resolved_out_of_order_is_refused() -> None:
    p0 = {"hand": [c(MST, "mst")]}
    p1 = {"szone": [c(TRAP_HOLE, "hole", position="set"), c(DUST_TORNADO, "dust", position="set")]}
    check([position(p0, p1), act("mst", zone=0, targets=["hole"]), act("dust", player=1, targets=["mst"]), res(1)],
          "CHAIN-05")


def test_torrential_tribute_on_a_special_summon_with_a_token_and_a_pendulum() -> None:
    p0 = {"szone": [c(STARGAZER, "sg"), None, None, None, c(TIMEGAZER, "tg")],
          "hand": [c(FLASH_KNIGHT, "fk")], "mzone": [None, None, None, c(SHEEP_TOKEN, "sheep", token=True)]}
    p1 = {"szone": [c(TORRENTIAL, "torr", position="set")]}
    state = fold(position(p0, p1), ss("fk", 0, "pendulum"), act("torr", player=1), res(1),
                 moved("fk", [0, "extra"], "destroyed", cause="torr"),
                 moved("sheep", [0, "gy"], "destroyed", cause="torr"),
                 moved("torr", [1, "gy"], "resolved"), END_CHAIN)
    assert state.cards["fk"].zone == "extra" and state.cards["fk"].position == "faceup"
    assert "sheep" not in state.cards


def test_nomi_returned_to_the_hand_then_discarded_cannot_be_revived() -> None:
    """SPS-14: back in the hand it is no longer properly summoned; from the GY it cannot be revived."""
    p0 = {"mzone": [c(BLS_ENVOY, "envoy")], "hand": [c(MONSTER_REBORN, "reborn")]}
    check([position(p0, {}), moved("envoy", [0, "hand"], "returned", cause="x"),
           moved("envoy", [0, "gy"], "discarded", cause="y"),
           act("reborn", zone=0, targets=["envoy"]), res(1), ss("envoy", 0, cause="reborn")], "SPS-12")


def test_cyber_dragon_can_be_revived_without_being_properly_summoned() -> None:
    """Cyber Dragon can be Normal Summoned: it has no revival limit (SPS-12 does not apply)."""
    p0 = {"gy": [c(CYBER_DRAGON, "cyber")], "hand": [c(MONSTER_REBORN, "reborn")]}
    fold(position(p0, {}), act("reborn", zone=0, targets=["cyber"]), res(1), ss("cyber", 0, cause="reborn"),
         moved("reborn", [0, "gy"], "resolved"), END_CHAIN)


def test_cyber_dragon_inherent_summon_then_normal_summon() -> None:
    p0 = {"hand": [c(CYBER_DRAGON, "cyber"), c(VORSE, "vorse")]}
    p1 = {"mzone": [c(CELTIC, "celtic")]}
    state = fold(position(p0, p1), ss("cyber", 0, "inherent"), summon("vorse", 1))
    assert state.cards["cyber"].properly_summoned


def test_heavy_storm_with_a_chained_trap_set_this_turn_is_refused() -> None:
    p0 = {"hand": [c(HEAVY_STORM, "storm"), c(MIRROR_FORCE, "mf")]}
    check([position(p0, {}), st_set("mf", 1), act("storm", zone=0), act("mf")], "TRAP-02")


# ================================================================================================
# 9. The end of the duel, the second player, chain resolution
# ================================================================================================

def test_second_player_attacks_directly_on_turn_two() -> None:
    state = fold(*OPENING, *TURN_1[:5], phase("end"), *turn(2, 1), summon("p1.m5", 0, player=1),
                 phase("battle"), step("battle"), attack("p1.m5", "p0.m0", player=1), step("damage"),
                 calc(["p0.m0"]), moved("p0.m0", [0, "gy"], "battle"), step("battle"), step("end"), phase("main2"))
    assert state.cards["p0.m0"].zone == "gy"


def test_player_one_goes_first_and_does_not_draw() -> None:
    opening = [{**OPENING[0], "first_player": 1, "chosen_by": 1}, *OPENING[1:]]
    fold(*opening, *turn(1, 1, drawn=False), phase("end"), *turn(2, 0), phase("battle"))
    check([*opening, *turn(1, 1, drawn=False), phase("battle")], "NIS-04")


def test_both_players_reach_zero_together_is_a_draw() -> None:
    p0 = {"mzone": [c(VORSE, "vorse")], "lp": 1900}
    p1 = {"szone": [c(RING, "ring", position="set")], "lp": 1900}
    state = fold(position(p0, p1, turn=3, turn_player=1), act("ring", player=1, targets=["vorse"]), res(1),
                 moved("vorse", [0, "gy"], "destroyed", cause="ring"), lp(0, 1900, "effect_damage"),
                 lp(1, 1900, "effect_damage"), ev("duel_ended", winner=None, reason="draw"))
    assert state.ended and state.winner is None
    check([position(p0, p1, turn=3, turn_player=1), act("ring", player=1, targets=["vorse"]), res(1),
           moved("vorse", [0, "gy"], "destroyed", cause="ring"), lp(0, 1900, "effect_damage"),
           lp(1, 1900, "effect_damage"), ev("duel_ended", winner=1, reason="lp")], "WIN-04")


def test_deck_out_in_the_draw_phase_loses() -> None:
    state = fold(position({}, {"deck": []}, turn=3, turn_player=0, phase="end"),
                 ev("turn_started", player=1, turn=4), phase("draw"), draw(1),
                 ev("duel_ended", winner=0, reason="deck_out"))
    assert state.winner == 0


def test_nothing_is_activated_while_a_chain_resolves() -> None:
    """CHAIN-05: once a chain starts resolving it takes no new link."""
    p0 = {"hand": [c(MST, "mst")]}
    p1 = {"szone": [c(TRAP_HOLE, "hole", position="set"), c(DUST_TORNADO, "dust", position="set"),
                    c(MAGIC_JAMMER, "jammer", position="set")], "mzone": [c(VORSE, "vorse")]}
    check([position(p0, p1), act("mst", zone=0, targets=["hole"]), act("dust", player=1, targets=["mst"]), res(2),
           act("jammer", player=1, costs=[{"card": "vorse", "to": "gy"}])], "CHAIN-05")


def test_new_chain_after_the_chain_ended() -> None:
    p0 = {"hand": [c(MST, "mst")], "mzone": [c(SANGAN, "sangan")]}
    p1 = {"szone": [c(RING, "ring", position="set")]}
    fold(position(p0, p1), act("mst", zone=0, targets=["ring"]), act("ring", player=1, targets=["sangan"]),
         res(2), moved("sangan", [0, "gy"], "destroyed", cause="ring"), lp(0, 1000, "effect_damage"),
         lp(1, 1000, "effect_damage"), moved("ring", [1, "gy"], "resolved"), res(1),
         moved("mst", [0, "gy"], "resolved"), END_CHAIN, act("sangan", effect_type="trigger"), res(1), END_CHAIN)


def test_change_of_heart_on_a_set_monster_then_flip_summon_it() -> None:
    p0 = {"hand": [c(CHANGE_OF_HEART, "coh")]}
    p1 = {"mzone": [c(MAN_EATER, "bug", position="set")]}
    state = fold(position(p0, p1, turn=4), act("coh", zone=0, targets=["bug"]), res(1),
                 ev("control_changed", card="bug", to_player=0, zone=0, cause="coh"),
                 moved("coh", [0, "gy"], "resolved"), END_CHAIN, flip("bug"))
    assert state.cards["bug"].position == "attack" and state.cards["bug"].controller == 0


def test_link_monster_taken_from_the_extra_monster_zone_goes_to_a_main_zone() -> None:
    p0 = {"hand": [c(CHANGE_OF_HEART, "coh")]}
    p1 = {"mzone": [None, None, None, None, None, c(LINK_SPIDER, "spider")]}
    state = fold(position(p0, p1), act("coh", zone=0, targets=["spider"]), res(1),
                 ev("control_changed", card="spider", to_player=0, zone=2, cause="coh"),
                 moved("coh", [0, "gy"], "resolved"), END_CHAIN)
    assert state.sides[0].mzone[2] == "spider" and state.emz == [None, None]


def test_monster_reborn_takes_the_opponents_monster() -> None:
    p0 = {"hand": [c(MONSTER_REBORN, "reborn")]}
    p1 = {"gy": [c(DARK_MAGICIAN, "dm")]}
    state = fold(position(p0, p1), act("reborn", zone=0, targets=["dm"]), res(1), ss("dm", 2, cause="reborn"),
                 moved("reborn", [0, "gy"], "resolved"), END_CHAIN,
                 moved("dm", [1, "gy"], "destroyed", cause="x"))
    assert state.sides[1].gy == ["dm"]


def test_graceful_charity_draw_three_discard_two() -> None:
    p0 = {"hand": [c(GRACEFUL, "charity")]}
    state = fold(position(p0, {}), act("charity", zone=0), res(1), draw(0, 3, cause="charity"),
                 moved("p0.s1", [0, "gy"], "discarded", cause="charity"),
                 moved("p0.s2", [0, "gy"], "discarded", cause="charity"),
                 moved("charity", [0, "gy"], "resolved"), END_CHAIN)
    assert len(state.sides[0].hand) == 1


def test_book_of_moon_on_the_attacker_ends_its_attack_and_another_monster_attacks() -> None:
    p0 = {"mzone": [c(VORSE, "vorse"), c(CELTIC, "celtic")]}
    p1 = {"szone": [c(BOOK_OF_MOON, "book", position="set")]}
    fold(battle_position(p0, p1), attack("vorse"), act("book", player=1, targets=["vorse"]), res(1),
         pos("vorse", "set", cause="book"), moved("book", [1, "gy"], "resolved"), END_CHAIN,
         attack("celtic"), step("damage"), calc(damage=(0, 1400)), lp(1, 1400))


def test_after_a_replay_another_monster_attacks_without_a_recorded_cancel() -> None:
    """BATTLE-07: the player picks another attacker after the replay; the first has forfeited."""
    p0 = {"mzone": [c(VORSE, "vorse"), c(CELTIC, "celtic")]}
    p1 = {"mzone": [c(KURIBOH, "kuri")], "szone": [c(RING, "ring", position="set")]}
    events = [battle_position(p0, p1), attack("vorse", "kuri"),
              act("ring", player=1, targets=["kuri"]), res(1), moved("kuri", [1, "gy"], "destroyed", cause="ring"),
              lp(1, 300, "effect_damage"), lp(0, 300, "effect_damage"), moved("ring", [1, "gy"], "resolved"),
              END_CHAIN, attack("celtic"), step("damage"), calc(damage=(0, 1400)), lp(1, 1400), step("battle")]
    fold(*events)
    check([*events, attack("vorse")], "BATTLE-07")


def test_a_second_attack_while_the_first_is_pending_is_refused() -> None:
    p0 = {"mzone": [c(VORSE, "vorse"), c(CELTIC, "celtic")]}
    p1 = {"mzone": [c(KURIBOH, "kuri")]}
    check([battle_position(p0, p1), attack("vorse", "kuri"), attack("celtic", "kuri")], "BATTLE-02", "not over")


def test_from_the_damage_step_straight_to_the_end_step() -> None:
    fold(battle_position({"mzone": [c(VORSE, "vorse")]}, {}), attack("vorse"), step("damage"),
         calc(damage=(0, 1900)), lp(1, 1900), step("end"), phase("main2"))


def test_leaving_the_damage_step_before_the_battle_damage_is_applied_is_refused() -> None:
    check([battle_position({"mzone": [c(VORSE, "vorse")]}, {}), attack("vorse"), step("damage"),
           calc(damage=(0, 1900)), step("end")], "DMG-10")


def test_special_summoned_face_down_by_effect_then_flip_summoned_next_turn() -> None:
    p0 = {"gy": [c(MAN_EATER, "bug")], "szone": [c(CALL_OF_THE_HAUNTED, "call", position="set")]}
    events = [position(p0, {}, turn=3, turn_player=1, phase="end"), act("call", player=0, targets=["bug"]), res(1),
              ss("bug", 0, cause="call", position="set"), END_CHAIN,
              *turn(4, 0), flip("bug")]
    assert fold(*events).cards["bug"].position == "attack"


# ================================================================================================
# 10. Illegal plays a judge refuses, with the rule a judge cites
# ================================================================================================

HAND_BOARD = {"hand": [c(VORSE, "vorse"), c(CELTIC, "celtic"), c(AXE, "axe"), c(FLASH_KNIGHT, "fk"),
                       c(SUMMONED_SKULL, "skull")],
              "mzone": [c(JUNK_SYNCHRON, "junk"), c(JUNK_SYNCHRON, "junk2"), c(BATTLE_OX, "ox"),
                        c(MAN_EATER, "bug", position="set"), c(MYSTICAL_ELF, "elf")],
              "extra": [c(STARDUST, "stardust"), c(LINK_SPIDER, "spider"), c(UTOPIA, "utopia")],
              "szone": [c(STARGAZER, "sg")]}
OPP_BOARD = {"mzone": [c(KURIBOH, "kuri")], "lp": 8000}


@pytest.mark.parametrize("events, rule", [
    pytest.param([summon("skull", 0, tributes=["kuri"])],
                 "SUM-06", id="tribute-the-opponents-monster"),
    pytest.param([summon("skull", 0)], "SUM-04", id="level-6-without-tribute"),
    pytest.param([attack("ox", "kuri")], "BATTLE-02", id="attack-in-main-phase"),
    pytest.param([ss("stardust", 5, "synchro", materials=["junk", "junk2", "ox"])], "SYN-01", id="two-tuners"),
    pytest.param([ss("spider", 5, "link", materials=["bug"])], "LINK-01", id="face-down-link-material"),
    pytest.param([ss("utopia", 5, "xyz", materials=["ox", "junk"])], "XYZ-01", id="xyz-levels-differ"),
    pytest.param([act("axe", zone=1, targets=["bug"])], "POS-06", id="equip-a-face-down-monster"),
    pytest.param([ss("fk", 0, "pendulum")], "PEND-03", id="pendulum-with-one-scale"),
    pytest.param([ss("spider", 5, "link", materials=["ox"], position="defense")], "LINK-05", id="link-in-defense"),
    pytest.param([pos("ox", "defense"), pos("ox", "attack")], "POS-07", id="two-manual-changes"),
    pytest.param([pos("kuri", "defense")], "POS-07", id="change-the-opponents-monster"),
    pytest.param([lp(1, 500, "effect_damage", lp=7600)], "ZONE-14", id="lp-stated-wrong"),
    pytest.param([ev("duel_ended", winner=0, reason="lp")], "WIN-01", id="winner-by-lp-with-lp-left"),
    pytest.param([summon("vorse", 5)], "ZONE-03", id="normal-summon-to-an-extra-monster-zone"),
    pytest.param([act("kuri", player=0, effect_type="quick")], "CTRL-01", id="activating-the-opponents-monster"),
])
def test_judge_refuses(events: list[dict], rule: str) -> None:
    check([position(HAND_BOARD, OPP_BOARD, turn=4), *events], rule)


def test_pendulum_level_outside_the_scales_is_refused() -> None:
    p0 = {"szone": [c(STARGAZER, "sg"), None, None, None, c(ODD_EYES, "oe")], "hand": [c(FLASH_KNIGHT, "fk"),
          c(CELTIC, "celtic")]}
    # Scales 1 and 4: Level 4 is not strictly between them
    check([position(p0, {}), ss("fk", 0, "pendulum")], "PEND-03", "strictly between")
    fold(position({**p0, "hand": [c(JUNK_SYNCHRON, "junk")]}, {}), ss("junk", 0, "pendulum"))


def test_battle_destroyed_monster_left_on_the_field_is_refused() -> None:
    check([battle_position({"mzone": [c(VORSE, "vorse")]}, {"mzone": [c(KURIBOH, "kuri")]}), attack("vorse", "kuri"),
           step("damage"), calc(["kuri"], (0, 1600)), lp(1, 1600), step("battle")], "BATTLE-14")


def test_battle_damage_recorded_differently_from_the_calculation_is_refused() -> None:
    check([battle_position({"mzone": [c(VORSE, "vorse")]}, {"mzone": [c(KURIBOH, "kuri")]}), attack("vorse", "kuri"),
           step("damage"), calc(["kuri"], (0, 1600)), lp(1, 1900)], "DMG-10")


# -- Gemini monsters (CARD-09): Normal Summoned a second time on the field ------------------------

NEOS_ALIUS = 69884162
GEMINI_CARDS = CardDB([*(CARDS[code] for code in CARDS), CardFacts(
    code=NEOS_ALIUS, name="Elemental HERO Neos Alius",
    type=int(CardType.MONSTER | CardType.EFFECT | CardType.GEMINI), level=4, atk=1900, defense=1300)])


def test_gemini_summoned_again_on_the_turn_after_it_was_normal_summoned() -> None:
    """CARD-09: a Gemini monster on the field is Normal Summoned a second time (using the turn's
    Normal Summon) to gain its effects."""
    p0 = {"mzone": [None, c(NEOS_ALIUS, "alius")], "hand": [c(VORSE, "vorse")]}
    state = fold(position(p0, {}, turn=4), summon("alius", 1), cards=GEMINI_CARDS)
    assert state.sides[0].normal_summon_turn == 4 and state.cards["alius"].zone == "mzone"
    v = refused(position(p0, {}, turn=4), summon("alius", 1), summon("vorse", 0), cards=GEMINI_CARDS)
    assert v.rule == "SUM-01"


def test_gemini_summon_after_the_normal_summon_was_used_is_refused() -> None:
    p0 = {"mzone": [None, c(NEOS_ALIUS, "alius")], "hand": [c(VORSE, "vorse")]}
    v = refused(position(p0, {}, turn=4), summon("vorse", 0), summon("alius", 1), cards=GEMINI_CARDS)
    assert v.rule == "SUM-01"
    v = refused(position({"mzone": [c(NEOS_ALIUS, "alius", position="set")]}, {}, turn=4), summon("alius", 0),
                cards=GEMINI_CARDS)
    assert v.rule == "CARD-09"


def test_a_non_gemini_on_the_field_cannot_be_normal_summoned_again() -> None:
    check([position({"mzone": [c(VORSE, "vorse")]}, {}, turn=4), summon("vorse", 0)], "SUM-01")


def test_a_second_chain_right_after_the_first_fully_resolved() -> None:
    """The first chain has resolved all its links; a trigger starts a new chain and the opponent
    chains to it (even when the record does not mark the first chain's end)."""
    p0 = {"hand": [c(MST, "mst")], "mzone": [c(SANGAN, "sangan")]}
    p1 = {"szone": [c(RING, "ring", position="set"), c(DUST_TORNADO, "dust", position="set"),
                    c(TRAP_HOLE, "hole", position="set")]}
    fold(position(p0, p1), act("mst", zone=0, targets=["hole"]), act("ring", player=1, targets=["sangan"]),
         res(2), moved("sangan", [0, "gy"], "destroyed", cause="ring"), lp(0, 1000, "effect_damage"),
         lp(1, 1000, "effect_damage"), moved("ring", [1, "gy"], "resolved"), res(1),
         moved("hole", [1, "gy"], "destroyed", cause="mst"), moved("mst", [0, "gy"], "resolved"),
         act("sangan", effect_type="trigger"), act("dust", player=1, targets=[]), res(2),
         moved("dust", [1, "gy"], "resolved"), res(1), END_CHAIN)


def test_equipped_monster_destroyed_by_battle_and_its_equip_follows() -> None:
    p0 = {"mzone": [c(CELTIC, "celtic")], "szone": [None, c(AXE, "axe", position="set")], "hand": [c(MST, "mst")]}
    p1 = {"mzone": [c(BLUE_EYES, "bewd")]}
    events = [position(p0, p1, turn=4), act("axe", targets=["celtic"]), res(1), END_CHAIN,
              stats("celtic", atk=2400, cause="axe"), phase("battle"), step("battle"), attack("celtic", "bewd"),
              step("damage"), calc(["celtic"], (600, 0)), lp(0, 600), moved("celtic", [0, "gy"], "battle")]
    state = fold(*events, moved("axe", [0, "gy"], "rule"), step("battle"), step("end"), phase("main2"),
                 act("mst", zone=0, targets=[]), res(1), moved("mst", [0, "gy"], "resolved"), END_CHAIN)
    assert state.cards["axe"].zone == "gy"
    check([*events, step("battle")], "SPELL-07")     # judge17: before play goes on, not at the next activation


def test_tributing_an_equipped_monster_then_its_equip_goes() -> None:
    p0 = {"mzone": [c(CELTIC, "celtic")], "szone": [c(AXE, "axe", position="set")],
          "hand": [c(SUMMONED_SKULL, "skull")]}
    state = fold(position(p0, {}, turn=4), act("axe", targets=["celtic"]), res(1), END_CHAIN,
                 summon("skull", 1, tributes=["celtic"]), moved("axe", [0, "gy"], "rule"))
    assert state.cards["skull"].zone == "mzone" and state.cards["axe"].zone == "gy"


def test_chain_11_a_hand_monster_discards_itself_as_its_cost():
    """CHAIN-11: Kuriboh's effect is activated by discarding Kuriboh itself; that is the cost."""
    state = fold(position({"mzone": [c(VORSE, "vorse")]}, {"hand": [c(KURIBOH, "kuri")]},
                          phase="battle", step="battle"),
                 {"kind": "attack_declared", "player": 0, "attacker": "vorse"},
                 {"kind": "activated", "player": 1, "card": "kuri", "effect_type": "quick",
                  "costs": [{"card": "kuri", "to": "gy", "reason": "discarded"}]})
    assert state.cards["kuri"].zone == "gy" and state.chain[0].card == "kuri"


def test_battle_06_a_direct_attack_cannot_go_on_once_the_opponent_gets_a_monster():
    """BATTLE-06: a direct attack answered by a new monster (Scapegoat) is replayed, never
    calculated as if it were still direct; the replay onto the new monster is fine."""
    start = [position({"mzone": [c(VORSE, "vorse")]}, {"szone": [c(SCAPEGOAT, "goat")]},
                      phase="battle", step="battle"),
             {"kind": "attack_declared", "player": 0, "attacker": "vorse"},
             {"kind": "activated", "player": 1, "card": "goat"},
             {"kind": "chain_link_resolved", "link": 1},
             {"kind": "token_created", "player": 1, "card": "p1.t1", "code": SHEEP_TOKEN, "zone": 0,
              "position": "defense", "cause": "goat"},
             {"kind": "card_moved", "card": "goat", "to": [1, "gy"], "reason": "resolved"},
             {"kind": "chain_ended"}]
    v = refused(*start, {"kind": "step_entered", "step": "damage"})   # judge20: not entered without a replay
    assert v.rule == "BATTLE-06"
    state = fold(*start, {"kind": "attack_retargeted", "target": "p1.t1"},
                 {"kind": "step_entered", "step": "damage"},
                 {"kind": "damage_calculated", "destroyed": ["p1.t1"], "damage": [0, 0]})
    assert state.attack.destroyed == ("p1.t1",)
