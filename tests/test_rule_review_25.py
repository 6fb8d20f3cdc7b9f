"""Review of the ninth pass's FUS-03 / RIT-03 checks (issue 25): legal plays they must not refuse.

A record need not mark a chain's end (CHAIN-05, test_chain_05_a_trigger_after_the_last_link...),
so "every link resolved, the chain not ended" lasts until the next chain_ended, however many
chains and turns later. RIT-03 ("nothing may be activated from the start of a Ritual Spell's
resolution until the Ritual Summon succeeds") can only be called once the record shows the
Ritual Spell still resolving: its Ritual Summon comes after an activation that followed its
resolution (tenth pass: judged at the summon, tests/test_rule_scenarios_26.py). Whether it
summoned or not, a Spell sent to the GY (SPELL-04: after resolving) has finished resolving.
"""
from __future__ import annotations

import pytest
from test_rule_scenarios_25 import JAMMER, P1_TRAPS, RITUAL_BOARD, RITUAL_START
from test_rules_turn import draw, phase, turn_started
from test_special_summons import FUS, act, board, c, check, fold, fuse, moved, resolved, ritual

from duel import KURIBOH, MST

RITUAL_GONE = moved("ritual", [0, "gy"], "resolved")          # SPELL-04: the resolved Spell leaves
MST_ON_JAMMER = act("mst", zone=1, targets=["jammer"])        # a Quick-Play Spell: no trigger


def test_rit_03_a_ritual_spell_that_summoned_nothing_then_a_new_chain() -> None:
    """RIT-03: Black Luster Ritual resolves and summons nothing (its player cannot or the
    Tributes are gone); it goes to the GY and the duel goes on: Mystical Space Typhoon starts a new
    chain (no chain_ended recorded). Refused as RIT-03 before the review."""
    state = fold(*RITUAL_START, RITUAL_GONE, MST_ON_JAMMER)
    assert [link.card for link in state.chain] == ["mst"] and state.cards["bls"].zone == "hand"


def test_rit_03_a_ritual_monster_that_left_the_field_does_not_reopen_the_resolution() -> None:
    """RIT-03: the Ritual Summon succeeded and the Ritual Spell went to the GY; the Ritual monster
    is later destroyed (no chain_ended anywhere): the next activation is no activation during
    the Ritual Spell's resolution. Refused as RIT-03 before the review (it asked only whether a
    monster Ritual Summoned this turn was still on the field)."""
    state = fold(*RITUAL_START, ritual("dm", "kuriboh"), RITUAL_GONE,
                 MST_ON_JAMMER, resolved(), moved("jammer", [1, "gy"], "destroyed", cause="mst"),
                 moved("mst", [0, "gy"], "resolved"), moved("bls", [0, "gy"], "destroyed"),
                 act("p1_kuriboh", player=1, effect_type="quick"))
    assert [link.card for link in state.chain] == ["p1_kuriboh"]


def test_rit_03_the_next_turn_is_no_resolution_of_the_last_turns_ritual_spell() -> None:
    """RIT-03: a Ritual Summon in turn 2, the Ritual Spell sent to the GY, no chain_ended recorded;
    in turn 3 the first activation is refused no more (before the review: "no monster was Ritual
    Summoned this turn", so the turn-2 Ritual Spell was taken as still resolving)."""
    state = fold(*RITUAL_START, ritual("dm", "kuriboh"), RITUAL_GONE, phase("end"), turn_started(1, 3),
                 phase("draw"), draw(1), phase("standby"), phase("main1"),
                 act("jammer", player=1, costs=[{"card": "p1_hand_kuriboh", "to": "gy", "reason": "discarded"}]))
    assert [link.card for link in state.chain] == ["jammer"]


def test_rit_03_still_called_while_the_ritual_spell_is_resolving() -> None:
    """RIT-03's true refusals hold: resolved, no Ritual Summon yet, an activation (a trigger's
    too) starts a new chain: the Ritual Summon after it is refused (FUS-03 alike)."""
    check([*RITUAL_START, JAMMER, ritual("dm", "kuriboh")], "RIT-03", "was activated after")
    check([*RITUAL_START, act("p1_kuriboh", player=1, effect_type="trigger"), ritual("dm", "kuriboh")],
          "RIT-03", "was activated after")


def test_rit_03_a_negated_ritual_spell_starts_no_resolution() -> None:
    """RIT-03: Magic Jammer negates Black Luster Ritual: nothing resolves, nothing is summoned;
    the next activation starts a new chain even before the Spell is recorded leaving."""
    state = fold(board(RITUAL_BOARD, P1_TRAPS), act("ritual", zone=0), JAMMER,
                 resolved(2), {"kind": "chain_link_negated", "link": 1, "by": 2}, MST_ON_JAMMER)
    assert [link.card for link in state.chain] == ["mst"]


# == What held: legal Fusion sequences FUS-03's check (a summon while a chain is being built whose
# cause is no link of it) lets through ==========================================================

FUSION_BOARD = {**FUS, "hand": [*FUS["hand"], c(MST, "mst")]}


@pytest.mark.parametrize("events", [
    pytest.param([act("poly", zone=0), MST_ON_JAMMER, resolved(2),
                  moved("jammer", [1, "gy"], "destroyed", cause="mst"), resolved(1),
                  fuse("hand_celtic", "ox")], id="polymerization-chained-to-then-link-1-fuses"),
    pytest.param([act("poly", zone=0), resolved(), fuse("hand_celtic", "ox"), moved("poly", [0, "gy"], "resolved"),
                  MST_ON_JAMMER], id="fusion-then-a-new-chain-without-its-end"),
    pytest.param([act("poly", zone=0), JAMMER, resolved(2), {"kind": "chain_link_negated", "link": 1, "by": 2},
                  MST_ON_JAMMER], id="polymerization-negated-then-a-new-chain"),
])
def test_fus_03_legal_sequences_held(events: list[dict]) -> None:
    """FUS-03: a Fusion Spell chained to (the summon while link 1 resolves after link 2), a Fusion
    then a new chain with no chain_ended, a negated Polymerization then a new chain: accepted."""
    fold(board(FUSION_BOARD, P1_TRAPS), *events)


def test_fus_03_a_quick_play_fusion_in_the_opponents_turn_held() -> None:
    """FUS-03: in the opponent's turn a Quick-Play (Mystical Space Typhoon stands in for Super
    Polymerization: the engine reads no card text) chained as link 2 Fusion Summons while it
    resolves, then link 1 resolves: accepted, as it was."""
    p0 = {**FUS, "szone": [c(MST, "qp", position="set")]}
    p1 = {"mzone": [c(KURIBOH, "p1_kuriboh")], "hand": [c(MST, "p1_mst")]}
    state = fold(board(p0, p1, turn_player=1, turn=3), act("p1_mst", player=1, zone=0, targets=["qp"]),
                 act("qp", player=0, targets=["p1_mst"]), resolved(2), fuse("ox", "hand_celtic", player=0, cause="qp"),
                 moved("qp", [0, "gy"], "resolved"), resolved(1))
    assert state.cards["thousand"].zone == "mzone" and not state.chain
