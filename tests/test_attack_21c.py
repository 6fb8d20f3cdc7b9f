"""Attacks on issue 21, round three: several worker processes on one PostgreSQL store, the
witness, the match file's command-line doors and the pages, each against the real program:
what each must do instead."""
from __future__ import annotations

import collections
import time
import uuid

import httpx
import pytest

from test_attack_21 import DUEL
from test_match_service import MATCHES, create, lines, post
from test_service import ADMIN, Server, auth


@pytest.fixture(scope="module")
def workers():
    """``ygoreplay serve --workers 2`` on a PostgreSQL schema of its own (dropped after)."""
    from psycopg import sql
    from test_store import POSTGRES, _pg_connect
    schema = f"t_{uuid.uuid4().hex}"
    with _pg_connect() as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
    srv = None
    try:
        srv = Server(f"{POSTGRES}?schema={schema}", workers=2)
        yield srv
    finally:
        if srv is not None:
            srv.stop()
        with _pg_connect() as conn:
            conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))


# -- several processes -------------------------------------------------------------------------------

def test_a_match_released_by_the_organiser_is_released_on_every_worker(workers):
    """A public match under the ``event`` policy has ended; the organiser's ``POST
    /matches/{id}/release`` lands on one worker. Each worker had read the match's access before:
    a second later the judge view must be given alike whichever worker answers (a duel's release
    is read again at most once a second; a match's was read once, so the other worker refused
    it for as long as it ran)."""
    base = workers.url
    match = create(base, lines(MATCHES / "two-nil.jsonl"), visibility="public")
    m, t = match["id"], match["tokens"]
    made = post(base, f"/matches/{m}/games", t["recorder"], {"first_player": 0, "chosen_by": 0}, 201)
    post(base, f"/duels/{made['duel']['id']}/events", t["recorder"], DUEL)
    post(base, f"/matches/{m}/games/1/end", t["recorder"])
    post(base, f"/matches/{m}/concede", t["recorder"], {"player": 1})
    post(base, f"/matches/{m}/result", t["recorder"])
    paths = (f"/matches/{m}/state?view=judge", f"/matches/{m}/replay.ygr?view=judge", f"/matches/{m}?view=judge")
    before = collections.Counter(httpx.get(f"{base}{p}").status_code for _ in range(8) for p in paths)
    assert before == {403: 24}, before            # each worker has read the match, and refuses
    assert httpx.post(f"{base}/matches/{m}/release", headers=auth(ADMIN)).status_code == 200
    time.sleep(1.1)
    after = collections.Counter((p, httpx.get(f"{base}{p}", headers=h).status_code)
                                for _ in range(8) for p in paths for h in ({}, auth(t["p1"])))
    assert set(after) == {(p, 200) for p in paths}, after
