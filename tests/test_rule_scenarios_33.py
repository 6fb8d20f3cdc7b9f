"""Duel scenarios a head judge rules on (issue 25, seventeenth pass: judge17), recorded as a
table's recorder writes them.

Let through though illegal:

* SPS-11 (SUM-03, PRIO-03): once both players have passed on a summon it has succeeded, and no
  later chain negates it. An activation kept the summon's window open (it must, for the Counter
  Trap answering the summon itself), so after those two passes the opponent's Solemn Judgment,
  answering the turn player's end of Main Phase 1 or chained to the turn player's Mystical Space
  Typhoon, negated the summoned monster at its resolution, and it was sent to the GY. Both
  players' passes on the summon now close its window when the next chain starts.
* WIN-01, WIN-04: a player at 0 LP has lost at once; only what the same effect does at that
  moment is simultaneous with it (Ring of Destruction's damage to both players: a draw). Chain
  Link 2's Ring of Destruction took player 1 to 0 and player 0 to 200; an LP change after it by
  Chain Link 1's Magic Cylinder (its resolution left unrecorded) took player 0 to 0 too, and was
  accepted: the duel was then ruled a draw, and player 0's win refused as WIN-04. Kept in a
  witnessed duel it is flagged and makes no second loser.

* SPELL-07: an Equip Spell whose monster left the field or turned face-down goes to the GY at
  once. It was checked at the next summon, activation, resolution or move, but not when the
  record went on to the next phase, step or turn, or declared an attack: Axe of Despair stayed on
  the field after Battle Ox was destroyed, into the End Phase and the next attack.

Refused though legal:

* PEND-01 (PEND-05): a Pendulum card whose activation as a Scale is negated goes to the GY, not
  the Extra Deck (EDOPro's ``field::move_card``: not with ``STATUS_ACTIVATE_DISABLED``). Negated
  by Magic Jammer ("negate the activation, and if you do, destroy it"), its move recorded after
  the negation as destroyed by Magic Jammer was refused as PEND-05 ("it goes face-up to the
  Extra Deck instead"); only a move whose reason said ``negated`` passed. And the illegal move,
  to the Extra Deck, was accepted: now refused as PEND-01.
* NIS-06: "If ..." triggers and mandatory triggers do not miss the timing. A recorder without
  scripts stating a trigger both mandatory and worded "When" (``mandatory: true, timing:
  "when"``: "When this card is Special Summoned: ...", no "you can") was refused as missing the
  timing once its summon was not the last thing to happen; the event's ``timing`` alone decided.

Probed and found right (about 150 scenarios, kept out of the suite as they pass on the
baseline): the first turn's Battle Phase, Main Phase 2 without a Battle Phase, the phase order,
attacks outside the Battle Step, in Defense Position, directly past a face-down or EMZ monster,
a second attack, the monster that attacked changing position in Main Phase 2 (also after Book of
Moon), Flip Summons the turn a monster was summoned or changed position, replays (the target
gone, a new target, a direct attack, a monster added to a direct attack), 0 ATK direct attacks,
piercing cited or not, battle damage not matching damage calculation or never applied, a
monster destroyed by battle left on the field, Spell Speeds (Normal Spell as Chain Link 2, a
Trap on a Counter Trap, a Set Trap or Quick-Play the turn it was Set, a Quick-Play from the hand
in the opponent's turn, an ignition effect on an attack declaration, a link chained to an
attack), Setting in the Battle or End Phase, a Set negated, a Special Summon by a resolving
effect negated, a second Normal Summon after a negated one, Tokens (face-down, to the hand, as
Xyz material, Tributed), Pendulum Scales and Pendulum Summons from the Extra Deck, Link and
Xyz zones under mr2020 and nmr2017, the EMZ and Extra Link, the hand size, deck out by an
effect's draw, 0 LP by battle and by one effect to both players, SEGOC by the recorded
mandatory facts, Equip Spells on a face-down monster, missing the timing of optional and "if"
triggers.

Unsure, left as they were (no catalogue text decides them), then decided by judge17b
(``test_rule_scenarios_33b``): a replay in the Damage Step (the engine let a retarget through
there, and refused a direct attack continued after a monster was summoned in the Damage Step);
the summon negation window open only to effects that negate a summon (a Speed 2 activation right
after a summon, then Solemn chained to it, still negated the summon).
"""
from __future__ import annotations

