"""Who a card is: the identities a record learns as its events show them.

A record holds what its recorder saw. A card it does not know (passcode 0: drawn, Set, in a hidden
hand, in a Deck) is a card like any other; the first event that shows it names it
(``Event.shows``) and from then on it is that card. With a decklist registered without its order
(``deck_registered`` ``unordered``, a tournament's deck registration) a card shown must be one the
list still holds, from its part of the deck; a Deck shuffled where the recorder could not follow
(``deck_shuffled`` without an order, or a witnessed duel's card ``card_moved`` into it, reason
``shuffled`` or no place in it named) makes its cards unknown again, their identities back on the
list. ``fold.apply`` calls ``identify`` before an event's handler, so the rules judge the event
with the cards it shows already named.

When each player records their own side, a player's device seals the identities of its own
hidden cards (``cards_sealed``: the card is its sealer's, held where only they see it, LOG-11;
sealed once, LOG-04) and opens them later (``cards_opened``): an opening names the card as an
event that shows it does, and must open its seal (LOG-11, ``seals.opens``).
"""
from __future__ import annotations

from typing import Iterable, TYPE_CHECKING

from ..i18n import N_, say
from .. import seals
from ..cards import CardFacts
from ..events import BANISHED, DECK, EXTRA, FACE_UP_POSITIONS, FZONE, HAND, MZONE, SZONE, Event
from ..state import Card, DuelState
from .base import call, fail, get_card, handles, impossible
from .spell_trap import judge_unseen_set
from .summon import judge_unseen_material, judge_unseen_pendulum, judge_unseen_sum, judge_unseen_summon

if TYPE_CHECKING:                  # annotations only: a kind is made on its first use (events._lazy)
    from ..events import CardsOpened, CardsSealed

_PARTS = ("main", "extra")


def identify(state: DuelState, ev: Event) -> None:
    """Name the cards ``ev`` shows."""
    bind(state, ev, ev.shows)


def bind(state: DuelState, ev: Event, pairs: Iterable[tuple[str, int]]) -> None:
    """Name cards, ``(card id, passcode)`` pairs (LOG-01, CARD-01, LOG-10, DECK-02/03, PEN-02):
    every check first, then every binding, so a refused event names none."""
    bindings: list[tuple[Card, CardFacts, Card | None]] = []
    sums: dict[tuple[int, str], tuple] = {}      # summons whose materials count together, judged once each
    for card_id, code in pairs:
        card = get_card(state, ev, card_id)
        if card.code == code:
            continue
        facts = state.db.get(code)
        if facts is None:
            impossible(state, ev, "CARD-01", say("no card facts for passcode {code}: the card is unknown", code=code))
        if card.code:
            _shown_as_another(state, ev, card, facts)
        if any(bound is card for bound, _, _ in bindings):
            impossible(state, ev, "LOG-04", say("{card_id} is shown twice in one event", card_id=card_id))
        bindings.append((card, facts, _listed(state, ev, card, facts, bindings)))
        plays = card.unseen_play
        if plays is not None:
            for at in range(0, len(plays), 3):
                index, how, number = plays[at:at + 3]
                if how in _SUM_JUDGED:
                    sums[index, how] = number
                else:
                    _JUDGES[how](state, ev, card, facts, index, how, number)
    if sums:                                     # with every card this event shows named
        shown = {card.id: facts for card, facts, _ in bindings}
        for (index, how), summary in sums.items():
            judge_unseen_sum(state, ev, index, how, summary, shown)
    for card, facts, twin in bindings:
        card.unseen_play = None
        if card.code:                            # a witnessed claim against what was shown (flagged): its old name
            part = _part(state, card)            # goes back on the list the new one comes off
            if part is not None:
                part.append(card.code)
        if twin is not None:                     # the copy the list already gave is this one
            twin.code, twin.facts = 0, state.unknown
        else:
            part = _part(state, card)
            if part is not None and facts.code in part:
                part.remove(facts.code)
        card.code, card.facts = facts.code, facts


