"""An event at the table: ``lp-sheet`` (a duel's paper LP record, as a printable page or CSV)
and ``round`` (``create`` a round from a pairings file: one match per table, its links and QR
codes; ``show`` a round: its tables, scores and which are recording)."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import click

from ..errors import InputError, StoreError
from ..i18n import said, t
from ..text import printable
from .common import (
    Words, card_db, cards_option, echo, handed_source, main, open_duel, open_store, open_witness, pick_list, store_option,
    view_option, witness_option)

if TYPE_CHECKING:
    from ..lpsheet import LPSheet
    from ..source import Source

#: Where the links of a round made here point (the service that will serve its matches).
URL_ENV = "YGOREPLAY_URL"


def _sheet(source: Source, view: str | None, times: list[str], recorded: list[str], head: bytes | None,
           match: Callable[[str], dict]) -> LPSheet:
    """The sheet of ``view`` of the source, its ``times`` shown. ``head`` is the source's own (its
    record's, a view file's), over its chain of events recorded at ``recorded``: a view a full
    record derives is tied to it by its own file's head instead (``exchange.sheet_head``).
    ``match`` gives what the view shown may say of the duel's match (``rounds.match_details``)."""
    from ..exchange import sheet_head
    from ..lpsheet import sheet_of
    events, cards, disclosures, renames, shown = source.as_view(view)
    if head is not None and shown != source.view and source.root is not None:
        head = sheet_head(shown, source.root, events, recorded, head)
    return sheet_of(events, cards, shown, disclosures=disclosures, renames=renames, times=times,
                    duel_id=source.duel_id or "", head=head, match=match(shown),
                    title=source.replay.match.get("title", "") if source.replay is not None else "")


def _write(text: str, output: str | None, mode: int) -> None:
    """To standard output as it is (the sheet's text has no control character but its line
    ends: a CSV's CRLF stays), or whole to a file of ``mode``: 0o600 for one that holds tokens
    or the judge's view (``files.mode_for``: every hidden card a cause names), asked by each caller."""
    from ..files import write_atomic
    if output is None or output == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode("utf-8"))
        return
    try:
        write_atomic(Path(output), text.encode("utf-8"), mode)
    except OSError as exc:
        raise InputError(t("{output}: cannot write ({value})", output=output, value=exc.strerror or exc)) from None
    echo(t("wrote {output}", output=output), err=True)


@main.command(name="lp-sheet")
@click.argument("duel")
@click.option("--csv", "as_csv", is_flag=True, help="CSV (RFC 4180, a header row) instead of a printable page.")
@click.option("-o", "--output", default=None, metavar="FILE", help="Write it here (default: standard output).")
@click.option("--paper", type=Words("ygoreplay.lpsheet", "PAPERS"), default="a4", show_default=True, help="The page's paper size.")
@view_option
@cards_option
@store_option
def lp_sheet(duel: str, as_csv: bool, output: str | None, paper: str, view: str | None, cards: tuple[str, ...],
             store_url: str | None) -> None:
    """A duel's paper LP record: both players' LP changes turn by turn, each with its cause, the
    running LP and the result; a page to print and sign (HTML), or CSV. DUEL is a .jsonl or .ygr
    file or a stored duel; --view spectator names no card a spectator could not see."""
    from ..access import view_knows_match
    from ..files import mode_for
    from ..lpsheet import to_csv, to_html
    from ..rounds import match_details
    if Path(duel).is_file():
        with open_duel(duel, None, cards) as source:
            replay = source.replay
            sheet = _sheet(source, view, replay.times if replay and (view or replay.view) == replay.view else [],
                           replay.times if replay else [], replay.chain[-1] if replay and replay.chain else None,
                           lambda _shown: {})
    else:
        with open_store(store_url, readonly=True) as store:
            # a view handed on: a judge's what-if branch stops where the service's sheet of it stops
            source = handed_source(duel, store, card_db(cards), view)
            records = source.records                 # read once, as the anchors vouch (not read again apart)
            times = [r.recorded for r in records]
            # the match is named as the view shown may know of it: a public duel's spectator sheet
            # names no private match it was linked into (``access.view_knows_match``)
            sheet = _sheet(source, view, times, times, records[-1].hash if records else None,
                           lambda shown: match_details(store, str(source.duel_id),
                                                       lambda _match, access: view_knows_match(shown, access)))
    _write(to_csv(sheet) if as_csv else to_html(sheet, paper), output, mode_for(sheet.view))


