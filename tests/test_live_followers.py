"""Live followers of one duel served by several processes (``live.Hub``): what another process
stores is taken in by reader threads, one duel's read never held up behind another's, and every
follower gets every event once, in order, as its view may see it."""
from __future__ import annotations

import asyncio
import collections
import enum
import itertools
import json
import re
import threading
import time

import pytest

from ygoreplay.jsonl import read_events
from ygoreplay import live as live_module
from ygoreplay.live import VIEWS, Hub, LiveDuel
from ygoreplay.service.common import _jsonable, event_json
from ygoreplay.service.duels import _sse
from ygoreplay.store import Store

from test_store import DAMAGE, REPLAYS, fresh_url

EVENTS = read_events(REPLAYS / DAMAGE)


def _until(condition, what: str, seconds: float = 30.0) -> None:
    """Wait for ``condition()`` (a notification crosses PostgreSQL); fail saying ``what`` if it never holds."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_a_read_of_another_processs_append_holds_up_no_other_duel(tmp_path, monkeypatch):
    """The listener read each duel another process appended to itself, one after another: the
    last duel of a burst waited for every read before it (100-600 ms under load). A read held
    up now holds up its own duel only; what is stored meanwhile is read after it, once, in order."""
    with fresh_url("postgresql", tmp_path / "x.sqlite", "live") as url, \
            Store(url, concurrent=True) as writer, Store(url, concurrent=True) as reader:
        slow, other = writer.create_duel("slow"), writer.create_duel("other")
        hub = Hub(reader)
        loop = asyncio.new_event_loop()           # its wake-ups are only queued: nobody waits here
        hub.start(loop)
        try:
            for duel in (slow, other):
                hub.get(duel).followers = 1       # followed here: read at once
            held, release = threading.Event(), threading.Event()
            real = reader.chained_after
            reads: list[tuple[str, int]] = []

            def chained_after(duel_id: str, count: int, prev: bytes):
                reads.append((duel_id, count))
                if duel_id == slow and not release.is_set():
                    held.set()
                    release.wait(60)
                return real(duel_id, count, prev)
            monkeypatch.setattr(reader, "chained_after", chained_after)
            writer.append(slow, EVENTS[:1], expected_position=0)
            assert held.wait(30), "the other process's append is read"
            writer.append(other, EVENTS[:4], expected_position=0)
            _until(lambda: hub.duels[other].count == 4, "a duel is read while another duel's read is held up")
            assert hub.duels[slow].count == 0
            writer.append(slow, EVENTS[1:3], expected_position=1)
            writer.append(slow, EVENTS[3:6], expected_position=3)
            _until(lambda: hub._reading.get(slow) is True, "notified again while its read is held up")
            release.set()
            _until(lambda: hub.duels[slow].count == 6, "what was stored meanwhile is read after it")
            assert [r.position for r in hub.duels[slow].records] == list(range(6)), "once each, in order"
            assert [r.event for r in hub.duels[slow].records] == list(EVENTS[:6])
            assert sum(1 for duel, _ in reads if duel == slow) <= 3, "notifications meanwhile: one read more"
            # the reader marks its read done just after its last read (in its thread): waited for
            _until(lambda: not hub._reading, "no read left marked under way")
        finally:
            hub.stop()
            loop.close()


def test_followers_of_two_processes_get_every_event_once_in_order_and_redacted(tmp_path):
    """Several duels recorded at once, each one's appends alternating between two service
    processes on one PostgreSQL store: a follower of each view on each process gets every
    event once, in order (its own process's appends handed in, the other's read by a reader
    thread), and a spectator's or a player's stream holds no passcode its view never shows."""
    import httpx
    from test_service import Follower, Server, auth, create
    from test_views import SET_UP, encodings, events_of, never_public
    events = [e.to_dict() for e in events_of(SET_UP)]
    streams = (("spectator", "follow"), ("p0", "follow"), ("spectator", "follow?format=frames"))
    with fresh_url("postgresql", tmp_path / "x.sqlite", "live") as url:
        servers = [Server(url), Server(url)]
        try:
            duels = [create(servers[0].url, title=f"table {i}", release="never") for i in range(3)]
            followers: list[tuple[str, Follower]] = []
            for duel in duels:
                for server in servers:
                    for view, stream in streams:
                        follower = Follower(f"{server.url}/duels/{duel['id']}/{stream}", auth(duel["tokens"][view]))
                        follower.start()
                        assert follower.ready.wait(20) and follower.status == 200
                        followers.append((view, follower))
            failures: list[str] = []

            def record(duel: dict) -> None:
                position = 0
                for turn, i in enumerate(range(0, len(events), 3)):       # each append to the other process
                    r = httpx.post(f"{servers[turn % 2].url}/duels/{duel['id']}/events?expected={position}",
                                   json=events[i:i + 3], headers=auth(duel["tokens"]["recorder"]), timeout=60)
                    if r.status_code != 200:
                        failures.append(r.text)
                        return
                    position = r.json()["position"]
            recorders = [threading.Thread(target=record, args=(duel,)) for duel in duels]
            for recorder in recorders:
                recorder.start()
            for recorder in recorders:
                recorder.join(120)
            assert not failures, failures
            _until(lambda: all(len(f.received) >= len(events) for _, f in followers),
                   "every follower is sent every event", 60)
            for view, follower in followers:
                assert [i for i, _, _ in follower.received] == list(range(len(events))), "once each, in order"
                hidden = never_public(SET_UP, view)
                assert hidden, "the duel has cards this view never sees"
                haystack = "\n".join(json.dumps(data) for _, data, _ in follower.received).encode()
                assert not [code for code in hidden if any(p in haystack for p in encodings(code))], view
        finally:
            for server in servers:
                server.stop()



def test_a_followers_event_is_the_text_the_walk_wrote(tmp_path):
    """A step's Server-Sent Event is encoded by the C encoder in one pass (``event_json``), no
    longer after a copy of the whole step walked in Python (``_jsonable``): the same bytes, for
    every step of every view, in both formats; a bytes value as hex, anything else refused."""
    from test_views import SET_UP, events_of
    with Store(str(tmp_path / "x.sqlite")) as store:
        for events in (events_of(SET_UP), EVENTS):
            duel = store.create_duel("t")
            store.append(duel, events)
            live = LiveDuel(store, duel)
            for view in VIEWS:
                steps = live.view(view).steps
                assert len(steps) == live.count
                for step, frames in itertools.product(steps, (False, True)):
                    data = step.frame(live.count) if frames else step.to_dict(live.count)
                    walked = json.dumps(_jsonable(data), ensure_ascii=False)
                    assert _sse(step, frames, live.count) == f"id: {step.position}\nevent: event\ndata: {walked}\n\n".encode()
    odd = {"name": "Dunkelheit ダーク", "ids": (1, 2), "hash": [b"\x00\xff"], "none": None, "lp": 7.5}
    assert event_json(odd) == json.dumps(_jsonable(odd), ensure_ascii=False)
    with pytest.raises(TypeError, match="set is not JSON serializable"):
        event_json({"codes": {1}})


@pytest.mark.parametrize("value", [
    {"nan": float("nan"), "inf": [float("inf"), float("-inf")], "zero": -0.0, "big": 10 ** 300, "tiny": 5e-324},
    {1: "a", "1": "b", True: None, None: 2.5, 1.5: (b"", ())},          # keys JSON writes as text
    {"nested": ({"k": [b"\x01", ("t", [b"\xfe"])]},), "kind": enum.IntEnum("K", "A B").B},
    collections.OrderedDict(deck=collections.namedtuple("Pair", "code count")(91152256, 3)),
    {"name": "\u00e9\u4e00\U0001f600\u2028\x7f\x00\"\\"},
])
def test_event_json_writes_what_the_walk_wrote_for_every_kind_of_value(value):
    """The C encoder's one pass against the walk it replaced (``_jsonable`` then ``json.dumps``),
    on what a view's event may hold: NaN and infinities, huge numbers, non-text keys, tuples and
    named tuples, nested bytes, int enums, non-ASCII and control characters."""
    assert event_json(value) == json.dumps(_jsonable(value), ensure_ascii=False)


@pytest.mark.parametrize("value, error", [
    ({"name": "\ud800"}, UnicodeEncodeError),           # a lone surrogate: no bytes to send, either way
    ({"big": 10 ** 5000}, ValueError),                    # past Python's digits limit, either way
    ({b"key": 1}, TypeError), ({(1, 2): 1}, TypeError),   # keys JSON has no text for
    ({"buffer": bytearray(b"x")}, TypeError),
])
def test_event_json_refuses_what_the_walk_refused(value, error):
    with pytest.raises(error):
        json.dumps(_jsonable(value), ensure_ascii=False).encode()
    with pytest.raises(error):
        event_json(value).encode()


def test_a_followers_wake_up_never_waits_on_the_loop_for_a_views_lock(tmp_path, monkeypatch):
    """A follower's wake-up fed its view in the event loop under the view's lock: while a thread
    held it (a new follower's catch-up, a page's request; a player's view: the duel's append
    taken in around a store read), the loop stood still for every follower of every duel. Now a
    step or a few are fed in the loop only when the lock is free; else, or for a long catch-up,
    one thread feeds the view for all its followers while the loop goes on."""
    with Store(str(tmp_path / "x.sqlite")) as store:
        duel = store.create_duel("t")
        store.append(duel, EVENTS[:20])
        live = LiveDuel(store, duel)
        assert live.view("spectator", 0).steps == []
        threads: list[int] = []
        real = live.view
        monkeypatch.setattr(live, "view", lambda name, upto=None: threads.append(upto) or real(name, upto))
        held, release = threading.Event(), threading.Event()

        def hold() -> None:
            with live.spectating:
                held.set()
                release.wait(60)

        async def follow() -> None:
            await live.catch_up("spectator", 2)            # two behind, the lock free: fed in the loop
            assert len(live.views["spectator"].steps) == 2 and threads == []
            holder = threading.Thread(target=hold)
            holder.start()
            assert await asyncio.to_thread(held.wait, 30)
            waiting = asyncio.ensure_future(live.catch_up("spectator", 3))   # one behind, the lock held
            for _ in range(20):
                await asyncio.sleep(0)                     # the loop goes on meanwhile
            assert not waiting.done() and len(live.views["spectator"].steps) == 2
            release.set()
            await waiting
            holder.join()
            assert len(live.views["spectator"].steps) == 3 and threads == [3]
            crowd = [asyncio.ensure_future(live.catch_up("spectator", 20)) for _ in range(50)]
            await asyncio.gather(*crowd)                   # far behind: one thread for all of them
            assert threads == [3, 20]
            assert [s.position for s in live.views["spectator"].steps] == list(range(20))
        asyncio.run(follow())
        shared = [step.to_dict() for step in live.views["spectator"].steps]
        assert shared == [step.to_dict() for step in LiveDuel(store, duel).view("spectator").steps], \
            "fed in the loop or in a thread, shared by every follower: the spectator's own redaction"


def test_a_follower_of_a_duel_evicted_while_it_connected_is_sent_its_appends(tmp_path, monkeypatch):
    """A follower's request got its duel, then made its view in a thread: an idle duel, it could
    be evicted meanwhile (other duels opened), and the follower was counted on a duel no append
    reached any more (keep-alives for ever). It is counted on the duel the hub keeps now: put
    back and read again at its next wake-up, or the one made since."""
    monkeypatch.setattr(live_module, "IDLE_DUELS", 2)
    with Store(str(tmp_path / "x.sqlite")) as store:
        hub = Hub(store)
        duel = store.create_duel("followed")
        connected = hub.get(duel)
        connected.view("p0")
        for i in range(3):                                 # opened while its view was made
            hub.get(store.create_duel(f"other {i}"))
        assert duel not in hub.duels
        store.append(duel, EVENTS[:2])                     # stored meanwhile: nobody here was told
        assert hub.follow(connected) is connected and connected.followers == 1
        for i in range(3):
            hub.get(store.create_duel(f"more {i}"))
        assert hub.duels[duel] is connected, "followed: kept"
        asyncio.run(hub.wait(duel, 30))                    # its next wake-up reads what was stored
        assert connected.count == 2 and len(connected.views["p0"].steps) == 2
        store.append(duel, EVENTS[2:4], expected_position=2)
        hub.changed(duel)
        assert [s.position for s in connected.views["p0"].steps] == [0, 1, 2, 3]
        connected.followers -= 1                           # it left; evicted again, then opened anew
        for i in range(3):
            hub.get(store.create_duel(f"last {i}"))
        made = hub.get(duel)
        assert made is not connected
        assert hub.follow(connected) is made and made.followers == 1 and connected.followers == 0


def test_a_follower_of_a_match_evicted_while_it_connected_is_sent_its_appends(tmp_path, monkeypatch):
    """The same for a match: its follower's request got the match (``match_caller``, in a
    thread), and its stream counted it as followed only once the response began; an idle
    match, it could be evicted meanwhile (other matches opened), and every append then reached
    a copy made since, never the follower's: keep-alives for ever. It is counted on the match
    the hub keeps now (``Hub.follow``): put back and read again at its next wake-up, or the one
    made since."""
    import httpx
    from test_match_service import MATCHES, lines, match_body
    from test_release import ADMIN
    from ygoreplay.access import digest
    from ygoreplay.service import create_app
    from ygoreplay.service import matches
    from ygoreplay.service.core import _Lease

    monkeypatch.setattr(live_module, "IDLE_DUELS", 2)
    sample = lines(MATCHES / "two-nil.jsonl")
    store = Store(str(tmp_path / "x.sqlite"), concurrent=True)
    app = create_app(store, digest(ADMIN))
    service = app.state.service

    async def run() -> None:
        service.hub.start(asyncio.get_running_loop())
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://test",
                                     headers={"Authorization": f"Bearer {ADMIN}"}) as client:
            async def opened(title: str) -> str:
                made = await client.post("/matches", json=match_body(sample, title=title))
                assert made.status_code == 201, made.text
                match_id = made.json()["id"]
                await asyncio.to_thread(service.hub.match, match_id)
                return match_id

            async def call(match_id: str, player: int) -> None:
                r = await client.post(f"/matches/{match_id}/judge-calls", json={"player": player, "judge": "J"})
                assert r.status_code == 200, r.text

            followed = await opened("followed")
            connected = await asyncio.to_thread(service.hub.match, followed)    # as its caller got it
            known = connected.count
            for i in range(3):                                   # opened before its stream began
                await opened(f"other {i}")
            assert followed not in service.hub.matches
            await call(followed, 0)                              # appended meanwhile, to a copy
            for i in range(3):
                await opened(f"more {i}")
            assert followed not in service.hub.matches, "the copy the append made is evicted too"
            stream = matches._stream(service, connected, "judge", 0, _Lease(service.streams, "test", followed))
            try:
                first = (await anext(stream)).decode()           # what came before it joined, in one send
                assert first.startswith("retry: 2000\n\n")
                assert [int(n) for n in re.findall(r"^id: (\d+)$", first, re.M)] == list(range(known))
                for i in range(3):                               # opened while it is followed
                    await opened(f"last {i}")
                assert service.hub.matches[followed] is connected, "followed: kept"
                sent = (await asyncio.wait_for(anext(stream), 30)).decode()
                assert sent.startswith(f"id: {known}\n") and "judge_called" in sent, \
                    f"what was appended meanwhile reaches it at its first wake-up, not {sent!r}"
                await call(followed, 1)
                sent = (await asyncio.wait_for(anext(stream), 30)).decode()
                assert sent.startswith(f"id: {known + 1}\n") and "judge_called" in sent, \
                    f"an append reaches its follower, not {sent!r}"
            finally:
                await stream.aclose()
            assert connected.followers == 0                      # it left; evicted again, then opened anew
            for i in range(3):
                await opened(f"gone {i}")
            made = await asyncio.to_thread(service.hub.match, followed)
            assert made is not connected
            assert service.hub.follow(connected) is made and made.followers == 1 and connected.followers == 0
    try:
        asyncio.run(run())
    finally:
        service.hub.stop()
        store.close()


def test_an_append_wakes_the_loop_only_for_a_duel_someone_waits_on(tmp_path):
    """Every append taken in asked the event loop to wake the duel's followers, from its thread:
    a write to the loop's pipe and a turn of the loop on every append, with no follower at all
    (issue 25). Now only a duel someone waits on (an armed ``Alarm``) wakes the loop; a follower
    that arms after the append reads it."""
    with Store(str(tmp_path / "x.sqlite")) as store:
        duel = store.create_duel("t")
        hub = Hub(store)
        asked: list[tuple] = []

        class Loop:                       # what a thread asks of the event loop, kept
            def call_soon_threadsafe(self, callback, *args):
                asked.append(args)
        hub.start(Loop())
        hub.appending(duel, lambda: store.append_records(duel, EVENTS[:1], expected_position=0))
        assert hub.get(duel).count == 1 and asked == [], "nobody waits: the loop is not woken"

        async def follow() -> None:
            hub.start(asyncio.get_running_loop())
            alarm = hub.alarm(duel)
            alarm.arm()                   # a follower, before it reads the duel
            await asyncio.to_thread(hub.appending, duel,
                                    lambda: store.append_records(duel, EVENTS[1:2], expected_position=1))
            loop = asyncio.get_running_loop()
            await asyncio.wait_for(alarm.wait(loop.time() + 3600), 60)     # woken by the append, not its clock
            alarm.close()
            assert hub._waiters == {}
        asyncio.run(follow())
        assert hub.get(duel).count == 2


def test_the_heads_are_read_in_the_listening_thread_and_after_a_lost_connection(tmp_path):
    """``Store.subscribe`` ran eventsourcing's subscription: two threads more in every worker,
    each read handed from one to the other and on, its SQL composed again and every anchor's
    whole state fetched (issue 25); a lost listening connection ended it for good. The heads
    written after ``after`` are read by the thread that iterates, in order, woken by NOTIFY; a
    lost connection is made again and what was written meanwhile is read then."""
    from test_store import _pg_connect
    with fresh_url("postgresql", tmp_path / "x.sqlite", "live") as url, \
            Store(url, concurrent=True) as writer, Store(url, concurrent=True) as reader:
        before = writer.create_duel("before")
        writer.append(before, EVENTS[:1], expected_position=0)
        after = reader.last_notification()
        duel = writer.create_duel("followed")
        writer.append(duel, EVENTS[:2], expected_position=0)        # before it listens: read first
        threads = threading.active_count()
        heads = reader.subscribe(after)
        with heads:
            assert [next(heads), next(heads)] == [(duel, 0), (duel, 2)]      # made, then appended to
            assert threading.active_count() == threads
            writer.append(duel, EVENTS[2:3], expected_position=2)
            writer.append(before, EVENTS[1:2], expected_position=1)
            assert [next(heads), next(heads)] == [(duel, 3), (before, 2)]
            with _pg_connect() as admin:                            # its connection lost
                admin.execute("SELECT pg_terminate_backend(%s)", (heads._conn.info.backend_pid,))
            writer.append(duel, EVENTS[3:4], expected_position=3)
            assert next(heads) == (duel, 4)
            heads.stop()
            with pytest.raises(StopIteration):
                next(heads)
        assert heads._conn is None
