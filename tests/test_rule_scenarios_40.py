"""Duel scenarios a head judge rules on (issue 25, twenty-second pass: judge22b), recorded as a
table's recorder writes them: what judge22 left (``test_rule_scenarios_39``) and the rulings
probed across chains, battle and the field (listed at the end of this docstring).

Let through though illegal, now refused (a machine record) or kept and flagged (at the table):

* GEN-03, NIS-02 (a mandatory trigger is activated in the chain built right after its event):
  Test Must Mole, added to the hand by Test Salvage, owes its "if this card is added to your hand:
  draw 1 card"; its controller opens a chain with Pot of Greed instead. Only the trigger's window
  closed (EFF-04: activated later, refused); the trigger left unactivated was judged only at the
  next phase or Normal Summon, never at the activation that passed it by. Now GEN-03 at that
  activation, as at any other move on.
* WIN-01, WIN-04 (a player at 0 LP loses at once; both at 0 at the same time: a draw): Vorse
  Raider's direct attack takes player 1 to 0 LP by battle damage, and an effect's damage (Ring of
  Destruction's, named as its cause) then takes player 0 to 0: accepted, a draw. Only an LP change
  by another effect than the one that took a player to 0 was judged late; battle damage names no
  effect, so nothing after it was. Now battle damage is simultaneous only with the same damage
  calculation's: an effect's change after it is refused (flagged at the table, no second loser).
* EFF-04, NIS-02: a Pendulum Summon (an action of an open game state, several events) did not
  move the duel on past the triggers waiting, as a Synchro, Xyz or Link Summon by its procedure
  does: Test If Mole's trigger after it was accepted. Now it moves on at its first monster (the
  Pendulum Summoned monsters' own triggers answer it).
* EFF-04, SUM-03, SPS-06 (a negated summon never succeeded: "if not negated, placement on the
  field is the 'when Special Summoned' timing"): Test Herald's Normal Summon negated by Solemn
  Judgment, its "when this card is Normal Summoned: draw 1 card" activated from the GY: accepted
  (it had left the field, so no window was judged). Now refused, flagged at the table.

Probed and found right, each as a recorded event sequence (kept out of the suite: they pass on the
baseline; legal accepted, illegal refused with the ID): CHAIN-03 a Normal Trap (Dust Tornado), a
set Quick-Play (Mystical Space Typhoon) or a Continuous Trap (Royal Decree) chained to Magic Jammer
(a Counter Trap on a Counter Trap, and a Trap on a Normal Spell: legal); CHAIN-01 a Counter Trap
recorded as Spell Speed 2; CHAIN-02 a Normal Spell chained to a Quick-Play; CHAIN-04 a Chain Link
number skipped; CHAIN-05 Chain Link 1 resolved before 2; CHAIN-10 a Trap recorded as Chain Link 2
to a summon (Trap Hole on it as Chain Link 1, Negate Attack on an attack declaration, Solemn
Judgment on a summon: legal); LOG-02 the same card activated twice in one chain (a Set Trap, a
Quick-Play) and a face-up Continuous Trap activated again; TRAP-02 a Counter Trap Set this turn, a
Trap Set and activated in one turn; SPELL-12 a Quick-Play from the hand in the opponent's turn (a
Set one, Set before: legal; from the hand in one's own Battle Phase: legal); BATTLE-06 a new target
with no change to the opponent's monsters; BATTLE-07 a monster attacking after its attack was
called off and another attacked; BATTLE-09 a Normal Trap after damage calculation; SUM-03 a second
Normal Summon after one was negated (Monster Reborn on the negated monster: legal); POS-01 a
position change of the negated monster; NIS-05 a detached material sent to the hand (Utopia's
detach to the GY as a cost: legal); TOKEN-02/LOG-01 a Token destroyed, banished or Tributed, then
revived or moved again (one shuffled into the Deck vanishes; one Tributed for a Tribute Summon:
legal); HAND-01 a turn ended with 7 cards; SETUP-04 the first player's first draw; NIS-04 a Battle
Phase in the first turn; TURN-02 a second draw in the Draw Phase, the opponent drawing in it;
NIS-01 a Link monster to a Main Monster Zone no arrow points to (to the Extra Monster Zone: legal);
WIN-01 battle damage after a loss by an effect; WIN-04 one effect's damage to both (a draw);
TEXT-01 a hard once-per-turn Quick Effect used by each player in the same chain and turn (legal), a
second copy by the same player (refused); GEN-03 a mandatory "when Normal Summoned" trigger (Test
Herald) passed by either player's Quick-Play as Chain Link 1, or by a Spell after both passed
(refused), chained to by the opponent or followed by a new chain (legal), and not called when
Solemn Judgment negates the summon.
Undecided as designed (card text, no script facts in the classic database): a Normal Trap, Negate
Attack, Sakuretsu Armor or Waboku in the Damage Step (BATTLE-09/10); Mirror Force with no attack;
Utopia detaching another Xyz monster's material as its cost.
"""
from __future__ import annotations

