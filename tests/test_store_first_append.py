"""A duel's first append through the service reads its card facts once (issue 25, fifth pass).

The facts an append writes are kept for the exact bytes of the duel's card records, so the live
duel's read of them after the append (``LiveDuel.refresh``) validates none of them again: it
gets the facts a fresh read of the records gives. Records changed in the database afterwards are
other bytes: read anew, and refused by the next append that loads the duel (its anchor's digest).
"""
from __future__ import annotations

import msgpack
import pytest

from test_store import DECK_OUT, execute, open_store, sample, store, store_url  # noqa: F401
from test_stored_effects import EVENTS, IN_DAMAGE_STEP, WALL, events, flags, install  # noqa: F401 (the fixture)
from ygoreplay.errors import VerificationError
from ygoreplay.live import Hub
from ygoreplay.store import Store


def card_rows(store: Store, duel: str) -> tuple[bytes, ...]:
    return tuple(bytes(row.state) for row in store.events.select_events(f"{duel}/cards"))


def read_afresh(store: Store, duel: str) -> tuple[list, bytes, bytes | None, dict | None]:
    """The duel's card facts as a fresh read of its stored records validates them."""
    cards, digest, effects = Store._read_cards(duel, card_rows(store, duel))
    return cards.to_json_list(), digest, effects, cards.effects_record()


def kept(store: Store, duel: str) -> tuple[list, bytes, bytes | None, dict | None]:
    cards, digest, effects = store._cards_of(duel)
    return cards.to_json_list(), digest, effects, cards.effects_record()


def test_the_facts_an_append_writes_are_read_back_without_validating_them_again(store, monkeypatch):
    events = sample(DECK_OUT)
    duel = store.create_duel("appends of 5")
    added = 0
    for i in range(0, 40, 5):
        before = len(card_rows(store, duel))
        store.append(duel, events[i:i + 5])
        added += len(card_rows(store, duel)) > before
        expected = read_afresh(store, duel)
        with monkeypatch.context() as patched:
            def validated(duel_id, stored):
                raise AssertionError(f"card records read and validated again: {len(stored)}")
            patched.setattr(Store, "_read_cards", staticmethod(validated))
            assert kept(store, duel) == expected
    assert added >= 1                       # the opening names the decks' cards: they were written


def test_the_effect_facts_an_append_writes_are_read_back_as_stored(install, store_url, monkeypatch):
    with Store(store_url, install(IN_DAMAGE_STEP)) as store:
        duel = store.create_duel("effects")
        store.append(duel, events(*EVENTS))
        expected = read_afresh(store, duel)
        assert expected[2] is not None and expected[3] is not None      # the Trap's script facts were written
        monkeypatch.setattr(Store, "_read_cards", staticmethod(lambda duel_id, stored: pytest.fail("read again")))
        assert kept(store, duel) == expected
        assert flags(store.cards_of(duel)[0]) == [("damage_step",)]


def test_the_live_duel_takes_the_first_appends_facts_as_stored(store, monkeypatch):
    events = sample(DECK_OUT)[:5]
    duel = store.create_duel("first append")
    hub = Hub(store)
    live = hub.get(duel)                    # as the service loads a table on its first append
    read: list[int] = []
    real = Store._read_cards

    def counted(duel_id, stored):
        read.append(len(stored))
        return real(duel_id, stored)
    monkeypatch.setattr(Store, "_read_cards", staticmethod(counted))
    written = hub.appending(duel, lambda: store.append_records(duel, events))
    assert [r.position for r in written] == list(range(len(events))) and live.count == len(events)
    assert len(card_rows(store, duel)) == 1 and 1 not in read     # the written record: never read again
    monkeypatch.setattr(Store, "_read_cards", staticmethod(real))
    assert (live.cards.to_json_list(), live.cards.effects_record()) == (read_afresh(store, duel)[0],
                                                                        read_afresh(store, duel)[3])


def test_a_card_record_changed_after_the_append_is_read_anew_and_refused(store_url, store, open_store):
    events = sample(DECK_OUT)
    duel = store.create_duel("changed")
    store.append(duel, events[:5])
    (version, state), = execute(store_url, "SELECT originator_version, state FROM {t} WHERE originator_id = ?",
                                (f"{duel}/cards",))
    record = msgpack.unpackb(bytes(state))
    record["cards"][0]["atk"] = 5000
    execute(store_url, "UPDATE {t} SET state = ? WHERE originator_id = ? AND originator_version = ?",
            (msgpack.packb(record), f"{duel}/cards", version))
    facts, digest, _effects, _record = kept(store, duel)
    assert facts == read_afresh(store, duel)[0] and facts[0]["atk"] == 5000     # not the facts written
    with pytest.raises(VerificationError, match=f"duel {duel}: its header, card facts or effect facts were altered"):
        open_store().append(duel, events[5:6])
    assert len(store.records(duel)) == 5
