"""Attacks on issue 25's sixteenth pass (``attack25an``): the multi-process service on PostgreSQL.

* ``GET /verify`` checked every view against the witness's latest head: a view held back
  (``LiveDuel.holds_back``: a player of a judge's what-if branch, a delayed spectator) whose
  store had been cut back behind its witness, or whose witness row's signature failed, was told
  "the store holds 18 events but its witness ... promises 19" or "the signature of its witness
  for 19 events does not hold": the what-if's length (the table's progress past a delay).
  ``Records.verify`` now leaves the witness out of a held-back view's verification: it proves
  nothing about the events such a view sees that the view could be told.
"""
from __future__ import annotations

import sqlite3

import pytest
from fastapi.testclient import TestClient

from test_attack_25ag import _what_if
from test_device_names import ADMIN, ORGANISER, WON, auth
from test_receipts import cut_back
from test_store import fresh_url
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
