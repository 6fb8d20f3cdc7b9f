"""One PostgreSQL write sent as libpq's own pipeline: every statement queued, one Sync, one wait.

psycopg's ``pipeline()`` and its cursors' steps cost ~30 µs of Python a statement (a pipeline's
start and end are waits of their own, each statement a round of queueing, preparing and checking
its results), and its dumper of a list ~1 µs an element: a write of ~9 statements was ~200 µs of
CPU before a row of it was sent, the most of what a group commit of few appends costs its writer
(issue 25, eighteenth pass). Here the statements go straight to libpq (``PGconn.send_*``), each
prepared once a connection, the large arrays as PostgreSQL's binary form built with ``struct``,
and their answers are read in one wait (``Connection.wait``: bounded, the GIL let go). What a
statement is converted with (its ``%s`` into ``$n``, its parameters dumped) is psycopg's own.
"""
from __future__ import annotations

import functools
import itertools
import struct
from collections import deque
from functools import partial
from typing import Any, Sequence

#: element types of the arrays built here: their oids and their arrays' oids
TEXT, INT8, BYTEA, INT4 = (25, 1009), (20, 1016), (17, 1001), (23, 1007)
_HEAD = struct.Struct(">iiiii")        # dimensions, has-nulls, element oid; length, lower bound
_LENGTH = struct.Struct(">i")
_INT8 = struct.Struct(">iq")
_INT4 = struct.Struct(">ii")
_NULL = _LENGTH.pack(-1)              # an element that is NULL: its length
#: prepared statements kept a connection: past that many kinds of statement, the rest go unnamed
PREPARED_KEPT = 64


def text_array(values: Sequence[str]) -> bytes:
    """``text[]`` in PostgreSQL's binary form."""
    return typed_array("text", values)[1]


def bytea_array(values: Sequence[bytes]) -> bytes:
    """``bytea[]`` in PostgreSQL's binary form."""
    return typed_array("bytea", values)[1]


def int8_array(values: Sequence[int]) -> bytes:
    """``int8[]`` in PostgreSQL's binary form."""
    return typed_array("int8", values)[1]


#: ``typed_array``'s element types by their SQL names: their oids and their arrays'
_TYPES = {"text": TEXT, "bytea": BYTEA, "int8": INT8, "int4": INT4}
_FIXED = {"int8": (_INT8.pack, 8), "int4": (_INT4.pack, 4)}


def typed_array(kind: str, values: Sequence[Any]) -> tuple[int, bytes]:
    """An array of ``kind`` (``text``, ``bytea``, ``int8``, ``int4``; None a NULL) in PostgreSQL's
    binary form, with its array type's oid: what ``Statements.execute`` is given as ``binary``.
    Each element is its length and its bytes; a long one is copied once, into the array."""
    oid, array_oid = _TYPES[kind]
    parts = [_HEAD.pack(1, int(None in values), oid, len(values), 1)]
    if kind in _FIXED:
        pack, size = _FIXED[kind]
        parts += [_NULL if value is None else pack(size, value) for value in values]
    else:
        length, text = _LENGTH.pack, kind == "text"
        for value in values:
            if value is None:
                parts.append(_NULL)
                continue
            value = value.encode() if text else value
            parts.append(length(len(value)))
            parts.append(value)
    return array_oid, b"".join(parts)


class Prepared:
    """The statements prepared on one connection, by their text and parameter types; made anew
    with each connection (a new server process has none)."""

    def __init__(self) -> None:
        self.names: dict[tuple[bytes, tuple[int, ...]], bytes] = {}
        self._count = itertools.count()

    def name(self) -> bytes:
        return b"ygoreplay_%d" % next(self._count)


def available() -> bool:
    """Whether this psycopg has the pieces sent through here (its C or Python generators, the
    query converter, the error of a result); else each statement goes through a cursor."""
    return _has(STEPS)


@functools.cache
def _has(steps: tuple[str, ...]) -> bool:
    """``available`` for these generators, found once a process: its imports and look-ups were
    ~5 µs of every write (issue 25)."""
    try:
        from psycopg import _queries, errors, generators
    except ImportError:
        return False
    return (all(hasattr(generators, name) for name in steps) and hasattr(errors, "error_from_result")
            and hasattr(_queries, "PostgresQuery"))


#: psycopg's generators a write is sent with (a psycopg without them: ``available`` is False)
STEPS = ("send", "fetch_many")


