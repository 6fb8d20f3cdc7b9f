"""Doors, sixteenth pass: three writes that still had a second path.

* A match's release was written by its HTTP route itself (not ``Records.release``), and the
  command line's ``ygoreplay release MATCH`` was refused ("no duel matches"): now one command,
  ``Records.release``, for a duel or a match, with the same checks (the ``event`` policy) and the
  same refusals; a duel of a match follows its match's release, so releasing it alone (which
  answered "released" and released nothing) is refused alike, naming the match.
* A judge's branch sent again (its answer lost) made a second branch: the request's key
  (``Idempotency-Key``, ``branch --key``) is the branch's claim, the retry answered with it.
* An uploaded ``.ygr`` whose duel says witnessed got a machine's access record, its players'
  devices refused: a new duel's mode is what its first events say, at every door (``_moded``).
"""
from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from test_release import ORGANISER, auth, client, events_of, store  # noqa: F401  (fixtures)
from test_service_table_recording import at_the_table
from ygoreplay.access import Access
from ygoreplay.cli import main

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


def _cli(store, *args: str):  # noqa: F811
    """A command on the service's store, as the organiser at the machine runs it."""
    return CliRunner().invoke(main, [*args, "--store", store.path])


def _match(client, **extra) -> dict:  # noqa: F811
    """A match through POST /matches, from the two-nil sample's start and decklists."""
    sample = [json.loads(line) for line in (REPLAYS / "matches" / "two-nil.jsonl").read_text().splitlines()
              if line.strip() and not line.startswith("#")]
    start = sample[0]
    body = {"title": "round 1", "players": start["players"], "policy": start["policy"],
            "banlist": {"name": start["banlist"], "limits": start.get("limits", [])},
            "decklists": [{k: ev[k] for k in ("main", "extra", "side")} for ev in sample[1:3]], **extra}
    r = client.post("/matches", json=body, headers=ORGANISER)
    assert r.status_code == 201, r.text
    return r.json()


def _released(store, stream_id: str) -> bool:  # noqa: F811
    return Access.from_dict(store.attachment(stream_id, "access")).released


# -- a match's release: one command for the service and the command line ---------------------------------

def test_a_match_is_released_by_the_command_line_as_by_the_service(store, client):  # noqa: F811
    """``ygoreplay release MATCH`` was refused ("no duel matches"): the organiser at the machine
    releases a match as ``POST /matches/{id}/release`` does, through ``Records.release``."""
    match = _match(client)
    done = _cli(store, "release", match["id"])
    assert done.exit_code == 0 and "released" in done.output, done.output
    assert _released(store, match["id"])
    # a match released at its end (policy end) is refused alike, the same words, nothing written
    casual = _match(client, release="end")
    served = client.post(f"/matches/{casual['id']}/release", headers=ORGANISER)
    assert served.status_code == 409, served.text
    refused = _cli(store, "release", casual["id"])
    assert refused.exit_code == 3 and served.json()["error"] in refused.stderr, refused.output
    assert not _released(store, casual["id"])


def test_a_duel_of_a_match_is_released_by_its_match_alike_through_every_door(store, client):  # noqa: F811
    """A game's hidden cards are the player's deck for the games to come: a duel of a match with
    no release settings of its own follows its match (``library_search.released``). Its own
    release answered "released" and released nothing; now every door refuses it, naming the match."""
    match = _match(client)
    made = client.post(f"/matches/{match['id']}/games", json={"first_player": 0, "chosen_by": 0},
                       headers=auth(match["tokens"]["recorder"]))
    assert made.status_code == 201, made.text
    duel = made.json()["duel"]["id"]
    served = client.post(f"/duels/{duel}/release", headers=ORGANISER)
    assert served.status_code == 409 and match["id"] in served.json()["error"], served.text
    refused = _cli(store, "release", duel)
    assert refused.exit_code == 3 and served.json()["error"] in refused.stderr, refused.output
    assert not _released(store, duel)
    translated = client.post(f"/duels/{duel}/release?lang=ja", headers=ORGANISER).json()
    assert translated["message_translated"] != translated["error"] and match["id"] in translated["message_translated"]
    assert client.post(f"/matches/{match['id']}/release", headers=ORGANISER).status_code == 200
    assert _released(store, match["id"])


# -- a branch sent again is the branch it made ------------------------------------------------------------

