"""A duel as readable text, one line per event, grouped by turn and phase (like a PGN move list).

Each event is described against the state just before it, so cards are named as the viewer of the
file knew them then: a hidden card stays "a card" until the event that shows it.
"""
from __future__ import annotations

from typing import Callable, Iterator

from .cards import CardDB
from .events import Event
from .rules import History
from .rules.base import phase_name
from .state import Card, DuelState
from .text import printable

Describe = Callable[[DuelState, Event], str]


def _name(state: DuelState, card_id: str | None) -> str:
    if card_id is None:
        return "—"
    card: Card | None = state.cards.get(card_id)
    if card is None or card.code == 0:
        return f"a card ({card_id})"
    return card.name


def _who(state: DuelState, player: int | None) -> str:
    player = state.turn_player if player is None else player
    if 0 <= player < len(state.players) and state.players[player]:
        return state.players[player]
    return f"Player {player}"


ZONE_NAMES = {"deck": "Deck", "hand": "hand", "mzone": "Monster Zone", "szone": "Spell & Trap Zone",
              "fzone": "Field Zone", "gy": "GY", "banished": "banished cards", "extra": "Extra Deck",
              "overlay": "Xyz materials"}


def _zone(state: DuelState, controller: int, zone: str) -> str:
    """``Kaiba's GY`` rather than ``gy of player 1``."""
    return f"{_who(state, controller)}'s {ZONE_NAMES.get(zone, zone)}"


def _names(state: DuelState, ids) -> str:
    return ", ".join(_name(state, c) for c in ids)


def _draw(s: DuelState, e) -> str:
    player = s.turn_player if e.player is None else e.player
    ids = list(e.cards) or s.sides[player].deck[:e.count] if player in (0, 1) else []
    shown = _names(s, ids) if ids and all(s.cards[c].code for c in ids if c in s.cards) else f"{e.count} card(s)"
    return f"{_who(s, e.player)} draws {shown}" + (f" (by {_name(s, e.cause)})" if e.cause else "")


