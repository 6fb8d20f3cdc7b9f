"""Attack on the ninth pass of issue 25 (``replay_file.check_event`` at every write; the reader's
budgets relaxed to 144 KiB an event): what an import stores must leave the store again, and a
small file must not make the reader build far more than its size justifies."""
from __future__ import annotations

import contextlib
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

import ygoreplay.match.events  # noqa: F401  (the match kinds, for a match file's events)
from ygoreplay import replay_file
from ygoreplay.application import Records
from ygoreplay.cli import main
from ygoreplay.errors import InputError
from ygoreplay.events import from_dict
from ygoreplay.jsonl import dumps as jsonl_dumps, loads_events, read_events
from ygoreplay.replay_file import ReplayFile, ReplayFileError, dumps, loads
from ygoreplay.store import Store

REPLAYS = Path(__file__).resolve().parent.parent / "replays"
EVENTS = read_events(REPLAYS / "won-by-damage.jsonl")
GOOD = loads((REPLAYS / "won-by-damage.judge.ygr").read_bytes())
STARTED = EVENTS[0].to_dict()


@contextlib.contextmanager
def hostile_writer():
    """``dumps`` as a hostile writer's: without ``check_event`` and without keeping its body
    within ``EXPANSION`` times its compressed size (``_within_expansion``)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(replay_file, "check_event", lambda *args, **kwargs: None)
        patch.setattr(replay_file, "_within_expansion", lambda raw, packed, *args: packed)
        yield


def crafted(events, root: bytes = b"\x01" * 32, key=None, **fields) -> bytes:
    """A judge file of ``events`` as a hostile writer makes it (``hostile_writer``; every byte of
    it within what the reader reads), signed with ``key`` when given."""
    with hostile_writer():
        return dumps(ReplayFile(list(events), GOOD.cards, [GOOD.times[0]] * len(events), players=["a", "b"],
                                root=root, **fields), key)


@pytest.fixture
def records(tmp_path):
    with Store(str(tmp_path / "x.sqlite")) as store:
        yield Records(store)


def leaves_the_store(records: Records, duel: str) -> None:
    """The stored duel exports as a judge file that loads, and as JSON Lines that reads back."""
    stored = records.store.load(duel)
    assert len(loads(dumps(records.export(duel), records.store.key)).events) == len(stored.events)
    assert len(loads_events(jsonl_dumps(stored.events).encode("utf-8"))) == len(stored.events)


def import_refused(records: Records, data: bytes, *words: str, tmp_path: Path) -> None:
    """The library's import and the command line's refuse it saying ``words``; nothing stored."""
    with pytest.raises(InputError) as info:
        records.import_replay(loads(data), None, [], unsigned=True)
    for word in words:
        assert word in str(info.value), str(info.value)
    assert records.store.duels() == []
    path = tmp_path / "crafted.ygr"
    path.write_bytes(data)
    store = tmp_path / "cli.sqlite"
    result = CliRunner().invoke(main, ["import", str(path), "--unsigned", "--store", str(store)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and words[0] in result.output, result.output
    with Store(str(store)) as s:
        assert s.duels() == []


# -- imports: what a file carries in is held to what a file can carry out ------------------------------------

def test_an_imported_player_name_no_header_holds_is_refused(records, tmp_path):
    """The body's strings run to 65,536 characters, the header's to 4,096 bytes: a judge file whose
    duel_started names a player in 5,000 bytes was imported, and the duel never exported again."""
    events = [from_dict({**STARTED, "players": ["Yugi", "x" * 5000]}), *EVENTS[1:5]]
    import_refused(records, crafted(events), "event 0 (duel_started): players[1] is 5,000 bytes",
                   "at most 4,096", tmp_path=tmp_path)
    # a file written by a store from before the check (three names) still goes in and out
    three = [from_dict({**STARTED, "players": ["a", "b", "c"]}), *EVENTS[1:5]]
    done = records.import_replay(loads(crafted(three)), None, [], unsigned=True)
    leaves_the_store(records, done.id)


def test_the_upload_route_refuses_the_same(tmp_path):
    """POST /uploads of such a file, signed by the service's own key: 400 saying what, nothing stored."""
    from test_release import ADMIN, ORGANISER, digest
    from fastapi.testclient import TestClient
    from ygoreplay.service import create_app
    events = [from_dict({**STARTED, "players": ["Yugi", "x" * 5000]}), *EVENTS[1:5]]
    with Store(str(tmp_path / "s.sqlite"), concurrent=True) as store, \
            TestClient(create_app(store, digest(ADMIN))) as client:
        data = crafted(events, key=store.key)
        r = client.post("/uploads", content=data, headers=ORGANISER)
        assert r.status_code == 400, r.text
        assert "event 0 (duel_started): players[1] is 5,000 bytes" in r.json()["error"]
        assert store.duels() == []


