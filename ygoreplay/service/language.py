"""The language of a request: ``?lang=`` if given, else the best of ``Accept-Language``
(``i18n.negotiate``). Held for the whole request (``i18n.using``: the sentences and labels said
while serving it, in threads too, since ``asyncio.to_thread`` and Starlette's thread pool copy the
context) and answered as ``Content-Language``. A ``?lang=`` no catalogue has is passed over for
``Accept-Language``, as the pages' own language is chosen (``languages.page_language``), and
``Content-Language`` says what was served. Machine-readable parts (JSON keys, event kinds, rule
IDs, errors) never change with it.
"""
from __future__ import annotations

from urllib.parse import parse_qs

from starlette.types import ASGIApp, Receive, Scope, Send

from .. import i18n


#: ``Accept-Language`` headers negotiated before, and their language: a service hears the same few
#: headers again and again (each browser's, none from a recorder's client).
_NEGOTIATED: dict[bytes, str] = {}
_NEGOTIATED_KEPT = 1024


def request_language(scope: Scope) -> str:
    """The language a request asks for: its ``?lang=`` when there is a catalogue for it, else the
    best one for its ``Accept-Language``."""
    query = scope.get("query_string", b"")
    asked = parse_qs(query.decode("latin-1")).get("lang") if b"lang" in query or b"%" in query else None
    chosen = i18n.resolve(asked[0]) if asked else None
    if chosen:
        return chosen
    header = b""
    for name, value in scope.get("headers") or ():
        if name == b"accept-language":      # the last one, as a dict of the headers keeps it
            header = value
    # only what negotiating reads (one character a byte in Latin-1): a key is never a client's megabytes
    header = header[:i18n.ACCEPT_LANGUAGE_READ]
    language = _NEGOTIATED.get(header)
    if language is None:
        language = i18n.negotiate(header.decode("latin-1"))
        if len(_NEGOTIATED) >= _NEGOTIATED_KEPT:
            _NEGOTIATED.clear()
        _NEGOTIATED[header] = language
    return language


def said_in_headers(headers: list, language: str) -> list:
    """An answer's headers saying the language it was served in (``Content-Language``, last)."""
    said = [(k, v) for k, v in headers if k.lower() != b"content-language"]    # a list, not a generator:
    said.append((b"content-language", language.encode()))                   # each append's answer
    return said


class Language:
    """Serves every HTTP request in its reader's language."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        language = request_language(scope)

        async def said_in(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": said_in_headers(message.get("headers") or [], language)}
            await send(message)

        with i18n.using(language):
            await self.app(scope, receive, said_in)
