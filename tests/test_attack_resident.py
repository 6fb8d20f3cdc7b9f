"""Attacks on the resident helper (``resident.py``, ``cli/resident.py``): a caller of the same user
with fewer powers reading through it, interpreter settings it would not honour, a client that
trickles its request. Each was found to work before the fix it names; every test that starts a
resident stops it (``place``)."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest

from test_resident import SAMPLE, Place, place  # noqa: F401 (the fixture)
from ygoreplay import resident as wire

SETPRIV = shutil.which("setpriv")
OTHER_UID, SECRET_GID = 54322, 54321
LUSTER_DRAGON = 11091375


def _wait_busy(path: str) -> bool:
    """Whether the socket at ``path`` is marked busy within 30 s."""
    for _ in range(600):
        if os.stat(path).st_mode & 0o777 == wire.BUSY_MODE:
            return True
        time.sleep(0.05)
    return False


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


def test_a_resident_stuck_on_a_reader_that_does_not_read_is_seen_skipped_and_stopped(place):
    """``ygoreplay rules --json | less`` with less waiting: the resident blocks writing. It was
    invisible (``status``: "no resident running"), ``stop`` could not stop it, and every other
    command waited READY_SECONDS for it before running in-process."""
    place.start()
    path = _socket_of(place)
    expected = place.run("rules", "SUM-04", in_process=True)
    stuck = subprocess.Popen([sys.executable, "-m", "ygoreplay", "rules", "--json"], cwd=place.cwd, env=place.env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)   # more than a pipe holds, never read
    try:
        assert _wait_busy(path)                        # once it has run BUSY_SECONDS
        assert not wire.own_socket(path) and wire.own_socket(path, busy_ok=True)
        other = place.run("rules", "SUM-04")           # runs in-process at once
        assert (other.stdout, other.stderr, other.returncode) == (expected.stdout, expected.stderr, 0)
        status = place.run("resident", "status")
        assert f"resident pid {place.pid}: busy".encode() in status.stdout, status.stdout
        again = place.run("resident", "start")
        assert f"running already (pid {place.pid})".encode() in again.stdout, again.stdout
        stopped = place.run("resident", "stop")
        assert f"stopped the resident (pid {place.pid})".encode() in stopped.stdout, stopped.stdout
        assert not os.path.lexists(path)
        out, err = stuck.communicate(timeout=60)
        assert stuck.returncode == 4 and b"the resident helper stopped while answering" in err
        assert out and expected.stdout not in out
    finally:
        stuck.kill()
        stuck.wait()
    assert b"no resident running" in place.run("resident", "status").stdout


def test_a_long_command_unmarks_the_socket_when_done(place, tmp_path):
    """Marked busy while it ran past BUSY_SECONDS, answered again after."""
    place.start()
    path = _socket_of(place)
    out = tmp_path / "out"
    with open(out, "wb") as sink:
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        reader = subprocess.Popen(["cat", str(fifo)], stdout=sink)
        with open(fifo, "wb") as slow:                 # its writes wait while the fifo is full
            writer = subprocess.Popen([sys.executable, "-m", "ygoreplay", "rules", "--json"], cwd=place.cwd,
                                      env=place.env, stdout=slow)
        reader.send_signal(signal.SIGSTOP)             # the reader stops reading a while
        marked = _wait_busy(path)
        reader.send_signal(signal.SIGCONT)
        assert marked
        assert writer.wait(timeout=60) == 0 and reader.wait(timeout=60) == 0
    assert os.stat(path).st_mode & 0o777 == wire.SOCKET_MODE
    assert out.read_bytes() == place.run("rules", "--json", in_process=True).stdout
    assert place.both("show", SAMPLE) == 1


@pytest.mark.skipif(shutil.which("flock") is None or not os.path.isdir("/proc/self/fd"), reason="needs flock and /proc")
def test_the_resident_keeps_no_descriptor_start_inherited(place, tmp_path):
    """``flock LOCK ygoreplay resident start``: the resident held the lock (and any pipe its
    starter's caller waits on to the end) for its whole life."""
    lock = tmp_path / "lock"
    held = subprocess.run(["flock", str(lock), sys.executable, "-m", "ygoreplay", "resident", "start", "--idle", "600"],
                          cwd=place.cwd, env=place.env, capture_output=True, timeout=120)
    assert held.returncode == 0, held.stderr
    place.pid = int(held.stdout.decode().split("pid ")[1].split(")")[0])
    assert subprocess.run(["flock", "-n", str(lock), "true"]).returncode == 0, "the resident holds the lock"
    read, write = os.pipe()
    try:
        place.run("resident", "stop")
        started = subprocess.run([sys.executable, "-m", "ygoreplay", "resident", "start", "--idle", "600"],
                                 cwd=place.cwd, env=place.env, capture_output=True, timeout=120, pass_fds=[write])
        assert started.returncode == 0, started.stderr
        place.pid = int(started.stdout.decode().split("pid ")[1].split(")")[0])
        os.close(write)
        write = -1
        pipe = os.readlink(f"/proc/self/fd/{read}")
        held_by_it = [os.readlink(f"/proc/{place.pid}/fd/{fd}") for fd in os.listdir(f"/proc/{place.pid}/fd")]
        assert pipe not in held_by_it
        assert os.read(read, 1) == b""                 # end of file: nobody else holds its writing end
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)
    assert place.both("show", SAMPLE) == 1


