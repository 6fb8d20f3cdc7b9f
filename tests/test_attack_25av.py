"""Attack 25av: writes and files, as an attacker would.

Found (fixed):

* A match read a duel of it by seat where it speaks of its own players (HIGH). A duel may seat the
  match's players the other way round (its ``duel_started`` names Kaiba in seat 0: the match's
  tokens are seated so, ``access.seated``), but the match took the duel's seat 0 for its player 0
  everywhere: Kaiba's win ended game 1 as Yugi's (``/games/1/end`` without a winner), Yugi's
  score went up, and the judge was told nothing (LOG-09); Kaiba going first agreed with "Yugi goes
  first" (MATCH-07), each deck was compared with the other player's decklist (MATCH-04), the LP a
  time decision defaulted to (``/decide``) and the turn player time was called in were the other
  player's, and ``match duel``/``end-duel`` (the command line's match file) read a duel file so.
  Now one mapping (``access.seat_order``) that every read of a duel by its match goes through
  (``match.links.standing``, ``check_duel``, ``check_ending``, ``commands._check_first``).

* A store file whose record table says what a conflict does, or is keyed otherwise
  (``store.own_schema``). Two writers appending at one position count on the second's INSERT
  being refused by the table's key (then judged again at the new head). A store file planted with
  ``PRIMARY KEY (originator_id, originator_version) ON CONFLICT REPLACE`` had the second writer's
  event overwrite the first's, both answered with a signed receipt and ``verify`` saying ok on
  the store alone (the first event lost); ``ON CONFLICT IGNORE`` dropped the second's event and
  answered it with a receipt of a head never stored; no key at all stored both as
  event #18 (the record broken). Every write (``record``, ``append``, the service, imports)
  opens the store through ``_check_sqlite``: a written table must have our key and no conflict
  clause, or the store is refused (exit 2), nothing written.

* A confirmation or a dispute of an entry a correction struck or a judge's rollback reverted
  (``rules.History``): p0 entered #6 and struck it (#7); p1 then "confirmed" #6, and the book
  said a struck entry was agreed to, or "disputed" it, an open judge call on an entry gone from
  play. Now refused (LOG-02) through every door, as an audit of a record holding one says.

* A duel of a match goes on after the match ended its game by a concession or a penalty (the
  record need not end there), and its record may then end otherwise: the match said Kaiba
  conceded game 1, the duel's record then said Yugi did, and the judge's ``problems`` (LOG-09,
  ``match.links.check_duel``) said nothing, as they do for any other ending. Now listed.
  Left open: the write itself is taken (``Records.append_records`` does not read the duel's match:
  a read of another stream on every append's hot path, and racy across processes).

Tried and found holding:

* A dispute of one's own entry (LOG-05), a confirmation of a confirmation, dispute, rollback or
  correction (LOG-02), a correction of a correction (LOG-12: it goes back to an event of play).
* A judge's rollback to event 0 then a new ``duel_started`` re-seating the players: a rollback
  goes back to event 1 at the earliest (LOG-02: the ``duel_started`` stays), and a second
  ``duel_started`` is refused even in a witnessed duel (LOG-03, ``impossible``, never a flag).
* An append judged on a head read fresh but written at the head its ``expected`` names (another
  process storing the opening in between): judged at 0, the batch must open the duel
  (``Records.check_mode``) and a player's token may not write a machine duel at all, so the
  write at ``expected`` is refused by the rules (LOG-03) or the mode check; nothing goes in.
* The seat race of a match's player token (``Records._seated``) on the PostgreSQL store, the
  opening stored before the request, as the command is entered and after its head is read:
  seated by the opening stored, as on SQLite.
* A batch mixing seats (an ``entered_by`` not the token's: refused), an offline batch sent again
  (the recorder's page sends ``?expected``: a conflict), a judge's ruling off the entries
  (LOG-02); ``.ygr`` files with trailing bytes or a second signature (refused: the trailer is
  one signature exactly); ``.ydk``/``ydke://`` files with bad passcodes, parts or sizes (exit 2,
  said); read-only commands open the store ``mode=ro`` (on a WAL store SQLite still makes its
  ``-shm``/``-wal`` beside it, as any reader does); a store index on a collation ygoreplay does
  not know (reads go on; a write is refused, exit 2, "no such collation sequence", nothing written).

Left open (reported): a correction is marked "unconfirmed" (``History.needs_confirming``) but
no confirmation or dispute may be on one (LOG-02's ``went_back``): the book asks for what the
rules refuse; which is meant is the maintainers' call. A store in rollback-journal mode with a
hot journal beside it (a write interrupted) is "not a ygoreplay store (... attempt to write a
readonly database)" to every command, the read-only check being unable to roll it back.
"""
from __future__ import annotations

import sqlite3

import pytest
from click.testing import CliRunner

from test_attack_25as import OTHER, _alter, stored  # noqa: F401  (fixture)
from test_release import client, store  # noqa: F401  (fixtures)
from ygoreplay.application import Records
from ygoreplay.cli import main
from ygoreplay.events import from_dict
from ygoreplay.rules import RuleViolation
from ygoreplay.store import Store

