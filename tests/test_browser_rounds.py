"""The printed pages of issue 23 in a real browser (Debian's chromium driven by Playwright, as
tests/test_browser.py): a duel's LP sheet printed to PDF on A4 and Letter, and a round's QR
sheet and round page as the organiser and a passer-by open them."""
from __future__ import annotations

import re

import httpx
import pytest

from test_browser import CHROMIUM, browser, page, shot  # noqa: F401  (fixtures)
from test_match_service import MATCHES, lines
from test_service import ADMIN, Server, auth, create, events_of

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    srv = Server(str(tmp_path_factory.mktemp("sheets") / "service.sqlite"))
    yield srv
    srv.stop()


def test_the_lp_sheet_prints_to_pdf_with_its_rows_and_signature_lines(service, page, tmp_path):
    duel = create(service.url, title="Feature match")
    r = httpx.post(f"{service.url}/duels/{duel['id']}/events", json=events_of("won-by-damage.jsonl"),
                   headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    page.goto(f"{service.url}/duels/{duel['id']}/lp-sheet?token={duel['tokens']['spectator']}")
    expect(page.locator("#rows tbody tr")).to_have_count(5)
    expect(page.locator("#result")).to_contain_text("Yugi wins (LP reached 0)")
    expect(page.locator(".signatures div")).to_have_count(2)
    shot(page, "lp-sheet")
    for paper, size in (("a4", "A4"), ("letter", "Letter")):
        page.goto(f"{service.url}/duels/{duel['id']}/lp-sheet?paper={paper}&token={duel['tokens']['spectator']}")
        pdf = page.pdf(format=size, print_background=True, prefer_css_page_size=True)
        assert pdf.startswith(b"%PDF-") and pdf.count(b"/Type /Page") - pdf.count(b"/Type /Pages") >= 1
        (tmp_path / f"lp-sheet-{paper}.pdf").write_bytes(pdf)


def test_the_qr_sheet_and_the_round_page_in_the_browser(service, page, tmp_path):
    r = httpx.post(f"{service.url}/rounds?event=Locals&round=2&page=qr",
                   content="table,player,player\n" + "".join(f"{t},P{2 * t},P{2 * t + 1}\n" for t in range(1, 9)),
                   headers={"Content-Type": "text/csv", **auth(ADMIN)})
    assert r.status_code == 201, r.text
    qr = tmp_path / "qr.html"
    qr.write_text(r.text)
    page.goto(qr.as_uri())
    expect(page.locator("figure.table svg")).to_have_count(8)
    expect(page.locator("figure.seat svg")).to_have_count(16)          # each seat's own (tableprobe19)
    expect(page.locator("#secret")).to_contain_text("Organiser only")
    assert page.pdf(format="A4").startswith(b"%PDF-")
    shot(page, "round-qr")
    assert len([m for m in httpx.get(f"{service.url}/matches", headers=auth(ADMIN)).json() if "Locals" in m["title"]]) == 8
    page.locator("#round-page").click()               # the round's own page, for anyone with its address
    expect(page.locator("#tables tbody tr")).to_have_count(8)
    expect(page.locator("#table-3")).to_contain_text("P6")
    expect(page.locator("#table-3")).to_contain_text("not started")
    assert "token=" not in page.content()
    page.set_viewport_size({"width": 360, "height": 740})
    shot(page, "round-page-360")


def test_the_round_page_script_redraws_its_rows_in_the_pages_language(service, page):
    """``round.js`` redrew each row as the round's stream moved with English of its own (a drawn
    duel's "(1 drawn)", "live") and the English state the JSON gives ("between duels"), on a page
    the server drew in Japanese: now it says them in the page's language (``i18n.js``)."""
    r = httpx.post(f"{service.url}/rounds?event=Regional&round=5", content="1,Yugi,Kaiba\n2,Joey,Mai\n",
                   headers={"Content-Type": "text/csv", **auth(ADMIN)})
    assert r.status_code == 201, r.text
    made = r.json()
    decks = [e for e in lines(MATCHES / "two-nil.jsonl") if e["kind"] == "decklist_registered"]
    for table in made["tables"]:
        writer = auth(table["tokens"]["recorder"])
        assert httpx.post(f"{service.url}/matches/{table['match']}/events", json=decks, headers=writer).status_code == 200
        game = httpx.post(f"{service.url}/matches/{table['match']}/games", json={"first_player": 0, "chosen_by": 0},
                          headers=writer)
        assert game.status_code == 201, game.text
    one = made["tables"][0]
    ended = httpx.post(f"{service.url}/matches/{one['match']}/games/1/end", json={"winner": None, "how": "draw"},
                       headers=auth(one["tokens"]["recorder"]))
    assert ended.status_code == 200, ended.text
    assert [t["state"] for t in httpx.get(f"{service.url}/rounds/{made['id']}.json").json()["tables"]] \
        == ["between duels", "playing duel 1"]
    page.goto(f"{service.url}/rounds/{made['id']}?lang=ja")
    expect(page.locator("body[data-updated]")).to_have_count(1)           # the stream's rows, drawn by round.js
    expect(page.locator("#table-1 .score")).to_have_text("0 – 0（引き分け 1）")
    expect(page.locator("#table-1 .state")).to_have_text("デュエルの合間")
    expect(page.locator("#table-2 .state")).to_have_text("デュエル1を対戦中")
    expect(page.locator("#live")).to_contain_text("ライブ")
    # a language chosen on another page (i18n.js keeps it): the page is drawn again in it, so its
    # headings (the server's) and its rows (the script's) say the same language
    page.evaluate("localStorage.setItem('ygoreplay.lang', 'ko')")
    page.goto(f"{service.url}/rounds/{made['id']}")
    expect(page).to_have_url(re.compile(r"\?lang=ko$"))
    expect(page.locator("body[data-updated]")).to_have_count(1)
    expect(page.locator("#table-1 .state")).to_have_text("듀얼 사이")
    expect(page.locator("#table-1 .score")).to_have_text("0 – 0 (무승부 1)")
