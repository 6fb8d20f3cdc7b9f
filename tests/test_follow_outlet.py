"""A live stream's events written by its feed straight to each follower's connection (issue 25,
twenty-fourth pass): an event's bytes are framed once for every follower of a view and written to
each connection as they are, in the feed's one task, never through each follower's own task
and ASGI send; every follower still gets every event once, in order; a follower whose reader
does not read holds no other follower up and is told where to resume, what the service holds
for it bounded; and a match's followers are fed the same way.

Driven through the service's own protocol (``request_head.BoundedHttpTools``, as ``serve`` runs
it) on recording transports, so each write is seen as the server made it."""
from __future__ import annotations

import asyncio
import json

import uvicorn
from uvicorn.server import ServerState

from ygoreplay.events import from_dict
from ygoreplay.service import fanout, request_head

from test_attack_25 import ADMIN, SAMPLE, _served
from test_follow_fanout import _ids_and_data
from test_match_service import MATCHES, lines, match_body
from test_one_write import _Recorded

#: Where a transport tells its protocol to stop writing (asyncio's default high-water mark).
HIGH_WATER = 64 << 10


class _Wire(_Recorded):
    """A connection's transport keeping each write as it was given; ``stalled``: its reader reads
    nothing, so every byte written stays unsent (``get_write_buffer_size``), and past
    ``HIGH_WATER`` the protocol is told to pause, as a socket's transport does."""

    def __init__(self, stalled: bool = False) -> None:
        super().__init__()
        self.stalled = stalled
        self.unsent = 0
        self.paused = False

    def write(self, data: bytes) -> None:
        super().write(data)
        assert self.writes[-1] is data or type(data) is not bytes, "kept as given"
        if self.stalled:
            self.unsent += len(data)
            if self.unsent > HIGH_WATER and not self.paused:
                self.paused = True
                self.protocol.pause_writing()

    def get_write_buffer_size(self) -> int:
        return self.unsent

    def read_all(self) -> None:
        """Its reader reads everything, and from now on reads as it comes."""
        self.stalled, self.unsent = False, 0
        if self.paused:
            self.paused = False
            self.protocol.resume_writing()

    def body(self) -> bytes:
        """The response's body as its client reads it (its head dropped, its chunks joined)."""
        rest = b"".join(self.writes).partition(b"\r\n\r\n")[2]
        out = []
        while rest:
            size, _, after = rest.partition(b"\r\n")
            n = int(size, 16)
            if n == 0 or len(after) < n + 2:
                break
            assert after[n:n + 2] == b"\r\n", "each chunk framed as its length says"
            out.append(after[:n])
            rest = after[n + 2:]
        return b"".join(out)


class _Server:
    """The service's protocol as ``serve`` makes it, a connection a request, in this event loop."""

    def __init__(self, app) -> None:
        self.config = uvicorn.Config(app, log_level="warning", access_log=False,
                                     **request_head.server_settings(per_address=64))
        self.config.load()
        self.state = ServerState()
        self.wires: list[_Wire] = []

    def connect(self, request: bytes, stalled: bool = False) -> _Wire:
        protocol = self.config.http_protocol_class(config=self.config, server_state=self.state, app_state={},
                                                   _loop=asyncio.get_running_loop())
        wire = _Wire(stalled)
        wire.protocol = protocol
        protocol.connection_made(wire)
        protocol.data_received(request)
        self.wires.append(wire)
        return wire

    async def ask(self, method: str, path: str, token: str, body: object = None) -> dict:
        """A whole request's JSON answer."""
        data = json.dumps(body).encode() if body is not None else b""
        wire = self.connect(_request(method, path, token, data))
        for _ in range(3000):
            if wire.writes and b"".join(wire.writes).endswith(b"0\r\n\r\n") or b"content-length" in b"".join(
                    wire.writes).lower() and _whole(b"".join(wire.writes)):
                break
            await asyncio.sleep(0.01)
        raw = b"".join(wire.writes)
        head, _, rest = raw.partition(b"\r\n\r\n")
        assert head.split(b" ")[1] in (b"200", b"201"), raw[:500]
        return json.loads(rest if b"content-length" in head.lower() else wire.body())

    async def close(self) -> None:
        """Every client gone: each stream ends (its task's clean-up run) before the loop does."""
        for wire in self.wires:
            wire.protocol.connection_lost(None)
        for _ in range(200):
            await asyncio.sleep(0)


def _whole(raw: bytes) -> bool:
    head, _, rest = raw.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return len(rest) >= int(line.split(b":")[1])
    return False


