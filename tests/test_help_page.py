"""``ygoreplay --help`` (and a bare ``ygoreplay``) is printed by the launcher from the page
``cli/index.py`` keeps, without importing click (issue 25), only where click would write that very
page: every byte of stdout and stderr and the exit code are compared with click's own, in every
language, at several widths, in several environments, on a pipe and on a terminal."""
from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios

import pytest

from conftest import ROOT
from ygoreplay import launcher
from ygoreplay.cli import index

LANGUAGES = ("en", "zh-Hans", "zh-Hant", "ja", "ko")
#: How each side is run: the launcher as ``python -m ygoreplay`` runs it, and click alone.
LAUNCHER = [sys.executable, "-m", "ygoreplay"]
CLICK = [sys.executable, "-c", "import sys\nfrom ygoreplay.cli import main\nmain(sys.argv[1:], prog_name='ygoreplay')"]
#: The launcher as the console script runs it (click names the program after ``sys.argv[0]``).
SCRIPT = "import sys\nsys.argv[0] = sys.argv.pop(1)\nfrom ygoreplay.launcher import main\nmain()"
SCRIPT_CLICK = "import sys\nsys.argv[0] = sys.argv.pop(1)\nfrom ygoreplay.cli import main\nmain(sys.argv[1:])"
LANGUAGE_VARIABLES = ("YGOREPLAY_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def environment(**changes: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in LANGUAGE_VARIABLES and k not in ("COLUMNS", "LINES") and not k.endswith("_COMPLETE")}
    env.update({"PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8", **changes})
    return env


def run(argv: list[str], env: dict[str, str]) -> tuple[bytes, bytes, int]:
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, timeout=120)
    return done.stdout, done.stderr, done.returncode


def test_the_launcher_needs_no_click_for_the_help_page():
    code = ("import sys\nfrom ygoreplay import launcher\ntry:\n    launcher.run(sys.argv[1:], 'ygoreplay')\n"
            "finally:\n    sys.stderr.write(f\"click:{'click' in sys.modules}\")")
    for args in (["--help"], ["--lang", "ja", "-h"], []):
        _, err, _ = run([sys.executable, "-c", code, *args], environment())
        assert err.endswith(b"click:False"), (args, err[-200:])
    _, err, _ = run([sys.executable, "-c", code, "--lang", "xx", "--help"], environment())
    assert err.endswith(b"click:True")               # click says what is wrong with it


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_help_page_is_clicks_byte_for_byte_in_every_language_and_width(language):
    forms = ([f"--lang={language}", "-h"], ["--help"], [])
    for columns in (None, "80", "79", "-3"):
        env = environment(YGOREPLAY_LANG=language, **({} if columns is None else {"COLUMNS": columns}))
        for args in forms:
            ours = run([*LAUNCHER, *args], env)
            assert ours == run([*CLICK, *args], env), (args, columns)
            assert ours[2] == (0 if args else 2) and (ours[0] if args else ours[1]).startswith(
                index.HELP[language].encode()[:5])


@pytest.mark.parametrize("changes", [
    {"LANG": "ja_JP.UTF-8"}, {"LC_ALL": "zh_TW.UTF-8", "LANG": "ko_KR.UTF-8"}, {"LANGUAGE": "ko:en", "LANG": "C"},
    {"LANG": "zh_HK"}, {"LANG": "C"}, {"LANG": "xx_YY.UTF-8"}, {"YGOREPLAY_LANG": "nonsense", "LANG": "ja_JP"},
    {"YGOREPLAY_LANG": ""}, {"PYTHONIOENCODING": "latin-1"}, {"PYTHONIOENCODING": "ascii:backslashreplace"},
    {"PYTHONIOENCODING": "utf-8:strict", "LANG": "ko_KR.UTF-8"}, {"_YGOREPLAY_COMPLETE": "bash_source"},
    {"_YGOREPLAY_COMPLETE": "", "LANG": "ja_JP.UTF-8"},
])
def test_the_help_page_is_clicks_in_any_environment(changes):
    env = environment(**changes)
    for args in (["--help"], ["-h"], [], ["--lang", "ko", "--help"], ["--lang=zh", "--help"]):
        assert run([*LAUNCHER, *args], env) == run([*CLICK, *args], env), args


@pytest.mark.parametrize("args", [
    ["--help", "--lang", "ja"], ["--lang", "xx", "--help"], ["--lang", "", "--help"], ["--lang=", "-h"],
    ["--lang", "-en", "--help"], ["--lang", "--help"], ["--lang", "ja", "--lang", "ko", "--help"], ["-h", "-h"],
    ["--help", "check"], ["check", "--help"], ["--lang", "ja"], ["--lang=ja_JP.UTF-8@euro", "--help"],
    ["--lang", "zh_TW", "-h"], ["--version"], ["--HELP"], ["--lang", "ja\udcff", "--help"], ["--lang", "ja", "x", "-h"],
])
def test_other_arguments_are_answered_as_click_answers_them(args):
    argv = [os.fsencode(arg) for arg in args]
    env = environment(LANG="ja_JP.UTF-8")
    assert run([*LAUNCHER, *argv], env) == run([*CLICK, *argv], env), args


