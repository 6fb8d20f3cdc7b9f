"""The PostgreSQL store when its database misbehaves (issue 25, ninth pass): down, restarted (its
connections dead), the events table's lock held by another session, and a write's connection
lost once its COMMIT was sent with the server unreachable after. Every read and write is told
so clearly (the store's ``StoreUnavailable``: the service's 503 with ``Retry-After`` and a
``code``, the CLI's one line), never a driver's error (a 500, a traceback), never "nothing was
written" when that is not known, and nothing is lost or recorded twice. The outage is made by a
TCP relay this test controls, or by terminating this test's own connections: never by stopping
the shared server. Nothing here is timed but the lock's bound."""
from __future__ import annotations

import subprocess
import sys
import threading
import time
from contextlib import contextmanager

import pytest

from test_attack_25k import _Cutter
from test_group_commit import DAMAGE, _held_group
from test_release import ADMIN, ORGANISER
from test_store import _pg_connect, fresh_url, sample
from ygoreplay.store import opening as store_opening, reading as store_reading
from ygoreplay.errors import StoreBusy, StoreError, StoreUnavailable
from ygoreplay.store import Store

PASSWORD = "s3cret-pw"           # the test server trusts; the store must never say it


def _outcome(call) -> object:
    """What ``call()`` returned, or the exception it raised."""
    try:
        return call()
    except Exception as exc:
        return exc


@pytest.fixture
def relayed(tmp_path):
    """A PostgreSQL store's URL, and the same store's URL (with a password) through a ``_Cutter``
    that goes down once it cut a COMMIT's answer."""
    relay = _Cutter()
    relay.goes_down = True
    with fresh_url("postgresql", tmp_path / "x.sqlite", "pgout") as where:
        via = where.replace("postgres@127.0.0.1:5432", f"postgres:{PASSWORD}@127.0.0.1:{relay.port}")
        assert via != where
        yield where, via, relay
    relay.down()


def _client(store: Store):
    from fastapi.testclient import TestClient
    from ygoreplay.access import digest
    from ygoreplay.service import create_app
    return TestClient(create_app(store, digest(ADMIN)), raise_server_exceptions=False)


def _told_unavailable(answer, code: str) -> dict:
    """A 503 with ``Retry-After``, the ``code`` given, naming the store and never its password."""
    assert answer.status_code == 503, answer.text
    assert int(answer.headers["retry-after"]) >= 1
    body = answer.json()
    assert body["code"] == code and "postgresql://127.0.0.1:" in body["error"], body
    assert PASSWORD not in answer.text
    return body


def _own_backends(store: Store) -> list[int]:
    """The server processes of ``store``'s connections: its pool's idle ones and its writer's."""
    pids = [conn.info.backend_pid for conn in list(store.events.datastore.pool._pool)]
    if store._postgres is not None and store._postgres._conn is not None:
        pids.append(store._postgres._conn.info.backend_pid)
    return pids


def test_the_first_reads_and_writes_after_a_restart_are_served(tmp_path):
    """A server restart leaves every pooled connection (and the writer's) dead, as terminating
    their server processes does: the next reads met the dead connections' error (a 500 from
    the service, the first four requests at least), and the first write was refused. Now a
    connection the server hung up on is dropped before it is used: every request is served."""
    events = sample(DAMAGE)
    with fresh_url("postgresql", tmp_path / "x.sqlite", "pgout") as where, Store(where, concurrent=True) as store:
        duels = [store.create_duel(f"table {i}") for i in range(3)]
        for duel in duels:
            store.append(duel, events[:5])
        with _client(store) as client:
            assert client.get("/duels", headers=ORGANISER).status_code == 200
            for _restart in range(2):
                pids = _own_backends(store)
                assert len(pids) >= 2
                with _pg_connect() as admin:
                    ended = admin.execute("SELECT pg_terminate_backend(pid, 5000) FROM unnest(%s::int[]) AS pid",
                                          (pids,)).fetchall()
                assert any(row[0] for row in ended)         # (one not used since may be gone already)
                for duel in duels:                        # more reads than the pool has connections
                    answer = client.get(f"/duels/{duel}/events", headers=ORGANISER)
                    assert answer.status_code == 200, answer.text
                    assert client.get("/duels", headers=ORGANISER).status_code == 200
            pids = _own_backends(store)
            with _pg_connect() as admin:
                admin.execute("SELECT pg_terminate_backend(pid, 5000) FROM unnest(%s::int[]) AS pid", (pids,))
            assert store.append(duels[0], events[5]) == 6          # the writer's connection, dead, is made again
    with fresh_url("postgresql", tmp_path / "y.sqlite", "pgout") as where, Store(where) as store:
        duel = store.create_duel("plain store")
        store.append(duel, events[:5])
        assert store.info(duel).events == 5
        with _pg_connect() as admin:
            admin.execute("SELECT pg_terminate_backend(pid, 5000) FROM unnest(%s::int[]) AS pid", (_own_backends(store),))
        assert [r.event for r in store.records(duel)] == list(events[:5]) and store.verify(duel).ok
        assert store.append(duel, events[5]) == 6


