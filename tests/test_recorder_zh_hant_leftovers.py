"""What the Traditional Chinese scorekeeper's duel (test_recorder_zh_hant) left: Traditional
characters typed in the name box against Simplified names, an Extra Deck monster offered back to
the hand, the damage line's "; " in CJK, the judge's name typed on every form, the Extra Deck size
typed every duel, alternate artworks suggested twice."""
from __future__ import annotations

import os
import subprocess
import sys

import httpx
import pytest

from conftest import shared_path
from test_browser import browser  # noqa: F401  (the fixture)
from test_recorder_zh_hant import cards_folder  # noqa: F401  (the fixture)
from test_release import client, store  # noqa: F401  (fixtures)
from test_browser_record import Table, stored
from test_service import Server, auth, create
from test_service_table_recording import CELTIC, UTOPIA, VORSE, at_the_table, offered, tapped

playwright_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright")
expect = playwright_api.expect

ODD_EYES = 16178681                                     # Odd-Eyes Pendulum Dragon, in the classic database


def _labels(client, duel: dict, card: str, shows: str) -> set[str]:  # noqa: F811
    r = client.get(f"/duels/{duel['id']}/actions", params={"card": card, "shows": shows},
                   headers=auth(duel["tokens"]["judge"]))
    assert r.status_code == 200, r.text
    return {a["label"] for a in r.json()["actions"]}


def test_an_extra_deck_monster_on_the_field_is_offered_back_to_the_extra_deck_not_the_hand(client):  # noqa: F811
    """ZONE-12: an Xyz monster returned goes to the Extra Deck; its sheet offered the hand and the Deck."""
    duel, recorder = at_the_table(
        client, {"kind": "normal_summoned", "player": 0, "card": "p0.m0", "zone": 2, "shows": {"p0.m0": VORSE}},
        {"kind": "special_summoned", "player": 0, "card": "p0.m1", "zone": 3, "method": "effect",
         "shows": {"p0.m1": CELTIC}})
    tapped(client, duel, recorder, offered(client, duel, "p0.x0", f"p0.x0:{UTOPIA}", "Xyz Summon")["event"])
    labels = _labels(client, duel, "p0.x0", f"p0.x0:{UTOPIA}")
    assert not {"Return to the hand", "Return to the Deck"} & labels, labels
    event = offered(client, duel, "p0.x0", f"p0.x0:{UTOPIA}", "Return to the Extra Deck")["event"]
    board = tapped(client, duel, recorder, event)                  # stored, nothing flagged
    record = client.get(f"/duels/{duel['id']}/state", headers=auth(duel["tokens"]["judge"])).json()["board"]
    assert "p0.x0" in [c and c["id"] for c in record["players"][0]["extra"]]
    # the table knew Utopia: its view names the Extra Deck anew as it goes in face-down
    extra = [c and c["id"] for c in board["players"][0]["extra"]]
    assert len(extra) == 15 and "p0.x0" not in extra and not [c for c in board["players"][0]["mzone"] if c], extra


def test_a_pendulum_monster_leaving_the_field_is_offered_to_the_extra_deck_face_up(client):  # noqa: F811
    """PEND-05: a Pendulum monster on the field would go to the GY: face-up to the Extra Deck instead."""
    duel, recorder = at_the_table(client, {"kind": "special_summoned", "player": 0, "card": "p0.m0", "zone": 2,
                                           "method": "effect", "shows": {"p0.m0": ODD_EYES}})
    assert "Send to the GY" not in _labels(client, duel, "p0.m0", f"p0.m0:{ODD_EYES}")
    event = offered(client, duel, "p0.m0", f"p0.m0:{ODD_EYES}", "Send to the Extra Deck face-up")["event"]
    assert event["position"] == "faceup", event
    board = tapped(client, duel, recorder, event)
    assert "p0.m0" in [c and c["id"] for c in board["players"][0]["extra"]]


