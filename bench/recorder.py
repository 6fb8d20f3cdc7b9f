"""Recorder benchmark (issue 23): the recorder's page at the table, in a real browser.

Run from the repository root after ``pip install -e '.[test]'``: ``python bench/recorder.py``
(``--runs`` how many times the sample is recorded, default 3; ``--tables`` the round's size,
default 8; ``--moves`` how many rounds of moves each table enters, default 3 × 11;
``--chromium`` the browser, default Debian's; ``--quick`` one run and 2 tables, for CI). It
prints figures and never fails on them.

Through ``ygoreplay serve`` (SQLite, one process) and Debian's chromium driven by Playwright, with
the helpers of ``tests/test_browser_record.py`` (the same taps the browser tests make):

* **taps**: the README's public sample recorded through the page at 360 px as a recorder who sees
  only the public side would (taps, the name box and the LP keypad), the taps each event took,
  median and worst by kind (goal: median ≤ 2, an LP change ≤ 3);
* **round trip**: each entry from ``fetch`` to its answer, timed in the page
  (``performance.now()``), p50/p99 (goal: p99 < 100 ms);
* **round**: a round of ``--tables`` tables made from a pairings CSV, each table's page opened on
  its QR code's link, every table entering each move at once: the round trip p50/p99, and the
  entries per second the service took from all tables together.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from test_browser_record import (  # noqa: E402
    TABLE_MOVES, Table, enter, new_round, percentile, play_at_once, seat)
from test_public_records import PUBLIC  # noqa: E402
from test_service import Server, create, events_of  # noqa: E402


def record_sample(base: str, browser) -> tuple[dict[str, list[int]], list[float]]:
    """The public sample through one page: taps per event by kind, each entry's round trip."""
    sample = events_of(PUBLIC.name)
    duel = create(base, title="bench: recorded at the table", mode="witnessed")
    table = Table(browser, duel["record"]["recorder"], width=360)
    table.page.fill("#name0", "Yugi")
    table.page.fill("#name1", "Kaiba")
    table.tap("#start")
    table.settled(5)
    taps: dict[str, list[int]] = defaultdict(list)
    for i in range(5, len(sample)):
        table.taps = 0
        enter(table, sample[i])
        table.settled(i + 1)
        taps[sample[i]["kind"]].append(table.taps)
    trips = table.page.evaluate("window.ygoreplay.recorder.trips")
    table.close()
    return taps, trips


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--moves", type=int, default=3, help="times each table enters the 11 moves of a turn pair")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--quick", action="store_true", help="one run, a round of 2 tables, one turn pair (CI)")
    args = parser.parse_args()
    if args.quick:
        args.runs, args.tables, args.moves = 1, 2, 1
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        server = Server(str(Path(folder) / "bench.sqlite"))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=args.chromium,
                                            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
                taps: dict[str, list[int]] = defaultdict(list)
                trips: list[float] = []
                for _ in range(args.runs):
                    more, times = record_sample(server.url, browser)
                    for kind, counts in more.items():
                        taps[kind].extend(counts)
                    trips.extend(times)
                made = new_round(server.url, args.tables)
                tables = seat(browser, made)
                started = time.perf_counter()
                round_trips = play_at_once(tables, TABLE_MOVES * args.moves)
                took = time.perf_counter() - started
                for device in tables:
                    device.close()
                browser.close()
        finally:
            server.stop()

    print(f"the public sample recorded {args.runs}× through the page at 360 px")
    print("taps per event, median / worst, by kind:")
    for kind, counts in sorted(taps.items()):
        print(f"  {kind:22} {statistics.median(counts):>4g} / {max(counts)}  ({len(counts) // args.runs} a duel)")
    everything = [c for counts in taps.values() for c in counts]
    print(f"  {'every event':22} {statistics.median(everything):>4g} / {max(everything)}")
    print(f"round trip of {len(trips)} entries: p50 {percentile(trips, 0.5):.1f} ms, p99 {percentile(trips, 0.99):.1f} ms, "
          f"max {max(trips):.1f} ms")
    moves = args.tables * len(TABLE_MOVES) * args.moves
    print(f"a round of {args.tables} tables in parallel, {len(round_trips)} entries (setups and moves): round trip "
          f"p50 {percentile(round_trips, 0.5):.1f} ms, p99 {percentile(round_trips, 0.99):.1f} ms; "
          f"{moves} moves in {took:.1f} s, {moves / took:.0f} entries/s from all tables together")


if __name__ == "__main__":
    main()
