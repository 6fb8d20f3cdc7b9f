"""Where ygoreplay keeps its files, and how it writes one: whole or not at all.

A file is written to a temporary name in the same folder, flushed to disk and renamed over the
target, so a full disk, a crash or Ctrl-C leaves either the old file or the new one, never a
truncated one (rename is atomic on POSIX and on Windows within one volume).
"""
from __future__ import annotations

import errno
import functools
import os
import stat
from typing import TYPE_CHECKING, BinaryIO, Callable

from .errors import InputError

if TYPE_CHECKING:                 # imported where a path is made: pathlib and urllib.parse (which it
    from pathlib import Path      # imports) were 6% of a fresh ``show DUEL --at N`` (issue 25)

_PIECE = 1 << 20               # what ``read_limited`` reads at a time past a file's declared size


def path_text(*parts: str) -> str:
    """``str(pathlib.PurePosixPath(*parts))`` without pathlib: the parts joined, a part from the
    root on starting anew, empty and ``.`` names dropped, one leading ``/`` (two kept as two, as
    POSIX allows), ``.`` for nothing. What a read prints and keys by is then the very text it was.
    (Windows paths are pathlib's.)"""
    if os.sep != "/":
        from pathlib import Path
        return str(Path(*parts))
    root, names = "", []
    for part in reversed(parts):
        named = part.lstrip("/")
        names[:0] = [name for name in named.split("/") if name and name != "."]
        if named != part:
            root = "//" if len(part) - len(named) == 2 else "/"
            break
    return root + "/".join(names) or "."


def expand_user(text: str) -> str:
    """``str(pathlib.Path(text).expanduser())`` of a ``path_text``: ``~`` or ``~user`` first
    replaced by that home folder; RuntimeError as pathlib's when it cannot be found."""
    if not text.startswith("~") or os.sep != "/":
        if os.sep != "/":
            from pathlib import Path
            return str(Path(text).expanduser())
        return text
    first, _, rest = text.partition("/")
    home = os.path.expanduser(first)
    if home.startswith("~"):
        raise RuntimeError("Could not determine home directory.")
    return path_text(home, rest)


#: The bytes a file URI keeps as they are (``urllib.parse.quote_from_bytes``'s, and ``/``).
_URI_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~/")


def file_uri(path: str) -> str:
    """``pathlib.Path(path).as_uri()`` of an absolute ``path_text`` (each other byte of its file
    system's encoding as ``%XX``), without pathlib and urllib.parse (Windows paths are pathlib's)."""
    if os.sep != "/":
        from pathlib import Path
        return Path(path).as_uri()
    if not path.startswith("/"):
        raise ValueError("relative path can't be expressed as a file URI")
    return "file://" + "".join(chr(byte) if byte in _URI_SAFE else f"%{byte:02X}" for byte in os.fsencode(path))


def data_folder() -> str:
    """The user's ygoreplay folder, ``str(data_dir())``, made without pathlib (a board's read)."""
    return _data_folder(os.environ.get("XDG_DATA_HOME") or "", os.environ.get("HOME") or "")


@functools.lru_cache(maxsize=8)
def _data_folder(xdg_data_home: str, home: str) -> str:
    """``data_folder`` for these two settings, made once: every Store that checks a signature finds
    its organiser key there, and making the path was a fortieth of showing a board (issue 25)."""
    if xdg_data_home:
        return path_text(xdg_data_home, "ygoreplay")
    return path_text(expand_user("~"), ".local", "share", "ygoreplay")


def data_dir() -> Path:
    """The user's ygoreplay folder: ``$XDG_DATA_HOME/ygoreplay`` or ``~/.local/share/ygoreplay``."""
    from pathlib import Path
    return Path(data_folder())


def version_of(path: str | os.PathLike[str]) -> tuple[int, int, int, int]:
    """What tells one content of a file from another without reading it, for a cache in a process
    that lives on (the resident helper): the modification time can be set back (``cp -p``, ``tar
    x``, ``rsync -t``), the change time, inode and size do not go back with it. OSError as ``stat``."""
    found = os.stat(path)
    return found.st_mtime_ns, found.st_ctime_ns, found.st_ino, found.st_size


