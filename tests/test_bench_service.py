"""The benchmarks run (issue 25), continued from ``test_bench``: those that serve (``bench/service.py``:
the store's writers, ``serve``'s recorders and followers; ``append_loop.py``, ``pg_write.py``,
``pg_outage_cost.py``) and those driving the pages in Debian's chromium (``viewer.py``,
``recorder.py``, ``library_page.py``): about half of the benchmarks' time. ``--dist loadfile`` gives
a file's tests to one worker, and the one file was one worker's 2–6 minutes (the 26 runs, 1,071 s
of tests at a load of 20–34) while the other worker ran the rest; two files of 7 and 19 tests are
still handed out early (the files go out by their number of tests, most first).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import CHROMIUM, ROOT
from test_bench import NUMBER, assert_figures, run_bench


def test_service_prints_the_store_http_and_followers():
    assert_figures(run_bench("service.py"),
                   r"raw psycopg, group commit of the same payloads:\n +100 appends in .*errors 0; stored 100 of 100 \(lost 0\)",
                   rf"^  after: rate / raw group commit {NUMBER} .*of its limit .*append p99 {NUMBER} ms, {NUMBER} of its "
                   r"limit .*lost 0, met",
                   rf"after, as fast as they can .*: 50 appends in {NUMBER} s = {NUMBER} appends/s; .*failures 0",
                   rf"service CPU {NUMBER} ms an append \({NUMBER} of its limit",
                   r"after, 10 followers .*: 10/10 got every event once, in order",
                   r"after, 20 followers .*: 20/20 got every event once, in order",
                   rf"after: p99 lag of 20 followers / of 10: {NUMBER}",
                   rf"after, 20 followers of one duel: 20/20 got every event once, in order; service CPU {NUMBER} us "
                   rf"a delivery .*; the followers' client {NUMBER} us")


def test_append_loop_prints_an_appends_cpu_and_the_event_loops_calls_and_each_pairs_ratios():
    """``bench/append_loop.py`` (#25, eighteenth pass): the service's append called in process."""
    assert_figures(run_bench("append_loop.py", "--before", str(ROOT), "--pairs", "1"),
                   rf"^  this tree +CPU +{NUMBER} us an append +event loop +{NUMBER} us +event loop Python calls "
                   rf"+{NUMBER} an append$",
                   rf"^  before +CPU +{NUMBER} us an append",
                   rf"^  event loop Python calls an append +this tree / before: {NUMBER} \(pairs {NUMBER}\)$")


def test_pg_write_prints_a_writes_cpu_and_with_a_tree_before_each_pairs_ratio():
    assert_figures(run_bench("pg_write.py"),
                   rf"^  a write: {NUMBER} us of CPU \(median of \d+\); an append {NUMBER} us wall$")
    assert_figures(run_bench("pg_write.py", "--before", str(ROOT)),
                   rf"^  pair 1: a write {NUMBER} -> {NUMBER} us of CPU \({NUMBER}\)",
                   rf"^  a write's CPU, after / before: median {NUMBER} of 1 pairs")


def test_pg_outage_cost_prints_the_normal_paths_figures():
    assert_figures(run_bench("pg_outage_cost.py"), rf"^lone append: {NUMBER} µs$", rf"^group append: {NUMBER} µs$",
                   rf"^info: {NUMBER} µs$", rf"^state_at: {NUMBER} µs$")


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
