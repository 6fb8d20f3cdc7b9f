"""The library page's first paint (issue 26): ``/`` and a search page against the real service.

Run from the repository root after ``pip install -e '.[test]'``: ``python bench/library_page.py``
(``-n`` duels in the library, default 100,000; ``--loads`` page loads of each, default 20;
``--chromium`` the browser, default Debian's; ``--quick`` tiny sizes). It prints figures and never
fails on them.

A SQLite store is filled with a generated library (``search.py``'s generator, straight into the
index tables, with each duel's header row and signed last anchor, so that the library lists it)
and a few public duels recorded through the service (``synthetic.py``), then served by
``ygoreplay serve`` (one process). Each load is a fresh browser context (no cache) in Debian's
chromium, headless, 1280x800 (Playwright): the navigation's response (``responseEnd``), the
browser's **first-contentful-paint** (the page's frame, before any row), and **rows drawn**: the
first ``#results > li.row`` in the document, seen by a ``MutationObserver`` the page gets before
its own scripts (the page's ``/search`` request answered and its rows made); all from the
navigation's start (``performance.now()``). p50 and p99 of each, for ``/`` (recent public duels)
and ``/library?player=...`` (a search).
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from search import PLAYERS, load, pct  # noqa: E402  (bench/search.py)
from synthetic import generate  # noqa: E402
from test_service import Server, auth, create  # noqa: E402

from ygoreplay.store import Store  # noqa: E402

#: Before the page's scripts: when the first row appears (the page's CSP does not apply to it).
WATCH = """(() => {
  new MutationObserver((_, observer) => {
    if (document.querySelector('#results > li.row')) {
      window.__rowsAt = performance.now();
      window.__rows = document.querySelectorAll('#results > li.row').length;
      observer.disconnect();
    }
  }).observe(document, { childList: true, subtree: true });
})();"""
TIMES = """() => ({
  rows: window.__rowsAt ?? null, count: window.__rows ?? 0,
  fcp: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime ?? null,
  response: performance.getEntriesByType('navigation')[0].responseEnd,
})"""


def measure(browser, url: str, loads: int) -> dict[str, list[float]]:
    """Each load's times (ms from the navigation's start) in a context of its own."""
    out: dict[str, list[float]] = {"response": [], "fcp": [], "rows": []}
    for _ in range(loads):
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.add_init_script(WATCH)
        page = context.new_page()
        page.goto(url)
        deadline = time.monotonic() + 30
        times = page.evaluate(TIMES)
        while (times["rows"] is None or times["fcp"] is None) and time.monotonic() < deadline:
            time.sleep(0.02)
            times = page.evaluate(TIMES)
        if times["rows"] is None or times["fcp"] is None:
            raise RuntimeError(f"{url}: no rows drawn (or no paint) in 30 s")
        for key in out:
            out[key].append(times[key])
        context.close()
    return out


def found(base: str) -> str:
    """A generated player with public duels (a search page that draws rows)."""
    for number in range(PLAYERS):
        name = f"player%20{number}"
        if httpx.get(f"{base}/search?player={name}&limit=1", timeout=30).json()["results"]:
            return name
    raise RuntimeError("no generated player has a public duel")


def report(label: str, times: dict[str, list[float]]) -> None:
    print(f"  {label:<24} " + ", ".join(
        f"{name} p50 {pct(values, 0.5):7.1f} ms p99 {pct(values, 0.99):7.1f} ms"
        for name, values in (("response", times["response"]), ("first-contentful-paint", times["fcp"]),
                             ("rows drawn", times["rows"]))) + f" ({len(times['rows'])} loads)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, help="duels in the generated library (default 100,000; quick 2,000)")
    parser.add_argument("--loads", type=int, help="page loads of each page (default 20; quick 3)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, a few seconds: does it run (CI)")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args(argv)
    n = args.n or (2_000 if args.quick else 100_000)
    loads = args.loads or (3 if args.quick else 20)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "duels.sqlite")
        store = Store(path)
        try:
            seconds, building, counts = load(store, path, n)
        finally:
            store.close()
        print(f"library: {n:,} generated duels, {counts['cards']:,} card events, loaded in {seconds + building:.1f} s")
        server = Server(path)
        try:
            events = [event.to_dict() for event in generate(200, 1)]
            for number in range(3):
                duel = create(server.url, title=f"recorded final {number}", visibility="public")
                httpx.post(f"{server.url}/duels/{duel['id']}/events", json=events,
                           headers=auth(duel["tokens"]["recorder"]), timeout=60).raise_for_status()
            print(f"3 public duels of {len(events)} events recorded through the service at {server.url}")
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=args.chromium,
                                            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
                measure(browser, f"{server.url}/", 1)                 # the service's and browser's first use
                report("/ (recent duels)", measure(browser, f"{server.url}/", loads))
                report("/library?player=...", measure(browser, f"{server.url}/library?player={found(server.url)}",
                                                      loads))
                browser.close()
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
