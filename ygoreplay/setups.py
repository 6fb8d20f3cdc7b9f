"""A board written back as a ``position_set_up`` event, as a FEN writes down a chess position.

``position_of(state)`` gives the event whose fold is the same board: every card with its id,
owner, zone, position, current stats, counters, Xyz materials and what it did this turn; the LP;
the turn, phase and step; the per-turn facts of both players. A judge rebuilds a disputed board
with it, a test starts from it::

    >>> event = position_of(state)                             # doctest: +SKIP
    >>> apply(DuelState(cards), event)                         # the same board again

A position is a board between actions: like a FEN it holds no history, so an open chain, an
attack in progress, equip links, the player names and the events' count are not part of it. A
view's board cannot be written down: its hidden cards have no passcode (write the judge's).
"""
from __future__ import annotations

from typing import Any

from .errors import InputError
from .events import EXTRA, FZONE, MZONE, SZONE, PositionSetUp
from .state import Card, DuelState


def position_of(state: DuelState) -> PositionSetUp:
    """The ``position_set_up`` event of this board (see the module's docstring)."""
    hidden = [c.id for c in state.cards.values() if c.code == 0]
    if hidden:
        raise InputError(f"this board has {len(hidden)} hidden card(s) ({', '.join(sorted(hidden)[:3])}…): a "
                         "view's board cannot be set up; write down the judge's")
    if not state.started:
        raise InputError("the duel has not started: there is no board to set up")
    turn = max(1, state.turn)
    sides = [_side(state, player, turn) for player in (0, 1)]
    return PositionSetUp(
        sides=tuple(sides), turn=turn, turn_player=state.turn_player, phase=state.phase or "draw",
        step=state.step if state.phase == "battle" else None,
        normal_summon_used=tuple(side.normal_summon_turn == turn for side in state.sides),
        pendulum_summon_used=tuple(side.pendulum_summon_turn == turn for side in state.sides),
        battle_phase_entered=state.battle_phase_entered, ruleset=state.ruleset, first_player=state.first_player)


def _side(state: DuelState, player: int, turn: int) -> dict[str, Any]:
    side = state.sides[player]
    mzone: list[Any] = [_spec(state, state.cards[c], player, turn) if c else None for c in side.mzone]
    emz = [None, None]
    for card_id in state.emz:
        if card_id is not None and state.cards[card_id].controller == player:
            emz[state.location(state.cards[card_id]).index - 5] = _spec(state, state.cards[card_id], player, turn)
    if any(emz):
        mzone += emz
    return {
        "lp": side.lp,
        "deck": [_spec(state, state.cards[c], player, turn) for c in side.deck],
        "hand": [_spec(state, state.cards[c], player, turn) for c in side.hand],
        "gy": [_spec(state, state.cards[c], player, turn) for c in side.gy],
        "banished": [_spec(state, state.cards[c], player, turn) for c in side.banished],
        "extra": [_spec(state, state.cards[c], player, turn) for c in side.extra],
        "mzone": mzone,
        "szone": [_spec(state, state.cards[c], player, turn) if c else None for c in side.szone],
        "fzone": _spec(state, state.cards[side.fzone], player, turn) if side.fzone else None,
    }


def _spec(state: DuelState, card: Card, controller: int, turn: int) -> dict[str, Any]:
    """One card as a set-up position names it: only what differs from what the fold assumes."""
    spec: dict[str, Any] = {"code": card.code, "id": card.id}
    if card.owner != controller:
        spec["owner"] = card.owner
    on_field = card.zone in (MZONE, SZONE, FZONE)
    if on_field or card.zone in (EXTRA, "banished"):
        spec["position"] = card.position
    if card.is_token:
        spec["token"] = True
    for flag, value in (("summoned", card.summoned_turn), ("set", card.set_turn),
                        ("position_changed", card.position_changed_turn), ("attacked", card.attacked_turn)):
        if value == turn and turn:
            spec[flag] = True
    for name in ("atk", "defense", "level"):
        if getattr(card, name) is not None:
            spec[name] = getattr(card, name)
    if card.counters:
        spec["counters"] = dict(card.counters)
    if card.materials:
        spec["materials"] = [_spec(state, state.cards[m], controller, turn) for m in card.materials]
    if card.properly_summoned != (card.zone == MZONE):
        spec["properly_summoned"] = card.properly_summoned
    return spec
