"""Rule scenarios for the catalogue IDs no other test cited (issue 25, ninth pass).

One scenario per game rule the fold enforces, or follows under another ID: the legal play is
accepted (and its effect on the board asserted), the illegal one is refused with the rule that
forbids it; ``check`` also asserts the refused event left the state as it was. Where the rule is
checked under another ID (coverage.py says which), the refusal names that ID and the test says so.
Rules that are card text (the engine reads no effect's code) or outside the record have no test.
"""
from __future__ import annotations

from typing import Any

import pytest
from test_match import DB as MATCH_DB
from test_match import ev as match_ev
from test_match import game, opening
from test_match import refused as match_refused
from test_match import result as match_result
from test_rules_turn import phase, step
from test_special_summons import (
    AXE, CYBER_DRAGON, END, FLASH_KNIGHT, POLY, POLY_DONE, RIT, RITUAL, RITUAL_DONE, UP_ARROWS, act, board, c, check,
    fold, fuse, moved, resolved, ritual, ss)

from duel import (
    BATTLE_OX, CELTIC, DARK_MAGICIAN, DECODE_TALKER, KURIBOH, LINK_SPIDER, MAGIC_JAMMER, MONSTER_REBORN, MST,
    ODD_EYES, SHEEP_TOKEN, SOLEMN, STARDUST, TRAP_HOLE, VORSE, position)
from ygoreplay.cards import Attribute, CardDB, CardFacts, CardType, Race
from ygoreplay.match.rules import fold as match_fold
from ygoreplay.views import can_see

JUNK_SYNCHRON, DUST_TORNADO = 63977008, 60082869
#: Player 1 holds a Set Magic Jammer (a Counter Trap: it may answer anything) and a Set Solemn, and
#: a Kuriboh in the hand for Magic Jammer's discard (TERM-07: only a card in the hand is discarded).
P1_TRAPS = {"mzone": [c(KURIBOH, "p1_kuriboh"), c(CELTIC, "p1_celtic")], "hand": [c(KURIBOH, "p1_hand_kuriboh")],
            "szone": [c(SOLEMN, "solemn", position="set"), c(MAGIC_JAMMER, "jammer", position="set")]}
JAMMER = act("jammer", player=1, costs=[{"card": "p1_hand_kuriboh", "to": "gy", "reason": "discarded"}])


def token(card_id: str, zone: int, **fields: Any) -> dict:
    return {"kind": "token_created", "card": card_id, "code": SHEEP_TOKEN, "zone": zone, **fields}


# == Special Summons: zones (SPS-03, SPS-04, ZONE-06) ===============================================

FULL = {"hand": [c(CYBER_DRAGON, "hand_cyber")],          # SPS-07: a procedure of its own
        "mzone": [c(BATTLE_OX, "ox"), c(CELTIC, "c1"), c(VORSE, "vorse"), c(KURIBOH, "kuriboh"), None],
        "gy": [c(DARK_MAGICIAN, "gy_dm")],
        "extra": [c(LINK_SPIDER, "spider")]}


@pytest.mark.parametrize("events, card, zone", [
    pytest.param([ss("gy_dm", 4, cause="reborn")], "gy_dm", 4, id="the-last-free-zone"),
    pytest.param([ss("gy_dm", 4, cause="reborn"), ss("spider", 5, "link", materials=["ox"])], "spider", 5,
                 id="the-extra-monster-zone-of-a-full-main-row"),
    pytest.param([ss("gy_dm", 4, cause="reborn"), ss("hand_cyber", 0, "inherent", materials=["ox"])],
                 "hand_cyber", 0, id="a-zone-its-procedure-frees"),
])
def test_sps_03_a_special_summon_into_a_free_zone_or_one_its_procedure_frees(events: list[dict], card: str,
                                                                             zone: int) -> None:
    """SPS-03: a usable free zone is needed, unless the procedure itself removes monsters from the
    field: a monster sent for the summon leaves its zone before the summoned one arrives."""
    state = fold(board(FULL), *events)
    assert state.cards[card].zone == "mzone" and state.location(state.cards[card]).index == zone


