"""The resident helper's place and wire: where its socket lives, which code it runs, which
commands it may answer, and the client side the ``ygoreplay`` launcher calls.

A command costs ~200 ms of imports before it does ~10 ms of work; a resident process
(``ygoreplay resident start``, ``cli/resident.py``) has them imported already and answers the
read-only commands in its own process, writing straight into the caller's stdout and stderr
(their descriptors are passed over the socket), so what it prints is what the command prints.
A read-only command that finds none of this code starts one in the background for the commands
after it (``autostart``), as a build daemon does; ``YGOREPLAY_RESIDENT=off`` turns that off, and
it stops after ``AUTO_IDLE_SECONDS`` without a request. It changes no answer: a resident opens the
store a command names afresh for each command (what another process wrote is read), and every
cache it keeps is keyed by the bytes or the file version it was made from.

Security, against another user of the machine: the socket lives in a folder of this user's that
nobody else may enter (``check_folder``: owned by us, mode 0700, not a link); each side checks
the other's user id by the kernel's word (``SO_PEERCRED``), and the resident that the caller has
its groups, capabilities, sandbox and mount namespace (``same_powers``); a request is bounded in size and
read within a few seconds; a resident answers only the code it runs (``code_key``: the
installed package's files, the interpreter and its import folders), one request at a time.

Standard library only, and the C ``_socket`` rather than ``socket`` (whose enums cost 5 ms): the
launcher imports this module before it knows whether it will run the command itself.
"""
from __future__ import annotations

import os
import stat
import sys
import time

import _signal
import _socket

from .errors import YgoreplayError

DIR_ENV = "YGOREPLAY_RESIDENT_DIR"
#: ``off`` (``0``, ``no``, ``false``): a command never starts a resident by itself (``autostart``).
AUTO_ENV = "YGOREPLAY_RESIDENT"
AUTO_OFF = frozenset({"0", "off", "no", "false"})
AUTO_IDLE_SECONDS = 600
#: What ``autostart`` runs: first closing what the caller inherited besides its standard streams
#: (a lock ``flock LOCK ygoreplay ...`` holds, a pipe a script reads to its end), then this very
#: package (its parent folder first on the path, not the working folder ``-c`` would put there),
#: told the code key its caller computed.
_STARTER = ("import os, sys; os.closerange(3, os.sysconf('SC_OPEN_MAX')); "
            "sys.path.insert(0, sys.argv[1]) if sys.flags.safe_path else sys.path.__setitem__(0, sys.argv[1]); "
            "from ygoreplay.cli.resident import started; started(sys.argv[2])")
#: The commands a resident answers: they only read (stores opened read-only, no output file) and
#: never read standard input. A ``-`` argument, ``search --reindex``, a witness (its table is made
#: when first opened) or a path into /dev or /proc (the resident's own ``/dev/stdin``) keeps a
#: command in its own process (``forwardable``).
FORWARDED = frozenset({"check", "rules", "show", "log", "actions", "audit", "list", "tree", "diff", "verify",
                       "search"})
MAGIC = b"YGRR\x01"
MAX_REQUEST = 1 << 20              # argv, environment and the rest: ARG_MAX is 2 MiB, a real one ~10 KiB
MAX_FIELDS = 16384
READY_SECONDS = 1.0                # a resident busy with another command: run this one in-process
BUSY_SECONDS = 0.2                 # a command running longer (a reader that does not read...): marked busy
SOCKET_MODE = 0o600
BUSY_MODE = 0o200                  # the socket's mode while marked busy: a caller runs in-process at once
REQUEST_SECONDS = 5.0              # a client that connects and sends nothing holds no resident longer
EXIT_INTERNAL = 4


class ResidentError(YgoreplayError):
    """The resident's folder or socket cannot be used as asked (another owner, open to others...)."""


# -- where: a private folder ----------------------------------------------------------------------

def folder() -> str:
    """``$YGOREPLAY_RESIDENT_DIR``, else ``ygoreplay-UID`` in ``$XDG_RUNTIME_DIR`` (else /tmp)."""
    explicit = os.environ.get(DIR_ENV)
    if explicit:
        return os.path.abspath(explicit)
    return os.path.join(os.environ.get("XDG_RUNTIME_DIR") or "/tmp", f"ygoreplay-{os.getuid()}")


