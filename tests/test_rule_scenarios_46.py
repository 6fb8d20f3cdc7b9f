"""Duel scenarios a head judge rules on (issue 25, twenty-fourth pass, third file: judge24b): what
``test_rule_scenarios_45`` left open (a mandatory Flip effect an attack gave, never activated; a
Pendulum Summon's refusals said right; a renamed card keeping its passed Flip effect), then the
End Phase, the first turn, Normal Summon counts and the wins.

Let through though illegal, or refused saying the wrong thing, now right:

* EFF-05, BATTLE-12 (a Flip effect is mandatory; one an attack's flip gave is activated in that
  attack's Damage Step): Test Flipper ("FLIP: draw 1 card", mandatory, no condition, cost or
  target), Set, attacked and destroyed, never activated its Flip effect, and the Damage Step ended
  (the next Battle Step, Main Phase 2): accepted (mandatory triggers are not tracked in the Damage
  Step: BATTLE-09). Now refused EFF-05 where that Damage Step ends. Activated and resolved in it:
  legal as before.
* PEND-03: a Pendulum Summon in the Battle Phase was refused saying "an pendulum Special Summon
  needs an open game state" (the sentence built from the method's name; translated "Pendulum
  Special Summon", not "Pendulum Summon"). Now "a Pendulum Summon needs an open game state in your
  own Main Phase" (and "an inherent Special Summon" for SPS-07), each its own sentence.
* SPS-05, XYZ-01, SPELL-02, EFF-02, PEND-02: the same sentence builder elsewhere: "a xyz Summon
  places the monster face-up" (an Xyz Summon Set), "a Xyz Summon is made in your own Main Phase"
  (in the Battle Phase), "a equip Spell is activated" (Axe of Despair in the Battle Phase), "an
  pendulum effect is activated" (Stargazer Magician's Pendulum Effect in the Battle Phase), "an
  ignition effect"; the translations kept the English sub-types the catalogue lacks ("equip魔法",
  "field", "normal"). Now each
  names the summon, Spell or effect with its article and capitals ("an Xyz Summon", "an Equip
  Spell", "a Pendulum Effect"), a phrase translated whole. The same for "is not a Xyz monster",
  "a Xyz Summon brings it from the Extra Deck", "a Xyz Summon takes the monster from the
  summoner's own" (a Synchro monster, one in the GY, the opponent's, Xyz Summoned).
* PEND-03: a Pendulum Summon of player 0's card, recorded with no player, in player 1's turn
  (player 0's Scales set) was refused saying a Pendulum Summon needs a card in both Pendulum Zones:
  the event is the turn player's (player 1's, as every event with no player: base.py, and
  ``test_scenarios_battle``'s ruling that a procedure summons the summoner's own monster), whose
  zones are empty, but the reason is that the card is not theirs. Now said so (the card's
  ownership is judged before the Scales). Recorded as player 0's: "it is not their turn"
  (PEND-03 through PRIO-06's open game state), as before.
* BATTLE-12: a card the view renames (it went where it can no longer be followed) kept its flips
  and used Flip effects under the new id but not the Flip effect its attack's Damage Step passed:
  Man-Eater Bug, flipped by an attack, its effect not activated in that Damage Step, renamed, then
  activating it was accepted. Now refused BATTLE-12, as under its old id.

Probed and found right, each as a recorded event sequence (kept out of the suite: they pass on
main; legal accepted, illegal refused with the ID): BATTLE-02 a direct attack while the opponent
controls a face-down monster, one in the Main Phase or the End Step (refused), one into an empty
field (legal); POS-03 an attack from Defense Position (refused); POS-07/08/09 a second manual
change, one of the opponent's monster, one after attacking, one to face-down (refused); SUM-11 a
monster Set this turn turned face-up (refused); TURN-06, TURN-04, SUM-01 a Set monster in the Battle
Phase, a Spell Set or a Normal Summon in the End Phase, a Normal Summon in the opponent's turn
(refused); SUM-04, SUM-06 two Tributes for a Level 6, the opponent's monster or Token Tributed
(refused); NIS-04 a Battle Phase on turn 1, the first player 0 or 1 (refused); TURN-07 Main Phase 2
after the End Phase (refused); HAND-01 a discard from 6 cards, of a card not in the hand, by the
opponent (refused); SPELL-11 a new Field Spell activated or Set over one's own (legal, the old one
sent by the fold), beside the opponent's (legal), the old one recorded destroyed (refused); RIT-02
the Ritual monster its own Tribute, the Ritual Spell a Tribute, a second Ritual Summon by one
Spell (refused), in Defense Position (legal); SPS-05 a Ritual or Fusion Summon face-down
(refused); FUS-02 Polymerization its own material (refused); FUS-01 a Fusion Summon after its
chain ended (refused); SPELL-02 a Ritual Spell in the opponent's turn (refused); POS-06 an Equip
Spell on a face-down monster (refused); WIN-01 a player at 0 LP in the middle of a chain, a link
resolved after it or the other player named the winner (refused), the duel ended for the other
(legal). The 100 real EDOPro duels fold with no violation, with and
without the effect facts of ProjectIgnis' CardScripts: none before, none after.
"""
from __future__ import annotations

