"""The library index's rows are not signed, and whoever may write to the database may write to
them (issue 25, eleventh pass): a search shows and finds a duel only by what the store vouches
for. A stream's row is checked against its signed header and last anchor and its attachments
(``library.Index.vouched``); every other row carries a tag under the organiser's private key
(``Index.genuine``). Each alteration here is one writer's to the database, on SQLite and
PostgreSQL: an update or insert is never shown as genuine (the answer says how many duels it
left out); a row deleted is found by ``search --check`` and put back by ``--reindex``; and a
store whose index an older version built is built again on opening, and searched."""
from __future__ import annotations

import json
import re
import sqlite3
from urllib.parse import parse_qs, urlparse

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from duel import CARDS
from test_search import ADMIN, COUNTERS, DAMAGE, _code_of, first, found, recorded
from test_store import _pg_connect, store_url  # noqa: F401  (fixture: a fresh SQLite file or PostgreSQL schema)
from ygoreplay import library
from ygoreplay.access import digest
from ygoreplay.application import Records
from ygoreplay.cli import main
from ygoreplay.errors import StoreError
from ygoreplay.library_search import parse, player, search
from ygoreplay.service import create_app
from ygoreplay.store import KINDS, Store


def _library(url: str, statement: str, params: tuple = ()) -> list[tuple]:
    """A statement on the store's library tables (``{s}``: their schema's prefix), as anyone who
    may write to the database may run it."""
    if url.startswith("postgresql"):
        schema = parse_qs(urlparse(url).query)["schema"][0]
        with _pg_connect() as conn:
            cursor = conn.execute(statement.format(s=f'"{schema}".').replace("?", "%s"), params)
            return cursor.fetchall() if cursor.description else []
    conn = sqlite3.connect(url)
    try:
        with conn:
            return conn.execute(statement.format(s=""), params).fetchall()
    finally:
        conn.close()


def _answer(store: Store, **params: str) -> dict:
    return search(store, parse(params, CARDS))


def _row(store: Store, duel: str, **params: str) -> dict | None:
    return next((row for row in _answer(store, **params)["results"] if row["id"] == duel), None)


ACTIVATION, EVENT = first(COUNTERS, "activated")
CODE = _code_of(COUNTERS, EVENT.card)
OTHER = _code_of(COUNTERS, "p0.m4")             # summoned later in the duel, never activated


# -- a stream's row updated ---------------------------------------------------------------------------

#: Each column a search filters or shows by, rewritten: what it is set to, and the search that
#: found the duel only by the forged value.
UPDATES = {
    "a player's name": ("p0 = 'Mallory', p0_key = 'mallory'", {"player": "mallory"}),
    "the winner": ("winner = 1", {"result": "p1"}),
    "the result": ("ended = 0, winner = NULL", {"result": "ongoing"}),
    "the title": ("title = 'World final'", {"title": "world final"}),
    "a flagged badge": ("first_flag = 0", {}),
    "a rollback badge": ("first_rollback = 0", {}),
    "the source": ("imported = 1", {"source": "imported"}),
    "a witnessed table": ("witnessed = 1", {"source": "table"}),
    "the event": ("event = 'Worlds'", {"event": "worlds"}),
    "the format": ("format = 'Goat'", {"format": "goat"}),
    "a delay added": ("delay_events = 5", {}),
}


@pytest.mark.parametrize("what", UPDATES)
def test_a_streams_row_altered_is_not_shown_nor_found_by_what_was_forged(store_url, what):
    change, params = UPDATES[what]
    with Store(store_url, CARDS) as store:
        duel, other = recorded(store, DAMAGE, title="Regional top 8"), recorded(store, COUNTERS)
        genuine = _row(store, duel)
        assert genuine is not None and "flagged" not in genuine["badges"] and _answer(store).get("unvouched") is None
        _library(store_url, f"UPDATE {{s}}library_streams SET {change} WHERE id = ?", (duel,))
        answer = _answer(store)
        # left out, and said so; the other duel is shown as it was
        assert [row["id"] for row in answer["results"]] == [other] and answer["unvouched"] == 1
        if params:
            assert duel not in found(store, **params)
        assert duel not in {d["id"] for d in player(store, "Yugi")["duels"]}
        with TestClient(create_app(store, digest(ADMIN))) as client:     # what the library's pages read
            page = client.get("/search", params=params).json()
            assert duel not in {row["id"] for row in page["results"]}
            assert duel not in {row["id"] for row in client.get("/players/Yugi").json()["duels"]}
        cli = CliRunner().invoke(main, ["search", "--store", store_url])
        assert cli.exit_code == 0 and duel not in cli.output and "1 duels left out" in cli.output, cli.output


