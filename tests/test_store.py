"""The event store, against SQLite and a real PostgreSQL: the same tests on both backends.

Recording checks every event with the rules fold and is all or nothing; two OS processes writing
at the same position collide and exactly one wins; any position is rebuilt from a snapshot and
equals a plain replay; branches copy a prefix and leave the parent alone; judge rollbacks are
events that survive a reopen; the hash chain names the first record someone edited by hand.
"""
from __future__ import annotations

import multiprocessing
import os
import queue
import sqlite3
import time
import uuid
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Iterator
from urllib.parse import urlparse, parse_qs

import pytest

from duel import CARDS, snapshot
from ygoreplay.events import RolledBack, from_dict
from ygoreplay.jsonl import read_events
from ygoreplay.rules import History, RuleViolation, replay
from ygoreplay.store import SNAPSHOT_EVERY, ConflictError, Store, StoreError

REPLAYS = Path(__file__).resolve().parent.parent / "replays"
DAMAGE, DECK_OUT = "won-by-damage.jsonl", "lost-by-deck-out.jsonl"
NO_TRIBUTE = "illegal/summon-without-tributes.jsonl"          # #33 SUM-04, the last event
POSTGRES = os.environ.get("YGOREPLAY_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")

# Where eventsourcing keeps the events (checked in test_the_tables_are_where_the_tamper_tests_look).
SQLITE_TABLE, POSTGRES_TABLE = "stored_events", "ygoreplay_events"


# -- backends -------------------------------------------------------------------------------------

def _pg_connect():
    import psycopg
    p = urlparse(POSTGRES)
    try:
        return psycopg.connect(host=p.hostname, port=p.port or 5432, user=p.username or "postgres",
                               password=p.password, dbname=p.path.lstrip("/") or "postgres",
                               connect_timeout=5, autocommit=True)
    except psycopg.Error as exc:
        problem = " ".join(str(exc).split())
    pytest.fail(f"PostgreSQL is not reachable at {POSTGRES}: {problem}. The store tests need it (CI "
                "guarantees one): start PostgreSQL 15 there, or set YGOREPLAY_TEST_POSTGRES.", pytrace=False)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request, tmp_path):
    """A fresh, empty store: a SQLite file, or a PostgreSQL schema of its own (dropped after)."""
    with fresh_url(request.param, tmp_path / "duels.sqlite") as url:
        yield url


@contextmanager
def fresh_url(backend: str, path: Path, prefix: str = "t") -> Iterator[str]:
    """A SQLite file's path, or a PostgreSQL URL with a new schema of its own (dropped after)."""
    if backend == "sqlite":
        yield str(path)
        return
    from psycopg import sql
    schema = f"{prefix}_{uuid.uuid4().hex}"
    with _pg_connect() as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    try:
        yield f"{POSTGRES}?schema={schema}"
    finally:
        with _pg_connect() as conn:
            conn.execute("SET lock_timeout = '10s'")
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


@pytest.fixture
def open_store(store_url):
    """Open Store objects on the test's store; all are closed before the store is dropped."""
    opened: list[Store] = []

    def opener() -> Store:
        opened.append(Store(store_url))
        return opened[-1]
    yield opener
    for s in opened:
        s.close()


@pytest.fixture
def store(open_store) -> Store:
    return open_store()


def execute(url: str, statement: str, params: tuple = (), snapshots: bool = False) -> list[tuple]:
    """Run SQL on the store's events (or snapshots) table behind the store's back ({t} names the
    table, ? params)."""
    return execute_all(url, [(statement, params)], snapshots)


