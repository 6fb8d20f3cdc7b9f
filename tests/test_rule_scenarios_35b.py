"""A second head judge's review of the nineteenth pass (issue 25: judge19b), and scenarios a head
judge rules on, recorded as a table's recorder writes them.

Upheld (judge19's rulings, read against the catalogue and EDOPro's core, edo9300/ygopro-core):

* EFF-05 ("a trigger on any flip face-up (Flip Summon, attacked, effect) ... If the flip was
  caused by an attack, it activates after damage calculation"): each flip triggers each Flip
  effect once. EDOPro raises ``EVENT_FLIP`` once per flip, and a trigger answers an event once; a
  flip in the Damage Step goes to the delayed chains (``core.flip_delayed``: ``new_fchain_b`` /
  ``new_ochain_b``), played after damage calculation, whether the monster is still on the field
  or in the GY.
* NIS-03 ("start of the Damage Step → before damage calculation → damage calculation → after
  damage calculation → end of the Damage Step"), BATTLE-02 ("Then go to the Damage Step and
  back"): EDOPro's ``DamageStep`` skips to its end (step 33) only on ``STATUS_ATTACK_CANCELED``,
  set in the Damage Step when the attacker leaves the Monster Zone or face-up Attack Position (no
  ``EFFECT_DEFENSE_ATTACK``), or either monster leaves the field or changes control; a negation
  (``Duel.NegateAttack``) sets it too. The fold's ``_battle_goes_on`` reads the same list.
* XMAT-02 ("Xyz materials are not cards on the field"): in EDOPro a material is in
  ``LOCATION_OVERLAY``, which no target selection reaches.

Refused under the wrong rule:

* POS-02 ("a monster in it ... becomes face-up Attack when attacked"), POS-04 ("when attacked,
  it is flipped to face-up Defense before damage calculation"): the face-down monster an attack
  targets, recorded turned (by no effect) to any other position, was judged a manual change by
  the turn player and refused as POS-07 "player 0 does not control Battle Ox" (or POS-09, SUM-10
  when its controller was named): true, and beside the point. EDOPro turns it by the rules in the
  Damage Step, ``current.position >> 1``: face-down Attack to face-up Attack, face-down Defense to
  face-up Defense. Now POS-02 or POS-04 says which position the rules give, and NIS-03 when the
  right flip is recorded before the Damage Step. Only refused records change their rule: the
  accepted ones (and the 100 real EDOPro duels) are as before.

Let through though illegal:

* XMAT-02 ("Xyz materials are not cards on the field"): a material under its Xyz monster
  recorded sent to the GY "destroyed" by an effect (Celtic Guardian under Utopia) was accepted;
  EDOPro's ``card::is_destructable`` returns FALSE for a card with an ``overlay_target``. A
  material is detached (XMAT-01) or leaves with its monster (NIS-05), never destroyed.

Probed and found right (kept out of the suite: they pass on the baseline): the attacker turned to
Defense Position by an effect in the Battle Step or the Damage Step, then the End Step (accepted:
EDOPro cancels it), and damage calculated after it (POS-03); control of the attacker or the target
taken in the Damage Step, then the End Step (accepted); the target turned to Defense Position in
the Damage Step, then the End Step (NIS-03: the battle goes on); the Set target flipped face-up
Defense (accepted) or turned face-up Attack by an effect (accepted) in the Damage Step; a face-down
Attack target calculated without a recorded flip (judged flipped face-up); a Set monster not in
the battle flipped with no cause (POS-07: a manual change by the turn player, who does not control
it, is the right reading there); an Xyz material targeted by Mystical Space Typhoon (XMAT-02),
Utopia itself targeted (accepted), a material detached to the GY (accepted).

Outside the record (no tests; coverage.py lists them ``outside``): DECK-12 (the legal printed
languages, and sleeves in a mixed-language deck: the record names a card by passcode, one for
every printing), DECK-13 (proxies, stickers, markings: physical cards), MATCH-12 (LP with pen and
paper, not a calculator alone: how the table kept LP is not recorded; ``lpsheet.py`` makes the
paper record to sign), MATCH-13 (the tournament text's age: the match's policy names it,
``ocg-2005``, CONF-29).
"""
from __future__ import annotations

from test_rule_scenarios_27 import ev
from test_rules_battle import mon

from duel import BATTLE_OX, CELTIC, UTOPIA, VORSE, fold, position, refused_with

DECLARED = [ev("phase_entered", phase="battle"), ev("step_entered", step="battle"),
            ev("attack_declared", player=0, attacker="vorse", target="ox")]
