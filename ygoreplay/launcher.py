"""The ``ygoreplay`` command's entry point (and ``python -m ygoreplay``'s): a resident helper of
this code answers the command when one runs and takes it (``resident.forward``); otherwise the
command runs here, as it always has. Imports nothing heavy before it knows which: the standard
library's ``os`` and ``sys`` and ``resident``'s wire, no click."""
from __future__ import annotations

import os
import sys


def main() -> None:
    """The console script: the program's name is the script's, as click would find it."""
    run(sys.argv[1:], os.path.basename(sys.argv[0]), detect=True)


def run(args: list[str], prog_name: str, detect: bool = False) -> None:
    """``ygoreplay ARGS``: by the resident, else here (``detect``: click names the program itself)."""
    from .resident import forward
    code = forward(args, prog_name)
    if code is not None:
        _leave(code)
    from .cli import main as command
    if detect:
        command(args=args)
    else:
        command(args=args, prog_name=prog_name)


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
