"""``show DUEL --at N`` of a stored duel: the board from the store's nearest snapshot, with or
without click. The ``show`` command (``duels.py``) declares the command and runs ``show_stored``
for a stored duel; the launcher runs ``show DUEL [--at N] [--store URL]`` by ``without_click`` when
click would print the very same bytes: then the command imports no click (issue 25: click and the
command line's modules were a quarter of a fresh ``show --at N`` process's CPU)."""
from __future__ import annotations

import os
import sys

from .. import i18n
from . import dataclasses_without_inspect, kept_aside
from .output import answered, echo, escape_streams, plain_stream, terminal_width


def show_stored(duel: str, at: int | None, store_url: str | None) -> None:
    """Print the board after event ``at`` (the last when None) of the stored duel ``duel``, as the
    judge sees it, from the store opened read-only (``source.stored_board``)."""
    with kept_aside():                  # what drawing a stored board imports lives as long as the process
        from ..render import render
        from ..source import stored_board
        from ..store.reading import Store
    with Store(store_url, readonly=True, create=False) as store:
        index, event, state = stored_board(store, duel, at)
    # the heading in the reader's language, as the click path's ``show`` words it (duels.py)
    echo(render(state, i18n.t("after event #{index} ({kind})", index=index, kind=event.kind),
                width=terminal_width()), nl=False)


def without_click(args: list[str]) -> None:
    """Run ``show DUEL``, with ``--at N`` and ``--store URL`` each at most once in any order, here
    when click would run ``show_stored`` with them and print what this prints: ``DUEL`` names no
    file or folder (a file is opened as a file), ``N`` is written in plain digits (click reads
    ``int``), no value starts with ``-``, no shell completion is asked for and both streams are
    plain (``output.plain_stream``). The language is the environment's, as click's group takes
    it without ``--lang``; errors are answered as the group answers them (``output.answered``).
    Returns, having done nothing, for anything else: click runs the command."""
    found = _parsed(args[1:])
    if found is None or any(key.startswith("_") and key.endswith("_COMPLETE") for key in os.environ):
        return
    duel, at, store_url = found
    if os.path.lexists(duel) or not (plain_stream(sys.stdout) and plain_stream(sys.stderr)):
        return
    escape_streams()                    # as click's group does first
    with i18n.using(i18n.from_environment()), answered():
        dataclasses_without_inspect()
        show_stored(duel, at, store_url)
    sys.exit(0)                         # as click ends a command that returned


def _parsed(rest: list[str]) -> tuple[str, int | None, str | None] | None:
    """(DUEL, N, URL) of ``DUEL [--at N] [--store URL]`` in any order, or None for any other shape."""
    duel: str | None = None
    values: dict[str, str] = {}
    words = iter(rest)
    for word in words:
        if word in ("--at", "--store"):
            value = next(words, None)
            if word in values or not value or value.startswith("-"):
                return None
            values[word] = value
        elif word.startswith("-") or not word or duel is not None:
            return None
        else:
            duel = word
    at = values.get("--at")
    if duel is None or (at is not None and not (at.isascii() and at.isdigit())):
        return None
    return duel, None if at is None else int(at), values.get("--store")
