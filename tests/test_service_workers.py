"""``ygoreplay serve --workers N``: each worker accepts on a socket of its own, all bound to the
one port, so a crowd of tables connecting at once is spread over the workers (on one shared
socket the worker that woke first took most of them, and its one core did most of the appends:
issue 25); a worker started again takes its predecessor's socket; a port another server holds
is still refused, not shared."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_attack_21c import workers  # noqa: F401  (fixture: serve --workers 2 on a schema of its own)
from test_service import ADMIN, Server, _socket_inodes, _tcp


def _worker_pids(srv: Server) -> list[int]:
    """The service's workers: its children but the resource tracker, and any that exited as
    they were read (a worker being replaced)."""
    pids = []
    for pid in Path(f"/proc/{srv.process.pid}/task/{srv.process.pid}/children").read_text().split():
        try:
            if b"resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                pids.append(int(pid))
        except FileNotFoundError:
            continue
    return pids


def _each_listening(srv: Server, gone: int | None = None, count: int = 2) -> list[int]:
    """The workers, once there are ``count`` (not ``gone``), each listening on a socket of its
    own, and no other socket listening; ``serve`` answers once one worker does."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        pids = _worker_pids(srv)
        listening = {inode for state, inode in _tcp(srv.port) if state == "0A"}
        if (len(pids) == count and gone not in pids and len(listening) == count
                and all(len(_socket_inodes(pid) & listening) == 1 for pid in pids)):
            return pids
        time.sleep(0.2)
    pytest.fail(f"the workers do not each listen on a socket of their own: {pids}, {listening}")


def _accepted_by(srv: Server, conn: socket.socket) -> int | None:
    """The worker that accepted ``conn``; None while it waits in a socket's backlog (its inode
    there is 0 until a worker accepts it)."""
    port = conn.getsockname()[1]
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if (int(fields[1].split(":")[1], 16) == srv.port and int(fields[2].split(":")[1], 16) == port
                and fields[3] == "01" and fields[9] != "0"):
            return next((pid for pid in _worker_pids(srv) if fields[9] in _socket_inodes(pid)), None)
    return None


def _each_answering(srv: Server, pids: list[int]) -> None:
    """Once each of the workers ``pids`` has accepted a connection and answered a request on it.
    A worker started (again) listens from the moment it is forked, long before it accepts: on a
    loaded machine its start-up outlasted the head's deadline (``request_head.HEAD_SECONDS``) of
    the connections the other worker had accepted meanwhile in ``_served_by`` (408). Each request
    here is sent once its connection is accepted, never before."""
    waiting = set(pids)
    deadline = time.monotonic() + 120
    while waiting and time.monotonic() < deadline:
        with socket.create_connection(("127.0.0.1", srv.port)) as conn:
            while (pid := _accepted_by(srv, conn)) is None and time.monotonic() < deadline:
                time.sleep(0.1)
            if pid in waiting:
                conn.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                conn.settimeout(60)
                assert conn.recv(4096).startswith(b"HTTP/1.1 200")
                waiting.discard(pid)
    if waiting:
        pytest.fail(f"workers {sorted(waiting)} accepted no connection")


def _served_by(srv: Server, connections: int) -> dict[int, int]:
    """Open ``connections`` at once, each with its request begun, count how many each worker
    accepted once all of them are, then finish each request and check its answer.

    Counted while every request is still unfinished, when no timer of the service but the head's
    deadline runs (``request_head.HEAD_SECONDS``, far longer than the count; counted after the
    answers, a loaded machine let the keep-alive timeout close the first ones first)."""
    opened = [socket.create_connection(("127.0.0.1", srv.port)) for _ in range(connections)]
    try:
        for conn in opened:
            conn.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        deadline = time.monotonic() + 60
        while True:
            established = {inode for state, inode in _tcp(srv.port) if state == "01"}
            held = {pid: len(_socket_inodes(pid) & established) for pid in _worker_pids(srv)}
            if sum(held.values()) >= connections or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        for conn in opened:
            conn.sendall(b"\r\n")
        for conn in opened:
            conn.settimeout(60)
            assert conn.recv(4096).startswith(b"HTTP/1.1 200")
        return held
    finally:
        for conn in opened:
            conn.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_each_worker_listens_on_a_socket_of_its_own_and_the_connections_are_spread(workers):
    _each_answering(workers, _each_listening(workers))
    held = _served_by(workers, 100)
    assert sum(held.values()) == 100 and min(held.values()) >= 20, held


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_worker_started_again_accepts_on_its_predecessors_socket(workers):
    pids = _each_listening(workers)
    listening = {inode for state, inode in _tcp(workers.port) if state == "0A"}
    its = _socket_inodes(pids[0]) & listening
    os.kill(pids[0], signal.SIGKILL)
    now = _each_listening(workers, gone=pids[0])
    (successor,) = set(now) - set(pids)
    assert _socket_inodes(successor) & listening == its
    _each_answering(workers, now)        # its start-up is over: none of _served_by's heads waits on it
    for _ in range(3):                  # no connection waits on a socket nobody accepts on
        held = _served_by(workers, 40)
        assert sum(held.values()) == 40


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_one_more_worker_gets_a_socket_of_its_own_and_one_fewer_takes_its_socket_with_it(workers):
    _each_answering(workers, _each_listening(workers))
    os.kill(workers.process.pid, signal.SIGTTIN)
    _each_answering(workers, _each_listening(workers, count=3))
    assert sum(_served_by(workers, 60).values()) == 60
    os.kill(workers.process.pid, signal.SIGTTOU)
    _each_listening(workers)            # no socket left listening that no worker accepts on
    for _ in range(3):
        assert sum(_served_by(workers, 40).values()) == 40


def test_a_port_another_server_holds_is_refused_not_shared(workers):
    proc = subprocess.run([sys.executable, "-m", "ygoreplay", "serve", "--port", str(workers.port), "--workers", "2",
                           "--store", workers.process.args[workers.process.args.index("--store") + 1]], env={**os.environ, "YGOREPLAY_ADMIN_TOKEN": ADMIN},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert len({inode for state, inode in _tcp(workers.port) if state == "0A"}) == 2
