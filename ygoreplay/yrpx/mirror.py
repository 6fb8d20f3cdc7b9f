"""The mirror of EDOPro's field: every card by controller, location and sequence, as the engine
numbers them, so that each message names the right card instance.

Deck cards are *cells* of a shuffle epoch: until the card at a position is seen (drawn, moved,
listed by a state packet), its id may be swapped with another unseen cell's of the same passcode,
so the deck order is whatever makes every draw take the card EDOPro drew.
"""
from __future__ import annotations

import heapq
from typing import Callable

from ..events import BANISHED, DECK, EXTRA, FZONE, GY, HAND, MZONE, OVERLAY, SZONE, Loc
from .constants import (LOCATION_DECK, LOCATION_EXTRA, LOCATION_GRAVE, LOCATION_HAND, LOCATION_MZONE,
                        LOCATION_OVERLAY, LOCATION_REMOVED, LOCATION_SZONE)
from .container import Where

class Cell:
    """One physical position of a deck in one shuffle epoch. Until the card there is seen, its id
    may be swapped with another unseen cell's: the order is whatever makes every draw right."""

    __slots__ = ("id", "seen")

    def __init__(self, card_id: str, seen: bool) -> None:
        self.id = card_id
        self.seen = seen


class _Side:
    __slots__ = ("deck", "hand", "mzone", "szone", "grave", "removed", "extra")

    def __init__(self) -> None:
        self.deck: list[Cell] = []          # EDOPro order: index 0 is the bottom
        self.hand: list[str] = []
        self.mzone: list[str | None] = [None] * 7
        self.szone: list[str | None] = [None] * 8   # 5 is the Field Zone, 6-7 separate P-zones (MR3)
        self.grave: list[str] = []
        self.removed: list[str] = []
        self.extra: list[str] = []


#: The mirror's pile of each of the engine's locations that hold one.
_PILES = {LOCATION_HAND: "hand", LOCATION_GRAVE: "grave", LOCATION_REMOVED: "removed", LOCATION_EXTRA: "extra",
          LOCATION_DECK: "deck"}


