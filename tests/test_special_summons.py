"""Special Summons by every method, the Extra Deck, Extra Link, and what follows a card around the
field: Xyz materials, Tokens, equip cards, control, counters (RULES.md §12, §16, §20, §22).

Every mechanic has legal and illegal cases; each illegal case names the rule ID and a telling
piece of the message, and ``refused`` checks that the refused event left the state as it was.
The engine does not read card text, so printed material lists are taken as recorded; what the
basic rules say about every material is checked (rules/summon.py).
"""
from __future__ import annotations

import functools
from typing import Any

import duel
import pytest
from duel import (
    BATTLE_OX, BLUE_EYES, CELTIC, DARK_MAGICIAN, DARK_PALADIN, DECODE_TALKER, GIANT_SOLDIER, KURIBOH,
    LINK_SPIDER, MAGIC_JAMMER, MONSTER_REBORN, MYSTICAL_ELF, ODD_EYES, SHEEP_TOKEN, SOLEMN, STARDUST,
    STARGAZER, SUMMONED_SKULL, TIMEGAZER, UTOPIA, VORSE, position, refused_with)

from ygoreplay.cards import CardDB, CardFacts, CardType, LinkMarker
from ygoreplay.rules.zones import extra_link
from ygoreplay.state import DuelState

JUNK_SYNCHRON, JUNK_WARRIOR, CYBER_DRAGON, FLASH_KNIGHT = 63977008, 60800381, 70095154, 17390179
PROXY_DRAGON, THOUSAND_DRAGON, POLYMERIZATION = 22862454, 41462083, 24094653
BLACK_LUSTER_SOLDIER, BLACK_LUSTER_RITUAL, RELINQUISHED = 5405694, 55761792, 64631466
BLS_ENVOY, AXE, PREMATURE_BURIAL, SNATCH_STEAL, DARK_HOLE = 72989439, 40619825, 70828912, 45986603, 53129443
BREAKER = 71413901

# Two made-up cards for shapes the classic set lacks: a Link monster pointing up-left and up-right
# (to build an Extra Link), and a Synchro Pendulum (face-up in the Extra Deck, PEND-06).
UP_ARROWS, SYNCHRO_PENDULUM = 900000001, 900000002
DB = CardDB([*CardDB.classic().values(),
             CardFacts(UP_ARROWS, "Test Link ↖↗", int(CardType.MONSTER | CardType.LINK | CardType.EFFECT), level=2,
                       atk=1000, defense=None, attribute=0x10, race=0x1000000,
                       link_markers=int(LinkMarker.TOP_LEFT | LinkMarker.TOP_RIGHT)),
             CardFacts(SYNCHRO_PENDULUM, "Test Synchro Pendulum",
                       int(CardType.MONSTER | CardType.SYNCHRO | CardType.PENDULUM | CardType.EFFECT), level=6,
                       atk=2000, defense=1500, lscale=5, rscale=5, attribute=0x10, race=0x2000)])


# -- helpers ---------------------------------------------------------------------------------------

fold = functools.partial(duel.fold, cards=DB)
refused = functools.partial(duel.refused, cards=DB)


def check(events: list[dict], rule: str, says: str) -> None:
    refused_with(events, rule, says, DB)


def c(code: int, card_id: str, **flags: Any) -> dict:
    return {"code": code, "id": card_id, **flags}


def ss(card: str, zone: int, method: str = "effect", **fields: Any) -> dict:
    return {"kind": "special_summoned", "card": card, "zone": zone, "method": method, **fields}


def moved(card: str, to: list, reason: str = "sent", **fields: Any) -> dict:
    return {"kind": "card_moved", "card": card, "to": to, "reason": reason, **fields}


def act(card: str, **fields: Any) -> dict:
    return {"kind": "activated", "card": card, **fields}


def resolved(link: int = 1) -> dict:
    return {"kind": "chain_link_resolved", "link": link}


def summon(card: str, zone: int, **fields: Any) -> dict:
    return {"kind": "normal_summoned", "card": card, "zone": zone, **fields}


def negate(card: str) -> dict:
    return {"kind": "summon_negated", "card": card, "cause": "solemn"}


END = {"kind": "chain_ended"}
P1 = {"mzone": [c(KURIBOH, "p1_kuriboh"), c(CELTIC, "p1_celtic")], "szone": [c(SOLEMN, "solemn"), c(MAGIC_JAMMER, "jammer")],
      "hand": [c(KURIBOH, "p1_hand_kuriboh")]}   # Magic Jammer's discard (TERM-07)


def board(p0: dict, p1: dict | None = None, **fields: Any) -> dict:
    return position(p0, P1 if p1 is None else p1, **fields)


def where(state: DuelState, card_id: str) -> tuple:
    card = state.cards[card_id]
    return card.zone, card.position


# -- Synchro Summon (SYN-01, CARD-07, PEND-05) -------------------------------------------------------

SYN = {"mzone": [c(JUNK_SYNCHRON, "junk"), c(CELTIC, "celtic"), c(KURIBOH, "kuriboh"), c(FLASH_KNIGHT, "knight"),
                 c(SHEEP_TOKEN, "sheep")],
       "hand": [c(KURIBOH, "hand_kuriboh")],
       "gy": [c(STARDUST, "gy_stardust")],
       "extra": [c(STARDUST, "stardust"), c(DARK_PALADIN, "paladin"), c(SYNCHRO_PENDULUM, "synpend", position="faceup")]}
SYN_OTHER = {"mzone": [c(JUNK_SYNCHRON, "junk"), c(CELTIC, "celtic"), c(KURIBOH, "kuriboh"),
                       c(CELTIC, "set_celtic", position="set"), c(JUNK_SYNCHRON, "junk2"),
                       c(LINK_SPIDER, "spider")],
             "extra": [c(STARDUST, "stardust")]}
SYN_XYZ = {"mzone": [c(JUNK_SYNCHRON, "junk"), c(UTOPIA, "utopia", materials=[c(CELTIC, "mat")]), c(KURIBOH, "kuriboh"),
                     c(CELTIC, "celtic")],
           "extra": [c(STARDUST, "stardust")]}


