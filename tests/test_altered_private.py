"""A duel or match refused because its header was altered in the database (409, ``"verification":
false``) is said to be altered only to whoever may see it: the organiser, a token its access grants,
anyone on a public one. Anyone else holding its id gets exactly what an id that names nothing gets,
on every route that reads it: a private duel's 409 told a stranger that it exists (issue 25)."""
from __future__ import annotations

import msgpack
import pytest
from fastapi.testclient import TestClient

from ygoreplay.access import digest
from ygoreplay.service import create_app
from ygoreplay.store import Store

from test_live_vouched import _retitle
from test_match_service import MATCHES, lines, match_body
from test_release import ADMIN, DAMAGE, ORGANISER, auth, events_of
from test_store import _set_state, _state

UNKNOWN = "0123456789ab"        # an id that names nothing

#: Each route kind that reads a duel: a page's JSON, the views, a stream, an export, a board, a
#: branch, the judge's writes and an append (the service's own lane).
DUEL_ROUTES = [("GET", "/duels/{id}/state"), ("GET", "/duels/{id}/events"), ("GET", "/duels/{id}/frames"),
               ("GET", "/duels/{id}/follow"), ("GET", "/duels/{id}/replay.ygr"), ("GET", "/duels/{id}/receipt"),
               ("GET", "/duels/{id}/board.svg"), ("GET", "/duels/{id}/board.png"), ("GET", "/duels/{id}/tree"),
               ("GET", "/duels/{id}/verify"), ("POST", "/duels/{id}/verify"), ("GET", "/duels/{id}/cards"),
               ("GET", "/duels/{id}/lp-sheet"), ("GET", "/duels/{id}/lp-sheet.csv"), ("GET", "/duels/{id}/diff?a=1&b=2"),
               ("GET", "/duels/{id}/actions"), ("POST", "/duels/{id}/branch"), ("POST", "/duels/{id}/rollback"),
               ("POST", "/duels/{id}/notes"), ("POST", "/duels/{id}/events"), ("POST", "/duels/{id}/release")]
MATCH_ROUTES = [("GET", "/matches/{id}"), ("GET", "/matches/{id}/state"), ("GET", "/matches/{id}/follow"),
                ("GET", "/matches/{id}/replay.ygr"), ("GET", "/matches/{id}/verify"), ("POST", "/matches/{id}/decklists"),
                ("POST", "/matches/{id}/games"), ("POST", "/matches/{id}/games/1/end"), ("POST", "/matches/{id}/concede"),
                ("POST", "/matches/{id}/judge-calls"), ("POST", "/matches/{id}/result"),
                ("POST", "/matches/{id}/events"), ("POST", "/matches/{id}/release"), ("GET", "/record/match/{id}")]


