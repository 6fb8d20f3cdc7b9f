"""A second head judge's review of the eighteenth pass (issue 25: judge18b), and scenarios a head
judge rules on, recorded as a table's recorder writes them.

Upheld (judge18's rulings, read against the catalogue and EDOPro's core):

* SPELL-10 ("apply only while face-up in their zone, unless the card says otherwise"), TRAP-05
  ("it applies only while face-up"): a Set Spell or Trap activates no effect of its own; Set, it
  is activated as a card. The exception is the card's own text, which EDOPro's scripts declare
  with ``EFFECT_FLAG_SET_AVAILABLE``: kept.
* COUNTER-01 ("counters are markers required by effects"; CONF-20): a face-down card has no
  effect that applies, so none that lets it receive one; EDOPro's ``card::is_can_add_counter``
  refuses a card not face-up on the field, and ``card::reset`` clears the counters on
  ``RESET_TURN_SET`` (with the card's other counters' resets): both upheld.
* POS-04 ("effects that change a field monster's ... ATK/DEF do not apply to it"): a monster
  turned face-down is back to its printed values (``RESETS_STANDARD`` holds ``RESET_TURN_SET``);
  a lasting effect that applies again once it is face-up is recorded again: upheld.

Offered though legal, and left out though legal:

* LINK-02 (the printed count): the recorder's *Link Summon* suggestions took every Link-2 or
  higher monster to list 2 or more materials (judge13's floor), while the fold takes any
  materials that total the rating (it reads no card text). World Ocean Dragon - Zealantis (Link-4,
  "1+ Effect Monsters") was never offered from one Link-4 monster. Now the floor is the ``min``
  the card's script passes to ``Link.AddProcedure`` (the script reader keeps it on the helper
  fact); without a script read, 2 for a Link-2 or higher as before.

Let through though illegal:

* EFF-05: a Flip effect is a trigger on a flip face-up. Man-Eater Bug Normal Summoned face-up, or
  Special Summoned face-up, activating its Flip effect was accepted: only a face-down monster not
  flipped this turn was judged. A set-up position counts its face-up monsters as maybe flipped.

Refused though legal:

* BATTLE-03: each monster attacks once per *Battle Phase*. In a second Battle Phase this turn (its
  card cited past TURN-01; EDOPro's ``EFFECT_BP_TWICE``: Unlucky Report, a Gladiator Beast's), a
  monster that attacked in the first was refused: the attack was counted per turn.

Probed and found right (kept out of the suite: they pass on the baseline): equal ATK (both
destroyed; one or none refused, DMG-02), 0 ATK against 0 ATK (neither destroyed; both refused,
DMG-03), a 0 ATK direct attack, a Defense Position monster with higher DEF (damage to the attacker); the Damage Step's sub-steps
(NIS-03: damage calculated in the Battle Step or twice, a Damage Step with no attack, an attack
declared in it, the End Step with a monster destroyed by battle still on the field, BATTLE-14, or
battle damage never applied, DMG-10);
Main Phase 2 skipped (Battle to End), Main Phase 1 to 2 without a Battle Phase (TURN-07), a second
Battle Phase uncited (TURN-01); LP halved or doubled (``set``), a cost of more LP than a player has
(CHAIN-11), damage past 0, a gain after the loss (WIN-01), both players at 0 LP (a draw; a winner
refused, WIN-04), one deck-out and one 0 LP together (a draw), both players drawing from empty Decks
by Card Destruction (a draw), a draw by Pot of Greed from a Deck too short (deck_out, WIN-02), a
Normal Spell destroyed in its chain still drawing; Quick Effects in the Damage Step by their
scripts (an ATK/DEF Quick-Play before damage calculation, a Counter Trap chained to it; Mystical
Space Typhoon and Mirror Force refused, BATTLE-09; the ATK/DEF one after damage calculation refused,
BATTLE-10; without scripts undecided, CONF-18); a trigger chained to the activation whose cost sent
its card to the GY (CHAIN-02), a Flip effect after damage calculation (BATTLE-12: not targeting a
monster destroyed in that battle); a negated Continuous Spell left
on the field (SPELL-04); an Equip Spell whose monster was turned face-down in its chain, or later
(SPELL-07); a Field Spell activated or Set over your own (the old to the GY, not destroyed, SPELL-11)
and over the opponent's (theirs stays); Extra Monster Zones and Link arrows under each rule set (both
players' arrows open a zone, test_rulesets.py); SEGOC and "when"/"if" timing (NIS-02/06,
test_rules_effects.py, test_rule_scenarios_33.py). Not changed: a move from the Damage Step to its
End Step with no damage calculation (an attack stops when its target leaves; the record does not
say why), a trigger recorded from a monster destroyed by battle before it reaches the GY (D.D.
Warrior Lady's kind activate there; without a script the fold cannot tell), an LP cost of all of a
player's LP (EDOPro's ``is_player_can_pay_lpcost`` takes it), a second activation of a Flip
effect after one flip (EFF-05: the fold keeps which monsters were flipped this turn, not how many of
their Flip effects were used; a card with two Flip effects would be refused if one flip allowed one).
"""
from __future__ import annotations

