"""Turns, phases, steps, draws and the hand limit (TURN, SETUP-02/04, HAND, BATTLE-01, NIS-04)."""
from __future__ import annotations

from ..events import (
    GY, HAND, CardsDrawn, HandSizeDiscard, PhaseEntered, PriorityPassed, StepEntered, TurnStarted)
from ..state import DuelState
from .base import fail, get_card, handles, impossible, phase_name, put, take
from .chain import forget_takers

HAND_LIMIT = 6

# TURN-01: Draw -> Standby -> Main 1 -> Battle -> Main 2 -> End; the Battle Phase is optional
# (TURN-05), Main Phase 2 exists only after a Battle Phase (TURN-07). BATTLE-01/05: after the
# Damage Step play returns to the Battle Step, from which the turn player may announce the End
# Step at once, so a record may go from the Damage Step straight to the End Step.
PHASE_AFTER: dict[str | None, tuple[str, ...]] = {
    None: ("draw",), "draw": ("standby",), "standby": ("main1", "end"),
    "main1": ("battle", "end"), "battle": ("main2", "end"), "main2": ("end",), "end": ()}
STEP_AFTER: dict[str | None, tuple[str, ...]] = {
    "start": ("battle", "end"), "battle": ("damage", "end"), "damage": ("battle", "end"), "end": ()}


@handles(CardsDrawn)
def cards_drawn(state: DuelState, ev: CardsDrawn) -> None:
    player = state.turn_player if ev.player is None else ev.player
    if player not in (0, 1):
        impossible(state, ev, "LOG-05", "cards_drawn needs the player, 0 or 1")
    side = state.sides[player]
    if not side.registered:
        impossible(state, ev, "LOG-03", f"player {player} has no registered deck to draw from")
    if ev.count < 1:
        impossible(state, ev, "LOG-05", "a draw takes at least one card")
    ordered = state.deck_ordered(player)
    named = list(ev.cards)
    if named and (named != side.deck[:ev.count] if ordered else len(set(named)) != len(named)
                  or len(named) != min(ev.count, len(side.deck)) or not set(named) <= set(side.deck)):
        which = f"the top {ev.count}" if ordered else f"{min(ev.count, len(side.deck))} different cards"
        impossible(state, ev, "LOG-02", f"the drawn cards {named} are not {which} of player {player}'s Deck")
    normal_draw = False
    if state.turn == 0:
        if ev.cause is None:
            if state.opening_drawn[player]:
                fail(state, ev, "SETUP-02", f"player {player} has already drawn an opening hand")
            elif ev.count != state.hand_size:
                fail(state, ev, "SETUP-02", f"the opening hand is {state.hand_size} cards, not {ev.count}")
    elif ev.cause is None:
        normal_draw = True
        if player != state.turn_player:
            fail(state, ev, "TURN-02", f"only the turn player draws in the Draw Phase (player {player} drew)")
        elif state.phase != "draw":
            fail(state, ev, "TURN-02",
                 f"a draw with no effect as its cause is the Draw Phase draw, but this is the {phase_name(state.phase)}")
        elif state.turn == 1 and player == state.first_player and "first_turn_draw" not in state.options:
            fail(state, ev, "SETUP-04", "the player going first does not draw on the first turn")
        elif state.normal_draw_done:
            fail(state, ev, "TURN-02", "the turn player draws only once in the Draw Phase")
        elif ev.count != state.draw_count:
            fail(state, ev, "TURN-02", f"the Draw Phase draw is {state.draw_count} card"
                 f"{'s' if state.draw_count != 1 else ''}, not {ev.count}")
    available = min(ev.count, len(side.deck))
    drawn = side.deck[:available] if ordered or not ev.cards else list(ev.cards)
    for card_id in drawn:
        card = state.cards[card_id]
        take(state, card)
        put(state, card, HAND, player)
    if ev.count > available:
        state.must_lose[player] = "deck_out"   # WIN-02
    if state.turn == 0 and ev.cause is None:
        state.opening_drawn[player] = True
    if normal_draw:
        state.normal_draw_done = True


