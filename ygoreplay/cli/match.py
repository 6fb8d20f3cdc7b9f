"""``ygoreplay match``: start a match file, add its duels, side, call time, give penalties and
record the result, each refused (exit 1, nothing written) with the rule ID when the rules or
the match's policy forbid it; and ``check``/``show``/``log``/``audit``/``export``/``verify`` of a
match file (``duels`` and ``records`` hand a match file to ``run``)."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import click

from ..errors import InputError
from ..i18n import naming, said, t
from ..text import printable
from .common import EXIT_ILLEGAL, Words, echo, file_format, key_option, main, pick_list, signing_key

if TYPE_CHECKING:
    from ..events import Event
    from ..match.rules import MatchState
    from ..state import DuelState


def _add(path: str, events: list[Event], cards: tuple[str, ...] = (), read: MatchState | None = None) -> MatchState:
    """Append ``events`` to the match file; ``read``: the match they were made from, which the
    file must still be (else a conflict, nothing written: ``append_to_file``'s ``expected``)."""
    from ..card_sources import card_lookup
    from ..match import application as app
    state = app.append_to_file(path, events, card_lookup(cards), expected=read.index if read else None,
                               waiting=_waiting(path))
    for ev in events:
        echo(f"{path}: #{state.index - len(events) + events.index(ev)} {ev.kind}")
    return state


def _waiting(path: str) -> Callable[[], None]:
    """What says on stderr that another writer holds the match file, while this one waits for it."""
    return lambda: echo(t("{path}: another command is writing this match file; waiting for it", path=path),
                          err=True)


def _event(kind: str, **fields) -> Event:
    from ..events import from_dict
    from ..match import events as _kinds  # noqa: F401  (registers the match's event kinds)
    return from_dict({"kind": kind, **{k: v for k, v in fields.items() if v is not None}}, kind)


match_file = click.argument("match_path", metavar="MATCH.jsonl", type=click.Path(dir_okay=False, exists=True))
cards_opt = click.option("--cards", "cards", multiple=True, type=click.Path(dir_okay=False), metavar="CARDS.CDB",
                         help="A cards.cdb for the facts of the decklists' cards (repeatable).")


@main.group(name="match")
def match() -> None:
    """Record a match (best of three) as events: its decklists, duels, siding, time, penalties, result."""


@match.command(name="start")
@click.argument("path", metavar="MATCH.jsonl", type=click.Path(dir_okay=False))
@click.option("--players", nargs=2, required=True, metavar="P0 P1", help="The two players' names.")
@click.option("--policy", type=Words("ygoreplay.match.policies", "POLICIES"), required=True, help="The end-of-match procedure.")
@click.option("--banlist", "banlist_file", type=click.Path(dir_okay=False, exists=True), required=True,
              help="An lflist.conf holding the event's banlist (its content travels with the match).")
@click.option("--list", "list_name", default=None, metavar="NAME", help="Which list of the file (if several).")
@click.option("--deck0", default=None, metavar="DECK", help="Player 0's decklist (.ydk or ydke://), with its side.")
@click.option("--deck1", default=None, metavar="DECK", help="Player 1's decklist.")
@click.option("--format", "format_", default="", help="The format (e.g. Advanced).")
@click.option("--event", "event_name", default="", help="The tournament's name.")
@click.option("--round", "round_", type=int, default=None, help="The round of the tournament.")
@cards_opt
def start(path: str, players: tuple[str, str], policy: str, banlist_file: str, list_name: str | None,
          deck0: str | None, deck1: str | None, format_: str, event_name: str, round_: int | None,
          cards: tuple[str, ...]) -> None:
    """Start a match file: players, policy, banlist by name and content hash, and decklists."""
    from ..card_sources import card_lookup
    from ..decks import read_deck
    from ..match import application as app
    banlist = pick_list(banlist_file, list_name)
    lookup = card_lookup(cards)
    decks = [read_deck(spec) if spec else None for spec in (deck0, deck1)]
    events = app.started(list(players), policy, banlist, format=format_, event_name=event_name, round=round_,
                         decks=decks)
    app.create_file(path, events, lookup)
    echo(t("{path}: a {policy} match of {players} and {players2}, banlist {name!r}, {sum} decklist(s)",
           path=path, policy=policy, players=printable(players[0]), players2=printable(players[1]), name=printable(banlist.name), sum=sum(d is not None for d in decks)))


@match.command(name="deck")
@match_file
@click.option("--player", type=click.IntRange(0, 1), required=True)
@click.argument("deck", metavar="DECK")
@cards_opt
def register_deck(match_path: str, player: int, deck: str, cards: tuple[str, ...]) -> None:
    """Register a player's decklist (DECK rules, DECK-08 against the match's banlist; once: MATCH-04)."""
    from ..decks import read_deck
    d = read_deck(deck)
    _add(match_path, [_event("decklist_registered", player=player, main=d.main, extra=d.extra, side=d.side)], cards)


@match.command(name="duel")
@match_file
@click.argument("duel", metavar="DUEL")
@click.option("--first", "first_player", type=click.IntRange(0, 1), default=None,
              help="Who goes first (default: the duel file's duel_started).")
@click.option("--chosen-by", "chosen_by", type=click.IntRange(0, 1), default=None,
              help="Who chose (default: the duel file's; from duel 2 the previous loser: MATCH-07).")
@click.option("--extra-duel", is_flag=True, help="The 4-turn extra duel after time (TIME-08).")
@cards_opt
def add_duel(match_path: str, duel: str, first_player: int | None, chosen_by: int | None, extra_duel: bool,
             cards: tuple[str, ...]) -> None:
    """Add the match's next duel: DUEL is a duel file beside the match (or a store id); a finished
    duel file also records how it ended."""
    from ..card_sources import card_lookup
    from ..match import application as app
    from ..match.events import GAME_ENDINGS
    from ..match.links import first_players, standing
    state = app.state_of(match_path, card_lookup(cards))
    game = len(state.games) + 1
    ending: list[Event] = []
    found = _duel_file(match_path, duel, cards)
    if found is not None:
        events, end = found
        first = events[0] if events else None
        if first is not None and first.kind == "duel_started":    # by the match's players
            going, chose = first_players(first, state.players)
            first_player = going if first_player is None else first_player
            chosen_by = chose if chosen_by is None else chosen_by
        read = standing(end, state.players)
        if end.ended:
            how = end.end_reason if end.end_reason in GAME_ENDINGS else "judge"
            ending = [_event("game_ended", game=game, winner=read.winner, how=how)]
    if first_player is None:
        raise click.UsageError(t("--first is needed: the duel is not a file beside the match"))
    _add(match_path, [_event("game_started", game=game, duel=duel, first_player=first_player, chosen_by=chosen_by,
                             extra_duel=extra_duel or None)] + ending, cards, state)


def _duel_file(match_path: str, duel: str, cards: tuple[str, ...]) -> tuple[list[Event], DuelState] | None:
    """The duel file ``duel`` beside the match: its events and its board at their end, or None
    when the match names no such file."""
    from ..card_sources import card_lookup
    from ..jsonl import read_events
    path = Path(match_path).parent / duel
    if not duel or not path.is_file():
        return None
    from ..rules import audit
    lookup = card_lookup(cards)
    events = read_events(path, lookup.passcode)
    return events, audit(events, lookup).state


@match.command(name="end-duel")
@match_file
@click.option("--winner", type=click.Choice(["0", "1", "draw"]), required=True)
@click.option("--how", type=Words("ygoreplay.match.events", "GAME_ENDINGS"), required=True)
@cards_opt
def end_duel(match_path: str, winner: str, how: str, cards: tuple[str, ...]) -> None:
    """Record how the duel in progress ended by itself (as its file beside the match ended, if
    it has one: LOG-09)."""
    from ..card_sources import card_lookup
    from ..match import application as app
    from ..match.links import check_ending, standing
    state = app.state_of(match_path, card_lookup(cards))
    playing = state.current
    ev = _event("game_ended", game=playing.number if playing else len(state.games),
                winner=None if winner == "draw" else int(winner), how=how)
    found = _duel_file(match_path, playing.duel, cards) if playing is not None else None
    if found is not None:
        check_ending(playing, standing(found[1], state.players), ev, state.index)
    _add(match_path, [ev], cards, state)


@match.command(name="side")
@match_file
@click.option("--player", type=click.IntRange(0, 1), required=True)
@click.option("--main-out", multiple=True, type=int, metavar="PASSCODE", help="Out of the Main Deck (repeatable).")
@click.option("--main-in", multiple=True, type=int, metavar="PASSCODE", help="From the Side into the Main Deck.")
@click.option("--extra-out", multiple=True, type=int, metavar="PASSCODE")
@click.option("--extra-in", multiple=True, type=int, metavar="PASSCODE")
@cards_opt
def side(match_path: str, player: int, main_out: tuple[int, ...], main_in: tuple[int, ...],
         extra_out: tuple[int, ...], extra_in: tuple[int, ...], cards: tuple[str, ...]) -> None:
    """Swap cards with the Side Deck between duels: one-for-one, sizes kept (MATCH-05/06)."""
    _add(match_path, [_event("side_deck_swapped", player=player, main_out=list(main_out), main_in=list(main_in),
                             extra_out=list(extra_out), extra_in=list(extra_in))], cards)


@match.command(name="time")
@match_file
@click.option("--clock", required=True, metavar="TIME",
              help="The wall clock when time was called: an ISO 8601 date and time with its UTC offset "
                   "(2025-12-06T10:40:00Z).")
@click.option("--turn", type=int, default=None, help="The turn in progress (when a duel is being played).")
@click.option("--phase", type=Words("ygoreplay.events", "PHASES"), default=None)
@click.option("--turn-player", type=click.IntRange(0, 1), default=None)
def call_time(match_path: str, clock: str, turn: int | None, phase: str | None, turn_player: int | None) -> None:
    """Call time (TIME-01): in the duel in progress (give --turn and --phase) or between duels."""
    from ..card_sources import card_lookup
    from ..match import application as app
    state = app.state_of(match_path, card_lookup(()))
    game = state.current.number if state.current else None
    _add(match_path, [_event("time_called", clock=clock, game=game, turn=turn, phase=phase, turn_player=turn_player)],
         read=state)


@match.command(name="extra-turn")
@match_file
@click.option("--turn", type=int, required=True, help="The duel's turn number of this extra turn.")
def extra_turn(match_path: str, turn: int) -> None:
    """Start the next extra turn after time (TIME-03; refused where the policy has none)."""
    from ..card_sources import card_lookup
    from ..match import application as app
    state = app.state_of(match_path, card_lookup(()))
    game = state.current
    number = game.number if game else len(state.games)
    _add(match_path, [_event("extra_turn_started", game=number, n=(game.extra_turns if game else 0) + 1, turn=turn)],
         read=state)


@match.command(name="decide")
@match_file
@click.option("--lp", nargs=2, type=int, required=True, metavar="LP0 LP1", help="The LP the duel is judged on.")
@click.option("--stage", type=Words("ygoreplay.match.events", "DECISION_STAGES"), default=None,
              help="Default: phase_end or extra_turns as the policy says.")
@click.option("--turn", type=int, default=None)
def decide(match_path: str, lp: tuple[int, int], stage: str | None, turn: int | None) -> None:
    """Judge the duel in progress on LP under the policy (TIME-04/05/08)."""
    from ..card_sources import card_lookup
    from ..match import application as app
    state = app.state_of(match_path, card_lookup(()))
    _add(match_path, [_event("game_decided", **app.decision(state, {"lp": list(lp), "stage": stage, "turn": turn}))],
         read=state)


@match.command(name="penalty")
@match_file
@click.option("--player", type=click.IntRange(0, 1), required=True)
@click.option("--infraction", type=Words("ygoreplay.match.events", "INFRACTIONS"), required=True, help="PEN-02's list.")
@click.option("--penalty", type=Words("ygoreplay.match.events", "PENALTIES"), required=True)
@click.option("--judge", required=True)
@click.option("--note", default="")
def penalty(match_path: str, player: int, infraction: str, penalty: str, judge: str, note: str) -> None:
    """Give a penalty (PEN-02); a game loss ends the duel in progress, a match loss the match."""
    _add(match_path, [_event("penalty_given", player=player, infraction=infraction, penalty=penalty, judge=judge,
                             note=note or None)])


@match.command(name="judge")
@match_file
@click.option("--judge", "judge", required=True)
@click.option("--call", "call_player", type=click.IntRange(0, 1), default=None, help="Player who calls the judge.")
@click.option("--ruling", default=None, help="The judge's ruling (answers the last call: MATCH-08).")
@click.option("--appeal", "appeal_player", type=click.IntRange(0, 1), default=None,
              help="Player who appeals the last ruling (not after the match: MATCH-10).")
@click.option("--decision", type=click.Choice(["upheld", "overturned"]), default="upheld")
@click.option("--note", default="")
def judge(match_path: str, judge: str, call_player: int | None, ruling: str | None, appeal_player: int | None,
          decision: str, note: str) -> None:
    """A judge call, a ruling, or an appeal (MATCH-08/10)."""
    given = [x is not None for x in (call_player, ruling, appeal_player)]
    if sum(given) != 1:
        raise click.UsageError(t("give one of --call, --ruling, --appeal"))
    if call_player is not None:
        ev = _event("judge_called", player=call_player, judge=judge, question=note or None)
    elif ruling is not None:
        ev = _event("judge_ruled", judge=judge, ruling=ruling)
    else:
        ev = _event("ruling_appealed", player=appeal_player, judge=judge, decision=decision, note=note or None)
    _add(match_path, [ev])


@match.command(name="concede")
@match_file
@click.option("--player", type=click.IntRange(0, 1), required=True)
def concede(match_path: str, player: int) -> None:
    """A player concedes the match."""
    _add(match_path, [_event("match_conceded", player=player)])


@match.command(name="result")
@match_file
@click.option("--json", "as_json", is_flag=True)
def result(match_path: str, as_json: bool) -> None:
    """Record the match's result as the rules and the policy give it (refused while it cannot end)."""
    from ..card_sources import card_lookup
    from ..match import application as app
    from ..match.sentences import describe_result as _describe_result
    state = app.state_of(match_path, card_lookup(()))
    ev = app.result_event(state)
    app.append_to_file(match_path, [ev], card_lookup(()), expected=state.index, waiting=_waiting(match_path))
    data = ev.to_dict()
    echo(json.dumps(data) if as_json else f"{match_path}: {_describe_result(data, state)}")


@match.command(name="export")
@match_file
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False))
@key_option
@cards_opt
def export(match_path: str, output: str, keys: tuple[str, ...], cards: tuple[str, ...]) -> None:
    """Write the match as one signed .ygr holding its duels, each a signed judge file of its own."""
    run("export", match_path, output=output, cards=cards, keys=keys)


