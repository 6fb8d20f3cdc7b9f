"""A second head judge's review of the twelfth pass's PRIO-05 (issue 25: judgerev12).

Refused though legal:

* PRIO-05 misapplied to the Damage Step (NIS-03, BATTLE-15): its five timings (start, before
  damage calculation, damage calculation, after it, end) each give both players priority, and two
  passes with no chain open end a timing, not the step nor the phase; a record does not mark the
  timings. Player 1's Kuriboh, discarded at damage calculation after both players passed at the
  start of the Damage Step, was refused as "the Battle Phase has ended" (PRIO-05).

Let through though illegal:

* PRIO-05 after a summon (SPS-11): the first two passes after a summon answer it, but the summon
  kept every later pass from counting toward the end of the phase: the turn player's pass then the
  opponent's ended nothing, and the turn player went on in the ended phase (a Normal Spell).
* PRIO-03, PRIO-06: after the turn player's own pass on their summon the opponent holds priority,
  to answer the summon: the turn player has no open game state then, but Set a card.

Each is refused with the rule cited, and the legal play beside it still folds clean.
"""
from __future__ import annotations

from test_rule_scenarios_27 import c, ev
from test_rule_scenarios_28 import BOARD, ENDED, POT_, SUMMON, passed
from test_rules_battle import attack, calc, step

from duel import CELTIC, KURIBOH, VORSE, fold, position, refused_with

from ygoreplay.actions import actions
from ygoreplay.board import board

# == NIS-03, PRIO-05: two passes in the Damage Step end a timing, not the phase ======================

BATTLE = position({"mzone": [c(VORSE, "v")]}, {"mzone": [c(CELTIC, "cel")], "hand": [c(KURIBOH, "kb")]},
                  phase="battle", step="battle")
KURIBOH_ = ev("activated", player=1, card="kb", effect_type="quick",
              costs=[{"card": "kb", "to": "gy", "reason": "discarded"}])
#: Vorse Raider attacks; both pass in the Battle Step, then at the start of the Damage Step.
TO_DAMAGE = [BATTLE, attack("v", "cel"), passed(0), passed(1), step("damage"), passed(0), passed(1)]


def test_nis_03_prio_05_passes_at_the_start_of_the_damage_step_end_only_that_timing() -> None:
    """NIS-03, BATTLE-15 beside PRIO-05: both players pass at the start of the Damage Step; at
    damage calculation the turn player holds priority first (PRIO-01) and passes, and player 1
    discards Kuriboh (no battle damage). Before: the turn player's pass was refused as PRIO-05,
    "the Battle Phase has ended"."""
    state = fold(*TO_DAMAGE, passed(0), KURIBOH_, passed(0), passed(1), ev("chain_link_resolved", link=1),
                 ev("chain_ended"), calc(["cel"], (0, 0), cite={"card": "kb", "effect": "no battle damage"}))
    assert state.attack.calculated and state.cards["kb"].zone == "gy"


def test_prio_05_the_battle_step_still_ends_when_both_pass() -> None:
    """PRIO-04/05 outside the Damage Step stands: both pass after the attack is declared, so the
    Battle Step has ended (the step, not the Battle Phase: the Damage Step follows) and Kuriboh is
    not activated in it. Before: the message said the Battle Phase had ended."""
    refused_with([BATTLE, attack("v", "cel"), passed(0), passed(1), KURIBOH_], "PRIO-05",
                 "both players passed in succession with no chain open: the Battle Step has ended (PRIO-05)")


# == SPS-11, PRIO-05: after the two passes that answer a summon, the end is declared as ever =========

def test_prio_05_after_the_summon_is_answered_two_more_passes_end_the_phase() -> None:
    """SPS-11, PRIO-05: both pass on the Normal Summon of Celtic Guardian (it succeeds); the turn
    player then passes, declaring the end, and the opponent passes too: Main Phase 1 has ended, and
    no Normal Spell (SPELL-02, its reason PRIO-05) nor the opponent's Typhoon follows in it.
    Before: both were accepted (the summon kept the passes from ever ending the phase)."""
    answered = [BOARD, SUMMON, passed(0), passed(1), passed(0), passed(1)]
    refused_with([*answered, POT_], "SPELL-02", ENDED)
    refused_with([*answered, ev("activated", player=1, card="p1_mst", targets=["mst"])], "PRIO-05", ENDED)
    refused_with([*answered[:-1], POT_], "SPELL-02", "player 0 passed priority, declaring the end of the Main "
                                                     "Phase 1: player 1 holds it")


def test_prio_05_the_opponent_answers_the_end_declared_after_a_summon() -> None:
    """PRIO-05: the end declared after the summon was answered, the opponent may still answer it
    (Mystical Space Typhoon), and the turn player chains to it."""
    state = fold(BOARD, SUMMON, passed(0), passed(1), passed(0),
                 ev("activated", player=1, card="p1_mst", targets=["mst"]),
                 ev("activated", player=0, card="mst", targets=["p1_mst"]))
    assert [link.card for link in state.chain] == ["p1_mst", "mst"]


def test_prio_03_prio_06_after_passing_on_a_summon_the_turn_player_waits_for_the_opponent() -> None:
    """PRIO-03, PRIO-06, SPS-11: the turn player passes after their Normal Summon, handing priority
    to the opponent to answer it: no Set until the opponent passes too. Before: accepted."""
    refused_with([BOARD, SUMMON, passed(0), ev("spell_trap_set", player=0, card="mst_hand", zone=2)], "TURN-04",
                 "player 0 passed priority after the summon: player 1 holds it, to answer the summon or pass "
                 "(PRIO-03, SPS-11)")
    state = fold(BOARD, SUMMON, passed(0), passed(1), ev("spell_trap_set", player=0, card="mst_hand", zone=2))
    assert state.cards["mst_hand"].zone == "szone"


# == PRIO-01/03, CHAIN-04: the recorder's Pass is the pass of the player holding priority ===========

def test_prio_03_the_pass_offered_is_the_holders_and_legal() -> None:
    """PRIO-03, CHAIN-04, PRIO-05 at a witnessed table: the page's Pass (and the turn's actions)
    entered the turn player's pass whoever held priority, so after their own activation, or their
    own pass declaring the end, it was illegal (PRIO-03) and the opponent's pass could not be
    entered at all: the chain resolved flagged CHAIN-04. Now the Pass offered is the holder's,
    legal, and two of them resolve the chain or end the phase; the board says who holds it."""
    for events, holder in [([POT_], 1), ([POT_, passed(1)], 0), ([passed(0)], 1)]:
        state = fold(BOARD, *events)
        offered = {a.label: a for a in actions(state)}["Pass"]
        assert (offered.event["player"], offered.verdict, board(state)["priority"]) == (holder, "legal", holder)
