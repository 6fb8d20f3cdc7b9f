"""Memory of opening and folding a long stored duel, against decoding its records (issue 25).

Run from the repository root (``python bench/memory.py``; ``--quick`` for a small duel). It
prints figures and never fails on them.

One synthetic legal duel (``bench/synthetic.py``, 100,000 events by default) is recorded in a
fresh SQLite store. Then each of these runs in a fresh process of its own, the processes of a
round interleaved (their order turns from round to round), and each process measures one thing
after its imports and a first small read (so that only the work's own memory is counted):

* ``decode``: ``Store.records`` - the duel's stored records read and decoded, the baseline;
* ``open + fold``: ``source.open_source`` and the board after the last event, as ``log``,
  ``play`` and ``audit`` open a stored duel and fold it;
* ``verified + fold``: ``Store.load(verified=True)`` and a fold of its events, as ``export`` and
  ``branch`` open it (the chain, anchors and every snapshot checked first).

Each is measured twice, in separate processes: the peak resident memory it added (the kernel's
VmHWM, which counts what Python frees but the allocator keeps) and the peak of Python's own
allocations (``tracemalloc``, which slows the process). Each is printed in bytes an event and as
a ratio to ``decode`` of the same round. Target: at most 1.2x decoding the records.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

LIMIT = 1.2
WORKS = ("decode", "open + fold", "verified + fold")


def child(work: str, method: str, path: str, duel: str) -> dict:
    """One measurement, in this process: the memory ``work`` adds, by ``method``."""
    import gc
    import tracemalloc

    from ygoreplay.cards import CardDB
    from ygoreplay.rules import History
    from ygoreplay.source import open_source
    from ygoreplay.store import Store

    st = Store(path, readonly=True)
    cards = CardDB.classic()
    st.state_at(duel, 1)                                   # the store's first read, its caches filled
    events = st.record_at(duel).position + 1

    def run() -> object:
        if work == "decode":
            return st.records(duel)
        if work == "open + fold":
            source = open_source(duel, st, cards)
            return source.state_after(len(source.events) - 1)
        stored = st.load(duel, verified=True)
        history = History(stored.cards, audit=True)
        history.extend(stored.events)
        return history.state

    gc.collect()
    if method == "traced":
        tracemalloc.start()
        kept = run()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    else:
        before = _hwm()
        kept = run()
        peak = _hwm() - before
    del kept
    st.close()
    return {"events": events, "peak": peak}


def _hwm() -> int:
    """The process's peak resident memory so far, in bytes (Linux)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def record(path: str, n_events: int, seed: int) -> tuple[str, float]:
    from synthetic import generate

    from ygoreplay.store import Store
    events = generate(n_events, seed)
    t0 = time.perf_counter()
    with Store(path) as st:
        duel = st.create_duel("bench: memory")
        for i in range(0, len(events), 1000):
            st.append(duel, events[i:i + 1000])
    return duel, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small duel, one round: does it run (CI)")
    parser.add_argument("--events", type=int, help="events in the duel (default 100,000; quick 3,000)")
    parser.add_argument("--rounds", type=int, help="rounds of processes (default 3; quick 1)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--child", nargs=4, metavar=("WORK", "METHOD", "STORE", "DUEL"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        work, method, path, duel = args.child
        print(json.dumps(child(work, method, path, duel)))
        return 0
    sys.stdout.reconfigure(line_buffering=True)
    n_events = args.events or (3_000 if args.quick else 100_000)
    rounds = args.rounds or (1 if args.quick else 3)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(Path(__file__).resolve().parent.parent), os.environ.get("PYTHONPATH")) if p)}
    with tempfile.TemporaryDirectory(prefix="ygoreplay-bench-memory-") as tmp:
        path = os.path.join(tmp, "duels.sqlite")
        duel, took = record(path, n_events, args.seed)
        print(f"one synthetic legal duel of {n_events:,} events (seed {args.seed}) recorded in {took:.1f} s "
              f"({os.path.getsize(path) / n_events:,.0f} B an event in the store file)")
        peaks: dict[tuple[str, str], list[float]] = {}
        ratios: dict[tuple[str, str], list[float]] = {}
        for r in range(rounds):
            for method in ("rss", "traced"):
                order = WORKS[r % len(WORKS):] + WORKS[:r % len(WORKS)]
                got = {}
                for work in order:
                    done = subprocess.run([sys.executable, __file__, "--child", work, method, path, duel],
                                          env=env, capture_output=True, text=True, check=True)
                    result = json.loads(done.stdout)
                    got[work] = result["peak"] / result["events"]
                    peaks.setdefault((work, method), []).append(got[work])
                for work in WORKS:
                    ratios.setdefault((work, method), []).append(got[work] / got["decode"])
    print(f"{rounds} round(s) of fresh processes, interleaved; peak added by each, bytes an event "
          f"(median), and its ratio to decoding the records in the same round")
    for method, what in (("rss", "resident (VmHWM)"), ("traced", "Python allocations (tracemalloc)")):
        print(f"  {what}:")
        for work in WORKS:
            ratio = statistics.median(ratios[(work, method)])
            limit = "" if work == "decode" else f"  (limit {LIMIT:g}x: {ratio / LIMIT:.2f} of its limit)"
            print(f"    {work:<16} {statistics.median(peaks[(work, method)]):>7,.0f} B an event  "
                  f"{ratio:.2f}x decode{limit}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
