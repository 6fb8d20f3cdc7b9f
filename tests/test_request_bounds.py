"""A request's body has a deadline, one address holds only so many connections, and each of the
protocol's refusals is said in the client's language (issue 25, fifteenth pass; ``request_head``).

What was wrong: a request's head had to come in within ``HEAD_SECONDS``, but its body had no time
at all: a client that sent its head and then a byte of its body every few seconds held its
connection, and the application task awaiting the body, for ever. One address could open
connections until the process had no descriptor left. And the 431 and 408 answers were English
only, where every other refusal of the service says ``message_translated`` in the reader's
language. Now a body not whole in ``body_seconds`` is answered 408, an address past its cap 503
(both closed), each in the language of the ``Accept-Language`` that came in; and the service runs
on httptools only (its bounds are in that parser), said when it is missing (``test_leftovers_15b``).

Real sockets against a real server, started as ``serve`` and ``demo`` start it.
"""
from __future__ import annotations

import json
import socket
import time

from test_attack_25ad import _answer_within, _served, trickled
from test_service_delay import ADMIN, open_store
from ygoreplay.i18n import t_in
from ygoreplay.service import request_head

ORGANISER = f"Authorization: Bearer {ADMIN}\r\n".encode()


def _said(answer: bytes) -> tuple[bytes, dict[bytes, bytes], dict]:
    """An answer's status line, headers and JSON body."""
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.split(b"\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(b":") for line in lines)}
    return status, headers, json.loads(body)


def _whole(sock: socket.socket, seconds: float) -> bytes:
    """Everything the service says on ``sock`` until it closes it (within ``seconds`` a read)."""
    out = b""
    while True:
        try:
            said = _answer_within(sock, seconds)
        except ConnectionResetError:            # it closed with bytes of ours unread
            return out
        if said in (b"", b"<nothing: still open>"):
            return out if said == b"" else out + said
        out += said


def test_a_body_trickled_is_answered_408_in_the_clients_language(tmp_path, monkeypatch):
    monkeypatch.setattr(request_head, "BODY_SECONDS", 1.0, raising=False)
    monkeypatch.setattr(request_head, "BODY_RATE", 1 << 30, raising=False)
    with open_store(tmp_path / "s.sqlite") as store, _served(store, monkeypatch, 20.0) as port:
        with socket.create_connection(("127.0.0.1", port)) as slow:
            slow.sendall(b"POST /duels HTTP/1.1\r\nHost: x\r\nAccept-Language: ja, en;q=0.5\r\n" + ORGANISER +
                         b"Content-Type: application/json\r\nContent-Length: 400\r\n\r\n{")
            said = trickled(slow, b" ", 6)                              # a byte of it every quarter second
            said += _whole(slow, 1) if said else b""
        assert said.startswith(b"HTTP/1.1 408 "), said[:200] or "no answer: the body's connection held on"
        status, headers, body = _said(said)
        assert headers[b"content-language"] == b"ja" and headers[b"connection"] == b"close"
        assert body["error"] == body["message"] == "the request's body did not come in within 1 seconds"
        assert body["message_translated"] == t_in("ja", "the request's body did not come in within {seconds} seconds",
                                                  seconds="1") != body["error"]
        # a body sent whole is read and answered as before, on a connection kept alive
        with socket.create_connection(("127.0.0.1", port)) as whole:
            for _ in range(2):
                whole.sendall(b"POST /duels HTTP/1.1\r\nHost: x\r\n" + ORGANISER + b"Content-Type: application/json\r\n"
                              b"Content-Length: 2\r\n\r\n{}")
                answer = _answer_within(whole, 4)
                assert answer.startswith(b"HTTP/1.1 201 "), answer[:200]
                time.sleep(1.5)                                               # past a body's time, between requests


def test_an_address_past_its_cap_is_answered_503_in_its_language_and_one_closing_lets_another_in(
        tmp_path, monkeypatch):
    monkeypatch.setenv("YGOREPLAY_CONNECTIONS_PER_ADDRESS", "2")
    with open_store(tmp_path / "s.sqlite") as store, _served(store, monkeypatch, 20.0) as port:
        held = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
        try:
            for sock in held:                                       # both are served
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                assert _answer_within(sock, 4).startswith(b"HTTP/1.1 200 ")
            with socket.create_connection(("127.0.0.1", port)) as third:
                third.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nAccept-Language: ko-KR,ko;q=0.9\r\n\r\n")
                said = _whole(third, 4)
            assert said.startswith(b"HTTP/1.1 503 "), said[:200]
            status, headers, body = _said(said)
            assert headers[b"content-language"] == b"ko"
            assert "at most 2" in body["error"] and "2" in body["message_translated"]
            assert body["message_translated"] != body["error"]
            with socket.create_connection(("127.0.0.1", port)) as silent:                # says nothing: English
                status, headers, body = _said(_whole(silent, 6))
            assert status.startswith(b"HTTP/1.1 503 ") and headers[b"content-language"] == b"en"
            assert "message_translated" not in body
            held.pop().close()                                      # one closes: another is let in
            answer, started = b"", time.monotonic()
            while not answer.startswith(b"HTTP/1.1 200 ") and time.monotonic() - started < 10:
                with socket.create_connection(("127.0.0.1", port)) as again:
                    again.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                    answer = _answer_within(again, 4)
            assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]
        finally:
            for sock in held:
                sock.close()


def test_the_head_refusals_are_said_in_the_clients_language(tmp_path, monkeypatch):
    with open_store(tmp_path / "s.sqlite") as store, _served(store, monkeypatch, 1.0) as port:
        with socket.create_connection(("127.0.0.1", port)) as late:
            late.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nAccept-Language: zh-TW\r\nX-Then: 1\r\n")   # never ends
            status, headers, body = _said(_whole(late, 4))
        assert status.startswith(b"HTTP/1.1 408 ") and b"content-language" in headers and headers[b"content-language"] == b"zh-Hant"
        assert body["message_translated"] == t_in(
            "zh-Hant", "the request's line and headers did not come in within {seconds} seconds", seconds="1")
        with socket.create_connection(("127.0.0.1", port)) as big:
            big.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nAccept-Language: zh-CN\r\nX-Big: ")
            said = b""
            try:
                for _ in range(400):
                    big.sendall(b"a" * 1024)
            except OSError:
                pass
            said = _whole(big, 4)
        status, headers, body = _said(said)
        assert status.startswith(b"HTTP/1.1 431 ") and headers[b"content-language"] == b"zh-Hans"
        assert body["message_translated"] == t_in("zh-Hans", "the request's line and headers are over {count} bytes",
                                                  count=request_head.MAX_HEAD)
