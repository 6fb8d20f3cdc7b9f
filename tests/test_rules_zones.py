"""Zones, link arrows and the outcomes of effects (RULES.md §8, §12, §20, §22; rules/zones.py,
rules/outcome.py).

Monster-zone capacity and Extra Deck placement are checked under each rule set a duel can name
(``mr2020``, ``nmr2017``, ``mr3``). Outcomes (moves, control, stats, counters, tokens, LP) are
facts of the record, but the basic rules about where cards go still hold.
"""
from __future__ import annotations

import msgpack
import pytest
from duel import (
    BATTLE_OX, CELTIC, DARK_PALADIN, DECODE_TALKER, LINK_SPIDER, MPZ, MST, ODD_EYES, SHEEP_TOKEN,
    STARDUST, STARGAZER, SUMMONED_SKULL, TIMEGAZER, UTOPIA, VORSE, YAMI, fold, position)
from test_rules_chain import check_refused, refused_without_override

from ygoreplay.rules.zones import linked_main_zones

PROXY_DRAGON, FLASH_KNIGHT, CALL_OF_THE_HAUNTED = 22862454, 17390179, 97077563


def zones(*cards: tuple[int, dict]) -> list:
    """A 7-slot monster zone list with the given (index, card) pairs."""
    slots: list = [None] * 7
    for index, card in cards:
        slots[index] = card
    return slots


# -- LINK-06: which main monster zones link arrows point to ---------------------------------------

@pytest.mark.parametrize("p0_mzone, p1_mzone, linked", [
    pytest.param(zones((5, {"code": LINK_SPIDER})), [], ({1}, set()), id="spider-p0-left-emz"),
    pytest.param(zones((5, {"code": DECODE_TALKER})), [], ({0, 2}, {3}), id="decode-p0-left-emz"),
    pytest.param(zones((6, {"code": DECODE_TALKER})), [], ({2, 4}, {1}), id="decode-p0-right-emz"),
    pytest.param([], zones((5, {"code": DECODE_TALKER})), ({3}, {0, 2}), id="decode-p1-left-emz"),
    pytest.param(zones((2, {"code": PROXY_DRAGON})), [], ({1, 3}, set()), id="proxy-p0-middle"),
    pytest.param(zones((0, {"code": PROXY_DRAGON})), [], ({1}, set()), id="proxy-p0-edge"),
    pytest.param([], zones((4, {"code": PROXY_DRAGON})), (set(), {3}), id="proxy-p1-edge"),
    pytest.param(zones((1, {"code": DECODE_TALKER})), [], (set(), set()), id="decode-main-zone-points-up"),
    pytest.param(zones((2, {"code": STARDUST})), [], (set(), set()), id="no-link-monster"),
])
def test_link_06_linked_zones_follow_arrows(p0_mzone, p1_mzone, linked):
    """LINK-06: arrows point from the controller's view; player 1's are turned half a circle."""
    state = fold(position({"mzone": p0_mzone}, {"mzone": p1_mzone}))
    assert (linked_main_zones(state, 0), linked_main_zones(state, 1)) == linked


# -- ZONE-03 / NIS-01 / ZONE-02 / ZONE-07: Extra Deck placement under each rule set ----------------

SCALES = [{"code": STARGAZER, "id": "sg"}, None, None, None, {"code": TIMEGAZER, "id": "tg"}]
PLACEMENT_BOARD = {
    "mzone": [None, None, {"code": PROXY_DRAGON, "id": "proxy"}],        # points to zones 1 and 3
    "szone": SCALES,
    "hand": [{"code": FLASH_KNIGHT, "id": "knight"}],
    "gy": [{"code": SUMMONED_SKULL, "id": "skull"}],
    "extra": [{"code": DARK_PALADIN, "id": "paladin"}, {"code": STARDUST, "id": "stardust"},
              {"code": UTOPIA, "id": "utopia"}, {"code": DECODE_TALKER, "id": "decode"},
              {"code": ODD_EYES, "id": "odd", "position": "faceup"}],
}
OK = None
#: card, method, zone -> the rule that refuses it under (mr2020, nmr2017, mr3), None when legal.
PLACEMENTS = [
    ("paladin", "effect", 0, (OK, "ZONE-03", OK)),
    ("paladin", "effect", 1, (OK, OK, OK)),
    ("paladin", "effect", 5, (OK, OK, "ZONE-02")),
    ("stardust", "effect", 4, (OK, "ZONE-03", OK)),
    ("utopia", "effect", 0, (OK, "ZONE-03", OK)),
    ("decode", "effect", 0, ("NIS-01", "ZONE-03", OK)),
    ("decode", "effect", 3, (OK, OK, OK)),
    ("decode", "effect", 6, (OK, OK, "ZONE-02")),
    ("odd", "pendulum", 4, ("NIS-01", "ZONE-03", OK)),
    ("odd", "pendulum", 1, (OK, OK, OK)),
    ("knight", "pendulum", 4, (OK, OK, OK)),
    ("skull", "effect", 0, (OK, OK, OK)),
    ("skull", "effect", 5, ("ZONE-03", "ZONE-03", "ZONE-02")),
]
RULESET_NAMES = ("mr2020", "nmr2017", "mr3")
LEGAL = [pytest.param(r, c, m, z, id=f"{r}-{c}-{z}")
         for c, m, z, rules in PLACEMENTS for r, rule in zip(RULESET_NAMES, rules) if rule is None]
ILLEGAL = [pytest.param(r, c, m, z, rule, id=f"{r}-{c}-{z}-{rule}")
           for c, m, z, rules in PLACEMENTS for r, rule in zip(RULESET_NAMES, rules) if rule]


def summon(card: str, zone: int, method: str = "effect", player: int = 0, **fields) -> dict:
    return {"kind": "special_summoned", "player": player, "card": card, "zone": zone,
            "method": method, **fields}


