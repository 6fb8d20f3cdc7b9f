"""The library's search over HTTP: public duels and matches by player, title, event, result,
source and card events (``library_search``); a card's numbers; a player's duels. Open to anyone:
each answer is what a spectator may know now (public streams, cut at their delay)."""
from __future__ import annotations

import asyncio

from fastapi import APIRouter, Query, Request

from ..i18n import say
from ..library_search import SearchError, card_stats, parse, player, search
from .common import HTTPError
from .core import ServiceDep

router = APIRouter()


@router.get("/search", tags=["everyone"])
async def find(request: Request, service: ServiceDep) -> dict:
    """Public duels and matches, newest first, ``limit`` (default 20, at most 100) a page and
    ``next`` the cursor of the next page. Filters: ``q`` (words of the title, players, event,
    round), ``player``, ``title``, ``event``, ``round``, ``format``, ``banlist``, ``since`` and
    ``until`` (a date or a time), ``result`` (p0, p1, draw, ongoing, or a player's name: won by
    them), ``source`` (imported, table, api), ``kind`` (duel, match, any) and a card: ``card``
    (a name in any language the card database has, or a passcode), ``action`` (activated,
    summoned, sent_to_gy, banished, negated) and ``turn_max``. A bad parameter is 400 saying
    which (``where``)."""
    params = {key: value for key, value in request.query_params.multi_items()}
    try:
        query = parse(params, service.store.cards)
        return await asyncio.to_thread(search, service.store, query)    # its cursor opens here
    except SearchError as exc:
        raise HTTPError(400, str(exc), where=exc.where) from None


@router.get("/cards/{code}/stats", tags=["everyone"])
async def card(code: int, service: ServiceDep) -> dict:
    """How many public duels show the card (a spectator's view: a hidden card never counts), in
    how many it was activated or summoned, and how those duels ended for whoever used it. Its
    rows are checked as a search's are: ``unvouched`` says how many duels were left out. Kept
    until a commit or a delay's release changes what it is read from (``card_stats``)."""
    if not 0 < code < 2 ** 32:
        raise HTTPError(400, say("a passcode is a whole number 1..4294967295"), where="code")
    return await asyncio.to_thread(card_stats, service.store, code, service.store.cards, None, service.hub.cache)


@router.get("/players/{name}", tags=["everyone"])
async def player_duels(name: str, service: ServiceDep, limit: int = Query(100, ge=1, le=100),
                       cursor: str | None = Query(None, max_length=200)) -> dict:
    """A player's public duels, newest first, and how many they won, lost and drew."""
    try:
        return await asyncio.to_thread(player, service.store, name, limit, cursor)
    except SearchError as exc:
        raise HTTPError(400, str(exc), where=exc.where) from None


__all__ = ["router"]
