"""The twenty-second pass at the table: what a scorekeeper recording a paper duel, by the page or
by a script over HTTP, met.

- An append's answer numbers its events as its ``flags`` do (``first_index``, ``last_index``) and
  says what ``position`` always was, the new length (``length``: the next ``?expected=``); a script
  read ``position`` as the last event's index and was one off. ``position`` still answers.
- ZONE-11: a card returned to the Deck by an effect that places it (the top, the bottom) is
  offered as such, and stays known where it went: the next draw deals a card put on top. The
  sheet offered *Return to the Deck* alone, a shuffle: the record lost the card and the draw.
"""
from __future__ import annotations

from test_release import ORGANISER, auth, client, store  # noqa: F401  (fixtures)
from test_service_table_recording import TURN_2, VORSE, VORSE_SUMMONED, at_the_table, offered, tapped


def test_an_append_answers_its_events_indexes_as_its_flags_number_them(client) -> None:  # noqa: F811
    duel, recorder = at_the_table(client)
    length = client.get(f"/duels/{duel['id']}/state", headers=auth(recorder)).json()["events"]
    # a Vorse Raider Normal Summoned, then a second Normal Summon (SUM-01: one a turn): flagged, kept
    events = [{"kind": "normal_summoned", "player": 0, "card": "p0.m0", "zone": 0, "shows": {"p0.m0": VORSE}},
              {"kind": "normal_summoned", "player": 0, "card": "p0.m1", "zone": 1, "shows": {"p0.m1": VORSE}}]
    r = client.post(f"/duels/{duel['id']}/events", params={"expected": length}, json=events, headers=auth(recorder))
    answer = r.json()
    assert r.status_code == 200, r.text
    assert answer["position"] == answer["length"] == length + 2                 # the old name keeps working
    assert (answer["first_index"], answer["last_index"]) == (length, length + 1)
    assert [f["index"] for f in answer["flags"]] == [answer["last_index"]]      # one numbering for both
    empty = client.post(f"/duels/{duel['id']}/events", json=[], headers=auth(recorder)).json()
    assert empty == {"position": length + 2, "length": length + 2}              # nothing written: no index


def test_a_judges_note_and_a_match_append_answer_the_same_fields(client) -> None:  # noqa: F811
    duel, _recorder = at_the_table(client)
    judge = auth(duel["tokens"]["judge"])
    r = client.post(f"/duels/{duel['id']}/notes", json={"judge": "Ann", "text": "watch the clock"}, headers=judge)
    answer = r.json()
    assert r.status_code == 200 and answer["length"] == answer["position"] == answer["last_index"] + 1, r.text
    assert answer["first_index"] == answer["last_index"]


def test_the_openapi_schema_documents_length_and_the_indexes_of_every_append(client) -> None:  # noqa: F811
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/duels/{duel_id}/events", "/matches/{match_id}/events", "/duels/{duel_id}/notes",
                 "/duels/{duel_id}/rollback"):
        schema = paths[path]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
        assert {"length", "position", "first_index", "last_index"} <= set(schema["properties"]), path
        assert "NOT an index" in schema["properties"]["position"]["description"], path


def _judge_board(client, duel: dict) -> dict:  # noqa: F811
    return client.get(f"/duels/{duel['id']}/state", headers=auth(duel["tokens"]["judge"])).json()["board"]


def test_a_card_returned_to_the_top_of_the_deck_is_the_next_card_drawn(client) -> None:  # noqa: F811
    """ZONE-11: Vorse Raider put back on top of its owner's Deck at the table (the sheet's tap), then
    player 1's turn, then player 0's Draw Phase draw: the record deals Vorse Raider back."""
    duel, recorder = at_the_table(client, VORSE_SUMMONED)
    top = offered(client, duel, "p0.m0", "", "Return to the top of the Deck")
    assert top["event"]["to"] == [0, "deck", 0] and top["event"]["reason"] == "returned"
    tapped(client, duel, recorder, top["event"])
    assert _judge_board(client, duel)["players"][0]["deck"] == 36       # 40 - 5 drawn + Vorse back
    played = [*TURN_2, {"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "player": 0, "turn": 3},
              {"kind": "phase_entered", "phase": "draw"}, {"kind": "cards_drawn", "player": 0}]
    for event in played:
        tapped(client, duel, recorder, event)
    hand = _judge_board(client, duel)["players"][0]["hand"]
    assert [c["code"] for c in hand if c and c["id"] == "p0.m0"] == [VORSE], hand


def test_a_card_returned_to_the_bottom_is_not_drawn_and_a_shuffle_is_its_own_tap(client) -> None:  # noqa: F811
    duel, recorder = at_the_table(client, VORSE_SUMMONED)
    shuffle = offered(client, duel, "p0.m0", "", "Shuffle into the Deck")
    assert shuffle["event"]["to"] == [0, "deck"] and shuffle["event"]["reason"] == "shuffled"
    bottom = offered(client, duel, "p0.m0", "", "Return to the bottom of the Deck")
    assert bottom["event"]["to"] == [0, "deck", 35]                    # past the 35 cards left: the bottom
    tapped(client, duel, recorder, bottom["event"])
    for event in [*TURN_2, {"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "player": 0, "turn": 3},
                  {"kind": "phase_entered", "phase": "draw"}, {"kind": "cards_drawn", "player": 0}]:
        tapped(client, duel, recorder, event)
    players = _judge_board(client, duel)["players"]
    assert players[0]["deck"] == 35 and "p0.m0" not in [c and c["id"] for c in players[0]["hand"]]
