"""A request's head (its line and headers) bounded before it is parsed whole, for every server
that runs the service (``serve``, its workers, ``demo``: ``server_settings``).

uvicorn's HTTP parser (httptools) builds a header's value and the request's target by adding each
piece read to the whole, and sets no bound: one connection sending a header of many megabytes
held the one event loop copying it (every other request waited tens of seconds) and the memory
grew with it. Past ``MAX_HEAD`` bytes of one head the connection is answered 431 and closed; h11,
where httptools is not installed, is held to the same bound by its own setting.

Nor does uvicorn set a time for a head to come in: a connection that sent nothing, or a byte of
its head every few seconds (just under any bound), was held open for ever, and a few hundred
such held every file descriptor the process may open (slowloris): no one else was answered.
A head not whole ``HEAD_SECONDS`` after its connection opened (or after a later request's first
byte: the wait between requests is uvicorn's keep-alive timeout) is answered 408 and closed.

A request's body is held to a time too (``body_seconds``): ``BODY_SECONDS`` and a second for every
``BODY_RATE`` bytes its ``Content-Length`` says (its most, ``MAX_BODY``, when it is chunked), from
its head's end. A body trickled a byte every few seconds (under any bound) held its connection,
and the request its application task awaited, for ever; now it is answered 408 (closed without a
word when the application has begun answering it) and closed.

And no one address holds more than its cap of a process's connections at once: half the file
descriptors the process may open (``per_address_default``; ``server_settings(per_address=...)``
or ``$YGOREPLAY_CONNECTIONS_PER_ADDRESS`` for another): one host opening connections until the
process had no file descriptor left was everyone's refusal, and one host now leaves the other
half to everyone else. ``server_settings`` (where every server is made, before any worker is
started: they inherit it) first raises the process's soft ``RLIMIT_NOFILE`` to its hard one: the
usual soft 1,024 let no process hold a venue's connections, whatever the cap.

Why half and not a number: a venue of 500 tables behind one NAT address is one address. A table's
recorder phone and, in a witnessed duel, its two players' devices each hold one SSE stream
(``/duels/{id}/follow``, the recorder page's and a player page's alike) and one or two connections
for their requests beside it (kept alive 5 s between them), six at most as a browser opens to one
host (a page loading, or every page of the hall reconnecting after its Wi-Fi came back); a
spectator's viewer the same; the round page (``/rounds/{id}/follow``) a few for the whole hall.
So 500 tables hold ~1,500 streams, 4,500 connections or so in play, 9,000 when every device
reconnects at once, and more with viewers: ``serve`` (one process by default) needs a cap well
over 9,000, so some 20,000 descriptors; systemd's hard limit (524,288) and Docker's (1,048,576)
give a cap of 262,144 or 524,288. Where the hard limit is lower (``ulimit -Hn``), raise it
(``LimitNOFILE=``) or give the cap. One more connection is answered 503 and closed before any
application sees it (waited on briefly for its language; past ``OVER_WAITING`` such waits of one
address, at once). It counts per process: with ``--workers N`` an address may hold N times as
many. Behind a reverse proxy every connection is the proxy's: raise it there (the proxy is where
each client's cap belongs).

An address is counted as a host is given addresses: an IPv6 one by its /64 (one host is handed a
whole /64 and may speak from any of its 2**64 addresses), an IPv4-mapped IPv6 one
(``::ffff:a.b.c.d``, a dual-stack socket's IPv4 client) as its IPv4 address (``address_key``).
Each server (``uvicorn.Server``: the tests run several in one process, in threads) counts its own
connections on its own state, touched only by its own event loop's thread.

A request the parser refuses (malformed) is answered 400 in the same way.

A response leaves in one write where uvicorn makes two (its head, then its body): the head is held
until the body's first bytes, or the end of the loop's turn (``_OneWrite``). Two writes were two
TCP segments, two system calls of the worker's event loop and two wake-ups of the client, for
every append (issue 25).

These answers are said in the client's language (``Accept-Language``, as far as the head came in
before it was refused; ``i18n.negotiate``), the English always in ``error`` and ``message``, the
reader's beside it in ``message_translated``, as every other refusal of the service
(``i18n.message_dict``), with ``Content-Language``.

No connection leaves this protocol for another: the service serves no WebSocket (``ws="none"``),
and uvicorn's default handed an upgraded connection to one whose close never gave back its
address's count, so its cap of upgrade requests locked their address out for good.

The service runs on httptools only (``uvicorn[standard]`` and ``httptools`` are dependencies):
its bounds are this protocol's, so ``server_settings`` refuses to make a server without it
rather than one on uvicorn's h11, which would have none of them.
"""
from __future__ import annotations

