"""Battle positions: manual changes (POS-07..09), changes by effect, Link monsters (LINK-05), and
the flip of an attacked face-down monster before damage calculation (POS-04, BATTLE-12)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..i18n import N_, say
from ..events import ATTACK, DEFENSE, FACEDOWN_ATTACK, FACEUP, FZONE, MZONE, SET, SZONE
from ..state import Card, DuelState
from .base import check_not_negated, fail, get_card, handles, impossible, open_game_state, player_of
from . import card_text
from .summon import check_flip, summoned_this_turn

if TYPE_CHECKING:                  # annotations only: a kind is made on its first use (events._lazy)
    from ..events import PositionChanged

FACE_DOWN = (SET, FACEDOWN_ATTACK)
#: A manual change of position moves no card for itself: no trigger owed is spared (GEN-03).
_NONE: frozenset[str] = frozenset()


@handles("position_changed")
def position_changed(state: DuelState, ev: PositionChanged) -> None:
    card = get_card(state, ev, ev.card)
    new = ev.position
    if card.zone in (SZONE, FZONE):
        _spell_trap_position(state, ev, card, new)
        return
    if card.zone != MZONE:
        impossible(state, ev, "POS-01", say("{name} ({id}) is not in a Monster Zone", name=card.name, id=card.id))
    if new == FACEUP:
        impossible(state, ev, "POS-01", say("{new!r} is not a battle position", new=new), public=True)
    if new == card.position:
        impossible(state, ev, "LOG-02", say("{name} is already in {new} position", name=card.name, new=new))
    if card.facts.is_link:
        fail(state, ev, "LINK-05", say("{name} is a Link monster: neither rules nor effects change its position",
                                       name=card.name))
    if card.is_token and new not in (ATTACK, DEFENSE):
        fail(state, ev, "TOKEN-02", N_("a Token is always face-up"))
    check_not_negated(state, ev)              # TERM-14: a negated Book of Moon turns nothing face-down
    if ev.cause is None and _attacked_face_down(state, card, new):
        state.flipped.append(card.id)           # EFF-05: its Flip effect follows damage calculation
        card.position = new                     # POS-04/BATTLE-12: by the rules, not a manual change
        return
    manual = ev.cause is None and not (state.chain or state.resolving) and bool(
        state.card_text[card_text.OWED] or state.card_text[card_text.SEEN])
    if ev.cause is None:
        _check_attacked_flip(state, ev, card, new)
        _check_manual(state, ev, card, new)
        if manual and state.card_text[card_text.OWED]:
            card_text.left_by_action(state, ev, _NONE)   # GEN-03: an action of an open game state
    flip_summon = ev.cause is None and card.position in (SET, FACEDOWN_ATTACK) and new == ATTACK
    if card.position in FACE_DOWN and new in (ATTACK, DEFENSE):
        state.flipped.append(card.id)           # EFF-05: checked, so flipped: its Flip effect may follow
    elif new in FACE_DOWN:
        _turned_face_down(state, card)
    card.position = new
    if ev.cause is None:
        card.position_changed_turn = state.turn
    if manual:                                  # EFF-04, GEN-03: the duel moved on past the triggers waiting
        card_text.past_action(state, _NONE)
        card_text.moved_on(state, state.index)
    state.summon_window = card.id if flip_summon else None   # a Flip Summon can be negated
    if flip_summon:
        card.summon_method = "flip"
        state.summon_group = [card.id]          # SUM-03, PEND-04: its own summon, not an earlier one's


def _attacked_face_down(state: DuelState, card, new: str) -> bool:
    """POS-04, POS-02, BATTLE-12: the face-down monster an attack targets is flipped face-up in
    the Damage Step, before damage calculation: face-down Defense to face-up Defense, face-down
    Attack to face-up Attack. The record may state it (EDOPro does, at the moment the engine
    flips it); else damage calculation flips it."""
    attack = state.attack
    return (attack is not None and attack.target == card.id and not attack.calculated and state.step == "damage"
            and (card.position, new) in ((SET, DEFENSE), (FACEDOWN_ATTACK, ATTACK)))


def _check_attacked_flip(state: DuelState, ev: PositionChanged, card, new: str) -> None:
    """POS-02, POS-04, NIS-03: the face-down monster an attack targets, turned by no effect, is
    turned by the rules, not by its controller's hand: face-down Attack to face-up Attack (POS-02:
    "becomes face-up Attack when attacked"), face-down Defense to face-up Defense (POS-04: "when
    attacked, it is flipped to face-up Defense before damage calculation"), in the Damage Step
    (NIS-03). Any other such turn was judged a manual change by the turn player, who "does not
    control" the attacked monster."""
    attack = state.attack
    if attack is None or attack.target != card.id or card.position not in FACE_DOWN:
        return
    if card.position == FACEDOWN_ATTACK and new != ATTACK:
        fail(state, ev, "POS-02", say("{name}, attacked in face-down Attack Position, becomes face-up Attack "
                                      "Position by the rules", name=card.name))
    if card.position == SET and new != DEFENSE:
        fail(state, ev, "POS-04", say("{name}, attacked in face-down Defense Position, is flipped to face-up "
                                      "Defense Position by the rules", name=card.name))
    fail(state, ev, "NIS-03", say("the attacked {name} is flipped face-up in the Damage Step, before damage "
                                  "calculation", name=card.name))


def _spell_trap_position(state: DuelState, ev: PositionChanged, card, new: str) -> None:
    """A Spell/Trap turned face-down (or face-up without being activated): only by an effect."""
    if new not in (FACEUP, SET) or new == card.position:
        impossible(state, ev, "POS-01", say("{name} is in a Spell & Trap Zone: face-up or Set, not {new!r} again",
                                            name=card.name, new=new))
    if ev.cause is None:
        fail(state, ev, "SPELL-03", say("only an effect turns {name} {face} without activating it", name=card.name,
                                        face=N_("face-down") if new == SET else N_("face-up")))
    card.position = new
    if new == SET:
        card.set_turn = state.turn                # Set again: it waits a turn like any Set card
        _turned_face_down(state, card)


def _turned_face_down(state: DuelState, card: Card) -> None:
    """A card on the field turned face-down is reset: POS-04, no effect that changes a monster's
    ATK/DEF (or Level) applies to it face-down, so what effects changed is gone (a boost "until the
    end of this turn" then has no lapse to come), and face-up again it has its printed values
    until a change is recorded (a Field Spell applying again is one); COUNTER-01, its counters go
    (a face-down card has no effect that keeps them). In EDOPro, turning a card face-down resets
    it with ``RESET_TURN_SET``: every change registered with ``RESETS_STANDARD`` (which holds it)
    ends, and ``card::reset`` clears the counters, with no message a record could show."""
    if card.counters:
        card.counters = {}
    if card.atk is not None or card.defense is not None or card.level is not None:
        card.atk = card.defense = card.level = None
        state.lapsing = [entry for entry in state.lapsing if entry[0] != "stats" or entry[1] != card.id]


def _check_manual(state: DuelState, ev: PositionChanged, card, new: str) -> None:
    """POS-07/08/09: your own monster, your Main Phase, once per turn, not after summon or attack."""
    player = player_of(state, ev)
    if card.controller != player:
        fail(state, ev, "POS-07", say("player {player} does not control {name}", player=player, name=card.name))
    if card.position in FACE_DOWN and new == ATTACK:
        check_flip(state, ev, card, player)     # SUM-11: a Flip Summon is a position change
        return
    if card.position in FACE_DOWN or new in FACE_DOWN:
        fail(state, ev, "POS-09", N_("a manual change is Attack <-> Defense or a Flip Summon; face-down -> face-up "
                                     "Defense and face-up -> face-down need an effect"))
    why = open_game_state(state, player)
    if why:
        fail(state, ev, "POS-07", say("a manual position change needs an open game state in your own Main Phase: "
                                      "{why}", why=why))
    if card.position_changed_turn == state.turn:
        fail(state, ev, "POS-07", say("{name} has already changed position this turn", name=card.name))
    if summoned_this_turn(state, card):
        fail(state, ev, "POS-08", say("{name} was summoned or Set this turn and cannot change position",
                                      name=card.name))
    if card.attacked_turn == state.turn:
        fail(state, ev, "POS-08", say("{name} declared an attack this turn and cannot change position",
                                      name=card.name))
