"""The command line's match file is written one writer at a time (``files.rewrite``): an append
read the file, judged its events and renamed the whole file over it, unlocked, so two commands
at once each wrote the old file plus their own event and the later rename dropped the other's,
both saying ok ("nothing recorded is lost"). And ``verify`` of a stored match by its id.

No test here waits for a time: a writer that should wait is shown waiting by what it says on
stderr before it blocks, and two processes' appends are counted once both have finished.
"""
from __future__ import annotations

import fcntl
import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from test_receipts import cut_back
from ygoreplay.cli import main
from ygoreplay.events import from_dict
from ygoreplay.files import write_atomic
from ygoreplay.jsonl import dumps, read_events
from ygoreplay.match import application as app

CLOCK = "2025-12-06T10:40:00Z"


def _match(tmp_path: Path) -> Path:
    """A match file of Yugi and Kaiba, its opening event alone."""
    (tmp_path / "lflist.conf").write_text("!Sample list\n55144522 0 -- Pot of Greed\n")
    match = tmp_path / "m.jsonl"
    done = CliRunner().invoke(main, ["match", "start", str(match), "--players", "Yugi", "Kaiba",
                                     "--policy", "tcg-2024", "--banlist", str(tmp_path / "lflist.conf")])
    assert done.exit_code == 0, done.output
    return match


def _kinds(match: Path) -> list[str]:
    return [ev.kind for ev in read_events(match)]


