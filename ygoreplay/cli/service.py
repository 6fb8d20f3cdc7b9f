"""The service from the command line: ``serve`` it, or ``demo`` it with a duel file recorded
through it. The service (FastAPI, uvicorn) is imported only when one of these runs."""
from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import click

from ..addresses import family, in_url
from ..errors import InputError
from ..i18n import t
from ..text import printable
from .common import (
    card_db, cards_option, echo, load_events, main, open_store, signing_key, store_option, witness_option)


def _interruptible() -> None:
    """Let Ctrl-C (SIGINT) stop a command that serves until it: started in the background by a
    script, a process inherits SIGINT ignored (a non-interactive shell's background job)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535))
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64),
              help="Worker processes (PostgreSQL only: they share the store and follow each other).")
@witness_option
@cards_option
@store_option
def serve(host: str, port: int, workers: int, witness_url: str | None, cards: tuple[str, ...],
          store_url: str | None) -> None:
    """Run the HTTP service: record, follow and share duels (OpenAPI at /openapi.json).

    The organiser's token is $YGOREPLAY_ADMIN_TOKEN, else the one printed when this store's
    service first started (it is kept only as a digest)."""
    from ..card_sources import CARDS_ENV
    from ..receipts import WITNESS_ENV, witness_from
    from ..store.reading import Store
    _interruptible()
    import uvicorn
    from ..service import ADMIN_ENV, admin_token, create_app
    from ..service.request_head import server_settings
    with open_store(store_url, create=True) as store:
        if workers > 1 and store.backend != "postgresql":
            raise InputError(t("several workers share a PostgreSQL store; the embedded SQLite store is served by "
                                "one process (drop --workers)"))
        admin, new = admin_token(store)
        name, backend = store.name, store.backend
        witness = witness_from(witness_url, store)     # unreachable now, or the store itself: say so before serving
    own = _reusing(host, port, workers) if workers > 1 else None
    if own:
        port = own[0].getsockname()[1]                 # the one it got for --port 0: say it, not 0
    shown = in_url(host)
    echo(t("ygoreplay service on http://{host}:{port} (store {store}, {workers} worker(s), witness {witness})",
           host=shown, port=port, store=name, workers=workers, witness=witness.name) if witness else
         t("ygoreplay service on http://{host}:{port} (store {store}, {workers} worker(s))",
           host=shown, port=port, store=name, workers=workers), err=True)
    if new:
        echo(t("organiser token (shown once; keep it): {new}", new=new), err=True)
    elif os.environ.get(ADMIN_ENV):
        echo(t("organiser token: ${variable}", variable=ADMIN_ENV), err=True)
    else:
        echo(t("organiser token: the one printed when this store's service first started"), err=True)
    if workers == 1:
        app = create_app(Store(store_url, card_db(cards), key=signing_key(), concurrent=True, create=False), admin,
                         witness)
        uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False, timeout_graceful_shutdown=3,
                    **server_settings())
        return
    card_db(cards)                       # a --cards file that cannot be read stops here, not in a worker
    named = [*os.environ.get(CARDS_ENV, "").split(os.pathsep), *cards]
    if witness is not None:
        witness.close()
        os.environ[WITNESS_ENV] = witness.url
    os.environ.update(YGOREPLAY_STORE=store_url or os.environ.get("YGOREPLAY_STORE", ""),
                      YGOREPLAY_ADMIN_DIGEST=admin, **{CARDS_ENV: os.pathsep.join(f for f in named if f)})
    config = uvicorn.Config("ygoreplay.service:app_from_env", factory=True, host=host, port=port, workers=workers,
                            backlog=BACKLOG, log_level="warning", access_log=False, timeout_graceful_shutdown=3,
                            **server_settings())
    _own_sockets(config, own).run()
    del backend


#: Connections a listening socket holds until its worker accepts them (uvicorn's default).
BACKLOG = 2048


def _own_sockets(config: Any, own: list[Any] | None) -> Any:
    """uvicorn's workers, each accepting on a listening socket of its own, all bound to the one
    port (``SO_REUSEPORT``): the kernel spreads new connections evenly between them. On one
    socket shared by all (``uvicorn.run``), the worker that woke first took whatever was waiting:
    200 recorders connecting at once were split 155 to 45, and one worker's event loop and GIL
    did three quarters of the appends while the other core idled (issue 25). A worker that is
    started again (dead, or ``SIGHUP``) takes its predecessor's socket, whose waiting connections
    it then accepts; one more worker (``SIGTTIN``) gets one more socket, and one fewer (``SIGTTOU``)
    takes its socket with it. ``own`` are the sockets (``_reusing``); where there are none
    (``SO_REUSEPORT`` missing), every worker shares one socket, as uvicorn's."""
    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors.multiprocess import Multiprocess, Process
    if own is None:
        return Multiprocess(config, sockets=[config.bind_socket()])     # and its errors (a port taken)
    sockets: list[Any] = own

    class Workers(Multiprocess):
        def _start(self, index: int) -> Process:
            process = Process(self.config, [sockets[index]])
            process.start()
            return process

        def init_processes(self) -> None:
            self.processes = [self._start(index) for index in range(self.processes_num)]

        def restart_all(self) -> None:
            for index, old in enumerate(self.processes):
                if self.should_exit.is_set():
                    return
                new = self._start(index)
                if not new.wait_until_ready(self.config.timeout_worker_healthcheck, self.should_exit):
                    new.kill()
                    new.join()
                    return
                old.terminate()
                old.join()
                self.processes[index] = new

        def keep_subprocess_alive(self) -> None:
            for index, process in enumerate(self.processes):
                if self.should_exit.is_set() or process.is_alive(timeout=self.config.timeout_worker_healthcheck):
                    continue
                process.kill()
                process.join()
                if process.exitcode == STARTUP_FAILURE:     # broken the same way at every start
                    self.should_exit.set()
                    return
                self.processes[index] = self._start(index)

        def handle_ttin(self) -> None:          # one more worker, on one more socket
            sockets.append(_sharing(self.config.host, sockets[0].getsockname()[1]))
            self.processes_num += 1
            self.processes.append(self._start(len(sockets) - 1))

        def handle_ttou(self) -> None:
            """One fewer worker, and its socket with it (or its share would wait for ever). The
            master lets go of the socket first: it closes as the worker stops accepting, not
            once it has finished its streams and exited, meanwhile taking new connections
            that were reset at the close."""
            if self.processes_num <= 1:
                return
            self.processes_num -= 1
            sockets.pop().close()
            process = self.processes.pop()
            process.terminate()
            process.join()
    return Workers(config, sockets=sockets)


