"""A snapshot's MAC (issue 25, fourth pass), on SQLite and PostgreSQL.

Each snapshot is signed and, besides, tagged with an HMAC under a key derived from the signing
key's seed (``OrganiserKey.mac``). A store that holds that private key (the one that wrote it,
a reader that loaded the organiser key) checks the MAC instead of the Ed25519 signature, a fifth
of a seek; any other reader (``verify --key``: a public key only), a snapshot written before
MACs and one whose MAC does not hold are checked by the signature, as before. Someone who can
write the database but holds no secret cannot make a MAC: a snapshot they altered is not used
(the seek starts from the snapshot before it), whatever MAC they give it.
"""
from __future__ import annotations

import hmac
import zlib

import msgpack
import pytest

from duel import CARDS, snapshot
from test_store import DECK_OUT, execute, open_store, recorded, sample, store, store_url  # noqa: F401
from ygoreplay.rules import replay
from ygoreplay.signing import OrganiserKey, PublicKey
from ygoreplay.state import Side
from ygoreplay.store import SNAPSHOT_EVERY, Store

WHERE = "WHERE originator_id = ? AND originator_version = ?"
AT = 2 * SNAPSHOT_EVERY                       # the snapshot sought from (at AT + 5)


@pytest.fixture
def checks(monkeypatch) -> list[bytes]:
    """The messages whose Ed25519 signature is checked from now on."""
    seen: list[bytes] = []
    real = PublicKey.verify

    def counted(self: PublicKey, signature: bytes, message: bytes) -> bool:
        seen.append(message)
        return real(self, signature, message)
    monkeypatch.setattr(PublicKey, "verify", counted)
    return seen


def stored_snapshot(url: str, duel: str, at: int = AT) -> dict:
    (state,), = execute(url, f"SELECT state FROM {{t}} {WHERE}", (duel, at), snapshots=True)
    return msgpack.unpackb(bytes(state))


def rewrite(url: str, duel: str, snap: dict, at: int = AT) -> None:
    """The snapshot at ``at`` replaced behind the store's back."""
    execute(url, f"UPDATE {{t}} SET state = ? {WHERE}", (msgpack.packb(snap), duel, at), snapshots=True)


def expected_at(n: int) -> list:
    return snapshot(replay(sample(DECK_OUT), CARDS, at=n - 1))


def snapshots(checks: list[bytes]) -> list[bytes]:
    """The snapshots' among the messages checked (a seek checks its anchors too: test_seek_seal.py)."""
    return [m for m in checks if not m.startswith(b"ygoreplay/head/")]


def message(store: Store, duel: str, snap: dict) -> bytes:
    return store._snapshot_message(duel, AT, snap["h"], snap["d"])


def test_a_store_holding_the_key_checks_the_mac_not_the_signature(store_url, store, checks):
    duel = recorded(store, DECK_OUT)
    snap = stored_snapshot(store_url, duel)
    assert hmac.compare_digest(snap["mac"], store.key.mac(message(store, duel, snap)))
    with Store(store_url, readonly=True) as reader:         # the organiser key, loaded by ``trusts``
        assert snapshot(reader.state_at(duel, AT + 5)) == expected_at(AT + 5)
    with Store(store_url, key=store.key) as writer:         # a store that signs with it
        assert snapshot(writer.state_at(duel, AT + SNAPSHOT_EVERY + 3)) == expected_at(AT + SNAPSHOT_EVERY + 3)
    assert checks == []


@pytest.mark.parametrize("held", ["none", "another"])
def test_a_reader_that_holds_only_the_public_key_checks_the_signature(store_url, store, checks, tmp_path,
                                                                     monkeypatch, held):
    """``verify --key`` of a store another organiser wrote: no key file, or one of another key."""
    duel = recorded(store, DECK_OUT)
    key_file = tmp_path / "elsewhere.key"
    if held == "another":
        key_file.write_bytes(OrganiserKey.generate().to_pem())
    monkeypatch.setenv("YGOREPLAY_KEY", str(key_file))
    with Store(store_url, readonly=True, trust=[store.key.public]) as reader:
        assert snapshot(reader.state_at(duel, AT + 5)) == expected_at(AT + 5)
    assert message(store, duel, stored_snapshot(store_url, duel)) in checks    # and the seal's past it


@pytest.mark.parametrize("spoiled", ["stripped", "garbage", "not bytes"])
def test_a_snapshot_whose_mac_does_not_hold_is_used_by_its_signature(store_url, store, checks, spoiled):
    """A snapshot written before MACs (none) or one whose MAC alone was spoiled: its data is still
    the signer's, so it is used, the signature checked."""
    duel = recorded(store, DECK_OUT)
    snap = stored_snapshot(store_url, duel)
    if spoiled == "stripped":
        del snap["mac"]
    else:
        snap["mac"] = bytes(32) if spoiled == "garbage" else "mac"
    rewrite(store_url, duel, snap)
    with Store(store_url, readonly=True) as reader:
        assert snapshot(reader.state_at(duel, AT + 5)) == expected_at(AT + 5)
    assert snapshots(checks) == [message(store, duel, snap)]     # this snapshot's, by its signature


@pytest.mark.parametrize("tag", ["kept", "another key", "public key", "duel secret", "none"])
def test_a_snapshot_altered_behind_the_stores_back_is_not_used_whatever_its_mac(store_url, store, open_store,
                                                                                 tag):
    """The snapshot's LP changed (the signature kept) and its MAC kept, or remade with a key that
    is not the organiser's secret: another organiser's, one derived from what the database holds
    (the public key, the duel's own secret). The seek starts from the snapshot before it and
    gives the full fold's state; ``verify`` says the snapshot is not signed."""
    duel = recorded(store, DECK_OUT)
    snap = stored_snapshot(store_url, duel)
    data = msgpack.unpackb(zlib.decompress(snap["d"]))
    data["state"]["sides"][0][Side.__slots__.index("lp")] += 1000
    snap["d"] = zlib.compress(msgpack.packb(data))
    altered = message(store, duel, snap)
    if tag == "another key":
        snap["mac"] = OrganiserKey.generate().mac(altered)
    elif tag == "public key":
        snap["mac"] = hmac.digest(store.key.public.raw, altered, "sha256")
    elif tag == "duel secret":
        snap["mac"] = hmac.digest(store.header(duel).secret, altered, "sha256")
    elif tag == "none":
        del snap["mac"]
    rewrite(store_url, duel, snap)
    for reader in (open_store(), Store(store_url, readonly=True)):
        with reader:
            assert snapshot(reader.state_at(duel, AT + 5)) == expected_at(AT + 5)
    result = store.verify(duel)
    assert not result.ok and f"the snapshot at {AT} is not signed" in result.problem


def test_a_mac_is_the_keys_own():
    key, other = OrganiserKey.generate(), OrganiserKey.generate()
    tag = key.mac(b"ygoreplay/snapshot/2\0board")
    assert key.check_mac(tag, b"ygoreplay/snapshot/2\0board")
    assert OrganiserKey.from_pem(key.to_pem()).check_mac(tag, b"ygoreplay/snapshot/2\0board")   # the seed's, not the object's
    assert not key.check_mac(tag, b"ygoreplay/snapshot/2\0boarD")
    assert not other.check_mac(tag, b"ygoreplay/snapshot/2\0board")
    assert not key.check_mac(tag.hex(), b"ygoreplay/snapshot/2\0board")
    assert not key.check_mac(None, b"ygoreplay/snapshot/2\0board")
