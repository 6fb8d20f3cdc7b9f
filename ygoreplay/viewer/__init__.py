"""The web viewer: a page and its static ES-module assets, served by ``ygoreplay serve`` at
``/view/{id}`` and written whole into one self-contained file by ``export --html``; and the
match page (``/match/{id}``: ``match.html``, ``match.js``, ``match.css``) and the recorder's page
(``/record/{id}``: ``record.html``, ``record.js``, ``record.css``), the embed (``/embed/{id}``: the
viewer's page marked as an embed) and the library (``/``, ``/library...``: ``library.html``,
``library.js``, ``library.css``), served the same way.

The page draws frames (``live.Step.frame``) that the server made from one view's own events,
so redaction never depends on it. A served page may load scripts, styles and data from its own
origin only; an exported page, from nothing at all: its one script and one style are allowed by
their hashes, and it may fetch nothing, so it opens from ``file://`` with no network.
"""
from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
from importlib import resources
from typing import Any

from .. import i18n

#: The assets the service serves, and their content types.
ASSETS = {"viewer.js": "text/javascript; charset=utf-8", "text.js": "text/javascript; charset=utf-8",
          "i18n.js": "text/javascript; charset=utf-8",
          "viewer.css": "text/css; charset=utf-8",
          "match.js": "text/javascript; charset=utf-8", "match.css": "text/css; charset=utf-8",
          "record.js": "text/javascript; charset=utf-8", "names.js": "text/javascript; charset=utf-8",
          "record.css": "text/css; charset=utf-8",
          "round.js": "text/javascript; charset=utf-8",
          "library.js": "text/javascript; charset=utf-8", "library.css": "text/css; charset=utf-8"}

#: What a served page may load: its own scripts, styles and data, no frames, no forms.
POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
          "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")

_STYLE_TAG = '<link rel="stylesheet" href="/viewer/viewer.css">'
_SCRIPT_TAG = '<script type="module" src="/viewer/viewer.js"></script>'
#: The modules ``viewer.js`` imports, written in place of their imports in an exported page.
_IMPORTS = {"text.js": 'import { visible } from "./text.js";\n',
            "i18n.js": 'import { N_, language, ready, t } from "./i18n.js";\n'}


@functools.cache
def asset(name: str) -> bytes:
    """One of ``ASSETS``, from the installed package."""
    if name not in ASSETS and name not in ("index.html", "match.html", "record.html", "library.html"):
        raise KeyError(name)
    return resources.files(__package__).joinpath(name).read_bytes()


def page(language: str = i18n.DEFAULT, head: str = "") -> str:
    """The page the service serves for every duel; it fetches the duel's frames itself. ``head``:
    tags for its head (a link preview's, already escaped)."""
    return _in(asset("index.html").decode().replace("<!--policy-->\n", head), language)


def embed_page(language: str = i18n.DEFAULT) -> str:
    """The viewer for an ``<iframe>`` (``/embed/{id}``): the same page and script, marked as an
    embed (``viewer.css`` leaves out the chrome: the header's controls, the log, the details)."""
    return page(language).replace("<body>", '<body class="embed" data-embed="true">', 1)


def match_page(language: str = i18n.DEFAULT, head: str = "") -> str:
    """The page the service serves for every match (``/match/{id}``); it fetches the match itself."""
    return _in(asset("match.html").decode().replace("<title", head + "<title", 1), language)


def library_page(language: str = i18n.DEFAULT) -> str:
    """The library (``/``, ``/library``, ``/library/card/{code}``, ``/library/player/{name}``):
    public duels and matches found through ``/search`` and the statistics endpoints; it reads
    what to show from its own address."""
    return _in(asset("library.html").decode(), language)


def record_page(language: str = i18n.DEFAULT) -> str:
    """The recorder's page (``/record/{id}``): the viewer's board (``viewer.js``) with the
    recorder's controls (``record.js``); it reads and writes through the public API."""
    return _in(asset("record.html").decode(), language)


def _in(html: str, language: str) -> str:
    """A page that says which language it is in (``i18n.js`` fetches that catalogue unless the
    reader chose another before)."""
    if language not in i18n.LANGUAGES:
        raise ValueError(f"no catalogue for language {language!r}")
    return html.replace('<html lang="en">', f'<html lang="{language}">', 1)


def catalogue(language: str) -> dict[str, Any]:
    """One language's page catalogue as ``i18n.js`` reads it: ``{language, languages: {tag: its
    own name}, messages: {English: translation}}`` (the service's ``/i18n/{lang}.json``)."""
    return {"language": language, "languages": i18n.LANGUAGES, "messages": i18n.catalogue(language, "pages")}


def embedded_json(data: Any) -> str:
    """JSON that can sit inside a ``<script>`` element: no ``<``, ``>`` or ``&`` left to end it."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def offline_page(info: dict[str, Any], frames: list[dict], replay_file: bytes, file_name: str,
                 language: str | None = None) -> str:
    """One page holding everything: the style, the script, one view's frames and the signed
    ``.ygr`` file they were made from (offered for download, for ``ygoreplay verify``), and every
    language's catalogue (its switch needs no network), opening in ``language`` (default: the
    one in use)."""
    style, script = asset("viewer.css").decode(), _inlined(asset("viewer.js").decode())
    for name, text in (("viewer.css", style), ("viewer.js", script)):
        if "</" in text:
            raise ValueError(f"{name} holds '</', which would end its element in a page")
    policy = (f"default-src 'none'; script-src '{_hash(script)}'; style-src '{_hash(style)}'; "
              "img-src data:; base-uri 'none'; form-action 'none'")
    data = {**info, "frames": frames, "file": base64.b64encode(replay_file).decode(), "file_name": file_name}
    language = language or i18n.current()
    words = {"language": language, "catalogues": {tag: catalogue(tag) for tag in i18n.LANGUAGES}}
    html = _in(asset("index.html").decode(), language)
    html = html.replace("<!--policy-->", f'<meta http-equiv="Content-Security-Policy" content="{policy}">')
    html = html.replace(_STYLE_TAG, f"<style>{style}</style>")
    html = html.replace(_SCRIPT_TAG, f'<script type="application/json" id="ygr-duel">{embedded_json(data)}</script>\n'
                                     f'<script type="application/json" id="ygr-i18n">{embedded_json(words)}</script>\n'
                                     f'<script type="module">{script}</script>')
    return html


def _inlined(script: str) -> str:
    """``viewer.js`` with ``text.js`` and ``i18n.js`` written in place of their imports: an
    exported page loads nothing."""
    for name, line in _IMPORTS.items():
        if line not in script:
            raise ValueError(f"viewer.js does not import {name} as the exported page expects")
        script = script.replace(line, re.sub(r"^export ", "", asset(name).decode(), flags=re.M))
    return script


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


__all__ = ["ASSETS", "POLICY", "asset", "catalogue", "embed_page", "embedded_json", "library_page", "match_page",
           "offline_page", "page", "record_page"]
