"""Attacks on issue 25's sixth pass: a thread wakes the event loop only for a duel someone waits
on (``Hub.changed``), and the heads are read on a LISTEN connection of the process's own
(``store._Heads``). Followers of two workers over HTTP while the listening connection is
killed and the database refuses connections for a while."""
from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import uuid
from urllib.parse import urlparse

import httpx
import pytest

from test_service import Follower, Server, auth, create, events_of
from test_store import DAMAGE, POSTGRES, REPLAYS, _pg_connect
from ygoreplay.jsonl import read_events

EVENTS = events_of("won-by-damage.jsonl")
EVENTS_STORED = read_events(REPLAYS / DAMAGE)


@contextlib.contextmanager
def _database():
    """A PostgreSQL database of the test's own (dropped after): its connections can be refused
    without touching anyone else's."""
    from psycopg import sql
    name = f"attack25g_{uuid.uuid4().hex[:12]}"
    with _pg_connect() as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield name, urlparse(POSTGRES)._replace(path=f"/{name}").geturl()
    finally:
        with _pg_connect() as conn:
            conn.execute(sql.SQL("ALTER DATABASE {} WITH ALLOW_CONNECTIONS true").format(sql.Identifier(name)))
            conn.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


def _listeners(name: str) -> list[int]:
    """The backends of database ``name`` that listen (one per worker)."""
    with _pg_connect() as conn:
        return [pid for (pid,) in conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND (query LIKE 'LISTEN%%' "
            "OR query LIKE 'SELECT notification_id%%')", (name,)).fetchall()]


def _terminate(pids: list[int]) -> None:
    with _pg_connect() as conn:
        for pid in pids:
            conn.execute("SELECT pg_terminate_backend(%s)", (pid,))


def _post(base: str, duel: dict, events: list[dict], at: int) -> int:
    """Append ``events`` at ``at``, again while the store refuses (a write that failed wrote nothing)."""
    deadline = time.monotonic() + 60
    while True:
        r = httpx.post(f"{base}/duels/{duel['id']}/events?expected={at}", json=events,
                       headers=auth(duel["tokens"]["recorder"]), timeout=30)
        if r.status_code == 200:
            return r.json()["position"]
        assert r.status_code >= 500 and time.monotonic() < deadline, r.text
        time.sleep(0.2)


@contextlib.contextmanager
def _followed(title: str, count: int):
    """A service of two workers on a database of its own, a duel and ``count`` judge's followers
    of it (spread over both workers); every follower must get every event once, in order, and the end."""
    with _database() as (name, url):
        server = Server(url, workers=2)
        try:
            duel = create(server.url, title=title, visibility="unlisted")
            followers = [Follower(f"{server.url}/duels/{duel['id']}/follow", auth(duel["tokens"]["judge"]))
                         for _ in range(count)]
            for follower in followers:
                follower.start()
                assert follower.ready.wait(20) and follower.status == 200
            yield name, server, duel
            for follower in followers:
                assert follower.ended.wait(60), "a follower got the end"
                assert [i for i, _, _ in follower.received] == list(range(len(EVENTS)))
        finally:
            server.stop()


def test_followers_of_both_workers_get_every_event_while_the_listeners_are_killed():
    """Appends go on while each worker's listening connection is terminated again and again:
    every follower, whichever worker serves it, gets every event once, in order, and the end."""
    with _followed("listeners killed", 8) as (name, server, duel):
        at = 0
        for i in range(0, len(EVENTS), 3):
            if i % 9 == 0:
                _terminate(_listeners(name))
            at = _post(server.url, duel, EVENTS[i:i + 3], at)


def test_followers_get_the_appends_after_the_database_refused_connections_for_a_while():
    """The database refuses every connection for longer than the listener tries again
    (``_Heads.RETRIES`` × ``RETRY_WAIT``): that ended its thread, and no follower of the other
    worker got an append again. Once it takes them again, every follower of either worker gets
    what is appended after, and the end."""
    from psycopg import sql
    from ygoreplay.store import _Heads
    with _followed("database away", 6) as (name, server, duel):
        at = _post(server.url, duel, EVENTS[:10], 0)
        with _pg_connect() as conn:
            conn.execute(sql.SQL("ALTER DATABASE {} WITH ALLOW_CONNECTIONS false").format(sql.Identifier(name)))
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))
            time.sleep(2 * _Heads.RETRIES * _Heads.RETRY_WAIT + 1)
            conn.execute(sql.SQL("ALTER DATABASE {} WITH ALLOW_CONNECTIONS true").format(sql.Identifier(name)))
        _post(server.url, duel, EVENTS[10:], at)


