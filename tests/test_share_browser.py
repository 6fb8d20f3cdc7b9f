"""Sharing in a real browser (Debian's chromium, Playwright; see test_browser.py): the embed
inside another site's ``<iframe>`` at the event its link names, the viewer refusing to be framed,
the share button's link (the event, the view, the hands; never a stronger token than the page
was opened with) and what such a link opens."""
from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from test_browser import at, browser, opened, page, playwright_api  # noqa: F401  (fixtures)
from test_service_delay import ADMIN, EVENTS, append, create, open_store, serving

expect = playwright_api.expect


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    with open_store(tmp_path_factory.mktemp("share-browser") / "duels.sqlite") as store, serving(store) as served:
        yield served[0]


def recorded(base: str, **settings) -> dict:
    duel = create(base, title="shared", **settings)
    append(base, duel["id"], ADMIN, EVENTS)
    return duel


class Site(ThreadingHTTPServer):
    """Another site (another origin: a port of its own), whose one page holds ``html``."""

    def __init__(self, html: str) -> None:
        body = html.encode()

        class Page(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass
        super().__init__(("127.0.0.1", 0), Page)
        self.url = f"http://127.0.0.1:{self.server_address[1]}/"
        threading.Thread(target=self.serve_forever, daemon=True).start()


def test_the_embed_plays_in_another_sites_frame_at_the_linked_event(service, page):
    duel = recorded(service, visibility="public", release="never")
    d = duel["id"]
    site = Site(f'<iframe id="f" src="{service}/embed/{d}#e10" width="800" height="620"></iframe>'
                f'<iframe id="v" src="{service}/view/{d}" width="300" height="200"></iframe>')
    page.goto(site.url)
    frame = page.frame_locator("#f")
    frame.locator("body[data-ready=true]").wait_for(timeout=15_000)
    expect(frame.locator("#where")).to_contain_text(f"event #10 of {len(EVENTS)}")
    for chrome in ("#view", "#download", "#share", ".panel", "#search"):
        expect(frame.locator(chrome)).to_be_hidden()
    expect(frame.locator("#board")).to_be_visible()
    full = frame.locator("#open-full")
    expect(full).to_be_visible()
    expect(full).to_have_attribute("href", f"/view/{d}#e10")
    frame.locator("#next").click()
    expect(full).to_have_attribute("href", f"/view/{d}#e11")
    framed = page.locator("#v").element_handle().content_frame()
    for _ in range(100):                                     # until the framed viewer's navigation settles
        if framed.url.startswith(("chrome-error:", service)):
            break
        page.wait_for_timeout(100)
    assert framed.url.startswith("chrome-error:"), "the viewer page itself refuses to be framed"
    site.shutdown()


def test_a_public_duels_share_link_holds_no_token_and_opens_at_the_event(service, browser):
    duel = recorded(service, visibility="public", release="never")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    opened(page, duel["links"]["judge"] + "#e20")            # a judge's page of a public duel
    page.locator("#share").click()
    link = page.locator("#share-link").input_value()
    assert link == f"{service}/view/{duel['id']}#e20&view=spectator"
    assert duel["tokens"]["judge"] not in link
    other = context.new_page()                               # someone else opens it
    opened(other, link)
    at(other, 20)
    expect(other.locator("#status")).to_contain_text("spectator view")
    assert other.evaluate("location.hash") == "#e20&view=spectator"
    context.close()


def test_a_link_with_a_view_the_reader_may_not_see_opens_its_own(service, page):
    duel = recorded(service, visibility="public", release="never")
    opened(page, f"{service}/view/{duel['id']}#e5&view=judge")
    at(page, 5)
    expect(page.locator("#status")).to_contain_text("spectator view")
    assert page.locator("#error").is_hidden()


def test_an_unlisted_duels_link_keeps_the_token_it_was_opened_with_and_hides_hands(service, browser):
    duel = recorded(service, visibility="unlisted", release="never")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    opened(page, duel["links"]["p0"] + "#e30")
    hand = page.locator("#side-bottom .hand .card")
    assert hand.count() and page.locator("#side-bottom .hand .card.back").count() == 0   # p0 sees its hand
    page.locator("#hands").check()
    expect(page.locator("#side-bottom .hand .card:not(.back)")).to_have_count(0)
    assert page.locator("#side-bottom .hand .cname").count() == 0          # no name left in the hand
    page.locator("#share").click()
    link = page.locator("#share-link").input_value()
    assert link == f"{service}/view/{duel['id']}?token={duel['tokens']['p0']}#e30&view=p0&hands=hidden"
    expect(page.locator("#share-said")).to_contain_text("your own token")
    for role in ("judge", "recorder", "spectator", "p1"):
        assert duel["tokens"][role] not in link
    spectator = context.new_page()
    opened(spectator, duel["links"]["spectator"] + "#e30")
    spectator.locator("#share").click()
    assert spectator.locator("#share-link").input_value().endswith(f"?token={duel['tokens']['spectator']}#e30&view=spectator")
    expect(spectator.locator("#share-said")).not_to_contain_text("your own token")
    other = context.new_page()
    opened(other, link)
    at(other, 30)
    expect(other.locator("#hands")).to_be_checked()
    expect(other.locator("#side-bottom .hand .card:not(.back)")).to_have_count(0)
    other.locator("#hands").uncheck()
    assert other.locator("#side-bottom .hand .card:not(.back)").count() > 0
    assert "hands=hidden" not in other.evaluate("location.hash")
    context.close()
