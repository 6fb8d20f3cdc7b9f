"""A judge call from the table (MATCH-08: questions and disputes go to a judge). The scorekeeper,
or in a witnessed duel a player's device, enters a ``judge_note`` of category ``call`` where the
duel stands, with what is disputed and no judge's name (whichever judge comes answers it); the
judge finds it there on rewind. A ruling, a penalty, a note or a ruling on an entry stays the
judge's (``access.CALL``). Before, a call was the judge's alone to enter: the table had no way to
mark where a dispute arose."""
from __future__ import annotations

import json

from click.testing import CliRunner

from test_release import auth, client, store  # noqa: F401  (fixtures)
from test_service_table_recording import at_the_table
from ygoreplay.application import check
from ygoreplay.cards import CardDB
from ygoreplay.cli import main
from ygoreplay.events import from_dict

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


def test_the_judges_terminal_lists_the_calls_in_effect(tmp_path):
    """``check`` and ``audit`` list where the table called the judge; a call withdrawn (the page's
    Undo strikes it, LOG-12: the table's own word) is not listed."""
    setup = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["健太", "美咲"], "witnessed": True},
             *({"kind": "deck_registered", "player": p, "main": [0] * 40} for p in (0, 1)),
             *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
             {"kind": "turn_started", "player": 0, "turn": 1}, {"kind": "phase_entered", "phase": "draw"}]
    called = [{**CALL, "entered_by": "recorder"}, {**CALL, "note": "by mistake", "entered_by": "recorder"},
              {"kind": "entry_corrected", "to": len(setup) + 1, "reason": "mis-tap", "entered_by": "recorder"}]
    events = [from_dict(e) for e in setup + called]
    assert check(events, CardDB.classic()).to_dict()["calls"] == [
        {"index": len(setup), "by": "recorder", "judge": None, "note": CALL["note"], "ruled": None}]
    path = tmp_path / "called.jsonl"
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in setup + called), encoding="utf-8")
    for command in ("check", "audit"):
        out = CliRunner().invoke(main, ["--lang", "ja", command, str(path)])
        assert f"#{len(setup)} recorderによるジャッジコール：{CALL['note']}" in out.output, out.output
        assert "by mistake" not in out.output
