"""The ``ygoreplay`` command's entry point (and ``python -m ygoreplay``'s): the group's help page
is printed from the copy ``cli/index.py`` keeps when click would write that very text; a resident
helper of this code answers the command when one runs and takes it (``resident.forward``), and a
read-only command that found none starts one for the commands after it (``resident.autostart``);
``check FILE`` of a JSON Lines file and ``show DUEL --at N`` of a stored duel are run without
click when click would print the very same bytes (``cli/checks.py``, ``cli/boards.py``);
otherwise the command runs here through click, as it always has.
Imports nothing heavy before it knows which: the standard library's ``os`` and ``sys``,
``i18n``'s choice of language, the index, and ``resident``'s wire, no click."""
from __future__ import annotations

import os
import sys

#: What asks for the group's help page: ``ygoreplay --help`` (``-h``), and a bare ``ygoreplay``
#: (click then writes the page to stderr and exits 2, as a usage error).
HELP_OPTIONS = ("--help", "-h")
PROG_NAME = "ygoreplay"


def main() -> None:
    """The console script: the program's name is the script's, as click would find it."""
    run(sys.argv[1:], os.path.basename(sys.argv[0]), detect=True)


def run(args: list[str], prog_name: str, detect: bool = False) -> None:
    """``ygoreplay ARGS``: by the resident, else here (``detect``: click names the program itself)."""
    named = _named_as_click_names(prog_name, detect)
    if named:
        _help_page(args)
    from .resident import autostart, forward, forwardable
    code = forward(args, prog_name)
    if code is not None:
        _leave(code)
    try:
        reads_only = forwardable(args, dict(os.environ), os.getcwd())
    except (OSError, ValueError):
        reads_only = False
    if reads_only:
        autostart()                         # a resident for the commands after this one (issue 25)
    try:
        if reads_only and named and args[:1] == ["check"]:
            from .cli.checks import without_click
            without_click(args)             # ``check FILE`` as click would run it; returns if not
        if reads_only and args[:1] == ["show"]:
            from .cli.boards import without_click as show_without_click
            show_without_click(args)        # ``show DUEL --at N`` of a stored duel as click would; returns if not
        from .cli import main as command
        if detect:
            command(args=args)
        else:
            command(args=args, prog_name=prog_name)
    except SystemExit as done:
        # A command a resident could have answered (it only reads, writes nothing but our stdout
        # and stderr, and registers no exit callback) ends as an answered one does: without the
        # teardown that frees every module and object one by one (4 ms of ``check``'s CPU).
        if reads_only and (done.code is None or type(done.code) is int):
            _leave(done.code or 0)
        raise


def help_language(args: list[str]) -> str | None:
    """The language ``ygoreplay ARGS`` writes the group's help page in, when that is all it
    does and click takes nothing else from the arguments: none, ``--help``, or ``--lang L
    --help`` (``--lang=L``) with a language we have, chosen as the command line chooses it (the
    environment's, else ``--lang``'s when it comes first). None for anything else."""
    if args and args[-1] not in HELP_OPTIONS:
        return None                      # first: a command the resident answers imports no i18n
    from . import i18n                   # (contextlib, contextvars...) before it is forwarded (issue 25)
    if args == [] or len(args) == 1:
        return i18n.from_environment()
    if len(args) == 3 and args[0] == "--lang":
        tag = args[1]
    elif len(args) == 2 and args[0].startswith("--lang="):
        tag = args[0].removeprefix("--lang=")
    else:
        return None
    return i18n.resolve(tag) if not tag.startswith("-") else None


def help_columns() -> int:
    """The columns click's help formatter reads: ``shutil.get_terminal_size``'s (``$COLUMNS``,
    else stdout's terminal, else 80), without importing ``shutil`` (its compression modules)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
        except (AttributeError, ValueError, OSError):
            columns = 80
    return columns


def _named_as_click_names(prog_name: str, detect: bool) -> bool:
    """Whether click would name the program ``ygoreplay`` (it names a script by its file:
    ``prog_name``; ``python -m`` otherwise) and no shell completion is asked for: then the
    launcher may answer as click would (the help page, ``check FILE``)."""
    if detect and getattr(sys.modules.get("__main__"), "__package__", None) not in (None, ""):
        return False
    return prog_name == PROG_NAME and not os.environ.get(f"_{PROG_NAME.upper()}_COMPLETE")


def _help_page(args: list[str]) -> None:
    """Print the group's help page and exit as click would, when the index holds the very text
    click would write (the program named as click names it): a known language, as wide a page,
    a UTF-8 stream. Else return (click writes it)."""
    language = help_language(args)
    stream = sys.stdout if args else sys.stderr
    if language is None or stream is None or (getattr(stream, "encoding", None) or "").lower() not in ("utf-8", "utf8"):
        return
    from .cli.index import HELP, HELP_COLUMNS
    if language not in HELP or help_columns() < HELP_COLUMNS:
        return
    try:
        stream.write(HELP[language])
        stream.flush()
    except BrokenPipeError:                  # the reader left: click exits 1, saying nothing
        os._exit(1)
    sys.exit(0 if args else 2)


def _leave(code: int) -> None:
    """End with the resident's exit code. The command's output went straight from the resident
    into our stdout and stderr and nothing of ours is buffered, so the interpreter's teardown
    (freeing every module, a few ms: part of every answered command's wall time) is skipped, as
    ``os._exit`` does; what is left in our own streams is flushed first, as exit would."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):   # none, or closed: nothing to write there
            pass
    os._exit(code)
