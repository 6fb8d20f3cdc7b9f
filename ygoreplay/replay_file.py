"""The ygoreplay replay file (``.ygr``): one duel, self-contained, compact, verifiable, signed.

Layout (all integers little-endian)::

    offset 0   8 bytes  magic  b"\\x89YGR\\r\\n\\x1a\\n"  (binary, line-ending and EOF guards, as PNG)
           8   u16      format version
          10   u16      flags (reserved, 0)
          12   u32      header length H
          16   H bytes  header: msgpack map (view, rule set, players, match, created, counts, chain,
                        the body's expanded size and LZMA dictionary)
      16 + H   u32      body length B
      20 + H   u32      CRC-32 of the body
      24 + H   B bytes  body: LZMA (raw, LZMA2) compressed msgpack map
  24 + H + B   96 bytes (optional) the signer's Ed25519 public key (32) and its signature (64)
                        over ``ygoreplay/file/3`` and the SHA-256 of every byte before it

The header is readable without decompressing anything. The body holds the events (wire dicts, as
in JSON Lines), the recording times (milliseconds, as deltas), the facts of every card the view
may know (so the file opens with no card database) and the effect facts its duel was judged with
(``effects``, optional: what the card scripts said of them when it was recorded), what a view
disclosed and committed to, and the hash chain (``chain.py``): the body keeps the first 4 bytes
of each event's hash (enough to locate a broken link) and the header the full last hash. The
signature covers everything.

Reading is bounded by what the header declares and by fixed limits, checked before anything
is expanded: an absurd header, a body that expands past its declared size (or far past its own
size), more objects than the events and cards it declares and holds can need (counted before a
value is built) or than its compressed size justifies, are refused at once with what and where
(``ReplayFileError``). Files of every earlier format version keep loading (``_UPGRADES``).
What a file can hold (``check_event``: the names its header repeats, the bytes of one event) is
the one check every append into the store makes too: what the store takes in can leave it.
"""
from __future__ import annotations

import hashlib
import re
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from . import chain as chainlib
from .cards import CardDB, CardDBError, CardFacts, unnamed
from .errors import InputError
from .i18n import say
from .events import MAX_BANLIST, Event, EventFormatError, from_dict
from . import files
from .files import read_limited, write_atomic
from .passcodes import referenced_codes
from .signing import PUBLIC_SIZE, SIGNATURE_SIZE, OrganiserKey, PublicKey

MAGIC = b"\x89YGR\r\n\x1a\n"
FORMAT_VERSION = 3    # 2: an unknown card's name is left out; 3: signature, declared body size, views' renames
VIEWS = ("judge", "p0", "p1", "spectator")
PREFIX = 4                       # bytes of each event hash kept in the body
MAX_HEADER = 256 << 10           # a header is a few hundred bytes
MAX_EVENTS = 100_000             # a long real duel has a few thousand
MAX_CARDS = 100_000
MAX_BODY = 256 << 20             # compressed
#: The most any body expands to: a duel of ``MAX_EVENTS`` real events takes 5 MB, a match file
#: of such duels their compressed size. 256 MiB let a 16 MiB file build 1.9 GB.
MAX_EXPANDED = 64 << 20
#: A body expands at most this many times its compressed size... (the 100 real EDOPro duels and
#: the committed samples, exported: 2.7 to 6.6 times; a synthetic duel of 100,000 events 8.8)
EXPANSION = 16
EXPANSION_FLOOR = 4 << 20        # ...beyond this much
TRAILER = PUBLIC_SIZE + SIGNATURE_SIZE
SIGNATURE_LABEL = b"ygoreplay/file/3\0"
#: What the header's reader takes of one string (bytes of UTF-8: a player's name is one) and
#: of one list (the players').
HEADER_STRING = 4096
HEADER_LIST = 64
#: Names a duel's header holds: player 0's and player 1's (a match_started holds exactly two).
MAX_PLAYER_NAMES = 2
#: What one event may take in a file, as msgpack: the reader allows a body this much an event
#: beside its cards' and 64 KiB (``content_bound``), and seven times this, the most an event
#: grows written as JSON (a byte of ``false`` is ``false, ``; of a control character ``\\u0000``),
#: is within a JSON Lines file's line (``jsonl.MAX_LINE``, 1 MiB), so ``export --record`` reads
#: back too. A judge's note of 48,000 characters of Chinese fits.
MAX_EVENT_BYTES = 144 << 10
#: What the store lets one duel's records (its events' and card facts' rows) take altogether
#: (``Store._write``): a row holds its event's wire and ~100 bytes of time and hashes, more than a
#: body keeps of it (4 to 13), so a body is within ``MAX_EXPANDED`` with a quarter of it left for a
#: view's disclosures, commitments and renames (a synthetic duel of 100,000 events, ``bench/synthetic.py``:
#: 15.2 MB of records, a body of 5.0 MB, its views' 12.0 MB).
MAX_STORED = MAX_EXPANDED * 3 // 4
#: lzma's ``FILTER_LZMA2`` and ``PRESET_EXTREME``, written out: lzma is imported where a body is
#: packed or unpacked, not with this module, which a stored board's ``show`` imports and never uses
#: so (issue 25); ``tests/test_replay_file.py`` checks they are lzma's.
FILTER_LZMA2, PRESET_EXTREME = 0x21, 0x80000000
_LEGACY_FILTERS = [{"id": FILTER_LZMA2, "preset": 9 | PRESET_EXTREME}]
_MIN_DICT, _MAX_DICT = 1 << 16, 1 << 26


class ReplayFileError(InputError):
    """A file that is not a readable replay: says what and where (byte offset or field)."""


