"""An imported duel checked against the engine: our fold's board beside EDOPro's own state packets.

A ``.yrpX`` holds, besides the game messages, the server's state queries: MSG_UPDATE_DATA for a
whole location, MSG_UPDATE_CARD for one card (about 83% of its packets). They are what the real
engine held, unredacted (a replay is the server's record: face-down cards keep their passcodes),
so they are the truth an import is measured against. At every state packet the board our rules
fold built from the events emitted so far (the events whose first source packet comes before
it, ``ImportResult.sources``, or is that state packet itself: the server refreshes a Flip Summoned
monster just before MSG_FLIPSUMMONING) is compared with what the packet lists, and nothing else:

* each Monster Zone (0-4, and the Extra Monster Zones 5-6 as the engine numbers them per player),
  Spell & Trap Zone, the Field Zone and Master Rule 3's separate Pendulum Zones: the card's
  passcode and position, or empty;
* the hand (its cards), the Deck (its cards, in order) and the Extra Deck (its face-down and its
  face-up cards): the whole-location packets list them all;
* one card arriving in the Graveyard or banishment (the server queries each as it arrives, never
  the whole pile): the card at that place in the pile, so contents and order are both checked
  (ZONE-13), and for a banished card whether it is face-up (ZONE-15); one card arriving in a
  hand, Deck or Extra Deck: that the pile holds a card with that passcode.

Each of these is one *zone compared*; the agreement figure is zones agreeing over zones compared.
Layouts: ygopro-core ``card.cpp get_infos`` and ``ocgapi.cpp OCG_DuelQueryLocation`` (an empty
slot is ``u16 0``), EDOPro ``gframe/generic_duel.cpp RefreshLocation/RefreshSingle`` and
``core_utils.cpp`` (``yrpx.card_slots`` reads them; the race item is 4 bytes before core 10 and 8
from it, read by its size like every item). The engine's Field Zone is S/T 5, its separate
Pendulum Zones S/T 6 and 7.

The comparison runs beside the fold, never inside it: ``check`` folds the events once, auditing
as ``rules.audit`` does, and reads the state between events, so the audit and the check cost one
fold. The same packet bytes seen again with no event in between give the same verdicts, which
are counted again without comparing twice (the server refreshes the same zones many times).
"""
from __future__ import annotations

import operator
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from ..cards import unnamed
from ..events import ATTACK, DEFENSE, FACEDOWN, FACEDOWN_ATTACK, FACEUP, SET
from ..rules import AuditReport, History
from ..state import DuelState
from .constants import (
    LOCATION_DECK, LOCATION_EXTRA, LOCATION_GRAVE, LOCATION_HAND, LOCATION_MZONE, LOCATION_REMOVED,
    LOCATION_SZONE, MSG_UPDATE_CARD, MSG_UPDATE_DATA, MSG_WIN, POS_FACEDOWN_ATTACK, POS_FACEUP,
    POS_FACEUP_ATTACK, POS_FACEUP_DEFENSE)
from .container import Packet
from .messages import Query, Slot, card_slots

if TYPE_CHECKING:
    from ..importing import ImportResult

#: Divergences kept per file (all of them are counted).
KEEP = 20


@dataclass(frozen=True, slots=True)
class Divergence:
    """One zone where our board differs from the engine's: where, when, and both sides."""

    packet: int                    # index in ``replay.packets`` of the state packet
    event: int                     # events folded when it was compared
    turn: int
    player: int
    zone: str                      # "mzone 2", "szone 4", "fzone", "gy 3", "hand", "deck" ...
    engine: str
    ours: str

    def to_dict(self) -> dict:
        return {"packet": self.packet, "event": self.event, "turn": self.turn, "player": self.player,
                "zone": self.zone, "engine": self.engine, "ours": self.ours}

    def __str__(self) -> str:
        return (f"packet {self.packet} (turn {self.turn}, after {self.event} events): player {self.player}'s "
                f"{self.zone}: engine {self.engine}, ours {self.ours}")


