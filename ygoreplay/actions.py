"""What may be entered next: the actions that fit a position, each with the rules' verdict.

A recorder at a table taps a card and picks what happened to it; a simulator bridge or a
streaming overlay asks the same question. ``actions`` proposes the events that fit where the card
is (a card in the hand can be Normal Summoned, Set, activated, discarded...; a monster on the
field can attack, change position, be destroyed...) and the moves of the turn (the next phase or
step, a pass, a chain link resolved, the damage of the battle under way), and tries each on a copy
of the state: one the rules cannot apply at all (no free zone, no such target) is left out; the
rest carry the rules' verdict, ``legal``, ``undecided`` (it depends on a card the record does not
know) or ``illegal`` with its rule IDs. Recording is not refereeing: a page shows what fits and
lets its recorder enter anything, an illegal play included (a witnessed duel keeps it, flagged).

Each action is an event in its wire form; ``choices`` lists the other values a field may take
(the zone, the target), each as legal as the first for all the rules can tell. The verdicts come
from the fold itself (``rules.apply``), so a client sees exactly what ``record`` would say.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from .cards import CardDB, CardType
from .events import (
    ATTACK, BANISHED, DECK, DEFENSE, EXTRA, FACEUP, FZONE, GY, HAND, MZONE, SET, SZONE, EventFormatError, from_dict)
from .i18n import DEFAULT, N_, current, said, say
from .rules import RuleViolation, apply
from .rules.base import ON_FIELD, priority_holder
from .rules.battle import battle_result
from .rules.effects import script_effects
from .sentences import END_REASONS
from .state import MAIN_MONSTER_ZONES, Card, DuelState

#: How many actions one call tries at most (each is one fold of one event on a copy).
MOST_ACTIONS = 80
_NEXT_PHASE = {None: "draw", "draw": "standby", "standby": "main1", "main1": "battle", "battle": "main2", "main2": "end"}
_NEXT_STEP = {None: "start", "start": "battle", "battle": "damage", "damage": "end"}
# Each label is English (what a script matches on) and is given translated beside it (``to_dict``).
_PHASE_LABELS = {"draw": N_("To draw"), "standby": N_("To standby"), "main1": N_("To main1"), "battle": N_("To battle"),
                 "main2": N_("To main2"), "end": N_("To end")}
_STEP_LABELS = {"start": N_("Start Step"), "battle": N_("Battle Step"), "damage": N_("Damage Step"), "end": N_("End Step")}
_CHANGE_TO = {ATTACK: N_("Change to attack"), DEFENSE: N_("Change to defense")}


@dataclass
class Action:
    """One event that may be entered now, and what the rules say of it."""

    label: str
    event: dict[str, Any]
    verdict: str = "legal"                       # legal, undecided, illegal
    rules: list[str] = field(default_factory=list)
    choices: dict[str, list] = field(default_factory=dict)

    def to_dict(self, verdict: bool = True) -> dict:
        """Its wire form; without the rules' ``verdict`` when the duel's warnings are off (and without
        ``breaks``, the rule IDs an illegal one breaks, by which a page files it apart: in
        sanctioned play a warning would help a player, whatever shape it takes). ``label``
        is always the English (what a client matches on), ``label_translated`` beside it in the
        reader's language when that is another (as ``i18n.message_dict`` gives a message)."""
        out: dict[str, Any] = {"label": self.label, "event": self.event}
        if current() != DEFAULT:
            out["label_translated"] = said(self.label)
        if verdict:
            out["verdict"] = self.verdict
        if verdict and self.rules:
            out["rules"] = self.rules
        if verdict and self.verdict == "illegal":
            # what the rules refuse now: a page offers it apart, flagged (SUM-01: a Normal Summon
            # out of turn was offered as any other, stored, and flagged only after); read off the
            # view's own board, so it tells nothing the view does not see. With the warnings off
            # the page orders it by what is likely now, as any other (out of turn: not first)
            out["breaks"] = self.rules
        if self.choices:
            out["choices"] = self.choices
        return out


