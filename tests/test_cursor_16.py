"""Two holes an attacker found (issue 25, sixteenth pass).

* A search page whose read-ahead ran out (``library_search._BATCHES``) gave as ``next`` the last
  row it READ, not one it showed: the base64 of its id and creation time, a row the page left out.
  A cursor is now sealed (AES-GCM under a key derived from the organiser's private key) and bound
  to its search: it tells nothing, and an altered, foreign or other search's cursor is a 400.
* The judge's ruling form (``viewer.js``) posted ``/duels/{id}/notes`` without ``?expected=``: a lost
  answer and a retry stored the ruling twice (MATCH-08). It sends the length the judge ruled on,
  and on 409 reloads the entries and says so.
"""
from __future__ import annotations

import base64
import json
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from test_browser import browser, expect, opened, page, service  # noqa: F401  (fixtures)
from test_device_names import ADMIN
from test_leftovers_16 import _won_with_branches
from test_leftovers_16_browser import CALL
from test_service import auth, create, events_of
from test_store import fresh_url
from ygoreplay import library_search
from ygoreplay.access import digest
from ygoreplay.cli import main
from ygoreplay.service import create_app
from ygoreplay.signing import OrganiserKey
from ygoreplay.store import Store


@pytest.fixture
def url(tmp_path):
    with fresh_url("sqlite", tmp_path / "duels.sqlite") as found:
        yield found


def _pages(client: TestClient, params: dict[str, str]) -> list[dict]:
    pages, cursor = [], None
    while True:
        answer = client.get("/search", params={**params, **({"cursor": cursor} if cursor else {})})
        assert answer.status_code == 200, answer.text
        pages.append(answer.json())
        cursor = answer.json()["next"]
        if cursor is None:
            return pages
        assert len(pages) < 8, pages


def _raw(cursor: str) -> bytes:
    return base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))


