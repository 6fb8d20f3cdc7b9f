"""The resident helper (``ygoreplay resident start|stop|status``, ``resident.py``, ``launcher.py``):
a command it answers prints exactly what the command prints in its own process (stdout, stderr,
exit code; errors, languages, a terminal's width), it answers only the read-only commands and only
for this user and this code, and a resident that is busy, killed or dies mid-request never makes a
command print twice. Every test that starts a resident stops it."""
from __future__ import annotations

import fcntl
import os
import pty
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path

import pytest

from test_cards import _make_cdb
from ygoreplay import resident as wire
from ygoreplay.receipts import Witness

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = "replays/won-by-damage.jsonl"
DARK_MAGICIAN = 46986414


def private_folder() -> str:
    """A folder of our own, short enough for a socket's path."""
    return tempfile.mkdtemp(prefix="ygr")          # made 0700


class Place:
    """A user's setting: a data folder (store, key, installed cards), a resident folder, and a
    second resident folder nobody runs in (the same commands, run in-process)."""

    def __init__(self, tmp_path: Path, code: Path = ROOT) -> None:
        self.cwd = ROOT if code == ROOT else tmp_path      # `python -m` imports the package of its cwd first
        self.folder, self.empty = private_folder(), private_folder()
        base = {k: v for k, v in os.environ.items()
                if not k.startswith("YGOREPLAY_") and k not in ("COLUMNS", "LINES")}
        self.env = {**base, "PYTHONPATH": str(code), "XDG_DATA_HOME": str(tmp_path / "data"),
                    wire.DIR_ENV: self.folder, wire.AUTO_ENV: "off"}     # residents started by the test only
        self.in_process = {**self.env, wire.DIR_ENV: self.empty}
        self.pid: int | None = None

    def run(self, *args: str, env: dict | None = None, in_process: bool = False, **kwargs) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "ygoreplay", *args], cwd=kwargs.pop("cwd", self.cwd),
                              env={**(self.in_process if in_process else self.env), **(env or {})},
                              **({"capture_output": True} if "stdout" not in kwargs else {}), timeout=120, **kwargs)

    def start(self, **kwargs) -> None:
        started = self.run("resident", "start", "--idle", "600", **kwargs)
        assert started.returncode == 0, started.stderr
        self.pid = int(started.stdout.decode().split("pid ")[1].split(")")[0])

    def served(self) -> int:
        """How many commands the residents running answered (each says so itself)."""
        total = 0
        for name in os.listdir(self.folder):
            if name.endswith(".sock"):
                answer = wire.ask(os.path.join(self.folder, name), "status").decode()
                total += int(dict(line.split(" ", 1) for line in answer.splitlines())["served"])
        return total

    def both(self, *args: str, env: dict | None = None) -> int:
        """Run ``args`` by the resident and in-process: the same bytes and exit code; how many
        of the two the resident answered."""
        before = self.served()
        for _ in range(3):       # a resident not scheduled within READY_SECONDS on a loaded machine
            by_resident = self.run(*args, env=env)    # lets the caller run it itself: ask again
            answered = self.served() - before
            if answered:
                break
        alone = self.run(*args, env=env, in_process=True)
        assert self.served() - before == answered, "the in-process run went to the resident"
        assert (by_resident.stdout, by_resident.stderr, by_resident.returncode) == \
               (alone.stdout, alone.stderr, alone.returncode), args
        return answered

    def close(self) -> None:
        self.run("resident", "stop")
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)      # a stop that failed: never leave it behind
            except ProcessLookupError:
                pass
        shutil.rmtree(self.folder, ignore_errors=True)
        shutil.rmtree(self.empty, ignore_errors=True)


@pytest.fixture
def place(tmp_path):
    found = Place(tmp_path)
    try:
        yield found
    finally:
        found.close()


def _record(place: Place, path: str) -> str:
    recorded = place.run("record", path)
    assert recorded.returncode == 0, recorded.stderr
    return recorded.stdout.decode().strip()


