"""Attacks on the PostgreSQL write as one pipeline with BEGIN and COMMIT as its statements, and
on closing the store while it works (issue 25, eighth pass): a group's write failing at each of
its statements, a COMMIT carried out whose answer never reached the writer, and a store closed
under appends and reads. Each append is told the truth, nothing acknowledged is lost, nothing
is recorded twice, no lock is left held, and every duel verifies. Nothing here is timed."""
from __future__ import annotations

import gc
import signal
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from test_group_commit import DAMAGE, _held_group, _owners
from test_store import _pg_connect, fresh_url, sample
from ygoreplay.errors import ConflictError, StoreBusy, StoreError, StoreUnavailable, WriteOutcomeUnknown
from ygoreplay.store import Store

_COMMITTED = b"C\x00\x00\x00\x0bCOMMIT\x00"      # the server's CommandComplete for a COMMIT


class _Cutter:
    """A TCP relay to PostgreSQL that, once armed, drops the connection on which the server
    answers a COMMIT, instead of passing that answer on: the server committed, the client
    hears only that its connection was lost. ``goes_down``: it then goes ``down`` too (every
    connection through it cut, new ones refused, as a server gone) until brought ``up`` on the
    same port (issue 25, ninth pass)."""

    def __init__(self, port: int = 5432) -> None:
        self._target = port
        self._open: list[socket.socket] = []
        self._guard = threading.Lock()
        self.armed, self.cut = threading.Event(), threading.Event()
        self.early = False               # cut once the COMMIT is sent, before the server ran it
        self.goes_down = False
        self._listener: socket.socket | None = self._listen(0)
        self.port = self._listener.getsockname()[1]

    def _listen(self, port: int) -> socket.socket:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(64)
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return listener

    def close(self) -> None:
        self.down()

    def down(self) -> None:
        """Cut every connection through the relay and refuse new ones."""
        with self._guard:
            ends, self._open = self._open, []
            listener, self._listener = self._listener, None
        for end in ([listener] if listener else []) + ends:
            try:
                end.shutdown(socket.SHUT_RDWR)      # (wakes the accepting thread)
            except OSError:
                pass
            end.close()

    def up(self) -> None:
        self._listener = self._listen(self.port)

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self._target))
            with self._guard:
                self._open += [client, server]
            threading.Thread(target=self._relay, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._relay, args=(server, client, True), daemon=True).start()

    def _relay(self, source: socket.socket, to: socket.socket, answers: bool) -> None:
        try:
            while data := source.recv(65536):
                if answers and self.armed.is_set() and _COMMITTED in data:
                    self._cut()
                    break
                to.sendall(data)
                if not answers and self.early and self.armed.is_set() and b"COMMIT" in data:
                    self._cut()
                    break
        except OSError:
            pass
        self._hang_up(source, to)

    @staticmethod
    def _hang_up(*ends: socket.socket) -> None:
        for end in ends:
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            end.close()

    def _cut(self) -> None:
        self.armed.clear()
        self.cut.set()
        if self.goes_down:
            self.down()


def _through(cutter: _Cutter, tmp_path: Path, prefix: str):
    """A PostgreSQL store's URL, that URL through ``cutter``, and ``cutter`` (closed after)."""
    with fresh_url("postgresql", tmp_path / "x.sqlite", prefix) as where:
        yield where, where.replace("127.0.0.1:5432", f"127.0.0.1:{cutter.port}"), cutter
    cutter.close()


@pytest.fixture
def relayed(tmp_path):
    """A PostgreSQL store's URL, and that URL through a ``_Cutter``."""
    yield from _through(_Cutter(), tmp_path, "atk25k")


