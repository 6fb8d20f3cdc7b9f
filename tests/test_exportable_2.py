"""Nothing recorded is lost, whole duels (issue 25, tenth pass): a duel the store takes exports
as a file its reader reads back however far its body compresses (``replay_file.dumps`` stores
its last bytes as they are past ``EXPANSION`` times), and what no file holds of a whole duel
(``MAX_EVENTS`` events, ``MAX_STORED`` bytes of records, ``MAX_CARDS`` cards) is refused at
append naming the limit, by running totals (``Store._write``)."""
from __future__ import annotations

import lzma
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from ygoreplay import replay_file
from ygoreplay.application import Records
from ygoreplay.cards import CardDB
from ygoreplay.errors import InputError
from ygoreplay.events import from_dict
from ygoreplay.jsonl import read_events
from ygoreplay.rules import RuleViolation
from ygoreplay.replay_file import EXPANSION, ReplayFile, dumps, loads
from ygoreplay.store import Store

from test_store import fresh_url

REPLAYS = Path(__file__).resolve().parent.parent / "replays"
OPENING = read_events(REPLAYS / "won-by-damage.jsonl")[:5]


def note(text: str) -> object:
    return from_dict({"kind": "judge_note", "judge": "j", "note": text})


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    with Store(str(tmp_path_factory.mktemp("store") / "x.sqlite")) as store:
        yield Records(store)


def with_notes(records: Records, *notes: str) -> str:
    duel = records.store.create_duel("t")
    records.append(duel, [*OPENING, *(note(n) for n in notes)])
    return duel


def test_a_duel_of_notes_of_one_character_exports_and_loads_back(records):
    """80 notes of 60,000 'x': 4.8 MB of body in 2 KB of LZMA, past the reader's 16 times (and
    its 4 MiB floor): the store took it and its export was refused."""
    duel = with_notes(records, *["x" * 60_000] * 80)
    stored = records.store.load(duel)
    for view in ("judge", "spectator"):
        data = dumps(records.export(duel, view), records.store.key)
        back = loads(data)
        assert [e.to_dict() for e in back.events] == [e.to_dict() for e in records.export(duel, view).events]
        assert len(back.events) == len(stored.events)
        assert replay_file.read_header(data)[0]["size"] <= EXPANSION * len(data)
    assert dumps(records.export(duel, "spectator"), records.store.key) == data      # reproducible


def test_the_stored_bytes_are_plain_lzma2():
    """What a reader of any version (or liblzma alone) decompresses: the body as written."""
    replay = ReplayFile([*OPENING, note("y" * 60_000)] * 1, CardDB(), ["2026-01-01T00:00:00.000+00:00"] * 6)
    data = dumps(replay)
    header, at = replay_file.read_header(data)
    size = int.from_bytes(data[at:at + 4], "little")
    body = lzma.decompress(data[at + 8:at + 8 + size], format=lzma.FORMAT_RAW,
                           filters=[{"id": lzma.FILTER_LZMA2, "dict_size": header["dict"]}])
    assert len(body) == header["size"] <= EXPANSION * size


def test_a_match_file_of_duels_that_compress_far_loads_back(records):
    """Three duels of 3 MB of notes each (under the 4 MiB floor, alone they loaded): a match
    file bounds its duels together by its own size, and refused the three, each 16 times over."""
    duel = with_notes(records, *["z" * 60_000] * 50)
    game = dumps(records.export(duel), records.store.key)
    match = ReplayFile([], CardDB(), [], "judge", match={"kind": "match"}, games=[game] * 3)
    assert loads(dumps(match)).games == [game] * 3


_CHAR = st.characters(blacklist_categories=("Cs",))


@settings(max_examples=int(os.environ.get("EXPORTABLE_EXAMPLES", 6)), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(char=_CHAR, length=st.integers(1, 65_536), count=st.integers(0, 40))
@example(char="x", length=65_536, count=70)             # what main stored, never exported
def test_notes_of_any_one_character_export_and_load_back(records, char, length, count):
    """Whatever notes of one character append takes, every view of the duel exports and loads back."""
    try:
        duel = with_notes(records, *[char * length] * count)
    except InputError as exc:
        assert str(exc).startswith("event "), str(exc)
        return
    except RuleViolation:                 # a blank note (MATCH-08)
        return
    for view in ("judge", "spectator"):
        assert len(loads(dumps(records.export(duel, view), records.store.key)).events) == 5 + count


# -- what no file holds of a whole duel: refused at append -----------------------------------------------

def test_the_event_past_a_files_limit_is_refused_naming_it(tmp_path):
    """The 100,001st event was stored, and no export of the duel was possible (its header past
    ``MAX_EVENTS``)."""
    with Store(str(tmp_path / "s.sqlite")) as store:
        duel = store.create_duel("t")
        Records(store).append(duel, [*OPENING, *[note("n")] * (replay_file.MAX_EVENTS - 5)])
        with pytest.raises(InputError, match=r"event 100000 \(judge_note\): a replay file holds at most 100,000 "
                                             r"events: the duel could not be exported; nothing was written"):
            Records(store).append(duel, [note("one more")])
        assert store.info(duel).events == replay_file.MAX_EVENTS


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_records_past_a_files_body_are_refused_by_a_running_total_and_after_reopening(tmp_path, backend):
    """349 notes of 48,000 '€' (144 KB each, within ``MAX_EVENT_BYTES``) take 50 MB: the store
    took notes up to any size, past the 64 MiB no reader expands; it refuses the one that
    passes ``MAX_STORED``, in the process that holds the duel and in one that opens it anew."""
    with fresh_url(backend, tmp_path / "s.sqlite", "exportall") as path:
        refused_past_the_body(path)


def refused_past_the_body(path: str) -> None:
    long = note("€" * 48_000)
    with Store(path) as store:
        duel = store.create_duel("t")
        Records(store).append(duel, [*OPENING, *[long] * 349])
        with pytest.raises(InputError, match=r"event 354 \(judge_note\): the duel's records would take 50,\d{3},\d{3} "
                                             r"bytes; a replay file's body holds at most 67,108,864"):
            Records(store).append(duel, [long])
        Records(store).append(duel, [note("small")])      # the refused append left nothing behind
        assert store.info(duel).events == 355
    with Store(path) as store:                      # its rows' bytes summed by the database
        with pytest.raises(InputError, match="the duel's records would take 50,"):
            Records(store).append(duel, [long])
        Records(store).append(duel, [note("small")])
        assert store.info(duel).events == 356


def test_more_cards_than_a_file_holds_are_refused(records, monkeypatch):
    """(Scaled down: the store's card database holds 13,000 cards, a file 100,000.)"""
    monkeypatch.setattr(replay_file, "MAX_CARDS", 19)        # the opening names 20 (the store reads the limit there)
    with pytest.raises(InputError, match=r"the facts of 20 cards; a replay file holds at most 19"):
        with_notes(records)