@handles(TurnStarted)
def turn_started(state: DuelState, ev: TurnStarted) -> None:
    player = ev.player
    if player not in (0, 1):
        impossible(state, ev, "LOG-05", "turn_started needs the player, 0 or 1")
    if ev.turn != state.turn + 1:
        impossible(state, ev, "LOG-06", f"turn {ev.turn} follows turn {state.turn}; expected turn {state.turn + 1}")
    if state.turn == 0:
        for p in (0, 1):
            if not state.opening_drawn[p]:
                fail(state, ev, "SETUP-02", f"player {p} has not drawn an opening hand of {state.hand_size}")
        if player != state.first_player:
            fail(state, ev, "MATCH-07", f"player {state.first_player} was chosen to go first, not player {player}")
    else:
        if state.phase != "end":
            fail(state, ev, "TURN-01",
                 f"turn {state.turn} ended in the {phase_name(state.phase)}; a turn ends after its End Phase")
        if state.chain:
            fail(state, ev, "CHAIN-05", "a new turn cannot start while a chain is unresolved")
        if len(state.sides[state.turn_player].hand) > HAND_LIMIT:
            fail(state, ev, "HAND-01",
                 f"player {state.turn_player} ended turn {state.turn} with "
                 f"{len(state.sides[state.turn_player].hand)} cards in hand; the limit is {HAND_LIMIT}")
        if player == state.turn_player:
            fail(state, ev, "TURN-01", f"player {player} took two turns in a row without an effect granting it")
    state.turn = ev.turn
    state.turn_began = state.index            # a correction goes back no further (LOG-12)
    state.turn_player = player
    state.phase = state.step = None
    state.battle_phase_entered = False
    state.normal_draw_done = False
    state.attack = None
    state.summon_window = None
    forget_takers(state, at_turn_end=True)   # CTRL-01: a taken card's trigger waits no longer


@handles(PhaseEntered)
def phase_entered(state: DuelState, ev: PhaseEntered) -> None:
    if state.turn == 0:
        impossible(state, ev, "LOG-03", "no turn has started")
    phase = ev.phase
    if phase not in PHASE_AFTER[state.phase]:
        if phase == "main2" and not state.battle_phase_entered:
            fail(state, ev, "TURN-07", "Main Phase 2 comes only after a Battle Phase")
        else:
            fail(state, ev, "TURN-01",
                 f"the {phase_name(phase)} cannot follow the {phase_name(state.phase)} "
                 "(Draw, Standby, Main 1, Battle, Main 2, End)")
    if phase == "battle" and state.turn == 1:
        fail(state, ev, "NIS-04", "there is no Battle Phase on the first turn of the duel")
    if state.chain:
        fail(state, ev, "PRIO-04", f"the phase cannot change while a chain of {len(state.chain)} is open")
    if state.phase == "draw" and must_still_draw(state):
        fail(state, ev, "TURN-02", f"player {state.turn_player} left the Draw Phase without drawing")
    if state.phase == "battle":
        close_attack(state, ev)
    state.phase = phase
    state.step = "start" if phase == "battle" else None
    if phase == "battle":
        state.battle_phase_entered = True
    state.summon_window = None


def must_still_draw(state: DuelState) -> bool:
    """TURN-02: the turn player must draw, except the first player on turn 1 (SETUP-04) unless the
    duel's option ``first_turn_draw`` keeps the older rule that they draw too (CONF-08)."""
    if state.normal_draw_done or state.turn_player in state.must_lose:
        return False
    return not (state.turn == 1 and state.turn_player == state.first_player and "first_turn_draw" not in state.options)


