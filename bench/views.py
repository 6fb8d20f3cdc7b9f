"""What a view step costs (issue 25, SSE followers' lag): every follower's view of a live duel
is redacted, folded, described and drawn event by event (``live.LiveView.feed``), so a step is
what each view of a duel costs the service per event.

Prints CPU µs a step (``time.process_time``) over the sample duels (``replays/*.jsonl``) and the
real EDOPro duels of ``--real-dir`` (imported with ``ygoreplay.yrpx``) and synthetic duels
(``bench/synthetic.py``: the service bench's, 30 events each, and a long one), for the player
views and the spectator's: the whole step, the redaction alone and the board. With ``--before DIR`` (a checkout of another tree) both
trees run side by side in one process, duel by duel and view by view in alternating order, and
``--equivalence`` compares, for every event of every duel and view, everything the two trees' views
give (the redacted event, its disclosures, renames, commitments and passcodes, the step as sent,
its frame and the whole board after it, and the frames a delayed follower is sent) byte for byte.
"""
from __future__ import annotations

import argparse
import importlib
import io
import json
import pickle
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from fold import _AsBefore, load_before, real_duels
from synthetic import DB, generate

from ygoreplay.cards import CardDB
from ygoreplay.jsonl import read_events

ROOT = Path(__file__).resolve().parent.parent
VIEWERS = ("p0", "p1", "spectator")
SECRET = b"bench/views.py secret, 32 bytes"
STAMP = "2024-05-01T12:00:00+00:00"
TARGET = 1 / 3                                  # issue 25: a view step at most a third of its CPU


def duels(folder: Path | None, real: int | None, synthetic: int, long: int) -> list[tuple[str, list, CardDB]]:
    """(name, events, card facts) of the sample duels, ``synthetic`` duels of 30 events (as the
    service bench records them) and one of ``long``, and the first ``real`` real ones."""
    out = [(p.stem, read_events(p), CardDB.classic())
           for p in sorted((ROOT / "replays").glob("*.jsonl")) if ".public" not in p.name]
    out += [(f"synthetic {seed}", generate(30, seed), DB) for seed in range(synthetic)]
    if long:
        out.append((f"synthetic, {long} events", generate(long, 1), DB))
    if folder is not None and real != 0:
        found, _ = real_duels(folder, real)
        out += [(f"real {i}", d.events, d.cards) for i, d in enumerate(found)]
    return out


class Tree:
    """One tree's ``LiveView`` and ``Record``, and each duel's events and facts as it builds them."""

    def __init__(self, package: str) -> None:
        self.live = importlib.import_module(f"{package}.live")
        self.board = importlib.import_module(f"{package}.board").board
        self.redactor = importlib.import_module(f"{package}.views").Redactor
        # The board's time in ``feed``s so far: wall time, which costs 0.04 µs to read (CPU time
        # costs 3 µs a reading: twice a step would weigh on the step's own figure).
        self.drawing = 0.0
        board, clock = self.board, time.perf_counter

        def timed(state: Any) -> dict:
            start = clock()
            try:
                return board(state)
            finally:
                self.drawing += clock() - start
        self.live.board = timed
        self.record = importlib.import_module(f"{package}.store").Record
        self.from_dict = importlib.import_module(f"{package}.events").from_dict
        self.package = package

    def own(self, events: list, cards: CardDB) -> tuple[list, CardDB]:
        if self.package == "ygoreplay":
            return events, cards
        return [self.from_dict(e.to_dict()) for e in events], _AsBefore(io.BytesIO(pickle.dumps(cards))).load()

    def records(self, events: list) -> list:
        return [self.record(i, e, STAMP, b"", b"") for i, e in enumerate(events)]

    def feed(self, view: str, cards: CardDB, records: list) -> tuple[Any, float]:
        live = self.live.LiveView(view, cards, SECRET)
        start = time.process_time()
        for record in records:
            live.feed(record)
        return live, time.process_time() - start

    def redact(self, view: str, cards: CardDB, records: list) -> float:
        """CPU of the redaction alone (``Redactor.feed``: the full record's fold and ``_learn``)."""
        redactor = self.redactor(cards, view, SECRET)
        start = time.process_time()
        for record in records:
            redactor.feed(record.event)
        return time.process_time() - start


def dump(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, default=repr).replace("ygoreplay_before", "ygoreplay").encode()


