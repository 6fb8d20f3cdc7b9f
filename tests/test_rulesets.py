"""Rule sets: Master Rule 3 (``mr3``), the New Master Rule (``nmr2017``) and its April 2020
revision (``mr2020``), named in a duel's first event (RULES.md §24, NIS-01, CONF-03/08/09/10).

One test for each difference (ygoreplay/rulesets.py has the table): whether Extra Monster Zones
exist, where each kind of Extra Deck monster may be placed, whether the Pendulum Zones are
separate (MR3: S/T indexes 5 and 6) or the outer S/T zones, whether Link Summons exist; and the
rules the three share, checked under each: the first player's first draw, Field Spell replacement.
"""
from __future__ import annotations

from typing import Any

import pytest
from duel import (
    CELTIC, DARK_PALADIN, DECODE_TALKER, LINK_SPIDER, MPZ, MST, ODD_EYES, STARDUST, STARGAZER, TIMEGAZER,
    UTOPIA, YAMI, fold, position)
from test_rules_turn import draw, phase, refused_as, register, turn_started

from ygoreplay import events as ev
from ygoreplay.rules.zones import pendulum_zones
from ygoreplay.rulesets import DEFAULT_RULESET, RULESETS
from ygoreplay.state import DuelState

ALL = ("mr2020", "nmr2017", "mr3")
PROXY_DRAGON, FLASH_KNIGHT = 22862454, 17390179


def c(code: int, card_id: str, **flags: Any) -> dict:
    return {"code": code, "id": card_id, **flags}


def scales_at(ruleset: str) -> list:
    """Stargazer (Scale 1) and Timegazer (Scale 8) in the rule set's Pendulum Zones."""
    left, right = RULESETS[ruleset].pendulum_zones
    szone: list = [None] * RULESETS[ruleset].spell_trap_zone_count
    szone[left], szone[right] = c(STARGAZER, "stargazer"), c(TIMEGAZER, "timegazer")
    return szone


def ss(card: str, zone: int, method: str = "effect", **fields: Any) -> dict:
    return {"kind": "special_summoned", "card": card, "zone": zone, "method": method, **fields}


def test_the_rule_sets_are_the_ones_events_name() -> None:
    assert tuple(RULESETS) == ev.RULESETS and DEFAULT_RULESET == "mr2020"
    assert fold(position({}, {})).ruleset == "mr2020"
    state = fold({"kind": "duel_started", "first_player": 0})
    assert state.ruleset == "mr2020" and len(state.sides[0].szone) == 5


@pytest.mark.parametrize("ruleset", ALL)
def test_the_first_event_names_the_rule_set(ruleset: str) -> None:
    """The duel's first event (duel_started or position_set_up) chooses the rule set; a side has
    7 S/T slots under MR3 (5 and 6 are the Pendulum Zones) and 5 otherwise; snapshots keep them."""
    for first in ({"kind": "duel_started", "first_player": 0, "ruleset": ruleset}, position({}, {}, ruleset=ruleset)):
        state = fold(first)
        assert state.ruleset == ruleset
        assert [len(s.szone) for s in state.sides] == [RULESETS[ruleset].spell_trap_zone_count] * 2
        again = DuelState.from_data(state.to_data(), state.db)
        assert [len(s.szone) for s in again.sides] == [len(s.szone) for s in state.sides]


# -- Extra Monster Zones exist or not (MR-04, ZONE-01/02) -----------------------------------------------

@pytest.mark.parametrize("ruleset, rule", [("mr2020", None), ("nmr2017", None), ("mr3", "ZONE-02")])
def test_zone_02_extra_monster_zones_exist_from_the_new_master_rule(ruleset: str, rule: str | None) -> None:
    """MR-04: the New Master Rule added the two Extra Monster Zones; MR3 has 5 monster zones."""
    board = position({"extra": [c(STARDUST, "stardust")]}, {}, ruleset=ruleset)
    if rule is None:
        assert fold(board, ss("stardust", 5)).emz == ["stardust", None]
    else:
        refused_as(rule, "no Extra Monster Zones under Master Rule 3", board, ss("stardust", 5))


