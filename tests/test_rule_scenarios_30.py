"""Duel scenarios a head judge rules on, recorded as a table's recorder writes them (issue 25,
fourteenth pass: judge14).

Refused though legal:

* TURN-08, PRIO-01 (PRIO-05): both players pass in the End Phase (the end declared and not
  answered); then its effects worded "in the End Phase" are processed (a monster banished until
  the End Phase returns to the field). The game state changed: the turn player holds priority
  again, first, and the End Phase ends only when both pass again. The Quick-Play Spell activated
  after the return was refused as PRIO-05 ("the End Phase has ended"): a card moved kept the
  passes (judge13's open question). A move that is no End Phase effect (a card leaving by the
  rules) still keeps them: the End Phase stays ended.
* TIME-05/06, LOG-09: a match decided in sudden death on the duel's LP at its end, not at the first
  LP change after the LP were level, was reported as disagreeing with its duel.

Let through though illegal:

* PRIO-01: once a chain's last link has resolved the chain is over and the turn player holds
  priority first again. A record may leave the ``chain_ended`` out (the next activation starts a new
  chain); until then the opponent's Quick-Play Spell, or their pass, was accepted out of turn (the
  priority check skipped everything while "resolving", though nothing was left to resolve).
* TIME-06 (was "not yet"): in sudden death LP paid as a cost are an LP change: the first one
  decides the duel. A match that ignored the cost and judged the duel on a later change (won by
  the other player) agreed with its duel: now reported, citing TIME-06.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from test_match import DB, at_time, extra
from test_match import ev as match_ev
from test_rule_scenarios_27 import ev
from test_rule_scenarios_28 import passed

from duel import CELTIC, MST, fold, position, refused_with

from ygoreplay.events import from_dict
from ygoreplay.jsonl import read_events
from ygoreplay.match.links import check_duel
from ygoreplay.match.rules import fold as match_fold

# == TURN-08, PRIO-01: an End Phase effect processed after the passes gives priority back ============

END_PHASE = position({"hand": [{"code": MST, "id": "mst"}], "banished": [{"code": CELTIC, "id": "gone"}],
                      "gy": [{"code": CELTIC, "id": "imt"}]},
                     {"szone": [{"code": MST, "id": "p1_mst", "position": "set"}],
                      "mzone": [{"code": CELTIC, "id": "cel"}]}, phase="end")
RETURNS = ev("card_moved", card="gone", to=[0, "mzone", 2], reason="returned", cause="imt", position="attack")
QUICK_PLAY = ev("activated", player=0, card="mst", zone=0, targets=["p1_mst"])
ENDED = "both players passed in succession with no chain open: the End Phase has ended (PRIO-05)"


def test_turn_08_after_an_end_phase_effect_the_turn_player_activates_a_quick_play_spell() -> None:
    """TURN-08, PRIO-01: both players pass in the End Phase; the monster banished "until the End
    Phase" returns (an End Phase effect, no chain): the turn player holds priority again and
    activates Mystical Space Typhoon. Before: refused as PRIO-05, the passes kept past the move.
    Once both pass again, the End Phase has ended: no activation follows (PRIO-05)."""
    state = fold(END_PHASE, passed(0), passed(1), RETURNS, QUICK_PLAY)
    assert state.cards["gone"].zone == "mzone" and state.chain[0].card == "mst"
    refused_with([END_PHASE, passed(0), passed(1), RETURNS, passed(0), passed(1), QUICK_PLAY], "PRIO-05", ENDED)


def test_turn_08_the_opponent_answers_the_end_phase_effect_after_the_turn_players_pass() -> None:
    """TURN-08, PRIO-03: after the return the turn player passes, and the opponent answers with
    their Set Mystical Space Typhoon. Before: refused as PRIO-05. The turn player does not
    activate before the opponent passes back (PRIO-03)."""
    state = fold(END_PHASE, passed(0), passed(1), RETURNS, passed(0),
                 ev("activated", player=1, card="p1_mst", targets=["gone"]))
    assert state.chain[0].player == 1
    refused_with([END_PHASE, passed(0), passed(1), RETURNS, passed(0), QUICK_PLAY], "PRIO-03",
                 "player 1 holds priority (the turn player passed it)")


@pytest.mark.parametrize("move", [
    pytest.param(ev("card_moved", card="gone", to=[0, "mzone", 2], reason="returned", position="attack"),
                 id="no-effect-named"),
    pytest.param(ev("card_moved", card="cel", to=[1, "gy"], reason="rule", cause="imt"), id="by-the-rules"),
])
def test_turn_08_a_move_by_no_end_phase_effect_keeps_the_end(move: dict) -> None:
    """PRIO-05: a card moved by the basic rules (or by no effect the record names) is no End Phase
    effect applying: the End Phase both players ended stays ended. An End Phase effect's move does
    reopen it (the first test): the two differ only in their move."""
    refused_with([END_PHASE, passed(0), passed(1), move, QUICK_PLAY], "PRIO-05", ENDED)
    fold(END_PHASE, passed(0), passed(1), RETURNS, QUICK_PLAY)


# == PRIO-01: a chain fully resolved, its end unrecorded: the turn player holds priority first =======

BOARD = position({"szone": [{"code": MST, "id": "mst", "position": "set"}, {"code": MST, "id": "mst2", "position": "set"}]},
                 {"szone": [{"code": MST, "id": "p1_mst", "position": "set"},
                            {"code": MST, "id": "p1_mst2", "position": "set"}]})
RESOLVED = [BOARD, ev("activated", player=0, card="mst", targets=["p1_mst"]), passed(1), passed(0),
            ev("chain_link_resolved", link=1), ev("card_moved", card="p1_mst", to=[1, "gy"], reason="destroyed",
                                                  cause="mst"),
            ev("card_moved", card="mst", to=[0, "gy"], reason="resolved")]
TURN_PLAYER_FIRST = "player 0 holds priority (the turn player holds it first)"


def test_prio_01_after_a_chain_resolved_the_opponent_does_not_activate_first() -> None:
    """PRIO-01, PRIO-03: Mystical Space Typhoon resolved (the chain's only link): the turn player
    holds priority first, and the opponent activates their Set Mystical Space Typhoon only after the
    turn player passes, whether the chain's end is recorded or not. Before: with the end
    unrecorded, the opponent's activation (and their pass) was accepted first."""
    answer = ev("activated", player=1, card="p1_mst2", targets=["mst2"])
    for end in ([], [ev("chain_ended")]):
        refused_with([*RESOLVED, *end, answer], "PRIO-01", TURN_PLAYER_FIRST)
        refused_with([*RESOLVED, *end, passed(1)], "PRIO-01", "the turn player holds priority first")
        assert fold(*RESOLVED, *end, passed(0), answer).chain[0].player == 1
        assert fold(*RESOLVED, *end, ev("activated", player=0, card="mst2", targets=["p1_mst2"])).chain[0].player == 0


# == TIME-06: in sudden death LP paid as a cost decide the duel ======================================

DUEL = Path(__file__).resolve().parent.parent / "replays" / "matches" / "duels" / "g2-at-time.jsonl"


def sudden_death_duel() -> list:
    """Duel 2 of the sample match (time in turn 5, extra turns 6-8), its last LP change made so the
    LP are level (2000 / 2000) after the extra turns; in turn 9 (sudden death) player 1 pays 1000
    LP as a cost, then player 0 takes 1500 effect damage."""
    events = list(read_events(DUEL))
    last = max(i for i, event in enumerate(events) if event.kind == "life_points_changed")
    events[last] = from_dict(ev("life_points_changed", player=1, amount=1500, reason="effect_damage"))
    return events + [from_dict(ev(kind, **fields)) for kind, fields in [
        ("turn_started", {"player": 1, "turn": 9}), ("phase_entered", {"phase": "draw"}),
        ("cards_drawn", {"player": 1, "count": 1}), ("phase_entered", {"phase": "standby"}),
        ("phase_entered", {"phase": "main1"}),
        ("life_points_changed", {"player": 1, "amount": 1000, "reason": "cost"}),
        ("life_points_changed", {"player": 0, "amount": 1500, "reason": "effect_damage"})]]


def decided(lp: list[int], winner: int) -> list:
    """Duel 2 judged in sudden death on ``lp`` (under ocg-2005): its problems, decks aside."""
    match = match_fold(at_time("ocg-2005") + extra() + [
        match_ev("game_decided", game=2, lp=lp, winner=winner, stage="sudden_death")], DB)
    game = dataclasses.replace(match.games[1], decks=None)
    return check_duel(game, sudden_death_duel(), DB, match.time)


def test_time_06_a_sudden_death_decided_past_a_cost_is_reported() -> None:
    """TIME-06: the LP were level; player 1's 1000 LP paid as a cost was the first change and
    decided the duel for player 0 (2000 / 1000). The match judged it on the later damage (500 /
    1000, player 1). Before: no problem (the duel's LP at its end were those)."""
    problem, = decided([500, 1000], 1)
    assert (problem.rule, problem.index) == ("TIME-06", len(sudden_death_duel()) - 2)
    assert "player 1 paid 1000 LP, leaving 2000 / 1000" in problem.message


def test_time_06_a_sudden_death_decided_by_the_cost_agrees_with_its_duel() -> None:
    """TIME-05/06: the match judged the duel on the cost's LP (2000 / 1000, player 0 wins): it
    agrees. Before: reported as LOG-09 (the duel's LP at its end were 500 / 1000)."""
    assert decided([2000, 1000], 0) == []
