"""The benchmarks run (issue 25), continued from ``test_bench``: those driving Debian's chromium
(``bench/viewer.py``, ``bench/recorder.py``, ``bench/library_page.py``). A file of their own so
that ``--dist loadfile`` spreads the benchmarks over the workers (one file was one worker's 2–6
minutes).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import CHROMIUM
from test_bench import NUMBER, assert_figures, run_bench


def test_viewer_prints_the_time_to_show_positions():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no chromium at {CHROMIUM}: install Debian's chromium (apt-get install chromium; .ci/run does)")
    assert_figures(run_bench("viewer.py", "--chromium", CHROMIUM),
                   rf"^  scrub +20 positions: median +{NUMBER} ms", rf"^  step +300 positions: median +{NUMBER} ms")


def test_recorder_prints_taps_round_trips_and_a_round_in_parallel():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no chromium at {CHROMIUM}: install Debian's chromium (apt-get install chromium; .ci/run does)")
    assert_figures(run_bench("recorder.py", "--chromium", CHROMIUM),
                   rf"^  life_points_changed +{NUMBER} / \d+", rf"^  every event +{NUMBER} / \d+",
                   rf"^round trip of \d+ entries: p50 {NUMBER} ms, p99 {NUMBER} ms",
                   rf"^a round of 2 tables in parallel, 24 entries \(setups and moves\): round trip p50 {NUMBER} ms, "
                   rf"p99 {NUMBER} ms; 22 moves in {NUMBER} s, {NUMBER} entries/s")


def test_library_page_prints_first_paint_and_rows_drawn():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no chromium at {CHROMIUM}: install Debian's chromium (apt-get install chromium; .ci/run does)")
    assert_figures(run_bench("library_page.py", "--chromium", CHROMIUM),
                   *(rf"^  {re.escape(page)} +response p50 +{NUMBER} ms p99 +{NUMBER} ms, first-contentful-paint "
                     rf"p50 +{NUMBER} ms p99 +{NUMBER} ms, rows drawn p50 +{NUMBER} ms p99 +{NUMBER} ms \(3 loads\)"
                     for page in ("/ (recent duels)", "/library?player=...")))
