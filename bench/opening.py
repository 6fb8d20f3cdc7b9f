"""What a duel's opening costs: the rules' fold of its first events, and a spectator view's first step.

Run from the repository root::

    python bench/opening.py                       # this tree
    python bench/opening.py --before ../before    # and another checkout, interleaved, with ratios
    python bench/opening.py --quick               # a few seconds: does it run (CI)

A duel's first events set the tails of the store's appends and of the live followers (issue 25:
100-1,000 duels start at once). Figures, each a median of CPU time (``time.thread_time``) a duel,
for the real EDOPro duels of ``../shared/real-replays/edopro`` (``duel_started`` and both
``deck_registered``) and the synthetic duels' ``position_set_up`` (``bench/synthetic.py``, 120
cards): ``fold``, those events applied to a fresh state; ``redact``, the same fed to a fresh
spectator ``Redactor``; ``live``, fed to a fresh spectator ``LiveView`` (redaction, the view's
own fold, its line and board: what a service worker does for a duel's first follower). Each tree
runs in a process of its own, the trees alternating round after round. Nothing here asserts.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REAL = HERE.parent.parent / "shared" / "real-replays" / "edopro"
FIGURES = ("real fold", "real redact", "real live", "synthetic fold", "synthetic redact", "synthetic live")


def measure(duels: int, runs: int) -> dict[str, float]:
    """µs a duel for each figure, in this process (whose ``ygoreplay`` is the tree measured)."""
    sys.path.insert(0, str(HERE))
    import synthetic
    from ygoreplay.live import LiveView
    from ygoreplay.rules import apply
    from ygoreplay.state import DuelState
    from ygoreplay.store import Record
    from ygoreplay.views import Redactor
    from ygoreplay.yrpx import YrpxError, import_yrpx

    real = []
    for path in sorted(REAL.glob("*.yrpX"))[:duels]:
        try:
            result = import_yrpx(path)
        except YrpxError:
            continue
        real.append((result.events[:3], result.cards))
    made = [(synthetic.generate(120, seed)[:1], synthetic.DB) for seed in (1, 2, 3)]

    def fold(opening: list) -> None:
        for events, cards in opening:
            state = DuelState(cards)
            for event in events:
                apply(state, event)

    def redact(opening: list) -> None:
        for events, cards in opening:
            redactor = Redactor(cards, "spectator", b"k" * 32)
            for event in events:
                redactor.feed(event)

    def live(opening: list) -> None:
        for events, cards in opening:
            view = LiveView("spectator", cards, b"k" * 32)
            for index, event in enumerate(events):
                view.feed(Record(index, event, "2026-01-01T00:00:00Z", b"", b""))

    figures = {}
    for name, opening in (("real", real), ("synthetic", made)):
        for stage, run in (("fold", fold), ("redact", redact), ("live", live)):
            run(opening)                                   # warm up
            times = []
            for _ in range(runs):
                start = time.thread_time()
                run(opening)
                times.append((time.thread_time() - start) / len(opening) * 1e6)
            figures[f"{name} {stage}"] = statistics.median(times)
    return figures


def child(tree: Path, duels: int, runs: int) -> dict[str, float]:
    done = subprocess.run([sys.executable, __file__, "--child", str(duels), str(runs)], cwd=HERE.parent,
                          env={**os.environ, "PYTHONPATH": str(tree)},
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, help="another checkout, measured interleaved with this one")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="1 round, 10 real duels, 3 runs (CI)")
    parser.add_argument("--child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(*args.child)))
        return 0
    duels, runs, rounds = (10, 3, 1) if args.quick else (60, 15, args.rounds)
    trees = {"this tree": HERE.parent} | ({"before": args.before.resolve()} if args.before else {})
    got: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for _ in range(rounds):
        for name, tree in trees.items():
            got[name].append(child(tree, duels, runs))
    print(f"a duel's opening, µs of CPU a duel, median of {rounds} round(s) x {runs} runs")
    for figure in FIGURES:
        now = statistics.median(r[figure] for r in got["this tree"])
        line = f"  {figure:<17} {now:9.1f} us"
        if args.before:
            was = statistics.median(r[figure] for r in got["before"])
            ratios = [a[figure] / b[figure] for a, b in zip(got["this tree"], got["before"])]
            line += (f"   before {was:9.1f} us   this / before {statistics.median(ratios):.3f}"
                     f" (rounds {min(ratios):.3f}-{max(ratios):.3f})")
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
