"""The log's own checks (LOG-nn): what a consistent record looks like, beside the refusals the
area tests already make (LOG-02..07 in test_rules_turn.py, test_rules_chain.py, test_rules_summon.py)."""
from __future__ import annotations

import pytest
from duel import BATTLE_OX, CARDS, CELTIC, DARK_MAGICIAN, SHEEP_TOKEN, VORSE, fold, position, refused
from test_rules_turn import OPENING, QUICK, RESOLVE, WITH_KURIBOH, turn

from ygoreplay.events import from_dict
from ygoreplay.rules import History, RuleViolation, apply
from ygoreplay.state import DuelState

ROLLBACK = {"kind": "rolled_back", "to": 1, "judge": "J. Smith", "reason": "misplay"}
HAND = {"hand": [{"code": CELTIC, "id": "celtic"}, {"code": DARK_MAGICIAN, "id": "dm"}],
        "mzone": [{"code": BATTLE_OX, "id": "ox"}, {"code": VORSE, "id": "vorse"}]}


def test_log_01_a_card_of_the_duel_is_named_by_its_id() -> None:
    """LOG-01: an event names a card the duel has, by its id."""
    state = fold(position(HAND), {"kind": "normal_summoned", "card": "celtic", "zone": 2})
    assert state.cards["celtic"].zone == "mzone"


def test_log_01_an_unknown_card_is_refused() -> None:
    violation = refused(position(HAND), {"kind": "normal_summoned", "card": "nobody", "zone": 2})
    assert (violation.rule, violation.index) == ("LOG-01", 1) and "no card 'nobody'" in violation.message


def test_log_03_a_duel_in_order() -> None:
    """LOG-03: a start, both decks, both opening hands, then the first turn (or a set-up position first)."""
    state = fold(*OPENING, *turn(1, 0, drawn=False))
    assert (state.turn, state.phase, len(state.sides[1].hand)) == (1, "main1", 5)
    assert fold(position()).started


def test_log_04_each_card_once() -> None:
    """LOG-04: two different Tributes, and a Token with an id of its own."""
    state = fold(position(HAND), {"kind": "normal_summoned", "card": "dm", "zone": 0, "tributes": ["ox", "vorse"]},
                 {"kind": "token_created", "card": "p0.t1", "code": SHEEP_TOKEN, "zone": 1, "cause": "scapegoat"})
    assert state.sides[0].mzone[:2] == ["dm", "p0.t1"] and state.sides[0].gy[-2:] == ["ox", "vorse"]


def test_log_05_well_formed_values() -> None:
    """LOG-05: a coin toss with a result, a die from 1 to 6, a positive LP change, a player 0 or 1."""
    state = fold(position(), {"kind": "coin_tossed", "results": [True, False]},
                 {"kind": "die_rolled", "results": [1, 6]},
                 {"kind": "life_points_changed", "player": 1, "amount": 500, "reason": "effect_damage"})
    assert state.sides[1].lp == 7500


def test_log_07_links_that_exist() -> None:
    """LOG-07: the link resolved is one the chain has."""
    state = fold(position(WITH_KURIBOH), QUICK, *RESOLVE)
    assert state.chain == []


def test_log_08_a_rollback_goes_through_the_history() -> None:
    """LOG-08: a judge's rollback is applied by the history, which refolds the events it keeps."""
    history = History(CARDS)
    for data in (position(HAND), {"kind": "normal_summoned", "card": "celtic", "zone": 2}, ROLLBACK):
        history.append(from_dict(data))
    assert history.state.cards["celtic"].zone == "hand" and history.reverted == {1: 2}


def test_log_08_a_rollback_folded_into_a_state_is_refused() -> None:
    state = DuelState(CARDS)
    apply(state, from_dict(position(HAND)))
    with pytest.raises(RuleViolation) as info:
        apply(state, from_dict(ROLLBACK))
    assert info.value.rule == "LOG-08" and "rules.History" in info.value.message
    assert state.index == 1


def test_an_event_of_a_subclass_is_judged_by_its_kind() -> None:
    """``apply`` finds a kind's handler by the event's class, for speed; an event of a subclass of
    that class (not in its table) is still judged and applied as its kind, refusals included."""
    from ygoreplay.events import NormalSummoned

    class Summoned(NormalSummoned):
        __slots__ = ()

    state = fold(position(HAND))
    apply(state, Summoned(card="celtic", zone=2))
    assert state.cards["celtic"].zone == "mzone" and state.last_kind == "normal_summoned" and state.index == 2
    with pytest.raises(RuleViolation) as info:
        apply(fold(position(HAND)), Summoned(card="nobody", zone=2))
    assert info.value.rule == "LOG-01"
