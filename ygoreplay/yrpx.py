"""Import EDOPro ``.yrpX`` replays: decode the file, then turn the engine's messages into our events.

A ``.yrpX`` file holds the message stream the EDOPro server sent during a duel (``MSG_DRAW``,
``MSG_MOVE``, ``MSG_CHAINING`` …) plus, in its last packet, the original ``.yrp`` replay (start
settings, deck lists, player responses). Layouts follow edo9300/edopro ``gframe/replay.cpp``,
``generic_duel.cpp``, ``duelclient.cpp`` and edo9300/ygopro-core ``ocgapi_constants.h``; the format
facts are in ``shared/formats/EDOPRO-REPLAYS.md``.

Two layers, usable on their own::

    replay = read_yrpx("2021-04-19_12-09-41.yrpX")     # header, names, flags, packets, embedded YRP1
    result = import_yrpx("2021-04-19_12-09-41.yrpX")   # our events + card facts + what EDOPro said
    report = rules.audit(result.events, result.cards)
    agreement = fold_and_compare(result)               # that audit, LP and winner, the engine's boards

``read_yrpx`` only decodes (``parse_update_data``/``parse_update_card``/``card_slots`` read the
server's state packets; the race item is 4 bytes before core 10 and 8 from it, read by its size
like every item). ``import_yrpx`` keeps a mirror of EDOPro's field (every card by
controller, location and sequence, as the engine numbers them) so each message names the right
card instance, and maps the stream to our vocabulary: a deck order that makes every draw take the
card EDOPro drew, summons with their Tributes and materials, activations with their costs and
targets, chain resolution, attacks with the steps and damage calculation our fold expects, LP
changes and the result. What it cannot map is listed in ``ImportResult.notes``; anything wrong with
the file raises ``YrpxError`` naming what and where.

How the stream becomes our events (the parts the stream does not spell out):

* **Card ids and deck order.** Cards are registered from the embedded YRP1 deck lists
  (``p0.m7`` is index 7 of player 0's list as stored, bottom of the deck first). Each shuffle
  starts an *epoch* in which the deck's positions are unknown; when a card leaves the deck its
  passcode pins an id to that position, and so does the engine's listing of the whole Deck (a
  state packet after every chain), so the ``deck_shuffled`` written at the shuffle carries the
  engine's own order. Cards with the same passcode are interchangeable.
* **Duel options.** The room's start LP, opening hand and draw count, and a deck check that was
  off (a deck the check would refuse), are duel options of ``duel_started`` (CONF-01), not
  breaches of SETUP-01/02, TURN-02 or DECK-01..06.
* **Where each event begins.** ``ImportResult.sources`` gives the first packet behind each event:
  an activation begins where its card was put in its zone or turned face-up, a summon at its
  first Tribute or material. The engine's state packets show those changes from there on, and
  ``engine_check`` compares the board with every state packet on that footing.
* **Summons.** A move to a Monster Zone followed by MSG_SUMMONING / MSG_SET is a Normal Summon
  or Set (the Tributes are the releases just before it); one with the SPSUMMON reason is a
  Special Summon whose method comes from its materials' reason bits (fusion, synchro, xyz, link,
  ritual), else ``effect`` while a chain link resolves, ``pendulum`` when the player's Scales
  allow it, ``inherent`` otherwise.
* **Activations.** A Spell/Trap card moved from the hand, or turned face-up, just before
  MSG_CHAINING is a card activation; anything else is an effect: ``ignition`` in the player's
  open game state, ``trigger`` outside it, ``quick`` when chained to (the stream does not name
  the effect type). Costs and targets are what happens between MSG_CHAINING and MSG_CHAINED.
* **Moves on the field.** A card moved to another zone of its controller's row is a
  ``zone_changed``; an Xyz monster's materials attached while it is still in the Extra Deck wait
  for its summon; a Spell/Trap an effect turns face-down (or face-up) is a ``position_changed``
  with that cause. A monster's position change is manual only when it answers an idle command
  (the server's field and hand refreshes just before it), else an effect's (POS-07/08).
* **Battle.** Steps EDOPro does not announce are written in; stats are synced to the ATK/DEF of
  MSG_BATTLE; an attacked face-down monster is flipped where the engine flips it (POS-04); the
  recorded destruction and battle damage are what EDOPro then did.
* **Cites (GEN-01).** Where EDOPro did something the basic rules forbid, the event cites the
  card the stream shows doing it: the chain link resolving, the card a HINT_CARD names, the
  link that resolved with no other outcome just before (e.g. "Normal Summon 1 monster"), or the
  card's own text (a summon procedure, "can attack directly", piercing damage).
* **A skipped Draw Phase (TURN-01).** "Skip your next Draw Phase" is an effect registered on
  the player (EFFECT_SKIP_DP) long before the skip; at the skip EDOPro sends only MSG_NEW_TURN
  then MSG_NEW_PHASE for the Standby Phase, and the replay holds no card texts. So the
  ``phase_entered`` standby event cites the chain link that, judged by what the stream says
  about it, most likely registered the skip. Candidates are the links that resolved (not
  negated) since that player's last Draw Phase that was not skipped, plus any link whose
  client hint is still on the player. What the stream can say about a link:

  - MSG_PLAYER_HINT ``PHINT_DESC_ADD`` (6) on a player, sent while the link resolved: the core
    writes it when an effect with EFFECT_FLAG_CLIENT_HINT is registered on the player, and
    ``PHINT_DESC_REMOVE`` (7) when that effect goes away. The description names the card and
    the effect (``aux.Stringid(code, n)``).
  - MSG_HINT ``HINT_OPSELECTED`` (4): a script telling the opponent which of its card's
    effects was chosen; its data is the effect's description. EDOPro descriptions are u64
    ``code << 20 | n`` (MSG_CHAINING carries the same); YGOPro's u32 ``code << 4 | n`` is
    recognised too. The server does not record HINT_EFFECT (5) or the select hints (1-3).
  - What the link did while it resolved: cards its player drew (MSG_DRAW) or moved from their
    Deck to their hand (MSG_MOVE), and whether one of those was the top card taken without a
    draw (Dr. Frankenderp's "add the top card of your Deck to your hand").

  The choice, strongest evidence first (ties: more cards for 1-4, then the later link):

  1. a client hint the link put on the skipping player, still in force at the skip, from an
     opponent's link or one that gave its player cards: the stream names the lasting effect.
     Cited without "inferred";
  2. an effect HINT_OPSELECTED named that gave its player cards from the Deck (Number 60:
     Dugares the Timeless, "draw 2 … skip your next Draw Phase");
  3. an effect that took the top card of its player's Deck into the hand without a draw: the
     card the next Draw Phase would have drawn, taken early;
  4. an effect that gave its player cards from the Deck (a skipped Draw Phase is the usual
     price of extra cards: Reckless Greed, Dugares, Frankenderp);
  5. any other client hint still on the player;
  6. the most recent effect that player resolved.

  A link whose own client hint on the player was removed before the skip comes after all of
  these: its lasting effect on the player was over (Pot of Extravagance's "no more draws this
  turn"). Levels 2-6 are inferences, not proof: the cite says "inferred", and an import note
  names the evidence and the packet. With no candidate at all there is no cite, only a note.
  No passcode is looked up: the card names above are what the real corpus shows.
* **Deck check.** A deck that breaks DECK-01..06 is imported as it is (the audit reports it);
  an import note says EDOPro's deck check was off. That is not a card effect, so nothing is
  cited; the room option itself is not in the file, only "Don't shuffle deck" is (the duel
  flag DUEL_PSEUDO_SHUFFLE), and the note says so when it is set.
"""
from __future__ import annotations

import lzma
import os
import struct
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from .errors import InputError

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
#: Player responses in a YRP1: at most 816 in the corpus.
MAX_RESPONSES = 100_000

DUEL_PSEUDO_SHUFFLE = 0x10
DUEL_RELAY = 0x80
DUEL_SEPARATE_PZONE = 0x1000
DUEL_EMZONE = 0x2000
DUEL_FSX_MMZONE = 0x4000

# -- message ids (ocgapi_constants.h) ----------------------------------------------------------

MSG_RETRY, MSG_HINT, MSG_WAITING, MSG_START, MSG_WIN, MSG_UPDATE_DATA, MSG_UPDATE_CARD = 1, 2, 3, 4, 5, 6, 7
MSG_CONFIRM_DECKTOP, MSG_CONFIRM_CARDS, MSG_SHUFFLE_DECK, MSG_SHUFFLE_HAND = 30, 31, 32, 33
MSG_REFRESH_DECK, MSG_SWAP_GRAVE_DECK, MSG_SHUFFLE_SET_CARD, MSG_REVERSE_DECK = 34, 35, 36, 37
MSG_DECK_TOP, MSG_SHUFFLE_EXTRA, MSG_NEW_TURN, MSG_NEW_PHASE, MSG_CONFIRM_EXTRATOP = 38, 39, 40, 41, 42
MSG_MOVE, MSG_POS_CHANGE, MSG_SET, MSG_SWAP, MSG_FIELD_DISABLED = 50, 53, 54, 55, 56
MSG_SUMMONING, MSG_SUMMONED, MSG_SPSUMMONING, MSG_SPSUMMONED = 60, 61, 62, 63
MSG_FLIPSUMMONING, MSG_FLIPSUMMONED = 64, 65
MSG_CHAINING, MSG_CHAINED, MSG_CHAIN_SOLVING, MSG_CHAIN_SOLVED = 70, 71, 72, 73
MSG_CHAIN_END, MSG_CHAIN_NEGATED, MSG_CHAIN_DISABLED = 74, 75, 76
MSG_CARD_SELECTED, MSG_RANDOM_SELECTED, MSG_BECOME_TARGET = 80, 81, 83
MSG_DRAW, MSG_DAMAGE, MSG_RECOVER, MSG_EQUIP, MSG_LPUPDATE, MSG_UNEQUIP = 90, 91, 92, 93, 94, 95
MSG_CARD_TARGET, MSG_CANCEL_TARGET, MSG_PAY_LPCOST, MSG_ADD_COUNTER, MSG_REMOVE_COUNTER = 96, 97, 100, 101, 102
MSG_ATTACK, MSG_BATTLE, MSG_ATTACK_DISABLED, MSG_DAMAGE_STEP_START, MSG_DAMAGE_STEP_END = 110, 111, 112, 113, 114
MSG_MISSED_EFFECT, MSG_BE_CHAIN_TARGET, MSG_CREATE_RELATION, MSG_RELEASE_RELATION = 120, 121, 122, 123
MSG_TOSS_COIN, MSG_TOSS_DICE, MSG_ROCK_PAPER_SCISSORS, MSG_HAND_RES = 130, 131, 132, 133
MSG_CARD_HINT, MSG_TAG_SWAP, MSG_RELOAD_FIELD, MSG_AI_NAME, MSG_SHOW_HINT, MSG_PLAYER_HINT = 160, 161, 162, 163, 164, 165
MSG_MATCH_KILL, MSG_CUSTOM_MSG, MSG_REMOVE_CARDS = 170, 180, 190
OLD_REPLAY_MODE = 231

MESSAGE_NAMES = {value: name for name, value in globals().items()
                 if name.startswith("MSG_") and isinstance(value, int)}
MESSAGE_NAMES[OLD_REPLAY_MODE] = "OLD_REPLAY_MODE"

# -- field constants ---------------------------------------------------------------------------

LOCATION_DECK, LOCATION_HAND, LOCATION_MZONE, LOCATION_SZONE = 0x01, 0x02, 0x04, 0x08
LOCATION_GRAVE, LOCATION_REMOVED, LOCATION_EXTRA, LOCATION_OVERLAY = 0x10, 0x20, 0x40, 0x80
POS_FACEUP_ATTACK, POS_FACEDOWN_ATTACK, POS_FACEUP_DEFENSE, POS_FACEDOWN_DEFENSE = 0x1, 0x2, 0x4, 0x8
POS_FACEUP, POS_FACEDOWN = 0x5, 0xA
POS_ATTACK, POS_DEFENSE = 0x3, 0xC

REASON_DESTROY, REASON_RELEASE, REASON_TEMPORARY, REASON_MATERIAL = 0x1, 0x2, 0x4, 0x8
REASON_SUMMON, REASON_BATTLE, REASON_EFFECT, REASON_COST = 0x10, 0x20, 0x40, 0x80
REASON_ADJUST, REASON_LOST_TARGET, REASON_RULE, REASON_SPSUMMON = 0x100, 0x200, 0x400, 0x800
REASON_DISSUMMON, REASON_FLIP, REASON_DISCARD, REASON_RDAMAGE = 0x1000, 0x2000, 0x4000, 0x8000
REASON_RRECOVER, REASON_RETURN, REASON_FUSION, REASON_SYNCHRO = 0x10000, 0x20000, 0x40000, 0x80000
REASON_RITUAL, REASON_XYZ, REASON_REPLACE, REASON_DRAW = 0x100000, 0x200000, 0x1000000, 0x2000000
REASON_REDIRECT, REASON_REVEAL, REASON_LINK = 0x4000000, 0x8000000, 0x10000000

PHASE_DRAW, PHASE_STANDBY, PHASE_MAIN1, PHASE_BATTLE_START = 0x01, 0x02, 0x04, 0x08
PHASE_BATTLE_STEP, PHASE_DAMAGE, PHASE_DAMAGE_CAL, PHASE_BATTLE = 0x10, 0x20, 0x40, 0x80
PHASE_MAIN2, PHASE_END = 0x100, 0x200

QUERY_CODE, QUERY_POSITION, QUERY_ALIAS, QUERY_TYPE = 0x1, 0x2, 0x4, 0x8
QUERY_LEVEL, QUERY_RANK, QUERY_ATTRIBUTE, QUERY_RACE = 0x10, 0x20, 0x40, 0x80
QUERY_ATTACK, QUERY_DEFENSE, QUERY_BASE_ATTACK, QUERY_BASE_DEFENSE = 0x100, 0x200, 0x400, 0x800
QUERY_REASON, QUERY_REASON_CARD, QUERY_EQUIP_CARD, QUERY_TARGET_CARD = 0x1000, 0x2000, 0x4000, 0x8000
QUERY_OVERLAY_CARD, QUERY_COUNTERS, QUERY_OWNER, QUERY_STATUS = 0x10000, 0x20000, 0x40000, 0x80000
QUERY_IS_PUBLIC, QUERY_LSCALE, QUERY_RSCALE, QUERY_LINK = 0x100000, 0x200000, 0x400000, 0x800000
QUERY_IS_HIDDEN, QUERY_COVER, QUERY_END = 0x1000000, 0x2000000, 0x80000000

TYPE_MONSTER, TYPE_SPELL, TYPE_TRAP, TYPE_TOKEN, TYPE_LINK = 0x1, 0x2, 0x4, 0x4000, 0x4000000
TYPE_XYZ, TYPE_PENDULUM, TYPE_FLIP, TYPE_FIELD = 0x800000, 0x1000000, 0x200000, 0x80000
TYPE_TUNER, TYPE_SPSUMMON = 0x1000, 0x2000000

#: MSG_WIN reasons (ocgcore): 0 surrender, 1 LP 0, 2 deck out, 3 time, 4 disconnect (client side).
WIN_REASONS = {0: "surrender", 1: "lp", 2: "deck_out", 3: "time", 4: "disconnect"}


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

@dataclass(frozen=True)
class Packet:
    """One message of the stream: id, payload, and the payload's offset in the decoded body."""

    id: int
    payload: bytes
    offset: int

    @property
    def name(self) -> str:
        return MESSAGE_NAMES.get(self.id, f"MSG_{self.id}")


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

