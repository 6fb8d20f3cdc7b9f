"""Bounded decoding: every decoder refuses what no real input holds, fast, with little memory, and
says what and where; nothing it accepts crashes later (export, printing, the fold, the views).

One section per decoder: events (``events.from_dict``), JSON Lines (``jsonl.read_events``),
EDOPro replays (``yrpx.read_yrpx``), card facts (``cards.CardFacts``); then the command line.
The bombs (a 28 KB replay announcing a 200 MB body, a 2 GiB file of zeros …) are crafted in
``tmp_path``; memory is measured with ``tracemalloc`` (which also sees liblzma's allocations),
never with a timer.
"""
from __future__ import annotations

import collections.abc
import json
import lzma
import sqlite3
import struct
import tracemalloc
from pathlib import Path
from typing import Any, Callable

import msgpack
import pytest
from click.testing import CliRunner

from conftest import shared_path
from ygoreplay import events as ev
from ygoreplay import jsonl, yrpx
from ygoreplay.cards import CardDB, CardDBError, CardFacts, HIDDEN_CARD
from ygoreplay.cli import main
from ygoreplay.events import EventFormatError, from_dict
from ygoreplay.jsonl import read_events
from ygoreplay.rules import RuleViolation, apply
from ygoreplay.rules.setup import _CARD_FLAGS
from ygoreplay.state import DuelState
from ygoreplay.yrpx import YrpxError, read_yrpx

MB = 1 << 20
CELTIC, VORSE, SHEEP_TOKEN, UTOPIA = 91152256, 14898066, 73915052, 84013237


def peak_memory(call: Callable[[], Any]) -> tuple[Any, int]:
    """(what ``call`` returned or raised, the peak of memory traced while it ran)."""
    tracemalloc.start()
    try:
        try:
            outcome: Any = call()
        except Exception as exc:                   # the caller judges what was raised
            outcome = exc
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# == events.from_dict ================================================================================

def refused(data: dict) -> str:
    with pytest.raises(EventFormatError) as info:
        from_dict(data)
    return str(info.value)


def setup(p0: dict | None = None, p1: dict | None = None, **fields: Any) -> dict:
    return {"kind": "position_set_up", "sides": [p0 or {}, p1 or {}], **fields}


BIG = 10 ** 100          # decodes from JSON; msgpack cannot hold it (OverflowError at export)


@pytest.mark.parametrize("data, where", [
    ({"kind": "turn_started", "turn": BIG}, "turn_started.turn"),
    ({"kind": "die_rolled", "results": [1, BIG]}, "die_rolled.results[1]"),
    ({"kind": "damage_calculated", "damage": [0, -BIG]}, "damage_calculated.damage[1]"),
    ({"kind": "activated", "card": "p0.m1", "costs": [{"lp": BIG}]}, "activated.costs[0]"),
    ({"kind": "card_moved", "card": "p0.m1", "to": [0, "gy", BIG]}, "card_moved.to"),
    (setup({"lp": BIG}), "position_set_up.sides[0].lp"),
    (setup({}, {"mzone": [None, {"code": CELTIC, "atk": BIG}]}), "position_set_up.sides[1].mzone[1].atk"),
    (setup({"szone": [{"code": CELTIC, "counters": {"spell": BIG}}]}),
     "position_set_up.sides[0].szone[0].counters['spell']"),
    (setup({"graveyard": [[BIG]]}), "position_set_up.sides[0].graveyard[0][0]"),
])
def test_every_integer_fits_in_64_bits(data: dict, where: str) -> None:
    message = refused(data)
    assert message.startswith(f"{where}: ") and "does not fit in a signed 64-bit integer" in message
    assert "a 333-bit integer" in message          # not the 100 digits again


def test_the_64_bit_extremes_decode_and_export() -> None:
    for value in (ev.INT_MAX, ev.INT_MIN):
        event = from_dict({"kind": "die_rolled", "results": [value]})
        assert msgpack.unpackb(msgpack.packb(event.to_dict())) == event.to_dict()
    for value in (ev.INT_MAX + 1, ev.INT_MIN - 1):
        assert "does not fit" in refused({"kind": "turn_started", "turn": value})


@pytest.mark.parametrize("data, where", [
    ({"kind": "deck_registered", "player": 0, "main": [CELTIC, -1]}, "deck_registered.main[1]"),
    ({"kind": "deck_registered", "player": 0, "main": [], "extra": [1 << 32]}, "deck_registered.extra[0]"),
    ({"kind": "deck_registered", "player": 0, "main": [], "side": [BIG]}, "deck_registered.side[0]"),
    ({"kind": "token_created", "card": "p0.t1", "code": -5, "zone": 0}, "token_created.code"),
    (setup({"hand": [CELTIC, 1 << 32]}), "position_set_up.sides[0].hand[1]"),
    (setup({"mzone": [{"code": -1}]}), "position_set_up.sides[0].mzone[0].code"),
    (setup({"mzone": [{"code": UTOPIA, "materials": [CELTIC, {"code": 1 << 40}]}]}),
     "position_set_up.sides[0].mzone[0].materials[1].code"),
])
def test_passcodes_are_unsigned_32_bit(data: dict, where: str) -> None:
    message = refused(data)
    assert message.startswith(f"{where}: ") and f"a passcode is 0..{2 ** 32 - 1}" in message


