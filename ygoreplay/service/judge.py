"""The judge's endpoints on a duel: roll it back, keep a call or ruling in its record, open a
what-if branch. Each is an event of the duel's own (or a new duel), written by the judge.

A rollback ``to`` N undoes event #N and what followed; a branch ``at`` N starts from the board
after event #N.
"""
from __future__ import annotations

import asyncio

from fastapi import APIRouter, Header, Query, Request

from ..events import DECISIONS
from ..i18n import say
from .common import WRITTEN_ANSWER, HTTPError, _body_json, _fields, written_at
from .core import DuelCaller, Service, ServiceDep

router = APIRouter()
#: The duel's length the judge decided on, as ``/events?expected=N``: else a 409, so entries appended
#: since are not reverted unseen, nor a note sent again (its answer lost) written twice.
_EXPECTED = "the duel's length the judge decided on: 409 when it has another"
#: A branch request's key (the judge's page makes one per branch asked for, and sends it again with
#: a retry): the same key is answered with the branch it made, never a second one.
_KEY = "one per branch asked for (a retry sends it again: the branch it made is answered)"


@router.post("/duels/{duel_id}/rollback", tags=["judge"], responses=WRITTEN_ANSWER,
             openapi_extra={"requestBody": {"required": True, "content": {"application/json": {"schema": {
                 "type": "object", "required": ["to", "judge", "reason"], "properties": {
                     "to": {"type": "integer"}, "judge": {"type": "string"}, "reason": {"type": "string"}}}}}}})
async def rollback(duel_id: str, request: Request, service: ServiceDep, asking: DuelCaller,
                   expected: int | None = Query(None, ge=0, le=10 ** 9, description=_EXPECTED)) -> dict:
    """A judge backs the game up to before event ``to`` (MATCH-08): an event of its own."""
    caller, _live = asking
    Service.require(caller, "judge")
    body = await _body_json(request)
    to, judge, reason = _fields(body, to=int, judge=str, reason=str)
    position = await asyncio.to_thread(service.records.rollback, duel_id, to, judge, reason, caller.role, expected)
    await asyncio.to_thread(service.hub.changed, duel_id)
    return written_at(position, 1)


@router.post("/duels/{duel_id}/notes", tags=["judge"], responses=WRITTEN_ANSWER,
             openapi_extra={"requestBody": {"required": True, "content": {"application/json": {"schema": {
                 "type": "object", "required": ["judge", "text"], "properties": {
                     "judge": {"type": "string"}, "text": {"type": "string"},
                     "category": {"enum": ["call", "ruling", "penalty", "warning", "note", "time"]},
                     "on": {"type": "integer"}, "decision": {"enum": list(DECISIONS)}}}}}}})
async def note(duel_id: str, request: Request, service: ServiceDep, asking: DuelCaller,
               expected: int | None = Query(None, ge=0, le=10 ** 9, description=_EXPECTED)) -> dict:
    """A judge's call, ruling, penalty or note, kept in the record; a ruling ``on`` an entry (a
    flagged or disputed one) says what was ``decision``."""
    caller, _live = asking
    Service.require(caller, "judge")
    body = await _body_json(request)
    judge, text = _fields(body, judge=str, text=str)
    position = await asyncio.to_thread(service.records.note, duel_id, judge, text, body.get("category", "note"),
                                       caller.role, body.get("on"), body.get("decision"), expected)
    await asyncio.to_thread(service.hub.changed, duel_id)
    return written_at(position, 1)


@router.post("/duels/{duel_id}/branch", status_code=201, tags=["judge"],
             openapi_extra={"requestBody": {"required": True, "content": {"application/json": {"schema": {
                 "type": "object", "required": ["at"], "properties": {
                     "at": {"type": "integer"}, "title": {"type": "string"}}}}}}})
async def branch(duel_id: str, request: Request, service: ServiceDep, asking: DuelCaller,
                 key: str | None = Header(None, alias="Idempotency-Key", description=_KEY)) -> dict:
    """A what-if line: a new duel of events #0..#at (from the board after event #at); the
    same tokens open it: the duel's own, not its match's (a what-if is no game of the match), so a
    match's judge is refused here rather than handed a branch its token cannot open. Sent again
    with the same ``Idempotency-Key``, it answers the branch that key made (``Records.branch``, as
    ``ygoreplay branch --key``)."""
    caller, live = asking
    Service.require(caller, "judge")
    token = service.token_of(request)
    if caller.role != "organiser" and (token is None or live.access.role_of(token) is None):
        raise HTTPError(403, say("a match's token opens its duels, not their what-if branches: branch with the "
                                 "duel's own judge link (or the organiser's); nothing was made"))
    body = await _body_json(request)
    (at,) = _fields(body, at=int)
    title = body.get("title", "")
    if not isinstance(title, str):
        raise HTTPError(400, say("title must be a string"), where="title")
    child = await asyncio.to_thread(service.records.branch, duel_id, at, title, key)
    return {"id": child, "parent": duel_id, "at": at}


__all__ = ["router"]