def _until(condition, what: str, seconds: float = 30.0) -> None:
    """Wait for ``condition()`` (a notification crosses PostgreSQL); fail saying ``what`` if it never holds."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_the_listener_listens_again_after_the_store_refused_it_past_its_retries(tmp_path, monkeypatch, caplog):
    """``_Heads`` raises once its connection failed ``RETRIES`` times in a row: that ended the
    hub's listening thread, and no other process's append reached a follower here again (they
    waited for ever, with keep-alives). Now the hub says so and listens again; what was stored
    while it could not is read then."""
    import psycopg
    from test_store import fresh_url
    from ygoreplay import live as live_module
    from ygoreplay.live import Hub
    from ygoreplay.store import Store, _Heads
    monkeypatch.setattr(_Heads, "RETRIES", 2)
    monkeypatch.setattr(_Heads, "RETRY_WAIT", 0.01)
    monkeypatch.setattr(live_module, "LISTEN_AGAIN", 0.01, raising=False)
    away, refused = threading.Event(), []
    real = _Heads._connection

    def connection(self):
        if away.is_set():
            refused.append(1)
            raise psycopg.OperationalError("connection refused")
        return real(self)
    monkeypatch.setattr(_Heads, "_connection", connection)
    with fresh_url("postgresql", tmp_path / "x.sqlite", "attack") as url, \
            Store(url, concurrent=True) as writer, Store(url, concurrent=True) as reader:
        duel = writer.create_duel("followed")
        hub = Hub(reader)
        loop = asyncio.new_event_loop()          # its wake-ups are only queued: nobody waits here
        hub.start(loop)
        try:
            hub.get(duel).followers = 1
            writer.append(duel, EVENTS_STORED[:1], expected_position=0)
            _until(lambda: hub.duels[duel].count == 1, "the append before was taken in")
            away.set()
            _terminate([hub._subscription._conn.info.backend_pid])
            _until(lambda: len(refused) >= 3 * _Heads.RETRIES, "the listener was refused past its retries")
            writer.append(duel, EVENTS_STORED[1:2], expected_position=1)      # while it could not listen
            away.clear()
            writer.append(duel, EVENTS_STORED[2:3], expected_position=2)
            _until(lambda: hub.duels[duel].count == 3, "what was stored meanwhile and after was taken in")
            assert hub._listener.is_alive()
        finally:
            hub.stop()
            loop.close()
        assert not hub._listener.is_alive()
    assert "notifications are lost (connection refused); listening again" in caplog.text


def test_a_round_waiting_on_a_duel_is_woken_by_another_processs_append(tmp_path):
    """A round's stream waits on its tables' duels (``Hub.wait``) without following them: the
    listener took another process's append to such a duel in only when next asked, so the
    round's page in the other worker moved only at its ``LOOK_AGAIN`` (a waiter is someone to
    read it for, as a follower is)."""
    from test_store import fresh_url
    from ygoreplay.live import Hub
    from ygoreplay.store import Store
    with fresh_url("postgresql", tmp_path / "x.sqlite", "attack") as url, \
            Store(url, concurrent=True) as writer, Store(url, concurrent=True) as reader:
        duel = writer.create_duel("a table")
        hub = Hub(reader)

        async def round_stream() -> None:
            hub.start(asyncio.get_running_loop())
            assert hub.get(duel).followers == 0           # read for the round's status, not followed
            waiting = asyncio.ensure_future(hub.wait(duel, 3600))
            await asyncio.sleep(0)                        # it waits
            await asyncio.to_thread(writer.append, duel, EVENTS_STORED[:1], expected_position=0)
            await asyncio.wait_for(waiting, 60)           # woken by the other's append, not its clock
            assert hub.duels[duel].count == 1
        try:
            asyncio.run(round_stream())
        finally:
            hub.stop()


@contextlib.contextmanager
def _other_worker(tmp_path):
    """A PostgreSQL store, a service on it (the other worker, which writes: ``call(client)``
    runs a request there), a match it made, and a second ``Store`` for a hub of this worker."""
    import httpx
    from test_match_service import MATCHES, lines, match_body
    from test_release import ADMIN
    from test_store import fresh_url
    from ygoreplay.access import digest
    from ygoreplay.service import create_app
    from ygoreplay.store import Store
    with fresh_url("postgresql", tmp_path / "x.sqlite", "attack") as url, \
            Store(url, concurrent=True) as writer, Store(url, concurrent=True) as reader:
        app = create_app(writer, digest(ADMIN))

        async def call(request):
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://test",
                                         headers={"Authorization": f"Bearer {ADMIN}"}) as client:
                response = await request(client)
                assert response.status_code in (200, 201), response.text
                return response
        made = asyncio.run(call(lambda c: c.post("/matches", json=match_body(lines(MATCHES / "two-nil.jsonl")))))
        yield call, made.json()["id"], reader


def _judge_call(match_id: str):
    return lambda client: client.post(f"/matches/{match_id}/judge-calls", json={"player": 0, "judge": "J"})


def test_a_match_whose_read_failed_is_read_again_at_its_followers_next_wake_up(tmp_path, monkeypatch):
    """A read of another process's append that fails (the store's error, passed over) leaves a
    duel ``behind``, so its followers' next wake-up reads it: a match was left as it was, and
    its followers got that append (the match's result, its end) only with a further append of
    the match, maybe never."""
    from ygoreplay.errors import StoreError
    from ygoreplay.live import Hub
    with _other_worker(tmp_path) as (other, match_id, reader):
        hub = Hub(reader)
        failed = threading.Event()
        real = reader.chained_after

        def chained_after(stream_id: str, count: int, prev: bytes):
            if stream_id == match_id and not failed.is_set():
                failed.set()
                raise StoreError("the store refused the read")
            return real(stream_id, count, prev)

        async def follower() -> None:
            hub.start(asyncio.get_running_loop())
            live = hub.follow(await asyncio.to_thread(hub.match, match_id))
            known = live.count
            monkeypatch.setattr(reader, "chained_after", chained_after)
            await other(_judge_call(match_id))
            await asyncio.to_thread(_until, lambda: failed.is_set() and not hub._reading, "the read failed")
            await asyncio.wait_for(hub.wait(match_id, 3600), 60)    # its next wake-up reads it
            assert live.count == known + 1
        try:
            asyncio.run(follower())
        finally:
            hub.stop()


def test_a_round_waiting_on_a_match_this_process_does_not_hold_is_woken_by_another_processs_append(tmp_path):
    """A round's stream waits on its tables' matches, which its status reads from the store (no
    ``LiveMatch`` here): the listener passed over another process's append to one, and the
    round's page moved only at its ``LOOK_AGAIN``. Now it wakes what waits on it, and what is
    made of many streams (the round's status) is made again."""
    from ygoreplay.live import Hub
    with _other_worker(tmp_path) as (other, match_id, reader):
        hub = Hub(reader)

        async def round_stream() -> None:
            hub.start(asyncio.get_running_loop())
            assert match_id not in hub.matches
            generation = hub.generation
            waiting = asyncio.ensure_future(hub.wait(match_id, 3600))
            await asyncio.sleep(0)                        # it waits
            await other(_judge_call(match_id))
            await asyncio.wait_for(waiting, 60)           # woken by the other's append, not its clock
            assert hub.generation > generation
        try:
            asyncio.run(round_stream())
        finally:
            hub.stop()


def test_a_schema_name_with_capitals_is_refused_before_anything_is_made():
    """A schema name with a capital letter passed as a plain name: the store made the schema and
    its tables, then refused every write ("Composite type 'stored_event_text' not found": the
    recorder looks its type up by the name unquoted, folded to lower case), and left them there."""
    from ygoreplay.errors import StoreError
    from ygoreplay.store import Store
    schema = f"Attack_{uuid.uuid4().hex[:8]}"
    with pytest.raises(StoreError, match="lower-case"):
        Store(f"{POSTGRES}?schema={schema}")
    with _pg_connect() as conn:
        assert conn.execute("SELECT count(*) FROM information_schema.schemata WHERE lower(schema_name) = lower(%s)",
                            (schema,)).fetchone() == (0,), "nothing was made"


class Rejoiner(threading.Thread):
    """An SSE client that leaves after every few events and comes back with ``Last-Event-ID``
    (a phone on a train): what it got, in order, until the end."""

    def __init__(self, url: str, headers: dict, every: int) -> None:
        super().__init__(daemon=True)
        self.url, self.headers, self.every = url, headers, every
        self.received: list[int] = []
        self.ended = threading.Event()

    def run(self) -> None:
        deadline = time.monotonic() + 120
        while not self.ended.is_set() and time.monotonic() < deadline:
            resume = {"Last-Event-ID": str(self.received[-1])} if self.received else {}
            with httpx.stream("GET", self.url, headers={**self.headers, **resume},
                              timeout=httpx.Timeout(30, read=60)) as r:
                fields: dict[str, str] = {}
                for line in r.iter_lines():
                    if line:                                  # a field of the event under way
                        name, _, value = line.partition(": ")
                        fields[name] = value
                        continue
                    event, fields = fields, {}                # a blank line ends it
                    if event.get("event") == "end":
                        self.ended.set()
                        break
                    if event.get("event") == "event":
                        self.received.append(int(event["id"]))
                        if len(self.received) % self.every == 0:
                            break


def test_followers_that_come_and_go_on_both_workers_and_a_delayed_spectator_get_every_event():
    """Followers leaving and coming back (``Last-Event-ID``) on either worker while the duel is
    appended to from both, and a spectator held back by events: each gets every event it may
    see once, in order, and the end."""
    with _database() as (_name, url):
        server = Server(url, workers=2)
        try:
            duel = create(server.url, title="coming and going", visibility="unlisted", delay={"events": 4})
            follow = f"{server.url}/duels/{duel['id']}/follow"
            rejoiners = [Rejoiner(follow, auth(duel["tokens"][role]), every)
                         for role, every in (("judge", 1), ("judge", 2), ("p0", 3), ("p1", 5), ("judge", 7))]
            spectators = [Follower(follow, auth(duel["tokens"]["spectator"])) for _ in range(4)]
            for each in (*rejoiners, *spectators):
                each.start()
            at = 0
            for i in range(0, len(EVENTS), 2):
                at = _post(server.url, duel, EVENTS[i:i + 2], at)
            for rejoiner in rejoiners:
                assert rejoiner.ended.wait(120), "a follower that came and went got the end"
                assert rejoiner.received == list(range(len(EVENTS)))
            for spectator in spectators:
                assert spectator.ended.wait(60), "a delayed spectator got the end"
                assert [i for i, _, _ in spectator.received] == list(range(len(EVENTS)))
        finally:
            server.stop()


def test_a_read_of_the_anchors_that_fails_is_made_again_without_waiting_for_another_notify(tmp_path, monkeypatch):
    """``_Heads._read`` took the wake-up as handled before its SELECT: a read that failed with
    anything but a lost connection (the hub logs it and iterates the same subscription again)
    left the anchors it was woken for unread until some later append's NOTIFY."""
    import psycopg
    from test_store import fresh_url
    from ygoreplay.store import Store, _Heads

    class FailingOnce:
        """The listening cursor, its first SELECT refused."""
        def __init__(self, cursor):
            self.cursor, self.failed = cursor, False

        def execute(self, *args, **kwargs):
            if not self.failed:
                self.failed = True
                raise psycopg.errors.DataError("a read that fails once")
            return self.cursor.execute(*args, **kwargs)
    real = _Heads._connection

    def connection(self):
        conn = real(self)
        if not isinstance(self._cursor, FailingOnce):
            self._cursor = FailingOnce(self._cursor)
        return conn
    monkeypatch.setattr(_Heads, "_connection", connection)
    with fresh_url("postgresql", tmp_path / "x.sqlite", "attack") as url, \
            Store(url, concurrent=True) as writer, Store(url, concurrent=True) as reader:
        duel = writer.create_duel("followed")
        with reader.subscribe(0) as heads:
            writer.append(duel, EVENTS_STORED[:1], expected_position=0)
            with pytest.raises(psycopg.errors.DataError):
                next(heads)
            # no other append, no other NOTIFY: the same subscription reads what it was woken for
            seen: list[tuple[str, int]] = []

            def read() -> None:
                for head in heads:
                    seen.append(head)
                    if head == (duel, 1):
                        return
            reading = threading.Thread(target=read)
            reading.start()
            reading.join(10)
            heads.stop()
            reading.join(5)
            assert (duel, 1) in seen


def test_the_listening_connection_probes_a_silent_peer_with_tcp_keepalives(tmp_path):
    """The listening connection only waits: a server gone without a reset (its host lost, a NAT
    entry dropped) stalled it silently for good. With TCP keep-alives the socket fails, and the
    connection is made again."""
    import socket
    from test_store import fresh_url
    from ygoreplay.store import KEEPALIVES, Store
    with fresh_url("postgresql", tmp_path / "x.sqlite", "attack") as url, Store(url, concurrent=True) as store:
        with store.subscribe(0) as heads:
            heads._connection()
            sock = socket.socket(fileno=heads._conn.fileno())
            try:
                assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
                assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE) == KEEPALIVES["keepalives_idle"]
                assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT) == KEEPALIVES["keepalives_count"]
            finally:
                sock.detach()                # the connection's own socket: not closed here
