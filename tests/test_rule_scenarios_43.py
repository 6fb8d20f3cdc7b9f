"""Duel scenarios a head judge rules on (issue 25, twenty-third pass, third half: judge23c),
hunting legal plays refused: what ``test_rule_scenarios_41`` and ``_42`` added (inherent summons
closing trigger windows, GEN-03 at summons by procedure and position changes, Damage Step
activations without scripts said undecided, costs no materials, TERM-01, LOG-05) probed against
the plays a table makes.

Refused though legal, now right:

* EFF-04, SPS-11, NIS-06 (the triggers of a summon's Tributes, materials and costs wait for the
  summon; an activation answering the summon as it is attempted is no new action): Solemn
  Judgment answering Test Tricky's inherent summon (its cost Test If Mole discarded), a Synchro
  Summon (Test If Mole a material) or a Tribute Summon (Test If Mole Tributed) opened a chain
  that moved the duel on past those triggers, so Test If Mole's "if sent to the GY" trigger,
  activated once Solemn Judgment's chain had resolved, was refused (EFF-04). It is legal: only a
  summon negator may be activated while the summon is attempted, and the triggers of what went
  for it are activated after that chain, negated summon or not. Now legal; the "when" trigger of
  the same cost (Test Mole's) still misses the timing, refused SPS-09 (the negation chain is no
  chance for it: the procedure's mark is kept past it), where the record's own "when" went
  unjudged before. The same for a summon that succeeded once Magic Jammer negated that Solemn
  Judgment: its monster's own "if Normal Summoned" trigger after the chain was refused. Now legal.
* EFF-04, GEN-03, SPS-07: an inherent summon's cost was taken as the summon's only when recorded
  as "cost" or "discarded"; one the record names by how it went ("banished", "sent"), outside any
  chain right before the summon, was not, so the summon moved the duel on past its trigger: Test
  If Banish Mole's "if banished" after Test Tricky's summon was refused (accepted before this
  pass: a regression of ``test_rule_scenarios_41``'s closing of the window). Now legal.

Probed and found right, each as a recorded event sequence (kept out of the suite: they pass on
main; legal accepted, illegal refused with the ID): EFF-04 Test If Mole's "if" trigger after Test
Cyber's inherent summon (refused), before it (legal); SPS-09 a cost's "when" after Test Tricky's
summon (refused), its "if" (legal), a mandatory "if sent to the GY" cost trigger after the summon
(legal); GEN-03 a Synchro's mandatory trigger resolved before a manual position change (legal),
passed by it (refused); POS-07 a Flip Summon (``flip_summoned``, or recorded as a change of
position from Set to Attack) then another monster's manual change (legal); HAND-01 an End Phase
turn, the next turn's Test Tricky discarding for its summon and the discard's mandatory trigger
(legal); LINK-02 a Link-3 from a Link-1 and two monsters (legal); BATTLE-09 a Quick Effect whose
script says EFFECT_FLAG_DAMAGE_STEP in the Damage Step (legal, nothing undecided), one whose
script does not (refused); SPS-10 a monster Special Summoned from the hand by its own effect
resolving, after a trigger's chain (legal); PEND-03 two monsters Pendulum Summoned (legal);
XMAT-01 an Xyz material detached as a cost, its "if sent to the GY" trigger after the chain
(legal). The 100 real EDOPro duels fold with no violation, with and without the effect facts of
ProjectIgnis' CardScripts (``bench/effects_real.py``): none before, none after.
"""
from __future__ import annotations

from test_rule_scenarios_27 import ev
from test_rule_scenarios_39 import card, trigger
from test_rule_scenarios_41 import CARDS, JUNK_SYNCHRON, MUST_SYNCHRO, TRICKY, inherent
from test_rule_scenarios_42 import CARDS as CARDS_42, IF_BANISH_MOLE
from test_rules_battle import mon
from test_rules_effects import IF_MOLE, MOLE

