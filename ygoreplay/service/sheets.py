"""A duel's paper LP record (``lpsheet``): the printable page and the CSV, made from the duel as
the caller's view has it, under the same access rules and delay as every other read of the duel
(a delayed spectator's sheet stops where the delay does)."""
from __future__ import annotations

import gzip

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from ..access import filed_as
from ..exchange import sheet_head
from ..live import LiveDuel
from ..lpsheet import LPSheet, sheet_of, to_csv, to_html
from ..round_pages import POLICY
from ..rounds import match_details
from ..views import redact
from .common import VIEW, Caller
from .core import DuelCaller, Service, ServiceDep

router = APIRouter()

#: The headers of a page the server makes whole (an LP sheet, a round's pages): no script at all.
PRINTED_HEADERS = {"Content-Security-Policy": POLICY, "Referrer-Policy": "no-referrer",
                   "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Cache-Control": "no-store"}


def _sheet(service: Service, live: LiveDuel, view: str, visible: int, match: dict) -> LPSheet:
    """The sheet of the first ``visible`` events as ``view`` has them (a judge's: the record),
    ``match`` what its reader may know of the duel's match."""
    live_view = live.view(view, visible if view == "spectator" else None)
    steps = live_view.steps[:visible]
    if view == "judge":
        events, cards = [r.event for r in live.records[:visible]], live.cards
    else:
        events, cards = live_view.fold.events[:visible], live_view.fold.cards
    # the head of the file the reader is given of these events (``LiveDuel.replay_file``): the
    # table's is a spectator's (``access.filed_as``), its events in a spectator's names; the head
    # of a chain of the table's own tied the paper the players sign to a file no one is given
    filed = filed_as(view)
    chained = events if filed == view else redact([r.event for r in live.records[:visible]], live.cards, filed,
                                                   live.header.secret).events
    return sheet_of(events, cards, view, disclosures=[d for s in steps for d in s.disclosures],
                    renames=[r for s in steps for r in s.renames], times=[s.time for s in steps],
                    duel_id=live.id, title=live.header.title,
                    head=sheet_head(filed, live.header.root, chained, [r.recorded for r in live.records[:visible]],
                                    live.records[visible - 1].hash) if visible else None,
                    match=match)


def _made(service: Service, request: Request, asking: tuple[Caller, LiveDuel], view: str | None, form: str,
          paper: str) -> bytes:
    """The sheet laid out as ``form`` (html, csv), made once per view, events seen and whether
    its reader may know of the duel's match (a public duel of a private match: one who may not
    is never handed the sheet made for one who may)."""
    caller, live = asking
    view = Service.view_for(caller, view)
    visible = live.visible(view)
    match: dict = {}
    if live.match_id() is not None:
        match = match_details(service.store, live.id, service.match_reader(request, caller))

    def build() -> bytes:
        sheet = _sheet(service, live, view, visible, match)
        return (to_csv(sheet) if form == "csv" else to_html(sheet, paper)).encode()
    return gzip.decompress(live.answer(("lp-sheet", view, form, paper, visible, tuple(sorted(match.items()))), build))


@router.get("/duels/{duel_id}/lp-sheet", tags=["everyone"], response_class=Response,
            responses={200: {"content": {"text/html": {}}}})
def lp_sheet_page(duel_id: str, request: Request, service: ServiceDep, asking: DuelCaller, view: str | None = Query(None, pattern=VIEW),
                  paper: str = Query("a4", pattern="^(a4|letter)$")) -> Response:
    """The duel's LP record as a printable page both players sign: every LP change with its
    cause, turn and phase, the running LP, the result, and the record's head hash."""
    return Response(_made(service, request, asking, view, "html", paper), media_type="text/html; charset=utf-8",
                    headers=PRINTED_HEADERS)


@router.get("/duels/{duel_id}/lp-sheet.csv", tags=["everyone"], response_class=Response,
            responses={200: {"content": {"text/csv": {}}}})
def lp_sheet_csv(duel_id: str, request: Request, service: ServiceDep, asking: DuelCaller,
                 view: str | None = Query(None, pattern=VIEW)) -> Response:
    """The duel's LP record as CSV (RFC 4180, a header row, the result last)."""
    return Response(_made(service, request, asking, view, "csv", "a4"), media_type="text/csv; charset=utf-8; header=present",
                    headers={"Content-Disposition": f'attachment; filename="{duel_id}-lp-sheet.csv"',
                             "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"})


__all__ = ["PRINTED_HEADERS", "router"]
