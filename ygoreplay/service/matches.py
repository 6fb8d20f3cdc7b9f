"""The service's match endpoints: create a match, record its duels and its procedure, read it as
each role may, follow it, export it. A thin face on the match's application layer.

A match has tokens of its own, one per role, as a duel has (32 random bytes, kept as digests):
the recorder writes the table's facts (decklists, duels, siding, time, extra turns, decisions,
concessions, the result), the judge also penalties, rulings and appeals; a player may concede or
call a judge for themselves (``commands.permit``); p0, p1 and spectators read their own view
(``match/views.py``: the other player's cards are withheld, counts stay). A duel of the match, created with it or linked to it,
keeps its own tokens and also opens with the match's token of the same role: the match page links
each game with the token it was opened with. Every refusal of the match rules is 422 with its
rule ID; a writer that lost the race, 409.

Every write goes through one command (``commands.record``): a typed endpoint fills in its defaults
and hands its event over, the raw ``/matches/{id}/events`` hands its events over as they are, and
the command checks who may, every link and every rule for both. A match reads its duels only as
``commands.linked_duel`` gives them (duels it linked).
"""
from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any, AsyncIterator
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import RedirectResponse, Response

from .. import viewer
from ..access import (NARROWER, PLAYERS, RELEASES, VISIBILITIES, ReleaseSettingError, digest, release_settings,
                      recorders_of, seated, view_of)
from ..chain import now
from ..decks import Banlist
from ..errors import StoreError
from ..events import Event, EventFormatError, from_dict
from ..i18n import beside, say
from ..live import LiveDuel
from ..match.live import LiveMatch
from ..match import application as app_layer, commands
from ..match.events import CLOCK_PATTERN, DECISION_STAGES, GAME_ENDINGS
from ..match.links import first_players
from ..match.policies import POLICIES
from ..rules import RuleViolation
from ..store.listing import DuelInfo
from ..store.records import new_id
from ..text import checked, number
from .common import (
    _DUEL_ID, _PAGE_HEADERS, KEEPALIVE, VIEW, Caller, HTTPError, _body_json, EventStream, _jsonable, _request_events, _ygr,
    WRITTEN_ANSWER, written_at)
from .core import Service, ServiceDep, _Lease, organiser
from .fanout import RETRY, Connection, Follower, MatchFeed, sent
from .languages import page_language

router = APIRouter()


def _object(properties: dict, required: list[str] | None = None) -> dict:
    """The OpenAPI request body of an endpoint taking a JSON object."""
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = required
    return {"requestBody": {"required": bool(required), "content": {"application/json": {"schema": schema}}}}


_PLAYER = {"type": "integer", "enum": [0, 1]}
_CODES = {"type": "array", "items": {"type": "integer"}, "maxItems": 200}
_TEXT = {"type": "string", "maxLength": 2000}


def _no_match(match_id: str) -> HTTPError:
    """The 404 of a match that is none, or not the caller's to know of (the same answer)."""
    return HTTPError(404, say("no match {match_id!r}", match_id=match_id))


def _live_match(service: Service, match_id: str) -> LiveMatch:
    if not _DUEL_ID.fullmatch(match_id):
        raise _no_match(match_id)
    try:
        return service.hub.match(match_id)
    except StoreError:
        raise _no_match(match_id) from None


def _caller(service: Service, request: Request, match_id: str) -> tuple[Caller, LiveMatch]:
    """The caller's role in this match; 404 for a match that is not theirs to know of."""
    token = service.token_of(request)
    hashed = digest(token) if token is not None else None
    live = _live_match(service, match_id)
    if not service.reads_match(live.access, token, hashed):      # the one rule a duel's reader meets too
        raise _no_match(match_id)
    if service.is_organiser(token, hashed):
        return Caller("organiser", "judge"), live
    role = service.role_in(live.access, token, "match", match_id, hashed=hashed)
    # the one place a reader's view is decided, a duel's and a match's: a witnessed match's recorder
    # (its table's code, which a scorekeeper or both players scan) reads the table's, as in its duels
    return Caller(role, view_of(role, live.access.mode), live.released()), live


def _duel_view(who: Caller, duel: LiveDuel) -> str:
    """The view a match's caller reads one of its duels through (``access.view_of``: its recorder
    reads a witnessed duel as the table sees it), as the duel's own doors give it."""
    return view_of(who.role, duel.access.mode)


async def match_caller(match_id: str, request: Request, service: ServiceDep) -> tuple[Caller, LiveMatch]:
    """The caller of ``/matches/{match_id}/...`` and the match (read off the event loop)."""
    return await asyncio.to_thread(_caller, service, request, match_id)


