"""A duel's followers fed by one ``Feed`` a view (``service.fanout``): the bytes of an event are
made once and shared by every follower of the same view, never across views (a player's hand is
not in the other player's or a spectator's stream), and a follower whose reader does not keep up
is told to resume from its last event instead of being queued ever more."""
from __future__ import annotations

import asyncio
import json

from ygoreplay.events import from_dict
from ygoreplay.service import fanout

from test_attack_25 import SAMPLE, _served


def _scope(path: str, token: str) -> dict:
    return {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
            "headers": [(b"authorization", f"Bearer {token}".encode()), (b"host", b"test")],
            "scheme": "http", "server": ("test", 80), "client": ("127.0.0.1", 1), "root_path": "",
            "http_version": "1.1", "asgi": {"version": "3.0"}}


async def _turns(n: int = 100) -> None:
    for _ in range(n):                     # no clock: only what the loop runs now
        await asyncio.sleep(0)


async def _append(service, duel_id: str, events: list[dict], at: int) -> None:
    made = [from_dict(e, f"event {at + i}") for i, e in enumerate(events)]
    await asyncio.to_thread(service.hub.appending, duel_id,
                            lambda: service.records.append_records(duel_id, made, at, "recorder")[0])


def _ids_and_data(sent: bytes) -> list[tuple[int, dict]]:
    out = []
    for block in sent.split(b"\n\n"):
        lines = dict(line.split(b": ", 1) for line in block.split(b"\n") if b": " in line)
        if b"id" in lines:
            out.append((int(lines[b"id"]), json.loads(lines[b"data"])))
    return out


def test_followers_share_an_events_bytes_within_their_view_and_never_across_views(tmp_path):
    """Two followers each of p0, p1 and a spectator on a duel with hidden cards (hands drawn, a
    monster and a card set): one feed a view, the same bytes object sent to both followers of a
    view, and each follower sent what its own view's ``/events`` says, event for event, which
    for the three views differ (p0's hand is p0's)."""
    store, app, service = _served(tmp_path)
    duel = service.create("three views", "public", 0, 0.0)
    path = f"/duels/{duel['id']}/follow"
    roles = ["p0", "p0", "p1", "p1", "spectator", "spectator"]
    shown = SAMPLE[:-1]                    # not its end: the duel's release would change what views see
    sent: list[list[bytes]] = [[] for _ in roles]

    async def run() -> dict:
        service.hub.start(asyncio.get_running_loop())
        gone = asyncio.Event()

        async def receive() -> dict:
            await gone.wait()
            return {"type": "http.disconnect"}

        def sender(i: int):
            async def send(message: dict) -> None:
                if message["type"] == "http.response.body":
                    sent[i].append(message["body"])
            return send
        tasks = [asyncio.ensure_future(app(_scope(path, duel["tokens"][role]), receive, sender(i)))
                 for i, role in enumerate(roles)]
        await _turns()
        live = service.hub.duels[duel["id"]]
        for at in range(0, len(shown), 10):
            await _append(service, duel["id"], shown[at:at + 10], at)
            await _turns()
        # the feed may read a view's steps in a thread (``catch_up``): the loop's turns alone do not
        # wait for that; every follower is given until it has the last event (or 30 s) before it goes
        for _ in range(3000):
            if all(any(n == len(shown) - 1 for n, _ in _ids_and_data(b"".join(part))) for part in sent):
                break
            await asyncio.sleep(0.01)
        feeds = dict(live.feeds)
        gone.set()
        await asyncio.gather(*tasks)
        return feeds

    try:
        feeds = asyncio.run(run())
        views = {}
        for role in ("p0", "p1", "spectator"):
            events = service.hub.duels[duel["id"]].view(role).steps
            views[role] = [step.to_dict(len(shown)) for step in events]
    finally:
        store.close()
    assert sorted(feed.view for feed in feeds.values()) == ["p0", "p1", "spectator"], "one feed a view"
    assert len({id(feed.live_view) for feed in feeds.values()}) == 3
    for i, role in enumerate(roles):
        got = _ids_and_data(b"".join(sent[i]))
        assert [n for n, _ in got] == list(range(len(shown))), (role, "every event once, in order")
        assert [data for _, data in got] == json.loads(json.dumps(views[role])), (role, "its own view's events")
    for a, b in ((0, 1), (2, 3), (4, 5)):
        shared = [x for x in sent[a][1:] if any(x is y for y in sent[b])]
        assert shared, (roles[a], "the followers of one view are sent the same bytes")
    for a, b in ((0, 2), (0, 4), (2, 4)):
        assert not {id(x) for x in sent[a][1:]} & {id(x) for x in sent[b][1:]}, (roles[a], roles[b])
        assert _ids_and_data(b"".join(sent[a])) != _ids_and_data(b"".join(sent[b])), "the views differ"


def test_a_follower_whose_reader_falls_behind_is_told_to_resume_not_queued_more(tmp_path, monkeypatch):
    """A reader that does not read while its duel goes on: its follower is handed up to ``QUEUED``
    bytes, sent them once the reader reads, then ``event: behind`` saying where to resume (its
    last event's id + 1, as ``Last-Event-ID`` resumes) and its stream ends: what a slow reader
    costs the server is bounded, whatever the duel's length."""
    monkeypatch.setattr(fanout, "QUEUED", 4096)
    store, app, service = _served(tmp_path)
    duel = service.create("slow reader", "public", 0, 0.0)
    path = f"/duels/{duel['id']}/follow"
    bodies: list[bytes] = []
    queued: list[int] = []

    async def run() -> None:
        service.hub.start(asyncio.get_running_loop())
        first_sent, reader_reads, gone = asyncio.Event(), asyncio.Event(), asyncio.Event()

        async def send(message: dict) -> None:
            if message["type"] == "http.response.body":
                bodies.append(message["body"])
                if len(bodies) == 1:
                    first_sent.set()
                    await reader_reads.wait()

        async def receive() -> dict:
            await gone.wait()
            return {"type": "http.disconnect"}
        task = asyncio.ensure_future(app(_scope(path, duel["tokens"]["judge"]), receive, send))
        await first_sent.wait()
        live = service.hub.duels[duel["id"]]
        for at in range(0, len(SAMPLE) - 1, 4):
            await _append(service, duel["id"], SAMPLE[at:at + 4], at)
            await _turns(20)
            queued.extend(f.size for feed in live.feeds.values() for f in feed.followers)
        reader_reads.set()
        await _turns(200)
        gone.set()
        await task

    try:
        asyncio.run(run())
    finally:
        store.close()
    sent = b"".join(bodies)
    assert b"event: behind\n" in sent, sent[-300:]
    resume = json.loads(sent.split(b"event: behind\ndata: ", 1)[1].split(b"\n", 1)[0])["from"]
    ids = [n for n, _ in _ids_and_data(sent)]
    assert ids == list(range(resume)), "what it was handed, once, in order, then where to resume"
    assert 0 < resume < len(SAMPLE) - 1
    assert sent.endswith(b'event: behind\ndata: {"from": %d}\n\n' % resume), "nothing after: its stream ended"
    largest = max(len(block) for block in sent.split(b"\n\n")) + 2
    assert max(queued) <= 4096 + 4 * largest, "never more than its bound (and one hand-out) queued"
