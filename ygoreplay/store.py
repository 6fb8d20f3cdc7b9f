"""The event store: one stream per duel, on the ``eventsourcing`` library's recorders.

Each duel is an aggregate stream in an ``ApplicationRecorder``: its first record (version 0) is a
header (title, parent and branch point, when it was created); the event at stream position ``i``
is version ``i + 1``. Records are msgpack envelopes ``{"e": event, "t": recorded at, "p": previous
hash, "h": own hash}``, so the stream is a hash chain that ``verify`` checks end to end. Two writers
at the same position collide on the recorder's primary key: one wins, the other gets
``ConflictError`` and nothing is lost or written twice.

Every append is checked by the same rules fold as ``check`` before it is written. Snapshots of
the fold (plain data, never pickle) are kept every ``SNAPSHOT_EVERY`` events in a second recorder,
so any position is reached by loading one snapshot and folding fewer than that many events.

SQLite is the embedded default (a file at ``default_store_path()``); a ``postgresql://`` URL
selects the ``eventsourcing`` PostgreSQL recorders, shared by many processes and machines.
"""
from __future__ import annotations

import hashlib
import os
import secrets
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable
from urllib.parse import unquote, urlparse

import msgpack
from eventsourcing.persistence import (
    ApplicationRecorder, InfrastructureFactory, IntegrityError, PersistenceError, StoredEvent)
from eventsourcing.utils import Environment

from .cards import CardDB
from .events import Event, from_dict
from .rules import History
from .state import DuelState

ENV_VAR = "YGOREPLAY_STORE"
HEADER_TOPIC = "ygoreplay:duel"
SNAPSHOT_TOPIC = "ygoreplay:snapshot"
FORMAT = 1
SNAPSHOT_EVERY = 32
_GENESIS = b"\x00" * 32


class StoreError(Exception):
    """A store problem a user can act on: unreachable database, unknown duel, broken record."""


class ConflictError(StoreError):
    """Another writer appended at the same position first; nothing of this append was written."""


def default_store_path() -> Path:
    """Where the embedded SQLite store lives unless ``--store`` or $YGOREPLAY_STORE says otherwise."""
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "ygoreplay" / "duels.sqlite"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _hash(prev: bytes, body: list) -> bytes:
    return hashlib.sha256(prev + msgpack.packb(body)).digest()


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
    id: str
    title: str
    created: str
    parent: str | None
    branch_at: int | None


@dataclass(frozen=True)
class Verification:
    """The result of checking a duel's hash chain: where the first broken link is, and why."""

    ok: bool
    events: int
    first_bad: int | None = None
    problem: str = ""


def _environment(url: str | None) -> tuple[Environment, str]:
    """The ``eventsourcing`` environment for a store URL, and a printable name for it."""
    url = url or os.environ.get(ENV_VAR) or str(default_store_path())
    parsed = urlparse(url)
    if parsed.scheme in ("postgresql", "postgres"):
        env = {"PERSISTENCE_MODULE": "eventsourcing.postgres", "CREATE_TABLE": "y",
               "ORIGINATOR_ID_TYPE": "text",
               "POSTGRES_DBNAME": unquote(parsed.path.lstrip("/")) or "postgres",
               "POSTGRES_HOST": parsed.hostname or "127.0.0.1",
               "POSTGRES_PORT": str(parsed.port or 5432),
               "POSTGRES_USER": unquote(parsed.username or "postgres"),
               "POSTGRES_PASSWORD": unquote(parsed.password or ""),
               "POSTGRES_CONNECT_TIMEOUT": "5", "POSTGRES_POOL_SIZE": "4"}
        schema = dict(p.split("=", 1) for p in parsed.query.split("&") if "=" in p).get("schema")
        if schema:
            env["POSTGRES_SCHEMA"] = schema
            _create_schema(env, schema)
        return Environment("ygoreplay", env), f"{parsed.scheme}://{parsed.hostname}/{env['POSTGRES_DBNAME']}"
    path = Path(parsed.path if parsed.scheme == "sqlite" else url).expanduser()
    if parsed.scheme not in ("", "sqlite", "file") and len(parsed.scheme) > 1:
        raise StoreError(f"unknown store URL {url!r}: use a file path, sqlite:///path or postgresql://...")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the store folder {path.parent}: {exc.strerror}") from None
    env = {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "CREATE_TABLE": "y",
           "ORIGINATOR_ID_TYPE": "text", "SQLITE_DBNAME": str(path), "SQLITE_LOCK_TIMEOUT": "10"}
    return Environment("ygoreplay", env), str(path)


