"""Attacks on issue 25's seventeenth pass (``attack25at``): the paper table, a cheating player.

* LOG-12: a correction is the corrector's own slip. A player's device struck its own entry after
  the other player had confirmed it, and entered another in its place: the record held what one
  device alone changed after both had agreed. It struck one the other player had disputed (a
  call of the judge, MATCH-08) as well, so the judge came to an entry already gone, and the
  table's recorder struck a player's dispute so too. A confirmation or a dispute is a remark
  (``rules.entries``), never in the fold's events of play, so the check of "their own entries
  only" did not see it. Now no correction strikes an entry another confirmed or disputed
  (``History._remarked_by_another``, the fold every door passes); the judge's rollback still
  goes back past it.
* A second dispute of an entry replaced the first in the record's book (``rules.entries``: one
  dispute an entry): the recorder's entry disputed by Kaiba's device ("he drew twice"), then by
  Yugi's ("all fine"), was listed to the judge (``check``, the viewer's steps) as Yugi's dispute
  alone. An entry's open dispute now waits for the judge's ruling; after it, it may be disputed
  again.
"""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from test_release import auth, client, store  # noqa: F401  (fixtures)
from test_service_table_recording import ORGANISER
from ygoreplay.cards import CardDB
from ygoreplay.cli import main
from ygoreplay.events import from_dict
from ygoreplay.rules import History, RuleViolation

SETUP = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["Yugi", "Kaiba"], "witnessed": True},
         *({"kind": "deck_registered", "player": p, "main": [0] * 40, "extra": [0] * 15} for p in (0, 1)),
         *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
         {"kind": "turn_started", "player": 0, "turn": 1}]
DRAW_PHASE = {"kind": "phase_entered", "phase": "draw"}
MAIN = {"kind": "phase_entered", "phase": "main1"}


def _table(client) -> tuple[str, dict]:  # noqa: F811
    duel = client.post("/duels", json={"title": "table 3", "mode": "witnessed"}, headers=ORGANISER).json()
    tokens = {role: auth(token) for role, token in duel["tokens"].items()}
    assert client.post(f"/duels/{duel['id']}/events", json=SETUP, headers=tokens["recorder"]).status_code == 200
    return duel["id"], tokens


def _send(client, duel_id: str, headers: dict, *events: dict):  # noqa: F811
    return client.post(f"/duels/{duel_id}/events", json=list(events), headers=headers)


def _count(client, duel_id: str, tokens: dict) -> int:  # noqa: F811
    return client.get(f"/duels/{duel_id}/state", headers=tokens["judge"]).json()["events"]


@pytest.mark.parametrize("remark", [{"kind": "entry_confirmed"}, {"kind": "entry_disputed", "reason": "it was not"}])
def test_a_player_strikes_no_entry_of_its_own_the_other_player_confirmed_or_disputed(client, remark):  # noqa: F811
    """Yugi's device enters the Draw Phase, Kaiba's confirms (or disputes) it; Yugi's Undo is
    refused (422, LOG-12), nothing written; an entry of Yugi's nobody remarked on he still
    corrects alone, and the judge's rollback goes back past the remark."""
    duel_id, tokens = _table(client)
    entry = _send(client, duel_id, tokens["p0"], DRAW_PHASE).json()["position"] - 1
    assert _send(client, duel_id, tokens["p1"], {**remark, "on": entry}).status_code == 200
    head = _count(client, duel_id, tokens)
    undo = _send(client, duel_id, tokens["p0"], {"kind": "entry_corrected", "to": entry, "reason": "mis-entry"})
    assert undo.status_code == 422 and undo.json()["rule"] == "LOG-12" and f"#{entry} was" in undo.json()["message"], undo.text
    assert _count(client, duel_id, tokens) == head
    later = _send(client, duel_id, tokens["p0"], MAIN).json()["position"] - 1
    assert _send(client, duel_id, tokens["p0"], {"kind": "entry_corrected", "to": later,
                                                 "reason": "mis-entry"}).status_code == 200
    rollback = {"kind": "rolled_back", "to": entry, "judge": "A. Judge", "reason": "replayed from the Draw Phase"}
    assert _send(client, duel_id, tokens["judge"], rollback).status_code == 200


def test_the_recorders_undo_strikes_no_entry_a_player_disputed(client):  # noqa: F811
    duel_id, tokens = _table(client)
    entry = _send(client, duel_id, tokens["recorder"], DRAW_PHASE).json()["position"] - 1
    dispute = {"kind": "entry_disputed", "on": entry, "reason": "we are in the Standby Phase"}
    assert _send(client, duel_id, tokens["p1"], dispute).status_code == 200
    undo = _send(client, duel_id, tokens["recorder"], {"kind": "entry_corrected", "to": entry, "reason": "slip"})
    assert undo.status_code == 422 and "disputed by p1" in undo.json()["message"], undo.text


def test_append_by_a_player_from_the_command_line_is_held_to_the_same(store, client, tmp_path):  # noqa: F811
    duel_id, tokens = _table(client)
    entry = _send(client, duel_id, tokens["p0"], DRAW_PHASE).json()["position"] - 1
    assert _send(client, duel_id, tokens["p1"], {"kind": "entry_confirmed", "on": entry}).status_code == 200
    path = tmp_path / "undo.jsonl"
    path.write_text(json.dumps({"kind": "entry_corrected", "to": entry, "reason": "mis-entry"}) + "\n")
    done = CliRunner().invoke(main, ["append", duel_id, str(path), "--by", "p0", "--store", store.path])
    assert done.exit_code != 0 and "LOG-12" in done.output, done.output


def test_a_fold_resumed_from_a_snapshot_refuses_the_correction_as_the_whole_fold_does():
    """The book of entries travels whole in a snapshot: a fold resumed after the confirmation
    refuses the correction as a fold from the start does."""
    events = [from_dict(e) for e in [*SETUP, {**DRAW_PHASE, "entered_by": "p0"},
                                     {"kind": "entry_confirmed", "on": len(SETUP), "entered_by": "p1"}]]
    whole = History(CardDB.classic())
    whole.extend(events)
    resumed = History.from_data(json.loads(json.dumps(whole.to_data())), CardDB.classic())
    correction = from_dict({"kind": "entry_corrected", "to": len(SETUP), "reason": "mis-entry", "entered_by": "p0"})
    for history in (whole, resumed):
        with pytest.raises(RuleViolation) as refused:
            history.append(correction, strict=True)
        assert refused.value.rule == "LOG-12" and "confirmed by p1" in refused.value.message


def test_an_open_dispute_is_not_replaced_by_another_before_the_judge_rules(client):  # noqa: F811
    duel_id, tokens = _table(client)
    entry = _send(client, duel_id, tokens["recorder"], DRAW_PHASE).json()["position"] - 1
    first = {"kind": "entry_disputed", "on": entry, "reason": "he drew twice"}
    assert _send(client, duel_id, tokens["p1"], first).status_code == 200
    again = _send(client, duel_id, tokens["p0"], {**first, "reason": "all fine"})
    assert again.status_code == 422 and again.json()["rule"] == "LOG-02", again.text
    steps = client.get(f"/duels/{duel_id}/frames", headers=tokens["judge"]).text
    assert "he drew twice" in steps and "all fine" not in steps
    ruling = {"kind": "judge_note", "judge": "A. Judge", "note": "one draw", "on": entry, "decision": "stands"}
    assert _send(client, duel_id, tokens["judge"], ruling).status_code == 200
    assert _send(client, duel_id, tokens["p0"], {**first, "reason": "all fine"}).status_code == 200