def placement_board(ruleset: str) -> dict:
    """Under MR3 the Pendulum Zones are separate: S/T indexes 5 and 6 (CONF-09, rules/zones.py)."""
    if ruleset == "mr3":
        return position({**PLACEMENT_BOARD, "szone": [None] * 5 + [SCALES[0], SCALES[4]]}, {}, ruleset=ruleset)
    return position(PLACEMENT_BOARD, {}, ruleset=ruleset)


@pytest.mark.parametrize("ruleset, card, method, zone", LEGAL)
def test_zone_03_nis_01_legal_extra_deck_placement(ruleset, card, method, zone):
    """ZONE-03, ZONE-07, NIS-01, ZONE-02: mr2020 frees Fusion/Synchro/Xyz; Link monsters and face-up
    Extra Deck Pendulums need the EMZ or a linked zone; nmr2017 restricts every Extra Deck monster;
    mr3 has no EMZ and no restriction."""
    state = fold(placement_board(ruleset), summon(card, zone, method))
    assert state.mzone_card(0, zone) == card and state.cards[card].zone == "mzone"


@pytest.mark.parametrize("ruleset, card, method, zone, rule", ILLEGAL)
def test_zone_03_nis_01_illegal_extra_deck_placement_refused(ruleset, card, method, zone, rule):
    """ZONE-03, NIS-01, ZONE-02: an Extra Deck monster in a zone its rule set closes to it."""
    says = {"ZONE-03": "Extra", "NIS-01": "materials' arrows aside: [1, 3]",
            "ZONE-02": "no Extra Monster Zones under Master Rule 3"}[rule]
    check_refused([placement_board(ruleset), summon(card, zone, method)], rule, says)


def test_nis_01_opponents_arrow_opens_a_zone():
    """NIS-01, LINK-06: a zone the opponent's Link monster points to is a linked zone too."""
    board = position({"extra": [{"code": LINK_SPIDER, "id": "spider"}], "mzone": [{"code": CELTIC, "id": "celtic"}]},
                     {"mzone": zones((5, {"code": DECODE_TALKER, "id": "p1_decode"}))})
    state = fold(board, summon("spider", 3, "link", materials=["celtic"]))
    assert state.sides[0].mzone[3] == "spider"


EXILED_FORCE, SANGAN = 74131780, 26202165
LINK_MATERIALS = position({
    "mzone": zones((5, {"code": LINK_SPIDER, "id": "spider"}), (0, {"code": EXILED_FORCE, "id": "exiled"}),
                   (4, {"code": SANGAN, "id": "sangan"})),
    "extra": [{"code": DECODE_TALKER, "id": "decode"}]})
DECODE_LINK_SUMMON = summon("decode", 1, "link", materials=["spider", "exiled", "sangan"])


def test_nis_01_material_leaving_its_emz_frees_it():
    """NIS-01, ZONE-04: a Link material in the EMZ leaves it, so the Link monster may take it."""
    state = fold(LINK_MATERIALS, {**DECODE_LINK_SUMMON, "zone": 5})
    assert state.emz == ["decode", None] and state.cards["spider"].zone == "gy"


def test_nis_01_material_arrows_open_no_zone():
    """NIS-01, LINK-06: the zone only a Link material points to closes as the material leaves."""
    check_refused([LINK_MATERIALS, DECODE_LINK_SUMMON], "NIS-01", "materials' arrows aside: none")


# -- ZONE-01 / ZONE-04: capacity and the Extra Monster Zones ---------------------------------------

EMZ_BOARD = {"mzone": zones((5, {"code": DECODE_TALKER, "id": "decode"}), (0, {"code": CELTIC, "id": "celtic"})),
             "extra": [{"code": STARDUST, "id": "stardust"}]}
P1_EXTRA = {"extra": [{"code": STARDUST, "id": "p1_stardust"}]}


def test_zone_04_each_player_may_use_one_extra_monster_zone():
    """ZONE-04: player 0 holds the left EMZ; player 1 takes the other one (their zone 5)."""
    state = fold(position(EMZ_BOARD, P1_EXTRA, turn_player=1), summon("p1_stardust", 5, player=1))
    assert state.emz == ["decode", "p1_stardust"] and state.monster_count(1) == 1


def test_zone_04_second_extra_monster_zone_refused():
    """ZONE-04: a player already using an EMZ cannot take the second without Extra Link."""
    check_refused([position(EMZ_BOARD, P1_EXTRA), summon("stardust", 6)], "ZONE-04",
                  "already uses an Extra Monster Zone (decode)")


def test_zone_01_six_monster_zones_in_use():
    """ZONE-01: a player uses up to 5 Main Monster Zones plus one EMZ."""
    full = zones(*((i, {"code": CELTIC}) for i in range(5)), (5, {"code": DECODE_TALKER}))
    state = fold(position({"mzone": full}, {}))
    assert state.monster_count(0) == 6


@pytest.mark.parametrize("p1, event, rule, says", [
    pytest.param({}, summon("stardust", 7), "ZONE-01", "monster zone 7 does not exist", id="zone-7"),
    pytest.param({}, summon("stardust", 0), "SPS-03", "holds celtic already", id="occupied-main"),
    pytest.param({}, summon("stardust", 5), "SPS-03", "holds decode already", id="occupied-emz"),
    pytest.param(P1_EXTRA, summon("p1_stardust", 6, player=1), "SPS-03", "holds decode already",
                 id="opponents-emz-taken"),
])
def test_zone_01_sps_03_zone_must_exist_and_be_free(p1, event, rule, says):
    """ZONE-01: monster zones are 0-4 (main) and 5-6 (extra), one monster each; SPS-03: a Special
    Summon into a taken one is refused as needing a usable free zone."""
    check_refused([position(EMZ_BOARD, p1, turn_player=event["player"]), event], rule, says)


# -- CTRL-01..03 / ZONE-08 / ZONE-10: control changes ------------------------------------------------

def control(card: str, to_player: int, zone: int) -> dict:
    return {"kind": "control_changed", "card": card, "to_player": to_player, "zone": zone, "cause": "heart"}


