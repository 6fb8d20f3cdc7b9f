"""The ``ygoreplay`` command: a thin face over the application layer (``application.py``).

Exit codes: 0 success, 1 a rule was broken or a record failed verification, 2 the input could not
be read or an output written (or a bad argument), 3 another writer got to the duel first, 4 an
internal error (a bug: please report it), 130 interrupted. Errors are mapped to these in one
place (``_Group.invoke``); every line printed goes through ``echo``, which escapes control
characters so that no file can rewrite a judge's terminal.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sys
from collections import Counter
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Iterator

import click

from ..access import RELEASES, release_settings
from ..application import (
    Records, audit_source, branch_after, check as check_events, cpus, duel_dict, export_file, import_replay_file,
    import_replay_files, offline_page, record_file, trust_of, trusted_keys, verify_file)
from ..card_sources import CARDS_ENV, CardLookup, card_lookup, facts_of
from .common import (
    EXIT_ILLEGAL, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_UNREADABLE, echo, pick_list as _pick_list,
    signing_key as _signing_key)
from ..cards import CardDB
from ..diff import diff_states
from ..errors import ConflictError, InputError, YgoreplayError
from ..files import write_atomic
from ..jsonl import parse_lines, read_events
from ..log import EntryFilter, log_lines, narrate
from ..receipts import WITNESS_ENV, Receipt, Witness, read_receipts, save_receipt, witness_from
from ..replay_file import file_mode, read as read_replay, write as write_replay
from ..rules import RuleViolation
from ..rules.coverage import counts as rule_counts, select as select_rules
from ..signing import default_key_path
from ..source import Source, SourceError, is_edopro_replay, is_replay_file, open_source, resolve_duel
from ..state import DuelState
from ..study import Study
from ..store import MissingStore, Store
from ..text import number, printable
from ..views import VIEWS
from . import match as match_cli

def terminal_width() -> int:
    """The terminal's width when stdout is one (the board uses it), else the 80 columns a file or
    a pipe gets."""
    if sys.stdout.isatty():
        return shutil.get_terminal_size((80, 24)).columns
    return 80


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush does not fail again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


class _Group(click.Group):
    def main(self, *args, **kwargs):
        for stream in (sys.stdout, sys.stderr):       # a lone surrogate never ends in a traceback
            if hasattr(stream, "reconfigure"):
                stream.reconfigure(errors="backslashreplace")
        return super().main(*args, **kwargs)

    def invoke(self, ctx: click.Context):
        try:
            try:
                return super().invoke(ctx)
            finally:
                sys.stdout.flush()                     # a full disk or a closed pipe shows here
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except YgoreplayError as exc:
            label = "conflict" if isinstance(exc, ConflictError) else "error"
            echo(str(exc) if isinstance(exc, RuleViolation) else f"{label}: {exc}", err=True)
            sys.exit(exc.exit_code)
        except BrokenPipeError:
            # The reader stopped early (``ygoreplay log DUEL | head``): not an error, exit 0.
            _silence_stdout()
            sys.exit(0)
        except KeyboardInterrupt:
            echo("interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except OSError as exc:
            _silence_stdout()
            echo(f"error: cannot write the output ({exc.strerror or exc})", err=True)
            sys.exit(EXIT_UNREADABLE)
        except Exception as exc:                       # a bug: say so, and how to see more
            if os.environ.get("YGOREPLAY_DEBUG"):
                raise
            echo(f"internal error: {type(exc).__name__}: {printable(str(exc))[:300]} (this is a bug in "
                 "ygoreplay; set YGOREPLAY_DEBUG=1 to see where)", err=True)
            sys.exit(EXIT_INTERNAL)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ygoreplay")
def main() -> None:
    """Record, check and replay Yu-Gi-Oh! duels as event logs."""


cards_option = click.option(
    "--cards", "cards", multiple=True, type=click.Path(dir_okay=False), metavar="CARDS.CDB",
    help="A cards.cdb for the names and facts of cards the duel does not carry (repeatable: a later "
         "file wins). Then $YGOREPLAY_CARDS, a local EDOPro/YGOPro install, the bundled classic set.")
store_option = click.option(
    "--store", "store_url", envvar="YGOREPLAY_STORE", default=None, metavar="URL",
    help="SQLite file or postgresql://user@host:port/db (default: $YGOREPLAY_STORE, else "
         "~/.local/share/ygoreplay/duels.sqlite).")
view_option = click.option("--view", "view", type=click.Choice(VIEWS), default=None,
                           help="See the duel as a player or a spectator saw it (default: the file's view).")
witness_option = click.option(
    "--witness", "witness_url", envvar=WITNESS_ENV, default=None, metavar="URL",
    help="A second store (SQLite file or postgresql://...?schema=NAME) that keeps every write's signed "
         "head: a store behind it fails verify (default: $YGOREPLAY_WITNESS).")
receipt_out_option = click.option(
    "--receipt", "receipt_path", type=click.Path(), default=None, metavar="FILE",
    help="Save the write's signed receipt here (a folder: as DUEL-EVENTS.json in it); keep it to prove "
         "later, with verify --receipt, that the store was not cut back.")
key_option = click.option("--key", "keys", multiple=True, metavar="PUBLIC_KEY",
                          help="Trust signatures by this key (ed25519:... or a key file); the local "
                               "organiser key is always trusted. Repeatable.")


def _card_db(cards: tuple[str, ...] = ()) -> CardLookup:
    return card_lookup(cards)


def _load(path: str, cards: tuple[str, ...]) -> tuple[list, CardDB]:
    """Events and card facts of a JSON Lines file (``-`` is standard input)."""
    lookup = _card_db(cards)
    passcode = lookup.passcode
    if path == "-":
        events = list(parse_lines(sys.stdin, "<stdin>", passcode))
    else:
        try:
            events = read_events(path, passcode)
        except OSError as exc:
            raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if not events:
        raise InputError(f"{path}: no events (the file is empty or holds only comments)")
    return events, facts_of(events, lookup)


@contextmanager
def _store(url: str | None, *, readonly: bool = False, create: bool = False,
           cards: CardDB | None = None, keys: tuple[str, ...] = ()) -> Iterator[Store]:
    key = None if readonly else _signing_key()
    store = Store(url, cards, key=key, readonly=readonly, create=create, trust=trusted_keys(keys) if keys else ())
    try:
        yield store
    finally:
        store.close()


@contextmanager
def _witness(url: str | None) -> Iterator[Witness | None]:
    witness = witness_from(url)
    try:
        yield witness
    finally:
        if witness is not None:
            witness.close()


def _receipt_kept(receipt: Receipt, path: str | None, witness: Witness | None) -> None:
    """Save a write's receipt where asked; say when the witness did not take it."""
    if path:
        save_receipt(receipt, path)
    if receipt.witnessed is False and witness is not None:
        echo(f"warning: the witness {witness.name} cannot be reached: this write is not witnessed "
             "(its receipt still proves it)", err=True)


