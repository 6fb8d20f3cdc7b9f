"""Attack pass 25x: the doors that sign a file read from a file again.

A duel's ``.ygr`` is exported again only when it holds up first (``application.export_file``:
chain intact, signed by a trusted key): nothing unverified comes out under the organiser's key.
A match's ``.ygr`` went through another door (``export M.ygr``, ``match export M.ygr``:
``match.files.match_replay``) that carried each duel inside "as it is" and signed the whole
again, unchecked: a match file nobody signed, or signed by a stranger, whose duels were rewritten
and rechained, came out signed by the local organiser and then verified ok.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from click.testing import CliRunner

from ygoreplay.cli import main
from ygoreplay.events import from_dict
from ygoreplay.match import stream  # noqa: F401  (the match event kinds, for reading a match file)
from ygoreplay.replay_file import dumps, loads, read
from ygoreplay.signing import OrganiserKey

MATCH = Path(__file__).resolve().parent.parent / "replays" / "matches" / "two-one-side-decking.jsonl"


def _run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def genuine(tmp_path) -> Path:
    """The sample match exported by the local organiser: a signed match ``.ygr``."""
    path = tmp_path / "match.ygr"
    done = _run("export", str(MATCH), "-o", str(path))
    assert done.exit_code == 0, done.output
    return path


def _unsigned(replay):
    """``replay`` as a forger rewrites it: its chain made again over what it holds now, no signature."""
    return dataclasses.replace(replay, chain=[], stored_prefixes=None, stored_head=None, signer=None,
                               signature_valid=None)


def _forged(genuine: Path, tmp_path: Path, signer: OrganiserKey | None) -> Path:
    """The match with its first duel's first player renamed (rechained: the chain holds), the
    match file rewritten around it and signed by ``signer`` (None: not signed)."""
    outer = read(genuine)
    duel = loads(outer.games[0])
    events = list(duel.events)
    started = events[0].to_dict()
    started["players"] = ["Mallory", started["players"][1]]
    events[0] = from_dict(started)
    games = [dumps(_unsigned(dataclasses.replace(duel, events=events)))] + outer.games[1:]
    path = tmp_path / "forged.ygr"
    path.write_bytes(dumps(_unsigned(dataclasses.replace(outer, games=games)), signer))
    return path


@pytest.mark.parametrize("door", [("export",), ("match", "export")])
@pytest.mark.parametrize("signed_by_stranger", [False, True])
def test_a_forged_match_file_is_not_signed_again_by_the_organiser(genuine, tmp_path, door, signed_by_stranger):
    forged = _forged(genuine, tmp_path, OrganiserKey.generate() if signed_by_stranger else None)
    assert _run("verify", str(forged)).exit_code != 0          # it does not hold up as it is
    out = tmp_path / "laundered.ygr"
    done = _run(*door, str(forged), "-o", str(out))
    assert done.exit_code != 0 and not out.exists(), done.output
    assert "nothing was written" in done.output


def test_a_match_file_whose_duel_was_rewritten_inside_is_refused_naming_the_duel(genuine, tmp_path):
    """The outer file intact and signed by a key trusted here, one duel inside rewritten and
    rechained, unsigned: the outer signature vouches for the bytes it was given, the duel's does not."""
    outer = read(genuine)
    duel = loads(outer.games[1])
    games = [outer.games[0], dumps(_unsigned(duel)), *outer.games[2:]]
    key = OrganiserKey.generate()
    path = tmp_path / "inner.ygr"
    path.write_bytes(dumps(_unsigned(dataclasses.replace(outer, games=games)), key))
    out = tmp_path / "out.ygr"
    done = _run("export", str(path), "-o", str(out), "--key", key.public.text)
    assert done.exit_code != 0 and not out.exists(), done.output
    assert "duel 2" in done.output and "NOT signed" in done.output


def test_a_match_file_signed_by_a_key_trusted_here_is_exported_again(genuine, tmp_path):
    stranger = OrganiserKey.generate()
    other = tmp_path / "other.ygr"
    outer = read(genuine)
    other.write_bytes(dumps(outer, stranger))                  # the same match, signed by another organiser
    for door in (("export",), ("match", "export")):
        out = tmp_path / f"{'-'.join(door)}.ygr"
        done = _run(*door, str(other), "-o", str(out), "--key", stranger.public.text)
        assert done.exit_code == 0, done.output
        checked = _run("verify", str(out))
        assert checked.exit_code == 0, checked.output
    done = _run("export", str(genuine), "-o", str(tmp_path / "again.ygr"))
    assert done.exit_code == 0, done.output


# -- a match file through the doors that read a duel --------------------------------------------------
#
# show, log, check, audit, verify and export hand a match file to the match commands, which give
# a view what ``match.views.view_dict`` lets it see (25v). Every other command that reads a file
# opened it as a duel (``source.open_source``): ``export --record --view p0`` wrote the other
# player's decklist and Side Deck whole as "the record p0 would have written", and ``lp-sheet``,
# ``play`` and ``export --html`` ended in an internal error.

@pytest.mark.parametrize("args", [
    ("export", "--record", "--view", "p0"), ("export", "--record", "--view", "spectator"),
    ("export", "--html"), ("lp-sheet",), ("lp-sheet", "--view", "p1"), ("actions",), ("opened",),
    ("play", "--plain", "--view", "p0")])
@pytest.mark.parametrize("kind", ["jsonl", "ygr"])
def test_a_match_file_is_no_duel_to_the_commands_that_read_one(genuine, tmp_path, args, kind):
    path = str(MATCH if kind == "jsonl" else genuine)
    out = tmp_path / "out"
    named = [path, *(("-o", str(out)) if args[0] in ("export", "lp-sheet") else ())]
    done = CliRunner().invoke(main, [args[0], *named, *args[1:]], input="q\n")
    assert done.exit_code == 2 and "a match file, not a duel replay" in done.output, done.output
    assert "internal error" not in done.output and "91152256" not in done.output and not out.exists()


