"""Duel scenarios a head judge rules on (issue 25, twenty-second pass: judge22), recorded as a
table's recorder writes them: what judge21b left (``test_rule_scenarios_38``) and the rulings
probed across the catalogue (listed at the end of this docstring).

Let through though illegal, now refused (a machine record) or kept and flagged (at the table):

* EFF-04, NIS-02 (the chain of triggers is built right after their event, before any new action):
  Test If Mole, destroyed by Dark Hole, activated its "if sent to the GY" trigger after its
  controller had opened and resolved an unrelated chain (Pot of Greed): accepted, as only a
  Normal Summon, an attack or a new phase, step or turn moved the duel on. A chain opened by
  something that is surely no trigger (a card activation; an effect of a card whose script
  declares no trigger) now moves it on too, and so does a Synchro, Xyz or Link Summon by its
  procedure (its materials' own triggers answer it); a chain opened by a trigger does not.
* EFF-04 for a card's own move to the hand or the Deck (``EVENT_TO_HAND``, ``EVENT_TO_DECK``):
  not judged at all; now as its going to the GY is (GEN-03 too: a mandatory "if this card is
  added to your hand" trigger left unactivated).
* EFF-04 for a card sent as a Summon's material (Synchro, Xyz: ``EVENT_TO_GRAVE``,
  ``EVENT_BE_MATERIAL``) or paid as a cost (Magic Jammer's discard): not noted as sent, so its
  trigger was undecided for ever; now noted at the summon or the activation.
* TRAP-04, SPELL-04: a Continuous Trap (Royal Decree) or a Field Spell recorded going to the GY
  "resolved" (by the rules, after resolving): accepted; it stays on the field. The EDOPro
  importer named that reason for any card whose link had resolved in the chain, even one its own
  effect (or another's) sent later: now only for what the rules send (``to_leave``).

* EFF-04, SUM-12, SPS-06 (found with ProjectIgnis' current scripts on the real EDOPro duels, 27
  calls of plays the engine made): a card with both a trigger on its own summon and a Quick
  Effect, whose activation the record names a "trigger" (the EDOPro importer names any Chain Link
  1 outside an open game state so), was judged by its triggers alone. It may be the Quick Effect:
  undecided now.

Probed and found right, each as a recorded event sequence (legal accepted; illegal refused with
the ID): SUM-01 a second Normal Summon, a Set after a Normal Summon, a Normal Summon in the
opponent's turn; SUM-04 a Level 7 with 0 or 1 Tribute (2: legal); SUM-06 Tributing the opponent's
monster; TURN-06 a Normal Summon in the Battle Phase; SUM-09 a Normal Summon in face-up Defense;
SUM-11 a Flip Summon the turn it was Set (an earlier turn's: legal, and it attacks); POS-07 two
position changes; POS-08 a change the turn it was summoned; POS-03 an attack from Defense
Position; LINK-05 a Link monster to Defense; ZONE-01 a sixth monster; ZONE-08 a sixth Spell/Trap;
BATTLE-03 a second attack; BATTLE-02 a direct attack past a monster, an attack in Main Phase 2
(a direct attack for 1700: legal; a monster summoned this turn attacks: legal; an Xyz monster
with materials attacks: legal); NIS-04 no Battle Phase in the first turn; DMG-01/07 battle
damage and destruction other than the rules give; CHAIN-02 a Spell Speed 1 chained; CHAIN-05 a
chain resolved out of order; CHAIN-11 an LP cost over the LP; TERM-07 discarding from the field;
TRAP-02 a Trap from the hand or the turn it was Set; SPELL-02 a Normal Spell in the opponent's
turn, in the Battle Phase or the Damage Step; SPELL-12 a Quick-Play from the hand in the
opponent's turn, or the turn it was Set; SPELL-11 a Field Spell replacing one (legal); EFF-02 an
Ignition Effect in the opponent's turn; SETUP-04 a draw in the first turn; TURN-01 phases out of
order, the same player taking two turns; HAND-01 ending the turn with 7 cards; WIN-01/02 nothing
after a player reaches 0 LP or draws from an empty Deck; WIN-04 both players at 0 LP (two LP
changes one after the other, as one effect damaging both is recorded): a draw, a winner named
refused; XYZ-01 Xyz Materials of another Level; SYN-01 a Synchro without a Tuner; LINK-02 a
Link-3 from 2 materials; NIS-01 a Link monster to a Main Monster Zone no arrow points to; ZONE-04
a second Extra Monster Zone; XMAT-01 detaching from a monster with no materials (detaching one:
legal); PEND-03 a Pendulum Summon outside the Scales (inside: legal); SPS-02 a second Pendulum
Summon in a turn; SPS-12 reviving a Link monster never properly summoned; TOKEN-02 a Token sent
to the hand vanishes (the move is the effect's; a Token gone is no card to move again, LOG-01).
Also: XYZ-02 a Token as Xyz Material (as Link Material, LINK-04: legal); TOKEN-02 a Token Set;
CTRL-01 activating the opponent's monster's effect; BATTLE-02/04 a direct attack past a monster
in the Extra Monster Zone; POS-06 an Equip Spell on a face-down monster; a Set Trap in the
opponent's turn, answering an attack (BATTLE-08: a new chain), legal; a Tribute Set of a Level 5,
legal; SPELL-03 a Spell Set from the other player's hand; WIN-02 drawing past the Deck by an
effect; ZONE-09 a Pendulum Scale in a middle zone (an outer one: legal); CHAIN-03 a Quick-Play
chained to a Counter Trap (Mystical Space Typhoon on Pot of Greed: legal). At the table (a
witnessed duel) each illegal one above is kept and flagged with its ID, except what no board can
hold (a sixth monster or Spell/Trap, ZONE-01/08: refused) and a card that is not there (LOG-01).
Undecided as designed (no script facts in the classic database): Mystical Space Typhoon in the
Damage Step (BATTLE-09 needs the card's text).
"""
from __future__ import annotations

