"""The ``.yrpX`` container: header, LZMA body, player names, duel flags, the packet stream and the
embedded YRP1 (start settings, deck lists, responses). Layouts follow edo9300/edopro
``gframe/replay.cpp`` / ``replay.h``; the format facts are in ``shared/formats/EDOPRO-REPLAYS.md``.

Every length a file announces is checked before the work it bounds, and anything that is not a
readable replay is a ``YrpxError`` naming what and where (a byte offset into the file, or into the
decompressed body).
"""
from __future__ import annotations

import itertools
import lzma
import operator
import os
import re
import struct
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import NamedTuple

from ..errors import InputError
from ..files import open_regular
from ..i18n import say
from .constants import LOCATION_DECK, LOCATION_EXTRA, LOCATION_GRAVE, LOCATION_HAND, LOCATION_MZONE, \
    LOCATION_REMOVED, LOCATION_SZONE, MESSAGE_NAMES, MSG_AI_NAME, OLD_REPLAY_MODE

# -- file constants (gframe/replay.h) ----------------------------------------------------------

YRP1, YRP2, YRPX = 0x31707279, 0x32707279, 0x58707279
REPLAY_COMPRESSED = 0x1
REPLAY_TAG = 0x2
REPLAY_DECODED = 0x4
REPLAY_SINGLE_MODE = 0x8
REPLAY_LUA64 = 0x10
REPLAY_NEWREPLAY = 0x20
REPLAY_HAND_TEST = 0x40
REPLAY_DIRECT_SEED = 0x80
REPLAY_64BIT_DUELFLAG = 0x100
REPLAY_EXTENDED_HEADER = 0x200

BASE_HEADER_SIZE = 32
EXTENDED_HEADER_SIZE = 72
YRP2_HEADER_SIZE = 80
NAME_SIZE = 40            # 20 UTF-16LE code units, NUL padded

DATASIZE_OFFSET = 16      # u32 datasize: the decompressed body's size
PROPS_OFFSET = 24         # LZMA properties: lc/lp/pb byte, u32 dictionary size, 3 unused

# -- bounds (measured on the 102 files of shared/real-replays/edopro, with a wide margin) -------
#
# A replay says how big its body is before it is decompressed, so every limit is checked before
# the work it bounds: a refused file costs well under a second and a few MB, never what its
# header asks for.

#: The whole file. The largest real one is 0.9 MiB (an uncompressed replay); compressed ones are
#: 1-25 KB. Checked on the file's size before it is read.
MAX_FILE_SIZE = 32 << 20
#: The decompressed body (names, flags, packets). The largest real one is 2.3 MiB (5,845 packets).
MAX_BODY_SIZE = 32 << 20
#: How many times its compressed size a body may announce. The real bodies expand at most 136
#: times (LZMA of the message stream); 1,024 leaves 7 times that, and a 28 KB file announcing
#: 200 MB (7,000 times) is refused from its header alone.
MAX_RATIO = 1024
#: The YRP1 embedded in a yrpX (decks and responses): at most 5 KB decoded in the corpus.
MAX_EMBEDDED_SIZE = 1 << 20
#: Packets in the message stream: at most 5,845 in the corpus (one per 400 body bytes).
MAX_PACKETS = 100_000
#: Packets read before a body that could hold more than MAX_PACKETS has the rest counted: above
#: every real duel, and few enough that refusing a forged stream builds under a megabyte of them.
_COUNT_AFTER = 8_192
#: Player responses in a YRP1: at most 816 in the corpus.
MAX_RESPONSES = 100_000

DUEL_PSEUDO_SHUFFLE = 0x10
DUEL_RELAY = 0x80
DUEL_SEPARATE_PZONE = 0x1000
DUEL_EMZONE = 0x2000
DUEL_FSX_MMZONE = 0x4000
DUEL_1ST_TURN_DRAW = 0x200
DUEL_1_FACEUP_FIELD = 0x400
DUEL_0_ATK_DESTROYED = 0x10000000
DUEL_CAN_REPOS_IF_NON_SUMPLAYER = 0x80000000


