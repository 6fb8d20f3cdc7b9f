"""A big round's page as its followers see it (#25, eighteenth pass): the CPU of reading the round
again after one table moved, and the bytes each follower is sent for that change.

A round of N tables is made in an in-process service (SQLite, ``create_app``), 3 in 4 of them
recording a duel of 20 entries; then, for each change, one table's duel takes one more entry and
the round is read as the service reads it for its page, its JSON and its followers (``rounds.status``
with the spectators' cut): with each table's row kept (``TableRows``, the rows whose match or duel
moved made again) and with every table read again (a new ``TableRows`` each read: what ``main`` did
on every change). CPU is ``time.process_time``, the two read in turn after each change. Bytes: the
whole round as JSON (what a follower was sent on every change) and the ``tables`` event
(``rounds.changed_tables``: the rows that changed and the counts).

    PYTHONPATH=. python bench/round_page.py                # 200 and 500 tables, 8 changes each
    PYTHONPATH=. python bench/round_page.py --quick        # 20 tables, 3 changes (CI)
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

from ygoreplay.access import digest
from ygoreplay.rounds import TableRows, changed_tables, status
from ygoreplay.service import create_app
from ygoreplay.service.rounds import _seen
from ygoreplay.store import Store

ADMIN = "bench-round-organiser-token-0123456789abcdef012345"
MATCHES = Path(__file__).resolve().parent.parent / "replays" / "matches"


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]


DECKS = [e for e in _lines(MATCHES / "two-nil.jsonl") if e["kind"] == "decklist_registered"]
DUEL = _lines(MATCHES / "duels" / "g1-yugi-wins.jsonl")


def _auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def _ok(response, *codes: int) -> dict:
    if response.status_code not in (codes or (200, 201)):
        sys.exit(f"bench/round_page.py: {response.request.method} {response.request.url}: "
                 f"{response.status_code} {response.text[:300]}")
    return response.json()


def _build(client: TestClient, tables: int) -> tuple[str, list[dict]]:
    """The round, and each recording table's duel (its id, writer and the entries it has)."""
    body = "".join(f"{t},Player {2 * t - 1},Player {2 * t}\n" for t in range(1, tables + 1))
    made = _ok(client.post("/rounds?event=Bench&round=1", content=body,
                           headers={"Content-Type": "text/csv", **_auth(ADMIN)}))
    duels = []
    for i, table in enumerate(made["tables"]):
        if i % 4 == 3:
            continue                    # 1 in 4 not started
        writer = _auth(table["tokens"]["recorder"])
        _ok(client.post(f"/matches/{table['match']}/events", json=DECKS, headers=writer))
        duel = _ok(client.post(f"/matches/{table['match']}/games", json={"first_player": 0, "chosen_by": 0},
                               headers=writer))["duel"]
        events = [{**DUEL[0], "players": table["players"], "witnessed": True}, *DUEL[1:20]]
        _ok(client.post(f"/duels/{duel['id']}/events", json=events, headers=_auth(duel["tokens"]["recorder"])))
        duels.append({"id": duel["id"], "writer": _auth(duel["tokens"]["recorder"]), "at": 20})
    return made["id"], duels


def measure(tables: int, changes: int) -> dict:
    with tempfile.TemporaryDirectory() as where:
        store = Store(str(Path(where) / "round.sqlite"), concurrent=True)
        try:
            with TestClient(create_app(store, digest(ADMIN))) as client:
                round_id, duels = _build(client, tables)
                service = client.app.state.service

                def seen(duel: str):
                    return _seen(service, duel)

                rows = TableRows()
                sent = status(store, round_id, seen, anyone=True, rows=rows)
                kept_cpu, whole_cpu, made, whole_bytes, moved_bytes = [], [], [], [], []
                for change in range(changes):
                    duel = duels[(change * 7) % len(duels)]
                    entry = DUEL[duel["at"]]                # its duel's next entry (never its end)
                    _ok(client.post(f"/duels/{duel['id']}/events", json=[entry], headers=duel["writer"]))
                    duel["at"] = min(duel["at"] + 1, len(DUEL) - 2)
                    before_made = rows.made
                    start = time.process_time()
                    now = status(store, round_id, seen, anyone=True, rows=rows)
                    kept_cpu.append(time.process_time() - start)
                    made.append(rows.made - before_made)
                    start = time.process_time()
                    whole = status(store, round_id, seen, anyone=True)
                    whole_cpu.append(time.process_time() - start)
                    assert json.dumps(whole) == json.dumps(now), "the kept rows are not the round read whole"
                    whole_bytes.append(len(json.dumps(now, ensure_ascii=False).encode()))
                    moved = changed_tables(sent, now)
                    assert moved is not None
                    moved_bytes.append(len(json.dumps(moved, ensure_ascii=False).encode()))
                    sent = now
        finally:
            store.close()
    return {"tables": tables, "recording": len(duels), "changes": changes,
            "whole_ms": statistics.median(whole_cpu) * 1e3, "kept_ms": statistics.median(kept_cpu) * 1e3,
            "rows_made": max(made), "whole_bytes": int(statistics.median(whole_bytes)),
            "moved_bytes": int(statistics.median(moved_bytes))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20 tables, 3 changes (CI)")
    parser.add_argument("--tables", type=int, nargs="*", help="round sizes (default 200 500)")
    parser.add_argument("--changes", type=int, help="changes measured a round (default 8)")
    args = parser.parse_args()
    sizes = args.tables or ([20] if args.quick else [200, 500])
    changes = args.changes or (3 if args.quick else 8)
    for tables in sizes:
        got = measure(tables, changes)
        print(f"{got['tables']} tables ({got['recording']} recording), {got['changes']} changes, one table's duel "
              f"moving each:")
        print(f"  CPU a change, every table read again: {got['whole_ms']:.1f} ms; rows kept: {got['kept_ms']:.1f} ms "
              f"(rows made again: {got['rows_made']}); kept / whole {got['kept_ms'] / got['whole_ms']:.3f}")
        print(f"  bytes a follower a change, the whole round: {got['whole_bytes']:,}; the rows changed: "
              f"{got['moved_bytes']:,}")


if __name__ == "__main__":
    main()
