"""Where a steady append's CPU goes: the store's, in process, and the service's event loop's.

Run from the repository root: ``python bench/append_profile.py store`` or ``... loop`` (issue 25,
twenty-fourth pass). It prints figures and never fails on them. Against the PostgreSQL server of
``$YGOREPLAY_BENCH_PG`` (as ``bench/service.py``), a throw-away schema each run.

- ``store``: one process, ``Store(concurrent=True)`` (group commit), ``--threads`` threads appending
  ``--duels`` duels' events round-robin, as ``service.py --only store`` does in each writer process.
  First a run without the profiler (its CPU an append), then one with ``cProfile`` on each thread's
  **CPU clock** (``time.thread_time``: a function waiting for the GIL, or for zlib or a lock, is
  not charged for the wait, as it is on the wall clock), the threads' stats merged, and the share
  of each part of an append printed. ``--before DIR`` also runs the unprofiled part with another
  checkout's ``ygoreplay``, the trees in turn, ``--rounds`` times.
- ``loop``: ``ygoreplay serve --workers 1`` under ``cProfile`` (its main thread: the event loop),
  ``--clients`` recorders appending one event a request twice, ``--short`` and ``--long`` events
  each; the difference of the two profiles is what the extra appends cost, without the start,
  the duels' creation and the shutdown. Coroutines count a call each time they resume.

Figures under ``cProfile`` are inflated (several times, most for code of many small calls): read
their shares, not their microseconds.
"""
from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import os
import pstats
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import service as bench  # noqa: E402  (bench/service.py)
from synthetic import generate  # noqa: E402  (bench/synthetic.py)

#: the parts of a store append, by the function whose cumulative CPU is the part's
PARTS = (("the rules' fold", "history.py", "append"), ("spectator index of the event", "library.py", "seen"),
         ("the event's chain link", "chain.py", "link"), ("the event's wire form", "events.py", "to_dict"),
         ("a snapshot's data (every 16th)", "history.py", "to_data"), ("the group commit (leader)", "committing.py", "_commit"),
         ("  signing the group", "committing.py", "_sign"), ("    Merkle tree", "signing.py", "tree"),
         ("    Ed25519", "", "<method 'sign' of 'cryptography.hazmat.bindings._rust.openssl.ed25519.Ed25519PrivateKey' objects>"),
         ("    HMACs", "signing.py", "mac"), ("  the PostgreSQL write", "postgres.py", "write"),
         ("    index rows", "library.py", "write"), ("    binary arrays", "pg_pipeline.py", "typed_array"),
         ("    libpq pipeline", "pg_pipeline.py", "send"))


def store_run(n_duels: int, n_events: int, threads: int, profile: str | None) -> float:
    """One run in this process; its CPU an append (with ``profile``, the merged stats dumped there)."""
    from ygoreplay.store import Store
    schema = bench.Schema("profile")
    try:
        with Store(schema.url) as made:
            duels = [made.create_duel(f"table {i}") for i in range(n_duels)]
        events = generate(n_events, 1)
        store = Store(schema.url, concurrent=True, create=False)
        for duel in duels:                          # the heads loaded: every append after is steady
            store.append(duel, events[0])
        profiles: list[cProfile.Profile] = []

        def worker(mine: list[str]) -> None:
            profiler = cProfile.Profile(time.thread_time) if profile else None
            if profiler:
                profiler.enable()
            for i in range(1, n_events):
                for duel in mine:
                    store.append(duel, events[i])
            if profiler:
                profiler.disable()
                profiles.append(profiler)
        gc.collect()
        gc.freeze()                                 # as the service's process (``create_app``)
        gc.set_threshold(50_000, 20, 100)
        pool = [threading.Thread(target=worker, args=(duels[t::threads],)) for t in range(threads)]
        cpu = time.process_time()
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join()
        cpu = time.process_time() - cpu
        store.close()
        if profile:
            stats = pstats.Stats(profiles[0])
            for more in profiles[1:]:
                stats.add(more)
            stats.dump_stats(profile)
        return cpu / (n_duels * (n_events - 1))
    finally:
        gc.unfreeze()
        bench.Schema.drop(schema)


def store_parts(path: str) -> None:
    stats = pstats.Stats(path).stats        # type: ignore[attr-defined]
    waits = sum(v[2] for k, v in stats.items() if k[2] == "<method 'acquire' of '_thread.lock' objects>")
    total = sum(v[2] for v in stats.values()) - waits
    print(f"  profiled CPU {total:.2f} s (lock waits left out); the parts' shares of it (cumulative):")
    for label, file, name in PARTS:
        spent = sum(v[3] for k, v in stats.items() if k[2] == name and k[0].endswith(file))
        print(f"    {label:34s} {spent / total * 100:5.1f}%")