@dataclass
class EngineAgreement:
    """How an import's board agrees with the engine's state packets, zone by zone."""

    packets: int = 0               # state packets compared
    zones: int = 0                 # zones compared
    agreeing: int = 0
    divergences: list[Divergence] = field(default_factory=list)   # the first ``KEEP``

    @property
    def differing(self) -> int:
        return self.zones - self.agreeing

    @property
    def ok(self) -> bool:
        return self.agreeing == self.zones

    @property
    def first(self) -> Divergence | None:
        return self.divergences[0] if self.divergences else None

    @property
    def ratio(self) -> float:
        return self.agreeing / self.zones if self.zones else 1.0

    def to_dict(self) -> dict:
        first = self.first
        return {"packets": self.packets, "zones": self.zones, "zones_agreeing": self.agreeing,
                "agreement": round(self.ratio, 6), "first_divergence": first.to_dict() if first else None}

    def __str__(self) -> str:
        figure = f"{self.agreeing}/{self.zones} zones agree with the engine ({100 * self.ratio:.3f}%)"
        return figure if self.ok else f"{figure}; first divergence: {self.first}"


def check(result: "ImportResult") -> tuple[EngineAgreement, AuditReport]:
    """Fold the import's events (auditing) and compare the board with every state packet up to
    the duel's end (MSG_WIN); the audit report of the same fold comes back with the figures.
    An import made with ``import_yrpx(..., check=True)`` was compared in its own fold: that
    comparison is given (once), if its events, sources and cards are still the ones it folded."""
    kept = result.replay.checked
    if kept is not None:
        result.replay.checked = None
        events, sources, cards, figures = kept
        if (cards is result.cards and sources == result.sources and len(events) == len(result.events)
                and all(map(operator.is_, events, result.events))):
            return figures
    history = History(result.cards, audit=True)
    events = result.events
    return compare(result, history, lambda k: history.append(events[k]))


def compare(result: "ImportResult", history: History, fold: Callable[[int], object]) -> tuple[EngineAgreement, AuditReport]:
    """``check``'s fold: ``fold(k)`` folds event ``k`` into ``history`` (the importer's citing
    fold, or a plain one), and the board is compared with each state packet between.

    A packet already compared with the same board (the same bytes, no event since) is counted
    here, in the loop: half of a duel's state packets are such repeats; so is one that agrees
    with the board as a whole (most of the others). Only one that differs is compared zone by
    zone (``_Comparer.differs``)."""
    events, sources = result.events, result.sources
    agreement = EngineAgreement()
    compare = _Comparer(history, agreement, result.replay.slots, result.replay.card_queries)
    seen_data, seen_card = compare.seen[MSG_UPDATE_DATA], compare.seen[MSG_UPDATE_CARD]
    parsed_of, parse = compare.parsed.get, compare.parse
    packets = zones = agreeing = 0
    k, n = 0, len(events)
    due = sources[0] if n else _NEVER                         # the packet of the next event to fold
    state = history.state
    started, board = state.started, state.index              # the board changes only when events are folded
    for index, packet in enumerate(result.replay.packets):
        pid = packet[0]
        if pid == MSG_UPDATE_DATA:
            seen = seen_data
        elif pid == MSG_UPDATE_CARD:
            seen = seen_card
        elif pid == MSG_WIN:
            break
        else:
            continue
        if due <= index:
            while k < n and sources[k] <= index:
                fold(k)
                k += 1
            due = sources[k] if k < n else _NEVER
            state = history.state
            started, board = state.started, state.index
        if not started:
            continue
        payload = packet[1]
        again = seen.get(payload)
        if again is not None and again[0] == board:             # the same packet, the same board
            packets += 1
            zones += again[1]
            agreeing += again[2]
            continue
        parsed = parsed_of(payload) or parse(packet)
        view, ours = parsed[4], parsed[6]
        if ours is not None and ours(state, parsed[0], view, parsed[2]) == view:
            count = parsed[5]                                   # it agrees: one comparison
            packets += 1
            zones += count
            agreeing += count
            seen[payload] = (board, count, count)
        else:
            compare.differs(index, packet, parsed)
    while k < n:
        fold(k)
        k += 1
    agreement.packets += packets
    agreement.zones += zones
    agreement.agreeing += agreeing
    history.state.violations = None
    return agreement, AuditReport(history, n)


_NEVER = float("inf")


