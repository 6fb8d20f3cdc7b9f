"""How fast the rules fold is, next to msgpack decoding of the same events.

Run from the repository root::

    python bench/fold.py                 # 10,000 events, 7 repetitions
    python bench/fold.py -n 50000 -r 5
    python bench/fold.py --profile       # cProfile of the fold, top 25 functions by tottime
    python bench/fold.py --real          # the real EDOPro duels of ../shared/real-replays/edopro instead
    python bench/fold.py --real --kinds  # also each event kind's cost and share of the fold
    python bench/fold.py --real --before ../before   # also another checkout's fold, interleaved with this one's
    python bench/fold.py --quick         # a few seconds: does it run (CI)

The events are a synthetic legal duel (``bench/synthetic.py``), or with ``--real [FOLDER]`` every
EDOPro replay of the folder, imported once beforehand (not timed), each folded into a state of its
own with its own card facts. Three figures, each the median of
``--repeat`` runs timed in CPU time (``time.process_time``: on the shared machine a run's wall
time moves ±50% with the others' load, its CPU time ±3%):

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

``--before DIR`` imports the ``ygoreplay`` of another checkout (the tree before a change) beside
this one, as ``ygoreplay_before`` (a copy whose imports name it so), builds each duel's events
and card facts with it too, and times its ``from_dict``, ``from_trusted_dict``, fold and end to end (c, both ways) in the
same loop, right after this tree's: each ratio is printed for both trees, and each stage's time
over the other tree's.
``--kinds`` times each event on its own (CPU time of the thread, the clock's own cost taken
off) and prints each kind's cost an event and share of the fold, for each tree.
"""
from __future__ import annotations

import argparse
import cProfile
import collections
import gc
import importlib
import io
import pickle
import pstats
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

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
    """One duel's events, their card facts and one msgpack record per event (and, with
    ``--before``, the same events and facts as the tree before builds them: ``before``)."""

    def __init__(self, events: list[Event], cards: CardDB) -> None:
        self.events, self.cards = events, cards
        self.records = [msgpack.packb(e.to_dict()) for e in events]
        self.dicts = [msgpack.unpackb(r) for r in self.records]
        self.before: tuple[list, Any] | None = None


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


def load_before(folder: Path) -> Any:
    """The ``ygoreplay`` package of another checkout, imported as ``ygoreplay_before``: a copy
    of it in a temporary folder whose imports of ``ygoreplay`` name ``ygoreplay_before``."""
    copy = Path(tempfile.mkdtemp(prefix="fold-before-")) / "ygoreplay_before"
    shutil.copytree(folder / "ygoreplay", copy, ignore=shutil.ignore_patterns("__pycache__"))
    for path in copy.rglob("*.py"):
        path.write_text(re.sub(r"\bygoreplay(?=[. ])", "ygoreplay_before", path.read_text()))
    sys.path.insert(0, str(copy.parent))
    return importlib.import_module("ygoreplay_before")


class _AsBefore(pickle.Unpickler):
    """Card facts of this tree unpickled as the tree before's classes."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "ygoreplay" or module.startswith("ygoreplay."):
            module = "ygoreplay_before" + module[len("ygoreplay"):]
        return super().find_class(module, name)


def add_before(duels: list[Duel]) -> None:
    """Each duel's events and card facts as the tree before builds them (its ``from_dict`` of
    the same records), and its stages (its builds, fold and end to end), after this tree's."""
    before = importlib.import_module("ygoreplay_before.events")
    rules = importlib.import_module("ygoreplay_before.rules")
    state = importlib.import_module("ygoreplay_before.state")
    for duel in duels:
        duel.before = ([before.from_dict(d) for d in duel.dicts],
                       _AsBefore(io.BytesIO(pickle.dumps(duel.cards))).load())
    apply_before, state_before = rules.apply, state.DuelState
    trusted_before, checked_before = before.from_trusted_dict, before.from_dict

    def fold_before(duel: Duel) -> object:
        events, cards = duel.before
        folded = state_before(cards)
        for e in events:
            apply_before(folded, e)
        return folded

    def e2e_of(event_of: Callable[[dict], Any]) -> Callable[[Duel], object]:
        def run(duel: Duel) -> object:
            unpackb = msgpack.unpackb
            folded = state_before(duel.before[1])
            for r in duel.records:
                apply_before(folded, event_of(unpackb(r)))
            return folded
        return run

    STAGES.update(from_dict_before=lambda duel: [checked_before(d) for d in duel.dicts],
                  trusted_before=lambda duel: [trusted_before(d) for d in duel.dicts],
                  fold_before=fold_before, e2e_before=e2e_of(trusted_before),
                  e2e_checked_before=e2e_of(checked_before))


