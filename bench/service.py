"""Service benchmark: appends at the store, appends over HTTP, and live followers.

Run from the repository root after ``pip install -e '.[test]'``: ``python bench/service.py``
(``--quick`` for tiny sizes, a few seconds; ``--only store|http|follow`` for one part). It prints figures
and never fails on them. Everything runs against the PostgreSQL server of ``$YGOREPLAY_BENCH_PG``
(default 127.0.0.1:5432, database test; the bare recorder too), the service on a free port (a throw-away
schema per part, dropped at the end), as the multi-process service does.

1. **Store** (``--duels`` 1,000 duels, ``--events`` each): writer processes of writer threads
   append every duel's events one event per append, round-robin, as a room of live scorekeepers
   would, through ``Store(concurrent=True)`` (group commit: the appends waiting at one moment are
   written in one transaction). The same layout first drives a bare ``eventsourcing`` application
   recorder, one event per transaction (what the store did before), as the baseline of the same
   run. Then every duel is counted (nothing lost or written twice) and verified (chain, anchors,
   signatures).
2. **HTTP** (``ygoreplay serve --workers 2``): ``--clients`` recorder clients (default 200), each
   recording its own duel one event per request with ``expected=N``, over keep-alive connections
   of a minimal asyncio HTTP client (so the client, on the same 2 cores, costs as little as it
   can); appends/s and the latency percentiles of every request.
3. **Follow**: ``--followers`` SSE followers (default 1,000) spread over ``--follow-duels`` duels
   (default 100) on the 2-worker service, while recorders append to those duels; every follower
   must receive every event once, in order; lag = the time a follower reads an event minus the
   time its recorder's append was acknowledged.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import random
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import generate  # noqa: E402  (bench/synthetic.py)

PG = os.environ.get("YGOREPLAY_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
ADMIN = "bench-organiser-token-0123456789abcdef0123456789"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


class Schema:
    """A PostgreSQL schema of its own, dropped at the end."""

    def __init__(self, tag: str) -> None:
        import psycopg
        from psycopg import sql
        self.name = f"bench_{tag}_{uuid.uuid4().hex[:10]}"
        self._sql, self._connect = sql, lambda: psycopg.connect(PG, autocommit=True)
        with self._connect() as conn:
            conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(self.name)))
        self.url = f"{PG}?schema={self.name}"

    def drop(self) -> None:
        with self._connect() as conn:
            conn.execute(self._sql.SQL("DROP SCHEMA {} CASCADE").format(self._sql.Identifier(self.name)))


# -- 1. the store ------------------------------------------------------------------------------------------

def _store_writer(kind: str, url: str, duels: list[str], n_events: int, threads: int, start, results) -> None:
    """One writer process (a failure is reported, never left for the parent to wait on)."""
    try:
        _store_writes(kind, url, duels, n_events, threads, start, results)
    except BaseException as exc:
        results.put((0.0, [], [f"the writer process failed: {type(exc).__name__}: {exc}"[:300]]))


def _store_writes(kind: str, url: str, duels: list[str], n_events: int, threads: int, start, results) -> None:
    """``threads`` threads, each appending its duels' events round-robin."""
    events = generate(n_events, 1)
    latencies: list[float] = []
    errors: list[str] = []
    if kind == "bare":
        import msgpack
        from eventsourcing.persistence import InfrastructureFactory, StoredEvent
        from eventsourcing.utils import Environment
        from urllib.parse import parse_qs, unquote, urlparse
        where = urlparse(url)                            # the same server as the store: $YGOREPLAY_BENCH_PG
        schema = parse_qs(where.query)["schema"][0]
        factory = InfrastructureFactory.construct(Environment("bare", {
            "PERSISTENCE_MODULE": "eventsourcing.postgres", "CREATE_TABLE": "y", "ORIGINATOR_ID_TYPE": "text",
            "POSTGRES_DBNAME": where.path.lstrip("/") or "postgres", "POSTGRES_HOST": where.hostname or "127.0.0.1",
            "POSTGRES_PORT": str(where.port or 5432), "POSTGRES_USER": unquote(where.username or "postgres"),
            "POSTGRES_PASSWORD": unquote(where.password or ""), "POSTGRES_SCHEMA": schema,
            "POSTGRES_POOL_SIZE": str(min(threads, 16)), "POSTGRES_MAX_OVERFLOW": "0",
            "POSTGRES_CONN_MAX_AGE": "", "POSTGRES_POOL_TIMEOUT": "300"}))
        recorder = factory.application_recorder()
        payloads = [msgpack.packb({"e": e.to_dict(), "t": "2026-12-01T00:00:00.000+00:00", "p": b"\0" * 32,
                                   "h": b"\0" * 32}) for e in events]

        def append(duel: str, i: int) -> None:
            recorder.insert_events([StoredEvent(duel, i + 1, events[i].kind, payloads[i])])
        close = factory.close
    else:
        from ygoreplay.store import Store
        store = Store(url, concurrent=True, create=False)

        def append(duel: str, i: int) -> None:
            store.append(duel, events[i])
        close = store.close

    def worker(mine: list[str]) -> None:
        for i in range(n_events):
            for duel in mine:
                t0 = time.perf_counter()
                try:
                    append(duel, i)
                except Exception as exc:                  # counted, and the run goes on
                    errors.append(f"{type(exc).__name__}: {exc}"[:200])
                latencies.append(time.perf_counter() - t0)
    shares = [duels[t::threads] for t in range(threads)]
    start.wait()
    t0 = time.perf_counter()
    pool = [threading.Thread(target=worker, args=(share,)) for share in shares if share]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    elapsed = time.perf_counter() - t0
    close()
    results.put((elapsed, latencies, errors))


