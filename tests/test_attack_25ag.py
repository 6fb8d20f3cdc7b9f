"""Attacks on issue 25's fourteenth pass, fifth round (``attack25ag``): branches.

* A judge's what-if branch keeps its parent's tokens, so the duel's players (and, once the parent
  shows where it left, its spectators) open it in their own views. Its own events, past where it
  left, are the judge's what-if: "what if Kaiba had equipped the Axe of Despair in his hand" shows
  the Axe to every view of the branch, while in the duel that goes on it is still a card in Kaiba's
  hand that Yugi does not see. A branch's views now hold its own events only once its parent has
  released what it hid (``live.released``; its release policy: at its end, at the event's end or
  never); until then they stop where the branch left, which its parent's views showed already.
* The library indexed the what-if's card events: ``/search?card=`` found the Axe in the branch
  while the duel went on (a search is a spectator's, and never follows a release): a branch's own
  events write no card row (index version 7).
* A player's record (``/players/{name}``) counted the what-if's end as a result (Yugi's what-if
  surrender a win of Kaiba's), and a card's numbers counted the events a branch shares with its
  parent twice: they count the duels played, not what-ifs.
* A match linked the what-if as its next game (``/games`` or a raw ``game_started``, with the
  duel's recorder token, which opens its branches too): a game never played. ``linkable``, the
  one check of both doors, refuses a branch.
"""
from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from test_device_names import ADMIN, ORGANISER, WON, auth
from test_match_service import MATCHES, lines, match_body
from test_store import fresh_url
from ygoreplay.access import digest
from ygoreplay.service import create_app
from ygoreplay.store import Store

AXE = 40619825          # Axe of Despair: in Kaiba's Deck (p1.m2, in his opening hand), not in Yugi's
EQUIP = {"kind": "activated", "player": 1, "card": "p1.m2", "zone": 0, "targets": ["p1.m0"]}


@pytest.fixture
def served(tmp_path):
    with fresh_url("sqlite", tmp_path / "duels.sqlite") as url, Store(url, concurrent=True) as store, \
            TestClient(create_app(store, digest(ADMIN))) as client:
        yield client


def _what_if(client, release: str) -> tuple[dict, str]:
    """A public duel at Kaiba's Main Phase 1 after his Normal Summon, and a judge's branch there
    in which Kaiba equips the Axe of Despair from his hand (the duel itself goes on without it)."""
    duel = client.post("/duels", json={"title": "what if", "visibility": "public", "release": release},
                       headers=ORGANISER).json()
    recorder = auth(duel["tokens"]["recorder"])
    assert client.post(f"/duels/{duel['id']}/events", json=WON[:18], headers=recorder).status_code == 200
    made = client.post(f"/duels/{duel['id']}/branch", json={"at": 17}, headers=auth(duel["tokens"]["judge"]))
    assert made.status_code == 201, made.text
    branch = made.json()["id"]
    answer = client.post(f"/duels/{branch}/events", json=[EQUIP], headers=recorder)
    assert answer.status_code == 200, answer.text
    assert client.post(f"/duels/{duel['id']}/events", json=WON[18:20], headers=recorder).status_code == 200
    return duel, branch


