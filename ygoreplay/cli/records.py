"""The store's records: ``export`` and ``import`` them; ``record`` a duel, ``append`` to it, add a
judge's ``note``, ``release`` what it hid, ``list`` the duels, ``branch`` one, show its ``tree``,
``diff`` two boards, ``rollback``, and ``verify`` a record end to end."""
from __future__ import annotations

import json
import re
import sys
from collections import Counter
from contextlib import closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import click

from ..errors import InputError, StoreError
from ..i18n import DEFAULT, N_, current, said, t
from ..sentences import end_reason
from ..text import cells, number, padded, printable
from . import match as match_cli
from .common import (
    EXIT_ILLEGAL, EXIT_INTERRUPTED, EXIT_UNREADABLE, by_option, card_db, cards_option, echo, expected_option,
    file_format, keep_receipt, key_option, load_events, main, open_duel, open_store, open_witness,
    receipt_out_option, resolve, signing_key, store_option, view_option, witness_option, Words)

if TYPE_CHECKING:
    from ..application import Visibility
    from ..receipts import Witness
    from ..state import DuelState
    from ..store.reading import Store


@main.command(name="export")
@click.argument("duel")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False), required=True)
@click.option("--html", "html", is_flag=True,
              help="Write one self-contained web page of the view (it opens from file://, with no network).")
@click.option("--record", "as_record", is_flag=True,
              help="Write, as JSON Lines, the record the view's viewer would have written: what it saw, "
                   "each card it could not see unknown (passcode 0) until an event shows it.")
@view_option
@key_option
@cards_option
@store_option
def export_command(duel: str, output: str, html: bool, as_record: bool, view: str | None, keys: tuple[str, ...],
                   cards: tuple[str, ...], store_url: str | None) -> None:
    """Write a stored duel, a .jsonl file or a .ygr file as a signed .ygr replay file for one view
    (or, with --html, as a web page of it; with --record, as the JSON Lines record its viewer
    would have written)."""
    from ..application import Records, export_file, offline_page, record_file, trusted_keys
    from ..files import write_atomic
    from ..jsonl import write_events
    from ..replay_file import file_mode, write as write_replay
    if as_record:
        if html:
            raise click.UsageError(t("give --html or --record, not both"))
        shown = view or "spectator"
        with open_duel(duel, store_url, cards, shown) as source:
            events = source.recorded_by(shown)
        size = write_events(output, events, shown)
        echo(t("{output}: {count} events as the {value} recorded them, {size} bytes (JSON Lines)",
               output=output, count=len(events), value=view or 'spectator', size=size))
        return
    if match_cli.handles(duel) and not html:
        return match_cli.run("export", duel, cards=cards, output=output, view=view, keys=keys)
    if Path(duel).is_file():
        with open_duel(duel, None, cards) as source:
            view = view or source.view              # a view file gives its own view by default
            if source.replay is not None:
                replay = export_file(source.replay, view, trusted_keys(keys))
            else:
                replay = record_file(source.events, source.cards, view, printable(Path(duel).name))
    else:
        view = view or "judge"
        with open_store(store_url, readonly=True) as store:
            replay = Records(store).export(resolve(store, duel), view)
    if html:
        name = Path(output).with_suffix(f".{view}.ygr").name
        size = write_atomic(output, offline_page(replay, signing_key(), name).encode(), file_mode(replay))
        echo(t("{output}: a web page of {count} events, {view} view, {size} bytes (the signed replay file inside); "
               "open it in a browser", output=output, count=len(replay.events), view=view, size=size))
        return
    size = write_replay(output, replay, signing_key())
    echo(t("{output}: {count} events, {count2} cards, {view} view, {size} bytes, signed",
           output=output, count=len(replay.events), count2=len(replay.cards), view=view, size=size))


@main.command()
@click.argument("duel")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False), default=None,
              help="Write the JSON Lines here instead of printing them.")
@cards_option
@store_option
def opened(duel: str, output: str | None, cards: tuple[str, ...], store_url: str | None) -> None:
    """The judge record of a duel whose players each sealed their own hidden cards, once both
    have opened every seal: JSON Lines, every opened card known from the start, to check, show
    or record as a full record. Refused (exit 2) while a seal is unopened or an opening does not
    match its seal."""
    from ..jsonl import dumps as jsonl_dumps, write_events
    from ..openings import opened as open_sealed
    with open_duel(duel, store_url, cards) as source:
        if source.view != "judge":
            raise InputError(t("{duel}: a {view} view holds no seal; open the judge record",
                               duel=duel, view=source.view))
        events = open_sealed(source.events, source.cards)
    if output is None:
        echo(jsonl_dumps(events), nl=False)
        return
    size = write_events(output, events)
    echo(t("{output}: the judge record, {count} events, {size} bytes", output=output, count=len(events), size=size))


