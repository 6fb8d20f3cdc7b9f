"""The shipped sample duels: the legal ones check legal, each illegal one breaks its named rule,
and the files are exactly what replays/make_samples.py writes."""
from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from ygoreplay.cards import CardDB
from ygoreplay.exchange import verify_against
from ygoreplay.replay_file import read, verify_chain
from ygoreplay.jsonl import read_events
from ygoreplay.rules import audit

REPLAYS = Path(__file__).resolve().parent.parent / "replays"
LEGAL = sorted(REPLAYS.glob("*.jsonl"))
ILLEGAL = sorted((REPLAYS / "illegal").glob("*.jsonl"))
REPLAY_FILES = sorted(REPLAYS.glob("*.ygr"))


def test_there_are_samples_of_each_ending():
    names = {p.name for p in LEGAL}
    assert {"won-by-damage.jsonl", "chain-counter-traps.jsonl", "lost-by-deck-out.jsonl"} <= names
    assert len(ILLEGAL) >= 10


@pytest.mark.parametrize("path", LEGAL, ids=lambda p: p.name)
def test_legal_sample_folds_without_violation(path):
    report = audit(read_events(path), CardDB.classic())
    assert report.violations == []
    assert report.state.ended


def test_sample_results():
    results = {p.name: audit(read_events(p), CardDB.classic()).state for p in LEGAL}
    damage = results["won-by-damage.jsonl"]
    assert ([s.lp for s in damage.sides], damage.winner, damage.end_reason) == ([8000, 0], 0, "lp")
    deck_out = results["lost-by-deck-out.jsonl"]
    assert (deck_out.winner, deck_out.end_reason, deck_out.sides[1].deck) == (0, "deck_out", [])


def test_chain_sample_has_five_links_with_counter_traps():
    events = read_events(REPLAYS / "chain-counter-traps.jsonl")
    activations = [e for e in events if e.kind == "activated"]
    assert len(activations) >= 3
    speeds = [e.speed for e in activations]
    assert speeds == [1, 2, 2, 3, 3]


@pytest.mark.parametrize("path", ILLEGAL, ids=lambda p: p.name)
def test_illegal_sample_is_refused_with_its_rule(path):
    declared = re.search(r"breaks ([A-Z]+-\d+)", path.read_text().splitlines()[0]).group(1)
    events = read_events(path)
    report = audit(events, CardDB.classic())
    assert report.violations, f"{path.name} should break {declared}"
    first = report.violations[0]
    assert (first.rule, first.index) == (declared, len(events) - 1)


def test_samples_are_what_the_script_writes(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("make_samples", REPLAYS / "make_samples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "HERE", tmp_path)
    assert module.main() == 0
    for path in LEGAL + ILLEGAL + REPLAY_FILES:
        written = tmp_path / path.relative_to(REPLAYS)
        assert written.read_bytes() == path.read_bytes(), f"{path.name} is stale: run replays/make_samples.py"


@pytest.mark.parametrize("path", [p for p in LEGAL if ".public" not in p.name], ids=lambda p: p.name)
def test_each_sample_ships_as_judge_and_spectator_replay_files(path):
    stem = path.name.removesuffix(".jsonl")
    judge, spectator = (read(REPLAYS / f"{stem}.{view}.ygr") for view in ("judge", "spectator"))
    assert [e.to_dict() for e in judge.events] == [e.to_dict() for e in read_events(path)]
    assert verify_chain(judge) is None and verify_against(spectator, judge) == []
