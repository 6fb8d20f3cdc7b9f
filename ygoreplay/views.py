"""Views: what a player or a spectator was allowed to see, derived from the full record.

A record holds everything (deck orders, hands, face-down cards), as a judge sees it. A view is
derived when it is exported or served, never kept as a second log:

* ``judge``: everything;
* ``p0`` / ``p1``: that player's own decklist (not its order), hand and face-down cards, and what
  was public;
* ``spectator``: public information only.

What a view must not give away, and how it does not:

* **Passcodes** of cards the viewer cannot see are masked (0, the hidden card) where decks are
  registered, positions set up and tokens created; each card's passcode is *disclosed* at the
  event that shows it to the viewer (summoned face-up, sent to the GY, revealed, drawn into the
  viewer's own hand...). A player's own decklist travels as a sorted list, not in its order.
* **Card names**: a card's id in the record says where it was registered (``p1.m7`` is the 8th
  card of player 1's list, and lists are written in groups of copies), so a view renames every
  card with a keyed permutation of its pile, and gives a card a fresh name whenever it goes
  where the viewer cannot follow it (shuffled into a Deck, a hidden hand, the Extra Deck face-down): a
  card that left the field cannot be recognised when it comes back face-down. A card the viewer
  knew, put on the top or at the bottom of a Deck, it follows there until that Deck is shuffled.
* **Deck orders** are replaced by a neutral one and committed to with a keyed hash (HMAC-SHA256
  under the duel's secret, which only the judge record and the store hold); ``verify --against``
  proves a judge record matches what a view committed to. Positions inside hidden piles are
  dropped from the events.

Free text (judge notes, rollback reasons, cited effects) is public in every view; card ids inside
it are renamed like the rest.

**Seals** (``cards_sealed``, ``cards_opened``: each player records their own side) are the judge's:
a view keeps the event, with no seal, passcode or nonce in it; what an opening shows the viewer
(a card of its own hand, say) it learns by its disclosures, as from any other event.
"""
from __future__ import annotations

import dataclasses
import hashlib
import hmac
import operator
import re
from typing import Any, Callable, Iterable, Iterator

import msgpack

from .access import TABLE
from .errors import InputError
from .i18n import say
from .cards import HIDDEN_CARD, HIDDEN_NAME, CardDB, CardFacts, CardType
from .events import (
    ID_FIELDS, BANISHED, DECK, EXTRA, FZONE, GY, HAND, MZONE, OVERLAY, SZONE, Activated, CardMoved,
    CardRevealed, CardsDrawn, CardsOpened, CardsSealed, DamageCalculated, DeckRegistered, DeckShuffled, DuelEnded,
    EntryConfirmed, EntryCorrected, EntryDisputed, Event, Loc, Openings, PositionSetUp, RolledBack, Seals,
    SetCardsShuffled, Shows, StatsChanged, TokenCreated, cards_named, from_dict)
from .rules import AuditReport, History, RuleViolation, apply
from .state import Card, DuelState

VIEWS = ("judge", "p0", "p1", "spectator")
_ON_FIELD = frozenset((MZONE, SZONE, FZONE, OVERLAY))
_HIDDEN_PILES = frozenset((DECK, HAND, EXTRA, BANISHED))
_PLAYERS = {"p0": 0, "p1": 1}
#: Everything of a card ``_learn`` decides by that can change (``can_see``'s zone, position and
#: controller; its passcode; its owner is set once, as it is created): a card whose signature did
#: not change since the last event needs no new look.
_SIGNATURE = operator.attrgetter("zone", "position", "controller", "code")


def viewer(view: str) -> int | None:
    """The player a view belongs to (None for judge and spectator)."""
    return _PLAYERS.get(view)


def can_see(view: str, card: Card) -> bool:
    """May this view know the card's identity where it is now? (``Card.seen_by``) A reveal
    shows a card for the moment of the event only (``redact``)."""
    return view == "judge" or card.seen_by(_PLAYERS.get(view))


#: The fields by which an entry of a player's device may name a card of the other player's that
#: it does not see: a face-down card on the field (its place is public) attacked or targeted.
_AIMED_AT = frozenset(("target", "targets"))
#: Kinds ``out_of_sight`` reads though they name no card in their id fields: the monster a damage
#: calculation flips face-up (POS-04), the cards an opening binds and a seal seals, the end,
#: which releases every hidden card (``Access.releases``), and a correction, which puts the cards
#: its entries moved back where they were (a Deck's in their order: ``_puts_back``).
CARDS_ELSEWHERE = frozenset(("damage_calculated", "cards_opened", "cards_sealed", "duel_ended", "entry_corrected"))
_ID_FIELDS_SORTED = tuple(sorted(ID_FIELDS))     # the order ``out_of_sight`` reads them in
_UNSURE: Any = object()            # the attack after a correction in the same append: not known