def test_a_page_short_of_read_ahead_names_no_row_it_left_out_and_paging_stays_whole(url, monkeypatch):
    """``result=p0`` over duels each with a newer what-if branch (no result: left out after the
    statement), one statement a page: the second page's ``next`` was ``[created_ms, branch id]``
    of a branch the page never showed. Every cursor now holds no id nor time, and the pages still
    hold each duel once."""
    monkeypatch.setattr(library_search, "_BATCHES", 1)
    with Store(url, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        won = _won_with_branches(client, 3)
        every = [hit["id"] for hit in client.get("/search", params={"limit": "100"}).json()["results"]]
        branches = set(every) - set(won)
        assert len(branches) == 3
        pages = _pages(client, {"result": "p0", "limit": "2"})
        shown = [hit["id"] for each in pages for hit in each["results"]]
        assert sorted(shown) == sorted(won) and len(shown) == len(set(shown))
        cursors = [each["next"] for each in pages if each["next"]]
        assert cursors
        for cursor in cursors:
            raw = _raw(cursor)
            assert not any(stream.encode() in raw for stream in every), raw
            assert not raw.startswith(b"["), raw          # no JSON of the position either


def test_an_altered_cursor_is_a_translated_400_and_another_searchs_cursor_is_refused(url):
    with Store(url, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        _won_with_branches(client, 2)
        cursor = client.get("/search", params={"result": "p0", "limit": "1"}).json()["next"]
        assert cursor
        raw = bytearray(_raw(cursor))
        raw[-1] ^= 1
        altered = base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")
        for params in ({"result": "p0", "cursor": altered}, {"result": "p1", "cursor": cursor},
                       {"player": "Kaiba", "cursor": cursor}):
            answer = client.get("/search", params=params, headers={"Accept-Language": "ja"})
            assert answer.status_code == 400, (params, answer.text)
            assert answer.json()["where"] == "cursor"
            assert answer.json()["message_translated"] != answer.json()["error"], answer.json()
        # the player's duels: the search's cursor of another search is refused too
        assert client.get("/players/Yugi", params={"cursor": cursor}).status_code == 400
        first = client.get("/players/Yugi", params={"limit": "1"}).json()
        assert client.get("/players/Yugi", params={"limit": "1", "cursor": first["next"]}).status_code == 200
        over_http = client.get("/search", params={"result": "p0", "limit": "1", "cursor": cursor}).json()
    line = CliRunner().invoke(main, ["search", "--store", url, "--result", "p0", "--limit", "1", "--cursor", cursor,
                                     "--json"])
    assert line.exit_code == 0, line.output
    assert json.loads(line.output)["results"] == over_http["results"]
    other = CliRunner().invoke(main, ["search", "--store", url, "--result", "p1", "--cursor", cursor])
    assert other.exit_code == 2 and "--cursor" in other.output, other.output


def test_a_cursor_of_another_organisers_service_is_refused(tmp_path, monkeypatch):
    """The same search on two services (two organiser keys): one's cursor is no position of the other's."""
    cursors = []
    for name in ("a", "b"):
        key = tmp_path / f"{name}.key"
        key.write_bytes(OrganiserKey.generate().to_pem())
        monkeypatch.setenv("YGOREPLAY_KEY", str(key))
        with fresh_url("sqlite", tmp_path / f"{name}.sqlite") as where, Store(where, concurrent=True) as store, \
                TestClient(create_app(store, digest(ADMIN))) as client:
            _won_with_branches(client, 2)
            params = {"result": "p0", "limit": "1"}
            cursors.append(client.get("/search", params=params).json()["next"])
            if name == "b":
                answer = client.get("/search", params={**params, "cursor": cursors[0]})
                assert answer.status_code == 400 and answer.json()["where"] == "cursor", answer.text
                assert client.get("/search", params={**params, "cursor": cursors[1]}).status_code == 200


# -- the judge's ruling form (viewer.js, MATCH-08) -------------------------------------------------

def _called(service) -> tuple[dict, list[dict]]:  # noqa: F811
    """A public duel whose table called the judge at #20, 31 events long; the recorder appends the
    rest later (``won-by-damage``'s events)."""
    events = events_of("won-by-damage.jsonl")
    duel = create(service.url, title="called", visibility="public")
    for part in (events[:20], [CALL], events[20:30]):
        assert httpx.post(f"{service.url}/duels/{duel['id']}/events", json=part,
                          headers=auth(duel["tokens"]["recorder"])).status_code == 200
    return duel, events


def _rulings(service, duel: dict) -> list[dict]:  # noqa: F811
    stored = httpx.get(f"{service.url}/duels/{duel['id']}/events", headers=auth(duel["tokens"]["judge"]))
    events = [json.loads(line)["event"] for line in stored.text.splitlines()]
    return [event for event in events if event["kind"] == "judge_note" and event.get("on") == 20]


def _rule(page) -> None:  # noqa: F811
    form = page.locator("#calls li").nth(0)
    form.locator("input[name=judge]").fill("Head judge")
    form.locator("input[name=text]").fill("the Trap was activated first")
    form.locator("select[name=decision]").select_option("stands")
    form.locator("button[type=submit]").click()


def test_match_08_a_ruling_whose_answer_was_lost_sent_again_is_stored_once(service, page):  # noqa: F811
    """The ruling reaches the record and its answer is lost; the judge sends it again. It went
    without ``expected`` and was stored twice; it now carries the length the judge ruled on (31), the
    second is a 409, and the page reads the record again: the call is closed, and the judge told."""
    duel, _events = _called(service)
    page.route("**/follow?**", lambda route: route.abort())       # only what the page reads itself
    sent: list[str] = []

    def lost_once(route) -> None:
        sent.append(route.request.url)
        if len(sent) == 1:
            route.fetch()                                              # stored, its answer lost
            route.abort()
        else:
            route.continue_()
    page.route("**/notes?**", lost_once)
    page.route("**/notes", lost_once)
    opened(page, duel["links"]["judge"])
    expect(page.locator("#calls li")).to_have_count(1)
    _rule(page)
    expect(page.locator("#calls li .hint")).to_contain_text("no answer came")
    page.locator("#calls li button[type=submit]").click()
    expect(page.locator("#calls li")).to_have_count(0)
    expect(page.locator("#status")).to_contain_text("the call is closed")
    assert [parse_qs(urlsplit(url).query).get("expected") for url in sent] == [["31"], ["31"]], sent
    assert len(_rulings(service, duel)) == 1


def test_match_08_a_ruling_after_entries_the_page_had_not_read_is_refused_and_the_page_reads_them(
        service, page):  # noqa: F811
    """The recorder entered five more events the judge's page had not read: the ruling is refused
    (409, nothing stored), the page shows them and says so in its language; ruled again, it is stored."""
    duel, events = _called(service)
    page.route("**/follow?**", lambda route: route.abort())
    opened(page, duel["links"]["judge"] + "&lang=ja")
    expect(page.locator("#calls li")).to_have_count(1)
    assert httpx.post(f"{service.url}/duels/{duel['id']}/events", json=events[30:35],
                      headers=auth(duel["tokens"]["recorder"])).status_code == 200
    _rule(page)
    expect(page.locator("#calls li .hint")).to_contain_text("このページが読んだ後に記録が変わった")
    assert _rulings(service, duel) == []
    expect(page.locator("#slider")).to_have_attribute("max", "35")     # #0..#35: the five read
    page.locator("#calls li button[type=submit]").click()
    expect(page.locator("#calls li")).to_have_count(0)
    assert len(_rulings(service, duel)) == 1
