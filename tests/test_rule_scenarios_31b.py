"""Duel scenarios a second head judge rules on after judge15 (issue 25, fifteenth pass:
judgerev15), recorded as a table's recorder writes them.

Refused though legal:

* NIS-05 (CHAIN-11, GEN-01): with Macro Cosmos face-up a card bound for the GY is banished
  instead, a detached Xyz material too. Number 39: Utopia detaching a material as its cost, the
  material banished, was refused as "a detached Xyz material goes to the GY" (judge15 extended
  the check from ``card_moved`` to costs; both refused it).
* BATTLE-06: after a replay the turn player may attack with the same monster again, at a new
  target. A recorder who writes that as a new attack declaration for it (not a retarget) was
  refused as BATTLE-03, as if it were a second attack.

Called under the wrong rule:

* BATTLE-07: a monster whose attack a replay forfeited (called off, or another monster attacked
  instead) declaring an attack again was refused as BATTLE-03 ("has already attacked").

Let through though illegal:

* TURN-02: in the Draw Phase the turn player draws first; a pass recorded before that draw was
  accepted (judge15 refused only activations there). With an empty Deck it is WIN-02.
* SPELL-09, CHAIN-06: a Continuous, Equip or Field Spell, a Continuous Trap or a Pendulum Scale
  that left the field before its Chain Link resolved applies nothing (judged without card text:
  its type, its field exits since the activation, and not sent as its own cost). Call of the
  Haunted destroyed by a chained Mystical Space Typhoon still Special Summoned, accepted.
"""
from __future__ import annotations

import pytest
from test_rule_scenarios_27 import ev
from test_rule_scenarios_28 import passed
from test_rules_battle import SCAPEGOAT_SET, SHEEP_APPEAR, VORSE_, attack, battle, calc, mon, step
from test_rules_card_text import ENDLESS, ENDLESS_LUA, NO_SCRIPTS

from duel import CARDS, CELTIC, KURIBOH, MST, UTOPIA, VORSE, fold, position, refused_with
from ygoreplay.card_scripts import read_script
from ygoreplay.cards import CardDB, CardFacts
from ygoreplay.events import from_dict
from ygoreplay.rules import apply
from ygoreplay.state import DuelState

# == NIS-05: a material detached under Macro Cosmos is banished, still detached =====================

COSMOS = 990301
#: A card worded as Macro Cosmos: "Any card sent to the GY is banished instead" (Test Endless's
#: shape, a field effect while face-up in the Spell & Trap Zone, with EFFECT_TO_GRAVE_REDIRECT).
COSMOS_LUA = ENDLESS_LUA.replace("EFFECT_HAND_LIMIT", "EFFECT_TO_GRAVE_REDIRECT")
COSMOS_CARDS = CARDS.merged(CardDB([CardFacts(code=COSMOS, name="Test Cosmos", type=0x20004)])).with_effects(
    {COSMOS: read_script(COSMOS_LUA)})


def _xyz_board(cosmos: str) -> list[dict]:
    """Number 39: Utopia Xyz Summoned with two Celtic Guardians; Test Cosmos Set or face-up."""
    board = position({"mzone": [{"code": CELTIC, "id": "c1"}, {"code": CELTIC, "id": "c2"}],
                      "extra": [{"code": UTOPIA, "id": "utopia"}],
                      "szone": [{"code": COSMOS, "id": "cosmos", "position": cosmos}]})
    return [board, ev("special_summoned", card="utopia", zone=5, method="xyz", materials=["c1", "c2"])]


DETACH_COST = ev("activated", player=0, card="utopia", effect_type="quick",
                 costs=[{"card": "c1", "to": "banished", "reason": "detached"}])
DETACHED = ev("card_moved", card="c1", to=[0, "banished"], reason="detached", cause="utopia")
TO_THE_GY = "a detached Xyz material goes to the GY, not the banished"


