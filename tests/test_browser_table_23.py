"""The scorekeeper's page at a paper table (Debian's chromium, 360 px), twenty-third pass: an
effect's ATK/DEF and an attack stopped are each a tap on the card (its figures typed in the sheet),
online from the rules' list and offline from the page's own. Both were typed whole in *Something
else…*: six taps and four, at the speed of play."""
from __future__ import annotations

import httpx
import pytest

from test_browser import browser, service  # noqa: F401  (the fixtures)
from test_browser_record import Table, in_main_1, no_overflow, stored
from test_browser_table_22 import VORSE, vorse_summoned
from test_service import auth, create

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect
WARWOLF = 69247929


def _stats(table: Table, card: str, atk: int) -> int:
    """The card's sheet, its ATK typed, its action tapped: the taps it took."""
    before = table.taps
    table.card(card)
    row = '#sheet-actions .action[data-label="Change ATK/DEF"]'
    expect(table.page.locator(f'{row} input[data-stat="atk"]')).to_have_count(1, timeout=30_000)
    table.page.fill(f'{row} input[data-stat="atk"]', str(atk))
    table.taps += 1
    table.tap(f"{row} button.big")
    return table.taps - before


def test_an_effects_atk_is_three_taps_on_the_monster_online_and_offline(service, browser):  # noqa: F811
    duel, table, played = vorse_summoned(service, browser, "stats")
    before = table.taps
    table.something_else({"kind": "stats_changed", "card": "p0.m0", "atk": 2400, "defense": 1200})
    typed = table.taps - before
    table.settled(len(played) + 1)
    assert _stats(table, "p0.m0", 2600) <= 3 < typed == 6                   # six taps before, three now
    table.settled(len(played) + 2)
    last = stored(service.url, duel)[-1]
    assert (last["kind"], last["card"], last["atk"], last.get("defense")) == ("stats_changed", "p0.m0", 2600, 1200)
    expect(table.page.locator('#board .card[data-card="p0.m0"]')).to_contain_text("2600", timeout=30_000)
    no_overflow(table.page)
    table.context.set_offline(True)                  # the network drops: the page's own list
    table.tap('[data-move="phase-battle"]')
    expect(table.page.locator("body")).to_have_attribute("data-queued", "1", timeout=30_000)
    assert _stats(table, "p0.m0", 1000) <= 3
    expect(table.page.locator("body")).to_have_attribute("data-queued", "2", timeout=30_000)
    table.context.set_offline(False)
    table.settled(len(played) + 4)
    last = stored(service.url, duel)[-1]
    assert (last["kind"], last["card"], last["atk"], last.get("defense")) == ("stats_changed", "p0.m0", 1000, 1200)
    assert not table.errors, table.errors
    table.close()