@pytest.mark.parametrize("read", ["state_at", "duels", "seek_service"])
def test_a_read_whose_connection_is_lost_under_it_is_made_once_more_on_another(tmp_path, read):
    """The connection a read took is ended under its statement (its backend terminated after it
    was handed out, as a proxy's cut or a restart between the two would): the read met the
    driver's error (``state_at``: "cannot read the store", the service's 503 or 500). Now it
    is made once more on another connection, and served; lost again, it is told the store is
    not answering."""
    events = sample(DAMAGE)
    with fresh_url("postgresql", tmp_path / "x.sqlite", "pgout") as where, Store(where) as store:
        duel = store.create_duel("lost under a read")
        store.append(duel, events[:8])
        datastore = store.events.datastore
        gated, ended = datastore.get_connection, []

        @contextmanager
        def ending(*args, **kwargs):
            with gated(*args, **kwargs) as connection:
                if len(ended) < limit:
                    ended.append(connection.info.backend_pid)
                    with _pg_connect() as admin:
                        admin.execute("SELECT pg_terminate_backend(%s, 5000)", (ended[-1],))
                yield connection
        datastore.get_connection = ending
        limit = 1
        if read == "seek_service":
            with _client(store) as client:
                answer = client.get(f"/duels/{duel}/state?at=4", headers=ORGANISER)
                assert answer.status_code == 200, answer.text
        else:
            assert getattr(store, read)(*([duel, 4] if read == "state_at" else []))
        assert len(ended) == 1
        limit = 3                                     # lost again: said, not a third try
        with pytest.raises(StoreUnavailable, match="not answering"):
            store.state_at(duel, 5)
        assert len(ended) == 3
        datastore.get_connection = gated
        assert store.state_at(duel, 6) is not None


def test_reads_and_writes_while_the_database_is_not_answering_are_told_503_then_served_again(relayed):
    """The database goes away (every connection cut, none taken): a read and an append through
    the service get a 503 naming the store (not its password), with ``Retry-After`` and the code
    ``store_unavailable`` (they got the driver's error as a 500); the store's own calls raise
    ``StoreUnavailable``; nothing is written; once it is back, the same requests are served."""
    where, via, relay = relayed
    events = sample(DAMAGE)
    with Store(via, concurrent=True) as store:
        store.events.datastore.pool.timeout = 1.0          # a connection waited for: 1 s, not 5
        duels = [store.create_duel(f"table {i}") for i in range(2)]
        for duel in duels:
            store.append(duel, events[:5])
        with _client(store) as client:
            assert client.get("/duels", headers=ORGANISER).status_code == 200
            assert client.get(f"/duels/{duels[0]}/events", headers=ORGANISER).status_code == 200
            relay.down()
            _told_unavailable(client.get("/duels", headers=ORGANISER), "store_unavailable")
            _told_unavailable(client.get(f"/duels/{duels[1]}/events", headers=ORGANISER), "store_unavailable")
            body = _told_unavailable(client.post(f"/duels/{duels[0]}/events", headers=ORGANISER,
                                                 json=[events[5].to_dict()]), "store_unavailable")
            assert "not answering" in body["error"], body
            with pytest.raises(StoreUnavailable) as raised:
                store.info(duels[0])
            assert not isinstance(raised.value, StoreError) and PASSWORD not in str(raised.value)
            with pytest.raises(StoreUnavailable, match="nothing was written"):
                store.append(duels[1], events[5])
            relay.up()
            deadline = time.monotonic() + 20
            while (answer := client.get("/duels", headers=ORGANISER)).status_code != 200:
                assert time.monotonic() < deadline, answer.text
                time.sleep(0.2)
            assert client.get(f"/duels/{duels[1]}/events", headers=ORGANISER).status_code == 200
            answer = client.post(f"/duels/{duels[0]}/events?expected=5", headers=ORGANISER, json=[events[5].to_dict()])
            assert answer.status_code == 200 and answer.json()["position"] == 6, answer.text
            assert store.append(duels[1], events[5], expected_position=5) == 6
    with Store(where, readonly=True) as reader:
        for duel in duels:
            assert [r.event for r in reader.records(duel)] == list(events[:6]) and reader.verify(duel).ok