def out_of_sight(view: str, event: Event, state: DuelState | None, said: dict[str, str] | None = None,
                 earlier: list[Event] | tuple = (),
                 before: Callable[[int], tuple[DuelState, list[Event]]] | None = None) -> str | None:
    """Why an entry a player's device enters (``view``: p0, p1) may not be judged by the full
    record, or None. It may not name a card of the other player's that the player does not see
    at the head (``state``) but as the target of an attack or an effect (a face-down card on the
    field: its place is public), nor show one (``Event.shows``, an opening), seal one, pay one as
    a cost (CHAIN-11) or calculate the damage of an attack on one face-down (which flips it,
    POS-04, BATTLE-12) or attach a material under one (XMAT-01 asks whether it is an Xyz
    monster), nor say the order of a pile it does not see (the cards a draw takes, an index in
    its Deck), nor end the duel but by its own loss (the end releases what the duel hid
    to every reader under its release policy, and nothing undoes it: LOG-12, MATCH-10; a claimed
    win released the other player's hand). The full record's fold knows every such card, and
    what it would answer, keep and show of it (LOG-10 naming a card shown as another, the card
    sent to the GY and so disclosed to the player's view) would tell the player what the card is on its own device's word. At a
    table the player who holds a card shows it: whatever reveals it is entered by the table's
    recorder or by that player's device, who see it. Refused, not kept hidden until confirmed:
    a record holding the card public shows it to every view (the spectators' too, which the
    player may read). A card the head does not hold yet, or one of the player's own, is the
    rules'. Nor take back (a correction, LOG-12) entries that changed its own Deck: the cards they
    showed it (a draw) would go back to their places, and the record's order of its Deck is no
    more the player's than the opponent's (a device drew 35 cards, read them in its hand in order
    and struck the draw: its Deck's order, and nothing left in effect to show it).
    ``earlier``: the append's entries before this one (the attack they declare).
    ``said``: the player's view's name of each record id (``DeviceNames.said``): the reason names
    a card as the device named it, never by its record id. ``before(n)``: the board before event
    ``n``, where a correction goes back to, and the record's events from ``n`` on."""
    me = _PLAYERS.get(view)
    said = said or {}
    if me is None:
        return None
    other = 1 - me
    # judged before the head (a record's first events have none): a duel's first append, ended by
    # the device that entered it, was a win no rollback undoes (MATCH-10) on one player's word
    if isinstance(event, DuelEnded) and event.winner != other:
        if event.winner is None:
            return say("the duel's end releases what it hid, player {other}'s cards with it, and nothing undoes it: "
                       "a player's device enters its own loss only (winner {other}); the table's recorder enters "
                       "a draw", other=other)
        return say("the duel's end releases what it hid, player {other}'s cards with it, and nothing undoes it: "
                   "a player's device enters its own loss only (winner {other}); the table's recorder or player "
                   "{other}'s device enters player {other}'s loss", other=other)
    if state is None:                       # a record's first events: nothing is hidden from its writer yet
        return None
    if isinstance(event, EntryCorrected):
        return _puts_back(me, event, state, earlier, before)
    cards = state.cards
    enters = say("the table's recorder or player {other}'s device, who see it, enter what shows it", other=other)

    def hidden(card_id: Any) -> Card | None:
        card = cards.get(card_id) if isinstance(card_id, str) else None
        return card if card is not None and card.owner != me and not can_see(view, card) else None
    shown = [c for c, _ in event.shows]
    if isinstance(event, CardsOpened):               # an opening binds its cards as ``shows`` does
        shown += [opening.card for opening in event.cards]
    for card_id in shown:
        if hidden(card_id) is not None:
            return say("it shows {card}, a card of player {other}'s that player {me} does not see: a player's "
                       "device shows its own cards", card=said.get(card_id, card_id), other=other, me=me)
    for card_id, _seal in event.seals if isinstance(event, CardsSealed) else ():
        if hidden(card_id) is not None:
            return say("it seals {card}, a card of player {other}'s that player {me} does not see: a player's "
                       "device seals its own cards (LOG-11), and a seal of another's would stop its player's own",
                       card=said.get(card_id, card_id), other=other, me=me)
    if isinstance(event, DamageCalculated):
        target = attack_target(earlier, state)
        if target is _UNSURE:
            return say("it calculates an attack after a correction in the same append: a player's device enters "
                       "that calculation in an append of its own")
        if hidden(target) is not None:
            return say("damage calculation flips {card}, a face-down monster of player {other}'s that player {me} "
                       "does not see, face-up (POS-04, BATTLE-12): {enters}", card=said.get(target, target),
                       other=other, me=me, enters=enters)
    if isinstance(event, CardsDrawn):
        for card_id in event.cards:
            if card_id in cards and not can_see(view, cards[card_id]):
                return say("it names {card} as drawn, a card of a Deck, whose order player {me} does not see: a "
                           "player's device draws the top cards without naming them (the draw shows them)",
                           card=said.get(card_id, card_id), me=me)
    source = event.source if isinstance(event, CardMoved) else None
    if source is not None and source.index is not None and event.card in cards \
            and not can_see(view, cards[event.card]):
        return say("it says where {card} is in a place whose order player {me} does not see: a player's device "
                   "names the card without its index there", card=said.get(event.card, event.card), me=me)
    to = event.to if isinstance(event, CardMoved) else None
    if to is not None and to.zone == OVERLAY and to.controller in (0, 1) and isinstance(to.index, int) \
            and 0 <= to.index <= 6 and hidden(host := state.mzone_card(to.controller, to.index)) is not None:
        return say("it attaches a material under {card}, a face-down monster of player {other}'s that player {me} "
                   "does not see (XMAT-01 asks whether it is an Xyz monster): {enters}", card=said.get(host, host),
                   other=other, me=me, enters=enters)
    for cost in event.costs if isinstance(event, Activated) else ():
        if hidden(cost.card) is not None:
            return say("it pays {card}, a card of player {other}'s that player {me} does not see, as a cost: "
                       "{enters}", card=said.get(cost.card, cost.card), other=other, me=me, enters=enters)
    for name in _ID_FIELDS_SORTED:
        value = getattr(event, name, None)
        for card_id in (value,) if isinstance(value, str) else value if isinstance(value, (list, tuple)) else ():
            card = hidden(card_id)
            if card is None or card.zone in _ON_FIELD and name in _AIMED_AT:
                continue
            return say("it names {card}, a card of player {other}'s that player {me} does not see: a player's "
                       "device names those only as the target of an attack or an effect; {enters}",
                       card=said.get(card_id, card_id), other=other, me=me, enters=enters)
    return None


def _puts_back(me: int, event: EntryCorrected, state: DuelState, earlier: list[Event] | tuple,
               before: Callable[[int], tuple[DuelState, list[Event]]] | None) -> str | None:
    """Why player ``me``'s device may not enter this correction (``out_of_sight``), or None: one
    of the entries it strikes took a card out of its Deck (a draw shows the cards in the order the
    Deck held them), which the correction puts back in its place, as if it had never left (put
    back by later entries first, or not). Judged on the head, so the correction comes first in
    its append (the entries before it could have drawn)."""
    if earlier:
        return say("a correction goes back from the board the device was shown: a player's device enters it "
                   "first in an append")
    if not max(1, state.turn_began) <= event.to < state.index:   # else LOG-12 refuses it
        return None
    if before is None:              # a caller with no board before it to judge by: never let through unjudged
        return say("a correction is judged against the board before the entries it strikes, which this door does "
                   "not read: the table's recorder or a judge corrects those entries")
    back, struck = before(event.to)
    deck = set(back.sides[me].deck)
    history = History(back.db, audit=True, state=back, position=event.to)
    for entry in struck:
        if not deck <= set(history.append(entry).sides[me].deck):
            return say("it takes back entries that took cards out of player {me}'s Deck, whose order player {me} "
                       "does not see: the cards they showed would go back to their places in it; the table's "
                       "recorder or a judge corrects those entries", me=me)
    return None


#: The kinds the fold's history keeps in its book of entries rather than apply (``rules.history``).
_BOOK = (RolledBack, EntryCorrected, EntryConfirmed, EntryDisputed)


def flag_seen(history: History, event: Event, view: str = "spectator") -> bool:
    """Whether ``view`` itself may know that ``event``, which the record's fold ``history`` has
    just applied and flagged (a witnessed duel's rule broken and kept), broke a rule: judged
    again on the board before it as the view knows it (``_as_known``: a card it does not see
    there, ZONE-11..16, is unknown, and so is every registered decklist and Deck order), so a
    rule whose check needs a card the view does not see is undecided, as the view's own fold
    leaves it. The record's verdict on a Set card's Level (SUM-04: a Level 7 Set with no Tribute)
    told a reader who was shown no flag, by a badge, what the Set card is. A rollback's, a
    correction's and a remark's are the book of entries' (public): kept. Conservative: the view's
    own fold may remember more (a card it saw face-up stays known face-down), never less."""
    if isinstance(event, _BOOK):
        return True
    position = history.position - 1
    try:
        state = history.state_before(position)
    except RuleViolation:                    # not held, not restorable: nothing to judge it by
        return False
    _as_known(state, view)
    flags: list = []
    state.index, state.flags, state.violations, state.undecided = position, flags, [], []
    try:
        apply(state, _as_recorded(event, history.state, view))
    except RuleViolation:                    # it cannot be applied to what the view knows
        return False
    except Exception:                        # noqa: BLE001  a board no view folds: no verdict, no badge
        return False                         # (never the append's failure: the index is written with it)
    return any(flag.index == position for flag in flags)


def _as_recorded(event: Event, after: DuelState, view: str) -> Event:
    """``event`` as ``view``'s own record holds it (``recorded_by``), judged on ``after``, the
    record's state once it is applied: a card it shows only where the view sees it then or the
    event shows it to everyone (``_learn``), no stats of a card the view does not see, no Deck
    order, seal, opening of a card it does not see, nor decklist but its own. Applied as the
    record holds it, a Set naming its card (``shows``) put Dark Magician on the board as the
    spectator knows it, and the badge said which card the face-down one is (SUM-04)."""
    def sees(card_id: str) -> bool:
        card = after.cards.get(card_id)
        return card is not None and can_see(view, card)
    shown = set(_shown_by(event))
    changes: dict[str, Any] = {}
    if event.shows:
        changes["shows"] = Shows(pair for pair in event.shows if pair[0] in shown or sees(pair[0]))
    if isinstance(event, StatsChanged) and not sees(event.card):
        changes.update(atk=None, defense=None, level=None)
    elif isinstance(event, DeckShuffled) and event.order:
        changes["order"] = ()
    elif isinstance(event, CardsSealed) and event.seals:
        changes["seals"] = Seals()
    elif isinstance(event, CardsOpened) and event.cards:
        changes["cards"] = Openings()
        changes["shows"] = Shows((*changes.get("shows", ()),
                                  *((o.card, o.code) for o in event.cards if o.code and sees(o.card))))
    elif isinstance(event, DeckRegistered) and event.player != viewer(view):
        changes.update(main=(0,) * len(event.main), extra=(0,) * len(event.extra), side=(0,) * len(event.side),
                       unordered=False)
    return dataclasses.replace(event, **changes) if changes else event


