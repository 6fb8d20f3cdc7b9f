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
2. Search. A library of ``-n`` duels generated straight into the index tables in bulk (no fold:
   players from a pool of 5,000, card events drawn from 2,000 passcodes with a Zipf-like
   popularity, 40 a duel on turns 1-12, 2% of the duels delayed and still running, with their
   marks), then ``library_search.search`` timed for random queries: by player, by card event
   (a card activated on turn 1), and combined (player, card summoned, result), p50 and p99.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import generate  # noqa: E402  (bench/synthetic.py)

from ygoreplay import library  # noqa: E402
from ygoreplay.library_search import parse, search  # noqa: E402
from ygoreplay.store import Store  # noqa: E402

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


def index_bytes(url: str, backend: str) -> tuple[int, int]:
    """(bytes of the library's tables and indexes, events recorded)."""
    store = Store(url, readonly=True)
    try:
        with store.events.datastore.transaction(commit=False) as cursor:
            if backend == "sqlite":
                cursor.execute("SELECT sum(pgsize) AS b FROM dbstat WHERE name LIKE 'library%'")
                size = cursor.fetchone()["b"]
            else:
                cursor.execute("SELECT sum(pg_total_relation_size(c.oid)) AS b FROM pg_class c JOIN pg_namespace n "
                               "ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relname LIKE 'library%%' "
                               "AND c.relkind = 'r'", (store.library.schema,))
                size = cursor.fetchone()["b"]
            cursor.execute(store.library.sql("SELECT count(*) AS n FROM {heads} WHERE topic NOT LIKE 'ygoreplay:%'"))
            return int(size or 0), int(cursor.fetchone()["n"])
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
    size, count = index_bytes(next(url for url, on in urls if on), backend)
    print(f"{backend}: index size {size:,} bytes for {count:,} events: {size / max(count, 1):,.0f} bytes/event")


# -- 2. search on a generated library ---------------------------------------------------------------

