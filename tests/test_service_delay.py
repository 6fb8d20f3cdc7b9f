"""What a delayed viewer reads: nothing it receives may depend on what lies past its delay, not
the content, the size nor the timing of an answer; and what anyone may make the service keep
(caches, open streams) is bounded.

The service runs in this process (uvicorn in a thread, on SQLite): the tests reach its hub to
count verifications and cached bytes, and set its limits low.
"""
from __future__ import annotations

import contextlib
import http.client
import json
import os
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
import uvicorn
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

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
                                           access_log=False, lifespan="on", timeout_graceful_shutdown=1))
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
    for reader in ({}, auth(t["spectator"])):      # not a spectator's duel until its parent shows where it left
        for path in ("state", "events", "frames", "verify", "tree", "cards", "replay.ygr", "follow"):
            assert httpx.get(f"{base}/duels/{branch}/{path}", headers=reader).status_code == 404, path
    assert httpx.get(f"{base}/duels/{branch}/state?view=spectator", headers=auth(t["p0"])).status_code == 200
    assert branch not in listed(base), "the list agrees with /tree"
    assert [x["id"] for x in httpx.get(f"{base}/duels/{d}/tree").json()] == [d]
    append(base, d, t["recorder"], EVENTS[80:88])               # the parent now shows #0..#57
    assert httpx.get(f"{base}/duels/{branch}/state").status_code == 404
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
    from ygoreplay import live
    base, svc = service
    monkeypatch.setattr(live, "VERIFY_TTL", 3600.0)     # the clock's own renewal never falls inside the test
    duel = create(base, title="delayed", visibility="public", delay={"events": 30, "seconds": 3600})
    d, t = duel["id"], duel["tokens"]
    append(base, d, t["recorder"], EVENTS[:50])
    verifications = []
    real = svc.store.verify
    monkeypatch.setattr(svc.store, "verify",
                        lambda duel_id, upto=None: verifications.append(upto) or real(duel_id, upto))
    first = httpx.get(f"{base}/duels/{d}/verify").json()
    assert first["events"] == 0 and first["ok"] is True
    assert verifications == [0], "verified as far as it may see, reading nothing past that"
    for i in range(3):
        httpx.post(f"{base}/duels/{d}/notes", json={"judge": "J", "text": str(i)}, headers=auth(t["judge"]))
        assert httpx.get(f"{base}/duels/{d}/verify").json() == first
    assert len(verifications) == 1, "no append past the delay makes a delayed spectator's answer anew"
    assert httpx.get(f"{base}/duels/{d}/frames").json()["events"] == 0
    assert svc.hub.get(d).views["spectator"].steps == [], "nor is any event past it redacted for the spectator"
    assert httpx.get(f"{base}/duels/{d}/verify", headers=auth(t["judge"])).json()["events"] == 53


def test_a_spectators_answer_never_waits_for_an_append_being_taken_in(service):
    """While the duel takes in an append (its other views fed under its lock), a delayed
    spectator's answers come as fast as ever: their time says nothing of the append."""
    base, svc = service
    duel = create(base, title="delayed", visibility="public", delay={"events": 30})
    d, t = duel["id"], duel["tokens"]
    append(base, d, t["recorder"], EVENTS[:40])
    paths = ("state", "events", "frames", "cards", "verify", "replay.ygr", "diff?a=0&b=5", "tree")
    before = {path: httpx.get(f"{base}/duels/{d}/{path}").content for path in paths}
    with svc.hub.get(d).lock:
        for path in paths:
            assert httpx.get(f"{base}/duels/{d}/{path}", timeout=5).content == before[path], path


