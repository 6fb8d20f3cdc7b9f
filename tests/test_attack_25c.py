"""Attacks on issue 25's fourth pass: where a second way in (the append's lane, the leader of a
group commit, the Hub's reader threads) might skip what the first way does."""
from __future__ import annotations

import asyncio

import pytest

from ygoreplay.errors import StoreError
from test_release import store  # noqa: F401  (the fixture)
from ygoreplay.live import Hub
from ygoreplay.store import Store

from test_live_followers import EVENTS, _until
from test_store import fresh_url, sample

DAMAGE = "won-by-damage.jsonl"


# -- the Hub's reader threads: a read that fails ------------------------------------------------------

@pytest.mark.parametrize("error", [StoreError("the pool timed out"), RuntimeError("a bug")])
def test_a_failed_read_of_another_processs_last_append_is_read_at_the_followers_next_wake(tmp_path, monkeypatch,
                                                                                       error):
    """The reader thread read what another process stored once, at its notification: a read
    that failed (a pool's timeout, the store's refusal) left nothing marked, so the duel's last
    events, its end among them, reached its followers here only with a further append, which
    a duel that has ended never gets. Now the duel is marked behind, and a follower's next
    wake-up (its keep-alive at the latest) reads it, as for a duel nobody here followed."""
    with fresh_url("postgresql", tmp_path / "x.sqlite", "atk2") as url, \
            Store(url, concurrent=True) as writer, Store(url, concurrent=True) as reader:
        duel = writer.create_duel("last")
        hub = Hub(reader)
        loop = asyncio.new_event_loop()
        hub.start(loop)
        try:
            hub.get(duel).followers = 1
            real = reader.chained_after
            failed: list[int] = []

            def chained_after(duel_id: str, count: int, prev: bytes):
                if not failed:
                    failed.append(count)
                    raise error
                return real(duel_id, count, prev)
            monkeypatch.setattr(reader, "chained_after", chained_after)
            writer.append(duel, EVENTS, expected_position=0)          # the whole duel, to its end
            _until(lambda: failed and not hub._reading, "the other process's append is read, and fails")
            assert hub.duels[duel].count == 0
            asyncio.run(hub.wait(duel, 0.05))                       # a follower's next wake-up
            assert hub.duels[duel].count == len(EVENTS), "its last events reach its followers"
            assert [r.position for r in hub.duels[duel].records] == list(range(len(EVENTS)))
            assert hub.duels[duel].ended_at is not None
        finally:
            hub.stop()
            loop.close()


# -- the group commit: closing ---------------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_an_append_after_the_store_closed_is_refused_and_opens_no_connection(tmp_path, backend):
    """The PostgreSQL writer's own connection (made again by the next write after it broke)
    made an append after ``close`` connect again and write, on a connection nobody closed, where
    SQLite's, and every read of the closed store, are refused. Now both refuse it."""
    events = sample(DAMAGE)
    with fresh_url(backend, tmp_path / "x.sqlite", "atk2") as url:
        store = Store(url, concurrent=True)
        duel = store.create_duel("closing")
        assert store.append(duel, events[0]) == 1          # its fold is cached: no read needed
        store.close()
        with pytest.raises(StoreError, match="nothing was written"):
            store.append(duel, events[1])
        assert store._postgres is None or store._postgres._conn is None
        with Store(url, readonly=True) as reader:
            assert reader.info(duel).events == 1 and reader.verify(duel).ok


# -- the append's lane (``service.core.ServiceApp``) ---------------------------------------------------------

def test_a_first_request_that_takes_the_lane_starts_the_app_as_a_routed_one_does(store):  # noqa: F811
    """Starlette refuses a middleware added once the app has started (its stack is built at
    the first request), so that none is ever skipped. An append taking the lane built its own
    stack only: served without a lifespan (``--lifespan off``), the app whose first request
    was an append still took a middleware, which every routed request then went through and
    every append skipped. Now the lane starts the app as the router's first request does."""
    from fastapi.testclient import TestClient
    from starlette.middleware.base import BaseHTTPMiddleware
    from starlette.responses import PlainTextResponse
    from test_release import ADMIN, ORGANISER, auth
    from ygoreplay.access import digest
    from ygoreplay.service import create_app

    maker = TestClient(create_app(store, digest(ADMIN)))
    duel = maker.post("/duels", json={"title": "lane"}, headers=ORGANISER).json()
    app = create_app(store, digest(ADMIN))
    client = TestClient(app)                       # no lifespan: its first request starts it
    first = client.post(f"/duels/{duel['id']}/events?expected=0", json=[], headers=auth(duel["tokens"]["recorder"]))
    assert first.status_code == 200 and app._lane is not None
    assert app.middleware_stack is not None

    async def refuse(request, call_next):
        return PlainTextResponse("closed", status_code=503)
    with pytest.raises(RuntimeError, match="after an application has started"):
        app.add_middleware(BaseHTTPMiddleware, dispatch=refuse)
