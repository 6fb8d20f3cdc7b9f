"""The judge's two pages agree (issue 25, sixteenth pass; MATCH-08, LOG-05): the viewer at
/view/{id} (``viewer.js``) and the recorder's page opened with a judge's token (``record.js``).

What was wrong, each checked here:
- the recorder's page chipped every call in effect, those already ruled on too, as if waiting; the
  viewer listed the open ones only. Both now ask ``Duel`` (viewer.js) what is open: a call in effect
  with no ruling in effect on it; the recorder's page shows a ruled one as ruled.
- the recorder's page gave the judge's tools (calls, ruling, rewind, what-if) to the judge's link
  only; the viewer gave them to the organiser's too, who holds every role (``viewer.judging``).
- "Ruling on this" opened the general note form with the decision optional, and the service
  refused the ruling sent without one (LOG-05: on and decision, both or neither); now the form
  asks for the decision (and the judge's name and the ruling) before Enter, and the general form
  refuses on without decision on the page, translated; the viewer's ruling form has no default
  decision either.
- the what-if button sent no Idempotency-Key: tapped again after a lost answer, it made a second
  branch. It now sends a key (crypto.getRandomValues, no secure context needed) and the same one
  again for the same what-if, so the service answers the branch it made.
"""
from __future__ import annotations

import json
import re

import httpx
import pytest

from test_browser import browser, service  # noqa: F401  (fixtures)
from test_browser_record import Table
from test_service import ADMIN, auth, create, events_of

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect

CALL = {"kind": "judge_note", "category": "call", "judge": "", "note": "was the Trap activated before the attack?"}
FIRST, SECOND = 20, 31          # the two calls' positions in the duel ``called`` makes


def called(base: str, ruled: bool = True) -> dict:
    """A duel under way with two judge calls (#20, #31), the first ruled on by the judge (#32)."""
    events = events_of("won-by-damage.jsonl")
    duel = create(base, title="called", visibility="public")
    recorder = auth(duel["tokens"]["recorder"])
    for part in (events[:FIRST], [CALL], events[FIRST:SECOND - 1], [{**CALL, "note": "a second question"}]):
        assert httpx.post(f"{base}/duels/{duel['id']}/events", json=part, headers=recorder).status_code == 200
    if ruled:
        r = httpx.post(f"{base}/duels/{duel['id']}/notes", headers=auth(duel["tokens"]["judge"]), json={
            "judge": "Head judge", "text": "the Trap came first", "category": "ruling", "on": FIRST, "decision": "stands"})
        assert r.status_code == 200, r.text
    return duel


def recorder_page(browser, base: str, duel: dict, token: str) -> Table:  # noqa: F811
    return Table(browser, f"{base}/record/{duel['id']}?token={token}&lang=en")


def test_match_08_a_call_ruled_on_is_ruled_on_both_judge_pages(service, browser):  # noqa: F811
    duel = called(service.url)
    judge = recorder_page(browser, service.url, duel, duel["tokens"]["judge"])
    chips = judge.page.locator("#calls [data-call]:not([data-call=latest])")
    expect(chips).to_have_count(2)
    ruled, waiting = chips.nth(0), chips.nth(1)
    expect(ruled).to_have_attribute("data-call", str(FIRST))
    expect(ruled).to_have_attribute("data-state", "ruled")
    expect(ruled).to_contain_text("ruled")
    expect(waiting).to_have_attribute("data-call", str(SECOND))
    expect(waiting).to_have_attribute("data-state", "open")
    # the viewer's list of open calls is the recorder page's open chips
    open_on_recorder = judge.page.evaluate("window.ygoreplay.recorder.duel.openCalls()")
    viewer = browser.new_context().new_page()
    viewer.goto(duel["links"]["judge"])
    viewer.wait_for_selector("body[data-ready=true]", timeout=15_000)
    expect(viewer.locator("#calls li")).to_have_count(1)
    expect(viewer.locator("#calls li")).to_contain_text("a second question")
    assert open_on_recorder == [SECOND]
    viewer.context.close()
    assert not judge.errors
    judge.context.close()


def test_match_08_the_organiser_gets_the_judges_tools_on_the_recorders_page(service, browser):  # noqa: F811
    duel = called(service.url)
    organiser = recorder_page(browser, service.url, duel, ADMIN)
    expect(organiser.page.locator(f'#calls [data-call="{SECOND}"]')).to_have_attribute("data-state", "open")
    expect(organiser.page.locator(f'#entries [data-ruling="{SECOND}"]')).to_have_count(1)
    expect(organiser.page.locator(f'#entries [data-branch="{SECOND}"]')).to_have_count(1)
    organiser.context.close()


