"""A player's device writes its own view's card names (issue 25, ninth pass, reported after the
``doors`` merge). A player's view renames every card, its own included (``views._Names``: a keyed
permutation of each pile, fresh names for a pile it cannot follow), and its board, frames and
``/actions`` name cards so; its appends were read as record ids. ``/actions`` offered player 0
``monster_set p0.m25`` (its view's name of a hand card): appended with its token, it moved the
record's ``p0.m25``, a card of its Deck. And a device could probe record ids: an opponent's hidden
card answered 403 ("a card of player 1's that player 0 does not see"), a name of no card 422
(LOG-01), so the answer told which record id was which hidden card, and the face-down one could
then be sent to the GY, where everyone sees it.

Now every entry entered as a player (its token, or the command line's ``append --by p0``) is
turned into record ids at the one door (``application._stamped``, ``views.DeviceNames``) by the
names the player's view has at the head (the live duel's view, else derived from the record); a
name the view does not know is refused with the same words whatever it is, and the reasons given
name cards as the view does."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from test_service import events_of
from ygoreplay.access import digest
from ygoreplay.cli import main
from ygoreplay.service import create_app
from ygoreplay.store import Store
from ygoreplay.views import Redactor

ADMIN = "organiser-test-token-0123456789abcdef0123456789"
ORGANISER = {"Authorization": f"Bearer {ADMIN}"}
WON = events_of("won-by-damage.jsonl")
#: The duel, both decks, both opening hands, turn 1 to its Main Phase 1 (player 0's).
START = [{**WON[0], "witnessed": True}, *WON[1:9]]
#: Turn 2: player 1 Sets ``p1.m1`` face-down, then turn 3 to player 0's Main Phase 1.
TURN_2 = [*WON[9:12], *WON[12:17], {"kind": "monster_set", "player": 1, "card": "p1.m1", "zone": 3},
          {"kind": "phase_entered", "phase": "end"}, *WON[28:33]]


def view_names(store: Store, duel_id: str, view: str) -> dict[str, str]:
    """The view's name of each record id at the stored head, as the store's secret makes them."""
    stored = store.load(duel_id, verified=False)
    redactor = Redactor(stored.cards, view, stored.header.secret)
    for event in stored.events:
        redactor.feed(event)
    return redactor.names.of


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def table(tmp_path):
    """A witnessed duel at player 0's Main Phase 1, entered by the recorder: the client, the
    duel's id, its tokens and the store."""
    with Store(str(tmp_path / "duels.sqlite"), concurrent=True) as store, \
            TestClient(create_app(store, digest(ADMIN))) as client:
        duel = client.post("/duels", json={"title": "table 1", "mode": "witnessed"}, headers=ORGANISER).json()
        assert client.post(f"/duels/{duel['id']}/events", json=START,
                           headers=auth(duel["tokens"]["recorder"])).status_code == 200
        yield client, duel["id"], duel["tokens"], store


def board(client, duel_id: str, token: str) -> dict:
    return client.get(f"/duels/{duel_id}/state", headers=auth(token)).json()["board"]


def cards_of(seen: dict) -> dict[str, tuple]:
    """Every card a board shows by id: (player, zone, index, passcode)."""
    out = {}
    for player, side in enumerate(seen["players"]):
        for zone, place in side.items():
            for index, card in enumerate(place if isinstance(place, list) else [place]):
                if isinstance(card, dict) and "id" in card:
                    out[card["id"]] = (player, zone, index, card.get("code"))
    return out


def view_name(client, duel_id: str, tokens: dict, view: str, record_id: str) -> str:
    """The name ``view`` gives the card the record calls ``record_id``, read off the two boards
    (the same place: a hand keeps its order in every view)."""
    where = cards_of(board(client, duel_id, tokens["judge"]))[record_id][:3]
    return next(name for name, place in cards_of(board(client, duel_id, tokens[view])).items() if place[:3] == where)


def post(client, duel_id: str, token: str, events: list[dict], expected: int | None = None):
    query = "" if expected is None else f"?expected={expected}"
    return client.post(f"/duels/{duel_id}/events{query}", json=events, headers=auth(token))


def count(client, duel_id: str, tokens: dict) -> int:
    return client.get(f"/duels/{duel_id}/state", headers=auth(tokens["judge"])).json()["events"]


