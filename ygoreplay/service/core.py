"""The service's state (``Service``: the store, its records, the duels and matches followed, the
open streams, the organiser's token) and the dependencies a route asks for it by: the service,
the organiser, the caller of a duel."""
from __future__ import annotations

import asyncio
import contextvars
import inspect
import queue
import re
import threading
import time
from collections import Counter
from dataclasses import replace
from contextlib import AsyncExitStack
from typing import Annotated, Any, Awaitable, Callable, Coroutine

from fastapi import Depends, FastAPI, Request
from fastapi import routing as fastapi_routing
from fastapi.routing import APIRoute, serialize_response
from starlette._exception_handler import wrap_app_handling_exceptions
from starlette.middleware.errors import ServerErrorMiddleware
from starlette.middleware.exceptions import ExceptionMiddleware
from starlette.responses import Response
from starlette.routing import Match
from starlette.types import ASGIApp, Receive, Scope, Send

from .. import i18n
from ..i18n import say
from ..access import PLAYERS, Access, Seating, digest, knows_match, matches, recorders_of, view_of
from ..application import Records
from ..errors import StoreError, VerificationError
from ..events import Event
from ..live import Hub, LiveDuel
from ..receipts import Witness
from ..store.reading import Store
from .common import (_DUEL_ID, Caller, HTTPError, _limited, _Limit, _says_nothing_of_caching, _stated_length,
                     _within_limit, refusals_documented)
from .head import head_as_get
from .language import Language, request_language, said_in_headers

FOLLOWS_PER_CLIENT = 32          # open streams (of duels and matches) from one client address
FOLLOWS_PER_DUEL = 2_000         # open streams of one duel or match


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
                raise HTTPError(429, say("this client has {count} streams open, the most it may: close one before "
                                    "following another", count=FOLLOWS_PER_CLIENT), where="follow")
            if self.duels[stream_id] >= FOLLOWS_PER_DUEL:
                raise HTTPError(429, say("{duel_id} has {count} streams open, the most it takes: try again later",
                                    duel_id=stream_id, count=FOLLOWS_PER_DUEL), where="follow")
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


class Threads:
    """Threads for the loop's blocking work (an append waits in one for its group commit), started
    as needed up to ``most``: a job is a callable put on a queue, taken by an idle thread. The
    standard pool makes a future, a work item and a semaphore's condition a job, and takes two
    locks to submit it: ~25 µs of CPU a hop there and back, against ~6 here (issue 25). A job
    catches its own errors (``Service.in_thread``)."""

    def __init__(self, most: int, name: str) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0          # threads waiting for a job no ``run`` has counted on them for
        self._waiting = 0       # jobs queued with every thread busy: the next thread free takes one
        self._threads: list[threading.Thread] = []
        self._most, self._name = most, name

    def run(self, job: Callable[[], None]) -> None:
        """Run ``job`` in an idle thread, else in a new one, else in the first one free."""
        with self._lock:
            if self._idle:
                self._idle -= 1
                thread = None
            elif len(self._threads) < self._most:
                thread = threading.Thread(target=self._serve, name=f"{self._name}-{len(self._threads)}")
                self._threads.append(thread)
            else:
                self._waiting += 1
                thread = None
        if thread is not None:
            try:
                thread.start()
            except BaseException:
                with self._lock:                 # never queued: no thread runs it later
                    self._threads.remove(thread)
                raise
        self._jobs.put(job)

    def close(self, wait: float = 30.0) -> None:
        """Let each thread end once the jobs before are done, and wait for them (``wait`` seconds
        at most): none is cut short, and none still reads or writes the store once the service
        has stopped and its store is closed (a job reading it then crashed ``demo`` at Ctrl-C)."""
        with self._lock:
            ending = list(self._threads)
            self._most = 0
        for _ in ending:
            self._jobs.put(None)
        deadline = time.monotonic() + wait
        for thread in ending:
            if thread.is_alive():
                thread.join(max(0.0, deadline - time.monotonic()))

    def _serve(self) -> None:
        take, lock = self._jobs.get, self._lock
        while True:
            job = take()
            if job is None:
                return
            job()
            with lock:
                if self._waiting:
                    self._waiting -= 1
                else:
                    self._idle += 1


def absent(kind: str, stream_id: str) -> str:
    """What an id that names no duel or match (of the caller's to know of) is told: 404's words."""
    return say("no duel {duel_id!r}", duel_id=stream_id) if kind == "duel" else \
        say("no match {match_id!r}", match_id=stream_id)