@main.group(name="round")
def round_group() -> None:
    """An event's rounds: one match per table from a pairings file, and how the tables stand."""


@round_group.command(name="create")
@click.argument("pairings", metavar="PAIRINGS.csv", type=click.Path(dir_okay=False, exists=True))
@click.option("--event", "event", required=True, help="The event's name.")
@click.option("--round", "round_", type=click.IntRange(0, 10_000), required=True, help="The round's number.")
@click.option("--format", "format_", default="", help="The format (e.g. Advanced).")
@click.option("--policy", type=Words("ygoreplay.match.policies", "POLICIES"), default="tcg-2024", show_default=True,
              help="The end-of-match procedure.")
@click.option("--banlist", "banlist_file", type=click.Path(dir_okay=False, exists=True), default=None,
              help="An lflist.conf holding the event's banlist (default: none given).")
@click.option("--list", "list_name", default=None, metavar="NAME", help="Which list of the banlist file.")
@click.option("--visibility", type=click.Choice(["private", "unlisted", "public"]), default="unlisted",
              show_default=True, help="Who may read the matches without a token.")
@click.option("--mode", "mode", type=click.Choice(("witnessed", "machine")), default="witnessed", show_default=True,
              help="How the tables' duels are recorded: witnessed (paper: an illegal play is kept, flagged) "
                   "or machine (refused).")
@click.option("--url", "base", envvar=URL_ENV, default="http://127.0.0.1:8765", show_default=True,
              help=f"The service's address the links point to (default: ${URL_ENV}).")
@click.option("--qr", "qr_file", default=None, metavar="FILE.html",
              help="Write the printable page of the tables' QR codes here (it holds the recorders' tokens).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (with every token) instead of text.")
@witness_option
@store_option
def round_create(pairings: str, event: str, round_: int, format_: str, policy: str, banlist_file: str | None,
                 list_name: str | None, visibility: str, mode: str, base: str, qr_file: str | None, as_json: bool,
                 witness_url: str | None, store_url: str | None) -> None:
    """Create a round from PAIRINGS.csv (table,player,player a line; a header optional): one
    match per table, all written at once. Prints each table's recorder link; the tokens are shown
    only now (the store keeps their digests)."""
    from ..access import PLAYERS
    from ..decks import Banlist
    from ..rounds import RoundSettings, create_round, read_pairings
    try:
        data = Path(pairings).read_bytes()
    except OSError as exc:
        raise InputError(t("{pairings}: cannot read ({value})", pairings=pairings, value=exc.strerror or exc)) from None
    tables = read_pairings(data, pairings)
    banlist = pick_list(banlist_file, list_name) if banlist_file else Banlist("(none given)")
    settings = RoundSettings(event, round_, format_, policy, banlist, visibility, mode)
    with open_store(store_url, create=True) as store, open_witness(witness_url, store) as witness:
        made = create_round(store, tables, settings, base.rstrip("/"), witness)
    if qr_file:
        from ..round_pages import qr_page
        _write(qr_page(made, base.rstrip("/")), qr_file, 0o600)
    if as_json:
        echo(json.dumps(made.to_dict(), ensure_ascii=False))
        return
    echo(t("round {id}: {event}, round {round_}, {count} tables (the tokens below are shown once)",
           id=made.id, event=printable(event), round_=round_, count=len(made.tables)))
    for table in made.tables:
        echo(t("table {table}: {players} vs {players2}  match {match}  recorder {recorder_link}",
               table=table.table, players=printable(table.players[0]), players2=printable(table.players[1]), match=table.match, recorder_link=table.recorder_link))
        for seat, player in zip(PLAYERS, table.players):     # a paper table's seats (as the QR sheet)
            if seat in table.record:
                echo("  " + t("{seat}: {player}'s own phone, hand to this player only: {link}",
                              seat=seat, player=printable(player), link=table.record[seat]))
    echo(t("round page: {url}", url=f"{base.rstrip('/')}/rounds/{made.id}"))


