"""A paper duel recorded at the table over HTTP, as the recorder's page or a phone app does it: a
duel started with unknown decks, each card named when it is shown, and what the table plays
entered from ``GET /duels/{id}/actions`` in a tap: Extra Deck Summons by their procedure (XYZ-01,
SYN-01, LINK-01/02) and a resolved Normal Trap leaving for the GY before its chain is over
(TRAP-04), never flagged for the order a recorder enters them in."""
from __future__ import annotations

from test_release import ORGANISER, auth, client, store  # noqa: F401  (fixtures)

VORSE, CELTIC, UTOPIA = 14898066, 91152256, 84013237
JUNK_SYNCHRON, CYBER_DRAGON, STARDUST = 63977008, 70095154, 44508094
GIANT_SOLDIER, LINK_SPIDER = 13039848, 98978921
WARWOLF, MAGIC_CYLINDER = 69247929, 62279055


#: Player 0's first turn handed over: player 1's second turn, at its Main Phase 1.
TURN_2 = (
    {"kind": "phase_entered", "phase": "end"},
    {"kind": "turn_started", "player": 1, "turn": 2}, {"kind": "phase_entered", "phase": "draw"},
    {"kind": "cards_drawn", "player": 1}, {"kind": "phase_entered", "phase": "standby"},
    {"kind": "phase_entered", "phase": "main1"},
)
#: Player 0's Vorse Raider, shown as it is Normal Summoned.
VORSE_SUMMONED = {"kind": "normal_summoned", "player": 0, "card": "p0.m0", "zone": 2, "shows": {"p0.m0": VORSE}}
#: Player 1's Warwolf, summoned in its second turn, attacks Vorse Raider.
WARWOLF_ATTACKS = (
    {"kind": "normal_summoned", "player": 1, "card": "p1.m0", "zone": 0, "shows": {"p1.m0": WARWOLF}},
    {"kind": "phase_entered", "phase": "battle"}, {"kind": "step_entered", "step": "battle"},
    {"kind": "attack_declared", "player": 1, "attacker": "p1.m0", "target": "p0.m0"},
)
#: Vorse Raider and a Set card, then Warwolf's attack answered by that card, Magic Cylinder,
#: activated and resolved (Chain Link 1).
CYLINDER_RESOLVED = (
    VORSE_SUMMONED, {"kind": "spell_trap_set", "player": 0, "card": "p0.m1", "zone": 0},
    *TURN_2, *WARWOLF_ATTACKS,
    {"kind": "activated", "player": 0, "card": "p0.m1", "shows": {"p0.m1": MAGIC_CYLINDER}},
    {"kind": "chain_link_resolved", "link": 1})


def at_the_table(client, *played: dict, **settings) -> tuple[dict, str]:  # noqa: F811
    """A witnessed duel as the recorder's page starts one (40 unknown cards and 15 unknown Extra
    Deck cards each, hands drawn), on turn 1 in Main Phase 1, then ``played``; ``settings`` the
    duel's own at creation (``warnings=True``)."""
    duel = client.post("/duels", json={"title": "table 7", "mode": "witnessed", **settings}, headers=ORGANISER).json()
    recorder = duel["tokens"]["recorder"]
    events = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["Yugi", "Kaiba"],
               "witnessed": True},
              *({"kind": "deck_registered", "player": p, "main": [0] * 40, "extra": [0] * 15} for p in (0, 1)),
              *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
              {"kind": "turn_started", "player": 0, "turn": 1},
              *({"kind": "phase_entered", "phase": phase} for phase in ("draw", "standby", "main1")), *played]
    r = client.post(f"/duels/{duel['id']}/events", params={"expected": 0}, json=events, headers=auth(recorder))
    assert r.status_code == 200 and r.json()["flags"] == [], r.text
    return duel, recorder


def offered(client, duel: dict, card: str, shows: str, label: str) -> dict:  # noqa: F811
    r = client.get(f"/duels/{duel['id']}/actions", params={"card": card, "shows": shows},
                   headers=auth(duel["tokens"]["judge"]))
    assert r.status_code == 200, r.text
    found = {a["label"]: a for a in r.json()["actions"]}
    assert label in found, f"{label!r} is not offered for {card}: {sorted(found)}"
    return found[label]


def tapped(client, duel: dict, recorder: str, event: dict) -> dict:  # noqa: F811
    """The action entered as offered (one tap on the page): stored, nothing flagged, the board after."""
    count = client.get(f"/duels/{duel['id']}/state", headers=auth(recorder)).json()["events"]
    r = client.post(f"/duels/{duel['id']}/events", params={"expected": count}, json=[event], headers=auth(recorder))
    assert r.status_code == 200 and r.json()["flags"] == [], r.text
    return client.get(f"/duels/{duel['id']}/state", headers=auth(recorder)).json()["board"]


