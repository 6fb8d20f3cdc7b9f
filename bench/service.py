"""Service benchmark: appends at the store, appends over HTTP, and live followers.

Run from the repository root after ``pip install -e '.[test]'``: ``python bench/service.py``
(``--quick`` for tiny sizes, a few seconds; ``--only store|http|follow`` for one part). It prints figures
and never fails on them. Everything runs against the PostgreSQL server of ``$YGOREPLAY_BENCH_PG``
(default 127.0.0.1:5432, database test; the bare recorder too), the service on a free port (a throw-away
schema per part, dropped at the end), as the multi-process service does.

1. **Store** (``--duels`` 1,000 duels, ``--events`` each): writer processes of writer threads
   append every duel's events one event per append, round-robin, as a room of live scorekeepers
   would, through ``Store(concurrent=True)`` (group commit: the appends waiting at one moment are
   written in one transaction). The baseline of the same run, interleaved round by round, is
   **raw psycopg with a group commit of the same payloads**: the same processes and threads, each
   append handing its event's stored envelope and a signed anchor's bytes (pre-encoded) to a
   thread per process that writes whatever is waiting as one multi-row insert of binary arrays
   into a table of the recorder's shape and commits (no rules, no chain, no signing, no index,
   no table lock): the most PostgreSQL gives these appends on this machine. ``--bare`` adds the
   bare ``eventsourcing`` recorder, one event per transaction (what the store did once). Every
   duel is then counted (nothing lost or written twice) and verified. The writer processes collect
   garbage as the service's process does (``gc.freeze`` at start, thresholds 50,000/20/100), every
   kind alike; ``--default-gc`` keeps the collector's defaults. With ``--before`` the two trees
   take turns right after the raw run, round by round (the run there spent 1-10% more CPU an
   append, whichever tree it was), and their CPU an append is compared round by round. Limits
   (issue 25): the store's rate >= 0.7x the raw group commit's, append p99 < 50 ms, nothing lost.
2. **HTTP** (``ygoreplay serve --workers 2``): ``--clients`` recorder clients (default 200), each
   recording its own duel one event per request with ``expected=N``, over keep-alive connections
   of a minimal asyncio HTTP client (so the client, on the same 2 cores, costs as little as it
   can); appends/s, the share of the offered rate served, the latency percentiles of every
   request, and the CPU the service's processes spent per append (read from ``/proc``: in all
   their threads, and in the workers' event loops). ``--rounds`` repeats both modes, the trees
   of ``--before`` in the other order each round, and prints the medians. Limits: p99 < 50 ms,
   CPU <= 0.3 ms an append.
3. **Follow**: ``--followers`` SSE followers (default 100, then 1,000) spread over
   ``--follow-duels`` duels (default 100) on the 2-worker service, while recorders append to
   those duels; every follower must receive every event once, in order; lag = the time a
   follower reads an event minus the time its recorder's append was acknowledged. The followers
   run in a process of their own, as cheap as a client gets (raw connections on uvloop, only the
   ``id:`` lines looked for), so the CPU of the service, of the followers and of the recorders is
   each told apart; then the largest crowd follows one duel, whose appends and views cost next to
   nothing: the service's CPU there is what a delivery costs. Limits: p99 lag < 50 ms, and 1,000
   followers' p99 no more than twice 100's (flat in followers).
4. **Crowd** (``--only crowd``, only when asked): every follower on one duel, for each of
   ``--followers``, on ``--follow-workers`` workers (default 1: one event loop's fan-out), the
   trees of ``--before`` taking turns (the other order each ``--rounds`` round): the lag from the
   append's sending (p50/p99) and the service's CPU a delivery, each count's medians at the end.

``--before DIR`` runs every part also with the ``ygoreplay`` of another checkout (its package
first on the path: the writer processes import it, the service runs from it), interleaved with
this one's, and prints each figure of both side by side: the before/after of ``bench/README.md``.
Each figure is printed as a ratio to its limit (``1.00`` is the limit; below 1 meets a "<" limit,
above 1 a ">=" one).
"""
from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.util
import json
import multiprocessing as mp
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import generate  # noqa: E402  (bench/synthetic.py)

