"""Attack 25bk on the twenty-third pass's merges: the visibility command (``Records.set_visibility``,
``POST /duels/{id}/visibility``, ``ygoreplay visibility``, ``record``/``import --visibility``) and
the doors around it.

Found (fixed):

* HIGH. A judge's what-if branch inherits its parent's access when it is made (``Records.branch``:
  "a branch must not show more of [its parent's events] than its parent does") and its first
  events are the parent's, up to where it left, the board it plays on too. The visibility command
  changed the one duel it named: a public (or unlisted) duel made private left each of its branches
  public, so anyone with a branch's id read the private duel's events up to where the branch left
  (its ``/events``, ``/state``, ``/frames``, ``/replay.ygr``, ...), and its dropped spectator token
  still opened an unlisted one's. And a branch could be made wider than its parent by the same
  command, naming the branch. Way in: the organiser narrows a duel a judge branched (every door of
  the command), or widens a branch. Fixed in ``Records.set_visibility``, the one place every door
  of the command calls: narrowing a duel narrows its branches (and theirs) with it, widening a
  branch past its parent is refused (409 / exit 1, naming the parent, nothing written); a branch
  made while its parent is narrowed is narrowed once it stands (``Records.branch`` reads the
  parent's access again).
* MEDIUM. ``record --once`` skipped a file as recorded before on the store's claim row (unsigned)
  when the duel it named had as many events of the same kinds as the file (or fewer: "a record
  keeps the legal prefix"), their content never compared. Way in: whoever may write the store's
  database (no key) points the claim of a file about to be recorded at any signed duel whose
  events are of those kinds (a one-event duel does: ``duel_started``), or at a genuine recording of
  the file's first moves, or at a signed duel whose rows it rewrote to decode as the file's
  (unverified: ``Store.records``): ``record --once`` says "already stored as ...: skipped" and the
  duel is never recorded (nothing recorded is lost). Fixed in ``Records._recorded_as``, the one
  check of every repeat: each kept event whole, as its signed anchors vouch for it and a record
  stores it, and a shorter duel only where the rules refuse the file's next event (where a record
  of it stops).

Tried and held (no test): the shared feed (``service/fanout.py``) is one a (view, language,
format) of one duel: a Japanese follower's feed is another ``LiveView`` than the English one's,
the task and its catch-up threads carry the first follower's language, which is the view's;
marked steps are encoded with the feed's own count (every follower of the view has it); a
delay raised mid-stream cannot be (no door changes a duel's delay after it is created); a branch
is another ``LiveDuel``; a released branch's judge-view follower ends with the branch (a release
needs its end). The phone sheet's suggestions and quick amounts read the page's own view (its
``/cards``, its frames' board), the ``likely`` order is the page's; ``/actions`` is worked out
on the caller's view's board. Counter names (``card_names.counter_name``): the file's name is
one of the i18n languages', under the data folder; the number parsed as hex, bounded by the
event's own checks. ``SQLiteHeads`` reads ``rowid``s of a table with no INTEGER PRIMARY KEY
(a ``VACUUM`` would renumber them), but nothing of the store deletes or vacuums. A link preview of
a branch reads the branch's access as stored and ``hidden_by_parent``. A match's link
(``match_game``) is unsigned and opens its duels to the match's tokens, but whoever may write the
database reads its events there already.
"""
from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from test_release import ADMIN, DAMAGE, ORGANISER, auth, events_of
from ygoreplay.access import digest
from ygoreplay.application import Records
from ygoreplay.service import create_app
from ygoreplay.store import Store

READS = ("/duels/{id}/events", "/duels/{id}/state", "/duels/{id}/frames", "/duels/{id}/replay.ygr")


