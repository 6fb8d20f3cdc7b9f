"""``Store``: a store opened, its reads (a seek, a load, a head...) and its heads followed
(``subscribe``, either backend), with its writes (``Writing``), verification (``Verifying``)
and listings (``Listing``) mixed in from their modules; a read is made again on a lost connection."""
from __future__ import annotations

import zlib
import threading
import sqlite3
import os
import functools
import bisect
from collections import OrderedDict
from contextlib import contextmanager
from typing import TYPE_CHECKING

import msgpack

from .. import chain
from ..cards import CardDB, CardDBError
from ..digests import sha256
from ..errors import StoreBusy, StoreError, StoreUnavailable, VerificationError, YgoreplayError
from ..events import EventFormatError, from_dict, from_trusted_dict
from ..files import file_uri, path_text
from ..i18n import N_, say
from ..rules import History
from ..signing import OrganiserKey
from .committing import _Committer
from .listing import Listing
from .opening import (LOCK_WAIT, SQLITE_LOCK_WAIT, STATEMENT_WAIT, _bound, _bounded, _environment, _hung_up, _outage,
                      _reason)
from .postgres import _HeadReads, _Heads, _PostgresWriter
from .records import (ACCESS_TOPIC, DUEL, FORMAT, HEAD_TOPIC, KINDS, STORE_ID, STORE_TOPIC, _ANCHORED, _CARD_FACTS,
                      _CARD_FACTS_GUARD, _HEADS, _LAST_OF, _LAST_OF_EACH, _NAMED, _NO_END, _ROW_OVERHEAD, _SIGNED,
                      _SIGNED_KEPT, _SNAPSHOT_LABEL, _SQLITE_EVENTS, _SQLITE_SNAPSHOTS, _STREAM_ID, Head, Header,
                      Record, StoredDuel, _Live, _Row, _blob, _card_facts, _chained, _checking, _follows, _head_owners,
                      _header_state, _keep_card_facts, _marked, _snapshot_data, _vouched)
from .verifying import Verifying
from .writing import Writing

if TYPE_CHECKING:
    from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

    from eventsourcing.persistence import ApplicationRecorder, InfrastructureFactory, StoredEvent

    from ..cards import CardFacts
    from ..events import Event
    from ..library import Index
    from ..signing import PublicKey
    from ..state import DuelState, Violation
    from .records import StreamKind, Vouched
    from .verifying import Verification


class Store(Writing, Verifying, Listing):
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
            from .. import library
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
    def library(self) -> Index:
        """The library index of the store's tables (``library.index_of``), its rows keyed by the
        organiser key; made when first used (read-only on SQLite a seek never uses it)."""
        from .. import library
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

    def _names_header(self, stream_id: str, header: Header, anchor: StoredEvent | None) -> Head | None:
        """The stream's last anchor (``anchor``, its row) when it is signed by a key trusted here
        (``_signed_anchor``) and names ``header``; None when it does not: the header was altered
        in the database, or the anchor was. The one decision of whether a listing may name a
        stream (``DuelInfo.signed``, ``listed``)."""
        head = self._signed_anchor(stream_id, anchor)
        return head if head is not None and head.header == header.digest else None

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

    def attachment_version(self, duel_id: str, name: str) -> tuple[int, dict | None]:
        """The latest version of a duel's attachment ``name`` and its number (-1, None for none):
        a writer that judged it writes the next version with what it writes (``append_records``'
        ``kept``), so a change written between its read and its write is a conflict, not lost."""
        rows = self.events.select_events(f"{duel_id}/{name}", desc=True, limit=1)
        return (rows[0].originator_version, self._attached(duel_id, name, rows[0].state)) if rows else (-1, None)

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

    def setting(self, name: str) -> dict | None:
        """A store-wide setting (the latest version), e.g. the service's organiser token digest."""
        return self.attachment(STORE_ID, name)

    def last_notification(self) -> int:
        """The id of the last record written (a follower starts after it)."""
        return self.events.max_notification_id() or 0

    def subscribe(self, after: int):
        """The heads of duels as other processes write them: an iterator of (duel id, events)
        (and of their access records' changes, ``("<stream>/access", version)``: ``ACCESS_TOPIC``)
        after notification ``after`` (a context manager; ``stop()`` ends it), woken by
        PostgreSQL's LISTEN/NOTIFY, or on SQLite by its ``data_version`` looked at on a timer
        (``sqlite_commits``: its ``look()`` looks now, before a read)."""
        if self.backend != "postgresql":
            from ..sqlite_commits import SQLiteHeads
            return SQLiteHeads(self.name, file_uri(path_text(os.path.realpath(self.name))) + "?mode=ro",
                               _SQLITE_EVENTS, (HEAD_TOPIC, ACCESS_TOPIC), after, SQLITE_LOCK_WAIT)
        return _Heads(self.events, after)

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
        from ..replay_file import MAX_EVENT_BYTES
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

    _vouched = staticmethod(_vouched)

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

    @functools.cached_property
    def _count_sql(self) -> str:
        """``_count``'s statement: the version of a stream's last row."""
        sql = (f"SELECT originator_version FROM {self._tables()[0]} WHERE originator_id = ? "
               "ORDER BY originator_version DESC LIMIT 1")
        return sql.replace("?", "%s") if self.backend == "postgresql" else sql

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