# -- the generic commands on a match file -------------------------------------------------------------

def handles(path: str) -> bool:
    """Whether a generic command (check, show, log, audit, export, verify) should hand ``path`` here."""
    from ..formats import MATCH
    return file_format(path) is MATCH


def run(command: str, path: str, *, as_json: bool = False, cards: tuple[str, ...] = (), keys: tuple[str, ...] = (),
        output: str | None = None, view: str | None = None) -> None:
    """``check``/``show``/``log``/``audit``/``export``/``verify`` of a match file; exits like the duel's.
    ``view`` (``log``, ``export``'s ``--view``): what that view may see of the match, as the
    service gives it (``match.views.view_dict``: a decklist or swap of the other player's
    withheld), never the whole record under the view's name."""
    from ..card_sources import card_lookup
    from ..match import application as app
    from ..match.files import match_replay, open_match, verify_games
    from ..match.sentences import describe_result as _describe_result, sentence as _sentence
    from ..match.views import view_dict
    from ..replay_file import verify_chain, write as write_replay
    from ..application import trusted_keys
    from ..trust import verify_file
    match_ = open_match(path, card_lookup(cards))
    if command == "export":
        if view not in (None, "judge"):
            raise InputError(t("{path}: a match file is exported whole, as its judge's record: the {view} view of "
                               "a match is the service's (GET /matches/ID/replay.ygr?view={view})", path=path, view=view))
        replay = match_replay(match_, signing_key(), trust=trusted_keys(keys))
        size = write_replay(output, replay, signing_key())
        echo(t("{output}: a match of {count} events and {count2} duel(s), judge view, {size} bytes, signed",
               output=output, count=len(replay.events), count2=len(replay.games), size=size))
        return
    if command == "verify":
        if match_.replay is None:
            raise InputError(t("{path}: a JSON Lines match has no hash chain to verify; check it, or export it",
                               path=path))
        trust = trusted_keys(keys)
        outer = verify_file(match_.replay, trust)
        games = verify_games(match_.replay, trust)
        ok = outer.ok and all(g["ok"] for g in games)
        if as_json:
            echo(json.dumps({"file": path, **outer.to_dict(), "ok": ok, "games": games}))
        else:
            echo(t("{path}: {value}, match of {events} events, hash chain {value2}, {describe}",
                   path=path, value=t("ok") if outer.ok else t("NOT ok"), events=outer.events, value2=t("intact") if outer.first_bad is None else t("BROKEN"), describe=outer.signature.describe()))
            for g in games:
                echo("  " + t("duel {game}: {value}, {events} events, chain {value2}",
                       game=g['game'], value=t("ok") if g["ok"] else t("NOT ok"), events=g['events'], value2=t("intact") if g["chain_ok"] else t("BROKEN")))
        sys.exit(0 if ok else EXIT_ILLEGAL)
    report = app.report(match_)
    data = report.to_dict()
    if command in ("check", "audit"):
        if command == "audit" and match_.replay is not None:
            first_bad = verify_chain(match_.replay)
            data["chain"] = "intact" if first_bad is None else "broken"
            data["games_verified"] = verify_games(match_.replay, trusted_keys(keys))
        ok = report.legal and data.get("chain") != "broken"
        if as_json:
            echo(json.dumps(data))
        else:
            for v in data["violations"]:
                where = f"#{v['index']}" if v["index"] is not None else f"duel {v['game']}" + (
                    f" #{v['duel_index']}" if v["duel_index"] is not None else "")
                echo(f"{where} {v['rule']} {said(v['message'])}")
            for game, why in report.missing.items():
                echo(t("note: duel {game} was not checked: {why}", game=game, why=why))
            if "chain" in data:
                echo(t("hash chain: {chain}", chain=t("intact") if data["chain"] == "intact" else t("BROKEN")))
            verdict = t("legal") if report.legal else t("{count} violation(s)", count=len(data["violations"]))
            m = data["match"]
            echo(t("{path}: {verdict}; policy {policy}, {events} events, {games} duel(s); {result}", path=path,
                   verdict=verdict, policy=m["policy"], events=data["events"], games=len(m["games"]),
                   result=_describe_result(m["result"], report.state) if m["ended"] else t("not finished")))
        sys.exit(0 if ok else EXIT_ILLEGAL)
    if command == "show":
        with naming(report.state.players):     # the match file's sentences name its players whole
            for line in _show_lines(report.state, data):
                echo(line)
        return
    if command == "log":
        for i, ev in enumerate(match_.events):
            if as_json:
                echo(json.dumps({"index": i, **view_dict(ev, view or "judge")}, ensure_ascii=False))
            else:
                echo(f"#{i:<3} {_sentence(ev, report.state)}")
        return
    raise InputError(t("{command} does not apply to a match file", command=command))