class YrpxError(InputError):
    """A replay that cannot be read or imported: what is wrong, and where.

    ``offset`` is a byte offset into the file, or, when ``space`` is ``"body"``, into the
    decompressed body (where the names, flags and packets are)."""

    def __init__(self, message: str, offset: int | None = None, path: str | None = None,
                 space: str = "file") -> None:
        where = []
        if path:
            where.append(str(path))
        if offset is not None:
            where.append(f"byte {offset}" if space == "file" else f"{space} byte {offset}")
        super().__init__(f"{': '.join(where)}: {message}" if where else message)
        self.detail = message
        self.offset = offset
        self.path = path
        self.space = space


# -- decoded structures ------------------------------------------------------------------------

class Packet(NamedTuple):
    """One message of the stream: id, payload, and the payload's offset in the decoded body (a
    tuple: a replay holds thousands, built in one pass)."""

    id: int
    payload: bytes
    offset: int

    @property
    def name(self) -> str:
        return MESSAGE_NAMES.get(self.id) or f"MSG_{self.id}"


class StreamIndex:
    """Where each kind of packet is in a stream, found in C: four in five packets are state
    packets, and walking every packet in Python to find the others was a tenth of an import.
    ``ids`` holds each packet's id, ``second`` its payload's second byte (a state packet's
    location; 0 when the payload is shorter)."""

    __slots__ = ("ids", "second")

    def __init__(self, packets: list[Packet]) -> None:
        self.ids = bytes(map(_FIRST, packets))
        # each payload's second byte as a one-byte slice (CPython keeps one object per byte: no
        # allocation), a shorter payload's empty slice padded to b"\0", all joined in one call
        self.second = b"".join(map(bytes.ljust, map(_SECOND_BYTE, map(_SECOND, packets)), _ONE, _ZERO))

    def where(self, ids: bytes, second: int | None = None) -> list[int]:
        """The packets whose id is one of ``ids`` (and whose payload's second byte is ``second``,
        when given; a payload of two bytes or less may be among them: the caller checks), in order."""
        if second is None:
            return [m.start() for m in re.finditer(b"[" + re.escape(ids) + b"]", self.ids)]
        kind = self.ids
        return [m.start() for m in re.finditer(re.escape(bytes((second,))), self.second) if kind[m.start()] in ids]

    def besides(self, ids: bytes) -> list[int]:
        """The packets whose id is none of ``ids``, in order."""
        return [m.start() for m in re.finditer(b"[^" + re.escape(ids) + b"]", self.ids)]


_FIRST, _SECOND = operator.itemgetter(0), operator.itemgetter(1)
_SECOND_BYTE = operator.itemgetter(slice(1, 2))
_ONE, _ZERO = itertools.repeat(1), itertools.repeat(b"\0")


@dataclass
class Yrp1:
    """The original replay embedded in a yrpX (or a legacy .yrp file): start settings and decks.

    ``decks`` holds (main, extra) per duelist, home team first, in the order EDOPro created the
    cards: the first main-deck code is the bottom of the deck (sequence 0) before the engine's
    own start-of-duel shuffle.
    """

    version: int
    flags: int
    seed: int
    seeds: tuple[int, ...]
    names: list[list[str]]
    start_lp: int
    start_hand: int
    draw_count: int
    duel_flags: int
    decks: list[tuple[tuple[int, ...], tuple[int, ...]]]
    rule_cards: tuple[int, ...]
    responses: int
    script: str = ""


