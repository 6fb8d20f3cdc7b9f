"""The ygoreplay replay file (``.ygr``): one duel, self-contained, compact, verifiable.

Layout (all integers little-endian)::

    offset 0   8 bytes  magic  b"\\x89YGR\\r\\n\\x1a\\n"  (binary, line-ending and EOF guards, as PNG)
           8   u16      format version
          10   u16      flags (reserved, 0)
          12   u32      header length H
          16   H bytes  header: msgpack map (rule set, players, match, created, view, counts, chain)
      16 + H   u32      body length B
      20 + H   u32      CRC-32 of the body
      24 + H   B bytes  body: LZMA (raw, LZMA2) compressed msgpack map

The header is readable without decompressing anything. The body holds the events (wire dicts, as
in JSON Lines), the recording times (milliseconds, as deltas), the facts of every card the events
mention (so the file opens with no card database), and the hash chain: each event's hash is
``sha256(previous hash + msgpack([position, event, recorded time]))`` starting from the header's
``root``; the body keeps the first 4 bytes of each hash (enough to locate a broken link) and the
header the full last hash, which authenticates the whole chain.

Every read error says what is wrong and where (byte offset or field) as ``ReplayFileError``.
Files of every earlier format version keep loading (``_UPGRADES``).
"""
from __future__ import annotations

import hashlib
import lzma
import struct
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import msgpack

from .cards import CardDB, CardDBError, CardFacts, unnamed
from .events import Event, EventFormatError, from_dict

MAGIC = b"\x89YGR\r\n\x1a\n"
FORMAT_VERSION = 2               # 2: a card whose name is unknown is stored without one
VIEWS = ("judge", "p0", "p1", "spectator")
PREFIX = 4                      # bytes of each event hash kept in the body
MAX_HEADER = 1 << 20            # 1 MiB: a header is a few hundred bytes
MAX_BODY = 256 << 20            # 256 MiB compressed
MAX_EXPANDED = 1 << 30          # 1 GiB once decompressed
_FILTERS = [{"id": lzma.FILTER_LZMA2, "preset": 9 | lzma.PRESET_EXTREME}]
_GENESIS = b"\x00" * 32
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MS = timedelta(milliseconds=1)


class ReplayFileError(ValueError):
    """A file that is not a readable replay: says what and where (byte offset or field)."""


@dataclass
class ReplayFile:
    """A duel as a file: header fields, events with their times, card facts, the chain."""

    events: list[Event]
    cards: CardDB
    times: list[str]                       # recording time of each event (ISO 8601, UTC)
    view: str = "judge"
    ruleset: str = "mr2020"
    players: list[str] = field(default_factory=list)
    match: dict[str, Any] = field(default_factory=dict)
    created: str = ""
    root: bytes = _GENESIS                 # the hash the chain starts from
    disclosures: list[list] = field(default_factory=list)   # views: [index, card id, code]
    commitments: list[list] = field(default_factory=list)   # views: [index, player, digest]
    commit_key: bytes = b""                # judge files: the key behind the views' commitments
    source: dict[str, Any] = field(default_factory=dict)
    chain: list[bytes] = field(default_factory=list)        # full hash of each event (computed)
    stored_prefixes: bytes | None = None   # as read from a file: the chain it claims
    stored_head: bytes | None = None

    def __post_init__(self) -> None:
        # Times are kept to the millisecond, in UTC: the form they take back out of a file, so the
        # chain computed here is the one a reader recomputes (the store's times already are).
        self.times = [_iso(_ms(t)) for t in self.times]
        if not self.chain:
            self.chain = chain_hashes(self.root, self.events, self.times)

    @property
    def head(self) -> bytes:
        return self.chain[-1] if self.chain else self.root


def chain_hashes(root: bytes, events: list[Event], times: list[str]) -> list[bytes]:
    """Each event's hash, chained from ``root`` (the same rule the store uses)."""
    out, prev = [], root
    for position, (event, when) in enumerate(zip(events, times)):
        prev = hashlib.sha256(prev + msgpack.packb([position, event.to_dict(), when])).digest()
        out.append(prev)
    return out


def _ms(iso: str) -> int:
    """Milliseconds since the epoch, exactly (no float rounding); a time without zone is UTC."""
    when = datetime.fromisoformat(iso)
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return (when - _EPOCH) // _MS


def _iso(ms: int) -> str:
    return (_EPOCH + ms * _MS).isoformat(timespec="milliseconds")


def referenced_codes(events: list[Event]) -> set[int]:
    """Every passcode the events mention: the card facts the file must carry."""
    codes: set[int] = set()
    for e in events:
        kind = e.kind
        if kind == "deck_registered":
            codes.update(e.main, e.extra, e.side)
        elif kind == "token_created":
            codes.add(e.code)
        elif kind == "position_set_up":
            for side in e.sides:
                for zone in side.values():
                    for item in zone if isinstance(zone, list) else [zone]:
                        codes.update(_spec_codes(item))
    codes.discard(0)
    return codes


