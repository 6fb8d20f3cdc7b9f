"""The scorekeeper's page at a paper table (Debian's chromium, a 360 × 740 phone), twenty-fourth
pass: where the scorekeeper still lost time at the speed of play.

- A chain of two links took four taps to resolve (*Pass*, *Pass*, *Resolve*, *Resolve*): at the
  table nobody says "pass" out loud, the chain just resolves. *Resolve* enters the passes the
  chain still needs (CHAIN-04: both players, in succession) with the last link's resolution, one
  tap a link; *Resolve all n, last link first* resolves the whole chain as declared in one tap
  (CHAIN-05: reverse order). Every pass and every link is still an entry of its own: the judge
  reads the same record.
- Naming a card took three taps (the card, its letters, the pick) even for a card the duel had
  shown already (a second copy): an unnamed card's sheet opens on the
  duel's likely names, one tap each, from this page's own view of the board, so no name of a
  card hidden from the page's viewer is ever offered (a player's device is not offered the
  opponent's Set card)."""
from __future__ import annotations

import json

import httpx

import pytest

from test_browser import browser, service  # noqa: F401  (the fixtures)
from test_browser_record import Table, stored
from test_browser_table_22 import VORSE
from test_browser_table_23b import MIRROR_FORCE, POT, START, WARWOLF, _at, _in_sight
from test_service import auth, create

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect


class Duel:
    """The whole duel of ``test_browser_table_23b`` as a scorekeeper records it, step by step,
    each step's taps counted."""

    def __init__(self, service, browser) -> None:  # noqa: F811
        self.service = service
        self.duel = create(service.url, title="a whole duel, counted", mode="witnessed")
        self.table = Table(browser, self.duel["record"]["recorder"], width=360)
        self.table.page.set_viewport_size({"width": 360, "height": 740})
        self.taps: dict[str, int] = {}
        self.n = 0
        self.mark = 0

    def step(self, name: str, more: int, *moves: str) -> None:
        for move in moves:
            self.table.tap(f'[data-move="{move}"]')
        self.n += more
        self.table.settled(self.n)
        self.taps[name] = self.taps.get(name, 0) + self.table.taps - self.mark
        self.mark = self.table.taps

    def to_the_chain(self) -> str:
        """From the start form to B's Pot of Greed (link 1) answered by A's hand trap (link 2);
        Pot's card id."""
        table = self.table
        table.page.fill("#name0", "A")
        table.page.fill("#name1", "B")
        table.taps += 2
        table.tap("#start")
        self.step("start form", 5)
        self.step("turn 1 to Main Phase 1", 4, "next-turn", "phase-draw", "phase-standby", "phase-main1")
        table.name("p0.m0", VORSE)
        _in_sight(table, "Normal Summon")
        self.step("Normal Summon (named)", 1)
        table.name("p0.m1", MIRROR_FORCE)
        _in_sight(table, "Set (Spell/Trap)")
        self.step("Set a Trap (named)", 1)
        self.step("end, next turn, draw", 5, "phase-end", "next-turn", "phase-draw", "draw-card", "phase-standby")
        self.step("to Main Phase 1", 1, "phase-main1")
        table.name("p1.m0", WARWOLF)
        _in_sight(table, "Normal Summon")
        self.step("Normal Summon (named)", 1)
        pot = table.page.evaluate("window.ygoreplay.recorder.board.players[1].hand.map(c => c.id)")[0]
        table.name(pot, POT)
        _in_sight(table, "Activate")
        self.step("chain link 1 (a Spell named)", 1)
        table.card("p0.m2")
        _in_sight(table, "Send it to the GY to activate (cost)")
        self.step("chain link 2 (a hand trap)", 1)
        return pot

    def flagged(self) -> list:
        lines = httpx.get(f"{self.service.url}/duels/{self.duel['id']}/events",
                          headers=auth(self.duel["tokens"]["judge"])).text.splitlines()
        return [json.loads(line)["flags"] for line in lines if '"flags": [{' in line]


def test_resolve_all_resolves_a_two_link_chain_in_one_tap_last_link_first(service, browser):  # noqa: F811
    """The whole duel of table23b at 360 × 740, its chain resolved with *Resolve all 2, last link
    first*: one tap (four before), the record the same entries as four taps made (both passes,
    link 2 then link 1); the damage calculation's results (A's LP, Vorse to the GY) in one tap
    (two before), the same two entries. No entry flagged. The figures printed are
    bench/README.md's."""
    d = Duel(service, browser)
    table = d.table
    pot = d.to_the_chain()
    all_ = table.page.locator('#chainbox [data-move="resolve-all"]')
    expect(all_).to_have_text("Resolve all 2, last link first")
    box = all_.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 740, "in sight with the chain's state"
    start = d.n
    d.step("chain resolved", 4, "resolve-all")
    resolved = stored(service.url, d.duel)[start:]
    assert [(e["kind"], e.get("player"), e.get("link")) for e in resolved] == [
        ("priority_passed", 1, None), ("priority_passed", 0, None),      # A chained: B holds priority (PRIO-03)
        ("chain_link_resolved", None, 2), ("chain_link_resolved", None, 1)]
    expect(all_).to_be_hidden()
    d.step("Pot of Greed's draw of 2", 2, "draw-card", "draw-card")   # by the link resolved last: Pot
    drawn = stored(service.url, d.duel)[-2:]
    assert [(e["kind"], e["player"], e.get("cause")) for e in drawn] == [("cards_drawn", 1, pot)] * 2
    table.tap('#chainbox [data-move="chain-over"]')
    d.step("chain over", 2)
    d.step("to Battle Phase", 1, "phase-battle")
    table.card("p1.m0")
    _in_sight(table, "Attack")
    d.step("attack", 2)
    d.step("damage", 1, "step-damage")
    table.move("damage_calculated")
    d.step("damage", 1)
    n = d.n
    d.step("damage", 2, "battle-results")          # the LP change and Vorse to the GY, one tap
    results = stored(service.url, d.duel)[n:]
    assert [(e["kind"], e.get("reason")) for e in results] == [("life_points_changed", "battle_damage"),
                                                              ("card_moved", "battle")]
    d.step("end, next turn", 2, "phase-end", "next-turn")
    table.keypad(1, 8000, "effect_damage")
    d.step("effect damage of 8000", 1)
    table.move("duel_ended")
    d.step("win by LP", 1)
    print("\nTAPS", d.taps, "total", sum(d.taps.values()))
    assert d.taps["chain resolved"] == 1
    assert d.taps["damage"] == 3
    assert sum(d.taps.values()) == 47, "table23b's duel: 51 taps, its chain's four now one, its damage's four three"
    assert d.flagged() == [], "every entry as the rules allow"
    assert not table.errors, table.errors
    table.close()