visibility_option = click.option(
    "--visibility", type=Words("ygoreplay.access", "VISIBILITIES"), default=None,
    help="Then make it public (ygoreplay search finds it), unlisted or private, as 'ygoreplay visibility' "
         "does (default: private).")


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
@visibility_option
@key_option
@cards_option
@witness_option
@store_option
def import_command(path: str, output: str | None, title: str | None, as_json: bool, unsigned: bool,
                   jobs: int | None, visibility: str | None, keys: tuple[str, ...], cards: tuple[str, ...],
                   witness_url: str | None, store_url: str | None) -> None:
    """Import a .ygr judge file, an EDOPro .yrpX replay, or a folder of replays.

    A .ygr file is verified first (its chain, and a signature by a trusted key). EDOPro replays
    are turned into our events, every one kept, and folded through the rules; the summary compares
    each duel's final LP and winner with the replay's own, and its board with the engine's own
    state packets at every one of them (zones agreeing, the first divergence), and counts
    violations by rule ID. A replay already in the store (the same file) is skipped.
    """
    from ..application import Records, cpus, import_replay_file, import_replay_files, trusted_keys
    from ..formats import EDOPRO, YGR, FormatError, container_of, find_format
    source = Path(path)
    fmt = file_format(path)
    if fmt is not None and fmt.yields == "events":
        raise InputError(t("{path}: a JSON Lines duel, not a replay file: record it with 'ygoreplay record {path}'",
                           path=path))
    if fmt is not None and fmt.yields == "match" and container_of(path) is not YGR:
        raise InputError(t("{path}: a match file, not a duel replay: the match commands read it "
                           "('ygoreplay match --help')", path=path))
    if output and visibility:
        raise click.UsageError(t("give -o or --visibility, not both: a file written out has no visibility"))
    if output and source.is_dir() and Path(output).exists() and not Path(output).is_dir():
        raise InputError(t("{output}: not a folder (-o names a folder when importing a folder of replays)",
                           output=output))
    if fmt is not None and fmt.yields in ("replay", "match"):    # a match .ygr: the application says what it is
        replay = YGR.read(source).native
        with open_store(store_url, create=True) as store, open_witness(witness_url, store) as witness:
            into = Records(store, witness)
            done = into.import_replay(replay, title, trusted_keys(keys), unsigned)
            shown = into.set_visibility(done.id, visibility) if visibility and done.id else None
        echo(json.dumps([{"file": source.name, **done.to_dict(), **_visible(shown)}]) if as_json else str(done.id))
        if shown is not None and not as_json:
            _say_visibility(shown)
        if done.skipped and not as_json:
            echo(t("{name}: already stored as {id} (imported before): skipped",
                   name=printable(source.name), id=done.id), err=True)
        if done.violations and not done.skipped:      # kept as it stood, never as if it were clean
            for v in done.violations if not as_json else ():
                echo(f"#{v.index} {v.rule} {said(v.message)}", err=True)
            sys.exit(EXIT_ILLEGAL)
        return
    def edopro(file: Path) -> bool:                 # by content, then name: a renamed replay is found
        try:
            return file.is_file() and find_format(file) is EDOPRO
        except FormatError:
            return False
    files = sorted(p for p in source.iterdir() if edopro(p)) if source.is_dir() else [source]
    if not files:
        raise InputError(t("{path}: no .yrpX replays here", path=path))
    names = card_db(cards)
    outcomes: list[dict] = []
    key = signing_key()
    interrupted = False
    with (open_store(store_url, create=True) if not output else _nothing()) as store, \
            (open_witness(witness_url, store) if store is not None else _nothing()) as witness:
        records = Records(store, witness) if store is not None else None
        known = records.imports() if records is not None else None
        if output:
            targets = [Path(output) / name for name in _ygr_names(files)] if source.is_dir() or Path(output).is_dir() \
                else [Path(output)]
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
        for outcome in outcomes if records is not None and visibility else ():
            if outcome["id"]:
                outcome.update(_visible(records.set_visibility(outcome["id"], visibility)))
    if as_json:
        echo(json.dumps(outcomes))
    else:
        _import_summary(outcomes)
        if not cards and any(o["id"] and not o["error"] for o in outcomes) and _no_card_names():
            from ..cards import NAMES_MISSING
            echo(t(NAMES_MISSING))
    if interrupted:
        echo(t("interrupted: {count} of {count2} file(s) done; run the same command again to import the rest "
               "(files already stored are skipped)", count=len(outcomes), count2=len(files)), err=True)
        sys.exit(EXIT_INTERRUPTED)
    failed = any(o["error"] for o in outcomes)
    illegal = any(o["violations"] or not (o["lp"] and o["winner"]) for o in outcomes
                  if not o["error"] and not o["skipped"])
    sys.exit(EXIT_UNREADABLE if failed else EXIT_ILLEGAL if illegal else 0)


def _no_card_names() -> bool:
    """Whether no card database is installed: an EDOPro replay names its cards by passcode only,
    so its duel shows them as 'Card <passcode>' but for the bundled classic cards."""
    from ..card_install import status
    return status() is None


def _visible(done: "Visibility | None") -> dict:
    """The visibility an import or a record was given, in its JSON (nothing when none was)."""
    if done is None:
        return {}
    return {"visibility": done.access.visibility,
            **({"tokens": {"spectator": done.spectator}} if done.spectator else {})}


