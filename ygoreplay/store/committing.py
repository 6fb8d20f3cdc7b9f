"""The group commit of concurrent appends (``Store(concurrent=True)``): many duels' appends
written in one transaction, each told its own outcome."""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from .. import chain, signing
from ..errors import StoreError, StoreUnavailable
from ..i18n import say
from .records import _GROUP_LABEL
from .writing import _head_row

if TYPE_CHECKING:
    from typing import Sequence

    from eventsourcing.persistence import StoredEvent

    from .reading import Store
    from .records import Head


class _Pending:
    """An append waiting for the group commit. ``done`` is a lock taken when it is made and given
    back once its rows are written (or refused), or once its writer is to lead the next group
    (``lead``): its writer waits by taking it again. (An ``Event`` is a condition, a lock and a
    list of waiters: with a hundred appending threads its making, waiting and setting were a
    sixth of an append's CPU.)"""

    __slots__ = ("rows", "snapshots", "anchor", "receipt", "sealed", "head", "proof", "done", "error", "lead",
                 "next", "given", "written")

    def __init__(self, rows: list[StoredEvent], snapshots: list[StoredEvent],
                 anchor: tuple[str, bytes, Head] | None, receipt: bytes | None = None,
                 sealed: Sequence[tuple[int, bytes, bytes, bytes]] = ()) -> None:
        self.rows, self.snapshots = rows, snapshots
        self.given = (len(rows), len(snapshots))    # its rows before its group's signing added any (``_unsigned``)
        self.written = False             # its rows committed (``_Committer._write``): told so, whatever follows
        self.anchor = anchor             # (duel, message, unsigned anchor) to sign with the group
        self.receipt = receipt           # its receipt's message, signed with the group with it
        self.sealed = sealed             # its duel's snapshots (position, data, hash, message), signed with it too
        self.head: Head | None = None    # that anchor signed (``_Committer._sign``)
        self.proof: tuple[bytes, bytes, int] | None = None     # the receipt's signature, path and sides
        self.done = threading.Lock()
        self.done.acquire()
        self.error: BaseException | None = None
        self.lead = False
        self.next: _Pending | None = None      # the writer to wake after this one (``_Committer._lead``)