def _codes(client, duel_id: str, headers: dict, view: str | None = None) -> str:
    """Everything a token reads of a duel's events in a view (the NDJSON, as text)."""
    query = f"?view={view}" if view else ""
    answer = client.get(f"/duels/{duel_id}/events{query}", headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.text


def test_a_judges_what_if_branch_shows_no_player_a_card_its_running_parent_hides(served):
    """Yugi's token opens the judge's branch: its what-if equip showed him the Axe of Despair in
    Kaiba's hand while their duel went on (Kaiba's hand is his own, ZONE-12)."""
    client = served
    duel, branch = _what_if(client, "end")
    yugi, judge = auth(duel["tokens"]["p0"]), auth(duel["tokens"]["judge"])
    assert str(AXE) not in _codes(client, duel["id"], yugi), "the duel itself hides it from Yugi"
    assert str(AXE) in _codes(client, branch, judge), "the judge sees the what-if"
    for headers, view in ((yugi, None), (yugi, "spectator"), ({}, None), (auth(duel["tokens"]["spectator"]), None)):
        assert str(AXE) not in _codes(client, branch, headers, view), (view, "a what-if of a running duel")
        for path in (f"/duels/{branch}/state", f"/duels/{branch}/cards", f"/duels/{branch}/replay.ygr"):
            answer = client.get(path, headers=headers)
            assert answer.status_code == 200 and str(AXE).encode() not in answer.content and (
                b"Axe of Despair" not in answer.content), (path, view)
    frames = client.get(f"/duels/{branch}/frames", headers=yugi)
    assert frames.status_code == 200 and b"Axe of Despair" not in frames.content      # the client unzips it
    state = client.get(f"/duels/{branch}/state", headers=yugi).json()
    assert state["at"] == 17, "its views stop where the branch left, which the duel showed them"
    for headers in (yugi, {}):
        family = client.get(f"/duels/{duel['id']}/tree", headers=headers).json()
        assert [member["events"] for member in family] == [20, 18], ("/tree counts what the view sees", family)
    assert [m["events"] for m in client.get(f"/duels/{duel['id']}/tree", headers=judge).json()] == [20, 19]


def test_a_what_if_branch_shows_its_own_events_once_its_parent_released_what_it_hid(served):
    """Played to its end under the ``end`` policy, the duel hides nothing any more: the branch's
    what-if is every view's. Under ``never`` it stays the judge's: Kaiba's hand was never shown."""
    client = served
    for release, shown in (("end", True), ("never", False)):
        duel, branch = _what_if(client, release)
        recorder = auth(duel["tokens"]["recorder"])
        assert client.post(f"/duels/{duel['id']}/events", json=WON[20:], headers=recorder).status_code == 200
        assert (str(AXE) in _codes(client, branch, auth(duel["tokens"]["p0"]))) is shown, release
        assert (str(AXE) in _codes(client, branch, {})) is shown, release
        lines = [json.loads(line) for line in _codes(client, branch, {}).splitlines()]
        assert len(lines) == (19 if shown else 18), release


def test_a_search_finds_no_card_by_a_what_if_of_a_duel_that_hides_it(served):
    """The library is a spectator's: the what-if's Axe of Despair made the judge's branch a hit for
    the card (and counted in its numbers) while Kaiba's duel went on holding it in his hand."""
    client = served
    duel, branch = _what_if(client, "end")
    found = client.get("/search", params={"card": str(AXE)})
    assert found.status_code == 200, found.text
    assert [hit["id"] for hit in found.json()["results"]] == [], found.json()
    stats = client.get(f"/cards/{AXE}/stats").json()
    assert stats["duels"] == 0 and stats["activated"] == 0, stats


def test_a_branch_of_a_what_if_shows_no_player_the_what_if_it_keeps(served):
    """A branch of the judge's branch, after its what-if equip: its first events are the what-if's,
    cut where the branch it left was cut, not where it left."""
    client = served
    duel, branch = _what_if(client, "end")
    made = client.post(f"/duels/{branch}/branch", json={"at": 18}, headers=auth(duel["tokens"]["judge"]))
    assert made.status_code == 201, made.text
    yugi = auth(duel["tokens"]["p0"])
    assert str(AXE) not in _codes(client, made.json()["id"], yugi)
    assert client.get(f"/duels/{made.json()['id']}/state", headers=yugi).json()["at"] == 17


def test_a_what_if_branch_counts_in_no_players_record_nor_a_cards_numbers(served):
    """Yugi won the duel; the judge's what-if, where he surrenders, counted as Kaiba's win in his
    public record, and the Vorse Raider Kaiba summoned before it left counted twice in the card's
    numbers (the branch keeps the duel's first events)."""
    client = served
    duel, branch = _what_if(client, "end")
    recorder = auth(duel["tokens"]["recorder"])
    assert client.post(f"/duels/{duel['id']}/events", json=WON[20:], headers=recorder).status_code == 200
    surrender = {"kind": "duel_ended", "winner": 1, "reason": "surrender"}
    assert client.post(f"/duels/{branch}/events", json=[surrender], headers=recorder).status_code == 200
    kaiba = client.get("/players/Kaiba").json()
    assert (kaiba["won"], kaiba["lost"]) == (0, 1), kaiba
    vorse = client.get("/cards/14898066/stats").json()
    assert vorse["duels"] == 1 and vorse["won_by_user"] + vorse["lost_by_user"] <= 1, vorse


def test_a_judges_what_if_branch_is_no_duel_of_a_match_by_any_door(served):
    """The table's recorder, holding the duel's recorder token (its branches' too), linked the
    judge's what-if as the match's next game: a game never played, its first events another
    duel's, its end (a what-if surrender) one the match would count."""
    client = served
    duel, branch = _what_if(client, "end")
    match = client.post("/matches", json=match_body(lines(MATCHES / "two-nil.jsonl"), visibility="public"),
                        headers=ORGANISER).json()
    recorder, token = auth(match["tokens"]["recorder"]), duel["tokens"]["recorder"]
    typed = client.post(f"/matches/{match['id']}/games", headers=recorder,
                        json={"duel": branch, "duel_token": token, "first_player": 0, "chosen_by": 0})
    assert typed.status_code == 409 and typed.json()["where"] == "duel", typed.text
    started = next(ev for ev in lines(MATCHES / "two-nil.jsonl") if ev["kind"] == "game_started")
    raw = client.post(f"/matches/{match['id']}/events", params={"duel_token": token}, headers=recorder,
                      json=[{**started, "duel": branch}])
    assert raw.status_code == 409, raw.text
    assert client.get(f"/matches/{match['id']}/state", headers=recorder).json()["games"] == []
    linked = client.post(f"/matches/{match['id']}/games", headers=recorder,
                         json={"duel": duel["id"], "duel_token": token, "first_player": 0, "chosen_by": 0})
    assert linked.status_code == 201, ("the duel played is linked", linked.text)