import ipaddress
import json
import os
import re
from collections import Counter
from functools import lru_cache
from typing import Any

from .. import i18n
from ..errors import InputError, YgoreplayError
from ..i18n import N_, t
from .common import MAX_BODY, OUTLET

#: The most bytes of a request's line and headers: a real one is well under 8 KiB (a browser's
#: cookies and all); 64 KiB is what the service's largest query (a long search) needs many times over.
MAX_HEAD = 64 << 10

#: The most seconds a request's head may take to come in whole: a real client sends it at once
#: (a slow phone's network in well under a second or two); a table's device on a bad line has
#: many times that.
HEAD_SECONDS = 20.0

#: The seconds a request's body may take besides one for every ``BODY_RATE`` bytes of it: a batch
#: of events (a few KiB) has 20 s, the largest upload (16 MiB) about four and a half minutes (a
#: phone on a poor line sends 64 KiB/s many times over).
BODY_SECONDS = 20.0
BODY_RATE = 64 << 10

#: One address may hold this share of the file descriptors a process may open (1/2): a venue's hall
#: behind one NAT address holds a few a table (see above); one host never holds every one.
PER_ADDRESS_SHARE = 2
#: The most connections one address may be given (its cap's name, ``CAPPED.per_address_N``, has six digits).
MOST_PER_ADDRESS = 999_999
#: The descriptors counted where the system sets no limit a process (Windows: a socket is a handle).
_NO_RLIMIT = 1 << 14
#: Where ``serve`` and ``demo`` (and every worker) read another cap from.
PER_ADDRESS_ENV = "YGOREPLAY_CONNECTIONS_PER_ADDRESS"
#: The seconds a connection over its address's cap is waited on for its head's first bytes (its
#: language) before it is answered 503 in English: a real client sends its head at once.
OVER_SECONDS = 2.0
#: The connections over its cap one address may have waited on at once: past them, one more is
#: answered 503 in English at once. Each waited on holds a descriptor for ``OVER_SECONDS``, and
#: none was counted: one host opening a few hundred a second held every descriptor all the same.
OVER_WAITING = 4

_OVER_HEAD = N_("the request's line and headers are over {count} bytes")
_LATE_HEAD = N_("the request's line and headers did not come in within {seconds} seconds")
_LATE_BODY = N_("the request's body did not come in within {seconds} seconds")
_CROWDED = N_("too many connections from one address at once (at most {count}): try again once one has closed")
_INVALID = N_("the request is not a valid HTTP/1.1 request")
#: The seconds a client refused 503 (``_CROWDED``) is told to wait (``Retry-After``): one of its
#: address's connections is likely closed by then; a client retrying at once is refused again.
RETRY_SECONDS = 5
_STATUS = {_OVER_HEAD: b"431 Request Header Fields Too Large", _LATE_HEAD: b"408 Request Timeout",
           _LATE_BODY: b"408 Request Timeout", _CROWDED: b"503 Service Unavailable",
           _INVALID: b"400 Bad Request"}
_ACCEPT_LANGUAGE = re.compile(rb"\r\naccept-language[ \t]*:[ \t]*([^\r\n]*)", re.IGNORECASE)


