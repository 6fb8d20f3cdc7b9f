"""Turns, phases, steps, draws and the hand limit (TURN, SETUP-02/04, HAND, BATTLE-01, NIS-04)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..i18n import N_, say
from ..events import GY, HAND, MZONE
from ..state import DuelState
from . import card_text
from .base import (
    check_not_negated, draw_owed, end_passes, ended_by_passes, fail, get_card, handles, impossible, must_still_draw,
    phase_name, priority_holder, put, take)
from .battle import damage_step_begins, left_uncalculated
from .chain import flip_window_closed, forget_takers
from .spell_trap import check_equips, settle_equips

if TYPE_CHECKING:                  # annotations only: a kind is made on its first use (events._lazy)
    from ..events import (
        CardMoved, CardsDrawn, ControlChanged, CountersChanged, HandSizeDiscard, LifePointsChanged, PhaseEntered,
        PriorityPassed, StatsChanged, StepEntered, TurnStarted)

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


@handles("cards_drawn")
def cards_drawn(state: DuelState, ev: CardsDrawn) -> None:
    player = state.turn_player if ev.player is None else ev.player
    if player not in (0, 1):
        impossible(state, ev, "LOG-05", N_("cards_drawn needs the player, 0 or 1"))
    side = state.sides[player]
    if not side.registered:
        impossible(state, ev, "LOG-03", say("player {player} has no registered deck to draw from", player=player))
    if ev.count < 1:
        impossible(state, ev, "LOG-05", N_("a draw takes at least one card"), public=True)
    ordered = state.deck_ordered(player)
    named = list(ev.cards)
    if named and (named != side.deck[:ev.count] if ordered else len(set(named)) != len(named)
                  or len(named) != min(ev.count, len(side.deck)) or not set(named) <= set(side.deck)):
        which = (say("the top {count}", count=ev.count) if ordered
                 else say("{count} different cards", count=min(ev.count, len(side.deck))))
        impossible(state, ev, "LOG-02", say("the drawn cards {named} are not {which} of player {player}'s Deck",
                                            named=named, which=which, player=player))
    normal_draw = False
    if state.turn == 0:
        if ev.cause is None:
            if state.opening_drawn[player]:
                fail(state, ev, "SETUP-02", say("player {player} has already drawn an opening hand", player=player))
            elif ev.count != state.hand_size:
                fail(state, ev, "SETUP-02", say("the opening hand is {hand_size} cards, not {count}",
                                                hand_size=state.hand_size, count=ev.count))
    elif ev.cause is None:
        normal_draw = True
        if player != state.turn_player:
            fail(state, ev, "TURN-02", say("only the turn player draws in the Draw Phase (player {player} drew)",
                                           player=player))
        elif state.phase != "draw":
            fail(state, ev, "TURN-02",
                 say("a draw with no effect as its cause is the Draw Phase draw, but this is the {phase_name}",
                     phase_name=phase_name(state.phase)))
        elif state.turn == 1 and player == state.first_player and "first_turn_draw" not in state.options:
            fail(state, ev, "SETUP-04", N_("the player going first does not draw on the first turn"))
        elif state.normal_draw_done:
            fail(state, ev, "TURN-02", N_("the turn player draws only once in the Draw Phase"))
        elif ev.count != state.draw_count:
            fail(state, ev, "TURN-02", say("the Draw Phase draw is {draw_count} cards, not {count}",
                                           draw_count=state.draw_count, count=ev.count) if state.draw_count != 1 else
                 say("the Draw Phase draw is {draw_count} card, not {count}", draw_count=state.draw_count,
                     count=ev.count))
    check_not_negated(state, ev)              # TERM-14: a negated Pot of Greed draws nothing
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


@handles("turn_started")
def turn_started(state: DuelState, ev: TurnStarted) -> None:
    player = ev.player
    if player not in (0, 1):
        impossible(state, ev, "LOG-05", N_("turn_started needs the player, 0 or 1"))
    if ev.turn != state.turn + 1:
        impossible(state, ev, "LOG-06", say("turn {turn} follows turn {turn2}; expected turn {value}",
                                            turn=ev.turn, turn2=state.turn, value=state.turn + 1), public=True)
    if state.turn == 0:
        for p in (0, 1):
            if not state.opening_drawn[p]:
                fail(state, ev, "SETUP-02", say("player {p} has not drawn an opening hand of {hand_size}",
                                                p=p, hand_size=state.hand_size))
        if player != state.first_player:
            fail(state, ev, "MATCH-07", say("player {first_player} was chosen to go first, not player {player}",
                                            first_player=state.first_player, player=player))
    else:
        if state.phase != "end":
            fail(state, ev, "TURN-01",
                 say("turn {turn} ended in the {phase_name}; a turn ends after its End Phase",
                     turn=state.turn, phase_name=phase_name(state.phase)))
        if state.chain:
            fail(state, ev, "CHAIN-05", N_("a new turn cannot start while a chain is unresolved"))
        if (len(state.sides[state.turn_player].hand) > HAND_LIMIT
                and not card_text.text_allows(state, "EFFECT_HAND_LIMIT")):   # HAND-02: a text may change it
            fail(state, ev, "HAND-01",
                 say("player {turn_player} ended turn {turn} with {count} cards in hand; the limit is {HAND_LIMIT}",
                     turn_player=state.turn_player, turn=state.turn, count=len(state.sides[state.turn_player].hand), HAND_LIMIT=HAND_LIMIT))
        if player == state.turn_player:
            fail(state, ev, "TURN-01", say("player {player} took two turns in a row without an effect granting it",
                                           player=player))
    stranded = check_equips(state, ev) if state.equips else ()   # SPELL-07: moved before the turn ends
    state.turn = ev.turn
    card_text.new_turn(state)                 # TEXT-01: the turn's count limits start again
    state.turn_began = state.index            # a correction goes back no further (LOG-12)
    state.turn_player = player
    state.phase = state.step = None
    state.battle_phase_entered = False
    state.normal_draw_done = state.draw_given_up = False
    state.attack = None
    state.summon_window = None
    state.resolved.clear()                    # FUS-03, RIT-03: a summon waits for no resolution of a past turn
    state.flipped.clear()                     # EFF-05: a Flip effect waits for no flip of a past turn
    state.flip_uses.clear()                   # EFF-05: nor counts the Flip effects it activated
    state.forfeited.clear()                   # BATTLE-07: a forfeit lasts the Battle Phase it was made in
    state.attacked_earlier.clear()            # BATTLE-03: no earlier Battle Phase in a new turn
    state.lapsing.clear()                     # TURN-08: what lapses at the end of the turn has lapsed
    forget_takers(state, at_turn_end=True)   # CTRL-01: a taken card's trigger waits no longer
    if state.equips:
        settle_equips(state, stranded)


@handles("phase_entered")
def phase_entered(state: DuelState, ev: PhaseEntered) -> None:
    if state.turn == 0:
        impossible(state, ev, "LOG-03", N_("no turn has started"))
    phase = ev.phase
    if phase not in PHASE_AFTER[state.phase]:
        if phase == "main2" and not state.battle_phase_entered:
            fail(state, ev, "TURN-07", N_("Main Phase 2 comes only after a Battle Phase"))
        else:
            fail(state, ev, "TURN-01",
                 say("the {phase_name} cannot follow the {phase_name2} (Draw, Standby, Main 1, Battle, Main 2, "
                     "End)", phase_name=phase_name(phase), phase_name2=phase_name(state.phase)))
    if phase == "battle" and state.turn == 1:
        fail(state, ev, "NIS-04", N_("there is no Battle Phase on the first turn of the duel"))
    if state.chain:
        fail(state, ev, "PRIO-04", say("the phase cannot change while a chain of {count} is open",
                                       count=len(state.chain)))
    if state.phase == "draw" and must_still_draw(state):
        _draw_owed(state, ev, left=True)
    stranded = check_equips(state, ev) if state.equips else ()   # SPELL-07: moved before the phase ends
    if state.phase == "battle":
        close_attack(state, ev)
    state.phase = phase
    state.step = "start" if phase == "battle" else None
    if phase == "battle":
        if state.battle_phase_entered:
            _second_battle_phase(state)
        state.battle_phase_entered = True
    state.summon_window = None
    if state.equips:
        settle_equips(state, stranded)


def _second_battle_phase(state: DuelState) -> None:
    """BATTLE-03: each monster attacks once per Battle Phase, so in a second one this turn (a card
    that grants it cited: TURN-01 otherwise; EDOPro's ``EFFECT_BP_TWICE``) the monsters that
    attacked in the first may attack again; BATTLE-07: a forfeit lasted the first. Their attack
    this turn still keeps their position in Main Phase 2 (POS-08)."""
    state.attacked_earlier = [card.id for card in state.cards.values()
                              if card.zone == MZONE and card.attacked_turn == state.turn]
    state.forfeited.clear()


def _draw_owed(state: DuelState, ev: PhaseEntered | PriorityPassed, left: bool) -> None:
    """TURN-02: the turn player's draw is still owed in the Draw Phase: it leaves the phase
    (``left``) or a player passes, yet the draw comes first, before anyone holds priority (WIN-02
    with an empty Deck: ``base.draw_owed``)."""
    turn_player = state.turn_player
    draw_owed(state, ev, say("player {turn_player} left the Draw Phase without drawing", turn_player=turn_player)
              if left else say("player {turn_player} has not drawn yet: in the Draw Phase the turn player draws "
                               "first, and only then does anyone hold priority and pass", turn_player=turn_player))


@handles("step_entered")
def step_entered(state: DuelState, ev: StepEntered) -> None:
    if state.phase != "battle":
        fail(state, ev, "BATTLE-01", say("{step} is a Battle Phase step; this is the {phase_name}",
                                         step=ev.step, phase_name=phase_name(state.phase)))
    elif ev.step not in STEP_AFTER.get(state.step, ()):
        fail(state, ev, "BATTLE-01",
             say("the {step} step cannot follow the {step2} step (Start, Battle, Damage, End)",
                 step=ev.step, step2=state.step))
    if ev.step == "damage" and state.attack is None:
        fail(state, ev, "BATTLE-01", N_("the Damage Step comes only after an attack is declared"))
    if state.chain:
        fail(state, ev, "PRIO-04", say("the step cannot change while a chain of {count} is open",
                                       count=len(state.chain)))
    stranded = check_equips(state, ev) if state.equips else ()   # SPELL-07: moved before the step ends
    if state.step == "damage" or ev.step == "end":
        close_attack(state, ev)
    elif ev.step == "damage":
        damage_step_begins(state, ev)         # BATTLE-06: no replay from here on
    state.step = ev.step
    if state.equips:
        settle_equips(state, stranded)


def close_attack(state: DuelState, ev) -> None:
    """An attack is over: what damage calculation decided must have happened (DMG-10, BATTLE-14)."""
    attack = state.attack
    if attack is None:
        return
    if not attack.calculated and (owed := left_uncalculated(state, attack)):
        fail(state, ev, *owed)                 # BATTLE-02, NIS-03: its Damage Step or damage calculation owed
    for player, amount in enumerate(attack.pending_damage):
        if amount:
            fail(state, ev, "DMG-10",
                 say("battle damage of {amount} to player {player} was calculated but never applied",
                     amount=amount, player=player))
    for card_id in attack.destroyed:
        card = state.cards.get(card_id)
        if card is not None and card.zone == "mzone":
            fail(state, ev, "BATTLE-14", say("{name} ({card_id}) was destroyed by battle but is still on the field",
                                             name=card.name, card_id=card_id))
    target = attack.target
    if attack.calculated and state.step == "damage" and target is not None and target in state.flipped:
        flip_window_closed(state, ev, target)      # BATTLE-12: its Flip effect was for this Damage Step
    state.attack = None


@handles("priority_passed")
def priority_passed(state: DuelState, ev: PriorityPassed) -> None:
    """PRIO-01/03, CHAIN-04: who may pass. The turn player holds priority first in every phase and
    step, and again once a chain has resolved; activating or passing hands it to the opponent, so
    after an activation the opponent passes first, then its player. A record that states one pass
    states them all: from then on a chain resolves only after two passes in succession."""
    if not state.started:
        impossible(state, ev, "LOG-03", N_("the duel has not started"))
    player, passes = ev.player, state.passes
    if state.phase == "draw" and not state.chain and must_still_draw(state):
        _draw_owed(state, ev, left=False)
    if state.chain and not state.resolving:
        top = state.chain[-1]
        if passes >= 2:
            fail(state, ev, "CHAIN-04", say("both players have passed in succession since Chain Link {number}: the "
                                            "chain resolves now", number=top.number))
        elif player is not None:
            holder = priority_holder(state)
            if player != holder:
                fail(state, ev, "PRIO-03", say("player {player} activated Chain Link {number}, which hands "
                                               "priority to player {opponent}{back}: player {holder} holds "
                                               "priority, not player {acting}",
                                               player=top.player, number=top.number, opponent=1 - top.player,
                                               back=N_(" who passed it back") if passes else "", holder=holder,
                                               acting=player))
    elif end_passes(state) >= 2:      # PRIO-05: no one answered the end: it ended
        fail(state, ev, "PRIO-05", ended_by_passes(state))
    elif not (state.resolving and state.chain) and player is not None:   # a chain fully resolved is over
        holder = priority_holder(state)
        if player != holder:
            # the reason is a sentence of its own, catalogued, so it is translated inside the one it fills
            rule, why = (("PRIO-01", say("the turn player holds priority first")) if holder == state.turn_player
                         else ("PRIO-03", say("player {turn_player} passed it to player {holder}",
                                              turn_player=state.turn_player, holder=holder)))
            fail(state, ev, rule, say("{why}: player {holder} holds priority, not player {player}",
                                      why=why, holder=holder, player=player))
    state.passes_recorded = True                  # only once accepted: a refused pass changes nothing
    state.passes = passes + 1


#: What no End Phase effect does: a cost (paid with an activation), a card leaving once it
#: resolved or was negated (SPELL-04), a move the basic rules make.
_NO_EFFECT_MOVES = frozenset(("cost", "resolved", "negated", "rule"))
#: The kinds an End Phase effect's change is recorded as (``end_phase_effect``) that ``fold.apply``
#: hands to it after their handler, in the End Phase once a player passed. A stats or a control
#: change is handed to it by its handler, which first tells whether it is a lapse (TURN-08).
END_PHASE_EFFECTS = frozenset(("card_moved", "life_points_changed", "counters_changed"))


def end_phase_effect(state: DuelState,
                     ev: CardMoved | LifePointsChanged | StatsChanged | CountersChanged | ControlChanged) -> None:
    """TURN-08, PRIO-01: once the turn player has declared the end of the End Phase (passed), its
    effects worded "in the End Phase" or "at the end of the turn" are processed before the hand is
    adjusted (a card banished until the End Phase comes back, LP gained, ATK set). Whatever such
    an effect changes, with no chain open (a chain whose last link resolved is over, its end
    recorded or not: passes after it were made once it was), changes the game state: the turn
    player holds priority again, first, and the End Phase ends only when both players pass again
    (PRIO-05), as after a chain. A card moved, LP and ATK/DEF/Level changed, counters placed,
    control given are alike: what changed is no matter (a Token made or a monster Special
    Summoned is a play that breaks the passes itself). Without card text the engine judges only
    what the record says: an effect applying names its cause; a change naming none, a cost or a
    card's leaving once its chain link is done (``reason``) is no End Phase effect (GEN-01: a
    recorder who means one names it), nor is an effect of this turn lapsing ("until the end of
    this turn": ``stats_lapse``, ``control_lapse``). Called by ``fold.apply`` once such an event
    is applied, in the End Phase after a pass (``END_PHASE_EFFECTS``); by the stats and control
    handlers themselves, once they told whether the change is a lapse."""
    if ev.cause is not None and getattr(ev, "reason", None) not in _NO_EFFECT_MOVES and not state.chain:
        state.passes = 0


def stats_lapse(state: DuelState, card_id: str, exits: int, cause: str | None, delta: tuple[int, int, int]) -> bool:
    """TURN-08: whether this change of ATK/DEF/Level by ``cause`` is the lapse of one it made
    this turn ("gains 1000 ATK until the end of this turn"): it undoes that change, or part of
    it (``delta``, new minus old, goes back towards where ``cause`` found the card, stat by stat,
    no further: two boosts by one cause lapse one by one). A lapse is no effect applying: in the
    End Phase it gives no priority back. Any other change by an effect is remembered for its
    lapse. Judged without card text, on the record's values."""
    if cause is None or not any(delta):
        return False
    for entry in state.lapsing:
        if entry[0] == "stats" and entry[1] == card_id and entry[2] == cause and entry[3] == exits:
            if all(d == 0 or (d * before < 0 and abs(d) <= abs(before)) for d, before in zip(delta, entry[4:])):
                entry[4:] = [before + d for d, before in zip(delta, entry[4:])]
                if not any(entry[4:]):
                    state.lapsing.remove(entry)
                return True
            entry[4:] = [before + d for d, before in zip(delta, entry[4:])]
            return False
    state.lapsing.append(["stats", card_id, cause, exits, *delta])
    return False


def control_lapse(state: DuelState, card_id: str, exits: int, cause: str | None, before: int, after: int) -> bool:
    """TURN-08: whether this control change by ``cause`` gives back a card it took this turn
    ("take control of it until the End Phase", Change of Heart): a lapse, no effect applying,
    so in the End Phase it gives no priority back. Any other is remembered for its lapse."""
    if cause is None:
        return False
    for entry in state.lapsing:
        if entry[0] == "control" and entry[1] == card_id and entry[2] == cause and entry[3] == exits:
            state.lapsing.remove(entry)
            return entry[4] == after
    state.lapsing.append(["control", card_id, cause, exits, before])
    return False


@handles("hand_size_discard")
def hand_size_discard(state: DuelState, ev: HandSizeDiscard) -> None:
    player = state.turn_player if ev.player is None else ev.player
    hand = state.sides[player].hand
    cards = [get_card(state, ev, cid) for cid in ev.cards]
    for card in cards:
        if card.id not in hand:
            impossible(state, ev, "LOG-02", say("{id} is not in player {player}'s hand", id=card.id, player=player))
    if player != state.turn_player:
        fail(state, ev, "HAND-01", N_("only the turn player adjusts their hand at the end of the turn"))
    elif state.phase != "end":
        fail(state, ev, "HAND-01", say("the hand is adjusted at the end of the End Phase, not in the {phase_name}",
                                       phase_name=phase_name(state.phase)))
    elif state.chain:                           # TURN-08: the End Phase's effects first, then the hand
        fail(state, ev, "HAND-01", say("the hand is adjusted as the End Phase finishes, once every chain has "
                                       "resolved: a chain of {count} link(s) is open", count=len(state.chain)))
    elif len(hand) - len(cards) != min(len(hand), HAND_LIMIT):
        fail(state, ev, "HAND-01",
             say("player {player} holds {count} cards and must discard down to exactly {min}, not {value}",
                 player=player, count=len(hand), min=min(len(hand), HAND_LIMIT), value=len(hand) - len(cards)))
    for card in cards:
        take(state, card)
        put(state, card, GY, player)