def _shown_as_another(state: DuelState, ev: Event, card: Card, facts: CardFacts) -> None:
    """LOG-10: a card shown stays that card. A machine's record refuses an event that shows it as
    another. In a witnessed duel what the table saw stands (``base.call``): the event is kept as
    entered, the card is what it was shown as now, and the broken rule is its flag for the judge
    (in the record, and in the view of whoever knew it as the earlier card: its owner's). A
    refusal would answer the table's recorder, whose view does not hold a hidden card's identity,
    whether the card it named is the one a player's device entered (422 against 200): trying one
    card at a time, it learned each hidden card; accepted either way, it learns nothing it did
    not see, and nothing seen at the table is lost."""
    message = say("{card_id} was shown to be {name} ({code}); a card shown stays that card, it cannot be "
                  "{name2} ({code2}) now", card_id=card.id, name=card.facts.name, code=card.code,
                  name2=facts.name, code2=facts.code)
    if not state.witnessed:
        impossible(state, ev, "LOG-10", message)
    call(state, ev, "LOG-10", message)


#: A card played while the record did not know it is shown: what it is judges each such play now,
#: by how it was played (``Card.unseen_play``): SUM-08/SUM-04 for a monster Normal Summoned or Set,
#: SPELL-03 and ZONE-10 for a Set in a Spell & Trap or Field Zone, XYZ-01 for an Xyz material,
#: PEND-03 (PEND-06, SPS-13) for a monster Pendulum Summoned.
_JUDGES = {"set": judge_unseen_summon, "summon": judge_unseen_summon, "spell_trap": judge_unseen_set,
           "field": judge_unseen_set, "xyz": judge_unseen_material, "pendulum": judge_unseen_pendulum}
#: A Synchro, Link or Ritual material: its summon is judged on all its materials together (SYN-01,
#: LINK-02, RIT-02: a sum, one Tuner), once the last one the record did not know is shown.
_SUM_JUDGED = frozenset(("synchro", "link", "ritual"))


def _part(state: DuelState, card: Card) -> list[int] | None:
    listed = state.sides[card.owner].listed
    return None if listed is None or card.pile not in _PARTS else listed[_PARTS.index(card.pile)]


def _listed(state: DuelState, ev: Event, card: Card, facts: CardFacts,
            bindings: list[tuple[Card, CardFacts, Card | None]]) -> Card | None:
    """Check that ``card`` may be ``facts``: an Extra Deck monster came from the Extra Deck and
    nothing else did (DECK-02/03); a registered decklist still holds it (PEN-02). A copy already
    shown but lying in the same hidden pile (a Deck, a hand) is the same to the record: the
    binding moves to this card, and that one is unknown again (returned)."""
    pile, name = card.pile, f"{facts.name} ({facts.code})"
    if pile == "main" and facts.is_extra_deck:
        fail(state, ev, "DECK-02", say("{id} came from the Main Deck; {name} is an Extra Deck monster",
                                       id=card.id, name=name))
    elif pile == "extra" and not facts.is_extra_deck:
        fail(state, ev, "DECK-03", say("{id} came from the Extra Deck; {name} is not an Extra Deck monster",
                                       id=card.id, name=name))
    part = _part(state, card)
    if part is None:
        return None
    taken = sum(1 for bound, f, twin in bindings if twin is None and f.code == facts.code
                and bound.owner == card.owner and bound.pile == pile)
    if part.count(facts.code) > taken:
        return None
    for other in state.cards.values():
        if (other.code == facts.code and other is not card and other.owner == card.owner and other.pile == pile
                and other.zone == card.zone and _hidden(other) and _hidden(card)
                and not any(bound is other for bound, _, _ in bindings)):
            return other
    deck = N_("Extra Deck") if pile == "extra" else N_("Main Deck")
    if facts.code in _registered(state, card):
        message = say("player {owner}'s registered {deck} holds no more copies of {name} (the decklist was changed, "
                      "or a card was misnamed)", owner=card.owner, deck=deck, name=name)
    else:
        message = say("player {owner}'s registered {deck} holds no {name} (the decklist was changed, or a card was "
                      "misnamed)", owner=card.owner, deck=deck, name=name)
    fail(state, ev, "PEN-02", message)
    return None


def _registered(state: DuelState, card: Card) -> set[int]:
    """The passcodes bound or listed for a card's part of its owner's deck."""
    part = _part(state, card) or []
    return set(part) | {c.code for c in state.cards.values()
                        if c.owner == card.owner and c.pile == card.pile and c.code}


def _hidden(card: Card) -> bool:
    """In a pile nobody but its holder sees (the Deck, a hand, the Extra Deck face-down)."""
    return card.zone in (DECK, HAND) or (card.zone == EXTRA and card.position not in FACE_UP_POSITIONS)