def bench_store(n_duels: int, n_events: int, processes: int, threads: int) -> None:
    from ygoreplay.store import Store
    print(f"[store] PostgreSQL, {n_duels} duels x {n_events} events, {processes} processes x {threads} threads, "
          "one event per append, round-robin")
    figures = {}
    for kind in ("bare", "ygoreplay"):
        schema = Schema("store")
        try:
            if kind == "bare":
                duels = [f"bare-{i:05d}" for i in range(n_duels)]
            else:
                with Store(schema.url) as store:
                    duels = [store.create_duel(f"table {i}") for i in range(n_duels)]
            start = mp.get_context("spawn").Barrier(processes)
            results = mp.get_context("spawn").Queue()
            ctx = mp.get_context("spawn")
            procs = [ctx.Process(target=_store_writer, args=(kind, schema.url, duels[p::processes], n_events,
                                                              threads, start, results)) for p in range(processes)]
            for proc in procs:
                proc.start()
            outs = [results.get(timeout=900) for _ in procs]
            for proc in procs:
                proc.join()
            elapsed = max(o[0] for o in outs) or float("nan")
            latencies = [x for o in outs for x in o[1]]
            errors = [x for o in outs for x in o[2]]
            rate = len(latencies) / elapsed
            figures[kind] = rate
            label = "bare eventsourcing recorder, one event per transaction" if kind == "bare" else \
                "ygoreplay Store (rules checked, chain, signed anchor per append, group commit)"
            print(f"  {label}:")
            print(f"    {len(latencies):,} appends in {elapsed:.2f} s = {rate:,.0f} events/s; append p50 "
                  f"{ms(pct(latencies, .5))}, p99 {ms(pct(latencies, .99))}; errors {len(errors)}"
                  + (f" (first: {errors[0]})" if errors else ""))
            if kind == "ygoreplay":
                t0 = time.perf_counter()
                with Store(schema.url, readonly=True) as store:
                    counts = [len(store.records(d)) for d in duels]
                    bad = [d for d in duels if not store.verify(d).ok]
                print(f"    check: {sum(c == n_events for c in counts)}/{n_duels} duels hold exactly {n_events} "
                      f"events ({sum(counts):,} in all, expected {n_duels * n_events:,}); "
                      f"{n_duels - len(bad)}/{n_duels} verify ({time.perf_counter() - t0:.1f} s)")
        finally:
            schema.drop()
    print(f"  ratio: ygoreplay {figures['ygoreplay'] / figures['bare']:.1f}x the bare recorder "
          f"({figures['ygoreplay']:,.0f} vs {figures['bare']:,.0f} events/s; target >= 5,000)")


# -- a minimal keep-alive HTTP client -------------------------------------------------------------------

