"""The pages in the OCG's own languages (issue 27), in a real browser (Debian's chromium, as
test_browser.py): the viewer, the match page, the recorder's page, the library (with the stub search
API of test_library_page.py) and the embed in Simplified Chinese and Japanese (and at phone width Traditional Chinese and Korean) show no English word of their own,
and no text runs out of its box at 360 px; screenshots at 360 and 1280 px under a temporary folder; the language switch changes the language
and is remembered; the browser's Accept-Language chooses the first one; the rule pop-up quotes
the rule's seed text; and an entry made on the recorder's page in Japanese is stored exactly as
the same entry made in English. Without a browser: the catalogue endpoint, the page's <html lang>,
and every word of the pages' HTML and JS in the catalogue.

The log's sentences and the board's phase names are written by the server in the ``ygoreplay``
domain (tested with it); the checks here leave them out, as they leave out data: player names,
card names, titles, the policy's name.
"""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import httpx
import pytest

from test_browser import browser, record, service  # noqa: F401  (the fixtures)
from test_browser_record import Table, stored
from test_library_page import HOSTILE, library  # noqa: F401  (the library with a stub search API)
from test_match_service import drive
from test_service import create
from ygoreplay import i18n, viewer

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect

VIEWER = Path(viewer.__file__).parent
#: Words that stay as they are in every language: the product's name, keys as keyboards label them.
KEPT = {"ygoreplay", "Home", "End", "Shift", "Space", "Esc", "JSON", "UTC"}


# -- without a browser -------------------------------------------------------------------------------

