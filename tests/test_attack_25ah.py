"""Attacks on issue 25's fifteenth pass (``attack25ah``): the request's body deadline and the
per-address cap on connections (``service.request_head``), reached by a door the protocol did not
count, and a public duel's private match reached by a door other than its LP sheet.

* The per-address count was given back in the protocol's ``connection_lost`` only. A request that
  asks to upgrade to a WebSocket (``Connection: Upgrade``, ``Upgrade: websocket``: uvicorn's
  default, ``ws="auto"``, serves it with the ``websockets`` library, which is installed) hands the
  connection to another protocol, whose ``connection_lost`` runs instead: the count was never
  given back. ``PER_ADDRESS`` such requests (each refused 403 at once by the application, which
  has no WebSocket route) locked the address out of the process for good: every device of a
  venue's hall behind one NAT address, or every client of a reverse proxy. The service serves no
  WebSocket: ``server_settings`` says so (``ws="none"``), and such a request is an HTTP request
  like any other, counted and bounded.

* The commit made the protocol's refusals speak the client's language (431, 408, 503), but left
  the one the parser makes most: a malformed request (a header line without a colon, a bad chunk
  of a body) was uvicorn's own 400, English ``text/plain`` whatever ``Accept-Language`` asked for,
  and none of the ``error``/``message``/``message_translated`` every other refusal says. It is said
  as the others are now (``BoundedHttpTools.send_400_response``).

* A connection over its address's cap was not counted, and was held ``OVER_SECONDS`` waiting for
  its head's first bytes (its language) before its 503: one host opening connections that say
  nothing, a few hundred a second, held as many descriptors as it liked all the same, the very
  exhaustion the cap was for. Past ``OVER_WAITING`` of them waiting, one more is answered at once.

* Every answer said ``server: uvicorn``: which server runs the service, and so which of its
  flaws (this module works around several) to try, is nobody's to be told (``server_header``).

Real sockets against a real server, started as ``serve`` and ``demo`` start it (``server_settings``).
"""
from __future__ import annotations

import socket

from test_attack_25ad import _answer_within, _served
from test_request_bounds import _said, _whole
from test_service_delay import open_store
from ygoreplay.i18n import t_in
from ygoreplay.service import request_head

#: A browser's WebSocket handshake (RFC 6455's example key).
UPGRADE = (b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


def test_websocket_upgrades_closed_at_once_do_not_lock_their_address_out(tmp_path, monkeypatch):
    monkeypatch.setenv("YGOREPLAY_CONNECTIONS_PER_ADDRESS", "2")
    with open_store(tmp_path / "s.sqlite") as store, _served(store, monkeypatch, 20.0) as port:
        for _ in range(4):                      # twice the cap, one at a time, each closed by its client
            with socket.create_connection(("127.0.0.1", port)) as upgrading:
                upgrading.sendall(UPGRADE)
                said = _answer_within(upgrading, 4)
            assert not said.startswith(b"HTTP/1.1 503 "), said[:200]
        # every one of them closed: the address holds no connection, and is served
        for _ in range(2):
            with socket.create_connection(("127.0.0.1", port)) as later:
                later.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                said = _whole(later, 4)
            assert said.startswith(b"HTTP/1.1 200 "), said[:200]


def test_a_malformed_request_is_refused_400_in_the_clients_language(tmp_path, monkeypatch):
    with open_store(tmp_path / "s.sqlite") as store, _served(store, monkeypatch, 20.0) as port:
        for language, asked, request in (
                ("ja", b"ja, en;q=0.5", b"GET /health HTTP/1.1\r\nHost: x\r\nAccept-Language: ja, en;q=0.5\r\n"
                                       b"No colon here\r\n\r\n"),
                ("zh-Hant", b"zh-TW", b"POST /duels HTTP/1.1\r\nHost: x\r\nAccept-Language: zh-TW\r\n"
                                     b"Transfer-Encoding: chunked\r\n\r\nzz\r\n")):
            with socket.create_connection(("127.0.0.1", port)) as bad:
                bad.sendall(request)
                said = _whole(bad, 4)
            assert said.startswith(b"HTTP/1.1 400 "), said[:200]
            status, headers, body = _said(said)           # JSON, as every other refusal of the service
            assert headers[b"content-type"] == b"application/json" and headers[b"connection"] == b"close"
            assert headers[b"content-language"] == language.encode(), asked
            assert body["error"] == body["message"] == "the request is not a valid HTTP/1.1 request"
            assert body["message_translated"] == t_in(language, body["error"]) != body["error"]


def test_connections_over_the_cap_that_say_nothing_are_not_held_without_bound(tmp_path, monkeypatch):
    monkeypatch.setenv("YGOREPLAY_CONNECTIONS_PER_ADDRESS", "1")
    monkeypatch.setattr(request_head, "OVER_SECONDS", 3600.0)        # each waited on holds its descriptor
    with open_store(tmp_path / "s.sqlite") as store, _served(store, monkeypatch, 3600.0) as port:
        with socket.create_connection(("127.0.0.1", port)) as holding:
            holding.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            assert _answer_within(holding, 4).startswith(b"HTTP/1.1 200 ")
            silent = [socket.create_connection(("127.0.0.1", port)) for _ in range(12)]
            try:
                answers = [_whole(sock, 2) for sock in silent]
            finally:
                for sock in silent:
                    sock.close()
            held = [said for said in answers if not said.startswith(b"HTTP/1.1 503 ")]
            assert len(held) <= 4, f"{len(held)} of 12 silent connections over the cap held open"
            status, headers, body = _said(next(said for said in answers if said.startswith(b"HTTP/1.1 503 ")))
            assert headers[b"content-language"] == b"en" and "at most 1" in body["error"]


def test_no_answer_names_the_server_it_runs_on(tmp_path, monkeypatch):
    with open_store(tmp_path / "s.sqlite") as store, _served(store, monkeypatch, 20.0) as port:
        for request in (b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                        b"GET /no-such-page HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"):
            with socket.create_connection(("127.0.0.1", port)) as sock:
                sock.sendall(request)
                said = _whole(sock, 4)
            head = said.partition(b"\r\n\r\n")[0].lower()
            assert head.startswith(b"http/1.1 ") and b"\r\nserver:" not in head, head