@pytest.mark.parametrize("materials, where_they_go", [
    pytest.param(["junk", "celtic", "kuriboh"], {"junk": "gy", "celtic": "gy", "kuriboh": "gy"}, id="3+4+1"),
    pytest.param(["junk", "sheep", "celtic"], {"junk": "gy", "celtic": "gy"}, id="token-material"),
    pytest.param(["junk", "knight", "kuriboh"], {"junk": "gy", "knight": "extra", "kuriboh": "gy"}, id="pendulum-material"),
])
def test_syn_01_synchro_summon(materials: list[str], where_they_go: dict) -> None:
    """SYN-01: 1 face-up Tuner + face-up non-Tuners you control, Levels 3+4+1 = Stardust's 8, from
    the Extra Deck; the materials go to the GY (a Token vanishes, TOKEN-02; a Pendulum goes face-up to
    the Extra Deck, PEND-05)."""
    state = fold(board(SYN), ss("stardust", 5, "synchro", materials=materials))
    stardust = state.cards["stardust"]
    assert where(state, "stardust") == ("mzone", "attack") and state.emz[0] == "stardust"
    assert stardust.properly_summoned and stardust.summon_method == "synchro"
    assert {m: state.cards[m].zone for m in where_they_go} == where_they_go
    assert ("sheep" in state.cards) is ("sheep" not in materials)
    if "knight" in materials:
        assert state.cards["knight"].position == "faceup"


def test_syn_01_materials_moved_right_before_the_summon_count() -> None:
    """SYN-01 with a material EDOPro records apart: banished as material by a card_moved just before."""
    state = fold(board(SYN), moved("kuriboh", [0, "banished"], "material"),
                 ss("stardust", 5, "synchro", materials=["junk", "celtic"]))
    assert state.cards["stardust"].zone == "mzone" and state.cards["kuriboh"].zone == "banished"
    assert state.material_moves == []


def test_syn_01_a_material_move_not_right_before_the_summon_is_not_its_material() -> None:
    # any event between (a die roll; not a pass: the turn player's own pass ends their open game state, PRIO-05)
    check([board(SYN), moved("kuriboh", [0, "banished"], "material"), {"kind": "die_rolled", "results": [3]},
           ss("stardust", 5, "synchro", materials=["junk", "celtic"])], "SYN-01", "sum to 7")


def test_syn_01_a_synchro_summon_by_a_resolving_effect_in_the_opponents_turn() -> None:
    """SYN-01: outside your open game state only an effect (the cause) makes a Synchro Summon."""
    state = fold(board(SYN, turn_player=1), ss("stardust", 5, "synchro", player=0, materials=["junk", "celtic", "kuriboh"],
                                               cause="p1_celtic"))
    assert state.cards["stardust"].zone == "mzone"


@pytest.mark.parametrize("p0, event, fields, rule, says", [
    pytest.param(SYN, ss("stardust", 5, "synchro", materials=["celtic", "kuriboh"]), {}, "SYN-01",
                 "exactly 1 Tuner and 1 or more non-Tuners, not 0 Tuner(s)", id="no-tuner"),
    pytest.param(SYN, ss("stardust", 5, "synchro", materials=["junk"]), {}, "SYN-01", "1 Tuner(s) and 0 non-Tuner(s)",
                 id="tuner-alone"),
    pytest.param(SYN_OTHER, ss("stardust", 0, "synchro", materials=["junk", "junk2", "kuriboh"]), {},
                 "SYN-01", "not 2 Tuner(s)", id="two-tuners"),
    pytest.param(SYN, ss("stardust", 5, "synchro", materials=["junk", "celtic"]), {}, "SYN-01",
                 "Levels sum to 7; Stardust Dragon is Level 8", id="levels-7-for-8"),
    pytest.param(SYN, ss("stardust", 5, "synchro", materials=["junk", "celtic", "kuriboh", "sheep"]), {}, "SYN-01",
                 "sum to 9", id="levels-9-for-8"),
    pytest.param(SYN_OTHER, ss("stardust", 0, "synchro", materials=["junk", "set_celtic", "kuriboh"]), {}, "SYN-01",
                 "is face-down", id="face-down"),
    pytest.param(SYN, ss("stardust", 5, "synchro", materials=["junk", "celtic", "p1_kuriboh"]), {}, "SYN-01",
                 "controlled by player 1", id="opponents-monster"),
    pytest.param(SYN, ss("stardust", 5, "synchro", materials=["junk", "celtic", "hand_kuriboh"]), {}, "SYN-01",
                 "is in the hand", id="from-the-hand"),
    pytest.param(SYN_XYZ, ss("stardust", 5, "synchro", materials=["junk", "utopia", "kuriboh"]), {}, "CARD-07",
                 "Xyz monster: it has no Level", id="xyz-material"),
    pytest.param(SYN_OTHER, ss("stardust", 6, "synchro", materials=["junk", "spider", "celtic"]), {}, "CARD-07",
                 "Link monster: it has no Level", id="link-material"),
    pytest.param(SYN_XYZ, ss("stardust", 5, "synchro", materials=["junk", "mat", "kuriboh"]), {}, "SYN-01",
                 "an Xyz material, not on the field (XMAT-02)", id="xmat-02-an-xyz-material"),
    pytest.param(SYN, ss("gy_stardust", 2, "synchro", materials=["junk", "celtic", "kuriboh"]), {}, "SYN-01",
                 "a Synchro Summon brings it from the Extra Deck", id="from-the-gy"),
    pytest.param(SYN, ss("paladin", 5, "synchro", materials=["junk", "celtic", "kuriboh"]), {}, "SYN-01",
                 "not a Synchro monster", id="a-fusion-monster"),
    pytest.param(SYN, ss("synpend", 5, "synchro", materials=["junk", "celtic"]), {}, "PEND-06",
                 "face-up in the Extra Deck: it returns only by Pendulum Summon", id="face-up-extra-deck"),
    pytest.param(SYN, ss("stardust", 5, "synchro", materials=["junk", "celtic", "kuriboh"]), {"phase": "battle"},
                 "SYN-01", "open game state", id="battle-phase"),
    pytest.param(SYN, ss("stardust", 5, "synchro", player=0, materials=["junk", "celtic", "kuriboh"]),
                 {"turn_player": 1}, "SYN-01", "not their turn", id="opponents-turn"),
])
def test_syn_01_synchro_summon_refused(p0: dict, event: dict, fields: dict, rule: str, says: str) -> None:
    check([board(p0, **fields), event], rule, says)


# -- Xyz Summon, materials, detaching (XYZ-01/02/03, XMAT-01/02, NIS-05, CARD-07) ------------------------

XYZ = {"mzone": [c(CELTIC, "celtic"), c(BATTLE_OX, "ox"), c(VORSE, "vorse"), c(GIANT_SOLDIER, "soldier"),
                 c(SHEEP_TOKEN, "sheep"), c(LINK_SPIDER, "spider")],
       "hand": [c(CELTIC, "hand_celtic")],
       "gy": [c(UTOPIA, "gy_utopia")],
       "extra": [c(UTOPIA, "utopia"), c(UTOPIA, "utopia2"), c(LINK_SPIDER, "x_spider")]}
XYZ_SET = {**XYZ, "mzone": [c(CELTIC, "celtic"), c(BATTLE_OX, "ox"), c(VORSE, "vorse", position="set")]}
XYZ_SUMMON = ss("utopia", 0, "xyz", materials=["celtic", "ox"])