import struct

import pytest

from test_rule_scenarios_27 import ev
from test_rule_scenarios_38 import HOLE as HOLE_38, PAST, witnessed
from test_rules_battle import mon
from test_rules_effects import IF_MOLE, SUMMONING, TIMING_CARDS, synchro_summon
from test_yrpx import DECKS, HAND, draw, loc, packet, replay, stringid
from test_yrpx_emits import GRAVE, KINDS, SZONE, deck_refresh, move

from duel import (
    CELTIC, MAGIC_JAMMER, MIRROR_FORCE, POT, ROYAL_DECREE, VORSE, YAMI, fold, position,
    refused_with)
from ygoreplay.cards import CardDB, CardFacts
from ygoreplay.effect_facts import EffectFact
from ygoreplay.rules import audit
from ygoreplay.yrpx import (MSG_CHAIN_END, MSG_CHAIN_SOLVED, MSG_CHAIN_SOLVING, MSG_CHAINED, MSG_CHAINING,
                            MSG_NEW_PHASE, MSG_NEW_TURN, MSG_START, MSG_WIN, REASON_EFFECT, import_yrpx)

HAND_MOLE, DECK_MOLE, MAT_MOLE, MUST_MOLE, SALVAGE = 990391, 990392, 990393, 990394, 990395


def _trigger(code: str, mandatory: bool = False) -> tuple[EffectFact, ...]:
    return (EffectFact(("single", "trigger_f" if mandatory else "trigger_o"), code, ("delay",), ("draw",),
                       condition=False),)


#: This file's own cards: "if this card is added to your hand / put in the Deck (a Pendulum
#: monster: face-up in the Extra Deck) / used as material: you can draw 1 card", one whose
#: to-the-hand trigger is mandatory, and a Normal Spell that moves cards from the GY.
CARDS = TIMING_CARDS.merged(CardDB([
    CardFacts(code=HAND_MOLE, name="Test Hand Mole", type=0x21, level=2, atk=1000),
    CardFacts(code=DECK_MOLE, name="Test Deck Mole", type=0x1000021, level=2, atk=1000, lscale=1, rscale=1),
    CardFacts(code=MAT_MOLE, name="Test Material Mole", type=0x21, level=2, atk=1000),
    CardFacts(code=MUST_MOLE, name="Test Must Mole", type=0x21, level=2, atk=1000),
    CardFacts(code=SALVAGE, name="Test Salvage", type=0x2)])).with_effects({
        HAND_MOLE: _trigger("EVENT_TO_HAND"), DECK_MOLE: _trigger("EVENT_TO_DECK"),
        MAT_MOLE: _trigger("EVENT_BE_MATERIAL"), MUST_MOLE: _trigger("EVENT_TO_HAND", mandatory=True)})