def _ygr_names(files: list[Path]) -> list[str]:
    """The name of each replay's ``.ygr`` in an output folder: its stem, or its whole name where
    another replay of the folder has the same stem (``game.yrpX`` and ``game.bin``, found by their
    content, are ``game.yrpX.ygr`` and ``game.bin.ygr``: one file each, none written over another,
    whatever the case of the names; one still taken gets a number)."""
    from ..formats import YGR
    stems = Counter(file.stem.casefold() for file in files)
    taken: set[str] = set()
    names = []
    for file in files:
        name = (file.stem if stems[file.stem.casefold()] == 1 else file.name) + YGR.suffixes[0]
        copy = 1
        while name.casefold() in taken:
            copy += 1
            name = f"{file.name}.{copy}{YGR.suffixes[0]}"
        taken.add(name.casefold())
        names.append(name)
    return names


@contextmanager
def _nothing() -> Iterator[None]:
    yield None


def _import_summary(outcomes: list[dict]) -> None:
    """One line per file (with its board's agreement with the engine's state packets, and the
    first divergence if any), then the totals: files, imported, LP and winner agreement, files
    whose board agrees with the engine everywhere, zones agreeing, rule IDs."""
    if not outcomes:
        return
    width = max(cells(printable(o["file"])) for o in outcomes)
    for o in outcomes:
        name = padded(printable(o["file"]), width)       # by terminal cells: a wide name lines up too
        if o["error"]:
            echo(t("{file}  cannot import: {error}", file=name, error=o['error']))
            continue
        if o["skipped"]:
            echo(t("{file}  already stored as {id} ({events_stored} events): skipped",
                   file=name, id=o['id'], events_stored=o['events_stored']))
            continue
        echo("  ".join([name, _file_figures(o)]) + (f"  -> {o['id']}" if o["id"] else ""))
        first = (o.get("engine") or {}).get("first_divergence")
        if first:
            echo("    " + t("first divergence from the engine: packet {packet}, turn {turn}: player {player}'s {zone}: "
                   "engine {engine}, ours {ours}",
                   packet=first['packet'], turn=first['turn'], player=first['player'], zone=printable(first['zone']), engine=printable(first['engine']), ours=printable(first['ours'])))
    done = [o for o in outcomes if not o["error"] and not o["skipped"]]
    skipped = sum(o["skipped"] for o in outcomes)
    errors = sum(1 for o in outcomes if o["error"])
    by_rule = Counter(v["rule"] for o in done for v in o["violations"])
    echo("")
    echo(t("files {files}  imported {imported}  cannot import {errors}", files=len(outcomes), imported=len(done),
           errors=errors) + (t("  already stored {count}", count=skipped) if skipped else ""))
    if done:
        echo(t("LP agree {sum}/{count}  winner agree {sum2}/{count}  events {sum3}",
               sum=sum(o['lp'] for o in done), count=len(done), sum2=sum(o['winner'] for o in done), sum3=sum(o['events_read'] for o in done)))
        checked = [o["engine"] for o in done if o.get("engine")]
        zones = sum(e["zones"] for e in checked)
        agreeing = sum(e["zones_agreeing"] for e in checked)
        echo(t("board agrees with the engine everywhere: {sum}/{count} files  zones agree {agreeing}/{zones} "
               "({value:.3f}%)",
               sum=sum(e['first_divergence'] is None for e in checked), count=len(checked), agreeing=agreeing, zones=zones, value=100 * agreeing / zones if zones else 100))
    echo(t("violations by rule: {tally}", tally=", ".join(f"{r} {n}" for r, n in by_rule.most_common()) or t("none")))
    overrides, unexplained = sum(o.get("overrides", 0) for o in done), sum(o.get("unexplained", 0) for o in done)
    if overrides:
        echo(t("overrides (rules a cited card set aside): {overrides}: explained {value}, unexplained "
               "{unexplained} (the engine allowed it and nothing explains it: for review)",
               overrides=overrides, value=overrides - unexplained, unexplained=unexplained))


def _file_figures(o: dict) -> str:
    """One imported file's figures, in the reader's language: its events (and those stored, when
    fewer), LP and winner against the replay's own, its violations by rule, the overrides, and its
    board against the engine's."""
    rules = Counter(v["rule"] for v in o["violations"])
    stored = "" if o["events_stored"] == o["events_read"] else t(" ({count} stored)", count=o["events_stored"])
    parts = [t("{count} events", count=f"{o['events_read']:>6}") + stored,
             t("LP {verdict}", verdict=_verdict(o["lp"])), t("winner {verdict}", verdict=_verdict(o["winner"])),
             ", ".join(f"{r} x{n}" for r, n in sorted(rules.items())) or t("no violation")]
    if o.get("overrides"):
        parts.append(t("overrides {count}", count=o["overrides"])
                     + (t(" ({count} unexplained)", count=o["unexplained"]) if o["unexplained"] else ""))
    if o.get("engine"):
        parts.append(t("engine {figure}", figure=_engine_figure(o["engine"])))
    return "  ".join(parts)


def _verdict(agrees: bool) -> str:
    return t("ok") if agrees else t("DIFFERS")


def _engine_figure(engine: dict) -> str:
    """A file's board against the engine's state packets: the share of zones agreeing."""
    share = 100 * engine["zones_agreeing"] / engine["zones"] if engine["zones"] else 100
    return t("{verdict} {share}% ({agreeing}/{zones} zones)", verdict=_verdict(engine["first_divergence"] is None),
             share=f"{share:.3f}", agreeing=engine["zones_agreeing"], zones=engine["zones"])


