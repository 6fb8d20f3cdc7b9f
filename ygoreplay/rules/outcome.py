"""Outcomes of card effects, accepted as recorded with their cause (GEN-01): moves, LP, stats.

The engine does not read card text, so what an effect did is a fact of the record. It still
checks what the basic rules say about any move: piles belong to the owner (CTRL-03), Pendulums
go to the Extra Deck (PEND-05), battle destruction is what damage calculation decided
(BATTLE-14), battle damage is what it computed (DMG-10), and LP are stated correctly (ZONE-14).
A detached Xyz material goes to the GY (NIS-05), a Token is never face-down (TOKEN-02), a card back
in the hand or Deck is no longer properly summoned (SPS-14), a ``material`` move belongs to the
summon that follows it (summon.py), and a control change keeps what the card is (CTRL-02), as
does a move to another zone on the same side (``zone_changed``: it does not leave the field,
ZONE-16).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..i18n import N_, say
from ..events import (
    ATTACK, BANISHED, DECK, EXTRA, FACEDOWN, FACEUP, FZONE, GY, HAND, INT_MAX, MZONE, OVERLAY, SET, SZONE, Loc)
from ..state import Card, ChainLink, DuelState
from . import card_text
from .base import (
    LEFT, ON_FIELD, REASONS_FROM, check_not_negated, fail, get_card, handles, impossible, player_of, put, reason_problem,
    refuse_by_identity, take, vanish)
from .spell_trap import check_equips, in_chain, settle_equips
from .identity import forget_deck
from .summon import note_material_move
from .turn import control_lapse, end_phase_effect, stats_lapse
from .win import late_lp_change, loss_cause
from .zones import check_free_monster_zone, check_monster_zone, check_spell_trap_zone, extra_link, ruleset_of

if TYPE_CHECKING:                  # annotations only: a kind is made on its first use (events._lazy)
    from ..cards import CardFacts
    from ..events import (
        CardMoved, CardRevealed, CardsSwapped, CoinTossed, ControlChanged, CountersChanged, DieRolled,
        LifePointsChanged, SetCardsShuffled, StatsChanged, ZoneChanged)

PILES = frozenset((DECK, HAND, GY, BANISHED, EXTRA))


@handles("card_moved")
def card_moved(state: DuelState, ev: CardMoved) -> None:
    card = state.cards.get(ev.card) or get_card(state, ev, ev.card)
    check_not_negated(state, ev, card.id)
    to = ev.to
    # the destination's fields as locals: a NamedTuple's field is a descriptor call each read
    # (Python 3.11 does not specialise it), and a move reads its zone up to eight times
    to_controller, to_zone, to_index = to
    placed = state.field_placed
    if placed is not None and placed[0] == state.index - 1 and _field_spell_replaced(state, ev, card, placed):
        return
    if state.unrefunded and ev.cause is None and any(card.id in paid for paid, _ in state.unrefunded):
        fail(state, ev, "TERM-14", say("{name} ({id}) was paid as the cost of a link whose activation was negated: "
                                       "a cost is never refunded, so no rule moves it back (name the effect that "
                                       "does)", name=card.name, id=card.id))
    source = ev.source
    if source is not None:
        here = state.location(card)
        if (source.controller, source.zone) != (here.controller, here.zone) or (
                source.index is not None and source.index != here.index
                and (here.zone != DECK or state.deck_ordered(here.controller))):   # any card may be on top
            impossible(state, ev, "LOG-02", say("{name} ({id}) is at {here}, not {to_wire}",
                                                name=card.name, id=card.id, here=list(here), to_wire=source.to_wire()))
    if to_zone == card.zone and to_zone != DECK and to_controller == _holder(state, card):
        # where a card is, the table sees: told as it is, by the entry's own name for it (its id)
        impossible(state, ev, "LOG-02", say("{id} is already in the {zone}", id=card.id, zone=to_zone), public=True)
    host = _check_destination(state, ev, card, to)      # impossible destinations first
    _check_move_rules(state, ev, card, to)
    # -- all checks done ----------------------------------------------------------------------
    if ev.reason == "material" or ev.reason == "tributed":
        note_material_move(state, card)                        # for the summon that follows (RIT-02)
        for material in card.materials:                        # NIS-05, SPS-09: its Xyz materials go with it,
            note_material_move(state, state.cards[material], cost=True)   # for that summon, none a material
    elif ev.reason in _PROCEDURE_MOVES and not state.chain and not state.resolving and (
            ev.reason in _PROCEDURE_COSTS or card.zone == OVERLAY):
        note_material_move(state, card, cost=True)             # SPS-07: its cost; EFF-04, NIS-05: a material's
    if card.is_token and to_zone not in ON_FIELD:
        vanish(state, card)                                    # TOKEN-02
        return
    position = ev.position or _default_position(card, to_zone)
    attack = state.attack
    if attack is not None and card.id in attack.destroyed and card.zone in ON_FIELD:
        # BATTLE-14 is satisfied once it has left the field, wherever an effect sends it and even
        # if another effect brings it back before the attack ends (a new card then)
        attack.destroyed = tuple(c for c in attack.destroyed if c != card.id)
    take(state, card)
    if host is not None:
        card.zone, card.position, card.host = OVERLAY, None, host.id
        host.materials.append(card.id)
        return
    put(state, card, to_zone, to_controller, to_index, position)
    if to_zone in (HAND, DECK, EXTRA):
        card.properly_summoned = False                         # SPS-14: a new card from now on
        if to_zone == DECK and (ev.reason == "shuffled" or to_index is None) and state.witnessed \
                and not state.sides[card.owner].order_known:
            # ZONE-11: shuffled in ("return it to the Deck", no place named: the page's *Return to
            # the Deck*) where nobody follows the order: no longer on top, that card, to be drawn
            forget_deck(state, card.owner)
    elif position == SET and to_zone in (SZONE, FZONE):
        card.set_turn = state.turn                             # TRAP-02, SPELL-12: Set by an effect, it waits a turn too


#: How a card moved outside any chain goes as the cost of the inherent Special Summon that follows
#: it (SPS-07: The Tricky's discard, Chaos Sorcerer's banishment): it belongs to that summon. A
#: record may name the banishment or the sending itself (nothing else banishes or sends a card
#: outside a chain right before such a summon): its triggers answer the summon too.
_PROCEDURE_COSTS = frozenset(("cost", "discarded", "banished", "sent"))
#: With them, an Xyz material sent to the GY outside any chain "by the rules" (or "detached"),
#: as a table records its going before its Xyz monster's as the material of the summon that
#: follows (NIS-05: it goes when its Xyz monster leaves the field): it goes for that summon, and
#: its "if sent to the GY" trigger answers the summon (EFF-04), as when the fold buries it itself.
_PROCEDURE_MOVES = _PROCEDURE_COSTS | frozenset(("rule", "detached"))


#: What stays on the field once resolved (TRAP-04, SPELL-04), by the rule that keeps it.
_STAYING = {"TRAP-04": N_("Continuous Trap"), "SPELL-04": N_("Continuous or Field Spell")}


def _stays_once_resolved(facts: CardFacts) -> str | None:
    """TRAP-04 (a Continuous Trap), SPELL-04 (a Continuous or Field Spell): the rule by which a card
    stays on the field after resolving, or None (an Equip's stay is SPELL-06/07's to judge)."""
    if facts.trap_subtype == "continuous":
        return "TRAP-04"
    if facts.spell_subtype in ("continuous", "field"):
        return "SPELL-04"
    return None


def _holder(state: DuelState, card: Card) -> int:
    """The player whose zone holds the card: ``state.location(card).controller``, without finding
    its index."""
    zone = card.zone
    if zone == OVERLAY:
        return state.cards[card.host].controller if card.host else card.owner
    if zone in _HELD_BY_CONTROLLER:
        return card.controller
    return card.owner


_HELD_BY_CONTROLLER = frozenset((MZONE, SZONE, FZONE, HAND))


def _field_spell_replaced(state: DuelState, ev: CardMoved, card: Card, placed: list) -> bool:
    """SPELL-11, right after a Field Spell was placed in ``placed[1]``'s Field Zone: the record
    may state that the old one went to the GY (it is there already: nothing more happens), but it
    was sent, not destroyed, and the opponent's Field Spell stays where it is. Under the duel
    option ``one_field_spell`` (the older ruling, CONF-03) the old one is destroyed instead; the
    opponent's face-up one is destroyed too, but only once the new one's activation resolves,
    not as it is placed, so here it still stays."""
    _, player, old = placed
    if card.id == old:
        destroyed = "one_field_spell" in state.options
        if ev.to.zone != GY or ev.reason in ("battle", "banished") or (ev.reason == "destroyed") != destroyed:
            how = "destroyed (one_field_spell)" if destroyed else "sent to the GY, neither destroyed nor sent anywhere else"
            fail(state, ev, "SPELL-11", say("{name} ({id}) was replaced by a new Field Spell: it is {how} "
                                            "(recorded: {reason} to the {zone})",
                                            name=card.name, id=card.id, how=how, reason=ev.reason, zone=ev.to.zone))
        return True
    if card.zone == FZONE and card.controller != player and ev.cause is None:
        fail(state, ev, "SPELL-11", say("player {player}'s new Field Spell leaves player {controller}'s {name} "
                                        "where it is: only your own old Field Spell goes to the GY",
                                        player=player, controller=card.controller, name=card.name))
    return False


def _pending_activation(state: DuelState, card: Card) -> ChainLink | None:
    """The chain link activating ``card`` itself as a Spell in its Pendulum Zone, not yet resolved.

    A Pendulum card whose activation is negated goes to the GY (PEND-01): it never was a monster
    on the field, so PEND-05 does not send it to the Extra Deck. The record may move it (Solemn
    Judgment, Dark Bribe: "negate, and if you do, destroy") before the link's turn says it was
    negated, so the move waits for that turn (``chain_link_resolved``)."""
    if card.zone != SZONE:
        return None
    return next((link for link in state.chain if link.card == card.id and link.is_card_activation), None)


def _check_move_rules(state: DuelState, ev: CardMoved, card: Card, to: Loc) -> None:
    reason = ev.reason
    zone, here, facts = to.zone, card.zone, card.facts   # each fact is still read where it was
    if zone in PILES and to.controller != card.owner:
        fail(state, ev, "CTRL-03", say("{name} goes to its owner's {zone} (player {owner}), not player "
                                       "{controller}'s",
                                       name=card.name, zone=zone, owner=card.owner, controller=to.controller))
    # PEND-01: a Pendulum Scale whose activation was negated leaves for the GY, however the record
    # says it left ("negate, and if you do, destroy it"): never the Extra Deck
    negated_scale = here == SZONE and card.id in state.negated and card.id in state.to_leave
    if zone == EXTRA and negated_scale and facts.is_pendulum:
        fail(state, ev, "PEND-01", say("{name}'s activation as a Pendulum Scale was negated: it goes to the GY, not "
                                       "the Extra Deck", name=card.name))
    if zone == GY and facts.is_pendulum and facts.is_monster and here in ON_FIELD and reason != "negated" \
            and not negated_scale:
        link = _pending_activation(state, card) if ev.cite is None else None
        if link is not None:
            link.left_for_gy = True                # judged when its turn comes (chain.py)
        else:
            fail(state, ev, "PEND-05", say("{name} is a Pendulum monster: leaving the field for the GY, it goes "
                                           "face-up to the Extra Deck instead", name=card.name))
    if reason == "resolved" and here in (SZONE, FZONE) and card.id not in state.to_leave:
        stays = _stays_once_resolved(facts)
        if stays:
            fail(state, ev, stays, say("{name} is a {what}: once resolved it stays on the field, so the rules do not "
                                       "send it to the GY as resolved (an effect or a cost that sent it is its reason)",
                                       name=card.name, what=_STAYING[stays]))
    if (zone == HAND or zone == DECK) and facts.is_extra_deck:
        fail(state, ev, "ZONE-12", say("{name} is an Extra Deck monster: it returns to the Extra Deck, not the "
                                       "{zone}", name=card.name, zone=zone))
    elif zone == EXTRA and not facts.is_extra_deck and (not facts.is_pendulum or ev.position == FACEDOWN):
        fail(state, ev, "ZONE-12", say("{name} is a Main Deck card: only a Pendulum monster goes to the Extra Deck, "
                                       "face-up", name=card.name))
    if reason == "battle":
        attack = state.attack
        if attack is None or card.id not in attack.destroyed:
            fail(state, ev, "BATTLE-14", say("{name} was not destroyed by battle in the current damage calculation",
                                             name=card.name))
    elif reason == "destroyed" and here == OVERLAY and card.host is not None:
        # XMAT-02: under its Xyz monster a material is no card on the field, so none destroyed
        # (EDOPro's ``card::is_destructable`` refuses a card with an ``overlay_target``)
        fail(state, ev, "XMAT-02", say("{name} is an Xyz material: Xyz materials are not cards on the field, and it "
                                       "is not destroyed (it is detached, or leaves with its Xyz monster)",
                                       name=card.name))
    elif reason in REASONS_FROM:
        problem = reason_problem(card, reason, zone, state.resolving or ev.cause is not None,
                                 card_text.gy_redirected(state, zone))
        if problem:
            fail(state, ev, *problem)
    if card.is_token and zone == MZONE and ev.position in (SET, "facedown_attack"):
        fail(state, ev, "TOKEN-02", say("a Token is only ever face-up ({name}, {id})", name=card.name, id=card.id))


def _check_destination(state: DuelState, ev: CardMoved, card: Card, to: Loc) -> Card | None:
    """Check that the destination exists and is free; return the Xyz host when attaching."""
    zone = to.zone
    if zone in PILES and to.index is not None and to.index < 0:
        # LOG-05: a pile's place counts from its top, 0; -1 went in as Python counts (the 2nd from
        # the bottom of a Deck), its log line saying "place 0 from the top" and the board another
        impossible(state, ev, "LOG-05", say("a place in a pile counts from its top, 0, not {index}",
                                            index=to.index), public=True)     # the entry's own place
    if zone == MZONE:
        if to.index is None:
            impossible(state, ev, "LOG-05", N_("a move to a Monster Zone names the zone index"), public=True)
        if ev.position is not None and ev.position not in (ATTACK, "defense", SET, "facedown_attack"):
            impossible(state, ev, "POS-01", say("{position!r} is not a battle position", position=ev.position),
                       public=True)
        check_monster_zone(state, ev, to.controller, card, to.index)
        if not card.facts.is_monster:
            fail(state, ev, "ZONE-03", say("{name} is not a monster and cannot be in a Monster Zone", name=card.name))
    elif zone == SZONE:
        check_spell_trap_zone(state, ev, to.controller, to.index, card)     # ZONE-08/09, CONF-09
    elif zone == FZONE:
        if state.sides[to.controller].fzone is not None:
            impossible(state, ev, "ZONE-10", say("player {controller}'s Field Zone is occupied",
                                                 controller=to.controller), public=True)     # a zone: seen
        if card.facts.spell_subtype != "field":
            fail(state, ev, "ZONE-10", say("only a Field Spell goes in the Field Zone, not {name}", name=card.name))
    elif zone in (HAND, DECK, GY) and ev.position is not None:
        impossible(state, ev, "LOG-05", say("a card in the {zone} takes no position, not {position!r}",
                                            zone=zone, position=ev.position), public=True)
    elif zone == OVERLAY:
        host_id = state.mzone_card(to.controller, to.index) if to.index is not None and 0 <= to.index <= 6 else None
        host = state.cards.get(host_id) if host_id else None
        if host is None or not host.facts.is_xyz and host.code:      # a card not known may be the Xyz monster
            said = say("materials attach under an Xyz monster; monster zone {index} of player {controller} holds "
                       "none", index=to.index, controller=to.controller)
            if host is None:
                impossible(state, ev, "XMAT-01", said)
            refuse_by_identity(state, ev, host, "XMAT-01", said)
        if card.is_token:
            fail(state, ev, "XYZ-02", N_("a Token cannot become an Xyz material"))
        return host
    return None


def _default_position(card: Card, zone: str) -> str | None:
    if zone == MZONE:
        return ATTACK
    if zone in (SZONE, FZONE, BANISHED):
        return FACEUP
    if zone == EXTRA:
        # ZONE-12: a Main Deck Pendulum is face-up there wherever it comes from
        main_deck_or_field = card.zone in ON_FIELD or not card.facts.is_extra_deck
        return FACEUP if card.facts.is_pendulum and main_deck_or_field else FACEDOWN
    return None


@handles("card_revealed")
def card_revealed(state: DuelState, ev: CardRevealed) -> None:
    for card in [get_card(state, ev, c) for c in ev.cards]:
        card.revealed = True


#: What a card keeps when it changes control or trades places (CTRL-02, ZONE-16): it is the same
#: card, summoned the same way, with its counters, materials and equips.
_KEPT = ("summoned_turn", "summon_method", "summoned_by", "set_turn", "arrived_turn", "attacked_turn",
         "position_changed_turn", "atk", "defense", "level", "counters", "properly_summoned", "field_exits",
         "equipped_to", "equip_exits", "equip_pending")


def _lift(state: DuelState, card: Card) -> tuple[tuple, list[str], int | None]:
    """Take a card off the field for a move that keeps what it is; its materials stay with it.
    Also returns the controller it had if an attack was declared against its side with it there."""
    kept = tuple(getattr(card, name) for name in _KEPT)
    materials, card.materials = card.materials, []      # they travel with it, not to the GY
    attack = state.attack
    defending = card.controller if attack is not None and card.id in attack.defender_monsters else None
    take(state, card)
    return kept, materials, defending


def _land(state: DuelState, card: Card, lifted: tuple[tuple, list[str], int | None], zone: str, controller: int,
          index: int, position: str | None) -> None:
    put(state, card, zone, controller, index, position)
    kept, card.materials, defending = lifted
    for name, value in zip(_KEPT, kept):
        setattr(card, name, value)
    attack = state.attack
    if defending == controller and attack is not None:   # BATTLE-06: the same monster on the same side
        attack.defender_monsters = attack.defender_monsters - {card.id + LEFT} | {card.id}


@handles("control_changed")
def control_changed(state: DuelState, ev: ControlChanged) -> None:
    card = get_card(state, ev, ev.card)
    if card.zone not in ON_FIELD:
        impossible(state, ev, "CTRL-02", say("{name} is not on the field; only cards on the field change control",
                                             name=card.name))
    if ev.to_player not in (0, 1) or ev.to_player == card.controller:
        impossible(state, ev, "CTRL-02", say("{name} is already controlled by player {controller}",
                                             name=card.name, controller=card.controller))
    if card.zone == MZONE:
        check_monster_zone(state, ev, ev.to_player, card, ev.zone)
    elif card.zone == FZONE:
        if state.sides[ev.to_player].fzone is not None:
            impossible(state, ev, "ZONE-10", say("player {to_player}'s Field Zone is occupied",
                                                 to_player=ev.to_player), public=True)     # a zone: seen
    elif not 0 <= ev.zone < ruleset_of(state).spell_trap_zone_count:
        impossible(state, ev, "ZONE-08", say("Spell & Trap Zone {zone} does not exist (0-4)", zone=ev.zone))
    else:
        if ev.zone >= 5 and not card.facts.is_pendulum:
            refuse_by_identity(state, ev, card, "ZONE-09", say("S/T index {zone} is a Pendulum Zone: only a Pendulum "
                                                               "card goes there", zone=ev.zone))
        if state.sides[ev.to_player].szone[ev.zone] is not None:
            impossible(state, ev, "ZONE-08", say("Spell & Trap Zone {zone} of player {to_player} is occupied",
                                                 zone=ev.zone, to_player=ev.to_player))
    if ev.cause is None:
        fail(state, ev, "CTRL-02", say("no basic rule gives control of {name} to player {to_player}: an effect does "
                                       "(name it as the cause)", name=card.name, to_player=ev.to_player))
    check_not_negated(state, ev)
    stranded = [] if in_chain(state) else check_equips(state, ev)    # SPELL-07
    zone, position, before = card.zone, card.position, card.controller
    _land(state, card, _lift(state, card), zone, ev.to_player, ev.zone, position)   # CTRL-02: the same card
    settle_equips(state, stranded)
    lapse = control_lapse(state, card.id, card.field_exits, ev.cause, before, ev.to_player)
    if state.passes and state.phase == "end" and not lapse:
        end_phase_effect(state, ev)                            # TURN-08, PRIO-01: priority again


@handles("cards_swapped")
def cards_swapped(state: DuelState, ev: CardsSwapped) -> None:
    """Two cards trade places: each goes to the other's controller and zone, in one step, and
    stays what it is (CTRL-02 when the controllers differ, ZONE-16). Only an effect does it
    (GEN-01); a Main Deck monster does not land in an Extra Monster Zone (ZONE-03), nor a card
    other than a Pendulum in a Pendulum Zone (ZONE-09)."""
    card, other = get_card(state, ev, ev.card), get_card(state, ev, ev.other)
    if card is other:
        impossible(state, ev, "LOG-02", say("{name} ({id}) cannot trade places with itself",
                                            name=card.name, id=card.id))
    for c in (card, other):
        if c.zone not in (MZONE, SZONE):
            impossible(state, ev, "CTRL-02" if card.controller != other.controller else "LOG-02",
                       say("{name} ({id}) is in the {zone}: only cards in Monster or Spell & Trap Zones trade "
                           "places", name=c.name, id=c.id, zone=c.zone))
    if card.zone != other.zone:
        impossible(state, ev, "LOG-02", say("{name} is in a {zone}, {name2} in a {zone2}: only cards in zones of "
                                            "the same kind trade places",
                                            name=card.name, zone=card.zone, name2=other.name, zone2=other.zone))
    here, there = state.location(card), state.location(other)
    for c, to in ((card, there), (other, here)):
        if c.zone == MZONE and to.index >= 5 and not c.facts.is_extra_deck:
            fail(state, ev, "ZONE-03", say("{name} is not an Extra Deck monster: it does not go to an Extra "
                                           "Monster Zone", name=c.name))
        elif c.zone == SZONE and to.index >= 5 and not c.facts.is_pendulum:
            fail(state, ev, "ZONE-09", say("S/T index {index} is a Pendulum Zone: only a Pendulum card goes there",
                                           index=to.index))
    if ev.cause is None:
        fail(state, ev, "GEN-01", say("no basic rule swaps {name} and {name2}: an effect does (name it as the "
                                      "cause)", name=card.name, name2=other.name))
    check_not_negated(state, ev)                               # TERM-14: a negated Creature Swap swaps nothing
    stranded = [] if in_chain(state) else check_equips(state, ev)    # SPELL-07
    # -- all checks done ----------------------------------------------------------------------
    lifted, lifted_other = _lift(state, card), _lift(state, other)
    _land(state, card, lifted, there.zone, there.controller, there.index, card.position)
    _land(state, other, lifted_other, here.zone, here.controller, here.index, other.position)
    settle_equips(state, stranded)


@handles("set_cards_shuffled")
def set_cards_shuffled(state: DuelState, ev: SetCardsShuffled) -> None:
    """A player's Set cards shuffled among the zones they hold, all at once: each stays the same
    card, Set, in its new zone (ZONE-16). They are one player's cards in one row, the zones are
    the ones they hold between them (LOG-02), none is face-up (a shuffle hides which Set card is
    which), and only an effect shuffles them (GEN-01)."""
    cards = [get_card(state, ev, c) for c in ev.cards]
    if not cards or len(set(ev.cards)) != len(cards) or len(ev.zones) != len(cards):
        impossible(state, ev, "LOG-02", say("a shuffle names each card once and one zone per card ({count} cards, "
                                            "{count2} zones)", count=len(ev.cards), count2=len(ev.zones)))
    first = cards[0]
    for card in cards:
        if card.zone not in (MZONE, SZONE) or card.zone != first.zone or card.controller != first.controller:
            impossible(state, ev, "LOG-02", say("{name} ({id}) is in player {controller}'s {zone}: a shuffle moves "
                                                "one player's cards within one row ({zone2} of player "
                                                "{controller2})",
                                                name=card.name, id=card.id, controller=card.controller, zone=card.zone, zone2=first.zone, controller2=first.controller))
    held = [state.location(card).index for card in cards]
    if sorted(held) != sorted(ev.zones):
        impossible(state, ev, "LOG-02", say("the cards hold zones {held}, not {zones}: a shuffle moves them among "
                                            "the zones they hold", held=sorted(held), zones=sorted(ev.zones)))
    for card in cards:
        if card.face_up:
            fail(state, ev, "LOG-02", say("{name} ({id}) is face-up: only Set cards are shuffled",
                                          name=card.name, id=card.id))
    if ev.cause is None:
        fail(state, ev, "GEN-01", N_("no basic rule shuffles Set cards: an effect does (name it as the cause)"))
    check_not_negated(state, ev)                               # TERM-14
    row, controller = first.zone, first.controller             # as they are before anything is lifted
    lifted = [_lift(state, card) for card in cards]
    for card, lift, zone in zip(cards, lifted, ev.zones):
        _land(state, card, lift, row, controller, zone, card.position)


@handles("zone_changed")
def zone_changed(state: DuelState, ev: ZoneChanged) -> None:
    """A card moved by an effect to another zone of its controller's row, staying on the field
    (ZONE-16): nothing about it is forgotten (its summon, counters, materials, equips). The zone
    must exist and be free (ZONE-01, ZONE-08/09); an Extra Monster Zone takes an Extra Deck
    monster (ZONE-03), and a second one only by Extra Link (ZONE-04/05). No basic rule moves a
    card on the field: an effect does, named as the cause (GEN-01)."""
    card = get_card(state, ev, ev.card)
    if card.zone not in (MZONE, SZONE):
        impossible(state, ev, "LOG-02", say("{name} ({id}) is in the {zone}, not in a Monster or Spell & Trap "
                                            "Zone: only a card on the field moves to another zone",
                                            name=card.name, id=card.id, zone=card.zone))
    player, zone = card.controller, ev.zone
    here = state.location(card).index
    if zone == here:
        impossible(state, ev, "LOG-02", say("{name} ({id}) is in {zone} {zone2} already",
                                            name=card.name, id=card.id, zone=card.zone, zone2=zone))
    if card.zone == MZONE:
        check_free_monster_zone(state, ev, player, zone)          # ZONE-01/02
        if zone >= 5:
            if not card.facts.is_extra_deck:
                fail(state, ev, "ZONE-03", say("{name} is not an Extra Deck monster: it goes to a Main Monster "
                                               "Zone", name=card.name))
            other = state.emz[1 - state.emz_slot(player, zone)]
            if (other is not None and other != card.id and state.cards[other].controller == player
                    and not extra_link(state, player, card, zone, frozenset((card.id,)))):
                fail(state, ev, "ZONE-04", say("player {player} already uses an Extra Monster Zone ({other}); a "
                                               "second one needs Extra Link (ZONE-05)", player=player, other=other))
    else:
        check_spell_trap_zone(state, ev, player, zone, card)     # ZONE-08/09, CONF-09
    if ev.cause is None:
        fail(state, ev, "GEN-01", say("no basic rule moves {name} to another zone: an effect does (name it as the "
                                      "cause)", name=card.name))
    check_not_negated(state, ev)                               # TERM-14
    # -- all checks done ----------------------------------------------------------------------
    side = state.sides[player]
    if card.zone == MZONE:
        if here is not None and here < 5:
            side.mzone[here] = None
        else:
            state.emz[state.emz.index(card.id)] = None
        if zone < 5:
            side.mzone[zone] = card.id
        else:
            state.emz[state.emz_slot(player, zone)] = card.id
    else:
        side.szone[here] = None
        side.szone[zone] = card.id


@handles("stats_changed")
def stats_changed(state: DuelState, ev: StatsChanged) -> None:
    card = get_card(state, ev, ev.card)
    check_not_negated(state, ev)
    if card.facts.is_link and (ev.defense is not None or ev.level is not None):
        fail(state, ev, "LINK-05", say("{name} is a Link monster: it has no Level or DEF to change", name=card.name))
    if card.facts.is_xyz and ev.level is not None:
        fail(state, ev, "CARD-07", say("{name} is an Xyz monster: it has a Rank, not a Level", name=card.name))
    before = (card.current_atk, card.current_def, card.current_level or 0)
    if ev.atk is not None:
        card.atk = max(0, ev.atk)
    if ev.defense is not None:
        card.defense = max(0, ev.defense)
    if ev.level is not None:
        card.level = max(1, ev.level)
    delta = (card.current_atk - before[0], card.current_def - before[1], (card.current_level or 0) - before[2])
    lapse = stats_lapse(state, card.id, card.field_exits, ev.cause, delta)
    if state.passes and state.phase == "end" and not lapse:
        end_phase_effect(state, ev)                            # TURN-08, PRIO-01: priority again


@handles("counters_changed")
def counters_changed(state: DuelState, ev: CountersChanged) -> None:
    card = get_card(state, ev, ev.card)
    check_not_negated(state, ev)
    if ev.count < 0:
        impossible(state, ev, "LOG-05", N_("a counter count is 0 or more"), public=True)
    if card.zone not in ON_FIELD:
        fail(state, ev, "COUNTER-01", say("counters are placed on cards on the field; {name} is in the {zone}",
                                          name=card.name, zone=card.zone))
    elif ev.count > card.counters.get(ev.counter, 0) and not card.face_up:
        # COUNTER-01 (POS-04, SPELL-10): a face-down card has no effect that applies, so none that
        # lets it receive counters; EDOPro's card::is_can_add_counter wants it face-up on the field
        fail(state, ev, "COUNTER-01", say("{name} is face-down: counters are placed only on face-up cards on the "
                                          "field", name=card.name))
    elif ev.count > card.counters.get(ev.counter, 0) and (ev.cause is None or ev.cause == card.id) and (
            card.is_token or card.facts.is_normal_monster):
        fail(state, ev, "COUNTER-01", say("{name} has no effect that places counters on it: a counter is placed on "
                                          "it only by another card's effect (name it as the cause)", name=card.name))
    if ev.count:
        card.counters[ev.counter] = ev.count
    else:
        card.counters.pop(ev.counter, None)


@handles("life_points_changed")
def life_points_changed(state: DuelState, ev: LifePointsChanged) -> None:
    player = player_of(state, ev)
    if ev.amount < 0:
        impossible(state, ev, "LOG-05", N_("an LP change amount is positive; the reason says whether it is lost or "
                                           "gained"), public=True)
    check_not_negated(state, ev)
    late = late_lp_change(state, ev)               # WIN-01, WIN-04: after the loss, by another effect
    side = state.sides[player]
    attack = state.attack
    if ev.reason == "battle_damage":
        due = attack.pending_damage[player] if attack is not None and attack.calculated else 0
        if due != ev.amount:
            fail(state, ev, "DMG-10", say("damage calculation gave player {player} {due} battle damage, not "
                                          "{amount}", player=player, due=due, amount=ev.amount))
    if ev.reason == "gain":
        result = side.lp + ev.amount
        if result > INT_MAX:
            # LOG-05: each amount fits a record, but their sum is signed in every anchor (``status``)
            # and kept in every snapshot: past 64 bits no append after it could be written (a 500)
            impossible(state, ev, "LOG-05", say("player {player} would have {result} LP: an LP total is at most "
                                                "{most}", player=player, result=result, most=INT_MAX), public=True)
    elif ev.reason == "set":
        result = ev.amount
    else:
        result = max(0, side.lp - ev.amount)
    if ev.reason == "gain" and ev.cause is None and any(lp for _, lp in state.unrefunded):
        fail(state, ev, "TERM-14", N_("LP paid as the cost of a link whose activation was negated stay paid: no "
                                      "rule gives them back (name the effect that does)"))
    if ev.lp is not None and ev.lp != result:
        fail(state, ev, "ZONE-14", say("player {player} has {result} LP after this change, not {lp}",
                                       player=player, result=result, lp=ev.lp))
    if ev.reason == "battle_damage" and attack is not None and attack.calculated:
        attack.pending_damage[player] = 0
    side.lp = result
    if result == 0 and not late:
        if not state.must_lose:
            state.lost_by = loss_cause(ev)                    # WIN-04: what else is simultaneous with it
        state.must_lose[player] = "lp"                        # WIN-01


@handles("coin_tossed")
def coin_tossed(state: DuelState, ev: CoinTossed) -> None:
    if not ev.results:
        impossible(state, ev, "LOG-05", N_("a coin toss has at least one result"), public=True)


@handles("die_rolled")
def die_rolled(state: DuelState, ev: DieRolled) -> None:
    if not ev.results or any(not 1 <= r <= 6 for r in ev.results):
        impossible(state, ev, "LOG-05", say("a die shows 1 to 6, not {results}", results=list(ev.results)), public=True)
