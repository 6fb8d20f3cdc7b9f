"""The benchmarks run (issue 25): each ``bench/`` script's ``--quick`` mode, in a process of its
own, exits 0 and prints its figures. Nothing here is timed: a figure only has to be there, so a
benchmark cannot rot unnoticed (as ``bench/store.py`` did when ``replay()`` lost ``until=``).

The scripts import this checkout's ``ygoreplay`` (PYTHONPATH), use the suite's PostgreSQL
(``YGOREPLAY_TEST_POSTGRES``, as ``$YGOREPLAY_BENCH_PG``) and Debian's chromium, like the other tests.

The slowest benchmarks are in ``test_bench_service``, ``test_bench_browser`` and ``test_bench_store``:
``--dist loadfile`` gives a file's tests to one worker, and this one file was one worker's 2–6
minutes while the other worker ran everything else.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

from conftest import ROOT, shared_path

POSTGRES = os.environ.get("YGOREPLAY_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
REAL = ("real-replays", "edopro")
NUMBER = r"[\d,]+(?:\.\d+)?"


def run_bench(script: str, *args: str) -> str:
    """The script's output; the test fails with its output when it does not exit 0."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "YGOREPLAY_BENCH_PG": POSTGRES}
    done = subprocess.run([sys.executable, str(ROOT / "bench" / script), "--quick", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"bench/{script} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def assert_figures(output: str, *patterns: str) -> None:
    for pattern in patterns:
        assert re.search(pattern, output, re.MULTILINE), f"no line matching {pattern!r} in:\n{output}"


def test_views_prints_a_view_step_and_its_parts_and_the_equivalence():
    folder = shared_path(*REAL)
    args = ("--real-dir", str(folder), "--before", str(ROOT))
    assert_figures(run_bench("views.py", *args),
                   *(rf"^  {part} +ygoreplay +{NUMBER} us a step" for part in ("view step", "redaction", "board")),
                   rf"^  view step +this tree / before: {NUMBER} .*target 0.333")
    assert_figures(run_bench("views.py", *args, "--equivalence"),
                   rf"^equivalence: \d+ duels x 3 views: \d+ outputs identical, 0 different$")


def test_fold_prints_the_ratio_with_its_spread():
    assert_figures(run_bench("fold.py"),
                   rf"\(a\) msgpack decode\s+{NUMBER} events/s", rf"\(b\) fold \(apply, checked\)\s+{NUMBER} events/s",
                   rf"fold/decode ratio\s+{NUMBER}\s+spread {NUMBER}-{NUMBER} over 3 runs")


def test_fold_on_the_real_duels_prints_each_ratio_against_its_target():
    folder = shared_path(*REAL)
    assert_figures(run_bench("fold.py", "--real", str(folder)),
                   rf"from_trusted_dict\s+{NUMBER} events/s", rf"\(c\) decode\+trusted\+fold\s+{NUMBER} events/s",
                   rf"fold/decode ratio\s+{NUMBER}\s+spread .*\({NUMBER} of the 0.5x target: (met|BELOW)\)",
                   rf"end-to-end/decode ratio\s+{NUMBER}\s+spread .*\({NUMBER} of the 0.3x target: (met|BELOW)\)")


def test_synthetic_prints_a_legal_duel_and_its_mix():
    assert_figures(run_bench("synthetic.py"), r"^1000 events, seed 1: \d+ turns, .*audit legal$",
                   r"^chains by length: \{1: \d+")


def test_memory_prints_each_peak_against_decoding_the_records():
    output = run_bench("memory.py")
    for work in ("open \\+ fold", "verified \\+ fold"):
        assert_figures(output, rf"^    {work} +{NUMBER} B an event  {NUMBER}x decode  "
                               rf"\(limit 1.2x: {NUMBER} of its limit\)")


def test_size_prints_bytes_per_event():
    folder = shared_path(*REAL)
    assert_figures(run_bench("size.py", "--yrpx", str(folder)),
                   rf"judge \.ygr / \.yrpX: median {NUMBER}", rf"bytes per event: judge \.ygr median {NUMBER}")


def test_import_real_prints_agreement_and_rates():
    folder = shared_path(*REAL)
    assert_figures(run_bench("import_real.py", str(folder)),
                   rf"^import -o \(1 process\): {NUMBER} files/s", r"outcomes the same",
                   rf"outcomes the same; / stdlib decode in one process \(timed before and after\) {NUMBER}x "
                   rf"\({NUMBER} of the 2x limit",
                   rf"^import -o / stdlib decode {NUMBER}x over the files both read \({NUMBER} of the 2x limit",
                   rf"^import -o / stdlib decode in CPU time {NUMBER}x over the same files",
                   r"^board agrees with the engine at every state packet: 5/5 files")


def test_import_real_measures_a_tree_before_side_by_side():
    """``--before DIR``: both trees (here this one twice) run in turn, each run's ratios and their
    medians said before → after, with whether every fidelity figure is the same in every run."""
    folder = shared_path(*REAL)
    output = run_bench("import_real.py", str(folder), "--before", str(ROOT), "--rounds", "1")
    assert_figures(output, rf"^round 1, before: import -o / stdlib decode {NUMBER}x wall, {NUMBER}x CPU",
                   rf"^round 1, this tree: import -o / stdlib decode {NUMBER}x wall, {NUMBER}x CPU",
                   rf"^before → after \(medians of 1\): import -o / stdlib decode {NUMBER}x → {NUMBER}x wall, "
                   rf"{NUMBER}x → {NUMBER}x CPU",
                   r"^fidelity: the same in every run", r"^  board agrees with the engine at every state packet: 5/5")


def test_effects_real_prints_the_calls_with_and_without_effect_facts(tmp_path):
    """Run with a scripts folder of this project's own (third-party scripts are never kept here)."""
    folder = shared_path(*REAL)
    (tmp_path / "c14898066.lua").write_text("local s,id=GetID()\nfunction s.initial_effect(c)\nend\n")
    assert_figures(run_bench("effects_real.py", str(folder), "--scripts", str(tmp_path)),
                   rf"^files 5, activations {NUMBER}, cards {NUMBER}, with effect facts {NUMBER}",
                   r"^violations with the facts:\s+none", rf"^scripts read in {NUMBER} s")


def test_cards_prints_what_the_database_costs_a_command():
    assert_figures(run_bench("cards.py"), rf"open \+ facts of a 60-card deck: +{NUMBER} ms",
                   rf"the database costs a command [+-]{NUMBER} ms")


def test_checkable_prints_the_rules_caught_from_each_record():
    assert_figures(run_bench("checkable.py"), r"^5 illegal scenarios, \d+ rules",
                   r"^rules caught from the spectator's record: \d+ of \d+$",
                   r"^rules caught from the spectator\+decklists's record: \d+ of \d+$",
                   r"^rules caught from the p0's record: \d+ of \d+$", r"^rules caught from the p1's record: \d+ of \d+$")


def test_opening_prints_each_figure_against_the_tree_before():
    shared_path(*REAL)
    output = run_bench("opening.py", "--before", str(ROOT))
    assert_figures(output, *(rf"^  {figure} +{NUMBER} us +before +{NUMBER} us +this / before {NUMBER}"
                             for figure in ("real fold", "real redact", "real live",
                                            "synthetic fold", "synthetic redact", "synthetic live")))


def test_pg_write_prints_a_writes_cpu_and_with_a_tree_before_each_pairs_ratio():
    assert_figures(run_bench("pg_write.py"),
                   rf"^  a write: {NUMBER} us of CPU \(median of \d+\); an append {NUMBER} us wall$")
    assert_figures(run_bench("pg_write.py", "--before", str(ROOT)),
                   rf"^  pair 1: a write {NUMBER} -> {NUMBER} us of CPU \({NUMBER}\)",
                   rf"^  a write's CPU, after / before: median {NUMBER} of 1 pairs")


def test_append_loop_prints_an_appends_cpu_and_the_event_loops_calls_and_each_pairs_ratios():
    """``bench/append_loop.py`` (#25, eighteenth pass): the service's append called in process."""
    assert_figures(run_bench("append_loop.py", "--before", str(ROOT), "--pairs", "1"),
                   rf"^  this tree +CPU +{NUMBER} us an append +event loop +{NUMBER} us +event loop Python calls "
                   rf"+{NUMBER} an append$",
                   rf"^  before +CPU +{NUMBER} us an append",
                   rf"^  event loop Python calls an append +this tree / before: {NUMBER} \(pairs {NUMBER}\)$")


def test_round_page_prints_a_changes_cpu_with_the_rows_kept_and_each_followers_bytes():
    """organiser18b: a round read again after one table moved, every row made again against the
    rows kept (``rounds.TableRows``), and what a follower is sent (the whole round, the rows)."""
    out = run_bench("round_page.py")
    assert_figures(out, rf"^  CPU a change, every table read again: {NUMBER} ms; rows kept: {NUMBER} ms "
                        rf"\(rows made again: 1\); kept / whole {NUMBER}$",
                   rf"^  bytes a follower a change, the whole round: {NUMBER}; the rows changed: {NUMBER}$")
