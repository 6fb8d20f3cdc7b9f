"""Issue 25, twenty-third pass, an attack on ``Records.set_visibility``: a duel made private (or
its spectator token dropped) by one process must be refused by every other, its followers cut
off. Each worker held the access record it first read: another worker, or ``ygoreplay
visibility`` beside a served store, changed it in the database only, and the duel went on being
served to the public and to the dropped spectator token until it was evicted. Now the record is
read again with the release, at most a second old (``LiveDuel.settings``)."""
from __future__ import annotations

import collections
import json
import time

import httpx
from click.testing import CliRunner

from test_attack_21c import workers  # noqa: F401  (fixture: serve --workers 2 on a schema of its own)
from test_service import ADMIN, Server, auth, create, events_of
from ygoreplay.cli import main

EVENTS = events_of("won-by-damage.jsonl")
RUNNING = [e for e in EVENTS if e["kind"] != "duel_ended"]     # a duel still going on: followed until cut off


def _recorded(base: str, visibility: str, events: list[dict]) -> dict:
    made = create(base, visibility=visibility)
    r = httpx.post(f"{base}/duels/{made['id']}/events", json=events, headers=auth(made["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    return made


def _statuses(base: str, path: str, headers: dict | None = None, times: int = 8) -> collections.Counter:
    return collections.Counter(httpx.get(f"{base}{path}", headers=headers or {}).status_code for _ in range(times))


def test_a_duel_made_private_on_one_worker_is_refused_by_every_worker(workers):
    """Two workers on PostgreSQL have each read a public duel and an unlisted one (its spectator
    token); the organiser makes both private through whichever worker answers. A second later
    every worker refuses the public read and the dropped spectator token (404: not theirs to
    know of); the judge's token still reads."""
    base = workers.url
    public = _recorded(base, "public", EVENTS)["id"]
    unlisted = _recorded(base, "unlisted", EVENTS)
    spectator = auth(unlisted["tokens"]["spectator"])
    assert _statuses(base, f"/duels/{public}/frames") == {200: 8}
    assert _statuses(base, f"/duels/{unlisted['id']}/frames", spectator) == {200: 8}
    for duel in (public, unlisted["id"]):
        r = httpx.post(f"{base}/duels/{duel}/visibility", json={"visibility": "private"}, headers=auth(ADMIN))
        assert r.status_code == 200, r.text
    time.sleep(1.1)                      # the bound: an access record is read again at most a second old
    assert _statuses(base, f"/duels/{public}/frames") == {404: 8}
    assert _statuses(base, f"/duels/{public}/events") == {404: 8}
    assert _statuses(base, f"/duels/{unlisted['id']}/frames", spectator) == {404: 8}
    assert _statuses(base, f"/duels/{unlisted['id']}/frames", auth(unlisted["tokens"]["judge"])) == {200: 8}


def test_the_command_line_making_a_served_duel_private_cuts_off_its_public_follower(tmp_path):
    """``ygoreplay visibility DUEL private`` beside ``serve`` on the same SQLite store: a public
    follower already connected is ended (the stream closes, with no ``end`` event: the duel has
    not ended), and the public read and a new follow are refused after."""
    store = str(tmp_path / "duels.sqlite")
    server = Server(store)
    try:
        base = server.url
        duel = _recorded(base, "public", RUNNING)["id"]
        assert httpx.get(f"{base}/duels/{duel}/frames").status_code == 200
        received = b""
        with httpx.stream("GET", f"{base}/duels/{duel}/follow", timeout=httpx.Timeout(10, read=10)) as follow:
            assert follow.status_code == 200
            chunks = follow.iter_bytes()
            while b"id: " not in received:
                received += next(chunks)
            done = CliRunner().invoke(main, ["visibility", duel, "private", "--store", store])
            assert done.exit_code == 0, done.output
            for chunk in chunks:            # read until the service closes it (a read timeout fails)
                received += chunk
        assert b"event: end" not in received
        time.sleep(1.1)
        assert httpx.get(f"{base}/duels/{duel}/frames").status_code == 404
        assert httpx.get(f"{base}/duels/{duel}/follow").status_code == 404
    finally:
        server.stop()


def test_a_release_at_once_with_a_change_of_visibility_keeps_both(tmp_path):
    """Two processes change one duel's access record at once: the organiser's release (``ygoreplay
    release``) and ``ygoreplay visibility DUEL private``, the latter written between the release's
    read of the record and its write. Each wrote a whole record made of the one it had read, so the
    release put the duel back to unlisted with its dropped spectator token: a duel made private
    was readable again by the token the change had cut off. Each is now made of the latest."""
    from ygoreplay.access import Access
    from ygoreplay.application import Records
    from ygoreplay.store import Store
    path = str(tmp_path / "duels.sqlite")
    done = CliRunner().invoke(main, ["record", "-", "--store", path],
                              input="".join(f"{json.dumps(e)}\n" for e in EVENTS))
    assert done.exit_code == 0, done.output
    duel = done.output.strip().splitlines()[-1]
    releasing, changing = Store(path), Store(path)
    access, tokens = Access.issue("unlisted", 0, 0.0, "event", "Regional")
    releasing.attach(duel, "access", access.to_dict())
    attach, met = releasing.attach, []

    def other_process_first(stream_id, name, data):
        if name == "access" and not met:
            met.append(Records(changing).set_visibility(duel, "private"))
        return attach(stream_id, name, data)
    releasing.attach = other_process_first
    Records(releasing).release(duel)
    stored = Access.from_dict(Store(path).attachment(duel, "access"))
    assert (stored.visibility, stored.released) == ("private", True)
    assert stored.role_of(tokens["spectator"]) is None