def _as_known(state: DuelState, view: str) -> None:
    """``state`` (a copy) as ``view``'s fold would hold it: each card it may not see where it is
    unknown (passcode 0, no stats set), no decklist and no Deck order known (a view's
    ``deck_registered`` holds none), so every rule that reads one is undecided (``rules.base.fail``)."""
    unknown = state.unknown
    for card in state.cards.values():
        if card.code and not can_see(view, card):
            card.code, card.facts = 0, unknown
            card.atk = card.defense = card.level = None
    for side in state.sides:
        side.listed = None
        side.order_known = False
    state.deck_order_known = False
    state.unknowns = True


def attack_target(earlier: list[Event] | tuple, state: DuelState) -> Any:
    """The monster a damage calculation after ``earlier`` (an append's entries, judged on the
    head ``state``) calculates the attack on: the last attack they declare, else the head's.
    ``_UNSURE`` after a correction among them (the attack is the corrected state's)."""
    for event in reversed(earlier):
        kind = event.kind
        if kind == "attack_declared" or kind == "attack_retargeted":
            return event.target
        if kind == "attack_cancelled":
            return None
        if kind == "entry_corrected" or kind == "rolled_back":
            return _UNSURE
    attack = state.attack
    return attack.target if attack is not None and not attack.calculated else None


def unseen(view: str, event: Event, state: DuelState | None) -> list[str]:
    """The cards an entry of ``view``'s device (p0, p1; the table's recorder, ``access.TABLE``, as
    a spectator) shows, names or cites and that the view does not see at ``state`` (the other
    player's hidden cards, and its own Deck's, whose order it does not see either): what the full
    record's reasons about the entry may tell of them (a card's name, where it is: "Vorse Raider
    is at [0, 'deck', 7]"), the view may not be told."""
    if view == "judge" or state is None:
        return []
    cards, out = state.cards, []
    cause = getattr(event, "cause", None)
    for card_id in (*(c for c, _ in event.shows), *cards_named(event), cause, event.cite.card if event.cite else None):
        card = cards.get(card_id) if isinstance(card_id, str) else None
        if card is not None and not can_see(view, card) and card_id not in out:
            out.append(card_id)
    return out


class DeviceNames:
    """What the card names a player's device, or a witnessed duel's table (``access.TABLE``, its
    recorder), writes stand for in the record.

    A player's view names every card by a name of its own (``_Names``: a keyed permutation of
    each pile, fresh names for a pile it cannot follow), its own cards included; the table's
    (``redactor_of``) the record's ids, fresh names for a pile it cannot follow; its board, its frames and ``/actions`` give those names, and its
    device writes them. ``of`` is that view's
    name of each record id at the head the entry is judged on (``Redactor.names.of``): ``record``
    turns an entry's names into record ids, field by field as ``_renamed`` renames the record
    for the view (the id fields, ``cause``, a ``cite``'s card, the cards ``shows``, ``seals`` and
    an opening name, the ids inside free text), and refuses a name the view does not know with
    the same words whatever it is: a record id it was never given says nothing of the record.
    A card the entry itself creates (a Token) takes a fresh record id, and the append's later
    entries name it as its creation did; a set-up position names the cards it creates. ``said``
    turns record ids back into the view's names (answers)."""

    def __init__(self, view: str, of: dict[str, str]) -> None:
        self.view = view
        self.said = of
        self.meant = {name: card_id for card_id, name in of.items()}
        self.made: dict[str, str] = {}           # a card the entries create: its record id -> its name

    def say(self, text: str) -> str:
        """``text`` (a reason of the rules) with each record id the view's name of the card."""
        return ID_IN_TEXT.sub(lambda m: self.said.get(m.group(0)) or self.made.get(m.group(0)) or m.group(0), text)

    def refused(self, text: str, hidden: list[str]) -> str:
        """Why the rules refused an entry, as the device is told: ``say``, or, when the entry
        names ``hidden`` cards (``unseen``), no more than that the record's reason is the judge's
        (it may say what such a card is: its name, where it is)."""
        if not hidden:
            return self.say(text)
        named = ", ".join(self.said.get(c, "?") for c in hidden)
        if self.view == TABLE:
            return say("the rules refuse it as the record stands: it names {named}, a card the table does not see, "
                       "so the reason is the judge's (their view says it)", named=named)
        me = _PLAYERS[self.view]
        return say("the rules refuse it as the record stands: it names {named}, a card that player {player} does "
                   "not see, so the reason is the judge's (their view says it)", named=named, player=me)

    def record(self, event: Event, index: int, in_use: Any = ()) -> Event:
        """``event`` as the device meant it, in record ids (InputError naming the field and the
        name the view does not know). ``in_use``: the record ids a new card may not take."""
        if isinstance(event, PositionSetUp):
            return event
        data = event.to_dict()
        new_card = None
        if isinstance(event, TokenCreated) and event.card not in self.meant:     # the card it creates
            new_card = _fresh_id(event.card, in_use, self.meant, self.made)
            self.made[new_card] = event.card
            self.meant[event.card] = new_card      # the append's later entries name it so
            data = {k: v for k, v in data.items() if k != "card"}
        out = self._in(data, "", "", event, index)
        if new_card is not None:
            return from_dict({**out, "card": new_card})
        return from_dict(out) if out is not data else event

    def _name(self, name: Any, where: str, event: Event, index: int) -> Any:
        card_id = self.meant.get(name) if isinstance(name, str) else None
        if card_id is None and self.view == TABLE:
            raise InputError(say("event {index} ({kind}): {where} names {name!r}, which is no card the table's view "
                                 "knows: the table's recorder names each card as its board, its frames and /actions "
                                 "name it; nothing was written", index=index, kind=event.kind, where=where,
                                 name=str(name)[:64]))
        if card_id is None:
            raise InputError(say("event {index} ({kind}): {where} names {name!r}, which is no card {view}'s view "
                                 "knows: a player's device names each card as its own view names it (its board, its "
                                 "frames, /actions); nothing was written", index=index, kind=event.kind, where=where,
                                 name=str(name)[:64], view=self.view))
        return card_id

    def _in(self, value: Any, key: str, where: str, event: Event, index: int) -> Any:
        if value.__class__ in _NO_IDS:
            return value
        if isinstance(value, dict):
            if key in ("shows", "seals") or (key == "cards" and where == "cards"):   # keyed by card id
                return {self._name(k, f"{where}[{k[:64] if isinstance(k, str) else k!r}]", event, index):
                        self._in(v, "", f"{where}.{k}", event, index) for k, v in value.items()}
            out = {k: self._in(v, k, f"{where}.{k}" if where else k, event, index) for k, v in value.items()}
            return value if all(out[k] is value[k] for k in value) else out
        if isinstance(value, list):
            out = [self._in(v, key, f"{where}[{i}]", event, index) for i, v in enumerate(value)]
            return value if all(a is b for a, b in zip(out, value)) else out
        if isinstance(value, str):
            if key in ID_FIELDS or (key == "cause" and value in self.meant):
                return self._name(value, where, event, index)
            if key in _TEXT_FIELDS or key == "cause":      # a cause may be words ("scapegoat")
                text = ID_IN_TEXT.sub(lambda m: self._name(m.group(0), where, event, index), value)
                return value if text == value else text
        return value