#: ``stored_events`` made again as a store file's writer may: keyed as ours with a conflict clause, or not keyed.
PLANTED = {"replace": ", PRIMARY KEY (originator_id, originator_version) ON CONFLICT REPLACE",
           "ignore": ", PRIMARY KEY (originator_id, originator_version) ON CONFLICT IGNORE",
           "unkeyed": "", "other key": ", PRIMARY KEY (originator_id, topic, originator_version)"}


def _planted(path, key: str) -> None:
    _alter(path, f"""
            CREATE TABLE remade (originator_id TEXT, originator_version INTEGER, topic TEXT, state BLOB{key});
            INSERT INTO remade SELECT * FROM stored_events; DROP TABLE stored_events;
            ALTER TABLE remade RENAME TO stored_events;""")


def _rows(path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT count(*) FROM stored_events").fetchone()[0]
    finally:
        conn.close()


@pytest.mark.parametrize("planted", sorted(PLANTED))
def test_a_store_whose_record_table_is_not_keyed_as_ours_is_not_written(stored, planted):  # noqa: F811
    """``record`` and ``branch`` on a store whose ``stored_events`` says what a conflict
    does, or has another key: refused (exit 2) naming the table, nothing written. (Two processes
    holding the duel's head, each appending at it: on ``REPLACE`` the second's event overwrote the
    first's, both answered with a receipt and the store alone verified ok; on ``IGNORE`` the
    second's was dropped, answered with a receipt.)"""
    path, duel = stored
    _planted(path, PLANTED[planted])
    refused_unwritten(path, duel)


def refused_unwritten(path, duel: str) -> None:
    """``record`` and ``branch`` on the store file ``path`` holding ``duel``: refused (exit 2) for
    its ``stored_events``' key, nothing written."""
    before = _rows(path)
    for command in (["record", OTHER], ["branch", duel, "--at", "3"]):
        done = CliRunner().invoke(main, [*command, "--store", str(path)])
        assert done.exit_code == 2, done.output
        assert "its table stored_events is not keyed as ygoreplay keys it" in done.stderr, done.output
    assert _rows(path) == before


#: A witnessed duel's set-up (Yugi's turn 1 begun, #5), and Yugi's device's first entry (#6).
WITNESSED = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["Yugi", "Kaiba"],
              "witnessed": True},
             *({"kind": "deck_registered", "player": p, "main": [0] * 40, "extra": [0] * 15} for p in (0, 1)),
             *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
             {"kind": "turn_started", "player": 0, "turn": 1}]
YUGIS = {"kind": "phase_entered", "phase": "standby"}


def _events(*dicts: dict) -> list:
    return [from_dict(d) for d in dicts]


@pytest.mark.parametrize("undone", ["struck", "reverted"])
@pytest.mark.parametrize("remark", [{"kind": "entry_confirmed", "on": 6},
                                    {"kind": "entry_disputed", "on": 6, "reason": "not what was played"}])
def test_an_entry_struck_or_reverted_is_neither_confirmed_nor_disputed(tmp_path, undone, remark):
    """LOG-02: Yugi's #6 struck by his own correction (or reverted by a judge's rollback) at #7;
    Kaiba's device then confirms or disputes #6: refused, nothing written. It went in, and the
    book said the struck entry was agreed to, or held an open dispute of it for a judge."""
    with Store(str(tmp_path / "duels.sqlite")) as kept:
        records = Records(kept)
        duel = records.record(_events(*WITNESSED), "table 1", witnessed=True).id
        records.append(duel, _events(YUGIS), entered_by="p0")
        if undone == "struck":
            records.append(duel, _events({"kind": "entry_corrected", "to": 6, "reason": "mis-entry"}), entered_by="p0")
        else:
            records.rollback(duel, 6, "Ann", "a wrong phase")
        with pytest.raises(RuleViolation, match="entry 6 was (struck by the correction|reverted by the rollback) "
                                                "at 7: only an entry still in effect") as refused:
            records.append(duel, _events(remark), entered_by="p1")
        assert refused.value.rule == "LOG-02"
        assert kept.info(duel).events == 8


