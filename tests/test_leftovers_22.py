"""Leftovers of the twenty-second pass closed (``leftovers22``): a library index another version
built is said as such and never dropped by an older one, a branch's search row shows the turn at
its cut."""
from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from duel import CARDS
from test_search import DAMAGE, events_of, recorded
from ygoreplay.application import Records
from ygoreplay.errors import StoreError
from ygoreplay.library import VERSION
from ygoreplay.library_search import parse, search
from ygoreplay.store import Store

ROOT = Path(__file__).resolve().parent.parent


def _index_version(path: Path, version: int) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE library_meta SET version = ?", (version,))
    conn.close()


def _found_version(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        found = conn.execute("SELECT max(version) FROM library_meta").fetchone()[0]
    conn.close()
    return found


# -- 1. an index another version built ------------------------------------------------------------

def test_an_index_a_newer_version_built_is_said_so_and_never_dropped_by_an_older_one(tmp_path):
    """Read-only, an index another version built was "no index yet"; opened for writing by an
    older version, a newer one's index was dropped and built again (and again by the newer at
    its next write: two versions in turn rebuilt it every time). Now a newer one's is refused
    and kept, saying which version built it; ``search --reindex`` alone goes back for good. An
    older one's, read-only, says to open the store for writing once."""
    path = tmp_path / "duels.sqlite"
    with Store(str(path), CARDS) as store:
        recorded(store, DAMAGE)
    _index_version(path, VERSION + 1)
    with Store(str(path), CARDS, readonly=True) as store:
        with pytest.raises(StoreError, match=rf"built by a newer ygoreplay \(index version {VERSION + 1}; "):
            search(store, parse({}, CARDS))
    with pytest.raises(StoreError, match=r"built by a newer ygoreplay .*'ygoreplay search --reindex'"):
        Store(str(path), CARDS)
    assert _found_version(path) == VERSION + 1, "the newer version's index was dropped"
    done = subprocess.run([sys.executable, "-m", "ygoreplay", "search", "--reindex", "--store", str(path)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert _found_version(path) == VERSION
    _index_version(path, VERSION - 1)
    with Store(str(path), CARDS, readonly=True) as store:
        with pytest.raises(StoreError, match=rf"built by an older ygoreplay \(index version {VERSION - 1}; .*"
                                             r"open the store for writing once"):
            search(store, parse({}, CARDS))


# -- 2. a branch's row: the turn at its cut -----------------------------------------------------------

def test_a_branch_cut_where_it_left_shows_the_turn_at_its_cut(tmp_path):
    """A public branch of a running duel shows only up to where it left (``branch_cut``): its
    row said ``turns: 0``, its cut on a later turn. It says the turn after its cut's last event."""
    events = list(events_of(DAMAGE))
    with Store(str(tmp_path / "duels.sqlite"), CARDS) as store:
        records = Records(store)
        parent = recorded(store, DAMAGE, upto=len(events) - 2)           # running
        at = next(i for i in range(len(events) - 4, 0, -1) if store.state_at(parent, i + 1).turn >= 3
                  and store.state_at(parent, i + 2).turn == store.state_at(parent, i + 1).turn)
        branch = records.branch(parent, at, "what if")
        records.append(branch, [events[at + 1]])                        # the judge's what-if
        turn = store.state_at(parent, at + 1).turn
        row = next(row for row in search(store, parse({}, CARDS))["results"] if row["id"] == branch)
    assert row["events"] == at + 1
    assert row["turns"] == turn >= 3, row