@pytest.mark.parametrize("gone", [False, True])
@pytest.mark.parametrize("concurrent_store", [False, True])
def test_an_append_whose_commit_answer_was_lost_is_told_it_was_written(relayed, concurrent_store, gone):
    """The COMMIT reached the server, its answer never reached the store: the events are stored,
    so the append is told so (it was told "nothing was written", and a user who believed it and
    appended again recorded the events twice); the next append and verify see the right head.
    ``gone``: the server cannot be reached after, so whether it was stored cannot be asked: the
    append was told "nothing was written"; now that its outcome is unknown (``WriteOutcomeUnknown``,
    the service's 503 with its own code), to read the head first; a retry at the position it
    expected is refused as a conflict (issue 25, ninth pass)."""
    where, via, cutter = relayed
    cutter.goes_down = gone
    events = sample(DAMAGE)
    with Store(via, concurrent=concurrent_store) as store:
        duel = store.create_duel("lost answer")
        assert store.append(duel, events[:3]) == 3
        cutter.armed.set()
        if gone:
            with pytest.raises(WriteOutcomeUnknown) as raised:
                store.append(duel, events[3], expected_position=3)
            said = str(raised.value)
            assert "outcome is unknown" in said and "read the duel's head before retrying" in said, said
            assert "nothing was written" not in said
            cutter.up()
            with pytest.raises(ConflictError):               # the retry the message calls safe
                store.append(duel, events[3], expected_position=3)
        else:
            assert store.append(duel, events[3]) == 4
        assert cutter.cut.is_set()
        assert store.append(duel, events[4]) == 5
        with Store(where, readonly=True) as reader:
            assert [r.event for r in reader.records(duel)] == list(events[:5]) and reader.verify(duel).ok


@pytest.mark.parametrize("gone", [False, True])
def test_a_group_whose_commit_answer_was_lost_records_nothing_twice(relayed, gone):
    """A group of appends whose COMMIT was carried out but not answered: each append retried
    alone found its position taken (by its own rows), was told of a conflict and appended its
    events again at the new head, recording them twice (or was refused as illegal there).
    ``gone``: the server cannot be reached after (so whether it committed cannot be asked):
    each append was written again alone, each told "nothing was written" (issue 25, ninth
    pass); now each is told its outcome is unknown, and a retry at its position is refused."""
    where, via, cutter = relayed
    cutter.goes_down = gone
    events = sample(DAMAGE)
    with Store(via, concurrent=True) as store:
        duels = [store.create_duel(f"table {i}") for i in range(4)]
        for duel in duels:
            store.append(duel, events[:3])
        inner = store._write_rows

        def arm_for_the_group(rows, snapshot_rows):
            if len(_owners(rows)) > 1 and not cutter.cut.is_set():
                cutter.armed.set()
            inner(rows, snapshot_rows)
        store._write_rows = arm_for_the_group
        told: dict[str, object] = {}

        def append(duel: str) -> None:
            try:
                told[duel] = store.append(duel, events[3])      # a hand drawn: legal twice
            except Exception as exc:
                told[duel] = exc
        first = store.create_duel("the first write, held")
        _held_group(store, lambda: store.append(first, events[0]), [lambda d=d: append(d) for d in duels])
        assert cutter.cut.is_set()
        if gone:
            assert all(isinstance(told[duel], WriteOutcomeUnknown) for duel in duels), told
            cutter.up()
            for duel in duels:
                with pytest.raises(ConflictError):
                    store.append(duel, events[3], expected_position=3)
        else:
            assert told == {duel: 4 for duel in duels}
        with Store(where, readonly=True) as reader:
            for duel in duels:
                assert [r.event for r in reader.records(duel)] == list(events[:4]) and reader.verify(duel).ok


