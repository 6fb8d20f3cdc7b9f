"""Attacks on issue 25's nineteenth pass (``attack25ba``): the write side, a second door past the
witness, and two players with one name.

Found (fixed):

* HIGH. A match's write that ends its game (``/games/{n}/end``, a concession, a penalty, a time
  decision) writes the duel's ``duel_ended`` itself, in the match's transaction
  (``match.commands._closing``): a second door into the duel's record, past ``Records``, and it
  skipped what every duel append does with the witness (``serve --witness``). The duel's new head
  was never given to the witness, so deleting that ``duel_ended`` with its anchor (anyone who can
  write the store, no key) went unseen by ``verify --witness`` (README: "detected, back to the
  last witnessed head"): the duel verified ok as unfinished. And a duel already cut back behind
  its witness was written onto, the cut buried under a new signed anchor, where ``Records``
  refuses it ("nothing was appended"). Both now go through the one check and the one receipt
  (``receipts.not_behind``, ``receipts.issue``, with the witness the service's hub holds).
* MEDIUM. No head of a match was ever witnessed (its creation by ``POST /matches`` or a round,
  its game ends, penalties, decisions, the duels it made), and ``GET /matches/{id}/verify`` read
  the store alone: a match cut back (Kaiba's concession deleted) or deleted whole was ok to every
  reader, and took its next write. Every head a match's write leaves goes to the witness
  (``match.application.witness_heads``), its ``/verify`` asks ``Records.verify``, and ``round
  create`` / ``round time`` take ``--witness`` (and ``$YGOREPLAY_WITNESS``) as every writing
  command does.
* LOW-MEDIUM. A match of Yugi against Yugi (or ``ｙｕｇｉ``, ``Yu<ZWSP>gi``, ``YUGI ``) was created
  (``POST /matches``, a round, the command line): each of its duels seats its players by name
  (``access.seat_order``), one name twice seats neither, so both player tokens were a
  spectator's at their own table and a game end wrote the duel's winner by seat order unchecked.
  Refused (LOG-05, ``match.rules``), names compared as they read (``text.name_key``: NFKC, case,
  characters not seen, white space), which a round's pairings now use too (they compared case
  folded only: ``Yugi`` against ``ＹＵＧＩ``, or seated again as ``Yu<ZWSP>gi``, went through).

Tried and held (no change): a full disk (a 200 KB tmpfs) under ``record``, ``export -o``,
``lp-sheet -o`` (exit 2, "nothing was written", no traceback, no file left); every judge, match
and round write route given ill-typed bodies (null, booleans, 10**30, 1e308, lone surrogates,
5,000-character strings, lists, objects; ~1,000 requests): 4xx, never a 500; a match's id on a
duel's write routes (``/events``, ``/rollback``, ``/branch``) and a duel's on a match's: 404; a
match's game end over a duel naming other players than the match's: written by seat, and listed
to the judge (LOG-09, "not the match's players"); the resident refuses ``--reindex``,
``--witness``, ``-`` and ``$YGOREPLAY_WITNESS`` (Click takes no option abbreviations); a seal's
opening checks its nonce's form and the passcode's range before hashing; a read-only store's every
write passes ``Store._writable`` (SQLite opened ``mode=ro``); a branch's ``Idempotency-Key`` is
the duel's own (another duel's same key makes its own branch; another ``at`` or title is 409).

Left open (reported): the command line's match commands read a match file and replace it whole
(``append_to_file``, written atomically but unlocked): two processes appending at once, the later
rename drops the other's events, both saying ok. ``ygoreplay verify MATCH`` takes a match file,
not a stored match (the service's ``/verify`` does). A duel's ``duel_started`` naming one name
twice is still taken (stored records stay foldable; a match's duel so named seats neither, LOG-09
tells the judge). Confusables across scripts (Latin ``Yugi``, Cyrillic ``Yugі``) are not one name
to NFKC: that needs Unicode's confusable skeletons (UTS #39).
"""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from test_receipts import cut_back
from test_release import ADMIN, auth
from test_store import fresh_url
from ygoreplay.access import digest
from ygoreplay.cli import main
from ygoreplay.receipts import Witness, verify as verify_heads
from ygoreplay.service import create_app
from ygoreplay.store import Store


