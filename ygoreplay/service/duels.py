"""The HTTP service: record, follow and share duels, on the same application layer as the CLI.

FastAPI on uvicorn (OpenAPI at ``/openapi.json``, its pages at ``/docs``). Every request names
its token in ``Authorization: Bearer <token>`` (or ``?token=``, for links and the browser's
EventSource); ``access.py`` says what each role sees and does. Redaction happens here, on the
server: a player's or spectator's response is made from that view's own events and board, so it
holds no passcode the viewer may not see. Errors map in one place (``_errors``): a broken rule
is 422 ``{"index", "rule", "message"}``, a conflict 409, malformed input 400 saying what and
where, a wrong token 401, a role that may not 403, a duel that is not there (or not for you) 404,
one stream more than a client or a duel may have open 429.

Matches (``match/service.py``) have tokens, roles and views of their own on the same terms: a
decklist or Side Deck a view may not see is withheld there, counts kept.

Positions are event numbers, as the log numbers events and everywhere else (``show --at N``,
``branch --at N``, ``diff DUEL@N``, the viewer's ``#eN``): ``at=N`` is the board after event #N,
``from=N`` the events from #N on, a rollback ``to`` N undoes #N and what followed.
"""
from __future__ import annotations

import asyncio
import gc
import gzip
import json
import os
import re
import secrets as _secrets
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from itertools import islice
from typing import Any, AsyncIterator

from fastapi import Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from . import viewer
from .access import (
    NARROWER, RELEASES, ROLES, VIEW_OF, VISIBILITIES, Access, ReleaseSettingError, digest, matches, release_settings)
from .application import Records, duel_dict, family, origin_of, public_duels, trust_of, violation_dict
from .card_sources import card_lookup
from .errors import ConflictError, Forbidden, InputError, StoreError, VerificationError, YgoreplayError
from .events import EventFormatError, from_dict
from .jsonl import parse_lines
from .live import Hub, LiveDuel
from .receipts import Receipt, Witness, witness_from
from .replay_file import loads as ygr_loads
from .rules import RuleViolation
from .signing import OrganiserKey
from .store import MissingStore, Store
from .text import checked, number