def test_every_forwarded_command_prints_what_it_prints_in_process(place):
    duel = _record(place, SAMPLE)
    other = _record(place, "replays/chain-counter-traps.jsonl")
    place.start()
    commands = [
        ("show", SAMPLE, "--at", "60"), ("show", duel, "--at", "30"), ("show", duel), ("show", duel[:6], "--at", "5"),
        ("show", duel, "--view", "spectator", "--at", "40"), ("show", duel, "--turn", "3"),
        ("show", "replays/won-by-damage.spectator.ygr", "--at", "20"),
        ("show", "nosuchduel"), ("show", duel, "--at", "9999"), ("show", duel, "--nope"), ("show", "--help"),
        ("log", SAMPLE, "--turn", "4"), ("log", duel, "--json"), ("log", duel, "--card", "Raigeki"),
        ("log", "replays/chain-counter-traps.jsonl", "--player", "nobody"),
        ("check", SAMPLE), ("check", SAMPLE, "--json"), ("check", "replays/won-by-damage.public.jsonl"),
        ("check", "replays/illegal/battle-phase-on-turn-1.jsonl"), ("check", "missing.jsonl"),
        ("check", "replays/witnessed-illegal-play.jsonl"),
        ("rules", "SUM-04"), ("rules", "SUM", "--json"), ("rules", "NOPE-99"),
        ("list",), ("list", "--json"), ("tree", duel), ("diff", f"{duel}@10", f"{other}@20"),
        ("verify", duel), ("verify", duel, "--json"), ("verify", "replays/won-by-damage.judge.ygr"),
        ("audit", duel), ("audit", SAMPLE, "--json"), ("actions", duel, "--at", "60"),
        ("search", "--player", "Yugi"), ("search", "--json"),
        ("--lang", "ja", "show", duel, "--at", "60"), ("log", SAMPLE, "--turn", "4", "--lang", "zh"),
        ("check", "replays/illegal/battle-phase-on-turn-1.jsonl", "--lang", "ko"),
    ]
    for args in commands:
        assert place.both(*args) == 1, args
    assert place.both("show", duel, "--at", "60", env={"YGOREPLAY_LANG": "ja"}) == 1
    assert place.both("check", SAMPLE, env={"LC_MESSAGES": "ko_KR.UTF-8"}) == 1
    # a locale this machine lacks: the interpreter starts in UTF-8 mode, another set-up (its own key)
    assert place.both("check", SAMPLE, env={"LANG": "ko_KR.UTF-8"}) in (0, 1)
    assert place.both("show", duel, "--at", "60", env={"COLUMNS": "120"}) == 1


def test_what_writes_or_reads_stdin_runs_in_process(place, tmp_path):
    duel = _record(place, SAMPLE)
    Witness(str(tmp_path / "w.sqlite")).close()         # made by a write: a command that reads makes none
    place.start()
    text = (ROOT / SAMPLE).read_bytes()
    for args, stdin in [(("check", "-"), text), (("check", "/dev/stdin"), text), (("key",), None),
                        (("search", "--reindex"), None), (("list", "--witness", str(tmp_path / "w.sqlite")), None),
                        (("export", duel, "-o", str(tmp_path / "out.ygr")), None), (("--help",), None)]:
        before = place.served()
        result = place.run(*args, input=stdin)
        assert place.served() == before, args
        assert result.returncode == 0, (args, result.stderr)
    assert (tmp_path / "out.ygr").is_file() and (tmp_path / "w.sqlite").is_file()
    assert place.both("show", duel, env={"YGOREPLAY_WITNESS": str(tmp_path / "w.sqlite")}) == 0
    assert place.both("show", duel, env={"YGOREPLAY_DEBUG": "1"}) == 0
    assert not wire.forwardable(["record", SAMPLE], {}, str(ROOT))
    assert not wire.forwardable(["show", "/proc/self/fd/0"], {}, str(ROOT))
    assert not wire.forwardable(["show", "x"], {"YGOREPLAY_STORE": "/dev/fd/3"}, str(ROOT))
    assert wire.forwardable(["--lang", "ja", "show", "x", "--at", "3"], {}, str(ROOT))


