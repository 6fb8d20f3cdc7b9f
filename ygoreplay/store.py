"""The event store: one stream per duel, on the ``eventsourcing`` library's recorders.

A duel is a few streams in one ``ApplicationRecorder`` table, written together in one transaction:

* ``<id>`` version 0, the header: title, parent and branch point, creation time, the chain's root
  and the duel's secret (32 random bytes each; the secret keys a view's deck-order commitments and
  card names, and never leaves the store except in a judge file); then the event at stream
  position ``i`` as version ``i + 1``: a msgpack envelope ``{"e": event, "t": recorded at,
  "p": previous hash, "h": own hash}``, so the stream is a hash chain (``chain.py``);
* ``<id>/cards``: the facts of the cards the events name, added by the append that first names
  them, with the effect facts the card database had of them (``effects``, from the card scripts:
  ``CardDB.effects_record``): the duel carries both, so any later process folds it the same way
  and its verdict does not change when the installed scripts do;
* ``<id>/head``: after every append an anchor, the event count, head hash, header, card-facts
  and effect-facts digests (the last only once the duel has effect facts) and the result so far, signed with the organiser's key (``signing.py``). Deleting the
  last events, rechaining them or editing the header no longer matches a signed anchor. The
  anchors one group commit writes share one signature, over a Merkle tree of them (``Head``).

A stream is of a kind (``StreamKind``): a duel's is folded by the duel rules (``History``), a
match's (``match.stream``) by the match rules. The kind is named in the header (and its row's
topic), so every stream is chained, anchored, signed, written in one transaction and verified
the same way, and only its fold and the status its anchor signs differ.

Each write also writes the library's search index (``library.py``: what a spectator may find of
each stream) in its transaction.

Two writers at the same position collide on the recorder's primary key: one wins, the other gets
``ConflictError`` and nothing is lost or written twice.

Appends are checked by the same rules fold as ``check``; a stored record is folded without
refusing anything (an imported duel may hold what our rules call violations: ``audit`` lists
them). Snapshots of the fold (plain data, never pickle) are kept every ``SNAPSHOT_EVERY`` events
in a second recorder, each bound to the chain hash at its position and signed, and tagged with a
MAC under a key derived from the signing key's secret (``OrganiserKey.mac``): a process holding
that key checks the MAC, any other the signature. One that does not check out is not used, nor
one of a shape this version does not read (each names its version, ``SNAPSHOT_VERSION`` in
``rules.history``: a newer ygoreplay's is folded past from the events, and left for it as it is).

SQLite is the embedded default (a file at ``default_store_path()``); a ``postgresql://`` URL
selects the ``eventsourcing`` PostgreSQL recorders, shared by many processes and machines. A
store opened read-only changes nothing, and a file that is not a ygoreplay store is refused
without being touched. A PostgreSQL server that does not answer (down, restarting, the
connection cut, or no answer within ``ANSWER_WAIT``: a peer gone without a reset) is said so as
``StoreUnavailable`` by every read and write, once (``_gated``, ``_PostgresWriter``); a write lock
not had within ``LOCK_WAIT`` (SQLite's within ``SQLITE_LOCK_WAIT``), or a statement cancelled
past ``STATEMENT_WAIT``, as ``StoreBusy``; a write whose outcome cannot be learned as
``WriteOutcomeUnknown``, never as "nothing was written".
"""
from __future__ import annotations

import bisect
import functools
import itertools
import os
import re
import select
import sqlite3
import stat
import threading
import time
import zlib
from collections import OrderedDict, deque, namedtuple
from contextlib import contextmanager
from dataclasses import field, replace
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, NoReturn, Sequence

import msgpack

from . import chain, pg_pipeline, signing
from .cards import CardDB, CardDBError, CardFacts
from .digests import sha256
from .errors import (ConflictError, InputError, StoreBusy, StoreError, StoreUnavailable, VerificationError,
                     WriteOutcomeUnknown, YgoreplayError)
from .events import Event, EventFormatError, from_dict, from_trusted_dict
from .files import data_folder, expand_user, file_uri, path_text
from .lazy_dataclass import dataclass, made
from .passcodes import referenced_codes
from .rules import History, RuleViolation
from .rules.base import hidden_from_writer, shown_to_writer
from .signing import OrganiserKey, PublicKey
from .state import DuelState, Violation
from .i18n import N_, say

# ``eventsourcing`` (its recorders) and the library index are imported when a Store first opens
# its recorders (``Store._recorders``), not with this module: a store opened read-only on SQLite
# answers a seek with statements of its own (``Store._read``) and opens them only for the reads
# that go through them; importing them was a quarter of a fresh ``show DUEL --at N`` (issue 25).
if TYPE_CHECKING:
    from pathlib import Path

    from eventsourcing.persistence import ApplicationRecorder, InfrastructureFactory, StoredEvent

    from . import library

__all__ = ["ConflictError", "DuelInfo", "Header", "KINDS", "Record", "StoredDuel", "Store", "StoreError", "Vouched",
           "StreamKind", "Verification", "default_store_path", "new_id", "register_kind"]

ENV_VAR = "YGOREPLAY_STORE"
FORMAT = 2
SNAPSHOT_EVERY = 16
#: The most a deflated snapshot is inflated to: a duel's state is some 10 KB, a long one's 100s of KB.
MAX_SNAPSHOT = 64 << 20
HEADER_TOPIC, CARDS_TOPIC, HEAD_TOPIC = "ygoreplay:duel", "ygoreplay:cards", "ygoreplay:head"
#: The most bytes of heads a write's NOTIFY says (PostgreSQL takes < 8,000): a write of more heads
#: notifies saying none, and each listener reads them (``_Heads``).
HEADS_SAID = 7800
#: A heads NOTIFY's first line, with the schema its store is in: PostgreSQL's channels are the
#: database's, not a schema's, so a store in another schema (the same table names) is heard too,
#: and its heads, counted by its own notification ids, are not this store's.
HEADS_MARK = "ygoreplay-heads "
MATCH_TOPIC = "ygoreplay:match"
SNAPSHOT_TOPIC, STORE_TOPIC = "ygoreplay:snapshot", "ygoreplay:store"
STORE_ID = "ygoreplay/store"
#: An append written at a head another writer moved: what to do about it, not only what happened
#: (a scorekeeper's script, told "someone else appended", sent the same entries again, 409 again).
_BEHIND = N_("duel {duel_id} has {start} events, not {expected_position}: someone else appended; nothing was "
             "written: read what they entered, then send yours again expecting {start} if it still stands")
_HEAD_LABEL, _SNAPSHOT_LABEL = b"ygoreplay/head/2\0", b"ygoreplay/snapshot/2\0"
#: What a group commit's one signature is over: this and the root of its anchors' tree (``Head``),
#: whose leaves are its anchors' messages and its appends' receipts' (``Store.receipt_proof``).
_GROUP_LABEL = b"ygoreplay/head-group/1\0"
#: The most receipt proofs a store keeps for their appends' callers to take (``Store.receipt_proof``).
_PROOFS_KEPT = 4096
_STREAM_ID = re.compile(r"[0-9a-f]{12}\Z")          # new_id()'s: only such a prefix is looked up whole
#: A PostgreSQL schema's name: lower case (the recorder looks its composite type up by the name
#: unquoted, which PostgreSQL folds to lower case: a capital made the schema, then refused every write).
_SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}\Z")
#: The tables of a store on SQLite: its events' and its snapshots' (``eventsourcing``'s SQLite
#: recorders' names: ``_check_sqlite`` finds both before a store is opened).
_SQLITE_EVENTS, _SQLITE_SNAPSHOTS = "stored_events", "stored_snapshots"
_SQLITE_TABLES = {_SQLITE_EVENTS, _SQLITE_SNAPSHOTS}
_POSTGRES_TABLES = {"ygoreplay_events", "ygoreplay_snapshots"}
#: Card facts (with their effect facts) and their digests by duel, with the exact bytes of the
#: card records they were read from: a seek reads the records on every call, and validating ~70
#: of them each time was nearly half of it (issue 25); the same bytes are the same facts. Kept by
#: duel and compared in full, not by the bytes as a key: hashing them was 1% of a seek. CardDB is
#: immutable.
_CARD_FACTS: dict[str, tuple[tuple[bytes, ...], tuple[CardDB, bytes, bytes | None]]] = {}
_CARD_FACTS_KEPT = 256
_CARD_FACTS_GUARD = threading.Lock()
#: The facts of a card record's entries, by each entry's exact msgpack bytes (``_card_facts``):
#: the duels of a store share most of their cards, and validating each again on a duel's first
#: seek in a process was a twentieth of showing its board (issue 25). Bytes that differ in any
#: way (a type, a value, an order) are another key, read and validated afresh. CardFacts is frozen.
_ENTRY_FACTS: dict[bytes, CardFacts] = {}
_ENTRY_FACTS_KEPT = 16384
#: Snapshots whose signature (or MAC) held, by (duel, position, digest of the stored row, whether
#: checked by a holder of the private key): a signature that held once holds on the same bytes, in
#: any Store of this process (the service and a board open a Store per request; checking it again
#: was a fifth of a seek). Whether its key is trusted is still asked of each Store; and a MAC
#: vouches only to a holder of the key: a Store that holds only the public key checks the
#: signature of what a holder took by its MAC, as a process of its own would.
_SIGNED: set[tuple[str, int, bytes, bool]] = set()
_SIGNED_KEPT = 65536
#: Anchors whose signature (or MAC) held, by (duel, count, digest of the stored row), as ``_SIGNED``:
#: a seek checks the anchor at or after its position and the last one (issue 25).
_ANCHORED: set[tuple[str, int, bytes, bool]] = set()
#: Anchors whose signature (or MAC) held, decoded, by (duel, version, digest of the stored row):
#: every seek of a duel checks its last anchor, and decoding it again was most of that check
#: (issue 25). Another row's bytes are another key: decoded and checked afresh. A Head is frozen
#: and its ``status`` is never changed by its readers.
_HEADS: dict[tuple[str, int, bytes], Head] = {}
#: Header rows found to be the header a signed anchor names, by (duel, digest of the row, the
#: digest the anchor names): a seek checks its duel's header (``Store._header_named``).
_NAMED: set[tuple[str, bytes, bytes]] = set()
#: A stream's last row (of ``{heads}``, the id a parameter) as part ``{part}`` of a statement of parts.
_LAST_OF = ("SELECT {part} AS part, originator_version, topic, state FROM (SELECT originator_version, topic, "
            "state FROM {heads} WHERE originator_id = ? ORDER BY originator_version DESC LIMIT 1) AS p{part}")
#: Each wanted stream's (``w``) last row of ``{heads}`` whose id is its own and ``{suffix}``, as part
#: ``{part}`` of ``Store._heads_query``.
_LAST_OF_EACH = ("SELECT w.i, {part} AS part, l.originator_version, l.topic, l.state FROM w CROSS JOIN LATERAL "
                 "(SELECT originator_version, topic, state FROM {heads} WHERE originator_id = w.id{suffix} "
                 "ORDER BY originator_version DESC LIMIT 1) AS l")
#: streams ``Store.listed`` reads in one statement (their ids one bound value)
_LISTED_AT_ONCE = 20000
#: streams whose ``Store.listed`` decision a Store keeps (with the rows' bytes, ~600 a stream):
#: more than a library of 100,000 duels names, once full a new one is decided each time (kept
#: ones are replaced, as an anchor is by an append); never cleared, so a read of more streams
#: than this decides again only those past it, not every one
_LISTED_KEPT = 131072
#: ``committed`` marks a Store keeps ``listed``'s decisions by: one a SQLite connection of its pool
_MARKS_KEPT = 8
#: SQLite files (device, inode, change time) found to hold a store of this format: opened again
#: in this process (a board per request), the marker is not read again on a connection of its own;
#: True once found fit for writing too (its triggers are the library index's: ``own_schema``).
_STORE_FILES: dict[tuple[int, int, int], bool] = {}
#: A bound past every version: a bound given by a subquery that finds nothing (a constant, so the
#: index answers the range; a bound naming the column read the rest of the duel).
_NO_END = (1 << 63) - 1
_NO_FACTS = CardDB()                 # what an append adds when it names no card its duel lacks
#: Seconds a write waits for the events table's lock (the recorder's ``SET LOCAL lock_timeout``,
#: whole seconds): ``eventsourcing``'s default, 0, waited for ever, so one session holding the
#: lock stalled every write of the store. Past it the write is rolled back (``StoreBusy``).
LOCK_WAIT = 3
#: Seconds a statement may run on the server (``statement_timeout``) before the server cancels it
#: (``StoreBusy``, nothing written): none of the store's takes more than a few, and a session
#: stuck behind another's lock held a request (and its connection) for ever.
STATEMENT_WAIT = 20
#: Seconds a connection waits for any answer of the server (``_bounded``) before it is closed and
#: the read is ``StoreUnavailable``, the write ``WriteOutcomeUnknown`` unless its outcome can be
#: learned: a server or proxy that stops answering without closing the connection (no reset)
#: hung the request for ever. Past ``STATEMENT_WAIT``, so a live server's cancel comes first.
ANSWER_WAIT = STATEMENT_WAIT + 5
#: libpq's TCP keep-alives for every connection: probed after 10 s idle, every 5 s, given up after
#: 3 unanswered; and data sent but not acknowledged for ``ANSWER_WAIT`` ends it (``tcp_user_timeout``).
KEEPALIVES = {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 5, "keepalives_count": 3,
              "tcp_user_timeout": round(ANSWER_WAIT * 1000)}
#: Seconds SQLite waits for another process's write lock before ``StoreBusy`` (its busy timeout).
SQLITE_LOCK_WAIT = 10
#: SQLSTATEs of a server that cannot serve now: shutting down, crashed, starting up, full.
_GONE_STATES = {"57P01", "57P02", "57P03", "53300"}
#: What libpq says, with no SQLSTATE, of a server that answered at connect but cannot serve yet.
_GONE_PHRASES = ("starting up", "shutting down", "not yet accepting", "in recovery mode", "too many clients",
                 "terminating connection")


def _outage(exc: BaseException) -> str | None:
    """What a database error (psycopg's or sqlite3's, or ``eventsourcing``'s made of one) says of
    the database: ``"busy"``, a lock not had within ``LOCK_WAIT`` (SQLite: "database is locked",
    past ``SQLITE_LOCK_WAIT``); ``"slow"``, a statement cancelled (past ``STATEMENT_WAIT``);
    ``"gone"``, the server not reached, or lost, or not serving, or not answering within
    ``ANSWER_WAIT`` (down, restarting, the connection cut: no SQLSTATE, or one of
    ``_GONE_STATES``); None, any other error (the server answered it)."""
    cause = exc if isinstance(exc, sqlite3.Error) else exc.__cause__
    if isinstance(cause, sqlite3.Error):           # (psycopg not imported for a SQLite store)
        return "busy" if isinstance(cause, sqlite3.OperationalError) and "is locked" in str(cause) else None
    import psycopg
    cause = exc if isinstance(exc, psycopg.Error) else exc.__cause__
    if not isinstance(cause, psycopg.Error):
        return None
    state = cause.sqlstate
    if state == "55P03":
        return "busy"
    if state == "57014":
        return "slow"
    if state is not None:
        return "gone" if state.startswith("08") or state in _GONE_STATES else None
    if not isinstance(cause, (psycopg.OperationalError, psycopg.InterfaceError)):
        return None
    said = str(cause)
    # a server that answered with a refusal (a role or database not there) is answering
    return "gone" if "FATAL:" not in said or any(p in said for p in _GONE_PHRASES) else None


def _reason(exc: BaseException, secret: str = "") -> str:
    """A database error's text on one line, short, and never the password."""
    said = " ".join(str(exc).split())[:200]
    return said.replace(secret, "***") if secret else said


def _hung_up(conn: Any) -> bool:
    """Whether an idle connection (one of the pool's, the writer's) has something to read: the
    server sent it its last word (a shutdown, a restart, a terminated backend) or closed it. An
    idle connection is sent nothing else. One ``poll``, no round trip (a ping on every read
    was not paid for the rare connection a restart left dead)."""
    try:
        poller = select.poll()
        poller.register(conn.pgconn.socket, select.POLLIN)
        return bool(poller.poll(0))
    except Exception:                # no socket: it is closed
        return True


@functools.cache
def _bounded() -> type:
    """psycopg's connection whose every wait for the server without a bound of its own (a
    statement, a commit) ends after ``ANSWER_WAIT`` seconds: the connection is closed (the
    statement may still run on the server: it is not used again) and ``OperationalError`` is
    raised (``_outage``: "gone"). TCP keep-alives (``KEEPALIVES``) find a peer gone; only this
    finds one that holds the connection open and never answers (a stalled proxy, a hung server)."""
    import inspect

    import psycopg
    wait, every = psycopg.Connection.wait, inspect.signature(psycopg.Connection.wait).parameters["interval"].default

    class Bounded(psycopg.Connection):
        # psycopg's own wait called directly: through ``super()`` and ``*args`` it cost 2.9 µs more
        # a statement (16% of a bare SELECT's client CPU), so 0.8 µs (bench/README.md)
        def wait(self, gen: Any, interval: float = every, timeout: float | None = None) -> Any:
            try:
                return wait(self, gen, interval, ANSWER_WAIT if timeout is None else timeout)
            except psycopg.errors._WaitTimeout:     # (psycopg: "callers should ... convert it")
                if timeout is not None:              # a wait of its own bound (``notifies``)
                    raise
                self.close()
                raise psycopg.OperationalError(f"no answer from the server in {ANSWER_WAIT} s") from None
    return Bounded


def _bound(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A connection's keyword arguments with keep-alives and the server's ``statement_timeout``."""
    return {**kwargs, **KEEPALIVES, "options": f"-c statement_timeout={round(STATEMENT_WAIT * 1000)}"}


#: The kinds of stream as a store's errors name them ("no match 'ab12' in ..."): catalogued, so
#: ``i18n.said`` translates them inside the sentence.
STREAM_NAMES = (N_("duel"), N_("match"), N_("stream"))


class MissingStore(StoreError):
    """There is no store at the URL (and it was not to be created)."""

    def __init__(self, name: str) -> None:
        super().__init__(say("no store at {name} (record or import a duel to create one)", name=name))
        self.name = name


def new_id() -> str:
    """A new stream id: 12 hex digits, 6 random bytes."""
    return os.urandom(6).hex()


def default_store_path() -> Path:
    """Where the embedded SQLite store lives unless ``--store`` or $YGOREPLAY_STORE says otherwise."""
    from pathlib import Path
    return Path(path_text(data_folder(), "duels.sqlite"))


def _digest(data: Any) -> bytes:
    return sha256(msgpack.packb(data)).digest()


class AlteredRow(StoreError):
    """A row the database holds of a type no write of ours makes (a TEXT where a record is): the
    database was written to. ``what`` names the row; the advice to run ``verify`` is added only
    for the commands that meet it, as ``Store.verify`` reports the row itself (BROKEN, exit 1)."""

    def __init__(self, what: str, stream_id: str) -> None:
        self.what, self.duel = what, stream_id.partition("/")[0]
        super().__init__(say("{what}: the database was written to; run 'ygoreplay verify {duel}' to see "
                             "what else of the duel was altered",
                             what=what, duel=self.duel))


def _version(version: object, stream_id: str) -> int:
    """A row's version, refused naming the stream when writing to the database made it other
    than an integer (SQLite keeps a TEXT in an INTEGER column)."""
    if type(version) is not int:
        raise AlteredRow(say("a row of stream {stream_id} has the version {version!r} ({name}), not a "
                             "number",
                             stream_id=stream_id, version=str(version)[:40], name=type(version).__name__), stream_id)
    return version


def _blob(state: object, version: object, stream_id: str, snapshot: bool = False) -> bytes:
    """A row's state as bytes, checked before anything decodes or copies it: the one check of
    every row read from the store's tables (the recorders' reads, ``_checking``, and our own
    statements'). One that writing to the database made a TEXT, an INTEGER (``bytes(n)`` would be
    n zero bytes) or a REAL is refused naming the row (``AlteredRow``), never turned into a
    traceback. A snapshot's is no record (b""), so it is not used and ``verify`` says it cannot
    be decoded, as of any snapshot that does not check out. ``version`` None: a stream's last
    row, read by a statement that does not read its version (``row_state``)."""
    if version is not None:
        _version(version, stream_id)
    if type(state) is bytes:
        return state
    if isinstance(state, (bytearray, memoryview)):     # PostgreSQL's bytea, as psycopg reads it
        return bytes(state)
    if snapshot:
        return b""
    held = type(state).__name__
    if version is None:
        raise AlteredRow(say("the last row of stream {stream_id} is not a stored record (the database holds "
                             "{held} there)", stream_id=stream_id, held=held), stream_id)
    raise AlteredRow(say("row {version} of stream {stream_id} is not a stored record (the database holds "
                         "{held} there)", version=version, stream_id=stream_id, held=held), stream_id)


def row_state(state: object, stream_id: str) -> bytes | None:
    """The state of a stream's last row as a statement of another module read it (the library
    search's attachments), checked as every row is (``_blob``); None: the stream has no row."""
    return None if state is None else _blob(state, None, stream_id)


def _checking(select: Callable[..., list], snapshots: bool = False) -> Callable[..., list]:
    """A recorder's ``select_events`` or ``select_notifications`` whose rows are checked by
    ``_blob``: eventsourcing's SQLite recorder passes on whatever the driver returned. A row
    refused raises ``AlteredRow``, unless the caller passes ``refused`` (a dict): then the row
    is kept with no record (b"") and its refusal put there by its index among the rows, for a
    caller that goes on past it (``Store.verify``, a listing)."""
    def checked(*args: Any, refused: dict[int, AlteredRow] | None = None, **kwargs: Any) -> list:
        rows = select(*args, **kwargs)
        for i, row in enumerate(rows):
            if type(row.state) is not bytes or type(row.originator_version) is not int:
                try:
                    rows[i] = replace(row, state=_blob(row.state, row.originator_version, str(row.originator_id),
                                                       snapshots))
                except AlteredRow as exc:
                    if refused is None:
                        raise
                    refused[i] = exc
                    rows[i] = replace(row, state=b"")
        return rows
    return checked


def _chained(digest: bytes | None, data: Any) -> bytes:
    """The digest of a duel's card or effect facts after one more record of them."""
    return sha256((digest or chain.GENESIS) + msgpack.packb(data)).digest()


def _keep_card_facts(duel_id: str, stored: tuple[bytes, ...], found: tuple[CardDB, bytes, bytes | None]) -> None:
    """Keep ``found`` as the facts of the card records ``stored`` (``_CARD_FACTS``)."""
    with _CARD_FACTS_GUARD:
        _CARD_FACTS.pop(duel_id, None)          # kept newest last: the oldest go first
        _CARD_FACTS[duel_id] = (stored, found)
        while len(_CARD_FACTS) > _CARD_FACTS_KEPT:
            del _CARD_FACTS[next(iter(_CARD_FACTS))]


def _card_facts(entry: Any) -> CardFacts:
    """``CardFacts.from_dict`` of one entry of a card record, once per exact encoding of it in
    this process (``_ENTRY_FACTS``); CardDBError as that for an entry it refuses."""
    key = msgpack.packb(entry)
    found = _ENTRY_FACTS.get(key)
    if found is None:
        found = CardFacts.from_dict(entry)
        if len(_ENTRY_FACTS) >= _ENTRY_FACTS_KEPT:
            _ENTRY_FACTS.clear()
        _ENTRY_FACTS[key] = found
    return found


@dataclass(frozen=True)
class Header:
    """What the store keeps about a duel besides its events."""

    title: str
    created: str
    root: bytes                      # the chain starts here
    secret: bytes                    # keys the views' commitments and card names
    parent: str | None = None
    branch_at: int | None = None
    source: dict = field(default_factory=dict)     # where the record came from (exported with it)
    provenance: dict = field(default_factory=dict)  # how it came into this store (kept here only)
    kind: str = "duel"               # the stream's kind (``StreamKind.name``)

    def to_dict(self) -> dict:
        out = {"format": FORMAT, "title": self.title, "created": self.created, "root": self.root,
               "secret": self.secret, "parent": self.parent, "branch_at": self.branch_at,
               "source": self.source, "provenance": self.provenance}
        if self.kind != "duel":          # a duel's header (and so its digest) is as it always was
            out["kind"] = self.kind
        return out

    @property
    def digest(self) -> bytes:
        return _digest(self.to_dict())

    @classmethod
    def from_dict(cls, d: dict) -> "Header":
        if d.get("format") != FORMAT:
            raise ValueError(f"header format {d.get('format')!r}, not {FORMAT}")
        header = cls(str(d["title"]), str(d["created"]), d["root"], d["secret"], d["parent"],
                     d["branch_at"], dict(d["source"]), dict(d["provenance"]), str(d.get("kind", "duel")))
        if not (isinstance(header.root, bytes) and len(header.root) == 32
                and isinstance(header.secret, bytes) and len(header.secret) == 32):
            raise ValueError("root and secret are 32 bytes")
        return header


def _head_message(duel_id: str, count: int, hash: bytes, header: bytes, cards: bytes, status: dict,
                  effects: bytes | None, pack: Callable[[object], bytes] = msgpack.packb) -> bytes:
    """What an anchor signs (``Head.message``): an append signs it before its ``Head`` is made
    (``pack``: ``chain.packer``'s, the appending thread's own)."""
    signed = [duel_id, count, hash, header, cards, status]
    # an anchor of a duel without effect facts signs what anchors always signed
    return _HEAD_LABEL + pack(signed if effects is None else [*signed, effects])


_CLOCK: tuple[int, str] = (-1, "")     # the second of the last append's time, and its text


def _now() -> tuple[str, int]:
    """An append's recording time: ``chain.now()``'s text and its milliseconds (``chain.to_ms``),
    the second's text made once a second (a datetime made, formatted and parsed again was a
    tenth of an append's own work beside its signature: issue 25)."""
    global _CLOCK
    ms = time.time_ns() // 1_000_000
    second, milli = divmod(ms, 1000)
    at, text = _CLOCK
    if at != second:
        text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        _CLOCK = (second, text)
    return f"{text}.{milli:03d}+00:00", ms