def test_a_resident_killed_while_marked_busy_is_replaced_by_start(place):
    """Killed (SIGKILL, the OOM killer) while marked busy: its socket stays, marked; ``start``
    must not take it for a running resident."""
    place.start()
    path = _socket_of(place)
    stuck = subprocess.Popen([sys.executable, "-m", "ygoreplay", "rules", "--json"], cwd=place.cwd, env=place.env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert _wait_busy(path)
        os.kill(place.pid, signal.SIGKILL)
        stuck.communicate(timeout=60)
    finally:
        stuck.kill()
        stuck.wait()
    for _ in range(600):                               # gone: nobody listens at its socket
        if not os.path.exists(f"/proc/{place.pid}"):
            break
        time.sleep(0.05)
    assert os.path.lexists(path)
    assert b"no resident running" in place.run("resident", "status").stdout
    place.start()
    assert place.both("show", SAMPLE) == 1


def test_a_seed_document_replaced_with_its_old_time_is_seen(place, tmp_path):
    """``cp -p``, ``tar x``, ``rsync -t`` put a new text under the old modification time: the
    resident's caches keyed by it kept quoting the old text."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    catalogue = seeds / "RULES.md"
    catalogue.write_text("- **SUM-05** — A Tribute Summon (「上級召喚」). · src: `000_0a.txt`\n")
    seed = seeds / "000_0a.txt"
    seed.write_text("上級召喚是一種通常召喚。")
    kept = os.stat(seed)
    place.start()
    asked = ("rules", "SUM-05", "--seeds", str(seeds), "--quote")
    assert place.both(*asked) == 1
    replacement = tmp_path / "new.txt"
    replacement.write_text("上級召喚需要解放怪獸，這是新的說法。")
    os.utime(replacement, ns=(kept.st_atime_ns, kept.st_mtime_ns))
    os.replace(replacement, seed)
    assert place.both(*asked) == 1
    assert "這是新的說法".encode() in place.run(*asked).stdout
    catalogue_time = os.stat(catalogue)
    catalogue.write_text("- **SUM-05** — A Tribute Summon (「上級召喚」). · src: `000_0b.txt`\n")
    os.utime(catalogue, ns=(catalogue_time.st_atime_ns, catalogue_time.st_mtime_ns))
    (seeds / "000_0b.txt").write_text("上級召喚在另一份文件裡。")
    os.utime(seeds / "000_0b.txt", ns=(kept.st_atime_ns, kept.st_mtime_ns))
    assert place.both(*asked) == 1
    assert "另一份文件".encode() in place.run(*asked).stdout


def test_card_names_replaced_with_their_old_time_are_seen(place, tmp_path):
    """The names of a language installed again from a copy with the old modification time: the
    resident kept the old names."""
    from ygoreplay.card_names import names_path, write_names
    folder = tmp_path / "data" / "ygoreplay"
    write_names("fr", [(LUSTER_DRAGON, "Dragon Lustré")], folder)
    kept = os.stat(names_path("fr", folder))
    place.start()
    asked = ("log", SAMPLE, "--turn", "4")
    french = {"YGOREPLAY_CARD_LANG": "fr"}
    assert place.both(*asked, env=french) == 1
    assert "Dragon Lustré".encode() in place.run(*asked, env=french).stdout
    write_names("fr", [(LUSTER_DRAGON, "Dragon Brillant")], folder)
    os.utime(names_path("fr", folder), ns=(kept.st_atime_ns, kept.st_mtime_ns))
    assert place.both(*asked, env=french) == 1
    assert "Dragon Brillant".encode() in place.run(*asked, env=french).stdout
