"""Attacks on issue 25's sixteenth pass (``attack25an``): the multi-process service on PostgreSQL.

* ``GET /verify`` checked every view against the witness's latest head: a view held back
  (``LiveDuel.holds_back``: a player of a judge's what-if branch, a delayed spectator) whose
  store had been cut back behind its witness, or whose witness row's signature failed, was told
  "the store holds 18 events but its witness ... promises 19" or "the signature of its witness
  for 19 events does not hold": the what-if's length (the table's progress past a delay).
  ``Records.verify`` now leaves the witness out of a held-back view's verification: it proves
  nothing about the events such a view sees that the view could be told.
* ``LiveDuel.verified`` read the whole record for a reader that may see ``seen`` events when the
  worker held just ``seen`` (decided by the events this process holds, not by the view): a worker
  behind the store (a wake-up missed, another worker's append not taken in yet) verified a
  player's view of a judge's what-if past where it left, so one altered there failed his
  ``/verify`` and refused his ``replay.ygr`` (409) on that worker, while the other answered
  ok: the what-if's existence and its state told to a view it is held back from. A held-back
  view (``LiveDuel.holds_back``) is now verified up to what it sees, whatever the worker holds.
"""
from __future__ import annotations

import sqlite3

import pytest
from fastapi.testclient import TestClient

from test_attack_25ag import EQUIP, _what_if
from test_device_names import ADMIN, ORGANISER, WON, auth
from test_receipts import cut_back
from test_store import execute, fresh_url
from ygoreplay.access import digest
from ygoreplay.receipts import Witness
from ygoreplay.service import create_app
from ygoreplay.store import Store


@pytest.fixture
def witnessed(tmp_path):
    """A service on a PostgreSQL schema of its own, with a witness file: (client, store URL, witness path)."""
    witness = tmp_path / "witness.sqlite"
    with fresh_url("postgresql", tmp_path / "x.sqlite", "attack25an") as url, Store(url, concurrent=True) as store, \
            TestClient(create_app(store, digest(ADMIN), Witness(str(witness), store))) as client:
        yield client, url, witness


def _forge_witness(witness, duel: str) -> int:
    """The witness's latest row of ``duel`` with a signature that fails: its event count."""
    conn = sqlite3.connect(witness)
    with conn:
        events = conn.execute("SELECT max(events) FROM ygoreplay_witness WHERE duel = ?", (duel,)).fetchone()[0]
        conn.execute("UPDATE ygoreplay_witness SET signature = x'00' WHERE duel = ? AND events = ?", (duel, events))
    conn.close()
    return events


def _verdict(client, duel_id: str, headers: dict) -> dict:
    answer = client.get(f"/duels/{duel_id}/verify", headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


@pytest.mark.parametrize("how", ["cut back", "witness forged"])
def test_a_players_verification_of_a_what_if_says_nothing_of_its_witness(witnessed, how):
    """Yugi's view of the judge's what-if stops where it left: the same verdict whatever its
    witness holds past that (cut back behind it, or its row's signature failing). The judge's
    view is told (LOG-12's witness: its whole record)."""
    client, url, witness = witnessed
    duel, branch = _what_if(client, "end")
    yugi, judge = auth(duel["tokens"]["p0"]), auth(duel["tokens"]["judge"])
    before = _verdict(client, branch, yugi)
    whole = _verdict(client, branch, judge)["events"]
    assert before["ok"] and before["events"] < whole
    if how == "cut back":
        cut_back(url, branch, whole - 1)
    else:
        assert _forge_witness(witness, branch) == whole
    seen = _verdict(client, branch, yugi)
    assert seen == before and str(whole) not in seen["problem"], seen
    told = _verdict(client, branch, judge)
    assert (told["ok"] is False) if how == "cut back" else ("does not hold" in told["problem"]), told


def test_a_delayed_spectators_verification_says_nothing_of_its_witness(witnessed):
    """A spectator behind an hour's delay: the table's entries, past its view, are the witness's;
    its latest row failing is not told to the spectator."""
    client, _url, witness = witnessed
    duel = client.post("/duels", json={"visibility": "public", "delay": {"seconds": 3600}}, headers=ORGANISER).json()
    recorder, spectator = auth(duel["tokens"]["recorder"]), auth(duel["tokens"]["spectator"])
    assert client.post(f"/duels/{duel['id']}/events", json=WON[:18], headers=recorder).status_code == 200
    before = _verdict(client, duel["id"], spectator)
    assert _forge_witness(witness, duel["id"]) == 18
    seen = _verdict(client, duel["id"], spectator)
    assert seen == before and "18" not in seen["problem"], seen


@pytest.fixture
def two_workers(tmp_path):
    """Two services on one PostgreSQL schema, as ``serve --workers 2`` runs them: (A, B, store URL)."""
    with fresh_url("postgresql", tmp_path / "x.sqlite", "attack25an") as url, \
            Store(url, concurrent=True) as one, Store(url, concurrent=True) as other, \
            TestClient(create_app(one, digest(ADMIN))) as a, TestClient(create_app(other, digest(ADMIN))) as b:
        yield a, b, url


def test_a_worker_behind_the_store_verifies_a_players_view_of_a_what_if_as_the_other_does(two_workers):
    """Yugi opened the judge's branch on worker B; B misses the wake-ups of the what-if the judge
    then plays on worker A, whose event is altered in the database. Past Yugi's view (it stops
    where the branch left): both workers answer his ``/verify`` and his ``replay.ygr`` alike."""
    a, b, url = two_workers
    duel = a.post("/duels", json={"title": "what if", "visibility": "public", "release": "end"},
                  headers=ORGANISER).json()
    recorder, judge, yugi = (auth(duel["tokens"][role]) for role in ("recorder", "judge", "p0"))
    assert a.post(f"/duels/{duel['id']}/events", json=WON[:18], headers=recorder).status_code == 200
    branch = a.post(f"/duels/{duel['id']}/branch", json={"at": 17}, headers=judge).json()["id"]
    seen = b.get(f"/duels/{branch}/state", headers=yugi).json()["events"]
    b.app.state.service.hub._heard = lambda _duel, _count: None       # B's wake-ups are missed
    assert a.post(f"/duels/{branch}/events", json=[EQUIP], headers=recorder).status_code == 200
    whole = a.get(f"/duels/{branch}/state", headers=judge).json()["events"]
    assert whole == seen + 1
    execute(url, "UPDATE {t} SET state = ? WHERE originator_id = ? AND originator_version = ?",
            (b"junk", branch, whole))                                     # the what-if's event altered
    answers = [(_verdict(client, branch, yugi), client.get(f"/duels/{branch}/replay.ygr", headers=yugi).status_code)
               for client in (a, b)]
    assert answers[0][0]["ok"] and answers[0][0]["events"] == seen and answers[0][1] == 200, answers
    assert answers[1] == answers[0]
