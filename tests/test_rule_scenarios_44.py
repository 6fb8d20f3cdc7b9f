"""Duel scenarios a head judge rules on (issue 25, twenty-fourth pass: judge24): the Xyz materials
of an Xyz monster used as the Link Material, or the Tribute, of a summon by procedure. They go to
the GY when their Xyz monster leaves the field (NIS-05), while the summon is made: their "if sent
to the GY" triggers answer the summon (EFF-04), their optional "when" ones miss the timing as the
summon's own materials' and Tributes' do (SPS-09, SUM-07, NIS-06).

Refused though legal (or let through though illegal), now right:

* EFF-04, NIS-05: a table records the Xyz materials going to the GY first ("by the rules", or
  "detached"), then their Xyz monster as a Link Material (listed in the summon, or moved with
  reason ``material``): Test If Mole's "if sent to the GY" trigger after the Link Summon was
  refused, EFF-04 (the summon taken as a new action past its window), and the Link Summon itself
  was flagged GEN-03 when Test Must Grave Mole's mandatory "if" trigger was owed (taken as passed
  by it). It is legal: the materials went for the summon, their triggers answer it. Now legal. A
  record telling the same going as "sent" was already right.
* EFF-04, SUM-07, GEN-03: the same before a Tribute Summon (the Xyz monster Tributed): Test If
  Mole's "if" trigger after the summon, refused EFF-04; the summon flagged GEN-03 for Test Must
  Grave Mole's trigger. Now both legal; that mandatory trigger is owed after the summon (Link or
  Tribute), so a Battle Phase entered without it is GEN-03 there.
* SPS-09, SUM-07, NIS-06: the Xyz materials the fold buries with an Xyz monster used as Link
  Material (listed, or moved with reason ``material``) or Tributed: Test Mole's optional "when
  sent to the GY" trigger after the summon was accepted. It missed the timing: the summon was the
  last thing to happen. Now refused, SPS-09 (Link) or SUM-07 (Tribute), as when the record tells
  their going first (which was refused EFF-04 before: the rule, not the verdict, was wrong).

Probed and found right, each as a recorded event sequence (kept out of the suite: they pass on
main; legal accepted, illegal refused with the ID): EFF-04 Test If Mole's "if" trigger after the
fold buried it with its Xyz monster used as Link Material or Tributed (legal); EFF-04 its "if" and
"when" triggers after its going "by the rules" when no summon followed but a new phase (refused);
LINK-01 an Xyz material itself named as a Link Material (refused); SPS-07/EFF-04 the going told as
"sent" before the Link Summon (legal). The 100 real EDOPro duels fold with no violation, with and
without the effect facts of ProjectIgnis' CardScripts: none before, none after.
"""
from __future__ import annotations

import pytest

from test_rule_scenarios_27 import ev
from test_rule_scenarios_39 import _trigger, card, trigger
from test_rule_scenarios_43 import CARDS_43
from test_rules_battle import mon
from test_rules_effects import IF_MOLE, MOLE

from duel import CELTIC, SUMMONED_SKULL, UTOPIA, fold, position, refused_with
from ygoreplay.cards import CardDB, CardFacts

LINK_TWO, MUST_GRAVE_MOLE = 990441, 990442
#: This file's own cards: a Link-2 ("2 monsters") and "if this card is sent to the GY: draw 1 card"
#: (mandatory).
CARDS = CARDS_43.merged(CardDB([
    CardFacts(code=LINK_TWO, name="Test Link Two", type=0x4000021, level=2, atk=1500, defense=None,
              link_markers=0x28),
    CardFacts(code=MUST_GRAVE_MOLE, name="Test Must Grave Mole", type=0x21, level=2, atk=1000)])).with_effects(
    {MUST_GRAVE_MOLE: _trigger("EVENT_TO_GRAVE", mandatory=True)})


def xyz_board(*others: dict, **zones) -> dict:
    """Player 0's Number 39: Utopia with Test If Mole, Test Mole and Test Must Grave Mole as its
    Xyz materials, ``others`` beside it."""
    utopia = {"code": UTOPIA, "id": "utopia", "position": "attack",
              "materials": [card("if_mole", IF_MOLE), card("mole", MOLE), card("must", MUST_GRAVE_MOLE)]}
    return position({"mzone": [utopia, *others], **zones}, turn=4)


LINK_BOARD = xyz_board(mon("celtic", CELTIC), extra=[card("link", LINK_TWO)])
TRIBUTE_BOARD = xyz_board(hand=[card("skull", SUMMONED_SKULL)])
LINK = ev("special_summoned", player=0, card="link", zone=5, method="link", position="attack")
#: The Link Summon, its materials named, or moved with reason "material" right before it.
LINK_SUMMONS = {"listed": [{**LINK, "materials": ["utopia", "celtic"]}],
                "moved": [ev("card_moved", card="utopia", to=[0, "gy"], reason="material"),
                          ev("card_moved", card="celtic", to=[0, "gy"], reason="material"), LINK]}
TRIBUTE = ev("normal_summoned", player=0, card="skull", zone=1, tributes=["utopia"])


def materials_first(reason: str) -> list[dict]:
    """The recorder tells Utopia's materials going to the GY first, then Utopia's own going."""
    return [ev("card_moved", card=m, to=[0, "gy"], reason=reason) for m in ("if_mole", "mole", "must")]


