"""Attacks on the live duel's one-statement first load (``Store.opened``) and on the card facts
an append hands it (``Store.held_cards``), issue 25: the second way in to a duel's data must
select what the four reads it replaced selected, and nothing of another stream."""
from __future__ import annotations

import sqlite3

import msgpack
import pytest

from ygoreplay import chain
from ygoreplay.jsonl import read_events
from ygoreplay.live import Hub, LiveDuel
from ygoreplay.passcodes import referenced_codes
from ygoreplay.store import Store, StoreError, _follows

from test_store import DAMAGE, REPLAYS, fresh_url

EVENTS = read_events(REPLAYS / DAMAGE)
FIRST = next(i for i, e in enumerate(EVENTS) if referenced_codes([e])) + 1     # an opening naming cards


def _old_error(store: Store, stream_id: str) -> str:
    """What the header read before ``opened`` said of ``stream_id`` (taken as a duel)."""
    try:
        header = store.header(stream_id)
    except StoreError as exc:
        return str(exc)
    return f"no duel {stream_id!r}: it is a {header.kind}"


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_live_duel_reads_its_own_rows_only(tmp_path, backend):
    """An id is matched whole: a duel's rows are not those of another whose id it begins, nor
    of its own attachments, cards or anchors read as a duel; an id with SQL in it is an id."""
    with fresh_url(backend, tmp_path / "x.sqlite", "att") as url, Store(url) as store:
        hidden = store.create_duel("hidden")
        store.attach(hidden, "access", {"visibility": "private"})
        store.append(hidden, EVENTS[:3])
        shown = store.create_duel("shown")
        store.attach(shown, "access", {"visibility": "public"})
        store.append(shown, EVENTS[:FIRST])
        live = LiveDuel(store, hidden)
        assert (live.count, live.access.visibility) == (3, "private")
        assert live.cards.to_json_list() == store.cards_of(hidden)[0].to_json_list() != store.cards_of(shown)[0].to_json_list()
        for odd in (f"{hidden}/cards", f"{shown}/head", f"{shown}/access", shown[:-1], f"{shown}a",
                    f"{shown}' OR '1'='1", f"{shown}%", "_" * len(shown), ""):
            with pytest.raises(StoreError) as caught:
                LiveDuel(store, odd)
            assert str(caught.value) == _old_error(store, odd)


def test_the_latest_access_is_the_last_version_as_before_not_the_last_row_written(tmp_path):
    """A row written later at a lower version (a forger's, looser) is not the latest: the
    version counts, as ``Store.attachment`` reads it; one at a higher version counts for both."""
    url = str(tmp_path / "x.sqlite")
    with Store(url) as store:
        duel = store.create_duel("forged")
        for visibility in ("public", "unlisted", "private"):
            store.attach(duel, "access", {"visibility": visibility})
        with sqlite3.connect(url) as con:
            con.execute("DELETE FROM stored_events WHERE originator_id = ? AND originator_version = 0", (f"{duel}/access",))
            con.execute("INSERT INTO stored_events (originator_id, originator_version, topic, state) VALUES (?, 0, ?, ?)",
                        (f"{duel}/access", "ygoreplay:access", msgpack.packb({"visibility": "public"})))
        assert LiveDuel(store, duel).access.visibility == store.attachment(duel, "access")["visibility"] == "private"


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_held_cards_are_only_the_holders_and_never_past_another_append(tmp_path, backend):
    """A store that holds no head of the duel holds no cards of it; one whose head another
    store's append has passed holds none either (their digests differ): the cards are read."""
    with fresh_url(backend, tmp_path / "x.sqlite", "att") as url, Store(url) as store, Store(url) as other:
        duel = store.create_duel("held")
        store.append(duel, EVENTS[:FIRST], expected_position=0)
        assert store.held_cards(duel) is not None
        assert other.held_cards(duel) is None and store.held_cards(store.create_duel("none")) is None
        later = next(i for i in range(FIRST, len(EVENTS))
                     if any(c not in store.held_cards(duel) for c in referenced_codes([EVENTS[i]])))
        other.append(duel, EVENTS[FIRST:later + 1], expected_position=FIRST)
        assert store.held_cards(duel) is None
        hub = Hub(store)
        assert hub.get(duel).cards.to_json_list() == store.cards_of(duel)[0].to_json_list()


def test_an_event_forged_past_the_signed_head_is_not_shown_on_the_first_load(tmp_path):
    """A row chained on after the last signed anchor (the chain needs no key) is not shown by
    the first load, as ``chained_after`` never showed it: nothing past the signed head."""
    url = str(tmp_path / "x.sqlite")
    with Store(url) as store:
        duel = store.create_duel("forged")
        for i, event in enumerate(EVENTS[:8]):
            store.append(duel, event, expected_position=i)
        with sqlite3.connect(url) as con:
            last = msgpack.unpackb(con.execute("SELECT state FROM stored_events WHERE originator_id = ? "
                                               "AND originator_version = 8", (duel,)).fetchone()[0])
            forged = {"e": last["e"], "t": last["t"], "p": last["h"], "h": chain.link(last["h"], 8, last["e"], last["t"])}
            con.execute("INSERT INTO stored_events (originator_id, originator_version, topic, state) VALUES (?, 9, ?, ?)",
                        (duel, "ygoreplay:event", msgpack.packb(forged)))
        assert _follows(forged, last["h"], 8)                                   # it follows the chain
        live = LiveDuel(store, duel)
        assert (live.count, live.broken) == (8, 8) == (len(store.chained_after(duel, 0, live.header.root)[0]),
                                                       store.chained_after(duel, 0, live.header.root)[1])