from test_rule_scenarios_27 import ev
from test_rule_scenarios_38 import HOLE as HOLE_38, PAST
from test_rule_scenarios_39 import CARDS, MOVES, POT_CHAIN, card, trigger
from test_rules_battle import mon
from test_rules_card_text import HERALD, TEXT

from duel import CELTIC, POT, SOLEMN, STARGAZER, TIMEGAZER, VORSE, fold, position, refused_with
from ygoreplay.cards import CardDB
from ygoreplay.events import from_dict
from ygoreplay.rules import apply
from ygoreplay.state import DuelState


def witnessed(*events: dict, cards: CardDB = CARDS) -> DuelState:
    """Fold a position set up, then the rest as at the table: a broken rule is flagged, the event kept."""
    state = fold(events[0], cards=cards)
    state.witnessed, state.flags = True, []
    for data in events[1:]:
        apply(state, from_dict(data))
    return state


# == GEN-03: a chain opened by something else passes a mandatory trigger by =================================

#: test_rule_scenarios_39's Test Salvage adds Test Must Mole to the hand; a Pot of Greed in the hand too.
OWING = [{**MOVES, "sides": [{**MOVES["sides"][0], "hand": [*MOVES["sides"][0]["hand"], card("pot", POT)]},
                             MOVES["sides"][1]]},
         ev("activated", player=0, card="salvage", zone=1), ev("chain_link_resolved", link=1),
         ev("card_moved", card="must_mole", to=[0, "hand"], reason="added", cause="salvage"),
         ev("card_moved", card="salvage", to=[0, "gy"], reason="resolved"), ev("chain_ended")]


def test_gen_03_a_chain_opened_by_a_spell_past_a_mandatory_trigger_refused() -> None:
    """GEN-03, NIS-02: Test Must Mole owes its mandatory trigger; player 0 activates Pot of Greed
    (a card activation: no trigger) as Chain Link 1: refused there. Before: accepted (only a later
    phase or Normal Summon judged it). The trigger first, then Pot of Greed: legal."""
    refused_with([*OWING, POT_CHAIN[0]], "GEN-03", "added to the hand", cards=CARDS)
    fold(*OWING, trigger("must_mole"), ev("chain_link_resolved", link=1), ev("chain_ended"), *POT_CHAIN,
         ev("phase_entered", phase="battle"), cards=CARDS)


def test_gen_03_the_chain_that_passed_a_mandatory_trigger_by_is_flagged_once_at_the_table() -> None:
    """GEN-03 at the table: Pot of Greed stands, flagged; the Battle Phase after it is not flagged
    again for the same trigger (it is owed no longer)."""
    events = [*OWING, *POT_CHAIN, ev("phase_entered", phase="battle")]
    state = witnessed(*events)
    assert [(f.index, f.rule) for f in state.flags] == [(len(OWING), "GEN-03")]


# == WIN-01, WIN-04: a loss by battle damage, then an effect's damage ======================================

RING = 83555666   # Ring of Destruction

#: Vorse Raider (1900) attacks player 1 (1900 LP) directly; player 0 has 500 LP, a Ring of Destruction Set.
LETHAL = [position({"lp": 500, "mzone": [mon("vorse", VORSE)], "szone": [{"code": RING, "id": "ring", "position": "set"}]},
                   {"lp": 1900}, turn=4),
          ev("phase_entered", phase="battle"), ev("step_entered", step="battle"),
          ev("attack_declared", player=0, attacker="vorse"), ev("step_entered", step="damage"),
          ev("damage_calculated", damage=[0, 1900]),
          ev("life_points_changed", player=1, amount=1900, reason="battle_damage")]
LATE = ev("life_points_changed", player=0, amount=500, reason="effect_damage", cause="ring")