def _create_schema(env: dict, schema: str) -> None:
    """A ``?schema=`` URL names a PostgreSQL schema of its own (e.g. one per test run)."""
    import psycopg
    from psycopg import sql
    try:
        with psycopg.connect(dbname=env["POSTGRES_DBNAME"], host=env["POSTGRES_HOST"],
                             port=env["POSTGRES_PORT"], user=env["POSTGRES_USER"],
                             password=env["POSTGRES_PASSWORD"] or None, connect_timeout=5,
                             autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
    except psycopg.Error as exc:
        raise StoreError(f"cannot reach PostgreSQL at {env['POSTGRES_HOST']}:{env['POSTGRES_PORT']}: {exc}") from None


class Store:
    """Duels recorded as event streams; append, read, rewind, branch, roll back, verify."""

    def __init__(self, url: str | None = None, cards: CardDB | None = None) -> None:
        env, self.name = _environment(url)
        self.cards = cards or CardDB.classic()
        for attempt in range(3):       # concurrent first opens race to create the same tables
            try:
                self.factory = InfrastructureFactory.construct(env)
                self.events: ApplicationRecorder = self.factory.application_recorder()
                self.snapshots = self.factory.aggregate_recorder("snapshots")
                break
            except (PersistenceError, OSError, ImportError, sqlite3.Error) as exc:
                if attempt == 2 or "concurrently" not in str(exc):
                    raise StoreError(f"cannot open the store {self.name}: {exc}") from None
        self._live: dict[str, History] = {}     # duel id -> the fold at its head, for appends
        self._head_hash: dict[str, bytes] = {}

    def close(self) -> None:
        self.factory.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- duels ------------------------------------------------------------------------------------

    def create_duel(self, title: str = "", *, parent: str | None = None,
                    branch_at: int | None = None) -> str:
        duel_id = secrets.token_hex(6)
        header = {"format": FORMAT, "title": title, "created": _now(), "parent": parent,
                  "branch_at": branch_at}
        envelope = {"header": header, "h": _hash(_GENESIS, [header])}
        self._insert([StoredEvent(duel_id, 0, HEADER_TOPIC, msgpack.packb(envelope))])
        return duel_id

    def duels(self) -> list[DuelInfo]:
        """Every duel in the store, oldest first."""
        out, start = [], 1
        while True:
            batch = self.events.select_notifications(start, 500, topics=[HEADER_TOPIC])
            for n in batch:
                out.append(self._info(str(n.originator_id), n.state))
            if len(batch) < 500:
                return out
            start = batch[-1].id + 1

    def info(self, duel_id: str) -> DuelInfo:
        rows = self.events.select_events(duel_id, lte=0)
        if not rows:
            raise StoreError(f"no duel {duel_id!r} in {self.name}")
        return self._info(duel_id, rows[0].state)

    def resolve(self, prefix: str) -> str:
        """A duel id from an unambiguous prefix of it."""
        matches = [d.id for d in self.duels() if d.id.startswith(prefix)]
        if len(matches) != 1:
            raise StoreError(f"{'no' if not matches else 'more than one'} duel matches {prefix!r} in {self.name}")
        return matches[0]

    def header_hash(self, duel_id: str) -> bytes:
        """The hash the duel's chain starts from (its header's)."""
        rows = self.events.select_events(duel_id, lte=0)
        if not rows:
            raise StoreError(f"no duel {duel_id!r} in {self.name}")
        return msgpack.unpackb(rows[0].state)["h"]

    @staticmethod
    def _info(duel_id: str, state: bytes) -> DuelInfo:
        try:
            header = msgpack.unpackb(state)["header"]
            return DuelInfo(duel_id, str(header["title"]), str(header["created"]), header["parent"],
                            header["branch_at"])
        except (ValueError, KeyError, TypeError, AttributeError):   # tampered: ``verify`` says so
            return DuelInfo(duel_id, "(unreadable header)", "", None, None)

    # -- appending --------------------------------------------------------------------------------

    def append(self, duel_id: str, events: Event | Iterable[Event], *,
               expected_position: int | None = None, times: list[str] | None = None) -> int:
        """Check and append events at the head; returns the new length. All or nothing.

        Raises RuleViolation (nothing written) for an illegal event, ConflictError when another
        writer got there first, or when ``expected_position`` is not the head. ``times`` keeps
        the recording times of an imported record (default: now).
        """
        events = [events] if isinstance(events, Event) else list(events)
        if times is not None and len(times) != len(events):
            raise ValueError("one recording time per event")
        history, prev = self._head(duel_id)
        start = history.position
        if expected_position is not None and expected_position != start:
            raise ConflictError(f"duel {duel_id} has {start} events, not {expected_position}: someone else appended")
        rows, snapshots = [], []
        try:
            for i, event in enumerate(events):
                history.append(event)                 # raises RuleViolation before anything is written
                body = [history.position - 1, event.to_dict(), times[i] if times else _now()]
                digest = _hash(prev, body)
                rows.append(StoredEvent(duel_id, history.position, event.kind,
                                        msgpack.packb({"e": body[1], "t": body[2], "p": prev, "h": digest})))
                prev = digest
                if history.position % SNAPSHOT_EVERY == 0:    # every boundary, even inside a batch
                    snapshots.append(StoredEvent(duel_id, history.position, SNAPSHOT_TOPIC,
                                                 msgpack.packb(history.to_data())))
            self._insert(rows)
        except BaseException:
            self._live.pop(duel_id, None)             # the cached fold may hold unwritten events
            raise
        self._head_hash[duel_id] = prev
        for row in snapshots:
            self._write_snapshot(row)
        return history.position

    def _insert(self, rows: list[StoredEvent]) -> None:
        try:
            self.events.insert_events(rows)
        except IntegrityError:
            for row in rows:
                self._live.pop(str(row.originator_id), None)
            raise ConflictError(
                f"duel {rows[0].originator_id}: position {rows[0].originator_version - 1} was written "
                "by another writer first; nothing of this append was recorded") from None
        except PersistenceError as exc:
            raise StoreError(f"the store {self.name} refused the write: {exc}") from None

    def _head(self, duel_id: str) -> tuple[History, bytes]:
        """The fold at the duel's head and the head's hash (cached while no one else appends)."""
        last = self.events.select_events(duel_id, desc=True, limit=1)
        if not last:
            raise StoreError(f"no duel {duel_id!r} in {self.name}")
        try:
            head_hash = msgpack.unpackb(last[0].state)["h"]
        except (ValueError, KeyError, TypeError) as exc:
            raise StoreError(f"duel {duel_id}: the last stored record cannot be decoded ({exc}); "
                             "run verify") from None
        if duel_id in self._live and self._live[duel_id].position == last[0].originator_version \
                and self._head_hash[duel_id] == head_hash:
            return self._live[duel_id], head_hash
        history = self._history(duel_id, last[0].originator_version)
        self._live[duel_id] = history
        self._head_hash[duel_id] = head_hash
        return history, head_hash

    def _write_snapshot(self, row: StoredEvent) -> None:
        try:
            self.snapshots.insert_events([row])
        except IntegrityError:
            pass                                     # another process wrote the same snapshot

    # -- reading ----------------------------------------------------------------------------------

    def records(self, duel_id: str) -> list[Record]:
        """Every stored event in order, decoded, marked reverted where a rollback undid it."""
        rows = self.events.select_events(duel_id, gt=0)
        if not rows and not self.events.select_events(duel_id, lte=0):
            raise StoreError(f"no duel {duel_id!r} in {self.name}")
        decoded = [self._decode(duel_id, row) for row in rows]
        reverted: dict[int, int] = {}
        rolled: set[int] = set()
        for rec in decoded:
            if rec.event.kind == "rolled_back":
                for pos in range(rec.event.to, rec.position):
                    if pos not in reverted and pos not in rolled:
                        reverted[pos] = rec.position
                rolled.add(rec.position)
        return [Record(r.position, r.event, r.recorded, r.prev_hash, r.hash, reverted.get(r.position))
                for r in decoded]

    def _decode(self, duel_id: str, row: StoredEvent) -> Record:
        where = f"duel {duel_id} event {row.originator_version - 1}"
        try:
            env = msgpack.unpackb(row.state)
            return Record(row.originator_version - 1, from_dict(env["e"], where), env["t"], env["p"], env["h"])
        except (ValueError, KeyError, TypeError, msgpack.ExtraData) as exc:
            raise StoreError(f"{where}: the stored record cannot be decoded ({exc})") from None

    def state_at(self, duel_id: str, position: int | None = None) -> DuelState:
        """The state after the first ``position`` events (all when None), from the nearest snapshot."""
        if position is None:
            return self._head(duel_id)[0].state.copy()
        history = self._history(duel_id, max(position, 0)) if position >= 0 else None
        if history is None or history.position != position or (position == 0 and not self._exists(duel_id)):
            last = self.events.select_events(duel_id, desc=True, limit=1)    # only to say what is wrong
            if not last:
                raise StoreError(f"no duel {duel_id!r} in {self.name}")
            length = last[0].originator_version
            raise StoreError(f"duel {duel_id} has {length} events: a position is 0..{length}, not {position}")
        return history.state

    def _exists(self, duel_id: str) -> bool:
        return bool(self.events.select_events(duel_id, lte=0))

    def _history(self, duel_id: str, position: int) -> History:
        """The fold after ``position`` events: nearest snapshot at or before it, then the rest."""
        snaps = self.snapshots.select_events(duel_id, lte=position, desc=True, limit=1)
        restore = self._restorer(duel_id)
        if snaps:
            history = History.from_data(msgpack.unpackb(snaps[0].state), self.cards, restore=restore)
        else:
            history = History(self.cards, restore=restore)
        if history.position < position:
            for row in self.events.select_events(duel_id, gt=history.position, lte=position):
                history.append(self._decode(duel_id, row).event)
        return history

    def _restorer(self, duel_id: str):
        return lambda to: self._history(duel_id, to).state

    # -- branches, rollbacks ------------------------------------------------------------------------

    def branch(self, duel_id: str, at: int, title: str = "") -> str:
        """A new duel whose history is the first ``at`` events of ``duel_id``; the parent is untouched."""
        records = self.records(duel_id)
        if not 0 < at <= len(records):
            raise StoreError(f"duel {duel_id} has {len(records)} events: branch at 1..{len(records)}, not {at}")
        child = self.create_duel(title or f"branch of {duel_id} at {at}", parent=duel_id, branch_at=at)
        self.append(child, [r.event for r in records[:at]])
        return child

    def tree(self, duel_id: str) -> list[tuple[int, DuelInfo]]:
        """The duel's family as (depth, duel) in depth-first order, from its root."""
        infos = {d.id: d for d in self.duels()}
        if duel_id not in infos:
            raise StoreError(f"no duel {duel_id!r} in {self.name}")
        root = duel_id
        while infos[root].parent in infos:
            root = infos[root].parent
        children: dict[str | None, list[DuelInfo]] = {}
        for d in infos.values():
            children.setdefault(d.parent, []).append(d)
        out: list[tuple[int, DuelInfo]] = []

        def walk(d: DuelInfo, depth: int) -> None:
            out.append((depth, d))
            for c in sorted(children.get(d.id, []), key=lambda c: (c.branch_at or 0, c.created)):
                walk(c, depth + 1)
        walk(infos[root], 0)
        return out

    # -- tamper evidence ------------------------------------------------------------------------------

    def verify(self, duel_id: str) -> Verification:
        """Check the hash chain from the header to the last event; name the first broken link."""
        rows = self.events.select_events(duel_id)
        if not rows or rows[0].originator_version != 0:
            raise StoreError(f"no duel {duel_id!r} in {self.name}")
        try:
            header = msgpack.unpackb(rows[0].state)
            prev = header["h"]
            if _hash(_GENESIS, [header["header"]]) != prev:
                return Verification(False, len(rows) - 1, -1, "the duel header was altered")
        except (ValueError, KeyError, TypeError, msgpack.ExtraData):
            return Verification(False, len(rows) - 1, -1, "the duel header cannot be decoded")
        for expected, row in enumerate(rows[1:]):
            position = row.originator_version - 1
            if position != expected:
                return Verification(False, len(rows) - 1, expected,
                                    f"event {expected} is missing (the next stored is {position})")
            try:
                env = msgpack.unpackb(row.state)
                body = [position, env["e"], env["t"]]
                if env["p"] != prev:
                    return Verification(False, len(rows) - 1, position,
                                        f"event {position} does not follow event {position - 1} (dropped or reordered)")
                if _hash(prev, body) != env["h"] or env["e"].get("kind") != row.topic:
                    return Verification(False, len(rows) - 1, position, f"event {position} was altered")
                prev = env["h"]
            except (ValueError, KeyError, TypeError, AttributeError, msgpack.ExtraData):
                return Verification(False, len(rows) - 1, position, f"event {position} cannot be decoded")
        return Verification(True, len(rows) - 1)

