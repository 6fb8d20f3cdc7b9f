"""Attack 25av: writes and files, as an attacker would.

Found (fixed):

* A store file whose record table says what a conflict does, or is keyed otherwise
  (``store.own_schema``). Two writers appending at one position count on the second's INSERT
  being refused by the table's key (then judged again at the new head). A store file planted with
  ``PRIMARY KEY (originator_id, originator_version) ON CONFLICT REPLACE`` had the second writer's
  event overwrite the first's, both answered with a signed receipt and ``verify`` saying ok on
  the store alone (the first event lost: "nothing recorded is lost"); ``ON CONFLICT IGNORE`` dropped the second's
  event and answered it with a receipt of a head never stored; no key at all stored both as
  event #18 (the record broken). Every write (``record``, ``append``, the service, imports)
  opens the store through ``_check_sqlite``: a written table must have our key and no conflict
  clause, or the store is refused (exit 2), nothing written.

* A confirmation or a dispute of an entry a correction struck or a judge's rollback reverted
  (``rules.History``): p0 entered #6 and struck it (#7); p1 then "confirmed" #6, and the book
  said a struck entry was agreed to, or "disputed" it, an open judge call on an entry gone from
  play. Now refused (LOG-02) through every door, as an audit of a record holding one says.

* A duel of a match goes on after the match ended its game by a concession or a penalty (the
  record need not end there), and its record may then end otherwise: the match said Kaiba
  conceded game 1, the duel's record then said Yugi did, and the judge's ``problems`` (LOG-09,
  ``match.links.check_duel``) said nothing, as they do for any other ending. Now listed.
  Left open: the write itself is taken (``Records.append_records`` does not read the duel's match:
  a read of another stream on every append's hot path, and racy across processes).

Tried and found holding:

* A dispute of one's own entry (LOG-05), a confirmation of a confirmation, dispute, rollback or
  correction (LOG-02), a correction of a correction (LOG-12: it goes back to an event of play).
* A judge's rollback to event 0 then a new ``duel_started`` re-seating the players: a rollback
  goes back to event 1 at the earliest (LOG-02: the ``duel_started`` stays), and a second
  ``duel_started`` is refused even in a witnessed duel (LOG-03, ``impossible``, never a flag).
* An append judged on a head read fresh but written at the head its ``expected`` names (another
  process storing the opening in between): judged at 0, the batch must open the duel
  (``Records._check_mode``) and a player's token may not write a machine duel at all, so the
  write at ``expected`` is refused by the rules (LOG-03) or the mode check; nothing goes in.
"""
from __future__ import annotations

import sqlite3

import pytest
from click.testing import CliRunner

from test_attack_25as import OTHER, _alter, stored  # noqa: F401  (fixture)
from test_release import client, store  # noqa: F401  (fixtures)
from ygoreplay.application import Records
from ygoreplay.cli import main
from ygoreplay.events import from_dict
from ygoreplay.rules import RuleViolation
from ygoreplay.store import Store

#: ``stored_events`` made again as a store file's writer may: keyed as ours with a conflict clause, or not keyed.
PLANTED = {"replace": ", PRIMARY KEY (originator_id, originator_version) ON CONFLICT REPLACE",
           "ignore": ", PRIMARY KEY (originator_id, originator_version) ON CONFLICT IGNORE",
           "unkeyed": "", "other key": ", PRIMARY KEY (originator_id, topic, originator_version)"}


def _planted(store, key: str) -> None:
    _alter(store, f"""
            CREATE TABLE remade (originator_id TEXT, originator_version INTEGER, topic TEXT, state BLOB{key});
            INSERT INTO remade SELECT * FROM stored_events; DROP TABLE stored_events;
            ALTER TABLE remade RENAME TO stored_events;""")


def _rows(store) -> int:
    conn = sqlite3.connect(store)
    try:
        return conn.execute("SELECT count(*) FROM stored_events").fetchone()[0]
    finally:
        conn.close()