def test_the_command_line_says_the_store_is_not_answering_in_one_line(tmp_path):
    """No server at the URL: one line naming the store (never the password), the exit code of a
    failure to try again later (75), no traceback."""
    url = f"postgresql://postgres:{PASSWORD}@127.0.0.1:1/test?schema=nowhere"
    done = subprocess.run([sys.executable, "-m", "ygoreplay", "list", "--store", url],
                          capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={"PYTHONPATH": str(__import__("pathlib").Path(__file__).parent.parent),
                               "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 75, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "the store at postgresql://127.0.0.1:1/test?schema=nowhere is not answering" in lines[0]
    assert PASSWORD not in done.stderr + done.stdout


@pytest.mark.parametrize("concurrent_store", [False, True])
def test_a_write_behind_a_held_table_lock_is_told_the_store_is_busy_and_nothing_is_written(
        tmp_path, monkeypatch, concurrent_store):
    """Another session holds the events table's lock: every write waited for ever (the
    recorder's lock timeout was 0). Now it waits ``LOCK_WAIT`` seconds, then is told the store
    is busy (a 503, code ``store_busy``), its transaction rolled back (its index rows too: a
    new turn); a group of appends is told so at once, each not waiting again alone; once the
    lock is free the same appends are written."""
    monkeypatch.setattr(store_opening, "LOCK_WAIT", 1)
    monkeypatch.setattr(store_reading, "LOCK_WAIT", 1)
    events = sample(DAMAGE)
    with fresh_url("postgresql", tmp_path / "x.sqlite", "pgout") as where, \
            Store(where, concurrent=concurrent_store) as store:
        duels = [store.create_duel(f"table {i}") for i in range(4)]
        for duel in duels:
            store.append(duel, events[:12])
        schema, table = store.events.datastore.schema, store.events.events_table_name
        turns = f'SELECT id, turn FROM "{schema}".library_streams WHERE id = ANY(%s)'
        told: dict[str, object] = {}

        def append(duel: str, event=events[12]) -> None:       # events[12]: a new turn, an index row too
            told[duel] = _outcome(lambda: store.append(duel, event))
        first = store.create_duel("the first write, held")
        holder = _pg_connect()
        try:
            holder.execute("BEGIN")
            holder.execute(f'LOCK TABLE "{schema}".{table} IN EXCLUSIVE MODE')
            started = time.monotonic()
            if concurrent_store:
                _held_group(store, lambda: append(first, events[0]), [lambda d=d: append(d) for d in duels])
                assert isinstance(told[first], StoreBusy), told
            else:
                writer = threading.Thread(target=append, args=(duels[0],))
                writer.start()
                writer.join(10)
                assert not writer.is_alive(), "the write waited for the lock for ever"
                for duel in duels[1:]:
                    append(duel)
            took = time.monotonic() - started
            with _client(store) as client:
                _told_unavailable(client.post(f"/duels/{duels[0]}/events", headers=ORGANISER,
                                              json=[events[12].to_dict()]), "store_busy")
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert all(isinstance(told[d], StoreBusy) and "busy" in str(told[d]) and "nothing was written" in str(told[d])
                   for d in duels), told
        # the first write alone, then the group once (each of its appends waiting again alone was 6 s)
        assert took < (4.5 if concurrent_store else 4 * 1 + 3), took
        with _pg_connect() as admin:
            assert dict(admin.execute(turns, (duels,)).fetchall()) == dict.fromkeys(duels, 1)
        for duel in duels:
            assert store.append(duel, events[12], expected_position=12) == 13
        with Store(where, readonly=True) as reader:
            for duel in duels:
                assert [r.event for r in reader.records(duel)] == list(events[:13]) and reader.verify(duel).ok


def test_the_service_tells_an_append_of_unknown_outcome_with_its_own_code(relayed):
    """Through the service: a 503 whose ``code`` is ``write_outcome_unknown`` (not the 503 of a
    store down, after which a retry is plainly safe); the client's retry with ``expected``
    gets a 409, and the events are stored once."""
    where, via, relay = relayed
    events = sample(DAMAGE)
    with Store(via, concurrent=True) as store:
        duel = store.create_duel("over HTTP")
        store.append(duel, events[:3])
        with _client(store) as client:
            assert client.get(f"/duels/{duel}/events", headers=ORGANISER).status_code == 200
            relay.armed.set()
            body = _told_unavailable(client.post(f"/duels/{duel}/events?expected=3", headers=ORGANISER,
                                                 json=[events[3].to_dict()]), "write_outcome_unknown")
            assert "read the duel's head before retrying" in body["error"], body
            relay.up()
            deadline = time.monotonic() + 20
            while (answer := client.post(f"/duels/{duel}/events?expected=3", headers=ORGANISER,
                                         json=[events[3].to_dict()])).status_code == 503:
                assert time.monotonic() < deadline, answer.text
                time.sleep(0.2)
            assert answer.status_code == 409, answer.text
    with Store(where, readonly=True) as reader:
        assert [r.event for r in reader.records(duel)] == list(events[:4]) and reader.verify(duel).ok