def execute_all(url: str, statements: list[tuple[str, tuple]], snapshots: bool = False) -> list[tuple]:
    """Run these statements as ``execute`` does, in one transaction on one connection (a connection
    and a commit a row cost PostgreSQL a second a hundred rows on a busy machine); the last one's rows."""
    rows: list[tuple] = []
    if url.startswith("postgresql"):
        from psycopg import sql
        schema = parse_qs(urlparse(url).query)["schema"][0]
        table = sql.Identifier(schema, "ygoreplay_snapshots" if snapshots else POSTGRES_TABLE).as_string(None)
        with _pg_connect() as conn, conn.transaction():
            for statement, params in statements:
                cur = conn.execute(statement.format(t=table).replace("?", "%s"), params)
                rows = cur.fetchall() if cur.description else []
        return rows
    conn = sqlite3.connect(url)
    try:
        with conn:
            for statement, params in statements:
                rows = conn.execute(statement.format(t="stored_snapshots" if snapshots else SQLITE_TABLE),
                                    params).fetchall()
        return rows
    finally:
        conn.close()


# -- helpers --------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def sample(name: str) -> tuple:
    return tuple(read_events(REPLAYS / name))


def recorded(store: Store, name: str, upto: int | None = None) -> str:
    duel = store.create_duel(name)
    store.append(duel, sample(name)[:upto])
    return duel


def note(text: str):
    """A judge's note: legal at any moment, so any writer can append one."""
    return from_dict({"kind": "judge_note", "judge": "J. Smith", "note": text, "category": "note"})


def stored(store: Store, duel: str) -> list[tuple]:
    """Everything a record holds, for 'unchanged' comparisons."""
    return [(r.position, r.event.to_dict(), r.recorded, r.prev_hash, r.hash, r.reverted_by)
            for r in store.records(duel)]


def snapshot_rows(store: Store, duel: str) -> list[int]:
    return [row.originator_version for row in store.snapshots.select_events(duel)]


def board(state) -> tuple:
    """``snapshot`` without the event counter: the same board reached at another stream position."""
    s = list(snapshot(state))
    s[8] = None
    return tuple(s)


def states_of(events) -> list[tuple]:
    """snapshot(replay(events, at=N - 1)) for every N, folded once (replay is this same loop)."""
    history = History(CARDS)
    out = [snapshot(history.state)]
    for event in events:
        history.append(event)
        out.append(snapshot(history.state))
    return out


def test_the_tables_are_where_the_tamper_tests_look(store_url, store):
    """(Besides the library's search index, ``library.py``.)"""
    recorded(store, DAMAGE, 3)
    if store_url.startswith("postgresql"):
        schema = parse_qs(urlparse(store_url).query)["schema"][0]
        with _pg_connect() as conn:
            tables = {r[0] for r in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (schema,))}
        assert {t for t in tables if not t.startswith("library_")} == {POSTGRES_TABLE, "ygoreplay_snapshots"}
    else:
        conn = sqlite3.connect(store_url)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        columns = [r[1] for r in conn.execute(f"PRAGMA table_info({SQLITE_TABLE})")]
        conn.close()
        assert {t for t in tables if not t.startswith("library_")} == {SQLITE_TABLE, "stored_snapshots"}
        assert columns == ["originator_id", "originator_version", "topic", "state"]
    # the store's marker, the duel's header, its card facts, 3 events, and an anchor per append (2)
    assert execute(store_url, "SELECT count(*) FROM {t}") == [(8,)]


# -- recording --------------------------------------------------------------------------------------

def test_an_illegal_event_is_refused_with_its_rule_and_the_store_is_unchanged(store, open_store):
    duel = recorded(store, NO_TRIBUTE, 33)
    before, snaps = stored(store, duel), snapshot_rows(store, duel)
    with pytest.raises(RuleViolation) as info:
        store.append(duel, sample(NO_TRIBUTE)[33])
    assert (info.value.rule, info.value.index) == ("SUM-04", 33)
    for s in (store, open_store()):                  # the writer's cache and a fresh reader agree
        assert stored(s, duel) == before and len(before) == 33
        assert snapshot_rows(s, duel) == snaps
        assert s.verify(duel).ok and s.verify(duel).events == 33
        assert snapshot(s.state_at(duel)) == snapshot(replay(sample(NO_TRIBUTE), CARDS, at=32))
    assert store.append(duel, note("the summon was refused")) == 34     # the duel goes on