class Mirror:
    """EDOPro's field as the stream has built it so far; ``note`` records what does not fit."""

    def __init__(self, note: Callable[[str], None]) -> None:
        self.note = note
        self.ruleset = "mr2020"
        self.code_of: dict[str, int] = {}
        self.sides = [_Side(), _Side()]
        self.overlays: dict[str, list[str]] = {}
        self.tokens = [0, 0]

    def code(self, card_id: str) -> int:
        return self.code_of.get(card_id, 0)

    def pile(self, controller: int, location: int) -> list:
        return getattr(self.sides[controller], _PILES[location])

    def lookup(self, w: Where, code: int = 0) -> str | None:
        """The card at an EDOPro location (an unseen deck card is pinned to ``code`` first)."""
        c, loc, seq = w.controller & 1, w.location, w.sequence
        try:
            if loc & LOCATION_OVERLAY:
                host = self.lookup(Where(c, loc & 0x7F, seq, 0))
                mats = self.overlays.get(host, []) if host else []
                if w.position < len(mats) and (not code or self.code(mats[w.position]) == code):
                    return mats[w.position]
                return next((m for m in mats if self.code(m) == code), mats[w.position] if w.position < len(mats) else None)
            if loc == LOCATION_MZONE:
                return self.sides[c].mzone[seq]
            if loc == LOCATION_SZONE:
                return self.sides[c].szone[seq]
            if loc == LOCATION_DECK:
                cell = self.sides[c].deck[seq]
                if code:
                    self.see(c, cell, code)
                return cell.id
            if loc in (LOCATION_HAND, LOCATION_GRAVE, LOCATION_REMOVED, LOCATION_EXTRA):
                pile = self.pile(c, loc)
                if code and seq < len(pile) and self.code(pile[seq]) != code:
                    self.note(f"the card at {w} is not {code}; matched by passcode")
                    return next((x for x in pile if self.code(x) == code), pile[seq])
                return pile[seq]
        except IndexError:
            pass
        return None

    def see(self, player: int, cell: Cell, code: int) -> None:
        """A deck card shows its passcode: swap ids with another unseen cell when needed."""
        if cell.seen:
            if self.code(cell.id) != code:
                self.note(f"deck card {cell.id} was {self.code(cell.id)} but shows as {code}")
            return
        if self.code(cell.id) != code:
            other = next((x for x in self.sides[player].deck
                          if not x.seen and x is not cell and self.code(x.id) == code), None)
            if other is None:
                self.note(f"no unseen card {code} left in player {player}'s deck")
            else:
                cell.id, other.id = other.id, cell.id
        cell.seen = True

    def see_all(self, player: int, codes: list[int]) -> None:
        """Every unseen card of ``player``'s deck shows its passcode (``codes``, one per cell):
        what ``see`` of each in deck order does, each swap found in a heap of the unseen cells
        holding that passcode instead of a walk of the deck (a Deck listing pins dozens)."""
        deck, code_of = self.sides[player].deck, self.code_of
        unseen = [n for n, cell in enumerate(deck) if not cell.seen]
        holding: dict[int, list[int]] = {}              # passcode -> unseen cells holding it (heaps)
        for n in unseen:
            holding.setdefault(code_of.get(deck[n].id, 0), []).append(n)
        for n in unseen:                                # every unseen cell before n is seen by now
            cell, code = deck[n], codes[n]
            have = code_of.get(cell.id, 0)
            if have != code:
                heap = holding.get(code)
                while heap and (deck[heap[0]].seen or code_of.get(deck[heap[0]].id, 0) != code):
                    heapq.heappop(heap)                 # seen since, or swapped away
                if not heap:
                    self.see(player, cell, code)        # says what is missing
                    continue
                m = heapq.heappop(heap)
                cell.id, deck[m].id = deck[m].id, cell.id
                heapq.heappush(holding.setdefault(have, []), m)
            cell.seen = True

    def remove(self, w: Where, card_id: str) -> None:
        c, loc, seq = w.controller & 1, w.location, w.sequence
        side = self.sides[c]
        if loc & LOCATION_OVERLAY:
            for mats in self.overlays.values():
                if card_id in mats:
                    mats.remove(card_id)
                    return
        elif loc == LOCATION_MZONE:
            side.mzone[seq] = None
        elif loc == LOCATION_SZONE:
            side.szone[seq] = None
        elif loc == LOCATION_DECK:
            deck = side.deck
            if seq < len(deck) and deck[seq].id == card_id:
                del deck[seq]
            else:
                deck[:] = [x for x in deck if x.id != card_id]
        elif loc in (LOCATION_HAND, LOCATION_GRAVE, LOCATION_REMOVED, LOCATION_EXTRA):
            pile = self.pile(c, loc)
            if seq < len(pile) and pile[seq] == card_id:
                del pile[seq]
            elif card_id in pile:
                pile.remove(card_id)

    def place(self, w: Where, card_id: str) -> None:
        c, loc, seq = w.controller & 1, w.location, w.sequence
        side = self.sides[c]
        if loc & LOCATION_OVERLAY:
            host = self.lookup(Where(c, loc & 0x7F, seq, 0))
            if host is None:
                self.note(f"no Xyz monster at {w} to attach {card_id} to")
                return
            self.overlays.setdefault(host, []).append(card_id)
        elif loc == LOCATION_MZONE:
            side.mzone[seq] = card_id
        elif loc == LOCATION_SZONE:
            side.szone[seq] = card_id
        elif loc == LOCATION_DECK:
            side.deck.insert(min(seq, len(side.deck)), Cell(card_id, True))
        elif loc in (LOCATION_HAND, LOCATION_GRAVE, LOCATION_REMOVED, LOCATION_EXTRA):
            pile = self.pile(c, loc)
            pile.insert(min(seq, len(pile)), card_id)

    def our_loc(self, w: Where, card_id: str | None = None) -> Loc:
        """Our location for an EDOPro one (after the card has been placed there)."""
        c, loc, seq = w.controller & 1, w.location, w.sequence
        if loc & LOCATION_OVERLAY:
            return Loc(c, OVERLAY, seq)
        if loc == LOCATION_MZONE:
            return Loc(c, MZONE, seq)
        if loc == LOCATION_SZONE:
            if seq == 5:
                return Loc(c, FZONE, 0)
            # EDOPro's Pendulum Zones are S/T 6 and 7: our 0 and 4, or 5 and 6 where Master Rule 3
            # keeps them separate (ZONE-02, CONF-09).
            return Loc(c, SZONE, ({6: 5, 7: 6} if self.ruleset == "mr3" else {6: 0, 7: 4}).get(seq, seq))
        if loc == LOCATION_DECK:
            return Loc(c, DECK, max(0, len(self.sides[c].deck) - 1 - seq))
        return Loc(c, {LOCATION_HAND: HAND, LOCATION_GRAVE: GY, LOCATION_REMOVED: BANISHED,
                       LOCATION_EXTRA: EXTRA}.get(loc, GY))

    def on_field(self, card_id: str) -> bool:
        for side in self.sides:
            if card_id in side.mzone or card_id in side.szone:
                return True
        return False

    def monster_zone_of(self, card_id: str) -> tuple[int, int] | None:
        for c, side in enumerate(self.sides):
            if card_id in side.mzone:
                return c, side.mzone.index(card_id)
        return None

    def new_token(self, controller: int, code: int) -> str:
        """A Token the engine created: a new id of its own, with its passcode."""
        self.tokens[controller] += 1
        card = f"p{controller}.t{self.tokens[controller]}"
        self.code_of[card] = code
        return card

    def host_of(self, card: str) -> str | None:
        return next((h for h, mats in self.overlays.items() if card in mats), None)

    def card_with_code(self, code: int, player: int | None = None) -> str | None:
        sides = self.sides if player is None else [self.sides[player], self.sides[1 - player]]
        for side in sides:
            for card in list(side.mzone) + list(side.szone):
                if card is not None and self.code(card) == code:
                    return card
        for side in sides:
            for pile in (side.grave, side.removed, side.hand):
                for card in pile:
                    if self.code(card) == code:
                        return card
        return None
