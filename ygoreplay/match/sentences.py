"""What each match event says: one line per kind, for ``log``/``show`` of a match file, the
service's match log and the match page (every name in them is the players' own: printed through
``printable``).

Each kind's sentence is registered with ``@describes(EventClass)`` where it is written, like the
duel's (``ygoreplay.sentences``); ``sentence`` looks it up.
"""
from __future__ import annotations

from ..events import Event
from ..i18n import t
from ..kinds import PerKind
from ..text import printable
from .events import (
    MATCH_KINDS, DecklistRegistered, ExtraTurnStarted, GameDecided, GameEnded, GameStarted, JudgeCalled,
    JudgeRuled, MatchConceded, MatchEnded, MatchStarted, PenaltyGiven, RulingAppealed, SideDeckSwapped,
    TimeCalled)
from .rules import MatchState

#: Each match kind's sentence, ``(event, state) -> str``.
describes = PerKind("match sentence")


def sentence(ev: Event, state: MatchState) -> str:
    """One readable line for a match event (its kind alone for one no match has)."""
    describe = SENTENCES.get(ev.kind)
    return describe(ev, state) if describe is not None else ev.kind


def describe_result(data: dict, state: MatchState) -> str:
    """A match's result (``match_ended``'s fields, or the fold's ``result``) in words."""
    games = data.get("games") or list(state.score())
    who = (t("a double loss") if data.get("how") == "double_loss" else t("a draw") if data.get("winner") is None
           else t("{player} (player {number}) wins", player=printable(state.players[data["winner"]]),
                  number=data["winner"]))
    points = data.get("points")
    return (t("{result} by {how}, duels {won}-{lost}", result=who, how=data.get("how"), won=games[0], lost=games[1])
            + (t(" ({count} drawn)", count=games[2]) if games[2] else "")
            + (t(", points {first}/{second}", first=points[0], second=points[1]) if points else ""))


def _who(state: MatchState, player: int | None) -> str:
    if player is None:
        return t("no one")
    if not state.players:
        return t("player {number}", number=player)
    return printable(state.players[player])


def _wins(state: MatchState, winner: int | None) -> str:
    return t("a draw") if winner is None else t("{player} wins", player=_who(state, winner))


@describes(MatchStarted)
def _started(ev: Event, state: MatchState) -> str:
    return t("match started: {first} vs {second}, policy {policy}, banlist {banlist}", first=_who(state, 0),
             second=_who(state, 1), policy=ev.policy, banlist=repr(printable(ev.banlist)))


@describes(DecklistRegistered)
def _decklist(ev: Event, state: MatchState) -> str:
    return t("{player} registers a decklist: Main {main}, Extra {extra}, Side {side}", player=_who(state, ev.player),
             main=len(ev.main), extra=len(ev.extra), side=len(ev.side))


@describes(GameStarted)
def _game_started(ev: Event, state: MatchState) -> str:
    return (t("duel {game}{extra} starts ({duel}): {player} goes first", game=ev.game,
              extra=t(" (extra duel)") if ev.extra_duel else "", duel=printable(ev.duel) or "-",
              player=_who(state, ev.first_player))
            + (t(", chosen by {player}", player=_who(state, ev.chosen_by)) if ev.chosen_by is not None else ""))


@describes(SideDeckSwapped)
def _sided(ev: Event, state: MatchState) -> str:
    return t("{player} sides: Main -{main_out} +{main_in}, Extra -{extra_out} +{extra_in}",
             player=_who(state, ev.player), main_out=len(ev.main_out), main_in=len(ev.main_in),
             extra_out=len(ev.extra_out), extra_in=len(ev.extra_in))


@describes(GameEnded)
def _game_ended(ev: Event, state: MatchState) -> str:
    return t("duel {game} ends: {result} ({how})", game=ev.game, result=_wins(state, ev.winner), how=ev.how)


@describes(TimeCalled)
def _time(ev: Event, state: MatchState) -> str:
    if ev.game:
        return t("time is called at {clock} in duel {game}, turn {turn}, {phase}", clock=printable(ev.clock),
                 game=ev.game, turn=ev.turn, phase=ev.phase)
    return t("time is called at {clock} between duels", clock=printable(ev.clock))


@describes(ExtraTurnStarted)
def _extra_turn(ev: Event, state: MatchState) -> str:
    return t("extra turn {number} (turn {turn}) of duel {game}", number=ev.n, turn=ev.turn, game=ev.game)


@describes(GameDecided)
def _decided(ev: Event, state: MatchState) -> str:
    return t("duel {game} decided at time ({stage}) on LP {first} / {second}: {result}", game=ev.game,
             stage=ev.stage, first=ev.lp[0], second=ev.lp[1], result=_wins(state, ev.winner))


@describes(JudgeCalled)
def _judge_called(ev: Event, state: MatchState) -> str:
    return t("{player} calls judge {judge}", player=_who(state, ev.player), judge=printable(ev.judge)) + (
        f": {printable(ev.question)}" if ev.question else "")


@describes(JudgeRuled)
def _ruled(ev: Event, state: MatchState) -> str:
    return t("judge {judge} rules: {ruling}", judge=printable(ev.judge), ruling=printable(ev.ruling))


@describes(RulingAppealed)
def _appealed(ev: Event, state: MatchState) -> str:
    return t("{player} appeals to {judge}: ruling {decision}", player=_who(state, ev.player),
             judge=printable(ev.judge), decision=ev.decision)


@describes(PenaltyGiven)
def _penalty(ev: Event, state: MatchState) -> str:
    return t("judge {judge} gives {player} a {penalty} for {infraction}", judge=printable(ev.judge),
             player=_who(state, ev.player), penalty=ev.penalty.replace("_", " "), infraction=ev.infraction)


@describes(MatchConceded)
def _conceded(ev: Event, state: MatchState) -> str:
    return t("{player} concedes the match", player=_who(state, ev.player))


@describes(MatchEnded)
def _match_ended(ev: Event, state: MatchState) -> str:
    return t("match ends: {result}", result=describe_result(ev.to_dict(), state))


#: The sentence of every match kind, in the kinds' order.
SENTENCES = {cls.kind: describes[cls.kind] for cls in MATCH_KINDS}