def installed_path() -> Path:
    """Where the downloaded card database lives: beside the default store."""
    return data_dir() / "cards.cdb"


def mode_for(view: str) -> int:
    """The permissions of a file holding a record as ``view`` has it: the judge's (a duel's record
    in any format, a match file's decklists, the record's head in a receipt) holds every hidden
    card, so only its owner reads it, as the store and the key; a view is for sharing. Every door
    that writes one asks here (a second door that did not wrote the judge's for all to read)."""
    return 0o600 if view == "judge" else 0o644


class NotRegularFile(OSError):
    """A path that names no regular file (a folder, a pipe, a device): refused unread."""


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for reading if it is a regular file: ``NotRegularFile`` for anything else,
    found without waiting (``open`` of a FIFO waits for a writer: an import of one hung), and
    OSError as ``open``. A file that is not one is never read, so no device or pipe feeds it."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotRegularFile(errno.EINVAL, "not a regular file (a folder, a pipe or a device)", str(path))
    return os.fdopen(fd, "rb")


def open_readable(path: str | os.PathLike[str], what: str = "file",
                  error: type[InputError] = InputError) -> BinaryIO:
    """``path`` opened for reading if it is a regular file or a pipe; anything else (a device such
    as ``/dev/zero``, which never ends and declares a size of 0) is an ``error``. OSError as ``open``."""
    f = open(path, "rb")
    mode = os.fstat(f.fileno()).st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
        f.close()
        raise error(f"{path}: not a regular file; not a {what}")
    return f


def read_limited(path: str | os.PathLike[str], limit: int, what: str = "file",
                 error: type[InputError] = InputError) -> bytes:
    """The bytes of ``path``, at most ``limit`` of them: a longer file is an ``error`` saying so.

    The bound is on the bytes read, never on the size a file declares (0 for a pipe): a regular
    file or a pipe is read up to one byte past ``limit``; anything else is refused unread."""
    try:
        with open_readable(path, what, error) as f:
            # as much as a regular file holds at once (no buffer of ``limit`` bytes for a small
            # file), then in pieces: a pipe, or a file that grew since
            piece = min(limit + 1, os.fstat(f.fileno()).st_size + 1)
            chunks: list[bytes] = []
            read = 0
            while read <= limit and (chunk := f.read(min(piece, limit + 1 - read))):
                chunks.append(chunk)
                read += len(chunk)
                piece = _PIECE
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})") from None
    if read > limit:
        raise error(f"{path}: more than {limit:,} bytes; not a {what}")
    return b"".join(chunks)


def write_atomic(path: str | os.PathLike[str], data: bytes, mode: int = 0o644, *,
                 exclusive: bool = False, follow: bool = True) -> int:
    """Write ``data`` to ``path`` whole, or leave what was there untouched; returns the size.

    With ``exclusive`` an existing file is never replaced (FileExistsError): two processes creating
    the same file at once cannot overwrite each other. Without ``follow`` a symbolic link at
    ``path`` is replaced itself, never the file it names: nothing is resolved, and the rename onto
    the exact path replaces whatever entry is there when it happens (a link planted after any
    check is no window). Raises InputError naming the file (no room, no permission, a folder in
    the way). (Many files at once: ``write_pending`` and ``commit``.)
    """
    target = _target(path, follow)
    temp = _write_temp(target, data, mode, sync=True)
    try:
        if exclusive:
            os.link(temp, target)               # fails if the target exists; temp is removed below
        else:
            os.replace(temp, target)
            temp = None
        _sync_folder(target.parent)
    except FileExistsError:
        raise
    except OSError as exc:
        raise _unwritten(target, exc) from None
    finally:
        _remove(temp)
    return len(data)