def actions(state: DuelState, card: str | None = None, shows: dict[str, int] | None = None,
            db: CardDB | None = None) -> list[Action]:
    """The actions that fit ``card`` where it is (or, without one, the turn's own moves), each
    tried by the rules; those that cannot be applied at all are left out. ``shows`` names unknown
    cards (card id -> passcode, facts from the state's cards or ``db``): the actions are worked
    out with those cards known (a flipped monster's DEF decides the damage), and each carries
    the ``shows`` that tells the record."""
    if card is not None and card not in state.cards:
        raise EventFormatError(say("no card {card!r} in this duel", card=card))
    if shows:
        state = _named(state, shows, db)
    proposals = _for_card(state, state.cards[card]) if card is not None else _for_turn(state)
    found: list[Action] = []
    for label, event, choices in proposals:
        if len(found) >= MOST_ACTIONS:
            break
        tried = _try(state, {**event, "shows": shows} if shows else event)
        if tried is not None:
            found.append(Action(label, *tried, choices))
    return found


def _named(state: DuelState, shows: dict[str, int], db: CardDB | None) -> DuelState:
    """A copy of ``state`` with the unknown cards ``shows`` names known; a card that is not in the
    duel, already another card, or a passcode with no facts is an error naming it."""
    named = state.copy()
    for card_id, code in shows.items():
        card = named.cards.get(card_id)
        if card is None:
            raise EventFormatError(say("shows: no card {card_id!r} in this duel", card_id=card_id))
        facts = named.db.get(code) or (db.get(code) if db is not None else None)
        if facts is None:
            raise EventFormatError(say("shows: no card facts for passcode {code} ({card_id})",
                                       code=code, card_id=card_id))
        if card.code not in (0, code):
            raise EventFormatError(say("shows: {card_id} is already {name} ({code}) (LOG-10)",
                                       card_id=card_id, name=card.facts.name, code=card.code))
        card.code, card.facts = code, facts
    return named


def _try(state: DuelState, data: dict) -> tuple[dict, str, list[str]] | None:
    """The event in its wire form and the rules' verdict on it after this state, or None if it
    cannot be applied at all."""
    try:
        event = from_dict(data)
    except EventFormatError:
        return None
    trial = state.copy()
    trial.violations, trial.undecided, trial.witnessed = [], [], False     # a verdict, not a flag
    try:
        apply(trial, event)
    except RuleViolation:
        return None
    wire = event.to_dict()
    if trial.violations:
        return wire, "illegal", sorted({v.rule for v in trial.violations})
    if trial.undecided:
        return wire, "undecided", sorted({v.rule for v in trial.undecided})
    return wire, "legal", []


Proposal = tuple[str, dict, dict]


def _free_monster_zones(state: DuelState, player: int) -> list[int]:
    return [i for i, cid in enumerate(state.sides[player].mzone[:MAIN_MONSTER_ZONES]) if cid is None]


def _free_spell_zones(state: DuelState, player: int) -> list[int]:
    return [i for i, cid in enumerate(state.sides[player].szone[:5]) if cid is None]


def _placed(label: str, event: dict, key: str, zones: list[int]) -> Iterator[Proposal]:
    """An event that puts a card in a zone: the first free one, the rest as choices."""
    if zones:
        yield label, {**event, key: zones[0]}, ({key: zones} if len(zones) > 1 else {})


