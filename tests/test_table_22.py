"""The twenty-second pass at the table: what a scorekeeper recording a paper duel, by the page or
by a script over HTTP, met.

- An append's answer numbers its events as its ``flags`` do (``first_index``, ``last_index``) and
  says what ``position`` always was, the new length (``length``: the next ``?expected=``); a script
  read ``position`` as the last event's index and was one off. ``position`` still answers.
"""
from __future__ import annotations

from test_release import ORGANISER, auth, client, store  # noqa: F401  (fixtures)
from test_service_table_recording import VORSE, at_the_table


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
