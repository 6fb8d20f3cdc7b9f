"""``ygoreplay cards``: the card database: install it, see what is installed, find a card (issue 16)."""
from __future__ import annotations

import json
import os
import sys

import click

from ..i18n import t
from .common import EXIT_ILLEGAL, card_db, cards_option, echo, main


@main.group()
def cards() -> None:
    """The card database: install it, see what is installed, find a card by name."""


@cards.command(name="update")
@click.option("--source", default=None, metavar="SOURCE",
              help="ygoprodeck (the YGOPRODeck card API, the default), or the URL or path of YGOPRODeck card JSON "
                   "or a cards.cdb.")
@click.option("--scripts", "scripts", default=None, metavar="DIR",
              help="A folder of EDOPro/ProjectIgnis card scripts (cNNNN.lua): their effect facts are stored with the "
                   "installed database (read, never run). Alone, it adds them to the database already installed.")
@click.option("--lang", "lang", default=None, metavar="LANG",
              help="Install the names of SOURCE (a localized cards.cdb, or ygoprodeck in fr, de, it or pt) as the "
                   "cards' names in this language, beside the English database: log, board and search use them "
                   "when reading in it.")
def cards_update(source: str | None, scripts: str | None, lang: str | None) -> None:
    """Fetch the facts of every card and install them beside the default store (the old
    database stays until the new one is whole); with --scripts, the effect facts of the card
    scripts too; with --lang, only the names of SOURCE in that language."""
    from ..card_install import add_scripts, install_names, update
    if lang is not None:
        from ..card_names import name_language
        language = name_language(lang)
        count, url = install_names(source or "ygoprodeck", language)
        echo(t("installed {count} card names in {language} from {url}", count=count, language=language, url=url))
        return
    if source is not None or scripts is None:
        installed = update(source or "ygoprodeck")
        echo(t("installed {count} cards from {url} into {path} (sha256 {sha}…)", count=installed.cards,
               url=installed.url, path=installed.path, sha=installed.sha256[:16]))
    if scripts is not None:
        installed, reading = add_scripts(scripts)
        echo(t("read {parsed} of {files} card scripts in {scripts}: {effect_count} effects of {count} cards stored "
               "in {path}",
               parsed=reading.parsed, files=reading.files, scripts=scripts, effect_count=reading.effect_count, count=len(reading.effects), path=installed.path))
        for name, why in reading.failed[:10]:
            echo("  " + t("not read: {name}: {why}", name=name, why=why))
        if len(reading.failed) > 10:
            echo("  " + t("({count} more not read)", count=len(reading.failed) - 10))
        if reading.stopped:
            echo(f"  {reading.stopped}")


@cards.command(name="status")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
def cards_status(as_json: bool) -> None:
    """What card facts commands use: the installed database, a local install's, the bundled set."""
    from ..card_sources import CARDS_ENV
    from ..cards import CardDB
    from ..card_install import installed_path, status
    from ..card_sources import local_databases
    installed = status()
    found = [str(p) for p in local_databases()]
    named = [f for f in os.environ.get(CARDS_ENV, "").split(os.pathsep) if f]
    if as_json:
        echo(json.dumps({"installed": installed.to_dict() if installed else None, "local": found,
                         "environment": named, "bundled": len(CardDB.classic())}))
        return
    for path in named:
        echo(f"${CARDS_ENV}: {path}")
    for path in found:
        echo(t("local install: {path}", path=path))
    if installed:
        echo(f"installed: {installed.path}: {installed.cards} cards from {installed.url}, fetched "
             f"{installed.fetched}, sha256 {installed.sha256}"
             + (f"; {installed.effects} effect facts from the card scripts in {installed.scripts}"
                if installed.effects else ""))
    else:
        echo(t("installed: none (ygoreplay cards update installs one into {installed_path})",
               installed_path=installed_path()))
    echo(t("bundled: {count} classic cards", count=len(CardDB.classic())))


@cards.command(name="find")
@click.argument("name")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 1000))
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of text.")
@cards_option
def cards_find(name: str, limit: int, as_json: bool, cards: tuple[str, ...]) -> None:
    """Cards whose name holds NAME (case and accents ignored): exact names first."""
    from ..card_names import card_name, find_codes
    lookup = card_db(cards)
    found = lookup.find(name, limit)
    # A name in the reader's language finds the card too (its installed names, ``cards update --lang``).
    for code in find_codes(name, limit=limit):
        facts = lookup.get(code)
        if facts is not None and facts not in found and len(found) < limit:
            found.append(facts)
    if as_json:
        echo(json.dumps([{**f.to_dict(), "text": f.describe()} for f in found], ensure_ascii=False))
        return
    for facts in found:
        shown = card_name(facts)
        echo(f"{facts.code:>9}  " + (f"{shown} · " if shown != facts.name else "") + facts.describe())
    if not found:
        echo(t("no card's name holds {name}", name=repr(name)), err=True)
        sys.exit(EXIT_ILLEGAL)