def test_nis_05_a_material_detached_under_macro_cosmos_is_banished() -> None:
    """NIS-05, CHAIN-11, GEN-01: Test Cosmos (Macro Cosmos's wording, EFFECT_TO_GRAVE_REDIRECT)
    is face-up: Utopia detaches Celtic Guardian as its cost and the material is banished instead of
    sent to the GY; the cost is paid (a detach all the same), and a detach recorded as a move is
    too. Before: both refused as NIS-05. With Test Cosmos Set (its text not applying) the
    material goes to the GY, as before."""
    state = fold(*_xyz_board("faceup"), DETACH_COST, cards=COSMOS_CARDS)
    assert state.cards["c1"].zone == "banished" and state.chain[0].card == "utopia"
    assert fold(*_xyz_board("faceup"), DETACHED, cards=COSMOS_CARDS).cards["c1"].zone == "banished"
    refused_with([*_xyz_board("set"), DETACH_COST], "NIS-05", TO_THE_GY, cards=COSMOS_CARDS)
    refused_with([*_xyz_board("set"), DETACHED], "NIS-05", TO_THE_GY, cards=COSMOS_CARDS)


# == BATTLE-06/07: after a replay, the same monster again, or another and the first forfeited =======

CELTIC_ = mon("celtic", CELTIC)
REPLAY = [battle([VORSE_, CELTIC_], [], **SCAPEGOAT_SET), attack("vorse"), *SHEEP_APPEAR]


def test_battle_06_after_a_replay_the_same_monster_declares_its_attack_again() -> None:
    """BATTLE-06: Vorse Raider attacks directly; Scapegoat's Sheep Token appears: a replay. The
    turn player attacks the Token with Vorse Raider, recorded as a new declaration. It is the
    replay's choice, not a second attack, nor forfeited (BATTLE-07: only when another monster
    attacks instead). Before: refused as BATTLE-03."""
    state = fold(*REPLAY, attack("vorse", "p1.t1"), step("damage"), calc(["p1.t1"], (0, 0)))
    assert state.attack.target == "p1.t1" and state.attack.calculated
    # once its damage is calculated it has attacked: declaring again is the second attack
    done = [*REPLAY, attack("vorse", "p1.t1"), step("damage"), calc(["p1.t1"], (0, 0)),
            ev("card_moved", card="p1.t1", to=[1, "gy"], reason="battle"), step("battle")]
    refused_with([*done, attack("vorse")], "BATTLE-03", "Vorse Raider has already attacked this Battle Phase")


@pytest.mark.parametrize("instead", [
    pytest.param([attack("celtic", "p1.t1")], id="another-attacks-instead"),
    pytest.param([ev("attack_cancelled"), attack("celtic", "p1.t1")], id="called-off-then-another"),
])
def test_battle_07_a_forfeited_attack_is_called_as_forfeited(instead: list[dict]) -> None:
    """BATTLE-07: after the replay Celtic Guardian attacks instead (the attack called off first,
    or not): Vorse Raider has forfeited its attack and cannot attack again this Battle Phase.
    Before: refused as BATTLE-03, "has already attacked", though it never did."""
    celtic_attacks = [*REPLAY, *instead, step("damage"), calc(["p1.t1"], (0, 0)),
                      ev("card_moved", card="p1.t1", to=[1, "gy"], reason="battle"), step("battle")]
    fold(*celtic_attacks)
    refused_with([*celtic_attacks, attack("vorse")], "BATTLE-07",
                 "Vorse Raider forfeited its attack when another monster attacked instead after a replay")


# == TURN-02: no one passes in the Draw Phase before the turn player's draw ========================

DRAW_PHASE = position({"szone": [{"code": MST, "id": "mst", "position": "set"}]}, phase="draw")
NOT_DRAWN = "player 0 has not drawn yet: in the Draw Phase the turn player draws first"


def test_turn_02_no_pass_is_recorded_in_the_draw_phase_before_the_draw() -> None:
    """TURN-02: the turn player draws first; only then does anyone hold priority. A pass before
    the draw (the turn player's or, after it, the opponent's) was accepted before; now refused.
    After the draw both pass and the Standby Phase follows; the first player's first turn has
    no draw (SETUP-04): they pass at once. With an empty Deck the draw owed loses (WIN-02)."""
    refused_with([DRAW_PHASE, passed(0)], "TURN-02", NOT_DRAWN)
    drawn = ev("cards_drawn", player=0, count=1)
    state = fold(DRAW_PHASE, drawn, passed(0), passed(1), ev("phase_entered", phase="standby"))
    assert state.phase == "standby" and len(state.sides[0].hand) == 1
    fold(position(phase="draw", turn=1, first_player=0), passed(0), passed(1))
    refused_with([position({"deck": [], "hand": [{"code": KURIBOH, "id": "k"}]}, phase="draw"), passed(0)],
                 "WIN-02", "player 0 must draw with an empty Deck: they have lost the duel")



