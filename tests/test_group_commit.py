"""The store's write path under concurrent appends (issue 25), on SQLite and on PostgreSQL: the
group commit writes the appends waiting at one moment in one transaction; each append still
keeps its duel's order, loses nothing and is all or nothing; one that fails in a group (a
position another writer took, a row the database refuses) fails alone, and the others of its
group are written. And the service's live followers: many followers of a duel each get every
event once, in order, each step encoded once for all of them. Nothing here is timed.
"""
from __future__ import annotations

import threading
from pathlib import Path

import httpx
import pytest

from test_service import Follower, Server, auth, create, events_of
from test_store import fresh_url, sample
from ygoreplay.errors import ConflictError, StoreError
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


def _held_group(store: Store, first, others: list) -> list:
    """Run ``first`` (an append), hold the group commit on its write until every one of
    ``others`` waits behind it, so that they are offered as one group; the rows of every write."""
    writes: list[list] = []
    release, holding = threading.Event(), threading.Event()
    inner = store._write_rows

    def write_rows(rows, snapshot_rows):
        writes.append(rows)
        if len(writes) == 1:
            holding.set()
            release.wait(30)
        inner(rows, snapshot_rows)
    store._write_rows = write_rows
    try:
        held = threading.Thread(target=first)
        held.start()
        assert holding.wait(30)
        threads = [threading.Thread(target=call) for call in others]
        for thread in threads:
            thread.start()
        while store._committer._queue.qsize() < len(others):
            threading.Event().wait(0.01)
        release.set()
        for thread in threads + [held]:
            thread.join()
    finally:
        store._write_rows = inner
    return writes


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


def test_a_group_is_one_write_and_a_conflict_in_it_fails_that_append_alone(url, concurrent):
    events = sample(DAMAGE)
    duels = [concurrent.create_duel(f"table {i}") for i in range(6)]
    for duel in duels:
        concurrent.append(duel, events[:3])
    with Store(url) as other:                          # another process takes duel 0's next position
        other.append(duels[0], events[3], expected_position=3)
    outcomes: dict[str, object] = {}

    def append(duel: str) -> None:
        try:
            outcomes[duel] = concurrent.append(duel, events[3], expected_position=3)
        except ConflictError as exc:
            outcomes[duel] = exc
    first = concurrent.create_duel("the first write, held")
    writes = _held_group(concurrent, lambda: concurrent.append(first, events[0]),
                         [lambda d=d: append(d) for d in duels])
    assert any(_owners(rows) == set(duels) for rows in writes), "the six appends were offered as one group"
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
        assert any(len(_owners(rows)) == 5 for rows in writes), "offered as one group"
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
            assert httpx.get(f"{second.url}/duels/{d}/state", headers=judge).json()["events"] == 0
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
