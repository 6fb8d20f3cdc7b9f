"""A second head judge's review of judge14's rulings (issue 25, fourteenth pass: judgerev14),
recorded as a table's recorder writes them.

Let through though illegal:

* PRIO-05 (PRIO-01): a chain resolved in the End Phase, its ``chain_ended`` unrecorded (judge14 made
  such a chain over once its last link resolved, for who holds priority): both players then pass.
  The End Phase has ended, yet the turn player's Quick-Play Spell was accepted (the end of a phase
  was not counted while "resolving", with no link left).
* PRIO-05: a ``chain_ended`` that ends no chain (recorded twice) reopened an End Phase both
  players had ended: the chain's end broke the run of passes.
* TIME-06: an LP cost paid with the activation (``activated`` costs: how the EDOPro importer
  writes MSG_PAY_LPCOST) was no LP change for sudden death: the first ``life_points_changed``
  after it was taken to decide the duel. A match judged on that later change agreed.
* TIME-04/05: a duel whose LP differed after the extra turns was decided then; a match judging it
  in sudden death on the next change agreed with it.

Refused though legal:

* PRIO-03 (PRIO-01): a chain's ``chain_ended`` recorded after the turn player's pass (the chain over
  once its last link resolved): the opponent's answer was refused, the late end taking the pass back.
* TIME-05: in sudden death one effect's damage to both players (Ring of Destruction) is one LP
  change; level after it, the duel goes on. The first of its two records was taken to decide it.
"""
from __future__ import annotations

import dataclasses

from test_match import DB, at_time, extra
from test_match import ev as match_ev
from test_rule_scenarios_27 import ev
from test_rule_scenarios_28 import passed
from test_rule_scenarios_30 import END_PHASE, QUICK_PLAY, RETURNS, sudden_death_duel

from duel import MST, fold, position, refused_with

from ygoreplay import i18n
from ygoreplay.events import from_dict
from ygoreplay.match.links import check_duel
from ygoreplay.match.rules import fold as match_fold
from ygoreplay.rules import History

ENDED = "both players passed in succession with no chain open: the End Phase has ended (PRIO-05)"

# == PRIO-05, PRIO-01: a chain resolved in the End Phase, its end unrecorded ==========================

TABLE_END = position({"hand": [{"code": MST, "id": "mst"}], "szone": [{"code": MST, "id": "set_mst", "position": "set"}]},
                     {"szone": [{"code": MST, "id": "p1_mst", "position": "set"},
                                {"code": MST, "id": "p1_mst2", "position": "set"}]}, phase="end")
#: Player 0's Set Mystical Space Typhoon destroys player 1's in the End Phase; the chain's end unrecorded.
CHAIN = [TABLE_END, ev("activated", player=0, card="set_mst", targets=["p1_mst"]), passed(1), passed(0),
         ev("chain_link_resolved", link=1),
         ev("card_moved", card="p1_mst", to=[1, "gy"], reason="destroyed", cause="set_mst"),
         ev("card_moved", card="set_mst", to=[0, "gy"], reason="resolved")]
ANOTHER = ev("activated", player=0, card="mst", zone=0, targets=["p1_mst2"])
ANSWER = ev("activated", player=1, card="p1_mst2", targets=[])


def test_prio_05_both_pass_after_an_end_phase_chain_whose_end_went_unrecorded() -> None:
    """PRIO-01, PRIO-05: the chain is over once its last link resolved; the turn player passes, the
    opponent passes: the End Phase has ended, as with the end recorded. Before: the Quick-Play
    Spell (or a third pass) was accepted, the passes not counted while the chain was "resolving".
    Nothing changes for the opponent's answer after one pass, or the turn player's own play."""
    refused_with([*CHAIN, passed(0), passed(1), ANOTHER], "PRIO-05", ENDED)
    refused_with([*CHAIN, passed(0), passed(1), passed(0)], "PRIO-05", ENDED)
    refused_with([*CHAIN, ev("chain_ended"), passed(0), passed(1), ANOTHER], "PRIO-05", ENDED)
    assert fold(*CHAIN, passed(0), ANSWER).chain[0].player == 1
    assert fold(*CHAIN, ANOTHER).chain[0].player == 0