class Service:
    """The service's state: the store, its records, the duels followed, the organiser's token."""

    def __init__(self, store: Store, admin_digest: str, witness: Witness | None = None) -> None:
        self.store = store
        self.records = Records(store, witness)
        self.hub = Hub(store, witness)
        self.streams = Streams()
        self.admin_digest = admin_digest
        self.threads: Threads | None = None        # the loop's threads, once it runs (``create_app``)

    def in_thread(self, func: Callable[..., Any], *args: Any) -> Awaitable[Any]:
        """``func(*args)`` in one of the loop's threads, in this request's context (its language),
        as ``asyncio.to_thread``: to be awaited at once, in the loop. Answered by one future of the
        loop, not a thread's future chained to one, and that future itself is awaited, not a
        coroutine around it that each answer resumes too (a hop there and back is an append's
        every request: issue 25)."""
        threads = self.threads
        if threads is None:
            return asyncio.to_thread(func, *args)
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        context = contextvars.copy_context()

        def run() -> None:
            try:
                result, error = context.run(func, *args), None
            except BaseException as exc:       # noqa: BLE001  (the caller's, raised where it awaits)
                result, error = None, exc
            try:
                loop.call_soon_threadsafe(_settle, done, result, error)
            except RuntimeError:                # the loop has closed: nobody awaits it
                pass
        threads.run(run)
        return done

    # -- who is asking --------------------------------------------------------------------------

    @staticmethod
    def token_of(request: Request) -> str | None:
        header = request.headers.get("authorization", "")
        if header:
            scheme, _, token = header.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise HTTPError(401, say("the Authorization header must be 'Bearer <token>'"))
            return token.strip()
        return request.query_params.get("token") or None

    def organiser(self, request: Request) -> None:
        token = self.token_of(request)
        if token is None:
            raise HTTPError(401, say("this needs the organiser's token"))
        if not matches(token, self.admin_digest):
            raise HTTPError(403, say("this needs the organiser's token"))

    def is_organiser(self, token: str | None, hashed: str | None = None) -> bool:
        return token is not None and matches(token, self.admin_digest, hashed)

    def caller(self, request: Request, duel_id: str, read: bool = True) -> tuple[Caller, LiveDuel]:
        """The caller's role in this duel; 404 for a duel that is not theirs to know of. The
        token is hashed once, for every role it is compared with. ``read`` False: decided on the
        access record as held, not read again when due (the event loop's: ``duel_caller``)."""
        token = self.token_of(request)
        live = self._duel(duel_id)
        seen = live.access_version           # read before the record it is decided on
        hashed = digest(token) if token is not None else None
        if self.is_organiser(token, hashed):
            return Caller("organiser", "judge"), live
        # its access record as stored (``LiveDuel.settings``): another process may have changed it
        role = self.role_in(live.settings(read=read), token, "duel", duel_id,
                            lambda: self.match_role(live.match_id(), token, hashed, live.seats()), hashed)
        # the one place a duel's reader is given its view: a witnessed duel's recorder the table's
        caller = Caller(role, view_of(role, live.access.mode), live.released(read=read), seen)
        if caller.view == "spectator" and live.hidden_by_parent():
            raise HTTPError(404, say("no duel {duel_id!r}", duel_id=duel_id))
        return caller, live

    def reads_match(self, access: Access, token: str | None, hashed: str | None = None,
                    duel_role: str | None = None) -> bool:
        """The one rule of who may know of a match (its access record ``access``), for its own
        routes (``matches._caller``: 404 otherwise) and for what a duel's reader is shown of it
        (``match_reader``): the organiser, else ``access.knows_match`` (a public match's anyone,
        a token of the match's, a duel's table token: ``duel_role``, its role in that duel)."""
        return self.is_organiser(token, hashed) or knows_match(access, token, hashed, duel_role)

    def match_reader(self, request: Request, caller: Caller) -> Callable[[str, Access], bool]:
        """Whether ``caller``, of a duel, reading it by ``request`` may know of its match (given
        the match's id and access record; ``reads_match``): what ``rounds.match_details`` asks."""
        token = self.token_of(request)
        hashed = digest(token) if token is not None else None
        return lambda _match_id, access: self.reads_match(access, token, hashed, caller.role)

    @staticmethod
    def role_in(access: Access, token: str | None, kind: str, stream_id: str,
                otherwise: Callable[[], str | None] = lambda: None, hashed: str | None = None) -> str:
        """The role a token has in a duel or match (``kind``, ``stream_id``): its own, else
        ``otherwise``'s, else ``public`` for no token on a public one; 404 for one that is not the
        caller's to know of, 401 for a token that is none of its own (``hashed``: its digest)."""
        role = access.role_of(token, hashed) if token else None
        if role is None and token is not None:
            role = otherwise()
        if role is None:
            if access.visibility != "public":
                raise HTTPError(404, absent(kind, stream_id))
            if token is not None:
                raise HTTPError(401, say("this token is not one of this {what}'s", what=kind))
            role = "public"
        return role

    def match_role(self, match_id: str | None, token: str, hashed: str | None = None,
                   seats: list[str] | None = None) -> str | None:
        """The role a match's token has in a duel of that match (``match_id``, None for none): the
        same as in the match (the match page links each game with its own token), a player's the
        seat its player has in the duel (``seats``: the names its ``duel_started`` gives, None for
        none yet; ``access.seated``)."""
        seating = self.match_seating(match_id, token, hashed)
        return None if seating is None else seating.at(seats)

    def match_seating(self, match_id: str | None, token: str, hashed: str | None = None) -> Seating | None:
        """A match's token's role in the match ``match_id`` and the match's players, which seat it
        in a duel of the match (``access.Seating``); None for no match, a token not the match's,
        or a match not there or altered (no role in it)."""
        if match_id is None:
            return None
        try:
            match = self.hub.match(match_id)
            role = match.access.role_of(token, hashed)
            return None if role is None else Seating(role, tuple(match.state().players))
        except (StoreError, VerificationError):
            return None

    def writes_as(self, request: Request, caller: Caller, live: LiveDuel) -> str | Seating:
        """What ``caller`` writes ``live`` as (``Records.append_records``' ``role``): a match's
        player token its ``Seating``, the seat decided by the append at the head it is judged on
        (read before it, another process's ``duel_started`` stored in between made Kaiba's
        device write as Yugi's seat); any other its role. A duel's own player token is its seat,
        whatever names the duel gives."""
        if caller.role not in PLAYERS:
            return caller.role
        token = self.token_of(request)
        if token is None or live.access.role_of(token) is not None:
            return caller.role
        return self.match_seating(live.match_id(), token) or caller.role

    def hides_altered(self, request: Request) -> HTTPError | None:
        """What to answer, instead of the 409 of a duel or match its signed anchors do not vouch
        for (VerificationError), a caller who may not see it: what an id that names nothing gets
        (404, or the 401 of a wrong token on a public one), so a private duel's refusal tells
        nobody holding its id that it exists; None for whoever may see it, told it was altered.
        Every route's refusal comes here (``common._errors``), decided as ``caller`` decides, on
        the stream its address names: the organiser; a token its stored access record grants (for
        a duel, or its match's: none of a match itself refused); no token on a public one. Not on
        its header, which is what was altered (a forged parent or kind decides nothing; a branch
        its parent hides is told to its spectators all the same). An access record that cannot be
        read grants nothing; any other route's refusal (a file uploaded) is said as it is."""
        params = request.path_params
        kind = "duel" if "duel_id" in params else "match" if "match_id" in params else None
        if kind is None:
            return None
        stream_id = params[f"{kind}_id"]
        try:
            token = self.token_of(request)
            hashed = digest(token) if token is not None else None
            if self.is_organiser(token, hashed):
                return None
            access = self.records.access_or_none(stream_id)
            if access is None:
                raise HTTPError(404, absent(kind, stream_id))
            self.role_in(access, token, kind, stream_id, lambda: self._stored_match_role(kind, stream_id, token, hashed), hashed)
        except HTTPError as hidden:
            return hidden
        return None

    def opens(self, request: Request, duel_id: str, access: Access) -> bool:
        """Whether the caller of ``request`` may open duel ``duel_id``, whose access record is
        ``access``, as ``caller`` decides it: the organiser; a token of the duel's own, or of the
        match it is a duel of (as stored); no token on a public one. A list of duels (``/tree``)
        names no duel the same token is refused (a match's token opens its duels, not their
        branches). What a spectator may see of each (a branch its parent hides) is the list's."""
        token = self.token_of(request)
        hashed = digest(token) if token is not None else None
        if self.is_organiser(token, hashed):
            return True
        try:
            self.role_in(access, token, "duel", duel_id,
                         lambda: self._stored_match_role("duel", duel_id, token, hashed), hashed)
        except HTTPError:
            return False
        return True

    def _stored_match_role(self, kind: str, stream_id: str, token: str | None, hashed: str | None) -> str | None:
        """``match_role`` for a duel read from the store (its link as stored; one that cannot be
        read links none), None for a match or no token."""
        if kind != "duel" or token is None:
            return None
        try:
            match_id = self.store.match_of(stream_id)
        except StoreError:
            return None
        return self.match_role(match_id, token, hashed)

    def events_seen(self, duel_id: str, view: str = "spectator") -> int:
        """How many events of a duel ``view`` (a spectator's, a player's: a judge's what-if branch
        cut, ``LiveDuel.branch_cut``) may see now (none of one that cannot be read,
        or that its signed anchors do not vouch for)."""
        try:
            return self.hub.get(duel_id).visible(view)
        except (StoreError, VerificationError):
            return 0

    def _duel(self, duel_id: str) -> LiveDuel:
        if not _DUEL_ID.fullmatch(duel_id):
            raise HTTPError(404, say("no duel {duel_id!r}", duel_id=duel_id))
        try:
            return self.hub.get(duel_id)
        except StoreError:
            raise HTTPError(404, say("no duel {duel_id!r}", duel_id=duel_id)) from None

    @staticmethod
    def require(caller: Caller, *roles: str) -> None:
        if caller.role not in roles and caller.role != "organiser":
            raise HTTPError(403, say("a {role} token may not do this (it takes: {roles})",
                                     role=caller.role, roles=", ".join(roles)))

    @staticmethod
    def view_for(caller: Caller, asked: str | None) -> str:
        if asked is None:
            return caller.view
        if asked not in caller.views:
            raise HTTPError(403, say("a {role} token may not see the {view!r} view", role=caller.role, view=asked))
        return asked

    # -- duels ----------------------------------------------------------------------------------

    def create(self, title: str, visibility: str, delay_events: int, delay_seconds: float,
               request_base: str = "", release: tuple[str | None, str | None, str | None] = (None, None, None),
               mode: str = "machine", warnings: bool | None = None, set_up: list[Event] = ()) -> dict:
        access, tokens = Access.issue(visibility, delay_events, delay_seconds, *release, mode=mode, warnings=warnings)
        if set_up:          # its first events say the mode the organiser chose, as its first append's must
            Records.check_mode("(new)", access.to_dict(), list(set_up))
        done = self.records.record(list(set_up), title, attachments={"access": access.to_dict()}, strict=True)
        assert done.id is not None and done.receipt is not None
        self.hub.created(done.id)            # its first append here neither reads nor checks it again
        return {**self._created(done.id, tokens, request_base, mode == "witnessed"), **done.receipt.fields(),
                "warnings": access.warns}

    def _created(self, duel_id: str, tokens: dict[str, str], base: str, witnessed: bool = False) -> dict:
        """The new duel's id, tokens, a viewer link for each token, and the recorder's page
        (``record``) for each token that records: the recorder's, and in a witnessed duel each
        player's, whose device records that player's own side (``access.off_side``)."""
        links = {role: f"{base}/view/{duel_id}?token={token}" for role, token in tokens.items()}
        if "spectator" not in tokens:
            links = {r: l for r, l in links.items() if r != "spectator"}
        record = {role: f"{base}/record/{duel_id}?token={tokens[role]}"
                  for role in recorders_of("witnessed" if witnessed else "machine") if role in tokens}
        return {"id": duel_id, "tokens": tokens, "links": links, "record": record}


