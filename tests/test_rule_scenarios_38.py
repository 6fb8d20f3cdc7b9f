"""Duel scenarios a head judge rules on (issue 25, twenty-first pass: judge21b), recorded as a
table's recorder writes them: what judge21 found and left (``test_rule_scenarios_37``).

Let through though illegal:

* EFF-04 ("Trigger: activates at the timing its text states"; NIS-02: the chain of triggers is
  built right after the event): Test If Mole ("If this card is sent to the GY: you can ...", by its
  script), destroyed by Dark Hole in Main Phase 1, activated that trigger after the Battle Phase
  began, after a later Normal Summon, or in the next turn: accepted (only mandatory triggers were
  judged for it, GEN-03). Now the card's own event is noted where it happened and the trigger is
  refused once the duel has moved on past it (an action of an open game state, a new phase, step
  or turn, with no chain open); flagged at the table. In its window it activates: after the chain
  that sent it, in the chain of simultaneous triggers (NIS-02), in the Damage Step after a battle
  destroyed it; a snapshot stored before the window was kept leaves it undecided.
"""
from __future__ import annotations

import pytest

from test_rule_scenarios_27 import ev
from test_rules_battle import attack, battle_damage, calc, mon, step
from test_rules_effects import IF_MOLE, TIMING_CARDS

from duel import DARK_HOLE, VORSE, fold, position, refused_with
from ygoreplay.events import from_dict
from ygoreplay.rules import RuleViolation, apply
from ygoreplay.state import DuelState

PAST = "the last of those recorded for it came before the duel moved on"
BOARD = position({"mzone": [mon("if_mole", IF_MOLE), mon("if_mole2", IF_MOLE)],
                  "hand": [{"code": DARK_HOLE, "id": "hole"}, {"code": VORSE, "id": "vorse"}]}, turn=4)
#: Dark Hole in Main Phase 1 destroys both Test If Moles; its chain ends.
HOLE = [BOARD, ev("activated", player=0, card="hole", zone=1), ev("chain_link_resolved", link=1),
        ev("card_moved", card="if_mole", to=[0, "gy"], reason="destroyed", cause="hole"),
        ev("card_moved", card="if_mole2", to=[0, "gy"], reason="destroyed", cause="hole"),
        ev("card_moved", card="hole", to=[0, "gy"], reason="resolved"), ev("chain_ended")]
#: Ways the duel moves on past the destruction, with no chain open.
MOVED_ON = {
    "battle phase": [ev("phase_entered", phase="battle")],
    "normal summon": [ev("normal_summoned", player=0, card="vorse", zone=2)],
    "next turn": [ev("phase_entered", phase="end"), ev("turn_started", player=1, turn=5),
                  ev("phase_entered", phase="draw"), ev("cards_drawn", player=1, count=1),
                  ev("phase_entered", phase="standby")]}


def mole(card: str = "if_mole", **fields) -> dict:
    return ev("activated", player=0, card=card, effect_type="trigger", **fields)


def witnessed(*events: dict) -> DuelState:
    """Fold a position set up, then the rest as at the table: a broken rule is flagged, the event kept."""
    state = fold(events[0], cards=TIMING_CARDS)
    state.witnessed, state.flags = True, []
    for data in events[1:]:
        apply(state, from_dict(data))
    return state


@pytest.mark.parametrize("how", sorted(MOVED_ON))
def test_eff_04_an_if_trigger_after_the_duel_moved_on_past_its_event_refused(how: str) -> None:
    """EFF-04: Test If Mole, destroyed by Dark Hole in Main Phase 1, activates its "if sent to the
    GY" trigger after the Battle Phase began, after a Normal Summon, or in the next turn: refused.
    Before: accepted. Right after Dark Hole's chain (its window) it activates."""
    refused_with([*HOLE, *MOVED_ON[how], mole()], "EFF-04", PAST, cards=TIMING_CARDS)
    assert fold(*HOLE, mole(), cards=TIMING_CARDS).chain[0].card == "if_mole"


def test_eff_04_the_chain_of_simultaneous_triggers_after_the_event_s_chain_is_its_window() -> None:
    """NIS-02, EFF-04: both Test If Moles' triggers build one chain after Dark Hole's (the second
    chained to the first, simultaneous): legal. That chain resolved, the duel moved on (the
    Battle Phase): the second one activating its trigger again is refused."""
    segoc = [*HOLE, mole(), mole("if_mole2", simultaneous=True)]
    state = fold(*segoc, cards=TIMING_CARDS)
    assert [link.card for link in state.chain] == ["if_mole", "if_mole2"]
    resolved = [*segoc, ev("chain_link_resolved", link=2), ev("chain_link_resolved", link=1), ev("chain_ended"),
                ev("phase_entered", phase="battle")]
    refused_with([*resolved, mole("if_mole2")], "EFF-04", PAST, cards=TIMING_CARDS)


DAMAGE_STEP = [position({"mzone": [mon("vorse", VORSE)]}, {"mzone": [mon("if_mole", IF_MOLE)]},
                        turn=4, phase="battle", step="battle"),
               attack("vorse", "if_mole"), step("damage"), calc(destroyed=["if_mole"], damage=[0, 900]),
               battle_damage(1, 900), ev("card_moved", card="if_mole", to=[1, "gy"], reason="battle")]


@pytest.mark.parametrize("after", ["battle", "end"])
def test_eff_04_a_trigger_of_a_monster_destroyed_by_battle_in_the_damage_step_not_after_it(after: str) -> None:
    """EFF-04, BATTLE-09: Test If Mole destroyed by battle activates its trigger in the Damage
    Step: legal. Once the duel has left the Damage Step (back to the Battle Step, or to the End
    Step), refused. Before: accepted."""
    trigger = ev("activated", player=1, card="if_mole", effect_type="trigger")
    assert fold(*DAMAGE_STEP, trigger, cards=TIMING_CARDS).chain[0].card == "if_mole"
    refused_with([*DAMAGE_STEP, step(after), trigger], "EFF-04", PAST, cards=TIMING_CARDS)


def test_eff_04_at_the_table_a_trigger_past_its_window_is_flagged_and_kept() -> None:
    """EFF-04 at the table: the same activation after the Battle Phase began stands, flagged."""
    events = [*HOLE, ev("phase_entered", phase="battle"), mole()]
    state = witnessed(*events)
    assert [(f.index, f.rule) for f in state.flags] == [(len(events) - 1, "EFF-04")]
    assert state.chain[0].card == "if_mole"


def test_eff_04_a_snapshot_stored_before_the_window_was_kept_leaves_it_undecided() -> None:
    """EFF-04 across a snapshot: one stored now keeps where each trigger's window opened, so the
    late trigger is refused after it too; one stored before that was kept (its ``card_text``
    without the last two slots) knows nothing of it: undecided, accepted."""
    stored = fold(*HOLE, cards=TIMING_CARDS).to_data()
    late = [ev("phase_entered", phase="battle"), mole()]
    state = DuelState.from_data(stored, TIMING_CARDS)
    apply(state, from_dict(late[0]))
    with pytest.raises(RuleViolation, match="EFF-04"):
        apply(state, from_dict(late[1]))
    stored["scalars"]["card_text"] = stored["scalars"]["card_text"][:7]
    old = DuelState.from_data(stored, TIMING_CARDS)
    for data in late:
        apply(old, from_dict(data))
    assert old.chain[0].card == "if_mole"
