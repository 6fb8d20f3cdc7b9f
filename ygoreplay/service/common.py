"""What every router of the service shares: the error a request meets and its status (mapped in
one place, ``_errors``), who is asking (``Caller``), the body limit, and reading a body of JSON
or of events."""
from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass
from itertools import islice
from typing import Any, AsyncIterator

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send

from .. import viewer
from ..access import NARROWER, filed_as
from ..application import violation_dict
from ..errors import (
    ConflictError, Forbidden, InputError, StoreError, StoreUnavailable, Unconfirmed, VerificationError, YgoreplayError)
from ..events import EventFormatError, from_dict
from ..i18n import DEFAULT, N_, current, message_dict, say, using
from ..jsonl import parse_lines
from ..match import commands
from ..receipts import Receipt
from ..rules import RuleViolation
from . import validation
from .language import request_language

MAX_BODY = 16 << 20              # an upload; a batch of events is far smaller
#: A body over ``MAX_BODY`` (413), said as every refusal (``_over_body``).
_OVER_BODY = N_("the request body is over {count} bytes")
MAX_EVENTS = 10_000              # events in one append
#: What a JSON body may hold, counted before it is parsed as its ``,``, ``[`` and ``{`` (at least
#: one each a value past the first; those in strings count too): 10,000 events take 25,000 to
#: 100,000, a banlist of ``MAX_BANLIST`` cards 60,000. 16 MiB of ``[],`` built 420 MB of lists in
#: 8 s, on the event loop.
MAX_JSON_VALUES = 1 << 20
#: Lines of a JSON Lines body (blank and comment lines are lines): 16 MiB of newlines split into
#: 16 million strings (150 MB) before the first event was read.
MAX_LINES = 1 << 20
#: What a body of events may hold, as the OpenAPI description says it.
BODY_LIMITS = (f"At most {MAX_EVENTS:,} events and {MAX_BODY >> 20} MiB (413 past it); a JSON body at most "
               f"{MAX_JSON_VALUES:,} values, counted before it is parsed as its ',', '[' and '{{', and a body of "
               f"JSON Lines at most {MAX_LINES:,} lines (400 past either).")
KEEPALIVE = 15.0                 # seconds between SSE comments on a quiet duel or match
VIEW = "^(judge|p0|p1|spectator|table)$"   # a view a token may ask for (``view=``; ``access.TABLE``)

#: The status of each reason a match write is refused before its rules (``commands.Refused``).
REFUSED = {"forbidden": 403, "invalid": 400, "conflict": 409}

_DUEL_ID = re.compile(r"[0-9a-f]{12}")
_PAGE_HEADERS = {"Content-Security-Policy": viewer.POLICY, "Referrer-Policy": "no-referrer",
                 "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Cache-Control": "no-cache"}


class HTTPError(Exception):
    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


@dataclass
class Caller:
    """Who is asking about a duel: their role, and the view they get."""

    role: str
    view: str
    released: bool = False           # what the duel hid is released: the judge view is everyone's
    #: The duel's ``LiveDuel.access_version`` before its role was decided: a stream asks again
    #: whether it may read on once the version differs (a change read meanwhile is not missed).
    access_version: int = 0
    #: Let in on the access record as held, due to be read again: an append asks again with it read
    #: in its own thread (``core.append_caller``, ``core.confirmed``).
    confirm: bool = False

    @property
    def views(self) -> tuple[str, ...]:
        """The views this caller may ask for."""
        own = NARROWER[self.view]
        return own if not self.released or "judge" in own else ("judge", *own)


