"""Card database benchmark: what a command pays for a database of every real card.

Run from the repository root after ``pip install -e '.[test]'``: ``python bench/cards.py``
(``-n`` cards, default 13,000, about the size of the whole game). It prints figures and never
fails on them.

A ``cards.cdb`` of ``-n`` cards is written (as ``ygoreplay cards update`` writes one), then:

* **open and look up**: ``card_lookup`` over it and the facts of a 60-card deck (random
  passcodes), in this process, cold (a fresh lookup each run): what a command does before it
  folds anything;
* **search**: ``find`` of a name fragment (reads every name once, then searches them);
* **a whole command**: ``ygoreplay deck check`` of a 60-card ydke URL in a fresh process, with
  the database installed and without it (the difference is what the database costs a command);
* for scale: ``CardDB.from_cdb``, loading every card into memory, as the loader did before.
"""
from __future__ import annotations

import argparse
import base64
import os
import random
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ygoreplay.card_install import Row, write_cdb
from ygoreplay.card_sources import card_lookup
from ygoreplay.cards import CardDB


def timed(run, repeat: int) -> float:
    """Median wall time of ``repeat`` runs, in ms."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--cards", type=int, help="default 13,000; quick 500")
    parser.add_argument("-r", "--repeat", type=int, help="default 9; quick 2")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, a few seconds: does it run (CI)")
    args = parser.parse_args(argv)
    args.cards = args.cards or (500 if args.quick else 13_000)
    args.repeat = args.repeat or (2 if args.quick else 9)
    rng = random.Random(1)
    codes = rng.sample(range(10_000_000, 99_999_999), args.cards)
    rows = [Row(code, 0, 0x21, rng.randrange(0, 40) * 100, rng.randrange(0, 40) * 100, rng.randrange(1, 13),
                1 << rng.randrange(0, 25), 1 << rng.randrange(0, 7), f"Card name {i} {'abcdefgh'[i % 8] * 5}",
                "Some card text. " * 12) for i, code in enumerate(codes)]
    deck = rng.sample(codes, 20) * 3
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "xdg" / "ygoreplay"
        path = data / "cards.cdb"
        started = time.perf_counter()
        write_cdb(path, rows, {"cards": str(len(rows))})
        print(f"wrote {args.cards:,} cards ({path.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - started:.2f} s")

        def lookup() -> None:
            cards = card_lookup([str(path)], environment={}, installs=[])
            cards.subset(deck)
        print(f"open + facts of a 60-card deck: {timed(lookup, args.repeat):7.2f} ms (median of {args.repeat})")

        def search() -> None:
            card_lookup([str(path)], environment={}, installs=[]).find("name 12")
        print(f"find by name (cold):           {timed(search, args.repeat):7.2f} ms")
        print(f"CardDB.from_cdb (all in memory): {timed(lambda: CardDB.from_cdb(path), 3):7.2f} ms")

        url = "ydke://" + "!".join(base64.b64encode(struct.pack(f"<{len(part)}I", *part)).decode()
                                   for part in (deck, [], [])) + "!"
        env = {**os.environ, "XDG_DATA_HOME": str(data.parent), "HOME": folder}

        def command(environment: dict) -> float:
            return timed(lambda: subprocess.run([sys.executable, "-m", "ygoreplay", "deck", "check", url],
                                                env=environment, capture_output=True), 5)
        with_db = command(env)
        without = command({**env, "XDG_DATA_HOME": str(Path(folder) / "empty")})
        print(f"ygoreplay deck check, a fresh process: {with_db:7.1f} ms with the database, {without:7.1f} ms "
              f"without it: the database costs a command {with_db - without:+.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