def _spec_codes(item: Any) -> list[int]:
    if isinstance(item, int) and not isinstance(item, bool):
        return [item]
    if isinstance(item, dict):
        materials = item.get("materials", [])
        return _spec_codes(item.get("code", 0)) + [
            c for m in (materials if isinstance(materials, list) else []) for c in _spec_codes(m)]
    return []


# -- writing ----------------------------------------------------------------------------------------

def dumps(replay: ReplayFile) -> bytes:
    """The file's bytes."""
    if replay.view not in VIEWS:
        raise ValueError(f"unknown view {replay.view!r}")
    stamps = [_ms(t) for t in replay.times]
    deltas = [b - a for a, b in zip([stamps[0] if stamps else 0] + stamps, stamps)]
    body = {
        "events": [e.to_dict() for e in replay.events],
        "t0": stamps[0] if stamps else 0,
        "dt": deltas,
        "cards": [_drop_placeholder_name(c) for c in replay.cards.to_json_list()],
        "chain": b"".join(h[:PREFIX] for h in replay.chain),
    }
    if replay.disclosures:
        body["disclosures"] = replay.disclosures
    if replay.commitments:
        body["commitments"] = replay.commitments
    if replay.commit_key:
        body["commit_key"] = replay.commit_key
    packed = lzma.compress(msgpack.packb(body), format=lzma.FORMAT_RAW, filters=_FILTERS)
    header = msgpack.packb({
        "format": FORMAT_VERSION, "view": replay.view, "ruleset": replay.ruleset,
        "players": replay.players, "match": replay.match, "created": replay.created,
        "events": len(replay.events), "cards": len(replay.cards), "root": replay.root,
        "head": replay.head, "source": replay.source})
    return b"".join((MAGIC, struct.pack("<HHI", FORMAT_VERSION, 0, len(header)), header,
                     struct.pack("<II", len(packed), zlib.crc32(packed)), packed))


def write(path: str | Path, replay: ReplayFile) -> int:
    data = dumps(replay)
    Path(path).write_bytes(data)
    return len(data)


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
        raise ReplayFileError(f"truncated: {len(data)} bytes, a replay file has at least 24")
    if data[:8] != MAGIC:
        raise ReplayFileError("not a ygoreplay file: bad magic bytes at offset 0")
    version, _flags, header_len = struct.unpack_from("<HHI", data, 8)
    if version > FORMAT_VERSION:
        raise ReplayFileError(f"format version {version} at offset 8 is newer than this program "
                              f"reads ({FORMAT_VERSION}); upgrade ygoreplay")
    if version == 0:
        raise ReplayFileError("format version 0 at offset 8 does not exist")
    if header_len > MAX_HEADER:
        raise ReplayFileError(f"header length {header_len} at offset 12 is absurd (limit {MAX_HEADER})")
    end = 16 + header_len
    if len(data) < end + 8:
        raise ReplayFileError(f"truncated: the header needs bytes 16..{end + 8}, the file has {len(data)}")
    header = _unpack(data[16:end], "header at offset 16")
    if not isinstance(header, dict):
        raise ReplayFileError("header at offset 16 is not a map")
    header = _UPGRADES.get(version, lambda h: h)(header)
    for key, kind in (("view", str), ("ruleset", str), ("events", int), ("root", bytes), ("head", bytes)):
        if not isinstance(header.get(key), kind):
            raise ReplayFileError(f"header field {key!r} is missing or not a {kind.__name__}")
    for key, kind in (("players", list), ("match", dict), ("created", str), ("source", dict)):
        if key in header and not isinstance(header[key], kind):
            raise ReplayFileError(f"header field {key!r} is not a {kind.__name__}")
    if header["view"] not in VIEWS:
        raise ReplayFileError(f"header field 'view' is {header['view']!r}, not one of {', '.join(VIEWS)}")
    return header, end


def loads(data: bytes) -> ReplayFile:
    """Read a replay file's bytes; ReplayFileError (what and where) for anything malformed."""
    return _build(*_read(data))


def decode_body(data: bytes) -> dict:
    """The decoded body map of a replay file's bytes (events, t0, dt, cards, chain, ...), unchecked
    beyond being a map: what the JSON Schema ``replay_file/body.json`` describes."""
    _header, body = _read(data)
    if not isinstance(body, dict):
        raise ReplayFileError("the body is not a map")
    return body


