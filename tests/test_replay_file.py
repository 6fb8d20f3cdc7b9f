"""The replay file (``.ygr``): round trips, self-containment, the schema, the frozen version-1
fixture, every kind of bad input (a ``ReplayFileError`` that names what and where; exit code 2 and
no traceback from the CLI), fuzzing over mutated files, and the CLI that studies replay files.

Fuzzing (hypothesis, three tests, well under 40 s together): 1500 whole files mutated by bit
flips, byte insertions/deletions/overwrites, truncations and splices of two valid files; 800
decompressed msgpack bodies mutated byte-wise, then recompressed with a fixed CRC so the parsing
behind the CRC is reached; 800 decoded header/body maps with a value replaced by an arbitrary
msgpack value. 3100 runs in all; each test prints its count and outcomes on the terminal
(``fuzz: ...`` lines) and records them as junit properties. ``loads`` raised nothing but
``ReplayFileError`` in any of them.
"""
from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import json
import lzma
import re
import struct
import zlib
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

import msgpack
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from ygoreplay import cards as cards_module
from ygoreplay.cards import CardDB
from ygoreplay.cli import main
from ygoreplay.errors import InputError
from ygoreplay.signing import OrganiserKey
from ygoreplay.application import Records
from ygoreplay.chain import from_ms as _iso, to_ms as _ms
from ygoreplay.exchange import make_replay, verify_against
from ygoreplay.jsonl import read_events
from ygoreplay.replay_file import (
    FORMAT_VERSION, MAGIC, VIEWS, ReplayFile, ReplayFileError, decode_body, dumps, loads, read,
    read_header, referenced_codes, verify_chain, write)
from ygoreplay.rules import History, audit
from ygoreplay.schema import all_schemas, json_form
from ygoreplay.store import Store
from ygoreplay.views import ViewReplay, public_board

ROOT = Path(__file__).resolve().parent.parent
REPLAYS = ROOT / "replays"
SAMPLES = sorted(p.stem for p in REPLAYS.glob("*.jsonl") if ".public" not in p.name)   # full records
FIXTURES = ROOT / "tests" / "fixtures" / "v1"
CARDS = CardDB.classic()
RECORD_ROOT = hashlib.sha256(b"ygoreplay test record").digest()
SECRET = hashlib.sha256(b"ygoreplay test secret").digest()
MATCH = {"duel": "0123456789ab", "title": "a test duel"}
CREATED = "2024-05-01T11:59:00.000+00:00"
START = datetime(2024, 5, 1, 12, 0, tzinfo=timezone.utc)
FAST = [{"id": lzma.FILTER_LZMA2, "preset": 0}]     # the reader takes any LZMA2 stream


def stamps(count: int) -> list[str]:
    """Uneven recording times, to the millisecond (some of them ones float arithmetic gets wrong)."""
    return [(START + timedelta(milliseconds=1234 * i + i % 7)).isoformat(timespec="milliseconds")
            for i in range(count)]


@functools.cache
def events_of(sample: str) -> tuple:
    return tuple(read_events(REPLAYS / f"{sample}.jsonl"))


def replay_of(sample: str, view: str):
    events = list(events_of(sample))
    return make_replay(events, stamps(len(events)), CARDS, view, RECORD_ROOT, SECRET, dict(MATCH),
                       {"tool": "tests"}, CREATED)


@functools.cache
def file_of(sample: str, view: str = "judge") -> bytes:
    return dumps(replay_of(sample, view))


def dicts(events) -> list[dict]:
    return [e.to_dict() for e in events]


def run(*args, input: str | None = None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


# -- building files by hand -------------------------------------------------------------------------

def parts(data: bytes) -> tuple[dict, dict]:
    """The header map and the decoded body map of a valid file."""
    return read_header(data)[0], decode_body(data)


def assemble(header: dict | bytes, body: dict | bytes, *, version: int = FORMAT_VERSION,
             raw_body: bool = False, packed: bytes | None = None, crc: int | None = None,
             header_len: int | None = None, body_len: int | None = None) -> bytes:
    """A file from its parts: ``body`` a map (packed and compressed here) or msgpack bytes
    (``raw_body``); ``packed`` the compressed body as is. Lengths and CRC right unless given."""
    if packed is None:
        raw = body if raw_body else msgpack.packb(body)
        packed = lzma.compress(raw, format=lzma.FORMAT_RAW, filters=FAST)
        if isinstance(header, dict) and version >= 3 and "size" in header:
            header = {**header, "size": len(raw)}          # the size it declares is the body's own
    head = header if isinstance(header, bytes) else msgpack.packb(header)
    return b"".join((MAGIC, struct.pack("<HHI", version, 0, len(head) if header_len is None else header_len),
                     head, struct.pack("<II", len(packed) if body_len is None else body_len,
                                       zlib.crc32(packed) if crc is None else crc), packed))


def layout(data: bytes) -> tuple[int, int]:
    """(header length H, body length B) of a valid file: the body starts at 24 + H."""
    header_len = struct.unpack_from("<I", data, 12)[0]
    return header_len, struct.unpack_from("<I", data, 16 + header_len)[0]


# -- round trips --------------------------------------------------------------------------------------

@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("sample", SAMPLES)
def test_round_trip_keeps_events_times_cards_and_header(sample, view):
    original = replay_of(sample, view)
    data = dumps(original)
    back = loads(data)
    assert dicts(back.events) == dicts(original.events)
    assert back.times == original.times == stamps(len(events_of(sample)))
    assert back.cards.to_json_list() == original.cards.to_json_list()
    assert (back.view, back.ruleset, back.players, back.match, back.created, back.root, back.source) == \
        (view, original.ruleset, original.players, MATCH, CREATED, original.root, {"tool": "tests"})
    assert back.players == original.players == ["Yugi", "Kaiba"]
    assert back.disclosures == original.disclosures and back.commitments == original.commitments
    assert back.commit_key == original.commit_key
    assert back.chain == original.chain and verify_chain(back) is None
    header, _ = read_header(data)
    assert header["format"] == FORMAT_VERSION and header["events"] == len(original.events)
    assert header["cards"] == len(original.cards) and header["head"] == original.head
    assert dumps(back) == data, "a file read and written again is the same bytes"


def test_a_written_file_is_laid_out_as_documented():
    data = file_of("won-by-damage")
    assert data[:8] == b"\x89YGR\r\n\x1a\n"
    version, flags, header_len = struct.unpack_from("<HHI", data, 8)
    assert (version, flags) == (FORMAT_VERSION, 0)
    assert msgpack.unpackb(data[16:16 + header_len])["view"] == "judge"
    body_len, crc = struct.unpack_from("<II", data, 16 + header_len)
    packed = data[24 + header_len:]
    assert len(packed) == body_len and zlib.crc32(packed) == crc
    raw = lzma.decompress(packed, format=lzma.FORMAT_RAW,
                          filters=[{"id": lzma.FILTER_LZMA2, "dict_size": 64 << 20}])
    assert msgpack.unpackb(raw) == decode_body(data)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=-62135596800000, max_value=253402300799999))