@dataclass
class YrpxReplay:
    """A decoded replay file. ``packets`` is empty for a legacy YRP1 (it holds responses only)."""

    id: int
    version: int
    flags: int
    seed: int                      # a Unix timestamp in EDOPro replays
    datasize: int
    hash: int
    header_version: int
    seeds: tuple[int, ...]
    names: list[list[str]]         # per team
    duel_flags: int
    packets: list[Packet]
    yrp1: Yrp1 | None
    compressed: bool
    body_size: int
    ai_name: str | None = None
    #: The slots of the MSG_UPDATE_DATA packets read so far (``messages.card_slots``), by payload:
    #: the importer and the engine check read each state packet once between them.
    slots: dict[bytes, list] = field(default_factory=dict, repr=False, compare=False)
    #: The MSG_UPDATE_CARD packets' card queries the importer read (``parse_update_card``), by
    #: payload: the engine check takes each one's (passcode, position) from them, not the bytes.
    card_queries: dict[bytes, tuple] = field(default_factory=dict, repr=False, compare=False)
    #: An import's own comparison with the state packets (``import_yrpx(..., check=True)``):
    #: (events, sources, cards, (agreement, audit report)), given once to ``engine_check.check``.
    checked: tuple | None = field(default=None, repr=False, compare=False)

    @property
    def kind(self) -> str:
        return {YRP1: "yrp1", YRP2: "yrp2", YRPX: "yrpX"}.get(self.id, hex(self.id))

    @property
    def client_version(self) -> tuple[int, int]:
        return self.version & 0xFF, (self.version >> 8) & 0xFF

    @property
    def core_version(self) -> tuple[int, int]:
        return (self.version >> 16) & 0xFF, (self.version >> 24) & 0xFF

    @property
    def timestamp(self) -> datetime:
        return datetime.fromtimestamp(self.seed, tz=timezone.utc)

    @property
    def players(self) -> list[str]:
        """One name per side (the first duelist of each team), player 0 first."""
        out = [team[0] if team else "" for team in self.names[:2]]
        if self.ai_name and len(out) > 1:
            out[1] = self.ai_name
        return out

    @property
    def is_puzzle(self) -> bool:
        return bool(self.flags & REPLAY_SINGLE_MODE) and not self.flags & REPLAY_HAND_TEST

    @property
    def is_hand_test(self) -> bool:
        return bool(self.flags & REPLAY_HAND_TEST)


# -- low-level reading -------------------------------------------------------------------------

class Reader:
    """Little-endian reads over a buffer; running past the end is a YrpxError with the offset."""

    __slots__ = ("data", "pos", "base", "what", "space")

    def __init__(self, data: bytes, base: int = 0, what: str = "data", space: str = "body") -> None:
        self.data = data
        self.pos = 0
        self.base = base          # offset of data[0] in the body, for messages
        self.what = what
        self.space = space

    def need(self, n: int, what: str) -> None:
        if self.pos + n > len(self.data):
            raise YrpxError(say("{what} ends inside {part} ({left} of {n} bytes left)",
                                what=self.what, part=what, left=len(self.data) - self.pos, n=n),
                            self.base + self.pos, space=self.space)

    # The fixed-size reads, each with its compiled ``struct`` (a message is a handful of them)
    def u8(self, what: str = "a byte") -> int:
        pos = self.pos
        if pos + 1 > len(self.data):
            self.need(1, what)
        self.pos = pos + 1
        return self.data[pos]

    def u16(self, what: str = "a u16") -> int:
        pos = self.pos
        if pos + 2 > len(self.data):
            self.need(2, what)
        self.pos = pos + 2
        return _U16(self.data, pos)[0]

    def u32(self, what: str = "a u32") -> int:
        pos = self.pos
        if pos + 4 > len(self.data):
            self.need(4, what)
        self.pos = pos + 4
        return _U32(self.data, pos)[0]

    def i32(self, what: str = "an i32") -> int:
        pos = self.pos
        if pos + 4 > len(self.data):
            self.need(4, what)
        self.pos = pos + 4
        return _I32(self.data, pos)[0]

    def u64(self, what: str = "a u64") -> int:
        pos = self.pos
        if pos + 8 > len(self.data):
            self.need(8, what)
        self.pos = pos + 8
        return _U64(self.data, pos)[0]

    def bytes(self, n: int, what: str = "bytes") -> bytes:
        self.need(n, what)
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def loc(self, what: str = "a location") -> "Where":
        """EDOPro's 10-byte location: controller, location, u32 sequence, u32 position."""
        self.need(10, what)
        where = _new_where(_LOC(self.data, self.pos))
        self.pos += 10
        return where

    @property
    def left(self) -> int:
        return len(self.data) - self.pos


