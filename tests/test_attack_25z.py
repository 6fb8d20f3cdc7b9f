"""Attacks on the store opened read-only on SQLite (issue 25, thirteenth pass: ``Store._read`` on
connections of its own, the recorders opened on first use).

What broke: a store file in SQLite's rollback-journal mode (what ``VACUUM INTO`` or any copy made
without WAL gives: a backup of the store) was read by ``show DUEL --at N`` (the store's own
read-only connections) but every read through the recorders (``log``, ``show --view``,
``verify``, ``Store.load``) met an internal error, "attempt to write a readonly database": the
recorders' pool turns a file it opens to WAL, a write, tried on the read-only connection. A store
opened read-only must change nothing, its journal mode included, and read what it can read.
And a store another session held locked as it was opened was refused as "not a ygoreplay store
(not an SQLite database: database is locked)", exit 2: a lasting no for a good store, where the
store is busy (exit 75, try again).

What held (compared with c84d6ed, before the change, in fresh processes): the format marker, a
store file that is none (a folder, an empty, truncated, random or foreign SQLite file, /dev/null,
/proc), events, header, card records, snapshots and anchors altered, deleted or forged in the
database, a 30 MB row: the same outputs, errors and exit codes, and the same files left.
"""
from __future__ import annotations

import sqlite3

import pytest

from test_store import sample
from ygoreplay.errors import StoreBusy
from ygoreplay.signing import OrganiserKey
from ygoreplay.store import Store

DAMAGE = "won-by-damage.jsonl"


def _backup(tmp_path) -> tuple[str, str, int]:
    """A store with a duel, and its copy by ``VACUUM INTO`` (rollback-journal mode): (the copy,
    the duel, its events)."""
    key, _created = OrganiserKey.load_or_create()
    source = str(tmp_path / "live.sqlite")
    with Store(source, key=key) as store:
        duel = store.create_duel("backed up")
        events = sample(DAMAGE)
        store.append(duel, events)
    copy = str(tmp_path / "backup.sqlite")
    conn = sqlite3.connect(source)
    conn.execute("VACUUM INTO ?", (copy,))
    conn.close()
    return copy, duel, len(events)


def _journal_mode(path: str) -> str:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        conn.close()


def test_a_read_only_store_in_rollback_journal_mode_is_read_through_its_recorders_and_left_as_it_was(tmp_path):
    copy, duel, count = _backup(tmp_path)
    assert _journal_mode(copy) == "delete"
    before = open(copy, "rb").read()
    with Store(copy, readonly=True) as store:
        board, last = store.seek(duel, 40)                  # the store's own connections
        loaded = store.load(duel, verified=False)           # the recorders' (``log``, ``show --view``)
        assert len(loaded.events) == count and last is not None and last.position == 39
        assert store.verify(duel).ok
    assert _journal_mode(copy) == "delete" and open(copy, "rb").read() == before


def test_a_store_locked_by_another_session_is_said_busy_not_no_store(tmp_path, monkeypatch):
    """A store another session holds locked (an exclusive transaction) when it is opened: busy,
    try again (``StoreBusy``, exit 75), not "not a ygoreplay store (not an SQLite database:
    database is locked)", a lasting refusal of a good store."""
    monkeypatch.setattr("ygoreplay.store.opening.SQLITE_LOCK_WAIT", 1)
    monkeypatch.setattr("ygoreplay.store.reading.SQLITE_LOCK_WAIT", 1)
    copy, duel, _count = _backup(tmp_path)
    holder = sqlite3.connect(copy, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        with pytest.raises(StoreBusy, match=r"the store at .*backup\.sqlite is busy: .*try again"):
            Store(copy, readonly=True)
    finally:
        holder.close()
    with Store(copy, readonly=True) as store:                 # the lock let go: read
        assert store.seek(duel, 1)[1].position == 0


def test_a_read_of_a_store_another_session_locked_since_it_was_opened_is_busy_never_no_such_duel(tmp_path, monkeypatch):
    """A read-only store opened, then locked by another session (an exclusive transaction on a
    rollback-journal copy): its reads (a seek, the duel's count, an id resolved) are busy, try
    again (``StoreBusy``), not the store's refusal (``StoreError``), which resolving an id read
    as "no duel has this id"."""
    from ygoreplay.source import resolve_duel
    monkeypatch.setattr("ygoreplay.store.opening.SQLITE_LOCK_WAIT", 1)
    monkeypatch.setattr("ygoreplay.store.reading.SQLITE_LOCK_WAIT", 1)
    copy, duel, _count = _backup(tmp_path)
    with Store(copy, readonly=True) as store:
        holder = sqlite3.connect(copy, isolation_level=None)
        try:
            holder.execute("BEGIN EXCLUSIVE")
            for read in (lambda: store.seek(duel, 5), lambda: store._count(duel), lambda: resolve_duel(store, duel[:6])):
                with pytest.raises(StoreBusy, match=r"is busy: .*try again"):
                    read()
        finally:
            holder.close()
        assert store.seek(duel, 5)[1].position == 4 and resolve_duel(store, duel[:6]) == duel
