"""What the command line's faces share (``cli`` and ``match.cli``): the exit codes, output made
safe for a terminal, the organiser's key, and a banlist picked from an lflist.conf. Both import
it, so neither face imports the other for these (``cli``'s docstring says what each exit code means).
"""
from __future__ import annotations

from pathlib import Path

import click

from ..decks import Banlist, read_lflist
from ..errors import InputError
from ..signing import OrganiserKey
from ..text import terminal

EXIT_ILLEGAL, EXIT_UNREADABLE, EXIT_CONFLICT, EXIT_INTERNAL, EXIT_INTERRUPTED = 1, 2, 3, 4, 130


def echo(text: str = "", err: bool = False, nl: bool = True) -> None:
    """Every line the command line prints: control characters escaped, so that no file can
    rewrite a judge's terminal."""
    click.echo(terminal(text), err=err, nl=nl)


def signing_key() -> OrganiserKey:
    """The organiser's key, made (and said so) the first time one is needed."""
    key, created = OrganiserKey.load_or_create()
    if created:
        echo(f"created the organiser key {key.path} (public key {key.public.text})", err=True)
    return key


def pick_list(path: str, name: str | None) -> Banlist:
    """The --list NAME of an lflist.conf; the only list when there is one; else exit code 2."""
    lists = read_lflist(Path(path))
    names = ", ".join(repr(n) for n in lists) or "none"
    if not lists:
        raise InputError(f"{path}: no banlist in this file (a list starts with a '!name' line)")
    if name is None:
        if len(lists) > 1:
            raise click.UsageError(f"{path} holds {len(lists)} lists; pick one with --list "
                                   f"(lists: {names})")
        return next(iter(lists.values()))
    if name in lists:
        return lists[name]
    folded = [n for n in lists if n.casefold() == name.casefold()]
    if len(folded) == 1:
        return lists[folded[0]]
    raise InputError(f"{path}: no list named {name!r} (lists: {names})")