def test_a_terminal_gets_the_same_width_and_bytes(place):
    duel = _record(place, SAMPLE)
    place.start()

    def on_a_terminal(in_process: bool) -> tuple[bytes, int]:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 132, 0, 0))
        env = place.in_process if in_process else place.env
        process = subprocess.Popen([sys.executable, "-m", "ygoreplay", "show", duel, "--at", "60"], cwd=ROOT,
                                   env=env, stdout=slave, stderr=subprocess.DEVNULL)
        os.close(slave)
        out = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:                    # EIO: every writer of the terminal closed it
                break
            if not chunk:
                break
            out += chunk
        os.close(master)
        return out, process.wait(timeout=60)

    before = place.served()
    by_resident = on_a_terminal(False)
    assert place.served() == before + 1
    assert by_resident == on_a_terminal(True)
    assert max(len(line) for line in by_resident[0].decode().splitlines()) > 100, "drawn 132 columns wide"


def test_stores_and_card_databases_changing_under_it_are_seen(place, tmp_path):
    lines = (ROOT / SAMPLE).read_text().splitlines(keepends=True)
    events = [i for i, line in enumerate(lines) if line.strip() and not line.startswith("#")]
    (tmp_path / "first.jsonl").write_text("".join(lines[:events[40]]))
    (tmp_path / "rest.jsonl").write_text("".join(lines[events[40]:]))
    duel = _record(place, str(tmp_path / "first.jsonl"))
    place.start()
    assert place.both("show", duel) == 1
    appended = place.run("append", duel, str(tmp_path / "rest.jsonl"))    # another process writes
    assert appended.returncode == 0, appended.stderr
    assert place.both("show", duel) == 1 and place.both("log", duel) == 1
    assert b"#88" in place.run("log", duel).stdout

    installed = tmp_path / "data" / "ygoreplay" / "cards.cdb"
    for name in ("Renamed Magician", "Another Magician"):
        replacement = _make_cdb(tmp_path / f"{name}.cdb", [(DARK_MAGICIAN, 0x21, 2500, 2100, 7, name)])
        os.replace(replacement, installed)             # as `cards update` installs one
        assert place.both("log", SAMPLE) == 1
        assert name.encode() in place.run("log", SAMPLE).stdout


def test_another_version_of_the_code_is_never_answered(tmp_path):
    code = tmp_path / "code"
    shutil.copytree(ROOT / "ygoreplay", code / "ygoreplay", ignore=shutil.ignore_patterns("__pycache__"))
    place = Place(tmp_path, code)
    try:
        sample = str(ROOT / SAMPLE)
        place.start()
        assert place.both("show", sample) == 1
        with open(code / "ygoreplay" / "text.py", "a") as edited:
            edited.write("\n# edited after the resident started\n")
        assert place.both("show", sample) == 0, "the edited code runs in-process"
        status = place.run("resident", "status").stdout.decode()
        assert "another version of the code" in status
        place.start()                                  # a resident of the new code, beside the old one
        assert place.both("show", sample) == 1
        assert place.run("resident", "stop").stdout.decode().count("stopped the resident") == 2
        assert not [n for n in os.listdir(place.folder) if n.endswith(".sock")]
    finally:
        place.close()


