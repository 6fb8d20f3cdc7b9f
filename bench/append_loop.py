"""The service's append called in process (issue 25, eighteenth pass): the app as uvicorn calls it,
with no socket, no HTTP parser and no client on the other core, so what the service's own layers
cost an append is read without the machine's noise in between.

Run from the repository root (``python bench/append_loop.py``; ``--quick`` for a check that it
runs). The app of ``create_app`` over a ``Store(concurrent=True)`` in a throw-away PostgreSQL
schema of ``$YGOREPLAY_BENCH_PG`` (``--sqlite``: a SQLite file), its lifespan run (its threads,
its hub), ``--clients`` duels made through the app, then each recorder appends its own synthetic
duel's events one a request with ``?expected=N`` (the bench's recorder's request), all recorders
at once (so the group commit groups them), awaiting each ASGI call. Each append's first is not
counted (a table's first reads its duel). Printed, an append: the process's CPU (every thread:
the command, the store, the group commit), the event loop's thread's CPU, and the Python calls
the event loop makes (a coroutine's every resumption counted, ``sys.setprofile``; exact, not
timed: one more round, profiled). ``--before DIR`` runs another checkout's ``ygoreplay`` too,
each tree in a process of its own, ``--pairs`` times in turn, and prints each pair's ratios
(this tree / before) and their median.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic import generate  # noqa: E402  (bench/synthetic.py)

PG = os.environ.get("YGOREPLAY_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
ADMIN = "bench-organiser-token-0123456789abcdef0123456789"


def _scope(path: str, token: str, body: bytes, query: bytes = b"") -> dict:
    """An HTTP request's scope as uvicorn gives it (the headers the bench's client sends)."""
    return {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
            "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": query,
            "root_path": "", "headers": [(b"host", b"127.0.0.1"), (b"authorization", b"Bearer " + token.encode()),
                                         (b"content-type", b"application/json"),
                                         (b"content-length", str(len(body)).encode())],
            "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000), "state": {}}


async def _call(app, scope: dict, body: bytes) -> tuple[int, bytes]:
    """The answer's status and body of one ASGI call."""
    sent: list[dict] = []
    given = False

    async def receive() -> dict:
        nonlocal given
        if given:                      # the client stays: a disconnect is never asked for here
            await asyncio.Event().wait()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)
    await app(scope, receive, send)
    return sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:])


def measure(clients: int, n_events: int, rounds: int, sqlite: bool) -> dict:
    """Medians over ``rounds`` of CPU µs an append (process, loop thread), and the loop's Python calls."""
    from ygoreplay.access import digest
    from ygoreplay.card_sources import card_lookup
    from ygoreplay.service import create_app
    from ygoreplay.signing import OrganiserKey
    from ygoreplay.store import Store
    schema = None
    if sqlite:
        url = f"/tmp/bench-append-loop-{uuid.uuid4().hex[:10]}.db"
    else:
        import psycopg
        from psycopg import sql
        schema = f"bench_loop_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(PG, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        url = f"{PG}?schema={schema}"
    store = Store(url, card_lookup(), key=OrganiserKey.load_or_create()[0], concurrent=True)
    app = create_app(store, digest(ADMIN))
    figures: dict[str, list[float]] = {"cpu": [], "loop": []}
    calls = 0.0

    async def run() -> None:
        nonlocal calls
        async with app.router.lifespan_context(app):
            for r in range(rounds + 1):
                duels = []
                for i in range(clients):
                    body = json.dumps({"title": f"loop {i}"}).encode()
                    status, answer = await _call(app, _scope("/duels", ADMIN, body), body)
                    assert status == 201, answer
                    duels.append(json.loads(answer))
                bodies = [[json.dumps([e.to_dict()]).encode() for e in generate(n_events, seed)]
                          for seed in range(clients)]

                async def record(duel: dict, mine: list[bytes], first: int) -> None:
                    for i, body in enumerate(mine, first):
                        status, answer = await _call(app, _scope(f"/duels/{duel['id']}/events", duel["tokens"]["recorder"],
                                                                 body, f"expected={i}".encode()), body)
                        assert status == 200, (status, answer)
                await asyncio.gather(*(record(d, b[:1], 0) for d, b in zip(duels, bodies)))
                n = clients * (n_events - 1)
                counted = {"call": 0}
                if r == rounds:                 # the last round profiled: the loop's calls, exactly
                    def profile(_frame, event, _arg) -> None:
                        if event == "call":
                            counted["call"] += 1
                    sys.setprofile(profile)
                cpu, loop = time.process_time(), time.thread_time()
                await asyncio.gather(*(record(d, b[1:], 1) for d, b in zip(duels, bodies)))
                cpu, loop = time.process_time() - cpu, time.thread_time() - loop
                sys.setprofile(None)
                if r == rounds:
                    calls = counted["call"] / n
                else:
                    figures["cpu"].append(cpu / n * 1e6)
                    figures["loop"].append(loop / n * 1e6)
    try:
        asyncio.run(run())
    finally:
        store.close()
        if schema is not None:
            import psycopg
            from psycopg import sql
            with psycopg.connect(PG, autocommit=True) as conn:
                conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))
        elif sqlite:
            for suffix in ("", "-wal", "-shm"):
                Path(url + suffix).unlink(missing_ok=True)
    return {"cpu": statistics.median(figures["cpu"]), "loop": statistics.median(figures["loop"]), "calls": calls}


