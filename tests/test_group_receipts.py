"""A receipt signed with its append's group commit (issue 25, receipt version 2): the receipts of
the appends one group commit writes are leaves of the Merkle tree its anchors are, under its one
signature, each carrying its audit path. It proves what a receipt signed alone proves: a store cut
back behind it is found, by ``verify`` and by the service; altered in any field, or given another
leaf's path, it does not hold; an anchor's path is not a receipt's nor a receipt's an anchor's.
A witness is given receipts signed alone (its table keeps no path), and so is whoever reads a head."""
from __future__ import annotations

import json
import threading

import httpx
import pytest

from test_group_commit import _held_group, concurrent, url  # noqa: F401 (the fixtures)
from test_group_signature import anchors, signs  # noqa: F401 (a fixture)
from test_receipts import FIRST, cut_back
from test_service import Server, auth, create
from test_store import DAMAGE, REPLAYS, sample
from ygoreplay.application import Records
from ygoreplay.errors import InputError
from ygoreplay.receipts import Receipt, Witness, verify as verify_with
from ygoreplay.store import _GROUP_LABEL, Head, Store


def grouped(store: Store, records: Records, duels: list[str]) -> dict[str, Receipt]:
    """The first event appended to each of ``duels`` in one group commit (held behind a lone
    append to a duel of its own): each append's receipt."""
    first = store.create_duel("held")
    got: dict[str, Receipt] = {}
    lock = threading.Lock()

    def append(duel: str) -> None:
        receipt = records.append(duel, [sample(DAMAGE)[0]])
        with lock:
            got[duel] = receipt
    _held_group(store, lambda: append(first), [lambda d=d: append(d) for d in duels])
    return got


def test_a_groups_receipts_are_signed_with_its_anchors_once_and_prove_a_cut(url, concurrent, signs):
    duels = [concurrent.create_duel(f"table {i}") for i in range(5)]
    records = Records(concurrent)
    signs.clear()
    receipts = grouped(concurrent, records, duels)
    # the held duel made (its anchor alone), its append (its anchor and its receipt), then the
    # group of five: a signature each, no more
    assert [m.startswith(_GROUP_LABEL) for m in signs] == [False, True, True]
    for duel in duels:
        receipt = receipts[duel]
        assert (receipt.version, receipt.events, receipt.valid) == (2, 1, True)
        assert receipt.head == concurrent.hash_at(duel, 1) and receipt.signature == anchors(url, duel)[1]["sig"]
        data = json.loads(json.dumps(receipt.to_dict()))
        assert set(data) == {"receipt", "version", "duel", "events", "head", "time", "key", "signature", "path",
                             "left"}
        assert data["version"] == 2 and Receipt.from_dict(data) == receipt
    assert len({r.signature for d, r in receipts.items() if d in duels}) == 1
    duel = duels[0]
    records.append(duel, list(sample(DAMAGE)[1:FIRST]))
    last = records.append(duel, list(sample(DAMAGE)[FIRST:]))
    assert (last.version, last.valid) == (2, True)
    with Store(url) as reader:
        assert verify_with(reader, duel, [receipts[duel], last])[0].ok
    cut_back(url, duel, FIRST)
    with Store(url) as reader:
        result, _ = verify_with(reader, duel, [receipts[duel], last])
    assert (result.ok, result.first_bad) == (False, FIRST)
    assert result.problem == (f"the store holds {FIRST} events but a receipt signed at {last.time} promises 89 "
                              f"with head {last.head.hex()[:16]}: events were removed")


def test_a_group_signed_receipt_altered_or_given_another_leafs_path_does_not_hold(url, concurrent):
    duels = [concurrent.create_duel(f"table {i}") for i in range(4)]
    receipts = grouped(concurrent, Records(concurrent), duels)
    mine, other = receipts[duels[0]], receipts[duels[1]]
    assert mine.valid and other.valid and mine.path and len(mine.path) >= 64
    flipped = bytes([mine.path[0] ^ 1]) + mine.path[1:]
    altered = [{"events": 2}, {"head": other.head}, {"time": "2026-01-01T00:00:00.000+00:00"}, {"duel": duels[1]},
               {"path": flipped}, {"left": mine.left ^ 1}, {"path": mine.path[:32]},
               {"path": other.path, "left": other.left}, {"signature": bytes(64)}]
    for change in altered:
        forged = Receipt(**{**{f: getattr(mine, f) for f in ("duel", "events", "head", "time", "key", "signature",
                                                               "path", "left")}, **change})
        assert not forged.valid, change
    # its path taken away, it claims to be signed alone; its signature is the group's: it does not hold
    alone = Receipt(mine.duel, mine.events, mine.head, mine.time, mine.key, mine.signature)
    assert alone.version == 1 and not alone.valid
    # the anchor's path is not the receipt's, nor the receipt's the anchor's (each leaf is labelled)
    anchor = Head.from_dict(anchors(url, duels[0])[1])
    assert anchor.signed_by(concurrent.key.public, duels[0])
    assert not Receipt(mine.duel, mine.events, mine.head, mine.time, mine.key, mine.signature,
                       path=anchor.path, left=anchor.left).valid
    assert not anchor.signed(anchor.signature, mine.path, mine.left).signed_by(concurrent.key.public, duels[0])


