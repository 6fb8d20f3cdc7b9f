"""Normal Summons, Sets, Tributes, Flip Summons, Special Summons, tokens and battle positions.

One legal and one illegal case for every rule ID that rules/summon.py and rules/position.py
enforce (and the zone checks a summon runs into). Each illegal case asserts the rule ID and a
telling piece of the message; ``refused`` also checks that the state did not change.
"""
from __future__ import annotations

import pytest
from duel import (
    BATTLE_OX, BLUE_EYES, CELTIC, DARK_MAGICIAN, GIANT_SOLDIER, JINZO, KURIBOH, LINK_SPIDER, MST,
    MYSTICAL_ELF, ODD_EYES, SHEEP_TOKEN, STARDUST, STARGAZER, SUMMONED_SKULL, TIMEGAZER, UTOPIA,
    VORSE, fold, position)
from test_rules_turn import MAIN_POOL, START, cards_of, draw, register, turn
from test_rules_turn import QUICK, refused_as     # a Kuriboh Quick Effect opens a chain

CYBER_DRAGON, JUNK_WARRIOR, JUNK_SYNCHRON = 70095154, 60800381, 63977008


def card(code: int, card_id: str, **flags) -> dict:
    return {"code": code, "id": card_id, **flags}


P0 = {
    "hand": [card(CELTIC, "celtic"), card(SUMMONED_SKULL, "skull"), card(DARK_MAGICIAN, "dm"),
             card(BLUE_EYES, "bewd"), card(MST, "mst"), card(KURIBOH, "kuriboh"), card(CYBER_DRAGON, "cyber")],
    "mzone": [card(BATTLE_OX, "ox"), card(GIANT_SOLDIER, "soldier", position="set"), card(VORSE, "vorse")],
    "gy": [card(BLUE_EYES, "gy_bewd"), card(STARDUST, "gy_stardust")],
    "extra": [card(STARDUST, "stardust"), card(UTOPIA, "utopia"), card(LINK_SPIDER, "spider")],
}
P1 = {"hand": [card(JINZO, "jinzo")], "mzone": [card(MYSTICAL_ELF, "elf")]}
#: P0 with a face-up Tuner too (Junk Synchron, its Level made 4 by an effect): Junk Synchron + Battle
#: Ox are the 1 Tuner + non-Tuner, Levels 4 + 4, that Stardust Dragon (Level 8) needs (SYN-01).
TUNED = {**P0, "mzone": [*P0["mzone"], None, card(JUNK_SYNCHRON, "junk", level=4)]}
SYNCHRO = ["junk", "ox"]


def board(p0: dict | None = None, **fields) -> dict:
    """Turn 2, player 0's Main Phase 1: a hand of monsters, three monsters (one Set), an Extra Deck."""
    return position(P0 if p0 is None else p0, P1, **fields)


def summon(card_id: str, zone: int, *tributes: str, kind: str = "normal_summoned", **fields) -> dict:
    return {"kind": kind, "card": card_id, "zone": zone, "tributes": list(tributes), **fields}


def monster_set(card_id: str, zone: int, *tributes: str) -> dict:
    return summon(card_id, zone, *tributes, kind="monster_set")


def special(card_id: str, zone: int, method: str = "effect", **fields) -> dict:
    return {"kind": "special_summoned", "card": card_id, "zone": zone, "method": method, **fields}


def flip(card_id: str, **fields) -> dict:
    return {"kind": "flip_summoned", "card": card_id, **fields}


def change(card_id: str, new: str, **fields) -> dict:
    return {"kind": "position_changed", "card": card_id, "position": new, **fields}


def token(card_id: str, zone: int, code: int = SHEEP_TOKEN, **fields) -> dict:
    return {"kind": "token_created", "card": card_id, "code": code, "zone": zone, **fields}


def negate(card_id: str) -> dict:
    return {"kind": "summon_negated", "card": card_id}


TO_GY = {"kind": "card_moved", "card": "stardust", "to": [0, "gy"], "reason": "destroyed", "cause": "x"}


def where(state, card_id: str) -> tuple:
    c = state.cards[card_id]
    return c.zone, state.location(c).index if c.zone == "mzone" else None, c.position


# -- Normal Summon and Set (SUM-01, TURN-06, SUM-09) ----------------------------------------------