import pytest

from test_rule_scenarios_27 import ev
from test_rule_scenarios_29 import MAN_EATER, TO_DAMAGE_STEP
from test_rule_scenarios_39 import card
from test_rule_scenarios_45 import FLIP_EFFECT, FLIPPED
from test_rules_battle import calc, mon, step, to_gy
from test_rules_card_text import TEXT

from duel import AXE, CELTIC, STARDUST, STARGAZER, UTOPIA, TIMEGAZER, fold, position, refused_with
from ygoreplay import i18n
from ygoreplay.events import from_dict
from ygoreplay.rules import RuleViolation, apply


# == EFF-05, BATTLE-12: a mandatory Flip effect an attack gave, never activated ====================

@pytest.mark.parametrize("later", [
    pytest.param([step("battle")], id="next-battle-step"),
    pytest.param([ev("phase_entered", phase="main2")], id="main-phase-2"),
])
def test_eff_05_a_mandatory_flip_effect_an_attack_gave_never_activated_refused(later: list) -> None:
    """EFF-05, BATTLE-12: Test Flipper, flipped by Vorse Raider's attack and destroyed by it, never
    activates its mandatory Flip effect; the Damage Step ends: refused EFF-05 there. Before:
    accepted. Activated in that Damage Step and resolved: legal."""
    refused_with([*FLIPPED, to_gy("flipper", 1), *later], "EFF-05", "not activated before that Damage Step ended",
                 cards=TEXT)
    resolved = [FLIP_EFFECT, ev("chain_link_resolved", link=1), ev("chain_ended")]
    assert fold(*FLIPPED, to_gy("flipper", 1), *resolved, *later, cards=TEXT).cards["flipper"].zone == "gy"


# == PEND-03: a Pendulum Summon's refusals said right ================================================

def pendulum_board(turn_player: int, phase: str = "main1") -> dict:
    """Player 0 has Stargazer (Scale 1) and Timegazer Magician (Scale 8) in the Pendulum Zones and
    Celtic Guardian (Level 4) in the hand."""
    return position({"hand": [card("celtic", CELTIC)],
                     "szone": [card("sg", STARGAZER), None, None, None, card("tg", TIMEGAZER)]},
                    turn=5, turn_player=turn_player, phase=phase)


PEND_SUMMON = ev("special_summoned", player=0, card="celtic", zone=0, method="pendulum", position="attack")


def test_pend_03_a_pendulum_summon_in_the_battle_phase_refused_in_plain_words() -> None:
    """PEND-03, PRIO-06: player 0 Pendulum Summons Celtic Guardian in their Battle Phase: refused,
    "a Pendulum Summon needs an open game state in your own Main Phase". Before: "an pendulum
    Special Summon". In Main Phase 1: legal."""
    v = refused_with([pendulum_board(0, "battle"), PEND_SUMMON], "PEND-03",
                     "a Pendulum Summon needs an open game state in your own Main Phase: it is the Battle Phase")
    said = said_in_every_language(v.message)
    assert all("pendulum" not in text.lower() and "Special Summon" not in text for text in said.values()), said
    assert "ペンデュラム召喚" in said["ja"] and "펜듈럼 소환" in said["ko"]
    assert "灵摆召唤" in said["zh-Hans"] and "靈擺召喚" in said["zh-Hant"]
    assert fold(pendulum_board(0), PEND_SUMMON).cards["celtic"].zone == "mzone"


def said_in_every_language(message: str) -> dict[str, str]:
    """``message`` as a reader of each translated language reads it."""
    said = {}
    for language in ("ja", "ko", "zh-Hans", "zh-Hant"):
        with i18n.using(language):
            said[language] = i18n.said(message)
    return said


IN_BATTLE = {"phase": "battle", "step": "battle"}
XYZ_BOARD = {"mzone": [mon("a", CELTIC), mon("b", CELTIC)], "extra": [card("u", UTOPIA)]}
XYZ_SUMMON = ev("special_summoned", player=0, card="u", zone=2, method="xyz", position="attack", materials=["a", "b"])