CONTROL_BOARD = position(
    {"mzone": [{"code": CELTIC, "id": "celtic"}], "szone": [{"code": MST, "id": "mst"}],
     "fzone": {"code": MPZ, "id": "mpz"}},
    {"mzone": [{"code": BATTLE_OX, "id": "ox"}, {"code": UTOPIA, "id": "utopia", "materials": [CELTIC, VORSE]}],
     "szone": [{"code": CALL_OF_THE_HAUNTED, "id": "call"}], "fzone": {"code": YAMI, "id": "yami"},
     "hand": [{"code": VORSE, "id": "p1_vorse"}]})


@pytest.mark.parametrize("event, card, zone", [
    pytest.param(control("ox", 0, 3), "ox", 3, id="monster"),
    pytest.param(control("call", 0, 2), "call", 2, id="set-trap"),
])
def test_ctrl_02_control_passes_to_the_other_player(event, card, zone):
    """CTRL-02: the card moves to the new controller's side; its owner stays the same."""
    state = fold(CONTROL_BOARD, event)
    moved = state.cards[card]
    assert (moved.controller, moved.owner) == (0, 1)
    assert state.location(moved)[:] == (0, moved.zone, zone)


def test_ctrl_02_xyz_keeps_its_materials():
    """CTRL-02, XMAT-01: an Xyz monster changing control keeps its materials under it."""
    state = fold(CONTROL_BOARD, control("utopia", 0, 4))
    utopia = state.cards["utopia"]
    assert (utopia.controller, len(utopia.materials)) == (0, 2)
    assert all(state.cards[m].host == "utopia" for m in utopia.materials)


@pytest.mark.parametrize("event, rule, says", [
    pytest.param(control("p1_vorse", 0, 3), "CTRL-02", "not on the field", id="card-in-hand"),
    pytest.param(control("ox", 1, 3), "CTRL-02", "already controlled by player 1", id="same-player"),
    pytest.param(control("ox", 0, 0), "ZONE-01", "holds celtic", id="occupied-monster-zone"),
    pytest.param(control("ox", 0, 5), "ZONE-03", "must use a Main Monster Zone", id="to-emz"),
    pytest.param(control("call", 0, 0), "ZONE-08", "is occupied", id="occupied-st-zone"),
    pytest.param(control("call", 0, 5), "ZONE-08", "does not exist", id="st-zone-5"),
    pytest.param(control("call", 0, -1), "ZONE-08", "does not exist", id="st-zone-minus-1"),
    pytest.param(control("yami", 0, 0), "ZONE-10", "Field Zone is occupied", id="occupied-field-zone"),
])
def test_ctrl_02_control_change_refused(event, rule, says):
    """CTRL-02, ZONE-01/03/08/10: only a card on the field changes control, into a free zone."""
    check_refused([CONTROL_BOARD, event], rule, says)


def moved(card: str, to: list, reason: str = "sent", **fields) -> dict:
    return {"kind": "card_moved", "card": card, "to": to, "reason": reason, **fields}


def test_ctrl_03_card_goes_to_its_owners_gy():
    """CTRL-03: a monster whose control changed goes to its owner's GY."""
    state = fold(CONTROL_BOARD, control("ox", 0, 3), moved("ox", [1, "gy"], "destroyed"))
    assert state.sides[1].gy[-1] == "ox" and state.cards["ox"].controller == 1


def test_ctrl_03_card_to_controllers_pile_refused():
    """CTRL-03: the controller's GY is not where a taken monster goes."""
    check_refused([CONTROL_BOARD, control("ox", 0, 3), moved("ox", [0, "gy"], "destroyed")],
                  "CTRL-03", "goes to its owner's gy (player 1), not player 0's")


# -- card_moved: what the basic rules say about every move ------------------------------------------

MOVE_BOARD = position(
    {"hand": [{"code": VORSE, "id": "vorse"}, {"code": ODD_EYES, "id": "odd_hand"},
              {"code": MST, "id": "mst_hand"}],
     "mzone": [{"code": CELTIC, "id": "celtic"}, {"code": UTOPIA, "id": "utopia", "materials": [
         {"code": BATTLE_OX, "id": "mat"}]}, {"code": ODD_EYES, "id": "odd"}, None, None,
               {"code": DECODE_TALKER, "id": "decode"}],
     "szone": [{"code": MST, "id": "mst"}],
     "gy": [{"code": SUMMONED_SKULL, "id": "skull"}, {"code": CALL_OF_THE_HAUNTED, "id": "call"}],
     "deck": [{"code": YAMI, "id": "yami"}, {"code": CELTIC, "id": "deck_celtic"}],
     "extra": [{"code": STARDUST, "id": "stardust"}]},
    {"mzone": [{"code": SHEEP_TOKEN, "id": "sheep"}], "fzone": {"code": MPZ, "id": "p1_mpz"}})


@pytest.mark.parametrize("event, card, where", [
    pytest.param(moved("odd", [0, "extra"], "destroyed"), "odd", ("extra", "faceup"), id="pend-05-to-extra"),
    pytest.param(moved("odd", [0, "gy"], "negated"), "odd", ("gy", None), id="pend-04-negated-to-gy"),
    pytest.param(moved("odd_hand", [0, "gy"], "discarded"), "odd_hand", ("gy", None), id="term-07-discard"),
    pytest.param(moved("celtic", [0, "gy"], "tributed"), "celtic", ("gy", None), id="sum-06-tribute"),
    pytest.param(moved("mat", [0, "gy"], "detached"), "mat", ("gy", None), id="xmat-01-detach"),
    pytest.param(moved("skull", [0, "overlay", 1], "attached"), "skull", ("overlay", None),
                 id="xmat-01-attach"),
    pytest.param(moved("skull", [0, "mzone", 3], position="defense"), "skull", ("mzone", "defense"),
                 id="pos-01-defense"),
    pytest.param(moved("call", [0, "szone", 2]), "call", ("szone", "faceup"), id="zone-08-free-zone"),
    pytest.param(moved("yami", [0, "fzone", 0], "added"), "yami", ("fzone", "faceup"),
                 id="zone-10-field-spell"),
    pytest.param(moved("decode", [0, "extra"], "returned"), "decode", ("extra", "facedown"),
                 id="zone-12-back-to-extra"),
    pytest.param(moved("celtic", [0, "gy"], source=[0, "mzone", 0]), "celtic", ("gy", None),
                 id="log-02-right-source"),
])
def test_card_moved_basic_rules_allow(event, card, where):
    """PEND-05, PEND-04, TERM-07, SUM-06, XMAT-01, POS-01, ZONE-08, ZONE-10, ZONE-12: moves the
    basic rules allow land where they say."""
    state = fold(MOVE_BOARD, event)
    assert (state.cards[card].zone, state.cards[card].position) == where
    if where[0] == "overlay":
        assert state.cards["utopia"].materials == ["mat", "skull"]