def check_folder(path: str, create: bool = False) -> str:
    """``path`` if it is a folder of this user's that nobody else may enter (made so when
    ``create``): a folder another user made (in /tmp, before us) or opened to others, or a link
    planted in its place, is refused, never used or repaired."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        if not create:
            raise ResidentError(f"{path}: no resident folder (ygoreplay resident start makes it)") from None
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:                  # someone else was quicker: judged below
            pass
        except OSError as exc:
            raise ResidentError(f"{path}: cannot make the resident folder ({exc.strerror})") from None
        found = os.lstat(path)
    if not stat.S_ISDIR(found.st_mode):
        raise ResidentError(f"{path}: not a folder (a link or a file is in its place): refused")
    if found.st_uid != os.getuid():
        raise ResidentError(f"{path}: owned by user {found.st_uid}, not by you ({os.getuid()}): refused")
    if found.st_mode & 0o077:
        raise ResidentError(f"{path}: others may enter it (mode {stat.S_IMODE(found.st_mode):o}; it must be 700): "
                            "refused")
    return path


def socket_path(where: str, key: str) -> str:
    path = os.path.join(where, f"r-{key}.sock")
    if len(os.fsencode(path)) > 107:             # sun_path: 108 bytes with its NUL
        raise ResidentError(f"{where}: too long a path for a socket (at most ~90 characters)")
    return path


def own_socket(path: str, busy_ok: bool = False) -> bool:
    """Whether ``path`` is a socket of this user's (not a file or a link planted there), and one
    whose resident is not busy (``BUSY_MODE``) unless ``busy_ok``."""
    try:
        found = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISSOCK(found.st_mode) and found.st_uid == os.getuid() \
        and (busy_ok or stat.S_IMODE(found.st_mode) != BUSY_MODE)


def peer_uid(conn: _socket.socket) -> int:
    """The user id of the process at the other end, as the kernel says (``SO_PEERCRED``)."""
    creds = conn.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)     # struct ucred: pid, uid, gid
    return int.from_bytes(creds[4:8], sys.byteorder)


def peer_pid(conn: _socket.socket) -> int:
    """The process id at the other end (``SO_PEERCRED``; 0 when the kernel does not say)."""
    creds = conn.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
    return int.from_bytes(creds[0:4], sys.byteorder)


#: What a process may read besides its user id: its groups, capabilities and sandbox.
_POWERS = (b"Uid", b"Gid", b"Groups", b"CapInh", b"CapPrm", b"CapEff", b"CapBnd", b"CapAmb", b"NoNewPrivs",
           b"Seccomp", b"Seccomp_filters")


def _powers(proc: str) -> tuple:
    with open(f"{proc}/status", "rb") as status:
        lines = tuple(line for line in status.read().splitlines() if line.partition(b":")[0] in _POWERS)
    with open(f"{proc}/limits", "rb") as limits:     # ``ulimit -f``/``-t``: the resident writes the
        bounds = limits.read()                        # output and spends the CPU, under its own
    root = os.stat(f"{proc}/root")
    return lines, bounds, (root.st_dev, root.st_ino), tuple(os.readlink(f"{proc}/ns/{name}") for name in ("mnt", "user"))


def same_powers(pid: int) -> bool:
    """Whether process ``pid`` may read what this one may: the same user is not enough (a client
    started without a group, with fewer capabilities, under a sandbox, in another mount namespace
    or root folder would read through the resident what it cannot read itself), nor under other
    limits (a 2 KB ``ulimit -f`` output grew to the whole log through it); False when /proc
    cannot say."""
    if pid <= 0:
        return False
    try:
        return _powers(f"/proc/{pid}") == _powers("/proc/self")
    except OSError:
        return False


# -- which code -------------------------------------------------------------------------------------

def code_key() -> str:
    """Which code would answer: every file of the installed package (its path, size and change
    time), the interpreter, its version, flags, ``PYTHON*`` settings and encodings, and the folders it imports from (with their
    change time: a package installed or upgraded there changes it). A resident keeps the key of
    the code it loaded; a command computes it from the disk, so after an upgrade or an edit it
    never talks to an old resident. Nothing in it comes from the other end of a socket."""
    import zlib
    package = os.path.dirname(os.path.abspath(__file__))
    parent = os.path.dirname(package)
    parts = [sys.executable, sys.version, sys.getfilesystemencoding(), repr(sys.flags), repr(sys.warnoptions),
             repr(sys._xoptions), package]
    # the interpreter's settings from the environment (PYTHONOPTIMIZE=2 drops the help's docstrings,
    # PYTHONHASHSEED orders sets...): read once at start, so a resident answers only the same ones
    parts += sorted(f"{k}={v}" for k, v in os.environ.items() if k.startswith("PYTHON"))
    for entry in sys.path[1:]:                   # [0]: the script's folder or the cwd: not where we import from
        if not entry or os.path.abspath(entry) == parent:
            parts.append(entry)                  # the package's own folder: its files are below
            continue
        try:
            parts.append(f"{entry}\0{os.stat(entry).st_mtime_ns}")
        except OSError:
            parts.append(entry)
    files = []
    pending = [package]
    while pending:
        with os.scandir(pending.pop()) as entries:
            for entry in entries:
                if entry.name == "__pycache__":
                    continue
                if entry.is_dir(follow_symlinks=False):
                    pending.append(entry.path)
                else:
                    found = entry.stat()
                    files.append(f"{entry.path}\0{found.st_size}\0{found.st_mtime_ns}\0{found.st_ctime_ns}")
    data = "\n".join([*parts, *sorted(files)]).encode("utf-8", "surrogateescape")
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


# -- which commands ---------------------------------------------------------------------------------

def command_of(args: list[str]) -> tuple[str | None, list[str]]:
    """The command named in ``args`` (after the group's ``--lang``) and the arguments after it."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--lang":
            i += 2
        elif arg.startswith("--lang="):
            i += 1
        elif arg.startswith("-"):
            return None, []                      # --help, --version, an unknown option: in-process
        else:
            return arg, args[i + 1:]
    return None, []


def forwardable(args: list[str], environ: dict[str, str], cwd: str) -> bool:
    """Whether a resident may answer ``ygoreplay ARGS``: a command of ``FORWARDED`` that reads no
    standard input, writes nothing and names no path into /dev or /proc (which would be the
    resident's own there: its ``/dev/stdin``, its ``/dev/fd/63``). The resident decides by this
    too; anything doubtful runs in-process."""
    name, rest = command_of(args)
    if name not in FORWARDED or environ.get("YGOREPLAY_DEBUG") or environ.get("YGOREPLAY_WITNESS"):
        return False
    if any(arg == "-" or arg == "--witness" or arg.startswith("--witness=") for arg in rest):
        return False
    if name == "search" and any(arg == "--reindex" for arg in rest):
        return False
    named = [arg.partition("=")[2] if arg.startswith("--") else arg for arg in args]
    named += [part for key, value in environ.items() if key.startswith("YGOREPLAY_")
              for part in value.split(os.pathsep)]
    return not any(_special(os.path.join(cwd, path)) for path in named if path) and not _special(cwd)


def _special(path: str) -> bool:
    real = os.path.realpath(path)
    return real == "/dev" or real == "/proc" or real.startswith(("/dev/", "/proc/"))


# -- the wire -----------------------------------------------------------------------------------------

def pack(fields: list[bytes]) -> bytes:
    """A request: the magic, its length, then each field as a 4-byte length and its bytes."""
    body = b"".join(len(f).to_bytes(4, "big") + f for f in fields)
    return MAGIC + len(body).to_bytes(4, "big") + body


def unpack(body: bytes) -> list[bytes]:
    """The fields of a request's body, every length checked against what is there."""
    fields, i = [], 0
    while i < len(body):
        if i + 4 > len(body) or len(fields) >= MAX_FIELDS:
            raise ResidentError("a malformed request")
        n = int.from_bytes(body[i:i + 4], "big")
        if i + 4 + n > len(body):
            raise ResidentError("a malformed request")
        fields.append(body[i + 4:i + 4 + n])
        i += 4 + n
    return fields


def receive(conn: _socket.socket, size: int, deadline: float | None = None) -> bytes:
    """Exactly ``size`` bytes, or ResidentError when the other end stops short; by the
    ``time.monotonic`` ``deadline`` (else TimeoutError), not a timeout a byte at a time: a client
    trickling a byte every few seconds holds a resident no longer than one that sends nothing."""
    data = b""
    while len(data) < size:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the request came too slowly")
            conn.settimeout(left)
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise ResidentError("the other end closed the connection")
        data += chunk
    return data


def connect(path: str, timeout: float, busy_ok: bool = False) -> _socket.socket:
    """A connection to the resident at ``path``, whose process must be this user's; ResidentError
    (or OSError) otherwise, and when it is marked busy unless ``busy_ok``."""
    if not own_socket(path, busy_ok):
        raise ResidentError(f"{path}: no resident socket of yours")
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.settimeout(timeout)
        conn.connect(path)
        if peer_uid(conn) != os.getuid():
            raise ResidentError(f"{path}: answered by another user's process: refused")
    except BaseException:
        conn.close()
        raise
    return conn


def ask(path: str, kind: str, timeout: float = 5.0) -> bytes:
    """A control request (``status``, ``stop``) to the resident at ``path``: its answer."""
    conn = connect(path, timeout)
    try:
        conn.sendall(pack([kind.encode()]))
        answer = b""
        while chunk := conn.recv(65536):
            answer += chunk
        return answer
    finally:
        conn.close()


def _stream_spec(stream) -> bytes:
    """How the interpreter set up one of our standard streams, for the resident to do the same."""
    return "\0".join((stream.encoding, stream.errors or "strict", "1" if stream.line_buffering else "",
                      "1" if stream.write_through else "")).encode()


def _terminal_environment(environ: dict[str, str]) -> dict[str, str]:
    """COLUMNS and LINES as ``shutil.get_terminal_size`` finds them here (from the terminal on our
    stdout), for the resident, whose own stdout is no terminal."""
    added = {}
    missing = [name for name in ("COLUMNS", "LINES") if not environ.get(name, "").strip().isdigit()
               or int(environ[name]) <= 0]
    if missing:
        try:
            size = os.get_terminal_size(sys.__stdout__.fileno())
        except (AttributeError, ValueError, OSError):
            return added
        for name, value in (("COLUMNS", size.columns), ("LINES", size.lines)):
            if name in missing and value > 0:
                added[name] = str(value)
    return added


def forward(args: list[str], prog_name: str) -> int | None:
    """``ygoreplay ARGS`` answered by a resident of this code: its exit code; None when there is
    none, it refuses, it is busy, or it stopped before printing anything (then the caller runs
    the command itself: nothing is ever printed twice)."""
    if sys.stdout is None or sys.stderr is None:
        return None
    global _vacant
    environ = dict(os.environ)
    try:
        cwd = os.getcwd()
        if not forwardable(args, environ, cwd):
            return None
        where = folder()
        if not os.path.lexists(where):           # no folder, no resident: one may be started
            _vacant = code_key() if _starts(environ) else None
            return None
        check_folder(where)
        if not _starts(environ) and not any(name.endswith(".sock") for name in os.listdir(where)):
            return None                          # no resident of any code, none to start: no key needed
        key = code_key()
        path = socket_path(where, key)
        if not os.path.lexists(path):
            _vacant = key if _starts(environ) else None
            return None
        conn = connect(path, READY_SECONDS)
    except ConnectionRefusedError:               # a socket left by a resident that was killed
        _vacant = key if _starts(environ) else None
        return None
    except (OSError, ValueError, ResidentError):  # none to trust, or busy: in-process
        return None
    try:
        return _forwarded(conn, key, args, prog_name, environ, cwd)
    finally:
        conn.close()


#: The code key of a read-only command's code when ``forward`` found no resident listening for it
#: and one may be started (``_starts``).
_vacant: str | None = None


def _starts(environ: dict[str, str]) -> bool:
    """Whether a command may start a resident: ``$YGOREPLAY_RESIDENT`` does not say no, and the
    kernel can say who is at a socket's other end (no ``SO_PEERCRED``: none would be answered)."""
    return environ.get(AUTO_ENV, "").strip().lower() not in AUTO_OFF and hasattr(_socket, "SO_PEERCRED")


def autostart() -> None:
    """After ``forward`` found no resident of this code (none there, or one killed): start one in
    the background, in a session of its own, for the commands after this one, which this one
    does not wait for (it runs in its own process as before); not when ``_starts`` says no. What
    it starts is ``resident start`` (the same folder and socket checks), by ``cli/resident.started``,
    which starts nothing unless it runs the code the caller runs."""
    if _vacant is None:
        return
    parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        quiet = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDWR, 0), (os.POSIX_SPAWN_DUP2, 0, 1),
                 (os.POSIX_SPAWN_DUP2, 0, 2)]
        os.posix_spawn(sys.executable, [sys.executable, "-c", _STARTER, parent, _vacant], os.environ,
                       file_actions=quiet, setsid=True)
    except (OSError, NotImplementedError, AttributeError):   # no interpreter to be had: nothing started
        pass