def _settle(done: asyncio.Future, result: Any, error: BaseException | None) -> None:
    """``in_thread``'s answer, in the loop (a request gone meanwhile is answered nothing)."""
    if done.cancelled():
        return
    if error is not None:
        done.set_exception(error)
    else:
        done.set_result(result)


async def service_of(request: Request) -> Service:
    """The service the app was made with."""
    return request.app.state.service


ServiceDep = Annotated[Service, Depends(service_of)]


async def organiser(request: Request, service: ServiceDep) -> None:
    """Only the organiser's token passes (401 without a token, 403 with another)."""
    service.organiser(request)


async def duel_caller(duel_id: str, request: Request, service: ServiceDep) -> tuple[Caller, LiveDuel]:
    """The caller of ``/duels/{duel_id}/...`` and the duel, without leaving the event loop when the
    duel is already followed here and its access record is not due to be read again
    (``LiveDuel.settings_due``: a change of it heard, or its release to read); else in a thread,
    as a duel not held is opened. The store is never read for it on the loop: the record read
    there once a second a duel held the paced p99 (84 → 262 ms). 404 for a duel that is not
    theirs to know of."""
    live = service.hub.duels.get(duel_id)
    if live is not None and not live.settings_due():
        return service.caller(request, duel_id, read=False)
    return await service.in_thread(service.caller, request, duel_id)


