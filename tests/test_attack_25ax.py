"""Attacks on issue 25's eighteenth pass (``attack25ax``): the spectator's flagged badge
(``views.flag_seen``, ``library.seen``) through another door, and what it costs.

* A Set naming its card (``shows``: the record knows the face-down card) was judged again on the
  board as the spectator knows it, but with the record's event: the event's own ``shows`` put
  Dark Magician there, and SUM-04 badged the duel ``flagged`` where the same Set of a Level 4
  left no badge; the spectator's frames show neither flag. The event is now judged as the view's
  own record holds it (``views._as_recorded``).
* ``History.state_before`` folded every event again from the start for each flagged event
  (checkpoints are kept only from a first rollback): a witnessed duel of thousands of flagged
  events took time growing as their square on every append and every reindex. It now keeps
  checkpoints as a rollback does (at most ``CHECKPOINT_EVERY`` events folded again per flag).
* ``store.own_schema`` asks each index table for this version's primary key: a store whose index
  an earlier version made (version 3 keyed ``library_cards`` by stream before action) could no
  longer be opened to write ("not keyed as ygoreplay keys it"), where 6b8e3df dropped that index and
  made it anew. The key is asked only of an index of this version (``library.sqlite_keys``).
* ``POST /matches/{id}/games`` linking a duel filled who goes first and who chose with the duel's
  seats, not the match's players (``access.seat_order``, which ``_check_first`` reads them by): a
  duel seating Kaiba in seat 0 and Yugi going first could not be linked without naming them
  (MATCH-07, "player 0 going first, not player 1"). One reading now (``links.first_players``).
* ``own_schema`` found a record table's conflict clause by its words with white space between
  (``ON CONFLICT``), but SQLite reads a comment between them as white space:
  ``PRIMARY KEY (originator_id, originator_version) ON/**/CONFLICT REPLACE`` went unseen, and a
  second writer's event overwrote the first's, both receipted. Comments are made spaces first
  (``store._uncommented``).

Tried and found holding (no change): a v8 index made by 6b8e3df, opened by this tree, is made
anew at v9 and the hidden card's badge is gone, the public one kept; a witnessed duel recorded by
6b8e3df with a confirmation of a struck entry folds, shows, logs, verifies and takes its next
entry on this tree; snapshots of trees of 2026-12-01 and 2026-12-05 seek to the states this tree
folds (what differs, a card's ``pile`` and ``turn_began``, differed on 6b8e3df too, and no
snapshot lacking them can hold a listed Deck or be a witnessed duel's resumed: its ``calls``);
the 100 real EDOPro duels agree with the engine on both trees; the ``.yrpX`` decoders under
truncation at every length, header bytes and LZMA bytes changed, body bytes and u32s changed,
cut and inserted (the names, the flags, the embedded YRP1 too), packets of any id inserted with
payloads changed or cut, and a body of 6× the real state packets (13 MiB): only ``YrpxError``,
none over 5 s of CPU (9,600 cases); ``access.seat_order`` at ``cli match duel``, the game's end
and ``time_fields``.

Left open: a ``position_set_up`` is judged for the badge with its hidden cards named (no rule
of a set-up reads a face-down card's identity now: a set-up flag of one would tell it).
"""
from __future__ import annotations

import sqlite3

import pytest
from click.testing import CliRunner

from duel import CARDS, CELTIC, DARK_MAGICIAN
from test_attack_25as import OTHER, _alter, stored  # noqa: F401  (fixture)
from test_attack_25av import _planted, refused_unwritten
from test_match_service import MATCHES, lines, match_body
from test_release import ORGANISER, auth, client, store  # noqa: F401  (fixtures)
from test_attack_25au import SETUP, _badges, _flags, _table, served  # noqa: F401  (fixtures)
from test_search import _drop_index
from test_trust import counted_folds
from ygoreplay import library
from ygoreplay.cli import main
from ygoreplay.events import from_dict
from ygoreplay.library import VERSION, primary_key
from ygoreplay.library_search import parse, search
from ygoreplay.rules import History
from ygoreplay.rules import history as history_module
from ygoreplay.store import Store


def _set(code: int) -> dict:
    """Yugi Sets a monster with no Tribute, the recorder naming it (the spectator sees a face-down card)."""
    return {"kind": "monster_set", "player": 0, "card": "p0.m0", "zone": 2, "shows": {"p0.m0": code}}


def test_a_set_naming_its_card_gives_the_spectator_no_badge_that_tells_which_card_it_is(served):
    """SUM-04 is the judge's flag on the Set Dark Magician; no spectator frame shows it. The two
    duels differ only in the face-down card: their badges must not (on main: ``flagged`` for Dark
    Magician, none for Celtic Guardian), whether written by the append or made anew by a reindex."""
    url, kept, web = served
    high, tokens = _table(web, _set(DARK_MAGICIAN))
    low, _ = _table(web, _set(CELTIC))
    assert "SUM-04" in _flags(web, high, tokens["judge"])
    assert _flags(web, high) == [] == _flags(web, low)
    assert _badges(web, high) == _badges(web, low)
    assert "flagged" not in _badges(web, high)
    _drop_index(kept)
    with Store(url, CARDS) as reopened:
        rows = search(reopened, parse({"source": "table"}, CARDS))["results"]
    badges = {row["id"]: row["badges"] for row in rows}
    assert badges[high] == badges[low] and "flagged" not in badges[high]