def _show_lines(state: MatchState, data: dict) -> list[str]:
    from ..match.sentences import describe_result as _describe_result
    m = data["match"]
    names = state.players
    lines = [t("match: {player0} (player 0) vs {player1} (player 1)", player0=printable(names[0]),
               player1=printable(names[1])),
             t("policy: {name}: {title}, {date}", name=state.policy.name, title=state.policy.title,
               date=state.policy.date),
             t("banlist: {name} ({hash})", name=printable(state.banlist.name), hash=state.banlist_hash)]
    for p in (0, 1):
        deck = state.decks[p]
        if deck is not None:
            lines.append(t("deck {player}: Main {main}, Extra {extra}, Side {side}", player=p, main=len(deck.main),
                           extra=len(deck.extra), side=len(deck.side)))
    for g in state.games:
        result = (t("being played") if not g.ended else t("a draw") if g.winner is None else
                  t("won by {player}", player=printable(names[g.winner]))) + (f" ({said(g.how)})" if g.ended else "")
        first = t(", {player} first", player=printable(names[g.first_player])) if g.first_player is not None else ""
        lp = t(", judged on LP {lp0} / {lp1}", lp0=g.lp[0], lp1=g.lp[1]) if g.lp else ""
        turns = t(", {count} extra turn(s)", count=g.extra_turns) if g.extra_turns else ""
        lines.append((t("duel {number} (extra duel)", number=g.number) if g.extra_duel else
                      t("duel {number}", number=g.number))
                     + f": {printable(g.duel) or '-'}{first}; {result}{turns}{lp}")
    if state.time is not None:
        called = state.time
        lines.append(t("time called at {clock} in duel {game}, turn {turn}, {phase}", clock=printable(called.clock),
                       game=called.game, turn=called.turn, phase=said(called.phase)) if called.game else
                     t("time called at {clock} between duels", clock=printable(called.clock)))
    for p in state.penalties:
        lines.append(t("penalty: {player}: {penalty} for {infraction} ({judge})", player=printable(names[p.player]),
                       penalty=said(p.penalty), infraction=said(p.infraction), judge=printable(p.judge)))
    lines.append(t("result: {result}", result=_describe_result(m["result"], state) if m["ended"] else t("not finished")))
    return lines
