"""The library page against the real search API (tests/test_library_page.py drives it with a
stub that answers as the API's contract says; here the two meet)."""
from __future__ import annotations

import pytest

import test_service_delay
from test_browser import browser, opened, page, playwright_api  # noqa: F401  (fixtures)
from test_store import fresh_url
from test_service_delay import ADMIN, EVENTS, append, create, open_store

expect = playwright_api.expect


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_library_finds_a_real_public_duel_through_the_real_search(backend, tmp_path, page):
    """No stub: a public duel recorded through the service is listed by the page from the real
    ``/search``, found by its player's name, and opens in the viewer; an unlisted one is not."""
    with fresh_url(backend, tmp_path / "duels.sqlite") as url, open_store(url) as store, \
            test_service_delay.serving(store) as (base, _service):
        public = create(base, title="listed final", visibility="public")
        append(base, public["id"], ADMIN, EVENTS)
        hidden = create(base, title="unlisted final", visibility="unlisted")
        append(base, hidden["id"], ADMIN, EVENTS)
        page.goto(f"{base}/library?player=Yugi")
        rows = page.locator("#results > li.row")
        expect(rows).to_have_count(1)
        expect(rows.first).to_contain_text("listed final")
        assert "unlisted final" not in page.content()
        rows.first.locator(".open").click()
        page.wait_for_url(f"**/view/{public['id']}**")

