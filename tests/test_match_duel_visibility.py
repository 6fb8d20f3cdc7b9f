"""A duel goes into no match that shows more people than the duel does (issue 25, fourteenth
pass; ``access.linkable_into``).

What was wrong: a private duel (no spectator token at all) could be linked into a public match by
its own recorder's token; the match then carried its events to anyone: inside the match's
spectator ``replay.ygr``, which anyone may download for a public match, and through the match's
spectator token, which has the spectator's role in each duel of the match. Now the link is
refused (409, ``where: duel``) through the typed and the raw door alike, and nothing is written;
a duel is linked into a match only when the match is no wider than the duel
(private < unlisted < public).
"""
from __future__ import annotations

import httpx
import pytest

from test_match_doors import private_duel, service, started  # noqa: F401  (fixture: the service)
from test_match_service import MATCHES, create, lines, post
from test_service import auth
from ygoreplay.replay_file import loads

WIDER = ("private", "unlisted", "public")


def _links(base: str, match_sees: str, duel_sees: str) -> tuple[dict, dict, dict]:
    """A match and a duel recorded to its end, and what linking the duel with its recorder's token
    through the typed door answered (409 when refused)."""
    match = create(base, lines(MATCHES / "two-nil.jsonl"), visibility=match_sees)
    duel = private_duel(base, duel_sees)
    r = httpx.post(f"{base}/matches/{match['id']}/games", json={"duel": duel["id"], "duel_token": duel["tokens"]["recorder"]},
                   headers=auth(match["tokens"]["recorder"]))
    return match, duel, {"status": r.status_code, **r.json()}


@pytest.mark.parametrize("match_sees", ["public", "unlisted"])
def test_a_duel_is_linked_only_into_a_match_no_wider_than_itself(service, match_sees):
    base = service.url
    for duel_sees in WIDER[:WIDER.index(match_sees)]:
        match, duel, typed = _links(base, match_sees, duel_sees)
        m, t, rec = match["id"], match["tokens"], duel["tokens"]["recorder"]
        raw = post(base, f"/matches/{m}/events?duel_token={rec}", t["recorder"], [started(duel["id"])], 409)
        assert typed["status"] == 409 and typed["where"] == raw["where"] == "duel", typed
        assert f"is {duel_sees} and the match is {match_sees}" in typed["error"]
        assert httpx.get(f"{base}/matches/{m}/state", headers=auth(t["judge"])).json()["games"] == [], "nothing written"
        # the match's spectators get nothing of the duel: not in its file, not through its token
        for token in [t["spectator"], None] if match_sees == "public" else [t["spectator"]]:
            r = httpx.get(f"{base}/matches/{m}/replay.ygr", headers=auth(token) if token else {})
            assert r.status_code == 200 and loads(r.content).games == []
        assert httpx.get(f"{base}/duels/{duel['id']}/state", headers=auth(t["spectator"])).status_code != 200
    # a duel watched by as many as the match is, or more, is linked, and so is a private duel
    # into a private match
    for duel_sees, into in [(sees, match_sees) for sees in WIDER[WIDER.index(match_sees):]] + [("private", "private")]:
        match, duel, typed = _links(base, into, duel_sees)
        assert typed["status"] == 201, (duel_sees, into, typed)
        if "spectator" in match["tokens"]:
            r = httpx.get(f"{base}/matches/{match['id']}/replay.ygr", headers=auth(match["tokens"]["spectator"]))
            assert len(loads(r.content).games) == 1
