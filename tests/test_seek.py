"""Seeking into a stored duel (issue 25), on SQLite and PostgreSQL.

A seek starts from the nearest snapshot and keeps two things between calls: the card facts it
validated (by the bytes of their records) and the snapshots whose signature held (by theirs).
Neither may hide a change made behind the store's back. ``show --at N`` of a stored duel reads
only from the nearest snapshot on, and must print the board the full fold of the duel gives.
"""
from __future__ import annotations

import zlib

import msgpack
import pytest
from click.testing import CliRunner

from duel import CARDS, snapshot
from test_store import (  # noqa: F401  (fixtures)
    DAMAGE, DECK_OUT, board, execute, open_store, recorded, rollback, sample, store, store_url)
from ygoreplay.cli import main
from ygoreplay.render import render
from ygoreplay.rules import replay
from ygoreplay.source import SourceError, open_source, stored_board
from ygoreplay.state import Side
from ygoreplay.store import SNAPSHOT_EVERY, StoreError

WHERE = "WHERE originator_id = ? AND originator_version = ?"


def test_card_facts_changed_after_a_seek_are_read_again(store_url, store):
    duel = recorded(store, DAMAGE)
    store.state_at(duel, 40)                            # the facts validated once, kept by their bytes
    (version, state), = execute(store_url, "SELECT originator_version, state FROM {t} WHERE originator_id = ?",
                                (f"{duel}/cards",))
    execute(store_url, f"UPDATE {{t}} SET state = ? {WHERE}", (bytes(state)[:-3], f"{duel}/cards", version))
    with pytest.raises(StoreError, match="its card facts cannot be read"):
        store.state_at(duel, 40)


def test_a_snapshot_edited_after_a_seek_is_no_longer_used(store_url, store):
    """The snapshot's LP changed, its signature kept: the same store, which checked that snapshot
    before, now finds the signature does not hold and starts from the snapshot before it."""
    events = sample(DECK_OUT)
    duel = recorded(store, DECK_OUT)
    at = 2 * SNAPSHOT_EVERY
    expected = snapshot(replay(events, CARDS, at=at + 4))
    assert snapshot(store.state_at(duel, at + 5)) == expected
    (state,), = execute(store_url, f"SELECT state FROM {{t}} {WHERE}", (duel, at), snapshots=True)
    snap = msgpack.unpackb(bytes(state))
    data = msgpack.unpackb(zlib.decompress(snap["d"]))           # deflated msgpack (store._pack_snapshot)
    data["state"]["sides"][0][Side.__slots__.index("lp")] += 1000
    snap["d"] = zlib.compress(msgpack.packb(data))
    execute(store_url, f"UPDATE {{t}} SET state = ? {WHERE}", (msgpack.packb(snap), duel, at), snapshots=True)
    assert snapshot(store.state_at(duel, at + 5)) == expected


@pytest.mark.parametrize("to", [2 * SNAPSHOT_EVERY, 2 * SNAPSHOT_EVERY + 1])
def test_a_rollback_right_after_a_snapshot_restores_the_state_there(store, open_store, to):
    """A fold resumed from the snapshot at 64 keeps no copy of its first state: a rollback to it
    (or just past it) asks the store again."""
    events = sample(DECK_OUT)
    duel = recorded(store, DECK_OUT, 2 * SNAPSHOT_EVERY + 6)
    cold = open_store()
    assert cold.append(duel, rollback(to)) == 2 * SNAPSHOT_EVERY + 7
    assert board(cold.state_at(duel)) == board(replay(events, CARDS, at=to - 1))
    assert cold.verify(duel).ok


def test_show_at_each_event_of_a_stored_duel_is_the_full_folds_board(store_url, store):
    """Events #0..#39, a rollback to #33, the rest of the duel again: the board after every event
    (taken from the nearest snapshot) is the one the whole record folded gives, titled alike."""
    events = sample(DAMAGE)
    duel = recorded(store, DAMAGE, 40)
    store.append(duel, rollback(33))
    store.append(duel, events[33:])
    source = open_source(duel, store, CARDS)
    assert len(source.events) == 41 + len(events) - 33
    for n in range(len(source.events)):
        index, event, state = stored_board(store, duel[:8], n)
        assert (index, event) == (n, source.events[n])
        assert snapshot(state) == snapshot(source.state_after(n)), n
    assert stored_board(store, duel, None)[0] == len(source.events) - 1
    last = len(source.events) - 1
    for outside in (-1, last + 1):
        with pytest.raises(SourceError, match=rf"--at {outside} is outside the duel's events 0..{last}"):
            stored_board(store, duel, outside)
    shown = CliRunner().invoke(main, ["show", duel, "--at", "57", "--store", store_url])
    assert shown.exit_code == 0, shown.output
    assert shown.output == render(source.state_after(57), f"after event #57 ({source.events[57].kind})", width=80)


