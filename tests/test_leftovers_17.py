"""What the sixteenth pass's closing note left (issue 25, seventeenth pass).

* ``show``, ``log`` and ``play`` ``--view p0`` (p1, spectator) of a judge's what-if branch read
  the what-if (its own events: Kaiba's Axe from his hand, his cost) while its parent hid what it
  played, where ``export`` and ``lp-sheet`` stop where the service's views stop: every command
  line reader of a stored duel now opens it as far as the view may see it (``Source.seen``, cut
  by ``source.stored_cut``), and ``play`` cuts each view it switches to (ZONE-12, ZONE-13).
"""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from test_attack_25ag import _what_if
from test_attack_25ao import COST
from test_device_names import ADMIN, ORGANISER, auth
from test_store import fresh_url
from ygoreplay.access import digest
from ygoreplay.cli import main
from ygoreplay.service import create_app
from ygoreplay.store import Store

VIEWS = ("p0", "p1", "spectator")


@pytest.fixture
def branch(tmp_path):
    """A store with the judge's branch of a running duel in which Kaiba equips the Axe from his
    hand and pays 1000 LP, and how many of its events each view's token reads from the service."""
    with fresh_url("sqlite", tmp_path / "duels.sqlite") as url:
        with Store(url, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
            duel, branch_id = _what_if(client, "end")
            judge = auth(duel["tokens"]["judge"])
            paid = client.post(f"/duels/{branch_id}/events", json=[COST], headers=auth(duel["tokens"]["recorder"]))
            assert paid.status_code == 200, paid.text
            served = {}
            for view in ("judge", *VIEWS):
                answer = client.get(f"/duels/{branch_id}/events", params={"view": view}, headers=judge)
                assert answer.status_code == 200, answer.text
                served[view] = len(answer.text.splitlines())
        assert all(served[view] < served["judge"] for view in VIEWS), served
        yield url, branch_id, served


def _run(*args: str, input: str | None = None) -> str:
    result = CliRunner().invoke(main, list(args), input=input)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("view", VIEWS)
def test_zone_12_log_of_a_what_if_branch_for_a_view_stops_where_the_services_does(branch, view):
    url, branch_id, served = branch
    lines = _run("log", branch_id, "--store", url, "--view", view, "--json").splitlines()
    indices = [json.loads(line)["index"] for line in lines]
    assert max(indices) == served[view] - 1, (indices, served)
    judged = _run("log", branch_id, "--store", url, "--json").splitlines()
    assert max(json.loads(line)["index"] for line in judged) == served["judge"] - 1


@pytest.mark.parametrize("view", VIEWS)
def test_zone_12_show_of_a_what_if_branch_for_a_view_is_its_board_where_it_left(branch, view):
    url, branch_id, served = branch
    shown = _run("show", branch_id, "--store", url, "--view", view)
    assert f"after event #{served[view] - 1} " in shown, shown
    refused = CliRunner().invoke(main, ["show", branch_id, "--store", url, "--view", view,
                                        "--at", str(served["judge"] - 1)])
    assert refused.exit_code != 0 and "outside the duel's events" in refused.output, refused.output


def test_zone_12_play_of_a_what_if_branch_cuts_every_view_it_is_switched_to(branch):
    """``play`` opened as the judge (every event) and switched to Kaiba's view: the what-if's
    events were his to step to; opened in his view, it held them too."""
    url, branch_id, served = branch
    last, cut = served["judge"] - 1, served["p1"] - 1
    judged = _run("play", branch_id, "--store", url, "--plain", input=f"j {last}\nv p1\nj {last}\nq\n")
    assert f"event #{last}/{last}:" in judged, judged
    assert f"event #{cut}/{cut}:" in judged and f"no event {last}: the last is #{cut}" in judged, judged
    viewed = _run("play", branch_id, "--store", url, "--view", "p1", "--plain", input=f"j {last}\nq\n")
    assert f"event #0/{cut}:" in viewed and f"event #{cut}/{cut}:" in viewed, viewed
    assert f"/{last}:" not in viewed, viewed


# -- the framework's refusals, said as the service's ------------------------------------------------

@pytest.fixture
def client(tmp_path):
    with Store(str(tmp_path / "duels.sqlite"), concurrent=True) as store, \
            TestClient(create_app(store, digest(ADMIN))) as served:
        yield served


@pytest.mark.parametrize("method, path, status, allowed", [
    ("OPTIONS", "/duels", 405, "POST"), ("DELETE", "/duels", 405, "POST"), ("PUT", "/health", 405, "GET"),
    ("GET", "/no-such-page", 404, None), ("POST", "/duels/0123456789ab/no-such", 404, None)])
def test_a_method_or_address_no_route_takes_is_refused_in_the_services_shape_and_language(
        client, method, path, status, allowed):
    """OPTIONS /duels answered 405 ``{"detail": "Method Not Allowed"}`` and an unknown address
    404 ``{"detail": "Not Found"}``, in English whatever the reader's language, where every other
    refusal says ``error`` and ``message`` and, to a Japanese reader, ``message_translated``."""
    answer = client.request(method, path, headers={"Accept-Language": "ja"})
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert "detail" not in body and body["error"] == body["message"] and path in body["message"], body
    translated = body["message_translated"]
    assert translated != body["message"] and path in translated, body
    assert answer.headers.get("allow") == allowed and answer.headers["content-language"] == "ja"
    english = client.request(method, path).json()
    assert english == {"error": body["error"], "message": body["message"]}, english


def test_a_head_request_no_route_takes_keeps_its_allow_header(client):
    """A regression guard (it passed before): the refusal, said anew, keeps the router's ``Allow``.
    (A path with a GET route answers HEAD as GET since tests/test_leftovers_18.py: one that takes
    POST only.)"""
    answer = client.head("/rounds", headers={"Accept-Language": "ja"})
    assert answer.status_code == 405 and answer.headers["allow"] == "POST"
    assert answer.headers["content-language"] == "ja"


def test_a_fault_of_the_services_own_is_said_as_a_refusal_in_the_readers_language(tmp_path, monkeypatch):
    """A route that fails (here the rule pop-up's seed folder, made to raise) answered Starlette's
    plain ``Internal Server Error``, in English and in no shape a client reads the others in."""
    import ygoreplay.seeds

    def broken(*_args):
        raise RuntimeError("the seed folder broke")
    monkeypatch.setattr(ygoreplay.seeds, "seeds_folder", broken)
    with Store(str(tmp_path / "duels.sqlite"), concurrent=True) as store, \
            TestClient(create_app(store, digest(ADMIN)), raise_server_exceptions=False) as served:
        answer = served.get("/rules/SUM-04", headers={"Accept-Language": "ko"})
    assert answer.status_code == 500 and answer.headers["content-language"] == "ko", answer.text
    body = answer.json()
    assert body["error"] == body["message"] == "the service failed on this request (its log says why)", body
    assert body["message_translated"] != body["message"] and "seed folder" not in answer.text, body


def test_the_document_says_a_request_that_does_not_fit_is_refused_as_the_service_refuses_it(client):
    """The OpenAPI document promised FastAPI's 422 ``{"detail": [...]}`` for a request whose
    parameters do not fit, where the service answers 400 in the shape of every refusal."""
    document = client.get("/openapi.json").json()
    assert "HTTPValidationError" not in json.dumps(document)
    refusal = document["components"]["schemas"]["Refusal"]
    documented = document["paths"]["/duels/{duel_id}/events"]["get"]["responses"]
    assert "422" not in documented
    assert documented["400"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Refusal"}
    duel = client.post("/duels", json={"title": "shape"}, headers=ORGANISER).json()
    answer = client.get(f"/duels/{duel['id']}/events", params={"view": "nobody"},
                        headers={**auth(duel["tokens"]["judge"]), "Accept-Language": "zh-Hans"})
    assert answer.status_code == 400, answer.text
    body = answer.json()
    assert set(refusal["required"]) <= set(body) <= set(refusal["properties"]), body
    assert body["code"] == "invalid_request" and body["message_translated"] != body["message"], body
