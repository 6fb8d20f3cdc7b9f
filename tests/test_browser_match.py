"""The match page in a real browser (Debian's chromium driven by Playwright, as tests/test_browser.py):
a 2-1 with side decking as a player and as a spectator (score, policy, each duel with its
result and who went first, the siding as cards or counts, the result and points), each game
linking to its duel's viewer with the same token; a match followed live; names that are markup
stay text; the page loads no inline script.
"""
from __future__ import annotations

import re
from collections import Counter
from datetime import datetime
from zoneinfo import ZoneInfo

import httpx
import pytest

from test_browser import CHROMIUM, browser, page, shot  # noqa: F401  (fixtures)
from test_match_service import MATCHES, create, drive, lines, post
from test_service import Server, auth
from ygoreplay.cards import CardDB

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect


#: The Side Decks' cards of the sample (classic card names), which no other view may see.
YUGIS_SIDE = ["Kuriboh", "Marshmallon", "Man-Eater Bug", "Yata-Garasu"]
KAIBAS_SIDE = ["Spirit Reaper", "Sinister Serpent", "Magician of Faith", "Shining Angel", "Cyber Dragon"]


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    srv = Server(str(tmp_path_factory.mktemp("match-page") / "service.sqlite"))
    yield srv
    srv.stop()


def opened(page, url: str):
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]", timeout=15_000)
    return page


def test_a_player_sees_the_match_and_opens_its_duels_with_the_same_token(service, page):
    match, sample, duels = drive(service.url, "two-one-side-decking.jsonl")
    opened(page, match["links"]["p0"])
    expect(page.locator("#score")).to_have_text("2 \u2013 1")
    expect(page.locator("#player0")).to_have_text("Yugi")
    expect(page.locator("#player0")).to_have_class(re.compile("won"))
    expect(page.locator("#policy")).to_contain_text("ocg-2005")
    expect(page.locator("#policy")).to_contain_text("2005-11-01")
    expect(page.locator("#result")).to_contain_text("Yugi wins by games, duels 2-1, points 3 / 0")
    games = page.locator("#games > li")
    expect(games).to_have_count(3)
    expect(games.nth(0)).to_contain_text("won by Kaiba (LP)")
    expect(games.nth(0)).to_contain_text("Yugi went first, chosen by Yugi")
    expect(games.nth(1)).to_contain_text("won by Yugi")
    expect(games.nth(2)).to_contain_text("chosen by Kaiba")
    # siding before duel 2: Yugi's own cards by name, Kaiba's as a count only
    before_two = games.nth(1).locator(".swap")
    expect(before_two).to_have_count(2)
    texts = before_two.all_text_contents()
    mine = next(t for t in texts if t.startswith("before it: Yugi"))
    theirs = next(t for t in texts if t.startswith("before it: Kaiba"))
    assert ": out " in mine and "Kuriboh" in mine and "2 Main" in mine
    assert ": out " not in theirs and "1 Main" in theirs
    html = page.content()
    assert not any(name in html for name in KAIBAS_SIDE), "the opponent's Side Deck stays hidden"
    expect(page.locator(".deck[data-player='1']")).to_contain_text("the cards are hidden from this view")
    expect(page.locator(".deck[data-player='0'] ul[data-part='side'] li", has_text="Kuriboh")).to_have_text("1\u00d7 Kuriboh")
    shot(page, "match-p0")
    link = games.nth(0).locator("a")
    href = link.get_attribute("href")
    assert href == f"/view/{duels[1]['id']}?token={match['tokens']['p0']}"
    link.click()
    page.wait_for_selector("body[data-ready=true]", timeout=15_000)
    expect(page.locator("#status")).to_contain_text("p0 view")


def test_a_spectator_sees_counts_and_no_card_of_either_deck(service, page):
    match, sample, _duels = drive(service.url, "two-one-side-decking.jsonl")
    opened(page, match["links"]["spectator"])
    for p in (0, 1):
        expect(page.locator(f".deck[data-player='{p}']")).to_contain_text("Main 40 \u00b7 Extra 2 \u00b7 Side 5")
        expect(page.locator(f".deck[data-player='{p}']")).to_contain_text("hidden from this view")
    html = page.content()
    assert not any(name in html for name in YUGIS_SIDE + KAIBAS_SIDE)
    assert all(": out " not in t for t in page.locator(".swap").all_text_contents())


def test_the_page_follows_the_match_live(service, page):
    sample = lines(MATCHES / "two-nil.jsonl")
    match = create(service.url, sample)
    m, t = match["id"], match["tokens"]
    opened(page, match["links"]["spectator"])
    expect(page.locator("#score")).to_have_text("0 \u2013 0")
    expect(page.locator("#games > li")).to_have_count(0)
    post(service.url, f"/matches/{m}/games", t["recorder"], {"first_player": 0, "chosen_by": 0}, 201)
    expect(page.locator("#games > li")).to_have_count(1)
    expect(page.locator("#games > li").nth(0)).to_contain_text("being played")
    post(service.url, f"/matches/{m}/time", t["recorder"], {"turn": 4, "phase": "battle", "turn_player": 1})
    expect(page.locator("#time")).to_contain_text("in duel 1, turn 4, battle")
    post(service.url, f"/matches/{m}/games/1/end", t["recorder"], {"winner": 0, "how": "lp"})
    expect(page.locator("#score")).to_have_text("1 \u2013 0")
    post(service.url, f"/matches/{m}/concede", t["p1"], {"player": 1})
    post(service.url, f"/matches/{m}/result", t["recorder"])
    expect(page.locator("#result")).to_contain_text("Yugi wins by concession")


