"""Attack 25al: the doors that write, each held to the one command every face calls.

* LOG-05: an LP gain whose total passes 64 bits was legal to the rules, and every door then failed
  to sign the head (an internal error, a 500): refused by the fold every door passes.
* A duel the organiser created witnessed was begun by its recorder with a ``position_set_up``
  (which says nothing of a table): a machine's record, its players' devices refused.
* A judge's rollback or note over HTTP or the command line was written at whatever head the
  store held: no ``expected`` (as ``/events`` has), so a rollback reverted entries the judge never
  saw, and a note sent again after its answer was lost was written twice.
* The command line's receipt that could not be saved said "nothing was written" of a write that
  stood: a script sent it again (events appended twice, a second duel).
* The command line's import and branch never handed their receipts to the witness.
"""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from test_release import auth, client, store  # noqa: F401  (fixtures)
from test_service_table_recording import ORGANISER, at_the_table
from ygoreplay.application import check
from ygoreplay.cards import CardDB
from ygoreplay.cli import main
from ygoreplay.events import INT_MAX, from_dict
from ygoreplay.receipts import Witness

REPLAYS = Path(__file__).resolve().parent.parent / "replays"
GAIN = {"kind": "life_points_changed", "player": 0, "amount": INT_MAX, "reason": "gain"}
POSITION = {"kind": "position_set_up", "sides": [{"lp": 8000, "deck": [0] * 30, "hand": [0] * 5}] * 2}


def _count(client, duel: dict) -> int:  # noqa: F811
    return client.get(f"/duels/{duel['id']}/state", headers=auth(duel["tokens"]["judge"])).json()["events"]


def _opening(lines: int = 9) -> list[str]:
    """The first events of a sample duel, as JSON Lines (comments left out)."""
    text = (REPLAYS / "lost-by-deck-out.jsonl").read_text().splitlines()
    return [line for line in text if line.strip() and not line.startswith("#")][:lines]


def _recorded(tmp_path: Path) -> tuple[str, str]:
    """A duel recorded through the command line: (store path, its id)."""
    path = str(tmp_path / "duels.sqlite")
    (tmp_path / "duel.jsonl").write_text("\n".join(_opening()) + "\n")
    result = CliRunner().invoke(main, ["record", str(tmp_path / "duel.jsonl"), "--store", path])
    assert result.exit_code == 0, result.output
    return path, result.output.strip().splitlines()[-1]


def test_log_05_an_lp_total_past_64_bits_is_refused_not_an_internal_error(client):  # noqa: F811
    """Each amount fits a record; the second gain's total does not fit the signed head: 422 LOG-05,
    nothing written, and the duel goes on."""
    duel, recorder = at_the_table(client)
    count = _count(client, duel)
    r = client.post(f"/duels/{duel['id']}/events", json=[GAIN, GAIN], headers=auth(recorder))
    assert r.status_code == 422 and r.json()["rule"] == "LOG-05", r.text
    assert _count(client, duel) == count
    r = client.post(f"/duels/{duel['id']}/events", json=[{**GAIN, "amount": 500}], headers=auth(recorder))
    assert r.status_code == 200, r.text


def test_log_05_the_fold_every_door_passes_refuses_the_lp_total():
    """The command line's record and an import's audit fold the same way: a violation, not a crash."""
    events = [from_dict(json.loads(line)) for line in _opening()] + [from_dict(GAIN)]
    report = check(events, CardDB.classic()).to_dict()
    assert [v["rule"] for v in report["violations"]] == ["LOG-05"]


def test_a_duel_created_witnessed_is_not_begun_as_a_machines_record(client):  # noqa: F811
    """Its recorder's position_set_up (no table's word in it) is refused, nothing written; its
    duel_started saying witnessed is taken."""
    duel = client.post("/duels", json={"title": "table 7", "mode": "witnessed"}, headers=ORGANISER).json()
    recorder = duel["tokens"]["recorder"]
    r = client.post(f"/duels/{duel['id']}/events", json=[POSITION], headers=auth(recorder))
    assert r.status_code == 400 and "witnessed" in r.json()["error"], r.text
    assert _count(client, duel) == 0
    machine = client.post("/duels", json={"title": "a puzzle"}, headers=ORGANISER).json()
    r = client.post(f"/duels/{machine['id']}/events", json=[POSITION], headers=auth(machine["tokens"]["recorder"]))
    assert r.status_code == 200, r.text


