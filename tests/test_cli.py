"""The command line as a user meets it: exit codes, the violation format, --json, the board."""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ygoreplay.cli import main

REPLAYS = Path(__file__).resolve().parent.parent / "replays"
DAMAGE = str(REPLAYS / "won-by-damage.jsonl")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_check_legal_duel_exits_0():
    result = run("check", DAMAGE)
    assert result.exit_code == 0
    assert "legal" in result.output and "player 0 won (lp)" in result.output


def test_check_illegal_duel_prints_index_rule_message_and_exits_1():
    result = run("check", REPLAYS / "illegal" / "summon-without-tributes.jsonl")
    assert result.exit_code == 1
    assert result.output.splitlines()[0].startswith("#33 SUM-04 Summoned Skull is Level 6")


def test_check_json_has_the_documented_shape():
    result = run("check", "--json", REPLAYS / "illegal" / "wrong-battle-damage.jsonl")
    data = json.loads(result.output)
    assert result.exit_code == 1
    assert data["events"] == 23
    assert data["violations"][0]["rule"] == "DMG-07" and data["violations"][0]["index"] == 22
    assert set(data["final"]) == {"lp", "turn", "phase", "winner", "reason"}
    assert data["final"]["lp"] == [8000, 8000] and data["final"]["winner"] is None


def test_check_json_final_of_a_finished_duel():
    data = json.loads(run("check", "--json", DAMAGE).output)
    assert data["violations"] == [] and data["final"]["winner"] == 0 and data["final"]["lp"] == [8000, 0]


def test_unreadable_inputs_exit_2_with_a_message_and_no_traceback(tmp_path):
    missing = run("check", tmp_path / "nope.jsonl")
    assert missing.exit_code == 2 and "cannot read" in missing.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "duel_started", "first_player": 0}\n{"kind": "summon_everything"}\n')
    result = run("check", bad)
    assert result.exit_code == 2
    assert f"{bad}:2: unknown event kind 'summon_everything'" in result.output
    assert "Traceback" not in result.output
    bad.write_text("{not json\n")
    assert run("check", bad).exit_code == 2
    bad.write_bytes(b"\xff\xfe\x00")
    assert "not UTF-8" in run("check", bad).output


def test_show_prints_both_sides_lp_hand_and_phase():
    result = run("show", DAMAGE, "--at", 60)
    assert result.exit_code == 0
    out = result.output
    assert "after event #60" in out and "turn 4" in out
    assert "Player 0 (Yugi)  LP 8000" in out and "Player 1 (Kaiba)  LP 4400" in out
    assert "  hand 3      Raigeki, Gemini Elf, Dark Magician" in out
    assert "│M1 2500A   │" in out and "│M0 2900A   │" in out                    # zones named as the log does
    assert "Summoned" in out and "Luster" in out and "  GY 1        Vorse Raider" in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_show_open_chain_and_turn():
    out = run("show", REPLAYS / "chain-counter-traps.jsonl", "--at", 32).output
    assert "chain: 5 link(s), the last resolves first\n  1. Dark Hole (Yugi, Spell Speed 1)" in out
    assert "  5. Seven Tools of the Bandit (Yugi, Spell Speed 3)" in out
    assert "(turn_started)\nturn 4, Kaiba's start of the turn" in run("show", DAMAGE, "--turn", 4).output


def test_show_outside_the_duel_exits_2():
    result = run("show", DAMAGE, "--at", 5000)
    assert result.exit_code == 2 and "outside the duel" in result.output
    assert run("show", DAMAGE, "--turn", 99).exit_code == 2
