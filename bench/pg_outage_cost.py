"""What the PostgreSQL outage handling costs on the normal path (issue 25, ninth pass).

Run from the repository root (``python bench/pg_outage_cost.py``; ``--quick`` for smaller sizes).
One run of the ``ygoreplay`` on PYTHONPATH: a synthetic legal duel's events appended one an
``append`` by a lone writer, then by 8 threads on a concurrent store (8 duels, group commit),
then ``info`` and ``state_at`` read on a read-only store; each as µs a call, wall clock. Compare
two trees by running it with each on PYTHONPATH in turn, interleaved (bench/README.md). Uses
``$YGOREPLAY_BENCH_PG`` (default the local ``test`` database), a throw-away schema, dropped after.
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import generate  # noqa: E402  (bench/synthetic.py)

from ygoreplay.store import Store  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a check that it runs)")
    parser.add_argument("--events", type=int, default=300, help="events a duel (default 300)")
    args = parser.parse_args(argv)
    n = 60 if args.quick else args.events
    reads = 30 if args.quick else 300
    import psycopg
    from psycopg import sql
    base = os.environ.get("YGOREPLAY_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
    events = generate(n, seed=3)
    schema = "bench_pgout_" + uuid.uuid4().hex[:12]
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    try:
        url = f"{base}?schema={schema}"
        with Store(url) as store:
            duel = store.create_duel("lone")
            store.append(duel, events[:20])
            started = time.perf_counter()
            for event in events[20:]:
                store.append(duel, event)
            print(f"lone append: {(time.perf_counter() - started) / (n - 20) * 1e6:,.0f} µs")
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
            started = time.perf_counter()
            for i in range(reads):
                store.info(duels[i % 8])
            print(f"info: {(time.perf_counter() - started) / reads * 1e6:,.0f} µs")
            started = time.perf_counter()
            for i in range(reads):
                store.state_at(duels[i % 8], 21 + (i * 7) % (half - 22))
            print(f"state_at: {(time.perf_counter() - started) / reads * 1e6:,.0f} µs")
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
