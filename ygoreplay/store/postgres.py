"""The PostgreSQL backend's writer: appends pipelined on a connection of its own, and the heads of
many duels read in one statement."""
from __future__ import annotations

import time
import threading
import select
from collections import deque
from typing import TYPE_CHECKING

from .. import pg_pipeline
from ..errors import StoreError
from ..i18n import say
from .opening import STATEMENT_WAIT, _bounded, _hung_up
from .records import ACCESS_TOPIC, HEADS_MARK, HEADS_SAID, HEAD_TOPIC, _head_owners

if TYPE_CHECKING:
    from typing import Any, Mapping

    from eventsourcing.persistence import StoredEvent

    from .reading import Store


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
            # wrote said in it (``HEADS_SAID``), so that no listener reads them back, and the
            # access records it wrote (a match's link writes its duel's: ``ACCESS_TOPIC``), which a
            # listener taking the heads said would otherwise pass over
            return sql.SQL("WITH written AS ({} RETURNING notification_id, originator_id, originator_version, "
                           "topic), said AS (SELECT string_agg(notification_id || ' ' || originator_version || ' ' "
                           "|| originator_id, E'\\n' ORDER BY notification_id) AS heads FROM written WHERE topic IN "
                           "({}, {})) SELECT pg_notify({}, {} || CASE WHEN octet_length(heads) <= {} THEN heads ELSE '' "
                           "END) FROM said").format(insert(recorder.events_table_name, marks=marks),
                                                    sql.Literal(HEAD_TOPIC), sql.Literal(ACCESS_TOPIC),
                                                    sql.Literal(recorder.channel_name),
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

    def taken(self, rows: list[StoredEvent]) -> set[tuple[str, int]] | None:
        """Which of ``rows``' positions (stream, version) are held by stored rows, read now on the
        writer's connection: the appends at fault in a group whose write was refused
        (``_Committer._write``); None when that cannot be read."""
        from psycopg.rows import tuple_row
        ids, versions, _topics, _states = self._columns(rows)
        try:
            with self._using:
                cursor = self._connection().cursor(row_factory=tuple_row)
                return {(stream, version) for stream, version, _state in
                        cursor.execute(self._find, (ids, versions)).fetchall()}
        except Exception:
            return None

    def _connection(self) -> Any:
        """The writer's connection, made now if there is none, it broke, or the server hung up on
        it (``_hung_up``: a restart; the first write after it failed) (its caller holds ``_using``)."""
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
                               "notification_id > %s AND topic IN (%s, %s) ORDER BY notification_id LIMIT %s").format(
            sql.Identifier(datastore.schema, recorder.events_table_name))
        self._mark = f"{HEADS_MARK}{datastore.schema}"       # this store's heads (``HEADS_MARK``)
        # the last said head is there (``_read``): a NOTIFY is anyone's word, not the table's
        self._confirm = sql.SQL("SELECT 1 FROM {} WHERE notification_id = %s AND originator_id = %s AND "
                                "originator_version = %s AND topic IN (%s, %s)").format(
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
            if self._cursor.execute(self._confirm, (number, originator, version, HEAD_TOPIC,
                                                     ACCESS_TOPIC)).fetchone() is None:
                self._last = self._read_last
            self._said_last = None
        rows = self._cursor.execute(self._query, (self._last, HEAD_TOPIC, ACCESS_TOPIC, self.LIMIT),
                                    prepare=True).fetchall()
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