@pytest.mark.parametrize("event, rule, says", [
    pytest.param(moved("odd", [0, "gy"], "destroyed"), "PEND-05", "face-up to the Extra Deck",
                 id="pend-05-pendulum-from-field-to-gy"),
    pytest.param(moved("celtic", [0, "gy"], "discarded"), "TERM-07", "only a card in the hand",
                 id="term-07-discard-from-field"),
    pytest.param(moved("vorse", [0, "gy"], "tributed"), "SUM-06", "a Tribute is a monster on the field",
                 id="sum-06-tribute-from-hand"),
    pytest.param(moved("skull", [0, "banished"], "detached"), "XMAT-01", "only an Xyz material",
                 id="xmat-01-detach-non-material"),
    pytest.param(moved("skull", [0, "overlay", 0], "attached"), "XMAT-01", "holds none",
                 id="xmat-01-attach-under-non-xyz"),
    pytest.param(moved("sheep", [0, "overlay", 1], "attached"), "XYZ-02", "Token cannot become",
                 id="xyz-02-attach-token"),
    pytest.param(moved("skull", [0, "mzone", 3], position="faceup"), "POS-01", "not a battle position",
                 id="pos-01-monster-faceup-position"),
    pytest.param(moved("call", [0, "szone", 0]), "ZONE-08", "holds mst", id="zone-08-occupied-st-zone"),
    pytest.param(moved("call", [0, "szone", 5]), "ZONE-08", "does not exist", id="zone-08-st-zone-5"),
    pytest.param(moved("call", [0, "fzone", 0]), "ZONE-10", "only a Field Spell", id="zone-10-trap-to-fzone"),
    pytest.param(moved("yami", [1, "fzone", 0]), "ZONE-10", "Field Zone is occupied",
                 id="zone-10-occupied-fzone"),
    pytest.param(moved("decode", [0, "hand"], "returned"), "ZONE-12", "returns to the Extra Deck",
                 id="zone-12-link-to-hand"),
    pytest.param(moved("stardust", [0, "deck"], "shuffled"), "ZONE-12", "not the deck",
                 id="zone-12-synchro-to-deck"),
    pytest.param(moved("skull", [0, "mzone"]), "LOG-05", "names the zone index", id="log-05-mzone-no-index"),
    pytest.param(moved("skull", [0, "gy"]), "LOG-02", "already in the gy", id="log-02-already-there"),
    pytest.param(moved("celtic", [0, "gy"], source=[0, "mzone", 2]), "LOG-02", "not [0, 'mzone', 2]",
                 id="log-02-wrong-source"),
    pytest.param(moved("skull", [0, "mzone", 0]), "ZONE-01", "holds celtic", id="zone-01-occupied-monster-zone"),
    pytest.param(moved("mst_hand", [0, "mzone", 3]), "ZONE-03", "not a monster", id="zone-03-spell-to-mzone"),
    pytest.param(moved("skull", [0, "mzone", 6]), "ZONE-03", "not coming from the Extra Deck",
                 id="zone-03-gy-monster-to-emz"),
])
def test_card_moved_basic_rules_refuse(event, rule, says):
    """PEND-05, TERM-07, SUM-06, XMAT-01, XYZ-02, POS-01, ZONE-08/10/12, LOG-02/05: moves the
    basic rules forbid."""
    check_refused([MOVE_BOARD, event], rule, says)


@pytest.mark.parametrize("event, rule", [
    pytest.param(moved("call", [1, "fzone", 0]), "ZONE-10", id="zone-10-cited-fzone-taken"),
    pytest.param(moved("mst_hand", [0, "mzone", 0]), "ZONE-01", id="zone-03-cited-zone-taken"),
    pytest.param(moved("mst_hand", [0, "mzone", 3], position="faceup"), "POS-01", id="zone-03-cited-bad-position"),
])
def test_gen_01_cited_but_impossible_move_records_no_override(event, rule):
    """GEN-01: a cited move whose destination cannot take the card records no override."""
    refused_without_override([MOVE_BOARD, {**event, "cite": "effect"}], rule)


# -- TOKEN-01/02: tokens --------------------------------------------------------------------------

TOKEN = {"kind": "token_created", "player": 0, "card": "p0.t1", "code": SHEEP_TOKEN, "zone": 3,
         "position": "defense", "cause": "scapegoat"}


@pytest.mark.parametrize("to", [[0, "gy"], [0, "hand"], [0, "banished"]])
def test_token_02_token_vanishes_off_the_field(to):
    """TOKEN-01, TOKEN-02: a token occupies a Monster Zone and ceases to exist when it leaves."""
    state = fold(MOVE_BOARD, TOKEN)
    assert state.sides[0].mzone[3] == "p0.t1" and state.cards["p0.t1"].position == "defense"
    state = fold(MOVE_BOARD, TOKEN, moved("p0.t1", to))
    assert "p0.t1" not in state.cards and state.sides[0].mzone[3] is None
    assert "p0.t1" not in state.sides[to[0]].gy + state.sides[to[0]].hand + state.sides[to[0]].banished