def test_times_survive_to_the_millisecond(ms):
    assert _ms(_iso(ms)) == ms


def test_times_float_arithmetic_got_wrong_still_verify():
    """Regression: 2004-03-15T07:55:47.472 came back as .471 (float truncation), breaking the chain."""
    events = list(events_of("won-by-damage"))[:4]
    times = ["2004-03-15T07:55:47.472+00:00", "2038-08-15T15:00:50.430+00:00",
             "2039-03-08T19:46:13.411+00:00", "1987-02-24T12:51:47.341+00:00"]
    back = loads(dumps(make_replay(events, times, CARDS, "judge", RECORD_ROOT, SECRET)))
    assert back.times == times and verify_chain(back) is None


def test_times_in_other_forms_are_kept_as_utc_milliseconds():
    events = list(events_of("won-by-damage"))[:3]
    times = ["2024-05-01T14:00:00.123456+02:00", "2024-05-01T12:00:01", "2024-05-01T12:00:02.5+00:00"]
    replay = make_replay(events, times, CARDS, "judge", RECORD_ROOT, SECRET)
    back = loads(dumps(replay))
    assert back.times == ["2024-05-01T12:00:00.123+00:00", "2024-05-01T12:00:01.000+00:00",
                          "2024-05-01T12:00:02.500+00:00"]
    assert verify_chain(back) is None


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("sample", SAMPLES)
def test_self_contained_loads_and_replays_with_no_card_database(sample, view, monkeypatch):
    data = file_of(sample, view)

    def no_database(*args, **kwargs):
        raise AssertionError("the card database was consulted")
    monkeypatch.setattr(CardDB, "classic", classmethod(no_database))
    monkeypatch.setattr(cards_module, "_classic", no_database)
    monkeypatch.setattr(CardDB, "from_cdb", classmethod(no_database))
    replay = loads(data)
    codes = set(replay.cards)
    assert referenced_codes(replay.events) <= codes
    assert {code for _, _, code in replay.disclosures} <= codes
    for code in codes:
        assert replay.cards[code] == CARDS[code]
    if view == "judge":
        assert codes == referenced_codes(replay.events)
        report = audit(replay.events, replay.cards)
        assert report.legal and report.state.ended
    else:
        last = None
        for state in ViewReplay(replay.events, replay.cards, replay.disclosures).states():
            last = public_board(state, view)
        assert last is not None and last[-2]            # the view reaches the end of the duel


# -- schema -----------------------------------------------------------------------------------------

SCHEMAS = all_schemas()
HEADER_SCHEMA = Draft202012Validator(SCHEMAS["replay_file/header.json"])
BODY_SCHEMA = Draft202012Validator(SCHEMAS["replay_file/body.json"])


def schema_errors(validator: Draft202012Validator, value: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
            for e in validator.iter_errors(json_form(value))]


def test_the_committed_replay_file_schemas_are_the_generated_ones():
    for name in ("replay_file/header.json", "replay_file/body.json"):
        Draft202012Validator.check_schema(SCHEMAS[name])
        committed = json.loads((ROOT / "schemas" / name).read_text(encoding="utf-8"))
        assert committed == SCHEMAS[name], "run `python -m ygoreplay.schema`"


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("sample", SAMPLES)
def test_written_header_and_body_validate_against_the_schema(sample, view):
    header, body = parts(file_of(sample, view))
    assert schema_errors(HEADER_SCHEMA, header) == []
    assert schema_errors(BODY_SCHEMA, body) == []


def test_the_schema_refuses_what_the_reader_refuses():
    header, body = parts(file_of("won-by-damage", "spectator"))
    assert schema_errors(HEADER_SCHEMA, {**header, "view": "referee"})
    assert schema_errors(HEADER_SCHEMA, {**header, "root": b"short"})
    assert schema_errors(HEADER_SCHEMA, {k: v for k, v in header.items() if k != "head"})
    assert schema_errors(BODY_SCHEMA, {**body, "events": [{"kind": "summon_everything"}]})
    assert schema_errors(BODY_SCHEMA, {**body, "cards": [{"code": 1, "name": "x", "type": 1, "level": 999}]})
    assert schema_errors(BODY_SCHEMA, {**body, "disclosures": [[0, "p0.m0"]]})
    assert schema_errors(BODY_SCHEMA, {**body, "commitments": [[0, 2, b"\0" * 32]]})
    assert schema_errors(BODY_SCHEMA, {k: v for k, v in body.items() if k != "dt"})
    assert json_form({"k": (b"\x00\x01",)}) == {"k": [base64.b64encode(b"\x00\x01").decode()]}


# -- the frozen version-1 fixture -------------------------------------------------------------------

#: The fixture bytes, frozen: a script of 2024 wrote them once; nothing rewrites them.
FROZEN = {
    "won-by-damage.judge.ygr": "4c2fc26d9303971ed53ad3e85d0ef85d21edb95b06e874f2b2c0d7035e31f9fa",
    "won-by-damage.spectator.ygr": "dd6f17ea23b1dc40b5d89f8c4cf638e3d02fd987a092ece4d7bed7b74fc49de6",
}
V1_ROOT = hashlib.sha256(b"ygoreplay format version 1 fixture").digest()


def v1(name: str) -> bytes:
    return (FIXTURES / f"won-by-damage.{name}").read_bytes()


def test_v1_fixture_bytes_are_frozen():
    for name, digest in FROZEN.items():
        assert hashlib.sha256((FIXTURES / name).read_bytes()).hexdigest() == digest, (
            f"{name} changed: the version-1 fixture is frozen; never regenerate it, add a new one")


