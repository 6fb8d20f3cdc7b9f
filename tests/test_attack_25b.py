"""Attack on issue 25's fourth pass: a snapshot's MAC and the card facts kept by duel.

A snapshot altered by someone who can write the database but holds no organiser's private key
is never used for a seek, whatever MAC, key or position it is given, on SQLite and PostgreSQL:
the seek starts from the snapshot before it and gives the full fold's state. The card facts a
seek keeps by duel are never another record's.
"""
from __future__ import annotations

import os
import zlib

import msgpack
import pytest

from duel import snapshot
from test_resident import ROOT, SAMPLE, place  # noqa: F401 (the fixture)
from test_snapshot_mac import AT, expected_at, message, rewrite, stored_snapshot
from test_store import DECK_OUT, execute, open_store, recorded, store, store_url  # noqa: F401
from ygoreplay.signing import OrganiserKey
from ygoreplay.state import Side
from ygoreplay.store import SNAPSHOT_EVERY, Store

SOUGHT = AT + 5


def readers(url: str, writer: Store) -> list[Store]:
    """Every kind of reader that checks MACs: read-only (the organiser key loaded by ``trusts``)
    and one that signs with the key."""
    return [Store(url, readonly=True), Store(url, key=writer.key)]


def assert_not_used(url: str, writer: Store, duel: str) -> None:
    for reader in readers(url, writer):
        with reader:
            assert snapshot(reader.state_at(duel, SOUGHT)) == expected_at(SOUGHT)
    result = writer.verify(duel)
    assert not result.ok and f"the snapshot at {AT} is not signed" in result.problem


def test_a_snapshot_moved_from_another_position_with_its_mac_is_not_used(store_url, store):
    """The snapshot at AT + SNAPSHOT_EVERY (its data, signature and MAC) put at AT, bound to the
    chain there: the MAC names its own position, so it does not hold at AT."""
    duel = recorded(store, DECK_OUT)
    later = msgpack.unpackb(execute(store_url, "SELECT state FROM {t} WHERE originator_id = ? AND "
                                    "originator_version = ?", (duel, AT + SNAPSHOT_EVERY), snapshots=True)[0][0])
    later["h"] = stored_snapshot(store_url, duel)["h"]
    rewrite(store_url, duel, later)
    assert_not_used(store_url, store, duel)


def test_a_snapshot_copied_from_another_duel_with_its_mac_is_not_used(store_url, store):
    """Another duel of the same organiser, the same events: its snapshot at AT (another board is
    not needed: the MAC names its duel) rebound to this duel's chain."""
    duel, other = recorded(store, DECK_OUT), recorded(store, DECK_OUT)
    copied = stored_snapshot(store_url, other)
    copied["h"] = stored_snapshot(store_url, duel)["h"]
    rewrite(store_url, duel, copied)
    assert_not_used(store_url, store, duel)


def test_a_snapshot_whose_key_is_swapped_to_another_key_the_store_holds_is_not_used(store_url, store):
    """A store that signs with a second key and trusts the organiser's: a snapshot the organiser
    signed, its ``key`` made the second one (whose MAC the store checks), its MAC kept."""
    duel = recorded(store, DECK_OUT)
    second = OrganiserKey.generate()
    snap = stored_snapshot(store_url, duel)
    snap["key"] = second.public.raw
    rewrite(store_url, duel, snap)
    with Store(store_url, key=second, trust=[store.key.public]) as reader:
        assert snapshot(reader.state_at(duel, SOUGHT)) == expected_at(SOUGHT)
        assert not second.check_mac(snap["mac"], message(reader, duel, snap))


@pytest.mark.parametrize("mac", [0, -1, 2 ** 63, [b"\0" * 32], {"mac": b"\0" * 32}, None, True, 1.5,
                                 b"\0" * (1 << 20), ""])
def test_an_altered_snapshot_with_a_mac_of_another_type_or_size_is_not_used(store_url, store, mac):
    duel = recorded(store, DECK_OUT)
    snap = stored_snapshot(store_url, duel)
    data = msgpack.unpackb(zlib.decompress(snap["d"]))
    data["state"]["sides"][0][Side.__slots__.index("lp")] += 1000          # the signature kept
    snap["d"], snap["mac"] = zlib.compress(msgpack.packb(data)), mac
    rewrite(store_url, duel, snap)
    assert_not_used(store_url, store, duel)


def test_the_card_facts_kept_for_a_duel_are_never_another_records(store):
    """The same duel id with other card records (another store, a duel made again under the same
    id, a record changed between two seeks of one long-lived process): read anew, never served
    from what was kept; the kept ones again once the records are what they were."""
    duel = recorded(store, DECK_OUT)
    first = tuple(row.state for row in store.events.select_events(f"{duel}/cards"))
    record = msgpack.unpackb(first[0])
    record["cards"] = record["cards"][:-1]
    changed = (msgpack.packb(record), *first[1:])
    kept = store._cards_from(duel, first)
    other = store._cards_from(duel, changed)
    assert other[1] == Store._read_cards(duel, changed)[1] != kept[1]
    assert len(other[0]) == len(kept[0]) - 1
    assert store._cards_from(duel, first)[1] == kept[1]
    assert store._cards_from(duel, first[:0])[1] == Store._read_cards(duel, ())[1] != kept[1]


# -- the resident: the exit code sent before it puts itself back --------------------------------------

@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")
def test_the_resident_has_left_the_callers_folder_when_the_caller_is_told_its_exit_code(place, tmp_path):
    """A caller's script may remove or unmount its folder as soon as the command returns (``cd
    /mnt/usb && ygoreplay show ...; cd / && umount /mnt/usb``): as when the command runs in its
    own process, nothing may hold that folder then. The resident leaves it before it sends the
    exit code (putting its environment and umask back, which nobody sees, may come after)."""
    place.start()
    folder = tmp_path / "usb"
    folder.mkdir()
    for _ in range(12):                                # it was still there after about one command in three
        before = place.served()
        shown = place.run("show", os.path.join(ROOT, SAMPLE), "--at", "20", cwd=folder)
        assert shown.returncode == 0, shown.stderr
        assert os.readlink(f"/proc/{place.pid}/cwd") == "/"
        assert place.served() == before + 1