def test_a_hand_card_set_by_its_view_name_is_that_card(table):
    """The report, end to end: ``/actions`` offers player 0 a Set of a hand card by its view's
    name; appended with player 0's token, the judge's board has that card Set (the same passcode),
    not the record's card of that id (a card of the Deck)."""
    client, duel_id, tokens, _store = table
    hand = board(client, duel_id, tokens["p0"])["players"][0]["hand"]
    offered = None
    for card in hand:
        actions = client.get(f"/duels/{duel_id}/actions", params={"card": card["id"]},
                             headers=auth(tokens["p0"])).json()["actions"]
        offered = next((a["event"] for a in actions if a["event"]["kind"] == "monster_set"), None)
        if offered is not None:
            break
    assert offered is not None
    code = next(c["code"] for c in hand if c["id"] == offered["card"])
    answer = post(client, duel_id, tokens["p0"], [offered])
    assert answer.status_code == 200, answer.text
    judge = board(client, duel_id, tokens["judge"])["players"][0]
    assert [c["code"] for c in judge["mzone"] if c] == [code], "the card the device named, Set"
    assert code not in [c["code"] for c in judge["hand"]] or \
        sorted(c["code"] for c in judge["hand"]) == sorted(c["code"] for c in hand if c["id"] != offered["card"])
    mine = board(client, duel_id, tokens["p0"])["players"][0]
    assert [c["id"] for c in mine["mzone"] if c] == [offered["card"]], "its view calls it as the device did"


def _probe(client, duel_id, tokens, name: str):
    return post(client, duel_id, tokens["p0"],
                [{"kind": "card_moved", "card": name, "to": [1, "gy"], "reason": "destroyed"}])


def test_an_opponents_hidden_card_is_named_by_its_view_name_only(table):
    """Player 1's face-down monster may be targeted by player 0's device (its place is public): by
    the name player 0's view gives it. By its record id (tried among every id of player 1's list),
    it was moved (and shown to player 0); now no other name names it, and nothing is written. (Sent
    to the GY it is shown: its owner's device or the recorder enters that, test_attack_25p.py.)"""
    client, duel_id, tokens, _store = table
    assert post(client, duel_id, tokens["recorder"], TURN_2).status_code == 200
    at = count(client, duel_id, tokens)
    face_down = view_name(client, duel_id, tokens, "p0", "p1.m1")
    for record_id in [f"p1.m{i}" for i in range(40)]:
        if record_id == face_down:
            continue
        answer = _probe(client, duel_id, tokens, record_id)
        assert answer.status_code in (400, 403), (record_id, answer.text)
        assert "nothing was written" in answer.json()["error"]
        assert count(client, duel_id, tokens) == at, record_id
    assert board(client, duel_id, tokens["judge"])["players"][1]["mzone"][3]["id"] == "p1.m1"
    moved = _probe(client, duel_id, tokens, face_down)
    assert moved.status_code == 403 and f"names {face_down}," in moved.json()["error"], moved.text
    aimed = post(client, duel_id, tokens["p0"], [{"kind": "activated", "player": 0, "effect_type": "quick",
                                                 "card": view_name(client, duel_id, tokens, "p0", "p0.m4"),
                                                 "targets": [face_down]}])
    assert aimed.status_code == 200, aimed.text
    last = json.loads(client.get(f"/duels/{duel_id}/events", headers=auth(tokens["judge"])).text.splitlines()[-1])
    assert last["event"]["targets"] == ["p1.m1"]


def test_probing_record_ids_learns_nothing(table):
    """A record id the view does not use as a name, and a name of nothing at all, get the same
    answer (400, the same words but the name): no answer says whether a record id exists, or
    what it stands for. Before, a hidden card's record id was a 403 and an id of no card a 422."""
    client, duel_id, tokens, store = table
    shuffle = {"kind": "deck_shuffled", "player": 1}          # player 1's Deck: fresh names in player 0's view
    assert post(client, duel_id, tokens["recorder"], [*TURN_2[:8], shuffle, *TURN_2[8:]]).status_code == 200
    at = count(client, duel_id, tokens)
    names = view_names(store, duel_id, "p0")
    unused = sorted(set(names) - set(names.values()))          # record ids that name nothing in the view
    hidden = [c for c in unused if c.startswith("p1.m")]
    assert hidden, "the shuffle renamed player 1's Deck"
    answers = {}
    for name in [*hidden[:4], "p1.m99", "p1.x9", "p0.q1", "not-a-card"]:
        answer = _probe(client, duel_id, tokens, name)
        answers[name] = (answer.status_code, answer.json()["error"].replace(repr(name), "NAME"))
    assert len(set(answers.values())) == 1, answers
    status, text = next(iter(answers.values()))
    assert status == 400 and "card" in text and "nothing was written" in text
    assert count(client, duel_id, tokens) == at


