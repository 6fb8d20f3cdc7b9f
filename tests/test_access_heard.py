"""Issue 25, twenty-fourth pass: a duel's access record changed by another process reaches a
worker that holds the duel as an append does (the store's heads tell it: ``ACCESS_TOPIC``,
``Hub._heard``), not by a read of it once a second a duel held, made on the event loop (the paced
p99 84 → 262 ms), nor by every follower waking once a second to look at it. The record is never
read on the event loop: a request of a duel whose record is to be read again reads it in a thread
(an append in its own one hop). The once-a-second reads are turned off here (an hour), so that
only a change heard can cut off a follower or refuse a request."""
from __future__ import annotations

import asyncio
import threading

import httpx
import pytest

from test_release import ADMIN as ORGANISER
from test_store import fresh_url
from test_visibility_everywhere import RUNNING
from ygoreplay import live as live_module
from ygoreplay.access import Access, digest
from ygoreplay.application import Records
from ygoreplay.events import from_dict
from ygoreplay.service import core, create_app, duels
from ygoreplay.service.common import HTTPError
from ygoreplay.store import Store

#: Seconds a change is waited for before it is called never heard (a liveness bound, not a timing).
WAIT = 20
HOUR = 3600.0


@pytest.fixture
def no_polling(monkeypatch):
    """No access record read again, nor follower woken, on a clock within the test."""
    monkeypatch.setattr(live_module, "SETTINGS_READ", HOUR)
    monkeypatch.setattr(live_module, "SETTINGS_SAFETY", HOUR, raising=False)
    monkeypatch.setattr(duels, "SETTINGS_READ", HOUR, raising=False)
    monkeypatch.setattr(duels, "KEEPALIVE", HOUR)


def _request(duel: str, method: str = "GET", path: str = "follow", token: str | None = None):
    from starlette.requests import Request
    headers = [(b"authorization", f"Bearer {token}".encode())] if token else []
    return Request({"type": "http", "method": method, "path": f"/duels/{duel}/{path}", "headers": headers,
                    "query_string": b""})


def _on_loop() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _reads_of_access(store: Store) -> list[bool]:
    """Each read of a stream's access record by ``store``: whether it was made on an event loop."""
    reads: list[bool] = []
    real = store.attachment

    def attachment(stream_id: str, name: str):
        if name == "access":
            reads.append(_on_loop())
        return real(stream_id, name)
    store.attachment = attachment
    return reads


def _recorded(url: str, visibility: str) -> tuple[str, dict]:
    access, tokens = Access.issue(visibility, 0, 0.0)
    with Store(url, concurrent=True) as writer:
        duel = Records(writer).record([from_dict(e, "ev") for e in RUNNING], "t",
                                      attachments={"access": access.to_dict()}).id
    assert duel is not None
    return duel, tokens


async def _refused(duel: str, request, served) -> bool:
    """Whether the caller of ``request`` is refused now (``duel_caller``, as every route asks it)."""
    try:
        await core.duel_caller(duel, request, served)
    except HTTPError as exc:
        assert exc.status == 404
        return True
    return False


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_change_by_another_process_cuts_off_a_held_duels_follower_and_refuses_it_at_once(
        tmp_path, no_polling, backend):
    """A public follower of a duel this worker holds; another process (the command line, another
    worker) makes the duel private. The follower is cut off (no ``end``: the duel goes on) and the
    public read refused, with no access record read again on a clock: the change was heard."""
    with fresh_url(backend, tmp_path / "x.sqlite", "heard") as url:
        duel, _tokens = _recorded(url, "public")
        store = Store(url, concurrent=True)
        served = create_app(store, digest(ORGANISER)).state.service
        request = _request(duel)

        async def run() -> tuple[list[bytes], bool]:
            served.hub.start(asyncio.get_running_loop())
            asking = await core.duel_caller(duel, request, served)
            assert asking[0].role == "public"
            streamed = await duels.follow(duel, request, served, asking, start=0, view=None, format="events")
            body = streamed.chunks
            sent = [await asyncio.wait_for(anext(body), WAIT)]
            with Store(url, concurrent=True) as other:
                await asyncio.to_thread(Records(other).set_visibility, duel, "private")
            try:
                while True:
                    sent.append(await asyncio.wait_for(anext(body), WAIT))
            except StopAsyncIteration:
                pass
            except TimeoutError:
                raise AssertionError("the follower of a duel made private was never cut off") from None
            finally:
                await body.aclose()
            return sent, await _refused(duel, request, served)
        try:
            sent, refused = asyncio.run(run())
        finally:
            served.hub.stop()
            store.close()
    assert b"id: 0\n" in sent[0]
    assert not any(b"event: end" in chunk for chunk in sent)
    assert refused, "the public read of a duel made private by another process was still answered"