@pytest.mark.parametrize("event, fields, position_after", [
    pytest.param(summon("celtic", 3), {}, "attack", id="summon"),
    pytest.param(monster_set("celtic", 3), {}, "set", id="set"),
    pytest.param(summon("celtic", 3), {"phase": "main2", "battle_phase_entered": True}, "attack", id="in-main2"),
])
def test_sum_01_sum_09_one_normal_summon_or_set_from_the_hand(event: dict, fields: dict, position_after: str) -> None:
    """SUM-01: from the hand in your Main Phase; SUM-09: a Normal Summon is face-up Attack, a Set face-down."""
    state = fold(board(**fields), event)
    assert where(state, "celtic") == ("mzone", 3, position_after)
    assert state.sides[0].normal_summon_turn == 2 and state.cards["celtic"].summoned_turn == 2
    assert "celtic" not in state.sides[0].hand


@pytest.mark.parametrize("events, fields, fragment", [
    pytest.param([summon("celtic", 3), summon("kuriboh", 4)], {}, "already used the Normal Summon", id="twice"),
    pytest.param([monster_set("celtic", 3), summon("kuriboh", 4)], {}, "already used", id="set-then-summon"),
    pytest.param([summon("celtic", 3)], {"normal_summon_used": [True, False]}, "already used", id="used-in-set-up"),
    pytest.param([summon("vorse", 3)], {}, "not in player 0's hand", id="from-the-field"),
    pytest.param([summon("gy_bewd", 3, "ox", "vorse")], {}, "not in player 0's hand", id="from-the-gy"),
    pytest.param([summon("mst", 3)], {}, "only Main Deck monsters", id="a-spell"),
    pytest.param([summon("jinzo", 1, "elf", player=1)], {}, "it is not their turn", id="opponent-turn"),
    pytest.param([summon("celtic", 3)], {"phase": "standby"}, "not a Main Phase", id="standby-phase"),
    pytest.param([QUICK, summon("celtic", 3)], {}, "a chain of 1 link(s) is open", id="chain-open"),
])
def test_sum_01_normal_summon_is_once_per_turn_from_the_hand(events: list[dict], fields: dict, fragment: str) -> None:
    refused_as("SUM-01", fragment, board(**fields), *events)


def test_turn_06_a_normal_summon_in_main_phase_2() -> None:
    """TURN-06: after the Battle Phase, Main Phase 2 allows the Normal Summon not used in Main Phase 1."""
    state = fold(board(phase="main2", battle_phase_entered=True), summon("celtic", 3))
    assert where(state, "celtic") == ("mzone", 3, "attack") and state.sides[0].normal_summon_turn == 2


def test_turn_06_no_normal_summon_in_the_battle_phase() -> None:
    refused_as("TURN-06", "not a Main Phase", board(phase="battle"), summon("celtic", 3))


def test_sum_09_a_normal_summon_in_defense_needs_an_effect() -> None:
    refused_as("SUM-09", "face-up Attack", board(), summon("celtic", 3, position="defense"))


# -- Tributes (SUM-04/05/06, LOG-04) --------------------------------------------------------------

@pytest.mark.parametrize("event, placed, tributes", [
    pytest.param(summon("celtic", 3), "celtic", [], id="level-4-none"),
    pytest.param(summon("skull", 3, "ox"), "skull", ["ox"], id="level-6-one"),
    pytest.param(summon("dm", 3, "ox", "vorse"), "dm", ["ox", "vorse"], id="level-7-two"),
    pytest.param(monster_set("bewd", 0, "ox", "soldier"), "bewd", ["ox", "soldier"], id="set-level-8-two"),
])
def test_sum_04_tributes_by_level(event: dict, placed: str, tributes: list[str]) -> None:
    """SUM-04: Level 4 or lower none, 5-6 one, 7+ two (SUM-08: a Set needs them too); SUM-06: to the GY."""
    state = fold(board(), event)
    assert state.cards[placed].zone == "mzone"
    assert state.sides[0].gy == ["gy_bewd", "gy_stardust", *tributes]
    assert all(state.cards[t].zone == "gy" for t in tributes)