_DESCRIBE: dict[str, Describe] = {
    "duel_started": lambda s, e: (f"Duel begins under {e.ruleset}, {e.starting_lp} LP: player {e.first_player} "
                                  f"goes first" + (f" (chosen by player {e.chosen_by}, {e.method})" if e.chosen_by is not None else "")
                                  + (f"; agreed: {', '.join(e.options)}" if e.options else "")),
    "deck_registered": lambda s, e: (f"{_who(s, e.player)} registers a deck: {len(e.main)} main, "
                                     f"{len(e.extra)} extra, {len(e.side)} side"),
    "deck_shuffled": lambda s, e: f"{_who(s, e.player)} shuffles their Deck",
    "position_set_up": lambda s, e: f"Position set up: turn {e.turn}, player {e.turn_player}'s {phase_name(e.phase)}",
    "cards_drawn": _draw,
    "turn_started": lambda s, e: f"Turn {e.turn} begins: {_who(s, e.player)}",
    "phase_entered": lambda s, e: f"{phase_name(e.phase)}",
    "step_entered": lambda s, e: f"Battle Phase: {e.step} step",
    "priority_passed": lambda s, e: f"{_who(s, e.player)} passes",
    "normal_summoned": lambda s, e: (f"{_who(s, e.player)} Normal Summons {_name(s, e.card)} to zone {e.zone}"
                                     + (f", Tributing {_names(s, e.tributes)}" if e.tributes else "")),
    "monster_set": lambda s, e: (f"{_who(s, e.player)} Sets {_name(s, e.card)} in zone {e.zone}"
                                 + (f", Tributing {_names(s, e.tributes)}" if e.tributes else "")),
    "flip_summoned": lambda s, e: f"{_who(s, e.player)} Flip Summons {_name(s, e.card)}",
    "special_summoned": lambda s, e: (f"{_who(s, e.player)} Special Summons {_name(s, e.card)} ({e.method}) "
                                      f"to zone {e.zone} in {e.position}"
                                      + (f", using {_names(s, e.materials)}" if e.materials else "")),
    "summon_negated": lambda s, e: f"The summon of {_name(s, e.card)} is negated",
    "token_created": lambda s, e: f"{_who(s, e.player)} gets a token in zone {e.zone}",
    "position_changed": lambda s, e: f"{_name(s, e.card)} changes to {e.position} position",
    "spell_trap_set": lambda s, e: f"{_who(s, e.player)} Sets {_name(s, e.card)}",
    "activated": lambda s, e: (f"Chain Link {len(s.chain) + 1}: {_who(s, e.player)} activates {_name(s, e.card)}"
                               + (f" ({e.effect_type} effect)" if e.effect_type else "")
                               + (f" targeting {_names(s, e.targets)}" if e.targets else "")),
    "chain_link_resolved": lambda s, e: f"Chain Link {e.link} resolves",
    "chain_link_negated": lambda s, e: f"Chain Link {e.link} is negated",
    "chain_ended": lambda s, e: "The chain ends",
    "attack_declared": lambda s, e: (f"{_name(s, e.attacker)} attacks "
                                     + (_name(s, e.target) if e.target else "directly")),
    "attack_retargeted": lambda s, e: f"Replay: the attack now targets {_name(s, e.target) if e.target else 'the player'}",
    "attack_cancelled": lambda s, e: "The attack is cancelled",
    "damage_calculated": lambda s, e: (f"Damage calculation: {e.damage[0]} / {e.damage[1]} battle damage"
                                       + (f", destroys {_names(s, e.destroyed)}" if e.destroyed else "")),
    "card_moved": lambda s, e: (f"{_name(s, e.card)} → {_zone(s, e.to.controller, e.to.zone)} ({e.reason}"
                                + (f", by {_name(s, e.cause)}" if e.cause else "") + ")"),
    "card_revealed": lambda s, e: f"Reveals {_names(s, e.cards)}",
    "control_changed": lambda s, e: f"Player {e.to_player} takes control of {_name(s, e.card)}",
    "zone_changed": lambda s, e: f"{_name(s, e.card)} moves to zone {e.zone}",
    "stats_changed": lambda s, e: (f"{_name(s, e.card)} now has "
                                   + ", ".join(f"{k} {v}" for k, v in (("ATK", e.atk), ("DEF", e.defense), ("Level", e.level)) if v is not None)),
    "counters_changed": lambda s, e: f"{_name(s, e.card)} has {e.count} {e.counter} counter(s)",
    "life_points_changed": lambda s, e: (f"{_who(s, e.player)} {'gains' if e.reason == 'gain' else 'loses'} "
                                         f"{e.amount} LP ({e.reason.replace('_', ' ')})"),
    "coin_tossed": lambda s, e: f"Coin toss: {', '.join('heads' if r else 'tails' for r in e.results)}",
    "die_rolled": lambda s, e: f"Die roll: {', '.join(map(str, e.results))}",
    "hand_size_discard": lambda s, e: f"{_who(s, e.player)} discards {_names(s, e.cards)} for the hand limit",
    "duel_ended": lambda s, e: (f"The duel ends: {'a draw' if e.winner is None else _who(s, e.winner) + ' wins'} ({e.reason})"),
    "rolled_back": lambda s, e: f"JUDGE {e.judge} rolls the game back to before event {e.to}: {e.reason}",
    "judge_note": lambda s, e: f"JUDGE {e.judge} ({e.category}): {e.note}",
}


def describe(state: DuelState, event: Event) -> str:
    """One line, whatever the names in it hold (``text.printable``)."""
    return printable(_DESCRIBE[event.kind](state, event))


def log_lines(steps: Iterator[tuple[int, Event, DuelState]],
              reverted: dict[int, int] | None = None) -> Iterator[str]:
    """Lines of text: a heading per turn, an indented heading per phase, then the events.

    ``steps`` yields (index, event, state before it) — ``judge_steps`` or ``ViewReplay.steps`` — so
    each event is described with what was known when it happened.
    """
    reverted = reverted or {}
    for index, event, before in steps:
        if event.kind == "turn_started":
            yield ""
            yield f"Turn {event.turn} — {printable(_who(before, event.player))}"
        elif event.kind == "phase_entered":
            yield f"  {phase_name(event.phase)}"
        elif event.kind == "step_entered":
            yield f"    {event.step} step"
        else:
            mark = f"  [reverted by #{reverted[index]}]" if index in reverted else ""
            yield f"    #{index:<4} {describe(before, event)}{mark}"


def judge_steps(events: list[Event], cards: CardDB) -> Iterator[tuple[int, Event, DuelState]]:
    """(index, event, state before it) over a full record, folding as it goes."""
    history = History(cards, audit=True)
    for index, event in enumerate(events):
        yield index, event, history.state
        history.append(event)