def test_a_folder_or_socket_another_user_could_reach_is_refused(place, tmp_path):
    place.start()
    os.chmod(place.folder, 0o755)
    before = place.served()
    assert place.run("show", SAMPLE).returncode == 0 and place.served() == before, "a folder others may enter"
    refused = place.run("resident", "start")
    assert refused.returncode == 2 and b"others may enter it" in refused.stderr
    os.chmod(place.folder, 0o700)
    link = tmp_path / "link"
    link.symlink_to(place.folder)
    with pytest.raises(wire.ResidentError, match="not a folder"):
        wire.check_folder(str(link))
    before = place.served()
    assert place.run("show", SAMPLE, env={wire.DIR_ENV: str(link)}).returncode == 0
    assert place.served() == before, "a link in the folder's place"
    if os.getuid() != 0:
        return
    os.chown(place.folder, 12345, -1)                  # owned by another user
    with pytest.raises(wire.ResidentError, match="owned by user 12345"):
        wire.check_folder(place.folder)
    os.chown(place.folder, 0, -1)
    # a socket owned by another user, and one whose listening process is another user's
    (path,) = [os.path.join(place.folder, n) for n in os.listdir(place.folder) if n.endswith(".sock")]
    os.chown(path, 12345, -1)
    assert not wire.own_socket(path)
    before = place.run("show", SAMPLE)
    assert before.returncode == 0
    os.chown(path, 0, -1)
    other = tempfile.mkdtemp(prefix="ygo")
    os.chmod(other, 0o777)
    planted = os.path.join(other, "s")
    ready, told = os.pipe()
    child = os.fork()
    if child == 0:                                     # another user's process listening
        try:
            os.setuid(12345)
            listener = socket.socket(socket.AF_UNIX)
            listener.bind(planted)
            listener.listen()
            os.write(told, b"1")
            listener.accept()
            time.sleep(5)
        finally:
            os._exit(0)
    try:
        assert os.read(ready, 1) == b"1"
        os.chown(planted, 0, -1)
        assert wire.own_socket(planted)
        with pytest.raises(wire.ResidentError, match="another user's process"):
            wire.connect(planted, 2.0)
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
        os.close(ready)
        os.close(told)
        shutil.rmtree(other, ignore_errors=True)


def test_the_resident_ignores_bad_requests_and_serves_the_next(place):
    place.start()
    (path,) = [os.path.join(place.folder, n) for n in os.listdir(place.folder) if n.endswith(".sock")]

    def raw(data: bytes) -> bytes:
        with socket.socket(socket.AF_UNIX) as conn:
            conn.settimeout(10)
            conn.connect(path)
            conn.sendall(data)
            conn.shutdown(socket.SHUT_WR)
            answer = b""
            try:
                while chunk := conn.recv(4096):
                    answer += chunk
            except ConnectionResetError:               # closed with our bytes unread: no answer
                pass
            return answer

    assert raw(wire.MAGIC + (wire.MAX_REQUEST + 1).to_bytes(4, "big") + b"x" * 64) == b"", "too big"
    assert raw(wire.MAGIC + (8).to_bytes(4, "big") + (100).to_bytes(4, "big") + b"abcd") == b"", "malformed"
    assert raw(b"GET / HTTP/1.1\r\n\r\n") == b""
    assert raw(wire.pack([b"run", b"0" * 16, b"ygoreplay", str(ROOT).encode(), b"18", b"utf-8\0strict\0\0",
                          b"utf-8\0backslashreplace\01\0", b"2", b"show", SAMPLE.encode()])) == b"N", "another code"
    assert raw(wire.pack([b"nonsense"])) == b""
    silent = socket.socket(socket.AF_UNIX)             # connects and sends nothing, and stays
    silent.connect(path)
    try:
        busy = place.run("show", SAMPLE)               # the resident is busy with it: run in-process
        assert busy.returncode == 0 and busy.stdout == place.run("show", SAMPLE, in_process=True).stdout
        # it drops the silent one after REQUEST_SECONDS and answers the next
        assert wire.ask(path, "status", timeout=wire.REQUEST_SECONDS * 10).startswith(b"pid ")
        assert silent.recv(1) == b""
    finally:
        silent.close()
    assert place.both("show", SAMPLE) == 1