@pytest.mark.parametrize("ruleset", ALL)
def test_zone_01_a_set_up_uses_the_rule_sets_monster_zones(ruleset: str) -> None:
    mzone = [c(CELTIC, f"c{i}") for i in range(5)] + [c(DECODE_TALKER, "decode")]
    board = position({"mzone": mzone}, {}, ruleset=ruleset)
    if RULESETS[ruleset].extra_monster_zones:
        assert fold(board).monster_count(0) == 6
    else:
        refused_as("ZONE-01", "lists 6 monster zones", board)


# -- Extra Deck placement per kind (ZONE-03/06/07, NIS-01, CONF-10) ------------------------------------------

def placement(ruleset: str) -> dict:
    """Proxy Dragon in Main Monster Zone 2 points to 1 and 3; zone 0 is free and not linked."""
    return position({"mzone": [None, None, c(PROXY_DRAGON, "proxy"), None, c(CELTIC, "celtic")],
                     "szone": scales_at(ruleset),
                     "hand": [c(FLASH_KNIGHT, "knight")],
                     "extra": [c(DARK_PALADIN, "paladin"), c(STARDUST, "stardust"), c(UTOPIA, "utopia"),
                               c(LINK_SPIDER, "spider"), c(ODD_EYES, "odd", position="faceup")]}, {}, ruleset=ruleset)


KINDS = {  # kind: (event into zone, rule under mr2020, nmr2017, mr3 for the unlinked zone 0)
    "fusion": (lambda z: ss("paladin", z), (None, "ZONE-03", None)),
    "synchro": (lambda z: ss("stardust", z), (None, "ZONE-03", None)),
    "xyz": (lambda z: ss("utopia", z), (None, "ZONE-03", None)),
    "link": (lambda z: ss("spider", z, "link", materials=["celtic"]), ("NIS-01", "ZONE-03", "MR-04")),
    "pendulum-from-extra-deck": (lambda z: ss("odd", z, "pendulum"), ("NIS-01", "ZONE-03", None)),
    "pendulum-from-hand": (lambda z: ss("knight", z, "pendulum"), (None, None, None)),
}
UNLINKED = [pytest.param(r, k, rules[i], id=f"{r}-{k}") for k, (_, rules) in KINDS.items() for i, r in enumerate(ALL)]


@pytest.mark.parametrize("ruleset, kind, rule", UNLINKED)
def test_extra_deck_placement_in_an_unlinked_main_monster_zone(ruleset: str, kind: str, rule: str | None) -> None:
    """CONF-10: MR3 places anything anywhere; nmr2017 puts every Extra Deck monster in the EMZ or a
    linked zone (ZONE-03/06); mr2020 frees Fusion, Synchro and Xyz monsters and keeps that for Link
    monsters and face-up Extra Deck Pendulums (NIS-01, ZONE-07). A Pendulum from the hand goes anywhere."""
    event = KINDS[kind][0](0)
    if rule is None:
        assert fold(placement(ruleset), event).sides[0].mzone[0] == event["card"]
    else:
        says = {"NIS-01": "only if a link arrow points to it", "ZONE-03": "only if a link arrow points to it",
                "MR-04": "no Link Summon under Master Rule 3"}[rule]
        refused_as(rule, says, placement(ruleset), event)


@pytest.mark.parametrize("ruleset, kind", [pytest.param(r, k, id=f"{r}-{k}") for k in KINDS for r in ALL
                                           if not (r == "mr3" and k == "link")])
def test_extra_deck_placement_in_a_linked_main_monster_zone(ruleset: str, kind: str) -> None:
    """ZONE-03/06: a zone a link arrow points to is open to every kind, under every rule set."""
    event = KINDS[kind][0](1)
    assert fold(placement(ruleset), event).sides[0].mzone[1] == event["card"]


