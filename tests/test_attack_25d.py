"""Attacks on issue 25's fifth pass: the append's lane running the middleware it knows as one
coroutine (``core._flattened``), its own stack for any other (``core._lane``), the direct route
(``core.DirectRoute``) and the append's threads (``core.Threads``): where the second way in
skips what the first way does."""
from __future__ import annotations

import asyncio
import functools
import json
import threading

import pytest
from fastapi.testclient import TestClient

from test_release import ADMIN, ORGANISER, auth, client, events_of, store  # noqa: F401  (the fixtures)
from test_service_append import plain  # noqa: F401  (the fixture)
from ygoreplay.access import digest
from ygoreplay.service import common, core, create_app

SAMPLE = events_of("won-by-damage.jsonl")


def _duel(client) -> dict:  # noqa: F811
    r = client.post("/duels", json={"title": "attack"}, headers=ORGANISER)
    assert r.status_code == 201, r.text
    return r.json()


async def _asgi(app, path: str, headers: list, chunks: list[bytes]) -> list[dict]:
    """The messages ``app`` sends for a POST of ``chunks`` with exactly ``headers``, as a server
    that passes them on as they came would give them (no length checked against the body)."""
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
             "scheme": "http", "path": path, "raw_path": path.encode(), "root_path": "", "query_string": b"",
             "headers": headers, "client": ("127.0.0.1", 1), "server": ("test", 80), "state": {}}
    pending = [{"type": "http.request", "body": c, "more_body": i < len(chunks) - 1} for i, c in enumerate(chunks)]
    sent: list[dict] = []

    async def receive() -> dict:
        if pending:
            return pending.pop(0)
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)
    await app(scope, receive, send)
    return sent


@pytest.mark.parametrize("framing", [[(b"content-length", b"10")],
                                     [(b"content-length", b"10"), (b"transfer-encoding", b"chunked")]])
def test_a_body_longer_than_its_stated_length_is_refused_by_the_lane_as_when_routed(client, plain,  # noqa: F811
                                                                                  monkeypatch, framing):
    """The flattened lane trusted a stated length within the limit and read the body unbounded:
    a body past ``MAX_BODY`` under a small ``Content-Length`` (with ``Transfer-Encoding`` too, or
    from a server that does not hold a body to its length) was read whole and its events written,
    where ``_Limit`` refuses it 413 and writes nothing."""
    monkeypatch.setattr(common, "MAX_BODY", 10_000)
    duel = _duel(client)
    body = json.dumps(SAMPLE[:1]).encode() + b" " * 20_000
    headers = [(b"authorization", f"Bearer {duel['tokens']['recorder']}".encode()),
               (b"content-type", b"application/json"), *framing]
    path = f"/duels/{duel['id']}/events"
    assert client.post(path, json=[], headers=auth(duel["tokens"]["recorder"])).status_code == 200   # the lane built
    laned = client.portal.call(functools.partial(_asgi, client.app, path, headers, [body[:5000], body[5000:]]))
    routed = plain.portal.call(functools.partial(_asgi, plain.app, path, headers, [body[:5000], body[5000:]]))
    assert laned == routed and laned[0]["status"] == 413
    assert client.get(f"/duels/{duel['id']}/events", headers=ORGANISER).text == ""     # nothing written


def test_a_middleware_is_one_instance_for_appends_and_every_other_request(store):  # noqa: F811
    """For a stack it does not know the lane built a second one (``build_middleware_stack``): an
    embedder's middleware was two instances, one for appends and one for the rest, so what it
    keeps (a rate limit's counts, what it set up at the lifespan's start) was split or missing for
    appends. Now such a stack's appends are routed, through the app's one stack."""
    app = create_app(store, digest(ADMIN))
    seen: list[tuple[int, str]] = []

    class Counting:
        def __init__(self, inner):
            self.app, self.started = inner, False

        async def __call__(self, scope, receive, send):
            if scope["type"] == "lifespan":
                self.started = True
            else:
                assert self.started, "a request before this middleware's lifespan began"
                seen.append((id(self), scope["path"]))
            await self.app(scope, receive, send)
    app.add_middleware(Counting)
    with TestClient(app) as test_client:
        duel = _duel(test_client)
        recorder = auth(duel["tokens"]["recorder"])
        assert test_client.post(f"/duels/{duel['id']}/events", json=SAMPLE[:1], headers=recorder).status_code == 200
        assert test_client.get("/health").status_code == 200
    assert len({instance for instance, _ in seen}) == 1 and len(seen) == 3


def test_a_dependency_overridden_by_an_embedder_is_never_skipped(client):  # noqa: F811
    """``DirectRoute`` called ``duel_caller`` itself: an override of it (a test's, an embedder's
    extra check) was honoured for every request but a plain append, the one that writes."""
    duel = _duel(client)
    refused: list[str] = []

    async def closed(duel_id: str):
        refused.append(duel_id)
        raise common.HTTPError(403, "closed for maintenance")
    client.app.dependency_overrides[core.duel_caller] = closed
    try:
        for query in ("", "?expected=0"):
            r = client.post(f"/duels/{duel['id']}/events{query}", json=SAMPLE[:1],
                            headers=auth(duel["tokens"]["recorder"]))
            assert r.status_code == 403 and r.json() == {"error": "closed for maintenance", "message": "closed for maintenance"}
    finally:
        client.app.dependency_overrides.clear()
    assert refused == [duel["id"]] * 2
    assert client.get(f"/duels/{duel['id']}/events", headers=ORGANISER).text == ""


def test_a_job_whose_thread_cannot_start_is_refused_and_never_run_later(monkeypatch):
    """``Threads.run`` queued the job before starting the thread meant to take it: a thread that
    could not start (the system's limit) raised to the append's caller, a 500 saying nothing was
    written, while its job stayed queued for the next thread free, which then wrote it."""
    threads = core.Threads(2, "attack")
    ran: list[str] = []
    release = threading.Event()
    threads.run(lambda: (release.wait(10), ran.append("first")))
    real_start = threading.Thread.start

    def refused(self):
        raise RuntimeError("can't start new thread")
    monkeypatch.setattr(threading.Thread, "start", refused)
    with pytest.raises(RuntimeError):
        threads.run(lambda: ran.append("refused"))
    monkeypatch.setattr(threading.Thread, "start", real_start)
    threads.run(lambda: ran.append("third"))          # a thread may start again, up to the most
    release.set()
    threads.close()
    for thread in list(threads._threads):
        thread.join(10)
        assert not thread.is_alive()
    assert sorted(ran) == ["first", "third"]