@pytest.mark.parametrize("event, fragment", [
    pytest.param(summon("skull", 3), "Level 6 and needs 1 Tribute(s), not 0", id="level-6-none"),
    pytest.param(summon("dm", 3, "ox"), "Level 7 and needs 2 Tribute(s), not 1", id="level-7-one"),
    pytest.param(summon("dm", 3, "ox", "vorse", "soldier"), "not 3", id="level-7-three"),
    pytest.param(summon("celtic", 3, "ox"), "Level 4 and needs 0 Tribute(s), not 1", id="level-4-one"),
    pytest.param(monster_set("bewd", 3, "ox"), "Level 8 and needs 2", id="set-level-8-one"),
])
def test_sum_04_wrong_number_of_tributes(event: dict, fragment: str) -> None:
    refused_as("SUM-04", fragment, board(), event)


FULL = {**P0, "mzone": [card(BATTLE_OX, "ox"), card(CELTIC, "c1"), card(CELTIC, "c2"), card(VORSE, "vorse"),
                        card(VORSE, "v2")]}


def test_sum_05_tribute_summon_into_the_zone_a_tribute_freed() -> None:
    """SUM-05: legal with no free zone when at least one monster is Tributed."""
    state = fold(board(FULL), summon("skull", 0, "ox"))
    assert where(state, "skull") == ("mzone", 0, "attack") and state.cards["ox"].zone == "gy"


def test_zone_01_no_normal_summon_into_a_full_field() -> None:
    refused_as("ZONE-01", "holds ox already", board(FULL), summon("celtic", 0))


def test_sum_06_face_down_monsters_may_be_tributed() -> None:
    state = fold(board(), summon("skull", 1, "soldier"))
    assert where(state, "skull") == ("mzone", 1, "attack") and state.cards["soldier"].zone == "gy"


@pytest.mark.parametrize("tribute, fragment", [
    pytest.param("elf", "Mystical Elf (elf) is not a monster player 0 controls", id="opponents-monster"),
    pytest.param("kuriboh", "Kuriboh (kuriboh) is not a monster", id="from-the-hand"),
])
def test_sum_06_tributes_are_your_own_monsters_on_the_field(tribute: str, fragment: str) -> None:
    refused_as("SUM-06", fragment, board(), summon("skull", 3, tribute))


@pytest.mark.parametrize("event, fragment", [
    pytest.param(summon("dm", 3, "ox", "ox"), "Tributed twice", id="tribute-twice"),
    pytest.param(special("stardust", 5, "synchro", materials=["ox", "ox"]), "listed twice", id="material-twice"),
    pytest.param(special("stardust", 5, "synchro", materials=["stardust"]), "its own material", id="own-material"),
    pytest.param(token("ox", 3), "already in use", id="token-id-taken"),
])
def test_log_04_no_card_counts_twice(event: dict, fragment: str) -> None:
    """LOG-04: a Tribute, a material or a card id is used once (legal: every summon above)."""
    refused_as("LOG-04", fragment, board(), event)


# -- Flip Summon (SUM-10/11) ----------------------------------------------------------------------

@pytest.mark.parametrize("event", [flip("soldier"), change("soldier", "attack")], ids=["flip", "manual-change"])
def test_sum_10_flip_summon_a_monster_set_on_an_earlier_turn(event: dict) -> None:
    """SUM-10: face-down Defense to face-up Attack in your Main Phase; SUM-11: it is a position change."""
    state = fold(board(), event)
    assert where(state, "soldier") == ("mzone", 1, "attack")
    assert state.cards["soldier"].position_changed_turn == 2
    assert state.sides[0].normal_summon_turn == 0                   # no Normal Summon used


def test_sum_10_flip_summon_from_face_down_attack() -> None:
    p0 = {**P0, "mzone": [card(BATTLE_OX, "ox", position="facedown_attack")]}
    assert where(fold(board(p0), flip("ox")), "ox") == ("mzone", 0, "attack")


@pytest.mark.parametrize("events, fields, fragment", [
    pytest.param([flip("ox")], {}, "already face-up", id="face-up"),
    pytest.param([flip("soldier")], {"phase": "battle"}, "not a Main Phase", id="battle-phase"),
    pytest.param([flip("soldier", player=0)], {"turn_player": 1}, "not their turn", id="opponent-turn"),
    pytest.param([QUICK, flip("soldier")], {}, "a chain of 1 link(s) is open", id="chain-open"),
])
def test_sum_10_flip_summon_only_of_your_face_down_monster_in_your_main_phase(
        events: list[dict], fields: dict, fragment: str) -> None:
    refused_as("SUM-10", fragment, board(**fields), *events)