def rewrite(path: str | os.PathLike[str], change: Callable[[Path], bytes], mode: int = 0o644, *,
            waiting: Callable[[], object] | None = None) -> int:
    """Replace ``path`` whole by what ``change`` makes of it, one writer at a time; the size written.

    Every read-modify-write of a file (a match file's appends) goes through here: ``write_atomic``
    alone leaves whole files, but two writers that each read the old file and rename their own
    over it lose the first's change, both saying ok. The lock is an exclusive ``flock`` on
    ``.NAME.lock`` beside the file (not on the file: the rename replaces it, and a lock on the old
    inode would hold no one back), held from before the read to after the rename. ``change`` is
    called with the file's path once the lock is held and reads the file then (what was read
    before it may be stale: a caller that judged its change on an earlier read checks that read
    is still the file's, else raises ``ConflictError``); whatever it raises, nothing is written.
    ``waiting`` is called once when another writer holds the lock, before waiting for it.
    InputError as ``write_atomic`` (also where no lock is kept: unlocked, an append could be lost)."""
    target = _target(path)
    lock, fd = target.with_name(f".{target.name}.lock"), None
    try:
        try:
            # never through a link planted in its place (a folder others write to): the open would
            # make, as this user, an empty file wherever the link points
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0),
                         0o600)
            _lock(fd, waiting)
        except OSError as exc:
            raise _unwritten(target, exc) from None
        return write_atomic(target, change(target), mode)
    finally:
        if fd is not None:
            os.close(fd)                    # closing the lock file's only descriptor unlocks it


def _lock(fd: int, waiting: Callable[[], object] | None) -> None:
    """Take the exclusive lock of the open lock file ``fd``: at once if no one holds it, else
    after ``waiting`` is told, for as long as its holder takes (a writer holds it for one write).
    OSError where no lock is kept (a network file system without them; on Windows, after ten
    seconds of waiting)."""
    try:
        from fcntl import LOCK_EX, LOCK_NB, flock
    except ImportError:                     # Windows: the lock file's first byte
        from msvcrt import LK_LOCK, LK_NBLCK, locking
        try:
            locking(fd, LK_NBLCK, 1)
        except OSError:
            if waiting is not None:
                waiting()
            locking(fd, LK_LOCK, 1)
        return
    try:
        flock(fd, LOCK_EX | LOCK_NB)
    except BlockingIOError:
        if waiting is not None:
            waiting()
        flock(fd, LOCK_EX)


def write_pending(path: str | os.PathLike[str], data: bytes, mode: int = 0o644) -> tuple[str, Path]:
    """``write_atomic`` for one file of a batch: ``data`` written beside ``path`` under a temporary
    name, neither synced nor renamed yet; ``commit`` does both for the whole batch at once (one
    sync instead of two a file: those were most of writing a folder of imports). Returns the
    temporary file and the target; InputError as ``write_atomic``, and for a symbolic link: a
    batch writes names it chose in a folder others may write to, where a planted link would have
    it overwrite the file the link points at."""
    from pathlib import Path
    if Path(path).is_symlink():
        raise InputError(f"{path}: a symbolic link; a file of a batch is never written through one "
                         "(nothing was written)")
    target = _target(path)
    return _write_temp(target, data, mode, sync=False), target


