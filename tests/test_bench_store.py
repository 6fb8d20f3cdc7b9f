"""The benchmarks run (issue 25), continued from ``test_bench``: the store's seek and boards, the
commands' start, the search and the vouched reads (``bench/store.py``, ``startup.py``,
``search.py``, ``vouched_reads.py``). A file of their own so that ``--dist loadfile`` spreads the
benchmarks over the workers (one file was one worker's 2–6 minutes).
"""
from __future__ import annotations

import re

from conftest import ROOT, SHARED
from test_bench import NUMBER, REAL, assert_figures, run_bench


def test_store_prints_seek_boards_and_append_on_sqlite_and_postgresql():
    boards = ((rf"^  board {name} +median {NUMBER} of the engine's time over \d+ positions, p95 {NUMBER} "
               rf"\(limit {NUMBER}: {NUMBER} of its limit\)" for name in ("state", "drawn", r"show --at N",
                                                                      r"show \(resident\)"))
              if SHARED.joinpath(*REAL).is_dir() else ())
    cpu = ((rf"^  in CPU time .*: state median {NUMBER}, drawn {NUMBER} of the engine's time \({NUMBER} of its limit\)",)
           if SHARED.joinpath(*REAL).is_dir() else ())
    assert_figures(run_bench("store.py"),
                   rf"^  sqlite +seek median {NUMBER} ms with snapshots vs {NUMBER} ms full refold = {NUMBER}x "
                   rf"\({NUMBER} of the 0.5 ms limit\); "
                   rf"append {NUMBER} events/s",
                   rf"^  postgres +seek median {NUMBER} ms .* append {NUMBER} events/s",
                   r"same state from both at every position refolded: yes", r"4/4 hash chains verify",
                   rf"^  every 16: record +{NUMBER} events/s .* seek median {NUMBER} ms \({NUMBER} of the 0.5 ms limit\)",
                   rf"^  state_at in CPU time \(this process's\): median {NUMBER} ms \({NUMBER} of its limit\)",
                   *boards, *cpu)


def test_startup_prints_each_command_as_a_ratio_to_a_bare_interpreter():
    assert_figures(run_bench("startup.py"), rf"^  bare python +wall median +{NUMBER} ms",
                   *(rf"^  {name} +wall median +{NUMBER} ms, ratio +{NUMBER}x spread {NUMBER}-{NUMBER} \((limit "
                     rf"{NUMBER}x: {NUMBER} of its limit|no limit)\); CPU ratio +{NUMBER}x"
                     for name in ("--help", "check", "show", "log")),
                   *(rf"^  {name} +answered by a resident: wall median +{NUMBER} ms, ratio +{NUMBER}x"
                     for name in ("check", "show", "log")))


def test_startup_and_the_boards_measure_a_tree_before_side_by_side():
    """``--before DIR``: the tree before's commands run too, in-process and by a resident of its
    own code (here this tree again, as the tree before), each said before → after; a resident
    that did not answer every command sent to it would be said."""
    startup = run_bench("startup.py", "--before", str(ROOT))
    assert_figures(startup, rf"^ +before → after: ratio +{NUMBER}x → +{NUMBER}x, CPU ratio",
                   rf"^ +before → after: ratio +{NUMBER}x → +{NUMBER}x, the command's own CPU ratio")
    assert "did not answer" not in startup
    if SHARED.joinpath(*REAL).is_dir():
        boards = run_bench("store.py", "--no-postgres", "--before", str(ROOT))
        assert_figures(boards, rf"^  board before \(resident\) +median {NUMBER} of the engine's time",
                       rf"^  resident: after ÷ before, position by position: median {NUMBER}")
        assert "its figures are not a resident's" not in boards


def test_search_prints_the_indexing_cost_and_search_percentiles():
    output = run_bench("search.py")
    assert_figures(output,
                   rf"^sqlite: append, .*: {NUMBER} us/event before, {NUMBER} us/event with the index",
                   rf"^sqlite: index size .*: {NUMBER} bytes/event",
                   rf"^sqlite: search by card event: p50 {NUMBER} ms, p99 {NUMBER} ms",
                   rf"^postgresql: search combined: p50 {NUMBER} ms, p99 {NUMBER} ms")
    # the searches timed found rows: a generated library the search lists none of (``Store.listed``
    # names only a duel whose header its last signed anchor names) timed empty pages
    for backend in ("sqlite", "postgresql"):
        for kind in ("by player", "by card event"):
            found = re.search(rf"^{backend}: search {kind}: .*mean rows returned ({NUMBER})", output, re.MULTILINE)
            assert found and float(found[1]) > 0, f"{backend}'s searches {kind} returned no rows:\n{output}"


def test_vouched_reads_prints_each_reads_time():
    assert_figures(run_bench("vouched_reads.py"), r'"search\(20\)": ' + NUMBER, r'"load\(verified=False\)": ' + NUMBER)