def forget_deck(state: DuelState, player: int) -> None:
    """A Deck shuffled where the recorder could not follow: its cards are unknown again, and each
    identity goes back on the decklist it came from. A card a device named, shuffled in at a paper
    table, is no longer dealt back by the next draw, nor found among the Deck's cards by its owner's
    device (``base.hidden_from_writer`` does not hide its own Deck from it). Nor sealed (LOG-11): a
    seal said which card the id was, which the shuffle hid; kept, the next card drawn opened as
    the card sealed, and its holder's seal of it was flagged "sealed already" (LOG-04)."""
    for card_id in state.sides[player].deck:
        card = state.cards[card_id]
        card.unseen_play = None                  # which card this id is, the shuffle hid: its plays too
        card.seal = None                         # and its seal (LOG-11)
        if card.code and not card.is_token:
            part = _part(state, card)
            if part is not None:
                part.append(card.code)
            card.code, card.facts = 0, state.unknown
            state.unknowns = True


# -- seals ----------------------------------------------------------------------------------------

@handles("cards_sealed")
def cards_sealed(state: DuelState, ev: CardsSealed) -> None:
    """Keep each seal on its card, to be opened later; the board does not change."""
    player = _sealer(state, ev)
    sealing = []
    for card_id, digest in ev.seals:
        card = get_card(state, ev, card_id)
        if not _holds(card, player):
            fail(state, ev, "LOG-11", say("player {player} cannot seal {card_id}: a seal is of a card its sealer "
                                          "holds hidden ({where})",
                                          player=player, card_id=card_id, where=_where(card)))
        if card.seal is not None:
            fail(state, ev, "LOG-04", say("{card_id} is sealed already: a card is sealed once, and its seal opened",
                                          card_id=card_id))
        else:
            sealing.append((card, digest))
    for card, digest in sealing:
        card.seal = [player, digest]


@handles("cards_opened")
def cards_opened(state: DuelState, ev: CardsOpened) -> None:
    """Each card opened must open its seal (LOG-11) and agree with what was shown of it (LOG-10);
    from here on it is that card."""
    player = _sealer(state, ev)
    cards = [get_card(state, ev, opening.card) for opening in ev.cards]
    for card, opening in zip(cards, ev.cards):
        name = card.id
        if card.seal is not None:
            sealer, digest = card.seal
            if sealer != player:
                fail(state, ev, "LOG-11", say("{name} was sealed by player {sealer}: only they open it",
                                              name=name, sealer=sealer))
            elif not opening.nonce:
                fail(state, ev, "LOG-11", say("{name} was sealed: its opening needs the nonce of its seal", name=name))
            elif not seals.opens(digest, opening.code, opening.nonce):
                fail(state, ev, "LOG-11", say("{name} opened as {code} does not open its seal: the card sealed was "
                                              "another, or the nonce is not the seal's", name=name, code=opening.code))
        elif opening.nonce:
            fail(state, ev, "LOG-11", say("{name} has no seal to open (never sealed, or opened already)", name=name))
        elif card.owner != player:
            fail(state, ev, "LOG-11", say("player {player} opens cards of their own; {name} is player {owner}'s",
                                          player=player, name=name, owner=card.owner))
    bind(state, ev, [(opening.card, opening.code) for opening in ev.cards])
    for card in cards:
        card.seal = None


def _sealer(state: DuelState, ev: Event) -> int:
    if ev.player not in (0, 1):
        impossible(state, ev, "LOG-05", say("{kind} needs the player whose device wrote it, 0 or 1", kind=ev.kind))
    return ev.player


def _holds(card: Card, player: int) -> bool:
    """Is ``card`` hidden from the other player and seen by ``player``: their hand, their Deck and
    Extra Deck, their face-down cards on the field or banished?"""
    zone = card.zone
    if zone == HAND:
        return card.controller == player
    if zone in (DECK, EXTRA):
        return card.owner == player
    if zone in (MZONE, SZONE, FZONE):
        return card.controller == player and card.position not in FACE_UP_POSITIONS
    return zone == BANISHED and card.owner == player and card.position not in FACE_UP_POSITIONS


def _where(card: Card) -> str:
    face = "face-up " if card.position in FACE_UP_POSITIONS else ""
    return say("{face}in player {controller}'s {zone}, owned by player {owner}", face=face, controller=card.controller,
               zone=card.zone, owner=card.owner)