@pytest.mark.parametrize("events", [
    pytest.param([ss("gy_dm", 0, cause="reborn")], id="by-an-effect"),
    pytest.param([ss("gy_dm", 4, cause="reborn"), ss("hand_cyber", 0, "inherent")], id="inherent-no-zone-freed"),
    pytest.param([token("sheep", 1)], id="a-token"),
    pytest.param([ss("gy_dm", 4, cause="reborn"), ss("hand_cyber", 1, "inherent", materials=["ox"])],
                 id="a-zone-the-procedure-did-not-free"),
])
def test_sps_03_a_special_summon_into_a_taken_zone_refused(events: list[dict]) -> None:
    """SPS-03 (was refused as ZONE-01): a Special Summon, a Token's too, into a taken Monster Zone."""
    check([board(FULL), *events], "SPS-03", "holds")


def test_sps_04_the_summoner_picks_any_free_zone_within_placement() -> None:
    """SPS-04: the summoner picks the zone; placement (ZONE-03) still applies: a monster not from the
    Extra Deck goes to a Main Monster Zone, never an Extra Monster Zone."""
    for zone in (0, 2, 4):
        state = fold(board({"gy": [c(DARK_MAGICIAN, "gy_dm")]}), ss("gy_dm", zone, cause="reborn"))
        assert state.sides[0].mzone[zone] == "gy_dm"
    check([board({"gy": [c(DARK_MAGICIAN, "gy_dm")]}), ss("gy_dm", 5, cause="reborn")], "ZONE-03",
          "must use a Main Monster Zone")


#: Decode Talker in the left Extra Monster Zone points down-left and down-right: to Main Monster
#: Zones 0 and 2 (its top arrow points off the field).
LINKED = {"mzone": [c(JUNK_SYNCHRON, "junk"), None, c(CELTIC, "celtic"), c(KURIBOH, "kuriboh"), None,
                    c(DECODE_TALKER, "decode")],
          "extra": [c(STARDUST, "stardust")]}
TUNED = ["junk", "celtic", "kuriboh"]   # Levels 3 + 4 + 1 = Stardust Dragon's 8


@pytest.mark.parametrize("zone", [0, 2])
def test_zone_06_link_arrows_open_main_monster_zones_to_the_extra_deck(zone: int) -> None:
    """ZONE-06: with one Extra Deck monster in your EMZ, another comes out only where a link arrow
    points (the 2017 New Master Rule): Decode Talker's arrows open Main Monster Zones 0 and 2."""
    state = fold(board(LINKED, ruleset="nmr2017"), ss("stardust", zone, "synchro", materials=TUNED))
    assert state.sides[0].mzone[zone] == "stardust"


@pytest.mark.parametrize("zone, rule, says", [
    pytest.param(4, "ZONE-03", "only if a link arrow points to it", id="main-zone-no-arrow"),
    pytest.param(6, "ZONE-04", "already uses an Extra Monster Zone (decode)", id="the-other-emz"),
])
def test_zone_06_without_an_arrow_no_second_extra_deck_monster_refused(zone: int, rule: str, says: str) -> None:
    """ZONE-06, checked as ZONE-03 (a Main Monster Zone no arrow points to) and ZONE-04 (the second
    Extra Monster Zone without Extra Link)."""
    check([board(LINKED, ruleset="nmr2017"), ss("stardust", zone, "synchro", materials=TUNED)], rule, says)


# == Fusion and Ritual resolution (FUS-03, RIT-03, SPS-16) =========================================

def test_fus_03_nothing_between_polymerization_and_its_fusion_summon() -> None:
    """FUS-03: Polymerization resolves and its Fusion Summon follows; an activation after the chain
    has ended is a new chain."""
    state = fold(*POLY, fuse("hand_celtic", "ox"), *POLY_DONE, JAMMER)
    assert state.cards["thousand"].summon_method == "fusion" and [link.card for link in state.chain] == ["jammer"]