@pytest.mark.parametrize("event, rule, says", [
    pytest.param({**TOKEN, "code": CELTIC}, "TOKEN-01", "is not a Token", id="not-a-token"),
    pytest.param({**TOKEN, "zone": 5}, "ZONE-03", "Main Monster Zone", id="token-in-emz"),
    pytest.param({**TOKEN, "zone": 0}, "SPS-03", "holds celtic", id="occupied-zone"),
])
def test_token_01_zone_03_token_created_refused(event, rule, says):
    """TOKEN-01, ZONE-03, SPS-03: only a Token card, into a free Main Monster Zone (a Token is
    Special Summoned: a taken zone is SPS-03)."""
    check_refused([MOVE_BOARD, event], rule, says)


# -- stats, counters: LINK-05, CARD-07, COUNTER-01 ---------------------------------------------------

def stats(card: str, **values) -> dict:
    return {"kind": "stats_changed", "card": card, "cause": "effect", **values}


def counters(card: str, count: int, counter: str = "spell") -> dict:
    return {"kind": "counters_changed", "card": card, "counter": counter, "count": count, "cause": "effect"}


@pytest.mark.parametrize("event, card, expect", [
    pytest.param(stats("decode", atk=2800), "decode", (2800, None, None), id="link-atk"),
    pytest.param(stats("utopia", atk=3000, defense=2500), "utopia", (3000, 2500, None), id="xyz-atk-def"),
    pytest.param(stats("celtic", atk=-300, level=3), "celtic", (0, None, 3), id="atk-floor-0-level"),
])
def test_link_05_card_07_stats_changed_sets_current_values(event, card, expect):
    """LINK-05, CARD-07: a Link monster's ATK and an Xyz monster's ATK/DEF can change; ATK is at least 0."""
    state = fold(MOVE_BOARD, event)
    c = state.cards[card]
    assert (c.atk, c.defense, c.level) == expect


@pytest.mark.parametrize("event, rule, says", [
    pytest.param(stats("decode", defense=1000), "LINK-05", "no Level or DEF", id="link-def"),
    pytest.param(stats("decode", level=4), "LINK-05", "no Level or DEF", id="link-level"),
    pytest.param(stats("utopia", level=4), "CARD-07", "has a Rank, not a Level", id="xyz-level"),
])
def test_link_05_card_07_stats_change_refused(event, rule, says):
    """LINK-05, CARD-07: Link monsters have no DEF or Level; Xyz monsters have a Rank, not a Level."""
    check_refused([MOVE_BOARD, event], rule, says)


def test_counter_01_counters_on_a_card_on_the_field():
    """COUNTER-01: counters are placed on a face-up card on the field (the Set MST takes none:
    tests/test_rule_scenarios_34.py), and removed down to none."""
    state = fold(MOVE_BOARD, counters("p1_mpz", 2), counters("celtic", 1, "a"))
    assert state.cards["p1_mpz"].counters == {"spell": 2} and state.cards["celtic"].counters == {"a": 1}
    state = fold(MOVE_BOARD, counters("p1_mpz", 2), counters("p1_mpz", 0))
    assert state.cards["p1_mpz"].counters == {}


@pytest.mark.parametrize("event, rule, says", [
    pytest.param(counters("vorse", 1), "COUNTER-01", "is in the hand", id="card-in-hand"),
    pytest.param(counters("skull", 1), "COUNTER-01", "is in the gy", id="card-in-gy"),
    pytest.param(counters("mst", -1), "LOG-05", "0 or more", id="negative"),
])
def test_counter_01_counters_refused(event, rule, says):
    """COUNTER-01, LOG-05: no counters off the field, and no negative count."""
    check_refused([MOVE_BOARD, event], rule, says)


# -- ZONE-14: LP are stated correctly ----------------------------------------------------------------

def lp(amount: int, reason: str, result: int | None = None, player: int = 0) -> dict:
    event = {"kind": "life_points_changed", "player": player, "amount": amount, "reason": reason}
    return event if result is None else {**event, "lp": result}


@pytest.mark.parametrize("event, result", [
    pytest.param(lp(1000, "effect_damage", 7000), 7000, id="effect-damage"),
    pytest.param(lp(800, "cost", 7200), 7200, id="cost"),
    pytest.param(lp(500, "gain", 8500), 8500, id="gain"),
    pytest.param(lp(4000, "set", 4000), 4000, id="set"),
    pytest.param(lp(9000, "effect_damage"), 0, id="floor-at-0"),
])
def test_zone_14_lp_change_stated_correctly(event, result):
    """ZONE-14: the LP after a change, when stated, are the LP the change leaves."""
    state = fold(MOVE_BOARD, event)
    assert state.sides[0].lp == result
    assert (0 in state.must_lose) == (result == 0)                # WIN-01


@pytest.mark.parametrize("event, rule, says", [
    pytest.param(lp(1000, "effect_damage", 7500), "ZONE-14", "has 7000 LP after this change, not 7500",
                 id="wrong-lp"),
    pytest.param(lp(500, "gain", 7500), "ZONE-14", "has 8500 LP", id="gain-as-loss"),
    pytest.param(lp(-100, "effect_damage"), "LOG-05", "amount is positive", id="negative-amount"),
    pytest.param({"kind": "coin_tossed", "results": []}, "LOG-05", "at least one result", id="no-coin"),
    pytest.param({"kind": "die_rolled", "results": [3, 7]}, "LOG-05", "a die shows 1 to 6", id="die-7"),
])
def test_zone_14_lp_and_random_results_refused(event, rule, says):
    """ZONE-14, LOG-05: wrongly stated LP, a negative amount, impossible coin and die results."""
    check_refused([MOVE_BOARD, event], rule, says)


# -- zone_changed: a card moved to another zone of its row (ZONE-01..05, ZONE-08/09, ZONE-16) --------

def to_zone(card: str, zone: int, cause: str | None = "mover", **fields) -> dict:
    event = {"kind": "zone_changed", "card": card, "zone": zone, **fields}
    return event if cause is None else {**event, "cause": cause}