# -- Pendulum Zones: separate (MR3) or the outer S/T zones (CONF-09, ZONE-08/09, MR-03/04) -------------------

def scale(card: str, zone: int) -> dict:
    return {"kind": "activated", "card": card, "zone": zone}


SCALE_HAND = {"hand": [c(STARGAZER, "stargazer"), c(TIMEGAZER, "timegazer"), c(MST, "mst")]}


@pytest.mark.parametrize("ruleset", ALL)
def test_zone_09_scales_are_activated_into_the_rule_sets_pendulum_zones(ruleset: str) -> None:
    """ZONE-09/PEND-01: 0 and 4 under the New Master Rule; the separate 5 and 6 under MR3 (MR-03)."""
    left, right = pendulum_zones(fold(position({}, {}, ruleset=ruleset)))
    assert (left, right) == ((5, 6) if ruleset == "mr3" else (0, 4))
    state = fold(position(SCALE_HAND, {}, ruleset=ruleset), scale("stargazer", left),
                 {"kind": "chain_link_resolved", "link": 1}, {"kind": "chain_ended"}, scale("timegazer", right))
    assert (state.sides[0].szone[left], state.sides[0].szone[right]) == ("stargazer", "timegazer")


@pytest.mark.parametrize("ruleset, zone, rule, says", [
    ("mr3", 0, "ZONE-09", "the separate zones 5 and 6 (MR-03), not 0"),
    ("mr3", 4, "ZONE-09", "the separate zones 5 and 6 (MR-03), not 4"),
    ("mr2020", 5, "ZONE-08", "Spell & Trap Zone 5 does not exist"),
    ("nmr2017", 6, "ZONE-08", "Spell & Trap Zone 6 does not exist"),
    ("nmr2017", 2, "ZONE-09", "the outer S/T zones 0 and 4, not 2"),
])
def test_zone_09_scales_outside_the_pendulum_zones_refused(ruleset: str, zone: int, rule: str, says: str) -> None:
    refused_as(rule, says, position(SCALE_HAND, {}, ruleset=ruleset), scale("stargazer", zone))


def test_mr_03_the_separate_pendulum_zones_take_only_pendulum_cards() -> None:
    board = position(SCALE_HAND, {}, ruleset="mr3")
    refused_as("ZONE-09", "only a Pendulum card goes there", board, {"kind": "spell_trap_set", "card": "mst", "zone": 5})
    refused_as("ZONE-09", "not a Pendulum card", position({"szone": [None] * 5 + [c(MST, "mst")]}, {}, ruleset="mr3"))


@pytest.mark.parametrize("ruleset, szone, says", [
    ("mr3", [c(STARGAZER, "sg")], "only a Pendulum in a separate Pendulum Zone (5 or 6)"),
    ("mr2020", [None] * 5 + [c(STARGAZER, "sg")], "lists 6 Spell & Trap Zones; there are 5"),
    ("mr3", [None] * 8, "lists 8 Spell & Trap Zones; there are 5 and 2 Pendulum Zones"),
])
def test_zone_09_set_up_scales_only_in_the_rule_sets_pendulum_zones(ruleset: str, szone: list, says: str) -> None:
    refused_as("ZONE-09" if "Pendulum in" in says else "ZONE-08", says, position({"szone": szone}, {}, ruleset=ruleset))


@pytest.mark.parametrize("ruleset", ALL)
def test_pend_03_a_pendulum_summon_reads_the_rule_sets_pendulum_zones(ruleset: str) -> None:
    state = fold(position({"szone": scales_at(ruleset), "hand": [c(FLASH_KNIGHT, "knight")]}, {}, ruleset=ruleset),
                 ss("knight", 2, "pendulum"))
    assert state.sides[0].mzone[2] == "knight" and state.cards["knight"].properly_summoned


