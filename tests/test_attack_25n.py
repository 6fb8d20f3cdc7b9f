"""Attacks on issue 25's ninth pass: a player's own device is a second way to write a witnessed
duel (the first is the table's recorder, whose view is the record's). Its entries were judged by
the full record's fold and kept when flagged (record, don't referee), so an entry naming a card
of the other player that the device may not see made that fold tell it, or show it, what the
card is: the ``shows`` of any event (LOG-10's refusal named the card, nothing written), a Set of
the other player's hand card (the card came into the device's own control face-down, its view
disclosed it), a card of the other player's Deck. And the flags an append answered were the
full record's, while the same entry's flags in the player's own frames are its view's.

The check lives where every door decides what a player's device may record
(``application._stamped``, ``views.out_of_sight``); the flags an append answers a player are
those of the player's own view (``LiveDuel.flags``), as its frames give them."""
from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from ygoreplay.access import digest
from ygoreplay.service import create_app
from ygoreplay.store import Store

from test_device_names import view_name
from test_service import events_of

ADMIN = "organiser-test-token-0123456789abcdef0123456789"
ORGANISER = {"Authorization": f"Bearer {ADMIN}"}
WON = events_of("won-by-damage.jsonl")
#: The duel, both decks, both opening hands, turn 1 to its Main Phase 1 (player 0's).
START = [{**WON[0], "witnessed": True}, *WON[1:9]]
#: What player 1 holds: the first five cards of its list (``cards_drawn`` in the record's order).
MYSTICAL_ELF = 15025844            # p1.m5 (the sixth card of player 1's list: its Deck)
VORSE_RAIDER = 14898066            # p1.m0 (in player 1's hand)


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def table(tmp_path):
    """A witnessed duel at player 0's Main Phase 1, entered by the recorder; the client, the
    duel's id and its tokens."""
    with Store(str(tmp_path / "duels.sqlite"), concurrent=True) as store, \
            TestClient(create_app(store, digest(ADMIN))) as client:
        duel = client.post("/duels", json={"title": "table 1", "mode": "witnessed"}, headers=ORGANISER).json()
        assert client.post(f"/duels/{duel['id']}/events", json=START,
                           headers=auth(duel["tokens"]["recorder"])).status_code == 200
        yield client, duel["id"], duel["tokens"]


def _codes_seen(client: TestClient, duel_id: str, token: str) -> set[int]:
    """Every passcode player 0's view holds of player 1's cards, in any event or board."""
    frames = client.get(f"/duels/{duel_id}/frames", headers=auth(token)).json()["frames"]
    cards = client.get(f"/duels/{duel_id}/cards", headers=auth(token)).json()
    board = client.get(f"/duels/{duel_id}/state", headers=auth(token)).json()["board"]
    seen = {c["code"] for c in cards}
    for place in board["players"][1].values():
        for card in place if isinstance(place, list) else ():
            if isinstance(card, dict) and card.get("code"):
                seen.add(card["code"])
    return seen | {c["code"] for f in frames for c in f["cards"]}


@pytest.mark.parametrize("card, code", [("p1.m0", 0), ("p1.m5", 0), ("p1.m0", 46986414), ("p1.m5", 46986414)])
def test_a_players_device_cannot_show_a_card_of_the_other_players(table, card, code):
    """``shows`` binds a card to a passcode before the event is judged: from player 0's device,
    a card of player 1's hand or Deck with a wrong passcode was refused by LOG-10 naming what the
    card is ("p1.m5 was shown to be Mystical Elf"), nothing written: one request a card, and
    player 1's whole hand and Deck were player 0's to read."""
    client, duel_id, tokens = table
    shown = {card: code or (MYSTICAL_ELF if card == "p1.m0" else VORSE_RAIDER)}
    answer = client.post(f"/duels/{duel_id}/events", json=[{"kind": "phase_entered", "phase": "battle",
                                                            "shows": shown}], headers=auth(tokens["p0"]))
    assert answer.status_code == 403, answer.text
    assert "Mystical Elf" not in answer.text and "Vorse Raider" not in answer.text
    assert "nothing was written" in answer.json()["error"]
    assert client.get(f"/duels/{duel_id}/state", headers=auth(tokens["judge"])).json()["events"] == len(START)


@pytest.mark.parametrize("event", [
    {"kind": "monster_set", "player": 0, "card": "p1.m0", "zone": 3},            # player 1's hand
    {"kind": "monster_set", "player": 0, "card": "p1.m5", "zone": 3},            # player 1's Deck
    {"kind": "card_moved", "card": "p1.m1", "to": [0, "hand"], "reason": "added"},   # turn player's: 0
    {"kind": "normal_summoned", "player": 0, "card": "p1.m2", "zone": 4},
])
def test_a_players_device_cannot_take_a_card_the_other_player_holds_hidden(table, event):
    """Player 0's device Set player 1's hand card as its own: flagged (SUM-01, kept), the card
    came into player 0's control face-down, and its view disclosed it (and the flag named it).
    Refused now, nothing written, and player 0's view never holds the card."""
    client, duel_id, tokens = table
    before = _codes_seen(client, duel_id, tokens["p0"])
    answer = client.post(f"/duels/{duel_id}/events", json=[event], headers=auth(tokens["p0"]))
    assert answer.status_code == 403, answer.text
    assert "nothing was written" in answer.json()["error"]
    for name in ("Vorse Raider", "Mystical Elf", "Celtic Guardian", "Witch"):
        assert name not in answer.text
    assert client.get(f"/duels/{duel_id}/state", headers=auth(tokens["judge"])).json()["events"] == len(START)
    assert _codes_seen(client, duel_id, tokens["p0"]) == before