@pytest.mark.parametrize("event", [
    pytest.param(XYZ_SUMMON, id="two-level-4"),
    pytest.param(ss("utopia", 0, "xyz", materials=["celtic", "ox", "vorse"]), id="three-level-4"),
    pytest.param(ss("utopia", 0, "xyz", materials=["celtic", "soldier"], cause="rank-up"), id="xyz-03-by-an-effect"),
])
def test_xyz_01_xyz_summon_attaches_its_materials(event: dict) -> None:
    """XYZ-01: face-up monsters you control of the Level equal to the Rank (4); XYZ-02: monsters, not
    Tokens; XYZ-03: an effect may overlay others; XMAT-01/02: the materials are under it, not in the
    GY and not on the field."""
    state = fold(board(XYZ), event)
    utopia = state.cards["utopia"]
    assert utopia.materials == event["materials"] and utopia.properly_summoned
    assert all(state.cards[m].zone == "overlay" and state.cards[m].host == "utopia" for m in event["materials"])
    assert state.sides[0].gy == ["gy_utopia"]


def test_xyz_03_rank_up_takes_the_old_xyz_monster_and_its_materials() -> None:
    """XYZ-03: an effect overlays an Xyz monster; its materials stay materials (not the GY)."""
    state = fold(board(XYZ), XYZ_SUMMON, ss("utopia2", 1, "xyz", materials=["celtic", "ox", "utopia"], cause="rank-up"))
    assert state.cards["utopia2"].materials == ["celtic", "ox", "utopia"]
    assert all(state.cards[m].host == "utopia2" for m in ("celtic", "ox", "utopia"))
    assert state.cards["utopia"].materials == [] and state.sides[0].gy == ["gy_utopia"]


@pytest.mark.parametrize("p0, event, fields, rule, says", [
    pytest.param(XYZ, ss("utopia", 0, "xyz", materials=["celtic"]), {}, "XYZ-01", "2 or more monsters, not 1",
                 id="one-material"),
    pytest.param(XYZ, ss("utopia", 0, "xyz", materials=["celtic", "soldier"]), {}, "XYZ-01",
                 "Giant Soldier of Stone is Level 3", id="level-3-for-rank-4"),
    pytest.param(XYZ, ss("utopia", 0, "xyz", materials=["celtic", "sheep"]), {}, "XYZ-02", "Tokens cannot be Xyz materials",
                 id="token"),
    pytest.param(XYZ, ss("utopia", 0, "xyz", materials=["celtic", "sheep"], cause="rank-up"), {}, "XYZ-02",
                 "Tokens cannot be Xyz materials", id="token-by-an-effect"),
    pytest.param(XYZ_SET, ss("utopia", 0, "xyz", materials=["celtic", "vorse"]), {}, "XYZ-01", "is face-down",
                 id="face-down"),
    pytest.param(XYZ, ss("utopia", 0, "xyz", materials=["celtic", "p1_celtic"]), {}, "XYZ-01", "controlled by player 1",
                 id="opponents-monster"),
    pytest.param(XYZ, ss("utopia", 0, "xyz", materials=["celtic", "hand_celtic"]), {}, "XYZ-01", "in the hand",
                 id="from-the-hand"),
    pytest.param(XYZ, ss("utopia", 0, "xyz", materials=["celtic", "spider"]), {}, "CARD-07", "not a Level",
                 id="link-material"),
    pytest.param(XYZ, ss("gy_utopia", 0, "xyz", materials=["celtic", "ox"]), {}, "XYZ-01",
                 "brings it from the Extra Deck", id="from-the-gy"),
    pytest.param(XYZ, ss("utopia", 0, "xyz", materials=["celtic", "ox"]), {"phase": "battle"}, "XYZ-01",
                 "open game state", id="battle-phase"),
])
def test_xyz_01_02_xyz_summon_refused(p0: dict, event: dict, fields: dict, rule: str, says: str) -> None:
    check([board(p0, **fields), event], rule, says)


def test_nis_05_materials_go_to_the_gy_when_the_xyz_monster_leaves() -> None:
    """NIS-05: detaching sends a material to the GY; the rest follow their Xyz monster there, after
    it (ZONE-13: the engine sends the monster first, then its materials)."""
    state = fold(board(XYZ), ss("utopia", 0, "xyz", materials=["celtic", "ox", "vorse"]),
                 moved("celtic", [0, "gy"], "detached", cause="utopia"),
                 moved("utopia", [0, "gy"], "destroyed", cause="x"))
    assert state.sides[0].gy == ["gy_utopia", "celtic", "utopia", "ox", "vorse"]
    assert all(state.cards[m].host is None for m in ("ox", "vorse"))


@pytest.mark.parametrize("event, rule, says", [
    pytest.param(moved("celtic", [0, "banished"], "detached", cause="utopia"), "NIS-05",
                 "a detached Xyz material goes to the GY", id="nis-05-detached-to-banished"),
    pytest.param({"kind": "counters_changed", "card": "celtic", "counter": "spell", "count": 1, "cause": "x"},
                 "COUNTER-01", "is in the overlay", id="xmat-02-counters-on-a-material"),
    pytest.param({"kind": "control_changed", "card": "celtic", "to_player": 1, "zone": 3, "cause": "x"}, "CTRL-02",
                 "not on the field", id="xmat-02-control-of-a-material"),
    pytest.param(ss("x_spider", 5, "link", materials=["spider", "celtic"]), "LINK-01",
                 "an Xyz material, not on the field (XMAT-02)", id="xmat-02-no-link-material"),
])
def test_xmat_02_materials_are_not_on_the_field(event: dict, rule: str, says: str) -> None:
    """XMAT-02: an Xyz material is not a card on the field; NIS-05: detached, it goes to the GY."""
    check([board(XYZ), XYZ_SUMMON, event], rule, says)


# -- Link Summon (LINK-01..05) ---------------------------------------------------------------------------

LINK = {"mzone": [c(CELTIC, "celtic"), c(BATTLE_OX, "ox"), c(FLASH_KNIGHT, "knight"), c(SHEEP_TOKEN, "sheep"),
                  c(PROXY_DRAGON, "proxy")],
        "hand": [c(CELTIC, "hand_celtic")],
        "gy": [c(LINK_SPIDER, "gy_spider")],
        "extra": [c(LINK_SPIDER, "spider"), c(DECODE_TALKER, "decode")]}
LINK_SET = {**LINK, "mzone": [c(CELTIC, "celtic", position="set")]}