class _Limit:
    """Refuses a request body larger than ``MAX_BODY`` before it is read whole (413); and marks
    every answer that says nothing of caching ``no-store`` (each is a token's own: a shared cache
    or a browser's history must not keep it)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = _stated_length(scope)
        if length is not None and not _within_limit(length):
            return await _http_error(_over_body())(scope, receive, send)

        async def uncached(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = message.get("headers") or []
                if _says_nothing_of_caching(headers):
                    message = {**message, "headers": [*headers, (b"cache-control", b"no-store")]}
            await send(message)
        return await self.app(scope, _limited(receive), uncached)


def _limited(receive: Receive) -> Receive:
    """``receive``, refusing a body once more than ``MAX_BODY`` bytes of it came (413), whatever
    length it stated: a server need not hold a body to its ``Content-Length`` (nor to one sent
    with ``Transfer-Encoding``)."""
    seen = 0

    async def limited() -> dict:
        nonlocal seen
        message = await receive()
        seen += len(message.get("body", b""))
        if seen > MAX_BODY:
            raise _over_body()
        return message
    return limited


def _over_body() -> HTTPError:
    """The 413 of a body over ``MAX_BODY``, stated so or found so while it came (chunked, or past
    its ``Content-Length``): one error, answered as every refusal (``_http_error``)."""
    return HTTPError(413, _OVER_BODY.format(count=MAX_BODY))


def _stated_length(scope: Scope) -> bytes | None:
    """A request's ``Content-Length`` (the last one, as a dict of the headers keeps it), if any."""
    length = None
    for name, value in scope.get("headers") or ():
        if name == b"content-length":
            length = value
    return length


def _within_limit(length: bytes) -> bool:
    """Whether a stated body length is a number of bytes within ``MAX_BODY`` (else 413)."""
    return length.isdigit() and int(length) <= MAX_BODY


def _says_nothing_of_caching(headers: list) -> bool:
    """Whether an answer's headers say nothing of caching (``_Limit`` then adds ``no-store``)."""
    for name, _ in headers:            # a loop, not ``any`` of a generator: each append's answer
        if name.lower() == b"cache-control":
            return False
    return True


def _json(status: int, data: dict) -> JSONResponse:
    return JSONResponse(data, status_code=status)