_U16, _U32, _I32, _U64 = (struct.Struct(f).unpack_from for f in ("<H", "<I", "<i", "<Q"))
_LOC = struct.Struct("<BBII").unpack_from


class Where(NamedTuple):
    """An EDOPro location: controller, location bits, sequence, position (overlay index for 0x80).
    A tuple: a replay's messages name tens of thousands (a frozen dataclass took 1-4 µs each)."""

    controller: int
    location: int
    sequence: int
    position: int

    def __str__(self) -> str:
        return f"({self.controller},{_LOC_NAMES.get(self.location, hex(self.location))},{self.sequence},{self.position:#x})"


_new_where = Where._make

_LOC_NAMES = {0: "-", LOCATION_DECK: "deck", LOCATION_HAND: "hand", LOCATION_MZONE: "mzone",
              LOCATION_SZONE: "szone", LOCATION_GRAVE: "grave", LOCATION_REMOVED: "removed",
              LOCATION_EXTRA: "extra"}


def _name(raw: bytes) -> str:
    """A NUL-padded UTF-16LE name; what follows the first NUL is garbage and ignored."""
    units = [raw[i:i + 2] for i in range(0, len(raw) - 1, 2)]
    if b"\0\0" in units:
        units = units[:units.index(b"\0\0")]
    return b"".join(units).decode("utf-16-le", errors="replace")


def _header(data: bytes, what: str) -> tuple[tuple, int, int, tuple[int, ...]]:
    """(base fields, header length, header version, seeds) of a replay header."""
    if len(data) < BASE_HEADER_SIZE:
        raise YrpxError(say("{what} is {count} bytes: too short for a replay header ({BASE_HEADER_SIZE} bytes)",
                            what=what, count=len(data), BASE_HEADER_SIZE=BASE_HEADER_SIZE), 0)
    base = struct.unpack_from("<6I8s", data, 0)
    ident, flags = base[0], base[2]
    if ident not in (YRP1, YRP2, YRPX):
        raise YrpxError(say("{what} is not a YGOPro/EDOPro replay (id {ident:#010x}; expected yrp1, yrp2 or yrpX)",
                            what=what, ident=ident), 0)
    if ident == YRP2:
        if len(data) < YRP2_HEADER_SIZE:
            raise YrpxError(say("{what} ends inside the YRP2 header", what=what), len(data))
        seeds = struct.unpack_from("<8I", data, BASE_HEADER_SIZE)
        return base, YRP2_HEADER_SIZE, 0, seeds
    if flags & REPLAY_EXTENDED_HEADER:
        if len(data) < EXTENDED_HEADER_SIZE:
            raise YrpxError(say("{what} ends inside the extended header ({count} of {EXTENDED_HEADER_SIZE} bytes)",
                                what=what, count=len(data), EXTENDED_HEADER_SIZE=EXTENDED_HEADER_SIZE), len(data))
        header_version, *seeds = struct.unpack_from("<5Q", data, BASE_HEADER_SIZE)
        if header_version > 1:
            raise YrpxError(say("extended header version {header_version} is newer than this reader knows (1)",
                                header_version=header_version), BASE_HEADER_SIZE)
        return base, EXTENDED_HEADER_SIZE, header_version, tuple(seeds)
    return base, BASE_HEADER_SIZE, 0, (base[3],)