from test_rule_scenarios_27 import ev
from test_rule_scenarios_28 import passed
from test_rules_battle import attack, battle, mon

from duel import (
    AXE, BATTLE_OX, CALL_OF_THE_HAUNTED, CELTIC, DARK_HOLE, MAGIC_JAMMER, MST, SOLEMN, STARGAZER, VORSE, fold, position,
    refused_with)
from ygoreplay.events import from_dict
from ygoreplay.rules import apply
from ygoreplay.state import DuelState

RING, CYLINDER = 83555666, 62279055            # Ring of Destruction, Magic Cylinder (Normal Traps)


def witnessed(*events: dict) -> DuelState:
    """Fold a position set up, then the rest as in a duel recorded at the table
    (``duel_started.witnessed``): a broken rule is flagged, the event kept."""
    state = fold(events[0])
    state.witnessed, state.flags = True, []
    for data in events[1:]:
        apply(state, from_dict(data))
    return state


# == SPS-11: a summon both players passed on has succeeded ========================================

SUMMONING = position({"hand": [{"code": CELTIC, "id": "celtic"}, {"code": MST, "id": "mst"}]},
                     {"szone": [{"code": SOLEMN, "id": "solemn", "position": "set"},
                                {"code": MST, "id": "p1_mst", "position": "set"}]})
SUMMON = ev("normal_summoned", player=0, card="celtic", zone=2)
SOLEMN_ = ev("activated", player=1, card="solemn")
NEGATE = ev("summon_negated", card="celtic", cause="solemn")
NOT_NOW = "Celtic Guardian is not being summoned now"


def solemn_resolves(link: int = 1) -> list[dict]:
    return [passed(0), passed(1), ev("chain_link_resolved", link=link)]


def test_sps_11_solemn_after_both_passed_on_the_summon_cannot_negate_it() -> None:
    """SPS-11, PRIO-03: player 0 summons Celtic Guardian; both pass (it is summoned); player 0
    passes again, declaring the end of Main Phase 1, and player 1 answers the end with Solemn
    Judgment. Before: the summon's window was still open, and Celtic Guardian negated."""
    refused_with([SUMMONING, SUMMON, passed(0), passed(1), passed(0), SOLEMN_, *solemn_resolves(), NEGATE],
                 "SPS-11", NOT_NOW)


def test_sps_11_solemn_chained_to_a_later_activation_cannot_negate_the_summon() -> None:
    """SPS-11: both pass on the summon; player 0 activates Mystical Space Typhoon, player 1
    chains Solemn Judgment: it answers the Spell, not the summon, which has succeeded."""
    mst = ev("activated", player=0, card="mst", zone=0, targets=["p1_mst"])
    refused_with([SUMMONING, SUMMON, passed(0), passed(1), mst, SOLEMN_, *solemn_resolves(2), NEGATE],
                 "SPS-11", NOT_NOW)


def test_sps_11_solemn_answering_the_summon_negates_it() -> None:
    """SUM-03: player 0 passes on the summon, player 1 answers it with Solemn Judgment: the summon
    is negated, the monster sent to the GY, and no Normal Summon is left this turn."""
    state = fold(SUMMONING, SUMMON, passed(0), SOLEMN_, *solemn_resolves(), NEGATE)
    assert state.cards["celtic"].zone == "gy" and state.sides[0].summon_negated_turn == 2


