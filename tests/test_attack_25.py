"""Attacks on the service's second ways in of issue 25: the append's direct route
(``core.DirectRoute``), the middlewares that read one header (``language.request_language``),
and the raw SSE response (``common.EventStream``) with its followers' wake-ups (``live.Alarm``).
Each test is a hole that was found, kept closed."""
from __future__ import annotations

import asyncio

from ygoreplay import i18n
from ygoreplay.access import digest
from ygoreplay.events import from_dict
from ygoreplay.service import create_app, language
from ygoreplay.store import Store

from test_release import ADMIN, events_of

SAMPLE = events_of("won-by-damage.jsonl")


# -- the Accept-Language cache -------------------------------------------------------------------------

def test_the_accept_language_cache_keeps_no_more_of_a_header_than_negotiation_reads(monkeypatch):
    """Each distinct header was kept whole as a key: uvicorn (httptools) takes a header of
    megabytes, so 1,024 requests pinned a gigabyte in every worker. A header is negotiated on
    its first ``i18n.ACCEPT_LANGUAGE_READ`` characters only; the cache keeps no more, and
    answers what negotiating the whole header answers."""
    monkeypatch.setattr(language, "_NEGOTIATED", {})
    headers = [b"ko;q=0.%d, ja;q=0.5," % (i % 10) + b"x" * 100_000 + b",%d" % i for i in range(40)]
    for header in headers:
        scope = {"type": "http", "query_string": b"", "headers": [(b"accept-language", header)]}
        assert language.request_language(scope) == i18n.negotiate(header.decode("latin-1"))
    assert sum(len(key) for key in language._NEGOTIATED) <= 40 * i18n.ACCEPT_LANGUAGE_READ
    assert len(language._NEGOTIATED) == 10          # the headers differ only past what is read


# -- a follower's wake-ups -------------------------------------------------------------------------------

def _served(tmp_path):
    store = Store(str(tmp_path / "duels.sqlite"), concurrent=True)
    app = create_app(store, digest(ADMIN))
    return store, app, app.state.service


async def _follow_while_its_send_waits(app, service, path: str, change, held: int = 1) -> list[bytes]:
    """Follow ``path`` with a reader that does not take its ``held``-th chunk at once (a slow
    reader: the server's send waits on its transport), ``change`` the stream meanwhile, then
    take what comes: the bodies sent once the loop has nothing left to run but timers. ``held``
    0: all of an ended duel's stream, taken at once."""
    service.hub.start(asyncio.get_running_loop())
    bodies: list[bytes] = []
    first_sent, reader_reads, gone = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def send(message: dict) -> None:
        if message["type"] == "http.response.body":
            bodies.append(message["body"])
            if len(bodies) == held:
                first_sent.set()
                await reader_reads.wait()

    async def receive() -> dict:
        await gone.wait()
        return {"type": "http.disconnect"}

    scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [(b"authorization", f"Bearer {ADMIN}".encode()), (b"host", b"test")],
             "scheme": "http", "server": ("test", 80), "client": ("127.0.0.1", 1), "root_path": "",
             "http_version": "1.1", "asgi": {"version": "3.0"}}
    task = asyncio.ensure_future(app(scope, receive, send))
    if held:
        await first_sent.wait()
        await change()                               # while the follower's chunk is still being sent
        reader_reads.set()
        for _ in range(200):                         # no clock: only what the loop runs now
            await asyncio.sleep(0)
        gone.set()
    await task                                       # (held 0: a duel that ended, its stream ends)
    return bodies


def test_a_duel_changed_while_its_followers_send_waits_wakes_it(tmp_path):
    """The follower asked to be woken only after its chunk was sent: a change while a slow
    reader's send waited woke nobody, and the follower slept to its next keep-alive (15 s, the
    duel's end included). It listens before it reads now."""
    store, app, service = _served(tmp_path)
    duel = service.create("slow reader", "public", 0, 0.0)

    async def append() -> None:
        events = [from_dict(e, f"event {i}") for i, e in enumerate(SAMPLE[:5])]
        await asyncio.to_thread(service.hub.appending, duel["id"],
                                lambda: service.records.append_records(duel["id"], events, 0, "recorder")[0])
    try:
        bodies = asyncio.run(_follow_while_its_send_waits(app, service, f"/duels/{duel['id']}/follow", append))
    finally:
        store.close()
    sent = b"".join(bodies)
    assert b"id: 4\n" in sent, sent[:300]