async def append_caller(duel_id: str, request: Request, service: ServiceDep) -> tuple[Caller, LiveDuel]:
    """``duel_caller`` for an append, which takes one hop to a thread to write: a duel held here
    whose access record is due to be read again is let in on the one held, and asked again with
    the record read in that hop (``confirmed``), not in a hop of its own before it (a witnessed
    recorder's append took two: test_service_append). An override of ``duel_caller`` (an
    embedder's check of every duel route) is the append's too, called as FastAPI calls it."""
    override = request.app.dependency_overrides.get(duel_caller)
    if override is not None:
        given = {"duel_id": duel_id, "request": request, "service": service}
        answer = override(**{name: given[name] for name in inspect.signature(override).parameters if name in given})
        return await answer if inspect.isawaitable(answer) else answer
    live = service.hub.duels.get(duel_id)
    if live is not None and live.settings_due():
        caller, live = service.caller(request, duel_id, read=False)
        # the organiser's token is no access record's: nothing to ask again
        return (caller if caller.role == "organiser" else replace(caller, confirm=True)), live
    return await duel_caller(duel_id, request, service)


def confirmed(service: Service, request: Request, duel_id: str, caller: Caller) -> None:
    """In an append's thread, before it writes: its caller asked again on the access record read
    now, when it was let in on the one held (``append_caller``): refused as any request is when
    that record no longer lets it in (404, 401), and 403 when it gives the token another role."""
    if not caller.confirm:
        return
    now, _live = service.caller(request, duel_id)
    if (now.role, now.view) != (caller.role, caller.view):
        raise HTTPError(403, say("a {role} token may not do this (it takes: {roles})",
                                 role=now.role, roles=caller.role))