MatchCaller = Annotated[tuple[Caller, LiveMatch], Depends(match_caller)]


#: What a writing endpoint is given: the caller and the match (``writes``).
Writing = tuple[Caller, LiveMatch]


def writes(kind: str) -> Any:
    """The dependency of an endpoint writing ``kind``: a caller who may write it here
    (``commands.permit``: refused before any default is read), with the match brought up to
    the stored head (another process may have appended: what the endpoint derives is derived
    from the head)."""
    async def writing(asking: MatchCaller) -> Writing:
        who, live = asking
        commands.permit(who.role, kind)
        await asyncio.to_thread(live.refresh)
        return who, live
    return Depends(writing)


def event(kind: str, body: Any, allowed: set[str], **fixed: Any) -> Event:
    """A match event from a JSON object's fields, or 400 naming what is wrong and where."""
    if not isinstance(body, dict):
        raise HTTPError(400, say("the body must be a JSON object"), where="body")
    unknown = set(body) - allowed
    if unknown:
        raise HTTPError(400, say("unknown field(s) {fields}", fields=", ".join(sorted(unknown))), where="body")
    data = {k: v for k, v in body.items() if v is not None or k == "winner"}   # a draw has no winner
    try:
        return from_dict({"kind": kind, **data, **fixed}, kind)
    except EventFormatError as exc:
        raise HTTPError(400, exc.detail, where=kind) from None


async def _object_body(request: Request) -> dict:
    """A JSON object body (none is ``{}``), or 400."""
    body = await _body_json(request) if await request.body() else {}
    if not isinstance(body, dict):
        raise HTTPError(400, say("the body must be a JSON object"), where="body")
    return body


def _expected_of(request: Request) -> int | None:
    raw = request.query_params.get("expected")
    if raw is None:
        return None
    value = number(raw)
    if value is None or value < 0:
        raise HTTPError(400, say("expected is a whole number, the match's event count"), where="expected")
    return value


async def _append(service: Service, request: Request, match_id: str, who: Caller, events: list[Event]) -> dict:
    """The events handed to the match's one write command, as the caller writes them."""
    written = await asyncio.to_thread(commands.record, service.hub, match_id, commands.Writer(who.role), events,
                                      _expected_of(request))
    return written_at(written.position, len(written.records))


def _current(live: LiveMatch) -> Any:
    game = live.state().current
    if game is None:
        raise RuleViolation("LOG-03", say("no duel of the match is being played"), live.count, "game_ended")
    return game


# -- a table's recorder link --------------------------------------------------------------------------

@router.get("/record/match/{match_id}", include_in_schema=False)
def record_match(match_id: str, request: Request, asking: MatchCaller) -> Response:
    """A round's table link (its QR code): the recorder's page for the match's current duel.
    The duel opens with the match's own token (``Service.match_role``), so this hands on the
    token it was opened with and keeps none: 303 to ``/record/{duel}`` while a duel is being
    played, else the recorder's page, which offers to start the next duel through the match API
    (``POST /matches/{id}/games``) and then goes to it. Either names the match (``match=``): the
    page offers the match's decklists first when naming a card. At a paper table (a witnessed
    match) a seat's link opens it too (``access.recorders_of``): the player's device, seated in the
    duel by the duel's own ``duel_started`` (``access.seated``), records that player's own side;
    between duels (the table starts the next) it opens the match's page for that player."""
    who, live = asking
    Service.require(who, *recorders_of(live.access.mode), "judge")
    game = live.state().current
    token = Service.token_of(request) or ""
    if game is not None and game.duel:
        return RedirectResponse(f"/record/{game.duel}?{urlencode({'token': token, 'match': match_id})}", status_code=303,
                                headers={"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"})
    if who.role in PLAYERS:
        return RedirectResponse(f"/match/{match_id}?{urlencode({'token': token})}", status_code=303,
                                headers={"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"})
    return Response(viewer.record_page(page_language(request)), media_type="text/html; charset=utf-8",
                    headers={**_PAGE_HEADERS, "Cache-Control": "no-store"})


# -- creating and listing ---------------------------------------------------------------------------