@pytest.mark.parametrize("lang", ["zh-Hant", "zh-Hans", "ja"])
def test_the_damage_lines_clauses_are_separated_as_the_language_writes_it(client, lang):  # noqa: F811
    """The damage calculation's clauses were joined by "; " in every language (傷害計算：A; B)."""
    duel, recorder = at_the_table(client, {"kind": "normal_summoned", "player": 0, "card": "p0.m0", "zone": 2,
                                           "shows": {"p0.m0": VORSE}},
                                  {"kind": "phase_entered", "phase": "end"},
                                  {"kind": "turn_started", "player": 1, "turn": 2}, {"kind": "phase_entered", "phase": "draw"},
                                  {"kind": "cards_drawn", "player": 1}, {"kind": "phase_entered", "phase": "standby"},
                                  {"kind": "phase_entered", "phase": "main1"},
                                  {"kind": "normal_summoned", "player": 1, "card": "p1.m0", "zone": 0,
                                   "shows": {"p1.m0": CELTIC}},
                                  {"kind": "phase_entered", "phase": "battle"}, {"kind": "step_entered", "step": "battle"},
                                  {"kind": "attack_declared", "player": 1, "attacker": "p1.m0", "target": "p0.m0"},
                                  {"kind": "step_entered", "step": "damage"},
                                  {"kind": "damage_calculated", "damage": [0, 500], "destroyed": ["p1.m0"]})
    frames = client.get(f"/duels/{duel['id']}/frames", params={"lang": lang}, headers=auth(recorder)).json()["frames"]
    line = frames[-1]["line"]
    assert line.count("；") == 2 and "; " not in line, line


# -- in the browser, on the shared databases (test_recorder_zh_hant's service: zh-CN names for zh-Hant) --

KAGARI, RAYE, STRATOS, ASH = 63288573, 26077387, 40044918, 14558127
DARK_MAGICIAN, DARK_MAGICIAN_ART = 46986414, 36996508      # an alternate artwork: alias 46986414, same name