def summary(checks: list[EngineAgreement]) -> dict:
    """Totals over many files: files agreeing everywhere, zones agreeing."""
    zones = sum(c.zones for c in checks)
    agreeing = sum(c.agreeing for c in checks)
    return {"files": len(checks), "files_agreeing": sum(c.ok for c in checks), "zones": zones,
            "zones_agreeing": agreeing, "agreement": round(agreeing / zones, 6) if zones else 1.0}


# -- comparing ---------------------------------------------------------------------------------

_MONSTER = ((POS_FACEUP_ATTACK, ATTACK), (POS_FACEDOWN_ATTACK, FACEDOWN_ATTACK), (POS_FACEUP_DEFENSE, DEFENSE))


def _monster_position(pos: int) -> str:
    for bit, name in _MONSTER:
        if pos & bit:
            return name
    return SET


Card = tuple[int, str | None] | None            # (passcode, position) as compared; None is empty


class _Comparer:
    """Compares one state packet at a time with the fold's state as it is then.

    A packet's bytes are read once (``parse``) and what the engine says is kept as it is
    compared (``_engine_view``); our side is built from the state each time. A packet equal to
    ours counts its zones in one comparison (in ``engine_check.compare``'s loop); one that
    differs is compared zone by zone (``differs``), which records the divergences."""

    def __init__(self, history: History, out: EngineAgreement, slots: dict[bytes, list[Slot]],
                 queries: dict[bytes, tuple]) -> None:
        self.history = history
        self.out = out
        self.slots = slots                 # MSG_UPDATE_DATA slots the importer already read, by payload
        self.queries = queries             # MSG_UPDATE_CARD queries the importer already read, by payload
        self.parsed: dict[bytes, tuple[int, int, int | None, list[Slot], Any, int]] = {}
        # payload -> (events folded, zones, agreeing), one dict per message id
        self.seen: dict[int, dict[bytes, tuple[int, int, int]]] = {MSG_UPDATE_DATA: {}, MSG_UPDATE_CARD: {}}
        self.index = 0

    def parse(self, packet: Packet) -> tuple:
        """A state packet read (``card_slots``, or the importer's reading) and kept as compared
        (``_engine_view``)."""
        payload = packet.payload
        if packet.id == MSG_UPDATE_DATA:
            read = self.slots.get(payload)
            head = (payload[0], payload[1], None, read) if read is not None else None
        else:
            query = self.queries.get(payload)
            head = (payload[0], payload[1], payload[2], _card_slot(payload, query[3])) if query is not None else None
        parsed = self.parsed[payload] = _engine_view(*(head or card_slots(packet)))
        return parsed

    def differs(self, index: int, packet: Packet, parsed: tuple) -> None:
        """Compare, zone by zone, a packet that does not agree with this board as a whole (or
        that no single comparison covers): ``compare`` counts each zone and keeps the divergences."""
        out, state = self.out, self.history.state
        out.packets += 1
        self.index = index
        zones, agreeing = out.zones, out.agreeing
        player, location, seq, slots = parsed[:4]
        self.compare(state, player, location, seq, slots)
        self.seen[packet.id][packet.payload] = (state.index, out.zones - zones, out.agreeing - agreeing)

    def compare(self, state: DuelState, player: int, location: int, seq: int | None, slots: list[Slot]) -> None:
        side = state.sides[player]
        cards = state.cards
        if seq is None:                                          # a whole location
            if location == LOCATION_MZONE:
                for s, slot in enumerate(slots):
                    self.monster(state, player, s, slot)
            elif location == LOCATION_SZONE:
                for s, slot in enumerate(slots):
                    self.spell_trap(state, player, s, slot)
            elif location == LOCATION_HAND:
                self.verdict(player, "hand", sorted(s[0] for s in slots if s),
                             sorted(cards[c].code for c in side.hand))
            elif location == LOCATION_DECK:                       # the engine lists it bottom first
                self.verdict(player, "deck", [s[0] for s in reversed(slots) if s],
                             [cards[c].code for c in side.deck])
            elif location == LOCATION_EXTRA:
                self.verdict(player, "extra", _extra((s[0], s[1] & POS_FACEUP) for s in slots if s),
                             _extra((cards[c].code, cards[c].position == FACEUP) for c in side.extra))
            elif location == LOCATION_GRAVE:                      # after MSG_SWAP_GRAVE_DECK
                self.verdict(player, "gy", [s[0] for s in slots if s], [cards[c].code for c in side.gy])
            return
        slot = slots[0] if slots else None
        if location == LOCATION_MZONE:
            self.monster(state, player, seq, slot)
        elif location == LOCATION_SZONE:
            self.spell_trap(state, player, seq, slot)
        elif location == LOCATION_GRAVE:
            ours = side.gy[seq] if seq < len(side.gy) else None
            self.verdict(player, f"gy {seq}", (slot[0], None) if slot else None,
                         (cards[ours].code, None) if ours else None)
        elif location == LOCATION_REMOVED:
            ours = side.banished[seq] if seq < len(side.banished) else None
            self.verdict(player, f"banished {seq}",
                         (slot[0], FACEUP if slot[1] & POS_FACEUP else FACEDOWN) if slot else None,
                         (cards[ours].code, cards[ours].position) if ours else None)
        elif location in _PILES and slot is not None:
            name, pile = _PILES[location], getattr(side, _PILES[location])
            held = any(cards[c].code == slot[0] for c in pile)
            self.verdict(player, f"{name} (a card arriving)", ("holds", slot[0]),
                         ("holds" if held else "lacks", slot[0]))

    def monster(self, state: DuelState, player: int, seq: int, slot: Slot) -> None:
        if seq >= 7:
            return
        self.verdict(player, f"mzone {seq}", (slot[0], _monster_position(slot[1])) if slot else None,
                     self.card(state, _monster_at(state, player, seq)))

    def spell_trap(self, state: DuelState, player: int, seq: int, slot: Slot) -> None:
        if seq >= 8:
            return
        zone = f"szone {seq}" if seq < 5 else "fzone" if seq == 5 else "pzone " + ("left" if seq == 6 else "right")
        self.verdict(player, zone, (slot[0], FACEUP if slot[1] & POS_FACEUP else SET) if slot else None,
                     self.card(state, _spell_trap_at(state, player, seq)))

    @staticmethod
    def card(state: DuelState, card_id: str | None) -> Card:
        if card_id is None:
            return None
        card = state.cards[card_id]
        return card.code, card.position

    def verdict(self, player: int, zone: str, engine: Any, ours: Any) -> None:
        out = self.out
        out.zones += 1
        if engine == ours:
            out.agreeing += 1
            return
        if len(out.divergences) < KEEP:
            state = self.history.state
            engine_text, ours_text = _describe(state, engine, ours)
            out.divergences.append(Divergence(self.index, state.index, state.turn, player, zone,
                                              engine_text, ours_text))


