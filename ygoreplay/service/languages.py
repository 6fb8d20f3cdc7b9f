"""The pages' words in each language: ``GET /i18n/{lang}.json`` is one language's catalogue of
the ``pages`` domain (``ygoreplay/locale``), which ``viewer/i18n.js`` reads; and the language a
page is served in (``<html lang>``), from its ``?lang=`` or the browser's ``Accept-Language``.
Catalogues hold nothing of a duel: public, cached, compressed."""
from __future__ import annotations

import functools
import gzip
import hashlib
import json

from fastapi import APIRouter, Request
from fastapi.responses import Response

from .. import i18n, viewer
from ..i18n import say
from .common import HTTPError
from .reference import _cached

router = APIRouter()


@functools.cache
def _body(language: str) -> tuple[bytes, bytes, str]:
    body = json.dumps(viewer.catalogue(language), ensure_ascii=False, separators=(",", ":")).encode()
    return body, gzip.compress(body, mtime=0), '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


@router.get("/i18n/{language}.json", tags=["everyone"])
def page_catalogue(language: str, request: Request) -> Response:
    """The pages' catalogue in one language (``en``, ``zh-Hans``, ``zh-Hant``, ``ja``, ``ko``):
    ``{language, languages, messages}``; a message it lacks is shown in English."""
    if language not in i18n.LANGUAGES:
        raise HTTPError(404, say("no catalogue for language {language!r}: one of {names_list}",
                                 language=language, names_list=', '.join(i18n.LANGUAGES)),
                        where="language")
    return _cached(request, *_body(language))


def page_language(request: Request) -> str:
    """The language a page is served in: its ``?lang=`` when there is a catalogue for it, else the
    best one for the browser's ``Accept-Language``."""
    return i18n.resolve(request.query_params.get("lang")) or i18n.negotiate(request.headers.get("accept-language"))


__all__ = ["page_language", "router"]
