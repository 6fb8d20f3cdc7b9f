"""What every command prints and how it ends, without click: the exit codes, ``echo``, and the
one place errors become exit codes (``answered``). ``common`` builds the click group on these;
``checks`` runs ``check FILE`` with them alone when click would print the very same bytes (the
launcher says when), so that ``check`` does not pay for click's import (issue 25).

Exit codes: 0 success, 1 a rule was broken or a record failed verification, 2 the input could not
be read or an output written (or a bad argument), 3 another writer got to the duel first, 4 an
internal error (a bug: please report it), 130 interrupted.
"""
from __future__ import annotations

import io
import os
import sys
from contextlib import contextmanager

from ..errors import ConflictError, YgoreplayError
from ..i18n import said, t
from ..text import printable, terminal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator

EXIT_ILLEGAL, EXIT_UNREADABLE, EXIT_CONFLICT, EXIT_INTERNAL, EXIT_INTERRUPTED = 1, 2, 3, 4, 130


def plain_stream(stream: object) -> bool:
    """A stream ``click.echo`` writes to as it is, with no more than ``write`` and ``flush``: the
    interpreter's own text stream on a POSIX system, UTF-8 (click re-wraps an ASCII one), its
    errors handler set (``escape_streams``). (It would strip ANSI sequences off a stream that is
    no terminal: ``terminal`` leaves none, ESC is escaped.)"""
    return (type(stream) is io.TextIOWrapper and sys.platform != "win32" and stream.errors is not None
            and (stream.encoding or "").lower() in ("utf-8", "utf8"))


def echo(text: str = "", err: bool = False, nl: bool = True) -> None:
    """Every line the command line prints: control characters escaped, so that no file can
    rewrite a judge's terminal. Written as ``click.echo`` writes it: straight to a plain stream
    (then flushed), through click to any other."""
    stream = sys.stderr if err else sys.stdout
    if not plain_stream(stream):
        import click
        click.echo(terminal(text), err=err, nl=nl)
        return
    out = terminal(text) + ("\n" if nl else "")
    if out:
        stream.write(out)
    stream.flush()


def terminal_width() -> int:
    """The terminal's width when stdout is one (the board uses it), else the 80 columns a file or
    a pipe gets."""
    if sys.stdout.isatty():
        import shutil                       # here: its compression modules are 2 ms of start-up
        return shutil.get_terminal_size((80, 24)).columns
    return 80


def escape_streams() -> None:
    """A lone surrogate (an undecodable byte of a file name) is printed escaped, never ends in a
    traceback."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


def silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:                                   # (closed after: a resident runs many commands in one process)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    finally:
        os.close(devnull)


@contextmanager
def answered(passing: tuple[type[BaseException], ...] = ()) -> Iterator[None]:
    """A command's errors as its exit code and one line on stderr; ``passing``: what goes on as
    raised (click's own exceptions, which click reports)."""
    try:
        try:
            yield
        finally:
            sys.stdout.flush()                     # a full disk or a closed pipe shows here
    except passing:
        raise
    except YgoreplayError as exc:
        from ..rules import RuleViolation
        label = t("conflict") if isinstance(exc, ConflictError) else t("error")
        # One line, whatever it names: a path or a name with a line break (or an escape) shows it
        # as ``\n`` (README), never as a line of its own ("error: x\nx.ygr: ok ..." forged one).
        echo(printable(f"#{exc.index} {exc.rule} {said(exc.message)}" if isinstance(exc, RuleViolation)
                       else f"{label}: {said(str(exc))}"), err=True)
        sys.exit(exc.exit_code)
    except BrokenPipeError:
        # The reader stopped early (``ygoreplay log DUEL | head``): not an error, exit 0.
        silence_stdout()
        sys.exit(0)
    except KeyboardInterrupt:
        echo(t("interrupted"), err=True)
        sys.exit(EXIT_INTERRUPTED)
    except OSError as exc:
        if exc.filename is not None:
            # a path the command was given or writes (a name too long, a device that fails to
            # read): named, never told as the output, which was fine ("cannot write the output
            # (File name too long)" for ``check`` of a file that is not there)
            echo(printable(t("error: {path}: {why}", path=os.fsdecode(exc.filename) if isinstance(
                exc.filename, (str, bytes)) else str(exc.filename), why=exc.strerror or exc)), err=True)
            sys.exit(EXIT_UNREADABLE)
        silence_stdout()
        echo(t("error: cannot write the output ({why})", why=exc.strerror or exc), err=True)
        sys.exit(EXIT_UNREADABLE)
    except Exception as exc:                       # a bug: say so, and how to see more
        if os.environ.get("YGOREPLAY_DEBUG"):
            raise
        echo(t("internal error: {error} (this is a bug in ygoreplay; set YGOREPLAY_DEBUG=1 to see where)",
               error=f"{type(exc).__name__}: {printable(str(exc))[:300]}"), err=True)
        sys.exit(EXIT_INTERNAL)
