"""Attacks on issue 25's fourteenth pass (``attack25ac``): what only the judge may see or do,
reached by a second door: a file the command line writes, read by another user of the machine;
a token of a match's new duel, handed to whoever started it; a correction (LOG-12) striking the
judge's ruling as if it were a mis-entry. And one way to keep everyone out: a request's head
that never ends (``request_head``).

A judge's ``.ygr`` (and a web page carrying one) is its owner's alone (``replay_file.file_mode``,
0600): it holds every hidden card. The other doors that write the same record did not ask that
question, and wrote it for everyone to read (0644, whatever the user's umask: the write sets the
mode itself): ``export --record --view judge`` (the record as JSON Lines: every hand, every Deck's
order), ``opened -o`` (the judge record of a sealed duel), a match file (``match start`` and each
command that adds to it: both players' decklists and Side Decks, which each view of a match
withholds) and a write's receipt (``record --receipt``: the record's head, which the service
signs for its judge and recorder only, as from two heads and a view's copy of the entries between
each guess of a hidden card could be hashed until one met the next head). Another user of a
shared machine (a tournament's PC, a shared home) read a running duel's hands and Deck order.
Each such file is now written by the one rule (``files.mode_for``): the judge's is its owner's.

``POST /matches/{id}/games`` creates the match's next duel and answered every token of it to the
caller: the table's recorder (anyone at the table) held the duel's judge token, and rolled the
duel back and ruled on its disputed entries as the judge (the match's recorder token is refused
both), and its players' tokens, entering as their devices. A token is a role: the organiser is
handed every one, anyone else its own and the spectator's (``access.handed``).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from click.testing import CliRunner
from fastapi.testclient import TestClient

from duel import CARDS
from test_match_service import MATCHES, lines, match_body
from test_service import ADMIN
from ygoreplay.access import digest
from ygoreplay.cli import main
from ygoreplay.service import create_app
from ygoreplay.store import Store

ROOT = Path(__file__).resolve().parent.parent
DAMAGE = ROOT / "replays" / "won-by-damage.jsonl"


def _run(tmp_path: Path, *args: object):
    env = {"XDG_DATA_HOME": str(tmp_path / "xdg"), "HOME": str(tmp_path), "YGOREPLAY_STORE": str(tmp_path / "s.sqlite")}
    return CliRunner(env=env).invoke(main, [str(a) for a in args])


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_the_judges_record_as_json_lines_is_its_owners_alone_and_a_view_everyones(tmp_path):
    for view, mode in (("judge", 0o600), ("spectator", 0o644), ("p0", 0o644)):
        out = tmp_path / f"{view}.jsonl"
        out.write_text("an older file, open to all\n")
        out.chmod(0o644)
        done = _run(tmp_path, "export", DAMAGE, "--record", "--view", view, "-o", out)
        assert done.exit_code == 0, done.output
        assert _mode(out) == mode, view


def test_the_judge_record_of_a_sealed_duel_is_its_owners_alone(tmp_path):
    out = tmp_path / "opened.jsonl"
    done = _run(tmp_path, "opened", DAMAGE, "-o", out)
    assert done.exit_code == 0, done.output
    assert _mode(out) == 0o600


def test_a_match_file_holding_both_decklists_is_its_owners_alone_and_stays_so(tmp_path):
    (tmp_path / "lflist.conf").write_text("!Sample list\n55144522 0 -- Pot of Greed\n")
    match = tmp_path / "m.jsonl"
    done = _run(tmp_path, "match", "start", match, "--players", "Yugi", "Kaiba", "--policy", "tcg-2024",
                "--banlist", tmp_path / "lflist.conf")
    assert done.exit_code == 0, done.output
    assert _mode(match) == 0o600
    match.chmod(0o640)                         # what its owner chose is not widened by the next command
    done = _run(tmp_path, "match", "time", match, "--clock", "2025-12-06T10:40:00Z")
    assert done.exit_code == 0, done.output
    assert _mode(match) == 0o600


def test_a_writes_receipt_naming_the_records_head_is_its_owners_alone(tmp_path):
    receipt = tmp_path / "receipt.json"
    done = _run(tmp_path, "record", DAMAGE, "--receipt", receipt)
    assert done.exit_code == 0, done.output
    assert '"head"' in receipt.read_text()
    assert _mode(receipt) == 0o600


def test_no_judge_file_is_widened_by_a_permissive_umask_nor_a_view_narrowed_by_none(tmp_path):
    """The mode is the file's own, whatever umask the process runs under (a resident's caller's)."""
    old = os.umask(0)
    try:
        judge, view = tmp_path / "j.jsonl", tmp_path / "v.jsonl"
        assert _run(tmp_path, "export", DAMAGE, "--record", "--view", "judge", "-o", judge).exit_code == 0
        assert _run(tmp_path, "export", DAMAGE, "--record", "--view", "spectator", "-o", view).exit_code == 0
    finally:
        os.umask(old)
    assert (_mode(judge), _mode(view)) == (0o600, 0o644)


