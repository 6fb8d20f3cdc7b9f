"""Ctrl-C stops ``serve`` and ``demo`` even when started in the background by a script: a
background job of a non-interactive shell starts with SIGINT ignored, and the commands restore
the default handler (``.ci/run`` stopped a background ``serve`` this way)."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _as_a_background_job() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("command", [["serve"], ["demo", str(ROOT / "replays" / "won-by-damage.jsonl")]])
def test_ctrl_c_stops_a_command_started_with_sigint_ignored(command, tmp_path):
    port = _free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "YGOREPLAY_STORE": str(tmp_path / "store.sqlite")}
    process = subprocess.Popen([sys.executable, "-m", "ygoreplay", *command, "--port", str(port)], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=_as_a_background_job)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None and time.monotonic() < deadline, process.stderr.read()
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except OSError as exc:
                if getattr(exc, "code", None):           # answered (an HTTP status): it is up
                    break
                time.sleep(0.2)
        time.sleep(0.5)                                  # demo: recording done, serving until Ctrl-C
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert "Traceback" not in err