def _fresh_id(name: str, in_use: Any, names: dict[str, str], made: dict[str, str]) -> str:
    """A record id for a card a player's device creates: its own name's stem and the first number
    free in the record (``in_use``), among the view's names and among the cards the append made
    before it (Scapegoat's four Tokens: four ids)."""
    stem = name[:2] if re.match(r"p[01]\.", name) else "p0"
    number = 1
    while f"{stem}.dev{number}" in in_use or f"{stem}.dev{number}" in names or f"{stem}.dev{number}" in made:
        number += 1
    return f"{stem}.dev{number}"


def commitment(key: bytes, index: int, player: int, order: list) -> bytes:
    """A keyed hash of a hidden deck order: binding for the record, hiding for the view."""
    return hmac.new(key, msgpack.packb(["ygoreplay/commitment", index, player, order]), hashlib.sha256).digest()


@dataclasses.dataclass
class Redaction:
    events: list[Event]
    disclosures: list[list]          # [event index, view's card id, passcode]
    commitments: list[list]          # [event index, player, digest]
    renames: list[list]              # [event index, old view ids, new view ids], both sorted
    decklist: dict[str, list[int]]   # the viewer's own registered cards, sorted
    codes: set[int]                  # every passcode the view may carry


class _Names:
    """The view's name for every card of the record, the cards whose identity the view knows,
    and the undo log that keeps both in step with judge rollbacks (the view's own fold restores
    its state the same way, so both sides agree on every name)."""

    def __init__(self, key: bytes, view: str) -> None:
        self.key, self.view = key, view
        self.of: dict[str, str] = {}             # record id -> view id
        self.known: set[str] = set()             # record ids whose identity the view knows
        self.fresh = 0                           # fresh names handed out (never reused)
        self.tokens = [0, 0]
        self.undo: list[tuple[int, str, Any]] = []   # (index, record id, old name or _KNOWN/_UNKNOWN)

    def name(self, index: int, card_id: str, name: str) -> None:
        self.undo.append((index, card_id, self.of.get(card_id, _ABSENT)))
        self.of[card_id] = name

    def learn(self, index: int, card_id: str) -> None:
        self.undo.append((index, card_id, _UNKNOWN))
        self.known.add(card_id)

    def forget(self, index: int, card_id: str) -> None:
        self.undo.append((index, card_id, _KNOWN))
        self.known.discard(card_id)

    def roll_back(self, to: int) -> set[str]:
        """Undo what the reverted events did to the names; the cards the view saw in them (it
        cannot unsee them: a pile holding one must be mixed again)."""
        seen = set()
        while self.undo and self.undo[-1][0] >= to:
            _index, card_id, old = self.undo.pop()
            if old is _UNKNOWN:
                seen.add(card_id)
            if old is _KNOWN:
                self.known.add(card_id)
            elif old is _UNKNOWN:
                self.known.discard(card_id)
            elif old is _ABSENT:
                self.of.pop(card_id, None)
            else:
                self.of[card_id] = old
        return seen

    def _keyed(self, ids: list[str], salt: Any) -> list[str]:
        """``ids`` sorted by the HMAC of ``["ygoreplay/name", view, salt, id]`` (msgpack): the key
        and the first three items are hashed once, each id only on a copy of that, packed by one
        packer (a 60-card Deck is named at once)."""
        pack = msgpack.Packer().pack                # what ``msgpack.packb`` does, its packer made once
        keyed = hmac.new(self.key, b"\x94" + pack("ygoreplay/name") + pack(self.view) + pack(salt),
                         hashlib.sha256)
        copy = keyed.copy

        def order(card_id: str) -> bytes:
            mac = copy()
            mac.update(pack(card_id))
            return mac.digest()
        return sorted(ids, key=order)

    def permuted(self, index: int, ids: list[str], pattern: str) -> None:
        """Name ``ids`` ``pattern % rank`` in an order only the key decides."""
        for rank, card_id in enumerate(self._keyed(ids, pattern)):
            self.name(index, card_id, pattern % rank)

    def token(self, index: int, card_id: str, owner: int) -> None:
        self.tokens[owner] += 1
        self.name(index, card_id, f"p{owner}.t{self.tokens[owner]}")

    def mix(self, index: int, owner: int, ids: list[str]) -> list:
        """Fresh names for the cards of one hidden pile, dealt in an order only the key decides:
        the view learns that the pile was mixed, never which new name an old one became."""
        old = sorted(self.of[c] for c in ids)
        new = [f"p{owner}.h{self.fresh + i + 1}" for i in range(len(ids))]
        self.fresh += len(ids)
        for card_id, name in zip(self._keyed(ids, self.fresh), new):
            self.name(index, card_id, name)
        return [index, old, sorted(new)]


    def deal(self, index: int, owner: int, before: dict[int, str], after: dict[int, str]) -> list:
        """Fresh names for Set cards shuffled in place (``set_cards_shuffled`` as a view that
        may not follow them shows it: nobody moves). The view's fold pairs the sorted old names
        with the sorted new ones; the card in each zone now, whichever it is, takes the name the
        zone's old card gets there, so the view cannot tell which card went where."""
        at = {zone: self.of[card] for zone, card in before.items()}
        olds = sorted(at.values())
        news = sorted(f"p{owner}.h{self.fresh + i + 1}" for i in range(len(olds)))
        self.fresh += len(olds)
        given = dict(zip(olds, news))
        for zone, card in after.items():
            self.name(index, card, given[at[zone]])
            if card in self.known:
                self.forget(index, card)
        return [index, olds, news]


_ABSENT, _KNOWN, _UNKNOWN = object(), object(), object()


class _Kept(_Names):
    """The table's names (``access.TABLE``, ``redactor_of``). The table enters the duel (its
    decks, its Tokens), so each card keeps the record's id as it is created: what the table
    appends names cards as the record does. It must still not follow a card through what it did
    not see, so the cards of a hidden pile, once mixed, are named anew as a spectator's view
    names them (``_Names.mix``/``deal``)."""

    def permuted(self, index: int, ids: list[str], pattern: str) -> None:
        for card_id in ids:
            self.name(index, card_id, card_id)

    def token(self, index: int, card_id: str, owner: int) -> None:
        self.name(index, card_id, card_id)


class _Ids(_Kept):
    """A viewer's own record keeps the record's card ids: it has nothing to hide from itself, and
    a card it lost track of is simply unknown to it (``recorded_by``)."""

    def mix(self, index: int, owner: int, ids: list[str]) -> list:
        return [index, sorted(ids), sorted(ids)]

    def deal(self, index: int, owner: int, before: dict[int, str], after: dict[int, str]) -> list:
        for card in after.values():
            if card in self.known:
                self.forget(index, card)
        return [index, sorted(before.values()), sorted(before.values())]


#: How a view names the record's cards: ``fresh`` names only its key decides (a view to share),
#: the ``record``'s own ids (a viewer's own record, ``recorded_by``), or the ``table``'s (the
#: record's ids, a mixed hidden pile named anew).
NAMINGS: dict[str, type[_Names]] = {"fresh": _Names, "record": _Ids, "table": _Kept}


@dataclasses.dataclass
class ViewStep:
    """What one event of the record becomes in a view: the event as the view has it, and what
    the view learns, loses track of and is committed to at that event."""

    index: int
    event: Event
    disclosures: list[list]
    renames: list[list]
    commitments: list[list]
    codes: set[int]                  # passcodes the view may carry from this event on (new ones)


