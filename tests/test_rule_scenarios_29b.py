"""A second head judge's review of the rule changes of the thirteenth pass (issue 25: judge13,
scorekeeper13): legal plays those changes refused, illegal ones they offered.

Refused though legal:

* PRIO-05, SPS-11: both players pass on a Normal Summon (the summon has succeeded: the turn player
  holds priority again, with an open game state). A stats change, a coin toss, a die roll or a
  judge's note, entered between or after those passes, closed the summon's window but, since
  judge13, kept the passes: the two passes that answered the summon were then read as both
  players ending Main Phase 1, and every play after them (the turn player's own pass too) was
  refused as PRIO-05. What keeps the passes now keeps the summon's window too.
* SUM-03, SPS-11: a judge's note or a stats change (a continuous effect applied to the monster)
  entered between a summon and the Solemn Warning that negates it closed the window: the
  negation was refused ("not being summoned now").

Offered though illegal:

* LINK-02 (the printed count): the recorder's *Link Summon* of a Link-2 offered, first (the
  tap's set), a single Link-2 monster: it counts 2 by its rating (LINK-03), but a Link-2 or higher
  monster lists 2 or more materials (Proxy Dragon: "2 monsters").
"""
from __future__ import annotations

import pytest
from test_rule_scenarios_27 import ev
from test_rule_scenarios_28 import BOARD, ENDED, FLIP_BOARD, POT_, SUMMON, passed

from duel import CELTIC, DECODE_TALKER, KURIBOH, fold, position, refused_with

from ygoreplay.actions import actions

PROXY_DRAGON, JUNK_SYNCHRON = 22862454, 63977008
QUICK_PLAY = ev("activated", player=0, card="mst_hand", zone=1, targets=["p1_mst"])

# == PRIO-05, SPS-11: the passes that answered a summon do not end the phase =========================

NO_PRIORITY = [
    pytest.param(ev("stats_changed", card="celtic", atk=1900, cause="celtic"), id="stats-changed"),
    pytest.param(ev("coin_tossed", results=[True], cause="celtic"), id="coin"),
    pytest.param(ev("die_rolled", results=[3], cause="celtic"), id="die"),
    pytest.param(ev("judge_note", judge="j", note="time check", category="time"), id="judge-note"),
]


@pytest.mark.parametrize("between", NO_PRIORITY)
@pytest.mark.parametrize("play", [pytest.param(POT_, id="normal-spell"), pytest.param(QUICK_PLAY, id="quick-play")])
def test_sps_11_prio_05_after_a_summon_passed_on_an_event_without_priority_leaves_the_phase_open(
        between: dict, play: dict) -> None:
    """SPS-11, PRIO-03: both players passed on Celtic Guardian's Normal Summon: it succeeded, and
    the turn player holds priority in an open game state. A stats change, a coin, a die or a
    judge's note uses no priority: the turn player still activates Pot of Greed or Mystical Space
    Typhoon. Before: refused as PRIO-05 ("the Main Phase 1 has ended"): the summon's window
    closed, and its two passes counted as the phase's end."""
    state = fold(BOARD, SUMMON, passed(0), passed(1), between, play)
    assert len(state.chain) == 1 and state.chain[0].player == 0


@pytest.mark.parametrize("between", NO_PRIORITY)
def test_sps_11_an_event_without_priority_between_the_summons_two_passes(between: dict) -> None:
    """SPS-11, PRIO-03: the turn player passes after the summon, the event comes, the opponent
    passes: the summon succeeded and Pot of Greed follows. Before: refused as PRIO-05."""
    state = fold(BOARD, SUMMON, passed(0), between, passed(1), POT_)
    assert state.chain[0].card == "pot"


@pytest.mark.parametrize("between", NO_PRIORITY[::3])
def test_sum_03_solemn_warning_after_a_stats_change_or_a_note_negates_the_summon(between: dict) -> None:
    """SUM-03, SPS-11: Vorse Raider's Normal Summon, a stats change on it (a continuous effect) or
    a judge's note, then Solemn Warning negates the summon: it is still being summoned. Before:
    refused as SPS-11 ("not being summoned now")."""
    between = {**between, "card": "vorse", "cause": "vorse"} if between["kind"] == "stats_changed" else between
    state = fold(FLIP_BOARD, ev("normal_summoned", player=0, card="vorse", zone=2), between,
                 ev("activated", player=1, card="solemn", costs=[{"lp": 2000}]), ev("chain_link_resolved", link=1),
                 ev("summon_negated", card="vorse", cause="solemn"))
    assert state.cards["vorse"].zone == "gy"


@pytest.mark.parametrize("between", NO_PRIORITY)
def test_prio_05_the_passes_after_the_summons_answer_still_end_the_phase(between: dict) -> None:
    """PRIO-05: after the summon's two passes, the turn player passes (the end declared) and the
    opponent passes too: the phase has ended, whatever came between, and Pot of Greed is refused."""
    refused_with([BOARD, SUMMON, passed(0), passed(1), between, passed(0), passed(1), POT_], "SPELL-02", ENDED)
    refused_with([BOARD, SUMMON, passed(0), passed(1), passed(0), between, passed(1), POT_], "SPELL-02", ENDED)


def test_prio_03_the_end_declared_after_the_summons_answer_holds_after_a_stats_change() -> None:
    """PRIO-03: the turn player's pass after the summon's two declared the end: a stats change
    gives them no priority back (the opponent holds it), as before the window closed."""
    refused_with([BOARD, SUMMON, passed(0), passed(1), passed(0), NO_PRIORITY[0].values[0], POT_], "SPELL-02",
                 "player 0 passed priority, declaring the end of the Main Phase 1")


# == LINK-02: the recorder offers a Link Summon's materials by its printed count ====================

LINK_BOARD = position({"mzone": [{"code": PROXY_DRAGON, "id": "proxy"}, {"code": CELTIC, "id": "c1"},
                                 {"code": JUNK_SYNCHRON, "id": "junk"}, {"code": KURIBOH, "id": "kb"}],
                       "extra": [{"code": PROXY_DRAGON, "id": "proxy2"}, {"code": DECODE_TALKER, "id": "dt"}]})


def link_offer(card: str) -> tuple[list[str], list[list[str]]]:
    """The *Link Summon* offered for ``card``: the tap's materials and every set offered."""
    offer = next(a for a in actions(fold(LINK_BOARD), card=card) if a.label == "Link Summon")
    return offer.event["materials"], offer.choices.get("materials", [offer.event["materials"]])


def test_link_02_a_link_2_is_not_offered_from_one_link_2_monster() -> None:
    """LINK-02/03: Proxy Dragon (Link-2, "2 monsters") from Proxy Dragon alone counts 2 but is 1
    monster: not offered. Two materials are, a Link-2 among them counting 1. Before: the tap's
    set was ['proxy'] alone."""
    first, sets = link_offer("proxy2")
    assert ["proxy"] not in sets and all(len(s) == 2 for s in sets)
    assert first == ["proxy", "c1"] and ["c1", "junk"] in sets


def test_link_02_a_link_3_is_offered_from_a_link_2_and_one_monster() -> None:
    """LINK-02 (its example): Decode Talker (Link-3) from a Link-2 and 1 monster, or 3 monsters."""
    first, sets = link_offer("dt")
    assert first == ["proxy", "c1"] and ["c1", "junk", "kb"] in sets
