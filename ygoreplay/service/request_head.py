"""A request's head (its line and headers) bounded before it is parsed whole, for every server
that runs the service (``serve``, its workers, ``demo``: ``server_settings``).

uvicorn's HTTP parser (httptools) builds a header's value and the request's target by adding each
piece read to the whole, and sets no bound: one connection sending a header of many megabytes
held the one event loop copying it (every other request waited tens of seconds) and the memory
grew with it. Past ``MAX_HEAD`` bytes of one head the connection is answered 431 and closed; h11,
where httptools is not installed, is held to the same bound by its own setting.
"""
from __future__ import annotations

import json
from typing import Any

#: The most bytes of a request's line and headers: a real one is well under 8 KiB (a browser's
#: cookies and all); 64 KiB is what the service's largest query (a long search) needs many times over.
MAX_HEAD = 64 << 10

_REFUSAL = json.dumps({"error": f"the request's line and headers are over {MAX_HEAD} bytes"}).encode()
_ANSWER = (b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: application/json\r\n"
           b"connection: close\r\ncontent-length: " + str(len(_REFUSAL)).encode() + b"\r\n\r\n" + _REFUSAL)


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
    start of the next one (pipelined) is no head's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head: int | None = 0           # bytes of the head read so far; None in a body
        self._began = False
        self._refused = False

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head, self._began = 0, True

    def on_headers_complete(self) -> None:
        self._head = None
        super().on_headers_complete()

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


__all__ = ["MAX_HEAD", "BoundedHttpTools", "server_settings"]
