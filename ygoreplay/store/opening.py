"""Opening a store: the URL to a backend's environment, the refusal of a file or schema that is not a
ygoreplay store, and how a PostgreSQL server's silence or refusal is told (``StoreUnavailable``)."""
from __future__ import annotations

import stat
import sqlite3
import select
import re
import os
import functools
from typing import TYPE_CHECKING

import msgpack

from ..errors import StoreBusy, StoreError, StoreUnavailable
from ..files import data_folder, expand_user, file_uri, path_text
from ..i18n import N_, say
from .records import (ENV_VAR, FORMAT, STORE_ID, _POSTGRES_TABLES, _SCHEMA_NAME, _SQLITE_TABLES, _STORE_FILES,
                      MissingStore, _blob)

if TYPE_CHECKING:
    from typing import Any, Iterable, Mapping


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
            from ..library import sqlite_keys, sqlite_shape
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
    from ..library import primary_key
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
