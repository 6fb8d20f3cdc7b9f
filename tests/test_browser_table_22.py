"""The scorekeeper's page at a paper table (Debian's chromium, 360 px): a monster put back on the
top or the bottom of its Deck by an effect is a tap of its own (ZONE-11), online from the rules'
list and offline from the page's own; the sheet offered *Return to the Deck* alone, a shuffle."""
from __future__ import annotations

import httpx
import pytest

from test_browser import browser, service  # noqa: F401  (the fixtures)
from test_browser_record import Table, stored
from test_service import auth, create

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect
VORSE = 14898066


def vorse_summoned(service, browser, title: str) -> tuple[dict, Table, list[dict]]:  # noqa: F811
    """A witnessed duel of A and B whose player 0 Normal Summoned Vorse Raider (p0.m0) in turn 1,
    on a recorder's phone (360 px): the duel, the page, the events stored."""
    duel = create(service.url, title=title, mode="witnessed")
    played = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["A", "B"], "witnessed": True},
              *({"kind": "deck_registered", "player": p, "main": [0] * 40, "extra": []} for p in (0, 1)),
              *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
              {"kind": "turn_started", "player": 0, "turn": 1},
              *({"kind": "phase_entered", "phase": phase} for phase in ("draw", "standby", "main1")),
              {"kind": "normal_summoned", "player": 0, "card": "p0.m0", "zone": 2, "shows": {"p0.m0": VORSE}}]
    r = httpx.post(f"{service.url}/duels/{duel['id']}/events", json=played, headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200 and r.json()["length"] == len(played), r.text
    table = Table(browser, duel["record"]["recorder"], width=360)
    table.settled(len(played))
    return duel, table, played


def test_a_monster_returned_to_the_top_or_bottom_of_the_deck_is_one_tap_online_and_offline(service, browser):  # noqa: F811
    duel, table, played = vorse_summoned(service, browser, "top or bottom")
    table.card("p0.m0")
    actions = table.page.locator("#sheet-actions .action")
    expect(actions.filter(has_text="Return to the top of the Deck")).to_have_count(1, timeout=30_000)
    labels = {actions.nth(i).get_attribute("data-label") for i in range(actions.count())}
    assert {"Shuffle into the Deck", "Return to the top of the Deck", "Return to the bottom of the Deck"} <= labels
    table.context.set_offline(True)                  # the network drops: the page's own list
    table.page.keyboard.press("Escape")
    table.tap('[data-move="phase-battle"]')           # an entry waits: the sheet asks the rules nothing
    expect(table.page.locator("body")).to_have_attribute("data-queued", "1", timeout=30_000)
    table.card("p0.m0")
    expect(table.page.locator("#sheet-actions .action").filter(has_text="Return to the bottom of the Deck")) \
        .to_have_count(1, timeout=30_000)
    expect(table.page.locator("#sheet-actions .hint")).to_contain_text("these moves are always possible")
    table.unfold("Return to the bottom of the Deck")          # under *More…*: a rare one
    table.tap('#sheet-actions .action[data-label="Return to the bottom of the Deck"] button.big')
    expect(table.page.locator("body")).to_have_attribute("data-queued", "2", timeout=30_000)
    table.context.set_offline(False)
    table.settled(len(played) + 2)
    last = stored(service.url, duel)[-1]
    assert (last["kind"], last["card"], last["to"], last["reason"]) == ("card_moved", "p0.m0", [0, "deck", 35],
                                                                        "returned")
    assert not table.errors, table.errors
    table.close()
