"""The store at its edges (issue 25, tenth pass): a database that stops answering without closing
the connection, a statement the server cancels, SQLite locked by another connection, two
attachment writes at once, and a match's new duel written apart from the match.

* A peer that vanishes without a reset (here a TCP relay that stops forwarding but keeps its
  sockets open) hung every read and write for ever: now each connection's waits are bounded
  (``store.ANSWER_WAIT``), so a read is ``StoreUnavailable`` (503) and a write whose answer never
  came ``WriteOutcomeUnknown``.
* A statement over the server's ``statement_timeout`` (``store.STATEMENT_WAIT``; before, none: a
  read behind another session's lock waited for ever) and SQLite's "database is locked" (before,
  a raw refusal, "refused the write") are ``StoreBusy`` (``store_busy``), as the lock wait is.
* ``Store.attach`` read the latest version and inserted the next: two at once, one met the
  unique key and was refused (409) though no one asked for a position; now it reads again.
* A match's new duel was recorded in a second transaction after the match's ``game_started``:
  a failure between the two left a match naming a duel that was never made.

The outages are made by a relay this test controls, or by this test's own session's lock: never
by stopping the shared server. Nothing is timed: a call that never returns fails the join.
"""
from __future__ import annotations

import socket
import sqlite3
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

import pytest

from test_attack_25k import _Cutter
from test_group_commit import DAMAGE
from test_match_link_race import ORGANISER, _games, _match, _started
from test_pg_outage import PASSWORD, _client, _told_unavailable
from test_release import ORGANISER as ORGANISER_TOKEN
from test_store import _pg_connect, fresh_url, sample
from ygoreplay.store import opening as store_opening, postgres as store_postgres, reading as store_reading
from ygoreplay.errors import StoreBusy, StoreError, StoreUnavailable, WriteOutcomeUnknown
from ygoreplay.live import Hub
from ygoreplay.match import commands
from ygoreplay.store import Store, new_id

JOIN = 90            # seconds a call may take before it is taken to hang (its bound is far less)


class _Stall(_Cutter):
    """A TCP relay to PostgreSQL that, once ``stall``ed, passes nothing more either way (on a
    new connection too) but keeps every socket open: a peer gone without a reset, as a dead
    host or a hung proxy is. (Closed by ``_Cutter.close``.)"""

    def __init__(self) -> None:
        self.stalled = threading.Event()
        super().__init__()

    def stall(self) -> None:
        self.stalled.set()

    def _relay(self, source: socket.socket, to: socket.socket, answers: bool) -> None:
        try:
            while (data := source.recv(65536)) and not self.stalled.is_set():
                to.sendall(data)
        except OSError:
            pass


@pytest.fixture
def stalling(tmp_path):
    """A PostgreSQL store's URL, the same store's URL through a ``_Stall``, and the relay."""
    relay = _Stall()
    with fresh_url("postgresql", tmp_path / "x.sqlite", "edges") as where:
        via = where.replace("postgres@127.0.0.1:5432", f"postgres:{PASSWORD}@127.0.0.1:{relay.port}")
        assert via != where
        yield where, via, relay
    relay.close()


def _within(call: Callable[[], Any], seconds: float = JOIN) -> Any:
    """What ``call()`` returned or raised, made in a thread: a call still running after
    ``seconds`` (hung) fails the test."""
    told: list = []

    def run() -> None:
        try:
            told.append(call())
        except Exception as exc:          # noqa: BLE001 (the outcome is asserted by the caller)
            told.append(exc)
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still waiting after {seconds} s: hung"
    return told[0]


def test_a_read_from_a_server_that_stopped_answering_is_told_the_store_is_not_answering(stalling, monkeypatch):
    """The relay stops passing anything on, its sockets open: the read waited for ever (TCP
    sees nothing wrong: the relay's end still acknowledges). Now it is ``StoreUnavailable``,
    the service's 503, naming the store and never its password."""
    monkeypatch.setattr(store_opening, "ANSWER_WAIT", 2)
    where, via, relay = stalling
    events = sample(DAMAGE)
    with Store(via) as store:
        duel, other = store.create_duel("stalled"), store.create_duel("not read yet")
        store.append(duel, events[:6])
        with _client(store) as client:
            assert client.get(f"/duels/{duel}/events", headers=ORGANISER_TOKEN).status_code == 200
            relay.stall()
            told = _within(lambda: store.records(duel))
            assert type(told) is StoreUnavailable, told
            assert "is not answering" in str(told) and PASSWORD not in str(told)
            answer = _within(lambda: client.get(f"/duels/{other}/events", headers=ORGANISER_TOKEN))
            _told_unavailable(answer, "store_unavailable")
    with Store(where) as direct:
        assert direct.info(duel).events == 6 and direct.verify(duel).ok