def _body(data: bytes, base: tuple, header_size: int, what: str, limit: int = MAX_BODY_SIZE,
          largest: str = "about 2 MiB") -> bytes:
    """The body after the header, decompressed; never more than ``limit`` bytes, and never more
    than ``MAX_RATIO`` times the compressed bytes, both checked before anything is decompressed."""
    ident, _version, flags, _seed, datasize, _hash, props = base
    packed = len(data) - header_size
    if not flags & REPLAY_COMPRESSED:
        if packed > limit:
            raise YrpxError(say("{what}: the body is {packed:,} bytes; a replay body is at most {limit:,} ({mib}; "
                                "the largest real ones are {largest})",
                                what=what, packed=packed, limit=limit, mib=_mib(limit), largest=largest), header_size)
        return bytes(data[header_size:])
    if datasize > limit:
        raise YrpxError(say("{what}: the header announces a body of {datasize:,} bytes; a replay body is at most "
                            "{limit:,} ({mib}; the largest real ones are {largest})",
                            what=what, datasize=datasize, limit=limit, mib=_mib(limit),
                            largest=largest), DATASIZE_OFFSET)
    if datasize > MAX_RATIO * packed:
        raise YrpxError(say("{what}: the header announces a body of {datasize:,} bytes, more than {MAX_RATIO:,} "
                            "times the {packed:,} compressed bytes that follow (real replays expand at most about "
                            "140 times): a truncated or forged file",
                            what=what, datasize=datasize, MAX_RATIO=MAX_RATIO, packed=packed), DATASIZE_OFFSET)
    # A valid stream never refers back past its own start, so a dictionary the size of the body
    # always suffices: a forged header's 4 GiB dictionary is not allocated as it asks.
    dictionary = min(struct.unpack_from("<I", props, 1)[0], max(datasize, 4096))
    stream = props[:1] + struct.pack("<IQ", dictionary, datasize) + data[header_size:]
    try:
        decompressor = lzma.LZMADecompressor(format=lzma.FORMAT_ALONE, memlimit=dictionary + (64 << 20))
        body = decompressor.decompress(stream, max_length=datasize)
    except lzma.LZMAError as err:
        raise YrpxError(say("{what}: the LZMA body cannot be decompressed ({err})",
                            what=what, err=err), header_size) from None
    if len(body) < datasize:
        raise YrpxError(say("{what}: the compressed body holds {count} of the {datasize} bytes the header announces "
                            "(truncated file?)", what=what, count=len(body), datasize=datasize), len(data))
    return body[:datasize]