class Redactor:
    """Derives a view of a record event by event (a live duel is redacted as it is recorded):
    ``feed`` each event of the full record, in order; ``redaction`` holds the view so far."""

    def __init__(self, cards: CardDB, view: str, key: bytes, *, naming: str = "fresh",
                 full_scan: bool = False, own: str | None = None) -> None:
        if view not in VIEWS:
            raise ValueError(f"unknown view {view!r} (views: {', '.join(VIEWS)})")
        self.view = view
        self.key = key
        self.redaction = Redaction([], [], [], [], {}, set(cards) if view == "judge" else set())
        self.history = History(cards, audit=True)
        # ``naming`` (``NAMINGS``): fresh names, the record's ids (``recorded_by``), or the table's
        # (``redactor_of``)
        self.names = NAMINGS[naming](key, view)
        # What ``_learn`` last looked at, so the next event looks only at what changed since (see
        # ``_Looked``); ``full_scan``: look at every card at every event (the tests' reference).
        self.looked: _Looked | None = None
        self.full_scan = full_scan
        #: Whose entries are the viewer's own (``Event.entered_by``; the table's recorder's): a card
        #: one of them shows, the viewer typed itself, and knows as long as it can follow it.
        self.own = own

    def feed(self, event: Event) -> ViewStep:
        out, history, names, view, key = self.redaction, self.history, self.names, self.view, self.key
        index = len(out.events)
        if view == "judge":
            out.events.append(event)
            return ViewStep(index, event, [], [], [], set())
        counts = (len(out.disclosures), len(out.renames), len(out.commitments))
        codes = set(out.codes)
        before = history.state
        existing = set(before.cards)
        decks = [list(side.deck) for side in before.sides]
        masked = _neutral_order(event, index, before, key, out)
        again: list[tuple[str, int]] = []
        shuffled = _hidden_shuffle(event, before, view)
        if shuffled is not None:                   # listed in zone order, each staying where it was
            masked = dataclasses.replace(masked, cards=tuple(shuffled.values()), zones=tuple(shuffled))
        was = {c: before.cards[c].code for c, _ in event.shows if c in before.cards} if event.shows else None
        history.append(event)
        state = history.state
        seen = set()
        went_back = history.went_back(index)      # a judge's rollback, or a correction of a mis-entry
        if went_back is not None:
            seen = names.roll_back(went_back)
        added = state.cards.keys() - existing        # most events create no card
        new = [cid for cid in state.cards if cid in added] if added else []
        masked = _name_new_cards(masked, index, key, state, new, view, names, out)
        if isinstance(masked, StatsChanged):           # the stats of a card it cannot see say what it is
            card = state.cards.get(masked.card)
            if card is not None and not can_see(view, card) and masked.card not in names.known:
                masked = dataclasses.replace(masked, atk=None, defense=None, level=None)
        if masked.shows:                           # what it shows, the view learns by its disclosures
            again = _shown_again(state, names, was)
            masked = dataclasses.replace(masked, shows=Shows())
        if isinstance(masked, CardsSealed) and masked.seals:   # seals and openings are the judge's:
            masked = dataclasses.replace(masked, seals=Seals())    # what an opening shows the view,
        elif isinstance(masked, CardsOpened) and masked.cards:   # it learns by its disclosures
            masked = dataclasses.replace(masked, cards=Openings())
        view_event = _renamed(masked, names.of)
        if again:
            view_event = dataclasses.replace(view_event, shows=Shows(sorted((names.of[c], code) for c, code in again)))
            out.codes.update(code for _, code in again)
        if isinstance(view_event, DeckShuffled):      # neutral: sorted by the view's own names
            view_event = dataclasses.replace(view_event, order=tuple(sorted(view_event.order)))
        out.events.append(view_event)
        shown = set(_shown_by(event))
        if event.shows and self.own is not None and event.entered_by == self.own:
            shown.update(card_id for card_id, _code in event.shows)
        made = set(new)                            # created here: not known, nothing to lose track of
        mixed_decks = {p for p in (0, 1)          # a Deck as it was (the common case) took no card in
                       if state.sides[p].deck != decks[p] and not set(state.sides[p].deck) - made <= set(decks[p])
                       or (isinstance(event, DeckShuffled) and event.player == p)}
        unfollowed = _shuffled_decks(event, state, decks, made) if mixed_decks else set()
        lost = _lost_places(event, state, decks, names.known) if names.known else set()
        looked = _Looked(state)
        if self.looked is None or went_back is not None or self.full_scan:
            _learn(index, state, view, names, shown, mixed_decks, out, seen, looked.chained, unfollowed, lost)
        else:
            _learn(index, state, view, names, shown, mixed_decks, out, seen, looked.chained, unfollowed, lost,
                   *looked.changed_since(self.looked, shown))
        self.looked = looked
        if shuffled is not None:
            first = state.cards[event.cards[0]]
            row = state.sides[first.controller].mzone if first.zone == MZONE else state.sides[first.controller].szone
            dealt = {z: row[z] for z in shuffled}
            out.renames.append(names.deal(index, first.controller, shuffled, dealt))
            looked.pending.update(dealt.values())        # ``deal`` may have forgotten them
        return ViewStep(index, view_event, out.disclosures[counts[0]:], out.renames[counts[1]:],
                        out.commitments[counts[2]:], out.codes - codes)


def _shown_again(state: DuelState, names: _Names, was: dict[str, int]) -> list[tuple[str, int]]:
    """What of an event's ``shows`` its view keeps (the rest it learns by its disclosures): a
    card it knew before the event, shown by a witnessed duel's entry as another than it was
    (LOG-10, ``rules.identity``: what the table saw stands). Kept as shown, the view's own fold
    finds the card shown as another and flags it (its owner's device sees the flag the judge does,
    and the table's claim, to dispute it, LOG-02); a view that did not know the card learns it
    by its disclosures, as it would the card named right: no flag, nothing told."""
    return [(c, state.cards[c].code) for c, code in was.items()
            if code and c in names.known and c in state.cards and state.cards[c].code not in (0, code)]


def redactor_of(view: str, cards: CardDB, key: bytes) -> Redactor:
    """What derives ``view`` (``VIEWS``, or the table's, ``access.TABLE``) from the record, with
    the duel's secret ``key``: every face that reads a view, or turns its names into record ids
    (``DeviceNames``), derives it here. The table's is the spectator's redaction in the record's
    ids but where the spectator's view names a hidden pile's cards anew as it is mixed (``_Kept``:
    a card the table saw, back in the hand and Set by its player's device, is no card the table can
    tell), knowing too what the recorder's own entries named (a Trap it named as it was Set: its
    page offers to activate it)."""
    if view == TABLE:
        return Redactor(cards, "spectator", key, naming="table", own="recorder")
    return Redactor(cards, view, key)


def redact(events: list[Event], cards: CardDB, view: str, key: bytes) -> Redaction:
    """Derive ``view`` of a full record (the judge's events), with the duel's secret ``key``."""
    redactor = Redactor(cards, view, key)
    for event in events:
        redactor.feed(event)
    return redactor.redaction


