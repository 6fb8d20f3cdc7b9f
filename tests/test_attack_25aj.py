"""Attack 25aj: a judge call the table entered (``access.CALL``, MATCH-08) is its caller's word.
LOG-12 let a correction strike it as any entry of play, so the scorekeeper's Undo (or any
correction going back past it) withdrew a call a player's device made: the judge that player
called no longer found it (``check``'s calls in effect left it out). As a seal (LOG-11), a call
is struck only by its caller's correction, or a judge's rollback past it."""
from __future__ import annotations

import json

import pytest

from test_release import auth, client, store  # noqa: F401  (fixtures)
from test_service_table_recording import at_the_table
from ygoreplay.application import check
from ygoreplay.cards import CardDB
from ygoreplay.events import from_dict
from ygoreplay.rules.history import History

CALL = {"kind": "judge_note", "category": "call", "judge": "", "note": "was the Trap activated before the attack?"}
SETUP = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["A", "B"], "witnessed": True},
         *({"kind": "deck_registered", "player": p, "main": [0] * 40} for p in (0, 1)),
         *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
         {"kind": "turn_started", "player": 0, "turn": 1, "entered_by": "recorder"},
         {"kind": "phase_entered", "phase": "draw", "entered_by": "recorder"}]


def test_the_recorders_undo_withdraws_no_players_call(client):  # noqa: F811
    """p1's device calls the judge; the recorder's Undo going back past it is refused (LOG-12), the
    call stays in effect; p1 withdraws their own call."""
    duel, recorder = at_the_table(client)
    count = client.get(f"/duels/{duel['id']}/state", headers=auth(recorder)).json()["events"]
    r = client.post(f"/duels/{duel['id']}/events", json=[CALL], headers=auth(duel["tokens"]["p1"]))
    assert r.status_code == 200, r.text
    undo = {"kind": "entry_corrected", "to": count, "reason": "mis-tap"}
    r = client.post(f"/duels/{duel['id']}/events", json=[undo], headers=auth(recorder))
    assert r.status_code == 422 and r.json()["rule"] == "LOG-12", r.text
    assert "call of a judge" in r.json()["message"]
    r = client.post(f"/duels/{duel['id']}/events", json=[undo], headers=auth(duel["tokens"]["p1"]))
    assert r.status_code == 200, r.text                                   # the caller's own Undo
    events = client.get(f"/duels/{duel['id']}/events", headers=auth(duel["tokens"]["judge"]))
    assert [json.loads(line)["event"]["kind"] for line in events.text.splitlines()][-2:] == [
        "judge_note", "entry_corrected"]


def test_no_door_strikes_anothers_call():
    """The fold every door passes (append, CLI, upload, import): a correction by the recorder over
    a player's call is a LOG-12 violation, the call still listed for the judge."""
    at = len(SETUP)
    events = [*SETUP, {"kind": "phase_entered", "phase": "standby", "entered_by": "recorder"},
              {**CALL, "entered_by": "p1"}, {"kind": "entry_corrected", "to": at, "reason": "mis-tap",
                                              "entered_by": "recorder"}]
    report = check([from_dict(e) for e in events], CardDB.classic()).to_dict()
    assert [v["rule"] for v in report["violations"]] == ["LOG-12"]
    assert [c["index"] for c in report["calls"]] == [at + 1]


def test_a_snapshot_without_the_calls_is_no_fold_to_correct_from():
    """A witnessed snapshot of the older form (no ``calls``) raises KeyError while the duel goes
    on (the store folds again instead, as for ``notes``); a fold of the new form keeps the call."""
    held = History(CardDB.classic())
    held.extend(from_dict(e) for e in [*SETUP, {**CALL, "entered_by": "p0"}])
    data = held.to_data()
    assert History.from_data(json.loads(json.dumps(data)), CardDB.classic()).calls == [(len(SETUP), "p0")]
    data["witnessed"].pop("calls")
    with pytest.raises(KeyError):
        History.from_data(data, CardDB.classic())
