"""The scorekeeper's page at a paper table (Debian's chromium, a 360 × 740 phone), twenty-third
pass, second table: a card's sheet offers first what the card most likely does now (by where it is,
whose turn, the phase, the Battle Phase's step, the chain), the rest folded under *More…*, and
what the rules refuse now apart, under *Against the rules now*, flagged with its rule IDs where the
duel's warnings are on (SUM-01: a hand card of the player whose turn it isn't offered *Normal
Summon* first; nothing said so until it was stored); with warnings off, by likelihood alone. A field monster's sheet had 12 to
14 rows, scrolled inside at 360 px. Offline, the page knows the chain link just resolved, so an
effect's ATK/DEF and a stopped attack name it as their cause as online."""
from __future__ import annotations

import json

import httpx
import pytest

from test_browser import browser, service  # noqa: F401  (the fixtures)
from test_browser_record import Table, stored
from test_browser_table_22 import VORSE
from test_browser_table_23 import _stats
from test_service import auth, create

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect
WARWOLF = 69247929
CYLINDER = 62279055
START = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["A", "B"], "witnessed": True},
         *({"kind": "deck_registered", "player": p, "main": [0] * 40, "extra": []} for p in (0, 1)),
         *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
         {"kind": "turn_started", "player": 0, "turn": 1},
         *({"kind": "phase_entered", "phase": phase} for phase in ("draw", "standby", "main1"))]