def generated(n: int, seed: int = 1):
    """Rows of the index tables for ``n`` duels: (streams, marks, cards)."""
    rng = random.Random(seed)
    weights = [1 / (rank + 1) for rank in range(CODES)]
    codes = [10_000_000 + i * 7 for i in range(CODES)]
    start = 1_700_000_000_000
    streams, marks, cards, heads = [], [], [], []
    for i in range(n):
        stream = f"{i:012x}"
        p0, p1 = rng.sample(range(PLAYERS), 2)
        created = start + i * 60_000
        ended = rng.random() > 0.04
        delayed = not ended and rng.random() < 0.5
        events, turns = rng.randint(150, 450), rng.randint(3, 14)
        winner = rng.choice((0, 1, 0, 1, None)) if ended else None
        streams.append((stream, "duel", f"Locals week {i // 500}", f"{created}", created, f"Player {p0}",
                        f"player {p0}", f"Player {p1}", f"player {p1}", "imported" if i % 3 == 0 else None,
                        int(i % 3 == 0), 1, int(i % 6 == 0), "public" if i % 10 else "unlisted",
                        5 if delayed else 0, 0, turns, int(ended), winner, "lp" if ended else None))
        heads.append((f"{stream}/head", events, "ygoreplay:head", b""))
        if delayed:
            marks += [(stream, p, created + p * 1000, 1 + p * turns // events) for p in range(events)]
        for code in set(rng.choices(codes, weights, k=CARD_EVENTS)):
            position = rng.randrange(events)
            cards.append((code, rng.choice(("activated", "summoned", "sent_to_gy", "activated")), stream,
                          1 + position * turns // events, position, rng.randint(0, 1)))
    return streams, marks, cards, heads, codes, weights


_STREAM_COLUMNS = ("id, kind, title, created, created_ms, p0, p0_key, p1, p1_key, event, imported, signed, "
                   "witnessed, visibility, delay_events, delay_ms, turn, ended, winner, reason")


def load(store: Store, rows) -> float:
    """Bulk insert of the generated rows; seconds."""
    streams, marks, cards, heads = rows[:4]
    index = store.library
    start = time.perf_counter()
    with store.events.datastore.transaction(commit=True) as cursor:
        if store.backend == "sqlite":
            cursor.executemany(index.sql(f"INSERT INTO {{streams}} ({_STREAM_COLUMNS}) VALUES "
                                         f"({', '.join('?' * 20)})"), streams)
            cursor.executemany(index.sql("INSERT INTO {marks} VALUES (?, ?, ?, ?)"), marks)
            cursor.executemany(index.sql("INSERT INTO {cards} (code, action, stream, turn, position, side) "
                                         "VALUES (?, ?, ?, ?, ?, ?)"), cards)
            cursor.executemany(index.sql("INSERT INTO {heads} (originator_id, originator_version, topic, state) "
                                         "VALUES (?, ?, ?, ?)"), heads)
        else:
            for table, columns, data in ((index.streams, _STREAM_COLUMNS, streams),
                                         (index.marks, "stream, position, at, turn", marks),
                                         (index.cards, "code, action, stream, turn, position, side", cards),
                                         (index.heads, "originator_id, originator_version, topic, state", heads)):
                with cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                    for row in data:
                        copy.write_row(row)
    if store.backend == "postgresql":
        with store.events.datastore.transaction(commit=True) as cursor:
            for table in (index.streams, index.marks, index.cards, index.heads):
                cursor.execute(f"ANALYZE {table}")
    else:
        with store.events.datastore.transaction(commit=True) as cursor:
            cursor.execute("ANALYZE")
    return time.perf_counter() - start


def searching(backend: str, url: str, n: int, queries: int) -> None:
    rows = generated(n)
    codes, weights = rows[4], rows[5]
    store = Store(url)
    try:
        seconds = load(store, rows)
        print(f"{backend}: generated library of {n:,} duels, {len(rows[2]):,} card events, "
              f"{len(rows[1]):,} marks: loaded in {seconds:.1f} s")
        rng = random.Random(2)

        def player() -> dict:
            return {"player": f"player {rng.randrange(PLAYERS)}"}

        def card() -> dict:
            return {"card": str(rng.choices(codes, weights)[0]), "action": "activated", "turn_max": "1"}

        def combined() -> dict:
            return {**player(), "card": str(rng.choices(codes, weights)[0]), "action": "summoned", "result": "p0"}

        for name, make in (("by player", player), ("by card event", card), ("combined", combined)):
            took, hits = [], 0
            for _ in range(queries):
                query = parse(make(), {})
                start = time.perf_counter()
                answer = search(store, query)
                took.append((time.perf_counter() - start) * 1000)
                hits += len(answer["results"])
            print(f"{backend}: search {name}: p50 {pct(took, 0.5):.2f} ms, p99 {pct(took, 0.99):.2f} ms "
                  f"({queries} queries, {hits / queries:.1f} results each)")
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
    args = parser.parse_args()
    n = args.n or (2_000 if args.quick else 100_000)
    pg_n = args.pg_n or n
    events, rounds, queries = (200, 2, 20) if args.quick else (1500, 6, 300)
    pg = os.environ.get("YGOREPLAY_BENCH_PG", PG_DEFAULT)
    with tempfile.TemporaryDirectory() as folder:
        files = iter(range(10 ** 6))
        if args.only != "search" and not args.no_sqlite:
            indexing("sqlite", lambda: str(Path(folder) / f"append-{next(files)}.sqlite"), events, rounds)
        if args.only != "append" and not args.no_sqlite:
            searching("sqlite", str(Path(folder) / "library.sqlite"), n, queries)
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
            searching("postgresql", fresh(), pg_n, queries)
    finally:
        for schema in schemas:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
        conn.close()


if __name__ == "__main__":
    main()
