"""``LiveDuel.released`` on an ended, released duel (#25, seventeenth pass): the CPU of a call over a
million calls, for a duel of no match and no policy of its own (a link may take its release back:
read again once a second) and for one with its own (for good), and of the read of a release. Run it
with each tree first on ``PYTHONPATH``, interleaved: ``PYTHONPATH=TREE python bench/released.py``."""
from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from ygoreplay.application import Records
from ygoreplay.jsonl import read_events
from ygoreplay.library_search import released
from ygoreplay.live import Hub
from ygoreplay.store import Store

CALLS = 1_000_000
READS = 2_000


def main() -> None:
    store = Store(os.path.join(tempfile.mkdtemp(), "s.sqlite"))
    events = read_events(Path(__file__).resolve().parent.parent / "replays" / "won-by-damage.jsonl")
    out = []
    for access in ({"visibility": "public"}, {"visibility": "public", "release": {"policy": "end"}}):
        done = Records(store).record(events, "bench", attachments={"access": access})
        live = Hub(store).get(done.id)
        assert live.released()
        start = time.process_time()
        for _ in range(CALLS):
            live.released()
        out.append((time.process_time() - start) / CALLS * 1e9)
    start = time.process_time()
    for _ in range(READS):
        released(store, done.id)
    read = (time.process_time() - start) / READS * 1e6
    print(f"no policy of its own {out[0]:.1f} ns a call, its own policy {out[1]:.1f} ns a call, "
          f"a release read {read:.1f} us")
    store.close()


if __name__ == "__main__":
    main()
