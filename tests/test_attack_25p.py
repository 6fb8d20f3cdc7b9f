"""Attacks on issue 25's tenth pass: what a player's own device may make the record reveal to it.

A player's device may name a card of the other player's that it does not see where its place is
public (a face-down monster it attacks, a Set card it targets). But an entry of its own that
*reveals* that card made the record say what the card is, and the player's view then showed it:
"I destroyed your face-down card" (sent to the GY, where everyone sees it), a damage calculation
against a face-down monster (flipped face-up, POS-04), a cost paid with a card of the other
player's hand, an opening of a card of the other player's (bound to the passcode it guessed,
refused when wrong: one request a guess); and a seal of a card of the other player's stopped that
player's own seal of it. At a table the card is shown by the player who holds it:
such an entry is now the recorder's or that player's device's (``views.out_of_sight``), and
``/actions`` offers a player's device only what its appends may hold.

And a device's new Tokens: a second Token of one append took the first one's record id (LOG-04,
refused), and a later entry of the append could not name a Token the append created."""
from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from test_attack_25n import _codes_seen
from test_device_names import TURN_2, board, cards_of, count, post, table, view_name  # noqa: F401  (fixture)

LUSTER_DRAGON = 11091375           # p1.m1, Set face-down by player 1 in TURN_2


def _set_down(client: TestClient, duel_id: str, tokens: dict) -> tuple[str, int]:
    """Player 1's face-down monster (TURN_2, by the recorder): its name in player 0's view, and
    the events recorded."""
    assert post(client, duel_id, tokens["recorder"], TURN_2).status_code == 200
    return view_name(client, duel_id, tokens, "p0", "p1.m1"), count(client, duel_id, tokens)


def _shown_of_player_1(client: TestClient, duel_id: str, tokens: dict) -> set[int]:
    """The passcodes of player 1's cards on player 0's board."""
    return {code for player, *_, code in cards_of(board(client, duel_id, tokens["p0"])).values() if player == 1}


def _refused_unseen(client: TestClient, duel_id: str, tokens: dict, answer, at: int, before: set[int]) -> None:
    """Refused (403), nothing written, player 0's view holds no new passcode of player 1's."""
    assert answer.status_code == 403, answer.text
    assert "nothing was written" in answer.json()["error"]
    assert count(client, duel_id, tokens) == at
    assert _codes_seen(client, duel_id, tokens["p0"]) == before


@pytest.mark.parametrize("pile", ["gy", "banished"])
def test_a_players_device_cannot_reveal_the_other_players_face_down_card_by_moving_it(table, pile):
    """"I destroyed your face-down card": player 0's device sent player 1's Set monster to the GY
    (or banished it face-up), and its view then showed the card (Luster Dragon), whatever had
    happened at the table. Refused now; player 1's device, whose card it is, enters it."""
    client, duel_id, tokens, _store = table
    face_down, at = _set_down(client, duel_id, tokens)
    before = _codes_seen(client, duel_id, tokens["p0"])
    move = {"kind": "card_moved", "card": face_down, "to": [1, pile], "reason": "destroyed"}
    refused = post(client, duel_id, tokens["p0"], [move])
    _refused_unseen(client, duel_id, tokens, refused, at, before)
    assert face_down in refused.json()["error"] and "player 1's device" in refused.json()["error"]
    own = view_name(client, duel_id, tokens, "p1", "p1.m1")
    kept = post(client, duel_id, tokens["p1"], [{**move, "card": own, "player": 1}])
    assert kept.status_code == 200, kept.text
    assert LUSTER_DRAGON in _shown_of_player_1(client, duel_id, tokens), "shown by its owner: public"


def _to_damage_step(client: TestClient, duel_id: str, tokens: dict, face_down: str) -> list[dict]:
    """Player 0's Tribute Summon, its Battle Phase and its attack on ``face_down``, to the Damage Step."""
    attacker, tribute = (view_name(client, duel_id, tokens, "p0", c) for c in ("p0.m2", "p0.m0"))
    return [{"kind": "normal_summoned", "player": 0, "card": attacker, "zone": 1, "tributes": [tribute]},
            {"kind": "phase_entered", "phase": "battle"}, {"kind": "step_entered", "step": "battle"},
            {"kind": "attack_declared", "player": 0, "attacker": attacker, "target": face_down},
            {"kind": "step_entered", "step": "damage"}]