SHIFT_BOARD = position(
    {"mzone": zones((0, {"code": UTOPIA, "id": "utopia", "summoned": True, "counters": {"a": 1},
                         "materials": [{"code": CELTIC, "id": "mat1"}, {"code": VORSE, "id": "mat2"}]}),
                    (1, {"code": CELTIC, "id": "celtic", "position": "set"}),
                    (2, {"code": BATTLE_OX, "id": "ox"})),
     "szone": [{"code": MST, "id": "mst", "position": "set"}, None, {"code": CALL_OF_THE_HAUNTED, "id": "call"}],
     "hand": [{"code": VORSE, "id": "vorse"}], "extra": [{"code": STARDUST, "id": "stardust"}]},
    {"mzone": zones((5, {"code": DECODE_TALKER, "id": "p1_decode"}))})


def test_zone_16_a_monster_moved_to_another_zone_stays_the_same_card():
    """ZONE-16: moved to another of its controller's Monster Zones by an effect, a monster does
    not leave the field: it keeps its summon, position, counters and materials."""
    state = fold(SHIFT_BOARD, to_zone("utopia", 4), to_zone("celtic", 3))
    side = state.sides[0]
    assert side.mzone == [None, None, "ox", "celtic", "utopia"]
    utopia = state.cards["utopia"]
    assert (utopia.summoned_turn, utopia.counters, utopia.materials) == (2, {"a": 1}, ["mat1", "mat2"])
    assert state.cards["celtic"].position == "set" and state.location(utopia) == (0, "mzone", 4)
    assert state.overrides == [] and utopia.field_exits == 0


def test_zone_04_an_extra_deck_monster_moves_into_and_out_of_an_extra_monster_zone():
    """ZONE-04: the Extra Monster Zone player 1 does not use is free to an Extra Deck monster
    moved there (player 0's zone 6 is player 1's 5, which holds their Decode Talker)."""
    state = fold(SHIFT_BOARD, to_zone("utopia", 5))
    assert state.emz == ["utopia", "p1_decode"] and state.sides[0].mzone[0] is None
    state = fold(SHIFT_BOARD, to_zone("utopia", 5), to_zone("utopia", 3))
    assert state.emz == [None, "p1_decode"] and state.sides[0].mzone[3] == "utopia"


def test_zone_08_a_spell_trap_moved_to_another_spell_trap_zone():
    """ZONE-08: a Set card moved to another free Spell & Trap Zone stays Set (and when it was)."""
    state = fold(SHIFT_BOARD, to_zone("mst", 3))
    assert state.sides[0].szone[:4] == [None, None, "call", "mst"]
    assert state.cards["mst"].position == "set"


@pytest.mark.parametrize("event, rule, says", [
    pytest.param(to_zone("utopia", 2), "ZONE-01", "holds ox already", id="ZONE-01-occupied"),
    pytest.param(to_zone("utopia", 6), "ZONE-01", "holds p1_decode already", id="ZONE-01-opponents-emz"),
    pytest.param(to_zone("utopia", 7), "ZONE-01", "does not exist", id="ZONE-01-zone-7"),
    pytest.param(to_zone("utopia", 0), "LOG-02", "in mzone 0 already", id="LOG-02-same-zone"),
    pytest.param(to_zone("vorse", 3), "LOG-02", "is in the hand", id="LOG-02-not-on-the-field"),
    pytest.param(to_zone("mst", 2), "ZONE-08", "holds call already", id="ZONE-08-occupied"),
    pytest.param(to_zone("mst", 5), "ZONE-08", "does not exist", id="ZONE-08-no-zone-5"),
])
def test_zone_changed_impossible_moves_refused(event, rule, says):
    """ZONE-01/08: the zone exists and is free; LOG-02: the card is on the field, elsewhere."""
    check_refused([SHIFT_BOARD, event], rule, says)
    refused_without_override([SHIFT_BOARD, event], rule)


@pytest.mark.parametrize("event, rule, says", [
    pytest.param(to_zone("ox", 3, cause=None), "GEN-01", "an effect does", id="GEN-01-uncited"),
    pytest.param(to_zone("ox", 5), "ZONE-03", "not an Extra Deck monster", id="ZONE-03-main-deck-to-emz"),
])
def test_zone_changed_basic_rules_refused(event, rule, says):
    """GEN-01: no basic rule moves a card on the field, an effect does; ZONE-03: an Extra Monster
    Zone is for Extra Deck monsters (a cited effect may say otherwise)."""
    check_refused([SHIFT_BOARD, event], rule, says)


def test_zone_04_a_second_extra_monster_zone_by_moving_refused():
    """ZONE-04: a player using one Extra Monster Zone does not take the other by moving a monster."""
    board = position({"mzone": zones((0, {"code": UTOPIA, "id": "utopia"}), (5, {"code": STARDUST, "id": "sd"}))}, {})
    check_refused([board, to_zone("utopia", 6)], "ZONE-04", "already uses an Extra Monster Zone (sd)")


def test_zone_09_a_card_that_is_no_pendulum_is_not_moved_into_a_pendulum_zone():
    """ZONE-09, CONF-09: under Master Rule 3, S/T 5 and 6 are the separate Pendulum Zones."""
    board = position({"szone": [{"code": MST, "id": "mst"}]}, {}, ruleset="mr3")
    check_refused([board, to_zone("mst", 5)], "ZONE-09", "only a Pendulum card goes there")
    scale = position({"szone": [None] * 5 + [{"code": STARGAZER, "id": "sg"}]}, {}, ruleset="mr3")
    state = fold(scale, to_zone("sg", 6))
    assert state.sides[0].szone[5:] == [None, "sg"]


# -- NIS-05: an Xyz monster's materials follow it to the GY -----------------------------------------

XYZ_BOARD = position(
    {"mzone": [{"code": UTOPIA, "id": "utopia", "materials": [{"code": CELTIC, "id": "mat1"},
                                                              {"code": VORSE, "id": "mat2"}]},
               {"code": BATTLE_OX, "id": "ox"}, {"code": CELTIC, "id": "celtic"}],
     "gy": [{"code": SUMMONED_SKULL, "id": "skull"}],
     "extra": [{"code": DECODE_TALKER, "id": "decode"}]}, {})


