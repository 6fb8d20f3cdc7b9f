"""The heads of many duels read in one statement (issue 25, PostgreSQL): the first appends of a
store's duels that wait at one moment for their heads are read as one group, by the first of them;
each still gets its own duel's head as one state of the database, is checked on its own rows,
and loses or reorders nothing when another writer appends meanwhile, when the group's read is
cut off (a lost connection) or when the thread reading it is interrupted. Nothing here is timed.
"""
from __future__ import annotations

import threading

import pytest

from test_store import POSTGRES_TABLE, fresh_url, note, recorded
from ygoreplay.errors import VerificationError
from ygoreplay.store import Store

DAMAGE = "won-by-damage.jsonl"
HEAD = 20                        # each duel's events before the test's appends


@pytest.fixture
def url(tmp_path):
    with fresh_url("postgresql", tmp_path / "unused", "hr") as where:
        yield where


@pytest.fixture
def duels(url):
    """Six duels of 20 events, made by another store: a reader holds none of their heads."""
    with Store(url) as maker:
        return [recorded(maker, DAMAGE, HEAD) for _ in range(6)]


@pytest.fixture
def reader(url, duels):
    with Store(url, concurrent=True, create=False) as store:
        yield store


def _held_reads(store: Store, after_group=None, group_fails: BaseException | None = None) -> list[list[str]]:
    """Patch the store's head reads to note the duels of each statement. The first is held until
    ``_first_appends``' others wait behind it; the group after it calls ``after_group`` once read,
    or raises ``group_fails`` instead of reading."""
    reads = store._head_reads
    inner, seen = reads._read, []

    def read(batch):
        seen.append([one.duel_id for one in batch])
        if len(seen) == 1:
            reads.holding.set()
            reads.release.wait(300)
        elif len(seen) == 2 and group_fails is not None:
            raise group_fails
        inner(batch)
        if len(seen) == 2 and after_group is not None:
            after_group()
    reads.release, reads.holding = threading.Event(), threading.Event()
    reads._read = read
    return seen


def _first_appends(store: Store, duels: list[str], text: str = "the reader") -> dict[str, object]:
    """Each duel's note appended by a thread of its own; the first duel's head read is held until
    every other one waits for it (started once it is held, one after another, in order). Each
    duel's outcome."""
    outcomes: dict[str, object] = {}

    def append(duel: str) -> None:
        try:
            outcomes[duel] = store.append(duel, note(text))
        except BaseException as exc:
            outcomes[duel] = exc
    threads = [threading.Thread(target=append, args=(duels[0],))]
    threads[0].start()
    assert store._head_reads.holding.wait(300)
    for k, duel in enumerate(duels[1:]):
        threads.append(threading.Thread(target=append, args=(duel,)))
        threads[-1].start()
        while store._head_reads.waiting() < k + 1:
            threading.Event().wait(0.01)
    store._head_reads.release.set()
    for thread in threads:
        thread.join()
    return outcomes


def _notes(store: Store, duel: str) -> list[str]:
    return [r.event.note for r in store.records(duel)[HEAD:]]


def test_the_heads_that_wait_behind_a_read_are_read_in_one_statement(url, duels, reader):
    seen = _held_reads(reader)
    outcomes = _first_appends(reader, duels)
    assert seen == [duels[:1], duels[1:]]
    assert outcomes == {duel: HEAD + 1 for duel in duels}
    with Store(url) as check:
        assert all(_notes(check, d) == ["the reader"] and check.verify(d).ok for d in duels)


def test_another_writers_appends_after_a_group_read_are_kept_and_each_append_lands_after_them(url, duels, reader):
    with Store(url, concurrent=True, create=False) as other:
        seen = _held_reads(reader, after_group=lambda: [other.append(d, note("the other")) for d in duels[1:]])
        outcomes = _first_appends(reader, duels)
    assert seen[:2] == [duels[:1], duels[1:]]
    assert outcomes == {duels[0]: HEAD + 1, **{d: HEAD + 2 for d in duels[1:]}}
    with Store(url) as check:
        assert _notes(check, duels[0]) == ["the reader"]
        assert all(_notes(check, d) == ["the other", "the reader"] and check.verify(d).ok for d in duels[1:])


def test_an_anchor_altered_in_a_group_fails_its_own_duels_append_alone(url, duels, reader):
    from test_store import _pg_connect
    schema = url.rsplit("schema=", 1)[1]
    with _pg_connect() as conn:
        conn.execute(f'UPDATE "{schema}".{POSTGRES_TABLE} SET state = %s WHERE originator_id = %s',
                     (b"\x93not an anchor", f"{duels[3]}/head"))
    _held_reads(reader)
    outcomes = _first_appends(reader, duels)
    assert isinstance(outcomes[duels[3]], VerificationError) and "anchor" in str(outcomes[duels[3]])
    assert all(outcomes[d] == HEAD + 1 for d in duels if d != duels[3])
    with Store(url) as check:
        assert check.events.select_events(duels[3], desc=True, limit=1)[0].originator_version == HEAD
        assert all(_notes(check, d) == ["the reader"] for d in duels if d != duels[3])


def test_a_group_read_whose_connection_is_lost_is_read_again_by_each_alone(url, duels, reader):
    # the group's statement ends its own connection (a server restart, a killed backend)
    reader.__dict__["_heads_query"] = "SELECT pg_terminate_backend(pg_backend_pid()), %s::text[]"
    seen = _held_reads(reader)
    outcomes = _first_appends(reader, duels)
    assert seen[:2] == [duels[:1], duels[1:]]
    assert outcomes == {duel: HEAD + 1 for duel in duels}
    with Store(url) as check:
        assert all(_notes(check, d) == ["the reader"] and check.verify(d).ok for d in duels)


class _Stopped(BaseException):
    """Not an Exception: what interrupts a thread (KeyboardInterrupt, SystemExit)."""


def test_a_reader_interrupted_in_its_groups_read_leaves_no_one_waiting_and_nothing_half_written(url, duels, reader):
    seen = _held_reads(reader, group_fails=_Stopped())
    outcomes = _first_appends(reader, duels)
    leader = seen[1][0]
    assert isinstance(outcomes[leader], _Stopped)      # its own thread gets what stopped it
    assert all(outcomes[d] == HEAD + 1 for d in duels if d != leader)
    assert reader.append(leader, note("again")) == HEAD + 1     # the lead was handed back
    with Store(url) as check:
        assert _notes(check, leader) == ["again"]
        assert all(_notes(check, d) == ["the reader"] and check.verify(d).ok for d in duels if d != leader)
