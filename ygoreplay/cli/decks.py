"""``ygoreplay deck check``: .ydk files and ydke:// URLs against the deck rules and an lflist.conf
banlist (issue 5)."""
from __future__ import annotations

import json
import sys

import click

from ..text import printable
from .common import EXIT_ILLEGAL, card_db, cards_option, echo, main, pick_list


@main.group()
def deck() -> None:
    """Decks in the formats players already have (.ydk files, ydke:// URLs)."""


@deck.command(name="check")
@click.argument("deck_spec", metavar="DECK")
@click.option("--banlist", "banlist_file", type=click.Path(dir_okay=False), default=None,
              help="An lflist.conf: check DECK-08 (0/1/2 copies, $whitelist) against one of its lists.")
@click.option("--list", "list_name", default=None, metavar="NAME",
              help="Which list of the --banlist file (needed when it holds several).")
@cards_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
def deck_check(deck_spec: str, banlist_file: str | None, list_name: str | None,
               cards: tuple[str, ...], as_json: bool) -> None:
    """Check a .ydk file or ydke:// URL against the deck rules.

    DECK is a .ydk path or a ydke:// URL, read section by section as written, as a duel
    registers it: a Main Deck monster under #extra is DECK-03, an Extra Deck monster under #main
    DECK-02. Each problem prints as
    '<RULE-ID> <message>'. Unknown passcodes are reported (CARD-01), never guessed. Exit code 0
    when legal, 1 on any problem, 2 when an input cannot be read.
    """
    from ..decks import check_deck, read_deck
    if list_name is not None and banlist_file is None:
        raise click.UsageError("--list needs --banlist FILE")
    is_url = deck_spec.strip().lower().startswith("ydke://")
    label = "ydke URL" if is_url else deck_spec
    written = read_deck(deck_spec)
    db = card_db(cards)
    banlist = pick_list(banlist_file, list_name) if banlist_file is not None else None
    problems = check_deck(written, db, banlist)
    sizes = written.sizes()
    if as_json:
        echo(json.dumps({
            "deck": label, "sizes": sizes, "legal": not problems,
            "banlist": None if banlist is None else {
                "file": banlist_file, "list": banlist.name, "whitelist": banlist.whitelist,
                "hash": banlist.content_hash()},
            "problems": [p.to_dict() for p in problems]}))
    else:
        for p in problems:
            echo(str(p))
        verdict = "legal" if not problems else f"{len(problems)} problem(s)"
        against = f"; banlist {banlist.name!r}" if banlist is not None else ""
        echo(f"{printable(label)}: {verdict}; Main {sizes['main']}, Extra {sizes['extra']}, "
             f"Side {sizes['side']}{against}")
    sys.exit(EXIT_ILLEGAL if problems else 0)
