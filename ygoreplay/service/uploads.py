"""The organiser's uploads: a ``.ygr`` judge file or an EDOPro ``.yrpX`` replay (told apart by
their magic bytes, ``formats``) recorded as a new duel with tokens of its own."""
from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from fastapi import APIRouter, Depends, Query, Request

from ..access import Access, ReleaseSettingError, release_settings
from ..application import trusted_keys
from ..errors import InputError
from ..i18n import say
from ..formats import EDOPRO, YGR, container_of
from ..replay_file import loads as ygr_loads
from .common import HTTPError
from .core import Service, ServiceDep, organiser

router = APIRouter()


@router.post("/uploads", status_code=201, tags=["organiser"], dependencies=[Depends(organiser)],
             openapi_extra={"requestBody": {"required": True, "content": {"application/octet-stream": {
                 "schema": {"type": "string", "format": "binary"}}}}})
async def upload(request: Request, service: ServiceDep, title: str | None = Query(None, max_length=500),
                 visibility: str = Query("unlisted", pattern="^(public|unlisted|private)$"),
                 release: str | None = Query(None, pattern="^(end|event|never)$"),
                 event: str | None = Query(None, max_length=200),
                 release_at: str | None = Query(None, max_length=64)) -> dict:
    """A ``.ygr`` judge file (verified first, its signature a trusted key's) or an EDOPro
    ``.yrpX`` replay, recorded as a new duel with its own tokens, under the release policy
    given (as ``POST /duels``), in the mode its duel_started says (witnessed or a machine's:
    as ``ygoreplay import`` records the same file)."""
    try:
        settings = release_settings(release, event, release_at)
    except ReleaseSettingError as exc:
        raise HTTPError(400, str(exc), where=exc.where) from None
    data = await request.body()
    access, tokens = Access.issue(visibility, 0, 0.0, *settings)
    duel_id, violations = await asyncio.to_thread(_record_upload, service, data, title, access)
    # the mode its events gave it (``application._moded``): a witnessed duel's players record their sides
    witnessed = (await asyncio.to_thread(service.records.access, duel_id)).mode == "witnessed"
    return {**service._created(duel_id, tokens, str(request.base_url).rstrip("/"), witnessed),
            "violations": violations}


def _record_upload(service: Service, data: bytes, title: str | None, access: Access) -> tuple[str, list[dict]]:
    """The duel an upload became, written with its access record in one transaction, and what
    the audit found in it (kept as it stood, said)."""
    fmt = container_of(data, name="the uploaded file")     # by its magic bytes: an upload has no name
    attachments = {"access": access.to_dict()}
    if fmt is YGR:                        # a match .ygr too: the application says it is no duel
        replay = ygr_loads(data)
        done = service.records.import_replay(replay, title, trusted_keys([]), attachments=attachments)
        duel_id = done.id
        if done.skipped:                  # its access and tokens stay as they were handed out
            raise HTTPError(409, say("this file was uploaded before: it is duel {duel_id}",
                                     duel_id=duel_id), id=duel_id)
    elif fmt is EDOPRO:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / f"upload{EDOPRO.suffixes[0]}"
            path.write_bytes(data)
            try:
                done, _agreement = service.records.import_yrpx(path, None, title or "uploaded replay",
                                                               attachments=attachments)
            except InputError as exc:
                raise InputError(str(exc).replace(str(path), "the uploaded replay")) from None
            duel_id = done.id
        if done.skipped:                  # its access and tokens stay as they were handed out
            raise HTTPError(409, say("this replay was uploaded before: it is duel {duel_id}",
                                     duel_id=duel_id), id=duel_id)
    else:
        raise InputError(say("the uploaded file is {kind}, not a replay to import: upload a .ygr judge file or an "
                             "EDOPro replay", kind=fmt.title))
    assert duel_id is not None
    return duel_id, done.to_dict()["violations"]


__all__ = ["router"]