def test_a_judges_rollback_on_a_head_it_did_not_see_is_a_conflict(client):  # noqa: F811
    """The judge decided with the duel at N events; the recorder entered one more: 409, the
    recorder's entry not reverted unseen. At the head it saw, it is written."""
    duel, recorder = at_the_table(client)
    seen = _count(client, duel)
    r = client.post(f"/duels/{duel['id']}/events", json=[{"kind": "phase_entered", "phase": "battle"}],
                    headers=auth(recorder))
    assert r.status_code == 200, r.text
    body = {"to": seen - 1, "judge": "Ann", "reason": "the wrong phase"}
    r = client.post(f"/duels/{duel['id']}/rollback", params={"expected": seen}, json=body,
                    headers=auth(duel["tokens"]["judge"]))
    assert r.status_code == 409, r.text
    assert _count(client, duel) == seen + 1
    r = client.post(f"/duels/{duel['id']}/rollback", params={"expected": seen + 1}, json=body,
                    headers=auth(duel["tokens"]["judge"]))
    assert r.status_code == 200 and r.json()["position"] == seen + 2, r.text


def test_a_judges_note_sent_again_is_not_written_twice(client):  # noqa: F811
    duel, _recorder = at_the_table(client)
    count = _count(client, duel)
    body = {"judge": "Ann", "text": "slow play warning", "category": "warning"}
    for status in (200, 409):          # the second: its answer lost, sent again
        r = client.post(f"/duels/{duel['id']}/notes", params={"expected": count}, json=body,
                        headers=auth(duel["tokens"]["judge"]))
        assert r.status_code == status, r.text
    assert _count(client, duel) == count + 1


def test_the_command_lines_rollback_and_note_take_the_head_they_were_decided_on(tmp_path):
    path, duel = _recorded(tmp_path)
    runner = CliRunner()
    for args in (["note", duel, "a warning", "--judge", "Ann", "--expected", "3"],
                 ["rollback", duel, "--to", "5", "--judge", "Ann", "--reason", "mis-entry", "--expected", "3"]):
        result = runner.invoke(main, [*args, "--store", path])
        assert result.exit_code == 3, (args, result.output)
    result = runner.invoke(main, ["note", duel, "a warning", "--judge", "Ann", "--expected", "9", "--store", path])
    assert result.exit_code == 0, result.output


def test_a_receipt_that_cannot_be_saved_does_not_say_nothing_was_written(tmp_path):
    """The append stands: said so, with the duel's new length, so it is not sent again."""
    path, duel = _recorded(tmp_path)
    more = tmp_path / "more.jsonl"
    more.write_text(json.dumps({"kind": "life_points_changed", "player": 0, "amount": 100, "reason": "gain"}) + "\n")
    result = CliRunner().invoke(main, ["append", duel, str(more), "--receipt", str(tmp_path / "none" / "r.json"),
                                       "--store", path])
    assert result.exit_code != 0
    assert "nothing was written" not in result.output and f"duel {duel} has 10 events" in result.output, result.output
    listed = CliRunner().invoke(main, ["list", "--json", "--store", path])
    assert [d["events"] for d in json.loads(listed.output)] == [10]


def test_the_command_lines_import_and_branch_hand_their_receipts_to_the_witness(tmp_path, monkeypatch):
    witness = str(tmp_path / "witness.sqlite")
    monkeypatch.setenv("YGOREPLAY_WITNESS", witness)
    path, duel = _recorded(tmp_path)
    runner = CliRunner()
    result = runner.invoke(main, ["branch", duel, "--at", "4", "--store", path])
    assert result.exit_code == 0, result.output
    child = result.output.strip().splitlines()[-1]
    result = runner.invoke(main, ["import", str(REPLAYS / "lost-by-deck-out.judge.ygr"), "--unsigned",
                                  "--store", str(tmp_path / "other.sqlite")])
    assert result.exit_code in (0, 1), result.output
    imported = result.output.strip().splitlines()[0]
    kept = Witness(witness)
    try:
        assert kept.latest(child) is not None and kept.latest(child).events == 5
        assert kept.latest(imported) is not None
    finally:
        kept.close()
