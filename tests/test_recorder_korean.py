"""A whole paper duel recorded in Korean on a phone (360 px) at an OCG tournament's table, as a
scorekeeper does it: both players' turns, summons, a Trap chained to an attack, a direct attack's
battle damage, a mis-entry undone, the duel's end. What such a scorekeeper tripped over, each
fixed and checked here: the *Something else…* form listed event kinds as JSON names
(``card_moved``), a match's kinds and a judge's among them (always refused), its choices as JSON
words (``surrender``); a queued entry's label named its kind so; an attack declared as the Battle
Phase began was entered without its Battle Step (BATTLE-02, flagged); the refusal of a kind the
link may not write, and the reason the page's Undo records, were English in every language."""
from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from test_browser import SHOTS, browser, service  # noqa: F401  (the fixtures)
from test_browser_record import Table, no_overflow, stored
from test_release import auth, client, store  # noqa: F401  (fixtures)
from test_service import create
from test_service_table_recording import at_the_table
from ygoreplay.events import EVENT_TYPES

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect
CELTIC, ALEXANDRITE, MIRROR_FORCE = 91152256, 43096270, 44095762
RECORD_JS = Path(__file__).resolve().parents[1] / "ygoreplay" / "viewer" / "record.js"
DUEL_KINDS = [kind for kind, cls in EVENT_TYPES.items() if cls.stream == "duel"]


class Scorekeeper:
    """The recorder's link on a phone, in Korean, counting the events the page holds."""

    def __init__(self, browser, duel: dict) -> None:  # noqa: F811
        self.table = Table(browser, duel["record"]["recorder"] + "&lang=ko", width=360)
        self.page = self.table.page
        self.events = 0

    def settled(self, more: int = 1) -> None:
        self.events += more
        self.table.settled(self.events)

    def moves(self, *moves: str) -> None:
        for move in moves:
            self.table.tap(f'[data-move="{move}"]')
            self.settled()