BATTLE = [ev("phase_entered", phase="battle")]


def card(card_id: str, code: int) -> dict:
    return {"code": code, "id": card_id}


def trigger(card: str, player: int = 0, **fields) -> dict:
    return ev("activated", player=player, card=card, effect_type="trigger", **fields)


# == EFF-04: a chain opened by something else moves the duel on =========================================

#: test_rule_scenarios_38's Dark Hole destroying both Test If Moles, a Pot of Greed in the hand too.
HOLE = [{**HOLE_38[0], "sides": [{**HOLE_38[0]["sides"][0], "hand": [*HOLE_38[0]["sides"][0]["hand"], card("pot", POT)]},
                                  HOLE_38[0]["sides"][1]]}, *HOLE_38[1:]]
POT_CHAIN = [ev("activated", player=0, card="pot", zone=2), ev("chain_link_resolved", link=1),
             ev("cards_drawn", player=0, count=2, cause="pot"),
             ev("card_moved", card="pot", to=[0, "gy"], reason="resolved"), ev("chain_ended")]


def test_eff_04_a_trigger_after_a_synchro_summon_by_its_procedure_refused() -> None:
    """EFF-04: Dark Hole destroys Test If Mole; its controller then Synchro Summons Junk Warrior
    (a summon by its procedure: an action of an open game state, with no chain) and only then
    activates Test If Mole's trigger: refused. Before: accepted. The Synchro Materials' own
    triggers answer that summon: legal right after it (``test_eff_04_a_synchro_material_s...``)."""
    board = {**HOLE[0], "sides": [{**HOLE[0]["sides"][0], "mzone": [*HOLE[0]["sides"][0]["mzone"],
                                                                     mon("junk", 63977008), mon("two", HAND_MOLE)],
                                   "extra": [card("warrior", 60800381)]}, HOLE[0]["sides"][1]]}
    summon = ev("special_summoned", player=0, card="warrior", zone=0, method="synchro", materials=["junk", "two"])
    refused_with([board, *HOLE[1:], summon, trigger("if_mole")], "EFF-04", PAST, cards=CARDS)


def test_eff_04_a_trigger_after_an_unrelated_chain_refused() -> None:
    """EFF-04, NIS-02: Dark Hole destroys both Test If Moles; its controller then activates Pot of
    Greed (a card activation: surely no trigger, in an open game state), it resolves, and only then
    a Test If Mole's "if sent to the GY" trigger: refused. Before: accepted. A chain the first
    Test If Mole's trigger opens keeps the window: the second chains to it; Pot of Greed after it."""
    refused_with([*HOLE, *POT_CHAIN, trigger("if_mole")], "EFF-04", PAST, cards=CARDS)
    state = fold(*HOLE, trigger("if_mole"), trigger("if_mole2", simultaneous=True), cards=CARDS)
    assert [link.card for link in state.chain] == ["if_mole", "if_mole2"]
    fold(*HOLE, trigger("if_mole"), ev("chain_link_resolved", link=1), ev("chain_ended"), *POT_CHAIN, cards=CARDS)


def test_eff_04_the_unrelated_chain_pot_of_greed_opens_is_flagged_at_the_table() -> None:
    """EFF-04 at the table: the same late trigger stands, flagged."""
    events = [*HOLE, *POT_CHAIN, trigger("if_mole")]
    state = witnessed(*events)
    assert [(f.index, f.rule) for f in state.flags] == [(len(events) - 1, "EFF-04")]


# == EFF-04, GEN-03: a card's own move to the hand or the Deck ===============================================

MOVES = position({"gy": [card("hand_mole", HAND_MOLE), card("must_mole", MUST_MOLE)],
                  "mzone": [mon("deck_mole", DECK_MOLE)],
                  "hand": [{"code": SALVAGE, "id": "salvage"}]}, turn=4)