# -- record and change ----------------------------------------------------------------------------------

@main.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--title", default=None, help="A title for the duel (default: the file name).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (id, counts, signed receipt).")
@receipt_out_option
@witness_option
@click.option("--release", type=Words("ygoreplay.access", "RELEASES"), default=None,
              help="When what the duel hid becomes everyone's once it is served: at its end, at the event's "
                   "end (a time, or 'ygoreplay release'), or never (default: event with --event, else end).")
@click.option("--event", default=None, metavar="NAME", help="The event (tournament) it is a duel of.")
@click.option("--release-at", default=None, metavar="TIME",
              help="With the event policy: when the event ends (2026-05-01T18:00:00+00:00).")
@click.option("--witnessed", is_flag=True,
              help="A duel played at a table: an illegal event is kept, flagged with its rule, not refused "
                   "(its duel_started says witnessed).")
@click.option("--once/--again", default=True,
              help="--once (the default): skip the file when the same events were recorded before the same way "
                   "(as import skips a file imported before), printing that duel's id; --again: record them as "
                   "another duel.")
@visibility_option
@by_option
@cards_option
@store_option
def record(file: str, title: str | None, as_json: bool, receipt_path: str | None, witness_url: str | None,
           release: str | None, event: str | None, release_at: str | None, witnessed: bool, once: bool,
           visibility: str | None, entered_by: str, cards: tuple[str, ...], store_url: str | None) -> None:
    """Record a JSON Lines duel into the store and print its id (only the id, on stdout).

    Stops at the first illegal event: the legal events before it stay recorded, the violation is
    printed on stderr, and the exit code is 1 (no duel is created when nothing before it is legal).
    The same events recorded before the same way are skipped, the first duel's id printed, as
    import skips a file imported before (--again records them as another duel, stderr naming the
    first).
    A witnessed duel (--witnessed, or a duel_started that says so) keeps every event: each one
    that breaks a rule is printed on stderr as a flag.
    """
    from ..access import release_settings
    from ..application import Records
    settings = release_settings(release, event, release_at)
    events, db = load_events(file, cards)
    with open_store(store_url, create=True, cards=db) as store, open_witness(witness_url, store) as witness:
        records = Records(store, witness)
        done = records.record(events, title or printable(Path(file).name), release=settings,
                              witnessed=witnessed, entered_by=entered_by, repeat="skip" if once else "again")
        if done.receipt is not None:
            keep_receipt(done.receipt, receipt_path, witness)
        shown = records.set_visibility(done.id, visibility) if visibility and done.id else None
    if as_json:
        echo(json.dumps({**done.to_dict(), **_visible(shown)}))
    elif done.id:
        echo(done.id)
        if done.skipped:
            echo(t("{name}: already stored as {id} (recorded before): skipped (--again records another duel)",
                   name=printable(Path(file).name), id=done.id), err=True)
        elif done.earlier:
            echo(t("{name}: the same events are stored as {id} already: recorded again as another duel "
                   "(--again)",
                   name=printable(Path(file).name), id=done.earlier), err=True)
        _say_flags(done.flags)
        if shown is not None:
            _say_visibility(shown)
    if done.violation is not None:
        v = done.violation
        echo(f"#{v.index} {v.rule} {said(v.message)}", err=True)
        echo(t("recorded the {count} legal event(s) before it", count=done.stored) if done.id else
             t("nothing was recorded: the first event is not legal"), err=True)
        sys.exit(EXIT_ILLEGAL)


@main.command()
@click.argument("duel")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@expected_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (id, events, signed receipt).")
@click.option("--confirm", is_flag=True, help="Store a turn change that looks entered twice (nothing entered "
                                              "in the turn it ends).")
@receipt_out_option
@witness_option
@by_option
@cards_option
@store_option
def append(duel: str, file: str, expected: int | None, as_json: bool, confirm: bool, receipt_path: str | None,
           witness_url: str | None, entered_by: str, cards: tuple[str, ...], store_url: str | None) -> None:
    """Add the events of a JSON Lines file (or - for standard input) to a stored duel or branch,
    checking each; all or nothing. Prints the new number of events (and, in a witnessed duel,
    the flags of the events added on stderr)."""
    from ..application import Records, violation_dict
    events, db = load_events(file, cards)
    with open_store(store_url, cards=db) as store, open_witness(witness_url, store) as witness:
        duel_id = resolve(store, duel)
        records = Records(store, witness)
        receipt = records.append(duel_id, events, expected, entered_by=entered_by, confirmed=confirm)
        keep_receipt(receipt, receipt_path, witness)
        flags = records.flags(duel_id, receipt.events - len(events), receipt.events)
        if entered_by in ("p0", "p1") and flags:
            # a player's device is answered its own view's flags, in its names (as over HTTP)
            from ..live import LiveDuel
            from ..state import Violation
            flags = [Violation(f["index"], f["rule"], f["message"]) for f in
                     LiveDuel(store, duel_id).flags(entered_by, receipt.events - len(events), receipt.events)]
    if as_json:
        echo(json.dumps({"id": duel_id, "events": receipt.events, **receipt.fields(),
                         "flags": [violation_dict(f) for f in flags]}))
    else:
        echo(str(receipt.events))
        _say_flags(flags)