def test_a_held_duels_access_record_is_never_read_on_the_event_loop(tmp_path, monkeypatch):
    """Requests of a duel held here, before and after another process makes it unlisted: its
    access record is read again (the public read refused) in a thread, never on the event loop,
    whatever the clock says (the once-a-second read held the loop: each request that found it
    due waited there for the database)."""
    monkeypatch.setattr(live_module, "SETTINGS_READ", 0.05)      # the old bound, soon: due at every request
    url = str(tmp_path / "x.sqlite")
    duel, _tokens = _recorded(url, "public")
    store = Store(url, concurrent=True)
    reads = _reads_of_access(store)
    served = create_app(store, digest(ORGANISER)).state.service
    request = _request(duel, path="frames")

    async def run() -> bool:
        served.hub.start(asyncio.get_running_loop())
        for _ in range(5):
            assert not await _refused(duel, request, served)
            await asyncio.sleep(0.06)
        with Store(url, concurrent=True) as other:
            await asyncio.to_thread(Records(other).set_visibility, duel, "unlisted")
        for _ in range(WAIT * 20):
            if await _refused(duel, request, served):
                return True
            await asyncio.sleep(0.05)
        return False
    try:
        refused = asyncio.run(run())
    finally:
        served.hub.stop()
        store.close()
    assert refused, "the public read of a duel made unlisted by another process was still answered"
    assert reads and not any(reads), f"access records read on the event loop: {reads.count(True)} of {len(reads)}"


