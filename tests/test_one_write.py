"""A response leaves the service in one write (issue 25): uvicorn writes a response's head (status
line and headers) and then its body, two writes, so two TCP segments, two system calls of the
worker's event loop and two wake-ups of the client for every append. The service's protocol
(``request_head.BoundedHttpTools``) holds the head until the body's first bytes
(``request_head._OneWrite``), or until the loop's turn ends when none comes in it (a stream's head).

Driven here through the service's own protocol on a recording transport, so each write is seen
as the server made it."""
from __future__ import annotations

import asyncio
import json

import uvicorn
from uvicorn.server import ServerState

from test_service_delay import ADMIN, open_store
from ygoreplay.access import digest
from ygoreplay.service import create_app, request_head


class _Recorded(asyncio.Transport):
    """A connection's transport that keeps each write apart."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False
        self.protocol: asyncio.BaseProtocol | None = None

    def get_extra_info(self, name: str, default: object = None) -> object:
        return {"peername": ("127.0.0.1", 40000), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def write(self, data: bytes) -> None:
        assert not self.closed, "written after its close"
        self.writes.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def get_protocol(self) -> asyncio.BaseProtocol | None:
        return self.protocol


def _request(method: str, path: str, body: bytes = b"") -> bytes:
    return (f"{method} {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {ADMIN}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body


async def _answers(app, requests: list[bytes]) -> list[bytes]:
    """Each request sent on one kept-alive connection of the service's protocol, in turn: the
    writes each answer was made of, as the server made them."""
    config = uvicorn.Config(app, log_level="warning", access_log=False, **request_head.server_settings(per_address=8))
    config.load()
    protocol = config.http_protocol_class(config=config, server_state=ServerState(), app_state={},
                                          _loop=asyncio.get_running_loop())
    transport = _Recorded()
    transport.protocol = protocol
    protocol.connection_made(transport)
    answers = []
    async with app.router.lifespan_context(app):
        for request in requests:
            before = len(transport.writes)
            protocol.data_received(request)
            for _ in range(2000):
                if protocol.cycle is not None and protocol.cycle.response_complete:
                    break
                await asyncio.sleep(0.005)
            await asyncio.sleep(0)          # a turn of the loop: a head still held would be written now
            answers.append(transport.writes[before:])
    protocol.connection_lost(None)
    return answers


def test_an_answer_is_written_once_head_and_body_together(tmp_path):
    """/health and a duel made (a write of the store, in a thread, as an append's): each answer's
    head and body in one write. Before, each was two (the head, then the body)."""
    with open_store(tmp_path / "s.sqlite") as store:
        app = create_app(store, digest(ADMIN))
        health, made = asyncio.run(_answers(app, [
            _request("GET", "/health"),
            _request("POST", "/duels", json.dumps({"title": "one write"}).encode())]))
    for writes, status, body in ((health, b"200", b'"ok":true'), (made, b"201", b'"tokens"')):
        assert len(writes) == 1, writes
        head, _, rest = writes[0].partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 " + status) and body in rest, writes[0]
        length = next(int(line.split(b":")[1]) for line in head.lower().split(b"\r\n")
                      if line.startswith(b"content-length:"))
        assert len(rest) == length


def test_a_head_with_no_body_in_its_turn_is_written_at_the_turns_end_and_before_a_close():
    """A stream's head is not held for its first event: written once the loop's turn ends; and a
    close writes a head still held before it closes (nothing of the answer dropped)."""
    async def run() -> tuple[list[bytes], list[bytes], list[bytes], bool]:
        loop = asyncio.get_running_loop()
        transport = _Recorded()
        streamed = request_head._OneWrite(transport, loop)
        streamed.write(b"HTTP/1.1 200 OK\r\n\r\n")
        held = list(transport.writes)
        await asyncio.sleep(0)
        flushed = list(transport.writes)
        streamed.write(b"data: 1\n\n")
        closing = _Recorded()
        closed = request_head._OneWrite(closing, loop)
        closed.write(b"HTTP/1.1 200 OK\r\n\r\n")
        closed.close()
        await asyncio.sleep(0)               # its turn's end writes nothing more once closed
        return held, flushed + transport.writes[len(flushed):], closing.writes, closing.closed
    held, written, closing, closed = asyncio.run(run())
    assert held == []
    assert written == [b"HTTP/1.1 200 OK\r\n\r\n", b"data: 1\n\n"]
    assert closing == [b"HTTP/1.1 200 OK\r\n\r\n"] and closed