def _reusing(host: str, port: int, count: int) -> list[Any] | None:
    """``count`` sockets listening on ``host`` and ``port`` (a free one when 0), which they
    share (``SO_REUSEPORT``); None when they cannot be bound. The port is first bound alone:
    one another server holds, with ``SO_REUSEPORT`` or not, is refused as before, not shared
    with it."""
    import socket
    if not hasattr(socket, "SO_REUSEPORT"):
        return None
    bound: list[socket.socket] = []
    try:
        with socket.socket(family(host), socket.SOCK_STREAM) as alone:
            alone.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            alone.bind((host, port))
            port = alone.getsockname()[1]
        for _ in range(count):
            bound.append(_sharing(host, port))
    except OSError:
        for sock in bound:
            sock.close()
        return None
    return bound


def _sharing(host: str, port: int) -> Any:
    """A socket listening on ``host`` and ``port`` with ``SO_REUSEPORT``, for a worker to accept
    on. It listens from now, not once its worker starts: a socket bound and not listening does
    not hold the port against a second server's bind (``SO_REUSEADDR``), which then shared it
    with this one, and a connection to it was refused until its worker had started."""
    import socket
    sock = socket.socket(family(host), socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


@main.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--host", default="127.0.0.1", show_default=True, help="The address to listen on.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
              help="The port to listen on (a free one when it is taken).")
@cards_option
@store_option
def demo(path: str, host: str, port: int, cards: tuple[str, ...], store_url: str | None) -> None:
    """Show the service: record a duel file through it over HTTP, a few events at a time as a
    table's client does, print the viewer links, and serve them until Ctrl-C."""
    from ..store.reading import Store
    _interruptible()
    from .. import demo as showing
    # the events a table's client sends, read as ``record`` reads them: a file recorded elsewhere
    # goes in by the import door alone (its signature checked, its provenance imported), never as
    # a live duel "recorded" here
    events, title = load_events(path, cards)[0], printable(Path(path).name)
    with open_store(store_url, create=True):
        pass
    store = Store(store_url, card_db(cards), key=signing_key(), concurrent=True, create=False)
    running = None
    try:
        running = showing.start(store, events, title, host, port, progress=lambda line: echo(line, err=True))
        duel, links = running.duel, running.duel["links"]
        echo(t("recorded {path} through the service: duel {id}, {count} events in {appends} appends",
               path=path, id=duel['id'], count=len(events), appends=running.appends), err=True)
        echo(t("watch it (the spectator link a player shares): {spectator}", spectator=links['spectator']))
        for role, label in (("judge", "as the judge (roll back, branch, every view)"), ("p0", "as player 0"),
                            ("p1", "as player 1")):
            echo(f"{label}: {links[role]}")
        echo(t("serving until Ctrl-C (the duel stays in the store; `ygoreplay serve` serves the same links again)"), err=True)
        while running.thread.is_alive():
            running.thread.join(0.5)
    except KeyboardInterrupt:
        echo(t("stopped"), err=True)
    finally:
        if running is not None:
            running.stop()
        store.close()