@router.post("/matches", status_code=201, tags=["organiser"], dependencies=[Depends(organiser)],
             openapi_extra=_object({
                 "title": {"type": "string", "maxLength": 500}, "visibility": {"enum": list(VISIBILITIES)},
                 "players": {"type": "array", "items": {"type": "string", "maxLength": 200}, "minItems": 2,
                             "maxItems": 2},
                 "policy": {"enum": list(POLICIES)},
                 "banlist": {"type": "object", "properties": {
                     "name": {"type": "string", "maxLength": 200}, "whitelist": {"type": "boolean"},
                     "limits": {"type": "array", "maxItems": 20000, "items": {"type": "object", "properties": {
                         "code": {"type": "integer"}, "limit": {"type": "integer", "minimum": 0, "maximum": 3}}}}}},
                 "format": {"type": "string", "maxLength": 200}, "event_name": {"type": "string", "maxLength": 200},
                 "round": {"type": "integer", "minimum": 0, "maximum": 10000},
                 "time_limit": {"type": "integer", "minimum": 1, "maximum": 1440},
                 "release": {"enum": list(RELEASES)}, "release_at": {"type": "string", "format": "date-time"},
                 "decklists": {"type": "array", "maxItems": 2, "items": {"type": ["object", "null"], "properties": {
                     "main": _CODES, "extra": _CODES, "side": _CODES}}}}, ["players", "policy", "banlist"]))
async def create_match(request: Request, service: ServiceDep) -> dict:
    """A new match (the organiser's): players, policy, the banlist by name and content, and
    the decklists if they are known; its id, a token for each role and a page link for each."""
    title, visibility, events, release = _match_settings(await _body_json(request))
    spec, tokens = app_layer.match_stream(events, title, visibility, release)

    def record() -> str:
        match_id, count, _violation = service.store.record(**spec)
        app_layer.witness_heads(service.store, service.records.witness, [(str(match_id), count, None)])
        return str(match_id)
    match_id = await asyncio.to_thread(record)
    base = str(request.base_url).rstrip("/")
    links = {role: f"{base}/match/{match_id}?token={token}" for role, token in tokens.items()}
    return {"id": match_id, "tokens": tokens, "links": links}


def _match_settings(body: Any) -> tuple[str, str, list[Event], tuple[str | None, str | None, str | None]]:
    """A new match's title, visibility, opening events and release policy from its request, or
    400 saying what is wrong and where."""
    if not isinstance(body, dict):
        raise HTTPError(400, say("the body must be a JSON object"), where="body")
    known = {"title", "visibility", "players", "policy", "banlist", "format", "event_name", "round",
             "time_limit", "decklists", "release", "release_at"}
    if set(body) - known:
        raise HTTPError(400, say("unknown field(s) {fields}",
                                 fields=", ".join(sorted(set(body) - known))), where="body")
    title = body.get("title", "")
    if not isinstance(title, str):
        raise HTTPError(400, say("title must be a string of at most 500 characters"), where="title")
    title = checked(title, "the title", 500)
    visibility = body.get("visibility", "unlisted")
    if visibility not in VISIBILITIES:
        raise HTTPError(400, say("visibility is one of {choices}", choices=", ".join(VISIBILITIES)), where="visibility")
    events = _opening(body)
    try:        # a match is an event's: released at its end only when told so (``access.py``)
        release = release_settings(body.get("release"), body.get("event_name"), body.get("release_at"))
    except ReleaseSettingError as exc:
        raise HTTPError(400, str(exc), where=exc.where) from None
    return title, visibility, events, release


@router.post("/matches/{match_id}/release", tags=["organiser"], dependencies=[Depends(organiser)])
def release_match(match_id: str, service: ServiceDep) -> dict:
    """The organiser's call that the event has ended: the decklists and Side Decks of a match
    under the ``event`` release policy, and what its duels hid, are released to every reader
    (each once it has ended). The one command ``ygoreplay release MATCH`` calls (``Records.release``)."""
    live = _live_match(service, match_id)
    done = service.records.release(match_id)
    live.access = done.access                  # held here as written: no second read
    for game in live.state().games:
        if game.duel and game.duel in service.hub.duels:
            service.hub.duels[game.duel].settings_changed()
    return done.to_dict()


@router.get("/matches", tags=["organiser"])
def list_matches(request: Request, service: ServiceDep, player: str | None = Query(None, max_length=200)) -> list[dict]:
    """The matches: all of them for the organiser, the public ones for anyone (not one whose
    header its signed anchors do not name: its page refuses it, and a list showed its forged
    title; nor one whose access record does not read); by a player's name."""
    token = service.token_of(request)
    everyone = service.is_organiser(token)
    if token is not None and not everyone:
        raise HTTPError(403, say("listing all matches needs the organiser's token"))
    out = []
    for info in service.store.duels("match"):
        if not everyone:
            access = service.records.access_or_none(info.id)
            if access is None or access.visibility != "public" or not info.signed:
                continue
        if player and not any(player.casefold() in p.casefold() for p in info.status.get("players", [])):
            continue
        out.append(_listed(info))
    return out


