"""A match in words: one line per match event and the result, for ``log``/``show``, the service's
match log and the match page (every name in them is the players' own: printed through ``printable``)."""
from __future__ import annotations

from ..events import Event
from ..text import printable
from .rules import MatchState


def describe_result(data: dict, state: MatchState) -> str:
    """A result (``match_ended``'s fields) in words: who won, how, the duels and the points."""
    games = data.get("games") or list(state.score())
    who = ("a double loss" if data.get("how") == "double_loss" else "a draw" if data.get("winner") is None
           else f"{printable(state.players[data['winner']])} (player {data['winner']}) wins")
    points = data.get("points")
    return (f"{who} by {data.get('how')}, duels {games[0]}-{games[1]}" + (f" ({games[2]} drawn)" if games[2] else "")
            + (f", points {points[0]}/{points[1]}" if points else ""))

def sentence(ev: Event, state: MatchState) -> str:
    """One readable line per match event."""
    names = state.players or ("player 0", "player 1")

    def who(p: int | None) -> str:
        return "no one" if p is None else printable(names[p])
    k = ev.kind
    if k == "match_started":
        return f"match started: {who(0)} vs {who(1)}, policy {ev.policy}, banlist {printable(ev.banlist)!r}"
    if k == "decklist_registered":
        return f"{who(ev.player)} registers a decklist: Main {len(ev.main)}, Extra {len(ev.extra)}, Side {len(ev.side)}"
    if k == "game_started":
        return (f"duel {ev.game}{' (extra duel)' if ev.extra_duel else ''} starts ({printable(ev.duel) or '-'}): "
                f"{who(ev.first_player)} goes first" + (f", chosen by {who(ev.chosen_by)}" if ev.chosen_by is not None else ""))
    if k == "side_deck_swapped":
        return (f"{who(ev.player)} sides: Main -{len(ev.main_out)} +{len(ev.main_in)}, "
                f"Extra -{len(ev.extra_out)} +{len(ev.extra_in)}")
    if k == "game_ended":
        return f"duel {ev.game} ends: " + ("a draw" if ev.winner is None else f"{who(ev.winner)} wins") + f" ({ev.how})"
    if k == "time_called":
        return f"time is called at {printable(ev.clock)}" + (
            f" in duel {ev.game}, turn {ev.turn}, {ev.phase}" if ev.game else " between duels")
    if k == "extra_turn_started":
        return f"extra turn {ev.n} (turn {ev.turn}) of duel {ev.game}"
    if k == "game_decided":
        return (f"duel {ev.game} decided at time ({ev.stage}) on LP {ev.lp[0]} / {ev.lp[1]}: "
                + ("a draw" if ev.winner is None else f"{who(ev.winner)} wins"))
    if k == "judge_called":
        return f"{who(ev.player)} calls judge {printable(ev.judge)}" + (f": {printable(ev.question)}" if ev.question else "")
    if k == "judge_ruled":
        return f"judge {printable(ev.judge)} rules: {printable(ev.ruling)}"
    if k == "ruling_appealed":
        return f"{who(ev.player)} appeals to {printable(ev.judge)}: ruling {ev.decision}"
    if k == "penalty_given":
        return f"judge {printable(ev.judge)} gives {who(ev.player)} a {ev.penalty.replace('_', ' ')} for {ev.infraction}"
    if k == "match_conceded":
        return f"{who(ev.player)} concedes the match"
    if k == "match_ended":
        return "match ends: " + describe_result(ev.to_dict(), state)
    return k
