"""One duel's events handed to all the followers of one view at once (``/duels/{id}/follow``).

Each follower woke for every event and worked out for itself what its view may see now, when the
next held-back event comes out and whether the duel had ended: a thousand followers of a feature
match did that a thousand times an event, one task after another, and the last was sent it
hundreds of milliseconds after the first. A ``Feed`` (one a duel, view, language and format) wakes
once an event, works that out once, encodes the events once and hands the same bytes to each
follower's queue: what a follower's task does an event is one send. Followers of other views
(another token, another role) have feeds of their own: no bytes cross views.

A follower's queue is bounded (``QUEUED`` bytes): one whose reader does not keep up is sent what
it holds, then told it fell behind (``event: behind``, ``data: {"from": N}``) and its stream
ends; it resumes with ``Last-Event-ID``, as every ``EventSource`` does by itself. Never memory
that grows with a reader that does not read.
"""
from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Any, Callable

from ..live import LiveDuel, LiveView

LOG = logging.getLogger("ygoreplay")

#: The bytes a follower's queue holds at most (one chunk more when it was empty): past them it is
#: told it fell behind and to resume from its last event.
QUEUED = 1 << 20

KEEPALIVE_COMMENT = b": keepalive\n\n"


class Follower:
    """One follower's share of a feed: the chunks handed to it, not yet sent, in order."""

    __slots__ = ("chunks", "size", "waiter", "position", "behind", "ended", "woken")

    def __init__(self, position: int) -> None:
        self.chunks: deque[tuple[int, int, bytes]] = deque()
        self.size = 0
        self.waiter: asyncio.Future | None = None
        self.position = position         # the first event it has not been handed
        self.behind: int | None = None   # fell behind: the first event it was not handed
        self.ended = False
        self.woken = False

    def push(self, start: int, stop: int, chunk: bytes) -> None:
        """Hand it events ``start`` to ``stop`` as ``chunk`` (shared with the view's other followers)."""
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

    async def wait(self, timeout: float | None = None) -> None:
        """Until it is handed something (or ended, or told it fell behind), or ``timeout`` seconds
        (a follower whose token may be taken back looks at the duel's access record that often)."""
        if not self.woken:
            self.waiter = asyncio.get_running_loop().create_future()
            try:
                await asyncio.wait((self.waiter,), timeout=timeout)
            finally:
                self.waiter = None
        self.woken = False


class Feed:
    """The events of one view of one duel, from ``position`` on, handed to its followers as the
    view may see them: one wake-up, one ``visible`` and one encoding an event, whatever the count
    of followers. Runs while it has followers; the last to leave stops it."""

    def __init__(self, hub: Any, live: LiveDuel, live_view: LiveView, view: str,
                 encode: Callable[[int, int], list[bytes]], keepalive: float, gone: Callable[[], None]) -> None:
        self.hub, self.live, self.live_view, self.view = hub, live, live_view, view
        self.encode, self.keepalive, self.gone = encode, keepalive, gone
        self.followers: set[Follower] = set()
        self.position = live.visible(view)
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
        self.followers.discard(follower)
        if not self.followers:
            self.gone()                      # a follower that comes next starts a feed of its own
            if self.task is not None:
                self.task.cancel()

    async def _run(self) -> None:
        live, view = self.live, self.view
        loop = asyncio.get_running_loop()
        next_keepalive = loop.time() + self.keepalive      # a clock of its own: says nothing of a delay
        alarm = self.hub.alarm(live.id)
        try:
            while self.followers:
                alarm.arm()                  # before reading: a change while it hands out wakes it
                clock = time.time()
                visible = live.visible(view, clock)
                if self.position < visible:
                    if len(self.live_view.steps) < visible:
                        await live.catch_up(view, visible)
                    start, self.position = self.position, visible
                    chunk = b"".join(self.encode(start, visible))
                    for follower in self.followers:
                        follower.push(start, visible, chunk)
                if live.ended and self.position >= live.count and not live.holds_back(view, clock):
                    for follower in self.followers:
                        follower.end()
                    return
                now = loop.time()
                if now >= next_keepalive:
                    for follower in self.followers:
                        follower.push(self.position, self.position, KEEPALIVE_COMMENT)
                    next_keepalive = now + self.keepalive
                release = live.next_release(view, clock)
                await alarm.wait(min(next_keepalive, now + release) if release is not None else next_keepalive)
        except asyncio.CancelledError:
            raise
        except Exception:                    # its followers end (and come back), never hang
            LOG.exception("ygoreplay: the feed of %s (%s) failed", live.id, view)
            for follower in self.followers:
                follower.end()
        finally:
            alarm.close()
            self.gone()


def behind_event(position: int) -> bytes:
    """What a follower that fell behind is told last: where to resume from."""
    return b'event: behind\ndata: {"from": %d}\n\n' % position


__all__ = ["Feed", "Follower", "QUEUED", "behind_event"]
