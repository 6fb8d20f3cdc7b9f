"""Attack, twenty-fifth pass (as): files, decoders and the command line.

A store file is input like any other: one handed over (a copy of a tournament's store, a backup)
may have been made by anyone. Its schema is SQLite's to run, so a file whose record table
computes a column (``GENERATED ALWAYS AS (zeroblob(...))``: a 155 KB file whose ``log`` built
2.6 GB and died of a MemoryError, an internal error) or that holds a trigger of its own (run by
every write: one over an endless recursive query hung ``record`` for ever; one that copies each
row elsewhere ran unseen) is refused when opened, before anything is read or written of it.
"""
from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from ygoreplay.cli import main

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = str(ROOT / "replays" / "won-by-damage.jsonl")
OTHER = str(ROOT / "replays" / "lost-by-deck-out.jsonl")


@pytest.fixture
def stored(tmp_path, monkeypatch):
    """A store holding one duel, and its id."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home"))
    store = tmp_path / "store.sqlite"
    done = CliRunner().invoke(main, ["record", SAMPLE, "--store", str(store)])
    assert done.exit_code == 0, done.output
    return store, done.stdout.strip()


def _alter(path: Path, script: str) -> None:
    """Run ``script`` on the SQLite file ``path``, as anyone who may write to it can."""
    with sqlite3.connect(path) as conn:
        conn.executescript(script)
    conn.close()


def _computed_state(store: Path, generated: str) -> None:
    """The store's ``stored_events`` made again with ``state`` a generated column: its event 4
    computed by ``generated``, every other row its own bytes."""
    _alter(store, f"""
            CREATE TABLE remade (originator_id TEXT, originator_version INTEGER, topic TEXT, kept BLOB,
                state BLOB GENERATED ALWAYS AS (CASE WHEN originator_version = 5 THEN {generated} ELSE kept END)
                VIRTUAL, PRIMARY KEY (originator_id, originator_version));
            INSERT INTO remade (originator_id, originator_version, topic, kept) SELECT * FROM stored_events;
            DROP TABLE stored_events;
            ALTER TABLE remade RENAME TO stored_events;""")


@pytest.mark.parametrize("command", [["log"], ["show"], ["verify"], ["export", "-o", "out.ygr"]])
def test_a_store_whose_record_table_computes_its_rows_is_refused_before_a_row_is_read(stored, command, tmp_path,
                                                                                       monkeypatch):
    # (a zeroblob of 900 MB made ``log`` die of a MemoryError; 1,000 bytes show the door without the bomb)
    store, duel = stored
    _computed_state(store, "zeroblob(1000)")
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, [command[0], duel, *command[1:], "--store", str(store)])
    assert done.exit_code == 2, done.output
    assert "its table stored_events computes what it holds" in done.stderr
    assert "nothing was read" in done.stderr and "Traceback" not in done.output
    assert not (tmp_path / "out.ygr").exists()


def test_a_trigger_of_a_store_file_never_runs_on_a_write_even_after_a_read_opened_it(stored):
    store, duel = stored
    _alter(store, """
            CREATE TABLE spy (stream TEXT);
            CREATE TRIGGER evil AFTER INSERT ON stored_events BEGIN
                INSERT INTO spy VALUES (new.originator_id); END;""")
    runner = CliRunner()
    listed = runner.invoke(main, ["list", "--store", str(store)])      # read-only: runs no trigger
    assert listed.exit_code == 0 and duel in listed.stdout, listed.output
    done = runner.invoke(main, ["record", OTHER, "--store", str(store)])
    assert done.exit_code == 2, done.output
    assert "holds a trigger 'evil' ygoreplay did not make" in done.stderr
    assert "nothing was changed" in done.stderr
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT count(*) FROM spy").fetchone()[0] == 0
        assert conn.execute("SELECT count(DISTINCT originator_id) FROM stored_events "
                            "WHERE topic = 'ygoreplay:duel'").fetchone()[0] == 1
    conn.close()


def test_a_store_the_library_index_keeps_is_written_to_again(stored):
    """Regression guard: the index's own triggers are the ones a store holds, and are let be."""
    store, _duel = stored
    runner = CliRunner()
    for _ in range(2):
        done = runner.invoke(main, ["record", OTHER, "--store", str(store)])
        assert done.exit_code == 0, done.output


def _witnessed(stored, tmp_path) -> tuple[Path, Path, str]:
    """The stored duel's store, a witness file of a second duel's write, and that duel's id."""
    store, _duel = stored
    witness = tmp_path / "witness.sqlite"
    done = CliRunner().invoke(main, ["record", OTHER, "--store", str(store), "--witness", str(witness)])
    assert done.exit_code == 0, done.output
    return store, witness, done.stdout.strip()


def test_a_witness_file_that_computes_its_heads_is_refused_before_one_is_read(stored, tmp_path):
    # (a generated zeroblob of 900 MB: verify built 2.7 GB and ran past a minute)
    store, witness, duel = _witnessed(stored, tmp_path)
    _alter(witness, """
            CREATE TABLE remade (duel TEXT NOT NULL, events INTEGER NOT NULL, kept BLOB,
                head BLOB GENERATED ALWAYS AS (zeroblob(1000)) VIRTUAL, time TEXT NOT NULL, key BLOB NOT NULL,
                signature BLOB NOT NULL, PRIMARY KEY (duel, events));
            INSERT INTO remade (duel, events, kept, time, key, signature) SELECT * FROM ygoreplay_witness;
            DROP TABLE ygoreplay_witness;
            ALTER TABLE remade RENAME TO ygoreplay_witness;""")
    done = CliRunner().invoke(main, ["verify", duel, "--store", str(store), "--witness", str(witness)])
    assert done.exit_code == 2, done.output
    assert "its table ygoreplay_witness computes what it holds" in done.stderr


