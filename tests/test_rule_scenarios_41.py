"""Duel scenarios a head judge rules on (issue 25, twenty-third pass: judge23), recorded as a
table's recorder writes them: the gaps the last pass left (``test_rule_scenarios_40``) and the
rulings probed across the catalogue (listed at the end of this docstring).

Let through though illegal, now refused (a machine record) or said undecided:

* EFF-04, NIS-02 (a trigger is activated in the chain built right after its event): a Special
  Summon by a monster's own procedure (SPS-07: Cyber Dragon's "if only your opponent controls a
  monster") is an action of an open game state, not a chain, as a Synchro or Xyz Summon is; it
  did not move the duel on. Test If Mole, destroyed by Dark Hole, activated its "if" trigger
  after its controller had inherently summoned Test Cyber: accepted. Now refused.
* SPS-09, NIS-06, SPS-07 (cards sent for an inherent summon's condition go before it: their
  optional "when" triggers miss the timing): The Tricky's discard is recorded as a card moved (a
  cost, "discarded") right before the summon, and was not taken as the summon's; Test Mole
  discarded for Test Tricky then activated its "when sent to the GY: you can" trigger: accepted.
  Now refused (an "if" trigger, Test If Mole's, still activates: legal).
* GEN-03 (a mandatory trigger is activated in the chain built right after its event): one left
  unactivated was judged at a Normal Summon, an attack, a phase or a chain opened by no trigger,
  never at a Special Summon by procedure (inherent, Synchro, Xyz, Link, Pendulum). Test Must
  Synchro, Synchro Summoned, owes "when Special Summoned: draw 1"; its controller inherently
  summons Test Cyber instead: accepted (judged at the phase after). Now GEN-03 at that summon;
  the costs and materials moved for the summon are spared (their triggers answer it).
* GEN-03, EFF-04, POS-07: a manual change of battle position is an action of an open game state
  too; it neither judged the mandatory trigger owed nor closed an optional trigger's window. Now
  it does both.
* BATTLE-09/10, CONF-18: an activation in the Damage Step of a card without a script (the classic
  database holds none) that the record does not call usable there (``damage_step``) was passed
  silently before damage calculation. What the card type decides is decided (a Counter Trap, Spell
  Speed 3, throughout: legal; a Spell Speed 1 Spell: SPELL-02); a Quick-Play Spell, a Normal Trap
  or an optional trigger is now listed as undecided (BATTLE-09, the reason said), never called.

Probed and found right, each as a recorded event sequence (kept out of the suite: they pass on the
baseline; legal accepted, illegal refused with the ID): SPELL-12 a Quick-Play Set this turn, or from
the hand in the opponent's turn (Set in an earlier turn, in the opponent's turn: legal); TRAP-02 a
Trap or a Counter Trap Set this turn (Set earlier, in the opponent's turn: legal); CHAIN-03 a Normal
Trap on a Counter Trap; CHAIN-02 a Normal Spell as Chain Link 2; CHAIN-05 Chain Link 1 resolved
before 2; CHAIN-10 a Trap as Chain Link 2 to a summon (Solemn Judgment on it: legal); NIS-06 a
"when" sent to the GY by Chain Link 2 while Chain Link 1 then destroyed (by the last link: legal);
SUM-07 a Tribute's "when"; SPS-07 an inherent summon in the opponent's turn, the Battle Phase or
with a chain open (Main Phase: legal); NIS-02 the turn player's optional trigger as Chain Link 1
before the opponent's mandatory one (the other order: legal); GEN-03 a Synchro's mandatory trigger
passed by a Normal Summon, by Pot of Greed as Chain Link 1, by the Battle Phase (answered by the
opponent's Quick-Play chained to it: legal), and the opponent's mandatory trigger passed by the turn
player's inherent summon; EFF-04 an "if" trigger of an inherent summon's cost right after it
(legal), after the phase that follows (refused); BATTLE-03 a second attack; BATTLE-02 a direct
attack past a monster; POS-03 an attack from Defense Position; DMG-07 no damage for ATK below DEF;
BATTLE-12 a FLIP effect before damage calculation; BATTLE-09 a Quick-Play after damage calculation;
SPELL-02 a Normal Spell in the Damage Step; PEND-03 a Level 8 with the Scales 1 and 8 (Level 4:
legal); SPS-02 a second Pendulum Summon in a turn; ZONE-09 a Pendulum Scale in a middle zone;
LINK-05 a Link monster changed to Defense; ZONE-04 a second Extra Monster Zone; LINK-02 a Link-3
from 2 materials; HAND-01 a turn ended with 7 cards; POS-06 an Equip Spell on a face-down monster.
Said undecided on the real EDOPro duels now (their card data holds no scripts): 35 Damage Step
triggers and Quick Effects, none a violation (BATTLE-09, the reason in each).
"""
from __future__ import annotations

