"""Attacks on issue 25's twelfth pass (``attack25v``): a second way in that skips the checks
of the first.

* ``/cards/{code}/stats`` (``library_search.card_stats``) counted the library index's rows as
  stored: a card row inserted or altered by whoever may write to the database (no key), a private
  duel's row said public, a winner rewritten, a rollback row added, a delayed duel's marks said
  recorded long ago: each changed the card's numbers, where the search (``Index.genuine``,
  ``Index.vouched``) left the row out. The numbers now read the rows the search reads, checked in
  the same place (``_listed_rows`` → ``_shown``, ``_card_events``), and say how many duels they
  left out (``unvouched``).
* ``ygoreplay lp-sheet DUEL --view spectator`` (a stored duel, or a judge ``.ygr`` file) printed
  the record's head on the spectator's paper, where ``/duels/{id}/lp-sheet`` prints the view's
  own file's head: from two of the record's heads and the view's copy of the entries between,
  each guess of a hidden card could be hashed until one met the next head, and the paper did not
  tie to the spectator's file. Both faces now ask ``exchange.sheet_head``.
* A match file handed to the generic commands (``log``, ``export``) lost their ``--view``:
  ``log MATCH --view spectator --json`` printed both players' decklists and side-deck swaps card
  by card, and ``export MATCH --view spectator`` wrote the judge's match file (every duel's judge
  file inside) under the spectator's name. ``log`` now gives the view's events as the service's
  ``/matches/{id}`` does (``match.views.view_dict``); ``export`` of a view of a match file is
  refused, saying where a match's view is made, and writes nothing.
"""
from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from duel import CARDS
from test_search import ADMIN, COUNTERS, DAMAGE, _code_of, first, recorded
from test_store import store_url  # noqa: F401  (fixture: a fresh SQLite file or PostgreSQL schema)
from test_vouched_library import _library
from ygoreplay.access import digest
from ygoreplay.application import Records
from ygoreplay.cli import main
from ygoreplay.library_search import card_stats
from ygoreplay.replay_file import dumps, loads
from ygoreplay.service import create_app
from ygoreplay.store import Store

ACTIVATION, EVENT = first(COUNTERS, "activated")
CODE = _code_of(COUNTERS, EVENT.card)
OTHER = _code_of(COUNTERS, "p0.m4")             # summoned later in the duel, never activated
NUMBERS = ("duels", "activated", "summoned", "won_by_user", "lost_by_user", "activations", "summons")


def _numbers(store: Store, code: int, now: float | None = None) -> dict:
    return {key: card_stats(store, code, now=now)[key] for key in NUMBERS}


# -- a card's numbers, from index rows a writer to the database forged ----------------------------------

def test_a_card_row_inserted_is_not_counted_in_the_cards_numbers(store_url):
    """A card event inserted with another row's tag (the only tags a writer without the key has):
    the search leaves it out (``Index.genuine``); the card's numbers counted it."""
    with Store(store_url, CARDS) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        duel = recorded(store, COUNTERS)
        genuine = _numbers(store, OTHER)
        assert genuine["activations"] == 0 and genuine["duels"] == 1
        tag = _library(store_url, "SELECT mac FROM {s}library_cards WHERE stream = ? LIMIT 1", (duel,))[0][0]
        _library(store_url, "INSERT INTO {s}library_cards (code, action, stream, turn, position, side, mac) "
                            "VALUES (?, 'activated', ?, 1, ?, 0, ?)", (OTHER, duel, ACTIVATION, tag))
        assert _numbers(store, OTHER) == genuine
        stats = client.get(f"/cards/{OTHER}/stats").json()
        assert {key: stats[key] for key in NUMBERS} == genuine


def test_a_card_row_altered_is_not_counted_for_the_card_it_was_made_to_say(store_url):
    """A card row's code rewritten: counted for neither card (its tag holds for neither)."""
    with Store(store_url, CARDS) as store:
        duel = recorded(store, COUNTERS)
        assert _numbers(store, CODE)["activations"] == 1
        _library(store_url, "UPDATE {s}library_cards SET code = ? WHERE stream = ? AND code = ? AND action = 'activated'",
                 (OTHER, duel, CODE))
        assert _numbers(store, OTHER)["activations"] == 0


def test_a_private_duel_said_public_in_the_index_is_not_counted(store_url):
    """Its access attachment still says private (``Index.vouched``): the search never found it,
    the card's numbers counted it, and so told anyone that a private duel showed the card."""
    with Store(store_url, CARDS) as store:
        hidden = recorded(store, COUNTERS, visibility="private")
        assert _numbers(store, CODE)["duels"] == 0
        _library(store_url, "UPDATE {s}library_streams SET visibility = 'public' WHERE id = ?", (hidden,))
        answer = card_stats(store, CODE)
        assert answer["duels"] == answer["activations"] == 0 and answer["unvouched"] == 1


def test_a_winner_rewritten_in_the_index_does_not_change_who_won_with_the_card(store_url):
    with Store(store_url, CARDS) as store:
        duel = recorded(store, COUNTERS)
        genuine = _numbers(store, CODE)
        assert genuine["won_by_user"] + genuine["lost_by_user"] == 1
        _library(store_url, "UPDATE {s}library_streams SET winner = 1 - winner WHERE id = ?", (duel,))
        answer = card_stats(store, CODE)
        assert answer["won_by_user"] == answer["lost_by_user"] == answer["duels"] == 0 and answer["unvouched"] == 1


