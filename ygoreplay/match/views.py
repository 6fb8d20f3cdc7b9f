"""What each view of a match may know: the decklists and Side Decks are hidden information.

A player's decklist and Side Deck, and the cards they swap with it between duels, are theirs:
in a duel the opponent's deck is never named either (``views.py``), and at the table no one sees
another's Side Deck. So a player's view holds their own cards and only the counts of the
opponent's (how many cards in each deck, how many swapped, which everyone at the table sees), and
a spectator's view counts for both. Everything else a match records is public procedure: players,
policy, banlist, who goes first, results, time, extra turns, LP at time, penalties, judge calls,
rulings, appeals, the result. The judge's view is the record.

A view's event in place of a withheld one keeps its kind and player, its card lists emptied, and
says what was withheld (``withheld``: the list sizes); a view file commits to each withheld part
with the match's secret, as a duel's view commits to the deck orders it may not see.
"""
from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

import msgpack

from ..cards import CardDB
from ..events import Event
from ..text import printable
from .rules import MatchState, apply
from .sentences import sentence

#: The card lists of the match events that only their player (and the judge) may see.
HIDDEN = {"decklist_registered": ("main", "extra", "side"),
          "side_deck_swapped": ("main_out", "main_in", "extra_out", "extra_in")}
VIEWS = ("judge", "p0", "p1", "spectator")


def sees(view: str, player: int) -> bool:
    """Whether ``view`` may see ``player``'s own cards."""
    return view == "judge" or view == f"p{player}"


def withheld(event: Event, view: str) -> dict[str, int] | None:
    """The sizes of the lists ``view`` may not see in ``event`` (None: it sees it whole)."""
    parts = HIDDEN.get(event.kind)
    if parts is None or sees(view, event.player):
        return None
    return {part: len(getattr(event, part)) for part in parts}


def view_event(event: Event, view: str) -> Event:
    """The event as ``view`` has it: a withheld one with its card lists emptied."""
    counts = withheld(event, view)
    if counts is None:
        return event
    return dataclasses.replace(event, **{part: () for part in counts})


def view_dict(event: Event, view: str) -> dict:
    """The event as ``view`` has it, as JSON, saying what was withheld."""
    counts = withheld(event, view)
    data = view_event(event, view).to_dict()
    if counts is not None:
        data["withheld"] = counts
    return data


def commitment(secret: bytes, index: int, event: Event) -> list:
    """[index, player, keyed hash of the withheld lists]: what a view file commits to, which the
    holder of the full record (and its secret) can prove and no view can open."""
    lists = [list(getattr(event, part)) for part in HIDDEN[event.kind]]
    return [index, event.player, hashlib.sha256(secret + msgpack.packb([index, event.player, lists])).digest()]


def visible_codes(events: list[Event], view: str) -> set[int]:
    """Every passcode ``view`` may see in the match's events (their card facts may travel)."""
    codes: set[int] = set()
    for ev in events:
        parts = HIDDEN.get(ev.kind)
        if parts is not None and sees(view, ev.player):
            for part in parts:
                codes.update(getattr(ev, part))
    codes.discard(0)
    return codes


def summary(events: list[Event], view: str, cards: CardDB) -> dict[str, Any]:
    """The match as ``view`` may see it: players, policy, banlist, each player's decks (the lists
    when the view may see them, else their sizes), each duel with the siding before it, time,
    penalties, judge calls and rulings, the result (or why there is none yet), one line per event,
    and the facts (name, kind) of the cards the view may see."""
    state = MatchState(cards, violations=[])       # folded here: each swap knows the duel it is before
    swaps: dict[int, list[dict]] = {}
    calls: list[dict] = []
    for index, ev in enumerate(events):
        games_so_far = len(state.games)
        apply(state, ev)
        if ev.kind == "side_deck_swapped":
            counts = withheld(ev, view)
            swap = {"index": index, "player": ev.player, "before_game": games_so_far + 1,
                    "counts": {"main": len(ev.main_out), "extra": len(ev.extra_out)}}
            if counts is None:
                swap.update({part: list(getattr(ev, part)) for part in HIDDEN["side_deck_swapped"]})
            swaps.setdefault(games_so_far + 1, []).append(swap)
        elif ev.kind in ("judge_called", "judge_ruled", "ruling_appealed"):
            calls.append({"index": index, **ev.to_dict()})
    policy = state.policy
    lines = [sentence(ev, state) for ev in events]
    decks = []
    for player in (0, 1):
        deck = state.decks[player]
        if deck is None:
            decks.append(None)
            continue
        entry: dict[str, Any] = {"counts": {"main": len(deck.main), "extra": len(deck.extra), "side": len(deck.side)}}
        if sees(view, player):
            entry.update(main=list(deck.main), extra=list(deck.extra), side=list(deck.side))
        decks.append(entry)
    result = state.result()
    ended = state.ended
    out = {
        "view": view, "events": len(events), "players": list(state.players),
        "policy": policy.to_dict() if policy else None,
        "banlist": {"name": state.banlist.name, "hash": state.banlist_hash} if state.banlist else None,
        "format": events[0].format if events else "", "event_name": events[0].event_name if events else "",
        "round": events[0].round if events else None,
        "score": list(state.score()), "decks": decks,
        "games": [{**g.to_dict(), "swaps_before": swaps.get(g.number, [])} for g in state.games],
        "swaps_pending": swaps.get(len(state.games) + 1, []),
        "time": state.time.to_dict() if state.time else None,
        "penalties": [p.to_dict() for p in state.penalties],
        "judge_calls": calls,
        "ended": ended is not None,
        "result": ({"winner": ended.winner, "how": ended.how, "games": list(ended.games), "points": list(ended.points)}
                   if ended else None),
        "standing": result.to_dict() | {"final": result.final, "rule": result.rule, "why": printable(result.why)},
        "lines": lines,
        "cards": [{"code": c.code, "name": c.name} for c in
                  (cards.get(code) for code in sorted(visible_codes(events, view))) if c is not None],
    }
    return out
