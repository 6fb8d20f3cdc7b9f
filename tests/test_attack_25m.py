"""Attacks on ``serve --workers N`` each worker on a socket of its own (issue 25, eighth pass),
against the real program on PostgreSQL: a second server on the port while the first starts,
``--port 0``, and Ctrl-C of a master started with SIGINT ignored."""
from __future__ import annotations

import os
import re
import signal
import socket
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


def _answering(process: subprocess.Popen, url: str) -> None:
    """Wait (a minute at most) until the service ``process`` started answers at ``url``."""
    deadline = time.monotonic() + 60
    while True:
        assert process.poll() is None and time.monotonic() < deadline
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)


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
        _answering(process, f"http://127.0.0.1:{port}")
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


def test_while_a_worker_taken_away_finishes_its_streams_every_new_connection_is_answered(workers):
    """``SIGTTOU``: the last worker stops accepting and finishes what it serves (a follower's
    stream: up to the 3 s of grace). Its socket was closed by the master only once the worker
    had exited: meanwhile the kernel still gave it its share of new connections, which nobody
    accepted and which were reset at the close (8 of 20 000 under a steady load, every one that
    arrived in those seconds)."""
    from test_service import create
    from test_service_workers import _each_listening, _served_by, _socket_inodes, _tcp
    pids = _each_listening(workers)
    duel = create(workers.url, visibility="public")["id"]
    follows = []
    try:
        while True:                     # a follower on each worker, the one taken away among them
            conn = socket.create_connection(("127.0.0.1", workers.port))
            conn.sendall(f"GET /duels/{duel}/follow HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            assert conn.recv(4096).startswith(b"HTTP/1.1 200")
            follows.append(conn)
            established = {inode for state, inode in _tcp(workers.port) if state == "01"}
            if all(_socket_inodes(pid) & established for pid in pids):
                break
        os.kill(workers.process.pid, signal.SIGTTOU)
        deadline = time.monotonic() + 30
        while True:                     # one worker no longer listens, and still serves its followers
            listening = {inode for state, inode in _tcp(workers.port) if state == "0A"}
            gone = [pid for pid in pids if Path(f"/proc/{pid}").exists() and not _socket_inodes(pid) & listening]
            if gone:
                break
            assert time.monotonic() < deadline, "no worker was taken away"
            time.sleep(0.02)
        _served_by(workers, 40)          # each answered (its followers too are counted)
        assert Path(f"/proc/{gone[0]}").exists(), "the worker had exited: the window was not tested"
    finally:
        for conn in follows:
            conn.close()
    os.kill(workers.process.pid, signal.SIGTTIN)       # the module's other tests have two workers again
    _each_listening(workers)


def test_the_address_said_for_an_ipv6_host_is_one_a_browser_opens(workers):
    """``serve --host ::1`` said ``http://::1:PORT``, which is no URL: an IPv6 address in one
    is written in brackets."""
    if not socket.has_ipv6:
        pytest.skip("no IPv6")
    process = subprocess.Popen([sys.executable, "-m", "ygoreplay", "serve", "--host", "::1", "--port", "0",
                                "--workers", "2", "--store", _store(workers)],
                               env={**os.environ, "YGOREPLAY_ADMIN_TOKEN": ADMIN},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = re.search(r"(http://\S+)", process.stderr.readline())[1]
        _answering(process, url)
    finally:
        process.terminate()
        process.communicate(timeout=30)
