"""A duel file named on the command line, read without click: its format, its events and the
cards they name (``check FILE`` runs on these alone: ``checks``)."""
from __future__ import annotations

import sys
from pathlib import Path

from ..errors import InputError
from ..i18n import say, t

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..card_sources import CardLookup
    from ..cards import CardDB
    from ..formats import Format


def card_db(cards: tuple[str, ...] = ()) -> CardLookup:
    from ..card_sources import card_lookup
    return card_lookup(cards)


def load_events(path: str, cards: tuple[str, ...]) -> tuple[list, CardDB]:
    """Events and card facts of a JSON Lines file (``-`` is standard input), with the effect facts
    the databases hold: what a check judges with, and what a record or an append stores with the
    duel (the store keeps them, so its verdict does not change when the scripts do)."""
    from ..card_sources import facts_and_effects_of
    from ..jsonl import parse_lines, read_events
    lookup = card_db(cards)
    passcode = lookup.passcode
    if path == "-":
        events = list(parse_lines(sys.stdin, "<stdin>", passcode))
    else:
        _only_events(path)
        try:
            events = read_events(path, passcode)
        except OSError as exc:
            raise InputError(say("{path}: cannot read ({value})", path=path, value=exc.strerror or exc)) from None
    if not events:
        raise InputError(say("{path}: no events (the file is empty or holds only comments)", path=path))
    return events, facts_and_effects_of(events, lookup)


def _only_events(path: str) -> None:
    """A file of another format (a ``.ygr``, an EDOPro replay, a match) is named as what it is,
    with the command that takes it, not reported as bad JSON."""
    from ..formats import JSONL, FormatError, find_format
    try:
        found = find_format(path)
    except FormatError:
        return                              # not a file the registry knows: the JSON reader says why
    if found is not JSONL:
        hint = t(" ({verb} it: ygoreplay {verb} {path})", verb=found.stored_by, path=path) if found.stored_by else ""
        raise InputError(t("{path}: {what}, not JSON Lines events", path=path, what=t(found.title)) + hint)


def file_format(spec: str) -> Format | None:
    """The registered format of a file named on the command line (``formats.find_format``: by its
    content, else its name); None when ``spec`` is no file (a stored duel's id, ``-``)."""
    from ..formats import find_format
    return find_format(spec) if Path(spec).is_file() else None
