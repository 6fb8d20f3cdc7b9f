"""Attacks on the store by values of the wrong SQL type in its rows (issue 25, thirteenth pass).

What broke: someone who can write to the store's database (and holds no organiser key) puts a
TEXT where a row's ``state`` is (the header, an event, an anchor, a card record): ``show``,
``show --at`` and ``log`` met an internal error (exit 4, "TypeError: string argument without an
encoding"); a TEXT ``originator_version`` an internal error in ``show``; worst, an INTEGER
``state`` was made that many zero bytes (``bytes(n)``) before any bound: 10**12 exhausted
memory. Now every row read is checked in one place (``store._blob``, the recorders' reads through
``store._checking``) before anything decodes or copies it: a clear StoreError naming the row, exit
2 (``verify`` reports it BROKEN, exit 1: test_store_altered_rows). A snapshot of the wrong type is, as any that does not check out, not used. SQLite only: on
PostgreSQL the columns are ``bytea`` and ``bigint``, which hold nothing else.
"""
from __future__ import annotations

import sqlite3
import time

import pytest
from click.testing import CliRunner

from test_store import sample
from ygoreplay.cli import main
from ygoreplay.errors import StoreError
from ygoreplay.receipts import Witness
from ygoreplay.signing import OrganiserKey
from ygoreplay.store import Store

DAMAGE = "won-by-damage.jsonl"

#: (what is written into the database, the message the row's reader gets)
ROWS = {
    "a TEXT header": ("UPDATE stored_events SET state = 'junk' WHERE originator_id = ? AND originator_version = 0",
                      r"row 0 of stream \w+ is not a stored record \(the database holds str there\)"),
    "a TEXT event": ("UPDATE stored_events SET state = 'junk' WHERE originator_id = ? AND originator_version = 38",
                     r"row 38 of stream \w+ is not a stored record \(the database holds str there\)"),
    "an INTEGER event of 10**12": ("UPDATE stored_events SET state = 1000000000000 WHERE originator_id = ? "
                                   "AND originator_version = 38",
                                   r"row 38 of stream \w+ is not a stored record \(the database holds int there\)"),
    "a TEXT anchor": ("UPDATE stored_events SET state = 'junk' WHERE originator_id = ? || '/head'",
                      r"row \d+ of stream \w+/head is not a stored record"),
    "a TEXT card record": ("UPDATE stored_events SET state = 'junk' WHERE originator_id = ? || '/cards'",
                           r"row \d+ of stream \w+/cards is not a stored record"),
    "a TEXT version": ("UPDATE stored_events SET originator_version = 'zz' WHERE originator_id = ? "
                       "AND originator_version = 89",
                       r"a row of stream \w+ has the version 'zz' \(str\), not a number"),
}


def _stored(tmp_path, sql: str) -> tuple[str, str]:
    """A store with a duel of 89 events, ``sql`` run on its database: (the store, the duel)."""
    key, _created = OrganiserKey.load_or_create()
    path = str(tmp_path / "duels.sqlite")
    with Store(path, key=key) as store:
        duel = store.create_duel("altered")
        store.append(duel, sample(DAMAGE))
    conn = sqlite3.connect(path)
    conn.execute(sql, (duel,))
    conn.commit()
    conn.close()
    return path, duel


@pytest.mark.parametrize("what", list(ROWS))
def test_a_row_of_the_wrong_type_is_refused_naming_it_by_every_read(tmp_path, what):
    sql, message = ROWS[what]
    path, duel = _stored(tmp_path, sql)
    reads = {"seek": lambda store: store.seek(duel, 40 if "version" not in what else None),
             "load": lambda store: store.load(duel, verified=False)}
    for name, read in reads.items():
        started = time.monotonic()
        with Store(path) as store, pytest.raises(StoreError, match=message):
            read(store)
        assert time.monotonic() - started < 10, name      # 10**12 zero bytes never made
    for args in (["show", duel, "--at", "40"], ["show", duel], ["log", duel]):
        if "version" in what and "--at" in args or "event" in what and args == ["show", duel]:
            continue             # the rows up to 40 are whole; the end is shown from a snapshot past 38
        result = CliRunner().invoke(main, [*args, "--store", path])
        assert result.exit_code == 2 and "internal error" not in result.output, (args, result.output)
        assert f"run 'ygoreplay verify {duel}'" in result.output
    # verify reports the row as what it is, an altered record (test_store_altered_rows)
    with Store(path) as store:
        assert not store.verify(duel).ok


def test_a_snapshot_of_the_wrong_type_is_not_used_and_verify_says_so(tmp_path):
    path, duel = _stored(tmp_path, "UPDATE stored_snapshots SET state = 'junk' WHERE originator_id = ?")
    with Store(path) as store:
        assert store.state_at(duel, 40) is not None and store.seek(duel)[1].position == 88
        assert not store.verify(duel).ok
    result = CliRunner().invoke(main, ["verify", duel, "--store", path])
    assert result.exit_code == 1 and "cannot be decoded (it is not used)" in result.output


def test_a_witness_row_of_the_wrong_type_is_refused_not_allocated(tmp_path):
    path = tmp_path / "witness.sqlite"
    witness = Witness(str(path))
    assert witness.latest("d") is None
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO ygoreplay_witness VALUES ('d', 3, 1000000000000, 't', x'00', x'00')")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="its head of duel d cannot be read"):
        witness.latest("d")