@contextmanager
def _opened(spec: str, store_url: str | None, cards: tuple[str, ...] = ()) -> Iterator[Source]:
    """Open a .jsonl or .ygr file, or a duel of the store (read-only)."""
    db = _card_db(cards)
    if Path(spec).is_file():
        yield open_source(spec, None, db)
        return
    with _store(store_url, readonly=True) as store:
        yield open_source(spec, store, db)


def _resolve(store: Store, duel: str) -> str:
    return resolve_duel(store, duel, files=False)


def _position(events: list, at: int | None, turn: int | None, what: str) -> int:
    """The event index to show: --at N, the start of --turn T, or the last event."""
    if at is not None and turn is not None:
        raise click.UsageError("give --at or --turn, not both")
    if not events:
        raise InputError(f"{what}: the duel has no events")
    if turn is not None:
        starts = [i for i, e in enumerate(events) if e.kind == "turn_started" and e.turn == turn]
        if not starts:
            raise InputError(f"{what}: the duel has no turn {turn}")
        return starts[0]
    if at is None:
        return len(events) - 1
    if not 0 <= at < len(events):
        raise InputError(f"{what}: --at {at} is outside the duel's events 0..{len(events) - 1}")
    return at


# -- check and study --------------------------------------------------------------------------------

@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@cards_option
def check(file: str, as_json: bool, cards: tuple[str, ...]) -> None:
    """Fold a JSON Lines duel (or a judge .ygr file, or an EDOPro .yrpX replay) through the rules
    and list every violation."""
    if match_cli.handles(file):                                 # a match file (issue 14)
        return match_cli.run("check", file, as_json=as_json, cards=cards)
    if Path(file).is_file() and (is_replay_file(Path(file)) or is_edopro_replay(Path(file))):
        with _opened(file, None, cards) as source:
            if source.view != "judge":
                raise InputError(f"{file}: a {source.view} view lacks the hidden cards, so its rules "
                                 f"cannot be checked; check the judge file (audit checks this one's chain)")
            events, db = source.events, source.cards
    else:
        events, db = _load(file, cards)
    report = check_events(events, db)
    if as_json:
        echo(json.dumps(report.to_dict()))
    else:
        data = report.to_dict()
        for v in data["violations"]:
            echo(f"#{v['index']} {v['rule']} {v['message']}")
        for o in data["overrides"]:
            cite = o["cite"]
            echo(f"#{o['index']} {o['rule']} set aside by {cite['card']}"
                 f"{': ' + cite['effect'] if cite['effect'] else ''} ({o['message']})")
        final, state = data["final"], report.report.state
        verdict = "legal" if report.legal else f"{len(data['violations'])} violation(s)"
        result = ("a draw" if final["winner"] is None else f"player {final['winner']} won") \
            if state.ended else "not finished"
        echo(f"{file}: {verdict}; {data['events']} events, turn {final['turn']}, "
             f"LP {final['lp'][0]} / {final['lp'][1]}, {result}"
             + (f" ({final['reason']})" if state.ended else ""))
        cited = sorted({v["rule"] for v in data["violations"]} | {o["rule"] for o in data["overrides"]})
        if cited:
            echo("what a rule says and where it is checked: ygoreplay rules " + " ".join(cited))
    sys.exit(0 if report.legal else EXIT_ILLEGAL)


@main.command(name="rules")
@click.argument("queries", nargs=-1, metavar="[ID|SECTION]...")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
def rules_command(queries: tuple[str, ...], as_json: bool) -> None:
    """What each rule of the catalogue says, and whether and where it is enforced.

    ID is a rule ID (SUM-04), SECTION its prefix (SUM); none lists every rule. Exit code 2 for
    an ID or section the catalogue does not have."""
    chosen = []
    for query in queries or (None,):
        found = select_rules(query)
        if not found:
            raise InputError(f"no rule {query!r} in the catalogue (an ID such as SUM-04, or a section "
                             f"such as SUM; `ygoreplay rules` lists them all)")
        chosen += [rule for rule in found if rule not in chosen]
    if as_json:
        echo(json.dumps({"rules": [rule.to_dict() for rule in chosen], "counts": rule_counts()}))
        return
    for rule in chosen:
        echo(f"{rule.id} {rule.summary} [{rule.describe()}]")
    if not queries:
        echo(f"{len(chosen)} rules: " + ", ".join(f"{n} {status}" for status, n in rule_counts().items()))


@main.command()
@click.argument("duel")
@click.option("--at", "at", type=int, default=None, help="Show the board after event N (0-based).")
@click.option("--turn", "turn", type=int, default=None, help="Show the board at the start of turn T.")
@view_option
@cards_option
@store_option
def show(duel: str, at: int | None, turn: int | None, view: str | None, cards: tuple[str, ...],
         store_url: str | None) -> None:
    """Print the board after an event (default: the last) of a .jsonl or .ygr file or a stored duel."""
    if match_cli.handles(duel):
        return match_cli.run("show", duel, cards=cards)
    from ..render import render                  # rich: only for the commands that draw a board
    with _opened(duel, store_url, cards) as source:
        index = _position(source.events, at, turn, source.name)
        state = source.state_after(index, view)
        echo(render(state, f"after event #{index} ({source.events[index].kind})"
                    + (f", {view or source.view} view" if (view or source.view) != "judge" else ""),
                    width=terminal_width()), nl=False)


@main.command()
@click.argument("duel")
@view_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per event (JSON Lines).")
@click.option("--turn", "turns", default=None, metavar="T[-U]", help="Only the events of turn T (or turns T to U).")
@click.option("--card", "card", default=None, metavar="NAME",
              help="Only the events naming a card whose name holds NAME (any case), or the card of that id.")
