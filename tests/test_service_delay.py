"""What a delayed viewer reads: nothing it receives may depend on what lies past its delay, not
the content, the size nor the timing of an answer; and what anyone may make the service keep
(caches, open streams) is bounded.

The service runs in this process (uvicorn in a thread, on SQLite): the tests reach its hub to
count verifications and cached bytes, and set its limits low.
"""
from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from pathlib import Path
from typing import Iterator

import httpx
import pytest
import uvicorn

from ygoreplay.access import digest
from ygoreplay.cards import CardDB
from ygoreplay.service import create_app
from ygoreplay.signing import OrganiserKey
from ygoreplay.store import Store

REPLAYS = Path(__file__).resolve().parent.parent / "replays"
ADMIN = "organiser-test-token-0123456789abcdef0123456789"
EVENTS = [json.loads(line) for line in (REPLAYS / "won-by-damage.jsonl").read_text().splitlines()
          if line.strip() and not line.startswith("#")]


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def open_store(path: Path) -> Store:
    return Store(str(path), CardDB.classic(), key=OrganiserKey.load_or_create()[0], concurrent=True)


@contextlib.contextmanager
def serving(store: Store) -> Iterator[tuple[str, object]]:
    """The service over ``store`` on a free port, in a thread: (its address, its ``Service``)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(store, digest(ADMIN))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           access_log=False, lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the service did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}", app.state.service
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture
def service(tmp_path):
    with open_store(tmp_path / "duels.sqlite") as store, serving(store) as served:
        yield served


def create(base: str, **body) -> dict:
    r = httpx.post(f"{base}/duels", json=body, headers=auth(ADMIN))
    assert r.status_code == 201, r.text
    return r.json()


def append(base: str, duel: str, token: str, events: list[dict]) -> None:
    r = httpx.post(f"{base}/duels/{duel}/events", json=events, headers=auth(token))
    assert r.status_code == 200, r.text


def listed(base: str) -> dict[str, dict]:
    return {x["id"]: x for x in httpx.get(f"{base}/duels").json()}


# -- the delay escapes through nothing -----------------------------------------------------------------------

def test_a_branch_played_to_its_end_shows_no_more_of_its_parent_than_the_parent_does(service):
    """A judge's what-if branch of a delayed public duel, played to its end, released every
    event to anonymous viewers (89 where the duel showed 50), and the public list showed it."""
    base, _ = service
    duel = create(base, title="delayed, public", visibility="public", delay={"events": 30})
    d, t = duel["id"], duel["tokens"]
    append(base, d, t["recorder"], EVENTS[:80])
    assert httpx.get(f"{base}/duels/{d}/state").json()["events"] == 50
    r = httpx.post(f"{base}/duels/{d}/branch", json={"at": 60}, headers=auth(t["judge"]))
    assert r.status_code == 201, r.text
    branch = r.json()["id"]
    append(base, branch, t["recorder"], EVENTS[61:])           # the what-if, to its end
    assert httpx.get(f"{base}/duels/{branch}/state", headers=auth(t["judge"])).json()["events"] == len(EVENTS)
    for reader in ({}, auth(t["spectator"])):
        state = httpx.get(f"{base}/duels/{branch}/state", headers=reader).json()
        assert state["events"] == 0, "the branch shows nothing until its parent shows where it branched"
        assert httpx.get(f"{base}/duels/{branch}/events", headers=reader).text == ""
        assert httpx.get(f"{base}/duels/{branch}/frames", headers=reader).json()["events"] == 0
        assert httpx.get(f"{base}/duels/{branch}/verify", headers=reader).json()["events"] == 0
    assert branch not in listed(base), "the list agrees with /tree"
    assert [x["id"] for x in httpx.get(f"{base}/duels/{d}/tree").json()] == [d]
    append(base, d, t["recorder"], EVENTS[80:88])               # the parent now shows #0..#57
    assert httpx.get(f"{base}/duels/{branch}/state").json()["events"] == 0
    assert branch not in listed(base)
    append(base, d, t["recorder"], EVENTS[88:])                 # the parent ends: all of it is shown
    assert httpx.get(f"{base}/duels/{branch}/state").json()["events"] == len(EVENTS)
    assert listed(base)[branch]["events"] == len(EVENTS)
    assert [x["id"] for x in httpx.get(f"{base}/duels/{d}/tree").json()] == [d, branch]


def test_a_branch_inherits_its_parents_visibility_and_delay(tmp_path):
    from ygoreplay.application import Records
    with open_store(tmp_path / "duels.sqlite") as store:
        from ygoreplay.events import from_dict
        access = {"visibility": "public", "delay": {"events": 7, "seconds": 0.0}, "tokens": {}}
        parent, _, _ = store.record([from_dict(e) for e in EVENTS[:20]], "parent", attachments={"access": access})
        child = Records(store).branch(parent, 10)
        assert store.attachment(child, "access") == access


def test_a_delayed_public_duel_is_listed_only_with_what_its_delay_released(service):
    base, _ = service
    duel = create(base, title="delayed, public", visibility="public", delay={"events": 30})
    d, t = duel["id"], duel["tokens"]
    assert d not in listed(base), "nothing recorded, nothing released: not listed"
    append(base, d, t["recorder"], EVENTS[:20])
    assert d not in listed(base), "nothing released yet: not listed"
    append(base, d, t["recorder"], EVENTS[20:80])
    entry = listed(base)[d]
    assert entry["events"] == 50 and entry["status"] == "in progress" and entry["result"] is None
    assert listed(base)[d] == entry
    plain = create(base, title="public", visibility="public")
    assert listed(base)[plain["id"]]["events"] == 0, "a duel nobody is held back from is listed at once"


# -- timing ----------------------------------------------------------------------------------------------------

def test_verify_answers_a_delayed_spectator_from_what_it_may_see(service, monkeypatch):
    """/verify's cache was keyed on the record's length: a delayed spectator polling it got a
    slow answer right after each append."""
    base, svc = service
    duel = create(base, title="delayed", visibility="public", delay={"events": 30, "seconds": 3600})
    d, t = duel["id"], duel["tokens"]
    append(base, d, t["recorder"], EVENTS[:50])
    verifications = []
    real = svc.store.verify
    monkeypatch.setattr(svc.store, "verify", lambda duel_id: verifications.append(duel_id) or real(duel_id))
    first = httpx.get(f"{base}/duels/{d}/verify").json()
    assert first["events"] == 0 and len(verifications) == 1
    for i in range(3):
        httpx.post(f"{base}/duels/{d}/notes", json={"judge": "J", "text": str(i)}, headers=auth(t["judge"]))
        assert httpx.get(f"{base}/duels/{d}/verify").json() == first
    assert len(verifications) == 1, "no append past the delay makes a delayed spectator's answer anew"
    assert httpx.get(f"{base}/duels/{d}/verify", headers=auth(t["judge"])).json()["events"] == 53


# -- bounded --------------------------------------------------------------------------------------------------

def test_frames_from_every_position_keep_a_bounded_cache(service, monkeypatch):
    """``/frames?from=N`` kept an answer for every N: O(N²) bytes per duel, view and role."""
    base, svc = service
    monkeypatch.setattr(svc.hub.cache, "max_size", 16 << 10)
    duel = create(base, title="public", visibility="public")
    append(base, duel["id"], duel["tokens"]["recorder"], EVENTS)
    whole = httpx.get(f"{base}/duels/{duel['id']}/frames").json()["frames"]
    for start in range(len(EVENTS)):
        frames = httpx.get(f"{base}/duels/{duel['id']}/frames?from={start}").json()["frames"]
        assert [f["i"] for f in frames] == [f["i"] for f in whole[start:]]
    assert svc.hub.cache.size <= 16 << 10
    assert 0 < len(svc.hub.cache) < len(EVENTS)


def test_followers_are_capped_per_client_and_per_duel(service, monkeypatch):
    from ygoreplay import service as service_module
    base, svc = service
    monkeypatch.setattr(service_module, "FOLLOWS_PER_CLIENT", 3)
    monkeypatch.setattr(service_module, "FOLLOWS_PER_DUEL", 4)
    duels = [create(base, title=f"public {i}", visibility="public") for i in range(3)]
    with contextlib.ExitStack() as streams:
        client = streams.enter_context(httpx.Client(timeout=httpx.Timeout(10, read=30)))

        def follow(duel: dict, **headers: str) -> httpx.Response:
            r = streams.enter_context(client.stream("GET", f"{base}/duels/{duel['id']}/follow", headers=headers))
            return r
        assert [follow(duels[0]).status_code for _ in range(3)] == [200, 200, 200]
        refused = follow(duels[1])
        assert refused.status_code == 429
        assert "has 3 streams open" in json.loads(refused.read())["error"]
        # other clients (the service behind a proxy names them) on the same duel, up to the duel's cap
        assert follow(duels[0], **{"X-Forwarded-For": "203.0.113.9"}).status_code == 200
        full = follow(duels[0], **{"X-Forwarded-For": "203.0.113.10"})
        assert full.status_code == 429 and "has 4 streams open" in json.loads(full.read())["error"]
        assert follow(duels[2], **{"X-Forwarded-For": "203.0.113.10"}).status_code == 200
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(svc.hub.get(d["id"]).followers for d in duels):
        time.sleep(0.05)
    with httpx.stream("GET", f"{base}/duels/{duels[1]['id']}/follow") as again:
        assert again.status_code == 200, "closed streams give their places back"
