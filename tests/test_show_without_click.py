"""``ygoreplay show DUEL [--at N] [--store URL]`` of a stored duel is run by the launcher without
importing click or rich (issue 25) only where click would print the very same bytes: stdout,
stderr and the exit code are compared with click's own for boards all through a stored duel, in
every language, for positions and ids the store refuses, stores that are missing or no store,
argument shapes left to click, several environments, a closed pipe and a full disk."""
from __future__ import annotations

import io
import os
import subprocess

import pytest

from conftest import ROOT
from test_check_without_click import imported
from test_help_page import CLICK, LANGUAGES, LAUNCHER, environment

from ygoreplay import read_events
from ygoreplay.store import Store

REPLAYS = ROOT / "replays"


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> tuple[str, str, int]:
    """A store holding two sample duels: (its path, the first duel's id, its events)."""
    path = str(tmp_path_factory.mktemp("show") / "duels.sqlite")
    with Store(path) as store:
        duel, count, _ = store.record(read_events(REPLAYS / "won-by-damage.jsonl"), "won")
        store.record(read_events(REPLAYS / "every-summon-method.jsonl"), "summons")
    return path, duel, count


def both(args: list[str], env: dict[str, str]) -> tuple[tuple[bytes, bytes, int], tuple[bytes, bytes, int]]:
    """What the launcher and click alone print and exit with for ``ygoreplay show ARGS``."""
    results = []
    for side in (LAUNCHER, CLICK):
        done = subprocess.run([*side, "show", *args], cwd=ROOT, env=env, capture_output=True, timeout=120)
        results.append((done.stdout, done.stderr, done.returncode))
    return results[0], results[1]


def test_a_stored_board_imports_no_click_and_no_rich(stored):
    store, duel, count = stored
    for args in (["show", duel, "--at", "40", "--store", store], ["show", "--store", store, duel],
                 ["show", "--at", "0", duel[:6], "--store", store]):
        modules = imported(args)
        assert b"ygoreplay.store" in modules and not modules & {b"click", b"rich", b"rich.text"}, args
    for args in (["show", duel, "--at", "40", "--store", store, "--lang", "ja"], ["show", duel, "--at=40", "--store", store],
                 ["show", duel, "--turn", "3", "--store", store], ["show", str(REPLAYS / "won-by-damage.jsonl")]):
        assert b"click" in imported(args), args


#: What showing a stored board never uses, each a few ms of a fresh ``show DUEL --at N`` (issue 25):
#: the replay file's format and limits (a write checks them), the log's sentences, the views a file
#: or a search derives, the file formats (a stored duel is no file), and the store's recorders
#: (``eventsourcing``: a read-only store on SQLite seeks on connections of its own) and the
#: library index they write.
NOT_ON_A_READ = {b"ygoreplay.replay_file", b"ygoreplay.log", b"ygoreplay.views", b"ygoreplay.formats",
                 b"eventsourcing", b"eventsourcing.persistence", b"ygoreplay.library"}


def test_a_stored_board_imports_only_what_reading_it_needs(stored):
    store, duel, count = stored
    for args in (["show", duel, "--at", "40", "--store", store], ["show", "--store", store, duel]):
        modules = imported(args)
        assert b"ygoreplay.store" in modules and b"ygoreplay.render" in modules, args
        assert not modules & NOT_ON_A_READ, (args, modules & NOT_ON_A_READ)


def test_a_stored_board_is_vouched_for_without_inspect_or_cryptography(stored):
    """Its anchors and snapshot are checked by their MACs with the organiser key's seed, whose
    public half (which key the anchors name) is read back from beside the key, vouched for by a
    MAC of its own: no Ed25519 arithmetic, so no cryptography; and ``dataclasses`` is imported
    without ``inspect`` (issue 25: together a sixth of a fresh ``show DUEL --at N``)."""
    store, duel, count = stored
    for args in (["show", duel, "--at", "40", "--store", store], ["show", "--store", store, duel]):
        modules = imported(args)
        assert b"ygoreplay.store" in modules and b"dataclasses" in modules, args
        assert not modules & {b"inspect", b"cryptography", b"json"}, (args, modules & {b"inspect", b"cryptography",
                                                                                     b"json"})


