"""A whole paper duel recorded in Japanese (OCG, ``ja``) on a phone (360 px) by a tournament
scorekeeper, as the Traditional Chinese pass did (test_recorder_zh_hant, whose helpers it reuses):
the shared BabelCDB installed (English names only: the card data holds no Japanese names), both
players' devices witnessing, a chain of 3 with a hand trap, a Set monster flipped, a Trap Set and
activated in the opponent's turn, an Xyz Summon with its materials, battle damage, a correction, a
judge call, an entry made offline and the duel won by LP 0. What tripped the scorekeeper, each
fixed and checked here:

- offline (or with entries still waiting) a monster's sheet offered no attack (BATTLE-02): a
  Battle Phase played as the network dropped was typed in その他… field by field;
- at LP 0 the end offered said 山田の勝利（lp）: the JSON word, in every language;
- 灰流 typed in the name box showed nothing, and nothing said that the English name or the
  passcode is what finds a card when no names in the page's language are installed.
Taps per action are printed (figures, not timed assertions).
"""
from __future__ import annotations

import json

import httpx
import pytest

from test_browser import SHOTS, browser  # noqa: F401  (the fixture)
from test_browser_record import Table, no_overflow, stored
from test_recorder_zh_hant import (ASH, CALLED, ENGAGE, STRATOS, at_a_paper_table, latin, serving, sheet,
                                   with_cards)
from test_service import auth, create

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect

SPY, CELTIC, UTOPIA, IMPERMANENCE = 24317029, 91152256, 84013237, 10045474
LANG = "ja"


@pytest.fixture(scope="module")
def cards_folder(tmp_path_factory):
    """A data folder with the modern card database installed (its names are English)."""
    return with_cards(tmp_path_factory.mktemp("ja-cards"))


@pytest.fixture(scope="module")
def service(cards_folder):
    yield from serving(cards_folder)