def _read(data: bytes) -> tuple[dict, Any]:
    """The header map and the decoded (not yet checked) body."""
    header, at = read_header(data)
    body_len, crc = struct.unpack_from("<II", data, at)
    start = at + 8
    if body_len > MAX_BODY:
        raise ReplayFileError(f"body length {body_len} at offset {at} is absurd (limit {MAX_BODY})")
    if len(data) < start + body_len:
        raise ReplayFileError(f"truncated: the body needs bytes {start}..{start + body_len}, the file has {len(data)}")
    if len(data) > start + body_len:
        raise ReplayFileError(f"{len(data) - start - body_len} unexpected bytes after the body at offset {start + body_len}")
    packed = data[start:start + body_len]
    if zlib.crc32(packed) != crc:
        raise ReplayFileError(f"the body (offset {start}, {body_len} bytes) is corrupted: CRC-32 mismatch")
    try:
        decompressor = lzma.LZMADecompressor(format=lzma.FORMAT_RAW, filters=_FILTERS)
        raw = decompressor.decompress(packed, max_length=MAX_EXPANDED)
    except lzma.LZMAError as exc:
        raise ReplayFileError(f"the body at offset {start} does not decompress ({exc})") from None
    if not decompressor.eof:
        problem = "is cut short" if decompressor.needs_input else f"expands past {MAX_EXPANDED} bytes"
        raise ReplayFileError(f"the body at offset {start} {problem}")
    return header, _unpack(raw, f"body at offset {start}")


def _unpack(raw: bytes, where: str) -> Any:
    try:
        return msgpack.unpackb(raw, strict_map_key=False, max_bin_len=MAX_EXPANDED)
    except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, ValueError, TypeError) as exc:
        raise ReplayFileError(f"{where} is not valid msgpack ({exc})") from None


def _field(body: dict, name: str, kind: type, default: Any = None) -> Any:
    value = body.get(name, default)
    if not isinstance(value, kind):
        raise ReplayFileError(f"body field {name!r} is missing or not a {kind.__name__}")
    return value


def _build(header: dict, body: Any) -> ReplayFile:
    if not isinstance(body, dict):
        raise ReplayFileError("the body is not a map")
    raw_events = _field(body, "events", list)
    deltas = _field(body, "dt", list)
    if len(raw_events) != header["events"] or len(deltas) != len(raw_events):
        raise ReplayFileError(f"the header announces {header['events']} events, the body holds "
                              f"{len(raw_events)} events and {len(deltas)} times")
    events = []
    for i, raw in enumerate(raw_events):
        try:
            events.append(from_dict(raw, f"event {i}"))
        except EventFormatError as exc:
            raise ReplayFileError(str(exc)) from None
        except (TypeError, ValueError, AttributeError, KeyError, OverflowError, RecursionError) as exc:
            raise ReplayFileError(f"event {i}: not an event ({type(exc).__name__}: {exc})") from None
    t0 = _field(body, "t0", int)
    try:
        stamps, now = [], t0
        for d in deltas:
            now += d
            stamps.append(_iso(now))
    except (TypeError, ValueError, OverflowError, OSError):
        raise ReplayFileError("body field 'dt' holds a time that is not a number of milliseconds") from None
    try:
        cards = CardDB(CardFacts.from_dict(_named(c)) for c in _field(body, "cards", list))
    except (CardDBError, TypeError, AttributeError) as exc:
        raise ReplayFileError(f"body field 'cards': {exc}") from None
    disclosures = _rows(body, "disclosures", (int, str, int))
    commitments = _rows(body, "commitments", (int, int, bytes))
    missing = referenced_codes(events) - set(cards)
    if missing:
        raise ReplayFileError(f"body field 'cards' lacks the facts of passcode(s) {sorted(missing)[:5]}")
    replay = ReplayFile(
        events=events, cards=cards, times=stamps, view=header["view"], ruleset=header["ruleset"],
        players=list(header.get("players", [])), match=dict(header.get("match", {})),
        created=str(header.get("created", "")), root=header["root"],
        disclosures=disclosures, commitments=commitments,
        commit_key=_field(body, "commit_key", bytes, b""), source=dict(header.get("source", {})),
        stored_prefixes=_field(body, "chain", bytes), stored_head=header["head"])
    return replay


def _rows(body: dict, name: str, kinds: tuple[type, ...]) -> list[list]:
    """A list of fixed-shape rows (disclosures: [index, card id, passcode]; commitments: [index,
    player, digest]), checked so that no reader trips over a malformed one later."""
    rows = _field(body, name, list, [])
    for i, row in enumerate(rows):
        if not (isinstance(row, list) and len(row) == len(kinds)
                and all(isinstance(v, k) and not isinstance(v, bool) for v, k in zip(row, kinds))):
            shape = ", ".join(k.__name__ for k in kinds)
            raise ReplayFileError(f"body field {name!r}: entry {i} is not [{shape}]")
    return rows


def read(path: str | Path) -> ReplayFile:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ReplayFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
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