@click.option("--player", "player", default=None, metavar="P",
              help="Only the events about player P: 0, 1, p0, p1 or part of the player's name.")
@cards_option
@store_option
def log(duel: str, view: str | None, as_json: bool, turns: str | None, card: str | None, player: str | None,
        cards: tuple[str, ...], store_url: str | None) -> None:
    """The duel as readable text, one line per event, grouped by turn and phase; every line says
    its turn and phase (T4 BP), every LP change its cause and the LP after it."""
    if match_cli.handles(duel):
        return match_cli.run("log", duel, as_json=as_json, cards=cards)
    with _opened(duel, store_url, cards) as source:
        keep = EntryFilter(_turn_range(turns), card, _player_of(source, player))
        entries = narrate(source.steps(view), source.reverted)
        if as_json:
            for entry in entries:
                if not keep or keep.keeps(entry):
                    echo(json.dumps(entry.to_dict(), ensure_ascii=False))
            return
        for line in log_lines(entries, keep):
            echo(line)


def _turn_range(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    first, _, last = text.partition("-")
    a, b = number(first.strip()), number(last.strip()) if last else number(first.strip())
    if a is None or b is None or a > b:
        raise click.UsageError(f"--turn {printable(text)}: write a turn (4) or a range of turns (3-5)")
    return a, b


def _player_of(source: Source, text: str | None) -> int | None:
    """0 or 1 from '0', 'p1' or part of a player's name (which must name one player only)."""
    if text is None:
        return None
    plain = text.strip().casefold().removeprefix("p")
    if plain in ("0", "1"):
        return int(plain)
    names = next((e.players for e in source.events if e.kind == "duel_started"), ())
    matches = [i for i, name in enumerate(names) if text.casefold() in name.casefold()]
    if len(matches) != 1:
        known = ", ".join(f"{i} ({printable(n)})" for i, n in enumerate(names)) or "0, 1"
        raise click.UsageError(f"--player {printable(text)}: " + ("names both players" if matches else
                               "no player has that name") + f"; the players are {known}")
    return matches[0]


PLAY_HELP = ("n/Enter next · p previous · j N jump to event N · t T jump to turn T · f TEXT find the next "
             "event naming TEXT · v VIEW switch view (judge, p0, p1, spectator) · q quit")


@main.command()
@click.argument("duel")
@view_option
@click.option("--plain", is_flag=True,
              help="Read commands line by line from standard input (what play does when it is not a terminal).")
@cards_option
@store_option
def play(duel: str, view: str | None, plain: bool, cards: tuple[str, ...], store_url: str | None) -> None:
    """Step through a duel in the terminal: arrow keys for events, Shift+arrows for turns, g to go
    to an event, a turn or a card, / to search, v to switch view; the board redrawn in place with
    what each event changed marked. Without a terminal, one command a line (--plain)."""
    with _opened(duel, store_url, cards) as source:
        study = Study(source, view)
        if not plain and sys.stdin.isatty() and sys.stdout.isatty():
            from ..tui import PlayApp
            PlayApp(study).run()
            return
        _play_lines(study)


def _play_lines(study: Study) -> None:
    """``play`` one command a line: each answer a heading and the board after the event."""
    from ..render import render
    while True:
        entry = study.entry
        echo(f"event #{study.index}/{study.last}: {entry.text} [{study.view} view]")
        echo(render(study.state(), width=terminal_width()))
        try:
            command = click.prompt(PLAY_HELP, default="n", show_default=False).strip()
        except click.Abort:                  # end of input (or Ctrl-C): quit, as 'q' does
            echo("")
            return
        word, _, arg = command.partition(" ")
        arg = arg.strip()
        if word in ("q", "quit"):
            return
        if word in ("n", "next", ""):
            study.step(1)
        elif word in ("p", "prev", "previous"):
            study.step(-1)
        elif word in ("j", "jump") and number(arg) is not None:
            if number(arg) > study.last:
                echo(f"no event {number(arg)}: the last is #{study.last}")
            study.go(number(arg))
        elif word in ("t", "turn") and number(arg) is not None:
            try:
                study.turn_start(number(arg))
            except SourceError as exc:
                echo(str(exc))
        elif word in ("f", "find") and arg:
            if study.find(arg) is None:
                echo(f"no other event names {arg!r}")
        elif word in ("v", "view") and arg in VIEWS:
            try:
                study.switch(arg)
            except SourceError as exc:
                echo(f"cannot switch: {exc}")
        else:
            echo(f"unknown command {command!r}" + (f" (views: {', '.join(VIEWS)})" if word in ("v", "view") else ""))


@main.command(name="audit")
@click.argument("duel")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@key_option
@witness_option
@cards_option
@store_option
def audit_command(duel: str, as_json: bool, keys: tuple[str, ...], witness_url: str | None, cards: tuple[str, ...],
                  store_url: str | None) -> None:
    """Re-check every event with the rules, verify the record, list overrides and rollbacks."""
    if match_cli.handles(duel):
        return match_cli.run("audit", duel, as_json=as_json, cards=cards, keys=keys)
    if Path(duel).is_file():
        with _opened(duel, None, cards) as source:
            result = audit_source(source, None, trusted_keys(keys))
    else:
        with _store(store_url, readonly=True, keys=keys) as store, _witness(witness_url) as witness:
            source = open_source(duel, store, _card_db(cards))
            result = audit_source(source, store, trusted_keys(keys), witness)
    data = result.to_dict()
    if as_json:
        echo(json.dumps(data))
        sys.exit(0 if result.ok else EXIT_ILLEGAL)
    for v in data["violations"]:
        echo(f"#{v['index']} {v['rule']} {v['message']}")
    for o in data["overrides"]:
        echo(f"#{o['index']} {o['rule']} set aside by {o['cite']['card']} ({o['message']})")
    for r in data["rollbacks"]:
        echo(f"#{r['index']} rollback to before event {r['to']} by {printable(r['judge'])}: {printable(r['reason'])}")
    if result.chain == "none":
        echo("hash chain: none (a JSON Lines file has no hash chain; record or export it for one)")
    elif result.chain != "broken":
        echo("hash chain: intact" + (" and anchored" if result.chain == "anchored" else ""))
    else:
        first_bad = result.first_bad
        where = "the header" if first_bad == -1 else f"event {first_bad}" if first_bad is not None else "its anchor"
        echo(f"hash chain: BROKEN at {where}" + (f": {result.problem}" if result.problem else ""))
    if result.signature is not None:
        echo(f"signature: {result.signature.describe()}")
    if result.report is None:
        echo(f"rules: not re-checked (a {source.view} view lacks the hidden cards)")
    state = result.state
    if state:
        outcome = "not finished" if not state.ended else (
            "a draw" if state.winner is None else f"player {state.winner} won")
        echo(f"{source.name}: {len(data['violations'])} violation(s), {len(data['overrides'])} override(s), "
             f"{len(data['rollbacks'])} rollback(s); LP {state.sides[0].lp} / {state.sides[1].lp}, {outcome}"
             + (f" ({state.end_reason})" if state.ended else ""))
    sys.exit(0 if result.ok else EXIT_ILLEGAL)


# -- share --------------------------------------------------------------------------------------------

@main.command(name="export")
@click.argument("duel")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False), required=True)
@click.option("--html", "html", is_flag=True,
              help="Write one self-contained web page of the view (it opens from file://, with no network).")
