"""Attacks on issue 25's seventeenth pass (``attack25ar``): the doors that write.

* A player's device enters the end of the duel by its own loss only: the end releases what the
  duel hid and nothing undoes it (no rollback after it, MATCH-10; no correction, LOG-12). The
  check sat behind "a record's first events: nothing is hidden yet" (``views.out_of_sight``): a
  witnessed duel's first append, from a player's device (either may enter the setup), ended it
  with that player's win, unflagged, and the judge's rollback was refused. Judged before the head.
* A match's player token has the seat in a duel that the duel's ``duel_started`` names its player
  in (``access.seated``); before there is one, the match's. The device that wrote the
  ``duel_started`` naming its player the other way round was judged, and stamped, as the other
  seat for the whole batch: Kaiba's device entered "Kaiba wins" as ``p1``, Yugi's seat there, so
  the record says Yugi's device conceded (LOG-12's "who said so"), and the own-loss check above
  passed. The same on a second service process that held the duel empty (another had stored
  Kaiba's opening): his token was read as p1 there, and "Kaiba wins" went in as p1's own loss.
  Seated by a read before the append, another process's ``duel_started`` stored in between
  still seated him by the match. It is now decided by the append itself, at the head it judges
  the batch on: the ``duel_started`` stored there, else its batch's (``access.Seating``,
  ``Records._seated``), and refused when neither match player is named there (every player
  token made a spectator's).
* A duel linked into a match is recorded in the match's mode, as each duel the match makes is
  (``match.commands.linkable``): a paper table's recorder holding a machine record's token linked
  it as the game, the players' devices refused in it (no entry, confirmation or dispute of theirs)
  and its result counted for the match; a witnessed duel in a machine's match let its players'
  match tokens write a game the organiser chose a recorder's.
"""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from test_release import ADMIN, auth, client, store  # noqa: F401  (fixtures)
from test_attack_25i import paper_round, table_duel
from test_match_service import MATCHES, lines, match_body
from test_service_table_recording import ORGANISER
from ygoreplay.access import digest
from ygoreplay.cli import main
from ygoreplay.service import create_app
from ygoreplay.store import Store

SETUP = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["Yugi", "Kaiba"], "witnessed": True},
         *({"kind": "deck_registered", "player": p, "main": [0] * 40, "extra": [0] * 15} for p in (0, 1)),
         *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
         {"kind": "turn_started", "player": 0, "turn": 1}]
#: Kaiba surrenders: Yugi's win, entered by Yugi's device.
WON = {"kind": "duel_ended", "winner": 0, "reason": "surrender"}


def _witnessed(client) -> dict:  # noqa: F811
    return client.post("/duels", json={"title": "table 9", "mode": "witnessed"}, headers=ORGANISER).json()


def _events(client, duel: dict) -> int:  # noqa: F811
    return client.get(f"/duels/{duel['id']}/state", headers=auth(duel["tokens"]["judge"])).json()["events"]


def test_a_players_first_append_does_not_end_the_duel_by_its_own_win(client):  # noqa: F811
    """p0's device sends the setup and Kaiba's surrender in one append: refused (403), nothing
    written, as the same end sent a moment later is; its own loss still goes in."""
    duel = _witnessed(client)
    yugi = auth(duel["tokens"]["p0"])
    r = client.post(f"/duels/{duel['id']}/events", json=[*SETUP, WON], headers=yugi)
    assert r.status_code == 403 and "its own loss only" in r.json()["error"], r.text
    assert _events(client, duel) == 0
    assert client.post(f"/duels/{duel['id']}/events", json=[*SETUP, {**WON, "winner": 1}], headers=yugi).status_code == 200
    assert _events(client, duel) == len(SETUP) + 1


