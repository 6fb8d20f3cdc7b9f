"""A row of the wrong SQL type in the store, as ``verify``, ``list`` and a search meet it (issue
25, fourteenth pass).

What was wrong: since the thirteenth pass refused such a row naming it (``store._blob``), the
refusal was an error of every command, ``verify`` too: asked whether the store was altered,
``verify`` itself ended with exit 2 and "run ygoreplay verify", where an altered record is its
answer (BROKEN, exit 1); ``list`` ended at the first duel whose anchor row was of the wrong type,
listing none after it; the library search read its attachment rows by statements of its own that
no check saw (a TEXT ``access`` row: an internal error), and the reads of every header through the
recorder's ``select_notifications`` were not checked either. Now ``verify`` reports the row
BROKEN where it is, after checking the rows before it; the other commands' message says which
``verify`` to run; a listing and a search go on past the stream (unsigned, left out); and every
read of the store's rows goes through the one check.
"""
from __future__ import annotations

import json
import re
import sqlite3

import pytest
from click.testing import CliRunner

from test_attack_25ab import ROWS, _stored
from test_search import DAMAGE, found, recorded, store  # noqa: F401  (fixture: a store)
from test_store import sample, store_url  # noqa: F401  (fixture: a fresh SQLite file or PostgreSQL schema)
from ygoreplay.cli import main
from ygoreplay.errors import StoreError
from ygoreplay.signing import OrganiserKey
from ygoreplay.store import KINDS, Store

#: Where ``verify`` says each row of ``ROWS`` breaks the duel, as its text and its JSON say it.
WHERE = {"a TEXT header": ("the duel header", -1), "a TEXT event": ("event 37", 37),
         "an INTEGER event of 10**12": ("event 37", 37), "a TEXT anchor": ("its anchor", None),
         "a TEXT card record": ("its anchor", None), "a TEXT version": ("event 88", 88)}


def _cli(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.mark.parametrize("what", list(ROWS))
def test_verify_reports_a_row_of_the_wrong_type_broken_naming_it(tmp_path, what):
    sql, message = ROWS[what]
    path, duel = _stored(tmp_path, sql)
    where, first_bad = WHERE[what]
    result = _cli("verify", duel, "--store", path)
    assert result.exit_code == 1, result.output
    assert f"{duel}: BROKEN at {where}: " in result.output
    assert re.search(message, result.output) and "run" not in result.output
    result = _cli("verify", duel, "--json", "--store", path)
    answer = json.loads(result.output)
    assert result.exit_code == 1 and answer["ok"] is False and answer["first_bad_link"] == first_bad
    # any other command that meets the row says which verify to run
    shown = _cli("log", duel, "--store", path)
    assert shown.exit_code == 2 and f"run 'ygoreplay verify {duel}'" in shown.output


def test_verify_names_the_first_broken_link_before_a_row_of_the_wrong_type(tmp_path):
    """Event 10 altered (another event's bytes) and row 38 made TEXT: the first is the answer."""
    path, duel = _stored(tmp_path, "UPDATE stored_events SET state = 'junk' WHERE originator_id = ? "
                                   "AND originator_version = 38")
    conn = sqlite3.connect(path)
    conn.execute("UPDATE stored_events SET state = (SELECT state FROM stored_events WHERE originator_id = ?1 AND "
                 "originator_version = 12) WHERE originator_id = ?1 AND originator_version = 11", (duel,))
    conn.commit()
    conn.close()
    result = _cli("verify", duel, "--store", path)
    assert result.exit_code == 1 and f"{duel}: BROKEN at event 10: " in result.output, result.output
    with Store(path) as opened:
        assert opened.verify(duel).first_bad == 10


def test_list_goes_on_past_a_duel_whose_anchor_row_is_of_the_wrong_type(tmp_path):
    key, _created = OrganiserKey.load_or_create()
    path = str(tmp_path / "duels.sqlite")
    with Store(path, key=key) as opened:
        altered, whole = opened.create_duel("altered"), opened.create_duel("whole")
        for duel in (altered, whole):
            opened.append(duel, sample("won-by-damage.jsonl"))
    conn = sqlite3.connect(path)
    conn.execute("UPDATE stored_events SET state = 'junk' WHERE originator_id = ? || '/head'", (altered,))
    conn.commit()
    conn.close()
    result = _cli("list", "--store", path)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert any(line.startswith(altered) and "run verify" in line for line in lines)
    assert any(line.startswith(whole) and "89 events" in line and "run verify" not in line for line in lines)


def test_every_header_read_of_the_recorder_is_checked(tmp_path):
    """The reads of every stream's header (``select_notifications``: ``list``, ``ids``, the library
    index's build) go through the check: a TEXT header is refused naming it, or, to a listing, is
    a header that cannot be read."""
    path, duel = _stored(tmp_path, "UPDATE stored_events SET state = 'junk' WHERE originator_id = ? "
                                   "AND originator_version = 0")
    with Store(path) as opened:
        with pytest.raises(StoreError, match=rf"row 0 of stream {duel} is not a stored record"):
            opened.events.select_notifications(1, 10, topics=[KINDS["duel"].topic])
        assert opened.header_rows([KINDS["duel"].topic]) == [(duel, b"")]
        assert opened.duels()[0].title == "(unreadable header)"


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_a_search_leaves_out_a_duel_whose_access_row_is_of_the_wrong_type(store, store_url):
    altered, whole = recorded(store, DAMAGE, title="altered"), recorded(store, DAMAGE, title="whole")
    assert set(found(store)) == {altered, whole}
    conn = sqlite3.connect(store_url)
    conn.execute("UPDATE stored_events SET state = 'junk' WHERE originator_id = ?", (f"{altered}/access",))
    conn.commit()
    conn.close()
    assert found(store) == [whole]
