"""The command line in the reader's language (issue 27): rule violations, what the commands print
and their ``--help`` — while a violation is recorded in English whatever the language, so a
record made in Japanese is the record made in English."""
from __future__ import annotations

import json

from click.testing import CliRunner

from conftest import ROOT
from ygoreplay import i18n
from ygoreplay.card_sources import card_lookup, facts_of
from ygoreplay.cli import main
from ygoreplay.events import from_dict
from ygoreplay.jsonl import read_events
from ygoreplay.rules import History

ILLEGAL = ROOT / "replays" / "illegal" / "first-player-draws-on-turn-1.jsonl"
ENGLISH = "the player going first does not draw on the first turn"
JAPANESE = "先攻のプレイヤーは最初のターンにドローしない"
QUIET = {"YGOREPLAY_LANG": "", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": ""}


def _witnessed_history(language: str) -> dict:
    """The sample folded as a witnessed duel (its violation kept as a flag) in ``language``: what
    a snapshot of the record keeps."""
    events = read_events(ILLEGAL, card_lookup(()).passcode)
    events[0] = from_dict({**events[0].to_dict(), "witnessed": True})
    with i18n.using(language):
        history = History(facts_of(events, card_lookup(())))
        for event in events:
            history.append(event)
        return history.to_data()


def test_a_witnessed_duels_flags_are_recorded_in_english_whatever_the_language():
    """RULE GEN-05's flags are part of the record: the reader's language never reaches it."""
    english = _witnessed_history("en")
    assert ENGLISH in json.dumps(english["witnessed"])
    for language in ("ja", "zh-Hans", "zh-Hant", "ko"):
        assert _witnessed_history(language) == english


def test_check_prints_a_violation_in_the_language_asked_and_json_keeps_the_english():
    runner = CliRunner()
    ja = runner.invoke(main, ["check", "--lang", "ja", str(ILLEGAL)], env=QUIET)
    assert ja.exit_code == 1 and f"#7 SETUP-04 {JAPANESE}" in ja.stdout and ENGLISH not in ja.stdout
    data = json.loads(runner.invoke(main, ["check", "--json", "--lang", "ja", str(ILLEGAL)], env=QUIET).stdout)
    assert data["violations"] == [{"index": 7, "rule": "SETUP-04", "message": ENGLISH,
                                   "message_translated": JAPANESE}]
    english = json.loads(runner.invoke(main, ["check", "--json", str(ILLEGAL)], env=QUIET).stdout)
    assert english["violations"] == [{"index": 7, "rule": "SETUP-04", "message": ENGLISH}]


def test_a_refused_event_is_said_in_the_language_of_the_environment(tmp_path):
    result = CliRunner().invoke(main, ["record", str(ILLEGAL), "--store", str(tmp_path / "x.sqlite")],
                                env={**QUIET, "YGOREPLAY_LANG": "zh-Hant", "HOME": str(tmp_path)})
    assert result.exit_code == 1
    assert "#7 SETUP-04 先攻的玩家在第一個回合不抽卡" in result.stderr


def test_a_message_is_translated_with_its_values_and_the_phrases_inside_it():
    english = i18n.say("a {what} needs an open game state in your own Main Phase: {why}", what="Normal Summon",
                       why=i18n.say("it is the {phase}, not a Main Phase", phase="Battle Phase"))
    assert english == "a Normal Summon needs an open game state in your own Main Phase: it is the Battle " \
                      "Phase, not a Main Phase"
    with i18n.using("ja"):
        assert i18n.said(english) == "通常召喚には自分のメインフェイズのオープンなゲーム状態が必要：" \
                                     "今はバトルフェイズで、メインフェイズではない"
        assert i18n.said(i18n.say("no card {card_id!r} in this duel", card_id="p0.m9")) == \
            "このデュエルにカード 'p0.m9' はない"
        assert i18n.said("a sentence no catalogue has") == "a sentence no catalogue has"
    assert i18n.said(english) == english


def test_help_is_written_in_the_readers_language_and_stays_english_in_english():
    runner = CliRunner()
    ja = runner.invoke(main, ["--lang", "ja", "--help"], env=QUIET, prog_name="ygoreplay")
    assert ja.exit_code == 0
    assert "使い方: ygoreplay" in ja.stdout and "オプション" in ja.stdout and "コマンド" in ja.stdout
    assert "遊戯王のデュエルをイベントログとして記録・確認・再生する。" in ja.stdout
    assert "このメッセージを表示して終了する。" in ja.stdout
    zh = runner.invoke(main, ["check", "--help"], env={**QUIET, "YGOREPLAY_LANG": "zh-Hans"}, prog_name="ygoreplay")
    assert zh.exit_code == 0 and "用法：ygoreplay check" in zh.stdout and "选项" in zh.stdout
    assert "列出每个违规" in zh.stdout.replace("\n", "").replace(" ", "")
    assert "输出一个 JSON 对象而非文本。" in zh.stdout
    ko = runner.invoke(main, ["--help"], env={**QUIET, "LANG": "ko_KR.UTF-8"}, prog_name="ygoreplay")
    assert "사용법: ygoreplay" in ko.stdout and "명령" in ko.stdout
    english = runner.invoke(main, ["check", "--help"], env=QUIET, prog_name="ygoreplay")
    assert "Usage: ygoreplay check" in english.stdout and "Print one JSON object instead of text." in english.stdout
    assert "Fold a JSON Lines duel" in english.stdout       # the help was put back after a translated page


def test_what_a_command_prints_for_people_is_in_the_language_asked(tmp_path):
    result = CliRunner().invoke(main, ["import", str(ILLEGAL), "--lang", "ja", "--store", str(tmp_path / "x.sqlite")],
                                env={**QUIET, "HOME": str(tmp_path)})
    assert result.exit_code == 2
    assert "リプレイファイルではなく JSON Lines のデュエル" in result.stderr


def test_the_viewers_flags_carry_the_english_and_the_readers_translation():
    """A frame the viewer draws a flag from: ``message`` as recorded, ``message_translated`` in
    the request's language only, and the step (kept in the cache for every reader) untouched."""
    from ygoreplay.live import Step
    marks = {"by": "p0", "unconfirmed": False, "flags": [{"rule": "SETUP-04", "message": ENGLISH}],
             "confirmed": None, "disputed": None, "ruled": None, "struck": None}
    step = Step(7, {"kind": "cards_drawn"}, "", "", [], [], [], {}, board={}, marks=marks)
    with i18n.using("ja"):
        assert step.frame()["flags"] == [{"rule": "SETUP-04", "message": ENGLISH, "message_translated": JAPANESE}]
    assert step.frame()["flags"] == [{"rule": "SETUP-04", "message": ENGLISH}]
    assert step.marks["flags"] == [{"rule": "SETUP-04", "message": ENGLISH}]
