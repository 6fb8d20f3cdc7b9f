"""What a new user met walking through every command of the README with good and bad inputs.

Each test pins one fix: no traceback, a message that says what and where, the documented exit
code (0 ok, 1 rule broken / verification failed, 2 unreadable, 3 conflict).
"""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from test_yrpx import FLAGS, REPLAY_HAND_TEST, REPLAY_SINGLE_MODE, _single, replay as yrpx_file
from ygoreplay.cli import main

ROOT = Path(__file__).resolve().parent.parent
DAMAGE = ROOT / "replays" / "won-by-damage.jsonl"
SPECTATOR = ROOT / "replays" / "won-by-damage.spectator.ygr"


def run(*args, input: str | None = None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def clean(result, code: int) -> None:
    """The exit code, and a message rather than a traceback."""
    assert result.exit_code == code, result.output
    assert isinstance(result.exception, (SystemExit, type(None))), repr(result.exception)
    assert "Traceback" not in result.output


@pytest.fixture
def db(tmp_path) -> str:
    return str(tmp_path / "store" / "duels.sqlite")


def record(db: str, path: Path = DAMAGE, *options: str) -> str:
    result = run("record", path, *options, "--store", db)
    clean(result, 0)
    return result.stdout.strip()


# -- inputs that are not what they seem -----------------------------------------------------------

def test_an_empty_jsonl_file_is_unreadable_and_records_nothing(tmp_path, db):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("# only a comment\n\n")
    for command in (["check", empty], ["record", empty, "--store", db]):
        result = run(*command)
        clean(result, 2)
        assert f"{empty}: no events" in result.output
    assert run("list", "--store", db).output.startswith("no duels in ")


def test_a_folder_a_missing_file_and_an_ambiguous_prefix_say_so(tmp_path, db):
    ids = [record(db, DAMAGE, "--again") for _ in range(12)]     # the same file, twelve duels
    result = run("show", tmp_path, "--store", db)
    clean(result, 2)
    assert f"{tmp_path}: a folder" in result.output
    result = run("log", tmp_path / "missing.jsonl", "--store", db)
    clean(result, 2)
    assert "missing.jsonl: no such file" in result.output
    prefix = next(c for c in "0123456789abcdef" if sum(i.startswith(c) for i in ids) > 1)
    result = run("show", prefix, "--store", db)
    clean(result, 2)
    assert "is ambiguous" in result.output and "give more characters" in result.output
    assert all(i in result.output for i in ids if i.startswith(prefix))


def test_a_file_given_to_a_store_only_command_says_how_to_store_it(db):
    record(db)
    result = run("branch", DAMAGE, "--at", "3", "--store", db)
    clean(result, 2)
    assert "a file; this command takes a stored duel" in result.output and "ygoreplay record" in result.output


# -- writing outputs ------------------------------------------------------------------------------

def test_export_into_a_missing_folder_is_a_message_not_a_traceback(tmp_path):
    out = tmp_path / "no" / "such" / "folder" / "x.ygr"
    result = run("export", DAMAGE, "-o", out)
    clean(result, 2)
    assert f"{out}: cannot write" in result.output


def test_export_of_a_view_file_keeps_its_view_by_default(tmp_path):
    """Only a file a trusted key signed is exported again (the shipped samples are unsigned)."""
    from ygoreplay.replay_file import sign
    from ygoreplay.signing import OrganiserKey
    refused = run("export", SPECTATOR, "-o", tmp_path / "copy.ygr")
    clean(refused, 1)
    assert "NOT signed" in refused.output and not (tmp_path / "copy.ygr").exists()
    signed = tmp_path / "signed.ygr"
    signed.write_bytes(sign(Path(SPECTATOR).read_bytes(), OrganiserKey.load_or_create()[0]))
    result = run("export", signed, "-o", tmp_path / "copy.ygr")
    clean(result, 0)
    assert "spectator view" in result.output


def test_import_a_replay_into_an_existing_folder_writes_inside_it(tmp_path):
    source = tmp_path / "one.yrpX"
    source.write_bytes(yrpx_file())
    out = tmp_path / "out"
    out.mkdir()
    clean(run("import", source, "-o", out), 0)
    assert (out / "one.ygr").is_file()


def test_import_a_folder_to_a_file_is_refused(tmp_path):
    folder = tmp_path / "replays"
    folder.mkdir()
    (folder / "one.yrpX").write_bytes(yrpx_file())
    target = tmp_path / "file.txt"
    target.write_text("not a folder\n")
    result = run("import", folder, "-o", target)
    clean(result, 2)
    assert "not a folder" in result.output


def test_an_import_failure_says_cannot_import_once(tmp_path, db):
    hand_test = tmp_path / "hand.yrpX"
    hand_test.write_bytes(_single(FLAGS | REPLAY_SINGLE_MODE | REPLAY_HAND_TEST))
    result = run("import", hand_test, "--store", db)
    clean(result, 2)
    assert "cannot import: hand test" in result.output
    assert "cannot import: cannot import" not in result.output


def test_import_and_verify_of_a_jsonl_file_point_to_the_right_command():
    result = run("import", DAMAGE)
    clean(result, 2)
    assert "a JSON Lines duel" in result.output and "ygoreplay record" in result.output
    result = run("verify", DAMAGE)
    clean(result, 2)
    assert "no hash chain" in result.output and "ygoreplay check" in result.output


def test_audit_of_a_jsonl_file_does_not_claim_an_intact_chain():
    result = run("audit", DAMAGE)
    clean(result, 0)
    assert "hash chain: none" in result.output and "intact" not in result.output


# -- stores ---------------------------------------------------------------------------------------

def test_a_store_url_with_a_port_that_is_not_a_number_is_a_message():
    result = run("list", "--store", "postgresql://u@localhost:notaport/db")
    clean(result, 2)
    assert "store URL" in result.output and "notaport" in result.output


def test_postgresql_on_a_wrong_port_fails_fast_with_the_reason():
    started = time.monotonic()
    result = run("list", "--store", "postgresql://postgres@127.0.0.1:1/db")
    clean(result, 75)                     # not answering: try again later (EX_TEMPFAIL)
    assert time.monotonic() - started < 3
    assert "cannot reach PostgreSQL at 127.0.0.1:1" in result.output
    assert "refused" in result.output.lower()


# -- rollback, tree -------------------------------------------------------------------------------

def test_a_rollback_needs_a_judge_and_a_reason(db):
    result = run("branch", record(db), "--at", "40", "--store", db)      # a duel not yet over
    clean(result, 0)
    duel = result.stdout.strip()
    for judge, reason in (("", "why"), ("Ann", "  ")):
        result = run("rollback", duel, "--to", "30", "--judge", judge, "--reason", reason, "--store", db)
        clean(result, 1)                       # the rule every door meets (MATCH-08), nothing written
        assert result.stderr.startswith("#41 MATCH-08 ") and "signed and explained" in result.stderr
    clean(run("rollback", duel, "--to", "30", "--judge", "Ann", "--reason", "misplay", "--store", db), 0)


def test_tree_draws_siblings_with_branch_lines(db):
    parent = record(db)
    first = run("branch", parent, "--at", "60", "--store", db).stdout.strip()
    second = run("branch", parent, "--at", "30", "--store", db).stdout.strip()
    lines = run("tree", parent, "--store", db).stdout.splitlines()
    assert lines[0].startswith(parent)
    assert lines[1].startswith("    ├── ") and lines[2].startswith("    └── ")
    assert {lines[1].split()[1], lines[2].split()[1]} == {first, second}


# -- reading a duel: log, play, show --------------------------------------------------------------

@pytest.mark.parametrize("reader", ["head -3", "true"])     # ``true`` reads nothing: a sure EPIPE
def test_log_piped_into_a_reader_that_stops_exits_0_without_a_message(reader):
    ygoreplay = f"{sys.executable} -c 'from ygoreplay.cli import main; main()'"
    command = f"{ygoreplay} log {DAMAGE} | {reader}; echo \"exit=${{PIPESTATUS[0]}}\""
    done = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120)
    assert done.stdout.splitlines()[-1] == "exit=0", done.stdout + done.stderr
    assert done.stderr == ""


def test_log_names_where_a_card_goes_by_player_and_zone():
    lines = run("log", DAMAGE).output.splitlines()
    assert any("Kaiba's Vorse Raider [M2] → Kaiba's GY (destroyed by battle)" in line for line in lines)
    assert not any(" of player " in line for line in lines)


def test_play_ends_cleanly_when_its_input_ends():
    result = run("play", DAMAGE, input="n\nj 999\n")
    clean(result, 0)
    assert "no event 999: the last is #88" in result.output
    assert "Aborted" not in result.output


def test_a_view_shows_a_face_down_card_as_a_set_card():
    output = run("show", SPECTATOR, "--turn", "2").output
    assert "│M2 set     │" in output and "│S1 set     │" in output and "(face-down)" in output
    assert "(hidden card)" not in output


def test_check_reads_a_judge_ygr_and_checks_a_view_file_as_far_as_it_knows():
    result = run("check", ROOT / "replays" / "won-by-damage.judge.ygr")
    clean(result, 0)
    assert "legal; 89 events" in result.output
    result = run("check", SPECTATOR)
    clean(result, 0)
    assert "legal; 89 events" in result.output and "not decided: #9 SUM-01" in result.output