DuelCaller = Annotated[tuple[Caller, LiveDuel], Depends(duel_caller)]
AppendCaller = Annotated[tuple[Caller, LiveDuel], Depends(append_caller)]


#: A query string a recorder's append sends (none, or ``expected=N`` written plainly): the only
#: one the direct route reads itself.
_PLAIN_EXPECTED = re.compile(rb"(?:expected=(0|[1-9][0-9]{0,9}))?")
_MOST_EXPECTED = 10 ** 9
#: The query a DirectRoute's endpoint may take: ``expected`` read directly; the others (an entry's
#: ``made_on`` and ``confirm``, ``application.repeated_turn``) are never in a plain query, so the
#: direct call passes them their declared defaults (as FastAPI would: the endpoint's own default is
#: the ``Query`` marker, which is truthy) and any request naming them is FastAPI's.
_DIRECT_QUERY = frozenset({"expected", "made_on", "confirm"})
#: FastAPI serializes a response model straight to JSON bytes (``dump_json``); an older one, whose
#: answers are made otherwise, answers every request through its own handler.
_SERIALIZES_JSON = "dump_json" in inspect.signature(serialize_response).parameters


class DirectRoute(APIRoute):
    """A route of ``(duel_id, request, service, asking[, expected, made_on, confirm])`` whose requests skip
    FastAPI's per-request dependency solving when their query is plain: its arguments are made
    by the same dependencies (``service_of``, ``duel_caller``) called directly, and its answer
    serialized as FastAPI serializes it (its response model's JSON), so the bytes are the same.
    Any other query (a ``token=``, an ``expected`` out of range or not a plain number) goes
    through FastAPI's own handler, which validates it and answers its errors as ever; so does
    every request when the route, or the router it is included by, has a dependency besides
    those two, and while the app overrides any dependency. The OpenAPI document is FastAPI's, from the endpoint's signature. (Solving the
    two nested dependencies and the query was about half the event loop's CPU of an append:
    issue 25.)"""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        standard = super().get_route_handler()
        direct = self._direct()
        if direct is None:
            return standard
        plain_query, answered = direct

        async def handler(request: Request) -> Response:
            plain = plain_query(request.scope)
            if plain is None:
                return await standard(request)
            return await answered(request, plain)
        return handler

    def lane_app(self, standard: ASGIApp, included: Any, prepared: Callable[[Scope], None]) -> ASGIApp:
        """The route as the lane calls it (``_lane``): a plain request (``_direct``) answered in one
        coroutine, with no per-request layer of FastAPI's ``request_response`` around it (its two
        exit stacks, none of which this endpoint's dependencies use, and the exception handlers'
        wrapper, whose ``send`` each message passed through: a fifth of the event loop's CPU of an
        append, issue 25); any other request, and every one when the route is not direct, is
        ``standard``'s, the route's app as included (``included``: FastAPI's inclusion context). An
        error is answered by the same handlers, looked up as the wrapper looks them up, since it is
        raised through that wrapper (``wrap_app_handling_exceptions``), so its bytes are the same.
        ``prepared`` leaves the scope as the router leaves it for the route."""
        effective = getattr(fastapi_routing, "_effective_route_context_var", None)
        token = effective.set(included) if effective is not None and included is not None else None
        try:
            direct = self._direct()
        finally:
            if token is not None:
                effective.reset(token)
        if direct is None:
            return _routed_as(standard, prepared)
        plain_query, answered = direct

        async def lane_app(scope: Scope, receive: Receive, send: Send) -> None:
            prepared(scope)
            plain = plain_query(scope)
            if plain is None:
                return await standard(scope, receive, send)
            request = Request(scope, receive, send)
            try:
                response = await answered(request, plain)
            except Exception as error:     # noqa: BLE001  (answered by the handlers it is raised to)
                return await wrap_app_handling_exceptions(_raising(error), request)(scope, receive, send)
            await response(scope, receive, send)
        return lane_app

    def _direct(self) -> tuple[Callable[[Scope], tuple[int | None] | None],
                               Callable[[Request, tuple[int | None]], Coroutine[Any, Any, Response]]] | None:
        """How a plain request is told (``(expected,)``, else None: FastAPI's) and answered, for the
        route as it is being built or included now; None when every request is FastAPI's."""
        endpoint, field, status = self.endpoint, self.response_field, self.status_code or 200
        queried = {p.name for p in self.dependant.query_params}
        if not queried <= _DIRECT_QUERY:          # a query it does not read would be passed unsolved
            raise TypeError(f"DirectRoute reads no query parameter but {sorted(_DIRECT_QUERY)}, not {sorted(queried)}")
        # as included (a router's own dependencies are the included route's): any dependency but
        # the two it calls itself (a check added to the route or its router) is FastAPI's to solve
        effective = getattr(fastapi_routing, "_effective_route_context_var", None)   # FastAPI >= 0.16x
        included = effective.get() if effective is not None else None
        as_included = included if included is not None and included.original_route is self else self
        dependant = as_included.dependant
        # an override of a dependency (a test's, an embedder's) is FastAPI's to call, as for any route
        provider = getattr(as_included, "dependency_overrides_provider", None)
        if not _SERIALIZES_JSON or [d.call for d in dependant.dependencies] not in (
                [service_of, duel_caller], [service_of, append_caller]):
            return None
        caller_of = dependant.dependencies[1].call
        takes_expected = "expected" in queried
        # what FastAPI gives a parameter the query leaves out: a confirm left as its Query marker
        # read as confirmed, and every plain append skipped the repeated-turn check
        defaults = {p.name: p.field_info.default for p in self.dependant.query_params if p.name != "expected"}

        def plain_query(scope: Scope) -> tuple[int | None] | None:
            plain = _PLAIN_EXPECTED.fullmatch(scope.get("query_string", b""))
            if plain is None or getattr(provider, "dependency_overrides", None):
                return None
            if plain[1] is None:
                return (None,)
            if not takes_expected or int(plain[1]) > _MOST_EXPECTED:
                return None
            return (int(plain[1]),)

        async def answered(request: Request, plain: tuple[int | None]) -> Response:
            duel_id = request.path_params["duel_id"]
            service = await service_of(request)
            asking = await caller_of(duel_id, request, service)
            extra = {**defaults, "expected": plain[0]} if takes_expected else defaults
            answer = await endpoint(duel_id=duel_id, request=request, service=service, asking=asking, **extra)
            if isinstance(answer, Response):
                return answer
            return Response(await serialize_response(field=field, response_content=answer, dump_json=True),
                            status_code=status, media_type="application/json")
        return plain_query, answered


