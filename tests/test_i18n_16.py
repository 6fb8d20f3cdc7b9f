"""Real refusals read in the reader's language (issue 25, sixteenth pass): a player's device
refused at a table (``views.out_of_sight``, ``access.off_side``, ``application._stamped``), the
service's own answers (``HTTPError``), the files a user loads (``.ygr``, JSON Lines), and the
command line's ``list`` rows and ``verify`` line. The English stays in ``error``/``message`` (what
scripts match on) and on an English reader's terminal; the reader's language is beside it in
``message_translated`` with ``Content-Language``, or on the terminal (``--lang``, ``$LANG``)."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from test_device_names import ORGANISER, auth, table  # noqa: F401  (fixture)
from ygoreplay.cli import main

REPLAYS = Path(__file__).parent.parent / "replays"
#: A terminal whose only language setting is ``$LANG`` (the runner's own settings cleared).
POSIX = {"YGOREPLAY_LANG": "", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": ""}


def _asked(language: str) -> dict:
    return {"Accept-Language": language}


@pytest.mark.parametrize("language, end, nothing", [
    ("ja", "デュエルの終了はそれまで非公開だったもの", "何も書き込まれなかった"),
    ("ko", "듀얼의 종료는 숨겨져 있던 것", "아무것도 기록되지 않았다"),
    ("zh-Hans", "决斗结束会公开此前隐藏的一切", "未写入任何内容"),
    ("zh-Hant", "決鬥結束會公開此前隱藏的一切", "未寫入任何內容")], ids=["ja", "ko", "zh-Hans", "zh-Hant"])
def test_a_players_device_refused_the_duels_end_reads_why_in_its_language(table, language, end, nothing):
    """LOG-12, MATCH-10: player 0's device says it won; refused (a device enters its own loss
    only), and its reader reads why in the page's language, not English inside it."""
    client, duel_id, tokens, _store = table
    refused = client.post(f"/duels/{duel_id}/events", json=[{"kind": "duel_ended", "winner": 0, "reason": "lp"}],
                          headers={**auth(tokens["p0"]), **_asked(language)})
    assert refused.status_code == 403, refused.text
    answer = refused.json()
    assert answer["error"].startswith("event 0 (duel_ended) is entered as p0, but the duel's end releases")
    assert refused.headers["content-language"] == language
    translated = answer["message_translated"]
    assert end in translated and translated.endswith(nothing), translated
    assert "the duel's end" not in translated and "duel_ended" in translated


def test_a_players_device_entering_the_other_side_reads_whose_side_it_is(table):
    """A witnessed table: player 0's device enters player 1's LP change (its side is player 1's,
    ``access.off_side``); the reason is said inside the refusal, both in Korean."""
    client, duel_id, tokens, _store = table
    change = {"kind": "life_points_changed", "player": 1, "amount": 1000, "reason": "effect_damage"}
    refused = client.post(f"/duels/{duel_id}/events", json=[change], headers={**auth(tokens["p0"]), **_asked("ko")})
    assert refused.status_code == 403, refused.text
    assert "it is player 1's: a player's device records its own side" in refused.json()["error"]
    assert refused.json()["message_translated"] == (
        "이벤트 0 (life_points_changed)는 p0로 입력되었지만, 그것은 플레이어 1의 것이다: 플레이어의 기기는 자신의 "
        "쪽만 기록한다. 아무것도 기록되지 않았다")


@pytest.mark.parametrize("language, ask, status, translated", [
    ("ja", lambda c, t: c.get("/duels/ffffffffffff/state", headers=auth(t["judge"])), 404,
     "デュエル 'ffffffffffff' はない"),
    ("ko", lambda c, t: c.post("/duels", content=b"[1]", headers={**ORGANISER, "Content-Type": "application/json"}),
     400, "본문은 JSON 객체여야 한다"),
    ("zh-Hans", lambda c, t: c.post("/duels", json={"visibility": "everyone"}, headers=ORGANISER), 400,
     "visibility 只能是 public, unlisted, private 之一"),
    ("zh-Hant", lambda c, t: c.get("/duels", headers=auth(t["judge"])), 403, "列出所有決鬥需要主辦方令牌"),
    ("ja", lambda c, t: c.post("/duels", json={"time": 1, "surrender": 2}, headers=ORGANISER), 400,
     "不明なフィールド：surrender, time")],
    ids=["no-duel-ja", "not-an-object-ko", "visibility-zh-Hans", "listing-zh-Hant", "unknown-fields-ja"])
