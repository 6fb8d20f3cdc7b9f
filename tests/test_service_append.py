"""The append route's direct handling (``service.core.DirectRoute``): a recorder's plain request
(``?expected=N`` or no query) skips FastAPI's dependency solving, and is answered byte for byte
as FastAPI's own handler answers it; any other query goes through FastAPI's handler, its
validation errors as before."""
from __future__ import annotations

import json

import fastapi.routing
import pytest

from test_release import ORGANISER, auth, client, events_of, store  # noqa: F401  (the fixtures)

SAMPLE = events_of("won-by-damage.jsonl")


@pytest.fixture
def solved(monkeypatch) -> list[int]:
    """How many times FastAPI solved a route's dependencies (its own handler ran)."""
    calls: list[int] = []
    real = fastapi.routing.solve_dependencies

    async def counted(*args, **kwargs):
        calls.append(1)
        return await real(*args, **kwargs)
    monkeypatch.setattr(fastapi.routing, "solve_dependencies", counted)
    return calls


def _duel(client) -> dict:  # noqa: F811
    r = client.post("/duels", json={"title": "direct"}, headers=ORGANISER)
    assert r.status_code == 201, r.text
    return r.json()


def _same_but_for(left: bytes, right: bytes) -> bytes:
    """``right`` with the values only one duel or moment has (its id, head, time, signature)
    replaced by ``left``'s: what remains must be the same bytes."""
    a, b = json.loads(left), json.loads(right)
    swaps = [(b["receipt"][k], a["receipt"][k]) for k in ("duel", "head", "time", "signature")]
    for theirs, ours in swaps:
        right = right.replace(theirs.encode(), ours.encode())
    return right


def test_a_plain_append_skips_dependency_solving_and_answers_the_same_bytes(client, solved):  # noqa: F811
    one, two = _duel(client), _duel(client)
    solved.clear()
    events = SAMPLE[:12]
    direct = client.post(f"/duels/{one['id']}/events?expected=0", json=events, headers=auth(one["tokens"]["recorder"]))
    assert direct.status_code == 200, direct.text
    assert solved == []                                # the direct path
    # a query the direct path does not read itself: FastAPI's own handler, the same endpoint
    standard = client.post(f"/duels/{two['id']}/events?expected=0&also=1", json=events,
                           headers=auth(two["tokens"]["recorder"]))
    assert standard.status_code == 200, standard.text
    assert solved                                      # FastAPI solved its dependencies
    assert _same_but_for(direct.content, standard.content) == direct.content
    assert json.loads(direct.content)["position"] == 12 and json.loads(direct.content)["flags"] == []
    for header in ("content-type", "content-language", "cache-control", "content-length"):
        assert direct.headers[header] == standard.headers[header]
    # no query at all is plain too
    solved.clear()
    more = client.post(f"/duels/{one['id']}/events", json=SAMPLE[12:14], headers=auth(one["tokens"]["recorder"]))
    assert more.status_code == 200 and more.json()["position"] == 14 and solved == []


@pytest.mark.parametrize("query, status, where", [
    ("expected=abc", 400, "query.expected"), ("expected=-1", 400, "query.expected"),
    ("expected=1000000001", 400, "query.expected"), ("expected=99999999999", 400, "query.expected"),
    ("expected=05", 409, None), ("expected=3", 409, None)])
def test_other_queries_are_validated_and_refused_as_before(client, solved, query, status, where):  # noqa: F811
    duel = _duel(client)
    r = client.post(f"/duels/{duel['id']}/events?{query}", json=SAMPLE[:2], headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == status, r.text
    if where is not None:                              # FastAPI's validation, answered as every 400 is
        assert [p["where"] for p in r.json()["problems"]] == [where] and solved
    else:
        assert "the duel has 0 events" in r.json()["error"] or "someone else appended" in r.json()["error"]
    assert client.get(f"/duels/{duel['id']}/events", headers=ORGANISER).text == ""    # nothing was written


def test_errors_of_the_direct_path_are_the_services(client, solved):  # noqa: F811
    duel = _duel(client)
    solved.clear()
    recorder = auth(duel["tokens"]["recorder"])
    assert client.post(f"/duels/{duel['id']}/events?expected=0", content=b"[", headers=recorder).status_code == 400
    wrong = client.post(f"/duels/{duel['id']}/events?expected=0", json=SAMPLE[:1], headers=auth("not-a-token"))
    assert wrong.status_code == 404 and wrong.json() == {"error": f"no duel {duel['id']!r}"}   # unlisted
    spectator = client.post(f"/duels/{duel['id']}/events?expected=0", json=SAMPLE[:1],
                            headers=auth(duel["tokens"]["spectator"]))
    assert spectator.status_code == 403
    missing = client.post("/duels/0123456789ab/events?expected=0", json=SAMPLE[:1], headers=recorder)
    assert missing.status_code == 404 and missing.json() == {"error": "no duel '0123456789ab'"}
    broken = [*SAMPLE[:3], {**SAMPLE[3], "kind": "no_such_kind"}]
    bad = client.post(f"/duels/{duel['id']}/events?expected=0", json=broken, headers=recorder)
    assert bad.status_code == 400 and bad.json()["where"] == "event 3"
    assert solved == []                                # all of them answered by the direct path
    # a token in the query (a link) is read by FastAPI's handler, as before
    linked = client.post(f"/duels/{duel['id']}/events?expected=0&token={duel['tokens']['recorder']}",
                         json=SAMPLE[:2])
    assert linked.status_code == 200 and linked.json()["position"] == 2


def test_the_append_operation_is_documented_by_its_signature_as_before(client):  # noqa: F811
    operation = client.get("/openapi.json").json()["paths"]["/duels/{duel_id}/events"]["post"]
    assert operation["operationId"] == "append_duels__duel_id__events_post" and operation["tags"] == ["recorder"]
    duel_id, expected = operation["parameters"]
    assert (duel_id["name"], duel_id["in"], duel_id["required"]) == ("duel_id", "path", True)
    assert (expected["name"], expected["in"], expected["required"]) == ("expected", "query", False)
    assert expected["schema"]["anyOf"] == [{"type": "integer", "maximum": 1000000000, "minimum": 0}, {"type": "null"}]
    assert set(operation["requestBody"]["content"]) == {"application/json", "application/x-ndjson"}
    assert set(operation["responses"]) == {"200", "422"}


def test_a_dependency_added_where_the_route_is_included_is_never_skipped(client, solved):  # noqa: F811
    from fastapi import Depends, FastAPI
    from fastapi.testclient import TestClient
    from ygoreplay.service import duels
    from ygoreplay.service.common import _errors
    checked: list[str] = []
    app = FastAPI()
    app.state.service = client.app.state.service
    _errors(app)
    app.include_router(duels.router, dependencies=[Depends(lambda: checked.append("checked"))])
    duel = _duel(client)
    with TestClient(app) as other:
        r = other.post(f"/duels/{duel['id']}/events?expected=0", json=SAMPLE[:2], headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200 and r.json()["position"] == 2 and checked == ["checked"] and solved
