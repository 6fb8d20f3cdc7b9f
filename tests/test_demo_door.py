"""``ygoreplay demo`` records the events a table's client sends (JSON Lines) through the service;
a file recorded elsewhere (a .ygr, an EDOPro replay) goes into the store by the import door alone,
its signature checked and its provenance "imported" (issue 25, fourteenth pass).

What was wrong: ``demo FILE.ygr`` read the file's events, signature unchecked, and recorded them
through the service as a new live duel whose provenance said "recorded": a second way into the
store past the import's checks, for a file of anyone's. Now it is refused, naming the command
that takes it, and nothing is written.
"""
from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


@pytest.mark.parametrize("name", ["won-by-damage.judge.ygr", "won-by-damage.spectator.ygr"])
def test_demo_of_a_ygr_file_is_refused_and_records_nothing(tmp_path, name):
    store = tmp_path / "duels.sqlite"
    process = subprocess.Popen([sys.executable, "-m", "ygoreplay", "demo", str(REPLAYS / name), "--port", "0",
                                "--store", str(store)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = process.communicate(timeout=60)      # before: it recorded the file and served it
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 2, err
    assert "not JSON Lines events" in err and f"ygoreplay import {REPLAYS / name}" in err and not out
    if store.exists():
        conn = sqlite3.connect(store)
        try:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            rows = conn.execute("SELECT count(*) FROM stored_events").fetchone()[0] if "stored_events" in tables else 0
        finally:
            conn.close()
        assert rows == 0
