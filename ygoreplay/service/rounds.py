"""An event's rounds: the organiser creates one from a pairings file (one match per table, its
tokens handed out once, with a printable sheet of QR codes); anyone with a round's address
follows its page (tables, players, scores, who is recording each table), which holds no token,
live: ``/rounds/{id}/follow`` streams the round each time a table's match or duel moves.

What the round says of a duel is what a spectator may see of it now (``LiveDuel.visible``): a
table recorded behind a delay shows its last entry once the delay has passed, not before."""
from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from typing import Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from ..access import MODES, VISIBILITIES
from ..errors import StoreError, VerificationError
from ..i18n import say
from ..match.events import CLOCK_FORMAT, CLOCK_PATTERN, is_clock
from ..match.policies import POLICIES
from ..round_time import call_time
from ..round_pages import PAGE_HEADERS, qr_page, round_page
from ..rounds import (MAX_TABLES, RoundSettings, TableRows, changed_tables, create_round, pairings_of_json,
                      read_pairings, results_csv, sign_round, status, verify_round)
from ..store.records import Record
from ..text import number
from .common import KEEPALIVE, EventStream, HTTPError, _body_json
from .core import Service, ServiceDep, organiser
from .sheets import PRINTED_HEADERS

router = APIRouter()
_ROUND_ID = re.compile(r"[0-9a-f]{12}")
_SETTINGS = {"event", "round", "format", "policy", "visibility"}
#: How often a follower's round is looked at again with no table moving (a spectator's delay
#: passing, a table served by another process).
LOOK_AGAIN = 5.0
#: What a round's kept rows (``TableRows``) are counted as in the hub's cache: its most tables' worth.
ROWS_BYTES = 1024 * MAX_TABLES


@router.post("/rounds", status_code=201, tags=["organiser"], dependencies=[Depends(organiser)],
             openapi_extra={"requestBody": {"required": True, "content": {
                 "text/csv": {"schema": {"type": "string"}},
                 "application/json": {"schema": {"type": "object", "properties": {
                     "event": {"type": "string", "maxLength": 200}, "round": {"type": "integer"},
                     "format": {"type": "string", "maxLength": 200}, "policy": {"enum": list(POLICIES)},
                     "visibility": {"enum": list(VISIBILITIES)}, "pairings": {"type": "string"},
                     "tables": {"type": "array", "items": {"type": "object"}}}}}}}})
async def create(request: Request, service: ServiceDep, page: str | None = Query(None, pattern="^qr$")) -> Response:
    """A round from a pairings file (a ``text/csv`` body: ``table,player,player`` lines, the
    settings in the query: ``event``, ``round``, ``format``, ``policy``, ``visibility``) or a
    JSON object (the settings, and ``pairings`` as CSV text or ``tables``): one match per table.
    Its tables with their tokens and links, given this once; ``?page=qr`` answers with the
    printable QR codes instead, for the organiser only."""
    raw = await request.body()
    if request.headers.get("content-type", "").split(";")[0].strip() == "application/json":
        body = await _body_json(request)
        if not isinstance(body, dict) or set(body) - _SETTINGS - {"pairings", "tables"}:
            raise HTTPError(400, say("the body is {shape}",
                                     shape="{event, round, format, policy, visibility, pairings | tables}"),
                            where="body")
        if ("pairings" in body) == ("tables" in body):
            raise HTTPError(400, say("give the pairings as CSV text (pairings) or as a list (tables), one of them"),
                            where="body")
        pairings = (read_pairings(body["pairings"], "pairings") if isinstance(body.get("pairings"), str)
                    else pairings_of_json(body.get("tables")))
        given: dict[str, Any] = {k: body[k] for k in _SETTINGS if k in body}
    else:
        pairings = read_pairings(raw, "body")
        given = {k: request.query_params[k] for k in _SETTINGS if k in request.query_params}
        if "round" in given:
            given["round"] = number(given["round"]) if number(given["round"]) is not None else given["round"]
    settings = _settings(given)
    base = str(request.base_url).rstrip("/")
    made = await asyncio.to_thread(create_round, service.store, pairings, settings, base, service.records.witness)
    if page == "qr":
        return Response(qr_page(made, base), status_code=201, media_type="text/html; charset=utf-8",
                        headers={**PRINTED_HEADERS, "Location": f"/rounds/{made.id}"})
    return Response(json.dumps(made.to_dict(), ensure_ascii=False), status_code=201,
                    media_type="application/json", headers={"Cache-Control": "no-store"})