# -- reading --------------------------------------------------------------------------------------

@router.get("/matches/{match_id}", tags=["everyone"])
def get_match(match_id: str, asking: MatchCaller, start: int = Query(0, alias="from", ge=0, le=10 ** 9),
              view: str | None = Query(None, pattern=VIEW)) -> dict:
    """The match's events from position ``from`` on, as the view has them: a decklist, Side
    Deck or swap the view may not see has its cards withheld (``withheld`` gives the counts)."""
    who, live = asking
    view = Service.view_for(who, view)
    return {"id": match_id, "title": live.header.title, "role": who.role, "view": view,
            "views": list(who.views), "visibility": live.access.visibility, "events_count": live.count,
            "events": live.view_events(view, start)}


@router.get("/matches/{match_id}/state", tags=["everyone"])
def match_state(match_id: str, service: ServiceDep, asking: MatchCaller,
                view: str | None = Query(None, pattern=VIEW)) -> dict:
    """The match now, for the view: players, policy, score, each duel with its result and the
    siding before it, time, extra turns, decisions, penalties, rulings, the result and points;
    ``times``: when each event (each of ``lines``) was recorded.
    The judge's also lists how each stored duel disagrees with the match (``problems``)."""
    who, live = asking
    view = Service.view_for(who, view)
    data = {"id": match_id, "title": live.header.title, "role": who.role, "views": list(who.views),
            **live.summary(view)}
    # each line's time as stored (the page shows it in the reader's locale)
    data["times"] = [r.recorded for r in live.records[:data["events"]]]
    if view == "judge":
        # a view the match released reads a duel's record only when the duel is released too
        data["problems"] = [p.to_dict() for p in commands.problems(
            service.hub, match_id, live.state(), lambda duel: _duel_view(who, duel) == "judge" or duel.released())]
    return _jsonable(data)


@router.get("/matches/{match_id}/verify", tags=["everyone"])
def verify_match(match_id: str, service: ServiceDep, asking: MatchCaller) -> dict:
    """The match's stream checked end to end: chain, anchors, signature; then against the head its
    witness kept (``serve --witness``), as a duel's is: a match cut back (its last game end, a
    penalty deleted with its anchor) is NOT ok."""
    _who, live = asking
    result, _witnessed = service.records.verify(match_id, verified=live.verified())
    return {"id": match_id, "ok": result.ok, "events": result.events, "first_bad_link": result.first_bad,
            **beside("problem", result.problem), "key": result.signer.text if result.signer else None}


@router.get("/matches/{match_id}/replay.ygr", tags=["everyone"], response_class=Response,
            responses={200: {"content": {"application/x-ygoreplay": {}}}})
def match_file(match_id: str, service: ServiceDep, asking: MatchCaller,
               view: str | None = Query(None, pattern=VIEW)) -> Response:
    """The match as one signed ``.ygr`` for the view, holding each of its duels' files for the same view."""
    who, live = asking
    view = Service.view_for(who, view)
    games = []
    for game in live.state().games:
        duel = commands.linked_duel(service.hub, match_id, game.duel)
        if duel is not None:
            # a view the match released is given of a duel only when the duel is released too;
            # a player's, of the seat its player has in that duel (``access.seated``); the match's
            # recorder's, of a witnessed duel, the table's (``access.view_of``)
            own = _duel_view(who, duel)
            shown = view if view in NARROWER[own] or duel.released() else own
            shown = seated(shown, live.state().players, duel.seats())
            games.append(duel.replay_file(shown, service.store.key))
    return _ygr(live.replay(view, service.store.key, games), match_id, view)


@router.get("/matches/{match_id}/follow", tags=["everyone"], response_class=EventStream,
            responses={200: {"content": {"text/event-stream": {}}}})
async def follow_match(match_id: str, request: Request, service: ServiceDep, asking: MatchCaller,
                       start: int = Query(0, alias="from", ge=0, le=10 ** 9),
                       view: str | None = Query(None, pattern=VIEW)) -> EventStream:
    """Server-Sent Events: one ``event`` per match event of the view, its id the position
    (``Last-Event-ID`` resumes after it); ``end`` once the match has its result."""
    who, live = asking
    view = Service.view_for(who, view)
    resume = request.headers.get("last-event-id")
    position = number(resume) + 1 if resume is not None and number(resume) is not None else start
    lease = service.streams.open(request, match_id)
    connection = Connection()
    return EventStream(_stream(service, live, view, position, lease, connection), connection=connection)