@pytest.mark.parametrize("how", ["listed", "moved"])
@pytest.mark.parametrize("reason", ["rule", "detached"])
def test_eff_04_an_if_trigger_of_an_xyz_material_told_first_then_its_monster_as_link_material_is_legal(
        reason: str, how: str) -> None:
    """EFF-04, NIS-05: Utopia's materials go to the GY (recorded first, "by the rules" or
    "detached"), Utopia is a Link Material of Test Link Two; Test If Mole's "if sent to the GY"
    trigger after the Link Summon: legal, chained to Test Must Grave Mole's mandatory one (CHAIN-08).
    Before: the Link Summon was refused GEN-03 (Test Must Grave Mole's trigger taken as passed by
    it), and without it Test If Mole's trigger EFF-04 (the summon taken as a new action)."""
    state = fold(LINK_BOARD, *materials_first(reason), *LINK_SUMMONS[how], trigger("must"),
                 trigger("if_mole", simultaneous=True), cards=CARDS)
    assert [link.card for link in state.chain] == ["must", "if_mole"]
    assert state.cards["link"].zone == "mzone" and state.cards["utopia"].zone == "gy"


def test_eff_04_gen_03_triggers_of_an_xyz_material_told_first_then_its_monster_tributed_are_legal() -> None:
    """EFF-04, SUM-07, GEN-03: Utopia's materials go to the GY "by the rules" (recorded first),
    Utopia is Tributed for Summoned Skull; Test If Mole's "if" trigger and Test Must Grave Mole's
    mandatory one after the summon: legal. Before: the summon was refused GEN-03 (the mandatory
    trigger taken as passed by it), and without it the "if" trigger EFF-04."""
    state = fold(TRIBUTE_BOARD, *materials_first("rule"), TRIBUTE, trigger("must"),
                 trigger("if_mole", simultaneous=True), cards=CARDS)
    assert [link.card for link in state.chain] == ["must", "if_mole"]
    assert state.cards["skull"].zone == "mzone"


@pytest.mark.parametrize("how", ["listed", "moved"])
def test_sps_09_a_when_trigger_of_an_xyz_material_buried_with_a_link_material_refused(how: str) -> None:
    """SPS-09, NIS-06, NIS-05: Utopia, Test Mole under it, is a Link Material (named, or moved with
    reason "material"); the fold buries its materials with it. Test Mole's optional "when sent to
    the GY" trigger after the Link Summon: refused, it missed the timing (the summon came after
    its going). Before: accepted. Test If Mole's "if" trigger: legal."""
    refused_with([LINK_BOARD, *LINK_SUMMONS[how], trigger("mole")], "SPS-09", "summon procedure", cards=CARDS)
    assert fold(LINK_BOARD, *LINK_SUMMONS[how], trigger("if_mole"), cards=CARDS).chain[0].card == "if_mole"


@pytest.mark.parametrize("how", ["listed", "moved"])
def test_sps_09_a_when_trigger_of_an_xyz_material_told_first_then_a_link_summon_refused(how: str) -> None:
    """SPS-09: the same, the recorder telling the materials' going first ("by the rules"):
    refused SPS-09, the timing missed. Before: the Link Summon refused GEN-03 (Test Must Grave
    Mole's trigger taken as passed by it); without it, Test Mole's refused EFF-04, the wrong rule."""
    refused_with([LINK_BOARD, *materials_first("rule"), *LINK_SUMMONS[how], trigger("mole")], "SPS-09",
                 "summon procedure", cards=CARDS)


@pytest.mark.parametrize("first", [False, True])
def test_sum_07_a_when_trigger_of_an_xyz_material_of_a_tribute_refused(first: bool) -> None:
    """SUM-07, NIS-06, NIS-05: Utopia, Test Mole under it, is Tributed for Summoned Skull (its
    materials buried by the fold, or told first "by the rules"); Test Mole's optional "when" trigger
    after the summon: refused, it missed the timing. Before: accepted (buried by the fold), or the
    summon refused GEN-03 (told first, Test Must Grave Mole's trigger taken as passed by it). Test
    If Mole's "if" trigger after the summon: legal."""
    before = materials_first("rule") if first else []
    refused_with([TRIBUTE_BOARD, *before, TRIBUTE, trigger("mole")], "SUM-07", "summon procedure", cards=CARDS)
    assert fold(TRIBUTE_BOARD, *before, TRIBUTE, trigger("if_mole"), cards=CARDS).chain[0].card == "if_mole"


@pytest.mark.parametrize("summon", [pytest.param([TRIBUTE], id="tribute"),
                                    pytest.param(LINK_SUMMONS["listed"], id="link")])
def test_gen_03_a_mandatory_trigger_of_an_xyz_material_told_first_is_owed_after_the_summon(summon: list) -> None:
    """GEN-03, EFF-04: Utopia's materials go "by the rules" (recorded first), Utopia is Tributed or
    a Link Material; Test Must Grave Mole's mandatory trigger is owed after the summon, not before:
    the Battle Phase entered without it is refused GEN-03 there. Before: the summon itself was
    refused GEN-03 (the trigger taken as passed by it)."""
    board = TRIBUTE_BOARD if summon == [TRIBUTE] else LINK_BOARD
    refused_with([board, *materials_first("rule"), *summon, ev("phase_entered", phase="battle")], "GEN-03",
                 "Test Must Grave Mole", cards=CARDS)