def test_a_shuffle_and_a_draw_between_appends_still_name_the_card(table):
    """Player 0's Deck shuffled and a card drawn: the drawn card's name in player 0's view is a
    fresh one (a pile it could not follow), no record id; its Set by that name is that card."""
    client, duel_id, tokens, _store = table
    turn = [{"kind": "deck_shuffled", "player": 0}, {"kind": "cards_drawn", "player": 0, "count": 1}]
    assert post(client, duel_id, tokens["recorder"], turn).status_code == 200
    drawn = board(client, duel_id, tokens["judge"])["players"][0]["hand"][-1]
    name = view_name(client, duel_id, tokens, "p0", drawn["id"])
    assert name != drawn["id"]
    answer = post(client, duel_id, tokens["p0"], [{"kind": "monster_set", "player": 0, "card": name, "zone": 2}])
    assert answer.status_code == 200, answer.text
    assert board(client, duel_id, tokens["judge"])["players"][0]["mzone"][2]["id"] == drawn["id"]


def test_after_a_rollback_the_names_are_the_views_again(table):
    """A Set by view name, rolled back by the judge: the names are as before it, and the next
    Set by view name is the card named (the view's names went back with the record)."""
    client, duel_id, tokens, _store = table
    at = count(client, duel_id, tokens)
    first = view_name(client, duel_id, tokens, "p0", "p0.m0")
    assert post(client, duel_id, tokens["p0"],
                [{"kind": "monster_set", "player": 0, "card": first, "zone": 0}]).status_code == 200
    rolled = client.post(f"/duels/{duel_id}/rollback", json={"to": at, "judge": "A. Judge", "reason": "mis-entry"},
                         headers=auth(tokens["judge"]))
    assert rolled.status_code == 200, rolled.text
    judge = board(client, duel_id, tokens["judge"])["players"][0]
    assert not any(judge["mzone"]) and len(judge["hand"]) == 5
    second = view_name(client, duel_id, tokens, "p0", "p0.m2")
    answer = post(client, duel_id, tokens["p0"], [{"kind": "monster_set", "player": 0, "card": second, "zone": 1}])
    assert answer.status_code == 200, answer.text
    assert board(client, duel_id, tokens["judge"])["players"][0]["mzone"][1]["id"] == "p0.m2"


def test_the_recorder_writes_record_ids_and_a_players_refusal_names_its_views_card(table):
    """The recorder (the record's own view) keeps writing record ids; a player's refusal by the
    rules names the card as the player's view does, never by its record id."""
    client, duel_id, tokens, _store = table
    name = view_name(client, duel_id, tokens, "p0", "p0.m0")
    refused = post(client, duel_id, tokens["p0"], [{"kind": "position_changed", "player": 0, "card": name,
                                                    "position": "defense"}])          # a hand card (POS-01)
    assert refused.status_code == 422, refused.text
    message = refused.json()["message"]
    card = next(c for c in board(client, duel_id, tokens["p0"])["players"][0]["hand"] if c["id"] == name)
    assert f"{card['name']} ({name})" in message, message          # the card named, by its name there
    assert name == "p0.m0" or "p0.m0" not in message, message
    assert post(client, duel_id, tokens["recorder"],
                [{"kind": "monster_set", "player": 0, "card": "p0.m0", "zone": 0}]).status_code == 200
    assert board(client, duel_id, tokens["judge"])["players"][0]["mzone"][0]["id"] == "p0.m0"


