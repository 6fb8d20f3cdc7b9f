"""Attacks on issue 21's release policies, players' views, the duel door, receipts and the
service's resources, round two, against a real ``ygoreplay serve``: what each must do instead."""
from __future__ import annotations

import time

import httpx
import pytest

from test_attack_21 import DUEL, service  # noqa: F401  (fixture: a real ``ygoreplay serve``)
from test_match_service import MATCHES, create, lines, post
from test_service import auth


def test_a_match_released_at_its_end_releases_no_duel_of_it_before(service):
    """A match under ``release: end``: its first duel has ended, the match goes on. Its duels
    have no policy of their own and follow the match's, so what game 1 hid (player 0's hand
    and deck order: their deck for games 2 and 3) stays hidden from player 1 and from anyone
    until the match ends, through the duel's endpoints as through the match's."""
    base = service.url
    sample = lines(MATCHES / "two-nil.jsonl")
    match = create(base, sample, visibility="public", release="end")
    m, t = match["id"], match["tokens"]
    made = post(base, f"/matches/{m}/games", t["recorder"], {"first_player": 0, "chosen_by": 0}, 201)
    duel = made["duel"]["id"]
    post(base, f"/duels/{duel}/events", t["recorder"], DUEL)
    post(base, f"/matches/{m}/games/1/end", t["recorder"])
    for reader in (auth(t["p1"]), auth(t["spectator"]), {}):
        for path in ("state", "events", "frames", "replay.ygr", "cards"):
            r = httpx.get(f"{base}/duels/{duel}/{path}?view=judge", headers=reader)
            assert r.status_code == 403, (path, reader, r.status_code)
    post(base, f"/matches/{m}/concede", t["recorder"], {"player": 1})
    post(base, f"/matches/{m}/result", t["recorder"])
    time.sleep(1.1)                         # a duel's release is read again at most once a second
    for reader in (auth(t["p1"]), {}):
        r = httpx.get(f"{base}/duels/{duel}/state?view=judge", headers=reader)
        assert r.status_code == 200, "the match has ended: what its duels hid is everyone's"


# -- the duel door: a signed judge file holding a nameless judge's word -------------------------------

NAMELESS = ({"kind": "judge_note", "judge": "", "note": "", "category": "ruling"},
            {"kind": "rolled_back", "to": 3, "judge": " ", "reason": ""})


def nameless_file(store, extra: dict) -> bytes:
    """A judge file signed by the organiser's key whose last event is a judge's word with no
    judge and no reason: no typed, raw or command-line door lets one in (MATCH-08)."""
    from test_release import judge_file
    from ygoreplay.events import from_dict
    from ygoreplay.exchange import make_replay
    from ygoreplay.replay_file import dumps, loads
    base = loads(judge_file(store))
    replay = make_replay(base.events + [from_dict(extra)], base.times + [base.times[-1]], base.cards, "judge",
                         base.root, base.commit_key, base.match, base.source, base.created)
    return dumps(replay, store.key)


@pytest.mark.parametrize("extra", NAMELESS, ids=lambda e: e["kind"])
def test_an_imported_judge_file_with_a_nameless_judges_word_is_reported(tmp_path, extra):
    """``import`` keeps what the file says (it stood, signed) and audits it; the audit's MATCH-08
    is said on every face, as an EDOPro import says its violations: on stderr with exit 1 for
    the command line, in the answer of ``POST /uploads``; never the id alone as if it were clean."""
    from click.testing import CliRunner
    from fastapi.testclient import TestClient
    from test_release import ADMIN as RELEASE_ADMIN, ORGANISER
    from ygoreplay.access import digest
    from ygoreplay.cli import main
    from ygoreplay.service import create_app
    from ygoreplay.store import Store
    store = Store(str(tmp_path / "duels.sqlite"), concurrent=True)
    try:
        data = nameless_file(store, extra)
        path = tmp_path / "nameless.ygr"
        path.write_bytes(data)
        done = CliRunner().invoke(main, ["import", str(path), "--store", str(tmp_path / "cli.sqlite")])
        assert done.exit_code == 1, done.output
        assert "MATCH-08" in done.stderr and done.stdout.strip(), done.output
        with TestClient(create_app(store, digest(RELEASE_ADMIN))) as client:
            answer = client.post("/uploads", content=data, headers=ORGANISER)
        assert answer.status_code == 201, answer.text
        assert "MATCH-08" in {v["rule"] for v in answer.json()["violations"]}, answer.text
    finally:
        store.close()