# == SPELL-09, CHAIN-06: a lasting card that left the field before its link resolved applies nothing ==

CALL = 97077563
CALL_BOARD = position({"szone": [{"code": CALL, "id": "call", "position": "set"}], "gy": [{"code": VORSE, "id": "vorse"}]},
                      {"szone": [{"code": MST, "id": "p1_mst", "position": "set"}]})
CALL_ACTIVATED = ev("activated", player=0, card="call", targets=["vorse"])
MST_ON_CALL = [ev("activated", player=1, card="p1_mst", targets=["call"]), ev("chain_link_resolved", link=2),
               ev("card_moved", card="call", to=[0, "gy"], reason="destroyed", cause="p1_mst"),
               ev("card_moved", card="p1_mst", to=[1, "gy"], reason="resolved")]
REBORN = ev("special_summoned", player=0, card="vorse", zone=0, cause="call")


def test_chain_06_a_continuous_trap_destroyed_before_it_resolves_applies_nothing() -> None:
    """CHAIN-06: Call of the Haunted targets Vorse Raider in the GY; Mystical Space Typhoon,
    chained, destroys it: a Continuous Trap that has left the field applies nothing when its link
    resolves, and Vorse Raider stays in the GY (SPELL-09 says the same of a Continuous Spell).
    Before: its Special Summon was accepted. Not destroyed, it summons."""
    refused_with([CALL_BOARD, CALL_ACTIVATED, *MST_ON_CALL, ev("chain_link_resolved", link=1), REBORN], "CHAIN-06",
                 "Call of the Haunted left the field before its Chain Link resolved: a Continuous, Equip, Field or "
                 "Pendulum card that has left the field applies nothing")
    state = fold(CALL_BOARD, CALL_ACTIVATED, ev("chain_link_resolved", link=1), REBORN)
    assert state.cards["vorse"].zone == "mzone"


def test_spell_09_a_continuous_spell_sent_as_its_own_cost_still_resolves() -> None:
    """SPELL-09, CHAIN-06, CHAIN-11: a Continuous Spell that sends itself to the GY as the cost of its effect
    left the field by paying it: its effect resolves (the GY exception). Destroyed by a chained
    Mystical Space Typhoon instead, it applies nothing: the LP it would gain are refused. Before:
    accepted."""
    board = position({"szone": [{"code": ENDLESS, "id": "endless", "position": "faceup"}]},
                     {"szone": [{"code": MST, "id": "p1_mst", "position": "set"}]})
    gain = ev("life_points_changed", player=0, amount=500, reason="gain", cause="endless")
    paid = ev("activated", player=0, card="endless", effect_type="ignition",
              costs=[{"card": "endless", "to": "gy", "reason": "cost"}])
    assert fold(board, paid, ev("chain_link_resolved", link=1), gain, cards=NO_SCRIPTS).sides[0].lp == 8500
    destroyed = [ev("activated", player=0, card="endless", effect_type="ignition"),
                 ev("activated", player=1, card="p1_mst", targets=["endless"]), ev("chain_link_resolved", link=2),
                 ev("card_moved", card="endless", to=[0, "gy"], reason="destroyed", cause="p1_mst"),
                 ev("card_moved", card="p1_mst", to=[1, "gy"], reason="resolved"), ev("chain_link_resolved", link=1)]
    refused_with([board, *destroyed, gain], "SPELL-09", "Test Endless left the field before its Chain Link resolved",
                 cards=NO_SCRIPTS)


def test_a_snapshot_stored_before_judgerev15_loads() -> None:
    """SPELL-09, BATTLE-07: a state stored before its chain links kept their card's field exits
    and before ``inert`` and ``forfeited`` were kept (a snapshot mid-chain) loads: the link judges
    nothing (``exits`` None) and nothing is inert or forfeited."""
    data = fold(CALL_BOARD, CALL_ACTIVATED).to_data()
    for name in ("inert", "forfeited"):
        del data["scalars"][name]
    data["chain"] = [row[:-1] for row in data["chain"]]
    state = DuelState.from_data(data, CARDS)
    assert (state.chain[0].card, state.chain[0].exits, state.inert, state.forfeited) == ("call", None, [], [])
    apply(state, from_dict(ev("chain_link_resolved", link=1)))
    apply(state, from_dict(REBORN))
    assert state.cards["vorse"].zone == "mzone"
