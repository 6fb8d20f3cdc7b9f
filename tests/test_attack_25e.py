"""Issue 25 attacked (sixth pass): events built through a kind's twin, a follower's read built
trusted after its chain is checked, the importer's note through a weak reference, ``dumps``
signing without reading its header back. Each test is an attack that broke something, kept once
fixed (what held is said in the report, not tested twice)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from ygoreplay.cards import CardDB
from ygoreplay.jsonl import read_events
from ygoreplay.replay_file import ReplayFile, ReplayFileError, dumps, loads
from ygoreplay.signing import OrganiserKey

ROOT = Path(__file__).resolve().parent.parent
DAMAGE = ROOT / "replays" / "won-by-damage.jsonl"


# -- a replay file's header: never signed when no reader reads it ------------------------------------

def _replay(**header) -> ReplayFile:
    events = list(read_events(DAMAGE))[:12]
    return ReplayFile(events, CardDB.classic(), ["2026-01-01T00:00:00.000+00:00"] * len(events), **header)


@pytest.mark.parametrize("header", [
    {"players": ["x" * 5000, "Kaiba"]},                    # a string past the header's 4,096 characters
    {"players": [f"p{i}" for i in range(70)]},             # a list past its 64 items
    {"match": {f"k{i}": i for i in range(65)}},            # a map past its 64 keys
    {"source": {f"k{i}": list(range(64)) for i in range(64)}},   # past the 4,096 values a header holds
])
@pytest.mark.parametrize("signed", [True, False])
def test_a_header_no_reader_reads_is_refused_when_written_not_signed(header, signed):
    """``dumps`` signed what ``sign`` had read back and checked (``read_header``); since it adds
    the signature without reading the header it built, a header past the reader's limits (a
    recorder's duel_started naming a 5,000-character player) was written and signed, a file
    every reader then refused: ``GET /duels/{id}/replay.ygr`` answered 200 with it where it
    answered 400 before. Refused when written, signed or not, saying why."""
    key = OrganiserKey.generate() if signed else None
    with pytest.raises(ReplayFileError, match="cannot be written as a replay file.*no reader reads"):
        dumps(_replay(**header), key)


def test_a_header_at_the_readers_limits_is_still_written_and_read():
    replay = _replay(players=["x" * 4096, "y"], match={f"k{i}": i for i in range(64)})
    assert loads(dumps(replay, OrganiserKey.generate())).players == ["x" * 4096, "y"]


def test_the_service_refuses_the_file_of_a_duel_whose_header_no_reader_reads(tmp_path, monkeypatch):
    """A duel_started naming a player longer than a header holds is refused at the append now
    (``check_event``), and the export of such a duel stored before that check (the check
    switched off to store it) is still a 400 saying why, not a signed file nobody can open."""
    from fastapi.testclient import TestClient

    from ygoreplay.access import digest
    from ygoreplay.service import create_app
    from ygoreplay.store import Store
    admin = "organiser-test-token-0123456789abcdef0123456789"
    monkeypatch.setenv("YGOREPLAY_HOME", str(tmp_path))
    lines = [json.loads(line) for line in DAMAGE.read_text().splitlines() if line.strip() and not line.startswith("#")]
    events = [dict(lines[0], players=["x" * 5000, "Kaiba"])] + lines[1:12]
    with Store(str(tmp_path / "duels.sqlite"), concurrent=True) as store, \
            TestClient(create_app(store, digest(admin))) as client:
        made = client.post("/duels", json={"title": "long names"}, headers={"Authorization": f"Bearer {admin}"})
        duel, tokens = made.json()["id"], made.json()["tokens"]
        refused = client.post(f"/duels/{duel}/events?expected=0", json=events,
                              headers={"Authorization": f"Bearer {tokens['recorder']}"})
        assert refused.status_code == 400 and "players[0] is 5,000 bytes" in refused.json()["error"], refused.text
        with monkeypatch.context() as old_store:
            old_store.setattr("ygoreplay.replay_file.check_event", lambda *args: None)
            appended = client.post(f"/duels/{duel}/events?expected=0", json=events,
                                   headers={"Authorization": f"Bearer {tokens['recorder']}"})
        assert appended.status_code == 200, appended.text
        for view in ("judge", "spectator"):
            got = client.get(f"/duels/{duel}/replay.ygr?view={view}", headers={"Authorization": f"Bearer {tokens[view]}"})
            assert got.status_code == 400 and "cannot be written as a replay file" in got.json()["error"], (view, got.status_code)


# -- a half-built event: never reachable from the error of a record that does not build -------------

def _reachable_from(error: BaseException) -> list[object]:
    """The locals of every frame of ``error``'s traceback and of every exception it was raised
    while handling (what a crash reporter that captures locals walks and prints)."""
    found: list[object] = []
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        frame = error.__traceback__
        while frame is not None:
            found += list(frame.tb_frame.f_locals.values())
            frame = frame.tb_next
        error = error.__context__
    return found


@pytest.mark.parametrize("compiled", [False, True])
def test_a_record_that_does_not_build_trusted_leaves_no_half_built_event_behind_its_error(compiled):
    """A rechained record whose scalar has the wrong type makes the trusted maker raise half way,
    then goes through ``from_dict``, whose EventFormatError was raised while the maker's error was
    being handled: its context's traceback held the maker's frame, and in it the event half
    built (a twin of the kind, its slots past the bad one unset: mutable, of a class no code
    names), alive as long as the error is, for a crash reporter to find and print. Now the error
    holds no frame of the failed maker."""
    from ygoreplay import events
    from ygoreplay.events import EVENT_TYPES, EventFormatError, from_trusted_dict
    wire = next(e.to_dict() for e in read_events(DAMAGE) if e.kind == "card_moved")
    for _ in range(events._COMPILE_AFTER + 1 if compiled else 0):
        from_trusted_dict(wire)
    with pytest.raises(EventFormatError, match="card_moved.reason") as refused:
        from_trusted_dict({**wire, "reason": 7}, "duel x event 3")
    kinds = set(EVENT_TYPES.values()) | set(events._TWINS.values())
    assert not [value for value in _reachable_from(refused.value) if type(value) in kinds]


# -- a follower's read: nothing past the last signed anchor reaches the trusted decoder --------------

def _forged_past_the_head(url: str, duel: str, forged: list) -> None:
    """Rows appended after the duel's head, each rechained onto the one before it, as a forger
    with the database (not the organiser's key) can: no signed anchor names them."""
    import sqlite3

    import msgpack

    from ygoreplay import chain
    with sqlite3.connect(url) as conn:
        last, state = conn.execute("SELECT originator_version, state FROM stored_events WHERE originator_id = ? "
                                   "ORDER BY originator_version DESC LIMIT 1", (duel,)).fetchone()
        envelope = msgpack.unpackb(state)
        prev, recorded = envelope["h"], envelope["t"]
        for version, event in enumerate(forged, last + 1):
            digest = chain.link(prev, version - 1, event, recorded)
            conn.execute("INSERT INTO stored_events (originator_id, originator_version, topic, state) VALUES (?, ?, ?, ?)",
                         (duel, version, "event", msgpack.packb({"e": event, "t": recorded, "p": prev, "h": digest})))
            prev = digest


def _appended(tmp_path, monkeypatch) -> tuple[str, str, int]:
    from ygoreplay.store import Store
    monkeypatch.setenv("YGOREPLAY_HOME", str(tmp_path))
    url = str(tmp_path / "duels.sqlite")
    with Store(url) as store:
        duel = store.create_duel("forged tail")
        store.append(duel, list(read_events(DAMAGE))[:10])
    return url, duel, 10


def test_a_row_past_the_head_that_is_not_even_an_envelope_keeps_no_follower_from_the_vouched_ones(tmp_path,
                                                                                                  monkeypatch):
    """The same for a row whose bytes are no msgpack map at all: the read raised StoreError (as
    before the sixth pass) where such a row follows no chain."""
    import sqlite3

    from ygoreplay.store import Store
    url, duel, count = _appended(tmp_path, monkeypatch)
    with sqlite3.connect(url) as conn:
        conn.execute("INSERT INTO stored_events (originator_id, originator_version, topic, state) VALUES (?, ?, ?, ?)",
                     (duel, count + 1, "event", b"\xc1 not msgpack"))
    with Store(url) as reader:
        read, broken = reader.chained_after(duel, 0, reader.header(duel).root)
    assert [r.event for r in read] == list(read_events(DAMAGE))[:count] and broken == count


def test_records_no_signed_anchor_vouches_for_never_fill_the_trusted_decoders_caches(tmp_path, monkeypatch):
    """``chained_after`` built every record that follows the chain trusted and only then cut those
    past the last signed anchor: a forger's rows rechained after the head went through the trusted
    decoder, which keeps a maker per record shape (at most ``_SHAPES_MAX``) and a ``Loc`` per
    location (``_LOCS_MAX``). 1,024 rows of new shapes read once by a follower filled the shapes
    for good, and from then on every record of a shape not yet kept, of any duel, compiled its
    maker again: a trusted decode of the replays/ duels went from 0.8 to 96 us an event. Now
    only the records the signed anchors vouch for are built."""
    from ygoreplay import events
    from ygoreplay.store import reading as store_reading
    from ygoreplay.store import Store
    built: list = []

    def trusted(data, where=""):
        built.append(data)
        return events.from_trusted_dict(data, where)
    monkeypatch.setattr(store_reading, "from_trusted_dict", trusted)
    url, duel, count = _appended(tmp_path, monkeypatch)
    forged = [{"kind": "turn_started", "player": 0, "turn": 2, f"forged{i}": 0} for i in range(40)]
    forged.append({"kind": "card_moved", "card": "p0.m1", "to": [1, "gy", 987654321], "reason": "destroyed"})
    _forged_past_the_head(url, duel, forged)
    with Store(url) as reader:
        read, broken = reader.chained_after(duel, 0, reader.header(duel).root)
    assert [r.position for r in read] == list(range(count)) and broken == count
    assert len(built) == count and not [data for data in built if data.get("to") == [1, "gy", 987654321]
                                        or any(key.startswith("forged") for key in data)]
    assert not [shape for shape in events._SHAPED if any(key.startswith("forged") for key in shape[2])]
    assert (1, "gy", 987654321) not in events._LOCS


@pytest.mark.parametrize("forged", [{"kind": "no_such_kind"}, [1, 2, 3],
                                    {"kind": "card_moved", "card": "p0.m1", "to": [0, "zz"], "reason": "drawn"}])
def test_a_forged_record_past_the_last_signed_anchor_keeps_no_follower_from_the_vouched_ones(tmp_path, monkeypatch,
                                                                                            forged):
    """A forger's row after the head that does not decode made the whole read raise StoreError:
    a follower behind (another process appended, signed and notified) was sent none of the
    vouched events before it (the hub dropped the read). Now those are read, and nothing from
    the forged row on, as for any record no signed anchor vouches for."""
    from ygoreplay.store import Store
    url, duel, count = _appended(tmp_path, monkeypatch)
    _forged_past_the_head(url, duel, [forged])
    with Store(url) as reader:
        root = reader.header(duel).root
        read, broken = reader.chained_after(duel, 0, root)
        assert [r.event for r in read] == list(read_events(DAMAGE))[:count] and broken == count
        assert reader.chained_after(duel, count, read[-1].hash) == ([], count)