def test_a_duel_that_ends_otherwise_after_its_match_game_was_conceded_is_a_problem_for_the_judge(client):  # noqa: F811
    """LOG-09: game 1 conceded by Kaiba in the match (Yugi wins, ``how: surrender``) while the
    duel goes on; the table's recorder then enters the duel's end as Yugi's concession. The
    match's judge is told the duel was won by player 1, not by player 0 as the match says."""
    from test_attack_25ar import _opening
    from test_attack_25i import table_duel
    from test_release import auth
    made, duel = table_duel(client)
    one = made["tables"][0]
    recorder, judge = auth(one["tokens"]["recorder"]), auth(one["tokens"]["judge"])
    opening = [*_opening(["Yugi", "Kaiba"]), {"kind": "turn_started", "player": 0, "turn": 1}]
    assert client.post(f"/duels/{duel['id']}/events", json=opening, headers=recorder).status_code == 200
    assert client.post(f"/matches/{one['match']}/games/1/end", json={"winner": 0, "how": "surrender"},
                       headers=recorder).status_code == 200
    # (tests/test_leftovers_18.py: the match's game end now ends the duel's record with it, so
    # the record's other end is refused, LOG-03, and the two agree)
    ended = client.post(f"/duels/{duel['id']}/events", json=[{"kind": "duel_ended", "winner": 1, "reason": "surrender"}],
                        headers=recorder)
    assert ended.status_code == 422 and ended.json()["rule"] == "LOG-03", ended.text
    problems = client.get(f"/matches/{one['match']}/state", headers=judge).json()["problems"]
    assert not [p for p in problems if p["rule"] == "LOG-09"], problems


def _swapped_table(client) -> tuple[dict, dict, dict, dict]:  # noqa: F811
    """Table 1 (the match's Yugi v Kaiba) whose duel seats Kaiba in seat 0, Yugi in seat 1, and
    has Yugi (seat 1) going first, as the match says (its player 0): (table, duel, recorder, judge)."""
    from test_attack_25ar import _opening
    from test_attack_25i import table_duel
    from test_release import auth
    made, duel = table_duel(client)
    one = made["tables"][0]
    recorder, judge = auth(one["tokens"]["recorder"]), auth(one["tokens"]["judge"])
    opening = [{**_opening(["Kaiba", "Yugi"])[0], "first_player": 1, "chosen_by": 1}, *_opening([])[1:],
               {"kind": "turn_started", "player": 1, "turn": 1}]
    assert client.post(f"/duels/{duel['id']}/events", json=opening, headers=recorder).status_code == 200
    return one, duel, recorder, judge


def _seat_problems(client, one: dict, judge: dict) -> list[dict]:  # noqa: F811
    problems = client.get(f"/matches/{one['match']}/state", headers=judge).json()["problems"]
    return [p for p in problems if p["rule"] in ("MATCH-07", "LOG-09")]


def test_a_duel_seating_the_match_players_the_other_way_round_ends_its_game_as_its_winner(client):  # noqa: F811
    """LOG-09: Yugi concedes in the duel (seat 1): Kaiba, seat 0, wins. The game ended by the
    match reading the duel's record is Kaiba's (the match's player 1), as the score is; the duel,
    whose first player is Yugi's seat as the match says, is no problem for the judge."""
    one, duel, recorder, judge = _swapped_table(client)
    assert client.post(f"/duels/{duel['id']}/events", json=[{"kind": "duel_ended", "winner": 0, "reason": "surrender"}],
                       headers=recorder).status_code == 200
    assert client.post(f"/matches/{one['match']}/games/1/end", json={}, headers=recorder).status_code == 200
    state = client.get(f"/matches/{one['match']}/state", headers=judge).json()
    assert state["games"][0]["winner"] == 1 and state["score"][:2] == [0, 1], state
    assert _seat_problems(client, one, judge) == []


def test_a_game_said_won_by_the_duels_seat_not_its_player_is_refused(client):  # noqa: F811
    """LOG-09: the recorder says the match's player 0 (Yugi) won game 1 where the duel's seat 0,
    Kaiba, won it: refused (422), nothing written."""
    one, duel, recorder, judge = _swapped_table(client)
    assert client.post(f"/duels/{duel['id']}/events", json=[{"kind": "duel_ended", "winner": 0, "reason": "surrender"}],
                       headers=recorder).status_code == 200
    r = client.post(f"/matches/{one['match']}/games/1/end", json={"winner": 0, "how": "surrender"}, headers=recorder)
    assert r.status_code == 422 and "won by player 1, not won by player 0" in r.json()["message"], r.text
    assert client.get(f"/matches/{one['match']}/state", headers=judge).json()["games"][0]["ended"] is False


def test_a_duel_seating_the_match_players_the_other_way_round_has_its_own_first_player_judged(client):  # noqa: F811
    """MATCH-07: the match says Yugi (its player 0) goes first; a duel seating Kaiba in 0 with its
    seat 0 going first has Kaiba going first: the judge is told (it was not)."""
    from test_attack_25ar import _opening
    from test_attack_25i import table_duel
    from test_release import auth
    made, duel = table_duel(client)
    one = made["tables"][0]
    recorder, judge = auth(one["tokens"]["recorder"]), auth(one["tokens"]["judge"])
    opening = [*_opening(["Kaiba", "Yugi"]), {"kind": "turn_started", "player": 0, "turn": 1}]
    assert client.post(f"/duels/{duel['id']}/events", json=opening, headers=recorder).status_code == 200
    assert [p["message"] for p in _seat_problems(client, one, judge)] == [
        "the match says player 0 goes first in duel 1; the duel has player 1",
        "the match says player 0 chose in duel 1; the duel says player 1"]
