"""The ``ygoreplay`` command: check, record, show, branch, roll back and verify duels.

Exit codes: 0 success, 1 a rule was broken (or a record failed verification), 2 the input could
not be read, 3 another writer got to the duel first.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .cards import CardDB, CardDBError
from .events import EventFormatError
from .jsonl import read_events
from .render import render
from .diff import diff_states
from .rules import AuditReport, RuleViolation, audit
from .state import DuelState
from .store import ConflictError, Store, StoreError

EXIT_ILLEGAL, EXIT_UNREADABLE, EXIT_CONFLICT = 1, 2, 3


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


store_option = click.option(
    "--store", "store_url", envvar="YGOREPLAY_STORE", default=None, metavar="URL",
    help="SQLite file or postgresql://user@host:port/db (default: $YGOREPLAY_STORE, else "
         "~/.local/share/ygoreplay/duels.sqlite).")


def _open_store(url: str | None) -> Store:
    try:
        return Store(url)
    except StoreError as exc:
        raise Unreadable(str(exc)) from None


def _position(events: list, at: int | None, turn: int | None, what: str) -> int:
    """The event index to show: --at N, the start of --turn T, or the last event."""
    if at is not None and turn is not None:
        raise click.UsageError("give --at or --turn, not both")
    if turn is not None:
        starts = [i for i, e in enumerate(events) if e.kind == "turn_started" and e.turn == turn]
        if not starts:
            raise Unreadable(f"{what}: the duel has no turn {turn}")
        return starts[0]
    if at is None:
        return len(events) - 1
    if not 0 <= at < len(events):
        raise Unreadable(f"{what}: --at {at} is outside the duel's events 0..{len(events) - 1}")
    return at


@main.command()
@click.argument("duel")
@click.option("--at", "at", type=int, default=None, help="Show the board after event N (0-based).")
@click.option("--turn", "turn", type=int, default=None, help="Show the board at the start of turn T.")
@cards_option
@store_option
def show(duel: str, at: int | None, turn: int | None, cards: str | None, store_url: str | None) -> None:
    """Print the board after an event (default: the last one) of a JSON Lines file or a stored duel."""
    if Path(duel).exists():
        events, db = _load(duel, cards)
        index = _position(events, at, turn, duel)
        report = audit(events[:index + 1], db)
        state, notes = report.state, report.violations
    else:
        with _open_store(store_url) as store:
            duel_id = _resolve(store, duel)
            events = [r.event for r in _records(store, duel_id)]
            index = _position(events, at, turn, duel_id)
            state, notes = _guard(lambda: store.state_at(duel_id, index + 1)), []
    click.echo(render(state, f"after event #{index} ({events[index].kind})"), nl=False)
    for v in notes:
        click.echo(f"note: #{v.index} {v.rule} {v.message}")


def _resolve(store: Store, duel: str) -> str:
    return _guard(lambda: store.resolve(duel))


def _records(store: Store, duel_id: str):
    return _guard(lambda: store.records(duel_id))


def _guard(action):
    """Run a store action, turning its errors into the CLI's messages and exit codes."""
    try:
        return action()
    except ConflictError as exc:
        click.echo(f"conflict: {exc}", err=True)
        sys.exit(EXIT_CONFLICT)
    except RuleViolation as v:
        click.echo(f"#{v.index} {v.rule} {v.message}")
        sys.exit(EXIT_ILLEGAL)
    except StoreError as exc:
        raise Unreadable(str(exc)) from None


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--title", default=None, help="A title for the duel (default: the file name).")
@store_option
def record(file: str, title: str | None, store_url: str | None) -> None:
    """Record a JSON Lines duel into the store and print its id.

    Stops at the first illegal event: the legal events before it stay recorded, the violation is
    printed, and the exit code is 1.
    """
    events, _ = _load(file, None)
    with _open_store(store_url) as store:
        duel_id = _guard(lambda: store.create_duel(title or Path(file).name))
        try:
            store.append(duel_id, events)
        except RuleViolation as v:
            _guard(lambda: store.append(duel_id, events[:v.index]) if v.index else None)
            click.echo(duel_id)
            click.echo(f"#{v.index} {v.rule} {v.message}")
            click.echo(f"recorded the {v.index} legal event(s) before it", err=True)
            sys.exit(EXIT_ILLEGAL)
        except (ConflictError, StoreError):
            _guard(lambda: store.append(duel_id, events))
        click.echo(duel_id)