# -- a match's token in a duel that seats its players otherwise --------------------------------------
#
# A match's tokens open its duels with the role they have in the match (``Service.match_role``):
# the match's player 0 read player 0's seat of every duel. But a duel names its own players (its
# ``duel_started``, typed at the table: the recorder's page only suggests the match's names), and
# a duel recorded the other way round seated the match's player 1 as its player 0: the match's
# player 0 token was shown the other player's hand.

def _match_service(tmp_path, names: list[str]):
    from fastapi.testclient import TestClient
    from test_match_service import MATCHES, lines, match_body
    from test_service import ADMIN
    from ygoreplay.access import digest
    from ygoreplay.service import create_app
    from ygoreplay.store import Store
    store = Store(str(tmp_path / "s.sqlite"))
    client = TestClient(create_app(store, digest(ADMIN)))
    admin = {"Authorization": f"Bearer {ADMIN}"}
    made = client.post("/matches", json=match_body(lines(MATCHES / "two-nil.jsonl")), headers=admin).json()
    tokens = made["tokens"]
    game = client.post(f"/matches/{made['id']}/games", json={"first_player": 0, "chosen_by": 0},
                       headers={"Authorization": f"Bearer {tokens['recorder']}"})
    assert game.status_code == 201, game.text
    duel = game.json()["duel"]["id"]
    events = lines(MATCHES / "duels" / "g1-yugi-wins.jsonl")
    events[0]["players"] = names
    written = client.post(f"/duels/{duel}/events", json=events[:12],
                          headers={"Authorization": f"Bearer {tokens['recorder']}"})
    assert written.status_code == 200, written.text
    return client, store, duel, tokens, made["id"]


@pytest.mark.parametrize("names, seat", [(["Yugi", "Kaiba"], {"p0": "p0", "p1": "p1"}),
                                         (["Kaiba", "Yugi"], {"p0": "p1", "p1": "p0"}),
                                         (["Seto", "Yugi"], {"p0": "spectator", "p1": "spectator"})])
def test_a_match_players_token_reads_its_own_seat_of_a_duel_whatever_the_duels_order(tmp_path, names, seat):
    client, store, duel, tokens, _match = _match_service(tmp_path, names)
    with client:
        judge = client.get(f"/duels/{duel}/state", headers={"Authorization": f"Bearer {tokens['judge']}"}).json()
        for role in ("p0", "p1"):
            asked = client.get(f"/duels/{duel}/state", headers={"Authorization": f"Bearer {tokens[role]}"})
            assert asked.status_code == 200, asked.text
            assert asked.json()["view"] == seat[role], (names, role)
            other = 1 - int(role[1]) if seat[role] == role else int(role[1])    # the other player's seat
            hidden = [c["code"] for c in judge["board"]["players"][other]["hand"]]
            shown = [c.get("code") for c in asked.json()["board"]["players"][other]["hand"]]
            assert hidden and not any(shown), (names, role, shown)
    store.close()


def test_a_match_players_file_holds_each_duel_as_its_own_seat_sees_it(tmp_path):
    """The match's ``.ygr`` for a player carries each duel's file for that player: of the seat
    its player has in that duel, as ``/duels/{id}/state`` reads it with the same token."""
    client, store, _duel, tokens, match = _match_service(tmp_path, ["Kaiba", "Yugi"])
    with client:
        for role, seat in (("p0", "p1"), ("p1", "p0")):
            data = client.get(f"/matches/{match}/replay.ygr", headers={"Authorization": f"Bearer {tokens[role]}"})
            assert data.status_code == 200, data.text
            assert loads(loads(data.content).games[0]).view == seat
    store.close()


def test_a_match_players_follower_from_before_the_duel_named_its_players_is_seated_again(tmp_path):
    """The seat is read from the duel's first event: a player's device following a duel of the
    match from before it (the match page opens each game's viewer as soon as it is started) had
    its view fixed at the match's seat, and was sent the other player's hand when the duel came
    in seated the other way round. Its stream ends, sending nothing, at the first event: its
    reconnection is seated."""
    import httpx
    from test_match_service import MATCHES, lines, match_body
    from test_service import ADMIN, Follower, Server, auth
    srv = Server(str(tmp_path / "s.sqlite"))
    try:
        made = httpx.post(f"{srv.url}/matches", json=match_body(lines(MATCHES / "two-nil.jsonl")),
                          headers=auth(ADMIN)).json()
        tokens = made["tokens"]
        game = httpx.post(f"{srv.url}/matches/{made['id']}/games", json={"first_player": 0, "chosen_by": 0},
                          headers=auth(tokens["recorder"])).json()
        duel = game["duel"]["id"]
        follower = Follower(f"{srv.url}/duels/{duel}/follow", auth(tokens["p0"]))
        follower.start()
        assert follower.ready.wait(10)
        events = lines(MATCHES / "duels" / "g1-yugi-wins.jsonl")
        events[0]["players"] = ["Kaiba", "Yugi"]                 # the match's player 0 sits as player 1
        written = httpx.post(f"{srv.url}/duels/{duel}/events", json=events[:12], headers=auth(tokens["recorder"]))
        assert written.status_code == 200, written.text
        follower.join(20)
        assert not follower.is_alive(), "the stream goes on in the seat it was opened with"
        assert follower.received == [] and not follower.ended.is_set()
        again = httpx.get(f"{srv.url}/duels/{duel}/frames", headers=auth(tokens["p0"])).json()
        assert again["view"] == "p1"
    finally:
        srv.stop()