def test_a_batch_with_an_illegal_event_in_the_middle_writes_nothing(store):
    duel = recorded(store, DAMAGE, 50)
    before = stored(store, duel)
    bad = from_dict({"kind": "normal_summoned", "player": 0, "card": "no-such-card", "zone": 0})
    with pytest.raises(RuleViolation) as info:
        store.append(duel, [*sample(DAMAGE)[50:55], bad, *sample(DAMAGE)[55:60]])
    assert (info.value.rule, info.value.index) == ("LOG-01", 55)
    assert stored(store, duel) == before and store.verify(duel).ok
    assert store.append(duel, sample(DAMAGE)[50:60]) == 60              # the legal batch still fits


def test_a_refused_batch_crossing_snapshot_boundaries_leaves_no_snapshot(store):
    wrong_winner = sample("illegal/deck-out-wrong-winner.jsonl")        # #501 WIN-02
    duel = store.create_duel("wrong winner")
    with pytest.raises(RuleViolation) as info:
        store.append(duel, wrong_winner)
    assert (info.value.rule, info.value.index) == ("WIN-02", 501)
    assert store.records(duel) == [] and snapshot_rows(store, duel) == [] and store.verify(duel).ok
    assert store.append(duel, wrong_winner[:501]) == 501
    assert snapshot_rows(store, duel) == list(range(SNAPSHOT_EVERY, 501, SNAPSHOT_EVERY))


def test_duels_lists_every_duel_with_its_header(store):
    first, second = recorded(store, DAMAGE), recorded(store, NO_TRIBUTE, 10)
    assert [(d.id, d.title, d.parent) for d in store.duels()] == [(first, DAMAGE, None), (second, NO_TRIBUTE, None)]
    assert store.info(second).title == NO_TRIBUTE and store.resolve(second[:8]) == second
    with pytest.raises(StoreError, match="no duel 'nope'"):
        store.records("nope")
    with pytest.raises(StoreError, match="no duel matches 'zz'"):
        store.resolve("zz")


# -- concurrency: two real processes ---------------------------------------------------------------

ROUNDS = 4


def _race(url: str, duel: str, name: str, barrier, results) -> None:
    """One writer: in each round, read the head, wait for the other writer, append at the head."""
    try:
        with Store(url) as store:
            for _ in range(ROUNDS):
                barrier.wait(30)
                head = len(store.records(duel))
                store.state_at(duel)                    # the fold at the head, as a player's client holds it
                barrier.wait(30)                        # both writers now hold the same head
                try:
                    store.append(duel, note(f"{name} at {head}"), expected_position=head)
                    results.put((name, head, "won"))
                except ConflictError as exc:
                    results.put((name, head, f"conflict: {exc}"))
    except Exception as exc:                            # reported, so the test fails with the reason
        results.put((name, -1, f"error: {exc!r}"))
        barrier.abort()


def test_two_processes_appending_at_the_same_position_exactly_one_wins(store_url, store):
    duel = recorded(store, DAMAGE, 60)
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    writers = [ctx.Process(target=_race, args=(store_url, duel, name, barrier, results)) for name in "AB"]
    for w in writers:
        w.start()
    outcomes, deadline = [], time.monotonic() + 60
    try:
        while len(outcomes) < 2 * ROUNDS and time.monotonic() < deadline:
            try:
                outcomes.append(results.get(timeout=0.5))
            except queue.Empty:
                if not any(w.is_alive() for w in writers) and results.empty():
                    break
    finally:
        for w in writers:
            w.join(30)
            if w.is_alive():
                w.kill()
    assert [w.exitcode for w in writers] == [0, 0] and len(outcomes) == 2 * ROUNDS, outcomes
    assert not [o for o in outcomes if o[2].startswith("error")], outcomes
    for head in range(60, 60 + ROUNDS):
        this_round = sorted(o[2].split(":")[0] for o in outcomes if o[1] == head)
        assert this_round == ["conflict", "won"], outcomes
    winners = {f"{name} at {head}" for name, head, result in outcomes if result == "won"}
    records = store.records(duel)
    assert len(records) == 60 + ROUNDS and [r.position for r in records] == list(range(60 + ROUNDS))
    assert {r.event.note for r in records[60:]} == winners
    assert store.verify(duel).ok and store.verify(duel).events == 60 + ROUNDS


