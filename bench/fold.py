"""How fast the rules fold is, next to msgpack decoding of the same events.

Run from the repository root::

    python bench/fold.py                 # 10,000 events, 7 repetitions
    python bench/fold.py -n 50000 -r 5
    python bench/fold.py --profile       # cProfile of the fold, top 25 functions by tottime

The events are a synthetic legal duel (``bench/synthetic.py``). Three figures, each the median of
``--repeat`` runs timed with ``time.perf_counter``:

(a) decode:     ``msgpack.unpackb`` over one record per event, as a store keeps them
                (``msgpack.packb(event.to_dict())``);
(b) fold:       ``apply`` with every rule check over already-built event objects, into a fresh
                ``DuelState``;
(c) end to end: ``unpackb`` + ``from_dict`` + ``apply`` per record.

Also shown, for the breakdown: ``from_dict`` alone over already-decoded dicts. The ratio fold/decode
is (b)'s events/s over (a)'s; the target is at least 0.25. The runs are interleaved (a b c a b c ...)
so machine load affects all figures alike; the median of the per-run ratios is shown too. Nothing
here asserts on timing.
"""
from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import DB, chain_lengths, generate, kind_mix  # noqa: E402

from ygoreplay.events import Event, from_dict  # noqa: E402
from ygoreplay.rules import apply  # noqa: E402
from ygoreplay.state import DuelState  # noqa: E402

TARGET = 0.25


def timed(runs: dict[str, Callable[[], object]], repeat: int) -> dict[str, list[float]]:
    """Wall times of each run, ``repeat`` times, interleaved (a, b, c, a, b, c, ...) so that a
    change in machine load hits every figure alike. Garbage collection stays on, as in normal use."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            gc.collect()
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return times


def decode_all(records: list[bytes]) -> list:
    unpackb = msgpack.unpackb
    return [unpackb(r) for r in records]


def build_all(dicts: list[dict]) -> list[Event]:
    return [from_dict(d) for d in dicts]


def fold_all(events: list[Event]) -> DuelState:
    state = DuelState(DB)
    for e in events:
        apply(state, e)
    return state


def end_to_end(records: list[bytes]) -> DuelState:
    unpackb = msgpack.unpackb
    state = DuelState(DB)
    for r in records:
        apply(state, from_dict(unpackb(r)))
    return state


def profile_fold(events: list[Event], top: int = 25) -> None:
    fold_all(events)                                   # warm up
    profiler = cProfile.Profile()
    profiler.enable()
    fold_all(events)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.sort_stats("tottime").print_stats(top)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="fold vs msgpack decode benchmark")
    parser.add_argument("-n", "--events", type=int, default=10_000, help="events in the synthetic duel")
    parser.add_argument("-r", "--repeat", type=int, default=7, help="repetitions (the median is shown)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="cProfile the fold (top 25 by tottime)")
    parser.add_argument("--mix", action="store_true", help="print the event-kind mix")
    args = parser.parse_args(argv)

    events = generate(args.events, args.seed)
    n = len(events)
    records = [msgpack.packb(e.to_dict()) for e in events]
    dicts = decode_all(records)
    assert build_all(dicts) == events, "msgpack round trip changed an event"
    final = fold_all(events)
    print(f"synthetic duel: {n} events (seed {args.seed}), {final.turn} turns, "
          f"{sum(map(len, records)) / n:.1f} bytes/record; chains by length "
          f"{dict(sorted(chain_lengths(events).items()))}")
    if args.mix:
        for kind, count in kind_mix(events).most_common():
            print(f"  {kind:22} {count:6}  {100 * count / n:5.1f}%")

    times = timed({"decode": lambda: decode_all(records), "from_dict": lambda: build_all(dicts),
                   "fold": lambda: fold_all(events), "e2e": lambda: end_to_end(records)}, args.repeat)
    rate = {name: n / statistics.median(ts) for name, ts in times.items()}
    print(f"median of {args.repeat} runs, Python {sys.version.split()[0]}, msgpack {msgpack.version}")
    print(f"  (a) msgpack decode        {rate['decode']:12,.0f} events/s   {1e6 / rate['decode']:7.2f} us/event")
    print(f"      from_dict (dict->Event) {rate['from_dict']:10,.0f} events/s   {1e6 / rate['from_dict']:7.2f} us/event")
    print(f"  (b) fold (apply, checked) {rate['fold']:12,.0f} events/s   {1e6 / rate['fold']:7.2f} us/event")
    print(f"  (c) decode+from_dict+fold {rate['e2e']:12,.0f} events/s   {1e6 / rate['e2e']:7.2f} us/event")
    ratio = rate["fold"] / rate["decode"]
    paired = statistics.median(d / f for d, f in zip(times["decode"], times["fold"]))
    spread = min(times["decode"]) / max(times["decode"])
    verdict = "meets" if ratio >= TARGET else "BELOW"
    print(f"  fold/decode ratio         {ratio:12.3f}   ({verdict} the {TARGET}x target); "
          f"median of per-run ratios {paired:.3f}")
    if spread < 0.7:
        print(f"  note: decode times varied {1 / spread:.1f}x between runs: the machine is busy, "
              "compare ratios rather than absolute rates")

    if args.profile:
        print("\ncProfile of the fold (b), top 25 by tottime:")
        profile_fold(events)
    return 0


if __name__ == "__main__":
    sys.exit(main())
