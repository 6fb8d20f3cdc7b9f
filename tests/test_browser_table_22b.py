"""The scorekeeper's page at a paper table (Debian's chromium, 360 px): a monster put back on top
of its Deck by an effect shows there, face-up, until the Deck is shuffled or drawn from (ZONE-11),
so the next step (an effect sending the top card to the GY, a mill) is a tap on it. The Deck was a
count: the card the table had just put there could not be tapped, nor named in a form."""
from __future__ import annotations

import httpx
import pytest

from test_browser import browser, service  # noqa: F401  (the fixtures)
from test_browser_record import Table, no_overflow, stored
from test_service import auth, create

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect
VORSE = 14898066


def test_a_monster_put_on_top_of_the_deck_shows_there_and_a_mill_is_a_tap_on_it(service, browser):  # noqa: F811
    duel = create(service.url, title="top of the deck", mode="witnessed")
    played = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["A", "B"], "witnessed": True},
              *({"kind": "deck_registered", "player": p, "main": [0] * 40, "extra": []} for p in (0, 1)),
              *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
              {"kind": "turn_started", "player": 0, "turn": 1},
              *({"kind": "phase_entered", "phase": phase} for phase in ("draw", "standby", "main1")),
              {"kind": "normal_summoned", "player": 0, "card": "p0.m0", "zone": 2, "shows": {"p0.m0": VORSE}}]
    r = httpx.post(f"{service.url}/duels/{duel['id']}/events", json=played, headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    table = Table(browser, duel["record"]["recorder"], width=360)
    table.settled(len(played))
    table.card("p0.m0")
    table.sheet_action("Return to the top of the Deck")
    table.settled(len(played) + 1)
    on_top = table.page.locator('#board .deck .card[data-card="p0.m0"]')
    expect(on_top).to_have_count(1, timeout=30_000)
    expect(on_top).to_contain_text("Vorse")
    no_overflow(table.page)
    table.card("p0.m0")                                  # the card on the Deck: its sheet
    table.sheet_action("Send to the GY")
    table.settled(len(played) + 2)
    last = stored(service.url, duel)[-1]
    assert (last["kind"], last["card"], last["to"]) == ("card_moved", "p0.m0", [0, "gy"])
    expect(on_top).to_have_count(0)
    table.close()