@pytest.fixture(params=["sqlite", "postgresql"])
def witnessed(request, tmp_path):
    """A service with a witness file, on SQLite or PostgreSQL: (client, store, store URL, witness)."""
    with fresh_url(request.param, tmp_path / "duels.sqlite", "attack25ba") as url, \
            Store(url, concurrent=True) as store:
        witness = Witness(str(tmp_path / "witness.sqlite"), store)
        with TestClient(create_app(store, digest(ADMIN), witness)) as client:
            yield client, store, url, witness


def _table(client) -> tuple[dict, str, dict]:
    """Table 1 of a paper round, its first duel begun (Yugi's turn 1, 6 events): (table, duel, recorder)."""
    from test_attack_25ar import _opening
    from test_attack_25i import table_duel
    made, duel = table_duel(client)
    one = made["tables"][0]
    recorder = auth(one["tokens"]["recorder"])
    opening = [*_opening(["Yugi", "Kaiba"]), {"kind": "turn_started", "player": 0, "turn": 1}]
    assert client.post(f"/duels/{duel['id']}/events", json=opening, headers=recorder).status_code == 200
    return one, duel["id"], recorder


def _concede(client, one: dict, recorder: dict):
    return client.post(f"/matches/{one['match']}/games/1/end", json={"winner": 0, "how": "surrender"},
                       headers=recorder)


def test_a_duels_end_its_match_wrote_is_witnessed_and_its_cut_found(witnessed):
    """Kaiba concedes game 1 in the match: the duel's record ends with it (#6). The witness keeps
    the duel's new head and the match's; deleting the duel's end with its anchor is then found by
    the witness (it was not: the duel verified ok as unfinished)."""
    client, store, url, witness = witnessed
    one, duel, recorder = _table(client)
    assert _concede(client, one, recorder).status_code == 200
    assert store.info(duel).status["ended"]
    assert witness.latest(duel).events == store.info(duel).events == 7
    assert witness.latest(one["match"]).events == store.info(one["match"]).events
    cut_back(url, duel, 6)
    with Store(url) as reader:
        assert not reader.info(duel).status["ended"] and reader.verify(duel).ok     # the store alone cannot know
        result, _ = verify_heads(reader, duel, (), witness)
    assert (result.ok, result.first_bad) == (False, 6), result
    assert "its witness" in result.problem and "promises 7" in result.problem


def test_a_match_cut_back_behind_its_witness_is_not_ok_and_takes_nothing(witnessed):
    """Kaiba's concession of game 1 (the match's #4) deleted from the store with its anchor: the
    match's ``/verify`` says NOT ok, naming its witness (it said ok: nothing asked the witness of
    a match), and the next match write is refused, 409, nothing written."""
    client, store, url, witness = witnessed
    one, duel, recorder = _table(client)
    judge = auth(one["tokens"]["judge"])
    assert _concede(client, one, recorder).status_code == 200
    match = one["match"]
    ended = store.info(match).events
    assert client.get(f"/matches/{match}/verify", headers=judge).json()["ok"]
    cut_back(url, match, ended - 1)
    with Store(url, concurrent=True) as reader, TestClient(create_app(reader, digest(ADMIN), witness)) as fresh:
        verdict = fresh.get(f"/matches/{match}/verify", headers=judge).json()
        assert not verdict["ok"] and "its witness" in verdict["problem"], verdict
        refused = fresh.post(f"/matches/{match}/judge-calls", json={"player": 0, "judge": "Ann", "question": "a ruling"},
                             headers=auth(one["tokens"]["p0"]))
        assert refused.status_code == 409, refused.text
        assert refused.json()["message"].startswith(f"match {match}: "), refused.text     # it said "duel"
        assert reader.info(match).events == ended - 1


def test_nothing_is_written_onto_a_duel_cut_back_behind_its_witness_by_its_match(witnessed):
    """The recorder's #6 witnessed, then cut from the store: the match's game end (which writes the
    duel's end) is refused, 409, nothing written in the duel or the match, as a duel's append is."""
    client, store, url, witness = witnessed
    one, duel, recorder = _table(client)
    stand = client.post(f"/duels/{duel}/events", json=[{"kind": "phase_entered", "phase": "standby"}], headers=recorder)
    assert stand.status_code == 200 and witness.latest(duel).events == 7
    match_events = store.info(one["match"]).events
    cut_back(url, duel, 6)
    refused = _concede(client, one, recorder)
    assert refused.status_code == 409 and "events were removed; nothing was appended" in refused.json()["message"]
    assert refused.json()["message"].startswith(f"duel {duel}: "), refused.text        # the duel its write ends
    with Store(url) as reader:
        assert (reader.info(duel).events, reader.info(one["match"]).events) == (6, match_events)