def test_a_witness_file_whose_table_is_a_view_is_refused(stored, tmp_path):
    # (a view over an endless recursive query: read by verify, it never ends)
    store, witness, duel = _witnessed(stored, tmp_path)
    _alter(witness, """
            ALTER TABLE ygoreplay_witness RENAME TO kept;
            CREATE VIEW ygoreplay_witness AS SELECT * FROM kept;""")
    for command in (["verify", duel], ["record", SAMPLE]):
        done = CliRunner().invoke(main, [*command, "--store", str(store), "--witness", str(witness)])
        assert done.exit_code == 2, done.output
        assert "its table ygoreplay_witness computes what it holds" in done.stderr


def test_a_trigger_of_a_witness_file_never_runs(stored, tmp_path):
    # (one over an endless recursive query hung record for ever)
    store, witness, _duel = _witnessed(stored, tmp_path)
    _alter(witness, """
            CREATE TABLE spy (duel TEXT);
            CREATE TRIGGER evil AFTER INSERT ON ygoreplay_witness BEGIN INSERT INTO spy VALUES (new.duel); END;""")
    done = CliRunner().invoke(main, ["record", SAMPLE, "--store", str(store), "--witness", str(witness)])
    assert done.exit_code == 2, done.output
    assert "holds a trigger 'evil' ygoreplay did not make" in done.stderr
    with sqlite3.connect(witness) as conn:
        assert conn.execute("SELECT count(*) FROM spy").fetchone()[0] == 0
    conn.close()
    listed = CliRunner().invoke(main, ["list", "--store", str(store)])
    assert len(listed.stdout.splitlines()) == 2, listed.output          # nothing was recorded


def test_a_witness_that_is_a_pipe_is_said_to_be_one_not_missing(stored, tmp_path):
    store, duel = stored
    pipe = tmp_path / "witness.fifo"
    os.mkfifo(pipe)
    for command in (["verify", duel], ["record", OTHER]):
        done = CliRunner().invoke(main, [*command, "--store", str(store), "--witness", str(pipe)])
        assert done.exit_code == 2, done.output
        assert f"the witness {pipe} is not a regular file" in done.stderr


def _computed_title(store: Path) -> None:
    """The store's ``library_streams`` made again with ``title`` generated (and its duels public,
    so that a search reads it): the index's own triggers go with it."""
    with sqlite3.connect(store) as conn:
        statement = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'library_streams'").fetchone()[0]
        columns = [row[1] for row in conn.execute("PRAGMA table_info(library_streams)")]
    conn.close()
    kept = ", ".join(column for column in columns if column != "title")
    _alter(store, f"""
        {statement.replace("library_streams", "remade", 1).replace(
            "title TEXT NOT NULL DEFAULT ''", "title TEXT GENERATED ALWAYS AS (printf('%.*c', 1000, 'x')) VIRTUAL")};
        INSERT INTO remade ({kept}) SELECT {kept} FROM library_streams;
        DROP TABLE library_streams;
        ALTER TABLE remade RENAME TO library_streams;
        UPDATE library_streams SET visibility = 'public';""")


@pytest.mark.parametrize("command", [["search", "--player", "Yugi"], ["record", OTHER]])
def test_a_store_whose_index_computes_its_rows_is_refused_by_what_reads_or_writes_the_index(stored, command):
    # (a title generated as 400 MB held search past a minute, 800 MB built)
    store, duel = stored
    _computed_title(store)
    assert CliRunner().invoke(main, ["show", duel, "--store", str(store)]).exit_code == 0   # the index unread
    done = CliRunner().invoke(main, [*command, "--store", str(store)])
    assert done.exit_code == 2, done.output
    assert "its table library_streams computes what it holds" in done.stderr


@pytest.mark.parametrize("computing, name", [
    ("CREATE INDEX evil ON stored_events (length(printf('%.*c', 1000, 'x')))", "evil"),
    ("CREATE INDEX evil ON stored_events (topic) WHERE length(printf('%.*c', 1000, 'x')) > 0", "evil"),
    ("""ALTER TABLE stored_events RENAME TO kept;
        CREATE TABLE stored_events (originator_id TEXT, originator_version INTEGER, topic TEXT,
            state BLOB CHECK (length(printf('%.*c', 1000, 'x')) > 0), PRIMARY KEY (originator_id, originator_version));
        INSERT INTO stored_events SELECT * FROM kept;""", "stored_events")], ids=["expression", "partial", "check"])
def test_a_store_file_that_computes_on_every_write_is_not_written_to(stored, computing, name):
    # (an index on printf('%.*c', 200000000, 'x') held record past a minute: 200 MB an event)
    store, duel = stored
    _alter(store, computing)
    assert CliRunner().invoke(main, ["show", duel, "--store", str(store)]).exit_code == 0     # a read computes none
    done = CliRunner().invoke(main, ["record", OTHER, "--store", str(store)])
    assert done.exit_code == 2, done.output
    assert f"{name!r} computes on every write what ygoreplay does not" in done.stderr