_FAULTS = {                                       # what the statement at fault does on the server
    "refused": "RAISE EXCEPTION 'refused by the attack'",
    "serialization": "RAISE EXCEPTION 'serialization' USING ERRCODE = '40001'",
    "timeout": "RAISE EXCEPTION 'statement timeout' USING ERRCODE = '57014'",
    "terminated": "PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5)",
}
_WHERE = {                                        # (the statement at fault's trigger, the events before the append)
    "index": ("BEFORE UPDATE ON {streams} FOR EACH ROW WHEN (NEW.id = '{bad}')", 12),   # a new turn: the streams row
    "events": ("BEFORE INSERT ON {events} FOR EACH ROW WHEN (NEW.originator_id = '{bad}')", 15),
    "snapshots": ("BEFORE INSERT ON {snapshots} FOR EACH ROW WHEN (NEW.originator_id = '{bad}')", 15),
    "commit": ("AFTER INSERT ON {events} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
               "WHEN (NEW.originator_id = '{bad}')", 15),                              # at COMMIT
}


@pytest.mark.parametrize("fault", list(_FAULTS))
@pytest.mark.parametrize("where", list(_WHERE))
def test_a_group_failing_at_any_statement_fails_only_the_append_at_fault(tmp_path, where, fault):
    """One append of a group makes one statement of the group's write fail on the server (the
    index rows, the events, the snapshots (position 16 makes one), the COMMIT by a deferred
    trigger), by an error, a serialization failure, a statement timeout, or its connection
    terminated: that append alone fails, told nothing was written; the others are stored;
    no lock is left held (another process appends); the store goes on, and every duel verifies."""
    events = sample(DAMAGE)
    trigger, before = _WHERE[where]
    with fresh_url("postgresql", tmp_path / "x.sqlite", "atk25k") as url, Store(url, concurrent=True) as store:
        duels = [store.create_duel(f"table {i}") for i in range(5)]
        bad = duels[0]
        for duel in duels:
            store.append(duel, events[:before])
        names = {"streams": store.library.streams, "bad": bad,
                 "events": f'"{store.events.datastore.schema}".{store.events.events_table_name}',
                 "snapshots": f'"{store.events.datastore.schema}".{store.snapshots.events_table_name}'}
        schema = store.events.datastore.schema
        with _pg_connect() as admin:
            admin.execute(f'CREATE FUNCTION "{schema}".attack() RETURNS trigger LANGUAGE plpgsql AS '
                          f"$$ BEGIN {_FAULTS[fault]}; RETURN NEW; END $$")
            admin.execute(f'CREATE {"CONSTRAINT " if where == "commit" else ""}TRIGGER attack '
                          f'{trigger.format(**names)} EXECUTE FUNCTION "{schema}".attack()')
        told: dict[str, object] = {}

        def append(duel: str) -> None:
            try:
                told[duel] = store.append(duel, events[before])
            except Exception as exc:
                told[duel] = exc
        first = store.create_duel("the first write, held")
        writes = _held_group(store, lambda: store.append(first, events[0]), [lambda d=d: append(d) for d in duels])
        assert any(owners == set(duels) for _thread, owners in writes), "offered as one group"
        if fault == "timeout":
            # a statement cancelled by its timeout is the store busy (tenth pass), as a lock not had:
            # the group is told so whole, nothing written (each retried alone waited out its own)
            assert all(isinstance(told[d], StoreBusy) and "nothing was written" in str(told[d]) for d in duels), told
            assert all(store.append(duel, events[before]) == before + 1 for duel in duels[1:])
        else:
            # its server process ended under it: the store not answering (tenth pass), not a refusal
            assert isinstance(told[bad], StoreUnavailable if fault == "terminated" else StoreError), told
            assert "nothing was written" in str(told[bad])
            assert all(told[duel] == before + 1 for duel in duels[1:])
        with Store(url) as other:                     # no lock left held: another process appends
            assert other.append(other.create_duel("elsewhere"), events[0]) == 1
        with _pg_connect() as admin:
            admin.execute(f'DROP TRIGGER attack ON {names["snapshots" if where == "snapshots" else "streams" if where == "index" else "events"]}')
        assert store.append(bad, events[before]) == before + 1
        with Store(url, readonly=True) as reader:
            for duel in duels:
                assert [r.event for r in reader.records(duel)] == list(events[:before + 1])
                assert reader.verify(duel).ok and reader.info(duel).events == before + 1


