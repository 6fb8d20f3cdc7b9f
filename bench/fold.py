"""How fast the rules fold is, next to msgpack decoding of the same events.

Run from the repository root::

    python bench/fold.py                 # 10,000 events, 7 repetitions
    python bench/fold.py -n 50000 -r 5
    python bench/fold.py --profile       # cProfile of the fold, top 25 functions by tottime
    python bench/fold.py --real          # the real EDOPro duels of ../shared/real-replays/edopro instead
    python bench/fold.py --quick         # a few seconds: does it run (CI)

The events are a synthetic legal duel (``bench/synthetic.py``), or with ``--real [FOLDER]`` every
EDOPro replay of the folder, imported once beforehand (not timed), each folded into a state of its
own with its own card facts. Three figures, each the median of
``--repeat`` runs timed with ``time.perf_counter``:

(a) decode:     ``msgpack.unpackb`` over one record per event, as a store keeps them
                (``msgpack.packb(event.to_dict())``);
(b) fold:       ``apply`` with every rule check over already-built event objects, into a fresh
                ``DuelState``;
(c) end to end: ``unpackb`` + ``from_trusted_dict`` + ``apply`` per record, as the store reads back
                its own records once their hash chain holds; and the same with ``from_dict``, as a
                file from elsewhere is read (every field checked).

Also shown, for the breakdown: ``from_dict`` and ``from_trusted_dict`` alone over already-decoded
dicts. The ratio fold/decode is (b)'s events/s over (a)'s, end to end (c)'s over (a)'s; the targets
(issue 25, on the real duels) are at least 0.5 and 0.3 (the store's path), each printed as a
fraction of its target. Each duel's stages run back to back
(a, from_dict, b, c), duel after duel, and what a stage made is dropped before the next, so machine
load affects all figures alike and no stage pays another's page faults; the ratios are the median
of the per-run ratios, with their spread (lowest-highest) over the runs. ``--quick`` (1,000 events,
3 runs; with ``--real`` the first 10 duels) checks that the script runs. Nothing here asserts on timing.
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
from ygoreplay.events import Event, from_dict, from_trusted_dict  # noqa: E402
from ygoreplay.rules import apply  # noqa: E402
from ygoreplay.state import DuelState  # noqa: E402

FOLD_TARGET, END_TO_END_TARGET = 0.5, 0.3       # ratios to msgpack decoding (issue 25)
REAL = Path(__file__).resolve().parent.parent.parent / "shared" / "real-replays" / "edopro"


class Duel:
    """One duel's events, their card facts and one msgpack record per event."""

    def __init__(self, events: list[Event], cards: CardDB) -> None:
        self.events, self.cards = events, cards
        self.records = [msgpack.packb(e.to_dict()) for e in events]
        self.dicts = [msgpack.unpackb(r) for r in self.records]


def decode(duel: Duel) -> list:
    unpackb = msgpack.unpackb
    return [unpackb(r) for r in duel.records]


def build(duel: Duel) -> list:
    return [from_dict(d) for d in duel.dicts]


def build_trusted(duel: Duel) -> list:
    return [from_trusted_dict(d) for d in duel.dicts]


def fold(duel: Duel) -> DuelState:
    state = DuelState(duel.cards)
    for e in duel.events:
        apply(state, e)
    return state


def end_to_end(event_of: Callable[[dict], Event]) -> Callable[[Duel], DuelState]:
    """(c) with ``event_of`` building each event: ``from_trusted_dict`` (the store's own records)
    or ``from_dict`` (a file from elsewhere)."""
    def run(duel: Duel) -> DuelState:
        unpackb = msgpack.unpackb
        state = DuelState(duel.cards)
        for r in duel.records:
            apply(state, event_of(unpackb(r)))
        return state
    return run


STAGES: dict[str, Callable[[Duel], object]] = {
    "decode": decode, "from_dict": build, "trusted": build_trusted, "fold": fold,
    "e2e": end_to_end(from_trusted_dict), "e2e_checked": end_to_end(from_dict)}


def timed(duels: list[Duel], repeat: int) -> dict[str, list[float]]:
    """Each stage's wall time over all duels, ``repeat`` times. The stages of one duel run back
    to back (a, from_dict, b, c), duel after duel, so a change in machine load hits every figure
    alike, and what a stage made is dropped before the next starts: no stage pays for page faults
    of memory another stage freed (keeping every duel's decoded dicts alive to the end of the
    decode stage made its baseline twice as slow and the ratio swing 0.3-0.8). The duels' own data
    is frozen out of the collector; garbage collection stays on, as in normal use."""
    gc.collect()
    gc.freeze()
    times: dict[str, list[float]] = {name: [] for name in STAGES}
    try:
        for _ in range(repeat):
            total = dict.fromkeys(STAGES, 0.0)
            for duel in duels:
                for name, stage in STAGES.items():
                    gc.collect()
                    start = time.perf_counter()
                    made = stage(duel)
                    total[name] += time.perf_counter() - start
                    del made
            for name, took in total.items():
                times[name].append(took)
    finally:
        gc.unfreeze()
    return times