def _say_flags(flags: list) -> None:
    """A witnessed duel's events kept though they break a rule, on stderr (stdout stays the answer)."""
    for f in flags:
        echo(t("#{index} flagged {rule} {message}", index=f.index, rule=f.rule, message=said(f.message)), err=True)


@main.command()
@click.argument("duel")
@click.argument("text")
@click.option("--judge", required=True, help="The judge's name.")
@click.option("--category", type=click.Choice(("call", "ruling", "penalty", "warning", "note", "time")),
              default="note")
@click.option("--on", "on", type=int, default=None, metavar="N",
              help="The entry it rules on (a flagged or disputed event); with --decision.")
@click.option("--decision", type=Words("ygoreplay.events", "DECISIONS"), default=None, help="What the judge decided about it.")
@expected_option
@witness_option
@store_option
def note(duel: str, text: str, judge: str, category: str, on: int | None, decision: str | None,
         expected: int | None, witness_url: str | None, store_url: str | None) -> None:
    """A judge's note (a call, a ruling, a warning…) added to a stored duel's record."""
    from ..application import Records
    with open_store(store_url) as store, open_witness(witness_url, store) as witness:
        duel_id = resolve(store, duel)
        length = Records(store, witness).note(duel_id, judge, text, category, on=on, decision=decision,
                                              expected=expected)
    echo(t("{duel_id}: {category} by {judge} recorded as event {value}",
           duel_id=duel_id, category=category, judge=judge, value=length - 1))


@main.command(name="release")
@click.argument("duel")
@store_option
def release_command(duel: str, store_url: str | None) -> None:
    """The organiser's call that the event has ended: a duel or a match under the event release
    policy releases what it hid (hands, deck orders; a match's decklists, and its duels' with it)
    to every reader of the service, once it has ended."""
    from ..application import Records         # the one command the service's /release calls too
    with open_store(store_url) as store:
        stream_id = _duel_or_match(store, duel)
        Records(store).release(stream_id)
    echo(t("{duel_id}: released: once it has ended, every reader may see what it hid (?view=judge)", duel_id=stream_id))


@main.command(name="visibility")
@click.argument("duel")
@click.argument("visibility", type=Words("ygoreplay.access", "VISIBILITIES"))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (id, visibility, a new token).")
@store_option
def visibility_command(duel: str, visibility: str, as_json: bool, store_url: str | None) -> None:
    """Who may find and read a stored duel: public (ygoreplay search and the service's library
    find it; anyone reads it), unlisted (read with its spectator token, printed once when one is
    issued) or private (its table only). A duel recorded or imported here is private until then."""
    from ..application import Records         # the one command record/import --visibility call too
    with open_store(store_url) as store:
        done = Records(store).set_visibility(resolve(store, duel), visibility)
    if as_json:
        echo(json.dumps(done.to_dict()))
        return
    _say_visibility(done)


def _say_visibility(done: "Visibility") -> None:
    """What a visibility change did, on stderr when it follows a command whose stdout is an id."""
    echo(t("{duel_id}: {visibility} (was {was})", duel_id=done.id, visibility=t(done.access.visibility),
           was=t(done.was)), err=True)
    if done.access.visibility == "public":
        echo(t("ygoreplay search finds it now"), err=True)
    if done.spectator:
        echo(t("spectator token (shown once): {token}", token=done.spectator), err=True)
    if done.narrowed:
        echo(t("{duel_id}: its what-if branches narrowed with it: {branches}", duel_id=done.id,
               branches=", ".join(done.narrowed)), err=True)


def _duel_or_match(store: Store, spec: str) -> str:
    """A stored duel's id from ``spec`` (as every command takes one), else a match's: the
    organiser's release is both's, and ``verify`` checks both as the service does. A prefix that
    names a duel and a match is refused, naming both: a release is for good (what it hid is every
    reader's), so a prefix typed for a match never releases a duel that happens to share it."""
    try:
        duel = resolve(store, spec)
    except StoreError as no_duel:
        try:
            return store.resolve(spec, "match")
        except StoreError:
            raise no_duel from None                  # neither: why not, as resolve says it
    if duel == spec:                                 # a whole id is one stream's: no match listed for it
        return duel
    try:
        match = store.resolve(spec, "match")
    except StoreError:
        return duel
    raise InputError(t("{spec!r} names duel {duel} and match {match}: give more characters of the id; nothing "
                       "was written", spec=spec, duel=duel, match=match))