def commit(pending: list[tuple[str, Path]]) -> dict[Path, str]:
    """Give files written by ``write_pending`` their names, each whole or not at all: first their
    contents are made durable together (one ``syncfs`` of their file system where Linux has it,
    else each file's fsync), then each is renamed, then each folder synced once. Returns why a
    target could not be written, if any (its temporary file removed)."""
    failed: dict[Path, str] = {}
    if not pending:
        return failed
    if len({target.parent for _, target in pending}) > 1 or not _sync_file_system(pending[0][0]):
        for temp, target in pending:
            try:
                fd = os.open(temp, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except OSError as exc:
                failed[target] = f"cannot write ({exc.strerror or exc})"
    for temp, target in pending:
        if target not in failed:
            try:
                os.replace(temp, target)
                continue
            except OSError as exc:
                failed[target] = f"cannot write ({exc.strerror or exc})"
        _remove(temp)
    for folder in dict.fromkeys(target.parent for _, target in pending):
        _sync_folder(folder)
    return failed


def _sync_file_system(path: str) -> bool:
    """Flush the file system holding ``path`` in one call (Linux ``syncfs``); False where there is none."""
    try:
        import ctypes
        syncfs = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        return syncfs(fd) == 0
    finally:
        os.close(fd)


#: The first bytes of what no output of ours ever is and no output may replace: an SQLite
#: database (a store, a witness, a ``cards.cdb``), its write-ahead log, a private key.
_KEPT = ((b"SQLite format 3\0", "an SQLite database (a store, a witness or a cards.cdb)"),
         (b"\x37\x7f\x06\x82", "an SQLite write-ahead log"), (b"\x37\x7f\x06\x83", "an SQLite write-ahead log"),
         (b"-----BEGIN PRIVATE KEY-----", "a private key"),
         (b"-----BEGIN OPENSSH PRIVATE KEY-----", "a private key"))


def _target(path: str | os.PathLike[str], follow: bool = True) -> Path:
    """Where a write goes: a symbolic link's target (the link is kept; without ``follow`` the link
    itself, replaced), never a folder, and never over a file that holds what ygoreplay keeps
    (``_KEPT``): ``export DUEL -o duels.sqlite`` replaced the whole store with one duel's file,
    ``-o organiser.key`` the key."""
    from pathlib import Path
    target = Path(path)
    if target.is_symlink():
        if not follow:
            return target                    # the link is replaced: what it names is never the target
        target = _followed(target)
    if target.exists() and not target.is_file():
        raise InputError(f"{target}: not a regular file; nothing was written")
    try:
        with open(target, "rb") as f:
            head = f.read(64)
    except OSError:                          # none there yet (or unreadable: the write says why)
        head = b""
    for magic, what in _KEPT:
        if head.startswith(magic):
            raise InputError(f"{target}: holds {what}, which an output never replaces; "
                             "nothing was written (name another file)")
    return target


#: The links one output's path is followed through at most (the kernel's own bound: ELOOP).
_MAX_LINKS = 40
#: Marks a message for the catalogues as ``i18n.N_`` does (this layer sits beside the catalogue,
#: not above it): the command line says it in the reader's language as it prints it (``i18n.said``).
N_ = str


def _followed(link: Path) -> Path:
    """What the symbolic link at an output's path names, link after link, each followed only as
    Linux's ``fs.protected_symlinks`` lets the kernel follow one: in a folder anyone may write to
    and that keeps each user's files their own (sticky, as /tmp), only a link of ours or of the
    folder's owner. The write resolved the link itself, where the kernel never looks: a link
    another user planted at the name a judge exports to (``export -o /tmp/t4.ygr``) named a file
    of the judge's elsewhere, and the export replaced it, even where the system forbids it."""
    if os.name != "posix":
        return link.resolve()
    from pathlib import Path
    target = link
    for _ in range(_MAX_LINKS):
        if not target.is_symlink():
            return target
        found, folder = os.lstat(target), os.stat(target.parent)
        shared = folder.st_mode & (stat.S_ISVTX | stat.S_IWOTH) == stat.S_ISVTX | stat.S_IWOTH
        if shared and found.st_uid not in (os.geteuid(), folder.st_uid):
            raise InputError(N_("{path}: a symbolic link another user made in a folder everyone writes to "
                                "({folder}) is not followed; nothing was written").format(
                path=link, folder=target.parent))
        target = Path(os.path.join(target.parent, os.readlink(target)))
    raise InputError(N_("{path}: too many symbolic links in a row; nothing was written").format(path=link))


def _write_temp(target: Path, data: bytes, mode: int, *, sync: bool) -> str:
    """``data`` under a temporary name in ``target``'s folder (synced to disk with ``sync``)."""
    import tempfile                         # here: most commands write no file
    fd, temp = None, None
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
        os.fchmod(fd, mode)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        if sync:
            os.fsync(fd)
        os.close(fd)
        fd = None
        done, temp = temp, None
        return done
    except OSError as exc:
        raise _unwritten(target, exc) from None
    finally:
        if fd is not None:
            os.close(fd)
        _remove(temp)


def _unwritten(target: Path, exc: OSError) -> InputError:
    """Why ``target`` was not written (no room, no permission, no lock), nothing written."""
    return InputError(f"{target}: cannot write ({exc.strerror or exc}); nothing was written")


def _remove(temp: str | None) -> None:
    if temp is not None:
        try:
            os.unlink(temp)
        except OSError:
            pass


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX); harmless where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