_PILES = {LOCATION_HAND: "hand", LOCATION_DECK: "deck", LOCATION_EXTRA: "extra"}


def _card_slot(payload: bytes, query: Query | None) -> list[Slot]:
    """``card_slots``' slots of a MSG_UPDATE_CARD from the importer's reading of the same bytes
    (``parse_update_card``): none without a query, one empty slot, or its (passcode, position),
    0 where the query does not say."""
    if len(payload) < 5:
        return []
    return [None if query is None else (query.code or 0, query.position or 0)]


def _monster_at(state: DuelState, player: int, seq: int) -> str | None:
    """Our card in the engine's Monster Zone ``seq`` of ``player`` (5-6: the Extra Monster Zones)."""
    if seq < 5:
        return state.sides[player].mzone[seq]
    ours = state.emz[state.emz_slot(player, seq)]
    if ours is not None and state.cards[ours].controller != player:
        return None                                      # the other player's, in the shared zone
    return ours


def _spell_trap_at(state: DuelState, player: int, seq: int) -> str | None:
    """Our card in the engine's Spell & Trap Zone ``seq`` (5 the Field Zone, 6-7 the Pendulum Zones)."""
    side = state.sides[player]
    if seq < 5:
        return side.szone[seq]
    if seq == 5:
        return side.fzone
    return side.szone[seq - 1] if len(side.szone) > 5 else None   # separate under MR3 only (CONF-09)


