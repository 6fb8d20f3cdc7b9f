"""The library's search (issue 26): what indexing costs an append, and how fast a search answers.

Run from the repository root (``python bench/search.py``; ``--quick`` for tiny sizes,
``--no-postgres`` for SQLite only, ``-n`` duels in the generated library). It prints figures
and never fails on them.

1. Indexing cost. Synthetic legal duels (``synthetic.py``) are recorded one ``append`` per event
   (a live scorekeeper) in fresh stores, alternately with the library index (what a store does
   now) and without it (the recorder's hook removed and ``library.seen`` a no-op: the append as
   it was before the index), round by round; the median per-event time of each (wall, mostly the
   commit's fsync on a shared disk, and this process's CPU) and their ratio.
   Then the index's size per event: the bytes of its tables and indexes (SQLite ``dbstat``,
   PostgreSQL ``pg_total_relation_size``) over the events recorded.
2. Search. A library of ``-n`` duels generated straight into the index tables (no fold:
   players from a pool of 5,000, card events drawn from 2,000 passcodes with a Zipf-like
   popularity, 40 a duel on turns 1-12, 2% of the duels delayed and still running, with their
   marks), streamed in batches (PostgreSQL ``COPY``, SQLite ``executemany``, a transaction each)
   with the indexes built after the load (``--indexes-during``: kept while loading), the index's
   bytes per event. Each duel also gets the two rows of the store's events table a listing reads
   (``Store.listed``: a search names only a duel whose header its last signed anchor names), made
   by the store's own code (``stored_rows``). Then ``library_search.search`` timed for random
   queries: by player, by card event (a card activated on turn 1), and combined (player, card
   summoned, result), p50 and p99, with the rows each answered (an empty library cannot hide).
   With ``--before DIR`` (a checkout of another tree) each query is also answered by that tree's
   ``search``, interleaved with this one's on the same library: both trees' figures, and the
   median ratio of their times query by query.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fold import load_before  # noqa: E402  (bench/fold.py)
from synthetic import generate  # noqa: E402  (bench/synthetic.py)

from ygoreplay import chain, library  # noqa: E402
from ygoreplay.access import Access  # noqa: E402
from ygoreplay.library_search import parse, search  # noqa: E402
from ygoreplay.store import Store, _head_row  # noqa: E402

PG_DEFAULT = "postgresql://postgres@127.0.0.1:5432/test"
PLAYERS, CODES, CARD_EVENTS = 5000, 2000, 40


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# -- 1. what the index costs an append --------------------------------------------------------------

def append_run(url: str, events: list, indexed: bool) -> tuple[float, float]:
    """(Wall, CPU) seconds per event to record ``events`` one append each, with or without the index."""
    seen, before = library.seen, library.before
    store = Store(url)
    try:
        if not indexed:
            del store.events._insert_events, store.events.insert_events   # the recorder's own again
            library.seen = lambda *args: None
            library.before = lambda *args: None
        duel = store.create_duel("bench")
        start, cpu = time.perf_counter(), time.process_time()
        for event in events:
            store.append(duel, event)
        return (time.perf_counter() - start) / len(events), (time.process_time() - cpu) / len(events)
    finally:
        library.seen, library.before = seen, before
        store.close()


def index_bytes(url: str) -> tuple[int, int]:
    """(bytes of the library's tables and indexes, events recorded)."""
    store = Store(url, readonly=True)
    try:
        with store.events.datastore.transaction(commit=False) as cursor:
            cursor.execute(store.library.sql("SELECT count(*) AS n FROM {heads} WHERE topic NOT LIKE 'ygoreplay:%'"))
            count = int(cursor.fetchone()["n"])
        return library_bytes(store), count
    finally:
        store.close()


def indexing(backend: str, make_url, events_per_duel: int, rounds: int) -> None:
    events = generate(events_per_duel, seed=7)
    times = {True: [], False: []}
    urls = []
    for round_ in range(rounds):
        for indexed in ((True, False) if round_ % 2 == 0 else (False, True)):
            url = make_url()
            urls.append((url, indexed))
            times[indexed].append(append_run(url, events, indexed))
    for label, at in (("wall", 0), ("CPU", 1)):
        with_index = statistics.median(t[at] for t in times[True])
        without = statistics.median(t[at] for t in times[False])
        print(f"{backend}: append, one event a call, {events_per_duel} events x {rounds} rounds, {label}: "
              f"{without * 1e6:,.0f} us/event before, {with_index * 1e6:,.0f} us/event with the index: "
              f"{(with_index / without - 1) * 100:+.1f}% (goal <= +10%)")
    size, count = index_bytes(next(url for url, on in urls if on))
    print(f"{backend}: index size {size:,} bytes for {count:,} events: {size / max(count, 1):,.0f} bytes/event")


# -- 2. search on a generated library ---------------------------------------------------------------

BATCH = 10_000                   # duels generated and written at a time: memory stays flat


def popularity() -> tuple[list[int], list[float]]:
    """The card pool's passcodes and their Zipf-like weights."""
    return [10_000_000 + i * 7 for i in range(CODES)], [1 / (rank + 1) for rank in range(CODES)]


def stored_rows(store: Store, stream: str, title: str, created: str, events: int, status: dict,
                access: Access, imported: bool) -> list[tuple]:
    """The rows of the store's events table that a search checks a duel's index rows against
    (``Store.listed``, ``Index.vouched``): its header row, its access attachment and its last
    anchor, signed by the store's organiser key, as (originator_id, originator_version, topic,
    state). Made by the store's own code, not copied: ``Store.record`` of no events with
    ``gather`` builds and signs what ``create_duel`` would write (nothing is written); its anchor
    (of 0 events) is then the generated duel's, its count and ``status`` (the store's own status,
    its values the index's) replaced, and signed and MACed again over its own ``Head.message`` by
    the same key, as ``Store._write`` signs one. Its hash stays the chain's root: no event is
    stored (``verify`` would say so)."""
    gathered: list = []
    provenance = {"imported": True, "signed_by": "bench"} if imported else None
    store.record([], title, stream_id=stream, created=created, gather=gathered, provenance=provenance,
                 attachments={"access": access.to_dict()})
    (_duel, rows, _snapshots, live), = gathered
    header = next(row for row in rows if row.originator_id == stream and row.originator_version == 0)
    attached = next(row for row in rows if row.originator_id == f"{stream}/access")
    key = store.key
    head = dataclasses.replace(live.head, count=events, status={**live.head.status, **status}, mac=None)
    message = head.message(stream)
    head = dataclasses.replace(head, mac=key.mac(message)).signed(key.sign(message))
    return [(row.originator_id, row.originator_version, row.topic, row.state)
            for row in (header, attached, _head_row(stream, head))]


def generated(store: Store, n: int, seed: int = 1):
    """Rows of the index tables for ``n`` duels, a batch of ``BATCH`` duels at a time:
    (streams, marks, cards, heads) each, never the whole library in memory; ``heads`` are the
    rows of the store's events table (``stored_rows``: each duel's header row and last anchor)."""
    rng = random.Random(seed)
    codes, weights = popularity()
    start = 1_700_000_000_000
    for first in range(0, n, BATCH):
        streams, marks, cards, heads = [], [], [], []
        for i in range(first, min(n, first + BATCH)):
            stream = f"{i:012x}"
            p0, p1 = rng.sample(range(PLAYERS), 2)
            created = start + i * 60_000
            ended = rng.random() > 0.04
            delayed = not ended and rng.random() < 0.5
            events, turns = rng.randint(150, 450), rng.randint(3, 14)
            winner = rng.choice((0, 1, 0, 1, None)) if ended else None
            title, when = f"Locals week {i // 500}", chain.from_ms(created)
            visibility = "public" if i % 10 else "unlisted"
            streams.append((stream, "duel", title, when, created, f"Player {p0}",
                            f"player {p0}", f"Player {p1}", f"player {p1}", None,
                            int(i % 3 == 0), 1, int(i % 6 == 0), visibility,
                            5 if delayed else 0, 0, turns, int(ended), winner, "lp" if ended else None))
            access = Access(visibility, 5 if delayed else 0, mode="witnessed" if i % 6 == 0 else "machine")
            heads += stored_rows(store, stream, title, when, events,
                                 {"players": [f"Player {p0}", f"Player {p1}"], "turn": turns, "ended": ended,
                                  "winner": winner, "reason": "lp" if ended else None}, access, i % 3 == 0)
            if delayed:      # each row with its tag (``library.Index.tag``), as an append writes it
                marks += [(stream, p, created + p * 1000, 1 + p * turns // events) for p in range(events)]
            for code in set(rng.choices(codes, weights, k=CARD_EVENTS)):
                position = rng.randrange(events)
                cards.append((code, rng.choice(("activated", "summoned", "sent_to_gy", "activated")),
                              1 + position * turns // events, stream, position, rng.randint(0, 1)))
        marks = [(*row, store.library.tag("marks", *row)) for row in marks]
        cards = [(*row, store.library.tag("cards", *row)) for row in cards]
        yield streams, marks, cards, heads


_STREAM_COLUMNS = ("id, kind, title, created, created_ms, p0, p0_key, p1, p1_key, event, imported, signed, "
                   "witnessed, visibility, delay_events, delay_ms, turn, ended, winner, reason")


def _indexes(store: Store, cursor) -> list[tuple[str, str]]:
    """(drop, create) statements of the library tables' indexes that a bulk load need not keep
    up to date row by row: PostgreSQL's secondary indexes and primary keys (the store's events
    table keeps its own); SQLite's secondary indexes (its tables are clustered on their keys)."""
    index = store.library
    if store.backend == "sqlite":
        cursor.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name LIKE 'library%' "
                       "AND sql IS NOT NULL")
        return [(f'DROP INDEX "{row["name"]}"', row["sql"]) for row in cursor.fetchall()]
    cursor.execute("SELECT c.conname AS name, c.conrelid::regclass::text AS tab, pg_get_constraintdef(c.oid) AS def "
                   "FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace "
                   "WHERE n.nspname = %s AND c.contype = 'p' AND c.conrelid::regclass::text LIKE '%%library_%%'",
                   (index.schema,))
    keys = [(row["name"], f'ALTER TABLE {row["tab"]} DROP CONSTRAINT "{row["name"]}"',
             f'ALTER TABLE {row["tab"]} ADD CONSTRAINT "{row["name"]}" {row["def"]}') for row in cursor.fetchall()]
    cursor.execute("SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = %s "
                   "AND tablename LIKE 'library%%'", (index.schema,))
    owned = {name for name, _, _ in keys}
    others = [(f'DROP INDEX "{index.schema}"."{row["name"]}"', row["def"])
              for row in cursor.fetchall() if row["name"] not in owned]
    return [(drop, make) for _, drop, make in keys] + others


def load(store: Store, url: str, n: int, indexes_after: bool = True) -> tuple[float, float, dict[str, int]]:
    """The generated library written in batches (PostgreSQL ``COPY``, SQLite ``executemany``, a
    transaction a batch); ``indexes_after``: the indexes dropped first and built once at the end.
    Then PostgreSQL's tables are vacuumed and analysed (as autovacuum would), SQLite's analysed.
    (Seconds loading, seconds building the indexes, rows written by table.)"""
    index = store.library
    counts = {"streams": 0, "marks": 0, "cards": 0, "events": 0}
    start = time.perf_counter()
    indexes = []
    if indexes_after:
        with store.events.datastore.transaction(commit=True) as cursor:
            indexes = _indexes(store, cursor)
            for drop, _ in indexes:
                cursor.execute(drop)
    for streams, marks, cards, heads in generated(store, n):
        counts["streams"] += len(streams)
        counts["marks"] += len(marks)
        counts["cards"] += len(cards)
        counts["events"] += sum(head[1] for head in heads if head[0].endswith("/head"))
        with store.events.datastore.transaction(commit=True) as cursor:
            if store.backend == "sqlite":
                cursor.executemany(index.sql(f"INSERT INTO {{streams}} ({_STREAM_COLUMNS}) VALUES "
                                             f"({', '.join('?' * 20)})"), streams)
                cursor.executemany(index.sql("INSERT INTO {marks} (stream, position, at, turn, mac) "
                                             "VALUES (?, ?, ?, ?, ?)"), marks)
                cursor.executemany(index.sql("INSERT INTO {cards} (code, action, turn, stream, position, side, mac) "
                                             "VALUES (?, ?, ?, ?, ?, ?, ?)"), sorted(cards))
                cursor.executemany(index.sql("INSERT INTO {heads} (originator_id, originator_version, topic, "
                                             "state) VALUES (?, ?, ?, ?)"), heads)
            else:
                for table, columns, data in ((index.streams, _STREAM_COLUMNS, streams),
                                             (index.marks, "stream, position, at, turn, mac", marks),
                                             (index.cards, "code, action, turn, stream, position, side, mac", cards),
                                             (index.heads, "originator_id, originator_version, topic, state",
                                              heads)):
                    with cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                        for row in data:
                            copy.write_row(row)
    loaded = time.perf_counter()
    with store.events.datastore.transaction(commit=True) as cursor:
        if store.backend == "postgresql":
            cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
        for _, make in indexes:
            cursor.execute(make)
    built_at = time.perf_counter()
    if store.backend == "postgresql":       # as autovacuum leaves a table: its visibility map set (index-only
        import psycopg                      # scans read no heap), its statistics made; outside a transaction
        with psycopg.connect(url.partition("?")[0], autocommit=True) as conn:
            for table in (index.streams, index.marks, index.cards, index.heads):
                conn.execute(f"VACUUM ANALYZE {table}")
    else:
        with store.events.datastore.transaction(commit=True) as cursor:
            cursor.execute("ANALYZE")
    return loaded - start, built_at - loaded, counts


def library_bytes(store: Store) -> int:
    """Bytes of the library's tables and their indexes (not the store's events table)."""
    with store.events.datastore.transaction(commit=False) as cursor:
        if store.backend == "sqlite":
            cursor.execute("SELECT sum(d.pgsize) AS b FROM dbstat d JOIN sqlite_master m ON m.name = d.name "
                           "WHERE m.tbl_name LIKE 'library%'")     # with their automatic key indexes
        else:
            cursor.execute("SELECT sum(pg_total_relation_size(c.oid)) AS b FROM pg_class c JOIN pg_namespace n "
                           "ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relname LIKE 'library%%' "
                           "AND c.relkind = 'r'", (store.library.schema,))
        return int(cursor.fetchone()["b"] or 0)


def searching(backend: str, url: str, n: int, queries: int, indexes_after: bool = True, before: Any = None) -> None:
    """The search's figures on a generated library; ``before``: another tree's ``library_search`` too."""
    codes, weights = popularity()
    store = Store(url)
    try:
        seconds, building, counts = load(store, url, n, indexes_after)
        how = f"indexes built after the load in {building:.1f} s" if indexes_after else "indexes kept during the load"
        print(f"{backend}: generated library of {n:,} duels ({counts['events']:,} events), {counts['cards']:,} card "
              f"events, {counts['marks']:,} marks: loaded in {seconds:.1f} s, {how}")
        size = library_bytes(store)
        print(f"{backend}: library index {size / 2**20:,.0f} MiB: {size / counts['events']:,.1f} bytes/event, "
              f"{size / counts['cards']:,.0f} bytes/card event, {size / n:,.0f} bytes/duel")
        rng = random.Random(2)

        def player() -> dict:
            return {"player": f"player {rng.randrange(PLAYERS)}"}

        def card() -> dict:
            return {"card": str(rng.choices(codes, weights)[0]), "action": "activated", "turn_max": "1"}

        def combined() -> dict:
            return {**player(), "card": str(rng.choices(codes, weights)[0]), "action": "summoned", "result": "p0"}

        trees = [("this tree", parse, search)]
        if before is not None:
            trees.append(("before", before.parse, before.search))
        for name, make in (("by player", player), ("by card event", card), ("combined", combined)):
            took = {tree: [] for tree, _, _ in trees}
            hits = {tree: 0 for tree, _, _ in trees}
            empty = {tree: 0 for tree, _, _ in trees}
            left = {tree: 0 for tree, _, _ in trees}
            for number in range(queries):
                params = make()
                # interleaved query by query, each tree first every other query (the first warms the cache)
                for tree, parsing, searched in trees[::-1] if number % 2 else trees:
                    query = parsing(params, {})
                    start = time.perf_counter()
                    answer = searched(store, query)
                    took[tree].append((time.perf_counter() - start) * 1000)
                    hits[tree] += len(answer["results"])
                    empty[tree] += not answer["results"]
                    left[tree] += answer.get("unvouched", 0)
            # the rows answered: a library the search lists none of (``Store.listed``) times empty pages
            for tree, _, _ in trees:
                times = took[tree]
                label = f" ({tree})" if before is not None else ""
                print(f"{backend}: search {name}{label}: p50 {pct(times, 0.5):.2f} ms, p99 {pct(times, 0.99):.2f} "
                      f"ms, max {max(times):.2f} ms ({queries} queries, mean rows returned {hits[tree] / queries:.2f}, "
                      f"{empty[tree]} empty, {left[tree]} rows left out unvouched)")
            if before is not None:
                ratio = statistics.median(a / b for a, b in zip(took["this tree"], took["before"]))
                print(f"{backend}: search {name}: this tree / before, median of each query's ratio {ratio:.3f}")
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes: only shows that it runs")
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--no-sqlite", action="store_true")
    parser.add_argument("-n", type=int, default=None, help="duels in the generated library (default 100,000)")
    parser.add_argument("--pg-n", type=int, default=None, help="duels in PostgreSQL's (default: -n)")
    parser.add_argument("--only", choices=("append", "search"), default=None, help="one part only")
    parser.add_argument("--indexes-during", action="store_true",
                        help="keep the indexes during the load (default: drop them, build them after)")
    parser.add_argument("--queries", type=int, default=None, help="queries of each kind (default 300)")
    parser.add_argument("--before", type=Path, help="a checkout of the tree to compare the search with")
    args = parser.parse_args()
    before = None
    if args.before is not None:
        load_before(args.before)
        before = importlib.import_module("ygoreplay_before.library_search")
    n = args.n or (2_000 if args.quick else 100_000)
    pg_n = args.pg_n or n
    events, rounds, queries = (200, 2, 20) if args.quick else (1500, 6, 300)
    queries = args.queries or queries
    after = not args.indexes_during
    pg = os.environ.get("YGOREPLAY_BENCH_PG", PG_DEFAULT)
    with tempfile.TemporaryDirectory() as folder:
        files = iter(range(10 ** 6))
        if args.only != "search" and not args.no_sqlite:
            indexing("sqlite", lambda: str(Path(folder) / f"append-{next(files)}.sqlite"), events, rounds)
        if args.only != "append" and not args.no_sqlite:
            searching("sqlite", str(Path(folder) / "library.sqlite"), n, queries, after, before)
    if args.no_postgres:
        return
    try:
        import psycopg
        conn = psycopg.connect(pg, autocommit=True, connect_timeout=5)
    except Exception as exc:                        # no server: say so, SQLite's figures stand
        print(f"postgresql: skipped ({' '.join(str(exc).split())[:120]})")
        return
    schemas = []

    def fresh() -> str:
        schema = f"bench_search_{uuid.uuid4().hex[:12]}"
        conn.execute(f'CREATE SCHEMA "{schema}"')
        schemas.append(schema)
        return f"{pg}?schema={schema}"

    try:
        if args.only != "search":
            indexing("postgresql", fresh, events, rounds)
        if args.only != "append":
            searching("postgresql", fresh(), pg_n, queries, after, before)
    finally:
        for schema in schemas:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
        conn.close()


if __name__ == "__main__":
    main()