def store(args: argparse.Namespace) -> None:
    print(f"[store] {args.duels} duels x {args.events} events, {args.threads} threads, Store(concurrent=True)")
    for r in range(args.rounds):
        trees = [("after", None), ("before", args.before)] if args.before else [("this tree", None)]
        for label, tree in (trees if r % 2 == 0 else trees[::-1]):
            code = ("import sys; sys.argv[1:] = []; sys.path.insert(0, %r); import append_profile as a; "
                    "print(a.store_run(%d, %d, %d, None))" % (str(Path(__file__).resolve().parent), args.duels,
                                                               args.events, args.threads))
            done = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True,
                                  env=bench.tree_env(tree or bench.THIS_TREE), cwd=tree or bench.THIS_TREE, timeout=600)
            if done.returncode:
                raise RuntimeError(done.stderr[-800:])
            print(f"  round {r + 1}, {label}: CPU {float(done.stdout.split()[-1]) * 1e6:.0f} us an append, unprofiled")
    with tempfile.TemporaryDirectory() as where:
        path = os.path.join(where, "store.prof")
        cpu = store_run(args.duels, args.events, args.threads, path)
        print(f"  profiled (this tree): CPU {cpu * 1e6:.0f} us an append")
        store_parts(path)


def _served(n_events: int, clients: int, out: str) -> None:
    """The service under cProfile, ``clients`` recorders of ``n_events`` events each, stats to ``out``."""
    schema = bench.Schema("profile")
    try:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        env = {**bench.tree_env(bench.THIS_TREE), "YGOREPLAY_ADMIN_TOKEN": bench.ADMIN,
               "YGOREPLAY_CONNECTIONS_PER_ADDRESS": "100000"}
        server = subprocess.Popen([sys.executable, "-P", "-m", "cProfile", "-o", out, "-m", "ygoreplay", "serve",
                                   "--port", str(port), "--store", schema.url, "--workers", "1"], env=env,
                                  cwd=bench.THIS_TREE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            bench.wait_up(port)
            bodies = [json.dumps([e.to_dict()]).encode() for e in generate(n_events, 1)]
            duels = asyncio.run(bench._create_duels(port, clients))
            latencies: list = []
            failures: list[str] = []

            async def run() -> None:
                await asyncio.gather(*(bench._record(port, d, bodies, latencies, failures) for d in duels))
            asyncio.run(run())
            if failures:
                raise RuntimeError(f"appends failed: {failures[:3]}")
        finally:
            server.send_signal(signal.SIGINT)       # cProfile writes its stats as the server ends
            server.wait(120)
    finally:
        schema.drop()


def loop(args: argparse.Namespace) -> None:
    n = args.clients * (args.long - args.short)
    print(f"[loop] ygoreplay serve --workers 1 under cProfile; {args.clients} recorders, {args.long} - {args.short} "
          f"events each: the {n:,} appends between")
    with tempfile.TemporaryDirectory() as where:
        short, long = os.path.join(where, "short.prof"), os.path.join(where, "long.prof")
        _served(args.short, args.clients, short)
        _served(args.long, args.clients, long)
        before = pstats.Stats(short).stats      # type: ignore[attr-defined]
        after = pstats.Stats(long).stats        # type: ignore[attr-defined]
    rows = []
    for key, (_cc, calls, own, cum, _callers) in after.items():
        was = before.get(key, (0, 0, 0.0, 0.0, {}))
        rows.append((own - was[2], (calls - was[1]) / n, cum - was[3], f"{key[0].split('site-packages/')[-1]}:{key[1]}({key[2]})"))
    idle = ("runners.py", "acquire", "builtins.exec", "builtins.compile")
    busy = sum(r[0] for r in rows if not any(word in r[3] for word in idle))
    print(f"  the loop's own time an append, profiled: {busy / n * 1e6:.0f} us (its idle wait left out); "
          "by function (own us, calls, cumulative us, an append):")
    for own, calls, cum, name in sorted(rows, reverse=True)[:args.top]:
        if not any(word in name for word in idle):
            print(f"    {own / n * 1e6:6.1f} {calls:6.2f} {cum / n * 1e6:7.1f}  {name[-110:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("part", choices=("store", "loop"))
    parser.add_argument("--duels", type=int, default=300)
    parser.add_argument("--events", type=int, default=17)
    parser.add_argument("--threads", type=int, default=24)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--before", help="another checkout: the store part's unprofiled CPU of both, in turn")
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--short", type=int, default=6)
    parser.add_argument("--long", type=int, default=46)
    parser.add_argument("--top", type=int, default=40)
    args = parser.parse_args(argv)
    (store if args.part == "store" else loop)(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