@pytest.mark.parametrize("concurrent", [False, True])
def test_a_write_to_a_server_that_stopped_answering_is_told_its_outcome_is_unknown(stalling, monkeypatch,
                                                                                  concurrent):
    """The write is sent and no answer ever comes, nor can the store be asked after: its
    outcome is unknown (exit 5), not a hang, and not "nothing was written". The duel is whole."""
    monkeypatch.setattr(store_opening, "ANSWER_WAIT", 2)
    where, via, relay = stalling
    events = sample(DAMAGE)
    with Store(via, concurrent=concurrent) as store:
        duel = store.create_duel("stalled write")
        store.append(duel, events[:6])
        relay.stall()
        told = _within(lambda: store.append(duel, events[6]))
        assert isinstance(told, WriteOutcomeUnknown), told
        assert told.exit_code == 5 and PASSWORD not in str(told)
    with Store(where) as direct:
        assert direct.info(duel).events in (6, 7) and direct.verify(duel).ok


@contextmanager
def _table_locked(url: str) -> Iterator[None]:
    """Another session holding the store's events table in ACCESS EXCLUSIVE mode (reads wait)."""
    from urllib.parse import parse_qs, urlparse
    from psycopg import sql
    schema = parse_qs(urlparse(url).query)["schema"][0]
    with _pg_connect() as admin:
        admin.execute("BEGIN")
        admin.execute(sql.SQL("LOCK TABLE {} IN ACCESS EXCLUSIVE MODE").format(
            sql.Identifier(schema, "ygoreplay_events")))
        try:
            yield
        finally:
            admin.execute("ROLLBACK")


def test_a_statement_the_server_cancels_is_told_the_store_is_busy(tmp_path, monkeypatch):
    """A read behind another session's lock had no bound (the write's lock wait has one): it
    waited for as long as the lock was held. Now the server cancels it after
    ``STATEMENT_WAIT``: ``StoreBusy`` saying so, the service's 503 ``store_busy``, never a 500."""
    monkeypatch.setattr(store_opening, "STATEMENT_WAIT", 1)
    monkeypatch.setattr(store_reading, "STATEMENT_WAIT", 1)
    monkeypatch.setattr(store_postgres, "STATEMENT_WAIT", 1)
    monkeypatch.setattr(store_opening, "ANSWER_WAIT", 30)
    events = sample(DAMAGE)
    with fresh_url("postgresql", tmp_path / "x.sqlite", "edges") as where, Store(where) as store:
        duel = store.create_duel("locked")
        store.append(duel, events[:6])
        with _client(store) as client, _table_locked(where):
            told = _within(lambda: store.records(duel))
            assert isinstance(told, StoreBusy) and told.code == "store_busy", told
            assert "statement_timeout" in str(told) and "try again" in str(told)
            _told_unavailable(_within(lambda: client.get(f"/duels/{duel}/events", headers=ORGANISER_TOKEN)),
                              "store_busy")
            told = _within(lambda: store.append(duel, events[6]))
            assert isinstance(told, StoreBusy) and "nothing was written" in str(told), told
        assert store.append(duel, events[6]) == 7 and store.verify(duel).ok


@pytest.mark.parametrize("write", ["append", "attach", "record"])
def test_sqlite_locked_by_another_connection_is_busy(tmp_path, monkeypatch, write):
    """Another connection (another process's, as ``sqlite3`` opens it) holds the file's write
    lock: the write was refused with SQLite's own words ("refused the write ... database is
    locked", a ``StoreError``: a 400 from the service, exit 2). Now it is ``StoreBusy``, as a
    PostgreSQL lock wait: ``store_busy``, exit 75, nothing written, and it goes through after."""
    monkeypatch.setattr(store_opening, "SQLITE_LOCK_WAIT", 1)
    monkeypatch.setattr(store_reading, "SQLITE_LOCK_WAIT", 1)
    path = tmp_path / "s.sqlite"
    events = sample(DAMAGE)
    with Store(str(path)) as store:
        duel = store.create_duel("locked")
        store.append(duel, events[:6])
        calls = {"append": lambda: store.append(duel, events[6]),
                 "attach": lambda: store.attach(duel, "access", {"visibility": "public"}),
                 "record": lambda: store.record(events[:3], "another")}
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            told = _within(calls[write])
        finally:
            other.execute("ROLLBACK")
            other.close()
        assert isinstance(told, StoreBusy), told
        assert told.code == "store_busy" and told.exit_code == 75 and "database is locked" in str(told)
        assert store.info(duel).events == 6 and store.attachment(duel, "access") is None
        calls[write]()
        assert store.verify(duel).ok