async def _stream(service: Service, live: LiveMatch, view: str, position: int, lease: _Lease,
                  connection: Connection | None = None) -> AsyncIterator[bytes]:
    """A follower's match events as Server-Sent Events, from ``position`` on, as the view may
    see them, until the match has its result or the follower leaves (``EventStream`` closes it
    then). Every follower of a view shares its ``MatchFeed``: the events encoded once a view,
    written by the feed to each follower's connection (``fanout.sent``), as a duel's are."""
    live = service.hub.follow(live)              # counted on the match the hub keeps: appends reach it
    feed: MatchFeed | None = None
    follower: Follower | None = None
    try:
        feed = _match_feed(service, live, view)
        follower = feed.join(position)
        joined = follower.position
        chunk = RETRY + b"".join(_match_sse(live, view, position, joined)) if position < joined else RETRY
        position = max(position, joined)
        async for chunk in sent(follower, connection, chunk, position, lambda a, b: _match_sse(live, view, a, b)):
            yield chunk
    finally:
        if feed is not None and follower is not None:
            feed.leave(follower)
        live.followers -= 1
        lease.close()


def _match_sse(live: LiveMatch, view: str, start: int, stop: int) -> list[bytes]:
    """The match's events ``start`` to ``stop`` as ``view`` has them, each one Server-Sent Event."""
    return [f"id: {item['position']}\nevent: event\ndata: {json.dumps(_jsonable(item), ensure_ascii=False)}\n\n"
            .encode() for item in live.view_events(view, start)[:stop - start]]


def _match_feed(service: Service, live: LiveMatch, view: str) -> MatchFeed:
    """The feed every follower of this view of the match shares."""
    feed = live.feeds.get(view)
    if feed is None:
        def gone() -> None:
            if live.feeds.get(view) is feed:
                del live.feeds[view]
        feed = live.feeds[view] = MatchFeed(service.hub, live, None, view,
                                            lambda start, stop: _match_sse(live, view, start, stop), KEEPALIVE, gone)
    return feed


# -- recording ----------------------------------------------------------------------------------------

@router.post("/matches/{match_id}/events", tags=["recorder"], responses=WRITTEN_ANSWER,
             openapi_extra={"requestBody": {"required": True, "content": {"application/json": {"schema": {
                 "type": "array", "items": {"type": "object"}, "maxItems": 1000}}}}})
async def append_events(match_id: str, request: Request, service: ServiceDep, asking: MatchCaller,
                        expected: int | None = Query(None, ge=0, le=10 ** 9),
                        duel_token: list[str] = Query([], max_length=200)) -> dict:
    """Append match events as they are, all or none, through the same command as the typed
    endpoints: the same roles (rulings, appeals and penalties are the judge's), links (a
    ``game_started`` naming a duel links it as ``/games`` does: give that duel's recorder or
    judge token as ``duel_token``, repeatable) and rules."""
    who, _live = asking
    events = await _request_events(request)
    writer = commands.Writer(who.role, tuple(duel_token))
    written = await asyncio.to_thread(commands.record, service.hub, match_id, writer, events, expected)
    return written_at(written.position, len(written.records))


@router.post("/matches/{match_id}/decklists", tags=["recorder"], openapi_extra=_object(
    {"player": _PLAYER, "main": _CODES, "extra": _CODES, "side": _CODES}, ["player", "main"]))
async def register_decklist(match_id: str, request: Request, service: ServiceDep,
                            asking: Writing = writes("decklist_registered")) -> dict:
    """A player's decklist and Side Deck, once, before duel 1 (MATCH-04; DECK rules, DECK-08
    against the match's banlist)."""
    who, _live = asking
    ev = event("decklist_registered", await _body_json(request), {"player", "main", "extra", "side"})
    return await _append(service, request, match_id, who, [ev])


@router.post("/matches/{match_id}/games", status_code=201, tags=["recorder"], openapi_extra=_object({
    "first_player": _PLAYER, "chosen_by": _PLAYER, "extra_duel": {"type": "boolean"},
    "duel": {"type": "string", "maxLength": 12}, "duel_token": {"type": "string", "maxLength": 200},
    "title": {"type": "string", "maxLength": 500}}))
