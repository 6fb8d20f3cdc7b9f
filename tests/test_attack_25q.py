"""Attack on the tenth pass of issue 25: every decoder bounded by what its header declares and by
sane limits, a hostile input refused saying what and where. A ``.ygr`` body expanded 64 times
its compressed size and built a value a compressed byte (16 MiB built 1.9 GB); a JSON request
body was parsed whole before it was counted; a deck list of two million cards was read."""
from __future__ import annotations

import json
import lzma
import os
import struct
import zlib
from pathlib import Path

import msgpack
import pytest

from test_attack_25o import refused_reading
from test_release import ORGANISER, auth, client, events_of, store  # noqa: F401  (the fixtures)
from ygoreplay import decks, events, replay_file
from ygoreplay.decks import DeckFormatError, read_ydk, read_ydke
from ygoreplay.events import from_dict
from ygoreplay.replay_file import ReplayFile, ReplayFileError, dumps, loads
from ygoreplay.service import common

REPLAYS = Path(__file__).resolve().parent.parent / "replays"
GOOD = loads((REPLAYS / "won-by-damage.judge.ygr").read_bytes())


def _ygr(raw: bytes, **header_changes) -> bytes:
    """A judge file whose body is ``raw`` (any msgpack), compressed as ``dumps`` does, its header
    declaring what is given."""
    data = dumps(GOOD)
    header = msgpack.unpackb(data[16:16 + struct.unpack_from("<I", data, 12)[0]])
    header.update(size=len(raw), dict=1 << 26, **header_changes)
    packed = lzma.compress(raw, format=lzma.FORMAT_RAW, filters=replay_file._filters(1 << 26, 6))
    head = msgpack.packb(header)
    return b"".join((replay_file.MAGIC, struct.pack("<HHI", 3, 0, len(head)), head,
                     struct.pack("<II", len(packed), zlib.crc32(packed)), packed))