def _engine_view(player: int, location: int, seq: int | None, slots: list[Slot]) -> tuple:
    """A state packet as compared: (player, location, sequence, slots, what the engine says as
    ``compare`` would compare it, the zones that counts, and our side of the same: a function of
    (state, player, that view, sequence)). Our side is None where no single comparison covers
    the packet (``compare`` reads it zone by zone)."""
    player &= 1
    view: Any = None
    ours: Callable | None = None
    count = 1
    if seq is None:
        ours = _OURS.get(location)
        if location == LOCATION_MZONE:
            view = [(s[0], _monster_position(s[1])) if s else None for s in slots[:7]]
            count = len(view)
        elif location == LOCATION_SZONE:
            view = [(s[0], FACEUP if s[1] & POS_FACEUP else SET) if s else None for s in slots[:8]]
            count = len(view)
        elif location == LOCATION_HAND:
            view = sorted(s[0] for s in slots if s)
        elif location == LOCATION_DECK:                           # the engine lists it bottom first
            view = [s[0] for s in reversed(slots) if s]
        elif location == LOCATION_EXTRA:
            view = _extra((s[0], s[1] & POS_FACEUP) for s in slots if s)
        elif location == LOCATION_GRAVE:                          # after MSG_SWAP_GRAVE_DECK
            view = [s[0] for s in slots if s]
        return player, location, seq, slots, view, count, ours
    slot = slots[0] if slots else None                            # one card: as ``compare`` reads it
    if location == LOCATION_MZONE and seq < 7:
        view, ours = ((slot[0], _monster_position(slot[1])) if slot else None), _our_monster
    elif location == LOCATION_SZONE and seq < 8:
        view, ours = ((slot[0], FACEUP if slot[1] & POS_FACEUP else SET) if slot else None), _our_spell_trap
    elif location == LOCATION_GRAVE:
        view, ours = ((slot[0], None) if slot else None), _our_gy_card
    elif location == LOCATION_REMOVED:
        view, ours = ((slot[0], FACEUP if slot[1] & POS_FACEUP else FACEDOWN) if slot else None), _our_banished_card
    elif location in _PILES and slot is not None:
        view, ours = ("holds", slot[0]), _OUR_PILE_HOLDS[location]
    return player, location, seq, slots, view, count, ours


def _our_monsters(state: DuelState, player: int, view: list, _seq: None) -> list[Card]:
    """Our cards in the Monster Zones the engine listed, as it numbers them (5-6: the Extra
    Monster Zones, ``_monster_at``), as ``_Comparer.monster`` compares them."""
    cards = state.cards
    n = len(view)
    row: list[Card] = []
    for c in state.sides[player].mzone[:n]:
        if c is None:
            row.append(None)
        else:
            card = cards[c]
            row.append((card.code, card.position))
    for seq in range(5, n):
        ours = state.emz[(0 if seq == 5 else 1) if player == 0 else (1 if seq == 5 else 0)]   # ``emz_slot``
        if ours is None or (card := cards[ours]).controller != player:
            row.append(None)
        else:
            row.append((card.code, card.position))
    return row


def _our_spells_traps(state: DuelState, player: int, view: list, _seq: None) -> list[Card]:
    """Our cards in the Spell & Trap Zones the engine listed, as it numbers them (``_spell_trap_at``)."""
    cards = state.cards
    side = state.sides[player]
    n = len(view)
    row: list[Card] = []
    for c in side.szone[:min(n, 5)]:
        if c is None:
            row.append(None)
        else:
            card = cards[c]
            row.append((card.code, card.position))
    for seq in range(5, n):
        ours = side.fzone if seq == 5 else side.szone[seq - 1] if len(side.szone) > 5 else None
        if ours is None:
            row.append(None)
        else:
            card = cards[ours]
            row.append((card.code, card.position))
    return row


def _our_hand(state: DuelState, player: int, _view: list, _seq: None) -> list[int]:
    cards = state.cards
    return sorted([cards[c].code for c in state.sides[player].hand])


def _our_deck(state: DuelState, player: int, _view: list, _seq: None) -> list[int]:
    cards = state.cards
    return [cards[c].code for c in state.sides[player].deck]


def _our_extra(state: DuelState, player: int, _view: tuple, _seq: None) -> tuple[list[int], list[int]]:
    cards = state.cards
    return _extra((cards[c].code, cards[c].position == FACEUP) for c in state.sides[player].extra)


def _our_gy(state: DuelState, player: int, _view: list, _seq: None) -> list[int]:
    cards = state.cards
    return [cards[c].code for c in state.sides[player].gy]