async def start_game(match_id: str, request: Request, service: ServiceDep,
                     asking: Writing = writes("game_started")) -> dict:
    """The match's next duel starts: a new duel created for it (its own tokens, returned; the
    match's tokens open it too), or ``duel``, one recorded through the service, linked (the
    organiser's, or with that duel's recorder or judge token in ``duel_token``). Who goes
    first and who chose follow MATCH-07."""
    who, live = asking
    body = await _object_body(request)
    unknown = set(body) - {"first_player", "chosen_by", "extra_duel", "duel", "duel_token", "title"}
    if unknown:
        raise HTTPError(400, say("unknown field(s) {fields}", fields=", ".join(sorted(unknown))), where="body")
    title = body.get("title") or ""
    if not isinstance(title, str):
        raise HTTPError(400, say("title must be a string"), where="title")
    linked = body.get("duel")
    token = body.get("duel_token")
    by = commands.Writer(who.role, (token,) if isinstance(token, str) else ())
    fields = {k: body.get(k) for k in ("first_player", "chosen_by", "extra_duel")}
    new_duel = None
    if linked is not None:
        duel, _judged = await asyncio.to_thread(commands.linkable, service.hub, by, linked, live.access)
        first = commands.opening(duel)
        if first is not None:                  # who goes first and who chose: the duel's own, by the match's players
            said = first_players(first, live.state().players)
            for name, value in zip(("first_player", "chosen_by"), said):
                if fields[name] is None:
                    fields[name] = value
    else:
        name = title or f"{live.header.title or 'match ' + match_id}: duel {len(live.state().games) + 1}"
        new_duel = commands.NewDuel(new_id(), checked(name, "the title", 500))
    game = len(live.state().games) + 1
    ev = event("game_started", fields, {"first_player", "chosen_by", "extra_duel"}, game=game,
               duel=linked if new_duel is None else new_duel.id)
    written = await asyncio.to_thread(commands.record, service.hub, match_id, by, [ev], live.count, new_duel)
    duel = {"id": linked} if new_duel is None else service._created(
        new_duel.id, written.created, str(request.base_url).rstrip("/"))
    return {"game": game, **written_at(written.position, len(written.records)), "duel": duel}


@router.post("/matches/{match_id}/games/{game}/end", tags=["recorder"], openapi_extra=_object(
    {"winner": {"type": ["integer", "null"], "enum": [0, 1, None]}, "how": {"enum": list(GAME_ENDINGS)}}))
async def end_game(match_id: str, game: int, request: Request, service: ServiceDep,
                   asking: Writing = writes("game_ended")) -> dict:
    """Duel ``game`` ended by itself: as its stored record ended, unless ``winner`` and ``how``
    say it (and then they must agree with the record: LOG-09)."""
    who, live = asking
    body = await _object_body(request)
    playing = _current(live)
    board = (await asyncio.to_thread(commands.board, service.hub, match_id, playing, live.state().players)
             if playing.number == game else None)
    fields = dict(body)
    if board is not None and board.ended:
        fields.setdefault("winner", board.winner)
        fields.setdefault("how", board.end_reason if board.end_reason in GAME_ENDINGS else "judge")
    elif "how" not in fields:
        raise RuleViolation("LOG-09", say("duel {game}'s record has not ended: say its winner and how", game=game)
                            if board is not None else
                            say("duel {game}'s record is not the match's to read: say its winner and how", game=game),
                            live.count, "game_ended")
    ev = event("game_ended", fields, {"winner", "how"}, game=game)
    return await _append(service, request, match_id, who, [ev])


@router.post("/matches/{match_id}/swaps", tags=["recorder"], openapi_extra=_object(
    {"player": _PLAYER, "main_out": _CODES, "main_in": _CODES, "extra_out": _CODES, "extra_in": _CODES},
    ["player"]))
async def swap(match_id: str, request: Request, service: ServiceDep,
               asking: Writing = writes("side_deck_swapped")) -> dict:
    """Side deck swaps between duels: one-for-one, every deck keeping its size (MATCH-05/06)."""
    who, _live = asking
    ev = event("side_deck_swapped", await _body_json(request),
               {"player", "main_out", "main_in", "extra_out", "extra_in"})
    return await _append(service, request, match_id, who, [ev])


@router.post("/matches/{match_id}/time", tags=["recorder"], openapi_extra=_object({
    "clock": {"type": "string", "maxLength": 32, "pattern": CLOCK_PATTERN}, "turn": {"type": "integer", "minimum": 0},
    "phase": {"type": "string"}, "turn_player": _PLAYER}))
async def call_time(match_id: str, request: Request, service: ServiceDep,
                    asking: Writing = writes("time_called")) -> dict:
    """Time is called (TIME-01): the wall clock (default now) and, in a duel being played, its
    turn, phase and turn player (default: where its record stands)."""
    who, live = asking
    body = await _object_body(request)
    if "game" in body:
        raise HTTPError(400, say("unknown field(s) {fields}", fields="game"), where="body")
    fields = await asyncio.to_thread(commands.time_fields, service.hub, match_id, live.state(), body, now())
    game = fields.pop("game")
    ev = event("time_called", fields, {"clock", "turn", "phase", "turn_player"}, game=game)
    return await _append(service, request, match_id, who, [ev])