@view_option
@key_option
@cards_option
@store_option
def export_command(duel: str, output: str, html: bool, view: str | None, keys: tuple[str, ...], cards: tuple[str, ...],
                   store_url: str | None) -> None:
    """Write a stored duel, a .jsonl file or a .ygr file as a signed .ygr replay file for one view
    (or, with --html, as a web page of it)."""
    if match_cli.handles(duel) and not html:
        return match_cli.run("export", duel, cards=cards, output=output)
    if Path(duel).is_file():
        with _opened(duel, None, cards) as source:
            view = view or source.view              # a view file gives its own view by default
            if source.replay is not None:
                replay = export_file(source.replay, view, trusted_keys(keys))
            else:
                replay = record_file(source.events, source.cards, view, printable(Path(duel).name))
    else:
        view = view or "judge"
        with _store(store_url, readonly=True) as store:
            replay = Records(store).export(_resolve(store, duel), view)
    if html:
        name = Path(output).with_suffix(f".{view}.ygr").name
        size = write_atomic(output, offline_page(replay, _signing_key(), name).encode(), file_mode(replay))
        echo(f"{output}: a web page of {len(replay.events)} events, {view} view, {size} bytes "
             f"(the signed replay file inside); open it in a browser")
        return
    size = write_replay(output, replay, _signing_key())
    echo(f"{output}: {len(replay.events)} events, {len(replay.cards)} cards, {view} view, {size} bytes, signed")


@main.command(name="import")
@click.argument("path", type=click.Path(exists=True))
@click.option("-o", "--output", "output", type=click.Path(), default=None,
              help="Write signed .ygr judge file(s) here (a file, or a folder for a folder of replays) "
                   "instead of recording into the store.")
