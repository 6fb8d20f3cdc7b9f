"""Review, seventeenth pass: holes found in the pass's own changes, each a test that failed before.

A store file's schema is input (``store.own_schema``): a column's default that is an expression
is computed by every insert that does not name the column (the library index's rows name few of
theirs), as a CHECK constraint is; a write must refuse it as it refuses the CHECK.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from test_attack_25as import _computed_title

from ygoreplay.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = str(ROOT / "replays" / "won-by-damage.jsonl")
OTHER = str(ROOT / "replays" / "lost-by-deck-out.jsonl")


@pytest.fixture
def stored(tmp_path, monkeypatch):
    """A store holding one duel (its library index built), and its id."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home"))
    store = tmp_path / "store.sqlite"
    done = CliRunner().invoke(main, ["record", SAMPLE, "--store", str(store)])
    assert done.exit_code == 0, done.output
    return store, done.stdout.strip()


def _alter(path: Path, script: str) -> None:
    with sqlite3.connect(path) as conn:
        conn.executescript(script)
    conn.close()


def _rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        found = conn.execute(sql).fetchall()
    conn.close()
    return found


def test_a_record_table_column_whose_default_computes_is_refused_before_a_write(stored):
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


def test_an_index_table_column_whose_default_computes_is_refused_before_a_write(stored):
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


def test_a_witness_column_whose_default_computes_is_refused_before_a_write(stored, tmp_path):
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


def test_a_constant_default_of_ours_is_not_refused(stored):
    # regression guard: the index's own defaults ('', 0, 'private') are literals, and a store is written
    store, _duel = stored
    done = CliRunner().invoke(main, ["record", OTHER, "--store", str(store)])
    assert done.exit_code == 0, done.output


def test_search_check_refuses_an_index_table_that_computes_its_rows_as_a_search_does(stored):
    # ``search --check`` read the index's tables on a store opened to read, with nothing checked
    # (``store.own_schema`` guarded ``search`` only): a ``title`` generated as 400 MB held search
    store, _duel = stored
    _computed_title(store)
    done = CliRunner().invoke(main, ["search", "--check", "--store", str(store)])
    assert done.exit_code == 2, done.output
    assert "its table library_streams computes what it holds" in done.stderr, done.output


def test_search_check_of_an_index_an_older_version_built_says_to_reindex_not_a_traceback(stored):
    # a store whose index an older ygoreplay built (VERSION 5 lacked ``meta_event``, made with
    # the tables of its time): ``search --check`` died with "no such column: meta_event"
    store, _duel = stored
    _alter(store, "UPDATE library_meta SET version = 5; ALTER TABLE library_streams DROP COLUMN meta_event;")
    done = CliRunner().invoke(main, ["search", "--check", "--store", str(store)])
    assert done.exit_code == 2, done.output
    assert "has no library index yet: run 'ygoreplay search --reindex' once" in done.stderr, done.output
    assert "Traceback" not in done.output
    assert CliRunner().invoke(main, ["search", "--reindex", "--store", str(store)]).exit_code == 0
    assert CliRunner().invoke(main, ["search", "--check", "--store", str(store)]).exit_code == 0
