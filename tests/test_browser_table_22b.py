"""The scorekeeper's page at a paper table (Debian's chromium, 360 px): a monster put back on top
of its Deck by an effect shows there, face-up, until the Deck is shuffled or drawn from (ZONE-11),
so the next step (an effect sending the top card to the GY, a mill) is a tap on it. The Deck was a
count: the card the table had just put there could not be tapped, nor named in a form."""
from __future__ import annotations

import pytest

from test_browser import browser, service  # noqa: F401  (the fixtures)
from test_browser_record import no_overflow, stored
from test_browser_table_22 import vorse_summoned

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect


def test_a_monster_put_on_top_of_the_deck_shows_there_and_a_mill_is_a_tap_on_it(service, browser):  # noqa: F811
    duel, table, played = vorse_summoned(service, browser, "top of the deck")
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
