"""Attacks on issue 21's doors, each a variant a fix may have missed, against a real
``ygoreplay serve``: what each must do instead."""
from __future__ import annotations

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
    duel = httpx.post(f"{base}/duels", json={"visibility": "private"}, headers=auth(ADMIN)).json()
    post(base, f"/duels/{duel['id']}/events", duel["tokens"]["recorder"], DUEL)
    batch = [{"kind": "game_started", "game": 1, "duel": duel["id"], "first_player": 0, "chosen_by": 0},
             {"kind": "game_ended", "game": 1, "winner": 1, "how": "lp"}]
    refused = post(base, f"/matches/{m}/events?duel_token={duel['tokens']['recorder']}", t["recorder"], batch, 422)
    assert refused["rule"] == "LOG-09"
    state = httpx.get(f"{base}/matches/{m}/state", headers=auth(t["judge"])).json()
    assert state["games"] == [], "nothing written"
