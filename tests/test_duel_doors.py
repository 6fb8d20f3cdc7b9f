"""Every write into a duel through one door (issue 21): the command line (``append``,
``rollback``, ``note``), the typed endpoints (``/rollback``, ``/notes``) and the raw
``/duels/{id}/events`` endpoint hand each event to ``Records.append_records``, which checks who
may write its kind (``access.WRITERS``) before the rules check the event. So the same refused
input is refused the same way through each door, with the same rule ID, and nothing is written.
"""
from __future__ import annotations

import json

import httpx
import pytest
from click.testing import CliRunner

from test_match_doors import service  # noqa: F401  (fixture: a service on a SQLite store whose path it names)
from test_service import ADMIN, auth, events_of
from ygoreplay.cli import main

PART = events_of("won-by-damage.jsonl")[:40]           # a duel in progress: 40 events, play going on


def new_duel(base: str) -> dict:
    duel = httpx.post(f"{base}/duels", json={"title": "table 4", "visibility": "unlisted"}, headers=auth(ADMIN)).json()
    r = httpx.post(f"{base}/duels/{duel['id']}/events", json=PART, headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    return duel


def length(base: str, duel: dict) -> int:
    return httpx.get(f"{base}/duels/{duel['id']}/state", headers=auth(duel["tokens"]["judge"])).json()["events"]


def cli(service, tmp_path, *args: str):
    """A command on the same store, as the organiser at the machine runs it (the service keeps
    no state the store does not: it reads what another process appended)."""
    return CliRunner().invoke(main, [*args, "--store", str(service.path)])


def raw_file(tmp_path, *events: dict) -> str:
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return str(path)


ROLLBACKS = {
    # what a judge's rollback sends, and the rule every door refuses it with
    "no judge": ({"to": 30, "judge": "", "reason": "wrong tribute"}, "MATCH-08"),
    "no reason": ({"to": 30, "judge": "A. Judge", "reason": "  "}, "MATCH-08"),
    "to the start": ({"to": 0, "judge": "A. Judge", "reason": "misplay"}, "LOG-02"),
    "past the end": ({"to": 40, "judge": "A. Judge", "reason": "misplay"}, "LOG-02"),
}


@pytest.mark.parametrize("case", list(ROLLBACKS))
def test_a_refused_rollback_is_refused_alike_through_every_door(service, tmp_path, case):
    base = service.url
    body, rule = ROLLBACKS[case]
    duel = new_duel(base)
    judge = duel["tokens"]["judge"]
    typed = httpx.post(f"{base}/duels/{duel['id']}/rollback", json=body, headers=auth(judge))
    raw = httpx.post(f"{base}/duels/{duel['id']}/events", json=[{"kind": "rolled_back", **body}], headers=auth(judge))
    by_organiser = httpx.post(f"{base}/duels/{duel['id']}/events", json=[{"kind": "rolled_back", **body}],
                              headers=auth(ADMIN))
    for answer in (typed, raw, by_organiser):
        assert answer.status_code == 422, answer.text
        assert answer.json()["rule"] == rule and answer.json()["index"] == 40
    appended = cli(service, tmp_path, "append", duel["id"], raw_file(tmp_path, {"kind": "rolled_back", **body}))
    assert appended.exit_code == 1 and appended.stderr.startswith(f"#40 {rule} "), appended.output
    typed_cli = cli(service, tmp_path, "rollback", duel["id"], "--to", str(body["to"]), "--judge", body["judge"],
                    "--reason", body["reason"])
    assert typed_cli.exit_code == 1 and typed_cli.stderr.startswith(f"#40 {rule} "), typed_cli.output
    note_cli = cli(service, tmp_path, "note", duel["id"], "a note", "--judge", " ")
    assert note_cli.exit_code == 1 and note_cli.stderr.startswith("#40 MATCH-08 "), note_cli.output
    assert length(base, duel) == 40, "nothing written"


def test_a_nameless_judge_note_is_refused_alike_through_every_door(service, tmp_path):
    base = service.url
    duel = new_duel(base)
    judge = duel["tokens"]["judge"]
    typed = httpx.post(f"{base}/duels/{duel['id']}/notes", json={"judge": " ", "text": "warned for slow play"},
                       headers=auth(judge))
    raw = httpx.post(f"{base}/duels/{duel['id']}/events",
                     json=[{"kind": "judge_note", "judge": " ", "note": "warned for slow play"}], headers=auth(judge))
    for answer in (typed, raw):
        assert answer.status_code == 422 and answer.json()["rule"] == "MATCH-08", answer.text
    appended = cli(service, tmp_path, "append", duel["id"],
                   raw_file(tmp_path, {"kind": "judge_note", "judge": " ", "note": "warned for slow play"}))
    assert appended.exit_code == 1 and appended.stderr.startswith("#40 MATCH-08 "), appended.output
    bad_category = {"judge": "A. Judge", "text": "x", "category": "gossip"}
    typed = httpx.post(f"{base}/duels/{duel['id']}/notes", json=bad_category, headers=auth(judge))
    raw = httpx.post(f"{base}/duels/{duel['id']}/events", headers=auth(judge),
                     json=[{"kind": "judge_note", "judge": "A. Judge", "note": "x", "category": "gossip"}])
    assert typed.status_code == raw.status_code == 400
    assert "'gossip' is not one of call, ruling, penalty, warning, note, time" in typed.json()["error"]
    assert "'gossip' is not one of call, ruling, penalty, warning, note, time" in raw.json()["error"]
    assert length(base, duel) == 40, "nothing written"


def test_who_may_write_each_kind_is_one_table_whatever_the_door(service):
    """A rollback is the judge's through /rollback and through the raw endpoint alike; play is
    the recorder's; a player or a spectator writes nothing."""
    base = service.url
    duel = new_duel(base)
    t = duel["tokens"]
    rollback = {"kind": "rolled_back", "to": 30, "judge": "A. Judge", "reason": "wrong tribute"}
    by_recorder = httpx.post(f"{base}/duels/{duel['id']}/events", json=[rollback], headers=auth(t["recorder"]))
    assert by_recorder.status_code == 403 and "rolled_back" in by_recorder.json()["error"]
    typed_by_recorder = httpx.post(f"{base}/duels/{duel['id']}/rollback", json={k: v for k, v in rollback.items()
                                                                              if k != "kind"},
                                   headers=auth(t["recorder"]))
    assert typed_by_recorder.status_code == 403
    play = events_of("won-by-damage.jsonl")[40]
    by_judge = httpx.post(f"{base}/duels/{duel['id']}/events", json=[play], headers=auth(t["judge"]))
    assert by_judge.status_code == 403 and play["kind"] in by_judge.json()["error"]
    for role in ("p0", "p1", "spectator"):
        refused = httpx.post(f"{base}/duels/{duel['id']}/events", json=[play], headers=auth(t[role]))
        assert refused.status_code == 403, role
    assert length(base, duel) == 40, "nothing written"
    # the judge's rollback through the raw endpoint is the one /rollback writes
    done = httpx.post(f"{base}/duels/{duel['id']}/events", json=[rollback], headers=auth(t["judge"]))
    assert done.status_code == 200 and done.json()["position"] == 41
    log = httpx.get(f"{base}/duels/{duel['id']}/events?from=40", headers=auth(t["judge"])).text.splitlines()
    assert json.loads(log[0])["event"] == rollback


def test_an_illegal_play_is_refused_alike_by_the_command_line_and_the_service(service, tmp_path):
    base = service.url
    duel = new_duel(base)
    illegal = {"kind": "life_points_changed", "player": 1, "amount": 600, "reason": "effect_damage", "lp": 1}
    served = httpx.post(f"{base}/duels/{duel['id']}/events", json=[illegal], headers=auth(duel["tokens"]["recorder"]))
    assert served.status_code == 422, served.text
    appended = cli(service, tmp_path, "append", duel["id"], raw_file(tmp_path, illegal))
    assert appended.exit_code == 1, appended.output
    assert appended.stderr.startswith(f"#40 {served.json()['rule']} {served.json()['message']}")
    assert length(base, duel) == 40, "nothing written"


def test_a_branch_or_a_release_refused_is_refused_alike_by_the_command_line_and_the_service(service, tmp_path):
    base = service.url
    duel = new_duel(base)
    for at in (40, 10 ** 6):
        served = httpx.post(f"{base}/duels/{duel['id']}/branch", json={"at": at}, headers=auth(duel["tokens"]["judge"]))
        assert served.status_code == 400, served.text
        done = cli(service, tmp_path, "branch", duel["id"], "--at", str(at))
        assert done.exit_code == 2 and served.json()["error"] in done.stderr, done.output
    # a casual duel releases at its end: the event's call is refused alike (Access.release_now)
    served = httpx.post(f"{base}/duels/{duel['id']}/release", headers=auth(ADMIN))
    assert served.status_code == 409, served.text
    done = cli(service, tmp_path, "release", duel["id"])
    assert done.exit_code == 3 and served.json()["error"] in done.stderr, done.output
    assert length(base, duel) == 40, "nothing written"