def _duel_and_branch(client: TestClient, visibility: str) -> tuple[dict, str]:
    """A duel of ``visibility`` with six events, and a judge's branch of it after event #4."""
    r = client.post("/duels", json={"title": "feature table", "visibility": visibility}, headers=ORGANISER)
    assert r.status_code == 201, r.text
    duel = r.json()
    r = client.post(f"/duels/{duel['id']}/events", json=events_of(DAMAGE)[:6],
                    headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    r = client.post(f"/duels/{duel['id']}/branch", json={"at": 4}, headers=auth(duel["tokens"]["judge"]))
    assert r.status_code in (200, 201), r.text
    return duel, r.json()["id"]


@pytest.mark.parametrize("visibility", ["public", "unlisted"])
def test_a_duel_made_private_is_not_read_through_its_branch(tmp_path, visibility):
    """HIGH. The organiser makes a public (unlisted) duel private; a judge had branched it. Its
    branch was left as it was made: anyone (the dropped spectator token) read the private duel's
    first events, and its board, through the branch."""
    with Store(str(tmp_path / "d.sqlite"), concurrent=True) as store, \
            TestClient(create_app(store, digest(ADMIN))) as client:
        duel, branch = _duel_and_branch(client, visibility)
        spectator = duel["tokens"].get("spectator")
        reader = auth(spectator) if spectator else {}
        assert client.get(f"/duels/{branch}/events", headers=reader).status_code == 200   # as its parent
        r = client.post(f"/duels/{duel['id']}/visibility", json={"visibility": "private"}, headers=ORGANISER)
        assert r.status_code == 200, r.text
        for path in READS:
            for headers in ({}, reader):
                assert client.get(path.format(id=duel["id"]), headers=headers).status_code == 404
                got = client.get(path.format(id=branch), headers=headers)
                assert got.status_code == 404, (path, got.status_code, got.text[:200])
        assert Records(store).access(branch).visibility == "private"
        assert "spectator" not in Records(store).access(branch).tokens
        # the table's own tokens, which the branch inherited, still open it (the judge's what-if)
        assert client.get(f"/duels/{branch}/events", headers=auth(duel["tokens"]["judge"])).status_code == 200


def test_a_public_duel_made_unlisted_narrows_its_branch_and_its_branchs_branch(tmp_path):
    """A branch of a branch is narrowed with the duel both came from, and keeps the spectator
    token that opens its parent (it inherited it)."""
    with Store(str(tmp_path / "d.sqlite"), concurrent=True) as store:
        records = Records(store)
        with TestClient(create_app(store, digest(ADMIN))) as client:
            duel, branch = _duel_and_branch(client, "public")
            r = client.post(f"/duels/{branch}/branch", json={"at": 2}, headers=auth(duel["tokens"]["judge"]))
            assert r.status_code in (200, 201), r.text
            grandchild = r.json()["id"]
        done = records.set_visibility(duel["id"], "unlisted")
        for child in (branch, grandchild):
            access = records.access(child)
            assert access.visibility == "unlisted", child
            assert access.tokens.get("spectator") == done.access.tokens.get("spectator")


def test_a_branch_is_never_made_wider_than_its_parent(tmp_path):
    """HIGH. ``ygoreplay visibility BRANCH public`` (or the service's route) on a branch of a
    private duel made the private duel's first events anyone's. Refused, naming the parent; nothing
    written."""
    with Store(str(tmp_path / "d.sqlite"), concurrent=True) as store:
        records = Records(store)
        with TestClient(create_app(store, digest(ADMIN))) as client:
            duel, branch = _duel_and_branch(client, "private")
            r = client.post(f"/duels/{branch}/visibility", json={"visibility": "public"}, headers=ORGANISER)
            assert r.status_code == 409, r.text
            assert duel["id"] in r.json()["error"]
            assert client.get(f"/duels/{branch}/events").status_code == 404
        from ygoreplay.errors import ConflictError
        with pytest.raises(ConflictError):
            records.set_visibility(branch, "unlisted")
        assert records.access(branch).visibility == "private"
        records.set_visibility(duel["id"], "unlisted")          # widened with its parent: allowed
        assert records.set_visibility(branch, "unlisted").access.visibility == "unlisted"


# -- medium: record --once skipped on a claim row rewritten to name another duel --------------------------

def _claimed(path, events, stream: str) -> None:
    """What whoever may write the database does (no key): the claim row of a file's recording
    (``record --once``) written to name ``stream``."""
    import sqlite3

    import msgpack

    from ygoreplay.access import release_settings
    from ygoreplay.application import _digest_of
    key = _digest_of(events, release_settings(None, None, None), False, "recorder")
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO stored_events (originator_id, originator_version, topic, state) VALUES (?, 0, ?, ?)",
                   (f"ygoreplay/store/claim/record-{key}", "ygoreplay:claim", msgpack.packb({"stream": stream})))