class Connection:
    """One keep-alive HTTP/1.1 connection: requests one at a time, responses by Content-Length."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> "Connection":
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer)

    async def request(self, method: str, path: str, token: str, body: bytes = b"") -> tuple[int, bytes]:
        head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode()
        self.writer.write(head + body)
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return status, await self.reader.readexactly(length)

    def close(self) -> None:
        self.writer.close()


class Service:
    def __init__(self, url: str, workers: int = 2) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        env = {**os.environ, "YGOREPLAY_ADMIN_TOKEN": ADMIN}
        self.process = subprocess.Popen([sys.executable, "-m", "ygoreplay", "serve", "--port", str(self.port),
                                         "--store", url, "--workers", str(workers)], env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        import httpx
        for _ in range(600):
            try:
                if httpx.get(f"http://127.0.0.1:{self.port}/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("the service did not start")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


async def _create_duels(port: int, n: int) -> list[dict]:
    conn = await Connection.open(port)
    out = []
    for i in range(n):
        status, body = await conn.request("POST", "/duels", ADMIN, json.dumps({"title": f"bench {i}"}).encode())
        assert status == 201, body
        out.append(json.loads(body))
    conn.close()
    return out


# -- 2. HTTP appends -------------------------------------------------------------------------------------

async def _record(port: int, duel: dict, bodies: list[bytes], latencies: list[float], failures: list[str],
                  rate: float | None = None) -> None:
    """One recorder: its duel's events one request each, back to back or ``rate`` per second."""
    conn = await Connection.open(port)
    token = duel["tokens"]["recorder"]
    loop = asyncio.get_running_loop()
    start = loop.time() + (random.random() / rate if rate else 0.0)     # scorekeepers do not act in step
    try:
        for i, body in enumerate(bodies):
            if rate:
                await asyncio.sleep(max(0.0, start + i / rate - loop.time()))
            t0 = time.perf_counter()
            status, answer = await conn.request("POST", f"/duels/{duel['id']}/events?expected={i}", token, body)
            latencies.append((i, time.perf_counter() - t0))
            if status != 200:
                failures.append(f"{status} {answer[:120]!r}")
                return
    finally:
        conn.close()


def bench_http(clients: int, n_events: int, rate: float) -> None:
    schema = Schema("http")
    service = Service(schema.url, workers=2)
    try:
        print(f"[http] ygoreplay serve --workers 2 on PostgreSQL; {clients} recorder clients x {n_events} events, "
              "one event per request (expected=N), keep-alive connections")
        # every table plays a duel of its own (a seed each), as a room of tables does
        bodies = [[json.dumps([e.to_dict()]).encode() for e in generate(n_events, seed)] for seed in range(clients)]
        for label, pace in (("as fast as they can (the most it takes)", None),
                            (f"paced at {rate:g} events/s each ({clients * rate:,.0f} appends/s offered)", rate)):
            duels = asyncio.run(_create_duels(service.port, clients))
            latencies: list[float] = []
            failures: list[str] = []

            async def run() -> float:
                t0 = time.perf_counter()
                await asyncio.gather(*(_record(service.port, d, bodies[k], latencies, failures, pace)
                                       for k, d in enumerate(duels)))
                return time.perf_counter() - t0
            elapsed = asyncio.run(run())
            every = [t for _, t in latencies]
            steady = [t for i, t in latencies if i >= 3]
            print(f"  {label}: {len(every):,} appends in {elapsed:.2f} s = {len(every) / elapsed:,.0f} "
                  f"appends/s; latency p50 {ms(pct(every, .5))}, p95 {ms(pct(every, .95))}, "
                  f"p99 {ms(pct(every, .99))}; failures {len(failures)}"
                  + (f" (first: {failures[0]})" if failures else ""))
            print(f"    after each table's first 3 appends (its set-up, and the worker that did not create "
                  f"it loading it): p50 {ms(pct(steady, .5))}, p95 {ms(pct(steady, .95))}, p99 {ms(pct(steady, .99))}")
        print("  target: >= 1,000 appends/s from 200 clients with p99 < 50 ms")
    finally:
        service.stop()
        schema.drop()


# -- 3. followers ------------------------------------------------------------------------------------------