@dataclass
class ReplayFile:
    """A duel as a file: header fields, events with their times, card facts, the chain, and
    for a view what it disclosed, committed to and renamed."""

    events: list[Event]
    cards: CardDB
    times: list[str]                       # recording time of each event (ISO 8601, UTC)
    view: str = "judge"
    ruleset: str = "mr2020"
    players: list[str] = field(default_factory=list)
    match: dict[str, Any] = field(default_factory=dict)
    created: str = ""
    root: bytes = chainlib.GENESIS         # the hash the chain starts from
    disclosures: list[list] = field(default_factory=list)   # views: [index, card id, code]
    commitments: list[list] = field(default_factory=list)   # views: [index, player, digest]
    renames: list[list] = field(default_factory=list)       # views: [index, old ids, new ids]
    decklist: dict[str, list[int]] = field(default_factory=dict)   # p0/p1 views: own cards, sorted
    commit_key: bytes = b""                # judge files: the duel's secret behind the commitments
    source: dict[str, Any] = field(default_factory=dict)
    games: list[bytes] = field(default_factory=list)        # a match file: each duel's own .ygr bytes
    chain: list[bytes] = field(default_factory=list)        # full hash of each event
    stored_prefixes: bytes | None = None   # as read from a file: the chain it claims
    stored_head: bytes | None = None
    signer: PublicKey | None = None        # as read: the key that signed the file
    signature_valid: bool | None = None    # as read: None when unsigned
    format: int = FORMAT_VERSION           # as read: the file's format version

    def __repr__(self) -> str:
        signed = "unsigned" if self.signer is None else (
            f"signed by {self.signer.fingerprint}" + ("" if self.signature_valid in (None, True) else " (signature BROKEN)"))
        title = self.match.get("title")
        return (f"<ReplayFile {self.view} view{f' {title!r}' if title else ''}, {len(self.events)} events, "
                f"{len(self.cards)} cards, {self.ruleset}, format {self.format}, {signed}>")

    def __post_init__(self) -> None:
        # Times are kept to the millisecond, in UTC: the form they take back out of a file, so the
        # chain computed here is the one a reader recomputes (the store's times already are).
        self.times, stamps = _canonical_times(self.times)
        self._stamps = (list(self.times), stamps)
        if not self.chain:
            wire = [e.to_dict() for e in self.events]
            self.chain = chainlib.hashes(self.root, wire, self.times)
            self._wire = (list(self.events), wire)

    @property
    def head(self) -> bytes:
        return self.chain[-1] if self.chain else self.root

    def wire_events(self) -> list[dict]:
        """The events' wire dicts: those the chain was just computed from while the events are
        still those (writing a file built a moment ago serializes each event once, not twice)."""
        built = getattr(self, "_wire", None)
        return built[1] if built is not None and built[0] == self.events else [e.to_dict() for e in self.events]

    def stamps(self) -> list[int]:
        """The times in milliseconds, as ``__post_init__`` computed them while they are unchanged."""
        built = getattr(self, "_stamps", None)
        return built[1] if built is not None and built[0] == self.times else [chainlib.to_ms(t) for t in self.times]


# -- what a file holds --------------------------------------------------------------------------------

def check_event(event: Event, position: int, size: int = 0, names: int = MAX_PLAYER_NAMES) -> None:
    """Refuse an event no replay file can hold (a reader would refuse the file): ReplayFileError
    naming the event, the field and the limit. The one check of what a duel may hold to leave the
    store: every write of a duel makes it (``Store``, whichever face sent the events) and so does
    ``dumps`` before it writes a file. ``size``: the event's bytes as msgpack, when known (0: not).
    ``names``: how many names a header may list; ``dumps`` writes a duel stored before the check
    with more than two, as many as a header's reader reads (``HEADER_LIST``)."""
    for name in type(event).in_header:                  # none but in a duel's or a match's first event
        value = getattr(event, name)
        many = isinstance(value, tuple)
        if many and len(value) > names:
            said = dict(position=position, kind=event.kind, field=name, count=len(value), most=names)
            raise ReplayFileError(say("event {position} ({kind}): {field} names {count}; a replay file's header "
                                      "holds at most {most} (player 0's, player 1's)", **said) if names == 2 else
                                  say("event {position} ({kind}): {field} names {count}; a replay file's header "
                                      "holds at most {most}", **said))
        for i, text in enumerate(value if many else (value,)):
            if len(text) > HEADER_STRING // 4 and _utf8_size(text) > HEADER_STRING:
                raise ReplayFileError(say("event {position} ({kind}): {name}{index} is {size:,} bytes of UTF-8; a "
                                          "replay file's header holds strings of at most {HEADER_STRING:,} bytes",
                                          position=position, kind=event.kind, name=name, index=f'[{i}]' if many else '',
                                          size=_utf8_size(text), HEADER_STRING=HEADER_STRING))
    if size > MAX_EVENT_BYTES:
        raise ReplayFileError(say("event {position} ({kind}) takes {size:,} bytes; a replay file holds events of at "
                                  "most {MAX_EVENT_BYTES:,} bytes each",
                                  position=position, kind=event.kind, size=size, MAX_EVENT_BYTES=MAX_EVENT_BYTES))


def check_body(events: list[Event], cards: CardDB) -> None:
    """Refuse a duel of ``events`` whose body no reader reads (ReplayFileError saying why): the
    events and the facts of the cards they name past ``content_bound``. Each event within
    ``check_event`` fits; a duel's first events may not, when the card facts they name are large
    (an imported file's, its effect facts with them: a branch of it at an early event)."""
    facts = cards.subset(code for code in referenced_codes(events) if code in cards)
    size = len(msgpack.packb({"events": [e.to_dict() for e in events], "cards": facts.to_json_list(),
                              "effects": facts.effects_record()})) + 16 * len(events) + 256   # times, chain
    if size > content_bound(len(events), len(facts)):
        raise ReplayFileError(say("its {count} events and the facts of their {count2} cards take {size:,} bytes, "
                                  "more than a reader reads of that many ({most:,})",
                                  count=len(events), count2=len(facts), size=size,
                                  most=content_bound(len(events), len(facts))))


