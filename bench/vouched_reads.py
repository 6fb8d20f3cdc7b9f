"""The reads issue 25's ninth and tenth passes routed through the store's vouching decision, timed
(CPU µs a call, best of 7 repeats) on one store: run it under each tree's PYTHONPATH, interleaved.
``card_stats`` is a card every duel activates: each of the 200 duels is counted, so checked.

    python bench/vouched_reads.py make STORE.sqlite     # once: 200 public duels of 89 events
    python bench/vouched_reads.py run STORE.sqlite      # one JSON line of timings
    python bench/vouched_reads.py --quick               # both, on 5 duels in a folder of its own
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def make(url: str, duels: int = 200) -> None:
    from ygoreplay.access import Access
    from ygoreplay.application import Records
    from ygoreplay.jsonl import read_events
    from ygoreplay.store import Store
    events = read_events(Path(__file__).resolve().parent.parent / "replays" / "won-by-damage.jsonl")
    with Store(url) as store:
        records = Records(store)
        for i in range(duels):
            records.record(events, f"duel {i}", attachments={"access": Access("public").to_dict()})


def run(url: str) -> dict:
    from ygoreplay.library_search import Query, card_stats, search
    from ygoreplay.store import Store
    with Store(url, readonly=True) as store:
        duel = store.ids()[0]
        activated = next(r.event.card for r in store.records_after(duel) if r.event.kind == "activated")
        code = store.state_at(duel).cards[activated].code

        def best(call, n: int) -> float:
            call()
            out = []
            for _ in range(7):
                start = time.process_time()
                for _ in range(n):
                    call()
                out.append((time.process_time() - start) / n * 1e6)
            return min(out)
        return {"load(verified=False)": best(lambda: store.load(duel, verified=False), 100),
                "seek(at 50)": best(lambda: store.seek(duel, 50), 300),
                "seek(last)": best(lambda: store.seek(duel), 300),
                "records_after": best(lambda: store.records_after(duel, 0), 100),
                "search(20)": best(lambda: search(store, Query(limit=20)), 100),
                "search(100)": best(lambda: search(store, Query(limit=100)), 30),
                "card_stats": best(lambda: card_stats(store, code), 30),
                "duels()": best(store.duels, 2)}


if __name__ == "__main__":
    if sys.argv[1] == "--quick":
        import tempfile
        with tempfile.TemporaryDirectory() as folder:
            make(f"{folder}/quick.sqlite", 5)
            print(json.dumps(run(f"{folder}/quick.sqlite")))
    elif sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        print(json.dumps(run(sys.argv[2])))