def recorded_by(events: list[Event], cards: CardDB, view: str) -> list[Event]:
    """The record ``view``'s viewer would have written of the duel: what it saw, in the record's
    own card ids; a card it cannot see is unknown (passcode 0), and each event names the cards it
    shows the viewer (``Event.shows``); Deck orders are not known (a shuffle names none, a draw
    names the cards drawn). Folded, it checks every rule its information decides: a spectator's
    record of a duel is the duel a scorekeeper at the table records."""
    if view == "judge":
        return list(events)
    redactor = Redactor(cards, view, b"", naming="record")
    out = []
    known: dict[str, int] = {}      # cards the viewer knew as they were registered (its Extra Deck)
    for event in events:
        existing = set(redactor.history.state.cards)
        step = redactor.feed(event)
        mine = step.event
        if isinstance(mine, DeckShuffled):
            mine = dataclasses.replace(mine, order=())
        elif isinstance(mine, DeckRegistered) and viewer(view) == mine.player:
            mine = dataclasses.replace(mine, main=tuple(event.main), extra=tuple(event.extra),
                                       side=tuple(event.side),     # a list naming every card
                                       unordered=0 not in (*event.main, *event.extra, *event.side))
        shows = dict(mine.shows)       # a card it knew shown as another (``_shown_again``)
        shows.update((card_id, code) for _, card_id, code in step.disclosures if card_id in existing and code)
        if isinstance(mine, DeckRegistered):
            known.update((card_id, code) for _, card_id, code in step.disclosures if code)
        # Its own record registered them as a decklist, which names no card id: the first event
        # that names one shows it.
        shows.update((card_id, known.pop(card_id)) for card_id in cards_named(mine) if card_id in known)
        out.append(dataclasses.replace(mine, shows=Shows(sorted(shows.items()))) if shows else mine)
    return out


def _shown_by(event: Event) -> tuple[str, ...]:
    """Cards an event shows to everyone for that moment only: a reveal, an activation."""
    if isinstance(event, CardRevealed):
        return event.cards
    if isinstance(event, Activated):
        return (event.card,)
    return ()


def _neutral_order(event: Event, index: int, before: DuelState, key: bytes, out: Redaction) -> Event:
    """Deck orders become commitments; a draw names the drawn cards (the view cannot find them
    on top of a Deck whose order it does not know); positions in hidden piles are dropped."""
    if isinstance(event, DeckShuffled):
        player = event.player
        out.commitments.append([index, player, commitment(key, index, player, list(event.order))])
        return dataclasses.replace(event, seed=None)
    if isinstance(event, CardsDrawn) and not event.cards:
        player = before.turn_player if event.player is None else event.player
        if player in (0, 1):
            return dataclasses.replace(event, cards=tuple(before.sides[player].deck[:event.count]))
    source = getattr(event, "source", None)
    if isinstance(source, Loc) and source.zone in _HIDDEN_PILES and source.index is not None:
        return dataclasses.replace(event, source=Loc(source.controller, source.zone))
    return event


def _name_new_cards(event: Event, index: int, key: bytes, state: DuelState, new: list[str],
                    view: str, names: _Names, out: Redaction) -> Event:
    """Name the cards an event creates, and mask the passcodes the view may not see."""
    me = viewer(view)
    if isinstance(event, DeckRegistered):            # masked even when refused: it names the cards
        player = event.player
        names.permuted(index, [c for c in new if state.cards[c].zone == DECK], f"p{player}.m%d")
        names.permuted(index, [c for c in new if state.cards[c].zone == EXTRA], f"p{player}.x%d")
        decklist = [list(event.main), list(event.extra), list(event.side)]
        out.commitments.append([index, player, commitment(key, index, player, decklist)])
        if player == me:
            out.decklist = {part: sorted(c for c in getattr(event, part) if c)     # 0: not known to it either
                            for part in ("main", "extra", "side")}
            out.codes.update(event.main, event.extra, event.side)
        return dataclasses.replace(event, main=(0,) * len(event.main), extra=(0,) * len(event.extra),
                                   side=(0,) * len(event.side), unordered=False)
    if isinstance(event, PositionSetUp):
        if not new:                                  # refused: nothing was placed, nothing shown
            return dataclasses.replace(event, sides=tuple(_all_hidden(side) for side in event.sides))
        for owner in (0, 1):
            names.permuted(index, [c for c in new if state.cards[c].owner == owner], f"p{owner}.s%d")
        return _masked_set_up(event, index, key, state, new, view, names, out)
    if isinstance(event, TokenCreated) and new:
        for card_id in new:                      # created face-up: public
            names.token(index, card_id, state.cards[card_id].owner)
            out.codes.add(state.cards[card_id].code)
    return event


#: The order ``rules.setup._Builder`` creates a set-up side's cards in (an Xyz monster before its
#: materials), so the n-th card spec is the n-th new card.
_SETUP_ORDER = (DECK, HAND, GY, BANISHED, EXTRA, MZONE, SZONE, FZONE)


def _masked_set_up(event: PositionSetUp, index: int, key: bytes, state: DuelState, new: list[str],
                   view: str, names: _Names, out: Redaction) -> PositionSetUp:
    ids = iter(new)
    me = viewer(view)
    sides = []
    for player, side in enumerate(event.sides):
        masked: dict[str, Any] = {}
        # Cards get their ids in the order the rules create them, whatever the keys' order.
        for zone in sorted(side, key=lambda z: _SETUP_ORDER.index(z) if z in _SETUP_ORDER else -1):
            value = side[zone]
            if zone == "lp":
                masked[zone] = value
            elif isinstance(value, list):
                masked[zone] = [None if v is None else _masked_spec(v, state, ids, view, names) for v in value]
            else:
                masked[zone] = None if value is None else _masked_spec(value, state, ids, view, names)
        sides.append(masked)
        deck = [state.cards[cid].code for cid in state.sides[player].deck]
        out.commitments.append([index, player, commitment(key, index, player, deck)])
        if player == me:
            out.decklist = {"main": sorted(deck), "extra": [], "side": []}
            out.codes.update(deck)
    return dataclasses.replace(event, sides=tuple(sides))


def _all_hidden(side: dict) -> dict:
    def hide(spec: Any) -> Any:
        return None if spec is None else {"code": 0}
    return {zone: value if zone == "lp" else [hide(v) for v in value] if isinstance(value, list) else hide(value)
            for zone, value in side.items()}


def _masked_spec(spec: Any, state: DuelState, ids: Iterator[str], view: str, names: _Names) -> dict:
    """One card of a set-up position, named for the view, its passcode masked when hidden."""
    data = {"code": spec} if isinstance(spec, int) else dict(spec)
    card_id = next(ids)
    card = state.cards[card_id]
    data["id"] = names.of[card_id]
    if not can_see(view, card):
        data["code"] = 0
        for hidden in ("token", "atk", "defense", "level"):
            data.pop(hidden, None)
    if "materials" in data:
        data["materials"] = [_masked_spec(m, state, ids, view, names) for m in data["materials"]]
    return data


def _hidden_shuffle(event: Event, state: DuelState, view: str) -> dict[int, str] | None:
    """The zones and cards of a shuffle of Set cards the view may not follow (it does not control
    them), as they are before it, in zone order; None for any other event."""
    if not isinstance(event, SetCardsShuffled) or not event.cards:
        return None
    cards = [state.cards.get(c) for c in event.cards]
    if any(c is None or c.zone not in (MZONE, SZONE) for c in cards) or viewer(view) == cards[0].controller:
        return None
    return dict(sorted((state.location(c).index, c.id) for c in cards))