def test_a_paper_duel_recorded_in_japanese_to_lp_0(service, browser):  # noqa: F811
    duel, keeper, players = at_a_paper_table(service, browser, "大阪地区大会 5番テーブル", ("山田", "佐藤"), LANG)
    page = keeper.page
    keeper.phases("next-turn", "phase-draw", "phase-standby", "phase-main1")

    # turn 1 (山田): Engage, Ash Blossom from 佐藤's hand, Called by the Grave: a chain of 3
    keeper.act("activation", sheet("Activate"), names=[("p0.m0", "Engage", ENGAGE)])
    keeper.act("chain response", sheet("Send it to the GY to activate (cost)"), names=[("p1.m0", "14558127", ASH)])
    keeper.act("chain response", sheet("Activate"), names=[("p0.m1", "Called", CALLED)])
    keeper.resolved(3, more=3)
    keeper.act("Set (monster)", '#board .card[data-card="p0.m2"]', sheet("Set (monster)"))
    keeper.act("Set (Spell/Trap)", '#board .card[data-card="p0.m3"]', sheet("Set (Spell/Trap)"))
    keeper.phases("phase-end")

    # turn 2 (佐藤): Stratos; 山田 answers its effect with the Trap Set on turn 1
    keeper.phases("next-turn", "phase-draw", "draw-card", "phase-standby", "phase-main1")
    keeper.act("Normal Summon", sheet("Normal Summon"), names=[("p1.m1", "Stratos", STRATOS)])
    keeper.act("activation", '#board .card[data-card="p1.m1"]', sheet("Activate an effect"))
    keeper.act("chain response", sheet("Activate"), names=[("p0.m3", "Impermanence", IMPERMANENCE)])
    keeper.resolved(2, more=2)                                           # and Impermanence to the GY
    keeper.phases("phase-battle")
    keeper.attacks("p1.m1", "Attack directly")
    expect(page.locator('#lp-who .lp-head[data-player="0"] .lp')).to_have_text("6200")
    keeper.phases("phase-main2", "phase-end")

    # turn 3 (山田): Gravekeeper's Spy flipped, Celtic Guardian, Utopia by its materials
    keeper.phases("next-turn", "phase-draw", "draw-card", "phase-standby", "phase-main1")
    keeper.act("Flip Summon", sheet("Flip Summon"), names=[("p0.m2", "Gravekeeper's Spy", SPY)])
    keeper.act("Normal Summon", sheet("Normal Summon"), names=[("p0.m4", "Celtic", CELTIC)])
    page.locator("#side-bottom details.pilelist summary").nth(2).click()
    keeper.act("Xyz Summon", sheet("Xyz Summon"), names=[("p0.x0", "Utopia", UTOPIA)])
    assert stored(service.url, duel)[-1]["materials"] == ["p0.m2", "p0.m4"]

    # a coin nobody tossed, tapped by mistake: 佐藤 points it out, the keeper takes it back
    keeper.act("mis-tap", "#chance button")
    keeper.act("undo", "#undo")
    # 佐藤 says Utopia's Rank does not fit: the judge is called, one tap and why
    keeper.table.tap("#call-button")
    page.fill("#call-reason", "エクシーズ素材のレベル")
    keeper.act("judge call", "#call button[type=submit]")

    # the network drops as 山田 goes to battle: queued, sent on return
    keeper.table.context.set_offline(True)
    expect(page.locator("#conn")).to_have_text("オフライン")
    before = keeper.table.taps
    keeper.table.tap('[data-move="phase-battle"]')
    keeper.table.tap('#board .card[data-card="p0.x0"]')
    keeper.table.tap(sheet("Attack"))                                 # none offline: typed in その他… field by field
    expect(page.locator("#entries li.queued")).to_have_count(2)
    keeper.taps["offline: Battle Phase and attack"] = [keeper.table.taps - before]
    keeper.table.context.set_offline(False)
    keeper.settled(3)                                                  # the Battle Step entered before the attack
    assert stored(service.url, duel)[-1]["target"] == "p1.m1"
    keeper.phases("step-damage")
    keeper.act("damage", '#moves [data-kind="damage_calculated"]')
    keeper.act("damage", '#moves [data-kind="life_points_changed"]')
    expect(page.locator('#lp-who .lp-head[data-player="1"] .lp')).to_have_text("7300")
    keeper.act("send to the GY", '#board .card[data-card="p1.m1"]', sheet("Send to the GY"))
    keeper.phases("phase-main2", "phase-end")

    # turn 4 (佐藤) passes; turn 5 (山田): Utopia attacks directly, then a burn takes the rest
    keeper.phases("next-turn", "phase-draw", "draw-card", "phase-standby", "phase-main1", "phase-end")
    keeper.phases("next-turn", "phase-draw", "draw-card", "phase-standby", "phase-main1", "phase-battle")
    keeper.attacks("p0.x0", "Attack directly")
    keeper.phases("phase-main2")
    keeper.act("LP change", '#lp-keys [data-key="4"]', '#lp-keys [data-key="8"]',
               '#lp-ops [data-op="effect_damage"][data-player="1"]')
    end = page.locator('#moves [data-kind="duel_ended"]')
    expect(end).to_have_text("山田の勝利（LPが0になった）")                 # was 山田の勝利（lp）
    keeper.act("duel over", '#moves [data-kind="duel_ended"]')
    ended = stored(service.url, duel)[-1]
    assert (ended["kind"], ended["winner"], ended["reason"]) == ("duel_ended", 0, "lp"), ended
    no_overflow(page)
    page.screenshot(path=str(SHOTS / "recorder-duel-ja-360.png"), full_page=True)
    assert not page.locator("#entries .flag").all_inner_texts()
    said = latin(page.locator("#entries li, #bar, #chainbox, #lp, .extras, #title, #conn, #status, #board").all_inner_texts(),
                 {"Sky Striker Mobilize - Engage!", "Ash Blossom & Joyous Spring", "Called by the Grave", "Gravekeeper's Spy",
                  "Infinite Impermanence", "Elemental HERO Stratos", "Celtic Guardian", "Number 39: Utopia"})
    assert said in ([], ["EX"]), said                                  # EXデッキ, as OCG players write it

    # each player's device saw the duel, its own hand only
    for p, device in enumerate(players):
        device.settled(keeper.events)
        hand = device.page.evaluate(f"window.ygoreplay.recorder.board.players[{1 - p}].hand")
        assert not [card for card in hand if card.get("code")], hand
        no_overflow(device.page)
        device.close()
    counted = {action: (len(taps), sum(taps) / len(taps)) for action, taps in keeper.taps.items()}
    print("\ntaps per action (count, mean):", json.dumps(counted, ensure_ascii=False))