def _verify_round(store: Store, spec: str, witness: "Witness | None", receipts: bool, as_json: bool,
                  no_stream: Exception) -> None:
    """``verify`` of a round (``rounds.verify_round``): its seal, and its witness's receipt of it;
    exits with the verdict. ``no_stream`` (no duel nor match of ``spec``) is raised when the
    store and its witness know no round of that id either."""
    from ..rounds import verify_round
    try:
        result = verify_round(store, spec, witness)
    except StoreError:
        raise no_stream from None
    if receipts:
        raise InputError(t("a receipt proves a stored duel or match, not round {round_id}: verify the round without "
                           "--receipt", round_id=result.id))
    if as_json:
        echo(json.dumps(result.to_dict(), ensure_ascii=False))
        sys.exit(0 if result.ok else EXIT_ILLEGAL)
    signed = result.signed
    if signed is not None:
        echo(t("{round_id}: round of {count} tables, signed by organiser key {key} at {time}", round_id=result.id,
               count=result.tables, key=signed["key"], time=signed["time"])
             + (t("; signed late: it was written unsigned, and the signature vouches for it as it stood then")
                if signed["late"] else "")
             + (t("; its witness saw it") if result.witnessed else
                t("; its witness saw none of it") if result.witnessed is False else ""))
    if result.ok:
        echo(t("{round_id}: ok", round_id=result.id))
    else:
        echo(t("{round_id}: round NOT ok: {problem}", round_id=result.id,
               problem=said(result.problem or result.doubt)))
    sys.exit(0 if result.ok else EXIT_ILLEGAL)


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
    from ..application import Records, branch_after, duel_dict
    from ..store.records import MissingStore
    behind: dict[str, str] = {}
    try:
        with open_store(store_url, readonly=True) as store, open_witness(witness_url, store) as witness:
            records = Records(store, witness)
            duels = records.duels(player, since, until)
            behind = {d.id: records.behind_witness(d.id) for d in duels} if witness else {}
            name = store.name
    except MissingStore as missing:
        duels, name = [], t("{name} (no store there yet)", name=missing.name)
    if as_json:
        echo(json.dumps([{**duel_dict(d), **({"behind_witness": behind[d.id] or None} if behind else {})}
                         for d in duels]))
        return
    if not duels:
        echo(t("no duels in {store} that match", store=name) if player or since or until else
             t("no duels in {store}", store=name))
    branches = Counter(d.parent for d in duels if d.parent)
    # the status column as wide as its widest entry, in terminal cells: a long or a Chinese,
    # Japanese or Korean result no longer pushes its row's players out of line
    datas = [duel_dict(d) for d in duels]
    statuses = [_listed_status(data) for data in datas]
    column = max([22, *map(cells, statuses)])
    for d, data, status in zip(duels, datas, statuses):
        players = t(" vs ").join(printable(str(p)) for p in data["players"]) or t("players unknown")
        family = ("  " + t("branch of {parent} after event #{index}", parent=d.parent, index=branch_after(d))
                  if d.parent and d.parent not in d.title else "") + (
            "  " + t("{count} branch(es)", count=branches[d.id]) if branches[d.id] else "")
        flags = ("" if d.signed else "  " + t("(anchor signature does not hold: run verify)")) + (
            "  " + t("(BEHIND ITS WITNESS: run verify)") if behind.get(d.id) else "") + (
            "  " + t("(origin unverified)") if d.source.get("unverified") else "")
        echo(t("{id}  {created}  {events:>6} events  {status}  {players}  {title}{family}{flags}",
               id=d.id, created=d.created[:16].replace('T', ' '), events=d.events, status=padded(status, column),
               players=players, title=printable(d.title), family=family, flags=flags))


def _is_day(value: str) -> bool:
    """Whether a ``YYYY[-MM[-DD]]`` names a day, month or year of the calendar (not ``2026-13-45``:
    compared as text, it found no duel and said so, exit 0)."""
    import datetime
    try:
        datetime.date.fromisoformat((value + "-01-01")[:10] if len(value) < 10 else value)
    except ValueError:
        return False
    return True


#: A listed duel's status (``duel_dict``'s English word, kept in ``--json``) as a reader reads it.
_STATUSES = {"ended": N_("ended"), "in progress": N_("in progress"), "unverified": N_("unverified")}


def _listed_status(data: dict) -> str:
    """How a listed duel stands, in the reader's language: its result, or ended / in progress /
    unverified. An English reader reads the reason as recorded (``won (lp)``, what scripts read);
    another reads the catalogue's name for it."""
    result = data["result"]
    if not result:
        return t(_STATUSES[data["status"]])
    reason = result["reason"] if current() == DEFAULT else end_reason(result["reason"])
    if result["winner"] is None:
        return t("a draw ({reason})", reason=reason)
    unnamed = [t("player {number}", number=n) for n in (0, 1)]
    winner = printable(str((data["players"] + unnamed)[result["winner"]]))
    return t("{player} won ({reason})", player=winner, reason=reason)


def _date(option: click.Parameter, value: str | None) -> str | None:
    """A day, a month or a year (``2026-01-05``, ``2026-01``, ``2026``), checked."""
    if value is None:
        return None
    if not re.fullmatch(r"\d{4}(-\d{2}(-\d{2})?)?", value.strip()) or not _is_day(value.strip()):
        raise click.BadParameter(t("{value} is not a date: write YYYY-MM-DD (or YYYY-MM, YYYY)",
                                   value=printable(value)),
                                 param_hint=f"--{option.name}")
    return value.strip()


@main.command()
@click.argument("duel")
@click.option("--at", "at", type=int, required=True,
              help="Keep events #0..#N: the branch starts from the board after event #N (as show --at N).")
