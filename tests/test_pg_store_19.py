"""A PostgreSQL store's appends, nineteenth pass of issue 25: what an append computes is what it
was, with less work. An event is packed once for its chain link and its row, the bytes
unchanged; the index's rows go as binary arrays (``test_pg_pipeline``). Nothing here is timed."""
from __future__ import annotations

import os

import msgpack

from test_group_commit import DAMAGE
from test_store import sample
from ygoreplay import chain


def test_an_events_link_and_row_are_the_bytes_packed_apart():
    """``chain.link_row`` packs the event once: its hash is ``link``'s and its row is msgpack's
    map of the event, time and both hashes, byte for byte, for every kind of event."""
    pack = chain.packer()
    prev = os.urandom(32)
    events = sample(DAMAGE)
    for position, event in enumerate(events):
        wire, when = event.to_dict(), f"2026-12-07T10:00:{position % 60:02d}.{position % 1000:03d}+00:00"
        digest, row = chain.link_row(prev, position, wire, when, pack)
        assert digest == chain.link(prev, position, wire, when)
        assert row == msgpack.packb({"e": wire, "t": when, "p": prev, "h": digest})
        prev = digest
    assert len(events) > 20
