"""``ygoreplay resident start|stop|status``: a process that keeps the command line imported and
answers the read-only commands (``resident.FORWARDED``) in its own process, at the speed of an
in-process call: a scorekeeper's or a judge's script running many ``show``s pays the ~200 ms of
imports once. The launcher (``launcher.py``) hands a command to it when one of this code runs.

The resident serves one request at a time: it runs the command as ``main`` would (same argv,
working folder, environment, umask, terminal size) with the caller's own stdout and stderr (their
descriptors, passed over the socket), so what is printed, and the exit code, are the command's
own. It stops after ``--idle`` seconds without a request, on ``stop``, or when it leaks
descriptors (a command that forgot one would end by failing others).
"""
from __future__ import annotations

import _thread
import codecs
import gc
import io
import os
import select
import signal
import socket
import sys
import threading
import time
import traceback
from datetime import datetime, timezone
from typing import Callable

import click

from .. import resident as wire
from ..i18n import say, t
from .common import echo, main

IDLE_SECONDS = 15 * 60
MAX_DESCRIPTORS = 256           # more open than this after a command: a leak; the resident retires
#: What the commands it answers import, loaded once when it starts (not ``play``'s Textual).
PRELOAD = ("ygoreplay.render", "ygoreplay.source", "ygoreplay.store", "ygoreplay.log", "ygoreplay.checking",
           "ygoreplay.application", "ygoreplay.library_search", "ygoreplay.explain", "ygoreplay.rules.coverage",
           "ygoreplay.diff", "ygoreplay.trust", "ygoreplay.replay_file", "ygoreplay.card_sources",
           "ygoreplay.formats", "ygoreplay.actions", "ygoreplay.match.stream", "ygoreplay.receipts")


@main.group(name="resident")
def resident_group() -> None:
    """A resident helper that answers the read-only commands (show, log, check FILE, list, search,
    diff, tree, rules, verify, audit, actions) without starting Python anew: for scripts that
    run many of them. A read-only command starts one when none is running (YGOREPLAY_RESIDENT=off:
    never; it stops after 10 minutes without a request) and runs in its own process itself."""


@resident_group.command(name="start")
@click.option("--idle", "idle", type=click.IntRange(1, 7 * 24 * 3600), default=IDLE_SECONDS, show_default=True,
              help="Stop after this many seconds without a request.")
def start(idle: int) -> None:
    """Start a resident for this user and this code, in the background; it prints its process id."""
    where = wire.check_folder(wire.folder(), create=True)
    key = wire.code_key()
    path = wire.socket_path(where, key)
    if os.path.lexists(path):
        running: str | None = None
        try:                                    # (ResidentError: not a socket of ours there)
            wire.connect(path, 1.0, busy_ok=True).close()
        except ConnectionRefusedError:          # a socket left by one that was killed (busy or not): nobody listens
            os.unlink(path)
        except OSError:                         # its queue full: busy with a command
            running = "?"
        else:
            running = (_status_of(path) or {}).get("pid", "?")
        if running is not None:
            echo(t("a resident is running already (pid {pid})", pid=running))
            return
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(path)
    except OSError as exc:
        listener.close()
        raise wire.ResidentError(say("{path}: cannot listen there ({value})",
                                     path=path, value=exc.strerror or exc)) from None
    os.chmod(path, wire.SOCKET_MODE)
    listener.listen(16)
    inode = os.lstat(path).st_ino
    readable, writable = os.pipe()
    first = os.fork()
    if first == 0:                              # the child: a session of its own, then the resident
        os.close(readable)
        try:
            os.setsid()
            if os.fork() == 0:
                _become_resident(listener, key, idle, path, inode, writable)
        finally:
            os._exit(0)
    os.close(writable)
    listener.close()
    os.waitpid(first, 0)
    with os.fdopen(readable, "rb") as ready:
        said = ready.read().decode(errors="replace")
    if not said.startswith("ready "):
        if os.path.lexists(path) and os.lstat(path).st_ino == inode:
            os.unlink(path)
        raise wire.ResidentError(say("the resident did not start: {output}", output=said.strip()) if said.strip()
                                 else say("the resident did not start: it ended at once"))
    echo(t("resident started (pid {pid}); it stops after {idle} s without a request", pid=said.split()[1],
           idle=idle))


