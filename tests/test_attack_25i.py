"""Attacks on what the live path shows (``Store.opened``, ``Store.vouched_cards``, the pages that
read a stream through the hub), issue 25: someone who may write the database, not holding the
organiser's key, must get nothing altered shown, nothing vouched hidden, and no internal error."""
from __future__ import annotations

import msgpack
import pytest

from ygoreplay.jsonl import read_events
from ygoreplay.live import LiveDuel
from ygoreplay.store import CARDS_TOPIC, Store

from test_store import DAMAGE, REPLAYS, _set_state, _state, execute, fresh_url

EVENTS = read_events(REPLAYS / DAMAGE)
FORGED = "Forged Dragon"


def _insert(url: str, owner: str, version: int, topic: str, state: bytes) -> None:
    execute(url, "INSERT INTO {t} (originator_id, originator_version, topic, state) VALUES (?, ?, ?, ?)",
            (owner, version, topic, state))


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_card_facts_forged_before_the_first_anchor_are_not_shown(tmp_path, backend):
    """A table is created and followed before its first event (its live duel holds no event).
    A forger puts a card record at version 0, where no append writes one and no anchor vouches
    for it, holding every card the duel will name made stronger. The first load took it
    unchecked (there was no anchor past 0 to compare it with), and the appends that followed
    named only cards it held, so they were never read again: every follower saw the forger's
    card facts for the whole duel. A follower relied on the card text and stats being the
    organiser's: now nothing is shown from where it was put, as verify does not hold."""
    with fresh_url(backend, tmp_path / "x.sqlite", "att") as url, Store(url) as writer:
        model = writer.create_duel("model")                 # the facts the duel will name, to forge
        writer.append(model, EVENTS[:8])
        facts = [dict(card, name=FORGED, atk=9999) for card in writer.cards_of(model)[0].to_json_list()]
        duel = writer.create_duel("table")
        _insert(url, f"{duel}/cards", 0, CARDS_TOPIC, msgpack.packb({"cards": facts}))
        with Store(url) as reader:                          # the follower's process
            live = LiveDuel(reader, duel)
            assert live.count == 0
            for i, event in enumerate(EVENTS[:8]):
                writer.append(duel, event, expected_position=i)
            live.refresh()
            shown = live.cards.to_json_list()
            assert FORGED not in {card.get("name") for card in shown}
            assert all(card.get("atk") != 9999 for card in shown)
            # every anchor from 0 on signs other card facts than those stored: cut where it was put
            assert (live.count, live.broken) == (0, 0)
            assert not reader.verify(duel).ok


def _recorded(store: Store, count: int = 8) -> str:
    """A duel appended one event at a time (an anchor after each); its card records are
    written at 2 (19 cards) and 3 (one more)."""
    duel = store.create_duel("vouched")
    for i, event in enumerate(EVENTS[:count]):
        store.append(duel, event, expected_position=i)
    assert [r.originator_version for r in store.events.select_events(f"{duel}/cards")] == [2, 3]
    return duel


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_an_unreadable_card_record_cuts_what_is_shown_as_an_altered_one_does(tmp_path, backend):
    """A card record rewritten as bytes that do not decode: the first load refused the whole
    duel as "its card facts cannot be read", which the service answers as no duel at all (404),
    hiding the events the anchors before it vouch for, where a record altered to decode cuts
    the duel at that anchor; and a follower's read of it later raised instead of stopping there
    (read again on every wake-up). A follower relied on the vouched events being shown, and on
    being told the duel was altered, not that it was not there."""
    with fresh_url(backend, tmp_path / "x.sqlite", "att") as url, Store(url) as writer:
        duel = writer.create_duel("vouched")
        writer.append(duel, EVENTS[:2])
        with Store(url) as follower:
            held = LiveDuel(follower, duel)                    # followed at 2 events
            for i, event in enumerate(EVENTS[2:8], start=2):
                writer.append(duel, event, expected_position=i)
            _set_state(url, f"{duel}/cards", 3, b"\xc1")
            assert held.refresh() is False
            assert (held.count, held.broken) == (2, 2)
        with Store(url) as reader:
            live = LiveDuel(reader, duel)
            assert (live.count, live.broken) == (2, 2)
            assert [r.event for r in live.records] == list(EVENTS[:2])
