"""A write's NOTIFY says the heads it wrote (``store._PostgresWriter``, ``_Heads._said``): each
worker's listener selected them back after every write, its own and the other's, a round trip
and the server's work an append (issue 25)."""
from __future__ import annotations

from contextlib import contextmanager

from ygoreplay.store import postgres as store_postgres
from ygoreplay.store import Store, _Heads

from test_live_followers import EVENTS
from test_store import _pg_connect, fresh_url


@contextmanager
def _listening(tmp_path, name: str):
    """A writer's store and a reader's listening to it (``subscribe``), a duel made after it began:
    the url, the two stores, the duel and the reader's heads, the duel's first taken."""
    with fresh_url("postgresql", tmp_path / "x.sqlite", name) as url, \
            Store(url, concurrent=True) as writer, Store(url, concurrent=True) as reader:
        after = reader.last_notification()
        duel = writer.create_duel(name)
        heads = reader.subscribe(after)
        with heads:
            assert next(heads) == (duel, 0)
            yield url, writer, reader, duel, heads


def test_the_heads_a_notify_says_are_not_read_back_and_one_that_says_none_is_read(tmp_path, monkeypatch):
    reads = []
    real = _Heads._read

    def counted(self):
        reads.append(self._last)
        real(self)
    monkeypatch.setattr(_Heads, "_read", counted)
    with _listening(tmp_path, "said") as (url, writer, reader, duel, heads):
        first = len(reads)
        writer.append(duel, EVENTS[:2], expected_position=0)
        other = writer.create_duel("another")
        assert [next(heads), next(heads)] == [(duel, 2), (other, 0)]
        assert len(reads) == first, "the heads the NOTIFYs said were selected again"
        # a NOTIFY saying nothing (eventsourcing's own, a writer of another version): read
        with _pg_connect() as admin:
            admin.execute(f'SET search_path TO {url.rsplit("schema=", 1)[1]}, public')
            admin.execute(f'NOTIFY "{reader.events.channel_name}"')
        writer.append(other, EVENTS[:1], expected_position=0)
        assert next(heads) == (other, 1)
        assert len(reads) == first + 1
        # more heads than a NOTIFY may say: said none, and read
        monkeypatch.setattr(store_postgres, "HEADS_SAID", 0)
        with Store(url, concurrent=True) as wide:
            wide.append(duel, EVENTS[2:3], expected_position=2)
            assert next(heads) == (duel, 3)
        assert len(reads) == first + 2
        writer.append(duel, EVENTS[3:4], expected_position=3)   # and said again after
        assert next(heads) == (duel, 4) and len(reads) == first + 2


def test_a_store_in_another_schema_is_heard_but_its_heads_are_never_taken(tmp_path):
    """PostgreSQL's NOTIFY channels are the database's, not a schema's: a store in another schema
    (the same table names) is heard on the same channel. Its heads, counted by its own
    notification ids, were taken for this store's: the listener skipped its own appends and a
    follower never woke (three services on three schemas at once: 2 of 3)."""
    with fresh_url("postgresql", tmp_path / "a.sqlite", "mine") as mine, \
            fresh_url("postgresql", tmp_path / "b.sqlite", "theirs") as theirs, \
            Store(mine, concurrent=True) as writer, Store(mine, concurrent=True) as reader, \
            Store(theirs, concurrent=True) as other:
        assert reader.events.channel_name == other.events.channel_name     # one channel for both
        after = reader.last_notification()
        duel = writer.create_duel("mine")
        heads = reader.subscribe(after)
        with heads:
            assert next(heads) == (duel, 0)
            for n in range(6):                 # their notification ids run ahead of ours
                other.append(other.create_duel(f"theirs {n}"), EVENTS[:3], expected_position=0)
            writer.append(duel, EVENTS[:2], expected_position=0)
            assert next(heads) == (duel, 2)
            writer.append(duel, EVENTS[2:3], expected_position=2)
            assert next(heads) == (duel, 3)


def test_the_listener_takes_the_notifies_from_libpq_and_loses_none_a_read_received(tmp_path, monkeypatch):
    """The listener waits on its socket and takes the NOTIFYs from libpq itself (``_Heads._hear``):
    psycopg's ``notifies()`` took a lock, a generator and a wait round each wake-up and made each
    notification twice, which every worker's listener paid at every commit (issue 25, twenty-third
    pass). A NOTIFY that a statement on the listening connection received meanwhile (libpq hands
    it over during the read) is taken all the same, not left in psycopg's backlog."""
    import threading
    import time

    import psycopg

    def refused(*_args, **_kwargs):
        raise AssertionError("psycopg's notifies() waited on")
    monkeypatch.setattr(psycopg.Connection, "notifies", refused)
    with _listening(tmp_path, "heard") as (_url, writer, _reader, duel, heads):
        writer.append(duel, EVENTS[:2], expected_position=0)
        assert next(heads) == (duel, 2)
        writer.append(duel, EVENTS[2:3], expected_position=2)
        # its NOTIFY on the listening socket before a statement there: read with the statement's answer
        time.sleep(0.2)
        heads._cursor.execute("SELECT 1").fetchall()
        assert heads._heard, "the NOTIFY was not received by the statement"
        got: list = []
        taker = threading.Thread(target=lambda: got.append(next(heads)), daemon=True)
        taker.start()
        taker.join(10)
        heads.stop()
        assert got == [(duel, 3)], "the NOTIFY a read received was lost"