def _ygr(data: bytes, record_id: str, view: str) -> Response:
    """A ``.ygr`` file to save (a view's own: never kept by a cache), named for the record and the
    view it is filed as: the table's is a spectator's file (``access.filed_as``), so named."""
    filename = f"{record_id}.{filed_as(view)}.ygr"
    return Response(data, media_type="application/x-ygoreplay",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"', "Cache-Control": "no-store"})


class EventStream(Response):
    """Server-Sent Events, past any cache and any proxy's buffer, handed to the server as they
    come: each chunk the stream yields (every event ready when its follower woke, already
    encoded) is one ``send``, with none of a streaming response's per-chunk work. The client
    leaving ends the stream (its generator is closed where it waits), so a follower never asks
    on each wake-up whether anyone is still there. ``connection`` (a ``fanout.Connection``) is
    told the connection it is answered on (``OUTLET``: the service's own protocol's, which the
    stream's feed writes to itself; None over any other server)."""

    media_type = "text/event-stream"

    def __init__(self, chunks: AsyncIterator[bytes | str], status_code: int = 200, connection: Any = None) -> None:
        self.chunks = chunks
        self.connection = connection
        self.status_code = status_code           # (OpenAPI reads the default here)
        self.background = None
        self.init_headers({"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.connection is not None:
            self.connection.outlet = scope.get(OUTLET)
        pump = asyncio.ensure_future(self._pump(send))
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            await asyncio.wait((pump, gone), return_when=asyncio.FIRST_COMPLETED)
        finally:
            pump.cancel()
            gone.cancel()
            await asyncio.wait((pump, gone))       # the stream's own clean-up has run
        if not pump.cancelled() and pump.exception() is not None:
            raise pump.exception()

    async def _pump(self, send: Send) -> None:
        chunks = self.chunks
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        try:
            async for chunk in chunks:
                await send({"type": "http.response.body", "more_body": True,
                            "body": chunk if isinstance(chunk, bytes) else chunk.encode()})
        finally:
            await chunks.aclose()             # type: ignore[attr-defined]  (an async generator)
        await send({"type": "http.response.body", "body": b"", "more_body": False})


#: The key of a request's scope holding its connection as a stream's feed writes to it
#: (``request_head.Outlet``), where the service's own protocol serves it.
OUTLET = "ygoreplay.outlet"


async def _disconnected(receive: Receive) -> None:
    """Until the client has gone (what else it sends, a request body, is of no interest)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def _events(data: Any) -> list:
    """Events from a request body (a JSON array of event objects), or 400 naming the one that is not."""
    if not isinstance(data, list):
        raise HTTPError(400, say("the body must be a JSON array of events"), where="body")
    if len(data) > MAX_EVENTS:
        raise HTTPError(400, say("at most {most} events in one request, not {count}",
                                 most=MAX_EVENTS, count=len(data)), where="body")
    out = []
    for i, item in enumerate(data):
        try:
            out.append(from_dict(item, f"event {i}"))
        except EventFormatError as exc:
            raise HTTPError(400, exc.detail, where=f"event {i}", index=i) from None
    return out


#: The media types of a body of events in JSON Lines, one event a line (as the samples are written).
JSON_LINES = ("application/x-ndjson", "application/jsonl", "application/json-lines")


async def _request_events(request: Request) -> list:
    """The events of a request body: a JSON array, or JSON Lines (``Content-Type: application/x-ndjson``)
    read by the parser ``record`` reads files with (``jsonl.parse_lines``: blank lines and ``#``
    comments skipped), so a sample file is posted as it is; 400 naming the line that is not an event."""
    if request.headers.get("content-type", "").split(";")[0].strip().lower() not in JSON_LINES:
        return _events(await _body_json(request))
    try:
        text = (await request.body()).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HTTPError(400, say("the body is not UTF-8 text (byte {byte})", byte=exc.start), where="body") from None
    lines = text.count("\n") + 1
    if lines > MAX_LINES:
        raise HTTPError(400, say("the body is {lines:,} lines; a body of JSON Lines holds at most {most:,}",
                                 lines=lines, most=MAX_LINES),
                        where="body")
    try:
        events = list(islice(parse_lines(text.split("\n"), "body"), MAX_EVENTS + 1))
    except EventFormatError as exc:
        raise HTTPError(400, exc.detail, where=exc.where) from None
    if len(events) > MAX_EVENTS:
        raise HTTPError(400, say("at most {most} events in one request", most=MAX_EVENTS), where="body")
    return events


async def _body_json(request: Request) -> Any:
    """The request body parsed as JSON; 400 saying why when it is not, or when it holds more
    values than any request needs (counted before one is built)."""
    raw = await request.body()
    values = raw.count(b",") + raw.count(b"[") + raw.count(b"{")
    if values > MAX_JSON_VALUES:
        raise HTTPError(400, say("the body holds up to {values:,} JSON values (its {marks}); a request holds at "
                                 "most {most:,}",
                            values=values, marks="',', '[' and '{'", most=MAX_JSON_VALUES), where="body")
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise HTTPError(400, say("not JSON: {problem} at line {line} column {column}",
                                 problem=exc.msg, line=exc.lineno, column=exc.colno), where="body") from None
    except (RecursionError, UnicodeDecodeError, ValueError) as exc:
        raise HTTPError(400, say("not JSON: {problem}", problem=type(exc).__name__), where="body") from None


def _receipt(data: Any, where: str) -> Receipt:
    try:
        return Receipt.from_dict(data, where)
    except InputError as exc:
        raise HTTPError(400, str(exc), where=where) from None


def _fields(body: Any, **kinds: type) -> tuple:
    if not isinstance(body, dict):
        raise HTTPError(400, say("the body must be a JSON object"), where="body")
    out = []
    for name, kind in kinds.items():
        value = body.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise HTTPError(400, (say("{field} must be a whole number", field=name) if kind is int
                                 else say("{field} must be text", field=name)), where=name)
        out.append(value)
    return tuple(out)


#: Where an append's events went, as every append answers it (the OpenAPI schema of its answer).
#: ``position`` (the first name, kept for the clients that read it) is the new length, one past
#: the last event: a script took it for the last event's index, which a flag's ``index`` is.
#: ``length`` says what it is (the next append's ``?expected=``), ``first_index`` and
#: ``last_index`` are the written events' own indexes, numbered as ``flags`` and the viewer's #N.
WRITTEN_SCHEMA = {"type": "object", "required": ["position", "length"], "properties": {
    "length": {"type": "integer", "description": "the event count after the append: the next append's ?expected="},
    "position": {"type": "integer", "description": "the same as length (its first name, kept): NOT an index"},
    "first_index": {"type": "integer", "description": "the index of the first event written (none written: absent)"},
    "last_index": {"type": "integer", "description": "the index of the last event written: length - 1"}}}
WRITTEN_ANSWER = {200: {"description": "where the events went", "content": {"application/json": {
    "schema": WRITTEN_SCHEMA}}}}


def written_at(length: int, count: int) -> dict:
    """``WRITTEN_SCHEMA``'s fields for ``count`` events written, the stream ``length`` long after."""
    if not count:
        return {"position": length, "length": length}
    return {"position": length, "length": length, "first_index": length - count, "last_index": length - 1}


def _jsonable(value: Any) -> Any:
    """Events as JSON: bytes never occur in a view's events, but be strict about it."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    return value


def _hex(value: Any) -> str:
    """What ``_jsonable`` makes of a value JSON has no type for: bytes as hex, nothing else."""
    if isinstance(value, bytes):
        return value.hex()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


#: Events as JSON text, as ``json.dumps(_jsonable(value), ensure_ascii=False)`` writes them, in
#: one pass of the C encoder: no copy of the whole value walked in Python first (a duel's set-up
#: is ~7,000 values; its step's encoding was a tenth of the loop's work for its first delivery).
event_json = json.JSONEncoder(ensure_ascii=False, default=_hex).encode


def _http_error(exc: HTTPError) -> JSONResponse:
    """Every ``HTTPError``'s answer, in the shape of every refusal of the service: the English in
    ``error`` and ``message`` (whatever the reader's language: a script matches on them), the
    reader's beside it in ``message_translated`` (``i18n.message_dict``), and ``Content-Language``
    (``Language`` around the application). An English reader's was ``{"error"}`` alone."""
    headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
    return JSONResponse({"error": exc.message, **message_dict(exc.message), **exc.extra}, status_code=exc.status,
                        headers=headers)


#: Every refusal's shape (``_http_error``; a rule violation's 422 says more, ``violation_dict``).
REFUSAL_SCHEMA = {
    "type": "object", "required": ["error", "message"],
    "description": "Every refusal of the service: the English sentence in error and message (what a script "
                   "matches on), the reader's language (?lang=, Accept-Language) in message_translated.",
    "properties": {"error": {"type": "string"}, "message": {"type": "string"}, "message_translated": {"type": "string"},
                   "code": {"type": "string"}, "where": {"type": "string"},
                   "problems": {"type": "array", "items": {"type": "object"}}}}


def refusals_documented(document: dict[str, Any]) -> dict[str, Any]:
    """FastAPI's OpenAPI ``document`` saying what the service answers a request that does not fit
    an operation's parameters or body: 400 in the shape of every refusal (``_errors``'s
    ``invalid``), not FastAPI's 422 ``{"detail": [...]}``, which the service never sends."""
    invalid = {"description": "The request does not fit the operation's parameters or body (problems says where).",
               "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Refusal"}}}}
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            responses = operation.get("responses", {})
            if "HTTPValidationError" in json.dumps(responses.get("422", {})):
                del responses["422"]
                responses.setdefault("400", invalid)
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    schemas["Refusal"] = REFUSAL_SCHEMA
    return document


def _framework_refusal(request: Request, exc: StarletteHTTPException) -> str:
    """The sentence of a refusal the framework makes before any route of the service runs."""
    path = request.url.path
    if exc.status_code == 404:
        return say("no such address in this service: {path} (GET /openapi.json lists them)", path=path)
    if exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "")
        return say("{path} does not take {method} (it takes {allowed})", path=path, method=request.method,
                   allowed=allowed)
    return say("the request was refused (HTTP {status})", status=exc.status_code)


