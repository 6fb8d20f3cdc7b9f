"""The recorder's page at a table, on a phone (360 px) read in Japanese (Debian's chromium, as
test_browser_record.py): two devices both tapping *Next turn* store one turn unless the second
confirms (``application.repeated_turn``); the *Something else…* form labels its fields in the
page's language with choices of players, places and the board's cards; a refused entry is edited
in that form and sent corrected, never lost."""
from __future__ import annotations

import pytest

from test_browser import SHOTS, browser, service  # noqa: F401  (the fixtures)
from test_browser_record import Table, no_overflow, stored
from test_service import create

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect


def phone(browser, duel: dict) -> Table:  # noqa: F811
    """A recorder's device on the duel's link, 360 px wide, reading Japanese."""
    return Table(browser, duel["record"]["recorder"] + "&lang=ja", width=360)


def started(table: Table, *moves: str) -> int:
    """The duel of A and B started on the page, then ``moves`` tapped: the events stored."""
    table.page.fill("#name0", "A")
    table.page.fill("#name1", "B")
    table.tap("#start")
    table.settled(5)
    for n, move in enumerate(moves, start=6):
        table.tap(f'[data-move="{move}"]')
        table.settled(n)
    return 5 + len(moves)


def test_a_second_device_tapping_next_turn_after_the_first_stores_one_turn_unless_confirmed(service, browser):  # noqa: F811
    """Device A ends turn 1; device B, having seen turn 2 begin, taps *Next turn* too. Both were
    stored: two turns, turn 2 with nothing in it. Now B's entry is *not stored*, saying why in
    Japanese and offering to confirm; the record keeps one turn; confirmed, B's turn is stored."""
    duel = create(service.url, title="two phones", mode="witnessed")
    a = phone(browser, duel)
    count = started(a, "next-turn", "phase-draw", "phase-standby", "phase-main1", "phase-end", "next-turn")
    b = phone(browser, duel)
    b.settled(count)
    b.tap('[data-move="next-turn"]')
    problem = b.page.locator("#entries .refused .problem")
    expect(problem).to_contain_text("ターン2には何も入力されていません", timeout=30_000)
    confirm = b.page.locator('#entries .refused [data-entry="confirm"]')
    expect(confirm).to_have_text("確認：それでも記録する")
    # no plain *Send again*: it re-sent the entry made on the head now (``made_on``), so a turn
    # change seen late (turn_repeated) was stored unconfirmed
    expect(b.page.locator('#entries .refused [data-entry="send"]')).to_have_count(0)
    assert [e["kind"] for e in stored(service.url, duel)].count("turn_started") == 2      # turns 1 and 2
    no_overflow(b.page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    b.page.screenshot(path=str(SHOTS / "recorder-confirm-ja-360.png"), full_page=True)
    confirm.click()
    b.settled(count + 1)
    last = stored(service.url, duel)[-1]
    assert (last["kind"], last["turn"], last["player"]) == ("turn_started", 3, 0)
    a.close()
    b.close()


def test_the_something_else_form_labels_its_fields_in_japanese_with_choices(service, browser):  # noqa: F811
    """The form for any event showed each field as its JSON key (``card``, ``to``, ``reason``)
    and took a card's place as typed JSON (``[0, "gy"]``). Now each field has its label in the
    page's language (the key only in its tooltip), a player is chosen by name, where a card goes
    is a player and a place, a card field offers the board's cards; entered so, it is stored."""
    duel = create(service.url, title="form", mode="witnessed")
    table = phone(browser, duel)
    count = started(table, "next-turn", "phase-draw", "phase-standby", "phase-main1")
    table.tap("#else-button")
    table.page.select_option("#else-kind", "card_moved")
    labels = table.page.locator("#else-fields label")
    texts = [labels.nth(i).evaluate("node => node.firstChild.textContent") for i in range(labels.count())]
    keys = [labels.nth(i).get_attribute("title") for i in range(labels.count())]
    shown = dict(zip(keys, texts))
    assert shown["card"] == "カード *" and shown["to"] == "移動先 *" and shown["reason"] == "理由", shown
    assert not set(texts) & set(keys), texts                       # no JSON key left as a label
    player = table.page.locator('#else-fields [name="player"] option')
    assert {player.nth(i).inner_text() for i in range(player.count())} >= {"A", "B"}
    place = '#else-fields [name="to"]'
    expect(table.page.locator(f'{place} [data-part="player"] option').first).to_have_text("A")
    table.page.select_option(f'{place} [data-part="place"]', "gy")
    expect(table.page.locator(f'{place} [data-part="place"]')).to_have_value("gy")
    assert table.page.locator(f'{place} [data-part="place"] option:checked').inner_text() == "墓地"
    cards = table.page.locator("#else-cards option")
    hand = [cards.nth(i).get_attribute("value") for i in range(cards.count())]
    assert table.page.get_attribute('#else-fields [name="card"]', "list") == "else-cards" and "p0.m0" in hand, hand
    table.page.fill('#else-fields [name="card"]', "p0.m0")
    no_overflow(table.page)
    table.tap("#else button[type=submit]")
    table.settled(count + 1)
    last = stored(service.url, duel)[-1]
    assert (last["kind"], last["card"], last["to"]) == ("card_moved", "p0.m0", [0, "gy"])
    table.close()


def test_a_refused_entry_is_edited_in_the_form_and_sent_corrected(service, browser):  # noqa: F811
    """An entry the service refuses could be sent again unchanged or discarded: a typo meant
    entering it all again. *Edit* opens the form filled with it (the card, where it went); the
    entry stays queued, not stored, until the corrected one replaces it and is stored."""
    duel = create(service.url, title="edit", mode="witnessed")
    table = phone(browser, duel)
    count = started(table, "next-turn", "phase-draw", "phase-standby", "phase-main1")
    table.tap("#else-button")
    table.page.select_option("#else-kind", "card_moved")
    table.page.fill('#else-fields [name="card"]', "p0.q9")                  # a card id nobody has
    table.page.select_option('#else-fields [name="to"] [data-part="place"]', "banished")
    table.tap("#else button[type=submit]")
    refused = table.page.locator("#entries .refused")
    expect(refused).to_have_count(1, timeout=30_000)
    table.tap('#entries .refused [data-entry="edit"]')
    expect(table.page.locator("#else")).to_be_visible()
    expect(table.page.locator("#else-kind")).to_have_value("card_moved")
    expect(table.page.locator('#else-fields [name="card"]')).to_have_value("p0.q9")
    expect(table.page.locator('#else-fields [name="to"] [data-part="place"]')).to_have_value("banished")
    assert table.page.get_attribute("body", "data-queued") == "1"            # kept while it is edited
    table.page.fill('#else-fields [name="card"]', "p0.m1")
    table.tap("#else button[type=submit]")
    table.settled(count + 1)
    expect(refused).to_have_count(0)
    last = stored(service.url, duel)[-1]
    assert (last["kind"], last["card"], last["to"]) == ("card_moved", "p0.m1", [0, "banished"])
    table.close()