def played(service, browser, *entries) -> tuple[dict, Scorekeeper]:  # noqa: F811
    """A witnessed duel of 민수 and 지은 on turn 1's Main Phase 1, then ``entries`` (a phase by its
    name), entered over HTTP; its recorder's page open in Korean."""
    duel = create(service.url, title="table", mode="witnessed")
    events = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["민수", "지은"], "witnessed": True},
              *({"kind": "deck_registered", "player": p, "main": [0] * 40} for p in (0, 1)),
              *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
              {"kind": "turn_started", "player": 0, "turn": 1}, "draw", "standby", "main1", *entries]
    events = [{"kind": "phase_entered", "phase": e} if isinstance(e, str) else e for e in events]
    r = httpx.post(f"{service.url}/duels/{duel['id']}/events", params={"expected": 0}, json=events,
                   headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    keeper = Scorekeeper(browser, duel)
    keeper.events = len(events)
    keeper.table.settled(keeper.events)
    return duel, keeper


def kind_options(page) -> dict[str, str]:
    return dict(page.evaluate("[...document.querySelectorAll('#else-kind option')].map(o => [o.value, o.textContent])"))


def test_a_paper_duel_recorded_in_korean_on_a_phone(service, browser):  # noqa: F811
    duel = create(service.url, title="서울 지역 대회 3번 테이블", mode="witnessed")
    keeper = Scorekeeper(browser, duel)
    page, table = keeper.page, keeper.table
    page.fill("#name0", "민수")
    page.fill("#name1", "지은")
    table.tap("#start")
    keeper.settled(5)
    keeper.moves("next-turn", "phase-draw", "phase-standby", "phase-main1")

    # turn 1 (민수): a Normal Summon and a Set Trap, each named as the table sees it
    table.name("p0.m0", CELTIC)
    table.sheet_action("Normal Summon")
    keeper.settled()
    table.name("p0.m1", MIRROR_FORCE)
    table.sheet_action("Set (Spell/Trap)")
    keeper.settled()

    # the "Something else…" form: kinds by their Korean names, only those this link may write
    table.tap("#else-button")
    kinds = kind_options(page)
    assert kinds["card_moved"] == "카드 이동" and kinds["duel_ended"] == "듀얼 종료", kinds
    assert all(text != kind and "_" not in text for kind, text in kinds.items()), kinds
    assert set(kinds) <= set(DUEL_KINDS) and "match_started" not in kinds, sorted(kinds)
    assert "judge_note" not in kinds and "rolled_back" not in kinds     # a judge's: refused to a recorder
    page.select_option("#else-kind", "card_moved")
    reasons = page.locator('#else-fields [name="reason"] option[value="\\"destroyed\\""]')
    expect(reasons).to_have_text("파괴")
    no_overflow(page)
    page.locator("#else").evaluate("form => form.hidden = true")

    # turn 2 (지은): a summon, the Battle Phase, an attack answered by the Set Trap
    keeper.moves("phase-end", "next-turn", "phase-draw", "draw-card", "phase-standby", "phase-main1")
    table.name("p1.m0", ALEXANDRITE)
    table.sheet_action("Normal Summon")
    keeper.settled()
    keeper.moves("phase-battle")
    table.card("p1.m0")
    table.sheet_action("Attack", "target", "p0.m0")            # one tap: the Battle Step goes in with it
    keeper.settled(2)
    assert [(e["kind"], e.get("step")) for e in stored(service.url, duel)[-2:]] == [
        ("step_entered", "battle"), ("attack_declared", None)]
    table.card("p0.m1")                         # named by the table as it was Set: the page names it (LOG-05)
    table.sheet_action("Activate")
    keeper.settled()
    for move in ("pass", "pass", "resolve"):
        table.tap(f'#chainbox [data-move="{move}"]')
        keeper.settled()
    table.tap('#chainbox [data-move="chain-over"]')            # Mirror Force to the GY, then the end
    keeper.settled(2)
    table.card("p1.m0")
    table.sheet_action("Send to the GY")                       # destroyed by Mirror Force
    keeper.settled()

    # turn 3 (민수): a direct attack, its damage, a mis-entry undone
    keeper.moves("phase-end", "next-turn", "phase-draw", "draw-card", "phase-standby", "phase-main1", "phase-battle")
    table.card("p0.m0")
    table.sheet_action("Attack directly")
    keeper.settled(2)
    keeper.moves("step-damage")
    table.move("damage_calculated")
    keeper.settled()
    table.move("life_points_changed")
    keeper.settled()
    expect(page.locator('#lp-who .lp-head[data-player="1"] .lp')).to_have_text("6600")
    table.tap('#chance button')                                # a coin nobody tossed
    keeper.settled()
    table.tap("#undo")
    keeper.settled()
    undone = page.locator(f'#entries li[data-i="{keeper.events - 1}"]')
    expect(undone).to_contain_text("잘못된 입력: 기록원 페이지에서 취소")

    # a queued entry (the network cut) is labelled with its kind's Korean name
    table.context.set_offline(True)
    table.card("p0.m0")
    table.sheet_action("Send to the GY")
    queued = page.locator("#entries li.queued")
    expect(queued).to_contain_text("(카드 이동)")
    assert "card_moved" not in queued.inner_text()
    table.context.set_offline(False)
    keeper.settled()

    # the duel's end: 지은 surrenders, chosen from Korean words
    table.tap("#else-button")
    page.select_option("#else-kind", "duel_ended")
    expect(page.locator('#else-fields [name="reason"] option[value="\\"surrender\\""]')).to_have_text("서렌더")
    page.select_option('#else-fields [name="reason"]', label="서렌더")
    page.select_option('#else-fields [name="player"]', "1")
    page.select_option('#else-fields [name="winner"]', "0")
    no_overflow(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "recorder-duel-ko-360.png"), full_page=True)
    table.tap("#else button[type=submit]")
    keeper.settled()
    recorded = stored(service.url, duel)
    assert recorded[-1] == {"kind": "duel_ended", "player": 1, "winner": 0, "reason": "surrender", "entered_by": "recorder"}
    flags = [line for line in page.locator("#entries .flag").all_inner_texts()]
    assert not flags, flags                                    # nothing the table did was flagged
    table.close()


