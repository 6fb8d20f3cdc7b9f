"""The benchmarks run (issue 25), continued from ``test_bench``: the service's and PostgreSQL's
(``bench/service.py``, ``bench/pg_outage_cost.py``), each starting services, writer and follower
processes of its own. A file of their own so that ``--dist loadfile`` gives them a worker of their
own while the other benchmarks run on another (one file was one worker's 2–6 minutes).
"""
from __future__ import annotations

import re

from conftest import ROOT
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


def test_pg_outage_cost_prints_the_normal_paths_figures():
    assert_figures(run_bench("pg_outage_cost.py"), rf"^lone append: {NUMBER} µs$", rf"^group append: {NUMBER} µs$",
                   rf"^info: {NUMBER} µs$", rf"^state_at: {NUMBER} µs$")