def test_a_busy_or_killed_resident_never_makes_a_command_print_twice(place):
    place.start()
    again = place.run("resident", "start")
    assert again.returncode == 0 and f"running already (pid {place.pid})".encode() in again.stdout
    expected = place.run("show", SAMPLE, in_process=True)
    os.kill(place.pid, signal.SIGSTOP)                 # it will take our connection, later
    try:
        stalled = place.run("show", SAMPLE)
    finally:
        os.kill(place.pid, signal.SIGCONT)
    assert (stalled.stdout, stalled.stderr, stalled.returncode) == (expected.stdout, expected.stderr, 0)
    assert place.both("show", SAMPLE) == 1             # and it never printed into the stalled one
    os.kill(place.pid, signal.SIGKILL)                 # gone, its socket left behind
    time.sleep(0.1)
    killed = place.run("show", SAMPLE)
    assert (killed.stdout, killed.stderr, killed.returncode) == (expected.stdout, expected.stderr, 0)
    place.start()                                      # the socket nobody answers is replaced
    assert place.both("show", SAMPLE) == 1


def test_a_reader_that_stops_early_and_ctrl_c_end_as_in_process(place, tmp_path):
    duel = _record(place, SAMPLE)
    place.start()

    def closed_pipe(args: tuple[str, ...], in_process: bool) -> tuple[bytes, int]:
        read, write = os.pipe()
        os.close(read)                                 # `| head` gone before the first byte
        try:
            result = place.run(*args, in_process=in_process, stdout=write, stderr=subprocess.PIPE)
        finally:
            os.close(write)
        return result.stderr, result.returncode

    for args in (("show", duel), ("log", duel), ("show", "--help"), ("rules",)):
        before = place.served()
        assert closed_pipe(args, False) == closed_pipe(args, True), args
        assert place.served() == before + 1

    assert _ctrl_c(place, tmp_path, False) == _ctrl_c(place, tmp_path, True) == (b"", b"interrupted\n", 130)
    assert place.both("show", duel) == 1               # and it goes on serving


def test_ctrl_c_ends_a_forwarded_command_whatever_the_residents_starter_did_with_it(place, tmp_path):
    """A resident started by a process that ignored and blocked SIGINT (a script's background job,
    a program that blocked it, then autostarts one) serves callers that Ctrl-C interrupts: their
    forwarded command ends as in process, not left pending in the resident."""
    duel = _record(place, SAMPLE)
    place.start(preexec_fn=_ignoring_and_blocking_ctrl_c)
    assert _ctrl_c(place, tmp_path, False) == (b"", b"interrupted\n", 130)       # as in process (above)
    assert place.both("show", duel) == 1


def _ctrl_c(place: Place, tmp_path: Path, in_process: bool) -> tuple[bytes, bytes, int]:
    """``check FIFO``, blocked opening a file nobody writes, then Ctrl-C: its stdout, stderr and exit code."""
    fifo = tmp_path / "duel.jsonl"
    if not fifo.exists():
        os.mkfifo(fifo)
    process = subprocess.Popen([sys.executable, "-m", "ygoreplay", "check", str(fifo)], cwd=ROOT,
                               env=place.in_process if in_process else place.env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_at_a_terminal)
    blocked = Path(f"/proc/{process.pid if in_process else place.pid}/wchan")
    deadline = time.monotonic() + 60
    while blocked.read_text() != "wait_for_partner" and time.monotonic() < deadline:
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        seen = {pid: _signals_of(pid) for pid in (process.pid, place.pid)}
        process.kill()
        raise AssertionError(f"Ctrl-C did not end {'the command' if in_process else 'the forwarded command'}: "
                             f"{seen}") from None
    return out, err, process.returncode


def _ignoring_and_blocking_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