from test_rule_scenarios_27 import ev
from test_rule_scenarios_39 import CARDS as CARDS_39, HAND_MOLE, MUST_MOLE, SALVAGE, card, trigger
from test_rules_battle import mon
from test_rules_effects import IF_MOLE, MOLE

from duel import DARK_HOLE, MIRROR_FORCE, MST, SOLEMN, VORSE, fold, position, refused_with
from ygoreplay.cards import CardDB, CardFacts
from ygoreplay.effect_facts import EffectFact
from ygoreplay.events import from_dict
from ygoreplay.rules import apply

CYBER, TRICKY, MUST_SYNCHRO = 990411, 990412, 990413
JUNK_SYNCHRON = 63977008


def _draw_on(code: str) -> tuple[EffectFact, ...]:
    """A mandatory "when ...: draw 1 card" with nothing that could keep it back."""
    return (EffectFact(("single", "trigger_f"), code, (), ("draw",), condition=False),)


#: This file's own cards: two monsters that Special Summon themselves by their own procedure (a
#: Cyber Dragon; a The Tricky, which discards a card for it), and a Synchro monster whose "when
#: this card is Special Summoned: draw 1 card" is mandatory.
CARDS = CARDS_39.merged(CardDB([
    CardFacts(code=CYBER, name="Test Cyber", type=0x21, level=5, atk=2100, defense=1600),
    CardFacts(code=TRICKY, name="Test Tricky", type=0x21, level=5, atk=2000, defense=1200),
    CardFacts(code=MUST_SYNCHRO, name="Test Must Synchro", type=0x2021, level=5, atk=2000, defense=1300)])
).with_effects({
    CYBER: (EffectFact(("field",), "EFFECT_SPSUMMON_PROC", (), (), ranges=("hand",)),),
    TRICKY: (EffectFact(("field",), "EFFECT_SPSUMMON_PROC", (), (), ranges=("hand",)),),
    MUST_SYNCHRO: _draw_on("EVENT_SPSUMMON_SUCCESS")})


def inherent(card_id: str, zone: int, player: int = 0) -> dict:
    return ev("special_summoned", player=player, card=card_id, zone=zone, method="inherent", position="attack")


# == EFF-04: an inherent Special Summon moves the duel on ==================================================

#: Dark Hole destroys Test If Mole (and the opponent's Vorse Raider); Test Cyber waits in the hand.
HOLE = [position({"mzone": [mon("if_mole", IF_MOLE)], "hand": [card("hole", DARK_HOLE), card("cyber", CYBER)]},
                 {"mzone": [mon("p1_vorse", VORSE)]}, turn=4),
        ev("activated", player=0, card="hole", zone=1), ev("chain_link_resolved", link=1),
        ev("card_moved", card="if_mole", to=[0, "gy"], reason="destroyed", cause="hole"),
        ev("card_moved", card="p1_vorse", to=[1, "gy"], reason="destroyed", cause="hole"),
        ev("card_moved", card="hole", to=[0, "gy"], reason="resolved"), ev("chain_ended")]


def test_eff_04_a_trigger_after_an_inherent_special_summon_refused() -> None:
    """EFF-04, SPS-07: Test If Mole's "if sent to the GY" trigger, activated only after Test Cyber
    was Special Summoned by its own procedure (an action, no chain): refused. Before: accepted.
    Activated first, then the summon: legal."""
    refused_with([*HOLE, inherent("cyber", 2), trigger("if_mole")], "EFF-04",
                 "the last of those recorded for it came before the duel moved on", cards=CARDS)
    fold(*HOLE, trigger("if_mole"), ev("chain_link_resolved", link=1),
         ev("cards_drawn", player=0, count=1, cause="if_mole"),
         ev("chain_ended"), inherent("cyber", 2), cards=CARDS)


# == SPS-09, NIS-06: the cost of an inherent summon misses its "when" =======================================

TRICKY_BOARD = position({"hand": [card("tricky", TRICKY), card("mole", MOLE), card("if_mole", IF_MOLE)]}, turn=4)


