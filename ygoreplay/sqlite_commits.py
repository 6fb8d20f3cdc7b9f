"""Another process's commits to a SQLite store, as the service follows them.

SQLite has no LISTEN/NOTIFY: a served store written by another process (``ygoreplay append`` on
the same file) went unseen until the service's own next append, its ``/verify`` saying ok with
the count before and its followers asleep. ``PRAGMA data_version`` changes on a connection when
any other connection commits (in any process): one statement of no I/O, looked at on a timer
and before a read. When it changed, the anchors written since the last one seen are read, as
PostgreSQL's listener reads them after a NOTIFY (``store._Heads``): the hub takes them in by the
same path (``live.Hub._heard``) whichever backend told it.
"""
from __future__ import annotations

import sqlite3
import threading
from typing import Any

from .errors import StoreUnavailable
from .i18n import say


class SQLiteHeads:
    """Anchors as (duel id, event count), after row ``after``: an iterator (a context manager;
    ``stop()`` ends it) that looks every ``WAIT`` seconds, and ``look()``, the same look made now
    from any thread (a read that must not serve what another process has replaced)."""

    WAIT = 0.1          # seconds between looks while nothing is committed
    LIMIT = 500         # anchors read at a time

    def __init__(self, name: str, uri: str, table: str, topics: tuple[str, str], after: int, lock_wait: float) -> None:
        # the anchors' topic and the access records' (``store.records.ACCESS_TOPIC``)
        self._name, self._uri, self._lock_wait, self._topics = name, uri, lock_wait, topics
        self._select = (f"SELECT rowid, originator_id, originator_version FROM {table} "
                        "WHERE rowid > ? AND topic IN (?, ?) ORDER BY rowid LIMIT ?")
        self._last = after
        self._version: int | None = None     # the data_version last looked at (None: read what is new)
        self._conn: sqlite3.Connection | None = None
        self._looking = threading.Lock()     # one look at a time: the connection, ``_last``, ``_batch``
        self._stopped = threading.Event()
        # the iteration's heads of its last look, and how many of them it has handed on: all of
        # them handed on and done with only once it is asked for the next (``look`` tells them
        # until then, so that no read answers between the iteration's look and its hand-off)
        self._batch: list[tuple[str, int]] = []
        self._next = 0

    def __enter__(self) -> SQLiteHeads:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        with self._looking:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def stop(self) -> None:
        """End the iteration (within ``WAIT`` seconds)."""
        self._stopped.set()

    def __iter__(self) -> SQLiteHeads:
        return self

    def __next__(self) -> tuple[str, int]:
        while True:
            with self._looking:
                if self._next < len(self._batch):
                    self._next += 1
                    return self._batch[self._next - 1]
                if self._stopped.is_set():
                    raise StopIteration
                self._batch, self._next = [], 0
                self._batch = self._new()
            if not self._batch:
                self._stopped.wait(self.WAIT)

    def look(self) -> list[tuple[str, int]]:
        """The anchors committed since the last look (none, by one ``PRAGMA``, when nothing
        was), and those the iteration is handing on meanwhile. A store that cannot be read now
        raises ``StoreUnavailable``; the next look reads what was committed meanwhile."""
        with self._looking:
            if self._stopped.is_set():       # the hub stopped: its connection is closed for good
                return []
            return self._new() + self._batch if self._batch else self._new()

    def _new(self) -> list[tuple[str, int]]:
        """The anchors committed since the last look (under ``_looking``)."""
        try:
            conn = self._connection()
            version = conn.execute("PRAGMA data_version").fetchone()[0]
            if version == self._version:
                return []
            rows = conn.execute(self._select, (self._last, *self._topics, self.LIMIT)).fetchall()
        except sqlite3.Error as exc:
            self._version = None
            raise StoreUnavailable(say("cannot read the store {name}: {exc}", name=self._name, exc=exc)) from None
        # a full page: more may follow, read at the next look whatever the version says
        self._version = None if len(rows) == self.LIMIT else version
        if rows:
            self._last = rows[-1][0]
        return [(str(originator).removesuffix("/head"), count) for _, originator, count in rows]

    def _connection(self) -> Any:
        """Its own connection, read-only and in autocommit (it holds no snapshot open between
        looks, which would keep WAL from being checkpointed); made on the first look."""
        if self._conn is None:
            self._conn = sqlite3.connect(self._uri, uri=True, check_same_thread=False, isolation_level=None,
                                         timeout=self._lock_wait)
            self._version = None
        return self._conn