def test_sum_10_only_a_monster_on_your_field_is_flip_summoned() -> None:
    refused_as("SUM-10", "not a monster player 0 controls", board(), flip("celtic"))


@pytest.mark.parametrize("events, p0, fragment", [
    pytest.param([monster_set("celtic", 3), flip("celtic")], P0, "Set or summoned this turn", id="set-this-turn"),
    pytest.param([monster_set("celtic", 3), change("celtic", "attack")], P0, "Set or summoned this turn",
                 id="manual-change-set-this-turn"),
    pytest.param([flip("soldier")], {**P0, "mzone": [None, card(GIANT_SOLDIER, "soldier", position="set",
                                                                 position_changed=True)]},
                 "already changed its battle position", id="changed-this-turn"),
])
def test_sum_11_no_flip_summon_the_turn_it_was_set_or_changed(events: list[dict], p0: dict, fragment: str) -> None:
    refused_as("SUM-11", fragment, board(p0), *events)


# -- Special Summons (SPS-01/05/07/12, LINK-05, ZONE-03, LOG-02) ----------------------------------

@pytest.mark.parametrize("event, placed, position_after, proper", [
    pytest.param(special("gy_bewd", 3, cause="reborn"), 3, "attack", False, id="effect-from-gy"),
    pytest.param(special("gy_bewd", 3, position="set", cause="x"), 3, "set", False, id="effect-face-down"),
    pytest.param(special("cyber", 3, "inherent", position="defense"), 3, "defense", True, id="inherent"),
    pytest.param(special("stardust", 5, "synchro", materials=SYNCHRO), 5, "attack", True, id="synchro"),
    pytest.param(special("spider", 5, "link", materials=["ox"]), 5, "attack", True, id="link"),
    pytest.param(special("utopia", 3, "xyz", materials=["ox", "vorse"]), 3, "attack", True, id="xyz"),
])
def test_sps_01_special_summons(event: dict, placed: int, position_after: str, proper: bool) -> None:
    """SPS-01 by effect or procedure; SPS-05 face-up unless an effect Sets it; SPS-07 inherent in
    your Main Phase; SPS-12 a procedure makes it properly summoned; LINK-05 Links in Attack;
    ZONE-03 Extra Deck monsters may use the Extra Monster Zone."""
    state = fold(board(TUNED), event)
    summoned = state.cards[event["card"]]
    assert where(state, summoned.id) == ("mzone", placed, position_after)
    assert summoned.properly_summoned is proper and summoned.summon_method == event["method"]
    materials = event.get("materials", [])
    if event["method"] == "xyz":
        assert summoned.materials == materials and state.cards["ox"].zone == "overlay"
    else:
        assert all(state.cards[m].zone == "gy" for m in materials)


def test_sps_12_a_properly_summoned_monster_may_be_revived() -> None:
    state = fold(board(TUNED), special("stardust", 5, "synchro", materials=SYNCHRO), TO_GY,
                 special("stardust", 0, cause="reborn"))
    assert where(state, "stardust") == ("mzone", 0, "attack")


@pytest.mark.parametrize("events, fields, rule, fragment", [
    pytest.param([special("mst", 3)], {}, "SPS-01", "is not a monster", id="SPS-01-a-spell"),
    pytest.param([special("gy_stardust", 3, cause="reborn")], {}, "SPS-12", "must first be properly summoned",
                 id="SPS-12-never-summoned"),
    pytest.param([special("cyber", 3, "inherent")], {"phase": "battle"}, "SPS-07", "not a Main Phase",
                 id="SPS-07-battle-phase"),
    pytest.param([special("cyber", 3, "inherent", player=0)], {"turn_player": 1}, "SPS-07", "not their turn",
                 id="SPS-07-opponent-turn"),
    pytest.param([special("stardust", 5, "synchro", position="set", materials=["ox", "vorse"])], {}, "SPS-05",
                 "only an effect can Special Summon it face-down", id="SPS-05-synchro-set"),
    pytest.param([special("cyber", 3, "inherent", position="set")], {}, "SPS-05", "face-up", id="SPS-05-inherent-set"),
    pytest.param([special("spider", 5, "link", position="defense", materials=["ox"])], {}, "LINK-05",
                 "always in Attack Position", id="LINK-05-link-in-defense"),
    pytest.param([special("gy_bewd", 5, cause="reborn")], {}, "ZONE-03", "must use a Main Monster Zone",
                 id="ZONE-03-revived-to-emz"),
    pytest.param([special("ox", 3, cause="x")], {}, "LOG-02", "already on the field", id="LOG-02-on-the-field"),
])
def test_sps_special_summons_refused(events: list[dict], fields: dict, rule: str, fragment: str) -> None:
    refused_as(rule, fragment, board(**fields), *events)