def test_fus_03_an_activation_during_the_resolution_refused() -> None:
    """FUS-03: Magic Jammer activated after Polymerization began to resolve (the chain's end not
    recorded) was activated during the resolution: the Fusion Summon that follows is refused, as the
    engine cannot know from the activation that a Fusion Summon is coming (it reads no card text).
    Before the fix the summon was accepted while Magic Jammer's chain was open."""
    check([*POLY, JAMMER, fuse("hand_celtic", "ox")], "FUS-03", "Chain Link 1 (jammer) was activated after")


RITUAL_BOARD = {**RIT, "hand": [*RIT["hand"], c(MST, "mst")]}
RITUAL_START = [board(RITUAL_BOARD, P1_TRAPS), act("ritual", zone=0), resolved()]


def test_rit_03_the_ritual_summon_then_the_chain_ends_then_a_new_chain() -> None:
    """RIT-03: nothing is activated while Black Luster Ritual resolves; once the Ritual Summon has
    succeeded and the chain ended, Magic Jammer may start a new chain."""
    state = fold(*RITUAL_START, ritual("dm", "kuriboh"), *RITUAL_DONE, act("mst", zone=1, targets=["jammer"]),
                 JAMMER)
    assert state.cards["bls"].summon_method == "ritual" and [link.card for link in state.chain] == ["mst", "jammer"]


@pytest.mark.parametrize("events, says", [
    pytest.param([JAMMER, ritual("dm", "kuriboh")], "Chain Link 1 (jammer) was activated after",
                 id="activation-before-the-summon"),
    pytest.param([act("p1_kuriboh", player=1, effect_type="trigger"), ritual("dm", "kuriboh")],
                 "Chain Link 1 (p1_kuriboh) was activated after", id="summon-after-a-new-chain"),
])
def test_rit_03_an_activation_during_the_ritual_resolution_refused(events: list[dict], says: str) -> None:
    """RIT-03: the Ritual Spell has resolved and its Ritual Summon has not come: an activation, a
    trigger's too, starts a new chain (a record need not mark a chain's end, and the Spell may have
    summoned nothing), and then the Ritual Summon it interrupted is refused (tenth pass: judged at
    the summon, not the activation). Both were accepted before the ninth pass's fix."""
    check([*RITUAL_START, *events], "RIT-03", says)


@pytest.mark.parametrize("start, event, rule", [
    pytest.param(POLY, fuse("hand_celtic", "ox"), "FUS-01", id="fusion"),
    pytest.param(RITUAL, ritual("dm", "kuriboh"), "RIT-01", id="ritual"),
])
def test_sps_16_fusion_and_ritual_summons_name_the_resolving_card(start: list[dict], event: dict, rule: str) -> None:
    """SPS-16, checked as FUS-01 and RIT-01: a Fusion or Ritual Summon is made by a resolving card,
    which the summon names as its cause; an inherent summon names none (it is no card effect)."""
    assert fold(*start, event).cards[event["card"]].zone == "mzone"
    check([*start, {**event, "cause": None}], rule, "name it as the cause")
    state = fold(board({"hand": [c(CYBER_DRAGON, "cyber")]}), ss("cyber", 0, "inherent"))   # SPS-07: its own text
    assert state.cards["cyber"].summon_method == "inherent" and state.cards["cyber"].properly_summoned


# == Synchro and Link materials (SYN-03, LINK-03) ====================================================

TWO_TUNERS = {"mzone": [c(JUNK_SYNCHRON, "j1"), c(JUNK_SYNCHRON, "j2"), c(BATTLE_OX, "ox")],
              "extra": [c(STARDUST, "stardust")]}
TWO_TUNER_SYNCHRO = ss("stardust", 5, "synchro", materials=["j1", "j2", "ox"])


