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

Real sockets against a real server, started as ``serve`` and ``demo`` start it (``server_settings``).
"""
from __future__ import annotations

import socket

from test_attack_25ad import _answer_within, _served
from test_request_bounds import _whole
from test_service_delay import open_store

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