#: The most a header's ``match`` grows by when the store exports a duel: its id, a title of 500
#: four-byte characters (the longest a title is), a branch's parent and position.
_EXPORTED_MATCH = {"duel": "0" * 12, "title": "\U0010ffff" * 500, "parent": "0" * 12, "branch_at": 1 << 32}


def check_header(players: list[str], source: dict, created: str, match: dict | None = None) -> None:
    """Refuse a header no reader reads (ReplayFileError saying why): these ``players``, ``source``
    and ``created`` in a file, with ``match`` (None: the largest the store's export writes, as an
    import is held to what every export of it, a branch's too, will write). What ``dumps`` reads
    back of every file it writes."""
    header = msgpack.packb({
        "format": FORMAT_VERSION, "view": "spectator", "ruleset": "x" * 64, "players": players,
        "match": _EXPORTED_MATCH if match is None else match, "created": created, "events": MAX_EVENTS,
        "cards": MAX_CARDS, "root": bytes(32), "head": bytes(32), "source": source, "size": MAX_EXPANDED,
        "dict": _MAX_DICT})
    read_header(b"".join((MAGIC, struct.pack("<HHI", FORMAT_VERSION, 0, len(header)), header, bytes(8))))


def _utf8_size(text: object) -> int:
    try:
        return len(str(text).encode("utf-8"))
    except UnicodeEncodeError:           # a lone surrogate: never decoded, only a Python caller's own
        raise ReplayFileError(say("{text!r:.60} is not valid Unicode (a lone surrogate)", text=text)) from None


#: A time as ``chain.from_ms`` writes it (UTC, to the millisecond): the form of every recorded time.
_CANONICAL_TIME = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{3})\+00:00", re.ASCII)


def _canonical_times(times: list[str]) -> tuple[list[str], list[int]]:
    """``chain.from_ms(chain.to_ms(t))`` of each time, and its milliseconds. A time already in
    that form is kept as it is, its second read once for all the times in it (a duel's thousands
    of times, each parsed and formatted again, were a twentieth of an import)."""
    out: list[str] = []
    stamps: list[int] = []
    seconds: dict[str, int | None] = {}             # a second as written -> its ms, None if not canonical
    for t in times:
        match = _CANONICAL_TIME.fullmatch(t) if isinstance(t, str) else None
        if match is not None:
            head = match.group(1)
            if head not in seconds:
                base = chainlib.to_ms(head + ".000+00:00")
                seconds[head] = base if chainlib.from_ms(base)[:19] == head else None
            base = seconds[head]
            if base is not None:
                out.append(t)
                stamps.append(base + int(match.group(2)))
                continue
        ms = chainlib.to_ms(t)
        out.append(chainlib.from_ms(ms))
        stamps.append(ms)
    return out, stamps


# -- writing ----------------------------------------------------------------------------------------

