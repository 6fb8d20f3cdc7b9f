"""The web viewer in a real browser: Debian's chromium driven by Playwright (never `playwright
install`; `.ci/run` installs chromium with apt). A duel recorded through the service and one
recorded live while the page is open; stepping, scrubbing, turns, permalinks, views, piles, the
branch tree; what a spectator's page holds (no hidden card in any response or in the DOM); the
exported page from file:// with every request refused; phone width. Screenshots are saved in
`$YGOREPLAY_SCREENSHOTS` (default `.screenshots/` at the repository root).
"""
from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from conftest import CHROMIUM  # noqa: F401  (the browser files import it from here)
from test_service import REPLAYS, Server, auth, create, events_of

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from test_views import never_public
from ygoreplay.cards import CardDB
from ygoreplay.replay_file import loads
from ygoreplay.signing import PublicKey

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect

ROOT = Path(__file__).resolve().parent.parent
SHOTS = Path(os.environ.get("YGOREPLAY_SCREENSHOTS", ROOT / ".screenshots"))
CLASSIC = CardDB.classic()


@pytest.fixture(scope="module")
def browser(chromium_endpoint):
    """The worker's chromium (``conftest.chromium_endpoint``), driven by this file's Playwright;
    closing it closes the contexts this file made."""
    with playwright_api.sync_playwright() as p:
        b = p.chromium.connect_over_cdp(chromium_endpoint)
        yield b
        b.close()


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    srv = Server(str(tmp_path_factory.mktemp("viewer") / "duels.sqlite"))
    yield srv
    srv.stop()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    p = context.new_page()
    p.errors = []
    p.on("pageerror", lambda error: p.errors.append(str(error)))
    yield p
    context.close()
    assert not p.errors, f"the page threw: {p.errors}"


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def record(base: str, name: str, **access) -> dict:
    duel = create(base, title=name, **access)
    events = events_of(f"{name}.jsonl")
    r = httpx.post(f"{base}/duels/{duel['id']}/events", json=events, headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    duel["events"] = events
    return duel


def opened(page, url: str):
    page.goto(url)
    page.wait_for_selector("body[data-ready=true]", timeout=15_000)
    return page


def where(page) -> str:
    return page.locator("#where").text_content()


def at(page, i: int) -> None:
    expect(page.locator("#where")).to_have_text(re.compile(rf"^event #{i} of "))


def boards_of(page) -> list[dict]:
    return page.evaluate("JSON.parse(JSON.stringify(window.ygoreplay.duel.boards))")


# -- a recorded duel ---------------------------------------------------------------------------------

def test_every_board_the_page_makes_is_the_one_the_service_serves(service, page):
    """The page rebuilds each position from whole boards and patches; every one of them must be
    exactly the board /state gives for that position, for the judge and for a spectator."""
    duel = record(service.url, "chain-counter-traps")
    for role in ("judge", "spectator"):
        opened(page, duel["links"][role])
        boards = boards_of(page)
        assert len(boards) == len(duel["events"])
        for i, made in enumerate(boards):
            served = httpx.get(f"{service.url}/duels/{duel['id']}/state?at={i}", headers=auth(duel["tokens"][role]))
            assert made == served.json()["board"], f"{role}: the board after event {i}"


def test_step_scrub_jump_to_a_turn_and_follow_a_permalink(service, page):
    duel = record(service.url, "won-by-damage")
    last = len(duel["events"]) - 1
    opened(page, duel["links"]["judge"])
    expect(page.locator("#title")).to_have_text("won-by-damage")
    at(page, 0)                                                  # a finished duel opens at its start
    page.keyboard.press("End")
    at(page, last)
    bottom, top = page.locator("#side-bottom .lp"), page.locator("#side-top .lp")
    expect(top).to_have_text("0")                                # Kaiba lost by damage
    expect(page.locator("#middle .result")).to_contain_text("Yugi wins")
    page.keyboard.press("Home")
    at(page, 0)
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    at(page, 3)
    page.keyboard.press("ArrowLeft")
    at(page, 2)
    page.keyboard.press("Shift+ArrowRight")                      # the start of turn 1
    expect(page.locator("#middle .turnline")).to_contain_text("Turn 1")
    page.keyboard.press("Shift+ArrowRight")
    expect(page.locator("#middle .turnline")).to_contain_text("Turn 2")
    turn2 = int(where(page).split()[1].lstrip("#"))
    assert duel["events"][turn2]["kind"] == "turn_started" and duel["events"][turn2]["turn"] == 2
    page.keyboard.press("Shift+ArrowLeft")
    expect(page.locator("#middle .turnline")).to_contain_text("Turn 1")
    page.locator("#slider").evaluate("(s) => { s.value = 60; s.dispatchEvent(new Event('input')); }")
    at(page, 60)
    expect(page.locator("#l60")).to_have_attribute("aria-current", "step")
    page.locator("#l40 a").click()                               # a log line jumps there
    at(page, 40)
    assert page.evaluate("location.hash") == "#e40"
    served = httpx.get(f"{service.url}/duels/{duel['id']}/state?at=40", headers=auth(duel["tokens"]["judge"])).json()
    expect(bottom).to_have_text(str(served["board"]["players"][0]["lp"]))
    expect(top).to_have_text(str(served["board"]["players"][1]["lp"]))
    names = [c["name"] for c in served["board"]["players"][0]["hand"]]
    hand = page.locator("#side-bottom .hand .card .cname")
    expect(hand).to_have_text(names)                             # the judge sees Yugi's hand by name
    shot(page, "judge-1280x800")
    opened(page, duel["links"]["spectator"] + "#e57")            # a permalink
    at(page, 57)
    expect(page.locator("#l57")).to_have_attribute("aria-current", "step")
    page.evaluate("location.hash = '#e12'")                      # and another, in the same page
    at(page, 12)
    for huge in ("#e4294967301", "#e2147483648", "#e" + "9" * 400):   # past the end: the last event
        page.evaluate(f"location.hash = '{huge}'")
        at(page, last)


def test_the_log_groups_by_turn_searches_and_marks_lp_changes(service, page):
    duel = record(service.url, "won-by-damage")
    opened(page, duel["links"]["spectator"])
    turns = page.locator("#log li.turn")
    assert turns.count() == sum(1 for e in duel["events"] if e["kind"] == "turn_started")
    expect(turns.first).to_contain_text("Turn 1")
    assert page.locator("#log .lpchange").count() >= 1
    page.locator("#search").fill("Kaiba")
    shown = page.locator("#log li:not([hidden])")
    assert shown.count() > 0
    for text in shown.all_text_contents():
        assert "kaiba" in text.lower()
    page.locator("#search").fill("")
    assert page.locator("#log li:not([hidden])").count() == len(duel["events"])


def test_a_graveyard_opens_into_its_list_and_a_card_shows_its_facts(service, page):
    duel = record(service.url, "chain-counter-traps")
    events = duel["events"]
    resolved = max(i for i, e in enumerate(events) if e["kind"] == "chain_ended")
    opened(page, duel["links"]["spectator"] + f"#e{resolved}")
    gy = httpx.get(f"{service.url}/duels/{duel['id']}/state?at={resolved}",
                   headers=auth(duel["tokens"]["spectator"])).json()["board"]["players"][0]["gy"]
    assert gy, "cards reached the Graveyard"
    summary = page.locator("#side-bottom .zone.pile summary", has_text="GY")
    expect(summary).to_have_text(f"GY {len(gy)}")
    summary.click()
    entries = page.locator("#side-bottom details[open] li .cname")
    expect(entries).to_have_text([c["name"] for c in gy])
    entries.first.hover()
    expect(page.locator("#details h2")).to_have_text(gy[0]["name"])
    facts = CLASSIC[gy[0]["code"]].describe()
    expect(page.locator("#details .facts")).to_have_text(facts)
    shot(page, "graveyard-open")


def test_keyboard_only(service, page):
    duel = record(service.url, "won-by-damage")
    opened(page, duel["links"]["spectator"] + "#e30")
    page.locator("#side-bottom .zone.pile summary", has_text="GY").focus()
    page.keyboard.press("Enter")                                 # a pile opens from the keyboard
    expect(page.locator("#side-bottom details[open]")).to_have_count(1)
    page.locator("#slider").focus()
    page.keyboard.press("ArrowRight")
    at(page, 31)
    page.keyboard.press("Space")
    expect(page.locator("#play")).to_have_attribute("aria-label", "Pause")
    page.keyboard.press("Space")
    expect(page.locator("#play")).to_have_attribute("aria-label", "Play")
    page.locator("#first").focus()
    page.keyboard.press("Space")                                 # Space presses the focused button
    at(page, 0)
    expect(page.locator("#play")).to_have_attribute("aria-label", "Play")
    page.locator("#speed").select_option("60")
    page.locator("#play").press("Enter")                         # a button, from the keyboard
    at(page, len(duel["events"]) - 1)                            # plays to the end, then stops
    expect(page.locator("#play")).to_have_attribute("aria-label", "Play")


# -- what a new user met (issue 23) ------------------------------------------------------------------

def until(page, script: str, arg=None, timeout: int = 15_000) -> None:
    """Wait until ``script`` is true in the page. Playwright's own wait_for_function polls with
    code the pages' Content Security Policy (no eval) refuses once the first check fails; a
    plain evaluate is not refused, so poll with it."""
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(script, arg):
        if time.monotonic() > deadline:
            raise AssertionError(f"not true after {timeout} ms: {script}")
        page.wait_for_timeout(50)


def line_in_view(page, i: int) -> None:
    """The log's line #i is the current one, highlighted and wholly inside the log's pane."""
    until(page, """(i) => {
        const line = document.getElementById('l' + i), pane = document.getElementById('log');
        if (!line || !line.classList.contains('current')) return false;
        const a = line.getBoundingClientRect(), b = pane.getBoundingClientRect();
        return a.height > 0 && a.top >= b.top - 1 && a.bottom <= b.bottom + 1; }""", i)
    expect(page.locator(f"#l{i} a")).to_have_css("background-color", "rgba(108, 182, 255, 0.2)")


def test_the_log_follows_the_event_shown_and_counts_every_event(service, page):
    """At #e57 the log showed #31-#49 and the count read "of 87" for 88 events: the current line
    is scrolled into view and marked when opening a link, stepping, seeking and jumping, and
    "event #N of TOTAL" numbers events from #0 as the log does, out of all of them."""
    duel = record(service.url, "won-by-damage")
    total = len(duel["events"])
    opened(page, duel["links"]["spectator"] + "#e57")
    expect(page.locator("#where")).to_have_text(re.compile(rf"^event #57 of {total} "))
    line_in_view(page, 57)
    page.keyboard.press("End")
    expect(page.locator("#where")).to_have_text(re.compile(rf"^event #{total - 1} of {total} "))
    line_in_view(page, total - 1)
    page.keyboard.press("Home")
    line_in_view(page, 0)
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    line_in_view(page, 3)
    page.locator("#slider").evaluate("(s) => { s.value = 70; s.dispatchEvent(new Event('input')); }")
    line_in_view(page, 70)
    page.evaluate("location.hash = '#e25'")
    line_in_view(page, 25)
    page.keyboard.press("Shift+ArrowRight")                     # the next turn's first line
    at = int(where(page).split()[1].lstrip("#"))
    assert duel["events"][at]["kind"] == "turn_started"
    line_in_view(page, at)


def test_a_live_duel_keeps_its_last_line_in_view(service, page):
    base = service.url
    duel = create(base, title="follow the log", visibility="unlisted")
    events = events_of("won-by-damage.jsonl")
    recorder = auth(duel["tokens"]["recorder"])
    assert httpx.post(f"{base}/duels/{duel['id']}/events", json=events[:5], headers=recorder).status_code == 200
    opened(page, duel["links"]["judge"])
    line_in_view(page, 4)
    for start in range(5, 80, 15):
        assert httpx.post(f"{base}/duels/{duel['id']}/events", json=events[start:start + 15],
                          headers=recorder).status_code == 200
        expect(page.locator("#where")).to_have_text(re.compile(rf"^event #{start + 14} of {start + 15} "))
        line_in_view(page, start + 14)


def test_every_zone_carries_the_tag_the_log_names_it_by(service, page):
    """The log says "Vorse Raider [M2]": the board labels every zone the same way (M0..M4, S0..S4,
    FZ, the piles GY, banished, Extra Deck, Deck, hand), and the card the log names in [M2] is
    the one in the zone tagged M2."""
    from ygoreplay.sentences import ZONE_NAMES
    duel = record(service.url, "won-by-damage")
    opened(page, duel["links"]["judge"])
    tags = ["M0", "M1", "M2", "M3", "M4", "S0", "S1", "S2", "S3", "S4", "FZ", "GY", "banished", "Extra Deck",
            "Deck", "hand"]
    assert {"GY", "Extra Deck", "Deck", "hand"} <= set(ZONE_NAMES.values())      # the log's own words
    for side in ("#side-bottom", "#side-top"):
        assert sorted(page.locator(f"{side} .ztag").all_text_contents()) == sorted(tags), side
        for tag in tags:
            assert page.locator(f"{side} .ztag", has_text=re.compile(rf"^{tag}$")).is_visible(), (side, tag)
    named = 0
    for i, frame in enumerate(page.evaluate("window.ygoreplay.duel.frames.map((f) => f.line)")):
        board = httpx.get(f"{service.url}/duels/{duel['id']}/state?at={i}",
                          headers=auth(duel["tokens"]["judge"])).json()["board"] if "[M" in frame else None
        if board is None:
            continue
        for p, side in ((0, "#side-bottom"), (1, "#side-top")):
            for z, card in enumerate(board["players"][p]["mzone"][:5]):
                if card and not card.get("hidden") and f"{card['name']} [M{z}]" in frame:
                    page.evaluate(f"window.ygoreplay.viewer.show({i})")
                    zone = page.locator(f"{side} .zone.m").filter(has=page.locator(".ztag", has_text=f"M{z}"))
                    expect(zone.locator(".cname")).to_have_text(card["name"])
                    named += 1
    assert named >= 3, "the sample names monsters by their zones"
    shot(page, "zone-tags")


def test_a_player_at_0_lp_is_marked_lost_before_any_duel_ended(service, page):
    """A record that stops at the lethal damage (no duel_ended yet): the board says who lost."""
    events = events_of("won-by-damage.jsonl")
    assert events[-1]["kind"] == "duel_ended"
    duel = create(service.url, title="no end recorded", visibility="unlisted")
    assert httpx.post(f"{service.url}/duels/{duel['id']}/events", json=events[:-1],
                      headers=auth(duel["tokens"]["recorder"])).status_code == 200
    state = httpx.get(f"{service.url}/duels/{duel['id']}/state", headers=auth(duel["tokens"]["spectator"])).json()
    assert state["board"]["players"][1]["lost"] == "lp" and state["board"]["players"][0]["lost"] is None
    assert not state["board"]["ended"]
    opened(page, duel["links"]["spectator"])
    at(page, len(events) - 2)
    expect(page.locator("#side-top .lp")).to_have_text("0")
    expect(page.locator("#side-top .who")).to_have_class(re.compile("has-lost"))
    expect(page.locator("#side-top .who .lost")).to_have_text("lost (LP 0)")
    expect(page.locator("#side-bottom .who .lost")).to_be_hidden()
    expect(page.locator("#middle .result")).to_have_text("Yugi wins: Kaiba has lost (LP 0)")
    page.keyboard.press("ArrowLeft")                             # before the damage: nobody has lost
    expect(page.locator("#side-top .who .lost")).to_be_hidden()
    expect(page.locator("#middle .result")).to_have_text("")


def test_a_card_the_record_does_not_know_is_drawn_as_an_unknown_card(service, page):
    """A recorder saw a monster Normal Summoned face-up and could not read it (passcode 0, no
    ``shows``): every view draws it face-up as "unknown card", not as a back, and nothing breaks."""
    zeros = {"main": [0] * 40}
    events = [{"kind": "duel_started", "first_player": 0, "players": ["Ann", "Bo"]},
              {"kind": "deck_registered", "player": 0, **zeros}, {"kind": "deck_registered", "player": 1, **zeros},
              {"kind": "cards_drawn", "player": 0, "count": 5}, {"kind": "cards_drawn", "player": 1, "count": 5},
              {"kind": "turn_started", "player": 0, "turn": 1}, {"kind": "phase_entered", "phase": "draw"},
              {"kind": "phase_entered", "phase": "standby"}, {"kind": "phase_entered", "phase": "main1"},
              {"kind": "normal_summoned", "card": "p0.m0", "zone": 2},
              {"kind": "spell_trap_set", "card": "p0.m1", "zone": 1}]
    duel = create(service.url, title="unknown cards", visibility="unlisted")
    r = httpx.post(f"{service.url}/duels/{duel['id']}/events", json=events, headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    for role in ("judge", "spectator"):
        opened(page, duel["links"][role])
        at(page, len(events) - 1)
        summoned = page.locator("#side-bottom .zone.m").nth(2).locator(".card")
        expect(summoned).to_have_class(re.compile(r"\bunknown\b"))
        expect(summoned.locator(".cname")).to_have_text("unknown card")
        expect(summoned).to_have_attribute("aria-label", "an unknown card, face-up Attack Position")
        set_card = page.locator("#side-bottom .zone.s").nth(1).locator(".card")
        expect(set_card).to_have_class(re.compile(r"\bback\b"))    # a Set card stays a back
        summoned.hover()
        expect(page.locator("#details h2")).to_have_text("An unknown card")
        expect(page.locator("#l9")).to_contain_text("Normal Summons a card in Ann's hand to M2")
    shot(page, "unknown-card")


@pytest.mark.parametrize("width,height", [(360, 740), (1280, 800)])
def test_the_viewer_fits_a_phone_and_a_laptop(service, browser, tmp_path, width, height):
    """No horizontal scroll of the page at 360 px (the board scales), nor at 1280 px; screenshots
    of both under a temporary folder."""
    duel = record(service.url, "won-by-damage")
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=width < 800,
                                  has_touch=width < 800)
    page = context.new_page()
    opened(page, duel["links"]["judge"] + "#e45")
    at(page, 45)
    fits = "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    assert page.evaluate(fits), page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    outside = page.evaluate("""(width) => [...document.querySelectorAll('#board .zone, #board .who, #board .hand')]
        .map((node) => node.getBoundingClientRect()).filter((r) => r.left < 0 || r.right > width).length""", width)
    assert outside == 0, f"{outside} zone(s) of the board run off the screen"
    page.evaluate("document.querySelectorAll('details.pilelist').forEach((d) => { d.open = true; })")
    lists = page.evaluate("[...document.querySelectorAll('details[open] ol')].map((n) => n.getBoundingClientRect())"
                          ".map((r) => [r.left, r.right])")
    assert len(lists) == 6 and all(0 <= left and right <= width for left, right in lists), lists   # piles open on screen
    assert page.evaluate(fits)
    page.evaluate("document.querySelectorAll('details.pilelist').forEach((d) => { d.open = false; })")
    for selector in ("#side-bottom .lp", "#side-top .lp", "#slider", "#log", "#next"):
        assert page.locator(selector).is_visible(), selector
    page.locator("#next").click()
    at(page, 46)
    assert page.evaluate(fits)
    path = tmp_path / f"viewer-{width}x{height}.png"
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000
    context.close()


# -- views ---------------------------------------------------------------------------------------------

def test_the_view_switch_offers_only_what_the_token_allows(service, page):
    duel = record(service.url, "won-by-damage", release="never")     # ended, and nothing hidden released
    opened(page, duel["links"]["judge"] + "#e20")
    options = page.locator("#view option")
    expect(options).to_have_text(["judge", "p0", "p1", "spectator"])
    page.locator("#view").select_option("p1")
    page.wait_for_url(re.compile(r"view=p1"))
    page.wait_for_selector("body[data-ready=true]")
    at(page, 20)                                                 # the position is kept
    expect(page.locator("#status")).to_contain_text("p1 view")
    # p1 sits at the bottom and sees its own hand; player 0's hand is backs
    expect(page.locator("#side-bottom .who .name")).to_have_text("Kaiba")
    assert page.locator("#side-bottom .hand .card.back").count() == 0
    top = page.locator("#side-top .hand .card")
    assert top.count() > 0 and page.locator("#side-top .hand .card.back").count() == top.count()
    opened(page, duel["links"]["p0"])
    expect(options).to_have_text(["p0", "spectator"])
    opened(page, duel["links"]["spectator"])
    expect(options).to_have_text(["spectator"])
    assert page.locator("#view").is_disabled()
    page.goto(duel["links"]["spectator"] + "&view=judge")        # asking for more by hand
    expect(page.locator("#error")).to_contain_text("may not see the 'judge' view")
    page.goto(f"{service.url}/view/{duel['id']}?token=not-a-token")
    expect(page.locator("#error")).to_contain_text(f"no duel '{duel['id']}'")
    released = record(service.url, "won-by-damage")                  # a casual duel releases at its end
    opened(page, released["links"]["spectator"])
    expect(options).to_have_text(["judge", "spectator"])


def test_the_viewer_says_when_a_records_origin_is_unverified(service, page):
    """A file exported from a record imported with --unsigned is signed by the organiser's key,
    and its signed header says where it came from: the viewer says so too."""
    import dataclasses
    from test_service import ADMIN
    from ygoreplay.replay_file import dumps
    from ygoreplay.signing import OrganiserKey
    duel = record(service.url, "won-by-damage")
    judge = loads(httpx.get(f"{service.url}/duels/{duel['id']}/replay.ygr", headers=auth(duel["tokens"]["judge"])).content)
    laundered = dataclasses.replace(judge, source={**judge.source, "unverified": True})
    r = httpx.post(f"{service.url}/uploads", content=dumps(laundered, OrganiserKey.load()), headers=auth(ADMIN))
    assert r.status_code == 201, r.text
    opened(page, r.json()["links"]["spectator"])
    expect(page.locator("#status")).to_contain_text("origin unverified")
    opened(page, duel["links"]["spectator"])
    expect(page.locator("#status")).not_to_contain_text("origin")


@pytest.mark.parametrize("view", ["spectator", "p0"])
def test_a_viewer_page_never_receives_a_card_it_may_not_see(service, browser, view):
    """Every response the page gets, and its DOM at many positions, searched for the passcodes
    and names of the cards this view never sees (the set-up duel hides cards from each player)."""
    from test_views import SET_UP, events_of as views_events_of
    events = [e.to_dict() for e in views_events_of(SET_UP)]
    duel = create(service.url, title="hidden cards")
    r = httpx.post(f"{service.url}/duels/{duel['id']}/events", json=events, headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    hidden = never_public(SET_UP, view)
    public_names = {c["name"] for c in httpx.get(f"{service.url}/duels/{duel['id']}/cards",
                                                 headers=auth(duel["tokens"][view])).json()}
    hidden_names = {CLASSIC[c].name for c in hidden if c in CLASSIC} - public_names
    assert hidden and hidden_names
    context = browser.new_context()
    page = context.new_page()
    bodies: list[bytes] = []
    page.on("response", lambda response: bodies.append(response.body()) if response.status != 304 else None)
    opened(page, duel["links"][view])
    dom = ""
    for i in range(len(events)):
        page.evaluate(f"window.ygoreplay.viewer.show({i})")
        for details in page.locator("details.pilelist").all():
            details.evaluate("(d) => { d.open = true; }")
        dom += page.content()
    context.close()
    haystack = b"".join(bodies).decode("utf-8", "replace")
    numbers = {int(n) for n in re.findall(r"\d+", haystack)}
    assert not hidden & numbers, f"{view}: the page received hidden passcode(s) {hidden & numbers}"
    assert not [n for n in hidden_names if n in dom], f"{view}: the page shows hidden card(s)"
    assert not [n for n in hidden_names if n in haystack]


def opened_with_names(service, page, players: list[str], title: str) -> list[dict]:
    """A duel titled ``title`` between ``players``, recorded and opened as a spectator; its events."""
    events = events_of("won-by-damage.jsonl")
    events[0] = {**events[0], "players": players}
    duel = create(service.url, title=title)
    assert httpx.post(f"{service.url}/duels/{duel['id']}/events", json=events,
                      headers=auth(duel["tokens"]["recorder"])).status_code == 200
    opened(page, duel["links"]["spectator"] + "#e10")
    return events


def test_a_title_or_a_player_name_is_text_never_markup(service, page):
    opened_with_names(service, page, ["<img src=x onerror=window.pwned=1>", "Kaiba</script><b>"],
                      "<script>window.pwned=2</script>")
    expect(page.locator("#title")).to_have_text("<script>window.pwned=2</script>")
    expect(page.locator("#side-bottom .who .name")).to_have_text("<img src=x onerror=window.pwned=1>")
    assert page.evaluate("window.pwned") is None
    assert page.locator("img").count() == 0 and page.locator("b").count() == 0


# -- live ------------------------------------------------------------------------------------------------

def test_a_live_duel_follows_the_stream_marks_a_rollback_and_shows_its_branches(service, page):
    base = service.url
    duel = create(base, title="Table 7, live", visibility="unlisted")
    d, t = duel["id"], duel["tokens"]
    events = events_of("won-by-damage.jsonl")
    recorder = auth(t["recorder"])
    assert httpx.post(f"{base}/duels/{d}/events", json=events[:10], headers=recorder).status_code == 200
    opened(page, duel["links"]["judge"])
    at(page, 9)                                                  # a live duel opens at its last event
    expect(page.locator("#status")).to_contain_text("live")
    for i in range(10, 40, 6):
        assert httpx.post(f"{base}/duels/{d}/events", json=events[i:i + 6], headers=recorder).status_code == 200
        at(page, min(i + 6, 40) - 1)                             # it follows, event by event
    r = httpx.post(f"{base}/duels/{d}/rollback", json={"to": 35, "judge": "J. Smith", "reason": "misplay"},
                   headers=auth(t["judge"]))
    assert r.status_code == 200
    at(page, 40)
    expect(page.locator("#log li.reverted")).to_have_count(5)     # events 35..39 undone
    expect(page.locator("#l36")).to_have_attribute("title", "undone by the judge's rollback at #40")
    expect(page.locator("#marks .tick.rollback")).to_have_count(1)
    expect(page.locator("#marks .undone")).to_have_count(1)
    page.keyboard.press("Home")                                  # looking back: new events do not move it
    assert httpx.post(f"{base}/duels/{d}/events", json=events[35:50], headers=recorder).status_code == 200
    expect(page.locator("#where")).to_have_text(re.compile(r"^event #0 of 56"))
    page.keyboard.press("End")
    at(page, 55)
    shot(page, "live-after-rollback")
    branch = httpx.post(f"{base}/duels/{d}/branch", json={"at": 29, "title": "what if no attack"},
                        headers=auth(t["judge"]))
    assert branch.status_code == 201
    opened(page, duel["links"]["judge"])
    tree = page.locator("#tree a")
    expect(tree).to_have_text(["Table 7, live", "what if no attack"])
    tree.nth(1).click()
    page.wait_for_selector("body[data-ready=true]")
    expect(page.locator("#title")).to_have_text("what if no attack")
    at(page, 29)


def test_a_burst_of_live_events_is_taken_in_at_once(service, page):
    """A recorder sending 2,000 events in one request: the page, open at the start, catches up
    (frames drawn once per animation frame, not once each) and keeps its place in the log."""
    from synthetic import generate
    base = service.url
    duel = create(base, title="burst", visibility="unlisted")
    recorder = auth(duel["tokens"]["recorder"])
    events = [e.to_dict() for e in generate(2_000, 3)]
    assert httpx.post(f"{base}/duels/{duel['id']}/events", json=events[:50], headers=recorder).status_code == 200
    opened(page, duel["links"]["spectator"] + "#e10")
    at(page, 10)
    page.locator("#log").evaluate("(log) => { log.scrollTop = 300; }")
    assert httpx.post(f"{base}/duels/{duel['id']}/events", json=events[50:], headers=recorder, timeout=120).status_code == 200
    expect(page.locator("#where")).to_have_text(re.compile(r"^event #10 of 2000"), timeout=60_000)
    assert page.evaluate("window.ygoreplay.duel.length") == 2000
    assert page.locator("#log li").count() == 2000, "one line per event, none twice"
    assert page.locator("#log").evaluate("(log) => log.scrollTop") == 300, "reading further down is not undone"


def test_a_spectator_follows_behind_the_delay(service, page):
    base = service.url
    duel = create(base, title="delayed", visibility="unlisted", delay={"events": 5})
    events = events_of("won-by-damage.jsonl")
    recorder = auth(duel["tokens"]["recorder"])
    assert httpx.post(f"{base}/duels/{duel['id']}/events", json=events[:20], headers=recorder).status_code == 200
    opened(page, duel["links"]["spectator"])
    at(page, 14)
    expect(page.locator("#status")).to_contain_text("5 events behind")
    assert httpx.post(f"{base}/duels/{duel['id']}/events", json=events[20:30], headers=recorder).status_code == 200
    at(page, 24)
    assert page.evaluate("window.ygoreplay.duel.length") == 25


# -- offline ---------------------------------------------------------------------------------------------

def test_an_exported_page_opens_from_file_with_no_network(service, browser, tmp_path):
    store = tmp_path / "duels.sqlite"
    env = {**os.environ, "YGOREPLAY_STORE": str(store)}
    run = lambda *args: subprocess.run([sys.executable, "-m", "ygoreplay", *args], env=env, capture_output=True,  # noqa: E731
                                       text=True, timeout=120)
    recorded = run("record", str(REPLAYS / "chain-counter-traps.jsonl"))
    assert recorded.returncode == 0, recorded.stderr
    out = tmp_path / "duel.html"
    exported = run("export", recorded.stdout.strip(), "--html", "--view", "spectator", "-o", str(out))
    assert exported.returncode == 0, exported.stderr
    html = out.read_text()
    hidden = never_public("chain-counter-traps", "spectator")
    assert hidden and not hidden & {int(n) for n in re.findall(r"\d+", html.split('id="ygr-duel">')[1])}
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    requests: list[str] = []

    def refuse(route):
        requests.append(route.request.url)
        if route.request.url.startswith("file:"):
            route.continue_()
        else:
            route.abort()
    context.route("**/*", refuse)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    opened(page, out.as_uri() + "#e44")
    at(page, 44)
    expect(page.locator("#status")).to_contain_text("spectator view")
    expect(page.locator("#side-top .hand .card.back")).to_have_count(
        len(page.evaluate("window.ygoreplay.duel.boards[44].players[1].hand")))
    page.keyboard.press("End")
    at(page, 54)
    expect(page.locator("#middle .result")).to_contain_text("Yugi wins")
    assert [u for u in requests if not u.startswith("file:")] == [], "the page asked the network"
    assert errors == [], errors
    # the signed replay file travels inside, and it is the one `ygoreplay verify` accepts
    link = page.locator("#download")
    assert link.get_attribute("href").startswith("blob:")
    data = json.loads(page.evaluate("document.getElementById('ygr-duel').textContent"))
    replay = loads(base64.b64decode(data["file"]))
    assert replay.view == "spectator" and len(replay.events) == 55 and replay.signature_valid
    assert replay.signer == PublicKey.parse(run("key").stdout.strip())
    shot(page, "offline-file")
    context.close()


def test_an_exported_page_holds_no_markup_from_the_duel(tmp_path):
    """A title that tries to end the data's <script> element stays inside it as JSON text."""
    from ygoreplay import viewer
    text = viewer.embedded_json({"title": "</script><script>alert(1)</script><!--"})
    assert "<" not in text and ">" not in text and json.loads(text)["title"].startswith("</script>")


# -- phone width -----------------------------------------------------------------------------------------

def test_readable_at_phone_width(service, browser):
    duel = record(service.url, "won-by-damage")
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    opened(page, duel["links"]["p0"] + "#e45")
    at(page, 45)
    assert page.evaluate("document.documentElement.scrollWidth") <= 391, "nothing runs off the side"
    for selector in ("#side-bottom .lp", "#side-top .lp", "#slider", "#log"):
        assert page.locator(selector).is_visible(), selector
    page.locator("#next").tap()
    at(page, 46)
    shot(page, "phone-390x844")
    context.close()


def test_bidirectional_and_zero_width_characters_are_shown_and_isolated(service, page, tmp_path):
    """U+202E (right-to-left override) would reverse what follows; U+200B hides inside a name.
    The page shows both as escapes, as the terminal does, in the served and the exported page."""
    events = opened_with_names(service, page, ["Yu\u200bgi", "Kaiba\u202eevil"], "Final \u202eevil\u200b")
    expect(page.locator("#title")).to_have_text("Final \\u202eevil\\u200b")
    expect(page.locator("#side-bottom .who .name")).to_have_text("Yu\\u200bgi")
    expect(page.locator("#side-top .who .name")).to_have_text("Kaiba\\u202eevil")
    assert page.evaluate("getComputedStyle(document.querySelector('#title')).unicodeBidi") == "plaintext"
    path = tmp_path / "names.jsonl"
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), encoding="utf-8")
    out = tmp_path / "names.html"
    exported = subprocess.run([sys.executable, "-m", "ygoreplay", "export", str(path), "--html", "-o", str(out),
                               "--view", "spectator"], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "XDG_DATA_HOME": str(tmp_path)})
    assert exported.returncode == 0, exported.stderr
    opened(page, out.as_uri())
    expect(page.locator("#side-top .who .name")).to_have_text("Kaiba\\u202eevil")