def timed(duels: list[Duel], repeat: int) -> dict[str, list[float]]:
    """Each stage's CPU time over all duels, ``repeat`` times. The stages of one duel run back
    to back (a, from_dict, b, c), duel after duel, so a change in machine load hits every figure
    alike, and what a stage made is dropped before the next starts: no stage pays for page faults
    of memory another stage freed (keeping every duel's decoded dicts alive to the end of the
    decode stage made its baseline twice as slow and the ratio swing 0.3-0.8). With ``--before``
    the two trees' stages swap places every other run. The duels' own data is frozen out of the
    collector; garbage collection stays on, as in normal use."""
    gc.collect()
    gc.freeze()
    times: dict[str, list[float]] = {name: [] for name in STAGES}
    clock = time.process_time
    try:
        for run in range(repeat):
            total = dict.fromkeys(STAGES, 0.0)
            order = list(STAGES.items())
            if run % 2 and "fold_before" in STAGES:
                order.sort(key=lambda stage: stage[0].endswith("_before"), reverse=True)
            for duel in duels:
                for name, stage in order:
                    gc.collect()
                    start = clock()
                    made = stage(duel)
                    total[name] += clock() - start
                    del made
            for name, took in total.items():
                times[name].append(took)
    finally:
        gc.unfreeze()
    return times


def by_kind(duels: list[Duel], repeat: int, before: bool) -> None:
    """Each event kind's cost an event and share of the fold, each event timed on its own (the
    thread's CPU time, less the clock's own cost), both trees duel by duel with ``before``."""
    clock = time.thread_time_ns
    start = clock()
    for _ in range(100_000):
        clock()
    overhead = (clock() - start) / 100_000
    trees = {"this tree": (apply, DuelState, lambda duel: (duel.events, duel.cards))}
    if before:
        rules = importlib.import_module("ygoreplay_before.rules")
        state = importlib.import_module("ygoreplay_before.state")
        trees["before"] = (rules.apply, state.DuelState, lambda duel: duel.before)
    spent = {tree: collections.Counter() for tree in trees}
    count: collections.Counter[str] = collections.Counter()
    for _ in range(repeat):
        for duel in duels:
            for tree, (apply_, state_, of) in trees.items():
                events, cards = of(duel)
                folded = state_(cards)
                for e in events:
                    start = clock()
                    apply_(folded, e)
                    spent[tree][e.kind] += clock() - start - overhead
                    if tree == "this tree":
                        count[e.kind] += 1
    totals = {tree: sum(kinds.values()) for tree, kinds in spent.items()}
    print(f"\nthe fold by event kind, each event timed alone ({repeat} runs; us an event and share of the fold"
          f"{', the tree before first' if before else ''}):")
    for kind, took in spent["this tree"].most_common():
        here = f"{took / count[kind] / 1000:7.2f} us {100 * took / totals['this tree']:5.1f}%"
        if before:
            was = spent["before"][kind]
            here = f"{was / count[kind] / 1000:7.2f} us {100 * was / totals['before']:5.1f}% -> {here}"
        print(f"  {kind:22} {count[kind] // repeat:6}  {here}")


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
    parser.add_argument("--before", metavar="DIR", help="also time the fold of the checkout DIR's ygoreplay, "
                                                        "interleaved with this one's")
    parser.add_argument("--kinds", action="store_true", help="each event kind's cost and share of the fold")
    args = parser.parse_args(argv)
    if args.before:
        load_before(Path(args.before))
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

    if args.before:
        add_before(duels)
    times = timed(duels, repeat)
    rate = {name: n / statistics.median(ts) for name, ts in times.items()}
    print(f"median of {repeat} runs, CPU time, each duel's stages back to back, Python {sys.version.split()[0]}, "
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
    if args.before:
        print(f"  the tree before ({args.before}) in the same runs, before -> this tree:")
        for label, name in (("fold/decode ratio", "fold"), ("end-to-end/decode ratio", "e2e"),
                            ("  the same, checked", "e2e_checked")):
            was, now = ([d / t for d, t in zip(times["decode"], times[stage])] for stage in (name + "_before", name))
            print(f"    {label:23} {statistics.median(was):.3f} -> {statistics.median(now):.3f}   "
                  f"(runs: {min(was):.3f}-{max(was):.3f} -> {min(now):.3f}-{max(now):.3f})")
        for label, name in (("from_dict", "from_dict"), ("from_trusted_dict", "trusted"), ("fold", "fold"),
                            ("end to end", "e2e"), ("  the same, checked", "e2e_checked")):
            ratios = sorted(t / b for t, b in zip(times[name], times[name + "_before"]))
            print(f"    {label:23} takes {statistics.median(ratios):.3f} of the tree before's time "
                  f"(runs {ratios[0]:.3f}-{ratios[-1]:.3f})")
    spread = min(times["decode"]) / max(times["decode"])
    if spread < 0.7:
        print(f"  note: decode times varied {1 / spread:.1f}x between runs: the machine is busy, "
              "compare ratios rather than absolute rates")

    if args.kinds:
        by_kind(duels, min(repeat, 5), bool(args.before))
    if args.profile:
        print("\ncProfile of the fold (b), top 25 by tottime:")
        profile_fold(duels)
    return 0


if __name__ == "__main__":
    sys.exit(main())