@dataclass(frozen=True)
class Head:
    """A duel's anchor after one append: how many events, the last hash, and what it signs.

    Signed alone (``path`` None: a lone append, and every anchor written before groups were) or
    with the anchors of its group commit (issue 25: one signature a group, not one an append):
    then ``signature`` is over the root of a Merkle tree of the group's messages
    (``_GROUP_LABEL``, ``signing.tree``) and ``path``/``left`` are its audit path to that root.
    Stored anchors without them are read as signed alone (``from_dict``). Whether it holds is
    asked of ``signed_by`` only, wherever an anchor is checked: no other way in skips the path."""

    count: int
    hash: bytes
    header: bytes                    # the header's digest
    cards: bytes                     # the card facts' digest
    status: dict                     # players, turn, LP, result: what ``list`` shows
    key: bytes                       # the signer's public key
    signature: bytes
    effects: bytes | None = None     # the effect facts' digest; None while the duel has none
    mac: bytes | None = None         # ``OrganiserKey.mac`` of ``message``: none on anchors written before them
    path: bytes | None = None        # the audit path's siblings (``signing.tree``); None when signed alone
    left: int = 0                    # which of its siblings are on the left (a bit a step)

    def message(self, duel_id: str) -> bytes:
        return _head_message(duel_id, self.count, self.hash, self.header, self.cards, self.status, self.effects)

    def signed_by(self, signer: PublicKey, duel_id: str, holder: OrganiserKey | None = None) -> bool:
        """Whether this anchor of ``duel_id`` is ``signer``'s: by its MAC when ``holder``, the
        signer's private key, is held here (an HMAC, where an Ed25519 check was a fifth of a
        seek: issue 25; made only with that key's secret, it vouches as the signature does);
        else by its signature, over its message or, signed with its group, over the root its
        audit path leads to. The one check of an anchor: every reader asks it."""
        return Store._vouched(self.mac, self.signature, signer, holder, self.message(duel_id), self.path, self.left)

    def signed(self, signature: bytes, path: bytes | None = None, left: int = 0) -> "Head":
        """This anchor with its signature (over its root, with its audit path, when signed with its group).
        Its fields copied as they are, not each set again through the frozen ``__init__`` (one
        ``object.__setattr__`` a field: 1.2 µs, now 0.6, an anchor of a group, issue 25)."""
        head = object.__new__(Head)
        head.__dict__.update(self.__dict__, signature=signature, path=path, left=left)
        return head

    def to_dict(self) -> dict:
        out = {"n": self.count, "h": self.hash, "header": self.header, "cards": self.cards,
               "status": self.status, "key": self.key, "sig": self.signature}
        if self.effects is not None:
            out["effects"] = self.effects
        if self.mac is not None:
            out["mac"] = self.mac
        if self.path is not None:
            out["path"], out["left"] = self.path, self.left
        return out

    @classmethod
    def from_dict(cls, d: dict) -> "Head":
        """An anchor as stored; one written before duels kept effect facts has none (``effects``),
        one written before MACs none (``mac``), one signed alone (or written before groups were
        signed together) no audit path. A path not in ``signing.tree``'s form is refused
        (ValueError): at most ``signing.MAX_PATH`` steps of 32 bytes; so is a field of another
        type than the store writes (rewritten in the database), which the readers compare, hash
        and look up as what they are: a count of text or a key of a list was an internal error
        of ``verify`` and of ``list`` for the whole store."""
        path, left = d.get("path"), d.get("left", 0)
        if path is not None:
            signing.check_path(path, left)
        elif "left" in d:
            raise ValueError("an anchor's audit path sides without its path")
        try:
            head = cls(d["n"], d["h"], d["header"], d["cards"], d["status"], d["key"], d["sig"], d.get("effects"),
                       d.get("mac"), path, left)
        except KeyError as exc:
            raise ValueError(f"an anchor without its {exc.args[0]!r}") from None
        if type(head.count) is not int or head.count < 0:
            raise ValueError(f"an anchor's count is a {type(head.count).__name__}, not a number of events")
        fields = {"h": head.hash, "header": head.header, "cards": head.cards, "key": head.key, "sig": head.signature,
                  "status": head.status, "effects": head.effects}
        for name, value in fields.items():
            wanted = dict if name == "status" else bytes
            if not isinstance(value, wanted) and not (name == "effects" and value is None):
                raise ValueError(f"an anchor's {name!r} is a {type(value).__name__}, not {wanted.__name__}")
        return head


@functools.cache
def _replay_file() -> Any:
    """The replay file's module (its limits and checks), imported by what writes, not with the
    store: a read (``show DUEL --at N``) never checks a file's limits (issue 25)."""
    from . import replay_file
    return replay_file


@functools.cache
def _writing() -> tuple[Any, Any, Any]:
    """What a write needs and a read does not (issue 25: imported by the first write, not with
    the store): ``eventsourcing``'s row, the library index's module and the replay file's (its
    limits read off the module at each write). Looked up once, not by import statements at every
    append."""
    from eventsourcing.persistence import StoredEvent

    from . import library
    return StoredEvent, library, _replay_file()


def _exportable(event: Event, position: int, size: int = 0, names: int | None = None) -> None:
    """``check_event``: an event no replay file could hold is refused, nothing written (``names``:
    the most player names, ``MAX_PLAYER_NAMES`` when None)."""
    files = _replay_file()
    try:
        files.check_event(event, position, size, files.MAX_PLAYER_NAMES if names is None else names)
    except files.ReplayFileError as exc:
        raise InputError(say("{exc}: the duel could not be exported; nothing was written", exc=exc)) from None


#: The most an event's stored row takes beyond its event, which is within the replay file's
#: ``MAX_EVENT_BYTES`` (``_write``): its time, its hashes and their keys (108 bytes).
_ROW_OVERHEAD = 128


def _header_state(header: Header) -> bytes:
    """A stream's header row as stored."""
    return msgpack.packb({"header": header.to_dict(), "h": header.digest})


def _head_row(duel_id: str, head: Head, pack: Callable[[object], bytes] = msgpack.packb) -> library.HeadRow:
    """The stored row of a signed anchor (its version the event count; ``pack``: a group's
    leader packs its group's rows with one ``chain.packer``)."""
    library = _writing()[1]       # looked up once, not by an import statement at every append
    return made(library.HeadRow, originator_id=f"{duel_id}/head", originator_version=head.count, topic=HEAD_TOPIC,
                state=pack(head.to_dict()), status=head.status)


class Vouched(namedtuple("Vouched", ("header", "status"))):
    """What a stream's signed anchors vouch for, as ``Store.listed`` decides it: its header and
    the status its last anchor signs (players, turn, result)."""

    __slots__ = ()  # ``collections.namedtuple``: see ``events.Loc``
    header: Header
    status: dict


class _Row(namedtuple("_Row", ("originator_id", "originator_version", "topic", "state"))):
    """A stored row as a seek reads it, with ``StoredEvent``'s fields (a frozen dataclass: making
    one per row was a tenth of a seek); ordered by version."""

    __slots__ = ()  # ``collections.namedtuple``: see ``events.Loc``
    originator_id: str
    originator_version: int
    topic: str
    state: bytes


@dataclass(frozen=True)
class Record:
    """One stored event with its place in the chain and whether a rollback reverted it."""

    position: int
    event: Event
    recorded: str
    prev_hash: bytes
    hash: bytes
    reverted_by: int | None = None


@dataclass(frozen=True)
class DuelInfo:
    """A duel as ``list`` shows it, read from its header and its last anchor only."""

    id: str
    title: str
    created: str
    parent: str | None
    branch_at: int | None
    events: int = 0
    status: dict = field(default_factory=dict)
    source: dict = field(default_factory=dict)
    provenance: dict = field(default_factory=dict)
    signed: bool = True              # its last anchor's signature holds (else ``status`` is not shown)


@dataclass
class StoredDuel:
    """Everything the store holds about one duel, read whole."""

    id: str
    header: Header
    records: list[Record]
    cards: CardDB
    head: Head | None

    @property
    def events(self) -> list[Event]:
        return [r.event for r in self.records]

    @property
    def times(self) -> list[str]:
        return [r.recorded for r in self.records]

    @property
    def hashes(self) -> list[bytes]:
        return [r.hash for r in self.records]


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


class StreamKind:
    """What a kind of stream folds its events with, and what its anchors sign as its status.

    The fold (``new``) has ``position`` (the next event's), ``append(event, strict=...)`` (raises
    RuleViolation when strict, else collects it) and ``state``; the store writes, chains, anchors
    and verifies every kind alike. The duel's kind is this class itself."""

    name = "duel"
    topic = HEADER_TOPIC
    snapshots = True                 # a long stream resumes from signed snapshots of its fold

    def new(self, cards: CardDB) -> Any:
        return History(cards, audit=True)

    def use_cards(self, fold: Any, cards: CardDB) -> None:
        """The fold judges with these card facts from now on (an append brought new ones)."""
        fold.cards = fold.state.db = cards

    def status(self, fold: Any) -> dict:
        state = fold.state
        return {"players": list(state.players), "turn": state.turn, "lp": [s.lp for s in state.sides],
                "ended": state.ended, "winner": state.winner, "reason": state.end_reason,
                **({"witnessed": True} if getattr(state, "witnessed", False) else {}),
                # a table's call of a judge or a dispute still open (MATCH-08): what a round flags
                **({"judge": waiting} if (waiting := fold.waiting_for_judge()) else {})}


DUEL = StreamKind()
#: Every kind of stream a store holds, by the name its header gives (``register_kind``).
KINDS: dict[str, StreamKind] = {DUEL.name: DUEL}


def register_kind(kind: StreamKind) -> StreamKind:
    KINDS[kind.name] = kind
    return kind


def _shown_last(index: int, event: Event) -> NoReturn:
    """A witnessed duel's event that shows its writer (the table's recorder, a player's device) a
    card it did not see before (a Set card activated, a face-down monster flipped, a hidden card
    sent to the GY: ``rules.base.shown_to_writer``) ends its batch. A later event whose check reads
    that card (ZONE-09, LOG-03 after it) was answered on what it is, the batch refused all the
    same: the table learned a player's hidden card, nothing written, nothing shown. Refused before
    anything after it is judged, the same answer whatever the card is."""
    raise InputError(say("event {index} ({kind}) shows this writer a card it did not see before: it is "
                         "sent last in its batch (or alone), and what follows in a batch of its own; "
                         "nothing was written", index=index, kind=event.kind))


@dataclass
class _Live:
    """The fold at a stream's head, kept between appends while no one else writes."""

    history: Any                     # the kind's fold (a duel's ``History``)
    header: Header
    cards: CardDB
    cards_digest: bytes
    head: Head
    kind: StreamKind = DUEL
    effects_digest: bytes | None = None
    #: its ``access`` attachment's latest row as read (or written) with it, None when it had none:
    #: what a duel's first append is checked by (``Records.check_mode``) without reading it again
    access: bytes | None = None
    #: the bytes of its header's, events' and card facts' rows (``MAX_STORED``): when not ``exact``,
    #: at most this many (a stream read from the store: ``_head_of``)
    size: int = 0
    exact: bool = True
    #: the records a stream was made with by this process (``record``), while its head is at them:
    #: what ``created`` gives the service's new duel made with its set-up, never read back
    made: tuple[Record, ...] = ()


def key_claim(key: str, stream_id: str) -> dict[str, dict[str, dict]]:
    """The claim of a ``key`` one stream only of the store may hold (an imported file's) for
    ``stream_id``, as ``Store.record`` and ``append_records`` take claims: the store's ``claim``
    attachment keyed by it, its row ``ygoreplay/store/claim/<key>`` of topic ``ygoreplay:claim``
    (the form such claims were always stored in: one written before holds its key still)."""
    return {STORE_ID: {f"claim/{key}": {"stream": stream_id}}}


def _first_rows(attached: dict[str, dict[str, dict]]) -> list[StoredEvent]:
    """The first versions of attachments ``{stream: {name: data}}``: a new stream's, or claims
    (other streams', the store's keys: ``key_claim``), which the recorder's unique (stream,
    version) lets one writer only have. A name is an attachment's (``_attachment``), or one of
    its keys (``name/key``: a row a key, of the attachment's topic). The one place claims are made."""
    from eventsourcing.persistence import StoredEvent
    rows = []
    for owner, named in attached.items():
        for name, data in named.items():
            kind, keyed, key = name.partition("/")
            if keyed and not key.replace("-", "").replace("_", "").isalnum():
                raise ValueError(f"{name!r} cannot name an attachment")
            rows.append(StoredEvent(f"{owner}/{_attachment(kind)}{keyed}{key}", 0, f"ygoreplay:{kind}",
                                    msgpack.packb(data)))
    return rows


def _attachment(name: str) -> str:
    """An attachment's name, which must not be one of the store's own topics (a stream kind's
    header, its cards, anchors, snapshots): its rows would be read as theirs."""
    own = {kind.topic for kind in KINDS.values()} | {CARDS_TOPIC, HEAD_TOPIC, SNAPSHOT_TOPIC, STORE_TOPIC}
    if f"ygoreplay:{name}" in own or not name.replace("_", "").isalnum():
        raise ValueError(f"{name!r} cannot name an attachment")
    return name


#: What makes a store URL other than a plain file's for ``urlparse`` (``_plain_file``): a byte it
#: strips or drops, and what it unquotes or splits off (a query, a fragment, ``file:``'s parameters,
#: a host's brackets).
_NOT_PLAIN = re.compile(r"[\x00-\x20%?#;\[\]]")


def _plain_file(url: str) -> str | None:
    """The file a store URL names when it names one the plain way, as ``urlparse`` reads it: a path
    without ``:`` (not ``//host...``), or ``sqlite:``/``file:`` and a path with no host and nothing
    to unquote or split off; None for any other URL, which ``urlparse`` reads (with
    ``urllib.parse``, which ``pathlib`` imports too: together 6% of a fresh ``show DUEL --at N``)."""
    scheme, colon, rest = url.partition(":")
    if not colon:
        return None if url.startswith("//") or _NOT_PLAIN.search(url) else url
    if scheme not in ("sqlite", "file") or _NOT_PLAIN.search(rest):
        return None
    if rest.startswith("//"):
        if not rest.startswith("///"):
            return None                     # a host (and maybe a port): urlparse checks them
        rest = rest[2:]
    return rest


def _environment(url: str | None, readonly: bool, create: bool) -> tuple[dict[str, str], str, str]:
    """The ``eventsourcing`` environment's settings for a store URL, a printable name, and the backend."""
    url = url or os.environ.get(ENV_VAR) or path_text(data_folder(), "duels.sqlite")
    named = _plain_file(url)
    if named is None:
        from urllib.parse import parse_qs, unquote, urlparse
        try:
            parsed = urlparse(url)
            parsed.port                                    # a port that is not a number raises here
        except ValueError as exc:
            raise StoreError(say("store URL {url!r}: {exc}", url=url, exc=exc)) from None
        if parsed.scheme in ("postgresql", "postgres"):
            env = {"PERSISTENCE_MODULE": "eventsourcing.postgres",
                   "ORIGINATOR_ID_TYPE": "text",
                   "POSTGRES_DBNAME": unquote(parsed.path.lstrip("/")) or "postgres",
                   "POSTGRES_HOST": parsed.hostname or "127.0.0.1",
                   "POSTGRES_PORT": str(parsed.port or 5432),
                   "POSTGRES_USER": unquote(parsed.username or "postgres"),
                   "POSTGRES_PASSWORD": unquote(parsed.password or ""),
                   "POSTGRES_CONNECT_TIMEOUT": "5", "POSTGRES_POOL_SIZE": "4",
                   "POSTGRES_LOCK_TIMEOUT": str(LOCK_WAIT)}
            schema = parse_qs(parsed.query).get("schema", [""])[-1]
            if schema and not _SCHEMA_NAME.match(schema):
                raise StoreError(say("store URL {url!r}: schema {schema!r} is not a plain name (lower-case "
                                     "letters, digits, _)", url=url, schema=schema))
            name = f"{parsed.scheme}://{parsed.hostname or '127.0.0.1'}:{parsed.port or 5432}/{env['POSTGRES_DBNAME']}" \
                   + (f"?schema={schema}" if schema else "")
            exists = _check_postgres(env, schema or "public", name, readonly, create)
            env["CREATE_TABLE"] = "n" if exists else "y"
            if schema:
                env["POSTGRES_SCHEMA"] = schema
            return env, name, "postgresql"
        if parsed.scheme not in ("", "sqlite", "file") and len(parsed.scheme) > 1:
            raise StoreError(say("unknown store URL {url!r}: use a file path, sqlite:///path or "
                                 "postgresql://...", url=url))
        if parsed.scheme in ("sqlite", "file") and parsed.netloc not in ("", "localhost"):
            # ``sqlite://x.sqlite`` (a host, no path) or ``file://otherhost/path``: not this machine's
            # file, and never the local ``/path`` silently
            raise StoreError(say("store URL {url!r}: {exc}", url=url,
                                 exc=f"{parsed.netloc!r} is a host; a file here is sqlite:///path"))
        named = unquote(parsed.path) if parsed.scheme in ("sqlite", "file") else url
    try:     # a NUL (``%00``) or a ``~user`` with no home: said as the URL's fault, not a bug's
        if "\x00" in named:
            raise ValueError("embedded null byte")
        path = expand_user(path_text(named))          # str(Path(named).expanduser()), without pathlib
    except (ValueError, RuntimeError) as exc:
        raise StoreError(say("store URL {url!r}: {exc}", url=url, exc=exc)) from None
    exists = _check_sqlite(path, readonly, create)
    if not exists:
        from pathlib import Path
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            # readable by its owner only: it holds every duel's secret
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        except OSError as exc:
            raise StoreError(say("cannot create the store {path}: {strerror}", path=path, strerror=exc.strerror)) from None
    dbname = file_uri(path_text(os.path.realpath(path))) + "?mode=ro" if readonly else path
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "CREATE_TABLE": "n" if exists else "y",
           "ORIGINATOR_ID_TYPE": "text", "SQLITE_DBNAME": dbname, "SQLITE_LOCK_TIMEOUT": str(SQLITE_LOCK_WAIT)}
    return env, path, "sqlite"


def _check_sqlite(path: str, readonly: bool, create: bool) -> bool:
    """Whether ``path`` is an existing ygoreplay store; refuses anything else without touching it."""
    try:
        found = os.stat(path)
    except OSError:
        found = None
    if found is not None and stat.S_ISDIR(found.st_mode):
        raise StoreError(say("{path} is a folder, not a store file", path=path))
    if found is not None and not stat.S_ISREG(found.st_mode):
        # a pipe, a device, a socket: SQLite would hang opening a pipe, and nothing is created
        # over one (``record`` took a pipe's size of 0 for no store and waited for ever)
        raise StoreError(say("{path} is not a regular file, not a store file", path=path))
    if found is None or found.st_size == 0:
        if readonly or not create:
            raise MissingStore(str(path))
        return False
    known = _STORE_FILES.get((found.st_dev, found.st_ino, found.st_ctime_ns))   # found a store before, unchanged since
    if known or known is not None and readonly:
        return True
    try:
        conn = sqlite3.connect(file_uri(path_text(os.path.realpath(path))) + "?mode=ro", uri=True,
                               timeout=SQLITE_LOCK_WAIT)
    except sqlite3.Error as exc:
        raise StoreError(say("cannot open the store {path}: {exc}", path=path, exc=exc)) from None
    try:
        schema = conn.execute(_SCHEMA).fetchall()
        tables = {name for kind, name, _sql in schema if kind == "table"}
        if _SQLITE_TABLES <= tables and readonly:
            own_schema(conn, path, sorted(_SQLITE_TABLES), None, schema)
        elif _SQLITE_TABLES <= tables:        # its index's tables too: every write writes them
            from .library import sqlite_keys, sqlite_shape
            shape = sqlite_shape()
            own_schema(conn, path, [*sorted(_SQLITE_TABLES), *shape.tables], shape.triggers, schema, shape.computed,
                       shape.virtual, {**_SQLITE_KEYS, **sqlite_keys(conn)})
        marker = conn.execute("SELECT state FROM stored_events WHERE originator_id = ? AND originator_version = 0",
                              (STORE_ID,)).fetchone() if _SQLITE_TABLES <= tables else None
    except sqlite3.DatabaseError as exc:
        if _outage(exc) == "busy":     # locked by another session: a store to try again, not "no store"
            raise StoreBusy(say("the store at {path} is busy: another session held its lock for over "
                                '{sqlite_lock_wait} s ("database is locked"): try again',
                                path=path, sqlite_lock_wait=SQLITE_LOCK_WAIT)) from None
        if getattr(exc, "sqlite_errorcode", sqlite3.SQLITE_NOTADB) & 0xFF not in (sqlite3.SQLITE_NOTADB,
                                                                               sqlite3.SQLITE_CORRUPT):
            # the disk or the process's limits refused (an I/O error, a full disk, ``ulimit -f``):
            # said as such, not as a file that is no store, which its owner might then remove
            raise StoreError(say("cannot open the store {path}: {exc}", path=path, exc=exc)) from None
        raise StoreError(say("{path} is not a ygoreplay store (not an SQLite database: {exc})",
                             path=path, exc=exc)) from None
    finally:
        conn.close()
    if marker is None:
        held = ", ".join(sorted(tables)[:5]) or N_("no tables")
        raise StoreError(say("{path} is not a ygoreplay store (it holds {held}); nothing was changed",
                             path=path, held=held))
    _check_marker(_blob(marker[0], 0, STORE_ID), str(path))
    _STORE_FILES[(found.st_dev, found.st_ino, found.st_ctime_ns)] = not readonly
    return True


_SCHEMA = "SELECT type, name, sql FROM sqlite_master"
#: The generated columns of every table but a virtual one (whose hidden columns are its own).
_GENERATED = ("SELECT m.name, x.name FROM sqlite_master AS m JOIN pragma_table_xinfo(m.name) AS x "
              "WHERE m.type = 'table' AND m.sql NOT LIKE 'CREATE VIRTUAL%' AND x.hidden")
#: The indexes a write computes more than the columns' values for: on an expression (a column -2)
#: or partial (a condition); and a table's CHECK constraint (``printf`` of 200 MB an insert: hung).
_COMPUTING_INDEXES = ("SELECT i.name FROM sqlite_master AS m JOIN pragma_index_list(m.name) AS i "
                      "WHERE m.type = 'table' AND (i.partial OR EXISTS (SELECT 1 FROM pragma_index_xinfo(i.name) "
                      "WHERE cid = -2))")
_CHECK = re.compile(r"\bCHECK\b", re.IGNORECASE)
#: A conflict clause of a table's own (``PRIMARY KEY (...) ON CONFLICT REPLACE``, ``IGNORE``): a plain
#: INSERT then replaces the row it meets, or is dropped, where ygoreplay's write counts on being
#: refused (two writers at one position: the second is judged again at the new head).
_ON_CONFLICT = re.compile(r"\bON\s+CONFLICT\b", re.IGNORECASE)
#: What SQLite's tokenizer reads as white space between two words besides white space: a comment
#: (``ON/**/CONFLICT REPLACE`` is a conflict clause), outside a quoted string or name.
_SQL_SPACING = re.compile(r"""('(?:[^']|'')*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`|\[[^\]]*\])|/\*.*?(?:\*/|$)|--[^\n]*""",
                          re.DOTALL)


def _uncommented(sql: str) -> str:
    """``sql`` with each comment made a space, as SQLite's tokenizer reads it: a check for a
    clause by its words (``_ON_CONFLICT``) is not told apart by a comment between them."""
    return _SQL_SPACING.sub(lambda m: m.group(1) or " ", sql)
#: The keys of the store's own tables, as ``eventsourcing`` makes them: what tells two writes of
#: one position apart (``own_schema``).
_SQLITE_KEYS = {table: ("originator_id", "originator_version") for table in _SQLITE_TABLES}
#: The columns' defaults, which an insert that does not name the column computes (the index's rows
#: name few: ``library_streams.p0 DEFAULT (printf(...))`` ran on every duel recorded); only a
#: literal is ours (``''``, ``0``, ``'private'``).
_DEFAULTS = ("SELECT m.name, x.dflt_value FROM sqlite_master AS m JOIN pragma_table_xinfo(m.name) AS x "
             "WHERE m.type = 'table' AND x.dflt_value IS NOT NULL")
_LITERAL = re.compile(r"'(?:[^']|'')*'|[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|NULL|TRUE|FALSE|[xX]'[0-9A-Fa-f]*'",
                      re.IGNORECASE)


def own_schema(conn: sqlite3.Connection, path: object, tables: Iterable[str], triggers: frozenset[str] | None = None,
               schema: list[tuple[str, str, str | None]] | None = None, computed: Mapping[str, tuple[str, str]] = {},
               virtual: Mapping[str, str] = {}, keys: Mapping[str, tuple[str, ...]] = {}) -> None:
    """Refuse a SQLite file of ours (a store, a witness) whose schema makes a read or a write
    compute what no write of ours stored, before anything is read of it: StoreError naming the
    file and what. ``tables``: those read, which must be plain tables of stored columns (a
    generated ``zeroblob`` made a 155 KB store's ``log`` build 2.6 GB; a view may recur without
    end), but for ``computed``'s one generated column (table -> its name, and the end of the
    table's statement, which defines it) and ``virtual``'s statements; ``triggers``: the
    statements of the only triggers a write may run (one over an endless recursive query hung
    ``record``; nor may an index, a CHECK or a default compute on a write), None when the file is only read
    (a read runs none); ``schema``: its rows of ``sqlite_master`` (type, name, statement), when
    the caller has them; ``keys``: the primary key each written table must have, as ours (none, or
    one of other columns, and a second write of one position went in beside the first: two
    events #18, the record broken). Nor may a written table say what a conflict does (``ON
    CONFLICT REPLACE``: a second writer's append overwrote the first's event, both answered with
    a receipt; ``IGNORE``: it was dropped, and answered with one): nothing recorded is
    lost. Statements are compared with their white space made single spaces."""
    if schema is None:
        schema = conn.execute(_SCHEMA).fetchall()
    made = {name: (kind, " ".join((sql or "").split())) for kind, name, sql in schema}
    raw = {name: sql or "" for _kind, name, sql in schema}
    tables = [table for table in tables if table in made]     # others: made plain by the caller, or read by no one
    marks = ", ".join("?" * len(tables))
    generated: dict[str, list[str]] = {}
    for table, column in conn.execute(f"{_GENERATED} AND m.name IN ({marks})", tables):
        generated.setdefault(table, []).append(column)
    for table in tables:
        kind, sql = made[table]
        if table in virtual:
            plain = kind == "table" and sql == virtual[table]
        else:
            column, end = computed.get(table, ("", ""))
            plain = kind == "table" and sql.upper().startswith("CREATE TABLE") and (
                table not in generated or generated[table] == [column] and sql.endswith(end))
        if not plain:
            raise StoreError(say("{path}: its table {table} computes what it holds (a virtual table or a generated "
                                 "column) instead of storing it; nothing was read", path=path, table=table))
    for kind, name, sql in schema:
        if triggers is not None and kind == "trigger" and " ".join((sql or "").split()) not in triggers:
            raise StoreError(say("{path} holds a trigger {name!r} ygoreplay did not make (a write would run it); "
                                 "nothing was changed", path=path, name=name))
    if triggers is None:
        return
    from .library import primary_key
    for table in tables:
        unkeyed = table in keys and primary_key(conn, table) != keys[table]
        if unkeyed or _ON_CONFLICT.search(_uncommented(raw[table])):
            raise StoreError(say("{path}: its table {table} is not keyed as ygoreplay keys it (its primary key, or a "
                                 "conflict clause of its own: a second write of one position would replace the "
                                 "first, be dropped or stored beside it); nothing was changed",
                                 path=path, table=table))
    computing = [name for name, in conn.execute(f"{_COMPUTING_INDEXES} AND m.name IN ({marks})", tables)]
    computing += [table for table in tables if _CHECK.search(made[table][1])]
    computing += [table for table, default in conn.execute(f"{_DEFAULTS} AND m.name IN ({marks})", tables)
                  if not _LITERAL.fullmatch(default)]
    if computing:
        raise StoreError(say("{path}: {name!r} computes on every write what ygoreplay does not (a CHECK constraint, "
                             "a column's default that is not a constant, or an index on an expression or a "
                             "condition); nothing was changed",
                             path=path, name=computing[0]))