@router.post("/matches/{match_id}/extra-turns", tags=["recorder"], openapi_extra=_object(
    {"turn": {"type": "integer", "minimum": 0}}))
async def extra_turn(match_id: str, request: Request, service: ServiceDep,
                     asking: Writing = writes("extra_turn_started")) -> dict:
    """The next extra turn after time (TIME-03); ``turn`` defaults to the one it must be."""
    who, live = asking
    body = await _object_body(request)
    playing = _current(live)
    time_called = live.state().time
    n = playing.extra_turns + 1
    default = time_called.turn + n if time_called is not None and time_called.turn is not None else None
    ev = event("extra_turn_started", {"turn": default, **body}, {"turn"}, game=playing.number, n=n)
    return await _append(service, request, match_id, who, [ev])


@router.post("/matches/{match_id}/decide", tags=["recorder"], openapi_extra=_object({
    "lp": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
    "stage": {"enum": list(DECISION_STAGES)}, "turn": {"type": "integer", "minimum": 0}}))
async def decide(match_id: str, request: Request, service: ServiceDep,
                 asking: Writing = writes("game_decided")) -> dict:
    """The duel being played judged on LP under the policy (TIME-04/05/08): ``lp`` defaults
    to the duel's record now, ``stage`` to what the policy does at time."""
    who, live = asking
    body = await _object_body(request)
    playing = _current(live)
    state = live.state()
    fields = dict(body)
    if "lp" not in fields or "turn" not in fields:
        board = await asyncio.to_thread(commands.board, service.hub, match_id, playing, state.players)
        if board is not None and board.lp:
            fields.setdefault("lp", list(board.lp))
            fields.setdefault("turn", board.turn)
    if "lp" not in fields:
        raise HTTPError(400, say("lp is needed: the match has no record of the duel to read"), where="lp")
    decided = app_layer.decision(state, fields)
    ev = event("game_decided", {k: v for k, v in decided.items() if k != "game"}, {"lp", "stage", "turn", "winner"},
               game=playing.number)
    return await _append(service, request, match_id, who, [ev])


@router.post("/matches/{match_id}/penalties", tags=["judge"], openapi_extra=_object({
    "player": _PLAYER, "infraction": {"type": "string"}, "penalty": {"type": "string"},
    "judge": {"type": "string", "maxLength": 200}, "note": _TEXT}, ["player", "infraction", "penalty", "judge"]))
async def penalty(match_id: str, request: Request, service: ServiceDep,
                  asking: Writing = writes("penalty_given")) -> dict:
    """A penalty for a PEN-02 infraction; a game loss ends the duel in progress (or counts as
    the next), a match loss or disqualification ends the match."""
    who, _live = asking
    ev = event("penalty_given", await _body_json(request), {"player", "infraction", "penalty", "judge", "note"})
    return await _append(service, request, match_id, who, [ev])


@router.post("/matches/{match_id}/judge-calls", tags=["recorder"], openapi_extra=_object({
    "player": _PLAYER, "judge": {"type": "string", "maxLength": 200}, "question": _TEXT}, ["player", "judge"]))
async def judge_call(match_id: str, request: Request, service: ServiceDep,
                     asking: Writing = writes("judge_called")) -> dict:
    """A player calls a judge (MATCH-08); a player's token calls for that player only."""
    who, _live = asking
    ev = event("judge_called", await _body_json(request), {"player", "judge", "question"})
    return await _append(service, request, match_id, who, [ev])


@router.post("/matches/{match_id}/rulings", tags=["judge"], openapi_extra=_object({
    "judge": {"type": "string", "maxLength": 200}, "ruling": _TEXT}, ["judge", "ruling"]))
async def ruling(match_id: str, request: Request, service: ServiceDep,
                 asking: Writing = writes("judge_ruled")) -> dict:
    """The judge's ruling on the last call (MATCH-08)."""
    who, _live = asking
    ev = event("judge_ruled", await _body_json(request), {"judge", "ruling"})
    return await _append(service, request, match_id, who, [ev])


@router.post("/matches/{match_id}/appeals", tags=["judge"], openapi_extra=_object({
    "player": _PLAYER, "judge": {"type": "string", "maxLength": 200}, "decision": {"enum": ["upheld", "overturned"]},
    "note": _TEXT}, ["player", "judge", "decision"]))