def _at_a_terminal() -> None:
    """SIGINT as a shell's foreground command has it: Ctrl-C's default. Not the test runner's, which
    a run started in the background ignores (and a worker that ran ``serve`` in-process handles):
    inherited, it made Ctrl-C end the command on some workers and not others."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _signals_of(pid: int | None) -> dict[str, str]:
    """What a process (and each of its threads) waits in and does with signals, for a test's failure."""
    seen: dict[str, str] = {}
    for task in sorted(Path(f"/proc/{pid}/task").glob("*")) if pid else []:
        try:
            status = dict(line.split(":\t", 1) for line in (task / "status").read_text().splitlines() if ":\t" in line)
            seen[task.name] = (f"wchan={(task / 'wchan').read_text()} SigIgn={status.get('SigIgn')} "
                               f"SigBlk={status.get('SigBlk')} SigCgt={status.get('SigCgt')} SigPnd={status.get('SigPnd')}")
        except OSError as exc:
            seen[task.name] = repr(exc)
    return seen


class FakeResident(threading.Thread):
    """A resident that takes a command and dies: before printing anything, or after printing."""

    def __init__(self, path: str, prints: bool) -> None:
        super().__init__(daemon=True)
        self.listener = socket.socket(socket.AF_UNIX)
        self.listener.bind(path)
        self.listener.listen()
        self.prints = prints

    def run(self) -> None:
        conn, _ = self.listener.accept()
        with conn:
            size = int.from_bytes(wire.receive(conn, len(wire.MAGIC) + 4)[len(wire.MAGIC):], "big")
            wire.receive(conn, size)
            conn.sendall(b"R")
            _, fds, _, _ = socket.recv_fds(conn, 1, 2)
            if self.prints:
                conn.sendall(b"P")
                os.write(fds[0], b"part of a board\n")
            for fd in fds:
                os.close(fd)
        self.listener.close()


@pytest.mark.parametrize("prints", [False, True])
def test_a_resident_that_dies_mid_request(place, prints):
    key = subprocess.run([sys.executable, "-c", "from ygoreplay.resident import code_key; print(code_key())"],
                         env=place.env, capture_output=True, text=True, check=True).stdout.strip()
    fake = FakeResident(wire.socket_path(place.folder, key), prints)
    fake.start()
    result = subprocess.run([sys.executable, "-c", "from ygoreplay.launcher import run; run(['show', 'x'], 'ygoreplay')"],
                            cwd=ROOT, env=place.env, capture_output=True, timeout=60)
    fake.join(10)
    expected = place.run("show", "x", in_process=True)
    if prints:                                         # never run again: what was printed stays, said so
        assert result.stdout == b"part of a board\n" and result.returncode == wire.EXIT_INTERNAL
        assert b"the resident helper stopped while answering" in result.stderr
    else:                                              # nothing printed: run in-process, once
        assert (result.stdout, result.stderr, result.returncode) == (expected.stdout, expected.stderr, 2)


def test_no_resident_no_difference(place, monkeypatch):
    """Opt-in: without ``resident start`` nothing is started and every command runs in-process."""
    monkeypatch.setenv(wire.DIR_ENV, place.folder)
    assert wire.forward(["show", SAMPLE], "ygoreplay") is None
    shown = place.run("show", SAMPLE)
    assert shown.returncode == 0 and not [n for n in os.listdir(place.folder) if n.endswith(".sock")]
    assert place.run("resident", "status").stdout == b"no resident running\n"


def test_seed_documents_edited_under_it_are_seen(place, tmp_path):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "RULES.md").write_text("- **SUM-05** — A Tribute Summon (「上級召喚」). · src: `000_0a.txt`\n")
    place.start()
    for text in ("上級召喚是一種通常召喚。", "上級召喚需要解放怪獸，這是新的說法。"):
        (seeds / "000_0a.txt").write_text(text)
        assert place.both("rules", "SUM-05", "--seeds", str(seeds), "--quote") == 1
        assert text.encode() in place.run("rules", "SUM-05", "--seeds", str(seeds), "--quote").stdout


