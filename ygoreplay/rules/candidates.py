"""Deciding a rule about a card the record does not know: by every card it could be.

A check that read an unknown card's facts cannot tell by itself (``base.fail`` lists it as
undecided). But some answers hold whoever the card is: a second Normal Set in a turn breaks SUM-01
whether the Set card is a monster (the count) or not (only monsters are Set). ``decide`` tries the
event again on the state before it, once for each card each unknown card it names could be; a rule
broken under every one of them is broken, and is called like any other. The cards it could be are
those its owner's registered decklist still holds (``deck_registered`` ``unordered``): then the
answer is exact; without a list, one card of every kind the rules tell apart (``ANY_CARD``), from
the part of the deck the card came from.
"""
from __future__ import annotations

import itertools
from typing import Callable
from ..cards import CardFacts, CardType as T
from ..events import FACE_UP_POSITIONS, Event, cards_named
from ..state import Card, DuelState, Violation
from .base import RuleViolation

_M, _E = T.MONSTER, T.MONSTER | T.EFFECT


def _any(n: int, what: str, type_: int, level: int = 0, atk: int = 0, defense: int | None = 0, **more: int) -> CardFacts:
    return CardFacts(code=0x7FFFFF00 + n, name=f"(any {what})", type=int(type_), level=level, atk=atk,
                     defense=defense, **more)


#: One card of each kind the rules tell apart: Main Deck monsters by Level (0, 1 or 2 Tributes),
#: abilities and summoning conditions; every Spell and Trap property; each Extra Deck kind.
ANY_MAIN = (
    _any(1, "Level 4 Normal Monster", _M | T.NORMAL, 4, 1800, 1000),
    _any(2, "Level 1 Effect Monster", _E, 1, 0, 0),
    _any(3, "Level 6 Effect Monster", _E, 6, 2400, 2000),
    _any(4, "Level 8 Effect Monster", _E, 8, 3000, 2500),
    _any(5, "Tuner", _E | T.TUNER, 3, 1200, 800),
    _any(6, "Flip monster", _E | T.FLIP, 3, 800, 1900),
    _any(7, "Ritual Monster", _E | T.RITUAL, 6, 2300, 2000),
    _any(8, "Pendulum Monster", _E | T.PENDULUM, 4, 1500, 1500, lscale=1, rscale=8),
    _any(9, "Gemini monster", _E | T.GEMINI, 4, 1900, 1000),
    _any(10, "monster Special Summoned only by its own way", _E | T.SPSUMMON, 8, 2800, 2000),
    _any(11, "Normal Spell", T.SPELL),
    _any(12, "Quick-Play Spell", T.SPELL | T.QUICKPLAY),
    _any(13, "Continuous Spell", T.SPELL | T.CONTINUOUS),
    _any(14, "Equip Spell", T.SPELL | T.EQUIP),
    _any(15, "Field Spell", T.SPELL | T.FIELD),
    _any(16, "Ritual Spell", T.SPELL | T.RITUAL),
    _any(17, "Normal Trap", T.TRAP),
    _any(18, "Continuous Trap", T.TRAP | T.CONTINUOUS),
    _any(19, "Counter Trap", T.TRAP | T.COUNTER),
)
ANY_EXTRA = (
    _any(20, "Fusion Monster", _E | T.FUSION, 6, 2400, 2000),
    _any(21, "Synchro Monster", _E | T.SYNCHRO, 7, 2500, 2000),
    _any(22, "Xyz Monster", _E | T.XYZ, 4, 2500, 2000),
    _any(23, "Link Monster", _E | T.LINK, 2, 1600, None, link_markers=0x28),
    _any(24, "Pendulum Fusion Monster", _E | T.FUSION | T.PENDULUM, 7, 2500, 2000, lscale=4, rscale=4),
)
ANY_CARD = ANY_MAIN + ANY_EXTRA
#: The fold (``rules.fold.apply``), given by it: this module is below it.
Fold = Callable[[DuelState, Event], DuelState]
#: More combinations than this (an event naming several unknown cards) stay undecided.
MOST_TRIALS = 64


def named_unknowns(state: DuelState, event: Event) -> list[Card]:
    """The cards the record does not know that ``event`` names, but does not show."""
    shown = {card_id for card_id, _ in event.shows}
    cards = (state.cards.get(card_id) for card_id in cards_named(event) if card_id not in shown)
    return [card for card in cards if card is not None and card.facts is state.unknown]


def could_be(state: DuelState, card: Card) -> tuple[CardFacts, ...]:
    """Every card ``card`` could be: what its owner's decklist still holds for its part of the
    deck (and a copy already shown lying in the same hidden pile), else one of each kind."""
    listed = state.sides[card.owner].listed
    if listed is not None and card.pile in ("main", "extra"):
        codes = set(listed[card.pile == "extra"])
        codes.update(c.code for c in state.cards.values()
                     if c.code and c.owner == card.owner and c.pile == card.pile and c.zone == card.zone
                     and c.position not in FACE_UP_POSITIONS)
        facts = tuple(state.db[code] for code in sorted(codes) if code in state.db)
        if facts:
            return facts
    return ANY_MAIN if card.pile == "main" else ANY_EXTRA if card.pile == "extra" else ANY_CARD


def decide(before: DuelState, event: Event, entries: list[Violation], apply: Fold) -> list[Violation]:
    """The entries whose rule ``event`` breaks whoever the unknown cards it names are."""
    cards = named_unknowns(before, event)
    if not cards:
        return []
    options = [could_be(before, card) for card in cards]
    total = 1
    for choice in options:
        total *= len(choice)
    if total > MOST_TRIALS:
        return []
    broken: set[str] | None = None
    said: set[tuple[str, str]] | None = None
    for combo in itertools.product(*options):
        found = _broken(before, event, cards, combo, apply)
        if found is None:                           # this card could not have been played so
            continue
        rules = {rule for rule, _ in found}
        broken = rules if broken is None else broken & rules
        said = found if said is None else said & found
        if not broken:
            return []
    # only the undecided: a rule the event broke for sure (WIN-01 after a player lost) is already called
    broken = (broken or set()) & {e.rule for e in entries}
    if not broken or said is None:
        return []
    # Each rule once, in the words every trial used when there are such (not the words of one card).
    decided: list[Violation] = []
    for rule in sorted(broken, key=[e.rule for e in entries].index):
        common = [e for e in entries if e.rule == rule and (rule, e.message) in said]
        words = sorted(message for r, message in said if r == rule)
        decided.append(common[0] if common else Violation(entries[0].index, rule, words[0]) if words
                       else next(e for e in entries if e.rule == rule))
    return decided


def _broken(before: DuelState, event: Event, cards: list[Card], combo: tuple[CardFacts, ...],
            apply: Fold) -> set[tuple[str, str]] | None:
    trial = before.copy()
    trial.violations, trial.undecided, trial.unknowns, trial.witnessed = [], [], True, False
    for card, facts in zip(cards, combo):
        trial.cards[card.id].facts = facts
    try:
        apply(trial, event)
    except RuleViolation:                           # impossible as that card: not what it was
        return None
    return {(v.rule, v.message) for v in trial.violations}
