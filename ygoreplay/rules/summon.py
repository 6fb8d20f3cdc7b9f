"""Normal Summons and Sets with Tributes, Flip Summons, Special Summons, tokens (SUM, SPS, TOKEN)."""
from __future__ import annotations

from ..events import (
    ATTACK, DEFENSE, EXTRA, FACEUP, GY, HAND, MZONE, OVERLAY, SET, Event, FlipSummoned,
    MonsterSet, NormalSummoned, SpecialSummoned, SummonNegated, TokenCreated)
from ..state import Card, DuelState
from .base import (
    fail, get_card, impossible, open_game_state, player_of, put, send_from_field, take)
from .zones import check_monster_zone

#: A summon by its printed procedure makes a monster "properly summoned" (SPS-12, TERM-13).
PROPER_METHODS = frozenset(("inherent", "ritual", "fusion", "synchro", "xyz", "pendulum", "link"))


def tributes_needed(level: int) -> int:
    """SUM-04: Level 4 or lower none, 5-6 one, 7 or higher two."""
    return 0 if level <= 4 else 1 if level <= 6 else 2


def _normal_summon(state: DuelState, ev: NormalSummoned | MonsterSet, position: str) -> None:
    player = player_of(state, ev)
    card = get_card(state, ev, ev.card)
    side = state.sides[player]
    what = "Set" if position == SET else "Normal Summon"
    if card.zone != HAND or card.controller != player:
        fail(state, ev, "SUM-01", f"{card.name} ({card.id}) is not in player {player}'s hand; a {what} comes from the hand")
    if not card.facts.is_monster or card.facts.is_extra_deck or card.is_token:
        fail(state, ev, "SUM-01", f"{card.name} cannot be Normal Summoned or Set: only Main Deck monsters can")
    why = open_game_state(state, player)
    if why:
        rule = "TURN-06" if state.phase == "battle" else "SUM-01"
        fail(state, ev, rule, f"a {what} needs an open game state in your own Main Phase: {why}")
    if side.normal_summon_turn == state.turn:
        fail(state, ev, "SUM-01", f"player {player} has already used the Normal Summon or Set of turn {state.turn}")
    level = card.current_level or 0
    need = tributes_needed(level)
    if len(ev.tributes) != need:
        fail(state, ev, "SUM-04",
             f"{card.name} is Level {level} and needs {need} Tribute(s), not {len(ev.tributes)}")
    if len(set(ev.tributes)) != len(ev.tributes):
        impossible(state, ev, "LOG-04", "the same monster is Tributed twice")
    tributes = [get_card(state, ev, t) for t in ev.tributes]
    for t in tributes:
        if t.zone != MZONE or t.controller != player:
            fail(state, ev, "SUM-06", f"{t.name} ({t.id}) is not a monster player {player} controls on the field")
    if ev.zone >= 5:
        fail(state, ev, "ZONE-03", "a Normal Summoned or Set monster goes to a Main Monster Zone (0-4)")
    check_monster_zone(state, ev, player, card, ev.zone, frozenset(ev.tributes))
    if position == DEFENSE:
        fail(state, ev, "SUM-09", "a Normal Summon is face-up Attack; face-up Defense needs an effect that allows it")
    for t in tributes:
        send_from_field(state, t, GY)
    take(state, card)
    put(state, card, MZONE, player, ev.zone, position)
    card.summoned_turn = state.turn
    card.summon_method = "set" if position == SET else "normal"
    card.properly_summoned = True
    side.normal_summon_turn = state.turn
    # SUM-02/03: a Set is not a "Summon", so there is nothing to negate (SPS-11 refuses it).
    state.summon_window = None if position == SET else card.id


def normal_summoned(state: DuelState, ev: NormalSummoned) -> None:
    _normal_summon(state, ev, ev.position)


def monster_set(state: DuelState, ev: MonsterSet) -> None:
    _normal_summon(state, ev, SET)


def flip_summoned(state: DuelState, ev: FlipSummoned) -> None:
    player = player_of(state, ev)
    card = get_card(state, ev, ev.card)
    if card.zone != MZONE or card.controller != player:
        impossible(state, ev, "SUM-10", f"{card.id} is not a monster player {player} controls on the field")
    check_flip(state, ev, card, player)
    card.position = ATTACK
    card.position_changed_turn = state.turn
    state.summon_window = card.id


def check_flip(state: DuelState, ev: Event, card: Card, player: int) -> None:
    """SUM-10/11: a Flip Summon is a position change made in your Main Phase."""
    if card.position not in (SET, "facedown_attack"):
        fail(state, ev, "SUM-10", f"{card.name} is already face-up; only a face-down monster can be Flip Summoned")
    why = open_game_state(state, player)
    if why:
        fail(state, ev, "SUM-10", f"a Flip Summon needs an open game state in your own Main Phase: {why}")
    if card.summoned_turn == state.turn:
        fail(state, ev, "SUM-11", f"{card.name} was Set or summoned this turn and cannot be Flip Summoned until the next")
    if card.position_changed_turn == state.turn:
        fail(state, ev, "SUM-11", f"{card.name} has already changed its battle position this turn")