@pytest.mark.parametrize("apart", [False, True])
def test_damage_calculation_against_a_face_down_monster_is_not_the_attackers_device(table, apart):
    """Damage calculation flips the face-down monster attacked face-up (POS-04): entered by the
    attacker's device, its view learned the card, though nothing but that device said the battle
    happened. The defender's device (or the recorder) enters it; the attacker's is refused, the
    attack declared in the same append or in an earlier one."""
    client, duel_id, tokens, _store = table
    face_down, at = _set_down(client, duel_id, tokens)
    before = _codes_seen(client, duel_id, tokens["p0"])
    battle = _to_damage_step(client, duel_id, tokens, face_down)
    calculated = {"kind": "damage_calculated", "destroyed": [], "damage": [0, 0]}
    if apart:
        assert post(client, duel_id, tokens["p0"], battle).status_code == 200
        at += len(battle)
        battle = []
    refused = post(client, duel_id, tokens["p0"], [*battle, calculated])
    _refused_unseen(client, duel_id, tokens, refused, at, before)
    assert face_down in refused.json()["error"] and "POS-04" in refused.json()["error"]
    if not apart:
        assert post(client, duel_id, tokens["p0"], battle).status_code == 200
    kept = post(client, duel_id, tokens["p1"], [{**calculated, "player": 1}])
    assert kept.status_code == 200, kept.text
    assert LUSTER_DRAGON in _shown_of_player_1(client, duel_id, tokens), "flipped by its owner's entry"


def test_a_damage_calculation_after_a_correction_in_the_same_append_is_refused(table):
    """The attack a calculation calculates is the head's or the append's own: an append that
    corrects back to before an attack on a face-down monster was cancelled, then calculates it,
    flipped the monster on the attacker's device's word, though the head had no attack."""
    client, duel_id, tokens, _store = table
    face_down, at = _set_down(client, duel_id, tokens)
    before = _codes_seen(client, duel_id, tokens["p0"])
    battle = [*_to_damage_step(client, duel_id, tokens, face_down), {"kind": "attack_cancelled", "cause": "negated"}]
    assert post(client, duel_id, tokens["p0"], battle).status_code == 200
    at += len(battle)
    again = [{"kind": "entry_corrected", "to": at - 1, "reason": "the attack was not negated"},
             {"kind": "damage_calculated", "destroyed": [], "damage": [0, 0]}]
    refused = post(client, duel_id, tokens["p0"], again)
    _refused_unseen(client, duel_id, tokens, refused, at, before)
    assert "correction" in refused.json()["error"]


@pytest.mark.parametrize("whose", ["hand", "mzone"])
def test_a_cost_is_never_a_card_the_other_player_holds_hidden(table, whose):
    """A cost is a card moved (CHAIN-11), named inside ``costs``, where the door did not look:
    player 0's device paid a cost with a card of player 1's hand (or its face-down monster) sent
    to the GY, and its view showed the card."""
    client, duel_id, tokens, _store = table
    _face_down, at = _set_down(client, duel_id, tokens)
    before = _codes_seen(client, duel_id, tokens["p0"])
    paid = view_name(client, duel_id, tokens, "p0", "p1.m1" if whose == "mzone" else "p1.m2")
    mine = view_name(client, duel_id, tokens, "p0", "p0.m4")
    activation = {"kind": "activated", "player": 0, "card": mine, "effect_type": "quick",
                  "costs": [{"card": paid, "to": "gy", "reason": "cost"}]}
    refused = post(client, duel_id, tokens["p0"], [activation])
    _refused_unseen(client, duel_id, tokens, refused, at, before)
    assert paid in refused.json()["error"]


def test_opening_a_card_of_the_other_players_is_no_oracle(table):
    """``cards_opened`` binds the cards it opens as ``shows`` does, where the door did not look:
    player 0's device "opening" a card of player 1's hand was refused (LOG-10) when its guess was
    wrong and kept when right (one request a guess), and a card the record did not know took the
    guess. Both are refused now, in the same words."""
    client, duel_id, tokens, _store = table
    at = count(client, duel_id, tokens)
    hand = view_name(client, duel_id, tokens, "p0", "p1.m0")        # Vorse Raider (14898066)
    answers = set()
    for guess in (14898066, 15025844):
        opening = {"kind": "cards_opened", "player": 0, "cards": {hand: {"code": guess}}}
        answer = post(client, duel_id, tokens["p0"], [opening])
        answers.add((answer.status_code, answer.text))
    assert len(answers) == 1, answers
    status, text = answers.pop()
    assert status == 403 and "nothing was written" in text and "Vorse Raider" not in text
    assert count(client, duel_id, tokens) == at


