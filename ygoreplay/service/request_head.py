"""A request's head (its line and headers) bounded before it is parsed whole, for every server
that runs the service (``serve``, its workers, ``demo``: ``server_settings``).

uvicorn's HTTP parser (httptools) builds a header's value and the request's target by adding each
piece read to the whole, and sets no bound: one connection sending a header of many megabytes
held the one event loop copying it (every other request waited tens of seconds) and the memory
grew with it. Past ``MAX_HEAD`` bytes of one head the connection is answered 431 and closed; h11,
where httptools is not installed, is held to the same bound by its own setting.

Nor does uvicorn set a time for a head to come in: a connection that sent nothing, or a byte of
its head every few seconds (just under any bound), was held open for ever, and a few hundred
such held every file descriptor the process may open (slowloris): no one else was answered.
A head not whole ``HEAD_SECONDS`` after its connection opened (or after a later request's first
byte: the wait between requests is uvicorn's keep-alive timeout) is answered 408 and closed.
"""
from __future__ import annotations

import json
from typing import Any

#: The most bytes of a request's line and headers: a real one is well under 8 KiB (a browser's
#: cookies and all); 64 KiB is what the service's largest query (a long search) needs many times over.
MAX_HEAD = 64 << 10

#: The most seconds a request's head may take to come in whole: a real client sends it at once
#: (a slow phone's network in well under a second or two); a table's device on a bad line has
#: many times that.
HEAD_SECONDS = 20.0


def _answer(status: bytes, error: str) -> bytes:
    """A whole response closing the connection: ``status`` and ``{"error": error}``."""
    body = json.dumps({"error": error}).encode()
    return (b"HTTP/1.1 " + status + b"\r\ncontent-type: application/json\r\nconnection: close\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\n\r\n" + body)


_ANSWER = _answer(b"431 Request Header Fields Too Large", f"the request's line and headers are over {MAX_HEAD} bytes")
_LATE = _answer(b"408 Request Timeout", f"the request's line and headers did not come in within {HEAD_SECONDS:g} seconds")


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:                       # no httptools: uvicorn's h11, bounded by its own setting
    HttpToolsProtocol = None


def server_settings() -> dict[str, Any]:
    """The ``uvicorn.Config`` settings every server of the service is made with. The protocol is
    named, not given: a worker process is handed its settings pickled, and a class would be
    imported (with the whole service) while the worker unpickles them, before it handles Ctrl-C;
    a name is imported where the worker loads the application."""
    if HttpToolsProtocol is None:
        return {"http": "h11", "h11_max_incomplete_event_size": MAX_HEAD}
    return {"http": f"{__name__}:BoundedHttpTools", "h11_max_incomplete_event_size": MAX_HEAD}


class BoundedHttpTools(HttpToolsProtocol or object):  # type: ignore[misc]
    """httptools, counting the bytes of each request's head as they come: past ``MAX_HEAD``, 431
    and the connection closed (no application has seen the request yet). Bytes are counted only
    in reads that began and ended inside one head, so a read holding a whole request and the
    start of the next one (pipelined) is no head's. A head not whole ``HEAD_SECONDS`` after the
    connection opened or its first byte came: 408 (``_late``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head: int | None = 0           # bytes of the head read so far; None in a body
        self._began = False
        self._refused = False
        self._deadline: Any = None           # the timer of the head awaited, if one is

    def connection_made(self, transport: Any) -> None:   # type: ignore[override]
        super().connection_made(transport)
        self._deadline = self.loop.call_later(HEAD_SECONDS, self._late)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head, self._began = 0, True
        if self._deadline is None:           # a later request's: timed from its first byte
            self._deadline = self.loop.call_later(HEAD_SECONDS, self._late)

    def on_headers_complete(self) -> None:
        self._head = None
        self._disarm()
        super().on_headers_complete()

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _late(self) -> None:
        """The head awaited did not come in time: 408 and closed, or, while an earlier request
        of the connection is being answered (pipelined), closed once it is."""
        self._deadline = None
        if self._head is None or self._refused or self.transport.is_closing():
            return
        self._refused = True
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.keep_alive = False
            return
        self.transport.write(_LATE)
        self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        self._began = False
        counting = self._head is not None
        super().data_received(data)
        if counting and self._head is not None and not self._began:
            self._head += len(data)
            if self._head > MAX_HEAD:
                self._refused = True
                self.transport.write(_ANSWER)
                self.transport.close()


__all__ = ["HEAD_SECONDS", "MAX_HEAD", "BoundedHttpTools", "server_settings"]