def _errors(app: FastAPI) -> None:
    """Every error a request can meet, mapped to its status in one place."""

    @app.exception_handler(HTTPError)
    async def http_error(_request: Request, exc: HTTPError) -> JSONResponse:
        return _http_error(exc)

    @app.exception_handler(StarletteHTTPException)
    async def framework(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        # what the router (or FastAPI) refuses itself: a path no route has, a method its route
        # does not take (HEAD, OPTIONS); said as every refusal, never as its English ``detail``
        answer = _http_error(HTTPError(exc.status_code, _framework_refusal(request, exc)))
        answer.headers.update(exc.headers or {})          # a 405's ``Allow``
        return answer

    @app.exception_handler(Exception)
    async def failed(request: Request, _exc: Exception) -> JSONResponse:
        # a fault of the service's own, answered outside ``Language`` (the server still sees it
        # raised, and logs it): said as every refusal, in the reader's language, never a traceback
        language = request_language(request.scope)
        with using(language):
            answer = _http_error(HTTPError(500, say("the service failed on this request (its log says why)")))
        answer.headers["Content-Language"] = language
        return answer

    @app.exception_handler(ClientDisconnect)
    async def gone(_request: Request, _exc: ClientDisconnect) -> JSONResponse:
        # a client that went away before its body came whole: nothing was read, nothing written.
        # Its request was no whole one, and no fault of the service's: a 400 nobody receives, never
        # the 500 (its traceback in the log) that anyone posting half a body once a request made.
        # Every door's: the routed stack's ``ExceptionMiddleware`` and the append's lane use these handlers.
        return _http_error(HTTPError(400, say("the request is not a valid HTTP/1.1 request")))

    @app.exception_handler(RuleViolation)
    async def rule(_request: Request, exc: RuleViolation) -> JSONResponse:
        return _json(422, violation_dict(exc))

    @app.exception_handler(YgoreplayError)
    async def ours(request: Request, exc: YgoreplayError) -> JSONResponse:
        english = str(exc)
        if isinstance(exc, StoreUnavailable):      # down, busy, or a write's outcome unknown: ``code`` says which
            return JSONResponse({"error": english, **message_dict(english), "code": exc.code}, status_code=503,
                                headers={"Retry-After": str(exc.retry_after)})
        if isinstance(exc, ConflictError):
            return _json(409, {"error": english, **message_dict(english)})
        if isinstance(exc, Unconfirmed):            # 428: sent again with ``confirm=true`` it is stored
            return _json(428, {"error": exc.message, **message_dict(exc.message), "confirm": exc.reason})
        if isinstance(exc, Forbidden):              # said in the reader's language beside the English
            return _json(403, {"error": english, **message_dict(english)})
        if isinstance(exc, VerificationError):
            # told only to whoever may see the duel or match (``Service.hides_altered``)
            service = request.app.state.service
            hidden = await service.in_thread(service.hides_altered, request)
            if hidden is not None:
                return _http_error(hidden)
            return _json(409, {"error": english, **message_dict(english), "verification": False})
        if isinstance(exc, InputError):
            return _json(400, {"error": english, **message_dict(english)})
        if isinstance(exc, StoreError) and english.startswith("no duel"):
            return _json(404, {"error": english, **message_dict(english)})
        return _json(503, {"error": english, **message_dict(english)})

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        found = validation.problems(exc.errors())
        english = "; ".join(f"{p['where']}: {p['error']}" for p in found)
        answer: dict[str, Any] = {"error": english, "message": english, "code": "invalid_request", "problems": found}
        if current() != DEFAULT:
            answer["message_translated"] = "; ".join(f"{p['where']}: {p['message_translated']}" for p in found)
        return _json(400, answer)

    @app.exception_handler(commands.Refused)
    async def refused(_request: Request, exc: commands.Refused) -> JSONResponse:
        return _json(REFUSED[exc.reason], {"error": exc.message, **message_dict(exc.message), "where": exc.where})