PG = os.environ.get("YGOREPLAY_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
#: The checkout whose ``ygoreplay`` this process imports ("after"): its processes run there (``tree_env``).
THIS_TREE = str(Path(importlib.util.find_spec("ygoreplay").origin).parents[1])
ADMIN = "bench-organiser-token-0123456789abcdef0123456789"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def against(value: float, limit: float, at_least: bool = False) -> str:
    """A figure as a ratio to its limit, and whether it is met."""
    ratio = value / limit if limit else float("nan")
    met = ratio >= 1 if at_least else ratio < 1
    return f"{ratio:.2f} of its limit ({'met' if met else 'NOT met'})"


def trees(before: str | None) -> list[tuple[str, str | None]]:
    """The checkouts measured: this one (its ``ygoreplay`` as imported) and ``--before``'s."""
    return [("after", None)] + ([("before", str(Path(before).resolve()))] if before else [])


def tree_env(path: str | None) -> dict:
    """The environment of a process of a checkout (its package first on the path). Such a process
    also runs in the checkout (``cwd``): ``python -m`` and ``-c`` put their working folder on
    the path before ``PYTHONPATH``, so one started here would import this checkout's package (the
    service's before/after measured this tree twice until that was seen)."""
    env = dict(os.environ)
    if path:
        env["PYTHONPATH"] = path + os.pathsep + env.get("PYTHONPATH", "")
    return env


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

def _store_writer(kind: str, url: str, duels: list[str], n_events: int, threads: int, start, results,
                  service_gc: bool = True) -> None:
    """One writer process (a failure is reported, never left for the parent to wait on)."""
    try:
        _store_writes(kind, url, duels, n_events, threads, start, results, service_gc)
    except BaseException as exc:
        results.put((0.0, [], [f"the writer process failed: {type(exc).__name__}: {exc}"[:300]], [], 0.0))


def _store_writes(kind: str, url: str, duels: list[str], n_events: int, threads: int, start, results,
                  service_gc: bool = True) -> None:
    """``threads`` threads, each appending its duels' events round-robin. With ``service_gc`` the
    process collects as the service's does (``ygoreplay.service.create_app``: what exists at start
    frozen, the young generation collected every 50,000 allocations), every kind alike."""
    events = generate(n_events, 1)
    latencies: list[float] = []
    errors: list[str] = []
    if kind == "raw":
        append, close = _raw_group_commit(url, events)
    elif kind == "bare":
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

    steady: list[float] = []                              # after each duel's first append (its head loaded)

    def worker(mine: list[str]) -> None:
        for i in range(n_events):
            for duel in mine:
                t0 = time.perf_counter()
                try:
                    append(duel, i)
                except Exception as exc:                  # counted, and the run goes on
                    errors.append(f"{type(exc).__name__}: {exc}"[:200])
                latencies.append(time.perf_counter() - t0)
                if i:
                    steady.append(latencies[-1])
    shares = [duels[t::threads] for t in range(threads)]
    if service_gc:
        gc.collect()
        gc.freeze()
        gc.set_threshold(50_000, 20, 100)
    start.wait()
    t0, cpu0 = time.perf_counter(), time.process_time()
    pool = [threading.Thread(target=worker, args=(share,)) for share in shares if share]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    elapsed, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    close()
    results.put((elapsed, latencies, errors, steady, cpu))


def bench_store(n_duels: int, n_events: int, processes: int, threads: int, rounds: int, bare: bool,
                before: str | None, service_gc: bool = True) -> None:
    print(f"[store] PostgreSQL, {n_duels} duels x {n_events} events, {processes} processes x {threads} threads, "
          f"one event per append, round-robin; {rounds} round(s), the kinds interleaved in each"
          + (", the two trees in the other order each round" if before else "") + "; the writer "
          f"processes' collector {'as the service sets it' if service_gc else 'at its defaults'}")
    raw_kind = ("raw", "raw psycopg, group commit of the same payloads", None)
    ours = [("ygoreplay", f"ygoreplay Store, {name} (rules, chain, signed anchor, index; group commit)", tree)
            for name, tree in trees(before)]
    kinds = [raw_kind, *ours] + ([("bare", "bare eventsourcing recorder, one event per transaction", None)]
                                 if bare else [])
    runs: dict[str, list[dict]] = {label: [] for _kind, label, _tree in kinds}
    expected = n_duels * n_events
    for r in range(rounds):
        # the trees take turns right after the raw run: whichever ran there spent ~5% more CPU an
        # append (the same tree in both places, or the trees swapped), which read as a regression
        for kind, label, tree in [raw_kind, *(ours if r % 2 == 0 else ours[::-1]), *kinds[1 + len(ours):]]:
            run = _store_run(kind, tree, n_duels, n_events, processes, threads, service_gc)
            runs[label].append(run)
            lost = expected - run.get("stored", expected)
            print(f"  round {r + 1}, {label}:\n    {run['n']:,} appends in {run['elapsed']:.2f} s = {run['rate']:,.0f} "
                  f"events/s; append p50 {ms(run['p50'])}, p99 {ms(run['p99'])}; CPU {run['cpu'] * 1e6:.0f} us an "
                  f"append (writer processes); errors {len(run['errors'])}"
                  + (f" (first: {run['errors'][0]})" if run["errors"] else "")
                  + (f"; stored {run['stored']:,} of {expected:,} (lost {lost})" if "stored" in run else "")
                  + (f"; {run['complete']}/{n_duels} duels complete, {run['verified']}/{n_duels} verify"
                     if run.get("verified") is not None else ""))
    raw = runs[kinds[0][1]]
    for _kind, label, _tree in kinds[1:]:
        if not label.startswith("ygoreplay"):
            continue
        mine = runs[label]
        ratios = [m["rate"] / b["rate"] for m, b in zip(mine, raw)]
        p99 = statistics.median(m["p99"] for m in mine)
        to_raw = statistics.median(m["p99"] / b["p99"] for m, b in zip(mine, raw))
        cpu = statistics.median(m["cpu"] for m in mine)
        cpu_raw = statistics.median(m["cpu"] / b["cpu"] for m, b in zip(mine, raw))
        lost = sum(expected - m["stored"] for m in mine)
        print(f"  {label.split(', ')[1].split(' (')[0]}: rate / raw group commit {statistics.median(ratios):.2f} "
              f"(per round {', '.join(f'{x:.2f}' for x in ratios)}), "
              f"{against(statistics.median(ratios), 0.7, at_least=True)}; append p99 {ms(p99)}, "
              f"{against(p99, 0.050)}, {to_raw:.1f}x the raw group commit's p99; after each duel's first append "
              f"p99 {ms(statistics.median(m['steady99'] for m in mine))}; CPU {cpu * 1e6:.0f} us an append in the "
              f"writer processes ({cpu_raw:.1f}x the raw group commit's); lost {lost}, "
              f"{'met' if lost == 0 else 'NOT met'} (limit 0)")
    if len(ours) == 2:
        cpus = [a["cpu"] / b["cpu"] for a, b in zip(runs[ours[0][1]], runs[ours[1][1]])]
        print(f"  CPU an append in the writer processes, after / before: median {statistics.median(cpus):.2f} "
              f"(per round {', '.join(f'{x:.2f}' for x in cpus)}; after ran first in rounds 1, 3, ...)")


RAW_TABLE = "raw_events"


def _raw_payloads(events: list) -> list[tuple[bytes, bytes]]:
    """Each event's bytes as the store writes them: its envelope (event, time, two chain hashes)
    and an anchor of the same shape as a signed head."""
    import msgpack
    when, digest = "2026-12-01T00:00:00.000+00:00", b"\1" * 32
    head = {"n": 1, "h": digest, "header": digest, "cards": digest,
            "status": {"players": ["Player One", "Player Two"], "turn": 3, "lp": [8000, 8000], "ended": False,
                       "winner": None, "reason": None}, "key": digest, "sig": b"\2" * 64}
    return [(msgpack.packb({"e": e.to_dict(), "t": when, "p": digest, "h": digest}), msgpack.packb(head))
            for e in events]


def _raw_group_commit(url: str, events: list):
    """Raw psycopg with a group commit: a thread writes every waiting append's two rows in one
    multi-row insert of binary arrays and one commit, then wakes their writers."""
    import queue
    from urllib.parse import parse_qs, urlparse
    import psycopg
    from psycopg import sql
    schema = parse_qs(urlparse(url).query)["schema"][0]
    insert = sql.SQL("INSERT INTO {} (originator_id, originator_version, topic, state) SELECT * FROM "
                     "unnest(%b::text[], %b::int8[], %b::text[], %b::bytea[])").format(sql.Identifier(schema, RAW_TABLE))
    conn = psycopg.connect(url.split("?")[0], autocommit=True)
    payloads = _raw_payloads(events)
    waiting: queue.SimpleQueue = queue.SimpleQueue()

    def commit() -> None:
        while True:
            batch = [waiting.get()]
            while True:
                try:
                    batch.append(waiting.get_nowait())
                except queue.Empty:
                    break
            if batch[-1] is None:
                return
            ids, versions, topics, states = [], [], [], []
            for duel, i, _done in batch:
                ids += [duel, f"{duel}/head"]
                versions += [i + 1, i + 1]
                topics += [events[i].kind, "ygoreplay:head"]
                states += list(payloads[i])
            with conn.transaction():
                conn.execute(insert, (ids, versions, topics, states), prepare=True)
            for _duel, _i, done in batch:
                done.set()
    committer = threading.Thread(target=commit, daemon=True)
    committer.start()

    def append(duel: str, i: int) -> None:
        done = threading.Event()
        waiting.put((duel, i, done))
        done.wait()

    def close() -> None:
        waiting.put(None)
        committer.join()
        conn.close()
    return append, close


def _raw_table(url: str) -> None:
    import psycopg
    from psycopg import sql
    from urllib.parse import parse_qs, urlparse
    schema = parse_qs(urlparse(url).query)["schema"][0]
    with psycopg.connect(url.split("?")[0], autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE TABLE {} (originator_id text NOT NULL, originator_version bigint NOT NULL, "
                             "topic text, state bytea, notification_id bigserial, "
                             "PRIMARY KEY (originator_id, originator_version))").format(sql.Identifier(schema, RAW_TABLE)))


def _raw_count(url: str) -> int:
    import psycopg
    from psycopg import sql
    from urllib.parse import parse_qs, urlparse
    schema = parse_qs(urlparse(url).query)["schema"][0]
    with psycopg.connect(url.split("?")[0], autocommit=True) as conn:
        return conn.execute(sql.SQL("SELECT count(*) FROM {} WHERE topic <> 'ygoreplay:head'").format(
            sql.Identifier(schema, RAW_TABLE))).fetchone()[0]


def _count_and_verify(url: str, duels: list[str], tree: str | None) -> tuple[list[int], int]:
    """Each duel's length and how many verify, read by the tree that wrote them (a process of its own)."""
    code = ("import json, sys\nfrom ygoreplay.store import Store\nurl, duels = sys.argv[1], json.loads(sys.stdin.read())\n"
            "with Store(url, readonly=True) as st:\n"
            "    print(json.dumps([[len(st.records(d)) for d in duels], sum(st.verify(d).ok for d in duels)]))")
    done = subprocess.run([sys.executable, "-c", code, url], input=json.dumps(duels), capture_output=True, text=True,
                          env=tree_env(tree), cwd=tree or THIS_TREE, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"counting the duels failed: {done.stderr[-500:]}")
    counts, verified = json.loads(done.stdout)
    return counts, verified


def _store_run(kind: str, tree: str | None, n_duels: int, n_events: int, processes: int, threads: int,
               service_gc: bool = True) -> dict:
    """One run of one kind: its rate, latencies, errors, and what was lost."""
    schema = Schema("store")
    try:
        if kind in ("raw", "bare"):
            duels = [f"{kind}-{i:05d}" for i in range(n_duels)]
            if kind == "raw":
                _raw_table(schema.url)
        else:
            code = ("import json, sys\nfrom ygoreplay.store import Store\n"
                    "with Store(sys.argv[1]) as st:\n"
                    "    print(json.dumps([st.create_duel(f'table {i}') for i in range(int(sys.argv[2]))]))")
            made = subprocess.run([sys.executable, "-c", code, schema.url, str(n_duels)], capture_output=True,
                                  text=True, env=tree_env(tree), cwd=tree or THIS_TREE, timeout=600)
            if made.returncode != 0:
                raise RuntimeError(f"creating the duels failed: {made.stderr[-500:]}")
            duels = json.loads(made.stdout)
        ctx = mp.get_context("spawn")
        start, results = ctx.Barrier(processes), ctx.Queue()
        procs = [ctx.Process(target=_store_writer, args=(kind, schema.url, duels[p::processes], n_events,
                                                          threads, start, results, service_gc))
                 for p in range(processes)]
        if tree:                         # a spawned process starts with this path: it imports that tree's package
            sys.path.insert(0, tree)
        try:
            for proc in procs:
                proc.start()
        finally:
            if tree:
                sys.path.remove(tree)
        outs = [results.get(timeout=900) for _ in procs]
        for proc in procs:
            proc.join()
        elapsed = max(o[0] for o in outs) or float("nan")
        latencies = [x for o in outs for x in o[1]]
        errors = [x for o in outs for x in o[2]]
        run = {"rate": len(latencies) / elapsed, "elapsed": elapsed, "n": len(latencies), "errors": errors,
               "p50": pct(latencies, .5), "p99": pct(latencies, .99),
               "steady99": pct([x for o in outs for x in o[3]], .99),
               "cpu": sum(o[4] for o in outs) / max(1, len(latencies))}      # the writer processes' CPU
        if kind == "raw":
            run["stored"], run["verified"] = _raw_count(schema.url), None
        elif kind != "bare":
            counts, verified = _count_and_verify(schema.url, duels, tree)
            run["stored"], run["verified"], run["complete"] = sum(counts), verified, sum(c == n_events for c in counts)
        return run
    finally:
        schema.drop()


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


def wait_up(port: int) -> None:
    """Until the service on ``port`` answers its health check (a minute at most)."""
    import httpx
    for _ in range(600):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError("the service did not start")


class Service:
    """``ygoreplay serve`` of a checkout (``tree``; this one by default) on a free port."""

    def __init__(self, url: str, workers: int = 2, tree: str | None = None) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        # -P: not the working directory's ygoreplay first (run from a checkout, "before" would serve it)
        # every client here is this one host: past the cap on one address (``request_head.PER_ADDRESS``)
        env = {**tree_env(tree or THIS_TREE), "YGOREPLAY_ADMIN_TOKEN": ADMIN,
               "YGOREPLAY_CONNECTIONS_PER_ADDRESS": "100000"}
        self.process = subprocess.Popen([sys.executable, "-P", "-m", "ygoreplay", "serve", "--port", str(self.port),
                                         "--store", url, "--workers", str(workers)], env=env, cwd=tree or THIS_TREE,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_up(self.port)

    def cpu(self) -> tuple[float, float]:
        """CPU seconds the service's processes (the server and its workers) have used so far: in
        all their threads, and in their main threads (each worker's event loop)."""
        tick = os.sysconf("SC_CLK_TCK")
        parents = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except OSError:
                    continue
        family, total, loops = {self.process.pid}, 0.0, 0.0
        for _ in range(3):                   # the server, its workers, anything they started
            family |= {pid for pid, parent in parents.items() if parent in family}
        for pid in family:
            for task in Path(f"/proc/{pid}/task").glob("*"):
                try:
                    fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                used = (int(fields[11]) + int(fields[12])) / tick
                total += used
                loops += used if task.name == str(pid) else 0.0
        return total, loops

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(30)


async def _create_duels(port: int, n: int, set_ups: list[list[dict]] | None = None) -> list[dict]:
    """``n`` duels made by the organiser; with ``set_ups``, each made with its set-up (``POST /duels``'
    ``set_up``: its table's first events), which its recorder still sends as its first append."""
    conn = await Connection.open(port)
    out = []
    for i in range(n):
        made = {"title": f"bench {i}", **({"set_up": set_ups[i]} if set_ups else {})}
        status, body = await conn.request("POST", "/duels", ADMIN, json.dumps(made).encode())
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


def _http_run(port: int, clients: int, bodies: list[list[bytes]], pace: float | None, service: Service,
              set_ups: list[list[dict]] | None = None) -> dict:
    made, _loops = service.cpu()
    duels = asyncio.run(_create_duels(port, clients, set_ups))
    made = (service.cpu()[0] - made) / clients
    latencies: list[tuple[int, float]] = []
    failures: list[str] = []

    async def run() -> float:
        t0 = time.perf_counter()
        await asyncio.gather(*(_record(port, d, bodies[k], latencies, failures, pace) for k, d in enumerate(duels)))
        return time.perf_counter() - t0
    cpu, loops = service.cpu()
    elapsed = asyncio.run(run())
    after, after_loops = service.cpu()
    every = [t for _, t in latencies]
    return {"n": len(every), "elapsed": elapsed, "rate": len(every) / elapsed, "p50": pct(every, .5),
            "p95": pct(every, .95), "p99": pct(every, .99), "failures": failures,
            "cpu": (after - cpu) / max(1, len(every)), "loops": (after_loops - loops) / max(1, len(every)),
            "steady99": pct([t for i, t in latencies if i >= 3], .99), "made": made}


def bench_http(clients: int, n_events: int, rate: float, before: str | None, rounds: int = 1,
               set_up_at_create: bool = False) -> None:
    measured = trees(before)
    schemas = [Schema("http") for _ in measured]
    services: list[Service] = []
    try:
        services += [Service(schema.url, workers=2, tree=tree) for schema, (_name, tree) in zip(schemas, measured)]
        print(f"[http] ygoreplay serve --workers 2 on PostgreSQL; {clients} recorder clients x {n_events} events, "
              f"one event per request (expected=N), keep-alive connections; {rounds} round(s)"
              + ("; before and after interleaved, each round in the other order" if before else ""))
        # every table plays a duel of its own (a seed each), as a room of tables does
        duels = [generate(n_events, seed) for seed in range(clients)]
        bodies = [[json.dumps([e.to_dict()]).encode() for e in duel] for duel in duels]
        # this tree's duels ("after") made with their set-up, each table's recorder unchanged (``--set-up-at-create``)
        set_ups = [[duel[0].to_dict()] for duel in duels] if set_up_at_create else None
        offered = clients * rate
        modes = (("as fast as they can (the most it takes)", None),
                 (f"paced at {rate:g} events/s each ({offered:,.0f} appends/s offered)", rate))
        runs: dict[tuple[str, str], list[dict]] = {}
        for r in range(rounds):
            for label, pace in modes:
                order = list(zip(measured, services))
                for (name, _tree), service in (order if r % 2 == 0 else order[::-1]):
                    run = _http_run(service.port, clients, bodies, pace, service,
                                    set_ups if name == "after" else None)
                    runs.setdefault((name, label), []).append(run)
                    served = f", {run['rate'] / offered:.0%} of the offered rate" if pace else ""
                    print(f"  {name}, {label}{f', round {r + 1}' if rounds > 1 else ''}: {run['n']:,} appends in "
                          f"{run['elapsed']:.2f} s = {run['rate']:,.0f} appends/s{served}; latency p50 {ms(run['p50'])}, "
                          f"p95 {ms(run['p95'])}, p99 {ms(run['p99'])} ({against(run['p99'], 0.050)}); "
                          f"failures {len(run['failures'])}" + (f" (first: {run['failures'][0]})" if run["failures"] else ""))
                    print(f"    service CPU {run['cpu'] * 1000:.2f} ms an append ({against(run['cpu'], 0.0003)}; "
                          f"{run['made'] * 1000:.2f} ms a duel made before, not counted; "
                          f"{run['loops'] * 1000:.2f} of it in the event loops); p99 after each table's first 3 "
                          f"appends {ms(run['steady99'])}")
        if rounds > 1 or before:
            for label, _pace in modes:
                for name, _tree in measured:
                    mine = runs[(name, label)]
                    print(f"  {name}, {label}, median of {len(mine)}: "
                          f"{statistics.median(m['rate'] for m in mine):,.0f} appends/s, "
                          f"p99 {ms(statistics.median(m['p99'] for m in mine))}, service CPU "
                          f"{statistics.median(m['cpu'] for m in mine) * 1000:.2f} ms an append "
                          f"({statistics.median(m['loops'] for m in mine) * 1000:.2f} in the event loops)")
    finally:
        for service in services:
            service.stop()
        for schema in schemas:
            schema.drop()


# -- 3. followers ------------------------------------------------------------------------------------------

class _Follower(asyncio.Protocol):
    """One follower as cheap as a client can be: a raw connection from an address of its own
    (127.x.y.z: every address of 127/8 is this machine's loopback; the service takes at most
    ``FOLLOWS_PER_CLIENT`` streams from one client address, and a crowd of spectators is many
    clients), whose bytes are only searched for the ``id:`` lines of the events, each stamped
    with the time its bytes arrived."""

    IDS = re.compile(rb"^id: (\d+)\r?$", re.MULTILINE)

    def __init__(self, request: bytes, expected: int, started: asyncio.Future, done: asyncio.Future) -> None:
        self.request, self.expected, self.started, self.done = request, expected, started, done
        self.got: list[tuple[int, float]] = []
        self.head = True
        self.rest = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport                                  # type: ignore[assignment]
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.time()
        if self.head:
            self.head = False
            status = data.split(b"\r\n", 1)[0].split()
            self.started.set_result(None if status[1:2] == [b"200"] else b" ".join(status[1:]).decode(errors="replace"))
            if self.started.result() is not None:
                return self.transport.close()
        text = self.rest + data
        cut = text.rfind(b"\n") + 1                # whole lines only: a line may arrive in two reads
        self.rest = text[cut:]
        self.got += [(int(m.group(1)), now) for m in self.IDS.finditer(text, 0, cut)]
        if len(self.got) >= self.expected:
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.started.done():
            self.started.set_result(f"closed: {exc}")
        if not self.done.done():
            self.done.set_result(None)


async def _follow_all(port: int, follows: list[tuple[str, str]], expected: int, ready, timeout: float) -> dict:
    loop = asyncio.get_running_loop()
    followers = []
    for index, (duel, token) in enumerate(follows):
        here = f"127.{1 + index // 65536}.{index // 256 % 256}.{1 + index % 250}"
        request = (f"GET /duels/{duel}/follow HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                   "Accept: text/event-stream\r\n\r\n").encode()
        follower = _Follower(request, expected, loop.create_future(), loop.create_future())
        await loop.create_connection(lambda f=follower: f, "127.0.0.1", port, local_addr=(here, 0))
        followers.append(follower)
    refused = [r for r in await asyncio.gather(*(f.started for f in followers)) if r is not None]
    cpu = time.process_time()
    ready.send(refused)                         # every stream open: the recorders may start
    await asyncio.wait([f.done for f in followers], timeout=timeout)
    cpu = time.process_time() - cpu
    for follower in followers:
        follower.transport.close()
    return {"got": [f.got for f in followers], "refused": refused, "cpu": cpu}


def _followers(port: int, follows: list[tuple[str, str]], expected: int, ready, timeout: float) -> None:
    """The followers, in a process of their own (so their CPU is told apart from the service's
    and the recorders'), on uvloop when it is there, as the service is."""
    try:
        import uvloop
        factory = uvloop.new_event_loop
    except ImportError:
        factory = None
    with asyncio.Runner(loop_factory=factory) as runner:
        ready.send(runner.run(_follow_all(port, follows, expected, ready, timeout)))


def _follow_run(port: int, followers: int, n_duels: int, bodies: list[bytes], rate: float, service: Service) -> dict:
    duels = asyncio.run(_create_duels(port, n_duels))
    n_events = len(bodies)
    acked: dict[tuple[str, int], float] = {}
    asked: dict[tuple[str, int], float] = {}      # when each append was sent
    latencies: list[float] = []
    failures: list[str] = []

    async def paced(duel: dict) -> None:
        conn = await Connection.open(port)
        token = duel["tokens"]["recorder"]
        await asyncio.sleep(random.random() / rate)      # the tables do not act in step
        for i, body in enumerate(bodies):
            await asyncio.sleep(1 / rate)
            t0, asked[(duel["id"], i)] = time.perf_counter(), time.time()
            status, answer = await conn.request("POST", f"/duels/{duel['id']}/events?expected={i}", token, body)
            latencies.append(time.perf_counter() - t0)
            if status != 200:
                failures.append(f"{status} {answer[:100]!r}")
                return
            acked[(duel["id"], i)] = time.time()
        conn.close()

    async def record() -> float:
        t0 = time.perf_counter()
        await asyncio.gather(*(paced(d) for d in duels))
        return time.perf_counter() - t0

    follows = [(duels[f % n_duels]["id"], duels[f % n_duels]["tokens"]["spectator"]) for f in range(followers)]
    here, there = mp.get_context("spawn").Pipe()
    crowd = mp.get_context("spawn").Process(target=_followers, args=(port, follows, n_events, there, 120.0))
    crowd.start()
    try:
        if not here.poll(300):
            raise RuntimeError("the followers did not connect")
        refused = here.recv()
        cpu, mine = service.cpu()[0], time.process_time()
        elapsed = asyncio.run(record())
        if not here.poll(300):
            raise RuntimeError("the followers did not finish")
        out = here.recv()
        cpu, mine = service.cpu()[0] - cpu, time.process_time() - mine
    finally:
        crowd.join(30)
        if crowd.is_alive():
            crowd.kill()
    seen = [(duel, i, t) for (duel, _token), got in zip(follows, out["got"]) for i, t in got]
    lags = [t - acked[(d, i)] for d, i, t in seen if (d, i) in acked]
    # from the append's sending: a service that answers its recorder before its followers (or after)
    # moves the lag from the ack by the fan-out's time, not how soon a follower has the event
    sent_lags = [t - asked[(d, i)] for d, i, t in seen if (d, i) in acked]
    return {"elapsed": elapsed, "complete": sum([i for i, _t in got] == list(range(n_events)) for got in out["got"]),
            "seen": len(seen), "p50": pct(lags, .5), "p99": pct(lags, .99), "max": max(lags) if lags else float("nan"),
            "sent50": pct(sent_lags, .5), "sent99": pct(sent_lags, .99),
            "steady99": pct([t - acked[(d, i)] for d, i, t in seen if (d, i) in acked and i >= 3], .99),
            "append99": pct(latencies, .99), "failures": failures + [f"follow refused: {r}" for r in refused],
            "service_cpu": cpu, "client_cpu": out["cpu"], "recorders_cpu": mine, "appends": len(latencies)}


def _served_follow_run(tree: str | None, followers: int, n_duels: int, bodies: list[bytes], rate: float,
                       workers: int = 2) -> dict:
    """``_follow_run`` on a service of its own (``tree``'s, of ``workers`` workers), in a schema of its own."""
    schema = Schema("follow")
    service = None
    try:
        service = Service(schema.url, workers=workers, tree=tree)
        return _follow_run(service.port, followers, n_duels, bodies, rate, service)
    finally:
        if service is not None:
            service.stop()
        schema.drop()


def bench_crowds(counts: tuple[int, ...], n_events: int, rate: float, before: str | None, workers: int,
                 rounds: int) -> None:
    """Every follower on one duel, for each count, the trees of ``--before`` taking turns (the
    other order each round): the lag and the service's CPU a delivery of one duel's fan-out."""
    measured = trees(before)
    bodies = [json.dumps([e.to_dict()]).encode() for e in generate(n_events, 1)]
    print(f"[crowd] ygoreplay serve --workers {workers} on PostgreSQL; every follower on one duel, {n_events} events "
          f"at {rate:g}/s; {', '.join(map(str, counts))} followers, {rounds} round(s), trees interleaved")
    runs: dict[tuple[str, int], list[dict]] = {}
    for r in range(rounds):
        for crowd in counts:
            for name, tree in (measured if r % 2 == 0 else measured[::-1]):
                run = _served_follow_run(tree, crowd, 1, bodies, rate, workers)
                runs.setdefault((name, crowd), []).append(run)
                deliveries = max(1, run["seen"])
                print(f"  round {r + 1}, {name}, {crowd} followers: {run['complete']}/{crowd} got every event once, "
                      f"in order; service CPU {run['service_cpu'] / deliveries * 1e6:.1f} us a delivery "
                      f"({run['seen']:,} deliveries); lag from the append's sending p50 {ms(run['sent50'])}, p99 "
                      f"{ms(run['sent99'])}; from the ack p50 {ms(run['p50'])}, p99 {ms(run['p99'])}; append p99 "
                      f"{ms(run['append99'])}; load {os.getloadavg()[0]:.1f}")
    for crowd in counts:
        for name, _tree in measured:
            got = runs[(name, crowd)]
            cpu = statistics.median(run["service_cpu"] / max(1, run["seen"]) * 1e6 for run in got)
            print(f"  median, {name}, {crowd} followers: CPU {cpu:.1f} us a delivery; lag from sending p50 "
                  f"{ms(statistics.median(run['sent50'] for run in got))}, p99 "
                  f"{ms(statistics.median(run['sent99'] for run in got))} ({against(statistics.median(run['sent99'] for run in got), 0.050)})")


def bench_follow(counts: tuple[int, ...], n_duels: int, n_events: int, rate: float, before: str | None) -> None:
    measured = trees(before)
    bodies = [json.dumps([e.to_dict()]).encode() for e in generate(n_events, 1)]
    runs: dict[tuple[str, int], dict] = {}
    print(f"[follow] ygoreplay serve --workers 2 on PostgreSQL; SSE followers of {n_duels} duels, {n_events} events "
          f"each at {rate:g} events/s per duel ({n_duels * rate:,.0f} appends/s); {', '.join(map(str, counts))} "
          "followers, in a process of their own" + ("; before and after interleaved" if before else ""))
    for followers in counts:
        for name, tree in measured:
            run = runs[(name, followers)] = _served_follow_run(tree, followers, n_duels, bodies, rate)
            deliveries = max(1, run["seen"])
            print(f"  {name}, {followers} followers ({followers * rate:,.0f} deliveries/s), {run['elapsed']:.1f} s: "
                  f"{run['complete']}/{followers} got every event once, in order; {run['seen']:,} deliveries")
            print(f"    lag (read by the follower - append acknowledged): p50 {ms(run['p50'])}, p99 {ms(run['p99'])} "
                  f"({against(run['p99'], 0.050)}), max {ms(run['max'])}; p99 after each duel's first 3 events "
                  f"{ms(run['steady99'])}; from the append's sending p50 {ms(run['sent50'])}, p99 {ms(run['sent99'])}; "
                  f"append p99 {ms(run['append99'])}; "
                  f"failures {len(run['failures'])}" + (f" (first: {run['failures'][0]})" if run["failures"] else ""))
            print(f"    CPU while the duels were recorded: service {run['service_cpu']:.2f} s "
                  f"({run['service_cpu'] / deliveries * 1e6:.0f} us a delivery, its {run['appends']:,} appends included); "
                  f"the followers' client {run['client_cpu']:.2f} s ({run['client_cpu'] / deliveries * 1e6:.0f} us a "
                  f"delivery); the recorders' client {run['recorders_cpu']:.2f} s")
    # One duel, every follower on it: its appends and its view's steps are next to nothing, so
    # the service's CPU is what the deliveries cost (the figures above carry the appends and the
    # views, which each of the two workers makes for itself once both have followers of a duel).
    crowd = counts[-1]
    for name, tree in measured:
        run = _served_follow_run(tree, crowd, 1, bodies, rate)
        deliveries = max(1, run["seen"])
        print(f"  {name}, {crowd} followers of one duel: {run['complete']}/{crowd} got every event once, in order; "
              f"service CPU {run['service_cpu'] / deliveries * 1e6:.1f} us a delivery ({run['seen']:,} deliveries, "
              f"{run['appends']} appends); the followers' client {run['client_cpu'] / deliveries * 1e6:.1f} us; "
              f"lag p50 {ms(run['p50'])}, p99 {ms(run['p99'])}; from the append's sending p50 {ms(run['sent50'])}, "
              f"p99 {ms(run['sent99'])}; append p99 {ms(run['append99'])}")
    if len(counts) > 1:
        for name, _tree in measured:
            low, high = runs[(name, counts[0])], runs[(name, counts[-1])]
            # a lag can be below zero (read before the recorder had its answer): the flatness is of p99s over 1 ms
            flat = max(high["p99"], 0.001) / max(low["p99"], 0.001)
            print(f"  {name}: p99 lag of {counts[-1]} followers / of {counts[0]}: {flat:.2f} "
                  f"(limit 2, flat in followers: {against(flat, 2.0)})")
            # the same appends either way: what the service spent more is what the deliveries cost
            more = high["seen"] - low["seen"]
            if more > 0:
                print(f"  {name}: service CPU a delivery, beyond the appends ({counts[-1]} followers' CPU less "
                      f"{counts[0]}'s, over the deliveries more): "
                      f"{(high['service_cpu'] - low['service_cpu']) / more * 1e6:.0f} us; the followers' client "
                      f"{(high['client_cpu'] - low['client_cpu']) / more * 1e6:.0f} us")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, a few seconds: does it run (CI)")
    parser.add_argument("--only", choices=("store", "http", "follow", "crowd"))
    parser.add_argument("--duels", type=int, help="duels at the store (default 1,000; quick 20)")
    parser.add_argument("--events", type=int, help="events per duel at the store (default 30; quick 5)")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--threads", type=int, help="writer threads per process (default 128; quick 8)")
    parser.add_argument("--clients", type=int, help="HTTP recorder clients (default 200; quick 10)")
    parser.add_argument("--http-events", type=int, help="events per HTTP client (default 50; quick 5)")
    parser.add_argument("--http-rate", type=float, default=5.0, help="events per second per paced client")
    parser.add_argument("--followers", type=int, nargs="+",
                        help="SSE follower counts, each run in turn (default 100 1000; quick 10 20)")
    parser.add_argument("--follow-duels", type=int, help="followed duels (default 100; quick 5)")
    parser.add_argument("--follow-events", type=int, help="events per followed duel (default 30; quick 5)")
    parser.add_argument("--rate", type=float, default=4.0, help="events per second per followed duel")
    parser.add_argument("--follow-workers", type=int, default=1,
                        help="--only crowd: the service's workers (default 1: one event loop's fan-out)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="runs of each store kind and of each HTTP mode, interleaved (default 1)")
    parser.add_argument("--bare", action="store_true", help="also the bare eventsourcing recorder at the store")
    parser.add_argument("--default-gc", action="store_true",
                        help="the store's writer processes keep the collector's defaults (not the service's settings)")
    parser.add_argument("--before", metavar="DIR",
                        help="also measure the ygoreplay of this checkout, interleaved (before/after)")
    parser.add_argument("--set-up-at-create", action="store_true",
                        help="HTTP: this tree's duels made with their set-up (POST /duels' set_up), each "
                             "recorder unchanged (its set-up still its first append); --before's as ever")
    args = parser.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)
    q = args.quick
    t0 = time.perf_counter()
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the start")
    if args.only in (None, "store"):
        bench_store(args.duels or (20 if q else 1000), args.events or (5 if q else 30), args.processes,
                    args.threads or (8 if q else 128), args.rounds, args.bare, args.before, not args.default_gc)
    if args.only in (None, "http"):
        bench_http(args.clients or (10 if q else 200), args.http_events or (5 if q else 50), args.http_rate,
                   args.before, args.rounds, args.set_up_at_create)
    if args.only in (None, "follow"):
        bench_follow(tuple(args.followers or ((10, 20) if q else (100, 1000))), args.follow_duels or (5 if q else 100),
                     args.follow_events or (5 if q else 30), args.rate, args.before)
    if args.only == "crowd":             # only when asked: the follow part ends with one crowd already
        bench_crowds(tuple(args.followers or ((10, 20) if q else (100, 1000))), args.follow_events or (5 if q else 30),
                     args.rate, args.before, args.follow_workers, args.rounds)
    print(f"whole bench: {time.perf_counter() - t0:.1f} s; load average {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