def test_a_whole_id_is_resolved_without_listing_every_duel(store):
    """Listing the duels reads the whole store (it was most of ``show --at N``'s time)."""
    duel = recorded(store, DAMAGE, 5)
    listed = store.ids
    store.ids = lambda kind="duel": pytest.fail("every duel listed to resolve a whole id")
    assert store.resolve(duel) == duel
    store.ids = listed
    assert store.resolve(duel[:5]) == duel
    for other in (f"{duel}/cards", f"{duel}/head", "", duel + "0"):
        with pytest.raises(StoreError, match="no duel matches"):
            store.resolve(other)


def test_a_correction_in_a_new_duels_first_append_is_judged_with_the_cards_it_brought(store):
    """A witnessed duel sent whole in its first append (a recorder back online): the correction
    in it goes back to the duel's first state, which must know the cards that append brought,
    not the none the empty duel had (a fresh start is made again from today's card facts)."""
    from pathlib import Path

    from ygoreplay.jsonl import read_events
    events = read_events(Path(__file__).parent.parent / "replays" / "witnessed-illegal-play.jsonl")
    assert any(e.kind == "entry_corrected" for e in events)
    duel = store.create_duel("back online")
    assert store.witnessed(duel) == (0, False, None)    # as the application asks before an append
    store.append(duel, events)
    assert store.info(duel).events == len(events)
    assert [s.lp for s in store.state_at(duel).sides] == [s.lp for s in replay(events, store.cards_of(duel)[0]).sides]


def test_an_organiser_key_file_reads_the_same_without_the_serialization_module():
    """A reader needs only the key's public half: the PEM ``to_pem`` writes is read directly,
    any other form still by cryptography (and refused alike when it is no Ed25519 key)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    from ygoreplay.errors import InputError
    from ygoreplay.signing import OrganiserKey
    key = OrganiserKey.generate()
    pem = key.to_pem()
    read = OrganiserKey.from_pem(pem)
    assert read.public == OrganiserKey(serialization.load_pem_private_key(pem, password=None)).public == key.public
    assert key.public.verify(read.sign(b"board"), b"board")
    other = rsa.generate_private_key(public_exponent=65537, key_size=1024).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    with pytest.raises(InputError, match="not an Ed25519 private key"):
        OrganiserKey.from_pem(other)
    with pytest.raises(InputError, match="not a readable private key"):
        OrganiserKey.from_pem(b"-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n")


def test_a_replaced_organiser_key_is_read_again(store, tmp_path, monkeypatch):
    """The organiser key's public half is kept per process by its file's identity: a new key
    file is read again, and a store opened since trusts its signatures, not the old key's."""
    from ygoreplay.signing import OrganiserKey
    from ygoreplay.store import Store
    path = tmp_path / "organiser.key"
    monkeypatch.setenv("YGOREPLAY_KEY", str(path))
    first, second = OrganiserKey.generate(), OrganiserKey.generate()
    path.write_bytes(first.to_pem())
    with Store(store.name, readonly=True) as reader:
        assert reader.trusts(first.public.raw) == first.public
    path.unlink()
    path.write_bytes(second.to_pem())
    with Store(store.name, readonly=True) as reader:
        assert reader.trusts(second.public.raw) == second.public
        assert reader.trusts(first.public.raw) is None


def test_a_plain_snapshot_an_older_version_wrote_is_still_used_and_verified(store_url, store, open_store):
    """Snapshots were plain msgpack before they were deflated (no ``z``): a store written then is
    read from them, seeks give the full fold's state, and verify checks them as it did."""
    events = sample(DECK_OUT)
    duel = recorded(store, DECK_OUT, 3 * SNAPSHOT_EVERY + 5)
    for at in (SNAPSHOT_EVERY, 2 * SNAPSHOT_EVERY, 3 * SNAPSHOT_EVERY):
        (state,), = execute(store_url, f"SELECT state FROM {{t}} {WHERE}", (duel, at), snapshots=True)
        snap = msgpack.unpackb(bytes(state))
        assert snap.pop("z") == 1                                      # written deflated
        data = zlib.decompress(snap["d"])
        snap.update(d=data, sig=store.key.sign(store._snapshot_message(duel, at, snap["h"], data)))
        execute(store_url, f"UPDATE {{t}} SET state = ? {WHERE}", (msgpack.packb(snap), duel, at), snapshots=True)
    cold = open_store()
    for n in range(SNAPSHOT_EVERY, 3 * SNAPSHOT_EVERY + 6):
        assert snapshot(cold.state_at(duel, n)) == snapshot(replay(events, CARDS, at=n - 1)), n
    assert cold.verify(duel).ok