def _for_card(state: DuelState, card: Card) -> Iterator[Proposal]:
    me, cid, zone = card.controller, card.id, card.zone
    known = card.code != 0
    facts = card.facts if known else None
    monster = facts is None or facts.is_monster
    spell_trap = facts is None or facts.is_spell or facts.is_trap
    if zone == HAND:
        if monster:
            level = card.current_level if known else 4
            need = 0 if (level or 0) <= 4 else 1 if level <= 6 else 2
            mine = [c.id for c in state.monsters(me)]
            tributes = mine[:need] if len(mine) >= need else None
            if tributes is not None:
                zones = _free_monster_zones(state, me) or [i for i, c in enumerate(state.sides[me].mzone[:5])
                                                            if c in tributes]
                event = {"kind": "normal_summoned", "player": me, "card": cid, "tributes": tributes}
                yield from _placed(N_("Normal Summon"), event, "zone", zones)
                yield from _placed(N_("Set (monster)"), {**event, "kind": "monster_set"}, "zone", zones)
        if spell_trap:
            if facts is None or not (facts.type & CardType.FIELD):
                yield from _placed(N_("Set (Spell/Trap)"), {"kind": "spell_trap_set", "player": me, "card": cid},
                                   "zone", _free_spell_zones(state, me))
            if facts is None or facts.is_spell:
                if facts is not None and facts.type & CardType.FIELD:
                    yield N_("Activate (Field Spell)"), {"kind": "activated", "player": me, "card": cid, "field_zone": True}, {}
                else:
                    yield from _placed(N_("Activate"), {"kind": "activated", "player": me, "card": cid}, "zone",
                                       _free_spell_zones(state, me))
        if monster:
            quick = {"kind": "activated", "player": me, "card": cid, "effect_type": "quick"}
            yield N_("Activate an effect (Quick)"), quick, {}
            # a hand trap (Ash Blossom, Maxx "C", Effect Veiler) goes to the GY as the cost of its
            # own activation (CHAIN-11): one entry, not an activation and a move the log tells apart
            yield N_("Send it to the GY to activate (cost)"), {**quick, "costs": [{"card": cid, "to": GY}]}, {}
            yield from _placed(N_("Special Summon"), {"kind": "special_summoned", "player": me, "card": cid}, "zone",
                               _free_monster_zones(state, me))
        yield from _moves(state, card, (GY, BANISHED, DECK), "discarded")
        yield N_("Reveal"), {"kind": "card_revealed", "player": me, "cards": [cid]}, {}
    elif zone == MZONE:
        if state.phase == "battle" and state.step in ("battle", "start", None) and card.position == ATTACK:
            targets = [c.id for c in state.monsters(1 - me)]
            if targets:
                yield N_("Attack"), {"kind": "attack_declared", "player": me, "attacker": cid, "target": targets[0]}, (
                    {"target": targets} if len(targets) > 1 else {})
            yield N_("Attack directly"), {"kind": "attack_declared", "player": me, "attacker": cid}, {}
        yield from _battle_and_stats(state, card)
        if card.position == SET:
            yield N_("Flip Summon"), {"kind": "flip_summoned", "player": me, "card": cid}, {}
        else:
            other = DEFENSE if card.position == ATTACK else ATTACK
            yield _CHANGE_TO[other], {"kind": "position_changed", "player": me, "card": cid, "position": other}, {}
        yield N_("Activate an effect"), {"kind": "activated", "player": me, "card": cid, "effect_type": "ignition"}, {}
        yield N_("Activate an effect (Quick)"), {"kind": "activated", "player": me, "card": cid, "effect_type": "quick"}, {}
        # a monster the damage calculation destroyed goes to the GY destroyed by battle (BATTLE-14)
        attack = state.attack
        battle = attack is not None and attack.calculated and cid in attack.destroyed
        yield from _moves(state, card, (GY, BANISHED, HAND, DECK), "battle" if battle else "destroyed")
    elif zone in (SZONE, FZONE):
        yield N_("Activate"), {"kind": "activated", "player": me, "card": cid}, {}
        yield from _moves(state, card, (GY, BANISHED, HAND, DECK), "destroyed")
    elif zone in (GY, BANISHED, EXTRA, DECK):
        if zone == EXTRA and facts is not None:
            yield from _procedure_summons(state, card)
        if monster:
            method = "inherent" if zone == EXTRA else "effect"
            yield from _placed(N_("Special Summon"), {"kind": "special_summoned", "player": card.owner, "card": cid,
                                                  "method": method}, "zone", _free_monster_zones(state, card.owner))
        yield N_("Activate an effect"), {"kind": "activated", "player": card.owner, "card": cid, "effect_type": "quick"}, {}
        yield from _moves(state, card, (HAND, GY, BANISHED, DECK), "added" if zone == DECK else "returned")


def _battle_and_stats(state: DuelState, card: Card) -> Iterator[Proposal]:
    """The attacker's attack stopped (BATTLE-06), a face-up monster's ATK/DEF set as an effect
    sets them: each a tap on the card, by the card of the link just resolved when there is one.
    Both were typed whole in *Something else…*, four and six taps, at the speed of play."""
    cause = {"cause": state.resolved[-1][0]} if state.resolving and state.resolved else {}
    attack = state.attack
    if attack is not None and not attack.calculated and attack.attacker == card.id:
        by = state.cards.get(cause.get("cause", ""))
        yield N_("Stop this attack"), {"kind": "attack_cancelled", **cause,
                                       **({"player": by.controller} if by is not None else {})}, {}
    if card.face_up:
        stats = {"atk": card.current_atk} if card.facts.is_link else {"atk": card.current_atk,
                                                                      "defense": card.current_def}
        yield N_("Change ATK/DEF"), {"kind": "stats_changed", "card": card.id, **stats, **cause}, {}