# -- Pendulum Summon (PEND-03, SPS-02) ------------------------------------------------------------

SCALES = [card(STARGAZER, "stargazer"), None, None, None, card(TIMEGAZER, "timegazer")]   # Scales 1 and 8
PEND = {"hand": [card(ODD_EYES, "odd"), card(CELTIC, "celtic"), card(BLUE_EYES, "bewd")],
        "szone": SCALES,
        "extra": [card(ODD_EYES, "odd2", position="faceup"), card(JUNK_WARRIOR, "junk")],
        "gy": [card(VORSE, "gy_vorse")]}


def pendulum(card_id: str, zone: int, **fields) -> dict:
    return special(card_id, zone, "pendulum", **fields)


def test_pend_03_sps_02_one_pendulum_summon_of_several_monsters() -> None:
    """PEND-03: Levels strictly between the Scales, from the hand and the face-up Extra Deck;
    SPS-02: all in the one Pendulum Summon of the turn."""
    state = fold(board(PEND), pendulum("odd", 0), pendulum("celtic", 1, position="defense"), pendulum("odd2", 5))
    assert [where(state, c) for c in ("odd", "celtic", "odd2")] == [
        ("mzone", 0, "attack"), ("mzone", 1, "defense"), ("mzone", 5, "attack")]
    assert state.sides[0].pendulum_summon_turn == 2
    assert all(state.cards[c].properly_summoned for c in ("odd", "celtic", "odd2"))


@pytest.mark.parametrize("p0, events, fields, rule, fragment", [
    pytest.param({**PEND, "szone": SCALES[:4]}, [pendulum("celtic", 1)], {}, "PEND-03", "both Pendulum Zones",
                 id="PEND-03-one-scale"),
    pytest.param(PEND, [pendulum("bewd", 1)], {}, "PEND-03", "Level 8) is not strictly between the Scales 1 and 8",
                 id="PEND-03-level-too-high"),
    pytest.param(PEND, [pendulum("gy_vorse", 1)], {}, "PEND-03", "hand or the face-up Extra Deck",
                 id="PEND-03-from-gy"),
    pytest.param(PEND, [pendulum("junk", 1)], {}, "PEND-03", "hand or the face-up Extra Deck",
                 id="PEND-03-face-down-extra"),
    pytest.param(PEND, [pendulum("celtic", 1)], {"phase": "battle"}, "PEND-03", "not a Main Phase",
                 id="PEND-03-battle-phase"),
    # both pass on the first summon (SPS-11): after one pass the opponent holds priority (PRIO-03)
    pytest.param(PEND, [pendulum("odd", 0), *[{"kind": "priority_passed"}] * 2, pendulum("celtic", 1)], {}, "SPS-02",
                 "already Pendulum Summoned this turn", id="SPS-02-second-summon"),
    pytest.param(PEND, [pendulum("odd", 0), special("gy_vorse", 2, cause="x"), pendulum("celtic", 1)], {}, "SPS-02",
                 "already Pendulum Summoned this turn", id="SPS-02-after-another-summon"),
    pytest.param(PEND, [pendulum("celtic", 1)], {"pendulum_summon_used": [True, False]}, "SPS-02",
                 "already Pendulum Summoned", id="SPS-02-used-in-set-up"),
])
def test_pend_03_sps_02_pendulum_summon_refused(
        p0: dict, events: list[dict], fields: dict, rule: str, fragment: str) -> None:
    refused_as(rule, fragment, board(p0, **fields), *events)


# -- negating summons (SPS-11, SUM-03) ------------------------------------------------------------

@pytest.mark.parametrize("event", [summon("celtic", 3), flip("soldier"),
                                   special("stardust", 5, "synchro", materials=SYNCHRO)],
                         ids=["normal", "flip", "synchro"])
