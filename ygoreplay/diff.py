"""How two duel states differ: LP, the cards in every zone, the chain, the phase.

Used by ``ygoreplay diff`` to compare a branch with its parent, or two moments of one duel.
"""
from __future__ import annotations

from .rules.base import phase_name
from .state import DuelState


def _zones(state: DuelState) -> dict[str, str]:
    """Every place on the board, named for a reader, with what it holds."""
    def name(card_id: str | None) -> str:
        if card_id is None:
            return "empty"
        card = state.cards[card_id]
        what = card.name if card.code else "an unknown card"      # a card the record does not know
        return f"{what} ({card.position})" if card.position else what

    def pile(ids: list[str]) -> str:
        """Its known cards by name, the cards no one knows counted (a Deck of 35 reads as such)."""
        unknown = sum(1 for c in ids if not state.cards[c].code)
        names = [name(c) for c in ids if state.cards[c].code]
        if unknown:
            names.append(f"{unknown} unknown card{'s' if unknown > 1 else ''}")
        return ", ".join(names) or "empty"

    places: dict[str, str] = {}
    for p, side in enumerate(state.sides):
        places[f"player {p} LP"] = str(side.lp)
        for i, cid in enumerate(side.mzone):
            places[f"player {p} monster zone {i}"] = name(cid)
        for i, cid in enumerate(side.szone):
            places[f"player {p} spell/trap zone {i}"] = name(cid)
        places[f"player {p} field zone"] = name(side.fzone)
        for label, ids in (("hand", side.hand), ("deck", side.deck), ("GY", side.gy),
                            ("banished", side.banished), ("extra deck", side.extra)):
            places[f"player {p} {label}"] = pile(ids)
    for i, cid in enumerate(state.emz):
        places[f"extra monster zone {'left' if i == 0 else 'right'}"] = name(cid)
    places["turn"] = f"turn {state.turn}, player {state.turn_player}'s {phase_name(state.phase)}"
    places["chain"] = " / ".join(f"{l.number}. {state.cards[l.card].name}" for l in state.chain
                                 if l.card in state.cards) or "none"
    places["result"] = ("not over" if not state.ended else
                        "a draw" if state.winner is None else f"player {state.winner} won ({state.end_reason})")
    return places


def diff_states(a: DuelState, b: DuelState) -> list[tuple[str, str, str]]:
    """(place, in a, in b) for every place where the two states differ, in board order."""
    za, zb = _zones(a), _zones(b)
    return [(place, za[place], zb[place]) for place in za if za[place] != zb[place]]