def test_the_page_escapes_the_characters_the_terminal_escapes():
    """One rule: viewer/text.js's characters are text.py's (``printable``), every one of them."""
    from ygoreplay import text
    source = (ROOT / "ygoreplay" / "viewer" / "text.js").read_text()
    js_class = re.search(r"const UNSAFE = /\[(.*)\]/gu;", source).group(1)
    page_rule = re.compile("[" + js_class.encode().decode("unicode_escape") + "]")
    shown = {chr(c) for c in range(0x10000) if text.printable(chr(c)) != chr(c)}
    assert {chr(c) for c in range(0x10000) if page_rule.fullmatch(chr(c))} == shown
    assert {"\u202e", "\u200b", "\u2060", "\ufeff"} <= shown


def test_a_judges_viewer_keeps_a_receipt_and_catches_a_store_cut_back_since(browser, tmp_path):
    """Issue 21: the judge's viewer keeps the signed receipt of the record it saw; after someone
    with the store file (and no key) deletes the duel's end with the anchors after it, the
    store alone still verifies, but the page, shown its kept receipt, says NOT ok."""
    from test_receipts import cut_back
    path = tmp_path / "cut.sqlite"
    srv = Server(str(path))
    try:
        duel = create(srv.url, title="cut back")             # two appends: an anchor at 60 to cut back to
        duel["events"] = events_of("won-by-damage.jsonl")
        for part in (duel["events"][:60], duel["events"][60:]):
            r = httpx.post(f"{srv.url}/duels/{duel['id']}/events", json=part, headers=auth(duel["tokens"]["recorder"]))
            assert r.status_code == 200, r.text
        judge_link = duel["links"]["judge"]
        context = browser.new_context()
        page = context.new_page()
        opened(page, judge_link)
        until(page, f"localStorage.getItem('ygoreplay.receipt.{duel['id']}') !== null")
        kept = json.loads(page.evaluate(f"localStorage.getItem('ygoreplay.receipt.{duel['id']}')"))
        assert kept["duel"] == duel["id"] and kept["events"] == len(duel["events"])
        spectator = browser.new_context().new_page()                  # a spectator keeps none: 403
        opened(spectator, duel["links"]["spectator"])
        assert httpx.get(f"{srv.url}/duels/{duel['id']}/receipt",
                         headers=auth(duel["tokens"]["spectator"])).status_code == 403
        assert spectator.evaluate("localStorage.length") == 0
        expect(page.locator("#status")).not_to_contain_text("NOT ok")
        cut_back(str(path), duel["id"], 60)
        opened(page, judge_link)
        expect(page.locator("#status")).to_contain_text("NOT ok", timeout=15_000)
        expect(page.locator("#status")).to_contain_text("events were removed")
        context.close()
    finally:
        srv.stop()
