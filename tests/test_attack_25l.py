"""Attacks on the altered-409 decision (``Service.hides_altered``): a duel whose header was altered
in the database is told to be altered only to whoever may see it, and costs a stranger's request
no more reading than it must (issue 25)."""
from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from ygoreplay.access import digest
from ygoreplay.service import create_app
from ygoreplay.store import Store

from test_altered_private import UNKNOWN
from test_live_vouched import _retitle
from test_match_service import MATCHES, lines, match_body
from test_release import ADMIN, DAMAGE, ORGANISER, auth, events_of


@pytest.fixture(scope="module")
def altered(tmp_path_factory):
    """A private duel with events, its header then altered, and a match whose recorder is a
    stranger to that duel; served by a new process."""
    path = str(tmp_path_factory.mktemp("attack25l") / "duels.sqlite")
    with Store(path, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        duel = client.post("/duels", json={"title": "t", "visibility": "private"}, headers=ORGANISER).json()
        assert client.post(f"/duels/{duel['id']}/events", json=events_of(DAMAGE),
                           headers=auth(duel["tokens"]["recorder"])).status_code == 200
        match = client.post("/matches", json=match_body(lines(MATCHES / "two-nil.jsonl")), headers=ORGANISER).json()
    _retitle(path, duel["id"])
    with Store(path, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        yield client, duel, match


def _game_started(duel_id: str) -> list[dict]:
    started = next(ev for ev in lines(MATCHES / "two-nil.jsonl") if ev["kind"] == "game_started")
    return [{**started, "duel": duel_id}]


@pytest.mark.parametrize("route, body", [
    ("/matches/{id}/games", lambda duel_id: {"duel": duel_id, "first_player": 0, "chosen_by": 0}),
    ("/matches/{id}/events", _game_started)])
def test_a_match_recorder_linking_an_altered_duel_learns_what_an_unknown_id_tells(altered, route, body):
    """Linking a duel as a match's game reads that duel, not the match the address names: its
    refusal was the 409 of an altered duel to anyone the match let start a game, so a table's
    recorder holding no token of the duel learnt that a private duel of that id exists."""
    client, duel, match = altered

    def link(duel_id: str):
        return client.post(route.format(id=match["id"]), json=body(duel_id), headers=auth(match["tokens"]["recorder"]))
    found, unknown = link(duel["id"]), link(UNKNOWN)
    assert found.status_code == unknown.status_code != 409, found.text
    assert found.content.replace(duel["id"].encode(), UNKNOWN.encode()) == unknown.content


def test_the_organiser_linking_an_altered_duel_is_told_it_was_altered(altered):
    """The organiser may see every duel: linking an altered one is refused as altered."""
    client, duel, match = altered
    found = client.post(f"/matches/{match['id']}/games", json={"duel": duel["id"], "first_player": 0, "chosen_by": 0},
                        headers=ORGANISER)
    assert found.status_code == 409 and found.json()["verification"] is False, found.text


def test_a_strangers_request_for_an_altered_duel_decodes_none_of_its_events(altered, monkeypatch):
    """The header is checked against its signed anchors before any event is read through: every
    event of an altered duel was chained and decoded again on each request for its id, anyone's
    (a stranger's request cost ~30 times an unknown id's at 5,000 events), where an id that
    names nothing costs one lookup."""
    client, duel, _match = altered
    decoded = []
    real = Store._envelope

    def counting(stream_id, row):
        decoded.append(stream_id)
        return real(stream_id, row)
    monkeypatch.setattr(Store, "_envelope", staticmethod(counting))
    for headers in ({}, auth("not-a-token-of-anything"), auth(duel["tokens"]["p0"]), ORGANISER):
        assert client.get(f"/duels/{duel['id']}/state", headers=headers).status_code in (404, 409)
    assert decoded == []
