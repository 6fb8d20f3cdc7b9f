"""Issue 21, the organiser's side of a record: when hidden cards are released, whether an origin
is trusted, what a face may import, and the README's service example."""
from __future__ import annotations

import json
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
    assert len(store.duels()) == 2
