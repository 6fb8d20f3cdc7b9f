"""The board as plain data: what the HTTP service serves and the web viewer draws.

``board(state)`` turns a state into JSON-ready dicts. Give it a view's state (folded from the
view's own events, ``views.ViewReplay``): a card the view may not see has passcode 0 there and
comes out as ``{"id", "hidden": true}`` with its position only, so nothing hidden can reach a
response. The Deck is a count, never a list.
"""
from __future__ import annotations

from typing import Any

from .i18n import t
from .sentences import phase_name
from .rules.base import priority_holder
from .rulesets import RULESETS
from .state import Card, DuelState


def card(state: DuelState, card_id: str | None) -> dict | None:
    return None if card_id is None else _drawn(state.cards, state.cards[card_id])


def _drawn(cards: dict[str, Card], c: Card) -> dict:
    """One card as the board shows it (drawn for every card at every event of every view a
    service follows: kept to plain attribute reads, the zone tested before the card's type)."""
    if c.code == 0:
        return {"id": c.id, "position": c.position, "owner": c.owner, "controller": c.controller, "hidden": True}
    facts = c.facts
    out: dict[str, Any] = {"id": c.id, "position": c.position, "owner": c.owner, "controller": c.controller,
                           "code": c.code, "name": facts.name}
    if c.zone == "mzone" and facts.is_monster:
        out.update(atk=c.current_atk, defense=c.current_def, level=c.current_level)
    if c.materials:
        out["materials"] = [_drawn(cards, cards[m]) for m in c.materials]
    if c.counters:
        out["counters"] = dict(c.counters)
    return out


def _row(cards: dict[str, Card], ids: list) -> list:
    return [None if card_id is None else _drawn(cards, cards[card_id]) for card_id in ids]


def _known_places(cards: dict[str, Card], deck: list[str]) -> list[list]:
    known = [[i, _drawn(cards, cards[c])] for i, c in enumerate(deck[1:], 1) if cards[c].code]
    return [] if len(known) == len(deck) - 1 else known


def board(state: DuelState) -> dict:
    """Both fields, hands, piles, LP, turn, phase, the chain, the attack and the result."""
    players = []
    cards = state.cards
    for p, side in enumerate(state.sides):
        players.append({
            "name": state.players[p] if p < len(state.players) else "",
            "lp": side.lp, "deck": len(side.deck),
            # ZONE-11: the Deck's top card where this state knows it (a view: one put there face-up,
            # followed until the Deck is shuffled, ``views._learn``), else None: what a mill takes
            "deck_top": card(state, side.deck[0]) if side.deck and cards[side.deck[0]].code else None,
            # and the cards it knows in between, by place from the top (0: the top): one put "3rd from
            # the top" (``views._lost_places``); none where it knows the whole Deck (a judge's record:
            # no place is told apart there)
            "deck_places": _known_places(cards, side.deck),
            # why the rules say this player has lost (WIN-01 "lp", WIN-02 "deck_out"), even before
            # the record's duel_ended, or None: a viewer marks LP 0 in a duel the record left open
            "lost": state.must_lose.get(p),
            "hand": _row(cards, side.hand),
            "mzone": _row(cards, side.mzone),
            "szone": _row(cards, side.szone),
            "fzone": card(state, side.fzone),
            "gy": _row(cards, side.gy),
            "banished": _row(cards, side.banished),
            "extra": _row(cards, side.extra),
        })
    attack = state.attack
    rules = RULESETS[state.ruleset]
    return {
        "turn": state.turn, "turn_player": state.turn_player, "phase": state.phase,
        "phase_name": phase_name(state.phase) if state.turn else t("before the first turn"),
        "step": state.step, "ruleset": state.ruleset, "players": players,
        # who holds priority (PRIO-01/03, CHAIN-04): whose pass a recorder's Pass enters
        "priority": priority_holder(state),
        # Extra Monster Zones, left and right as player 0 sees them; a card's controller says whose
        "emz": _row(cards, state.emz),
        "chain": [{"link": link.number, "player": link.player, "card": card(state, link.card),
                   "speed": link.speed} for link in state.chain if link.card in state.cards],
        "attack": None if attack is None else {
            "attacker": card(state, attack.attacker) if attack.attacker in state.cards else None,
            "target": card(state, attack.target) if attack.target in state.cards else None},
        "ended": state.ended, "winner": state.winner, "reason": state.end_reason,
        # how a side's zones are laid out under the duel's rule set (MR-03/04, ZONE-09, CONF-09)
        "layout": {"emz": rules.extra_monster_zones, "pendulum": list(rules.pendulum_zones)},
    }