@click.option("--title", default=None)
@click.option("--json", "as_json", is_flag=True, help="Print the results per file as JSON.")
@click.option("--unsigned", is_flag=True, help="Import a .ygr judge file that no trusted key signed, "
                                                "as an unverified record.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="With -o and a folder: import in this many processes at once (default: one per CPU; "
                   "1: in this process). The results are the same, in the same order.")
@key_option
@cards_option
@store_option
def import_command(path: str, output: str | None, title: str | None, as_json: bool, unsigned: bool,
                   jobs: int | None, keys: tuple[str, ...], cards: tuple[str, ...], store_url: str | None) -> None:
    """Import a .ygr judge file, an EDOPro .yrpX replay, or a folder of replays.

    A .ygr file is verified first (its chain, and a signature by a trusted key). EDOPro replays
    are turned into our events, every one kept, and folded through the rules; the summary compares
    each duel's final LP and winner with the replay's own, and its board with the engine's own
    state packets at every one of them (zones agreeing, the first divergence), and counts
    violations by rule ID. A replay already in the store (the same file) is skipped.
    """
    source = Path(path)
    if source.is_file() and source.suffix.lower() in (".jsonl", ".json"):
        raise InputError(f"{path}: a JSON Lines duel, not a replay file: record it with 'ygoreplay record {path}'")
    if output and source.is_dir() and Path(output).exists() and not Path(output).is_dir():
        raise InputError(f"{output}: not a folder (-o names a folder when importing a folder of replays)")
    if source.is_file() and is_replay_file(source):
        replay = read_replay(source)
        with _store(store_url, create=True) as store:
            done = Records(store).import_replay(replay, title, trusted_keys(keys), unsigned)
        echo(json.dumps([{"file": source.name, **done.to_dict()}]) if as_json else str(done.id))
        if done.skipped and not as_json:
            echo(f"{source.name}: already stored as {done.id} (imported before): skipped", err=True)
        return
    files = sorted(p for p in source.iterdir() if p.suffix.lower() in (".yrpx", ".yrp")) \
        if source.is_dir() else [source]
    if not files:
        raise InputError(f"{path}: no .yrpX replays here")
    names = _card_db(cards)
    outcomes: list[dict] = []
    key = _signing_key()
    interrupted = False
    with (_store(store_url, create=True) if not output else _nothing()) as store:
        records = Records(store) if store is not None else None
        known = records.sources() if records is not None else None
        if output:
            targets = [Path(output) / (file.stem + ".ygr") if source.is_dir() or Path(output).is_dir()
                       else Path(output) for file in files]
            results = import_replay_files(files, targets, names, title, key=key, cards=cards,
                                          jobs=jobs or cpus())
        else:
            results = (import_replay_file(file, names, title, records=records, known=known, key=key)
                       for file in files)
        try:
            with closing(results), click.progressbar(files, label="importing", file=sys.stderr, show_pos=True,
                                                     item_show_func=lambda p: p.name if p else "") as bar:
                for _file in bar:
                    outcomes.append(next(results).to_dict())
        except KeyboardInterrupt:
            interrupted = True
    if as_json:
        echo(json.dumps(outcomes))
    else:
        _import_summary(outcomes)
    if interrupted:
        echo(f"interrupted: {len(outcomes)} of {len(files)} file(s) done; run the same command again to "
             "import the rest (files already stored are skipped)", err=True)
        sys.exit(EXIT_INTERRUPTED)
    failed = any(o["error"] for o in outcomes)
    illegal = any(o["violations"] or not (o["lp"] and o["winner"]) for o in outcomes
                  if not o["error"] and not o["skipped"])
    sys.exit(EXIT_UNREADABLE if failed else EXIT_ILLEGAL if illegal else 0)


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


def _import_summary(outcomes: list[dict]) -> None:
    """One line per file (with its board's agreement with the engine's state packets, and the
    first divergence if any), then the totals: files, imported, LP and winner agreement, files
    whose board agrees with the engine everywhere, zones agreeing, rule IDs."""
    if not outcomes:
        return
    width = max(len(o["file"]) for o in outcomes)
    for o in outcomes:
        if o["error"]:
            echo(f"{printable(o['file']):<{width}}  cannot import: {o['error']}")
            continue
        if o["skipped"]:
            echo(f"{printable(o['file']):<{width}}  already stored as {o['id']} ({o['events_stored']} events): skipped")
            continue
        rules = Counter(v["rule"] for v in o["violations"])
        stored = "" if o["events_stored"] == o["events_read"] else f" ({o['events_stored']} stored)"
        echo(f"{printable(o['file']):<{width}}  {o['events_read']:>6} events{stored}  "
             f"LP {'ok' if o['lp'] else 'DIFFERS'}  winner {'ok' if o['winner'] else 'DIFFERS'}  "
             + (", ".join(f"{r} x{n}" for r, n in sorted(rules.items())) or "no violation")
             + (f"  engine {_engine_figure(o['engine'])}" if o.get("engine") else "")
             + (f"  -> {o['id']}" if o["id"] else ""))
        first = (o.get("engine") or {}).get("first_divergence")
        if first:
            echo(f"    first divergence from the engine: packet {first['packet']}, turn {first['turn']}: player "
                 f"{first['player']}'s {printable(first['zone'])}: engine {printable(first['engine'])}, "
                 f"ours {printable(first['ours'])}")
    done = [o for o in outcomes if not o["error"] and not o["skipped"]]
    skipped = sum(o["skipped"] for o in outcomes)
    errors = sum(1 for o in outcomes if o["error"])
    by_rule = Counter(v["rule"] for o in done for v in o["violations"])
    echo("")
    echo(f"files {len(outcomes)}  imported {len(done)}  cannot import {errors}"
         + (f"  already stored {skipped}" if skipped else ""))
    if done:
        echo(f"LP agree {sum(o['lp'] for o in done)}/{len(done)}  winner agree "
             f"{sum(o['winner'] for o in done)}/{len(done)}  events {sum(o['events_read'] for o in done)}")
        checked = [o["engine"] for o in done if o.get("engine")]
        zones = sum(e["zones"] for e in checked)
        agreeing = sum(e["zones_agreeing"] for e in checked)
        echo(f"board agrees with the engine everywhere: {sum(e['first_divergence'] is None for e in checked)}/"
             f"{len(checked)} files  zones agree {agreeing}/{zones} ({100 * agreeing / zones if zones else 100:.3f}%)")
    echo("violations by rule: " + (", ".join(f"{r} {n}" for r, n in by_rule.most_common()) or "none"))


def _engine_figure(engine: dict) -> str:
    """A file's board against the engine's state packets: the share of zones agreeing."""
    share = 100 * engine["zones_agreeing"] / engine["zones"] if engine["zones"] else 100
    return f"{'ok' if engine['first_divergence'] is None else 'DIFFERS'} {share:.3f}% ({engine['zones_agreeing']}/{engine['zones']} zones)"


# -- record and change ----------------------------------------------------------------------------------

@main.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--title", default=None, help="A title for the duel (default: the file name).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (id, counts, signed receipt).")
@receipt_out_option
@witness_option
@click.option("--release", type=click.Choice(RELEASES), default=None,
              help="When what the duel hid becomes everyone's once it is served: at its end, at the event's "
                   "end (a time, or 'ygoreplay release'), or never (default: event with --event, else end).")
@click.option("--event", default=None, metavar="NAME", help="The event (tournament) it is a duel of.")
@click.option("--release-at", default=None, metavar="TIME",
              help="With the event policy: when the event ends (2026-05-01T18:00:00+00:00).")
@cards_option
@store_option
def record(file: str, title: str | None, as_json: bool, receipt_path: str | None, witness_url: str | None,
           release: str | None, event: str | None, release_at: str | None,
           cards: tuple[str, ...], store_url: str | None) -> None:
    """Record a JSON Lines duel into the store and print its id (only the id, on stdout).

    Stops at the first illegal event: the legal events before it stay recorded, the violation is
    printed on stderr, and the exit code is 1 (no duel is created when nothing before it is legal).
    """
    settings = release_settings(release, event, release_at)
    events, db = _load(file, cards)
    with _store(store_url, create=True, cards=db) as store, _witness(witness_url) as witness:
        done = Records(store, witness).record(events, title or printable(Path(file).name), release=settings)
        if done.receipt is not None:
            _receipt_kept(done.receipt, receipt_path, witness)
    if as_json:
        echo(json.dumps(done.to_dict()))
    elif done.id:
        echo(done.id)
    if done.violation is not None:
        v = done.violation
        echo(f"#{v.index} {v.rule} {v.message}", err=True)
        echo(f"recorded the {done.stored} legal event(s) before it" if done.id else
             "nothing was recorded: the first event is not legal", err=True)
        sys.exit(EXIT_ILLEGAL)


@main.command()
@click.argument("duel")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--expected", type=int, default=None, help="Refuse (exit 3) unless the duel has exactly N events.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (id, events, signed receipt).")
@receipt_out_option
@witness_option
@cards_option
@store_option
def append(duel: str, file: str, expected: int | None, as_json: bool, receipt_path: str | None,
           witness_url: str | None, cards: tuple[str, ...], store_url: str | None) -> None:
    """Add the events of a JSON Lines file (or - for standard input) to a stored duel or branch,
    checking each; all or nothing. Prints the new number of events."""
    events, db = _load(file, cards)
    with _store(store_url, cards=db) as store, _witness(witness_url) as witness:
        duel_id = _resolve(store, duel)
        receipt = Records(store, witness).append(duel_id, events, expected)
        _receipt_kept(receipt, receipt_path, witness)
    echo(json.dumps({"id": duel_id, "events": receipt.events, **receipt.fields()}) if as_json else str(receipt.events))


@main.command()
@click.argument("duel")
@click.argument("text")
@click.option("--judge", required=True, help="The judge's name.")
@click.option("--category", type=click.Choice(("call", "ruling", "penalty", "warning", "note", "time")),
              default="note")
@store_option
def note(duel: str, text: str, judge: str, category: str, store_url: str | None) -> None:
    """A judge's note (a call, a ruling, a warning…) added to a stored duel's record."""
    with _store(store_url) as store:
        duel_id = _resolve(store, duel)
        length = Records(store).note(duel_id, judge, text, category)
    echo(f"{duel_id}: {category} by {judge} recorded as event {length - 1}")


@main.command(name="release")
@click.argument("duel")
@store_option
def release_command(duel: str, store_url: str | None) -> None:
    """The organiser's call that the event has ended: a duel under the event release policy
    releases what it hid (hands, deck orders) to every reader of the service, once it has ended."""
    with _store(store_url) as store:
        duel_id = _resolve(store, duel)
        Records(store).release(duel_id)
    echo(f"{duel_id}: released: once it has ended, every reader may see what it hid (?view=judge)")


@main.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array of duels.")
@click.option("--player", default=None, help="Only duels with a player whose name contains this.")
@click.option("--since", default=None, metavar="DATE", callback=lambda c, p, v: _date(p, v),
              help="Only duels recorded on or after DATE (YYYY-MM-DD; 2026-01 is the month).")
@click.option("--until", default=None, metavar="DATE", callback=lambda c, p, v: _date(p, v),
              help="Only duels recorded on or before DATE (YYYY-MM-DD; 2026 is the year).")
@witness_option
@store_option
def list_duels(as_json: bool, player: str | None, since: str | None, until: str | None, witness_url: str | None,
               store_url: str | None) -> None:
    """List the duels in the store: date, events, status and result, players, title, branches.
    Read from each duel's header and signed anchor, without decoding its events; with a witness,
    a duel behind the head it kept is marked."""
    behind: dict[str, str] = {}
    try:
        with _store(store_url, readonly=True) as store, _witness(witness_url) as witness:
            records = Records(store, witness)
            duels = records.duels(player, since, until)
            behind = {d.id: records.behind_witness(d.id) for d in duels} if witness else {}
            name = store.name
    except MissingStore as missing:
        duels, name = [], f"{missing.name} (no store there yet)"
    if as_json:
        echo(json.dumps([{**duel_dict(d), **({"behind_witness": behind[d.id] or None} if behind else {})}
                         for d in duels]))
        return
    if not duels:
        echo(f"no duels in {name}" + (" that match" if player or since or until else ""))
    branches = Counter(d.parent for d in duels if d.parent)
    for d in duels:
        data = duel_dict(d)
        players = " vs ".join(printable(str(p)) for p in data["players"]) or "players unknown"
        result = data["result"]
        status = (("a draw" if result["winner"] is None else
                   f"{printable(str((data['players'] + ['player 0', 'player 1'])[result['winner']]))} won")
                  + f" ({result['reason']})") if result else data["status"]
        family = (f"  branch of {d.parent} after event #{branch_after(d)}" if d.parent and d.parent not in d.title
                  else "") + (
            f"  {branches[d.id]} branch(es)" if branches[d.id] else "")
        flags = ("" if d.signed else "  (anchor signature does not hold: run verify)") + (
            "  (BEHIND ITS WITNESS: run verify)" if behind.get(d.id) else "") + (
            "  (origin unverified)" if d.source.get("unverified") else "")
        echo(f"{d.id}  {d.created[:16].replace('T', ' ')}  {d.events:>6} events  {status:<22}  {players}  "
             f"{printable(d.title)}{family}{flags}")


def _date(option: click.Parameter, value: str | None) -> str | None:
    """A day, a month or a year (``2026-01-05``, ``2026-01``, ``2026``), checked."""
    if value is None:
        return None
    if not re.fullmatch(r"\d{4}(-\d{2}(-\d{2})?)?", value.strip()):
        raise click.BadParameter(f"{printable(value)} is not a date: write YYYY-MM-DD (or YYYY-MM, YYYY)",
                                 param_hint=f"--{option.name}")
    return value.strip()


@main.command()
@click.argument("duel")
@click.option("--at", "at", type=int, required=True,
              help="Keep events #0..#N: the branch starts from the board after event #N (as show --at N).")
@click.option("--title", default="", help="A title for the branch.")
@store_option
def branch(duel: str, at: int, title: str, store_url: str | None) -> None:
    """Start a new duel from the board after event #N of DUEL (the parent is untouched); print its id."""
    with _store(store_url) as store:
        echo(Records(store).branch(_resolve(store, duel), at, title))


@main.command()
@click.argument("duel")
@store_option
def tree(duel: str, store_url: str | None) -> None:
    """Show DUEL's family of branches, like the variations of a game."""
    with _store(store_url, readonly=True) as store:
        rows = store.tree(_resolve(store, duel))
    latest: list[int] = []                  # latest[L]: the row of the branch open at depth L
    for i, (depth, d) in enumerate(rows):
        latest[depth:] = [i]
        lines = ["    " if _last_sibling(rows, latest[level]) else "│   " for level in range(1, depth)]
        if depth:
            lines[:0] = ["    "]
            lines.append("└── " if _last_sibling(rows, i) else "├── ")
        where = f"after event #{branch_after(d)}: " if d.parent else ""
        echo(f"{''.join(lines)}{d.id}  {where}{printable(d.title)} ({d.events} events)")


def _last_sibling(rows: list, i: int) -> bool:
    """Whether row ``i`` of a depth-first tree is the last child of its parent."""
    for depth, _ in rows[i + 1:]:
        if depth <= rows[i][0]:
            return depth < rows[i][0]
    return True


def _state_of(store: Store, spec: str) -> tuple[str, DuelState]:
    """DUEL or DUEL@N (the board after event #N, as show --at N)."""
    name, _, at = spec.partition("@")
    duel_id = _resolve(store, name)
    if at and number(at) is None:
        raise click.UsageError(f"{printable(spec)}: write DUEL or DUEL@N")
    return f"{duel_id}{'@' + at if at else ''}", Records(store).state(duel_id, number(at) if at else None)


@main.command()
@click.argument("a")
@click.argument("b")
@store_option
def diff(a: str, b: str, store_url: str | None) -> None:
    """How two boards differ (DUEL or DUEL@N each: after event #N): LP, cards by zone, chain, phase."""
    with _store(store_url, readonly=True) as store:
        (name_a, state_a), (name_b, state_b) = _state_of(store, a), _state_of(store, b)
    rows = diff_states(state_a, state_b)
    if not rows:
        echo(f"{name_a} and {name_b} are the same position")
    for place, left, right in rows:
        echo(f"{place}:\n  {name_a}: {printable(left)}\n  {name_b}: {printable(right)}")


@main.command()
@click.argument("duel")
@click.option("--to", "to", type=int, required=True, help="Back up to the state before event N.")
@click.option("--judge", required=True, help="The judge's name.")
@click.option("--reason", required=True, help="Why, for the record.")
@store_option
def rollback(duel: str, to: int, judge: str, reason: str, store_url: str | None) -> None:
    """Back a game up to an earlier event, as an event in the same record (nothing is erased)."""
    for option, value in (("--judge", judge), ("--reason", reason)):
        if not value.strip():
            raise click.UsageError(f"{option} must not be empty: a rollback is signed and explained")
    with _store(store_url) as store:
        duel_id = _resolve(store, duel)
        length = Records(store).rollback(duel_id, to, judge, reason)
    echo(f"{duel_id}: rolled back to before event {to} by {judge}; "
         f"events {to}..{length - 2} are marked reverted")


@main.command()
@click.argument("duel")
@click.option("--against", type=click.Path(dir_okay=False), default=None,
              help="A judge .ygr: prove that this view was derived from it, commitments included.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@click.option("--receipt", "receipts", multiple=True, type=click.Path(exists=True), metavar="FILE",
              help="A receipt a write answered with (or a folder of them): the stored duel must still "
                   "hold the head it names. Repeatable.")
@witness_option
@key_option
@store_option
def verify(duel: str, against: str | None, as_json: bool, receipts: tuple[str, ...], witness_url: str | None,
           keys: tuple[str, ...], store_url: str | None) -> None:
    """Check a stored duel or a .ygr file end to end: hash chain, anchors, signature by a trusted key;
    and that the store is not behind a receipt or its witness."""
    if match_cli.handles(duel):
        return match_cli.run("verify", duel, as_json=as_json, keys=keys)
    if Path(duel).is_file():
        if Path(duel).suffix.lower() in (".jsonl", ".json"):
            raise InputError(f"{duel}: a JSON Lines file has no hash chain to verify; check its rules with "
                             f"'ygoreplay check {duel}', or record it and verify the stored duel")
        if receipts:
            raise InputError("a receipt proves a stored duel: verify the duel's id in the store")
        replay = read_replay(duel)
        judge = read_replay(against) if against else None
        result = verify_file(replay, trusted_keys(keys), judge)
        if as_json:
            echo(json.dumps({"file": duel, **result.to_dict()}))
            sys.exit(0 if result.ok else EXIT_ILLEGAL)
        for p in result.problems:
            echo(f"{duel}: {p}")
        if result.first_bad is not None and not result.problems:
            echo(f"{duel}: hash chain broken at " + ("the header's head hash" if result.first_bad == -1
                                                    else f"event {result.first_bad}"))
        if not result.authentic:
            echo(f"{duel}: {result.signature.describe()}")
            if result.judge_signature is not None and not result.judge_signature.ok:
                echo(f"{against}: {result.judge_signature.describe()}")
        if not result.origin["verified"]:
            echo(f"{duel}: NOT ok: origin unverified: its record was {result.origin['why']}")
        if result.intact:
            vouched = result.signature if result.signature.ok else result.judge_signature
            echo(f"{duel}: {'ok' if result.ok else 'intact'}, {result.events} events, hash chain intact, "
                 + (vouched.describe() if result.signature.ok else
                    f"derived from a judge record {vouched.describe()}")
                 + (f"; matches the judge record {against}, deck orders as committed" if judge else ""))
        sys.exit(0 if result.ok else EXIT_ILLEGAL)
    kept = read_receipts(receipts)
    with _store(store_url, readonly=True, keys=keys) as store, _witness(witness_url) as witness:
        duel_id = _resolve(store, duel)
        mine = [r for r in kept if r.duel == duel_id]
        if kept and not mine:
            raise InputError(f"none of the {len(kept)} receipt(s) given is for duel {duel_id}")
        result, witnessed = Records(store, witness).verify(duel_id, mine)
        trust = trust_of(result.ok, store.info(duel_id).source)
    ok = trust["ok"]
    if as_json:
        echo(json.dumps({"id": duel_id, **trust, "events": result.events,
                         "first_bad_link": result.first_bad, "problem": result.problem,
                         "key": result.signer.text if result.signer else None,
                         "origin_verified": trust["origin"]["verified"], "receipts": len(mine),
                         "witnessed": witnessed.events if witnessed else None}))
    elif result.ok:
        echo(f"{duel_id}: {'ok' if ok else 'intact'}, {result.events} events, hash chain intact, anchored and "
             f"signed by organiser key {result.signer.fingerprint if result.signer else '?'}"
             + (f"; holds the head of {len(mine)} receipt(s)" if mine else "")
             + (f"; its witness saw {witnessed.events} events" if witnessed else
                "; its witness saw none of it" if witness else "")
             + ("" if ok else f"; NOT ok: origin unverified: {trust['origin']['why']}"))
    else:
        where = "the duel header" if result.first_bad == -1 else (
            f"event {result.first_bad}" if result.first_bad is not None else "its anchor")
        echo(f"{duel_id}: BROKEN at {where}: {result.problem}")
    sys.exit(0 if ok else EXIT_ILLEGAL)


def _interruptible() -> None:
    """Let Ctrl-C (SIGINT) stop a command that serves until it: started in the background by a
    script, a process inherits SIGINT ignored (a non-interactive shell's background job)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535))
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Worker processes (PostgreSQL only: they share the store and follow each other).")
@witness_option
@cards_option
@store_option
def serve(host: str, port: int, workers: int, witness_url: str | None, cards: tuple[str, ...],
          store_url: str | None) -> None:
    """Run the HTTP service: record, follow and share duels (OpenAPI at /openapi.json).

    The organiser's token is $YGOREPLAY_ADMIN_TOKEN, else the one printed when this store's
    service first started (it is kept only as a digest)."""
    _interruptible()
    import uvicorn
    from ..service import ADMIN_ENV, admin_token, create_app
    with _store(store_url, create=True) as store:
        if workers > 1 and store.backend != "postgresql":
            raise InputError("several workers share a PostgreSQL store; the embedded SQLite store is served "
                             "by one process (drop --workers)")
        admin, new = admin_token(store)
        name, backend = store.name, store.backend
    witness = witness_from(witness_url)            # unreachable now: say so before serving
    echo(f"ygoreplay service on http://{host}:{port} (store {name}, {workers} worker(s)"
         + (f", witness {witness.name})" if witness else ")"), err=True)
    if new:
        echo(f"organiser token (shown once; keep it): {new}", err=True)
    elif os.environ.get(ADMIN_ENV):
        echo(f"organiser token: ${ADMIN_ENV}", err=True)
    else:
        echo("organiser token: the one printed when this store's service first started", err=True)
    if workers == 1:
        app = create_app(Store(store_url, _card_db(cards), key=_signing_key(), concurrent=True, create=False), admin,
                         witness)
        uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False, timeout_graceful_shutdown=3)
        return
    _card_db(cards)                       # a --cards file that cannot be read stops here, not in a worker
    named = [*os.environ.get(CARDS_ENV, "").split(os.pathsep), *cards]
    if witness is not None:
        witness.close()
        os.environ[WITNESS_ENV] = witness.url
    os.environ.update(YGOREPLAY_STORE=store_url or os.environ.get("YGOREPLAY_STORE", ""),
                      YGOREPLAY_ADMIN_DIGEST=admin, **{CARDS_ENV: os.pathsep.join(f for f in named if f)})
    uvicorn.run("ygoreplay.service:app_from_env", factory=True, host=host, port=port, workers=workers,
                log_level="warning", access_log=False, timeout_graceful_shutdown=3)
    del backend


@main.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
              help="The port to listen on (a free one when it is taken).")
@cards_option
@store_option
def demo(path: str, host: str, port: int, cards: tuple[str, ...], store_url: str | None) -> None:
    """Show the service: record a duel file through it over HTTP, a few events at a time as a
    table's client does, print the viewer links, and serve them until Ctrl-C."""
    _interruptible()
    from .. import demo as showing
    with _opened(path, None, cards) as source:
        events, title = source.events, printable(Path(path).name)
    with _store(store_url, create=True):
        pass
    store = Store(store_url, _card_db(cards), key=_signing_key(), concurrent=True, create=False)
    running = None
    try:
        running = showing.start(store, events, title, host, port, progress=lambda line: echo(line, err=True))
        duel, links = running.duel, running.duel["links"]
        echo(f"recorded {path} through the service: duel {duel['id']}, {len(events)} events in "
             f"{running.appends} appends", err=True)
        echo(f"watch it (the spectator link a player shares): {links['spectator']}")
        for role, label in (("judge", "as the judge (roll back, branch, every view)"), ("p0", "as player 0"),
                            ("p1", "as player 1")):
            echo(f"{label}: {links[role]}")
        echo("serving until Ctrl-C (the duel stays in the store; `ygoreplay serve` serves the same links again)", err=True)
        while running.thread.is_alive():
            running.thread.join(0.5)
    except KeyboardInterrupt:
        echo("stopped", err=True)
    finally:
        if running is not None:
            running.stop()
        store.close()


@main.command()
def key() -> None:
    """Print the organiser's public key (created on first use), for others to verify what you sign."""
    organiser = _signing_key()
    echo(organiser.public.text)
    echo(f"fingerprint {organiser.public.fingerprint}, private key in {organiser.path or default_key_path()}", err=True)


# -- deck check: .ydk files, ydke:// URLs, lflist.conf banlists (issue 5) -----------------------

from ..decks import check_deck, read_deck  # noqa: E402  (kept with the command it serves)


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
    if list_name is not None and banlist_file is None:
        raise click.UsageError("--list needs --banlist FILE")
    is_url = deck_spec.strip().lower().startswith("ydke://")
    label = "ydke URL" if is_url else deck_spec
    written = read_deck(deck_spec)
    db = _card_db(cards)
    banlist = _pick_list(banlist_file, list_name) if banlist_file is not None else None
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


# -- the card database (issue 16) ---------------------------------------------------------------

@main.group()
def cards() -> None:
    """The card database: install it, see what is installed, find a card by name."""


@cards.command(name="update")
@click.option("--source", default="ygoprodeck", show_default=True, metavar="SOURCE",
              help="ygoprodeck (the YGOPRODeck card API), or the URL or path of YGOPRODeck card JSON or a cards.cdb.")
def cards_update(source: str) -> None:
    """Fetch the facts of every card and install them beside the default store (the old
    database stays until the new one is whole)."""
    from ..card_install import update
    installed = update(source)
    echo(f"installed {installed.cards} cards from {installed.url} into {installed.path} "
         f"(sha256 {installed.sha256[:16]}…)")


@cards.command(name="status")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
def cards_status(as_json: bool) -> None:
    """What card facts commands use: the installed database, a local install's, the bundled set."""
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
        echo(f"local install: {path}")
    if installed:
        echo(f"installed: {installed.path}: {installed.cards} cards from {installed.url}, fetched "
             f"{installed.fetched}, sha256 {installed.sha256}")
    else:
        echo(f"installed: none (ygoreplay cards update installs one into {installed_path()})")
    echo(f"bundled: {len(CardDB.classic())} classic cards")


@cards.command(name="find")
@click.argument("name")
@click.option("--limit", default=10, show_default=True, type=click.IntRange(1, 1000))
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of text.")
@cards_option
def cards_find(name: str, limit: int, as_json: bool, cards: tuple[str, ...]) -> None:
    """Cards whose name holds NAME (case and accents ignored): exact names first."""
    found = _card_db(cards).find(name, limit)
    if as_json:
        echo(json.dumps([{**f.to_dict(), "text": f.describe()} for f in found], ensure_ascii=False))
        return
    for facts in found:
        echo(f"{facts.code:>9}  {facts.describe()}")
    if not found:
        echo(f"no card's name holds {name!r}", err=True)
        sys.exit(EXIT_ILLEGAL)


main.add_command(match_cli.match)        # ygoreplay match ... (issue 14)
