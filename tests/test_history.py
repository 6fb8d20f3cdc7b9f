"""Judge rollbacks in a duel's history: play resumes from the earlier state, nothing is erased."""
from __future__ import annotations

import pytest

from duel import CARDS, CELTIC, DARK_MAGICIAN, VORSE, position
from ygoreplay.events import from_dict
from ygoreplay.rules import History, RuleViolation, audit


def events(*dicts):
    return [from_dict(d) for d in dicts]


SUMMON_CELTIC = {"kind": "normal_summoned", "player": 0, "card": "celtic", "zone": 0}
SUMMON_VORSE = {"kind": "normal_summoned", "player": 0, "card": "vorse", "zone": 1}
START = position({"hand": [{"code": CELTIC, "id": "celtic"}, {"code": VORSE, "id": "vorse"},
                           {"code": DARK_MAGICIAN, "id": "dm"}]})


def test_rollback_restores_the_earlier_state_and_marks_reverted_events():
    history = History(CARDS)
    history.extend(events(START, SUMMON_CELTIC,
                          {"kind": "rolled_back", "to": 1, "judge": "J. Smith", "reason": "misplay"}))
    state = history.state
    assert state.cards["celtic"].zone == "hand" and state.sides[0].normal_summon_turn == 0
    assert history.reverted == {1: 2}
    history.append(from_dict(SUMMON_VORSE))      # the Normal Summon is available again (SUM-01)
    assert history.state.cards["vorse"].zone == "mzone"
    assert [p for p, _ in history.effective] == [0, 3]


def test_violation_after_a_rollback_carries_its_stream_position():
    report = audit(events(START, SUMMON_CELTIC,
                          {"kind": "rolled_back", "to": 1, "judge": "J", "reason": "r"},
                          SUMMON_VORSE, SUMMON_CELTIC), CARDS)
    assert [(v.index, v.rule) for v in report.violations] == [(4, "SUM-01")]


def test_match_10_a_rollback_before_the_end_is_accepted():
    """MATCH-10: while the duel goes on, a judge may still roll it back (an appeal in time)."""
    history = History(CARDS)
    history.extend(events(START, SUMMON_CELTIC, {"kind": "rolled_back", "to": 1, "judge": "J", "reason": "appeal"},
                          {"kind": "duel_ended", "winner": 0, "reason": "surrender"}))
    assert history.reverted == {1: 2} and history.state.ended
    assert history.state.cards["celtic"].zone == "hand"


def test_match_10_no_rollback_after_the_duel_ended():
    history = History(CARDS)
    history.extend(events(START, SUMMON_CELTIC, {"kind": "duel_ended", "winner": 0, "reason": "surrender"}))
    with pytest.raises(RuleViolation) as info:
        history.append(from_dict({"kind": "rolled_back", "to": 1, "judge": "J", "reason": "appeal"}))
    assert info.value.rule == "MATCH-10"
    assert history.state.ended and history.reverted == {}


@pytest.mark.parametrize("to", [0, 2, 5])
def test_rollback_target_must_be_an_earlier_event(to):
    history = History(CARDS)
    history.extend(events(START, SUMMON_CELTIC))
    with pytest.raises(RuleViolation) as info:
        history.append(from_dict({"kind": "rolled_back", "to": to, "judge": "J", "reason": "r"}))
    assert info.value.rule == "LOG-02"


def test_judge_notes_are_kept_even_after_the_end():
    history = History(CARDS)
    history.extend(events(START, {"kind": "duel_ended", "winner": 1, "reason": "surrender"},
                          {"kind": "judge_note", "judge": "J", "note": "result signed", "category": "ruling"}))
    assert history.state.ended and history.position == 3