def test_log_05_ruling_on_this_asks_for_the_decision_before_enter(service, browser):  # noqa: F811
    duel = called(service.url, ruled=False)
    judge = recorder_page(browser, service.url, duel, duel["tokens"]["judge"])
    events = SECOND + 1
    judge.settled(events)
    judge.tap(f'#entries [data-ruling="{SECOND}"]')
    decision = judge.page.locator('#else-fields [name="decision"]')
    expect(decision).to_have_attribute("required", "")
    expect(judge.page.locator('#else-fields [name="judge"]')).to_have_attribute("required", "")
    judge.page.fill('#else-fields [name="judge"]', "Head judge")
    judge.page.fill('#else-fields [name="note"]', "the second question: play goes on")
    judge.tap("#else button[type=submit]")             # no decision picked: the browser asks for it
    expect(judge.page.locator('#else-fields [name="decision"]:invalid')).to_have_count(1)
    expect(judge.page.locator("#else")).to_be_visible()
    assert judge.page.get_attribute("body", "data-events") == str(events)
    decision.select_option(json.dumps("stands"))
    judge.tap("#else button[type=submit]")
    judge.settled(events + 1)
    stored = httpx.get(f"{service.url}/duels/{duel['id']}/events", headers=auth(duel["tokens"]["judge"]))
    ruling = json.loads(stored.text.splitlines()[-1])["event"]
    assert (ruling["kind"], ruling["category"], ruling["on"], ruling["decision"]) == ("judge_note", "ruling", SECOND, "stands")
    expect(judge.page.locator(f'#calls [data-call="{SECOND}"]')).to_have_attribute("data-state", "ruled")
    assert not judge.errors
    judge.context.close()


def test_log_05_the_general_note_form_never_sends_a_ruling_without_its_decision(service, browser):  # noqa: F811
    duel = called(service.url, ruled=False)
    judge = Table(browser, f"{service.url}/record/{duel['id']}?token={duel['tokens']['judge']}&lang=ja")
    judge.settled(SECOND + 1)
    judge.tap("#else-button")
    judge.page.select_option("#else-kind", "judge_note")
    judge.page.fill('#else-fields [name="judge"]', "Head judge")
    judge.page.fill('#else-fields [name="note"]', "on the second call")
    judge.page.fill('#else-fields [name="on"]', str(SECOND))
    judge.tap("#else button[type=submit]")
    expect(judge.page.locator("#error")).to_contain_text("LOG-05")
    expect(judge.page.locator("#error")).to_contain_text("判断")          # said in the page's language
    expect(judge.page.locator("#else")).to_be_visible()                   # kept, for the decision
    expect(judge.page.locator("#entries li.queued")).to_have_count(0)     # nothing sent to be refused
    judge.context.close()


def test_match_08_the_viewers_ruling_form_has_no_default_decision(service, browser):  # noqa: F811
    duel = called(service.url, ruled=False)
    viewer = browser.new_context().new_page()
    viewer.goto(duel["links"]["judge"])
    viewer.wait_for_selector("body[data-ready=true]", timeout=15_000)
    decision = viewer.locator("#calls li").nth(0).locator("select[name=decision]")
    expect(decision).to_have_value("")
    expect(decision).to_have_attribute("required", "")
    viewer.context.close()


def test_the_what_if_sent_again_after_a_lost_answer_makes_one_branch(service, browser):  # noqa: F811
    duel = called(service.url)
    judge = recorder_page(browser, service.url, duel, duel["tokens"]["judge"])
    keys: list[str | None] = []
    made: list[str] = []

    def lost_once(route) -> None:
        keys.append(route.request.headers.get("idempotency-key"))
        if made:                                       # the tap again: through to the service
            route.continue_()
            return
        made.append(route.fetch().json()["id"])        # the branch is made, its answer lost
        route.abort()

    judge.page.route(re.compile(r"/duels/[0-9a-f]+/branch"), lost_once)
    judge.tap(f'#entries [data-branch="{SECOND}"]')
    expect(judge.page.locator("#error")).to_be_visible()
    judge.tap(f'#entries [data-branch="{SECOND}"]')
    judge.page.wait_for_url(re.compile(r"/record/(?!" + duel["id"] + ")"))
    assert len(keys) == 2 and keys[0] == keys[1], keys
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", keys[0] or ""), keys
    assert f"/record/{made[0]}?" in judge.page.url, (made, judge.page.url)
    judge.context.close()
