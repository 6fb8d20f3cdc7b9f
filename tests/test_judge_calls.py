"""A judge call from the table (MATCH-08: questions and disputes go to a judge). The scorekeeper,
or in a witnessed duel a player's device, enters a ``judge_note`` of category ``call`` where the
duel stands, with what is disputed and no judge's name (whichever judge comes answers it); the
judge finds it there on rewind. A ruling, a penalty, a note or a ruling on an entry stays the
judge's (``access.CALL``). Before, a call was the judge's alone to enter: the table had no way to
mark where a dispute arose."""
from __future__ import annotations

import json

from test_release import auth, client, store  # noqa: F401  (fixtures)
from test_service_table_recording import at_the_table

CALL = {"kind": "judge_note", "category": "call", "judge": "", "note": "was the Trap activated before the attack?"}


def stored(client, duel: dict) -> list[dict]:  # noqa: F811
    r = client.get(f"/duels/{duel['id']}/events", headers=auth(duel["tokens"]["judge"]))
    return [json.loads(line)["event"] for line in r.text.splitlines()]


def test_the_table_calls_a_judge_where_the_duel_stands_and_the_judge_finds_it(client):  # noqa: F811
    duel, recorder = at_the_table(client)
    frames = client.get(f"/duels/{duel['id']}/frames", headers=auth(recorder)).json()
    assert frames["calls"] is True and "judge_note" not in frames["writes"]     # a call, not any note
    for token in (recorder, duel["tokens"]["p0"]):                             # a player's device too
        r = client.post(f"/duels/{duel['id']}/events", json=[CALL], headers=auth(token))
        assert r.status_code == 200, r.text
    assert [(e["kind"], e["entered_by"]) for e in stored(client, duel)[-2:]] == [
        ("judge_note", "recorder"), ("judge_note", "p0")]
    frames = client.get(f"/duels/{duel['id']}/frames", params={"lang": "ja"},
                        headers=auth(duel["tokens"]["judge"])).json()["frames"]
    assert frames[-2]["call"] and frames[-2]["line"] == "記録係がジャッジを呼ぶ：was the Trap activated before the attack?"


def test_what_is_the_judges_stays_the_judges(client):  # noqa: F811
    """A ruling, a call that rules on an entry, a call with nothing said: never the table's."""
    duel, recorder = at_the_table(client)
    for event in ({**CALL, "category": "ruling"}, {**CALL, "on": 3, "decision": "stands"}):
        r = client.post(f"/duels/{duel['id']}/events", json=[event], headers=auth(recorder))
        assert r.status_code == 403, r.text
    r = client.post(f"/duels/{duel['id']}/events", json=[{**CALL, "note": " "}], headers=auth(recorder))
    assert r.status_code == 422 and r.json()["rule"] == "MATCH-08", r.text
    r = client.post(f"/duels/{duel['id']}/events", json=[{**CALL, "judge": "", "category": "ruling"}],
                    headers=auth(duel["tokens"]["judge"]))
    assert r.status_code == 422 and r.json()["rule"] == "MATCH-08", r.text     # a ruling is signed
    assert client.get(f"/duels/{duel['id']}/frames", headers=auth(duel["tokens"]["spectator"])).json()["calls"] is False
