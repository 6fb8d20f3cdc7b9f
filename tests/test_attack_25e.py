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
    """The service's export of a duel whose duel_started names a player longer than a header
    holds: 400 saying why, not a signed file nobody can open."""
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
        appended = client.post(f"/duels/{duel}/events?expected=0", json=events,
                               headers={"Authorization": f"Bearer {tokens['recorder']}"})
        assert appended.status_code == 200, appended.text
        for view in ("judge", "spectator"):
            got = client.get(f"/duels/{duel}/replay.ygr?view={view}", headers={"Authorization": f"Bearer {tokens[view]}"})
            assert got.status_code == 400 and "no reader reads" in got.json()["error"], (view, got.status_code)


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