def test_a_rollback_row_added_does_not_revert_a_counted_activation(store_url):
    """A rollback row inserted with another's tag would revert the activation: it is not genuine."""
    with Store(store_url, CARDS) as store:
        duel, judged = recorded(store, COUNTERS), recorded(store, DAMAGE, upto=first(DAMAGE, "activated")[0] + 1)
        Records(store).rollback(judged, first(DAMAGE, "activated")[0], "Head Judge", "misplay", "judge")
        genuine = _numbers(store, CODE)
        assert genuine["activations"] == 1
        tag = _library(store_url, "SELECT mac FROM {s}library_rollbacks WHERE stream = ?", (judged,))[0][0]
        _library(store_url, "INSERT INTO {s}library_rollbacks (stream, position, back_to, mac) VALUES (?, ?, 0, ?)",
                 (duel, ACTIVATION + 1, tag))
        assert _numbers(store, CODE) == genuine


def test_a_delayed_duels_marks_said_early_release_none_of_its_card_events(store_url):
    """A running duel delayed an hour: its marks rewritten to say recorded long ago (each row's
    tag made for its genuine time) released its card events to the numbers at once."""
    with Store(store_url, CARDS) as store:
        delayed = recorded(store, COUNTERS, upto=ACTIVATION + 3, delay_seconds=3600)
        assert _numbers(store, CODE)["duels"] == 0
        assert _numbers(store, CODE, now=time.time() + 3601)["activations"] == 1     # what its delay releases
        _library(store_url, "UPDATE {s}library_marks SET at = 0 WHERE stream = ?", (delayed,))
        answer = card_stats(store, CODE)
        assert answer["duels"] == answer["activations"] == 0 and answer["unvouched"] == 1


# -- a view's paper LP sheet, on the command line ----------------------------------------------------

def _heads(text: str) -> list[str]:
    return re.findall(r"\b[0-9a-f]{64}\b", text)


def test_a_views_lp_sheet_on_the_command_line_carries_the_views_head_never_the_records(tmp_path):
    """The spectator's sheet, from the service, from the stored duel on the command line, from the
    judge file and from the spectator's own file: one head, the spectator file's (its chain's
    last), never the record's; the judge's sheet carries the record's head on every face."""
    url = str(tmp_path / "s.sqlite")
    with Store(url, CARDS) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        duel = recorded(store, COUNTERS)
        records = Records(store)
        record_head = store.records_after(duel, 0)[-1].hash.hex()
        judge = tmp_path / "judge.ygr"
        judge.write_bytes(dumps(records.export(duel, "judge"), store.key))
        spectator = records.export(duel, "spectator")
        (tmp_path / "spectator.ygr").write_bytes(dumps(spectator, store.key))
        served = _heads(client.get(f"/duels/{duel}/lp-sheet", params={"view": "spectator"},
                                   headers={"Authorization": f"Bearer {ADMIN}"}).text)
        assert served == [loads((tmp_path / "spectator.ygr").read_bytes()).chain[-1].hex()] != [record_head]
    for source in (duel, str(judge), str(tmp_path / "spectator.ygr")):
        done = CliRunner().invoke(main, ["lp-sheet", source, "--store", url, "--view", "spectator"])
        assert done.exit_code == 0, done.output
        assert _heads(done.output) == served, source
    for source in (duel, str(judge)):
        done = CliRunner().invoke(main, ["lp-sheet", source, "--store", url, "--view", "judge"])
        assert _heads(done.output) == [record_head], source


# -- a match file, through the generic commands' --view ----------------------------------------------

SIDING = Path(__file__).resolve().parent.parent / "replays" / "matches" / "two-one-side-decking.jsonl"


def test_a_match_files_log_for_a_view_withholds_the_other_players_lists():
    """As ``/matches/{id}?view=`` gives them: a decklist or swap of the other player's has its
    card lists withheld, their sizes said; the player's own are whole; the judge's are all whole."""
    def logged(view: str) -> list[dict]:
        done = CliRunner().invoke(main, ["log", str(SIDING), "--json", "--view", view])
        assert done.exit_code == 0, done.output
        return [json.loads(line) for line in done.output.splitlines()]
    for view in ("spectator", "p0", "p1", "judge"):
        lists = [e for e in logged(view) if e["kind"] in ("decklist_registered", "side_deck_swapped")]
        assert {e["kind"] for e in lists} == {"decklist_registered", "side_deck_swapped"}
        for e in lists:
            sees = view in ("judge", f"p{e['player']}")
            assert ("withheld" in e) is not sees, (view, e)
            assert any(e.get(part) for part in ("main", "main_out")) is sees, (view, e)


def test_a_match_files_export_for_a_view_is_refused_not_written_as_the_judges(tmp_path):
    out = tmp_path / "match.spectator.ygr"
    done = CliRunner().invoke(main, ["export", str(SIDING), "--view", "spectator", "-o", str(out)])
    assert done.exit_code == 2 and "exported whole" in done.output and not out.exists(), done.output
    judge = tmp_path / "match.judge.ygr"
    done = CliRunner().invoke(main, ["export", str(SIDING), "--view", "judge", "-o", str(judge)])
    assert done.exit_code == 0 and loads(judge.read_bytes()).view == "judge", done.output