def dumps(replay: ReplayFile, key: OrganiserKey | None = None, *, preset: int | None = None) -> bytes:
    """The file's bytes, signed with ``key`` when one is given; ``preset`` is LZMA's (default
    ``PRESET``; any preset makes a file every reader reads). Its body expands at most
    ``EXPANSION`` times its compressed size (``_within_expansion``)."""
    if replay.view not in VIEWS:
        raise ValueError(f"unknown view {replay.view!r}")
    stamps = replay.stamps()
    deltas = [b - a for a, b in zip([stamps[0] if stamps else 0] + stamps, stamps)]
    body: dict[str, Any] = {
        "events": replay.wire_events(),
        "t0": stamps[0] if stamps else 0,
        "dt": deltas,
        "cards": [_drop_placeholder_name(c) for c in replay.cards.to_json_list()],
        "chain": b"".join(h[:PREFIX] for h in replay.chain),
    }
    effects = replay.cards.effects_record()       # what its cards' scripts say, as the duel was judged
    if effects is not None:
        body["effects"] = effects
    for name in ("disclosures", "commitments", "renames", "decklist", "commit_key", "games"):
        if getattr(replay, name):
            body[name] = getattr(replay, name)
    try:
        for position, event in enumerate(replay.events):
            if type(event).in_header:                 # with no size given, nothing else to check
                check_event(event, position, names=HEADER_LIST)
        raw = msgpack.packb(body)
        games = sum(len(game) for game in replay.games)      # a match's duel files: at most as compressed
        if len(raw) > content_bound(len(replay.events), len(replay.cards)) + games:
            for position, (event, wire) in enumerate(zip(replay.events, body["events"])):
                check_event(event, position, len(msgpack.packb(wire)), HEADER_LIST)
            raise ReplayFileError(say("its body takes {count:,} bytes, more than a reader reads of {count2} events "
                                      "and {count3} cards",
                                      count=len(raw), count2=len(replay.events), count3=len(replay.cards)))
    except ReplayFileError as exc:
        raise ReplayFileError(say("the duel cannot be written as a replay file: {exc}", exc=exc)) from None
    except (OverflowError, ValueError, TypeError) as exc:
        raise ReplayFileError(say("the duel cannot be written as a replay file ({exc})", exc=exc)) from None
    dict_size = min(max(_MIN_DICT, 1 << (len(raw) - 1).bit_length()), _MAX_DICT)
    least = max(-(-len(raw) // EXPANSION), len(raw) - content_bound(len(replay.events), len(replay.cards)),
                -(-sum(_game_expands(game) for game in replay.games) // EXPANSION))
    import lzma
    packed = _within_expansion(raw, lzma.compress(raw, format=lzma.FORMAT_RAW, filters=_filters(dict_size, preset)),
                               _filters(dict_size, preset), least)
    if len(raw) > body_bound(len(replay.events), len(replay.cards), len(packed)):    # as ``_read`` bounds it
        raise ReplayFileError(say("the duel cannot be written as a replay file: its body takes {count:,} bytes, "
                                  "more than a reader reads of {count2} events, {count3} cards and {count4:,} "
                                  "compressed bytes ({most:,})",
                                  count=len(raw), count2=len(replay.events), count3=len(replay.cards),
                                  count4=len(packed),
                                  most=body_bound(len(replay.events), len(replay.cards), len(packed))))
    header = msgpack.packb({
        "format": FORMAT_VERSION, "view": replay.view, "ruleset": replay.ruleset,
        "players": replay.players, "match": replay.match, "created": replay.created,
        "events": len(replay.events), "cards": len(replay.cards), "root": replay.root,
        "head": replay.head, "source": replay.source, "size": len(raw), "dict": dict_size})
    data = b"".join((MAGIC, struct.pack("<HHI", FORMAT_VERSION, 0, len(header)), header,
                     struct.pack("<II", len(packed), zlib.crc32(packed)), packed))
    try:
        read_header(data)      # its players, match and source are the caller's (``check_header``)
    except ReplayFileError as exc:
        raise ReplayFileError(say("the duel cannot be written as a replay file: no reader reads its header ({exc})",
                                  exc=exc)
                              ) from None
    return data + _signature(data, key) if key is not None else data


#: LZMA2's chunk of stored bytes (its control byte 1 resets the dictionary, 2 keeps it) holds
#: at most this many, and its stream ends with a control byte 0.
_STORED_CHUNK = 1 << 16


def _within_expansion(raw: bytes, packed: bytes, filters: list[dict], least: int) -> bytes:
    """``packed`` (``raw`` as raw LZMA2) when it takes ``least`` bytes, else the same bytes as a
    stream whose last ``least`` bytes are LZMA2 chunks stored as they are. A reader bounds a
    body by its compressed size (``body_bound``): to ``EXPANSION`` times it past a floor (a duel
    of notes of one repeated character, which the store takes, compresses further), and what it
    holds past its events' and cards' bound (a match file's duel files, which compress to
    nothing when alike) to that size; a match file bounds its duel files together by its own
    size, with no floor (``_games``), so no file is written past the ratio, nor a match file
    smaller than its duel files' sizes over ``EXPANSION``. Stored chunks are plain LZMA2 (every
    reader and liblzma decode them: the format is unchanged), deterministic, the body's own
    bytes. Real bodies expand 2.7 to 8.8 times theirs: none is touched."""
    if len(packed) >= least:
        return packed
    import lzma
    tail = min(least, len(raw))
    head = lzma.compress(raw[:len(raw) - tail], format=lzma.FORMAT_RAW, filters=filters)[:-1]   # less its end
    stored = [raw[at:at + _STORED_CHUNK] for at in range(len(raw) - tail, len(raw), _STORED_CHUNK)]
    return b"".join([head, *(bytes([1 if i == 0 else 2]) + (len(chunk) - 1).to_bytes(2, "big") + chunk
                             for i, chunk in enumerate(stored)), b"\0"])


def sign(data: bytes, key: OrganiserKey) -> bytes:
    """An unsigned format 3 file's bytes with ``key``'s signature added."""
    read_header(data)
    if struct.unpack_from("<H", data, 8)[0] < 3:
        raise ReplayFileError(say("only a format 3 file can carry a signature"))
    return data + _signature(data, key)


def _signature(data: bytes, key: OrganiserKey) -> bytes:
    """The trailer signing ``data``: ``dumps`` adds it to the bytes whose header it has just
    checked (``sign`` checks bytes that come from elsewhere)."""
    return key.public.raw + key.sign(_signed_message(data))


def file_mode(replay: ReplayFile) -> int:
    """The permissions of a file holding ``replay`` (``files.mode_for``: a judge file holds every
    hidden card and the duel's secret)."""
    return files.mode_for(replay.view)


def write(path: str | Path, replay: ReplayFile, key: OrganiserKey | None = None) -> int:
    """Write the file whole or not at all (a temporary name, then a rename); returns its size."""
    return write_atomic(path, dumps(replay, key), file_mode(replay))


def write_pending(path: str | Path, replay: ReplayFile, key: OrganiserKey) -> tuple[str, Path]:
    """One file of a batch (``import -o``): compressed at ``BATCH_PRESET`` and written under a
    temporary name, which ``files.commit`` makes durable and renames with the batch's others."""
    return files.write_pending(path, dumps(replay, key, preset=BATCH_PRESET), file_mode(replay))


#: LZMA's preset for a file written alone: the smallest (the committed samples are written at it).
PRESET = 9 | PRESET_EXTREME
#: For a batch of imports: on the 100 real EDOPro duels ``dumps`` takes 1.1 ms of CPU a file
#: against 3.9 at ``PRESET`` for 3.5% more bytes (4,650 against 4,491 a file, a quarter of the
#: .yrpX's); presets 4 to 9 (bt4 match finder) cost as much as ``PRESET`` and save under 4%.
BATCH_PRESET = 3


def _filters(dict_size: int, preset: int | None = None) -> list[dict]:
    return [{"id": FILTER_LZMA2, "preset": PRESET if preset is None else preset, "dict_size": dict_size}]


def _signed_message(signed_part: bytes) -> bytes:
    return SIGNATURE_LABEL + hashlib.sha256(signed_part).digest()


# -- reading ----------------------------------------------------------------------------------------

def _drop_placeholder_name(card: dict) -> dict:
    """Format 2 leaves out a name that only says the card's name is unknown (imported replays)."""
    if card.get("name") == unnamed(card["code"]):
        return {k: v for k, v in card.items() if k != "name"}
    return card


def _named(card: Any) -> Any:
    if isinstance(card, dict) and "name" not in card and isinstance(card.get("code"), int):
        return {**card, "name": unnamed(card["code"])}
    return card


def read_header(data: bytes) -> tuple[dict, int]:
    """The header map and the offset where the body length starts."""
    if len(data) < 16:
        raise ReplayFileError(say("truncated: {count} bytes, a replay file has at least 24", count=len(data)))
    if data[:8] != MAGIC:
        raise ReplayFileError(say("not a ygoreplay file: bad magic bytes at offset 0"))
    version, _flags, header_len = struct.unpack_from("<HHI", data, 8)
    if version > FORMAT_VERSION:
        raise ReplayFileError(say("format version {version} at offset 8 is newer than this program reads "
                                  "({FORMAT_VERSION}); upgrade ygoreplay",
                                  version=version, FORMAT_VERSION=FORMAT_VERSION))
    if version == 0:
        raise ReplayFileError(say("format version 0 at offset 8 does not exist"))
    if header_len > MAX_HEADER:
        raise ReplayFileError(say("header length {header_len} at offset 12 is absurd (limit {MAX_HEADER})",
                                  header_len=header_len, MAX_HEADER=MAX_HEADER))
    end = 16 + header_len
    if len(data) < end + 8:
        raise ReplayFileError(say("truncated: the header needs bytes 16..{end}, the file has {count}",
                                  end=end + 8, count=len(data)))
    header = _unpack(data[16:end], "header at offset 16", _Limits(arrays=HEADER_LIST, maps=64, strings=HEADER_STRING,
                                                                    binaries=64, objects=4096))
    if not isinstance(header, dict):
        raise ReplayFileError(say("header at offset 16 is not a map"))
    header = _UPGRADES.get(version, lambda h: h)(header)
    header["format"] = version
    for key, kind in (("view", str), ("ruleset", str), ("events", int), ("root", bytes), ("head", bytes)):
        if not isinstance(header.get(key), kind) or isinstance(header.get(key), bool):
            raise ReplayFileError(say("header field {key!r} is missing or not a {kind}",
                                      key=key, kind=kind.__name__))
    for key, kind in (("players", list), ("match", dict), ("created", str), ("source", dict), ("cards", int)):
        if key in header and not isinstance(header[key], kind):
            raise ReplayFileError(say("header field {key!r} is not a {kind}", key=key, kind=kind.__name__))
    if header["view"] not in VIEWS:
        raise ReplayFileError(say("header field 'view' is {view!r}, not one of {names_list}",
                                  view=header['view'], names_list=', '.join(VIEWS)))
    if not 0 <= header["events"] <= MAX_EVENTS:
        raise ReplayFileError(say("header field 'events' is {events}: a file holds 0..{MAX_EVENTS} events",
                                  events=header['events'], MAX_EVENTS=MAX_EVENTS))
    if not 0 <= header.get("cards", 0) <= MAX_CARDS:
        raise ReplayFileError(say("header field 'cards' is {cards}: a file holds 0..{MAX_CARDS} cards",
                                  cards=header['cards'], MAX_CARDS=MAX_CARDS))
    if version >= 3:
        for key, low, high in (("size", 0, MAX_EXPANDED), ("dict", _MIN_DICT, _MAX_DICT)):
            value = header.get(key)
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
                raise ReplayFileError(say("header field {key!r} is {value!r}, not a number in {low}..{high}",
                                          key=key, value=value, low=low, high=high))
    return header, end


def loads(data: bytes) -> ReplayFile:
    """Read a replay file's bytes; ReplayFileError (what and where) for anything malformed."""
    return _build(*_read(data), expands=max(EXPANSION_FLOOR, EXPANSION * len(data)))


def decode_body(data: bytes) -> dict:
    """The decoded body map of a replay file's bytes (events, t0, dt, cards, chain, ...), unchecked
    beyond being a map: what the JSON Schema ``replay_file/body.json`` describes."""
    body = _read(data)[1]
    if not isinstance(body, dict):
        raise ReplayFileError(say("the body is not a map"))
    return body


@dataclass
class _Limits:
    """What one msgpack object may hold; ``objects`` bounds the containers' items altogether."""

    arrays: int
    maps: int
    strings: int
    binaries: int
    objects: int


class _TooMany(Exception):
    pass


def _unpack(raw: bytes, where: str, limits: _Limits) -> Any:
    budget = [limits.objects]

    def count(container: Any) -> Any:
        budget[0] -= len(container) + 1
        if budget[0] < 0:
            raise _TooMany
        return container

    try:
        return msgpack.unpackb(raw, strict_map_key=False, max_array_len=limits.arrays,
                               max_map_len=limits.maps, max_str_len=limits.strings,
                               max_bin_len=limits.binaries, max_ext_len=0,
                               list_hook=count, object_hook=count)
    except _TooMany:
        raise ReplayFileError(say("{where} holds more than the {objects} values its declared size allows",
                                  where=where, objects=limits.objects)) from None
    except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, ValueError, TypeError) as exc:
        raise ReplayFileError(say("{where} is not valid msgpack ({exc})", where=where, exc=exc)) from None


def _read(data: bytes) -> tuple[dict, Any, PublicKey | None, bool | None]:
    """The header map, the decoded (not yet checked) body, and the signer and whether its
    signature holds (None, None when unsigned)."""
    header, at = read_header(data)
    version = header["format"]
    body_len, crc = struct.unpack_from("<II", data, at)
    start = at + 8
    if body_len > MAX_BODY:
        raise ReplayFileError(say("body length {body_len} at offset {at} is absurd (limit {MAX_BODY})",
                                  body_len=body_len, at=at, MAX_BODY=MAX_BODY))
    if len(data) < start + body_len:
        raise ReplayFileError(say("truncated: the body needs bytes {start}..{end}, the file has {count}",
                                  start=start, end=start + body_len, count=len(data)))
    end = start + body_len
    signer, valid = None, None
    extra = len(data) - end
    if extra == TRAILER and version >= 3:
        signer = PublicKey(data[end:end + PUBLIC_SIZE])
        valid = signer.verify(data[end + PUBLIC_SIZE:], _signed_message(data[:end]))
    elif extra:
        raise ReplayFileError(say("{extra} unexpected bytes after the body at offset {end} (a signature is {TRAILER} "
                                  "bytes)", extra=extra, end=end, TRAILER=TRAILER) if version >= 3
                              else say("{extra} unexpected bytes after the body at offset {end}", extra=extra, end=end))
    packed = memoryview(data)[start:end]          # not copied: the file's bytes are at hand
    if zlib.crc32(packed) != crc:
        raise ReplayFileError(say("the body (offset {start}, {body_len} bytes) is corrupted: CRC-32 mismatch",
                                  start=start, body_len=body_len))
    events, cards = header["events"], header.get("cards", 0)
    bound = body_bound(events, cards, body_len)
    if version >= 3:
        if header["size"] > bound:
            raise ReplayFileError(say("header field 'size' declares a body of {size} bytes: more than {events} "
                                      "events and {cards} cards can need, or {body_len} compressed bytes hold (limit "
                                      "{bound})",
                                      size=header['size'], events=events, cards=cards, body_len=body_len, bound=bound))
        bound = header["size"]
    raw = _expand(packed, start, bound, _filters(header["dict"]) if version >= 3 else _LEGACY_FILTERS,
                  exact=version >= 3)
    if version >= 3 and len(raw) != header["size"]:
        raise ReplayFileError(say("the body at offset {start} expands to {count} bytes, not the {size} its header "
                                  "declares", start=start, count=len(raw), size=header['size']))
    # Every value costs at least one byte, and real bodies hold one value per 5 to 8 bytes: a
    # budget of one per 2 bytes keeps a body of empty containers (cheap to compress, costly to
    # build) to a few times its own size in memory. A banlist carried whole (duel_started) is the
    # one list past 4096 entries an event may hold, and its pairs of small passcodes the densest
    # values: room for one is made beside. A binary is read from the bytes at hand, never
    # allocated ahead of them: the longest is the body's own length (a match file's games, each
    # a whole .ygr, are binaries of any size a duel's file takes).
    # The declared counts grant that budget only once the body is seen to hold them: ``_prescan``
    # walks its top level without building a value (a body declaring 100,000 events that holds six
    # was built whole first, 75 MB from 935 bytes). And whatever it declares, a body builds at most
    # ``VALUES_PER_BYTE`` values a compressed byte beside ``VALUES_FLOOR``: expanded bytes are cheap
    # to fake (``EXPANSION`` times the compressed ones), and a value costs up to 116 bytes built.
    where = f"body at offset {start}"
    # (a body of under 512 KiB builds at most 256 Ki values whatever it declares: not walked)
    held_events, held_cards = _prescan(raw) if len(raw) > _WALKED_FROM else (events, cards)
    banlist = 3 * MAX_BANLIST + 1
    limits = _Limits(arrays=2 * events + cards + 4096 + MAX_BANLIST, maps=4096, strings=1 << 20,
                     binaries=len(raw),
                     objects=min(64 * min(events, held_events) + 256 * min(cards, held_cards) + 65536,
                                 len(raw) // 2 + 4096,
                                 VALUES_FLOOR + int(VALUES_PER_BYTE * body_len)) + banlist)
    return header, _unpack(raw, where, limits), signer, valid


#: What a body's values may number whatever its header declares: this many...
VALUES_FLOOR = 1 << 20
#: ...and this many a byte of its compressed size. Real bodies hold 0.2 to 0.96 values a
#: compressed byte, a synthetic duel of 100,000 events 1.24 (727,000 values, within the floor:
#: no duel of ``MAX_EVENTS`` such events needs more); a match file's duels are binaries of their
#: own size, one value each. A value costs up to 116 bytes built (a map of one entry, from 3
#: bytes): at one a byte, with 64 expanded bytes a compressed one, 16 MiB built 1.9 GB.
VALUES_PER_BYTE = 0.25
#: The size from which a body's lists are counted before it is built (``_prescan``)...
_WALKED_FROM = 512 << 10
#: ...holding at most this much of it at once: a value it skips whole (not an ``events`` or
#: ``cards`` entry) past this ends the count there. Whatever a body holds past its own
#: ``events`` and ``cards`` lists (``dumps`` writes them first) grants nothing, and a binary
#: of 250 MB of zeros skipped whole was buffered whole, beside the body (twice its size).
_PRESCAN_BUFFER = 1 << 20
#: The first bytes of a msgpack string (fixstr, str 8, 16, 32): a body's key that is read.
_STRING_HEADS = frozenset(range(0xa0, 0xc0)) | {0xd9, 0xda, 0xdb}
#: ...and of a msgpack array (fixarray, array 16, 32).
_ARRAY_HEADS = frozenset(range(0x90, 0xa0)) | {0xdc, 0xdd}


def _prescan(raw: bytes | bytearray) -> tuple[int, int]:
    """How many events and cards the body holds, counted before any of it is built: the entries
    of its map's ``events`` and ``cards`` lists (of every such key, a duplicate's too). Nothing is
    built but the map's string keys: every other value is skipped (msgpack's ``skip`` makes no
    object), so the walk costs a call an event and a card. Whatever is not a map of lists holds
    none (``_build`` says what it is)."""
    unpacker = msgpack.Unpacker(_Reader(raw), read_size=1 << 16, max_buffer_size=_PRESCAN_BUFFER,
                                max_str_len=1 << 20, max_bin_len=len(raw), max_ext_len=0, strict_map_key=False)
    held = {"events": 0, "cards": 0}
    try:
        size = unpacker.read_map_header()
        for _ in range(size):
            key = unpacker.unpack() if raw[unpacker.tell()] in _STRING_HEADS else None
            if raw[unpacker.tell()] not in _ARRAY_HEADS:
                unpacker.skip()
                continue
            entries = unpacker.read_array_header()        # a list's entries one at a time: the
            if key in held:                               # reader buffers one entry, not the list
                held[key] += entries                      # (a match file's duel files)
            for _ in range(entries):
                unpacker.skip()
    except ReplayFileError:
        raise
    except (msgpack.OutOfData, msgpack.FormatError, msgpack.StackError, msgpack.BufferFull, ValueError,
            IndexError, TypeError):
        pass                                 # what was counted so far, and the build says what is wrong
    return held["events"], held["cards"]


def content_bound(events: int, cards: int) -> int:
    """The most bytes a body of ``events`` events and ``cards`` cards may expand to, beside the
    bounds of its compressed size: each event at most ``MAX_EVENT_BYTES`` (what ``check_event``
    lets into a duel), each card's facts 1 KiB, and 64 KiB of the rest."""
    return (64 << 10) + MAX_EVENT_BYTES * events + 1024 * cards


def body_bound(events: int, cards: int, compressed: int) -> int:
    """The most bytes a body of ``events`` events and ``cards`` cards, ``compressed`` bytes as
    LZMA, may expand to: its content's bound, beside which it holds at most its own compressed
    size of what does not compress (a match file's duels, each a whole .ygr), and at most
    ``EXPANSION`` times that size (or ``EXPANSION_FLOOR``), ``MAX_EXPANDED`` in all. What the
    reader allows and what ``dumps`` writes."""
    return min(MAX_EXPANDED, content_bound(events, cards) + compressed, max(EXPANSION_FLOOR, EXPANSION * compressed))


def _expand(packed: bytes, offset: int, bound: int, filters: list[dict], exact: bool = False) -> bytes | bytearray:
    """Decompress at most ``bound`` bytes: a bomb is refused after that many, never more.
    ``exact``: ``bound`` is what the header declares the body expands to, and the body is
    decompressed into that many bytes in place, a megabyte at a time (at once, liblzma's blocks
    and their joining took twice the body: 185 MB to expand a 1.5 MB file's 92 MB)."""
    import lzma
    past = False
    try:
        decompressor = lzma.LZMADecompressor(format=lzma.FORMAT_RAW, filters=filters)
        if not exact or bound <= _CHUNK:           # a small body: at once
            raw: bytes | bytearray = decompressor.decompress(packed, max_length=bound + 1)
            past = len(raw) > bound
        else:
            raw, at, data = bytearray(bound), 0, packed
            while not decompressor.eof:
                chunk = decompressor.decompress(data, max_length=min(_CHUNK, bound + 1 - at))
                data = b""
                if len(chunk) > bound - at:
                    past = True
                    break
                raw[at:at + len(chunk)] = chunk
                at += len(chunk)
                if decompressor.needs_input:
                    break
            del raw[at:]
    except lzma.LZMAError as exc:
        raise ReplayFileError(say("the body at offset {offset} does not decompress ({exc})",
                                  offset=offset, exc=exc)) from None
    if past:
        raise ReplayFileError(say("the body at offset {offset} expands past {bound} bytes, more than its header "
                                  "allows", offset=offset, bound=bound))
    if not decompressor.eof:
        raise ReplayFileError(say("the body at offset {offset} is cut short", offset=offset))
    return raw


_CHUNK = 1 << 20


class _Reader:
    """Bytes read in chunks for msgpack's ``Unpacker`` without copying them whole (``io.BytesIO``
    copies a ``bytearray``, ``Unpacker.feed`` anything)."""

    def __init__(self, data: bytes | bytearray) -> None:
        self.view, self.at = memoryview(data), 0

    def read(self, size: int) -> bytes:
        chunk = bytes(self.view[self.at:self.at + size])
        self.at += len(chunk)
        return chunk


def _field(body: dict, name: str, kind: type, default: Any = None) -> Any:
    value = body.get(name, default)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ReplayFileError(say("body field {name!r} is missing or not a {kind}",
                                  name=name, kind=kind.__name__))
    return value


def _build(header: dict, body: Any, signer: PublicKey | None, valid: bool | None, expands: int) -> ReplayFile:
    if not isinstance(body, dict):
        raise ReplayFileError(say("the body is not a map"))
    raw_events = _field(body, "events", list)
    deltas = _field(body, "dt", list)
    if len(raw_events) != header["events"] or len(deltas) != len(raw_events):
        raise ReplayFileError(say("the header announces {events} events, the body holds {count} events and {count2} "
                                  "times", events=header['events'], count=len(raw_events), count2=len(deltas)))
    events = []
    for i, raw in enumerate(raw_events):
        try:
            events.append(from_dict(raw, f"event {i}"))
        except EventFormatError as exc:
            raise ReplayFileError(str(exc)) from None
        except (TypeError, ValueError, AttributeError, KeyError, OverflowError, RecursionError) as exc:
            raise ReplayFileError(say("event {i}: not an event ({kind}: {exc})",
                                      i=i, kind=type(exc).__name__, exc=exc)) from None
    t0 = _field(body, "t0", int)
    try:
        stamps, now = [], t0
        for d in deltas:
            if not isinstance(d, int) or isinstance(d, bool):
                raise TypeError
            now += d
            stamps.append(chainlib.from_ms(now))
    except (TypeError, ValueError, OverflowError, OSError):
        raise ReplayFileError(say("body field 'dt' holds a time that is not a number of milliseconds")) from None
    try:
        cards = CardDB(CardFacts.from_dict(_named(c)) for c in _field(body, "cards", list))
    except (CardDBError, TypeError, AttributeError) as exc:
        raise ReplayFileError(say("body field 'cards': {exc}", exc=exc)) from None
    missing = referenced_codes(events) - set(cards)
    if missing:
        raise ReplayFileError(say("body field 'cards' lacks the facts of passcode(s) {codes}",
                                  codes=sorted(missing)[:5]))
    if len(cards) != header.get("cards", len(cards)):
        raise ReplayFileError(say("the header announces {cards} cards, the body holds {count}",
                                  cards=header['cards'], count=len(cards)))
    if "effects" in body:                         # a file written before effect facts has none
        try:
            cards = cards.with_effects_record(body["effects"])
        except CardDBError as exc:
            raise ReplayFileError(say("body field 'effects': {exc}", exc=exc)) from None
    return ReplayFile(
        events=events, cards=cards, times=stamps, view=header["view"], ruleset=header["ruleset"],
        players=[str(p) for p in header.get("players", [])], match=dict(header.get("match", {})),
        created=str(header.get("created", "")), root=header["root"],
        disclosures=_rows(body, "disclosures", (int, str, int)),
        commitments=_rows(body, "commitments", (int, int, bytes)),
        renames=_rows(body, "renames", (int, list, list)),
        decklist=_decklist(body), commit_key=_field(body, "commit_key", bytes, b""),
        source=dict(header.get("source", {})), games=_games(body, expands),
        stored_prefixes=_field(body, "chain", bytes), stored_head=header["head"],
        signer=signer, signature_valid=valid, format=header["format"])


def _rows(body: dict, name: str, kinds: tuple[type, ...]) -> list[list]:
    """A list of fixed-shape rows (disclosures: [index, card id, passcode]; commitments: [index,
    player, digest]; renames: [index, old ids, new ids]), checked so that no reader trips over a
    malformed one later."""
    rows = _field(body, name, list, [])
    for i, row in enumerate(rows):
        if not (isinstance(row, list) and len(row) == len(kinds)
                and all(isinstance(v, k) and not isinstance(v, bool) for v, k in zip(row, kinds))):
            shape = ", ".join(k.__name__ for k in kinds)
            raise ReplayFileError(say("body field {name!r}: entry {i} is not [{shape}]",
                                      name=name, i=i, shape=shape))
        if name == "renames" and not (len(row[1]) == len(row[2]) and all(
                isinstance(c, str) for c in row[1] + row[2])):
            raise ReplayFileError(say("body field 'renames': entry {i} does not pair card ids", i=i))
    return rows


def _games(body: dict, expands: int) -> list[bytes]:
    """A match file's duels, each a whole ``.ygr`` file of its own (read and verified on demand).
    Together they expand to at most ``expands`` bytes, what the match file's own size allows one
    body: each duel file is bounded by its own size, and copies of one small duel file that
    expands to megabytes compress to nothing in the match's body (its header says how far each
    expands, read here without expanding anything)."""
    games = _field(body, "games", list, [])
    if not all(isinstance(g, bytes) and g.startswith(MAGIC) for g in games):
        raise ReplayFileError(say("body field 'games' is not a list of replay files"))
    total = 0
    for number, game in enumerate(games, 1):
        total += _game_expands(game)
        if total > expands:
            raise ReplayFileError(say("body field 'games': its first {number} duel files expand to {total:,} bytes, "
                                      "more than a match file of its size holds (at most {expands:,})",
                                      number=number, total=total, expands=expands))
    return games


def _game_expands(game: bytes) -> int:
    """What a match file's duel file says it expands to (its header's, read without expanding
    anything; 0 for one that is not a file: refused when it is read)."""
    try:
        header = read_header(game)[0]
    except ReplayFileError:
        return 0
    return header["size"] if header["format"] >= 3 else EXPANSION * len(game)


def _decklist(body: dict) -> dict[str, list[int]]:
    decklist = _field(body, "decklist", dict, {})
    if not (set(decklist) <= {"main", "extra", "side"} and all(
            isinstance(v, list) and all(isinstance(c, int) and not isinstance(c, bool) for c in v)
            for v in decklist.values())):
        raise ReplayFileError(say("body field 'decklist' is not {shape}", shape="{main, extra, side: [passcode, ...]}"))
    return decklist


def read(path: str | Path) -> ReplayFile:
    path = Path(path)
    data = read_limited(path, MAX_BODY + MAX_HEADER + 1024, "replay file", ReplayFileError)
    try:
        return loads(data)
    except ReplayFileError as exc:
        raise ReplayFileError(f"{path}: {exc}") from None


def verify_chain(replay: ReplayFile) -> int | None:
    """The position of the first event whose stored hash disagrees with its content, else None.

    -1 means every stored prefix matches but the header's head hash does not (the header or the
    last hash was altered).
    """
    prefixes = replay.stored_prefixes
    if prefixes is None:
        return None
    for i, h in enumerate(replay.chain):
        if prefixes[i * PREFIX:(i + 1) * PREFIX] != h[:PREFIX]:
            return i
    if len(prefixes) != PREFIX * len(replay.chain):
        return len(replay.chain)
    if replay.head != replay.stored_head:
        return -1
    return None


# Header upgrades from older format versions to the current one: version -> function.
_UPGRADES: dict[int, Any] = {}