def _forwarded(conn: _socket.socket, key: str, args: list[str], prog_name: str, environ: dict[str, str],
               cwd: str) -> int | None:
    try:
        mask = os.umask(0)
        os.umask(mask)
        environ.update(_terminal_environment(environ))
        encode = os.fsencode
        fields = [b"run", key.encode(), encode(prog_name), encode(cwd), str(mask).encode(),
                  _stream_spec(sys.stdout), _stream_spec(sys.stderr), str(len(args)).encode(),
                  *map(encode, args), *(encode(k) + b"=" + encode(v) for k, v in environ.items())]
        request = pack(fields)
    except (AttributeError, ValueError):         # a standard stream replaced by something else
        return None
    if len(request) > MAX_REQUEST + len(MAGIC) + 4:
        return None
    held = None
    try:
        conn.sendall(request)
        if conn.recv(1) != b"R":                 # refused (another code, a command it does not take)
            return None
        sys.stdout.flush()
        sys.stderr.flush()
        # Ctrl-C held from the command's start until the loop below hears it: one between the
        # resident starting it and that loop's ``try`` (a loaded machine) ended this process with
        # a traceback while the resident went on; delivered when unblocked, inside the ``try``
        # (``pthread_sigmask`` runs the handlers of what it unblocks before it returns)
        held = _signal.pthread_sigmask(_signal.SIG_BLOCK, {_signal.SIGINT})
        conn.sendmsg([b"G"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS,
                               b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in (1, 2)))])
    except OSError:                              # busy, gone, or our stdout is closed: nothing was printed
        if held is not None:
            _signal.pthread_sigmask(_signal.SIG_SETMASK, held)
        return None
    conn.settimeout(None)                        # committed: the command may take as long as it takes
    printed = False
    interrupted = False
    answer = b""
    while True:
        try:
            if held is not None:
                unheld, held = held, None
                _signal.pthread_sigmask(_signal.SIG_SETMASK, unheld)
            chunk = conn.recv(16)
        except KeyboardInterrupt:                # Ctrl-C: the resident interrupts the command, as it would be
            if interrupted:
                return 130
            interrupted = True
            try:
                conn.send(b"I")
                conn.settimeout(5.0)
            except OSError:
                return 130
            continue
        except OSError:
            chunk = b""
        if not chunk:
            break
        answer += chunk
        if answer.startswith(b"P"):
            printed, answer = True, answer[1:]
        if answer.startswith(b"X") and len(answer) >= 5:
            return int.from_bytes(answer[1:5], "big", signed=True)
    if interrupted:
        return 130
    if not printed:
        return None                              # it stopped before printing anything: run it here
    os.write(2, b"error: the resident helper stopped while answering, after printing part of the answer "
                b"(ygoreplay resident status; run the command again)\n")
    return EXIT_INTERNAL
