"""Attacks on the anchors a group commit signs together (issue 25: one Ed25519 signature a group
over a Merkle root, ``Head.signed_by``), by whoever can write to the database but holds no
private key, and by a reader that holds only the public key.

What broke: a seal (anchor or snapshot) that a store holding the private key had vouched for by
its MAC was then taken, on the same bytes, by a store of the same process that holds only the
public key (the process-wide ``_ANCHORED``/``_SIGNED``), its signature never checked: an anchor
whose signature was garbage showed a board to a judge's reader in the same process (the service,
the resident helper, a test) and was refused in a fresh one. What held is kept here too: the
audit path's msgpack types, a garbage MAC in a store with the key and one without, a fresh
process with only the public key verifying a store, an export and a branch of grouped anchors,
and a group whose every write fails after it was signed.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest

from test_group_commit import _held_group, concurrent, url  # noqa: F401 (the fixtures)
from test_group_signature import anchors, in_groups, reader, set_anchor
from test_store import execute, sample
from test_store_cli import clean, run
from ygoreplay import replay_file
from ygoreplay.application import Records
from ygoreplay.errors import StoreError, VerificationError
from ygoreplay.store import SNAPSHOT_EVERY, Store

DAMAGE = "won-by-damage.jsonl"
ROOT = Path(__file__).resolve().parent.parent


def grouped(url: str, store: Store, n: int = 4) -> list[str]:
    duels = [store.create_duel(f"table {i}") for i in range(n)]
    in_groups(store, duels, sample(DAMAGE)[:2])
    assert all("path" in anchors(url, d)[2] for d in duels)
    return duels


def test_an_anchor_a_key_holder_took_by_its_mac_is_still_checked_by_signature_by_a_public_reader(url, concurrent):
    duel = grouped(url, concurrent)[0]
    anchor = anchors(url, duel)[2]
    set_anchor(url, duel, 2, {**anchor, "sig": bytes(64)})        # its MAC (over its message) still holds
    with Store(url, readonly=True) as holder:                       # loads the organiser key: checks MACs
        assert holder.state_at(duel, 2) is not None                 # vouched for by the MAC, as designed
        assert not holder.verify(duel).ok                           # verify checks the signature always
    with reader(url, concurrent) as public, pytest.raises(VerificationError, match=f"duel {duel}"):
        public.state_at(duel, 2)                                    # as a fresh process would


def test_a_snapshot_a_key_holder_took_by_its_mac_is_still_checked_by_signature_by_a_public_reader(url, concurrent):
    duel = concurrent.create_duel("long")
    concurrent.append(duel, sample(DAMAGE)[:SNAPSHOT_EVERY + 2])
    [(state,)] = execute(url, "SELECT state FROM {t} WHERE originator_id = ? AND originator_version = ?",
                         (duel, SNAPSHOT_EVERY), snapshots=True)
    snap = {**msgpack.unpackb(bytes(state)), "sig": bytes(64)}
    execute(url, "UPDATE {t} SET state = ? WHERE originator_id = ? AND originator_version = ?",
            (msgpack.packb(snap), duel, SNAPSHOT_EVERY), snapshots=True)
    with Store(url, readonly=True) as holder:
        [row] = holder.snapshots.select_events(duel, lte=SNAPSHOT_EVERY)
        assert holder._snapshot_signed(duel, row, snap)              # its MAC holds
    with reader(url, concurrent) as public:
        assert not public._snapshot_signed(duel, row, snap)         # its signature does not
        assert public.state_at(duel, SNAPSHOT_EVERY + 1) is not None  # folded from the start instead


def test_a_garbage_mac_falls_back_to_the_group_signature_with_the_key_and_without(url, concurrent):
    duel = grouped(url, concurrent)[0]
    anchor = anchors(url, duel)[2]
    for mac in (bytes(32), "not bytes", [1, 2]):
        set_anchor(url, duel, 2, {**anchor, "mac": mac})
        for store in (Store(url, readonly=True), reader(url, concurrent)):
            with store:
                assert store.verify(duel).ok and store.state_at(duel, 2) is not None and store.info(duel).signed
    set_anchor(url, duel, 2, {**anchor, "mac": bytes(32), "path": bytes(32) + anchor["path"][32:]})
    with Store(url, readonly=True) as holder, pytest.raises(VerificationError, match=f"duel {duel}"):
        holder.state_at(duel, 2)                                    # neither the MAC nor the path holds


CONFUSIONS = {
    "sides as a bool": lambda a: {**a, "left": bool(a["left"])},
    "sides as a float": lambda a: {**a, "left": float(a["left"])},
    "sides negative": lambda a: {**a, "left": -1},
    "sides past 64 bits": lambda a: {**a, "left": 2 ** 64 - 1},
    "sides as bytes": lambda a: {**a, "left": bytes([a["left"]])},
    "path as text": lambda a: {**a, "path": a["path"].decode("latin-1")},
    "path as a list of hashes": lambda a: {**a, "path": [a["path"][:32], a["path"][32:]]},
    "path as a list of ints": lambda a: {**a, "path": list(a["path"])},
    "path as an ext type": lambda a: {**a, "path": msgpack.ExtType(1, a["path"])},
    "path nil with sides": lambda a: {**a, "path": None},
    "path nil": lambda a: {**{k: v for k, v in a.items() if k != "left"}, "path": None},
    "path empty": lambda a: {**a, "path": b"", "left": 0},
    "path one step": lambda a: {**a, "path": a["path"][32:], "left": a["left"] >> 1},
    "a node as the leaf": lambda a: {**a, "path": a["path"][32:], "left": a["left"] >> 1, "h": a["path"][:32]},
}


@pytest.mark.parametrize("how", list(CONFUSIONS))
def test_an_audit_path_of_another_type_or_shape_is_refused_by_every_reader(url, concurrent, how):
    duel = grouped(url, concurrent)[0]
    anchor = anchors(url, duel)[2]
    set_anchor(url, duel, 2, {k: v for k, v in CONFUSIONS[how](anchor).items() if k != "mac"})
    for store in (Store(url, readonly=True), reader(url, concurrent)):
        with store:
            assert not store.verify(duel).ok and not store.info(duel).signed
            with pytest.raises(VerificationError, match=f"duel {duel}"):
                store.state_at(duel, 2)
    with Store(url) as other, pytest.raises(VerificationError, match=f"duel {duel}"):
        other.append(duel, sample(DAMAGE)[2])


@pytest.mark.parametrize("path, left", [(b"", 0), (bytes(32), 0), (bytes(32), 1)])
def test_an_anchor_signed_alone_given_an_audit_path_is_refused(url, concurrent, path, left):
    """Its signature is over its own message, never over a group's root (``_GROUP_LABEL``)."""
    duel = concurrent.create_duel("alone")
    concurrent.append(duel, sample(DAMAGE)[:2])
    anchor = anchors(url, duel)[2]
    assert "path" not in anchor
    set_anchor(url, duel, 2, {**{k: v for k, v in anchor.items() if k != "mac"}, "path": path, "left": left})
    for store in (Store(url, readonly=True), reader(url, concurrent)):
        with store:
            assert not store.verify(duel).ok and not store.info(duel).signed
            with pytest.raises(VerificationError, match=f"duel {duel}"):
                store.state_at(duel, 2)