def test_turn_08_an_end_phase_effect_after_that_chain_gives_priority_back() -> None:
    """TURN-08, PRIO-01: after that chain and both passes, the monster banished until the End
    Phase returns: the turn player holds priority again and activates Mystical Space Typhoon."""
    board = position({"hand": [{"code": MST, "id": "mst"}], "szone": [{"code": MST, "id": "set_mst", "position": "set"}],
                      "banished": [{"code": 0, "id": "gone"}], "gy": [{"code": 0, "id": "imt"}]},
                     {"szone": [{"code": MST, "id": "p1_mst", "position": "set"},
                                {"code": MST, "id": "p1_mst2", "position": "set"}]}, phase="end")
    back = ev("card_moved", card="gone", to=[0, "mzone", 2], reason="returned", cause="imt", position="attack")
    state = fold(board, *CHAIN[1:], passed(0), passed(1), back, ANOTHER)
    assert state.chain[0].card == "mst" and state.cards["gone"].zone == "mzone"
    refused_with([board, *CHAIN[1:], passed(0), passed(1), back, passed(0), passed(1), ANOTHER], "PRIO-05", ENDED)


def test_prio_05_a_chain_end_recorded_twice_does_not_reopen_the_end_phase() -> None:
    """PRIO-05: both players passed in the End Phase; a ``chain_ended`` that ends no chain (a
    recorder's slip, or the end written twice) is no play: the End Phase stays ended. Before: it
    broke the run of passes and the Quick-Play Spell was accepted."""
    refused_with([END_PHASE, passed(0), passed(1), ev("chain_ended"), QUICK_PLAY], "PRIO-05", ENDED)
    refused_with([*CHAIN, ev("chain_ended"), passed(0), passed(1), ev("chain_ended"), ANOTHER], "PRIO-05", ENDED)
    fold(END_PHASE, passed(0), passed(1), RETURNS, ev("chain_ended"), QUICK_PLAY)   # the return reopened it


def test_prio_03_a_chain_end_recorded_after_the_turn_players_pass() -> None:
    """PRIO-01, PRIO-03: the chain resolved, the turn player passed, then the recorder wrote the
    chain's end: the opponent holds priority and answers with their Set Mystical Space Typhoon.
    Before: refused as PRIO-01, the late end taking the turn player's pass back. The turn player
    does not play before the opponent passes back."""
    assert fold(*CHAIN, passed(0), ev("chain_ended"), ANSWER).chain[0].player == 1
    refused_with([*CHAIN, passed(0), ev("chain_ended"), ANOTHER], "PRIO-03",
                 "player 1 holds priority (the turn player passed it)")


# == TIME-06: an LP cost paid with the activation decides a sudden death ===========================

PREMATURE_BURIAL = 70828912


def _drawn_in_sudden_death() -> tuple[list, str, str]:
    """The sample duel 2 (LP level after the extra turns) up to turn 9's Main Phase 1, with the
    card player 1 draws in turn 9 made Premature Burial (pay 800 LP); that card and a monster in
    player 1's GY."""
    events = sudden_death_duel()[:-2]
    turn_9 = next(i for i, e in enumerate(events) if e.kind == "turn_started" and e.turn == 9)
    history = History(DB, audit=True)
    for event in events[:turn_9 + 2]:
        history.append(event)
    drawn = history.state.sides[1].deck[0]
    registered = next(i for i, e in enumerate(events) if e.kind == "deck_registered" and e.player == 1)
    codes = list(events[registered].main)
    codes[int(drawn.rsplit(".m", 1)[1])] = PREMATURE_BURIAL
    events[registered] = dataclasses.replace(events[registered], main=tuple(codes))
    return events, drawn, history.state.sides[1].gy[0]


