"""The store's write path under concurrent appends (issue 25), on SQLite and on PostgreSQL: the
group commit writes the appends waiting at one moment in one transaction; each append still
keeps its duel's order, loses nothing and is all or nothing; one that fails in a group (a
position another writer took, a row the database refuses) fails alone, and the others of its
group are written. And the service's live followers: many followers of a duel each get every
event once, in order, each step encoded once for all of them. Nothing here is timed.
"""
from __future__ import annotations

import signal
import socket
import threading
from pathlib import Path

import httpx
import pytest

from test_service import Follower, Server, auth, create, events_of
from test_store import _pg_connect, fresh_url, sample
from ygoreplay.errors import ConflictError, StoreError, StoreUnavailable, YgoreplayError
from ygoreplay.store import SNAPSHOT_EVERY, Store

DAMAGE = "won-by-damage.jsonl"


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    with fresh_url(request.param, tmp_path / "duels.sqlite", "gc") as where:
        yield where


@pytest.fixture
def concurrent(url):
    with Store(url, concurrent=True) as store:
        yield store


def _writers(store: Store, hold_first: bool = False, fail_first: BaseException | None = None):
    """Patch the store's group writes to note the thread of each (and its duels); the first can
    be held until released, and can raise ``fail_first`` instead of writing."""
    seen: list[tuple[str, set[str]]] = []
    release, holding = threading.Event(), threading.Event()
    inner = store._write_rows

    def write_rows(rows, snapshot_rows):
        seen.append((threading.current_thread().name, _owners(rows)))
        if len(seen) == 1 and hold_first:
            holding.set()
            release.wait(30)
            if fail_first is not None:
                raise fail_first
        inner(rows, snapshot_rows)
    store._write_rows = write_rows
    return seen, release, holding


def _held_group(store: Store, first, others: list, fail_first: BaseException | None = None) -> list:
    """Run ``first`` (an append), hold the group commit on its write until every one of
    ``others`` waits behind it, so that they are offered as one group (its write then raises
    ``fail_first`` if given); the thread and the duels of every write."""
    inner = store._write_rows
    seen, release, holding = _writers(store, hold_first=True, fail_first=fail_first)
    try:
        held = threading.Thread(target=first, name="held")
        held.start()
        assert holding.wait(30)
        threads = [threading.Thread(target=call) for call in others]
        for thread in threads:
            thread.start()
        while store._committer.waiting() < len(others):
            threading.Event().wait(0.01)
        release.set()
        for thread in threads + [held]:
            thread.join(30)
            assert not thread.is_alive(), "an append was left waiting"
    finally:
        store._write_rows = inner
    return seen


def _owners(rows: list) -> set[str]:
    return {str(r.originator_id).split("/")[0] for r in rows}