# -- a match's new duel hands out no role its maker does not hold ------------------------------------

def _made_game(client: TestClient, role: str) -> tuple[dict, dict]:
    """A match (the organiser's) and the answer to its first ``/games`` asked with its ``role``'s token."""
    made = client.post("/matches", json=match_body(lines(MATCHES / "two-nil.jsonl")),
                       headers={"Authorization": f"Bearer {ADMIN}"})
    assert made.status_code == 201, made.text
    token = ADMIN if role == "organiser" else made.json()["tokens"][role]
    game = client.post(f"/matches/{made.json()['id']}/games", json={"first_player": 0, "chosen_by": 0},
                       headers={"Authorization": f"Bearer {token}"})
    assert game.status_code == 201, game.text
    return made.json(), game.json()["duel"]


def _client(tmp_path: Path) -> tuple[Store, TestClient]:
    store = Store(str(tmp_path / "s.sqlite"), CARDS)
    return store, TestClient(create_app(store, digest(ADMIN)), raise_server_exceptions=False)


def test_a_match_recorder_starting_a_duel_is_not_handed_its_judges_or_players_tokens(tmp_path):
    """The table's recorder (often a player, or anyone at the table) starts each duel of the
    match (the recorder page's "goes first"). It was answered every token of the new duel: with
    the judge's it rolled the duel back and ruled on disputed entries as the judge, with a
    player's it entered that player's confirmations, all of which its own token is refused."""
    store, client = _client(tmp_path)
    with store, client:
        match, duel = _made_game(client, "recorder")
        assert set(duel["tokens"]) == {"recorder", "spectator"}
        assert set(duel["links"]) == {"recorder", "spectator"} and set(duel["record"]) == {"recorder"}
        d = duel["id"]
        events = lines(MATCHES / "duels" / "g1-yugi-wins.jsonl")[:12]
        recorder = {"Authorization": f"Bearer {match['tokens']['recorder']}"}
        assert client.post(f"/duels/{d}/events", json=events, headers=recorder).status_code == 200
        for token in {*duel["tokens"].values(), match["tokens"]["recorder"]}:
            rolled = client.post(f"/duels/{d}/rollback", json={"to": 5, "judge": "J", "reason": "r"},
                                 headers={"Authorization": f"Bearer {token}"})
            assert rolled.status_code == 403, rolled.text
        # what each token handed out opens is its own role, as the match's of that role does
        for role, token in duel["tokens"].items():
            seen = client.get(f"/duels/{d}/state", headers={"Authorization": f"Bearer {token}"}).json()
            assert seen["view"] == ("judge" if role == "recorder" else role)
        judge = {"Authorization": f"Bearer {match['tokens']['judge']}"}     # the match's judge still is the duel's
        assert client.post(f"/duels/{d}/rollback", json={"to": 5, "judge": "J", "reason": "r"},
                           headers=judge).status_code == 200


def test_a_match_judge_is_handed_its_own_and_the_organiser_every_token(tmp_path):
    store, client = _client(tmp_path)
    with store, client:
        _match, duel = _made_game(client, "judge")
        assert set(duel["tokens"]) == {"judge", "spectator"}
        _match, duel = _made_game(client, "organiser")
        assert set(duel["tokens"]) == {"recorder", "judge", "p0", "p1", "spectator"}


# -- a correction (LOG-12) strikes no judge's note ----------------------------------------------------