def test_the_resident_answers_no_other_user(monkeypatch):
    from ygoreplay.cli.resident import Resident

    def asked(peer: int | None) -> bytes:
        ours, theirs = socket.socketpair()
        with ours, theirs:
            theirs.sendall(wire.pack([b"status"]))
            if peer is not None:
                monkeypatch.setattr(wire, "peer_uid", lambda conn: peer)
            Resident(None, "key", 60, "/nonexistent", 0)._one(ours)
            monkeypatch.undo()
            ours.shutdown(socket.SHUT_WR)
            return theirs.recv(4096)

    assert asked(None).startswith(b"pid "), "the user's own process is answered"
    assert asked(os.getuid() + 1) == b"", "another user's is not"


def test_the_console_script_names_the_program_as_it_was_called(place):
    """The launcher's ``main`` (the console script): click names the program after the script,
    here and in the resident alike."""
    place.start()
    script = "import sys; sys.argv[0] = '/somewhere/ygr'; from ygoreplay.launcher import main; main()"
    before = place.served()
    by_resident = subprocess.run([sys.executable, "-c", script, "show", "--nope"], cwd=ROOT, env=place.env,
                                 capture_output=True, timeout=60)
    assert place.served() == before + 1
    alone = subprocess.run([sys.executable, "-c", script, "show", "--nope"], cwd=ROOT, env=place.in_process,
                           capture_output=True, timeout=60)
    assert (by_resident.stderr, by_resident.returncode) == (alone.stderr, alone.returncode)
    assert b"Usage: ygr show" in alone.stderr and alone.returncode == 2


def test_a_callers_environment_is_not_left_for_the_next(place):
    """The resident takes each caller's environment and puts its own back after, changing only
    what differs: a variable one caller had is gone for the next (here the language it asked for)."""
    place.start()
    japanese = {"YGOREPLAY_LANG": "ja"}
    assert place.both("show", SAMPLE, "--at", "60", env=japanese) == 1
    assert place.both("show", SAMPLE, "--at", "60") == 1
    assert place.run("show", SAMPLE, "--at", "60").stdout != place.run("show", SAMPLE, "--at", "60", env=japanese).stdout