@pytest.mark.parametrize("planted", sorted(PLANTED))
def test_a_store_whose_record_table_is_not_keyed_as_ours_is_not_written(stored, planted):  # noqa: F811
    """``record`` and ``branch`` on a store whose ``stored_events`` says what a conflict
    does, or has another key: refused (exit 2) naming the table, nothing written. (Two processes
    holding the duel's head, each appending at it: on ``REPLACE`` the second's event overwrote the
    first's, both answered with a receipt and the store alone verified ok; on ``IGNORE`` the
    second's was dropped, answered with a receipt.)"""
    store, duel = stored
    _planted(store, PLANTED[planted])
    before = _rows(store)
    for command in (["record", OTHER], ["branch", duel, "--at", "3"]):
        done = CliRunner().invoke(main, [*command, "--store", str(store)])
        assert done.exit_code == 2, done.output
        assert "its table stored_events is not keyed as ygoreplay keys it" in done.stderr, done.output
    assert _rows(store) == before


#: A witnessed duel's set-up (Yugi's turn 1 begun, #5), and Yugi's device's first entry (#6).
WITNESSED = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["Yugi", "Kaiba"],
              "witnessed": True},
             *({"kind": "deck_registered", "player": p, "main": [0] * 40, "extra": [0] * 15} for p in (0, 1)),
             *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
             {"kind": "turn_started", "player": 0, "turn": 1}]
YUGIS = {"kind": "phase_entered", "phase": "standby"}


def _events(*dicts: dict) -> list:
    return [from_dict(d) for d in dicts]


@pytest.mark.parametrize("undone", ["struck", "reverted"])
@pytest.mark.parametrize("remark", [{"kind": "entry_confirmed", "on": 6},
                                    {"kind": "entry_disputed", "on": 6, "reason": "not what was played"}])
def test_an_entry_struck_or_reverted_is_neither_confirmed_nor_disputed(tmp_path, undone, remark):
    """LOG-02: Yugi's #6 struck by his own correction (or reverted by a judge's rollback) at #7;
    Kaiba's device then confirms or disputes #6: refused, nothing written. It went in, and the
    book said the struck entry was agreed to, or held an open dispute of it for a judge."""
    with Store(str(tmp_path / "duels.sqlite")) as store:
        records = Records(store)
        duel = records.record(_events(*WITNESSED), "table 1", witnessed=True).id
        records.append(duel, _events(YUGIS), entered_by="p0")
        if undone == "struck":
            records.append(duel, _events({"kind": "entry_corrected", "to": 6, "reason": "mis-entry"}), entered_by="p0")
        else:
            records.rollback(duel, 6, "Ann", "a wrong phase")
        with pytest.raises(RuleViolation, match="entry 6 was (struck by the correction|reverted by the rollback) "
                                                "at 7: only an entry still in effect") as refused:
            records.append(duel, _events(remark), entered_by="p1")
        assert refused.value.rule == "LOG-02"
        assert store.info(duel).events == 8


def test_a_duel_that_ends_otherwise_after_its_match_game_was_conceded_is_a_problem_for_the_judge(client):  # noqa: F811
    """LOG-09: game 1 conceded by Kaiba in the match (Yugi wins, ``how: surrender``) while the
    duel goes on; the table's recorder then enters the duel's end as Yugi's concession. The
    match's judge is told the duel was won by player 1, not by player 0 as the match says."""
    from test_attack_25ar import _opening
    from test_attack_25i import table_duel
    from test_release import auth
    made, duel = table_duel(client)
    one = made["tables"][0]
    recorder, judge = auth(one["tokens"]["recorder"]), auth(one["tokens"]["judge"])
    opening = [*_opening(["Yugi", "Kaiba"]), {"kind": "turn_started", "player": 0, "turn": 1}]
    assert client.post(f"/duels/{duel['id']}/events", json=opening, headers=recorder).status_code == 200
    assert client.post(f"/matches/{one['match']}/games/1/end", json={"winner": 0, "how": "surrender"},
                       headers=recorder).status_code == 200
    assert client.post(f"/duels/{duel['id']}/events", json=[{"kind": "duel_ended", "winner": 1, "reason": "surrender"}],
                       headers=recorder).status_code == 200
    problems = client.get(f"/matches/{one['match']}/state", headers=judge).json()["problems"]
    assert {"game": 1, "rule": "LOG-09", "message": "the match says duel 1 was won by player 0; the duel was won by "
            "player 1", "index": None} in problems, problems