def test_names_that_are_markup_stay_text_and_no_inline_script_runs(service, page):
    evil = '<img src=x onerror="window.pwned=1">'
    sample = lines(MATCHES / "two-nil.jsonl")
    sample[0] = {**sample[0], "players": [evil, "</script><script>window.pwned=2</script>"]}
    match = create(service.url, sample, title=evil)
    m, t = match["id"], match["tokens"]
    post(service.url, f"/matches/{m}/games", t["recorder"], {"first_player": 0, "chosen_by": 0}, 201)
    post(service.url, f"/matches/{m}/penalties", t["judge"],
         {"player": 1, "infraction": "slow_play", "penalty": "warning", "judge": evil, "note": evil})
    response = httpx.get(f"{service.url}/match/{m}")
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    assert response.headers["cache-control"] == "no-cache" and "<script>" not in response.text
    opened(page, match["links"]["judge"])
    expect(page.locator("#player0")).to_have_text(evil)
    expect(page.locator("#title")).to_have_text(evil)
    expect(page.locator("#penalties")).to_contain_text(evil)
    assert page.locator("main img").count() == 0
    assert page.evaluate("window.pwned") is None
    assert httpx.get(f"{service.url}/matches/{m}/state", headers=auth(t["judge"])).json()["players"][0] == evil


def test_bidirectional_and_zero_width_characters_in_names_are_shown(service, page):
    sample = lines(MATCHES / "two-nil.jsonl")
    sample[0] = {**sample[0], "players": ["Yu\u200bgi", "Kaiba\u202eevil"]}
    match = create(service.url, sample, title="Final \u202eevil")
    opened(page, match["links"]["judge"])
    expect(page.locator("#player0")).to_have_text("Yu\\u200bgi")
    expect(page.locator("#player1")).to_have_text("Kaiba\\u202eevil")
    expect(page.locator("#title")).to_have_text("Final \\u202eevil")


def test_the_page_shows_the_event_the_decks_by_count_and_when_each_event_happened(service, browser):
    """Issue 23, as a new user met it: the event name, round and format given at creation; a
    player's own deck as "3× Celtic Guardian" under Main, Extra and Side; each log line's time as
    stored, in the reader's locale and time zone (here German, in Tokyo)."""
    match, sample, _duels = drive(service.url, "two-one-side-decking.jsonl")
    start = sample[0]
    context = browser.new_context(locale="de-DE", timezone_id="Asia/Tokyo", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    opened(page, match["links"]["p0"])
    expect(page.locator("#event")).to_have_text(f"{start['event_name']} \u00b7 Round {start['round']} \u00b7 {start['format']}")
    classic = CardDB.classic()
    state = httpx.get(f"{service.url}/matches/{match['id']}/state", headers=auth(match["tokens"]["p0"])).json()
    decklist = state["decks"][0]                   # as the match's siding left it
    for part, label in (("main", "Main Deck"), ("extra", "Extra Deck"), ("side", "Side Deck")):
        want = [f"{n}\u00d7 {classic[code].name}" for code, n in Counter(decklist[part]).items()]
        mine = page.locator(f".deck[data-player='0'] ul[data-part='{part}'] li")
        expect(mine).to_have_text(want)
        expect(page.locator(".deck[data-player='0'] h4", has_text=label)).to_have_text(f"{label} ({len(decklist[part])})")
    assert any(t.startswith("3\u00d7 ") for t in page.locator(".deck[data-player='0'] ul[data-part='main'] li").all_text_contents())
    expect(page.locator(".deck[data-player='1'] ul")).to_have_count(0)          # the opponent's stays counts
    stored = httpx.get(f"{service.url}/matches/{match['id']}", headers=auth(match["tokens"]["p0"])).json()["events"]
    stamps = page.locator("#log li time")
    expect(stamps).to_have_count(len(stored))
    for i in (0, len(stored) // 2, len(stored) - 1):
        when = datetime.fromisoformat(stored[i]["time"].replace("Z", "+00:00"))
        stamp = stamps.nth(i)
        assert datetime.fromisoformat(stamp.get_attribute("datetime").replace("Z", "+00:00")) == when
        local = when.astimezone(ZoneInfo("Asia/Tokyo"))
        expect(stamp).to_contain_text(local.strftime("%H:%M:%S"))              # de-DE: 24-hour clock
        expect(stamp).not_to_contain_text("vor")                               # a finished match: no "ago"
    context.close()


def test_a_match_being_played_says_how_long_ago_each_event_was(service, page):
    sample = lines(MATCHES / "two-nil.jsonl")
    match = create(service.url, sample)
    opened(page, match["links"]["spectator"])
    stamps = page.locator("#log li time")
    expect(stamps.first).to_have_text(re.compile(r"\d{1,2}:\d\d:\d\d\s?(AM|PM)? \((now|\d+ seconds? ago|1 minute ago)\)$"))
    before = stamps.count()
    post(service.url, f"/matches/{match['id']}/games", match["tokens"]["recorder"], {"first_player": 0, "chosen_by": 0}, 201)
    expect(stamps).to_have_count(before + 1)
    expect(page.locator("#log li time").last).to_have_text(re.compile(r"\((now|\d+ seconds? ago)\)$"))


def test_the_match_page_fits_a_phone(service, browser, tmp_path):
    match, _sample, _duels = drive(service.url, "two-one-side-decking.jsonl")
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    page = context.new_page()
    opened(page, match["links"]["p0"])
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    page.screenshot(path=str(tmp_path / "match-360.png"), full_page=True)
    context.close()