@pytest.mark.parametrize("view", ["judge", "spectator"])
def test_v1_fixture_loads_forever(view):
    data = v1(f"{view}.ygr")
    assert data[:8] == MAGIC and struct.unpack_from("<H", data, 8)[0] == 1
    replay = read(FIXTURES / f"won-by-damage.{view}.ygr")
    header, _ = read_header(data)
    assert header["format"] == 1
    assert (replay.view, replay.ruleset, replay.players, replay.created) == \
        (view, "mr2020", ["Yugi", "Kaiba"], "2024-05-01T11:59:30.000+00:00")
    assert replay.match == {"duel": "v1fixture000", "title": "Won by damage (format version 1 fixture)"}
    expected = read_events(FIXTURES / "won-by-damage.jsonl")          # the frozen copy, upcast alike
    assert len(replay.events) == len(expected) == 89
    assert replay.times[0] == "2024-05-01T12:00:00.000+00:00"
    assert replay.times[-1] == "2024-05-01T12:02:12.004+00:00"
    assert verify_chain(replay) is None, "the hash chain of an old file must still verify"
    assert replay.root == (V1_ROOT if view == "judge" else hashlib.sha256(V1_ROOT + view.encode()).digest())
    if view == "judge":
        assert dicts(replay.events) == dicts(expected)
        assert replay.commit_key and not replay.disclosures
        report = audit(replay.events, replay.cards)
        assert report.legal and report.state.winner == 0 and report.state.end_reason == "lp"
        assert [s.lp for s in report.state.sides] == [8000, 0]
    else:
        assert replay.disclosures and replay.commitments
        assert all(set(e.main) == {0} for e in replay.events if e.kind == "deck_registered")
        boards = [public_board(s, "spectator")
                  for s in ViewReplay(replay.events, replay.cards, replay.disclosures).states()]
        judge = read(FIXTURES / "won-by-damage.judge.ygr")
        history = History(judge.cards, audit=True)
        for index, event in enumerate(judge.events):
            history.append(event)
            assert public_board(history.state, "spectator") == boards[index], f"event {index}"


def test_v1_fixture_spectator_verifies_against_its_judge_record():
    """A format 1 view (another redaction) is proven by its commitments and its public board at
    every event; nothing signed it, so verify says so and exits 1."""
    spectator, judge = loads(v1("spectator.ygr")), loads(v1("judge.ygr"))
    assert verify_against(spectator, judge) == []
    result = run("verify", FIXTURES / "won-by-damage.spectator.ygr",
                 "--against", FIXTURES / "won-by-damage.judge.ygr")
    assert result.exit_code == 1 and "NOT signed" in result.output
    assert "the view" not in result.output and "broken" not in result.output


V2 = FIXTURES.parent / "v2"


@pytest.mark.parametrize("view", ["judge", "spectator"])
def test_format_2_files_load_and_their_views_verify(view):
    """The samples as format 2 wrote them (the last format before signatures, renamed cards and
    keyed commitments): they load, their chains hold, the view is proven against its record by
    its commitments and its public board at every event, and an edit is still caught."""
    replay = read(V2 / f"won-by-damage.{view}.ygr")
    assert replay.format == 2 and verify_chain(replay) is None and replay.signer is None
    assert dicts(read(V2 / "won-by-damage.judge.ygr").events) == dicts(read_events(V2 / "won-by-damage.jsonl"))
    judge = read(V2 / "won-by-damage.judge.ygr")
    assert verify_against(replay, judge) == []
    if view == "spectator":
        lp = next(i for i, e in enumerate(judge.events) if e.kind == "life_points_changed")
        events = list(judge.events)
        events[lp] = dataclasses.replace(events[lp], amount=events[lp].amount + 100)
        forged = dataclasses.replace(judge, events=events, chain=[])
        assert f"the view's public board differs from the record's from event {lp}" in verify_against(replay, forged)


# -- store round trip ---------------------------------------------------------------------------------

def test_export_import_export_keeps_the_chain_root_secret_and_times(tmp_path):
    """A judge file carries the store's own chain; imported elsewhere it keeps its root, secret and
    times, so it exports to the same chain again and views handed out earlier still verify."""
    events = list(events_of("won-by-damage"))
    with Store(str(tmp_path / "first.sqlite")) as first:
        duel = first.create_duel("won by damage")
        first.append(duel, events)
        records = first.records(duel)
        exported = Records(first).export(duel)
        spectator = Records(first).export(duel, "spectator")
        header = first.header(duel)
    data = dumps(exported, OrganiserKey.load())
    back = loads(data)
    assert verify_chain(back) is None and back.signature_valid
    assert back.root == header.root and back.head == records[-1].hash, "the file carries the store's own chain"
    assert back.commit_key == header.secret and back.times == [r.recorded for r in records]
    with Store(str(tmp_path / "second.sqlite")) as second:
        copy = Records(second).import_replay(back, None, [OrganiserKey.load().public]).id
        again = Records(second).export(copy)
        assert second.verify(copy).ok
    assert dicts(again.events) == dicts(back.events) == dicts(events)
    assert again.times == back.times and again.chain == back.chain and again.root == back.root
    assert again.cards.to_json_list() == back.cards.to_json_list()
    assert verify_chain(loads(dumps(again))) is None
    assert verify_against(loads(dumps(spectator)), loads(dumps(again))) == []


def test_import_refuses_a_view(tmp_path):
    with Store(str(tmp_path / "s.sqlite")) as store:
        with pytest.raises(InputError, match="spectator view lacks hidden information"):
            Records(store).import_replay(loads(file_of("won-by-damage", "spectator")), "x", [])


# -- bad input: what and where --------------------------------------------------------------------------

GOOD = file_of("won-by-damage")
H, B = layout(GOOD)
BODY_AT = 24 + H
GOOD_HEADER, GOOD_BODY = parts(GOOD)


def _with_header(**changes) -> bytes:
    header = {k: v for k, v in GOOD_HEADER.items() if k not in changes}
    header.update({k: v for k, v in changes.items() if v is not _DROP})
    return assemble(header, GOOD_BODY)


def _with_body(**changes) -> bytes:
    body = {k: v for k, v in GOOD_BODY.items() if k not in changes}
    body.update({k: v for k, v in changes.items() if v is not _DROP})
    return assemble(GOOD_HEADER, body)


