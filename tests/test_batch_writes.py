"""``import FOLDER -o OUT`` as a batch (issue 25): each file is still written whole or not at all
(its data synced before its rename), but the folder that makes the renames durable is synced once
for the batch, not once a file; and its files are compressed at ``BATCH_PRESET``, which every
reader reads as it reads the committed samples (written at ``PRESET``)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import shared_path

import ygoreplay.files as files
from ygoreplay.application import import_replay_files
from ygoreplay.exchange import make_replay
from ygoreplay.jsonl import read_events
from ygoreplay.replay_file import BATCH_PRESET, PRESET, dumps, loads, read, write
from ygoreplay.signing import OrganiserKey

from duel import CARDS


@pytest.fixture
def synced(monkeypatch) -> list:
    """The folders ``files`` synced (after syncing them)."""
    calls: list = []
    real = files._sync_folder
    monkeypatch.setattr(files, "_sync_folder", lambda folder: (calls.append(folder), real(folder)))
    return calls


def test_a_file_written_alone_syncs_its_folder(tmp_path, synced):
    files.write_atomic(tmp_path / "one", b"data")
    assert synced == [tmp_path] and (tmp_path / "one").read_bytes() == b"data"


def test_a_folder_import_syncs_its_folder_once(tmp_path, synced):
    replays = sorted(shared_path("real-replays", "edopro").glob("*.yrpX"))[:3]
    out = tmp_path / "out"
    targets = [out / (path.stem + ".ygr") for path in replays]
    outcomes = list(import_replay_files(replays, targets, None, None, key=OrganiserKey.generate()))
    assert [o.error for o in outcomes] == [None] * 3 and all(t.is_file() for t in targets)
    assert synced == [out]
    assert not [name for name in os.listdir(out) if name.endswith(".part")]
    for target, outcome in zip(targets, outcomes):
        assert len(read(target).events) == outcome.events_read


def test_a_batch_file_reads_as_a_file_written_alone(tmp_path):
    events = read_events(Path(__file__).resolve().parent.parent / "replays" / "won-by-damage.jsonl")
    replay = make_replay(events, ["2026-01-01T00:00:00Z"] * len(events), CARDS, "judge", b"r" * 32, b"s" * 32,
                         {"title": "t"})
    key = OrganiserKey.generate()
    alone, batch = tmp_path / "alone.ygr", tmp_path / "batch.ygr"
    write(alone, replay, key)
    write(batch, replay, key, batch=True)
    assert alone.read_bytes() == dumps(replay, key, preset=PRESET) != batch.read_bytes()
    assert read(alone).wire_events() == read(batch).wire_events() == loads(dumps(replay, preset=BATCH_PRESET)).wire_events()
