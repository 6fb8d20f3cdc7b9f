"""The ``ygoreplay`` command: check and show recorded duels.

Exit codes: 0 legal, 1 a rule was broken, 2 the input could not be read.
"""
from __future__ import annotations

import json
import sys

import click

from .cards import CardDB, CardDBError
from .events import EventFormatError
from .jsonl import read_events
from .render import render
from .rules import AuditReport, audit

EXIT_ILLEGAL, EXIT_UNREADABLE = 1, 2


class Unreadable(click.ClickException):
    """An input that cannot be read: a clear message on stderr and exit code 2, no traceback."""

    exit_code = EXIT_UNREADABLE


def _load(path: str, cards: str | None) -> tuple[list, CardDB]:
    """Events and card facts, or a clear message and exit code 2."""
    try:
        db = CardDB.classic() if cards is None else CardDB.classic().merged(CardDB.from_cdb(cards))
        return read_events(path), db
    except (EventFormatError, CardDBError) as exc:
        raise Unreadable(str(exc)) from None
    except OSError as exc:
        raise Unreadable(f"{path}: cannot read ({exc.strerror or exc})") from None


def final_summary(report: AuditReport) -> dict:
    state = report.state
    return {"lp": [s.lp for s in state.sides], "turn": state.turn, "phase": state.phase,
            "winner": state.winner, "reason": state.end_reason}


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ygoreplay")
def main() -> None:
    """Record, check and replay Yu-Gi-Oh! duels as event logs."""


cards_option = click.option("--cards", type=click.Path(dir_okay=False),
                            help="A cards.cdb whose facts are added to the bundled classic set.")


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@cards_option
def check(file: str, as_json: bool, cards: str | None) -> None:
    """Fold a JSON Lines duel through the rules and list every violation."""
    events, db = _load(file, cards)
    report = audit(events, db)
    if as_json:
        click.echo(json.dumps({
            "events": report.events,
            "violations": [{"index": v.index, "rule": v.rule, "message": v.message} for v in report.violations],
            "overrides": [{"index": o.index, "rule": o.rule, "message": o.message,
                           "cite": {"card": o.cite.card, "effect": o.cite.effect}} for o in report.overrides],
            "final": final_summary(report)}))
    else:
        for v in report.violations:
            click.echo(f"#{v.index} {v.rule} {v.message}")
        for o in report.overrides:
            click.echo(f"#{o.index} {o.rule} set aside by {o.cite.card}"
                       f"{': ' + o.cite.effect if o.cite.effect else ''} ({o.message})")
        final = final_summary(report)
        verdict = "legal" if report.legal else f"{len(report.violations)} violation(s)"
        result = ("a draw" if final["winner"] is None else f"player {final['winner']} won") \
            if report.state.ended else "not finished"
        click.echo(f"{file}: {verdict}; {report.events} events, turn {final['turn']}, "
                   f"LP {final['lp'][0]} / {final['lp'][1]}, {result}"
                   + (f" ({final['reason']})" if report.state.ended else ""))
    sys.exit(0 if report.legal else EXIT_ILLEGAL)


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--at", "at", type=int, default=None, help="Show the board after event N (0-based).")
@click.option("--turn", "turn", type=int, default=None, help="Show the board at the start of turn T.")
@cards_option
def show(file: str, at: int | None, turn: int | None, cards: str | None) -> None:
    """Print the board after an event (default: the last one)."""
    events, db = _load(file, cards)
    if at is not None and turn is not None:
        raise click.UsageError("give --at or --turn, not both")
    if turn is not None:
        starts = [i for i, e in enumerate(events) if e.kind == "turn_started" and e.turn == turn]
        if not starts:
            raise Unreadable(f"{file}: the duel has no turn {turn}")
        at = starts[0]
    if at is None:
        at = len(events) - 1
    if not 0 <= at < len(events):
        raise Unreadable(f"{file}: --at {at} is outside the duel's events 0..{len(events) - 1}")
    report = audit(events[:at + 1], db)
    click.echo(render(report.state, f"after event #{at} ({events[at].kind})"), nl=False)
    for v in report.violations:
        click.echo(f"note: #{v.index} {v.rule} {v.message}")
