"""What following another process's commits to a served SQLite store costs (issue 25).

``python bench/sqlite_look.py [-n 20000] [-a 3] [-r 5] [--quick]``: a duel of 40 events held by a ``Hub`` on a
SQLite store, then, interleaved round by round in one process, the CPU of ``Hub.get`` of it
without the look (as before: nothing subscribed) and with the store's look before the read
(``SQLiteHeads.look``: one ``PRAGMA data_version``); then the CPU an append of this process
costs with the hub's listener looking every ``SQLiteHeads.WAIT`` seconds and without one (its
look, and the request's before it, find this process's own commits too), and a look after
one such append alone. Prints figures, never fails on them.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ygoreplay.events import from_dict  # noqa: E402
from ygoreplay.live import Hub  # noqa: E402
from ygoreplay.store import Store  # noqa: E402

EVENTS = [from_dict(json.loads(line)) for line in (ROOT / "replays" / "won-by-damage.jsonl").read_text().splitlines()
          if line.strip() and not line.startswith("#")]


def gets(hub: Hub, duel: str, n: int) -> float:
    """µs of CPU a ``Hub.get`` of a held duel."""
    start = time.process_time()
    for _ in range(n):
        hub.get(duel)
    return (time.process_time() - start) / n * 1e6


def appends(store: Store, hub: Hub, duels: int) -> float:
    """µs of CPU an append of this process taken in by the hub (as the service's: the duel got,
    then appended): ``duels`` duels of the sample's 89 events, appended one event at a time."""
    start = time.process_time()
    for _ in range(duels):
        duel = store.create_duel("appended")
        hub.get(duel)
        for i, event in enumerate(EVENTS):
            hub.get(duel)                  # as the service's request gets it first (``duel_caller``)
            hub.appending(duel, lambda: store.append_records(duel, event, expected_position=i))
    return (time.process_time() - start) / (duels * len(EVENTS)) * 1e6


def look_after_append(store: Store, duels: int) -> float:
    """µs of CPU a look costs after each append of this process (its commit changes the
    ``data_version`` the look reads, so the look reads the anchors since): timed around the look only."""
    heads = store.subscribe(store.last_notification())
    spent, looks = 0.0, 0
    for _ in range(duels):
        duel = store.create_duel("looked")
        for i, event in enumerate(EVENTS):
            store.append(duel, event, expected_position=i)
            start = time.process_time()
            heads.look()
            spent += time.process_time() - start
            looks += 1
    return spent / looks * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20000, help="gets a round")
    parser.add_argument("-a", type=int, default=3, help="duels appended a round (89 appends each)")
    parser.add_argument("-r", type=int, default=5, help="rounds")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, a few seconds: does it run (CI)")
    args = parser.parse_args()
    if args.quick:
        args.n, args.a, args.r = 200, 1, 1
    with tempfile.TemporaryDirectory() as folder, Store(str(Path(folder) / "b.sqlite")) as store:
        duel = store.create_duel("held")
        store.append(duel, EVENTS[:40])
        hub = Hub(store)
        hub.get(duel)
        looking = store.subscribe(store.last_notification())
        plain, looked = [], []
        for _ in range(args.r):
            hub._subscription = None
            plain.append(gets(hub, duel, args.n))
            hub._subscription = looking
            looked.append(gets(hub, duel, args.n))
        hub._subscription = None
        print(f"Hub.get of a held duel: {statistics.median(plain):.2f} µs without the look -> "
              f"{statistics.median(looked):.2f} µs with it (+{statistics.median(looked) - statistics.median(plain):.2f} µs; "
              f"rounds {[round(x, 2) for x in plain]} / {[round(x, 2) for x in looked]})")
        looks = [look_after_append(store, args.a) for _ in range(args.r)]
        print(f"a look after an append of this process: {statistics.median(looks):.1f} µs "
              f"(rounds {[round(x, 1) for x in looks]})")
        loop = asyncio.new_event_loop()
        quiet, listened = [], []
        for _ in range(args.r):
            quiet.append(appends(store, Hub(store), args.a))
            started = Hub(store)
            started.start(loop)
            try:
                listened.append(appends(store, started, args.a))
            finally:
                started.stop()
        loop.close()
        print(f"an append taken in: {statistics.median(quiet):.0f} µs without a listener -> "
              f"{statistics.median(listened):.0f} µs with it (ratio {statistics.median(listened) / statistics.median(quiet):.3f}; "
              f"rounds {[round(x) for x in quiet]} / {[round(x) for x in listened]})")


if __name__ == "__main__":
    main()
