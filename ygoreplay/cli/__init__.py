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

from .common import main

__all__ = ["main"]
