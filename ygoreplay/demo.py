"""The service, shown: a duel recorded through it over HTTP as a scorekeeper's client records
one, a few events at a time, and the viewer links a player would share (``ygoreplay demo``).

The service runs in this process on the given store; the demo talks to it as any client does,
over HTTP with the tokens ``POST /duels`` hands out, so what it prints is what a real table gets.
"""
from __future__ import annotations

import json
import secrets
import socket
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable

from .access import digest
from .addresses import family, url as address_url
from .errors import InputError, YgoreplayError
from .i18n import say
from .events import Event
from .store.reading import Store

#: Events per append: a client sends what happened since its last message.
BATCH = 6


@dataclass
class Demo:
    """The running service and the duel recorded through it."""

    url: str
    duel: dict
    appends: int
    server: Any
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``port``, or on a free one when it is taken."""
    for candidate in (port, 0):
        sock = socket.socket(family(host))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, candidate))
        except OSError:
            sock.close()
            continue
        sock.listen(128)
        return sock
    raise InputError(say("cannot listen on {host}: no free port", host=host))


def start(store: Store, events: list[Event], title: str, host: str = "127.0.0.1", port: int = 8765,
          progress: Callable[[str], None] = lambda _line: None) -> Demo:
    """Serve ``store`` here and record ``events`` through the service; the duel's links."""
    import uvicorn

    from .service import create_app
    from .service.request_head import server_settings
    admin = secrets.token_urlsafe(32)              # this run's organiser token, never stored
    sock = listen(host, port)
    bound = sock.getsockname()[1]
    url = address_url(host, bound)
    server = uvicorn.Server(uvicorn.Config(create_app(store, digest(admin)), log_level="warning", access_log=False,
                                           timeout_graceful_shutdown=2, **server_settings()))
    server.install_signal_handlers = lambda: None   # Ctrl-C is the caller's to handle
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="ygoreplay-demo", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise YgoreplayError(say("the service did not start on {url}", url=url))
        time.sleep(0.02)
    progress(f"ygoreplay service on {url} (store {store.name})")
    duel = _call(url, "POST", "/duels", admin, {"title": title, "visibility": "unlisted"})
    recorder = duel["tokens"]["recorder"]
    appends = 0
    for start_at in range(0, len(events), BATCH):
        batch = [event.to_dict() for event in events[start_at:start_at + BATCH]]
        _call(url, "POST", f"/duels/{duel['id']}/events?expected={start_at}", recorder, batch)
        appends += 1
    return Demo(url, duel, appends, server, thread)


def _call(url: str, method: str, path: str, token: str, body: Any) -> dict:
    request = urllib.request.Request(url + path, data=json.dumps(body).encode(), method=method,
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        try:
            detail = json.loads(error.read())
        except ValueError:
            detail = {}
        where = f" (#{detail['index']} {detail.get('rule')})" if "index" in detail else ""
        said = detail.get("error") or detail.get("message") or f"status {error.code}"
        raise InputError(say("the service refused {method} {path}: {answer}{where}",
                             method=method, path=path.split('?')[0], answer=said, where=where)) from None


__all__ = ["BATCH", "Demo", "start"]