@pytest.mark.parametrize("event, gone", [
    pytest.param(ss("spider", 5, "link", materials=["celtic"]), ["celtic"], id="link-1-one-material"),
    pytest.param(ss("decode", 5, "link", materials=["proxy", "celtic"]), ["proxy", "celtic"], id="link-2-counts-2"),
    pytest.param(ss("decode", 5, "link", materials=["proxy", "celtic", "ox"]), ["proxy", "celtic", "ox"],
                 id="link-03-link-2-counts-1"),
    pytest.param(ss("decode", 5, "link", materials=["celtic", "ox", "sheep"]), ["celtic", "ox"], id="link-04-token"),
    pytest.param(ss("decode", 5, "link", materials=["knight", "celtic", "ox"]), ["celtic", "ox"],
                 id="link-04-pendulum-to-extra"),
])
def test_link_01_04_link_summon(event: dict, gone: list[str]) -> None:
    """LINK-01: face-up materials you control to the GY; LINK-02/03: each counts 1, a Link monster 1
    or its rating, totalling the rating; LINK-04: Tokens may be materials, Pendulums go face-up to the
    Extra Deck; LINK-05: Attack Position."""
    state = fold(board(LINK), event)
    assert where(state, event["card"]) == ("mzone", "attack") and state.cards[event["card"]].properly_summoned
    assert all(state.cards[m].zone == "gy" for m in gone)
    assert ("sheep" in state.cards) is ("sheep" not in event["materials"])
    if "knight" in event["materials"]:
        assert where(state, "knight") == ("extra", "faceup")


@pytest.mark.parametrize("p0, event, fields, rule, says", [
    pytest.param(LINK, ss("decode", 5, "link", materials=["celtic", "ox"]), {}, "LINK-02",
                 "can count [2]", id="two-for-link-3"),
    pytest.param(LINK, ss("decode", 5, "link", materials=["celtic", "ox", "sheep", "knight"]), {}, "LINK-02",
                 "can count [4]", id="four-for-link-3"),
    pytest.param(LINK, ss("decode", 5, "link", materials=["proxy", "celtic", "ox", "sheep"]), {}, "LINK-02",
                 "can count [4, 5]", id="link-2-and-three-for-link-3"),
    pytest.param(LINK, ss("spider", 5, "link"), {}, "LINK-01", "none are recorded", id="no-materials"),
    pytest.param(LINK, ss("spider", 5, "link", materials=["p1_celtic"]), {}, "LINK-01", "controlled by player 1",
                 id="opponents-monster"),
    pytest.param(LINK, ss("spider", 5, "link", materials=["hand_celtic"]), {}, "LINK-01", "in the hand",
                 id="from-the-hand"),
    pytest.param(LINK_SET, ss("spider", 5, "link", materials=["celtic"]), {}, "LINK-01", "is face-down", id="face-down"),
    pytest.param(LINK, ss("spider", 5, "link", position="defense", materials=["celtic"]), {}, "LINK-05",
                 "always in Attack Position", id="defense-position"),
    pytest.param(LINK, ss("gy_spider", 2, "link", materials=["celtic"]), {}, "LINK-01", "from the Extra Deck",
                 id="from-the-gy"),
    pytest.param(LINK, ss("spider", 5, "link", materials=["celtic"]), {"phase": "battle"}, "LINK-01",
                 "open game state", id="battle-phase"),
])
def test_link_01_05_link_summon_refused(p0: dict, event: dict, fields: dict, rule: str, says: str) -> None:
    check([board(p0, **fields), event], rule, says)


# -- Fusion Summon (FUS-01/02) ---------------------------------------------------------------------------

FUS = {"hand": [c(POLYMERIZATION, "poly"), c(CELTIC, "hand_celtic")],
       "mzone": [c(BATTLE_OX, "ox"), c(VORSE, "set_vorse", position="set")],
       "gy": [c(CELTIC, "gy_celtic"), c(DARK_PALADIN, "gy_paladin")],
       "extra": [c(THOUSAND_DRAGON, "thousand"), c(STARDUST, "stardust")]}
POLY = [board(FUS), act("poly", zone=0), resolved()]
POLY_DONE = [moved("poly", [0, "gy"], "resolved"), END]


def fuse(*materials: str, card: str = "thousand", **fields: Any) -> dict:
    return ss(card, 2, "fusion", materials=list(materials), **{"cause": "poly", **fields})


@pytest.mark.parametrize("events", [
    pytest.param([*POLY, fuse("hand_celtic", "ox"), *POLY_DONE], id="hand-and-field"),
    pytest.param([*POLY, fuse("ox", "set_vorse"), *POLY_DONE], id="face-down-material"),
    pytest.param([board(FUS), act("poly", zone=0), fuse("hand_celtic", "ox"), resolved(), *POLY_DONE],
                 id="summon-recorded-before-the-link-resolves"),
])
def test_fus_01_02_fusion_summon(events: list[dict]) -> None:
    """FUS-01/02: Polymerization resolves; its materials, from your hand or field (face-down too), go
    to the GY; the Fusion monster comes from the Extra Deck and is properly summoned."""
    state = fold(*events)
    thousand = state.cards["thousand"]
    assert thousand.zone == "mzone" and thousand.properly_summoned and thousand.summon_method == "fusion"
    [fusion] = [e for e in events if e["kind"] == "special_summoned"]
    assert all(state.cards[m].zone == "gy" for m in fusion["materials"])


def test_fus_02_materials_from_elsewhere_need_a_cited_card() -> None:
    """FUS-02 set aside by a cited effect (GEN-01): a material from the GY."""
    state = fold(*POLY, fuse("gy_celtic", "ox", cite={"card": "poly", "effect": "also from the GY"}), *POLY_DONE)
    assert state.cards["thousand"].zone == "mzone"
    assert [o.rule for o in state.overrides] == ["FUS-02"]


@pytest.mark.parametrize("event, rule, says", [
    pytest.param(fuse("hand_celtic", "ox", cause=None), "FUS-01", "name it as the cause", id="no-cause"),
    pytest.param(fuse("ox"), "FUS-02", "2 or more materials, not 1", id="one-material"),
    pytest.param(fuse("ox", "p1_celtic"), "FUS-02", "player 1's monster", id="opponents-monster"),
    pytest.param(fuse("ox", "gy_celtic"), "FUS-02", "is in the gy", id="material-in-the-gy"),
    pytest.param(fuse("ox", "hand_celtic", card="stardust"), "FUS-02", "not a Fusion monster", id="a-synchro-monster"),
    pytest.param(fuse("ox", "hand_celtic", card="gy_paladin"), "FUS-02", "brings it from the Extra Deck",
                 id="from-the-gy"),
])
def test_fus_01_02_fusion_summon_refused(event: dict, rule: str, says: str) -> None:
    check([*POLY, event], rule, says)


# -- Ritual Summon (RIT-01/02, CONF-19) --------------------------------------------------------------------

