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

Tried and found holding:

* A judge's rollback to event 0 then a new ``duel_started`` re-seating the players: a rollback
  goes back to event 1 at the earliest (LOG-02: the ``duel_started`` stays), and a second
  ``duel_started`` is refused even in a witnessed duel (LOG-03, ``impossible``, never a flag).
* An append judged on a head read fresh but written at the head its ``expected`` names (another
  process storing the opening in between): judged at 0, the batch must open the duel
  (``Records._check_mode``) and a player's token may not write a machine duel at all, so the
  write at ``expected`` is refused by the rules (LOG-03) or the mode check; nothing goes in.
"""
from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner

from test_attack_25as import OTHER, _alter, stored  # noqa: F401  (fixture)
from ygoreplay.cli import main

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
def test_a_store_whose_record_table_is_not_keyed_as_ours_is_not_written(stored, planted, tmp_path):  # noqa: F811
    """``append`` and ``record`` on a store whose ``stored_events`` says what a conflict
    does, or has another key: refused (exit 2) naming the table, nothing written. (Two processes
    holding the duel's head, each appending at it: on ``REPLACE`` the second's event overwrote the
    first's, both answered with a receipt and the store alone verified ok; on ``IGNORE`` the
    second's was dropped, answered with a receipt.)"""
    store, duel = stored
    _planted(store, PLANTED[planted])
    before = _rows(store)
    note = tmp_path / "note.jsonl"
    note.write_text(json.dumps({"kind": "judge_note", "judge": "Ann", "note": "a note", "category": "note"}) + "\n")
    for command in (["append", duel, str(note)], ["record", OTHER]):
        done = CliRunner().invoke(main, [*command, "--store", str(store)])
        assert done.exit_code == 2, done.output
        assert "its table stored_events is not keyed as ygoreplay keys it" in done.stderr, done.output
    assert _rows(store) == before
