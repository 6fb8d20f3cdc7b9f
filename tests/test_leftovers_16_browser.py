"""The judge's own link lists the judge calls still open and rules on one from the page (issue 25,
sixteenth pass; ``viewer.js`` ``Viewer.openCalls``, MATCH-08).

What was wrong: the table called the judge (a ``judge_note`` of category ``call``), and the judge's
link showed the call as a mark on the timeline and a line of the log among hundreds, with no list
of what is still waiting and no way to answer it there: a ruling took the command line or a
hand-made request. Now the judge's page lists each call in effect that no ruling closed, and a
ruling ``on`` it (its decision, the judge's name and why) is posted to the judge's own
``/duels/{id}/notes`` from the list; the call leaves the list once the ruling is in the record.
A spectator's page shows no such list.
"""
from __future__ import annotations

import json

import httpx

from test_browser import browser, expect, opened, page, service, until  # noqa: F401  (fixtures)
from test_service import auth, create, events_of

CALL = {"kind": "judge_note", "category": "call", "judge": "", "note": "was the Trap activated before the attack?"}


def test_match_08_the_judges_page_lists_the_open_calls_and_rules_on_one(service, page):  # noqa: F811
    events = events_of("won-by-damage.jsonl")
    duel = create(service.url, title="called", visibility="public")
    recorder = auth(duel["tokens"]["recorder"])
    for part in (events[:20], [CALL], events[20:30], [{**CALL, "note": "a second question"}]):
        assert httpx.post(f"{service.url}/duels/{duel['id']}/events", json=part, headers=recorder).status_code == 200
    opened(page, duel["links"]["judge"])
    calls = page.locator("#calls li")
    expect(calls).to_have_count(2)
    expect(calls.nth(0)).to_contain_text("#20")
    expect(calls.nth(1)).to_contain_text("a second question")
    first = calls.nth(0)
    first.locator("input[name=judge]").fill("Head judge")
    first.locator("input[name=text]").fill("the Trap was activated first: play goes on")
    first.locator("select[name=decision]").select_option("stands")
    first.locator("button[type=submit]").click()
    expect(calls).to_have_count(1, timeout=15_000)
    expect(calls.nth(0)).to_contain_text("a second question")
    stored = httpx.get(f"{service.url}/duels/{duel['id']}/events", headers=auth(duel["tokens"]["judge"]))
    ruling = json.loads(stored.text.splitlines()[-1])["event"]
    assert (ruling["kind"], ruling["on"], ruling["decision"], ruling["judge"]) == (
        "judge_note", 20, "stands", "Head judge"), ruling
    until(page, "localStorage.getItem('ygoreplay.judge') === 'Head judge'")
    spectator = page.context.browser.new_context().new_page()
    opened(spectator, duel["links"]["spectator"])
    expect(spectator.locator("#calls")).to_be_hidden()
    spectator.context.close()
