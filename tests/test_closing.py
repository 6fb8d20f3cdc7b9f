"""Closing while work is under way: the store closes a connection only once the read or write
using it is done, and the service's threads end before its store is closed. sqlite3 closed
under a statement another thread runs crashes the process (SIGSEGV), which ``demo`` did now and
then when stopped by Ctrl-C while it recorded (issue 25, eighth pass)."""
from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

from ygoreplay.service.core import Threads

ROOT = Path(__file__).resolve().parent.parent

# The store closed while the reader (``read``, in another thread) runs its statement.
_CLOSED_UNDER_THE_READER = """
    reader = threading.Thread(target=read)
    reader.start()
    started.wait()
    time.sleep(0.1)                       # the statement is running
    store.close()
    reader.join()
"""
# A reader in another thread runs one long statement (a single sqlite3 step of about a second)
# on the store's own connection pool while the main thread closes the store.
_READER_DURING_CLOSE = textwrap.dedent("""
    import sys, threading, time
    from ygoreplay.store import Store

    store = Store(sys.argv[1])
    started, counted = threading.Event(), []

    def read():
        with store.factory.datastore.transaction(commit=False) as cursor:
            started.set()
            cursor.execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000000) "
                           "SELECT count(*) FROM c")
            counted.append(cursor.fetchone()[0])
""" + _CLOSED_UNDER_THE_READER + """
    print(counted)
""")


def test_a_store_closed_during_a_read_waits_for_it_and_the_process_lives(tmp_path):
    for attempt in range(3):              # closed under it, the crash came 5 times in 6
        done = subprocess.run([sys.executable, "-c", _READER_DURING_CLOSE, str(tmp_path / f"s{attempt}.sqlite")],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (done.returncode, done.stderr)
        assert done.stdout.strip() == "[3000000]"


# The same on a store opened read-only on SQLite, whose reads (a seek's) go on connections of its
# own, not its recorders' pool (issue 25: ``Store._read``); then a read after ``close`` is refused.
_OWN_READER_DURING_CLOSE = textwrap.dedent("""
    import sys, threading, time
    from ygoreplay.errors import YgoreplayError
    from ygoreplay.store import Store

    Store(sys.argv[1]).close()            # made, then opened read-only
    store = Store(sys.argv[1], readonly=True)
    started, counted = threading.Event(), []

    def read():
        started.set()
        counted.append(store._read("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
                                   "WHERE x < 3000000) SELECT count(*) FROM c", ())[0][0])
""" + _CLOSED_UNDER_THE_READER + """
    try:
        store._read("SELECT 1", ())
    except YgoreplayError as exc:
        print(counted, "closed" in str(exc))
""")


def test_a_read_only_store_closed_during_its_own_read_waits_for_it_then_refuses_reads(tmp_path):
    for attempt in range(3):
        done = subprocess.run([sys.executable, "-c", _OWN_READER_DURING_CLOSE, str(tmp_path / f"s{attempt}.sqlite")],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (done.returncode, done.stderr)
        assert done.stdout.strip() == "[3000000] True"


def test_closing_the_service_threads_waits_for_the_jobs_under_way():
    threads = Threads(4, "closing-test")
    finished: list[int] = []
    running = threading.Barrier(3)

    def job(n: int) -> None:
        running.wait()
        time.sleep(0.3)
        finished.append(n)

    threads.run(lambda: job(1))
    threads.run(lambda: job(2))
    running.wait()                        # both jobs are under way
    threads.close()
    assert sorted(finished) == [1, 2]


def test_closing_the_service_threads_waits_for_the_jobs_queued_before():
    threads = Threads(1, "closing-queue")
    finished: list[int] = []
    gate = threading.Event()
    threads.run(lambda: (gate.wait(), finished.append(1)))
    threads.run(lambda: finished.append(2))       # waits for the only thread
    gate.set()
    threads.close()
    assert finished == [1, 2]
