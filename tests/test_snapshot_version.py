"""A snapshot names the version of its shape (``rules.history.SNAPSHOT_VERSION``), so a ygoreplay
meeting a store written by another one reads the snapshots it knows and folds the events past
the others, never misreading them.

A snapshot is a cache of the fold, signed by the store's key: a newer ygoreplay (the same
organiser's) writes one of a shape this one does not know (``card_text`` grew from 7 slots to 9
in one round: an older reader kept the slots it did not know, dropped scalars it did not know,
stopped on a row of another type with an internal error, and failed ``verify``, so ``export``
too, on a snapshot it could not compare). Now one of another version, or one naming none (written
before they named one) wider than this version's or of another type, is not used: ``state_at``,
``show``, ``verify`` and ``export`` give what the events give, a store opened read-only writes
nothing, and one open for writing leaves it for the version that reads it. One written before
snapshots named their version, of this version's shape or an older one's, is still used.
"""
from __future__ import annotations

import hashlib
from typing import Callable

import msgpack
import pytest
from click.testing import CliRunner

from conftest import shared_path
from duel import CARDS
from test_store import DAMAGE, execute, note, open_store, recorded, store, store_url  # noqa: F401
from ygoreplay.application import Records
from ygoreplay.cli import main
from ygoreplay.rules import History
from ygoreplay.rules.history import SNAPSHOT_VERSION
from ygoreplay.state import CARD_TEXT_SLOTS, Attack, Card, ChainLink, DuelState, Side
from ygoreplay.store import SNAPSHOT_EVERY, Store, _pack_snapshot, _snapshot_data

WHERE = "WHERE originator_id = ? AND originator_version = ?"
AT = 2 * SNAPSHOT_EVERY                              # the snapshot another version wrote
SOUGHT = (AT, AT + 3, AT + SNAPSHOT_EVERY - 1)       # positions a seek resumes from it for


def newer(data: dict) -> None:
    """A newer version's: two more ``card_text`` slots, a scalar and a card field this one lacks."""
    data["v"] = SNAPSHOT_VERSION + 1
    scalars = data["state"]["scalars"]
    scalars["card_text"] = [*scalars["card_text"], {"later": [1]}, 5]
    scalars["a_later_field"] = 1
    data["state"]["cards"] = [[*row, "later"] for row in data["state"]["cards"]]


def newer_meaning(data: dict) -> None:
    """A newer version's of this shape: what its fields mean may have changed all the same."""
    data["v"] = SNAPSHOT_VERSION + 1


def wider_unnamed(data: dict) -> None:
    """No version named, and wider than this version's: ``card_text`` with two more slots."""
    del data["v"]
    scalars = data["state"]["scalars"]
    scalars["card_text"] = [*scalars["card_text"], {"later": [1]}, 5]


def other_shape(data: dict) -> None:
    """No version named, and the cards not rows (an internal error before)."""
    del data["v"]
    data["state"]["cards"] = {"a card": [1, 2]}


def unnamed(data: dict) -> None:
    """As written before snapshots named their version (this version's shape otherwise)."""
    del data["v"]


UNREAD = [newer, newer_meaning, wider_unnamed, other_shape]


def stored_row(url: str, duel: str) -> bytes:
    (state,), = execute(url, f"SELECT state FROM {{t}} {WHERE}", (duel, AT), snapshots=True)
    return bytes(state)


def rewrite(url: str, writer: Store, duel: str, change: Callable[[dict], None]) -> bytes:
    """The snapshot at AT as ``change`` makes its data, signed by the store's key as the store
    signs its own (another version of ygoreplay, the same organiser); its row's bytes."""
    snap = msgpack.unpackb(stored_row(url, duel))
    data = _snapshot_data(snap)
    change(data)
    packed = _pack_snapshot(data)
    row = writer._snapshot_row(duel, AT, packed, snap["h"], writer._snapshot_message(duel, AT, snap["h"], packed))
    execute(url, f"UPDATE {{t}} SET state = ? {WHERE}", (row.state, duel, AT), snapshots=True)
    return row.state


