"""One duel's events handed to all the followers of one view at once (``/duels/{id}/follow``,
``/matches/{id}/follow``).

Each follower woke for every event and worked out for itself what its view may see now, when the
next held-back event comes out and whether the duel had ended: a thousand followers of a feature
match did that a thousand times an event, one task after another, and the last was sent it
hundreds of milliseconds after the first. A ``Feed`` (one a duel, view, language and format) wakes
once an event, works that out once, encodes the events once and hands the same bytes to each
follower. Followers of other views (another token, another role) have feeds of their own: no
bytes cross views.

Handed how: a follower caught up on a connection of the service's own protocol
(``request_head.Outlet``) is written to by the feed itself, the chunk framed once for every
such follower and written straight to each connection's transport, in the feed's one task: no
follower's task wakes for an event, and no event goes through a follower's ASGI send (its
middleware's sends, uvicorn's framing and copy, each a coroutine a follower an event: the
fan-out's cost that grew with the followers, issue 25). Any other follower (one still sending
what came before, one whose duel's access record changed since its token was last asked about,
one over another server) is handed the chunk in its queue and its task sends it.

What a follower is not sent yet is bounded (``QUEUED`` bytes, its queue or its connection's
unsent buffer): one whose reader does not keep up is sent what it holds, then told it fell
behind (``event: behind``, ``data: {"from": N}``) and its stream ends; it resumes with
``Last-Event-ID``, as every ``EventSource`` does by itself. Never memory that grows with a
reader that does not read, and never a wait of the feed on one reader.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Any, AsyncIterator, Awaitable, Callable

from ..live import LiveDuel, LiveView

LOG = logging.getLogger("ygoreplay")

#: The bytes a follower's queue (or its connection's unsent buffer) holds at most (one chunk more
#: when it was empty): past them it is told it fell behind and to resume from its last event.
QUEUED = 1 << 20

#: Followers a feed writes to in one turn of the event loop: each write is a system call (~25 us
#: of CPU), so a crowd of 2,000 is written in turns of the loop, not in one ~50 ms stretch that
#: holds every other request (an append's answer, another duel's followers) behind it.
TURN = 256

KEEPALIVE_COMMENT = b": keepalive\n\n"
RETRY = b"retry: 2000\n\n"
END = b"event: end\ndata: {}\n\n"


class Connection:
    """Where a stream is answered, as its response learns it (``common.EventStream``): ``outlet``,
    the connection a feed may write to itself (``request_head.Outlet``), or None (another server,
    a test reading the stream's chunks)."""

    __slots__ = ("outlet",)

    def __init__(self) -> None:
        self.outlet: Any = None


def framed(chunk: bytes) -> bytes:
    """``chunk`` as one chunk of a chunked HTTP/1.1 body (what uvicorn's send makes of it)."""
    return b"%x\r\n%b\r\n" % (len(chunk), chunk)


class Follower:
    """One follower's share of a feed: the chunks handed to it, not yet sent, in order; or, while
    it is caught up on a connection the feed may write to (``outlet``), nothing: the feed writes."""

    __slots__ = ("chunks", "size", "waiter", "position", "behind", "ended", "woken", "outlet", "seen")

    def __init__(self, position: int) -> None:
        self.chunks: deque[tuple[int, int, bytes]] = deque()
        self.size = 0
        self.waiter: asyncio.Future | None = None
        self.position = position         # the first event it has not been handed
        self.behind: int | None = None   # fell behind: the first event it was not handed
        self.ended = False
        self.woken = False
        self.outlet: Any = None          # written to by the feed (``request_head.Outlet``) while set
        self.seen: int | None = None     # the access version its token was last let in on (None: never asked)

    def push(self, start: int, stop: int, chunk: bytes) -> None:
        """Hand it events ``start`` to ``stop`` as ``chunk`` (shared with the view's other followers)."""
        self.outlet = None               # its task sends, in order, until it has nothing left to
        if self.behind is not None:
            return
        if self.chunks and self.size + len(chunk) > QUEUED:
            self.behind = self.position
        else:
            self.chunks.append((start, stop, chunk))
            self.size += len(chunk)
            self.position = max(self.position, stop)
        self.wake()

    def end(self) -> None:
        self.outlet = None
        self.ended = True
        self.wake()

    def wake(self) -> None:
        self.woken = True
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def take(self) -> tuple[int, int, bytes] | None:
        if not self.chunks:
            return None
        item = self.chunks.popleft()
        self.size -= len(item[2])
        return item

    def write_through(self, outlet: Any) -> None:
        """From now on written to by its feed on ``outlet`` (None, or one not open: never), while it
        has nothing of its own left to send: called once its task's last send is written."""
        if outlet is not None and not self.chunks and self.behind is None and not self.ended and outlet.open():
            self.outlet = outlet

    async def wait(self) -> None:
        """Until it is handed something, or ended, or told it fell behind, or woken to ask whether
        it may read on (``Hub._access_heard``)."""
        if not self.woken:
            self.waiter = asyncio.get_running_loop().create_future()
            try:
                await self.waiter
            finally:
                self.waiter = None
        self.woken = False


class Feed:
    """The events of one view of one duel, from ``position`` on, handed to its followers as the
    view may see them: one wake-up, one ``visible`` and one encoding an event, whatever the count
    of followers. Runs while it has followers; the last to leave stops it."""

    def __init__(self, hub: Any, live: LiveDuel, live_view: LiveView | None, view: str,
                 encode: Callable[[int, int], list[bytes]], keepalive: float, gone: Callable[[], None]) -> None:
        self.hub, self.live, self.live_view, self.view = hub, live, live_view, view
        self.encode, self.keepalive, self.gone = encode, keepalive, gone
        self.followers: set[Follower] = set()
        self.position = self.visible(time.time())
        self.task: asyncio.Task | None = None

    def join(self, position: int) -> Follower:
        """A follower from ``position``: handed every event from this feed's position on (the
        events before it, from its own ``position``, it sends itself from the view's steps)."""
        follower = Follower(max(position, self.position))
        self.followers.add(follower)
        if self.task is None:
            self.task = asyncio.ensure_future(self._run())
        return follower

    def leave(self, follower: Follower) -> None:
        follower.outlet = None
        self.followers.discard(follower)
        if not self.followers:
            self.gone()                      # a follower that comes next starts a feed of its own
            if self.task is not None:
                self.task.cancel()

    # what the view may see: a duel's view (held back by its delay); a match's (``MatchFeed``)
    def visible(self, clock: float) -> int:
        return self.live.visible(self.view, clock)

    async def fill(self, visible: int) -> None:
        if self.live_view is not None and len(self.live_view.steps) < visible:
            await self.live.catch_up(self.view, visible)

    def done(self, clock: float) -> bool:
        live = self.live
        return live.ended and self.position >= live.count and not live.holds_back(self.view, clock)

    def release(self, clock: float) -> float | None:
        return self.live.next_release(self.view, clock)

    def version(self) -> int:
        """The duel's access version its followers' tokens must have been let in on to be written
        to by the feed; -1, none, while a change of the record is heard and not yet read
        (``LiveDuel.settings_due``): a follower's task asks first."""
        live = self.live
        return -1 if live.settings_due() else live.access_version

    async def hand(self, start: int, stop: int, chunk: bytes) -> None:
        """Events ``start`` to ``stop`` as ``chunk`` to each follower: written to its connection by
        the feed when it is caught up there (framed once for all) and its token was let in on the
        access version the duel has now; else queued for its task. One whose connection holds
        ``QUEUED`` bytes unsent is told it fell behind. Written ``TURN`` followers a turn of the
        loop, the first after one turn: the append that woke the feed is answered first (its
        answer was due in the same turn; the writes before it held its recorder for them)."""
        whole = None
        followers = list(self.followers)     # one who joins meanwhile sends these from the view's steps
        for at in range(0, len(followers), TURN):
            await asyncio.sleep(0)
            version = self.version()
            for follower in followers[at:at + TURN]:
                outlet = follower.outlet
                if outlet is not None and follower.position == start and (
                        follower.seen is None or follower.seen == version):
                    if whole is None:
                        whole = framed(chunk)
                    if outlet.write(whole, QUEUED):
                        follower.position = stop
                    else:                    # its reader does not keep up: its task says so and ends
                        follower.outlet = None
                        follower.behind = start
                        follower.wake()
                else:
                    follower.push(start, stop, chunk)

    async def _run(self) -> None:
        live = self.live
        loop = asyncio.get_running_loop()
        next_keepalive = loop.time() + self.keepalive      # a clock of its own: says nothing of a delay
        alarm = self.hub.alarm(live.id)
        try:
            while self.followers:
                alarm.arm()                  # before reading: a change while it hands out wakes it
                clock = time.time()
                visible = self.visible(clock)
                if self.position < visible:
                    await self.fill(visible)
                    start, self.position = self.position, visible
                    await self.hand(start, visible, b"".join(self.encode(start, visible)))
                if self.done(clock):
                    for follower in self.followers:
                        follower.end()
                    return
                now = loop.time()
                if now >= next_keepalive:
                    await self.hand(self.position, self.position, KEEPALIVE_COMMENT)
                    next_keepalive = now + self.keepalive
                release = self.release(clock)
                await alarm.wait(min(next_keepalive, now + release) if release is not None else next_keepalive)
        except asyncio.CancelledError:
            raise
        except Exception:                    # its followers end (and come back), never hang
            LOG.exception("ygoreplay: the feed of %s (%s) failed", live.id, self.view)
            for follower in self.followers:
                follower.end()
        finally:
            alarm.close()
            self.gone()


class MatchFeed(Feed):
    """A match's events as one view has them (``LiveMatch.view_events``): never held back, done
    once the match has its result and every event was handed out."""

    def visible(self, clock: float) -> int:
        return self.live.count

    def done(self, clock: float) -> bool:
        return self.live.state().ended is not None and self.position >= self.live.count

    def release(self, clock: float) -> float | None:
        return None

    def version(self) -> int:
        return 0


async def sent(follower: Follower, connection: Connection | None, chunk: bytes, position: int,
               partial: Callable[[int, int], list[bytes]],
               check: Callable[[], Awaitable[bool]] | None = None) -> AsyncIterator[bytes]:
    """What a follower's task sends: ``chunk`` (what came before it joined) from ``position``, then,
    each time it wakes, what its feed queued for it, until its feed ends it (``END``) or it falls
    behind (``behind_event``); while it has nothing to send, its feed writes to its
    ``connection``'s outlet itself (``Follower.write_through``; None: never). ``partial(start, stop)``: the events ``start`` to ``stop``
    encoded for it alone (it asked from past its feed's position). ``check`` (when given), asked
    on every wake-up (a change of the duel's access record heard wakes it, ``Hub._access_heard``):
    False ends the stream, sending nothing more."""
    while True:
        if chunk:
            yield chunk
        follower.write_through(connection.outlet if connection is not None else None)
        await follower.wait()
        if check is not None and not await check():
            return
        parts = []
        while (item := follower.take()) is not None:
            start, stop, shared = item
            if start >= position or start == stop:
                parts.append(shared)
            elif stop > position:            # (it asked from past the feed's position)
                parts += partial(position, stop)
            position = max(position, stop)
        chunk = b"".join(parts)
        if follower.behind is not None:
            yield chunk + behind_event(follower.behind)
            return
        if follower.ended and not follower.chunks:
            yield chunk + END
            return


def behind_event(position: int) -> bytes:
    """What a follower that fell behind is told last: where to resume from."""
    return b'event: behind\ndata: {"from": %d}\n\n' % position


__all__ = ["END", "Connection", "Feed", "Follower", "MatchFeed", "QUEUED", "RETRY", "behind_event", "framed", "sent"]
