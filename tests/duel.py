"""Small helpers for rule tests: start from a set-up position, fold events, expect a refusal."""
from __future__ import annotations

from typing import Any

import pytest

from ygoreplay.cards import CardDB
from ygoreplay.events import from_dict
from ygoreplay.rules import RuleViolation, apply
from ygoreplay.state import DuelState

CARDS = CardDB.classic()

# Passcodes the rule tests use most.
DARK_MAGICIAN, BLUE_EYES, SUMMONED_SKULL, CELTIC, GIANT_SOLDIER = 46986414, 89631139, 70781052, 91152256, 13039848
VORSE, BATTLE_OX, MYSTICAL_ELF, KURIBOH, JINZO = 14898066, 5053103, 15025844, 40640057, 77585513
MST, DARK_HOLE, RAIGEKI, POT, MONSTER_REBORN, AXE = 5318639, 53129443, 12580477, 55144522, 83764718, 40619825
YAMI, MPZ, MIRROR_FORCE, TRAP_HOLE, SOLEMN, MAGIC_JAMMER = 59197169, 18161786, 44095762, 4206964, 41420027, 77414722
SEVEN_TOOLS, ROYAL_DECREE, CALL_OF_THE_HAUNTED = 3819470, 51452091, 97077563
STARDUST, UTOPIA, DECODE_TALKER, LINK_SPIDER, DARK_PALADIN = 44508094, 84013237, 1861629, 98978921, 98502113
STARGAZER, TIMEGAZER, ODD_EYES, SHEEP_TOKEN = 94415058, 20409757, 16178681, 73915052


def position(p0: dict | None = None, p1: dict | None = None, **fields: Any) -> dict:
    """A position_set_up event: by default turn 2, player 0's Main Phase 1, 8000 LP, decks of 10."""
    sides = []
    for spec in (p0, p1):
        side = {"deck": [CELTIC] * 3 + [BATTLE_OX] * 3 + [VORSE] * 3 + [MYSTICAL_ELF]}
        side.update(spec or {})
        sides.append(side)
    return {"kind": "position_set_up", "sides": sides, "turn": 2, "turn_player": 0,
            "phase": "main1", **fields}


def fold(*events: dict, cards: CardDB = CARDS) -> DuelState:
    """Fold event dicts through the rules; any violation fails the test."""
    state = DuelState(cards)
    for data in events:
        apply(state, from_dict(data))
    return state


def refused(*events: dict, cards: CardDB = CARDS) -> RuleViolation:
    """All events but the last are legal; the last is refused, and leaves the state as it was."""
    state = fold(*events[:-1], cards=cards)
    before = snapshot(state)
    with pytest.raises(RuleViolation) as info:
        apply(state, from_dict(events[-1]))
    assert snapshot(state) == before, "a refused event changed the state"
    return info.value


def refused_with(events: list[dict], rule: str, says: str = "", cards: CardDB = CARDS) -> RuleViolation:
    """The last event is refused with exactly ``rule``, at its own index, saying ``says``."""
    v = refused(*events, cards=cards)
    assert (v.rule, v.index) == (rule, len(events) - 1), v
    assert says in v.message, v.message
    return v


def snapshot(state: DuelState) -> tuple:
    """Everything observable about a state, for before/after comparisons."""
    cards = tuple(sorted((c.id, c.zone, c.controller, c.position, c.atk, c.defense, c.level,
                          c.summoned_turn, c.position_changed_turn, c.attacked_turn, tuple(c.materials))
                         for c in state.cards.values()))
    sides = tuple((s.lp, tuple(s.deck), tuple(s.hand), tuple(s.mzone), tuple(s.szone), s.fzone,
                   tuple(s.gy), tuple(s.banished), tuple(s.extra), s.normal_summon_turn,
                   s.pendulum_summon_turn) for s in state.sides)
    chain = tuple((l.number, l.card, l.speed) for l in state.chain)
    return (cards, sides, tuple(state.emz), chain, state.turn, state.turn_player, state.phase,
            state.step, state.index, state.ended, state.winner, tuple(state.must_lose.items()),
            repr(state.attack), tuple(state.to_leave), tuple((o.index, o.rule) for o in state.overrides))
