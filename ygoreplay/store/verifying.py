"""``Store.verify``: a stored stream checked end to end: its chain, anchors and snapshots
(``Verifying``, a mixin of ``Store``)."""
from __future__ import annotations

import zlib
import itertools
from typing import TYPE_CHECKING

import msgpack

from .. import chain
from ..errors import StoreError
from ..i18n import say
from ..lazy_dataclass import dataclass
from ..rules import History
from ..signing import PublicKey
from .records import AlteredRow, Head, Header, _chained, _snapshot_data, _version

if TYPE_CHECKING:
    from ..cards import CardDB


@dataclass(frozen=True)
class Verification:
    """The result of checking a duel: where the first broken link is, and why; who signed it.
    ``doubt``: a receipt or the witness given that cannot be believed (altered, or a key not
    trusted here): it proves nothing either way, so the record may still be ``ok`` as far as
    the store can tell, and the verdict says the witness is what was altered."""

    ok: bool
    events: int
    first_bad: int | None = None
    problem: str = ""
    signer: PublicKey | None = None
    doubt: str = ""


class Verifying:
    """``Store.verify``: a stream's chain, anchors and snapshots checked end to end."""

    # -- tamper evidence ------------------------------------------------------------------------------

    def verify(self, duel_id: str, upto: int | None = None) -> Verification:
        """Check a duel end to end: the header, every link of the hash chain, the card facts, every
        anchor (count, head, digests, signature by a trusted key) and every snapshot. The first
        broken link is named; -1 is the header.

        ``upto``: only the first ``upto`` events and what was written with them (the anchors,
        card facts and snapshots at or before them), nothing past them read: the verification a
        reader held back by a delay is given, whose content and time owe nothing to the events
        it may not see. Events after the last anchor within them are held by the chain alone
        (their anchor lies past the reader)."""
        # a row of the wrong type is reported where it is, as any altered one: the rows before it
        # are checked first, so the first broken link is named (``_checking``'s ``refused``)
        refused: dict[int, AlteredRow] = {}
        rows = self.events.select_events(duel_id, **({"lte": upto} if upto is not None else {}), refused=refused)
        if not rows or rows[0].originator_version != 0 and 0 not in refused:
            raise StoreError(say("no duel {duel_id!r} in {name}", duel_id=duel_id, name=self.name))
        count = len(rows) - 1
        if 0 in refused:
            return Verification(False, count, -1, refused[0].what)
        try:
            envelope = msgpack.unpackb(rows[0].state)
            header = Header.from_dict(envelope["header"])
        except (ValueError, KeyError, TypeError, AttributeError, msgpack.ExtraData):
            return Verification(False, count, -1, say("the duel header cannot be decoded"))
        if envelope.get("h") != header.digest:
            return Verification(False, count, -1, say("the duel header was altered"))
        hashes: list[bytes] = []
        prev = header.root
        pack = chain.packer()
        for expected, row in enumerate(rows[1:]):
            if expected + 1 in refused:
                return Verification(False, count, expected, refused[expected + 1].what)
            position = row.originator_version - 1
            if position != expected:
                return Verification(False, count, expected, say("event {expected} is missing (the next "
                                                                "stored is {position})",
                                                                expected=expected, position=position))
            try:
                env = msgpack.unpackb(row.state)
                if env["p"] != prev:
                    return Verification(False, count, position,
                                        say("event {position} does not follow event {previous} (dropped "
                                            "or reordered)",
                                            position=position, previous=position - 1))
                if chain.link(prev, position, env["e"], env["t"], pack) != env["h"] or env["e"].get("kind") != row.topic:
                    return Verification(False, count, position, say("event {position} was altered",
                                                                    position=position))
                prev = env["h"]
            except (ValueError, KeyError, TypeError, AttributeError, msgpack.ExtraData):
                return Verification(False, count, position, say("event {position} cannot be decoded",
                                                                position=position))
            hashes.append(prev)
        del rows                             # the rows are not kept while the snapshots are checked
        return self._verify_anchors(duel_id, header, hashes, prefix=upto is not None)

    def _verify_anchors(self, duel_id: str, header: Header, hashes: list[bytes], prefix: bool = False) -> Verification:
        """The anchors and card facts of the ``len(hashes)`` events read. They are read after the
        events, so a live duel may have more by then: each append writes its events, card facts
        and anchor in one transaction, so what was appended since carries an anchor past the
        events read, and is left for the next verify, once the events it names are there. A
        ``prefix`` (``verify(upto=)``) looks at nothing past its events."""
        count = len(hashes)
        try:
            records = [(row.originator_version, msgpack.unpackb(row.state))
                       for row in self.events.select_events(f"{duel_id}/cards", lte=count if prefix else None)]
            cards_rows = [(version, (record["cards"], record.get("effects"), "effects" in record))
                          for version, record in records]
            heads = [Head.from_dict(msgpack.unpackb(row.state))
                     for row in self.events.select_events(f"{duel_id}/head")]
        except AlteredRow as exc:
            return Verification(False, count, None, exc.what)
        except (ValueError, KeyError, TypeError, AttributeError, msgpack.ExtraData) as exc:
            return Verification(False, count, None, say("its anchors or card facts cannot be decoded "
                                                        "({exc})",
                                                        exc=exc))
        later = [head for head in heads if head.count > count]
        if prefix:
            heads = [head for head in heads if head.count <= count]
        elif later:
            now = self._count(duel_id)
            if now < later[-1].count:
                return Verification(False, count, count, say("the last {missing} event(s) are "
                                                             "missing: an anchor signed at {signed} "
                                                             "events names them",
                                                             missing=later[-1].count - count, signed=later[-1].count))
            heads = [head for head in heads if head.count <= count]
            cards_rows = [(v, batch) for v, batch in cards_rows if v <= count or v > later[-1].count]
        if not heads:
            return Verification(False, count, None, say("it has no signed anchor"))
        digests: dict[int, tuple[bytes, bytes | None]] = {}
        digest, effects_digest = chain.GENESIS, None
        for version, (batch, effects, scripted) in cards_rows:
            digest = _chained(digest, batch)
            if scripted:
                effects_digest = _chained(effects_digest, effects)
            digests[version] = digest, effects_digest
        signer = None
        for head in heads:
            signer = self.trusts(head.key)
            if signer is None:
                return Verification(False, count, None, say("its anchor at {head_count} is signed by key "
                                                            "{fingerprint}, not a key trusted here (pass --key)",
                                                            head_count=head.count,
                                                            fingerprint=PublicKey(head.key).fingerprint
                                                            if len(head.key) == 32 else '?'))
            if not head.signed_by(signer, duel_id):
                return Verification(False, count, None, say("the signature of its anchor at {head_count} "
                                                            "does not hold",
                                                            head_count=head.count))
            if head.count > count:
                missing = head.count - count
                return Verification(False, count, count, say("the last {missing} event(s) are missing: an "
                                                             "anchor signed at {head_count} events names "
                                                             "them",
                                                             missing=missing, head_count=head.count))
            expected = header.root if head.count == 0 else hashes[head.count - 1]
            if head.hash != expected:
                return Verification(False, count, head.count - 1 if head.count else -1,
                                    say("the events up to {head_count} are not the ones its anchor signed "
                                        "(rechained)",
                                        head_count=head.count))
            if head.header != header.digest:
                return Verification(False, count, -1, say("the duel header is not the one its anchors "
                                                          "signed"))
            cards_digest, effects_digest = max(((v, d) for v, d in digests.items() if v <= head.count),
                                               default=(0, (chain.GENESIS, None)))[1]
            if head.cards != cards_digest:
                return Verification(False, count, None, say("the card facts are not the ones its anchor "
                                                            "at {head_count} signed",
                                                            head_count=head.count))
            if head.effects != effects_digest:
                return Verification(False, count, None, say("the effect facts of its cards are not the "
                                                            "ones its anchor at {head_count} signed",
                                                            head_count=head.count))
        if heads[-1].count != count and not prefix:
            return Verification(False, count, heads[-1].count, say("events {heads_count}..{count} were "
                                                                   "added after its last signed anchor",
                                                                   heads_count=heads[-1].count, count=count - 1))
        if any(version > count for version, _batch in cards_rows):
            return Verification(False, count, None, say("card facts were added after its last signed "
                                                        "anchor"))
        try:
            cards = self.cards_of(duel_id, count if prefix else None)[0]
        except AlteredRow as exc:
            return Verification(False, count, None, exc.what)
        except StoreError as exc:
            return Verification(False, count, None, str(exc).split(": ", 1)[-1].removesuffix("; run verify"))
        # a prefix checks the snapshots up to its last anchor: past it, the card facts they were
        # folded with were written with an append the reader may not see (the chain holds those)
        problem = self._check_snapshots(duel_id, hashes, cards, heads[-1].count if prefix else None)
        if problem:
            return Verification(False, count, None, problem)
        return Verification(True, count, signer=signer)

    def _count(self, duel_id: str) -> int:
        """How many events the duel has now: its last row's version, by one statement (``_read``:
        ``show DUEL`` of a read-only store on SQLite opens no recorder for it)."""
        rows = self._read(self._count_sql, (duel_id,))
        return _version(rows[0][0], duel_id) if rows else 0

    def _check_snapshots(self, duel_id: str, hashes: list[bytes], cards: CardDB, signed: int | None = None) -> str:
        """A snapshot that is used must be the fold's own state at its position: signed, bound to
        the chain there, and equal to a fresh fold. One past the events read is an append's since
        (written with its events) when the duel has those events now; a prefix (``signed``: its
        last anchor's count) reads none past that anchor. One of a version this one does not read
        (``History.readable``: a newer ygoreplay's) is not used here, so not compared: the
        version that reads it checks it."""
        newest = self.snapshots.select_events(duel_id, lte=signed, desc=True, limit=1)
        if not newest:
            return ""
        upto = newest[0].originator_version
        if signed is None and upto > len(hashes) and self._count(duel_id) >= upto:
            upto = len(hashes)
        # Both read a page at a time: the whole duel's rows and records at once were most of the
        # peak memory of loading a long duel verified (issue 25).
        events = self._paged(self.events, duel_id, len(hashes))
        history = History(cards, audit=True)
        done = 0
        for row in self._paged(self.snapshots, duel_id, upto):
            position = row.originator_version
            try:
                snap = msgpack.unpackb(row.state)
                signer = self.trusts(snap["key"])
                bound = 0 < position <= len(hashes) and snap["h"] == hashes[position - 1]
                if signer is None or not bound or not self._vouched(
                        None, snap["sig"], signer, None, self._snapshot_message(duel_id, position, snap["h"], snap["d"]),
                        snap.get("path"), snap.get("left", 0)):
                    return f"the snapshot at {position} is not signed or not bound to the chain (it is not used)"
                stored = _snapshot_data(snap)
                if not History.readable(stored):
                    continue
                for event_row in itertools.islice(events, position - done):
                    history.append(self._decode(duel_id, event_row).event)
                done = position
                fresh = msgpack.unpackb(msgpack.packb(history.to_data()))
                if stored != fresh and _in_shape_of(fresh, stored) != stored:
                    return f"the snapshot at {position} is not the state the events give there"
            except (ValueError, KeyError, TypeError, AttributeError, msgpack.ExtraData, zlib.error):
                return f"the snapshot at {position} cannot be decoded (it is not used)"
        return ""


