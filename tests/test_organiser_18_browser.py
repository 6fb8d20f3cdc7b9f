"""The round's page as a zh_Hans organiser follows it live (eighteenth pass; ``viewer/round.js``):
the rows the script redraws from ``/rounds/{id}/follow`` say what each table needs (a judge
called at table 2: MATCH-08) and who records it in the page's language, and the line at the top
counts the round at a glance; no English word of ours is left in a row."""
from __future__ import annotations

import re

import httpx

from test_browser import browser, expect, page, service  # noqa: F401  (fixtures)
from test_match_service import MATCHES, lines
from test_service import ADMIN, auth

DECKS = [e for e in lines(MATCHES / "two-nil.jsonl") if e["kind"] == "decklist_registered"]


def test_match_08_the_live_round_page_says_what_each_table_needs_in_chinese(service, page):  # noqa: F811
    made = httpx.post(f"{service.url}/rounds?event=地区赛&round=3",
                      content="".join(f"{t},选手{2 * t - 1},选手{2 * t}\n" for t in range(1, 4)),
                      headers={"Content-Type": "text/csv", **auth(ADMIN)}).json()
    two = made["tables"][1]
    writer = auth(two["tokens"]["recorder"])
    assert httpx.post(f"{service.url}/matches/{two['match']}/events", json=DECKS, headers=writer).status_code == 200
    assert httpx.post(f"{service.url}/matches/{two['match']}/games", json={"first_player": 0, "chosen_by": 0},
                      headers=writer).status_code == 201
    page.goto(f"{service.url}/rounds/{made['id']}?lang=zh-Hans")
    expect(page.locator("body[data-updated]")).to_have_count(1, timeout=15_000)     # drawn by its script
    expect(page.locator("#counts")).to_have_text("3 桌 · 1 桌对局中 · 2 桌未开始")
    called = httpx.post(f"{service.url}/matches/{two['match']}/judge-calls", json={"player": 1, "judge": ""},
                        headers=writer)
    assert called.status_code == 200, called.text
    row = page.locator("#table-2")
    expect(row.locator(".needs")).to_have_text("已呼叫裁判", timeout=15_000)
    expect(row).to_have_class(re.compile(r"\battention\b"))
    expect(page.locator("#counts")).to_contain_text("1 桌需处理")
    expect(page.locator("#table-1 .needs")).to_have_text("—")
    for english in ("judge called", "scorekeeper", "not started"):
        assert english not in page.locator("#tables").inner_text()
