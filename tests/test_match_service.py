"""The service's match endpoints, started for real (uvicorn, SQLite and PostgreSQL) and driven
over HTTP: every sample match recorded endpoint by endpoint (its duels created for it and
recorded with the match's recorder token) comes out event for event as the sample, with the
sample's result; tokens (401/403/404); refusals naming their rule; two writers at one position;
the stored match verified and refused when altered; and the redaction search: no response to a
player or a spectator holds the other player's decklist or Side Deck passcodes, searched in the
raw bytes (every msgpack and decimal encoding) as the duel's redaction tests search.
"""
from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import httpx
import msgpack
import pytest

from test_service import ADMIN, Follower, Server, auth
from test_store import store_url  # noqa: F401  (fixture: a fresh SQLite file or PostgreSQL schema)
from test_views import encodings
import ygoreplay.match.stream  # noqa: F401  (registers the match's event kinds: this file run alone)
from ygoreplay.replay_file import decode_body, loads

MATCHES = Path(__file__).resolve().parent.parent / "replays" / "matches"


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    srv = Server(str(tmp_path_factory.mktemp("matches") / "service.sqlite"))
    yield srv
    srv.stop()


def create(base: str, sample: list[dict], **extra) -> dict:
    """A match from a sample's match_started and decklists, through POST /matches."""
    r = httpx.post(f"{base}/matches", json=match_body(sample, **extra), headers=auth(ADMIN))
    assert r.status_code == 201, r.text
    return r.json()


def match_body(sample: list[dict], **extra) -> dict:
    """What POST /matches is given for a sample's match_started and decklists."""
    start = sample[0]
    body = {"title": extra.pop("title", "sample"), "players": start["players"], "policy": start["policy"],
            "banlist": {"name": start["banlist"], "limits": start.get("limits", [])},
            "decklists": [{k: ev[k] for k in ("main", "extra", "side") if k in ev}
                          for ev in sample[1:3] if ev["kind"] == "decklist_registered"], **extra}
    for name in ("format", "event_name", "round"):
        if start.get(name) is not None:
            body[name] = start[name]
    return body


def post(base: str, path: str, token: str, body=None, status: int = 200) -> dict:
    r = httpx.post(f"{base}{path}", json=body if body is not None else {}, headers=auth(token))
    assert r.status_code == status, (path, r.status_code, r.text)
    return r.json()


def drive(base: str, name: str) -> tuple[dict, list[dict], dict[int, dict]]:
    """A sample match recorded through the endpoints a table and a judge use; (match, sample, duels)."""
    sample = lines(MATCHES / name)
    match = create(base, sample)
    m, t = match["id"], match["tokens"]
    duels: dict[int, dict] = {}
    for ev in sample[3:]:
        kind = ev["kind"]
        fields = {k: v for k, v in ev.items() if k != "kind"}
        if kind == "game_started":
            body = {k: fields[k] for k in ("first_player", "chosen_by", "extra_duel") if k in fields}
            made = post(base, f"/matches/{m}/games", t["recorder"], body, 201)
            assert made["game"] == ev["game"]
            duels[ev["game"]] = made["duel"]
            events = lines(MATCHES / ev["duel"])
            # the match's recorder token records the duel (a duel of the match opens with it)
            post(base, f"/duels/{made['duel']['id']}/events", t["recorder"], events)
        elif kind == "game_ended":
            post(base, f"/matches/{m}/games/{ev['game']}/end", t["recorder"])     # as the duel's record ended
        elif kind == "side_deck_swapped":
            post(base, f"/matches/{m}/swaps", t["recorder"], fields)
        elif kind == "time_called":
            post(base, f"/matches/{m}/time", t["recorder"], {k: v for k, v in fields.items() if k != "game"})
        elif kind == "extra_turn_started":
            post(base, f"/matches/{m}/extra-turns", t["recorder"])                # the turn it must be
        elif kind == "game_decided":
            post(base, f"/matches/{m}/decide", t["recorder"], {"lp": ev["lp"], "turn": ev["turn"]})
        elif kind == "judge_called":
            post(base, f"/matches/{m}/judge-calls", t[f"p{ev['player']}"], fields)
        elif kind == "judge_ruled":
            post(base, f"/matches/{m}/rulings", t["judge"], fields)
        elif kind == "ruling_appealed":
            post(base, f"/matches/{m}/appeals", t["judge"], fields)
        elif kind == "penalty_given":
            post(base, f"/matches/{m}/penalties", t["judge"], fields)
        elif kind == "match_conceded":
            post(base, f"/matches/{m}/concede", t[f"p{ev['player']}"], fields)
        elif kind == "match_ended":
            done = post(base, f"/matches/{m}/result", t["recorder"])
            assert done["result"] == ev
        else:
            raise AssertionError(kind)
    return match, sample, duels