#: Vorse Raider Normal Summoned and Magic Cylinder Set by A; B's turn 2 to its Battle Step, Warwolf out.
BATTLE = [*START, {"kind": "normal_summoned", "player": 0, "card": "p0.m0", "zone": 2, "shows": {"p0.m0": VORSE}},
          {"kind": "spell_trap_set", "player": 0, "card": "p0.m1", "zone": 0},
          {"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "player": 1, "turn": 2},
          {"kind": "phase_entered", "phase": "draw"}, {"kind": "cards_drawn", "player": 1},
          *({"kind": "phase_entered", "phase": phase} for phase in ("standby", "main1")),
          {"kind": "normal_summoned", "player": 1, "card": "p1.m0", "zone": 0, "shows": {"p1.m0": WARWOLF}},
          {"kind": "phase_entered", "phase": "battle"}, {"kind": "step_entered", "step": "battle"}]
ATTACK = {"kind": "attack_declared", "player": 1, "attacker": "p1.m0", "target": "p0.m0"}
CYLINDER_RESOLVED = [{"kind": "activated", "player": 0, "card": "p0.m1", "shows": {"p0.m1": CYLINDER}},
                     {"kind": "priority_passed", "player": 1}, {"kind": "chain_link_resolved", "link": 1}]


def _at(service, browser, title: str, events: list[dict], **settings) -> tuple[dict, Table]:  # noqa: F811
    duel = create(service.url, title=title, mode="witnessed", **settings)
    r = httpx.post(f"{service.url}/duels/{duel['id']}/events", json=events, headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    table = Table(browser, duel["record"]["recorder"], width=360)
    table.page.set_viewport_size({"width": 360, "height": 740})
    table.settled(len(events))
    return duel, table


def _screen(table: Table, card: str) -> dict:
    """The card's sheet as the phone shows it once tapped: its rows shown (a folded group's
    summary one, its rows none), those in the first screen (whole, with no scrolling by hand of the
    page or the sheet) and the labels there, in order."""
    table.card(card)
    expect(table.page.locator("#sheet-actions")).to_have_attribute("data-at", table.page.get_attribute("body", "data-events"))
    return table.page.evaluate("""() => {
        const sheet = document.querySelector('#sheet').getBoundingClientRect();
        const rows = [...document.querySelectorAll('#sheet-actions .action, #sheet-actions summary')]
          .filter((r) => r.checkVisibility() && r.getBoundingClientRect().height > 0);
        const shown = rows.filter((r) => { const b = r.getBoundingClientRect();
          return b.height > 0 && b.top >= Math.max(0, sheet.top) && b.bottom <= Math.min(innerHeight, sheet.bottom) + 1; });
        return { rows: rows.length, first: shown.length,
                 labels: shown.map((r) => r.dataset.label || r.dataset.group) };
    }""")


@pytest.mark.parametrize("warnings", [True, False], ids=["warnings on", "warnings off"])
def test_a_hand_card_out_of_turn_offers_no_normal_summon_first_and_keeps_it(service, browser, warnings):  # noqa: F811
    """SUM-01: A's turn; B's hand card named Vorse Raider. Its sheet's first rows are what B may
    do now (a hand trap's cost, a discard), *Normal Summon* not among them, and a tap more still
    records it (flagged). With the duel's warnings on it is under *Against the rules now*, flagged
    SUM-01; with them off (a witnessed duel's default) nothing on the page says so in any shape: it
    is folded under *More…* with the unlikely ones, no rule named, no verdict."""
    duel, table = _at(service, browser, "out of turn", START, **({"warnings": True} if warnings else {}))
    table.card("p1.m0")
    table.page.fill("#name-input", "Vorse")
    table.tap(f'#suggestions [data-code="{VORSE}"]')
    expect(table.page.locator("#sheet-actions")).to_have_attribute("data-shows", f"p1.m0:{VORSE}", timeout=30_000)
    direct = table.page.locator('#sheet-actions > .action[data-label="Normal Summon"]')
    expect(table.page.locator("#sheet-actions > .action").first).to_be_visible(timeout=30_000)
    assert direct.count() == 0, "Normal Summon is not offered out of turn"
    if warnings:
        against = table.page.locator('#sheet-actions details.against')
        expect(against.locator('.action[data-label="Normal Summon"] .verdict')).to_have_text("illegal SUM-01")
    else:
        expect(table.page.locator('#sheet-actions details.more .action[data-label="Normal Summon"]')).to_have_count(1)
        assert table.page.locator("#sheet-actions details.against").count() == 0
        assert table.page.locator("#sheet-actions .verdict, #sheet-actions .breaks").count() == 0
        assert "SUM-01" not in table.page.inner_text("#sheet-actions")
    before = table.taps
    table.sheet_action("Normal Summon")
    assert table.taps - before == 2
    table.settled(len(START) + 1)
    assert stored(service.url, duel)[-1]["kind"] == "normal_summoned"
    expect(table.page.locator("#entries")).to_contain_text("SUM-01", timeout=30_000)
    assert not table.errors, table.errors
    table.close()


SHEETS = {   # the card, what comes before, the action that most likely comes now
    "A's Vorse in A's Main Phase": ("p0.m0", [*START, BATTLE[len(START)]], "Activate an effect"),
    "Warwolf in B's Battle Step": ("p1.m0", BATTLE, "Attack"),
    "Vorse attacked, in B's turn": ("p0.m0", [*BATTLE, ATTACK], "Activate an effect (Quick)"),
    "Warwolf after Magic Cylinder resolved": ("p1.m0", [*BATTLE, ATTACK, *CYLINDER_RESOLVED], "Stop this attack"),
    "Vorse after Magic Cylinder resolved": ("p0.m0", [*BATTLE, ATTACK, *CYLINDER_RESOLVED], "Send to the GY"),
}


@pytest.mark.parametrize("case", sorted(SHEETS))
def test_a_field_monsters_sheet_fits_the_first_screen_its_likely_action_first(service, browser, case):  # noqa: F811
    card, events, likely = SHEETS[case]
    _, table = _at(service, browser, case, events)
    screen = _screen(table, card)
    print(f"\n{case}: {screen['rows']} rows, {screen['first']} in the first screen: {screen['labels']}")
    assert screen["first"] == screen["rows"], "every row of the sheet in the first screen, no scrolling"
    assert screen["labels"][0] == likely
    assert not table.errors, table.errors
    table.close()


def test_offline_the_link_just_resolved_is_the_cause_of_a_stat_change_and_a_stopped_attack(service, browser):  # noqa: F811
    """Warwolf attacks Vorse; A activates Magic Cylinder, B passes; the network drops. The link
    resolved offline (*Resolve*), Vorse's ATK set and Warwolf's attack stopped from the page's own
    list name Magic Cylinder as their cause (its player's the stop), as the rules' list would: they
    named none, and the record lost why."""
    duel, table = _at(service, browser, "offline cause", [*BATTLE, ATTACK, *CYLINDER_RESOLVED[:2]])
    table.context.set_offline(True)
    table.tap('#chainbox [data-move="resolve"]')
    expect(table.page.locator("body")).to_have_attribute("data-queued", "1", timeout=30_000)
    assert _stats(table, "p0.m0", 1000) <= 3
    expect(table.page.locator("body")).to_have_attribute("data-queued", "2", timeout=30_000)
    table.card("p1.m0")
    table.tap('#sheet-actions .action[data-label="Stop this attack"] button.big')
    expect(table.page.locator("body")).to_have_attribute("data-queued", "3", timeout=30_000)
    table.context.set_offline(False)
    n = len(BATTLE) + 3
    table.settled(n + 4)                    # table24: *Resolve* enters A's pass, owed (CHAIN-04), with it
    passed, resolved, stats, stop = stored(service.url, duel)[n:]
    assert (passed["kind"], passed["player"]) == ("priority_passed", 0)
    assert resolved["kind"] == "chain_link_resolved"
    assert (stats["kind"], stats["atk"], stats.get("cause")) == ("stats_changed", 1000, "p0.m1")
    assert (stop["kind"], stop.get("cause"), stop.get("player")) == ("attack_cancelled", "p0.m1", 0)
    assert not table.errors, table.errors
    table.close()


MIRROR_FORCE, POT = 44095762, 55144522


def test_offline_a_link_resolved_before_the_network_dropped_is_the_cause(service, browser):  # noqa: F811
    """The same with Magic Cylinder's resolution stored before the network dropped: the page reads
    the link that resolved off the board before it (the board keeps the chain, not what left it)."""
    events = [*BATTLE, ATTACK, *CYLINDER_RESOLVED]
    duel, table = _at(service, browser, "offline cause, stored", events)
    table.context.set_offline(True)
    table.card("p1.m0")
    expect(table.page.locator("#sheet-actions .hint")).to_contain_text("these moves are always possible")
    table.tap('#sheet-actions .action[data-label="Stop this attack"] button.big')
    expect(table.page.locator("body")).to_have_attribute("data-queued", "1", timeout=30_000)
    table.context.set_offline(False)
    table.settled(len(events) + 1)
    stop = stored(service.url, duel)[-1]
    assert (stop["kind"], stop.get("cause"), stop.get("player")) == ("attack_cancelled", "p0.m1", 0)
    assert not table.errors, table.errors
    table.close()


def _in_sight(table: Table, label: str) -> None:
    """The sheet's action of that label whole in the first screen as the sheet opens, then tapped."""
    expect(table.page.locator("#sheet-actions")).to_have_attribute("data-at", table.page.get_attribute("body", "data-events"))
    button = table.page.locator(f'#sheet-actions .action[data-label="{label}"] button.big')
    box = button.bounding_box() if button.evaluate("b => b.checkVisibility()") else None
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 740, f"{label!r} is a scroll away: {box}"
    table.sheet_action(label)


def test_a_whole_duel_at_360_counted_step_by_step(service, browser):  # noqa: F811
    """A whole duel as a scorekeeper records it at 360 × 740, from the start form to the win by LP,
    each step's taps counted (printed: the figures of bench/README.md), each action of a card's
    sheet in the first screen as the sheet opens, no entry flagged. Pot of Greed's draw of 2 is
    *Draw 1* twice, by Pot of Greed (TURN-02): the bar's draw was the turn player's with no cause,
    flagged, so it was typed in *Something else…* (six taps)."""
    duel = create(service.url, title="a whole duel, counted", mode="witnessed")
    table = Table(browser, duel["record"]["recorder"], width=360)
    table.page.set_viewport_size({"width": 360, "height": 740})
    taps: dict[str, int] = {}
    n = 0

    def step(name: str, more: int, *moves: str) -> None:
        nonlocal n
        for move in moves:
            table.tap(f'[data-move="{move}"]')
        n += more
        table.settled(n)
        taps[name] = taps.get(name, 0) + table.taps - mark[0]
        mark[0] = table.taps

    mark = [0]
    table.page.fill("#name0", "A")
    table.page.fill("#name1", "B")
    table.taps += 2
    table.tap("#start")
    step("start form", 5)
    step("turn 1 to Main Phase 1", 4, "next-turn", "phase-draw", "phase-standby", "phase-main1")
    table.name("p0.m0", VORSE)
    _in_sight(table, "Normal Summon")
    step("Normal Summon (named)", 1)
    table.name("p0.m1", MIRROR_FORCE)
    _in_sight(table, "Set (Spell/Trap)")
    step("Set a Trap (named)", 1)
    step("end, next turn, draw", 5, "phase-end", "next-turn", "phase-draw", "draw-card", "phase-standby")
    step("to Main Phase 1", 1, "phase-main1")
    table.name("p1.m0", WARWOLF)
    _in_sight(table, "Normal Summon")
    step("Normal Summon (named)", 1)
    hand = table.page.evaluate("window.ygoreplay.recorder.board.players[1].hand.map(c => c.id)")
    table.name(hand[0], POT)
    _in_sight(table, "Activate")
    step("chain link 1 (a Spell named)", 1)
    table.card("p0.m2")
    _in_sight(table, "Send it to the GY to activate (cost)")
    step("chain link 2 (a hand trap)", 1)
    for move in ("pass", "pass", "resolve", "resolve"):
        table.tap(f'#chainbox [data-move="{move}"]')
        n += 1
        table.settled(n)
    step("chain resolved", 0)
    step("Pot of Greed's draw of 2", 2, "draw-card", "draw-card")       # by the link just resolved
    drawn = stored(service.url, duel)[-2:]
    assert [(e["kind"], e["player"], e.get("cause")) for e in drawn] == [("cards_drawn", 1, hand[0])] * 2
    table.tap('#chainbox [data-move="chain-over"]')
    step("chain over", 2)
    step("to Battle Phase", 1, "phase-battle")
    table.card("p1.m0")
    _in_sight(table, "Attack")
    step("attack", 2)
    step("damage", 1, "step-damage")
    for kind in ("damage_calculated", "life_points_changed", "card_moved"):    # the bar's, Vorse to the GY the last
        table.move(kind)
        step("damage", 1)
    step("end, next turn", 2, "phase-end", "next-turn")
    table.keypad(1, 8000, "effect_damage")
    step("effect damage of 8000", 1)
    table.move("duel_ended")
    step("win by LP", 1)
    last = stored(service.url, duel)[-1]
    assert (last["kind"], last["winner"]) == ("duel_ended", 0)
    print("\\nTAPS", taps, "total", sum(taps.values()))
    lines = httpx.get(f"{service.url}/duels/{duel['id']}/events", headers=auth(duel["tokens"]["judge"])).text.splitlines()
    flagged = [json.loads(line)["flags"] for line in lines if '"flags": [{' in line]
    assert flagged == [], "every entry as the rules allow"
    assert not table.errors, table.errors
    table.close()