def test_an_attack_stopped_is_two_taps_on_the_attacker_online_and_offline(service, browser):  # noqa: F811
    duel = create(service.url, title="attack stopped", mode="witnessed")
    played = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["A", "B"], "witnessed": True},
              *({"kind": "deck_registered", "player": p, "main": [0] * 40, "extra": []} for p in (0, 1)),
              *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
              {"kind": "turn_started", "player": 0, "turn": 1},
              *({"kind": "phase_entered", "phase": phase} for phase in ("draw", "standby", "main1")),
              {"kind": "normal_summoned", "player": 0, "card": "p0.m0", "zone": 2, "shows": {"p0.m0": VORSE}},
              {"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "player": 1, "turn": 2},
              {"kind": "phase_entered", "phase": "draw"}, {"kind": "cards_drawn", "player": 1},
              *({"kind": "phase_entered", "phase": phase} for phase in ("standby", "main1")),
              {"kind": "normal_summoned", "player": 1, "card": "p1.m0", "zone": 0, "shows": {"p1.m0": WARWOLF}},
              {"kind": "phase_entered", "phase": "battle"}, {"kind": "step_entered", "step": "battle"}]
    attack = {"kind": "attack_declared", "player": 1, "attacker": "p1.m0", "target": "p0.m0"}
    r = httpx.post(f"{service.url}/duels/{duel['id']}/events", json=[*played, attack],
                   headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    table = Table(browser, duel["record"]["recorder"], width=360)
    table.settled(len(played) + 1)
    for offline in (False, True):
        length = len(stored(service.url, duel))
        if offline:
            r = httpx.post(f"{service.url}/duels/{duel['id']}/events", json=[attack],
                           headers=auth(duel["tokens"]["recorder"]))
            assert r.status_code == 200, r.text
            table.settled(length + 1)
            table.context.set_offline(True)
        before = table.taps
        table.card("p1.m0")
        table.sheet_action("Stop this attack")
        # four taps in Something else…; online, by no cause and no replay, the rules refuse it
        # (BATTLE-06), but with the duel's warnings off (a witnessed duel's) the page says nothing
        # of it: by likelihood alone it is among the first rows, as offline
        assert table.taps - before == 2
        if offline:
            expect(table.page.locator("body")).to_have_attribute("data-queued", "1", timeout=30_000)
            table.context.set_offline(False)
        table.settled(length + 1 + offline)
        assert stored(service.url, duel)[-1]["kind"] == "attack_cancelled"
        expect(table.page.locator('#board .card[data-card="p1.m0"]')).to_have_count(1)
    assert not table.errors, table.errors
    table.close()


def _place(table: Table, card: str, place: int, where: str = "#board") -> None:
    row = '#sheet-actions .action[data-label="Place in the Deck, from the top"]'
    table.tap(f'{where} .card[data-card="{card}"]')
    expect(table.page.locator("#sheet")).to_have_attribute("data-card", card)
    expect(table.page.locator(f'{row} input[data-stat="place"]')).to_have_count(1, timeout=30_000)
    table.unfold("Place in the Deck, from the top")          # under *More…*: a rare one
    table.page.fill(f'{row} input[data-stat="place"]', str(place))
    table.taps += 1
    table.tap(f"{row} button.big")


def test_a_monster_placed_3rd_from_the_top_shows_there_and_is_milled_by_a_tap(service, browser):  # noqa: F811
    """ZONE-11: "put it 3rd from the top": the sheet's action, its place typed (3, as the players
    count), stored at index 2; the Deck shows it as #3, a tap on it sends it to the GY. Offline,
    the page's own list places it as well."""
    duel, table, played = vorse_summoned(service, browser, "3rd from the top")
    _place(table, "p0.m0", 3)
    table.settled(len(played) + 1)
    last = stored(service.url, duel)[-1]
    assert (last["kind"], last["card"], last["to"], last["reason"]) == ("card_moved", "p0.m0", [0, "deck", 2], "returned")
    placed = table.page.locator('#board .deck .deck-place').filter(has=table.page.locator('.card[data-card="p0.m0"]'))
    expect(placed).to_have_count(1, timeout=30_000)
    expect(placed).to_contain_text("#3")
    expect(placed).to_contain_text("Vorse")
    no_overflow(table.page)
    table.card("p0.m0")
    table.sheet_action("Send to the GY")
    table.settled(len(played) + 2)
    assert stored(service.url, duel)[-1]["to"] == [0, "gy"]
    expect(placed).to_have_count(0)
    table.context.set_offline(True)                  # the network drops: the page's own list
    table.tap('[data-move="phase-battle"]')
    expect(table.page.locator("body")).to_have_attribute("data-queued", "1", timeout=30_000)
    table.tap('#board details.pilelist:has(.card[data-card="p0.m0"]) summary')     # the GY's list
    _place(table, "p0.m0", 5, "#board details.pilelist[open]")
    expect(table.page.locator("body")).to_have_attribute("data-queued", "2", timeout=30_000)
    table.context.set_offline(False)
    table.settled(len(played) + 4)
    assert stored(service.url, duel)[-1]["to"] == [0, "deck", 4]
    assert not table.errors, table.errors
    table.close()


def test_a_whole_duel_at_the_table_a_monster_destroyed_by_battle_is_a_tap_on_the_bar(service, browser):  # noqa: F811
    """A duel of A and B as a scorekeeper records it at 360 px, from the start form to the win:
    Vorse Raider summoned, Gene-Warped Warwolf's attack on it, the damage calculation, the battle
    damage, then Vorse Raider to the GY destroyed by battle (BATTLE-14) from the bar, as the damage
    was; an effect's ATK on Warwolf, the last 7900 as effect damage, the win. The bar forgot the
    monster the calculation destroyed: the scorekeeper had to find it on the board and open its
    sheet, or the duel went on with it on the field."""
    duel = create(service.url, title="a whole duel", mode="witnessed")
    table = Table(browser, duel["record"]["recorder"], width=360)
    in_main_1(table)
    n = 9
    table.tap("#side-bottom .hand .card >> nth=0")
    vorse = table.page.get_attribute("#sheet", "data-card")
    table.name(vorse, VORSE)
    table.sheet_action("Normal Summon")
    n += 1
    table.settled(n)
    for move in ("phase-end", "next-turn", "phase-draw", "draw-card", "phase-standby", "phase-main1"):
        table.tap(f'[data-move="{move}"]')
        n += 1
        table.settled(n)
    table.tap("#side-top .hand .card >> nth=0")
    warwolf = table.page.get_attribute("#sheet", "data-card")
    table.name(warwolf, WARWOLF)
    table.sheet_action("Normal Summon")
    table.tap('[data-move="phase-battle"]')
    n += 2
    table.settled(n)
    table.card(warwolf)
    table.sheet_action("Attack")                      # the Battle Step entered with it
    table.tap('[data-move="step-damage"]')
    n += 3
    table.settled(n)
    table.move("damage_calculated")
    n += 1
    table.settled(n)
    table.move("life_points_changed")
    n += 1
    table.settled(n)
    before = table.taps
    to_gy = table.page.locator('#moves .action[data-label="To the GY (destroyed by battle)"] button.big')
    expect(to_gy).to_have_count(1, timeout=30_000)
    expect(to_gy).to_contain_text("Vorse Raider")
    table.move("card_moved")
    n += 1
    table.settled(n)
    assert table.taps - before == 1
    last = stored(service.url, duel)[-1]
    assert (last["kind"], last["card"], last["to"], last["reason"]) == ("card_moved", vorse, [0, "gy"], "battle")
    expect(to_gy).to_have_count(0)
    assert _stats(table, warwolf, 2500) <= 3
    n += 1
    table.settled(n)
    table.keypad(0, 7900, "effect_damage")
    n += 1
    table.settled(n)
    table.move("duel_ended")
    n += 1
    table.settled(n)
    last = stored(service.url, duel)[-1]
    assert (last["kind"], last["winner"]) == ("duel_ended", 1)
    no_overflow(table.page)
    assert not table.errors, table.errors
    table.close()