def judge_events(base: str, match: dict) -> list[dict]:
    r = httpx.get(f"{base}/matches/{match['id']}", headers=auth(match["tokens"]["judge"]))
    assert r.status_code == 200, r.text
    return [item["event"] for item in r.json()["events"]]


def as_recorded(sample: list[dict], duels: dict[int, dict]) -> list[dict]:
    """The sample as the service records it: each duel named by its id in the store."""
    out = []
    for ev in sample:
        if ev["kind"] == "game_started":
            ev = {**ev, "duel": duels[ev["game"]]["id"]}
        out.append(ev)
    return out


def canonical(events: list[dict]) -> list[dict]:
    from ygoreplay.events import from_dict
    return [from_dict(e).to_dict() for e in events]


# -- every sample through the endpoints ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["two-nil.jsonl", "two-one-side-decking.jsonl", "time-extra-turns-tcg.jsonl",
                                  "time-phase-end-ocg.jsonl", "ended-by-penalty.jsonl"])
def test_every_sample_match_comes_out_of_the_endpoints_as_it_went_in(service, name):
    match, sample, duels = drive(service.url, name)
    assert canonical(judge_events(service.url, match)) == canonical(as_recorded(sample, duels))
    state = httpx.get(f"{service.url}/matches/{match['id']}/state", headers=auth(match["tokens"]["judge"])).json()
    end = sample[-1]
    assert state["ended"] and state["result"] == {k: end[k] for k in ("winner", "how", "games", "points")}
    assert state["problems"] == [], "each duel agrees with the match (links.py)"
    assert [g["duel"] for g in state["games"] if g["duel"]] == [d["id"] for d in duels.values()]
    verified = httpx.get(f"{service.url}/matches/{match['id']}/verify", headers=auth(match["tokens"]["spectator"])).json()
    assert verified["ok"] and verified["events"] == len(sample)


def test_a_match_on_each_store_with_its_duels_and_its_file(store_url, tmp_path):
    """SQLite and PostgreSQL: the 2-1 with side decking, then its .ygr for each role verified by
    ``ygoreplay verify`` and checked by ``ygoreplay check`` (the judge's: legal, duels agree)."""
    import subprocess
    import sys
    srv = Server(store_url)
    try:
        match, sample, duels = drive(srv.url, "two-one-side-decking.jsonl")
        assert canonical(judge_events(srv.url, match)) == canonical(as_recorded(sample, duels))
        for role in ("judge", "p0", "p1", "spectator"):
            r = httpx.get(f"{srv.url}/matches/{match['id']}/replay.ygr", headers=auth(match["tokens"][role]))
            assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
            path = tmp_path / f"{role}.ygr"
            path.write_bytes(r.content)
            replay = loads(r.content)
            assert replay.view == role and replay.match["kind"] == "match" and len(replay.games) == 3
            assert [loads(g).view for g in replay.games] == [role] * 3
            done = subprocess.run([sys.executable, "-m", "ygoreplay", "verify", str(path)], capture_output=True, text=True)
            assert done.returncode == 0, done.stdout + done.stderr
        check = subprocess.run([sys.executable, "-m", "ygoreplay", "check", str(tmp_path / "judge.ygr"), "--json"],
                               capture_output=True, text=True)
        report = json.loads(check.stdout)
        assert check.returncode == 0 and report["legal"] and report["match"]["result"]["winner"] == 0
        listed = httpx.get(f"{srv.url}/matches", headers=auth(ADMIN)).json()
        assert [(m["id"], m["games"], m["ended"]) for m in listed] == [(match["id"], [2, 1, 0], True)]
        assert httpx.get(f"{srv.url}/duels", headers=auth(ADMIN)).json().__len__() == 3, "matches are not duels"
    finally:
        srv.stop()


# -- who may do what ---------------------------------------------------------------------------------------