def test_sps_11_a_summon_is_negated_as_it_is_attempted(event: dict) -> None:
    """SPS-11/SUM-03: the monster goes to the GY; after a negated Normal Summon the player cannot
    Normal Summon or Set again that turn (SUM-03 is cited); a negated Flip Summon is no such loss."""
    state = fold(board(TUNED), event, negate(event["card"]))
    assert state.cards[event["card"]].zone == "gy" and state.summon_window is None
    if event["kind"] == "normal_summoned":
        refused_as("SUM-03", "was negated this turn", board(), event, negate("celtic"), summon("kuriboh", 4))
        refused_as("SUM-03", "was negated this turn", board(), event, negate("celtic"), monster_set("kuriboh", 4))
    elif event["kind"] == "flip_summoned":
        fold(board(TUNED), event, negate(event["card"]), summon("celtic", 3))


@pytest.mark.parametrize("events, fragment", [
    pytest.param([special("gy_bewd", 3, cause="reborn")], "by a resolving effect cannot be negated", id="by-effect"),
    pytest.param([token("sheep", 3)], "cannot be negated", id="token"),
    pytest.param([summon("celtic", 3), {"kind": "spell_trap_set", "card": "mst", "zone": 0}],
                 "not being summoned now", id="too-late"),
])
def test_sps_11_summons_that_cannot_be_negated(events: list[dict], fragment: str) -> None:
    *_, last = events
    refused_as("SPS-11", fragment, board(), *events, negate(last["card"]))


def test_sum_02_a_summon_is_negated_a_set_is_left_alone() -> None:
    """SUM-02: a face-up Normal Summon is a "Summon" and can be negated as it is attempted; a Set
    is a Normal Summon but no "Summon", so nothing negates it and it stays Set."""
    assert fold(board(), summon("celtic", 3), negate("celtic")).cards["celtic"].zone == "gy"
    state = fold(board(), monster_set("celtic", 3), {"kind": "phase_entered", "phase": "battle"})
    assert (state.cards["celtic"].zone, state.cards["celtic"].position) == ("mzone", "set")


def test_sum_02_a_set_negated_as_if_it_were_a_summon_refused() -> None:
    """SUM-02: a Set is not a Summon: a record that negates it as one breaks SUM-02 (not SPS-11:
    the Set is not a summon attempted too late, it is no summon at all)."""
    refused_as("SUM-02", "a Set is not a Summon", board(), monster_set("celtic", 3), negate("celtic"))


# -- Tokens (TOKEN-01/02, CARD-01) ----------------------------------------------------------------

def test_token_01_a_token_occupies_a_monster_zone() -> None:
    state = fold(board(), token("sheep", 3, position="defense", cause="scapegoat"))
    sheep = state.cards["sheep"]
    assert sheep.is_token and where(state, "sheep") == ("mzone", 3, "defense") and sheep.controller == 0


@pytest.mark.parametrize("event, rule, fragment", [
    pytest.param(token("sheep", 3, CELTIC), "TOKEN-01", "is not a Token", id="TOKEN-01-not-a-token"),
    pytest.param(token("sheep", 3, 12345), "CARD-01", "passcode 12345", id="CARD-01-unknown"),
    pytest.param(token("sheep", 5), "ZONE-03", "Main Monster Zone (0-4)", id="ZONE-03-token-to-emz"),
    pytest.param(summon("celtic", 5), "ZONE-03", "Main Monster Zone (0-4)", id="ZONE-03-summon-to-emz"),
])
def test_token_01_tokens_and_zones_refused(event: dict, rule: str, fragment: str) -> None:
    refused_as(rule, fragment, board(), event)


# -- battle positions (POS-01/07/08/09, TOKEN-02, LINK-05, LOG-02) --------------------------------

ON_FIELD = {**P0, "mzone": [card(BATTLE_OX, "ox"), card(GIANT_SOLDIER, "soldier", position="set"),
                            card(SHEEP_TOKEN, "sheep"), card(VORSE, "vorse", attacked=True),
                            card(CELTIC, "hidden", position="facedown_attack"), card(LINK_SPIDER, "linked")]}


