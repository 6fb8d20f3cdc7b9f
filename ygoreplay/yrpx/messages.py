"""The game messages of the stream: card queries (MSG_UPDATE_DATA / MSG_UPDATE_CARD, the engine's
state packets) and the fields of every message the importer reads (ygopro-core ``field.cpp``,
``processor.cpp`` writers; edopro ``gframe/duelclient.cpp`` readers)."""
from __future__ import annotations

import struct
from collections.abc import Callable
import operator
from dataclasses import dataclass, fields
from typing import TypeVar

from .constants import (MSG_ADD_COUNTER, MSG_ATTACK, MSG_ATTACK_DISABLED, MSG_BATTLE, MSG_BECOME_TARGET,
    MSG_BE_CHAIN_TARGET, MSG_CANCEL_TARGET, MSG_CARD_HINT, MSG_CARD_SELECTED, MSG_CARD_TARGET, MSG_CHAINED,
    MSG_CHAINING, MSG_CHAIN_DISABLED, MSG_CHAIN_END, MSG_CHAIN_NEGATED, MSG_CHAIN_SOLVED, MSG_CHAIN_SOLVING,
    MSG_CONFIRM_CARDS, MSG_CONFIRM_DECKTOP, MSG_CONFIRM_EXTRATOP, MSG_CREATE_RELATION, MSG_DAMAGE,
    MSG_DAMAGE_STEP_END, MSG_DAMAGE_STEP_START, MSG_DECK_TOP, MSG_DRAW, MSG_EQUIP, MSG_FIELD_DISABLED,
    MSG_FLIPSUMMONED, MSG_FLIPSUMMONING, MSG_HAND_RES, MSG_HINT, MSG_LPUPDATE, MSG_MISSED_EFFECT, MSG_MOVE,
    MSG_NEW_PHASE, MSG_NEW_TURN, MSG_PAY_LPCOST, MSG_PLAYER_HINT, MSG_POS_CHANGE, MSG_RANDOM_SELECTED,
    MSG_RECOVER, MSG_REFRESH_DECK, MSG_RELEASE_RELATION, MSG_REMOVE_COUNTER, MSG_REVERSE_DECK, MSG_SET,
    MSG_SHOW_HINT, MSG_SHUFFLE_DECK, MSG_SHUFFLE_EXTRA, MSG_SHUFFLE_HAND, MSG_SHUFFLE_SET_CARD,
    MSG_SPSUMMONED, MSG_SPSUMMONING, MSG_START, MSG_SUMMONED, MSG_SUMMONING, MSG_SWAP, MSG_SWAP_GRAVE_DECK,
    MSG_TOSS_COIN, MSG_TOSS_DICE, MSG_UNEQUIP, MSG_UPDATE_CARD, MSG_UPDATE_DATA, MSG_WAITING, MSG_WIN,
    QUERY_ALIAS, QUERY_ATTACK, QUERY_ATTRIBUTE, QUERY_BASE_ATTACK, QUERY_BASE_DEFENSE, QUERY_CODE,
    QUERY_COUNTERS, QUERY_DEFENSE, QUERY_END, QUERY_LEVEL, QUERY_LINK, QUERY_LSCALE, QUERY_OVERLAY_CARD,
    QUERY_OWNER, QUERY_POSITION, QUERY_RACE, QUERY_RANK, QUERY_REASON, QUERY_RSCALE, QUERY_STATUS,
    QUERY_TYPE)
from ..i18n import say
from .container import Packet, Where, YrpxError, Reader

_F = TypeVar("_F", bound=Callable)

# -- card queries (MSG_UPDATE_DATA / MSG_UPDATE_CARD) -----------------------------------------

@dataclass(slots=True)
class Query:
    """What a card query said about one card; None where the query did not say."""

    code: int | None = None
    position: int | None = None
    alias: int | None = None
    type: int | None = None
    level: int | None = None
    rank: int | None = None
    attribute: int | None = None
    race: int | None = None
    attack: int | None = None
    defense: int | None = None
    base_attack: int | None = None
    base_defense: int | None = None
    reason: int | None = None
    owner: int | None = None
    status: int | None = None
    lscale: int | None = None
    rscale: int | None = None
    link: int | None = None
    link_marker: int | None = None
    overlay: tuple[int, ...] | None = None
    counters: tuple[int, ...] | None = None