def test_tokens_roles_and_what_is_not_there(service):
    base = service.url
    sample = lines(MATCHES / "two-nil.jsonl")
    match = create(base, sample)
    m, t = match["id"], match["tokens"]
    assert httpx.get(f"{base}/matches/{m}/state").status_code == 404                  # unlisted: not for nobody
    assert httpx.get(f"{base}/matches/{m}/state", headers=auth("not-a-token")).status_code == 404
    assert httpx.get(f"{base}/matches/{m}/state", headers={"Authorization": "Basic x"}).status_code == 401
    assert httpx.get(f"{base}/matches/{m}/state?token={t['spectator']}").status_code == 200
    assert httpx.get(f"{base}/matches/ffffffffffff/state", headers=auth(ADMIN)).status_code == 404
    assert httpx.get(f"{base}/matches/{m}/state?view=judge", headers=auth(t["p0"])).status_code == 403
    assert httpx.get(f"{base}/matches/{m}/state?view=p1", headers=auth(t["p0"])).status_code == 403
    post(base, f"/matches/{m}/games", t["spectator"], {"first_player": 0, "chosen_by": 0}, 403)
    post(base, f"/matches/{m}/games", t["p0"], {"first_player": 0, "chosen_by": 0}, 403)
    post(base, f"/matches/{m}/penalties", t["recorder"],
         {"player": 0, "infraction": "slow_play", "penalty": "caution", "judge": "J"}, 403)
    post(base, f"/matches/{m}/concede", t["p0"], {"player": 1}, 403)                    # for themselves only
    post(base, "/matches", t["recorder"], {"players": ["a", "b"], "policy": "tcg-2024", "banlist": {"name": "x"}}, 403)
    assert httpx.post(f"{base}/matches", json={}).status_code == 401
    assert httpx.get(f"{base}/matches", headers=auth(t["judge"])).status_code == 403
    assert m not in [x["id"] for x in httpx.get(f"{base}/matches").json()], "only public matches are listed to anyone"
    # a match is not a duel, nor a duel a match
    assert httpx.get(f"{base}/duels/{m}/state", headers=auth(ADMIN)).status_code == 404
    # the organiser is handed every token of the duel (a recorder its own and the spectator's: access.handed)
    game = post(base, f"/matches/{m}/games", ADMIN, {"first_player": 0, "chosen_by": 0}, 201)
    assert httpx.get(f"{base}/matches/{game['duel']['id']}/state", headers=auth(ADMIN)).status_code == 404
    # the duel opens with its own tokens and with the match's of the same role, no other
    d = game["duel"]["id"]
    for role in ("p0", "spectator"):
        for token in (game["duel"]["tokens"][role], t[role]):
            r = httpx.get(f"{base}/duels/{d}/state", headers=auth(token))
            assert r.status_code == 200 and r.json()["view"] == role
    assert httpx.get(f"{base}/duels/{d}/state?view=judge", headers=auth(t["p1"])).status_code == 403
    other = create(base, sample)
    assert httpx.get(f"{base}/duels/{d}/state", headers=auth(other["tokens"]["judge"])).status_code == 404
    # a player concedes for themselves
    post(base, f"/matches/{m}/concede", t["p1"], {"player": 1})
    done = post(base, f"/matches/{m}/result", t["recorder"])
    assert done["result"]["winner"] == 0 and done["result"]["how"] == "concession"


def test_a_public_match_is_listed_and_a_wrong_token_is_401(service):
    match = create(service.url, lines(MATCHES / "two-nil.jsonl"), visibility="public", title="<b>Final</b>")
    m = match["id"]
    listed = httpx.get(f"{service.url}/matches").json()
    assert m in [x["id"] for x in listed]
    assert httpx.get(f"{service.url}/matches/{m}/state").json()["view"] == "spectator"
    assert httpx.get(f"{service.url}/matches/{m}/state", headers=auth("not-a-token")).status_code == 401
    private = create(service.url, lines(MATCHES / "two-nil.jsonl"), visibility="private")
    assert "spectator" not in private["tokens"]
    assert httpx.get(f"{service.url}/matches/{private['id']}/state").status_code == 404