def _map(*pairs: bytes) -> bytes:
    return bytes([0x80 | len(pairs) // 2]) + b"".join(pairs)


# -- .ygr: what a body may expand to and build ---------------------------------------------------------

def test_a_body_expanding_past_sixteen_times_its_size_is_refused_from_its_header():
    """Real files expand 2.7 to 6.6 times (a synthetic duel of 100,000 events 8.8): 300 KB of random
    bytes beside 5 MB of zeros (17 times) declared its size and was expanded, 64 times allowed."""
    raw = _map(msgpack.packb("pad"), msgpack.packb(os.urandom(300_000)),
               msgpack.packb("zeros"), msgpack.packb(bytes(5_000_000)))
    data = _ygr(raw)
    body = struct.unpack_from("<I", data, 16 + struct.unpack_from("<I", data, 12)[0])[0]
    with pytest.raises(ReplayFileError) as info:
        loads(data)
    message = str(info.value)
    assert "header field 'size' declares a body of" in message, message
    assert message.endswith(f"(limit {replay_file.EXPANSION * body})"), message
    for path in sorted(REPLAYS.rglob("*.ygr")):          # the committed files, match files' duels too
        replay = loads(path.read_bytes())
        for game in replay.games:
            loads(game)


def test_a_megabyte_bomb_builds_far_less_than_before():
    """1 MB: its events and cards held first (each an empty map, granting the most values), a
    random binary lifting the bounds tied to its compressed size, maps of one entry (the costliest
    value a budget unit buys) up to its value budget and zeros up to its expansion bound: 249 B a
    byte (262 MB) before; a fixed floor and 24 B a byte now."""
    pad = os.urandom(1 << 20)
    budget = replay_file.VALUES_FLOOR + int(replay_file.VALUES_PER_BYTE * len(pad)) - 600_000
    many = b"\xdd" + (100_000).to_bytes(4, "big")
    parts = [msgpack.packb("events"), many + b"\x80" * 100_000, msgpack.packb("dt"), many + b"\x00" * 100_000,
             msgpack.packb("cards"), many + b"\x80" * 100_000, msgpack.packb("pad"), msgpack.packb(pad)]
    count = budget // 3
    lists = [b"\xdc" + (60_000).to_bytes(2, "big") + b"\x81\x00\x00" * 60_000 for _ in range(count // 60_000)]
    parts += [msgpack.packb("junk"), b"\xdd" + len(lists).to_bytes(4, "big") + b"".join(lists)]
    bound = min(replay_file.MAX_EXPANDED, max(replay_file.EXPANSION_FLOOR, replay_file.EXPANSION * len(pad)))
    room = bound - sum(map(len, parts)) - 2_000
    parts += [msgpack.packb("zeros"), msgpack.packb(bytes(max(room, 0)))]
    data = _ygr(_map(*parts), events=100_000, cards=100_000)
    error, peak = refused_reading(data)
    assert "event 0" in str(error), str(error)
    assert peak < 160 << 20, f"{peak / 1e6:.0f} MB from a file of {len(data):,} bytes"


def test_a_body_is_counted_without_buffering_a_binary_whole():
    """The count before building skipped a binary of 40 MB whole, buffered beside the body: now
    it ends at a value past 1 MiB, and the lists after it grant nothing."""
    raw = _map(msgpack.packb("zeros"), msgpack.packb(bytes(40 << 20)),
               msgpack.packb("events"), b"\xdc" + (1000).to_bytes(2, "big") + b"\x80" * 1000)
    assert replay_file._prescan(raw) == (0, 0)
    first = _map(msgpack.packb("events"), b"\xdc" + (1000).to_bytes(2, "big") + b"\x80" * 1000,
                 msgpack.packb("zeros"), msgpack.packb(bytes(40 << 20)))
    assert replay_file._prescan(first) == (1000, 0)


def test_the_writer_keeps_a_body_no_reader_would_expand_within_what_readers_expand():
    """A duel of 80 identical notes of 60,000 characters (4.8 MB, compressing 1,000 times) was
    written as a file every reader refused (the store takes such a duel: nothing recorded may be
    lost on its way out); now the writer stores enough of its body as it is that it reads back."""
    note = from_dict({"kind": "judge_note", "judge": "j", "note": "x" * 60_000})
    duel = [*GOOD.events[:5], *[note] * 80]
    replay = ReplayFile(duel, GOOD.cards, [GOOD.times[0]] * len(duel), players=["a", "b"])
    data = dumps(replay)
    assert len(data) * replay_file.EXPANSION >= 80 * 60_000
    assert [e.to_dict() for e in loads(data).events] == [e.to_dict() for e in duel]


# -- HTTP request bodies -------------------------------------------------------------------------------

def _duel(client) -> dict:  # noqa: F811
    r = client.post("/duels", json={"title": "bodies"}, headers=ORGANISER)
    assert r.status_code == 201, r.text
    return r.json()


def test_a_json_body_of_more_values_than_any_request_needs_is_refused_before_it_is_parsed(client):  # noqa: F811
    """16 MiB of ``[],`` built 420 MB of lists in 8 s on the event loop before its 5.6 million
    "events" were counted: now the body's values are counted first (a 3 MB one here)."""
    duel = _duel(client)
    body = b"[" + b"[]," * common.MAX_JSON_VALUES + b"[]]"
    r = client.post(f"/duels/{duel['id']}/events?expected=0", content=body,
                    headers={**auth(duel["tokens"]["recorder"]), "Content-Type": "application/json"})
    assert r.status_code == 400, r.text
    assert "JSON values" in r.json()["error"] and f"at most {common.MAX_JSON_VALUES:,}" in r.json()["error"], r.text
    # a whole sample duel as one request is far within it
    sample = events_of("lost-by-deck-out.jsonl")
    r = client.post(f"/duels/{duel['id']}/events?expected=0", json=sample, headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text


def test_a_json_lines_body_of_millions_of_lines_is_refused_before_it_is_split(client):  # noqa: F811
    """A sample's first event after 2 Mi blank lines: split into 2 million strings, then appended."""
    duel = _duel(client)
    first = json.dumps(events_of("lost-by-deck-out.jsonl")[0]).encode()
    body = b"\n" * (2 * common.MAX_LINES) + first + b"\n"
    r = client.post(f"/duels/{duel['id']}/events?expected=0", content=body,
                    headers={**auth(duel["tokens"]["recorder"]), "Content-Type": "application/x-ndjson"})
    assert r.status_code == 400, r.text
    assert f"at most {common.MAX_LINES:,}" in r.json()["error"], r.text
    assert client.get(f"/duels/{duel['id']}/events", headers=ORGANISER).text == ""     # nothing written


# -- deck lists ------------------------------------------------------------------------------------------

def test_a_deck_list_of_more_cards_than_an_event_holds_is_refused_at_its_line(tmp_path):
    """4 MiB of passcodes was read as a Main Deck of 466,000 cards (3 s, 45 MB), which no
    deck_registered can hold: the line past ``MAX_LIST`` is named."""
    assert decks.MAX_LIST == events.MAX_LIST
    path = tmp_path / "huge.ydk"
    path.write_text("#main\n" + "46986414\n" * 400_000)
    with pytest.raises(DeckFormatError, match=f"line {decks.MAX_LIST + 2}: the main deck passes 1,000 cards"):
        read_ydk(path)
    assert len(read_ydk("#main\n" + "46986414\n" * decks.MAX_LIST).main) == decks.MAX_LIST     # as many as an event holds


def test_a_ydke_url_of_more_cards_than_an_event_holds_is_refused():
    import base64
    many = base64.b64encode(struct.pack("<I", 46986414) * (decks.MAX_LIST + 1)).decode()
    with pytest.raises(DeckFormatError, match="the main part holds 1,001 cards, more than a deck holds"):
        read_ydke(f"ydke://{many}!!!")
    fits = base64.b64encode(struct.pack("<I", 46986414) * decks.MAX_LIST).decode()
    assert len(read_ydke(f"ydke://{fits}!!!").main) == decks.MAX_LIST