_U32_QUERIES = {QUERY_CODE: "code", QUERY_POSITION: "position", QUERY_ALIAS: "alias", QUERY_TYPE: "type",
                QUERY_LEVEL: "level", QUERY_RANK: "rank", QUERY_ATTRIBUTE: "attribute",
                QUERY_REASON: "reason", QUERY_STATUS: "status", QUERY_LSCALE: "lscale",
                QUERY_RSCALE: "rscale"}
_I32_QUERIES = {QUERY_ATTACK: "attack", QUERY_DEFENSE: "defense", QUERY_BASE_ATTACK: "base_attack",
                QUERY_BASE_DEFENSE: "base_defense"}


_unpack_u16 = struct.Struct("<H").unpack_from
_unpack_u32 = struct.Struct("<I").unpack_from
_unpack_i32 = struct.Struct("<i").unpack_from
_unpack_u64 = struct.Struct("<Q").unpack_from


def _query(data: bytes, pos: int, base: int = 0) -> tuple[Query | None, int]:
    """One card's query at ``pos``: (u16 size, u32 flag, data) items up to QUERY_END.

    Returns the query (None for an empty zone) and the position after it. Every item carries its
    own size, so items this reader does not know, and the u32 (core < 10) or u64 race, are read
    by size."""
    q, pos, items = _walk(data, pos, base)
    if q is not None:
        _learn(items)
    return q, pos


def _walk(data: bytes, pos: int, base: int) -> tuple[Query | None, int, list[tuple[int, int]]]:
    """``_query`` item by item; also the (size, flag) of each item read, for ``_learn``."""
    q = Query()
    end = len(data)
    items: list[tuple[int, int]] = []
    while True:
        if pos + 2 > end:
            raise YrpxError(say("a card query ends inside an item size"), base + pos, space="body")
        size = _unpack_u16(data, pos)[0]
        pos += 2
        if size == 0:
            return None, pos, items
        if size < 4 or pos + size > end:
            raise YrpxError(say("a card query item of {size} bytes does not fit",
                                size=size), base + pos - 2, space="body")
        flag = _unpack_u32(data, pos)[0]
        items.append((size, flag))
        start = pos + 4
        pos += size
        if flag == QUERY_END:
            return q, pos, items
        n = size - 4
        name = _U32_QUERIES.get(flag)
        if name is not None:
            if n >= 4:
                setattr(q, name, _unpack_u32(data, start)[0])
        elif flag in _I32_QUERIES:
            if n >= 4:
                setattr(q, _I32_QUERIES[flag], _unpack_i32(data, start)[0])
        elif flag == QUERY_RACE:
            q.race = (_unpack_u64 if n >= 8 else _unpack_u32)(data, start)[0]
        elif flag == QUERY_OWNER:
            q.owner = data[start] if n >= 1 else None
        elif flag == QUERY_LINK:
            if n >= 8:
                q.link, q.link_marker = struct.unpack_from("<II", data, start)
        elif flag == QUERY_OVERLAY_CARD or flag == QUERY_COUNTERS:
            count = _unpack_u32(data, start)[0] if n >= 4 else 0
            values = struct.unpack_from(f"<{count}I", data, start + 4) if 4 + 4 * count <= n else ()
            if flag == QUERY_OVERLAY_CARD:
                q.overlay = values
            else:
                q.counters = values