def test_a_replay_file_is_derived_only_from_a_record_that_verifies(service, tmp_path, monkeypatch):
    """The file is made from the events the view may see, as the service holds them, and the
    verification kept for that view: a store altered since (once that is done again) refuses it."""
    from test_store import _set_state, _state
    from ygoreplay import live
    base, svc = service
    monkeypatch.setattr(live, "VERIFY_TTL", 0.2)
    duel = create(base, title="altered", visibility="unlisted", delay={"events": 5})
    d, t = duel["id"], duel["tokens"]
    append(base, d, t["recorder"], EVENTS[:20])
    assert httpx.get(f"{base}/duels/{d}/verify", headers=auth(t["spectator"])).json()["ok"]
    url = str(tmp_path / "duels.sqlite")
    altered = bytearray(_state(url, d, 4))            # event #3
    altered[-8] ^= 0x20
    _set_state(url, d, 4, bytes(altered))
    time.sleep(0.3)
    for token in (t["judge"], t["spectator"]):
        refused = httpx.get(f"{base}/duels/{d}/replay.ygr", headers=auth(token))
        assert refused.status_code == 409 and "fails verification" in refused.json()["error"]


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


def test_the_cache_drops_the_least_recently_used_past_its_entries_or_bytes():
    from ygoreplay.cache import Cache
    cache = Cache(entries=3, size=10)
    made = []

    def build(value: bytes):
        return lambda: made.append(value) or value
    for key in "abc":
        cache.get(key, build(key.encode() * 3))
    assert cache.get("a", build(b"?")) == b"aaa" and made == [b"aaa", b"bbb", b"ccc"], "kept, and used last"
    cache.get("d", build(b"dd"))                       # 11 bytes: b, the least recently used, goes
    assert len(cache) == 3 and cache.size == 8
    assert cache.get("b", build(b"BBB")) == b"BBB", "made anew"
    assert cache.get("huge", build(b"x" * 11)) == b"x" * 11 and "huge" not in cache._kept, "given, not kept"
    assert cache.size <= 10 and len(cache) <= 3


def test_followers_are_capped_per_client_and_per_duel(service, monkeypatch):
    from ygoreplay.service import core as service_module
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


# -- the property: no answer to a delayed viewer depends on what lies past its delay ---------------------------

OLD = "2020-01-01T00:00:00.000+00:00"        # long released, whatever the delay in seconds


def _twin_stores(folder: Path, shown: int, delay: dict, hidden: tuple[list, list]
                 ) -> tuple[Store, Store, str, dict[str, str]]:
    """Two stores holding the same public duel (same id, header, tokens, first ``shown``
    events and their times), each then given different ``hidden`` events: (store, store, duel, tokens)."""
    import sqlite3
    from ygoreplay.access import Access
    from ygoreplay.events import from_dict
    access, tokens = Access.issue("public", delay["events"], delay["seconds"])
    with open_store(folder / "a.sqlite") as store:
        duel, _, _ = store.record([from_dict(e) for e in EVENTS[:shown]], "twins", times=[OLD] * shown,
                                  attachments={"access": access.to_dict()})
    with sqlite3.connect(folder / "a.sqlite") as source, sqlite3.connect(folder / "b.sqlite") as copy:
        source.backup(copy)
    stores = []
    for name, events in zip("ab", hidden):
        store = open_store(folder / f"{name}.sqlite")
        if events:
            store.append(duel, [from_dict(e) for e in events])
        stores.append(store)
    return stores[0], stores[1], duel, tokens


def _branch(base: str, duel: str, tokens: dict[str, str], at: int, hidden: list[dict], shown: int) -> None:
    """A judge's what-if branch after event #``at``, played to the duel's end."""
    r = httpx.post(f"{base}/duels/{duel}/branch", json={"at": at}, headers=auth(tokens["judge"]))
    assert r.status_code == 201, r.text
    played = EVENTS[:at + 1] == EVENTS[:shown] + hidden[:at + 1 - shown]
    append(base, r.json()["id"], tokens["recorder"], EVENTS[at + 1:] if played else EVENTS[shown:])   # notes change nothing


#: How long a follow stream stays quiet before its follower stops listening: past the status,
#: which is waited for however long a loaded service takes to send it.
QUIET = 1.0