RIT = {"hand": [c(BLACK_LUSTER_RITUAL, "ritual"), c(BLACK_LUSTER_SOLDIER, "bls"), c(DARK_MAGICIAN, "dm")],
       "mzone": [c(KURIBOH, "kuriboh"), c(BATTLE_OX, "ox")],
       "gy": [c(BLACK_LUSTER_SOLDIER, "gy_bls"), c(CELTIC, "gy_celtic")]}
RITUAL = [board(RIT), act("ritual", zone=0), resolved()]
RITUAL_DONE = [moved("ritual", [0, "gy"], "resolved"), END]


def ritual(*tributes: str, card: str = "bls", **fields: Any) -> dict:
    return ss(card, 2, "ritual", materials=list(tributes), **{"cause": "ritual", **fields})


@pytest.mark.parametrize("tributes", [pytest.param(("dm", "kuriboh"), id="7+1-exactly-8"),
                                      pytest.param(("dm", "ox"), id="7+4-at-least-8")])
def test_rit_01_02_ritual_summon(tributes: tuple[str, ...]) -> None:
    """RIT-01/02: the Ritual Spell resolves; Tributes from hand and field whose Levels total at least
    the Ritual monster's (CONF-19) go to the GY; the Ritual monster comes from the hand."""
    state = fold(*RITUAL, ritual(*tributes), *RITUAL_DONE)
    bls = state.cards["bls"]
    assert bls.zone == "mzone" and bls.properly_summoned and bls.summon_method == "ritual"
    assert all(state.cards[t].zone == "gy" for t in tributes)


@pytest.mark.parametrize("event, rule, says", [
    pytest.param(ritual("dm", "kuriboh", cause=None), "RIT-01", "name it as the cause", id="no-cause"),
    pytest.param(ritual("ox"), "RIT-02", "Levels total 4; Black Luster Soldier is Level 8", id="levels-too-low"),
    pytest.param(ritual(), "RIT-02", "none are recorded", id="no-tributes"),
    pytest.param(ritual("dm", "p1_celtic"), "RIT-02", "player 1's monster", id="opponents-monster"),
    pytest.param(ritual("dm", "gy_celtic"), "RIT-02", "is in the gy", id="tribute-from-the-gy"),
    pytest.param(ritual("dm", "kuriboh", card="gy_bls"), "RIT-02", "Ritual Summoned from the hand", id="from-the-gy"),
    pytest.param(ritual("ox", "kuriboh", card="dm"), "RIT-02", "not a Ritual monster", id="not-a-ritual-monster"),
])
def test_rit_01_02_ritual_summon_refused(event: dict, rule: str, says: str) -> None:
    check([*RITUAL, event], rule, says)


# -- Pendulum Summon (PEND-03/04/06, SPS-02/13) -------------------------------------------------------------

PEND = {"hand": [c(ODD_EYES, "odd"), c(CELTIC, "celtic"), c(RELINQUISHED, "relinquished"), c(CELTIC, "celtic2")],
        "szone": [c(STARGAZER, "stargazer"), None, None, None, c(TIMEGAZER, "timegazer")],
        "extra": [c(ODD_EYES, "odd2", position="faceup"), c(UTOPIA, "utopia"), c(LINK_SPIDER, "spider")]}


def pendulum(card: str, zone: int, **fields: Any) -> dict:
    return ss(card, zone, "pendulum", **fields)


def test_pend_03_one_pendulum_summon_of_three_monsters() -> None:
    """PEND-03/SPS-02: consecutive events are one Pendulum Summon; ZONE-07: from the face-up Extra
    Deck to the Extra Monster Zone, from the hand to any Main Monster Zone; PEND-06: a face-up
    Pendulum in the Extra Deck returns by Pendulum Summon."""
    state = fold(board(PEND), pendulum("odd", 0), pendulum("odd2", 5), pendulum("celtic", 4, position="defense"))
    assert [state.mzone_card(0, z) for z in (0, 5, 4)] == ["odd", "odd2", "celtic"]
    assert state.summon_group == ["odd", "odd2", "celtic"]


@pytest.mark.parametrize("event, rule, says", [
    pytest.param(pendulum("utopia", 5), "PEND-06", "no Level (Xyz)", id="xyz"),
    pytest.param(pendulum("spider", 5), "PEND-06", "no Level (Link)", id="link"),
    pytest.param(pendulum("relinquished", 1), "SPS-13", "cannot be Pendulum Summoned from the hand", id="ritual-monster"),
    pytest.param(pendulum("odd2", 2), "NIS-01", "only if a link arrow points to it", id="zone-07-face-up-extra-to-main"),
])
def test_pend_06_sps_13_pendulum_summon_refused(event: dict, rule: str, says: str) -> None:
    check([board(PEND), event], rule, says)


def test_pend_04_a_negated_pendulum_summon_sends_every_monster_to_the_gy() -> None:
    """PEND-04: all the monsters go to the GY, the Pendulums too (not the Extra Deck); none is
    properly summoned, and the turn's Pendulum Summon is used (SPS-02)."""
    events = [board(PEND), pendulum("odd", 0), pendulum("celtic", 1),
              act("solemn", player=1), resolved(), negate("odd"), negate("celtic"),
              moved("solemn", [1, "gy"], "resolved"), END]
    state = fold(*events)
    assert [where(state, m) for m in ("odd", "celtic")] == [("gy", None), ("gy", None)]
    assert not state.cards["odd"].properly_summoned and state.sides[0].gy == ["odd", "celtic"]
    check([*events, pendulum("celtic2", 1)], "SPS-02", "already Pendulum Summoned this turn")


def test_pend_04_a_pendulum_summon_is_negated_only_as_it_happens() -> None:
    check([board(PEND), pendulum("odd", 0), pendulum("celtic", 1), summon("celtic2", 2), negate("odd")],
          "SPS-11", "not being summoned now")


SCALE = {"hand": [c(ODD_EYES, "odd")]}
#: Odd-Eyes activated as a Scale, Solemn Judgment chained: "negate, and if you do, destroy it".
SCALE_DESTROYED = [board(SCALE), act("odd", zone=0), act("solemn", player=1),
                   moved("odd", [0, "gy"], "destroyed", cause="solemn"), resolved(2)]


def test_pend_01_a_pendulum_card_whose_activation_is_negated_goes_to_the_gy() -> None:
    """PEND-01/PEND-05: activated in a Pendulum Zone it is a Spell; negated (Solemn Judgment
    destroys it before the link's turn says so) it goes to the GY, not the Extra Deck."""
    state = fold(*SCALE_DESTROYED, {"kind": "chain_link_negated", "link": 1, "by": 2},
                 moved("solemn", [1, "gy"], "resolved"), END)
    assert where(state, "odd") == ("gy", None) and state.sides[0].gy == ["odd"]