@pytest.mark.parametrize("concurrent_store", [False, True])
def test_a_write_whose_connection_was_lost_before_the_server_committed_it_is_told_the_truth(relayed, concurrent_store):
    """The connection is lost once the whole write (its COMMIT too) was sent, while the server
    still runs it (a trigger sleeps): the server commits it a moment later. Looked for at once,
    its rows were not there yet: the append was told "nothing was written" and the rows came."""
    where, via, cutter = relayed
    events = sample(DAMAGE)
    with Store(via, concurrent=concurrent_store) as store:
        duel = store.create_duel("lost while running")
        assert store.append(duel, events[:3]) == 3
        schema = store.events.datastore.schema
        with _pg_connect() as admin:
            admin.execute(f'CREATE FUNCTION "{schema}".slow() RETURNS trigger LANGUAGE plpgsql AS '
                          "$$ BEGIN PERFORM pg_sleep(1); RETURN NEW; END $$")
            admin.execute(f'CREATE TRIGGER slow BEFORE INSERT ON "{schema}".{store.events.events_table_name} '
                          f"FOR EACH ROW WHEN (NEW.originator_id = '{duel}' AND NEW.originator_version = 4) "
                          f'EXECUTE FUNCTION "{schema}".slow()')
        cutter.early = True
        cutter.armed.set()
        try:
            told: object = store.append(duel, events[3])
        except (StoreError, StoreUnavailable) as exc:
            told = exc
        assert cutter.cut.is_set()
        with _pg_connect() as admin, admin.transaction():    # the write cut off is over (it held the lock)
            admin.execute(f'LOCK TABLE "{schema}".{store.events.events_table_name} IN EXCLUSIVE MODE')
        with Store(where, readonly=True) as reader:
            stored = reader.info(duel).events
            # not written: the store not answering (tenth pass: it was "refused the write", exit 2)
            assert told == stored == 4 or (isinstance(told, StoreUnavailable) and stored == 3), (told, stored)
        assert store.append(duel, events[stored]) == stored + 1
        with Store(where, readonly=True) as reader:
            assert [r.event for r in reader.records(duel)] == list(events[:stored + 1]) and reader.verify(duel).ok


