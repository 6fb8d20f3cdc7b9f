"""What the PostgreSQL outage handling costs on the normal path (issue 25, ninth pass).

Run from the repository root (``python bench/pg_outage_cost.py``; ``--quick`` for smaller sizes).
One run of the ``ygoreplay`` on PYTHONPATH: a synthetic legal duel's events appended one an
``append`` by a lone writer, then by 8 threads on a concurrent store (8 duels, group commit),
then ``info`` and ``state_at`` read on a read-only store; each as µs a call, wall clock. Compare
two trees by running it with each on PYTHONPATH in turn, interleaved (bench/README.md). Uses
``$YGOREPLAY_BENCH_PG`` (default the local ``test`` database), a throw-away schema, dropped after;
``--sqlite``: a temporary SQLite file instead. The lone append and ``info`` also as this process's
CPU time a call (steadier than the wall clock on a shared machine). ``--statements ROUNDS``: a bare
``SELECT 1``'s client CPU on the store's own connection (``store._bounded``, tenth pass: every
wait bounded) ÷ on a plain psycopg one, the two alternating, 300 a round (a tree without it says so).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import generate  # noqa: E402  (bench/synthetic.py)

from ygoreplay import store as store_module  # noqa: E402
from ygoreplay.store import Store  # noqa: E402

BASE = os.environ.get("YGOREPLAY_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")


@contextmanager
def _store_url(sqlite: bool) -> Iterator[str]:
    """A throw-away store's URL: a schema of the PostgreSQL database (dropped after), or a SQLite file."""
    if sqlite:
        with tempfile.TemporaryDirectory() as folder:
            yield str(Path(folder) / "bench.sqlite")
        return
    import psycopg
    from psycopg import sql
    schema = "bench_pgout_" + uuid.uuid4().hex[:12]
    with psycopg.connect(BASE, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    try:
        yield f"{BASE}?schema={schema}"
    finally:
        with psycopg.connect(BASE, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


def _statements(rounds: int) -> None:
    """A bare statement's client CPU on the store's bounded connection ÷ on a plain one."""
    bounded = getattr(store_module, "_bounded", None)
    if bounded is None:
        print("statements: this tree's store has no bounded connection")
        return
    import psycopg
    plain = psycopg.Connection.connect(BASE, autocommit=True)
    own = bounded().connect(BASE, **store_module._bound({"autocommit": True}))
    cpu: dict[str, list[float]] = {"plain": [], "store": []}
    for r in range(rounds):
        for name, conn in ([("plain", plain), ("store", own)] if r % 2 else [("store", own), ("plain", plain)]):
            cursor = conn.cursor()
            started = time.process_time()
            for _ in range(300):
                cursor.execute("SELECT 1", prepare=True).fetchone()
            cpu[name].append((time.process_time() - started) / 300 * 1e6)
    ratios = sorted(a / b for a, b in zip(cpu["store"], cpu["plain"]))
    print(f"statement cpu: plain {statistics.median(cpu['plain']):.2f} µs, the store's connection "
          f"{statistics.median(cpu['store']):.2f} µs; ÷ plain, median of {rounds} rounds "
          f"{statistics.median(ratios):.3f} (quartiles {ratios[rounds // 4]:.3f}–{ratios[3 * rounds // 4]:.3f})")
    plain.close()
    own.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a check that it runs)")
    parser.add_argument("--events", type=int, default=300, help="events a duel (default 300)")
    parser.add_argument("--sqlite", action="store_true", help="on a temporary SQLite file, not PostgreSQL")
    parser.add_argument("--statements", type=int, metavar="ROUNDS",
                        help="only a bare statement's client CPU, the store's connection ÷ a plain one")
    args = parser.parse_args(argv)
    if args.statements:
        _statements(args.statements)
        return 0
    n = 60 if args.quick else args.events
    reads = 30 if args.quick else 300
    events = generate(n, seed=3)
    with _store_url(args.sqlite) as url:
        with Store(url) as store:
            duel = store.create_duel("lone")
            store.append(duel, events[:20])
            started, cpu = time.perf_counter(), time.process_time()
            for event in events[20:]:
                store.append(duel, event)
            print(f"lone append: {(time.perf_counter() - started) / (n - 20) * 1e6:,.0f} µs")
            print(f"lone append cpu: {(time.process_time() - cpu) / (n - 20) * 1e6:,.0f} µs")
        half = n // 2
        with Store(url, concurrent=True) as store:
            duels = [store.create_duel(f"table {i}") for i in range(8)]
            for duel in duels:
                store.append(duel, events[:20])
            threads = [threading.Thread(target=lambda d=d: [store.append(d, e) for e in events[20:half]])
                       for d in duels]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            print(f"group append: {(time.perf_counter() - started) / (8 * (half - 20)) * 1e6:,.0f} µs")
        with Store(url, readonly=True) as store:
            started, cpu = time.perf_counter(), time.process_time()
            for i in range(reads):
                store.info(duels[i % 8])
            print(f"info: {(time.perf_counter() - started) / reads * 1e6:,.0f} µs")
            print(f"info cpu: {(time.process_time() - cpu) / reads * 1e6:,.0f} µs")
            started = time.perf_counter()
            for i in range(reads):
                store.state_at(duels[i % 8], 21 + (i * 7) % (half - 22))
            print(f"state_at: {(time.perf_counter() - started) / reads * 1e6:,.0f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