def test_a_match_and_a_rounds_matches_are_witnessed_from_their_creation(witnessed):
    """``POST /matches`` and ``POST /rounds``: the witness keeps each new match's head, as
    ``POST /duels`` gives it a new duel's (a match deleted whole from the store was found by
    nothing), and its next write's."""
    from test_attack_25i import paper_round
    from test_match_service import MATCHES, lines, match_body
    from test_release import ORGANISER
    client, store, _url, witness = witnessed
    made = client.post("/matches", json=match_body(lines(MATCHES / "two-nil.jsonl")), headers=ORGANISER)
    assert made.status_code == 201, made.text
    assert witness.latest(made.json()["id"]).events == store.info(made.json()["id"]).events == 3
    for table in paper_round(client)["tables"]:
        assert witness.latest(table["match"]).events == store.info(table["match"]).events


def test_round_time_on_the_command_line_is_witnessed(tmp_path):
    """``round time`` writes each table's ``time_called`` into its match: with ``--witness`` (or
    ``$YGOREPLAY_WITNESS``) the witness keeps each match's new head, as any other write's."""
    from test_attack_25i import paper_round
    path, pairings = tmp_path / "duels.sqlite", tmp_path / "round.csv"
    pairings.write_text("1,Joey,Mai\n")
    created = CliRunner().invoke(main, ["round", "create", str(pairings), "--event", "Regional", "--round", "1",
                                        "--json", "--store", str(path), "--witness", str(tmp_path / "witness.sqlite")])
    assert created.exit_code == 0, created.output
    with Store(str(path), concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        made = paper_round(client)
    done = CliRunner().invoke(main, ["round", "time", made["id"], "--store", str(path),
                                     "--witness", str(tmp_path / "witness.sqlite")])
    assert done.exit_code == 0, done.output
    with Store(str(path), readonly=True) as store:
        witness = Witness(str(tmp_path / "witness.sqlite"), store)
        for table in made["tables"]:
            assert witness.latest(table["match"]).events == store.info(table["match"]).events
        joeys = json.loads(created.stdout)["tables"][0]["match"]
        assert witness.latest(joeys).events == store.info(joeys).events == 1


ONE_NAME = [["Yugi", "Yugi"], ["Yugi", "ｙｕｇｉ"], ["Yugi", "Yu\u200bgi"], ["Yugi", "YUGI "]]


@pytest.mark.parametrize("players", ONE_NAME, ids=["same", "full width", "zero width", "case and space"])
def test_a_match_of_two_players_with_one_name_is_refused(tmp_path, players):
    """LOG-05: ``POST /matches`` for Yugi against Yugi (or a full-width, zero-width or case variant
    of the name) is refused, 422, no match made. It was made: each of its duels seats its players
    by name (``access.seat_order``), one name twice seats neither, and both player tokens were a
    spectator's at their own table (no entry, confirmation or dispute in a paper match)."""
    from test_match_service import MATCHES, lines, match_body
    from test_release import ORGANISER
    with Store(str(tmp_path / "duels.sqlite"), concurrent=True) as store, \
            TestClient(create_app(store, digest(ADMIN))) as client:
        body = {**match_body(lines(MATCHES / "two-nil.jsonl")), "players": players}
        refused = client.post("/matches", json=body, headers=ORGANISER)
        assert refused.status_code == 422 and refused.json()["rule"] == "LOG-05", refused.text
        assert "read as one name" in refused.json()["message"]
        assert store.duels("match") == []


@pytest.mark.parametrize("pairings", ["1,Yugi,ＹＵＧＩ\n", "1,Yugi,Kaiba\n2,Yu\u200bgi,Mai\n"],
                         ids=["themselves", "seated twice"])
def test_a_pairing_of_one_name_twice_is_refused(pairings):
    """A round's pairings: a player against their own name in full width, or seated at a second
    table under the name with a zero-width space in it, is refused as the same name is (it was
    only compared case folded)."""
    from ygoreplay.rounds import PairingsError, read_pairings
    with pytest.raises(PairingsError, match="cannot play themselves|is at table 1 already"):
        read_pairings(pairings.encode(), "pairings.csv")