def body_seconds(length: int | None) -> float:
    """The seconds a body of ``length`` bytes has (None: chunked, timed as the largest the service
    takes, ``MAX_BODY``)."""
    return BODY_SECONDS + (MAX_BODY if length is None else min(length, MAX_BODY)) / BODY_RATE


@lru_cache(maxsize=64)
def _answer(template: str, language: str, **values: Any) -> bytes:
    """A whole response closing the connection, of ``template``'s status: the English in
    ``error`` and ``message``, the reader's language's in ``message_translated``
    (``i18n.message_dict``'s shape), and ``Content-Language``."""
    english = template.format(**values)
    said = {"error": english, "message": english}
    if language != i18n.DEFAULT:
        said["message_translated"] = i18n.t_in(language, template, **values)
    body = json.dumps(said, ensure_ascii=False).encode()
    retry = b"retry-after: " + str(RETRY_SECONDS).encode() + b"\r\n" if template == _CROWDED else b""
    return (b"HTTP/1.1 " + _STATUS[template] + b"\r\ncontent-type: application/json\r\nconnection: close\r\n" + retry
            + b"content-language: " + language.encode() + b"\r\ncontent-length: " + str(len(body)).encode()
            + b"\r\n\r\n" + body)


def _language(accept_language: bytes | None) -> str:
    """The language of an answer to a client that said ``accept_language`` (None: nothing yet)."""
    if not accept_language:
        return i18n.DEFAULT
    return i18n.negotiate(accept_language[:i18n.ACCEPT_LANGUAGE_READ].decode("latin-1"))


def address_key(host: str) -> str:
    """What a client's address is counted as (its cap): an IPv6 address's /64, an
    IPv4-mapped IPv6 address's IPv4 address, any other (IPv4, a Unix socket's name) itself."""
    if ":" not in host:                      # IPv4 (or a Unix socket's name): as it is, unparsed
        return host
    try:
        found = ipaddress.IPv6Address(host.partition("%")[0])     # a link-local one's zone is no other host
    except ValueError:
        return host
    if found.ipv4_mapped is not None:
        return str(found.ipv4_mapped)
    return str(ipaddress.IPv6Network((found, 64), strict=False))


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:                       # no httptools: ``server_settings`` says so
    HttpToolsProtocol = None


def descriptors() -> int:
    """The file descriptors this process may open, its soft limit first raised to its hard one
    (left as it was where the system refuses: macOS's hard limit is "unlimited", past what a
    process may ask for). Every descriptor is a connection the process can hold."""
    try:
        import resource
    except ImportError:                       # no such limit (Windows)
        return _NO_RLIMIT
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass                              # kept: the cap is a share of what there is
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return MOST_PER_ADDRESS * PER_ADDRESS_SHARE if soft == resource.RLIM_INFINITY else soft