def test_a_judges_branch_sent_again_with_its_key_is_the_branch_it_made(store, client):  # noqa: F811
    """The judge's page sends one ``Idempotency-Key`` per branch asked for: a retry (the answer
    lost) is answered with that branch, never a second one; ``branch --key`` is the same command."""
    duel = client.post("/duels", json={"title": "table 3"}, headers=ORGANISER).json()
    d, judge = duel["id"], auth(duel["tokens"]["judge"])
    assert client.post(f"/duels/{d}/events", json=events_of("won-by-damage.jsonl")[:20],
                       headers=auth(duel["tokens"]["recorder"])).status_code == 200
    keyed = {**judge, "Idempotency-Key": "3f1c9a2e-7b44-4d0e-9a1f-5c2b8e6d0a17"}
    first = client.post(f"/duels/{d}/branch", json={"at": 12, "title": "no trap"}, headers=keyed)
    again = client.post(f"/duels/{d}/branch", json={"at": 12, "title": "no trap"}, headers=keyed)
    assert first.status_code == again.status_code == 201, again.text
    assert again.json() == first.json()
    branches = [info for info in store.duels() if info.parent == d]
    assert [info.id for info in branches] == [first.json()["id"]], "one branch, however often it is sent"
    # the command line is the same command: the same key answers the same branch
    by_cli = _cli(store, "branch", d, "--at", "12", "--title", "no trap", "--key", keyed["Idempotency-Key"])
    assert by_cli.exit_code == 0 and by_cli.stdout.strip() == first.json()["id"], by_cli.output
    # a key names one request: another branch under it is refused alike, nothing written
    other = client.post(f"/duels/{d}/branch", json={"at": 5}, headers=keyed)
    assert other.status_code == 409 and first.json()["id"] in other.json()["error"], other.text
    refused = _cli(store, "branch", d, "--at", "5", "--key", keyed["Idempotency-Key"])
    assert refused.exit_code == 3 and other.json()["error"] in refused.stderr, refused.output
    bad = client.post(f"/duels/{d}/branch", json={"at": 5}, headers={**judge, "Idempotency-Key": "a b"})
    assert bad.status_code == 400, bad.text
    assert len([info for info in store.duels() if info.parent == d]) == 1
    # a new key (a new request) is a new branch
    second = client.post(f"/duels/{d}/branch", json={"at": 12, "title": "no trap"},
                         headers={**judge, "Idempotency-Key": "another-request"})
    assert second.status_code == 201 and second.json()["id"] != first.json()["id"]


# -- an uploaded witnessed duel stays witnessed -----------------------------------------------------------

def test_an_uploaded_witnessed_duel_keeps_its_mode_as_the_command_line_records_it(store, client, tmp_path):  # noqa: F811
    """A judge file of a duel played at a table (its duel_started witnessed), uploaded, was given a
    machine's access record: its players' devices were refused. Its mode is what its events say,
    as ``ygoreplay import`` and ``record --witnessed --release`` keep it."""
    duel, _recorder = at_the_table(client)
    judge_file = client.get(f"/duels/{duel['id']}/replay.ygr", headers=auth(duel["tokens"]["judge"]))
    assert judge_file.status_code == 200, judge_file.text
    r = client.post("/uploads", content=judge_file.content, headers=ORGANISER)
    assert r.status_code == 201, r.text
    uploaded = r.json()
    assert Access.from_dict(store.attachment(uploaded["id"], "access")).mode == "witnessed"
    assert set(uploaded["record"]) == {"recorder", "p0", "p1"}, "each player's device records its own side"
    actions = client.get(f"/duels/{uploaded['id']}/actions", headers=auth(uploaded["tokens"]["p0"]))
    assert actions.status_code == 200 and actions.json()["mode"] == "witnessed", actions.text
    # the command line: the same file imported is a witnessed duel, and a witnessed record served
    # under a release policy is a witnessed access record too
    path = tmp_path / "table.ygr"
    path.write_bytes(judge_file.content)
    elsewhere = str(tmp_path / "elsewhere.sqlite")
    imported = CliRunner().invoke(main, ["import", str(path), "--store", elsewhere])
    assert imported.exit_code == 0, imported.output
    from ygoreplay.store import Store
    with Store(elsewhere) as other:
        assert other.witnessed(imported.stdout.strip())[1]
    opening = [line for line in (REPLAYS / "lost-by-deck-out.jsonl").read_text().splitlines()
               if line.strip() and not line.startswith("#")][:9]
    (tmp_path / "duel.jsonl").write_text("\n".join(opening) + "\n")
    recorded = _cli(store, "record", str(tmp_path / "duel.jsonl"), "--witnessed", "--release", "event")
    assert recorded.exit_code in (0, 1), recorded.output
    assert Access.from_dict(store.attachment(recorded.stdout.strip(), "access")).mode == "witnessed"