def test_pend_05_a_pendulum_card_destroyed_while_its_activation_resolves_goes_to_the_extra_deck() -> None:
    """PEND-05: destroyed on the chain (Mystical Space Typhoon) but not negated, the Pendulum
    card goes face-up to the Extra Deck; the GY is refused when its link resolves."""
    check([*SCALE_DESTROYED, resolved(1)], "PEND-05", "that activation was not negated")


# -- negated summons are not proper summons (SUM-03, SYN-04, XYZ-04) ----------------------------------------

def test_syn_04_a_negated_synchro_summon_is_not_a_synchro_summon() -> None:
    """SYN-04: negated, the Synchro monster goes to the GY, not properly summoned: no revival (SPS-12)."""
    events = [board(SYN), ss("stardust", 5, "synchro", materials=["junk", "celtic", "kuriboh"]),
              act("solemn", player=1), resolved(), negate("stardust"), moved("solemn", [1, "gy"], "resolved"), END]
    state = fold(*events)
    assert where(state, "stardust") == ("gy", None) and not state.cards["stardust"].properly_summoned
    check([*events, ss("stardust", 2, cause="reborn")], "SPS-12", "must first be properly summoned")


def test_xyz_04_a_negated_xyz_summon_sends_its_materials_to_the_gy() -> None:
    """XYZ-04, NIS-05: negated, the Xyz monster and then its materials go to the GY."""
    state = fold(board(XYZ), XYZ_SUMMON, act("solemn", player=1), resolved(), negate("utopia"))
    assert state.sides[0].gy == ["gy_utopia", "utopia", "celtic", "ox"]
    assert not state.cards["utopia"].properly_summoned


def test_sum_03_a_negated_inherent_summon() -> None:
    state = fold(board({"hand": [c(CYBER_DRAGON, "cyber")]}), ss("cyber", 2, "inherent"), act("solemn", player=1),
                 resolved(), negate("cyber"))
    assert where(state, "cyber") == ("gy", None) and not state.cards["cyber"].properly_summoned


# -- revival limits, inherent summons (SPS-07/12/13/14/15) ---------------------------------------------------

LIMITS = {"hand": [c(BLS_ENVOY, "envoy"), c(RELINQUISHED, "relinquished"), c(CYBER_DRAGON, "cyber"),
                   c(BLACK_LUSTER_RITUAL, "ritual"), c(DARK_MAGICIAN, "dm"), c(CELTIC, "celtic")],
          "mzone": [c(KURIBOH, "kuriboh")],
          "gy": [c(BLACK_LUSTER_SOLDIER, "gy_bls"), c(BLS_ENVOY, "gy_envoy"), c(BLUE_EYES, "gy_bewd")],
          "banished": [c(BLACK_LUSTER_SOLDIER, "banished_bls")],
          "deck": [c(BLACK_LUSTER_SOLDIER, "deck_bls")] + [c(CELTIC, f"deck{i}") for i in range(5)]}


@pytest.mark.parametrize("events", [
    pytest.param([ss("cyber", 2, "inherent")], id="sps-07-inherent"),
    pytest.param([ss("gy_bewd", 2, cause="reborn")], id="sps-12-no-condition"),
    pytest.param([ss("envoy", 2, "inherent"), moved("envoy", [0, "gy"], "destroyed", cause="x"),
                  ss("envoy", 3, cause="reborn")], id="sps-12-properly-summoned-first"),
    pytest.param([ss("envoy", 2, cite={"card": "p0.x1", "effect": "ignoring its Summoning conditions"})],
                 id="sps-15-cited"),
])
def test_sps_07_12_15_special_summons_allowed(events: list[dict]) -> None:
    state = fold(board(LIMITS), *events)
    assert state.cards[events[-1]["card"]].zone == "mzone"


def test_sps_13_summoned_only_its_own_way() -> None:
    """SPS-13: Black Luster Soldier - Envoy, which cannot be Normal Summoned, is Special Summoned
    its own way (by its inherent procedure), and is then properly summoned."""
    state = fold(board(LIMITS), ss("envoy", 2, "inherent"))
    assert state.cards["envoy"].zone == "mzone" and state.cards["envoy"].properly_summoned


@pytest.mark.parametrize("events, rule, says", [
    pytest.param([ss("gy_bls", 2, cause="reborn")], "SPS-12", "must first be properly summoned", id="ritual-from-gy"),
    pytest.param([ss("banished_bls", 2, cause="x")], "SPS-12", "from the banished", id="ritual-banished"),
    pytest.param([ss("gy_envoy", 2, cause="reborn")], "SPS-12", "must first be properly summoned", id="nomi-from-gy"),
    pytest.param([ss("envoy", 2, cause="x")], "SPS-15", "only if it ignores summoning conditions", id="nomi-from-hand"),
    pytest.param([ss("deck_bls", 2, cause="x")], "SPS-15", "from the deck", id="ritual-from-deck"),
    pytest.param([summon("envoy", 2)], "SPS-13", "never Normal Summoned or Set", id="normal-summon-nomi"),
    pytest.param([{"kind": "monster_set", "card": "relinquished", "zone": 2}], "SPS-13", "is a Ritual monster",
                 id="set-a-ritual-monster"),
    pytest.param([act("kuriboh", effect_type="quick"), ss("cyber", 2, "inherent")], "SPS-07", "a chain of 1 link(s)",
                 id="inherent-during-a-chain"),
])
def test_sps_07_12_13_15_special_summons_refused(events: list[dict], rule: str, says: str) -> None:
    check([board(LIMITS), *events], rule, says)


def test_sps_01_an_effect_may_summon_to_the_opponents_field() -> None:
    """SPS-01 (v2 ``controller``): the monster enters the field of the player the event names."""
    state = fold(board(LIMITS), ss("gy_bewd", 2, cause="x", controller=1))
    bewd = state.cards["gy_bewd"]
    assert (bewd.controller, bewd.owner, state.sides[1].mzone[2]) == (1, 0, "gy_bewd")
    check([board(LIMITS), ss("gy_bewd", 0, cause="x", controller=1)], "SPS-03", "monster zone 0 of player 1 holds")


def test_sps_14_back_in_the_hand_a_monster_is_no_longer_properly_summoned() -> None:
    """SPS-14: properly summoned, returned to the hand, then discarded: not revivable (SPS-12)."""
    events = [board(LIMITS), ss("envoy", 2, "inherent"), moved("envoy", [0, "hand"], "returned", cause="x"),
              moved("envoy", [0, "gy"], "discarded", cause="x")]
    state = fold(*events)
    assert not state.cards["envoy"].properly_summoned
    check([*events, ss("envoy", 3, cause="reborn")], "SPS-12", "must first be properly summoned")