@pytest.mark.parametrize("name", ["/usr/local/bin/ygoreplay", "ygoreplay", "/opt/bin/ygr", "ygoreplay.exe"])
def test_the_console_script_names_the_program_as_click_does(name):
    """The page holds the name ``ygoreplay``; a script of another name is written by click."""
    env = environment()
    for args in (["--help"], []):
        ours = run([sys.executable, "-c", SCRIPT, name, *args], env)
        assert ours == run([sys.executable, "-c", SCRIPT_CLICK, name, *args], env), (name, args)


def _on_terminal(argv: list[str], columns: int, env: dict[str, str]) -> tuple[bytes, int]:
    """What ``argv`` writes to a terminal ``columns`` wide, and its exit code."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    process = subprocess.Popen(argv, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=follower,
                               stderr=subprocess.PIPE)
    os.close(follower)
    out = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:                          # EIO: the follower side is closed
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    return out + process.stderr.read(), process.wait(timeout=120)


@pytest.mark.parametrize("columns", [120, 80, 79, 50])
def test_on_a_terminal_the_page_is_clicks_at_its_width(columns):
    env = environment(LANG="zh_TW.UTF-8")
    for args in (["--help"], ["--lang", "en", "-h"]):
        assert _on_terminal([*LAUNCHER, *args], columns, env) == _on_terminal([*CLICK, *args], columns, env)


def test_a_reader_that_left_ends_it_as_click_does():
    """No reader on the pipe: click exits 1 and says nothing."""
    results = []
    for argv in (LAUNCHER, CLICK):
        read, write = os.pipe()
        os.close(read)
        process = subprocess.Popen([*argv, "--help"], cwd=ROOT, env=environment(), stdout=write,
                                   stderr=subprocess.PIPE)
        os.close(write)
        results.append((process.stderr.read(), process.wait(timeout=120)))
    assert results[0] == results[1] == (b"", 1)


def test_the_language_and_columns_are_read_as_the_command_line_reads_them(monkeypatch):
    for name in LANGUAGE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "ko_KR.UTF-8")
    assert launcher.help_language([]) == launcher.help_language(["-h"]) == "ko"
    assert launcher.help_language(["--lang", "zh_TW", "--help"]) == "zh-Hant"
    assert launcher.help_language(["--lang=zh", "-h"]) == "zh-Hans"
    for args in (["--lang", "xx", "--help"], ["--lang", "-ja", "--help"], ["--help", "--lang", "ja"], ["check"],
                 ["--lang", "ja"], ["--lang", "ja", "--help", "--help"], ["--lang=", "--help"]):
        assert launcher.help_language(args) is None, args
    monkeypatch.setenv("COLUMNS", "132")
    assert launcher.help_columns() == 132
    for value in ("0", "-1", "x", ""):
        monkeypatch.setenv("COLUMNS", value)
        assert launcher.help_columns() == (os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
                                           if sys.__stdout__.isatty() else 80)


@pytest.mark.parametrize("args", [
    ["check", "replays/won-by-damage.jsonl"], ["check", "--json", "replays/won-by-damage.jsonl"],
    ["--lang", "ja", "check", "replays/won-by-damage.jsonl"], ["check", "no-such-file.jsonl"], ["check"],
    ["log", "replays/won-by-damage.jsonl"], ["rules", "SUM-04"], ["check", "pyproject.toml"],
])
def test_a_reading_command_run_here_ends_as_click_ends_it(args, tmp_path):
    """A command a resident could answer, run in-process (none is running), ends without the
    interpreter's teardown: its output and exit code are click's all the same."""
    empty = tmp_path / "resident"
    empty.mkdir(mode=0o700)
    env = environment(YGOREPLAY_RESIDENT_DIR=str(empty))
    assert run([*LAUNCHER, *args], env) == run([*CLICK, *args], env)


def test_a_command_that_writes_is_torn_down_as_always(tmp_path):
    """Only a command a resident could answer skips the teardown: an atexit callback of a command
    that writes (``record``) still runs."""
    code = ("import atexit, sys\natexit.register(lambda: sys.stderr.write('torn down'))\n"
            "from ygoreplay.launcher import run\nrun(sys.argv[1:], 'ygoreplay')")
    env = environment(YGOREPLAY_RESIDENT_DIR=str(tmp_path), HOME=str(tmp_path))
    store = str(tmp_path / "duels.sqlite")
    _, err, code_ = run([sys.executable, "-c", code, "record", "--store", store, "replays/won-by-damage.jsonl"], env)
    assert code_ == 0 and err.endswith(b"torn down"), err
    _, err, code_ = run([sys.executable, "-c", code, "check", "replays/won-by-damage.jsonl"], env)
    assert code_ == 0 and b"torn down" not in err
