"""Attacks on the resident helper (``resident.py``, ``cli/resident.py``): a caller of the same user
with fewer powers reading through it, interpreter settings it would not honour, a client that
trickles its request. Each was found to work before the fix it names; every test that starts a
resident stops it (``place``)."""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from test_resident import SAMPLE, Place, place  # noqa: F401 (the fixture)
from ygoreplay import resident as wire

SETPRIV = shutil.which("setpriv")
OTHER_UID, SECRET_GID = 54322, 54321


def _socket_of(place: Place) -> str:
    (path,) = [os.path.join(place.folder, n) for n in os.listdir(place.folder) if n.endswith(".sock")]
    return path


@pytest.mark.skipif(os.getuid() != 0 or SETPRIV is None, reason="needs root and setpriv to make such callers")
def test_a_caller_with_fewer_groups_or_capabilities_is_not_answered(place, tmp_path):
    """Same user id, other powers: a resident started in a group (or with capabilities) the
    caller lacks read a file for it that its own process may not open."""
    secret = tmp_path / "secret.jsonl"
    shutil.copy(SAMPLE, secret)
    os.chown(secret, OTHER_UID, SECRET_GID)
    os.chmod(secret, 0o640)
    os.chmod(tmp_path, 0o755)
    no_caps = ["--inh-caps=-all", "--bounding-set=-all"]        # root bound by the files' modes, as a user is
    in_group = [SETPRIV, "--groups", f"0,{SECRET_GID}", *no_caps]
    started = subprocess.run([*in_group, sys.executable, "-m", "ygoreplay", "resident", "start", "--idle", "600"],
                             cwd=place.cwd, env=place.env, capture_output=True, timeout=120)
    assert started.returncode == 0, started.stderr
    place.pid = int(started.stdout.decode().split("pid ")[1].split(")")[0])
    assert place.served() == 0

    def run(prefix: list[str], env: dict) -> subprocess.CompletedProcess:
        return subprocess.run([*prefix, sys.executable, "-m", "ygoreplay", "check", str(secret)], cwd=place.cwd,
                              env=env, capture_output=True, timeout=120)

    same = run(in_group, place.env)                    # the resident's own powers: answered
    assert same.returncode == 0 and place.served() == 1
    for prefix, may_read in (([SETPRIV, "--groups", "0", *no_caps], False),          # without the group
                             ([SETPRIV, "--groups", f"0,{SECRET_GID}"], True)):      # with capabilities
        by_resident, alone = run(prefix, place.env), run(prefix, place.in_process)
        assert place.served() == 1, prefix
        assert (alone.returncode == 0) == may_read, alone.stderr
        assert (by_resident.stdout, by_resident.stderr, by_resident.returncode) == \
               (alone.stdout, alone.stderr, alone.returncode)


def test_interpreter_settings_from_the_environment_are_honoured(place):
    """PYTHONOPTIMIZE=2 strips docstrings, so a command's help has no description: a resident
    started without it printed the description."""
    place.start()
    assert place.both("show", "--help", env={"PYTHONOPTIMIZE": "2"}) == 0
    assert place.both("show", "--help") == 1
    assert wire.same_powers(os.getpid()) and not wire.same_powers(0)


def test_a_client_trickling_its_request_is_dropped_after_request_seconds(place):
    """A byte every few seconds, each within REQUEST_SECONDS: it held the resident for as long as
    it liked (every other command waited READY_SECONDS, then ran in-process)."""
    place.start()
    slow = socket.socket(socket.AF_UNIX)
    slow.connect(_socket_of(place))
    request = wire.pack([b"status"])
    closed = False
    try:
        for byte in request[:-1]:                      # never the whole request: only a deadline ends it
            try:
                slow.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            time.sleep(wire.REQUEST_SECONDS / 2)
    finally:
        slow.close()
    assert closed, "the resident still waited for the trickling client"
    assert place.both("show", SAMPLE) == 1
