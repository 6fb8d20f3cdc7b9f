"""``check FILE``: a duel file folded through the rules and its report printed, with or without
click. The ``check`` command (``duels.py``) declares the command and runs ``check_file``; the
launcher runs ``check FILE`` (``--json``) on a JSON Lines file by ``without_click`` when click would
print the very same bytes: then ``check`` imports no click (issue 25: click's import was a third
of ``check``'s start-up)."""
from __future__ import annotations

import json
import os
import stat
import sys

from .. import i18n
from ..i18n import said, t
from ..text import printable
from . import dataclasses_without_inspect, kept_aside
from .duel_files import file_format, load_events
from .output import EXIT_ILLEGAL, answered, echo, escape_streams, plain_stream

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

    from ..checking import CheckReport


def check_file(file: str, as_json: bool, cards: tuple[str, ...]) -> None:
    """``ygoreplay check FILE``: a match file is the match commands', a replay file is opened as
    a source, JSON Lines events are read with the cards they name; exit 0 when legal, else 1."""
    with kept_aside():                  # what checking a file imports lives as long as the process
        from ..checking import check as check_events, check_source
        from .. import card_sources, formats, jsonl  # noqa: F401  (load_events and file_format's)
    fmt = file_format(file)
    if fmt is not None and fmt.yields == "match":                # a match file (issue 14)
        from . import match as match_cli
        match_cli.run("check", file, as_json=as_json, cards=cards)
        return
    if fmt is not None and fmt.yields != "events":              # a replay file, an imported replay
        from .common import open_duel
        with open_duel(file, None, cards) as source:
            report = check_source(source)
    else:
        report = check_events(*load_events(file, cards))
    print_report(file, report, as_json)


def without_click(args: list[str]) -> None:
    """Run ``check FILE`` or ``check --json FILE`` (``FILE --json``) here, when click would print
    what this prints: ``FILE`` a readable file that is no folder and holds JSON Lines events (click
    refuses a folder or an unreadable file with its usage error), both streams plain
    (``output.plain_stream``). The language is the environment's, as click's group takes it
    without ``--lang``; errors are answered as the group answers them (``output.answered``).
    Returns, having done nothing, for anything else: click runs the command."""
    shape = args[1:]
    as_json = "--json" in shape
    if as_json:
        shape = [a for a in shape if a != "--json"]
    if len(shape) != 1 or len(args) != 2 + as_json or shape[0].startswith("-"):
        return
    file = shape[0]
    try:
        status = os.stat(file)
    except (OSError, ValueError):
        return
    if stat.S_ISDIR(status.st_mode) or not os.access(file, os.R_OK):
        return
    if not (plain_stream(sys.stdout) and plain_stream(sys.stderr)):
        return
    escape_streams()                        # as click's group does first
    with i18n.using(i18n.from_environment()), answered():
        # imported within ``answered``, as click's command imports them: Ctrl-C meanwhile is
        # "interrupted" (exit 130), not a traceback
        dataclasses_without_inspect()
        with kept_aside():
            from ..checking import check as check_events
            from .. import card_sources, formats, jsonl  # noqa: F401  (load_events and file_format's)
        fmt = file_format(file)
        if fmt is not None and fmt.yields != "events":
            return                          # a match or a replay file: click's command opens it
        print_report(file, check_events(*load_events(file, ())), as_json)


