"""A whole paper duel recorded in Japanese on a phone (360 px) at an OCG table, as the Korean pass
did (test_recorder_korean), with a dispute the scorekeeper calls the judge for; a spot check in
Simplified Chinese. What tripped the scorekeeper, each fixed and checked here: there was no way
to call the judge from the table (a judge call, ``access.CALL``: one tap and what is disputed,
found by the judge on the viewer's timeline and log); a call tapped by mistake could not be
undone (LOG-12 held it as a judge's word); *Something else…* opened mid-duel on "Duel started",
which a duel under way can never take (an Enter at once was refused); the rule sets were offered
as JSON names (``nmr2017``)."""
from __future__ import annotations

import re

import pytest

from test_browser import SHOTS, browser, service  # noqa: F401  (the fixtures)
from test_browser_record import Table, no_overflow, stored
from test_recorder_korean import ALEXANDRITE, CELTIC, MIRROR_FORCE
from test_release import auth, client, store  # noqa: F401  (fixtures)
from test_service import create
from test_service_table_recording import at_the_table
from ygoreplay import sentences
from ygoreplay.rulesets import RULESETS

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect
CARD_NAMES = {"Celtic Guardian", "Alexandrite Dragon", "Mirror Force"}     # the card database's names


def latin(texts: list[str]) -> list[str]:
    """Words in Latin letters the page shows but card names, ids (p0.m0) and LP."""
    found = set()
    for text in texts:
        for name in CARD_NAMES:
            text = text.replace(name, "")
        found.update(w for w in re.findall(r"[A-Za-z][A-Za-z_]+", text) if w != "LP" and not re.fullmatch(r"p[01]", w))
    return sorted(found)


def test_a_paper_duel_recorded_in_japanese_with_a_judge_call(service, browser):  # noqa: F811
    duel = create(service.url, title="大阪地区大会 5番テーブル", mode="witnessed")
    table = Table(browser, duel["record"]["recorder"] + "&lang=ja", width=360)
    page, events = table.page, 0

    def moves(*names: str, more: int = 1) -> None:
        nonlocal events
        for name in names:
            if name:
                table.tap(f'[data-move="{name}"]')
            events += more
            table.settled(events)

    page.fill("#name0", "健太")
    page.fill("#name1", "美咲")
    table.tap("#start")
    moves("", more=5)
    moves("next-turn", "phase-draw", "phase-standby", "phase-main1")
    table.name("p0.m0", CELTIC)
    table.sheet_action("Normal Summon")
    moves("")
    table.name("p0.m1", MIRROR_FORCE)
    table.sheet_action("Set (Spell/Trap)")
    moves("")

    # Something else… mid-duel: not on "Duel started"; the rule sets named in Japanese
    table.tap("#else-button")
    expect(page.locator("#else-kind")).to_have_value("card_moved")
    page.select_option("#else-kind", "duel_started")
    expect(page.locator('#else-fields [name="ruleset"] option[value="\\"nmr2017\\""]')).to_have_text("新マスタールール（2017）")
    table.tap("#else-discard")

    moves("phase-end", "next-turn", "phase-draw", "draw-card", "phase-standby", "phase-main1")
    table.name("p1.m0", ALEXANDRITE)
    table.sheet_action("Normal Summon")
    moves("", "phase-battle")
    table.card("p1.m0")
    table.sheet_action("Attack", "target", "p0.m0")
    moves("", more=2)
    table.card("p0.m1")                         # named by the table as it was Set: the page names it (LOG-05)
    table.sheet_action("Activate")
    moves("")
    for name in ("pass", "pass", "resolve"):
        table.tap(f'#chainbox [data-move="{name}"]')
        moves("")
    table.tap('#chainbox [data-move="chain-over"]')
    moves("", more=2)

    # 美咲 says Mirror Force came too late: the scorekeeper calls the judge, one tap and why
    table.tap("#call-button")
    page.fill("#call-reason", "ミラーフォースの発動タイミング")
    table.tap("#call button[type=submit]")
    moves("")
    call = events - 1
    assert stored(service.url, duel)[-1] == {"kind": "judge_note", "judge": "", "note": "ミラーフォースの発動タイミング",
                                             "category": "call", "entered_by": "recorder"}
    expect(page.locator(f'#entries li[data-i="{call}"]')).to_contain_text("記録係がジャッジを呼ぶ")
    table.tap("#call-button")                                   # tapped twice by mistake: undone
    page.fill("#call-reason", "もう一度")
    table.tap("#call button[type=submit]")
    moves("")
    table.tap("#undo")
    moves("")
    expect(page.locator(f'#entries li[data-i="{call + 1}"]')).to_have_class(re.compile("struck"))

    table.card("p1.m0")
    table.sheet_action("Send to the GY")
    moves("")
    moves("phase-end", "next-turn", "phase-draw", "draw-card", "phase-standby", "phase-main1", "phase-battle")
    table.card("p0.m0")
    table.sheet_action("Attack directly")
    moves("", more=2)
    moves("step-damage")
    table.move("damage_calculated")
    moves("")
    table.move("life_points_changed")
    moves("")
    table.something_else({"kind": "duel_ended", "reason": "surrender", "player": 1, "winner": 0})
    moves("")
    no_overflow(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "recorder-duel-ja-360.png"), full_page=True)
    assert not page.locator("#entries .flag").all_inner_texts()          # nothing the table did was flagged
    said = latin(page.locator("#entries li, #bar, #chainbox, #lp, .extras, #title, #conn, #status").all_inner_texts())
    assert said == [], said

    # the judge finds the call on the viewer's timeline and in its log
    page.goto(f"{service.url}/view/{duel['id']}?token={duel['tokens']['judge']}&lang=ja")
    expect(page.locator("#log li.call")).to_have_count(2)      # the one withdrawn stays, struck
    expect(page.locator("#marks .tick.call").first).to_have_attribute("title", f"#{call} でジャッジコール")

    # spot check, Simplified Chinese: the same form's choices in its words
    page.goto(f"{service.url}/record/{duel['id']}?token={duel['tokens']['recorder']}&lang=zh-Hans")
    page.wait_for_selector("body[data-ready=true]")
    table.tap("#else-button")
    page.select_option("#else-kind", "duel_started")
    expect(page.locator('#else-fields [name="ruleset"] option[value="\\"mr2020\\""]')).to_have_text("大师规则（2020年4月修订）")
    expect(page.locator("#call-button")).to_have_text("呼叫裁判")
    table.close()


@pytest.mark.parametrize("lang, said", [("ja", "マスタールール（2020年4月改訂）"), ("zh-Hans", "大师规则（2020年4月修订）")])
def test_the_rule_set_the_duel_began_under_is_named_in_words(client, lang, said):  # noqa: F811
    """The duel's first line, at the top of the recorder's entries, said its rule set's JSON key (mr2020)."""
    duel, recorder = at_the_table(client)
    frames = client.get(f"/duels/{duel['id']}/frames", params={"lang": lang}, headers=auth(recorder)).json()["frames"]
    assert said in frames[0]["line"] and "mr2020" not in frames[0]["line"], frames[0]["line"]
    named = getattr(sentences, "RULESET_NAMES", {})
    assert named == {name: rules.title for name, rules in RULESETS.items()}          # every rule set, by its title
