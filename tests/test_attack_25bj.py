"""Issue 25, attack 25bj on the twenty-third pass's merges: a duel's access record changed
(``Records.set_visibility``) and what still acted on the one held before it."""
from __future__ import annotations

import httpx
import pytest

from test_match_doors import private_duel, started
from test_match_service import MATCHES, create, lines, post
from test_service import ADMIN, Server, auth


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    srv = Server(str(tmp_path_factory.mktemp("attack25bj") / "service.sqlite"))
    yield srv
    srv.stop()


# -- high: a duel made private is linked into a public match on the access record held before ----------

def test_a_duel_made_private_is_not_linked_into_a_public_match_on_its_record_held_before(service):
    """``match.commands.linkable`` judged the duel's ``access`` as the worker held it: the change of
    visibility only marked it to be read again (``settings_changed``), so a duel made private a
    moment before was linked into a public match, whose file and follow show its events to all."""
    base = service.url
    duel = private_duel(base, "public")
    d = duel["id"]
    assert httpx.get(f"{base}/duels/{d}/state").status_code == 200          # held by the worker, public
    r = httpx.post(f"{base}/duels/{d}/visibility", json={"visibility": "private"}, headers=auth(ADMIN))
    assert r.status_code == 200 and r.json()["visibility"] == "private"
    match = create(base, lines(MATCHES / "two-nil.jsonl"), visibility="public")
    m = match["id"]
    refused = post(base, f"/matches/{m}/games", ADMIN, {"duel": d, "first_player": 0, "chosen_by": 0}, 409)
    assert refused["where"] == "duel" and "private" in refused["error"]
    raw = post(base, f"/matches/{m}/events", ADMIN, [started(d)], 409)
    assert raw["where"] == "duel"
    assert httpx.get(f"{base}/matches/{m}/replay.ygr").status_code == 200
    assert httpx.get(f"{base}/duels/{d}/state").status_code == 404


# -- high: a follower let in on the record held, the change read before its stream began -------------

def test_a_follower_let_in_before_a_change_another_request_read_first_is_cut_off(tmp_path, monkeypatch):
    """A public follower was let in on the access record the worker held (at most a second old);
    the duel was made private by another process, and another request of the worker read that
    change before the follower's stream began. The stream took the version it found then as the
    one it was let in on: it never asked again and followed a private duel for as long as it
    liked. It asks from the version its request was decided on (``Caller.access_version``)."""
    import asyncio

    from starlette.requests import Request

    from test_release import ADMIN as ORGANISER
    from test_visibility_everywhere import RUNNING
    from ygoreplay.access import Access, digest
    from ygoreplay.application import Records
    from ygoreplay.events import from_dict
    from ygoreplay.service import create_app, duels
    from ygoreplay.store import Store

    monkeypatch.setattr(duels, "KEEPALIVE", 0.05)           # a wake-up soon: the stream says what it does
    store = Store(str(tmp_path / "x.sqlite"), concurrent=True)
    app = create_app(store, digest(ORGANISER))
    service = app.state.service
    duel = Records(store).record([from_dict(e, "ev") for e in RUNNING], "t",
                                 attachments={"access": Access("public").to_dict()}).id
    assert duel is not None
    request = Request({"type": "http", "method": "GET", "path": f"/duels/{duel}/follow", "headers": [],
                       "query_string": b""})

    async def run() -> list[bytes]:
        service.hub.start(asyncio.get_running_loop())
        asking = service.caller(request, duel)                       # let in: public
        caller, live = asking
        assert caller.role == "public"
        Records(Store(str(tmp_path / "x.sqlite"), concurrent=True)).set_visibility(duel, "private")  # another process
        live.settings_changed()                                      # another request of this worker reads it
        live.settings()
        streamed = await duels.follow(duel, request, service, asking, start=0, view=None, format="events")
        body = streamed.chunks
        sent = []
        try:
            for _ in range(40):
                sent.append(await asyncio.wait_for(anext(body), 30))
        except StopAsyncIteration:
            pass
        finally:
            await body.aclose()
        return sent
    try:
        sent = asyncio.run(run())
    finally:
        service.hub.stop()
        store.close()
    assert b"id: 0\n" in sent[0], "let in: what it was let in on is sent"
    assert len(sent) < 40, "a follower of a duel made private is cut off, not kept on keep-alives"
    assert not any(b"event: end" in chunk for chunk in sent)