def _fresh(args: list[str], data: Path) -> subprocess.CompletedProcess:
    """The command in a process of its own, whose ygoreplay folder holds no private key."""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("YGOREPLAY_")},
           "XDG_DATA_HOME": str(data), "PYTHONPATH": str(ROOT), "YGOREPLAY_RESIDENT": "off"}
    return subprocess.run([sys.executable, "-m", "ygoreplay", *args], env=env, capture_output=True, text=True,
                          timeout=120)


def test_grouped_anchors_verify_exported_and_branched_in_a_process_with_only_the_public_key(tmp_path):
    where = str(tmp_path / "duels.sqlite")
    with Store(where, concurrent=True) as store:
        duels = grouped(where, store)
        public = store.key.public.text
    with Store(where) as store:
        app = Records(store)
        child = app.branch(duels[1], 1)
        replay_file.write(tmp_path / "x.ygr", app.export(duels[0]), store.key)
    judge = tmp_path / "judge"
    for target in (duels[0], duels[1], child):
        done = _fresh(["verify", target, "--store", where, "--key", public], judge)
        assert done.returncode == 0 and "signed by organiser key" in done.stdout, done.stdout + done.stderr
    done = _fresh(["verify", str(tmp_path / "x.ygr"), "--key", public], judge)
    assert done.returncode == 0 and ": ok, 2 events" in done.stdout, done.stdout + done.stderr
    set_anchor(where, duels[0], 2, {**anchors(where, duels[0])[2], "sig": bytes(64)})
    done = _fresh(["verify", duels[0], "--store", where, "--key", public], judge)
    assert done.returncode == 1 and "does not hold" in done.stdout and "Traceback" not in done.stderr


