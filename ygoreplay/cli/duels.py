"""Reading and studying a duel: ``check`` its rules, the ``rules`` catalogue, ``show`` a board,
``log`` its events as text, ``play`` through it, ``audit`` it end to end (a match file is handed
to ``match.run``)."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ..errors import InputError
from .. import i18n
from ..i18n import said, say, t
from ..text import number, printable
from .checks import check_file, echo_checked, witness_lines
from .common import (
    EXIT_ILLEGAL, card_db, cards_option, echo, key_option, main, open_duel, open_store, open_witness, store_option,
    terminal_width, view_option, witness_option)

if TYPE_CHECKING:
    from ..source import Source
    from ..study import Study


def _position(events: list, at: int | None, turn: int | None, spec: str) -> int:
    """The event index to show: --at N, the start of --turn T, or the last event. ``spec`` is the
    duel as the user named it: a user's value (``i18n.USER_VALUES``), never read as a word."""
    if at is not None and turn is not None:
        raise click.UsageError("give --at or --turn, not both")
    if not events:
        raise InputError(say("{spec}: the duel has no events", spec=spec))
    if turn is not None:
        starts = [i for i, e in enumerate(events) if e.kind == "turn_started" and e.turn == turn]
        if not starts:
            raise InputError(say("{spec}: the duel has no turn {turn}", spec=spec, turn=turn))
        return starts[0]
    if at is None:
        return len(events) - 1
    if not 0 <= at < len(events):
        raise InputError(say("{spec}: --at {at} is outside the duel's events 0..{value}",
                             spec=spec, at=at, value=len(events) - 1))
    return at


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@cards_option
def check(file: str, as_json: bool, cards: tuple[str, ...]) -> None:
    """Fold a JSON Lines duel (or a .ygr file, or an EDOPro .yrpX replay) through the rules and
    list every violation, and every rule a card the record does not know left undecided (a view
    is the record of what its viewer saw: checked as far as it knows)."""
    check_file(file, as_json, cards)


def _flagged_count(data: dict) -> str:
    return f", {len(data['flagged'])} flagged" if data["flagged"] else ""


@main.command(name="rules")
@click.argument("queries", nargs=-1, metavar="[ID|SECTION]...")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@click.option("--seeds", "seeds", default=None, metavar="DIR",
              help="The Chinese seed documents the rules were distilled from, to quote a rule asked for by ID "
                   "(default: $YGOREPLAY_SEEDS, then the shared folder next to the repository).")
@click.option("--quote", "quote", is_flag=True,
              help="Quote the seed text of a rule asked for by ID (the default in any language but English).")
def rules_command(queries: tuple[str, ...], as_json: bool, seeds: str | None, quote: bool) -> None:
    """What each rule of the catalogue says, and whether and where it is enforced.

    ID is a rule ID (SUM-04), SECTION its prefix (SUM); none lists every rule. A rule asked for
    by ID is quoted from the Chinese seed text it was distilled from when read in another language
    than English (or with --quote or --seeds). Exit code 2 for an ID or section the catalogue does
    not have."""
    from ..explain import STATUS_WORDS, how, seed_quotes, summary
    from ..rules.coverage import RULES, counts as rule_counts, select as select_rules
    from ..seeds import seeds_folder
    chosen = []
    for query in queries or (None,):
        found = select_rules(query)
        if not found:
            raise InputError(t("no rule {query} in the catalogue (an ID such as SUM-04, or a section such as SUM; "
                               "`ygoreplay rules` lists them all)", query=repr(query)))
        chosen += [rule for rule in found if rule not in chosen]
    folder = seeds_folder(seeds)
    if seeds is not None and folder is None:
        raise InputError(t("{path}: no such folder of seed documents", path=seeds))
    quoting = quote or seeds is not None or i18n.current() != i18n.DEFAULT
    asked = {query.strip().upper() for query in queries if query.strip().upper() in RULES} if quoting else set()
    quoted = {rule.id: seed_quotes(rule, folder) for rule in chosen if rule.id in asked}
    if as_json:
        echo(json.dumps({"rules": [{**rule.to_dict(), "summary": summary(rule),
                                    **({"seed_quotes": [q.to_dict() for q in quoted[rule.id]]}
                                       if rule.id in quoted else {})} for rule in chosen],
                         "counts": rule_counts()}))
        return
    for rule in chosen:
        echo(f"{rule.id} {summary(rule)} [{how(rule)}]")
        for quote in quoted.get(rule.id, ()):
            echo(f"  「{quote.text}」 ({quote.file})")
    if not queries:
        echo(t("{count} rules: {tally}", count=len(chosen),
               tally=", ".join(f"{n} {t(STATUS_WORDS[status])}" for status, n in rule_counts().items())))


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
    from . import match as match_cli      # a match file is the match commands' (issue 14)
    if match_cli.handles(duel):
        return match_cli.run("show", duel, cards=cards)
    if turn is None and view in (None, "judge") and not Path(duel).is_file():
        from .boards import show_stored          # a stored duel's board: from its nearest snapshot
        return show_stored(duel, at, store_url)
    from ..render import render                  # rich: only for the commands that draw a board
    with open_duel(duel, store_url, cards, view) as source:
        index = _position(source.events, at, turn, source.name)
        state = source.state_after(index, view)
        echo(render(state, t("after event #{index} ({kind})", index=index, kind=source.events[index].kind)
                    + (t(", {view} view", view=view or source.view) if (view or source.view) != "judge" else ""),
                    width=terminal_width()), nl=False)


