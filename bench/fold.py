"""How fast the rules fold is, next to msgpack decoding of the same events.

Run from the repository root::

    python bench/fold.py                 # 10,000 events, 7 repetitions
    python bench/fold.py -n 50000 -r 5
    python bench/fold.py --profile       # cProfile of the fold, top 25 functions by tottime
    python bench/fold.py --real          # the real EDOPro duels of ../shared/real-replays/edopro instead

The events are a synthetic legal duel (``bench/synthetic.py``), or with ``--real [FOLDER]`` every
EDOPro replay of the folder, imported once beforehand (not timed), each folded into a state of its
own with its own card facts. Three figures, each the median of
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

from ygoreplay.cards import CardDB  # noqa: E402
from ygoreplay.events import Event, from_dict  # noqa: E402
from ygoreplay.rules import apply  # noqa: E402
from ygoreplay.state import DuelState  # noqa: E402

TARGET = 0.25
REAL = Path(__file__).resolve().parent.parent.parent / "shared" / "real-replays" / "edopro"


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


class Duel:
    """One duel's events, their card facts and one msgpack record per event."""

    def __init__(self, events: list[Event], cards: CardDB) -> None:
        self.events, self.cards = events, cards
        self.records = [msgpack.packb(e.to_dict()) for e in events]
        self.dicts = [msgpack.unpackb(r) for r in self.records]


def decode_all(duels: list[Duel]) -> list:
    unpackb = msgpack.unpackb
    return [[unpackb(r) for r in duel.records] for duel in duels]


def build_all(duels: list[Duel]) -> list:
    return [[from_dict(d) for d in duel.dicts] for duel in duels]


def fold_all(duels: list[Duel]) -> DuelState:
    for duel in duels:
        state = DuelState(duel.cards)
        for e in duel.events:
            apply(state, e)
    return state


def end_to_end(duels: list[Duel]) -> DuelState:
    unpackb = msgpack.unpackb
    for duel in duels:
        state = DuelState(duel.cards)
        for r in duel.records:
            apply(state, from_dict(unpackb(r)))
    return state


def real_duels(folder: Path) -> tuple[list[Duel], int]:
    """Every replay of the folder that imports and folds without a violation (the fold stops at
    one), as imported (not timed); and how many were left out."""
    from ygoreplay.rules import RuleViolation
    from ygoreplay.yrpx import YrpxError, import_yrpx
    duels, left_out = [], 0
    for path in sorted(folder.glob("*.yrpX")):
        try:
            result = import_yrpx(path)
            duel = Duel(result.events, result.cards)
            fold_all([duel])
        except (YrpxError, RuleViolation):
            left_out += 1
            continue
        duels.append(duel)
    return duels, left_out


def profile_fold(duels: list[Duel], top: int = 25) -> None:
    fold_all(duels)                                    # warm up
    profiler = cProfile.Profile()
    profiler.enable()
    fold_all(duels)
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
    parser.add_argument("--real", nargs="?", const=str(REAL), default=None, metavar="FOLDER",
                        help="fold the real EDOPro duels of FOLDER (default ../shared/real-replays/edopro)")
    args = parser.parse_args(argv)

    if args.real:
        duels, left_out = real_duels(Path(args.real))
        if not duels:
            print(f"no importable .yrpX replays in {args.real}")
            return 1
        events = [e for duel in duels for e in duel.events]
    else:
        duels = [Duel(generate(args.events, args.seed), DB)]
        events = duels[0].events
    n = len(events)
    assert build_all(duels) == [duel.events for duel in duels], "msgpack round trip changed an event"
    final = fold_all(duels)
    size = sum(len(r) for duel in duels for r in duel.records) / n
    if args.real:
        print(f"real duels: {len(duels)} from {args.real} ({left_out} left out: not importable, or a violation "
              f"stops the fold), {n} events, {size:.1f} bytes/record")
    else:
        print(f"synthetic duel: {n} events (seed {args.seed}), {final.turn} turns, {size:.1f} bytes/record; "
              f"chains by length {dict(sorted(chain_lengths(events).items()))}")
    if args.mix:
        for kind, count in kind_mix(events).most_common():
            print(f"  {kind:22} {count:6}  {100 * count / n:5.1f}%")

    times = timed({"decode": lambda: decode_all(duels), "from_dict": lambda: build_all(duels),
                   "fold": lambda: fold_all(duels), "e2e": lambda: end_to_end(duels)}, args.repeat)
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
        profile_fold(duels)
    return 0


if __name__ == "__main__":
    sys.exit(main())