@handles(StepEntered)
def step_entered(state: DuelState, ev: StepEntered) -> None:
    if state.phase != "battle":
        fail(state, ev, "BATTLE-01", f"{ev.step} is a Battle Phase step; this is the {phase_name(state.phase)}")
    elif ev.step not in STEP_AFTER.get(state.step, ()):
        fail(state, ev, "BATTLE-01",
             f"the {ev.step} step cannot follow the {state.step} step (Start, Battle, Damage, End)")
    if ev.step == "damage" and state.attack is None:
        fail(state, ev, "BATTLE-01", "the Damage Step comes only after an attack is declared")
    if state.chain:
        fail(state, ev, "PRIO-04", f"the step cannot change while a chain of {len(state.chain)} is open")
    if state.step == "damage" or ev.step == "end":
        close_attack(state, ev)
    state.step = ev.step


def close_attack(state: DuelState, ev) -> None:
    """An attack is over: what damage calculation decided must have happened (DMG-10, BATTLE-14)."""
    attack = state.attack
    if attack is None:
        return
    for player, amount in enumerate(attack.pending_damage):
        if amount:
            fail(state, ev, "DMG-10",
                 f"battle damage of {amount} to player {player} was calculated but never applied")
    for card_id in attack.destroyed:
        card = state.cards.get(card_id)
        if card is not None and card.zone == "mzone":
            fail(state, ev, "BATTLE-14", f"{card.name} ({card_id}) was destroyed by battle but is still on the field")
    state.attack = None


@handles(PriorityPassed)
def priority_passed(state: DuelState, ev: PriorityPassed) -> None:
    """PRIO-01/03, CHAIN-04: who may pass. The turn player holds priority first in every phase and
    step, and again once a chain has resolved; activating or passing hands it to the opponent, so
    after an activation the opponent passes first, then its player. A record that states one pass
    states them all: from then on a chain resolves only after two passes in succession."""
    if not state.started:
        impossible(state, ev, "LOG-03", "the duel has not started")
    player, passes = ev.player, state.passes
    if state.chain and not state.resolving:
        top = state.chain[-1]
        if passes >= 2:
            fail(state, ev, "CHAIN-04", f"both players have passed in succession since Chain Link {top.number}: "
                 "the chain resolves now")
        elif player is not None:
            holder = 1 - top.player if passes == 0 else top.player
            if player != holder:
                fail(state, ev, "PRIO-03", f"player {top.player} activated Chain Link {top.number}, which hands priority "
                     f"to player {1 - top.player}{' who passed it back' if passes else ''}: player {holder} holds "
                     f"priority, not player {player}")
    elif not state.resolving and player is not None:
        holder = state.turn_player if passes % 2 == 0 else 1 - state.turn_player
        if player != holder:
            rule, why = (("PRIO-01", "the turn player holds priority first") if passes % 2 == 0
                         else ("PRIO-03", f"player {state.turn_player} passed it to player {holder}"))
            fail(state, ev, rule, f"{why}: player {holder} holds priority, not player {player}")
    state.passes_recorded = True                  # only once accepted: a refused pass changes nothing
    state.passes = passes + 1


@handles(HandSizeDiscard)
def hand_size_discard(state: DuelState, ev: HandSizeDiscard) -> None:
    player = state.turn_player if ev.player is None else ev.player
    hand = state.sides[player].hand
    cards = [get_card(state, ev, cid) for cid in ev.cards]
    for card in cards:
        if card.id not in hand:
            impossible(state, ev, "LOG-02", f"{card.id} is not in player {player}'s hand")
    if player != state.turn_player:
        fail(state, ev, "HAND-01", "only the turn player adjusts their hand at the end of the turn")
    elif state.phase != "end":
        fail(state, ev, "HAND-01", f"the hand is adjusted at the end of the End Phase, not in the {phase_name(state.phase)}")
    elif len(hand) - len(cards) != min(len(hand), HAND_LIMIT):
        fail(state, ev, "HAND-01",
             f"player {player} holds {len(hand)} cards and must discard down to exactly "
             f"{min(len(hand), HAND_LIMIT)}, not {len(hand) - len(cards)}")
    for card in cards:
        take(state, card)
        put(state, card, GY, player)