def _judged(duel: list, lp: list[int], winner: int) -> list:
    match = match_fold(at_time("ocg-2005") + extra() + [
        match_ev("game_decided", game=2, lp=lp, winner=winner, stage="sudden_death")], DB)
    return check_duel(dataclasses.replace(match.games[1], decks=None), duel, DB, match.time)


def test_time_06_an_lp_cost_paid_with_the_activation_decides_the_sudden_death() -> None:
    """TIME-06: in sudden death (2000 / 2000) player 1 activates Premature Burial paying 800 LP
    with it (as the EDOPro importer records MSG_PAY_LPCOST); later player 0 takes 1500 damage.
    The cost decided the duel for player 0 at 2000 / 1200. Before: the cost was passed over, a
    match judging the damage (500 / 1200, player 1) agreed and one judging the cost was LOG-09."""
    events, burial, target = _drawn_in_sudden_death()
    duel = events + [from_dict(e) for e in (
        ev("activated", player=1, card=burial, zone=0, targets=[target], costs=[{"lp": 800}]), passed(0),
        passed(1), ev("chain_link_resolved", link=1),
        ev("life_points_changed", player=0, amount=1500, reason="effect_damage"))]
    assert _judged(duel, [2000, 1200], 0) == []
    problem, = _judged(duel, [500, 1200], 1)
    assert (problem.rule, problem.index) == ("TIME-06", len(events))
    assert "player 1 paid 800 LP, leaving 2000 / 1200, which decided duel 2" in problem.message


# == TIME-04/05: sudden death begins with the LP level; one change to both players is one ==========

def test_time_05_damage_to_both_players_at_once_is_one_lp_change() -> None:
    """TIME-05: in sudden death one effect deals 1000 damage to both players (Ring of Destruction,
    recorded as two changes): level again at 1000 / 1000, the duel goes on until player 0 takes
    500 more, player 1 winning. Before: the first of the two records decided it (LOG-09)."""
    events = sudden_death_duel()[:-2]
    ring = "p1.m2"
    duel = events + [from_dict(e) for e in (
        ev("life_points_changed", player=0, amount=1000, reason="effect_damage", cause=ring),
        ev("life_points_changed", player=1, amount=1000, reason="effect_damage", cause=ring),
        ev("life_points_changed", player=0, amount=500, reason="effect_damage"))]
    assert _judged(duel, [500, 1000], 1) == []
    problem, = _judged(duel, [1000, 2000], 1)
    assert (problem.rule, problem.index) == ("LOG-09", len(events) + 2)


def test_time_05_lp_not_level_after_the_extra_turns_have_no_sudden_death() -> None:
    """TIME-04, TIME-05: the LP were 2000 / 1500 after the extra turns: player 0 won the duel then.
    A match judging it in sudden death on the next change (turn 9, 2000 / 500) is reported.
    Before: it agreed, the LP named being those of that change."""
    events = sudden_death_duel()[:-2]
    last = max(i for i, e in enumerate(events) if e.kind == "life_points_changed")
    events[last] = from_dict(ev("life_points_changed", player=1, amount=2000, reason="effect_damage"))
    turn_9 = next(i for i, e in enumerate(events) if e.kind == "turn_started" and e.turn == 9)
    duel = events + [from_dict(ev("life_points_changed", player=1, amount=1000, reason="effect_damage"))]
    problem, = _judged(duel, [2000, 500], 0)
    assert (problem.rule, problem.index) == ("TIME-05", turn_9)
    assert "the LP were 2000 / 1500 when turn 9 began, after the extra turns" in problem.message
    with i18n.using("zh-Hant"):
        assert i18n.said(problem.message) == ("額外回合結束後第9回合開始時基本分為2000 / 1500：基本分較高的一方已"
                                              "贏得第2局決鬥（TIME-04）；只有基本分相同時才進行驟死")