def started(key: str) -> None:
    """The process ``wire.autostart`` spawned: ``resident start --idle AUTO_IDLE_SECONDS`` when
    this process's code key is its caller's ``key``; else nothing (a caller run with other
    interpreter flags would never be answered by it, and would start another each time)."""
    if wire.code_key() == key:
        main(args=["resident", "start", "--idle", str(wire.AUTO_IDLE_SECONDS)], prog_name="ygoreplay")


@resident_group.command(name="stop")
def stop() -> None:
    """Stop every resident of this user (of this code or an older one)."""
    stopped = 0
    for path in _sockets():
        status = _status_of(path)
        if status is None:
            continue
        try:
            if status.get("busy"):              # it cannot answer: ended as `kill` would, it leaves its socket
                os.kill(int(status["pid"]), signal.SIGTERM)
            else:
                wire.ask(path, "stop")
        except (OSError, wire.ResidentError):
            continue
        deadline = time.monotonic() + 5
        while os.path.lexists(path) and time.monotonic() < deadline:
            time.sleep(0.01)
        stopped += 1
        echo(t("stopped the resident (pid {pid})", pid=status.get("pid", "?")))
    if not stopped:
        echo(t("no resident running"))


@resident_group.command(name="status")
def status() -> None:
    """Say which residents of this user are running, and whether each runs this code."""
    key = wire.code_key()
    found = 0
    for path in _sockets():
        info = _status_of(path)
        if info is None:
            continue
        found += 1
        if info.get("busy"):
            echo(t("resident pid {pid}: busy with a command for now (ygoreplay resident stop ends it)",
                   pid=info["pid"]))
            continue
        which = t("this code") if info.get("key") == key else t("another version of the code (not used)")
        echo(t("resident pid {pid}: {which}; {served} command(s) answered since {started}; stops after {idle} s "
               "without a request", pid=info.get("pid", "?"), which=which, served=info.get("served", "?"),
               started=info.get("started", "?"), idle=info.get("idle", "?")))
    if not found:
        echo(t("no resident running"))


def _sockets() -> list[str]:
    """The residents' sockets in this user's folder (none when there is no folder yet)."""
    if not os.path.lexists(wire.folder()):
        return []
    where = wire.check_folder(wire.folder())
    return sorted(os.path.join(where, name) for name in os.listdir(where)
                  if name.startswith("r-") and name.endswith(".sock"))


def _status(path: str) -> dict[str, str]:
    """What the resident at ``path`` says of itself (OSError or ResidentError when none of ours
    answers there)."""
    answer = wire.ask(path, "status", timeout=2.0)
    return dict(line.split(" ", 1) for line in answer.decode(errors="replace").splitlines() if " " in line)


def _status_of(path: str) -> dict[str, str] | None:
    """``_status``; ``pid`` and ``busy`` of one that does not answer, busy with a command (a reader
    that stopped reading its output...); None when nobody of ours is there."""
    try:
        return _status(path)
    except (OSError, wire.ResidentError):
        pid = _busy_pid(path)
        return None if pid is None else {"pid": str(pid), "busy": "1"}


def _busy_pid(path: str) -> int | None:
    """The process id of the resident of ours listening at ``path`` (the kernel says it on connect,
    before the resident accepts), or None when none listens there."""
    try:
        conn = wire.connect(path, 1.0, busy_ok=True)
    except (OSError, wire.ResidentError):
        return None
    try:
        pid = wire.peer_pid(conn)
    finally:
        conn.close()
    return pid if pid > 0 and _listening(pid, path) else None


def _listening(pid: int, path: str) -> bool:
    """Whether process ``pid`` holds the socket at ``path``: a resident of an older version names
    the ``start`` process that made its socket, gone since, its pid perhaps another's now."""
    try:
        with open("/proc/net/unix", encoding="utf-8", errors="surrogateescape") as table:
            inodes = {f"socket:[{line.split()[6]}]" for line in table if line.rstrip("\n").endswith(" " + path)}
        return any(os.readlink(f"/proc/{pid}/fd/{fd}") in inodes for fd in os.listdir(f"/proc/{pid}/fd"))
    except (OSError, IndexError):
        return False