def tricky(discarded: str) -> list[dict]:
    """Test Tricky discards ``discarded`` for its own procedure (a cost), then is Special Summoned."""
    return [TRICKY_BOARD, ev("card_moved", card=discarded, to=[0, "gy"], reason="discarded"), inherent("tricky", 2)]


def test_sps_09_a_when_trigger_of_an_inherent_summons_discard_refused() -> None:
    """SPS-09, NIS-06: Test Mole, discarded for Test Tricky's inherent summon, activates its "when
    this card is sent to the GY: you can" trigger after the summon: refused (the summon, not the
    discard, was the last thing to happen). Before: accepted. Test If Mole's "if": legal."""
    refused_with([*tricky("mole"), trigger("mole")], "SPS-09", "summon procedure", cards=CARDS)
    fold(*tricky("if_mole"), trigger("if_mole"), cards=CARDS)


# == GEN-03: a mandatory trigger passed by a Special Summon by procedure ====================================

SYNCHRO_BOARD = position({"mzone": [mon("junk", JUNK_SYNCHRON), mon("two", HAND_MOLE)],
                          "extra": [card("must_synchro", MUST_SYNCHRO)], "hand": [card("cyber", CYBER)]},
                         {"mzone": [mon("p1_vorse", VORSE)]}, turn=4)
SYNCHRO = ev("special_summoned", player=0, card="must_synchro", zone=2, method="synchro", position="attack",
             materials=["junk", "two"])


def test_gen_03_an_inherent_summon_past_a_synchros_mandatory_trigger_refused() -> None:
    """GEN-03: Test Must Synchro is Synchro Summoned and owes its "when Special Summoned: draw 1";
    its controller Special Summons Test Cyber by its procedure instead: refused at that summon.
    Before: accepted (judged only at the next phase). The trigger first: legal."""
    refused_with([SYNCHRO_BOARD, SYNCHRO, inherent("cyber", 3)], "GEN-03", "Test Must Synchro", cards=CARDS)
    fold(SYNCHRO_BOARD, SYNCHRO, trigger("must_synchro"), ev("chain_link_resolved", link=1),
         ev("cards_drawn", player=0, count=1, cause="must_synchro"), ev("chain_ended"), inherent("cyber", 3), cards=CARDS)


#: Test Salvage adds Test Must Mole (a mandatory "if added to the hand: draw 1") to the hand.
OWING = [position({"gy": [card("must_mole", MUST_MOLE)], "hand": [card("salvage", SALVAGE), card("cyber", CYBER)]},
                  {"mzone": [mon("p1_vorse", VORSE)]}, turn=4),
         ev("activated", player=0, card="salvage", zone=1), ev("chain_link_resolved", link=1),
         ev("card_moved", card="must_mole", to=[0, "hand"], reason="added", cause="salvage"),
         ev("card_moved", card="salvage", to=[0, "gy"], reason="resolved"), ev("chain_ended")]


def test_gen_03_an_inherent_summon_past_a_mandatory_trigger_refused_its_cost_spared() -> None:
    """GEN-03: Test Must Mole owes its trigger; Test Cyber's inherent summon is refused there.
    Before: accepted. Test Must Mole discarded as Test Tricky's cost right before its summon
    answers that summon (spared): its trigger after it is legal."""
    refused_with([*OWING, inherent("cyber", 0)], "GEN-03", "added to the hand", cards=CARDS)
    board = {**OWING[0], "sides": [{**OWING[0]["sides"][0],
                                    "hand": [card("salvage", SALVAGE), card("tricky", TRICKY)]},
                                   OWING[0]["sides"][1]]}
    fold(board, *OWING[1:], ev("card_moved", card="must_mole", to=[0, "gy"], reason="discarded"),
         inherent("tricky", 0), cards=CARDS)


# == BATTLE-09/10: a Damage Step activation the card data cannot decide, said undecided ====================

#: Vorse Raider attacks player 1's Vorse Raider; player 0 has a Mystical Space Typhoon, player 1 a
#: Mirror Force and a Solemn Judgment, all Set in an earlier turn.
DAMAGE_STEP = [position({"mzone": [mon("vorse", VORSE)], "szone": [{"code": MST, "id": "mst", "position": "set"}]},
                        {"mzone": [mon("p1_vorse", VORSE)],
                         "szone": [{"code": MIRROR_FORCE, "id": "mirror", "position": "set"},
                                   {"code": SOLEMN, "id": "solemn", "position": "set"}]}, turn=4),
               ev("phase_entered", phase="battle"), ev("step_entered", step="battle"),
               ev("attack_declared", player=0, attacker="vorse", target="p1_vorse"), ev("step_entered", step="damage")]


