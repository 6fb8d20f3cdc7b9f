"""The library's pages: ``/`` and ``/library`` (recent public duels and matches, and the search
form, its filters kept in the address so a search is a link), ``/library/card/{code}`` and
``/library/player/{name}``. One page (``library.html``, ``library.js``) holds no data: it asks
``/search``, ``/cards/{code}/stats`` and ``/players/{name}`` for what its address names, which
only ever answer with what the public view shows."""
from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from .. import viewer
from ..i18n import say
from ..text import number
from .common import HTTPError
from .languages import page_language
from .pages import _HTML_HEADERS

router = APIRouter()

MAX_NAME = 200


def _page(request: Request) -> Response:
    return Response(viewer.library_page(page_language(request)), media_type="text/html; charset=utf-8",
                    headers=_HTML_HEADERS)


@router.get("/", include_in_schema=False)
def home(request: Request) -> Response:
    """The library: recent public duels and matches, newest first, and the search form."""
    return _page(request)


@router.get("/library", include_in_schema=False)
def library(request: Request) -> Response:
    """The library with a search in its address (``?player=...&card=...``), as ``/search`` takes it."""
    return _page(request)


@router.get("/library/card/{code}", include_in_schema=False)
def card_page(code: str, request: Request) -> Response:
    """A card's page: how often it was activated and summoned in public duels, how they ended."""
    passcode = number(code)
    if passcode is None or not 0 < passcode < 2 ** 32:
        raise HTTPError(404, say("no card {code!r}: a card is its passcode", code=code))
    return _page(request)


@router.get("/library/player/{name}", include_in_schema=False)
def player_page(name: str, request: Request) -> Response:
    """A player's page: their public duels and results."""
    if not name.strip() or len(name) > MAX_NAME:
        raise HTTPError(404, say("a player's name is 1..{MAX_NAME} characters", MAX_NAME=MAX_NAME))
    return _page(request)


__all__ = ["router"]