def test_a_writer_with_a_stale_view_is_told_and_then_catches_up(store, open_store):
    duel = recorded(store, DAMAGE, 40)
    other = open_store()
    assert other.append(duel, sample(DAMAGE)[40], expected_position=40) == 41
    assert snapshot(store.state_at(duel)) == snapshot(other.state_at(duel))   # not a stale cached head
    with pytest.raises(ConflictError, match="has 41 events, not 40|written by another writer first"):
        store.append(duel, sample(DAMAGE)[40], expected_position=40)
    assert store.append(duel, sample(DAMAGE)[41], expected_position=41) == 42
    assert other.append(duel, note("late")) == 43       # other's fold at 41 is refreshed, not reused
    assert store.verify(duel).ok and [r.position for r in store.records(duel)] == list(range(43))


# -- rewind ---------------------------------------------------------------------------------------

def test_state_at_every_position_equals_a_plain_replay(store):
    events = sample(DAMAGE)
    duel = recorded(store, DAMAGE)
    for n in range(len(events) + 1):
        assert snapshot(store.state_at(duel, n)) == snapshot(replay(events, CARDS, at=n - 1)), n
    assert snapshot(store.state_at(duel)) == snapshot(replay(events, CARDS))


def test_a_long_duel_is_rebuilt_from_snapshots_at_every_position(store, open_store):
    events = sample(DECK_OUT)
    assert len(events) > 6 * SNAPSHOT_EVERY
    duel = recorded(store, DECK_OUT)                    # one batch, as `record` writes it
    assert snapshot_rows(store, duel) == list(range(SNAPSHOT_EVERY, len(events) + 1, SNAPSHOT_EVERY))
    expected = states_of(events)
    for n in (0, 1, SNAPSHOT_EVERY - 1, SNAPSHOT_EVERY, SNAPSHOT_EVERY + 1, 3 * SNAPSHOT_EVERY, len(events)):
        assert expected[n] == snapshot(replay(events, CARDS, at=n - 1))
    cold = open_store()                                 # no cached fold: snapshots and events only
    near_snapshots = {n + d for n in range(0, len(events) + 1, SNAPSHOT_EVERY) for d in (-2, -1, 0, 1, 2)}
    positions = (near_snapshots | set(range(0, len(events), 3)) | {len(events)}) & set(range(len(events) + 1))
    for n in sorted(positions):                         # every 3rd, and all around each snapshot
        assert snapshot(cold.state_at(duel, n)) == expected[n], n
    # A position is reached from the nearest snapshot: no more than 2 * SNAPSHOT_EVERY events are
    # read (the snapshot's own, to check its chain hash, fewer than SNAPSHOT_EVERY after it, and
    # those on to the signed anchor or snapshot past it, which vouches for the chain there).
    read, select, seek_rows = [], cold.events.select_events, cold._seek_rows

    def counting(*args, **kwargs):
        rows = select(*args, **kwargs)
        read.append(len(rows))
        return rows

    def counting_seek(*args, **kwargs):
        found = seek_rows(*args, **kwargs)
        read.append(len(found[2]))
        return found
    cold.events.select_events, cold._seek_rows = counting, counting_seek
    cold.state_at(duel, len(events) - 1)
    assert 0 < sum(read) <= 2 * SNAPSHOT_EVERY


def test_state_at_outside_the_duel_is_an_error(store):
    duel = recorded(store, DAMAGE, 10)
    for bad in (-1, 11):
        with pytest.raises(StoreError, match="0..10"):
            store.state_at(duel, bad)
    with pytest.raises(StoreError, match="no duel 'nope'"):
        store.state_at("nope", 3)


# -- branches -------------------------------------------------------------------------------------