# -- Extra Monster Zones and Extra Link (ZONE-04/05, LINK-06) ----------------------------------------------

def extra_link_board(player: int, middle: int) -> dict:
    """``player`` holds Decode Talker in their left Extra Monster Zone and ``middle`` in Main Monster
    Zone 2; Celtic, Battle Ox and Vorse as materials; Decode Talker, Link Spider and Stardust to summon."""
    side = {"mzone": [c(CELTIC, f"p{player}_celtic"), c(BATTLE_OX, f"p{player}_ox"), c(middle, f"p{player}_middle"),
                      c(VORSE, f"p{player}_vorse"), None, c(DECODE_TALKER, f"p{player}_decode")],
            "extra": [c(DECODE_TALKER, f"p{player}_decode2"), c(LINK_SPIDER, f"p{player}_spider"),
                      c(STARDUST, f"p{player}_stardust")]}
    sides = (side, {}) if player == 0 else ({}, side)
    return position(*sides, turn_player=player)


@pytest.mark.parametrize("player", [0, 1])
def test_zone_05_extra_link_lets_one_player_use_both_extra_monster_zones(player: int) -> None:
    """ZONE-05, LINK-06: Decode Talker (↙↑↘) in the left EMZ and a Link monster (↖↗) in Main
    Monster Zone 2 point at each other; a Decode Talker summoned to the right EMZ points ↙ at that
    monster, which points ↗ back: the three are co-linked, an Extra Link."""
    p = f"p{player}_"
    state = fold(extra_link_board(player, UP_ARROWS),
                 ss(p + "decode2", 6, "link", player=player, materials=[p + "celtic", p + "ox", p + "vorse"]))
    assert set(state.emz) == {p + "decode", p + "decode2"} and state.monster_count(player) == 3


@pytest.mark.parametrize("middle, card, materials", [
    pytest.param(PROXY_DRAGON, "decode2", ["celtic", "ox", "vorse"], id="middle-not-pointing-up"),
    pytest.param(UP_ARROWS, "spider", ["celtic"], id="new-link-not-pointing-back"),
    pytest.param(UP_ARROWS, "stardust", None, id="not-a-link-monster"),
])
def test_zone_04_05_no_second_extra_monster_zone_without_extra_link(middle: int, card: str, materials) -> None:
    event = (ss("p0_" + card, 6, "link", materials=["p0_" + m for m in materials]) if materials
             else ss("p0_" + card, 6, cause="x"))
    check([extra_link_board(0, middle), event], "ZONE-04", "needs Extra Link (ZONE-05)")


def test_link_06_extra_link_helper_needs_the_other_zone_held() -> None:
    state = fold(position({"extra": [c(DECODE_TALKER, "decode")]}, {}))
    assert extra_link(state, 0, state.cards["decode"], 6) is False


# -- Tokens (TOKEN-01/02, XYZ-02) ----------------------------------------------------------------------------

def test_token_02_a_token_is_never_face_down() -> None:
    check([board({"mzone": [c(SHEEP_TOKEN, "sheep")]}), moved("sheep", [1, "mzone", 3], position="set", cause="x")],
          "TOKEN-02", "only ever face-up")


def test_token_02_a_token_taken_by_the_opponent_stays_a_token_and_vanishes() -> None:
    state = fold(board({"mzone": [c(SHEEP_TOKEN, "sheep")]}),
                 {"kind": "control_changed", "card": "sheep", "to_player": 1, "zone": 3, "cause": "x"},
                 moved("sheep", [0, "gy"], "destroyed", cause="x"))
    assert "sheep" not in state.cards and state.sides[1].mzone[3] is None


# -- equip cards follow their monster (SPELL-05/06/07) ---------------------------------------------------------

EQ = {"hand": [c(AXE, "axe"), c(PREMATURE_BURIAL, "premature"), c(SNATCH_STEAL, "snatch"), c(DARK_HOLE, "hole"),
               c(VORSE, "vorse")],
      "mzone": [c(CELTIC, "celtic"), c(BATTLE_OX, "ox"), c(MYSTICAL_ELF, "set_elf", position="set")],
      "gy": [c(SUMMONED_SKULL, "gy_skull")]}
EQUIP_AXE = [board(EQ), act("axe", zone=0, targets=["celtic"]), resolved(), END]
DESTROY_CELTIC = moved("celtic", [0, "gy"], "destroyed", cause="x")
AXE_FOLLOWS = moved("axe", [0, "gy"], "rule", cause="celtic")
PREMATURE = [board(EQ), act("premature", zone=1, targets=["gy_skull"], costs=[{"lp": 800}]), resolved(),
             ss("gy_skull", 3, cause="premature")]


@pytest.mark.parametrize("events", [
    pytest.param([*EQUIP_AXE, DESTROY_CELTIC, AXE_FOLLOWS, summon("vorse", 3)], id="axe-follows-its-monster"),
    pytest.param([*EQUIP_AXE, {"kind": "position_changed", "card": "celtic", "position": "set", "cause": "book"},
                  AXE_FOLLOWS, summon("vorse", 3)], id="axe-follows-it-face-down"),
    pytest.param([*PREMATURE, END, moved("gy_skull", [0, "gy"], "destroyed", cause="x"),
                  moved("premature", [0, "gy"], "rule", cause="gy_skull"), summon("vorse", 4)], id="premature-burial"),
    pytest.param([board(EQ), act("premature", zone=1, targets=["gy_skull"]), ss("gy_skull", 3, cause="premature"),
                  resolved(), END, summon("vorse", 4)], id="premature-burial-summon-recorded-first"),
    pytest.param([board(EQ), act("snatch", zone=0, targets=["p1_celtic"]), resolved(),
                  {"kind": "control_changed", "card": "p1_celtic", "to_player": 0, "zone": 3, "cause": "snatch"}, END,
                  summon("vorse", 4)], id="snatch-steal-control-change"),
    pytest.param([board(EQ), act("axe", zone=0, targets=["celtic"]), act("jammer", player=1, targets=["axe"]),
                  resolved(2), {"kind": "chain_link_negated", "link": 1, "by": 2},
                  moved("jammer", [1, "gy"], "resolved"), moved("axe", [0, "gy"], "negated"), END,
                  DESTROY_CELTIC, summon("vorse", 3)], id="spell-06-negated-equips-nothing"),
    pytest.param([*EQUIP_AXE, act("hole", zone=1), resolved(), DESTROY_CELTIC, AXE_FOLLOWS,
                  moved("ox", [0, "gy"], "destroyed", cause="hole"), moved("hole", [0, "gy"], "resolved"), END],
                 id="in-a-chain"),
])
def test_spell_05_07_equip_cards_follow_their_monster(events: list[dict]) -> None:
    """SPELL-05: an Equip Spell equips the monster it targeted when it resolves (a monster it revives,
    too); SPELL-07: it goes to the GY when that monster leaves or turns face-down; CTRL-02: a
    control change keeps it equipped; SPELL-06: a negated Equip equips nothing."""
    state = fold(*events)
    assert not any(card.equipped_to for card in state.cards.values() if card.zone != "szone")


