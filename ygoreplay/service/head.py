"""HEAD answered as GET without its body, for every route, in one place (RFC 9110 §9.3.2).

A HEAD request runs the GET route it names (the same caller, redaction, status and headers,
``Content-Length`` included: what a GET would answer), and only the head of the answer is sent:
the route's body is dropped. A stream (Server-Sent Events) is told its client has gone once its
head is sent, so a HEAD never holds the connection open. A path no GET takes answers as a GET
does (404, or 405 naming the methods it takes)."""
from __future__ import annotations

import asyncio

from starlette.types import ASGIApp, Message, Receive, Scope, Send


async def head_as_get(app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
    """Answer the HEAD request ``scope`` with ``app``'s answer to the same request as GET, its
    head only (``ServiceApp.__call__``: the one place, before every middleware and route)."""
    answered = asyncio.Event()

    async def head_only(message: Message) -> None:
        if answered.is_set():
            return                                  # the body, and anything after it: not sent
        await send(message)
        if message["type"] == "http.response.start":
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            answered.set()

    async def until_answered() -> Message:
        if answered.is_set():
            return {"type": "http.disconnect"}
        asked = asyncio.ensure_future(receive())
        done = asyncio.ensure_future(answered.wait())
        try:
            await asyncio.wait((asked, done), return_when=asyncio.FIRST_COMPLETED)
        finally:
            done.cancel()
        if asked.done():
            return asked.result()
        asked.cancel()
        return {"type": "http.disconnect"}       # the head is sent: the route's stream ends

    await app({**scope, "method": "GET"}, until_answered, head_only)
