"""The HTTP service, started for real (uvicorn on 127.0.0.1, a free port) on SQLite and on
PostgreSQL, and driven over HTTP as its users drive it: a recorder records a duel live while a
spectator follows it and a judge rolls it back; a conflict; a refused illegal event; a private
duel; tokens of the wrong role; the spectator delay; uploads; and the redaction search: no
response to a player or a spectator holds a passcode that viewer may not see, searched in the
raw bytes of every response as the view tests search files.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from test_store import store_url  # noqa: F401  (fixture: a fresh SQLite file or PostgreSQL schema)
from test_views import SET_UP, encodings, events_of as views_events_of, never_public
from ygoreplay.replay_file import loads

ROOT = Path(__file__).resolve().parent.parent
REPLAYS = ROOT / "replays"
ADMIN = "organiser-test-token-0123456789abcdef0123456789"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``ygoreplay serve`` in a process of its own."""

    def __init__(self, store: str, workers: int = 1, env: dict | None = None) -> None:
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        environment = {**os.environ, "YGOREPLAY_ADMIN_TOKEN": ADMIN, **(env or {})}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ygoreplay", "serve", "--port", str(self.port), "--store", store,
             "--workers", str(workers)], env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the service exited: {self.process.stderr.read()}")
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("the service did not answer in 60 s")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()


