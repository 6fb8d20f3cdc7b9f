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


# -- the witness -------------------------------------------------------------------------------------

def test_a_store_cut_back_under_a_running_service_gets_no_receipt_and_is_listed_behind(tmp_path):
    """The store is cut back to its first append while ``serve --witness`` runs. The witness
    holds the head of 89 events: the service must not sign a receipt of the cut head (``GET
    /receipt`` signed one for 60 events, dated after the witnessed 89: the organiser's key
    vouching for the cut), and the organiser's list says the duel is behind its witness, as
    ``list --witness`` does."""
    from test_receipts import FIRST, cut_back
    from test_service import events_of
    store, witness = str(tmp_path / "duels.sqlite"), str(tmp_path / "witness.sqlite")
    events = events_of("won-by-damage.jsonl")
    server = Server(store, env={"YGOREPLAY_WITNESS": witness})
    try:
        base = server.url
        made = httpx.post(f"{base}/duels", json={"visibility": "public"}, headers=auth(ADMIN)).json()
        duel, recorder, judge = made["id"], auth(made["tokens"]["recorder"]), auth(made["tokens"]["judge"])
        post(base, f"/duels/{duel}/events", made["tokens"]["recorder"], events[:FIRST])
        post(base, f"/duels/{duel}/events", made["tokens"]["recorder"], events[FIRST:])
        (listed,) = httpx.get(f"{base}/duels", headers=auth(ADMIN)).json()
        assert listed["behind_witness"] is None, listed
        cut_back(store, duel, FIRST)
        for who in (recorder, judge):
            signed = httpx.get(f"{base}/duels/{duel}/receipt", headers=who)
            assert signed.status_code == 409, signed.text
            assert "its witness signed at" in signed.json()["error"], signed.text
        (listed,) = httpx.get(f"{base}/duels", headers=auth(ADMIN)).json()
        assert listed["events"] == FIRST and listed["behind_witness"].startswith(
            f"the store holds {FIRST} events but its witness signed at "), listed
    finally:
        server.stop()


@pytest.mark.parametrize("command", [["verify", "{duel}"], ["list"], ["serve", "--port", "0"]])
def test_a_store_is_not_its_own_witness(tmp_path, command):
    """``--witness`` naming the store's own file: the witness's table sits in the store, and
    whoever cuts the store cuts it too, so it proves nothing while every answer says
    ``witnessed``. Refused (exit 2) before anything is read or served, as an unreachable one is."""
    import subprocess
    import sys
    from test_store import DAMAGE, REPLAYS
    from test_store_cli import run
    store = str(tmp_path / "duels.sqlite")
    duel = run("record", REPLAYS / DAMAGE, url=store).stdout.strip()
    for witness in (store, f"sqlite:///{store}", str(tmp_path / "." / "duels.sqlite")):
        try:
            done = subprocess.run([sys.executable, "-m", "ygoreplay", *[part.format(duel=duel) for part in command],
                                   "--store", store, "--witness", witness], capture_output=True, text=True, timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{command[0]} --witness {witness} ran on with the store as its own witness")
        assert done.returncode == 2 and "is the store itself" in done.stderr, (witness, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr


def test_a_witness_edited_to_claim_more_events_does_not_make_an_intact_store_broken(tmp_path):
    """Someone edits the witness (not the store) so that its head claims 500 events: its
    signature no longer holds. The verification is not ok (the witness cannot vouch), but the
    store's chain is intact and nothing was removed from it: ``verify`` must say the witness is
    what was altered, not "BROKEN at event 89" with ``intact: false`` and a first bad link, and
    ``list`` must not call the duel behind its witness."""
    import json
    import sqlite3
    from test_store import DAMAGE, REPLAYS
    from test_store_cli import run
    store, witness = str(tmp_path / "duels.sqlite"), str(tmp_path / "witness.sqlite")
    duel = run("record", REPLAYS / DAMAGE, "--witness", witness, url=store).stdout.strip()
    with sqlite3.connect(witness) as conn:
        conn.execute("UPDATE ygoreplay_witness SET events = 500 WHERE events = 89")
    conn.close()
    checked = json.loads(run("verify", duel, "--json", "--witness", witness, url=store).stdout)
    assert checked["ok"] is False and "witness" in checked["problem"], checked
    assert (checked["intact"], checked["first_bad_link"]) == (True, None), checked
    said = run("verify", duel, "--witness", witness, url=store).stdout
    assert "BROKEN at event" not in said and "witness" in said, said
    assert "BEHIND ITS WITNESS" not in run("list", "--witness", witness, url=store).stdout
