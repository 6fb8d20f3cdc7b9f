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


def _held_port() -> socket.socket:
    """A free port, held by a socket bound here (``SO_REUSEADDR``, never listening) until the
    service listens on it: no other pick of a free port (``bind`` to port 0, another test's, an
    outgoing connection's) is handed it meanwhile, while the service's own bind (``SO_REUSEADDR``)
    shares it. Picked and let go at once, it was handed to another xdist worker's service as well:
    whichever bound it first answered both tests' ``/health``, and the other test drove a service
    of another store (its duel "not there": a KeyError once in a full CI run)."""
    held = socket.socket()
    held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    held.bind(("127.0.0.1", 0))
    return held


def _tcp(port: int) -> list[tuple[str, str]]:
    """(state, inode) of each IPv4 TCP socket of local port ``port`` (state 0A: listening; 01: established)."""
    rows = []
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].split(":")[1], 16) == port:
            rows.append((fields[3], fields[9]))
    return rows


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    return inodes


def _listens(pid: int, port: int) -> bool:
    """Whether every socket listening on ``port`` is process ``pid``'s (a worker's is its master's
    too): an answer on the port is then its own (not told where ``/proc`` is not there)."""
    if not Path("/proc/net/tcp").exists():
        return True
    listening = {inode for state, inode in _tcp(port) if state == "0A"}
    return bool(listening) and listening <= _socket_inodes(pid)