@click.option("--title", default="", help="A title for the branch.")
@click.option("--key", default=None, metavar="KEY",
              help="The request's key (1-64 letters, digits, - or _): the same command run again with it "
                   "prints the branch it made, never a second one (as the service's Idempotency-Key).")
@witness_option
@store_option
def branch(duel: str, at: int, title: str, key: str | None, witness_url: str | None, store_url: str | None) -> None:
    """Start a new duel from the board after event #N of DUEL (the parent is untouched); print its id."""
    from ..application import Records
    with open_store(store_url) as store, open_witness(witness_url, store) as witness:
        echo(Records(store, witness).branch(resolve(store, duel), at, title, key))


@main.command()
@click.argument("duel")
@store_option
def tree(duel: str, store_url: str | None) -> None:
    """Show DUEL's family of branches, like the variations of a game."""
    from ..application import branch_after
    with open_store(store_url, readonly=True) as store:
        rows = store.tree(resolve(store, duel))
    latest: list[int] = []                  # latest[L]: the row of the branch open at depth L
    for i, (depth, d) in enumerate(rows):
        latest[depth:] = [i]
        lines = ["    " if _last_sibling(rows, latest[level]) else "│   " for level in range(1, depth)]
        if depth:
            lines[:0] = ["    "]
            lines.append("└── " if _last_sibling(rows, i) else "├── ")
        where = f"after event #{branch_after(d)}: " if d.parent else ""
        echo(t("{tree}{id}  {where}{title} ({events} events)",
               tree=''.join(lines), id=d.id, where=where, title=printable(d.title), events=d.events)
             + ("" if d.signed else "  (anchor signature does not hold: run verify)"))


def _last_sibling(rows: list, i: int) -> bool:
    """Whether row ``i`` of a depth-first tree is the last child of its parent."""
    for depth, _ in rows[i + 1:]:
        if depth <= rows[i][0]:
            return depth < rows[i][0]
    return True


def _state_of(store: Store, spec: str) -> tuple[str, DuelState]:
    """DUEL or DUEL@N (the board after event #N, as show --at N)."""
    from ..application import Records
    name, _, at = spec.partition("@")
    duel_id = resolve(store, name)
    if at and number(at) is None:
        raise click.UsageError(t("{spec}: write DUEL or DUEL@N", spec=printable(spec)))
    return f"{duel_id}{'@' + at if at else ''}", Records(store).state(duel_id, number(at) if at else None)


@main.command()
@click.argument("a")
@click.argument("b")
@store_option
def diff(a: str, b: str, store_url: str | None) -> None:
    """How two boards differ (DUEL or DUEL@N each: after event #N): LP, cards by zone, chain, phase."""
    from ..diff import diff_states
    with open_store(store_url, readonly=True) as store:
        (name_a, state_a), (name_b, state_b) = _state_of(store, a), _state_of(store, b)
    rows = diff_states(state_a, state_b)
    if not rows:
        echo(t("{name_a} and {name_b} are the same position", name_a=name_a, name_b=name_b))
    for place, left, right in rows:
        echo(t("{place}:\n  {name_a}: {left}\n  {name_b}: {right}",
               place=place, name_a=name_a, left=printable(left), name_b=name_b, right=printable(right)))