def ids(cards: list) -> list:
    return [c and c["id"] for c in cards]


def test_an_xyz_summon_at_the_table_is_one_tap_its_materials_attached(client) -> None:  # noqa: F811
    """XYZ-01: two Level 4 monsters on the field, the Xyz monster named as it comes out of the Extra
    Deck: the actions offer its Xyz Summon with both as materials (the page's one tap), and the
    board then has it with its two materials, neither left on the field. The actions offered only an
    ``inherent`` Special Summon of it, materials none: the table's Xyz Summon had to be typed."""
    duel, recorder = at_the_table(
        client,
        {"kind": "normal_summoned", "player": 0, "card": "p0.m0", "zone": 2, "shows": {"p0.m0": VORSE}},
        {"kind": "special_summoned", "player": 0, "card": "p0.m1", "zone": 3, "method": "effect",
         "shows": {"p0.m1": CELTIC}})
    action = offered(client, duel, "p0.x0", f"p0.x0:{UTOPIA}", "Xyz Summon")
    assert action["verdict"] == "legal"
    assert action["event"]["method"] == "xyz" and sorted(action["event"]["materials"]) == ["p0.m0", "p0.m1"]
    board = tapped(client, duel, recorder, action["event"])
    side = board["players"][0]
    summoned = next(c for c in [*side["mzone"], *board["emz"]] if c and c["id"] == "p0.x0")
    assert sorted(m["id"] for m in summoned["materials"]) == ["p0.m0", "p0.m1"]
    assert not {"p0.m0", "p0.m1"} & set(ids(side["mzone"]) + ids(board["emz"]))


def test_synchro_and_link_summons_at_the_table_are_one_tap(client) -> None:  # noqa: F811
    """SYN-01: a Tuner and a non-Tuner whose Levels sum to the Synchro monster's; LINK-01/02: a
    Link-1 from one monster. Each is offered by its procedure with those materials, and stored so."""
    duel, recorder = at_the_table(
        client,
        {"kind": "normal_summoned", "player": 0, "card": "p0.m0", "zone": 0, "shows": {"p0.m0": JUNK_SYNCHRON}},
        {"kind": "special_summoned", "player": 0, "card": "p0.m1", "zone": 1, "method": "effect",
         "shows": {"p0.m1": CYBER_DRAGON}},
        {"kind": "special_summoned", "player": 0, "card": "p0.m2", "zone": 2, "method": "effect",
         "shows": {"p0.m2": GIANT_SOLDIER}})
    synchro = offered(client, duel, "p0.x0", f"p0.x0:{STARDUST}", "Synchro Summon")["event"]
    assert synchro["method"] == "synchro" and sorted(synchro["materials"]) == ["p0.m0", "p0.m1"]
    board = tapped(client, duel, recorder, synchro)
    assert {"p0.m0", "p0.m1"}.isdisjoint(ids(board["players"][0]["mzone"]) + ids(board["emz"]))
    link = offered(client, duel, "p0.x1", f"p0.x1:{LINK_SPIDER}", "Link Summon")
    assert link["event"]["method"] == "link" and len(link["event"]["materials"]) == 1
    assert ["p0.m2"] in [link["event"]["materials"], *link.get("choices", {}).get("materials", [])]
    board = tapped(client, duel, recorder, {**link["event"], "materials": ["p0.m2"]})
    assert "p0.x1" in ids(board["players"][0]["mzone"]) + ids(board["emz"])
    assert "p0.m2" in ids(board["players"][0]["gy"])


def test_a_resolved_normal_trap_is_offered_to_the_gy_before_the_chain_is_over(client) -> None:  # noqa: F811
    """TRAP-04: a Set Normal Trap activated in the opponent's attack and resolved must be in the GY
    before its chain is over. With the last link resolved, the turn's moves offer it to the GY
    (``reason: resolved``) before the chain's end; entered in that order nothing is flagged. The
    moves offered only the chain's end, which a witnessed duel then flagged TRAP-04."""
    duel, recorder = at_the_table(
        client, *CYLINDER_RESOLVED,
        {"kind": "attack_cancelled", "player": 0, "cause": "p0.m1"},
        {"kind": "life_points_changed", "player": 1, "amount": 2000, "reason": "effect_damage", "lp": 6000,
         "cause": "p0.m1"})
    r = client.get(f"/duels/{duel['id']}/actions", headers=auth(duel["tokens"]["judge"]))
    moves = [a["event"] for a in r.json()["actions"]]
    assert {"kind": "attack_cancelled", "player": 0, "cause": "p0.m1"} not in moves    # already entered
    leaving = {"kind": "card_moved", "card": "p0.m1", "to": [0, "gy"], "reason": "resolved"}
    assert leaving in moves and moves.index(leaving) < moves.index({"kind": "chain_ended"})
    board = tapped(client, duel, recorder, leaving)
    assert "p0.m1" in ids(board["players"][0]["gy"])
    tapped(client, duel, recorder, {"kind": "chain_ended"})


