"""Issue 25 (twenty-second pass): a duel made with its set-up (``POST /duels``' ``set_up``: its
duel_started and decks, the organiser's before its table opens), so that a room's opening burst of
first appends is steady appends, not each table's set-up folded and written. The table's recorder
is unchanged: it still sends the set-up as its first append (``expected=0``), answered as written
(its position, a receipt) with nothing written twice; a set-up that differs is the conflict it was;
a set-up breaking a rule makes no duel; only a writer that reads the whole record is told that
its set-up is the record's (to a witnessed table's recorder it is judged as ever)."""
from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from test_store import DAMAGE, REPLAYS
from ygoreplay.access import digest
from ygoreplay.card_sources import card_lookup
from ygoreplay.jsonl import read_events
from ygoreplay.passcodes import referenced_codes
from ygoreplay.service import create_app
from ygoreplay.store import Store

ADMIN = "organiser-test-token-0123456789abcdef0123456789"
ORGANISER = {"Authorization": f"Bearer {ADMIN}"}
EVENTS = [event.to_dict() for event in read_events(REPLAYS / DAMAGE)]
#: the duel's set-up: every event up to the last deck registered
SET_UP = next(i for i, e in enumerate(read_events(REPLAYS / DAMAGE)[3:], 3) if not referenced_codes([e]))


@pytest.fixture
def made(tmp_path):
    store = Store(str(tmp_path / "duels.sqlite"), card_lookup())
    with TestClient(create_app(store, digest(ADMIN))) as client:
        yield store, client
    store.close()


def _recorder(duel: dict) -> dict:
    return {"Authorization": f"Bearer {duel['tokens']['recorder']}"}


def _append(client: TestClient, duel: dict, events: list[dict], expected: int):
    return client.post(f"/duels/{duel['id']}/events?expected={expected}", json=events, headers=_recorder(duel))


def test_a_duel_made_with_its_set_up_takes_its_unchanged_recorders_first_append_as_written(made, monkeypatch):
    store, client = made
    answer = client.post("/duels", json={"title": "table 1", "set_up": EVENTS[:SET_UP]}, headers=ORGANISER)
    assert answer.status_code == 201, answer.text
    duel = answer.json()
    assert duel["receipt"]["events"] == SET_UP and store.info(duel["id"]).events == SET_UP
    opened = store.opened
    monkeypatch.setattr(store, "opened", lambda *a, **k: pytest.fail("the new duel read back") or opened(*a, **k))
    first = _append(client, duel, EVENTS[:SET_UP], 0)       # the table's recorder, as it always was
    assert first.status_code == 200, first.text
    assert first.json()["position"] == first.json()["receipt"]["events"] == SET_UP
    assert first.json()["receipt"]["head"] == duel["receipt"]["head"]
    assert store.info(duel["id"]).events == SET_UP                 # nothing written twice
    # its set-up and what follows it in one append: the rest written after it
    more = _append(client, duel, EVENTS[:SET_UP + 2], 0)
    assert more.status_code == 200 and more.json()["position"] == SET_UP + 2
    assert _append(client, duel, EVENTS[SET_UP + 2:SET_UP + 3], SET_UP + 2).json()["position"] == SET_UP + 3
    monkeypatch.undo()
    assert store.verify(duel["id"]).ok
    records = store.records(duel["id"])
    assert [r.event.to_dict() for r in records] == EVENTS[:SET_UP + 3]
    # sent again once the duel went on, it is the conflict it was
    assert _append(client, duel, EVENTS[:SET_UP], 0).status_code == 409


def test_a_set_up_that_differs_or_breaks_a_rule_is_refused_nothing_written(made):
    store, client = made
    duel = client.post("/duels", json={"set_up": EVENTS[:SET_UP]}, headers=ORGANISER).json()
    other = [{**EVENTS[0], "players": ["Joey", "Mai"]}, *EVENTS[1:SET_UP]]
    assert _append(client, duel, other, 0).status_code == 409
    assert store.info(duel["id"]).events == SET_UP
    listed = len(client.get("/duels", headers=ORGANISER).json())
    broken = client.post("/duels", json={"set_up": EVENTS[1:SET_UP]}, headers=ORGANISER)    # no duel_started
    assert broken.status_code == 422 and broken.json()["rule"] == "LOG-03"
    shapeless = client.post("/duels", json={"set_up": {"kind": "duel_started"}}, headers=ORGANISER)
    assert shapeless.status_code == 400 and shapeless.json()["where"] == "set_up"
    assert len(client.get("/duels", headers=ORGANISER).json()) == listed       # no duel made by either


def test_a_witnessed_tables_recorder_is_not_told_whether_its_set_up_is_the_records(made):
    """The recorder of a witnessed duel reads the table's view: an answer that its set-up is the
    stored one would confirm a guess of hidden cards (a deck's), so it is judged as ever."""
    _store, client = made
    witnessed = [{**EVENTS[0], "witnessed": True}, *EVENTS[1:SET_UP]]
    answer = client.post("/duels", json={"mode": "witnessed", "set_up": witnessed}, headers=ORGANISER)
    assert answer.status_code == 201, answer.text
    assert _append(client, answer.json(), witnessed, 0).status_code == 409
    # and the organiser's mode holds for its set-up as for a first append
    refused = client.post("/duels", json={"mode": "witnessed", "set_up": EVENTS[:SET_UP]}, headers=ORGANISER)
    assert refused.status_code == 400 and "witnessed" in refused.json()["error"]