@pytest.mark.parametrize("other", ["same kinds", "its first moves", "rows rewritten"])
def test_record_once_records_a_file_whose_claim_names_another_duel(tmp_path, other):
    """MEDIUM. A signed duel of the same kinds of events as the file (Mallory's), or a genuine
    recording of its first 40 events, named by the file's claim row: ``record --once`` skipped the
    file (exit 0, "already stored ... skipped"), the duel never recorded."""
    import dataclasses
    import json

    from test_publish_23 import DUEL, run
    from ygoreplay.cli.common import load_events
    events, _db = load_events(str(DUEL), ())
    path = tmp_path / "s.db"
    start = events[0]
    if other == "same kinds":
        decoy = [dataclasses.replace(start, players=("Mallory", "Kaiba")), *events[1:]]
    else:
        decoy = events[:40]
    if other == "rows rewritten":
        decoy = [dataclasses.replace(start, players=("Mallory", "Kaiba")), *events[1:]]
    with Store(str(path), create=True) as store:
        planted = Records(store).record(decoy, "decoy").id
    if other == "rows rewritten":           # its first event's row the file's (recorded elsewhere)
        import sqlite3
        elsewhere = tmp_path / "elsewhere.db"
        with Store(str(elsewhere), create=True) as store:
            genuine = Records(store).record(events, "genuine").id
        with sqlite3.connect(elsewhere) as db:
            row = db.execute("SELECT state FROM stored_events WHERE originator_id = ? AND originator_version = 1",
                             (genuine,)).fetchone()[0]
        with sqlite3.connect(path) as db:
            db.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = 1",
                       (row, planted))
        with Store(str(path), readonly=True) as store:
            assert [r.event for r in store.records(planted)] == events, "rows that decode as the file's"
    _claimed(path, events, planted)
    code, out, err = run("record", DUEL, "--once", "--json", "--store", path)
    assert code == 0, err
    done = json.loads(out)
    assert not done["skipped"] and done["id"] != planted, "the file recorded, not skipped"
    with Store(str(path), readonly=True) as store:
        assert [r.event for r in store.records(done["id"])] == events


def test_the_command_line_narrows_a_duels_branches_and_says_so(tmp_path):
    """``ygoreplay visibility DUEL private`` (the same command as the service's): its branch made
    while it was public is made private with it, named on stderr; ``visibility BRANCH public`` is
    refused naming the duel it branched from, nothing written. (Baseline: the branch stayed public,
    and ``search`` listed it, the private duel's players and first ten events a click away.)"""
    import json

    from test_publish_23 import DUEL, run
    store = tmp_path / "s.db"
    code, out, err = run("record", DUEL, "--visibility", "public", "--store", store)
    assert code == 0, err
    duel = out.strip()
    code, out, err = run("branch", duel, "--at", "10", "--store", store)
    assert code == 0, err
    branch = out.strip().split()[0]
    code, out, err = run("visibility", duel, "private", "--store", store)
    assert code == 0, err
    assert branch in err
    code, out, err = run("search", "--json", "--store", store)
    assert code == 0 and json.loads(out)["results"] == [], "the library finds no branch of a private duel"
    code, out, err = run("visibility", branch, "public", "--store", store)
    assert code != 0 and duel in err
    with Store(str(store), readonly=True) as opened:
        assert Records(opened).access(branch).visibility == "private"
