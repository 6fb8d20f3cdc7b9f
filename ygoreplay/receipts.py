"""Receipts and witnesses: what proves a stored duel is not behind what it once held.

A store's signed anchors prove that what it holds was written by the organiser, not that it is
the newest state of itself: someone with write access to the store file (and no key) can delete
the last append's events and the anchors after them, and the store still verifies, a duel's end
gone. What the record promised must be kept outside the store:

* **Receipts.** Every write answers with a receipt signed by the organiser key, a small JSON
  object whose shape is stable (``version`` 1)::

      {"receipt": "ygoreplay/receipt", "version": 1, "duel": "3f9a0c1b2d4e", "events": 61,
       "head": "<64 hex digits: the chain hash after event #60, or the root for 0 events>",
       "time": "2026-12-02T00:48:34.123+00:00", "key": "ed25519:<base64url>",
       "signature": "<base64url Ed25519 signature>"}

  The signature covers ``ygoreplay/receipt/1\\0`` and the msgpack list ``[duel, events, head
  bytes, time]``. A receipt of ``version`` 2 is signed with its append's group commit (issue 25:
  one signature a group, not one more an append): its message ``ygoreplay/receipt/2\\0`` and the
  same list is a leaf of the Merkle tree of the group's anchors and receipts, and it carries
  its audit path (``"path"``, base64url, and ``"left"``, as an anchor's: ``signing.tree``); the
  signature covers the tree's root as the group's anchors' does. A receipt of either version
  proves the same; version 1 is still issued where no group signs (a store without a group
  commit, a witness, ``GET /receipt``) and read. A round's receipt (the head of its seal,
  ``rounds``) says ``"kind": "round"``, and its message ends with it (``signing.receipt_message``):
  no round's receipt is taken for a duel's, nor a duel's for a round's. Whoever keeps it (the recorder's client, the CLI's ``--receipt FILE``) can later
  prove a store that holds fewer events, or other ones: ``verify --receipt``.
* **A witness** (``--witness URL``: a SQLite file or a PostgreSQL URL, ``?schema=`` naming its
  schema) is a second store that keeps every receipt as it is issued. A store compared with its
  witness is NOT ok when it lacks the witnessed head: no receipt is needed. The witness is named
  outside the store (an option or ``$YGOREPLAY_WITNESS``), so whoever edits the store cannot
  unname it. A witness that cannot be reached when it is opened (a command, ``serve``) stops
  there, nothing written: a mistyped URL never runs a tournament unwitnessed. One lost later does
  not stop the appends: the store is the record and a tournament goes on; each append is
  reported *unwitnessed* (``witnessed: false``) and the next one that reaches the witness covers
  it again (its head commits to every event before it). Between the two, only a receipt proves
  those events. With a witness named, nothing is appended onto a duel behind it.
"""
from __future__ import annotations

import base64
import binascii
import json
import os
import sqlite3
import threading
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import parse_qs, unquote, urlparse

from . import chain
from .errors import InputError, StoreError, VerificationError
from .files import mode_for, read_limited, write_atomic
from .signing import (HASH_SIZE, MAX_PATH, PREFIX, SIGNATURE_SIZE, STREAM_RECEIPT, OrganiserKey, PublicKey,
                      check_path, receipt_message, root_of)
from .store.opening import own_schema
from .store.reading import Store
from .store.records import _GROUP_LABEL, _SCHEMA_NAME
from .store.verifying import Verification
from .i18n import N_, say

WITNESS_ENV = "YGOREPLAY_WITNESS"
KIND, VERSIONS = "ygoreplay/receipt", (1, 2)
#: What a receipt may be of (``Receipt.kind``): a stream's head (a duel's, a match's), a round's seal.
ROUND_RECEIPT = "round"
RECEIPT_KINDS = (STREAM_RECEIPT, ROUND_RECEIPT)
_TABLE = "ygoreplay_witness"
MAX_RECEIPT_FILE = 1 << 20
MAX_RECEIPT_FILES = 100_000          # in one folder given to verify --receipt
MAX_EVENTS = 10 ** 12                    # a count any store can hold, and any backend can compare


#: base64's alphabet to base64url's (``base64.urlsafe_b64encode``'s own table)
_URLSAFE = bytes.maketrans(b"+/", b"-_")


def _b64(data: bytes) -> str:
    """``data`` in base64url with no padding: ``base64.urlsafe_b64encode`` in one C call, not
    three Python ones (a receipt's two fields, every append's answer: issue 25)."""
    return binascii.b2a_base64(data, newline=False).translate(_URLSAFE).rstrip(b"=").decode()


