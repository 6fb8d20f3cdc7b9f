"""The library's page in a real browser (Debian's chromium, Playwright; see test_browser.py):
the list, the search form kept in the address, pages by cursor, opening a duel, a card's and a
player's page, hostile names shown as text, phone width.

The search API (``/search``, ``/cards/{code}/stats``, ``/players/{name}``) is another module's;
here a stub of it, registered only in this test, answers as its contract says, and records
what it was asked."""
from __future__ import annotations

import re

import pytest
from fastapi import APIRouter, Request

import test_service_delay
from test_browser import browser, opened, page, playwright_api, shot  # noqa: F401  (fixtures)
from test_service_delay import ADMIN, EVENTS, append, create, open_store

expect = playwright_api.expect

HOSTILE = '<img src=x onerror="document.body.dataset.owned=1">\u202eevil'


def rows() -> list[dict]:
    """Thirty rows, newest first, as /search gives them: duels and matches, every badge."""
    out = []
    for n in range(30):
        match = n % 7 == 3
        out.append({
            "kind": "match" if match else "duel", "id": f"{n:012x}", "title": f"Game {n}",
            "players": [HOSTILE if n == 2 else f"Player{n}A", f"Player{n}B"], "event": "Regional" if n % 2 else None,
            "round": str(n % 5 + 1) if n % 2 else None, "format": "TCG", "banlist": "2024-04",
            "created": f"2026-11-{30 - n:02d}T10:00:00Z",
            "result": None if n % 5 == 4 else {"winner": n % 3 if n % 3 < 2 else None, "reason": "lp"},
            "events": 100 + n, "turns": 5 + n % 4,
            "badges": [["imported", "table", "witnessed", "flagged", "signed", "verified-origin", "rollback"][n % 7]],
            "url": f"/{'match' if match else 'view'}/{n:012x}"})
    return out


class Stub:
    """The search API as its contract says, over ``rows`` (and the real duel first)."""

    def __init__(self) -> None:
        self.asked: list[dict] = []
        self.rows = rows()
        self.router = APIRouter()
        self.router.add_api_route("/search", self.search)
        self.router.add_api_route("/cards/{code}/stats", self.card)
        self.router.add_api_route("/players/{name}", self.player)

    def search(self, request: Request) -> dict:
        query = dict(request.query_params)
        self.asked.append(query)
        found = [r for r in self.rows if query.get("player", "").lower() in " ".join(r["players"]).lower()]
        start = int(query.get("cursor", "0"))
        limit = int(query.get("limit", "25"))
        return {"results": found[start:start + limit], "next": str(start + limit) if start + limit < len(found) else None}

    def card(self, code: str) -> dict:
        return {"code": int(code), "name": "Raigeki", "duels": 12, "activated": 9, "summoned": 0,
                "won_by_user": 7, "lost_by_user": 5}

    def player(self, name: str) -> dict:
        return {"name": name, "duels": self.rows[:3], "won": 2, "lost": 1, "drawn": 0}


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    """The service with the stub search API, and one real public duel listed first."""
    stub = Stub()
    create_app = test_service_delay.create_app

    def with_stub(store, admin_digest):
        app = create_app(store, admin_digest)
        app.router.routes[:0] = stub.router.routes      # answers before the real search API
        return app
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(test_service_delay, "create_app", with_stub)
        with open_store(tmp_path_factory.mktemp("library") / "duels.sqlite") as store, \
                test_service_delay.serving(store) as (base, _service):
            duel = create(base, title="the real one", visibility="public")
            append(base, duel["id"], ADMIN, EVENTS)
            stub.rows.insert(0, {**stub.rows[0], "id": duel["id"], "title": "the real one", "players": ["Yugi", "Kaiba"],
                                 "url": f"/view/{duel['id']}"})
            yield base, stub, duel