def _follow(url: str, headers: dict, out: list) -> None:
    """What a follower receives until the stream falls quiet: its status, then its lines.

    The status is awaited for up to 30 s and only then is the socket's timeout cut to ``QUIET``
    (one read timeout for both had a loaded service's slow first bytes read as an empty stream)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        connection.connect()
        sock = connection.sock
        connection.request("GET", f"{parts.path}?{parts.query}", headers=headers)
        response = connection.getresponse()
        out.append(response.status)
        sock.settimeout(QUIET)
        while line := response.readline():
            out.append(line.rstrip(b"\r\n").decode())
    except TimeoutError:
        pass
    finally:
        connection.close()


def _answers(base: str, duel: str, reader: dict, shown: int) -> dict[str, object]:
    """Every read endpoint's answer to ``reader``: (status, body bytes) by request."""
    positions = sorted({p for p in (0, shown - 1, shown, shown + 1, len(EVENTS) - 1) if p >= 0})
    paths = ["/duels", f"/duels/{duel}/verify", f"/duels/{duel}/tree", f"/duels/{duel}/cards",
             f"/duels/{duel}/replay.ygr", f"/duels/{duel}/state?view=judge", f"/duels/{duel}/state?view=spectator"]
    for p in positions:
        paths += [f"/duels/{duel}/state?at={p}", f"/duels/{duel}/events?from={p}", f"/duels/{duel}/frames?from={p}",
                  f"/duels/{duel}/diff?a=0&b={p}"]
    paths += [f"/duels/{duel}/state", f"/duels/{duel}/events", f"/duels/{duel}/frames"]
    out: dict[str, object] = {}
    with httpx.Client(headers=reader, timeout=30) as client:
        for path in paths:
            r = client.get(f"{base}{path}")
            out[path] = (r.status_code, r.content)
    streams = {f: [] for f in ("events", "frames")}
    threads = [threading.Thread(target=_follow, args=(f"{base}/duels/{duel}/follow?format={f}", reader, got))
               for f, got in streams.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    out.update({f"follow {f}": got for f, got in streams.items()})
    return out


@given(data=st.data())
@settings(max_examples=int(os.environ.get("YGOREPLAY_DELAY_EXAMPLES", "4")), deadline=None, derandomize=True,
          database=None, phases=[Phase.explicit, Phase.generate],      # each example takes seconds: no shrinking
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
def test_no_answer_to_a_delayed_viewer_depends_on_events_past_its_delay(tmp_path_factory, data):
    """Two stores whose duel shares the events a delayed spectator may see and differs after
    (the recorder's events in one, judge's notes in the other, of another number when the delay
    is in seconds; a branch played to its end past the delay) answer every read endpoint with
    the same bytes, to an anonymous reader and to the spectator token alike."""
    seconds = data.draw(st.booleans(), "delay in seconds")
    shown = data.draw(st.integers(1, 60), "events shown")
    if seconds:
        delay = {"events": 0, "seconds": 3600.0}
        lengths = data.draw(st.tuples(st.integers(1, 88 - shown), st.integers(1, 12)), "hidden events")
    else:
        held = data.draw(st.integers(1, 88 - shown), "delay in events")
        delay, lengths = {"events": held, "seconds": 0.0}, (held, held)
    notes = data.draw(st.lists(st.text(max_size=20), min_size=lengths[1], max_size=lengths[1]), "notes")
    hidden = (EVENTS[shown:shown + lengths[0]],
              [{"kind": "judge_note", "judge": "J", "note": text or ".", "category": "note"} for text in notes])
    branch_at = data.draw(st.integers(0, min(lengths) - 1), "branch past the delay")
    first, second, duel, tokens = _twin_stores(tmp_path_factory.mktemp("twins"), shown, delay, hidden)
    answers = []
    with first, second:
        for store, events in zip((first, second), hidden):
            with serving(store) as (base, _), ThreadPoolExecutor(2) as pool:
                _branch(base, duel, tokens, shown + branch_at, events, shown)
                readers = {"anonymous": {}, "spectator": auth(tokens["spectator"])}
                asked = {who: pool.submit(_answers, base, duel, reader, shown) for who, reader in readers.items()}
                answers.append({who: future.result() for who, future in asked.items()})
    for who in answers[0]:
        assert answers[0][who]["/duels/" + duel + "/state"][0] == 200
        for request, answer in answers[0][who].items():
            assert answers[1][who][request] == answer, f"{who}: {request}"
