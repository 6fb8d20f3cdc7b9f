"""The ``ygoreplay`` command: check, record, show, branch, roll back and verify duels.

Exit codes: 0 success, 1 a rule was broken (or a record failed verification), 2 the input could
not be read, 3 another writer got to the duel first.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator
from urllib.parse import unquote, urlparse

import click

from .cards import CardDB, CardDBError
from .events import EventFormatError
from .jsonl import read_events
from .diff import diff_states
from .exchange import export_duel, import_replay, make_replay, new_root, verify_against
from .log import describe, log_lines
from .render import render
from .replay_file import ReplayFileError, read as read_replay, verify_chain, write as write_replay
from .rules import AuditReport, RuleViolation, audit
from .source import Source, SourceError, is_replay_file, open_source, resolve_duel
from .state import DuelState
from .store import ConflictError, Store, StoreError, _now
from .views import VIEWS
from .yrpx import YrpxError, fold_and_compare, import_yrpx

EXIT_ILLEGAL, EXIT_UNREADABLE, EXIT_CONFLICT = 1, 2, 3


class Unreadable(click.ClickException):
    """An input that cannot be read: a clear message on stderr and exit code 2, no traceback."""

    exit_code = EXIT_UNREADABLE


def _load(path: str, cards: str | None) -> tuple[list, CardDB]:
    """Events and card facts, or a clear message and exit code 2."""
    try:
        db = CardDB.classic() if cards is None else CardDB.classic().merged(CardDB.from_cdb(cards))
        events = read_events(path)
    except (EventFormatError, CardDBError) as exc:
        raise Unreadable(str(exc)) from None
    except OSError as exc:
        raise Unreadable(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not events:
        raise Unreadable(f"{path}: no events (the file is empty or holds only comments)")
    return events, db


def final_summary(report: AuditReport) -> dict:
    state = report.state
    return {"lp": [s.lp for s in state.sides], "turn": state.turn, "phase": state.phase,
            "winner": state.winner, "reason": state.end_reason}


class _Group(click.Group):
    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # The reader stopped early (``ygoreplay log DUEL | head``): not an error, exit 0. Point
            # stdout at /dev/null so the interpreter's last flush does not complain either.
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            except (OSError, ValueError):
                pass
            sys.exit(0)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
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
    """Fold a JSON Lines duel (or a judge .ygr file) through the rules and list every violation."""
    if Path(file).is_file() and is_replay_file(Path(file)):
        with _opened(file, None, cards) as source:
            if source.view != "judge":
                raise Unreadable(f"{file}: a {source.view} view lacks the hidden cards, so its rules "
                                 f"cannot be checked; check the judge file (audit checks this one's chain)")
            events, db = source.events, source.cards
    else:
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
        _reach_postgres(url)
        return Store(url)
    except StoreError as exc:
        raise Unreadable(str(exc)) from None
    except ValueError as exc:                     # urlparse: a port that is not a number…
        raise Unreadable(f"store URL {url!r}: {exc}") from None


def _reach_postgres(url: str | None) -> None:
    """One direct connection before opening a PostgreSQL store: a wrong host or port fails at
    once with the server's reason, where the store's pool would wait and say only that it got
    no connection."""
    parsed = urlparse(url or "")
    if parsed.scheme not in ("postgresql", "postgres"):
        return
    import psycopg
    host, port = parsed.hostname or "127.0.0.1", parsed.port or 5432
    db, user = unquote(parsed.path.lstrip("/")) or "postgres", unquote(parsed.username or "postgres")
    try:
        psycopg.connect(dbname=db, host=host, port=port, user=user, connect_timeout=5,
                        password=unquote(parsed.password or "") or None).close()
    except psycopg.Error as exc:
        reason = " ".join(str(exc).split())
        raise StoreError(f"cannot reach PostgreSQL at {host}:{port} (database {db!r}, user {user!r}): "
                         f"{reason}") from None


def _position(events: list, at: int | None, turn: int | None, what: str) -> int:
    """The event index to show: --at N, the start of --turn T, or the last event."""
    if at is not None and turn is not None:
        raise click.UsageError("give --at or --turn, not both")
    if not events:
        raise Unreadable(f"{what}: the duel has no events")
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


view_option = click.option("--view", "view", type=click.Choice(VIEWS), default=None,
                           help="See the duel as a player or a spectator saw it (default: the file's view).")


@contextmanager
def _opened(spec: str, store_url: str | None, cards: str | None = None) -> Iterator[Source]:
    """Open a .jsonl or .ygr file, or a duel of the store; failing to open is exit code 2."""
    store = None
    try:
        db = CardDB.classic() if cards is None else CardDB.classic().merged(CardDB.from_cdb(cards))
        if not Path(spec).is_file():
            store = _open_store(store_url)
        source = open_source(spec, store, db)
    except (EventFormatError, CardDBError, ReplayFileError, SourceError, StoreError) as exc:
        if store is not None:
            store.close()
        raise Unreadable(str(exc)) from None
    except OSError as exc:
        raise Unreadable(f"{spec}: cannot read ({exc.strerror or exc})") from None
    try:
        yield source
    finally:
        if store is not None:
            store.close()


@main.command()
@click.argument("duel")
@click.option("--at", "at", type=int, default=None, help="Show the board after event N (0-based).")
@click.option("--turn", "turn", type=int, default=None, help="Show the board at the start of turn T.")
@view_option
@cards_option
@store_option
def show(duel: str, at: int | None, turn: int | None, view: str | None, cards: str | None,
         store_url: str | None) -> None:
    """Print the board after an event (default: the last) of a .jsonl or .ygr file or a stored duel."""
    with _opened(duel, store_url, cards) as source:
        index = _position(source.events, at, turn, source.name)
        try:
            state = source.state_after(index, view)
        except SourceError as exc:
            raise Unreadable(str(exc)) from None
        click.echo(render(state, f"after event #{index} ({source.events[index].kind})"
                          + (f", {view or source.view} view" if (view or source.view) != "judge" else "")), nl=False)


@main.command()
@click.argument("duel")
@view_option
@store_option
def log(duel: str, view: str | None, store_url: str | None) -> None:
    """The duel as readable text, one line per event, grouped by turn and phase."""
    with _opened(duel, store_url) as source:
        try:
            for line in log_lines(source.steps(view), source.reverted):
                click.echo(line)
        except SourceError as exc:
            raise Unreadable(str(exc)) from None


PLAY_HELP = ("n/Enter next · p previous · j N jump to event N · t T jump to turn T · "
             "v VIEW switch view (judge, p0, p1, spectator) · q quit")


@main.command()
@click.argument("duel")
@view_option
@store_option
def play(duel: str, view: str | None, store_url: str | None) -> None:
    """Step through a duel in the terminal: next, previous, jump to an event or a turn, switch view."""
    with _opened(duel, store_url) as source:
        if not source.events:
            raise Unreadable(f"{source.name}: the duel has no events")
        last, index, current = len(source.events) - 1, 0, view or source.view
        descriptions = {i: line for i, line in _event_lines(source, current)}
        while True:
            try:
                state = source.state_after(index, current)
            except SourceError as exc:
                click.echo(f"cannot switch: {exc}")
                current = source.view
                continue
            click.echo(render(state, f"event #{index}/{last}: {descriptions.get(index, source.events[index].kind)}"
                              f" [{current} view]"))
            try:
                command = click.prompt(PLAY_HELP, default="n", show_default=False).strip()
            except click.Abort:                  # end of input (or Ctrl-C): quit, as 'q' does
                click.echo("")
                return
            word, _, arg = command.partition(" ")
            if word in ("q", "quit"):
                return
            if word in ("n", "next", ""):
                index = min(last, index + 1)
            elif word in ("p", "prev", "previous"):
                index = max(0, index - 1)
            elif word in ("j", "jump") and arg.strip().isdigit():
                if int(arg) > last:
                    click.echo(f"no event {int(arg)}: the last is #{last}")
                index = min(last, int(arg))
            elif word in ("t", "turn") and arg.strip().isdigit():
                try:
                    index = source.turn_start(int(arg))
                except SourceError as exc:
                    click.echo(str(exc))
            elif word in ("v", "view") and arg.strip() in VIEWS:
                current = arg.strip()
                descriptions = {i: line for i, line in _event_lines(source, current)}
            elif word in ("v", "view"):
                click.echo(f"unknown command {command!r} (views: {', '.join(VIEWS)})")
            else:
                click.echo(f"unknown command {command!r}")


def _event_lines(source: Source, view: str) -> Iterator[tuple[int, str]]:
    try:
        for index, event, before in source.steps(view):
            yield index, describe(before, event)
    except SourceError:
        return


@main.command(name="audit")
@click.argument("duel")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@store_option
def audit_command(duel: str, as_json: bool, store_url: str | None) -> None:
    """Re-check every event with the rules, verify the hash chain, list overrides and rollbacks."""
    with _opened(duel, store_url) as source:
        chain_ok, first_bad = True, None
        if source.replay is not None:
            first_bad = source.chain_problem()
            chain_ok = first_bad is None
        elif not Path(duel).is_file():
            with _open_store(store_url) as store:
                result = _guard(lambda: store.verify(source.name))
            chain_ok, first_bad = result.ok, result.first_bad
        checked = source.view == "judge"
        report = audit(source.events, source.cards) if checked else None
        history = report.history if report else None
    rollbacks = [{"index": pos, "to": e.to, "judge": e.judge, "reason": e.reason}
                 for pos, e in (history.rollbacks if history else [])]
    # A view's rules are not re-checked, but its result is public: LP, winner and reason from its fold.
    state = report.state if report else (source.state_after(len(source.events) - 1) if source.events else None)
    data = {
        "events": len(source.events),
        "violations": [{"index": v.index, "rule": v.rule, "message": v.message} for v in (report.violations if report else [])],
        "overrides": [{"index": o.index, "rule": o.rule, "message": o.message, "cite": o.cite.card}
                      for o in (report.overrides if report else [])],
        "rollbacks": rollbacks,
        "reverted": sorted(history.reverted) if history else [],
        "chain_ok": chain_ok, "first_bad_link": first_bad, "rules_checked": checked,
        "final": ({"lp": [s.lp for s in state.sides], "winner": state.winner, "reason": state.end_reason}
                  if state else None),
    }
    if as_json:
        click.echo(json.dumps(data))
    else:
        for v in data["violations"]:
            click.echo(f"#{v['index']} {v['rule']} {v['message']}")
        for o in data["overrides"]:
            click.echo(f"#{o['index']} {o['rule']} set aside by {o['cite']} ({o['message']})")
        for r in rollbacks:
            click.echo(f"#{r['index']} rollback to before event {r['to']} by {r['judge']}: {r['reason']}")
        if source.replay is None and Path(duel).is_file():
            click.echo("hash chain: none (a JSON Lines file has no hash chain; record or export it for one)")
        else:
            click.echo(f"hash chain: {'intact' if chain_ok else f'BROKEN at event {first_bad}'}")
        if not checked:
            click.echo(f"rules: not re-checked (a {source.view} view lacks the hidden cards)")
        if state:
            result = "not finished" if not state.ended else (
                "a draw" if state.winner is None else f"player {state.winner} won")
            click.echo(f"{source.name}: {len(data['violations'])} violation(s), {len(data['overrides'])} override(s), "
                       f"{len(rollbacks)} rollback(s); LP {state.sides[0].lp} / {state.sides[1].lp}, {result}"
                       + (f" ({state.end_reason})" if state.ended else ""))
    sys.exit(0 if chain_ok and not data["violations"] else EXIT_ILLEGAL)


@main.command(name="export")
@click.argument("duel")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False), required=True)
@view_option
@cards_option
@store_option
def export_command(duel: str, output: str, view: str | None, cards: str | None,
                   store_url: str | None) -> None:
    """Write a stored duel, a .jsonl file or a judge .ygr file as a .ygr replay file for one view."""
    if Path(duel).is_file():
        with _opened(duel, None, cards) as source:
            view = view or source.view              # a view file gives its own view by default
            try:
                if source.replay is not None:
                    if source.view != "judge" and source.view != view:
                        raise ReplayFileError(f"{duel} is a {source.view} view: it cannot give the {view} view")
                    old = source.replay
                    replay = make_replay(old.events, old.times, old.cards, view, old.root, old.match,
                                         old.source, old.created) if old.view == "judge" else old
                else:
                    replay = make_replay(source.events, [_now()] * len(source.events), source.cards, view,
                                         new_root(), {"title": Path(duel).name})
            except ReplayFileError as exc:
                raise Unreadable(str(exc)) from None
    else:
        view = view or "judge"
        with _open_store(store_url) as store:
            replay = _guard(lambda: export_duel(store, _resolve(store, duel), view))
    try:
        size = write_replay(output, replay)
    except OSError as exc:
        raise Unreadable(f"{output}: cannot write ({exc.strerror or exc})") from None
    click.echo(f"{output}: {len(replay.events)} events, {len(replay.cards)} cards, {view} view, {size} bytes")


@main.command(name="import")
@click.argument("path", type=click.Path(exists=True))
@click.option("-o", "--output", "output", type=click.Path(), default=None,
              help="Write .ygr judge file(s) here (a file, or a folder for a folder of replays) "
                   "instead of recording into the store.")
@click.option("--title", default=None)
@cards_option
@store_option
def import_command(path: str, output: str | None, title: str | None, cards: str | None,
                   store_url: str | None) -> None:
    """Import a .ygr judge file, an EDOPro .yrpX replay, or a folder of replays.

    EDOPro replays are turned into our events and folded through the rules; the summary compares
    each duel's final LP and winner with the replay's own and counts violations by rule ID.
    """
    source = Path(path)
    if source.is_file() and source.suffix.lower() in (".jsonl", ".json"):
        raise Unreadable(f"{path}: a JSON Lines duel, not a replay file: record it with "
                         f"'ygoreplay record {path}'")
    if output and source.is_dir() and Path(output).exists() and not Path(output).is_dir():
        raise Unreadable(f"{output}: not a folder (-o names a folder when importing a folder of replays)")
    if source.is_file() and is_replay_file(source):
        _import_ygr(source, title, store_url)
        return
    files = sorted(p for p in source.iterdir() if p.suffix.lower() in (".yrpx", ".yrp")) \
        if source.is_dir() else [source]
    if not files:
        raise Unreadable(f"{path}: no .yrpX replays here")
    names = _cards_db(cards)
    outcomes = []
    store = None if output else _open_store(store_url)
    try:
        with click.progressbar(files, label="importing", file=sys.stderr,
                               show_pos=True, item_show_func=lambda p: p.name if p else "") as bar:
            for file in bar:
                outcomes.append(_import_one(file, names, output, source.is_dir(), title, store))
    finally:
        if store is not None:
            store.close()
    _import_summary(outcomes)
    failed = any(o["error"] for o in outcomes)
    illegal = any(o["violations"] or not (o["lp"] and o["winner"]) for o in outcomes if not o["error"])
    sys.exit(EXIT_UNREADABLE if failed else EXIT_ILLEGAL if illegal else 0)


def _cards_db(cards: str | None) -> CardDB | None:
    try:
        return CardDB.from_cdb(cards) if cards else None
    except CardDBError as exc:
        raise Unreadable(str(exc)) from None


def _import_ygr(path: Path, title: str | None, store_url: str | None) -> None:
    try:
        replay = read_replay(path)
    except ReplayFileError as exc:
        raise Unreadable(str(exc)) from None
    with _open_store(store_url) as store:
        try:
            click.echo(_guard(lambda: import_replay(store, replay, title or path.name)))
        except ReplayFileError as exc:
            raise Unreadable(f"{path}: {exc}") from None


def _import_one(file: Path, names: CardDB | None, output: str | None, batch: bool,
                title: str | None, store: Store | None) -> dict:
    """Import one EDOPro replay: to a .ygr file or into the store. A failure is reported, not raised."""
    outcome = {"file": file.name, "error": None, "events": 0, "lp": False, "winner": False,
               "violations": [], "id": None}
    try:
        result = import_yrpx(file, names=names)
    except YrpxError as exc:
        detail = exc.detail if hasattr(exc, "detail") else str(exc)
        outcome["error"] = detail.removeprefix("cannot import: ")   # the summary says it already
        return outcome
    agreement = fold_and_compare(result)
    outcome.update(events=len(result.events), lp=agreement.lp, winner=agreement.winner,
                   violations=agreement.violations)
    if output:
        target = Path(output) / (file.stem + ".ygr") if batch or Path(output).is_dir() else Path(output)
        root = hashlib.sha256(file.read_bytes()).digest()
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            write_replay(target, make_replay(result.events, result.times, result.cards, "judge", root,
                                             {"title": title or file.name, "players": list(result.players)},
                                             {"format": "yrpX", "file": file.name, "size": file.stat().st_size}))
        except OSError as exc:
            outcome["error"] = f"cannot write {target} ({exc.strerror or exc})"
            return outcome
    else:
        store.cards = store.cards.merged(result.cards)
        duel_id = store.create_duel(title or file.name)
        try:
            store.append(duel_id, result.events, times=result.times)
        except RuleViolation as v:                    # keep the legal prefix, as ``record`` does
            store.append(duel_id, result.events[:v.index], times=result.times[:v.index])
        outcome["id"] = duel_id
    return outcome


def _import_summary(outcomes: list[dict]) -> None:
    """One line per file, then the totals: files, imported, LP and winner agreement, rule IDs."""
    width = max(len(o["file"]) for o in outcomes)
    for o in outcomes:
        if o["error"]:
            click.echo(f"{o['file']:<{width}}  cannot import: {o['error']}")
            continue
        rules = Counter(v.rule for v in o["violations"])
        click.echo(f"{o['file']:<{width}}  {o['events']:>6} events  LP {'ok' if o['lp'] else 'DIFFERS'}  "
                   f"winner {'ok' if o['winner'] else 'DIFFERS'}  "
                   + (", ".join(f"{r} x{n}" for r, n in sorted(rules.items())) or "no violation")
                   + (f"  -> {o['id']}" if o["id"] else ""))
    done = [o for o in outcomes if not o["error"]]
    by_rule = Counter(v.rule for o in done for v in o["violations"])
    click.echo("")
    click.echo(f"files {len(outcomes)}  imported {len(done)}  cannot import {len(outcomes) - len(done)}")
    if done:
        click.echo(f"LP agree {sum(o['lp'] for o in done)}/{len(done)}  winner agree "
                   f"{sum(o['winner'] for o in done)}/{len(done)}  events {sum(o['events'] for o in done)}")
    click.echo("violations by rule: " + (", ".join(f"{r} {n}" for r, n in by_rule.most_common()) or "none"))


def _resolve(store: Store, duel: str) -> str:
    try:
        return _guard(lambda: resolve_duel(store, duel, files=False))
    except SourceError as exc:
        raise Unreadable(str(exc)) from None


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
            legal = events[:v.index]
            if legal:
                _guard(lambda: store.append(duel_id, legal))
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
        rows = list(_guard(lambda: store.tree(_resolve(store, duel))))
        latest: list[int] = []                  # latest[L]: the row of the branch open at depth L
        for i, (depth, d) in enumerate(rows):
            latest[depth:] = [i]
            lines = ["    " if _last_sibling(rows, latest[level]) else "│   " for level in range(1, depth)]
            if depth:
                lines[:0] = ["    "]
                lines.append("└── " if _last_sibling(rows, i) else "├── ")
            count = len(_records(store, d.id))
            where = f"from event {d.branch_at}: " if d.parent else ""
            click.echo(f"{''.join(lines)}{d.id}  {where}{d.title} ({count} events)")


def _last_sibling(rows: list, i: int) -> bool:
    """Whether row ``i`` of a depth-first tree is the last child of its parent."""
    for depth, _ in rows[i + 1:]:
        if depth <= rows[i][0]:
            return depth < rows[i][0]
    return True


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
    for option, value in (("--judge", judge), ("--reason", reason)):
        if not value.strip():
            raise click.UsageError(f"{option} must not be empty: a rollback is signed and explained")
    with _open_store(store_url) as store:
        duel_id = _resolve(store, duel)
        length = _guard(lambda: store.append(duel_id, RolledBack(to=to, judge=judge, reason=reason)))
        click.echo(f"{duel_id}: rolled back to before event {to} by {judge}; "
                   f"events {to}..{length - 2} are marked reverted")


@main.command()
@click.argument("duel")
@click.option("--against", type=click.Path(dir_okay=False), default=None,
              help="A judge .ygr: prove that this view was derived from it, commitments included.")
@store_option
def verify(duel: str, against: str | None, store_url: str | None) -> None:
    """Check a stored duel's or a .ygr file's hash chain end to end; name the first broken link."""
    if Path(duel).is_file():
        if Path(duel).suffix.lower() in (".jsonl", ".json"):
            raise Unreadable(f"{duel}: a JSON Lines file has no hash chain to verify; check its rules with "
                             f"'ygoreplay check {duel}', or record it and verify the stored duel")
        try:
            replay = read_replay(duel)
            judge = read_replay(against) if against else None
        except ReplayFileError as exc:
            raise Unreadable(str(exc)) from None
        problems = verify_against(replay, judge) if judge else []
        bad = verify_chain(replay)
        if bad is not None and not judge:
            problems.append(f"hash chain broken at event {bad}")
        if problems:
            for p in problems:
                click.echo(f"{duel}: {p}")
            sys.exit(EXIT_ILLEGAL)
        click.echo(f"{duel}: ok, {len(replay.events)} events, hash chain intact"
                   + (f"; matches the judge record {against}, deck orders as committed" if judge else ""))
        return
    with _open_store(store_url) as store:
        duel_id = _resolve(store, duel)
        result = _guard(lambda: store.verify(duel_id))
    if result.ok:
        click.echo(f"{duel_id}: ok, {result.events} events, hash chain intact")
    else:
        where = "the duel header" if result.first_bad == -1 else f"event {result.first_bad}"
        click.echo(f"{duel_id}: BROKEN at {where}: {result.problem}")
        sys.exit(EXIT_ILLEGAL)


# -- deck check: .ydk files, ydke:// URLs, lflist.conf banlists (issue 5) -----------------------

from .decks import (  # noqa: E402  (kept with the command it serves)
    SECTION_NAMES, Banlist, BanlistFormatError, DeckFormatError, check_deck, read_deck, read_lflist)


@main.group()
def deck() -> None:
    """Decks in the formats players already have (.ydk files, ydke:// URLs)."""


def _pick_list(path: str, name: str | None) -> Banlist:
    """The --list NAME of an lflist.conf; the only list when there is one; else exit code 2."""
    try:
        lists = read_lflist(Path(path))
    except BanlistFormatError as exc:
        raise Unreadable(str(exc)) from None
    names = ", ".join(repr(n) for n in lists) or "none"
    if not lists:
        raise Unreadable(f"{path}: no banlist in this file (a list starts with a '!name' line)")
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
    raise Unreadable(f"{path}: no list named {name!r} (lists: {names})")


@deck.command(name="check")
@click.argument("deck_spec", metavar="DECK")
@click.option("--banlist", "banlist_file", type=click.Path(dir_okay=False), default=None,
              help="An lflist.conf: check DECK-08 (0/1/2 copies, $whitelist) against one of its lists.")
@click.option("--list", "list_name", default=None, metavar="NAME",
              help="Which list of the --banlist file (needed when it holds several).")
@cards_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
def deck_check(deck_spec: str, banlist_file: str | None, list_name: str | None,
               cards: str | None, as_json: bool) -> None:
    """Check a .ydk file or ydke:// URL against the deck rules.

    DECK is a .ydk path or a ydke:// URL. Card types decide between Main and Extra Deck (#extra is only a hint); each problem prints as
    '<RULE-ID> <message>'. Unknown passcodes are reported (CARD-01), never guessed. Exit code 0
    when legal, 1 on any problem, 2 when an input cannot be read.
    """
    if list_name is not None and banlist_file is None:
        raise click.UsageError("--list needs --banlist FILE")
    is_url = deck_spec.strip().lower().startswith("ydke://")
    label = "ydke URL" if is_url else deck_spec
    try:
        written = read_deck(deck_spec)
        db = CardDB.classic() if cards is None else CardDB.classic().merged(CardDB.from_cdb(cards))
    except (DeckFormatError, CardDBError) as exc:
        raise Unreadable(str(exc)) from None
    banlist = _pick_list(banlist_file, list_name) if banlist_file is not None else None
    checked, moves = written.sorted_by_type(db)
    problems = check_deck(checked, db, banlist)
    moved = [{"passcode": code, "name": db[code].name, "from": src, "to": dst}
             for code, src, dst in moves]
    sizes = checked.sizes()
    if as_json:
        click.echo(json.dumps({
            "deck": label, "sizes": sizes, "legal": not problems,
            "banlist": None if banlist is None else {
                "file": banlist_file, "list": banlist.name, "whitelist": banlist.whitelist},
            "moved": moved, "problems": [p.to_dict() for p in problems]}))
    else:
        for m in moved:
            click.echo(f"note: {m['name']} ({m['passcode']}) was written in the "
                       f"{SECTION_NAMES[m['from']]}; its card type puts it in the "
                       f"{SECTION_NAMES[m['to']]}", err=True)
        for p in problems:
            click.echo(str(p))
        verdict = "legal" if not problems else f"{len(problems)} problem(s)"
        against = f"; banlist {banlist.name!r}" if banlist is not None else ""
        click.echo(f"{label}: {verdict}; Main {sizes['main']}, Extra {sizes['extra']}, "
                   f"Side {sizes['side']}{against}")
    sys.exit(EXIT_ILLEGAL if problems else 0)