# Readers that keep reading (long statements, and the store's own reads) while the main thread
# closes the store: prints the kinds of error the readers met, one a line.
_READERS_DURING_CLOSE = textwrap.dedent("""
    import sys, threading, time
    sys.path.insert(0, sys.argv[2])
    from test_store import sample
    from ygoreplay.store import Store

    events = sample("won-by-damage.jsonl")
    store = Store(sys.argv[1])
    duel = store.create_duel("read while closing")
    store.append(duel, events)
    met = set()

    def long_reads():
        while True:
            try:
                with store.factory.datastore.transaction(commit=False) as cursor:
                    cursor.execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
                                   "WHERE x < 300000) SELECT count(*) FROM c")
                    cursor.fetchone()
            except Exception as exc:
                met.add(type(exc).__name__)
                return

    def store_reads():
        while True:
            try:
                verified = store.verify(duel)
                assert verified.ok, verified
                assert len(store.records(duel)) == len(events)
            except Exception as exc:
                met.add(type(exc).__name__)
                return
    readers = [threading.Thread(target=long_reads) for _ in range(3)] + [threading.Thread(target=store_reads)]
    for reader in readers:
        reader.start()
    time.sleep(0.5)
    store.close()
    for reader in readers:
        reader.join()
    print("\\n".join(sorted(met)))
""")


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_store_closed_while_reads_keep_coming_lives_and_refuses_the_later_ones_clearly(tmp_path, backend):
    """``close`` waited for the connections in use to be given back, then closed them all: a
    read that took one meanwhile had it closed under its statement (SQLite: the process died
    of SIGSEGV, 10 times in 10), and a read after the close met the pool's own error (a
    traceback, an HTTP 500) rather than the store's. Now a read is refused once the store
    closes, as ygoreplay's own error (never taken for a duel altered: ``verify`` is never
    "not ok" for it), and those under way end first."""
    with fresh_url(backend, tmp_path / "r.sqlite", "atk25k") as where:
        for attempt in range(2):
            done = subprocess.run([sys.executable, "-c", _READERS_DURING_CLOSE, where, str(Path(__file__).parent)],
                                  cwd=Path(__file__).parent.parent, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
            assert done.stdout.split() == ["YgoreplayError"], done.stdout


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_store_closed_under_many_appending_threads_keeps_exactly_the_appends_it_acknowledged(tmp_path, backend):
    """The service's store closed while many threads append: each append is either
    acknowledged, and stored, or refused with the store's own error, and nothing of it stored;
    every duel verifies."""
    events = sample(DAMAGE)
    with fresh_url(backend, tmp_path / "c.sqlite", "atk25k") as where:
        store = Store(where, concurrent=True)
        duels = [store.create_duel(f"table {i}") for i in range(8)]
        acknowledged = dict.fromkeys(duels, 0)
        refused: list[BaseException] = []
        going = threading.Barrier(len(duels) + 1)

        def scorekeeper(duel: str) -> None:
            going.wait()
            for event in events:
                try:
                    acknowledged[duel] = store.append(duel, event)
                except Exception as exc:
                    refused.append(exc)
                    return
        threads = [threading.Thread(target=scorekeeper, args=(duel,)) for duel in duels]
        for thread in threads:
            thread.start()
        going.wait()
        while sum(acknowledged.values()) < 3 * len(duels):
            threading.Event().wait(0.01)
        store.close()
        for thread in threads:
            thread.join(60)
            assert not thread.is_alive()
        assert refused and all(type(exc).__name__ in {"StoreError", "YgoreplayError"} for exc in refused), refused
        with Store(where, readonly=True) as reader:
            for duel in duels:
                assert reader.info(duel).events == acknowledged[duel]
                assert [r.event for r in reader.records(duel)] == list(events[:acknowledged[duel]])
                assert reader.verify(duel).ok


@pytest.mark.parametrize("concurrent_store", [False, True])
def test_a_ctrl_c_while_the_server_runs_the_write_leaves_the_duel_whole_and_no_lock_held(tmp_path, concurrent_store):
    """SIGINT to the main thread while it waits for the server to run its write (a trigger
    sleeps): the append is interrupted; the write is then either all stored or not at all, no
    lock stays held (another process appends), the store appends on from the stored head, and
    the duel verifies."""
    events = sample(DAMAGE)
    with fresh_url("postgresql", tmp_path / "x.sqlite", "atk25k") as where, \
            Store(where, concurrent=concurrent_store) as store:
        duel = store.create_duel("interrupted")
        assert store.append(duel, events[:3]) == 3
        schema, table = store.events.datastore.schema, store.events.events_table_name
        with _pg_connect() as admin:
            admin.execute(f'CREATE FUNCTION "{schema}".slow() RETURNS trigger LANGUAGE plpgsql AS '
                          "$$ BEGIN PERFORM pg_sleep(1); RETURN NEW; END $$")
            admin.execute(f'CREATE TRIGGER slow BEFORE INSERT ON "{schema}".{table} '
                          f"FOR EACH ROW WHEN (NEW.originator_id = '{duel}' AND NEW.originator_version = 4) "
                          f'EXECUTE FUNCTION "{schema}".slow()')
        timer = threading.Timer(0.3, signal.raise_signal, (signal.SIGINT,))
        # Python's own Ctrl-C handler even where the suite was started with SIGINT ignored, and no
        # collection meanwhile: a signal handled inside a collector's callback is swallowed, not raised
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        gc.disable()
        try:
            timer.start()
            with pytest.raises(KeyboardInterrupt):
                store.append(duel, events[3])
            timer.join()
        finally:
            gc.enable()
            signal.signal(signal.SIGINT, previous)
        with _pg_connect() as admin, admin.transaction():    # the write interrupted is over (it held the lock)
            admin.execute(f'LOCK TABLE "{schema}".{table} IN EXCLUSIVE MODE')
        with Store(where) as other:
            assert other.append(other.create_duel("elsewhere"), events[0]) == 1
            stored = other.info(duel).events
        assert stored in (3, 4)
        assert store.append(duel, events[stored]) == stored + 1
        with Store(where, readonly=True) as reader:
            assert [r.event for r in reader.records(duel)] == list(events[:stored + 1]) and reader.verify(duel).ok


def test_a_group_whose_lock_statement_times_out_fails_whole_and_the_store_goes_on(tmp_path):
    """Another session holds the recorder's table lock past the writer's statement timeout (set
    here shorter than its lock timeout, ``LOCK_WAIT``: test_pg_outage): the group's write fails at its
    LOCK statement, the store busy (``StoreBusy``, tenth pass); each is told nothing was written,
    and nothing of any is stored, its index rows (sent before the lock: a new turn) rolled back
    with it; once the lock is free the store appends on, and every duel verifies."""
    events = sample(DAMAGE)
    with fresh_url("postgresql", tmp_path / "x.sqlite", "atk25k") as where, Store(where, concurrent=True) as store:
        duels = [store.create_duel(f"table {i}") for i in range(4)]
        for duel in duels:
            store.append(duel, events[:12])
        first = store.create_duel("the first write, held")
        schema, table = store.events.datastore.schema, store.events.events_table_name
        turns = f'SELECT id, turn FROM "{schema}".library_streams WHERE id = ANY(%s)'
        told: dict[str, object] = {}

        def append(duel: str) -> None:
            try:
                told[duel] = store.append(duel, events[12])         # a new turn: an index row too
            except Exception as exc:
                told[duel] = exc
        store._postgres._connection().execute("SET statement_timeout = '300ms'")
        with _pg_connect() as holder, holder.transaction():
            holder.execute(f'LOCK TABLE "{schema}".{table} IN EXCLUSIVE MODE')
            _held_group(store, lambda: pytest.raises(StoreBusy, store.append, first, events[0]),
                        [lambda d=d: append(d) for d in duels])
        store._postgres._connection().execute("RESET statement_timeout")
        assert all(isinstance(told[d], StoreBusy) and "nothing was written" in str(told[d]) for d in duels), told
        with _pg_connect() as admin:
            assert dict(admin.execute(turns, (duels,)).fetchall()) == dict.fromkeys(duels, 1)
        for duel in duels:
            assert store.append(duel, events[12]) == 13
        with _pg_connect() as admin:
            assert dict(admin.execute(turns, (duels,)).fetchall()) == dict.fromkeys(duels, 2)
        with Store(where, readonly=True) as reader:
            for duel in duels:
                assert [r.event for r in reader.records(duel)] == list(events[:13]) and reader.verify(duel).ok


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_request_that_reads_a_closed_store_is_told_so_not_a_500(tmp_path, backend):
    """The service's store closed (its shutdown) while a request still comes: the answer says
    the store is closed, with the service's status for a store it cannot use (503), not the
    pool's own error as an internal error (500)."""
    from fastapi.testclient import TestClient
    from test_release import ADMIN, ORGANISER
    from ygoreplay.access import digest
    from ygoreplay.service import create_app
    with fresh_url(backend, tmp_path / "s.sqlite", "atk25k") as where:
        store = Store(where, concurrent=True)
        store.create_duel("listed")
        with TestClient(create_app(store, digest(ADMIN)), raise_server_exceptions=False) as client:
            assert client.get("/duels", headers=ORGANISER).status_code == 200
            store.close()
            answer = client.get("/duels", headers=ORGANISER)
        assert answer.status_code == 503 and "closed" in answer.json()["error"], answer.text
