"""How big a replay file is: bytes per event of a judge ``.ygr`` against the same events as JSON
Lines and as plain msgpack, and (imported EDOPro replays) against the source ``.yrpX``.

Run from the repository root::

    python bench/size.py                  # the samples in replays/, then the EDOPro replays
    python bench/size.py --no-yrpx        # the samples only
    python bench/size.py --yrpx DIR       # .yrpX files from DIR (default: ../shared/real-replays/edopro)

1. Samples (``replays/*.jsonl``). Per duel: events; the judge ``.ygr`` (header + LZMA body with
   the recording times, the 4-byte hash prefix per event and the facts of every card) and the
   spectator ``.ygr``; the events alone as JSON Lines (``jsonl.dumps``, one object a line, no
   comments) and as one msgpack array of event maps. Ratios are .ygr / the other: below 1 means
   the replay file, chain and card facts included, is the smaller. Recording times are synthetic
   (1.5 s apart with jitter, fixed seed), as a live recording would have them.
2. Imported EDOPro replays (``measure_yrpx``; needs ``ygoreplay.yrpx.import_yrpx``, else a note
   is printed and the section skipped). Each ``.yrpX`` is imported to events, exported as a judge
   ``.ygr`` and compared with the ``.yrpX`` it came from. The target (issue 4): a judge ``.ygr``
   no larger than its ``.yrpX``.

Prints tables; never fails on the figures.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import statistics
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import msgpack

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ygoreplay.cards import CardDB  # noqa: E402
from ygoreplay.events import Event  # noqa: E402
from ygoreplay.exchange import make_replay  # noqa: E402
from ygoreplay.jsonl import dumps as jsonl_dumps, read_events  # noqa: E402
from ygoreplay.replay_file import dumps as ygr_dumps  # noqa: E402

SHARED = Path(os.environ.get("YGOREPLAY_SHARED", ROOT.parent / "shared"))
YRPX_DIR = SHARED / "real-replays" / "edopro"
BENCH_ROOT = hashlib.sha256(b"ygoreplay size bench").digest()
BENCH_SECRET = hashlib.sha256(b"ygoreplay size bench secret").digest()


def recording_times(count: int, seed: int = 1) -> list[str]:
    """Plausible live recording times: 1.5 s apart on average, with jitter, to the millisecond."""
    rng = random.Random(seed)
    now, out = datetime(2024, 5, 1, 12, 0, tzinfo=timezone.utc), []
    for _ in range(count):
        out.append(now.isoformat(timespec="milliseconds"))
        now += timedelta(milliseconds=rng.randint(200, 2800))
    return out


def sizes(events: list[Event], cards: CardDB, times: list[str], title: str) -> dict[str, int]:
    """Bytes of the same events as a judge .ygr, a spectator .ygr, JSON Lines and plain msgpack."""
    def ygr(view: str) -> int:
        return len(ygr_dumps(make_replay(events, times, cards, view, BENCH_ROOT, BENCH_SECRET, {"title": title})))

    return {
        "events": len(events),
        "judge": ygr("judge"),
        "spectator": ygr("spectator"),
        "jsonl": len(jsonl_dumps(events).encode("utf-8")),
        "msgpack": len(msgpack.packb([e.to_dict() for e in events])),
    }


def _per(n: int, events: int) -> str:
    return f"{n / events:7.1f}" if events else "      -"


def print_table(rows: list[tuple[str, dict[str, int]]], extra: str | None = None) -> None:
    """One line per duel: sizes, bytes per event, and .ygr / other ratios."""
    head = (f"{'duel':<44} {'events':>6} {'judge.ygr':>9} {'B/ev':>7} {'spect.':>7} {'JSONL':>8} {'B/ev':>7} "
            f"{'msgpack':>8} {'B/ev':>7} {'ygr/JSONL':>9} {'ygr/mp':>7}" + (f" {extra:>8} {'ygr/src':>7}" if extra else ""))
    print(head)
    print("-" * len(head))
    for name, s in rows:
        n = s["events"]
        line = (f"{name[:44]:<44} {n:>6} {s['judge']:>9} {_per(s['judge'], n)} {s['spectator']:>7} "
                f"{s['jsonl']:>8} {_per(s['jsonl'], n)} {s['msgpack']:>8} {_per(s['msgpack'], n)} "
                f"{s['judge'] / s['jsonl']:>9.3f} {s['judge'] / s['msgpack']:>7.3f}")
        if extra:
            line += f" {s['source']:>8} {s['judge'] / s['source']:>7.3f}"
        print(line)
    if len(rows) > 1:
        total = {k: sum(s[k] for _, s in rows) for k in rows[0][1]}
        print("-" * len(head))
        n = total["events"]
        line = (f"{'all':<44} {n:>6} {total['judge']:>9} {_per(total['judge'], n)} {total['spectator']:>7} "
                f"{total['jsonl']:>8} {_per(total['jsonl'], n)} {total['msgpack']:>8} {_per(total['msgpack'], n)} "
                f"{total['judge'] / total['jsonl']:>9.3f} {total['judge'] / total['msgpack']:>7.3f}")
        if extra:
            line += f" {total['source']:>8} {total['judge'] / total['source']:>7.3f}"
        print(line)


def measure_samples() -> list[tuple[str, dict[str, int]]]:
    rows = []
    for path in sorted((ROOT / "replays").glob("*.jsonl")):
        events = read_events(path)
        rows.append((path.stem, sizes(events, CardDB.classic(), recording_times(len(events)), path.stem)))
    return rows


# -- imported EDOPro replays (.yrpX) ---------------------------------------------------------------------
# Needs ygoreplay.yrpx.import_yrpx (written separately); without it this section prints a note.

def measure_yrpx(directory: Path = YRPX_DIR, limit: int | None = None) -> list[tuple[str, dict[str, int]]] | None:
    """Import every .yrpX in ``directory`` (the first ``limit``), export each as a judge .ygr,
    compare with the .yrpX size.

    Returns the rows (None when the importer is not available or there are no files)."""
    try:
        from ygoreplay.yrpx import import_yrpx
    except ImportError as exc:
        print(f"\n[yrpX] skipped: ygoreplay.yrpx.import_yrpx is not available ({exc})")
        return None
    paths = sorted(p for p in directory.glob("*") if p.suffix.lower() == ".yrpx") if directory.is_dir() else []
    paths = paths[:limit]
    if not paths:
        print(f"\n[yrpX] skipped: no .yrpX files under {directory}")
        return None
    rows, failed = [], []
    for path in paths:
        try:
            result = import_yrpx(path)
            row = sizes(list(result.events), result.cards, list(result.times), path.stem)
        except Exception as exc:          # a bench reports every file; the importer's tests judge it
            failed.append((path.name, f"{type(exc).__name__}: {str(exc)[:100]}"))
            continue
        row["source"] = path.stat().st_size
        rows.append((path.stem, row))
    print(f"\n[yrpX] {len(rows)} of {len(paths)} EDOPro replays imported from {directory}")
    if rows:
        print_table(rows, extra=".yrpX")
        ratios = [s["judge"] / s["source"] for _, s in rows]
        within = sum(r <= 1.0 for r in ratios)
        print(f"\n[yrpX] judge .ygr / .yrpX: median {statistics.median(ratios):.3f}, "
              f"min {min(ratios):.3f}, max {max(ratios):.3f}; "
              f"{within} of {len(rows)} no larger than their .yrpX (the target)")
        print(f"[yrpX] bytes per event: judge .ygr median "
              f"{statistics.median(s['judge'] / s['events'] for _, s in rows if s['events']):.1f}, "
              f".yrpX median {statistics.median(s['source'] / s['events'] for _, s in rows if s['events']):.1f}")
    for name, why in failed:
        print(f"[yrpX] not imported: {name}: {why}")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-yrpx", action="store_true", help="the samples only")
    parser.add_argument("--yrpx", type=Path, default=YRPX_DIR, help="a folder of .yrpX files")
    parser.add_argument("--json", action="store_true", help="also print the figures as one JSON object")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, a few seconds: does it run (CI): the first 5 .yrpX files")
    args = parser.parse_args(argv)
    print("Samples (replays/*.jsonl): the same events as a judge .ygr, JSON Lines and msgpack\n")
    samples = measure_samples()
    print_table(samples)
    imported = None if args.no_yrpx else measure_yrpx(args.yrpx, 5 if args.quick else None)
    if args.json:
        print(json.dumps({"samples": dict(samples), "yrpx": dict(imported) if imported else None}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
