"""The CPU of one PostgreSQL write of the store (issue 25, tenth pass): what a group commit costs
its writer however few appends it holds (paced at 1,000 appends/s on 2 workers, a group held
2-4 appends, so each paid most of a write).

Run from the repository root (``python bench/pg_write.py``; ``--quick`` for a check that it runs).
A lone writer appends a synthetic legal duel's events one an append (a write each: the index's
rows, the lock, the notification, the rows, a snapshot every 16 events); the thread CPU of each
write (``Store._write_rows``) and the wall time of each append are taken, and their medians
printed. ``--before DIR`` also runs the ``ygoreplay`` of another checkout, each tree in a
process of its own, ``--pairs`` times in turn, and prints each pair's ratio (after / before) and
their median. Uses ``$YGOREPLAY_BENCH_PG`` (default the local ``test`` database), a throw-away
schema, dropped after.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import generate  # noqa: E402  (bench/synthetic.py)

PG = os.environ.get("YGOREPLAY_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")


def measure(n_duels: int, n_events: int) -> dict:
    """Medians of a write's thread CPU and of an append's wall time, in µs (this process's tree)."""
    import psycopg
    from psycopg import sql

    from ygoreplay.store import Store
    schema = f"bench_write_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(PG, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    cpu: list[float] = []
    wall: list[float] = []
    try:
        with Store(f"{PG}?schema={schema}") as store:
            inner = store._write_rows

            def timed(rows, snapshot_rows):
                start = time.thread_time()
                try:
                    return inner(rows, snapshot_rows)
                finally:
                    cpu.append(time.thread_time() - start)
            store._write_rows = timed
            for seed in range(n_duels):
                duel = store.create_duel(f"write {seed}")
                cpu.clear() if seed == 0 else None           # the first duel warms the connection up
                for event in generate(n_events, seed + 1):
                    start = time.perf_counter()
                    store.append(duel, event)
                    wall.append(time.perf_counter() - start)
    finally:
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))
    return {"cpu": statistics.median(cpu) * 1e6, "wall": statistics.median(wall) * 1e6, "writes": len(cpu)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes (a check that it runs)")
    parser.add_argument("--duels", type=int, help="duels, one after another (default 20; quick 2)")
    parser.add_argument("--events", type=int, help="events a duel (default 60; quick 10)")
    parser.add_argument("--before", metavar="DIR", help="also the ygoreplay of this checkout, in turn")
    parser.add_argument("--pairs", type=int, help="runs of each tree, in turn (default 5; quick 1)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)     # one run, for --before
    args = parser.parse_args(argv)
    duels, events = args.duels or (2 if args.quick else 20), args.events or (10 if args.quick else 60)
    if args.json:
        print(json.dumps(measure(duels, events)))
        return 0
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start; "
          f"{duels} duels x {events} events, one write an append")
    if not args.before:
        run = measure(duels, events)
        print(f"  a write: {run['cpu']:.0f} us of CPU (median of {run['writes']}); an append {run['wall']:.0f} us wall")
        return 0
    here = str(Path(__file__).resolve().parents[1])
    ratios = []
    for pair in range(args.pairs or (1 if args.quick else 5)):
        runs = {}
        for name, tree in (("after", here), ("before", str(Path(args.before).resolve())))[::1 if pair % 2 == 0 else -1]:
            env = {**os.environ, "PYTHONPATH": tree + os.pathsep + os.environ.get("PYTHONPATH", "")}
            done = subprocess.run([sys.executable, "-P", __file__, "--json", "--duels", str(duels),
                                   "--events", str(events)], env=env, cwd=tree, capture_output=True, text=True,
                                  check=True)
            runs[name] = json.loads(done.stdout)
        ratios.append(runs["after"]["cpu"] / runs["before"]["cpu"])
        print(f"  pair {pair + 1}: a write {runs['before']['cpu']:.0f} -> {runs['after']['cpu']:.0f} us of CPU "
              f"({ratios[-1]:.2f}); an append {runs['before']['wall']:.0f} -> {runs['after']['wall']:.0f} us wall")
    print(f"  a write's CPU, after / before: median {statistics.median(ratios):.2f} of {len(ratios)} pairs; "
          f"load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
