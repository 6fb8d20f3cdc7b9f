"""One chromium for a test worker's browser files (``conftest.chromium_endpoint``): launched by
Playwright with the switches each file's launch had, plus a DevTools port the files connect to
over CDP. A file's own launch was a second of wall and half a second of CPU (chromium and its
Playwright driver starting), 23 files. It runs in a process of its own because a Playwright kept
open in the worker makes every later ``asyncio.run`` on that worker fail ("cannot be called from
a running event loop"). It prints the endpoint, then closes chromium when its standard input
closes (the worker's session ended, or the worker died).

    python tests/chromium_host.py CHROMIUM [SWITCH ...]
"""
from __future__ import annotations

import socket
import sys
import time
import urllib.request

from playwright.sync_api import sync_playwright


def main(executable: str, switches: list[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable,
                                             args=[*switches, f"--remote-debugging-port={port}"])
        endpoint = f"http://127.0.0.1:{port}"
        for _ in range(100):                 # its DevTools server answers (a port taken meanwhile never does)
            try:
                urllib.request.urlopen(f"{endpoint}/json/version", timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit(f"chromium's DevTools port {port} did not answer")
        print(endpoint, flush=True)
        sys.stdin.read()
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