#: The Extra Deck procedures a tap may enter, by the facts' flag that allows each (XYZ-01, SYN-01,
#: LINK-01); a Fusion Summon is an effect's (FUS-01): its materials are the card text's, not the rules'.
_PROCEDURES = (("is_xyz", "xyz", N_("Xyz Summon")), ("is_synchro", "synchro", N_("Synchro Summon")),
               ("is_link", "link", N_("Link Summon")))
#: How many sets of materials one procedure offers (the first is the tap, the others its choices).
MOST_MATERIAL_SETS = 8


def _procedure_summons(state: DuelState, card: Card) -> Iterator[Proposal]:
    """XYZ-01, SYN-01, LINK-01/02: a known Xyz, Synchro or Link monster in the Extra Deck Summoned
    by its procedure, with the face-up monsters its player controls that fit as its materials (the
    first set that does, the others as choices) and the zones the fold lets it enter. Without this a
    table's recorder could enter it only as an ``inherent`` Special Summon, its materials left on
    the field, or by typing the event."""
    facts = card.facts
    for flag, method, label in _PROCEDURES:
        if not getattr(facts, flag):
            continue
        sets = _material_sets(state, card, method)
        if not sets:
            continue
        event = {"kind": "special_summoned", "player": card.owner, "card": card.id, "method": method,
                 "materials": sets[0]}
        freed = {i for i, cid in enumerate(state.sides[card.owner].mzone[:MAIN_MONSTER_ZONES]) if cid in sets[0]}
        zones = [z for z in [*sorted(set(_free_monster_zones(state, card.owner)) | freed), 5, 6]
                 if (tried := _try(state, {**event, "zone": z})) is not None and tried[1] != "illegal"]
        choices: dict[str, list] = {"materials": sets} if len(sets) > 1 else {}
        if zones:
            yield label, {**event, "zone": zones[0]}, ({**choices, "zone": zones} if len(zones) > 1 else choices)


def _material_sets(state: DuelState, card: Card, method: str) -> list[list[str]]:
    """The sets of face-up monsters ``card``'s player controls that the procedure's basic rules
    accept (XYZ-01/02: 2 or more of the Level of its Rank, no Token; SYN-01: 1 Tuner and non-Tuners
    whose Levels sum to its Level; LINK-02/03: each counting 1 or its Link rating, to its rating,
    as many as the card lists at least: ``_fewest_link_materials``), the fewest materials first."""
    from itertools import combinations
    known = [m for m in state.monsters(card.owner) if m.face_up and m.code]
    fewest = _fewest_link_materials(state, card) if method == "link" else 1
    found: list[list[str]] = []
    for size in range(fewest, len(known) + 1):
        for group in combinations(known, size):
            if _fits(card, method, group):
                found.append([m.id for m in group])
                if len(found) >= MOST_MATERIAL_SETS:
                    return found
    return found


def _fits(card: Card, method: str, group: tuple[Card, ...]) -> bool:
    """Whether ``group`` is a set of materials for ``card`` the procedure's basic rules accept."""
    if method == "xyz":
        return len(group) >= 2 and all(not m.is_token and m.current_level == card.facts.rank for m in group)
    if method == "synchro":
        levels = [m.current_level for m in group]
        return (len(group) >= 2 and None not in levels and sum(m.facts.is_tuner for m in group) == 1
                and sum(level or 0 for level in levels) == card.current_level)
    rating = card.facts.link_rating or 0
    totals = {0}
    for m in group:
        totals = {t + v for t in totals for v in ({1, m.facts.link_rating} if m.facts.link_rating else {1})}
    return rating in totals