def test_a_draw_in_the_first_append_is_the_recorders(client):  # noqa: F811
    duel = _witnessed(client)
    r = client.post(f"/duels/{duel['id']}/events", json=[*SETUP, {**WON, "winner": None, "reason": "draw"}],
                    headers=auth(duel["tokens"]["p0"]))
    assert r.status_code == 403 and "recorder enters a draw" in r.json()["error"], r.text
    recorder = auth(duel["tokens"]["recorder"])
    assert client.post(f"/duels/{duel['id']}/events", json=[*SETUP, {**WON, "winner": None, "reason": "draw"}],
                       headers=recorder).status_code == 200


def test_append_by_a_player_from_the_command_line_is_held_to_the_same_end(store, client, tmp_path):  # noqa: F811
    """``ygoreplay append DUEL FILE --by p0`` on the empty witnessed duel: the same refusal, exit 2."""
    duel = _witnessed(client)
    path = tmp_path / "entry.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in [*SETUP, WON]))
    done = CliRunner().invoke(main, ["append", duel["id"], str(path), "--by", "p0", "--store", store.path])
    assert done.exit_code == 2 and "its own loss only" in done.output, done.output
    assert _events(client, duel) == 0


def _table_duel(client) -> tuple[dict, dict]:  # noqa: F811
    """Table 1 of a round (Yugi v Kaiba, witnessed), its first duel made by the match, empty."""
    made, duel = table_duel(client)
    return made["tables"][0], duel


def _opening(players: list[str]) -> list[dict]:
    return [{**SETUP[0], "players": players}, *SETUP[1:-1]]


def test_a_match_players_device_naming_the_seats_writes_as_the_seat_it_names(client):  # noqa: F811
    """Kaiba's match token (p1 in the match) enters the duel's opening with Kaiba in seat 0 and
    his own win: refused as p0's claimed win, not stored as p1's (Yugi's) concession."""
    table, duel = _table_duel(client)
    kaiba = auth(table["tokens"]["p1"])
    r = client.post(f"/duels/{duel['id']}/events", json=[*_opening(["Kaiba", "Yugi"]), WON], headers=kaiba)
    assert r.status_code == 403 and "entered as p0" in r.json()["error"], r.text
    assert _events(client, {"id": duel["id"], "tokens": table["tokens"]}) == 0
    # the opening alone is stored as his seat's entries: p0's, where the duel sits Kaiba
    r = client.post(f"/duels/{duel['id']}/events", json=_opening(["Kaiba", "Yugi"]), headers=kaiba)
    assert r.status_code == 200, r.text
    stored = [json.loads(line) for line in client.get(f"/duels/{duel['id']}/events",
                                                       headers=auth(table["tokens"]["judge"])).text.splitlines()]
    assert {step["event"].get("entered_by") for step in stored} == {"p0"}


def test_a_match_players_device_may_not_name_others_in_the_seats(client):  # noqa: F811
    """Names that are not the match's players seat neither: every player token of the duel a
    spectator's. Refused (403), nothing written; the recorder's opening then goes in."""
    table, duel = _table_duel(client)
    r = client.post(f"/duels/{duel['id']}/events", json=_opening(["Joey", "Mai"]),
                    headers=auth(table["tokens"]["p0"]))
    assert r.status_code == 403 and "match's players" in r.json()["error"], r.text
    recorder = auth(table["tokens"]["recorder"])
    assert client.post(f"/duels/{duel['id']}/events", json=_opening(["Yugi", "Kaiba"]),
                       headers=recorder).status_code == 200