class _Committer:
    """Group commit: the appends waiting at one moment (of many duels) are written in one
    transaction, so the recorder's table lock and the commit's flush are paid once per group,
    not once per append. No thread of its own: the appender that finds no write under way
    writes the group itself (the leader), and hands the next group to the first append that
    waited meanwhile, which writes it with its own. A lone append is written at once by its own
    thread, and a group costs no wake-up of a committer thread, which had to win the GIL from
    the appending threads (issue 25). The writers of a written group are woken one after the
    other, each by the one before: woken all at once, each fought the others for the GIL, a
    second sleep and wake-up each (a sixth of an append's CPU with 128 appending threads).
    An append still waits until its own rows are committed,
    and when a group fails each of its appends is written alone, so only the one at fault fails
    (``ConflictError`` for the one that lost a race)."""

    BATCH = 256

    def __init__(self, store: Store) -> None:
        self._store = store
        self._guard = threading.Lock()
        self._idle = threading.Condition(self._guard)   # no group under way (``stop``)
        self._waiting: list[_Pending] = []
        self._leading = False            # a group is being written: the next appends wait for it
        self._stopped = False            # ``stop``ped: an append is refused, nothing of it written

    def waiting(self) -> int:
        """How many appends wait for the group under way to be written."""
        with self._guard:
            return len(self._waiting)

    def submit(self, rows: list[StoredEvent], snapshots: list[StoredEvent],
               anchor: tuple[str, bytes, Head] | None = None, receipt: bytes | None = None,
               sealed: Sequence[tuple[int, bytes, bytes, bytes]] = ()) -> _Pending:
        """Write ``rows`` and ``snapshots`` with the group; ``anchor`` (its duel, message and
        unsigned ``Head``) is signed with the group's other anchors, its row added to ``rows``, and
        ``receipt`` (a message) and ``sealed`` (the duel's snapshots: position, data, chain hash,
        message) with them, with an anchor only, their rows added to ``snapshots`` (``_sign``).
        Returns the append written: its anchor signed (``head``), its receipt's ``proof``."""
        pending = _Pending(rows, snapshots, anchor, receipt, sealed)
        with self._guard:
            if self._stopped:
                raise StoreError(say("the store {name} is closed (nothing was written)",
                                     name=self._store.name))
            self._waiting.append(pending)
            pending.lead = not self._leading
            self._leading = True
        interrupted: BaseException | None = None
        if not pending.lead:
            while True:                  # until written, refused, or handed the lead
                try:
                    pending.done.acquire()
                    break
                except BaseException as exc:   # a signal in the main thread: the wake-ups after
                    interrupted = exc          # this one, and a lead handed to it, still go on
            if pending.next is not None:
                pending.next.done.release()
        if pending.lead:
            self._lead()
        if interrupted is not None:
            raise interrupted
        if pending.error is not None:
            raise pending.error
        return pending

    def stop(self) -> None:
        """Refuse the appends from now on, and wait (a while) for those already waiting to be
        written: else one written as the store closed was told it was not (its connection
        could not go back to the closed pool), and later ones went on writing."""
        with self._idle:
            self._stopped = True
            self._idle.wait_for(lambda: not self._leading, 30)

    def _lead(self) -> None:
        """Write the waiting appends (this thread's first among them) as one group, then hand
        the lead to the first append that came meanwhile, or end it."""
        batch: list[_Pending] = []
        try:
            with self._guard:
                batch, self._waiting = self._waiting[:self.BATCH], self._waiting[self.BATCH:]
            self._commit(batch)
        finally:
            with self._guard:
                following = self._waiting[0] if self._waiting else None
                if following is None:
                    self._leading = False
                    self._idle.notify_all()
                else:
                    following.lead = True
            if following is not None:
                following.done.release()
            others = [pending for pending in batch if not pending.lead]
            for pending, after in zip(others, others[1:]):
                pending.next = after
            if others:
                others[0].done.release()

    #: a failed group this small is written append by append (``_write``): halving it costs more writes
    ALONE = 4

    def _commit(self, batch: list[_Pending]) -> None:
        """The batch in one transaction; when that fails, its parts, each in one transaction of its
        own (``_write``), so that only the one at fault (a position another writer took, a row
        refused) fails, and the others are written."""
        store = self._store
        try:
            self._sign(batch)
            self._write(batch)
        except BaseException as exc:                    # never leave a writer waiting
            for pending in batch:
                if pending.written:      # committed with a part written before: never told it was not
                    continue
                pending.error = pending.error or StoreError(say("the store {name} failed to write: {exc}",
                                                                name=store.name, exc=exc))
            raise

    def _write(self, batch: list[_Pending]) -> None:
        """Write the signed ``batch`` in one transaction. When that fails (not for the store's
        plight), each of its parts (``_at_fault``) is signed again as a group of its own
        (``_unsigned``) and written the same way: one append at fault in a group of N costs two
        to ~2 log2 N writes, not N + 1 (each append written alone was a commit, a flush of the
        WAL under the recorder's table lock, ~10 ms here: a conflict in a group of 60 held every
        append of the process for ~0.6 s, issue 25).
        The append at fault is told its own error (``_failed``: ``ConflictError`` for the one that
        lost a race); one whose write's outcome is unknown is never written again."""
        store = self._store
        try:
            store._write_rows([row for pending in batch for row in pending.rows],
                              [row for pending in batch for row in pending.snapshots])
        except Exception as exc:
            if len(batch) == 1:
                batch[0].error = store._failed(exc, batch[0].rows)
                return
            if isinstance(exc, StoreUnavailable):
                # the store's plight, not one append's: each told it (its own copy), none
                # written again (busy: each waited for the lock, or its statement's timeout, again;
                # outcome unknown: written again, a group stored would be recorded twice)
                for pending in batch:
                    pending.error = type(exc)(str(exc))
                return
            parts = self._at_fault(batch)
            for part in parts:
                if len(part) == 1:
                    self._sign_alone(part[0])
                else:
                    self._unsigned(part)
                    self._sign(part)
                self._write(part)
            return
        for pending in batch:
            pending.written = True

    def _at_fault(self, batch: list[_Pending]) -> list[list[_Pending]]:
        """The parts a refused ``batch`` is written in: on PostgreSQL, the appends whose positions
        stored rows hold now (those that lost a race), each alone, and the rest as one group
        (one refused write and one commit, where halves were ~2 log2 N writes); else, or when
        none is found so, its halves, or each append alone when it has ``ALONE`` or fewer."""
        writer = self._store._postgres
        if writer is not None and len(batch) > 2:
            taken = writer.taken([row for pending in batch for row in pending.rows])
            if taken:
                lost = [pending for pending in batch
                        if any((str(row.originator_id), row.originator_version) in taken for row in pending.rows)]
                if 0 < len(lost) < len(batch):
                    return [[pending for pending in batch if pending not in lost], *([pending] for pending in lost)]
        if len(batch) > self.ALONE:
            return [batch[:len(batch) // 2], batch[len(batch) // 2:]]
        return [[pending] for pending in batch]

    @staticmethod
    def _unsigned(batch: list[_Pending]) -> None:
        """Each append's rows as given, before its group signed it (its anchor's row, its snapshots'
        rows and its receipt's proof dropped), to be signed again as a smaller group before it is
        written apart from the rest of its group: as ``_sign_alone``, nothing of a failed group's
        signature is ever stored."""
        for pending in batch:
            rows, snapshots = pending.given
            del pending.rows[rows:], pending.snapshots[snapshots:]
            pending.head = pending.proof = None

    def _sign_alone(self, pending: _Pending) -> None:
        """Its anchor signed again alone and its receipt's proof dropped (its caller signs one
        alone), before it is written apart from its group: the group's signature covers the
        leaves of every append of the group, and one that then failed (a position another writer
        took) was never appended. Stored with a group-mate's anchor, that signature and the
        group-mate's path rebuilt the failed append's receipt (its time guessed to the
        millisecond) or anchor: a signed promise of a head the store never held, which accused
        the store of a cut. The group's signature is stored only with the whole group: its
        snapshots, the last of its ``snapshots``, are signed again alone too."""
        if pending.head is None or pending.head.path is None:
            return
        duel, message, head = pending.anchor
        store = self._store
        pending.head = head.signed(store.key.sign(message))
        pending.rows[-1] = _head_row(duel, pending.head)
        pending.proof = None
        if pending.sealed:
            pending.snapshots[-len(pending.sealed):] = [store._snapshot_row(duel, *snapshot)
                                                        for snapshot in pending.sealed]

    def _sign(self, batch: list[_Pending]) -> None:
        """Sign the batch's anchors with one signature (issue 25: an Ed25519 signature an append
        was some 40% of its own work in the store), over the root of a Merkle tree of their
        messages and their receipts' (``_GROUP_LABEL``: an append's receipt signed alone was
        another signature an append), each keeping its audit path to it (``Head``, the
        receipt's ``proof``); a lone anchor without a receipt is signed alone, as before groups
        were. Each anchor's row goes with its append's."""
        unsigned = [pending for pending in batch if pending.anchor is not None]
        if not unsigned:
            return
        store = self._store
        key = store.key
        messages = [message for pending in unsigned
                    for message in (pending.anchor[1], pending.receipt, *(seal[3] for seal in pending.sealed))
                    if message is not None]
        if len(messages) == 1:
            _duel, message, head = unsigned[0].anchor
            signed = [head.signed(key.sign(message))]
        else:
            root, paths = signing.tree(messages)
            signature = key.sign(_GROUP_LABEL + root)
            steps = iter(paths)
            signed = []
            for pending in unsigned:
                path, left = next(steps)
                signed.append(pending.anchor[2].signed(signature, path, left))
                if pending.receipt is not None:
                    pending.proof = (signature, *next(steps))
                for snapshot in pending.sealed:
                    pending.snapshots.append(store._snapshot_row(pending.anchor[0], *snapshot,
                                                                 (signature, *next(steps))))
        pack = chain.packer()
        for pending, head in zip(unsigned, signed):
            pending.head = head
            pending.rows.append(_head_row(pending.anchor[0], head, pack))
