"""Leftovers of the fifteenth pass's request bounds and match-context privacy (issue 25;
``service/request_head.py``, ``service/common.py``, ``access.knows_match``).

What was wrong: the per-address cap counted each exact address, so an IPv6 host (handed a whole
/64) had as many connections as it liked, and a dual-stack socket's IPv4 client
(``::ffff:a.b.c.d``) was another address than the same client over IPv4; the 503 said nothing of
when to try again; the 413 of an over-size body was English ``{"error"}`` only where every other
refusal says ``message``/``message_translated`` in the reader's language; and a player of a
private match reading its duel with the duel's own token (the LP sheet they sign at the table)
was told nothing of the event and round they were playing in.

The cap is met through the protocol itself with stand-in transports: a real socket on this host
cannot come from two addresses of one /64.
"""
from __future__ import annotations

import asyncio
import threading

import pytest
import uvicorn
from fastapi.testclient import TestClient
from uvicorn.server import ServerState

from test_match_context_privacy import ORGANISER, SECRET, _public_duel_of, auth, served  # noqa: F401  (fixture)
from test_request_bounds import _said
from test_store import store_url  # noqa: F401  (fixture: a fresh SQLite file or PostgreSQL schema)
from ygoreplay.access import digest
from ygoreplay.errors import InputError, YgoreplayError
from ygoreplay.i18n import t_in, using
from ygoreplay.service import create_app, request_head
from ygoreplay.service.common import MAX_BODY
from ygoreplay.store import Store

GET = b"GET /health HTTP/1.1\r\nHost: x\r\nAccept-Language: ja\r\n\r\n"


class _Transport(asyncio.Transport):
    """A connection from ``host``: what the protocol writes to it, and whether it closed it."""

    def __init__(self, host: str) -> None:
        super().__init__()
        self.host, self.said, self.closed = host, b"", False

    def get_extra_info(self, name: str, default=None):
        return (self.host, 40000) if name == "peername" else default

    def write(self, data: bytes) -> None:
        self.said += data

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_protocol(self):
        return None


async def _unreached(scope, receive, send) -> None:
    """The application behind the protocol: no request these tests make is whole."""
    raise AssertionError(scope)


class _Server:
    """Connections made to one server (its own state) of a cap of ``per_address``, as uvicorn
    makes them from ``server_settings``: the protocol named there, loaded by name."""

    def __init__(self, per_address: int) -> None:
        config = uvicorn.Config(_unreached, log_level="warning",
                                **request_head.server_settings(per_address=per_address))
        config.load()
        self.protocol, self.config, self.state = config.http_protocol_class, config, ServerState()
        self.loop = asyncio.new_event_loop()
        self.made: list[tuple[object, _Transport]] = []

    def connect(self, host: str) -> _Transport:
        protocol = self.protocol(config=self.config, server_state=self.state, app_state={}, _loop=self.loop)
        transport = _Transport(host)
        protocol.connection_made(transport)
        self.made.append((protocol, transport))
        return transport

    def refused(self, host: str) -> bytes:
        """What a connection from ``host`` that sends a request's head is answered before any
        application sees it (b"": let in, the head not yet whole)."""
        transport = self.connect(host)
        self.made[-1][0].data_received(b"GET /health HTTP/1.1\r\nHost: x\r\nAccept-Language: ja\r\n")
        return transport.said

    def close(self) -> None:
        for protocol, _transport in self.made:
            protocol.connection_lost(None)
        self.loop.close()


@pytest.fixture
def server_of_two():
    server = _Server(2)
    yield server
    server.close()


def test_an_ipv6_hosts_64_is_one_address_and_its_other_64s_are_others(server_of_two):
    assert server_of_two.refused("2001:db8:0:7::1") == b""
    assert server_of_two.refused("2001:db8:0:7:ffff:ffff:ffff:fffe") == b""
    refused = server_of_two.refused("2001:db8:0:7::9")          # a third address of that /64
    assert refused.startswith(b"HTTP/1.1 503 "), refused[:200] or "let in: each address of a /64 had its own cap"
    assert server_of_two.refused("2001:db8:0:8::1") == b""      # the next /64 is another host's
    assert server_of_two.refused("2001:db8:0:8::1%eth0") == b""


def test_an_ipv4_mapped_ipv6_client_is_its_ipv4_address(server_of_two):
    assert server_of_two.refused("192.0.2.7") == b""
    assert server_of_two.refused("::ffff:192.0.2.7") == b""       # the same client on a dual-stack socket
    refused = server_of_two.refused("::ffff:c000:207")
    assert refused.startswith(b"HTTP/1.1 503 "), refused[:200] or "let in: a mapped address was another's"
    assert server_of_two.refused("192.0.2.8") == b""