@round_group.command(name="show")
@click.argument("round_id", metavar="ID")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@click.option("--csv", "as_csv", is_flag=True,
              help="The results as CSV, one row a table (score, winner, match points, what it needs).")
@witness_option
@store_option
def round_show(round_id: str, as_json: bool, as_csv: bool, witness_url: str | None, store_url: str | None) -> None:
    """How a round's tables stand: players, match score and state, last event recorded, who records."""
    from ..rounds import results_csv, status
    with open_store(store_url, readonly=True) as store, open_witness(witness_url, store) as witness:
        try:
            data = status(store, round_id, witness=witness)
        except StoreError as exc:
            raise InputError(str(exc)) from None
    if as_json:
        echo(json.dumps(data, ensure_ascii=False))
        return
    if as_csv:
        _write(results_csv(data), None, 0o644)
        return
    from ..round_pages import counts_said, needs_said, seal_said, who_said
    echo(t("round {id}: {event}, round {round}{format}, {count} tables", id=data["id"], event=printable(data["event"]),
           round=data["round"], format=f", {printable(data['format'])}" if data["format"] else "",
           count=len(data["tables"])))
    echo(seal_said(data))
    echo(counts_said(data))
    for table in data["tables"]:
        won, lost = table["score"][:2]
        echo(t("table {table}: {first} {won} – {lost} {second}  {state}  last event {last}", table=table["table"],
               first=printable(table["players"][0]), won=won, lost=lost, second=printable(table["players"][1]),
               state=said(table["state"]), last=table["last_event"] or "—")
             + (t("  recorded by {who}", who=who_said(table)) if table["recording"] else "")
             + (t("  NEEDS: {needs}", needs=needs_said(table)) if table["attention"] else ""))


@round_group.command(name="sign")
@click.argument("round_id", metavar="ID")
@witness_option
@store_option
def round_sign(round_id: str, witness_url: str | None, store_url: str | None) -> None:
    """Sign a round written before rounds were signed, as it stands now (check its tables with
    'round show' first): its page then says it was signed late, and when."""
    from ..round_pages import seal_said
    from ..rounds import sign_round
    with open_store(store_url) as store, open_witness(witness_url, store) as witness:
        try:
            data = sign_round(store, round_id, witness)
        except StoreError as exc:
            raise InputError(str(exc)) from None
    echo(t("round {id}: {count} tables", id=round_id, count=len(data["tables"])) + "; " + seal_said(data))


@round_group.command(name="time")
@click.argument("round_id", metavar="ID")
@click.option("--clock", default=None, metavar="TIME",
              help="The wall clock time was called at: an ISO 8601 date and time with its UTC offset "
                   "(default: now).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@witness_option
@store_option
def round_time(round_id: str, clock: str | None, as_json: bool, witness_url: str | None, store_url: str | None) -> None:
    """Call time at every table of a round at once (TIME-01): each table still playing is called
    at the same clock, where its duel stands; says each table's outcome. Exit 1 when a table
    could not be called (a judge calls it there, with its turn and phase)."""
    from ..live import Hub
    from ..match.events import CLOCK_FORMAT, is_clock
    from ..round_time import OUTCOMES, call_time
    if clock is not None and not is_clock(clock):
        raise InputError(t("--clock is {format}, not {clock}", format=CLOCK_FORMAT, clock=printable(clock)[:40]))
    with open_store(store_url) as store, open_witness(witness_url, store) as witness:
        try:
            used, tables = call_time(Hub(store, witness), round_id, clock)
        except StoreError as exc:
            raise InputError(str(exc)) from None
    if as_json:
        echo(json.dumps({"round": round_id, "clock": used, "tables": [table.to_dict() for table in tables]},
                        ensure_ascii=False))
    else:
        echo(t("round {id}: time called at {clock}", id=round_id, clock=used))
        for table in tables:
            where = (t(" (duel {game}, turn {turn}, {phase})", game=table.game, turn=table.turn,
                       phase=said(table.phase)) if table.game is not None and table.turn is not None else "")
            why = f": {table.rule + ' ' if table.rule else ''}{said(table.message)}" if table.message else ""
            echo(t("table {table}: {outcome}", table=table.table, outcome=t(OUTCOMES[table.outcome])) + where + why)
    if any(table.outcome == "refused" for table in tables):
        sys.exit(1)