def _open_in(pid: int) -> tuple[int, int]:
    """How many descriptors and threads process ``pid`` has."""
    return len(os.listdir(f"/proc/{pid}/fd")), len(os.listdir(f"/proc/{pid}/task"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs /proc")
def test_nothing_of_a_finished_command_stays_in_the_resident(place):
    """The watcher of each command (Ctrl-C, busy) is a thread the command does not wait for, on a
    copy of the connection's descriptor: it ends, and closes its copy, once the command is over;
    the caller's stdout and stderr are closed before the caller is told the exit code."""
    place.start()
    assert place.both("show", SAMPLE, "--at", "60") == 1
    idle = _open_in(place.pid)
    for args in (("show", SAMPLE), ("log", SAMPLE), ("show", "nosuchduel"), ("rules", "SUM-04")):
        assert place.both(*args) == 1, args
    for _ in range(600):                               # each watcher ends when its caller's connection does
        if _open_in(place.pid) == idle:
            break
        time.sleep(0.05)
    assert _open_in(place.pid) == idle


def test_a_watcher_that_cannot_start_leaves_nothing_printed_or_held(monkeypatch, tmp_path):
    """No thread to be had (a limit on threads): the command is not run, the caller is told
    nothing (it runs the command itself), and the resident keeps no descriptor and no setting."""
    from ygoreplay.cli import resident as serving

    def refused(*args) -> None:
        raise RuntimeError("can't start new thread")
    monkeypatch.setattr(serving._thread, "start_new_thread", refused)
    monkeypatch.chdir(tmp_path)                        # the resident ends each command in /
    ours, theirs = socket.socketpair()
    (out_r, out_w), (err_r, err_w) = os.pipe(), os.pipe()
    environ, streams = dict(os.environ), (sys.stdout, sys.stderr, sys.stdin)
    spec = ("utf-8", "strict", False, False)
    opened = len(os.listdir("/proc/self/fd"))
    try:
        request = serving._Request(ours, [out_w, err_w], spec, spec, lambda busy: None)
        with pytest.raises(RuntimeError):
            request.run(["show", SAMPLE], "ygoreplay", str(ROOT), 0o22, {**environ, "COLUMNS": "150"})
        assert dict(os.environ) == environ and (sys.stdout, sys.stderr, sys.stdin) == streams
        assert len(os.listdir("/proc/self/fd")) == opened - 2, "the caller's two descriptors, and no copy, closed"
        assert os.read(out_r, 100) == b"" and os.read(err_r, 100) == b""
        ours.close()
        assert theirs.recv(16) == b"", "no exit code: the caller runs it itself"
    finally:
        for fd in (out_r, err_r):
            os.close(fd)
        theirs.close()


def test_an_answered_command_leaves_without_tearing_the_interpreter_down(tmp_path):
    """The launcher's end once a resident answered (``_leave``): the exit code is the resident's,
    and what the launcher's own streams hold is still written, as a normal exit writes it."""
    script = ("import sys; from ygoreplay.launcher import _leave; print('held in a buffer', end=''); "
              "print('and on stderr', file=sys.stderr, end=''); _leave(3)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, timeout=60)
    assert (result.stdout, result.stderr, result.returncode) == (b"held in a buffer", b"and on stderr", 3)



#: The console script's way (``main``, the program named ``ygoreplay``), saying on stderr which
#: modules were imported when it leaves (``launcher._leave``: an answered command's end).
_SAYS_ITS_MODULES = """import os, sys
loaded, leave = set(sys.modules), os._exit
def said(code):
    os.write(2, b"modules: " + " ".join(sorted(set(sys.modules) - loaded)).encode() + b"\\n")
    leave(code)
os._exit = said
sys.argv[0] = "ygoreplay"
from ygoreplay.launcher import main
main()
"""


def test_a_forwarded_command_imports_only_the_wire_before_it_is_answered(place):
    """The caller of a command a resident answers imports nothing beyond the launcher, the
    resident's wire and the C socket: not ``i18n`` (its ``contextlib`` and ``contextvars``),
    which only the group's help page needs, nor ``importlib``, which only a public name of the
    package needs (issue 25: each is part of every answered command's time)."""
    place.start()
    before = place.served()
    for args in (["check", SAMPLE], ["show", SAMPLE], ["log", SAMPLE, "--lang", "ja"]):
        done = subprocess.run([sys.executable, "-c", _SAYS_ITS_MODULES, *args], cwd=place.cwd, env=place.env,
                              capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr
        added = set(done.stderr.rpartition(b"modules: ")[2].split())
        assert added <= {b"ygoreplay", b"ygoreplay.launcher", b"ygoreplay.resident", b"ygoreplay.errors",
                         b"_socket", b"zlib", b"__future__"}, (args, sorted(added))
        assert {b"ygoreplay.launcher", b"_socket"} <= added, args
    assert place.served() - before == 3


def _output_limited() -> None:
    """In the child: files may not grow past 2 KB, and going past is an error, not a signal."""
    import resource
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))


def test_a_command_under_a_file_size_limit_is_never_answered_by_a_resident(place, tmp_path):
    """``ulimit -f``: the caller's limit holds for the output whether or not a resident runs (it
    grew to the whole log through the resident, which runs under no such limit): exit 2, a message,
    and the output no longer than the limit."""
    place.start()
    before = place.served()
    out = tmp_path / "out.txt"
    with open(out, "w") as handle:
        limited = place.run("log", SAMPLE, stdout=handle, stderr=subprocess.PIPE, preexec_fn=_output_limited)
    assert limited.returncode == 2 and b"cannot write the output" in limited.stderr
    assert out.stat().st_size <= 2048 and place.served() == before
    assert place.both("log", SAMPLE) == 1               # without the limit the resident answers
