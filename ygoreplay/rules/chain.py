"""Activations and chains: spell speeds, responses, reverse resolution (CHAIN, EFF, TERM-14)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..i18n import N_, say
from ..events import BANISHED, DECK, EXTRA, FACEDOWN, FACEUP, FZONE, GY, HAND, MZONE, OVERLAY, SZONE
from ..effect_facts import EffectFact
from ..state import Card, ChainLink, DuelState
from . import card_text
from .base import (
    PASSED, REASONS_FROM, draw_owed, end_passes, ended_by_passes, fail, get_card, handles, impossible, must_still_draw,
    priority_holder, put, reason_problem, send_from_field, take, undecided)
from .effects import (
    SEGOC_GROUPS, candidates, in_damage_step, mandatory, may_negate_summon, never_triggered, script_effects,
    script_kind, segoc_rank, wrong_summon)
from .timing import chain_over, cost_paid, link_resolved, missed, summon_answered
from .spell_trap import (
    TIMED_EFFECTS, bind_equip, check_card_activation, check_equips, effect_timing_problem,
    leaves_after_resolving, place_activated_card, settle_equips, speed_of_effect)

if TYPE_CHECKING:                  # annotations only: a kind is made on its first use (events._lazy)
    from ..events import Activated, ChainEnded, ChainLinkNegated, ChainLinkResolved

_TRIGGERS = frozenset(("trigger", "flip"))
#: TERM-01: how a card goes when destroyed (by an effect or by battle), which no cost is.
_DESTRUCTION = frozenset(("destroyed", "battle"))
#: Where a card that has left the field may still activate a trigger from.
_LEFT_FIELD = frozenset((GY, BANISHED, EXTRA))


def _controls_for_activation(card: Card, player: int, effect_type: str) -> bool:
    """CTRL-01: a card's controller activates its effects. A trigger of a card that has left the
    field ("if this card is sent to the GY") is activated by whoever controlled it as it left: the
    opponent of its owner when they had taken control of it (Change of Heart on Sangan), in the
    chain that follows; after it (``forget_takers``) the card in its owner's GY is the owner's."""
    if card.controller == player:
        return True
    return effect_type in _TRIGGERS and card.zone in _LEFT_FIELD and card.last_controller == player


#: Where a card lies that activates no effect of its own by the basic rules (``_unseen_source``).
_UNSEEN_SOURCES = frozenset((DECK, OVERLAY, BANISHED, MZONE, SZONE, FZONE))


def _unseen_source(card: Card, effect_type: str, facts: tuple[EffectFact, ...]) -> tuple[str, str] | None:
    """(rule, why) a card where it lies activates none of its effects, or None. CHAIN-12, ZONE-11:
    the Deck is face-down and hidden (its triggers cannot activate there, nor anything else);
    XMAT-02: an Xyz material is no card on the field (what it grants its Xyz monster is that
    monster's to activate); ZONE-15: a card banished face-down is unusable, seen by its owner only;
    POS-04: a face-down monster's effects are hidden until it is flipped (its Flip effect is EFF-05).
    SPELL-10, TRAP-05: a Set Spell or Trap Card applies and activates its effects only once face-up:
    Set, it is activated as a card (``effect_type`` None), which turns it face-up. EDOPro's core
    offers the effect of a face-down card on the field only with ``EFFECT_FLAG_SET_AVAILABLE``
    (``effect::is_activateable``): a script that declares it (``facts``) lets it through.
    A card's own text that allows it is cited (GEN-01)."""
    zone = card.zone
    if (zone == SZONE or zone == FZONE) and not card.face_up:
        if any("set_available" in f.properties for f in facts):
            return None
        return ("TRAP-05" if card.facts.is_trap else "SPELL-10",
                say("{name} is Set: a Spell or Trap Card applies and activates its effects only while face-up; Set, "
                    "it is activated as a card, which turns it face-up (SPELL-10, TRAP-05), unless its own text "
                    "allows it (cite it)", name=card.name))
    if zone == DECK:
        return ("CHAIN-12" if effect_type in _TRIGGERS else "ZONE-11",
                say("{name} is in the Deck, face-down and hidden: none of its effects is activated there unless "
                    "its own text allows it (cite it)", name=card.name))
    if zone == OVERLAY:
        return "XMAT-02", say("{name} is an Xyz material, no card on the field: its own effects are not activated "
                              "while it is one (an effect it grants its Xyz monster is that monster's)", name=card.name)
    if zone == BANISHED and card.position == FACEDOWN:
        return "ZONE-15", say("{name} is banished face-down: it is unusable there, and none of its effects is "
                              "activated", name=card.name)
    if zone == MZONE and not card.face_up and effect_type != "flip":
        return "POS-04", say("{name} is face-down: its effects are hidden and not activated until it is face-up (a "
                             "Flip effect once it is flipped)", name=card.name)
    return None


def _lasting(card: Card) -> bool:
    """SPELL-09, CHAIN-06: a card on the field whose effects last only while it stays there: a
    Continuous, Equip or Field Spell, a Continuous Trap, a Pendulum card in its Pendulum Zone."""
    facts = card.facts
    return (card.zone in (SZONE, FZONE) and (facts.spell_subtype in ("continuous", "equip", "field")
                                            or facts.trap_subtype == "continuous" or facts.is_pendulum))


@handles("activated")
def activated(state: DuelState, ev: Activated) -> None:
    player = state.turn_player if ev.player is None else ev.player
    card = state.cards.get(ev.card) or get_card(state, ev, ev.card)
    targets = [get_card(state, ev, t) for t in ev.targets] if ev.targets else []
    costs = ev.costs
    effect_type = ev.effect_type
    facts = script_effects(state, card)           # what its script declares: often nothing (not read)
    if costs:
        cost_cards = [get_card(state, ev, c.card) for c in costs if c.card is not None]
        for c in cost_cards:                      # a monster may discard itself (Kuriboh); a
            if c.id == card.id and effect_type is None:   # Spell/Trap goes to its zone instead
                impossible(state, ev, "LOG-04", N_("an activated Spell/Trap card cannot pay itself as a cost"))
    if effect_type is None:
        speed = check_card_activation(state, ev, card, player)
    else:
        if card.controller != player and not _controls_for_activation(card, player, effect_type):
            fail(state, ev, "CTRL-01", say("player {player} does not control {name}; only its controller activates "
                                           "its effects", player=player, name=card.name))
        unseen = _unseen_source(card, effect_type, facts) if card.zone in _UNSEEN_SOURCES else None
        if unseen:
            fail(state, ev, *unseen)
        kind = script_kind(state, card, effect_type) if facts else effect_type   # EFF-02/04/06: the script's word
        if kind == "trigger" and effect_type not in _TRIGGERS:
            fail(state, ev, "EFF-04", say("{name}'s script declares only triggers (Spell Speed 1): chained to a link "
                                          "that is no trigger, this is no simultaneous trigger (CHAIN-08), and a "
                                          "trigger cannot respond to a chain", name=card.name))
            kind = effect_type                     # judged once: not again as CHAIN-02
        speed = speed_of_effect(card, kind)
        problem = effect_timing_problem(state, card, player, kind) if kind in TIMED_EFFECTS else None
        if problem:
            fail(state, ev, problem[0], problem[1] if kind == effect_type else
                 say("{problem} ({name}'s script declares only {kind} effects: not {effect_type})",
                     problem=problem[1], name=card.name, kind=kind, effect_type=effect_type))
    if ev.speed is not None and ev.speed != speed:
        fail(state, ev, "CHAIN-01", say("this activation is Spell Speed {speed}, not {speed2}",
                                        speed=speed, speed2=ev.speed))
    must = None
    # EFF-05: on the field, or gone from it since its flip (destroyed by the attack that flipped it)
    flip = effect_type == "flip" and (card.zone == MZONE or card.id in state.flipped)
    if flip:
        _check_flip(state, ev, card, facts)
    if effect_type in _TRIGGERS:
        must = mandatory(state, ev, card)
        why = ((missed(state, ev, card) if state.timing[3] else None) or wrong_summon(state, ev, card)
               or never_triggered(state, ev, card) or card_text.after_its_window(state, ev, card))
        if why:
            fail(state, ev, *why)
    text = state.card_text
    opens = False
    if state.chain or (ev.link is not None and ev.link != 1):   # else Chain Link 1, as it should be
        _check_chaining(state, ev, speed, player, must)
    elif (text[card_text.SEEN] or text[card_text.OWED]) and not _answers_summon(state, card, effect_type):
        # EFF-04: it moves the duel on past the triggers waiting. One answering a summon as it is
        # attempted (SPS-11: Solemn Judgment) does not: the triggers of the summon's Tributes,
        # materials and costs wait for it, and activate once its chain has resolved (NIS-06)
        opens = card_text.opens_past(state, ev, card)
    if state.passes_recorded:
        _check_priority(state, ev, player)
    replaces_draw = False
    if state.phase == "draw" and must_still_draw(state):   # TURN-02 (WIN-02: an empty Deck)
        draw_owed(state, ev, say("player {turn_player} has not drawn yet: in the Draw Phase cards and effects "
                                 "are activated after the turn player's draw", turn_player=state.turn_player))
        # TURN-02, GEN-01: only a text worded "before you draw" is activated before it: the turn
        # player's, cited, may give the draw up (Magical Blast, Meteor Flare) or keep it (Zexal
        # Field puts a card on top, then the draw is made): judged without the text, none is owed.
        # WIN-02: not with an empty Deck, where the draw owed loses the duel (such a text needs a
        # card in the Deck to give up its draw: EDOPro's Magical Blast checks it)
        replaces_draw = ev.cite is not None and player == state.turn_player and bool(state.sides[player].deck)
    if ev.negates is not None:
        _check_negation(state, ev, card)
    unsure = _check_battle_timing(state, ev, card, effect_type, speed) if (
        state.attack is not None and state.step == "damage") else None
    paid_to = {c.card: c.to for c in costs if c.card is not None} if costs else {}   # costs are paid first
    for t in targets:
        zone = paid_to.get(t.id, t.zone)
        if zone in (HAND, DECK) or (zone == EXTRA and (t.id in paid_to or t.position != FACEUP)):
            fail(state, ev, "TERM-05", say("{id} is in a hidden zone ({zone}) and cannot be targeted",
                                           id=t.id, zone=zone))
        elif zone == BANISHED and t.position == FACEDOWN and t.id not in paid_to:
            fail(state, ev, "ZONE-15", say("{id} is banished face-down: only its owner sees it, and it cannot be "
                                           "targeted", id=t.id))
        elif zone == OVERLAY:                      # XMAT-02 (ZONE-16, CONF-23): under its Xyz monster
            fail(state, ev, "XMAT-02", say("{id} is an Xyz material: Xyz materials are not cards on the field, and "
                                           "it cannot be targeted (its Xyz monster can)", id=t.id))
    for cost in costs:                             # CHAIN-11: a card paid moves as its reason says
        if cost.reason in REASONS_FROM and cost.card is not None:
            problem = reason_problem(state.cards[cost.card], cost.reason, cost.to, True,
                                     card_text.gy_redirected(state, cost.to))
            if problem:
                fail(state, ev, *problem)
        elif cost.reason in _DESTRUCTION and cost.card is not None:
            fail(state, ev, "TERM-01", say("{name} ({id}) is paid as a cost, 'destroyed': destroying is never a cost "
                                           "(a cost sends, Tributes, banishes, discards or detaches; record how it "
                                           "went)", name=state.cards[cost.card].name, id=cost.card))
    lp_cost = sum(c.lp for c in costs) if costs else 0
    if lp_cost > state.sides[player].lp:
        fail(state, ev, "CHAIN-11", say("player {player} has {lp} LP and cannot pay a cost of {lp_cost} LP",
                                        player=player, lp=state.sides[player].lp, lp_cost=lp_cost))
    use = card_text.activation(state, ev, card, player) if facts else None   # EFF-03/07, TEXT-01: its text
    stranded = check_equips(state, ev) if state.equips else ()   # SPELL-07
    # GEN-03: what the triggers waiting owe was due first, unless this may stop activations or negate
    # effects (``use``), or negate the summon that owes it (SPS-11: it has not yet succeeded; then it
    # does not open past them at all: ``opens``)
    judged = opens and bool(text[card_text.OWED]) and not (use is not None and use[1]) and (
        card_text.left_by_opening(state, ev, card))
    # -- all checks done: change the state ------------------------------------------------------
    if unsure is not None:
        undecided(state, *unsure)                  # BATTLE-09/10: what the card data cannot tell, said
    if replaces_draw:
        state.draw_given_up = True                 # TURN-02: no draw owed; one made after it is the draw
    for cost in costs:                             # CHAIN-11: costs are paid as part of activation
        if cost.card is None:
            lose_lp(state, player, cost.lp)
        else:
            paid = state.cards[cost.card]
            move_card(state, paid, cost.to)
            cost_paid(state, paid)                 # NIS-06: it went before the chain resolved
            if state.card_text[card_text.HAS_FACTS] is not False:
                card_text.paid(state, paid, cost.reason)   # EFF-04: its triggers on going there answer it
            if cost.card in state.taken_next:      # CTRL-01: a cost of this chain triggers after it
                state.taken_next.remove(cost.card)
                state.taken_later.append(cost.card)
    if flip:
        state.flip_uses.append(card.id)            # EFF-05: one of the triggers its flip gave is spent
    if effect_type is None:
        place_activated_card(state, ev, card, player)
        if leaves_after_resolving(card.facts):    # SPELL-04 (and its exception), TRAP-04
            state.to_leave.append(card.id)
    if not state.chain and state.summon_window is not None:
        if not _answers_summon(state, card, effect_type):
            state.summon_window = None             # SPS-11: the summon has succeeded
        elif state.timing[3]:
            summon_answered(state)                 # SUM-07, SPS-09: what went for it missed its timing still
    if not state.chain:
        state.resolving = False                    # a new chain: the last one has fully resolved
        if state.negated_links:
            state.negated_links.clear()
        if state.negated:                          # TERM-14: what it negated may apply again (its end
            state.negated.clear()                  # unrecorded: a card activated anew is not negated)
        if state.inert:
            state.inert.clear()
        for pair in state.resolved:                # FUS-03, RIT-03: activated after these resolved
            if pair[1] is None:
                pair[1] = card.id
    # every field by position (left_for_gy False, negated_by None): a keyword makes the class
    # call build a dict of them, half again as long as the call itself
    state.chain.append(ChainLink(len(state.chain) + 1, player, card.id, speed, effect_type,
                                 ev.targets, ev.simultaneous, effect_type is None, ev.negates,
                                 tuple(paid_to) if paid_to else (), lp_cost, False, None, must,
                                 card.field_exits if _lasting(card) else None))
    if use is not None or state.card_text[card_text.OWED]:
        card_text.used(state, card, use, len(state.chain))   # GEN-03 paid, TEXT-01 counted
    if opens:
        card_text.opened(state, judged)            # EFF-04, GEN-03: a chain opened by no trigger moves the duel on
    if ev.negates is not None:
        state.negations_recorded = True
    if state.equips:
        settle_equips(state, stranded)


def _check_priority(state: DuelState, ev: Activated, player: int) -> None:
    """PRIO-01/02/03, CHAIN-04, in a record that states passes: only the player holding priority
    activates, the other only triggers (PRIO-02, CHAIN-08). After an activation the opponent is
    asked first; the activating player adds a link only once the opponent has passed. A chain
    whose last link has resolved is over (its ``chain_ended`` may go unrecorded): the turn player
    holds priority first again (PRIO-01), as after a recorded end."""
    if ev.effect_type in _TRIGGERS or (state.resolving and state.chain):
        return
    holder = priority_holder(state)
    if state.chain:
        top = state.chain[-1]
        if player != holder:
            fail(state, ev, "CHAIN-04", say("player {player} activated Chain Link {number}: player {holder} is "
                                            "asked first and holds priority; player {player2} may add a link only "
                                            "once they pass",
                                            player=top.player, number=top.number, holder=holder, player2=player))
        return
    if end_passes(state) >= 2:        # PRIO-05: no one answered the end: it ended
        fail(state, ev, "PRIO-05", ended_by_passes(state))
        return
    if player != holder:
        rule = "PRIO-01" if holder == state.turn_player else "PRIO-03"
        fail(state, ev, rule, say("player {holder} holds priority ({why}): player {player} may activate only a "
                                  "trigger effect until it is passed to them (PRIO-02)", holder=holder, player=player,
                                  why=N_("the turn player holds it first") if rule == "PRIO-01"
                                  else N_("the turn player passed it")))


def _answers_summon(state: DuelState, card: Card, effect_type: str | None) -> bool:
    """SPS-11: whether an activation opening a chain answers a summon as it is attempted. The
    summon has succeeded once both players passed on it, or when what opens the chain is no effect
    that negates a summon (only those are activated before it succeeds)."""
    return state.summon_window is not None and not (state.passes >= 2 and state.passes_recorded) and (
        may_negate_summon(state, card, effect_type))


def _check_negation(state: DuelState, ev: Activated, card: Card) -> None:
    """TRAP-06: a negating Counter Trap chains directly to the activation it negates (a card that
    negates every activation of the chain is cited)."""
    chain = state.chain
    if not 1 <= ev.negates <= len(chain):
        impossible(state, ev, "LOG-07", say("there is no Chain Link {negates} to negate (the chain has {count})",
                                            negates=ev.negates, count=len(chain)))
    if ev.effect_type is None and card.facts.trap_subtype == "counter" and ev.negates != len(chain):
        fail(state, ev, "TRAP-06", say("{name} is a Counter Trap: it negates only the activation it chains "
                                       "directly to, Chain Link {count}, not Chain Link {negates}",
                                       name=card.name, count=len(chain), negates=ev.negates))


def _check_battle_timing(state: DuelState, ev: Activated, card: Card, effect_type: str | None,
                         speed: int) -> tuple[str, str] | None:
    """BATTLE-12, EFF-05: a monster flipped by an attack activates its Flip effect after damage
    calculation. BATTLE-09/10: once damage is calculated, no Spell Speed 2 activation is left in
    the Damage Step but one that negates an activation (ATK/DEF changes end before damage
    calculation); Spell Speed 3 (Counter Traps, CONF-18) and triggers stay. Chain Link 1 has
    nothing to negate; a later link is judged by its ``negates`` only in a record that names
    negated links (an EDOPro import does not: Crystal Wing negates without saying so).

    Where the effect's facts are known (its script, else the event: ``rules.effects``) they
    decide instead: a Spell Speed 2 effect not usable in the Damage Step is refused there from its
    start (BATTLE-09), one that only changes ATK/DEF after damage calculation (BATTLE-10), and one
    usable after it too (an activation negator, Kuriboh's damage-calculation effect) is allowed.
    A trigger (Spell Speed 1) basically is not activated there either (BATTLE-09): one the record
    states optional and not usable in the Damage Step (``mandatory`` and ``damage_step`` false,
    for a card whose script was not read) is refused; the exceptions say they are usable.

    What the card's type alone decides is decided (a Counter Trap, Spell Speed 3, may be activated
    throughout the Damage Step: CONF-18; a Spell Speed 1 Spell never: SPELL-02). Where neither the
    script nor the record says whether the effect is one usable there (a Quick-Play Spell, a Normal
    or Continuous Trap, a Quick Effect or an optional trigger of a card without a script, before
    damage calculation), the rule is undecided, and said so: returned as (rule, why), to be listed
    as undecided once the activation is applied (``base.undecided``)."""
    attack = state.attack
    if effect_type == "flip" and attack.target == card.id and not attack.calculated:
        fail(state, ev, "BATTLE-12", say("{name} was flipped by the attack: its Flip effect activates after damage "
                                         "calculation, not before", name=card.name))
    elif effect_type == "flip" and attack.calculated and attack.target == card.id:
        gone = [t for t in ev.targets if t in attack.destroyed]
        if gone:
            fail(state, ev, "BATTLE-12", say("{name} ({gone}) was confirmed destroyed in this battle: a Flip "
                                             "effect activated after damage calculation cannot target it",
                                             name=state.cards[gone[0]].name, gone=gone[0]))
    elif effect_type == "trigger" and not ev.damage_step and not candidates(state, card, effect_type):
        must = mandatory(state, ev, card)
        if must is False and ev.damage_step is False:   # BATTLE-09: by the record's word, no exception
            fail(state, ev, "BATTLE-09", say("{name}'s trigger is activated in the Damage Step, where a trigger "
                                             "basically is not: the record says it is optional and not one usable "
                                             "there (the exceptions are mandatory triggers, 'when Special "
                                             "Summoned', Flip effects, 'when destroyed, banished or added to the "
                                             "hand')", name=card.name))
        elif not must:
            return "BATTLE-09", say("undecided: {name}'s trigger is activated in the Damage Step, where only "
                                    "mandatory triggers and those whose text says so ('when Special Summoned', "
                                    "'when destroyed, banished or added to the hand') are; the card data holds no "
                                    "script and the record does not say which it is (mandatory, damage_step)",
                                    name=card.name)
    elif speed == 2 and effect_type in (None, "quick"):
        usable, stat_only, late = in_damage_step(state, ev, card)
        if usable is None and not attack.calculated:
            return "BATTLE-09", say("undecided: {name} is activated in the Damage Step before damage calculation, "
                                    "where only effects that change ATK/DEF or negate an activation (and Counter "
                                    "Traps) may be; the card data holds no script and the record does not say "
                                    "whether it is one (damage_step)", name=card.name)
        if usable is False:
            said = "its script declares" if candidates(state, card, effect_type) else "the record says"
            fail(state, ev, "BATTLE-09", say("{name} is activated in the Damage Step, where only effects that say "
                                             "so may be (ATK/DEF changes, activation negation): {said} it is not "
                                             "one (no EFFECT_FLAG_DAMAGE_STEP)", name=card.name, said=said))
        elif usable and attack.calculated and stat_only and ev.negates is None:
            fail(state, ev, "BATTLE-10", say("{name}'s effect only changes ATK/DEF: in the Damage Step that is "
                                             "done until damage calculation, not after it", name=card.name))
        elif (not late and attack.calculated and ev.negates is None
              and (not state.chain or state.negations_recorded)):
            fail(state, ev, "BATTLE-09", say("damage has been calculated: in the rest of the Damage Step only an "
                                             "effect that negates an activation (name the link it negates) may be "
                                             "activated, not {name}'s", name=card.name))


def _check_flip(state: DuelState, ev: Activated, card: Card, facts: tuple[EffectFact, ...]) -> None:
    """EFF-05: a Flip effect is a trigger on a flip face-up, so each flip face-up of a monster (a Flip
    Summon, an attack, an effect) triggers each of its Flip effects once: as many activations as
    its flips this turn times its Flip effects (its script's ``FLIP`` effects; one when its script
    was not read: no card text holds two "FLIP:"). Flipped twice (turned face-down between), it
    activates again; flipped once, a second activation has no flip to answer."""
    if card.id not in state.flipped:
        _not_flipped(state, ev, card)
        return
    flips = state.flipped.count(card.id)
    allowed = flips * (sum(1 for f in facts if f.kind == "flip") or 1)
    used = state.flip_uses.count(card.id)
    if used >= allowed:
        fail(state, ev, "EFF-05", say("{name} was flipped face-up {flips} time(s) this turn, and its Flip effect was "
                                      "activated for each flip already: a Flip effect is a trigger on a flip "
                                      "face-up, activated once for each flip", name=card.name, flips=flips))
    elif used + state.flip_uses.count(card.id + PASSED) >= allowed:
        fail(state, ev, "BATTLE-12", say("{name} was flipped face-up by an attack: its Flip effect is activated in "
                                         "that attack's Damage Step, after damage calculation, and that Damage Step "
                                         "has ended", name=card.name))


def flip_window_closed(state: DuelState, ev, card_id: str) -> None:
    """BATTLE-12, EFF-05: the Damage Step of an attack that flipped ``card_id`` face-up ends (its
    damage calculated) at ``ev``: each Flip effect its flips this turn gave and that was not
    activated is passed (``PASSED`` in ``state.flip_uses``), as a trigger is once the duel moves on
    past it; a mandatory one (EFF-05) left so is judged there (``card_text.flip_left``)."""
    card = state.cards.get(card_id)
    if card is None:
        return
    uses = state.flip_uses
    allowed = state.flipped.count(card_id) * (sum(1 for f in script_effects(state, card) if f.kind == "flip") or 1)
    unused = allowed - uses.count(card_id) - uses.count(card_id + PASSED)
    if unused > 0:
        card_text.flip_left(state, ev, card)       # EFF-05, BATTLE-12: a mandatory one was owed
        uses.extend([card_id + PASSED] * unused)


def _not_flipped(state: DuelState, ev: Activated, card: Card) -> None:
    """EFF-05: a Flip effect is a trigger on a flip face-up. A monster summoned face-up (Normal or
    Special Summoned) and not flipped since has had none. A monster face-down on the field that
    was not flipped face-up this turn (flipped, then turned face-down again before its effect, it
    was) has had no flip: confirming it shows it, it does not flip it (TERM-10). The face-down
    target of an attack in the Damage Step is being flipped by the rules (POS-04; damage
    calculation does it when the record does not): that its effect waits for damage calculation
    is BATTLE-12, called as for one whose flip was recorded (``_check_battle_timing``)."""
    attack = state.attack
    if attack is not None and attack.target == card.id and not attack.calculated and state.step == "damage":
        return
    if card.face_up:                              # EFF-05: summoned face-up, or flipped in an earlier turn
        fail(state, ev, "EFF-05", say("{name} is face-up but was not flipped face-up this turn (summoned face-up, "
                                      "or face-up since an earlier turn): a Flip effect is activated only when "
                                      "its monster is flipped face-up", name=card.name))
        return
    seen = say(" (it was confirmed: that shows a card, it does not flip it, TERM-10)") if card.revealed else ""
    fail(state, ev, "EFF-05", say("{name} is face-down and was not flipped face-up this turn: a Flip effect is "
                                  "activated only when its monster is flipped face-up{seen}",
                                  name=card.name, seen=seen))


def _check_chaining(state: DuelState, ev: Activated, speed: int, player: int, must: bool | None) -> None:
    chain = state.chain
    if ev.link is not None and ev.link != len(chain) + 1:
        if not chain:
            fail(state, ev, "CHAIN-10",
                 say("no chain is open, so this is Chain Link 1, not {link}: summons, Tributes, costs and attack "
                     "declarations are not activations and cannot be chained to", link=ev.link))
        else:
            fail(state, ev, "CHAIN-04", say("the chain has {count} link(s): the next is Chain Link {value}, not "
                                            "{link}", count=len(chain), value=len(chain) + 1, link=ev.link))
    if not chain:
        return
    if state.resolving:
        fail(state, ev, "CHAIN-05", say("the chain has started resolving ({count} link(s) left): nothing may be "
                                        "activated until it has fully resolved; a new activation starts a new "
                                        "chain after it ends", count=len(chain)))
    triggers_together = ev.simultaneous and ev.effect_type in _TRIGGERS and all(
        link.effect_type in _TRIGGERS for link in chain)
    if triggers_together:                          # CHAIN-08: simultaneous triggers build one chain
        _check_segoc(state, ev, player, must)
        return
    top = chain[-1]
    if speed == 1:
        fail(state, ev, "CHAIN-02", say("a Spell Speed 1 activation can only be Chain Link 1 (the chain has "
                                        "{count} link(s))", count=len(chain)))
    elif speed < top.speed:
        fail(state, ev, "CHAIN-03",
             say("Chain Link {number} is Spell Speed {speed}; a Spell Speed {speed2} activation cannot respond to "
                 "it", number=top.number, speed=top.speed, speed2=speed))


def _check_segoc(state: DuelState, ev: Activated, player: int, must: bool | None) -> None:
    """NIS-02: simultaneous triggers go on the chain the turn player's mandatory first, then the
    opponent's mandatory, the turn player's optional, the opponent's optional. Judged where both
    links' mandatoriness is known (from the scripts or the events: ``rules.effects``)."""
    rank = segoc_rank(player, state.turn_player, must)
    if rank is None:
        return
    for link in state.chain:
        earlier = segoc_rank(link.player, state.turn_player, link.mandatory)
        if earlier is not None and earlier > rank:
            fail(state, ev, "NIS-02", say("Chain Link {number} is one of {SEGOC_GROUPS}; {name}'s trigger is one "
                                          "of {SEGOC_GROUPS2}, which go on the chain before them",
                                          number=link.number, SEGOC_GROUPS=SEGOC_GROUPS[earlier], name=state.cards[ev.card].name, SEGOC_GROUPS2=SEGOC_GROUPS[rank]))
            return


def lose_lp(state: DuelState, player: int, amount: int) -> None:
    side = state.sides[player]
    side.lp = max(0, side.lp - amount)
    if side.lp == 0:
        state.must_lose[player] = "lp"             # WIN-01


def move_card(state: DuelState, card: Card, zone: str) -> None:
    """Move a card off the field or between piles by the basic mechanics (costs, effects)."""
    if card.zone in (MZONE, SZONE, FZONE):
        send_from_field(state, card, zone, FACEUP if zone == BANISHED else None)
    else:
        take(state, card)
        put(state, card, zone, card.owner, None, FACEUP if zone in (BANISHED, EXTRA) else None)
    if zone in (HAND, DECK, EXTRA):
        card.properly_summoned = False             # SPS-14: back to the hand or Deck, a new card


def _pop_link(state: DuelState, ev: ChainLinkResolved | ChainLinkNegated) -> ChainLink:
    chain = state.chain
    if not chain:
        impossible(state, ev, "LOG-07", say("no chain is open to resolve link {link}", link=ev.link), public=True)
    if ev.link != len(chain):
        if not 1 <= ev.link <= len(chain):
            # how long the open chain is, the table saw: told as it is (LOG-07)
            impossible(state, ev, "LOG-07", say("the chain has no link {link}", link=ev.link), public=True)
        fail(state, ev, "CHAIN-05", say("a chain resolves in reverse order: Chain Link {count} resolves before "
                                        "link {link}", count=len(chain), link=ev.link))
    if not state.resolving and state.passes_recorded and state.passes < 2:
        fail(state, ev, "CHAIN-04", say("a chain resolves only after both players pass in succession; {passes} "
                                        "pass(es) since Chain Link {count} was activated",
                                        passes=state.passes, count=len(chain)))
    stranded = check_equips(state, ev) if state.equips else ()   # SPELL-07, before anything changes
    link = chain.pop(ev.link - 1)
    state.resolving = True
    link_resolved(state)                           # NIS-06: what follows is this link's
    if state.equips:
        settle_equips(state, stranded)
    return link


@handles("chain_link_resolved")
def chain_link_resolved(state: DuelState, ev: ChainLinkResolved) -> None:
    chain = state.chain
    named = chain[ev.link - 1] if 1 <= ev.link <= len(chain) else None
    if named is not None and named.negated_by is not None:
        fail(state, ev, "TERM-14", say("Chain Link {negated_by} negated its activation: Chain Link {link} does not "
                                       "resolve, it applies nothing (record chain_link_negated)",
                                       negated_by=named.negated_by, link=ev.link))
    if named is not None and named.left_for_gy:
        card_id = named.card
        fail(state, ev, "PEND-05", say("{name} is a Pendulum monster: it went to the GY while its activation was "
                                       "on the chain, and that activation was not negated (PEND-01): leaving the "
                                       "field, it goes face-up to the Extra Deck instead",
                                       name=state.cards[card_id].name))
    link = _pop_link(state, ev)
    resolved = state.resolved                      # FUS-03, RIT-03: its summon may follow, nothing between
    if resolved:
        resolved[:] = [pair for pair in resolved if pair[0] != link.card]
    resolved.append([link.card, None])
    card = state.cards.get(link.card)
    if (link.exits is not None and card is not None and card.field_exits != link.exits
            and card.id not in link.paid):         # SPELL-09, CHAIN-06: left the field (not as its cost)
        state.inert.append(card.id)
    if link.is_card_activation and card is not None:
        bind_equip(state, card, link.targets)      # SPELL-05: an Equip Spell equips its target
    if link.negates is not None and link.negates <= len(state.chain):
        state.chain[link.negates - 1].negated_by = link.number   # TERM-14: that link will not resolve


@handles("chain_link_negated")
def chain_link_negated(state: DuelState, ev: ChainLinkNegated) -> None:
    if ev.by is not None and ev.by <= ev.link:
        impossible(state, ev, "LOG-07", say("link {link} can be negated only by a later link, not {by}",
                                            link=ev.link, by=ev.by), public=True)
    if ev.by in state.negated_links:
        fail(state, ev, "TERM-14", say("Chain Link {by}'s own activation was negated: it applies nothing, so it "
                                       "negates no link (Chain Link {link} resolves unless another link negated it)",
                                       by=ev.by, link=ev.link))
    link = _pop_link(state, ev)
    state.negated_links.append(link.number)
    card_text.negated(state, link.number)          # TEXT-01: a negated activation gives its use back
    if link.is_card_activation:                    # TERM-14, SPELL-06: it applies nothing (an Equip
        state.negated.append(link.card)            # equips nothing) and goes to the GY
        if link.card not in state.to_leave:
            state.to_leave.append(link.card)
    elif all(other.card != link.card for other in state.chain):
        state.negated.append(link.card)            # TERM-14: a negated effect applies nothing either (unless
                                                   # another link of its card is still to resolve)
    if link.paid or link.paid_lp:
        state.unrefunded.append([list(link.paid), link.paid_lp])   # TERM-14: its cost stays paid


@handles("chain_ended")
def chain_ended(state: DuelState, ev: ChainEnded) -> None:
    """The chain is over. When a player lost while it resolved (WIN-01/02) the duel ends at once:
    the links left never resolve and what they would have sent to the GY may stay."""
    lost = bool(state.must_lose)
    if state.chain and not lost:
        fail(state, ev, "CHAIN-05", say("the chain ended with {count} link(s) never resolved", count=len(state.chain)))
    for card_id in () if lost else state.to_leave:
        card = state.cards.get(card_id)
        if card is not None and card.zone in (SZONE, FZONE) and card.face_up:
            rule = "TRAP-04" if card.facts.is_trap else "SPELL-04"
            if card_id in state.negated and card.facts.spell_subtype == "equip":
                rule = "SPELL-06"                  # a negated Equip equips nothing: it does not stay
            fail(state, ev, rule, say("{name} ({card_id}) must leave the field for the GY once resolved or negated",
                                      name=card.name, card_id=card_id))
    stranded = check_equips(state, ev) if state.equips else ()   # SPELL-07 (and an equip whose monster never came)
    # each list is emptied only when it holds something: most are empty by the chain's end
    if state.chain:
        state.chain.clear()
    if state.to_leave:
        state.to_leave.clear()
    if state.resolved:                             # FUS-03, RIT-03: these resolutions are over
        state.resolved[:] = [pair for pair in state.resolved if pair[1] is not None]
    if state.negated:
        state.negated.clear()
    if state.inert:
        state.inert.clear()
    if state.negated_links:
        state.negated_links.clear()
    if state.taken_next or state.taken_later:
        forget_takers(state, at_turn_end=False)
    if state.unrefunded:
        state.unrefunded.clear()
    state.summon_window = None
    state.resolving = False
    chain_over(state)                              # NIS-06: who missed the timing in this chain
    card_text.chain_over(state)
    if state.equips:
        settle_equips(state, stranded)


def forget_takers(state: DuelState, at_turn_end: bool) -> None:
    """CTRL-01: a card another player controlled as it left the field is its owner's once the chain
    its trigger could start has ended (or the turn has): the taker no longer activates it."""
    if not (state.taken_next or state.taken_later):
        return                                     # the common case: nobody took a card
    expired = state.taken_next + state.taken_later if at_turn_end else state.taken_next
    for card_id in expired:
        card = state.cards.get(card_id)
        if card is not None and card.zone not in (MZONE, SZONE, FZONE):
            card.last_controller = None
    state.taken_next = [] if at_turn_end else state.taken_later
    state.taken_later = []
