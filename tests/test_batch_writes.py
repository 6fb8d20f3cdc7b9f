"""``import FOLDER -o OUT`` as a batch (issue 25): each file is still written whole or not at all
(its data durable before its rename), but a group of files is synced at once (one ``syncfs``)
and their folder once, not twice a file; and its files are compressed at ``BATCH_PRESET``, which
every reader reads as it reads the committed samples (written at ``PRESET``)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import shared_path

import ygoreplay.files as files
from ygoreplay.application import import_replay_files
from ygoreplay.exchange import make_replay
from ygoreplay.jsonl import read_events
from ygoreplay.replay_file import BATCH_PRESET, PRESET, dumps, loads, read, write, write_pending
from ygoreplay.signing import OrganiserKey

from duel import CARDS


@pytest.fixture
def synced(monkeypatch) -> list:
    """What ``files`` synced (after syncing it): folders, and ("fs", path) for a whole file system."""
    calls: list = []
    folder, file_system = files._sync_folder, files._sync_file_system
    monkeypatch.setattr(files, "_sync_folder", lambda path: (calls.append(path), folder(path))[1])
    monkeypatch.setattr(files, "_sync_file_system", lambda path: (calls.append("fs"), file_system(path))[1])
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
    assert synced == ["fs", out]
    assert sorted(os.listdir(out)) == sorted(t.name for t in targets)
    for target, outcome in zip(targets, outcomes):
        assert len(read(target).events) == outcome.events_read


def test_a_batch_file_reads_as_a_file_written_alone(tmp_path):
    events = read_events(Path(__file__).resolve().parent.parent / "replays" / "won-by-damage.jsonl")
    replay = make_replay(events, ["2026-01-01T00:00:00Z"] * len(events), CARDS, "judge", b"r" * 32, b"s" * 32,
                         {"title": "t"})
    key = OrganiserKey.generate()
    alone, batch = tmp_path / "alone.ygr", tmp_path / "batch.ygr"
    write(alone, replay, key)
    assert files.commit([write_pending(batch, replay, key)]) == {}
    assert alone.read_bytes() == dumps(replay, key, preset=PRESET) != batch.read_bytes()
    assert read(alone).wire_events() == read(batch).wire_events() == loads(dumps(replay, preset=BATCH_PRESET)).wire_events()


def test_a_batch_file_is_not_there_until_committed_and_then_whole(tmp_path, synced):
    pending = [files.write_pending(tmp_path / f"{n}.bin", bytes([n]) * 1000) for n in range(3)]
    assert sorted(os.listdir(tmp_path)) == sorted(Path(temp).name for temp, _ in pending)   # temporaries only
    assert synced == []
    assert files.commit(pending) == {}
    assert sorted(os.listdir(tmp_path)) == ["0.bin", "1.bin", "2.bin"] and synced == ["fs", tmp_path]
    assert (tmp_path / "2.bin").read_bytes() == bytes([2]) * 1000


def test_a_batch_that_cannot_rename_one_file_says_so_and_leaves_nothing_of_it(tmp_path):
    pending = [files.write_pending(tmp_path / name, b"x") for name in ("a", "b")]
    (tmp_path / "b").mkdir()                      # a folder in the way, after the file was written
    failed = files.commit(pending)
    assert list(failed) == [tmp_path / "b"] and "cannot write" in failed[tmp_path / "b"]
    assert sorted(os.listdir(tmp_path)) == ["a", "b"] and (tmp_path / "a").read_bytes() == b"x"


def test_import_with_workers_commits_every_file(tmp_path):
    replays = sorted(shared_path("real-replays", "edopro").glob("*.yrpX"))[:4]
    targets = [tmp_path / (path.stem + ".ygr") for path in replays]
    outcomes = list(import_replay_files(replays, targets, None, None, key=OrganiserKey.generate(), jobs=2))
    assert [o.error for o in outcomes] == [None] * 4 and all(o.pending is None for o in outcomes)
    assert sorted(os.listdir(tmp_path)) == sorted(t.name for t in targets)


def test_a_batch_never_writes_through_a_link_planted_in_its_folder(tmp_path):
    """The names of a folder's imports are the importer's own, in a folder others may write to:
    a symbolic link planted under one of them must not have the batch overwrite what it points
    at (a file written alone, a name the user gave, still writes through a link)."""
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"keep me")
    out = tmp_path / "out"
    out.mkdir()
    (out / "game.ygr").symlink_to(victim)
    with pytest.raises(files.InputError, match="a symbolic link; a file of a batch is never written through one"):
        files.write_pending(out / "game.ygr", b"forged")
    assert victim.read_bytes() == b"keep me" and sorted(os.listdir(out)) == ["game.ygr"]
