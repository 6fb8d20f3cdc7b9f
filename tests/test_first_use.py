"""What a new user meets first, walking the README (issue 25, twenty-third pass): a stored
duel's board in the reader's language (the fast ``show`` path printed its heading in English),
pile names that line up in Japanese, Chinese and Korean as in English (labels were padded by
characters, not terminal cells), and ``ygoreplay search WORDS`` as a user types it, whose empty
answer says why a duel just recorded is not found and what lists it."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.cells import cell_len

from duel import CARDS
from test_views import events_of
from ygoreplay.access import Access
from ygoreplay.application import Records
from ygoreplay.cli import main
from ygoreplay.store import Store

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = str(ROOT / "replays" / "won-by-damage.jsonl")


@pytest.fixture
def stored(tmp_path) -> tuple[str, str]:
    """A store holding the README's sample duel, recorded on the command line: (store, duel)."""
    store = str(tmp_path / "duels.sqlite")
    done = CliRunner().invoke(main, ["record", SAMPLE, "--store", store])
    assert done.exit_code == 0, done.output
    return store, done.stdout.strip()


def test_a_stored_duels_board_is_headed_in_the_readers_language_on_both_paths(stored):
    store, duel = stored
    by_click = CliRunner().invoke(main, ["--lang", "ja", "show", duel, "--at", "60", "--store", store])
    assert by_click.exit_code == 0, by_click.output
    env = {**os.environ, "YGOREPLAY_LANG": "ja", "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                                                          os.environ.get("PYTHONPATH")]))}
    by_launcher = subprocess.run([sys.executable, "-m", "ygoreplay", "show", duel, "--at", "60", "--store", store],
                                 capture_output=True, env=env, cwd=ROOT)
    assert by_launcher.returncode == 0, by_launcher.stderr
    for output in (by_click.output, by_launcher.stdout.decode("utf-8")):
        assert output.splitlines()[0] == "イベント #60（life_points_changed）の後"


def test_pile_names_start_in_the_same_column_in_every_language(stored):
    store, duel = stored
    for language in ("en", "ja", "zh-Hans", "zh-Hant", "ko"):
        done = CliRunner().invoke(main, ["--lang", language, "show", duel, "--at", "60", "--store", store])
        assert done.exit_code == 0, done.output
        # a pile's line: its label, two spaces or more, what it holds (a name, top: …, or —)
        piles = [m for line in done.output.splitlines() if (m := re.match(r"(  \S.*?  +)\S", line))]
        assert len(piles) == 10, done.output                  # hand, GY, banished, extra, deck a side
        assert {cell_len(m.group(1)) for m in piles} == {14}, (language, done.output)


def test_search_takes_words_as_typed_and_an_empty_answer_says_what_lists_the_store(stored):
    store, _ = stored
    done = CliRunner().invoke(main, ["search", "Yugi", "Kaiba", "--store", store])
    assert done.exit_code == 0, done.output
    # the duel just recorded is private: not found, and the answer names what lists it
    assert "public duels only" in done.output and "ygoreplay list" in done.output
    listed = CliRunner().invoke(main, ["list", "--store", store])
    assert listed.exit_code == 0 and "Yugi vs Kaiba" in listed.output
    with Store(store, CARDS) as opened:                      # a public one is found by the words typed
        public = Records(opened).record(list(events_of("won-by-damage")), "Table 9 final",
                                        attachments={"access": Access("public").to_dict()}).id
    for words in (["Table", "9"], ["Kaiba", "--q", "final"]):
        found = CliRunner().invoke(main, ["search", *words, "--store", store, "--json"])
        assert found.exit_code == 0, found.output
        assert [row["id"] for row in json.loads(found.output)["results"]] == [public]


def test_a_new_organiser_key_is_announced_by_the_fingerprint_verify_names_it_by(tmp_path, monkeypatch):
    monkeypatch.setenv("YGOREPLAY_KEY", str(tmp_path / "fresh.key"))
    store = str(tmp_path / "duels.sqlite")
    done = CliRunner().invoke(main, ["--lang", "ja", "record", SAMPLE, "--store", store])
    assert done.exit_code == 0, done.output
    checked = CliRunner().invoke(main, ["verify", done.stdout.strip(), "--store", store])
    assert checked.exit_code == 0, checked.output
    fingerprint = re.search(r"organiser key ([0-9a-f]{16})", checked.stdout).group(1)
    assert f"主催者の鍵 {tmp_path / 'fresh.key'} を作成した" in done.stderr, done.stderr
    assert f"フィンガープリント {fingerprint}" in done.stderr, done.stderr


def test_list_keeps_its_columns_in_line_in_every_language(stored):
    """An ended duel, one in progress and one whose winner's name is long: the players start in
    the same terminal column on every row, in English as in Chinese, Japanese and Korean."""
    store, _ = stored
    long_named = Path(store).with_name("long.jsonl")
    text = Path(SAMPLE).read_text(encoding="utf-8").replace('"Yugi"', '"Yugi Muto of Domino City"')
    long_named.write_text(text, encoding="utf-8")
    part = Path(store).with_name("part.jsonl")
    part.write_text("".join(Path(SAMPLE).read_text(encoding="utf-8").splitlines(True)[:20]), encoding="utf-8")
    for file in (long_named, part):
        assert CliRunner().invoke(main, ["record", str(file), "--store", store]).exit_code == 0
    for language in ("en", "zh-Hans", "ja", "ko"):
        done = CliRunner().invoke(main, ["--lang", language, "list", "--store", store])
        assert done.exit_code == 0, done.output
        rows = done.stdout.splitlines()
        assert len(rows) == 3, done.output
        starts = {cell_len(row[:row.index(" vs ")].rsplit("  ", 1)[0]) for row in rows}
        assert len(starts) == 1, (language, done.output)


def test_the_terminal_viewers_keys_are_named_in_the_readers_language():
    """``play``'s footer: a judge reading Japanese (or Chinese, Korean) reads its keys' names in
    that language, not "next", "go to", "search"."""
    import asyncio

    from ygoreplay import i18n
    from ygoreplay.cards import CardDB
    from ygoreplay.source import open_source
    from ygoreplay.study import Study
    from ygoreplay.tui import PlayApp

    for language, words in (("ja", ("次へ", "移動", "検索", "終了")), ("ko", ("다음", "이동", "검색", "종료")),
                            ("zh-Hans", ("下一个", "跳转", "搜索", "退出"))):
        with i18n.using(i18n.named(language)):
            app = PlayApp(Study(open_source(SAMPLE, None, CardDB.classic()), None))

            async def shown() -> set[str]:
                async with app.run_test(size=(100, 40)) as pilot:
                    await pilot.pause()
                    return {active.binding.description for active in app.active_bindings.values()
                            if active.binding.show}
            described = asyncio.run(shown())
        assert set(words) <= described, (language, described)