def _routed_as(handle: ASGIApp, prepared: Callable[[Scope], None]) -> ASGIApp:
    """``handle`` called with the scope ``prepared`` as the router would leave it."""
    async def routed(scope: Scope, receive: Receive, send: Send) -> None:
        prepared(scope)
        await handle(scope, receive, send)
    return routed


#: The path of a duel's append, for a duel id a duel may have (``_DUEL_ID``): what the lane takes.
_APPEND_PATH = re.compile(f"/duels/{_DUEL_ID.pattern}/events")


class ServiceApp(FastAPI):
    """The service's app: FastAPI, but for the one request it serves most, a recorder's append
    (``POST /duels/{id}/events``, ``append_route``), whose route is found without routing. The
    routers are tried in turn for every request (FastAPI's routing through included routers was
    about a fifth of the event loop's CPU of an append: issue 25); an append takes a *lane*
    instead: the app's middleware stack, built as FastAPI builds it (the errors mapped by the same
    handlers) when its middleware are FastAPI's and the service's, whose innermost app is the append route's, as the
    router would have called it (the route as included, its dependencies, its limits). The lane
    is built at the first append from what the router itself matches for that path, and only when
    it is the append route; a request the lane does not take (another method or path, a root
    path, telemetry on) goes through FastAPI as ever, and so does every append of an app with a
    middleware added (the lane's would be a second instance of it, apart from the app's)."""

    append_route: APIRoute | None = None
    _lane: ASGIApp | None = None
    _laned = False

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        telemetry = getattr(self, "_native_telemetry", None)     # FastAPI >= 0.16x: asked every request
        if telemetry is not None:
            telemetry.enabled = _Rechecked(telemetry.enabled)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "HEAD":    # every GET route's head, in one place
            return await head_as_get(super().__call__, scope, receive, send)
        if (scope["type"] == "http" and scope["method"] == "POST" and _APPEND_PATH.fullmatch(scope["path"])
                and not scope.get("root_path") and not self.root_path):
            lane = self.lane()
            telemetry = getattr(self, "_native_telemetry", None)
            if lane is not None and not (telemetry is not None and telemetry.enabled()):
                scope["app"] = self
                return await lane(scope, receive, send)
        return await super().__call__(scope, receive, send)

    def lane(self) -> ASGIApp | None:
        """The append's lane (``_lane``), built the first time it is asked for: at start-up, by
        the lifespan (``create_app``), so that the first append of each worker does not build it
        (and FastAPI's state of every route it matches on the way, ~30 ms of CPU) while a room's
        first appends wait behind it (issue 25); else at the first append."""
        if not self._laned:
            if self.middleware_stack is None:      # started, as by a routed first request: no
                self.middleware_stack = self.build_middleware_stack()   # middleware added after
            self._lane, self._laned = _lane(self), True
        return self._lane

    def openapi(self) -> dict[str, Any]:
        if self.openapi_schema is None:
            self.openapi_schema = refusals_documented(super().openapi())
        return self.openapi_schema


