"""What each match event says: one line per kind, for ``log``/``show`` of a match file, the
service's match log and the match page (every name in them is the players' own: printed through
``printable``).

Each kind's sentence is registered with ``@describes(EventClass)`` where it is written, like the
duel's (``ygoreplay.sentences``); ``sentence`` looks it up.
"""
from __future__ import annotations

from ..events import Event
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
    who = ("a double loss" if data.get("how") == "double_loss" else "a draw" if data.get("winner") is None
           else f"{printable(state.players[data['winner']])} (player {data['winner']}) wins")
    points = data.get("points")
    return (f"{who} by {data.get('how')}, duels {games[0]}-{games[1]}" + (f" ({games[2]} drawn)" if games[2] else "")
            + (f", points {points[0]}/{points[1]}" if points else ""))


def _who(state: MatchState, player: int | None) -> str:
    names = state.players or ("player 0", "player 1")
    return "no one" if player is None else printable(names[player])


@describes(MatchStarted)
def _started(ev: Event, state: MatchState) -> str:
    return (f"match started: {_who(state, 0)} vs {_who(state, 1)}, policy {ev.policy}, "
            f"banlist {printable(ev.banlist)!r}")


@describes(DecklistRegistered)
def _decklist(ev: Event, state: MatchState) -> str:
    return (f"{_who(state, ev.player)} registers a decklist: Main {len(ev.main)}, Extra {len(ev.extra)}, "
            f"Side {len(ev.side)}")


@describes(GameStarted)
def _game_started(ev: Event, state: MatchState) -> str:
    return (f"duel {ev.game}{' (extra duel)' if ev.extra_duel else ''} starts ({printable(ev.duel) or '-'}): "
            f"{_who(state, ev.first_player)} goes first"
            + (f", chosen by {_who(state, ev.chosen_by)}" if ev.chosen_by is not None else ""))


@describes(SideDeckSwapped)
def _sided(ev: Event, state: MatchState) -> str:
    return (f"{_who(state, ev.player)} sides: Main -{len(ev.main_out)} +{len(ev.main_in)}, "
            f"Extra -{len(ev.extra_out)} +{len(ev.extra_in)}")


@describes(GameEnded)
def _game_ended(ev: Event, state: MatchState) -> str:
    return (f"duel {ev.game} ends: " + ("a draw" if ev.winner is None else f"{_who(state, ev.winner)} wins")
            + f" ({ev.how})")


@describes(TimeCalled)
def _time(ev: Event, state: MatchState) -> str:
    return f"time is called at {printable(ev.clock)}" + (
        f" in duel {ev.game}, turn {ev.turn}, {ev.phase}" if ev.game else " between duels")


@describes(ExtraTurnStarted)
def _extra_turn(ev: Event, state: MatchState) -> str:
    return f"extra turn {ev.n} (turn {ev.turn}) of duel {ev.game}"


@describes(GameDecided)
def _decided(ev: Event, state: MatchState) -> str:
    return (f"duel {ev.game} decided at time ({ev.stage}) on LP {ev.lp[0]} / {ev.lp[1]}: "
            + ("a draw" if ev.winner is None else f"{_who(state, ev.winner)} wins"))


@describes(JudgeCalled)
def _judge_called(ev: Event, state: MatchState) -> str:
    return f"{_who(state, ev.player)} calls judge {printable(ev.judge)}" + (
        f": {printable(ev.question)}" if ev.question else "")


@describes(JudgeRuled)
def _ruled(ev: Event, state: MatchState) -> str:
    return f"judge {printable(ev.judge)} rules: {printable(ev.ruling)}"


@describes(RulingAppealed)
def _appealed(ev: Event, state: MatchState) -> str:
    return f"{_who(state, ev.player)} appeals to {printable(ev.judge)}: ruling {ev.decision}"


@describes(PenaltyGiven)
def _penalty(ev: Event, state: MatchState) -> str:
    return (f"judge {printable(ev.judge)} gives {_who(state, ev.player)} a {ev.penalty.replace('_', ' ')} "
            f"for {ev.infraction}")


@describes(MatchConceded)
def _conceded(ev: Event, state: MatchState) -> str:
    return f"{_who(state, ev.player)} concedes the match"


@describes(MatchEnded)
def _match_ended(ev: Event, state: MatchState) -> str:
    return "match ends: " + describe_result(ev.to_dict(), state)


#: The sentence of every match kind, in the kinds' order.
SENTENCES = {cls.kind: describes[cls.kind] for cls in MATCH_KINDS}