def _settings(given: dict[str, Any]) -> RoundSettings:
    """The round's settings from a request, or 400 naming the field."""
    event, round_ = given.get("event"), given.get("round")
    if not isinstance(event, str) or not event.strip():
        raise HTTPError(400, say("event is the event's name"), where="event")
    if not isinstance(round_, int) or isinstance(round_, bool) or not 0 <= round_ <= 10_000:
        raise HTTPError(400, say("round is the round's number, 0..10000"), where="round")
    for field in ("format", "policy", "visibility", "mode"):
        if field in given and not isinstance(given[field], str):
            raise HTTPError(400, say("{field} is a string", field=field), where=field)
    if given.get("policy", "tcg-2024") not in POLICIES:
        raise HTTPError(400, say("policy is one of {choices}", choices=", ".join(POLICIES)), where="policy")
    if given.get("visibility", "unlisted") not in VISIBILITIES:
        raise HTTPError(400, say("visibility is one of {choices}", choices=", ".join(VISIBILITIES)), where="visibility")
    if given.get("mode", "witnessed") not in MODES:
        raise HTTPError(400, say("mode is one of {choices}", choices=", ".join(MODES)), where="mode")
    return RoundSettings(event, round_, given.get("format", ""), given.get("policy", "tcg-2024"),
                         visibility=given.get("visibility", "unlisted"), mode=given.get("mode", "witnessed"))


#: One reading of a round at a time (striped by its id): a crowd asking at once waits for it.
_READING = [threading.Lock() for _ in range(64)]