def test_a_word_added_to_the_searched_text_does_not_find_the_duel(store_url):
    """The words a ``q`` search matches are kept apart (SQLite: an FTS5 table; PostgreSQL: a
    generated column, made plain first by whoever may alter the table)."""
    with Store(store_url, CARDS) as store:
        duel = recorded(store, DAMAGE, title="Regional top 8")
        assert found(store, q="regional") == [duel] and found(store, q="worlds") == []
        if store.backend == "sqlite":
            _library(store_url, "UPDATE library_text SET body = 'worlds final' "
                                "WHERE rowid = (SELECT rowid FROM library_streams WHERE id = ?)", (duel,))
        else:
            _library(store_url, "ALTER TABLE {s}library_streams ALTER COLUMN body DROP EXPRESSION")
            _library(store_url, "UPDATE {s}library_streams SET body = 'worlds final' WHERE id = ?", (duel,))
        assert found(store, q="worlds") == [] and _answer(store, q="worlds")["unvouched"] == 1
        assert found(store) == [duel]


def test_a_private_duel_made_public_in_the_index_is_not_found(store_url):
    """Its access attachment (what the service reads) still says private."""
    with Store(store_url, CARDS) as store:
        hidden = recorded(store, DAMAGE, visibility="private", title="secret final")
        assert found(store) == []
        _library(store_url, "UPDATE {s}library_streams SET visibility = 'public' WHERE id = ?", (hidden,))
        assert found(store) == [] and found(store, title="secret") == []
        assert _answer(store)["unvouched"] == 1


def test_a_delayed_duels_marks_altered_release_nothing_early(store_url):
    """A running duel delayed an hour shows nothing yet: its marks said recorded long ago (each
    still the row it was, its tag made for the genuine time) release none of it."""
    with Store(store_url, CARDS) as store:
        delayed = recorded(store, DAMAGE, upto=12, delay_seconds=3600)
        assert found(store) == []
        _library(store_url, "UPDATE {s}library_marks SET at = 0 WHERE stream = ?", (delayed,))
        assert found(store) == [] and _answer(store)["unvouched"] == 1


# -- card events inserted, updated; rollbacks inserted ----------------------------------------------

def test_a_card_event_inserted_does_not_find_the_duel(store_url):
    with Store(store_url, CARDS) as store:
        duel = recorded(store, COUNTERS)
        assert found(store, card=str(OTHER), action="activated") == []
        # a row in the table's form, its tag another row's (the only tags a writer without the key has)
        tag = _library(store_url, "SELECT mac FROM {s}library_cards WHERE stream = ? LIMIT 1", (duel,))[0][0]
        _library(store_url, "INSERT INTO {s}library_cards (code, action, stream, turn, position, side, mac) "
                            "VALUES (?, 'activated', ?, 1, ?, 0, ?)", (OTHER, duel, ACTIVATION, tag))
        assert found(store, card=str(OTHER), action="activated") == []
        assert _answer(store, card=str(OTHER), action="activated")["unvouched"] == 1
        assert found(store, card=str(CODE), action="activated") == [duel]


def test_a_card_event_altered_does_not_find_the_duel(store_url):
    with Store(store_url, CARDS) as store:
        duel = recorded(store, COUNTERS)
        assert found(store, card=str(CODE), action="activated") == [duel]
        _library(store_url, "UPDATE {s}library_cards SET code = ? WHERE stream = ? AND code = ? AND action = 'activated'",
                 (OTHER, duel, CODE))
        assert found(store, card=str(OTHER), action="activated") == []


# -- rows deleted: found, and put back ---------------------------------------------------------------