def test_a_group_whose_every_write_fails_after_it_was_signed_writes_nothing_and_tells_every_append(url, concurrent):
    duels = [concurrent.create_duel(f"table {i}") for i in range(4)]
    inner = concurrent._write_rows

    def failing(rows, snapshot_rows):
        if {str(r.originator_id).split("/")[0] for r in rows} & set(duels):
            raise OSError("disk full")
        inner(rows, snapshot_rows)
    outcomes: dict[str, object] = {}

    def append(duel: str) -> None:
        try:
            outcomes[duel] = concurrent.append(duel, sample(DAMAGE)[0])
        except StoreError as exc:
            outcomes[duel] = exc
    concurrent._write_rows = failing
    try:
        first = concurrent.create_duel("held")
        _held_group(concurrent, lambda: concurrent.append(first, sample(DAMAGE)[0]),
                    [lambda d=d: append(d) for d in duels])
    finally:
        concurrent._write_rows = inner
    assert all(isinstance(outcomes[d], StoreError) and "nothing was written" in str(outcomes[d]) for d in duels)
    assert all(set(anchors(url, d)) == {0} and concurrent.info(d).events == 0 for d in duels)
    in_groups(concurrent, duels, sample(DAMAGE)[:1])                    # no signed head half-kept
    with reader(url, concurrent) as public:
        assert all(public.verify(d).ok and public.info(d).events == 1 for d in duels)


FIELDS = {
    "a count as text": {"n": "2"},
    "a count nil": {"n": None},
    "a count as a list": {"n": [2]},
    "a count as a bool": {"n": True},
    "a key as a list": {"key": [1]},
    "a key as a map": {"key": {}},
    "a hash as a list": {"h": [1]},
    "a status as a list": {"status": [1]},
    "a signature as a map": {"sig": {}},
}


@pytest.mark.parametrize("how", list(FIELDS))
def test_an_anchor_field_of_another_type_is_refused_with_a_message_not_an_internal_error(url, concurrent, how):
    duel = grouped(url, concurrent)[0]
    set_anchor(url, duel, 2, {**anchors(url, duel)[2], **FIELDS[how]})
    result = run("verify", duel, url=url)
    clean(result, 1)
    assert "its anchors or card facts cannot be decoded" in result.output
    listed = run("list", url=url)
    clean(listed, 0)                                  # the other duels are still listed
    assert listed.output.count(" events ") == 6
    clean(run("tree", duel, url=url), 0)
    with Store(url) as other, pytest.raises(VerificationError, match=f"duel {duel}"):
        other.append(duel, sample(DAMAGE)[2])
    with Store(url, readonly=True) as holder:
        assert not holder.info(duel).signed
        with pytest.raises(VerificationError, match=f"duel {duel}"):
            holder.state_at(duel, 2)