def test_battle_09_a_quick_play_without_a_script_in_the_damage_step_is_said_undecided() -> None:
    """BATTLE-09/10, CONF-18: Mystical Space Typhoon (no script in the classic database, no
    ``damage_step`` in the record) before damage calculation: kept, and listed undecided with the
    reason. Before: passed silently. A Counter Trap (Solemn Judgment, by its type): decided, legal."""
    state = fold(*DAMAGE_STEP, ev("activated", player=0, card="mst", zone=0, targets=["mirror"]))
    assert [(u.index, u.rule) for u in state.undecided] == [(len(DAMAGE_STEP), "BATTLE-09")]
    assert "undecided" in state.undecided[0].message and "no script" in state.undecided[0].message
    said = fold(*DAMAGE_STEP, ev("activated", player=0, card="mst", zone=0, targets=["mirror"], damage_step=True),
                ev("activated", player=1, card="solemn", costs=[{"lp": 4000}], negates=1))
    assert said.undecided == []


def test_battle_09_an_optional_trigger_without_a_script_in_the_damage_step_is_said_undecided() -> None:
    """BATTLE-09: an optional trigger of a card without a script, the record silent on whether it
    is one usable in the Damage Step: listed undecided. Before: passed silently. A mandatory one
    (the record's word) is one of the exceptions: nothing listed."""
    events = [*DAMAGE_STEP, ev("damage_calculated", damage=[0, 0], destroyed=["vorse", "p1_vorse"]),
              ev("card_moved", card="vorse", to=[0, "gy"], reason="battle"),
              ev("card_moved", card="p1_vorse", to=[1, "gy"], reason="battle")]
    state = fold(*events, trigger("p1_vorse", player=1, mandatory=False))
    assert [u.rule for u in state.undecided] == ["BATTLE-09"]
    assert fold(*events, trigger("p1_vorse", player=1, mandatory=True)).undecided == []


def test_gen_03_at_the_table_the_summon_past_the_trigger_is_flagged_once() -> None:
    """GEN-03 at the table: Test Cyber's inherent summon past Test Must Synchro's trigger stands,
    flagged there; the Battle Phase after it is not flagged again for the same trigger. Before:
    the Battle Phase was flagged instead."""
    state = fold(SYNCHRO_BOARD, cards=CARDS)
    state.witnessed, state.flags = True, []
    for data in (SYNCHRO, inherent("cyber", 3), ev("phase_entered", phase="battle")):
        apply(state, from_dict(data))
    assert [(f.index, f.rule) for f in state.flags] == [(2, "GEN-03")]
    assert state.cards["cyber"].zone == "mzone"


def test_gen_03_eff_04_a_manual_position_change_past_a_trigger_refused() -> None:
    """GEN-03, EFF-04: changing a monster's battle position by hand is an action of an open game
    state (POS-07). Past Test Must Synchro's mandatory trigger: refused at the change. Before:
    accepted. Test If Mole's "if" trigger after such a change: refused (EFF-04). Before the change
    (the trigger resolved first): legal."""
    board = {**SYNCHRO_BOARD, "sides": [{**SYNCHRO_BOARD["sides"][0],
                                         "mzone": [*SYNCHRO_BOARD["sides"][0]["mzone"], None, mon("v", VORSE)]},
                                        SYNCHRO_BOARD["sides"][1]]}
    change = ev("position_changed", card="v", position="defense")
    refused_with([board, SYNCHRO, change], "GEN-03", "Test Must Synchro", cards=CARDS)
    fold(board, SYNCHRO, trigger("must_synchro"), ev("chain_link_resolved", link=1),
         ev("cards_drawn", player=0, count=1, cause="must_synchro"), ev("chain_ended"), change, cards=CARDS)
    hole = {**HOLE[0], "sides": [{**HOLE[0]["sides"][0], "mzone": [*HOLE[0]["sides"][0]["mzone"], mon("v", VORSE)]},
                                 HOLE[0]["sides"][1]]}
    refused_with([hole, *HOLE[1:], change, trigger("if_mole")], "EFF-04",
                 "the last of those recorded for it came before the duel moved on", cards=CARDS)
