"""Issue 25, attack 25bj on the twenty-third pass's merges: a duel's access record changed
(``Records.set_visibility``) and what still acted on the one held before it."""
from __future__ import annotations

import asyncio

import httpx

from test_match_doors import private_duel, service, started  # noqa: F401  (service: a fixture, serve)
from test_match_service import MATCHES, create, lines, post
from test_service import ADMIN, auth
from ygoreplay.events import from_dict


async def _sent(body, most: int) -> list[bytes]:
    """What a stream sends, up to ``most`` chunks (or until it ends); then it is closed."""
    sent: list[bytes] = []
    try:
        for _ in range(most):
            sent.append(await asyncio.wait_for(anext(body), 30))
    except StopAsyncIteration:
        pass
    finally:
        await body.aclose()
    return sent


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
    served = app.state.service
    duel = Records(store).record([from_dict(e, "ev") for e in RUNNING], "t",
                                 attachments={"access": Access("public").to_dict()}).id
    assert duel is not None
    request = Request({"type": "http", "method": "GET", "path": f"/duels/{duel}/follow", "headers": [],
                       "query_string": b""})

    async def run() -> list[bytes]:
        served.hub.start(asyncio.get_running_loop())
        asking = served.caller(request, duel)                       # let in: public
        caller, live = asking
        assert caller.role == "public"
        Records(Store(str(tmp_path / "x.sqlite"), concurrent=True)).set_visibility(duel, "private")  # another process
        live.settings_changed()                                      # another request of this worker reads it
        live.settings()
        streamed = await duels.follow(duel, request, served, asking, start=0, view=None, format="events")
        return await _sent(streamed.chunks, 40)
    try:
        sent = asyncio.run(run())
    finally:
        served.hub.stop()
        store.close()
    assert b"id: 0\n" in sent[0], "let in: what it was let in on is sent"
    assert len(sent) < 40, "a follower of a duel made private is cut off, not kept on keep-alives"
    assert not any(b"event: end" in chunk for chunk in sent)


# -- medium: a match's player token, unseated, sent the first events of a seat that may not be its own --

def test_an_unseated_player_follower_is_sent_nothing_when_the_first_events_land_as_it_joins(tmp_path, monkeypatch):
    """A match's player token following its next duel before the duel names its players has no seat
    yet (``access.seated``): its stream ends, sending nothing, at the first event, and its
    reconnection is seated by it. That was asked before the follower joined its view's feed:
    the first events, landing in a thread between the two (here: as the feed is found), were
    sent to it from the view's steps, as the seat its match role named, the other player's
    when the duel seats the players the other way round (his opening hand)."""
    import httpx
    from starlette.requests import Request

    from test_match_service import match_body
    from test_release import ADMIN as ORGANISER
    from ygoreplay.access import digest
    from ygoreplay.service import create_app, duels
    from ygoreplay.store import Store

    sample = lines(MATCHES / "two-nil.jsonl")
    game = lines(MATCHES / "duels" / "g1-yugi-wins.jsonl")
    game[0] = {**game[0], "players": ["Kaiba", "Yugi"]}          # recorded the other way round: Yugi sits in seat 1
    store = Store(str(tmp_path / "x.sqlite"), concurrent=True)
    app = create_app(store, digest(ORGANISER))
    served = app.state.service
    found = duels._feed_of

    async def run() -> list[bytes]:
        served.hub.start(asyncio.get_running_loop())
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://test",
                                     headers={"Authorization": f"Bearer {ORGANISER}"}) as client:
            match = (await client.post("/matches", json=match_body(sample, visibility="public"))).json()
            duel = (await client.post("/duels", json={"visibility": "public"})).json()
            linked = await client.post(f"/matches/{match['id']}/games",
                                       json={"duel": duel["id"], "first_player": 0, "chosen_by": 0})
            assert linked.status_code == 201, linked.text
            yugi = match["tokens"]["p0"]
            request = Request({"type": "http", "method": "GET", "path": f"/duels/{duel['id']}/follow",
                               "headers": [(b"authorization", f"Bearer {yugi}".encode())], "query_string": b""})
            asking = await asyncio.to_thread(served.caller, request, duel["id"])
            assert asking[0].view == "p0", "no seat yet: the match's own"
            streamed = await duels.follow(duel["id"], request, served, asking, start=0, view=None, format="events")
            appended = []

            def landing(*args):                  # the duel's first events land as the follower joins
                if not appended:
                    appended.append(served.records.append_records(duel["id"], [from_dict(e, "ev") for e in game[:5]],
                                                                   role="recorder")[0])
                    served.hub.changed(duel["id"], appended[0])
                return found(*args)
            monkeypatch.setattr(duels, "_feed_of", landing)
            sent = await _sent(streamed.chunks, 3)
            assert appended, "the events landed"
            return sent
    try:
        sent = asyncio.run(run())
    finally:
        served.hub.stop()
        store.close()
    assert not any(b"id: " in chunk for chunk in sent), f"nothing of a seat not yet its own: {sent[:2]!r}"


# -- medium: a duel made private still previewed to anyone with its link ---------------------------------

def test_a_duel_made_private_is_no_longer_previewed(service):
    """The link preview (the viewer page's Open Graph tags, ``/oembed``) judged the duel public on
    the access record the worker held: made private, its title, players and result went on being
    told to anyone with its link until a reader's request happened to read the record again."""
    base = service.url
    duel = private_duel(base, "public")
    d = duel["id"]
    link = f"{base}/view/{d}"
    assert httpx.get(f"{base}/oembed", params={"url": link}).status_code == 200
    assert 'content="table 9"' in httpx.get(link).text
    r = httpx.post(f"{base}/duels/{d}/visibility", json={"visibility": "private"}, headers=auth(ADMIN))
    assert r.status_code == 200
    assert httpx.get(f"{base}/oembed", params={"url": link}).status_code == 404
    assert "table 9" not in httpx.get(link).text