@pytest.mark.parametrize("events, rule, says, word", [
    pytest.param([position(XYZ_BOARD), ev("special_summoned", player=0, card="u", zone=2, method="xyz", position="set",
                                          materials=["a", "b"])],
                 "SPS-05", "an Xyz Summon places the monster face-up", "xyz", id="sps-05-xyz-set"),
    pytest.param([position({**XYZ_BOARD, "extra": [card("u", STARDUST)]}), XYZ_SUMMON], "XYZ-01",
                 "Stardust Dragon is not an Xyz monster, so it cannot be Xyz Summoned", "xyz", id="xyz-01-not-xyz"),
    pytest.param([position({**XYZ_BOARD, "extra": [], "gy": [card("u", UTOPIA)]}), XYZ_SUMMON], "XYZ-01",
                 "an Xyz Summon brings it from the Extra Deck", "xyz", id="xyz-01-from-the-gy"),
    pytest.param([position({**XYZ_BOARD, "extra": []}, {"extra": [card("u", UTOPIA)]}), XYZ_SUMMON], "XYZ-01",
                 "an Xyz Summon takes the monster from the summoner's own extra", "xyz", id="xyz-01-opponents"),
    pytest.param([position(XYZ_BOARD, **IN_BATTLE), ev("special_summoned", player=0, card="u", zone=2, method="xyz",
                                                       position="attack", materials=["a", "b"])],
                 "XYZ-01", "an Xyz Summon is made in your own Main Phase", "xyz", id="xyz-01-battle-phase"),
    pytest.param([position({"hand": [card("axe", AXE)], "mzone": [mon("c", CELTIC)]}, **IN_BATTLE),
                  ev("activated", player=0, card="axe", zone=1, targets=["c"])],
                 "SPELL-02", "an Equip Spell is activated in your own Main Phase", "equip", id="spell-02-equip"),
    pytest.param([position({"mzone": [mon("c", CELTIC)]}, **IN_BATTLE),
                  ev("activated", player=0, card="c", effect_type="ignition")],
                 "EFF-02", "an Ignition Effect is activated in your own Main Phase", "ignition", id="eff-02-ignition"),
    pytest.param([position({"szone": [card("sg", STARGAZER)]}, **IN_BATTLE),
                  ev("activated", player=0, card="sg", effect_type="pendulum")],
                 "PEND-02", "a Pendulum Effect is activated in your own Main Phase", "pendulum", id="pend-02-effect"),
])
def test_sps_05_xyz_01_spell_02_eff_02_pend_02_refusals_name_what_was_played_in_plain_words_refused(
        events: list, rule: str, says: str, word: str) -> None:
    """SPS-05, XYZ-01, SPELL-02, EFF-02, PEND-02: each refused as before, now saying "an Xyz
    Summon", "an Equip Spell", "an Ignition Effect", "a Pendulum Effect" (before: "a xyz Summon",
    "a Xyz Summon", "a equip Spell", "an ignition effect", "an pendulum effect"), and no
    translation keeps the English word (before: "equip魔法")."""
    v = refused_with(events, rule, says)
    said = said_in_every_language(v.message)
    assert all(word not in text.lower() for text in said.values()), said


def test_pend_03_a_pendulum_summon_of_the_other_players_card_refused_as_not_their_own() -> None:
    """PEND-03: in player 1's turn, a Pendulum Summon recorded with no player (the turn player's, as
    every event with no player) of player 0's Celtic Guardian, from player 0's hand: refused, the
    card is not the summoner's own. Before: refused saying a Pendulum Summon needs a card in both
    Pendulum Zones (player 1's were read), though the Scales the card was summoned between, player
    0's, are set. Recorded as player 0's: refused, it is not their turn (as before). In player 0's
    turn with no player: legal."""
    no_player = {k: v for k, v in PEND_SUMMON.items() if k != "player"}
    refused_with([pendulum_board(1), no_player], "PEND-03",
                 "is in player 0's hand: a Pendulum Summon takes the monster from the summoner's own hand")
    refused_with([pendulum_board(1), PEND_SUMMON], "PEND-03", "it is not their turn")
    assert fold(pendulum_board(0), no_player).cards["celtic"].zone == "mzone"


# == BATTLE-12: a renamed card keeps the Flip effect its attack passed ================================

MAN_EATER_DESTROYED = [*TO_DAMAGE_STEP, calc(["meb"], (0, 0)),
                       ev("card_moved", card="meb", to=[1, "gy"], reason="battle"), step("battle")]


def test_battle_12_a_passed_flip_effect_of_a_renamed_card_refused() -> None:
    """BATTLE-12: Man-Eater Bug, flipped by Vorse Raider's attack, did not activate its Flip effect
    in that Damage Step; a view then renames it (``DuelState.rename_card``, as when it goes where
    the viewer cannot follow it); its Flip effect under the new id: refused BATTLE-12, as under the
    old one. Before: accepted (the passed mark was left under the old id)."""
    refused_with([*MAN_EATER_DESTROYED, MAN_EATER], "BATTLE-12", "that Damage Step has ended")
    state = fold(*MAN_EATER_DESTROYED)
    state.rename_card("meb", "meb2")
    with pytest.raises(RuleViolation) as info:
        apply(state, from_dict({**MAN_EATER, "card": "meb2"}))
    assert info.value.rule == "BATTLE-12" and "that Damage Step has ended" in info.value.message
    assert state.cards["meb2"].zone == "gy"