@pytest.fixture
def server(store_url):
    srv = Server(store_url)
    yield srv
    srv.stop()


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def events_of(name: str) -> list[dict]:
    return [json.loads(line) for line in (REPLAYS / name).read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def create(base: str, **body) -> dict:
    r = httpx.post(f"{base}/duels", json=body, headers=auth(ADMIN))
    assert r.status_code == 201, r.text
    return r.json()


class Follower(threading.Thread):
    """An SSE client: every event it receives, with the id it came with."""

    def __init__(self, url: str, headers: dict | None = None) -> None:
        super().__init__(daemon=True)
        self.url, self.headers = url, headers or {}
        self.received: list[tuple[int, dict, float]] = []
        self.ended = threading.Event()
        self.ready = threading.Event()

    def run(self) -> None:
        with httpx.stream("GET", self.url, headers=self.headers, timeout=httpx.Timeout(30, read=60)) as r:
            self.status = r.status_code
            self.ready.set()
            event, ident = None, None
            for line in r.iter_lines():
                if line.startswith("id: "):
                    ident = int(line[4:])
                elif line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "event":
                    self.received.append((ident, json.loads(line[6:]), time.monotonic()))
                elif line.startswith("data: ") and event == "end":
                    self.ended.set()
                    return


# -- the whole story -----------------------------------------------------------------------------------

def test_a_duel_recorded_live_while_a_spectator_follows_and_a_judge_rolls_back(server):
    base = server.url
    duel = create(base, title="Table 12, round 3", visibility="unlisted")
    assert set(duel["tokens"]) == {"recorder", "judge", "p0", "p1", "spectator"}
    assert duel["links"]["spectator"].endswith(f"/view/{duel['id']}?token={duel['tokens']['spectator']}")
    d, t = duel["id"], duel["tokens"]
    follower = Follower(f"{base}/duels/{d}/follow", auth(t["spectator"]))
    follower.start()
    assert follower.ready.wait(10) and follower.status == 200
    events = events_of("won-by-damage.jsonl")
    position = 0
    for i in range(0, 40, 5):                              # the recorder sends as the duel goes
        r = httpx.post(f"{base}/duels/{d}/events?expected={position}", json=events[i:i + 5], headers=auth(t["recorder"]))
        assert r.status_code == 200, r.text
        position = r.json()["position"]
    assert position == 40
    r = httpx.post(f"{base}/duels/{d}/rollback", json={"to": 35, "judge": "J. Smith", "reason": "misplay"},
                   headers=auth(t["judge"]))
    assert r.status_code == 200 and r.json() == {"position": 41}
    r = httpx.post(f"{base}/duels/{d}/events", json=events[35:], headers=auth(t["recorder"]))
    assert r.status_code == 200 and r.json()["position"] == 41 + len(events) - 35
    assert follower.ended.wait(20), "the spectator saw the end"
    ids = [i for i, _, _ in follower.received]
    assert ids == list(range(41 + len(events) - 35)), "every event once, in order"
    assert follower.received[40][1]["event"]["kind"] == "rolled_back"
    state = httpx.get(f"{base}/duels/{d}/state", headers=auth(t["spectator"])).json()
    assert state["board"]["players"][1]["lp"] == 0 and state["board"]["winner"] == 0
    verdict = httpx.get(f"{base}/duels/{d}/verify", headers=auth(t["spectator"])).json()
    assert verdict["ok"] is True and verdict["events"] == state["position"]


def test_a_conflict_and_a_refused_event_store_nothing(server):
    base = server.url
    duel = create(base, title="conflicts")
    d, recorder = duel["id"], auth(duel["tokens"]["recorder"])
    events = events_of("won-by-damage.jsonl")
    assert httpx.post(f"{base}/duels/{d}/events?expected=0", json=events[:10], headers=recorder).json() == {"position": 10}
    stale = httpx.post(f"{base}/duels/{d}/events?expected=5", json=events[10:12], headers=recorder)
    assert stale.status_code == 409 and "has 10 events, not 5" in stale.json()["error"]
    illegal = events_of("illegal/summon-without-tributes.jsonl")
    duel2 = create(base, title="illegal")
    r = httpx.post(f"{base}/duels/{duel2['id']}/events", json=illegal, headers=auth(duel2["tokens"]["recorder"]))
    assert r.status_code == 422
    assert r.json() == {"index": 33, "rule": "SUM-04", "message": r.json()["message"]}
    judge = auth(duel2["tokens"]["judge"])
    assert httpx.get(f"{base}/duels/{duel2['id']}/state", headers=judge).json()["position"] == 0, "nothing stored"
    malformed = httpx.post(f"{base}/duels/{d}/events", content=b"[{\"kind\": ", headers=recorder)
    assert malformed.status_code == 400 and "not JSON" in malformed.json()["error"]
    unknown = httpx.post(f"{base}/duels/{d}/events", json=[{"kind": "duel_started", "first_player": 7}], headers=recorder)
    assert unknown.status_code == 400 and unknown.json()["where"] == "event 0"
    assert httpx.get(f"{base}/duels/{d}/state", headers=judge).status_code == 404, "a judge of another duel"


def test_tokens_roles_and_a_private_duel(server):
    base = server.url
    private = create(base, title="private", visibility="private")
    d, t = private["id"], private["tokens"]
    assert "spectator" not in t and "spectator" not in private["links"]
    for path in ("state", "events", "verify", "tree", "replay.ygr"):
        assert httpx.get(f"{base}/duels/{d}/{path}").status_code == 404
        assert httpx.get(f"{base}/duels/{d}/{path}", headers=auth("not-a-token")).status_code == 404
    assert httpx.get(f"{base}/duels/{d}/state", headers=auth(t["p0"])).json()["view"] == "p0"
    assert httpx.get(f"{base}/duels/{d}/state?view=judge", headers=auth(t["p0"])).status_code == 403
    assert httpx.get(f"{base}/duels/{d}/state?view=spectator", headers=auth(t["p0"])).json()["view"] == "spectator"
    assert httpx.post(f"{base}/duels/{d}/events", json=[], headers=auth(t["p1"])).status_code == 403
    assert httpx.post(f"{base}/duels/{d}/rollback", json={"to": 1, "judge": "x", "reason": "y"},
                      headers=auth(t["recorder"])).status_code == 403
    assert httpx.post(f"{base}/duels", json={}).status_code == 401
    assert httpx.post(f"{base}/duels", json={}, headers=auth(t["judge"])).status_code == 403
    assert httpx.post(f"{base}/duels", json={}, headers={"Authorization": "Basic abc"}).status_code == 401
    public = create(base, title="public", visibility="public")
    assert httpx.get(f"{base}/duels/{public['id']}/state").json()["view"] == "spectator"
    assert httpx.get(f"{base}/duels/{public['id']}/state", headers=auth("wrong")).status_code == 401
    listed = [x["id"] for x in httpx.get(f"{base}/duels").json()]
    assert public["id"] in listed and d not in listed
    everything = [x["id"] for x in httpx.get(f"{base}/duels", headers=auth(ADMIN)).json()]
    assert {public["id"], d} <= set(everything)


def test_a_spectator_is_held_back_by_the_delay_and_resumes_with_last_event_id(server):
    base = server.url
    duel = create(base, title="delayed", visibility="unlisted", delay={"events": 5})
    d, t = duel["id"], duel["tokens"]
    events = events_of("won-by-damage.jsonl")
    httpx.post(f"{base}/duels/{d}/events", json=events[:30], headers=auth(t["recorder"]))
    assert httpx.get(f"{base}/duels/{d}/state", headers=auth(t["spectator"])).json()["position"] == 25
    assert httpx.get(f"{base}/duels/{d}/state", headers=auth(t["judge"])).json()["position"] == 30
    assert httpx.get(f"{base}/duels/{d}/state?at=28", headers=auth(t["spectator"])).status_code == 404
    lines = httpx.get(f"{base}/duels/{d}/events?from=20", headers=auth(t["spectator"])).text.splitlines()
    assert [json.loads(x)["position"] for x in lines] == list(range(20, 25))
    file = loads(httpx.get(f"{base}/duels/{d}/replay.ygr", headers=auth(t["spectator"])).content)
    assert len(file.events) == 25 and file.view == "spectator" and file.signature_valid
    resumed = Follower(f"{base}/duels/{d}/follow", {**auth(t["spectator"]), "Last-Event-ID": "19"})
    resumed.start()
    deadline = time.monotonic() + 10
    while len(resumed.received) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [i for i, _, _ in resumed.received] == list(range(20, 25))
    httpx.post(f"{base}/duels/{d}/events", json=events[30:32], headers=auth(t["recorder"]))
    deadline = time.monotonic() + 10
    while len(resumed.received) < 7 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [i for i, _, _ in resumed.received] == list(range(20, 27)), "two more, still five behind"
    seconds = create(base, title="seconds", delay={"seconds": 1.5})
    httpx.post(f"{base}/duels/{seconds['id']}/events", json=events[:3], headers=auth(seconds["tokens"]["recorder"]))
    spectator = auth(seconds["tokens"]["spectator"])
    assert httpx.get(f"{base}/duels/{seconds['id']}/state", headers=spectator).json()["position"] == 0
    time.sleep(1.8)
    assert httpx.get(f"{base}/duels/{seconds['id']}/state", headers=spectator).json()["position"] == 3


# -- the redaction search ---------------------------------------------------------------------------------

@pytest.mark.parametrize("view,case", [("spectator", "won-by-damage"), ("spectator", SET_UP), ("p0", SET_UP),
                                       ("p1", SET_UP)])
def test_no_response_to_a_viewer_holds_a_card_it_may_not_see(server, view, case):
    """Every endpoint a viewer can read, at several positions, and the live stream: the raw bytes
    searched for every msgpack and decimal encoding of every passcode never public to it (the
    same search as the view files'; the set-up duel hides cards from each player)."""
    import msgpack
    from ygoreplay.replay_file import decode_body
    base = server.url
    duel = create(base, title="redaction")
    d, t = duel["id"], duel["tokens"]
    events = [e.to_dict() for e in views_events_of(case)]
    for i in range(0, len(events), 10):
        r = httpx.post(f"{base}/duels/{d}/events", json=events[i:i + 10], headers=auth(t["recorder"]))
        assert r.status_code == 200, r.text
    headers = auth(t[view])
    haystack = b""
    positions = [0, 1, 3, len(events) // 2, len(events)]
    paths = ["state", "events", "events?from=3", "cards", "tree", "verify",
             f"diff?a=1&b={len(events)}"] + [f"state?at={n}" for n in positions]
    for path in paths:
        r = httpx.get(f"{base}/duels/{d}/{path}", headers=headers)
        assert r.status_code == 200, (path, r.text)
        haystack += r.content + json.dumps(dict(r.headers)).encode()
    replay = httpx.get(f"{base}/duels/{d}/replay.ygr", headers=headers)
    haystack += replay.content + msgpack.packb(decode_body(replay.content))
    follower = Follower(f"{base}/duels/{d}/follow", headers)
    follower.start()
    deadline = time.monotonic() + 20
    while len(follower.received) < len(events) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(follower.received) == len(events)
    haystack += json.dumps([e for _, e, _ in follower.received]).encode()
    hidden = never_public(case, view)
    assert hidden, "the duel has cards this view never sees"
    leaks = [code for code in hidden if any(p in haystack for p in encodings(code))]
    assert not leaks, f"{view}: responses hold hidden passcode(s) {leaks}"
    assert httpx.get(f"{base}/duels/{d}/state?view=judge", headers=headers).status_code == 403


# -- uploads ----------------------------------------------------------------------------------------------

def test_uploads_of_a_signed_judge_file_and_of_an_edopro_replay(server, tmp_path):
    base = server.url
    duel = create(base, title="to export")
    d, t = duel["id"], duel["tokens"]
    httpx.post(f"{base}/duels/{d}/events", json=events_of("won-by-damage.jsonl"), headers=auth(t["recorder"]))
    judge_file = httpx.get(f"{base}/duels/{d}/replay.ygr", headers=auth(t["judge"])).content
    r = httpx.post(f"{base}/uploads?title=again&visibility=public", content=judge_file, headers=auth(ADMIN))
    assert r.status_code == 201, r.text
    copy = r.json()
    assert httpx.get(f"{base}/duels/{copy['id']}/verify").json()["ok"] is True
    unsigned = judge_file[:-96]
    refused = httpx.post(f"{base}/uploads", content=unsigned, headers=auth(ADMIN))
    assert refused.status_code == 409 and "NOT signed" in refused.json()["error"]
    garbage = httpx.post(f"{base}/uploads", content=b"\x89YGR garbage", headers=auth(ADMIN))
    assert garbage.status_code == 400
    from conftest import SHARED
    real = SHARED / "real-replays" / "edopro" / "GG_DW_vs_Cyberse.yrpX"
    if real.exists():
        r = httpx.post(f"{base}/uploads", content=real.read_bytes(), headers=auth(ADMIN))
        assert r.status_code == 201, r.text
        state = httpx.get(f"{base}/duels/{r.json()['id']}/state", headers=auth(r.json()["tokens"]["judge"])).json()
        assert state["position"] == 284 and state["board"]["ended"]
    too_big = httpx.post(f"{base}/uploads", content=b"\0" * (17 << 20), headers=auth(ADMIN))
    assert too_big.status_code == 413


# -- several processes on one PostgreSQL store --------------------------------------------------------------

def test_followers_of_one_process_see_what_another_process_records():
    from test_store import POSTGRES, _pg_connect
    import uuid
    from psycopg import sql
    schema = f"t_{uuid.uuid4().hex}"
    with _pg_connect() as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    url = f"{POSTGRES}?schema={schema}"
    first = second = workers = None
    try:
        first = Server(url)
        second = Server(url)
        duel = create(first.url, title="two processes")
        d, t = duel["id"], duel["tokens"]
        follower = Follower(f"{first.url}/duels/{d}/follow", auth(t["spectator"]))
        follower.start()
        assert follower.ready.wait(10)
        events = events_of("won-by-damage.jsonl")
        for i in range(0, len(events), 7):
            r = httpx.post(f"{second.url}/duels/{d}/events", json=events[i:i + 7], headers=auth(t["recorder"]))
            assert r.status_code == 200, r.text
        assert follower.ended.wait(20), "woken by PostgreSQL's notification, not by its own appends"
        assert [i for i, _, _ in follower.received] == list(range(len(events)))
        workers = Server(url, workers=2)
        states = {httpx.get(f"{workers.url}/duels/{d}/state", headers=auth(t["judge"])).json()["position"]
                  for _ in range(6)}
        assert states == {len(events)}
    finally:
        for srv in (first, second, workers):
            if srv is not None:
                srv.stop()
        with _pg_connect() as conn:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


def test_several_workers_need_postgresql(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "ygoreplay", "serve", "--workers", "2", "--store",
                           str(tmp_path / "s.sqlite")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "PostgreSQL" in proc.stderr and "Traceback" not in proc.stderr