class _QueryLayout:
    """A whole card query of one item layout read at once: its item headers compared in one
    ``struct`` call, every value ``_walk`` would read taken in a second, the overlay and counter
    lists (sized by their own data) read as ``_walk`` reads them. Only layouts whose every read
    stays inside its own item are kept (``_walk`` reads all others)."""

    __slots__ = ("check", "expected", "length", "values", "pick", "lists")

    def __init__(self, items: tuple[tuple[int, int], ...], check, expected: tuple[int, ...], length: int,
                 values, names: tuple[str, ...], lists: tuple[tuple[str, int, int], ...]) -> None:
        self.check, self.expected, self.length = check, expected, length
        self.values = values
        # Query's fields in order, each the last value of its name (or None: the one past them),
        # so a query is built with positional arguments; a list by its field's place
        last = {name: k for k, name in enumerate(names)}
        self.pick = operator.itemgetter(*(last.get(name, len(names)) for name in _QUERY_FIELDS))
        self.lists = tuple((_QUERY_FIELDS.index(name), start, n) for name, start, n in lists)

    @staticmethod
    def of(items: tuple[tuple[int, int], ...]) -> "_QueryLayout | None":
        header, values, names, lists = ["<"], ["<"], [], []
        offset = read_to = 0                       # read_to: where the values format stands
        for size, flag in items:
            header.append(f"HI{size - 4}x" if size > 4 else "HI")
            start, n = offset + 6, size - 4
            fmt = ""
            if flag == QUERY_END:
                pass
            elif flag in _U32_QUERIES or flag in _I32_QUERIES:
                if n >= 4:
                    fmt = "I" if flag in _U32_QUERIES else "i"
                    names.append(_U32_QUERIES.get(flag) or _I32_QUERIES[flag])
            elif flag == QUERY_RACE:
                if n < 4:
                    return None                    # ``_walk`` reads 4 bytes past a short item
                fmt = "Q" if n >= 8 else "I"
                names.append("race")
            elif flag == QUERY_OWNER:
                if n < 1:
                    return None
                fmt = "B"
                names.append("owner")
            elif flag == QUERY_LINK:
                if n >= 8:
                    fmt = "II"
                    names.extend(("link", "link_marker"))
            elif flag == QUERY_OVERLAY_CARD or flag == QUERY_COUNTERS:
                lists.append(("overlay" if flag == QUERY_OVERLAY_CARD else "counters", start, n))
            if fmt:
                values.append(f"{start - read_to}x{fmt}")
                read_to = start + struct.calcsize("<" + fmt)
            offset += 2 + size
        return _QueryLayout(items, struct.Struct("".join(header)).unpack_from,
                            tuple(v for item in items for v in item), offset,
                            struct.Struct("".join(values)).unpack_from, tuple(names), tuple(lists))

    def read(self, data: bytes, pos: int) -> Query:
        picked = self.pick(self.values(data, pos) + _NO_VALUE)   # every field of Query, in order
        if not self.lists:
            return Query(*picked)
        row = list(picked)
        for at, start, n in self.lists:
            start += pos
            count = _unpack_u32(data, start)[0] if n >= 4 else 0
            row[at] = struct.unpack_from(f"<{count}I", data, start + 4) if 4 + 4 * count <= n else ()
        return Query(*row)


_QUERY_FIELDS = tuple(f.name for f in fields(Query))
_NO_VALUE = (None,)


#: Layouts seen (of whole queries here, of item headers for ``card_slots`` below), shared by every
#: replay (a real one uses a handful); each kind bounded against forged files.
_MAX_LAYOUTS = 512
_QUERY_LAYOUTS: dict[tuple[tuple[int, int], ...], _QueryLayout | None] = {}
_last_query_layout: list[_QueryLayout | None] = [None]     # the layout tried first for the next card


def _learn(items: list[tuple[int, int]]) -> None:
    key = tuple(items)
    if key in _QUERY_LAYOUTS:
        layout = _QUERY_LAYOUTS[key]
    elif len(_QUERY_LAYOUTS) < _MAX_LAYOUTS:
        layout = _QUERY_LAYOUTS[key] = _QueryLayout.of(key)
    else:
        return
    if layout is not None:
        _last_query_layout[0] = layout


def _fast_query(data: bytes, pos: int, base: int) -> tuple[Query | None, int]:
    """``_query``, first trying the layout of the card read last (the server queries the cards
    of a location with the same flags): a card whose item headers are exactly that layout's is
    read in two ``struct`` calls, any other item by item."""
    layout = _last_query_layout[0]
    if layout is not None and pos + layout.length <= len(data) and layout.check(data, pos) == layout.expected:
        return layout.read(data, pos), pos + layout.length
    return _query(data, pos, base)


def parse_update_data(payload: bytes, offset: int = 0) -> tuple[int, int, list[Query | None]]:
    """MSG_UPDATE_DATA: (player, location, one query per sequence, None for an empty zone)."""
    if len(payload) < 6:
        raise YrpxError(say("MSG_UPDATE_DATA is shorter than its 6-byte head"), offset, space="body")
    player, location, size = struct.unpack_from("<BBI", payload)
    end = min(6 + size, len(payload))
    pos = 6
    out: list[Query | None] = []
    while pos < end:
        q, pos = _fast_query(payload, pos, offset)
        out.append(q)
    return player, location, out


def parse_update_card(payload: bytes, offset: int = 0) -> tuple[int, int, int, Query | None]:
    """MSG_UPDATE_CARD: (player, location, sequence, query)."""
    if len(payload) < 3:
        raise YrpxError(say("MSG_UPDATE_CARD is shorter than its 3-byte head"), offset, space="body")
    player, location, sequence = payload[0], payload[1], payload[2]
    return player, location, sequence, _fast_query(payload, 3, offset)[0] if len(payload) >= 5 else None