def _with_event(index: int, change: Callable[[dict], Any]) -> bytes:
    events = [dict(e) for e in GOOD_BODY["events"]]
    events[index] = change(events[index])
    return _with_body(events=events)


_DROP = object()
_PACKED = lzma.compress(msgpack.packb(GOOD_BODY), format=lzma.FORMAT_RAW, filters=FAST)

#: (name, bytes, the message: what and where)
BAD: list[tuple[str, bytes, str]] = [
    ("empty file", b"", r"truncated: 0 bytes"),
    ("random garbage", bytes(range(7, 250)) * 3, r"not a ygoreplay file: bad magic bytes at offset 0"),
    ("JSON Lines text", b'{"kind": "duel_started", "first_player": 0}\n', r"bad magic bytes at offset 0"),
    ("a zip file", b"PK\x03\x04" + GOOD[4:], r"bad magic bytes at offset 0"),
    ("bad magic", b"\x89YGR\n\r\x1a\n" + GOOD[8:], r"bad magic bytes at offset 0"),
    ("future format version", GOOD[:8] + struct.pack("<H", FORMAT_VERSION + 1) + GOOD[10:],
     rf"format version {FORMAT_VERSION + 1} at offset 8 is newer than this program reads"),
    ("format version 0", GOOD[:8] + b"\0\0" + GOOD[10:], r"format version 0 at offset 8 does not exist"),
    ("absurd header length", GOOD[:12] + struct.pack("<I", 0xFFFFFFFF) + GOOD[16:],
     r"header length 4294967295 at offset 12 is absurd"),
    ("header longer than the file", GOOD[:12] + struct.pack("<I", 200_000) + GOOD[16:],
     r"truncated: the header needs bytes 16\.\.200024, the file has \d+"),
    ("absurd body length", GOOD[:16 + H] + struct.pack("<I", 0xFFFFFFF0) + GOOD[20 + H:],
     rf"body length 4294967280 at offset {16 + H} is absurd"),
    ("body longer than the file", GOOD[:16 + H] + struct.pack("<I", B + 1) + GOOD[20 + H:],
     rf"truncated: the body needs bytes {BODY_AT}\.\.{BODY_AT + B + 1}, the file has {len(GOOD)}"),
    ("trailing bytes", GOOD + b"\0\0\0", rf"3 unexpected bytes after the body at offset {len(GOOD)}"),
    ("CRC mismatch (body byte flipped)", GOOD[:BODY_AT + 9] + bytes([GOOD[BODY_AT + 9] ^ 0x40]) + GOOD[BODY_AT + 10:],
     rf"the body \(offset {BODY_AT}, {B} bytes\) is corrupted: CRC-32 mismatch"),
    ("CRC mismatch (CRC field altered)", GOOD[:20 + H] + b"\0\0\0\0" + GOOD[24 + H:],
     rf"the body \(offset {BODY_AT}, {B} bytes\) is corrupted: CRC-32 mismatch"),
    ("header not msgpack", GOOD[:16] + b"\xc1" * H + GOOD[16 + H:], r"header at offset 16 is not valid msgpack"),
    ("header cut inside its msgpack", assemble(msgpack.packb(GOOD_HEADER)[:-5], GOOD_BODY),
     r"header at offset 16 is not valid msgpack"),
    ("header not a map", assemble([1, 2, 3], GOOD_BODY), r"header at offset 16 is not a map"),
    ("header without a view", _with_header(view=_DROP), r"header field 'view' is missing or not a str"),
    ("header without a root", _with_header(root=_DROP), r"header field 'root' is missing or not a bytes"),
    ("header with a text event count", _with_header(events="97"), r"header field 'events' is missing or not a int"),
    ("header with an unknown view", _with_header(view="referee"),
     r"header field 'view' is 'referee', not one of judge, p0, p1, spectator"),
    ("header players not a list", _with_header(players=5), r"header field 'players' is not a list"),
    ("header match not a map", _with_header(match=[1]), r"header field 'match' is not a dict"),
    ("body not LZMA", assemble(GOOD_HEADER, b"", packed=b"\xff" * 64),
     rf"the body at offset {BODY_AT} does not decompress"),
    ("body LZMA stream cut short", assemble(GOOD_HEADER, b"", packed=_PACKED[:len(_PACKED) // 2]),
     rf"the body at offset {BODY_AT} (is cut short|does not decompress)"),
    ("body not msgpack", assemble(GOOD_HEADER, b"\xc1\xc1", raw_body=True), r"body at offset \d+ is not valid msgpack"),
    ("body with trailing msgpack", assemble(GOOD_HEADER, msgpack.packb(GOOD_BODY) + b"\x00", raw_body=True),
     r"body at offset \d+ is not valid msgpack"),
    ("body not a map", assemble(GOOD_HEADER, [1, 2]), r"the body is not a map"),
    ("body without events", _with_body(events=_DROP), r"body field 'events' is missing or not a list"),
    ("body without times", _with_body(dt=_DROP), r"body field 'dt' is missing or not a list"),
    ("body without t0", _with_body(t0=_DROP), r"body field 't0' is missing or not a int"),
    ("body without cards", _with_body(cards=_DROP), r"body field 'cards' is missing or not a list"),
    ("body without chain", _with_body(chain=_DROP), r"body field 'chain' is missing or not a bytes"),
    ("fewer events than announced", _with_body(events=GOOD_BODY["events"][:-1]),
     r"the header announces 89 events, the body holds 88 events and 89 times"),
    ("an unknown event kind", _with_event(5, lambda e: {**e, "kind": "summon_everything"}),
     r"event 5: unknown event kind 'summon_everything'"),
    ("an event that is not a map", _with_event(6, lambda e: 7), r"event 6"),
    ("an event with a number as key", _with_event(7, lambda e: {**e, 1: 2}), r"event 7"),
    ("an event field of the wrong type", _with_event(3, lambda e: {**e, "count": "five"}), r"event 3: cards_drawn"),
    ("an event without its kind", _with_event(8, lambda e: {k: v for k, v in e.items() if k != "kind"}), r"event 8"),
    ("a time that is not a number", _with_body(dt=GOOD_BODY["dt"][:2] + ["x"] + GOOD_BODY["dt"][3:]),
     r"body field 'dt' holds a time that is not a number of milliseconds"),
    ("a time past the year 9999", _with_body(t0=2 ** 62), r"body field 'dt' holds a time"),
    ("card facts missing", _with_body(cards=GOOD_BODY["cards"][1:]),
     rf"body field 'cards' lacks the facts of passcode\(s\) \[{GOOD_BODY['cards'][0]['code']}\]"),
    ("card facts impossible", _with_body(cards=[{**GOOD_BODY["cards"][0], "level": 999}] + GOOD_BODY["cards"][1:]),
     r"body field 'cards': card \d+: field 'level' must be an integer 0-255"),
    ("card facts with an unknown field", _with_body(cards=[{**GOOD_BODY["cards"][0], "lore": "x"}] + GOOD_BODY["cards"][1:]),
     r"body field 'cards': unknown field 'lore'"),
    ("card facts not a map", _with_body(cards=[3] + GOOD_BODY["cards"][1:]), r"body field 'cards'"),
    ("a card twice", _with_body(cards=GOOD_BODY["cards"] + GOOD_BODY["cards"][:1]), r"body field 'cards': duplicate passcode"),
    ("disclosures malformed", _with_body(disclosures=[[0, "p0.m0"]]),
     r"body field 'disclosures': entry 0 is not \[int, str, int\]"),
    ("commitments malformed", _with_body(commitments=[[0, 0, "not bytes"]]),
     r"body field 'commitments': entry 0 is not \[int, int, bytes\]"),
    ("commit key not bytes", _with_body(commit_key="key"), r"body field 'commit_key' is missing or not a bytes"),
]

#: Truncations at every interesting offset: inside the magic, at each fixed field, in the header,
#: at its end, in the body length / CRC, at the body start, in the body, one byte short.
CUTS = sorted({0, 1, 4, 7, 8, 9, 10, 12, 14, 15, 16, 17, 16 + H // 2, 16 + H - 1, 16 + H, 18 + H,
               20 + H, 22 + H, 23 + H, BODY_AT, BODY_AT + 1, BODY_AT + B // 2, len(GOOD) - 1})


def _cut_message(cut: int) -> str:
    if cut < 16:
        return rf"truncated: {cut} bytes, a replay file has at least 24"
    if cut < BODY_AT:
        return rf"truncated: the header needs bytes 16\.\.{BODY_AT}, the file has {cut}"
    return rf"truncated: the body needs bytes {BODY_AT}\.\.{len(GOOD)}, the file has {cut}"


ALL_BAD = BAD + [(f"truncated at byte {cut}", GOOD[:cut], _cut_message(cut)) for cut in CUTS]
WHERE = re.compile(r"offset \d+|field '|event \d+|\d+ bytes|the body|the header|passcode")


@pytest.mark.parametrize("name,data,message", ALL_BAD, ids=[case[0] for case in ALL_BAD])
def test_bad_input_says_what_and_where(name, data, message):
    with pytest.raises(ReplayFileError) as info:
        loads(data)
    text = str(info.value)
    assert re.search(message, text), f"{name}: {text!r} does not match {message!r}"
    assert WHERE.search(text), f"{name}: {text!r} does not say where"


def test_read_names_the_file(tmp_path):
    path = tmp_path / "broken.ygr"
    path.write_bytes(GOOD[:100])
    with pytest.raises(ReplayFileError, match=rf"^{re.escape(str(path))}: truncated"):
        read(path)
    with pytest.raises(ReplayFileError, match="cannot read"):
        read(tmp_path / "missing.ygr")


def test_decode_body_is_the_map_the_schema_describes():
    body = decode_body(GOOD)
    assert set(body) >= {"events", "t0", "dt", "cards", "chain"}
    assert len(body["chain"]) == 4 * len(body["events"])
    with pytest.raises(ReplayFileError, match="the body is not a map"):
        decode_body(assemble(GOOD_HEADER, [1]))


CLI_BAD = [case for case in ALL_BAD if case[0] in {
    "empty file", "random garbage", "bad magic", "future format version", "absurd header length",
    "absurd body length", "CRC mismatch (body byte flipped)", "trailing bytes", "body not msgpack",
    "an unknown event kind", "card facts missing", "header not msgpack", "truncated at byte 9",
    f"truncated at byte {16 + H // 2}", f"truncated at byte {BODY_AT + B // 2}"}]
COMMANDS = [("show",), ("show", "--view", "spectator"), ("log",), ("audit",), ("audit", "--json"),
            ("play",), ("import",), ("verify",)]


@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c) for c in COMMANDS])
@pytest.mark.parametrize("name,data,message", CLI_BAD, ids=[case[0] for case in CLI_BAD])
def test_cli_on_a_bad_file_exits_2_with_the_message_and_no_traceback(tmp_path, command, name, data, message):
    path = tmp_path / "bad.ygr"
    path.write_bytes(data)
    store = tmp_path / "store.sqlite"
    if command[0] == "import":
        args = ("import", path, "--store", store)
    elif command[0] == "verify":
        args = ("verify", tmp_path / "good.ygr", "--against", path)
        (tmp_path / "good.ygr").write_bytes(file_of("won-by-damage", "spectator"))
    else:
        args = (command[0], path, *command[1:])
    result = run(*args, input="q\n")
    assert result.exit_code == 2, f"{args}: exit {result.exit_code}\n{result.output}"
    assert re.search(message, result.output), result.output
    assert "Traceback" not in result.output and isinstance(result.exception, SystemExit)


def test_cli_recognises_a_damaged_replay_by_its_first_byte(tmp_path):
    path = tmp_path / "no-suffix"
    path.write_bytes(GOOD[:300])
    result = run("show", path)
    assert result.exit_code == 2 and "truncated: the body needs bytes" in result.output


# -- fuzzing ----------------------------------------------------------------------------------------------

POOL = [file_of(sample, view) for sample in ("won-by-damage", "chain-counter-traps")
        for view in ("judge", "spectator")]
FUZZ_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
WHOLE_FILE_RUNS, BODY_BYTES_RUNS, VALUE_RUNS = 1500, 800, 800


def _outcome(data: bytes, tally: Counter) -> None:
    """Load the bytes: a ReplayFileError (tallied by what it says) or a replay whose chain check runs."""
    try:
        replay = loads(data)
    except ReplayFileError as exc:
        what = re.sub(r"\d+", "N", str(exc)).split("'")[0].split(" (")[0]
        tally["".join(ch if ch.isprintable() else "?" for ch in what[:48]).strip()] += 1
        return
    verify_chain(replay)
    tally["loaded"] += 1


def _report(record_property, what: str, runs: int, tally: Counter) -> None:
    record_property("fuzz_runs", runs)
    record_property("fuzz_outcomes", dict(tally.most_common()))
    line = f"fuzz: {runs} {what}; outcomes: " + ", ".join(f"{k.strip()} {v}" for k, v in tally.most_common(8))
    print(line)
    _SUMMARY.append(line)


_SUMMARY: list[str] = []

_position = st.one_of(st.integers(0, 24), st.integers(0, 400), st.integers(0, 1 << 16))
_byte_mutation = st.one_of(
    st.tuples(st.just("flip"), _position, st.integers(0, 7)),
    st.tuples(st.just("insert"), _position, st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("delete"), _position, st.integers(1, 16)),
    st.tuples(st.just("overwrite"), _position, st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("truncate"), _position),
    st.tuples(st.just("splice"), _position, st.integers(0, len(POOL) - 1), _position),
)


def _mutate(data: bytes, mutations, pool: list[bytes]) -> bytes:
    out = bytearray(data)
    for kind, at, *rest in mutations:
        at %= len(out) + 1
        if kind == "flip" and at < len(out):
            out[at] ^= 1 << rest[0]
        elif kind == "insert":
            out[at:at] = rest[0]
        elif kind == "delete":
            del out[at:at + rest[0]]
        elif kind == "overwrite":
            out[at:at + len(rest[0])] = rest[0]
        elif kind == "truncate":
            del out[at:]
        elif kind == "splice":
            other = pool[rest[0]]
            out = out[:at] + other[rest[1] % (len(other) + 1):]
    return bytes(out)


def test_fuzz_mutated_files_raise_only_replay_file_error(record_property):
    """1500 runs: whole files with bit flips, insertions, deletions, overwrites, truncations and
    splices of two valid files; ``loads`` raises ReplayFileError or returns a replay, nothing else."""
    runs, tally = 0, Counter()

    @settings(max_examples=WHOLE_FILE_RUNS, **FUZZ_SETTINGS)
    @given(base=st.integers(0, len(POOL) - 1), mutations=st.lists(_byte_mutation, min_size=1, max_size=5))
    def fuzz(base, mutations):
        nonlocal runs
        runs += 1
        _outcome(_mutate(POOL[base], mutations, POOL), tally)

    fuzz()
    assert runs >= WHOLE_FILE_RUNS
    _report(record_property, "mutated whole files", runs, tally)


SPLIT = [(data[:16 + layout(data)[0]], msgpack.packb(decode_body(data))) for data in POOL]
_MSGPACK_MARKERS = st.sampled_from([0x00, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3,
                                    0xc4, 0xc5, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf, 0xd0, 0xd3, 0xd4, 0xd9,
                                    0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf, 0xe0, 0xff])
_raw_position = st.integers(0, 1 << 20)
_flip = st.tuples(st.just("flip"), _raw_position, st.integers(0, 6))   # not bit 7: ASCII stays UTF-8
_body_mutation = st.one_of(                    # weighted towards changes that keep msgpack framing
    _flip, _flip, _flip,
    st.tuples(st.just("overwrite"), _raw_position, st.binary(min_size=1, max_size=1)),
    st.tuples(st.just("overwrite"), _raw_position, _MSGPACK_MARKERS.map(lambda b: bytes([b]))),
    st.tuples(st.just("insert"), _raw_position, st.binary(min_size=1, max_size=4)),
    st.tuples(st.just("delete"), _raw_position, st.integers(1, 8)),
    st.tuples(st.just("truncate"), _raw_position),
)


def _rewrap(head: bytes, raw: bytes) -> bytes:
    packed = lzma.compress(raw, format=lzma.FORMAT_RAW, filters=FAST)
    return head + struct.pack("<II", len(packed), zlib.crc32(packed)) + packed


def test_fuzz_decompressed_body_bytes(record_property):
    """800 runs behind the CRC: the body's msgpack bytes mutated (flips, msgpack type markers,
    insertions, deletions, truncations), recompressed, CRC and length fixed."""
    runs, tally = 0, Counter()

    @settings(max_examples=BODY_BYTES_RUNS, **FUZZ_SETTINGS)
    @given(base=st.integers(0, len(SPLIT) - 1), mutations=st.lists(_body_mutation, min_size=1, max_size=3))
    def fuzz(base, mutations):
        nonlocal runs
        runs += 1
        head, raw = SPLIT[base]
        _outcome(_rewrap(head, _mutate(raw, mutations, [])), tally)

    fuzz()
    assert runs >= BODY_BYTES_RUNS
    assert tally["loaded"] + sum(v for k, v in tally.items() if "event" in k or "field" in k) > 0
    _report(record_property, "mutated msgpack bodies", runs, tally)


_msgpack_value = st.recursive(
    st.none() | st.booleans() | st.integers(-(1 << 63), (1 << 64) - 1) | st.integers(-3, 60)
    | st.floats() | st.text(max_size=8) | st.binary(max_size=40)
    | st.sampled_from(["p0.m0", "p1.m3", "hand", "gy", "mzone", "attack", "draw", "judge", "lp"]),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=6) | st.integers(-2, 2) | st.sampled_from(["kind", "code", "player"]),
                      children, max_size=3),
    max_leaves=8)


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += _paths(item, prefix + (index,))
    return out