def test_linking_a_duel_recorded_through_the_service(service):
    base = service.url
    sample = lines(MATCHES / "two-nil.jsonl")
    match = create(base, sample)
    m, t = match["id"], match["tokens"]
    duel = httpx.post(f"{base}/duels", json={"title": "table 4"}, headers=auth(ADMIN)).json()
    events = lines(MATCHES / "duels" / "g1-yugi-wins.jsonl")
    post(base, f"/duels/{duel['id']}/events", duel["tokens"]["recorder"], events)
    post(base, f"/matches/{m}/games", t["recorder"], {"duel": duel["id"]}, 403)             # not the caller's to give
    post(base, f"/matches/{m}/games", t["recorder"], {"duel": duel["id"], "duel_token": duel["tokens"]["p0"]}, 403)
    wrong = post(base, f"/matches/{m}/games", t["recorder"],
                 {"duel": duel["id"], "duel_token": duel["tokens"]["recorder"], "first_player": 1}, 422)
    assert wrong["rule"] == "MATCH-07"
    linked = post(base, f"/matches/{m}/games", t["recorder"], {"duel": duel["id"], "duel_token": duel["tokens"]["recorder"]}, 201)
    assert linked["duel"] == {"id": duel["id"]}                 # its tokens stay its own, handed out before
    assert httpx.get(f"{base}/duels/{duel['id']}/state", headers=auth(t["p1"])).json()["view"] == "p1"
    post(base, f"/matches/{m}/games/1/end", t["recorder"])
    state = httpx.get(f"{base}/matches/{m}/state", headers=auth(t["judge"])).json()
    assert state["games"][0]["winner"] == 0 and state["games"][0]["first_player"] == 0
    again = create(base, sample)
    post(base, f"/matches/{again['id']}/games", ADMIN, {"duel": duel["id"]}, 409)          # a duel of one match
    delayed = httpx.post(f"{base}/duels", json={"delay": {"events": 3}}, headers=auth(ADMIN)).json()
    post(base, f"/matches/{again['id']}/games", ADMIN, {"duel": delayed["id"], "first_player": 0, "chosen_by": 0}, 409)


# -- the rules --------------------------------------------------------------------------------------------

def test_every_refusal_is_422_naming_its_rule_and_nothing_is_written(service):
    base = service.url
    sample = lines(MATCHES / "two-nil.jsonl")
    match = create(base, sample)
    m, t = match["id"], match["tokens"]
    count = lambda: len(judge_events(base, match))      # noqa: E731
    before = count()
    assert post(base, f"/matches/{m}/swaps", t["recorder"], {"player": 0, "main_out": [91152256], "main_in": [40640057]},
                422)["rule"] == "MATCH-05"
    assert post(base, f"/matches/{m}/result", t["recorder"], None, 422)["rule"] == "MATCH-01"
    assert post(base, f"/matches/{m}/decklists", t["recorder"], {"player": 0, "main": sample[1]["main"]}, 422)["rule"] == "MATCH-04"
    post(base, f"/matches/{m}/games", t["recorder"], {"first_player": 0, "chosen_by": 0}, 201)
    post(base, f"/matches/{m}/games/1/end", t["recorder"], {"winner": 0, "how": "lp"})      # no record: as said
    assert post(base, f"/matches/{m}/games", t["recorder"], {"first_player": 0, "chosen_by": 0}, 422)["rule"] == "MATCH-07"
    assert post(base, f"/matches/{m}/swaps", t["recorder"],
                {"player": 0, "main_out": [91152256, 5053103], "main_in": [40640057]}, 422)["rule"] == "MATCH-06"
    assert post(base, f"/matches/{m}/rulings", t["judge"], {"judge": "J", "ruling": "r"}, 422)["rule"] == "MATCH-08"
    assert post(base, f"/matches/{m}/extra-turns", t["recorder"], None, 422)["rule"] == "LOG-03"
    assert count() == before + 2
    bad = post(base, "/matches", ADMIN, {"players": ["a", "b"], "policy": "tcg-2024", "banlist": {"name": "x"},
                                         "decklists": [{"main": sample[1]["main"][:39]}]}, 422)
    assert bad["rule"] == "DECK-01"
    assert post(base, "/matches", ADMIN, {"players": ["a"], "policy": "tcg-2024", "banlist": {"name": "x"}}, 400)["where"] == "players"
    assert post(base, f"/matches/{m}/swaps", t["recorder"], {"player": 0, "main_out": ["x"]}, 400)["error"]


def test_a_game_ended_against_its_duels_record_is_refused(service):
    base = service.url
    match = create(base, lines(MATCHES / "two-nil.jsonl"))
    m, t = match["id"], match["tokens"]
    game = post(base, f"/matches/{m}/games", t["recorder"], {"first_player": 0, "chosen_by": 0}, 201)
    post(base, f"/duels/{game['duel']['id']}/events", t["recorder"], lines(MATCHES / "duels" / "g1-yugi-wins.jsonl"))
    assert post(base, f"/matches/{m}/games/1/end", t["recorder"], {"winner": 1, "how": "lp"}, 422)["rule"] == "LOG-09"
    post(base, f"/matches/{m}/games/1/end", t["recorder"], {"winner": 0, "how": "lp"})


