"""Snapshots signed with their group commit (issue 25, twenty-second pass), on SQLite and
PostgreSQL: the snapshots an append makes are leaves of its group's Merkle tree, with its anchors
and receipts, under the group's one signature (an Ed25519 signature a snapshot was ~55 µs). Each
keeps its audit path; a reader that holds only the public key checks the path and the signature,
``verify`` too; a path altered is not vouched for (the snapshot is not used, ``verify`` says so);
an append written apart from its failed group has its snapshots signed again alone. Snapshots
signed alone (every one written before) are read as ever (test_snapshot_mac.py). Nothing here is timed.
"""
from __future__ import annotations

import pytest

from duel import snapshot
from test_group_commit import _held_group, url  # noqa: F401
from test_group_signature import signs  # noqa: F401
import test_snapshot_mac as snapshot_mac
from test_snapshot_mac import checks  # noqa: F401
from test_store import DECK_OUT, sample
from ygoreplay import signing
from ygoreplay.store import _GROUP_LABEL, SNAPSHOT_EVERY, Store

AT = SNAPSHOT_EVERY


@pytest.fixture
def writer(url):
    with Store(url, concurrent=True) as store:
        yield store


def stored_snapshot(url: str, duel: str) -> dict:
    return snapshot_mac.stored_snapshot(url, duel, AT)


def _grouped(writer: Store, signs: list[bytes], n: int = 4) -> list[str]:
    """``n`` duels one event short of their first snapshot, whose next appends are written as one
    held append and then one group of the others; ``signs`` (``test_group_signature``'s) keeps
    the messages signed meanwhile."""
    events = sample(DECK_OUT)
    duels = [writer.create_duel(f"table {i}") for i in range(n)]
    for duel in duels:
        writer.append(duel, events[:AT - 1])
    signs.clear()
    _held_group(writer, lambda: writer.append(duels[0], events[AT - 1]),
                [lambda d=d: writer.append(d, events[AT - 1]) for d in duels[1:]])
    return duels


def test_a_groups_snapshots_are_signed_with_its_one_signature(url, writer, signs):
    duels = _grouped(writer, signs)
    assert len(signs) == 2                  # the held append's (anchor and snapshot), the group's
    sigs = {duel: stored_snapshot(url, duel) for duel in duels}
    assert all(snap["path"] for snap in sigs.values())
    assert len({snap["sig"] for snap in sigs.values() if snap is not sigs[duels[0]]}) == 1
    assert all(writer.verify(duel).ok for duel in duels)


def test_a_reader_with_the_public_key_only_uses_a_group_signed_snapshot(url, writer, signs, monkeypatch, checks,
                                                                          tmp_path):
    duels = _grouped(writer, signs)
    monkeypatch.setenv("YGOREPLAY_KEY", str(tmp_path / "no.key"))
    with Store(url, readonly=True, trust=[writer.key.public]) as reader:
        for duel in duels:
            assert snapshot(reader.state_at(duel, AT)) == snapshot_mac.expected_at(AT)
            assert reader.verify(duel).ok
    for duel in duels:                       # each checked by its signature, over its group's root
        snap = stored_snapshot(url, duel)
        leaf = writer._snapshot_message(duel, AT, snap["h"], snap["d"])
        assert _GROUP_LABEL + signing.root_of(leaf, snap["path"], snap["left"]) in checks


@pytest.mark.parametrize("spoiled", ["path", "side", "not bytes", "too long"])
def test_a_group_signed_snapshot_whose_path_was_altered_is_not_used(url, writer, signs, monkeypatch, tmp_path,
                                                                      spoiled):
    duels = _grouped(writer, signs)
    duel = duels[2]
    snap = stored_snapshot(url, duel)
    if spoiled == "path":
        snap["path"] = bytes([snap["path"][0] ^ 1]) + snap["path"][1:]
    elif spoiled == "side":
        snap["left"] ^= 1
    elif spoiled == "not bytes":
        snap["path"] = "path"
    else:
        snap["path"] = snap["path"] * 40
    snapshot_mac.rewrite(url, duel, snap, AT)
    monkeypatch.setenv("YGOREPLAY_KEY", str(tmp_path / "no.key"))
    with Store(url, readonly=True, trust=[writer.key.public]) as reader:
        assert snapshot(reader.state_at(duel, AT)) == snapshot_mac.expected_at(AT)    # from the full fold
        result = reader.verify(duel)
    assert not result.ok and f"snapshot at {AT}" in result.problem


def test_an_append_written_apart_from_its_failed_group_has_its_snapshot_signed_alone(url, writer, signs, monkeypatch,
                                                                                     tmp_path):
    inner, failed = writer._write_rows, []

    def write_rows(rows, snapshot_rows):
        if len({str(r.originator_id).split("/")[0] for r in rows}) > 1 and not failed:
            failed.append(rows)
            raise ValueError("a group refused")       # each of it is written alone
        inner(rows, snapshot_rows)
    monkeypatch.setattr(writer, "_write_rows", write_rows)
    duels = _grouped(writer, signs)
    assert failed
    assert "path" in stored_snapshot(url, duels[0])      # written with its own group of one: anchor and snapshot
    for duel in duels[1:]:
        assert "path" not in stored_snapshot(url, duel)
    monkeypatch.setenv("YGOREPLAY_KEY", str(tmp_path / "no.key"))
    with Store(url, readonly=True, trust=[writer.key.public]) as reader:
        assert all(reader.verify(duel).ok for duel in duels)