def test_resolve_is_one_tap_a_link_the_pass_it_needs_entered_with_it(service, browser):  # noqa: F811
    """B passes on A's hand trap (the record states passes from then on: CHAIN-04 is checked); at
    the table A's pass goes unsaid and the chain resolves. *Resolve* enters A's pass with link 2, a
    second *Resolve* link 1 with no pass (the chain is resolving): one tap a link, nothing
    flagged. Before, the resolution went in after one pass, flagged CHAIN-04, unless *Pass* was
    tapped again."""
    d = Duel(service, browser)
    d.to_the_chain()
    start = d.n
    d.step("B passes", 1, "pass")
    d.step("link 2", 2, "resolve")
    d.step("link 1", 1, "resolve")
    resolved = stored(service.url, d.duel)[start:]
    assert [(e["kind"], e.get("player"), e.get("link")) for e in resolved] == [
        ("priority_passed", 1, None), ("priority_passed", 0, None),
        ("chain_link_resolved", None, 2), ("chain_link_resolved", None, 1)]
    assert d.taps["link 2"] == d.taps["link 1"] == 1
    assert d.flagged() == []
    assert not d.table.errors, d.table.errors
    d.table.close()


#: A's Vorse Raider summoned and sent to the GY by battle, Mirror Force Set (named by the
#: recorder, so its name is the recorder's and the judge's, not B's); A's turn 3 to Main Phase 1.
SECOND_COPY = [*START, {"kind": "normal_summoned", "player": 0, "card": "p0.m0", "zone": 2, "shows": {"p0.m0": VORSE}},
               {"kind": "spell_trap_set", "player": 0, "card": "p0.m1", "zone": 0, "shows": {"p0.m1": MIRROR_FORCE}},
               {"kind": "card_moved", "card": "p0.m0", "to": [0, "gy"], "cause": "p0.m0"},
               {"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "player": 1, "turn": 2},
               {"kind": "phase_entered", "phase": "draw"}, {"kind": "cards_drawn", "player": 1},
               *({"kind": "phase_entered", "phase": phase} for phase in ("standby", "main1"))]


def test_a_card_the_duel_showed_is_named_in_one_tap_and_no_hidden_card_is_offered(service, browser):  # noqa: F811
    """A's second Vorse Raider: its sheet opens on the duel's likely names, A's cards the board shows
    named (Vorse Raider in the GY) first, and one tap names it: two taps with the card's (three before: the card, its letters,
    the pick). A player's device is offered what its view shows (Vorse Raider in A's GY) and
    never A's Set Mirror Force, which the recorder named: a face-down card has no name in B's
    view, and none is offered, before a letter is typed or after."""
    duel, table = _at(service, browser, "a second copy", SECOND_COPY)
    card = table.page.evaluate("window.ygoreplay.recorder.board.players[0].hand.map(c => c.id)")[0]
    before = table.taps
    table.card(card)
    chip = table.page.locator(f'#suggestions [data-code="{VORSE}"]')
    expect(chip).to_be_visible()
    offered = [int(c) for c in table.page.locator("#suggestions [data-code]").evaluate_all("bs => bs.map(b => b.dataset.code)")]
    assert set(offered[:2]) == {VORSE, MIRROR_FORCE}, "A's cards first (the recorder named Mirror Force: its view knows it)"
    table.tap(f'#suggestions [data-code="{VORSE}"]')
    expect(table.page.locator("#sheet-actions")).to_have_attribute("data-shows", f"{card}:{VORSE}", timeout=30_000)
    assert table.taps - before == 2
    table.close()
    # B's device: its own hand card's sheet, in its own view
    b = Table(browser, duel["record"]["p1"], width=360)
    b.page.set_viewport_size({"width": 360, "height": 740})
    b.settled(len(SECOND_COPY))
    assert b.page.evaluate("window.ygoreplay.recorder.board.players[0].szone[0].code") in (None, 0)
    mine = b.page.evaluate("window.ygoreplay.recorder.board.players[1].hand.map(c => c.id)")[0]
    b.card(mine)
    expect(b.page.locator(f'#suggestions [data-code="{VORSE}"]')).to_be_visible()
    offered = b.page.locator("#suggestions [data-code]").evaluate_all("bs => bs.map(b => b.dataset.code)")
    assert str(MIRROR_FORCE) not in offered, "A's Set card is hidden from B"
    b.page.fill("#name-input", "Mirror")
    expect(b.page.locator("#suggestions .suggestion").first).to_be_visible()
    assert "Mirror Force" not in b.page.locator("#suggestions .own").all_inner_texts(), "not as one of the duel's own"
    b.close()