@pytest.mark.parametrize("events, changed, position_after", [
    pytest.param([change("ox", "defense")], "ox", "defense", id="attack-to-defense"),
    pytest.param([change("ox", "defense"), change("ox", "attack", cause="x")], "ox", "attack", id="then-by-effect"),
    pytest.param([change("sheep", "defense")], "sheep", "defense", id="token-face-up"),
    pytest.param([change("soldier", "defense", cause="x")], "soldier", "defense", id="flip-by-effect"),
    pytest.param([change("ox", "set", cause="book")], "ox", "set", id="face-down-by-effect"),
])
def test_pos_07_09_position_changes(events: list[dict], changed: str, position_after: str) -> None:
    """POS-07: once per turn by hand in your Main Phase; effects are unlimited (POS-09 needs them to
    turn a monster face-down or flip it to Defense); TOKEN-02: a Token changes between face-up positions."""
    state = fold(board(ON_FIELD), *events)
    assert state.cards[changed].position == position_after
    assert state.cards[changed].position_changed_turn == (2 if not events[0].get("cause") else 0)


def test_pos_08_a_monster_summoned_on_an_earlier_turn_changes_position() -> None:
    """POS-08: a monster on the field since an earlier turn that has not attacked this turn
    changes position by hand, in Main Phase 2 too."""
    state = fold(board(ON_FIELD, phase="main2", battle_phase_entered=True), change("ox", "defense"))
    assert state.cards["ox"].position == "defense" and state.cards["ox"].position_changed_turn == 2


@pytest.mark.parametrize("events, fields, rule, fragment", [
    pytest.param([change("kuriboh", "defense")], {}, "POS-01", "not in a Monster Zone", id="POS-01-in-hand"),
    pytest.param([change("ox", "attack")], {}, "LOG-02", "already in attack", id="LOG-02-same"),
    pytest.param([change("ox", "defense"), change("ox", "attack")], {}, "POS-07", "already changed position",
                 id="POS-07-twice"),
    pytest.param([change("elf", "defense")], {}, "POS-07", "does not control Mystical Elf", id="POS-07-opponents"),
    pytest.param([change("elf", "defense", player=1)], {}, "POS-07", "not their turn", id="POS-07-opponent-turn"),
    pytest.param([change("ox", "defense")], {"phase": "battle"}, "POS-07", "not a Main Phase",
                 id="POS-07-battle-phase"),
    pytest.param([QUICK, change("ox", "defense")], {}, "POS-07", "chain of 1", id="POS-07-chain-open"),
    pytest.param([summon("skull", 0, "ox"), change("skull", "defense")], {}, "POS-08", "summoned or Set this turn",
                 id="POS-08-summoned"),
    pytest.param([change("vorse", "defense")], {"phase": "main2", "battle_phase_entered": True}, "POS-08",
                 "declared an attack this turn", id="POS-08-attacked"),
    pytest.param([change("soldier", "defense")], {}, "POS-09", "face-down -> face-up Defense", id="POS-09-set-to-def"),
    pytest.param([change("ox", "set")], {}, "POS-09", "need an effect", id="POS-09-attack-to-set"),
    pytest.param([change("hidden", "defense")], {}, "POS-09", "need an effect", id="POS-09-face-down-attack-to-def"),
    pytest.param([change("sheep", "set", cause="book")], {}, "TOKEN-02", "always face-up", id="TOKEN-02-face-down"),
    pytest.param([change("linked", "defense", cause="x")], {}, "LINK-05", "neither rules nor effects",
                 id="LINK-05-link"),
])
def test_pos_position_changes_refused(events: list[dict], fields: dict, rule: str, fragment: str) -> None:
    refused_as(rule, fragment, board(ON_FIELD, **fields), *events)


# -- the duel option reposition_opponents_summons (POS-08, SUM-11; EDOPro's Goat format) ----------

def taken(options: list[str], *events: dict, position: str = "attack") -> list[dict]:
    """Turn 1, player 0's Main Phase 1: player 1 Special Summons Mystical Elf (by an effect) and
    player 0 takes control of it (another effect), then ``events``."""
    deck = [MYSTICAL_ELF, *cards_of([c for c in MAIN_POOL if c != MYSTICAL_ELF], 39)]
    return [{**START, "v": 2, "options": options}, register(0), register(1, deck), draw(0, 5), draw(1, 5),
            *turn(1, 0, drawn=False), special("p1.m0", 0, player=1, position=position, cause="x"),
            {"kind": "control_changed", "card": "p1.m0", "to_player": 0, "zone": 0, "cause": "y"}, *events]