class Server:
    """``ygoreplay serve`` in a process of its own, on a port held for it (``_held_port``): up
    once it answers there itself, never when another process does."""

    def __init__(self, store: str, workers: int = 1, env: dict | None = None) -> None:
        self.store = store
        held = _held_port()
        self.port = held.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        environment = {**os.environ, "YGOREPLAY_ADMIN_TOKEN": ADMIN, **(env or {})}
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "ygoreplay", "serve", "--port", str(self.port), "--store", store,
                 "--workers", str(workers)], env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                self._wait_up()
            except BaseException:
                self.stop()         # no fixture holds it yet: left running, it served on for hours
                raise
        finally:
            held.close()

    def _wait_up(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the service exited: {self.process.stderr.read()}")
            try:
                if (httpx.get(f"{self.url}/health", timeout=1).status_code == 200
                        and _listens(self.process.pid, self.port)):
                    return
            except httpx.HTTPError:
                pass
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
        try:
            self._follow()
        except httpx.HTTPError as error:          # the service stopped under a duel still going on
            self.error = error

    def _follow(self) -> None:
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
    assert r.status_code == 200 and r.json() == {"position": 41, "length": 41, "first_index": 40, "last_index": 40}
    r = httpx.post(f"{base}/duels/{d}/events", json=events[35:], headers=auth(t["recorder"]))
    assert r.status_code == 200 and r.json()["position"] == 41 + len(events) - 35
    assert follower.ended.wait(20), "the spectator saw the end"
    ids = [i for i, _, _ in follower.received]
    assert ids == list(range(41 + len(events) - 35)), "every event once, in order"
    assert follower.received[40][1]["event"]["kind"] == "rolled_back"
    state = httpx.get(f"{base}/duels/{d}/state", headers=auth(t["spectator"])).json()
    assert state["board"]["players"][1]["lp"] == 0 and state["board"]["winner"] == 0
    verdict = httpx.get(f"{base}/duels/{d}/verify", headers=auth(t["spectator"])).json()
    assert verdict["ok"] is True and verdict["events"] == state["events"]


def test_a_conflict_and_a_refused_event_store_nothing(server):
    base = server.url
    duel = create(base, title="conflicts")
    d, recorder = duel["id"], auth(duel["tokens"]["recorder"])
    events = events_of("won-by-damage.jsonl")
    first = httpx.post(f"{base}/duels/{d}/events?expected=0", json=events[:10], headers=recorder).json()
    assert (first["position"], first["receipt"]["events"], first["witnessed"]) == (10, 10, None)
    stale = httpx.post(f"{base}/duels/{d}/events?expected=5", json=events[10:12], headers=recorder)
    assert stale.status_code == 409 and "has 10 events, not 5" in stale.json()["error"]
    illegal = events_of("illegal/summon-without-tributes.jsonl")
    duel2 = create(base, title="illegal")
    r = httpx.post(f"{base}/duels/{duel2['id']}/events", json=illegal, headers=auth(duel2["tokens"]["recorder"]))
    assert r.status_code == 422
    assert r.json() == {"index": 33, "rule": "SUM-04", "message": r.json()["message"]}
    judge = auth(duel2["tokens"]["judge"])
    assert httpx.get(f"{base}/duels/{duel2['id']}/state", headers=judge).json()["events"] == 0, "nothing stored"
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
    assert httpx.get(f"{base}/duels/{d}/state", headers=auth(t["spectator"])).json()["events"] == 25
    assert httpx.get(f"{base}/duels/{d}/state", headers=auth(t["judge"])).json()["events"] == 30
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
    assert httpx.get(f"{base}/duels/{seconds['id']}/state", headers=spectator).json()["events"] == 0
    time.sleep(1.8)
    assert httpx.get(f"{base}/duels/{seconds['id']}/state", headers=spectator).json()["events"] == 3


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
    duel = create(base, title="redaction", release="never")      # an ended duel under "end" releases the judge view
    d, t = duel["id"], duel["tokens"]
    events = [e.to_dict() for e in views_events_of(case)]
    for i in range(0, len(events), 10):
        r = httpx.post(f"{base}/duels/{d}/events", json=events[i:i + 10], headers=auth(t["recorder"]))
        assert r.status_code == 200, r.text
    headers = auth(t[view])
    haystack = b""
    positions = [0, 1, 3, len(events) // 2, len(events) - 1]
    paths = ["state", "events", "events?from=3", "cards", "tree", "verify", "frames", "frames?from=3",
             f"diff?a=1&b={len(events) - 1}"] + [f"state?at={n}" for n in positions]
    for path in paths:
        r = httpx.get(f"{base}/duels/{d}/{path}", headers=headers)
        assert r.status_code == 200, (path, r.text)
        haystack += r.content + json.dumps(dict(r.headers)).encode()
    replay = httpx.get(f"{base}/duels/{d}/replay.ygr", headers=headers)
    haystack += replay.content + msgpack.packb(decode_body(replay.content))
    for stream in ("follow", "follow?format=frames"):
        follower = Follower(f"{base}/duels/{d}/{stream}", headers)
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
        assert state["events"] == 284 and state["at"] == 283 and state["board"]["ended"]
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
        states = {httpx.get(f"{workers.url}/duels/{d}/state", headers=auth(t["judge"])).json()["events"]
                  for _ in range(6)}
        assert states == {len(events)}
        # appends without ?expected= land on whichever worker: each is judged at the stored head,
        # not at one a worker cached before the other appended (a red team saw a legal one refused)
        again = create(workers.url, title="two workers, no expected")
        for i in range(0, len(events), 5):
            r = httpx.post(f"{workers.url}/duels/{again['id']}/events", json=events[i:i + 5],
                           headers=auth(again["tokens"]["recorder"]))
            assert r.status_code == 200, (i, r.text)
        assert httpx.get(f"{workers.url}/duels/{again['id']}/verify", headers=auth(again["tokens"]["judge"])).json()["ok"]
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


# -- what a second red team found (each was reproduced against the service first) ----------------------------

def test_a_delayed_duel_tells_an_anonymous_reader_nothing_past_the_delay(server):
    """The list, /verify, /tree and /health gave the true length and the winner of a public
    duel whose spectators are held back; once the duel ends, everything is released."""
    base = server.url
    duel = create(base, title="delayed, public", visibility="public", delay={"events": 50})
    d, t = duel["id"], duel["tokens"]
    events = events_of("won-by-damage.jsonl")
    assert httpx.post(f"{base}/duels/{d}/events", json=events[:80], headers=auth(t["recorder"])).status_code == 200
    assert httpx.get(f"{base}/duels/{d}/state").json()["events"] == 30
    verdict = httpx.get(f"{base}/duels/{d}/verify").json()
    assert verdict["ok"] and verdict["events"] == 30
    assert httpx.get(f"{base}/duels/{d}/tree").json()[0]["events"] == 30
    branch = httpx.post(f"{base}/duels/{d}/branch", json={"at": 60}, headers=auth(t["judge"])).json()["id"]
    assert [x["id"] for x in httpx.get(f"{base}/duels/{d}/tree").json()] == [d], "a branch past the delay is not shown"
    assert {x["id"] for x in httpx.get(f"{base}/duels/{d}/tree", headers=auth(t["judge"])).json()} == {d, branch}
    listed = next(x for x in httpx.get(f"{base}/duels").json() if x["id"] == d)
    assert listed["events"] == 30 and listed["result"] is None, "listed with what the delay released"
    assert branch not in {x["id"] for x in httpx.get(f"{base}/duels").json()}, "the list agrees with /tree"
    assert "duels" not in httpx.get(f"{base}/health").json()
    assert httpx.post(f"{base}/duels/{d}/events", json=events[80:], headers=auth(t["recorder"])).status_code == 200
    assert httpx.get(f"{base}/duels/{d}/state").json()["events"] == len(events), "the end releases everything"
    listed = next(x for x in httpx.get(f"{base}/duels").json() if x["id"] == d)
    assert listed["events"] == len(events) and listed["result"] == {"winner": 0, "reason": "lp"}


def test_a_spectator_stream_held_back_by_events_ends_with_the_duel(server):
    base = server.url
    duel = create(base, title="delayed to the end", visibility="unlisted", delay={"events": 5})
    events = events_of("won-by-damage.jsonl")
    follower = Follower(f"{base}/duels/{duel['id']}/follow", auth(duel["tokens"]["spectator"]))
    follower.start()
    assert follower.ready.wait(10)
    assert httpx.post(f"{base}/duels/{duel['id']}/events", json=events,
                      headers=auth(duel["tokens"]["recorder"])).status_code == 200
    assert follower.ended.wait(20), "the last five events and the end reach the spectator"
    assert [i for i, _, _ in follower.received] == list(range(len(events)))


def test_a_recorder_cannot_write_a_judges_ruling_or_rollback(server):
    base = server.url
    duel = create(base, title="forgery")
    d, t = duel["id"], duel["tokens"]
    recorder = auth(t["recorder"])
    assert httpx.post(f"{base}/duels/{d}/events", json=events_of("won-by-damage.jsonl")[:60], headers=recorder).status_code == 200
    for forged in ({"kind": "judge_note", "judge": "Head Judge", "note": "game loss to p1", "category": "penalty"},
                   {"kind": "rolled_back", "to": 30, "judge": "Head Judge", "reason": "misplay"}):
        r = httpx.post(f"{base}/duels/{d}/events", json=[forged], headers=recorder)
        assert r.status_code == 403 and forged["kind"] in r.json()["error"]
    assert httpx.get(f"{base}/duels/{d}/state", headers=recorder).json()["events"] == 60, "nothing written"
    assert httpx.post(f"{base}/duels/{d}/notes", json={"judge": "Head Judge", "text": "ok"},
                      headers=auth(t["judge"])).status_code == 200


def test_the_same_replay_uploaded_twice_keeps_the_first_duels_access(server):
    from test_yrpx import FLAGS, replay
    from ygoreplay.yrpx import REPLAY_COMPRESSED
    base = server.url
    data = replay(FLAGS & ~REPLAY_COMPRESSED)
    first = httpx.post(f"{base}/uploads?visibility=private", content=data, headers=auth(ADMIN))
    assert first.status_code == 201, first.text
    again = httpx.post(f"{base}/uploads?visibility=public", content=data, headers=auth(ADMIN))
    assert again.status_code == 409 and again.json()["id"] == first.json()["id"] and "tokens" not in again.json()
    d = first.json()["id"]
    assert httpx.get(f"{base}/duels/{d}/state", headers=auth(first.json()["tokens"]["judge"])).status_code == 200
    assert httpx.get(f"{base}/duels/{d}/state").status_code == 404, "still private"
    empty = httpx.post(f"{base}/uploads", content=b"", headers=auth(ADMIN))
    assert empty.status_code == 400 and "/tmp" not in empty.text and "upload.yrpX" not in empty.text


def test_verify_and_the_replay_file_hold_while_the_duel_is_recorded(server):
    """Verification used to read the events and their anchors apart: an append between them
    made an honest live record look truncated."""
    base = server.url
    duel = create(base, title="busy")
    d, t = duel["id"], duel["tokens"]
    assert httpx.post(f"{base}/duels/{d}/events", json=events_of("won-by-damage.jsonl")[:60],
                      headers=auth(t["recorder"])).status_code == 200
    stop, seen = threading.Event(), []

    def read(path: str) -> None:
        with httpx.Client(headers=auth(t["spectator"]), timeout=30) as client:
            while not stop.is_set():
                r = client.get(f"{base}/duels/{d}/{path}")
                seen.append((path, r.status_code, r.json()["ok"] if path == "verify" else None))
    readers = [threading.Thread(target=read, args=(p,)) for p in ("verify", "replay.ygr")]
    for reader in readers:
        reader.start()
    with httpx.Client(headers=auth(t["judge"])) as judge:
        for i in range(80):
            assert judge.post(f"{base}/duels/{d}/notes", json={"judge": "J", "text": str(i)}).status_code == 200
    stop.set()
    for reader in readers:
        reader.join()
    assert seen and all(status == 200 and ok is not False for _, status, ok in seen), \
        [s for s in seen if s[1] != 200 or s[2] is False][:3]


def test_inputs_that_gave_a_500(server):
    base = server.url
    duel = create(base, title="x", visibility="public")
    with httpx.stream("GET", f"{base}/duels/{duel['id']}/follow", headers={"Last-Event-ID": "9" * 5000}) as r:
        assert r.status_code == 200, "a Last-Event-ID that is no position is ignored"
    bad = httpx.post(f"{base}/duels", content=b'{"title": "\\ud800"}', headers=auth(ADMIN))
    assert bad.status_code == 400 and "UTF-8" in bad.json()["error"]
    empty = httpx.post(f"{base}/duels/{duel['id']}/events?expected=3", json=[], headers=auth(duel["tokens"]["recorder"]))
    assert empty.status_code == 409, "an empty append still checks where it expected the duel to be"


def test_a_players_earlier_boards_of_a_duel_from_a_set_up_position(server):
    """The kept states of a view were refolded without the stand-ins of a set-up position's
    hidden cards, so every earlier board of a player or spectator came out empty."""
    base = server.url
    duel = create(base, title="set-up")
    d, t = duel["id"], duel["tokens"]
    events = [e.to_dict() for e in views_events_of(SET_UP)]
    assert httpx.post(f"{base}/duels/{d}/events", json=events, headers=auth(t["recorder"])).status_code == 200
    for view in ("judge", "p0", "spectator"):
        frames = httpx.get(f"{base}/duels/{d}/frames", headers=auth(t[view])).json()["frames"]
        boards = boards_of(frames)
        for i in range(len(events)):
            served = httpx.get(f"{base}/duels/{d}/state?at={i}", headers=auth(t[view])).json()["board"]
            assert served == boards[i], f"{view}: the board after event {i}"
            later = httpx.get(f"{base}/duels/{d}/frames?from={i}", headers=auth(t[view])).json()["frames"][0]
            assert later["board"] == boards[i]


def boards_of(frames: list[dict]) -> list[dict]:
    """Each frame's board, whole or patched onto the one before (as the web viewer makes them)."""
    boards: list[dict] = []
    for frame in frames:
        if "board" in frame:
            boards.append(frame["board"])
            continue
        board = {**boards[-1], "players": [dict(p) for p in boards[-1]["players"]]}
        for key, value in frame["patch"].items():
            if key.startswith("players."):
                _, p, part = key.split(".")
                side = board["players"][int(p)]
                if part.endswith("+"):
                    side[part[:-1]] = side[part[:-1]] + value
                else:
                    side[part] = value
            else:
                board[key] = value
        boards.append(board)
    return boards


def test_the_hub_forgets_idle_duels_but_never_a_followed_one(tmp_path, monkeypatch):
    from ygoreplay import live
    from ygoreplay.cards import CardDB
    from ygoreplay.jsonl import read_events
    from ygoreplay.store import Store
    monkeypatch.setattr(live, "IDLE_DUELS", 2)
    with Store(str(tmp_path / "duels.sqlite"), CardDB.classic(), create=True) as store:
        events = read_events(REPLAYS / "won-by-damage.jsonl")[:10]
        ids = [store.record(events, f"duel {i}")[0] for i in range(5)]
        hub = live.Hub(store)
        hub.get(ids[0]).followers = 1
        for duel_id in ids[1:]:
            hub.get(duel_id)
        assert list(hub.duels) == [ids[0], ids[3], ids[4]], "the followed one stays; two idle ones"


def test_the_demo_records_a_duel_through_the_service_and_prints_links_that_work(tmp_path):
    """The README's first command ends with ``ygoreplay demo``: it must record the sample over
    HTTP, print viewer links that open, keep serving them, and stop cleanly on Ctrl-C."""
    import signal
    process = subprocess.Popen([sys.executable, "-m", "ygoreplay", "demo", str(REPLAYS / "won-by-damage.jsonl"),
                                "--port", "0", "--store", str(tmp_path / "duels.sqlite")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [process.stdout.readline() for _ in range(4)]
        assert lines[0].startswith("watch it (the spectator link a player shares): http://127.0.0.1:"), lines
        link = lines[0].split(": ", 1)[1].strip()
        page = httpx.get(link)
        assert page.status_code == 200 and "viewer.js" in page.text
        assert page.headers["content-security-policy"].startswith("default-src 'none'")
        base, rest = link.split("/view/")
        duel_id, token = rest.split("?token=")
        frames = httpx.get(f"{base}/duels/{duel_id}/frames", headers=auth(token)).json()
        assert frames["view"] == "spectator" and frames["events"] == 89 and frames["ended"]
        judge = lines[1].split(": ", 1)[1].strip().split("?token=")[1]
        assert httpx.get(f"{base}/duels/{duel_id}/verify", headers=auth(judge)).json()["ok"]
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "recorded" in err and "89 events in 15 appends" in err and err.rstrip().endswith("stopped")


def test_a_service_whose_port_another_process_took_is_never_taken_for_its_own(tmp_path, monkeypatch):
    """The race a full CI run met once (``_held_port``): another process listens on the port
    picked for a service before the service binds it (another xdist worker's service, handed the
    same free port). It answers ``/health``; the service's own bind fails and it exits. The test
    harness must say so, never drive the other process as its service (its duel then "not there",
    a KeyError in test_group_commit). Made to happen, not waited for: the other listener starts
    on the port as the service's process is started."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Healthy(BaseHTTPRequestHandler):
        def do_GET(self) -> None:                  # any path: 200, as another service's /health
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"ok": true}')

        def log_message(self, *args: object) -> None:
            pass

    others: list[ThreadingHTTPServer] = []
    start = subprocess.Popen

    def port_taken_first(args: list[str], **kwargs: object) -> subprocess.Popen:
        other = ThreadingHTTPServer(("127.0.0.1", int(args[args.index("--port") + 1])), Healthy)  # SO_REUSEADDR
        threading.Thread(target=other.serve_forever, daemon=True).start()
        others.append(other)
        return start(args, **kwargs)
    monkeypatch.setattr(subprocess, "Popen", port_taken_first)
    try:
        with pytest.raises(RuntimeError, match="the service exited"):
            Server(str(tmp_path / "duels.sqlite")).stop()
    finally:
        for other in others:
            other.shutdown()
            other.server_close()