def test_an_imported_event_past_what_a_file_holds_is_refused(records, tmp_path):
    """The reader bounds a body, not an event: one note of four 65,536-character strings of
    control characters (262 KB as msgpack) in a short duel was imported, and its JSON Lines
    export (1.5 MB on one line) never read back; a branch at it never exported."""
    text = "\x00" * 65536
    note = from_dict({"kind": "judge_note", "judge": text, "note": text, "cite": {"card": text, "effect": text}})
    padding = [from_dict({"kind": "judge_note", "judge": "j", "note": "n"})] * 5
    import_refused(records, crafted([*EVENTS[:5], note, *padding]), "event 5 (judge_note) takes",
                   f"at most {replay_file.MAX_EVENT_BYTES:,} bytes", tmp_path=tmp_path)


def test_an_imported_source_the_export_header_cannot_hold_is_refused(records, tmp_path):
    """A header's map holds 64 entries: an unsigned file whose source held 64 was imported, the
    store added ``unverified`` (65), and no export of the duel was ever possible."""
    data = crafted(list(EVENTS), source={f"k{i}": i for i in range(64)})
    import_refused(records, data, "source", tmp_path=tmp_path)
    fits = crafted(list(EVENTS), root=b"\x02" * 32, source={f"k{i}": i for i in range(63)})
    leaves_the_store(records, records.import_replay(loads(fits), None, [], unsigned=True).id)