def test_each_flag_judged_again_folds_a_bounded_number_of_events(monkeypatch):
    """2,000 flagged events (a phase entered again: ``phase_entered`` main1 in Main Phase 1), each
    judged again for the badge as ``library.seen`` does on an append and a reindex: the events
    folded again are at most ``CHECKPOINT_EVERY`` a flag (on main: every event before it, about
    two million)."""
    folded = counted_folds(monkeypatch)
    count = 2000
    fold = History(CARDS)
    events = [from_dict(e) for e in SETUP] + [from_dict({"kind": "phase_entered", "phase": "main1"})] * count
    flagged = 0
    for event in events:
        negated = library.before(event, fold)
        fold.append(event, strict=False)
        flagged += bool(fold.flags) and fold.flags[-1].index == fold.position - 1
        library.seen(event, fold, negated, 0)
    assert flagged == count
    assert folded[0] <= len(events) + count * history_module.CHECKPOINT_EVERY


#: ``library_cards`` as index version 3 made it (before 2e0d19d): keyed by stream before action.
_VERSION_3_CARDS = """CREATE TABLE library_cards (code INTEGER NOT NULL, stream TEXT NOT NULL,
    action TEXT NOT NULL, turn INTEGER NOT NULL, position INTEGER NOT NULL, side INTEGER,
    PRIMARY KEY (code, stream, action, turn, position)) WITHOUT ROWID"""


def _index_of_version(path, version: int) -> None:
    _alter(path, f"DROP TABLE library_cards; {_VERSION_3_CARDS}; UPDATE library_meta SET version = {version};")


def test_a_store_whose_index_an_earlier_version_made_is_opened_and_its_index_made_anew(stored):  # noqa: F811
    """``record`` on a store whose index is version 3's (on main: refused, exit 2, "its table
    library_cards is not keyed as ygoreplay keys it"): written, the index made anew at this
    version with this version's key. The same table in an index that says it is this version's
    is still refused."""
    path, _duel = stored
    _index_of_version(path, 3)
    done = CliRunner().invoke(main, ["record", OTHER, "--store", str(path)])
    assert done.exit_code == 0, done.output
    with sqlite3.connect(path) as conn:
        assert primary_key(conn, "library_cards") == ("code", "action", "stream", "turn", "position")
        assert conn.execute("SELECT max(version) FROM library_meta").fetchone()[0] == VERSION
    conn.close()
    _index_of_version(path, VERSION)
    done = CliRunner().invoke(main, ["record", OTHER, "--store", str(path)])
    assert done.exit_code == 2 and "its table library_cards is not keyed as ygoreplay keys it" in done.stderr


def test_a_duel_seating_the_match_players_the_other_way_round_is_linked_with_its_own_first_player(client):  # noqa: F811
    """The match is Yugi (player 0) v Kaiba; the duel seats Kaiba in 0, Yugi in 1, Yugi going
    first and choosing. Linked as game 1 without naming who goes first (on main: 422, MATCH-07):
    the game has Yugi, the match's player 0, going first and choosing."""
    match = client.post("/matches", json=match_body(lines(MATCHES / "two-nil.jsonl")), headers=ORGANISER).json()
    duel = client.post("/duels", json={"title": "table 4"}, headers=ORGANISER).json()
    opening = {"kind": "duel_started", "first_player": 1, "chosen_by": 1, "method": "rps", "players": ["Kaiba", "Yugi"]}
    assert client.post(f"/duels/{duel['id']}/events", json=[opening],
                       headers=auth(duel["tokens"]["recorder"])).status_code == 200
    linked = client.post(f"/matches/{match['id']}/games", json={"duel": duel["id"],
                                                                "duel_token": duel["tokens"]["recorder"]},
                         headers=auth(match["tokens"]["recorder"]))
    assert linked.status_code == 201, linked.text
    game = client.get(f"/matches/{match['id']}/state", headers=auth(match["tokens"]["judge"])).json()["games"][0]
    assert (game["first_player"], game["chosen_by"]) == (0, 0), game


#: A conflict clause with a comment between its words, which SQLite reads as white space.
COMMENTED = {"replace": ", PRIMARY KEY (originator_id, originator_version) ON/**/CONFLICT REPLACE",
             "ignore": ", PRIMARY KEY (originator_id, originator_version) ON -- who wins\n CONFLICT IGNORE"}


@pytest.mark.parametrize("planted", sorted(COMMENTED))
def test_a_record_table_whose_conflict_clause_has_a_comment_in_it_is_not_written(stored, planted):  # noqa: F811
    """``record`` and ``branch`` on a store whose ``stored_events`` says what a conflict does with
    a comment between ``ON`` and ``CONFLICT`` (on main: written, exit 0): refused (exit 2) naming
    the table, nothing written."""
    path, duel = stored
    _planted(path, COMMENTED[planted])
    refused_unwritten(path, duel)