def _status(service: Service, round_id: str) -> dict:
    """The round now, read once per change this process takes in (``Hub.generation``) and again
    every ``LOOK_AGAIN`` seconds (what another process wrote, a delay passing), whoever asks:
    every follower, the page and its JSON share it. Each follower read the whole round (every
    table's match and duel) for itself on each change: a crowd on a big round's page was that
    many readings of it per table moving (a 200-table round is about 0.1 s of CPU each). Each
    reading makes again only the tables whose match or duel moved (``TableRows``, kept with the
    round's readings in the hub's cache)."""
    if not _ROUND_ID.fullmatch(round_id):
        raise HTTPError(404, say("no round {round_id!r}", round_id=round_id))
    key = (round_id, "round", service.hub.generation, int(time.monotonic() // LOOK_AGAIN))
    with _READING[hash(round_id) % len(_READING)]:
        try:
            rows = service.hub.cache.get((round_id, "rows"), TableRows, lambda _rows: ROWS_BYTES)
            return service.hub.cache.get(key, lambda: status(service.store, round_id,
                                                             lambda duel: _seen(service, duel), anyone=True,
                                                             rows=rows, witness=service.records.witness),
                                         lambda read: 512 * (1 + len(read["tables"])))
        except StoreError:
            raise HTTPError(404, say("no round {round_id!r}", round_id=round_id)) from None
        except VerificationError as exc:    # its seal does not hold: said, nothing of it shown
            raise HTTPError(409, str(exc)) from None


def _seen(service: Service, duel_id: str) -> list[Record]:
    """The duel's events a spectator may see now (none of a duel not there, or altered: the
    round's page shows its other tables), the duel held for the round's next reading."""
    try:
        live = service.hub.get(duel_id, held=True)
    except (StoreError, VerificationError):
        return []
    return live.records[:live.visible("spectator")]


@router.post("/rounds/{round_id}/time", tags=["organiser"], dependencies=[Depends(organiser)],
             openapi_extra={"requestBody": {"required": False, "content": {"application/json": {"schema": {
                 "type": "object", "properties": {"clock": {"type": "string", "maxLength": 32,
                                                            "pattern": CLOCK_PATTERN}}}}}}})
async def round_time(round_id: str, request: Request, service: ServiceDep) -> dict:
    """Time is called for the whole round at once (TIME-01): every table still playing gets
    its ``time_called`` at one clock (``clock``, default now), with where its duel stood; each
    table's outcome (``called``, ``ended``, ``already``, or ``refused`` with the rule: a judge
    calls it at that table)."""
    if not _ROUND_ID.fullmatch(round_id):
        raise HTTPError(404, say("no round {round_id!r}", round_id=round_id))
    body = await _body_json(request) if await request.body() else {}
    if not isinstance(body, dict) or set(body) - {"clock"}:
        raise HTTPError(400, say("the body is {shape}", shape="{clock}"), where="body")
    clock = body.get("clock")
    if clock is not None and not (isinstance(clock, str) and is_clock(clock)):
        raise HTTPError(400, say("clock is {format}", format=CLOCK_FORMAT),
                        where="clock")
    try:
        used, tables = await asyncio.to_thread(call_time, service.hub, round_id, clock)
    except StoreError:
        raise HTTPError(404, say("no round {round_id!r}", round_id=round_id)) from None
    except VerificationError as exc:        # its seal does not hold: no table's time is called
        raise HTTPError(409, str(exc)) from None
    return {"round": round_id, "clock": used, "tables": [table.to_dict() for table in tables]}


@router.get("/rounds/{round_id}/verify", tags=["everyone"])
async def verify(round_id: str, service: ServiceDep) -> dict:
    """The round's record checked (``rounds.verify_round``): its organiser's seal, and the receipt
    its witness kept (``serve --witness``): a table renumbered or dropped in the database, its
    seal removed, the round deleted (its witness holding its receipt) is NOT ok; a round written
    before rounds were signed is NOT ok either, said so. 404 for a round neither knows."""
    if not _ROUND_ID.fullmatch(round_id):
        raise HTTPError(404, say("no round {round_id!r}", round_id=round_id))
    try:
        result = await asyncio.to_thread(verify_round, service.store, round_id, service.records.witness)
    except StoreError:
        raise HTTPError(404, say("no round {round_id!r}", round_id=round_id)) from None
    return result.to_dict()


@router.post("/rounds/{round_id}/sign", tags=["organiser"], dependencies=[Depends(organiser)])
async def sign(round_id: str, service: ServiceDep) -> dict:
    """The organiser signs a round written before rounds were signed, as it stands now
    (``rounds.sign_round``, as ``ygoreplay round sign``): the round as ``/rounds/{id}.json`` gives
    it, marked signed late. 400 for one signed already."""
    if not _ROUND_ID.fullmatch(round_id):
        raise HTTPError(404, say("no round {round_id!r}", round_id=round_id))
    try:
        await asyncio.to_thread(sign_round, service.store, round_id, service.records.witness)
    except StoreError:
        raise HTTPError(404, say("no round {round_id!r}", round_id=round_id)) from None
    except VerificationError as exc:
        raise HTTPError(409, str(exc)) from None
    service.hub.generation += 1             # the round's readings (``_status``) are made again, signed
    return await asyncio.to_thread(_status, service, round_id)


@router.get("/rounds/{round_id}.json", tags=["everyone"])
async def round_json(round_id: str, service: ServiceDep) -> dict:
    """The round now: each table's players, match, score, state and last event time (no token)."""
    return await asyncio.to_thread(_status, service, round_id)


@router.get("/rounds/{round_id}/results.csv", tags=["everyone"], response_class=Response,
            responses={200: {"content": {"text/csv": {}}}})
async def round_results(round_id: str, service: ServiceDep) -> Response:
    """The round's results as CSV, one row a table (``rounds.results_csv``): what the round's
    page shows, for a tournament program's standings and next pairings (no token)."""
    data = await asyncio.to_thread(_status, service, round_id)
    return Response(results_csv(data), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="round-{round_id}.csv"',
                             "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"})


@router.get("/rounds/{round_id}", tags=["everyone"], response_class=Response,
            responses={200: {"content": {"text/html": {}}}})
async def round_html(round_id: str, service: ServiceDep) -> Response:
    """The round's page: its tables, players, scores and who is recording each, kept current by
    its script from ``/rounds/{id}/follow``."""
    data = await asyncio.to_thread(_status, service, round_id)
    return Response(round_page(data), media_type="text/html; charset=utf-8", headers=PAGE_HEADERS)


@router.get("/rounds/{round_id}/follow", tags=["everyone"], response_class=EventStream,
            responses={200: {"content": {"text/event-stream": {}}}})
async def follow_round(round_id: str, request: Request, service: ServiceDep) -> EventStream:
    """Server-Sent Events: one ``round`` (the round as ``/rounds/{id}.json`` gives it) now (and
    on each reconnection), then a ``tables`` each time it changes (a table's match or duel moved,
    a delay passed): only the rows that changed, and the counts (``rounds.changed_tables``)."""
    first = await asyncio.to_thread(_status, service, round_id)
    lease = service.streams.open(request, round_id)
    return EventStream(_round_stream(service, round_id, first, lease))


async def _round_stream(service: Service, round_id: str, now: dict, lease: Any):
    """The round as SSE: each change of it, until the follower leaves (``EventStream`` closes it then). The wake-ups are asked
    for before the round is read again, so a change while it is read is not missed."""
    loop = asyncio.get_running_loop()
    sent = None
    next_keepalive = loop.time() + KEEPALIVE
    try:
        yield "retry: 2000\n\n"
        while True:
            streams = ([table["match"] for table in now["tables"] if table["match"]]
                       + [d for table in now["tables"] for d in table["duels"][-1:]])
            waits = [asyncio.ensure_future(service.hub.wait(stream, LOOK_AGAIN)) for stream in streams]
            try:
                await asyncio.sleep(0)                 # the waits are registered
                if sent is not None:
                    try:
                        now = await asyncio.to_thread(_status, service, round_id)
                    except HTTPError:
                        return
                moved = None if sent is None else now is not sent and changed_tables(sent, now)
                if moved is None:                     # the whole round: at first (a reconnection too)
                    yield f"event: round\ndata: {json.dumps(now, ensure_ascii=False)}\n\n"
                    sent = now
                elif moved and (moved["tables"] or moved["counts"] != sent["counts"]):
                    yield f"event: tables\ndata: {json.dumps(moved, ensure_ascii=False)}\n\n"
                    sent = now
                elif loop.time() >= next_keepalive:
                    yield ": keepalive\n\n"
                    next_keepalive = loop.time() + KEEPALIVE
                if waits:
                    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                else:                                  # nothing to follow (no table shows a match): look again later
                    await asyncio.sleep(LOOK_AGAIN)
            finally:
                for each in waits:
                    each.cancel()
    finally:
        lease.close()


__all__ = ["router"]