def test_a_set_up_s_bare_passcodes_are_checked_with_no_path_made_for_each(monkeypatch) -> None:
    """A table's first append sets up some 120 cards, nearly all bare passcodes: each was checked
    through ``_card_spec`` with its path written out first, three quarters of the set-up's decode
    (issue 25). Only a card object, or a value that is no passcode, goes there now, and is still
    refused with its path."""
    specs: list[str] = []
    inner = ev._card_spec
    monkeypatch.setattr(ev, "_card_spec", lambda spec, path, material=False: (specs.append(path),
                                                                              inner(spec, path, material)))
    data = setup({"deck": [CELTIC, VORSE, 0, 2 ** 32 - 1], "hand": [CELTIC],
                  "mzone": [None, {"code": UTOPIA, "materials": [CELTIC]}]}, {"extra": [UTOPIA]})
    assert from_dict(data).sides == tuple(data["sides"])
    assert specs == ["[0].mzone[1]", "[0].mzone[1].materials[0]"]
    for bad in (-1, 2 ** 32):
        specs.clear()
        assert refused(setup({"hand": [CELTIC, bad]})).startswith("position_set_up.sides[0].hand[1]: a passcode is 0..")
        assert specs == ["[0].hand[1]"]
    specs.clear()                                   # true is no passcode: the rules' to refuse (LOG-05), as before
    assert from_dict(setup({"hand": [True]})).sides[0] == {"hand": [True]} and specs == ["[0].hand[0]"]


def test_passcode_0_is_the_hidden_card_and_2_32_minus_1_the_largest() -> None:
    event = from_dict({"kind": "deck_registered", "player": 1, "main": [0, 0, 2 ** 32 - 1]})
    assert event.main == (0, 0, 2 ** 32 - 1)
    assert from_dict({"kind": "token_created", "card": "p0.t1", "code": 0, "zone": 0}).code == 0
    assert from_dict(setup({"hand": [0], "mzone": [{"code": 0, "position": "set"}]})).sides[0]["hand"] == [0]


@pytest.mark.parametrize("data, where", [
    ({"kind": "judge_note", "judge": "head judge", "note": "ok \ud800"}, "judge_note.note"),
    ({"kind": "normal_summoned", "card": "p0.m\udfff", "zone": 0}, "normal_summoned.card"),
    ({"kind": "duel_started", "first_player": 0, "players": ["Yugi", "\ud83d"]}, "duel_started.players[1]"),
    ({"kind": "chain_ended", "cite": {"card": "p0.m1", "effect": "\ud800"}}, "chain_ended.cite"),
    ({"kind": "activated", "card": "p0.m1", "costs": [{"card": "\ud800", "to": "gy"}]}, "activated.costs[0]"),
    (setup({"hand": [{"code": CELTIC, "id": "\ud800"}]}), "position_set_up.sides[0].hand[0].id"),
    (setup({"hand": ["\ud800"]}), "position_set_up.sides[0].hand[0]"),
])
def test_strings_are_valid_unicode(data: dict, where: str) -> None:
    message = refused(data)
    assert message.startswith(f"{where}: ") and "lone surrogate" in message
    message.encode("utf-8")                        # the message itself prints


def test_a_lone_surrogate_from_json_is_refused_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "duel.jsonl"
    path.write_text('{"kind": "judge_note", "judge": "\\ud800", "note": "x"}\n', encoding="utf-8")
    with pytest.raises(EventFormatError, match=r"duel\.jsonl:1: judge_note\.judge: not valid Unicode"):
        read_events(path)


def test_strings_and_lists_have_a_length_limit() -> None:
    longest = "x" * ev.MAX_STRING
    assert from_dict({"kind": "judge_note", "judge": "j", "note": longest}).note == longest
    message = refused({"kind": "judge_note", "judge": "j", "note": longest + "x"})
    assert f"a string of {ev.MAX_STRING + 1:,} characters" in message and len(message) < 300
    order = [f"p0.m{i}" for i in range(ev.MAX_LIST)]
    assert len(from_dict({"kind": "deck_shuffled", "player": 0, "order": order}).order) == ev.MAX_LIST
    message = refused({"kind": "deck_shuffled", "player": 0, "order": order + ["p0.m0"]})
    assert message == f"deck_shuffled.order: expected at most {ev.MAX_LIST:,} entries, got {ev.MAX_LIST + 1:,}"
    assert "at most" in refused(setup({"deck": [CELTIC] * (ev.MAX_LIST + 1)}))
    # valid text of any script is fine
    assert from_dict({"kind": "judge_note", "judge": "審判", "note": "Blauäugiger 白龍 🐉"}).judge == "審判"


def test_error_messages_stay_short_whatever_the_value() -> None:
    for data in ({"kind": "turn_started", "turn": "x" * MB}, {"kind": "x" * MB},
                 {"kind": "turn_started", "turn": 1, "y" * MB: 1},
                 {"kind": "deck_registered", "main": [list(range(MB))]},
                 {"kind": "turn_started", "turn": 10 ** 5000}):
        assert len(refused(data)) < 400