@pytest.mark.parametrize("events, gy", [
    pytest.param([moved("utopia", [0, "gy"], "destroyed")], ["skull", "utopia", "mat1", "mat2"],
                 id="destroyed"),
    pytest.param([moved("utopia", [0, "banished"], "banished")], ["skull", "mat1", "mat2"], id="banished"),
    pytest.param([{"kind": "special_summoned", "player": 0, "card": "decode", "zone": 5, "method": "link",
                   "materials": ["utopia", "ox", "celtic"]}],
                 ["skull", "utopia", "ox", "celtic", "mat1", "mat2"], id="link-materials-then-theirs"),
    pytest.param([moved("utopia", [0, "gy"], "destroyed", with_next=True), moved("ox", [0, "gy"], "destroyed")],
                 ["skull", "utopia", "ox", "mat1", "mat2"], id="one-group-then-theirs"),
    pytest.param([moved("utopia", [0, "gy"], "destroyed", with_next=True), moved("ox", [0, "gy"], "destroyed",
                  with_next=True), moved("mat1", [0, "banished"], "banished")],
                 ["skull", "utopia", "ox", "mat2"], id="a-waiting-material-moved-by-the-group"),
])
def test_nis_05_materials_reach_the_gy_after_the_monsters_that_left(events, gy):
    """NIS-05, ZONE-13: the materials of an Xyz monster that leaves the field go to the GY after
    every card the same event moved, in their order (the engine sends the monsters first)."""
    state = fold(XYZ_BOARD, *events)
    assert state.sides[0].gy == gy
    assert all(state.cards[m].zone in ("gy", "banished") and state.cards[m].host is None for m in ("mat1", "mat2"))
    assert state.shed == []


def test_nis_05_materials_wait_for_the_whole_group():
    """NIS-05: while a group of cards moved ``with_next`` is still moving, the materials of the
    Xyz monster it took off the field are in no pile (EDOPro keeps them under the monster in the
    GY, ``operations.cpp`` send_to step 10); the group's last card brings them to the GY."""
    state = fold(XYZ_BOARD, moved("utopia", [0, "gy"], "destroyed", with_next=True))
    assert state.sides[0].gy == ["skull", "utopia"] and state.shed == ["mat1", "mat2"]
    assert state.cards["utopia"].materials == []


def test_nis_05_a_snapshot_taken_inside_a_group_keeps_the_waiting_materials():
    """NIS-05: a stored duel resumes from a snapshot (every 32 events): one taken between two
    moves of a group holds the materials still waiting, so the fold resumed from it ends as
    the whole fold does, the materials in the GY after the group."""
    from ygoreplay.events import from_dict
    from ygoreplay.rules import apply
    from ygoreplay.state import DuelState
    group = [moved("utopia", [0, "gy"], "destroyed", with_next=True), moved("ox", [0, "gy"], "destroyed")]
    whole = fold(XYZ_BOARD, *group)
    half = fold(XYZ_BOARD, group[0])
    resumed = DuelState.from_data(msgpack.unpackb(msgpack.packb(half.to_data())), half.db)
    apply(resumed, from_dict(group[1]))
    assert resumed.to_data() == whole.to_data() and whole.sides[0].gy[-2:] == ["mat1", "mat2"]


def test_log_03_a_group_ends_with_a_card_moved():
    """LOG-03: ``with_next`` says the next event moves a card of the same group; any other kind
    is refused (audited, the materials reach the GY there, NIS-05)."""
    check_refused([XYZ_BOARD, moved("utopia", [0, "gy"], "destroyed", with_next=True),
                   {"kind": "position_changed", "player": 0, "card": "ox", "position": "defense"}],
                  "LOG-03", "said the next card moved with it")


# -- cards_swapped: two cards trade places (CTRL-02, ZONE-16) ----------------------------------

def swap(card: str, other: str, cause: str | None = "swap") -> dict:
    event = {"kind": "cards_swapped", "card": card, "other": other}
    return event if cause is None else {**event, "cause": cause}


def test_ctrl_02_two_monsters_switch_control_in_one_step():
    """CTRL-02: Creature Swap: each monster goes to the other's controller and zone at once (no
    zone is free for either on its own); each keeps its position, summon and materials."""
    state = fold(CONTROL_BOARD, swap("celtic", "utopia"))
    celtic, utopia = state.cards["celtic"], state.cards["utopia"]
    assert state.location(celtic)[:] == (1, "mzone", 1) and state.location(utopia)[:] == (0, "mzone", 0)
    assert (celtic.owner, utopia.owner) == (0, 1)
    assert len(utopia.materials) == 2 and all(state.cards[m].host == "utopia" for m in utopia.materials)
    assert state.sides[0].gy == [] and state.overrides == []
    back = fold(CONTROL_BOARD, swap("celtic", "utopia"), moved("utopia", [1, "gy"], "destroyed", cause="swap"))
    assert back.sides[1].gy[:1] == ["utopia"] and len(back.sides[1].gy) == 3     # CTRL-03, NIS-05


def test_zone_16_two_monsters_of_one_player_trade_zones():
    """ZONE-16: "swap the zones of two monsters you control": both stay on the field, the same
    cards, in each other's zone; Set cards trade Spell & Trap Zones the same way."""
    state = fold(SHIFT_BOARD, swap("utopia", "ox"), swap("mst", "call"))
    assert state.sides[0].mzone == ["ox", "celtic", "utopia", None, None]
    assert state.cards["utopia"].summoned_turn == 2 and state.cards["utopia"].materials == ["mat1", "mat2"]
    assert state.sides[0].szone[:3] == ["call", None, "mst"] and state.cards["mst"].position == "set"