@pytest.fixture(scope="module")
def altered(tmp_path_factory):
    """A private duel, an unlisted duel, a public duel and an unlisted match, each with events and
    its header then altered, and an unaltered duel and match whose tokens are a stranger's; served
    by a new process (nothing held from before the alteration)."""
    path = str(tmp_path_factory.mktemp("altered") / "duels.sqlite")
    made: dict[str, dict] = {}
    with Store(path, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        for name, visibility in (("private", "private"), ("unlisted", "unlisted"), ("public", "public"),
                                 ("other", "private")):
            r = client.post("/duels", json={"title": name, "visibility": visibility}, headers=ORGANISER)
            assert r.status_code == 201, r.text
            made[name] = r.json()
            r = client.post(f"/duels/{made[name]['id']}/events", json=events_of(DAMAGE)[:6],
                            headers=auth(made[name]["tokens"]["recorder"]))
            assert r.status_code == 200, r.text
        sample = lines(MATCHES / "two-nil.jsonl")
        for name in ("match", "other match"):
            r = client.post("/matches", json=match_body(sample), headers=ORGANISER)
            assert r.status_code == 201, r.text
            made[name] = r.json()
    for name in ("private", "unlisted", "public", "match"):
        _retitle(path, made[name]["id"])
    with Store(path, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        yield client, made, path


def _ask(client: TestClient, method: str, route: str, stream_id: str, headers: dict):
    return client.request(method, route.format(id=stream_id), headers=headers, json={})


def _same(client: TestClient, method: str, route: str, stream_id: str, headers: dict) -> None:
    """The answer for ``stream_id`` is the unknown id's: status, body and headers alike."""
    found = _ask(client, method, route, stream_id, headers)
    unknown = _ask(client, method, route, UNKNOWN, headers)
    assert found.status_code == unknown.status_code != 409, (route, found.status_code, found.text)
    assert found.content.replace(stream_id.encode(), UNKNOWN.encode()) == unknown.content, route
    assert dict(found.headers) == dict(unknown.headers), route


def _refused(client: TestClient, method: str, route: str, stream_id: str, headers: dict) -> None:
    found = _ask(client, method, route, stream_id, headers)
    assert found.status_code == 409, (route, found.status_code, found.text)
    assert found.json()["verification"] is False and "forged title" not in found.text


def _readers(made: dict, name: str, other: str) -> dict[str, dict]:
    tokens, others = made[name]["tokens"], made[other]["tokens"]
    return {"none": {}, "wrong": auth("not-a-token-of-anything"), "another's judge": auth(others["judge"]),
            "p0": auth(tokens["p0"]), "judge": auth(tokens["judge"]), "organiser": ORGANISER,
            **({"spectator": auth(tokens["spectator"])} if "spectator" in tokens else {})}


ENTITLED = {"p0", "judge", "organiser", "spectator"}


def _check(client: TestClient, method: str, route: str, stream_id: str, readers: dict[str, dict]) -> None:
    """The entitled are told it was altered, anyone else what an unknown id gets (an organiser's
    route answers every other token as it answers it for any id)."""
    for reader, headers in readers.items():
        if reader in ENTITLED and (reader == "organiser" or not route.endswith("/release")):
            _refused(client, method, route, stream_id, headers)
        else:
            _same(client, method, route, stream_id, headers)


@pytest.mark.parametrize("method, route", DUEL_ROUTES)
@pytest.mark.parametrize("name", ["private", "unlisted"])
def test_an_altered_duel_is_unknown_to_a_stranger_and_409_to_whoever_may_see_it(altered, name, method, route):
    client, made, _path = altered
    _check(client, method, route, made[name]["id"], _readers(made, name, "other"))


@pytest.mark.parametrize("method, route", MATCH_ROUTES)
def test_an_altered_match_is_unknown_to_a_stranger_and_409_to_whoever_may_see_it(altered, method, route):
    client, made, _path = altered
    _check(client, method, route, made["match"]["id"], _readers(made, "match", "other match"))


@pytest.mark.parametrize("route", ["/duels/{id}/state", "/duels/{id}/follow", "/duels/{id}/events"])
def test_a_token_in_the_address_is_judged_as_one_in_the_header(altered, route):
    """The viewer's links carry the token in the address (``?token=``): the same decision."""
    client, made, _path = altered
    duel, tokens = made["private"]["id"], made["private"]["tokens"]
    _refused(client, "GET", f"{route}?token={tokens['p0']}", duel, {})
    _same(client, "GET", f"{route}?token={made['other']['tokens']['judge']}", duel, {})


def test_an_altered_public_duel_is_409_to_anyone_and_a_wrong_token_is_401_as_ever(altered):
    """A public duel is listed: anyone may learn it was altered; a wrong token is told it is
    none of the duel's (401), as on the duel unaltered."""
    client, made, _path = altered
    duel = made["public"]["id"]
    _refused(client, "GET", "/duels/{id}/state", duel, {})
    _refused(client, "GET", "/duels/{id}/state", duel, auth(made["public"]["tokens"]["spectator"]))
    assert client.get(f"/duels/{duel}/state", headers=auth("not-a-token-of-anything")).status_code == 401


def test_an_unreadable_access_record_grants_nothing_but_the_organisers(tmp_path):
    """The access record is not signed: one rewritten so that it does not read grants no token
    anything, and nobody but the organiser learns the duel was altered."""
    path = str(tmp_path / "duels.sqlite")
    with Store(path, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        duel = client.post("/duels", json={"title": "t", "visibility": "public"}, headers=ORGANISER).json()
        assert client.post(f"/duels/{duel['id']}/events", json=events_of(DAMAGE)[:4],
                           headers=auth(duel["tokens"]["recorder"])).status_code == 200
    _retitle(path, duel["id"])
    _set_state(path, f"{duel['id']}/access", 0, msgpack.packb(["not", "a", "map"]))
    with Store(path, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        for headers in ({}, auth(duel["tokens"]["judge"]), auth(duel["tokens"]["spectator"])):
            _same(client, "GET", "/duels/{id}/state", duel["id"], headers)
        _refused(client, "GET", "/duels/{id}/state", duel["id"], ORGANISER)


@pytest.mark.parametrize("route", ["/view/{id}", "/embed/{id}", "/record/{id}", "/match/{id}",
                                   "/oembed?url=http://testserver/view/{id}"])
def test_a_page_of_an_altered_duel_or_match_is_the_page_of_one_not_there(altered, route):
    """The pages carry no record (their script asks the JSON routes above): the altered one's page
    and link preview are those of an id that names nothing, for every reader."""
    client, made, _path = altered
    for name in ("private", "unlisted", "public", "match"):
        for headers in _readers(made, name, "other").values():
            _same(client, "GET", route, made[name]["id"], headers)


def test_a_round_shows_a_table_whose_match_was_altered_as_one_not_started(tmp_path):
    """A round's page names its tables' matches to anyone (no token): one whose match's header was
    altered is shown as a table with nothing played, with no word of the refusal."""
    path = str(tmp_path / "duels.sqlite")
    body = {"event": "Locals", "round": 1, "tables": [{"table": 7, "players": ["Yugi", "Kaiba"]},
                                                      {"table": 9, "players": ["Joey", "Mai"]}]}
    with Store(path, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        kept = client.post("/rounds", json=body, headers=ORGANISER).json()
    _retitle(path, kept["tables"][0]["match"])
    with Store(path, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        answer, page = client.get(f"/rounds/{kept['id']}.json"), client.get(f"/rounds/{kept['id']}").text
    assert answer.status_code == 200
    tables = answer.json()["tables"]
    shown = {k: v for k, v in tables[0].items() if k not in ("table", "players", "match")}
    assert shown == {k: v for k, v in tables[1].items() if k not in ("table", "players", "match")}
    assert "verif" not in page + str(tables) and "forged title" not in page + str(tables)


def test_the_public_list_of_matches_leaves_out_an_altered_one_as_that_of_duels_does(tmp_path):
    """Anyone's list of matches showed an altered public match under its forged title; the
    organiser's still names it, as not signed."""
    path = str(tmp_path / "duels.sqlite")
    sample = lines(MATCHES / "two-nil.jsonl")
    with Store(path, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        made = [client.post("/matches", json=match_body(sample, visibility="public"), headers=ORGANISER).json()["id"]
                for _ in range(2)]
    _retitle(path, made[0])
    with Store(path, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        assert [m["id"] for m in client.get("/matches").json()] == made[1:]
        listed = {m["id"]: m["signed"] for m in client.get("/matches", headers=ORGANISER).json()}
        assert listed == {made[0]: False, made[1]: True}


def test_a_header_altered_to_another_kind_is_refused_as_altered_not_as_absent(tmp_path):
    """The header's kind is what was altered, as its title: it decides nothing. A private duel
    made a "match" in the database was 404 to its organiser and players too (its kind read before
    its signature); it is the 409 of an altered duel to them, an unknown id to anyone else."""
    path = str(tmp_path / "duels.sqlite")
    with Store(path, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        duel = client.post("/duels", json={"title": "t", "visibility": "private"}, headers=ORGANISER).json()
        assert client.post(f"/duels/{duel['id']}/events", json=events_of(DAMAGE)[:4],
                           headers=auth(duel["tokens"]["recorder"])).status_code == 200
    envelope = msgpack.unpackb(_state(path, duel["id"], 0))
    envelope["header"]["kind"] = "match"
    _set_state(path, duel["id"], 0, msgpack.packb(envelope))
    with Store(path, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        for route in ("/duels/{id}/state", "/matches/{id}/state"):
            for headers in (ORGANISER, auth(duel["tokens"]["p0"])):
                _refused(client, "GET", route, duel["id"], headers)
            for headers in ({}, auth("not-a-token-of-anything")):
                _same(client, "GET", route, duel["id"], headers)