def test_concurrent_appends_of_many_duels_keep_each_duels_order_and_lose_nothing(url, concurrent):
    events = sample(DAMAGE)
    duels = [concurrent.create_duel(f"table {i}") for i in range(12)]
    errors: list[BaseException] = []

    def scorekeeper(mine: list[str]) -> None:        # one thread per pair of tables, event by event
        try:
            for event in events:
                for duel in mine:
                    concurrent.append(duel, event)
        except BaseException as exc:
            errors.append(exc)
    threads = [threading.Thread(target=scorekeeper, args=(duels[k::6],)) for k in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with Store(url, readonly=True) as reader:
        for duel in duels:
            assert [r.event for r in reader.records(duel)] == list(events)
            assert reader.verify(duel).ok and reader.info(duel).events == len(events)


def _first_position_taken(url: str, concurrent: Store, tables: int) -> tuple[list, list[str]]:
    """``tables`` duels of 3 events each, and another process's write of duel 0's fourth: an
    append there at position 3 now conflicts. The sample's events and the duels."""
    events = sample(DAMAGE)
    duels = [concurrent.create_duel(f"table {i}") for i in range(tables)]
    for duel in duels:
        concurrent.append(duel, events[:3])
    with Store(url) as other:                          # another process takes duel 0's next position
        other.append(duels[0], events[3], expected_position=3)
    return events, duels


def test_a_group_is_one_write_and_a_conflict_in_it_fails_that_append_alone(url, concurrent):
    events, duels = _first_position_taken(url, concurrent, 6)
    outcomes: dict[str, object] = {}

    def append(duel: str) -> None:
        try:
            outcomes[duel] = concurrent.append(duel, events[3], expected_position=3)
        except ConflictError as exc:
            outcomes[duel] = exc
    first = concurrent.create_duel("the first write, held")
    writes = _held_group(concurrent, lambda: concurrent.append(first, events[0]),
                         [lambda d=d: append(d) for d in duels])
    assert any(owners == set(duels) for _thread, owners in writes), "the six appends were offered as one group"
    assert isinstance(outcomes[duels[0]], ConflictError)
    assert all(outcomes[d] == 4 for d in duels[1:])
    with Store(url, readonly=True) as reader:
        for duel in duels:
            records = reader.records(duel)
            assert [r.event for r in records] == list(events[:4]) and reader.verify(duel).ok
        assert reader.info(duels[0]).events == 4      # the other writer's event, anchored by its own write


@pytest.mark.parametrize("backend", ["postgresql"])
def test_a_row_postgresql_refuses_fails_its_own_write_only(backend, tmp_path):
    """PostgreSQL's text holds no NUL: a duel titled with one is refused (its index row), and the
    appends written in the same group are not."""
    events = sample(DAMAGE)
    with fresh_url(backend, tmp_path / "x.sqlite", "gc") as where, Store(where, concurrent=True) as store:
        duels = [store.create_duel(f"table {i}") for i in range(4)]
        outcomes: dict[str, object] = {}

        def append(duel: str) -> None:
            outcomes[duel] = store.append(duel, events[0])

        def refused() -> None:
            try:
                outcomes["nul"] = store.create_duel("a title with a \0 in it")
            except StoreError as exc:
                outcomes["nul"] = exc
        first = store.create_duel("the first write, held")
        writes = _held_group(store, lambda: store.append(first, events[0]), [lambda d=d: append(d) for d in duels] + [refused])
        assert any(len(owners) == 5 for _thread, owners in writes), "offered as one group"
        assert isinstance(outcomes["nul"], StoreError) and "nothing was written" in str(outcomes["nul"])
        assert all(outcomes[d] == 1 for d in duels)
        assert all(store.verify(d).ok for d in duels)
        assert len(store.ids()) == 5


def test_an_append_is_all_or_nothing_and_its_snapshot_is_written_with_it(url, concurrent):
    events = sample(DAMAGE)
    duel = concurrent.create_duel("long")
    concurrent.append(duel, events[:40])            # past a snapshot boundary: its snapshot goes with it
    with Store(url) as other:
        other.append(duel, events[40], expected_position=40)
    with pytest.raises(ConflictError):
        concurrent.append(duel, events[40:45], expected_position=40)
    with Store(url, readonly=True) as reader:
        assert reader.info(duel).events == 41 and reader.verify(duel).ok
        assert [r.originator_version for r in reader.snapshots.select_events(duel)] == \
            list(range(SNAPSHOT_EVERY, 41, SNAPSHOT_EVERY))


def test_an_append_to_an_idle_store_is_written_by_its_own_thread(url, concurrent):
    """No thread of the group commit's own: an append that finds no write under way writes it."""
    events = sample(DAMAGE)
    duel = concurrent.create_duel("alone")
    seen, _release, _holding = _writers(concurrent)
    outcome: list[int] = []
    thread = threading.Thread(target=lambda: outcome.append(concurrent.append(duel, events[0])), name="scorekeeper")
    thread.start()
    thread.join()
    assert outcome == [1] and seen == [("scorekeeper", {duel})]
    assert concurrent.append(duel, events[1]) == 2 and seen[-1] == (threading.current_thread().name, {duel})


def test_the_appends_that_wait_behind_a_write_are_written_as_one_group_by_the_first_of_them(url, concurrent):
    events = sample(DAMAGE)
    duels = [concurrent.create_duel(f"table {i}") for i in range(5)]
    first = concurrent.create_duel("the first write, held")
    seen, release, holding = _writers(concurrent, hold_first=True)
    outcomes: dict[str, int] = {}
    held = threading.Thread(target=lambda: outcomes.update({first: concurrent.append(first, events[0])}), name="held")
    held.start()
    assert holding.wait(30)
    threads = []
    for k, duel in enumerate(duels):               # one at a time: the first of them waits first
        threads.append(threading.Thread(target=lambda d=duel: outcomes.update({d: concurrent.append(d, events[0])}),
                                        name=f"waiting {k}"))
        threads[-1].start()
        while concurrent._committer.waiting() < k + 1:
            threading.Event().wait(0.01)
    release.set()
    for thread in threads + [held]:
        thread.join()
    assert seen == [("held", {first}), ("waiting 0", set(duels))]
    assert outcomes == {d: 1 for d in [first, *duels]}
    assert all(concurrent.verify(d).ok for d in [first, *duels])


class _Stopped(BaseException):
    """Not an Exception: what interrupts a thread (KeyboardInterrupt, SystemExit)."""


def test_a_leader_interrupted_in_its_write_hands_the_next_group_on_and_leaves_no_one_waiting(url, concurrent):
    events = sample(DAMAGE)
    duels = [concurrent.create_duel(f"table {i}") for i in range(4)]
    first = concurrent.create_duel("the first write, interrupted")
    outcomes: dict[str, object] = {}

    def append(duel: str) -> None:
        try:
            outcomes[duel] = concurrent.append(duel, events[0])
        except BaseException as exc:
            outcomes[duel] = exc
    seen = _held_group(concurrent, lambda: append(first), [lambda d=d: append(d) for d in duels], fail_first=_Stopped())
    assert isinstance(outcomes[first], _Stopped)      # its own thread gets what stopped it
    assert all(outcomes[d] == 1 for d in duels) and seen[1][1] == set(duels)
    assert concurrent.info(first).events == 0 and all(concurrent.verify(d).ok for d in duels)
    assert concurrent.append(first, events[0]) == 1   # its cached head was dropped: nothing half-kept


def test_closing_waits_for_the_group_under_way(url):
    events = sample(DAMAGE)
    store = Store(url, concurrent=True)
    duel = store.create_duel("closing")
    seen, release, holding = _writers(store, hold_first=True)
    outcome: list[int] = []
    writer = threading.Thread(target=lambda: outcome.append(store.append(duel, events[0])))
    writer.start()
    assert holding.wait(30)
    closer = threading.Thread(target=store.close)
    closer.start()
    while not store._committer._idle._waiters:       # close waits for the held group
        threading.Event().wait(0.01)
    release.set()
    for thread in (writer, closer):
        thread.join(30)
    assert outcome == [1]
    with Store(url, readonly=True) as reader:
        assert reader.info(duel).events == 1 and reader.verify(duel).ok


def test_an_append_to_a_hostile_duel_id_is_refused_and_harms_nothing(url, concurrent):
    """The head of a duel this process does not hold is read with the id as a parameter."""
    events = sample(DAMAGE)
    duel = concurrent.create_duel("kept")
    concurrent.append(duel, events[0])
    for hostile in ("x'; DROP TABLE ygoreplay_events; --", f"{duel}' OR '1'='1", f"{duel}/head", "%s", "\\", ""):
        with pytest.raises(YgoreplayError):         # no such duel, or not a duel's stream
            concurrent.append(hostile, events[0])
    assert concurrent.append(duel, events[1]) == 2
    with Store(url, readonly=True) as reader:
        assert reader.ids() == [duel] and reader.verify(duel).ok


def _append_interrupted(append, handled: threading.Event, held: threading.Thread, helper: threading.Thread,
                        release: threading.Event, holding: threading.Event) -> None:
    """Run ``append`` in the main thread, with a SIGUSR1 handler that notes ``handled`` and raises
    ``_Stopped``, while ``held`` (an append whose write is held until ``release``) and ``helper``
    (which signals the main thread, then releases the write) run; the append must raise it."""
    def stopped(_signum, _frame):
        handled.set()
        raise _Stopped
    previous = signal.signal(signal.SIGUSR1, stopped)
    try:
        held.start()
        helper.start()
        assert holding.wait(30)
        with pytest.raises(_Stopped):
            append()
    finally:
        signal.signal(signal.SIGUSR1, previous)
        release.set()
        helper.join(30)
        held.join(30)


def test_a_signal_while_an_append_waits_in_a_group_is_raised_once_its_write_is_done(url, concurrent):
    """A signal handler that raises (KeyboardInterrupt) in the main thread while its append
    waits behind another's write: the lead handed to it is still taken, its rows are written
    with the group, and then it raises; no later append is left waiting."""
    events = sample(DAMAGE)
    first, mine = concurrent.create_duel("held"), concurrent.create_duel("the main thread's")
    seen, release, holding = _writers(concurrent, hold_first=True)
    handled = threading.Event()
    held = threading.Thread(target=lambda: concurrent.append(first, events[0]), name="held")
    main = threading.get_ident()

    def interrupt_then_release() -> None:
        assert holding.wait(30)
        while concurrent._committer.waiting() < 1:
            threading.Event().wait(0.01)
        signal.pthread_kill(main, signal.SIGUSR1)
        handled.wait(30)                              # raised in the main thread's wait
        release.set()
    _append_interrupted(lambda: concurrent.append(mine, events[0]), handled, held,
                        threading.Thread(target=interrupt_then_release), release, holding)
    assert seen == [("held", {first}), (threading.current_thread().name, {mine})]
    assert concurrent.info(mine).events == 1 and concurrent.verify(mine).ok
    assert concurrent.append(mine, events[1]) == 2 and concurrent.append(first, events[1]) == 2


def test_the_writers_connection_is_made_again_after_it_broke_or_could_not_be_made(tmp_path):
    """The writer's connection ended by the server is made again before the next write (it
    failed that write: issue 25, ninth pass); one that cannot be made fails its own append
    (the store not answering, nothing written), and the next write connects again: nothing is
    left broken for good."""
    events = sample(DAMAGE)
    with fresh_url("postgresql", tmp_path / "x.sqlite", "gc") as where, Store(where, concurrent=True) as store:
        duel = store.create_duel("reconnecting")
        writer = store._postgres
        with _pg_connect() as admin:
            admin.execute("SELECT pg_terminate_backend(%s, 5000)", (writer._conn.info.backend_pid,))
        # the server hung up on it: seen before it is used, and made again (this append failed)
        assert store.append(duel, events[0]) == 1
        with socket.socket() as unused:
            unused.bind(("127.0.0.1", 0))
            nobody = unused.getsockname()[1]
        writer.close()
        made, writer._kwargs = writer._kwargs, {**writer._kwargs, "port": nobody}
        with pytest.raises(StoreUnavailable, match="not answering .*nothing was written"):
            store.append(duel, events[1])
        writer._kwargs = made
        assert store.append(duel, events[1]) == 2
        assert store.info(duel).events == 2 and store.verify(duel).ok


def test_a_write_sends_all_its_statements_with_one_wait_on_the_connection(tmp_path):
    """A write on PostgreSQL (the index's rows, the lock, the notification, the rows, a snapshot)
    is one wait on the writer's connection: each statement executed alone was a wait of its own,
    a poll that let go of the GIL and won it back, a dozen a write (issue 25, tenth pass), and
    psycopg's pipeline two more, its start and its end (eighteenth pass). What it wrote is all
    there and verifies."""
    events = sample(DAMAGE)[:SNAPSHOT_EVERY + 1]
    with fresh_url("postgresql", tmp_path / "x.sqlite", "gc") as where, Store(where, concurrent=True) as store:
        duel = store.create_duel("one wait")
        store.append(duel, events[0])                 # the writer's connection is made
        conn = store._postgres._conn
        waits: list[int] = []
        inner = conn.wait

        def wait(gen, *args, **kwargs):
            waits[-1] += 1
            return inner(gen, *args, **kwargs)
        conn.wait = wait
        for event in events[1:]:
            waits.append(0)
            store.append(duel, event)
        assert waits and max(waits) == 1            # its statements and their answers
        assert store.info(duel).events == len(events) and store.verify(duel).ok
        assert store.state_at(duel, SNAPSHOT_EVERY) is not None


def test_a_write_with_a_psycopg_whose_steps_are_others_executes_each_statement_as_ever(tmp_path, monkeypatch):
    """A psycopg without the pieces the write sends its statements through (``pg_pipeline``):
    each statement is executed by a cursor in psycopg's pipeline, and the write is all there."""
    from ygoreplay import pg_pipeline
    monkeypatch.setattr(pg_pipeline, "STEPS", ("_a_step_no_psycopg_has",))
    events = sample(DAMAGE)[:SNAPSHOT_EVERY + 1]
    with fresh_url("postgresql", tmp_path / "x.sqlite", "gc") as where, Store(where, concurrent=True) as store:
        duel = store.create_duel("each alone")
        store.append(duel, events[0])                 # the writer's connection is made
        conn, waits = store._postgres._conn, [0]
        inner = conn.wait

        def wait(gen, *args, **kwargs):
            waits[0] += 1
            return inner(gen, *args, **kwargs)
        conn.wait = wait
        for event in events[1:]:
            store.append(duel, event)
        assert waits[0] > 3 * (len(events) - 1)        # a wait a statement, as a cursor executes them
        assert store.info(duel).events == len(events) and store.verify(duel).ok
        assert store.state_at(duel, SNAPSHOT_EVERY) is not None


@pytest.mark.parametrize("cut", [RuntimeError("the rows could not be sent"), KeyboardInterrupt()])
@pytest.mark.parametrize("concurrent_store", [False, True])
def test_a_write_cut_off_part_way_leaves_nothing_of_it_and_no_lock_held(tmp_path, cut, concurrent_store):
    """A write on PostgreSQL that stops after its transaction began and took the recorder's table
    lock (an error, or an interrupt in the thread writing): nothing of it is stored, its append
    is told so, no transaction is left open holding the lock (another process's append goes
    through), and the store's next write goes through."""
    events = sample(DAMAGE)
    with fresh_url("postgresql", tmp_path / "x.sqlite", "cut") as where, \
            Store(where, concurrent=concurrent_store) as store, Store(where) as other:
        duel, elsewhere = store.create_duel("cut off"), other.create_duel("another process's")
        assert store.append(duel, events[0]) == 1
        writer = store._postgres

        def stop(rows):                                # called once the lock's statements are sent
            del writer._columns
            raise cut
        writer._columns = stop
        with pytest.raises((StoreError, type(cut))):
            store.append(duel, events[1])
        done = threading.Thread(target=other.append, args=(elsewhere, events[0]), daemon=True)
        done.start()
        done.join(20)
        assert not done.is_alive(), "another process's append waits for the lock of the write cut off"
        assert store.append(duel, events[1]) == 2 and store.append(duel, events[2]) == 3
        with Store(where, readonly=True) as reader:
            assert [r.event for r in reader.records(duel)] == list(events[:3]) and reader.verify(duel).ok
            assert reader.info(elsewhere).events == 1


def test_closing_the_writer_does_not_wait_for_ever_on_a_write_that_hangs(tmp_path):
    events = sample(DAMAGE)
    with fresh_url("postgresql", tmp_path / "x.sqlite", "gc") as where:
        store = Store(where, concurrent=True)
        duel = store.create_duel("hanging")
        writer = store._postgres
        connection = writer._conn
        writer.CLOSE_WAIT = 0.05
        writer._using.acquire()                      # a write that does not end
        try:
            writer.close()
        finally:
            writer._using.release()
        assert connection.closed and writer._conn is None
        assert store.append(duel, events[0]) == 1     # the store still writes (it connects again)
        store.close()


# -- the service: many followers ------------------------------------------------------------------------------

@pytest.fixture
def sqlite_server(tmp_path):
    srv = Server(str(Path(tmp_path) / "service.sqlite"))
    yield srv
    srv.stop()


def test_many_followers_each_get_every_event_once_in_order(sqlite_server):
    base = sqlite_server.url
    duel = create(base, title="a crowd", visibility="public")
    d, tokens = duel["id"], duel["tokens"]
    events = events_of(DAMAGE)
    followers = [Follower(f"{base}/duels/{d}/follow" + ("?format=frames" if k % 3 == 0 else ""),
                          auth(tokens["spectator" if k % 2 else "judge"])) for k in range(24)]
    for follower in followers:
        follower.start()
    assert all(follower.ready.wait(20) and follower.status == 200 for follower in followers)
    half = len(events) // 10 * 5
    for i in range(0, half, 5):
        r = httpx.post(f"{base}/duels/{d}/events?expected={i}", json=events[i:i + 5], headers=auth(tokens["recorder"]))
        assert r.status_code == 200, r.text
    late = Follower(f"{base}/duels/{d}/follow", {**auth(tokens["judge"]), "Last-Event-ID": str(half // 2)})
    late.start()
    assert late.ready.wait(20)
    for i in range(half, len(events), 5):
        r = httpx.post(f"{base}/duels/{d}/events?expected={i}", json=events[i:i + 5], headers=auth(tokens["recorder"]))
        assert r.status_code == 200, r.text
    for follower in followers + [late]:
        assert follower.ended.wait(30)
    for follower in followers:
        assert [i for i, _, _ in follower.received] == list(range(len(events)))
    assert [i for i, _, _ in late.received] == list(range(half // 2 + 1, len(events)))
    # one encoding per view and format: every judge follower of the events got the same data
    judges = [f for k, f in enumerate(followers) if k % 2 == 0 and k % 3 != 0]
    assert all(f.received and [e for _, e, _ in f.received] == [e for _, e, _ in judges[0].received] for f in judges)
    assert [e for _, e, _ in late.received] == [e for _, e, _ in judges[0].received][half // 2 + 1:]


def test_a_process_takes_in_another_process_appends_when_asked_and_at_once_for_its_followers(tmp_path):
    """Two service processes on one PostgreSQL store: the one that did not append reads the new
    events when next asked (a read, a new follower) if nobody follows the duel there, and at
    once (woken by PostgreSQL) for its followers; either way every event once, in order."""
    events = events_of(DAMAGE)
    with fresh_url("postgresql", tmp_path / "unused.sqlite", "gc") as where:
        first = second = None
        try:
            first, second = Server(where), Server(where)
            duel = create(first.url, title="two processes", visibility="public")
            d, tokens = duel["id"], duel["tokens"]
            judge = auth(tokens["judge"])
            state = httpx.get(f"{second.url}/duels/{d}/state", headers=judge)
            assert state.status_code == 200, state.text           # once a flake: say what it answered
            assert state.json()["events"] == 0
            for i in range(0, 20, 5):
                r = httpx.post(f"{first.url}/duels/{d}/events?expected={i}", json=events[i:i + 5],
                               headers=auth(tokens["recorder"]))
                assert r.status_code == 200, r.text
            assert httpx.get(f"{second.url}/duels/{d}/state", headers=judge).json()["events"] == 20
            follower = Follower(f"{second.url}/duels/{d}/follow", judge)
            follower.start()
            assert follower.ready.wait(20)
            for i in range(20, len(events), 5):
                r = httpx.post(f"{first.url}/duels/{d}/events?expected={i}", json=events[i:i + 5],
                               headers=auth(tokens["recorder"]))
                assert r.status_code == 200, r.text
            assert follower.ended.wait(30)
            assert [i for i, _, _ in follower.received] == list(range(len(events)))
        finally:
            for server in (first, second):
                if server is not None:
                    server.stop()


def test_every_writer_of_a_large_group_is_woken_even_when_one_that_wakes_others_is_interrupted(url, concurrent):
    """A group's writers are woken by one another (each woken one wakes the next ones): the
    main thread, the first woken of a group of 40 and so one that wakes others, is interrupted
    by a signal while it waits; it still wakes them, every append of the group is written and
    returns, and the main thread raises once its own rows are written."""
    events = sample(DAMAGE)
    first, mine = concurrent.create_duel("held"), concurrent.create_duel("the main thread's")
    duels = [concurrent.create_duel(f"table {i}") for i in range(39)]
    seen, release, holding = _writers(concurrent, hold_first=True)
    handled = threading.Event()
    outcomes: dict[str, int] = {}
    held = threading.Thread(target=lambda: concurrent.append(first, events[0]), name="held")
    threads = [threading.Thread(target=lambda d=d: outcomes.update({d: concurrent.append(d, events[0])}))
               for d in duels]
    main = threading.get_ident()

    def wait_for(count: int) -> None:
        while concurrent._committer.waiting() < count:
            threading.Event().wait(0.01)

    def group_then_interrupt() -> None:
        assert holding.wait(30)
        threads[0].start()                            # leads the next group
        wait_for(1)
        wait_for(2)                                   # the main thread, the first of the group woken
        for thread in threads[1:]:
            thread.start()
        wait_for(40)
        signal.pthread_kill(main, signal.SIGUSR1)
        handled.wait(30)
        release.set()
    _append_interrupted(lambda: (wait_for(1), concurrent.append(mine, events[0])), handled, held,
                        threading.Thread(target=group_then_interrupt), release, holding)
    for thread in threads:
        thread.join(30)
    assert not any(thread.is_alive() for thread in threads), "a writer of the group was left waiting"
    assert seen[1][1] == {mine, *duels} and outcomes == {d: 1 for d in duels}
    assert all(concurrent.verify(d).ok for d in [first, mine, *duels])