#: One slot of a state packet as the engine check reads it: (passcode, position), None if empty.
Slot = tuple[int, int] | None


def card_slots(packet: Packet) -> tuple[int, int, int | None, list[Slot]]:
    """A state packet as the engine check reads it: (player, location, sequence, slots), each
    slot the card's (passcode, position) or None for an empty one. MSG_UPDATE_DATA gives every
    slot of the location (sequence None), MSG_UPDATE_CARD its one slot (none when it carries no
    query). Reads the same items as ``parse_update_data``/``parse_update_card`` with the same
    errors, keeping only two of them (the engine check reads about a million slots)."""
    payload, offset = packet.payload, packet.offset
    if packet.id == MSG_UPDATE_DATA:
        if len(payload) < 6:
            raise YrpxError(say("MSG_UPDATE_DATA is shorter than its 6-byte head"), offset, space="body")
        player, location, size = _unpack_head(payload)
        return player, location, None, _slots(payload, 6, min(6 + size, len(payload)), offset, location)
    if len(payload) < 3:
        raise YrpxError(say("MSG_UPDATE_CARD is shorter than its 3-byte head"), offset, space="body")
    return (payload[0], payload[1], payload[2],
            _slots(payload, 3, 4, offset, 0x100 | payload[1]) if len(payload) >= 5 else [])


_unpack_head = struct.Struct("<BBI").unpack_from
_unpack_item = struct.Struct("<HI").unpack_from


class _Layout:
    """The item headers (size, flag) of one card query, as one ``struct`` format: a card whose
    headers unpack to exactly these is read in one call, as walking its items would read it."""

    __slots__ = ("unpack", "expected", "length", "code_at", "position_at", "pair", "fmt")

    def __init__(self, items: tuple[tuple[int, int], ...]) -> None:
        fmt, offset = ["<"], 0
        self.code_at = self.position_at = -1
        for size, flag in items:
            fmt.append(f"HI{size - 4}x" if size > 4 else "HI")
            if size >= 8 and flag == QUERY_CODE:
                self.code_at = offset + 6           # the last such item counts, as in ``_query``
            elif size >= 8 and flag == QUERY_POSITION:
                self.position_at = offset + 6
            offset += 2 + size
        self.fmt = "".join(fmt[1:])
        self.unpack = struct.Struct("".join(fmt)).unpack_from
        self.expected = tuple(v for item in items for v in item)
        self.length = offset
        # (passcode, position) in one call when the code comes first, as the engine writes them
        self.pair = (struct.Struct(f"<{self.code_at}xI{self.position_at - self.code_at - 4}xI").unpack_from
                     if 0 <= self.code_at < self.position_at else None)


_LAYOUTS: dict[tuple[tuple[int, int], ...], _Layout] = {}


class _Run:
    """``count`` cards of one layout back to back (a whole Deck, hand or Graveyard listed): all
    their item headers compared in one ``struct`` call, all their (passcode, position) read in
    a second, as ``_slots`` would read them card by card."""

    __slots__ = ("unpack", "expected", "pairs")

    def __init__(self, layout: _Layout, count: int) -> None:
        self.unpack = struct.Struct("<" + layout.fmt * count).unpack_from
        self.expected = layout.expected * count
        gap, rest = layout.position_at - layout.code_at - 4, layout.length - layout.position_at - 4
        self.pairs = struct.Struct("<" + f"{layout.code_at}xI{gap}xI{rest}x" * count).unpack_from


_RUNS: dict[tuple[_Layout, int], _Run] = {}


#: The layout of the card read last in each kind of state packet (its location; | 0x100 for a
#: single card): the first card of the next such packet is tried against it.
_SLOT_HINTS: dict[int, _Layout] = {}