def test_syn_03_a_synchro_that_needs_two_tuners_cites_its_text() -> None:
    """SYN-03: some Synchros need two Tuners: the card's own text, cited, sets aside the basic one
    Tuner (GEN-01); the audit lists the override. Without a cite the basic rule refuses it (SYN-01)."""
    state = fold(board(TWO_TUNERS), {**TWO_TUNER_SYNCHRO, "cite": {"card": "stardust", "effect": "2 Tuners"}})
    assert state.cards["stardust"].zone == "mzone" and [o.rule for o in state.overrides] == ["SYN-01"]
    check([board(TWO_TUNERS), TWO_TUNER_SYNCHRO], "SYN-01", "not 2 Tuner(s)")


LINKS = {"mzone": [c(DECODE_TALKER, "decode"), c(CELTIC, "c1"), c(CELTIC, "c2"), c(CELTIC, "c3")],
         "extra": [c(UP_ARROWS, "up")]}


def test_link_03_an_overshooting_link_material_counts_as_1() -> None:
    """LINK-03: a Link-2 from Decode Talker (Link-3, which would overshoot, so it counts 1) and one
    other monster."""
    state = fold(board(LINKS), ss("up", 5, "link", materials=["decode", "c1"]))
    assert state.cards["up"].zone == "mzone" and state.cards["decode"].zone == "gy"


@pytest.mark.parametrize("materials", [["decode"], ["c1", "c2", "c3"]], ids=["link-3-alone", "three-for-link-2"])
def test_link_03_materials_that_cannot_make_the_rating_refused(materials: list[str]) -> None:
    """LINK-03, checked as LINK-02: Decode Talker alone counts 1 or 3, never 2; three monsters 3."""
    check([board(LINKS), ss("up", 5, "link", materials=materials)], "LINK-02", "LINK-03")


# == Equips and control (POS-06, CTRL-04) ============================================================

EQUIP = {"hand": [c(AXE, "axe")], "mzone": [c(CELTIC, "celtic"), c(VORSE, "set_vorse", position="set")]}


def test_pos_06_ctrl_04_an_equip_spell_equips_a_face_up_monster_either_side() -> None:
    """POS-06: a face-up monster may be equipped; CTRL-04: an Equip Spell on the opponent's monster
    stays in its controller's zone."""
    state = fold(board(EQUIP), act("axe", zone=0, targets=["celtic"]), resolved(), END)
    assert state.cards["axe"].equipped_to == "celtic"
    state = fold(board(EQUIP), act("axe", zone=0, targets=["p1_celtic"]), resolved(), END)
    axe = state.cards["axe"]
    assert (axe.equipped_to, axe.controller, state.sides[0].szone[0]) == ("p1_celtic", 0, "axe")


def test_pos_06_a_face_down_defense_monster_cannot_be_equipped_refused() -> None:
    """POS-06 (was SPELL-05, its message citing POS-02, which is face-down Attack)."""
    check([board(EQUIP), act("axe", zone=0, targets=["set_vorse"])], "POS-06", "face-down in Defense Position")


# == Turn and Battle Phase (TURN-05, BATTLE-05) ========================================================

def test_turn_05_the_battle_phase_is_optional() -> None:
    """TURN-05: Main Phase 1 may go straight to the End Phase; then there is no Main Phase 2 (TURN-07)."""
    state = fold(board({}), phase("end"))
    assert state.phase == "end" and not state.battle_phase_entered
    check([board({}), phase("main2")], "TURN-07", "only after a Battle Phase")


def test_battle_05_the_battle_phase_ends_in_its_end_step() -> None:
    """BATTLE-05: the turn player announces the End Step, then Main Phase 2; after the End Step no
    other step comes (BATTLE-01)."""
    state = fold(board({}), phase("battle"), step("battle"), step("end"), phase("main2"))
    assert state.phase == "main2" and state.battle_phase_entered
    check([board({}), phase("battle"), step("battle"), step("end"), step("battle")], "BATTLE-01",
          "cannot follow the end step")


# == Chains (CHAIN-06, EFF-01) ========================================================================

