"""The PostgreSQL write sent as libpq's own pipeline (``ygoreplay.pg_pipeline``, issue 25,
eighteenth pass): its arrays built in PostgreSQL's binary form read back as they were given,
and its statements prepared once a connection, as the server holds them, a write refused part
way included (the statements after the refusal never reached the server's Parse)."""
from __future__ import annotations

import pytest

from test_group_commit import DAMAGE
from test_store import _pg_connect, fresh_url, sample
from ygoreplay import pg_pipeline
from ygoreplay.store import Store


@pytest.mark.parametrize("values", [[], [0], [1, -1, 2**63 - 1, -2**63, 40_000]])
def test_an_int8_array_built_reads_back_as_given(values):
    with _pg_connect() as conn:
        cur = conn.cursor()
        cur.execute("SELECT %b::int8[]", [_Raw(pg_pipeline.int8_array(values), 1016)])
        assert cur.fetchone()[0] == values


@pytest.mark.parametrize("values", [[], [""], ["p0.x1", "遊戯王", "a", "x" * 5000]])
def test_a_text_array_built_reads_back_as_given(values):
    with _pg_connect() as conn:
        cur = conn.cursor()
        cur.execute("SELECT %b::text[]", [_Raw(pg_pipeline.text_array(values), 1009)])
        assert cur.fetchone()[0] == values


@pytest.mark.parametrize("values", [[], [b""], [b"\0\1\2", b"\xff" * 70_000, bytes(range(256))]])
def test_a_bytea_array_built_reads_back_as_given(values):
    with _pg_connect() as conn:
        cur = conn.cursor()
        cur.execute("SELECT %b::bytea[]", [_Raw(pg_pipeline.bytea_array(values), 1001)])
        assert [bytes(v) for v in cur.fetchone()[0]] == values


@pytest.mark.parametrize("kind, values", [
    ("int4", [0, 1, -1, 2**31 - 1, -2**31]), ("int4", [None, 3, None]), ("int8", [None, 2**40]),
    ("text", ["a", None, "遊戯王"]), ("bytea", [None, b"\0", b""]), ("int4", [None])])
def test_a_typed_array_with_nulls_reads_back_as_given(kind, values):
    """The index's card and mark rows go as arrays of ``int4`` and may hold a NULL (issue 25,
    nineteenth pass: they were dumped by psycopg, ~1 µs an element)."""
    oid, data = pg_pipeline.typed_array(kind, values)
    with _pg_connect() as conn:
        cur = conn.cursor()
        cur.execute(f"SELECT %b::{kind}[]", [_Raw(data, oid)])
        got = cur.fetchone()[0]
        assert [bytes(v) if isinstance(v, memoryview) else v for v in got] == values


class _Raw:
    """A parameter already in PostgreSQL's binary form (``_RawDumper``)."""

    def __init__(self, data: bytes, oid: int) -> None:
        self.data, self.oid = data, oid


def _raw_dumper():
    from psycopg.adapt import Dumper
    from psycopg.pq import Format

    class RawDumper(Dumper):
        format = Format.BINARY

        def dump(self, obj: _Raw) -> bytes:
            return obj.data

        def get_key(self, obj: _Raw, format):       # one dumper an oid
            return (type(obj), obj.oid)

        def upgrade(self, obj: _Raw, format):
            dumper = RawDumper(type(obj))
            dumper.oid = obj.oid
            return dumper
    return RawDumper


@pytest.fixture(autouse=True)
def _raw_params():
    import psycopg
    psycopg.adapters.register_dumper(_Raw, _raw_dumper())
    yield


def test_a_write_refused_on_a_new_connection_keeps_only_the_statements_the_server_prepared(tmp_path):
    """A write refused on its connection's first write (another process took the position:
    the rows' INSERT fails) never reached the Parse of its COMMIT: the store must not name that
    statement as prepared, or every later write on the connection fails ("prepared statement
    does not exist"). The append goes on at the new head, and each name the writer keeps is one
    the server holds on that connection."""
    events = sample(DAMAGE)
    with fresh_url("postgresql", tmp_path / "x.sqlite", "pgp") as where:
        with Store(where) as mine, Store(where) as other:
            duel = mine.create_duel("refused first")
            assert mine.append(duel, events[0]) == 1          # ``mine`` caches its head at 1
            assert other.append(duel, events[1]) == 2         # another process takes position 2
            mine._postgres.close()                            # the next write is a new connection's first
            refused, write = [], mine._postgres.write

            def watched(rows, snapshot_rows):
                try:
                    return write(rows, snapshot_rows)
                except Exception as exc:
                    refused.append(type(exc).__name__)
                    raise
            mine._postgres.write = watched
            assert mine.append(duel, events[2]) == 3          # refused once, then judged at the new head
            assert refused == ["IntegrityError"]
            assert mine.append(duel, events[3:6]) == 6        # and later writes go on on that connection
            conn = mine._postgres._conn
            held = {row["name"] for row in conn.execute("SELECT name FROM pg_prepared_statements")}
            kept = {name.decode() for name in mine._postgres._prepared.names.values()}
            assert kept and kept <= held
            assert mine.verify(duel).ok and mine.info(duel).events == 6


def test_a_write_s_statements_are_sent_at_once_and_its_answers_waited_for_once(tmp_path):
    """A write's statements are all queued in libpq's buffer and sent with no wait for the
    socket between them: psycopg's ``pipeline_communicate`` waited for it before each one, a
    poll and the GIL let go ~10 times a write (issue 25, twenty-third pass). Its answers are
    still all read, and the write is all there."""
    from psycopg.waiting import Wait
    events = sample(DAMAGE)
    with fresh_url("postgresql", tmp_path / "x.sqlite", "pgw") as where, Store(where, concurrent=True) as store:
        duel = store.create_duel("sent at once")
        store.append(duel, events[0])                 # the writer's connection is made, its statements prepared
        conn = store._postgres._conn
        inner, waited = conn.wait, []

        def wait(gen, *args, **kwargs):
            def watched():
                ready = None
                while True:
                    try:
                        asked = gen.send(ready)
                    except StopIteration as done:
                        return done.value
                    waited.append(asked)
                    ready = yield asked
            return inner(watched(), *args, **kwargs)
        conn.wait = wait
        for event in events[1:4]:
            waited.clear()
            store.append(duel, event)
            assert waited and Wait.R in waited           # its answers waited for
            assert Wait.W not in waited and Wait.RW not in waited, waited   # nothing waited for to be sent
        assert store.info(duel).events == 4 and store.verify(duel).ok