STRUCTURED = [(read_header(data)[0], decode_body(data)) for data in POOL]
BODY_PATHS = [_paths(body) for _, body in STRUCTURED]
HEADER_PATHS = [_paths(header) for header, _ in STRUCTURED]


def test_fuzz_decoded_values(record_property):
    """800 runs deeper still: one or two values of the decoded header or body map (an event field,
    a card fact, a time, a disclosure...) replaced by an arbitrary msgpack value, or deleted."""
    runs, tally = 0, Counter()

    @settings(max_examples=VALUE_RUNS, **FUZZ_SETTINGS)
    @given(base=st.integers(0, len(STRUCTURED) - 1),
           changes=st.lists(st.tuples(st.booleans(), st.integers(0, 1 << 16), st.booleans(), _msgpack_value),
                            min_size=1, max_size=2))
    def fuzz(base, changes):
        nonlocal runs
        runs += 1
        header, body = msgpack.unpackb(msgpack.packb(STRUCTURED[base]), strict_map_key=False)
        for in_header, pick, delete, value in changes:
            target, paths = (header, HEADER_PATHS[base]) if in_header else (body, BODY_PATHS[base])
            path = paths[pick % len(paths)]
            try:
                for key in path[:-1]:
                    target = target[key]
                if delete and isinstance(target, dict):
                    del target[path[-1]]
                else:
                    target[path[-1]] = value
            except (KeyError, IndexError, TypeError):     # an earlier change reshaped the path
                continue
        _outcome(assemble(msgpack.packb(header), msgpack.packb(body), raw_body=True), tally)

    fuzz()
    assert runs >= VALUE_RUNS
    _report(record_property, "decoded maps with a value replaced", runs, tally)


