"""One signature a group commit (issue 25): the anchors the group commit writes together are the
leaves of a Merkle tree whose root is signed once, each anchor keeping its audit path; a lone
append's anchor is signed alone, as every anchor was before. Every reader checks an anchor through
``Head.signed_by``: a path that is another duel's or another group's, cut short, too long,
altered, or taken away is refused, on SQLite and PostgreSQL, by ``verify``, by a reader that holds
only the public key, and by the next append. Anchors stored before (no path) still load and verify.
"""
from __future__ import annotations

import msgpack
import pytest

from test_group_commit import _held_group, concurrent, url  # noqa: F401 (the fixtures)
from test_store import execute, sample
from test_store_cli import clean, run
from ygoreplay import signing
from ygoreplay.errors import VerificationError
from ygoreplay.signing import OrganiserKey
from ygoreplay.store import _GROUP_LABEL, Head, Store

DAMAGE = "won-by-damage.jsonl"
#: The fields of an anchor as written before groups were signed together (and still, alone).
ALONE = {"n", "h", "header", "cards", "status", "key", "sig", "mac"}


@pytest.fixture
def signs(monkeypatch) -> list[bytes]:
    """The messages signed from now on."""
    seen: list[bytes] = []
    real = OrganiserKey.sign

    def counted(self: OrganiserKey, message: bytes) -> bytes:
        seen.append(message)
        return real(self, message)
    monkeypatch.setattr(OrganiserKey, "sign", counted)
    return seen


def anchors(url: str, duel: str) -> dict[int, dict]:
    rows = execute(url, "SELECT originator_version, state FROM {t} WHERE originator_id = ?", (f"{duel}/head",))
    return {version: msgpack.unpackb(bytes(state)) for version, state in rows}


def set_anchor(url: str, duel: str, version: int, anchor: dict) -> None:
    execute(url, "UPDATE {t} SET state = ? WHERE originator_id = ? AND originator_version = ?",
            (msgpack.packb(anchor), f"{duel}/head", version))


def in_groups(store: Store, duels: list[str], events: tuple, twins: bool = False) -> None:
    """Each event appended to every one of ``duels`` in one group commit (held behind a lone
    append to a duel of its own), at a given time; ``twins``: the duels (ids not yet taken) are
    made by the first group, as copies (the same header, times and events: only ids differ)."""
    made = dict(title="twin", root=bytes(32), secret=bytes(32), created="2026-12-05T00:00:00.000+00:00")
    for k, event in enumerate(events):
        times = [f"2026-12-05T00:00:{k + 1:02d}.000+00:00"]
        first = store.create_duel("held")
        if twins and k == 0:
            appends = [lambda d=d: store.record([event], times=times, stream_id=d, **made) for d in duels]
        else:
            appends = [lambda d=d: store.append(d, event, times=times) for d in duels]
        _held_group(store, lambda: store.append(first, sample(DAMAGE)[0]), appends)


def reader(url: str, store: Store) -> Store:
    """A store that holds only the signer's public key: it checks signatures, never a MAC."""
    return Store(url, readonly=True, trust=[store.key.public])