#: Our side of a whole-location comparison, by the engine's location.
_OURS = {LOCATION_MZONE: _our_monsters, LOCATION_SZONE: _our_spells_traps, LOCATION_HAND: _our_hand,
         LOCATION_DECK: _our_deck, LOCATION_EXTRA: _our_extra, LOCATION_GRAVE: _our_gy}


def _our_monster(state: DuelState, player: int, _view: Card, seq: int) -> Card:
    return _Comparer.card(state, _monster_at(state, player, seq))


def _our_spell_trap(state: DuelState, player: int, _view: Card, seq: int) -> Card:
    return _Comparer.card(state, _spell_trap_at(state, player, seq))


def _our_gy_card(state: DuelState, player: int, _view: Card, seq: int) -> Card:
    gy = state.sides[player].gy
    return (state.cards[gy[seq]].code, None) if seq < len(gy) else None


def _our_banished_card(state: DuelState, player: int, _view: Card, seq: int) -> Card:
    banished = state.sides[player].banished
    if seq >= len(banished):
        return None
    card = state.cards[banished[seq]]
    return card.code, card.position


def _holds(pile: str) -> Callable:
    """Our side of a card arriving in a hand, Deck or Extra Deck: does that pile of ours hold a
    card with its passcode?"""
    def ours(state: DuelState, player: int, view: tuple[str, int], _seq: int) -> tuple[str, int]:
        cards, code = state.cards, view[1]
        held = any(cards[c].code == code for c in getattr(state.sides[player], pile))
        return ("holds" if held else "lacks"), code
    return ours


_OUR_PILE_HOLDS = {location: _holds(pile) for location, pile in _PILES.items()}


def _extra(cards) -> tuple[list[int], list[int]]:
    """An Extra Deck as compared: its face-down and its face-up cards, each sorted."""
    down, up = [], []
    for code, face_up in cards:
        (up if face_up else down).append(code)
    return sorted(down), sorted(up)


# -- saying what differs -------------------------------------------------------------------------

def _name(state: DuelState, code: int) -> str:
    facts = state.db.get(code)
    if facts is None or not facts.name or facts.name == unnamed(code):
        return str(code)
    return f"{facts.name} ({code})"


def _describe(state: DuelState, engine: Any, ours: Any) -> tuple[str, str]:
    """Both sides of a divergence as short text: a card, or a pile and where it differs."""
    if isinstance(engine, list) or isinstance(ours, list):
        return _piles(state, engine, ours)
    if isinstance(engine, tuple) and engine and isinstance(engine[0], list):    # an Extra Deck
        down = _piles(state, engine[0], ours[0])
        up = _piles(state, engine[1], ours[1])
        return f"face-down {down[0]}; face-up {up[0]}", f"face-down {down[1]}; face-up {up[1]}"
    return _card_text(state, engine), _card_text(state, ours)


def _card_text(state: DuelState, card: Any) -> str:
    if card is None:
        return "empty"
    first, second = card
    if first in ("holds", "lacks"):
        return f"{'a' if first == 'holds' else 'no'} {_name(state, second)}"
    return _name(state, first) + (f" {second}" if second else "")


def _piles(state: DuelState, engine: list[int], ours: list[int]) -> tuple[str, str]:
    """Two piles: their sizes, and the cards only one holds, or the first place they differ."""
    only_engine = Counter(engine) - Counter(ours)
    only_ours = Counter(ours) - Counter(engine)
    if only_engine or only_ours:
        def extra(only: Counter) -> str:
            shown = [_name(state, code) for code in sorted(only.elements())][:3]
            more = sum(only.values()) - len(shown)
            return (", with " + ", ".join(shown) + (f" and {more} more" if more else "")) if shown else ""
        return f"{len(engine)} cards{extra(only_engine)}", f"{len(ours)} cards{extra(only_ours)}"
    at = next((i for i, (a, b) in enumerate(zip(engine, ours)) if a != b), None)
    if at is None:                                # the same (the other half of an Extra Deck differs)
        return f"{len(engine)} cards", f"{len(ours)} cards"

    return (f"{len(engine)} cards, card {at + 1} {_name(state, engine[at])}",
            f"{len(ours)} cards, card {at + 1} {_name(state, ours[at])}")
