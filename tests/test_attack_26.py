"""Attack 26: what this morning's doors (board pictures, link previews, oEmbed, the round page,
seeking from snapshots) gave away or took on trust, each tried as an outsider with a spectator
link, a player with their own token, or someone with write access to the database file."""
from __future__ import annotations

import msgpack

from test_store import _set_state, _state, execute  # noqa: F401
from test_store_cli import DAMAGE, clean, record, run
from test_store import store_url  # noqa: F401  (the fixture)
from test_release import client, store  # noqa: F401  (fixtures: an in-process service)
from ygoreplay.store import SNAPSHOT_EVERY


def _altered_lp(url: str, duel: str, position: int) -> None:
    """Event #position's amount changed in the database, the row still decoding (its hash not)."""
    env = msgpack.unpackb(_state(url, duel, position + 1))
    assert env["e"]["kind"] == "life_points_changed", env["e"]
    env["e"]["amount"] = env["e"]["amount"] + 1000
    _set_state(url, duel, position + 1, msgpack.packb(env))


def test_a_board_read_from_a_snapshot_refuses_an_event_altered_after_it(store_url):  # noqa: F811
    """``show --at N`` resumes from the nearest snapshot and folded the stored events after it
    without checking them against the chain: an amount changed in the database was shown as the
    board, with no sign (only ``verify`` said BROKEN). The events a board folds are checked
    from the snapshot's chain hash (or the header's root): the board is refused, naming the event."""
    duel = record(store_url, DAMAGE)
    events = [msgpack.unpackb(_state(store_url, duel, v + 1))["e"] for v in range(89)]
    position = next(i for i, e in enumerate(events) if e["kind"] == "life_points_changed" and i > 64)
    assert position + 2 <= 88
    clean(run("show", duel, "--at", str(position + 2), url=store_url), 0)
    _altered_lp(store_url, duel, position)
    assert run("verify", duel, url=store_url).stdout.startswith(f"{duel}: BROKEN at event {position}")
    for at in sorted({position, position + 2, 88}):      # past the last snapshot (64): folded from it
        shown = run("show", duel, "--at", str(at), url=store_url)
        clean(shown, 1)
        assert f"event {position} does not match its hash chain (altered)" in shown.output, shown.output
    # a board whose events a signed snapshot before the altered event vouches for still shows (one
    # nearer it is vouched for through the events after it, up to a signed seal: test_seek_seal.py)
    early = run("show", duel, "--at", str(position // SNAPSHOT_EVERY * SNAPSHOT_EVERY - 1), url=store_url)
    clean(early, 0)


def test_the_service_shows_no_board_from_an_event_altered_in_the_database(tmp_path):
    """The service took a duel's stored events in without checking them against the chain: an
    amount changed in the database (the service restarted, or the duel read afresh) was its
    /state, its board picture and its preview, while only /verify said BROKEN. It takes events
    in only while they chain (``LiveDuel.refresh``); its frames say where the record breaks."""
    import httpx
    from test_service_delay import ADMIN, EVENTS, append, auth, create, open_store, serving
    with open_store(tmp_path / "duels.sqlite") as store, serving(store) as (base, svc):
        duel = create(base, title="altered behind the service's back", visibility="public")
        d, judge = duel["id"], duel["tokens"]["judge"]
        position = next(i for i, e in enumerate(EVENTS[:60]) if e["kind"] == "life_points_changed")
        # an anchor right before the altered event: what the service shows must be vouched for by
        # a signed anchor (test_seek_seal.py), and the events of one append share its anchor
        append(base, d, ADMIN, EVENTS[:position])
        append(base, d, ADMIN, EVENTS[position:60])
        url = str(tmp_path / "duels.sqlite")
        honest = httpx.get(f"{base}/duels/{d}/state", headers=auth(judge)).json()
        _altered_lp(url, d, position)
        svc.hub.duels.pop(d)                      # read afresh, as after a restart
        state = httpx.get(f"{base}/duels/{d}/state", headers=auth(judge)).json()
        assert state["events"] == position and state["at"] == position - 1, "nothing from the altered event on"
        lps = [p["lp"] for p in honest["board"]["players"]]
        seen = httpx.get(f"{base}/duels/{d}/state?at={position - 1}", headers=auth(judge)).json()
        assert seen["board"]["players"][0]["lp"] == 8000 and lps
        assert httpx.get(f"{base}/duels/{d}/state?at={position}", headers=auth(judge)).status_code == 404
        frames = httpx.get(f"{base}/duels/{d}/frames").json()
        assert frames["events"] == position and frames["broken"] == position
        verdict = httpx.get(f"{base}/duels/{d}/verify").json()
        assert verdict["ok"] is False and verdict["first_bad_link"] == position


def test_a_crowd_following_a_round_reads_it_once_per_change(client, monkeypatch):  # noqa: F811
    """Each follower of ``/rounds/{id}/follow`` (and each reader of its page and JSON) read the
    whole round from the store for itself on every change and every 5 seconds: readers that
    ask at once now share one reading, made again when something in the round moves."""
    import threading
    from test_match_service import MATCHES, lines
    from test_release import ORGANISER, auth
    from ygoreplay.service import rounds as round_doors
    made = client.post("/rounds?event=Regional&round=1", content="1,Yugi,Kaiba\n2,Joey,Mai\n",
                       headers={"Content-Type": "text/csv", **ORGANISER}).json()
    service = client.app.state.service
    readings = []
    monkeypatch.setattr(round_doors, "LOOK_AGAIN", 10 ** 9)       # no clock in the count
    real = round_doors.status
    monkeypatch.setattr(round_doors, "status", lambda *a, **k: readings.append(1) or real(*a, **k))
    crowd = [threading.Thread(target=round_doors._status, args=(service, made["id"])) for _ in range(8)]
    for each in crowd:
        each.start()
    for each in crowd:
        each.join()
    for _ in range(5):
        assert client.get(f"/rounds/{made['id']}.json").json()["tables"][0]["state"] == "not started"
    assert len(readings) == 1
    table = made["tables"][0]
    decks = [e for e in lines(MATCHES / "two-nil.jsonl") if e["kind"] == "decklist_registered"]
    writer = auth(table["tokens"]["recorder"])
    assert client.post(f"/matches/{table['match']}/events", json=decks, headers=writer).status_code == 200
    assert client.post(f"/matches/{table['match']}/games", json={"first_player": 0, "chosen_by": 0},
                       headers=writer).status_code in (200, 201)
    assert client.get(f"/rounds/{made['id']}.json").json()["tables"][0]["state"] == "playing duel 1"
    assert 1 < len(readings) <= 3