def test_a_receipt_of_version_2_is_read_only_with_its_audit_path(url, concurrent):
    duel = concurrent.create_duel("one")
    data = Records(concurrent).append(duel, [sample(DAMAGE)[0]]).to_dict()
    assert data["version"] == 2
    without = {k: v for k, v in data.items() if k not in ("path", "left")}
    for hostile in (without, {**data, "path": "AAAA"}, {**data, "left": 1 << 40}, {**data, "left": "0"},
                    {**data, "path": 7}, {**without, "version": 1, "path": data["path"]}, {**data, "version": 3}):
        with pytest.raises(InputError, match="the receipt: "):
            Receipt.from_dict(hostile)


def test_a_receipts_encoded_fields_are_refused_past_their_size_before_they_are_decoded(url, concurrent, monkeypatch):
    """A hostile receipt's path, signature, head or key of megabytes (the body may hold 16 MiB)
    is refused by its length, as a clear error, never expanded first: no decoder is handed more
    text than the field's most bytes take."""
    import base64
    import ygoreplay.receipts as receipts
    handed = []
    decode = base64.urlsafe_b64decode
    monkeypatch.setattr(receipts.base64, "urlsafe_b64decode", lambda text: handed.append(len(text)) or decode(text))
    duel = concurrent.create_duel("one")
    data = Records(concurrent).append(duel, [sample(DAMAGE)[0]]).to_dict()
    assert Receipt.from_dict(data).valid
    huge = "A" * 1_000_000
    for field, value in (("path", huge), ("signature", huge), ("head", "0" * 1_000_000), ("key", "ed25519:" + huge)):
        handed.clear()
        with pytest.raises(InputError, match="the receipt: "):
            Receipt.from_dict({**data, field: value})
        assert max(handed, default=0) <= 2048, field


def test_a_witness_and_a_reader_of_the_head_are_given_receipts_signed_alone(url, concurrent, tmp_path):
    duel = concurrent.create_duel("witnessed")
    witnessed = Records(concurrent, Witness(str(tmp_path / "witness.sqlite"))).append(duel, [sample(DAMAGE)[0]])
    assert (witnessed.version, witnessed.witnessed, witnessed.valid) == (1, True, True)
    read = Records(concurrent).receipt(duel)
    assert (read.version, read.events, read.valid) == (1, 1, True)


def test_the_service_answers_a_recorder_with_receipts_its_group_signed_and_verifies_against_them(tmp_path):
    store = str(tmp_path / "duels.sqlite")
    events = [json.loads(line) for line in (REPLAYS / DAMAGE).read_text().splitlines()
              if line.strip() and not line.startswith("#")]
    server = Server(store)
    try:
        created = create(server.url, title="receipts", visibility="public")
        duel, recorder = created["id"], auth(created["tokens"]["recorder"])
        answers = [httpx.post(f"{server.url}/duels/{duel}/events", json=part, headers=recorder).json()
                   for part in (events[:FIRST], events[FIRST:])]
        assert [(a["receipt"]["version"], a["receipt"]["events"]) for a in answers] == [(2, FIRST), (2, 89)]
        assert all(Receipt.from_dict(a["receipt"]).valid for a in answers)
        ok = httpx.post(f"{server.url}/duels/{duel}/verify", json=[a["receipt"] for a in answers], headers=recorder)
        assert (ok.status_code, ok.json()["ok"], ok.json()["events"]) == (200, True, 89)
    finally:
        server.stop()
    cut_back(store, duel, FIRST)
    server = Server(store)
    try:
        asked = httpx.post(f"{server.url}/duels/{duel}/verify", json=answers[-1]["receipt"], headers=recorder)
        assert asked.status_code == 200 and asked.json()["ok"] is False, asked.text
        assert asked.json()["problem"].startswith(f"the store holds {FIRST} events but a receipt signed at ")
    finally:
        server.stop()