def outputs(tree: Tree, view: str, cards: CardDB, records: list) -> list[bytes]:
    """Everything the view gives at each event, and the frames a delayed follower gets."""
    live = tree.live.LiveView(view, cards, SECRET)
    out = []
    for record in records:
        live.feed(record)
        step, redaction = live.steps[-1], live.redactor.redaction
        out.append(dump([step.to_dict(), step.frame(), live.last_board, tree.board(live.fold._history.state),
                         redaction.events[-1].to_dict(), redaction.disclosures, redaction.renames,
                         redaction.commitments, sorted(redaction.codes), redaction.decklist]))
    count = len(records)
    for start, stop in ((0, None), (count // 2, None), (count // 3, 2 * count // 3), (count - 1, count)):
        out.append(dump(live.frames(start, stop)))
    return out


def equivalence(trees: list[Tree], found: list) -> int:
    """Counts of identical and differing outputs, duel by duel; 1 when any differ."""
    same = differ = 0
    for name, events, cards in found:
        got = []
        for tree in trees:
            own_events, own_cards = tree.own(events, cards)
            records = tree.records(own_events)
            got.append({view: outputs(tree, view, own_cards, records) for view in VIEWERS})
        for view in VIEWERS:
            a, b = got[0][view], got[1][view]
            bad = [i for i, (x, y) in enumerate(zip(a, b)) if x != y] + ([-1] if len(a) != len(b) else [])
            same += len(a) - len(bad)
            differ += len(bad)
            if bad:
                print(f"  DIFFERENT {name} {view}: outputs {bad[:10]}")
    print(f"equivalence: {len(found)} duels x {len(VIEWERS)} views: {same} outputs identical, {differ} different")
    return 1 if differ else 0


def group(name: str) -> str:
    return ("real duels" if name.startswith("real") else "synthetic, 30 events" if name.startswith("synthetic ")
            else "synthetic, long" if name.startswith("synthetic,") else "samples")


def timing(trees: list[Tree], found: list, rounds: int) -> None:
    groups = [group(name) for name, _, _ in found]
    prepared = [[(tree.own(events, cards)) for tree in trees] for _, events, cards in found]
    prepared = [[(cards, tree.records(events)) for tree, (events, cards) in zip(trees, duel)] for duel in prepared]
    steps = sum(len(duel[0][1]) for duel in prepared) * len(VIEWERS)
    per_round: dict[str, list[list[float]]] = {"view step": [], "redaction": [], "board": []}
    by_group: dict[str, list[list[float]]] = {name: [] for name in dict.fromkeys(groups)}
    group_steps = {name: sum(len(duel[0][1]) for duel, g in zip(prepared, groups) if g == name) * len(VIEWERS)
                   for name in by_group}
    for r in range(rounds):
        spent = {part: [0.0] * len(trees) for part in per_round}
        grouped = {name: [0.0] * len(trees) for name in by_group}
        for tree in trees:
            tree.drawing = 0.0
        for d, duel in enumerate(prepared):
            for v, view in enumerate(VIEWERS):
                order = list(range(len(trees))) if (r + d + v) % 2 == 0 else list(reversed(range(len(trees))))
                for t in order:
                    took = trees[t].feed(view, *duel[t])[1]
                    spent["view step"][t] += took
                    grouped[groups[d]][t] += took
                for t in reversed(order):
                    spent["redaction"][t] += trees[t].redact(view, *duel[t])
        spent["board"] = [tree.drawing for tree in trees]
        for part, figures in spent.items():
            per_round[part].append([s / steps * 1e6 for s in figures])
        for name, figures in grouped.items():
            by_group[name].append([s / group_steps[name] * 1e6 for s in figures])
    print(f"view steps: {len(found)} duels x {len(VIEWERS)} views = {steps} steps a round, {rounds} rounds "
          f"(CPU; the board: wall time inside the steps)")
    for part, rounds_ in per_round.items():
        for t, tree in enumerate(trees):
            figures = sorted(round_[t] for round_ in rounds_)
            print(f"  {part:10} {tree.package:17} {statistics.median(figures):8.1f} us a step "
                  f"(rounds {figures[0]:.1f}-{figures[-1]:.1f})")
        if len(trees) == 2:
            ratios = sorted(round_[0] / round_[1] for round_ in rounds_)
            target = f" ({'met' if statistics.median(ratios) <= TARGET else 'NOT met'}: target {TARGET:.3f})" \
                if part == "view step" else ""
            print(f"  {part:10} this tree / before: {statistics.median(ratios):.3f} "
                  f"(rounds {ratios[0]:.3f}-{ratios[-1]:.3f}){target}")
    for name, rounds_ in by_group.items():
        figures = [f"{tree.package} {statistics.median(round_[t] for round_ in rounds_):.1f} us"
                   for t, tree in enumerate(trees)]
        ratio = (f", this tree / before {statistics.median(round_[0] / round_[1] for round_ in rounds_):.3f}"
                 if len(trees) == 2 else "")
        print(f"  view step, {name} ({group_steps[name]} steps): {', '.join(figures)}{ratio}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CPU a view step, and its equivalence with another tree")
    parser.add_argument("--quick", action="store_true", help="the samples and 2 real duels, 1 round")
    parser.add_argument("--real-dir", type=Path, help="a folder of real EDOPro replays (.yrpX)")
    parser.add_argument("--real", type=int, help="how many of them (default all; quick 2)")
    parser.add_argument("--synthetic", type=int, help="synthetic duels of 30 events (default 10; quick 2)")
    parser.add_argument("--long", type=int, help="events of a long synthetic duel (default 1,000; quick 200; 0: none)")
    parser.add_argument("-r", "--rounds", type=int, help="rounds (the median is shown; default 5, quick 1)")
    parser.add_argument("--before", type=Path, help="a checkout of the tree to compare with")
    parser.add_argument("--equivalence", action="store_true", help="compare every output with --before's")
    args = parser.parse_args(argv)
    real = args.real if args.real is not None else (2 if args.quick else None)
    rounds = args.rounds or (1 if args.quick else 5)
    trees = [Tree("ygoreplay")]
    if args.before is not None:
        load_before(args.before)
        trees.append(Tree("ygoreplay_before"))
    found = duels(args.real_dir, real, args.synthetic if args.synthetic is not None else (2 if args.quick else 10),
                  args.long if args.long is not None else (200 if args.quick else 1000))
    if args.equivalence:
        if len(trees) != 2:
            parser.error("--equivalence needs --before")
        return equivalence(trees, found)
    timing(trees, found, rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