from duel import CELTIC, MAGIC_JAMMER, SOLEMN, SUMMONED_SKULL, VORSE, fold, position, refused_with
from ygoreplay.cards import CardDB, CardFacts
from ygoreplay.effect_facts import EffectFact

SUMMONED_MOLE = 990431
#: This file's own card: a monster with "if this card is Normal Summoned: you can draw 1 card".
CARDS_43 = CARDS.merged(CardDB([CardFacts(code=SUMMONED_MOLE, name="Test Summoned Mole", type=0x21, level=4,
                                          atk=1000)])).with_effects(
    {SUMMONED_MOLE: (EffectFact(("single", "trigger_o"), "EVENT_SUMMON_SUCCESS", ("delay",), ("draw",)),)})

#: Player 1 has a Solemn Judgment Set in an earlier turn.
P1_SOLEMN = {"szone": [{"code": SOLEMN, "id": "solemn", "position": "set"}]}


def solemn_on(summoned: str) -> list[dict]:
    """Player 1 answers the summon of ``summoned`` with Solemn Judgment, which negates it."""
    return [ev("activated", player=1, card="solemn", costs=[{"lp": 4000}]), ev("chain_link_resolved", link=1),
            ev("summon_negated", card=summoned, cause="solemn"),
            ev("card_moved", card="solemn", to=[1, "gy"], reason="resolved"), ev("chain_ended")]


def tricky_negated(discarded: str) -> list[dict]:
    """Test Tricky discards ``discarded`` for its inherent summon, which Solemn Judgment negates."""
    board = position({"hand": [card("tricky", TRICKY), card("if_mole", IF_MOLE), card("mole", MOLE)]}, P1_SOLEMN,
                     turn=4)
    return [board, ev("card_moved", card=discarded, to=[0, "gy"], reason="discarded"), inherent("tricky", 2),
            *solemn_on("tricky")]


def test_eff_04_an_if_trigger_of_an_inherent_summons_cost_after_solemn_judgment_is_legal() -> None:
    """EFF-04, SPS-11: Test If Mole, discarded for Test Tricky, activates its "if sent to the GY"
    trigger once Solemn Judgment, negating the summon, has resolved: legal. Before: refused
    (Solemn Judgment's chain taken as a new action). Test Mole's "when": still refused, SPS-09."""
    state = fold(*tricky_negated("if_mole"), trigger("if_mole"), cards=CARDS)
    assert state.chain[0].card == "if_mole" and state.cards["tricky"].zone == "gy"
    refused_with([*tricky_negated("mole"), trigger("mole")], "SPS-09", "summon procedure", cards=CARDS)


def test_eff_04_an_if_trigger_of_a_synchro_material_after_solemn_judgment_is_legal() -> None:
    """EFF-04, SPS-11: Test If Mole, a Synchro Material of Test Must Synchro, activates its "if"
    trigger after Solemn Judgment negated the Synchro Summon: legal. Before: refused."""
    board = position({"mzone": [mon("junk", JUNK_SYNCHRON), mon("if_mole", IF_MOLE)],
                      "extra": [card("must_synchro", MUST_SYNCHRO)]}, P1_SOLEMN, turn=4)
    state = fold(board, ev("special_summoned", player=0, card="must_synchro", zone=2, method="synchro",
                           position="attack", materials=["junk", "if_mole"]),
                 *solemn_on("must_synchro"), trigger("if_mole"), cards=CARDS)
    assert state.chain[0].card == "if_mole"


def test_eff_04_an_if_trigger_of_a_tribute_after_solemn_judgment_is_legal() -> None:
    """EFF-04, SPS-11, SUM-07: Test If Mole, Tributed for Summoned Skull, activates its "if"
    trigger after Solemn Judgment negated the Tribute Summon: legal. Before: refused. With no
    Solemn Judgment, right after the summon: legal as before."""
    board = position({"mzone": [mon("if_mole", IF_MOLE)], "hand": [card("skull", SUMMONED_SKULL)]}, P1_SOLEMN,
                     turn=4)
    summon = ev("normal_summoned", player=0, card="skull", zone=1, tributes=["if_mole"])
    state = fold(board, summon, *solemn_on("skull"), trigger("if_mole"), cards=CARDS)
    assert state.chain[0].card == "if_mole" and state.cards["skull"].zone == "gy"
    fold(board, summon, trigger("if_mole"), cards=CARDS)


