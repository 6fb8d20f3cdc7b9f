"""Issue 21, the organiser's side of a record: when hidden cards are released, whether an origin
is trusted, what a face may import, and the README's service example."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ygoreplay.access import digest
from ygoreplay.application import Records, trusted_keys
from ygoreplay.cli import main
from ygoreplay.errors import InputError
from ygoreplay.jsonl import read_events
from ygoreplay.match.files import match_replay, open_match
from ygoreplay.replay_file import dumps, loads
from ygoreplay.service import create_app
from ygoreplay.signing import OrganiserKey
from ygoreplay.store import Store

ROOT = Path(__file__).resolve().parent.parent
REPLAYS = ROOT / "replays"
ADMIN = "release-organiser-token-0123456789abcdef0123456"
ORGANISER = {"Authorization": f"Bearer {ADMIN}"}


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def events_of(name: str) -> list[dict]:
    return [json.loads(line) for line in (REPLAYS / name).read_text().splitlines()
            if line.strip() and not line.startswith("#")]


@pytest.fixture
def store(tmp_path):
    opened = Store(str(tmp_path / "duels.sqlite"), concurrent=True)
    opened.path = str(tmp_path / "duels.sqlite")
    yield opened
    opened.close()


@pytest.fixture
def client(store):
    from fastapi.testclient import TestClient
    with TestClient(create_app(store, digest(ADMIN))) as test_client:
        yield test_client


def match_file(key: OrganiserKey) -> bytes:
    from ygoreplay.cards import CardDB
    return dumps(match_replay(open_match(REPLAYS / "matches" / "two-nil.jsonl", CardDB.classic()), key), key)


def judge_file(store: Store) -> bytes:
    records = Records(store)
    duel = store.create_duel("to export")
    store.append(duel, read_events(REPLAYS / "won-by-damage.jsonl"))
    return dumps(records.export(duel), store.key)


# -- a match file is not a duel (the one import command both faces call) --------------------------------

def test_a_signed_match_file_is_refused_as_a_duel_by_import_and_upload(store, client, tmp_path):
    data = match_file(store.key)
    with pytest.raises(InputError, match="this is a match file"):
        Records(store).import_replay(loads(data), None, trusted_keys([], store.key))
    r = client.post("/uploads", content=data, headers=ORGANISER)
    assert r.status_code == 400 and "this is a match file" in r.json()["error"], r.text
    path = tmp_path / "match.ygr"
    path.write_bytes(data)
    result = CliRunner().invoke(main, ["import", str(path), "--store", str(tmp_path / "cli.sqlite")])
    assert result.exit_code == 2 and "this is a match file" in result.output, result.output
    assert store.duels() == [] and store.duels("match") == []


# -- the same judge file twice is one duel -------------------------------------------------------------

def test_the_same_judge_file_uploaded_twice_is_one_duel(store, client, tmp_path):
    data = judge_file(store)
    first = client.post("/uploads", content=data, headers=ORGANISER)
    assert first.status_code == 201, first.text
    again = client.post("/uploads", content=data, headers=ORGANISER)
    assert again.status_code == 409 and again.json()["id"] == first.json()["id"], again.text
    assert len(store.duels()) == 2                     # the original and one copy
    path = tmp_path / "judge.ygr"
    path.write_bytes(data)
    result = CliRunner().invoke(main, ["import", str(path), "--store", store.path, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)[0]["skipped"] is True and json.loads(result.output)[0]["id"] == first.json()["id"]
    text = CliRunner().invoke(main, ["import", str(path), "--store", store.path])
    assert text.exit_code == 0 and text.stdout.strip() == first.json()["id"], text.output
    assert "already stored" in text.stderr and "skipped" in text.stderr, text.stderr
    assert len(store.duels()) == 2


# -- a laundered record says so to programs ------------------------------------------------------------

def laundered(store: Store, tmp_path: Path) -> tuple[str, Path]:
    """A judge file nobody trusted signed, imported with --unsigned and exported again (now signed
    by the organiser's key): its stored duel and the new file."""
    import dataclasses
    original = loads(judge_file(store))
    unsigned = tmp_path / "unsigned.ygr"
    unsigned.write_bytes(dumps(dataclasses.replace(original, match={"title": "from elsewhere"})))
    imported = CliRunner().invoke(main, ["import", str(unsigned), "--unsigned", "--store", store.path])
    assert imported.exit_code == 0, imported.output
    duel = imported.output.strip()
    again = tmp_path / "again.ygr"
    exported = CliRunner().invoke(main, ["export", duel, "-o", str(again), "--store", store.path])
    assert exported.exit_code == 0, exported.output
    return duel, again


def test_a_laundered_record_is_not_ok_for_verify_json_nor_the_service(store, client, tmp_path):
    duel, again = laundered(store, tmp_path)
    for target in (str(again), duel):
        result = CliRunner().invoke(main, ["verify", target, "--json", "--store", store.path])
        verdict = json.loads(result.output)
        assert verdict["origin"]["verified"] is False and "unsigned" in verdict["origin"]["why"], verdict
        assert verdict["ok"] is False and verdict["intact"] is True and result.exit_code == 1, verdict
        said = CliRunner().invoke(main, ["verify", target, "--store", store.path])
        assert said.exit_code == 1 and "NOT ok: origin unverified" in said.output, said.output
    r = client.post("/uploads", content=again.read_bytes(), headers=ORGANISER)
    assert r.status_code == 409 and r.json()["id"] == duel, r.text       # the same record, stored once
    verdict = client.get(f"/duels/{duel}/verify", headers=ORGANISER).json()
    assert verdict["ok"] is False and verdict["intact"] is True and verdict["origin"]["verified"] is False, verdict
    frames = client.get(f"/duels/{duel}/frames", headers=ORGANISER).json()
    assert frames["origin"]["verified"] is False
    honest = client.get(f"/duels/{Records(store).duels()[0].id}/verify", headers=ORGANISER).json()
    assert honest["ok"] is True and honest["origin"]["verified"] is True
    good = tmp_path / "good.ygr"
    good.write_bytes(judge_file(store))
    result = CliRunner().invoke(main, ["verify", str(good), "--json"])
    assert json.loads(result.output)["ok"] is True and json.loads(result.output)["origin"]["verified"] is True


# -- when what a duel hid is released --------------------------------------------------------------------

DAMAGE = "won-by-damage.jsonl"
READS = ["state", "events", "events?from=3", "cards", "tree", "verify", "frames", "frames?from=3", "diff?a=1&b=80",
         "state?at=40", "replay.ygr", "follow", "follow?format=frames"]


def ended_duel(client, **body) -> dict:
    """A public duel played to its end (won by damage) under the release policy ``body`` gives."""
    r = client.post("/duels", json={"title": "round 1, table 4", "visibility": "public", **body}, headers=ORGANISER)
    assert r.status_code == 201, r.text
    duel = r.json()
    r = client.post(f"/duels/{duel['id']}/events", json=events_of(DAMAGE), headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    return duel


def everything_read(client, duel_id: str, headers: dict, view: str | None = None) -> tuple[bytes, set[int]]:
    """Every read endpoint's answer (the view asked for, else the caller's own), and their statuses."""
    from ygoreplay.replay_file import decode_body
    haystack, statuses = b"", set()
    for path in READS:
        url = f"/duels/{duel_id}/{path}" + (("&" if "?" in path else "?") + f"view={view}" if view else "")
        if view and path.startswith(("tree", "verify")):
            continue                                 # no view to ask for
        r = client.get(url, headers=headers)
        statuses.add(r.status_code)
        haystack += r.content
        if path == "replay.ygr" and r.status_code == 200:
            import msgpack
            haystack += msgpack.packb(decode_body(r.content))
    return haystack, statuses


def leaked(haystack: bytes, hidden: set[int]) -> set[int]:
    from test_views import encodings
    return {code for code in hidden if any(p in haystack for p in encodings(code))}


@pytest.mark.parametrize("body", [{"release": "never"}, {"release": "event"}, {"event": "Regional, Swiss round 1"}],
                         ids=["never", "event", "an event's duel"])
def test_an_ended_duel_releases_nothing_hidden_before_its_time(client, body):
    from test_views import never_public
    duel = ended_duel(client, **body)
    d, t = duel["id"], duel["tokens"]
    for who, headers in (("spectator", auth(t["spectator"])), ("spectator", {}), ("p1", auth(t["p1"]))):
        haystack, statuses = everything_read(client, d, headers)
        assert statuses == {200}, (who, statuses)
        hidden = never_public(DAMAGE.removesuffix(".jsonl"), who)
        assert hidden and not leaked(haystack, hidden), (who, leaked(haystack, hidden))
        _, statuses = everything_read(client, d, headers, view="judge")
        assert statuses == {403}, (who, statuses)
        assert "judge" not in client.get(f"/duels/{d}/frames", headers=headers).json()["views"]


def test_the_organiser_releases_an_events_duels_and_then_every_reader_sees_them(client):
    from test_views import never_public
    duel = ended_duel(client, event="Regional, Swiss round 1")
    d, t = duel["id"], duel["tokens"]
    assert client.post(f"/duels/{d}/release", headers=auth(t["judge"])).status_code == 403
    assert client.get(f"/duels/{d}/state?view=judge", headers=auth(t["p1"])).status_code == 403
    r = client.post(f"/duels/{d}/release", headers=ORGANISER)
    assert r.status_code == 200 and r.json()["released"] is True, r.text
    hidden = never_public(DAMAGE.removesuffix(".jsonl"), "spectator")
    for headers in (auth(t["spectator"]), {}, auth(t["p1"])):
        haystack, statuses = everything_read(client, d, headers, view="judge")
        assert statuses == {200}, statuses
        assert leaked(haystack, hidden) == hidden
        assert "judge" in client.get(f"/duels/{d}/frames", headers=headers).json()["views"]
    never = ended_duel(client, release="never")
    assert client.post(f"/duels/{never['id']}/release", headers=ORGANISER).status_code == 409


def test_an_events_duels_are_released_at_the_time_given_and_a_casual_duel_at_its_end(client):
    from ygoreplay.chain import now
    from datetime import datetime, timedelta
    soon = (datetime.fromisoformat(now()) + timedelta(seconds=1.5)).isoformat()
    duel = ended_duel(client, release="event", release_at=soon)
    spectator = auth(duel["tokens"]["spectator"])
    assert client.get(f"/duels/{duel['id']}/state?view=judge", headers=spectator).status_code == 403
    time.sleep(2)
    assert client.get(f"/duels/{duel['id']}/state?view=judge", headers=spectator).status_code == 200
    casual = client.post("/duels", json={"title": "casual"}, headers=ORGANISER).json()
    spectator = auth(casual["tokens"]["spectator"])
    events = events_of(DAMAGE)
    client.post(f"/duels/{casual['id']}/events", json=events[:-1], headers=auth(casual["tokens"]["recorder"]))
    assert client.get(f"/duels/{casual['id']}/state?view=judge", headers=spectator).status_code == 403
    client.post(f"/duels/{casual['id']}/events", json=events[-1:], headers=auth(casual["tokens"]["recorder"]))
    assert client.get(f"/duels/{casual['id']}/state?view=judge", headers=spectator).status_code == 200


def test_a_release_policy_is_checked_at_creation(client):
    for body, where in (({"release": "later"}, "release"), ({"release": "end", "release_at": "2030-01-01T00:00:00+00:00"},
                                                             "release_at"),
                        ({"release": "event", "release_at": "tomorrow"}, "release_at"), ({"event": 3}, "event")):
        r = client.post("/duels", json=body, headers=ORGANISER)
        assert r.status_code == 400 and r.json()["where"] == where, (body, r.text)


# -- the README's service example, with the samples as they are --------------------------------------------

def test_a_sample_posted_as_json_lines_with_its_comments_is_appended(client):
    duel = client.post("/duels", json={"title": "from a sample"}, headers=ORGANISER).json()
    sample = (REPLAYS / DAMAGE).read_bytes()
    assert sample.startswith(b"#")                       # the samples carry comments
    r = client.post(f"/duels/{duel['id']}/events", content=sample,
                    headers={**auth(duel["tokens"]["recorder"]), "Content-Type": "application/x-ndjson"})
    assert r.status_code == 200 and r.json()["position"] == len(events_of(DAMAGE)), r.text
    bad = client.post(f"/duels/{duel['id']}/events", content=b"# a comment\n{\"kind\": \"no_such_kind\"}\n",
                      headers={**auth(duel["tokens"]["recorder"]), "Content-Type": "application/x-ndjson"})
    assert bad.status_code == 400 and bad.json()["where"] == "body:2", bad.text


def test_a_match_and_its_duels_release_decklists_and_hidden_cards_when_the_organiser_says(client):
    """A match is an event's: its decklists and its duels' hidden cards stay the players' own
    after it ended, until the organiser releases the match (its duels with it)."""
    sample = [json.loads(line) for line in (REPLAYS / "matches" / "two-nil.jsonl").read_text().splitlines()
              if line.strip() and not line.startswith("#")]
    start = sample[0]
    body = {"title": "round 1", "visibility": "public", "players": start["players"], "policy": start["policy"],
            "banlist": {"name": start["banlist"], "limits": start.get("limits", [])},
            "decklists": [{k: ev[k] for k in ("main", "extra", "side")} for ev in sample[1:3]]}
    r = client.post("/matches", json=body, headers=ORGANISER)
    assert r.status_code == 201, r.text
    m, t = r.json()["id"], r.json()["tokens"]
    duels = []
    for ev in sample[3:]:
        if ev["kind"] == "game_started":
            made = client.post(f"/matches/{m}/games", json={"first_player": ev["first_player"],
                                                             "chosen_by": ev["chosen_by"]}, headers=auth(t["recorder"]))
            assert made.status_code == 201, made.text
            duels.append(made.json()["duel"]["id"])
            events = events_of(f"matches/{ev['duel']}")
            assert client.post(f"/duels/{duels[-1]}/events", json=events, headers=auth(t["recorder"])).status_code == 200
        elif ev["kind"] == "game_ended":
            assert client.post(f"/matches/{m}/games/{ev['game']}/end", json={}, headers=auth(t["recorder"])).status_code == 200
        else:
            assert client.post(f"/matches/{m}/result", json={}, headers=auth(t["recorder"])).status_code == 200
    for headers in (auth(t["p1"]), {}):
        assert client.get(f"/matches/{m}/state?view=judge", headers=headers).status_code == 403
        state = client.get(f"/matches/{m}/state", headers=headers).json()
        assert "main" not in state["decks"][0]
        for duel in duels:
            assert client.get(f"/duels/{duel}/state?view=judge", headers=headers).status_code == 403
    assert client.post(f"/matches/{m}/release", headers=auth(t["judge"])).status_code == 403
    r = client.post(f"/matches/{m}/release", headers=ORGANISER)
    assert r.status_code == 200 and r.json()["released"] is True, r.text
    for headers in (auth(t["p1"]), {}):
        state = client.get(f"/matches/{m}/state?view=judge", headers=headers)
        assert state.status_code == 200 and state.json()["decks"][0]["main"] == sample[1]["main"]
        assert "judge" in client.get(f"/matches/{m}", headers=headers).json()["views"]
        for duel in duels:
            assert client.get(f"/duels/{duel}/state?view=judge", headers=headers).status_code == 200
        whole = loads(client.get(f"/matches/{m}/replay.ygr?view=judge", headers=headers).content)
        assert whole.view == "judge" and [loads(g).view for g in whole.games] == ["judge", "judge"]


def test_the_command_line_records_a_duel_under_a_release_policy_and_releases_it(store, client):
    run = CliRunner().invoke
    recorded = run(main, ["record", str(REPLAYS / DAMAGE), "--event", "Regional, Swiss round 2", "--store", store.path])
    assert recorded.exit_code == 0, recorded.output
    duel = recorded.output.strip()
    refused = run(main, ["record", str(REPLAYS / DAMAGE), "--release", "end", "--release-at", "2030-01-01T00:00:00Z",
                         "--store", store.path])
    assert refused.exit_code == 2 and "release_at is for the event policy" in refused.output, refused.output
    assert len(store.duels()) == 1, "nothing recorded by a refused command"
    from ygoreplay.access import Access
    settings = Access.from_dict(store.attachment(duel, "access"))
    assert settings.policy(False) == "event" and not settings.releases(True, False)
    released = run(main, ["release", duel, "--store", store.path])
    assert released.exit_code == 0 and "released" in released.output, released.output
    assert Access.from_dict(store.attachment(duel, "access")).releases(True, False)
    casual = run(main, ["record", str(REPLAYS / DAMAGE), "--store", store.path]).output.strip()
    again = run(main, ["release", casual, "--store", store.path])
    assert again.exit_code == 3 and "'end'" in again.output, again.output


def test_a_branch_played_to_its_end_releases_nothing_while_its_parent_goes_on(client):
    """A judge's what-if line keeps its parent's hands and deck orders: ended, it is released no
    sooner than its parent (the parent's players hold tokens that open it)."""
    duel = client.post("/duels", json={"title": "casual", "visibility": "public"}, headers=ORGANISER).json()
    d, t = duel["id"], duel["tokens"]
    events = events_of(DAMAGE)
    assert client.post(f"/duels/{d}/events", json=events[:60], headers=auth(t["recorder"])).status_code == 200
    branch = client.post(f"/duels/{d}/branch", json={"at": 59}, headers=auth(t["judge"])).json()["id"]
    assert client.post(f"/duels/{branch}/events", json=events[60:], headers=auth(t["recorder"])).status_code == 200
    assert client.get(f"/duels/{branch}/state", headers=ORGANISER).json()["board"]["ended"]
    for headers in (auth(t["p0"]), {}):
        assert client.get(f"/duels/{branch}/state?view=judge", headers=headers).status_code == 403
    assert client.post(f"/duels/{d}/events", json=events[60:], headers=auth(t["recorder"])).status_code == 200
    time.sleep(1.1)                                    # a branch asks again at most once a second
    for headers in (auth(t["p0"]), {}):
        assert client.get(f"/duels/{branch}/state?view=judge", headers=headers).status_code == 200


def test_an_uploaded_record_of_an_event_keeps_its_hidden_cards_until_the_event_ends(store, client):
    r = client.post("/uploads?event=Regional&visibility=public", content=judge_file(store), headers=ORGANISER)
    assert r.status_code == 201, r.text
    duel, tokens = r.json()["id"], r.json()["tokens"]
    assert client.get(f"/duels/{duel}/state?view=judge", headers=auth(tokens["p1"])).status_code == 403
    assert client.post(f"/duels/{duel}/release", headers=ORGANISER).status_code == 200
    assert client.get(f"/duels/{duel}/state?view=judge", headers=auth(tokens["p1"])).status_code == 200
    refused = client.post("/uploads?release=sometime", content=judge_file(store), headers=ORGANISER)
    assert refused.status_code == 400