async def _follow(port: int, duel: dict, token: str, expected: int, seen: list, done: asyncio.Event) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write((f"GET /duels/{duel['id']}/follow HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                  "Accept: text/event-stream\r\n\r\n").encode())
    ident = None
    got = []
    try:
        while len(got) < expected:
            line = await reader.readline()
            if not line:
                break
            if line.startswith(b"id: "):
                ident = int(line[4:])
                got.append(ident)
                seen.append((duel["id"], ident, time.time()))
    finally:
        writer.close()
    done.set()
    return got


def bench_follow(followers: int, n_duels: int, n_events: int, rate: float) -> None:
    schema = Schema("follow")
    service = Service(schema.url, workers=2)
    try:
        duels = asyncio.run(_create_duels(service.port, n_duels))
        events = generate(n_events, 1)
        bodies = [json.dumps([e.to_dict()]).encode() for e in events]
        seen: list[tuple[str, int, float]] = []
        acked: dict[tuple[str, int], float] = {}
        latencies: list[float] = []
        failures: list[str] = []

        async def paced(duel: dict) -> None:
            conn = await Connection.open(service.port)
            token = duel["tokens"]["recorder"]
            for i, body in enumerate(bodies):
                await asyncio.sleep(1 / rate)
                t0 = time.perf_counter()
                status, answer = await conn.request("POST", f"/duels/{duel['id']}/events?expected={i}", token, body)
                latencies.append(time.perf_counter() - t0)
                if status != 200:
                    failures.append(f"{status} {answer[:100]!r}")
                    return
                acked[(duel["id"], i)] = time.time()
            conn.close()

        async def run() -> list:
            dones = [asyncio.Event() for _ in range(followers)]
            tasks = [asyncio.create_task(_follow(service.port, duels[f % n_duels], duels[f % n_duels]["tokens"]["spectator"],
                                                 n_events, seen, dones[f])) for f in range(followers)]
            await asyncio.sleep(2.0)                     # every follower connected
            t0 = time.perf_counter()
            await asyncio.gather(*(paced(d) for d in duels))
            results = await asyncio.wait_for(asyncio.gather(*tasks), timeout=120)
            return [time.perf_counter() - t0, results]
        elapsed, received = asyncio.run(run())
        complete = sum(r == list(range(n_events)) for r in received)
        lags = [t - acked[(d, i)] for d, i, t in seen if (d, i) in acked]
        print(f"[follow] ygoreplay serve --workers 2 on PostgreSQL; {followers} SSE followers of {n_duels} duels, "
              f"{n_events} events each at {rate:g} events/s per duel ({n_duels * rate:,.0f} appends/s, "
              f"{followers * rate:,.0f} deliveries/s), in {elapsed:.1f} s")
        print(f"  {complete}/{followers} followers got every event once, in order; {len(seen):,} deliveries")
        print(f"  lag (read by the follower - append acknowledged): p50 {ms(pct(lags, .5))}, p99 {ms(pct(lags, .99))}, "
              f"max {ms(max(lags) if lags else float('nan'))}; append p99 {ms(pct(latencies, .99))}; "
              f"failures {len(failures)}")
        print("  target: every event once, p99 lag < 100 ms")
    finally:
        service.stop()
        schema.drop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, a few seconds: does it run (CI)")
    parser.add_argument("--only", choices=("store", "http", "follow"))
    parser.add_argument("--duels", type=int, help="duels at the store (default 1,000; quick 20)")
    parser.add_argument("--events", type=int, help="events per duel at the store (default 30; quick 5)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--threads", type=int, help="writer threads per process (default 128; quick 8)")
    parser.add_argument("--clients", type=int, help="HTTP recorder clients (default 200; quick 10)")
    parser.add_argument("--http-events", type=int, help="events per HTTP client (default 50; quick 5)")
    parser.add_argument("--http-rate", type=float, default=5.0, help="events per second per paced client")
    parser.add_argument("--followers", type=int, help="SSE followers (default 1,000; quick 20)")
    parser.add_argument("--follow-duels", type=int, help="followed duels (default 100; quick 5)")
    parser.add_argument("--follow-events", type=int, help="events per followed duel (default 30; quick 5)")
    parser.add_argument("--rate", type=float, default=4.0, help="events per second per followed duel")
    args = parser.parse_args(argv)
    q = args.quick
    t0 = time.perf_counter()
    if args.only in (None, "store"):
        bench_store(args.duels or (20 if q else 1000), args.events or (5 if q else 30), args.processes,
                    args.threads or (8 if q else 128))
    if args.only in (None, "http"):
        bench_http(args.clients or (10 if q else 200), args.http_events or (5 if q else 50), args.http_rate)
    if args.only in (None, "follow"):
        bench_follow(args.followers or (20 if q else 1000), args.follow_duels or (5 if q else 100),
                     args.follow_events or (5 if q else 30), args.rate)
    print(f"whole bench: {time.perf_counter() - t0:.1f} s; load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