@pytest.mark.parametrize("event, position_after", [
    pytest.param(change("p1.m0", "defense"), "defense", id="POS-08-change"),
    pytest.param(flip("p1.m0"), "attack", id="SUM-11-flip-summon"),
])
def test_pos_08_sum_11_a_monster_the_opponent_summoned_this_turn_changes_position_under_the_option(
        event: dict, position_after: str) -> None:
    """POS-08, SUM-11 under reposition_opponents_summons (an older ruling, kept by EDOPro's Goat
    format): a monster the other player summoned or Set this turn, now yours, may change position
    or be Flip Summoned by you (Snatch Steal on a monster summoned in your turn)."""
    position = "set" if event["kind"] == "flip_summoned" else "attack"
    state = fold(*taken(["reposition_opponents_summons"], event, position=position))
    monster = state.cards["p1.m0"]
    assert (monster.controller, monster.summoned_by, monster.position) == (0, 1, position_after)
    assert state.overrides == []


@pytest.mark.parametrize("options, events, rule", [
    pytest.param([], [change("p1.m0", "defense")], "POS-08", id="POS-08-without-the-option"),
    pytest.param([], [flip("p1.m0")], "SUM-11", id="SUM-11-without-the-option"),
    pytest.param(["reposition_opponents_summons"], [summon("p0.m0", 1), change("p0.m0", "defense")], "POS-08",
                 id="POS-08-your-own-summon"),
])
def test_pos_08_sum_11_reposition_opponents_summons_refused(options: list[str], events: list[dict], rule: str) -> None:
    """POS-08, SUM-11: without the option a monster summoned this turn keeps its position whoever
    summoned it; with it, one you summoned yourself still does."""
    position = "set" if events[-1]["kind"] == "flip_summoned" else "attack"
    refused_as(rule, "this turn", *taken(options, *events[:-1], position=position), events[-1])


# -- zones a summon may use (zones.py, through summons) -------------------------------------------

@pytest.mark.parametrize("events, rule, fragment", [
    pytest.param([special("stardust", 5, "synchro", materials=SYNCHRO), special("utopia", 6, "xyz",
                                                                                materials=["vorse", "soldier"])],
                 "ZONE-04", "already uses an Extra Monster Zone", id="ZONE-04-second-emz"),
    pytest.param([special("spider", 3, "link", materials=["ox"])], "NIS-01", "only if a link arrow points to it",
                 id="NIS-01-link-to-main-zone"),
    pytest.param([special("cyber", 7, "inherent")], "ZONE-01", "does not exist", id="ZONE-01-zone-7"),
])
def test_zone_summons_refused_by_zone(events: list[dict], rule: str, fragment: str) -> None:
    refused_as(rule, fragment, board(TUNED), *events)


# -- GEN-01 --------------------------------------------------------------------------------------

def test_gen_01_a_cited_effect_allows_a_second_normal_summon() -> None:
    """GEN-01: the second Normal Summon breaks SUM-01, but the cited effect allows it."""
    cite = {"card": "p0.x9", "effect": "You can conduct 1 additional Normal Summon this turn"}
    state = fold(board(), summon("celtic", 3), summon("kuriboh", 4, cite=cite))
    assert where(state, "kuriboh") == ("mzone", 4, "attack")
    [override] = state.overrides
    assert (override.rule, override.index, override.cite.card) == ("SUM-01", 2, "p0.x9")
    assert "already used the Normal Summon" in override.message


def test_sum_03_a_flip_summon_of_a_monster_once_summoned_by_an_effect_can_be_negated() -> None:
    """SUM-03/SPS-11: only a Special Summon by a resolving effect is beyond negation; the later
    Flip Summon of that monster is a summon of its own and can be negated."""
    events = [position({"gy": [card(CELTIC, "celtic")]}, {"hand": [card(MST, "mst")]}, turn=2, turn_player=1),
              {"kind": "special_summoned", "player": 0, "card": "celtic", "zone": 0, "method": "effect",
               "cause": "mst"},
              {"kind": "position_changed", "card": "celtic", "position": "set", "cause": "mst"},
              {"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "player": 0, "turn": 3},
              {"kind": "phase_entered", "phase": "draw"}, {"kind": "cards_drawn", "player": 0},
              {"kind": "phase_entered", "phase": "standby"}, {"kind": "phase_entered", "phase": "main1"},
              {"kind": "flip_summoned", "player": 0, "card": "celtic"},
              {"kind": "summon_negated", "card": "celtic"}]
    state = fold(*events)
    assert state.cards["celtic"].zone == "gy"
