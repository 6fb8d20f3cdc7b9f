"""Views: what a player or a spectator was allowed to see, derived from the full record.

A record holds everything (deck orders, hands, face-down cards), as a judge sees it. A view is
derived at export time, never kept as a second log:

* ``judge``: everything;
* ``p0`` / ``p1``: that player's own decklist, hand and face-down cards, and what was public;
* ``spectator``: public information only.

Events name cards by instance id and carry passcodes only where decks are registered, positions
set up and tokens created, so redaction is small: those passcodes are masked (0, the hidden card)
where the viewer could not see them, every deck order is replaced by a neutral one, and each card's
passcode is *disclosed* at the event that shows it to the viewer (summoned face-up, sent to the GY,
revealed, drawn into the viewer's own hand…). Each hidden deck order is committed to with a keyed
hash; ``verify_against`` proves a judge record matches what a view committed to.
"""
from __future__ import annotations

import dataclasses
import hashlib
from typing import Any, Iterator

import msgpack

from .cards import HIDDEN_CARD, HIDDEN_NAME, CardDB, CardFacts, CardType
from .events import (
    BANISHED, DECK, EXTRA, FZONE, GY, HAND, MZONE, OVERLAY, SZONE, CardsDrawn, DeckRegistered,
    DeckShuffled, Event, PositionSetUp)
from .rules import History
from .state import Card, DuelState

VIEWS = ("judge", "p0", "p1", "spectator")


def _viewer(view: str) -> int | None:
    """The player a view belongs to (None for judge and spectator)."""
    return {"p0": 0, "p1": 1}.get(view)


def can_see(view: str, card: Card) -> bool:
    """May this view know the card's identity where it is now? (ZONE-11..16, POS-04)"""
    if view == "judge" or card.revealed:
        return True
    me = _viewer(view)
    zone = card.zone
    if zone == GY or zone == OVERLAY:
        return True
    if zone == MZONE or zone == SZONE or zone == FZONE:
        return card.face_up or card.controller == me
    if zone == BANISHED or zone == EXTRA:
        return card.face_up or card.owner == me
    if zone == HAND:
        return card.controller == me
    return False                                   # the Deck: its order is nobody's business


def commitment(key: bytes, index: int, player: int, order: list) -> bytes:
    """A keyed hash of a hidden deck order: binding for the record, hiding for the view."""
    return hashlib.sha256(key + msgpack.packb([index, player, order])).digest()


@dataclasses.dataclass
class Redaction:
    events: list[Event]
    disclosures: list[list]          # [event index, card id, passcode]
    commitments: list[list]          # [event index, player, digest]
    codes: set[int]                  # every passcode the view may carry