def real_duels(folder: Path, limit: int | None = None) -> tuple[list[Duel], int]:
    """Every replay of the folder (the first ``limit``) that imports and folds without a violation
    (the fold stops at one), as imported (not timed); and how many were left out."""
    from ygoreplay.rules import RuleViolation
    from ygoreplay.yrpx import YrpxError, import_yrpx
    duels, left_out = [], 0
    for path in sorted(folder.glob("*.yrpX"))[:limit]:
        try:
            result = import_yrpx(path)
            duel = Duel(result.events, result.cards)
            fold(duel)
        except (YrpxError, RuleViolation):
            left_out += 1
            continue
        duels.append(duel)
    return duels, left_out


def profile_fold(duels: list[Duel], top: int = 25) -> None:
    for duel in duels:                                 # warm up
        fold(duel)
    profiler = cProfile.Profile()
    profiler.enable()
    for duel in duels:
        fold(duel)
    profiler.disable()
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.sort_stats("tottime").print_stats(top)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="fold vs msgpack decode benchmark")
    parser.add_argument("-n", "--events", type=int, help="events in the synthetic duel (default 10,000; quick 1,000)")
    parser.add_argument("-r", "--repeat", type=int, help="repetitions (the median is shown; default 7, quick 3)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, to check that it runs (CI)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", action="store_true", help="cProfile the fold (top 25 by tottime)")
    parser.add_argument("--mix", action="store_true", help="print the event-kind mix")
    parser.add_argument("--real", nargs="?", const=str(REAL), default=None, metavar="FOLDER",
                        help="fold the real EDOPro duels of FOLDER (default ../shared/real-replays/edopro)")
    args = parser.parse_args(argv)
    n_events = args.events or (1_000 if args.quick else 10_000)
    repeat = args.repeat or (3 if args.quick else 7)

    if args.real:
        duels, left_out = real_duels(Path(args.real), 10 if args.quick else None)
        if not duels:
            print(f"no importable .yrpX replays in {args.real}")
            return 1
        events = [e for duel in duels for e in duel.events]
    else:
        duels = [Duel(generate(n_events, args.seed), DB)]
        events = duels[0].events
    n = len(events)
    assert all(build(duel) == build_trusted(duel) == duel.events for duel in duels), \
        "msgpack round trip changed an event"
    final = fold(duels[-1])
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

    times = timed(duels, repeat)
    rate = {name: n / statistics.median(ts) for name, ts in times.items()}
    print(f"median of {repeat} runs, each duel's stages back to back, Python {sys.version.split()[0]}, "
          f"msgpack {msgpack.version}")
    print(f"  (a) msgpack decode        {rate['decode']:12,.0f} events/s   {1e6 / rate['decode']:7.2f} us/event")
    print(f"      from_dict (dict->Event) {rate['from_dict']:10,.0f} events/s   {1e6 / rate['from_dict']:7.2f} us/event")
    print(f"      from_trusted_dict       {rate['trusted']:10,.0f} events/s   {1e6 / rate['trusted']:7.2f} us/event")
    print(f"  (b) fold (apply, checked) {rate['fold']:12,.0f} events/s   {1e6 / rate['fold']:7.2f} us/event")
    print(f"  (c) decode+trusted+fold   {rate['e2e']:12,.0f} events/s   {1e6 / rate['e2e']:7.2f} us/event")
    print(f"      decode+from_dict+fold {rate['e2e_checked']:12,.0f} events/s   {1e6 / rate['e2e_checked']:7.2f} us/event")
    for label, name, target in (("fold/decode ratio", "fold", FOLD_TARGET),
                                ("end-to-end/decode ratio", "e2e", END_TO_END_TARGET),
                                ("  the same, checked", "e2e_checked", None)):
        ratios = sorted(d / t for d, t in zip(times["decode"], times[name]))
        median = statistics.median(ratios)
        verdict = "" if target is None else (
            f"   ({median / target:.2f} of the {target}x target: {'met' if median >= target else 'BELOW'})")
        print(f"  {label:25} {median:12.3f}   spread {ratios[0]:.3f}-{ratios[-1]:.3f} over {repeat} runs{verdict}")
    spread = min(times["decode"]) / max(times["decode"])
    if spread < 0.7:
        print(f"  note: decode times varied {1 / spread:.1f}x between runs: the machine is busy, "
              "compare ratios rather than absolute rates")

    if args.profile:
        print("\ncProfile of the fold (b), top 25 by tottime:")
        profile_fold(duels)
    return 0


if __name__ == "__main__":
    sys.exit(main())