class _Rechecked:
    """A check whose answer is kept for ``interval`` seconds: whether OpenTelemetry is configured,
    which FastAPI asks of three providers and the environment before every request (~10 µs of an
    append's ~200 on the loop: issue 25). A provider is set once, by the code or the environment
    that starts the service; one set while serving is seen within the interval."""

    def __init__(self, check: Callable[[], bool], interval: float = 1.0) -> None:
        self._check, self._interval = check, interval
        self._answer, self._until = False, float("-inf")

    def __call__(self) -> bool:
        now = time.monotonic()
        if now >= self._until:
            self._answer, self._until = self._check(), now + self._interval
        return self._answer


def _lane(app: ServiceApp) -> ASGIApp | None:
    """The app's middleware stack around the append route as its router finds it (``ServiceApp``),
    or None when the router would take such a request elsewhere, or the stack or FastAPI is not
    the one this knows (then every append is routed)."""
    route = app.append_route
    # no middleware but the service's own, which keep nothing: the lane's stack is built anew, and
    # would be a second instance of any other, apart from the app's (what it counts, its lifespan)
    if route is None or any(getattr(m, "cls", None) not in (Language, _Limit) for m in app.user_middleware):
        return None
    try:
        # the router finds routes by the path: one whose id is all digits or all letters is no other
        found = [_routed(app, {"type": "http", "method": "POST", "path": f"/duels/{duel_id}/events",
                               "raw_path": f"/duels/{duel_id}/events".encode(), "root_path": "",
                               "query_string": b"", "headers": []})
                 for duel_id in ("0123456789ab", "000000000000", "ffffffffffff")]
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
    routed = found[0]
    if routed is None or any(other is None or other[1] is not routed[1] for other in found):
        return None
    endpoint, handle, included = routed

    def prepared(scope: Scope) -> None:
        # the scope as the router leaves it for the route (its path parameters, route and endpoint)
        scope["path_params"] = {**scope.get("path_params", {}), "duel_id": scope["path"].split("/")[2]}
        scope["endpoint"], scope["route"] = endpoint, route
        scope.setdefault("router", app.router)
    # a direct route's plain requests are answered with no FastAPI layer around them
    append = route.lane_app(handle, included, prepared) if isinstance(route, DirectRoute) \
        else _routed_as(handle, prepared)
    stack = app.build_middleware_stack()
    node: Any = stack
    while getattr(node, "app", None) is not app.router:
        node = getattr(node, "app", None)
        if node is None:
            return None
    node.app = append
    return _flattened(stack, append) or stack