def test_cli_append_by_a_player_takes_that_players_view_names(tmp_path):
    """``append --by p0`` is player 0's device: its names are player 0's view's, as a token's."""
    store_path = str(tmp_path / "s.sqlite")
    source = tmp_path / "start.jsonl"
    source.write_text("".join(json.dumps(e) + "\n" for e in START))
    done = CliRunner().invoke(main, ["record", str(source), "--json", "--store", store_path])
    assert done.exit_code == 0, done.output
    duel_id = json.loads(done.stdout)["id"]
    with Store(store_path) as store:
        names = view_names(store, duel_id, "p0")
    entry = tmp_path / "set.jsonl"
    entry.write_text(json.dumps({"kind": "monster_set", "player": 0, "card": names["p0.m3"], "zone": 0}) + "\n")
    appended = CliRunner().invoke(main, ["append", duel_id, str(entry), "--by", "p0", "--store", store_path])
    assert appended.exit_code == 0, appended.output
    unknown = tmp_path / "unknown.jsonl"
    unknown.write_text(json.dumps({"kind": "monster_set", "player": 0, "card": "p0.nothing1", "zone": 1}) + "\n")
    refused = CliRunner().invoke(main, ["append", duel_id, str(unknown), "--by", "p0", "--store", store_path])
    assert refused.exit_code == 2 and "'p0.nothing1'" in refused.output, refused.output
    with Store(store_path) as store:
        assert store.state_at(duel_id, None).sides[0].mzone[0] == "p0.m3"
    # Raigeki (p0.m3... of the hand) targeting a card in the hand (TERM-05, a flag naming it): the flags
    # answered are player 0's view's, in its names, as its device's over HTTP
    entry.write_text(json.dumps({"kind": "activated", "player": 0, "card": names["p0.m1"], "zone": 2,
                                 "targets": [names["p0.m4"]]}) + "\n")
    flagged = CliRunner().invoke(main, ["append", duel_id, str(entry), "--by", "p0", "--json", "--store", store_path])
    assert flagged.exit_code == 0, flagged.output
    flags = [f for f in json.loads(flagged.stdout)["flags"] if f["rule"] == "TERM-05"]
    assert flags and names["p0.m4"] in flags[0]["message"], flagged.stdout
    assert names["p0.m4"] == "p0.m4" or "p0.m4" not in flags[0]["message"], flags


def test_a_token_a_device_creates_takes_a_fresh_record_id(table):
    """A Token's id is the entry's own: a player's device names it with a name its view does not
    use, and the record gives it an id no card has (an id in use was a LOG-04 refusal naming it:
    a probe). A name its view gives a card is that card (in use: refused, by that name). A cause
    in words stays words."""
    client, duel_id, tokens, store = table
    assert post(client, duel_id, tokens["recorder"], [{"kind": "deck_shuffled", "player": 1}]).status_code == 200
    names = view_names(store, duel_id, "p0")
    free = [n for n in ("p0.t1", *(f"p1.m{i}" for i in range(10, 40))) if n not in names.values()]
    assert len(free) >= 3 and all(n in names for n in free[1:3]), "record ids the view does not use"
    for zone, name in enumerate(free[:3]):
        made = {"kind": "token_created", "player": 0, "card": name, "code": 73915052, "zone": zone,
                "cause": "scapegoat"}
        answer = post(client, duel_id, tokens["p0"], [made])
        assert answer.status_code == 200, answer.text
        record = board(client, duel_id, tokens["judge"])["players"][0]["mzone"][zone]
        assert record["code"] == 73915052 and record["id"] not in names
    assert all(e["event"].get("cause") == "scapegoat" for e in map(
        json.loads, client.get(f"/duels/{duel_id}/events", headers=auth(tokens["judge"])).text.splitlines())
        if e["event"]["kind"] == "token_created")
    hand = board(client, duel_id, tokens["p0"])["players"][0]["hand"][0]["id"]
    taken = post(client, duel_id, tokens["p0"], [{"kind": "token_created", "player": 0, "card": hand,
                                                  "code": 73915052, "zone": 4}])
    assert taken.status_code == 422 and f"card id {hand} is already in use" in taken.json()["message"], taken.text


def test_a_refusal_of_an_entry_naming_the_opponents_face_down_card_does_not_say_what_it_is(table):
    """Player 0's device may name player 1's face-down monster as a target; in an entry the rules
    refuse, their reason may say what the card is (as LOG-02's "Luster Dragon (p1.m1) is at [1,
    'mzone', 3]" did). The device is told the card by its view's name, and that the reason is the
    judge's."""
    client, duel_id, tokens, _store = table
    assert post(client, duel_id, tokens["recorder"], TURN_2).status_code == 200
    at = count(client, duel_id, tokens)
    hidden = board(client, duel_id, tokens["judge"])["players"][1]["mzone"][3]
    name = view_name(client, duel_id, tokens, "p0", "p1.m1")
    in_hand = view_name(client, duel_id, tokens, "p0", "p0.m4")     # no monster on the field: BATTLE-02
    refused = post(client, duel_id, tokens["p0"], [{"kind": "attack_declared", "player": 0, "attacker": in_hand,
                                                   "target": name}])
    assert refused.status_code == 422 and refused.json()["rule"] == "BATTLE-02", refused.text
    assert hidden["name"] not in refused.text and str(hidden["code"]) not in refused.text
    # where the attacker is, the device sees: told as it is (BATTLE-02, public), naming no target
    assert refused.json()["message"] == f"{in_hand} is not a monster player 0 controls on the field"
    assert count(client, duel_id, tokens) == at