def test_a_board_within_the_duel_says_why_it_cannot_be_read(store_url, store):
    """``show --at N`` reads the board without the duel's length: a store error at an event
    inside the duel is the store's reason, not "outside the duel's events"."""
    duel = recorded(store, DAMAGE, 40)
    (version, state), = execute(store_url, "SELECT originator_version, state FROM {t} WHERE originator_id = ?",
                                (f"{duel}/cards",))
    execute(store_url, f"UPDATE {{t}} SET state = ? {WHERE}", (bytes(state)[:-3], f"{duel}/cards", version))
    with pytest.raises(StoreError, match="its card facts cannot be read"):
        stored_board(store, duel, 20)
    with pytest.raises(SourceError, match=r"--at 40 is outside the duel's events 0..39"):
        stored_board(store, duel, 40)


def test_a_store_file_replaced_by_another_database_is_refused_again(tmp_path):
    """A file found a store is not asked again in this process while it is the same file; one put
    in its place is (and refused untouched when it is no store)."""
    import sqlite3

    from ygoreplay.store import Store
    path = tmp_path / "duels.sqlite"
    Store(str(path)).close()
    Store(str(path), readonly=True).close()
    path.unlink()
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE notes (x TEXT)")
    other.commit()
    other.close()
    with pytest.raises(StoreError, match="is not a ygoreplay store"):
        Store(str(path), readonly=True)


def test_a_snapshot_from_before_the_newer_card_slots_gives_their_defaults():
    """Card rows as a snapshot stored before ``_CARD_DEFAULTS``' slots were added (shorter) are
    built with those slots' defaults; every other slot, and every card, as stored."""
    from ygoreplay.state import _CARD_DEFAULTS, Card, DuelState
    state = replay(sample(DECK_OUT), CARDS, at=60)
    data = msgpack.unpackb(msgpack.packb(state.to_data()))
    old = len(Card.__slots__) - len(_CARD_DEFAULTS)
    data["cards"] = [row[:old] for row in data["cards"]]
    read = DuelState.from_data(data, CARDS)
    assert list(read.cards) == list(state.cards)
    for card_id, card in state.cards.items():
        for slot in Card.__slots__:
            want = _CARD_DEFAULTS[slot] if slot in _CARD_DEFAULTS else getattr(card, slot)
            assert getattr(read.cards[card_id], slot) == want, (card_id, slot)
    assert snapshot(DuelState.from_data(msgpack.unpackb(msgpack.packb(state.to_data())), CARDS)) == snapshot(state)


def test_every_position_of_real_duels_is_the_full_folds(tmp_path):
    """Three real EDOPro duels recorded, then sought at every position by a store that did not
    write them (its snapshots' MACs checked, the cards built from their rows): the whole state
    (``to_data``) is the full fold's."""
    from test_state_copy import _real_duels

    from ygoreplay.rules import History
    from ygoreplay.store import Store
    url = str(tmp_path / "real.sqlite")
    with Store(url) as writer:
        duels = [(writer.record(result.events, "real", cards=result.cards, check=False)[0], result.events)
                 for result in _real_duels(3)]
    with Store(url, readonly=True) as reader:
        for duel, events in duels:
            history = History(reader.cards_of(duel)[0], audit=True)
            assert reader.state_at(duel, 0).to_data() == history.state.to_data()
            for n, event in enumerate(events, 1):
                history.append(event)
                want = msgpack.unpackb(msgpack.packb(history.state.to_data()))
                assert msgpack.unpackb(msgpack.packb(reader.state_at(duel, n).to_data())) == want, (duel, n)


def test_card_entries_are_kept_by_their_exact_bytes():
    """A duel's first seek in a process reads its card records' entries once per exact encoding
    (``store._ENTRY_FACTS``: the duels of a store share most cards, issue 25): an entry equal
    as Python values but not as bytes (a level of ``true`` where one of 1 was read) is validated
    afresh, and refused."""
    from ygoreplay.cards import CardDBError
    from ygoreplay.store import _card_facts
    entry = {"code": 89631139, "name": "Blue-Eyes White Dragon", "type": 17, "level": 1, "atk": 3000, "defense": 2500}
    first = _card_facts(dict(entry))
    assert first.level == 1 and _card_facts(dict(entry)) is first
    with pytest.raises(CardDBError, match="level"):
        _card_facts({**entry, "level": True})
    assert _card_facts({**entry, "atk": 2999}).atk == 2999


def test_the_user_folder_follows_its_settings(monkeypatch, tmp_path):
    """``data_dir`` is made once per value of its settings (every Store that checks a signature
    looks for the organiser key there: issue 25), and follows them when they change."""
    from ygoreplay.files import data_dir
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "a"))
    assert data_dir() == tmp_path / "a" / "ygoreplay"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "b"))
    assert data_dir() == tmp_path / "b" / "ygoreplay"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert data_dir() == tmp_path / "h" / ".local" / "share" / "ygoreplay"
