"""Review, seventeenth pass: holes found in the pass's own changes, each a test that failed before.

* A store file's schema is input (``store.own_schema``): a column's default that is an expression
  is computed by every insert that does not name the column (the library index's rows name few of
  theirs), as a CHECK constraint is; a write refuses it as it refuses the CHECK.
* ``search --check`` reads the library index as a search does: only once it is built at this
  version, in tables as the index makes them (it read a computing table unrefused, and died of
  "no such column" on an index an older ygoreplay built).
* A match's player token writes as the seat the duel's opening gives it, however late that
  opening was taken in (a regression guard).
"""
from __future__ import annotations

import sqlite3
from pathlib import Path

from click.testing import CliRunner

from test_attack_25as import _alter, _computed_title, stored  # noqa: F401  (a fixture)

from ygoreplay.cli import main

ROOT = Path(__file__).resolve().parent.parent
OTHER = str(ROOT / "replays" / "lost-by-deck-out.jsonl")


def _rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        found = conn.execute(sql).fetchall()
    conn.close()
    return found


def test_a_record_table_column_whose_default_computes_is_refused_before_a_write(stored):  # noqa: F811
    # every insert of an event computed it (a ``zeroblob`` of 1 GB an event: hung; 1,000 bytes show the door)
    store, _duel = stored
    _alter(store, """
            CREATE TABLE remade (originator_id TEXT, originator_version INTEGER, topic TEXT, state BLOB,
                pad BLOB DEFAULT (zeroblob(1000)), PRIMARY KEY (originator_id, originator_version));
            INSERT INTO remade (originator_id, originator_version, topic, state, pad)
                SELECT originator_id, originator_version, topic, state, NULL FROM stored_events;
            DROP TABLE stored_events;
            ALTER TABLE remade RENAME TO stored_events;""")
    done = CliRunner().invoke(main, ["record", OTHER, "--store", str(store)])
    assert done.exit_code == 2, done.output
    assert "'stored_events' computes on every write what ygoreplay does not" in done.stderr, done.output
    assert "Traceback" not in done.output
    assert _rows(store, "SELECT count(*) FROM stored_events WHERE pad IS NOT NULL") == [(0,)]


def test_an_index_table_column_whose_default_computes_is_refused_before_a_write(stored):  # noqa: F811
    # the index's stream row names nine of its columns: ``p0``'s default ran for every duel recorded
    store, _duel = stored
    sql = _rows(store, "SELECT sql FROM sqlite_master WHERE name = 'library_streams'")[0][0]
    hostile = sql.replace("p0 TEXT NOT NULL DEFAULT ''", "p0 TEXT NOT NULL DEFAULT (hex(zeroblob(500)))")
    assert hostile != sql
    _alter(store, f"""
            PRAGMA writable_schema = ON;
            UPDATE sqlite_master SET sql = '{hostile.replace("'", "''")}' WHERE name = 'library_streams';""")
    done = CliRunner().invoke(main, ["record", OTHER, "--store", str(store)])
    assert done.exit_code == 2, done.output
    assert "'library_streams' computes on every write what ygoreplay does not" in done.stderr, done.output
    assert _rows(store, "SELECT count(*) FROM library_streams WHERE length(p0) = 1000") == [(0,)]


def test_a_witness_column_whose_default_computes_is_refused_before_a_write(stored, tmp_path):  # noqa: F811
    store, _duel = stored
    witness = tmp_path / "witness.sqlite"
    _alter(witness, """
            CREATE TABLE ygoreplay_witness (duel TEXT NOT NULL, events INTEGER NOT NULL, head BLOB NOT NULL,
                time TEXT NOT NULL, key BLOB NOT NULL, signature BLOB NOT NULL, pad BLOB DEFAULT (zeroblob(1000)),
                PRIMARY KEY (duel, events));""")
    done = CliRunner().invoke(main, ["record", OTHER, "--store", str(store), "--witness", str(witness)])
    assert done.exit_code == 2, done.output
    assert "'ygoreplay_witness' computes on every write what ygoreplay does not" in done.stderr, done.output
    assert _rows(witness, "SELECT count(*) FROM ygoreplay_witness") == [(0,)]