def test_a_recorders_append_reads_a_changed_access_record_in_its_one_hop(tmp_path, no_polling, monkeypatch):
    """A duel held here whose access record another process changed (made unlisted: its recorder
    still writes): the recorder's next append reads the record in the append's own thread, one
    hop to a thread in all, not on the event loop and not by a hop of its own before it."""
    from test_visibility_everywhere import EVENTS
    url = str(tmp_path / "x.sqlite")
    duel, tokens = _recorded(url, "public")
    store = Store(url, concurrent=True)
    reads = _reads_of_access(store)
    app = create_app(store, digest(ORGANISER))
    served = app.state.service
    hops: list = []
    real = core.Service.in_thread
    monkeypatch.setattr(core.Service, "in_thread", lambda self, func, *args: hops.append(func) or real(self, func, *args))
    recorder = {"Authorization": f"Bearer {tokens['recorder']}"}

    async def run() -> tuple[int, int, list]:
        served.hub.start(asyncio.get_running_loop())
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
            assert (await client.get(f"/duels/{duel}/events", headers=recorder)).status_code == 200
            held = served.hub.duels[duel]
            assert not held.settings_due()
            with Store(url, concurrent=True) as other:
                await asyncio.to_thread(Records(other).set_visibility, duel, "unlisted")
            for _ in range(WAIT * 20):                   # heard: the listener marks it to be read again
                if held.settings_due():
                    break
                await asyncio.sleep(0.05)
            assert held.settings_due(), "the change of the held duel's access record was never heard"
            reads.clear()
            hops.clear()
            appended = await client.post(f"/duels/{duel}/events?expected={len(RUNNING)}", json=EVENTS[len(RUNNING):],
                                         headers=recorder)
            assert appended.status_code == 200, appended.text
            return len(hops), list(reads), held.access.visibility
    try:
        hop_count, read_where, visibility = asyncio.run(run())
    finally:
        served.hub.stop()
        store.close()
    assert read_where == [False], f"the append's access reads, on the event loop (True) or not: {read_where}"
    assert hop_count == 1, f"{hop_count} hops to a thread"
    assert visibility == "unlisted"


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_an_access_record_written_with_heads_is_told_with_them(tmp_path, backend):
    """An append that writes a duel's next access record with its events (a match's link writes
    its duel's with the match's append: ``append_records``' ``kept``): PostgreSQL's NOTIFY said
    the heads only, and a listener taking the heads said passed over the record, never read it
    (its change reached the other workers only at the safety re-read). Every listener is told both."""
    from concurrent.futures import ThreadPoolExecutor
    with fresh_url(backend, tmp_path / "x.sqlite", "told") as url, Store(url, concurrent=True) as reader, \
            Store(url, concurrent=True) as writer, ThreadPoolExecutor(1) as pool:
        events = [from_dict(e, "ev") for e in RUNNING]
        duel = Records(writer).record(events[:5], "t", attachments={"access": Access("public").to_dict()}).id
        assert duel is not None
        heads = reader.subscribe(reader.last_notification())
        told: list[tuple[str, int]] = []

        def told_of(*wanted: tuple[str, int]) -> None:
            while not all(each in told for each in wanted):
                try:
                    told.append(pool.submit(next, heads).result(timeout=WAIT))
                except TimeoutError:
                    heads.stop()
                    raise AssertionError(f"never told of {wanted}: {told}") from None
        with heads:
            writer.append_records(duel, events[5:6], expected_position=5)
            told_of((duel, 6))                   # listening: what comes next is said by its NOTIFY
            writer.append_records(duel, events[6:7], expected_position=6,
                                  kept=[(duel, "access", 1, Access("private").to_dict())])
            told_of((duel, 7), (f"{duel}/access", 1))
        assert Access.from_dict(reader.attachment(duel, "access")).visibility == "private"


def test_a_held_duels_access_record_stays_due_until_its_read_has_read_it(tmp_path):
    """Two readers of a held duel's access record after a change is heard (two followers' tasks,
    each reading in a thread; the feed asking whether it may write to them): while the first
    read waits on the store, the record is still due (the second waits on a read of its own,
    the feed writes to no token-checked follower), and a change heard during a read leaves it
    due after it. Marked read before the read, the second follower took the record held (the
    duel still public) as the one read and was sent the events of a duel made private."""
    url = str(tmp_path / "x.sqlite")
    duel, _tokens = _recorded(url, "public")
    with Store(url, concurrent=True) as store:
        live = live_module.LiveDuel(store, duel)
        live.settings()
        assert not live.settings_due()
        Records(store).set_visibility(duel, "private")
        live.settings_changed()
        reading, go_on = threading.Event(), threading.Event()
        attachment = store.attachment

        def slow(duel_id: str, name: str):
            reading.set()
            go_on.wait(10)
            return attachment(duel_id, name)
        store.attachment = slow
        first = threading.Thread(target=live.settings)
        first.start()
        assert reading.wait(10)
        due_while_read = live.settings_due()
        go_on.set()
        first.join(10)
        assert due_while_read, "the record counted as read before its read had read it"
        assert live.access.visibility == "private" and not live.settings_due()

        reading.clear(), go_on.clear()
        first = threading.Thread(target=live.settings)
        live.settings_changed()
        first.start()
        assert reading.wait(10)
        live.settings_changed()                 # heard while the read waits: what it reads may be older
        go_on.set()
        first.join(10)
        assert live.settings_due(), "a change heard during a read was taken as read"
