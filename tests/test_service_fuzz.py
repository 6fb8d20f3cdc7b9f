"""The service against its own OpenAPI document (schemathesis): whatever a request holds, no
500 and no traceback. Requests are sent as each role (organiser, recorder, judge, players,
spectator, nobody) to a real duel and a real match (with a duel of its own) and to made-up ids; ``YGOREPLAY_FUZZ_EXAMPLES`` sets how many
per operation (default 25)."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error

from ygoreplay.access import digest
from ygoreplay.service import create_app
from ygoreplay.store import Store

ADMIN = "fuzz-organiser-token-0123456789abcdef012345678"
REPLAYS = Path(__file__).resolve().parent.parent / "replays"
EXAMPLES = int(os.environ.get("YGOREPLAY_FUZZ_EXAMPLES", "25"))


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    from fastapi.testclient import TestClient
    store = Store(str(tmp_path_factory.mktemp("fuzz") / "service.sqlite"), concurrent=True)
    app = create_app(store, digest(ADMIN))
    client = TestClient(app)
    client.__enter__()
    duel = client.post("/duels", json={"title": "fuzz", "visibility": "public"},
                       headers={"Authorization": f"Bearer {ADMIN}"}).json()
    events = [json.loads(line) for line in (REPLAYS / "won-by-damage.jsonl").read_text().splitlines()
              if line.strip() and not line.startswith("#")]
    assert client.post(f"/duels/{duel['id']}/events", json=events[:60],
                       headers={"Authorization": f"Bearer {duel['tokens']['recorder']}"}).status_code == 200
    sample = [json.loads(line) for line in (REPLAYS / "matches" / "two-nil.jsonl").read_text().splitlines()
              if line.strip() and not line.startswith("#")]
    start = sample[0]
    match = client.post("/matches", headers={"Authorization": f"Bearer {ADMIN}"}, json={
        "title": "fuzz", "visibility": "public", "players": start["players"], "policy": start["policy"],
        "banlist": {"name": start["banlist"], "limits": start["limits"]},
        "decklists": [{k: ev[k] for k in ("main", "extra", "side")} for ev in sample[1:3]]})
    assert match.status_code == 201, match.text
    match = match.json()
    game = client.post(f"/matches/{match['id']}/games", json={"first_player": 0, "chosen_by": 0},
                       headers={"Authorization": f"Bearer {match['tokens']['recorder']}"})
    assert game.status_code == 201, game.text
    yield {"app": app, "duel": duel, "match": match}
    client.__exit__(None, None, None)
    store.close()


def _operations(world) -> list:
    api = schemathesis.openapi.from_asgi("/openapi.json", world["app"])
    return [result.ok() for result in api.get_all_operations()]


def test_the_document_has_every_operation(world):
    names = {f"{op.method.upper()} {op.path}" for op in _operations(world)}
    assert {"POST /duels", "POST /duels/{duel_id}/events", "GET /duels/{duel_id}/state",
            "GET /duels/{duel_id}/follow", "POST /uploads", "GET /health"} <= names
    assert {"POST /matches", "GET /matches", "GET /matches/{match_id}", "GET /matches/{match_id}/state",
            "GET /matches/{match_id}/replay.ygr", "GET /matches/{match_id}/verify", "GET /matches/{match_id}/follow",
            "POST /matches/{match_id}/events", "POST /matches/{match_id}/decklists", "POST /matches/{match_id}/games",
            "POST /matches/{match_id}/games/{game}/end", "POST /matches/{match_id}/swaps",
            "POST /matches/{match_id}/time", "POST /matches/{match_id}/extra-turns", "POST /matches/{match_id}/decide",
            "POST /matches/{match_id}/penalties", "POST /matches/{match_id}/judge-calls",
            "POST /matches/{match_id}/rulings", "POST /matches/{match_id}/appeals", "POST /matches/{match_id}/concede",
            "POST /matches/{match_id}/result"} <= names


def test_no_request_makes_the_service_fail(world):
    """Each operation's requests as schemathesis builds them from the document (hypothesis runs
    them; schemathesis's pytest plugin is not used, so no plugin ties the suite to its versions)."""
    duel, match = world["duel"], world["match"]
    tokens = [ADMIN, *duel["tokens"].values(), *match["tokens"].values(), None, "not-a-token"]
    for operation in _operations(world):
        if operation.path.endswith("/follow"):
            continue                                   # a stream that stays open: tested for real
        seen = []

        @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(case=operation.as_strategy(), pick=st.integers(0, 2 * len(tokens) - 1))
        def run(case, pick):
            if case.path_parameters and "duel_id" in case.path_parameters and pick % 2 == 0:
                case.path_parameters["duel_id"] = duel["id"]
            if case.path_parameters and "match_id" in case.path_parameters and pick % 2 == 0:
                case.path_parameters["match_id"] = match["id"]
            token = tokens[pick // 2]
            response = case.call(headers={"Authorization": f"Bearer {token}"} if token else {})
            case.validate_response(response, checks=[not_a_server_error])
            assert b"Traceback" not in response.content
            seen.append(response.status_code)
        run()
        assert seen, operation.path