def test_the_library_lists_recent_public_duels_newest_first_with_what_each_is(library, page):
    base, stub, duel = library
    opened(page, base + "/")
    listed = page.locator("#results > li.row")
    expect(listed).to_have_count(25)
    first = listed.nth(0)
    expect(first.locator(".open")).to_have_text("the real one")
    expect(first.locator(".players")).to_have_text("Yugi vs Kaiba")
    game1 = listed.nth(2)                                  # rows()[1]: an event, a round, a win, a badge
    expect(game1.locator(".event")).to_have_text("Regional \u00b7 round 2")
    expect(game1.locator(".format")).to_have_text("TCG \u00b7 2024-04")
    expect(game1.locator(".date")).to_have_text("2026-11-29")
    expect(game1.locator(".result")).to_have_text("Player1B won (LP 0)")
    expect(game1.locator(".length")).to_have_text("101 events \u00b7 6 turns")
    expect(game1.locator(".badge")).to_have_text("table")
    match = page.locator("#results > li[data-kind=match]").first
    assert match.locator(".open").get_attribute("href") == f"/match/{3:012x}"
    hostile = listed.nth(3).locator(".players a").first     # a name is text: no element, no script
    expect(hostile).to_have_text('<img src=x onerror="document.body.dataset.owned=1">\\u202eevil')
    assert page.locator("#results img").count() == 0 and page.evaluate("document.body.dataset.owned") is None
    assert stub.asked[-1] == {"limit": "25"}
    shot(page, "library")


def test_a_search_is_kept_in_the_address_and_pages_by_cursor(library, page):
    base, stub, _duel = library
    opened(page, base + "/library")
    assert page.locator("#filters").get_attribute("open") is None    # no search yet: the list comes first
    page.locator("#filters summary").click()
    form = page.locator("#search")
    form.locator("[name=player]").fill("player1")
    form.locator("[name=card]").fill("Raigeki")
    form.locator("[name=action]").select_option("activated")
    form.locator("[name=turn_max]").fill("1")
    form.locator("[name=since]").fill("2026-11-01")
    form.locator("[name=result]").select_option("p0")
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/library\?"))
    page.wait_for_selector("body[data-ready=true]")
    query = dict(re.findall(r"([a-z_]+)=([^&]*)", page.url.split("?", 1)[1]))
    assert query == {"player": "player1", "since": "2026-11-01", "result": "p0", "card": "Raigeki",
                     "action": "activated", "turn_max": "1"}
    assert stub.asked[-1] == {**query, "limit": "25"}
    expect(page.locator("#results > li.row")).to_have_count(11)           # Player1, Player10..19
    assert page.locator("#older").is_hidden()
    # the address is the search: opened anew, the form says it again
    opened(page, page.url)
    expect(page.locator("#search [name=card]")).to_have_value("Raigeki")
    expect(page.locator("#search [name=action]")).to_have_value("activated")
    expect(page.locator("#heading")).to_have_text("Search results")
    # pages: the cursor the answer gave, in the address
    opened(page, base + "/library")
    page.locator("#older").click()
    page.wait_for_url(re.compile(r"cursor=25"))
    page.wait_for_selector("body[data-ready=true]")
    expect(page.locator("#results > li.row")).to_have_count(6)
    expect(page.locator("#results > li.row .open").first).to_have_text("Game 24")
    assert page.locator("#older").is_hidden() and page.locator("#newest").is_visible()
    page.locator("#newest").click()
    page.wait_for_url(base + "/library")


def test_a_row_opens_the_viewer(library, page):
    base, _stub, duel = library
    opened(page, base + "/")
    page.locator("#results > li.row .open").first.click()
    page.wait_for_url(f"{base}/view/{duel['id']}")
    page.wait_for_selector("body[data-ready=true]", timeout=15_000)
    expect(page.locator("#title")).to_have_text("the real one")


def test_a_cards_and_a_players_page(library, page):
    base, stub, _duel = library
    opened(page, base + "/library/card/12580477")
    expect(page.locator("#card-name")).to_have_text("Raigeki")
    expect(page.locator("#card-figures")).to_contain_text("activated9")
    assert stub.asked[-1] == {"card": "12580477", "limit": "25"}
    expect(page.locator("#results > li.row")).to_have_count(25)
    opened(page, base + "/library/player/" + "Yugi%20Muto")
    expect(page.locator("#player-name")).to_have_text("Yugi Muto")
    expect(page.locator("#player-figures")).to_contain_text("won2")
    expect(page.locator("#results > li.row")).to_have_count(3)
    page.locator("#results .players a", has_text="Kaiba").first.click()
    page.wait_for_url(f"{base}/library/player/Kaiba")


def test_the_library_fits_a_phone(library, browser):
    base, _stub, _duel = library
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    page = context.new_page()
    opened(page, base + "/library?player=player1")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert page.locator("#filters").get_attribute("open") is not None        # a search shows its form
    box = page.locator("#search [name=card]").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360
    shot(page, "library-phone")
    context.close()