def _racing_reads(stores: list[Store], stream: str) -> None:
    """Each thread's first read of ``stream``'s latest version, on any of ``stores``, waits until
    ``len(stores)`` threads have read it: all find the same one, then all write the next."""
    barrier = threading.Barrier(len(stores), timeout=20)
    seen = threading.local()

    def racing(select):
        def select_events(originator_id, *args, **kwargs):
            found = select(originator_id, *args, **kwargs)
            if originator_id == stream and not getattr(seen, "done", False):
                seen.done = True
                barrier.wait()
            return found
        return select_events
    for store in set(stores):
        store.events.select_events = racing(store.events.select_events)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_attachments_written_at_once_both_land(tmp_path, backend):
    """Four organiser requests change one duel's access at once, each having read the same
    latest version: one was written and the others refused as conflicts (409) nobody asked
    for. Now each lands, as its own version, on one store or on two (two processes)."""
    with fresh_url(backend, tmp_path / "s.sqlite", "edges") as url, Store(url) as one, Store(url) as two:
        duel = one.create_duel("access changes")
        one.attach(duel, "access", {"visibility": "private"})
        stores = [one, two, one, two] if backend == "postgresql" else [one] * 4
        _racing_reads(stores, f"{duel}/access")
        told: list = [None] * 4

        def change(i: int) -> None:
            try:
                stores[i].attach(duel, "access", {"visibility": "public", "delay": {"events": i + 1}})
            except Exception as exc:       # noqa: BLE001 (asserted below)
                told[i] = exc
        threads = [threading.Thread(target=change, args=(i,)) for i in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(JOIN)
        assert told == [None] * 4, told
        with Store(url) as fresh:
            versions = fresh.events.select_events(f"{duel}/access")
            assert [v.originator_version for v in versions] == [0, 1, 2, 3, 4]
            delays = [fresh._attached(duel, "access", v.state)["delay"]["events"] for v in versions[1:]]
            assert sorted(delays) == [1, 2, 3, 4]
            assert fresh.attachment(duel, "access") == fresh._attached(duel, "access", versions[-1].state)


def _failing_write(store: Store, which: int) -> list:
    """``store``'s writes, the ``which``th (from 1) failing as a crash before its commit would
    (nothing of it written). The rows of each write tried."""
    inner, tried = store._write_rows, []

    def write_rows(rows, snapshot_rows):
        tried.append(rows)
        if len(tried) == which:
            raise StoreError("the process died here")
        inner(rows, snapshot_rows)
    store._write_rows = write_rows
    return tried


@pytest.mark.parametrize("backend,concurrent", [("sqlite", False), ("postgresql", True)])
def test_a_match_and_the_duel_it_creates_are_written_together(tmp_path, backend, concurrent):
    """A game started on a new duel: the match's ``game_started`` was written, then the duel in
    a second transaction. A failure between the two (here: the second write failing) left the
    match naming a duel that does not exist, its judge reading "not a duel this match linked".
    Now both are one write: the second never comes, and when the one fails neither is there."""
    with fresh_url(backend, tmp_path / "s.sqlite", "edges") as url, Store(url, concurrent=concurrent) as store:
        match = _match(store, "A")
        hub = Hub(store)
        duel = new_id()
        tried = _failing_write(store, 2)
        written = commands.record(hub, match, ORGANISER, _started(duel), 3, commands.NewDuel(duel, "game 1"))
        assert len(tried) == 1, "one write"
        del store._write_rows
        assert written.created and _games(store, match) == [duel]
        assert store.match_of(duel) == match and store.info(duel).title == "game 1"
        assert store.attachment(duel, "access") is not None and store.verify(duel).ok
        assert commands.linked_duel(hub, match, duel) is not None

        second, other = _match(store, "B"), new_id()
        tried = _failing_write(store, 1)
        with pytest.raises(StoreError, match="died"):
            commands.record(hub, second, ORGANISER, _started(other), 3, commands.NewDuel(other, "game 1"))
        assert len(tried) == 1
        with Store(url) as fresh:
            assert _games(fresh, second) == [] and fresh.info(second).events == 3, "nothing of the failed write"
            assert other not in fresh.ids() and fresh.attachment(other, "match_game") is None
            assert _games(fresh, match) == [duel] and fresh.match_of(duel) == match
