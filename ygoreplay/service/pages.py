"""The browser's pages: the duel viewer, the recorder's page, the match page and their assets. A page holds no record:
it asks the endpoints for it with the token in its address."""
from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from fastapi.responses import Response

from .. import viewer
from ..i18n import say
from .common import _DUEL_ID, _PAGE_HEADERS, HTTPError
from .languages import page_language
from .core import ServiceDep
from .sharing import base_of, duel_preview, head, match_preview

router = APIRouter()

#: A page is in the language its address or the browser's Accept-Language asked for.
_HTML_HEADERS = {**_PAGE_HEADERS, "Vary": "Accept-Language"}


@router.get("/view/{duel_id}", include_in_schema=False)
async def view_page(duel_id: str, request: Request, service: ServiceDep) -> Response:
    """The viewer's page; it asks for the duel's frames with the token in its address. Its head
    carries a link preview (``sharing.head``) of a public duel, as a spectator sees it now."""
    if not _DUEL_ID.fullmatch(duel_id):
        raise HTTPError(404, say("no duel {duel_id!r}", duel_id=duel_id))
    preview = await asyncio.to_thread(duel_preview, service, duel_id)
    return Response(viewer.page(page_language(request), head(preview, base_of(request))),
                    media_type="text/html; charset=utf-8", headers=_HTML_HEADERS)


@router.get("/record/{duel_id}", include_in_schema=False)
def record_page(duel_id: str, request: Request) -> Response:
    """The recorder's page (``record.html``); it reads and writes the duel through the public API
    with the token in its address."""
    if not _DUEL_ID.fullmatch(duel_id):
        raise HTTPError(404, say("no duel {duel_id!r}", duel_id=duel_id))
    return Response(viewer.record_page(page_language(request)), media_type="text/html; charset=utf-8",
                    headers=_HTML_HEADERS)


@router.get("/viewer/{name}", include_in_schema=False)
def viewer_asset(name: str) -> Response:
    if name not in viewer.ASSETS:
        raise HTTPError(404, say("no asset {name!r}", name=name))
    return Response(viewer.asset(name), media_type=viewer.ASSETS[name],
                    headers={**_PAGE_HEADERS, "Cache-Control": "public, max-age=300"})


@router.get("/match/{match_id}", include_in_schema=False)
async def match_page(match_id: str, request: Request, service: ServiceDep) -> Response:
    """The match's page; it asks for the match with the token in its address. Its head carries
    a link preview of a public match."""
    if not _DUEL_ID.fullmatch(match_id):
        raise HTTPError(404, say("no match {match_id!r}", match_id=match_id))
    preview = await asyncio.to_thread(match_preview, service, match_id)
    return Response(viewer.match_page(page_language(request), head(preview, base_of(request))),
                    media_type="text/html; charset=utf-8", headers=_HTML_HEADERS)


__all__ = ["router"]