def test_a_constant_default_of_ours_is_not_refused(stored):  # noqa: F811
    # regression guard: the index's own defaults ('', 0, 'private') are literals, and a store is written
    store, _duel = stored
    done = CliRunner().invoke(main, ["record", OTHER, "--store", str(store)])
    assert done.exit_code == 0, done.output


def test_search_check_refuses_an_index_table_that_computes_its_rows_as_a_search_does(stored):  # noqa: F811
    # ``search --check`` read the index's tables on a store opened to read, with nothing checked
    # (``store.own_schema`` guarded ``search`` only): a ``title`` generated as 400 MB held search
    store, _duel = stored
    _computed_title(store)
    done = CliRunner().invoke(main, ["search", "--check", "--store", str(store)])
    assert done.exit_code == 2, done.output
    assert "its table library_streams computes what it holds" in done.stderr, done.output


def test_search_check_of_an_index_an_older_version_built_says_to_reindex_not_a_traceback(stored):  # noqa: F811
    # a store whose index an older ygoreplay built (VERSION 5 lacked ``meta_event``, made with
    # the tables of its time): ``search --check`` died with "no such column: meta_event"
    store, _duel = stored
    _alter(store, "UPDATE library_meta SET version = 5; ALTER TABLE library_streams DROP COLUMN meta_event;")
    done = CliRunner().invoke(main, ["search", "--check", "--store", str(store)])
    assert done.exit_code == 2, done.output
    assert "was built by an older ygoreplay (index version 5; " in done.stderr, done.output
    assert "'ygoreplay search --reindex'" in done.stderr, done.output
    assert "Traceback" not in done.output
    assert CliRunner().invoke(main, ["search", "--reindex", "--store", str(store)]).exit_code == 0
    assert CliRunner().invoke(main, ["search", "--check", "--store", str(store)]).exit_code == 0


def test_a_match_player_is_seated_by_the_opening_taken_in_while_its_append_was_read(tmp_path, monkeypatch):
    """A match's player token is seated by the duel's ``duel_started`` taken in while its append's
    body was read (another request of this process read another's opening meanwhile). On main
    a4f52e9 ``Service.seated_by`` kept the role ``caller`` had read before the body (the match's p1,
    no seats yet), and Kaiba's "Kaiba wins" went in as p1's (Yugi's) own loss where the duel seats
    Kaiba p0 (200). Main's seat17 decides the seat inside the append since: a regression guard."""

    from fastapi.testclient import TestClient

    from test_attack_25ar import WON, _opening, _table_duel
    from test_release import ADMIN, auth
    from ygoreplay.access import digest
    from ygoreplay.service import create_app, duels
    from ygoreplay.store import Store

    path = str(tmp_path / "duels.sqlite")
    with Store(path, concurrent=True) as first_store, Store(path, concurrent=True) as second_store:
        second_app = create_app(second_store, digest(ADMIN))
        with TestClient(create_app(first_store, digest(ADMIN))) as first, TestClient(second_app) as second:
            table, duel = _table_duel(first)
            kaiba, judge = auth(table["tokens"]["p1"]), auth(table["tokens"]["judge"])
            assert second.get(f"/duels/{duel['id']}/state", headers=kaiba).json()["events"] == 0   # held empty
            assert first.post(f"/duels/{duel['id']}/events", json=_opening(["Kaiba", "Yugi"]),
                              headers=kaiba).status_code == 200
            read = duels._request_events

            async def body_read_while_taken_in(request):
                events = await read(request)
                second_app.state.service.hub.get(duel["id"]).refresh()   # another request's doing, meanwhile
                return events
            monkeypatch.setattr(duels, "_request_events", body_read_while_taken_in)
            r = second.post(f"/duels/{duel['id']}/events", json=[WON], headers=kaiba)
            assert r.status_code == 403 and "entered as p0" in r.json()["error"], r.text
            assert first.get(f"/duels/{duel['id']}/state", headers=judge).json()["events"] == len(_opening([]))