def special_summoned(state: DuelState, ev: SpecialSummoned) -> None:
    player = player_of(state, ev)
    card = get_card(state, ev, ev.card)
    method = ev.method
    if card.zone == MZONE:
        impossible(state, ev, "LOG-02", f"{card.name} ({card.id}) is already on the field")
    if not card.facts.is_monster:
        fail(state, ev, "SPS-01", f"{card.name} is not a monster")
    if card.facts.is_extra_deck and card.zone != EXTRA and not card.properly_summoned:
        fail(state, ev, "SPS-12", f"{card.name} must first be properly summoned before an effect can Special Summon it from the {card.zone}")
    if method == "inherent" or method == "pendulum":
        why = open_game_state(state, player)
        if why:
            rule = "SPS-07" if method == "inherent" else "PEND-03"
            fail(state, ev, rule, f"an {method} Special Summon needs an open game state in your own Main Phase: {why}")
    if method == "pendulum":
        _check_pendulum(state, ev, card, player)
    if len(set(ev.materials)) != len(ev.materials) or ev.card in ev.materials:
        impossible(state, ev, "LOG-04", "a material is listed twice, or the summoned monster is its own material")
    materials = [get_card(state, ev, m) for m in ev.materials]
    check_monster_zone(state, ev, player, card, ev.zone,
                       frozenset(m.id for m in materials if m.zone == MZONE))
    if ev.position not in (ATTACK, DEFENSE) and method != "effect":
        fail(state, ev, "SPS-05", f"a {method} Summon places the monster face-up; only an effect can Special Summon it face-down")
    if card.facts.is_link and ev.position != ATTACK:
        fail(state, ev, "LINK-05", f"{card.name} is a Link monster and is always in Attack Position")
    for m in materials:
        if method == "xyz":
            take(state, m)
            m.zone, m.position, m.host = OVERLAY, None, card.id
            card.materials.append(m.id)
        elif m.zone == MZONE:
            send_from_field(state, m, GY)
        else:
            take(state, m)
            put(state, m, GY, m.owner)
    take(state, card)
    put(state, card, MZONE, player, ev.zone, ev.position)
    card.summoned_turn = state.turn
    card.summon_method = method
    if method in PROPER_METHODS:
        card.properly_summoned = True
    if method == "pendulum":
        state.sides[player].pendulum_summon_turn = state.turn
    state.pendulum_summon_open = method == "pendulum"    # any other summon ends it (SPS-02)
    state.summon_window = card.id


def _check_pendulum(state: DuelState, ev: Event, card: Card, player: int) -> None:
    """PEND-03 and SPS-02: once per turn, both Pendulum Zones, Levels strictly between the Scales."""
    side = state.sides[player]
    continuing = state.pendulum_summon_open and state.last_kind == "special_summoned"
    if side.pendulum_summon_turn == state.turn and not continuing:
        fail(state, ev, "SPS-02", f"player {player} has already Pendulum Summoned this turn")
    scales = [state.cards[c] for c in (side.szone[0], side.szone[4]) if c is not None]
    scales = [s for s in scales if s.facts.is_pendulum and s.face_up]
    if len(scales) < 2:
        fail(state, ev, "PEND-03", "a Pendulum Summon needs a Pendulum card in both Pendulum Zones")
        return
    low, high = sorted((scales[0].facts.lscale, scales[1].facts.rscale))
    level = card.current_level
    if level is None or not low < level < high:
        fail(state, ev, "PEND-03", f"{card.name} (Level {level}) is not strictly between the Scales {low} and {high}")
    if card.zone not in (HAND, EXTRA) or (card.zone == EXTRA and card.position != FACEUP):
        fail(state, ev, "PEND-03", f"{card.name} must come from the hand or the face-up Extra Deck")


def summon_negated(state: DuelState, ev: SummonNegated) -> None:
    card = get_card(state, ev, ev.card)
    if state.summon_window != card.id:
        fail(state, ev, "SPS-11", f"{card.name} is not being summoned now; a summon can be negated only as it is attempted")
    elif card.summon_method == "effect":
        fail(state, ev, "SPS-11", "a Special Summon by a resolving effect cannot be negated")
    if card.zone != MZONE:
        impossible(state, ev, "LOG-02", f"{card.id} is not on the field")
    take(state, card)            # SUM-03, PEND-04: to the GY, Pendulums included
    if card.is_token:
        del state.cards[card.id]
    else:
        put(state, card, GY, card.owner)
    state.summon_window = None


def token_created(state: DuelState, ev: TokenCreated) -> None:
    player = player_of(state, ev)
    if ev.card in state.cards:
        impossible(state, ev, "LOG-04", f"card id {ev.card} is already in use")
    facts = state.db.get(ev.code)
    if facts is None:
        impossible(state, ev, "CARD-01", f"no card facts for passcode {ev.code}")
    if not facts.is_token:
        fail(state, ev, "TOKEN-01", f"{facts.name} is not a Token")
    token = Card(ev.card, player, facts, zone="limbo", is_token=True)
    token.controller = player
    if ev.zone >= 5:
        fail(state, ev, "ZONE-03", "a Token goes to a Main Monster Zone (0-4)")
    check_monster_zone(state, ev, player, token, ev.zone)
    state.cards[token.id] = token
    put(state, token, MZONE, player, ev.zone, ev.position)
    token.summoned_turn = state.turn
    token.summon_method = "effect"
    state.summon_window = token.id