def test_a_group_is_signed_once_and_each_anchor_carries_its_path(url, concurrent, signs):
    duels = [concurrent.create_duel(f"table {i}") for i in range(5)]
    signs.clear()
    in_groups(concurrent, duels, sample(DAMAGE)[:1])
    grouped = [anchors(url, d)[1] for d in duels]
    # the held duel made and appended to (alone each), then the group of five: one signature
    assert [m.startswith(_GROUP_LABEL) for m in signs] == [False, False, True]
    assert len({a["sig"] for a in grouped}) == 1
    assert sorted(len(a["path"]) // 32 for a in grouped) == [1, 3, 3, 3, 3]  # 5 leaves: one goes up unpaired
    with reader(url, concurrent) as public:
        for duel in duels:
            assert public.verify(duel).ok and public.info(duel).signed
            assert public.state_at(duel, 1) is not None
    with Store(url) as other:                                                # a fresh append loads each
        assert [other.append(d, sample(DAMAGE)[1]) for d in duels] == [2] * 5


def test_a_lone_append_is_signed_alone_as_anchors_always_were(url, concurrent, signs):
    duel = concurrent.create_duel("alone")
    concurrent.append(duel, sample(DAMAGE)[0])
    assert [m[:17] for m in signs] == [b"ygoreplay/head/2\0"] * 2
    assert all(set(anchor) == ALONE for anchor in anchors(url, duel).values())


def test_anchors_stored_before_groups_load_and_verify(url, concurrent):
    """A store written before anchors carried a path (nor a MAC: the oldest): read by a reader
    with the public key, verified, and appended to in a group, after which both kinds verify."""
    events = sample(DAMAGE)
    with Store(url) as old:
        duels = [old.create_duel(f"old {i}") for i in range(3)]
        for duel in duels:
            old.append(duel, events[:3])
    for duel in duels:
        for version, anchor in anchors(url, duel).items():
            assert set(anchor) == ALONE
            set_anchor(url, duel, version, {k: v for k, v in anchor.items() if k != "mac"})
    with reader(url, concurrent) as public:
        assert all(public.verify(d).ok and public.state_at(d, 3) is not None for d in duels)
    in_groups(concurrent, duels, events[3:5])
    assert all("path" in anchors(url, d)[5] and "path" not in anchors(url, d)[3] for d in duels)
    with reader(url, concurrent) as public:
        assert all(public.verify(d).ok and public.state_at(d, 4) is not None for d in duels)


def test_a_path_of_no_steps_is_a_group_of_one():
    key = OrganiserKey.generate()
    head = Head(1, bytes(32), bytes(32), bytes(32), {"turn": 1}, key.public.raw, b"")
    root, [(path, left)] = signing.tree([head.message("abc")])
    assert (path, left) == (b"", 0) and root == signing.root_of(head.message("abc"), b"", 0)
    assert head.signed(key.sign(_GROUP_LABEL + root), b"").signed_by(key.public, "abc")
    assert head.signed(key.sign(head.message("abc"))).signed_by(key.public, "abc")
    assert not head.signed(key.sign(head.message("abc")), b"").signed_by(key.public, "abc")
    assert not head.signed(key.sign(_GROUP_LABEL + root)).signed_by(key.public, "abc")
    assert not head.signed(key.sign(_GROUP_LABEL + root), b"").signed_by(key.public, "abd")


def test_every_leaf_of_any_tree_leads_to_its_root():
    for n in range(1, 70):
        messages = [bytes([i % 256, i // 256]) * 3 for i in range(n)]
        root, paths = signing.tree(messages)
        assert all(signing.root_of(m, path, left) == root for m, (path, left) in zip(messages, paths))
        assert all(len(path) // 32 <= n.bit_length() for path, _left in paths)


def _flip(path: bytes) -> bytes:
    return bytes([path[0] ^ 1]) + path[1:]


ATTACKS = {
    # each: the anchor of duel 0 at 2 events, given what the other anchors are
    "another duel's path": lambda mine, theirs, earlier: {**mine, "path": theirs["path"], "left": theirs["left"]},
    "another duel's leaf": lambda mine, theirs, earlier: theirs,
    "another group's root": lambda mine, theirs, earlier: {**mine, **{k: earlier[k] for k in ("sig", "path", "left")}},
    "a sibling's bit flipped": lambda mine, theirs, earlier: {**mine, "path": _flip(mine["path"])},
    "the path cut short": lambda mine, theirs, earlier: {
        **mine, "path": mine["path"][:-32], "left": mine["left"] & ((1 << (len(mine["path"]) // 32 - 1)) - 1)},
    "the path taken away": lambda mine, theirs, earlier: {k: v for k, v in mine.items() if k not in ("path", "left")},
}


@pytest.mark.parametrize("how", list(ATTACKS))
def test_an_anchor_given_a_path_that_is_not_its_own_is_refused(url, concurrent, how):
    """Duels made as twins (the same header, times and events: their anchors differ only in the
    duel id their leaves bind) and appended to in groups; duel 0's last anchor altered."""
    duels = [f"{i:012x}" for i in range(1, 5)]
    in_groups(concurrent, duels, sample(DAMAGE)[:2], twins=True)
    mine, theirs = anchors(url, duels[0]), anchors(url, duels[1])
    proofs = ("sig", "path", "left", "mac")                   # each binds the duel's id
    assert {k: v for k, v in mine[2].items() if k not in proofs} == {k: v for k, v in theirs[2].items() if k not in proofs}
    set_anchor(url, duels[0], 2, ATTACKS[how](mine[2], theirs[2], mine[1]))
    refused(url, concurrent, duels[0], "signature of its anchor at 2 does not hold")


def refused(url: str, store: Store, duel: str, problem: str) -> None:
    """Whatever reads the duel's last anchor by its signature refuses it."""
    with reader(url, store) as public:
        result = public.verify(duel)
        assert not result.ok and problem in result.problem
        with pytest.raises(VerificationError, match=f"duel {duel}"):
            public.state_at(duel, 2)
        assert not public.info(duel).signed
    with Store(url) as other, pytest.raises(VerificationError, match=f"duel {duel}"):
        other.append(duel, sample(DAMAGE)[2])
    clean(run("verify", duel, url=url), 1)


@pytest.mark.parametrize("how, problem", [
    ("over long", "an audit path of 33 steps is longer than 32"),
    ("a hash cut", "an audit path is whole 32-byte hashes, not 63 bytes"),
    ("sides past its steps", "an audit path's sides are 2 bits, not 4"),
    ("sides without a path", "an anchor's audit path sides without its path"),
])
def test_an_audit_path_of_the_wrong_size_is_refused_unread(url, concurrent, how, problem):
    duels = [concurrent.create_duel(f"table {i}") for i in range(4)]
    in_groups(concurrent, duels, sample(DAMAGE)[:2])
    anchor = anchors(url, duels[0])[2]
    assert len(anchor["path"]) == 64                        # 4 leaves: 2 steps each
    if how == "over long":
        anchor["path"] += bytes(32 * 31)
    elif how == "a hash cut":
        anchor["path"] = anchor["path"][:-1]
    elif how == "sides past its steps":
        anchor["left"] = 4
    else:
        anchor = {k: v for k, v in anchor.items() if k != "path"}
    set_anchor(url, duels[0], 2, anchor)
    refused(url, concurrent, duels[0], problem)


def test_an_old_anchor_without_its_signature_is_refused(url, concurrent):
    duel = concurrent.create_duel("alone")
    concurrent.append(duel, sample(DAMAGE)[:2])
    anchor = anchors(url, duel)[2]
    assert set(anchor) == ALONE
    set_anchor(url, duel, 2, {k: v for k, v in anchor.items() if k not in ("sig", "mac")})
    refused(url, concurrent, duel, "an anchor without its 'sig'")