@main.command()
@click.argument("duel")
@click.option("--to", "to", type=int, required=True, help="Back up to the state before event N.")
@click.option("--judge", required=True, help="The judge's name.")
@click.option("--reason", required=True, help="Why, for the record.")
@expected_option
@witness_option
@store_option
def rollback(duel: str, to: int, judge: str, reason: str, expected: int | None, witness_url: str | None,
             store_url: str | None) -> None:
    """Back a game up to an earlier event, as an event in the same record (nothing is erased).
    Checked as the service checks it (a judge's rollback is signed and explained, MATCH-08)."""
    from ..application import Records
    with open_store(store_url) as store, open_witness(witness_url, store) as witness:
        duel_id = resolve(store, duel)
        length = Records(store, witness).rollback(duel_id, to, judge, reason, expected=expected)
    echo(t("{duel_id}: rolled back to before event {to} by {judge}; events {to}..{value} are marked reverted",
           duel_id=duel_id, to=to, judge=judge, value=length - 2))


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
    """Check a stored duel or match, or a .ygr file, end to end: hash chain, anchors, signature by a
    trusted key; and that the store is not behind a receipt or its witness. A round's id: its
    record's signature, and that its witness's receipt of it still holds."""
    from ..application import Records, trusted_keys
    from ..receipts import read_receipts
    from ..replay_file import read as read_replay
    from ..trust import trust_of, verify_file
    fmt = file_format(duel)
    if fmt is not None and fmt.yields == "match":
        return match_cli.run("verify", duel, as_json=as_json, keys=keys)
    if fmt is not None:
        if fmt.yields == "events":
            raise InputError(t("{duel}: a JSON Lines file has no hash chain to verify; check its rules with "
                               "'ygoreplay check {duel}', or record it and verify the stored duel", duel=duel))
        if fmt.yields == "import":           # read as a .ygr, it was called one with bad magic bytes
            raise InputError(t("{duel}: an EDOPro replay has no hash chain nor signature to verify; check it "
                               "against the engine with 'ygoreplay check {duel}', or import it with "
                               "'ygoreplay import {duel}' and verify the stored duel", duel=duel))
        if receipts:
            raise InputError(t("a receipt proves a stored duel: verify the duel's id in the store"))
        replay = read_replay(duel)
        judge = read_replay(against) if against else None
        result = verify_file(replay, trusted_keys(keys), judge)
        # each line says its file's name on that line: a name with a newline (``x\nspec.ygr: ok,
        # ...``) wrote a verdict of its own above the real one
        shown, shown_against = printable(duel), printable(against or "")
        if result.seals is not None and not as_json:
            echo(t("{duel}: seals: {describe}", duel=shown, describe=result.seals.describe()))
        if as_json:
            echo(json.dumps({"file": duel, **result.to_dict()}))
            sys.exit(0 if result.ok else EXIT_ILLEGAL)
        for p in result.problems:
            echo(f"{shown}: {said(p)}")
        if result.first_bad is not None and not result.problems:
            echo(t("{duel}: hash chain broken at the header's head hash", duel=shown) if result.first_bad == -1
                 else t("{duel}: hash chain broken at event {index}", duel=shown, index=result.first_bad))
        if not result.authentic:
            echo(f"{shown}: {result.signature.describe()}")
            if result.judge_signature is not None and not result.judge_signature.ok:
                echo(f"{shown_against}: {result.judge_signature.describe()}")
        if not result.origin["verified"]:
            echo(t("{duel}: NOT ok: origin unverified: its record was {why}", duel=shown, why=result.origin['why']))
        if result.intact and result.seals is not None and not result.seals.ok:
            echo(t("{duel}: NOT ok: an opened card does not match what was sealed", duel=shown))
        elif result.intact:
            vouched = result.signature if result.signature.ok else result.judge_signature
            how = vouched.describe() if result.signature.ok else \
                t("derived from a judge record {describe}", describe=vouched.describe())
            echo((t("{duel}: ok, {count} events, hash chain intact, {how}", duel=shown, count=result.events, how=how)
                  if result.ok else t("{duel}: intact, {count} events, hash chain intact, {how}", duel=shown,
                                      count=result.events, how=how))
                 + (t("; matches the judge record {against}, deck orders as committed", against=shown_against)
                    if judge else ""))
        sys.exit(0 if result.ok else EXIT_ILLEGAL)
    kept = read_receipts(receipts)
    with open_store(store_url, readonly=True, keys=keys) as store, open_witness(witness_url, store) as witness:
        try:
            duel_id = _duel_or_match(store, duel)     # a match's, as the service's /matches/ID/verify
        except StoreError as no_stream:
            _verify_round(store, duel, witness, bool(kept), as_json, no_stream)   # a round's, else this error
        mine = [r for r in kept if r.duel == duel_id]
        if kept and not mine:
            raise InputError(t("none of the {count} receipt(s) given is for duel {duel_id}",
                               count=len(kept), duel_id=duel_id))
        records = Records(store, witness)
        result, witnessed = records.verify(duel_id, mine)
        trust = trust_of(result.ok, store.info(duel_id).source, result.doubt)
        sealed = records.seals(duel_id) if result.ok else None
    trust["ok"] = ok = trust["ok"] and (sealed is None or sealed.ok)
    if as_json:
        echo(json.dumps({"id": duel_id, **trust, "events": result.events,
                         "first_bad_link": result.first_bad, "problem": result.problem or result.doubt,
                         "key": result.signer.text if result.signer else None,
                         "origin_verified": trust["origin"]["verified"], "receipts": len(mine),
                         "witnessed": witnessed.events if witnessed else None,
                         "seals": sealed.to_dict() if sealed else None}))
    elif result.ok:
        key = result.signer.fingerprint if result.signer else "?"
        echo((t("{duel}: ok, {count} events, hash chain intact, anchored and signed by organiser key {key}",
                duel=duel_id, count=result.events, key=key) if ok else
              t("{duel}: intact, {count} events, hash chain intact, anchored and signed by organiser key {key}",
                duel=duel_id, count=result.events, key=key))
             + (t("; holds the head of {count} receipt(s)", count=len(mine)) if mine else "")
             + (t("; its witness saw {count} events", count=witnessed.events) if witnessed else
                t("; its witness saw none of it") if witness else "")
             + (t("; NOT ok: {doubt}", doubt=said(result.doubt)) if result.doubt else "")
             + ("" if trust["origin"]["verified"] else
                t("; NOT ok: origin unverified: {why}", why=said(trust["origin"]["why"]))))
    if sealed is not None and not as_json:
        echo(t("{duel}: seals: {describe}", duel=duel_id, describe=sealed.describe())
             + ("" if sealed.ok else t("; NOT ok: an opened card does not match what was sealed")))
    if not result.ok and not as_json:
        where = t("the duel header") if result.first_bad == -1 else (
            t("event {index}", index=result.first_bad) if result.first_bad is not None else t("its anchor"))
        echo(t("{duel_id}: BROKEN at {where}: {problem}", duel_id=duel_id, where=where, problem=said(result.problem)))
    sys.exit(0 if ok else EXIT_ILLEGAL)