class _Looked:
    """What one event's ``_learn`` decided by: each card's signature, the chain's cards, and the
    cards whose ``names.known`` changed after it (``deal``). After ``_learn`` looked at every card,
    no card is left for it to disclose or forget until one of its inputs changes: its signature,
    its being a link of the chain, its being known or named (only ``_learn`` itself, ``deal``,
    naming new cards and a rollback change those; after a rollback every card is looked at
    again), or its being shown by the event. So looking again at only those cards, and forgetting
    only the known cards that ceased to exist, does what looking at every card does."""

    __slots__ = ("ids", "signatures", "chained", "pending")

    def __init__(self, state: DuelState) -> None:
        cards = state.cards
        self.ids = list(cards)
        self.signatures = list(map(_SIGNATURE, cards.values()))
        self.chained = {link.card for link in state.chain}
        self.pending: set[str] = set()

    def changed_since(self, last: _Looked, shown: set[str]) -> tuple[list[str], set[str]]:
        """The cards to look at again (new or changed, joined or left the chain, shown, pending),
        in the state's order, and the cards that ceased to exist."""
        if self.ids == last.ids:                   # the common case: no card came or went
            if self.signatures == last.signatures:
                changed = set()
            else:
                changed = {card_id for card_id, now, was in zip(self.ids, self.signatures, last.signatures)
                           if now != was}
            gone: set[str] = set()
        else:
            now, was = dict(zip(self.ids, self.signatures)), dict(zip(last.ids, last.signatures))
            changed = {card_id for card_id, signature in now.items() if was.get(card_id) != signature}
            gone = was.keys() - now.keys()
        changed |= self.chained ^ last.chained
        changed |= shown
        changed |= last.pending
        # in the state's order, as looking at every card goes (the ids are a dict's keys: each once)
        return ([card_id for card_id in self.ids if card_id in changed] if changed else []), gone


def _shuffled_decks(event: Event, state: DuelState, decks: list[list[str]], made: set[str]) -> set[int]:
    """The Decks whose order nobody follows any more after ``event`` (ZONE-11): one shuffled, or
    that took in a card with no place named (shuffled in). A card put on the top or at the bottom
    (a ``card_moved`` naming that place, not ``shuffled``) leaves the order followed: a card known
    there stays known there, and so does one put at a named place in between ("the 3rd from the
    top", "into the Deck, not shuffled"): the view inserts it at that very place
    (``_lost_places``)."""
    if isinstance(event, DeckShuffled):
        return {event.player}
    placed = (event.card if isinstance(event, CardMoved) and event.to.zone == DECK and event.to.index is not None
              and event.reason != "shuffled" else None)
    return {p for p in (0, 1) if any(c != placed for c in set(state.sides[p].deck) - made - set(decks[p]))}


def _lost_places(event: Event, state: DuelState, decks: list[list[str]], known: set[str]) -> set[str]:
    """ZONE-11: the known cards of a Deck that lost a card (a draw, a mill, a card taken) and lay
    neither on its top nor at its bottom: the view's own Deck is in no true order but where it
    knows a card, so the card it took out, named, may lie on the other side of one of these there
    (its top and its bottom stay where they are). Where each is now, nobody tells the view: lost."""
    lost: set[str] = set()
    for p, before in enumerate(decks):
        after = state.sides[p].deck
        if len(before) <= 2:
            continue
        taken = isinstance(event, CardMoved) and event.card in before      # out of it, if back in it too
        if taken or len(after) < len(before) or (len(after) == len(before) and after != before
                                                 and not set(before) <= set(after)):
            lost.update(c for c in before[1:-1] if c in known and c in after)
    return lost


def _learn(index: int, state: DuelState, view: str, names: _Names, shown: set[str],
           mixed_decks: set[int], out: Redaction, seen: set[str], chained: set[str], shuffled: set[int],
           lost: set[str] = frozenset(), only: list[str] | None = None, gone: set[str] | None = None) -> None:
    """What the view learns at this event (disclosures), and which hidden piles it must lose
    track of: a Deck that was shuffled or took a card in, and any hidden pile a card the view
    knew went into, or that holds a card shown by events a rollback just reverted (what the
    viewer saw stays seen). A card the view knows stays known on the field (everyone sees it
    turned face-down), while it is a link of the open chain (everyone saw it activated), and in
    a Deck it was put in at a named place (the top, the bottom, the 3rd from the top) until that Deck
    is ``shuffled``, or, put in between, until a card is taken out of it (``_lost_places``) (ZONE-11:
    its owner's draw takes it to a hand, where the view loses it as any card there). A card the
    view did not know learns nothing by going there.
    ``chained``: the cards of the open chain. ``only``/``gone``: look only at these cards (in the
    state's order), and for known ones gone only if some card ceased to exist (``_Looked``); None:
    at every card."""
    disclosed = []
    piles: set[tuple[int, str]] = {(p, DECK) for p in mixed_decks}
    cards, of, known = state.cards, names.of, names.known
    for p in shuffled:                         # a shuffle moves no card: no signature changed
        for card_id in state.sides[p].deck:
            if card_id in known:
                names.forget(index, card_id)
    for card_id in sorted(lost):               # its place in a Deck no longer told (``_lost_places``)
        if card_id in known and not can_see(view, cards[card_id]):
            names.forget(index, card_id)
            piles.add(_pile(cards[card_id]))
    if only is None:
        looked: Iterable[tuple[str, Card]] = cards.items()
    else:
        looked = [(card_id, cards[card_id]) for card_id in only]
    for card_id, card in looked:
        if card_id not in of:
            continue
        lasting = can_see(view, card)
        followed = card_id in known                # known before: followed to where it is
        if not followed and card.code:             # a card the record itself does not know is not shown
            if lasting or card_id in shown:
                disclosed.append([index, of[card_id], card.code])
                out.codes.add(card.code)
                names.learn(index, card_id)
        if card_id in known and not lasting and card.zone not in _ON_FIELD and card_id not in chained \
                and (card.zone != DECK or not followed or card.owner in shuffled):
            names.forget(index, card_id)           # gone where the viewer cannot follow it
            piles.add(_pile(card))
    if gone is None or gone:
        for card_id in [c for c in known if c not in cards]:   # a token that ceased to exist
            names.forget(index, card_id)
    for card_id in seen:                           # shown by events a rollback reverted
        card = cards.get(card_id)
        if card is not None and card.zone in _HIDDEN_PILES and card_id not in known \
                and not can_see(view, card):
            piles.add(_pile(card))
    # Sorted by name, so not even the order of one event's entries follows the record's ids.
    out.disclosures += sorted(disclosed, key=lambda row: row[1])
    for owner, zone in sorted(piles):
        members = [cid for cid in _pile_ids(state, owner, zone)
                   if cid not in known and not can_see(view, cards[cid])]
        if members:
            out.renames.append(names.mix(index, owner, members))


def _pile(card: Card) -> tuple[int, str]:
    return (card.controller if card.zone == HAND else card.owner), card.zone


def _pile_ids(state: DuelState, player: int, zone: str) -> list[str]:
    side = state.sides[player]
    return {DECK: side.deck, HAND: side.hand, EXTRA: side.extra, BANISHED: side.banished}[zone]


# -- renaming card ids inside events -----------------------------------------------------------

_TEXT_FIELDS = frozenset(("description", "note", "reason", "judge", "effect", "cause"))
ID_IN_TEXT = re.compile(r"p[01]\.[A-Za-z_]*\d+")


#: Values that hold no card id (exactly these classes: a subclass goes the long way).
_NO_IDS = frozenset((int, bool, float, type(None)))


def _renamed(event: Event, of: dict[str, str]) -> Event:
    """The event with every card id the record uses replaced by the view's name for it."""
    if not of:
        return event
    data = event.to_dict()
    changed = _rename_in(data, of)
    return from_dict(changed) if changed is not data else event


def _rename_in(value: Any, of: dict[str, str], key: str = "") -> Any:
    if value.__class__ in _NO_IDS:                 # most of an event: passcodes, counts, flags
        return value
    if isinstance(value, dict):
        out = {k: _rename_in(v, of, k) for k, v in value.items()}
        return value if all(out[k] is value[k] for k in value) else out
    if isinstance(value, list):
        out = [_rename_in(v, of, key) for v in value]
        return value if all(a is b for a, b in zip(out, value)) else out
    if isinstance(value, str):
        if value in of and (key in ID_FIELDS or key == "cause"):
            return of[value]
        if key in _TEXT_FIELDS:
            text = ID_IN_TEXT.sub(lambda m: of.get(m.group(0), m.group(0)), value)
            return value if text == value else text
    return value