def test_fuzz_total(capsys):
    """The fuzz run count for the record (printed even without -s)."""
    with capsys.disabled():
        for line in _SUMMARY:
            print("\n" + line, end="")
        print(f"\nfuzz: {sum(int(l.split()[1]) for l in _SUMMARY)} runs in all")


# -- the CLI that studies replay files ---------------------------------------------------------------------

DAMAGE = REPLAYS / "won-by-damage.jsonl"


def test_cli_export_import_export_round_trip(tmp_path):
    store, other = tmp_path / "a.sqlite", tmp_path / "b.sqlite"
    recorded = run("record", DAMAGE, "--store", store)
    assert recorded.exit_code == 0
    duel = recorded.output.strip().splitlines()[-1]
    first = tmp_path / "first.ygr"
    exported = run("export", duel, "-o", first, "--store", store)
    assert exported.exit_code == 0, exported.output
    assert re.search(rf"{re.escape(str(first))}: 89 events, \d+ cards, judge view, \d+ bytes", exported.output)
    imported = run("import", first, "--store", other, "--title", "copy")
    assert imported.exit_code == 0, imported.output
    copy = imported.output.strip()
    second = tmp_path / "second.ygr"
    assert run("export", copy, "-o", second, "--store", other).exit_code == 0
    a, b = read(first), read(second)
    assert dicts(a.events) == dicts(b.events) == dicts(events_of("won-by-damage"))
    assert a.times == b.times
    assert run("verify", first).exit_code == 0 and run("verify", second).exit_code == 0
    assert run("verify", copy, "--store", other).exit_code == 0