def test_sps_09_a_when_trigger_recorded_as_such_after_solemn_judgment_refused() -> None:
    """SPS-09, NIS-06: a cost of Test Tricky whose trigger the record calls a "when" (no script),
    activated after Solemn Judgment's chain: refused, it missed the timing (the summon procedure,
    then the negation, came after its going). Before: accepted (the mark was dropped at the end
    of the negation's chain)."""
    board = position({"hand": [card("tricky", TRICKY), card("v", VORSE)]}, P1_SOLEMN, turn=4)
    refused_with([board, ev("card_moved", card="v", to=[0, "gy"], reason="discarded"), inherent("tricky", 2),
                  *solemn_on("tricky"), trigger("v", timing="when", mandatory=False)], "SPS-09",
                 "summon procedure", cards=CARDS)


def test_eff_04_a_summons_own_trigger_after_solemn_judgment_was_negated_is_legal() -> None:
    """EFF-04, SPS-11: player 1 answers Test Summoned Mole's Normal Summon with Solemn Judgment,
    player 0 negates it with Magic Jammer; the summon succeeds, and Test Summoned Mole's "if
    Normal Summoned" trigger is activated once that chain has resolved: legal. Before: refused
    (Solemn Judgment's chain taken as a new action past the summon)."""
    board = position({"hand": [card("summoned", SUMMONED_MOLE), card("celtic", CELTIC)],
                      "szone": [{"code": MAGIC_JAMMER, "id": "jammer", "position": "set"}]}, P1_SOLEMN, turn=4)
    state = fold(board, ev("normal_summoned", player=0, card="summoned", zone=1),
                 ev("activated", player=1, card="solemn", costs=[{"lp": 4000}]),
                 ev("activated", player=0, card="jammer", costs=[{"card": "celtic", "to": "gy", "reason": "discarded"}],
                    negates=1),
                 ev("chain_link_resolved", link=2), ev("chain_link_negated", link=1),
                 ev("card_moved", card="solemn", to=[1, "gy"], reason="negated"),
                 ev("card_moved", card="jammer", to=[0, "gy"], reason="resolved"), ev("chain_ended"),
                 trigger("summoned"), cards=CARDS_43)
    assert state.chain[0].card == "summoned" and state.cards["summoned"].zone == "mzone"


def test_eff_04_an_if_trigger_of_a_cost_recorded_as_banished_is_legal() -> None:
    """EFF-04, SPS-07: Test If Banish Mole, banished from the GY outside any chain right before
    Test Tricky's inherent summon (its cost, the record naming the banishment itself: "banished",
    not "cost"), activates its "if banished" trigger after the summon: legal. Before: refused (the
    move was not taken as the summon's, so the summon moved the duel on past it). The same sent
    to the GY ("sent") as Test If Mole."""
    board = position({"hand": [card("tricky", TRICKY)], "gy": [card("if_banish_mole", IF_BANISH_MOLE)],
                      "mzone": [mon("if_mole", IF_MOLE)]}, turn=4)
    state = fold(board, ev("card_moved", card="if_banish_mole", to=[0, "banished"], reason="banished"),
                 inherent("tricky", 2), trigger("if_banish_mole"), cards=CARDS_42)
    assert state.chain[0].card == "if_banish_mole"
    state = fold(board, ev("card_moved", card="if_mole", to=[0, "gy"], reason="sent"),
                 inherent("tricky", 2), trigger("if_mole"), cards=CARDS_42)
    assert state.chain[0].card == "if_mole"
