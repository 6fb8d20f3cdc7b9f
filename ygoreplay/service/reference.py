"""What any client downloads once and keeps: the card database as compact rows, for naming
cards offline (the recorder's page autocompletes from it), and the event schemas the service
checks against (a form for any event is built from them). Neither holds anything of a duel, so
both are public, cached and compressed.
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import json
import threading

from fastapi import APIRouter, Request
from fastapi.responses import Response

from .. import card_names, i18n
from ..cards import CardDB, CardFacts
from ..i18n import say
from ..schema import event_schema, umbrella_schema
from ..text import printable
from .common import HTTPError
from .core import ServiceDep

router = APIRouter()

#: How long a browser may keep them without asking again (the card database changes with a
#: release of the service; the ETag answers a later question cheaply).
_CACHE = "public, max-age=86400"


#: The rows of the card database last asked for in each names language (a service has one
#: database): language → (database, its names, body, gzip, ETag). A language with no names
#: installed is read as English (``_names_key``): one entry, not one English copy per language.
_rows: dict[str, tuple[CardDB, dict[int, str] | None, bytes, bytes, str]] = {}
#: One build at a time (some 2 s of CPU each): requests arriving together for a body not made yet
#: (a cold start, a client asking in every language at once) wait for it and share it, rather
#: than each building its own copy on a thread of the pool.
_building = threading.Lock()


def _names_key(language: str) -> tuple[str, dict[int, str] | None]:
    """The cache's key for ``language`` and the names it is read with: a language whose names
    are not installed has English rows, kept under ``i18n.DEFAULT``."""
    names = card_names.names_of(language) or None          # none installed: one object, not a new {}
    return (language if names else i18n.DEFAULT), names


def _card_rows(cards: CardDB, language: str) -> tuple[bytes, bytes, str]:
    """The card database as JSON rows ``[code, name, type, level, atk, def]`` (``def`` null for a
    Link Monster), sorted by name; the same gzipped; and their ETag. Made once per database and
    names language. With names installed in the reader's language (``card_names``), ``name`` is
    that name and a seventh column, ``english``, the English one (null when they are the same): a
    scorekeeper in Taipei types 灰流, one reading a card's English print types Ash, and both find it.
    An alternate artwork is not a row of its own (``_artwork``): it was suggested twice. In Chinese,
    ``fold`` maps each character to its Simplified form (``card_names.fold_table``): the page
    compares typed text and names folded, whichever script either is in."""
    key, names = _names_key(language)
    kept = _rows.get(key)
    if kept and kept[0] is cards and kept[1] is names:
        return kept[2:]
    with _building:
        kept = _rows.get(key)
        if kept and kept[0] is cards and kept[1] is names:          # made while this one waited
            return kept[2:]
        made = _built(cards, names, key)
        if any(other[0] is not cards for other in _rows.values()):
            _rows.clear()                        # another database's rows: no longer asked for
        _rows[key] = (cards, names, *made)       # kept: a public endpoint does not rebuild it per request
        return made


def _built(cards: CardDB, names: dict[int, str] | None, language: str) -> tuple[bytes, bytes, str]:
    """``_card_rows`` made: the body, its gzip and its ETag."""
    facts = [f for f in (cards[code] for code in cards) if not _artwork(cards, f)]
    rows = [[f.code, f.name, f.type, f.level, f.atk, f.defense] for f in facts]
    columns = ["code", "name", "type", "level", "atk", "def"]
    if names:
        columns.append("english")
        for row, f in zip(rows, facts):
            local = names.get(f.code) or (names.get(f.alias) if f.alias else None)
            if local and local != f.name:
                row[1] = local
            row.append(f.name if row[1] != f.name else None)
    rows.sort(key=lambda row: (row[1].casefold(), row[0]))
    answer: dict = {"columns": columns, "cards": rows}
    if names and language in card_names.FOLDED_LANGUAGES:     # 閃刀 typed finds 闪刀姬, and 闪刀 閃刀姬
        answer["fold"] = card_names.fold_table(row[1] for row in rows)
    body = json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode()
    return body, gzip.compress(body, mtime=0), '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _artwork(cards: CardDB, facts: CardFacts) -> bool:
    """Whether ``facts`` is an alternate artwork of a card in ``cards`` (its alias, the same name):
    suggested once, as that card, whose passcode the rules read (an alias named otherwise, a card
    treated as another's name, DECK-07, is a card of its own)."""
    original = cards.get(facts.alias) if facts.alias else None
    return original is not None and original.name == facts.name


def _cached(request: Request, body: bytes, packed: bytes, etag: str, vary: str = "Accept-Encoding") -> Response:
    """``body`` (or ``packed``, its gzip, to a client that takes it), or 304 when the client holds it.
    ``vary`` names the request headers it depends on: a shared cache keeps a copy per value of each."""
    headers = {"Cache-Control": _CACHE, "ETag": etag, "Vary": vary,
               "X-Content-Type-Options": "nosniff"}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    if "gzip" in request.headers.get("accept-encoding", ""):
        return Response(packed, media_type="application/json", headers={**headers, "Content-Encoding": "gzip"})
    return Response(body, media_type="application/json", headers=headers)


@router.get("/cards.json", tags=["everyone"])
def cards_json(request: Request, service: ServiceDep) -> Response:
    """Every card the service knows, as compact rows ``[code, name, type, level, atk, def]``
    (``columns`` names them; named in the request's language where names are installed, the
    English beside): what a page needs to name a card offline. Cacheable, gzipped."""
    # named in the reader's language: ``?lang=`` or, without it, Accept-Language (``service.language``)
    return _cached(request, *_card_rows(service.store.cards, card_names.names_language()),
                   vary="Accept-Encoding, Accept-Language")


@functools.cache
def _schema(name: str) -> tuple[bytes, bytes, str]:
    schema = umbrella_schema() if name == "event" else event_schema(name)
    body = json.dumps(schema, ensure_ascii=False, separators=(",", ":")).encode()
    return body, gzip.compress(body, mtime=0), '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


@router.get("/schemas/event.json", tags=["everyone"])
def event_schemas(request: Request) -> Response:
    """The JSON Schema of any event (``ygoreplay.schema``: every kind, its fields, their vocabularies)."""
    return _cached(request, *_schema("event"))


@router.get("/schemas/events/{kind}.json", tags=["everyone"])
def kind_schema(kind: str, request: Request) -> Response:
    """The JSON Schema of one event kind."""
    try:
        return _cached(request, *_schema(kind))
    except KeyError:
        raise HTTPError(404, say("no event kind {kind!r}", kind=kind), where="kind") from None


__all__ = ["router"]


@router.get("/rules/{rule_id}", tags=["everyone"])
def rule(rule_id: str) -> dict:
    """A rule of the catalogue for the viewer's pop-up: ``{id, summary, seed_quotes: [{file,
    text}]}``, the summary in the request's language (``?lang=``, ``Accept-Language``), the
    quotes the Chinese seed text it was distilled from (none when the service has no seeds:
    ``$YGOREPLAY_SEEDS``, or the shared folder next to the repository)."""
    from ..explain import explained
    from ..rules.coverage import RULES
    from ..seeds import seeds_folder
    found = RULES.get(rule_id.strip().upper())
    if found is None:
        raise HTTPError(404, say("no rule {rule!r} in the catalogue (an ID such as SUM-04)",
                                 rule=printable(rule_id)[:40]))
    return explained(found, seeds_folder())