def salvage(*moves: dict) -> list[dict]:
    """Test Salvage resolves: what it moves, then it goes to the GY."""
    return [MOVES, ev("activated", player=0, card="salvage", zone=1), ev("chain_link_resolved", link=1), *moves,
            ev("card_moved", card="salvage", to=[0, "gy"], reason="resolved"), ev("chain_ended")]


TO_HAND = ev("card_moved", card="hand_mole", to=[0, "hand"], reason="added", cause="salvage")
TO_DECK = ev("card_moved", card="deck_mole", to=[0, "extra"], reason="destroyed", cause="salvage")


@pytest.mark.parametrize("move, card", [(TO_HAND, "hand_mole"), (TO_DECK, "deck_mole")], ids=["hand", "deck"])
def test_eff_04_a_trigger_on_its_own_move_to_the_hand_or_deck_in_its_window_not_after(move: dict, card: str) -> None:
    """EFF-04: Test Hand Mole ("if this card is added to your hand") and Test Deck Mole (a
    Pendulum monster: "if this card is put in the Deck", destroyed, face-up to the Extra Deck:
    PEND-05) activate right after the chain that moved them: legal. After the Battle Phase
    began: refused. Before: accepted (those events were not kept). In the Main Deck, face-down,
    its trigger needs its text cited (CHAIN-12), which sets every rule aside."""
    assert fold(*salvage(move), trigger(card), cards=CARDS).chain[0].card == card
    refused_with([*salvage(move), *BATTLE, trigger(card)], "EFF-04", PAST, cards=CARDS)


def test_gen_03_a_mandatory_trigger_on_its_move_to_the_hand_not_activated() -> None:
    """GEN-03: Test Must Mole's "if this card is added to your hand: draw 1 card" (no "can", no
    condition) was not activated before the Battle Phase began: refused. Activated: legal."""
    move = ev("card_moved", card="must_mole", to=[0, "hand"], reason="added", cause="salvage")
    refused_with([*salvage(move), *BATTLE], "GEN-03", "added to the hand", cards=CARDS)
    fold(*salvage(move), trigger("must_mole"), ev("chain_link_resolved", link=1), ev("chain_ended"), *BATTLE,
         cards=CARDS)


# == EFF-04: sent as a Summon's material or as a cost ===========================================================

def test_eff_04_a_synchro_material_s_trigger_in_its_window_not_after() -> None:
    """EFF-04, SPS-09: Test If Mole, a Synchro Material for Junk Warrior, activates its "if sent to
    the GY" trigger right after the summon: legal; after the Battle Phase began: refused. Before:
    accepted (a material's going was not noted)."""
    start = [SUMMONING, synchro_summon("if_mole")]
    assert fold(*start, trigger("if_mole"), cards=CARDS).chain[0].card == "if_mole"
    refused_with([*start, *BATTLE, trigger("if_mole")], "EFF-04", PAST, cards=CARDS)


MATERIALS = [position({"mzone": [mon("junk", 63977008), mon("m1", MAT_MOLE)], "extra": [card("warrior", 60800381)]},
                      turn=4),
             ev("special_summoned", player=0, card="warrior", zone=2, method="synchro", materials=["junk", "m1"])]


def test_eff_04_a_used_as_material_trigger_in_its_window_not_after() -> None:
    """EFF-04: Test Material Mole ("if this card is used as material"), a Synchro Material for
    Junk Warrior, activates right after the summon: legal; after the Battle Phase began: refused.
    Before: accepted."""
    assert fold(*MATERIALS, trigger("m1"), cards=CARDS).chain[0].card == "m1"
    refused_with([*MATERIALS, *BATTLE, trigger("m1")], "EFF-04", PAST, cards=CARDS)


COSTS = [position({"hand": [{"code": POT, "id": "pot"}]},
                  {"hand": [card("p1_mole", IF_MOLE)],
                   "szone": [{"code": MAGIC_JAMMER, "id": "jammer", "position": "set"}]}, turn=4),
         ev("activated", player=0, card="pot", zone=1),
         ev("activated", player=1, card="jammer", negates=1,
            costs=[{"card": "p1_mole", "to": "gy", "reason": "discarded"}]),
         ev("chain_link_resolved", link=2), ev("chain_link_negated", link=1, by=2),
         ev("card_moved", card="pot", to=[0, "gy"], reason="negated"),
         ev("card_moved", card="jammer", to=[1, "gy"], reason="resolved"), ev("chain_ended")]


