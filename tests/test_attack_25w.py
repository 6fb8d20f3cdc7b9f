"""Attacks on the twelfth pass's changes (#25): receipts of version 2 signed with their group.

A group commit signs the anchors and receipts of all its appends with one signature over the
root of their Merkle tree. When the group's one transaction fails and each append is written
alone (a position another writer took), the one at fault is not written: its leaves were signed
nonetheless. Written alone with the group's signature and paths, the others published that
signature: with a group-mate's audit path, the failed append's receipt (its time guessed to the
millisecond) was a valid organiser-signed promise of a head the store never held, and ``verify``
said the honest store was cut back and written again."""
from __future__ import annotations

import msgpack
from test_group_commit import _first_position_taken, _held_group, concurrent, url  # noqa: F401 (the fixtures)
from test_group_signature import anchors
from ygoreplay import signing
from ygoreplay.application import Records
from ygoreplay.errors import ConflictError
from ygoreplay.receipts import Receipt, verify as verify_with
from ygoreplay.store import _GROUP_LABEL, Store


def test_a_failed_append_of_a_group_leaves_no_signed_receipt_of_what_was_never_appended(url, concurrent,
                                                                                       monkeypatch):
    events, duels = _first_position_taken(url, concurrent, 4)   # another writer took duel 0's next position
    trees: list[tuple[list[bytes], bytes]] = []         # what each group signed: its messages and root
    real_tree = signing.tree

    def noted(messages):
        root, paths = real_tree(messages)
        trees.append((list(messages), root))
        return root, paths
    monkeypatch.setattr(signing, "tree", noted)
    records = Records(concurrent)
    outcomes: dict[str, object] = {}

    def append(duel: str) -> None:
        try:
            outcomes[duel] = records.append(duel, [events[3]], expected=3)
        except Exception as exc:                   # ConflictError for the loser; else the test fails
            outcomes[duel] = exc
    first = concurrent.create_duel("the first write, held")
    _held_group(concurrent, lambda: records.append(first, [events[0]]), [lambda d=d: append(d) for d in duels])
    assert isinstance(outcomes[duels[0]], ConflictError)
    # the failed append's receipt, as whoever holds the group's signature and a path rebuilds it
    loser = duels[0]
    (messages, root), = [(m, r) for m, r in trees if any(
        x.startswith(signing.RECEIPT_LABELS[2]) and msgpack.unpackb(x[len(signing.RECEIPT_LABELS[2]):])[0] == loser
        for x in m)]
    i = next(i for i, x in enumerate(messages) if x.startswith(signing.RECEIPT_LABELS[2])
             and msgpack.unpackb(x[len(signing.RECEIPT_LABELS[2]):])[0] == loser)
    duel, count, head, time = msgpack.unpackb(messages[i][len(signing.RECEIPT_LABELS[2]):])
    path, left = real_tree(messages)[1][i]
    stored = {anchors(url, d)[4]["sig"] for d in duels[1:]}
    # the group's signature never leaves the process with a failed leaf under it: each append
    # written apart from its group is signed alone (and its receipt with it)
    assert signing.root_of(messages[i], path, left) == root
    assert not any(concurrent.key.public.verify(sig, _GROUP_LABEL + root) for sig in stored)
    for d in duels[1:]:
        receipt = outcomes[d]
        assert isinstance(receipt, Receipt) and receipt.valid and receipt.events == 4
        with Store(url, readonly=True) as reader:
            assert reader.verify(d).ok and verify_with(reader, d, [receipt])[0].ok
    for sig in stored:                                 # the forged receipt holds with none of them
        forged = Receipt(duel, count, head, time, concurrent.key.public, sig, path=path, left=left)
        assert not forged.valid
        with Store(url, readonly=True) as reader:
            assert verify_with(reader, loser, [forged])[0].ok