@pytest.mark.parametrize("ruleset, free", [("mr3", 5), ("mr2020", 3), ("nmr2017", 3)])
def test_zone_08_pendulum_zones_share_the_five_card_limit_under_the_new_master_rule(ruleset: str, free: int) -> None:
    """ZONE-08/MR-04: under the New Master Rule the S/T and Pendulum Zones hold 5 cards in all; MR3's
    separate Pendulum Zones leave all 5 S/T zones free (MR-03)."""
    hand = [c(MST, f"mst{i}") for i in range(5)]
    board = position({"szone": scales_at(ruleset), "hand": hand}, {}, ruleset=ruleset)
    szone = fold(board).sides[0].szone
    open_zones = [i for i in range(5) if szone[i] is None]
    assert len(open_zones) == free
    sets = [{"kind": "spell_trap_set", "card": f"mst{i}", "zone": z} for i, z in enumerate(open_zones)]
    state = fold(board, *sets)
    assert sum(1 for z in state.sides[0].szone if z is not None) == free + 2
    if free < 5:
        taken = next(i for i in range(5) if i not in open_zones)
        refused_as("ZONE-08", "holds stargazer already" if taken == 0 else "holds timegazer already",
                   board, *sets, {"kind": "spell_trap_set", "card": f"mst{free}", "zone": taken})


# -- Link Summon exists from the New Master Rule (MR-04) ------------------------------------------------------

@pytest.mark.parametrize("ruleset", ALL)
def test_mr_04_link_summons_from_the_new_master_rule(ruleset: str) -> None:
    board = position({"mzone": [c(CELTIC, "celtic")], "extra": [c(LINK_SPIDER, "spider")]}, {}, ruleset=ruleset)
    zone = 5 if RULESETS[ruleset].extra_monster_zones else 1
    event = ss("spider", zone, "link", materials=["celtic"])
    if RULESETS[ruleset].link_summon:
        assert fold(board, event).cards["spider"].properly_summoned
    else:
        refused_as("MR-04", "no Link Summon under Master Rule 3", board, event)


# -- shared by all three: no first draw (SETUP-04, CONF-08), Field Spell replacement (SPELL-11, CONF-03) --------

@pytest.mark.parametrize("ruleset", ALL)
def test_setup_04_the_first_player_skips_the_first_draw_under_every_rule_set(ruleset: str) -> None:
    """MR-03 onward (CONF-08): the player going first does not draw on turn 1; the other player draws."""
    assert RULESETS[ruleset].first_player_skips_draw
    opening = [{"kind": "duel_started", "first_player": 0, "ruleset": ruleset}, register(0), register(1),
               draw(0, 5), draw(1, 5)]
    refused_as("SETUP-04", "does not draw on the first turn", *opening, turn_started(0, 1), phase("draw"), draw(0))
    state = fold(*opening, turn_started(0, 1), phase("draw"), phase("standby"), phase("main1"), phase("end"),
                 turn_started(1, 2), phase("draw"), draw(1))
    assert len(state.sides[1].hand) == 6 and len(state.sides[0].hand) == 5


FIELD = ({"fzone": c(MPZ, "mpz"), "hand": [c(YAMI, "yami"), c(MPZ, "mpz2")]}, {"fzone": c(YAMI, "p1_yami")})


@pytest.mark.parametrize("ruleset", ALL)
@pytest.mark.parametrize("play", [
    pytest.param({"kind": "activated", "card": "yami", "field_zone": True}, id="activated"),
    pytest.param({"kind": "spell_trap_set", "card": "yami", "field_zone": True}, id="set"),
])
def test_spell_11_a_new_field_spell_sends_your_old_one_to_the_gy(ruleset: str, play: dict) -> None:
    """SPELL-11/CONF-03 (MR3 and later): one Field Spell per player; playing another sends your old
    one to the GY (not destroyed); the opponent's stays."""
    assert RULESETS[ruleset].field_spell_replacement == "send_own"
    state = fold(position(*FIELD, ruleset=ruleset), play)
    assert state.sides[0].fzone == "yami" and state.sides[0].gy == ["mpz"]
    assert state.sides[1].fzone == "p1_yami" and state.sides[1].gy == []
