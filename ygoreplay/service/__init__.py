"""The HTTP service: record, follow and share duels, on the same application layer as the CLI.

FastAPI on uvicorn (OpenAPI at ``/openapi.json``, its pages at ``/docs``). Every request names
its token in ``Authorization: Bearer <token>`` (or ``?token=``, for links and the browser's
EventSource); ``access.py`` says what each role sees and does. Redaction happens here, on the
server: a player's or spectator's response is made from that view's own events and board, so it
holds no passcode the viewer may not see. Errors map in one place (``common._errors``): a broken rule
is 422 ``{"index", "rule", "message"}``, a conflict 409, malformed input 400 saying what and
where, a wrong token 401, a role that may not 403, a duel that is not there (or not for you) 404,
one stream more than a client or a duel may have open 429. A duel or match whose signed anchors
do not vouch for its header (altered in the database) is 409 ``"verification": false`` to whoever
may see it, and to anyone else what an id that names nothing is (``Service.hides_altered``).

Matches (``matches.py``) have tokens, roles and views of their own on the same terms: a
decklist or Side Deck a view may not see is withheld there, counts kept.

Positions are event numbers, as the log numbers events and everywhere else (``show --at N``,
``branch --at N``, ``diff DUEL@N``, the viewer's ``#eN``): ``at=N`` is the board after event #N,
``from=N`` the events from #N on, a rollback ``to`` N undoes #N and what followed.

The package, a router per resource on one app (``create_app``): ``duels.py`` (a duel's record
and its reads), ``judge.py`` (rollback, notes, branches), ``uploads.py``, ``matches.py``,
``pages.py`` (the browser's pages), ``languages.py`` (their words in each language), ``sheets.py``
(a duel's LP sheet), ``rounds.py`` (an event's rounds), ``images.py`` (a board's picture),
``sharing.py`` (the embed, link previews, oEmbed), ``library_pages.py`` (the library's pages);
``core.py`` holds the service's state and the dependencies
routes ask for (the service, the organiser, a duel's caller), ``common.py`` what they share (the
errors and their statuses, reading bodies).
"""
from __future__ import annotations

import asyncio
import gc
import os
import secrets as _secrets
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import AsyncIterator

from fastapi import FastAPI

from ..access import ROLES, digest
from ..card_sources import card_lookup
from ..receipts import Witness, witness_from
from ..signing import OrganiserKey
from ..match import stream as _match_stream  # noqa: F401  (the store's matches are served: registers their kind)
from ..store.reading import Store
from ..store.records import MissingStore
from . import (duels, images, judge, languages, library_pages, matches, pages, reference, rounds, search, sharing,
               sheets, uploads)
from .common import HTTPError, _errors, _Limit
from .language import Language
from .core import Service, ServiceApp, Threads

THREADS = 256                    # requests waiting on the store at once


def create_app(store: Store, admin_digest: str, witness: Witness | None = None) -> FastAPI:
    """The service over an open store; ``admin_digest`` is the organiser token's SHA-256;
    ``witness`` keeps every write's signed head (``receipts.py``)."""
    service = Service(store, admin_digest, witness)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        app.lane()                        # built now, and kept with what start-up made (below)
        # Every append waits in a thread for its group commit: enough threads that the appends of
        # many tables can wait at once (and so be committed together). The other routes' threads
        # (``asyncio.to_thread``) are as many.
        threads = service.threads = Threads(THREADS, "ygoreplay")
        loop.set_default_executor(ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="ygoreplay-to"))
        # The objects made at start-up live for good, and a service makes few reference cycles:
        # frozen and collected rarely, a full collection no longer stalls every request for tens of ms.
        gc.collect()
        gc.freeze()
        gc.set_threshold(50_000, 20, 100)
        service.hub.start(loop)
        try:
            yield
        finally:
            service.threads = None
            threads.close()
            service.hub.stop()
            if witness is not None:
                witness.close()

    # the API's description: this docstring but its first line and the package's map (its last paragraph)
    app = ServiceApp(title="ygoreplay", version="1", lifespan=lifespan,
                     description=__doc__.split("\n\n", 1)[1].rsplit("\n\n", 1)[0] if __doc__ else None)
    app.state.service = service
    app.append_route = duels.APPEND_ROUTE
    _errors(app)
    app.add_middleware(_Limit)
    app.add_middleware(Language)          # every request in its reader's language (?lang=, Accept-Language)
    app.include_router(duels.router)      # first: a route is found by trying each in turn, and appends are most
    app.include_router(matches.router)

    @app.get("/health", tags=["service"])
    def health() -> dict:
        """Whether the service and its store answer."""
        return {"ok": True, "store": store.backend}

    for router in (pages.router, judge.router, uploads.router, sheets.router, rounds.router,
                   reference.router, languages.router, images.router, sharing.router, library_pages.router,
                   search.router):
        app.include_router(router)
    return app


# -- starting it --------------------------------------------------------------------------------------

ADMIN_ENV = "YGOREPLAY_ADMIN_TOKEN"


def admin_token(store: Store) -> tuple[str, str | None]:
    """The organiser token's digest, and the token itself when it was made now (to print once):
    ``$YGOREPLAY_ADMIN_TOKEN``, else the one this store's service was given before, else a new one."""
    token = os.environ.get(ADMIN_ENV)
    if token:
        return digest(token), None
    saved = store.setting("admin")
    if saved:
        return saved["digest"], None
    token = _secrets.token_urlsafe(32)
    store.set_setting("admin", {"digest": digest(token)})
    return digest(token), token


def app_from_env() -> FastAPI:
    """The app a uvicorn worker builds (``--workers N``): store and organiser digest from the
    environment ``serve`` set."""
    store = Store(os.environ.get("YGOREPLAY_STORE"), card_lookup(), key=OrganiserKey.load_or_create()[0],
                  concurrent=True, create=False)
    return create_app(store, os.environ["YGOREPLAY_ADMIN_DIGEST"], witness_from(None))


__all__ = ["ADMIN_ENV", "HTTPError", "MissingStore", "ROLES", "Service", "admin_token", "app_from_env", "create_app"]