@main.command(name="list")
@store_option
def list_duels(store_url: str | None) -> None:
    """List the duels in the store."""
    with _open_store(store_url) as store:
        duels = _guard(store.duels)
        if not duels:
            click.echo(f"no duels in {store.name}")
        for d in duels:
            count = len(_records(store, d.id))
            origin = f"  branch of {d.parent} at {d.branch_at}" if d.parent else ""
            click.echo(f"{d.id}  {d.created[:19].replace('T', ' ')}  {count:>6} events  {d.title}{origin}")


@main.command()
@click.argument("duel")
@click.option("--at", "at", type=int, required=True, help="Keep the first N events.")
@click.option("--title", default="", help="A title for the branch.")
@store_option
def branch(duel: str, at: int, title: str, store_url: str | None) -> None:
    """Start a new duel from the first N events of DUEL (the parent is untouched); print its id."""
    with _open_store(store_url) as store:
        click.echo(_guard(lambda: store.branch(_resolve(store, duel), at, title)))


@main.command()
@click.argument("duel")
@store_option
def tree(duel: str, store_url: str | None) -> None:
    """Show DUEL's family of branches, like the variations of a game."""
    with _open_store(store_url) as store:
        for depth, d in _guard(lambda: store.tree(_resolve(store, duel))):
            count = len(_records(store, d.id))
            where = f"from event {d.branch_at}: " if d.parent else ""
            click.echo(f"{'    ' * depth}{'└── ' if depth else ''}{d.id}  {where}{d.title} ({count} events)")


def _state_of(store: Store, spec: str) -> tuple[str, DuelState]:
    """DUEL or DUEL@N (the state after N events)."""
    name, _, at = spec.partition("@")
    duel_id = _resolve(store, name)
    if at and not at.isdigit():
        raise click.UsageError(f"{spec}: write DUEL or DUEL@N")
    return f"{duel_id}{'@' + at if at else ''}", _guard(lambda: store.state_at(duel_id, int(at) if at else None))


@main.command()
@click.argument("a")
@click.argument("b")
@store_option
def diff(a: str, b: str, store_url: str | None) -> None:
    """How two duel states differ (DUEL or DUEL@N each): LP, cards by zone, chain, phase."""
    with _open_store(store_url) as store:
        (name_a, state_a), (name_b, state_b) = _state_of(store, a), _state_of(store, b)
    rows = diff_states(state_a, state_b)
    if not rows:
        click.echo(f"{name_a} and {name_b} are the same position")
    for place, left, right in rows:
        click.echo(f"{place}:\n  {name_a}: {left}\n  {name_b}: {right}")


@main.command()
@click.argument("duel")
@click.option("--to", "to", type=int, required=True, help="Back up to the state before event N.")
@click.option("--judge", required=True, help="The judge's name.")
@click.option("--reason", required=True, help="Why, for the record.")
@store_option
def rollback(duel: str, to: int, judge: str, reason: str, store_url: str | None) -> None:
    """Back a game up to an earlier event, as an event in the same record (nothing is erased)."""
    from .events import RolledBack
    with _open_store(store_url) as store:
        duel_id = _resolve(store, duel)
        length = _guard(lambda: store.append(duel_id, RolledBack(to=to, judge=judge, reason=reason)))
        click.echo(f"{duel_id}: rolled back to before event {to} by {judge}; "
                   f"events {to}..{length - 2} are marked reverted")


@main.command()
@click.argument("duel")
@store_option
def verify(duel: str, store_url: str | None) -> None:
    """Check DUEL's hash chain end to end; name the first broken link."""
    with _open_store(store_url) as store:
        duel_id = _resolve(store, duel)
        result = _guard(lambda: store.verify(duel_id))
    if result.ok:
        click.echo(f"{duel_id}: ok, {result.events} events, hash chain intact")
    else:
        click.echo(f"{duel_id}: BROKEN at event {result.first_bad}: {result.problem}")
        sys.exit(EXIT_ILLEGAL)