def test_cli_export_a_jsonl_file_for_each_view(tmp_path):
    for view in VIEWS:
        out = tmp_path / f"{view}.ygr"
        result = run("export", DAMAGE, "-o", out, "--view", view)
        assert result.exit_code == 0 and f"{view} view" in result.output
        assert read(out).view == view


def test_a_judge_file_is_readable_by_its_owner_only_and_a_view_by_all(tmp_path):
    """A judge file (and a web page carrying one) holds every hidden card and the duel's secret."""
    for view, mode in (("judge", 0o600), ("spectator", 0o644), ("p0", 0o644)):
        for suffix, html in ((".ygr", ()), (".html", ("--html",))):
            out = tmp_path / f"{view}{suffix}"
            out.write_bytes(b"an older file, open to all")
            out.chmod(0o644)
            result = run("export", DAMAGE, "-o", out, "--view", view, *html)
            assert result.exit_code == 0, result.output
            assert out.stat().st_mode & 0o777 == mode, (view, suffix)


def test_cli_import_of_a_view_exits_2(tmp_path):
    path = tmp_path / "spectator.ygr"
    path.write_bytes(file_of("won-by-damage", "spectator"))
    result = run("import", path, "--store", tmp_path / "s.sqlite")
    assert result.exit_code == 2 and "cannot be recorded; import the judge file" in result.output


@pytest.fixture(scope="module")
def judge_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("ygr") / "damage.judge.ygr"
    write(path, replay_of("won-by-damage", "judge"))
    return path


@pytest.fixture(scope="module")
def spectator_file(judge_file) -> Path:
    path = judge_file.with_name("damage.spectator.ygr")
    write(path, replay_of("won-by-damage", "spectator"))
    return path


def test_cli_log_reads_like_a_move_list(judge_file, spectator_file):
    result = run("log", judge_file)
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert "Turn 1 — Yugi" in lines and "Turn 5 — Yugi" in lines
    assert any(line.strip() == "Main Phase 1" for line in lines)
    assert any(re.match(r"\s+#\d+\s+T\d+ M1\s+Yugi Normal Summons \w", line) for line in lines)
    assert "The duel ends: Yugi wins (LP reached 0)" in result.output
    spectator = run("log", spectator_file).output
    assert "Yugi draws Giant Soldier of Stone (copy 1), Magic Cylinder" in result.output
    assert "Yugi draws 5 cards" in spectator and "Magic Cylinder" not in spectator.split("Turn 2")[0]
    # a judge file seen as a spectator logs exactly as the spectator file does
    assert run("log", judge_file, "--view", "spectator").output == spectator


def test_cli_show_view_and_turn(judge_file, spectator_file):
    judge = run("show", judge_file, "--at", 60)
    assert judge.exit_code == 0
    assert "  hand 3      Raigeki, Gemini Elf, Dark Magician" in judge.output
    spectator = run("show", judge_file, "--at", 60, "--view", "spectator")
    assert spectator.exit_code == 0 and "spectator view" in spectator.output
    assert "Raigeki, Gemini Elf" not in spectator.output
    assert "  hand 3      3 hidden\n" in spectator.output
    assert run("show", spectator_file, "--at", 60).output == spectator.output
    own = run("show", judge_file, "--at", 60, "--view", "p0")
    assert "  hand 3      Raigeki, Gemini Elf, Dark Magician" in own.output
    assert "(turn_started)" in run("show", spectator_file, "--turn", 4).output
    narrower = run("show", spectator_file, "--view", "judge")
    assert narrower.exit_code == 2 and "is a spectator view: it cannot show the judge view" in narrower.output
    assert run("show", spectator_file, "--at", 999).exit_code == 2


