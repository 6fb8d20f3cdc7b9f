"""Attacks on issue 21's doors, each a variant a fix may have missed, against a real
``ygoreplay serve``: what each must do instead."""
from __future__ import annotations

import json

import httpx
import pytest

from test_match_service import MATCHES, create, lines, post
from test_service import ADMIN, Server, auth

DUEL = lines(MATCHES / "duels" / "g1-yugi-wins.jsonl")      # player 0 wins, on LP


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    srv = Server(str(tmp_path_factory.mktemp("attack") / "service.sqlite"))
    yield srv
    srv.stop()


def test_a_batch_linking_an_ended_duel_cannot_end_it_against_its_record(service):
    """One raw batch links a duel that has ended and ends it the other way: the duel is not
    linked in the store yet when the ending is checked, so LOG-09 must read the duel the batch
    links (as /games then /games/1/end would)."""
    base = service.url
    match = create(base, lines(MATCHES / "two-nil.jsonl"))
    m, t = match["id"], match["tokens"]
    duel = httpx.post(f"{base}/duels", json={"visibility": "unlisted"}, headers=auth(ADMIN)).json()     # as the match
    post(base, f"/duels/{duel['id']}/events", duel["tokens"]["recorder"], DUEL)
    batch = [{"kind": "game_started", "game": 1, "duel": duel["id"], "first_player": 0, "chosen_by": 0},
             {"kind": "game_ended", "game": 1, "winner": 1, "how": "lp"}]
    refused = post(base, f"/matches/{m}/events?duel_token={duel['tokens']['recorder']}", t["recorder"], batch, 422)
    assert refused["rule"] == "LOG-09"
    state = httpx.get(f"{base}/matches/{m}/state", headers=auth(t["judge"])).json()
    assert state["games"] == [], "nothing written"


def test_a_released_matchs_problems_name_no_card_of_a_duel_never_released(service):
    """A public match released at its end, one of its duels under the ``never`` policy with a
    Side Deck card not on the decklist: anyone may ask for the match's judge view, and its
    ``problems`` must not name that card (the match file hides it already)."""
    from ygoreplay.cards import CardDB
    base = service.url
    sample = lines(MATCHES / "two-nil.jsonl")
    used = {c for e in sample + DUEL for part in ("main", "extra", "side") for c in e.get(part) or []}
    hidden = next(c for c in sorted(CardDB.classic()) if c not in used and c > 10 ** 6)
    events = [dict(e) for e in DUEL]
    events[2] = {**events[2], "side": events[2]["side"][:4] + [hidden]}     # player 1's Side Deck
    # public as the match is (a private duel goes into no public match: test_match_duel_visibility)
    duel = httpx.post(f"{base}/duels", json={"visibility": "public", "release": "never"}, headers=auth(ADMIN)).json()
    post(base, f"/duels/{duel['id']}/events", duel["tokens"]["recorder"], events)
    match = create(base, sample, visibility="public", release="end")
    m, t = match["id"], match["tokens"]
    link = {"duel": duel["id"], "duel_token": duel["tokens"]["recorder"]}
    post(base, f"/matches/{m}/games", t["recorder"], link, 201)
    post(base, f"/matches/{m}/games/1/end", t["recorder"])
    post(base, f"/matches/{m}/concede", t["recorder"], {"player": 1})
    post(base, f"/matches/{m}/result", t["recorder"])
    judged = httpx.get(f"{base}/matches/{m}/state?view=judge", headers=auth(t["judge"])).json()
    assert str(hidden) in json.dumps(judged["problems"]), "the match's judge sees the problem"
    for reader in ({}, auth(t["spectator"]), auth(t["p0"])):
        r = httpx.get(f"{base}/matches/{m}/state?view=judge", headers=reader)
        assert r.status_code == 200, r.text
        assert str(hidden).encode() not in r.content
