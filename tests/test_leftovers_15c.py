"""The per-address cap sized for a venue, and the 413 of a body found too long while it came
(issue 25, fifteenth pass; ``service/request_head.py``, ``service/common.py``).

What was wrong: one address held at most 256 connections of a process, where a venue of 500
tables behind one NAT address holds thousands (a table's recorder and two players' devices each
hold an SSE stream and a request or two beside it); and ``serve`` left the process's soft
``RLIMIT_NOFILE`` as it was (1,024 on most systems), so no cap would have let the venue in. Now
``server_settings`` raises the soft limit to the hard one and the cap is half of it. And a body
found over ``MAX_BODY`` while it came (chunked, or past its ``Content-Length``) was answered an
English reader ``{"error"}`` alone, where the 413 of a stated length, and every refusal of the
protocol, says ``message`` too (and ``message_translated`` to a reader of another language).
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

from test_store import store_url  # noqa: F401  (fixture: a fresh SQLite file or PostgreSQL schema)
from ygoreplay.access import digest
from ygoreplay.i18n import t_in
from ygoreplay.service import common, create_app
from ygoreplay.store import Store

ORGANISER = "leftovers-organiser-token-0123456789abcdef"

#: Made as ``serve`` makes its server: the limits it then has, and the cap its protocol was given.
_SETTINGS = """
import json, resource
from uvicorn.importer import import_from_string
from ygoreplay.service.request_head import server_settings
protocol = import_from_string(server_settings()["http"])
print(json.dumps([*resource.getrlimit(resource.RLIMIT_NOFILE), protocol.per_address]))
"""


def _made_under(soft: int, hard: int, **env: str) -> tuple[int, int, int]:
    """The soft and hard ``RLIMIT_NOFILE`` and the per-address cap of a server made in a process
    started with ``soft``/``hard`` descriptors (and ``env``)."""
    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    found = subprocess.run([sys.executable, "-c", _SETTINGS], capture_output=True, text=True, check=True,
                           preexec_fn=limited, env={**_environment(), **env})
    return tuple(json.loads(found.stdout))


def _environment() -> dict[str, str]:
    """This process's environment with no cap given (the derived one is what is looked at)."""
    return {k: v for k, v in os.environ.items() if k != "YGOREPLAY_CONNECTIONS_PER_ADDRESS"}


def _hard() -> int:
    """A hard limit this process may set (one it may lower its own to: at most 16,384)."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return 1 << 14 if hard == resource.RLIM_INFINITY else min(hard, 1 << 14)


def test_a_server_raises_its_descriptors_to_the_hard_limit_and_caps_an_address_at_half():
    hard = _hard()
    assert _made_under(256, hard) == (hard, hard, hard // 2)          # raised from 256: half of them
    assert _made_under(256, 600) == (600, 600, 300)                   # one host never holds every one


def test_a_cap_given_is_the_cap_the_limit_raised_all_the_same():
    hard = _hard()
    assert _made_under(256, hard, YGOREPLAY_CONNECTIONS_PER_ADDRESS="40") == (hard, hard, 40)


@pytest.mark.parametrize("asked,language", [("en", "en"), ("ja", "ja")])
def test_a_body_found_over_size_while_it_comes_is_refused_as_a_stated_one(store_url, monkeypatch,  # noqa: F811
                                                                           asked, language):
    """Chunked (no ``Content-Length``, as a body past its length is read too): the same answer,
    in the same shape, as a body stated over the limit."""
    monkeypatch.setattr(common, "MAX_BODY", 10_000)
    english = "the request body is over 10000 bytes"
    store = Store(store_url)
    try:
        with TestClient(create_app(store, digest(ORGANISER))) as client:
            headers = {"Accept-Language": asked, "Content-Type": "application/json",
                       "Authorization": f"Bearer {ORGANISER}"}
            streamed = client.post("/duels", content=iter([b"{" + b" " * 6000, b" " * 6000 + b"}"]), headers=headers)
            stated = client.post("/duels", content=b"{}", headers={**headers, "Content-Length": "10001"})
    finally:
        store.close()
    assert streamed.status_code == stated.status_code == 413
    assert "content-length" not in streamed.request.headers
    assert streamed.headers["content-language"] == stated.headers["content-language"] == language
    assert streamed.json() == stated.json()
    assert streamed.json()["error"] == streamed.json()["message"] == english
    if language == "en":
        assert "message_translated" not in streamed.json()
    else:
        assert streamed.json()["message_translated"] == t_in(language, "the request body is over {count} bytes",
                                                             count=10_000) != english