def _flattened(stack: Any, append: ASGIApp) -> ASGIApp | None:
    """The lane's stack run as one (``flat``), the server's errors (``ServerErrorMiddleware``: its
    500, answered out of the request's language as there) included: the two no-ops an append meets (FastAPI's telemetry, off in the lane, and its
    body limit, none set), ``Language``, ``_Limit``, the exception handlers' mapping (which the
    route's own wrapper does, from the same handlers) and the exit stack, each its own coroutine
    and the answer passed through each one's ``send``: about a fifth of the event loop's CPU of
    an append (issue 25). Only for the stack this knows, layer by layer, and a body of a stated
    length within ``MAX_BODY`` (its bytes counted as they come all the same, as ``_Limit`` does:
    a server need not hold a body to its length): any other request (no length, one over the
    limit: 413) takes the whole stack. None when the stack is another (a middleware added, another FastAPI)."""
    try:
        from fastapi._body_limit import MAX_BODY_SIZE_SCOPE_KEY, AppBodyLimitMiddleware
        from fastapi.middleware.asyncexitstack import AsyncExitStackMiddleware
        from fastapi.telemetry._asgi import ExceptionTelemetryMiddleware
    except ImportError:
        return None
    layers: list[Any] = []
    node: Any = stack
    while node is not append:
        layers.append(node)
        node = getattr(node, "app", None)
        if node is None:
            return None
    known = [ServerErrorMiddleware, ExceptionTelemetryMiddleware, AppBodyLimitMiddleware, Language, _Limit,
             ExceptionMiddleware, AsyncExitStackMiddleware]
    if [type(layer) for layer in layers] != known or layers[2].app is not layers[3]:   # a body limit set
        return None
    server_errors, exceptions, files = layers[0], layers[5], layers[6]
    handlers = (exceptions._exception_handlers, exceptions._status_handlers)
    files_key = files.context_name

    async def flat(scope: Scope, receive: Receive, send: Send) -> None:
        length = _stated_length(scope)
        if length is None or not _within_limit(length) or MAX_BODY_SIZE_SCOPE_KEY in scope:
            return await server_errors(scope, receive, send)
        language = request_language(scope)
        started = False

        async def answer(message: dict) -> None:    # as ``_Limit`` and then ``Language`` send it
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                headers = message.get("headers") or []
                if _says_nothing_of_caching(headers):
                    headers = [*headers, (b"cache-control", b"no-store")]
                message = {**message, "headers": said_in_headers(headers, language)}
            await send(message)
        scope["starlette.exception_handlers"] = handlers      # as ``ExceptionMiddleware`` leaves them
        failed: Exception | None = None
        spoken = i18n.speaking(language)
        try:
            async with AsyncExitStack() as stack:
                scope[files_key] = stack
                await append(scope, _limited(receive), answer)
        except Exception as error:     # noqa: BLE001  (the server's errors' to answer, out of the language)
            failed = error
        finally:
            i18n.spoken(spoken)
        if failed is not None:          # the 500 ``ServerErrorMiddleware`` answers (none once an answer started)
            await ServerErrorMiddleware(_raising(failed), server_errors.handler, server_errors.debug)(
                scope, receive, _nowhere if started else send)
    return flat


async def _nowhere(_message: dict) -> None:
    """A ``send`` that sends nothing: an answer already started gets no second one."""


def _raising(error: Exception) -> ASGIApp:
    """An app that raises ``error``: an error raised again inside a wrapper that answers it
    (the exception handlers', the server's 500), as if it had been raised there."""
    async def raising(_scope: Scope, _receive: Receive, _send: Send) -> None:
        raise error
    return raising


def _routed(app: ServiceApp, scope: Scope) -> tuple[Callable, ASGIApp, Any] | None:
    """The append route's endpoint, its app as included and FastAPI's context of that inclusion
    (None for a route of the app's own), when the app's router takes ``scope`` there (the first
    route that matches it whole, as ``Router.app`` tries them); else None."""
    for candidate in app.router.routes:
        match, child = candidate.matches(scope)
        if match == Match.FULL:
            break
    else:
        return None
    if candidate is app.append_route:
        return child["endpoint"], candidate.app, None
    match_included = getattr(candidate, "_match", None)        # FastAPI >= 0.16x: an included router
    if match_included is None:
        return None
    match, child, route, context = match_included(scope)
    if match != Match.FULL or route is not app.append_route or context is None or context.app is None:
        return None
    if context.methods and "POST" not in context.methods:
        return None
    return child["endpoint"], context.app, context