class Statements:
    """The statements of one write, collected as a cursor takes them (``execute``), then sent all
    at once (``send``). ``binary`` gives a statement's text with ``$n`` placeholders, its
    parameters' types and their values already in binary form (``int8_array`` and the like);
    its ``query`` and ``params`` are then what a cursor is given when this psycopg lacks the
    pieces sent through here."""

    def __init__(self) -> None:
        self.statements: list[tuple[Any, Any, bool | None, tuple[bytes, tuple[int, ...], list[bytes]] | None]] = []

    def execute(self, query: Any, params: Any = None, *, prepare: bool | None = None,
                binary: tuple[bytes, tuple[int, ...], list[bytes]] | None = None) -> None:
        self.statements.append((query, params, prepare, binary))

    def send(self, conn: Any, prepared: Prepared) -> None:
        """Send them on ``conn`` (autocommit, idle) in one pipeline and wait for all of their
        answers; raises the first statement's error as psycopg raises it (``IntegrityError``…).
        A wait that fails part way (the connection lost, no answer in time, an interrupt) closes
        ``conn``: what it holds of the pipeline cannot be read back in order."""
        if not available():
            self._each(conn)
            return
        from psycopg import errors, pq
        from psycopg._queries import PostgresQuery
        from psycopg.adapt import Transformer
        pgconn = conn.pgconn
        convert = PostgresQuery(Transformer(conn))
        commands: deque = deque()
        made: list[tuple[int, tuple[bytes, tuple[int, ...]], bytes]] = []
        names = dict(prepared.names)
        for query, params, _prepare, binary in self.statements:
            if binary is not None:
                text, types, values = binary
                formats: Sequence[Any] | None = [pq.Format.BINARY] * len(values)
            else:
                convert.convert(query, params)
                text, types, values, formats = convert.query, tuple(convert.types), convert.params, convert.formats
            key = (text, types)
            name = names.get(key)
            if name is None and len(names) < PREPARED_KEPT:
                name = names[key] = prepared.name()
                commands.append(partial(pgconn.send_prepare, name, text, param_types=types or None))
                made.append((len(commands) - 1, key, name))
            if name is None:
                commands.append(partial(pgconn.send_query_params, text, values, param_types=types or None,
                                        param_formats=formats))
            else:
                commands.append(partial(pgconn.send_query_prepared, name, values, param_formats=formats))
        commands.append(pgconn.pipeline_sync)
        expected = len(commands)
        with conn.lock:
            pgconn.enter_pipeline_mode()
            try:
                results = conn.wait(_exchange(pgconn, commands, expected))
                pgconn.exit_pipeline_mode()
            except BaseException:
                conn.close()
                raise
        ok = pq.ExecStatus.COMMAND_OK
        for at, key, name in made:        # a Parse the server carried out stays, whatever came after
            if results[at][0].status == ok:
                prepared.names[key] = name
        for answers in results:
            for result in answers:
                if result.status == pq.ExecStatus.FATAL_ERROR:
                    raise errors.error_from_result(result, encoding=pgconn._encoding)

    def _each(self, conn: Any) -> None:
        """Each statement through a cursor in psycopg's own pipeline (a psycopg without the pieces)."""
        cursor = conn.cursor()
        with conn.pipeline():
            for query, params, prepare, _binary in self.statements:
                cursor.execute(query, params, prepare=prepare)


def _exchange(pgconn: Any, commands: deque, expected: int) -> Any:
    """The pipeline's commands all queued in libpq's buffer at once (a nonblocking connection:
    none waits), flushed, then its answers until the Sync's: one list of results a command
    queued (``expected`` of them, the Sync's last). psycopg's ``pipeline_communicate`` waited for
    the socket before each command, ~10 polls a write, each letting the GIL go to the loop and
    waiting to have it back (issue 25); what a write's ~10 statements are answered with is a few
    hundred bytes, which the server holds until the Sync, so nothing waits for the other side
    to read (the flush reads the answers it is sent meanwhile all the same)."""
    from psycopg import OperationalError, generators
    for command in commands:
        command()
    # the whole of a large write (a 50 MB append) is sent before any answer is waited for
    yield from generators.send(pgconn)
    results: list = []
    while len(results) < expected:
        answers = yield from generators.fetch_many(pgconn)
        if not answers:
            raise OperationalError("the server's answers to a write ended before its end")
        results.append(answers)
    return results