from test_rule_scenarios_27 import ev
from test_rules_battle import mon

from duel import BATTLE_OX, CARDS, CELTIC, DECODE_TALKER, KURIBOH, VORSE, fold, position, refused_with

from ygoreplay.actions import actions
from ygoreplay.card_scripts import read_script
from ygoreplay.cards import CardDB, CardFacts

# == LINK-02: the Link Summon offered follows the material count its script gives ==================

ZEALANTIS, FIREWALL, PROXY_DRAGON = 101110050, 5043010, 22862454
_LINK_EFFECT = 0x4000021                         # Monster | Effect | Link
LINK_4S = CARDS.merged(CardDB([
    CardFacts(code=ZEALANTIS, name="World Ocean Dragon - Zealantis", type=_LINK_EFFECT, level=4, atk=2500,
              defense=None, attribute=2, race=0x40000, link_markers=170),
    CardFacts(code=FIREWALL, name="Firewall Dragon", type=_LINK_EFFECT, level=4, atk=2500, defense=None,
              attribute=16, race=0x1000000, link_markers=170)]))
#: As their scripts call the shared Link procedure: Zealantis "1+ Effect Monsters", Firewall Dragon
#: "2+ monsters", Decode Talker "2+ Effect Monsters".
SCRIPTS = {ZEALANTIS: "Link.AddProcedure(c,aux.FilterBoolFunctionEx(Card.IsType,TYPE_EFFECT),1)",
           FIREWALL: "Link.AddProcedure(c,nil,2)",
           DECODE_TALKER: "Link.AddProcedure(c,aux.FilterBoolFunctionEx(Card.IsType,TYPE_EFFECT),2)"}
SCRIPTED = LINK_4S.with_effects({code: read_script(f"function s.initial_effect(c)\n\tc:EnableReviveLimit()\n\t{call}\nend")
                                 for code, call in SCRIPTS.items()})
LINK_4_BOARD = position({"mzone": [{"code": FIREWALL, "id": "fw"}, {"code": CELTIC, "id": "c1"},
                                   {"code": KURIBOH, "id": "kb"}],
                         "extra": [{"code": ZEALANTIS, "id": "zeal"}, {"code": DECODE_TALKER, "id": "dt"}]})


def link_sets(card: str, cards: CardDB) -> list[list[str]]:
    """Every set of materials the *Link Summon* offered for ``card`` holds (the tap's first); []
    when none is offered."""
    offer = next((a for a in actions(fold(LINK_4_BOARD, cards=cards), card=card) if a.label == "Link Summon"), None)
    return [] if offer is None else offer.choices.get("materials", [offer.event["materials"]])


def test_link_02_the_script_reader_keeps_the_fewest_materials_of_the_link_procedure() -> None:
    """The helper fact of ``Link.AddProcedure(c,f,1)`` keeps its ``min``; any other helper, or a
    ``min`` written as no plain number, keeps none."""
    (fact,) = [f for f in SCRIPTED.effects(ZEALANTIS) if f.code == "Link.AddProcedure"]
    assert fact.fewest_materials == 1 and "1+ materials" in fact.describe()
    unknown = read_script("function s.initial_effect(c)\n\tLink.AddProcedure(c,nil,s.min)\n\tPendulum.AddProcedure(c)\nend")
    assert [f.fewest_materials for f in unknown] == [0, 0]


def test_link_02_zealantis_is_offered_from_one_link_4_monster_decode_talker_is_not() -> None:
    """LINK-02/03: World Ocean Dragon - Zealantis (Link-4, "1+ Effect Monsters": its script's
    ``min`` 1) from Firewall Dragon alone, which counts 4 by its rating: offered, first. Before:
    never offered (every Link-2 or higher was taken to list 2 or more materials). Decode Talker
    (Link-3, "2+ Effect Monsters": ``min`` 2) is never offered from one monster; without a script
    read the floor stays 2 for a Link-2 or higher, and Zealantis is then not offered (no 2 or more
    of these total 4)."""
    assert link_sets("zeal", SCRIPTED)[0] == ["fw"]
    sets = link_sets("dt", SCRIPTED)
    assert sets and all(len(s) >= 2 for s in sets) and ["fw"] not in sets
    assert link_sets("zeal", LINK_4S) == []