def test_offline_a_monster_attacks_from_its_sheet(service, browser):  # noqa: F811
    """BATTLE-02: the network dropped as the Battle Phase began; the sheet's offline list had no
    attack, so the scorekeeper typed it in その他… field by field (card ids and all)."""
    duel = create(service.url, title="offline", mode="witnessed")
    events = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["山田", "佐藤"], "witnessed": True},
              *({"kind": "deck_registered", "player": p, "main": [0] * 40} for p in (0, 1)),
              *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
              {"kind": "turn_started", "player": 0, "turn": 1}, {"kind": "phase_entered", "phase": "draw"},
              {"kind": "phase_entered", "phase": "standby"}, {"kind": "phase_entered", "phase": "main1"},
              {"kind": "normal_summoned", "player": 0, "card": "p0.m0", "zone": 0, "shows": {"p0.m0": CELTIC}},
              {"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "player": 1, "turn": 2},
              {"kind": "phase_entered", "phase": "draw"}, {"kind": "cards_drawn", "player": 1},
              {"kind": "phase_entered", "phase": "standby"}, {"kind": "phase_entered", "phase": "main1"},
              {"kind": "normal_summoned", "player": 1, "card": "p1.m0", "zone": 0, "shows": {"p1.m0": STRATOS}}]
    r = httpx.post(f"{service.url}/duels/{duel['id']}/events", json=events, headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    keeper = Table(browser, duel["record"]["recorder"] + f"&lang={LANG}", width=360)
    keeper.settled(len(events))
    keeper.context.set_offline(True)
    keeper.tap('[data-move="phase-battle"]')
    keeper.tap('#board .card[data-card="p1.m0"]')
    expect(keeper.page.locator(sheet("Attack directly"))).to_have_text("直接攻撃")
    keeper.tap(sheet("Attack"))                                       # Celtic Guardian, the only target
    expect(keeper.page.locator("#entries li.queued")).to_have_count(2)
    keeper.context.set_offline(False)
    keeper.settled(len(events) + 3)                                   # the Battle Step entered before it
    attack = stored(service.url, duel)[-1]
    assert (attack["kind"], attack["attacker"], attack["target"]) == ("attack_declared", "p1.m0", "p0.m0"), attack
    keeper.close()


def started(service, browser, title: str) -> Table:  # noqa: F811
    """A duel between 山田 and 佐藤 started on the scorekeeper's phone, the hands drawn."""
    duel = create(service.url, title=title, mode="witnessed")
    keeper = Table(browser, duel["record"]["recorder"] + f"&lang={LANG}", width=360)
    keeper.page.fill("#name0", "山田")
    keeper.page.fill("#name1", "佐藤")
    keeper.tap("#start")
    keeper.settled(5)
    return keeper


def test_a_name_typed_in_japanese_says_what_the_name_box_finds(service, browser):  # noqa: F811
    """No Japanese names are installed (the card data holds none): 灰流 typed in the name box
    showed nothing at all, and nothing said that English names and passcodes are what it finds."""
    keeper = started(service, browser, "names")
    keeper.card("p1.m0")
    keeper.page.fill("#name-input", "灰流")
    expect(keeper.page.locator("#suggestions .hint")).to_contain_text("英語名かパスワード", timeout=15_000)   # once names came
    keeper.page.fill("#name-input", str(ASH))                          # the passcode finds it
    expect(keeper.page.locator(f'#suggestions [data-code="{ASH}"]')).to_have_text("Ash Blossom & Joyous Spring")
    keeper.close()


def test_a_card_named_for_the_next_entry_is_said_in_words_not_by_its_id(service, browser):  # noqa: F811
    """The sheet said 次の記録で公開：p0.m0 は Ash Blossom…: the record's id of the card, which
    means nothing at the table; it says whose card and where."""
    keeper = started(service, browser, "named")
    keeper.card("p0.m0")
    keeper.page.fill("#name-input", str(ASH))
    keeper.tap(f'#suggestions [data-code="{ASH}"]')
    named = keeper.page.locator("#named")
    expect(named).to_have_text("次の記録で公開：山田 の手札のカード は Ash Blossom & Joyous Spring", timeout=15_000)
    keeper.close()