def _unb64(text: object, most: int) -> bytes:
    """The bytes of base64url ``text``, refused (ValueError) past the length ``most`` bytes take,
    before anything is decoded: a hostile receipt's field of megabytes is never expanded."""
    if not isinstance(text, str) or len(text) > -(-most // 3) * 4:
        raise ValueError(f"a base64url field of at most {most} bytes, not "
                         f"{len(text) if isinstance(text, str) else type(text).__name__} characters")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class Receipt:
    """A signed statement: duel ``duel`` held ``events`` events ending in ``head`` at ``time``.
    ``witnessed`` says whether its witness took it (None: no witness); it is not signed.
    ``path`` and ``left``: its audit path to the root its group commit signed (version 2),
    None for a receipt signed alone (version 1). ``kind``: what ``duel`` names (``RECEIPT_KINDS``),
    signed with it."""

    duel: str
    events: int
    head: bytes
    time: str
    key: PublicKey
    signature: bytes
    witnessed: bool | None = field(default=None, compare=False)
    path: bytes | None = None
    left: int = 0
    kind: str = STREAM_RECEIPT

    @property
    def version(self) -> int:
        return 1 if self.path is None else 2

    @classmethod
    def issue(cls, key: OrganiserKey, duel: str, events: int, head: bytes, kind: str = STREAM_RECEIPT) -> "Receipt":
        """A receipt signed alone (version 1)."""
        time = chain.now()
        return cls(duel, events, head, time, key.public, key.sign(receipt_message(1, duel, events, head, time, kind)),
                   kind=kind)

    @cached_property
    def valid(self) -> bool:
        """Whether its signature holds: over its message (version 1), or over the root its audit
        path leads to from its message (version 2), as the group's anchors' does. Checked once
        a receipt (``verify`` asks it of each promise twice: what it doubts, and what it holds)."""
        message = receipt_message(self.version, self.duel, self.events, self.head, self.time, self.kind)
        if self.path is None:
            return self.key.verify(self.signature, message)
        try:
            root = root_of(message, self.path, self.left)
        except ValueError:                     # a path not in ``signing.tree``'s form leads to no root
            return False
        return self.key.verify(self.signature, _GROUP_LABEL + root)

    def to_dict(self) -> dict:
        out = {"receipt": KIND, "version": self.version, "duel": self.duel, "events": self.events,
               "head": self.head.hex(), "time": self.time, "key": self.key.text, "signature": _b64(self.signature)}
        if self.path is not None:
            out["path"], out["left"] = _b64(self.path), self.left
        if self.kind != STREAM_RECEIPT:
            out["kind"] = self.kind
        return out

    @classmethod
    def from_dict(cls, data: Any, where: str = "the receipt") -> "Receipt":
        """A receipt read back, its fields checked (its signature is ``valid``'s business)."""
        if not isinstance(data, dict) or data.get("receipt") != KIND:
            raise InputError(say("{where}: not a ygoreplay receipt (a JSON object with \"receipt\": \"{KIND}\")",
                                 where=where, KIND=KIND))
        version = data.get("version")
        if type(version) is not int or version not in VERSIONS:
            raise InputError(say("{where}: receipt version {version!r}; this program reads {names_list}",
                                 where=where, version=version, names_list=' and '.join(map(str, VERSIONS))))
        try:
            if not (isinstance(data["head"], str) and len(data["head"]) == 64):
                raise ValueError("head is 64 hex digits")
            duel, events, head, time = data["duel"], data["events"], bytes.fromhex(data["head"]), data["time"]
            key, signature = data["key"], _unb64(data["signature"], SIGNATURE_SIZE)
            kind = data.get("kind", STREAM_RECEIPT)
            if not (isinstance(duel, str) and 0 < len(duel) <= 200 and isinstance(time, str) and len(time) <= 64
                    and isinstance(kind, str) and kind in RECEIPT_KINDS
                    and isinstance(events, int) and not isinstance(events, bool) and 0 <= events <= MAX_EVENTS
                    and len(head) == 32 and isinstance(key, str) and key.startswith(PREFIX) and len(key) <= 100):
                raise ValueError("a field has the wrong type or is out of range")
            chain.to_ms(time)
            path, left = None, 0
            if version == 2:                     # its audit path, in ``signing.tree``'s form
                path, left = _unb64(data["path"], MAX_PATH * HASH_SIZE), data["left"]
                check_path(path, left)
            elif "path" in data or "left" in data:
                raise ValueError("a receipt of version 1 is signed alone: it has no audit path")
            return cls(duel, events, head, time, PublicKey.parse(key), signature, path=path, left=left, kind=kind)
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InputError(say("{where}: a receipt needs duel, events, head (64 hex digits), time, key and "
                                 "signature, and of version 2 its path and left ({kind}: {exc})",
                                 where=where, kind=type(exc).__name__, exc=exc)) from None

    def fields(self) -> dict:
        """What a write answers besides its own result: the receipt and whether it was witnessed."""
        return {"receipt": self.to_dict(), "witnessed": self.witnessed}


def read_receipts(paths: Iterable[str | os.PathLike[str]]) -> list[Receipt]:
    """The receipts in these files (one JSON object or an array of them each) and folders (every
    ``*.json`` file in it)."""
    out: list[Receipt] = []
    for spec in paths:
        path = Path(spec)
        files = sorted(path.glob("*.json")) if path.is_dir() else [path]
        if len(files) > MAX_RECEIPT_FILES:
            raise InputError(say("{path}: more than {MAX_RECEIPT_FILES:,} receipt files; give a folder of one duel's",
                                 path=path, MAX_RECEIPT_FILES=MAX_RECEIPT_FILES))
        for file in files:
            raw = read_limited(file, MAX_RECEIPT_FILE, "receipt file")
            try:
                data = json.loads(raw)
            except (ValueError, UnicodeDecodeError, RecursionError) as exc:
                raise InputError(say("{file}: not JSON ({exc})", file=file, exc=exc)) from None
            out += [Receipt.from_dict(item, str(file)) for item in (data if isinstance(data, list) else [data])]
    return out


def save_receipt(receipt: Receipt, path: str | os.PathLike[str]) -> Path:
    """Write a receipt to ``path``, or into it as ``<duel>-<events>.json`` when it is a folder (its
    owner's alone: it names the record's head, which the service signs for its judge and recorder)."""
    target = Path(path)
    if target.is_dir():
        target = target / f"{receipt.duel}-{receipt.events}.json"
    write_atomic(target, (json.dumps(receipt.to_dict(), indent=1) + "\n").encode(), mode_for("judge"))
    return target


class Witness:
    """A second store that keeps every receipt as it is issued: a SQLite file or a PostgreSQL
    database (``?schema=`` names the schema; its table is ``ygoreplay_witness``). Beside a store
    opened read-only (``verify``, ``audit``, ``list``) it is read-only too: it must exist and is
    never created, changed or given a table (a mistyped name is said, not made). A SQLite file it
    creates is its owner's alone (``files.mode_for``): it holds every duel's head, as a receipt."""

    def __init__(self, url: str, store: Store | None = None) -> None:
        parsed = urlparse(url)
        self.url = url
        self.postgres = parsed.scheme in ("postgresql", "postgres")
        self.schema = parse_qs(parsed.query).get("schema", ["public"])[-1] if self.postgres else ""
        if self.postgres and not _SCHEMA_NAME.match(self.schema):
            raise InputError(say("witness URL {url!r}: schema {schema!r} is not a plain name (letters, digits, _)",
                                 url=url, schema=self.schema))
        if not self.postgres and parsed.scheme not in ("", "sqlite", "file") and len(parsed.scheme) > 1:
            raise InputError(say("unknown witness URL {url!r}: use a file path, sqlite:///path or postgresql://...",
                                 url=url))
        self.name = (f"{parsed.hostname or '127.0.0.1'}:{parsed.port or 5432}/{unquote(parsed.path.lstrip('/'))}"
                     + (f"?schema={self.schema}" if self.schema != "public" else "")) if self.postgres else url
        self._parsed = parsed
        if store is not None and self._is(store):
            raise InputError(say("the witness {name} is the store itself: whoever cuts the store back cuts its "
                                 "witness with it (name another file or database)", name=self.name))
        self.readonly = store is not None and store.readonly
        self._conn: Any = None
        self._lock = threading.Lock()
        with self._lock:
            self._run(lambda conn: None)          # reachable now, its table made: or say why not

    def _path(self) -> Path:
        return Path(unquote(self._parsed.path) if self._parsed.scheme in ("sqlite", "file") else self.url).expanduser()

    def _is(self, store: Store) -> bool:
        """Whether this witness would be kept in ``store`` itself (its file, or its database and schema)."""
        if self.postgres:
            return store.backend == "postgresql" and store.name.split("://", 1)[-1] == self.name
        if store.backend != "sqlite":
            return False
        try:
            return self._path().resolve() == Path(store.name).resolve() or self._path().samefile(store.name)
        except OSError:                        # no witness file yet: not the store's
            return False

    def _connect(self) -> Any:
        if self.postgres:
            import psycopg
            p = self._parsed
            conn = psycopg.connect(dbname=unquote(p.path.lstrip("/")) or "postgres", host=p.hostname or "127.0.0.1",
                                   port=p.port or 5432, user=unquote(p.username or "postgres"),
                                   password=unquote(p.password) if p.password else None, connect_timeout=5,
                                   autocommit=True)
            if self.readonly:
                conn.execute(f'SELECT 1 FROM "{self.schema}".{_TABLE} LIMIT 0')
                return conn
            conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
            conn.execute(f'CREATE TABLE IF NOT EXISTS "{self.schema}".{_TABLE} (duel TEXT NOT NULL, events BIGINT '
                         'NOT NULL, head BYTEA NOT NULL, time TEXT NOT NULL, key BYTEA NOT NULL, signature BYTEA '
                         'NOT NULL, PRIMARY KEY (duel, events))')
            return conn
        path = self._path()
        if path.is_dir():
            raise StoreError(say("the witness {path} is a folder, not a file", path=path))
        if path.exists() and not path.is_file():        # a pipe, a device: "does not exist" said of it
            raise StoreError(say("the witness {path} is not a regular file", path=path))
        if self.readonly:
            if not path.is_file():
                raise StoreError(say("the witness {path} does not exist (a command that only reads creates "
                                     "none)", path=path))
            conn = _own(sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, timeout=10,
                                        check_same_thread=False, isolation_level=None), path, None)
            conn.execute(f"SELECT 1 FROM {_TABLE} LIMIT 0")
            return conn
        if not path.exists():
            # readable by its owner only: a receipt's head is the judge's (``mode_for``)
            os.close(os.open(path, os.O_CREAT | os.O_WRONLY, mode_for("judge")))
        conn = _own(sqlite3.connect(path, timeout=10, check_same_thread=False, isolation_level=None), path, frozenset())
        conn.execute(f"CREATE TABLE IF NOT EXISTS {_TABLE} (duel TEXT NOT NULL, events INTEGER NOT NULL, "
                     "head BLOB NOT NULL, time TEXT NOT NULL, key BLOB NOT NULL, signature BLOB NOT NULL, "
                     "PRIMARY KEY (duel, events))")
        return conn

    @property
    def _table(self) -> str:
        return f'"{self.schema}".{_TABLE}' if self.postgres else _TABLE

    def _run(self, work: Any) -> Any:
        """``work(connection)``: PostgreSQL's connection is kept (and opened again after a
        failure), a SQLite file is opened for each use. StoreError naming the witness when it
        cannot be reached or refuses."""
        try:
            conn = self._conn or self._connect()
            try:
                return work(conn)
            finally:
                if self.postgres:
                    self._conn = conn
                else:
                    conn.close()
        except StoreError:
            raise
        except Exception as exc:               # psycopg.Error, sqlite3.Error, OSError: unreachable
            self.close()
            raise StoreError(say("the witness {name} cannot be reached: {join}",
                                 name=self.name, join=' '.join(str(exc).split()))) from None

    def _sql(self, statement: str) -> str:
        return statement.format(t=self._table).replace("?", "%s" if self.postgres else "?")

    def record(self, *receipts: Receipt) -> None:
        """Keep receipts, in one transaction (the same one twice is kept once). StoreError when
        unreachable."""
        rows = [(r.duel, r.events, r.head, r.time, r.key.raw, r.signature) for r in receipts]
        insert = self._sql("INSERT INTO {t} (duel, events, head, time, key, signature) VALUES (?, ?, ?, ?, ?, ?) "
                           "ON CONFLICT (duel, events) DO NOTHING")

        def kept(conn: Any) -> None:
            if self.postgres:
                with conn.transaction(), conn.cursor() as cursor:
                    cursor.executemany(insert, rows)
                return
            conn.execute("BEGIN IMMEDIATE")           # autocommit: one commit for them all
            conn.executemany(insert, rows)
            conn.execute("COMMIT")
        with self._lock:
            self._run(kept)

    def latest(self, duel: str, kind: str = STREAM_RECEIPT) -> Receipt | None:
        """The receipt of the duel's longest witnessed head, or None when none was witnessed;
        ``kind``: what ``duel`` names (``RECEIPT_KINDS``: a round's id), which its table does not
        keep beside it (``as_kind``)."""
        with self._lock:
            row = self._run(lambda conn: conn.execute(self._sql(
                "SELECT duel, events, head, time, key, signature FROM {t} WHERE duel = ? "
                "ORDER BY events DESC LIMIT 1"), (duel,)).fetchone())
        if row is None:
            return None
        try:
            # a TEXT (or an INTEGER: ``bytes(n)`` is n zero bytes) written into the file is refused
            if type(row[1]) is not int or not all(isinstance(row[i], (bytes, bytearray, memoryview)) for i in (2, 4, 5)):
                raise InputError("not a receipt's values")
            return as_kind(Receipt(row[0], row[1], bytes(row[2]), row[3], PublicKey(bytes(row[4])), bytes(row[5])),
                           kind)
        except InputError:
            raise StoreError(say("the witness {name}: its head of duel {duel} cannot be read",
                                 name=self.name, duel=duel)) from None

    def close(self) -> None:
        """Close PostgreSQL's connection (called with the lock held, or when no one uses it)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:                  # already broken: nothing to close
                pass


def as_kind(receipt: Receipt, kind: str) -> Receipt:
    """A witnessed receipt read as one of ``kind``. A round's receipt witnessed before receipts
    named their kind was signed in a stream's form (no kind in its message): where its
    signature holds only so, it is read as it was signed (its head is the round seal's all the
    same, which ``rounds.verify_round`` compares: no duel's head is). A round's receipt signed
    with its kind is never read as a duel's: its signature holds for its kind only."""
    typed = replace(receipt, kind=kind)
    if kind != STREAM_RECEIPT and not typed.valid and receipt.valid:
        return receipt
    return typed


def _own(conn: sqlite3.Connection, path: Path, triggers: frozenset[str] | None) -> sqlite3.Connection:
    """``conn`` to a witness file whose table is stored, not computed, and that runs no trigger of
    its own when written (``store.own_schema``); closed and StoreError when not."""
    try:
        own_schema(conn, path, (_TABLE,), triggers)
    except BaseException:
        conn.close()
        raise
    return conn


def witness_from(url: str | None, store: Store | None = None) -> Witness | None:
    """The witness named by ``url`` (else ``$YGOREPLAY_WITNESS``), or None when there is none;
    never ``store`` itself."""
    url = url or os.environ.get(WITNESS_ENV)
    return Witness(url, store) if url else None


def issue(store: Store, duel: str, events: int, head: bytes | None, witness: Witness | None) -> Receipt:
    """The receipt of a write that left ``duel`` with ``events`` events (``head``: the chain hash
    then; when None, the one its signed anchor at ``events`` names: ``Store.vouched_hash``),
    signed with the store's key and given to the witness. A witness that cannot be reached
    leaves the receipt unwitnessed; the write stands. Signed with its append's group commit
    (version 2) when that append asked for it (``Records.append_records``' ``receipted``, the one
    decision: not where a witness keeps receipts, its table holding no audit path), else alone."""
    return issue_all(store, [(duel, events, head)], witness)[0]


def issue_all(store: Store, heads: Iterable[tuple[str, int, bytes | None]], witness: Witness | None,
              also: Iterable[Receipt] = ()) -> list[Receipt]:
    """``issue`` of each head (stream, events, chain hash or None), given to the witness at once:
    one transaction, not one a head (a round's thousand matches made together: each its own
    commit to a SQLite witness, ~25 ms of waiting a table, issue 25); ``also``, receipts signed
    already (a round's seal: ``rounds.create_round``), given in the same transaction."""
    made = [_signed(store, *each) for each in heads]
    given = [receipt for receipt, witnessed in made if witnessed] + list(also)
    if witness is None or not given:
        return [receipt for receipt, _witnessed in made]
    try:
        witness.record(*given)
        kept = True
    except StoreError:
        kept = False
    return [replace(receipt, witnessed=kept) if witnessed else receipt for receipt, witnessed in made]


def _signed(store: Store, duel: str, events: int, head: bytes | None) -> tuple[Receipt, bool]:
    """The receipt of one head (``issue``), and whether a witness keeps it (not one signed with its
    append's group commit)."""
    if head is not None:
        proof = store.receipt_proof(duel, events, head)      # kept for a receipted append only
        if proof is not None:
            time, signature, path, left = proof
            return Receipt(duel, events, head, time, store.key.public, signature, path=path, left=left), False
    head = head or store.vouched_hash(duel, events)
    if head is None:
        raise VerificationError(say("duel {duel}: no signed anchor at {events} events names its header (altered in "
                                    "the database, or events removed); no receipt is signed for it. Run 'ygoreplay "
                                    "verify'", duel=duel, events=events))
    return Receipt.issue(store.key, duel, events, head), True


@dataclass(frozen=True)
class Promise:
    """A head the store once held, by what proves it (a receipt, or the witness)."""

    receipt: Receipt
    by: str                                 # "a receipt" or "its witness"


def doubt(store: Store, promise: Promise) -> str:
    """Why a receipt or the witness's head cannot be believed ("" when it can): its key is not
    one the store trusts, or its signature does not hold. Such a promise proves nothing either
    way: the store is not judged by it, and the doubt is said for what it is."""
    r = promise.receipt
    if store.trusts(r.key.raw) is None:
        return (f"{promise.by} for {r.events} events is signed by key {r.key.fingerprint}, not a key trusted "
                "here (pass --key)")
    if not r.valid:
        return f"the signature of {promise.by} for {r.events} events does not hold: it was altered"
    return ""


def behind(store: Store, duel: str, promises: Iterable[Promise]) -> str:
    """Why the store is behind (or beside) a promised head it can believe (``doubt``), or ""
    when it holds every one. A round's receipt (``kind``) promises no stream's head."""
    for promise in promises:
        r = promise.receipt
        if r.duel != duel or r.kind != STREAM_RECEIPT or doubt(store, promise):
            continue
        held = store.hash_at(duel, r.events)
        if held is None:
            count = store.info(duel).events
            return (f"the store holds {count} events but {promise.by} signed at {r.time} promises {r.events} "
                    f"with head {r.head.hex()[:16]}: events were removed")
        if held != r.head:
            return (f"the events up to {r.events} are not the ones {promise.by} signed at {r.time} (head "
                    f"{r.head.hex()[:16]}): the record was cut back and written again")
    return ""


def behind_witness(store: Store, stream: str, witness: Witness | None) -> str:
    """Why the stored stream (a duel, a match) is behind the head its witness kept ("" when it is
    not, or there is no witness): read from its head only."""
    witnessed = witness.latest(stream) if witness is not None else None
    return behind(store, stream, [Promise(witnessed, "its witness")]) if witnessed else ""


def not_behind(store: Store, stream: str, witness: Witness | None, refused: str = N_("nothing was appended"),
               *, match: bool = False) -> None:
    """Nothing is appended onto, nor a receipt signed for, a stream behind the head its witness
    kept (cut back): that would bury the cut under new signed anchors, or have the organiser's
    key vouch for it. A witness out of reach does not stop it. The one check of every writer: a
    duel's (``Records``), a match's and the duels its write ends (``match.commands.record``);
    ``match``: the stream is a match, and the refusal says so."""
    try:
        problem = behind_witness(store, stream, witness)
    except StoreError:
        return
    if problem and match:
        raise VerificationError(say("match {match_id}: {problem}; {refused}. Run 'ygoreplay verify'",
                                    match_id=stream, problem=problem, refused=refused))
    if problem:
        raise VerificationError(say("duel {duel_id}: {problem}; {refused}. Run 'ygoreplay verify'",
                                    duel_id=stream, problem=problem, refused=refused))


def verify(store: Store, duel: str, receipts: Iterable[Receipt] = (), witness: Witness | None = None,
           result: Verification | None = None) -> tuple[Verification, Receipt | None]:
    """The store's own verification (``result`` when already made), then the receipts' heads and
    the witness's latest head (also returned): a store behind any of them is NOT ok, the first
    missing event named."""
    result = result or store.verify(duel)
    witnessed = witness.latest(duel) if witness is not None else None
    if not result.ok:
        return result, witnessed
    # one check a receipt, however often it is given: a request's 1,000 copies of one cost 1,000
    # signatures and reads of the store (twice the signatures), anyone's to ask of a public duel
    promises = list(dict.fromkeys(Promise(r, "a receipt") for r in receipts))
    if witnessed is not None:
        promises.append(Promise(witnessed, "its witness"))
    doubts = [said for said in (doubt(store, p) for p in promises if p.receipt.duel == duel) if said]
    problem = behind(store, duel, promises)
    if problem:
        return Verification(False, result.events, result.events, problem, result.signer, doubts[0] if doubts else ""), \
            witnessed
    return (replace(result, doubt=doubts[0]) if doubts else result), witnessed
