"""A live duel's first load (``LiveDuel``, ``Store.opened``): what every table's first append
through the service waits for, read in one statement (issue 25)."""
from __future__ import annotations

import pytest

from ygoreplay.access import Access
from ygoreplay.jsonl import read_events
from ygoreplay.live import Hub, LiveDuel
from ygoreplay.passcodes import referenced_codes
from ygoreplay.store import Store, StoreError

from test_store import DAMAGE, REPLAYS, _set_state, _state, fresh_url

EVENTS = read_events(REPLAYS / DAMAGE)
ACCESS = {"visibility": "public"}


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_live_duel_is_loaded_in_one_read_as_four_reads_gave_it(tmp_path, backend, monkeypatch):
    """Its header, access settings, card facts, events and anchors were five reads apart (a round
    trip and ~0.3 ms of psycopg CPU each); one now, giving the same."""
    with fresh_url(backend, tmp_path / "x.sqlite", "open") as url, Store(url) as store:
        duel = store.create_duel("open")
        store.attach(duel, "access", {"visibility": "private"})
        store.attach(duel, "access", ACCESS)                    # the latest version counts
        store.append(duel, EVENTS[:12])
        fresh = store.create_duel("fresh")
        reads: list[str] = []
        real = store.events.select_events
        monkeypatch.setattr(store.events, "select_events", lambda stream, *a, **k: reads.append(stream) or real(stream, *a, **k))
        live, new = LiveDuel(store, duel), LiveDuel(store, fresh)
        assert reads == [], "one statement, anchors included"
        monkeypatch.undo()
        assert live.header == store.header(duel)
        assert live.access.to_dict() == Access.from_dict(store.attachment(duel, "access")).to_dict()
        assert live.access.visibility == "public"
        assert live.cards.to_json_list() == store.cards_of(duel)[0].to_json_list()
        assert [r.event for r in live.records] == list(EVENTS[:12]) and live.broken is None
        assert [r.hash for r in live.records] == [r.hash for r in store.chained_after(duel, 0, live.header.root)[0]]
        assert new.count == 0 and new.access.visibility == "private" and new.broken is None


def test_a_changed_event_is_shown_up_to_it_on_the_first_load_as_after_it(tmp_path):
    """The first load checks the chain as a later read does: nothing from an altered event on."""
    url = str(tmp_path / "x.sqlite")
    with Store(url) as store:
        duel = store.create_duel("altered")
        for i, event in enumerate(EVENTS[:8]):                  # an anchor after each
            store.append(duel, event, expected_position=i)
        _set_state(url, duel, 6, _state(url, duel, 5))          # event #5 stored again as #6
        live = LiveDuel(store, duel)
        assert live.count == 5 and live.broken == 5
        assert (live.broken, len(live.records)) == (store.chained_after(duel, 0, live.header.root)[1], 5)


def test_no_stream_is_no_live_duel(tmp_path):
    with Store(str(tmp_path / "x.sqlite")) as store:
        with pytest.raises(StoreError, match="no duel 'nope'"):
            LiveDuel(store, "nope")


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_cards_a_first_append_wrote_are_taken_in_without_reading_them_back(tmp_path, backend, monkeypatch):
    """The live duel read every card record again after a table's first append, whose opening
    names its ~40 cards; the facts this process's append just wrote are taken as held. Cards
    another process wrote are still read."""
    with fresh_url(backend, tmp_path / "x.sqlite", "open") as url, Store(url) as store, Store(url) as other:
        duel = store.create_duel("first")
        hub = Hub(store)
        live = hub.get(duel)
        reads: list[str] = []
        real = store.events.select_events
        monkeypatch.setattr(store.events, "select_events", lambda stream, *a, **k: reads.append(stream) or real(stream, *a, **k))
        first = next(i for i, e in enumerate(EVENTS) if referenced_codes([e])) + 1     # its opening
        hub.appending(duel, lambda: store.append_records(duel, EVENTS[:first], expected_position=0))
        assert f"{duel}/cards" not in reads and live.count == first
        monkeypatch.undo()
        assert len(live.cards) > 0
        assert live.cards.to_json_list() == store.cards_of(duel)[0].to_json_list()
        assert live.cards.effects_record() == store.cards_of(duel)[0].effects_record()
        assert store.held_cards(duel) is not None
        with store._lock_for(duel):                  # an append under way: not waited for, read instead
            assert store.held_cards(duel) is None
        later = next(i for i, e in enumerate(EVENTS) if any(c not in live.cards for c in referenced_codes([e])))
        other.append(duel, EVENTS[first:later + 1], expected_position=first)    # names a card not held here
        hub.changed(duel)
        assert live.count == later + 1
        assert live.cards.to_json_list() == store.cards_of(duel)[0].to_json_list()