def _check_marker(state: bytes, name: str) -> None:
    try:
        found = msgpack.unpackb(state).get("format")
    except (ValueError, TypeError, AttributeError, msgpack.ExtraData):
        found = None
    if found != FORMAT:
        raise StoreError(say("{name} is a ygoreplay store of format {found!r}; this program reads format "
                             "{format}", name=name, found=found, format=FORMAT))


def _check_postgres(env: dict, schema: str, name: str, readonly: bool, create: bool) -> bool:
    """Whether the store exists. One direct connection first: a wrong host fails at once with the
    server's reason; the tables must exist unless the store may be created (and then so is its
    schema)."""
    import psycopg
    from psycopg import sql
    try:
        with _bounded().connect(**_bound({
                "dbname": env["POSTGRES_DBNAME"], "host": env["POSTGRES_HOST"], "port": env["POSTGRES_PORT"],
                "user": env["POSTGRES_USER"], "password": env["POSTGRES_PASSWORD"] or None,
                "connect_timeout": 5, "autocommit": True})) as conn:
            tables = {row[0] for row in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", (schema,))}
            if _POSTGRES_TABLES <= tables:
                marker = conn.execute(sql.SQL("SELECT state FROM {} WHERE originator_id = %s AND originator_version = 0")
                                      .format(sql.Identifier(schema, "ygoreplay_events")), (STORE_ID,)).fetchone()
                if marker is None:
                    raise StoreError(say("{name}: the tables hold no ygoreplay store marker; nothing was "
                                         "changed", name=name))
                _check_marker(_blob(marker[0], 0, STORE_ID), name)
                return True
            if readonly or not create:
                raise MissingStore(name)
            if schema != "public":
                conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
            return False
    except psycopg.Error as exc:
        reason = _reason(exc, env["POSTGRES_PASSWORD"])
        if _outage(exc) == "gone":
            raise StoreUnavailable(say("the store at {name} is not answering: cannot reach PostgreSQL at "
                                       "{host}:{port}: {reason}", name=name, host=env["POSTGRES_HOST"],
                                       port=env["POSTGRES_PORT"], reason=reason)) from None
        raise StoreError(say("cannot reach PostgreSQL at {host}:{port} (database {database!r}, user {user!r}): "
                             "{reason}", host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"],
                             database=env["POSTGRES_DBNAME"], user=env["POSTGRES_USER"], reason=reason)) from None


class Store:
    """Duels recorded as event streams: record, append, read, rewind, branch, roll back, verify.

    ``cards`` supplies the facts of cards an append names for the first time, with their effect
    facts (``CardDB.effects``: a ``card_lookup`` has the installed scripts'); the duel keeps both
    from then on. ``key`` signs what is written (default: the organiser key, created on the
    first write); ``trust`` adds public keys whose signatures are accepted besides ``key``'s.
    ``readonly`` opens an existing store and changes nothing; ``create=False`` refuses a store
    that does not exist yet. ``concurrent`` (the service) lets many threads append at once: the
    appends of different duels are committed together, one transaction for as many as are
    waiting (group commit), while the appends of one duel stay in order.
    """

    CACHED_DUELS = 4096                 # the folds at the head kept between appends

    def __init__(self, url: str | None = None, cards: CardDB | None = None, *,
                 key: OrganiserKey | None = None, trust: Iterable[PublicKey] = (),
                 readonly: bool = False, create: bool = True, concurrent: bool = False,
                 reindex: bool = False) -> None:
        env, self.name, self.backend = _environment(url, readonly, create)
        self._secret = env.get("POSTGRES_PASSWORD") or ""      # never in a message (``_reason``)
        self._cards = cards or None         # given none (or an empty set): the classic set
        self.readonly = readonly
        self._key = key
        self._organiser: OrganiserKey | None = None     # the organiser key ``trusts`` loaded
        self._trust = {k.raw: k for k in trust}
        if key is not None:                            # its own signatures are trusted
            self._trust[key.public.raw] = key.public
        self._env = env
        self._gate = threading.Condition(threading.Lock())   # ``close`` and the reads and writes on the pool's connections
        self._users = 0                        # those holding a connection of the pool, or taking one
        self._closing = False                  # ``close``d: none takes one from now on
        self._opening = threading.Lock()       # ``_recorders``: opened once
        self._opened: tuple[InfrastructureFactory, ApplicationRecorder, Any] | None = None
        # a store read-only on SQLite: ``_read``'s own connections, idle (its recorders are opened
        # only for the reads that use them: a seek never does); None on any other store
        self._plain: list[sqlite3.Connection] | None = [] if readonly and self.backend == "sqlite" else None
        if self._plain is None:
            self._recorders()
        if env.get("CREATE_TABLE") == "y":
            from eventsourcing.persistence import StoredEvent
            self._insert([StoredEvent(STORE_ID, 0, STORE_TOPIC,
                                      msgpack.packb({"format": FORMAT, "created": chain.now()}))], marker=True)
        self._postgres = _PostgresWriter(self) if self.backend == "postgresql" and not readonly else None
        self._live: OrderedDict[str, _Live] = OrderedDict()
        # ``_listed_header``'s decisions, by stream: (header row, anchor version, anchor row, decision)
        self._listed: dict[str, tuple[bytes, int, bytes, Vouched | None]] = {}
        # the same decisions by the ``committed`` mark of the rows they were made on (``decided``)
        self._listed_at: dict[tuple[Any, ...], dict[str, Vouched | None]] = {}
        self._key_looked_for = False                    # ``index_key``: the organiser key is looked for once
        self._guard = threading.Lock()                 # the cache and the per-duel locks
        self._locks: dict[str, threading.Lock] = {}
        self._committer = _Committer(self) if concurrent and not readonly else None
        # the heads of the duels whose first appends wait at one moment, read in one statement
        self._head_reads = _HeadReads(self) if concurrent and self.backend == "postgresql" else None
        # each group-committed append's receipt, signed with its group: (duel, events, head) -> (time, proof)
        self._proofs: dict[tuple[str, int, bytes], tuple[str, bytes, bytes, int]] = {}
        # its index rows go in each write's transaction; installed last: building a missing index
        # reads each stream as ``opened`` does (read-only, it installs nothing)
        if not readonly:
            from . import library
            library.install(self, self.library, KINDS, downgrade=reindex)    # (``search --reindex``)

    def __repr__(self) -> str:
        return f"<Store {self.backend} {self.name}{' read-only' if self.readonly else ''}>"

    def _recorders(self) -> tuple[InfrastructureFactory, ApplicationRecorder, Any]:
        """The ``eventsourcing`` factory and the events' and snapshots' recorders, opened on first
        use: when the Store is made, except read-only on SQLite (``_plain``), where only a read
        through them opens them (and imports ``eventsourcing``)."""
        opened = self._opened
        if opened is not None:
            return opened
        from eventsourcing.persistence import InfrastructureFactory, PersistenceError
        from eventsourcing.utils import Environment
        with self._opening:
            if self._opened is not None:
                return self._opened
            if self._closing:
                raise YgoreplayError(say("the store {name} is closed", name=self.name))
            for attempt in range(3):       # concurrent first opens race to create the same tables
                try:
                    factory = InfrastructureFactory.construct(Environment("ygoreplay", self._env))
                    if self.backend == "postgresql":     # before the pool's first connection
                        pool = factory.datastore.pool
                        pool.kwargs = _bound({**(pool.kwargs or {}), "connect_timeout": max(1, round(pool.timeout))})
                        pool.connection_class = _bounded()
                    elif self.readonly:
                        # the pool turns each file it opens to WAL, a write: a store read-only
                        # reads a file in whatever journal mode it is (a ``VACUUM INTO`` backup's
                        # "delete") as its own connections do, and changes nothing of it
                        factory.datastore.pool.is_journal_mode_wal = True
                    events = factory.application_recorder()
                    snapshots = factory.aggregate_recorder("snapshots")
                    events.select_events = _checking(events.select_events)
                    events.select_notifications = _checking(events.select_notifications)
                    snapshots.select_events = _checking(snapshots.select_events, snapshots=True)
                    break
                except (PersistenceError, OSError, ImportError, sqlite3.Error) as exc:
                    if attempt == 2 or "concurrently" not in str(exc):
                        raise StoreError(say("cannot open the store {name}: {exc}", name=self.name, exc=exc)) from None
            datastore = factory.datastore
            tries = datastore.pool.max_size + 1 if self.backend == "postgresql" else 0
            datastore.get_connection = self._gated(datastore.get_connection, tries)
            self._opened = factory, events, snapshots
        return self._opened

    @property
    def factory(self) -> InfrastructureFactory:
        return self._recorders()[0]

    @property
    def events(self) -> ApplicationRecorder:
        return self._recorders()[1]

    @property
    def snapshots(self) -> Any:
        return self._recorders()[2]

    @functools.cached_property
    def library(self) -> library.Index:
        """The library index of the store's tables (``library.index_of``), its rows keyed by the
        organiser key; made when first used (read-only on SQLite a seek never uses it)."""
        from . import library
        return library.index_of(self)

    @functools.cached_property
    def _head_query(self) -> str:
        """``_head_rows``'s statement."""
        return self.library.sql(
            "SELECT 0 AS part, originator_version, topic, state FROM {heads} "
            "WHERE originator_id = ? AND originator_version = 0 UNION ALL "
            + _LAST_OF.replace("{part}", "1") + " UNION ALL " + _LAST_OF.replace("{part}", "2") + " UNION ALL "
            "SELECT 3 AS part, originator_version, topic, state FROM {heads} WHERE originator_id = ? UNION ALL "
            + _LAST_OF.replace("{part}", "4") + " ORDER BY part, originator_version")

    @functools.cached_property
    def _heads_query(self) -> str:
        """``_head_rows``' statement for many streams at once (PostgreSQL; ``_HeadReads``): the same
        parts for each stream of the one bound array, each row numbered by its stream's place in it."""
        return self.library.sql(
            "WITH w(id, i) AS (SELECT * FROM unnest(?::text[]) WITH ORDINALITY) "
            "SELECT w.i, 0 AS part, e.originator_version, e.topic, e.state FROM w JOIN {heads} e "
            "ON e.originator_id = w.id AND e.originator_version = 0 UNION ALL "
            + _LAST_OF_EACH.format(part=1, suffix="", heads="{heads}") + " UNION ALL "
            + _LAST_OF_EACH.format(part=2, suffix=" || '/head'", heads="{heads}") + " UNION ALL "
            "SELECT w.i, 3 AS part, e.originator_version, e.topic, e.state FROM w JOIN {heads} e "
            "ON e.originator_id = w.id || '/cards' UNION ALL "
            + _LAST_OF_EACH.format(part=4, suffix=" || '/access'", heads="{heads}")
            + " ORDER BY 1, 2, 3")

    @functools.cached_property
    def _size_query(self) -> str:
        """``_stored_size``'s statement."""
        return self.library.sql(
            "SELECT COALESCE(SUM(LENGTH(state)), 0) AS size FROM {heads} WHERE originator_id IN (?, ?)")

    @functools.cached_property
    def _live_query(self) -> str:
        """``opened``'s statement."""
        return self.library.sql(
            "SELECT 0 AS part, originator_version, topic, state FROM {heads} "
            "WHERE originator_id = ? AND originator_version = 0 UNION ALL "
            + _LAST_OF.replace("{part}", "1") + " UNION ALL "
            "SELECT 2 AS part, originator_version, topic, state FROM {heads} WHERE originator_id = ? UNION ALL "
            "SELECT 3 AS part, originator_version, topic, state FROM {heads} "
            "WHERE originator_id = ? AND originator_version > 0 UNION ALL "
            "SELECT 4 AS part, originator_version, topic, state FROM {heads} WHERE originator_id = ? "
            "ORDER BY part, originator_version")

    @property
    def cards(self) -> CardDB:
        """The facts of cards an append names for the first time: those given, else the bundled
        classic set, loaded when first asked for (a board read from the store never asks: 2–3 ms
        of a fresh ``show --at N``, issue 25)."""
        if self._cards is None:
            self._cards = CardDB.classic()
        return self._cards

    #: How long ``close`` waits for the reads and writes under way to give their connections back.
    CLOSE_WAIT = 30.0

    def close(self) -> None:
        """Refuse new appends and reads, wait for those under way, then close the
        connections, once the reads and writes using them are done (for ``CLOSE_WAIT`` at most):
        SQLite's pool closes the connections in use too, and sqlite3 closed under a statement
        another thread was running crashed the process (SIGSEGV: ``demo`` stopped by Ctrl-C while
        it recorded; a read that took a connection while ``close`` waited, 10 times in 10)."""
        if self._committer is not None:
            self._committer.stop()
        if self._postgres is not None:
            self._postgres.close(for_good=True)
        with self._gate:
            self._closing = True
            self._gate.wait_for(lambda: not self._users, self.CLOSE_WAIT)
            plain, self._plain = self._plain, [] if self._plain is not None else None
        for connection in plain or ():
            connection.close()
        with self._opening:                 # none is opened from now on (``_recorders``)
            if self._opened is not None:
                self._opened[0].close()

    def _gated(self, get_connection: Any, tries: int) -> Any:
        """The datastore's ``get_connection`` (every read and write of the recorders takes its
        connection there), counted, and refused once the store closes: a read after ``close``
        met the pool's own error (a traceback, an HTTP 500), and one that took a connection as
        ``close`` found none in use had it closed under it. Refused as a ``YgoreplayError``, not
        a ``StoreError``: the callers that take a ``StoreError`` for a record not there or altered
        (``verify``: "not ok") must not take a store closed for one.

        On PostgreSQL a pooled connection the server hung up on (a restart, a terminated
        backend: ``_hung_up``) is dropped and another taken, so the first read after a restart
        is served (it met the dead connection's error, an HTTP 500); and a database that does
        not answer, or a lock not had (SQLite's too: "database is locked"), or a statement over
        its timeout, is said so once, here, for every read and the recorder's writes
        (``_outage_error``: ``StoreUnavailable``, the service's 503), not as the driver's error.
        ``tries``: the pooled connections a read takes one after another (PostgreSQL's pool's size
        and one; none on SQLite)."""
        from eventsourcing.persistence import PersistenceError

        @contextmanager
        def gated(*args: Any, **kwargs: Any) -> Iterator[Any]:
            with self._gate:
                if self._closing:
                    raise YgoreplayError(say("the store {name} is closed", name=self.name))
                self._users += 1
            used = False
            try:
                for _ in range(tries):
                    with get_connection(*args, **kwargs) as connection:
                        if not _hung_up(connection):
                            used = True
                            yield connection
                            return
                        connection.close()          # the pool drops it and makes another
                with get_connection(*args, **kwargs) as connection:
                    used = True
                    yield connection
            except PersistenceError as exc:
                found = self._outage_error(exc)
                if found is None:
                    raise
                # lost under its statement (not one not had): a public read is made once more (``_read_again``)
                found.lost = used and not isinstance(found, StoreBusy)
                raise found from None
            finally:
                with self._gate:
                    self._users -= 1
                    if not self._users:
                        self._gate.notify_all()
        return gated

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _writable(self) -> None:
        if self.readonly:
            raise StoreError(say("the store {name} is open read-only", name=self.name))

    @property
    def key(self) -> OrganiserKey:
        """The key that signs this store's writes, loaded or created on first use."""
        self._writable()
        if self._key is None:
            self._key = OrganiserKey.load_or_create()[0]
            self._trust[self._key.public.raw] = self._key.public
        return self._key

    def trusts(self, key: bytes) -> PublicKey | None:
        """The trusted public key with these bytes: the organiser's own (also when another process
        created it after this store was opened) or one given in ``trust``."""
        if key not in self._trust and self._key is None:
            found = OrganiserKey.load()
            if found is not None:
                self._trust[found.public.raw] = found.public
                self._organiser = found
        return self._trust.get(key)

    def _holder(self, key: bytes) -> OrganiserKey | None:
        """The private key of these public bytes when this store holds it (it signs with it, or
        ``trusts`` loaded it): what checks the MACs of the snapshots it wrote."""
        for held in (self._key, self._organiser):
            if held is not None and held.public.raw == key:
                return held
        return None

    # -- duels ------------------------------------------------------------------------------------

    def create_duel(self, title: str = "", *, parent: str | None = None,
                    branch_at: int | None = None) -> str:
        """A new duel with no events yet; returns its id."""
        return self.record([], title, parent=parent, branch_at=branch_at)[0]

    def record(self, events: Iterable[Event], title: str = "", *, times: list[str] | None = None,
               cards: CardDB | None = None, check: bool = True, root: bytes | None = None,
               secret: bytes | None = None, created: str | None = None, parent: str | None = None,
               branch_at: int | None = None, source: dict | None = None, provenance: dict | None = None,
               attachments: dict[str, dict] | None = None, kind: str = "duel",
               strict: bool = False, stream_id: str | None = None,
               gather: list | None = None,
               claims: dict[str, dict[str, dict]] | None = None) -> tuple[str | None, int, RuleViolation | None]:
        """A new duel and its events, written in one transaction; (id, events stored, violation).

        With ``check`` (recording) the events are checked like ``check`` does and the duel keeps
        the legal prefix before the first violation (no duel at all when that prefix is empty and
        there were events); without (importing a record) every event is kept and what the rules
        say of them is the audit's business. ``cards`` given are taken before the store's, each
        card with exactly the effect facts given with it (a ``.ygr`` file's own). ``root``, ``secret``, ``created`` and ``times`` keep
        those of an imported record; by default they are new. ``attachments`` are written with
        the duel, in the same transaction (the service's access record: ``attachment``).
        ``kind`` names the stream's kind (``KINDS``: a match is a stream of its own kind);
        ``strict`` refuses every event when one is refused (RuleViolation, nothing written).
        ``stream_id`` is the id to give it (one named beforehand, e.g. by the match it is a duel
        of); by default a new random one. An id already taken is a ConflictError. ``gather``
        collects what would be written instead of writing it (``record_together`` writes it).
        ``claims`` are written with it as ``append_records``' are (an imported file's key:
        ``key_claim``): one another stream holds is a ConflictError, nothing written, in
        whichever process either was written.
        """
        from eventsourcing.persistence import StoredEvent
        self._writable()
        events = list(events)
        if times is not None and len(times) != len(events):
            raise ValueError("one recording time per event")
        stream = KINDS[kind]
        header = Header(title, created or chain.now(), root or os.urandom(32),
                        secret or os.urandom(32), parent, branch_at, source or {}, provenance or {},
                        kind)
        duel_id = stream_id or new_id()
        codes = referenced_codes(events)
        facts = self._facts_for(codes, CardDB(), cards)
        rows = [StoredEvent(duel_id, 0, stream.topic, _header_state(header))]
        rows += _first_rows({duel_id: attachments or {}})
        claimed = _first_rows(claims or {})
        self._claimed(claimed)
        rows += claimed
        access = next((row.state for row in rows if row.originator_id == f"{duel_id}/access"), None)
        live = _Live(stream.new(facts), header, CardDB(), chain.GENESIS, None, stream, access=access,
                     size=len(rows[0].state))
        count, violation, _written = self._write(duel_id, live, events, codes, times, rows, facts,
                                                 "strict" if strict else "prefix" if check else "all", gather)
        if count == 0 and violation is not None:
            return None, 0, violation
        return duel_id, count, violation

    def record_together(self, streams: list[dict], attachments: dict[str, dict[str, dict]] | None = None) -> list[str]:
        """New streams, each given as ``record``'s keyword arguments (and each strict), and
        attachments of any stream (``{id: {name: data}}``), written in one transaction: all of
        them, or none when one is refused (an organiser's round and its matches). Their ids."""
        from eventsourcing.persistence import StoredEvent
        self._writable()
        gathered: list[tuple[str, list[StoredEvent], list[StoredEvent], _Live]] = []
        ids = [str(self.record(**{**spec, "strict": True}, gather=gathered)[0]) for spec in streams]
        rows = [row for _id, written, _snapshots, _live in gathered for row in written]
        attached = _first_rows(attachments or {})
        self._commit_rows(rows + attached, [row for _id, _written, snapshots, _live in gathered for row in snapshots])
        access = {row.originator_id: row.state for row in attached if row.topic == "ygoreplay:access"}
        for stream_id, _written, _snapshots, live in gathered:
            live.access = access.get(f"{stream_id}/access", live.access)      # held with what was written
            self._remember(stream_id, live)
        return ids

    def duels(self, kind: str = "duel") -> list[DuelInfo]:
        """Every duel in the store (or every stream of another ``kind``: a match), oldest first,
        with its count and status from its last anchor."""
        return [self._info(duel_id, state) for duel_id, state in self.header_rows([KINDS[kind].topic])]

    def header_rows(self, topics: Sequence[str]) -> list[tuple[str, bytes]]:
        """Every stream's id and header row of these topics, oldest first: the one read of the
        headers of all, through ``_checking`` (a header refused is no record, b"", which its
        reader takes for a header that cannot be read: a listing goes on past it, and every
        read of that stream itself refuses the row naming it)."""
        headers, start = [], 1
        while True:
            batch = self.events.select_notifications(start, 500, topics=list(topics), refused={})
            headers += [(str(n.originator_id), n.state) for n in batch]
            if len(batch) < 500:
                return headers
            start = batch[-1].id + 1

    def info(self, duel_id: str) -> DuelInfo:
        try:
            state = self._header_row(duel_id)
        except AlteredRow:               # listed as a header that cannot be read
            state = b""
        return self._info(duel_id, state)

    def _info(self, duel_id: str, state: bytes) -> DuelInfo:
        try:
            header = self._decode_header(duel_id, state)
        except StoreError:
            return DuelInfo(duel_id, "(unreadable header)", "", None, None)
        # an anchor row refused is no anchor: listed unsigned ("run verify"), the listing goes on
        rows = self.events.select_events(f"{duel_id}/head", desc=True, limit=1, refused={})
        head = self._names_header(duel_id, header, rows[0] if rows else None)
        if head is None:
            stored = self._anchor(duel_id)
            return DuelInfo(duel_id, header.title, header.created, header.parent, header.branch_at,
                            stored.count if stored else 0, {}, header.source, header.provenance, signed=False)
        return DuelInfo(duel_id, header.title, header.created, header.parent, header.branch_at,
                        head.count, head.status, header.source, header.provenance)

    def _names_header(self, stream_id: str, header: Header, anchor: StoredEvent | None) -> Head | None:
        """The stream's last anchor (``anchor``, its row) when it is signed by a key trusted here
        (``_signed_anchor``) and names ``header``; None when it does not: the header was altered
        in the database, or the anchor was. The one decision of whether a listing may name a
        stream (``DuelInfo.signed``, ``listed``)."""
        head = self._signed_anchor(stream_id, anchor)
        return head if head is not None and head.header == header.digest else None

    def listed_columns(self, stream: str, last: str | None = None) -> str:
        """The columns ``listed`` decides a stream on, as SQL for the stream whose id the
        expression ``stream`` gives: its header row's state (``listed_header``), and its last
        anchor's version and state (``listed_version``, ``listed_anchor``), each by one index
        lookup; ``last``: an expression the caller has for that version (the library's
        ``events``: the last anchor row's). A read that finds its streams in a statement of its
        own reads these there too and hands its rows to ``listed``: no statement more for them."""
        version = last or (f"(SELECT max(v.originator_version) FROM {{heads}} v "
                           f"WHERE v.originator_id = {stream} || '/head')")
        return self.library.sql(
            f"(SELECT e.state FROM {{heads}} e WHERE e.originator_id = {stream} AND e.originator_version = 0) "
            f"AS listed_header, {version} AS listed_version, (SELECT e.state FROM {{heads}} e WHERE "
            f"e.originator_id = {stream} || '/head' AND e.originator_version = {version}) AS listed_anchor")

    def committed(self, cursor: Any) -> tuple[Any, ...]:
        """A mark of what has been committed to the store's database, read in a read's transaction
        (``cursor``) before its statement: two equal marks, nothing was committed between them,
        by this process or any other (a row altered in the database too), so the same rows are
        read. PostgreSQL: the snapshot (which transactions it sees done: none more, none less);
        SQLite: its connection (whose counts these are), ``data_version`` (the commits of every
        other connection, in any process) and ``total_changes`` (its own)."""
        if self.backend == "postgresql":
            cursor.execute("SELECT pg_current_snapshot()::text AS snapshot")
            return ("postgresql", cursor.fetchone()["snapshot"])
        connection = cursor.sqlite_cursor.connection
        cursor.execute("PRAGMA data_version")
        return (connection, cursor.fetchone()[0], connection.total_changes)

    def decided(self, mark: tuple[Any, ...]) -> bool:
        """Whether ``listed`` has decided streams on rows read at this ``committed`` mark: a read
        at that mark need not read the rows of those again (``listed_columns``)."""
        return mark in self._listed_at

    def listed(self, ids: Sequence[str], rows: Mapping[str, Sequence[Any]] | None = None,
               mark: tuple[Any, ...] | None = None, ancestors: bool = False) -> dict[str, Vouched]:
        """Of these streams, those a listing of anyone's may name, with their headers and the
        status their last anchor signs (``Vouched``: what the library index's rows of each are
        checked against, ``library.Index.vouched``): the header is the one the last anchor names (``_names_header``, what ``DuelInfo.signed`` says), and
        for a branch so is every ancestor's (its first events are the parent's: a branch of an
        altered duel shows a spectator nothing, as ``LiveDuel.hidden_by_parent`` decides). Each is
        decided on its header row and last anchor row, never an event: ``rows`` (by id, each
        ending with ``listed_columns``' three) when the caller read them in its own statement,
        else read here in one statement per generation. Each decision is kept for the rows'
        bytes (``_listed_header``), and by ``mark``, the ``committed`` mark the caller read
        before its statement: every row read since (the caller's, these) is the one any later
        read at the same mark reads (nothing was committed between), so a stream decided at that
        mark is neither read nor decided again, and a caller at a mark ``decided`` leaves the
        rows out of its statement. With ``ancestors``, the ancestors of those named too (each
        named, as a branch's are: decided with them, never read again: what holds a branch
        back, ``library_search._held_back``)."""
        with self._guard:
            kept = self._listed_at.get(mark) if mark is not None else None
        headers: dict[str, Vouched | None] = {} if kept is None else kept     # decided at ``mark``: added to
        given = rows or {}
        waiting = [stream_id for stream_id in dict.fromkeys(ids) if stream_id not in headers]
        while waiting:
            found = [(stream_id, given[stream_id]) for stream_id in waiting if stream_id in given]
            unread = [stream_id for stream_id in waiting if stream_id not in given]
            for at in range(0, len(unread), _LISTED_AT_ONCE):
                wanted = unread[at:at + _LISTED_AT_ONCE]
                # the ids as one bound value: no statement of its own for each hundred streams
                unnest = ("SELECT unnest(?::text[]) AS id" if self.backend == "postgresql"
                          else "SELECT value AS id FROM json_each(?)")
                query = self.library.sql(f"WITH wanted(id) AS ({unnest}) "
                                         f"SELECT wanted.id, {self.listed_columns('wanted.id')} FROM wanted")
                if self.backend != "postgresql":
                    import json                 # not with this module: a stored board never lists
                    wanted = json.dumps(wanted)
                with self.events.datastore.transaction(commit=False) as cursor:
                    cursor.execute(query, [wanted])
                    found += [(str(row["id"]), (row["listed_header"], row["listed_version"], row["listed_anchor"]))
                              for row in cursor.fetchall()]
            for stream_id, row in found:
                headers[stream_id] = self._listed_header(stream_id, *row[-3:])
            waiting = [parent for parent in dict.fromkeys(v.header.parent for v in (headers[s] for s, _ in found)
                                                          if v is not None and v.header.parent)
                       if parent not in headers]

        def vouched(stream_id: str) -> bool:
            seen = set()
            found = headers.get(stream_id)
            while found is not None and found.header.parent and stream_id not in seen:
                seen.add(stream_id)
                stream_id = found.header.parent
                found = headers.get(stream_id)
            return found is not None
        if mark is not None and kept is None:
            with self._guard:
                while len(self._listed_at) >= _MARKS_KEPT and mark not in self._listed_at:
                    del self._listed_at[next(iter(self._listed_at))]
                self._listed_at[mark] = headers
        named = {stream_id: found for stream_id in ids
                 if (found := headers.get(stream_id)) is not None and vouched(stream_id)}
        for found in list(named.values()) if ancestors else ():
            parent = found.header.parent
            while parent and parent not in named and (above := headers.get(parent)) is not None:
                named[parent] = above
                parent = above.header.parent
        return named

    def _listed_header(self, stream_id: str, header_state: bytes | None, version: int | None,
                       anchor_state: bytes | None) -> Vouched | None:
        """``listed``'s decision on one stream's header row and last anchor row: its header and
        the status that anchor signs, or None. Kept by stream with the exact bytes and version it was made on (``_listed``): the
        same rows decide the same, compared byte for byte (no digest made: two SHA-256 a stream
        were most of a popular card's numbers), and a row changed in any way is decided again."""
        from eventsourcing.persistence import StoredEvent
        if header_state is None or version is None or anchor_state is None:
            return None
        try:
            header_state = _blob(header_state, 0, stream_id)
            anchor_state = _blob(anchor_state, version, f"{stream_id}/head")
        except AlteredRow:             # altered in the database: listed by no one, as any altered header
            return None
        kept = self._listed.get(stream_id)
        if kept is not None and kept[0] == header_state and kept[1] == version and kept[2] == anchor_state:
            return kept[3]
        try:
            header: Header | None = self._decode_header(stream_id, header_state)
        except StoreError:
            header = None
        row = StoredEvent(f"{stream_id}/head", version, HEAD_TOPIC, anchor_state)
        head = self._names_header(stream_id, header, row) if header is not None else None
        found = Vouched(header, head.status) if header is not None and head is not None else None
        if kept is not None or len(self._listed) < _LISTED_KEPT:    # full: the first kept stay
            self._listed[stream_id] = (header_state, version, anchor_state, found)
        return found

    def index_key(self) -> OrganiserKey | None:
        """The organiser's private key when this process holds it (it signs this store's writes,
        or ``trusts`` found it): what keys the library index's rows (``library.Index``); None when
        it holds only public keys."""
        if self._key is None and self._organiser is None and not self._key_looked_for:
            self._key_looked_for = True
            self.trusts(b"")                       # loads the organiser key, when there is one
        return self._key or self._organiser

    def ids(self, kind: str = "duel") -> list[str]:
        """The id of every duel (or stream of another ``kind``), oldest first."""
        return [stream_id for stream_id, _header in self.header_rows([KINDS[kind].topic])]

    def resolve(self, prefix: str, kind: str = "duel") -> str:
        """A duel id (or another ``kind``'s) from an unambiguous prefix of it; a whole id is
        itself, found without listing every duel (that reads the whole store: issue 25), by its
        header row's topic alone (``_read``: no transaction around one statement)."""
        whole = self._read(self._topic_sql, (prefix,)) if _STREAM_ID.fullmatch(prefix) else []
        if whole and whole[0][0] == KINDS[kind].topic:
            return prefix
        matches = [d for d in self.ids(kind) if d.startswith(prefix)] if prefix else []
        if len(matches) != 1:
            if not matches:
                raise StoreError(say("no {kind} matches {prefix!r} in {name}", kind=kind, prefix=prefix, name=self.name))
            raise StoreError(say("more than one {kind} matches {prefix!r} in {name}", kind=kind, prefix=prefix,
                                 name=self.name))
        return matches[0]

    def _header_row(self, duel_id: str) -> bytes:
        rows = self.events.select_events(duel_id, lte=0)
        if not rows:
            raise StoreError(say("no duel {duel_id!r} in {name}", duel_id=duel_id, name=self.name))
        return rows[0].state

    def header(self, duel_id: str) -> Header:
        return self._decode_header(duel_id, self._header_row(duel_id))

    @staticmethod
    def _decode_header(duel_id: str, state: bytes) -> Header:
        try:
            envelope = msgpack.unpackb(state)
            return Header.from_dict(envelope["header"])
        except (ValueError, KeyError, TypeError, AttributeError, msgpack.ExtraData) as exc:
            raise StoreError(say("duel {duel_id}: its header cannot be read ({exc}); run verify",
                                 duel_id=duel_id, exc=exc)) from None

    def head_mark(self, stream_id: str) -> tuple[int, bytes] | None:
        """What a stream's last anchor row is (its count and the digest of its bytes), by one
        index lookup and no signature checked; None for none. A key for what is made of a
        stream (a round's table): any append, or the anchor rewritten, gives another mark. What
        is shown of the stream is still read through its verified reads."""
        rows = self.events.select_events(f"{stream_id}/head", desc=True, limit=1, refused={})
        return (rows[0].originator_version, sha256(rows[0].state).digest()) if rows else None

    def head_marks(self, stream_ids: Sequence[str]) -> dict[str, tuple[int, bytes] | None]:
        """``head_mark`` of each of these streams, by one statement for all (a round's tables:
        a statement each was ~0.07 ms of connection handling, 35 ms a read at 500 tables)."""
        marks = {}
        for stream_id, (version, state) in self._last_rows(stream_ids, "head").items():
            try:
                state = _blob(state, version, stream_id)
            except AlteredRow:           # a row refused is no record, b"", as ``head_mark`` reads it
                state = b""
            marks[stream_id] = None if version is None else (version, sha256(state).digest())
        return marks

    def attachments(self, stream_ids: Sequence[str], name: str,
                    refused: dict[str, StoreError]) -> dict[str, dict | None]:
        """``attachment`` of each of these streams under ``name``, by one statement for all; a
        stream whose record cannot be read (what ``attachment`` raises for it) is put in
        ``refused`` with its error, not in the answer, so the others are still read."""
        found = {}
        for stream_id, (version, state) in self._last_rows(stream_ids, name).items():
            try:
                found[stream_id] = None if version is None else self._attached(
                    stream_id, name, _blob(state, version, f"{stream_id}/{name}"))
            except StoreError as exc:
                refused[stream_id] = exc
        return found

    def _last_rows(self, stream_ids: Sequence[str], part: str) -> dict[str, tuple[Any, Any]]:
        """The version and state of the last row of each stream's ``part`` (``{id}/{part}``), as
        ``select_events(desc=True, limit=1)`` reads one, unchecked; (None, None) for none. One
        statement: the ids one bound value (``listed``'s)."""
        wanted = list(dict.fromkeys(stream_ids))
        if not wanted:
            return {}
        if self.backend != "postgresql":
            import json                 # not with this module: a stored board never reads a round
            wanted = json.dumps(wanted)
        rows = self._read(self._last_rows_sql, (wanted, f"/{part}", f"/{part}"))
        return {str(stream_id): (version, state) for stream_id, version, state in rows}

    @functools.cached_property
    def _last_rows_sql(self) -> str:
        """``_last_rows``' statement."""
        events = self._tables()[0]
        unnest = ("SELECT unnest(?::text[]) AS id" if self.backend == "postgresql"
                  else "SELECT value AS id FROM json_each(?)")
        sql = (f"WITH wanted(id) AS ({unnest}), last(id, v) AS (SELECT wanted.id, (SELECT l.originator_version "
               f"FROM {events} l WHERE l.originator_id = wanted.id || ? ORDER BY l.originator_version DESC LIMIT 1) "
               f"FROM wanted) SELECT last.id, e.originator_version, e.state FROM last LEFT JOIN {events} e "
               "ON e.originator_id = last.id || ? AND e.originator_version = last.v")
        return sql.replace("?", "%s") if self.backend == "postgresql" else sql

    def _anchor(self, duel_id: str) -> Head | None:
        """The duel's last anchor as stored; None when it has none or it cannot be read."""
        rows = self.events.select_events(f"{duel_id}/head", desc=True, limit=1, refused={})
        try:
            return self._decoded_anchor(duel_id, rows[0] if rows else None)
        except VerificationError:
            return None

    @staticmethod
    def _decoded_anchor(duel_id: str, row: StoredEvent | None) -> Head | None:
        """The anchor a row holds (None for no row); VerificationError saying why it cannot be read
        (an audit path of the wrong size or too long: ``Head.from_dict``)."""
        if row is None:
            return None
        try:
            return Head.from_dict(msgpack.unpackb(row.state))
        except (ValueError, KeyError, TypeError, AttributeError, msgpack.ExtraData) as exc:
            raise VerificationError(say("duel {duel_id}: its anchor at {originator_version} cannot be "
                                        "read ({exc}); nothing is taken from it. Run 'ygoreplay verify'",
                                        duel_id=duel_id, originator_version=row.originator_version, exc=exc)) from None

    def cards_of(self, duel_id: str, upto: int | None = None) -> tuple[CardDB, bytes]:
        """The duel's own card facts, with the effect facts stored with them, and their digest
        (``upto``: those written with its first ``upto`` events)."""
        return self._cards_of(duel_id, upto)[:2]

    def _cards_of(self, duel_id: str, upto: int | None = None) -> tuple[CardDB, bytes, bytes | None]:
        """``cards_of`` and the effect facts' digest (None when the duel has none)."""
        return self._cards_from(duel_id, tuple(row.state for row in self.events.select_events(f"{duel_id}/cards", lte=upto)))

    def held_cards(self, duel_id: str) -> CardDB | None:
        """The duel's card facts as this process's last append to it left them, as ``cards_of``
        reads those records (``_CARD_FACTS``), without reading them: the live duel took the first
        append's ~40 cards in by reading every card record again (issue 25). None when this
        process holds no head of the duel or not the facts of its card records, or an append of
        this process to it is under way (never waited for: the listening thread reads here)."""
        lock = self._lock_for(duel_id)
        if not lock.acquire(blocking=False):
            return None
        try:
            live = self._cached(duel_id)
            with _CARD_FACTS_GUARD:
                kept = _CARD_FACTS.get(duel_id)
        finally:
            lock.release()
        if live is None or kept is None or kept[1][1:] != (live.cards_digest, live.effects_digest):
            return None
        return kept[1][0]

    def _cards_from(self, duel_id: str, stored: tuple[bytes, ...]) -> tuple[CardDB, bytes, bytes | None]:
        """The card and effect facts of a duel's card records (their stored bytes), and their digests."""
        kept = _CARD_FACTS.get(duel_id)
        if kept is not None and kept[0] == stored:  # the same bytes are the same facts, checked once
            return kept[1]
        found = self._read_cards(duel_id, stored)
        _keep_card_facts(duel_id, stored, found)
        return found

    @staticmethod
    def _read_cards(duel_id: str, stored: tuple[bytes, ...]) -> tuple[CardDB, bytes, bytes | None]:
        """The card and effect facts of these records, every record validated, and their digests."""
        facts: list[CardFacts] = []
        records: list[object] = []
        digest, effects_digest = chain.GENESIS, None
        for state in stored:
            try:
                record = msgpack.unpackb(state)
                batch = record["cards"]
                facts += [_card_facts(c) for c in batch]
            except (ValueError, KeyError, TypeError, AttributeError, msgpack.ExtraData, CardDBError) as exc:
                raise StoreError(say("duel {duel_id}: its card facts cannot be read ({exc}); run verify",
                                     duel_id=duel_id, exc=exc)) from None
            digest = _chained(digest, batch)
            if "effects" in record:
                records.append(record["effects"])
                effects_digest = _chained(effects_digest, record["effects"])
        try:
            cards = CardDB(facts)
        except CardDBError as exc:
            raise StoreError(say("duel {duel_id}: its card facts are inconsistent ({exc}); run verify",
                                 duel_id=duel_id, exc=exc)) from None
        try:
            for effects in records:
                cards = cards.with_effects_record(effects)
        except CardDBError as exc:
            raise StoreError(say("duel {duel_id}: its effect facts cannot be read ({exc}); run verify",
                                 duel_id=duel_id, exc=exc)) from None
        return cards, digest, effects_digest

    def attachment(self, duel_id: str, name: str) -> dict | None:
        """The latest version of what was attached to a duel under ``name`` (None if nothing)."""
        rows = self.events.select_events(f"{duel_id}/{name}", desc=True, limit=1)
        return self._attached(duel_id, name, rows[0].state) if rows else None

    def match_of(self, duel_id: str) -> str | None:
        """The match a duel is a game of, by its link (``match_game``): None for none, and for a
        link without the match's id (links are not signed: rewritten in the database, reading
        one was an internal error of the duel's pages), as if it were deleted."""
        link = self.attachment(duel_id, "match_game")
        return str(link["id"]) if link is not None and "id" in link else None

    @staticmethod
    def _attached(duel_id: str, name: str, state: bytes) -> dict:
        """An attachment's data as stored: a map, else StoreError (attachments are not signed:
        rewritten in the database, bytes that do not decode were an internal error of its reader)."""
        try:
            data = msgpack.unpackb(state)
        except (ValueError, TypeError, msgpack.ExtraData) as exc:
            raise StoreError(say("{duel_id}: its {name} record cannot be read ({exc}): rewritten in the "
                                 "database",
                                 duel_id=duel_id, name=name, exc=exc)) from None
        if not isinstance(data, dict):
            raise StoreError(say("{duel_id}: its {name} record cannot be read (not a map): rewritten in "
                                 "the database", duel_id=duel_id, name=name))
        return data

    #: Times ``attach`` reads the latest version again after another writer took the next one.
    ATTACH_TRIES = 8

    def attach(self, duel_id: str, name: str, data: dict | Callable[[dict | None], dict]) -> dict:
        """A new version of a duel's attachment (e.g. the organiser changes a spectator delay):
        the one after the latest, read again when another writer (a thread, a process) wrote that
        version first. Two at once both land, the later one latest: the second met the recorder's
        unique (stream, version) and was refused as a conflict no one else had asked for. ``data``
        a function of the latest version (None for none) is a change of it, made again of the
        version another writer wrote first: a whole record made of the one read before (a release
        and a change of visibility at once) put back what the other had changed (a duel made
        private was public again, its dropped spectator token back). Returns what was written."""
        from eventsourcing.persistence import StoredEvent
        self._writable()
        stream = f"{duel_id}/{_attachment(name)}"
        for attempt in range(1, self.ATTACH_TRIES + 1):
            rows = self.events.select_events(stream, desc=True, limit=1)
            version = rows[0].originator_version + 1 if rows else 0
            if callable(data):
                written = data(self._attached(duel_id, name, rows[0].state) if rows else None)
            else:
                written = data
            state = msgpack.packb(written)
            try:
                self._insert([StoredEvent(stream, version, f"ygoreplay:{name}", state)])
                break
            except ConflictError:
                if attempt == self.ATTACH_TRIES:
                    raise ConflictError(say("{duel_id}: its {name} was changed by {attempt} other writes "
                                            "while this one was made; it was not written: try again",
                                            duel_id=duel_id, name=name, attempt=attempt)) from None
        if name == "access":             # the head held carries the access read with it: read both again
            with self._lock_for(duel_id):
                self._forget(duel_id)
        return written

    def setting(self, name: str) -> dict | None:
        """A store-wide setting (the latest version), e.g. the service's organiser token digest."""
        return self.attachment(STORE_ID, name)

    def set_setting(self, name: str, data: dict) -> None:
        self.attach(STORE_ID, name, data)

    def last_notification(self) -> int:
        """The id of the last record written (a follower starts after it)."""
        return self.events.max_notification_id() or 0

    def subscribe(self, after: int):
        """The heads of duels as other processes write them: an iterator of (duel id, events)
        after notification ``after`` (a context manager; ``stop()`` ends it), woken by
        PostgreSQL's LISTEN/NOTIFY, or on SQLite by its ``data_version`` looked at on a timer
        (``sqlite_commits``: its ``look()`` looks now, before a read)."""
        if self.backend != "postgresql":
            from .sqlite_commits import SQLiteHeads
            return SQLiteHeads(self.name, file_uri(path_text(os.path.realpath(self.name))) + "?mode=ro",
                               _SQLITE_EVENTS, HEAD_TOPIC, after, SQLITE_LOCK_WAIT)
        return _Heads(self.events, after)

    # -- appending --------------------------------------------------------------------------------

    def append(self, duel_id: str, events: Event | Iterable[Event], *,
               expected_position: int | None = None, times: list[str] | None = None) -> int:
        """Check and append events at the head; returns the new length (see ``append_records``)."""
        events = [events] if isinstance(events, Event) else list(events)
        if not events:                                 # nothing to write: the length as it is
            length = self.info(duel_id).events
            if expected_position is not None and expected_position != length:
                raise ConflictError(say("duel {duel_id} has {length} events, not {expected_position}",
                                        duel_id=duel_id, length=length, expected_position=expected_position))
            return length
        return self.append_records(duel_id, events, expected_position=expected_position, times=times)[-1].position + 1

    def append_records(self, duel_id: str, events: Event | Iterable[Event], *,
                       expected_position: int | None = None, times: list[str] | None = None,
                       claims: dict[str, dict[str, dict]] | None = None,
                       streams: list[dict] | None = None, receipted: bool = False,
                       others: Sequence[tuple[str, list[Event], int]] = (),
                       written_others: dict[str, list[Record]] | None = None,
                       read_claims: bool = True, shown_last: bool = False) -> list[Record]:
        """Check and append events at the head; returns the records written. All or nothing.

        Raises RuleViolation (nothing written) for an illegal event; ConflictError when
        ``expected_position`` is not the head, or another writer took it first (without an
        expected position the events are checked again at the new head and appended there);
        VerificationError when the head no longer matches its signed anchor (truncated or
        rechained: run verify).

        ``claims`` (``{stream: {name: data}}``) are attachments of other streams written as
        their first version, in the same transaction as the events: the recorder's unique
        (stream, version) lets one writer only have each, whoever else read it free at the same
        moment, in any process. One written already is a ConflictError (``claimed``), nothing
        of the append written; and no claim is ever written without its events (a match's
        link to its duel: ``match.commands.record``).

        ``streams`` are new streams (each given as ``record``'s keyword arguments, strict),
        written in the same transaction too: a match's new duel, which its events name, is
        never there without them, nor they without it (``match.commands.record``).

        ``receipted``: the append's receipt is signed with its group commit's anchors, kept for
        its caller to take (``receipt_proof``), where there is a group commit.

        ``others`` (``(stream, events, head)``) are appended to other existing streams in the same
        transaction, each strictly checked at exactly that head (else ConflictError): a match's
        game end closes its duel for play (``match.commands.record``), the duel's next position
        taken in its transaction, so no append of the duel judged before it lands after it.
        ``written_others`` takes their records, by stream. ``read_claims`` False: the claims are
        not read before the write (a duel's first append's ``opening``, rarely taken: no read more
        on a table's first append), the write's unique key refusing one taken all the same.
        ``shown_last``: the writer's view is not the judge's (a witnessed duel's table recorder, a
        player's device): an event that shows it a card it did not see ends the batch (``_shown_last``).
        """
        from eventsourcing.persistence import StoredEvent
        self._writable()
        events = [events] if isinstance(events, Event) else list(events)
        if times is not None and len(times) != len(events):
            raise ValueError("one recording time per event")
        claimed = _first_rows(claims or {})
        if read_claims:
            self._claimed(claimed)
        made: list[tuple[str, list[StoredEvent], list[StoredEvent], _Live]] = []
        for spec in streams or ():
            self.record(**{**spec, "strict": True}, gather=made)
        for other_id, other_events, head in others:
            written_other = self._gathered_append(other_id, other_events, head, made)
            if written_others is not None:
                written_others[other_id] = written_other
        made_rows = [row for _id, rows, _snapshots, _live in made for row in rows]
        made_snapshots = [row for _id, _rows, snapshots, _live in made for row in snapshots]
        codes = referenced_codes(events)
        with self._lock_for(duel_id):
            attempt = 0
            while True:
                live = self._cached(duel_id) if attempt == 0 else None
                cached = live is not None
                if live is None or (expected_position is not None and expected_position != live.history.position):
                    live = self._load_head(duel_id)   # never seen, or someone else may have appended
                    cached = False
                start = live.history.position
                if expected_position is not None and expected_position != start:
                    raise ConflictError(say(_BEHIND, duel_id=duel_id, start=start, expected_position=expected_position))
                facts = self._facts_for(codes, live.cards, None)
                try:
                    written = self._write(duel_id, live, events, codes, times, claimed + made_rows, facts,
                                          "strict", other_snapshots=made_snapshots, receipted=receipted,
                                          shown_last=shown_last)[2]
                    for stream_id, _rows, _snapshots, made_live in made:
                        self._remember(stream_id, made_live)
                    return written
                except ConflictError:
                    self._forget(duel_id)
                    self._claimed(claimed)           # lost a claim, not a position: no retry takes it
                    attempt += 1
                    if expected_position is not None or attempt == 3:
                        raise                         # asked for that position: it is gone
                except RuleViolation:
                    self._forget(duel_id)
                    if not cached:
                        raise
                    attempt += 1      # judged on the head this process cached: another process may
                                      # have appended since; judge it again on the stored head
                except BaseException:
                    self._forget(duel_id)             # the cached fold may hold unwritten events
                    for other_id, *_rest in others:
                        self._forget(other_id)
                    raise

    def _gathered_append(self, stream_id: str, events: list[Event], head: int, made: list) -> list[Record]:
        """``events`` folded strictly onto stream ``stream_id`` read at its stored head, which must
        be ``head`` (else ConflictError), and gathered into ``made`` to be written with another
        append (``append_records``' ``others``); nothing of it is held until that is written."""
        with self._lock_for(stream_id):
            live = self._load_head(stream_id)            # fresh: the cached fold is left as it is
            if live.history.position != head:
                raise ConflictError(say(_BEHIND, duel_id=stream_id, start=live.history.position,
                                        expected_position=head))
            codes = referenced_codes(events)
            try:
                return self._write(stream_id, live, events, codes, None, [],
                                   self._facts_for(codes, live.cards, None), "strict", made)[2]
            except RuleViolation as exc:
                exc.stream = stream_id                   # whose rules refused it: its caller says so
                raise

    def _claimed(self, claims: list[StoredEvent]) -> None:
        """ConflictError when one of ``claims`` (first versions of attachments: ``_first_rows``) is
        written already."""
        for row in claims:
            if self.events.select_events(row.originator_id, limit=1):
                owner, _, name = str(row.originator_id).partition("/")
                raise ConflictError(say("{owner}: its {name} is written already (claimed by another "
                                        "writer); nothing was recorded",
                                        owner=owner, name=name))

    def _lock_for(self, duel_id: str) -> threading.Lock:
        with self._guard:
            lock = self._locks.get(duel_id)
            if lock is None:
                if len(self._locks) > 4 * self.CACHED_DUELS:
                    self._locks = {d: l for d, l in self._locks.items() if l.locked()}
                lock = self._locks[duel_id] = threading.Lock()
            return lock

    def _cached(self, duel_id: str) -> _Live | None:
        with self._guard:
            live = self._live.get(duel_id)
            if live is not None:
                self._live.move_to_end(duel_id)
            return live

    def _remember(self, duel_id: str, live: _Live) -> None:
        with self._guard:
            self._live[duel_id] = live
            self._live.move_to_end(duel_id)
            while len(self._live) > self.CACHED_DUELS:
                self._live.popitem(last=False)

    def _forget(self, duel_id: str) -> None:
        with self._guard:
            self._live.pop(duel_id, None)

    def _facts_for(self, codes: set[int], have: CardDB, extra: CardDB | None) -> CardDB:
        """``have`` and the facts of every card of ``codes`` (those the events name:
        ``referenced_codes``, worked out once an append) that ``have`` lacks, from
        ``extra`` or else the store's card database, each with the effect facts of the source
        that gave its facts: a record imported with its own (a ``.ygr`` file) keeps exactly those,
        none from the scripts installed here (unknown cards are the rules' business: CARD-01)."""
        sources = [self.cards] if extra is None else [extra, self.cards]
        found: list[CardFacts] = []
        effects: dict[int, tuple] = {}
        for code in codes:
            if code in have:
                continue
            for source in sources:
                facts = source.get(code)
                if facts is not None:
                    found.append(facts)
                    if scripted := source.effects(code):
                        effects[code] = scripted
                    break
        return have.merged(CardDB(found, effects)) if found else have

    def _write(self, duel_id: str, live: _Live, events: list[Event], codes: set[int], times: list[str] | None,
               rows: list[StoredEvent], facts: CardDB, mode: str, gather: list | None = None,
               other_snapshots: Sequence[StoredEvent] = (), receipted: bool = False, shown_last: bool = False
               ) -> tuple[int, RuleViolation | None, list[Record]]:
        """Fold ``events`` onto ``live`` and write them, with the card facts they add and a new
        signed anchor, in one transaction; snapshots follow. ``mode`` says what a violation does:
        ``strict`` raises it before anything is written, ``prefix`` writes the events before it,
        ``all`` refuses nothing (a record being imported). Returns (new length, violation, the
        records written). ``gather`` takes what would be written instead (``record_together``);
        ``other_snapshots`` (of streams made with these: ``append_records``) are written with theirs;
        ``receipted``: a receipt of the new head signed with the group (``receipt_proof``);
        ``shown_last``: as ``append_records``'."""
        StoredEvent, library, files = _writing()
        HEADER_LIST, MAX_CARDS, MAX_EVENT_BYTES, MAX_EVENTS, MAX_PLAYER_NAMES, MAX_STORED = (
            files.HEADER_LIST, files.MAX_CARDS, files.MAX_EVENT_BYTES, files.MAX_EVENTS, files.MAX_PLAYER_NAMES,
            files.MAX_STORED)
        history, stream = live.history, live.kind
        # the facts of cards the duel did not have (none when ``facts`` is its own: most appends)
        fresh = (codes & set(facts)) - set(live.cards) if facts is not live.cards else set()
        added = facts.subset(fresh) if fresh else _NO_FACTS
        cards = live.cards.merged(added) if len(added) else live.cards
        stream.use_cards(history, cards)
        prev = live.head.hash if live.head else live.header.root
        snapshots, events_rows, violation, written = [], [], None, []
        # What a replay file holds (``check_event``), whichever way the events came: an import's
        # too, as a reader bounds a body, not each event, nor a body string to a header's. An
        # import keeps the names a duel stored before the check listed (as ``dumps`` writes them).
        names = MAX_PLAYER_NAMES if mode != "all" else HEADER_LIST
        # and what a file holds of a whole duel (``MAX_EVENTS``, ``MAX_STORED``, ``MAX_CARDS``),
        # by running totals: its rows' bytes as written, summed by the database only once a
        # stream read from the store may pass the limit (``_past_stored``)
        size, exact, grown = live.size, live.exact, 0
        pack = chain.packer()                              # each event's link and row
        last = len(events) - 1 if shown_last else 0    # the last a writer may be shown a card by
        for i, event in enumerate(events):
            position = history.position
            negated = library.before(event, history)
            _exportable(event, position, names=names)
            if position >= MAX_EVENTS:
                raise InputError(say("event {position} ({event_kind}): a replay file holds at most "
                                     "{max_events:,} events: the duel could not be exported; nothing was "
                                     "written",
                                     position=position, event_kind=event.kind, max_events=MAX_EVENTS))
            hidden = hidden_from_writer(history.state, event) if i < last else None
            try:
                history.append(event, strict=mode != "all")
            except RuleViolation as v:
                if mode == "strict":
                    raise
                violation = v
                break
            if hidden and shown_to_writer(history.state, event, hidden):
                _shown_last(i, event)
            if times:
                at = chain.to_ms(times[i])
                when = chain.from_ms(at)              # ``chain.canonical_time``
            else:
                when, at = _now()
            wire = event.to_dict()
            try:
                digest_i = chain.link(prev, position, wire, when, pack)
                row = pack({"e": wire, "t": when, "p": prev, "h": digest_i})
            except (OverflowError, ValueError, TypeError) as exc:      # a Python caller's own event
                raise InputError(say("event {position} ({event_kind}) cannot be stored ({exc}); nothing "
                                     "was written",
                                     position=position, event_kind=event.kind, exc=exc)) from None
            if len(row) > MAX_EVENT_BYTES:                          # its record: the event and ~100 bytes
                _exportable(event, position, len(msgpack.packb(wire)), names)
            grown += len(row)
            if size + grown > MAX_STORED:
                size, exact = self._past_stored(duel_id, size, exact, grown, f"event {position} ({event.kind})")
            # made with their fields at once (``made``): a frozen ``__init__`` a field at a time
            # was ~1 µs a record, two of them an event (issue 25)
            events_rows.append(made(library.EventRow, originator_id=duel_id, originator_version=position + 1,
                                    topic=event.kind, state=row,
                                    seen=library.seen(event, history, negated, at,
                                                      library.what_if(live.header, position)),
                                    follows=prev if i == 0 else None))
            written.append(made(Record, position=position, event=event, recorded=when, prev_hash=prev,
                                hash=digest_i, reverted_by=None))
            prev = digest_i
            if stream.snapshots and history.position % SNAPSHOT_EVERY == 0:
                snapshots.append((history.position, _pack_snapshot(history.to_data()), prev))
        count = history.position
        if violation is not None and fresh:            # only the facts the kept events name
            added = facts.subset(referenced_codes(events[:len(events_rows)]) & fresh)
            cards = live.cards.merged(added) if len(added) else live.cards
        digest, effects_digest = live.cards_digest, live.effects_digest
        read_back: tuple[tuple[bytes, ...], tuple[CardDB, bytes, bytes | None]] | None = None
        if len(cards) > MAX_CARDS:
            raise InputError(say("the duel's events name the facts of {n_cards:,} cards; a replay file "
                                 "holds at most {max_cards:,}: the duel could not be exported; nothing "
                                 "was written",
                                 n_cards=len(cards), max_cards=MAX_CARDS))
        if len(added):
            batch = sorted(added.to_json_list(), key=lambda c: c["code"])
            record: dict[str, Any] = {"cards": batch}
            effects = added.effects_record()      # the scripts' facts of these cards, signed with them
            if effects is not None:
                record["effects"] = effects
                effects_digest = _chained(effects_digest, effects)
            card_row = msgpack.packb(record)
            grown += len(card_row)
            if size + grown > MAX_STORED:
                size, exact = self._past_stored(duel_id, size, exact, grown, f"the facts of {len(added):,} new cards")
            rows.append(StoredEvent(f"{duel_id}/cards", count, CARDS_TOPIC, card_row))
            digest = _chained(digest, batch)
            read_back = self._read_back(duel_id, live, added, record, card_row, digest, effects_digest)
        if count == 0 and violation is not None:        # nothing legal to record: no duel at all
            return 0, violation, []
        status = stream.status(history)
        key = self.key
        # the header never changes: its digest is the one the last anchor signed (checked when loaded)
        header_digest = live.head.header if live.head is not None else live.header.digest
        message = _head_message(duel_id, count, prev, header_digest, digest, status, effects_digest, pack)
        head = made(Head, count=count, hash=prev, header=header_digest, cards=digest, status=status,
                    key=key.public.raw, signature=b"", effects=effects_digest, mac=key.mac(message), path=None,
                    left=0)
        rows += events_rows
        snapshots = [(position, data, at, self._snapshot_message(duel_id, position, at, data))
                     for position, data, at in snapshots]
        if gather is None and self._committer is not None:
            # the receipt of this append and its snapshots are leaves of its group's tree too: one
            # signature a group, not one more an append or a snapshot (issue 25); ``receipt_proof``
            # hands the receipt to whoever issues it
            signed_at = _now()[0] if receipted else ""
            receipt = signing.receipt_message(2, duel_id, count, prev, signed_at) if receipted else None
            pending = self._committer.submit(rows, list(other_snapshots), (duel_id, message, head), receipt,
                                             snapshots)
            head = pending.head
            if pending.proof is not None:
                with self._guard:
                    if len(self._proofs) >= _PROOFS_KEPT:     # the oldest, whose caller is gone: it signs alone
                        del self._proofs[next(iter(self._proofs))]
                    self._proofs[(duel_id, count, prev)] = (signed_at, *pending.proof)
        else:
            head = head.signed(key.sign(message))
            rows.append(_head_row(duel_id, head))
            snapshot_rows = [*other_snapshots, *(self._snapshot_row(duel_id, *snapshot) for snapshot in snapshots)]
            if gather is None:
                self._commit_rows(rows, snapshot_rows)
        if gather is None and read_back is not None:
            _keep_card_facts(duel_id, *read_back)
        stream.use_cards(history, cards)
        done = _Live(history, live.header, cards, digest, head, stream, effects_digest, live.access, size + grown,
                     exact, tuple(written) if live.head is None else ())
        if gather is None:
            self._remember(duel_id, done)
        else:
            gather.append((duel_id, rows, snapshot_rows, done))
        return count, violation, written

    def receipt_proof(self, duel_id: str, events: int, head: bytes) -> tuple[str, bytes, bytes, int] | None:
        """The receipt (version 2) of this process's append that left ``duel_id`` at ``events``
        events ending in ``head``, signed as a leaf of its group commit's tree: its time, the
        group's signature, its audit path and sides; taken once. None when there is none here
        (not group-committed, or no longer kept): the caller signs one alone."""
        with self._guard:
            return self._proofs.pop((duel_id, events, head), None)

    @staticmethod
    def _read_back(duel_id: str, live: _Live, added: CardDB, record: dict[str, Any], card_row: bytes,
                   digest: bytes, effects_digest: bytes | None
                   ) -> tuple[tuple[bytes, ...], tuple[CardDB, bytes, bytes | None]] | None:
        """The duel's card records once ``card_row`` (``record``) is written after those
        ``live.cards`` were read from, and their facts exactly as ``_read_cards`` reads them (in
        the records' order),
        made of the facts already checked: kept (``_CARD_FACTS``), the live duel's read after a
        first append validates none of them again (issue 25). None when the records before are
        not the ones kept (nothing is kept then: they are read and checked when next asked)."""
        if (live.cards_digest, live.effects_digest) == (chain.GENESIS, None):
            kept: tuple[tuple[bytes, ...], tuple[CardDB, bytes, bytes | None]] | None = \
                ((), (CardDB(), chain.GENESIS, None))          # no card record before this one
        else:
            kept = _CARD_FACTS.get(duel_id)
        if kept is None or kept[1][1:] != (live.cards_digest, live.effects_digest):
            return None
        facts = kept[1][0].merged(added.subset([card["code"] for card in record["cards"]]))
        if "effects" in record:
            facts = facts.with_effects_record(record["effects"])
        return (*kept[0], card_row), (facts, digest, effects_digest)

    def _commit_rows(self, rows: list[StoredEvent], snapshot_rows: list[StoredEvent]) -> None:
        """Rows and their snapshots in one transaction (the group commit's, in the service)."""
        if self._committer is not None:
            self._committer.submit(rows, snapshot_rows)
            return
        try:
            self._write_rows(rows, snapshot_rows)
        except BaseException as exc:
            raise self._failed(exc, rows) from None

    def _write_rows(self, rows: list[StoredEvent], snapshot_rows: list[StoredEvent]) -> None:
        """Write rows (of any number of appends) and their snapshots; raises the recorder's
        errors (``IntegrityError``: a position taken). On PostgreSQL one pipelined round trip,
        one transaction (``_PostgresWriter``); on SQLite the recorder's transaction, then the
        snapshots (a cache: one that fails to be written is fine)."""
        from eventsourcing.persistence import PersistenceError
        if self._postgres is not None:
            self._postgres.write(rows, snapshot_rows)
            return
        self.events.insert_events(rows)
        if snapshot_rows:
            try:
                self.snapshots.insert_events(snapshot_rows)
            except PersistenceError:
                self._insert_snapshots(snapshot_rows)

    def _failed(self, exc: BaseException, rows: list[StoredEvent]) -> BaseException:
        """What an append whose rows could not be written raises: a conflict when another
        writer took its position, the store busy or not answering (``StoreUnavailable``, as it
        was raised: nothing written, or the outcome unknown), else the store's refusal (nothing
        of it was written)."""
        from eventsourcing.persistence import IntegrityError, PersistenceError
        if isinstance(exc, StoreUnavailable):
            return exc
        if isinstance(exc, IntegrityError):
            return self._conflict(rows)
        if isinstance(exc, PersistenceError):
            return self._refused(exc)
        if isinstance(exc, Exception):
            return StoreError(say("the store {name} failed to write (nothing was written): {exc}",
                                  name=self.name, exc=exc))
        return exc

    def _insert(self, rows: list[StoredEvent], marker: bool = False) -> None:
        from eventsourcing.persistence import IntegrityError, PersistenceError
        try:
            self.events.insert_events(rows)
        except IntegrityError:
            if marker:                                 # another process created the store first
                return
            raise self._conflict(rows) from None
        except PersistenceError as exc:
            raise self._refused(exc) from None

    def _conflict(self, rows: list[StoredEvent]) -> ConflictError:
        # the stream appended to: its own events' (an append's first rows may be claims of others',
        # and streams made with it: ``append_records``), else the one made
        own = [r for r in rows if "/" not in str(r.originator_id)]
        duel_id = str(next((r for r in own if r.originator_version), own[0] if own else rows[0]).originator_id
                      ).split("/")[0]
        self._forget(duel_id)
        event = next((r for r in rows if r.originator_id == duel_id and r.originator_version > 0), rows[0])
        return ConflictError(say("duel {duel_id}: position {originator_version} was written by another "
                                 "writer first; nothing of this append was recorded",
                                 duel_id=duel_id, originator_version=event.originator_version - 1))

    def _outage_error(self, exc: BaseException, written: bool = False) -> StoreUnavailable | None:
        """What a database error that says the database is busy or not answering is to the user
        (``_outage``), naming the store (never its password); None for any other error.
        ``written``: the error met a write, of which nothing was written."""
        kind = _outage(exc)
        nothing = N_("; nothing was written") if written else ""
        if kind == "busy":
            held = f"{LOCK_WAIT} s" if self.backend == "postgresql" else f"{SQLITE_LOCK_WAIT} s (\"database is locked\")"
            return StoreBusy(say("the store at {name} is busy: another session held its write lock for "
                                 "over {held}{nothing}: try again",
                                 name=self.name, held=held, nothing=nothing))
        if kind == "slow":
            return StoreBusy(say("the store at {name} is busy: it cancelled a statement that ran for over "
                                 "{statement_wait} s (statement_timeout){nothing}: try again",
                                 name=self.name, statement_wait=STATEMENT_WAIT, nothing=nothing))
        if kind == "gone":
            return StoreUnavailable(say("the store at {name} is not answering ({reason}){nothing}: try "
                                        "again in a few seconds",
                                        name=self.name, reason=_reason(exc, self._secret), nothing=nothing))
        return None

    def _outcome_unknown(self, exc: BaseException) -> WriteOutcomeUnknown:
        """A write whose connection was lost once it was sent, and whose outcome cannot be learned."""
        return WriteOutcomeUnknown(
            say("the store at {name} stopped answering after the write was sent ({reason}): the write's "
                "outcome is unknown: read the duel's head before retrying. A retry that states the "
                "expected position (--expected N, ?expected=N) is safe: it is refused as a conflict if "
                "the write was stored; one that does not may record the events twice",
                name=self.name, reason=_reason(exc, self._secret)))

    def _refused(self, exc: Exception) -> StoreError | StoreUnavailable:
        """A write of which nothing was written: the store busy or not answering when the database
        said so (``_outage_error``: a connection lost before its COMMIT reached the server, known
        not written, is the store unavailable, 503, exit 75, not a write at fault), else refused."""
        return (self._outage_error(exc, written=True)
                or StoreError(say("the store {name} refused the write (nothing was written): {exc}",
                                  name=self.name, exc=exc)))

    def _insert_snapshots(self, rows: list[StoredEvent]) -> None:
        """Snapshots are a cache: one another process wrote, or that fails to be written, is fine.
        All in one transaction first (a commit each was most of recording a long duel: issue 25)."""
        from eventsourcing.persistence import PersistenceError
        if len(rows) > 1:
            try:
                self.snapshots.insert_events(rows)
                return
            except PersistenceError:
                pass
        for row in rows:
            try:
                self.snapshots.insert_events([row])
            except PersistenceError:
                pass

    def _load_head(self, duel_id: str) -> _Live:
        """The fold at the duel's head, its header and card facts and its anchor, read from the
        store and checked: the stored head must be the one its last signed anchor names."""
        self._forget(duel_id)
        seen = None
        for _ in range(5):
            # The header, last event, anchor, card facts and access in one query: one round trip,
            # and what one commit left (an append writes its events and anchor in one transaction).
            # A mismatch that changes from one read to the next is another writer's append
            # seen half (a backend that read them apart); one that stays is a store altered
            # behind its back.
            header_row, last, anchor, cards_rows, access = self._head_rows(duel_id)
            if header_row is None or last is None:
                raise StoreError(say("no duel {duel_id!r} in {name}", duel_id=duel_id, name=self.name))
            header = self._decode_header(duel_id, header_row.state)
            count = last.originator_version
            head = self._decoded_anchor(duel_id, anchor)
            head_hash = header.root if count == 0 else self._envelope(duel_id, last)["h"]
            if head is not None and head.count == count and head.hash == head_hash:
                break
            now = (count, head.count if head is not None else None)
            if now == seen:
                break
            seen = now
        return self._head_of(duel_id, header, count, head_hash, head, cards_rows, access)

    def _head_of(self, duel_id: str, header: Header, count: int, head_hash: bytes, head: Head | None,
                 cards_rows: list[StoredEvent], access: StoredEvent | None) -> _Live:
        """The head of a stream read as ``_load_head`` reads it (or ``opened``), every check
        made: its last ``count`` events (their chain hash ``head_hash``) are what its last anchor
        ``head`` names, signed by a trusted key (its signature, whoever holds the key), which
        signs its header and card and effect facts as stored."""
        if head is None or head.count != count or head.hash != head_hash:
            raise VerificationError(say("duel {duel_id}: its last {count} stored event(s) do not match "
                                        "its signed anchor (events deleted, added or rechained); nothing "
                                        "was appended. Run 'ygoreplay verify'",
                                        duel_id=duel_id, count=count))
        signer = self.trusts(head.key)
        if signer is None or not head.signed_by(signer, duel_id):
            raise VerificationError(say("duel {duel_id}: its anchor is not signed by a trusted organiser "
                                        "key; nothing was appended. Run 'ygoreplay verify'",
                                        duel_id=duel_id))
        cards, digest, effects_digest = self._cards_from(duel_id, tuple(row.state for row in cards_rows))
        if digest != head.cards or header.digest != head.header or effects_digest != head.effects:
            raise VerificationError(say("duel {duel_id}: its header, card facts or effect facts were "
                                        "altered since its last anchor; nothing was appended. Run "
                                        "'ygoreplay verify'",
                                        duel_id=duel_id))
        stream = self._kind(duel_id, header)
        if count == 0:                     # nothing to fold or read (a stream another process created)
            fold = History(cards, audit=True, restore=self._restorer(duel_id, cards)) if stream is DUEL \
                else stream.new(cards)
        elif stream is DUEL:
            fold = self._history(duel_id, count, cards, root=header.root)
        else:
            fold = self._fold(duel_id, stream, count, cards, header.root)
        # its rows' bytes: at most its header's, its card records' and the most an event's row takes
        from .replay_file import MAX_EVENT_BYTES
        size = len(_header_state(header)) + sum(len(row.state) for row in cards_rows) \
            + count * (MAX_EVENT_BYTES + _ROW_OVERHEAD)
        return _Live(fold, header, cards, digest, head, stream, effects_digest,
                     access.state if access is not None else None, size, exact=count == 0)

    def _head_rows(self, duel_id: str) -> tuple[StoredEvent | None, StoredEvent | None, StoredEvent | None,
                                                 list[StoredEvent], StoredEvent | None]:
        """A stream's header row, last event row, last anchor row, card-facts rows and latest
        access row, read in one query: what an append needs of a stream it does not hold (issue
        25: six round trips through a pool shared by every waiting append were most of a first
        append's time; the access a seventh, read again by a duel's first append)."""
        owners = _head_owners(duel_id)
        found = self._head_reads.rows(duel_id) if self._head_reads is not None else None
        parts = self._parts(self._head_query, owners) if found is None else self._parted(found, owners)
        return (parts[0][0] if parts[0] else None, parts[1][0] if parts[1] else None,
                parts[2][0] if parts[2] else None, parts[3], parts[4][0] if parts[4] else None)

    def _past_stored(self, duel_id: str, size: int, exact: bool, grown: int, what: str) -> tuple[int, bool]:
        """The stream's rows' bytes, exact, when ``grown`` more bytes of rows on ``size`` (at most
        that, unless ``exact``) may pass ``MAX_STORED``; InputError naming ``what`` when they do."""
        from .replay_file import MAX_EXPANDED, MAX_STORED
        if not exact:
            size, exact = self._stored_size(duel_id), True
        if size + grown > MAX_STORED:
            raise InputError(say("{what}: the duel's records would take {size:,} bytes; a replay file's "
                                 "body holds at most {max_expanded:,} (a duel's records {max_stored:,}): "
                                 "the duel could not be exported; nothing was written",
                                 what=what, size=size + grown, max_expanded=MAX_EXPANDED, max_stored=MAX_STORED))
        return size, exact

    def _stored_size(self, duel_id: str) -> int:
        """The bytes of a stream's header, event and card-facts rows as stored, summed by the
        database (nothing read but one number)."""
        owners = (duel_id, f"{duel_id}/cards")
        if self.backend == "postgresql":
            with self.events.datastore.get_connection() as conn:
                found = conn.execute(self._size_query, owners, prepare=True).fetchone()
        else:
            with self.events.datastore.transaction(commit=False) as cursor:
                cursor.execute(self._size_query, owners)
                found = cursor.fetchone()
        return int(found["size"])

    def _parts(self, query: str, owners: tuple[str, ...]) -> list[list[StoredEvent]]:
        """The rows of a read in parts (``_head_query``, ``_live_query``), by part, in one statement."""
        if self.backend == "postgresql":
            # One statement on an autocommit connection reads one snapshot: no BEGIN and
            # ROLLBACK around it (three round trips were two thirds of a first append's wait).
            with self.events.datastore.get_connection() as conn:
                found = conn.execute(query, owners, prepare=True).fetchall()
        else:
            with self.events.datastore.transaction(commit=False) as cursor:
                cursor.execute(query, owners)
                found = cursor.fetchall()
        return self._parted(found, owners)

    @staticmethod
    def _parted(found: Iterable[Mapping[str, Any]], owners: tuple[str, ...]) -> list[list[StoredEvent]]:
        """The rows of a read in parts (``_parts``), each checked (``_blob``)."""
        from eventsourcing.persistence import StoredEvent
        parts: list[list[StoredEvent]] = [[] for _owner in owners]
        for row in found:
            part = row["part"]
            version = row["originator_version"]
            parts[part].append(StoredEvent(owners[part], version, row["topic"], _blob(row["state"], version, owners[part])))
        return parts

    def opened(self, stream_id: str, kind: str | None = "duel"
               ) -> tuple[Header, dict | None, CardDB, list[Record], int | None]:
        """What a live stream (a duel, or a ``kind="match"``) is first loaded with, read in one
        statement (StoreError for none): its header, its ``access`` attachment (None if none), its
        card facts, and its events as ``chained_after(stream_id, 0, root)`` gives them, with the
        first that does not follow. Four reads apart were four round trips and ~0.3 ms of CPU
        each on every table's first append (issue 25).

        What is shown is what the signed anchors vouch for, as ``verify`` checks it: the header
        is the one they sign (else VerificationError: nothing of the stream is shown), and an
        anchor vouches for its events only with the card and effect facts it signs, so card
        records altered in the database cut what is shown where they were written (``broken``)
        and are never shown. ``kind`` None: a stream of whatever kind its header says."""
        header_rows, access, cards_rows, rows, anchors = self._parts(
            self._live_query, (stream_id, f"{stream_id}/access", f"{stream_id}/cards", stream_id, f"{stream_id}/head"))
        if not header_rows:
            raise StoreError(say("no {kind} {stream_id!r} in {name}", kind=kind or N_("stream"), stream_id=stream_id,
                                 name=self.name))
        header = self._decode_header(stream_id, header_rows[0].state)
        kind_named = kind or (header.kind if header.kind in KINDS else N_("stream"))
        # every signed anchor names the header's digest (its kind too: an altered one decides
        # nothing), the last one's checked before any event is: an altered stream's events were
        # chained and decoded on every request for it, anyone's (an unknown id's is one lookup)
        signed = next((h for h in (self._signed_anchor(stream_id, row) for row in reversed(anchors)) if h is not None),
                      None)
        if signed is None or signed.header != header.digest:
            raise VerificationError(say("{kind_named} {stream_id}: its header is not the one its signed "
                                        "anchors name (altered, or its anchors are missing); nothing of "
                                        "it is shown. Run 'ygoreplay verify'",
                                        kind_named=kind_named, stream_id=stream_id))
        if kind is not None and header.kind != kind:
            raise StoreError(say("no {kind} {stream_id!r}: it is a {header_kind}",
                                 kind=kind, stream_id=stream_id, header_kind=header.kind))
        empty = not rows
        records, broken, (head, earlier) = self._chained(stream_id, 0, header.root, rows, anchors)
        while True:        # the last anchor whose card facts are the stored ones up to it vouches
            upto = head.count if head is not None else 0
            # with no anchor vouching, no card record is taken (a forger's at 0 named by none)
            stored = tuple(row.state for row in cards_rows if row.originator_version <= upto) if head is not None else ()
            try:
                found: tuple[CardDB, bytes, bytes | None] | None = self._cards_from(stream_id, stored)
            except StoreError:     # a record that does not decode is altered as one that does
                found = None
            if head is None or (found is not None and found[1:] == (head.cards, head.effects)):
                break
            head = next(earlier, None)
            broken = head.count if head is not None else 0
            records = records[:broken]
        assert found is not None
        settings = self._attached(stream_id, "access", access[0].state) if access else None
        if empty:
            self._hold_new(stream_id, header, anchors[-1] if anchors else None, cards_rows, access[0] if access else None)
        return header, settings, found[0], records, broken

    def created(self, stream_id: str) -> tuple[Header, dict | None, CardDB, list[Record], int | None] | None:
        """What ``opened`` gives of a stream this process recorded and holds as it wrote it (its
        header, its ``access`` attachment, its card facts and the events it was made with: none,
        or a duel's set-up), not read again: the service's every new duel was read back and its
        anchor checked on its first append (issue 25). None when it is held past the events it
        was made with, or not held, or an append of this process to it is under way (never
        waited for): then it is read as any other."""
        lock = self._lock_for(stream_id)
        if not lock.acquire(blocking=False):
            return None
        try:
            live = self._cached(stream_id)
        finally:
            lock.release()
        if (live is None or live.head is None or live.head.count != len(live.made)
                or (not live.made and live.cards_digest != chain.GENESIS)):
            return None
        settings = self._attached(stream_id, "access", live.access) if live.access is not None else None
        return live.header, settings, live.cards, list(live.made), None

    def _hold_new(self, stream_id: str, header: Header, anchor: StoredEvent | None, cards_rows: list[StoredEvent],
                  access: StoredEvent | None) -> None:
        """Hold the head of a stream ``opened`` found without events, as ``_load_head`` would
        read and check it from the same rows: a table's first append through the service read
        it again, a statement and an Ed25519 check more (issue 25). Not over a head held past
        it, nor while an append of this process to it is under way (never waited for), nor a
        head that fails a check (the append's own read says why)."""
        if self.readonly:
            return
        lock = self._lock_for(stream_id)
        if not lock.acquire(blocking=False):
            return
        try:
            held = self._cached(stream_id)
            if held is not None and held.history.position > 0:
                return
            try:
                live = self._head_of(stream_id, header, 0, header.root, self._decoded_anchor(stream_id, anchor),
                                     cards_rows, access)
            except (StoreError, VerificationError):
                return
            self._remember(stream_id, live)
        finally:
            lock.release()

    def vouched_cards(self, stream_id: str, upto: int) -> CardDB:
        """The card facts written with a stream's first ``upto`` events, where its anchor at
        ``upto`` is (a live stream holds vouched events only, ending at an anchor): refused
        (VerificationError) unless they are the ones that anchor signs."""
        stored = tuple(row.state for row in self.events.select_events(f"{stream_id}/cards", lte=upto))
        anchor = self.events.select_events(f"{stream_id}/head", gt=upto - 1, lte=upto)
        try:
            found = self._cards_from(stream_id, stored)
        except StoreError as exc:            # altered so that it does not decode: altered all the same
            raise VerificationError(say("{problem}; nothing is shown from it. Run 'ygoreplay verify'",
                                        problem=f"{exc}".removesuffix("; run verify"))) from None
        return self._check_cards(stream_id, found, anchor[0] if anchor else None)

    def _kind(self, stream_id: str, header: Header) -> StreamKind:
        stream = KINDS.get(header.kind)
        if stream is None:
            raise StoreError(say("{stream_id}: a stream of kind {header_kind!r}, which this program does "
                                 "not know",
                                 stream_id=stream_id, header_kind=header.kind))
        return stream

    def kind_of(self, stream_id: str) -> str:
        """Whether ``stream_id`` is a duel's or another kind's (``"match"``); StoreError if none."""
        return self.header(stream_id).kind

    def _fold(self, stream_id: str, stream: StreamKind, count: int, cards: CardDB, root: bytes | None) -> Any:
        """A stream of another kind folded from its start (they are short: no snapshots), each
        event checked against the chain first when ``root`` is given (an append will follow)."""
        fold = stream.new(cards)
        for event in self._events_checked(stream_id, 0, count, root, stream_id):
            self._fold_in(fold, event, stream_id)
        return fold

    def _events_checked(self, stream_id: str, after: int, upto: int, prev: bytes | None,
                        name: str) -> Iterator[Event]:
        """The stored events after ``after`` up to ``upto``; with ``prev`` (the chain hash before
        them: an append will follow) each is checked against the chain first, so nothing is
        appended onto an event that was changed."""
        return (record.event for record in
                self._checked(stream_id, self.events.select_events(stream_id, gt=after, lte=upto), prev, name))

    def _checked(self, stream_id: str, rows: Sequence[StoredEvent | _Row], prev: bytes | None, name: str,
                 appending: bool = True) -> Iterator[Record]:
        """The records of these stored rows, each checked against the chain after ``prev`` if given;
        one the chain vouches for is built without checking its fields again (``from_trusted_dict``)."""
        pack = chain.packer()
        for row in rows:
            envelope = self._envelope(stream_id, row)
            vouched = prev is not None and _follows(envelope, prev, row.originator_version - 1, pack)
            if prev is not None and not vouched:
                raise self._unchained(stream_id, row, envelope, name, appending)
            record = self._decode(stream_id, row, envelope, trusted=vouched)
            if prev is not None:
                prev = record.hash
            yield record

    def _unchained(self, stream_id: str, row: StoredEvent | _Row, envelope: dict, name: str,
                   appending: bool) -> VerificationError:
        """The error for a stored event the chain does not vouch for: the store's own when its
        fields do not decode, else that it was altered."""
        record = self._decode(stream_id, row, envelope)
        done = N_("nothing was appended") if appending else N_("no board is shown from it")
        return VerificationError(say("{name}: event {position} does not match its hash chain (altered); "
                                     "{done}. Run 'ygoreplay verify'",
                                     name=name, position=record.position, done=done))

    def _snapshot_row(self, duel_id: str, position: int, data: bytes, at: bytes, message: bytes,
                      group: tuple[bytes, bytes, int] | None = None) -> StoredEvent:
        """A snapshot's row: its ``message`` (``_snapshot_message``) signed alone, or with its group
        commit (``group``: the group's signature, its audit path and sides, as an anchor's), and MAC'd."""
        from eventsourcing.persistence import StoredEvent
        key = self.key
        snap = {"d": data, "z": 1, "h": at, "key": key.public.raw,
                "sig": key.sign(message) if group is None else group[0], "mac": key.mac(message)}
        if group is not None:
            snap["path"], snap["left"] = group[1], group[2]
        return StoredEvent(duel_id, position, SNAPSHOT_TOPIC, msgpack.packb(snap))

    @staticmethod
    def _snapshot_message(duel_id: str, position: int, at: bytes, data: bytes) -> bytes:
        return _SNAPSHOT_LABEL + msgpack.packb([duel_id, position, at, sha256(data).digest()])

    # -- reading ----------------------------------------------------------------------------------

    def hash_at(self, duel_id: str, count: int) -> bytes | None:
        """The chain hash after the first ``count`` events (the root for none), as stored (``verify``
        says whether it holds); None when the duel has fewer events (a receipt's head: ``receipts``)."""
        if count == 0:
            return self.header(duel_id).root
        rows = self.events.select_events(duel_id, gt=count - 1, lte=count)
        return self._envelope(duel_id, rows[0]).get("h") if rows else None

    def vouched_hash(self, duel_id: str, count: int) -> bytes | None:
        """The chain hash after the first ``count`` events as the signed anchor at ``count`` names
        it, that anchor naming the stored header (``_names_header``); None when none does. What a
        receipt signs: the stored row's own hash (``hash_at``) is the database's word, and a
        receipt signed by the organiser's key over it vouched for a row altered there."""
        rows = self.events.select_events(f"{duel_id}/head", gt=count - 1, lte=count)
        head = self._names_header(duel_id, self.header(duel_id), rows[0] if rows else None)
        return head.hash if head is not None else None

    def flags(self, duel_id: str, start: int = 0) -> list[Violation]:
        """The flags of a witnessed duel's events from ``start`` on (rules broken and kept, as the
        fold that judged its appends found them: ``rules.History.flags``)."""
        return [f for f in getattr(self._head_fold(duel_id), "flags", ()) if f.index >= start]

    def witnessed(self, duel_id: str, fresh: bool = False) -> tuple[int, bool, dict | None]:
        """How many events the duel holds, whether it is witnessed (its duel_started says so),
        and, at 0 events, its ``access`` attachment as read with them (what its first append is
        checked by: ``Records.check_mode``; None when it has none, and past 0), from the head its
        appends use: held in memory (no read), else or when ``fresh`` read now. A head held at
        0 events may be behind another process's first append: what is judged on it is written
        at 0 only (``Records.append_records``)."""
        with self._lock_for(duel_id):
            live = None if fresh else self._cached(duel_id)
            if live is None:
                live = self._load_head(duel_id)
                self._remember(duel_id, live)
        fold = live.history
        first = fold.position == 0 and live.access is not None
        return (fold.position, bool(getattr(fold.state, "witnessed", False)),
                self._attached(duel_id, "access", live.access) if first else None)

    def opening(self, duel_id: str, count: int) -> tuple[list[Event], bytes | None]:
        """The duel's first ``count`` events and, when held, the chain hash after them: from the
        fold its appends hold when it holds exactly those (this process wrote them, or read and
        checked them), no read; else as the signed anchors vouch for them, read (the hash None:
        a receipt reads the one its anchor signs). What a set-up sent again is compared with
        (``Records._opening_again``)."""
        with self._lock_for(duel_id):
            live = self._cached(duel_id)
            if live is not None:
                fold = live.history
                effective = getattr(fold, "effective", None)
                if (live.head is not None and live.head.count == fold.position == count and fold.base == 0
                        and effective is not None and len(effective) == count and not fold.reverted):
                    return [event for _position, event in effective], live.head.hash
        records, _broken = self.chained_after(duel_id, 0, self.head_header(duel_id).root, upto=count)
        return [record.event for record in records], None

    def head_state(self, duel_id: str) -> Any:
        """The board at the duel's head (a ``DuelState``; None for a match), from the fold its
        appends use, to be read and never changed: whose turn it is, where each card is and who
        sees it (what a player's device may record: ``application._stamped``)."""
        return getattr(self._head_fold(duel_id), "state", None)

    def head_header(self, duel_id: str) -> Header:
        """The stream's header as its appends' head holds it (read with it once, never changed
        since): what every write asks of it (``Records._not_in_what_if``) without a read a write."""
        with self._lock_for(duel_id):
            live = self._cached(duel_id)
            if live is None:
                live = self._load_head(duel_id)
                self._remember(duel_id, live)
        return live.header

    def _head_fold(self, duel_id: str) -> Any:
        with self._lock_for(duel_id):
            live = self._cached(duel_id)
            if live is None or live.history.position == 0:      # empty here: another process may have begun it
                live = self._load_head(duel_id)
                self._remember(duel_id, live)
        return live.history

    def record_at(self, duel_id: str, position: int | None = None) -> Record | None:
        """The stored event at ``position`` (the last when None), decoded alone; None when there is
        none (``show --at`` titles a board with it without reading the rest of the duel)."""
        rows = (self.events.select_events(duel_id, desc=True, limit=1) if position is None
                else self.events.select_events(duel_id, gt=position, lte=position + 1) if position >= 0 else [])
        return self._decode(duel_id, rows[0]) if rows else None

    def records_after(self, stream_id: str, count: int = 0) -> list[Record]:
        """The stored events of a duel or match from position ``count`` on, as ``opened`` shows
        them (what the service shows): none of a stream whose header its signed anchors do not
        name (VerificationError), and only the events they vouch for (a page shows nothing a
        forger put in the database)."""
        return self.opened(stream_id, None)[3][count:]

    def chained_after(self, duel_id: str, count: int, prev: bytes,
                      upto: int | None = None) -> tuple[list[Record], int | None]:
        """The stored events from position ``count`` on (to position ``upto``, excluded, when
        given) that follow the chain from ``prev`` (the hash before them), and the position of
        the first that does not (changed in the database; ``verify`` says how), if any: nothing
        from it on is returned. Nor is anything past the
        last of their anchors that is signed and names their chain hash at its count: events
        rechained, inserted or deleted there hold by the chain alone (``_vouching``), and only
        the vouched ones are built (trusted): a forger's rows past the head never reach the
        trusted decoder (its per-shape makers, kept for the process) nor keep the vouched from
        being read by failing to decode."""
        return self._chained(duel_id, count, prev, self.events.select_events(duel_id, gt=count, lte=upto))[:2]

    def _chained(self, duel_id: str, count: int, prev: bytes, rows: list[StoredEvent],
                 anchors: Iterable[StoredEvent] | None = None
                 ) -> tuple[list[Record], int | None, tuple[Head | None, Iterator[Head]]]:
        """``chained_after`` of the event rows after ``count``, read already (and their anchors,
        when read with them), with the anchor that vouches for them and the earlier that would
        (``_vouching``: ``opened`` goes back to one whose card facts hold). It empties ``rows``,
        and lets each envelope go as its record is made: rows, envelopes and records all held at
        once peaked at 1.32x a plain decode of a 100,000-event duel (issue 25's limit: 1.2x)."""
        chained: list[tuple[int, dict] | None] = []
        broken = None
        pack = chain.packer()
        for row in rows:
            try:
                envelope = self._envelope(duel_id, row)
            except StoreError:            # not even an envelope: it follows no chain
                envelope = {}
            if not _follows(envelope, prev, row.originator_version - 1, pack):
                broken = row.originator_version - 1
                break
            chained.append((row.originator_version, envelope))
            prev = envelope["h"]
        rows.clear()
        vouching = self._vouching(duel_id, count, [link[1]["h"] for link in chained], anchors)  # type: ignore[index]
        head = next(vouching, None)
        vouched = head.count if head is not None else count
        out = []
        for at in range(vouched - count):
            version, envelope = chained[at]        # type: ignore[misc]
            chained[at] = None
            out.append(self._record(duel_id, version, envelope, True))
        return out, vouched if vouched < count + len(chained) else broken, (head, vouching)

    def _vouching(self, duel_id: str, count: int, hashes: list[bytes],
                  anchors: Iterable[StoredEvent] | None = None) -> Iterator[Head]:
        """The signed anchors after ``count`` that vouch for the duel's events, given the chain
        ``hashes`` of the events that follow it: each signed by a key trusted here and naming
        their chain hash at its count, the last first. The first one vouches for every event up
        to it (the chain links them), so a first load checks one anchor, not one an append. Each
        append writes its events and anchor in one transaction, and the anchors are read after
        the events (or in the same statement: ``anchors``): every event read has its anchor
        among them."""
        if not hashes:                   # nothing to vouch for (a table's first load): no read
            return
        at = dict(enumerate(hashes, count + 1))
        rows = (self.events.select_events(f"{duel_id}/head", gt=count, lte=count + len(hashes), desc=True)
                if anchors is None else reversed([r for r in anchors if count < r.originator_version <= count + len(hashes)]))
        for row in rows:
            head = self._signed_anchor(duel_id, row)
            if head is not None and at.get(head.count) == head.hash:
                yield head

    def records(self, duel_id: str) -> list[Record]:
        """Every stored event in order, decoded, marked reverted where a rollback undid it."""
        rows = self.events.select_events(duel_id, gt=0)
        if not rows:
            self._header_row(duel_id)                 # "no duel" when it does not exist
        return _marked([self._decode(duel_id, row) for row in rows])

    def load(self, duel_id: str, *, verified: bool = True) -> StoredDuel:
        """The whole duel: header, records, card facts, anchor. With ``verified`` (export, branch)
        a record that fails ``verify`` raises VerificationError: nothing is derived from it.
        Without, it is read as the service reads it (``opened``: the header and every event
        checked against the signed anchors, not verify's whole audit), and refused
        (VerificationError naming the duel and where) unless they vouch for every stored event:
        a command line's ``show``, ``log`` or ``play`` never shows what a forger wrote."""
        if not verified:
            header, _access, cards, records, broken = self.opened(duel_id, None)
            if broken is not None:          # refused: ``verify`` says where (read again only here)
                self._verified(duel_id, N_("nothing of it is shown. Run 'ygoreplay verify'"))
                raise VerificationError(say("duel {duel_id}: its signed anchors vouch for its first "
                                            "{broken} event(s) only (changed in the database while it was "
                                            "read); nothing of it is shown. Run 'ygoreplay verify'",
                                            duel_id=duel_id, broken=broken))
            return StoredDuel(duel_id, header, _marked(records), cards, self._anchor(duel_id))
        result = self._verified(duel_id, N_("nothing was derived from it"))
        return self._read_vouched(duel_id, result.events)     # what was verified, not what came since

    def _verified(self, duel_id: str, then: str) -> Verification:
        """``verify``'s result when it holds; else VerificationError saying where it fails, and ``then``."""
        result = self.verify(duel_id)
        if not result.ok:
            where = N_("its header") if result.first_bad == -1 else (
                say("event {index}", index=result.first_bad) if result.first_bad is not None else N_("its anchor"))
            raise VerificationError(say("duel {duel_id} fails verification at {where}: {problem}; {then}",
                                        duel_id=duel_id, where=where, problem=result.problem, then=then))
        return result

    def _read_vouched(self, duel_id: str, count: int) -> StoredDuel:
        """The duel's header, first ``count`` events and their card facts, read in one statement
        and checked against its signed anchor at ``count``: what an export signs is what that
        anchor vouches for, not rows rewritten in the database between ``verify``'s reads and
        these (read apart, a forger flipping a row back and forth had an export sign the forgery
        one time in four)."""
        header_rows, _access, cards_rows, rows, anchors = self._parts(
            self._live_query, (duel_id, f"{duel_id}/access", f"{duel_id}/cards", duel_id, f"{duel_id}/head"))
        changed = VerificationError(say("duel {duel_id} was changed in the database while it was read "
                                        "(its rows are not the ones its anchor at {count} signs); nothing "
                                        "was derived from it. Run 'ygoreplay verify'",
                                        duel_id=duel_id, count=count))
        if not header_rows:
            raise StoreError(say("no duel {duel_id!r} in {name}", duel_id=duel_id, name=self.name))
        header = self._decode_header(duel_id, header_rows[0].state)
        rows = [row for row in rows if row.originator_version <= count]
        head = next((self._signed_anchor(duel_id, row) for row in anchors if row.originator_version == count), None)
        prev = header.root
        pack = chain.packer()
        for row in rows:                 # the envelopes not kept: a load's peak is its records' (bench/memory.py)
            envelope = self._envelope(duel_id, row)
            if not _follows(envelope, prev, row.originator_version - 1, pack):
                raise changed
            prev = envelope["h"]
        if len(rows) != count or head is None or head.hash != prev or head.header != header.digest:
            raise changed
        found = self._cards_from(duel_id, tuple(row.state for row in cards_rows if row.originator_version <= count))
        if found[1:] != (head.cards, head.effects):
            raise changed
        records = _marked([self._decode(duel_id, row, trusted=True) for row in rows])
        return StoredDuel(duel_id, header, records, found[0], head)

    @staticmethod
    def _envelope(duel_id: str, row: StoredEvent | _Row) -> dict:
        try:
            env = msgpack.unpackb(row.state)
            if not isinstance(env, dict):
                raise TypeError("not a map")
            return env
        except (ValueError, TypeError, msgpack.ExtraData) as exc:
            raise StoreError(say("duel {duel_id} event {originator_version}: the stored record cannot be "
                                 "decoded ({exc}); run verify",
                                 duel_id=duel_id, originator_version=row.originator_version - 1, exc=exc)) from None

    def _decode(self, duel_id: str, row: StoredEvent | _Row, env: dict | None = None, *,
                trusted: bool = False) -> Record:
        """The stored event, its fields checked unless ``trusted`` (its chain was just checked)."""
        return self._record(duel_id, row.originator_version, self._envelope(duel_id, row) if env is None else env,
                            trusted)

    @staticmethod
    def _record(duel_id: str, version: int, env: dict, trusted: bool) -> Record:
        """The record of the envelope stored at ``version``."""
        where = f"duel {duel_id} event {version - 1}"
        try:
            event = (from_trusted_dict if trusted else from_dict)(env["e"], where)
            return Record(version - 1, event, env["t"], env["p"], env["h"])
        except (KeyError, TypeError, EventFormatError) as exc:
            raise StoreError(say("{where}: the stored record cannot be decoded ({exc}); run verify",
                                 where=where, exc=exc)) from None

    def state_at(self, duel_id: str, position: int | None = None) -> DuelState:
        """The state after the first ``position`` events (all when None), from the nearest
        snapshot that checks out."""
        return self.seek(duel_id, position)[0]

    def seek(self, duel_id: str, position: int | None = None) -> tuple[DuelState, Record | None]:
        """The state after the first ``position`` events (all when None) and the last of those
        events' record (None for none), from the nearest snapshot that checks out. A position
        given is one read (``_seek_rows``); the duel's length is read only when no position is
        given or the duel falls short of it. What is shown is what the duel's signed anchors
        vouch for: VerificationError when its card records or its events up to ``position`` are
        not (altered, deleted, inserted or rechained in the database: ``_seek``)."""
        if position is None:
            position = self._count(duel_id)
        for _ in range(2):                           # a second time: an append came between the reads
            # a position past any SQL integer (``show --at 10**22``) is past the duel: said below
            found = self._seek(duel_id, position) if 0 < position <= _NO_END else None
            if found is not None:
                return found
            length = self._count(duel_id)
            if not 0 <= position <= length:
                self._header_row(duel_id)            # "no duel" when there is none
                raise StoreError(say("duel {duel_id} has {length} events: a position is 0..{length}, not "
                                     "{position}",
                                     duel_id=duel_id, length=length, position=position))
            if position == 0:
                header = self._header_row(duel_id)   # "no duel" when there is none
                anchor = self.events.select_events(f"{duel_id}/head", desc=True, limit=1)
                cards = self._check_cards(duel_id, self._cards_of(duel_id), anchor[0] if anchor else None, header)
                return self._history(duel_id, 0, cards).state, None
        self._header_row(duel_id)
        raise VerificationError(say("duel {duel_id}: event {position} is not stored where its chain puts "
                                    "it (deleted or moved); no board is shown from it. Run 'ygoreplay "
                                    "verify'",
                                    duel_id=duel_id, position=position - 1))

    def _seek(self, duel_id: str, position: int) -> tuple[DuelState, Record] | None:
        """``seek`` from one read: the duel's card records, its newest snapshot at or before
        ``position`` and the events from that snapshot's to ``position`` (from the header when
        there is no snapshot). None when the duel has fewer events; a snapshot that does not
        check out leaves it to ``_history``, which tries the ones before it."""
        cards_rows, snapshot, rows, anchor, last, sealing, header = self._seek_rows(duel_id, position)
        end = bisect.bisect_left(rows, position, key=lambda row: row.originator_version)
        if end == len(rows) or rows[end].originator_version != position or header is None or (
                snapshot is None and rows[0].originator_version):
            return None                              # too short, or no header: said with the length
        cards = self._check_cards(duel_id, self._cards_from(duel_id, cards_rows), last, header.state)
        # the events after ``position`` up to the first signed anchor or snapshot past it, which
        # vouches for the chain hash at ``position`` (a snapshot at ``position`` does so itself)
        at_start = snapshot is not None and snapshot.originator_version == position
        pack = chain.packer()                        # this seek's chain checks' (``chain.link``)
        if not at_start:
            self._sealed(duel_id, rows[end], rows[end + 1:], anchor, sealing, pack)
        rows = rows[:end + 1]
        if snapshot is None:
            prev = self._decode_header(duel_id, rows[0].state).root
            history = History(cards, audit=True, restore=self._restorer(duel_id, cards))
        else:
            resumed = self._resume(duel_id, snapshot, rows[0], cards)
            if resumed is None:
                if at_start:
                    self._sealed(duel_id, rows[end], [], anchor, sealing, pack)
                return self._history(duel_id, position, cards).state, self._decode(duel_id, rows[-1])
            history, prev = resumed
        if len(rows) == 1:
            return history.state, self._decode(duel_id, rows[0])
        # ``_checked`` inlined: each event checked against the chain, built trusted and folded; a
        # record made for the last one only (a seek folds up to SNAPSHOT_EVERY - 1 events).
        name, build = f"duel {duel_id}", from_trusted_dict
        for row in rows[1:]:
            at = row.originator_version - 1
            envelope = self._envelope(duel_id, row)
            if not _follows(envelope, prev, at, pack):
                raise self._unchained(duel_id, row, envelope, name, appending=False)
            try:
                event = build(envelope["e"], f"{name} event {at}")
            except (KeyError, TypeError, EventFormatError):
                event = self._decode(duel_id, row, envelope, trusted=True).event    # raises the store's error
            self._fold_in(history, event, duel_id)
            prev = envelope["h"]
        return history.state, Record(at, event, envelope["t"], envelope["p"], prev)

    def _read(self, sql: str, params: tuple) -> list[tuple]:
        """The rows of one statement, as plain tuples. One statement reads one state of the
        database: no transaction around it. That saves PostgreSQL two round trips, and SQLite the
        BEGIN and ROLLBACK (and evicting the statement from its connection's cache, which holds
        one: preparing the seek's was half of its read). A store read-only on SQLite reads on
        connections of its own (``_plain_read``), not its recorders'."""
        if self._plain is not None:
            return self._plain_read(sql, params)
        from eventsourcing.persistence import PersistenceError
        try:
            if self.backend == "postgresql":
                with self.events.datastore.cursor() as cursor:
                    cursor.execute(sql, params)
                    found = cursor.fetchall()
                return [tuple(row.values()) for row in found]        # dicts
            with self.events.datastore.get_connection(commit=False) as connection, connection.cursor() as cursor:
                cursor.row_factory = None                            # plain tuples, not sqlite3.Row
                return cursor.execute(sql, params).fetchall()
        except (PersistenceError, sqlite3.Error) as exc:
            raise self._read_error(exc) from None

    def _read_error(self, exc: BaseException) -> YgoreplayError:
        """What a read that failed raises: the store busy or not answering (``_outage_error``:
        try again), never taken for the store's refusal (``StoreError``), which a caller may read
        as "no such duel"; else that refusal."""
        return self._outage_error(exc) or StoreError(say("cannot read the store {name}: {exc}",
                                                         name=self.name, exc=exc))

    def _plain_read(self, sql: str, params: tuple) -> list[tuple]:
        """``_read`` on a store read-only on SQLite: on one of its own read-only connections
        (made as its recorders' pool makes them: the same file, opened read-only, the same wait for
        a lock, no transaction), taken and given back as the pool's are, counted as ``_gated``
        counts theirs (``close`` waits for the reads under way, then refuses new ones). Without the
        recorders a seek needs neither ``eventsourcing`` nor a pool (issue 25)."""
        with self._gate:
            if self._closing:
                raise YgoreplayError(say("the store {name} is closed", name=self.name))
            self._users += 1
        try:
            idle = self._plain
            try:
                connection = idle.pop()
            except IndexError:
                connection = sqlite3.connect(self._env["SQLITE_DBNAME"], uri=True, check_same_thread=False,
                                             isolation_level=None, timeout=SQLITE_LOCK_WAIT)
            try:
                return connection.execute(sql, params).fetchall()
            finally:
                idle.append(connection)
        except sqlite3.Error as exc:
            raise self._read_error(exc) from None
        finally:
            with self._gate:
                self._users -= 1
                if not self._users:
                    self._gate.notify_all()

    def _tables(self) -> tuple[str, str]:
        """The events' and the snapshots' tables, as a statement names them (PostgreSQL's in the
        store's schema); SQLite's without opening the recorders."""
        if self.backend == "sqlite":
            return _SQLITE_EVENTS, _SQLITE_SNAPSHOTS
        schema = self.events.datastore.schema
        return f'"{schema}"."{self.events.events_table_name}"', f'"{schema}"."{self.snapshots.events_table_name}"'

    @functools.cached_property
    def _topic_sql(self) -> str:
        """``resolve``'s statement: the topic of a stream's header row (version 0)."""
        events = self._tables()[0]
        sql = f"SELECT topic FROM {events} WHERE originator_id = ? AND originator_version = 0"
        return sql.replace("?", "%s") if self.backend == "postgresql" else sql

    @functools.cached_property
    def _seek_sql(self) -> str:
        """``_seek_rows``'s statement, made once a Store, not at every seek (issue 25)."""
        events, snapshots = self._tables()
        newest = (f"SELECT originator_version FROM {snapshots} WHERE originator_id = ? AND originator_version <= ? "
                  "ORDER BY originator_version DESC LIMIT 1")
        anchor = (f"SELECT originator_version FROM {events} WHERE originator_id = ? AND originator_version >= ? "
                  "ORDER BY originator_version LIMIT 1")
        sealing = (f"SELECT originator_version FROM {snapshots} WHERE originator_id = ? AND originator_version > ? "
                   "ORDER BY originator_version LIMIT 1")
        # one bound for the events, the nearer seal's: two bounds let SQLite range over the farther
        smallest = "least" if self.backend == "postgresql" else "min"
        sql = (f"SELECT 0 AS part, originator_version AS v, topic, state FROM {events} WHERE originator_id = ? "
               f"UNION ALL SELECT * FROM (SELECT 1 AS part, originator_version AS v, topic, state FROM {snapshots} "
               "WHERE originator_id = ? AND originator_version <= ? ORDER BY originator_version DESC LIMIT 1) AS s "
               f"UNION ALL SELECT 2 AS part, originator_version AS v, topic, state FROM {events} "
               f"WHERE originator_id = ? AND originator_version >= coalesce(({newest}), 0) "
               f"AND originator_version <= {smallest}(coalesce(({anchor}), {_NO_END}), "
               f"coalesce(({sealing}), {_NO_END})) "
               f"UNION ALL SELECT * FROM (SELECT 3 AS part, originator_version AS v, topic, state FROM {events} "
               "WHERE originator_id = ? AND originator_version >= ? ORDER BY originator_version LIMIT 1) AS a "
               f"UNION ALL SELECT * FROM (SELECT 4 AS part, originator_version AS v, topic, state FROM {events} "
               "WHERE originator_id = ? ORDER BY originator_version DESC LIMIT 1) AS l "
               f"UNION ALL SELECT * FROM (SELECT 5 AS part, originator_version AS v, topic, state FROM {snapshots} "
               f"WHERE originator_id = ? AND originator_version > ? AND originator_version < "
               f"coalesce(({anchor}), {_NO_END}) ORDER BY originator_version LIMIT 1) AS n "
               f"UNION ALL SELECT 6 AS part, originator_version AS v, topic, state FROM {events} "
               "WHERE originator_id = ? AND originator_version = 0")
        return sql.replace("?", "%s") if self.backend == "postgresql" else sql

    def _seek_rows(self, duel_id: str, position: int) -> tuple[tuple[bytes, ...], _Row | None, list[_Row],
                                                               _Row | None, _Row | None, _Row | None, _Row | None]:
        """In one statement: the states of the duel's card records; its newest snapshot at or
        before ``position``; the stored rows from that snapshot's event (from the header, version
        0, when there is none) up to ``position`` and on to the first anchor at or after it, or
        the first snapshot after it when that comes first; that anchor, the last anchor, that
        snapshot, and the header (three reads through the recorder were half of a seek: issue 25)."""
        head = f"{duel_id}/head"
        params = (f"{duel_id}/cards", duel_id, position, duel_id, duel_id, position, head, position,
                  duel_id, position, head, position, head, duel_id, position, head, position, duel_id)
        found = self._read(self._seek_sql, params)
        cards, rows, single = [], [], [None] * 7
        for part, version, topic, state in found:
            owner = f"{duel_id}/cards" if part == 0 else head if part in (3, 4) else duel_id
            state = _blob(state, version, owner, part in (1, 5))
            if part == 0:
                cards.append((version, state))
            elif part == 2:
                rows.append(_Row(duel_id, version, topic, state))
            else:
                single[part] = _Row(owner, version, topic, state)
        cards.sort()                                # each part's order, not the statement's
        rows.sort()
        return tuple(state for _version, state in cards), single[1], rows, single[3], single[4], single[5], single[6]

    def _history(self, duel_id: str, position: int, cards: CardDB, root: bytes | None = None) -> History:
        """The fold after ``position`` events, refusing nothing: the nearest good snapshot at or
        before it, then the stored events after it, each checked against the chain first (from
        the snapshot's hash, or the header's ``root``): nothing is appended onto an event that
        was changed, and no board is shown from one (a seek from a snapshot read the events
        after it on trust: an amount changed in the database was shown as the board)."""
        found = self._from_snapshot(duel_id, position, cards)
        if found is None:
            history = History(cards, audit=True, restore=self._restorer(duel_id, cards))
            prev = root if root is not None else self._signed_root(duel_id)
            rows = self.events.select_events(duel_id, gt=0, lte=position) if position else []
        else:
            history, prev, rows = found
        for record in self._checked(duel_id, rows, prev, f"duel {duel_id}", appending=root is not None):
            self._fold_in(history, record.event, duel_id)
        return history

    def _signed_root(self, duel_id: str) -> bytes:
        """The root of the duel's chain, from a header its last signed anchor names: a fold from
        the root (a rollback's restore, which reads only the events before its point) holds the
        events it reads to the chain alone, and a header whose root was changed with them would
        vouch for any."""
        header = self.header(duel_id)
        rows = self.events.select_events(f"{duel_id}/head", desc=True, limit=1)
        head = self._signed_anchor(duel_id, rows[0] if rows else None)
        if head is None or head.header != header.digest:
            raise VerificationError(say("duel {duel_id}: its header is not the one its signed anchor "
                                        "names (altered), or it has no signed anchor; no board is shown "
                                        "from it. Run 'ygoreplay verify'",
                                        duel_id=duel_id))
        return header.root

    def _fold_in(self, fold: Any, event: Event, stream_id: str) -> None:
        """Append a stored event to a fold. Its fields were trusted (its chain holds), so one that
        breaks the fold (altered and rechained behind the store's back) is read again, checked:
        refused with what is wrong and where (StoreError), not a traceback."""
        try:
            fold.append(event)
        except (TypeError, AttributeError, KeyError, IndexError, ValueError) as exc:
            if isinstance(exc, YgoreplayError):
                raise
            rows = self.events.select_events(stream_id, gt=fold.position, lte=fold.position + 1)
            if rows:
                self._decode(stream_id, rows[0])        # raises StoreError when its fields are wrong
            raise

    def _from_snapshot(self, duel_id: str, position: int,
                       cards: CardDB) -> tuple[History, bytes, list[StoredEvent]] | None:
        """A history resumed from the newest snapshot at or before ``position`` that checks out
        (``_resume``), with its chain hash and the stored events after it up to ``position``
        (read with its own event in one query); None when there is none."""
        for row in self.snapshots.select_events(duel_id, lte=position, desc=True, limit=4):
            stored = self.events.select_events(duel_id, gt=row.originator_version - 1, lte=position)
            resumed = self._resume(duel_id, row, stored[0], cards) if stored else None
            if resumed is not None:
                return resumed[0], resumed[1], stored[1:]
        return None

    def _resume(self, duel_id: str, row: StoredEvent | _Row, event_row: StoredEvent | _Row,
                cards: CardDB) -> tuple[History, bytes] | None:
        """The history a snapshot row holds and its chain hash, when its key is trusted here, its
        MAC (when this store holds that key: ``_vouched``) or else its signature holds, its hash
        is that of ``event_row``, the stored event it follows, and this version reads it
        (``History.readable``: another version's is left as it is, for that version, even by a
        store open for writing; the events are folded instead); None when not."""
        try:
            snap = msgpack.unpackb(row.state)
            at = snap["h"]
            if event_row.originator_version != row.originator_version or \
                    self._envelope(duel_id, event_row).get("h") != at or not self._snapshot_signed(duel_id, row, snap):
                return None
            data = _snapshot_data(snap)
            if not History.readable(data):
                return None
            return History.from_data(data, cards, audit=True, restore=self._restorer(duel_id, cards)), at
        except (ValueError, KeyError, TypeError, AttributeError, IndexError, msgpack.ExtraData, zlib.error,
                StoreError, EventFormatError, CardDBError):
            return None

    def _snapshot_signed(self, duel_id: str, row: StoredEvent | _Row, snap: dict) -> bool:
        """Whether a snapshot (its row, decoded as ``snap``) is signed by a key trusted here
        (``_vouched``; once per row's bytes in this process: a signature that held once holds on
        the same bytes)."""
        signer = self.trusts(snap["key"])
        if signer is None:
            return False
        holder = self._holder(signer.raw)
        version = row.originator_version
        seen = (duel_id, version, sha256(row.state).digest(), holder is not None)
        if seen not in _SIGNED:
            if not self._vouched(snap.get("mac"), snap["sig"], signer, holder,
                                 self._snapshot_message(duel_id, version, snap["h"], snap["d"]),
                                 snap.get("path"), snap.get("left", 0)):
                return False
            if len(_SIGNED) >= _SIGNED_KEPT:
                _SIGNED.clear()
            _SIGNED.add(seen)
        return True

    def _sealed(self, duel_id: str, at: _Row, tail: list[_Row], anchor: _Row | None, sealing: _Row | None,
                pack: Callable[[object], bytes] = msgpack.packb) -> None:
        """Refuse a seek to ``at`` (VerificationError) unless its stored chain hash is one the duel's
        signed seals vouch for: ``tail``, the stored events after it, chain from it to the hash
        signed by ``sealing`` (the first snapshot past it) or else by ``anchor`` (the first anchor
        at or after it; the events up to it are read when the snapshot does not hold). An event
        altered, deleted, inserted or rechained up to ``at`` breaks that, signed seals being out
        of reach of whoever can write to the database only."""
        name = f"duel {duel_id}"
        prev = self._envelope(duel_id, at).get("h")
        chained = {at.originator_version: prev}

        def follow(rows: Sequence[StoredEvent | _Row]) -> None:
            nonlocal prev
            for row in rows:
                envelope = self._envelope(duel_id, row)
                if not _follows(envelope, prev, row.originator_version - 1, pack):
                    raise self._unchained(duel_id, row, envelope, name, appending=False)
                prev = chained[row.originator_version] = envelope["h"]

        follow(tail)
        if sealing is not None and sealing.originator_version in chained:
            try:
                snap = msgpack.unpackb(sealing.state)
                if snap["h"] == chained[sealing.originator_version] and self._snapshot_signed(duel_id, sealing, snap):
                    return
            except (ValueError, KeyError, TypeError, AttributeError, msgpack.ExtraData):
                pass
        head = self._signed_anchor(duel_id, anchor)
        if head is not None and head.count > max(chained):      # the snapshot did not hold: on to the anchor
            follow(self.events.select_events(duel_id, gt=max(chained), lte=head.count))
        if head is None or chained.get(head.count) != head.hash:
            raise VerificationError(say("{name}: its events up to {originator_version} are not the ones "
                                        "its signed anchor vouches for (deleted, inserted or rechained), "
                                        "or it has no signed anchor there; no board is shown from it. Run "
                                        "'ygoreplay verify'",
                                        name=name, originator_version=at.originator_version))

    @staticmethod
    def _vouched(mac: object, signature: object, signer: PublicKey, holder: OrganiserKey | None,
                 message: bytes, path: object = None, left: object = 0) -> bool:
        """Whether a snapshot's or an anchor's (``Head.signed_by``) ``message`` is its signer's: by
        its MAC when this store holds the signer's private key (``holder``; an HMAC, where an
        Ed25519 check was a fifth of a seek: issue 25), else (no MAC: written before them; one
        that does not hold; a key held elsewhere) by its signature: over the message, or, signed
        with its group commit (``path``: written since the twenty-second pass), over the root its
        audit path leads to, as an anchor's. A MAC is made only with that key's secret, so it
        vouches as the signature does, to a holder of that key only."""
        if holder is not None and holder.check_mac(mac, message):
            return True
        if not isinstance(signature, bytes):
            return False
        if path is None:
            return signer.verify(signature, message)
        try:
            root = signing.root_of(message, path, left)      # type: ignore[arg-type]
        except ValueError:                                  # not ``signing.tree``'s form: not vouched
            return False
        return signer.verify(signature, _GROUP_LABEL + root)

    def _signed_anchor(self, duel_id: str, row: _Row | StoredEvent | None) -> Head | None:
        """The anchor a stored row holds when it is at its own count, its key is trusted here and
        its MAC or signature holds (``_vouched``; once per row's bytes in this process); else None."""
        if row is None:
            return None
        try:
            digest = sha256(row.state).digest()
            decoded = (duel_id, row.originator_version, digest)
            head = _HEADS.get(decoded) or Head.from_dict(msgpack.unpackb(row.state))
            signer = self.trusts(head.key) if head.count == row.originator_version else None
            if signer is None:
                return None
            holder = self._holder(signer.raw)
            seen = (duel_id, head.count, digest, holder is not None)
            if seen not in _ANCHORED:
                if not head.signed_by(signer, duel_id, holder):
                    return None
                if len(_ANCHORED) >= _SIGNED_KEPT:
                    _ANCHORED.clear()
                _ANCHORED.add(seen)
            if decoded not in _HEADS:
                if len(_HEADS) >= _SIGNED_KEPT:
                    _HEADS.clear()
                _HEADS[decoded] = head
            return head
        except (ValueError, KeyError, TypeError, AttributeError, msgpack.ExtraData):
            return None

    def _check_cards(self, duel_id: str, found: tuple[CardDB, bytes, bytes | None],
                     last: _Row | StoredEvent | None, header: bytes | None = None) -> CardDB:
        """The card facts of a seek or a live stream, refused (VerificationError) unless their
        digests are the ones the anchor read with them (``last``) signed: card records altered,
        added or deleted in the database would change the board shown. A seek's ``header`` (its
        row's state) is refused unless that anchor names it, as ``opened`` refuses it: nothing of
        a duel whose header was altered is shown, its board either."""
        head = self._signed_anchor(duel_id, last)
        if head is None:
            raise VerificationError(say("duel {duel_id}: its anchor is missing or not signed by a trusted "
                                        "organiser key; nothing is shown from it. Run 'ygoreplay verify'",
                                        duel_id=duel_id))
        if header is not None and not self._header_named(duel_id, header, head.header):
            raise VerificationError(say("duel {duel_id}: its header is not the one its signed anchor "
                                        "names (altered); nothing is shown from it. Run 'ygoreplay "
                                        "verify'", duel_id=duel_id))
        if head.cards != found[1] or head.effects != found[2]:
            raise VerificationError(say("duel {duel_id}: its card records are not the ones its anchor at "
                                        "{head_count} signed (altered); nothing is shown from it. Run "
                                        "'ygoreplay verify'",
                                        duel_id=duel_id, head_count=head.count))
        return found[0]

    def _header_named(self, duel_id: str, header: bytes, digest: bytes) -> bool:
        """Whether a header row's state is the header whose digest a signed anchor names: decoded
        once per row's bytes and digest in this process (``_NAMED``; a resident's or a service's
        every seek of a duel checks the same header)."""
        seen = (duel_id, sha256(header).digest(), digest)
        if seen in _NAMED:
            return True
        if self._decode_header(duel_id, header).digest != digest:
            return False
        if len(_NAMED) >= _SIGNED_KEPT:
            _NAMED.clear()
        _NAMED.add(seen)
        return True

    def _restorer(self, duel_id: str, cards: CardDB):
        return lambda to: self._history(duel_id, to, cards).state

    # -- branches ---------------------------------------------------------------------------------

    def branch(self, duel_id: str, at: int, title: str = "", attachments: dict[str, dict] | None = None,
               stream_id: str | None = None, claims: dict[str, dict[str, dict]] | None = None) -> str:
        """A new duel whose history is the first ``at`` events of ``duel_id`` (their times and
        chain kept: the branch's first ``at`` hashes are the parent's); the parent is untouched.
        ``attachments`` are written with it, in its transaction (the access it inherits), and
        ``claims`` as ``record`` writes them, for ``stream_id`` (a request's key: ``key_claim``)."""
        duel = self.load(duel_id)
        if duel.header.kind != "duel":
            raise StoreError(say("{duel_id} is a {header_kind}'s stream: only a duel is branched",
                                 duel_id=duel_id, header_kind=duel.header.kind))
        if not 0 < at <= len(duel.records):
            raise StoreError(say("duel {duel_id} has {n_records} events: branch at 1..{n_records}, not "
                                 "{at}",
                                 duel_id=duel_id, n_records=len(duel.records), at=at))
        from .replay_file import ReplayFileError, check_body
        try:                       # its first events may name card facts (an import's) no file of so few holds
            check_body(duel.events[:at], duel.cards)
        except ReplayFileError as exc:
            raise InputError(say("a branch of duel {duel_id} at {at} could never be exported ({exc}); "
                                 "nothing was written",
                                 duel_id=duel_id, at=at, exc=exc)) from None
        child, _count, _violation = self.record(
            duel.events[:at], title or f"branch of {duel_id} at {at}", times=duel.times[:at], cards=duel.cards,
            check=False, root=duel.header.root, secret=duel.header.secret, parent=duel_id, branch_at=at,
            source=duel.header.source, provenance={"branched": chain.now()}, attachments=attachments,
            stream_id=stream_id, claims=claims)
        assert child is not None
        return child

    def tree(self, duel_id: str) -> list[tuple[int, DuelInfo]]:
        """The duel's family as (depth, duel) in depth-first order, from its root."""
        infos = {d.id: d for d in self.duels()}
        if duel_id not in infos:
            raise StoreError(say("no duel {duel_id!r} in {name}", duel_id=duel_id, name=self.name))
        root = duel_id
        seen = {root}
        while infos[root].parent in infos and infos[root].parent not in seen:
            root = infos[root].parent
            seen.add(root)
        children: dict[str | None, list[DuelInfo]] = {}
        for d in infos.values():
            children.setdefault(d.parent, []).append(d)
        out: list[tuple[int, DuelInfo]] = []
        stack = [(infos[root], 0)]
        visited: set[str] = set()
        while stack:
            d, depth = stack.pop()
            if d.id in visited:
                continue
            visited.add(d.id)
            out.append((depth, d))
            kids = sorted(children.get(d.id, []), key=lambda c: (c.branch_at or 0, c.created))
            stack.extend((c, depth + 1) for c in reversed(kids))
        return out

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

    @functools.cached_property
    def _count_sql(self) -> str:
        """``_count``'s statement: the version of a stream's last row."""
        sql = (f"SELECT originator_version FROM {self._tables()[0]} WHERE originator_id = ? "
               "ORDER BY originator_version DESC LIMIT 1")
        return sql.replace("?", "%s") if self.backend == "postgresql" else sql

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

    PAGE = 4096

    @classmethod
    def _paged(cls, recorder: Any, stream_id: str, upto: int) -> Iterator[StoredEvent]:
        """A stream's rows after version 0 up to ``upto``, read ``PAGE`` versions at a time."""
        for after in range(0, upto, cls.PAGE):
            yield from recorder.select_events(stream_id, gt=after, lte=min(after + cls.PAGE, upto))


def _read_again(read: Any) -> Any:
    """``read``, a public read of the store, made once more (on another connection: the pool
    drops a broken one, ``_gated`` one the server hung up on) when the connection it used was
    lost under it (``StoreUnavailable.lost``): a read is made again without harm, and one
    connection lost (a backend ended, a proxy's cut) is not the store down. Once only: what the
    second attempt meets is told (an enclosing read does not make it a third time)."""
    @functools.wraps(read)
    def again(self: Store, *args: Any, **kwargs: Any) -> Any:
        try:
            return read(self, *args, **kwargs)
        except StoreUnavailable as exc:
            if not exc.lost:
                raise
        try:
            return read(self, *args, **kwargs)
        except StoreUnavailable as exc:
            exc.lost = False
            raise
    return again


for _read in ("duels", "info", "ids", "resolve", "header", "cards_of", "held_cards", "attachment", "match_of",
              "setting", "last_notification", "opened", "vouched_cards", "kind_of", "hash_at", "vouched_hash", "flags",
              "witnessed", "head_state", "record_at", "records_after", "chained_after", "records", "load", "state_at",
              "seek", "tree", "verify"):
    setattr(Store, _read, _read_again(getattr(Store, _read)))


def _marked(decoded: list[Record]) -> list[Record]:
    """Records marked reverted where a rollback (or a correction, which goes back as one does) undid them."""
    reverted: dict[int, int] = {}
    in_effect: list[int] = []                     # positions of play in effect, in order
    for rec in decoded:
        going_back = rec.event.kind in ("rolled_back", "entry_corrected")
        if going_back and 0 < rec.event.to < rec.position:
            while in_effect and in_effect[-1] >= rec.event.to:
                reverted[in_effect.pop()] = rec.position
        elif not going_back and rec.event.kind not in ("entry_confirmed", "entry_disputed"):
            in_effect.append(rec.position)
    return [Record(r.position, r.event, r.recorded, r.prev_hash, r.hash, reverted.get(r.position)) for r in decoded]


def _pack_snapshot(data: dict) -> bytes:
    """A snapshot's data as stored: msgpack, deflated (a state is mostly card rows alike: 7.3 KB
    is 2.2 KB, so snapshots every 16 events hold fewer bytes than plain ones every 32 did, and a
    seek folds half as many events after one: issue 25)."""
    return zlib.compress(msgpack.packb(data), 1)


def _snapshot_data(snap: dict) -> dict:
    """The data of a stored snapshot; one written before they were deflated (no ``z``) is plain
    msgpack. Inflated to at most ``MAX_SNAPSHOT`` bytes (zlib.error past it): a snapshot signed by
    any key the store trusts is read, and a deflated one may expand a thousandfold."""
    data = snap["d"]
    if snap.get("z"):
        inflater = zlib.decompressobj()
        data = inflater.decompress(data, MAX_SNAPSHOT)
        if inflater.unconsumed_tail or not inflater.eof:
            raise zlib.error(f"a snapshot inflates past {MAX_SNAPSHOT:,} bytes, or is cut short")
    return msgpack.unpackb(data)


def _follows(envelope: dict, prev: bytes, position: int, pack: Callable[[object], bytes] = msgpack.packb) -> bool:
    """Whether a stored event (its envelope, as written) follows the chain hash ``prev``: the hash
    is of the event as stored, not as read (an older version's event is upcast when read).
    ``pack``: ``chain.link``'s (a loop's own ``chain.packer()``)."""
    try:
        return envelope["p"] == prev and chain.link(prev, position, envelope["e"], envelope["t"], pack) == envelope["h"]
    except (KeyError, TypeError, ValueError):       # no chain fields, or none that hash: not vouched for
        return False


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


class _Pending:
    """An append waiting for the group commit. ``done`` is a lock taken when it is made and given
    back once its rows are written (or refused), or once its writer is to lead the next group
    (``lead``): its writer waits by taking it again. (An ``Event`` is a condition, a lock and a
    list of waiters: with a hundred appending threads its making, waiting and setting were a
    sixth of an append's CPU.)"""

    __slots__ = ("rows", "snapshots", "anchor", "receipt", "sealed", "head", "proof", "done", "error", "lead",
                 "next")

    def __init__(self, rows: list[StoredEvent], snapshots: list[StoredEvent],
                 anchor: tuple[str, bytes, Head] | None, receipt: bytes | None = None,
                 sealed: Sequence[tuple[int, bytes, bytes, bytes]] = ()) -> None:
        self.rows, self.snapshots = rows, snapshots
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

    def _commit(self, batch: list[_Pending]) -> None:
        """The batch in one transaction; when that fails, each append alone, so that only the
        one at fault (a position another writer took, a row refused) fails, and the others
        are written."""
        store = self._store
        try:
            self._sign(batch)
            try:
                store._write_rows([row for pending in batch for row in pending.rows],
                                  [row for pending in batch for row in pending.snapshots])
            except Exception as exc:
                if len(batch) == 1:
                    batch[0].error = store._failed(exc, batch[0].rows)
                    return
                if isinstance(exc, StoreUnavailable):
                    # the store's plight, not one append's: each told it (its own copy), none
                    # written alone (busy: each waited for the lock, or its statement's timeout, again;
                    # outcome unknown: written again, a group stored would be recorded twice)
                    for pending in batch:
                        pending.error = type(exc)(str(exc))
                    return
                for pending in batch:
                    self._sign_alone(pending)
                    try:
                        store._write_rows(pending.rows, pending.snapshots)
                    except Exception as alone:
                        pending.error = store._failed(alone, pending.rows)
        except BaseException as exc:                    # never leave a writer waiting
            for pending in batch:
                pending.error = pending.error or StoreError(say("the store {name} failed to write: {exc}",
                                                                name=store.name, exc=exc))
            raise

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


def _head_owners(duel_id: str) -> tuple[str, ...]:
    """The streams of ``Store._head_query``'s parts, in order: its bound values."""
    return (duel_id, duel_id, f"{duel_id}/head", f"{duel_id}/cards", f"{duel_id}/access")


class _HeadRead:
    """A duel's head read waiting for ``_HeadReads``: ``done`` is taken when it is made and given
    back once its rows are read (or its group's read failed: ``rows`` None), or once its reader
    is to lead the next group (``lead``)."""

    __slots__ = ("duel_id", "rows", "done", "lead")

    def __init__(self, duel_id: str) -> None:
        self.duel_id = duel_id
        self.rows: list[Mapping[str, Any]] | None = None
        self.done = threading.Lock()
        self.done.acquire()
        self.lead = False


class _HeadReads:
    """Group read of heads (PostgreSQL): the heads that the first appends of many duels wait for
    at one moment are read in one statement (``Store._heads_query``; issue 25: a head read alone
    was ~130 µs of the client's CPU, ~16 a duel in a statement of 32). No thread of its own, as
    ``_Committer``: the reader that finds no read under way reads, with its own, the heads of those
    waiting, then hands the next group to the first that came meanwhile. A lone read is the
    one-stream statement, as before. Each reader checks and decodes its own rows in its own thread,
    so a row altered in one duel fails that duel's append alone; a group whose statement fails is
    read again by each of its readers alone, each getting what its own read meets. One
    statement reads one state of the database, as the one-stream read did."""

    BATCH = 128

    def __init__(self, store: Store) -> None:
        self._store = store
        self._guard = threading.Lock()
        self._waiting: list[_HeadRead] = []
        self._reading = False            # a group is being read: the next readers wait for it

    def waiting(self) -> int:
        """How many head reads wait for the group under way to be read."""
        with self._guard:
            return len(self._waiting)

    def rows(self, duel_id: str) -> list[Mapping[str, Any]] | None:
        """The rows of ``duel_id``'s head (``Store._head_query``'s parts), read with those of the
        others waiting; None: its group's read failed, read it alone."""
        read = _HeadRead(duel_id)
        with self._guard:
            self._waiting.append(read)
            read.lead = not self._reading
            self._reading = True
        interrupted: BaseException | None = None
        if not read.lead:
            while True:                  # until read, or handed the lead
                try:
                    read.done.acquire()
                    break
                except BaseException as exc:   # a signal in the main thread: a lead handed to it still goes on
                    interrupted = exc
        if read.lead:
            self._lead()
        if interrupted is not None:
            raise interrupted
        return read.rows

    def _lead(self) -> None:
        """Read the heads of the waiting readers (this one first among them) in one statement,
        then hand the lead to the first that came meanwhile, or end it."""
        batch: list[_HeadRead] = []
        try:
            with self._guard:
                batch, self._waiting = self._waiting[:self.BATCH], self._waiting[self.BATCH:]
            self._read(batch)
        finally:
            with self._guard:
                following = self._waiting[0] if self._waiting else None
                if following is None:
                    self._reading = False
                else:
                    following.lead = True
            if following is not None:
                following.done.release()
            for read in batch[1:]:
                read.done.release()

    def _read(self, batch: list[_HeadRead]) -> None:
        """Each reader's rows of one statement: a lone reader's (this thread's) of the one-stream
        statement, its error raised; a group's of one statement for all, none (each reads alone)
        when it fails."""
        store = self._store
        if len(batch) == 1:
            duel_id = batch[0].duel_id
            with store.events.datastore.get_connection() as conn:
                batch[0].rows = conn.execute(store._head_query, _head_owners(duel_id), prepare=True).fetchall()
            return
        try:
            with store.events.datastore.get_connection() as conn:
                found = conn.execute(store._heads_query, ([read.duel_id for read in batch],), prepare=True).fetchall()
        except Exception:               # each reads alone: its own error, or its rows after all
            return
        rows: list[list[Mapping[str, Any]]] = [[] for _read in batch]
        for row in found:
            rows[row["i"] - 1].append(row)
        for read, mine in zip(batch, rows):
            read.rows = mine


class _PostgresWriter:
    """A write of the store on PostgreSQL in one pipelined round trip and one transaction: the
    library index's rows, the recorder's table lock and notification (so that notification ids
    are committed in order, as ``eventsourcing`` writes them), the rows, and the snapshots
    (``ON CONFLICT DO NOTHING``: another writer's copy of a snapshot is as good). The rows go
    as four binary arrays: the recorder's own insert sends an array of a composite type in
    text, every state escaped twice, which cost three to four times the CPU and twice the
    server's time of a group commit (issue 25)."""

    def __init__(self, store: Store) -> None:
        from psycopg import sql
        self._store = store
        recorder, snapshots = store.events, store.snapshots
        datastore = recorder.datastore
        schema = datastore.schema
        # A connection of its own (the group commit never waits behind the readers' pool), made
        # by the thread that first writes, and made again by the next write after it broke. (A
        # pool of one opened it in a worker thread, which 128 appending threads starved of the
        # GIL past its 5 s timeout, and a pool that failed to open failed every later write.)
        self._kwargs = _own_connection(datastore)
        self._configure = datastore.after_connect_func()     # autocommit, as the readers' connections
        self._conn: Any = None           # at the first write: a store only read connects no further
        self._backend: tuple | None = None   # its server process: pid and start (``_stored``)
        self._using = threading.Lock()   # one write at a time on it
        self._closed = False             # ``close``d for good: no connection is made again
        self._encoded: tuple = ()        # the statements below as the connection's bytes (``_connection``)

        def insert(table: str, tail: str = "", marks: tuple[str, ...] = ("%b",) * 4) -> Any:
            return sql.SQL("INSERT INTO {} (originator_id, originator_version, topic, state) SELECT * FROM "
                           "unnest({}::text[], {}::int8[], {}::text[], {}::bytea[])" + tail).format(
                sql.Identifier(schema, table), *map(sql.SQL, marks))
        # ``SET LOCAL lock_timeout`` (``LOCK_WAIT``) first, then the lock: the index rows, sent
        # between them, wait for their row locks no longer than the table's
        self._lock_wait, *self._lock = recorder.lock_table_statements

        def notifying(marks: tuple[str, ...] = ("%b",) * 4) -> Any:
            # the rows, and the NOTIFY that tells the listeners (``_Heads``) of them: the heads it
            # wrote said in it (``HEADS_SAID``), so that no listener reads them back
            return sql.SQL("WITH written AS ({} RETURNING notification_id, originator_id, originator_version, "
                           "topic), said AS (SELECT string_agg(notification_id || ' ' || originator_version || ' ' "
                           "|| originator_id, E'\\n' ORDER BY notification_id) AS heads FROM written WHERE topic = "
                           "{}) SELECT pg_notify({}, {} || CASE WHEN octet_length(heads) <= {} THEN heads ELSE '' "
                           "END) FROM said").format(insert(recorder.events_table_name, marks=marks),
                                                    sql.Literal(HEAD_TOPIC), sql.Literal(recorder.channel_name),
                                                    sql.Literal(f"{HEADS_MARK}{schema}\n"), sql.Literal(HEADS_SAID))
        self._events = notifying()
        self._snapshots = insert(snapshots.events_table_name, " ON CONFLICT DO NOTHING")
        # the same with ``$n``: their arrays sent as built (``pg_pipeline``), not dumped by psycopg
        numbered = ("$1", "$2", "$3", "$4")
        self._events_bin = notifying(numbered)
        self._snapshots_bin = insert(snapshots.events_table_name, " ON CONFLICT DO NOTHING", numbered)

        def follows(marks: tuple[str, ...]) -> Any:
            # each (stream, version, hash) names the stored event an append was chained onto: its
            # row must hold that hash as its own (``"h"``, msgpack's ``\xa1h\xc4\x20`` before it);
            # one that does not, or is not there, makes it divide by zero: the write is aborted
            # (a lookup by the primary key each, whatever the table's size: not a join the planner
            # may make a scan of the table)
            return sql.SQL("SELECT 1 / bool_and(EXISTS (SELECT FROM {} AS e WHERE e.originator_id = g.id AND "
                           "e.originator_version = g.version AND position('\\xa168c420'::bytea || g.link IN "
                           "e.state) > 0))::int FROM unnest({}::text[], {}::int8[], {}::bytea[]) AS g(id, version, link)"
                           ).format(sql.Identifier(schema, recorder.events_table_name), *map(sql.SQL, marks))
        self._follows, self._follows_bin = follows(("%b",) * 3), follows(numbered[:3])
        self._prepared = pg_pipeline.Prepared()   # the connection's prepared statements (``_connection``)
        self._find = sql.SQL("SELECT originator_id, originator_version, state FROM {} WHERE (originator_id, "
                             "originator_version) IN (SELECT * FROM unnest(%s::text[], %s::int8[]))").format(
            sql.Identifier(schema, recorder.events_table_name))

    @staticmethod
    def _columns(rows: list[StoredEvent]) -> tuple[list, list, list, list]:
        return ([str(r.originator_id) for r in rows], [r.originator_version for r in rows],
                [r.topic for r in rows], [r.state for r in rows])

    @staticmethod
    def _arrays(query: bytes, columns: tuple[list, list, list, list]) -> tuple[bytes, tuple[int, ...], list[bytes]]:
        """The rows' four columns as ``pg_pipeline`` sends them: PostgreSQL's binary arrays, built
        here (psycopg's dumper of a list was ~1 µs an element, four elements a row)."""
        ids, versions, topics, states = columns
        return (query, (pg_pipeline.TEXT[1], pg_pipeline.INT8[1], pg_pipeline.TEXT[1], pg_pipeline.BYTEA[1]),
                [pg_pipeline.text_array(ids), pg_pipeline.int8_array(versions), pg_pipeline.text_array(topics),
                 pg_pipeline.bytea_array(states)])

    def write(self, rows: list[StoredEvent], snapshot_rows: list[StoredEvent]) -> None:
        """Raises the recorder's errors, as its own insert does (``IntegrityError``: a position taken).

        BEGIN and COMMIT are statements of the pipeline, so the whole write is one sync, one
        round trip: psycopg's ``transaction()`` in a pipeline nests two more pipelines, a sync
        each (a quarter of a group's CPU in the writer, issue 25). The statements go straight to
        libpq, answered in one wait (``pg_pipeline``: psycopg's steps around each statement were
        ~200 µs of a write's CPU, eighteenth pass). A write that fails is rolled
        back here (``_undo``); one whose connection was lost returns if its rows are stored (the
        COMMIT was carried out, only its answer lost: ``_stored``), raises ``WriteOutcomeUnknown``
        when that cannot be learned, and the recorder's error when they are not. A server not
        reached before anything was sent, or a lock not had within ``LOCK_WAIT``, or a statement
        cancelled past ``STATEMENT_WAIT``, raises ``StoreUnavailable`` (``StoreBusy``): nothing
        was written."""
        from eventsourcing.persistence import IntegrityError, PersistenceError
        import psycopg
        store = self._store
        index = store.library
        try:
            with self._using:
                try:
                    conn = self._connection()
                except psycopg.Error as exc:          # nothing was sent
                    raise store._outage_error(exc, written=True) or exc
                lock_wait, lock, events, snapshots, events_bin, snapshots_bin, follows, follows_bin = self._encoded
                batch = pg_pipeline.Statements()
                batch.execute(b"BEGIN")
                batch.execute(lock_wait, prepare=True)
                index.write(batch, rows)
                for statement in lock:
                    batch.execute(statement, prepare=True)
                # after the lock: no other writer's append comes between the check and the rows
                if links := self._links(rows):
                    batch.execute(follows, links, prepare=True, binary=(follows_bin, (
                        pg_pipeline.TEXT[1], pg_pipeline.INT8[1], pg_pipeline.BYTEA[1]), [
                        pg_pipeline.text_array(links[0]), pg_pipeline.int8_array(links[1]),
                        pg_pipeline.bytea_array(links[2])]))
                columns = self._columns(rows)
                batch.execute(events, columns, prepare=True, binary=self._arrays(events_bin, columns))
                if snapshot_rows:
                    columns = self._columns(snapshot_rows)
                    batch.execute(snapshots, columns, prepare=True, binary=self._arrays(snapshots_bin, columns))
                batch.execute(b"COMMIT")
                try:
                    batch.send(conn, self._prepared)
                except BaseException as exc:
                    backend = self._backend
                    self._undo(conn, exc)
                    if isinstance(exc, psycopg.OperationalError) and conn.closed:
                        stored = self._stored(rows, backend)
                        if stored:
                            return
                        if stored is None:
                            raise store._outcome_unknown(exc) from None
                    raise
        except BaseException as exc:
            index.forget(rows)
            if isinstance(exc, psycopg.IntegrityError):
                raise IntegrityError(str(exc)) from exc
            if isinstance(exc, psycopg.errors.DivisionByZero):   # ``_links``: a head not the stored one
                raise IntegrityError("an append followed an event that is not the one stored") from exc
            if isinstance(exc, (psycopg.errors.LockNotAvailable, psycopg.errors.QueryCanceled)):
                raise store._outage_error(exc, written=True) from None
            if isinstance(exc, psycopg.Error):            # a connection refused or lost is one too
                raise PersistenceError(str(exc)) from exc
            raise

    @staticmethod
    def _links(rows: list[StoredEvent]) -> tuple[list[str], list[int], list[bytes]] | None:
        """The stored events the appends of a write were chained onto (their first event's
        ``follows``: streams, versions and hashes), checked in its transaction: an append made
        on a head this process held that the store does not hold (another writer's append since,
        or a write of this process's believed stored that was not) is refused as a conflict,
        never stored after an event that is not its chain's. (The first event of a stream
        follows its header, which never changes: none is checked.)"""
        links = [(str(row.originator_id), row.originator_version - 1, row.follows) for row in rows
                 if getattr(row, "follows", None) is not None and row.originator_version > 1]
        if not links:
            return None
        ids, versions, hashes = zip(*links)
        return list(ids), list(versions), list(hashes)

    def _undo(self, conn: Any, exc: BaseException) -> None:
        """Leave no transaction open on ``conn`` after a write that failed with ``exc``: the
        server aborted it (or never saw its COMMIT), so roll it back; a write cut off part way
        (not an ``Exception``: an interrupt) or a rollback that fails closes the connection,
        and the next write makes another (``_connection``)."""
        if isinstance(exc, Exception) and not conn.broken:
            try:
                conn.rollback()
                return
            except Exception:
                pass
        conn.close()

    def _stored(self, rows: list[StoredEvent], backend: tuple | None) -> bool | None:
        """Whether ``rows``, of a write whose connection was lost, are stored as written: every
        one of them, read back (its first alone was another writer's as often as its own: the
        card record of an event that names new cards is the same bytes whoever appends it first,
        and a write cut before its COMMIT was told written, its head kept, and the next append
        chained onto an event never stored). All there as written: what the store holds is that
        write (its transaction committed, or another's of the very same rows); any not: its
        transaction was not committed (a transaction is all or nothing). Looked for on a new
        connection once the server process
        of the lost one (``backend``: its pid and start) has ended: until then it may still run
        the write, and commit it after a look that found nothing. Told "nothing was written", the
        append was sent again and recorded twice (a group's appends, retried alone, each found its
        position taken by its own rows: a conflict, appended again at the new head). False when
        it is known not to be; None when that cannot be known (the server is not reached, or that
        process does not end): the append is told its outcome is unknown (``WriteOutcomeUnknown``),
        never "nothing was written"."""
        from psycopg.rows import tuple_row
        try:
            cursor = self._connection().cursor(row_factory=tuple_row)
            if backend is not None:
                ended = cursor.execute("SELECT pg_terminate_backend(pid, %s) FROM pg_stat_activity "
                                       "WHERE pid = %s AND backend_start = %s",
                                       (round(self.END_WAIT * 1000), *backend)).fetchone()
                if ended is not None and not ended[0]:
                    return None
            ids, versions, _topics, states = self._columns(rows)
            found = {(stream, version): bytes(state)
                     for stream, version, state in cursor.execute(self._find, (ids, versions)).fetchall()}
        except Exception:
            return None
        return all(found.get(key) == state for key, state in zip(zip(ids, versions), states))

    def _connection(self) -> Any:
        """The writer's connection, made now if there is none, it broke, or the server hung up on
        it (``_hung_up``: a restart; the first write after it failed) (its caller holds ``_using``)."""
        import psycopg
        if self._closed:                 # as the closed store's pool refuses its readers
            raise StoreError(say("the store {name} is closed", name=self._store.name))
        if self._conn is not None and (self._conn.closed or self._conn.broken or _hung_up(self._conn)):
            self._conn.close()
            self._conn = None
        if self._conn is None:
            from psycopg.rows import tuple_row
            conn = _bounded().connect(**self._kwargs)
            try:
                self._configure(conn)
                self._backend = conn.cursor(row_factory=tuple_row).execute(
                    "SELECT pid, backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()").fetchone()
            except BaseException:
                conn.close()
                raise
            self._conn = conn
            self._prepared = pg_pipeline.Prepared()
            # composed once a connection, not at every statement of every write (~10% of its CPU)
            self._encoded = (self._lock_wait.as_bytes(conn), [statement.as_bytes(conn) for statement in self._lock],
                             self._events.as_bytes(conn),
                             self._snapshots.as_bytes(conn), self._events_bin.as_bytes(conn),
                             self._snapshots_bin.as_bytes(conn), self._follows.as_bytes(conn),
                             self._follows_bin.as_bytes(conn))
        return self._conn

    CLOSE_WAIT = 30.0                    # seconds ``close`` waits for a write under way
    #: seconds ``_stored`` waits for a lost write's server process to end: within ``STATEMENT_WAIT``
    END_WAIT = STATEMENT_WAIT / 2

    def close(self, for_good: bool = False) -> None:
        """Close the connection once the write on it is done; after ``CLOSE_WAIT``, under it
        (that write fails, and its appends are told so). ``for_good`` (the store closes): a
        write after it is refused, as the closed store's readers are (it connected again, and
        that connection was never closed)."""
        self._closed = self._closed or for_good
        done = self._using.acquire(timeout=self.CLOSE_WAIT)
        try:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        finally:
            if done:
                self._using.release()


def _own_connection(datastore: Any) -> dict[str, Any]:
    """How a connection of its own (not the pool's) is made: as the pool's (``Store``: bounded)."""
    return dict(datastore.pool.kwargs or {})


class _Heads:
    """Notifications of new anchors as (duel id, event count), after notification ``after``: the
    thread that iterates listens on a connection of its own (LISTEN) and, woken by a NOTIFY,
    selects on it only the anchors' ids and counts written since, by one prepared statement.
    (``eventsourcing``'s subscription ran two more threads, handed every read from one to the
    other and then to this one, composed its SQL again for every read and fetched each anchor's
    whole state: ~60-90 µs of CPU an append in every worker of the service, for the other's
    appends and its own: issue 25.) Notification ids are committed in order (the writers lock the
    table), so the ones after the last seen are all that is new. A connection lost is made again
    (``RETRIES`` times in a row, then the error is raised), and what was written meanwhile is read
    then."""

    WAIT = 0.1          # seconds between looks at ``stop`` while no notification comes
    LIMIT = 500         # anchors read at a time
    RETRIES = 10        # connections lost in a row before the error is raised
    RETRY_WAIT = 0.2    # seconds before the next try

    def __init__(self, recorder: Any, after: int) -> None:
        from psycopg import sql
        datastore = recorder.datastore
        # TCP keep-alives (``KEEPALIVES``, as every connection's): the connection only listens, so
        # a peer gone without a reset (a server's host lost, a NAT's entry dropped) would stall it
        # silently for good; with them it fails within ~25 s and is made again (``__next__``),
        # what was missed read then.
        self._kwargs = _own_connection(datastore)
        self._configure = datastore.after_connect_func()
        self._listen = sql.SQL("LISTEN {}").format(sql.Identifier(recorder.channel_name))
        self._select = sql.SQL("SELECT notification_id, originator_id, originator_version FROM {} WHERE "
                               "notification_id > %s AND topic = %s ORDER BY notification_id LIMIT %s").format(
            sql.Identifier(datastore.schema, recorder.events_table_name))
        self._mark = f"{HEADS_MARK}{datastore.schema}"       # this store's heads (``HEADS_MARK``)
        # the last said head is there (``_read``): a NOTIFY is anyone's word, not the table's
        self._confirm = sql.SQL("SELECT 1 FROM {} WHERE notification_id = %s AND originator_id = %s AND "
                                "originator_version = %s AND topic = %s").format(
            sql.Identifier(datastore.schema, recorder.events_table_name))
        self._last = after               # the last head taken: read, or said by a NOTIFY
        self._read_last = after          # the last head a read of the table took
        self._said_last: tuple | None = None     # the last head said since that read (``_read`` confirms it)
        self._conn: Any = None
        self._cursor: Any = None
        self._poller: Any = None
        self._heard: deque[Any] = deque()  # notifications libpq handed over during a read (``_hear``)
        self._encoding = "utf-8"
        self._query = b""
        self._heads: list[tuple[str, int]] = []
        self._next = 0
        self._woken = True               # read what was written after ``after`` first
        self._stopped = False

    def __enter__(self) -> "_Heads":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self._close()

    def stop(self) -> None:
        """End the iteration (within ``WAIT`` seconds)."""
        self._stopped = True

    def look(self) -> None:
        """None: nothing to look at before a read, a NOTIFY wakes the iteration by itself
        (``SQLiteHeads.look``, which has none, looks)."""
        return None

    def __iter__(self) -> "_Heads":
        return self

    def __next__(self) -> tuple[str, int]:
        import psycopg
        failures = 0
        while self._next == len(self._heads):
            if self._stopped:
                raise StopIteration
            try:
                conn = self._connection()
                if not self._woken:
                    self._hear(conn)
                if self._woken and not self._stopped:
                    self._read()
                failures = 0
            except psycopg.OperationalError:
                self._close()
                failures += 1
                if failures >= self.RETRIES:
                    raise
                time.sleep(self.RETRY_WAIT)
        head = self._heads[self._next]
        self._next += 1
        return head

    def _hear(self, conn: Any) -> None:
        """Take the NOTIFYs come (``_said``): those a read on the connection received meanwhile
        (``_heard``, by libpq's handler), else those the listening socket brings within ``WAIT``
        seconds (the GIL let go while it waits). libpq's own calls: psycopg's ``notifies()``
        took its lock, a generator and a wait round them, and made each notification twice,
        ~20 µs of Python a wake-up, which every worker's listener pays at every commit of any
        worker's (issue 25). A lost connection raises ``OperationalError`` here as there."""
        pgconn, heard = conn.pgconn, self._heard
        while (notify := pgconn.notifies()) is not None:      # any libpq parsed already
            heard.append(notify)
        if not heard and self._poller.poll(self.WAIT * 1000):
            pgconn.consume_input()
            while (notify := pgconn.notifies()) is not None:
                heard.append(notify)
        while heard:
            self._said(heard.popleft().extra.decode(self._encoding))

    def _said(self, payload: str) -> None:
        """The heads a NOTIFY says (``_PostgresWriter``: ``notification_id version originator_id``
        a line), taken as they are: a select of them by each worker's listener after every write
        of the other's and its own was a round trip, and the server's work, an append (issue
        25). One that says none (too many heads, a writer of another version, eventsourcing's
        own), or any after it until they are read, is read (``_read``): every head written
        after the last one seen, those said since among them (skipped when said: ``_last``)."""
        if self._woken:
            return
        if payload.startswith(HEADS_MARK):
            mark, _, payload = payload.partition("\n")
            if mark != self._mark:       # another schema's store: none of its heads is this one's
                return
        else:                            # eventsourcing's own, an older writer's: read what is new
            payload = ""
        heads, last, said = [], self._last, self._said_last
        try:
            for line in payload.split("\n") if payload else ():
                notification, version, originator = line.split(" ", 2)
                number = int(notification)
                if number <= self._read_last:            # read already: its NOTIFY came after the read
                    continue
                if number <= last:
                    # a head the store numbered at most one a NOTIFY said before it: their
                    # NOTIFYs come in the order they were committed, numbered so (the writers lock
                    # the table), so that one was anyone's word, not this store's (any role that
                    # may connect may NOTIFY): what was taken since the last read is read again
                    self._last, self._said_last = self._read_last, None
                    payload = ""
                    break
                last, said = number, (number, originator, int(version))
                heads.append((originator.removesuffix("/head"), int(version)))
        except ValueError:
            payload = ""
        if not payload:
            self._woken = True
            return
        if self._next == len(self._heads):
            self._heads, self._next = [], 0
        self._heads += heads
        self._last, self._said_last = last, said

    def _read(self) -> None:
        """The anchors written after the last one seen (``LIMIT`` at most: the next call reads on).
        The last one a NOTIFY said since the last read is looked up first: not there as said
        (a forged NOTIFY, numbered past the store's own appends), what was taken since that read
        is read again, never skipped."""
        if self._said_last is not None:
            number, originator, version = self._said_last
            if self._cursor.execute(self._confirm, (number, originator, version, HEAD_TOPIC)).fetchone() is None:
                self._last = self._read_last
            self._said_last = None
        rows = self._cursor.execute(self._query, (self._last, HEAD_TOPIC, self.LIMIT), prepare=True).fetchall()
        # handled only once read: a read that fails (the hub iterates again) reads again, not at the next NOTIFY
        self._woken = len(rows) == self.LIMIT
        self._read_last = self._last
        if rows:
            self._last = self._read_last = rows[-1][0]
            self._heads = [(str(originator).removesuffix("/head"), version) for _, originator, version in rows]
            self._next = 0

    def _connection(self) -> Any:
        """The listening connection, made (and listening) now if there is none: anything written
        while there was none is read next."""
        if self._conn is None:
            import psycopg
            from psycopg.rows import tuple_row
            conn = _bounded().connect(**self._kwargs)
            try:
                self._configure(conn)
                conn.execute(self._listen)
            except BaseException:
                conn.close()
                raise
            self._conn, self._woken = conn, True
            self._cursor = conn.cursor(row_factory=tuple_row)     # one for every read: rows as tuples
            self._poller = select.poll()                          # its socket, waited on by ``_hear``
            self._poller.register(conn.pgconn.socket, select.POLLIN)
            self._encoding = conn.info.encoding
            self._heard.clear()                                   # a new connection's: anything missed is read
            conn.pgconn.notify_handler = self._heard.append       # not psycopg's: its copies went unread
            self._query = self._select.as_bytes(conn)             # composed once, not at every read
        return self._conn

    def _close(self) -> None:
        conn, self._conn, self._cursor = self._conn, None, None
        if conn is not None:
            conn.close()