# -- a delayed spectator's verification ---------------------------------------------------------------

def test_a_delay_cutting_inside_one_append_verifies_for_the_spectator(service):
    """50 events appended at once (a snapshot at 32 written with them), 10 held back: the
    spectator's cut at 40 lies inside the append, whose anchor and card facts lie past it. Its
    verification must still hold (the events after its last anchor are held by the chain
    alone), and so its replay file be made: an intact duel never reads as altered."""
    from test_service import ADMIN, events_of
    base = service.url
    made = httpx.post(f"{base}/duels", json={"visibility": "public", "delay": {"events": 10, "seconds": 0}},
                      headers=auth(ADMIN)).json()
    post(base, f"/duels/{made['id']}/events", made["tokens"]["recorder"], events_of("won-by-damage.jsonl")[:50])
    for reader in ({}, auth(made["tokens"]["p0"])):
        checked = httpx.get(f"{base}/duels/{made['id']}/verify", headers=reader).json()
        assert checked["ok"] and checked["intact"], checked
        r = httpx.get(f"{base}/duels/{made['id']}/replay.ygr?view=spectator", headers=reader)
        assert r.status_code == 200, r.text


# -- a hostile cards.cdb -------------------------------------------------------------------------------

def test_a_cdb_whose_texts_are_generated_is_read_within_its_byte_bound(tmp_path):
    """A 120 KB ``cards.cdb`` whose ``texts.desc`` is a generated column of 1 MiB a row: a real
    table (no view), every value within SQLite's length limit, yet 1,000 rows fetched at once
    before the bytes are counted are a gigabyte. ``cards update --source`` refuses a table that
    computes its values (and would stop at its 64 MiB of text, counted row by row), holding
    little memory."""
    import os
    import sqlite3
    import subprocess
    import sys
    source = tmp_path / "generated.cdb"
    with sqlite3.connect(source) as conn:
        conn.execute("create table datas (id integer primary key, ot integer, alias integer, setcode integer, "
                     "type integer, atk integer, def integer, level integer, race integer, attribute integer, "
                     "category integer)")
        conn.execute("create table texts (id integer primary key, name text)")
        conn.executemany("insert into datas values (?, 3, 0, 0, 17, 1000, 1000, 4, 1, 1, 0)",
                         [(10_000 + i,) for i in range(2_000)])
        conn.executemany("insert into texts (id, name) values (?, 'Card')", [(10_000 + i,) for i in range(2_000)])
        # added after the rows: the same file (schema and pages; only the schema cookie differs), without
        # SQLite computing the 1 MiB value of each row inserted (12 s of CPU)
        conn.execute("alter table texts add column desc text generated always as (printf('%.*c', 1000000, 'x')) virtual")
    conn.close()
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    # a process of its own whose only child is the command: its children's peak is the command's
    measure = ("import resource, subprocess, sys\n"
               "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
               "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
               "print(done.stderr)")
    done = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "ygoreplay", "cards", "update",
                           "--source", str(source)], env=env, capture_output=True, text=True, timeout=120)
    first, _, err = done.stdout.partition("\n")
    code, peak_kib = (int(word) for word in first.split())
    assert code == 2 and "table 'texts' computes column 'desc' instead of storing it" in err, err
    assert peak_kib < 300 * 1024, f"peak {peak_kib // 1024} MiB"