def test_the_services_own_answers_read_in_the_readers_language(table, language, ask, status, translated):
    """The service's ``HTTPError``s (service/core, common, duels) are said: ``message_translated``
    in the reader's language; an unknown field's name is the caller's own text, never read as the
    catalogue's word (``time``, ``surrender``: ``USER_VALUES``)."""
    client, _duel_id, tokens, _store = table
    client.headers.update(_asked(language))
    try:
        answer = ask(client, tokens)
    finally:
        del client.headers["Accept-Language"]
    assert answer.status_code == status, answer.text
    assert answer.json()["message_translated"] == translated
    assert answer.headers["content-language"] == language


def _run(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, list(args), env=env)


def test_a_file_a_user_loads_is_refused_in_their_language(tmp_path):
    """A cut or foreign ``.ygr`` (replay_file) and a JSON Lines file that is not JSON (jsonl),
    refused on the terminal in the language of ``$LANG`` or ``--lang``."""
    cut = tmp_path / "cut.ygr"
    cut.write_bytes(b"YGOREPLAY\x00\x00\x00")
    refused = _run("verify", str(cut), env={**POSIX, "LANG": "ja_JP.UTF-8"})
    assert refused.exit_code == 2
    assert "途中で切れている：12 バイト。リプレイファイルは最低 24 バイト" in refused.output, refused.output
    foreign = tmp_path / "foreign.ygr"
    foreign.write_bytes(b"NOT A REPLAY" * 4)
    refused = _run("verify", str(foreign), "--lang", "zh-Hant")
    assert "不是 ygoreplay 檔案：偏移 0 處的魔術位元組不對" in refused.output, refused.output
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"kind": "duel_started",\n')
    refused = _run("check", str(broken), "--lang", "ko")
    assert refused.exit_code == 2 and "올바른 JSON이 아니다" in refused.output, refused.output


@pytest.fixture
def two_duels(tmp_path):
    """A store with a duel won by damage and one still in progress (its first 20 lines)."""
    store = str(tmp_path / "duels.sqlite")
    recorded = _run("record", str(REPLAYS / "won-by-damage.jsonl"), "--store", store)
    assert recorded.exit_code == 0, recorded.output
    # its id alone, on stdout: the first record of a test worker also says, on stderr, that it
    # created the organiser key
    won = recorded.stdout.strip()
    part = tmp_path / "in-progress.jsonl"
    part.write_text("".join((REPLAYS / "won-by-damage.jsonl").read_text(encoding="utf-8").splitlines(True)[:20]))
    assert _run("record", str(part), "--store", store).exit_code == 0
    return store, won


@pytest.mark.parametrize("language, won, in_progress, events, ok", [
    ("ja", "Yugiの勝利（LPが0になった）", "進行中", "イベント     89 件", "：OK、89 イベント、ハッシュチェーンは無傷"),
    ("ko", "Yugi 승리 (LP가 0이 됨)", "진행 중", "이벤트     89개", ": 정상, 이벤트 89개, 해시 체인 온전"),
    ("zh-Hans", "Yugi获胜（基本分归零）", "进行中", "    89 个事件", "：通过，89 个事件，哈希链完好"),
    ("zh-Hant", "Yugi獲勝（基本分歸零）", "進行中", "    89 個事件", "：通過，89 個事件，雜湊鏈完好")],
    ids=["ja", "ko", "zh-Hans", "zh-Hant"])
def test_list_rows_and_the_verify_line_read_in_the_readers_language(two_duels, language, won, in_progress, events,
                                                                    ok):
    """``ygoreplay list``: the result (the winner's name as recorded, the reason as the catalogue
    names it, WIN-01) and "in progress"; ``verify``'s ok line. An English reader's are as before
    (the reason as recorded: what scripts read)."""
    store, duel = two_duels
    listed = _run("list", "--store", store, "--lang", language)
    assert listed.exit_code == 0, listed.output
    assert won in listed.output and in_progress in listed.output and events in listed.output, listed.output
    assert "in progress" not in listed.output and " won (" not in listed.output
    verified = _run("verify", duel, "--store", store, "--lang", language)
    assert verified.exit_code == 0 and verified.output.startswith(duel + ok), verified.output
    english = _run("list", "--store", store, env={**POSIX, "LANG": "C"}).output
    assert "Yugi won (lp)" in english and "in progress" in english and "     89 events" in english
    verified = _run("verify", duel, "--store", store, env={**POSIX, "LANG": "C"}).output
    assert verified.startswith(f"{duel}: ok, 89 events, hash chain intact, anchored and signed by organiser key ")

