"""The benchmarks run (issue 25): each ``bench/`` script's ``--quick`` mode, in a process of its
own, exits 0 and prints its figures. Nothing here is timed: a figure only has to be there, so a
benchmark cannot rot unnoticed (as ``bench/store.py`` did when ``replay()`` lost ``until=``).

The scripts import this checkout's ``ygoreplay`` (PYTHONPATH), use the suite's PostgreSQL
(``YGOREPLAY_TEST_POSTGRES``, as ``$YGOREPLAY_BENCH_PG``) and Debian's chromium, like the other tests.
The benchmarks that serve or drive chromium are in ``test_bench_service`` (a file of their own, so
that ``--dist loadfile`` gives the benchmarks to both workers).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys

from conftest import ROOT, SHARED, shared_path

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


def test_opening_prints_each_figure_against_the_tree_before():
    shared_path(*REAL)
    output = run_bench("opening.py", "--before", str(ROOT))
    assert_figures(output, *(rf"^  {figure} +{NUMBER} us +before +{NUMBER} us +this / before {NUMBER}"
                             for figure in ("real fold", "real redact", "real live",
                                            "synthetic fold", "synthetic redact", "synthetic live")))


def test_vouched_reads_prints_each_reads_time():
    assert_figures(run_bench("vouched_reads.py"), r'"search\(20\)": ' + NUMBER, r'"load\(verified=False\)": ' + NUMBER)


def test_service_store_gives_each_tree_the_place_after_the_raw_run_in_turn():
    """``--only store --before DIR``: the run right after the raw run spent more CPU an append
    whichever tree it was (#25, eleventh pass: main always there read as a 1.06-1.16x
    regression), so the trees take that place in turn, and their CPU an append is compared
    round by round."""
    out = run_bench("service.py", "--only", "store", "--before", str(ROOT), "--rounds", "2")
    order = re.findall(r"^  round (\d), ygoreplay Store, (after|before) ", out, re.MULTILINE)
    assert order == [("1", "after"), ("1", "before"), ("2", "before"), ("2", "after")], out
    assert_figures(out, rf"^  CPU an append in the writer processes, after / before: median {NUMBER} "
                        rf"\(per round {NUMBER}, {NUMBER}; after ran first in rounds 1, 3, \.\.\.\)$")


def test_round_page_prints_a_changes_cpu_with_the_rows_kept_and_each_followers_bytes():
    """organiser18b: a round read again after one table moved, every row made again against the
    rows kept (``rounds.TableRows``), and what a follower is sent (the whole round, the rows)."""
    out = run_bench("round_page.py")
    assert_figures(out, rf"^  CPU a change, every table read again: {NUMBER} ms; rows kept: {NUMBER} ms "
                        rf"\(rows made again: 1\); kept / whole {NUMBER}$",
                   rf"^  bytes a follower a change, the whole round: {NUMBER}; the rows changed: {NUMBER}$")
