"""Attacks on issue 25's sixteenth pass (``attack25ao``): what was merged this morning.

* ``lp-sheet --view p0`` (p1, spectator) of a judge's what-if branch held the what-if (its own
  events: Kaiba's cost paid, his Axe from the hand) while its parent hid what it played, where
  the service's sheet of every such token stops where the branch left and ``export --view`` now
  does too: a second door to the cut (ZONE-12, ZONE-13). A view written out to hand on is
  opened by one helper (``cli.common.handed_source``), the cut ``Records.branch_cut``'s.
* A judge's ruling rolled back by the judge stayed the ruling of its call (``check``'s
  ``calls[].ruled``) and of a disputed entry (``disputed[].open`` false): the judge's page showed
  the call open while check said it was ruled (MATCH-08). A rollback reverts the rulings it
  goes back past (``Entries.rulings_reverted``): the latest ruling still in effect rules, else
  the entry is open again.
* A receipt path the system refuses to look at (a name too long) raised an ``OSError`` past
  ``keep_receipt``'s "the write stands": the command line said "cannot write the output" of a
  write that was stored, and a script sent it again.
"""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from test_attack_25ag import _what_if
from test_attack_25al import _recorded
from test_device_names import ADMIN, START, WON, auth
from test_store import fresh_url
from ygoreplay.access import digest
from ygoreplay.application import check
from ygoreplay.cards import CardDB
from ygoreplay.cli import main
from ygoreplay.events import from_dict
from ygoreplay.service import create_app
from ygoreplay.store import Store

COST = {"kind": "life_points_changed", "player": 1, "amount": 1000, "reason": "cost", "lp": 7000}


@pytest.fixture
def url(tmp_path):
    with fresh_url("sqlite", tmp_path / "duels.sqlite") as found:
        yield found


def test_zone_12_a_sheet_of_a_what_if_branch_from_the_command_line_stops_where_the_services_does(url):
    """The judge's branch of a running duel in which Kaiba equips the Axe from his hand and pays
    1000 LP: the command line's p1 and spectator sheets listed the cost (the what-if's event #19)
    where the service's sheet of those views stops at event #17, where the branch left."""
    with Store(url, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        duel, branch = _what_if(client, "end")
        judge = auth(duel["tokens"]["judge"])
        paid = client.post(f"/duels/{branch}/events", json=[COST], headers=auth(duel["tokens"]["recorder"]))
        assert paid.status_code == 200, paid.text
        served = {view: client.get(f"/duels/{branch}/lp-sheet.csv", params={"view": view}, headers=judge).text
                  for view in ("judge", "p1", "spectator")}
    assert "cost" in served["judge"] and "cost" not in served["p1"] + served["spectator"]
    for view, sheet in served.items():
        printed = CliRunner().invoke(main, ["lp-sheet", branch, "--store", url, "--view", view, "--csv"])
        assert printed.exit_code == 0, printed.output
        assert printed.output.replace("\r\n", "\n") == sheet.replace("\r\n", "\n"), view


CALL = {"kind": "judge_note", "category": "call", "judge": "", "note": "was the Trap activated first?"}


def _ruling(on: int, decision: str) -> dict:
    return {"kind": "judge_note", "category": "ruling", "judge": "Head judge", "note": "ruled", "on": on,
            "decision": decision}


def _back(to: int) -> dict:
    return {"kind": "rolled_back", "to": to, "judge": "Head judge", "reason": "ruled on the wrong call"}


def test_match_08_a_ruling_the_judge_rolled_back_leaves_the_call_open():
    """The judge rules on the call (#13) and rolls the ruling back (#14): check said the call ruled
    at #13, where the judge's page lists it open."""
    events = [*WON[:12], CALL, _ruling(12, "stands"), _back(13), *WON[12:15]]
    calls = check([from_dict(e) for e in events], CardDB.classic()).to_dict()["calls"]
    assert [(c["index"], c["ruled"]) for c in calls] == [(12, None)]


def test_match_08_a_later_ruling_rolled_back_leaves_the_earlier_one_in_effect():
    """Two rulings on one call, the second rolled back: the first still rules it."""
    events = [*WON[:12], CALL, _ruling(12, "stands"), *WON[12:14], _ruling(12, "warning"), _back(16), *WON[14:16]]
    calls = check([from_dict(e) for e in events], CardDB.classic()).to_dict()["calls"]
    assert [(c["index"], c["ruled"] and (c["ruled"]["at"], c["ruled"]["decision"])) for c in calls] == [
        (12, (13, "stands"))]


def test_match_08_a_dispute_whose_ruling_was_rolled_back_is_open_again():
    """Kaiba disputes Yugi's entry #8; the judge rules it stands, then rolls the ruling back: the
    dispute was reported closed (``open`` false, ruled at #10)."""
    events = [*({**e, "entered_by": "p0"} for e in START),
              {"kind": "entry_disputed", "on": 8, "reason": "not what happened", "entered_by": "p1"},
              {**_ruling(8, "stands"), "entered_by": "judge"}, {**_back(10), "entered_by": "judge"}]
    report = check([from_dict(e) for e in events], CardDB.classic()).to_dict()
    assert [(d["index"], d["open"], d["ruled"]) for d in report["disputed"]] == [(8, True, None)]


def test_a_receipt_path_too_long_to_look_at_says_the_write_stands(tmp_path):
    path, duel = _recorded(tmp_path)
    more = tmp_path / "more.jsonl"
    more.write_text(json.dumps({"kind": "life_points_changed", "player": 0, "amount": 100, "reason": "gain"}) + "\n")
    result = CliRunner().invoke(main, ["append", duel, str(more), "--receipt", str(tmp_path / ("a" * 300) / "r.json"),
                                       "--store", path])
    assert result.exit_code != 0
    assert "cannot write the output" not in result.output, result.output
    assert f"the write stands: duel {duel} has 10 events" in result.output, result.output
