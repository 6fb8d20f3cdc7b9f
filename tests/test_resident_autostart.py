"""A read-only command that finds no resident of its code starts one for the commands after it
(``resident.autostart``, issue 25: a fresh ``show --at N`` was 2.8× the engine's time, ~94% of it
imports): only for the commands a resident may answer, never when ``YGOREPLAY_RESIDENT=off``,
never in a folder it could not trust, never for code other than the caller's; what it starts
answers what the same command prints in its own process, and reads what another process wrote."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ygoreplay import resident as wire

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = "replays/won-by-damage.jsonl"


@pytest.fixture
def spawned(monkeypatch, tmp_path):
    """``os.posix_spawn`` recorded, not run; the resident folder a fresh one (not made yet)."""
    calls: list[tuple] = []
    monkeypatch.setattr(os, "posix_spawn", lambda path, argv, env, **kw: calls.append((path, argv, kw)) or 1)
    monkeypatch.setattr(wire, "_vacant", None)
    monkeypatch.setenv(wire.DIR_ENV, str(tmp_path / "r"))
    monkeypatch.delenv(wire.AUTO_ENV, raising=False)
    monkeypatch.chdir(ROOT)
    return calls


def test_a_read_only_command_with_no_resident_starts_one_of_its_own_code(spawned):
    assert wire.forward(["check", SAMPLE], "ygoreplay") is None
    wire.autostart()
    [(path, argv, options)] = spawned
    assert path == sys.executable and argv[:2] == [sys.executable, "-c"]
    assert argv[3:] == [str(ROOT), wire.code_key()]          # this package, told the caller's code key
    assert options["setsid"] is True                          # a session of its own: no terminal's signals
    assert [action[0] for action in options["file_actions"]] == [os.POSIX_SPAWN_OPEN, os.POSIX_SPAWN_DUP2,
                                                                  os.POSIX_SPAWN_DUP2]


@pytest.mark.parametrize("off", ["off", "0", "no", "FALSE", " Off "])
def test_turned_off_nothing_is_started(spawned, monkeypatch, off):
    monkeypatch.setenv(wire.AUTO_ENV, off)
    assert wire.forward(["show", "somewhere", "--at", "3"], "ygoreplay") is None
    wire.autostart()
    assert spawned == []


def test_turned_off_an_empty_resident_folder_costs_no_code_key(spawned, monkeypatch, tmp_path):
    """A resident folder left empty (its residents stopped) with ``YGOREPLAY_RESIDENT=off``: no
    socket of any code to answer and none to start, so the command runs in-process without
    reading every file of the package for its code key (a fresh ``show --at N``'s, issue 25);
    a socket there, even another code's, still has the key computed and compared."""
    folder = tmp_path / "r"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv(wire.AUTO_ENV, "off")
    keyed: list[str] = []
    real_key = wire.code_key
    monkeypatch.setattr(wire, "code_key", lambda: keyed.append("key") or real_key())
    assert wire.forward(["show", "somewhere", "--at", "3"], "ygoreplay") is None
    assert keyed == [] and spawned == []
    (folder / "r-0123456789abcdef.sock").write_bytes(b"")    # another code's (not even a socket)
    assert wire.forward(["show", "somewhere", "--at", "3"], "ygoreplay") is None
    assert keyed == ["key"] and spawned == []


@pytest.mark.parametrize("args", [["record", SAMPLE], ["check", "-"], ["search", "--reindex"], ["--help"],
                                  ["check", SAMPLE, "--witness", "w.sqlite"], ["show", "/dev/stdin"]])
def test_a_command_that_writes_or_reads_stdin_starts_nothing(spawned, args):
    assert wire.forward(args, "ygoreplay") is None
    wire.autostart()
    assert spawned == []


def test_a_folder_others_may_enter_or_a_socket_in_use_starts_nothing(spawned, tmp_path):
    folder = tmp_path / "r"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    assert wire.forward(["check", SAMPLE], "ygoreplay") is None
    wire.autostart()
    assert spawned == []                                      # refused, never repaired nor used
    os.chmod(folder, 0o700)
    path = wire.socket_path(str(folder), wire.code_key())
    os.mkfifo(path)                                           # not a socket of ours: nobody's to replace
    assert wire.forward(["check", SAMPLE], "ygoreplay") is None
    wire.autostart()
    assert spawned == []


def test_a_starter_that_would_run_other_code_starts_nothing(monkeypatch, tmp_path):
    folder = tmp_path / "r"
    monkeypatch.setenv(wire.DIR_ENV, str(folder))
    from ygoreplay.cli.resident import started
    started("0" * 16)
    assert not folder.exists()


def _run(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ygoreplay", *args], cwd=ROOT, env=env, capture_output=True,
                          timeout=120)


def _served(folder: str) -> int:
    total = 0
    for name in os.listdir(folder):
        if name.endswith(".sock"):
            answer = wire.ask(os.path.join(folder, name), "status").decode()
            total += int(dict(line.split(" ", 1) for line in answer.splitlines())["served"])
    return total


def test_the_resident_a_command_started_answers_the_next_as_it_would_print_itself(tmp_path):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    folder = str(runtime / "r")                               # not made yet: the first command makes it
    base = {k: v for k, v in os.environ.items() if not k.startswith("YGOREPLAY_") and k not in ("COLUMNS", "LINES")}
    env = {**base, "PYTHONPATH": str(ROOT), "XDG_DATA_HOME": str(tmp_path / "data"), wire.DIR_ENV: folder,
           "YGOREPLAY_STORE": str(tmp_path / "store.sqlite")}
    alone = {**env, wire.AUTO_ENV: "off", wire.DIR_ENV: str(runtime / "none")}
    try:
        recorded = _run(env, "record", SAMPLE)                # a write: runs alone, starts nothing
        assert recorded.returncode == 0, recorded.stderr
        assert not os.path.exists(folder)
        first = _run(env, "list")
        assert first.returncode == 0 and first.stdout == _run(alone, "list").stdout
        deadline = time.monotonic() + 60                      # a wait for it to start, not a timing assertion
        while not (os.path.isdir(folder) and any(n.endswith(".sock") for n in os.listdir(folder))):
            assert time.monotonic() < deadline, "no resident was started"
            time.sleep(0.1)
        assert oct(os.stat(folder).st_mode & 0o777) == "0o700"
        for _ in range(30):                                   # ready once it has imported what commands need
            again = _run(env, "show", SAMPLE, "--at", "40")
            if _served(folder):
                break
        assert _served(folder) == 1
        assert (again.stdout, again.stderr, again.returncode) == \
            tuple(getattr(_run(alone, "show", SAMPLE, "--at", "40"), f) for f in ("stdout", "stderr", "returncode"))
        other = _run(env, "record", "replays/chain-counter-traps.jsonl")   # another process writes
        assert other.returncode == 0, other.stderr
        listed = _run(env, "list")
        assert _served(folder) == 2 and listed.stdout == _run(alone, "list").stdout
        assert other.stdout.decode().strip()[:6] in listed.stdout.decode()  # what it wrote is read
    finally:
        _run({**env, wire.AUTO_ENV: "off"}, "resident", "stop")
        shutil.rmtree(runtime, ignore_errors=True)