def print_report(file: str, report: CheckReport, as_json: bool) -> NoReturn:
    """The report, as one JSON object or as lines; exit 0 when legal, else 1."""
    if as_json:
        echo(json.dumps(report.to_dict()))
    else:
        data = report.to_dict()
        for v in data["violations"]:
            echo(f"#{v['index']} {v['rule']} {said(v['message'])}")
        for o in data["overrides"]:
            cite = o["cite"]
            echo(f"#{o['index']} {o['rule']} " + t("set aside by {card}", card=cite["card"])
                 + f"{': ' + cite['effect'] if cite['effect'] else ''} ({said(o['message'])})")
        for line in witness_lines(data):
            echo(line)
        final, state = data["final"], report.report.state
        verdict = t("legal") if report.legal else t("{count} violation(s)", count=len(data["violations"]))
        flagged = t(" {count} kept flagged (witnessed);", count=len(data["flagged"])) if data["flagged"] else ""
        result = (t("a draw") if final["winner"] is None else t("player {number} won", number=final["winner"])) \
            if state.ended else t("not finished")
        echo(t("{file}: {verdict};{flagged} {events} events, turn {turn}, LP {first} / {second}, {result}",
               file=printable(file), verdict=verdict, flagged=flagged, events=data["events"], turn=final["turn"],
               first=final["lp"][0], second=final["lp"][1], result=result)
             + (f" ({final['reason']})" if state.ended else ""))
        echo_checked(data["checked"])
        cited = sorted({v["rule"] for v in data["violations"]} | {o["rule"] for o in data["overrides"]}
                       | {u["rule"] for u in data["checked"]["undecided"]} | {f["rule"] for f in data["flagged"]})
        if cited:
            echo(t("what a rule says and where it is checked: {command}", command="ygoreplay rules " + " ".join(cited)))
    sys.exit(0 if report.legal else EXIT_ILLEGAL)


def echo_checked(checked: dict) -> None:
    """How much the record let the rules check: one line when every event was, else the count of
    events with an unknown card and each rule left undecided, with where."""
    unknown = checked["unknown_card_events"]
    if not unknown and not checked["undecided"]:
        return
    line = t("{events} events: {fully} fully checked, {unknown} with an unknown card",
             events=checked["events"], fully=checked["fully_checked"], unknown=unknown)
    undecided = checked["undecided"]
    if undecided:
        line += t("; not decided: {where}", where=", ".join(f"#{u['index']} {u['rule']}" for u in undecided))
    echo(line)
    for u in undecided:
        echo("  " + t("#{index} {rule} not decided (it needs a card the record does not know): {message}",
                      index=u["index"], rule=u["rule"], message=said(u["message"])))


def witness_lines(data: dict) -> list[str]:
    """A witnessed duel's flagged events and what followed each, its disputes and struck entries,
    as ``check`` and ``audit`` print them (``application.witness_dict``)."""
    lines = []
    for f in data["flagged"]:
        lines.append(t("#{index} flagged {rule} {message} (entered by {by}; {followed})", index=f["index"],
                       rule=f["rule"], message=said(f["message"]), by=f["by"] or t("nobody named"),
                       followed=_followed(f["ruled"])))
    for d in data["disputed"]:
        lines.append(t("#{index} disputed by {by} at #{at}: {reason} ({followed})", index=d["index"], by=d["by"],
                       at=d["at"], reason=printable(d["reason"]),
                       followed=t("open: a judge call") if d["open"] else _followed(d["ruled"])))
    for s in data["struck"]:
        lines.append(t("#{index} struck: corrected at #{at}", index=s["index"], at=s["corrected_at"]))
    for c in data["calls"]:                      # where the table called the judge (access.CALL)
        lines.append(t("#{index} judge call by {by}: {note} ({followed})", index=c["index"],
                       by=c["by"] or c["judge"] or t("nobody named"), note=printable(c["note"]),
                       followed=t("open: a judge call") if c["ruled"] is None else _followed(c["ruled"])))
    if data["unconfirmed"]:
        count = len(data["unconfirmed"])
        lines.append(t("1 entry not confirmed by the other side") if count == 1 else
                     t("{count} entries not confirmed by the other side", count=count))
    return lines


def _followed(ruled: dict | None) -> str:
    """What followed a flagged or disputed entry, in the reader's language (a judge's decision is
    one of ``events.DECISIONS``, catalogued)."""
    if ruled is None:
        return t("open: nothing followed it")
    if ruled["how"] == "judge_note":
        return t("ruled at #{at} by {judge}: {decision}", at=ruled["at"], judge=printable(ruled["judge"] or ""),
                 decision=t(ruled["decision"]) if ruled["decision"] else "")
    if ruled["how"] == "rolled_back":
        return t("reverted by the rollback at #{at}", at=ruled["at"])
    return t("struck by the correction at #{at}", at=ruled["at"])