def test_cli_play_steps_jumps_and_switches_views(judge_file):
    keys = ["n", "", "p", "j 60", "t 4", "t 99", "v spectator", "n", "v p1", "v nobody", "x", "q"]
    result = run("play", judge_file, input="\n".join(keys) + "\n")
    assert result.exit_code == 0, result.output
    headings = re.findall(r"event #(\d+)/88: .*? \[(\w+) view\]", result.output)
    indices = [int(i) for i, _ in headings]
    assert indices[:5] == [0, 1, 2, 1, 60]
    turn4 = events_of("won-by-damage").index(next(e for e in events_of("won-by-damage")
                                                  if e.kind == "turn_started" and e.turn == 4))
    assert indices[5] == turn4 and indices[6] == turn4         # "t 99": no such turn, stays
    assert "the duel has no turn 99" in result.output
    views = [v for _, v in headings]
    assert views[:7] == ["judge"] * 7 and views[7:9] == ["spectator", "spectator"] and views[9] == "p1"
    assert indices[8] == turn4 + 1
    assert "unknown command 'v nobody'" in result.output and "unknown command 'x'" in result.output


def test_cli_play_a_view_cannot_switch_to_a_wider_one(spectator_file):
    result = run("play", spectator_file, input="v judge\nq\n")
    assert result.exit_code == 0 and "cannot switch" in result.output
    assert re.findall(r"\[(\w+) view\]", result.output) == ["spectator", "spectator"]


AUDIT_KEYS = {"events", "violations", "overrides", "rollbacks", "chain_ok", "first_bad_link", "final"}


def test_cli_audit_json_of_a_judge_file(judge_file):
    result = run("audit", judge_file, "--json")
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert AUDIT_KEYS <= set(data)
    assert data["events"] == 89 and data["violations"] == [] and data["overrides"] == []
    assert data["rollbacks"] == [] and data["chain_ok"] is True and data["first_bad_link"] is None
    assert data["final"] == {"lp": [8000, 0], "turn": 5, "phase": "battle", "winner": 0, "reason": "lp"}
    check = json.loads(run("check", judge_file, "--json").output)
    assert check["final"] == data["final"], "check --json and audit --json say the result the same way"
    assert check["violations"] == data["violations"] and check["overrides"] == data["overrides"]


def test_cli_audit_json_of_a_view_has_the_public_result(spectator_file):
    data = json.loads(run("audit", spectator_file, "--json").output)
    assert AUDIT_KEYS <= set(data) and data["chain_ok"] is True
    assert data["final"] == {"lp": [8000, 0], "turn": 5, "phase": "battle", "winner": 0, "reason": "lp"}


def test_cli_audit_finds_a_broken_link_and_a_violation(tmp_path):
    replay = replay_of("won-by-damage", "judge")
    header, body = parts(dumps(replay))
    events = body["events"]
    changed = next(i for i, e in enumerate(events) if e["kind"] == "life_points_changed")
    events[changed] = {**events[changed], "amount": events[changed]["amount"] + 100}
    path = tmp_path / "edited.ygr"
    path.write_bytes(assemble(header, body))
    result = run("audit", path, "--json")
    data = json.loads(result.output)
    assert result.exit_code == 1
    assert data["chain_ok"] is False and data["first_bad_link"] == changed
    text = run("audit", path).output
    assert f"hash chain: BROKEN at event {changed}" in text
    # an illegal record: the same edit, with the chain recomputed (a forger's best effort)
    forged = tmp_path / "forged.ygr"
    illegal = list(events_of("won-by-damage"))
    illegal[changed] = dataclasses.replace(illegal[changed], amount=illegal[changed].amount + 100)
    write(forged, make_replay(illegal, stamps(len(illegal)), CARDS, "judge", RECORD_ROOT, SECRET))
    data = json.loads(run("audit", forged, "--json").output)
    assert data["chain_ok"] is True and data["violations"]
    assert {"index", "rule", "message"} <= set(data["violations"][0])


def test_cli_audit_of_a_stored_duel(tmp_path):
    store = tmp_path / "s.sqlite"
    duel = run("record", DAMAGE, "--store", store).output.strip().splitlines()[-1]
    data = json.loads(run("audit", duel, "--json", "--store", store).output)
    assert data["chain_ok"] is True and data["final"]["winner"] == 0 and data["events"] == 89


def test_format_2_leaves_out_unknown_names_and_gives_them_back():
    """Format 2 stores a card known only as "Card <code>" (an imported replay's) without a name;
    reading gives the same facts back, and format 1 files (names always there) still load."""
    from ygoreplay.cards import CardFacts, unnamed
    facts = CardFacts(code=1475311, name=unnamed(1475311), type=2)
    events = read_events(REPLAYS / "won-by-damage.jsonl")
    cards = CardDB.classic().subset(referenced_codes(events)).merged(CardDB([facts]))
    replay = ReplayFile(events, cards, ["2026-01-01T00:00:00.000+00:00"] * len(events))
    data = dumps(replay)
    body = decode_body(data)
    stored = [c for c in body["cards"] if c["code"] == 1475311]
    assert stored == [{"code": 1475311, "type": 2}]
    assert loads(data).cards[1475311] == facts


def test_lzma_constants_written_out_are_lzmas():
    """replay_file names lzma's filter and preset flag without importing lzma (a stored board's
    ``show`` imports the module, never packs a file: issue 25): they must be lzma's own."""
    import lzma

    from ygoreplay import replay_file
    assert (replay_file.FILTER_LZMA2, replay_file.PRESET_EXTREME) == (lzma.FILTER_LZMA2, lzma.PRESET_EXTREME)
    assert replay_file.PRESET == 9 | lzma.PRESET_EXTREME


@pytest.mark.parametrize("sample", SAMPLES[:4])
def test_a_chain_is_each_event_linked_to_the_one_before(sample):
    """``chain.hashes`` (one packer for a whole chain, #25) gives what ``chain.link`` of each
    event after the one before gives: the rule every reader checks a file by."""
    from ygoreplay import chain
    events = read_events(REPLAYS / f"{sample}.jsonl")
    wire, times = [e.to_dict() for e in events], [_iso(1_700_000_000_000 + k) for k in range(len(events))]
    linked, prev = [], b"r" * 32
    for position, (event, when) in enumerate(zip(wire, times)):
        prev = chain.link(prev, position, event, when)
        linked.append(prev)
    assert chain.hashes(b"r" * 32, wire, times) == linked and len(set(linked)) == len(events) > 10