def test_every_duel_kind_has_its_name_on_the_recorders_page():
    """The page names each kind it may list (KIND_LABELS): a new kind without a name would be
    shown as its JSON name again."""
    text = RECORD_JS.read_text(encoding="utf-8")
    block = re.search(r"const KIND_LABELS = \{(.*?)\n\};", text, re.S)
    assert block, "record.js has no KIND_LABELS"
    named = set(re.findall(r"(\w+): N_\(", block.group(1)))
    assert named == set(DUEL_KINDS), sorted(set(DUEL_KINDS) ^ named)


@pytest.mark.parametrize("lang, said", [("ko", "recorder은(는) judge_note을(를) 기록할 수 없다"),
                                        ("ja", "recorderはjudge_noteを記録できない"),
                                        ("zh-Hans", "recorder不能写入judge_note"),
                                        ("zh-Hant", "recorder不能寫入judge_note")])
def test_a_kind_the_link_may_not_write_is_refused_in_the_readers_language(client, lang, said):  # noqa: F811
    """The 403 of a judge's kind sent with the recorder's token was English whatever ?lang= asked."""
    duel, recorder = at_the_table(client)
    r = client.post(f"/duels/{duel['id']}/events", params={"lang": lang},
                    json=[{"kind": "judge_note", "judge": "김", "note": "호출"}], headers=auth(recorder))
    assert r.status_code == 403, r.text
    assert r.json()["message"].startswith("a recorder may not write judge_note")
    assert r.json()["message_translated"].startswith(said), r.json()


def test_the_recorders_page_is_told_which_kinds_its_link_may_write(client):  # noqa: F811
    """/frames says which kinds the token may write (access.may_write): the recorder's no judge's
    kind and no match kind; the judge's its rollback."""
    duel, recorder = at_the_table(client)
    writes = {role: set(client.get(f"/duels/{duel['id']}/frames", headers=auth(token)).json()["writes"])
              for role, token in (("recorder", recorder), ("judge", duel["tokens"]["judge"]))}
    assert "card_moved" in writes["recorder"] and not writes["recorder"] & {"judge_note", "rolled_back", "match_started"}
    assert {"rolled_back", "judge_note"} <= writes["judge"]


def test_an_attack_tapped_as_the_battle_phase_begins_is_declared_in_its_battle_step(service, browser):  # noqa: F811
    """BATTLE-02: the scorekeeper taps *Battle Phase*, then the monster's *Attack directly*; the
    page entered the attack in the Start Step (flagged in a witnessed duel, refused otherwise).
    The Battle Step goes in with the attack, one tap, nothing flagged."""
    duel, keeper = played(service, browser, "end", {"kind": "turn_started", "player": 1, "turn": 2},
                          "draw", {"kind": "cards_drawn", "player": 1}, "standby", "main1",
                          {"kind": "normal_summoned", "player": 1, "card": "p1.m0", "zone": 0, "shows": {"p1.m0": ALEXANDRITE}})
    keeper.moves("phase-battle")
    keeper.table.taps = 0
    keeper.table.card("p1.m0")
    keeper.table.sheet_action("Attack directly")
    keeper.settled(2)
    assert keeper.table.taps == 2
    recorded = stored(service.url, duel)
    assert [(e["kind"], e.get("step")) for e in recorded[-2:]] == [("step_entered", "battle"), ("attack_declared", None)]
    frames = httpx.get(f"{service.url}/duels/{duel['id']}/frames", headers=auth(duel["tokens"]["judge"])).json()["frames"]
    assert not [f for f in frames if f.get("flags")], [f["flags"] for f in frames if f.get("flags")]
    keeper.table.close()


@pytest.mark.parametrize("lang, said", [("ko", "잘못된 입력: 기록원 페이지에서 취소"), ("ja", "誤入力：記録係のページで取り消し"),
                                        ("zh-Hans", "误输入：在记录员页面撤销"), ("zh-Hant", "誤輸入：在記錄員頁面復原")])
def test_the_pages_undo_is_logged_in_the_readers_language(client, lang, said):  # noqa: F811
    """The reason the page's Undo records stays English in the record; the log said it in
    English in every language."""
    duel, recorder = at_the_table(client, {"kind": "coin_tossed", "results": [True]})
    r = client.post(f"/duels/{duel['id']}/events", json=[
        {"kind": "entry_corrected", "to": 9, "reason": "mis-entry: undone on the recorder's page"}], headers=auth(recorder))
    assert r.status_code == 200, r.text
    frames = client.get(f"/duels/{duel['id']}/frames", params={"lang": lang}, headers=auth(recorder)).json()["frames"]
    assert said in frames[-1]["line"] and "mis-entry" not in frames[-1]["line"], frames[-1]["line"]