@pytest.mark.parametrize("data, says", [
    ({"kind": "damage_calculated", "damage": [100]}, "damage_calculated.damage: expected at least 2 entries"),
    ({"kind": "damage_calculated", "damage": []}, "damage_calculated.damage: expected at least 2 entries"),
    (setup(normal_summon_used=[True, False, True]), "position_set_up.normal_summon_used: expected at most 2"),
    (setup(pendulum_summon_used=[False] * 3), "position_set_up.pendulum_summon_used: expected at most 2"),
    ({"kind": "position_set_up", "sides": [{}, {}, {}]}, "position_set_up.sides: expected 2 sides"),
])
def test_the_per_player_pairs_are_checked_at_decode(data: dict, says: str) -> None:
    """What the log and the views index (damage[1], one side per player) is refused at decode;
    ``log`` of ``damage: [100]`` ended in an IndexError, the spectator view of three sides too."""
    assert refused(data).startswith(says)


@pytest.mark.parametrize("data", [
    {"kind": "damage_calculated", "damage": [0, 200, 0]},
    {"kind": "position_set_up", "sides": [{}]},
    setup(normal_summon_used=[True]),
])
def test_the_rules_still_judge_the_counts_they_name(data: dict) -> None:
    """A third damage entry, one side, one flag: LOG-05 from the fold, as the rule tests expect."""
    assert from_dict(data).kind == data["kind"]


def _spec(**fields: Any) -> dict:
    return setup({"mzone": [None, None, {"code": CELTIC, **fields}]})


