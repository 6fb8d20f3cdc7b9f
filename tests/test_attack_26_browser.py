"""Attack 26 in a real browser: what a player's device keeps to itself (the recorder page's
seals, viewer/record.js) never leaves it, not even inside a question to the service."""
from __future__ import annotations

import pytest

from test_browser import browser, service  # noqa: F401  (the fixtures)
from test_browser_record import Table, stored
from test_service import create

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect


def test_a_players_device_sends_no_name_of_its_own_hidden_card_it_may_seal(service, browser):  # noqa: F811
    """Naming an own hidden card to seal it asked ``/actions?shows=<card>:<passcode>``: the
    passcode a seal exists to keep from the service reached it (and its access log) before
    the seal was even made. The name stays on the device; the seal still works; a card the
    player puts face-up carries its name with that entry (an entry is the player's choice)."""
    duel = create(service.url, title="sealed, never asked", mode="witnessed")
    p0 = Table(browser, duel["record"]["p0"], width=360)
    p1 = Table(browser, duel["record"]["p1"], width=360)
    asked: list[str] = []
    p0.page.on("request", lambda request: asked.append(request.url))
    p1.page.fill("#name0", "Yugi")
    p1.page.fill("#name1", "Kaiba")
    p1.tap("#start")
    p0.settled(5)
    card = p0.page.evaluate("window.ygoreplay.recorder.board.players[0].hand[0].id")
    code = 46986414                                  # Dark Magician
    p0.name(card, code)
    expect(p0.page.locator('#sheet [data-seal="seal"]')).to_be_visible()
    expect(p0.page.locator("#sheet-actions")).to_have_attribute("data-shows", f"{card}:{code}")   # asked, answered
    assert [url for url in asked if "/actions?" in url], "the page asked for the card's actions"
    assert not [url for url in asked if str(code) in url], "the passcode went out in a question"
    p0.tap('#sheet [data-seal="seal"]')
    p0.settled(6)
    events = stored(service.url, duel)
    assert not [e for e in events if str(code) in str(e)], "the passcode went out with an entry"
    assert not [url for url in asked if str(code) in url]
    p0.close()
    p1.close()