def test_the_other_players_face_down_card_is_not_taken_but_may_be_attacked(table):
    """A card player 1 Set is on the field, face-down: player 0's device may attack it (its
    place is public), not take it into its own control (its view would disclose it)."""
    client, duel_id, tokens = table
    turn_2 = [*WON[9:12], *WON[12:17], {"kind": "monster_set", "player": 1, "card": "p1.m1", "zone": 3},
              {"kind": "phase_entered", "phase": "end"}, *WON[28:33]]
    assert client.post(f"/duels/{duel_id}/events", json=turn_2, headers=auth(tokens["recorder"])).status_code == 200
    at = len(START) + len(turn_2)
    # a player's device names cards as its own view does (test_device_names.py)
    set_card, attacker, tribute = (view_name(client, duel_id, tokens, "p0", c) for c in ("p1.m1", "p0.m2", "p0.m0"))
    take = {"kind": "card_moved", "card": set_card, "to": [0, "hand"], "reason": "added"}
    refused = client.post(f"/duels/{duel_id}/events?expected={at}", json=[take], headers=auth(tokens["p0"]))
    assert refused.status_code == 403 and "nothing was written" in refused.json()["error"], refused.text
    assert f"names {set_card}," in refused.json()["error"], "the card as the device named it"
    attack = [{**WON[33], "card": attacker, "tributes": [tribute]}, WON[34], WON[35],
              {"kind": "attack_declared", "player": 0, "attacker": attacker, "target": set_card}]
    kept = client.post(f"/duels/{duel_id}/events?expected={at}", json=attack, headers=auth(tokens["p0"]))
    assert kept.status_code == 200, kept.text


def test_the_flags_an_append_answers_a_player_are_its_own_views(table):
    """The append answered the flags of the full record's fold: player 0's device declaring an
    attack on the card player 1 Set in its Spell & Trap Zone (a target it may name: its place is
    public) was answered "Axe of Despair (p1.m2) is not a monster the opponent controls" (BATTLE-02),
    where player 0's frames, made by its own view, name no card. The answer is now the frames'."""
    client, duel_id, tokens = table
    turn_2 = [*WON[9:12], *WON[12:17], {"kind": "spell_trap_set", "player": 1, "card": "p1.m2", "zone": 1},
              {"kind": "phase_entered", "phase": "end"}, *WON[28:36]]
    for event in turn_2:                   # one at a time: an entry that shows the table a card ends its batch
        assert client.post(f"/duels/{duel_id}/events", json=[event], headers=auth(tokens["recorder"])).status_code == 200
    attack = {"kind": "attack_declared", "player": 0, "attacker": view_name(client, duel_id, tokens, "p0", "p0.m2"),
              "target": view_name(client, duel_id, tokens, "p0", "p1.m2")}
    flagged = client.post(f"/duels/{duel_id}/events", json=[attack], headers=auth(tokens["p0"]))
    assert flagged.status_code == 200, flagged.text
    assert "Axe of Despair" not in flagged.text
    position = flagged.json()["position"] - 1
    frames = client.get(f"/duels/{duel_id}/frames?from={position}", headers=auth(tokens["p0"])).json()["frames"]
    assert [f["rule"] for f in flagged.json()["flags"]] == ["BATTLE-02"]
    assert flagged.json()["flags"] == [{"index": position, **flag} for flag in frames[0]["flags"]]
    judge = client.get(f"/duels/{duel_id}/frames?from={position}", headers=auth(tokens["judge"])).json()["frames"]
    assert "Axe of Despair" in judge[0]["flags"][0]["message"], "the judge's view names it"


def test_a_duels_tree_lists_only_the_branches_the_token_opens(tmp_path):
    """A match's token opens the match's duels (``Service.match_role``), not a branch a judge made
    of one (a branch is no duel of the match). ``/tree`` decided apart, by the token's role's
    digest in each duel of the family: a match's token, a role of that duel's through its match,
    was listed the duel's branches (ids, titles, events) that the same token is refused (404)."""
    from test_match_service import MATCHES, lines, match_body
    sample = lines(MATCHES / "two-nil.jsonl")
    with Store(str(tmp_path / "duels.sqlite"), concurrent=True) as store, \
            TestClient(create_app(store, digest(ADMIN))) as client:
        match = client.post("/matches", json=match_body(sample), headers=ORGANISER).json()
        tokens = match["tokens"]
        started = next(ev for ev in sample if ev["kind"] == "game_started")
        game = client.post(f"/matches/{match['id']}/games", headers=ORGANISER,     # handed every token
                           json={k: started[k] for k in ("first_player", "chosen_by")}).json()
        duel_id = game["duel"]["id"]
        assert client.post(f"/duels/{duel_id}/events", json=lines(MATCHES / started["duel"])[:8],
                           headers=auth(tokens["recorder"])).status_code == 200
        branch = client.post(f"/duels/{duel_id}/branch", json={"at": 5, "title": "what if p1 had Ash"},
                             headers=auth(game["duel"]["tokens"]["judge"])).json()["id"]
        for role in ("p0", "spectator", "judge"):
            assert client.get(f"/duels/{branch}/state", headers=auth(tokens[role])).status_code == 404
            listed = client.get(f"/duels/{duel_id}/tree", headers=auth(tokens[role]))
            assert listed.status_code == 200 and [d["id"] for d in listed.json()] == [duel_id], listed.text
        own = client.get(f"/duels/{duel_id}/tree", headers=auth(game["duel"]["tokens"]["p0"])).json()
        assert [d["id"] for d in own] == [duel_id, branch], "the duel's own token opens its branch"
        assert client.get(f"/duels/{branch}/state", headers=auth(game["duel"]["tokens"]["p0"])).status_code == 200