def test_a_card_sent_to_the_gy_while_offline_is_stored_as_sent(service, browser):  # noqa: F811
    """Offline, the sheet offers the moves any card can make; its *Send to the GY* was stored
    with the reason ``returned`` (the log said the card went back to the GY)."""
    duel, keeper = played(service, browser, {"kind": "normal_summoned", "player": 0, "card": "p0.m0", "zone": 0,
                                                   "shows": {"p0.m0": CELTIC}})
    keeper.table.context.set_offline(True)
    keeper.table.card("p0.m0")
    keeper.table.sheet_action("Send to the GY")
    keeper.table.context.set_offline(False)
    keeper.settled()
    last = stored(service.url, duel)[-1]
    assert (last["kind"], last["to"], last.get("reason", "sent")) == ("card_moved", [0, "gy"], "sent"), last
    keeper.table.close()


def test_the_duels_end_asks_for_the_winner_and_why_first(service, browser):  # noqa: F811
    """The end's form put its two required fields last, under ``player``, a cited text, a time and
    the cards shown (typed JSON): at 360 px the scorekeeper scrolled past three boxes never needed.
    What the kind needs comes first; the fields any event may carry are folded under *More fields*."""
    duel, keeper = played(service, browser, {"kind": "normal_summoned", "player": 0, "card": "p0.m0", "zone": 0,
                                                   "shows": {"p0.m0": CELTIC}})
    page = keeper.page
    keeper.table.tap("#else-button")
    page.select_option("#else-kind", "duel_ended")
    labels = page.locator("#else-fields > label")
    keys = [labels.nth(i).get_attribute("title") for i in range(labels.count())]
    assert keys[:2] == ["winner", "reason"], keys
    for folded in ("cite", "time", "shows"):
        expect(page.locator(f'#else-fields [name="{folded}"]')).to_be_hidden()
    expect(page.locator("#else-fields details.more summary")).to_have_text("필드 더 보기")
    page.select_option('#else-fields [name="winner"]', "1")
    page.select_option('#else-fields [name="reason"]', label="서렌더")
    page.select_option('#else-fields [name="player"]', "0")
    keeper.table.tap("#else button[type=submit]")
    keeper.settled()
    assert stored(service.url, duel)[-1] == {"kind": "duel_ended", "player": 0, "winner": 1, "reason": "surrender",
                                             "entered_by": "recorder"}
    keeper.table.close()


@pytest.mark.parametrize("lang, said", [("en", "rock-paper-scissors"), ("ko", "가위바위보"), ("ja", "じゃんけん"),
                                        ("zh-Hans", "猜拳"), ("zh-Hant", "猜拳")])
def test_how_the_first_player_was_chosen_is_said_in_words(client, lang, said):  # noqa: F811
    """The log's first line said who chose to go first and ``rps``, the JSON word, in every language."""
    duel, recorder = at_the_table(client)
    frames = client.get(f"/duels/{duel['id']}/frames", params={"lang": lang}, headers=auth(recorder)).json()["frames"]
    assert said in frames[0]["line"] and "rps" not in frames[0]["line"], frames[0]["line"]


def test_a_card_named_before_a_reload_is_still_named_after_it(service, browser):  # noqa: F811
    """The scorekeeper names the card a player reveals, the phone reloads (a locked screen, a
    dropped tab) before the summon is tapped: the name was lost and the summon stored an unknown
    card. The names picked for the next entry are kept in the browser, as the queue is."""
    duel, keeper = played(service, browser)
    keeper.table.name("p0.m1", CELTIC)
    keeper.table.open()                                                  # the page reloaded
    expect(keeper.page.locator("#named")).to_contain_text("Celtic Guardian")
    keeper.table.card("p0.m1")
    keeper.table.sheet_action("Normal Summon")
    keeper.settled()
    last = stored(service.url, duel)[-1]
    assert (last["kind"], last["card"], last.get("shows")) == ("normal_summoned", "p0.m1", {"p0.m1": CELTIC}), last
    expect(keeper.page.locator("#named")).to_have_text("")
    keeper.table.open()
    expect(keeper.page.locator("#named")).to_have_text("")               # used: not kept for another entry
    keeper.table.close()