def test_the_catalogue_endpoint_serves_each_language_and_refuses_others(service):
    r = httpx.get(f"{service.url}/i18n/ja.json")
    assert r.status_code == 200 and "max-age" in r.headers["cache-control"]
    body = r.json()
    assert body["language"] == "ja" and body["languages"] == i18n.LANGUAGES
    assert body["messages"]["Play"] == i18n.catalogue("ja", "pages")["Play"] != "Play"
    again = httpx.get(f"{service.url}/i18n/ja.json", headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304
    assert httpx.get(f"{service.url}/i18n/en.json").json()["messages"] == {}
    missing = httpx.get(f"{service.url}/i18n/klingon.json")
    assert missing.status_code == 404 and "zh-Hans" in missing.json()["error"]


@pytest.mark.parametrize("query, accept, language", [
    ("", "ja-JP,ja;q=0.9", "ja"), ("", "zh-TW", "zh-Hant"), ("", "fr-FR", "en"),
    ("&lang=zh-CN", "ja", "zh-Hans"), ("&lang=ko", "zh", "ko")])
def test_a_page_is_served_in_its_lang_or_the_browsers_language(service, query, accept, language):
    duel = create(service.url, title="languages")
    for path in (f"/view/{duel['id']}", f"/record/{duel['id']}", "/match/0123456789ab", f"/embed/{duel['id']}", "/",
                 "/library", "/library/card/12580477", "/library/player/Yugi"):
        r = httpx.get(f"{service.url}{path}?token=x{query}", headers={"Accept-Language": accept})
        assert r.status_code == 200 and f'<html lang="{language}">' in r.text, path
        assert "Accept-Language" in r.headers["vary"]


class _Words(HTMLParser):
    """The words a page's HTML shows: text marked data-t, and title, aria-label, placeholder."""

    def __init__(self) -> None:
        super().__init__()
        self.words: set[str] = set()
        self.marked = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.words.update(attrs[name] for name in ("title", "aria-label", "placeholder") if attrs.get(name))
        self.marked += "data-t" in attrs

    def handle_data(self, data):
        if self.marked and data.strip():
            self.words.add(data.strip())

    def handle_endtag(self, tag):
        self.marked = max(0, self.marked - 1)


@pytest.mark.parametrize("page", ["index.html", "match.html", "record.html", "library.html"])
def test_every_word_of_a_pages_html_is_in_the_catalogue(page):
    """i18n.js translates the HTML's marked text and its titles and labels by their English, which
    its page's script lists with N_() for the extractor: a word added to the HTML alone fails here."""
    parser = _Words()
    parser.feed((VIEWER / page).read_text())
    said = i18n.extract("pages")
    assert parser.words and not sorted(parser.words - set(said))


def test_every_message_the_scripts_say_is_extracted():
    """Babel's JavaScript extractor misses t() inside a template literal's ${…} and inside another
    t()'s arguments: every t("…") and N_("…") of the scripts is in the catalogue."""
    said = i18n.extract("pages")
    missed = []
    for script in VIEWER.glob("*.js"):
        code = re.sub(r"^\s*//.*$", "", script.read_text(), flags=re.M)           # not the comments
        for match in re.finditer(r'\b(?:t|N_)\("((?:[^"\\]|\\.)*)"', code):
            message = json.loads(f'"{match.group(1)}"')
            if message not in said:
                missed.append(f"{script.name}: {message}")
    assert not missed


def test_an_exported_page_holds_every_catalogue_and_opens_in_the_language_asked():
    html = viewer.offline_page({"title": "x", "views": ["judge"], "view": "judge"}, [], b"ygr", "x.ygr", "ja")
    assert '<html lang="ja">' in html and 'from "./i18n.js"' not in html
    words = json.loads(re.search(r'<script type="application/json" id="ygr-i18n">(.*?)</script>', html).group(1))
    assert words["language"] == "ja" and set(words["catalogues"]) == set(i18n.LANGUAGES)
    assert words["catalogues"]["zh-Hans"]["messages"]["Play"] == i18n.catalogue("zh-Hans", "pages")["Play"]


# -- in the browser -----------------------------------------------------------------------------------

#: What the page holds that is data or the server's sentences, not the page's own words.
_ENGLISH_LEFT = """([skip, data]) => {
  const english = [];
  const kept = new Set(data.kept);
  const strip = (text) => {
    for (const item of data.names) if (item) text = text.split(item).join(" ");
    return text;
  };
  const look = (text, where) => {
    const words = (strip(text).match(/[A-Za-z]{3,}/g) || []).filter((w) => !kept.has(w));
    if (words.length) english.push(`${where}: ${text.trim()}`);
  };
  const shown = (node) => !!(node.offsetWidth || node.offsetHeight || node.getClientRects().length);
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || !node.textContent.trim() || !shown(parent) || parent.closest(skip)) continue;
    look(node.textContent, parent.tagName.toLowerCase() + (parent.id ? "#" + parent.id : ""));
  }
  for (const node of document.querySelectorAll("[title], [aria-label], [placeholder]")) {
    if (node.closest(skip) || (!shown(node) && !node.closest("#board"))) continue;
    for (const name of ["title", "aria-label", "placeholder"]) {
      if (node.getAttribute(name)) look(node.getAttribute(name), `${node.tagName.toLowerCase()}[${name}]`);
    }
  }
  if (!document.title.startsWith(data.names[0] || "\\u0000")) look(document.title, "title");
  return english;
}"""

#: Text that must fit its box (a title's h1 ends in an ellipsis by design; a card's face clips the
#: card's name to three lines by design).
_OVERFLOWING = """() => [...document.querySelectorAll(
    'button:not(.card), label, legend, summary, th, td, h2, h3, h4, output, .chip, .status, .conn, .ztag, #where, #chain-state')]
  .filter((node) => node.offsetWidth && node.scrollWidth > node.clientWidth + 1)
  .map((node) => `${node.tagName.toLowerCase()}#${node.id}.${node.className}: ${node.textContent.trim().slice(0, 40)} `
    + `(${node.scrollWidth} > ${node.clientWidth})`)"""


def _check(page, skip: str, names: list[str], tmp_path, name: str, width: int) -> None:
    english = page.evaluate(_ENGLISH_LEFT, [skip, {"names": sorted(set(names), key=len, reverse=True), "kept": sorted(KEPT)}])
    assert not english, f"English left on the {name} page: {english[:12]}"
    if width == 360:
        overflowing = page.evaluate(_OVERFLOWING)
        assert not overflowing, f"text overflows its box on the {name} page: {overflowing[:12]}"
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "the page scrolls sideways"
    path = tmp_path / f"{name}-{page.evaluate('document.documentElement.lang')}-{width}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000


def _context(browser, language: str, width: int):  # noqa: F811
    context = browser.new_context(locale=language, viewport={"width": width, "height": 800 if width > 800 else 740},
                                  is_mobile=width < 800, has_touch=width < 800)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    return context, page


def _done(context, page) -> None:
    context.close()
    assert not page.errors, f"the page threw: {page.errors}"


def each_language_and_width(test):
    """The test in Simplified Chinese and Japanese at phone and laptop width; in Traditional Chinese
    and Korean at phone width (where a longer word would overflow)."""
    return pytest.mark.parametrize("language, width", [
        ("zh-Hans", 360), ("zh-Hans", 1280), ("ja", 360), ("ja", 1280), ("zh-Hant", 360), ("ko", 360)])(test)


def _ready(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]", timeout=30_000)


@each_language_and_width
def test_the_viewer_speaks_the_readers_language(service, browser, tmp_path, language, width):  # noqa: F811
    duel = record(service.url, "won-by-damage")
    context, page = _context(browser, {"zh-Hans": "zh-CN", "ja": "ja-JP", "zh-Hant": "zh-TW", "ko": "ko-KR"}[language], width)
    _ready(page, duel["links"]["judge"] + "#e45")                     # Accept-Language chooses
    assert page.evaluate("document.documentElement.lang") == language
    page.locator("#side-bottom .card").first.hover()                  # the details pane filled in
    names = page.evaluate("""() => [...window.ygoreplay.duel.cards.values()].map((c) => c.name)
        .concat(window.ygoreplay.duel.boards.at(-1).players.map((p) => p.name), [window.ygoreplay.duel.info.title])""")
    _check(page, "#log, .turnline, #details .facts", names, tmp_path, "viewer", width)
    _done(context, page)


@each_language_and_width
def test_the_match_page_speaks_the_readers_language(service, browser, tmp_path, language, width):  # noqa: F811
    match, _sample, _duels = drive(service.url, "two-one-side-decking.jsonl")
    context, page = _context(browser, "en-US", width)
    _ready(page, f"{match['links']['p0']}&lang={language}")           # ?lang= chooses
    assert page.evaluate("document.documentElement.lang") == language
    state = page.evaluate("window.ygoreplay.match.state")
    names = [c["name"] for c in state.get("cards", [])] + list(state["players"]) + [state.get("title") or "",
             state.get("event_name") or "", state.get("format") or ""]
    names += [p.get("judge", "") for p in state.get("penalties", [])] + [c.get("judge", "") for c in state.get("judge_calls", [])]
    _check(page, "#log, #policy, #penalties, #calls", names, tmp_path, "match", width)
    _done(context, page)


@each_language_and_width
def test_the_recorders_page_speaks_the_readers_language(service, browser, tmp_path, language, width):  # noqa: F811
    duel = create(service.url, title="at the table", mode="witnessed")
    context, page = _context(browser, "en-US", width)
    _ready(page, f"{duel['record']['recorder']}&lang={language}")
    _check(page, "#moves, #entries, #sheet-actions", ["at the table"], tmp_path, "record-setup", width)
    page.fill("#name0", "Yugi")
    page.fill("#name1", "Kaiba")
    page.locator("#start").click()
    expect(page.locator("body")).to_have_attribute("data-events", "5", timeout=30_000)
    expect(page.locator("body")).to_have_attribute("data-queued", "0", timeout=30_000)
    page.locator("#side-bottom .hand .card").first.click()            # a card's sheet open
    expect(page.locator("#sheet-actions")).to_have_attribute("data-at", "5", timeout=30_000)
    expect(page.locator("#moves")).to_have_attribute("data-at", "5", timeout=30_000)
    page.locator("#help-button").click()
    # the sheet's actions and the rules' moves too (their labels were English in every language)
    _check(page, "#entries, .turnline", ["at the table", "Yugi", "Kaiba"],
           tmp_path, "record", width)
    _done(context, page)


def in_chinese_and_japanese(test):
    """The test in Simplified Chinese and Japanese at phone and laptop width."""
    return pytest.mark.parametrize("language, width", [("zh-Hans", 360), ("zh-Hans", 1280), ("ja", 360), ("ja", 1280)])(test)


@in_chinese_and_japanese
def test_the_library_speaks_the_readers_language(library, browser, tmp_path, language, width):  # noqa: F811
    """A search (its form open, a later page), a search that finds nothing, a card's and a player's
    page: every word of the page's own in the reader's language; the rows' data as recorded."""
    base, stub, _duel = library
    names = ["Raigeki", "Yugi Muto", HOSTILE.replace("\u202e", "\\u202e")]      # the name as text.js shows it
    for row in stub.rows:
        names += [row["title"], *row["players"], row["event"] or "", row["format"], row["banlist"]]
    context, page = _context(browser, {"zh-Hans": "zh-CN", "ja": "ja-JP"}[language], width)
    for name, path in (("library", "/library?player=player&cursor=10"), ("library-none", "/library?player=nobody"),
                       ("library-card", "/library/card/12580477"), ("library-player", "/library/player/Yugi%20Muto")):
        _ready(page, base + path)                                       # Accept-Language chooses
        assert page.evaluate("document.documentElement.lang") == language
        expect(page.locator("#lang")).to_have_value(language)
        _check(page, ".date", names, tmp_path, name, width)
    expect(page.locator("#heading")).to_have_text(i18n.catalogue(language, "pages")["Public duels"])
    _done(context, page)


@in_chinese_and_japanese
def test_the_embed_speaks_the_readers_language(service, browser, tmp_path, language, width):  # noqa: F811
    duel = record(service.url, "won-by-damage")
    context, page = _context(browser, "en-US", width)
    _ready(page, duel["links"]["judge"].replace("/view/", "/embed/") + f"&lang={language}#e45")   # ?lang= chooses
    assert page.evaluate("document.documentElement.lang") == language
    expect(page.locator("#open-full")).to_have_text(i18n.catalogue(language, "pages")["open in ygoreplay"])
    names = page.evaluate("""() => [...window.ygoreplay.duel.cards.values()].map((c) => c.name)
        .concat(window.ygoreplay.duel.boards.at(-1).players.map((p) => p.name), [window.ygoreplay.duel.info.title])""")
    _check(page, "#log, .turnline, #details .facts", names, tmp_path, "embed", width)
    _done(context, page)


def test_the_switch_changes_the_language_and_remembers_it(service, browser):  # noqa: F811
    duel = record(service.url, "won-by-damage")
    context, page = _context(browser, "en-US", 1280)
    _ready(page, duel["links"]["judge"] + "#e20")
    expect(page.locator("#play")).to_have_attribute("aria-label", "Play")
    options = page.locator("#lang option")
    expect(options).to_have_text(list(i18n.LANGUAGES.values()))      # each language in its own name
    page.locator("#lang").select_option("ja")
    page.wait_for_selector("html[lang=ja] body[data-ready=true]", timeout=30_000)
    expect(page.locator("#play")).to_have_attribute("aria-label", i18n.catalogue("ja", "pages")["Play"])
    expect(page.locator("#where")).to_contain_text("#20")            # the position is kept
    _ready(page, duel["links"]["spectator"])                          # another page of this browser: remembered
    assert page.evaluate("document.documentElement.lang") == "ja"
    expect(page.locator("#lang")).to_have_value("ja")
    _ready(page, duel["links"]["spectator"] + "&lang=ko")             # the address's ?lang= comes first
    assert page.evaluate("document.documentElement.lang") == "ko"
    _done(context, page)


def test_the_rule_pop_up_shows_the_summary_and_the_seed_text(service, browser):  # noqa: F811
    duel = record(service.url, "won-by-damage")
    context, page = _context(browser, "ja-JP", 1280)
    asked = []

    def rules(route):
        asked.append(route.request.url)
        if "SUM-04" in route.request.url:
            route.fulfill(json={"id": "SUM-04", "summary": "通常召喚は1ターンに1度", "seed_quotes": [
                {"file": "seeds/summon.md", "text": "每回合只能进行1次通常召唤"}]})
        else:
            route.fulfill(status=404, json={"error": "no rule"})
    page.route(re.compile(r".*/rules/.*"), rules)
    _ready(page, duel["links"]["judge"])
    page.evaluate("window.ygoreplay.viewer.rule('SUM-04', 'a second Normal Summon')")
    expect(page.locator("#rule-summary")).to_have_text("通常召喚は1ターンに1度")
    expect(page.locator("#rule-quotes blockquote")).to_have_text("每回合只能进行1次通常召唤")
    assert page.locator("#rule-quotes blockquote").get_attribute("lang") == "zh-Hans"
    assert asked and "lang=ja" in asked[0]
    page.keyboard.press("Escape")
    expect(page.locator("#rule")).to_be_hidden()
    page.evaluate("window.ygoreplay.viewer.rule('XYZ-01', 'the flag says why')")   # no such rule: the flag's words
    expect(page.locator("#rule-summary")).to_have_text("the flag says why")
    expect(page.locator("#rule-seed")).to_be_hidden()
    context.close()


def test_the_language_never_changes_what_is_recorded(service, browser):  # noqa: F811
    """The same taps on the recorder's page in English and in Japanese store the same events."""
    events = []
    for language in ("en", "ja"):
        duel = create(service.url, title="same entries", mode="witnessed")
        table = Table(browser, f"{duel['record']['recorder']}&lang={language}")
        assert table.page.evaluate("document.documentElement.lang") == language
        table.page.fill("#name0", "Yugi")
        table.page.fill("#name1", "Kaiba")
        table.tap("#start")
        table.settled(5)
        for n, move in enumerate(('[data-move="next-turn"]', '[data-move="phase-draw"]', '[data-move="draw-card"]',
                                  '[data-move="phase-standby"]', '[data-move="phase-main1"]'), start=6):
            table.tap(move)
            table.settled(n)
        table.card(table.page.locator("#side-bottom .hand .card").first.get_attribute("data-card"))
        expect(table.page.locator("#sheet-actions")).to_have_attribute("data-at", "10")
        table.tap("#sheet-actions .action button.big")                 # the rules' first action for it
        table.settled(11)
        table.keypad(0, 500, "cost")
        table.settled(12)
        table.tap("#undo")                                             # a correction: its reason is the record's
        table.settled(13)
        table.close()
        events.append([{k: v for k, v in e.items() if k != "time"} for e in stored(service.url, duel)])
    assert events[0] == events[1]


def test_an_exported_page_opens_in_its_language_and_switches_with_no_network(browser, tmp_path):  # noqa: F811
    from test_service import events_of
    from ygoreplay.application import offline_page, record_file
    from ygoreplay.cards import CardDB
    from ygoreplay.events import from_dict
    from ygoreplay.signing import OrganiserKey
    replay = record_file([from_dict(e) for e in events_of("won-by-damage.jsonl")], CardDB.classic(), "spectator", "offline")
    with i18n.using("ja"):                                         # export --html in Japanese
        path = tmp_path / "duel.html"
        path.write_text(offline_page(replay, OrganiserKey.generate(), "duel.ygr"))
    context, page = _context(browser, "en-US", 1280)
    asked = []
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:")
                  else (asked.append(route.request.url), route.abort()))
    _ready(page, path.as_uri())
    assert page.evaluate("document.documentElement.lang") == "ja"
    expect(page.locator("#play")).to_have_attribute("aria-label", i18n.catalogue("ja", "pages")["Play"])
    page.locator("#lang").select_option("zh-Hans")
    page.wait_for_selector("html[lang=zh-Hans] body[data-ready=true]", timeout=30_000)
    expect(page.locator("#play")).to_have_attribute("aria-label", i18n.catalogue("zh-Hans", "pages")["Play"])
    assert not asked, "the page asked the network"
    _done(context, page)