def in_process(tree: str, args: argparse.Namespace) -> dict:
    """``measure`` in a process of the checkout ``tree`` (its package first on the path)."""
    env = {**os.environ, "PYTHONPATH": tree + os.pathsep + os.environ.get("PYTHONPATH", "")}
    flags = ["--clients", str(args.clients), "--events", str(args.events), "--rounds", str(args.rounds)]
    done = subprocess.run([sys.executable, "-P", __file__, "--child", *flags, *(["--sqlite"] if args.sqlite else [])],
                          env=env, cwd=tree, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"bench/append_loop.py in {tree} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes: does it run (CI)")
    parser.add_argument("--clients", type=int, help="recorders appending at once (default 40; quick 4)")
    parser.add_argument("--events", type=int, help="events a recorder appends, one a request (default 50; quick 5)")
    parser.add_argument("--rounds", type=int, help="rounds a process measures, medians taken (default 3; quick 1)")
    parser.add_argument("--pairs", type=int, default=3, help="with --before: processes of each tree, in turn")
    parser.add_argument("--sqlite", action="store_true", help="a SQLite store, not PostgreSQL")
    parser.add_argument("--before", metavar="DIR", help="another checkout, measured in turn with this one")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.clients = args.clients or (4 if args.quick else 40)
    args.events = args.events or (5 if args.quick else 50)
    args.rounds = args.rounds or (1 if args.quick else 3)
    if args.child:
        print(json.dumps(measure(args.clients, args.events, args.rounds, args.sqlite)))
        return 0
    this = str(Path(__file__).resolve().parents[1])
    trees = [("this tree", this)] + ([("before", str(Path(args.before).resolve()))] if args.before else [])
    print(f"[append loop] the app called in process, {'SQLite' if args.sqlite else 'PostgreSQL'}; "
          f"{args.clients} recorders x {args.events} events, one a request (expected=N); {args.rounds} round(s) "
          f"a process" + (f"; the trees in turn, {args.pairs} pairs" if args.before else ""))
    results: dict[str, list[dict]] = {name: [] for name, _ in trees}
    for pair in range(args.pairs if args.before else 1):
        for name, tree in (trees if pair % 2 == 0 else trees[::-1]):
            got = in_process(tree, args)
            results[name].append(got)
            print(f"  {name:10s} CPU {got['cpu']:7.1f} us an append   event loop {got['loop']:6.1f} us   "
                  f"event loop Python calls {got['calls']:6.1f} an append")
    if args.before:
        for key, what in (("cpu", "CPU an append"), ("loop", "event loop CPU an append"),
                          ("calls", "event loop Python calls an append")):
            ratios = [a[key] / b[key] for a, b in zip(results["this tree"], results["before"])]
            print(f"  {what:35s} this tree / before: {statistics.median(ratios):.3f} "
                  f"(pairs {', '.join(f'{r:.3f}' for r in ratios)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