def test_eff_04_a_card_discarded_as_a_cost_triggers_after_the_chain_not_after_the_duel_moved_on() -> None:
    """EFF-04, CHAIN-11: Test If Mole discarded for Magic Jammer's cost activates its "if sent to
    the GY" trigger after the chain: legal; after the Battle Phase began: refused. Before:
    accepted (a cost's card was not noted as sent)."""
    assert fold(*COSTS, trigger("p1_mole", 1), cards=CARDS).chain[0].card == "p1_mole"
    refused_with([*COSTS, *BATTLE, trigger("p1_mole", 1)], "EFF-04", PAST, cards=CARDS)


# == TRAP-04, SPELL-04: what stays on the field once resolved =================================================

STAYS = position({"szone": [{"code": ROYAL_DECREE, "id": "decree", "position": "set"},
                            {"code": MIRROR_FORCE, "id": "mirror", "position": "set"}],
                  "hand": [{"code": YAMI, "id": "yami"}]},
                 {"hand": [card("p1_ox", CELTIC)], "szone": [{"code": MAGIC_JAMMER, "id": "jammer", "position": "set"}]},
                 turn=4)


@pytest.mark.parametrize("activation, card, rule", [
    (ev("activated", player=0, card="decree"), "decree", "TRAP-04"),
    (ev("activated", player=0, card="yami", field_zone=True), "yami", "SPELL-04")], ids=["continuous-trap", "field"])
def test_trap_04_spell_04_a_card_that_stays_does_not_go_to_the_gy_as_resolved(activation: dict, card: str,
                                                                                rule: str) -> None:
    """TRAP-04: Royal Decree (a Continuous Trap), SPELL-04: Yami (a Field Spell) resolve; the
    record sends it to the GY "resolved": refused, it stays. Before: accepted. Sent by an effect
    (reason "sent", a cause) it may go; a Normal Trap, or a negated Continuous Trap, goes."""
    start = [STAYS, activation, ev("chain_link_resolved", link=1)]
    refused_with([*start, ev("card_moved", card=card, to=[0, "gy"], reason="resolved")], rule, "stays on the field",
                 cards=CARDS)
    fold(*start, ev("card_moved", card=card, to=[0, "gy"], reason="sent", cause=card), cards=CARDS)
    # TRAP-04 still sends what leaves: a Normal Trap once resolved, a Continuous Trap whose
    # activation was negated (TERM-14)
    fold(STAYS, ev("activated", player=0, card="mirror"), ev("chain_link_resolved", link=1),
         ev("card_moved", card="mirror", to=[0, "gy"], reason="resolved"), ev("chain_ended"), cards=CARDS)
    fold(STAYS, ev("activated", player=0, card="decree"),
         ev("activated", player=1, card="jammer", negates=1, costs=[{"card": "p1_ox", "to": "gy", "reason": "discarded"}]),
         ev("chain_link_resolved", link=2), ev("chain_link_negated", link=1, by=2),
         ev("card_moved", card="decree", to=[0, "gy"], reason="resolved"),
         ev("card_moved", card="jammer", to=[1, "gy"], reason="resolved"), ev("chain_ended"), cards=CARDS)


# == TRAP-04 in the EDOPro importer: "resolved" only for what the rules send =========================================

