"""Sharing a duel: the embed page (``/embed/{id}``, the viewer without its chrome, for an
``<iframe>`` on any site), the link preview (Open Graph tags in the viewer's and the match
page's head) and oEmbed (``/oembed?url=...``).

A preview says only what anyone may know: it is made for public duels and matches alone, as a
spectator without a token sees them, and from the events the duel's delay has released (the
players, the result once released, the event); any other page gets the generic one, whatever
token its address holds, so a preview never says whether an unlisted or private duel exists.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from urllib.parse import quote, urlsplit

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response

from .. import board_image, viewer
from ..errors import StoreError, VerificationError
from ..i18n import say
from .common import _DUEL_ID, _PAGE_HEADERS, HTTPError
from .core import Service, ServiceDep
from .languages import page_language

router = APIRouter()

#: The embed's page may sit in a frame of any site; every other page refuses framing. It is in the
#: language its address or the browser's Accept-Language asked for.
EMBED_HEADERS = {**{k: v for k, v in _PAGE_HEADERS.items() if k != "X-Frame-Options"},
                 "Content-Security-Policy": viewer.POLICY.replace("frame-ancestors 'none'", "frame-ancestors *"),
                 "Vary": "Accept-Language"}

EMBED_WIDTH, EMBED_HEIGHT = 800, 620           # the embed's board and its timeline
_SHARED = re.compile(r"/(view|embed|match)/([0-9a-f]{12})")


@dataclass
class Preview:
    """What a link preview says of a public duel or match."""

    kind: str                          # "duel" or "match"
    id: str
    title: str
    description: str


def duel_preview(service: Service, duel_id: str) -> Preview | None:
    """A public duel as a spectator without a token sees it now, or None (not public, not there,
    hidden by its parent, or no event released yet: the generic preview)."""
    try:
        live = service._duel(duel_id)
    except (HTTPError, VerificationError):
        return None
    # its access record as stored (``LiveDuel.settings``), as a reader's request reads it: the one held
    # went on previewing a duel made private (its title, players, winner) to anyone with its link
    access = live.settings()
    if access.visibility != "public" or live.hidden_by_parent():
        return None
    seen = live.visible("spectator")
    if not seen:
        return None
    board = live.frame("spectator", seen)
    names = [player["name"] or f"Player {p}" for p, player in enumerate(board["players"])]
    parts = [" vs ".join(names)]
    if board["ended"]:
        winner = board["winner"]
        parts.append(f"{names[winner]} won" if winner is not None else "a draw")
        if board.get("reason"):
            parts[-1] += f" ({board['reason']})"
    else:
        parts.append(f"turn {board['turn']}" if board["turn"] else "before the first turn")
    if access.event:
        parts.append(access.event)
    return Preview("duel", duel_id, live.header.title or " vs ".join(names), " \u00b7 ".join(parts))


def match_preview(service: Service, match_id: str) -> Preview | None:
    """A public match as a spectator sees it (its page's own summary), or None."""
    if not _DUEL_ID.fullmatch(match_id):
        return None
    try:
        live = service.hub.match(match_id)
    except (StoreError, VerificationError):
        return None
    if live.access.visibility != "public":
        return None
    summary = live.summary("spectator")
    names = [name or f"Player {p}" for p, name in enumerate(summary["players"] or ["", ""])]
    score = summary["score"]
    parts = [" vs ".join(names), f"{score[0]}\u2013{score[1]}" + (" (final)" if summary["ended"] else "")]
    parts += [text for text in (summary.get("event_name"), summary.get("round")) if text]
    return Preview("match", match_id, live.header.title or " vs ".join(names), " \u00b7 ".join(str(p) for p in parts))


def head(preview: Preview | None, base: str) -> str:
    """The tags a link preview reads (Open Graph, the oEmbed link), every value HTML-escaped."""
    if preview is None:
        return '<meta property="og:title" content="ygoreplay">\n<meta property="og:type" content="website">\n'
    page = f"{base}/{'view' if preview.kind == 'duel' else 'match'}/{preview.id}"
    tags = {"og:type": "website", "og:site_name": "ygoreplay", "og:url": page,
            "og:title": board_image.cut(preview.title, 200), "og:description": board_image.cut(preview.description, 300)}
    if preview.kind == "duel":
        tags.update({"og:image": f"{base}/duels/{preview.id}/board.png", "og:image:width": str(board_image.WIDTH),
                     "og:image:height": str(board_image.HEIGHT)})
    out = "".join(f'<meta property="{key}" content="{html.escape(value)}">\n' for key, value in tags.items())
    out += f'<meta name="description" content="{html.escape(board_image.cut(preview.description, 300))}">\n'
    out += f'<meta name="ygoreplay-public" content="{preview.kind}">\n'
    oembed = f"{base}/oembed?format=json&url={quote(page, safe='')}"
    return out + (f'<link rel="alternate" type="application/json+oembed" href="{html.escape(oembed)}" '
                  f'title="{html.escape(board_image.cut(preview.title, 200))}">\n')


def base_of(request: Request) -> str:
    return str(request.base_url).rstrip("/")


@router.get("/embed/{duel_id}", include_in_schema=False)
def embed_page(duel_id: str, request: Request) -> Response:
    """The viewer without its chrome (the board and the timeline), for an ``<iframe>``: the
    only page any site may frame. It reads the duel as the viewer does (``?token=``, ``#e57``,
    ``view=``), in the reader's language (``?lang=``, ``Accept-Language``)."""
    if not _DUEL_ID.fullmatch(duel_id):
        raise HTTPError(404, say("no duel {duel_id!r}", duel_id=duel_id))
    return Response(viewer.embed_page(page_language(request)), media_type="text/html; charset=utf-8",
                    headers=EMBED_HEADERS)


@router.get("/oembed", tags=["everyone"])
def oembed(request: Request, service: ServiceDep, url: str = Query(max_length=2000),
           format: str = Query("json", pattern="^json$"), maxwidth: int | None = Query(None, ge=1, le=10_000),
           maxheight: int | None = Query(None, ge=1, le=10_000)) -> JSONResponse:
    """oEmbed (https://oembed.com) for a public duel's viewer or embed link: a ``rich`` answer
    whose ``html`` is the embed's ``<iframe>``, with the board picture as its thumbnail. Only
    JSON (any other format is a bad request, 400: the service answers no 5xx for what a client
    asks); 404 for a link that is no public duel's."""
    try:
        parts = urlsplit(url)
    except ValueError:                   # e.g. an unclosed IPv6 bracket
        raise HTTPError(400, say("url is not a link"), where="url") from None
    found = _SHARED.fullmatch(parts.path)
    base = base_of(request)
    if found is None or f"{parts.scheme}://{parts.netloc}" != base or found.group(1) == "match":
        raise HTTPError(404, say("not a link to a duel of this service"), where="url")
    preview = duel_preview(service, found.group(2))
    if preview is None:
        raise HTTPError(404, say("no public duel at that link"), where="url")
    width = min(EMBED_WIDTH, maxwidth or EMBED_WIDTH)
    height = min(EMBED_HEIGHT, maxheight or EMBED_HEIGHT)
    position = re.fullmatch(r"e(\d{1,9})", parts.fragment.split("&")[0])
    src = f"{base}/embed/{preview.id}" + (f"#e{position.group(1)}" if position else "")
    frame = (f'<iframe src="{html.escape(src)}" width="{width}" height="{height}" '
             f'title="{html.escape(board_image.cut(preview.title, 200))}" style="border:0" loading="lazy"></iframe>')
    return JSONResponse({
        "version": "1.0", "type": "rich", "provider_name": "ygoreplay", "provider_url": base,
        "title": board_image.cut(preview.title, 200), "author_name": board_image.cut(preview.description, 300),
        "html": frame, "width": width, "height": height,
        "thumbnail_url": f"{base}/duels/{preview.id}/board.png",
        "thumbnail_width": board_image.WIDTH, "thumbnail_height": board_image.HEIGHT})


__all__ = ["EMBED_HEADERS", "Preview", "base_of", "duel_preview", "head", "match_preview", "router"]