def _in_shape_of(fresh: dict, stored: dict) -> dict:
    """A fresh fold's snapshot data cut to the fields a snapshot written by an earlier version
    has: the scalars it names and the leading fields of each card, chain link and side row (a
    field added since comes last in its row; ``DuelState.from_data`` gives it its default when
    such a snapshot is read), and of a witnessed duel's book the keys it has (one without the
    judge's ``notes`` is not resumed from: ``History.from_data``). A store made before a field
    was added still verifies; a snapshot that says anything else than the fold does not.
    Snapshots are signed by the store's key, so only the store can have written a short one."""
    state, old = fresh["state"], stored.get("state", {})
    cut = dict(state)
    if isinstance(old.get("scalars"), dict):
        cut["scalars"] = {k: v for k, v in state["scalars"].items() if k in old["scalars"]}
    for key in ("cards", "chain", "sides"):
        rows = old.get(key)
        if isinstance(rows, list) and len(rows) == len(state[key]):
            cut[key] = [row[:len(was)] if isinstance(was, list) else row for row, was in zip(state[key], rows)]
    if isinstance(old.get("attack"), list) and state["attack"] is not None:
        cut["attack"] = state["attack"][:len(old["attack"])]
    shaped = {**fresh, "state": cut}
    if "v" not in stored:                     # written before snapshots named their version
        del shaped["v"]
    if isinstance(fresh.get("witnessed"), dict) and isinstance(stored.get("witnessed"), dict):
        shaped["witnessed"] = {k: v for k, v in fresh["witnessed"].items() if k in stored["witnessed"]}
    return shaped
