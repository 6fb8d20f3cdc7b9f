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
import sys
from contextlib import contextmanager

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator


@contextmanager
def kept_aside() -> Iterator[None]:
    """Modules imported inside (a command's: click's and ours, their classes and functions, some
    thousands of objects each) live as long as the process: the collector would walk them again
    and again while a command starts (an eighth of ``ygoreplay --help``'s time through click, a
    twelfth of ``check``'s). It is paused while they are imported, and what they made is put
    aside (``gc.freeze``), as the resident helper puts aside what it preloads; what a command
    makes afterwards is collected as always. Nothing is put aside when nothing was imported (a
    resident answering its thousandth command: what its commands left is collected)."""
    collecting, loaded = gc.isenabled(), len(sys.modules)
    gc.disable()
    try:
        yield
    finally:
        if len(sys.modules) != loaded:
            gc.freeze()
        if collecting:
            gc.enable()


def dataclasses_without_inspect() -> None:
    """Import ``dataclasses`` without the ``inspect`` it imports at once (with ``ast``, ``dis`` and
    ``tokenize``: a sixth of ``check``'s start-up, a ninth of a fresh ``show DUEL --at N``'s) and
    uses for one thing, the docstring of a class without one (``lazy_dataclass`` defers those, so
    the commands without click never ask). It gets a stand-in whose every attribute read is the
    real module's, imported then, in ``sys.modules`` only while ``dataclasses`` is imported:
    ``import inspect`` anywhere else gets the module. Run before a click-less command imports
    anything that imports ``dataclasses``."""
    if "dataclasses" in sys.modules or "inspect" in sys.modules:
        return
    from importlib import import_module
    from types import ModuleType

    class Later(ModuleType):
        def __getattr__(self, name: str) -> object:
            return getattr(import_module(self.__name__), name)

    later = sys.modules["inspect"] = Later("inspect")
    try:
        import dataclasses  # noqa: F401
    finally:
        if sys.modules.get("inspect") is later:
            del sys.modules["inspect"]


def __getattr__(name: str):
    """``main`` (the group), imported when first asked for: the launcher reads ``index`` (the help
    pages written ahead) without importing click."""
    if name != "main":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    with kept_aside():
        from .common import main
    globals()["main"] = main
    return main


__all__ = ["main"]
