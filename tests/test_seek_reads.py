"""What a stored board's reads keep and skip (issue 25): the chain checks' kept packer, the
zone names' wrapping kept by name and width, a whole duel id resolved in one statement.

None of them may change what is checked or shown: a link made with a kept packer is the link
``msgpack.packb`` makes, also after a value it could not pack; a name's lines depend on the
width they are wrapped to; a whole id of another kind of stream is not taken for a duel's.
"""
from __future__ import annotations

import sqlite3

import msgpack
import pytest

from test_store import DAMAGE, open_store, recorded, sample, store, store_url  # noqa: F401  (fixtures)
from ygoreplay import chain
from ygoreplay.render import _wrapped
from ygoreplay.store import Store, StoreError


def test_a_kept_packer_links_as_packb_does():
    """Every event of a duel linked with one packer (``chain.packer``), a value it refused to pack
    in the middle: the hashes are those ``msgpack.packb`` gives (``chain.hashes``)."""
    events = [event.to_dict() for event in sample(DAMAGE)]
    times = [f"2026-12-06T12:00:{i % 60:02d}.000+00:00" for i in range(len(events))]
    pack = chain.packer()
    prev, kept = chain.GENESIS, []
    for position, (event, when) in enumerate(zip(events, times)):
        if position == len(events) // 2:
            with pytest.raises((OverflowError, TypeError)):
                pack([position, {"amount": 1 << 70}, when])      # left half-written in its buffer?
        prev = chain.link(prev, position, event, when, pack)
        kept.append(prev)
    assert kept == chain.hashes(chain.GENESIS, events, times)
    assert pack([1, events[0], times[0]]) == msgpack.packb([1, events[0], times[0]])


@pytest.mark.parametrize("name", ["Blue-Eyes White Dragon", "Elemental HERO Stratos", "A Legendary Ocean",
                                  "Dark Magician of Chaos and Order"])
def test_a_zone_name_is_wrapped_for_its_width(name):
    """A name's lines are kept by the name and the width (``render._name_lines``): the same
    name drawn at another width is wrapped for that width, not given the first width's lines."""
    from ygoreplay.render import _name_lines
    for width in (8, 11, 14, 30, 11, 8):
        assert _name_lines(name, width) == tuple(_wrapped(name, width, 2)), (name, width)
    assert _name_lines(name, 8) != _name_lines(name, 30)


def _traced(monkeypatch) -> list[str]:
    """The statements every SQLite connection opened from now on runs, in order."""
    ran: list[str] = []
    connect = sqlite3.connect

    def traced(*args, **kwargs):
        connection = connect(*args, **kwargs)
        connection.set_trace_callback(ran.append)
        return connection
    monkeypatch.setattr(sqlite3, "connect", traced)
    return ran


def test_a_whole_duel_id_is_resolved_in_one_statement(tmp_path, monkeypatch):
    """``Store.resolve`` of a whole id reads its header row's topic in one statement, with no
    BEGIN and ROLLBACK around it (a board at N in process opens a store for one seek: issue 25);
    a prefix is still looked up among the duels."""
    path = tmp_path / "duels.sqlite"
    with Store(str(path)) as writer:
        duel = recorded(writer, DAMAGE)
    ran = _traced(monkeypatch)
    with Store(str(path), readonly=True) as reader:
        reader.state_at(duel, 3)                  # the pool's connection made: its first statements
        ran.clear()
        assert reader.resolve(duel) == duel
        assert len(ran) == 1 and ran[0].startswith("SELECT topic FROM"), ran
        assert reader.resolve(duel[:5]) == duel


def test_a_whole_id_of_another_stream_is_no_duel(store_url, store):
    """The header row's topic decides: a match's whole id is no duel's (nor is an id no stream
    has), and is the match's."""
    import ygoreplay.match.live  # noqa: F401  (a match's events and stream kind: registered)
    from test_match_service import MATCHES, lines
    from ygoreplay.events import from_dict
    duel = recorded(store, DAMAGE)
    match = store.record([from_dict(e) for e in lines(MATCHES / "two-nil.jsonl")][:5], "m", kind="match")[0]
    assert store.resolve(duel) == duel and store.resolve(match, "match") == match
    with pytest.raises(StoreError, match="no duel matches"):
        store.resolve(match)
    with pytest.raises(StoreError, match="no match matches"):
        store.resolve(duel, "match")
    with pytest.raises(StoreError, match="no duel matches"):
        store.resolve(next(i for i in ("0123456789ab", "ba9876543210") if i not in (duel, match)))


def test_one_language_for_a_drawing_and_only_there(monkeypatch):
    """``card_names.one_language`` fixes the names' language for a board drawn now (read once, not
    at each of its ~20 names): inside it a change of ``$YGOREPLAY_CARD_LANG`` waits for the next
    board; another thread reads its own environment's; after it, the environment decides again."""
    import threading

    from ygoreplay import card_names
    monkeypatch.setenv(card_names.NAMES_ENV, "fr")
    seen: list[str] = []
    with card_names.one_language() as fixed:
        assert fixed == "fr"
        monkeypatch.setenv(card_names.NAMES_ENV, "de")
        assert card_names.names_language() == "fr"
        worker = threading.Thread(target=lambda: seen.append(card_names.names_language()))
        worker.start()
        worker.join()
    assert seen == ["de"]
    assert card_names.names_language() == "de"