# -- the resident itself ------------------------------------------------------------------------------

def _become_resident(listener: socket.socket, key: str, idle: int, path: str, inode: int, ready: int) -> None:
    """The background process: loads what the commands import, says it is ready, serves."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    _close_inherited({listener.fileno(), ready})
    os.chdir("/")
    # Ctrl-C as a command run in its own process gets it, whatever the process that started this
    # one did with it: a shell's background job ignores it, a program may have blocked it (a caller
    # that blocked it autostarts one); then the watcher's SIGINT to the command (``_Request._watch``)
    # was ignored or left pending, and a forwarded command went on after its caller's Ctrl-C
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    from importlib import import_module
    try:
        for name in PRELOAD:
            import_module(name)
    except Exception as exc:                    # said by `start`, which waits for this line
        os.write(ready, f"{type(exc).__name__}: {exc}\n".encode(errors="replace"))
        return
    gc.freeze()                                 # what it loaded stays: no collection walks it again
    listener.listen(16)                         # again: a caller's SO_PEERCRED names this process, not `start`
    resident = Resident(listener, key, idle, path, inode)
    signal.signal(signal.SIGTERM, resident.terminate)
    os.write(ready, f"ready {os.getpid()}\n".encode())
    os.close(ready)
    resident.serve()


def _close_inherited(keep: set[int]) -> None:
    """Close what ``start`` inherited besides its standard streams (the lock ``flock LOCK ygoreplay
    resident start`` holds, a pipe its caller reads to the end): not the resident's to keep for
    its whole life."""
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX"))


class Resident:
    """One request at a time, until idle, stopped, or leaking."""

    def __init__(self, listener: socket.socket, key: str, idle: int, path: str, inode: int) -> None:
        self.listener, self.key, self.idle, self.path, self.inode = listener, key, idle, path, inode
        self.started = datetime.now(timezone.utc).isoformat(timespec="seconds")
        self.served = 0
        self.stopping = False

    def serve(self) -> None:
        self.listener.settimeout(self.idle)
        try:
            while not self.stopping:
                try:
                    conn, _ = self.listener.accept()
                except TimeoutError:
                    break
                try:
                    self._one(conn)
                except (Exception, KeyboardInterrupt):  # a client gone, a malformed request: the next one
                    pass
                finally:
                    conn.close()
                if _descriptors() > MAX_DESCRIPTORS:
                    break
        finally:
            self._leave()

    def terminate(self, signum: int, frame: object) -> None:
        """SIGTERM (``stop`` of a busy resident): its socket removed, gone at once."""
        self._leave()
        os._exit(0)

    def mark(self, busy: bool) -> None:
        """The socket marked busy (``wire.BUSY_MODE``) while a command runs long, or not: a caller
        then runs its command itself at once instead of waiting READY_SECONDS for an answer."""
        try:
            if os.lstat(self.path).st_ino == self.inode:
                os.chmod(self.path, wire.BUSY_MODE if busy else wire.SOCKET_MODE)
        except OSError:
            pass

    def _leave(self) -> None:
        """Remove the socket (if it is still ours: a new resident may have taken the name)."""
        try:
            if os.lstat(self.path).st_ino == self.inode:
                os.unlink(self.path)
        except OSError:
            pass
        self.listener.close()

    def _one(self, conn: socket.socket) -> None:
        deadline = time.monotonic() + wire.REQUEST_SECONDS
        conn.settimeout(wire.REQUEST_SECONDS)
        if wire.peer_uid(conn) != os.getuid():
            return
        head = wire.receive(conn, len(wire.MAGIC) + 4, deadline)
        size = int.from_bytes(head[len(wire.MAGIC):], "big")
        if head[:len(wire.MAGIC)] != wire.MAGIC or size > wire.MAX_REQUEST:
            return
        fields = wire.unpack(wire.receive(conn, size, deadline))
        conn.settimeout(wire.REQUEST_SECONDS)
        kind = fields[0] if fields else b""
        if kind == b"status":
            conn.sendall(f"pid {os.getpid()}\nkey {self.key}\nstarted {self.started}\nserved {self.served}\n"
                         f"idle {self.idle}\n".encode())
        elif kind == b"stop":
            self._leave()
            self.stopping = True
            conn.sendall(b"stopping\n")
        elif kind == b"run":
            self._run(conn, fields[1:], wire.same_powers(wire.peer_pid(conn)))

    def _run(self, conn: socket.socket, fields: list[bytes], same_powers: bool) -> None:
        if len(fields) < 7:
            return
        key, prog, cwd, umask, out_spec, err_spec, argc = fields[:7]
        count = int(argc) if argc.isdigit() else -1
        if not 0 <= count <= len(fields) - 7:
            return
        decode = os.fsdecode
        args = [decode(a) for a in fields[7:7 + count]]
        environ = dict(decode(pair).partition("=")[::2] for pair in fields[7 + count:])
        cwd_text = decode(cwd)
        if key.decode(errors="replace") != self.key or not umask.isdigit() or int(umask) > 0o777 \
                or not same_powers or not wire.forwardable(args, environ, cwd_text):
            conn.sendall(b"N")
            return
        conn.sendall(b"R")
        message, fds, _, _ = socket.recv_fds(conn, 1, 2)
        if message != b"G" or len(fds) != 2 or not (_spec(out_spec) and _spec(err_spec)):
            for fd in fds:
                os.close(fd)
            return
        self.served += 1
        _Request(conn, fds, _spec(out_spec), _spec(err_spec), self.mark).run(args, decode(prog), cwd_text,
                                                                              int(umask), environ)


def _spec(spec: bytes) -> tuple[str, str, bool, bool] | None:
    """How the caller's interpreter made a standard stream: encoding, errors, line buffering,
    write-through; None for a malformed one."""
    try:
        encoding, errors, line, through = spec.decode().split("\0")
        codecs.lookup(encoding)
        codecs.lookup_error(errors)
    except (ValueError, LookupError):
        return None
    return encoding, errors, bool(line), bool(through)


def _descriptors() -> int:
    """How many descriptors this process has open (0 where /proc cannot say)."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return 0