@pytest.mark.parametrize("event, rule, says", [
    pytest.param(swap("celtic", "p1_vorse"), "CTRL-02", "is in the hand", id="CTRL-02-card-in-hand"),
    pytest.param(swap("celtic", "call"), "LOG-02", "zones of the same kind", id="LOG-02-monster-and-trap"),
    pytest.param(swap("ox", "ox"), "LOG-02", "with itself", id="LOG-02-itself"),
    pytest.param(swap("mpz", "yami"), "CTRL-02", "Monster or Spell & Trap Zones", id="CTRL-02-field-zone"),
])
def test_cards_swapped_impossible_swaps_refused(event, rule, says):
    """CTRL-02, LOG-02: only two different cards on the field, in zones of the same kind, trade places."""
    check_refused([CONTROL_BOARD, event], rule, says)
    refused_without_override([CONTROL_BOARD, event], rule)


@pytest.mark.parametrize("board, event, rule, says", [
    pytest.param(CONTROL_BOARD, swap("celtic", "ox", cause=None), "GEN-01", "an effect does", id="GEN-01-uncited"),
    pytest.param(SHIFT_BOARD, swap("ox", "p1_decode"), "ZONE-03", "does not go to an Extra Monster Zone",
                 id="ZONE-03-main-deck-monster-to-emz"),
])
def test_cards_swapped_basic_rules_refused(board, event, rule, says):
    """GEN-01: no basic rule swaps cards, an effect does; ZONE-03: a Main Deck monster does not
    land in an Extra Monster Zone by trading places (a cited effect may say otherwise)."""
    check_refused([board, event], rule, says)


# -- set_cards_shuffled: Set cards shuffled among their zones (ZONE-16, LOG-02) ----------------------

def shuffle(cards: list[str], zones: list[int], cause: str | None = "shifting") -> dict:
    event = {"kind": "set_cards_shuffled", "cards": cards, "zones": zones}
    return event if cause is None else {**event, "cause": cause}


SHUFFLE_BOARD = position(
    {"mzone": zones((0, {"code": CELTIC, "id": "a", "position": "set"}), (1, {"code": VORSE, "id": "up"}),
                    (2, {"code": BATTLE_OX, "id": "b", "position": "set"}),
                    (3, {"code": VORSE, "id": "c", "position": "set", "counters": {"a": 1}})),
     "szone": [{"code": MST, "id": "mst", "position": "set"}, {"code": CALL_OF_THE_HAUNTED, "id": "call",
                                                                "position": "set"}]},
    {"mzone": zones((0, {"code": CELTIC, "id": "theirs", "position": "set"}))})


def test_zone_16_set_cards_shuffled_among_their_zones_all_at_once():
    """ZONE-16: three Set monsters shuffled in a cycle, no zone free between them: each is in its
    new zone, still Set, the same card (its counters kept); the face-up monster stays put. Set
    Spells and Traps shuffle the same way."""
    state = fold(SHUFFLE_BOARD, shuffle(["a", "b", "c"], [2, 3, 0]), shuffle(["mst", "call"], [1, 0]))
    side = state.sides[0]
    assert side.mzone == ["c", "up", "a", "b", None]
    assert state.cards["c"].counters == {"a": 1} and state.cards["a"].position == "set"
    assert side.szone[:2] == ["call", "mst"] and state.overrides == []


def test_zone_16_a_shuffle_of_set_cards_one_of_them_taken_from_the_opponent():
    """ZONE-16, CTRL-02: player 0 took the opponent's Set monster (zone 4) and shuffles it with
    its own Set card: both stay on player 0's side, the taken one still the opponent's card, and
    a Trap Set this turn is still one Set this turn (TRAP-02 goes on applying)."""
    taken = {"kind": "control_changed", "card": "theirs", "to_player": 0, "zone": 4, "cause": "heart"}
    state = fold(SHUFFLE_BOARD, taken, shuffle(["theirs", "a"], [0, 4]))
    assert state.sides[0].mzone == ["theirs", "up", "b", "c", "a"] and state.sides[1].mzone == [None] * 5
    theirs = state.cards["theirs"]
    assert (theirs.controller, theirs.owner, theirs.position) == (0, 1, "set")
    trap = {"kind": "spell_trap_set", "card": "p0_trap", "zone": 2}
    board = position({"szone": [{"code": MST, "id": "mst", "position": "set"}], "hand": [{"code": CALL_OF_THE_HAUNTED,
                                                                                       "id": "p0_trap"}]}, {})
    check_refused([board, trap, shuffle(["mst", "p0_trap"], [2, 0]),
                   {"kind": "activated", "card": "p0_trap", "player": 0}], "TRAP-02", "Set this turn")


@pytest.mark.parametrize("event, says", [
    pytest.param(shuffle(["a", "b"], [2, 4]), "not [2, 4]", id="a-zone-they-do-not-hold"),
    pytest.param(shuffle(["a", "theirs"], [0, 0]), "one player's cards within one row", id="two-players"),
    pytest.param(shuffle(["a", "mst"], [0, 0]), "one player's cards within one row", id="two-rows"),
    pytest.param(shuffle(["a", "a"], [0, 2]), "each card once", id="a-card-twice"),
    pytest.param(shuffle(["a", "b"], [2]), "one zone per card", id="zones-missing"),
])
def test_log_02_impossible_shuffles_refused(event, says):
    """LOG-02: a shuffle moves one player's cards within one row, among the zones they hold."""
    check_refused([SHUFFLE_BOARD, event], "LOG-02", says)
    refused_without_override([SHUFFLE_BOARD, event], "LOG-02")


@pytest.mark.parametrize("event, rule, says", [
    pytest.param(shuffle(["a", "up"], [1, 0]), "LOG-02", "is face-up: only Set cards", id="LOG-02-face-up"),
    pytest.param(shuffle(["a", "b"], [2, 0], cause=None), "GEN-01", "an effect does", id="GEN-01-uncited"),
])
def test_set_cards_shuffled_basic_rules_refused(event, rule, says):
    """LOG-02: only Set cards are shuffled (a face-up card's place is public); GEN-01: only an
    effect shuffles them."""
    check_refused([SHUFFLE_BOARD, event], rule, says)
