"""``ygoreplay search``: the library's search on the command line, with the same filters and the
same JSON as ``GET /search`` (``library_search``), on a store opened read-only."""
from __future__ import annotations

import json
import sys

import click

from ..errors import InputError
from ..i18n import t
from ..text import printable
from .common import card_db, cards_option, echo, main, open_store, store_option
from .output import EXIT_ILLEGAL

@main.command(name="search")
@click.argument("words", nargs=-1)
@click.option("--q", "q", default=None, help="Words of the title, players, event or round, as WORDS are (search Kaiba).")
@click.option("--player", default=None, help="A player's name (case and accents ignored).")
@click.option("--title", default=None, help="Part of the title.")
@click.option("--event", default=None, help="Part of the event's name.")
@click.option("--round", "round_", default=None, help="The round.")
@click.option("--format", "format_", default=None, help="Part of the format's name.")
@click.option("--banlist", default=None, help="Part of the banlist's name.")
@click.option("--since", default=None, metavar="DATE", help="Recorded on or after DATE (or a time with its zone).")
@click.option("--until", default=None, metavar="DATE", help="Recorded on or before DATE (or a time with its zone).")
@click.option("--result", default=None, help="p0, p1, draw, ongoing, or a player's name (won by them).")
@click.option("--source", default=None, help="How the record came to be: imported, table or api.")
@click.option("--card", default=None, help="A card's name (any language the card database has) or passcode.")
@click.option("--action", default=None, help="What happened to the card: activated, summoned, sent_to_gy, "
                                              "banished or negated (default: any).")
@click.option("--turn-max", "turn_max", type=click.IntRange(0, 10_000), default=None,   # library_search.TURN_MAX
              help="Only card events on this turn or earlier.")
@click.option("--kind", default=None, help="duel, match or any (default).")
@click.option("--limit", type=click.IntRange(1, 100), default=None,                  # library_search.MAX_LIMIT
              help="Results a page (default 20, at most 100).")
@click.option("--cursor", default=None, help="The 'next' of a previous answer: its next page.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as GET /search gives it.")
@click.option("--reindex", is_flag=True, help="Build the store's library index anew first (opens it for writing).")
@click.option("--check", "check_", is_flag=True,
              help="Compare the library index with one built from what the store vouches for, name each duel "
                   "whose rows differ (deleted or altered in the database), and exit 1 if any does.")
@cards_option
@store_option
def search_command(words: tuple[str, ...], as_json: bool, reindex: bool, check_: bool, cards: tuple[str, ...],
                   store_url: str | None, round_: str | None, format_: str | None,
                   **filters: str | int | None) -> None:
    """Find public duels and matches: by player, title, event, result, source, and by what
    happened to a card (``--card "Pot of Greed" --action activated --turn-max 1``). Only what a
    spectator may know is searched: private and unlisted duels never, a delayed duel up to its delay."""
    from ..library import rebuild
    from ..library_search import SearchError, check_index, parse, search
    from ..store.records import KINDS
    if words:                # what a user types first (``search Kaiba``) is the words filter, ``--q``
        filters["q"] = " ".join(filter(None, (filters["q"], *words)))
    params = {key: str(value) for key, value in {**filters, "round": round_, "format": format_}.items()
              if value is not None}       # as GET /search's query gives them: parsed and checked the same
    if reindex:
        with open_store(store_url, create=True, reindex=True) as store:
            count = rebuild(store, store.library, KINDS)
        if not as_json:
            echo(t("indexed {count} duels and matches of {name}", count=count, name=store.name))
    if check_:
        with open_store(store_url, readonly=True) as store:
            differ = check_index(store, KINDS)
        for stream, what in differ.items():
            echo(f"{stream}  {'; '.join(what)}")
        echo(t("the library index holds what the store vouches for") if not differ else
             t("{count} duels' index rows are not what the store vouches for: run 'ygoreplay search --reindex'",
               count=len(differ)))
        if differ:
            sys.exit(EXIT_ILLEGAL)
        return
    try:
        query = parse(params, card_db(cards))
        with open_store(store_url, readonly=True) as store:
            answer = search(store, query)        # its cursor opens here
    except SearchError as exc:
        raise InputError(f"--{exc.where.replace('_', '-')}: {exc}") from None
    if as_json:
        echo(json.dumps(answer, ensure_ascii=False))
        return
    if not answer["results"]:
        # a duel recorded or imported on the command line is private (no access of its own): say so,
        # and what lists every duel of the store, rather than leave an empty library unexplained
        echo(t("no public duel matches (search finds public duels only: ygoreplay list lists every duel "
               "in this store)"))
    for row in answer["results"]:
        result = row["result"]
        players = " vs ".join(printable(p) for p in row["players"] if p) or "players unknown"
        outcome = ("ongoing" if result is None else "a draw" if result["winner"] is None else
                   f"{printable(row['players'][result['winner']] or 'player ' + str(result['winner']))} won")
        badges = f"  [{', '.join(row['badges'])}]" if row["badges"] else ""
        echo(t("{id}  {created}  {kind:5}  {players}  {outcome}  {events} events, {turns} turns  {title}{badges}",
               id=row['id'], created=row['created'][:10], kind=row['kind'], players=players, outcome=outcome, events=row['events'], turns=row['turns'], title=printable(row['title']), badges=badges))
    if answer.get("unvouched"):
        echo(t("{count} duels left out: their index rows are not what the store vouches for (search --check)",
               count=answer["unvouched"]))
    if answer["next"]:
        echo(t("more: --cursor {next}", next=answer['next']))