@pytest.mark.parametrize("data, says", [
    (_spec(atk="x"), "position_set_up.sides[0].mzone[2].atk: expected an integer, got 'x'"),
    (_spec(id=["a"]), "position_set_up.sides[0].mzone[2].id: expected a string, got ['a']"),
    (_spec(id=""), "position_set_up.sides[0].mzone[2].id: a card id is a non-empty string"),
    (_spec(owner=5), "position_set_up.sides[0].mzone[2].owner: an owner is player 0 or 1, got 5"),
    (_spec(owner=True), "position_set_up.sides[0].mzone[2].owner: an owner is player 0 or 1"),
    (setup({"mzone": [{"code": "91152256"}]}), "position_set_up.sides[0].mzone[0].code: expected a passcode"),
    (_spec(counters={"spell": "2"}), "position_set_up.sides[0].mzone[2].counters['spell']: expected an integer"),
    (_spec(counters={"spell": -1}), "position_set_up.sides[0].mzone[2].counters['spell']: a count is 0 or more"),
    (_spec(counters={"spell": [1]}), "position_set_up.sides[0].mzone[2].counters['spell']: expected an integer"),
    (_spec(position="sideways"), "position_set_up.sides[0].mzone[2].position: a position is one of"),
    (_spec(position=["attack"]), "position_set_up.sides[0].mzone[2].position: a position is one of"),
    (_spec(summoned=1), "position_set_up.sides[0].mzone[2].summoned: expected true or false, got 1"),
    (_spec(token="yes"), "position_set_up.sides[0].mzone[2].token: expected true or false"),
    (_spec(level=4.5), "position_set_up.sides[0].mzone[2].level: expected an integer, got 4.5"),
    (_spec(colour="red"), "position_set_up.sides[0].mzone[2]: unknown card key 'colour'"),
    (setup({"hand": [{"id": "x"}]}), "position_set_up.sides[0].hand[0]: a card object needs its passcode 'code'"),
    (setup({"mzone": [{"code": UTOPIA, "materials": [{"code": CELTIC, "materials": [VORSE]}]}]}),
     "position_set_up.sides[0].mzone[0].materials[0].materials: a material has no materials of its own"),
    (setup({"mzone": [{"code": UTOPIA, "materials": [{"code": CELTIC, "owner": 7}]}]}),
     "position_set_up.sides[0].mzone[0].materials[0].owner: an owner is player 0 or 1, got 7"),
    (setup({"lp": "8000"}), "position_set_up.sides[0].lp: expected an integer, got '8000'"),
    (setup({"lp": None}), "position_set_up.sides[0].lp: expected an integer, got None"),
    (setup({"hand": 5}), "position_set_up.sides[0].hand: expected a list, got 5"),
    (setup({"fzone": {"code": CELTIC, "atk": "x"}}), "position_set_up.sides[0].fzone.atk: expected an integer"),
    ({"kind": "position_set_up", "sides": [5, {}]}, "position_set_up.sides[0]: a side is an object, got 5"),
    (setup({1: []}), "position_set_up.sides[0]: a side's keys are zone names, got 1"),
    (setup({"graveyard": [{"deep": [[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]}]}),
     "position_set_up.sides[0].graveyard[0].deep"),
])
def test_set_up_sides_are_checked_for_shape_and_types(data: dict, says: str) -> None:
    """Each of these decoded, and then crashed the fold or the views (TypeError, IndexError …)."""
    assert refused(data).startswith(says)


@pytest.mark.parametrize("side, rule", [
    ({"mzone": [{"code": SHEEP_TOKEN, "position": "set"}]}, "TOKEN-02"),      # a face-down Token
    ({"mzone": [{"code": CELTIC, "materials": [VORSE]}]}, "XMAT-01"),        # materials on a non-Xyz
    ({"mzone": [CELTIC] * 8}, "ZONE-01"),
    ({"graveyard": []}, "LOG-05"),                                          # an unknown zone
    ({"lp": -1}, "LOG-05"),
    ({"hand": ["celtic"]}, "LOG-05"),                                       # a card by name
    ({"mzone": [{"code": CELTIC, "counters": 5}]}, "LOG-05"),
    ({"hand": [{"code": CELTIC, "position": "attack"}]}, "LOG-05"),
])
def test_what_the_rules_judge_still_decodes_and_gets_its_rule(side: dict, rule: str) -> None:
    event = from_dict(setup(side))
    with pytest.raises(RuleViolation) as info:
        apply(DuelState(CardDB.classic()), event)
    assert info.value.rule == rule


def test_a_legal_set_up_with_every_card_key_decodes() -> None:
    card = {"code": UTOPIA, "id": "utopia", "owner": 0, "position": "defense", "summoned": True, "set": False,
            "position_changed": False, "attacked": False, "atk": 2500, "defense": None, "level": 4,
            "counters": {"": 0, "spell": 2}, "properly_summoned": True, "token": False,
            "materials": [{"code": CELTIC, "id": "m1", "materials": []}, VORSE]}
    assert set(card) == _CARD_FLAGS == ev.SPEC_KEYS
    event = from_dict(setup({"lp": 0, "mzone": [card, None], "szone": [None], "fzone": None, "deck": [0]}))
    assert event.sides[0]["mzone"][0] is card


# == JSON Lines =======================================================================================

def test_a_file_beyond_the_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as f:
        f.truncate(jsonl.MAX_FILE_SIZE + 1)                  # sparse: no disk, no time
    outcome, peak = peak_memory(lambda: read_events(path))
    assert isinstance(outcome, EventFormatError)
    assert f"the file is {jsonl.MAX_FILE_SIZE + 1:,} bytes; a duel file is at most" in str(outcome)
    assert peak < MB


def test_a_line_beyond_the_cap_is_refused_with_its_number(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    with path.open("w") as f:
        f.write('{"kind": "duel_started", "first_player": 0}\n# a comment\n')
        f.write('{"kind": "judge_note", "judge": "j", "note": "' + "x" * (8 * MB) + '"}\n')
    outcome, peak = peak_memory(lambda: read_events(path))
    assert isinstance(outcome, EventFormatError) and str(outcome).startswith(f"{path}:3: a line longer than")
    assert peak < 4 * MB                                     # one line's worth, not eight


def test_the_file_is_read_line_by_line(tmp_path: Path) -> None:
    path = tmp_path / "commented.jsonl"
    with path.open("w") as f:
        f.write('{"kind": "duel_started", "first_player": 0}\n')
        for _ in range(200):
            f.write("# " + "-" * 100_000 + "\n")             # 20 MB of comments
        f.write('{"kind": "cards_drawn", "player": 0, "count": 5}\n')
    events, peak = peak_memory(lambda: read_events(path))
    assert [e.kind for e in events] == ["duel_started", "cards_drawn"]
    assert peak < 4 * MB


@pytest.mark.parametrize("line, says", [
    ("[" * 100_000 + "]" * 100_000, "not valid JSON (nested too deeply"),
    ('{"kind": "turn_started", "turn": ' + "9" * 5000 + "}", "not valid JSON (a number too long to read)"),
])
def test_json_no_parser_can_hold_is_an_error_at_its_line(tmp_path: Path, line: str, says: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"kind": "duel_started", "first_player": 0}\n' + line + "\n")
    with pytest.raises(EventFormatError) as info:
        read_events(path)
    assert str(info.value).startswith(f"{path}:2: {says}")


def test_comments_blank_lines_and_line_ends(tmp_path: Path) -> None:
    """Only "\\n" (or "\\r\\n") ends a line, as JSON Lines says; the first byte that is not UTF-8
    is reported first."""
    path = tmp_path / "ends.jsonl"
    path.write_bytes(b'# start\r\n\r\n{"kind": "duel_started", "first_player": 0}\r\n'
                     b'  {"kind": "turn_started", "turn": "one"}\n')
    with pytest.raises(EventFormatError, match=r"ends\.jsonl:4: turn_started\.turn: expected an integer"):
        read_events(path)
    path.write_bytes(b'{"kind": "duel_started", "first_player": 0}\r{"kind": "turn_started", "turn": 1}\n')
    with pytest.raises(EventFormatError, match=r"ends\.jsonl:1: not valid JSON \(Extra data"):
        read_events(path)
    path.write_bytes(b'{"kind": "turn_started", "turn": "one"}\n{"kind": "chain_ended"}\n\xc3(\n')
    with pytest.raises(EventFormatError, match=r"ends\.jsonl: not UTF-8 text \(byte 64\)$"):
        read_events(path)
    block = jsonl._BLOCK                                       # a bad byte just past a block boundary
    path.write_bytes(b"#" + b"\xc3\xa9" * (block // 2) + b"\xe2\x82" + b"x\n")
    with pytest.raises(EventFormatError, match=rf"not UTF-8 text \(byte {block + 1}\)"):
        read_events(path)
    path.write_bytes(b'\n# only comments\n\n   \n')
    assert read_events(path) == []


def test_a_line_separator_inside_a_string_is_part_of_the_string(tmp_path: Path) -> None:
    """U+2028, U+2029 and U+0085 may stand raw in a JSON string: they do not end a line."""
    players = ["Yu\u2028gi", "Kai\x85ba\u2029"]
    path = tmp_path / "names.jsonl"
    path.write_text(json.dumps({"kind": "duel_started", "first_player": 0, "players": players},
                               ensure_ascii=False) + "\r\n", encoding="utf-8")
    assert [e.to_dict()["players"] for e in read_events(path)] == [players]
    jsonl.write_events(path, read_events(path))              # as written back
    assert [e.to_dict()["players"] for e in read_events(path)] == [players]


# == EDOPro replays ===================================================================================

YRPX_FLAGS = (yrpx.REPLAY_COMPRESSED | yrpx.REPLAY_LUA64 | yrpx.REPLAY_NEWREPLAY | yrpx.REPLAY_64BIT_DUELFLAG
              | yrpx.REPLAY_EXTENDED_HEADER)
YRP1_FLAGS = yrpx.REPLAY_LUA64 | yrpx.REPLAY_NEWREPLAY | yrpx.REPLAY_64BIT_DUELFLAG
MR5 = 0x2E800


def _names(flags: int) -> bytes:
    one = "P".encode("utf-16-le").ljust(40, b"\0")
    return (struct.pack("<I", 1) + one) * 2 if flags & yrpx.REPLAY_NEWREPLAY else one * 2


def _packet(mid: int, payload: bytes) -> bytes:
    return struct.pack("<BI", mid, len(payload)) + payload


def _file(ident: int, flags: int, body: bytes, *, stream: bytes | None = None, datasize: int | None = None) -> bytes:
    """A replay file: header (datasize, LZMA props), then the body, LZMA-alone compressed if flagged.
    ``stream`` gives the compressed bytes directly (props first, as lzma writes them)."""
    props, raw = b"\0" * 8, body
    if flags & yrpx.REPLAY_COMPRESSED:
        packed = stream if stream is not None else lzma.compress(body, format=lzma.FORMAT_ALONE)
        props, raw = packed[:5] + bytes(3), packed[13:]
    head = struct.pack("<6I8s", ident, 0x0009_0027, flags, 1_600_000_000,
                       len(body) if datasize is None else datasize, 0, props)
    if flags & yrpx.REPLAY_EXTENDED_HEADER:
        head += struct.pack("<5Q", 1, 11, 22, 33, 44)
    return head + raw


def _yrp1(flags: int = YRP1_FLAGS, responses: bytes = b"\x01\x00") -> bytes:
    deck = struct.pack("<I40I", 40, *range(5000, 5040)) + struct.pack("<I", 0)
    body = _names(flags) + struct.pack("<IIIQ", 8000, 5, 1, MR5) + deck * 2 + struct.pack("<I", 0) + responses
    return _file(yrpx.YRP1, flags, body)


def _yrpx_body(stream: bytes = b"", embedded: bytes | None = None, flags: int = YRPX_FLAGS) -> bytes:
    start = _packet(yrpx.MSG_START, struct.pack("<BII4H", 0, 8000, 8000, 40, 0, 40, 0))
    return (_names(flags) + struct.pack("<Q", MR5) + start + stream
            + _packet(yrpx.OLD_REPLAY_MODE, _yrp1() if embedded is None else embedded))


def test_the_builders_make_a_replay_the_reader_reads() -> None:
    for flags in (YRPX_FLAGS, YRPX_FLAGS & ~yrpx.REPLAY_COMPRESSED):
        replay = read_yrpx(_file(yrpx.YRPX, flags, _yrpx_body(flags=flags)))
        assert replay.packets[0].id == yrpx.MSG_START and replay.yrp1.decks[0][0] == tuple(range(5000, 5040))
    assert read_yrpx(_yrp1()).yrp1.responses == 1


def _refused_fast(data: bytes | Path, says: str, offset: int | None = None) -> YrpxError:
    outcome, peak = peak_memory(lambda: read_yrpx(data))
    assert isinstance(outcome, YrpxError), outcome
    assert says in str(outcome), str(outcome)
    if offset is not None:
        assert outcome.offset == offset
    assert peak < 4 * MB, f"{peak / MB:.1f} MB to refuse it"
    return outcome


def test_a_small_file_announcing_a_huge_body_is_refused_from_its_header() -> None:
    """The bomb of the issue: 200 MB of (empty) packets LZMA-compress to 28 KB; decoding it took
    6 GB and 100 s. Now the header's datasize is refused before anything is decompressed."""
    compressor, zeros = lzma.LZMACompressor(format=lzma.FORMAT_ALONE, preset=0), bytes(MB)
    body_size = 200 * MB
    stream = b"".join(compressor.compress(zeros) for _ in range(body_size // MB)) + compressor.flush()
    stream = stream[:5] + struct.pack("<Q", body_size) + stream[13:]
    bomb = _file(yrpx.YRPX, YRPX_FLAGS, b"", stream=stream, datasize=body_size)
    assert len(bomb) < 40_000
    error = _refused_fast(bomb, f"the header announces a body of {body_size:,} bytes; a replay body is at most",
                          offset=yrpx.DATASIZE_OFFSET)
    assert str(error).startswith("byte 16: ")


def test_a_body_the_compressed_bytes_cannot_hold_is_refused_from_its_header() -> None:
    """8 MiB (within the size cap) from 1.3 KB: 6,600 times, where real replays expand 140 times."""
    body = _names(YRPX_FLAGS) + struct.pack("<Q", MR5) + bytes(8 * MB)
    bomb = _file(yrpx.YRPX, YRPX_FLAGS, body)
    _refused_fast(bomb, f"more than {yrpx.MAX_RATIO:,} times the", offset=yrpx.DATASIZE_OFFSET)


def test_a_2_gib_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "zeros.yrpX"
    with path.open("wb") as f:
        f.truncate(2 ** 31)
    error = _refused_fast(path, "the file is 2,147,483,648 bytes; a replay file is at most")
    assert str(error).startswith(f"{path}: ")
    outcome, peak = peak_memory(lambda: yrpx.import_yrpx(path))
    assert isinstance(outcome, YrpxError) and peak < MB


def test_bytes_beyond_the_file_cap_are_refused() -> None:
    _refused_fast(bytes(yrpx.MAX_FILE_SIZE + 1), "a replay file is at most")


def test_a_forged_dictionary_size_is_not_allocated() -> None:
    """The LZMA properties ask for a 4 GiB dictionary; the body is 10 KB, and so is the dictionary."""
    good = _file(yrpx.YRPX, YRPX_FLAGS, _yrpx_body())
    forged = bytearray(good)
    struct.pack_into("<I", forged, yrpx.PROPS_OFFSET + 1, 0xFFFF_FFFF)
    replay, peak = peak_memory(lambda: read_yrpx(bytes(forged)))
    assert not isinstance(replay, Exception), replay
    assert replay.packets == read_yrpx(good).packets and peak < 4 * MB


def test_too_many_packets_are_refused_before_one_is_built() -> None:
    flags = YRPX_FLAGS & ~yrpx.REPLAY_COMPRESSED
    body = _names(flags) + struct.pack("<Q", MR5) + bytes(5 * (yrpx.MAX_PACKETS + 1))   # empty packets
    _refused_fast(_file(yrpx.YRPX, flags, body), f"more than {yrpx.MAX_PACKETS:,} packets")
    body = _names(flags) + struct.pack("<Q", MR5) + bytes(5 * yrpx.MAX_PACKETS)
    assert len(read_yrpx(_file(yrpx.YRPX, flags, body)).packets) == yrpx.MAX_PACKETS


def test_too_many_responses_are_refused() -> None:
    responses = b"\x01\x00" * (yrpx.MAX_RESPONSES + 1)
    _refused_fast(_yrp1(responses=responses), f"more than {yrpx.MAX_RESPONSES:,} player responses")
    embedded = _file(yrpx.YRPX, YRPX_FLAGS, _yrpx_body(embedded=_yrp1(responses=responses)))
    _refused_fast(embedded, f"more than {yrpx.MAX_RESPONSES:,} player responses")


def test_an_embedded_replay_beyond_its_cap_is_refused() -> None:
    big = _yrp1(responses=(b"\xff" + bytes(255)) * 4200)          # 1.1 MB of (uncompressed) responses
    flags = YRPX_FLAGS & ~yrpx.REPLAY_COMPRESSED
    _refused_fast(_file(yrpx.YRPX, flags, _yrpx_body(embedded=big, flags=flags)),
                  f"a replay body is at most {yrpx.MAX_EMBEDDED_SIZE:,}")


@pytest.mark.parametrize("patch, says", [
    (100_000_000, "embedded replay: the header announces a body of 100,000,000 bytes; a replay body is at most "
                  f"{yrpx.MAX_EMBEDDED_SIZE:,}"),
    (600_000, f"more than {yrpx.MAX_RATIO:,} times the"),
])
def test_the_embedded_replay_is_bounded_the_same_way(patch: int, says: str) -> None:
    inner = bytearray(_yrp1(YRP1_FLAGS | yrpx.REPLAY_COMPRESSED))
    struct.pack_into("<I", inner, yrpx.DATASIZE_OFFSET, patch)
    error = _refused_fast(_file(yrpx.YRPX, YRPX_FLAGS, _yrpx_body(embedded=bytes(inner))), says)
    assert "(in the embedded YRP1 at body byte" in str(error) and error.space == "embedded replay file"


def test_a_second_embedded_replay_is_refused() -> None:
    body = _yrpx_body() + _packet(yrpx.OLD_REPLAY_MODE, _yrp1())
    _refused_fast(_file(yrpx.YRPX, YRPX_FLAGS, body), "a second embedded YRP1 replay")


def test_the_limits_leave_room_for_every_real_replay() -> None:
    """The bounds against the corpus: every real file within a tenth of each cap, its body within a
    fifth of the expansion ratio cap (the largest is 136 times)."""
    folder = shared_path("real-replays", "edopro")
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in (".yrpx", ".yrp"))
    assert len(files) > 100
    for path in files:
        data = path.read_bytes()
        assert len(data) * 10 < yrpx.MAX_FILE_SIZE, path.name
        replay = read_yrpx(path)
        assert replay.body_size * 10 < yrpx.MAX_BODY_SIZE and len(replay.packets) * 10 < yrpx.MAX_PACKETS
        if replay.compressed:
            header = yrpx.EXTENDED_HEADER_SIZE if replay.flags & yrpx.REPLAY_EXTENDED_HEADER else yrpx.BASE_HEADER_SIZE
            assert replay.datasize * 5 < yrpx.MAX_RATIO * (len(data) - header), path.name
        if replay.yrp1 is not None:
            assert replay.yrp1.responses * 10 < yrpx.MAX_RESPONSES


# == card facts =======================================================================================

DARK_MAGICIAN = {"code": 46986414, "name": "Dark Magician", "type": 0x11, "level": 7, "atk": 2500,
                 "defense": 2100, "attribute": 0x20, "race": 0x2}


class _Unreadable(collections.abc.Mapping):
    def __getitem__(self, key: Any) -> Any:
        raise TypeError("no")

    def __iter__(self):
        return iter([["an unhashable key"]])

    def __len__(self) -> int:
        return 1


@pytest.mark.parametrize("patch, says", [
    ({"code": 1 << 32}, "field 'code' must be a positive integer passcode (1-4294967295)"),
    ({"code": 10 ** 5000}, "field 'code' must be a positive integer passcode"),     # repr() would raise
    ({"code": 0}, "field 'code' must be a positive integer passcode"),
    ({"code": [46986414]}, "field 'code'"),                                           # unhashable
    ({"alias": 1 << 32}, "field 'alias' must be a passcode"),
    ({"type": 1 << 64}, "field 'type' must be a non-negative integer of at most 64 bits"),
    ({"race": 10 ** 5000}, "field 'race' must be a non-negative integer of at most 64 bits, got a 16,610-bit"),
    ({"attribute": {"dark": 1}}, "field 'attribute'"),
    ({"atk": 1 << 31}, "field 'atk' must be a non-negative integer (at most 2147483647)"),
    ({"defense": 1 << 40}, "field 'defense' must be a non-negative integer (at most 2147483647)"),
    ({"level": 10 ** 5000}, "field 'level' must be an integer 0-255"),
    ({"name": "Dark \ud800 Magician"}, "field 'name' must be valid Unicode"),
    ({"name": "D" * 257}, "field 'name' must be at most 256 characters"),
    ({"name": {"en": "Dark Magician"}}, "field 'name' must be a non-empty string"),
    ({10 ** 5000: 1}, "unknown field a 16,610-bit integer"),
])
def test_card_facts_refuse_anything_no_real_card_has(patch: dict, says: str) -> None:
    with pytest.raises(CardDBError) as info:
        CardFacts.from_dict({**DARK_MAGICIAN, **patch})
    assert says in str(info.value) and len(str(info.value)) < 300


def test_card_facts_from_any_object_raise_card_db_error() -> None:
    with pytest.raises(CardDBError, match="cannot be read"):
        CardFacts.from_dict(_Unreadable())
    with pytest.raises(CardDBError, match="entry #0: field 'code'"):
        CardDB.from_json([{**DARK_MAGICIAN, "code": -1}])
    assert CardFacts.from_dict({**DARK_MAGICIAN, "name": "D" * 256, "code": 2 ** 32 - 1}).code == 2 ** 32 - 1
    assert HIDDEN_CARD.code == 0 and CardFacts.from_dict(HIDDEN_CARD.to_dict()) == HIDDEN_CARD


def test_a_cards_cdb_with_impossible_values_names_the_passcode(tmp_path: Path) -> None:
    def cdb(name: str, row: tuple) -> Path:
        path = tmp_path / name
        with sqlite3.connect(path) as conn:
            conn.execute("create table datas (id, ot, alias, setcode, type, atk, def, level, race, attribute, category)")
            conn.execute("create table texts (id, name, desc)")
            code, type_, atk, title = row
            conn.execute("insert into datas values (?, 0, 0, 0, ?, ?, 0, 4, 1, 1, 0)", (code, type_, atk))
            conn.execute("insert into texts values (?, ?, '')", (code, title))
        conn.close()
        return path

    with pytest.raises(CardDBError, match=r"big\.cdb: passcode 4242: field 'atk' .*at most 2147483647"):
        CardDB.from_cdb(cdb("big.cdb", (4242, 0x21, 1 << 40, "Big")))
    with pytest.raises(CardDBError, match=r"wide\.cdb: passcode 8589934592: field 'code'"):
        CardDB.from_cdb(cdb("wide.cdb", (1 << 33, 0x21, 100, "Wide")))
    with pytest.raises(CardDBError, match=r"long\.cdb: passcode 4243: field 'name' must be at most 256"):
        CardDB.from_cdb(cdb("long.cdb", (4243, 0x21, 100, "N" * 1000)))
    with pytest.raises(CardDBError, match=r"blob\.cdb: passcode b'xxxx.*column 'id'"):
        CardDB.from_cdb(cdb("blob.cdb", (b"x" * 10_000, 0x21, 100, "Blob")))


# == the command line =================================================================================

MALFORMED = {
    "64-bit": '{"kind": "turn_started", "turn": ' + "9" * 100 + "}",
    "passcode": '{"kind": "deck_registered", "player": 0, "main": [-1]}',
    "surrogate": '{"kind": "judge_note", "judge": "\\ud800", "note": "x"}',
    "damage-pair": '{"kind": "damage_calculated", "damage": [100]}',
    "three-sides": '{"kind": "position_set_up", "sides": [{}, {}, {}]}',
    "owner-5": '{"kind": "position_set_up", "sides": [{"hand": [{"code": 91152256, "owner": 5}]}, {}]}',
    "id-a-list": '{"kind": "position_set_up", "sides": [{"hand": [{"code": 91152256, "id": ["x"]}]}, {}]}',
    "code-a-string": '{"kind": "position_set_up", "sides": [{"mzone": [{"code": "91152256"}]}, {}]}',
    "counters": '{"kind": "position_set_up", "sides": [{"mzone": [{"code": 91152256, "counters": {"a": "b"}}]}, {}]}',
    "deep": "[" * 100_000 + "]" * 100_000,
    "long-number": '{"kind": "turn_started", "turn": ' + "9" * 5000 + "}",
    "long-line": '{"kind": "judge_note", "judge": "j", "note": "' + "x" * (2 * MB) + '"}',
}


@pytest.mark.parametrize("name", list(MALFORMED))
@pytest.mark.parametrize("command", ["check", "log"])
def test_the_command_line_names_the_line_and_exits_2(tmp_path: Path, name: str, command: str) -> None:
    path = tmp_path / f"{name}.jsonl"
    path.write_text('{"kind": "duel_started", "first_player": 0}\n' + MALFORMED[name] + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, [command, str(path)])
    assert result.exit_code == 2, result.output
    assert f"{path}:2: " in result.output and "Traceback" not in result.output
    assert len(result.output) < 1000


def test_the_command_line_refuses_an_oversized_duel_file(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as f:
        f.truncate(jsonl.MAX_FILE_SIZE + 1)
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 2 and "a duel file is at most" in result.output and "Traceback" not in result.output


def test_the_command_line_refuses_a_replay_bomb(tmp_path: Path) -> None:
    body = _names(YRPX_FLAGS) + struct.pack("<Q", MR5) + bytes(8 * MB)
    bomb = tmp_path / "bomb.yrpX"
    bomb.write_bytes(_file(yrpx.YRPX, YRPX_FLAGS, body))
    result = CliRunner().invoke(main, ["import", str(bomb), "-o", str(tmp_path / "out.ygr")])
    assert result.exit_code == 2, result.output
    assert "bomb.yrpX" in result.output and "more than 1,024 times the" in result.output
    assert "Traceback" not in result.output


def test_too_many_packets_after_real_ones_are_refused_where_the_one_too_many_starts() -> None:
    """Headers are counted once ``_COUNT_AFTER`` packets are read (a real stream never has that
    many): a stream of real-sized packets and then empty ones is refused at the header of packet
    MAX_PACKETS + 1, as a walk from the start would, with under a megabyte of packets built."""
    flags = YRPX_FLAGS & ~yrpx.REPLAY_COMPRESSED
    head = _names(flags) + struct.pack("<Q", MR5)
    full = bytes((yrpx.MSG_UPDATE_CARD,)) + struct.pack("<I", 60) + bytes(60)        # 65 bytes, like a state packet
    first = 10_000                                                              # more than _COUNT_AFTER
    stream = full * first + bytes(5 * (yrpx.MAX_PACKETS + 1 - first))
    refused = _refused_fast(_file(yrpx.YRPX, flags, head + stream), f"more than {yrpx.MAX_PACKETS:,} packets")
    assert refused.offset == len(head) + 65 * first + 5 * (yrpx.MAX_PACKETS - first)
    accepted = read_yrpx(_file(yrpx.YRPX, flags, head + stream[:-5]))
    assert len(accepted.packets) == yrpx.MAX_PACKETS and accepted.packets[first - 1].payload == bytes(60)



@pytest.mark.parametrize("tail, says, offset", [
    (b"\x02", "ends inside the length of packet 2 at body byte 118 (0 of 4 bytes left)", 119),
    (b"\x02\x07\x00\x00", "ends inside the length of packet 2 at body byte 118 (3 of 4 bytes left)", 119),
    (b"\x02\x07\x00\x00\x00abc", "ends inside packet 2 (announced 7 bytes) at body byte 118 (3 of 7 bytes left)", 123),
    (b"\x02\x07\x00\x00\x00abcdefg\x01", "ends inside the length of packet 1 at body byte 130 (0 of 4 bytes left)",
     131),
])
def test_a_stream_cut_inside_a_packet_says_which_and_where(tail: bytes, says: str, offset: int) -> None:
    """A stream whose last packet's 5-byte head or payload runs past the body's end is refused
    with the packet's id, its announced length, where it starts and how much was left."""
    flags = YRPX_FLAGS & ~yrpx.REPLAY_COMPRESSED
    head = _names(flags) + struct.pack("<Q", MR5) + _packet(yrpx.MSG_START, bytes(17))
    assert len(head) == 118
    with pytest.raises(YrpxError) as refused:
        read_yrpx(_file(yrpx.YRPX, flags, head + tail))
    assert says in str(refused.value) and refused.value.offset == offset and refused.value.space == "body"
