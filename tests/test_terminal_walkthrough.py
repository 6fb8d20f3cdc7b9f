"""Every command, as a judge walks through them (issue 15, "done when"): on the shipped samples,
and on real EDOPro duels imported with a real cards.cdb. Each step checks its exit code, that no
traceback shows, and what a judge reads in the answer."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import shared_path
from ygoreplay.cli import main

ROOT = Path(__file__).resolve().parent.parent
REPLAYS = ROOT / "replays"
SAMPLES = sorted(REPLAYS.glob("*.jsonl"))
VIEWS = ("judge", "p0", "p1", "spectator")


def run(*args, input: str | None = None, code: int = 0, env: dict | None = None):
    result = CliRunner().invoke(main, [str(a) for a in args], input=input, env=env)
    assert result.exit_code == code, (args, result.output)
    assert isinstance(result.exception, (SystemExit, type(None))), repr(result.exception)
    assert "Traceback" not in result.output
    return result


def widest(text: str) -> int:
    return max(len(line) for line in text.splitlines())


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.stem for s in SAMPLES])
def test_every_command_on_a_sample(sample, tmp_path):
    store = ["--store", str(tmp_path / "duels.sqlite")]
    checked = run("check", sample).output
    assert "legal;" in checked
    assert json.loads(run("check", sample, "--json").output)["violations"] == []
    events = sample.read_text().splitlines()
    body = [line for line in events if line.strip() and not line.startswith("#")]
    first = tmp_path / "first.jsonl"
    first.write_text("\n".join(body[:40]) + "\n")
    duel = run("record", first, "--title", sample.stem, *store).stdout.strip()
    assert run("append", duel, "-", "--expected", 40, *store, input="\n".join(body[40:]) + "\n").stdout.strip() \
        == str(len(body))
    listed = run("list", *store).output
    assert duel in listed and "Yugi vs Kaiba" in listed and f"{len(body)} events" in listed and " won (" in listed
    assert json.loads(run("list", "--json", "--player", "kaiba", *store).output)[0]["events"] == len(body)
    for view in VIEWS:
        board = run("show", duel, "--view", view, *store).output
        assert widest(board) <= 80 and "│M0" in board and "Player 1 (Kaiba)" in board
        log = run("log", duel, "--view", view, *store).output
        assert log.count("\nTurn ") >= 3 and "The duel ends" in log
    assert "turn 3, Yugi's start of the turn" in run("show", duel, "--turn", 3, *store).output
    entries = [json.loads(line) for line in run("log", duel, "--json", "--turn", 2, *store).output.splitlines()]
    assert entries and {e["turn"] for e in entries} == {2}
    played = run("play", duel, *store, input="n\nt 2\nv spectator\nf draws\nq\n").output
    assert "[spectator view]" in played and "turn 2" in played
    assert json.loads(run("audit", duel, "--json", *store).output)["chain_ok"] is True
    assert "ok," in run("verify", duel, *store).output
    spectator = tmp_path / "spectator.ygr"
    run("export", duel, "-o", spectator, "--view", "spectator", *store)
    assert "ok," in run("verify", spectator).output
    assert run("log", spectator).output == run("log", duel, "--view", "spectator", *store).output
    judge = tmp_path / "judge.ygr"
    run("export", duel, "-o", judge, *store)
    imported = run("import", judge, "--title", "again", *store).stdout.strip()
    assert run("diff", duel, imported, *store).output.endswith("are the same position\n")
    branch = run("branch", duel, "--at", 30, "--title", "what if", *store).stdout.strip()
    assert branch in run("tree", duel, *store).output
    assert "Yugi" in run("diff", f"{duel}@30", branch, *store).output or \
        run("diff", f"{duel}@30", branch, *store).output.endswith("are the same position\n")
    run("note", branch, "time called", "--judge", "J. Smith", "--category", "time", *store)
    run("rollback", branch, "--to", 20, "--judge", "J. Smith", "--reason", "misread", *store)
    log = run("log", branch, *store).output
    assert "JUDGE J. Smith (time): time called" in log and "rolls the game back to before event #20: misread" in log
    assert "[reverted by #32]" in log and "[reverted by #31]" not in log
    assert "1 branch(es)" in run("list", *store).output


def test_the_organiser_key_decks_and_card_database(tmp_path):
    cdb = shared_path("cards", "goat-entries.cdb")
    env = {"XDG_DATA_HOME": str(tmp_path / "xdg")}              # this test's own installed database
    assert run("key").output.startswith("ed25519:")
    installed = run("cards", "update", "--source", cdb, env=env).output
    assert installed.startswith("installed 187 cards from ") and "cards from" in installed
    assert "installed:" in run("cards", "status", env=env).output
    assert "Skull Dice (GOAT)" in run("cards", "find", "skull dice", env=env).output
    assert "Mystical Space Typhoon" in run("cards", "find", "mystical space").output     # the bundled set
    deck = next(iter(sorted(shared_path("real-decks", "edopro").glob("*.ydk"))))
    result = CliRunner().invoke(main, ["deck", "check", str(deck), "--cards", str(cdb)])
    assert result.exit_code in (0, 1) and "Main " in result.output and "Traceback" not in result.output


def test_every_command_on_imported_real_duels_with_a_real_card_database(tmp_path):
    folder = shared_path("real-replays", "edopro")
    cdb = shared_path("cards", "goat-entries.cdb")
    picked = tmp_path / "replays"
    picked.mkdir()
    for name in ("GG_Chemi_vs_IA_Horus.yrpX", "2020-09-24_20-56-35.yrpX", "2020-06-21_12-58-40.yrpX"):
        shutil.copy(folder / name, picked / name)
    store = ["--store", str(tmp_path / "duels.sqlite")]
    summary = CliRunner().invoke(main, ["import", str(picked), "--cards", str(cdb), "--json", *store])
    assert summary.exit_code in (0, 1) and "Traceback" not in summary.output
    outcomes = json.loads(summary.stdout)
    assert len(outcomes) == 3 and all(o["id"] and not o["error"] and o["lp"] and o["winner"] for o in outcomes)
    listed = {d["id"]: d for d in json.loads(run("list", "--json", *store).output)}
    assert set(listed) == {o["id"] for o in outcomes}
    assert all(d["status"] == "ended" and d["result"] and len(d["players"]) == 2 for d in listed.values())
    text = run("list", *store).output
    assert "[AI] Horus" in text and " won (" in text
    chemi = next(o["id"] for o in outcomes if o["file"].startswith("GG_Chemi"))
    log = run("log", chemi, *store).output
    assert "Mystical Space Typhoon" in log                          # the names found at import, kept in the store
    assert "(from Card 96029574 [M1]'s attack): LP 8000 → 7000" in log
    for outcome in outcomes:
        duel = outcome["id"]
        for view in VIEWS:
            board = run("show", duel, "--view", view, *store).output
            assert widest(board) <= 80 and "duel over:" in board
            lines = run("log", duel, "--view", view, *store).output.splitlines()
            assert all(line.startswith(("Turn ", "  ", "Before")) or not line for line in lines)
        assert run("play", duel, *store, input="t 2\nn\nq\n").output.count("event #") == 3
        audited = CliRunner().invoke(main, ["audit", duel, "--json", *store])
        data = json.loads(audited.stdout)
        assert audited.exit_code == (1 if data["violations"] else 0) and data["chain_ok"] is True
        assert "ok," in run("verify", duel, *store).output
        out = tmp_path / f"{duel}.p0.ygr"
        run("export", duel, "-o", out, "--view", "p0", *store)
        assert "ok," in run("verify", out).output
    # the files themselves, opened directly with the database named on the command line
    direct = run("log", picked / "GG_Chemi_vs_IA_Horus.yrpX", "--cards", cdb).output
    assert direct == log
    assert widest(run("show", picked / "GG_Chemi_vs_IA_Horus.yrpX", "--cards", cdb).output) <= 80