# == EFF-05: a Flip effect wants a flip ============================================================

MAN_EATER = 54652250
FLIP_BOARD = position({"hand": [{"code": MAN_EATER, "id": "meb"}], "mzone": [None, mon("meb2", MAN_EATER, "set")]},
                      {"mzone": [mon("ox", BATTLE_OX)]}, turn=4)
EATS_OX = ev("activated", player=0, card="meb", effect_type="flip", targets=["ox"])
NOT_FLIPPED = "is face-up but was not flipped face-up this turn"


def test_eff_05_a_monster_summoned_face_up_activates_no_flip_effect() -> None:
    """EFF-05: a Flip effect is a trigger on a flip face-up (Flip Summon, attacked, an effect).
    Man-Eater Bug Normal Summoned face-up, or Special Summoned face-up by an effect, was never
    flipped: its Flip effect is refused. Before: accepted (only a face-down monster was judged).
    Flip Summoned, the other copy's is legal, and a monster set up face-up may have been flipped
    this turn (a set-up does not say), so its effect stands."""
    refused_with([FLIP_BOARD, ev("normal_summoned", player=0, card="meb", zone=0), EATS_OX], "EFF-05", NOT_FLIPPED)
    refused_with([FLIP_BOARD, ev("special_summoned", player=0, card="meb", zone=0, cause="reborn"), EATS_OX],
                 "EFF-05", NOT_FLIPPED)
    state = fold(FLIP_BOARD, ev("flip_summoned", player=0, card="meb2"),
                 ev("activated", player=0, card="meb2", effect_type="flip", targets=["ox"]))
    assert state.chain[0].card == "meb2"
    set_up = position({"mzone": [mon("meb", MAN_EATER)]}, {"mzone": [mon("ox", BATTLE_OX)]}, turn=4)
    assert fold(set_up, EATS_OX).chain[0].card == "meb"


# == BATTLE-03: once per Battle Phase, so once more in a second one ================================

SECOND = position({"mzone": [mon("vorse", VORSE)]}, {"mzone": [mon("ox", BATTLE_OX)]}, turn=3)
#: Vorse Raider (1900) destroys Battle Ox (1700) in the first Battle Phase; Main Phase 2; a second
#: Battle Phase, its card cited (EDOPro's EFFECT_BP_TWICE: Unlucky Report, a Gladiator Beast's).
FIRST_BATTLE_THEN_SECOND = [
    ev("phase_entered", phase="battle"), ev("step_entered", step="battle"),
    ev("attack_declared", player=0, attacker="vorse", target="ox"), ev("step_entered", step="damage"),
    ev("damage_calculated", destroyed=["ox"], damage=[0, 200]),
    ev("life_points_changed", player=1, amount=200, reason="battle_damage"),
    ev("card_moved", card="ox", to=[1, "gy"], reason="battle"), ev("phase_entered", phase="main2"),
    ev("phase_entered", phase="battle", cite={"card": "vorse", "effect": "conduct the Battle Phase twice"}),
    ev("step_entered", step="battle")]
DIRECT = [ev("attack_declared", player=0, attacker="vorse"), ev("step_entered", step="damage"),
          ev("damage_calculated", damage=[0, 1900]), ev("life_points_changed", player=1, amount=1900, reason="battle_damage"),
          ev("step_entered", step="battle")]


def test_battle_03_a_monster_attacks_again_in_a_second_battle_phase() -> None:
    """BATTLE-03: each monster attacks once per Battle Phase. In a second Battle Phase this turn
    (its card cited past TURN-01), Vorse Raider, which attacked in the first, attacks directly
    again. Before: refused as BATTLE-03 ("has already attacked this Battle Phase"), the attack
    counted per turn. A third attack in the same Battle Phase is still refused, and its attack
    still keeps it from a position change in Main Phase 2 (POS-08)."""
    state = fold(SECOND, *FIRST_BATTLE_THEN_SECOND, *DIRECT)
    assert state.sides[1].lp == 8000 - 200 - 1900
    refused_with([SECOND, *FIRST_BATTLE_THEN_SECOND, *DIRECT, ev("attack_declared", player=0, attacker="vorse")],
                 "BATTLE-03", "has already attacked this Battle Phase")
    refused_with([SECOND, *FIRST_BATTLE_THEN_SECOND, ev("phase_entered", phase="main2"),
                  ev("position_changed", player=0, card="vorse", position="defense")], "POS-08", "declared an attack")
