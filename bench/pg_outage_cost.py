"""(#25, ninth pass) One timing run of the tree on PYTHONPATH (``python bench/pg_outage_cost.py TREE N``): appends one event a call (a lone writer and 8
threads on a concurrent store, 8 duels) and reads (info + state_at) on PostgreSQL, CPU+wall."""
import sys, time, threading, uuid, json
sys.path.insert(0, sys.argv[1] + "/bench")
from synthetic import generate
import psycopg
from ygoreplay.store import Store
N = int(sys.argv[2])
events = generate(N, seed=3)
schema = "bpgdown_" + uuid.uuid4().hex[:12]
base = "postgresql://postgres@127.0.0.1:5432/test"
with psycopg.connect(base, autocommit=True) as c:
    c.execute(f"CREATE SCHEMA {schema}")
try:
    url = f"{base}?schema={schema}"
    out = {}
    with Store(url) as s:
        d = s.create_duel("lone")
        s.append(d, events[:20])
        t = time.perf_counter()
        for e in events[20:]:
            s.append(d, e)
        out["lone_append_us"] = (time.perf_counter() - t) / (N - 20) * 1e6
    with Store(url, concurrent=True) as s:
        duels = [s.create_duel(f"t{i}") for i in range(8)]
        for d in duels:
            s.append(d, events[:20])
        def run(d):
            for e in events[20:N // 2]:
                s.append(d, e)
        th = [threading.Thread(target=run, args=(d,)) for d in duels]
        t = time.perf_counter()
        for x in th: x.start()
        for x in th: x.join()
        out["group_append_us"] = (time.perf_counter() - t) / (8 * (N // 2 - 20)) * 1e6
    with Store(url, readonly=True) as s:
        reps = 300
        t = time.perf_counter()
        for i in range(reps):
            s.info(duels[i % 8])
        out["info_us"] = (time.perf_counter() - t) / reps * 1e6
        t = time.perf_counter()
        for i in range(reps):
            s.state_at(duels[i % 8], 25 + (i * 7) % (N // 2 - 30))
        out["state_at_us"] = (time.perf_counter() - t) / reps * 1e6
    print(json.dumps(out))
finally:
    with psycopg.connect(base, autocommit=True) as c:
        c.execute(f"DROP SCHEMA {schema} CASCADE")
