"""A PostgreSQL write cut before its COMMIT reached the server, while another store wrote the
same position (issue 25, eighteenth pass). The store learns a lost write's outcome by reading
its rows back on a new connection; it read only the write's first row, and an append's first
row is often its card-facts record (``{duel}/cards``), which is the same bytes whoever appends
the event that names those cards first. Another store's append of the same position made the
lost write look stored: its append was told it was written, its store kept its own event as
the duel's head, and its next append chained onto that event, which was never stored: the
duel's hash chain was broken for good (``event 2 does not follow event 1``), and every later
append to it was refused (``does not match its hash chain (altered)``). Now every row of a lost
write is read back, and one kept by another writer is not taken for its own. The cut is made
by a TCP relay this test controls; nothing here is timed."""
from __future__ import annotations

import pytest

from test_attack_25k import _through
from test_attack_25s import _MidCut
from test_group_commit import DAMAGE
from test_pg_outage import _outcome
from test_store import sample
from ygoreplay.errors import ConflictError, StoreUnavailable
from ygoreplay.store import Store


@pytest.fixture
def midcut(tmp_path):
    """A PostgreSQL store's URL, and that URL through a ``_MidCut``."""
    yield from _through(_MidCut(), tmp_path, "pgcut18")


@pytest.mark.parametrize("concurrent_store", [False, True])
def test_a_lost_write_whose_first_row_another_store_wrote_alike_is_not_told_written(midcut, concurrent_store):
    """Store A holds the duel's head at event 0; store B appends event 1 (a deck: it adds card
    facts, so its first row is the duel's card record, the same bytes A's would be). A appends
    event 1 too, on the head it holds, and its write is cut before its COMMIT: nothing of it is
    stored, so it is told the store is not answering and nothing was written, never that it
    was written; its next append goes on from the stored event 1, and the duel verifies."""
    where, via, relay = midcut
    events = sample(DAMAGE)
    with Store(via, concurrent=concurrent_store) as a, Store(where) as b:
        duel = a.create_duel("two stores, one position")
        assert a.append(duel, events[0]) == 1
        # B's event at another millisecond than A's: only the card record is the same bytes
        assert b.append(duel, events[1], times=["2026-01-01T00:00:00.000+00:00"]) == 2
        relay.keep = 0.5
        relay.armed.set()
        told = _outcome(lambda: a.append(duel, events[1], times=["2026-01-01T00:00:01.000+00:00"]))
        assert relay.cut.is_set()
        assert type(told) is StoreUnavailable and "nothing was written" in str(told), repr(told)
        assert a.append(duel, events[2], expected_position=2) == 3
    with Store(where, readonly=True) as reader:
        records = reader.records(duel)
        assert [r.event for r in records] == list(events[:3])
        assert records[1].recorded.startswith("2026-01-01T00:00:00.000")       # B's, not A's
        assert reader.verify(duel).ok, reader.verify(duel)


@pytest.mark.parametrize("taken", [True, False])
def test_an_append_on_a_head_the_store_does_not_hold_is_refused_not_chained(midcut, monkeypatch, taken):
    """Whatever made this process believe a write stored that was not (here its read-back is made
    to say so), its next append is checked in its own transaction against the event it was
    chained onto: the stored event 1 is another writer's (``taken``) or there is none, so the
    append is refused as a conflict (nothing written), never stored after an event that is not
    its chain's; one without an expected position is appended on the stored head, and the duel
    verifies."""
    where, via, relay = midcut
    events = sample(DAMAGE)
    with Store(via) as a, Store(where) as b:
        duel = a.create_duel("a head believed")
        assert a.append(duel, events[0]) == 1
        if taken:
            assert b.append(duel, events[1], times=["2026-01-01T00:00:00.000+00:00"]) == 2
        monkeypatch.setattr(type(a._postgres), "_stored", lambda *args: True)
        relay.keep = 0.5
        relay.armed.set()
        assert a.append(duel, events[1], times=["2026-01-01T00:00:01.000+00:00"]) == 2    # believed
        assert relay.cut.is_set()
        with pytest.raises(ConflictError):
            a.append(duel, events[2], expected_position=2)
        if taken:
            assert a.append(duel, events[2]) == 3
    stored = 3 if taken else 1
    with Store(where, readonly=True) as reader:
        assert [r.event for r in reader.records(duel)] == list(events[:stored])
        assert reader.verify(duel).ok, reader.verify(duel)