async def appeal(match_id: str, request: Request, service: ServiceDep,
                 asking: Writing = writes("ruling_appealed")) -> dict:
    """An appeal of the last ruling to another judge, and its decision (MATCH-10: not after the match)."""
    who, _live = asking
    ev = event("ruling_appealed", await _body_json(request), {"player", "judge", "decision", "note"})
    return await _append(service, request, match_id, who, [ev])


@router.post("/matches/{match_id}/concede", tags=["recorder"], openapi_extra=_object({"player": _PLAYER}, ["player"]))
async def concede(match_id: str, request: Request, service: ServiceDep,
                  asking: Writing = writes("match_conceded")) -> dict:
    """A player concedes the match; a player's token concedes for that player only."""
    who, _live = asking
    ev = event("match_conceded", await _body_json(request), {"player"})
    return await _append(service, request, match_id, who, [ev])


@router.post("/matches/{match_id}/result", tags=["recorder"])
async def result(match_id: str, request: Request, service: ServiceDep,
                 asking: Writing = writes("match_ended")) -> dict:
    """The match's result as the rules and its policy give it, recorded (refused, with the rule,
    while the match cannot end); with its standing points."""
    who, live = asking
    ev = app_layer.result_event(live.state())
    out = await _append(service, request, match_id, who, [ev])
    return {**out, "result": ev.to_dict()}


def _opening(body: dict) -> list[Event]:
    """match_started (and the decklists given) from a create request, or 400 saying what is wrong."""
    players = body.get("players")
    if not (isinstance(players, list) and len(players) == 2 and all(isinstance(p, str) for p in players)):
        raise HTTPError(400, say("players is a list of the two players' names"), where="players")
    players = [checked(p, "a player's name", 200) for p in players]
    policy = body.get("policy")
    if not isinstance(policy, str) or policy not in POLICIES:      # a list or object is no name (not hashable)
        raise HTTPError(400, say("policy is one of {choices}", choices=", ".join(POLICIES)), where="policy")
    banlist = body.get("banlist")
    if not isinstance(banlist, dict) or set(banlist) - {"name", "limits", "whitelist"} or \
            not isinstance(banlist.get("name"), str):
        raise HTTPError(400, say("banlist is {shape}",
                                 shape="{name, limits: [{code, limit}], whitelist}"), where="banlist")
    limits = banlist.get("limits", [])
    if not isinstance(limits, list) or not all(
            isinstance(e, dict) and set(e) == {"code", "limit"}
            and all(isinstance(e[k], int) and not isinstance(e[k], bool) for k in e) for e in limits):
        raise HTTPError(400, say("banlist.limits is a list of {shape} (whole numbers)",
                                 shape="{code, limit}"), where="banlist.limits")
    whitelist = banlist.get("whitelist", False)
    if not isinstance(whitelist, bool):
        raise HTTPError(400, say("banlist.whitelist is true or false"), where="banlist.whitelist")
    decks = body.get("decklists") or []
    if not isinstance(decks, list) or len(decks) > 2:
        raise HTTPError(400, say("decklists is a list of (at most) two decks {shape}",
                                 shape="{main, extra, side}"), where="decklists")
    limit_map: dict[int, int] = {}
    for entry in limits:
        limit_map[entry["code"]] = entry["limit"]
    opening: list[dict] = [e.to_dict() for e in app_layer.started(
        players, policy, Banlist(checked(banlist["name"], "the banlist's name", 200), limit_map, whitelist))]
    if len(limit_map) != len(limits):
        raise HTTPError(400, say("banlist.limits names a passcode more than once"), where="banlist.limits")
    opening[0]["limits"] = limits              # as given: the hash does not depend on their order
    opening[0].update({k: body[k] for k in ("format", "event_name", "round", "time_limit") if body.get(k) is not None})
    for player, deck in enumerate(decks):
        if deck is None:
            continue
        if not isinstance(deck, dict) or set(deck) - {"main", "extra", "side"}:
            raise HTTPError(400, say("a decklist is {shape}", shape="{main, extra, side}"), where=f"decklists.{player}")
        opening.append({"kind": "decklist_registered", "player": player, **deck})
    out = []
    for i, data in enumerate(opening):
        try:
            out.append(from_dict(data, f"event {i}"))
        except EventFormatError as exc:
            raise HTTPError(400, exc.detail, where="decklists" if i else "match") from None
    return out


def _listed(info: DuelInfo) -> dict:
    status = info.status
    return {"id": info.id, "title": info.title, "created": info.created, "events": info.events,
            "players": status.get("players", []), "policy": status.get("policy"), "games": status.get("games"),
            "ended": status.get("ended", False), "winner": status.get("winner"), "how": status.get("how"),
            "points": status.get("points"), "signed": info.signed}


__all__ = ["router"]