def test_sps_11_a_witnessed_negation_after_the_summon_succeeded_is_flagged_and_kept() -> None:
    """At the table the negation played stands: Celtic Guardian is in the GY, and the event is
    flagged SPS-11 for the judge."""
    state = witnessed(SUMMONING, SUMMON, passed(0), passed(1), passed(0), SOLEMN_, *solemn_resolves(), NEGATE)
    assert [f.rule for f in state.flags] == ["SPS-11"] and state.cards["celtic"].zone == "gy"


# == WIN-01, WIN-04: 0 LP at once is a loss; only the same effect's damage is simultaneous ========

CHAIN = battle([mon("vorse", VORSE)], [mon("ox", BATTLE_OX)],
               p0={"lp": 1900, "szone": [{"code": RING, "id": "ring", "position": "set"}]},
               p1={"lp": 1700, "szone": [{"code": CYLINDER, "id": "cylinder", "position": "set"}]})
RING_RESOLVES = [
    attack("vorse", "ox"), ev("activated", player=1, card="cylinder", targets=["vorse"]),
    ev("activated", player=0, card="ring", targets=["ox"]), passed(1), passed(0),
    ev("chain_link_resolved", link=2), ev("card_moved", card="ox", to=[1, "gy"], reason="destroyed", cause="ring"),
    ev("life_points_changed", player=1, amount=1700, reason="effect_damage", cause="ring"),
    ev("life_points_changed", player=0, amount=1700, reason="effect_damage", cause="ring")]
CYLINDER_DAMAGE = ev("life_points_changed", player=0, amount=200, reason="effect_damage", cause="cylinder")


def test_win_01_ring_of_destruction_as_chain_link_2_ends_the_duel_before_chain_link_1() -> None:
    """WIN-01: player 1 activates Magic Cylinder on Vorse Raider's attack; player 0 chains Ring
    of Destruction on Battle Ox: 1700 damage to both, player 1 to 0 (player 0 to 200). Player 1
    has lost: player 0 wins, and Magic Cylinder never resolves."""
    state = fold(CHAIN, *RING_RESOLVES, ev("duel_ended", winner=0, reason="lp"))
    assert state.winner == 0 and [s.lp for s in state.sides] == [200, 0]


def test_win_01_damage_by_another_effect_after_the_loss_is_not_simultaneous() -> None:
    """WIN-01, WIN-04: Magic Cylinder's 200 damage after Ring of Destruction's took player 1 to 0
    (its resolution unrecorded) came after the end. Before: accepted, and the duel a draw."""
    refused_with([CHAIN, *RING_RESOLVES, CYLINDER_DAMAGE], "WIN-01",
                 "player 1 has lost (lp); the duel ends at once and no life_points_changed may follow")


def test_win_04_one_effects_damage_to_both_players_is_a_draw() -> None:
    """WIN-04: Ring of Destruction on Battle Ox with both players at 1700: both at 0 from the same
    effect, at once: a draw."""
    level = {**CHAIN, "sides": [{**CHAIN["sides"][0], "lp": 1700}, CHAIN["sides"][1]]}
    state = fold(level, *RING_RESOLVES, ev("duel_ended", winner=None, reason="draw"))
    assert state.winner is None and [s.lp for s in state.sides] == [0, 0]


def test_win_01_witnessed_late_damage_is_flagged_and_makes_no_second_loser() -> None:
    """Kept at the table, Magic Cylinder's damage is flagged WIN-01, and player 1's loss stands
    alone: player 0's win is the result the rules give (not a draw)."""
    state = witnessed(CHAIN, *RING_RESOLVES, CYLINDER_DAMAGE, ev("duel_ended", winner=0, reason="lp"))
    assert [f.rule for f in state.flags] == ["WIN-01"] and state.must_lose == {1: "lp"} and state.winner == 0


# == NIS-06: a mandatory trigger never misses the timing ===========================================