def test_a_match_changed_while_its_followers_send_waits_wakes_it(tmp_path):
    """The same for a match's followers (they waited on ``Hub.wait`` after each send)."""
    import httpx
    from test_match_service import MATCHES, lines

    store, app, service = _served(tmp_path)
    sample = lines(MATCHES / "two-nil.jsonl")
    start = sample[0]
    body = {"title": "slow reader", "players": start["players"], "policy": start["policy"],
            "banlist": {"name": start["banlist"], "limits": start.get("limits", [])},
            "decklists": [{k: ev[k] for k in ("main", "extra", "side") if k in ev}
                          for ev in sample[1:3] if ev["kind"] == "decklist_registered"]}
    game = next(ev for ev in sample if ev["kind"] == "game_started")

    async def run() -> list[bytes]:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://test",
                                     headers={"Authorization": f"Bearer {ADMIN}"}) as client:
            made = await client.post("/matches", json=body)
            assert made.status_code == 201, made.text
            match_id = made.json()["id"]

            async def start_game() -> None:
                r = await client.post(f"/matches/{match_id}/games",
                                      json={k: game[k] for k in ("first_player", "chosen_by") if k in game})
                assert r.status_code == 201, r.text
            # its first send (what came before it joined, in one chunk: the match's feed sends a
            # follower's catch-up at once; counted an event a send, the change waited for three
            # keep-alives, 45 s)
            return await _follow_while_its_send_waits(app, service, f"/matches/{match_id}/follow", start_game, 1)
    try:
        sent = b"".join(asyncio.run(run()))
    finally:
        store.close()
    assert b"game_started" in sent, sent[-300:]


def test_a_follower_that_leaves_leaves_no_waiter_behind(tmp_path):
    """A follower that left kept its duel's set of waiters (empty) in the hub for good, one a
    duel ever followed; listening before it reads, it would keep a future a connection. Both
    are gone once it leaves."""
    store, app, service = _served(tmp_path)
    duel = service.create("leaves", "public", 0, 0.0)

    async def nothing() -> None:
        pass
    try:
        asyncio.run(_follow_while_its_send_waits(app, service, f"/duels/{duel['id']}/follow", nothing))
    finally:
        store.close()
    assert duel["id"] not in service.hub._waiters


def test_a_follower_far_behind_is_sent_the_duel_in_chunks_of_a_bounded_size(tmp_path, monkeypatch):
    """Every event ready at a wake-up went out as one send: a follower from ``from=0`` of a long
    duel was handed the whole duel's encoding at once, which the server's transport holds
    whole for a reader that never reads (its send waits only past the transport's buffer), a
    copy a follower: 2,000 followers of a 10 MB duel pinned 20 GB. A send is one chunk of at
    most ``CHUNK`` bytes and one event more now, and every event still arrives once, in order."""
    from ygoreplay.service import duels

    monkeypatch.setattr(duels, "CHUNK", 2048, raising=False)
    store, app, service = _served(tmp_path)
    duel = service.create("far behind", "public", 0, 0.0)
    events = [from_dict(e, f"event {i}") for i, e in enumerate(SAMPLE)]
    # through the hub, as the service's append does (the duel is held here since its creation)
    service.hub.appending(duel["id"], lambda: service.records.append_records(duel["id"], events, 0, "recorder")[0])

    try:
        bodies = asyncio.run(_follow_while_its_send_waits(app, service, f"/duels/{duel['id']}/follow", None, 0))
    finally:
        store.close()
    sent = b"".join(bodies).split(b"\n\n")
    ids = [int(block.split(b"\n")[0][4:]) for block in sent if block.startswith(b"id: ")]
    assert ids == list(range(len(SAMPLE)))
    largest_event = max(len(block) + 2 for block in sent)
    assert len(bodies) > 2 and max(len(body) for body in bodies) <= 2048 + largest_event