def test_win_01_an_effect_s_damage_after_a_loss_by_battle_damage_refused() -> None:
    """WIN-01, WIN-04: player 1 at 0 LP by battle damage has lost; an effect's damage to player 0
    recorded after it is no simultaneous loss: refused. Before: accepted, and the duel a draw.
    Player 0 winning by LP: legal."""
    refused_with([*LETHAL, LATE], "WIN-01", "player 1 has lost (lp)", cards=CARDS)
    assert fold(*LETHAL, ev("duel_ended", winner=0, reason="lp"), cards=CARDS).winner == 0


def test_win_01_the_late_damage_is_flagged_at_the_table_and_makes_no_draw() -> None:
    """WIN-01 at the table: the late change stands, flagged; player 0 still wins (a draw refused)."""
    state = witnessed(*LETHAL, LATE, ev("duel_ended", winner=0, reason="lp"))
    assert [(f.index, f.rule) for f in state.flags] == [(len(LETHAL), "WIN-01")]
    assert state.winner == 0


# == EFF-04: a Pendulum Summon moves the duel on ===================================================================

#: Dark Hole destroys both Test If Moles (test_rule_scenarios_38); Stargazer and Timegazer Magician are
#: player 0's Pendulum Scales (1 and 8), Celtic Guardian and Vorse Raider in the hand.
PEND_HOLE = [{**HOLE_38[0], "sides": [{**HOLE_38[0]["sides"][0],
                                       "hand": [*HOLE_38[0]["sides"][0]["hand"], card("celtic", CELTIC)],
                                       "szone": [card("sg", STARGAZER), None, None, None, card("tg", TIMEGAZER)]},
                                      HOLE_38[0]["sides"][1]]}, *HOLE_38[1:]]
PENDULUM = [ev("special_summoned", player=0, card="celtic", zone=0, method="pendulum"),
            ev("special_summoned", player=0, card="vorse", zone=1, method="pendulum", together=True)]


def test_eff_04_a_trigger_after_a_pendulum_summon_refused() -> None:
    """EFF-04, NIS-02: Dark Hole destroys Test If Mole; its controller Pendulum Summons Celtic
    Guardian and Vorse Raider (an action of an open game state, with no chain), and only then
    activates Test If Mole's "if sent to the GY" trigger: refused. Before: accepted (a Synchro,
    Xyz or Link Summon moved the duel on; a Pendulum Summon did not). Right after Dark Hole's chain,
    then the Pendulum Summon: legal."""
    refused_with([*PEND_HOLE, *PENDULUM, trigger("if_mole")], "EFF-04", PAST, cards=CARDS)
    fold(*PEND_HOLE, trigger("if_mole"), ev("chain_link_resolved", link=1), ev("chain_ended"), *PENDULUM, cards=CARDS)


# == EFF-04, SUM-03: a negated summon's monster has no summon to answer =======================================

#: Test Herald ("when this card is Normal Summoned: draw 1 card", test_rules_card_text) in the hand,
#: Solemn Judgment Set on player 1's side; the Normal Summon is negated.
NEGATED = [position({"hand": [card("herald", HERALD)]}, {"szone": [{"code": SOLEMN, "id": "sol", "position": "set"}]},
                    turn=4),
           ev("normal_summoned", player=0, card="herald", zone=1),
           ev("activated", player=1, card="sol", costs=[{"lp": 4000}]), ev("chain_link_resolved", link=1),
           ev("summon_negated", card="herald", cause="sol"),
           ev("card_moved", card="sol", to=[1, "gy"], reason="resolved"), ev("chain_ended")]
HERALD_TRIGGER = trigger("herald")


def test_eff_04_a_summon_trigger_after_the_summon_was_negated_refused() -> None:
    """EFF-04, SUM-03: Test Herald's Normal Summon was negated; its "when Normal Summoned" trigger
    activated from the GY: refused. Before: accepted. Not negated (Solemn Judgment not activated),
    the trigger right after the summon: legal."""
    refused_with([*NEGATED, HERALD_TRIGGER], "EFF-04", "its summon was negated", cards=TEXT)
    fold(*NEGATED[:2], HERALD_TRIGGER, cards=TEXT)


def test_eff_04_the_trigger_after_a_negated_summon_is_flagged_at_the_table() -> None:
    state = witnessed(*NEGATED, HERALD_TRIGGER, cards=TEXT)
    assert [(f.index, f.rule) for f in state.flags] == [(len(NEGATED), "EFF-04")]
