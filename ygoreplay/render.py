"""The board as text: what ``ygoreplay show`` prints, readable at a glance.

Player 1 sits at the top, mirrored, as across a table; player 0 at the bottom. This is the judge's
view: every card is named, and face-down cards are marked as such.
"""
from __future__ import annotations

from .events import ATTACK, FACEDOWN, SET
from .rules.base import phase_name
from .state import Card, DuelState
from .text import printable

CELL = 24


def _label(card: Card) -> str:
    if card.code == 0 and card.position in (SET, FACEDOWN):
        return "(set card)"                      # a view's face-down card: nothing more is known
    name = card.name if len(card.name) <= CELL - 8 else card.name[:CELL - 9] + "…"
    if card.facts.is_monster and card.zone == "mzone":
        if card.position == SET:
            return f"{name} (set)"
        stat = card.current_atk if card.position == ATTACK else card.current_def
        tag = "A" if card.position == ATTACK else "D"
        mats = f"+{len(card.materials)}" if card.materials else ""
        return f"{name} {stat}{tag}{mats}"
    if card.position in (SET, FACEDOWN):
        return f"{name} (set)"
    return name


def _cell(state: DuelState, card_id: str | None) -> str:
    text = "·" if card_id is None else _label(state.cards[card_id])
    return f"[{text:^{CELL - 2}}]"


def _pile(state: DuelState, ids: list[str], limit: int = 8) -> str:
    if not ids:
        return "—"
    names = [state.cards[c].name + (" (set)" if state.cards[c].position in (SET, FACEDOWN) else "")
             for c in ids]
    shown = ", ".join(names[-limit:]) if len(names) > limit else ", ".join(names)
    return (f"… {len(names) - limit} more, " if len(names) > limit else "") + shown


def _side_lines(state: DuelState, player: int) -> list[str]:
    side = state.sides[player]
    name = state.players[player] if player < len(state.players) else f"player {player}"
    face_up_extra = sum(1 for c in side.extra if state.cards[c].position != FACEDOWN)
    head = (f"Player {player} ({name})  LP {side.lp}  hand {len(side.hand)}  deck {len(side.deck)}  "
            f"extra {len(side.extra)}" + (f" ({face_up_extra} face-up)" if face_up_extra else "") +
            f"  GY {len(side.gy)}  banished {len(side.banished)}")
    order = range(5) if player == 0 else range(4, -1, -1)
    monsters = "  monsters  " + "".join(_cell(state, side.mzone[i]) for i in order)
    spells = "  S/T       " + "".join(_cell(state, side.szone[i]) for i in order)
    if len(side.szone) > 5:                      # Master Rule 3: separate Pendulum Zones
        spells += "   pendulum " + "".join(_cell(state, side.szone[i]) for i in (5, 6))
    field = "  field     " + _cell(state, side.fzone)
    piles = [f"  hand      {_pile(state, side.hand, 10)}",
             f"  GY        {_pile(state, side.gy)}",
             f"  banished  {_pile(state, side.banished)}",
             f"  extra     {_pile(state, side.extra)}"]
    rows = [monsters, spells, field] if player == 0 else [field, spells, monsters]
    return [head] + (rows + piles if player == 0 else piles[::-1] + rows)


def render(state: DuelState, title: str = "") -> str:
    """The whole board, both players, the turn, the chain and the attack in progress."""
    turn = (f"turn {state.turn}, player {state.turn_player}'s {phase_name(state.phase)}"
            + (f" ({state.step} step)" if state.step else "")) if state.turn else "before the first turn"
    lines = [f"{title + ' — ' if title else ''}{turn} — rule set {state.ruleset}", ""]
    lines += _side_lines(state, 1)
    emz_offset = " " * 12 + " " * CELL
    lines.append(f"{emz_offset}{_cell(state, state.emz[0])}{' ' * CELL}{_cell(state, state.emz[1])}   (extra monster zones)")
    lines += _side_lines(state, 0)
    lines.append("")
    if state.chain:
        lines.append("chain: " + "  ".join(
            f"{l.number}. {state.cards[l.card].name if l.card in state.cards else l.card} "
            f"(player {l.player}, speed {l.speed})" for l in state.chain))
    if state.attack is not None:
        attack = state.attack
        target = state.cards[attack.target].name if attack.target in state.cards else "directly"
        lines.append(f"attack: {state.cards[attack.attacker].name} → {target}")
    if state.ended:
        result = "a draw" if state.winner is None else f"player {state.winner} wins"
        lines.append(f"duel over: {result} ({state.end_reason})")
    elif state.must_lose:
        lines.append("must lose: " + ", ".join(f"player {p} ({r})" for p, r in state.must_lose.items()))
    return "\n".join(printable(line.rstrip()) for line in lines).rstrip() + "\n"

