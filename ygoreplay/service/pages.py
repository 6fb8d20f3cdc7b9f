"""The browser's pages: the duel viewer, the recorder's page, the match page and their assets. A page holds no record:
it asks the endpoints for it with the token in its address."""
from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from .. import viewer
from .common import _DUEL_ID, _PAGE_HEADERS, HTTPError
from .languages import page_language

router = APIRouter()

#: A page is in the language its address or the browser's Accept-Language asked for.
_HTML_HEADERS = {**_PAGE_HEADERS, "Vary": "Accept-Language"}


@router.get("/view/{duel_id}", include_in_schema=False)
def view_page(duel_id: str, request: Request) -> Response:
    """The viewer's page; it asks for the duel's frames with the token in its address."""
    if not _DUEL_ID.fullmatch(duel_id):
        raise HTTPError(404, f"no duel {duel_id!r}")
    return Response(viewer.page(page_language(request)), media_type="text/html; charset=utf-8",
                    headers=_HTML_HEADERS)


@router.get("/record/{duel_id}", include_in_schema=False)
def record_page(duel_id: str, request: Request) -> Response:
    """The recorder's page (``record.html``); it reads and writes the duel through the public API
    with the token in its address."""
    if not _DUEL_ID.fullmatch(duel_id):
        raise HTTPError(404, f"no duel {duel_id!r}")
    return Response(viewer.record_page(page_language(request)), media_type="text/html; charset=utf-8",
                    headers=_HTML_HEADERS)


@router.get("/viewer/{name}", include_in_schema=False)
def viewer_asset(name: str) -> Response:
    if name not in viewer.ASSETS:
        raise HTTPError(404, f"no asset {name!r}")
    return Response(viewer.asset(name), media_type=viewer.ASSETS[name],
                    headers={**_PAGE_HEADERS, "Cache-Control": "public, max-age=300"})


@router.get("/match/{match_id}", include_in_schema=False)
def match_page(match_id: str, request: Request) -> Response:
    """The match's page; it asks for the match with the token in its address."""
    if not _DUEL_ID.fullmatch(match_id):
        raise HTTPError(404, f"no match {match_id!r}")
    return Response(viewer.match_page(page_language(request)), media_type="text/html; charset=utf-8",
                    headers=_HTML_HEADERS)


__all__ = ["router"]