def test_what_may_be_entered_is_labelled_in_the_readers_language(client) -> None:  # noqa: F811
    """The actions' labels were English whatever the language asked (``?lang=``, Accept-Language):
    a recorder reading the page in Japanese, Korean or Chinese tapped English buttons (Normal
    Summon, Attack, Send to the GY, the turn's moves). Each action now carries ``label_translated``
    in the reader's language beside the English ``label`` (what a script matches on, unchanged),
    as a refusal's message does; in English there is none."""
    duel, recorder = at_the_table(
        client, *TURN_2,
        {"kind": "normal_summoned", "player": 1, "card": "p1.m0", "zone": 2, "shows": {"p1.m0": VORSE}},
        {"kind": "phase_entered", "phase": "battle"}, {"kind": "step_entered", "step": "battle"},
        {"kind": "attack_declared", "player": 1, "attacker": "p1.m0"}, {"kind": "step_entered", "step": "damage"},
        {"kind": "damage_calculated", "damage": [1900, 0]})
    asked = [("card", "p1.m1"), ("card", "p1.m0"), (None, None)]          # a hand card, a monster, the turn
    for language in ("ja", "ko", "zh-Hans", "zh-Hant"):
        for field, card in asked:
            params = {"lang": language, **({field: card} if field else {})}
            found = client.get(f"/duels/{duel['id']}/actions", params=params, headers=auth(recorder)).json()["actions"]
            assert found
            english = [a["label"] for a in found if a.get("label_translated", a["label"]) == a["label"]]
            assert not english, f"English left in {language}: {english}"
    found = client.get(f"/duels/{duel['id']}/actions", params={"lang": "ja"}, headers=auth(recorder)).json()["actions"]
    damage = next(a for a in found if a["event"]["kind"] == "life_points_changed")
    assert damage["label"] == "Battle damage 1900 to Yugi"                 # the English kept for scripts
    assert damage["label_translated"] == "Yugiに1900の戦闘ダメージ"
    hand = client.get(f"/duels/{duel['id']}/actions", params={"card": "p1.m1", "lang": "en"}, headers=auth(recorder))
    assert all("label_translated" not in a for a in hand.json()["actions"])


def test_a_monster_destroyed_in_battle_goes_to_the_gy_by_battle_in_one_tap(client) -> None:  # noqa: F811
    """BATTLE-14: after the damage calculation destroyed a monster, its sheet's *Send to the GY*
    moves it ``reason: battle`` (the record's "destroyed by battle", what a search by what happened
    to a card counts). It was ``destroyed``, as for an effect, whatever destroyed it."""
    duel, recorder = at_the_table(
        client, VORSE_SUMMONED, *TURN_2, *WARWOLF_ATTACKS,
        {"kind": "step_entered", "step": "damage"},
        {"kind": "damage_calculated", "destroyed": ["p0.m0"], "damage": [100, 0]},
        {"kind": "life_points_changed", "player": 0, "amount": 100, "reason": "battle_damage", "lp": 7900})
    destroyed = offered(client, duel, "p0.m0", "", "Send to the GY")["event"]
    assert destroyed == {"kind": "card_moved", "card": "p0.m0", "to": [0, "gy"], "reason": "battle"}
    survivor = offered(client, duel, "p1.m0", "", "Send to the GY")["event"]
    assert survivor["reason"] == "destroyed"                # not destroyed by this battle: as before
    board = tapped(client, duel, recorder, destroyed)
    assert "p0.m0" in ids(board["players"][0]["gy"])


def test_an_attack_negated_by_the_trap_that_resolved_is_one_tap(client) -> None:  # noqa: F811
    """BATTLE-06: Magic Cylinder resolved in the Battle Step; the attack it negates is among the
    turn's moves, caused by it and entered as its player's (the trap's own player's device may enter
    it), and stored unflagged. It could be entered only through the page's form for any event, whose
    player field said the turn player."""
    duel, recorder = at_the_table(
        client, *CYLINDER_RESOLVED)
    r = client.get(f"/duels/{duel['id']}/actions", headers=auth(duel["tokens"]["judge"]))
    negate = next(a for a in r.json()["actions"] if a["event"]["kind"] == "attack_cancelled")
    assert negate["event"] == {"kind": "attack_cancelled", "player": 0, "cause": "p0.m1"}
    assert negate["verdict"] == "legal"
    board = tapped(client, duel, recorder, negate["event"])
    assert board.get("attack") is None