def view_cards(cards: CardDB, codes: set[int]) -> CardDB:
    """The card facts a view may carry (never one it could not see)."""
    return cards.subset(c for c in codes if c in cards and c != 0)


# -- folding a view -----------------------------------------------------------------------------

#: Stand-ins for the hidden cards of a view's set-up position, so the rules can place them (a
#: face-down monster must be a monster, a Set Field Spell a Field Spell); hidden again once placed.
_STAND_INS = {
    MZONE: CardFacts(code=0x7FFFFFF0, name=HIDDEN_NAME, type=int(CardType.MONSTER | CardType.FUSION)),
    EXTRA: CardFacts(code=0x7FFFFFF0, name=HIDDEN_NAME, type=int(CardType.MONSTER | CardType.FUSION)),
    FZONE: CardFacts(code=0x7FFFFFF1, name=HIDDEN_NAME, type=int(CardType.SPELL | CardType.FIELD)),
}
_STAND_IN_CODES = frozenset(f.code for f in _STAND_INS.values())


def foldable(event: Event) -> Event:
    """The event as a view's fold takes it: a set-up position's hidden cards get stand-ins."""
    return _with_stand_ins(event) if isinstance(event, PositionSetUp) else event


def _with_stand_ins(event: PositionSetUp) -> PositionSetUp:
    def stand_in(spec: Any, zone: str) -> Any:
        if isinstance(spec, dict) and spec.get("code") == 0:
            return {**spec, "code": _STAND_INS[zone].code}
        return spec

    sides = []
    for side in event.sides:
        side = dict(side)
        for zone in (MZONE, EXTRA):
            if isinstance(side.get(zone), list):
                side[zone] = [stand_in(spec, zone) for spec in side[zone]]
        if FZONE in side:
            side[FZONE] = stand_in(side[FZONE], FZONE)
        sides.append(side)
    return dataclasses.replace(event, sides=tuple(sides))


class ViewReplay:
    """Folds a view's events: disclosures give cards their identity at the event that shows
    them, renames give the cards of a mixed pile the fresh names the view knows them by.

    ``steps()``/``states()`` fold the events given; ``prepare`` and ``advance`` fold one more
    (a live view)."""

    def __init__(self, events: list[Event], cards: CardDB, disclosures: list[list],
                 renames: list[list] | None = None, deck_order_known: bool = False) -> None:
        self.events = list(events)
        self.deck_order_known = deck_order_known      # a judge record's is; a view's never
        self.cards = cards.merged(CardDB([HIDDEN_CARD, *{f.code: f for f in _STAND_INS.values()}.values()]))
        self.shown: dict[int, list[tuple[str, int]]] = {}
        self.renamed: dict[int, list[tuple[list, list]]] = {}
        self._learn(disclosures, renames or ())
        self._history: History | None = None

    def _learn(self, disclosures: Iterable[list], renames: Iterable[list]) -> None:
        for index, card_id, code in disclosures:
            self.shown.setdefault(index, []).append((card_id, code))
        for index, old, new in renames:
            self.renamed.setdefault(index, []).append((old, new))

    def _show(self, index: int, state: DuelState) -> None:
        for card_id, code in self.shown.get(index, ()):
            card = state.cards.get(card_id)
            if card is not None and code and code in self.cards:
                card.code, card.facts = code, self.cards[code]

    def _settle(self, index: int, state: DuelState) -> None:
        """After an event: the cards it created that it shows, stand-ins hidden again, renames."""
        self._show(index, state)
        if isinstance(self.events[index], PositionSetUp):
            for card in state.cards.values():
                if card.code in _STAND_IN_CODES:
                    card.code, card.facts = 0, state.unknown
        for olds, news in self.renamed.get(index, ()):        # one hidden pile mixed
            for old, new in zip(olds, news):
                if old in state.cards and new not in state.cards:
                    card = state.rename_card(old, new)
                    card.code, card.facts = 0, state.unknown

    def _start(self) -> DuelState:
        start = DuelState(self.cards)
        start.deck_order_known = self.deck_order_known
        start.unknowns = True                         # a view is a record of what its viewer saw
        return start

    def _restart(self, _position: int) -> DuelState:
        """The start as a rollback to it finds it: the start packed and unpacked, as ``History``
        would have kept it (packed only when needed: a rollback is rare, and every view's first
        step packed its start, #25)."""
        return DuelState.from_data(msgpack.unpackb(msgpack.packb(self._start().to_data())), self.cards)

    def _new_history(self) -> History:
        return History(self.cards, audit=True, state=self._start(), before=self._show, after=self._settle,
                       restore=self._restart, restorable=True)

    def _walk(self, after: bool) -> Iterator[tuple[int, Event, DuelState]]:
        history = self._new_history()
        for index, event in enumerate(self.events):
            if not after:
                self._show(index, history.state)            # shown by this very event
                yield index, event, history.state
            history.append(foldable(event))
            if after:
                yield index, event, history.state

    def folded(self) -> History:
        """The view's history after all its events (its flags and book of entries, a witnessed duel's)."""
        history = self._new_history()
        for event in self.events:
            history.append(foldable(event))
        return history

    def steps(self) -> Iterator[tuple[int, Event, DuelState]]:
        """(index, event, state just before it, with the cards this event shows already named)."""
        return self._walk(after=False)

    def states(self) -> Iterator[DuelState]:
        """The view's state after each event (the same object, changed in place)."""
        return (state for _, _, state in self._walk(after=True))

    def audit(self) -> AuditReport:
        """The view's rules checked as far as it knows: it is a record of what its viewer saw, so
        every rule its information decides is called, and one that needs a card it does not
        know is undecided (``rules.base.fail``), never guessed."""
        history = self._new_history()
        for event in self.events:
            history.append(foldable(event))
        history.state.violations = None
        return AuditReport(history, len(self.events))

    def prepare(self, step: "ViewStep", cards: CardDB | None = None) -> DuelState:
        """Take in a live view's next step (``Redactor.feed``); the state just before its event,
        with the cards it shows named (what a log line describes). ``advance`` then folds it."""
        if cards is not None and len(cards):
            self.cards = self.cards.merged(cards)
        if self._history is None:
            self._history = self._new_history()
        self._history.cards = self._history.state.db = self.cards
        self.events.append(step.event)
        self._learn(step.disclosures, step.renames)
        self._show(len(self.events) - 1, self._history.state)
        return self._history.state

    def advance(self) -> DuelState:
        """Fold the event the last ``prepare`` took in; the state after it."""
        assert self._history is not None
        event = self.events[-1]
        self._history.append(foldable(event))
        return self._history.state


def public_board(state: DuelState, view: str) -> tuple:
    """What ``view`` sees of a board: identities only where it may know them, counts elsewhere."""
    def show(card_id: str | None) -> Any:
        if card_id is None:
            return None
        card = state.cards[card_id]
        return (card.code if can_see(view, card) else 0, card.position)

    def pile(ids: list[str]) -> list:               # a pile's order is no one's: compare it sorted
        return sorted((show(c) for c in ids), key=lambda entry: (entry[0], entry[1] or ""))

    sides = []
    for side in state.sides:
        sides.append((side.lp, len(side.deck), pile(side.hand),
                      tuple(show(c) for c in side.mzone), tuple(show(c) for c in side.szone),
                      show(side.fzone), tuple(show(c) for c in side.gy),
                      pile(side.banished), pile(side.extra)))
    chain = tuple((link.player, show(link.card), link.speed) for link in state.chain)
    return (tuple(sides), tuple(show(c) for c in state.emz), state.turn, state.turn_player,
            state.phase, state.step, chain, state.ended, state.winner)