def test_spell_05_the_equip_knows_its_monster() -> None:
    state = fold(*EQUIP_AXE)
    assert state.cards["axe"].equipped_to == "celtic" and not state.cards["axe"].equip_pending
    state = fold(*PREMATURE)
    assert state.cards["premature"].equipped_to == "gy_skull"


@pytest.mark.parametrize("events, rule, says", [
    pytest.param([*EQUIP_AXE, DESTROY_CELTIC, summon("vorse", 3)], "SPELL-07", "Celtic Guardian, has left the field",
                 id="monster-left-then-a-summon"),
    pytest.param([*EQUIP_AXE, {"kind": "position_changed", "card": "celtic", "position": "set", "cause": "book"},
                  act("hole", zone=1)], "SPELL-07", "is face-down", id="face-down-then-an-activation"),
    pytest.param([*EQUIP_AXE, act("hole", zone=1), resolved(), DESTROY_CELTIC,
                  moved("hole", [0, "gy"], "resolved"), END], "SPELL-07", "has left the field", id="chain-ends"),
    pytest.param([board(EQ), act("premature", zone=1, targets=["gy_skull"]), resolved(), END], "SPELL-07",
                 "the monster it was to equip, is not on the field", id="revival-never-came"),
    pytest.param([board(EQ), act("axe", zone=0)], "SPELL-05", "targets 1 monster, not 0", id="no-target"),
    pytest.param([board(EQ), act("axe", zone=0, targets=["set_elf"])], "POS-06", "is face-down in Defense Position",
                 id="face-down-target"),
    pytest.param([board(EQ), act("axe", zone=0, targets=["hole"])], "SPELL-05", "is not one", id="a-spell-target"),
])
def test_spell_05_07_equip_refused(events: list[dict], rule: str, says: str) -> None:
    check(events, rule, says)


# -- control and ownership (CTRL-02/03/04) ---------------------------------------------------------------------

CTRL = position({"mzone": [c(CELTIC, "celtic")]},
                {"mzone": [c(BATTLE_OX, "ox"), c(FLASH_KNIGHT, "knight"),
                           c(UTOPIA, "utopia", materials=[c(CELTIC, "mat1"), c(VORSE, "mat2")])]})


def control(card: str, to_player: int, zone: int) -> dict:
    return {"kind": "control_changed", "card": card, "to_player": to_player, "zone": zone, "cause": "heart"}


@pytest.mark.parametrize("events, card, where_", [
    pytest.param([control("ox", 0, 3), control("ox", 1, 0)], "ox", (1, "mzone"), id="ctrl-02-given-back"),
    pytest.param([control("knight", 0, 3), moved("knight", [1, "extra"], "destroyed", cause="x")], "knight",
                 (1, "extra"), id="ctrl-04-pendulum-to-owners-extra-deck"),
    pytest.param([control("utopia", 0, 3), moved("mat1", [1, "gy"], "detached", cause="utopia")], "mat1",
                 (1, "gy"), id="ctrl-03-material-to-owners-gy"),
])
def test_ctrl_02_04_owner_gets_cards_back(events: list[dict], card: str, where_: tuple) -> None:
    state = fold(CTRL, *events)
    moved_card = state.cards[card]
    assert (state.location(moved_card).controller, moved_card.zone) == where_ and moved_card.owner == 1


@pytest.mark.parametrize("events, says", [
    pytest.param([control("knight", 0, 3), moved("knight", [0, "extra"], "destroyed", cause="x")],
                 "owner's extra (player 1), not player 0's", id="pendulum-to-controllers-extra-deck"),
    pytest.param([control("utopia", 0, 3), moved("mat1", [0, "gy"], "detached", cause="utopia")],
                 "owner's gy (player 1), not player 0's", id="material-to-controllers-gy"),
])
def test_ctrl_03_not_to_the_controllers_piles(events: list[dict], says: str) -> None:
    check([CTRL, *events], "CTRL-03", says)


# -- counters (COUNTER-01) ---------------------------------------------------------------------------------------

COUNTERS = position({"mzone": [c(BREAKER, "breaker"), c(CELTIC, "celtic")]}, {})


def counters(card: str, count: int, cause: str | None = None) -> dict:
    return {"kind": "counters_changed", "card": card, "counter": "spell", "count": count, "cause": cause}


def test_counter_01_counters_by_effects_and_gone_with_the_card() -> None:
    """COUNTER-01: a card's own effect puts counters on it; another card's effect may put them on
    an effectless one; they are gone once the card leaves the field."""
    state = fold(COUNTERS, counters("breaker", 1), counters("celtic", 1, "p0.x1"))
    assert state.cards["breaker"].counters == {"spell": 1} and state.cards["celtic"].counters == {"spell": 1}
    state = fold(COUNTERS, counters("breaker", 1), moved("breaker", [0, "hand"], "returned", cause="x"))
    assert state.cards["breaker"].counters == {}


def test_counter_01_an_effectless_card_gets_no_counters_of_its_own() -> None:
    check([COUNTERS, counters("celtic", 1)], "COUNTER-01", "has no effect that places counters on it")


# -- reborn with the proper summon (SPS-12 with each procedure) -----------------------------------------------

@pytest.mark.parametrize("events, card, zone", [
    pytest.param([board(SYN), ss("stardust", 5, "synchro", materials=["junk", "celtic", "kuriboh"])], "stardust", 0,
                 id="synchro"),
    pytest.param([board(XYZ), XYZ_SUMMON], "utopia", 0, id="xyz"),
    pytest.param([board(LINK), ss("spider", 5, "link", materials=["celtic"])], "spider", 0, id="link"),
    pytest.param([*RITUAL, ritual("dm", "kuriboh"), *RITUAL_DONE], "bls", 2, id="ritual"),
    pytest.param([*POLY, fuse("hand_celtic", "ox"), *POLY_DONE], "thousand", 2, id="fusion"),
])
def test_sps_12_properly_summoned_then_revived(events: list[dict], card: str, zone: int) -> None:
    """SPS-12: once properly summoned by its procedure, a monster may be revived by an effect."""
    state = fold(*events, moved(card, [0, "gy"], "destroyed", cause="x"),
                 ss(card, zone, cause=str(MONSTER_REBORN)))
    assert state.cards[card].zone == "mzone" and state.cards[card].summon_method == "effect"