REVIVING = position({"mzone": [mon("ox", BATTLE_OX)], "hand": [{"code": DARK_HOLE, "id": "hole"}],
                     "gy": [{"code": VORSE, "id": "vorse"}],
                     "szone": [{"code": CALL_OF_THE_HAUNTED, "id": "call", "position": "set"}]},
                    {"mzone": [mon("p1_vorse", VORSE)]})
#: Dark Hole (Chain Link 1), Call of the Haunted (2) summons Vorse Raider, then Dark Hole destroys
#: the other monsters: the summon is not the last thing to happen.
SUMMONED_THEN_MORE = [
    ev("activated", player=0, card="hole", zone=1), passed(1),
    ev("activated", player=0, card="call", targets=["vorse"]), passed(1), passed(0),
    ev("chain_link_resolved", link=2),
    ev("special_summoned", player=0, card="vorse", zone=1, cause="call"), ev("chain_link_resolved", link=1),
    ev("card_moved", card="p1_vorse", to=[1, "gy"], reason="destroyed", cause="hole"),
    ev("card_moved", card="ox", to=[0, "gy"], reason="destroyed", cause="hole"),
    ev("card_moved", card="hole", to=[0, "gy"], reason="resolved"), ev("chain_ended")]


def trigger(**facts) -> dict:
    return ev("activated", player=0, card="vorse", effect_type="trigger", timing="when", **facts)


def test_nis_06_a_mandatory_when_trigger_activates_though_its_event_was_not_last() -> None:
    """NIS-06: "When this card is Special Summoned: ..." (mandatory, stated by the record): it
    does not miss the timing. Before: refused as NIS-06, the ``timing`` read alone."""
    state = fold(REVIVING, *SUMMONED_THEN_MORE, trigger(mandatory=True))
    assert [link.card for link in state.chain] == ["vorse"]


def test_nis_06_an_optional_when_trigger_still_misses_the_timing() -> None:
    """NIS-06: the same trigger stated optional ("When ... you can"), or with nothing said of it,
    misses the timing."""
    refused_with([REVIVING, *SUMMONED_THEN_MORE, trigger(mandatory=False)], "NIS-06", "missed the timing")
    refused_with([REVIVING, *SUMMONED_THEN_MORE, trigger()], "NIS-06", "missed the timing")


# == PEND-01: a Pendulum Scale whose activation is negated goes to the GY ==========================

SCALE = position({"hand": [{"code": STARGAZER, "id": "stargazer"}]},
                 {"szone": [{"code": MAGIC_JAMMER, "id": "jammer", "position": "set"}],
                  "hand": [{"code": CELTIC, "id": "discard"}]})
JAMMED = [ev("activated", player=0, card="stargazer", zone=0),
          ev("activated", player=1, card="jammer", negates=1, costs=[{"card": "discard", "to": "gy"}]),
          passed(0), passed(1), ev("chain_link_resolved", link=2), ev("chain_link_negated", link=1, by=2)]


def destroyed_to(pile: str) -> dict:
    return ev("card_moved", card="stargazer", to=[0, pile], reason="destroyed", cause="jammer")


def test_pend_01_a_negated_scale_destroyed_by_magic_jammer_goes_to_the_gy() -> None:
    """PEND-01: Stargazer Magician activated as a Scale, Magic Jammer negates it and destroys it:
    to the GY. Before: refused as PEND-05 (to the Extra Deck instead)."""
    state = fold(SCALE, *JAMMED, destroyed_to("gy"), ev("card_moved", card="jammer", to=[1, "gy"], reason="resolved"),
                 ev("chain_ended"))
    assert state.cards["stargazer"].zone == "gy" and not state.chain


def test_pend_01_a_negated_scale_does_not_go_to_the_extra_deck() -> None:
    """PEND-01: the same card recorded going face-up to the Extra Deck. Before: accepted."""
    refused_with([SCALE, *JAMMED, destroyed_to("extra")], "PEND-01", "it goes to the GY, not the Extra Deck")


