"""Attacks on issue 25's fourteenth pass (``attack25ac``): the files the command line writes that
hold what only the judge may see, read by another user of the machine.

A judge's ``.ygr`` (and a web page carrying one) is its owner's alone (``replay_file.file_mode``,
0600): it holds every hidden card. The other doors that write the same record did not ask that
question, and wrote it for everyone to read (0644, whatever the user's umask: the write sets the
mode itself): ``export --record --view judge`` (the record as JSON Lines: every hand, every Deck's
order), ``opened -o`` (the judge record of a sealed duel), a match file (``match start`` and each
command that adds to it: both players' decklists and Side Decks, which each view of a match
withholds) and a write's receipt (``record --receipt``: the record's head, which the service
signs for its judge and recorder only, as from two heads and a view's copy of the entries between
each guess of a hidden card could be hashed until one met the next head). Another user of a
shared machine (a tournament's PC, a shared home) read a running duel's hands and Deck order.
Each such file is now written by the one rule (``files.mode_for``): the judge's is its owner's.
"""
from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner

from ygoreplay.cli import main

ROOT = Path(__file__).resolve().parent.parent
DAMAGE = ROOT / "replays" / "won-by-damage.jsonl"


def _run(tmp_path: Path, *args: object):
    env = {"XDG_DATA_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path), "YGOREPLAY_STORE": str(tmp_path / "s.sqlite")}
    return CliRunner(env=env).invoke(main, [str(a) for a in args])


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_the_judges_record_as_json_lines_is_its_owners_alone_and_a_view_everyones(tmp_path):
    for view, mode in (("judge", 0o600), ("spectator", 0o644), ("p0", 0o644)):
        out = tmp_path / f"{view}.jsonl"
        out.write_text("an older file, open to all\n")
        out.chmod(0o644)
        done = _run(tmp_path, "export", DAMAGE, "--record", "--view", view, "-o", out)
        assert done.exit_code == 0, done.output
        assert _mode(out) == mode, view


def test_the_judge_record_of_a_sealed_duel_is_its_owners_alone(tmp_path):
    out = tmp_path / "opened.jsonl"
    done = _run(tmp_path, "opened", DAMAGE, "-o", out)
    assert done.exit_code == 0, done.output
    assert _mode(out) == 0o600


def test_a_match_file_holding_both_decklists_is_its_owners_alone_and_stays_so(tmp_path):
    (tmp_path / "lflist.conf").write_text("!Sample list\n55144522 0 -- Pot of Greed\n")
    match = tmp_path / "m.jsonl"
    done = _run(tmp_path, "match", "start", match, "--players", "Yugi", "Kaiba", "--policy", "tcg-2024",
                "--banlist", tmp_path / "lflist.conf")
    assert done.exit_code == 0, done.output
    assert _mode(match) == 0o600
    match.chmod(0o640)                         # what its owner chose is not widened by the next command
    done = _run(tmp_path, "match", "time", match, "--clock", "2025-12-06T10:40:00Z")
    assert done.exit_code == 0, done.output
    assert _mode(match) == 0o600


def test_a_writes_receipt_naming_the_records_head_is_its_owners_alone(tmp_path):
    receipt = tmp_path / "receipt.json"
    done = _run(tmp_path, "record", DAMAGE, "--receipt", receipt)
    assert done.exit_code == 0, done.output
    assert '"head"' in receipt.read_text()
    assert _mode(receipt) == 0o600


def test_no_judge_file_is_widened_by_a_permissive_umask_nor_a_view_narrowed_by_none(tmp_path):
    """The mode is the file's own, whatever umask the process runs under (a resident's caller's)."""
    old = os.umask(0)
    try:
        judge, view = tmp_path / "j.jsonl", tmp_path / "v.jsonl"
        assert _run(tmp_path, "export", DAMAGE, "--record", "--view", "judge", "-o", judge).exit_code == 0
        assert _run(tmp_path, "export", DAMAGE, "--record", "--view", "spectator", "-o", view).exit_code == 0
    finally:
        os.umask(old)
    assert (_mode(judge), _mode(view)) == (0o600, 0o644)
