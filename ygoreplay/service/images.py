"""A duel's board as a picture (``board_image.py``): SVG and PNG of the board after any event
the caller's view may see, with the same caller, view and delay as ``/duels/{id}/state`` (the
same dependencies and the same position check), so a picture never shows what its reader may
not read. A link preview (Open Graph, oEmbed) shows the PNG of a public duel."""
from __future__ import annotations

import asyncio

from fastapi import APIRouter, Query
from fastapi.responses import Response

from .. import board_image
from .common import VIEW
from .core import DuelCaller, Service
from .duels import _count

router = APIRouter()


def _picture(asking: DuelCaller, at: int | None, view: str | None, kind: str) -> bytes:
    """The board after event ``#at`` (default: the last the view may see) drawn as ``kind``
    (svg, png); made once per view and position (a link preview is fetched by many), and only
    from the events the view may see: the key holds no more."""
    caller, live = asking
    view = Service.view_for(caller, view)
    count = _count(live, view, at)

    def draw() -> bytes:
        shapes = board_image.layout(live.frame(view, count) if count else None, 1 if view == "p1" else 0,
                                    live.header.title)
        return board_image.svg(shapes).encode() if kind == "svg" else board_image.png(shapes)
    return live.cache.get((live.id, "board", kind, view, count), draw)


@router.get("/duels/{duel_id}/board.svg", tags=["everyone"], response_class=Response,
            responses={200: {"content": {"image/svg+xml": {}}}})
def board_svg(duel_id: str, asking: DuelCaller, at: int | None = Query(None, ge=0, le=10 ** 9),
              view: str | None = Query(None, pattern=VIEW)) -> Response:
    """The board after event ``#at`` as an SVG picture, for the token's view (or a narrower one)."""
    return Response(_picture(asking, at, view, "svg"), media_type="image/svg+xml",
                    headers={"Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
                             "X-Content-Type-Options": "nosniff"})


@router.get("/duels/{duel_id}/board.png", tags=["everyone"], response_class=Response,
            responses={200: {"content": {"image/png": {}}}})
async def board_png(duel_id: str, asking: DuelCaller, at: int | None = Query(None, ge=0, le=10 ** 9),
                    view: str | None = Query(None, pattern=VIEW)) -> Response:
    """The same picture as PNG (drawn on the server), for a link preview."""
    return Response(await asyncio.to_thread(_picture, asking, at, view, "png"), media_type="image/png",
                    headers={"X-Content-Type-Options": "nosniff"})


__all__ = ["router"]