@main.command(name="actions")
@click.argument("duel")
@click.option("--at", "at", type=int, default=None, help="After event N (0-based; default: the last).")
@click.option("--card", "card", default=None, metavar="ID", help="The actions that fit this card where it is.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of text.")
@cards_option
@store_option
def actions_command(duel: str, at: int | None, card: str | None, as_json: bool, cards: tuple[str, ...],
                    store_url: str | None) -> None:
    """What may be entered next: the actions that fit a card where it is (or, without --card, the
    turn's own moves), each with the rules' verdict: legal, undecided (it needs a card the record
    does not know) or illegal, with its rule IDs. The service answers the same at /duels/{id}/actions."""
    from ..actions import actions
    with open_duel(duel, store_url, cards) as source:
        index = _position(source.events, at, None, source.name)
        found = actions(source.state_after(index, None), card)
        if as_json:
            echo(json.dumps({"at": index, "card": card, "actions": [a.to_dict() for a in found]}, ensure_ascii=False))
            return
        for action in found:
            rules = f" ({' '.join(action.rules)})" if action.rules else ""
            choices = "".join(f"; {key}: {', '.join(map(str, values))}" for key, values in action.choices.items())
            echo(f"{said(action.label)}: {action.verdict}{rules}  {json.dumps(action.event, ensure_ascii=False)}{choices}")


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
    from ..log import EntryFilter, log_lines, narrate
    from . import match as match_cli      # a match file is the match commands' (issue 14)
    if match_cli.handles(duel):
        return match_cli.run("log", duel, as_json=as_json, cards=cards, view=view)
    with open_duel(duel, store_url, cards, view) as source:
        keep = EntryFilter(_turn_range(turns), card, _player_of(source, player))
        entries = narrate(source.steps(view), source.reverted, source.marks(view))
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
             "event naming TEXT · c / C the next / previous judge call, flagged or disputed entry · "
             "v VIEW switch view (judge, p0, p1, spectator) · q quit")


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
    from ..study import Study
    with open_duel(duel, store_url, cards) as source:
        study = Study(source, view)
        if not plain and sys.stdin.isatty() and sys.stdout.isatty():
            from ..tui import PlayApp
            PlayApp(study).run()
            return
        _play_lines(study)


def _play_lines(study: Study) -> None:
    """``play`` one command a line: each answer a heading and the board after the event."""
    from ..source import SourceError
    from ..views import VIEWS
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
        elif word in ("c", "C") and not arg:       # as the terminal viewer's c / C (a judge reviewing calls)
            if study.next_call(1 if word == "c" else -1) is None:
                echo(t("no later judge call, flag or dispute") if word == "c" else
                     t("no earlier judge call, flag or dispute"))
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
    from ..application import audit_source, trusted_keys
    from ..source import open_source
    from . import match as match_cli      # a match file is the match commands' (issue 14)
    if match_cli.handles(duel):
        return match_cli.run("audit", duel, as_json=as_json, cards=cards, keys=keys)
    if Path(duel).is_file():
        with open_duel(duel, None, cards) as source:
            result = audit_source(source, None, trusted_keys(keys))
    else:
        with open_store(store_url, readonly=True, keys=keys) as store, open_witness(witness_url, store) as witness:
            source = open_source(duel, store, card_db(cards))
            result = audit_source(source, store, trusted_keys(keys), witness)
    data = result.to_dict()
    if as_json:
        echo(json.dumps(data))
        sys.exit(0 if result.ok else EXIT_ILLEGAL)
    for v in data["violations"]:
        echo(f"#{v['index']} {v['rule']} {said(v['message'])}")
    for o in data["overrides"]:
        echo(f"#{o['index']} {o['rule']} " + t("set aside by {card}", card=o["cite"]["card"]) + f" ({said(o['message'])})")
    for r in data["rollbacks"]:
        echo(f"#{r['index']} " + t("rollback to before event {index} by {judge}: {reason}", index=r["to"],
                                   judge=printable(r["judge"]), reason=printable(r["reason"])))
    for line in witness_lines(data):
        echo(line)
    if result.chain == "none":
        echo(t("hash chain: none (a JSON Lines file has no hash chain; record or export it for one)"))
    elif result.chain != "broken":
        echo(t("hash chain: intact and anchored") if result.chain == "anchored" else t("hash chain: intact"))
    else:
        first_bad = result.first_bad
        where = t("the header") if first_bad == -1 else t("event {index}", index=first_bad) if first_bad is not None \
            else t("its anchor")
        echo(t("hash chain: BROKEN at {where}", where=where) + (f": {said(result.problem)}" if result.problem else ""))
    if result.signature is not None:
        echo(f"signature: {result.signature.describe()}")
    if source.view != "judge":
        echo(t("rules: checked as far as a {view} view knows (what its viewer saw)", view=source.view))
    echo_checked(data["checked"])
    undecided = sorted({u["rule"] for u in data["checked"]["undecided"]})
    if undecided:
        echo(t("what a rule says and where it is checked: {command}", command="ygoreplay rules " + " ".join(undecided)))
    state = result.state
    if state:
        outcome = t("not finished") if not state.ended else (
            t("a draw") if state.winner is None else t("player {number} won", number=state.winner))
        unexplained = sum(o["unexplained"] for o in data["overrides"])
        echo(f"{source.name}: {len(data['violations'])} violation(s), {len(data['overrides'])} override(s)"
             + (f" ({unexplained} unexplained, for review)" if unexplained else "") + ", "
             f"{len(data['rollbacks'])} rollback(s){_flagged_count(data)}; LP {state.sides[0].lp} / {state.sides[1].lp}, {outcome}"
             + (f" ({state.end_reason})" if state.ended else ""))
    sys.exit(0 if result.ok else EXIT_ILLEGAL)
