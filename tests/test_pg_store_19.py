"""A PostgreSQL store's appends, nineteenth pass of issue 25: what an append computes is what it
was, with less work. A duel another store created is taken up by its anchor's MAC where this
store holds the organiser's key (an Ed25519 check was a tenth of a duel's first append); an
event is packed once for its chain link and its row, the bytes unchanged; the index's rows go
as binary arrays (``test_pg_pipeline``). Nothing here is timed."""
from __future__ import annotations

import os

import msgpack
import pytest

from test_group_commit import DAMAGE
from test_store import fresh_url, sample
from ygoreplay import chain, signing
from ygoreplay.store import Store


@pytest.mark.parametrize("concurrent", [False, True])
def test_a_duel_another_store_wrote_is_taken_up_by_its_mac_where_the_key_is_held(tmp_path, monkeypatch, concurrent):
    """Store B appends to a duel store A created and appended to: B holds the organiser's key,
    so it checks the anchor it reads by its MAC, no Ed25519 check; the duel verifies."""
    events = sample(DAMAGE)
    with fresh_url("postgresql", tmp_path) as url:
        with Store(url) as a:
            duel = a.create_duel("taken up")
            a.append(duel, events[:2])
        checked = []
        real = signing.PublicKey.verify

        def counted(self, signature, message):
            checked.append(message)
            return real(self, signature, message)
        with Store(url, concurrent=concurrent) as b:
            monkeypatch.setattr(signing.PublicKey, "verify", counted)
            assert b.append(duel, events[2]) == 3
            monkeypatch.setattr(signing.PublicKey, "verify", real)
            assert checked == []
            assert b.verify(duel).ok


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
