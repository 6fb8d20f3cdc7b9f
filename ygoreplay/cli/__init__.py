"""The ``ygoreplay`` command: a thin face over the application layer (``application.py``).

``common`` holds the group ``main``, the shared options, output and exit codes; each area module
registers its commands on ``main``: ``duels`` (check, rules, show, log, play, audit), ``records``
(export, import, record, append, note, release, list, branch, tree, diff, rollback, verify),
``service`` (serve, demo), ``keys`` (key, seal), ``decks`` (deck), ``cards`` (cards), ``match``
(match, and the generic commands on a match file), ``rounds`` (round, lp-sheet) and
``search`` (search) and ``resident`` (resident start|stop|status: the helper ``launcher.py``
hands the read-only commands to). Heavy
imports (the service, rich, Textual) stay inside the commands that need them, so that
``ygoreplay --help`` starts fast.
"""
from __future__ import annotations

from . import cards, decks, duels, keys, match, records, resident, rounds, search, service  # noqa: F401  (they register)
from .common import main

__all__ = ["main"]