def _fewest_link_materials(state: DuelState, card: Card) -> int:
    """LINK-02 (the printed count, card text the fold does not judge: it takes any materials that
    total the rating): the ``min`` its script passes to ``Link.AddProcedure`` (World Ocean Dragon -
    Zealantis, a Link-4, "1+ Effect Monsters": 1, so one Link-4 alone; Decode Talker, "2+": 2);
    without a script read, 2 for a Link-2 or higher (nearly every one lists 2 or more), 1 for
    a Link-1."""
    fewest = max((f.fewest_materials for f in script_effects(state, card)), default=0)
    return fewest or min(card.facts.link_rating or 1, 2)


def _moves(state: DuelState, card: Card, zones: tuple[str, ...], reason: str) -> Iterator[Proposal]:
    """The plain moves of ``card`` to ``zones``, each where the rules send it: a Fusion, Synchro, Xyz
    or Link monster returned to the hand or Deck goes back to the Extra Deck (ZONE-12); a Pendulum
    monster leaving the field for the GY goes face-up to the Extra Deck instead (PEND-05)."""
    names = {GY: N_("Send to the GY"), BANISHED: N_("Banish"), HAND: N_("Return to the hand")}
    facts = card.facts
    if facts is not None and facts.is_extra_deck:        # ZONE-12
        zones = tuple(dict.fromkeys(EXTRA if zone in (HAND, DECK) else zone for zone in zones))
    pendulum = facts is not None and facts.is_pendulum and facts.is_monster and card.zone in ON_FIELD
    for zone in zones:
        if zone == card.zone:
            continue
        if zone == GY and pendulum:                      # PEND-05
            yield N_("Send to the Extra Deck face-up"), {"kind": "card_moved", "card": card.id, "to": [card.owner, EXTRA],
                                                          "position": FACEUP, "reason": reason}, {}
            continue
        if zone == EXTRA:
            yield N_("Return to the Extra Deck"), {"kind": "card_moved", "card": card.id, "to": [card.owner, EXTRA],
                                                   "reason": "returned"}, {}
            continue
        if zone == DECK:
            yield from _to_deck(state, card)
            continue
        owner = card.controller if zone == HAND else card.owner
        why = "banished" if zone == BANISHED else "returned" if zone in (DECK, HAND) and reason != "added" else reason
        yield names[zone], {"kind": "card_moved", "card": card.id, "to": [owner, zone], "reason": why}, {}


def _to_deck(state: DuelState, card: Card) -> Iterator[Proposal]:
    """ZONE-11: a card returned to its owner's Deck is shuffled in unless its effect places it on
    the top, the bottom or a place in between (the 3rd from the top), where it stays known (the next
    draw takes a card put on top, ``views._lost_places``). The tap was a shuffle alone: a card put back on top was lost to the record, and the draw after it too."""
    owner = card.owner
    yield N_("Shuffle into the Deck"), {"kind": "card_moved", "card": card.id, "to": [owner, DECK],
                                        "reason": "shuffled"}, {}
    yield N_("Return to the top of the Deck"), {"kind": "card_moved", "card": card.id, "to": [owner, DECK, 0],
                                                "reason": "returned"}, {}
    yield N_("Return to the bottom of the Deck"), {"kind": "card_moved", "card": card.id,
                                                   "to": [owner, DECK, len(state.sides[owner].deck)],
                                                   "reason": "returned"}, {}
    if len(state.sides[owner].deck) >= 2:          # in between: "the 3rd from the top" (the page types the place)
        yield N_("Place in the Deck, from the top"), {"kind": "card_moved", "card": card.id, "to": [owner, DECK, 2],
                                                      "reason": "returned"}, {}


def _leaving(state: DuelState) -> Iterator[Proposal]:
    """SPELL-04, TRAP-04: each resolved (or negated) Spell or Trap still face-up on the field that
    must be in the GY before its chain is over, as a move of its own (the page's *Chain over*
    enters them first: a table's recorder enters the chain's end, not the cards it sends)."""
    for card_id in state.to_leave:
        card = state.cards.get(card_id)
        if card is not None and card.zone in (SZONE, FZONE) and card.face_up:
            yield N_("Send to the GY (resolved)"), {"kind": "card_moved", "card": card_id, "to": [card.owner, GY],
                                                "reason": "resolved"}, {"card": [card_id]}


def _name(state: DuelState, player: int) -> str:
    return state.players[player] if player < len(state.players) and state.players[player] else f"player {player}"