@pytest.mark.parametrize("hook", ["before", "command", "head"])
def test_a_second_process_holding_the_duel_empty_seats_the_match_player_as_stored(tmp_path, hook):
    """Two service processes on one store: Kaiba's device stores the opening on the first, naming
    himself in seat 0, and sends "Kaiba wins" to the second, which held the duel empty. His token
    there was the match's p1: the win went in as p1's, Yugi's, own loss (LOG-12). The opening
    stored ``before`` that request (a read of the duel before the append sees it), or in the race
    a read before the write leaves: after that read, as the append command is entered
    (``command``: ``Records.append_records``), or once the command has read the head it holds
    (``head``: ``Store.witnessed``). Seated by the append at the head it judges the batch on:
    p0's claimed win, refused."""
    path = str(tmp_path / "duels.sqlite")
    with Store(path, concurrent=True) as first_store, Store(path, concurrent=True) as second_store, \
            TestClient(create_app(first_store, digest(ADMIN))) as first, \
            TestClient(create_app(second_store, digest(ADMIN))) as second:
        table, duel = _table_duel(first)
        kaiba, judge = auth(table["tokens"]["p1"]), auth(table["tokens"]["judge"])
        assert second.get(f"/duels/{duel['id']}/state", headers=kaiba).json()["events"] == 0

        def opening() -> None:           # the first process stores Kaiba's opening, once
            if first.get(f"/duels/{duel['id']}/state", headers=judge).json()["events"] == 0:
                assert first.post(f"/duels/{duel['id']}/events", json=_opening(["Kaiba", "Yugi"]),
                                  headers=kaiba).status_code == 200
        if hook == "before":
            opening()
        owner = second.app.state.service.records if hook == "command" else second_store
        name = "append_records" if hook == "command" else "witnessed"
        command = getattr(owner, name)

        def raced(*args, **kwargs):
            done = command(*args, **kwargs) if hook == "head" else None
            opening()
            return done if hook == "head" else command(*args, **kwargs)
        setattr(owner, name, raced)
        r = second.post(f"/duels/{duel['id']}/events", json=[WON], headers=kaiba)
        assert r.status_code == 403 and "entered as p0" in r.json()["error"], r.text
        assert first.get(f"/duels/{duel['id']}/state", headers=judge).json()["events"] == len(SETUP) - 1


def _linked(client, match_id: str, recorder: dict, duel: dict, door: str):  # noqa: F811
    """The match's recorder links ``duel`` (with its recorder token) as game 1, through ``door``."""
    token = duel["tokens"]["recorder"]
    if door == "games":
        return client.post(f"/matches/{match_id}/games", json={"duel": duel["id"], "duel_token": token,
                                                               "first_player": 0, "chosen_by": 0}, headers=recorder)
    return client.post(f"/matches/{match_id}/events?duel_token={token}", headers=recorder, json=[
        {"kind": "game_started", "game": 1, "duel": duel["id"], "first_player": 0, "chosen_by": 0}])


@pytest.mark.parametrize("door", ["games", "events"])
def test_a_duel_is_linked_only_into_a_match_of_its_mode(client, door):  # noqa: F811
    """Table 1's recorder (a paper round: witnessed) holds a machine record's recorder token:
    refused as game 1 (409, ``duel``), where it was linked and Yugi's device then refused in it;
    a witnessed duel is linked. A machine's match refuses a witnessed duel the same way."""
    table = paper_round(client)["tables"][0]
    recorder = auth(table["tokens"]["recorder"])
    machine, witnessed = (client.post("/duels", json={"title": f"a {mode} record", "mode": mode}, headers=ORGANISER)
                          .json() for mode in ("machine", "witnessed"))
    r = _linked(client, table["match"], recorder, machine, door)
    assert r.status_code == 409 and r.json()["where"] == "duel" and "machine record" in r.json()["error"], r.text
    # nothing was written: game 1 is the witnessed duel's
    assert _linked(client, table["match"], recorder, witnessed, door).status_code in (200, 201)
    match = client.post("/matches", json=match_body(lines(MATCHES / "two-nil.jsonl")), headers=ORGANISER).json()
    paper = client.post("/duels", json={"title": "on paper", "mode": "witnessed"}, headers=ORGANISER).json()
    r = _linked(client, match["id"], auth(match["tokens"]["recorder"]), paper, door)
    assert r.status_code == 409 and "witnessed record" in r.json()["error"], r.text