def test_extra_turns_under_a_policy_without_them_name_time_03(service):
    base = service.url
    sample = lines(MATCHES / "time-phase-end-ocg.jsonl")       # ocg-2024: finish the phase, then LP
    match = create(base, sample)
    m, t = match["id"], match["tokens"]
    post(base, f"/matches/{m}/games", t["recorder"], {"first_player": 0, "chosen_by": 0}, 201)
    post(base, f"/matches/{m}/time", t["recorder"], {"turn": 3, "phase": "main1", "turn_player": 0})
    assert post(base, f"/matches/{m}/extra-turns", t["recorder"], None, 422)["rule"] == "TIME-03"
    assert post(base, f"/matches/{m}/decide", t["recorder"], {"lp": [100, 200], "stage": "extra_turns"}, 422)["rule"] == "TIME-03"
    post(base, f"/matches/{m}/decide", t["recorder"], {"lp": [100, 200]})                  # stage from the policy
    state = httpx.get(f"{base}/matches/{m}/state", headers=auth(t["spectator"])).json()
    assert state["games"][0]["winner"] == 1 and state["games"][0]["lp"] == [100, 200]
    assert state["time"]["turn"] == 3


def test_two_writers_at_one_position_one_wins_one_gets_409(store_url):
    """Two recorders sending the next event at the same expected position (on PostgreSQL to two
    workers: SQLite is served by one process)."""
    srv = Server(store_url, workers=2 if store_url.startswith("postgresql") else 1)
    try:
        sample = lines(MATCHES / "two-nil.jsonl")
        match = create(srv.url, sample)
        m, t = match["id"], match["tokens"]
        position = len(judge_events(srv.url, match))
        call = {"kind": "judge_called", "player": 0, "judge": "Floor judge"}
        results: list[int] = []

        def send() -> None:
            r = httpx.post(f"{srv.url}/matches/{m}/events?expected={position}", json=[call], headers=auth(t["recorder"]))
            results.append(r.status_code)
        threads = [threading.Thread(target=send) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(results) == [200, 409]
        assert len(judge_events(srv.url, match)) == position + 1
        # each worker judges what it derives (the next duel's number) at the stored head: a stale
        # one would write duel 2 and be refused as a conflict, not as the rule it breaks
        post(srv.url, f"/matches/{m}/games", t["recorder"], {"first_player": 0, "chosen_by": 0}, 201)
        for _ in range(4):
            refused = post(srv.url, f"/matches/{m}/games", t["recorder"], {"first_player": 0, "chosen_by": 0}, 422)
            assert refused["rule"] == "LOG-03"
    finally:
        srv.stop()


def test_the_stored_match_is_verified_and_an_altered_one_is_not(tmp_path):
    """A match's stream in the store: hash chain, signed anchors, read-only verify; an edited
    event or a dropped last event is found, and nothing is appended onto it."""
    import sqlite3
    from ygoreplay.errors import VerificationError
    from ygoreplay.events import from_dict
    from ygoreplay.store import Store
    path = str(tmp_path / "store.sqlite")
    sample = [from_dict(e) for e in lines(MATCHES / "two-nil.jsonl")]
    with Store(path) as store:
        m, count, violation = store.record(sample[:3], "m", kind="match", strict=True)
        store.append(m, sample[3:5])
        assert store.kind_of(m) == "match" and store.ids() == [] and store.ids("match") == [m]
        assert store.duels("match")[0].status["games"] == [1, 0, 0]
    with Store(path, readonly=True) as store:
        assert store.verify(m).ok and store.verify(m).events == 5
    conn = sqlite3.connect(path)
    state = conn.execute("SELECT state FROM stored_events WHERE originator_id = ? AND originator_version = 5", (m,)).fetchone()[0]
    env = msgpack.unpackb(state)
    env["e"]["winner"] = 1
    conn.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = 5", (msgpack.packb(env), m))
    conn.commit()
    with Store(path) as store:
        result = store.verify(m)
        assert not result.ok and result.first_bad == 4
        with pytest.raises(VerificationError):
            store.append(m, sample[5:6])
    conn.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = 5", (state, m))
    conn.execute("DELETE FROM stored_events WHERE originator_id = ? AND originator_version = 5", (m,))
    conn.commit()
    with Store(path) as store:
        assert not store.verify(m).ok
    conn.close()


def test_a_strict_record_writes_no_match_when_an_event_is_refused(tmp_path):
    from ygoreplay.events import from_dict
    from ygoreplay.rules import RuleViolation
    from ygoreplay.store import Store
    sample = [from_dict(e) for e in lines(MATCHES / "two-nil.jsonl")]
    with Store(str(tmp_path / "s.sqlite")) as store:
        with pytest.raises(RuleViolation) as refused:
            store.record(sample[:3] + [sample[1]], "m", kind="match", strict=True)      # a second decklist
        assert refused.value.rule == "MATCH-04"
        assert store.ids("match") == []
        with pytest.raises(ValueError):
            store.record([], "x", attachments={"match": {}})     # would read as a match's header


# -- what each view may see ---------------------------------------------------------------------------------

def _own_codes(sample: list[dict], player: int) -> set[int]:
    codes: set[int] = set()
    for ev in sample:
        if ev.get("player") == player and ev["kind"] in ("decklist_registered", "side_deck_swapped"):
            for part in ("main", "extra", "side", "main_out", "main_in", "extra_out", "extra_in"):
                codes.update(ev.get(part, []))
    return codes


@pytest.mark.parametrize("view", ["p0", "p1", "spectator"])
def test_no_response_holds_a_decklist_or_side_deck_card_the_view_may_not_see(service, view):
    """The 2-1 with siding: every match endpoint the view can read, the live stream and the match
    file (its own events and header, its duels' files left out: a duel shows what was played),
    searched in their raw bytes for every encoding of every passcode of the other player's
    decklist and Side Deck (a spectator: of both), the banlist's public entries aside."""
    base = service.url
    match, sample, duels = drive(base, "two-one-side-decking.jsonl")
    m = match["id"]
    headers = auth(match["tokens"][view])
    haystack = b""
    for path in ("", "?from=2", "/state", "/verify"):
        r = httpx.get(f"{base}/matches/{m}{path}", headers=headers)
        assert r.status_code == 200 and r.headers["cache-control"] == "no-store", path
        haystack += r.content + json.dumps(dict(r.headers)).encode()
    follower = Follower(f"{base}/matches/{m}/follow", headers)
    follower.start()
    deadline = time.monotonic() + 20
    while not follower.ended.is_set() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(follower.received) == len(sample)
    haystack += json.dumps([e for _, e, _ in follower.received]).encode()
    r = httpx.get(f"{base}/matches/{m}/replay.ygr", headers=headers)
    body = decode_body(r.content)
    games = body.pop("games", [])
    assert len(games) == 3
    haystack += r.content.replace(b"".join(games), b"") + msgpack.packb(body)
    public = {e["code"] for e in sample[0]["limits"]}
    mine = set() if view == "spectator" else _own_codes(sample, int(view[1]))
    secret = (_own_codes(sample, 0) | _own_codes(sample, 1)) - mine - public
    assert secret, "the other player has cards this view never sees"
    leaks = [code for code in secret if any(p in haystack for p in encodings(code))]
    assert not leaks, f"{view}: responses hold hidden passcode(s) {leaks}"
    state = httpx.get(f"{base}/matches/{m}/state", headers=headers).json()
    hidden = [p for p in (0, 1) if view != f"p{p}"]
    for p in hidden:
        assert "main" not in state["decks"][p] and state["decks"][p]["counts"]["side"] == 5
    swaps = [s for g in state["games"] for s in g["swaps_before"]]
    assert {s["player"] for s in swaps} == {0, 1} and all(s["counts"]["main"] >= 1 for s in swaps)
    assert all(("main_out" in s) == (view == f"p{s['player']}") for s in swaps)
    if view != "spectator":
        assert state["decks"][int(view[1])]["side"], "a player sees their own Side Deck"


def test_the_judge_sees_every_card(service):
    match, sample, _duels = drive(service.url, "two-one-side-decking.jsonl")
    r = httpx.get(f"{service.url}/matches/{match['id']}/state", headers=auth(match["tokens"]["judge"]))
    decks = r.json()["decks"]
    assert all("side" in d for d in decks)
    for code in _own_codes(sample, 0) | _own_codes(sample, 1):
        assert str(code).encode() in r.content