@pytest.fixture(scope="module")
def shared_service(cards_folder):  # noqa: F811
    """The zh-Hant service's data folder, the Chinese names installed for zh-Hans as well."""
    done = subprocess.run([sys.executable, "-m", "ygoreplay", "cards", "update", "--source",
                           str(shared_path("cards", "zh-CN-2019.cdb")), "--lang", "zh-Hans"],
                          env={**os.environ, "XDG_DATA_HOME": str(cards_folder)}, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    srv = Server(str(cards_folder / "leftovers.sqlite"), env={"XDG_DATA_HOME": str(cards_folder)})
    yield srv
    srv.stop()


def test_traditional_names_are_read_and_either_script_finds_a_name(cards_folder, monkeypatch):  # noqa: F811
    """The only Chinese database is Simplified: 閃刀 typed found nothing; a zh-Hant reader read 灰流丽."""
    from ygoreplay.card_names import find_codes, names_of
    monkeypatch.setenv("XDG_DATA_HOME", str(cards_folder))
    traditional = names_of("zh-Hant")
    assert traditional[ASH] == "灰流麗" and traditional[KAGARI] == "閃刀姬-燎裡", (traditional[ASH], traditional[KAGARI])
    codes = [find_codes(typed, "zh-Hant") for typed in ("閃刀姬-燎裡", "闪刀姬-燎里")]
    assert codes[0] == codes[1] and codes[0][0] == KAGARI, codes


def test_cards_json_folds_chinese_and_names_an_alternate_artwork_once(shared_service):
    """/cards.json for zh-Hant: names in Traditional, a table folding either script to one; Dark
    Magician's artworks were rows (and suggestions) of their own."""
    local = httpx.get(f"{shared_service.url}/cards.json", params={"lang": "zh-Hant"}, timeout=60).json()
    rows = {row[0]: row for row in local["cards"]}
    assert rows[ASH][1] == "灰流麗" and local["fold"]["閃"] == "闪" and local["fold"]["俠"] == "侠"
    assert DARK_MAGICIAN in rows and DARK_MAGICIAN_ART not in rows                 # the id the rules read kept
    english = httpx.get(f"{shared_service.url}/cards.json", params={"lang": "en"}, timeout=60).json()
    named = [row[0] for row in english["cards"] if row[1] == "Dark Magician"]    # its Token too: a card of its own
    assert DARK_MAGICIAN in named and DARK_MAGICIAN_ART not in named and "fold" not in english, named


def _recorder(browser, service, lang):  # noqa: F811
    duel = create(service.url, title="台北 第3桌", mode="witnessed")
    return duel, Table(browser, duel["record"]["recorder"] + f"&lang={lang}", width=360)


def _started(table) -> None:
    table.page.fill("#name0", "陳大文")
    table.page.fill("#name1", "林小美")
    table.tap("#start")
    table.settled(5)


@pytest.mark.parametrize("lang, typed, code, shown", [
    ("zh-Hant", "閃刀", KAGARI, "閃刀姬-燎裡"), ("zh-Hant", "天空俠", STRATOS, "元素英雄 天空俠"),
    ("zh-Hant", "灰流丽", ASH, "灰流麗"), ("zh-Hans", "閃刀", RAYE, "闪刀姬-零衣")])
def test_the_name_box_finds_a_chinese_name_typed_in_either_script(shared_service, browser, lang, typed, code, shown):  # noqa: F811
    """Traditional characters typed (閃刀, 天空俠) found nothing in the Simplified names."""
    _duel, table = _recorder(browser, shared_service, lang)
    _started(table)
    table.card("p0.m0")
    table.page.fill("#name-input", typed)
    expect(table.page.locator(f'#suggestions [data-code="{code}"]')).to_have_text(shown)
    table.close()


def test_an_alternate_artwork_is_suggested_once(shared_service, browser):  # noqa: F811
    _duel, table = _recorder(browser, shared_service, "en")
    _started(table)
    table.card("p0.m0")
    table.page.fill("#name-input", "Dark Magician")
    expect(table.page.locator(f'#suggestions [data-code="{DARK_MAGICIAN}"]')).to_have_count(1)
    assert table.page.locator(f'#suggestions [data-code="{DARK_MAGICIAN_ART}"]').count() == 0
    table.close()


def test_the_extra_deck_starts_at_15_cards(shared_service, browser):  # noqa: F811
    """DECK-03: an Extra Deck has 0 to 15 cards; the start form said 0, so 15 was typed every duel."""
    duel, table = _recorder(browser, shared_service, "zh-Hant")
    expect(table.page.locator("#extra-size")).to_have_value("15")
    _started(table)
    decks = [e for e in stored(shared_service.url, duel) if e["kind"] == "deck_registered"]
    assert [len(e.get("extra", [])) for e in decks] == [15, 15], decks
    table.close()


def test_the_judges_name_is_remembered_on_the_device_not_the_token(shared_service, browser):  # noqa: F811
    """The judge typed their name on every ruling, call ruling and note; kept like the drafts
    (under the token's tag, never the token), across a reload."""
    duel = create(shared_service.url, title="judge", mode="witnessed")
    events = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["陳", "林"], "witnessed": True},
              *({"kind": "deck_registered", "player": p, "main": [0] * 40} for p in (0, 1)),
              *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
              {"kind": "turn_started", "player": 0, "turn": 1}, {"kind": "phase_entered", "phase": "draw"},
              {"kind": "phase_entered", "phase": "standby"}, {"kind": "phase_entered", "phase": "main1"},
              {"kind": "normal_summoned", "player": 0, "card": "p0.m0", "zone": 0, "shows": {"p0.m0": RAYE}},
              {"kind": "judge_note", "category": "call", "judge": "", "note": "通常召喚的次數"}]
    r = httpx.post(f"{shared_service.url}/duels/{duel['id']}/events", json=events, headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    token = duel["tokens"]["judge"]
    judge = Table(browser, f"{shared_service.url}/record/{duel['id']}?token={token}&lang=zh-Hant", width=360)
    judge.settled(len(events))
    judge.tap(f'#entries [data-ruling="{len(events) - 2}"]')
    expect(judge.page.locator('#else-fields [name="judge"]')).to_have_value("")
    judge.page.fill('#else-fields [name="judge"]', "王主審")
    judge.page.fill('#else-fields [name="note"]', "第一次")
    judge.page.select_option('#else-fields [name="decision"]', label="決鬥維持原狀")
    judge.tap("#else button[type=submit]")
    judge.settled(len(events) + 1)
    judge.page.reload()
    judge.page.wait_for_selector("body[data-ready=true]")
    judge.settled(len(events) + 1)
    judge.tap(f'#entries [data-ruling="{len(events) - 2}"]')
    expect(judge.page.locator('#else-fields [name="judge"]')).to_have_value("王主審")
    expect(judge.page.locator('#else-fields [name="note"]')).to_be_focused()
    kept = judge.page.evaluate("JSON.stringify(Object.entries(localStorage))")
    assert "王主審" in kept and token not in kept
    judge.close()