def _slots(data: bytes, pos: int, limit: int, base: int, hint: int) -> list[Slot]:
    """The (passcode, position) of each card query from ``pos`` while ``pos < limit``: ``_query``
    walking its items by size, reading only QUERY_CODE and QUERY_POSITION. The server queries
    every card of a location with the same flags, so a card is first tried against the layout of
    the one before it (all its headers compared in one call), and walked item by item otherwise."""
    end = len(data)
    out: list[Slot] = []
    last: _Layout | None = _SLOT_HINTS.get(hint)
    if last is not None and last.pair is not None and pos < limit <= end and not (limit - pos) % last.length:
        key = (last, (limit - pos) // last.length)   # a whole location of cards of one layout?
        run = _RUNS.get(key)
        if run is None and len(_RUNS) < _MAX_LAYOUTS:
            run = _RUNS[key] = _Run(*key)
        if run is not None and run.unpack(data, pos) == run.expected:
            values = run.pairs(data, pos)
            return list(zip(values[0::2], values[1::2]))
    while pos < limit:
        if pos + 2 <= end and data[pos] == 0 and data[pos + 1] == 0:
            pos += 2                                   # an empty slot: ``u16 0``
            out.append(None)
            continue
        if last is not None and pos + last.length <= end and last.unpack(data, pos) == last.expected:
            if last.pair is not None:
                out.append(last.pair(data, pos))
            else:
                out.append((_unpack_u32(data, pos + last.code_at)[0] if last.code_at >= 0 else 0,
                            _unpack_u32(data, pos + last.position_at)[0] if last.position_at >= 0 else 0))
            pos += last.length
            continue
        code = position = 0
        items: list[tuple[int, int]] = []
        while True:
            if pos + 6 <= end:
                size, flag = _unpack_item(data, pos)
            elif pos + 2 <= end:
                size, flag = _unpack_u16(data, pos)[0], None
            else:
                raise YrpxError(say("a card query ends inside an item size"), base + pos, space="body")
            if size == 0:
                pos += 2
                out.append(None)
                break
            if size < 4 or pos + 2 + size > end:
                raise YrpxError(say("a card query item of {size} bytes does not fit",
                                    size=size), base + pos, space="body")
            items.append((size, flag))
            if flag == QUERY_END:
                pos += 2 + size
                out.append((code, position))
                key = tuple(items)
                last = _LAYOUTS.get(key)
                if last is None and len(_LAYOUTS) < _MAX_LAYOUTS:
                    last = _LAYOUTS[key] = _Layout(key)
                break
            if size >= 8:
                if flag == QUERY_CODE:
                    code = _unpack_u32(data, pos + 6)[0]
                elif flag == QUERY_POSITION:
                    position = _unpack_u32(data, pos + 6)[0]
            pos += 2 + size
    if last is not None:
        _SLOT_HINTS[hint] = last
    return out


# -- game messages -----------------------------------------------------------------------------

def _m_start(r: Reader) -> dict:
    kind = r.u8("type")
    lp = (r.u32("LP 0"), r.u32("LP 1"))
    deck0, extra0, deck1, extra1 = (r.u16("deck size") for _ in range(4))
    return {"type": kind, "lp": lp, "deck": (deck0, deck1), "extra": (extra0, extra1)}


def _m_win(r: Reader) -> dict:
    player = r.u8("winner")
    # A surrender (or time-out) packet is written by the server, sometimes one byte short.
    reason = r.u8("reason") if r.left else 0
    return {"player": player, "reason": reason}


def _m_hint(r: Reader) -> dict:
    kind, player = r.u8("type"), r.u8("player")
    data = r.u64("data") if r.left >= 8 else (r.u32("data") if r.left >= 4 else 0)
    return {"type": kind, "player": player, "data": data}


def _m_player(r: Reader) -> dict:
    return {"player": r.u8("player")}


def _m_codes(r: Reader) -> dict:
    player = r.u8("player")
    count = r.u32("count")
    return {"player": player, "codes": tuple(r.u32("code") for _ in range(count))}


def _m_phase(r: Reader) -> dict:
    return {"phase": r.u16("phase")}


def _m_move(r: Reader) -> dict:
    return {"code": r.u32("code"), "old": r.loc("old location"), "new": r.loc("new location"),
            "reason": r.u32("reason")}


def _m_pos_change(r: Reader) -> dict:
    code = r.u32("code")
    c, l, s, old, new = (r.u8(w) for w in ("controller", "location", "sequence", "old position", "new position"))
    return {"code": code, "at": Where(c, l, s, new), "old_pos": old, "new_pos": new}


def _m_code_loc(r: Reader) -> dict:
    return {"code": r.u32("code"), "at": r.loc()}


def _m_swap(r: Reader) -> dict:
    return {"code1": r.u32("code"), "at1": r.loc(), "code2": r.u32("code"), "at2": r.loc()}


def _m_chaining(r: Reader) -> dict:
    code = r.u32("code")
    at = r.loc("card location")
    tc, tl = r.u8("triggering controller"), r.u8("triggering location")
    ts = r.u32("triggering sequence")
    desc = r.u64("description")
    count = r.u32("chain count")
    return {"code": code, "at": at, "triggering": (tc, tl, ts), "desc": desc, "chain": count}


def _m_chain(r: Reader) -> dict:
    return {"chain": r.u8("chain count")}


def _m_none(r: Reader) -> dict:
    return {}


def _m_locs(r: Reader) -> dict:
    count = r.u32("count")
    return {"locs": tuple(r.loc() for _ in range(count))}


def _m_draw(r: Reader) -> dict:
    player = r.u8("player")
    count = r.u32("count")
    cards = tuple((r.u32("code"), r.u32("position")) for _ in range(count))
    return {"player": player, "codes": tuple(c for c, _ in cards), "positions": tuple(p for _, p in cards)}


def _m_lp(r: Reader) -> dict:
    return {"player": r.u8("player"), "amount": r.u32("amount")}


def _m_two_locs(r: Reader) -> dict:
    return {"a": r.loc(), "b": r.loc()}


def _m_counter(r: Reader) -> dict:
    kind = r.u16("counter type")
    c, l, s = r.u8("controller"), r.u8("location"), r.u8("sequence")
    return {"counter": kind, "at": Where(c, l, s, 0), "count": r.u16("count")}


def _m_battle(r: Reader) -> dict:
    out = {}
    for side in ("attacker", "target"):
        out[side] = r.loc()
        out[side + "_atk"] = r.i32("ATK")
        out[side + "_def"] = r.i32("DEF")
        out[side + "_destroyed"] = r.u8("destroyed flag")
    return out


def _m_coin(r: Reader) -> dict:
    player = r.u8("player")
    count = r.u8("count")
    return {"player": player, "results": tuple(r.u8("result") for _ in range(count))}


def _m_player_hint(r: Reader) -> dict:
    player, kind = r.u8("player"), r.u8("hint type")
    value = r.u64("description") if r.left >= 8 else (r.u32("description") if r.left >= 4 else 0)
    return {"player": player, "type": kind, "value": value}


def _m_card_hint(r: Reader) -> dict:
    at = r.loc()
    kind = r.u8("hint type")
    return {"at": at, "type": kind, "value": r.u64("value") if r.left >= 8 else 0}


def _m_confirm(r: Reader) -> dict:
    player = r.u8("player")
    count = r.u32("count")
    cards = []
    for _ in range(count):
        code = r.u32("code")
        c, l = r.u8("controller"), r.u8("location")
        s = r.u32("sequence")
        cards.append((code, Where(c, l, s, 0)))
    return {"player": player, "cards": tuple(cards)}


def _m_deck_top(r: Reader) -> dict:
    return {"player": r.u8("player"), "sequence": r.u32("sequence"), "code": r.u32("code"),
            "position": r.u32("position") if r.left >= 4 else 0}


def _m_shuffle_set(r: Reader) -> dict:
    location, count = r.u8("location"), r.u8("count")
    old = tuple(r.loc() for _ in range(count))
    new = tuple(r.loc() for _ in range(count))
    return {"location": location, "old": old, "new": new}


def _m_swap_grave_deck(r: Reader) -> dict:
    player = r.u8("player")
    out: dict = {"player": player}
    if r.left >= 8:
        out["extra_down"] = r.u32("face-down Extra Deck size")     # before the monsters return there
        size = r.u32("extra bitmap size")
        out["extra_bits"] = r.bytes(size, "extra bitmap")
    return out


_PARSERS = {
    MSG_START: _m_start, MSG_WIN: _m_win, MSG_HINT: _m_hint,
    MSG_SHUFFLE_DECK: _m_player, MSG_SHUFFLE_HAND: _m_codes, MSG_SHUFFLE_EXTRA: _m_codes,
    MSG_REFRESH_DECK: _m_player, MSG_SWAP_GRAVE_DECK: _m_swap_grave_deck, MSG_REVERSE_DECK: _m_none,
    MSG_DECK_TOP: _m_deck_top, MSG_SHUFFLE_SET_CARD: _m_shuffle_set,
    MSG_NEW_TURN: _m_player, MSG_NEW_PHASE: _m_phase,
    MSG_MOVE: _m_move, MSG_POS_CHANGE: _m_pos_change, MSG_SET: _m_code_loc, MSG_SWAP: _m_swap,
    MSG_SUMMONING: _m_code_loc, MSG_SUMMONED: _m_none, MSG_SPSUMMONING: _m_code_loc,
    MSG_SPSUMMONED: _m_none, MSG_FLIPSUMMONING: _m_code_loc, MSG_FLIPSUMMONED: _m_none,
    MSG_CHAINING: _m_chaining, MSG_CHAINED: _m_chain, MSG_CHAIN_SOLVING: _m_chain,
    MSG_CHAIN_SOLVED: _m_chain, MSG_CHAIN_END: _m_none, MSG_CHAIN_NEGATED: _m_chain,
    MSG_CHAIN_DISABLED: _m_chain, MSG_CARD_SELECTED: _m_locs, MSG_BECOME_TARGET: _m_locs,
    MSG_RANDOM_SELECTED: lambda r: {"player": r.u8("player"), **_m_locs(r)},
    MSG_DRAW: _m_draw, MSG_DAMAGE: _m_lp, MSG_RECOVER: _m_lp, MSG_LPUPDATE: _m_lp,
    MSG_PAY_LPCOST: _m_lp, MSG_EQUIP: _m_two_locs, MSG_UNEQUIP: lambda r: {"a": r.loc()},
    MSG_CARD_TARGET: _m_two_locs, MSG_CANCEL_TARGET: _m_two_locs,
    MSG_ADD_COUNTER: _m_counter, MSG_REMOVE_COUNTER: _m_counter,
    MSG_ATTACK: _m_two_locs, MSG_BATTLE: _m_battle, MSG_ATTACK_DISABLED: _m_none,
    MSG_DAMAGE_STEP_START: _m_none, MSG_DAMAGE_STEP_END: _m_none,
    MSG_TOSS_COIN: _m_coin, MSG_TOSS_DICE: _m_coin, MSG_CARD_HINT: _m_card_hint,
    MSG_PLAYER_HINT: _m_player_hint,
    MSG_CONFIRM_CARDS: _m_confirm, MSG_CONFIRM_DECKTOP: _m_confirm, MSG_CONFIRM_EXTRATOP: _m_confirm,
}


_where = Where._make
_MOVE = struct.Struct("<IBBIIBBIII").unpack_from
_CODE_LOC = struct.Struct("<IBBII").unpack_from
_CHAINING = struct.Struct("<IBBIIBBIQI").unpack_from


def _fast_move(data: bytes) -> dict | None:
    if len(data) < 28:
        return None
    v = _MOVE(data)
    return {"code": v[0], "old": _where(v[1:5]), "new": _where(v[5:9]), "reason": v[9]}


def _fast_code_loc(data: bytes) -> dict | None:
    if len(data) < 14:
        return None
    v = _CODE_LOC(data)
    return {"code": v[0], "at": _where(v[1:5])}


def _fast_chaining(data: bytes) -> dict | None:
    if len(data) < 32:
        return None
    v = _CHAINING(data)
    return {"code": v[0], "at": _where(v[1:5]), "triggering": v[5:8], "desc": v[8], "chain": v[9]}


def _fast_chain(data: bytes) -> dict | None:
    return {"chain": data[0]} if data else None


def _fast_none(_data: bytes) -> dict:
    return {}


def _fast_player(data: bytes) -> dict | None:
    return {"player": data[0]} if data else None


def _fast_phase(data: bytes) -> dict | None:
    return {"phase": _unpack_u16(data, 0)[0]} if len(data) >= 2 else None


_PLAYER_AMOUNT = struct.Struct("<BI").unpack_from


def _fast_lp(data: bytes) -> dict | None:
    if len(data) < 5:
        return None
    v = _PLAYER_AMOUNT(data)
    return {"player": v[0], "amount": v[1]}


def _fast_codes(data: bytes) -> dict | None:
    if len(data) < 5:
        return None
    count = _unpack_u32(data, 1)[0]
    if 5 + 4 * count > len(data):
        return None
    return {"player": data[0], "codes": struct.unpack_from(f"<{count}I", data, 5)}


def _fast_draw(data: bytes) -> dict | None:
    if len(data) < 5:
        return None
    count = _unpack_u32(data, 1)[0]
    if 5 + 8 * count > len(data):
        return None
    v = struct.unpack_from(f"<{2 * count}I", data, 5)
    return {"player": data[0], "codes": v[0::2], "positions": v[1::2]}


#: The most frequent messages read straight from their bytes, as their ``Reader`` parser reads
#: them (the same dict, key for key); a payload too short for that gives None, and the parser
#: below says what is missing. (A message taken through ``Reader`` costs its name, the reader and
#: a call a field: a tenth of the messages the importer reads were those below ``_fast_chain``.)
_FAST: dict[int, Callable[[bytes], dict | None]] = {
    MSG_MOVE: _fast_move, MSG_CHAINING: _fast_chaining,
    MSG_SET: _fast_code_loc, MSG_SUMMONING: _fast_code_loc, MSG_SPSUMMONING: _fast_code_loc,
    MSG_FLIPSUMMONING: _fast_code_loc,
    MSG_CHAINED: _fast_chain, MSG_CHAIN_SOLVING: _fast_chain, MSG_CHAIN_SOLVED: _fast_chain,
    MSG_CHAIN_NEGATED: _fast_chain, MSG_CHAIN_DISABLED: _fast_chain,
    MSG_CHAIN_END: _fast_none, MSG_SUMMONED: _fast_none, MSG_SPSUMMONED: _fast_none,
    MSG_FLIPSUMMONED: _fast_none, MSG_REVERSE_DECK: _fast_none, MSG_ATTACK_DISABLED: _fast_none,
    MSG_DAMAGE_STEP_START: _fast_none, MSG_DAMAGE_STEP_END: _fast_none,
    MSG_SHUFFLE_DECK: _fast_player, MSG_REFRESH_DECK: _fast_player, MSG_NEW_TURN: _fast_player,
    MSG_NEW_PHASE: _fast_phase, MSG_DRAW: _fast_draw,
    MSG_SHUFFLE_HAND: _fast_codes, MSG_SHUFFLE_EXTRA: _fast_codes,
    MSG_DAMAGE: _fast_lp, MSG_RECOVER: _fast_lp, MSG_LPUPDATE: _fast_lp, MSG_PAY_LPCOST: _fast_lp,
}


def parse_message(packet: Packet) -> dict | None:
    """The fields of one game message, or None for a message this reader does not decode.

    Raises ``YrpxError`` with the body offset when the payload is shorter than its layout.
    """
    fast = _FAST.get(packet.id)
    if fast is not None:
        fields = fast(packet.payload)
        if fields is not None:
            return fields
    parser = _PARSERS.get(packet.id)
    if parser is None:
        return None
    return parser(Reader(packet.payload, packet.offset, packet.name))


#: Messages that carry no game action: state refreshes, hints, and prompts' echoes.
QUIET = frozenset((MSG_UPDATE_DATA, MSG_UPDATE_CARD, MSG_HINT, MSG_CARD_HINT, MSG_PLAYER_HINT,
                    MSG_SHOW_HINT, MSG_MISSED_EFFECT, MSG_WAITING, MSG_FIELD_DISABLED,
                    MSG_CARD_SELECTED, MSG_RANDOM_SELECTED, MSG_EQUIP, MSG_UNEQUIP, MSG_CARD_TARGET,
                    MSG_CANCEL_TARGET, MSG_CREATE_RELATION, MSG_RELEASE_RELATION, MSG_BE_CHAIN_TARGET,
                    MSG_HAND_RES, MSG_REFRESH_DECK))

def stringid_index(desc: int, code: int) -> int | None:
    """n when ``desc`` is ``aux.Stringid(code, n)``: EDOPro's u64 ``code << 20 | n``, or YGOPro's
    u32 ``code << 4 | n``; None when it names another card (or none)."""
    if code and desc >> 20 == code:
        return desc & 0xFFFFF
    if code and desc >> 4 == code:
        return desc & 0xF
    return None


def stringid(desc: int, code: int) -> str:
    n = stringid_index(desc, code)
    return f"aux.Stringid({code},{n})" if n is not None else f"description {desc:#x}"


# -- which importer method reads which message --------------------------------------------------

def reads(*ids: int) -> Callable[[_F], _F]:
    """Mark an importer method as the handler of these messages, so the handler stands where it
    is written and ``handler_table`` finds it (adding a message is one decorated method)."""
    def mark(method: _F) -> _F:
        method.reads = ids
        return method
    return mark


def handler_table(cls: type) -> dict[int, Callable]:
    """Each message id to the method of ``cls`` (or of its bases) marked ``@reads`` it."""
    table: dict[int, Callable] = {}
    for base in cls.__mro__:
        for method in vars(base).values():
            for mid in getattr(method, "reads", ()):
                if mid in table:
                    raise ValueError(f"message {mid} has two handlers: {table[mid].__qualname__} and "
                                    f"{method.__qualname__}")
                table[mid] = method
    return table