MAX_BODY = 16 << 20              # an upload; a batch of events is far smaller
MAX_EVENTS = 10_000              # events in one append
KEEPALIVE = 15.0                 # seconds between SSE comments on a quiet duel
THREADS = 256                    # requests waiting on the store at once
FOLLOWS_PER_CLIENT = 32          # open streams (of duels and matches) from one client address
FOLLOWS_PER_DUEL = 2_000         # open streams of one duel or match


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
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            return await _json(413, {"error": f"the request body is over {MAX_BODY} bytes"})(scope, receive, send)
        seen = 0

        async def limited() -> dict:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > MAX_BODY:
                raise HTTPError(413, f"the request body is over {MAX_BODY} bytes")
            return message

        async def uncached(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                if not any(name.lower() == b"cache-control" for name, _ in headers):
                    message = {**message, "headers": [*headers, (b"cache-control", b"no-store")]}
            await send(message)
        return await self.app(scope, limited, uncached)


class Streams:
    """The open streams (``/follow``), counted per client and per duel or match: one past
    either cap is refused (429) before it opens. A client is its address (behind a proxy, the
    one the proxy names): a token is no client, a spectator link is shared by a crowd."""

    def __init__(self) -> None:
        self.clients: Counter[str] = Counter()
        self.duels: Counter[str] = Counter()
        self._lock = threading.Lock()

    def open(self, request: Request, stream_id: str) -> "_Lease":
        """A place for one more stream of ``stream_id``, or 429 saying which cap it meets."""
        client = request.client.host if request.client else ""
        with self._lock:
            if self.clients[client] >= FOLLOWS_PER_CLIENT:
                raise HTTPError(429, f"this client has {FOLLOWS_PER_CLIENT} streams open, the most it may: "
                                "close one before following another", where="follow")
            if self.duels[stream_id] >= FOLLOWS_PER_DUEL:
                raise HTTPError(429, f"{stream_id} has {FOLLOWS_PER_DUEL} streams open, the most it takes: "
                                "try again later", where="follow")
            self.clients[client] += 1
            self.duels[stream_id] += 1
        return _Lease(self, client, stream_id)

    def close(self, client: str, stream_id: str) -> None:
        with self._lock:
            for counts, key in ((self.clients, client), (self.duels, stream_id)):
                counts[key] -= 1
                if counts[key] <= 0:
                    del counts[key]


class _Lease:
    """One open stream's place: given back when the stream ends, or when it never started and
    its response is dropped (an unstarted generator runs no ``finally``)."""

    def __init__(self, streams: Streams, client: str, stream_id: str) -> None:
        self.streams, self.client, self.stream_id = streams, client, stream_id
        self.open = True

    def close(self) -> None:
        if self.open:
            self.open = False
            self.streams.close(self.client, self.stream_id)

    __del__ = close


def _json(status: int, data: dict) -> JSONResponse:
    return JSONResponse(data, status_code=status)


class Service:
    """The service's state: the store, its records, the duels followed, the organiser's token."""

    def __init__(self, store: Store, admin_digest: str, witness: Witness | None = None) -> None:
        self.store = store
        self.records = Records(store, witness)
        self.hub = Hub(store)
        self.streams = Streams()
        self.admin_digest = admin_digest

    # -- who is asking --------------------------------------------------------------------------

    @staticmethod
    def token_of(request: Request) -> str | None:
        header = request.headers.get("authorization", "")
        if header:
            scheme, _, token = header.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise HTTPError(401, "the Authorization header must be 'Bearer <token>'")
            return token.strip()
        return request.query_params.get("token") or None

    def organiser(self, request: Request) -> None:
        token = self.token_of(request)
        if token is None:
            raise HTTPError(401, "this needs the organiser's token")
        if not matches(token, self.admin_digest):
            raise HTTPError(403, "this needs the organiser's token")

    def is_organiser(self, token: str | None) -> bool:
        return token is not None and matches(token, self.admin_digest)

    def caller(self, request: Request, duel_id: str) -> tuple[Caller, LiveDuel]:
        """The caller's role in this duel; 404 for a duel that is not theirs to know of."""
        token = self.token_of(request)
        live = self._duel(duel_id)
        if self.is_organiser(token):
            return Caller("organiser", "judge"), live
        role = live.access.role_of(token) if token else None
        if role is None and token is not None:
            role = self.match_role(live, token)
        if role is None:
            if live.access.visibility != "public":
                raise HTTPError(404, f"no duel {duel_id!r}")
            if token is not None:
                raise HTTPError(401, "this token is not one of this duel's")
            role = "public"
        caller = Caller(role, VIEW_OF[role], live.released())
        if caller.view == "spectator" and live.hidden_by_parent():
            raise HTTPError(404, f"no duel {duel_id!r}")
        return caller, live

    def match_role(self, live: LiveDuel, token: str) -> str | None:
        """The role a match's token has in a duel of that match: the same as in the match (the
        match page links each game with its own token). A duel's match is read until it has one
        (once linked, it is that match's for good)."""
        match_id = live.match_id()
        if match_id is None:
            return None
        try:
            return self.hub.match(match_id).access.role_of(token)
        except StoreError:
            return None

    def spectators_see(self, duel_id: str) -> int:
        """How many events of a duel a spectator may see now (none of one that cannot be read)."""
        try:
            return self.hub.get(duel_id).visible("spectator")
        except StoreError:
            return 0

    def _duel(self, duel_id: str) -> LiveDuel:
        if not _DUEL_ID.fullmatch(duel_id):
            raise HTTPError(404, f"no duel {duel_id!r}")
        try:
            return self.hub.get(duel_id)
        except StoreError:
            raise HTTPError(404, f"no duel {duel_id!r}") from None

    @staticmethod
    def require(caller: Caller, *roles: str) -> None:
        if caller.role not in roles and caller.role != "organiser":
            raise HTTPError(403, f"a {caller.role} token may not do this (it takes: {', '.join(roles)})")

    @staticmethod
    def view_for(caller: Caller, asked: str | None) -> str:
        if asked is None:
            return caller.view
        if asked not in caller.views:
            raise HTTPError(403, f"a {caller.role} token may not see the {asked!r} view")
        return asked

    # -- duels ----------------------------------------------------------------------------------

    def create(self, title: str, visibility: str, delay_events: int, delay_seconds: float,
               request_base: str = "", release: tuple[str | None, str | None, str | None] = (None, None, None)) -> dict:
        access, tokens = Access.issue(visibility, delay_events, delay_seconds, *release)
        done = self.records.record([], title, attachments={"access": access.to_dict()})
        assert done.id is not None and done.receipt is not None
        return {**self._created(done.id, tokens, request_base), **done.receipt.fields()}

    def _created(self, duel_id: str, tokens: dict[str, str], base: str) -> dict:
        links = {role: f"{base}/view/{duel_id}?token={token}" for role, token in tokens.items()}
        if "spectator" not in tokens:
            links = {r: l for r, l in links.items() if r != "spectator"}
        return {"id": duel_id, "tokens": tokens, "links": links}


def _events(data: Any) -> list:
    """Events from a request body (a JSON array of event objects), or 400 naming the one that is not."""
    if not isinstance(data, list):
        raise HTTPError(400, "the body must be a JSON array of events", where="body")
    if len(data) > MAX_EVENTS:
        raise HTTPError(400, f"at most {MAX_EVENTS} events in one request, not {len(data)}", where="body")
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
        raise HTTPError(400, f"the body is not UTF-8 text (byte {exc.start})", where="body") from None
    try:
        events = list(islice(parse_lines(text.split("\n"), "body"), MAX_EVENTS + 1))
    except EventFormatError as exc:
        raise HTTPError(400, exc.detail, where=exc.where) from None
    if len(events) > MAX_EVENTS:
        raise HTTPError(400, f"at most {MAX_EVENTS} events in one request", where="body")
    return events


async def _body_json(request: Request) -> Any:
    raw = await request.body()
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise HTTPError(400, f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", where="body") from None
    except (RecursionError, UnicodeDecodeError, ValueError) as exc:
        raise HTTPError(400, f"not JSON: {type(exc).__name__}", where="body") from None


def _errors(app: FastAPI) -> None:
    """Every error a request can meet, mapped to its status in one place."""

    @app.exception_handler(HTTPError)
    async def http_error(_request: Request, exc: HTTPError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return JSONResponse({"error": exc.message, **exc.extra}, status_code=exc.status, headers=headers)

    @app.exception_handler(RuleViolation)
    async def rule(_request: Request, exc: RuleViolation) -> JSONResponse:
        return _json(422, violation_dict(exc))

    @app.exception_handler(YgoreplayError)
    async def ours(_request: Request, exc: YgoreplayError) -> JSONResponse:
        if isinstance(exc, ConflictError):
            return _json(409, {"error": str(exc)})
        if isinstance(exc, Forbidden):
            return _json(403, {"error": str(exc)})
        if isinstance(exc, VerificationError):
            return _json(409, {"error": str(exc), "verification": False})
        if isinstance(exc, InputError):
            return _json(400, {"error": str(exc)})
        if isinstance(exc, StoreError) and str(exc).startswith("no duel"):
            return _json(404, {"error": str(exc)})
        return _json(503, {"error": str(exc)})

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [{"where": ".".join(str(p) for p in e.get("loc", ())), "error": e.get("msg", "")}
                    for e in exc.errors()]
        return _json(400, {"error": "; ".join(f"{p['where']}: {p['error']}" for p in problems), "problems": problems})


def create_app(store: Store, admin_digest: str, witness: Witness | None = None) -> FastAPI:
    """The service over an open store; ``admin_digest`` is the organiser token's SHA-256;
    ``witness`` keeps every write's signed head (``receipts.py``)."""
    service = Service(store, admin_digest, witness)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        # Every append waits in a thread for its group commit: enough threads that the appends of
        # many tables can wait at once (and so be committed together).
        loop.set_default_executor(ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="ygoreplay"))
        # The objects made at start-up live for good, and a service makes few reference cycles:
        # frozen and collected rarely, a full collection no longer stalls every request for tens of ms.
        gc.collect()
        gc.freeze()
        gc.set_threshold(50_000, 20, 100)
        service.hub.start(loop)
        try:
            yield
        finally:
            service.hub.stop()
            if witness is not None:
                witness.close()

    app = FastAPI(title="ygoreplay", version="1", lifespan=lifespan,
                  description=(__doc__ or "").split("\n\n", 1)[1] if __doc__ else None)
    app.state.service = service
    _errors(app)
    app.add_middleware(_Limit)
    from .match.service import add_routes
    add_routes(app, service)

    def organiser(request: Request) -> None:
        service.organiser(request)

    @app.get("/health", tags=["service"])
    def health() -> dict:
        """Whether the service and its store answer."""
        return {"ok": True, "store": store.backend}

    @app.post("/duels", status_code=201, tags=["organiser"], dependencies=[Depends(organiser)],
              openapi_extra={"requestBody": {"content": {"application/json": {"schema": {
                  "type": "object", "properties": {
                      "title": {"type": "string", "maxLength": 500},
                      "visibility": {"enum": list(VISIBILITIES)},
                      "delay": {"type": "object", "properties": {
                          "events": {"type": "integer", "minimum": 0, "maximum": 100000},
                          "seconds": {"type": "number", "minimum": 0, "maximum": 86400}}},
                      "release": {"enum": list(RELEASES)}, "event": {"type": "string", "maxLength": 200},
                      "release_at": {"type": "string", "format": "date-time"}}}}}}})
    async def create_duel(request: Request) -> dict:
        """A new duel: its id, a token for each role, and a viewer link for each token."""
        body = await _body_json(request) if await request.body() else {}
        if not isinstance(body, dict):
            raise HTTPError(400, "the body must be a JSON object", where="body")
        title = body.get("title", "")
        visibility = body.get("visibility", "unlisted")
        delay = body.get("delay") or {}
        if not isinstance(title, str):
            raise HTTPError(400, "title must be a string of at most 500 characters", where="title")
        title = checked(title, "the title", 500)
        if visibility not in VISIBILITIES:
            raise HTTPError(400, f"visibility is one of {', '.join(VISIBILITIES)}", where="visibility")
        if not isinstance(delay, dict):
            raise HTTPError(400, "delay is {events, seconds}", where="delay")
        events_delay, seconds_delay = delay.get("events", 0), delay.get("seconds", 0)
        if not (isinstance(events_delay, int) and not isinstance(events_delay, bool) and 0 <= events_delay <= 100000):
            raise HTTPError(400, "delay.events is a whole number 0..100000", where="delay.events")
        if not (isinstance(seconds_delay, (int, float)) and not isinstance(seconds_delay, bool)
                and 0 <= seconds_delay <= 86400):
            raise HTTPError(400, "delay.seconds is a number 0..86400", where="delay.seconds")
        unknown = set(body) - {"title", "visibility", "delay", "release", "event", "release_at"}
        if unknown:
            raise HTTPError(400, f"unknown field(s) {', '.join(sorted(unknown))}", where="body")
        try:
            release = release_settings(body.get("release"), body.get("event"), body.get("release_at"))
        except ReleaseSettingError as exc:
            raise HTTPError(400, str(exc), where=exc.where) from None
        base = str(request.base_url).rstrip("/")
        return await asyncio.to_thread(service.create, title, visibility, events_delay, float(seconds_delay), base,
                                       release)

    @app.get("/duels", tags=["organiser"])
    def list_duels(request: Request, player: str | None = Query(None, max_length=200),
                   title: str | None = Query(None, max_length=200), date: str | None = Query(None, max_length=10),
                   result: str | None = Query(None, pattern="^(p0|p1|draw|unfinished)$")) -> list[dict]:
        """The duels: all of them for the organiser, the public ones for anyone; filtered by a
        player's name, a title, a date (YYYY-MM-DD) or a result."""
        token = service.token_of(request)
        everyone = service.is_organiser(token)
        if token is not None and not everyone:
            raise HTTPError(403, "listing all duels needs the organiser's token")
        listed = ([duel_dict(info) for info in service.records.duels(player)] if everyone else
                  public_duels(service.records, service.spectators_see, player))
        out = []
        for data in listed:
            if title and title.casefold() not in data["title"].casefold():
                continue
            if date and not data["created"].startswith(date):
                continue
            if result and result != _result_of(data):
                continue
            out.append(data)
        return out

    def caller_of(request: Request, duel_id: str) -> tuple[Caller, LiveDuel]:
        return service.caller(request, duel_id)

    async def caller_async(request: Request, duel_id: str) -> tuple[Caller, LiveDuel]:
        """The caller, without leaving the event loop when the duel is already followed here."""
        if duel_id in service.hub.duels:
            return service.caller(request, duel_id)
        return await asyncio.to_thread(caller_of, request, duel_id)

    @app.post("/duels/{duel_id}/events", tags=["recorder"],
              openapi_extra={"requestBody": {"required": True, "content": {"application/json": {"schema": {
                  "type": "array", "items": {"type": "object"}, "maxItems": MAX_EVENTS}},
                  "application/x-ndjson": {"schema": {"type": "string"}}}}})
    async def append(duel_id: str, request: Request, expected: int | None = Query(None, ge=0, le=10 ** 9)) -> dict:
        """Append events, checked by the rules exactly as ``record`` checks them: all or none.
        Each goes through the command its typed endpoint uses (``Records.append_records``): a
        ``rolled_back`` or ``judge_note`` is the judge's here as on ``/rollback`` and ``/notes``."""
        caller, live = await caller_async(request, duel_id)
        service.require(caller, "recorder", "judge")
        events = await _request_events(request)
        if not events:
            if expected is not None and expected != live.count:
                raise HTTPError(409, f"the duel has {live.count} events, not {expected}")
            return {"position": live.count}
        receipts: list[Receipt] = []

        def appended() -> list:
            written, receipt = service.records.append_records(duel_id, events, expected, caller.role)
            receipts.append(receipt)
            return written
        written = await asyncio.to_thread(service.hub.appending, duel_id, appended)
        return {"position": written[-1].position + 1, **receipts[0].fields()}

    def _count(live: LiveDuel, view: str, at: int | None) -> int:
        """How many events the board after event #at holds (all this view may see when None)."""
        visible = live.visible(view)
        if at is None:
            return visible
        if at >= visible:
            raise HTTPError(404, f"this view may see events #0..#{visible - 1}, not #{at}" if visible
                            else "this view may see no event yet")
        return at + 1

    @app.get("/duels/{duel_id}/state", tags=["everyone"])
    def state(duel_id: str, request: Request, at: int | None = Query(None, ge=0, le=10 ** 9),
              view: str | None = Query(None, pattern="^(judge|p0|p1|spectator)$")) -> dict:
        """The board after event ``#at`` (default: the last this view may see), for the token's
        view (or a narrower one); ``at`` is null for a duel with no event yet."""
        caller, live = service.caller(request, duel_id)
        view = service.view_for(caller, view)
        count = _count(live, view, at)
        return {"id": duel_id, "view": view, "at": count - 1 if count else None, "events": live.visible(view),
                "board": live.frame(view, count)}

    @app.get("/duels/{duel_id}/events", tags=["everyone"], response_class=Response,
             responses={200: {"content": {"application/x-ndjson": {}}}})
    def events(duel_id: str, request: Request, start: int = Query(0, alias="from", ge=0, le=10 ** 9),
               view: str | None = Query(None, pattern="^(judge|p0|p1|spectator)$")) -> Response:
        """The events from position ``from`` on, one JSON object a line, as the view has them."""
        caller, live = service.caller(request, duel_id)
        view = service.view_for(caller, view)
        steps = live.view(view).steps[start:live.visible(view)]
        body = "".join(json.dumps(_jsonable(step.to_dict()), ensure_ascii=False) + "\n" for step in steps)
        return Response(body, media_type="application/x-ndjson")

    @app.get("/duels/{duel_id}/replay.ygr", tags=["everyone"], response_class=Response,
             responses={200: {"content": {"application/x-ygoreplay": {}}}})
    def replay_file(duel_id: str, request: Request,
                    view: str | None = Query(None, pattern="^(judge|p0|p1|spectator)$")) -> Response:
        """The duel as a signed ``.ygr`` file for the view (a delayed spectator's, cut at what it may see)."""
        caller, live = service.caller(request, duel_id)
        view = service.view_for(caller, view)
        data = live.replay_file(view, store.key)
        return Response(data, media_type="application/x-ygoreplay",
                        headers={"Content-Disposition": f'attachment; filename="{duel_id}.{view}.ygr"',
                                 "Cache-Control": "no-store"})

    @app.get("/duels/{duel_id}/follow", tags=["everyone"], response_class=StreamingResponse,
             responses={200: {"content": {"text/event-stream": {}}}})
    async def follow(duel_id: str, request: Request, start: int = Query(0, alias="from", ge=0, le=10 ** 9),
                     view: str | None = Query(None, pattern="^(judge|p0|p1|spectator)$"),
                     format: str = Query("events", pattern="^(events|frames)$")) -> StreamingResponse:
        """Server-Sent Events: one ``event`` per event of the view, its id the position; a reconnect
        with ``Last-Event-ID`` resumes after it. A spectator is held back by the duel's delay.
        ``format=frames`` sends what ``/frames`` gives for each (the web viewer follows so)."""
        frames = format == "frames"
        caller, live = await caller_async(request, duel_id)
        view = service.view_for(caller, view)
        resume = request.headers.get("last-event-id")
        position = number(resume) + 1 if resume is not None and number(resume) is not None else start
        live_view = await asyncio.to_thread(live.view, view)
        lease = service.streams.open(request, duel_id)

        async def stream() -> AsyncIterator[str]:
            nonlocal position
            loop = asyncio.get_running_loop()
            # keep-alives on a clock of their own: when they come says nothing of what a delayed
            # spectator may not see yet
            next_keepalive = loop.time() + KEEPALIVE
            live.followers += 1                          # a followed duel stays in memory
            try:
                yield "retry: 2000\n\n"
                while True:
                    clock = time.time()
                    visible = live.visible(view, clock)
                    if position < visible:
                        live.view(view, visible)
                    while position < visible:
                        step = live_view.steps[position]
                        data = step.frame() if frames else step.to_dict()
                        yield f"id: {position}\nevent: event\ndata: {json.dumps(_jsonable(data), ensure_ascii=False)}\n\n"
                        position += 1
                    if live.ended and position >= live.count:
                        yield "event: end\ndata: {}\n\n"
                        return
                    if await request.is_disconnected():
                        return
                    now = loop.time()
                    if now >= next_keepalive:
                        yield ": keepalive\n\n"
                        next_keepalive = now + KEEPALIVE
                    release = live.next_release(view, clock)
                    wait = next_keepalive - now
                    await service.hub.wait(duel_id, min(wait, release) if release is not None else wait)
            finally:
                live.followers -= 1
                lease.close()
        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    @app.get("/duels/{duel_id}/frames", tags=["everyone"], response_class=Response,
             responses={200: {"content": {"application/json": {}}}})
    def frames(duel_id: str, request: Request, start: int = Query(0, alias="from", ge=0, le=10 ** 9),
               view: str | None = Query(None, pattern="^(judge|p0|p1|spectator)$")) -> Response:
        """What the web viewer draws, from position ``from`` on: each event's log line, the card
        facts it lets the view know, and the board after it (whole, or a patch of the one before;
        the first is always whole). With the views this token may switch to."""
        caller, live = service.caller(request, duel_id)
        view = service.view_for(caller, view)
        visible = live.visible(view)
        if start > visible:
            raise HTTPError(404, f"this view may see events #0..#{visible - 1}; from is 0..{visible}")

        def build() -> bytes:
            data = {"id": duel_id, "title": live.header.title, "view": view, "role": caller.role,
                    "views": list(caller.views), "events": visible,
                    "ended": any(r.event.kind == "duel_ended" for r in live.records[:visible]),
                    "delay": ({"events": live.access.delay_events, "seconds": live.access.delay_seconds}
                              if view == "spectator" else None),
                    "origin": origin_of(live.header.source),
                    "frames": live.view(view).frames(start, visible)}
            return json.dumps(_jsonable(data), ensure_ascii=False).encode()
        # made once per view, role, start and length: a crowd opening a shared link costs one
        packed = live.answer(("frames", view, caller.role, caller.released, start, visible), build)
        headers = {"Cache-Control": "no-store", "Vary": "Accept-Encoding"}
        if "gzip" in request.headers.get("accept-encoding", ""):
            return Response(packed, media_type="application/json", headers={**headers, "Content-Encoding": "gzip"})
        return Response(gzip.decompress(packed), media_type="application/json", headers=headers)

    # -- the web viewer ----------------------------------------------------------------------------------

    @app.get("/view/{duel_id}", include_in_schema=False)
    def view_page(duel_id: str) -> Response:
        """The viewer's page; it asks for the duel's frames with the token in its address."""
        if not _DUEL_ID.fullmatch(duel_id):
            raise HTTPError(404, f"no duel {duel_id!r}")
        return Response(viewer.page(), media_type="text/html; charset=utf-8", headers=_PAGE_HEADERS)

    @app.get("/viewer/{name}", include_in_schema=False)
    def viewer_asset(name: str) -> Response:
        if name not in viewer.ASSETS:
            raise HTTPError(404, f"no asset {name!r}")
        return Response(viewer.asset(name), media_type=viewer.ASSETS[name],
                        headers={**_PAGE_HEADERS, "Cache-Control": "public, max-age=300"})

    # -- judge ------------------------------------------------------------------------------------------

    @app.post("/duels/{duel_id}/rollback", tags=["judge"],
              openapi_extra={"requestBody": {"required": True, "content": {"application/json": {"schema": {
                  "type": "object", "required": ["to", "judge", "reason"], "properties": {
                      "to": {"type": "integer"}, "judge": {"type": "string"}, "reason": {"type": "string"}}}}}}})
    async def rollback(duel_id: str, request: Request) -> dict:
        """A judge backs the game up to before event ``to`` (MATCH-08): an event of its own."""
        caller, _live = await caller_async(request, duel_id)
        service.require(caller, "judge")
        body = await _body_json(request)
        to, judge, reason = _fields(body, to=int, judge=str, reason=str)
        position = await asyncio.to_thread(service.records.rollback, duel_id, to, judge, reason, caller.role)
        await asyncio.to_thread(service.hub.changed, duel_id)
        return {"position": position}

    @app.post("/duels/{duel_id}/notes", tags=["judge"],
              openapi_extra={"requestBody": {"required": True, "content": {"application/json": {"schema": {
                  "type": "object", "required": ["judge", "text"], "properties": {
                      "judge": {"type": "string"}, "text": {"type": "string"},
                      "category": {"enum": ["call", "ruling", "penalty", "warning", "note", "time"]}}}}}}})
    async def note(duel_id: str, request: Request) -> dict:
        """A judge's call, ruling, penalty or note, kept in the record."""
        caller, _live = await caller_async(request, duel_id)
        service.require(caller, "judge")
        body = await _body_json(request)
        judge, text = _fields(body, judge=str, text=str)
        position = await asyncio.to_thread(service.records.note, duel_id, judge, text, body.get("category", "note"),
                                           caller.role)
        await asyncio.to_thread(service.hub.changed, duel_id)
        return {"position": position}

    @app.post("/duels/{duel_id}/branch", status_code=201, tags=["judge"],
              openapi_extra={"requestBody": {"required": True, "content": {"application/json": {"schema": {
                  "type": "object", "required": ["at"], "properties": {
                      "at": {"type": "integer"}, "title": {"type": "string"}}}}}}})
    async def branch(duel_id: str, request: Request) -> dict:
        """A what-if line: a new duel of events #0..#at (from the board after event #at); the
        same tokens open it."""
        caller, live = await caller_async(request, duel_id)
        service.require(caller, "judge")
        body = await _body_json(request)
        (at,) = _fields(body, at=int)
        title = body.get("title", "")
        if not isinstance(title, str):
            raise HTTPError(400, "title must be a string", where="title")
        child = await asyncio.to_thread(service.records.branch, duel_id, at, title)
        return {"id": child, "parent": duel_id, "at": at}

    @app.post("/duels/{duel_id}/release", tags=["organiser"], dependencies=[Depends(organiser)])
    def release(duel_id: str) -> dict:
        """The organiser's call that the event has ended: what a duel under the ``event`` release
        policy hid is released to every reader once it has ended (at once, if it has)."""
        live = service._duel(duel_id)
        service.records.release(duel_id)
        live.settings_changed()
        return {"id": duel_id, "released": True, "ended": live.ended}

    # -- everyone -------------------------------------------------------------------------------------

    @app.get("/duels/{duel_id}/verify", tags=["everyone"])
    def verify(duel_id: str, request: Request) -> dict:
        """The record checked end to end: chain, anchors, signature, snapshots; and not behind
        its witness (when the service has one)."""
        caller, live = service.caller(request, duel_id)
        return verified(duel_id, caller, live, [])

    @app.post("/duels/{duel_id}/verify", tags=["everyone"],
              openapi_extra={"requestBody": {"required": True, "content": {"application/json": {"schema": {
                  "oneOf": [{"type": "object"}, {"type": "array", "items": {"type": "object"}, "maxItems": 1000}]}}}}})
    async def verify_receipts(duel_id: str, request: Request) -> dict:
        """As GET, and the store must still hold the head each receipt given names (a receipt
        or an array of them, as the writes answered): a store behind one is NOT ok."""
        caller, live = await caller_async(request, duel_id)
        body = await _body_json(request)
        items = body if isinstance(body, list) else [body]
        if len(items) > 1000:
            raise HTTPError(400, "at most 1000 receipts at once", where="body")
        receipts = [_receipt(item, f"body[{i}]") for i, item in enumerate(items)]
        return await asyncio.to_thread(verified, duel_id, caller, live, receipts)

    def verified(duel_id: str, caller: Caller, live: LiveDuel, receipts: list[Receipt]) -> dict:
        """The verification kept for what the caller may see (never redone for an append past
        a delay), then the receipts and the witness."""
        visible = live.visible(caller.view)
        if any(r.duel != duel_id for r in receipts):
            raise HTTPError(400, f"a receipt given is not for duel {duel_id}", where="body")
        if visible < live.count and any(r.events > visible for r in receipts):   # held back by the delay
            raise HTTPError(403, f"this view may see {visible} events: a receipt past them is checked with a "
                            "token that sees them (recorder, judge)", where="body")
        result, _witnessed = service.records.verify(duel_id, receipts, live.verified(visible))
        trust = trust_of(result.ok, live.header.source)
        if visible < result.events:            # a delayed spectator: nothing that counts past its view
            bad = result.first_bad if result.first_bad is not None and result.first_bad < visible else None
            return {"id": duel_id, **trust, "events": visible, "first_bad_link": bad,
                    "problem": "" if result.ok else "the record fails verification",
                    "key": result.signer.text if result.signer else None}
        return {"id": duel_id, **trust, "events": result.events, "first_bad_link": result.first_bad,
                "problem": result.problem, "key": result.signer.text if result.signer else None}

    @app.get("/duels/{duel_id}/tree", tags=["everyone"])
    def tree(duel_id: str, request: Request) -> list[dict]:
        """The duel's family of branches, depth first, that this token may open."""
        caller, live = service.caller(request, duel_id)

        def may_open(access: Access) -> bool:
            if caller.role == "public":
                return access.visibility == "public"
            return caller.role == "organiser" or access.tokens.get(caller.role) == live.access.tokens.get(caller.role)
        return family(service.records, duel_id, may_open,
                      service.spectators_see if caller.view == "spectator" else None)

    @app.get("/duels/{duel_id}/diff", tags=["everyone"])
    def diff(duel_id: str, request: Request, a: int = Query(ge=0, le=10 ** 9), b: int = Query(ge=0, le=10 ** 9),
             view: str | None = Query(None, pattern="^(judge|p0|p1|spectator)$")) -> dict:
        """How the board after event #a differs from the board after event #b, in this view."""
        from .diff import diff_states
        caller, live = service.caller(request, duel_id)
        view = service.view_for(caller, view)
        counts = [_count(live, view, n) for n in (a, b)]
        left, right = (live.view(view, max(counts)).state_after(n) for n in counts)
        return {"view": view, "differences": [{"place": p, "a": x, "b": y} for p, x, y in diff_states(left, right)]}

    @app.get("/duels/{duel_id}/cards", tags=["everyone"])
    def cards(duel_id: str, request: Request,
              view: str | None = Query(None, pattern="^(judge|p0|p1|spectator)$")) -> list[dict]:
        """The facts of every card this view may know so far (names, types, stats; no text)."""
        caller, live = service.caller(request, duel_id)
        view = service.view_for(caller, view)
        steps = live.view(view).steps[:live.visible(view)]
        return [card for step in steps for card in step.cards]

    # -- organiser: uploads ---------------------------------------------------------------------------

    @app.post("/uploads", status_code=201, tags=["organiser"], dependencies=[Depends(organiser)],
              openapi_extra={"requestBody": {"required": True, "content": {"application/octet-stream": {
                  "schema": {"type": "string", "format": "binary"}}}}})
    async def upload(request: Request, title: str | None = Query(None, max_length=500),
                     visibility: str = Query("unlisted", pattern="^(public|unlisted|private)$"),
                     release: str | None = Query(None, pattern="^(end|event|never)$"),
                     event: str | None = Query(None, max_length=200),
                     release_at: str | None = Query(None, max_length=64)) -> dict:
        """A ``.ygr`` judge file (verified first, its signature a trusted key's) or an EDOPro
        ``.yrpX`` replay, recorded as a new duel with its own tokens, under the release policy
        given (as ``POST /duels``)."""
        try:
            settings = release_settings(release, event, release_at)
        except ReleaseSettingError as exc:
            raise HTTPError(400, str(exc), where=exc.where) from None
        data = await request.body()
        access, tokens = Access.issue(visibility, 0, 0.0, *settings)
        duel_id = await asyncio.to_thread(_record_upload, service, data, title, access)
        return service._created(duel_id, tokens, str(request.base_url).rstrip("/"))

    return app


def _record_upload(service: Service, data: bytes, title: str | None, access: Access) -> str:
    import tempfile
    from pathlib import Path
    from .application import trusted_keys
    if data[:1] == b"\x89":
        replay = ygr_loads(data)
        done = service.records.import_replay(replay, title, trusted_keys([]))
        duel_id = done.id
        if done.skipped:                  # its access and tokens stay as they were handed out
            raise HTTPError(409, f"this file was uploaded before: it is duel {duel_id}", id=duel_id)
    else:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "upload.yrpX"
            path.write_bytes(data)
            try:
                done, _agreement = service.records.import_yrpx(path, None, title or "uploaded replay")
            except InputError as exc:
                raise InputError(str(exc).replace(str(path), "the uploaded replay")) from None
            duel_id = done.id
        if done.skipped:                  # its access and tokens stay as they were handed out
            raise HTTPError(409, f"this replay was uploaded before: it is duel {duel_id}", id=duel_id)
    assert duel_id is not None
    service.store.attach(duel_id, "access", access.to_dict())
    return duel_id


_DUEL_ID = re.compile(r"[0-9a-f]{12}")
_PAGE_HEADERS = {"Content-Security-Policy": viewer.POLICY, "Referrer-Policy": "no-referrer",
                 "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Cache-Control": "no-cache"}


def _receipt(data: Any, where: str) -> Receipt:
    try:
        return Receipt.from_dict(data, where)
    except InputError as exc:
        raise HTTPError(400, str(exc), where=where) from None


def _fields(body: Any, **kinds: type) -> tuple:
    if not isinstance(body, dict):
        raise HTTPError(400, "the body must be a JSON object", where="body")
    out = []
    for name, kind in kinds.items():
        value = body.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise HTTPError(400, f"{name} must be a {'whole number' if kind is int else 'text'}", where=name)
        out.append(value)
    return tuple(out)


def _result_of(data: dict) -> str:
    if data["status"] != "ended":
        return "unfinished"
    winner = data["result"]["winner"]
    return "draw" if winner is None else f"p{winner}"


def _jsonable(value: Any) -> Any:
    """Events as JSON: bytes never occur in a view's events, but be strict about it."""
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return value.hex()
    return value


# -- starting it --------------------------------------------------------------------------------------

ADMIN_ENV = "YGOREPLAY_ADMIN_TOKEN"


def admin_token(store: Store) -> tuple[str, str | None]:
    """The organiser token's digest, and the token itself when it was made now (to print once):
    ``$YGOREPLAY_ADMIN_TOKEN``, else the one this store's service was given before, else a new one."""
    token = os.environ.get(ADMIN_ENV)
    if token:
        return digest(token), None
    saved = store.setting("admin")
    if saved:
        return saved["digest"], None
    token = _secrets.token_urlsafe(32)
    store.set_setting("admin", {"digest": digest(token)})
    return digest(token), token


def app_from_env() -> FastAPI:
    """The app a uvicorn worker builds (``--workers N``): store and organiser digest from the
    environment ``serve`` set."""
    store = Store(os.environ.get("YGOREPLAY_STORE"), card_lookup(), key=OrganiserKey.load_or_create()[0],
                  concurrent=True, create=False)
    return create_app(store, os.environ["YGOREPLAY_ADMIN_DIGEST"], witness_from(None))


__all__ = ["ADMIN_ENV", "HTTPError", "MissingStore", "ROLES", "Service", "admin_token", "app_from_env", "create_app"]