def _for_turn(state: DuelState) -> Iterator[Proposal]:
    player = state.turn_player
    if state.must_lose and not state.ended:        # WIN-01/02: the rules already say who lost
        losers = sorted(state.must_lose)
        winner = None if len(losers) == 2 else 1 - losers[0]
        reason = "draw" if winner is None else state.must_lose[losers[0]]
        words = END_REASONS.get(reason, reason)        # "LP reached 0", said in the reader's words, not "lp"
        said = (say("A draw ({reason})", reason=words) if winner is None
                else say("{player} wins ({reason})", player=_name(state, winner), reason=words))
        # the loser's own entry (``player``): a player's device enters no end but its own loss
        loser = {} if winner is None else {"player": losers[0]}
        yield said, {"kind": "duel_ended", "winner": winner, "reason": reason, **loser}, {}
    attack = state.attack
    if attack is not None and attack.calculated:  # the battle damage calculated, not yet taken
        for p, amount in enumerate(attack.pending_damage):
            if amount > 0:
                yield say("Battle damage {amount} to {player}", amount=amount, player=_name(state, p)), {
                    "kind": "life_points_changed", "player": p, "amount": amount, "reason": "battle_damage",
                    "lp": max(0, state.sides[p].lp - amount)}, {}
    if attack is not None and attack.calculated:  # BATTLE-14: what the calculation destroyed, still on the field
        for card_id in attack.destroyed:
            card = state.cards.get(card_id)
            if card is not None and card.zone == MZONE:
                yield N_("To the GY (destroyed by battle)"), {"kind": "card_moved", "card": card_id,
                                                              "to": [card.owner, GY], "reason": "battle"}, {
                    "card": [card_id]}
    passer = priority_holder(state)               # PRIO-01/03, CHAIN-04: the pass is the holder's
    if state.chain:
        yield N_("Pass"), {"kind": "priority_passed", "player": passer}, {}
        yield N_("Resolve the last link"), {"kind": "chain_link_resolved", "link": len(state.chain)}, {}
        return
    if state.resolving:
        if attack is not None and not attack.calculated and state.resolved:
            # BATTLE-06: the link just resolved (Magic Cylinder, Negate Attack...) ends the attack
            cause = state.cards.get(state.resolved[-1][0])
            if cause is not None:
                yield N_("Negate the attack"), {"kind": "attack_cancelled", "player": cause.controller,
                                                "cause": cause.id}, {}
        yield from _leaving(state)
        yield N_("The chain is over"), {"kind": "chain_ended"}, {}
    if attack is not None and state.step == "damage" and not attack.calculated:
        attacker = state.cards.get(attack.attacker)
        target = state.cards.get(attack.target) if attack.target else None
        if attacker is not None:
            _, destroyed, damage = battle_result(state, attacker, target)
            event = {"kind": "damage_calculated", "destroyed": sorted(destroyed), "damage": damage}
            if target is not None and not target.face_up:     # POS-04: it flips it, so its player enters it
                event["player"] = target.controller
            yield N_("Damage calculation"), event, {}
    if state.phase == "battle" and state.step == "damage":      # back for another attack, or done
        yield N_("Battle Step"), {"kind": "step_entered", "step": "battle"}, {}
    if state.phase == "battle" and state.step != "end":
        yield _STEP_LABELS[_NEXT_STEP.get(state.step, "end")], {
            "kind": "step_entered", "step": _NEXT_STEP.get(state.step, "end")}, {}
    if state.phase == "draw" and not state.normal_draw_done:
        yield N_("Draw"), {"kind": "cards_drawn", "player": player, "count": state.draw_count}, {}
    following = _NEXT_PHASE.get(state.phase)
    if following is not None:
        yield _PHASE_LABELS[following], {"kind": "phase_entered", "phase": following}, {}
        if state.phase == "main1":
            yield N_("To end (skip the Battle Phase)"), {"kind": "phase_entered", "phase": "end"}, {}
    if state.phase == "end" or state.turn == 0:
        yield N_("Next turn"), {"kind": "turn_started", "player": 1 - player if state.turn else state.first_player,
                            "turn": state.turn + 1}, {}
    yield N_("Pass"), {"kind": "priority_passed", "player": passer}, {}