def as_the_events_give(reader: Store, duel: str) -> dict[int, dict]:
    return {n: reader.state_at(duel, n).to_data() for n in SOUGHT}


def read_as_the_events_give(url: str, duel: str, expected: dict[int, dict], events: int) -> None:
    """Every read of a store open read-only gives the events' state, and nothing is written."""
    row = stored_row(url, duel)
    with Store(url, readonly=True) as reader:
        assert {n: reader.state_at(duel, n).to_data() for n in SOUGHT} == expected
        verified = reader.verify(duel)
        assert verified.ok, verified.problem
        assert len(Records(reader).export(duel).events) == events
    for args in (["show", duel, "--at", str(AT + 3)], ["verify", duel]):
        result = CliRunner().invoke(main, [*args, "--store", url])
        assert result.exit_code == 0 and "internal error" not in result.output, (args, result.output)
    assert stored_row(url, duel) == row


@pytest.mark.parametrize("change", UNREAD)
def test_a_snapshot_this_version_cannot_read_is_not_used(store_url, store, change):
    duel = recorded(store, DAMAGE, upto=AT + 2 * SNAPSHOT_EVERY)        # not ended: a note may follow
    expected = as_the_events_give(store, duel)
    written = rewrite(store_url, store, duel, change)
    read_as_the_events_give(store_url, duel, expected, store.info(duel).events)
    # a store open for writing leaves it for the version that reads it, and appends past it
    with Store(store_url) as writer:
        assert {n: writer.state_at(duel, n).to_data() for n in SOUGHT} == expected
        writer.append(duel, [note("after another version's snapshot")])
        assert writer.verify(duel).ok
    assert stored_row(store_url, duel) == written


@pytest.mark.parametrize("change", [newer, other_shape])
def test_a_real_duel_with_a_snapshot_of_another_version_reads_as_its_events_give(tmp_path, change):
    real = sorted(shared_path("real-replays", "edopro").glob("*.yrpX"))[0]
    url = str(tmp_path / "duels.sqlite")
    with Store(url) as writer:
        done, _agreement = Records(writer).import_yrpx(real, None, None)
        assert done.stored > AT + SNAPSHOT_EVERY
        expected = as_the_events_give(writer, done.id)
        rewrite(url, writer, done.id, change)
    read_as_the_events_give(url, done.id, expected, done.stored)


def test_a_snapshot_written_before_snapshots_named_their_version_is_still_used(store_url, store, monkeypatch):
    duel = recorded(store, DAMAGE)
    expected = as_the_events_give(store, duel)
    versions = [_snapshot_data(msgpack.unpackb(row.state)).get("v") for row in store.snapshots.select_events(duel)]
    assert versions and set(versions) == {SNAPSHOT_VERSION}
    rewrite(store_url, store, duel, unnamed)
    resumed: list[object] = []
    real = History.from_data.__func__

    def spied(cls, data, *args, **kwargs):
        resumed.append(data.get("v", "none"))
        return real(cls, data, *args, **kwargs)
    monkeypatch.setattr(History, "from_data", classmethod(spied))
    read_as_the_events_give(store_url, duel, expected, store.info(duel).events)
    assert resumed.count("none") >= len(SOUGHT)         # each seek resumed from it


def test_each_snapshot_version_stands_for_one_shape():
    """A change to what a snapshot holds bumps ``SNAPSHOT_VERSION`` (and pins its shape here):
    else an older ygoreplay would read the new shape as its own."""
    shapes = {1: "b8a983b7b1aa2962f45cb63d02e23d1f8afb7839e439e33c43a441ef277be417"}
    assert len(DuelState(CARDS).card_text) == CARD_TEXT_SLOTS
    shape = repr((DuelState._SCALARS, Card.__slots__, Side.__slots__, ChainLink.__slots__, Attack.__slots__,
                  CARD_TEXT_SLOTS, sorted(History(CARDS).to_data()), sorted(DuelState(CARDS).to_data())))
    assert shapes.get(SNAPSHOT_VERSION) == hashlib.sha256(shape.encode()).hexdigest()