@pytest.mark.parametrize("table, where, said", [
    ("cards", "DELETE FROM {s}library_cards WHERE stream = ? AND action = 'activated'", "missing"),
    ("streams", "DELETE FROM {s}library_streams WHERE id = ?", "missing"),
    ("rollbacks", "DELETE FROM {s}library_rollbacks WHERE stream = ?", "missing"),
    # hidden by an update or an insert: a search does not read the row again, to find it altered
    ("streams", "UPDATE {s}library_streams SET visibility = 'unlisted' WHERE id = ?", "not vouched"),
    ("rollbacks", "INSERT INTO {s}library_rollbacks (stream, position, back_to, mac) "
                  "SELECT stream, position + 1, back_to, mac FROM {s}library_rollbacks WHERE stream = ?", "not vouched")])
def test_a_row_deleted_is_found_by_check_and_put_back_by_reindex(store_url, table, where, said):
    """A row deleted (or one that hides a duel: its visibility, a rollback that reverts a card
    event) is never read by a search that would find it altered: ``search --check`` finds it
    against an index built from what the store vouches for, and ``--reindex`` puts it back."""
    with Store(store_url, CARDS) as store:
        duel = recorded(store, COUNTERS, upto=ACTIVATION + 2)
        Records(store).rollback(duel, ACTIVATION, "Head Judge", "misplay", "judge")     # the activation reverted
    done = CliRunner().invoke(main, ["search", "--store", store_url, "--check"])
    assert done.exit_code == 0 and "holds what the store vouches for" in done.output, done.output
    _library(store_url, where, (duel,))
    done = CliRunner().invoke(main, ["search", "--store", store_url, "--check"])
    assert done.exit_code == 1 and re.search(f"{duel}  .*{table}: [0-9]+ {said}", done.output), done.output
    done = CliRunner().invoke(main, ["search", "--store", store_url, "--reindex", "--check"])
    assert done.exit_code == 0, done.output
    with Store(store_url, CARDS) as store:
        assert found(store) == [duel]


# -- keys, and old stores -------------------------------------------------------------------------------

def test_a_search_without_the_organisers_key_says_so(store_url, tmp_path, monkeypatch):
    with Store(store_url, CARDS) as store:
        recorded(store, DAMAGE)
    monkeypatch.setenv("YGOREPLAY_KEY", str(tmp_path / "none.key"))
    with Store(store_url, CARDS, readonly=True) as store, pytest.raises(StoreError, match="private key"):
        search(store, parse({}, CARDS))
    done = CliRunner().invoke(main, ["search", "--store", store_url])
    assert done.exit_code == 2 and "YGOREPLAY_KEY" in done.output and "Traceback" not in done.output


def test_an_index_built_with_another_key_says_to_reindex(store_url, tmp_path, monkeypatch):
    with Store(store_url, CARDS) as store:
        duel = recorded(store, DAMAGE)
    monkeypatch.setenv("YGOREPLAY_KEY", str(tmp_path / "other.key"))
    from ygoreplay.signing import OrganiserKey
    other = OrganiserKey.load_or_create()[0]
    with Store(store_url, CARDS, key=other) as store:
        with pytest.raises(StoreError, match="--reindex"):
            search(store, parse({}, CARDS))
        library.rebuild(store, store.library, KINDS)
        assert found(store) == []          # its anchors are signed by a key this store does not trust


def test_an_index_an_older_version_built_is_built_again_on_opening_and_searched(store_url):
    """A store made before the tags (its index version 5, no tag columns) opens, its index is
    built again with every row tagged, and the search finds its duels as before."""
    with Store(store_url, CARDS) as store:
        duel = recorded(store, COUNTERS)
    for table in ("cards", "marks", "rollbacks"):
        _library(store_url, f"ALTER TABLE {{s}}library_{table} DROP COLUMN mac")
    _library(store_url, "UPDATE {s}library_meta SET version = 5")
    with Store(store_url, CARDS) as store:
        assert found(store, card=str(CODE), action="activated") == [duel]
        assert _answer(store).get("unvouched") is None
    tags = _library(store_url, "SELECT count(*) FROM {s}library_cards WHERE mac IS NOT NULL AND stream = ?", (duel,))
    assert tags[0][0] > 0
    done = CliRunner().invoke(main, ["search", "--store", store_url, "--json"])
    assert done.exit_code == 0 and duel in json.loads(done.output.splitlines()[-1])["results"][0]["id"]