def _request(method: str, path: str, token: str, body: bytes = b"") -> bytes:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""     # none: the public's
    return (f"{method} {path} HTTP/1.1\r\nHost: x\r\n{auth}"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body


async def _append(service, duel_id: str, events: list[dict], at: int) -> None:
    made = [from_dict(e, f"event {at + i}") for i, e in enumerate(events)]
    await asyncio.to_thread(service.hub.appending, duel_id,
                            lambda: service.records.append_records(duel_id, made, at, "recorder")[0])


async def _until_all(wires: list[_Wire], last: int) -> None:
    """Until every connection's client has read event ``last`` (or 30 s: the assertions say what is missing)."""
    for _ in range(3000):
        if all(any(n == last for n, _ in _ids_and_data(wire.body())) for wire in wires):
            return
        await asyncio.sleep(0.01)


def _event_writes(wire: _Wire) -> list[bytes]:
    return [w for w in wire.writes[1:] if b"\nevent: event\n" in w]


def test_an_events_bytes_are_framed_once_and_written_to_every_followers_connection(tmp_path):
    """Three spectators and two p0 followers of a duel with hidden cards, on the service's own
    protocol, as the duel is recorded: each is sent every event once, in order, as its own view's
    ``/events`` has it; and the bytes written to each connection for an event are the very same
    object for every follower of a view (framed once, written by the feed: no follower's task,
    ASGI send or framing an event), never the same across views."""
    store, app, service = _served(tmp_path)
    duel = service.create("written through", "public", 0, 0.0)
    roles = ["spectator", "spectator", "spectator", "p0", "p0"]
    shown = SAMPLE[:-1]                    # not its end: the duel's release would change what views see

    async def run() -> list[_Wire]:
        server = _Server(app)
        async with app.router.lifespan_context(app):
            wires = [server.connect(_request("GET", f"/duels/{duel['id']}/follow", duel["tokens"][role]))
                     for role in roles]
            for _ in range(100):
                await asyncio.sleep(0)
            for at in range(0, len(shown), 10):
                await _append(service, duel["id"], shown[at:at + 10], at)
                for _ in range(20):
                    await asyncio.sleep(0)
            await _until_all(wires, len(shown) - 1)
            await server.close()
        return wires

    try:
        wires = asyncio.run(run())
        views = {role: [step.to_dict(len(shown)) for step in service.hub.duels[duel["id"]].view(role).steps]
                 for role in ("spectator", "p0")}
    finally:
        store.close()
    for role, wire in zip(roles, wires):
        got = _ids_and_data(wire.body())
        assert [n for n, _ in got] == list(range(len(shown))), (role, "every event once, in order")
        assert [data for _, data in got] == json.loads(json.dumps(views[role])), (role, "its own view's events")
    for a, b in ((0, 1), (0, 2), (3, 4)):
        written = _event_writes(wires[a])
        shared = [w for w in written if any(w is x for x in _event_writes(wires[b]))]
        assert written and len(shared) == len(written), (roles[a], "an event's bytes made once for its view's followers")
    assert not {id(w) for w in _event_writes(wires[0])} & {id(w) for w in _event_writes(wires[3])}, "no bytes cross views"


def test_a_follower_whose_reader_does_not_read_holds_no_other_up_and_is_told_where_to_resume(tmp_path, monkeypatch):
    """Four followers, one of whose readers reads nothing while the duel is recorded: the other
    three are sent every event once, in order, meanwhile; the service never holds more than its
    bound (``QUEUED``, and one hand-out) unsent on the stalled connection (its socket's buffer
    included: nothing else queued for it); once it reads, it has every event it was written once,
    in order, then ``event: behind`` naming the next one, and its stream ends."""
    monkeypatch.setattr(fanout, "QUEUED", 4096)
    store, app, service = _served(tmp_path)
    duel = service.create("slow reader", "public", 0, 0.0)
    path = f"/duels/{duel['id']}/follow"
    held: list[int] = []

    async def run() -> list[_Wire]:
        server = _Server(app)
        async with app.router.lifespan_context(app):
            wires = [server.connect(_request("GET", path, duel["tokens"]["judge"])) for i in range(4)]
            for _ in range(100):
                await asyncio.sleep(0)
            live = service.hub.duels[duel["id"]]
            for at in range(0, len(SAMPLE) - 1, 4):
                await _append(service, duel["id"], SAMPLE[at:at + 4], at)
                for _ in range(20):
                    await asyncio.sleep(0)
                wires[1].stalled = True      # read its first events, then nothing
                held.append(wires[1].unsent + sum(f.size for feed in live.feeds.values() for f in feed.followers))
            await _until_all([w for i, w in enumerate(wires) if i != 1], len(SAMPLE) - 2)
            others = [w.body() for i, w in enumerate(wires) if i != 1]
            wires[1].read_all()
            for _ in range(3000):
                if wires[1].body().endswith(b"\n\n") and b"event: behind" in wires[1].body():
                    break
                await asyncio.sleep(0.01)
            await server.close()
        return wires, others

    try:
        wires, others = asyncio.run(run())
    finally:
        store.close()
    for sent in others:
        assert [n for n, _ in _ids_and_data(sent)] == list(range(len(SAMPLE) - 1)), "the others, while it stalled"
    sent = wires[1].body()
    assert b"event: behind\n" in sent, sent[-300:]
    resume = json.loads(sent.split(b"event: behind\ndata: ", 1)[1].split(b"\n", 1)[0])["from"]
    assert [n for n, _ in _ids_and_data(sent)] == list(range(resume)), "what it was written, once, in order"
    assert 0 < resume < len(SAMPLE) - 1
    assert sent.endswith(b'event: behind\ndata: {"from": %d}\n\n' % resume), "nothing after: its stream ended"
    largest = max(len(block) for block in sent.split(b"\n\n")) + 2
    assert max(held) <= 4096 + 4 * largest + 64, "never more than its bound (and one hand-out) held for it"


def test_a_matchs_followers_are_written_its_events_by_one_feed(tmp_path):
    """Three spectators of a match on the service's own protocol while its judge records rulings:
    each is sent every match event once, in order (the match's own ``/matches/{id}`` events), and
    an event's bytes are the same object on every connection: one feed the view, as a duel's
    (each follower encoded every event itself, in a loop of its own)."""
    store, app, service = _served(tmp_path)
    sample = lines(MATCHES / "ended-by-penalty.jsonl")
    rulings = [e for e in sample if e["kind"] in ("judge_called", "judge_ruled")]

    async def run() -> tuple[list[_Wire], dict, int]:
        server = _Server(app)
        async with app.router.lifespan_context(app):
            match = await server.ask("POST", "/matches", ADMIN, match_body(sample))
            m, tokens = match["id"], match["tokens"]
            await server.ask("POST", f"/matches/{m}/games", tokens["recorder"], {"first_player": 0, "chosen_by": 0})
            wires = [server.connect(_request("GET", f"/matches/{m}/follow", tokens["spectator"])) for _ in range(3)]
            for _ in range(100):
                await asyncio.sleep(0)
            count = (await server.ask("GET", f"/matches/{m}", tokens["judge"]))["events_count"]
            for i in range(3):
                await server.ask("POST", f"/matches/{m}/events?expected={count}", tokens["judge"], rulings)
                count += len(rulings)
                for _ in range(20):
                    await asyncio.sleep(0)
            await _until_all(wires, count - 1)
            events = await server.ask("GET", f"/matches/{m}", tokens["spectator"])
            await server.close()
        return wires, events, count

    try:
        wires, answer, count = asyncio.run(run())
    finally:
        store.close()
    for wire in wires:
        got = _ids_and_data(wire.body())
        assert [n for n, _ in got] == list(range(count)), "every match event once, in order"
        assert [data["event"] for _, data in got] == [e["event"] for e in answer["events"]]
    for other in wires[1:]:
        written = [w for w in _event_writes(wires[0]) if b"judge_called" in w]
        assert written and all(any(w is x for x in _event_writes(other)) for w in written), \
            "an event's bytes made once for its view's followers"


def test_a_change_of_access_heard_and_not_yet_read_stops_the_feeds_writes_until_asked(tmp_path, monkeypatch):
    """A public duel's spectators, written to by its feed, when the duel is made private: the
    change is heard (``Hub._access_heard`` marks the duel's record to be read again) and the
    next append lands before any follower's task has run. The feed must not write that event
    to a connection whose token was let in on the record before the change (the feed's
    ``version`` is none while a heard change is unread): each follower's task reads the record
    first, and is cut off. Written through, the spectators were sent the event of a duel no
    longer theirs to read."""
    store, app, service = _served(tmp_path)
    # heard here by hand, in the one moment between the hearing and the read: the store's own
    # listener would wake the followers, whose tasks read the record before the append came
    monkeypatch.setattr(service.hub, "_access_heard", lambda stream_id: None)
    duel = service.create("made private", "public", 0, 0.0)
    first, after = SAMPLE[:6], SAMPLE[6:8]

    async def run() -> list[_Wire]:
        server = _Server(app)
        async with app.router.lifespan_context(app):
            wires = [server.connect(_request("GET", f"/duels/{duel['id']}/follow", "")) for _ in range(2)]
            await _append(service, duel["id"], first, 0)
            await _until_all(wires, len(first) - 1)
            service.records.set_visibility(duel["id"], "private")
            service.hub.duels[duel["id"]].settings_changed()     # heard, not yet read
            await _append(service, duel["id"], after, len(first))
            for _ in range(300):
                await asyncio.sleep(0.01)
            await server.close()
        return wires

    try:
        wires = asyncio.run(run())
    finally:
        store.close()
    for wire in wires:
        assert [n for n, _ in _ids_and_data(wire.body())] == list(range(len(first))), \
            "no event after the change was heard: the record is read before anything more is written"
