"""The fold: ``apply(state, event)`` checks one event against the rules and applies it.

It does no I/O, reads no clock and draws no random number. Each event kind has one handler, in
the module of its rule area; a handler checks before it changes anything, so a refused event
leaves the state untouched. For speed the state is changed in place and returned.
"""
from __future__ import annotations

from typing import Callable

from ..events import Event
from ..state import DuelState
from . import battle, chain, outcome, position, setup, spell_trap, summon, turn, win
from .base import RuleViolation, bury, fail, impossible

HANDLERS: dict[str, Callable[[DuelState, Event], None]] = {
    "duel_started": setup.duel_started,
    "deck_registered": setup.deck_registered,
    "deck_shuffled": setup.deck_shuffled,
    "position_set_up": setup.position_set_up,
    "cards_drawn": turn.cards_drawn,
    "turn_started": turn.turn_started,
    "phase_entered": turn.phase_entered,
    "step_entered": turn.step_entered,
    "priority_passed": turn.priority_passed,
    "hand_size_discard": turn.hand_size_discard,
    "normal_summoned": summon.normal_summoned,
    "monster_set": summon.monster_set,
    "flip_summoned": summon.flip_summoned,
    "special_summoned": summon.special_summoned,
    "summon_negated": summon.summon_negated,
    "token_created": summon.token_created,
    "position_changed": position.position_changed,
    "spell_trap_set": spell_trap.spell_trap_set,
    "activated": chain.activated,
    "chain_link_resolved": chain.chain_link_resolved,
    "chain_link_negated": chain.chain_link_negated,
    "chain_ended": chain.chain_ended,
    "attack_declared": battle.attack_declared,
    "attack_retargeted": battle.attack_retargeted,
    "attack_cancelled": battle.attack_cancelled,
    "damage_calculated": battle.damage_calculated,
    "card_moved": outcome.card_moved,
    "card_revealed": outcome.card_revealed,
    "control_changed": outcome.control_changed,
    "zone_changed": outcome.zone_changed,
    "stats_changed": outcome.stats_changed,
    "counters_changed": outcome.counters_changed,
    "life_points_changed": outcome.life_points_changed,
    "coin_tossed": outcome.coin_tossed,
    "die_rolled": outcome.die_rolled,
    "duel_ended": win.duel_ended,
    "judge_note": lambda state, event: None,      # kept in the record; changes nothing on the board
    "rolled_back": lambda state, event: impossible(
        state, event, "LOG-08", "a rollback is applied to a duel's history (rules.History), not to one state"),
}

_OPENERS = frozenset(("duel_started", "position_set_up"))
#: Once a player has lost (WIN-01/02) the duel is over; only what happens at that same moment
#: (the other player's damage, the cards it moved), the end of the chain it happened in (no link
#: left resolves) and the end itself may still be recorded.
AFTER_LOSS = frozenset(("life_points_changed", "card_moved", "cards_drawn", "stats_changed",
                        "card_revealed", "priority_passed", "chain_ended", "duel_ended"))
# A summon can be negated as it is attempted (SUM-03): through the chain that answers it.
_KEEP_SUMMON_WINDOW = frozenset((
    "activated", "chain_link_resolved", "chain_link_negated", "priority_passed", "card_moved",
    "life_points_changed", "card_revealed", "normal_summoned", "monster_set", "flip_summoned",
    "special_summoned", "token_created", "position_changed"))

# Passes count in succession (CHAIN-04): anything but a note between them starts the count again.
_KEEP_PASSES = frozenset(("priority_passed", "judge_note"))


def apply(state: DuelState, event: Event) -> DuelState:
    """Check ``event`` against the rules and apply it to ``state`` (in place); return the state.

    Raises ``RuleViolation`` (rule ID, event index, message) for an uncited broken rule, before
    the state is changed. When ``state.violations`` is a list (auditing) they are collected instead.
    """
    kind = event.kind
    if state.ended and kind != "judge_note":
        rule = win.LOSS_RULES.get(state.end_reason or "", "WIN-04" if state.end_reason == "draw" else "LOG-03")
        impossible(state, event, rule, f"the duel is over ({state.end_reason}); nothing may follow its end")
    if not state.started and kind not in _OPENERS:
        impossible(state, event, "LOG-03", "a duel begins with duel_started or position_set_up")
    handler = HANDLERS.get(kind)
    if handler is None:                           # a match event (match/events.py) in a duel
        impossible(state, event, "LOG-03", f"a {kind} event belongs to a match's stream, not to a duel")
    overridden = len(state.overrides)
    try:
        if state.must_lose and kind not in AFTER_LOSS:
            loser, reason = next(iter(state.must_lose.items()))
            fail(state, event, win.LOSS_RULES.get(reason, "WIN-01"),
                 f"player {loser} has lost ({reason}); the duel ends at once and no {kind} may follow")
        handler(state, event)
        if state.shed:
            bury(state)                           # NIS-05: materials follow the monsters that left
    except RuleViolation:
        del state.overrides[overridden:]          # a refused event sets no rule aside
        raise
    if kind not in _KEEP_SUMMON_WINDOW:
        state.summon_window = None
    if state.passes and kind not in _KEEP_PASSES:
        state.passes = 0                          # PRIO-03: passes count only in succession
    if kind != "special_summoned":
        state.pendulum_summon_open = False
    state.last_kind = kind
    state.index += 1
    return state
