"""The rules engine: one fold, three uses.

``apply(state, event)`` checks one event against the rules and applies it. It does no I/O, reads
no clock and draws no random number. The same function

* validates a new action before it is recorded (``check_next``: a refused event leaves the state
  untouched, because every handler checks before it changes anything),
* rebuilds the state of a duel at any event (``replay``), and
* audits a finished record (``audit``: every violation is collected and the fold goes on).

For speed the state is changed in place and returned; ``DuelState.copy`` keeps a snapshot.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

from ..cards import CardDB
from ..events import Event
from ..state import DuelState, Override, Violation
from . import battle, chain, outcome, position, setup, spell_trap, summon, turn, win
from .base import RuleViolation, fail, impossible

__all__ = ["RuleViolation", "apply", "replay", "audit", "check_next", "new_state", "AuditReport",
           "HANDLERS"]

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
    "stats_changed": outcome.stats_changed,
    "counters_changed": outcome.counters_changed,
    "life_points_changed": outcome.life_points_changed,
    "coin_tossed": outcome.coin_tossed,
    "die_rolled": outcome.die_rolled,
    "duel_ended": win.duel_ended,
}

_OPENERS = frozenset(("duel_started", "position_set_up"))
# Once a player has lost (WIN-01/02) the duel is over; only what happens at that same moment
# (the other player's damage, the cards it moved) and the end itself may still be recorded.
_AFTER_LOSS = frozenset(("life_points_changed", "card_moved", "cards_drawn", "stats_changed",
                         "card_revealed", "priority_passed", "duel_ended"))
# A summon can be negated as it is attempted (SUM-03): through the chain that answers it.
_KEEP_SUMMON_WINDOW = frozenset((
    "activated", "chain_link_resolved", "chain_link_negated", "priority_passed", "card_moved",
    "life_points_changed", "card_revealed", "normal_summoned", "monster_set", "flip_summoned",
    "special_summoned", "token_created"))


def new_state(cards: CardDB) -> DuelState:
    return DuelState(cards)


def apply(state: DuelState, event: Event) -> DuelState:
    """Check ``event`` against the rules and apply it to ``state`` (in place); return the state.

    Raises ``RuleViolation`` (rule ID, event index, message) for an uncited broken rule, before
    the state is changed. When ``state.violations`` is a list (auditing) they are collected instead.
    """
    kind = event.kind
    if state.ended:
        rule = win.LOSS_RULES.get(state.end_reason or "", "WIN-04")
        impossible(state, event, rule, f"the duel is over ({state.end_reason}); nothing may follow its end")
    if not state.started and kind not in _OPENERS:
        impossible(state, event, "LOG-03", "a duel begins with duel_started or position_set_up")
    if state.must_lose and kind not in _AFTER_LOSS:
        loser, reason = next(iter(state.must_lose.items()))
        fail(state, event, win.LOSS_RULES.get(reason, "WIN-01"),
             f"player {loser} has lost ({reason}); the duel ends at once and no {kind} may follow")
    HANDLERS[kind](state, event)
    if kind not in _KEEP_SUMMON_WINDOW:
        state.summon_window = None
    if kind != "special_summoned":
        state.pendulum_summon_open = False
    state.last_kind = kind
    state.index += 1
    return state


def replay(events: Iterable[Event], cards: CardDB, until: int | None = None) -> DuelState:
    """The state after the first ``until`` events (all when None); raises at the first violation."""
    state = DuelState(cards)
    for i, event in enumerate(events):
        if until is not None and i >= until:
            break
        apply(state, event)
    return state


def check_next(state: DuelState, event: Event) -> DuelState:
    """Validate and apply one new action to a live state; on refusal the state is unchanged."""
    return apply(state, event)


@dataclass
class AuditReport:
    """What an audit found: every violation, every cited override, the final state."""

    state: DuelState
    events: int
    violations: list[Violation] = field(default_factory=list)

    @property
    def overrides(self) -> list[Override]:
        return self.state.overrides

    @property
    def legal(self) -> bool:
        return not self.violations


def audit(events: Iterable[Event], cards: CardDB) -> AuditReport:
    """Re-check a whole record: collect every violation and go on past it."""
    state = DuelState(cards)
    state.violations = []
    count = 0
    for event in events:
        count += 1
        try:
            apply(state, event)
        except RuleViolation as v:                 # could not be applied at all: skip it
            state.violations.append(Violation(v.index, v.rule, v.message))
            state.index += 1
    violations = state.violations
    state.violations = None
    return AuditReport(state, count, violations)
