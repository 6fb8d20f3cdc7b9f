"""A public duel of a private (or unlisted) match tells its readers nothing of the match (issue 25,
fifteenth pass; ``rounds.match_details``, ``access.knows_match``, ``library_search._shown``).

A duel goes into a match no wider than itself (``access.linkable_into``): a public duel may be
a duel of a private match. What was wrong: the duel's LP sheet (the page over HTTP, and the
command line's) printed the match's event name, round, table and format to anyone who may read
the duel, and the library's search showed them in the duel's result (and found the duel by
them, and badged it a table's): a reader who may not read the match learnt that it exists and
where it was played. Now a duel names its match only to a reader who may know of the match: the
organiser, a token of the match's own, anyone of a public match, a token of the duel's own table
(its players', recorder's, judge's: ``access.TABLE_ROLES``; ``test_leftovers_15b``); the command
line's spectator sheet names only a public match (a player's names it, as the service's sheet of
the player's token does: ``test_leftovers_16``).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from duel import CARDS
from test_store import store_url  # noqa: F401  (fixture: a fresh SQLite file or PostgreSQL schema)
from ygoreplay.access import digest
from ygoreplay.cli import main
from ygoreplay.match import stream as _match_stream  # noqa: F401  (the store's matches: registers their kind)
from ygoreplay.service import create_app
from ygoreplay.store import Store

ADMIN = "context-organiser-token-0123456789abcdef012345678"
ORGANISER = {"Authorization": f"Bearer {ADMIN}"}
ROOT = Path(__file__).resolve().parent.parent
SECRET = "Hidden Invitational"


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]


@pytest.fixture
def served(store_url):
    store = Store(store_url, CARDS)
    with TestClient(create_app(store, digest(ADMIN))) as client:
        yield store_url, client
    store.close()


def _public_duel_of(client: TestClient, match_sees: str) -> tuple[dict, dict]:
    """A public duel recorded to its end, linked by its recorder into a match seen by
    ``match_sees`` held at the event ``SECRET``, round 7."""
    sample = _lines(ROOT / "replays" / "matches" / "two-nil.jsonl")
    start = sample[0]
    body = {"title": "Top table", "players": start["players"], "policy": start["policy"], "visibility": match_sees,
            "banlist": {"name": start["banlist"], "limits": start.get("limits", [])},
            "decklists": [{k: ev[k] for k in ("main", "extra", "side") if k in ev}
                          for ev in sample[1:3] if ev["kind"] == "decklist_registered"],
            "format": "Secret Format", "event_name": SECRET, "round": 7}
    match = client.post("/matches", json=body, headers=ORGANISER).json()
    duel = client.post("/duels", json={"title": "Feature duel", "visibility": "public"}, headers=ORGANISER).json()
    events = _lines(ROOT / "replays" / "won-by-damage.jsonl")
    assert client.post(f"/duels/{duel['id']}/events", json=events,
                       headers=auth(duel["tokens"]["recorder"])).status_code == 200
    linked = client.post(f"/matches/{match['id']}/games", json={"duel": duel["id"], "duel_token": duel["tokens"]["recorder"]},
                         headers=auth(match["tokens"]["recorder"]))
    assert linked.status_code == 201, linked.text
    return match, duel


def _tells(text: str, match: dict) -> bool:
    return any(said in text for said in (SECRET, "Secret Format", match["id"]))


@pytest.mark.parametrize("match_sees", ["private", "unlisted"])
def test_a_public_duels_lp_sheet_names_its_match_only_to_who_may_read_the_match(served, match_sees):
    _url, client = served
    match, duel = _public_duel_of(client, match_sees)
    page = f"/duels/{duel['id']}/lp-sheet"
    # the organiser's sheet first: a reader asking after it is not handed the sheet made for it
    mine = client.get(page, headers=ORGANISER)
    assert mine.status_code == 200 and SECRET in mine.text and "Secret Format" in mine.text
    for headers in ({}, auth(duel["tokens"]["spectator"])):      # the table's own tokens: test_leftovers_15b
        sheet = client.get(page, headers=headers)
        assert sheet.status_code == 200 and "Yugi wins" in sheet.text
        assert not _tells(sheet.text, match), headers
        assert not _tells(client.get(f"{page}.csv", headers=headers).text, match)
    # a token of the match's own reads the match, and is told where the duel was played
    told = client.get(page, headers=auth(match["tokens"]["judge"]))
    assert told.status_code == 200 and SECRET in told.text and "Secret Format" in told.text


def test_a_public_matchs_duel_names_it_to_everyone(served):
    _url, client = served
    match, duel = _public_duel_of(client, "public")
    assert SECRET in client.get(f"/duels/{duel['id']}/lp-sheet").text
    rows = client.get("/search", params={"kind": "duel", "event": "invitational"}).json()["results"]
    assert [r["id"] for r in rows] == [duel["id"]] and rows[0]["event"] == SECRET and "table" in rows[0]["badges"]


@pytest.mark.parametrize("match_sees", ["private", "unlisted"])
def test_the_library_shows_finds_and_badges_no_duel_by_a_match_it_may_not_read(served, match_sees):
    _url, client = served
    match, duel = _public_duel_of(client, match_sees)
    rows = client.get("/search", params={"kind": "duel"}).json()["results"]
    assert [r["id"] for r in rows] == [duel["id"]], rows
    assert {k: rows[0][k] for k in ("event", "round", "format", "banlist")} == dict.fromkeys(
        ("event", "round", "format", "banlist"))
    assert "table" not in rows[0]["badges"] and not _tells(json.dumps(rows), match)
    for params in ({"event": "invitational"}, {"round": "7"}, {"format": "secret"}, {"source": "table"}):
        answer = client.get("/search", params={"kind": "duel", **params}).json()
        assert answer["results"] == [], params
    assert [r["id"] for r in client.get("/search", params={"source": "api"}).json()["results"]] == [duel["id"]]


@pytest.mark.parametrize("match_sees", ["private", "unlisted"])
def test_the_command_lines_spectator_sheet_names_no_private_match(served, match_sees):
    url, client = served
    match, duel = _public_duel_of(client, match_sees)
    runner = CliRunner()
    judge = runner.invoke(main, ["lp-sheet", duel["id"], "--store", url])
    assert judge.exit_code == 0, judge.output
    assert SECRET in judge.output and "Secret Format" in judge.output
    seen = runner.invoke(main, ["lp-sheet", duel["id"], "--store", url, "--view", "spectator"])
    assert seen.exit_code == 0 and "Yugi wins" in seen.output, seen.output
    assert not _tells(seen.output, match)       # a player's sheet names it: test_leftovers_16
