"""The round page's seal line in a real browser (``leftovers21``; Debian's chromium driven by
Playwright, as tests/test_browser.py): a round signed late stops reading UNSIGNED as the round's
stream tells the page, without a reload."""
from __future__ import annotations

import httpx
import pytest

from test_browser import CHROMIUM, browser, page  # noqa: F401  (fixtures)
from test_round_seal_20 import _round, unsigned  # noqa: F401  (fixture: rounds made as before they were signed)
from test_service import ADMIN, Server, auth

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect


def test_the_round_pages_unsigned_line_follows_the_round_signed_late(tmp_path, unsigned, monkeypatch, page):
    """The page of a round written before rounds were signed says UNSIGNED (the server drew it);
    the organiser signs it late (``POST /rounds/{id}/sign``) while the page is open: its stream
    sends the round again, signed, and ``round.js`` redrew the rows only, the page still reading
    UNSIGNED until reloaded. The line is drawn again from the stream, in the page's language."""
    store = str(tmp_path / "service.sqlite")
    round_id = _round(store)
    monkeypatch.undo()                                  # this code from here on
    service = Server(store)
    try:
        page.goto(f"{service.url}/rounds/{round_id}?lang=ja")
        expect(page.locator("body[data-updated]")).to_have_count(1)       # the stream's round, drawn by round.js
        expect(page.locator("#seal.unsigned")).to_contain_text("未署名")
        signed = httpx.post(f"{service.url}/rounds/{round_id}/sign", headers=auth(ADMIN))
        assert signed.status_code == 200 and signed.json()["signed"]["late"] is True, signed.text
        # the stream reads the round again at the latest after its look-again (rounds.LOOK_AGAIN, 5 s)
        expect(page.locator("#seal")).to_contain_text(f"主催者の鍵 {signed.json()['signed']['key']} で署名（未署名で書かれた後に）",
                                                      timeout=30_000)
        expect(page.locator("#seal.unsigned")).to_have_count(0)
    finally:
        service.stop()