def test_pend_05_a_scale_destroyed_once_on_the_field_still_goes_to_the_extra_deck() -> None:
    """PEND-05: once its activation resolved, Stargazer Magician destroyed by Mystical Space
    Typhoon goes to the Extra Deck, never the GY."""
    refused_with([SCALE, ev("activated", player=0, card="stargazer", zone=0), passed(1), passed(0),
                  ev("chain_link_resolved", link=1), ev("chain_ended"),
                  ev("card_moved", card="stargazer", to=[0, "gy"], reason="destroyed", cause="x")], "PEND-05")


def test_pend_01_a_witnessed_negated_scale_sent_to_the_extra_deck_is_flagged_and_kept() -> None:
    """At the table the card placed in the Extra Deck stays there, the move flagged PEND-01."""
    state = witnessed(SCALE, *JAMMED, destroyed_to("extra"))
    assert [f.rule for f in state.flags] == ["PEND-01"] and state.cards["stargazer"].zone == "extra"


# == SPELL-07: an Equip whose monster left goes to the GY before play goes on =======================

EQUIPPED = [ev("activated", player=0, card="axe", zone=0, targets=["ox"]), passed(1), passed(0),
            ev("chain_link_resolved", link=1), ev("chain_ended")]
OX_DESTROYED = ev("card_moved", card="ox", to=[0, "gy"], reason="destroyed", cause="p1_mst")
AXE_SENT = ev("card_moved", card="axe", to=[0, "gy"], reason="sent")
ARMED = position({"hand": [{"code": AXE, "id": "axe"}], "mzone": [mon("ox", BATTLE_OX), mon("vorse", VORSE)]},
                 {"mzone": [mon("p1_vorse", VORSE)]})
MUST_GO = "Axe of Despair (axe) must go to the GY"


def test_spell_07_the_equip_left_behind_stops_the_next_phase() -> None:
    """SPELL-07: Battle Ox, equipped with Axe of Despair, is destroyed; the record enters the
    Battle Phase with the Axe still on the field. Before: accepted (also into the End Phase)."""
    refused_with([ARMED, *EQUIPPED, OX_DESTROYED, ev("phase_entered", phase="battle")], "SPELL-07", MUST_GO)
    refused_with([ARMED, *EQUIPPED, OX_DESTROYED, ev("phase_entered", phase="end")], "SPELL-07", MUST_GO)


def test_spell_07_the_equip_left_behind_stops_the_next_step_and_attack() -> None:
    """SPELL-07: in the Battle Step the equipped monster is destroyed; the next attack, or the
    End Step, with the Axe still there. Before: accepted."""
    battle_step = [*EQUIPPED, ev("phase_entered", phase="battle"), ev("step_entered", step="battle"), OX_DESTROYED]
    refused_with([ARMED, *battle_step, attack("vorse", "p1_vorse")], "SPELL-07", MUST_GO)
    refused_with([ARMED, *battle_step, ev("step_entered", step="end")], "SPELL-07", MUST_GO)


def test_spell_07_the_equip_sent_with_its_monster_lets_play_go_on() -> None:
    """SPELL-07: the Axe sent to the GY right after its monster: the Battle Phase follows."""
    state = fold(ARMED, *EQUIPPED, OX_DESTROYED, AXE_SENT, ev("phase_entered", phase="battle"))
    assert state.cards["axe"].zone == "gy" and state.phase == "battle"


def test_spell_07_a_witnessed_equip_left_behind_is_flagged_once() -> None:
    """At the table the phase is entered and flagged once; the Axe is no longer equipped."""
    state = witnessed(ARMED, *EQUIPPED, OX_DESTROYED, ev("phase_entered", phase="battle"),
                      ev("phase_entered", phase="main2"))
    assert [f.rule for f in state.flags] == ["SPELL-07"] and state.cards["axe"].equipped_to is None