class _Reader:
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
            raise YrpxError(f"{self.what} ends inside {what} ({len(self.data) - self.pos} of {n} bytes left)",
                            self.base + self.pos, space=self.space)

    def unpack(self, fmt: str, size: int, what: str) -> Any:
        self.need(size, what)
        value = struct.unpack_from(fmt, self.data, self.pos)[0]
        self.pos += size
        return value

    def u8(self, what: str = "a byte") -> int:
        return self.unpack("<B", 1, what)

    def u16(self, what: str = "a u16") -> int:
        return self.unpack("<H", 2, what)

    def u32(self, what: str = "a u32") -> int:
        return self.unpack("<I", 4, what)

    def i32(self, what: str = "an i32") -> int:
        return self.unpack("<i", 4, what)

    def u64(self, what: str = "a u64") -> int:
        return self.unpack("<Q", 8, what)

    def bytes(self, n: int, what: str = "bytes") -> bytes:
        self.need(n, what)
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def loc(self, what: str = "a location") -> "Where":
        """EDOPro's 10-byte location: controller, location, u32 sequence, u32 position."""
        self.need(10, what)
        c, l, s, p = struct.unpack_from("<BBII", self.data, self.pos)
        self.pos += 10
        return Where(c, l, s, p)

    @property
    def left(self) -> int:
        return len(self.data) - self.pos


@dataclass(frozen=True, slots=True)
class Where:
    """An EDOPro location: controller, location bits, sequence, position (overlay index for 0x80)."""

    controller: int
    location: int
    sequence: int
    position: int

    def __str__(self) -> str:
        return f"({self.controller},{_LOC_NAMES.get(self.location, hex(self.location))},{self.sequence},{self.position:#x})"


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
        raise YrpxError(f"{what} is {len(data)} bytes: too short for a replay header ({BASE_HEADER_SIZE} bytes)", 0)
    base = struct.unpack_from("<6I8s", data, 0)
    ident, flags = base[0], base[2]
    if ident not in (YRP1, YRP2, YRPX):
        raise YrpxError(f"{what} is not a YGOPro/EDOPro replay (id {ident:#010x}; expected yrp1, yrp2 or yrpX)", 0)
    if ident == YRP2:
        if len(data) < YRP2_HEADER_SIZE:
            raise YrpxError(f"{what} ends inside the YRP2 header", len(data))
        seeds = struct.unpack_from("<8I", data, BASE_HEADER_SIZE)
        return base, YRP2_HEADER_SIZE, 0, seeds
    if flags & REPLAY_EXTENDED_HEADER:
        if len(data) < EXTENDED_HEADER_SIZE:
            raise YrpxError(f"{what} ends inside the extended header ({len(data)} of {EXTENDED_HEADER_SIZE} bytes)", len(data))
        header_version, *seeds = struct.unpack_from("<5Q", data, BASE_HEADER_SIZE)
        if header_version > 1:
            raise YrpxError(f"extended header version {header_version} is newer than this reader knows (1)", BASE_HEADER_SIZE)
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
            raise YrpxError(f"{what}: the body is {packed:,} bytes; a replay body is at most {limit:,} "
                            f"({_mib(limit)}; the largest real ones are {largest})", header_size)
        return bytes(data[header_size:])
    if datasize > limit:
        raise YrpxError(f"{what}: the header announces a body of {datasize:,} bytes; a replay body is at most "
                        f"{limit:,} ({_mib(limit)}; the largest real ones are {largest})", DATASIZE_OFFSET)
    if datasize > MAX_RATIO * packed:
        raise YrpxError(f"{what}: the header announces a body of {datasize:,} bytes, more than {MAX_RATIO:,} times "
                        f"the {packed:,} compressed bytes that follow (real replays expand at most about 140 times): "
                        "a truncated or forged file", DATASIZE_OFFSET)
    # A valid stream never refers back past its own start, so a dictionary the size of the body
    # always suffices: a forged header's 4 GiB dictionary is not allocated as it asks.
    dictionary = min(struct.unpack_from("<I", props, 1)[0], max(datasize, 4096))
    stream = props[:1] + struct.pack("<IQ", dictionary, datasize) + data[header_size:]
    try:
        decompressor = lzma.LZMADecompressor(format=lzma.FORMAT_ALONE, memlimit=dictionary + (64 << 20))
        body = decompressor.decompress(stream, max_length=datasize)
    except lzma.LZMAError as err:
        raise YrpxError(f"{what}: the LZMA body cannot be decompressed ({err})", header_size) from None
    if len(body) < datasize:
        raise YrpxError(f"{what}: the compressed body holds {len(body)} of the {datasize} bytes the header announces "
                        "(truncated file?)", len(data))
    return body[:datasize]


