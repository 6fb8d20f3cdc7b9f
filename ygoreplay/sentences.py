"""What each event says, one sentence per event kind, against the state just before it.

A sentence names a card as the reader of the log knows it (``_Line.card``): on the field with its
zone (``Vorse Raider [M2]``), elsewhere with a copy number when its owner has several, a hidden
card as what is seen of it; and it records the cards it names, for ``log --card`` and ``--json``.
``log.Narrator`` strings the sentences together.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Iterable

from .events import (
    ATTACK, DECK, DEFENSE, EVENT_TYPES, EXTRA, FACEDOWN, FACEDOWN_ATTACK, FZONE, GY, HAND, MZONE, OVERLAY, SET,
    SZONE, Activated, AttackCancelled, AttackDeclared, AttackRetargeted, CardMoved, CardRevealed, CardsDrawn,
    CardsOpened, CardsSealed, CardsSwapped, ChainEnded, ChainLinkNegated, ChainLinkResolved, CoinTossed, ControlChanged,
    CountersChanged, DamageCalculated, DeckRegistered, DeckShuffled, DieRolled, DuelEnded, DuelStarted, EntryConfirmed,
    EntryCorrected, EntryDisputed, Event, FlipSummoned, HandSizeDiscard, JudgeNote, LifePointsChanged, MonsterSet,
    NormalSummoned, PhaseEntered, PositionChanged, PositionSetUp, PriorityPassed, RolledBack, SetCardsShuffled,
    SpecialSummoned, SpellTrapSet, StatsChanged, StepEntered,
    SummonNegated, TokenCreated, TurnStarted, ZoneChanged)
from .kinds import PerKind
from .rules.base import phase_name
from .state import Card, DuelState
from .text import printable

if TYPE_CHECKING:
    from .log import Narrator

ZONE_NAMES = {DECK: "Deck", HAND: "hand", MZONE: "Monster Zone", SZONE: "Spell & Trap Zone",
              FZONE: "Field Zone", GY: "GY", "banished": "banished cards", EXTRA: "Extra Deck",
              OVERLAY: "Xyz materials"}
_MOVE_REASONS = {"destroyed": "destroyed", "battle": "destroyed by battle", "sent": "sent",
                 "tributed": "Tributed", "material": "used as material", "discarded": "discarded",
                 "banished": "banished", "returned": "returned", "shuffled": "shuffled in",
                 "added": "added", "resolved": "after resolving", "cost": "as a cost", "rule": "by rule",
                 "detached": "detached", "attached": "attached as material", "negated": "negated"}
_COST_VERBS = {"discarded": "discarding", "tributed": "Tributing", "detached": "detaching",
               "banished": "banishing"}
_END_REASONS = {"lp": "LP reached 0", "deck_out": "could not draw", "draw": "a draw", "surrender": "surrender",
                "effect": "a card effect", "judge": "a judge's decision", "time": "time", "disconnect": "disconnection"}


def zone_tag(zone: str, index: int | None) -> str:
    """The short name of a zone, the same the board prints over it: ``M0``..``M4`` the Main
    Monster Zones, ``M5``/``M6`` the Extra Monster Zones (left/right as their controller sees
    them, as events number them), ``S0``..``S4`` the Spell & Trap Zones (``S5``/``S6`` the
    Pendulum Zones of Master Rule 3), ``FZ`` the Field Zone."""
    if zone == MZONE:
        return f"M{index}"
    if zone == SZONE:
        return f"S{index}"
    if zone == FZONE:
        return "FZ"
    return ZONE_NAMES.get(zone, zone)


class Line:
    """The words of one entry, and the cards they name."""

    def __init__(self, state: DuelState, shows: Iterable[tuple[str, int]] = ()) -> None:
        self.s = state
        self.cards: list[dict[str, Any]] = []
        self._copies: dict[tuple[int, int], list[str]] | None = None
        # The identities the event shows (``Event.shows``) of cards the state before it does not
        # know: named where they are first mentioned ("a card in Kaiba's hand (revealed as …)").
        self.shows = {card_id: code for card_id, code in shows}
        self.revealed: set[str] = set()

    # -- players and places ---------------------------------------------------------------------

    def who(self, player: int | None) -> str:
        s = self.s
        player = s.turn_player if player is None else player
        if 0 <= player < len(s.players) and s.players[player]:
            return s.players[player]
        return f"Player {player}"

    def whose(self, player: int) -> str:
        return f"{self.who(player)}'s"

    def pile(self, controller: int, zone: str) -> str:
        return f"{self.whose(controller)} {ZONE_NAMES.get(zone, zone)}"

    # -- cards ------------------------------------------------------------------------------------

    def copy_number(self, card: Card) -> str:
        """`` (copy 2)`` when its owner has several known cards of that name, else nothing."""
        if self._copies is None:
            copies: dict[tuple[int, int], list[str]] = {}
            for c in self.s.cards.values():
                if c.code and not c.is_token:
                    copies.setdefault((c.owner, c.code), []).append(c.id)
            self._copies = copies
        same = self._copies.get((card.owner, card.code), ())
        if len(same) < 2:
            return ""
        return f" (copy {sorted(same, key=_natural).index(card.id) + 1})"

    def card(self, card_id: str | None, *, owner: bool = False) -> str:
        """A card as the view knows it: its name and, on the field, its zone (``Vorse Raider [M2]``),
        elsewhere a copy number when there are several; a hidden card as what is seen of it."""
        if card_id is None:
            return "—"
        s = self.s
        card = s.cards.get(card_id)
        if card is None:
            self.cards.append({"id": card_id, "name": None, "zone": None})
            return f"a card ({card_id})"
        loc = s.location(card)
        on_field = card.zone in (MZONE, SZONE, FZONE)
        tag = f" [{zone_tag(loc.zone, loc.index)}]" if on_field else ""
        mine = f"{self.whose(card.controller)} " if owner else ""
        if card.code == 0:
            shown = s.db.get(self.shows[card_id]) if card_id in self.shows else None
            zone = zone_tag(loc.zone, loc.index) if on_field else card.zone
            self.cards.append({"id": card_id, "name": shown.name if shown else None, "zone": zone})
            if shown is not None and card_id in self.revealed:
                return f"{mine}{shown.name}{tag}"
            if on_field:
                what = ("face-down monster" if card.zone == MZONE else "Set card") if not card.face_up \
                    else "unknown card"
                text = f"{mine}{what}{tag}" if owner else f"a{'n' if what[0] == 'u' else ''} {what}{tag}"
            else:
                text = f"a card in {self.pile(loc.controller, card.zone)}" if card.zone != OVERLAY else "an Xyz material"
            if shown is None:
                return text
            self.revealed.add(card_id)
            return f"{text} (revealed as {shown.name})"
        name = card.name
        self.cards.append({"id": card_id, "name": name, "zone": zone_tag(loc.zone, loc.index) if on_field else card.zone})
        return f"{mine}{name}{tag if on_field else self.copy_number(card)}"

    def unmentioned_shows(self) -> str:
        """``; revealed: a Set card [S1] (revealed as Mirror Force)``: the cards the event shows
        that its sentence did not name."""
        rest = [c for c in self.shows if c not in self.revealed and c in self.s.cards and not self.s.cards[c].code]
        return ("; revealed: " + ", ".join(self.card(c) for c in rest)) if rest else ""

    def cards_of(self, ids: Iterable[str], *, owner: bool = False) -> str:
        return ", ".join(self.card(c, owner=owner) for c in ids)

    def cause(self, card_id: str | None, resolved: str | None = None, word: str = "by") -> str:
        """`` (by Magic Cylinder)``: the cause an event records, else the chain link that just
        resolved (what a hand-written record leaves implicit)."""
        cid = card_id or resolved
        if cid is None:
            return ""
        return f" ({word} {self.card(cid)})" if cid in self.s.cards else f" ({word} {printable(cid)})"


def _natural(card_id: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", card_id))


# -- the sentences ------------------------------------------------------------------------------------

Describe = Callable[[Line, Event, "Narrator"], str]
#: Each kind's sentence, registered with ``@describes(EventClass)`` where it is written.
describes = PerKind("sentence")


def _costs(w: Line, e, player: int) -> str:
    parts = []
    lp = w.s.sides[player].lp
    for cost in e.costs:
        if cost.card is None:
            after = max(0, lp - cost.lp)
            parts.append(f"paying {cost.lp} LP (LP {lp} → {after})")
            lp = after
        else:
            verb = _COST_VERBS.get(cost.reason)
            what = w.card(cost.card)
            parts.append(f"{verb} {what}" if verb else f"sending {what} to the {ZONE_NAMES.get(cost.to or '', cost.to)}")
    return (", as a cost " + " and ".join(parts)) if parts else ""


@describes(Activated)
def _activated(w: Line, e, n: "Narrator") -> str:
    s = w.s
    player = s.turn_player if e.player is None else e.player
    card = s.cards.get(e.card)
    where = ""
    if card is not None and card.zone == HAND and e.effect_type is None:
        where = " from the hand" + (" to the Field Zone" if e.field_zone else f" to S{e.zone}" if e.zone is not None else "")
    effect = f" ({e.effect_type} effect)" if e.effect_type else ""
    targets = f" targeting {w.cards_of(e.targets, owner=True)}" if e.targets else ""
    said = f" — “{printable(e.description)}”" if e.description else ""
    negates = f", negating Chain Link {e.negates}{_link_card(w, e.negates)}" if e.negates is not None else ""
    return (f"Chain Link {len(s.chain) + 1}: {w.who(e.player)} activates {w.card(e.card)}{where}{effect}"
            f"{targets}{negates}{_costs(w, e, player)}{said}")


def _link_card(w: Line, number: int) -> str:
    chain = w.s.chain
    return f" ({w.card(chain[number - 1].card)})" if 0 < number <= len(chain) else ""


@describes(CardsDrawn)
def _draw(w: Line, e, n: "Narrator") -> str:
    s = w.s
    player = s.turn_player if e.player is None else e.player
    ids = list(e.cards) or (s.sides[player].deck[:e.count] if player in (0, 1) else [])
    known = ids and all(s.cards[c].code for c in ids if c in s.cards)
    shown = w.cards_of(ids) if known else ("a card" if e.count == 1 else f"{e.count} cards")
    return f"{w.who(e.player)} draws {shown}" + w.cause(e.cause)


@describes(SpecialSummoned)
def _summoned(w: Line, e, n: "Narrator") -> str:
    controller = e.player if e.controller is None or e.controller == e.player else e.controller
    to = (f"{w.whose(controller)} " if controller != e.player and controller is not None else "") + zone_tag(MZONE, e.zone)
    materials = f", using {w.cards_of(e.materials)}" if e.materials else ""
    together = {True: ", at the same time as the one before", False: ", a summon of its own"}.get(e.together, "")
    return (f"{w.who(e.player)} Special Summons {w.card(e.card)} ({e.method}) to {to} in "
            f"{_position(e.position)}{materials}{together}" + w.cause(e.cause))


def _position(position: str | None) -> str:
    return {ATTACK: "Attack Position", DEFENSE: "Defense Position", SET: "face-down Defense Position",
            FACEDOWN_ATTACK: "face-down Attack Position", "faceup": "face-up", FACEDOWN: "face-down"}.get(
        position or "", str(position))


@describes(MonsterSet)
def _set_monster(w: Line, e, n: "Narrator") -> str:
    card = w.s.cards.get(e.card)
    what = w.card(e.card) if card is not None and card.code else "a monster"
    tributes = f", Tributing {w.cards_of(e.tributes)}" if e.tributes else ""
    return f"{w.who(e.player)} Sets {what} in {zone_tag(MZONE, e.zone)}{tributes}"


@describes(SpellTrapSet)
def _set_spell(w: Line, e, n: "Narrator") -> str:
    card = w.s.cards.get(e.card)
    what = w.card(e.card) if card is not None and card.code else "a card"
    return f"{w.who(e.player)} Sets {what} in " + ("the Field Zone" if e.field_zone else zone_tag(SZONE, e.zone))


@describes(AttackDeclared)
def _attack(w: Line, e, n: "Narrator") -> str:
    s = w.s
    attacker = s.cards.get(e.attacker)
    defender = 1 - attacker.controller if attacker is not None else 1 - s.turn_player
    target = w.card(e.target, owner=True) if e.target else f"{w.who(defender)} directly"
    return f"{w.card(e.attacker, owner=True)} attacks {target}"


@describes(AttackRetargeted)
def _retarget(w: Line, e, n: "Narrator") -> str:
    s = w.s
    attack = s.attack
    attacker = w.card(attack.attacker) if attack is not None else "the attacker"
    defender = 1 - s.turn_player
    target = w.card(e.target, owner=True) if e.target else f"{w.who(defender)} directly"
    return f"Replay: {attacker} now attacks {target}"


@describes(AttackCancelled)
def _cancelled(w: Line, e, n: "Narrator") -> str:
    attack = w.s.attack
    whose = f"the attack of {w.card(attack.attacker, owner=True)}" if attack is not None else "the attack"
    return f"{whose[0].upper()}{whose[1:]} is cancelled" + w.cause(e.cause, n.resolved)


def _fighter(w: Line, card_id: str, as_target: bool) -> str:
    card = w.s.cards.get(card_id)
    if card is None or card.code == 0:
        return w.card(card_id)
    attack_position = card.position == ATTACK or (not as_target)
    stat = f"{card.current_atk} ATK" if attack_position else f"{card.current_def} DEF"
    return f"{w.card(card_id)} {stat}"


@describes(DamageCalculated)
def _damage(w: Line, e, n: "Narrator") -> str:
    s = w.s
    attack = s.attack
    parts = []
    if attack is not None:
        if attack.target is None:
            parts.append(f"{_fighter(w, attack.attacker, False)} attacks directly")
        else:
            target = s.cards.get(attack.target)
            flip = target is not None and target.position in (SET, FACEDOWN_ATTACK)
            parts.append(f"{_fighter(w, attack.attacker, False)} vs {_fighter(w, attack.target, True)}"
                         + (f"; {w.card(attack.target)} is flipped face-up" if flip else ""))
    damage = [f"battle damage to player {p} ({w.who(p)}): {amount}" for p, amount in enumerate(e.damage[:2]) if amount]
    parts.append("; ".join(damage) if damage else "no battle damage")
    if e.destroyed:
        parts.append(f"destroyed: {w.cards_of(e.destroyed)}")
    return "Damage calculation: " + "; ".join(parts)


@describes(CardMoved)
def _moved(w: Line, e, n: "Narrator") -> str:
    s = w.s
    card = s.cards.get(e.card)
    on_field = card is not None and card.zone in (MZONE, SZONE, FZONE)
    subject = w.card(e.card, owner=on_field)
    if card is not None and not on_field and card.code:
        subject += f" from {w.pile(s.location(card).controller, card.zone)}"
    face = " face-down" if e.position in (FACEDOWN, SET) and e.to.zone not in (MZONE, SZONE, FZONE) else ""
    if e.to.zone in (MZONE, SZONE, FZONE):
        to = f"{w.whose(e.to.controller)} {zone_tag(e.to.zone, e.to.index)}"
    else:
        to = w.pile(e.to.controller, e.to.zone)
    by = e.cause or (None if e.reason in ("battle", "resolved", "cost", "material") else n.resolved)
    cause = (f", by {w.card(by)}" if by in s.cards else f", by {printable(by)}") if by else ""
    group = ", at the same time as the next" if e.with_next else ""
    return f"{subject} → {to}{face} ({_MOVE_REASONS.get(e.reason, e.reason)}{cause}{group})"


@describes(CardRevealed)
def _revealed(w: Line, e, n: "Narrator") -> str:
    """What is revealed, from where, and why: the revealing player is implicit (a record may name
    the player shown the cards instead, as EDOPro does)."""
    s = w.s
    places = {(s.location(s.cards[c]).controller, s.cards[c].zone) for c in e.cards if c in s.cards}
    where = f" from {w.pile(*places.pop())}" if len(places) == 1 else ""
    verb = "is" if len(e.cards) == 1 else "are"
    return f"{w.cards_of(e.cards)} {verb} revealed{where}" + w.cause(e.cause, n.resolved)


@describes(StatsChanged)
def _stats(w: Line, e, n: "Narrator") -> str:
    card = w.s.cards.get(e.card)
    changes = []
    for label, value, now in (("ATK", e.atk, card.current_atk if card else None),
                              ("DEF", e.defense, card.current_def if card else None),
                              ("Level", e.level, card.current_level if card else None)):
        if value is not None:
            changes.append(f"{label} {value}" + (f" (was {now})" if now is not None and card is not None and card.code else ""))
    if not changes:                              # a view that may not see the card sees no numbers
        return f"The stats of {w.card(e.card)} change" + w.cause(e.cause, n.resolved)
    return f"{w.card(e.card)} now has {', '.join(changes)}" + w.cause(e.cause, n.resolved)


_LP_WORDS = {"battle_damage": "takes {amount} battle damage", "effect_damage": "takes {amount} effect damage",
             "cost": "pays {amount} LP", "gain": "gains {amount} LP", "set": "has LP set to {amount}"}


@describes(LifePointsChanged)
def _lp(w: Line, e, n: "Narrator") -> str:
    s = w.s
    player = s.turn_player if e.player is None else e.player
    before = s.sides[player].lp if player in (0, 1) else 0
    after = lp_after(before, e.amount, e.reason)
    words = _LP_WORDS.get(e.reason, "loses {amount} LP").format(amount=e.amount)
    if e.reason == "battle_damage" and e.cause is None and s.attack is not None:
        cause = f" (from {w.card(s.attack.attacker)}'s attack)"
    else:
        cause = w.cause(e.cause, n.resolved, "from" if e.reason in ("effect_damage", "gain") else "by")
    return f"{w.who(e.player)} {words}{cause}: LP {before} → {after}"


def lp_after(lp: int, amount: int, reason: str) -> int:
    """Life points after a change (``rules.outcome.life_points_changed`` decides the same)."""
    if reason == "gain":
        return lp + amount
    if reason == "set":
        return amount
    return max(0, lp - amount)


@describes(ChainLinkNegated)
def _negated(w: Line, e, n: "Narrator") -> str:
    by = f" by Chain Link {e.by}{_link_card(w, e.by)}" if e.by else ""
    return f"Chain Link {e.link}{_link_card(w, e.link)} is negated{by}"


@describes(ControlChanged)
def _control(w: Line, e, n: "Narrator") -> str:
    return (f"{w.who(e.to_player)} takes control of {w.card(e.card, owner=True)}, into {zone_tag(MZONE, e.zone)}"
            + w.cause(e.cause, n.resolved))


@describes(CardsSwapped)
def _swapped(w: Line, e, n: "Narrator") -> str:
    return f"{w.card(e.card, owner=True)} and {w.card(e.other, owner=True)} trade places" + w.cause(e.cause, n.resolved)


@describes(SetCardsShuffled)
def _set_shuffled(w: Line, e, n: "Narrator") -> str:
    card = w.s.cards.get(e.cards[0]) if e.cards else None
    zone = card.zone if card is not None and card.zone in (MZONE, SZONE) else MZONE
    owner = card.controller if card is not None else e.player
    return (f"{w.who(owner)} shuffles {len(e.cards)} Set cards among "
            + ", ".join(zone_tag(zone, z) for z in sorted(e.zones)) + w.cause(e.cause, n.resolved))


@describes(TokenCreated)
def _token(w: Line, e, n: "Narrator") -> str:
    facts = w.s.db.get(e.code)
    name = facts.name if facts is not None and e.code else "a token"
    return (f"{w.who(e.player)} gets {name} in {zone_tag(MZONE, e.zone)} in {_position(e.position)}"
            + w.cause(e.cause, n.resolved))


@describes(DuelStarted)
def _started(w: Line, e, n: "Narrator") -> str:
    names = [p or f"Player {i}" for i, p in enumerate(e.players)] if e.players else ["Player 0", "Player 1"]
    name = (names + ["Player 0", "Player 1"])[e.first_player] if e.first_player in (0, 1) else f"player {e.first_player}"
    chosen = ""
    if e.chosen_by is not None:
        chooser = (names + ["Player 0", "Player 1"])[e.chosen_by] if e.chosen_by in (0, 1) else str(e.chosen_by)
        chosen = f" (chosen by {chooser}, {e.method})"
    agreed = f"; agreed: {', '.join(e.options)}" if e.options else ""        # duel options (CONF-01)
    banlist = f"; banlist {printable(e.banlist.name)!r} ({e.banlist.hash[:19]}…)" if e.banlist is not None else ""
    return (f"Duel begins under {e.ruleset}, {e.starting_lp} LP: {name} (player {e.first_player}) goes "
            f"first{chosen}{agreed}{banlist}")


@describes(ZoneChanged)
def _zone_changed(w: Line, e, n: "Narrator") -> str:
    card = w.s.cards.get(e.card)
    zone = card.zone if card is not None and card.zone in (MZONE, SZONE) else MZONE
    return f"{w.card(e.card, owner=True)} moves to {zone_tag(zone, e.zone)}" + w.cause(e.cause, n.resolved)


@describes(DeckRegistered)
def _deck(w: Line, e, n: "Narrator") -> str:
    return f"{w.who(e.player)} registers a deck: {len(e.main)} main, {len(e.extra)} extra, {len(e.side)} side"


@describes(DeckShuffled)
def _shuffled(w: Line, e, n: "Narrator") -> str:
    return f"{w.who(e.player)} shuffles their Deck"


@describes(CardsSealed)
def _sealed(w: Line, e, n: "Narrator") -> str:
    """The cards sealed, as the reader knows them (a view keeps no seal: it says only that)."""
    count = len(e.seals)
    if not count:
        return f"{w.who(e.player)} seals hidden cards of their own"
    return (f"{w.who(e.player)} seals {count} card{'s' if count != 1 else ''} of their own: "
            f"{w.cards_of(card for card, _ in e.seals)}")


@describes(CardsOpened)
def _opened(w: Line, e, n: "Narrator") -> str:
    """Each card as it was known before, and what it is opened as (a view keeps none of them)."""
    if not e.cards:
        return f"{w.who(e.player)} opens sealed cards"
    def named(card_id: str, code: int) -> str:
        card = w.s.cards.get(card_id)
        if card is not None and card.code:               # shown before: named as it was shown
            return w.card(card_id)
        facts = w.s.db.get(code)
        return f"{w.card(card_id)} is {facts.name if facts is not None else code}"
    sealed = sum(1 for o in e.cards if o.nonce)
    return (f"{w.who(e.player)} opens {len(e.cards)} card{'s' if len(e.cards) != 1 else ''} ({sealed} sealed): "
            + "; ".join(named(o.card, o.code) for o in e.cards))


@describes(PositionSetUp)
def _set_up(w: Line, e, n: "Narrator") -> str:
    return f"Position set up: turn {e.turn}, {w.whose(e.turn_player)} {phase_name(e.phase)}"


@describes(TurnStarted)
def _turn(w: Line, e, n: "Narrator") -> str:
    return f"Turn {e.turn} begins: {w.who(e.player)}"


@describes(PhaseEntered)
def _phase(w: Line, e, n: "Narrator") -> str:
    return phase_name(e.phase)


@describes(StepEntered)
def _step(w: Line, e, n: "Narrator") -> str:
    return f"Battle Phase: {e.step} step"


@describes(PriorityPassed)
def _passed(w: Line, e, n: "Narrator") -> str:
    return f"{w.who(e.player)} passes"


@describes(NormalSummoned)
def _normal_summoned(w: Line, e, n: "Narrator") -> str:
    return (f"{w.who(e.player)} Normal Summons {w.card(e.card)} to {zone_tag(MZONE, e.zone)}"
            + (f" in {_position(e.position)}" if e.position != ATTACK else "")
            + (f", Tributing {w.cards_of(e.tributes)}" if e.tributes else ""))


@describes(FlipSummoned)
def _flip_summoned(w: Line, e, n: "Narrator") -> str:
    return f"{w.who(e.player)} Flip Summons {w.card(e.card)}"


@describes(SummonNegated)
def _summon_negated(w: Line, e, n: "Narrator") -> str:
    return f"The summon of {w.card(e.card)} is negated" + w.cause(e.cause, n.resolved)


@describes(PositionChanged)
def _position_changed(w: Line, e, n: "Narrator") -> str:
    return f"{w.card(e.card, owner=True)} changes to {_position(e.position)}" + w.cause(e.cause)


@describes(ChainLinkResolved)
def _resolved(w: Line, e, n: "Narrator") -> str:
    return f"Chain Link {e.link}{_link_card(w, e.link)} resolves"


@describes(ChainEnded)
def _chain_ended(w: Line, e, n: "Narrator") -> str:
    return "The chain ends"


@describes(CountersChanged)
def _counters(w: Line, e, n: "Narrator") -> str:
    return f"{w.card(e.card)} has {e.count} {printable(e.counter)} counter(s)" + w.cause(e.cause, n.resolved)


@describes(CoinTossed)
def _coin(w: Line, e, n: "Narrator") -> str:
    return f"Coin toss: {', '.join('heads' if r else 'tails' for r in e.results)}" + w.cause(e.cause, n.resolved)


@describes(DieRolled)
def _die(w: Line, e, n: "Narrator") -> str:
    return f"Die roll: {', '.join(map(str, e.results))}" + w.cause(e.cause, n.resolved)


@describes(HandSizeDiscard)
def _hand_size(w: Line, e, n: "Narrator") -> str:
    return f"{w.who(e.player)} discards {w.cards_of(e.cards)} for the hand size limit"


@describes(DuelEnded)
def _ended(w: Line, e, n: "Narrator") -> str:
    result = "a draw" if e.winner is None else w.who(e.winner) + " wins"
    return f"The duel ends: {result} ({_END_REASONS.get(e.reason, e.reason)})"


@describes(RolledBack)
def _rolled_back(w: Line, e, n: "Narrator") -> str:
    return f"JUDGE {e.judge} rolls the game back to before event #{e.to}: {e.reason}"


@describes(JudgeNote)
def _note(w: Line, e, n: "Narrator") -> str:
    ruling = f" [on #{e.on}: {e.decision}]" if e.on is not None else ""
    return f"JUDGE {e.judge} ({e.category}){ruling}: {e.note}"


@describes(EntryConfirmed)
def _confirmed(w: Line, e, n: "Narrator") -> str:
    return f"{_entrant(e)} confirms entry #{e.on}"


@describes(EntryDisputed)
def _disputed(w: Line, e, n: "Narrator") -> str:
    return f"{_entrant(e)} disputes entry #{e.on}: {e.reason} (a judge call)"


@describes(EntryCorrected)
def _corrected(w: Line, e, n: "Narrator") -> str:
    return f"{_entrant(e)} corrects a mis-entry: the entries from #{e.to} on are struck ({e.reason})"


def _entrant(e) -> str:
    """Who entered a witnessed duel's event, as the log says it."""
    return {"p0": "Player 0", "p1": "Player 1", "judge": "The judge", "recorder": "The recorder"}.get(
        e.entered_by or "", "The recorder")


#: The sentence of every duel kind, in the kinds' order (``log.Narrator`` looks them up here).
SENTENCES: dict[str, Describe] = {kind: describes[kind] for kind in EVENT_TYPES if kind in describes}