def test_the_503_says_when_to_try_again(server_of_two):
    for _ in range(2):
        assert server_of_two.refused("192.0.2.1") == b""
    status, headers, body = _said(server_of_two.refused("192.0.2.1"))
    assert status.startswith(b"HTTP/1.1 503 ") and headers[b"content-language"] == b"ja"
    assert b"retry-after" in headers, headers
    assert 1 <= int(headers[b"retry-after"]) <= 60


def test_each_server_counts_its_own_connections_in_its_own_thread():
    """Servers in one process (the tests run several, each in a thread of its own) count apart:
    one's address at its cap is nothing to another's."""
    answers: dict[int, list[bytes]] = {}

    def run(n: int) -> None:
        server = _Server(1)
        try:
            answers[n] = [server.refused("198.51.100.1") for _ in range(2)]
        finally:
            server.close()
    threads = [threading.Thread(target=run, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for n in range(3):
        assert answers[n][0] == b"" and answers[n][1].startswith(b"HTTP/1.1 503 "), answers


@pytest.mark.parametrize("cap", [1, 7])
def test_a_server_made_from_its_settings_holds_an_address_to_the_cap_given(cap):
    """``server_settings`` as ``serve`` gives it to uvicorn (the protocol named, loaded where the
    server, or a worker, loads it): ``cap`` connections of one address let in, one more 503."""
    server = _Server(cap)
    try:
        assert [server.refused("203.0.113.5") for _ in range(cap)] == [b""] * cap
        assert server.refused("203.0.113.5").startswith(b"HTTP/1.1 503 ")
        assert server.refused("203.0.113.6") == b""
    finally:
        server.close()


def test_the_service_is_not_made_without_httptools(monkeypatch):
    """Its bounds are httptools' protocol's: on uvicorn's h11 it would have none of them."""
    monkeypatch.setattr(request_head, "HttpToolsProtocol", None)
    with pytest.raises(YgoreplayError, match="httptools"):
        request_head.server_settings(per_address=7)


def test_a_cap_out_of_range_is_refused_naming_where_it_came_from(monkeypatch):
    for bad in (0, 1_000_000):
        with using("ja"), pytest.raises(InputError) as given:
            request_head.server_settings(per_address=bad)
        assert t_in("ja", "connections per address") in str(given.value)
    monkeypatch.setenv(request_head.PER_ADDRESS_ENV, "lots")
    with using("ja"), pytest.raises(InputError) as read:
        request_head.server_settings()
    assert f"${request_head.PER_ADDRESS_ENV}" in str(read.value)


@pytest.mark.parametrize("language,asked", [("ja", "ja"), ("ko", "ko-KR"), ("zh-Hans", "zh-CN"), ("zh-Hant", "zh-TW")])
def test_an_over_size_body_is_refused_413_in_the_readers_language(store_url, language, asked):  # noqa: F811
    store = Store(store_url)
    try:
        with TestClient(create_app(store, digest("leftovers-organiser-token-0123456789abcdef"))) as client:
            answer = client.post("/duels", content=b"{}", headers={
                "Content-Length": str(MAX_BODY + 1), "Accept-Language": asked, "Content-Type": "application/json"})
    finally:
        store.close()
    assert answer.status_code == 413
    english = f"the request body is over {MAX_BODY} bytes"
    assert answer.headers["content-language"] == language
    body = answer.json()
    assert body["error"] == body["message"] == english
    assert body["message_translated"] == t_in(language, "the request body is over {count} bytes",
                                              count=MAX_BODY) != english


@pytest.mark.parametrize("match_sees", ["private", "unlisted"])
def test_the_duels_table_tokens_see_their_match_on_the_lp_sheet(served, match_sees):  # noqa: F811
    """A duel's players, recorder and judge (its table's tokens) know the match they play in;
    its spectator token and no token still learn nothing of a private or unlisted one."""
    _url, client = served
    match, duel = _public_duel_of(client, match_sees)
    page = f"/duels/{duel['id']}/lp-sheet"
    for role in ("p0", "p1", "recorder", "judge"):                  # the page names the event (the CSV has rows only)
        sheet = client.get(page, headers=auth(duel["tokens"][role]))
        assert sheet.status_code == 200 and SECRET in sheet.text and "Secret Format" in sheet.text, role
    for headers in ({}, auth(duel["tokens"]["spectator"])):
        for form in (page, f"{page}.csv"):
            assert SECRET not in client.get(form, headers=headers).text
    # the duel's token opens the duel's sheet, not the match's own routes
    assert client.get(f"/matches/{match['id']}", headers=auth(duel["tokens"]["p0"])).status_code in (401, 404)
    assert client.get(f"/matches/{match['id']}", headers=ORGANISER).status_code == 200