def _mib(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def _names(r: _Reader, flags: int) -> list[list[str]]:
    if flags & REPLAY_SINGLE_MODE:                   # puzzles and hand tests: two names, no counts
        return [[_name(r.bytes(NAME_SIZE, "player name"))], [_name(r.bytes(NAME_SIZE, "player name"))]]
    teams = []
    for team in range(2):
        if flags & REPLAY_NEWREPLAY:
            count = r.u32(f"team {team} size")
            if not 0 < count <= 8:
                raise YrpxError(f"team {team} has {count} players", r.base + r.pos - 4, space="body")
        else:
            count = 2 if flags & REPLAY_TAG else 1
        teams.append([_name(r.bytes(NAME_SIZE, f"team {team} player name")) for _ in range(count)])
    return teams


def _decode(data: bytes, what: str, nested: bool = False) -> YrpxReplay:
    base, header_size, header_version, seeds = _header(data, what)
    ident, version, flags, seed, datasize, hash_, _props = base
    body = _body(data, base, header_size, what)
    r = _Reader(body, 0, f"{what} body")
    names = _names(r, flags)
    packets: list[Packet] = []
    yrp1 = None
    ai_name = None
    if ident == YRPX:
        duel_flags = r.u64("duel flags") if flags & REPLAY_64BIT_DUELFLAG else r.u32("duel flags")
        _count_packets(body, r.pos)
        while r.left:
            start = r.pos
            mid = r.u8("a packet id")
            length = r.u32(f"the length of packet {mid} at body byte {start}")
            payload = r.bytes(length, f"packet {mid} (announced {length} bytes) at body byte {start}")
            if mid == OLD_REPLAY_MODE:
                if yrp1 is not None:
                    raise YrpxError("a second embedded YRP1 replay (a yrpX holds one, in its last packet)",
                                    start, space="body")
                try:
                    yrp1 = _decode_yrp1(payload, f"{what}: embedded replay")
                except YrpxError as err:
                    raise YrpxError(f"{err.detail} (in the embedded YRP1 at body byte {start + 5})", err.offset,
                                    space="embedded replay " + err.space) from None
                continue
            if mid == MSG_AI_NAME and len(payload) >= 2:
                n = struct.unpack_from("<H", payload)[0]
                ai_name = payload[2:2 + n].decode("utf-8", errors="replace")
                continue
            packets.append(Packet(mid, payload, start + 5))
    else:
        yrp1 = _yrp1_from(r, base, names, seeds)
        duel_flags = yrp1.duel_flags
    return YrpxReplay(ident, version, flags, seed, datasize, hash_, header_version, seeds, names,
                      duel_flags, packets, yrp1, bool(flags & REPLAY_COMPRESSED), len(body), ai_name)


def _count_packets(body: bytes, pos: int) -> None:
    """Refuse a stream of more than ``MAX_PACKETS`` packets before one is built: walks the
    5-byte packet headers only (a truncated last packet is left for the reader to report)."""
    end, count, unpack = len(body), 0, struct.unpack_from
    while pos + 5 <= end:
        if count == MAX_PACKETS:
            raise YrpxError(f"the message stream holds more than {MAX_PACKETS:,} packets (a real duel has a few "
                            "thousand)", pos, space="body")
        pos += 5 + unpack("<I", body, pos + 1)[0]
        count += 1


def _decode_yrp1(data: bytes, what: str) -> Yrp1:
    base, header_size, _hv, seeds = _header(data, what)
    if base[0] != YRP1:
        raise YrpxError(f"{what} is not a YRP1 replay (id {base[0]:#010x})", 0)
    body = _body(data, base, header_size, what, MAX_EMBEDDED_SIZE, largest="about 5 KB")
    r = _Reader(body, 0, f"{what} body")
    names = _names(r, base[2])
    return _yrp1_from(r, base, names, seeds)


def _yrp1_from(r: _Reader, base: tuple, names: list[list[str]], seeds: tuple[int, ...]) -> Yrp1:
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
    while r.left:
        if responses == MAX_RESPONSES:
            raise YrpxError(f"more than {MAX_RESPONSES:,} player responses (a real duel has hundreds)",
                            r.base + r.pos, space="body")
        n = r.u8("a response length")
        if n == 0:
            break
        r.bytes(n, "a response")
        responses += 1
    return Yrp1(version, flags, seed, seeds, names, start_lp, start_hand, draw_count, duel_flags,
                decks, rule_cards, responses, script)


def _codes(r: _Reader, what: str) -> tuple[int, ...]:
    count = r.u32(f"{what} size")
    if count > 500:
        raise YrpxError(f"{what} announces {count} cards", r.base + r.pos - 4, space="body")
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
        try:
            size = os.stat(path_or_bytes).st_size        # before reading: a 2 GiB file is not read
            if size > MAX_FILE_SIZE:
                raise YrpxError(_too_large(size), None, what)
            with open(path_or_bytes, "rb") as f:
                data = f.read(MAX_FILE_SIZE + 1)         # a file that grew, or a device, stops here
        except OSError as err:
            raise YrpxError(f"cannot read: {err.strerror}", None, what) from None
        if len(data) > MAX_FILE_SIZE:
            raise YrpxError(_too_large(len(data), more=True), None, what)
    try:
        return _decode(data, "replay")
    except YrpxError as err:
        if what != "replay":
            raise YrpxError(err.detail, err.offset, what, err.space) from None
        raise


def _too_large(size: int, more: bool = False) -> str:
    return (f"the file is {'more than ' if more else ''}{MAX_FILE_SIZE if more else size:,} bytes; a replay file is at "
            f"most {MAX_FILE_SIZE:,} ({_mib(MAX_FILE_SIZE)}; the largest real ones are about 1 MB)")


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
    q = Query()
    end = len(data)
    while True:
        if pos + 2 > end:
            raise YrpxError("a card query ends inside an item size", base + pos, space="body")
        size = _unpack_u16(data, pos)[0]
        pos += 2
        if size == 0:
            return None, pos
        if size < 4 or pos + size > end:
            raise YrpxError(f"a card query item of {size} bytes does not fit", base + pos - 2, space="body")
        flag = _unpack_u32(data, pos)[0]
        start = pos + 4
        pos += size
        if flag == QUERY_END:
            return q, pos
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


def parse_update_data(payload: bytes, offset: int = 0) -> tuple[int, int, list[Query | None]]:
    """MSG_UPDATE_DATA: (player, location, one query per sequence, None for an empty zone)."""
    if len(payload) < 6:
        raise YrpxError("MSG_UPDATE_DATA is shorter than its 6-byte head", offset, space="body")
    player, location, size = struct.unpack_from("<BBI", payload)
    end = min(6 + size, len(payload))
    pos = 6
    out: list[Query | None] = []
    while pos < end:
        q, pos = _query(payload, pos, offset)
        out.append(q)
    return player, location, out


def parse_update_card(payload: bytes, offset: int = 0) -> tuple[int, int, int, Query | None]:
    """MSG_UPDATE_CARD: (player, location, sequence, query)."""
    if len(payload) < 3:
        raise YrpxError("MSG_UPDATE_CARD is shorter than its 3-byte head", offset, space="body")
    player, location, sequence = payload[0], payload[1], payload[2]
    return player, location, sequence, _query(payload, 3, offset)[0] if len(payload) >= 5 else None


#: One slot of a state packet as the engine check reads it: (passcode, position), None if empty.
Slot = tuple[int, int] | None


def card_slots(packet: Packet) -> tuple[int, int, int | None, list[Slot]]:
    """A state packet as the engine check reads it: (player, location, sequence, slots), each
    slot the card's (passcode, position) or None for an empty one. MSG_UPDATE_DATA gives every
    slot of the location (sequence None), MSG_UPDATE_CARD its one slot (none when it carries no
    query)."""
    if packet.id == MSG_UPDATE_DATA:
        player, location, queries = parse_update_data(packet.payload, packet.offset)
        return player, location, None, [None if q is None else (q.code or 0, q.position or 0) for q in queries]
    player, location, sequence, q = parse_update_card(packet.payload, packet.offset)
    if q is None:
        return player, location, sequence, [] if len(packet.payload) < 5 else [None]
    return player, location, sequence, [(q.code or 0, q.position or 0)]


# -- game messages -----------------------------------------------------------------------------

def _m_start(r: _Reader) -> dict:
    kind = r.u8("type")
    lp = (r.u32("LP 0"), r.u32("LP 1"))
    deck0, extra0, deck1, extra1 = (r.u16("deck size") for _ in range(4))
    return {"type": kind, "lp": lp, "deck": (deck0, deck1), "extra": (extra0, extra1)}


def _m_win(r: _Reader) -> dict:
    player = r.u8("winner")
    # A surrender (or time-out) packet is written by the server, sometimes one byte short.
    reason = r.u8("reason") if r.left else 0
    return {"player": player, "reason": reason}


def _m_hint(r: _Reader) -> dict:
    kind, player = r.u8("type"), r.u8("player")
    data = r.u64("data") if r.left >= 8 else (r.u32("data") if r.left >= 4 else 0)
    return {"type": kind, "player": player, "data": data}


def _m_player(r: _Reader) -> dict:
    return {"player": r.u8("player")}


def _m_codes(r: _Reader) -> dict:
    player = r.u8("player")
    count = r.u32("count")
    return {"player": player, "codes": tuple(r.u32("code") for _ in range(count))}


def _m_phase(r: _Reader) -> dict:
    return {"phase": r.u16("phase")}


def _m_move(r: _Reader) -> dict:
    return {"code": r.u32("code"), "old": r.loc("old location"), "new": r.loc("new location"),
            "reason": r.u32("reason")}


def _m_pos_change(r: _Reader) -> dict:
    code = r.u32("code")
    c, l, s, old, new = (r.u8(w) for w in ("controller", "location", "sequence", "old position", "new position"))
    return {"code": code, "at": Where(c, l, s, new), "old_pos": old, "new_pos": new}


def _m_code_loc(r: _Reader) -> dict:
    return {"code": r.u32("code"), "at": r.loc()}


def _m_swap(r: _Reader) -> dict:
    return {"code1": r.u32("code"), "at1": r.loc(), "code2": r.u32("code"), "at2": r.loc()}


def _m_chaining(r: _Reader) -> dict:
    code = r.u32("code")
    at = r.loc("card location")
    tc, tl = r.u8("triggering controller"), r.u8("triggering location")
    ts = r.u32("triggering sequence")
    desc = r.u64("description")
    count = r.u32("chain count")
    return {"code": code, "at": at, "triggering": (tc, tl, ts), "desc": desc, "chain": count}


def _m_chain(r: _Reader) -> dict:
    return {"chain": r.u8("chain count")}


def _m_none(r: _Reader) -> dict:
    return {}


def _m_locs(r: _Reader) -> dict:
    count = r.u32("count")
    return {"locs": tuple(r.loc() for _ in range(count))}


def _m_draw(r: _Reader) -> dict:
    player = r.u8("player")
    count = r.u32("count")
    cards = tuple((r.u32("code"), r.u32("position")) for _ in range(count))
    return {"player": player, "codes": tuple(c for c, _ in cards), "positions": tuple(p for _, p in cards)}


def _m_lp(r: _Reader) -> dict:
    return {"player": r.u8("player"), "amount": r.u32("amount")}


def _m_two_locs(r: _Reader) -> dict:
    return {"a": r.loc(), "b": r.loc()}


def _m_counter(r: _Reader) -> dict:
    kind = r.u16("counter type")
    c, l, s = r.u8("controller"), r.u8("location"), r.u8("sequence")
    return {"counter": kind, "at": Where(c, l, s, 0), "count": r.u16("count")}


def _m_battle(r: _Reader) -> dict:
    out = {}
    for side in ("attacker", "target"):
        out[side] = r.loc()
        out[side + "_atk"] = r.i32("ATK")
        out[side + "_def"] = r.i32("DEF")
        out[side + "_destroyed"] = r.u8("destroyed flag")
    return out


def _m_coin(r: _Reader) -> dict:
    player = r.u8("player")
    count = r.u8("count")
    return {"player": player, "results": tuple(r.u8("result") for _ in range(count))}


def _m_player_hint(r: _Reader) -> dict:
    player, kind = r.u8("player"), r.u8("hint type")
    value = r.u64("description") if r.left >= 8 else (r.u32("description") if r.left >= 4 else 0)
    return {"player": player, "type": kind, "value": value}


def _m_card_hint(r: _Reader) -> dict:
    at = r.loc()
    kind = r.u8("hint type")
    return {"at": at, "type": kind, "value": r.u64("value") if r.left >= 8 else 0}


def _m_confirm(r: _Reader) -> dict:
    player = r.u8("player")
    count = r.u32("count")
    cards = []
    for _ in range(count):
        code = r.u32("code")
        c, l = r.u8("controller"), r.u8("location")
        s = r.u32("sequence")
        cards.append((code, Where(c, l, s, 0)))
    return {"player": player, "cards": tuple(cards)}


def _m_deck_top(r: _Reader) -> dict:
    return {"player": r.u8("player"), "sequence": r.u32("sequence"), "code": r.u32("code"),
            "position": r.u32("position") if r.left >= 4 else 0}


def _m_shuffle_set(r: _Reader) -> dict:
    location, count = r.u8("location"), r.u8("count")
    old = tuple(r.loc() for _ in range(count))
    new = tuple(r.loc() for _ in range(count))
    return {"location": location, "old": old, "new": new}


def _m_swap_grave_deck(r: _Reader) -> dict:
    player = r.u8("player")
    out: dict = {"player": player}
    if r.left >= 8:
        out["main"] = r.u32("main size")
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


def parse_message(packet: Packet) -> dict | None:
    """The fields of one game message, or None for a message this reader does not decode.

    Raises ``YrpxError`` with the body offset when the payload is shorter than its layout.
    """
    parser = _PARSERS.get(packet.id)
    if parser is None:
        return None
    return parser(_Reader(packet.payload, packet.offset, packet.name))


# ==============================================================================================
# Import: EDOPro's message stream -> our events
# ==============================================================================================

from .cards import CardDB, CardDBError, CardFacts, unnamed  # noqa: E402  (the decoder above needs none of these)
from .decks import deck_problems  # noqa: E402
from .events import (  # noqa: E402
    ATTACK, BANISHED, DECK, DEFENSE, EXTRA, FACEDOWN, FACEDOWN_ATTACK, FACEUP, FZONE, GY, HAND, MZONE,
    OVERLAY, SET, SZONE, Activated, AttackCancelled, AttackDeclared, AttackRetargeted, CardMoved,
    CardRevealed, CardsDrawn, ChainEnded, ChainLinkNegated, ChainLinkResolved, Cite, CoinTossed,
    ControlChanged, Cost, CountersChanged, DamageCalculated, DeckRegistered, DeckShuffled, DieRolled,
    DuelEnded, DuelStarted, Event, FlipSummoned, HandSizeDiscard, LifePointsChanged, Loc, MonsterSet, NormalSummoned,
    PhaseEntered, PositionChanged, SpecialSummoned, SpellTrapSet, StatsChanged, StepEntered,
    SummonNegated, TokenCreated, TurnStarted, ZoneChanged)
from .state import DuelState  # noqa: E402

#: Messages that carry no game action: state refreshes, hints, and prompts' echoes.
_QUIET = frozenset((MSG_UPDATE_DATA, MSG_UPDATE_CARD, MSG_HINT, MSG_CARD_HINT, MSG_PLAYER_HINT,
                    MSG_SHOW_HINT, MSG_MISSED_EFFECT, MSG_WAITING, MSG_FIELD_DISABLED,
                    MSG_CARD_SELECTED, MSG_RANDOM_SELECTED, MSG_EQUIP, MSG_UNEQUIP, MSG_CARD_TARGET,
                    MSG_CANCEL_TARGET, MSG_CREATE_RELATION, MSG_RELEASE_RELATION, MSG_BE_CHAIN_TARGET,
                    MSG_HAND_RES, MSG_REFRESH_DECK))
HINT_OPSELECTED, HINT_CARD = 4, 10
PHINT_DESC_ADD, PHINT_DESC_REMOVE = 6, 7


def _stringid_index(desc: int, code: int) -> int | None:
    """n when ``desc`` is ``aux.Stringid(code, n)``: EDOPro's u64 ``code << 20 | n``, or YGOPro's
    u32 ``code << 4 | n``; None when it names another card (or none)."""
    if code and desc >> 20 == code:
        return desc & 0xFFFFF
    if code and desc >> 4 == code:
        return desc & 0xF
    return None


def _stringid(desc: int, code: int) -> str:
    n = _stringid_index(desc, code)
    return f"aux.Stringid({code},{n})" if n is not None else f"description {desc:#x}"

_PHASES = {PHASE_DRAW: "draw", PHASE_STANDBY: "standby", PHASE_MAIN1: "main1",
           PHASE_BATTLE_START: "battle", PHASE_MAIN2: "main2", PHASE_END: "end"}
_PROPER = frozenset(("inherent", "ritual", "fusion", "synchro", "xyz", "pendulum", "link"))
_MATERIAL_METHODS = ((REASON_FUSION, "fusion"), (REASON_SYNCHRO, "synchro"), (REASON_XYZ, "xyz"),
                     (REASON_LINK, "link"), (REASON_RITUAL, "ritual"))


@dataclass
class Expected:
    """What the replay itself says the duel came to: EDOPro's LP after its last LP message, and
    the result of MSG_WIN (winner None for a draw or when the file has no MSG_WIN)."""

    lp: tuple[int, int]
    winner: int | None
    reason: str | None
    turns: int = 0


@dataclass
class ImportResult:
    """An imported duel: our events, the card facts they need, and what EDOPro said.

    ``times`` holds one synthetic wall-clock time per event (a millisecond apart, starting at the
    replay's timestamp); ``sources`` the index in ``replay.packets`` of the first packet behind each
    event (-1 for the set-up events the importer writes itself); ``notes`` what was skipped or
    guessed."""

    events: list[Event]
    cards: CardDB
    times: list[str]
    players: tuple[str, ...]
    expected: Expected
    notes: list[str]
    replay: YrpxReplay
    sources: list[int]
    path: str | None = None


class _Cell:
    """One physical position of a deck in one shuffle epoch. Until the card there is seen, its id
    may be swapped with another unseen cell's: the order is whatever makes every draw right."""

    __slots__ = ("id", "seen")

    def __init__(self, card_id: str, seen: bool) -> None:
        self.id = card_id
        self.seen = seen


class _Side:
    __slots__ = ("deck", "hand", "mzone", "szone", "grave", "removed", "extra")

    def __init__(self) -> None:
        self.deck: list[_Cell] = []          # EDOPro order: index 0 is the bottom
        self.hand: list[str] = []
        self.mzone: list[str | None] = [None] * 7
        self.szone: list[str | None] = [None] * 8   # 5 is the Field Zone, 6-7 separate P-zones (MR3)
        self.grave: list[str] = []
        self.removed: list[str] = []
        self.extra: list[str] = []


@dataclass(eq=False)
class _Effect:
    """One chain link as evidence for a later cite (a skipped Draw Phase): what the stream said."""

    index: int                     # packet of its MSG_CHAINING
    card: str
    code: int
    player: int
    desc: int                      # MSG_CHAINING's description
    named: tuple[int, int] | None = None     # (description, packet) of a HINT_OPSELECTED naming it
    resolved: bool = False
    gained: int = 0                # cards its player drew or moved from their Deck to their hand
    gained_at: int = -1            # packet of the first of them
    top_at: int | None = None      # packet where it took the Deck's top card into the hand, not by a draw
    hints: list[tuple[int, int, int]] = field(default_factory=list)    # (player, description, packet) added
    hint_ended: set[int] = field(default_factory=set)                   # players whose hint from it was removed


@dataclass
class _Link:
    card: str
    player: int
    effect_type: str | None
    negated: bool = False
    negated_by: int | None = None
    done: bool = False
    effect: _Effect | None = None


@dataclass
class _Activation:
    """A chain link between MSG_CHAINING and MSG_CHAINED: costs and targets gather here."""

    index: int
    card: str
    player: int
    link: int
    effect_type: str | None
    zone: int | None
    field_zone: bool
    costs: list[Cost] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    after: list[tuple[Event, int]] = field(default_factory=list)
    cite: Cite | None = None
    effect: _Effect | None = None
    begins: int = -1               # the packet the activation's first event stands for


def import_yrpx(path_or_bytes: str | os.PathLike[str] | bytes | bytearray | YrpxReplay, *,
                names: CardDB | None = None) -> ImportResult:
    """Import a replay: read it, check it is a 1v1 duel with a message stream, map it to events.

    ``names`` optionally supplies card names (e.g. a cards.cdb); the facts themselves come from
    the card queries inside the replay. Raises ``YrpxError`` for a file that cannot be imported,
    saying why (puzzle, hand test, tag duel, legacy replay, corrupt data and where).
    """
    path = None if isinstance(path_or_bytes, (bytes, bytearray, memoryview, YrpxReplay)) else str(path_or_bytes)
    replay = path_or_bytes if isinstance(path_or_bytes, YrpxReplay) else read_yrpx(path_or_bytes)
    try:
        _check_importable(replay)
        result = _Importer(replay, names).run()
    except YrpxError as err:
        if path and not err.path:
            raise YrpxError(err.detail, err.offset, path, err.space) from None
        raise
    result.path = path
    return result


def _check_importable(replay: YrpxReplay) -> None:
    if replay.id == YRP1:
        raise YrpxError("cannot import: a legacy .yrp replay holds only the players' responses; replaying it "
                        "needs the EDOPro engine and its card scripts (open it in EDOPro and save it as .yrpX)")
    if replay.id != YRPX:
        raise YrpxError(f"cannot import: a {replay.kind} replay has no message stream")
    if replay.flags & REPLAY_HAND_TEST:
        raise YrpxError("cannot import: hand test replay (a solo test of a deck, not a duel)")
    if replay.flags & REPLAY_SINGLE_MODE:
        raise YrpxError("cannot import: puzzle replay (single mode: a scripted position, not a duel)")
    if replay.flags & REPLAY_TAG or any(len(team) != 1 for team in replay.names) or replay.duel_flags & DUEL_RELAY:
        sizes = "v".join(str(len(team)) for team in replay.names)
        raise YrpxError(f"cannot import: {'relay' if replay.duel_flags & DUEL_RELAY else 'tag'} duel ({sizes}); "
                        "only single 1v1 duels are supported")
    if not replay.packets or replay.packets[0].id != MSG_START:
        first = replay.packets[0].offset if replay.packets else replay.body_size
        raise YrpxError("cannot import: the message stream does not begin with MSG_START", first, space="body")


def _ruleset(duel_flags: int) -> tuple[str, str | None]:
    """Our rule set for EDOPro's duel flags, and a note when the match is not exact."""
    if duel_flags & DUEL_FSX_MMZONE and duel_flags & DUEL_EMZONE:
        return "mr2020", None
    if duel_flags & DUEL_EMZONE:
        return "nmr2017", None
    if duel_flags & DUEL_SEPARATE_PZONE:
        return "mr3", None
    return "mr3", f"duel flags {duel_flags:#x} name an older Master Rule; checked under mr3"


def _position(pos: int, zone: str) -> str | None:
    if zone == MZONE:
        if pos & POS_FACEUP_ATTACK:
            return ATTACK
        if pos & POS_FACEUP_DEFENSE:
            return DEFENSE
        if pos & POS_FACEDOWN_ATTACK:
            return FACEDOWN_ATTACK
        return SET
    if zone in (SZONE, FZONE):
        return FACEUP if pos & POS_FACEUP else SET
    if zone in (BANISHED, EXTRA):
        return FACEUP if pos & POS_FACEUP else FACEDOWN
    return None


class _Importer:
    def __init__(self, replay: YrpxReplay, names: CardDB | None) -> None:
        self.ruleset = "mr2020"
        self.r = replay
        self.packets = replay.packets
        self.names = names
        self.msgs: list[dict | None] = [None] * len(self.packets)
        self.events: list[Event] = []
        self.sources: list[int] = []
        self.notes: list[str] = []
        self._note_counts: dict[str, int] = {}
        self.i = 0
        self.consumed: set[int] = set()
        self.facts: dict[int, CardFacts] = {}
        self.code_of: dict[str, int] = {}
        self.sides = [_Side(), _Side()]
        self.overlays: dict[str, list[str]] = {}
        self.tokens = [0, 0]
        # turn structure as our fold sees it
        self.turn = 0
        self.turn_player = 0
        self.phase: str | None = None
        self.step: str | None = None
        self.normal_drawn = False
        # chains
        self.chain: list[_Link] = []
        self.solving: int | None = None
        self.activation: _Activation | None = None
        self.last_link_card: str | None = None
        self.last_link_by_player: dict[int, str] = {}
        self.flipped: set[str] = set()
        # summons
        self.pending_tributes: list[tuple[str, Loc]] = []               # (card, where EDOPro sent it)
        self.pending_materials: list[tuple[str, int, Loc, str | None, int]] = []  # (card, reason, to, position, packet)
        self.material_from: dict[str, tuple[Where, Query | None]] = {}   # where a material was, as queried there
        self.refresh_cache: dict[int, list[Query | None]] = {}
        self.last_resolved: tuple[str, int] | None = None      # (card, player) of the link that resolved last
        self.chain_end_at = -1                                  # len(events) just after the last chain_ended
        self.pre_overlay: dict[str, list[str]] = {}            # xyz host not yet on the field
        self.pending_at: dict[str, int] = {}                   # packet of each pending move above
        self.began_at: int | None = None                       # the summon being written began there
        self.pending_flip: tuple[str, int] | None = None       # a Set card turned face-up to be activated
        self.summoning: set[str] = set()                       # summoned, not yet "SUMMONED"
        self.auto_gy: set[str] = set()                         # xyz materials our fold already sent
        self.set_turn: dict[str, int] = {}
        # battle
        self.attack: tuple[str, str | None] | None = None
        self.attack_defenders: frozenset[str] = frozenset()   # the opponent's monsters at the declaration
        self.calculated = False
        self.removed_by: dict[str, str | None] = {}
        # values our fold believes (stats, counters), LP as EDOPro counts them
        self.believed: dict[str, tuple[int | None, int | None, int | None]] = {}
        self.counters: dict[str, dict[int, int]] = {}
        self.lp = [8000, 8000]
        self.lost = False
        self.win: tuple[int | None, str] | None = None
        self.hint_card: tuple[int, int] | None = None
        self.pending_place: tuple[str, Where, int] | None = None   # a card put on the field to be activated,
                                                                  # and the packet of that MSG_MOVE
        self.facedown_st: set[str] = set()
        self.battle_destroyed: set[str] = set()
        self.battle_damage_at: set[int] = set()
        self.resolved_cards: set[str] = set()
        self.draw_count = 1
        self.prev_sig = 0
        self.turn_activations: list[tuple[str, tuple[str, ...]]] = []
        self.solving_from = 0
        self.quiet_links: list[tuple[str, int]] = []
        self.after_chain: tuple[int, list[tuple[str, int]]] = (-1, [])
        self.ns_turn = [0, 0]
        self.grant_was_hint = False
        self.ns_grants: dict[int, list[str]] = {0: [], 1: []}
        self.attacked: dict[str, int] = {}
        self.proper: set[str] = set()
        # evidence for a skipped Draw Phase (see the module docstring)
        self.effect_log: list[_Effect] = []
        self.draw_mark = [0, 0]                     # len(effect_log) at the player's last Draw Phase
        self.player_hints: dict[int, list[tuple[int, int, _Effect | None]]] = {0: [], 1: []}

    # -- bookkeeping ---------------------------------------------------------------------------

    def note(self, text: str) -> None:
        key = text.split(":")[0]
        n = self._note_counts.get(key, 0)
        self._note_counts[key] = n + 1
        if n < 5:
            self.notes.append(f"packet {self.i}: {text}")

    def msg(self, i: int) -> dict | None:
        m = self.msgs[i]
        if m is None:
            p = self.packets[i]
            if p.id in (MSG_UPDATE_DATA, MSG_UPDATE_CARD):
                return None
            m = parse_message(p)
            if m is None:
                return None
            self.msgs[i] = m
        return m

    def next_significant(self, i: int) -> int | None:
        """The index of the next message after ``i`` that is not a refresh or hint."""
        j = i + 1
        n = len(self.packets)
        while j < n and (self.packets[j].id in _QUIET or j in self.consumed):
            j += 1
        return j if j < n else None

    def emit(self, event: Event, source: int | None = None) -> None:
        """Append an event; ``source`` is the first packet behind it when that is not the current
        one (a summon whose Tributes or materials moved first)."""
        if self.lost and event.kind not in _AFTER_LOSS:
            self.note(f"{event.kind} after a player reached 0 LP left out: the duel ends at once (WIN-01)")
            return
        at = source if source is not None else self.i if self.began_at is None else self.began_at
        if self.activation is not None:
            self.activation.after.append((event, at))
            return
        self.events.append(event)
        self.sources.append(at)

    def began(self, cards) -> int | None:
        """The packet of the first pending move among ``cards`` (and forget them), or None."""
        at = [self.pending_at.pop(c) for c in cards if c in self.pending_at]
        return min(at) if at else None

    @property
    def cause(self) -> str | None:
        """The card whose effect is resolving now, if any."""
        if self.solving is not None and 0 < self.solving <= len(self.chain):
            return self.chain[self.solving - 1].card
        return None

    def effect_cause(self, player: int | None = None) -> str:
        """The resolving card, else the last card a chain link named (this player's first)."""
        return (self.cause or (self.last_link_by_player.get(player) if player is not None else None)
                or self.last_link_card or "effect")

    # -- card facts ----------------------------------------------------------------------------

    def collect_facts(self) -> None:
        seen_refresh: set[tuple[int, int]] = set()
        raw: dict[int, Query] = {}
        links: dict[int, tuple[int, int]] = {}
        scales: dict[int, tuple[int, int]] = {}

        def take(q: Query | None) -> None:
            if q is None or not q.code:
                return
            if q.code not in raw and q.type is not None:
                raw[q.code] = q
            if q.link is not None and q.link_marker is not None and q.type and q.type & TYPE_LINK:
                links.setdefault(q.code, (q.link, q.link_marker))
            if q.lscale is not None and q.rscale is not None and q.type and q.type & TYPE_PENDULUM:
                scales.setdefault(q.code, (q.lscale, q.rscale))

        for p in self.packets:
            if p.id == MSG_UPDATE_CARD:
                take(parse_update_card(p.payload, p.offset)[3])
            elif p.id == MSG_UPDATE_DATA and len(p.payload) > 2 and p.payload[1] in (LOCATION_DECK, LOCATION_EXTRA):
                key = (p.payload[0], p.payload[1])
                if key in seen_refresh:
                    continue
                seen_refresh.add(key)
                for q in parse_update_data(p.payload, p.offset)[2]:
                    take(q)
        for code, q in raw.items():
            self.facts[code] = self.make_facts(code, q, links.get(code), scales.get(code))

    def known(self, code: int) -> CardFacts | None:
        """The card in the given names database or the bundled classic set, if there."""
        for db in (self.names, CardDB.classic()):
            if db is not None and code in db:
                return db[code]
        return None

    def card_name(self, code: int) -> str:
        known = self.known(code)
        return known.name if known is not None else unnamed(code)

    def make_facts(self, code: int, q: Query, link: tuple[int, int] | None,
                   scale: tuple[int, int] | None) -> CardFacts:
        type_ = q.type or 0
        is_link = type_ & (TYPE_LINK | TYPE_MONSTER) == TYPE_LINK | TYPE_MONSTER
        if is_link and link is None:
            # only a Link monster that reached the field was queried for its rating and arrows
            known = self.known(code)
            if known is not None and known.is_link:
                link = (known.level, known.link_markers)
        if is_link:
            level = link[0] if link else 0
        elif type_ & TYPE_XYZ:
            level = q.rank or 0
        else:
            level = q.level or 0
        atk = q.base_attack if q.base_attack is not None else (q.attack or 0)
        defense = q.base_defense if q.base_defense is not None else (q.defense or 0)
        lscale, rscale = scale if scale else (0, 0)
        alias = q.alias if q.alias and q.alias != code else 0
        def fix(v: int) -> int:
            return v if v >= 0 or v == -2 else 0
        try:
            return CardFacts(code=code, name=self.card_name(code), type=type_, level=min(max(level, 0), 255),
                             atk=fix(atk), defense=None if is_link else fix(defense),
                             attribute=q.attribute or 0, race=q.race or 0,
                             lscale=min(lscale, 255), rscale=min(rscale, 255),
                             link_markers=(link[1] & 0x1EF) if is_link and link else 0, alias=alias)
        except CardDBError as err:
            self.note(f"card facts for {code} are not usable ({err}); kept as a plain card")
            return CardFacts(code=code, name=self.card_name(code), type=type_ & 0x7)

    def facts_for(self, code: int) -> CardFacts:
        facts = self.facts.get(code)
        if facts is None:
            known = self.known(code)
            facts = known or CardFacts(code=code, name=self.card_name(code), type=TYPE_MONSTER)
            if known is None:
                self.note(f"no card query for passcode {code}: its facts are unknown")
            self.facts[code] = facts
        return facts

    def code(self, card_id: str) -> int:
        return self.code_of.get(card_id, 0)

    def fx(self, card_id: str) -> CardFacts:
        return self.facts_for(self.code(card_id))

    # -- the mirror of EDOPro's field --------------------------------------------------------------

    def pile(self, controller: int, location: int) -> list:
        side = self.sides[controller]
        return {LOCATION_HAND: side.hand, LOCATION_GRAVE: side.grave, LOCATION_REMOVED: side.removed,
                LOCATION_EXTRA: side.extra, LOCATION_DECK: side.deck}[location]

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

    def see(self, player: int, cell: _Cell, code: int) -> None:
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
            side.deck.insert(min(seq, len(side.deck)), _Cell(card_id, True))
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

    # -- set-up --------------------------------------------------------------------------------

    def setup(self) -> None:
        start = self.msg(0) or {}
        self.lp = list(start.get("lp", (8000, 8000)))
        yrp1 = self.r.yrp1
        refresh: dict[tuple[int, int], list[int]] = {}
        for p in self.packets[1:12]:
            if p.id == MSG_UPDATE_DATA and len(p.payload) > 2 and p.payload[1] in (LOCATION_DECK, LOCATION_EXTRA):
                player, loc, queries = parse_update_data(p.payload, p.offset)
                refresh.setdefault((player, loc), [q.code or 0 if q else 0 for q in queries])
        decks: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        for player in (0, 1):
            if yrp1 is not None and len(yrp1.decks) > player:
                decks.append(yrp1.decks[player])
            else:
                decks.append((tuple(refresh.get((player, LOCATION_DECK), ())),
                               tuple(refresh.get((player, LOCATION_EXTRA), ()))))
                self.note(f"no embedded YRP1 deck list for player {player}: the deck is taken from the first deck refresh")
        first = next((self.msg(j)["player"] for j, p in enumerate(self.packets) if p.id == MSG_NEW_TURN), 0)
        ruleset, why = _ruleset(self.r.duel_flags)
        self.ruleset = ruleset
        if why:
            self.note(why)
        hand = yrp1.start_hand if yrp1 else 5
        self.draw_count = yrp1.draw_count if yrp1 else 1
        # The room's start LP, start hand, draw count and deck check are duel options (CONF-01)
        unchecked = [self.note_deck_check(player, main, extra) for player, (main, extra) in enumerate(decks)]
        options = tuple(name for name, value, default in (
            ("starting_lp", self.lp[0], 8000), ("hand_size", hand, 5), ("draw_count", self.draw_count, 1),
            ("no_deck_check", any(unchecked), False)) if value != default)
        self.emit_setup(DuelStarted(first_player=first, method="rps", ruleset=ruleset,
                                    starting_lp=self.lp[0], hand_size=hand, draw_count=self.draw_count,
                                    options=options, players=tuple(self.r.players)))
        if self.lp[0] != self.lp[1]:
            self.note(f"the players start with different LP {self.lp}; our duel_started holds one value")
        for player, (main, extra) in enumerate(decks):
            self.emit_setup(DeckRegistered(player=player, main=tuple(main), extra=tuple(extra)))
            ids = [f"p{player}.m{i}" for i in range(len(main))]
            xids = [f"p{player}.x{i}" for i in range(len(extra))]
            for cid, code in zip(ids, main):
                self.code_of[cid] = code
            for cid, code in zip(xids, extra):
                self.code_of[cid] = code
            side = self.sides[player]
            side.deck = [_Cell(cid, False) for cid in self.match_order(ids, refresh.get((player, LOCATION_DECK)), "deck", player)]
            side.extra = self.match_order(xids, refresh.get((player, LOCATION_EXTRA)), "extra deck", player)
            want = start.get("deck", (len(main), len(main)))[player]
            if want != len(main):
                self.note(f"MSG_START gives player {player} a {want}-card deck, the deck list {len(main)}")
        for player in (0, 1):
            self.new_epoch(player, setup=True)

    def note_deck_check(self, player: int, main: tuple[int, ...], extra: tuple[int, ...]) -> bool:
        """A deck EDOPro's deck check would refuse: the check was off, a duel option of the room
        (``no_deck_check`` in duel_started; not a card effect, so nothing is cited). True then.

        The room options "Don't check deck" and "Don't shuffle deck" live in EDOPro's host info.
        Only the second reaches the replay (as DUEL_PSEUDO_SHUFFLE in the duel flags); the first
        is known from the deck itself: the server refuses a deck that fails the check (size,
        copies, banlist) when the player says ready, unless the check is off."""
        problems = deck_problems(list(main), list(extra), [])
        if not problems:
            return False
        shown = "; ".join(f"{pr.rule} {pr.message}" for pr in problems[:3])
        flags = ("; the duel flags record the room's \"Don't shuffle deck\" option (DUEL_PSEUDO_SHUFFLE)"
                 if self.r.duel_flags & DUEL_PSEUDO_SHUFFLE else "")
        self.note(f"deck check off: player {player}'s deck fails the deck check ({shown}), so EDOPro's "
                  "\"Don't check deck\" room option was on, or its deck limits were loosened "
                  f"(a yrpX records neither): recorded as the duel option no_deck_check{flags}")
        return True

    def match_order(self, ids: list[str], codes: list[int] | None, what: str, player: int) -> list[str]:
        """Our ids in EDOPro's order: the first refresh's passcodes, else the list as stored."""
        if not codes:
            return list(ids)
        free: dict[int, list[str]] = {}
        for cid in ids:
            free.setdefault(self.code(cid), []).append(cid)
        out = []
        for code in codes:
            bucket = free.get(code)
            if not bucket:
                self.note(f"player {player}'s {what} refresh shows {code}, which the deck list does not hold")
                return list(ids)
            out.append(bucket.pop(0))
        if len(out) != len(ids):
            self.note(f"player {player}'s {what} refresh holds {len(out)} cards, the deck list {len(ids)}")
            return list(ids)
        return out

    def emit_setup(self, event: Event) -> None:
        self.events.append(event)
        self.sources.append(-1)

    def new_epoch(self, player: int, setup: bool = False) -> None:
        deck = self.sides[player].deck
        for n, cell in enumerate(deck):
            deck[n] = _Cell(cell.id, False)
        event = DeckShuffled(player=player, order=())         # the order is known once the epoch is over
        self.epoch_cells[id(event)] = (event, list(reversed(deck)))      # top first
        if setup:
            self.emit_setup(event)
        else:
            self.emit(event)

    # -- the run -------------------------------------------------------------------------------

    def run(self) -> ImportResult:
        self.epoch_cells: dict[int, tuple[DeckShuffled, list[_Cell]]] = {}
        self.collect_facts()
        self.setup()
        handlers = _HANDLERS
        packets = self.packets
        n = len(packets)
        i = 1
        while i < n and self.win is None:
            if i not in self.consumed:
                p = packets[i]
                if p.id == MSG_UPDATE_DATA and len(p.payload) > 2 and p.payload[1] == LOCATION_DECK:
                    self.i = i
                    self.on_deck_refresh(p)
                handler = handlers.get(p.id)
                if handler is not None:
                    self.i = i
                    m = self.msg(i)
                    if m is not None:
                        try:
                            handler(self, m)
                        except (IndexError, KeyError, TypeError, AttributeError, CardDBError) as exc:
                            raise YrpxError(f"cannot import: {p.name} (packet {i}) does not fit the duel so far "
                                            f"({type(exc).__name__}: {exc}); the file is corrupt or of an "
                                            "unknown layout", p.offset, space="body") from None
                if p.id not in _QUIET:
                    self.prev_sig = i
            i += 1
        self.i = min(i, n - 1)
        self.flush(final=True)
        if self.activation is not None:
            self.note("the stream ends inside an activation")
            act, self.activation = self.activation, None
            self.events.extend(e for e, _ in act.after)
            self.sources.extend(s for _, s in act.after)
        if self.win is None:
            self.note("the stream has no MSG_WIN: the duel was not finished")
        return self.finish()

    def finish(self) -> ImportResult:
        events = []
        for ev in self.events:
            epoch = self.epoch_cells.get(id(ev))
            if epoch is not None and epoch[0] is ev:
                ev = DeckShuffled(player=ev.player, order=tuple(c.id for c in epoch[1]))
            events.append(ev)
        codes = set(self.code_of.values())
        cards = CardDB(self.facts_for(code) for code in sorted(codes) if code)
        base = self.r.seed * 1000
        times = [datetime.fromtimestamp((base + k) / 1000, timezone.utc).isoformat(timespec="milliseconds")
                 for k in range(len(events))]
        winner, reason = self.win if self.win is not None else (None, None)
        expected = Expected(lp=(self.lp[0], self.lp[1]), winner=winner, reason=reason, turns=self.turn)
        for key, count in self._note_counts.items():
            if count > 5:
                self.notes.append(f"({count - 5} more: {key})")
        return ImportResult(events, cards, times, tuple(self.r.players), expected, self.notes, self.r, self.sources)

    # -- pending summon parts ------------------------------------------------------------------

    def flush(self, final: bool = False) -> None:
        """Tributes or materials no summon took: they were moved for their own sake.

        Xyz materials attached to a monster still in the Extra Deck wait for its summon, however
        many other messages come first (``special_summon`` takes them); once it is on the field
        by another way they are attached to it. Only at the end of the stream (``final``) are
        those of a monster that never came out given up, with a note: our field has no
        materials under a card in the Extra Deck."""
        tributes, self.pending_tributes = self.pending_tributes, []
        for card, w in tributes:
            self.emit(CardMoved(card=card, to=w, reason="tributed", cause=self.cause), self.began((card,)))
        materials, self.pending_materials = self.pending_materials, []
        for card, reason, w, pos, at in materials:
            self.emit(CardMoved(card=card, to=w, reason="material", position=pos, cause=self.cause), at)
        for host, mats in list(self.pre_overlay.items()):
            side_host = self.monster_zone_of(host)
            if side_host is None and not final:
                continue                          # its summon is still to come
            del self.pre_overlay[host]
            if side_host is None:
                self.note(f"{len(mats)} card(s) attached to {host} while it was not on the field, and it never "
                          "came out: they stay where they were")
                continue
            for card in mats:
                self.pending_at.pop(card, None)
                self.emit(CardMoved(card=card, to=Loc(side_host[0], OVERLAY, side_host[1]),
                                    reason="attached", cause=self.cause))

    # -- turns and phases ----------------------------------------------------------------------

    def on_new_turn(self, m: dict) -> None:
        self.flush()
        self.end_attack(quiet=True)
        self.turn += 1
        self.turn_player = m["player"] & 1
        self.phase = self.step = None
        self.normal_drawn = False
        self.flipped.clear()
        self.turn_activations.clear()
        self.ns_grants = {0: [], 1: []}
        self.emit(TurnStarted(player=self.turn_player, turn=self.turn))

    def on_new_phase(self, m: dict) -> None:
        phase = _PHASES.get(m["phase"])
        if phase is None or phase == self.phase:
            return
        self.flush()
        if self.phase == "battle":
            self.end_attack(quiet=True)
        cite = None
        if phase == "draw":
            self.draw_mark[self.turn_player] = len(self.effect_log)
        elif self.phase is None and self.turn > 0:
            # EDOPro sends no marker for a phase an effect skips ("skip your next Draw Phase"):
            # cite the link that most likely registered the skip (module docstring).
            cite = self.skipped_draw_cite(self.turn_player)
        self.phase = phase
        self.step = "start" if phase == "battle" else None
        self.emit(PhaseEntered(player=self.turn_player, phase=phase, cite=cite))

    def skipped_draw_cite(self, player: int) -> Cite | None:
        """The cite for a Draw Phase of ``player`` that EDOPro skipped, and a note saying why."""
        in_force = {id(e): (desc, at) for desc, at, e in self.player_hints[player] if e is not None and e.resolved}
        pool = [e for e in self.effect_log[self.draw_mark[player]:] if e.resolved]
        pool += [e for _d, _a, e in self.player_hints[player]
                 if e is not None and e.resolved and all(e is not f for f in pool)]
        best: tuple[tuple[int, int, int], _Effect] | None = None
        for e in pool:
            own = e.player == player
            gained = e.gained if own else 0
            ended = player in e.hint_ended and id(e) not in in_force
            if id(e) in in_force and (gained or not own):
                level = 6
            elif ended:                 # its lasting effect on the player is over
                if not own:
                    continue
                level = 0
            elif own and e.named is not None and gained:
                level = 5
            elif own and e.top_at is not None:
                level = 4
            elif own and gained:
                level = 3
            elif id(e) in in_force:
                level = 2
            elif own:
                level = 1
            else:
                continue
            key = (level, gained if level > 2 else 0, e.index)
            if best is None or key > best[0]:
                best = (key, e)
        where = f"turn {self.turn} skips its Draw Phase"
        if best is None:
            self.note(f"{where}: no effect of player {player} resolved since their last Draw Phase; no cite")
            return None
        (level, gained, _), e = best
        name = self.card_name(e.code)
        if level == 6:
            desc, at = in_force[id(e)]
            effect = f"skip the Draw Phase: its lasting effect {_stringid(desc, e.code)} is on player {player}"
            why = f"the client hint {_stringid(desc, e.code)} it put on player {player} (MSG_PLAYER_HINT, packet {at})"
        elif level == 5:
            desc, at = e.named
            effect = f"skip the Draw Phase (inferred): effect {_stringid(desc, e.code)}, which gave {gained} card(s)"
            why = (f"HINT_OPSELECTED named its effect {_stringid(desc, e.code)} (packet {at}) and it gave player "
                   f"{player} {gained} card(s) from the Deck (packet {e.gained_at}); inferred")
        elif level == 4:
            effect = "skip the Draw Phase (inferred): it took the top card of the Deck into the hand"
            why = (f"it took the top card of player {player}'s Deck into the hand without a draw (packet {e.top_at}); "
                   "inferred")
        elif level == 3:
            effect = f"skip the Draw Phase (inferred): it gave {gained} card(s) from the Deck"
            why = f"it gave player {player} {gained} card(s) from the Deck (packet {e.gained_at}); inferred"
        elif level == 2:
            desc, at = in_force[id(e)]
            effect = f"skip the Draw Phase (inferred): its lasting effect {_stringid(desc, e.code)} is on player {player}"
            why = f"its client hint {_stringid(desc, e.code)} is on player {player} (packet {at}); inferred"
        else:
            effect = "skip the Draw Phase (inferred): the last effect its player resolved"
            why = f"the stream names no effect: it is the last effect player {player} resolved; inferred"
            if level == 0:
                why += " (its client hint on the player had already been removed)"
        self.note(f"{where}: cited {e.card} {name} (chain link at packet {e.index}) by {why}")
        return Cite(e.card, effect)

    # -- draws and the deck --------------------------------------------------------------------

    def on_draw(self, m: dict) -> None:
        self.flush()
        player = m["player"] & 1
        side = self.sides[player]
        ids = []
        for code in m["codes"]:
            if not side.deck:
                self.note(f"player {player} draws from an empty deck")
                break
            cell = side.deck.pop()
            self.see(player, cell, code)
            side.hand.append(cell.id)
            ids.append(cell.id)
        count = len(ids)
        self.credit_gain(player, count)
        if self.turn == 0:
            cause = None
        elif (self.phase == "draw" and player == self.turn_player and not self.normal_drawn
              and self.solving is None and self.activation is None and count == self.draw_count):
            cause = None
            self.normal_drawn = True
        else:
            cause = self.effect_cause(player)
        if count:
            self.emit(CardsDrawn(player=player, count=count, cards=tuple(ids), cause=cause))

    def on_deck_refresh(self, p: Packet) -> None:
        """The engine lists a whole Deck (at the start and after every chain): every card not yet
        seen in this shuffle epoch is pinned where the engine has it, so the order the epoch's
        ``deck_shuffled`` records is the engine's, not just one that makes the draws right.
        Only a listing of the Deck as the mirror has it (same size, seen cards where they are)
        is used: a packet may already show a later step of the engine."""
        deck = self.sides[p.payload[0] & 1].deck
        if all(cell.seen for cell in deck):
            return                                # nothing left to pin in this epoch
        player, _loc, _seq, slots = card_slots(p)
        player &= 1
        codes = [s[0] if s is not None else 0 for s in slots]
        if len(codes) != len(deck) or any(c.seen and self.code(c.id) != code for c, code in zip(deck, codes)):
            return
        pool: dict[int, list[_Cell]] = {}
        for cell in deck:
            if not cell.seen:
                pool.setdefault(self.code(cell.id), []).append(cell)
        need: dict[int, int] = {}
        for cell, code in zip(deck, codes):
            if not cell.seen:
                need[code] = need.get(code, 0) + 1
        if any(len(pool.get(code, ())) != n for code, n in need.items()):
            return                                # not the cards the mirror holds unseen
        for cell, code in zip(deck, codes):
            if not cell.seen:
                self.see(player, cell, code)

    def on_shuffle_deck(self, m: dict) -> None:
        self.flush()
        self.new_epoch(m["player"] & 1)

    def on_shuffle_hand(self, m: dict) -> None:
        player = m["player"] & 1
        hand = self.sides[player].hand
        pool = list(hand)
        out = []
        for code in m["codes"]:
            match = next((c for c in pool if self.code(c) == code), None)
            if match is None:
                self.note(f"player {player}'s hand shuffle shows {code}, not in their hand")
                return
            pool.remove(match)
            out.append(match)
        if pool:
            self.note(f"player {player}'s hand shuffle lists {len(out)} of {len(hand)} cards")
            return
        hand[:] = out

    def on_shuffle_extra(self, m: dict) -> None:
        player = m["player"] & 1
        extra = self.sides[player].extra
        codes = list(m["codes"])
        down = extra[:len(codes)]
        pool = list(down)
        out = []
        for code in codes:
            match = next((c for c in pool if self.code(c) == code), None)
            if match is None:
                self.note(f"player {player}'s Extra Deck shuffle shows {code}, not among its face-down cards")
                return
            pool.remove(match)
            out.append(match)
        extra[:len(codes)] = out

    def on_deck_top(self, m: dict) -> None:
        player = m["player"] & 1
        deck = self.sides[player].deck
        k = len(deck) - 1 - m["sequence"]
        if 0 <= k < len(deck) and m["code"]:
            self.see(player, deck[k], m["code"])

    def on_confirm(self, m: dict) -> None:
        ids = []
        for code, w in m["cards"]:
            card = self.lookup(w, code)
            if card is not None:
                ids.append(card)
        if ids:
            self.emit(CardRevealed(player=m["player"] & 1, cards=tuple(ids), cause=self.cause))

    def on_confirm_decktop(self, m: dict) -> None:
        player = m["player"] & 1
        deck = self.sides[player].deck
        ids = []
        for k, (code, _w) in enumerate(m["cards"]):
            pos = len(deck) - 1 - k
            if 0 <= pos < len(deck):
                if code:
                    self.see(player, deck[pos], code)
                ids.append(deck[pos].id)
        if ids:
            self.emit(CardRevealed(player=player, cards=tuple(ids), cause=self.cause))

    def on_unsupported(self, m: dict) -> None:
        self.note(f"{self.packets[self.i].name} is not mapped to our events")

    # -- moves ---------------------------------------------------------------------------------

    def new_token(self, controller: int, code: int) -> str:
        self.tokens[controller] += 1
        card = f"p{controller}.t{self.tokens[controller]}"
        self.code_of[card] = code
        return card

    def on_move(self, m: dict) -> None:
        code, old, new, reason = m["code"], m["old"], m["new"], m["reason"]
        ol, nl = old.location, new.location
        if ol == 0:
            if nl != LOCATION_MZONE:
                self.note(f"a card {code} appears out of nowhere in {new}; not mapped")
                return
            self.flush()
            card = self.new_token(new.controller & 1, code)
            self.place(new, card)
            self.arrive(card)
            self.summoning.add(card)
            self.emit(TokenCreated(player=new.controller & 1, card=card, code=code, zone=new.sequence,
                                   position=ATTACK if new.position & POS_ATTACK else DEFENSE,
                                   cause=self.effect_cause(new.controller & 1)))
            return
        card = self.lookup(old, code)
        if card is None:
            self.note(f"no card at {old} for a move of {code}")
            return
        host_before = self.host_of(card) if ol & LOCATION_OVERLAY else None
        if ol == LOCATION_DECK and nl == LOCATION_HAND and old.controller == new.controller:
            deck = self.sides[old.controller & 1].deck
            self.credit_gain(old.controller & 1, 1, top=old.sequence == len(deck) - 1)
        self.remove(old, card)
        if nl:
            self.place(new, card)
        leaves_field = ol in (LOCATION_MZONE, LOCATION_SZONE) and nl not in (LOCATION_MZONE, LOCATION_SZONE)
        if leaves_field or (ol == LOCATION_MZONE and nl == LOCATION_SZONE) or (ol == LOCATION_SZONE and nl == LOCATION_MZONE):
            self.depart(card, ol == LOCATION_MZONE)
        self.map_move(card, code, old, new, reason, host_before)

    def host_of(self, card: str) -> str | None:
        return next((h for h, mats in self.overlays.items() if card in mats), None)

    def arrive(self, card: str) -> None:
        self.believed.pop(card, None)
        self.counters.pop(card, None)

    def depart(self, card: str, from_mzone: bool) -> None:
        """A card leaves the field (or changes rows): what our fold forgets or does by itself."""
        self.believed.pop(card, None)
        self.counters.pop(card, None)
        self.facedown_st.discard(card)
        self.attacked.pop(card, None)
        self.set_turn.pop(card, None)
        if from_mzone:
            mats = self.overlays.get(card)
            if mats:
                self.auto_gy.update(mats)        # NIS-05: our fold sends them to the GY with it
            if self.attack and card in (self.attack[0], self.attack[1]) and not self.calculated:
                self.removed_by[card] = self.cause

    def dest(self, w: Where, card: str) -> tuple[Loc, str | None]:
        loc = self.our_loc(w, card)
        return loc, _position(w.position, loc.zone)

    def map_move(self, card: str, code: int, old: Where, new: Where, reason: int,
                 host_before: str | None) -> None:
        ol, nl = old.location, new.location
        player = new.controller & 1
        # a cost paid while activating: part of the activation (CHAIN-11)
        if self.activation is not None and reason & REASON_COST and self.cost_move(card, old, new, reason):
            return
        # Xyz materials our fold already sent to the GY with their Xyz monster (NIS-05)
        if card in self.auto_gy:
            self.auto_gy.discard(card)
            if nl == LOCATION_GRAVE or nl == 0:
                return
            self.flush()
            to, pos = self.dest(new, card)
            self.emit(CardMoved(card=card, to=to, reason=self.reason_name(card, old, new, reason),
                                position=pos, cause=self.cause))
            return
        if nl & LOCATION_OVERLAY:
            host = self.lookup(Where(new.controller, nl & 0x7F, new.sequence, 0))
            if host is not None and (nl & 0x7F) != LOCATION_MZONE:
                self.pre_overlay.setdefault(host, []).append(card)   # an Xyz Summon is coming
                self.pending_at[card] = self.i
                self.remember_material(card, old)
                return
            self.flush()
            self.emit(CardMoved(card=card, to=Loc(new.controller & 1, OVERLAY, new.sequence),
                                reason="attached", cause=self.effect_cause(player)))
            return
        if ol & LOCATION_OVERLAY:
            if host_before is not None and not self.on_field(host_before) and nl == LOCATION_GRAVE:
                return           # left with its host (already in our GY)
            self.flush()
            to, pos = self.dest(new, card)
            self.emit(CardMoved(card=card, to=to, position=pos, cause=self.cause,
                                reason="detached" if nl == LOCATION_GRAVE else self.reason_name(card, old, new, reason)))
            return
        # summons
        if nl == LOCATION_MZONE and ol != LOCATION_MZONE:
            self.to_monster_zone(card, old, new, reason)
            return
        if ol == LOCATION_MZONE and nl == LOCATION_MZONE:
            self.flush()
            if (old.controller & 1) != player:
                self.emit(ControlChanged(player=player, card=card, to_player=player, zone=new.sequence,
                                         cause=self.effect_cause(player)))
            else:                                 # "move to another of your Monster Zones"
                self.emit(ZoneChanged(player=player, card=card, zone=new.sequence, cause=self.effect_cause(player)))
            return
        if nl == LOCATION_SZONE and ol != LOCATION_SZONE:
            self.to_spell_zone(card, old, new, reason)
            return
        if ol == LOCATION_SZONE and nl == LOCATION_SZONE:
            self.flush()
            to = self.our_loc(new)
            if (old.controller & 1) != player:
                self.emit(ControlChanged(player=player, card=card, to_player=player,
                                         zone=to.index or 0, cause=self.effect_cause(player)))
            elif to.zone == SZONE and self.our_loc(old).zone == SZONE:
                self.emit(ZoneChanged(player=player, card=card, zone=to.index or 0, cause=self.effect_cause(player)))
            else:
                self.note(f"{card} moves between the Field Zone and a Spell & Trap Zone; not expressible")
            return
        # parts of a summon that follows
        if ol == LOCATION_MZONE and reason & REASON_RELEASE and reason & REASON_SUMMON and not reason & REASON_SPSUMMON:
            self.pending_tributes.append((card, self.our_loc(new)))
            self.pending_at[card] = self.i
            return
        if reason & REASON_MATERIAL and reason & (REASON_FUSION | REASON_SYNCHRO | REASON_XYZ | REASON_LINK | REASON_RITUAL):
            to, pos = self.dest(new, card) if nl else (Loc(old.controller & 1, GY), None)
            self.pending_materials.append((card, reason, to, pos, self.i))
            self.remember_material(card, old)
            return
        self.flush()
        # a summon negated as it was attempted (SUM-03): the monster leaves before "summoned"
        if ol == LOCATION_MZONE and card in self.summoning and self.solving is not None:
            self.summoning.discard(card)
            self.emit(SummonNegated(player=old.controller & 1, card=card, cause=self.cause))
            if nl not in (LOCATION_GRAVE, 0):
                to, pos = self.dest(new, card)
                self.emit(CardMoved(card=card, to=to, reason=self.reason_name(card, old, new, reason),
                                    position=pos, cause=self.cause))
            return
        # the turn player's discard down to six (HAND-01)
        if (ol == LOCATION_HAND and nl == LOCATION_GRAVE and reason & REASON_DISCARD and reason & REASON_RULE
                and self.phase == "end" and self.solving is None):
            self.hand_discard(card)
            return
        if nl == 0:
            owner = old.controller & 1
            if not self.fx(card).is_token:
                self.note(f"{card} leaves the duel ({old} -> nowhere); sent to the GY instead")
            self.emit(CardMoved(card=card, to=Loc(owner, GY), reason=self.reason_name(card, old, new, reason),
                                cause=self.cause))
            return
        to, pos = self.dest(new, card)
        cite = None
        if to.zone in (HAND, DECK, GY, BANISHED, EXTRA) and to.controller != self.owner_of(card):
            cite = Cite(self.cause or card, f"puts the card in the opponent's {to.zone}")
        self.emit(CardMoved(card=card, to=to, reason=self.reason_name(card, old, new, reason),
                            position=pos, cause=self.cause, cite=cite))

    def reason_name(self, card: str, old: Where, new: Where, reason: int) -> str:
        ol, nl = old.location, new.location
        if nl in (LOCATION_MZONE, LOCATION_SZONE):
            # a card placed on the field keeps stale reason bits from its last move
            return "returned" if ol == LOCATION_REMOVED else "sent"
        if reason & REASON_DESTROY:
            if reason & REASON_BATTLE and card in self.battle_destroyed:
                return "battle"
            return "destroyed"
        if reason & REASON_RELEASE:
            return "tributed" if ol == LOCATION_MZONE else "cost" if reason & REASON_COST else "sent"
        if reason & REASON_MATERIAL:
            return "material"
        if reason & REASON_DISCARD and ol == LOCATION_HAND:
            return "discarded"
        if ol == LOCATION_SZONE and nl == LOCATION_GRAVE and card in self.resolved_cards:
            return "resolved"
        if reason & REASON_COST:
            return "cost"
        if nl == LOCATION_REMOVED:
            return "banished"
        if nl == LOCATION_HAND:
            return "returned" if ol in (LOCATION_MZONE, LOCATION_SZONE) else "added"
        if nl in (LOCATION_DECK, LOCATION_EXTRA):
            return "returned"
        if reason & REASON_RULE:
            return "rule"
        return "sent"

    def cost_move(self, card: str, old: Where, new: Where, reason: int) -> bool:
        act = self.activation
        ol, nl = old.location, new.location
        zone = {LOCATION_GRAVE: GY, LOCATION_REMOVED: BANISHED, LOCATION_DECK: DECK, LOCATION_HAND: HAND,
                LOCATION_EXTRA: EXTRA}.get(nl)
        # A card activated as a Spell/Trap goes to its zone, never pays with itself (LOG-04); a
        # monster's effect may (Tribute or discard this card): a cost in the engine's order (CHAIN-11)
        if act is None or (card == act.card and act.effect_type is None) or zone is None or card in self.auto_gy:
            return False
        if zone == BANISHED and not new.position & POS_FACEUP:
            return False
        if ol & LOCATION_OVERLAY:
            if zone != GY:
                return False
            why = "detached"
        elif reason & REASON_RELEASE:
            why = "tributed"
        elif reason & REASON_DISCARD and ol == LOCATION_HAND:
            why = "discarded"
        elif zone == BANISHED:
            why = "banished"
        else:
            why = "cost"
        if zone == EXTRA and ol in (LOCATION_MZONE, LOCATION_SZONE) and self.fx(card).is_pendulum:
            zone = GY                         # PEND-05: our fold sends it on to the Extra Deck face-up
        elif zone in (EXTRA, DECK) and ol not in (LOCATION_MZONE, LOCATION_SZONE, LOCATION_GRAVE,
                                                   LOCATION_REMOVED, LOCATION_HAND):
            return False
        if zone == DECK:
            return False                      # a deck position cannot be stated in a cost
        act.costs.append(Cost(card=card, to=zone, reason=why))
        return True

    def hand_discard(self, card: str) -> None:
        """Gather the End Phase discards that follow into one hand_size_discard."""
        cards = [card]
        j = self.i
        while True:
            j = self.next_significant(j)
            if j is None or self.packets[j].id != MSG_MOVE:
                break
            m = self.msg(j)
            o, n, r = m["old"], m["new"], m["reason"]
            if not (o.location == LOCATION_HAND and n.location == LOCATION_GRAVE and r & REASON_DISCARD and r & REASON_RULE):
                break
            other = self.lookup(o, m["code"])
            if other is None:
                break
            self.remove(o, other)
            self.place(n, other)
            cards.append(other)
            self.consumed.add(j)
        self.emit(HandSizeDiscard(player=self.turn_player, cards=tuple(cards)))

    def following(self) -> tuple[int | None, int | None, dict | None]:
        j = self.next_significant(self.i)
        if j is None:
            return None, None, None
        return j, self.packets[j].id, self.msg(j)

    def to_monster_zone(self, card: str, old: Where, new: Where, reason: int) -> None:
        player = new.controller & 1
        _j, nid, nm = self.following()
        same = nm is not None and "at" in nm and (nm["at"].controller, nm["at"].location, nm["at"].sequence) == (
            new.controller, new.location, new.sequence)
        self.arrive(card)
        if nid in (MSG_SUMMONING, MSG_SET) and same and old.location == LOCATION_HAND:
            pending, self.pending_tributes = self.pending_tributes, []
            tributes = tuple(c for c, _ in pending)
            self.flush()
            self.began_at = self.began(tributes)
            try:
                self.normal_summon(card, new, player, nid, pending, tributes)
            finally:
                self.began_at = None
            return
        if reason & REASON_SPSUMMON or nid == MSG_SPSUMMONING:
            self.special_summon(card, old, new, reason)
            return
        waiting = self.pre_overlay.pop(card, None)    # materials attached to it before it came out
        self.flush()
        to, pos = self.dest(new, card)
        self.emit(CardMoved(card=card, to=to, reason=self.reason_name(card, old, new, reason), position=pos,
                            cause=self.effect_cause(player)))
        for material in waiting or ():
            self.pending_at.pop(material, None)
            self.emit(CardMoved(card=material, to=Loc(player, OVERLAY, new.sequence), reason="attached",
                                cause=self.effect_cause(player)))

    def normal_summon(self, card: str, new: Where, player: int, nid: int, pending: list[tuple[str, Loc]],
                      tributes: tuple[str, ...]) -> None:
        """A Normal Summon or Set from the hand, with the Tributes just released (SUM-01, SUM-04)."""
        level = self.sync_level(card, new)
        cite = self.normal_summon_cite(card, player, len(tributes), level)
        if nid == MSG_SUMMONING:
            position = DEFENSE if new.position & POS_DEFENSE else ATTACK
            self.summoning.add(card)
            self.emit(NormalSummoned(player=player, card=card, zone=new.sequence, tributes=tributes,
                                     position=position, cite=cite))
        else:
            self.emit(MonsterSet(player=player, card=card, zone=new.sequence, tributes=tributes, cite=cite))
        for tribute, to in pending:
            if to.zone not in (GY, EXTRA):        # redirected (e.g. banished instead): move it on
                self.emit(CardMoved(card=tribute, to=to, reason="banished" if to.zone == BANISHED else "returned"))

    def remember_material(self, card: str, old: Where) -> None:
        """Where a material came from, with what EDOPro last said of it there (Level, Tuner)."""
        query = self.field_query(old) if old.location == LOCATION_MZONE else None
        self.material_from[card] = (old, query)

    def field_query(self, w: Where) -> Query | None:
        """The latest Monster Zone refresh of ``w`` before the current packet (parsed on demand)."""
        for j in range(self.i - 1, max(0, self.i - 400), -1):
            p = self.packets[j]
            if p.id == MSG_UPDATE_DATA and len(p.payload) > 2 and p.payload[0] == w.controller and p.payload[1] == LOCATION_MZONE:
                queries = self.refresh_cache.get(j)
                if queries is None:
                    queries = self.refresh_cache[j] = parse_update_data(p.payload, p.offset)[2]
                return queries[w.sequence] if w.sequence < len(queries) else None
        return None

    def special_summon(self, card: str, old: Where, new: Where, reason: int) -> None:
        pending, self.pending_materials = self.pending_materials, []
        tributes, self.pending_tributes = self.pending_tributes, []
        overlay = self.pre_overlay.pop(card, [])
        moved_at = [self.pending_at.pop(c) for c in [t for t, _ in tributes] + overlay if c in self.pending_at]
        moved_at += [at for *_, at in pending]
        self.began_at = min(moved_at) if moved_at else None
        try:
            self.write_special_summon(card, old, new, pending, tributes, overlay)
        finally:
            self.began_at = None

    def write_special_summon(self, card: str, old: Where, new: Where, pending: list, tributes: list,
                             overlay: list[str]) -> None:
        """The Special Summon of ``card``, its method told by its materials (module docstring).

        Materials that all go to the GY are listed in the event, which sends them in that order.
        When some go elsewhere (banished, say), each is a ``card_moved`` "material" of its own,
        in the engine's order and at its own packet, and the summon lists none: the GY then
        grows exactly as the engine's state packets show it (ZONE-13)."""
        player = new.controller & 1
        cause = self.procedure_cause(player)
        # Levels an effect changed on the field are what the procedure used (SYN-01, XYZ-01, RIT-02)
        for m_card in [m for m, *_ in pending] + overlay:
            self.sync_material_level(m_card)
        for t, w in tributes:
            self.emit(CardMoved(card=t, to=w, reason="tributed", cause=cause))
        mat_reason = 0
        listed: list[str] = []
        sent = all(to.zone == GY or (to.zone == EXTRA and pos == FACEUP) or self.fx(m_card).is_token
                   for m_card, _r, to, pos, _at in pending)
        for m_card, m_reason, to, pos, at in pending:
            mat_reason |= m_reason
            if sent:
                listed.append(m_card)
            else:
                self.emit(CardMoved(card=m_card, to=to, reason="material", position=pos, cause=cause), at)
        if not sent:
            self.began_at = None                  # the summon itself comes at its own packet
        if overlay:
            listed = overlay + listed
            mat_reason |= REASON_XYZ
        self.flush()
        method = next((name for bit, name in _MATERIAL_METHODS if mat_reason & bit), None)
        if method is None:
            if cause is not None:
                method = "effect"
            elif self.is_pendulum_summon(card, old, player):
                method = "pendulum"
            else:
                method = "inherent"
        elif self.fx(card).is_xyz and method != "xyz" and overlay:
            method = "xyz"
        materials = [m for m, *_ in pending] + overlay
        self.arrive(card)
        self.summoning.add(card)
        position = _position(new.position, MZONE) or ATTACK
        cite = self.special_summon_cite(card, old, new, method, cause, materials)
        if method in _PROPER:
            self.proper.add(card)
        self.emit(SpecialSummoned(player=player, card=card, zone=new.sequence, method=method,
                                  position=position, materials=tuple(listed), cite=cite,
                                  cause=cause if method != "inherent" and method != "pendulum" else None))

    def procedure_cause(self, player: int) -> str | None:
        """The effect making a summon: the link resolving, the link that just resolved when the
        summon comes between links (an effect's "then Synchro Summon"), or the chain's last link
        when it comes right after the chain ended, outside the player's open game state."""
        if self.cause is not None:
            return self.cause
        if self.last_resolved is not None:
            card, who = self.last_resolved
            if self.chain and self.solving is None:
                return card
            open_state = player == self.turn_player and self.phase in ("main1", "main2")
            if len(self.events) == self.chain_end_at and not open_state and who == player:
                return card
        return None

    def sync_material_level(self, card: str) -> None:
        old, query = self.material_from.get(card, (None, None))
        if query is None or query.level is None:
            return
        facts = self.fx(card)
        if facts.printed_level is None:
            return
        believed = (self.believed.get(card) or (None, None, facts.printed_level))[2]
        if query.level != believed and query.level > 0:
            b = self.believed.get(card) or (None, None, None)
            self.believed[card] = (b[0], b[1], query.level)
            self.emit(StatsChanged(player=old.controller & 1, card=card, level=query.level))

    def special_summon_cite(self, card: str, old: Where, new: Where, method: str, cause: str | None,
                            materials: list[str]) -> Cite | None:
        """The effect behind a Special Summon the basic rules do not allow, where the stream shows it."""
        facts = self.fx(card)
        by = cause or card
        if not facts.is_monster:
            return Cite(by, "Special Summoned as a monster (a Trap Monster) by this card's effect")
        if (old.controller & 1) != (new.controller & 1) and old.location == LOCATION_HAND:
            return Cite(by, "Special Summoned to the opponent's field by this card's own procedure")
        conditioned = facts.is_extra_deck or facts.is_ritual or bool(facts.type & TYPE_SPSUMMON)
        if method == "effect" and conditioned and old.location != LOCATION_EXTRA and card not in self.proper:
            return Cite(by, "Special Summoned ignoring its summoning conditions")
        if method == "inherent" and not (new.controller & 1 == self.turn_player and self.phase in ("main1", "main2")
                                         and not self.chain):
            return Cite(card, "Special Summoned by its own procedure outside an open game state")
        froms = [self.material_from.get(m, (None, None)) for m in materials]
        places = {w.location for w, _ in froms if w is not None}
        player = new.controller & 1
        if method in ("fusion", "ritual") and places - {LOCATION_HAND, LOCATION_MZONE}:
            return Cite(by, f"takes {method.capitalize()} materials from elsewhere than the hand or field")
        if method == "fusion" and len(materials) < 2:
            return Cite(by, "Fusion Summons with a single material as this card's effect allows")
        if any(w is not None and w.location == LOCATION_MZONE and (w.controller & 1) != player for w, _ in froms):
            return Cite(by, "uses the opponent's monster as material")
        if method == "ritual":
            total = sum(self.current_level(m) for m in materials)
            if total < (facts.printed_level or 0):
                return Cite(by, "Ritual Tributes whose Levels count differently by this card's effect")
        if method == "synchro":
            changed = [m for m, (_w, q) in zip(materials, froms)
                       if q is not None and q.type is not None and bool(q.type & TYPE_TUNER) != self.fx(m).is_tuner]
            if changed:
                return Cite(self.granted_to(changed[0]), "a material is treated as a Tuner (or not) by this card's effect")
            tuners = sum(1 for m in materials if self.fx(m).is_tuner)
            total = sum(self.current_level(m) for m in materials)
            if tuners != 1 or total != (facts.printed_level or 0) or any(self.fx(m).printed_level is None for m in materials):
                return Cite(by, "Synchro materials as its own text (or the effect summoning it) allows")
        if method == "xyz" and cause is None:
            odd = (len(materials) < 2 or LOCATION_OVERLAY & sum(w.location for w, _ in froms if w is not None)
                   or any(self.current_level(m) != facts.rank for m in materials))
            if odd:
                return Cite(card, "Xyz Summoned by its own procedure")
        if method == "link" and not materials:
            return Cite(by, "Link Summoned with materials that leave the duel")
        return None

    def current_level(self, card: str) -> int:
        facts = self.fx(card)
        level = (self.believed.get(card) or (None, None, None))[2]
        return level if level is not None else (facts.printed_level or 0)

    def is_pendulum_summon(self, card: str, old: Where, player: int) -> bool:
        if old.location not in (LOCATION_HAND, LOCATION_EXTRA):
            return False
        szone = self.sides[player].szone
        scales = [szone[k] for k in (0, 4, 6, 7) if szone[k] is not None and self.fx(szone[k]).is_pendulum]
        if len(scales) < 2:
            return False
        low, high = sorted((self.fx(scales[0]).lscale, self.fx(scales[1]).rscale))
        level = self.fx(card).printed_level or 0
        return low < level < high

    def sync_level(self, card: str, new: Where) -> int | None:
        """The Level EDOPro gives the monster as it lands, when an effect changed it (SUM-04)."""
        facts = self.fx(card)
        believed = (self.believed.get(card) or (None, None, facts.printed_level))[2]
        if facts.printed_level is None:
            return None
        j = self.i + 1
        while j < len(self.packets) and self.packets[j].id in (MSG_UPDATE_CARD, MSG_UPDATE_DATA, MSG_HINT):
            p = self.packets[j]
            if p.id == MSG_UPDATE_CARD:
                c, loc, seq, q = parse_update_card(p.payload, p.offset)
                if (c, loc, seq) == (new.controller, new.location, new.sequence) and q is not None:
                    if q.level is not None and q.level != believed:
                        self.emit(StatsChanged(player=new.controller & 1, card=card, level=q.level,
                                               cause=self.effect_cause(new.controller & 1)))
                        return q.level
                    return believed
            j += 1
        return believed

    def normal_summon_cite(self, card: str, player: int, tributes: int, level: int | None) -> Cite | None:
        """The effect behind a Normal Summon the basic rules do not allow (SUM-01, SUM-04)."""
        if self.cause is not None:
            return Cite(self.cause, "summoned during the resolution of its effect")
        extra = self.ns_turn[player] == self.turn
        self.ns_turn[player] = self.turn
        grant = self.summon_grant(player)
        cite = None
        if extra:
            hinted = grant if grant is not None and self.grant_was_hint else None
            granted = hinted or (self.ns_grants[player].pop() if self.ns_grants[player] else None) or grant
            if granted is not None:
                cite = Cite(granted, "an additional Normal Summon")
            else:
                self.note(f"a second Normal Summon by player {player} in turn {self.turn}, and the stream names no card")
        elif grant is not None:
            self.ns_grants[player].append(grant)      # the exception may belong to a later summon
        level = level or 0
        need = 0 if level <= 4 else 1 if level <= 6 else 2
        if cite is None and tributes != need:
            cite = Cite(grant or card, f"Normal Summoned with {tributes} Tribute(s) by a summon procedure")
        return cite

    def summon_grant(self, player: int) -> str | None:
        """A card the stream names as making this summon possible: a HINT_CARD just before it, or
        the player's chain link that resolved with no visible outcome right before it."""
        self.grant_was_hint = False
        if self.hint_card is not None and self.hint_card[0] > self.prev_sig:
            holder = self.card_with_code(self.hint_card[1], player)
            self.hint_card = None
            if holder is not None:
                self.grant_was_hint = True
                return holder
        end, quiet = self.after_chain
        if end == len(self.events):
            mine = [c for c, p in quiet if p == player]
            if mine:
                return mine[-1]
        return None

    def to_spell_zone(self, card: str, old: Where, new: Where, reason: int) -> None:
        player = new.controller & 1
        _j, nid, nm = self.following()
        same = nm is not None and "at" in nm and (nm["at"].controller, nm["at"].location, nm["at"].sequence) == (
            new.controller, new.location, new.sequence)
        self.arrive(card)
        if old.location == LOCATION_MZONE:
            self.depart(card, True)
        if nid == MSG_CHAINING and same and old.location == LOCATION_HAND:
            self.flush()
            self.pending_place = (card, new, self.i)  # the activation puts it there
            return
        self.flush()
        to, pos = self.dest(new, card)
        if nid == MSG_SET and same:
            self.facedown_st.add(card)
            if old.location == LOCATION_HAND:
                self.set_turn[card] = self.turn
                cite = Cite(self.cause, "Set during the resolution of its effect") if self.cause else None
                self.emit(SpellTrapSet(player=player, card=card, zone=to.index or 0, field_zone=to.zone == FZONE,
                                       cite=cite))
                return
            pos = SET
        elif pos == SET:
            self.facedown_st.add(card)
        self.emit(CardMoved(card=card, to=to, reason=self.reason_name(card, old, new, reason), position=pos,
                            cause=self.effect_cause(player)))

    # -- chains --------------------------------------------------------------------------------

    def on_chaining(self, m: dict) -> None:
        self.flush()
        at, code, link = m["at"], m["code"], m["chain"]
        card = self.lookup(at, code)
        place, self.pending_place = self.pending_place, None
        if card is None:
            self.note(f"no card at {at} activates {code}")
            card = place[0] if place else None
            if card is None:
                return
        player = at.controller & 1
        facts = self.fx(card)
        zone: int | None = None
        field_zone = False
        cite = None
        if place is not None and place[0] == card and (facts.is_spell or facts.is_trap or facts.is_pendulum):
            effect_type = None
            loc = self.our_loc(place[1])
            field_zone = loc.zone == FZONE
            zone = None if field_zone else loc.index
            if facts.is_trap:
                cite = Cite(card, "activated from the hand as its own text allows")
        elif place is not None:
            self.emit_place(place)
            effect_type = self.effect_type(card, player, link, at)
        elif card in self.facedown_st and (facts.is_spell or facts.is_trap):
            self.facedown_st.discard(card)
            effect_type = None
            if (facts.is_trap or facts.spell_subtype == "quickplay") and self.set_turn.get(card) == self.turn:
                cite = Cite(card, "activated the turn it was Set as its own text allows")
        else:
            effect_type = self.effect_type(card, player, link, at)
        effect = _Effect(self.i, card, code, player, m["desc"])
        self.effect_log.append(effect)
        # the activation begins where the card was put in its zone, if it was (the engine's state
        # packets show it there from that MSG_MOVE on)
        flip, self.pending_flip = self.pending_flip, None
        begins = (place[2] if place is not None and place[0] == card and effect_type is None
                  else flip[1] if flip is not None and flip[0] == card and effect_type is None else self.i)
        self.activation = _Activation(self.i, card, player, link, effect_type, zone, field_zone, cite=cite,
                                      effect=effect, begins=begins)

    def emit_place(self, place: tuple[str, Where, int]) -> None:
        card, w, _at = place
        to, pos = self.dest(w, card)
        self.emit(CardMoved(card=card, to=to, reason="sent", position=pos, cause=self.cause))

    def effect_type(self, card: str, player: int, link: int, at: Where) -> str:
        """Which kind of effect: the stream does not say, so judge by when it was activated."""
        facts = self.fx(card)
        if link > 1 or self.chain:
            return "quick"
        if facts.is_flip and card in self.flipped and at.location == LOCATION_MZONE:
            return "flip"
        open_state = (player == self.turn_player and self.phase in ("main1", "main2") and self.solving is None)
        if open_state:
            if at.location == LOCATION_SZONE and facts.is_pendulum and facts.is_monster:
                return "pendulum"
            return "ignition"
        return "trigger"

    def on_become_target(self, m: dict) -> None:
        act = self.activation
        if act is None:
            return
        for w in m["locs"]:
            card = self.lookup(w)
            if card is not None and card not in act.targets:
                act.targets.append(card)

    def on_chained(self, m: dict) -> None:
        act, self.activation = self.activation, None
        if act is None:
            return
        self.flush()
        ev = Activated(player=act.player, card=act.card, effect_type=act.effect_type, zone=act.zone,
                       field_zone=act.field_zone, targets=tuple(act.targets), costs=tuple(act.costs),
                       link=act.link, cite=act.cite)
        self.events.append(ev)
        self.sources.append(act.begins)
        for event, source in act.after:
            self.events.append(event)
            self.sources.append(source)
        while len(self.chain) >= act.link:
            self.chain.pop()
        self.chain.append(_Link(act.card, act.player, act.effect_type, effect=act.effect))
        self.last_link_card = act.card
        self.last_link_by_player[act.player] = act.card
        self.turn_activations.append((act.card, tuple(act.targets)))

    def on_chain_solving(self, m: dict) -> None:
        self.flush()
        ct = m["chain"]
        self.solving = ct
        self.solving_from = len(self.events)
        if 0 < ct <= len(self.chain):
            self.finish_negated(ct)

    def finish_negated(self, ct: int) -> None:
        link = self.chain[ct - 1]
        if link.negated and not link.done:
            link.done = True
            self.emit(ChainLinkNegated(link=ct, by=link.negated_by))

    def on_chain_negated(self, m: dict) -> None:
        self.flush()
        ct = m["chain"]
        if 0 < ct <= len(self.chain) and not self.chain[ct - 1].negated:
            # Usually sent while the negating link resolves; the negated link's turn comes later.
            link = self.chain[ct - 1]
            link.negated = True
            link.negated_by = self.solving if self.solving and self.solving > ct else None
            if self.solving == ct:
                self.finish_negated(ct)

    def on_chain_solved(self, m: dict) -> None:
        self.flush()
        ct = m["chain"]
        if 0 < ct <= len(self.chain):
            link = self.chain[ct - 1]
            if link.negated:
                self.finish_negated(ct)
            elif not link.done:
                link.done = True
                if link.effect is not None:
                    link.effect.resolved = True
                self.emit(ChainLinkResolved(link=ct))
                if len(self.events) == self.solving_from + 1:
                    self.quiet_links.append((link.card, link.player))
            self.last_resolved = (link.card, link.player)
            self.resolved_cards.add(link.card)
            del self.chain[ct - 1:]
        self.solving = None

    def on_chain_end(self, m: dict) -> None:
        self.flush()
        self.solving = None
        for ct in range(len(self.chain), 0, -1):
            link = self.chain[ct - 1]
            if link.negated:
                self.finish_negated(ct)
            elif not link.done:
                self.note(f"chain link {ct} ends without resolving; counted as resolved")
                if link.effect is not None:
                    link.effect.resolved = True
                self.emit(ChainLinkResolved(link=ct))
        self.chain.clear()
        self.emit(ChainEnded())
        self.chain_end_at = len(self.events)
        self.resolved_cards.clear()
        self.after_chain = (len(self.events), list(self.quiet_links))
        self.quiet_links = []

    # -- positions and summon messages ---------------------------------------------------------

    def on_pos_change(self, m: dict) -> None:
        at, old, new = m["at"], m["old_pos"], m["new_pos"]
        card = self.lookup(at)
        if card is None or old == new:
            return
        if at.location == LOCATION_SZONE:
            if old & POS_FACEDOWN and new & POS_FACEUP:
                _j, nid, nm = self.following()
                if nid == MSG_CHAINING and nm and nm["at"].location == LOCATION_SZONE and nm["at"].sequence == at.sequence:
                    self.pending_flip = (card, self.i)
                    return                        # the activation turns it face-up
                self.flush()
                self.facedown_st.discard(card)
                self.emit(PositionChanged(player=at.controller & 1, card=card, position=FACEUP,
                                          cause=self.effect_cause(at.controller & 1)))
            else:                                 # SPELL-03: only an effect turns it face-down
                self.flush()
                self.facedown_st.add(card)
                self.set_turn[card] = self.turn
                self.emit(PositionChanged(player=at.controller & 1, card=card, position=SET,
                                          cause=self.effect_cause(at.controller & 1)))
            return
        if at.location != LOCATION_MZONE:
            return
        self.flush()
        position = _position(new, MZONE)
        if (self.attack and card == self.attack[1] and not self.calculated and old & POS_FACEDOWN
                and new & POS_FACEUP and self.solving is None):
            if self.step == "damage":             # POS-04: the rules flip it before damage calculation
                self.emit(PositionChanged(player=at.controller & 1, card=card, position=position))
            return                                # (else damage calculation flips it in our fold)
        if old & POS_FACEDOWN and new & POS_FACEUP:
            self.flipped.add(card)
        player = at.controller & 1
        # POS-07/08: a manual change is the player's answer to an idle command; an effect's
        # change outside a chain (a continuous effect, a summon procedure's "then") is not
        manual = (self.solving is None and self.activation is None and player == self.turn_player
                  and self.phase in ("main1", "main2") and self.answers_idle_command(self.i))
        self.emit(PositionChanged(player=player, card=card, position=position,
                                  cause=None if manual else self.effect_cause(player)))

    def answers_idle_command(self, i: int) -> bool:
        """Whether the message at ``i`` is what a player chose at an idle command (their free
        choice of a Main or Battle Phase action). The prompt is not recorded, but the server
        refreshes both Monster Zones, both Spell & Trap Zones and both hands just before it asks
        (``generic_duel.cpp`` BeforeParsing, MSG_SELECT_IDLECMD/BATTLECMD), so those six
        packets come right before the choice. The same six follow MSG_NEW_PHASE and MSG_CHAINED
        (and, after the two Decks, MSG_CHAIN_END) by themselves (AfterParsing): they count only
        beyond what the message before them refreshed on its own."""
        packets = self.packets
        j = i - 1
        while j >= 0 and packets[j].id in (MSG_UPDATE_DATA, MSG_UPDATE_CARD):
            j -= 1
        run = packets[j + 1:i]
        if len(run) < 6:
            return False
        for p, want in zip(run[-6:], _IDLE_REFRESH):
            if p.id != MSG_UPDATE_DATA or (p.payload[0], p.payload[1]) != want:
                return False
        own = _OWN_REFRESHES.get(packets[j].id, 0) if j >= 0 else 0
        return len(run) - own >= 6

    def on_summoned(self, m: dict) -> None:
        self.summoning.clear()

    def on_flip_summoning(self, m: dict) -> None:
        self.flush()
        at = m["at"]
        card = self.lookup(at, m["code"])
        if card is None:
            self.note(f"no card at {at} to Flip Summon")
            return
        self.flipped.add(card)
        self.summoning.add(card)
        self.emit(FlipSummoned(player=at.controller & 1, card=card,
                               cite=Cite(self.cause, "Flip Summoned during the resolution of its effect")
                               if self.cause else None))

    # -- battle --------------------------------------------------------------------------------

    def end_attack(self, cause: str | None = None, disabled: bool = False, quiet: bool = False) -> None:
        """The attack in progress ends without damage calculation (negated, or a monster left).

        ``quiet`` when the phase or turn ends: leaving the Battle Phase closes it in our fold."""
        if self.attack is None:
            return
        attacker, target = self.attack
        if not self.calculated and not quiet:
            gone = [c for c in (attacker, target) if c is not None and c in self.removed_by]
            if disabled or gone:
                why = cause or (self.removed_by.get(gone[0]) if gone else None) or self.last_link_card
                self.emit(AttackCancelled(player=self.turn_player, cause=why))
        self.attack = None
        self.calculated = False
        self.removed_by.clear()

    def on_attack(self, m: dict) -> None:
        self.flush()
        attacker = self.lookup(m["a"])
        target = self.lookup(m["b"]) if m["b"].location else None
        if attacker is None:
            self.note("an attack by no card")
            return
        if self.attack is not None and not self.calculated and self.attack[0] == attacker and attacker not in self.removed_by:
            self.attack = (attacker, target)
            defenders = self.defenders(1 - (m["a"].controller & 1))
            # BATTLE-06: a replay follows a change of the opponent's monsters; with none, an
            # effect moved the attack ("change the attack target to this card")
            cite = (Cite(self.effect_cause(self.turn_player), "changes the attack target")
                    if defenders == self.attack_defenders else None)
            self.attack_defenders = defenders
            self.emit(AttackRetargeted(player=self.turn_player, target=target, cite=cite))
            return
        self.end_attack()
        if self.step != "battle":
            self.emit(StepEntered(player=self.turn_player, step="battle"))
            self.step = "battle"
        player = m["a"].controller & 1
        cite = None
        if self.attacked.get(attacker) == self.turn:
            cite = Cite(self.granted_to(attacker), "this monster can attack more than once")
        elif target is None and any(c is not None for c in self.sides[1 - player].mzone):
            cite = Cite(self.granted_to(attacker), "this monster can attack directly")
        self.attacked[attacker] = self.turn
        self.attack = (attacker, target)
        self.attack_defenders = self.defenders(1 - player)
        self.calculated = False
        self.battle_destroyed = set()
        self.emit(AttackDeclared(player=player, attacker=attacker, target=target, cite=cite))

    def defenders(self, player: int) -> frozenset[str]:
        """The monsters ``player`` controls now (the mirror's Monster Zones, Extra ones included)."""
        return frozenset(c for c in self.sides[player].mzone if c is not None)

    def granted_to(self, card: str) -> str:
        """The card behind an ability of ``card``: the latest activation this turn that targeted it
        (an effect granting the ability), else the card itself (its own text)."""
        for source, targets in reversed(self.turn_activations):
            if card in targets and source != card:
                return source
        return card

    def on_attack_disabled(self, m: dict) -> None:
        self.flush()
        self.end_attack(disabled=True)

    def on_damage_step_start(self, m: dict) -> None:
        self.flush()
        if self.attack is None:
            self.note("a damage step with no attack")
            return
        if self.step != "battle":
            self.emit(StepEntered(player=self.turn_player, step="battle"))
        self.step = "damage"
        self.emit(StepEntered(player=self.turn_player, step="damage"))

    def on_battle(self, m: dict) -> None:
        self.flush()
        attacker = self.lookup(m["attacker"])
        target = self.lookup(m["target"]) if m["target"].location else None
        if attacker is None or self.attack is None:
            self.note("damage calculation with no attack in progress")
            return
        if self.step != "damage":
            self.emit(StepEntered(player=self.turn_player, step="damage"))
            self.step = "damage"
        atk, t_atk, t_def = m["attacker_atk"], m["target_atk"], m["target_def"]
        self.sync_stats(attacker, atk, m["attacker_def"])
        if target is not None:
            self.sync_stats(target, t_atk, t_def)
        a_loc, t_loc = m["attacker"], m["target"]
        # what the basic rules give (DMG-01..09), as our fold will compute it
        me = a_loc.controller & 1
        rules_damage = [0, 0]
        rules_destroyed: set[str] = set()
        t_attack = target is not None and bool(t_loc.position & POS_ATTACK)
        if target is None:
            rules_damage[1 - me] = max(atk, 0)
        elif t_attack:
            if atk > t_atk:
                rules_damage[t_loc.controller & 1] = atk - t_atk
                rules_destroyed = {target}
            elif atk == t_atk:
                rules_destroyed = set() if atk == 0 else {attacker, target}
            else:
                rules_damage[me] = t_atk - atk
                rules_destroyed = {attacker}
        elif atk > t_def:
            rules_destroyed = {target}
        elif atk < t_def:
            rules_damage[me] = t_def - atk
        # what happened: battle damage right after, destruction by battle before the step ends
        damage = [0, 0]
        j = self.i
        self.battle_damage_at = set()
        while True:
            j = self.next_significant(j)
            if j is None or self.packets[j].id != MSG_DAMAGE:
                break
            dm = self.msg(j)
            damage[dm["player"] & 1] += dm["amount"]
            self.battle_damage_at.add(j)
        destroyed: list[str] = []
        detach_host = chain_card = None
        locs = {(a_loc.controller, a_loc.sequence): attacker}
        if target is not None:
            locs[(t_loc.controller, t_loc.sequence)] = target
        for j in range(self.i + 1, len(self.packets)):
            pid = self.packets[j].id
            if pid in (MSG_DAMAGE_STEP_END, MSG_ATTACK, MSG_NEW_PHASE, MSG_NEW_TURN, MSG_WIN):
                break
            if pid == MSG_MOVE:
                mm = self.msg(j)
                o = mm["old"]
                if o.location == LOCATION_MZONE and mm["reason"] & REASON_BATTLE and mm["reason"] & REASON_DESTROY:
                    card = locs.get((o.controller, o.sequence))
                    if card is not None and card not in destroyed:
                        destroyed.append(card)
                elif o.location & LOCATION_OVERLAY and detach_host is None:
                    detach_host = self.lookup(Where(o.controller, o.location & 0x7F, o.sequence, 0))
            elif pid == MSG_CHAINING and chain_card is None:
                chain_card = self.lookup(self.msg(j)["at"])
        self.battle_destroyed = set(destroyed)
        hint = None
        if self.hint_card is not None and self.hint_card[0] > self.attack_index_floor():
            hint = self.card_with_code(self.hint_card[1])
        self.hint_card = None
        cite = None
        survivors = rules_destroyed - set(destroyed)
        if survivors or set(destroyed) - rules_destroyed:
            survivor = next(iter(survivors), attacker)
            by = hint or detach_host or (chain_card if chain_card in survivors else None) or survivor
            cite = Cite(by, "a monster is not destroyed by battle (replaced or protected by this card's effect)"
                        if survivors else "a monster is destroyed by this card's effect at damage calculation")
        elif damage != rules_damage:
            pierce = (target is not None and not t_attack and atk > t_def
                      and damage[t_loc.controller & 1] == atk - t_def)
            if pierce:
                cite = Cite(self.granted_to(attacker), "inflicts piercing battle damage")
            elif hint is not None:
                cite = Cite(hint, "changes the battle damage")
            else:
                self.note(f"battle damage {damage} differs from the rules' {rules_damage} and the stream names no card")
        self.calculated = True
        self.emit(DamageCalculated(player=self.turn_player, destroyed=tuple(destroyed), damage=tuple(damage),
                                   cite=cite))

    def attack_index_floor(self) -> int:
        """Packets after the last DAMAGE_STEP_START are part of this damage calculation."""
        j = self.i
        while j > 0 and self.packets[j].id != MSG_DAMAGE_STEP_START:
            j -= 1
        return j

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

    def sync_stats(self, card: str, atk: int, defense: int) -> None:
        """Tell our fold the ATK/DEF EDOPro used, where effects changed them (GEN-01 outcomes)."""
        facts = self.fx(card)
        b_atk, b_def, b_lvl = self.believed.get(card) or (facts.base_atk, facts.base_def, facts.printed_level)
        new_atk = atk if atk != b_atk else None
        new_def = defense if facts.base_def is not None and defense != b_def else None
        if new_atk is None and new_def is None:
            return
        self.believed[card] = (atk, defense if facts.base_def is not None else None, b_lvl)
        self.emit(StatsChanged(player=self.owner_of(card), card=card, atk=new_atk, defense=new_def))

    def owner_of(self, card: str) -> int:
        return int(card[1]) if card[:1] == "p" and card[1:2] in ("0", "1") else 0

    def on_damage_step_end(self, m: dict) -> None:
        self.flush()
        if self.step == "damage":
            self.emit(StepEntered(player=self.turn_player, step="battle"))
            self.step = "battle"
        self.attack = None
        self.calculated = False
        self.removed_by.clear()

    # -- life points ---------------------------------------------------------------------------

    def change_lp(self, player: int, amount: int, reason: str) -> None:
        lp = self.lp
        if reason == "gain":
            lp[player] += amount
        elif reason == "set":
            lp[player] = amount
        else:
            lp[player] = max(0, lp[player] - amount)
        if amount or reason == "set":
            self.emit(LifePointsChanged(player=player, amount=amount, reason=reason, lp=lp[player],
                                        cause=None if reason == "battle_damage" else self.cause))
        if lp[player] == 0:
            self.lost = True

    def on_damage(self, m: dict) -> None:
        self.flush()
        battle = self.i in self.battle_damage_at
        self.change_lp(m["player"] & 1, m["amount"], "battle_damage" if battle else "effect_damage")

    def on_recover(self, m: dict) -> None:
        self.flush()
        self.change_lp(m["player"] & 1, m["amount"], "gain")

    def on_pay_lpcost(self, m: dict) -> None:
        player, amount = m["player"] & 1, m["amount"]
        if self.activation is not None and player == self.activation.player and amount:
            self.activation.costs.append(Cost(lp=amount))
            self.lp[player] = max(0, self.lp[player] - amount)
            if self.lp[player] == 0:
                self.lost = True
            return
        self.flush()
        self.change_lp(player, amount, "cost")

    def on_lp_update(self, m: dict) -> None:
        self.flush()
        self.change_lp(m["player"] & 1, m["amount"], "set")

    # -- counters, coins, dice, hints, the end -------------------------------------------------

    def on_counter(self, m: dict) -> None:
        self.flush()
        at = m["at"]
        card = self.lookup(Where(at.controller, at.location, at.sequence, 0))
        if card is None:
            self.note(f"no card at {at} for a counter")
            return
        kind = m["counter"]
        have = self.counters.setdefault(card, {})
        now = have.get(kind, 0) + (m["count"] if self.packets[self.i].id == MSG_ADD_COUNTER else -m["count"])
        have[kind] = max(0, now)
        self.emit(CountersChanged(player=at.controller & 1, card=card, counter=f"{kind:#x}", count=have[kind],
                                  cause=self.cause))

    def on_coin(self, m: dict) -> None:
        self.flush()
        self.emit(CoinTossed(player=m["player"] & 1, results=tuple(bool(r) for r in m["results"]), cause=self.cause))

    def on_dice(self, m: dict) -> None:
        self.flush()
        self.emit(DieRolled(player=m["player"] & 1, results=tuple(m["results"]), cause=self.cause))

    def on_hint(self, m: dict) -> None:
        if m["type"] == HINT_CARD:
            self.hint_card = (self.i, m["data"])
        elif m["type"] == HINT_OPSELECTED:
            # A script telling the opponent which of its card's effects was chosen: the data is
            # that effect's description. It belongs to the link being activated or resolving,
            # else to the latest link of the card the description names.
            desc = m["data"]
            effect = self.current_effect()
            if effect is None or _stringid_index(desc, effect.code) is None:
                effect = next((e for e in reversed(self.effect_log) if _stringid_index(desc, e.code) is not None), None)
            if effect is not None:
                effect.named = (desc, self.i)

    def on_player_hint(self, m: dict) -> None:
        """PHINT_DESC_ADD/REMOVE: an effect with a client hint registered on, or removed from, a player."""
        player, desc = m["player"] & 1, m["value"]
        hints = self.player_hints[player]
        if m["type"] == PHINT_DESC_ADD:
            effect = self.current_effect()
            hints.append((desc, self.i, effect))
            if effect is not None:
                effect.hints.append((player, desc, self.i))
        elif m["type"] == PHINT_DESC_REMOVE:
            for k, (d, _at, effect) in enumerate(hints):
                if d == desc:
                    del hints[k]
                    if effect is not None:
                        effect.hint_ended.add(player)
                    break

    def current_effect(self) -> _Effect | None:
        """The chain link being activated (costs) or, else, resolving."""
        if self.activation is not None:
            return self.activation.effect
        if self.solving is not None and 0 < self.solving <= len(self.chain):
            return self.chain[self.solving - 1].effect
        return None

    def credit_gain(self, player: int, count: int, top: bool = False) -> None:
        """Cards a resolving link gave its own player from their Deck (a draw, or a move to the hand)."""
        if not count or self.solving is None or not 0 < self.solving <= len(self.chain):
            return
        effect = self.chain[self.solving - 1].effect
        if effect is None or effect.player != player:
            return
        if not effect.gained:
            effect.gained_at = self.i
        effect.gained += count
        if top and effect.top_at is None:
            effect.top_at = self.i

    def on_win(self, m: dict) -> None:
        self.flush()
        if self.activation is not None:
            act, self.activation = self.activation, None
            self.events.extend(e for e, _ in act.after)
            self.sources.extend(s for _, s in act.after)
        player, code = m["player"], m["reason"]
        winner = player if player in (0, 1) else None
        reason = WIN_REASONS.get(code, "effect") if winner is not None else "draw"
        if reason == "deck_out" and winner is not None:
            loser = 1 - winner
            if not self.sides[loser].deck and not self.decked_out(loser):
                self.emit(CardsDrawn(player=loser, count=1, cause=self.effect_cause(loser)))
        self.win = (winner, reason)
        self.lost = False
        self.emit(DuelEnded(winner=winner, reason=reason))

    def decked_out(self, player: int) -> bool:
        for ev in reversed(self.events):
            if isinstance(ev, CardsDrawn) and ev.player == player:
                return ev.count > len(ev.cards)
        return False


#: The refreshes the server writes before an idle command prompt: (player, location) in order.
_IDLE_REFRESH = ((0, LOCATION_MZONE), (1, LOCATION_MZONE), (0, LOCATION_SZONE), (1, LOCATION_SZONE),
                 (0, LOCATION_HAND), (1, LOCATION_HAND))
#: How many whole-location refreshes the server writes after a message on its own (AfterParsing).
_OWN_REFRESHES = {MSG_NEW_PHASE: 6, MSG_CHAINED: 6, MSG_CHAIN_END: 8, MSG_SUMMONED: 4, MSG_SPSUMMONED: 4,
                  MSG_FLIPSUMMONED: 4, MSG_CHAIN_SOLVED: 4, MSG_DAMAGE_STEP_START: 2, MSG_DAMAGE_STEP_END: 2,
                  MSG_DRAW: 1, MSG_SHUFFLE_HAND: 1, MSG_SHUFFLE_EXTRA: 1, MSG_SWAP_GRAVE_DECK: 1}

_AFTER_LOSS = frozenset(("life_points_changed", "card_moved", "cards_drawn", "stats_changed", "card_revealed",
                         "priority_passed", "duel_ended"))

_HANDLERS = {
    MSG_NEW_TURN: _Importer.on_new_turn, MSG_NEW_PHASE: _Importer.on_new_phase,
    MSG_DRAW: _Importer.on_draw, MSG_SHUFFLE_DECK: _Importer.on_shuffle_deck,
    MSG_SHUFFLE_HAND: _Importer.on_shuffle_hand, MSG_SHUFFLE_EXTRA: _Importer.on_shuffle_extra,
    MSG_DECK_TOP: _Importer.on_deck_top, MSG_CONFIRM_CARDS: _Importer.on_confirm,
    MSG_CONFIRM_DECKTOP: _Importer.on_confirm_decktop,
    MSG_SWAP_GRAVE_DECK: _Importer.on_unsupported, MSG_REVERSE_DECK: _Importer.on_unsupported,
    MSG_SHUFFLE_SET_CARD: _Importer.on_unsupported, MSG_SWAP: _Importer.on_unsupported,
    MSG_CONFIRM_EXTRATOP: _Importer.on_unsupported,
    MSG_MOVE: _Importer.on_move, MSG_POS_CHANGE: _Importer.on_pos_change,
    MSG_SUMMONED: _Importer.on_summoned, MSG_SPSUMMONED: _Importer.on_summoned,
    MSG_FLIPSUMMONING: _Importer.on_flip_summoning,
    MSG_CHAINING: _Importer.on_chaining, MSG_BECOME_TARGET: _Importer.on_become_target,
    MSG_CHAINED: _Importer.on_chained, MSG_CHAIN_SOLVING: _Importer.on_chain_solving,
    MSG_CHAIN_SOLVED: _Importer.on_chain_solved, MSG_CHAIN_NEGATED: _Importer.on_chain_negated,
    MSG_CHAIN_END: _Importer.on_chain_end,
    MSG_ATTACK: _Importer.on_attack, MSG_ATTACK_DISABLED: _Importer.on_attack_disabled,
    MSG_DAMAGE_STEP_START: _Importer.on_damage_step_start, MSG_BATTLE: _Importer.on_battle,
    MSG_DAMAGE_STEP_END: _Importer.on_damage_step_end,
    MSG_DAMAGE: _Importer.on_damage, MSG_RECOVER: _Importer.on_recover,
    MSG_PAY_LPCOST: _Importer.on_pay_lpcost, MSG_LPUPDATE: _Importer.on_lp_update,
    MSG_ADD_COUNTER: _Importer.on_counter, MSG_REMOVE_COUNTER: _Importer.on_counter,
    MSG_TOSS_COIN: _Importer.on_coin, MSG_TOSS_DICE: _Importer.on_dice,
    MSG_HINT: _Importer.on_hint, MSG_PLAYER_HINT: _Importer.on_player_hint, MSG_WIN: _Importer.on_win,
}


@dataclass
class Agreement:
    """An import folded through our rules: does it come to what EDOPro said it came to, and was
    its board the engine's at every state packet (``engine``, ``engine_check``)?"""

    lp: bool
    winner: bool
    violations: list
    state: DuelState
    engine: Any = None             # engine_check.EngineAgreement

    @property
    def ok(self) -> bool:
        return self.lp and self.winner and not self.violations and (self.engine is None or self.engine.ok)


def fold_and_compare(result: ImportResult) -> Agreement:
    """Audit the imported events, compare the board with the engine's state packets on the way
    (one fold), and compare the final LP and winner with the replay's own."""
    from .engine_check import check         # it reads this module's packets: imported when needed
    engine, report = check(result)
    state = report.state
    lp_ok = tuple(side.lp for side in state.sides) == tuple(result.expected.lp)
    winner_ok = state.ended == (result.expected.reason is not None) and state.winner == result.expected.winner
    return Agreement(lp_ok, winner_ok, report.violations, state, engine)