class _Told(io.FileIO):
    """The caller's stdout or stderr: its first write tells the caller that something was printed
    (a resident that dies after it must not have the command run again)."""

    def __init__(self, fd: int, tell: Callable[[], None]) -> None:
        super().__init__(fd, "w", closefd=True)
        self._tell = tell

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self._tell()
        return super().write(data)


class _Request:
    """One command run for a caller: its streams, and Ctrl-C passed on while it runs.

    Its watcher (Ctrl-C, the caller gone, busy after BUSY_SECONDS) is a bare thread the command
    never waits for: not started by ``threading`` (which waits until the new thread runs) nor
    joined (which waits until it wakes to end), both a hand-over to a thread the system may not
    run at once on a loaded machine. It watches a copy of the connection's descriptor, closed by
    itself, so that the number is never another connection's when it reads; once the command is
    over (``running``, under the lock) it neither interrupts nor marks anything."""

    def __init__(self, conn: socket.socket, fds: list[int], out_spec: tuple[str, str, bool, bool],
                 err_spec: tuple[str, str, bool, bool], mark: Callable[[bool], None]) -> None:
        self.conn = conn
        self.told = False
        self.running = True
        self.mark, self.marked = mark, False
        self.lock = threading.Lock()
        self.out = self._stream(fds[0], out_spec, "<stdout>")
        self.err = self._stream(fds[1], err_spec, "<stderr>")

    def _tell(self) -> None:
        if not self.told:
            self.told = True
            try:
                self.conn.sendall(b"P")
            except OSError:
                pass

    def _stream(self, fd: int, spec: tuple[str, str, bool, bool], name: str) -> io.TextIOWrapper:
        """A text stream on ``fd`` made as the interpreter makes its standard streams."""
        encoding, errors, line, through = spec
        raw = _Told(fd, self._tell)
        raw.name = name
        size = os.fstat(fd).st_blksize
        text = io.TextIOWrapper(io.BufferedWriter(raw, size if size > 1 else io.DEFAULT_BUFFER_SIZE),
                                encoding=encoding, errors=errors, newline="\n", line_buffering=line,
                                write_through=through)
        text.mode = "w"
        return text

    def _watch(self, fd: int, main_thread: int) -> None:
        """Ctrl-C at the caller (it sends ``I``) or the caller gone: the command is interrupted,
        as the caller's own process would be. Still running after BUSY_SECONDS: marked busy."""
        try:
            if not select.select([fd], [], [], wire.BUSY_SECONDS)[0]:
                with self.lock:
                    if self.running:
                        self.marked = True
                        self.mark(True)
            os.read(fd, 1)
        except OSError:
            pass
        finally:
            os.close(fd)
        with self.lock:
            if self.running:
                signal.pthread_kill(main_thread, signal.SIGINT)

    def run(self, args: list[str], prog: str, cwd: str, umask: int, environ: dict[str, str]) -> None:
        """Run the command and send the caller its exit code once its streams are closed and its
        folder left (then put this process's umask and environment back, which nobody else sees);
        nothing when it could not be set up (nothing printed: the caller runs it itself)."""
        saved = (dict(os.environ), sys.stdout, sys.stderr, sys.stdin)
        stdin = open(os.devnull, encoding="utf-8")
        self.conn.settimeout(None)
        old_mask = os.umask(umask)
        code: int | None = None
        try:
            try:
                os.chdir(cwd)
            except OSError:
                return
            _set_environ(environ)
            sys.stdout, sys.stderr, sys.stdin = self.out, self.err, stdin
            watched = os.dup(self.conn.fileno())
            try:
                _thread.start_new_thread(self._watch, (watched, threading.main_thread().ident))
            except BaseException:                # no thread to be had: nothing printed, the caller runs it
                os.close(watched)
                raise
            try:
                code = _command(args, prog)
            finally:
                with self.lock:
                    self.running = False
                    if self.marked:
                        self.mark(False)
            code = _exit_flush(code)
        except KeyboardInterrupt:                # Ctrl-C landed outside the command: it is over anyway
            code = 130
        finally:
            sys.stdout, sys.stderr, sys.stdin = saved[1:]
            for stream in (self.out, self.err, stdin):
                try:
                    stream.close()
                except (OSError, ValueError):   # a failed last flush: the descriptor is closed all the same
                    stream.buffer.raw.close()
            try:
                os.chdir("/")                    # first: the caller may remove or unmount its folder once told
                if code is not None:             # the caller may go: its streams and folder are no longer held here
                    self.conn.sendall(b"X" + code.to_bytes(4, "big", signed=True))
            finally:
                os.umask(old_mask)               # seen by nobody outside: after
                _set_environ(saved[0])
                try:
                    self.conn.shutdown(socket.SHUT_RD)     # ends the watcher if the caller has not
                except OSError:
                    pass