def per_address_default() -> int:
    """One address's cap where none is given: ``PER_ADDRESS_SHARE`` of ``descriptors()`` (the
    soft limit raised first)."""
    return max(1, min(descriptors() // PER_ADDRESS_SHARE, MOST_PER_ADDRESS))


def server_settings(per_address: int | None = None) -> dict[str, Any]:
    """The ``uvicorn.Config`` settings every server of the service is made with: ``per_address``
    connections of one address at once (None: ``$YGOREPLAY_CONNECTIONS_PER_ADDRESS``, else
    ``per_address_default()``), the process's descriptors raised to its hard limit first (a
    worker inherits them). The protocol is named, not given: a worker process is handed its settings
    pickled, and a class would be imported (with the whole service) while the worker unpickles
    them, before it handles Ctrl-C; a name is imported where the worker loads the application,
    the cap in it (``CAPPED``). No WebSocket protocol: an upgrade request is an HTTP request like
    any other, counted and bounded by this protocol to its end."""
    if HttpToolsProtocol is None:
        raise YgoreplayError(t("the service runs on httptools (its bounds on each request are in its parser), "
                               "which is not installed: pip install httptools"))
    available = per_address_default()         # the limit raised, whatever cap is given
    if per_address is None:
        given = os.environ.get(PER_ADDRESS_ENV, "").strip()
        name = f"${PER_ADDRESS_ENV}"          # a variable's name, said as it is written
        per_address = (int(given) if re.fullmatch(r"[1-9][0-9]{0,5}", given) else 0) if given else available
    else:
        name = t("connections per address")
    if not 1 <= per_address <= MOST_PER_ADDRESS:
        raise InputError(t("{name} is a whole number 1..999999", name=name))
    # no WebSocket (the service serves none; issue 25): uvicorn's default hands an upgraded
    # connection to another protocol, whose close never gave back its address's count here
    # (``connection_lost``), so its cap of refused upgrades locked the address out for good
    # nor a ``server: uvicorn`` header on every answer: which server and so which of its flaws
    # (this module works around several) is nobody's to be told
    return {"http": f"{__name__}:CAPPED.per_address_{per_address}", "ws": "none", "server_header": False}


class _Counts:
    """One server's connections by address (``address_key``): those open, and those over their
    cap being waited on (``OVER_WAITING``). Kept on the server's own state (``server_counts``),
    so no two servers share one, and each is touched by its server's event loop's thread only."""

    __slots__ = ("open", "waiting")

    def __init__(self) -> None:
        self.open: Counter[str] = Counter()
        self.waiting: Counter[str] = Counter()


def server_counts(server_state: Any) -> _Counts:
    """The counts of the server whose state (uvicorn's ``ServerState``, one a server) is
    ``server_state``: made with its first connection, gone with it."""
    counts = getattr(server_state, "ygoreplay_counts", None)
    if counts is None:
        counts = server_state.ygoreplay_counts = _Counts()
    return counts


class _OneWrite:
    """A response's transport as uvicorn's ``RequestResponseCycle`` writes it: its first write (the
    status line and headers) held, and written with the next (the body's first bytes) as one;
    or at the end of the loop's turn when no second write comes in it (a stream's head, a
    ``100 Continue``), or at a close. Every later write goes straight through, in order."""

    __slots__ = ("_transport", "_loop", "_held", "_first")

    def __init__(self, transport: Any, loop: Any) -> None:
        self._transport, self._loop = transport, loop
        self._held: bytes | None = None
        self._first = True

    def write(self, data: bytes) -> None:
        if self._first:
            self._first = False
            self._held = bytes(data)
            self._loop.call_soon(self.flush)
            return
        held, self._held = self._held, None
        self._transport.write(held + data if held is not None else data)

    def flush(self) -> None:
        held, self._held = self._held, None
        if held is not None and not self._transport.is_closing():
            self._transport.write(held)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class Outlet:
    """A streamed answer's connection as a feed writes to it (``service.fanout``): one chunk of
    the body, framed once for every follower of a view (``fanout.framed``), written straight to
    the transport, past the follower's task and ASGI send (the middleware's sends, uvicorn's
    framing and copy: the fan-out's cost a follower an event, issue 25). Open while the answer
    has begun (its head sent) in chunks and has not ended, nor its client gone. In the
    request's scope (``common.OUTLET``) as this protocol serves it; the stream decides when its
    feed may write (only once its own sends are written: the bytes stay in order)."""

    __slots__ = ("_cycle", "_transport")

    def __init__(self, cycle: Any) -> None:
        self._cycle = cycle
        self._transport: Any = None

    def open(self) -> bool:
        cycle = self._cycle
        if not cycle.response_started or cycle.response_complete or cycle.disconnected \
                or cycle.chunked_encoding is not True:
            return False
        transport = cycle.transport
        self._transport = transport._transport if isinstance(transport, _OneWrite) and transport._held is None \
            else transport                   # its head written: the socket's own (no wrapper's call a write)
        return not self._transport.is_closing()

    def write(self, data: bytes, most: int) -> bool:
        """Write ``data``, unless the connection already holds bytes unsent and ``data`` would
        take them past ``most`` (False: its reader does not keep up). A connection closing is
        written nothing (its stream ends with its client's going)."""
        transport = self._transport
        if transport.is_closing():
            return True
        unsent = transport.get_write_buffer_size()
        if unsent and unsent + len(data) > most:
            return False
        transport.write(data)
        return True


class BoundedHttpTools(HttpToolsProtocol or object):  # type: ignore[misc]
    """httptools, counting the bytes of each request's head as they come: past ``MAX_HEAD``, 431
    and the connection closed (no application has seen the request yet). Bytes are counted only
    in reads that began and ended inside one head, so a read holding a whole request and the
    start of the next one (pipelined) is no head's. A head not whole ``HEAD_SECONDS`` after the
    connection opened or its first byte came: 408 (``_late``); a body not whole in its time
    (``body_seconds``): 408 (``_late_body``). An address over ``per_address`` connections: 503.
    Made by ``server_settings`` only, with its cap (``CAPPED``)."""

    per_address: int

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head: int | None = 0           # bytes of the head read so far; None in a body
        self._began = False
        self._refused = False
        self._deadline: Any = None           # the timer of the head awaited, if one is
        self._body_deadline: Any = None      # the timer of the body awaited, if one is
        self._address: str | None = None     # the address counted for this connection
        self._counted: Counter[str] | None = None   # where: its server's open, or waiting, connections
        self._crowded = False                # over its address's cap: answered 503, nothing parsed
        self._read = b""                     # the bytes being parsed (a malformed request's language)

    def connection_made(self, transport: Any) -> None:   # type: ignore[override]
        super().connection_made(transport)
        address = address_key(self.client[0]) if self.client else None
        if address is not None:
            counts = server_counts(self.server_state)
            held = counts.open
            if held[address] >= self.per_address:
                self._crowded = True         # its language is in its head's first bytes: awaited briefly
                waiting = counts.waiting
                if waiting[address] >= OVER_WAITING:
                    self._crowded_answer(None)       # no more held: answered now
                    return
                waiting[address] += 1
                self._counted = waiting
                self._address = address
                self._deadline = self.loop.call_later(OVER_SECONDS, self._crowded_answer, None)
                return
            held[address] += 1
            self._counted = held
            self._address = address
        self._deadline = self.loop.call_later(HEAD_SECONDS, self._late)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._disarm_body()
        if self._address is not None and self._counted is not None:   # given back where it was counted
            self._counted[self._address] -= 1
            if self._counted[self._address] <= 0:
                del self._counted[self._address]
        self._address = self._counted = None
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head, self._began = 0, True
        if self._deadline is None:           # a later request's: timed from its first byte
            self._deadline = self.loop.call_later(HEAD_SECONDS, self._late)

    def on_headers_complete(self) -> None:
        self._head = None
        self._disarm()
        self._disarm_body()
        length, chunked = None, False
        for name, value in self.headers:
            if name == b"content-length":
                length = int(value) if value.strip().isdigit() else None
            elif name == b"transfer-encoding":
                chunked = True
        if length or chunked:                # a body to come: timed (a GET's is complete at once)
            seconds = body_seconds(length if length else None)
            self._body_deadline = self.loop.call_later(seconds, self._late_body, seconds)
        cycle = self.cycle
        super().on_headers_complete()
        if self.cycle is not cycle and self.cycle is not None:      # this request's, its answer not begun
            self.cycle.transport = _OneWrite(self.transport, self.loop)
            self.scope[OUTLET] = Outlet(self.cycle)       # type: ignore[literal-required]  (a stream's feed writes to it)

    def on_message_complete(self) -> None:
        self._disarm_body()
        super().on_message_complete()

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _disarm_body(self) -> None:
        if self._body_deadline is not None:
            self._body_deadline.cancel()
            self._body_deadline = None

    def _said_language(self) -> bytes | None:
        """The ``Accept-Language`` of the head being read, as far as it came in."""
        return next((value for name, value in reversed(self.headers or ()) if name == b"accept-language"), None)

    def _refuse(self, template: str, accept_language: bytes | None, **values: Any) -> None:
        """``template``'s answer (its ``values`` filled), in the language ``accept_language`` asks
        for, and the connection closed."""
        self._disarm()
        self._disarm_body()
        if self._refused or self.transport.is_closing():
            return
        self._refused = True
        self.transport.write(_answer(template, _language(accept_language), **values))
        self.transport.close()

    def _late(self) -> None:
        """The head awaited did not come in time: 408 and closed, or, while an earlier request
        of the connection is being answered (pipelined), closed once it is."""
        self._deadline = None
        if self._head is None or self._refused or self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            self._refused = True
            self.cycle.keep_alive = False
            return
        self._refuse(_LATE_HEAD, self._said_language(), seconds=f"{HEAD_SECONDS:g}")

    def _late_body(self, seconds: float) -> None:
        """The body awaited did not come in its ``seconds``: 408 and closed, or only closed once
        the application has begun to answer (the answer's bytes are its own), or nothing here
        once the connection is another protocol's (upgraded)."""
        self._body_deadline = None
        if self._refused or self.transport.is_closing() or self.transport.get_protocol() is not self:
            return
        if self.cycle is not None and (self.cycle.response_started or self.pipeline):   # not ours to answer
            self._refused = True
            self.cycle.transport.close()     # the answer's head first, if it holds it (``_OneWrite``)
            return
        self._refuse(_LATE_BODY, self._said_language(), seconds=str(max(1, round(seconds))))

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._crowded:                    # its head's first bytes say its language; nothing more is read
            found = _ACCEPT_LANGUAGE.search(data[:MAX_HEAD])
            self._crowded_answer(found.group(1) if found else None)
            return
        self._began = False
        self._read = data                    # the parser stops at a malformed byte before it hands on its header
        counting = self._head is not None
        super().data_received(data)
        self._read = b""                     # held while parsed only (a read may be 256 KiB of a body)
        if counting and self._head is not None and not self._began:
            self._head += len(data)
            if self._head > MAX_HEAD:
                self._refuse(_OVER_HEAD, self._said_language(), count=MAX_HEAD)

    def send_400_response(self, msg: str) -> None:
        """A request its parser refuses (a malformed line, header or chunk): 400 in the client's
        language, as every other refusal here (uvicorn's was English text/plain, whatever the
        client asked for), or only closed once the application has begun to answer (the
        answer's bytes are its own: a 400 written into them was a corrupt response)."""
        if self.cycle is not None and self.cycle.response_started:
            self._refused = True
            self.cycle.transport.close()     # the answer's head first, if it holds it (``_OneWrite``)
            return
        found = _ACCEPT_LANGUAGE.search(self._read[:MAX_HEAD])    # a header the parser stopped inside
        self._refuse(_INVALID, self._said_language() or (found.group(1) if found else None))

    def _crowded_answer(self, accept_language: bytes | None) -> None:
        self._refuse(_CROWDED, accept_language, count=self.per_address)


class _Capped:
    """``BoundedHttpTools`` with a cap of its own, by name (``CAPPED.per_address_32``): what
    ``server_settings`` names, so a worker process imports the cap its server was given."""

    def __getattr__(self, name: str) -> type:
        found = re.fullmatch(r"per_address_([1-9][0-9]{0,5})", name)
        if found is None:
            raise AttributeError(name)
        return _capped(int(found.group(1)))


@lru_cache(maxsize=None)
def _capped(per_address: int) -> type:
    return type(f"BoundedHttpTools{per_address}", (BoundedHttpTools,), {"per_address": per_address})


CAPPED = _Capped()

__all__ = ["BODY_RATE", "BODY_SECONDS", "CAPPED", "HEAD_SECONDS", "MAX_HEAD", "MOST_PER_ADDRESS", "PER_ADDRESS_ENV",
           "PER_ADDRESS_SHARE", "RETRY_SECONDS", "BoundedHttpTools", "Outlet", "address_key", "body_seconds", "descriptors",
           "per_address_default", "server_counts", "server_settings"]