def test_chain_06_a_destroyed_cards_activated_effect_still_resolves() -> None:
    """CHAIN-06: Dust Tornado destroys Mystical Space Typhoon in response; MST's link still resolves
    and destroys its target."""
    p0 = {"hand": [c(MST, "mst")]}
    p1 = {"szone": [c(TRAP_HOLE, "hole", position="set"), c(DUST_TORNADO, "dust", position="set")]}
    state = fold(position(p0, p1), act("mst", zone=0, targets=["hole"]), act("dust", player=1, targets=["mst"]),
                 resolved(2), moved("mst", [0, "gy"], "destroyed", cause="dust"), moved("dust", [1, "gy"], "resolved"),
                 resolved(1), moved("hole", [1, "gy"], "destroyed", cause="mst"), END)
    assert state.cards["hole"].zone == "gy" and state.cards["mst"].zone == "gy" and not state.chain


def test_eff_01_an_activation_records_its_effect_category() -> None:
    """EFF-01: the record keeps an activated effect's category (quick, ignition, trigger...)."""
    state = fold(board({"hand": [c(KURIBOH, "kuriboh")]}), act("kuriboh", effect_type="quick"))
    assert [(link.card, link.effect_type) for link in state.chain] == [("kuriboh", "quick")]


# == Decks (DECK-04) =================================================================================

EXTRA_15 = [c(STARDUST, f"x{i}") for i in range(15)]


def test_deck_04_face_up_pendulums_in_the_extra_deck_are_not_among_its_15() -> None:
    """DECK-04: 15 Extra Deck monsters and 2 face-up Pendulums in the Extra Deck is a legal position."""
    state = fold(board({"extra": [*EXTRA_15, c(ODD_EYES, "odd", position="faceup"),
                                  c(FLASH_KNIGHT, "knight", position="faceup")]}))
    assert len(state.sides[0].extra) == 17


def test_deck_04_a_sixteenth_extra_deck_monster_refused() -> None:
    check([board({"extra": [*EXTRA_15, c(STARDUST, "x15")]})], "DECK-03", "at most 15")


# == Match (MATCH-03, WIN-05) =========================================================================

def test_match_03_win_05_a_match_lost_2_0_stays_lost() -> None:
    """MATCH-03, WIN-05 (checked as MATCH-01): after 2-0 the match is decided; no third duel is played in
    which a card could win the match, and the result cannot name the loser."""
    events = opening() + game(1, 0) + game(2, 0, 1, 1)
    assert (match_result(events).final, match_result(events).winner) == (True, 0)
    match_refused(events + [match_ev("game_started", game=3, duel="", first_player=1, chosen_by=1)], "MATCH-01")
    match_refused(events + [match_ev("match_ended", winner=1, how="games", games=[0, 2, 0], points=[0, 3])],
                  "MATCH-01")
    assert match_fold(events, MATCH_DB).result().winner == 0


# == Card facts (CARD-03..06, CARD-08, CARD-10) =======================================================

def test_card_03_to_06_08_10_card_facts() -> None:
    """CARD-03: Flash Knight (a Normal Pendulum) is a Normal Monster, Stardust Dragon (effectless
    text aside, a Synchro) is not; CARD-04/05: Attribute and Type as the databases give them; CARD-06:
    a printed '?' is 0; CARD-08: a Link monster has a Link Rating, no Level or DEF; CARD-10: Spell icons."""
    db = CardDB.classic()
    assert db[FLASH_KNIGHT].is_normal_monster and not db[STARDUST].is_normal_monster
    assert db[DARK_MAGICIAN].attribute == Attribute.DARK and db[DARK_MAGICIAN].race == Race.SPELLCASTER
    unknown = CardFacts(900000099, "Test ?", int(CardType.MONSTER | CardType.EFFECT), level=4, atk=-2, defense=-2,
                        attribute=int(Attribute.DARK), race=int(Race.FIEND))
    assert (unknown.base_atk, unknown.base_def) == (0, 0)
    decode = db[DECODE_TALKER]
    assert (decode.link_rating, decode.printed_level, decode.base_def) == (3, None, None)
    assert [db[code].spell_subtype for code in (MST, AXE, 24094653, 55761792)] == \
        ["quickplay", "equip", "normal", "ritual"]