def _set_environ(environ: dict[str, str]) -> None:
    """``os.environ`` made ``environ``, changing only what differs (each change is a ``putenv``)."""
    for name in [name for name in os.environ if name not in environ]:
        del os.environ[name]
    for name, value in environ.items():
        if os.environ.get(name) != value:
            os.environ[name] = value


def _command(args: list[str], prog: str) -> int:
    """``ygoreplay ARGS`` as its process runs it: the exit code ``sys.exit`` would give. A
    ``show DUEL --at N`` of a stored duel runs as the launcher runs it, without click when click
    would print the very same bytes (``boards.without_click``: click's parsing was a quarter of
    the command's time here, issue 25)."""
    try:
        if args[:1] == ["show"]:
            from .boards import without_click
            without_click(args)                  # returns, having done nothing, when click is needed
        main.main(args=args, prog_name=prog)
    except SystemExit as exc:
        if exc.code is None:
            return 0
        if isinstance(exc.code, int):
            return exc.code
        print(exc.code, file=sys.stderr)         # as the interpreter does with sys.exit("text")
        return 1
    except Exception:                            # a bug past the command's own handler
        traceback.print_exc()
        return 1
    return 0


def _exit_flush(code: int) -> int:
    """The interpreter's last flush of stdout and stderr at exit: a failure to write stdout is
    reported as it reports it ("Exception ignored in: ...") and makes the exit code 120."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None and not stream.closed:
                stream.flush()
        except Exception as exc:
            if stream is sys.stdout:
                try:
                    sys.stderr.write(f"Exception ignored in: {stream!r}\n"
                                     + "".join(traceback.format_exception_only(type(exc), exc)))
                    sys.stderr.flush()
                except Exception:
                    pass
            code = 120
    return code