DAMAGE_STEP = [*DECLARED, ev("step_entered", step="damage")]


def attacked(face_down: str) -> dict:
    """Vorse Raider's side and player 1's Battle Ox in ``face_down`` position."""
    return position({"mzone": [mon("vorse", VORSE)]}, {"mzone": [mon("ox", BATTLE_OX, face_down)]}, turn=4)


def turned(new: str, **fields) -> dict:
    return ev("position_changed", card="ox", position=new, **fields)


def test_pos_02_no_other_position_for_an_attacked_face_down_attack_monster() -> None:
    """POS-02: Battle Ox, in face-down Attack Position, is attacked; recorded turned face-up
    Defense (or face-down Defense) in the Damage Step with no effect: refused as POS-02, the rules
    make it face-up Attack. Before: POS-07 "player 0 does not control Battle Ox" (POS-09 with
    player 1 named). Turned face-up Attack it battles with its ATK: 1900 against 1700, 200
    battle damage owed."""
    says = "attacked in face-down Attack Position, becomes face-up Attack Position"
    for wrong in (turned("defense"), turned("set"), turned("defense", player=1)):
        refused_with([attacked("facedown_attack"), *DAMAGE_STEP, wrong], "POS-02", says)
    state = fold(attacked("facedown_attack"), *DAMAGE_STEP, turned("attack"),
                 ev("damage_calculated", destroyed=["ox"], damage=[0, 200]))
    assert state.cards["ox"].position == "attack" and state.attack.pending_damage == [0, 200]


def test_pos_04_an_attacked_set_monster_is_flipped_to_face_up_defense() -> None:
    """POS-04: Battle Ox, Set, is attacked; recorded turned face-up Attack in the Damage Step with
    no effect: refused, it is flipped to face-up Defense. Before: POS-07 "does not control" (SUM-10
    with player 1 named: a Flip Summon out of its turn). Flipped face-up Defense, it is destroyed
    by 1900 ATK against 1000 DEF."""
    says = "attacked in face-down Defense Position, is flipped to face-up Defense Position"
    for wrong in (turned("attack"), turned("attack", player=1)):
        refused_with([attacked("set"), *DAMAGE_STEP, wrong], "POS-04", says)
    state = fold(attacked("set"), *DAMAGE_STEP, turned("defense"),
                 ev("damage_calculated", destroyed=["ox"], damage=[0, 0]))
    assert state.cards["ox"].position == "defense"


def test_nis_03_the_attacked_monster_is_flipped_in_the_damage_step() -> None:
    """NIS-03 ("before damage calculation (flip face-down targets)"): the Set Battle Ox, attacked,
    recorded flipped face-up Defense in the Battle Step with no effect: refused, the flip is the
    Damage Step's. Before: POS-07 "does not control". Flipped by an effect there (a cause), it is
    legal."""
    refused_with([attacked("set"), *DECLARED, turned("defense")], "NIS-03",
                 "is flipped face-up in the Damage Step, before damage calculation")
    assert fold(attacked("set"), *DECLARED, turned("defense", cause="effect")).cards["ox"].position == "defense"


# == XMAT-02: an Xyz material is not destroyed =====================================================

XYZ = position(None,
               {"mzone": [{"code": UTOPIA, "id": "uto", "position": "attack",
                           "materials": [{"code": CELTIC, "id": "m1"}, {"code": BATTLE_OX, "id": "m2"}]}]}, turn=4)


def test_xmat_02_an_xyz_material_is_not_destroyed() -> None:
    """XMAT-02 ("Xyz materials are not cards on the field"): Celtic Guardian, a material under
    player 1's Utopia, recorded sent to the GY destroyed by an effect: refused. Before: accepted.
    EDOPro's ``card::is_destructable`` refuses a card with an ``overlay_target``. Detached by
    Utopia's cost it goes to the GY (XMAT-01); Utopia destroyed, its materials follow it there."""
    destroyed = ev("card_moved", card="m1", to=[1, "gy"], reason="destroyed", cause="effect")
    refused_with([XYZ, destroyed], "XMAT-02", "it is not destroyed")
    state = fold(XYZ, ev("card_moved", card="m1", to=[1, "gy"], reason="detached", cause="uto"),
                 ev("card_moved", card="uto", to=[1, "gy"], reason="destroyed", cause="effect"))
    assert [state.cards[c].zone for c in ("m1", "m2", "uto")] == ["gy", "gy", "gy"]