def test_every_board_of_a_stored_duel_is_shown_as_click_shows_it(stored):
    store, duel, count = stored
    env = environment()
    for at in [*range(0, count, 7), count - 1]:
        ours, clicks = both([duel, "--at", str(at), "--store", store], env)
        assert ours == clicks and ours[2] == 0 and ours[0], at
    ours, clicks = both([duel, "--store", store], env)              # the last event's board
    assert ours == clicks and ours[2] == 0


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_stored_board_speaks_as_click_does_in_every_language(stored, language):
    store, duel, count = stored
    ours, clicks = both([duel, "--at", str(count // 2), "--store", store], environment(YGOREPLAY_LANG=language))
    assert ours == clicks and ours[0]
    ours, clicks = both([duel, "--at", str(count + 5), "--store", store], environment(YGOREPLAY_LANG=language))
    assert ours == clicks and ours[2] == 2


def test_what_the_store_refuses_and_shapes_left_to_click_are_answered_as_click_answers_them(stored, tmp_path):
    store, duel, count = stored
    not_a_store = tmp_path / "cards.txt"
    not_a_store.write_text("not a store\n")
    folder = tmp_path / "folder"
    folder.mkdir()
    cases = [
        [duel, "--at", str(count), "--store", store], [duel, "--at", "999999", "--store", store],
        [duel, "--at", "-1", "--store", store], [duel, "--at", "007", "--store", store],
        [duel, "--at", "x", "--store", store], [duel, "--at", "٣", "--store", store], [duel, "--at", "", "--store", store],
        ["nosuchduel", "--at", "1", "--store", store], ["", "--at", "1", "--store", store],
        [duel, "--at", "1", "--store", str(tmp_path / "missing.sqlite")], [duel, "--at", "1", "--store", str(not_a_store)],
        [duel, "--at", "1", "--store", str(folder)], [duel, "--at", "1", "--store", "nosuch://x"],
        [duel, "--at", "1", "--at", "2", "--store", store], [duel, "--at", "1", "--store", store, "--store", store],
        [duel, duel, "--store", store], [duel, "--at"], [duel, "--at", "1", "--store"], ["--store", store],
        [duel, "--at", "1", "--store", store, "--"], ["--", duel, "--store", store], [duel, "--at", "1", "-s", store],
        [str(REPLAYS / "won-by-damage.jsonl"), "--at", "3", "--store", store], [str(folder), "--at", "1", "--store", store],
    ]
    for args in cases:
        ours, clicks = both(args, environment())
        assert ours == clicks, args
    ours, clicks = both([duel, "--at", "5"], environment(YGOREPLAY_STORE=store))
    assert ours == clicks and ours[2] == 0


@pytest.mark.parametrize("changes", [
    {"LANG": "zh_TW.UTF-8"}, {"LANG": "C"}, {"YGOREPLAY_LANG": "nonsense"}, {"COLUMNS": "132"},
    {"PYTHONIOENCODING": "latin-1"}, {"PYTHONIOENCODING": "ascii"}, {"PYTHONIOENCODING": "utf-8:strict"},
    {"_YGOREPLAY_COMPLETE": "bash_complete", "COMP_WORDS": "ygoreplay show", "COMP_CWORD": "1"},
])
def test_a_stored_board_is_shown_as_click_shows_it_in_any_environment(stored, changes):
    store, duel, count = stored
    ours, clicks = both([duel, "--at", str(count - 1), "--store", store], environment(**changes))
    assert ours == clicks


def test_a_reader_that_left_or_a_full_disk_ends_it_as_click_does(stored):
    store, duel, count = stored
    argv = ["show", duel, "--at", "20", "--store", store]
    results = []
    for side in (LAUNCHER, CLICK):
        read, write = os.pipe()
        os.close(read)
        process = subprocess.Popen([*side, *argv], cwd=ROOT, env=environment(), stdout=write, stderr=subprocess.PIPE)
        os.close(write)
        closed = (process.stderr.read(), process.wait(timeout=120))
        with open("/dev/full", "wb") as full:
            done = subprocess.run([*side, *argv], cwd=ROOT, env=environment(), stdout=full, stderr=subprocess.PIPE,
                                  timeout=120)
        results.append((closed, (done.stderr, done.returncode)))
    assert results[0] == results[1]
    assert results[0][1][1] == 2                          # cannot write the output


def test_a_resident_shows_a_stored_board_without_click(stored, tmp_path, monkeypatch):
    """The resident runs ``show DUEL --at N`` as the launcher does, without click's parsing (a
    quarter of the command's time there: issue 25), and prints what click prints; anything else still goes to
    click (here a stand-in that only counts)."""
    from ygoreplay.cli import main
    from ygoreplay.cli.resident import _command
    store, duel, count = stored
    env = environment()
    expected = both([duel, "--at", "40", "--store", store], env)[1]
    ran: list[list[str]] = []
    monkeypatch.setattr(main, "main", lambda args, prog_name: ran.append(args))
    for name in [name for name in os.environ if name not in env]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with open(tmp_path / "out", "w+b") as out, open(tmp_path / "err", "w+b") as err:
        monkeypatch.setattr("sys.stdout", io.TextIOWrapper(out, encoding="utf-8", errors="strict"))
        monkeypatch.setattr("sys.stderr", io.TextIOWrapper(err, encoding="utf-8", errors="strict"))
        code = _command(["show", duel, "--at", "40", "--store", store], "ygoreplay")
        assert ran == []
        _command(["show", duel, "--turn", "3", "--store", store], "ygoreplay")
        assert ran == [["show", duel, "--turn", "3", "--store", store]]
    assert ((tmp_path / "out").read_bytes(), (tmp_path / "err").read_bytes(), code) == expected


def test_a_stored_board_is_vouched_for_without_loading_openssl(stored):
    """The chain links, the snapshot's digest and the MACs a board's read checks are hashed by the
    interpreter's own SHA-256 (``digests``): OpenSSL's ``_hashlib`` (10 M instructions to link, a
    thirtieth of a fresh ``show DUEL --at N``: issue 25) is not loaded, and the board is the same."""
    store, duel, count = stored
    for args in (["show", duel, "--at", "40", "--store", store], ["show", "--store", store, duel]):
        modules = imported(args)
        assert b"ygoreplay.store" in modules and b"ygoreplay.digests" in modules, args
        assert not modules & {b"_hashlib", b"hashlib", b"hmac"}, (args, modules & {b"_hashlib", b"hashlib", b"hmac"})