def test_a_writer_waits_for_the_lock_then_reads_the_file_again_and_keeps_both(tmp_path):
    """The test holds the match file's lock and writes a judge call under it, the way a second
    writer does; ``match penalty`` started meanwhile waits for the lock (it says so), then reads
    the file again: both events are kept. Unlocked, the penalty was written at once and the
    test's write (of the file it had read) dropped it."""
    match = _match(tmp_path)
    with open(tmp_path / ".m.jsonl.lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        before = match.read_bytes()
        penalty = subprocess.Popen([sys.executable, "-m", "ygoreplay", "match", "penalty", str(match), "--player", "0",
                                    "--infraction", "slow_play", "--penalty", "warning", "--judge", "Ann"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        said = penalty.stderr.readline()       # it waits for the lock (unlocked: it ended, having written)
        call = from_dict({"kind": "judge_called", "player": 1, "judge": "Ann"})
        write_atomic(match, before + dumps([call]).encode("utf-8"), 0o600)
    out, err = penalty.communicate()
    assert penalty.returncode == 0, said + err
    assert _kinds(match) == ["match_started", "judge_called", "penalty_given"]
    assert "waiting" in said and "m.jsonl" in said, said
    assert "#2 penalty_given" in out


N = 15
APPENDER = """
import sys
from ygoreplay.card_sources import card_lookup
from ygoreplay.events import from_dict
from ygoreplay.match.application import append_to_file
path, player = sys.argv[1], int(sys.argv[2])
print("ready", flush=True)
sys.stdin.readline()                       # both start together
for i in range(int(sys.argv[3])):
    append_to_file(path, [from_dict({"kind": "judge_called", "player": player, "judge": f"J{player}-{i}"})],
                   card_lookup(()))
"""


def test_two_processes_appending_at_once_lose_no_event(tmp_path):
    """Two processes each append N judge calls to one match file through the one application
    command, started together: all 2N are there afterwards, each process's in its order. Unlocked,
    most were lost (each rename wrote the file its process had read, plus one event)."""
    match = _match(tmp_path)
    writers = [subprocess.Popen([sys.executable, "-c", APPENDER, str(match), str(p), str(N)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for p in (0, 1)]
    for w in writers:
        assert w.stdout.readline() == "ready\n", w.stderr.read()
    for w in writers:
        w.stdin.write("go\n")
        w.stdin.flush()
    for w in writers:
        _out, err = w.communicate()
        assert w.returncode == 0, err
    judges = [ev.judge for ev in read_events(match)[1:]]
    assert len(judges) == 2 * N
    for p in (0, 1):
        assert [j for j in judges if j.startswith(f"J{p}-")] == [f"J{p}-{i}" for i in range(N)]


def test_a_command_made_from_a_read_the_file_no_longer_is_a_conflict(tmp_path, monkeypatch):
    """``match time`` makes its ``time_called`` from the match it read (the duel in progress);
    a penalty another writer appended between that read and the write makes it a conflict
    (exit 3, the store's conflict: "run the command again"), nothing written: it was written
    after the penalty, made for a match the file no longer was."""
    match = _match(tmp_path)
    read = app.state_of

    def another_writer_meanwhile(path, cards):
        state = read(path, cards)
        app.append_to_file(path, [from_dict({"kind": "penalty_given", "player": 0, "infraction": "slow_play",
                                             "penalty": "warning", "judge": "Ann"})], cards)
        return state

    monkeypatch.setattr(app, "state_of", another_writer_meanwhile)
    done = CliRunner().invoke(main, ["match", "time", str(match), "--clock", CLOCK])
    assert done.exit_code == 3, done.output
    assert "changed since this command read it (1 events, now 2)" in done.output
    assert "Traceback" not in done.output
    assert _kinds(match) == ["match_started", "penalty_given"]


def test_two_starts_of_one_match_file_keep_the_first(tmp_path, monkeypatch):
    """``match start`` checked that the file was not there, then replaced whatever was by then:
    another ``match start`` of the same file meanwhile lost its players and decklists. The
    second is refused, the first's file kept."""
    match = tmp_path / "m.jsonl"
    judged = app.judged

    def another_start_meanwhile(events, added, cards):
        match.write_text('{"kind": "match_started", "players": ["Joey", "Mai"], "policy": "tcg-2024"}\n')
        return judged(events, added, cards)

    monkeypatch.setattr(app, "judged", another_start_meanwhile)
    (tmp_path / "lflist.conf").write_text("!Sample list\n55144522 0 -- Pot of Greed\n")
    done = CliRunner().invoke(main, ["match", "start", str(match), "--players", "Yugi", "Kaiba",
                                     "--policy", "tcg-2024", "--banlist", str(tmp_path / "lflist.conf")])
    assert done.exit_code == 2 and "exists already" in done.output, done.output
    assert "Joey" in match.read_text()


def test_verify_takes_a_stored_match_by_its_id_and_asks_its_witness(tmp_path):
    """``ygoreplay verify ID --store`` of a match (it said "no duel matches"): checked as the
    service's ``/matches/ID/verify`` checks it (``Records.verify``), a match cut back behind its
    witness NOT ok (exit 1)."""
    store, witness = str(tmp_path / "duels.sqlite"), str(tmp_path / "witness.sqlite")
    (tmp_path / "round.csv").write_text("1,Joey,Mai\n")
    runner = CliRunner()
    made = runner.invoke(main, ["round", "create", str(tmp_path / "round.csv"), "--event", "Regional", "--round", "1",
                                "--json", "--store", store, "--witness", witness])
    assert made.exit_code == 0, made.output
    round_ = json.loads(made.stdout)
    match = round_["tables"][0]["match"]
    timed = runner.invoke(main, ["round", "time", round_["id"], "--store", store, "--witness", witness])
    assert timed.exit_code == 0, timed.output
    ok = runner.invoke(main, ["verify", match[:8], "--store", store, "--witness", witness, "--json"])
    assert ok.exit_code == 0, ok.output
    verdict = json.loads(ok.stdout)
    assert (verdict["id"], verdict["ok"], verdict["events"], verdict["witnessed"]) == (match, True, 2, 2)
    cut_back(store, match, 1)                  # its time_called deleted with its anchor
    cut = runner.invoke(main, ["verify", match, "--store", store, "--witness", witness])
    assert cut.exit_code == 1, cut.output
    assert "NOT ok" in cut.output or "BROKEN" in cut.output
    assert "its witness" in cut.output
