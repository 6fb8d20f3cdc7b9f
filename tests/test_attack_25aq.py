"""Attacks on issue 25's seventeenth pass (``attack25aq``): the reads, every way a viewer learns
what it may not, through a second way in.

* A duel of no match, with no release policy of its own, releases what it hid at its end (``end``:
  every reader may ask for the judge's view); a match's duel with none of its own follows its
  match's (``event``: nothing before the match is released), since a game's hidden cards are the
  player's deck for the games still to come. A duel recorded to its end and then linked into the
  match (``/games`` with its ``duel``, or a raw ``game_started``: README, "one recorded through the
  service, linked") is held again from then on, as every fresh worker said (403). But a worker that
  had answered the release once kept it for good (``LiveDuel.released`` asked again only until it
  was released), the worker that wrote the link too: it went on showing the judge's view of the
  match's game, both hands and Deck orders, to every spectator and player token of the duel and
  of the match, for as long as it ran. A release is read again at most once a second, released or
  not, and at once in the worker that links the duel (``commands.record``).
"""
from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from fastapi.testclient import TestClient

from test_match_service import MATCHES, lines, match_body
from test_service import ADMIN
from ygoreplay.access import digest
from ygoreplay.service import create_app
from ygoreplay.store import Store

ORGANISER = {"Authorization": f"Bearer {ADMIN}"}
GAME = lines(MATCHES / "duels" / "g1-yugi-wins.jsonl")


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def served(tmp_path):
    path = str(tmp_path / "s.sqlite")
    with Store(path) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        yield client, path


def _ended_duel(client, **settings) -> dict:
    """A duel created on its own (no match), recorded to its end: Yugi wins game 1."""
    duel = client.post("/duels", json={"title": "game 1", **settings}, headers=ORGANISER).json()
    written = client.post(f"/duels/{duel['id']}/events", json=GAME, headers=auth(duel["tokens"]["recorder"]))
    assert written.status_code == 200, written.text
    return duel


def _match(client) -> dict:
    made = client.post("/matches", json=match_body(lines(MATCHES / "two-nil.jsonl"), visibility="unlisted"),
                       headers=ORGANISER)
    assert made.status_code == 201, made.text
    return made.json()


def _judge_view(client, duel_id: str, token: str) -> int:
    return client.get(f"/duels/{duel_id}/state", params={"view": "judge"}, headers=auth(token)).status_code


def _link(client, match: dict, duel: dict, door: str):
    recorder = auth(match["tokens"]["recorder"])
    if door == "games":
        return client.post(f"/matches/{match['id']}/games",
                           json={"duel": duel["id"], "duel_token": duel["tokens"]["recorder"]}, headers=recorder)
    return client.post(f"/matches/{match['id']}/events", params={"duel_token": duel["tokens"]["recorder"]},
                       json=[{"kind": "game_started", "game": 1, "duel": duel["id"], "first_player": 0,
                              "chosen_by": 0}], headers=recorder)


def _readers(duel: dict, match: dict) -> list[str]:
    """The tokens that read the game as a view narrower than the judge's: the duel's spectator and
    players, the match's spectator and players (a match's token opens its duels)."""
    return [duel["tokens"]["spectator"], duel["tokens"]["p1"], duel["tokens"]["p0"],
            match["tokens"]["spectator"], match["tokens"]["p1"]]


@pytest.mark.parametrize("door", ["games", "events"])
def test_a_duel_linked_into_a_match_after_its_end_is_held_by_the_worker_that_released_it(served, door):
    client, path = served
    duel, match = _ended_duel(client), _match(client)
    assert _judge_view(client, duel["id"], duel["tokens"]["spectator"]) == 200, "ended, no match: released (end)"
    linked = _link(client, match, duel, door)
    assert linked.status_code in (200, 201), linked.text
    with Store(path) as again, TestClient(create_app(again, digest(ADMIN))) as fresh:
        for reader in (fresh, client):          # a fresh worker, and the one that released it and linked it
            for token in _readers(duel, match):
                assert _judge_view(reader, duel["id"], token) == 403, "the match holds its game's hidden cards"
            assert _judge_view(reader, duel["id"], match["tokens"]["judge"]) == 200


def test_a_duel_linked_by_another_worker_is_held_by_the_one_that_released_it(served, monkeypatch):
    """The link written by another process: the worker that released the duel reads its release
    again once its second is up (the clock moved on here, nothing waited for)."""
    from ygoreplay import live
    client, path = served
    duel, match = _ended_duel(client), _match(client)
    assert _judge_view(client, duel["id"], duel["tokens"]["p1"]) == 200
    with Store(path) as again, TestClient(create_app(again, digest(ADMIN))) as other:
        assert _link(other, match, duel, "games").status_code == 201
    later = time.monotonic() + 2.0              # the live duels' clock only: the event loop keeps its own
    monkeypatch.setattr(live, "time", SimpleNamespace(monotonic=lambda: later, time=time.time))
    for token in _readers(duel, match):
        assert _judge_view(client, duel["id"], token) == 403


def test_a_duel_released_by_its_own_policy_is_linked_as_before(served):
    """A duel whose own policy (``release: end``) released it keeps that policy in the match:
    linking it takes nothing back, so it is linked."""
    client, _path = served
    duel, match = _ended_duel(client, release="end"), _match(client)
    linked = client.post(f"/matches/{match['id']}/games",
                         json={"duel": duel["id"], "duel_token": duel["tokens"]["recorder"]},
                         headers=auth(match["tokens"]["recorder"]))
    assert linked.status_code == 201, linked.text
    assert _judge_view(client, duel["id"], duel["tokens"]["spectator"]) == 200
