"""The ``ygoreplay`` command: a thin face over the application layer (``application.py``).

``common`` holds the group ``main``, the shared options, output and exit codes; each area module
registers its commands on ``main``: ``duels`` (check, rules, show, log, play, audit), ``records``
(export, import, record, append, note, release, list, branch, tree, diff, rollback, verify),
``service`` (serve, demo), ``keys`` (key, seal), ``decks`` (deck), ``cards`` (cards), ``match``
(match, and the generic commands on a match file), ``rounds`` (round, lp-sheet),
``search`` (search) and ``resident`` (resident start|stop|status: the helper ``launcher.py``
hands the read-only commands to). A command's module is imported when it runs (``index.py``
says which module declares which command, and lists them for ``ygoreplay --help``: after adding
a command, ``python -m ygoreplay.cli.reindex``), and heavy imports (the service, rich, Textual)
stay inside the commands that need them, so that no command pays for the others.
"""
from __future__ import annotations

import gc

# What these imports make (click's and our modules, classes, functions: ~19,000 objects) lives as
# long as the process: the collector would walk it again and again while a command starts (an
# eighth of ``ygoreplay --help``'s time, a twelfth of ``check``'s). It is put aside, as the
# resident helper puts aside what it preloads; what a command makes later is collected as always.
_collecting = gc.isenabled()
gc.disable()
try:
    from .common import main
finally:
    gc.freeze()
    if _collecting:
        gc.enable()

__all__ = ["main"]