def test_a_recorders_correction_does_not_strike_the_judges_ruling_on_a_disputed_entry(tmp_path):
    """LOG-12: a correction is no judge's rollback. Player 0 disputed entry #18, the judge ruled
    it stands (a note ``on`` it); the table's recorder then corrected back to #17: the judge's
    note was struck with the play, and the record said #18 was "corrected", by no judge. Now such
    a correction is refused naming the note, nothing written; the judge's rollback still goes
    back past it, and a correction after the note is the recorder's as before."""
    sample = lines(ROOT / "replays" / "won-by-damage.jsonl")
    sample[0]["witnessed"] = True
    store, client = _client(tmp_path)
    with store, client:
        made = client.post("/duels", json={"title": "t", "visibility": "unlisted", "mode": "witnessed"},
                           headers={"Authorization": f"Bearer {ADMIN}"}).json()
        duel, tokens = made["id"], made["tokens"]

        def as_(role: str) -> dict:
            return {"Authorization": f"Bearer {tokens[role]}"}
        for event in sample[:20]:          # one at a time: an entry that shows the table a card ends its batch
            assert client.post(f"/duels/{duel}/events", json=[event], headers=as_("recorder")).status_code == 200
        assert client.post(f"/duels/{duel}/events", json=[{"kind": "entry_disputed", "on": 18, "reason": "no"}],
                           headers=as_("p0")).status_code == 200
        ruled = client.post(f"/duels/{duel}/notes", headers=as_("judge"), json={
            "judge": "Head Judge", "text": "the entry stands", "category": "ruling", "on": 18, "decision": "stands"})
        assert ruled.status_code == 200 and ruled.json()["position"] == 22
        refused = client.post(f"/duels/{duel}/events", json=[{"kind": "entry_corrected", "to": 17, "reason": "oops"}],
                              headers=as_("recorder"))
        assert refused.status_code == 422, refused.text
        assert refused.json()["rule"] == "LOG-12" and "#21" in refused.json()["message"]
        events = [json.loads(line) for line in client.get(f"/duels/{duel}/events", headers=as_("judge")).text.splitlines()]
        assert len(events) == 22 and events[18]["ruled"]["how"] == "judge_note"
        assert events[18]["ruled"]["decision"] == "stands" and events[21]["struck"] is None
        # the recorder corrects what came after the judge's word; the judge goes back past it
        assert client.post(f"/duels/{duel}/events", json=sample[20:22], headers=as_("recorder")).status_code == 200
        assert client.post(f"/duels/{duel}/events", json=[{"kind": "entry_corrected", "to": 23, "reason": "oops"}],
                           headers=as_("recorder")).status_code == 200
        assert client.post(f"/duels/{duel}/rollback", json={"to": 17, "judge": "Head Judge", "reason": "r"},
                           headers=as_("judge")).status_code == 200


# -- a request's head is bounded before it is parsed whole ---------------------------------------------

def _head_sent(url: str, line: bytes, filler: bytes, megabytes: int) -> tuple[bytes, float]:
    """What the service answers a request whose head is ``line`` and ``megabytes`` MiB of
    ``filler`` (never ended), and how long the sending took: the answer as soon as it comes."""
    import socket
    import time
    host, port = url.rsplit("/", 1)[-1].split(":")
    with socket.create_connection((host, int(port)), timeout=20) as sock:
        started = time.monotonic()
        sock.sendall(line)
        try:
            for _ in range(megabytes):
                sock.sendall(filler * ((1 << 20) // len(filler)))
        except OSError:                       # refused and closed while it sent: what it said is read below
            pass
        elapsed = time.monotonic() - started
        try:
            return sock.recv(4096), elapsed
        except OSError:
            return b"", elapsed


def test_a_request_head_that_never_ends_is_refused_and_keeps_no_one_else_waiting(tmp_path):
    """The HTTP parser (httptools) builds a header's value and the request's target by adding
    each piece read to the whole: one connection sending one header of many megabytes held the
    service's one event loop, copying, for half a minute (every other request unanswered: 10 s
    timeouts), and its memory grew with it. A request's line and headers are now bounded
    (``request_head.MAX_HEAD``): past it the connection is answered 431 and closed."""
    import threading
    import time

    import httpx

    from test_service import Server
    server = Server(str(tmp_path / "s.sqlite"))
    try:
        waits: list[float] = []
        done = threading.Event()

        def others() -> None:                   # someone else asking while the head comes in
            while not done.is_set():
                began = time.monotonic()
                assert httpx.get(f"{server.url}/health", timeout=30).status_code == 200
                waits.append(time.monotonic() - began)
                time.sleep(0.05)
        asking = threading.Thread(target=others)
        asking.start()
        try:
            for line, filler in ((b"GET /health HTTP/1.1\r\nHost: x\r\nX-Long: ", b"a"),
                                 (b"GET /health HTTP/1.1\r\nHost: x\r\n", b"X-Many: a\r\n"),
                                 (b"GET /health?", b"a")):
                answer, elapsed = _head_sent(server.url, line, filler, 16)
                assert answer.startswith(b"HTTP/1.1 431 "), (line, answer[:200])
                assert b"line and headers" in answer and elapsed < 10
        finally:
            done.set()
            asking.join()
        assert waits and max(waits) < 2, max(waits)
        # a request within the bound is served as before, headers and a large body alike
        big = httpx.get(f"{server.url}/health", headers={f"X-{i}": "v" * 1000 for i in range(40)})
        assert big.status_code == 200
        body = httpx.post(f"{server.url}/duels", content=b"x" * (900 << 10), headers={"Authorization": "Bearer no"})
        assert body.status_code in (401, 403), body.text
    finally:
        server.stop()
