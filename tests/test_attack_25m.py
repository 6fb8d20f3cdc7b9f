"""Attacks on ``serve --workers N`` each worker on a socket of its own (issue 25, eighth pass),
against the real program on PostgreSQL: a second server on the port while the first starts,
``--port 0``, and Ctrl-C of a master started with SIGINT ignored."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from test_attack_21c import workers  # noqa: F401  (fixture: serve --workers 2 on a schema of its own)
from test_interrupt import _as_a_background_job
from test_service import ADMIN
from ygoreplay.cli.service import _reusing

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_REUSEPORT as Linux has it; reads /proc")


def _store(srv) -> str:
    return srv.process.args[srv.process.args.index("--store") + 1]


def _serve(store: str, port: int, **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "ygoreplay", "serve", "--port", str(port), "--workers", "2",
                             "--store", store], env={**os.environ, "YGOREPLAY_ADMIN_TOKEN": ADMIN},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def test_a_second_serve_while_the_first_starts_its_workers_is_refused_not_shared(workers):
    """The first ``serve`` has bound its sockets and its workers are still starting (importing
    the app, opening the store: a second or more). A second ``serve`` on the same port then must
    be refused: it was let in (a bound socket that does not listen yet does not hold the port
    against ``SO_REUSEADDR``, and the rest share with ``SO_REUSEPORT``), and the two servers
    silently split the port's connections between their stores for as long as both ran."""
    first = _reusing("127.0.0.1", 0, 2)            # the first serve's sockets, before its workers start
    assert first
    try:
        second = _serve(_store(workers), first[0].getsockname()[1])
        try:
            _, err = second.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            second.terminate()
            second.communicate(timeout=20)
            pytest.fail("a second serve took a share of a port the first had bound")
        assert second.returncode != 0
        assert "Address already in use" in err and "Traceback" not in err, err
    finally:
        for sock in first:
            sock.close()


def test_port_0_says_the_port_it_got_and_ctrl_c_stops_it_started_with_sigint_ignored(workers):
    """``serve --port 0 --workers 2`` said ``http://127.0.0.1:0``: the port it listened on was
    printed nowhere. And started in the background by a script (SIGINT ignored), Ctrl-C (to the
    process group, as a terminal sends it) stops the master and every worker, without a traceback."""
    process = _serve(_store(workers), 0, preexec_fn=lambda: (_as_a_background_job(), os.setpgid(0, 0)))
    try:
        line = process.stderr.readline()
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)", line)[1])
        assert port != 0, line
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None and time.monotonic() < deadline
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        children = Path(f"/proc/{process.pid}/task/{process.pid}/children").read_text().split()
        os.killpg(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=30)
        assert process.returncode == 0 and "Traceback" not in err, err
        for pid in children:                 # no worker left serving the port
            deadline = time.monotonic() + 10
            while Path(f"/proc/{pid}").exists() and b"ygoreplay" in Path(f"/proc/{pid}/cmdline").read_bytes():
                assert time.monotonic() < deadline, f"worker {pid} outlived its master"
                time.sleep(0.1)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
