"""Viewer benchmark: scrubbing a 10,000-event duel in a real browser.

Run from the repository root after ``pip install -e '.[test]'``: ``python bench/viewer.py``
(``-n`` events, default 10,000; ``--positions`` how many random positions, default 1,000;
``--chromium`` the browser, default Debian's). It prints figures and never fails on them.

The synthetic legal duel of ``synthetic.py`` is recorded through ``ygoreplay serve`` (SQLite,
one process) in appends of 1,000 events. Then, for the judge's and the spectator's page (Debian's
chromium, headless, 1280x800, driven by Playwright):

* **load**: from navigation until the page is ready (frames fetched, every board made, the log
  of every event drawn), the size of the frames on the wire (gzip) and as JSON;
* **scrub**: ``viewer.show(i)`` for random positions ``i``, each timed in the page with
  ``performance.now()`` around the call and a forced layout (``document.body.offsetHeight``),
  so the time covers drawing the board, the log's highlight and scroll, and the browser's
  style and layout work: median, p95, p99, max, and the share within 16 ms (one frame at 60/s);
* **step**: the same for ``i -> i+1`` through the whole duel (what playback and the arrow keys do).
"""
from __future__ import annotations

import argparse
import gzip
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import generate  # noqa: E402
from test_service import Server, auth, create  # noqa: E402

SCRUB = """async ([positions, step]) => {
  const v = window.ygoreplay.viewer;
  const times = [];
  const each = step ? [...Array(v.duel.length).keys()] : positions;
  for (const i of each) {
    const t0 = performance.now();
    v.show(i);
    document.body.offsetHeight;              // style and layout now, inside the timing
    times.push(performance.now() - t0);
  }
  return times;
}"""


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def report(label: str, times: list[float]) -> None:
    within = sum(1 for t in times if t <= 16.0) / len(times)
    print(f"  {label:<6} {len(times):>6} positions: median {statistics.median(times):6.2f} ms  "
          f"p95 {percentile(times, 95):6.2f}  p99 {percentile(times, 99):6.2f}  max {max(times):6.2f} ms  "
          f"within 16 ms: {within:.1%}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--events", type=int, help="default 10,000; quick 300")
    parser.add_argument("--positions", type=int, help="default 1,000; quick 20")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, a few seconds: does it run (CI)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args(argv)
    args.events = args.events or (300 if args.quick else 10_000)
    args.positions = args.positions or (20 if args.quick else 1_000)
    from playwright.sync_api import sync_playwright

    events = [e.to_dict() for e in generate(args.events, args.seed)]
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(str(Path(tmp) / "duels.sqlite"))
        try:
            duel = create(server.url, title=f"synthetic, {len(events)} events", visibility="unlisted")
            started = time.perf_counter()
            for i in range(0, len(events), 1000):
                r = httpx.post(f"{server.url}/duels/{duel['id']}/events?expected={i}", json=events[i:i + 1000],
                               headers=auth(duel["tokens"]["recorder"]), timeout=300)
                r.raise_for_status()
            print(f"recorded {len(events)} events through the service in {time.perf_counter() - started:.1f} s")
            import random
            rng = random.Random(args.seed)
            positions = [rng.randrange(len(events)) for _ in range(args.positions)]
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=args.chromium,
                                            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
                for role in ("judge", "spectator"):
                    token = duel["tokens"][role]
                    t0 = time.perf_counter()
                    frames = httpx.get(f"{server.url}/duels/{duel['id']}/frames", headers=auth(token), timeout=300)
                    cold = time.perf_counter() - t0
                    raw = len(json.dumps(frames.json()).encode())
                    wire = len(gzip.compress(frames.content, 5))
                    page = browser.new_page(viewport={"width": 1280, "height": 800})
                    t0 = time.perf_counter()
                    page.goto(duel["links"][role])
                    page.wait_for_selector("body[data-ready=true]", timeout=300_000)
                    load = time.perf_counter() - t0
                    print(f"{role}: frames {raw / 1e6:.1f} MB as JSON, {wire / 1e3:.0f} kB gzipped; first /frames "
                          f"(the view folded and redacted) {cold:.2f} s; page ready in {load:.2f} s")
                    page.evaluate(SCRUB, [positions[:50], False])            # warm the JIT
                    report("scrub", page.evaluate(SCRUB, [positions, False]))
                    report("step", page.evaluate(SCRUB, [[], True]))
                    page.close()
                browser.close()
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