def test_an_imported_header_at_the_readers_limit_is_refused_or_exports(records, tmp_path):
    """A header of almost 256 KiB (its source), imported under a title of 500 four-byte characters: the
    export's header adds the title, the duel's id and ``unverified``, past what a reader reads."""
    room = replay_file.MAX_HEADER - 1200
    inner = {f"k{i:02}": "s" * 4000 for i in range(60)}
    more = {f"k{i:02}": "s" * 4000 for i in range((room - 60 * 4008) // 4008)}
    more["last"] = "t" * min(4000, room - 4008 * (60 + len(more)))
    source = {"a": inner, "b": more}
    data = crafted(list(EVENTS), source=source, match={"title": "m" * 400})
    try:
        done = records.import_replay(loads(data), "😀" * 500, [], unsigned=True)
    except InputError as exc:
        assert "header" in str(exc), str(exc)
        return
    leaves_the_store(records, done.id)


# -- bombs: what a small file makes the reader build ------------------------------------------------------

def _match_bomb(games: int) -> bytes:
    """A match file of ``games`` copies of one 2 KB duel file that expands to 4 MB: the copies
    compress to nothing in the match's body, and each is read on its own budget."""
    note = from_dict({"kind": "judge_note", "judge": "j", "note": "x" * 65536})
    duel = [*EVENTS[:5], *[note] * 60]
    with hostile_writer():
        inner = dumps(ReplayFile(duel, GOOD.cards, [GOOD.times[0]] * len(duel), players=["a", "b"]))
        assert len(inner) < 4096
        started = [from_dict({"kind": "game_started", "game": i + 1, "duel": "d", "first_player": 0})
                   for i in range(games)]
        match = ReplayFile(started, GOOD.cards, [GOOD.times[0]] * games, players=["a", "b"], match={"kind": "match"})
        match.games = [inner] * games
        return dumps(match)


def test_a_match_file_of_copies_of_one_large_duel_is_refused_fast_with_little_memory(tmp_path):
    """200 copies: a 4 KB match file took 800 MB and 3 s to open (2,000: 8 GB); now 1.4 MB."""
    from ygoreplay.card_sources import card_lookup
    from ygoreplay.match.files import open_match, verify_games
    data = _match_bomb(200)
    assert len(data) < 8192
    path = tmp_path / "bomb.ygr"
    path.write_bytes(data)
    tracemalloc.start()
    try:
        with pytest.raises(ReplayFileError) as info:
            verify_games(open_match(path, card_lookup(())).replay, [])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "games" in str(info.value), str(info.value)
    assert peak < 40 << 20, f"{peak / 1e6:.0f} MB"
    result = CliRunner().invoke(main, ["show", str(path)])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    # one such duel is within what a small file may expand to: it opens
    one = tmp_path / "one.ygr"
    one.write_bytes(_match_bomb(1))
    assert len(open_match(one, card_lookup(())).duels) == 1


def _ygr_with_body(raw: bytes, **header_changes) -> bytes:
    """A judge file whose body is ``raw`` (any msgpack), its header declaring what is given."""
    import lzma
    import struct
    import zlib
    import msgpack
    data = dumps(GOOD)
    header = msgpack.unpackb(data[16:16 + struct.unpack_from("<I", data, 12)[0]])
    header.update(size=len(raw), **header_changes)
    packed = lzma.compress(raw, format=lzma.FORMAT_RAW,
                           filters=[{"id": lzma.FILTER_LZMA2, "preset": 9, "dict_size": header["dict"]}])
    head = msgpack.packb(header)
    return b"".join((replay_file.MAGIC, struct.pack("<HHI", 3, 0, len(head)), head,
                     struct.pack("<II", len(packed), zlib.crc32(packed)), packed))


def test_a_kilobyte_declaring_many_events_builds_little():
    """935 bytes declaring 100,000 events: 3.6 MB of two-character strings (20x their bytes as
    Python objects) under the 4 MiB expansion floor: 75 MB before the body's counts are checked."""
    chunk = b"\xdd" + (200_000).to_bytes(4, "big") + b"\xa2ab" * 200_000
    raw = b"\x81\xa6events" + b"\xdc" + (6).to_bytes(2, "big") + chunk * 6
    data = _ygr_with_body(raw, events=100_000)
    assert len(data) < 2048
    _, peak = refused_reading(data)
    assert peak < 40 << 20, f"{peak / 1e6:.0f} MB from a file of {len(data)} bytes"


def refused_reading(data: bytes) -> tuple[ReplayFileError, int]:
    """``loads`` refuses ``data``: the error and the peak of memory (tracemalloc). No time is
    asserted: what the reader builds is bounded by its memory, and a wall clock on a shared
    machine is not a test (21.5 s once under load, for a file refused in 0.5 s alone)."""
    tracemalloc.start()
    try:
        with pytest.raises(ReplayFileError) as info:
            loads(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return info.value, peak


def _padded_declaring_bomb(held: bool) -> bytes:
    """1.5 MB: a binary of random bytes (lifting the 16x expansion bound to 24 MB) beside ~18 MB of
    empty lists, 100,000 events and 100,000 cards declared; ``held``: the body holds them too
    (each an empty map), so only the budget tied to the compressed size is left to bound it."""
    import os
    import msgpack
    junk = (b"\xdd" + (300_000).to_bytes(4, "big") + b"\x90" * 300_000) * 60
    parts = [msgpack.packb("pad"), msgpack.packb(os.urandom(1_500_000)),
             msgpack.packb("junk"), b"\xdd" + (60).to_bytes(4, "big") + junk]
    if held:
        many = b"\xdd" + (100_000).to_bytes(4, "big")
        for key, item in (("events", b"\x80"), ("dt", b"\x00"), ("cards", b"\x80")):
            parts += [msgpack.packb(key), many + item * 100_000]
    raw = bytes([0x80 | len(parts) // 2]) + b"".join(parts)
    return _ygr_with_body(raw, events=100_000, cards=100_000)


@pytest.mark.parametrize("held", [False, True], ids=["declared", "held"])
def test_a_megabyte_of_padding_declaring_many_events_and_cards_builds_little_fast(held):
    """1.9 GB and 37-58 s: the value budget (64 a declared event, 256 a declared card, one per 2
    expanded bytes) trusted the counts until the body was built. Now the body's lists are counted
    before anything is built (each grants its share only if held), and its values are held to its
    compressed size."""
    data = _padded_declaring_bomb(held)
    assert len(data) < 1_600_000
    error, peak = refused_reading(data)
    assert "values its declared size allows" in str(error), str(error)
    assert peak < (160 << 20 if not held else 240 << 20), f"{peak / 1e6:.0f} MB from a file of {len(data)} bytes"


# -- branches: a duel's first events, and the card facts they name ------------------------------------------

def test_a_branch_whose_card_facts_no_file_of_its_events_holds_is_refused(records):
    """An imported file's card facts are its own, effect facts with them: one deck card with
    480 KB of them, in a duel of 85 events, exported; its branch at event #1 (the decks) was
    stored, and no export of it was possible (a reader reads 64 KiB, 144 KiB an event, 1 KiB a card)."""
    from ygoreplay.effect_facts import EffectFact
    card = sorted(set(EVENTS[1].main))[0]
    heavy = GOOD.cards.with_effects({card: tuple(EffectFact(code="x" * 60000, count_code=str(i)) for i in range(8))})
    events = [*EVENTS[:5], *[from_dict({"kind": "judge_note", "judge": "j", "note": "n"})] * 80]
    data = dumps(ReplayFile(events, heavy, [GOOD.times[0]] * len(events), players=["a", "b"], root=b"\x03" * 32))
    duel = records.import_replay(loads(data), None, [], unsigned=True).id
    leaves_the_store(records, duel)
    before = len(records.store.duels())
    with pytest.raises(InputError, match="could never be exported"):
        records.branch(duel, 1)
    assert len(records.store.duels()) == before
    leaves_the_store(records, records.branch(duel, 84))           # the whole of it: a file holds it


# -- a match: its duel files are its body's own --------------------------------------------------------------

def test_a_match_whose_duel_carries_long_notes_exports_and_loads_back(tmp_path):
    """Each of 40 notes of 65,000 random characters was appended (within 144 KiB an event) and the
    duel exported; the match file carrying that duel's file did not (its body past 64 KiB and 144
    KiB each of the match's 8 events: a duel file counted as if it were the match's events)."""
    import json
    import random
    import shutil
    import string
    from ygoreplay.card_sources import card_lookup
    from ygoreplay.match.files import match_replay, open_match
    from ygoreplay.signing import OrganiserKey
    matches = REPLAYS / "matches"
    (tmp_path / "duels").mkdir()
    shutil.copy(matches / "two-nil.jsonl", tmp_path)
    shutil.copy(matches / "duels" / "g2-kaiba-surrenders.jsonl", tmp_path / "duels")
    lines = (matches / "duels" / "g1-yugi-wins.jsonl").read_text().splitlines()
    pick = random.Random(1).choices
    notes = [json.dumps({"kind": "judge_note", "judge": "j", "note": "".join(pick(string.ascii_letters, k=65_000))})
             for _ in range(40)]
    (tmp_path / "duels" / "g1-yugi-wins.jsonl").write_text("\n".join(lines[:-1] + notes + lines[-1:]) + "\n")
    key = OrganiserKey.generate()
    match = open_match(tmp_path / "two-nil.jsonl", card_lookup(()))
    data = dumps(match_replay(match, key), key)
    back = loads(data)
    assert len(back.games) == 2 and len(loads(back.games[0]).events) == len(match.duels[1].events)


def test_a_body_past_a_megabyte_expands_in_place_to_exactly_what_it_declares():
    """Past 1 MiB a body is decompressed into its declared size a megabyte at a time: the same
    bytes, and past that size, short of it or cut short refused as at once."""
    import lzma
    import os
    raw = os.urandom(1 << 19) * 5
    filters = replay_file._filters(1 << 22)
    packed = lzma.compress(raw, format=lzma.FORMAT_RAW, filters=filters)
    assert bytes(replay_file._expand(packed, 0, len(raw), filters, exact=True)) == raw
    for bound in (len(raw) - 1, len(raw) - (1 << 20)):
        with pytest.raises(ReplayFileError, match="expands past"):
            replay_file._expand(packed, 0, bound, filters, exact=True)
    with pytest.raises(ReplayFileError, match="cut short"):
        replay_file._expand(packed[:-1000], 0, len(raw), filters, exact=True)
    assert len(replay_file._expand(packed, 0, len(raw) + 5, filters, exact=True)) == len(raw)   # _read refuses it