ALTERNATIVE = [{"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "player": 1, "turn": 4},
               {"kind": "phase_entered", "phase": "draw"}, {"kind": "cards_drawn", "player": 1}]


def test_a_branch_copies_the_prefix_and_leaves_the_parent_alone(store):
    parent = recorded(store, DAMAGE)
    before = stored(store, parent)
    child = store.branch(parent, 34, "no battle")
    assert [r.event for r in store.records(child)] == list(sample(DAMAGE)[:34])
    assert snapshot(store.state_at(child)) == snapshot(store.state_at(parent, 34))
    assert store.append(child, [from_dict(d) for d in ALTERNATIVE]) == 38
    assert stored(store, parent) == before and store.verify(parent).ok and store.verify(child).ok
    child_state = store.state_at(child)
    assert child_state.turn == 4 and child_state.sides[1].lp == 7900 and not child_state.ended
    assert store.state_at(parent).sides[1].lp == 0

    grandchild = store.branch(child, 36)
    sibling = store.branch(parent, 10, "early")
    info = store.info(grandchild)
    assert (info.parent, info.branch_at, info.title) == (child, 36, f"branch of {child} at 36")
    family = [(depth, d.id) for depth, d in store.tree(grandchild)]
    assert family == [(0, parent), (1, sibling), (1, child), (2, grandchild)]    # by branch point
    assert store.tree(parent) == store.tree(child)
    assert [(d.id, d.parent, d.branch_at) for d in store.duels()] == [
        (parent, None, None), (child, parent, 34), (grandchild, child, 36), (sibling, parent, 10)]
    assert stored(store, parent) == before


@pytest.mark.parametrize("at", [0, 90, -3])
def test_a_branch_point_outside_the_duel_is_refused(store, at):
    parent = recorded(store, DAMAGE)
    with pytest.raises(StoreError, match="branch at 1..89"):
        store.branch(parent, at)
    assert len(store.duels()) == 1


# -- judge rollbacks ------------------------------------------------------------------------------

def rollback(to: int, reason: str = "misplay") -> RolledBack:
    return RolledBack(to=to, judge="J. Smith", reason=reason)


def test_play_continues_from_the_state_before_the_rolled_back_event(store, open_store):
    events = sample(DAMAGE)
    duel = recorded(store, DAMAGE, 40)                  # #33 Tribute Summon, then a battle
    assert store.append(duel, rollback(33)) == 41
    assert board(store.state_at(duel)) == board(replay(events, CARDS, at=32))
    records = store.records(duel)
    assert [r.reverted_by for r in records] == [None] * 33 + [40] * 7 + [None]
    assert [r.event for r in records[:40]] == list(events[:40])        # nothing is erased
    store.append(duel, events[33:])                     # the same summon is legal again (SUM-01)
    final = store.state_at(duel)
    assert board(final) == board(replay(events, CARDS)) and final.winner == 0
    for s in (store, open_store()):
        assert s.verify(duel).ok and len(s.records(duel)) == 41 + len(events) - 33
        assert [r.reverted_by for r in s.records(duel)] == [r.reverted_by for r in records] + [None] * 56


def test_no_rollback_once_the_duel_has_ended(store):
    duel = recorded(store, DAMAGE)
    before = stored(store, duel)
    with pytest.raises(RuleViolation) as info:
        store.append(duel, rollback(80, "appeal"))
    assert (info.value.rule, info.value.index) == ("MATCH-10", 89)
    assert stored(store, duel) == before and store.verify(duel).ok


def test_a_rollback_must_go_back_to_an_event_of_play_still_in_effect(store):
    duel = recorded(store, DAMAGE, 40)
    store.append(duel, rollback(33))
    store.append(duel, sample(DAMAGE)[33:36])           # #41..43
    for to, message in ((0, "earlier event"), (44, "earlier event"), (35, "already reverted"),
                        (40, "itself a rollback")):
        with pytest.raises(RuleViolation, match=message) as info:
            store.append(duel, rollback(to))
        assert info.value.rule == "LOG-02" and info.value.index == 44
    assert len(store.records(duel)) == 44 and store.verify(duel).ok


def test_rollbacks_across_snapshots_survive_a_reopen(store_url, store, open_store):
    """Two rollbacks in a long duel, reopened cold: every position equals a plain replay."""
    events = sample(DECK_OUT)
    duel = recorded(store, DECK_OUT, 150)               # snapshots at 64 and 128
    store.append(duel, rollback(100))                   # #150 reverts 100..149
    store.append(duel, events[100:140])                 # #151..190
    store.append(duel, rollback(160))                   # #191 reverts 160..190 (= events[109:140])
    store.append(duel, events[109:])                    # #192.. to the end: a legal line again
    stream = [r.event for r in store.records(duel)]
    assert len(stream) == 192 + len(events) - 109
    expected = states_of(stream)
    assert board(store.state_at(duel)) == board(replay(events, CARDS))
    history = History(CARDS)
    history.extend(stream)

    cold = open_store()
    assert cold.verify(cold.resolve(duel[:6])).ok
    assert {r.position: r.reverted_by for r in cold.records(duel) if r.reverted_by} == history.reverted
    assert history.reverted == {**{p: 150 for p in range(100, 150)}, **{p: 191 for p in range(160, 191)}}
    around_the_rollbacks = set(range(95, 200)) | set(range(0, len(stream) + 1, 7)) | {len(stream)}
    for n in sorted(around_the_rollbacks):
        assert snapshot(cold.state_at(duel, n)) == expected[n], n
    assert snapshot(cold.state_at(duel)) == expected[-1]
    with pytest.raises(RuleViolation, match="MATCH-10"):
        cold.append(duel, rollback(200))


# -- tamper evidence ------------------------------------------------------------------------------

def _state(url: str, duel: str, version: int) -> bytes:
    return bytes(execute(url, "SELECT state FROM {t} WHERE originator_id = ? AND originator_version = ?",
                         (duel, version))[0][0])


def _set_state(url: str, duel: str, version: int, state: bytes) -> None:
    execute(url, "UPDATE {t} SET state = ? WHERE originator_id = ? AND originator_version = ?",
            (state, duel, version))


def test_one_changed_byte_is_found_and_located(store_url, store, open_store):
    duel = recorded(store, DAMAGE)
    other = recorded(store, DAMAGE, 20)
    reader = open_store()
    original = _state(store_url, duel, 41)              # event #40
    for offset in range(0, len(original), 4):
        changed = bytearray(original)
        changed[offset] ^= 0x20
        _set_state(store_url, duel, 41, bytes(changed))
        result = reader.verify(duel)
        assert not result.ok and result.first_bad == 40, (offset, result)
        assert result.problem.startswith("event 40 ") and result.events == 89
    _set_state(store_url, duel, 41, original)
    assert reader.verify(duel).ok and reader.verify(other).ok


def test_a_prefix_is_verified_from_its_own_events_and_anchors_alone(store_url, store, open_store):
    """verify(upto=N), the verification a reader held back by a delay is given: the first N
    events and what was written with them hold or not on their own, whatever lies past them."""
    duel = store.create_duel("prefix")
    for start in range(0, 89, 20):                              # five appends, five anchors
        store.append(duel, sample(DAMAGE)[start:start + 20])
    reader = open_store()
    assert [(reader.verify(duel, n).ok, reader.verify(duel, n).events) for n in (0, 20, 30, 89)] == [
        (True, 0), (True, 20), (True, 30), (True, 89)]
    original = _state(store_url, duel, 51)                      # event #50, past a reader of 30
    changed = bytearray(original)
    changed[-1] ^= 0x20
    _set_state(store_url, duel, 51, bytes(changed))
    assert not reader.verify(duel).ok and reader.verify(duel).first_bad == 50
    assert reader.verify(duel, 30).ok, "what lies past the reader is not read"
    assert not reader.verify(duel, 60).ok and reader.verify(duel, 60).first_bad == 50
    _set_state(store_url, duel, 51, original)
    early = _state(store_url, duel, 11)                         # event #10, within it
    changed = bytearray(early)
    changed[-1] ^= 0x20
    _set_state(store_url, duel, 11, bytes(changed))
    assert not reader.verify(duel, 30).ok and reader.verify(duel, 30).first_bad == 10


def test_the_altered_header_is_reported(store_url, store, open_store):
    duel = recorded(store, DAMAGE, 5)
    header = _state(store_url, duel, 0)
    _set_state(store_url, duel, 0, header.replace(DAMAGE.encode(), b"won-by-damagf.jsonl"))
    reader = open_store()
    result = reader.verify(duel)
    assert (result.ok, result.first_bad, result.problem) == (False, -1, "the duel header was altered")
    _set_state(store_url, duel, 0, b"\x93garbage")
    assert reader.duels()[0].title == "(unreadable header)"            # listing still works
    assert reader.verify(duel).first_bad == -1


def test_a_dropped_event_is_found_and_located(store_url, store, open_store):
    duel = recorded(store, DAMAGE)
    execute(store_url, "DELETE FROM {t} WHERE originator_id = ? AND originator_version = ?", (duel, 41))
    result = open_store().verify(duel)
    assert (result.ok, result.first_bad) == (False, 40)
    assert result.problem == "event 40 is missing (the next stored is 41)"


@pytest.mark.parametrize("a, b", [(31, 51), (60, 61)])
def test_swapped_events_are_found_and_located(store_url, store, open_store, a, b):
    duel = recorded(store, DAMAGE)
    first, second = _state(store_url, duel, a), _state(store_url, duel, b)
    _set_state(store_url, duel, a, second)
    _set_state(store_url, duel, b, first)
    result = open_store().verify(duel)
    assert (result.ok, result.first_bad) == (False, a - 1)
    assert result.problem == f"event {a - 1} does not follow event {a - 2} (dropped or reordered)"


def test_verify_holds_while_another_process_appends(open_store):
    """Verification reads the events, then their anchors and card facts: appends landing in
    between (each writes its events, facts and anchor in one transaction) are not tampering,
    and what ``load(verified=True)`` gives is exactly what was verified."""
    import threading
    writer, reader = open_store(), open_store()
    events = read_events(REPLAYS / DAMAGE)
    duel_id, _stored, _ = writer.record(events[:20], "growing")
    done = threading.Event()

    def append() -> None:
        try:
            for event in events[20:]:
                writer.append(duel_id, [event])
        finally:
            done.set()
    thread = threading.Thread(target=append)
    thread.start()
    checks = 0
    while not done.is_set() or checks < 5:
        result = reader.verify(duel_id)
        assert result.ok, result.problem
        loaded = reader.load(duel_id, verified=True)
        assert len(loaded.records) >= result.events
        checks += 1
    thread.join()
    final = reader.verify(duel_id)
    assert final.ok and final.events == len(events)


def test_an_append_committed_between_the_two_reads_of_a_head_is_no_tampering(store_url, store, open_store):
    """Loading a duel's head reads its header, last event, signed anchor and card facts (one
    query); another writer's append (events and anchor in one transaction) may commit just after
    it. That is a conflict to report as one (ConflictError, try again), not a store altered
    behind its back. A store whose events no longer match their anchor still is (test_trust)."""
    duel = recorded(store, DAMAGE, 20)
    reader, writer = open_store(), open_store()
    real, calls = reader._head_rows, []

    def another_commit_after_the_head_is_read(duel_id: str):
        rows = real(duel_id)
        if not calls:
            calls.append(duel_id)
            writer.append(duel_id, note("the other writer"), expected_position=20)
        return rows

    reader._head_rows = another_commit_after_the_head_is_read
    with pytest.raises(ConflictError):
        reader.append(duel, note("the reader"), expected_position=20)
    assert calls and len(open_store().records(duel)) == 21 and open_store().verify(duel).ok