def test_names_picked_for_a_next_entry_are_dropped_when_the_duel_ends(service, browser):  # noqa: F811
    """A shared phone goes from table to table: the names picked for an entry never made (a hand
    guessed as the duel ended on another device) stayed in the browser and on the page."""
    duel, keeper = played(service, browser)
    keeper.table.name("p0.m1", CELTIC)
    r = httpx.post(f"{service.url}/duels/{duel['id']}/events", params={"expected": keeper.events},
                   json=[{"kind": "duel_ended", "winner": 1, "reason": "surrender"}], headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    keeper.settled()
    expect(keeper.page.locator("#named")).to_have_text("")
    kept = keeper.page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('ygoreplay.named.'))")
    assert kept == [], kept
    keeper.table.close()


def test_a_half_filled_form_survives_a_reload_per_link_and_goes_once_entered(service, browser):  # noqa: F811
    """A phone locks with the *Something else…* form half-filled and the tab reloads: what was
    typed was lost. The draft is kept per duel and link, restored, dropped once entered or discarded."""
    duel, keeper = played(service, browser)
    page, table = keeper.page, keeper.table
    table.tap("#else-button")
    page.select_option("#else-kind", "coin_tossed")
    page.fill('#else-fields [name="results"]', "[true, false]")
    table.open()                                                          # the tab reloaded
    expect(page.locator("#else-kind")).to_have_value("coin_tossed")
    expect(page.locator('#else-fields [name="results"]')).to_have_value("[true, false]")
    page.goto(f"{service.url}/record/{duel['id']}?token={duel['tokens']['judge']}&lang=ko")   # another link: not its draft
    page.wait_for_selector("body[data-ready=true]")
    expect(page.locator("#else")).to_be_hidden()
    table.open()
    table.tap("#else button[type=submit]")
    keeper.settled()
    assert stored(service.url, duel)[-1]["results"] == [True, False]
    table.tap("#else-button")                                             # another, discarded
    page.select_option("#else-kind", "die_rolled")
    table.tap("#else-discard")
    table.open()
    expect(page.locator("#else")).to_be_hidden()
    table.close()


def test_a_judge_calls_reason_half_typed_survives_a_reload_and_goes_once_called(service, browser):  # noqa: F811
    """The call form keeps a draft as the other forms do: the reason typed, the phone locks, the
    tab reloads with the form open and the reason back; called, nothing is kept."""
    duel, keeper = played(service, browser)
    page, table = keeper.page, keeper.table
    table.tap("#call-button")
    page.fill("#call-reason", "미러포스 발동 타이밍")
    table.open()                                                          # the tab reloaded
    expect(page.locator("#call")).to_be_visible()
    expect(page.locator("#call-reason")).to_have_value("미러포스 발동 타이밍")
    table.tap("#call button[type=submit]")
    keeper.settled()
    assert stored(service.url, duel)[-1]["note"] == "미러포스 발동 타이밍"
    table.open()
    expect(page.locator("#call")).to_be_hidden()
    kept = page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('ygoreplay.draft.call.'))")
    assert kept == [], kept
    table.close()


def test_the_start_form_half_filled_survives_a_reload(service, browser):  # noqa: F811
    """The players' names typed, who goes first chosen, the phone locks: the start form came back empty."""
    duel = create(service.url, title="table", mode="witnessed")
    keeper = Scorekeeper(browser, duel)
    keeper.page.fill("#name0", "민수")
    keeper.page.check('input[name=first][value="1"]')
    keeper.table.open()                                                   # the tab reloaded
    expect(keeper.page.locator("#name0")).to_have_value("민수")
    expect(keeper.page.locator('input[name=first][value="1"]')).to_be_checked()
    keeper.page.fill("#name1", "지은")
    keeper.table.tap("#start")
    keeper.settled(5)
    assert stored(service.url, duel)[0]["first_player"] == 1
    kept = keeper.page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('ygoreplay.draft.'))")
    assert kept == [], kept
    keeper.table.close()