def _mib(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def _names(r: Reader, flags: int) -> list[list[str]]:
    if flags & REPLAY_SINGLE_MODE:                   # puzzles and hand tests: two names, no counts
        return [[_name(r.bytes(NAME_SIZE, "player name"))], [_name(r.bytes(NAME_SIZE, "player name"))]]
    teams = []
    for team in range(2):
        if flags & REPLAY_NEWREPLAY:
            count = r.u32(f"team {team} size")
            if not 0 < count <= 8:
                raise YrpxError(say("team {team} has {count} players", team=team, count=count), r.base + r.pos - 4,
                                space="body")
        else:
            count = 2 if flags & REPLAY_TAG else 1
        teams.append([_name(r.bytes(NAME_SIZE, f"team {team} player name")) for _ in range(count)])
    return teams


def _decode(data: bytes, what: str, nested: bool = False) -> YrpxReplay:
    base, header_size, header_version, seeds = _header(data, what)
    ident, version, flags, seed, datasize, hash_, _props = base
    body = _body(data, base, header_size, what)
    r = Reader(body, 0, f"{what} body")
    names = _names(r, flags)
    packets: list[Packet] = []
    yrp1 = None
    ai_name = None
    if ident == YRPX:
        duel_flags = r.u64("duel flags") if flags & REPLAY_64BIT_DUELFLAG else r.u32("duel flags")
        # One bounds check per packet (its end; a head cut short ``struct`` refuses itself); the
        # reader only words the error of a packet that does not fit.
        pos, end, head, append, new = r.pos, len(body), _PACKET_HEAD, packets.append, tuple.__new__
        # A body that could hold more than MAX_PACKETS has the rest of its headers counted once
        # _COUNT_AFTER packets are read: a real duel's stream is no longer walked twice.
        countdown = -1 if end - pos < 5 * (MAX_PACKETS + 1) else _COUNT_AFTER + 1
        while pos < end:
            start = pos
            countdown -= 1
            if not countdown:
                _count_packets(body, pos, _COUNT_AFTER)
            try:
                mid, length = head(body, pos)
            except struct.error:                  # under 5 bytes left: the reader words it (and raises)
                r.pos = pos
                r.u32(f"the length of packet {r.u8('a packet id')} at body byte {start}")
                raise
            at = pos + 5
            pos = at + length
            if pos > end:
                r.pos = at
                r.bytes(length, f"packet {mid} (announced {length} bytes) at body byte {start}")
            if mid != OLD_REPLAY_MODE and mid != MSG_AI_NAME:
                append(new(Packet, (mid, body[at:pos], at)))    # ``Packet(...)`` less a call
                continue
            payload = body[at:pos]
            if mid == OLD_REPLAY_MODE:
                if yrp1 is not None:
                    raise YrpxError(say("a second embedded YRP1 replay (a yrpX holds one, in its last packet)"),
                                    start, space="body")
                try:
                    yrp1 = _decode_yrp1(payload, f"{what}: embedded replay")
                except YrpxError as err:
                    raise YrpxError(say("{detail} (in the embedded YRP1 at body byte {byte})",
                                        detail=err.detail, byte=start + 5), err.offset,
                                    space="embedded replay " + err.space) from None
                continue
            if len(payload) >= 2:
                n = struct.unpack_from("<H", payload)[0]
                ai_name = payload[2:2 + n].decode("utf-8", errors="replace")
                continue
            append(Packet(mid, payload, start + 5))
    else:
        yrp1 = _yrp1_from(r, base, names, seeds)
        duel_flags = yrp1.duel_flags
    return YrpxReplay(ident, version, flags, seed, datasize, hash_, header_version, seeds, names,
                      duel_flags, packets, yrp1, bool(flags & REPLAY_COMPRESSED), len(body), ai_name)


_PACKET_HEAD = struct.Struct("<BI").unpack_from


def _count_packets(body: bytes, pos: int, count: int) -> None:
    """Refuse a stream of more than ``MAX_PACKETS`` packets, ``count`` of them read before
    ``pos``, before more are built: walks the 5-byte packet headers only (a truncated last packet
    is left for the reader to report)."""
    end, unpack = len(body), _U32
    if end - pos < 5 * (MAX_PACKETS + 1 - count):
        return                                # too short to hold that many: nothing to count
    while pos + 5 <= end:
        if count == MAX_PACKETS:
            raise YrpxError(say("the message stream holds more than {MAX_PACKETS:,} packets (a real duel has a few "
                                "thousand)", MAX_PACKETS=MAX_PACKETS), pos, space="body")
        pos += 5 + unpack(body, pos + 1)[0]
        count += 1


def _decode_yrp1(data: bytes, what: str) -> Yrp1:
    base, header_size, _hv, seeds = _header(data, what)
    if base[0] != YRP1:
        raise YrpxError(say("{what} is not a YRP1 replay (id {ident:#010x})", what=what, ident=base[0]), 0)
    body = _body(data, base, header_size, what, MAX_EMBEDDED_SIZE, largest="about 5 KB")
    r = Reader(body, 0, f"{what} body")
    names = _names(r, base[2])
    return _yrp1_from(r, base, names, seeds)


def _yrp1_from(r: Reader, base: tuple, names: list[list[str]], seeds: tuple[int, ...]) -> Yrp1:
    _ident, version, flags, seed = base[:4]
    start_lp = r.u32("start LP")
    start_hand = r.u32("start hand")
    draw_count = r.u32("draw count")
    duel_flags = r.u64("duel flags") if flags & REPLAY_64BIT_DUELFLAG else r.u32("duel flags")
    script = ""
    if flags & REPLAY_SINGLE_MODE:
        n = r.u16("puzzle script name length")
        script = r.bytes(n, "puzzle script name").decode("utf-8", errors="replace")
    decks: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    rule_cards: tuple[int, ...] = ()
    if not flags & REPLAY_SINGLE_MODE or flags & REPLAY_HAND_TEST:
        for duelist in range(sum(len(team) for team in names)):
            main = _codes(r, f"duelist {duelist} main deck")
            extra = _codes(r, f"duelist {duelist} extra deck")
            decks.append((main, extra))
        if flags & REPLAY_NEWREPLAY and not flags & REPLAY_HAND_TEST and r.left >= 4:
            rule_cards = _codes(r, "rule cards")
    responses = 0
    data, pos, end = r.data, r.pos, len(r.data)      # counted, not kept: one bounds check each
    while pos < end:
        if responses == MAX_RESPONSES:
            raise YrpxError(say("more than {MAX_RESPONSES:,} player responses (a real duel has hundreds)",
                                MAX_RESPONSES=MAX_RESPONSES),
                            r.base + pos, space="body")
        n = data[pos]
        pos += 1
        if n == 0:
            break
        if pos + n > end:
            r.pos = pos
            r.bytes(n, "a response")                 # says what is cut short, and where
        pos += n
        responses += 1
    r.pos = pos
    return Yrp1(version, flags, seed, seeds, names, start_lp, start_hand, draw_count, duel_flags,
                decks, rule_cards, responses, script)


def _codes(r: Reader, what: str) -> tuple[int, ...]:
    count = r.u32(f"{what} size")
    if count > 500:
        raise YrpxError(say("{what} announces {count} cards", what=what, count=count), r.base + r.pos - 4, space="body")
    return tuple(r.u32(f"{what} card") for _ in range(count))


def read_yrpx(path_or_bytes: str | os.PathLike[str] | bytes | bytearray) -> YrpxReplay:
    """Decode a ``.yrpX`` (or legacy ``.yrp``) file: header, body, names, flags, packets, YRP1.

    Raises ``YrpxError`` (with the byte offset) for anything that is not a readable replay.
    """
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        what = "replay"
        if len(path_or_bytes) > MAX_FILE_SIZE:
            raise YrpxError(_too_large(len(path_or_bytes)))
        data = bytes(path_or_bytes)
    else:
        what = str(path_or_bytes)
        data = read_file(path_or_bytes)
    try:
        return _decode(data, "replay")
    except YrpxError as err:
        if what != "replay":
            raise YrpxError(err.detail, err.offset, what, err.space) from None
        raise


def read_file(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a replay file, read once: at most ``MAX_FILE_SIZE`` of them, of a regular file
    only (a pipe or a device is refused unread, never waited on). A caller that keeps something of
    the file (its digest, its size) takes it from these bytes, not from a second read that a file
    swapped in meanwhile would answer. ``YrpxError`` naming the file for what cannot be read."""
    what = str(path)
    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size           # before reading: a 2 GiB file is not read
            if size > MAX_FILE_SIZE:
                raise YrpxError(_too_large(size), None, what)
            data = f.read(MAX_FILE_SIZE + 1)              # a file that grew stops here
    except OSError as err:
        raise YrpxError(say("cannot read: {strerror}", strerror=err.strerror), None, what) from None
    if len(data) > MAX_FILE_SIZE:
        raise YrpxError(_too_large(len(data), more=True), None, what)
    return data


def _too_large(size: int, more: bool = False) -> str:
    return (f"the file is {'more than ' if more else ''}{MAX_FILE_SIZE if more else size:,} bytes; a replay file is at "
            f"most {MAX_FILE_SIZE:,} ({_mib(MAX_FILE_SIZE)}; the largest real ones are about 1 MB)")