def test_a_device_seals_no_card_of_the_other_players(table):
    """A seal is of a card its sealer holds hidden (LOG-11): player 0's device sealed a card of
    player 1's hand (kept, flagged), and player 1's own seal of it was then LOG-04 ("sealed
    already", its seal not kept) and its opening LOG-11 ("sealed by player 0"): one device stopped
    the other's. Refused now; player 1 seals its card."""
    client, duel_id, tokens, _store = table
    at = count(client, duel_id, tokens)
    seal = "sha256:" + "ab" * 32
    theirs = view_name(client, duel_id, tokens, "p0", "p1.m0")
    refused = post(client, duel_id, tokens["p0"], [{"kind": "cards_sealed", "player": 0, "seals": {theirs: seal}}])
    assert refused.status_code == 403 and f"seals {theirs}," in refused.json()["error"], refused.text
    assert count(client, duel_id, tokens) == at
    own = view_name(client, duel_id, tokens, "p1", "p1.m0")
    kept = post(client, duel_id, tokens["p1"], [{"kind": "cards_sealed", "player": 1, "seals": {own: seal}}])
    assert kept.status_code == 200 and kept.json()["flags"] == [], kept.text


SHEEP_TOKEN = 73915052


def _sheep(n: int) -> dict:
    return {"kind": "token_created", "player": 0, "card": f"p0.t{n + 1}", "code": SHEEP_TOKEN, "zone": n,
            "position": "defense", "cause": "scapegoat"}


def test_a_device_creates_several_tokens_in_one_append(table):
    """Scapegoat's four Tokens are four ``token_created`` in one append: the second took the
    first's fresh record id (refused, LOG-04, "already in use" naming the first by its device
    name). Each takes an id of its own; player 0's view has the four."""
    client, duel_id, tokens, _store = table
    answer = post(client, duel_id, tokens["p0"], [_sheep(n) for n in range(4)])
    assert answer.status_code == 200, answer.text
    judge = board(client, duel_id, tokens["judge"])["players"][0]["mzone"]
    assert len({judge[n]["id"] for n in range(4)}) == 4 and all(judge[n]["code"] == SHEEP_TOKEN for n in range(4))
    mine = board(client, duel_id, tokens["p0"])["players"][0]["mzone"]
    assert [c and c["code"] for c in mine[:4]] == [SHEEP_TOKEN] * 4


def test_a_later_entry_of_the_append_names_a_token_as_its_creation_did(table):
    """A Token the append created is named by its later entries as its ``token_created`` named
    it (here Tributed at once); it was no card the view knew (400, nothing written)."""
    client, duel_id, tokens, _store = table
    gone = {"kind": "card_moved", "card": "p0.t1", "to": [0, "gy"], "reason": "tributed"}
    answer = post(client, duel_id, tokens["p0"], [_sheep(0), gone])
    assert answer.status_code == 200, answer.text
    assert board(client, duel_id, tokens["judge"])["players"][0]["mzone"][0] is None, "the Token left the field"
    events = client.get(f"/duels/{duel_id}/events", headers={"Authorization": f"Bearer {tokens['judge']}"}).text
    made, moved = (json.loads(line)["event"] for line in events.splitlines()[-2:])
    assert moved["kind"] == "card_moved" and moved["card"] == made["card"] != "p0.t1"


def test_a_players_actions_offer_no_entry_its_device_may_not_make(table):
    """``/actions`` offered player 0 "Send to the GY" of player 1's face-down monster, and the
    Damage Step's calculation against it: both are now refused from its device, so not offered;
    the calculation is offered to player 1's device, whose monster it flips."""
    client, duel_id, tokens, _store = table
    face_down, _at = _set_down(client, duel_id, tokens)

    def offered(role: str, card: str | None = None) -> list[dict]:
        params = {"card": card} if card else {}
        answer = client.get(f"/duels/{duel_id}/actions", params=params,
                            headers={"Authorization": f"Bearer {tokens[role]}"})
        assert answer.status_code == 200, answer.text
        return [a["event"] for a in answer.json()["actions"]]
    assert not [e for e in offered("p0", face_down) if e["kind"] == "card_moved"]
    assert post(client, duel_id, tokens["p0"], _to_damage_step(client, duel_id, tokens, face_down)).status_code == 200
    assert "damage_calculated" not in [e["kind"] for e in offered("p0")]
    calculated = [e for e in offered("p1") if e["kind"] == "damage_calculated"]
    assert calculated and calculated[0]["player"] == 1
    assert post(client, duel_id, tokens["p1"], calculated[:1]).status_code == 200
