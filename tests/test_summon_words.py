"""What a Japanese scorekeeper's pass left in the log's words (seventeenth pass): a Synchro Summon
said as （シンクロ）…を特殊召喚 where OCG players write …をシンクロ召喚 (SPS-01: the summon's own
verb, in every language), and brackets put around translated words half-width in Japanese and
Chinese text: （戦闘破壊）, バトルフェイズ（ダメージステップ）, not (戦闘破壊)."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from ygoreplay.cli import main

SUMMONS = Path(__file__).resolve().parent.parent / "replays" / "every-summon-method.jsonl"


def said(*args: str) -> list[str]:
    result = CliRunner().invoke(main, [*args])
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def line(lines: list[str], index: int) -> str:
    return next(text for text in lines if text.startswith(f"    #{index} "))


# #40 a Pendulum Summon, #50 a Synchro Summon, #67 a Link Summon; #71 a revival by effect
@pytest.mark.parametrize("lang, pendulum, synchro, link, special", [
    ("ja", "ペンデュラム召喚", "シンクロ召喚", "リンク召喚", "特殊召喚"),
    ("zh-Hans", "灵摆召唤", "同调召唤", "连接召唤", "特殊召唤"),
    ("zh-Hant", "靈擺召喚", "同調召喚", "連結召喚", "特殊召喚"),
    ("ko", "펜듈럼 소환", "싱크로 소환", "링크 소환", "특수 소환"),
    ("en", "Pendulum Summons", "Synchro Summons", "Link Summons", "Special Summons"),
])
def test_sps_01_a_summon_is_said_with_its_own_verb(lang, pendulum, synchro, link, special):
    lines = said("log", "--lang", lang, str(SUMMONS))
    for index, verb in ((40, pendulum), (50, synchro), (67, link)):
        assert verb in line(lines, index) and special not in line(lines, index), line(lines, index)
    assert "Stardust Dragon" in line(lines, 50) and "Junk Synchron [M1]" in line(lines, 50)   # its materials
    assert special in line(lines, 71)                                 # an effect's summon stays "Special"


@pytest.mark.parametrize("lang, battle", [("ja", "（戦闘破壊）"), ("zh-Hans", "（被战斗破坏）"),
                                          ("zh-Hant", "（被戰鬥破壞）"), ("ko", " (전투로 파괴)")])
def test_brackets_around_translated_words_are_the_languages_own(lang, battle):
    lines = said("log", "--lang", lang, str(SUMMONS))
    assert battle in line(lines, 58) and line(lines, 58).endswith(battle.strip()[-1])
    if lang != "ko":
        assert "(" not in line(lines, 58) and "(" not in line(lines, 10), (line(lines, 58), line(lines, 10))


def test_the_boards_step_is_in_full_width_brackets_in_japanese():
    top = said("show", "--lang", "ja", str(SUMMONS), "--at", "57")[1]
    assert "バトルフェイズ（ダメージステップ）" in top, top
