"""A served SQLite store sees what another process commits to it (issue 25): ``ygoreplay serve``
on a file, and ``ygoreplay append`` on the same file from this process. The service held what
it served in memory and saw another process's append only at its own next one: its duel, its
``/verify`` (ok, with the count before), its kept answers and its followers went on with the old
record. Now it looks at SQLite's ``data_version`` before a read and on a timer (``sqlite_commits``),
and takes in what was committed by the path another PostgreSQL worker's appends take."""
from __future__ import annotations

import json
import time

import httpx
import pytest
from click.testing import CliRunner

from test_service import ADMIN, Server, auth, events_of
from ygoreplay.cli import main

DUEL = events_of("won-by-damage.jsonl")
PART = DUEL[:40]                  # a duel in progress: 40 events, play going on
MORE = DUEL[40:50]                # what the command line appends to it


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    """``ygoreplay serve`` on a SQLite file (``store``: its path)."""
    srv = Server(str(tmp_path_factory.mktemp("other-writer") / "served.sqlite"))
    yield srv
    srv.stop()


def new_duel(base: str) -> dict:
    duel = httpx.post(f"{base}/duels", json={"title": "table 7", "visibility": "public"}, headers=auth(ADMIN)).json()
    r = httpx.post(f"{base}/duels/{duel['id']}/events", json=PART, headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    return duel


def append_elsewhere(service, tmp_path, duel: dict, events: list[dict]) -> None:
    """``ygoreplay append`` on the served file, in this process: another writer than the service."""
    path = tmp_path / "more.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    result = CliRunner().invoke(main, ["append", duel["id"], str(path), "--store", service.store])
    assert result.exit_code == 0, result.output


def test_a_duel_read_after_another_process_appended_has_its_events(service, tmp_path):
    base = service.url
    duel = new_duel(base)
    judge = auth(duel["tokens"]["judge"])
    assert httpx.get(f"{base}/duels/{duel['id']}/state", headers=judge).json()["events"] == 40   # held now
    append_elsewhere(service, tmp_path, duel, MORE)
    assert httpx.get(f"{base}/duels/{duel['id']}/state", headers=judge).json()["events"] == 50
    lines = httpx.get(f"{base}/duels/{duel['id']}/events", headers=judge).text.splitlines()
    assert [json.loads(line)["event"]["kind"] for line in lines[40:]] == [e["kind"] for e in MORE]


def test_verify_after_another_process_appended_checks_the_record_it_holds_now(service, tmp_path):
    base = service.url
    duel = new_duel(base)
    judge = auth(duel["tokens"]["judge"])
    before = httpx.get(f"{base}/duels/{duel['id']}/verify", headers=judge).json()
    assert before["ok"] and before["events"] == 40
    append_elsewhere(service, tmp_path, duel, MORE)
    after = httpx.get(f"{base}/duels/{duel['id']}/verify", headers=judge).json()
    assert after["ok"] and after["events"] == 50, after


def test_a_kept_answer_gives_way_to_what_another_process_appended(service, tmp_path):
    """The viewer's frames, kept gzipped by the number of events the reader may see: made again
    once the duel is read with the other process's events, not answered as kept. (A card's
    numbers were kept by SQLite's ``data_version`` already: ``library_search._stats_key``.)"""
    base = service.url
    duel = new_duel(base)
    spectator = auth(duel["tokens"]["spectator"]) if "spectator" in duel["tokens"] else {}

    def frames() -> list[dict]:
        return httpx.get(f"{base}/duels/{duel['id']}/frames", headers=spectator).json()["frames"]

    assert len(frames()) == 40                                      # the answer made and kept
    append_elsewhere(service, tmp_path, duel, MORE)
    assert [frame["kind"] for frame in frames()[40:]] == [e["kind"] for e in MORE]


def test_a_follower_is_woken_by_another_process_append(service, tmp_path):
    """Its stream sends the appended events without a request or an append of the service's
    own: the service's look on a timer finds the commit (the deadline only bounds a failure)."""
    base = service.url
    duel = new_duel(base)
    seen: list[int] = []
    with httpx.stream("GET", f"{base}/duels/{duel['id']}/follow", headers=auth(duel["tokens"]["judge"]),
                      timeout=httpx.Timeout(60)) as stream:
        deadline = time.monotonic() + 45          # three keep-alives: ample, and a failure ends
        appended = False
        for line in stream.iter_lines():
            if line.startswith("id: "):
                seen.append(int(line[4:]))
            if not appended and seen and seen[-1] == 39:
                append_elsewhere(service, tmp_path, duel, MORE)
                appended = True
            if seen and seen[-1] == 49 or time.monotonic() > deadline:
                break
    assert seen[-10:] == list(range(40, 50)), seen[-10:]


def test_a_look_made_while_the_listener_hands_heads_on_tells_them_too(tmp_path):
    """The listener's look takes the heads it finds; a read's look meanwhile (before the
    listener handed them to the hub) found none, and answered the count before. Until the
    listener asks for its next head, a read's look tells those it is handing on."""
    from ygoreplay.events import from_dict
    from ygoreplay.store import Store

    path = str(tmp_path / "served.sqlite")
    with Store(path) as served, Store(path) as other:
        duel = served.create_duel("table 3")
        heads = served.subscribe(served.last_notification())
        assert heads.look() == []                                  # nothing committed since
        other.append(duel, [from_dict(event) for event in PART])  # another connection's commit
        assert next(heads) == (duel, 40)                           # taken by the listener, not handed on yet
        assert (duel, 40) in heads.look()


def test_the_bench_prints_what_the_look_costs():
    from test_bench import NUMBER, assert_figures, run_bench
    assert_figures(run_bench("sqlite_look.py"),
                   rf"^Hub.get of a held duel: {NUMBER} µs without the look -> {NUMBER} µs with it",
                   rf"^a look after an append of this process: {NUMBER} µs",
                   rf"^an append taken in: {NUMBER} µs without a listener -> {NUMBER} µs with it")