CTRAP = 7101
#: Player 0's Deck, bottom first: the Continuous Trap is third in the opening hand (sequence 2).
CTRAP_DECK = [5000 + i // 3 for i in range(37)] + [CTRAP, 5010, 5011]


def test_trap_04_a_continuous_trap_its_effect_sends_after_it_resolved_imports_as_sent() -> None:
    """TRAP-04: a Continuous Trap activated from the hand resolves; then, before the chain ends, an
    effect sends it to the GY (REASON_EFFECT). The importer said "resolved" (its link had
    resolved), which the rules refuse for a card that stays; now "sent", and the duel audits clean."""
    d1 = DECKS[1][0]
    KINDS[CTRAP] = 0x20004                                   # TYPE_TRAP | TYPE_CONTINUOUS
    try:
        stream = packet(MSG_START, struct.pack("<BII4H", 0, 8000, 8000, 40, 0, 40, 0))
        stream += deck_refresh(0, CTRAP_DECK) + deck_refresh(1, d1)
        stream += draw(0, CTRAP_DECK[::-1][:5]) + draw(1, d1[::-1][:5]) + packet(MSG_NEW_TURN, bytes([0]))
        for phase in (0x1, 0x2, 0x4):
            stream += packet(MSG_NEW_PHASE, struct.pack("<H", phase))
        stream += move(CTRAP, loc(0, HAND, 2, 0xA), loc(0, SZONE, 0, 0x1), 0)
        stream += packet(MSG_CHAINING, struct.pack("<I", CTRAP) + loc(0, SZONE, 0, 0x1)
                         + struct.pack("<BBIQI", 0, SZONE, 0, stringid(CTRAP, 0), 1))
        stream += packet(MSG_CHAINED, bytes([1])) + packet(MSG_CHAIN_SOLVING, bytes([1]))
        stream += packet(MSG_CHAIN_SOLVED, bytes([1]))
        stream += move(CTRAP, loc(0, SZONE, 0, 0x1), loc(0, GRAVE, 0, 0x5), REASON_EFFECT)
        stream += packet(MSG_CHAIN_END, b"") + packet(MSG_WIN, bytes([1]))
        result = import_yrpx(replay(stream=stream, decks=[(CTRAP_DECK, []), DECKS[1]]))
    finally:
        del KINDS[CTRAP]
    moved = [e for e in result.events if e.kind == "card_moved" and e.to.zone == "gy"]
    assert [(e.card, e.reason) for e in moved] == [("p0.m37", "sent")]
    assert [v.rule for v in audit(result.events, result.cards).violations] == []


# == EFF-04, SPS-06: a record's "trigger" may be a Quick Effect ===============================================

KNIGHT = 990396
#: Like Psychic Lifetrancer or the Tearlaments: "if this card is Special Summoned: you can ..."
#: and a Quick Effect ("during either player's turn: you can ...").
KNIGHT_CARDS = CARDS.merged(CardDB([CardFacts(code=KNIGHT, name="Test Quick Knight", type=0x21, level=4,
                                              atk=1800)])).with_effects({
    KNIGHT: (EffectFact(("single", "trigger_o"), "EVENT_SPSUMMON_SUCCESS", ("delay",), condition=True),
             EffectFact(("quick_o",), "EVENT_FREE_CHAIN", (), ("destroy",), ranges=("mzone",), condition=True))})


ATTACKED = [position({"mzone": [mon("knight", KNIGHT)]}, {"mzone": [mon("p1_vorse", VORSE)]}, turn=5, turn_player=1,
                     phase="battle", step="battle"),
            ev("attack_declared", player=1, attacker="p1_vorse", target="knight")]
SUMMONED = [position({"hand": [card("knight", KNIGHT)]}, turn=4),
            ev("special_summoned", player=0, card="knight", zone=0, method="effect"), *BATTLE]


@pytest.mark.parametrize("start", [ATTACKED, SUMMONED], ids=["on-the-field-since-before", "summoned-earlier"])
def test_eff_04_a_trigger_recorded_for_a_card_with_a_quick_effect_is_undecided(start: list[dict]) -> None:
    """EFF-04: a card with a trigger on its own Special Summon and a Quick Effect activates an
    effect recorded as a "trigger" as the opponent's monster attacks it (on the field since an
    earlier turn), or after the Battle Phase began (Special Summoned in Main Phase 1). It may be
    the Quick Effect (the EDOPro importer names any Chain Link 1 outside an open game state a
    trigger: its stream does not say which effect it was): accepted. Before: refused ("nothing
    they answer has happened to it this turn", "came before the duel moved on"), 27 calls on the
    real EDOPro duels folded with the current ProjectIgnis scripts, all of plays the engine made."""
    trigger_ = ev("activated", player=0, card="knight", effect_type="trigger")
    assert fold(*start, trigger_, cards=KNIGHT_CARDS).chain[0].card == "knight"