def redact(events: list[Event], cards: CardDB, view: str, key: bytes) -> Redaction:
    """Derive a view of a full record (the judge's events) for ``view``."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r} (views: {', '.join(VIEWS)})")
    history = History(cards, audit=True)
    me = _viewer(view)
    known: set[str] = set()
    out = Redaction([], [], [], set())
    for index, event in enumerate(events):
        before = history.state
        event = _redact_event(event, index, before, view, me, key, out)
        seen = set(history.state.cards)
        history.append(events[index])
        state = history.state
        if view == "judge":
            out.events.append(events[index])
            continue
        new = [cid for cid in state.cards if cid not in seen]
        event = _mask_new_cards(event, index, key, state, new, view, me, known, out)
        out.events.append(event)
        for card_id, card in state.cards.items():
            if card_id not in known and can_see(view, card):
                known.add(card_id)
                out.disclosures.append([index, card_id, card.code])
                out.codes.add(card.code)
    if view == "judge":
        out.codes = set(cards)
    return out


def _redact_event(event: Event, index: int, before: DuelState, view: str, me: int | None,
                  key: bytes, out: Redaction) -> Event:
    """Neutral deck orders (with commitments) and explicit drawn cards, for any non-judge view."""
    if view == "judge":
        return event
    if isinstance(event, DeckShuffled):
        player = event.player
        out.commitments.append([index, player, commitment(key, index, player, list(event.order))])
        return dataclasses.replace(event, order=tuple(sorted(event.order)), seed=None)
    if isinstance(event, CardsDrawn) and not event.cards:
        player = before.turn_player if event.player is None else event.player
        if player in (0, 1):
            return dataclasses.replace(event, cards=tuple(before.sides[player].deck[:event.count]))
    return event


#: The order ``rules.setup._Builder`` creates a set-up side's cards in (an Xyz monster before its
#: materials), so the n-th card spec is the n-th new card.
_SETUP_ORDER = (DECK, HAND, GY, BANISHED, EXTRA, MZONE, SZONE, FZONE)


def _mask_new_cards(event: Event, index: int, key: bytes, state: DuelState, new: list[str],
                    view: str, me: int | None, known: set[str], out: Redaction) -> Event:
    """Mask the passcodes of cards an event creates that the view may not see."""
    if isinstance(event, DeckRegistered):
        if event.player == me:
            known.update(new)
            out.codes.update(event.main, event.extra, event.side)
            return event
        # The masked decklist is the deck's hidden order until a shuffle: commit to it too.
        decklist = [list(event.main), list(event.extra), list(event.side)]
        out.commitments.append([index, event.player, commitment(key, index, event.player, decklist)])
        return dataclasses.replace(event, main=(0,) * len(event.main), extra=(0,) * len(event.extra),
                                   side=(0,) * len(event.side))
    if isinstance(event, PositionSetUp):
        ids = iter(new)
        sides = []
        for player, side in enumerate(event.sides):
            masked = dict(side)
            # Cards get their ids in the order the rules create them, whatever the keys' order.
            for zone in sorted(side, key=lambda z: _SETUP_ORDER.index(z) if z in _SETUP_ORDER else -1):
                value = side[zone]
                if zone == "lp":
                    masked[zone] = value
                elif isinstance(value, list):
                    masked[zone] = [None if v is None else _mask_spec(v, state, ids, view, known, out)
                                    for v in value]
                elif value is not None:
                    masked[zone] = _mask_spec(value, state, ids, view, known, out)
                else:
                    masked[zone] = None
            sides.append(masked)
            deck = [state.cards[cid].code for cid in state.sides[player].deck]
            out.commitments.append([index, player, commitment(key, index, player, deck)])
        return dataclasses.replace(event, sides=tuple(sides))
    for cid in new:                                  # tokens: created face-up, public
        known.add(cid)
        out.codes.add(state.cards[cid].code)
    return event


def _mask_spec(spec: Any, state: DuelState, ids: Iterator[str], view: str, known: set[str],
               out: Redaction) -> dict:
    """One card of a set-up position, with its id made explicit and its passcode masked if hidden."""
    data = {"code": spec} if isinstance(spec, int) else dict(spec)
    card_id = next(ids)
    card = state.cards[card_id]
    data["id"] = card_id
    if can_see(view, card):
        known.add(card_id)
        out.codes.add(card.code)
    else:
        data["code"] = 0
        data.pop("token", None)
    if "materials" in data:
        data["materials"] = [_mask_spec(m, state, ids, view, known, out) for m in data["materials"]]
    return data


def view_cards(cards: CardDB, codes: set[int]) -> CardDB:
    """The card facts a view may carry (never one it could not see)."""
    return cards.subset(c for c in codes if c in cards and c != 0)


#: Stand-ins for the hidden cards of a view's set-up position, so the rules can place them (a
#: face-down monster must be a monster, a Set Field Spell a Field Spell); hidden again once placed.
_STAND_INS = {
    MZONE: CardFacts(code=0x7FFFFFF0, name=HIDDEN_NAME, type=int(CardType.MONSTER | CardType.FUSION)),
    EXTRA: CardFacts(code=0x7FFFFFF0, name=HIDDEN_NAME, type=int(CardType.MONSTER | CardType.FUSION)),
    FZONE: CardFacts(code=0x7FFFFFF1, name=HIDDEN_NAME, type=int(CardType.SPELL | CardType.FIELD)),
}


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
    """Folds a view's events: disclosures give cards their identity at the event that shows them."""

    def __init__(self, events: list[Event], cards: CardDB, disclosures: list[list]) -> None:
        self.events = events
        self.cards = cards.merged(CardDB([HIDDEN_CARD, *{f.code: f for f in _STAND_INS.values()}.values()]))
        self.by_index: dict[int, list[tuple[str, int]]] = {}
        for index, card_id, code in disclosures:
            self.by_index.setdefault(index, []).append((card_id, code))

    def _walk(self, after: bool) -> Iterator[tuple[int, Event, DuelState]]:
        history = History(self.cards, audit=True)
        history.state.deck_order_known = False
        for index, event in enumerate(self.events):
            for card_id, code in self.by_index.get(index, ()):    # shown by this very event
                card = history.state.cards.get(card_id)
                if card is not None and code in self.cards:
                    card.code, card.facts = code, self.cards[code]
            if not after:
                yield index, event, history.state
            if isinstance(event, PositionSetUp):
                history.append(_with_stand_ins(event))
                for card in history.state.cards.values():
                    if card.code in (_STAND_INS[MZONE].code, _STAND_INS[FZONE].code):
                        card.code, card.facts = 0, self.cards[0]
            else:
                history.append(event)
            history.state.deck_order_known = False
            if after:
                yield index, event, history.state

    def steps(self) -> Iterator[tuple[int, Event, DuelState]]:
        """(index, event, state just before it, with the cards this event shows already named)."""
        return self._walk(after=False)

    def states(self) -> Iterator[DuelState]:
        """The view's state after each event (the same object, changed in place)."""
        return (state for _, _, state in self._walk(after=True))


def public_board(state: DuelState, view: str) -> tuple:
    """What ``view`` sees of a board: identities only where it may know them, counts elsewhere."""
    def show(card_id: str | None) -> Any:
        if card_id is None:
            return None
        card = state.cards[card_id]
        return (card.code if can_see(view, card) else 0, card.position)

    sides = []
    for side in state.sides:
        sides.append((side.lp, len(side.deck), sorted(show(c) for c in side.hand),
                      tuple(show(c) for c in side.mzone), tuple(show(c) for c in side.szone),
                      show(side.fzone), tuple(show(c) for c in side.gy),
                      sorted(show(c) for c in side.banished), sorted(show(c) for c in side.extra)))
    chain = tuple((link.player, show(link.card), link.speed) for link in state.chain)
    return (tuple(sides), tuple(show(c) for c in state.emz), state.turn, state.turn_player,
            state.phase, state.step, chain, state.ended, state.winner)