def test_card_08_a_link_monsters_level_or_def_cannot_change() -> None:
    """CARD-08, checked as LINK-05: a Link monster has no Level or DEF to change; its ATK may."""
    p0 = {"mzone": [None, None, None, None, None, c(DECODE_TALKER, "decode")]}
    state = fold(board(p0), {"kind": "stats_changed", "card": "decode", "atk": 2800, "cause": "x"})
    assert state.cards["decode"].atk == 2800
    check([board(p0), {"kind": "stats_changed", "card": "decode", "level": 4, "cause": "x"}], "LINK-05",
          "no Level or DEF")


# == Spells that left the field, effect summons, table objects, banished face-down ====================

BURNING_LAND = 24294108


def test_spell_09_a_continuous_spell_applies_while_face_up_on_the_field() -> None:
    """SPELL-09: a Continuous Spell face-up in its zone applies its effect."""
    state = fold(board({"szone": [c(BURNING_LAND, "land", position="faceup")]}), act("land", effect_type="continuous"))
    assert [link.card for link in state.chain] == ["land"]


def test_spell_09_a_continuous_spell_that_left_the_field_applies_nothing_refused() -> None:
    """SPELL-09, checked as SPELL-10: once it has left the field, its effect no longer applies."""
    check([board({"szone": [c(BURNING_LAND, "land", position="faceup")]}),
           moved("land", [0, "gy"], "destroyed", cause="x"), act("land", effect_type="continuous")],
          "SPELL-10", "only while face-up in its zone")


REBORN = {"hand": [c(MONSTER_REBORN, "reborn")], "gy": [c(DARK_MAGICIAN, "gy_dm")]}
REVIVAL = [board(REBORN), act("reborn", zone=0, targets=["gy_dm"]), resolved(), ss("gy_dm", 2, cause="reborn")]


def test_sps_10_an_effect_special_summons_as_its_activation_resolves() -> None:
    """SPS-10: Monster Reborn is activated (a chain link) and summons as it resolves."""
    state = fold(*REVIVAL, moved("reborn", [0, "gy"], "resolved"), END)
    assert state.sides[0].mzone[2] == "gy_dm" and state.cards["gy_dm"].summon_method == "effect"


def test_sps_10_a_summon_by_a_resolving_effect_cannot_be_negated_refused() -> None:
    """SPS-10, checked as SPS-11: the activation was not negated, so the summon cannot be."""
    check([*REVIVAL, {"kind": "summon_negated", "card": "gy_dm", "cause": "solemn"}], "SPS-11",
          "cannot be negated")


def test_setup_05_coins_and_dice_are_recorded() -> None:
    """SETUP-05: coin tosses and die rolls are events carrying their outcome; the duel goes on."""
    state = fold(board({}), {"kind": "coin_tossed", "results": [True, False]}, {"kind": "die_rolled", "results": [4]},
                 phase("end"))
    assert state.index == 4 and state.phase == "end"


@pytest.mark.parametrize("position_, seen_by", [
    pytest.param("facedown", {"judge", "p0"}, id="face-down-owner-only"),
    pytest.param(None, {"judge", "p0", "p1", "spectator"}, id="face-up-public"),
])
def test_zone_15_a_banished_card_is_public_unless_banished_face_down(position_: str | None, seen_by: set) -> None:
    """ZONE-15: a banished card is face-up and public; banished face-down, only its owner sees it."""
    where = {"position": position_} if position_ else {}
    state = fold(board({"mzone": [c(CELTIC, "celtic")]}), moved("celtic", [0, "banished"], "banished", cause="x", **where))
    card = state.cards["celtic"]
    assert card.zone == "banished"
    assert {view for view in ("judge", "p0", "p1", "spectator") if can_see(view, card)} == seen_by
