"""Players who each record their own side (issue 23): in a witnessed duel a player's device
writes play, its own side's only — an event whose acting ``player`` is theirs, one that names no
player during their own turn, the setup before the first turn — and never a judge's kind. One
rule (``access.off_side``, applied by ``application._stamped``) for every door: the HTTP events
endpoint with a player's token, and the command line's ``append --by`` / ``record --by``.
"""
from __future__ import annotations

import json

import httpx
from click.testing import CliRunner

from test_match_doors import service  # noqa: F401  (fixture: a service on a SQLite store whose path it names)
from test_service import ADMIN, auth, events_of
from ygoreplay.access import off_side, side_of
from ygoreplay.cli import main

WON = events_of("won-by-damage.jsonl")
START = [{**WON[0], "witnessed": True}, *WON[1:5]]     # the duel, both decks, both opening hands
P0_TURN = WON[5:12]                                    # turn 1: turn_started player 0 ... End Phase
P1_TURN = WON[12:18]                                   # turn 2 up to Kaiba's Normal Summon


def post(base: str, duel: dict, role: str, events: list[dict], expected: int | None = None) -> httpx.Response:
    query = "" if expected is None else f"?expected={expected}"
    return httpx.post(f"{base}/duels/{duel['id']}/events{query}", json=events, headers=auth(duel["tokens"][role]))


def new_duel(base: str, **body) -> dict:
    r = httpx.post(f"{base}/duels", json={"title": "table 3", "visibility": "unlisted", **body}, headers=auth(ADMIN))
    assert r.status_code == 201, r.text
    return r.json()


def test_whose_side_an_event_is_on():
    assert side_of("normal_summoned", 1, 0) == 1, "the acting player's, whoever's turn it is"
    assert side_of("phase_entered", None, 0) == 0 and side_of("chain_link_resolved", None, 1) == 1
    assert side_of("deck_registered", 1, None) is None, "before the first turn: the setup, both players'"
    assert off_side("p0", "phase_entered", None, None, True) is None
    assert "turn player's" in off_side("p1", "phase_entered", None, 0, True)
    assert "own side" in off_side("p1", "life_points_changed", 0, 1, True)
    assert off_side("p1", "life_points_changed", 1, 0, True) is None, "a player's own LP, in the other's turn"
    assert off_side("p0", "entry_disputed", None, 1, True) is None, "a dispute has no side"
    assert off_side("p0", "normal_summoned", 1, 1, False) is None, "a machine's duel: may_write refuses play"
    assert "seals and opens their own" in off_side("p0", "cards_sealed", 1, 0, False)
    assert off_side("recorder", "normal_summoned", 1, 0, True) is None


def test_http_each_players_token_records_their_own_side_of_a_witnessed_duel(service):  # noqa: F811
    base = service.url
    duel = new_duel(base, mode="witnessed")
    assert set(duel["record"]) == {"recorder", "p0", "p1"}
    assert duel["record"]["p1"] == f"{base}/record/{duel['id']}?token={duel['tokens']['p1']}"
    assert post(base, duel, "p1", START, 0).status_code == 200, "either player enters the setup"
    refused = post(base, duel, "p1", P0_TURN[:1], 5)
    assert refused.status_code == 403 and "player 0's" in refused.json()["error"]
    assert post(base, duel, "p0", P0_TURN[:4], 5).status_code == 200
    for other in ([P0_TURN[4]], [{"kind": "phase_entered", "phase": "battle"}]):
        r = post(base, duel, "p1", other, 9)
        assert r.status_code == 403 and "nothing was written" in r.json()["error"], r.text
    assert post(base, duel, "p0", P0_TURN[4:], 9).status_code == 200
    # the turn as the batch leaves it: p0 may not start p1's turn, nor write a judge's kind
    assert post(base, duel, "p0", P1_TURN[:2], 12).status_code == 403
    note = post(base, duel, "p0", [{"kind": "judge_note", "judge": "me", "note": "fine"}], 12)
    assert note.status_code == 403 and "judge" in note.json()["error"]
    assert post(base, duel, "p1", P1_TURN, 12).status_code == 200
    assert post(base, duel, "p0", [{"kind": "entry_confirmed", "on": 17}], 18).status_code == 200
    # p0's own LP in p1's turn is p0's; the End Phase (no player) is the turn player's
    assert post(base, duel, "p0", [{"kind": "life_points_changed", "player": 0, "amount": 100,
                                    "reason": "effect_damage"}], 19).status_code == 200
    assert post(base, duel, "p0", [{"kind": "phase_entered", "phase": "end"}], 20).status_code == 403
    assert post(base, duel, "p1", [{"kind": "phase_entered", "phase": "end"}], 20).status_code == 200
    # a batch that starts p0's turn: its Draw Phase is then p0's
    turn3 = [{"kind": "turn_started", "player": 0, "turn": 3}, {"kind": "phase_entered", "phase": "draw"},
             {"kind": "cards_drawn", "player": 0, "count": 1}]
    assert post(base, duel, "p0", turn3, 21).status_code == 200
    lines = httpx.get(f"{base}/duels/{duel['id']}/events", headers=auth(duel["tokens"]["judge"])).text.splitlines()
    by = [json.loads(line)["by"] for line in lines]
    assert by == ["p1"] * 5 + ["p0"] * 7 + ["p1"] * 6 + ["p0", "p0", "p1"] + ["p0"] * 3
    # what the page is offered: only this player's own side
    for role, mine in (("p0", True), ("p1", False)):
        moves = httpx.get(f"{base}/duels/{duel['id']}/actions", headers=auth(duel["tokens"][role])).json()["actions"]
        phases = [a for a in moves if a["event"]["kind"] == "phase_entered"]
        assert bool(phases) is mine, (role, [a["event"] for a in moves])
        assert all(a["event"].get("player") in (None, int(role[1])) for a in moves)


def test_http_a_players_token_writes_no_play_in_a_machines_duel(service):  # noqa: F811
    base = service.url
    duel = new_duel(base)
    assert set(duel["record"]) == {"recorder"}
    assert post(base, duel, "recorder", WON[:5]).status_code == 200
    r = post(base, duel, "p0", WON[5:6])
    assert r.status_code == 403 and "recorder" in r.json()["error"]
    assert httpx.get(f"{base}/duels/{duel['id']}/actions", headers=auth(duel["tokens"]["p0"])).status_code == 403


def test_cli_append_by_a_player_is_held_to_their_own_side(tmp_path):
    store = str(tmp_path / "s.sqlite")

    def run(*args: str):
        return CliRunner().invoke(main, [*args, "--store", store])

    def write(events: list[dict], name: str) -> str:
        path = tmp_path / name
        path.write_text("".join(json.dumps(e) + "\n" for e in events))
        return str(path)
    whole = run("record", write([*START, *P0_TURN], "duel.jsonl"), "--by", "p1", "--json")
    assert whole.exit_code != 0 and "entered as p1" in whole.output and "player 0's" in whole.output
    done = run("record", write([*START, *P0_TURN], "duel.jsonl"), "--by", "p0", "--json")
    assert done.exit_code == 0, done.output
    duel = json.loads(done.stdout)["id"]
    wrong = run("append", duel, write(P1_TURN, "turn2.jsonl"), "--by", "p0")
    assert wrong.exit_code != 0 and "event 0 (turn_started) is entered as p0" in wrong.output
    assert run("append", duel, write(P1_TURN, "turn2.jsonl"), "--by", "p1").exit_code == 0
    assert run("append", duel, write([{"kind": "phase_entered", "phase": "battle"}], "bp.jsonl"),
               "--by", "p0").exit_code != 0
    stored = [json.loads(line)["event"] for line in run("log", duel, "--json").stdout.splitlines()]
    assert [e["entered_by"] for e in stored] == ["p0"] * 12 + ["p1"] * 6
