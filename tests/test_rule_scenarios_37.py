"""Duel scenarios a head judge rules on (issue 25, twenty-first pass: judge21), recorded as a
table's recorder writes them, in the areas the earlier passes probed least: trigger timing, the
Damage Step, the summoning procedures.

Let through though illegal:

* NIS-06 ("an optional 'When ... you can' trigger cannot activate unless its event was the last
  thing to happen"), CHAIN-11 (a cost is paid as part of activation): a card paid as a cost went
  as its link was activated, before the chain resolved. Discarded for Magic Jammer, which then
  negated Dark Hole and destroyed it, a "when this card is sent to the GY: you can" trigger was
  activated after the chain: accepted (by its script, or by the record's ``timing: "when"``).
  Only what happened while a link resolved was noted. Now the cost is noted as happening before
  any link resolved: a link that did something as it resolved leaves it having missed the timing.
  An "if" trigger, a mandatory one, and a cost whose chain did nothing as it resolved (Dark Hole
  on an empty field) still activate.
* BATTLE-09 ("Triggers basically cannot be activated" in the Damage Step; the exceptions are
  mandatory triggers, "when Special Summoned", Flip effects, "when destroyed, banished or added
  to the hand"): only Spell Speed 2 activations were judged there. A trigger the record states
  optional and not usable in the Damage Step (``mandatory: false, damage_step: false``) was
  accepted there. Now refused, flagged at the table; either fact unstated (no script read), it
  stays undecided, and one the record says is usable (an exception) stands.
* FUS-01, RIT-01 ("a card that Fusion Summons ... uses the chain"; "the Ritual Spell (Speed 1, uses
  the chain)"; FUS-02/RIT-02: the summon is made "on resolution"): a Fusion or Ritual Summon names
  its cause, and only a cause that had resolved and been followed by another activation was judged
  (FUS-03/RIT-03). Polymerization still in the hand, never activated, "caused" a Fusion Summon of
  Flame Swordsman; Black Luster Ritual, likewise, a Ritual Summon; and a Polymerization whose chain
  had ended summoned after it: all accepted. Now the cause must be resolving: refused, flagged at
  the table, a card that does it otherwise cited (GEN-01).

* EFF-04 ("Trigger: activates at the timing its text states"): a trigger of a card whose script
  declares only its own "if this card is sent to the GY" (Test If Mole), or only its own "when this
  card is Normal Summoned" (Test Herald), activated while it sat on the field where it had been
  since an earlier turn, was accepted: nothing it answers had happened to it this turn. Now refused
  (flagged at the table); one that arrived or was summoned this turn (it may have left and come
  back), a card whose script was not read, or one that may have been given an effect: undecided.

Probed and found right (kept out of the suite: they pass on the baseline): a Trap activated from
the hand (TRAP-02), a Field Spell activated in a Spell & Trap Zone and a Normal Spell in the Field
Zone (ZONE-10), a Spell from the hand with five Spell & Trap Zones full (ZONE-08), a Flip Summon in
the Battle Phase (SUM-10), a Link monster revived in Defense Position (LINK-05), a Synchro Summon
with two Tuners (SYN-01), a negated Synchro Summon's monster revived (SYN-04, SPS-12), a Draw Phase
draw from an empty Deck and the duel going on, or the draw skipped (WIN-02), a manual position
change in the opponent's turn (POS-07), after a change by an effect (legal), after an attack in
Main Phase 2 (POS-08), and before an attack (legal), a Flip Summon after Book of Moon (legal), a
hand-size discard of two from seven and none at all (HAND-01), a Set Spell Tributed (SUM-06), a
face-down monster or one Special Summoned this turn Tributed (legal), a Pendulum Summon from the
hand and an effect's Special Summon of a Main Deck monster into the Extra Monster Zone (ZONE-03,
ZONE-07), a second Extra Monster Zone without Extra Link (ZONE-04), an Xyz material whose Level an
effect changed (legal), a Field Spell and a Continuous Spell outside your Main Phase (SPELL-02), a
Normal Spell in the Damage Step (SPELL-02), Mystical Space Typhoon in the Damage Step (BATTLE-09), a
Quick Effect chained to a Counter Trap (CHAIN-03), a Ritual Spell as Chain Link 2 (CHAIN-02),
Kuriboh in the opponent's Damage Step (legal), an attack in Defense Position (POS-03), Main Phase
2 without a Battle Phase (TURN-07), a negated Pendulum Summon's monster (PEND-04: to the GY at the
negation, by the rules); once-per-turn limits by script (TEXT-01: a hard one twice, by a second
copy or by a copy taken by a control change, refused; a soft one by a second copy or by the same
card back on the field, a hard one next turn or by the opponent's copy: legal); a Pendulum Effect
from the hand or a Monster Zone (PEND-02); a retarget after Book of Moon turned the target
face-down (no replay, BATTLE-06); a Token returned to the hand (it vanishes, TOKEN-02); a Normal
Summon into full Main Monster Zones (ZONE-01); an attack on a monster in the Extra Monster Zone,
Negate Attack as Chain Link 1, a Level 8 with one Tribute cited (an override), Ritual and Fusion
materials face-down, a Continuous Trap's effect at Spell Speed 2, a Quick-Play in your own Standby
Phase, Stardust Dragon banished, back in the GY and revived (SPS-14): legal; a Level 5 with two
Tributes (SUM-04), a hand-size discard at 6 (HAND-01), a negated Field Spell left on the field
(SPELL-04).

Found and not changed (the state keeps no record of it yet): a trigger activated after the duel
moved on past the event it answers (EFF-04). Test If Mole destroyed by Dark Hole in Main Phase 1,
its "if" trigger activated after the Battle Phase began, after a Normal Summon, or in the next turn:
accepted. Judging it needs, for every card, the point at which it last moved, kept through
snapshots; the mandatory ones owed are judged (GEN-03), the optional ones are not. (Judged since
judge21b: ``test_rule_scenarios_38``.)

Not changed, left for a ruling the catalogue does not give: a Continuous Trap moved to the GY with
the reason ``resolved`` after its activation resolved (TRAP-04 says it stays; the EDOPro importer
calls any move of a card whose link resolved this chain from the Spell & Trap Zone to the GY
``resolved``, also when its own effect sends it, so the reason alone does not show a broken rule);
a trigger whose script declares no ``EFFECT_FLAG_DAMAGE_STEP`` in the Damage Step (BATTLE-09 by the
script: EDOPro's battle events count as the Damage Step's, the rest was not read against its core).
"""
from __future__ import annotations

from test_rule_scenarios_27 import ev
from test_rule_scenarios_28 import passed
from test_rules_battle import attack, mon, step
from test_rules_effects import IF_MOLE, MOLE, TIMING_CARDS

from duel import (
    BATTLE_OX, BLUE_EYES, CARDS, DARK_HOLE, DARK_MAGICIAN, MAGIC_JAMMER, VORSE, fold, position, refused_with)
from ygoreplay.cards import CardDB, CardFacts
from ygoreplay.effect_facts import EffectFact
from ygoreplay.events import from_dict
from ygoreplay.rules import apply
from ygoreplay.state import DuelState


def witnessed(*events: dict, cards: CardDB = CARDS) -> DuelState:
    """Fold a position set up, then the rest as at the table (``duel_started.witnessed``): a
    broken rule is flagged, the event kept."""
    state = fold(events[0], cards=cards)
    state.witnessed, state.flags = True, []
    for data in events[1:]:
        apply(state, from_dict(data))
    return state


# == NIS-06: a card paid as a cost went before its chain resolved =================================

NO_SCRIPTS = CARDS.merged(CardDB([TIMING_CARDS[MOLE], TIMING_CARDS[IF_MOLE]]))
MISSED = "as a cost of activating a chain link, and a link did something after it as it resolved"


def jammed(discard: str) -> list[dict]:
    """Player 0's Dark Hole; player 1 chains Magic Jammer, discarding ``discard``, which negates
    Dark Hole's activation and destroys it; the chain ends."""
    board = position({"hand": [{"code": DARK_HOLE, "id": "hole"}], "mzone": [mon("vorse", VORSE)]},
                     {"szone": [{"code": MAGIC_JAMMER, "id": "jammer", "position": "set"}],
                      "hand": [{"code": MOLE, "id": "mole"}, {"code": IF_MOLE, "id": "if_mole"}]}, turn=4)
    return [board, ev("activated", player=0, card="hole", zone=1),
            ev("activated", player=1, card="jammer", negates=1, costs=[{"card": discard, "to": "gy",
                                                                        "reason": "discarded"}]),
            passed(0), passed(1), ev("chain_link_resolved", link=2), ev("chain_link_negated", link=1, by=2),
            ev("card_moved", card="hole", to=[0, "gy"], reason="destroyed", cause="jammer"),
            ev("card_moved", card="jammer", to=[1, "gy"], reason="resolved"), ev("chain_ended")]


def trigger(card: str, **fields) -> dict:
    return ev("activated", player=1, card=card, effect_type="trigger", **fields)


def test_nis_06_a_when_trigger_of_a_card_paid_as_a_cost_missed_the_timing_refused() -> None:
    """NIS-06: Test Mole ("When this card is sent to the GY: you can ...", no EFFECT_FLAG_DELAY)
    discarded for Magic Jammer; Jammer then negated and destroyed Dark Hole, the last thing to
    happen: Test Mole's trigger after the chain is refused, by its script or by the record's word.
    Before: accepted. An "if" trigger of a card discarded as the cost activates after the same
    chain; a "when" trigger whose cost was the last thing to happen (Dark Hole resolving on a field
    with no monsters, doing nothing) activates too; no script, no ``timing``: undecided, accepted."""
    refused_with([*jammed("mole"), trigger("mole")], "NIS-06", MISSED, cards=TIMING_CARDS)
    refused_with([*jammed("mole"), trigger("mole", timing="when")], "NIS-06", "the record says", cards=NO_SCRIPTS)
    assert fold(*jammed("if_mole"), trigger("if_mole"), cards=TIMING_CARDS).chain[0].card == "if_mole"
    assert fold(*jammed("mole"), trigger("mole"), cards=NO_SCRIPTS).chain[0].card == "mole"
    empty = position({"hand": [{"code": DARK_HOLE, "id": "hole"}, {"code": MOLE, "id": "mole"}]}, turn=4)
    quiet = [empty, ev("activated", player=0, card="hole", zone=1,
                       costs=[{"card": "mole", "to": "gy", "reason": "discarded"}]),
             ev("chain_link_resolved", link=1), ev("card_moved", card="hole", to=[0, "gy"], reason="resolved"),
             ev("chain_ended"), ev("activated", player=0, card="mole", effect_type="trigger")]
    assert fold(*quiet, cards=TIMING_CARDS).chain[0].card == "mole"


def test_nis_06_at_the_table_a_cost_s_missed_trigger_is_flagged_and_kept() -> None:
    """NIS-06 at the table: the same "when" trigger after Magic Jammer's chain stands, flagged."""
    state = witnessed(*jammed("mole"), trigger("mole", timing="when"), cards=NO_SCRIPTS)
    assert [(f.index, f.rule) for f in state.flags] == [(10, "NIS-06")] and state.chain[0].card == "mole"


# == BATTLE-09: a trigger in the Damage Step ======================================================

LANTERN = 990371                          # this file's own monster: an optional trigger, no Damage Step use
LANTERN_CARDS = CARDS.merged(CardDB([CardFacts(code=LANTERN, name="Test Lantern", type=0x21, level=3, atk=800)]))
DAMAGE_STEP = [position({"mzone": [mon("vorse", VORSE)]},
                        {"mzone": [mon("ox", BATTLE_OX), mon("lantern", LANTERN)]},
                        turn=4, phase="battle", step="battle"), attack("vorse", "ox"), step("damage")]
NOT_THERE = "the record says it is optional and not one usable there"


def lantern(**facts) -> dict:
    return ev("activated", player=1, card="lantern", effect_type="trigger", **facts)


def test_battle_09_an_optional_trigger_not_usable_in_the_damage_step_refused() -> None:
    """BATTLE-09: in the Damage Step, Test Lantern's trigger, stated optional and not usable
    there, is refused. Before: accepted (only Spell Speed 2 activations were judged there). The
    exceptions stand (a mandatory trigger; one the record says is usable in the Damage Step, such
    as "when destroyed"); a trigger whose facts the record leaves out is undecided; in the Battle
    Step the optional one is no Damage Step activation at all."""
    refused_with([*DAMAGE_STEP, lantern(mandatory=False, damage_step=False)], "BATTLE-09", NOT_THERE,
                 cards=LANTERN_CARDS)
    for facts in ({"mandatory": True, "damage_step": False}, {"mandatory": False, "damage_step": True},
                  {"mandatory": False}, {"damage_step": False}):
        assert fold(*DAMAGE_STEP, lantern(**facts), cards=LANTERN_CARDS).chain[0].card == "lantern", facts
    battle_step = fold(*DAMAGE_STEP[:2], lantern(mandatory=False, damage_step=False), cards=LANTERN_CARDS)
    assert battle_step.chain[0].card == "lantern"


def test_battle_09_at_the_table_a_trigger_in_the_damage_step_is_flagged_and_kept() -> None:
    """BATTLE-09 at the table: the optional trigger in the Damage Step stands, flagged."""
    state = witnessed(*DAMAGE_STEP, lantern(mandatory=False, damage_step=False), cards=LANTERN_CARDS)
    assert [(f.index, f.rule) for f in state.flags] == [(3, "BATTLE-09")] and state.chain[0].card == "lantern"


# == FUS-01, RIT-01: the summon is made as its cause resolves ======================================

POLYMERIZATION, FLAME_SWORDSMAN = 24094653, 45231177
BLACK_LUSTER_RITUAL, BLACK_LUSTER_SOLDIER = 55761792, 5405694
MATERIALS = [{"code": DARK_MAGICIAN, "id": "dm"}, {"code": BATTLE_OX, "id": "ox"}]
FUSION_BOARD = position({"hand": [{"code": POLYMERIZATION, "id": "poly"}, *MATERIALS],
                         "extra": [{"code": FLAME_SWORDSMAN, "id": "flame"}]}, turn=4)
RITUAL_BOARD = position({"hand": [{"code": BLACK_LUSTER_RITUAL, "id": "blr"},
                                  {"code": BLACK_LUSTER_SOLDIER, "id": "bls"}, {"code": BLUE_EYES, "id": "bewd"}]},
                        turn=4)
FUSION = ev("special_summoned", player=0, card="flame", zone=0, method="fusion", materials=["dm", "ox"], cause="poly")
RITUAL = ev("special_summoned", player=0, card="bls", zone=0, method="ritual", materials=["bewd"], cause="blr")
POLY_RESOLVES = [ev("activated", player=0, card="poly", zone=1), ev("chain_link_resolved", link=1)]
NOT_RESOLVING = "is not resolving (no chain is resolving)"


def test_fus_01_rit_01_a_summon_caused_by_a_card_never_activated_refused() -> None:
    """FUS-01, RIT-01: Polymerization, still in the hand and never activated, named as the cause
    of a Fusion Summon; Black Luster Ritual, likewise, of a Ritual Summon: refused. Before: both
    accepted."""
    refused_with([FUSION_BOARD, FUSION], "FUS-01", NOT_RESOLVING)
    refused_with([RITUAL_BOARD, RITUAL], "RIT-01", NOT_RESOLVING)


def test_fus_01_a_summon_after_its_cause_s_chain_ended_refused() -> None:
    """FUS-01: Polymerization resolved and went to the GY, and its chain ended; a Fusion Summon
    "by" it after that is refused: it summons as it resolves, not later. Before: accepted. The
    same summon made while it resolves stands."""
    done = [ev("card_moved", card="poly", to=[0, "gy"], reason="resolved"), ev("chain_ended")]
    refused_with([FUSION_BOARD, *POLY_RESOLVES, *done, FUSION], "FUS-01", NOT_RESOLVING)
    state = fold(FUSION_BOARD, *POLY_RESOLVES, FUSION, *done)
    assert state.cards["flame"].zone == "mzone" and state.cards["flame"].properly_summoned


def test_fus_01_rit_01_while_another_card_resolves_the_cause_must_be_it() -> None:
    """FUS-01: while Dark Hole resolves, a Fusion Summon "by" Polymerization still in the hand is
    refused: it is no link of the chain resolving. Before: accepted."""
    board = position({"hand": [{"code": POLYMERIZATION, "id": "poly"}, {"code": DARK_HOLE, "id": "hole"},
                               *MATERIALS], "extra": [{"code": FLAME_SWORDSMAN, "id": "flame"}]}, turn=4)
    refused_with([board, ev("activated", player=0, card="hole", zone=1), ev("chain_link_resolved", link=1), FUSION],
                 "FUS-01", "it is no link of the chain resolving")


def test_fus_01_rit_01_at_the_table_flagged_and_kept_and_a_cited_card_overrides() -> None:
    """At the table the Fusion Summon "by" a Polymerization never activated stands, flagged; a
    card cited as doing it otherwise is an override (GEN-01)."""
    state = witnessed(FUSION_BOARD, FUSION)
    assert [(f.index, f.rule) for f in state.flags] == [(1, "FUS-01")] and state.cards["flame"].zone == "mzone"
    cited = fold(RITUAL_BOARD, {**RITUAL, "cite": {"card": "blr", "effect": "a judge's fix"}})
    assert [o.rule for o in cited.overrides] == ["RIT-01"] and cited.cards["bls"].zone == "mzone"


# == EFF-04: a trigger whose event never happened =================================================

SAT_THERE = "it has stayed on the field since before this turn"


def test_eff_04_a_card_on_the_field_since_an_earlier_turn_activating_its_gy_trigger_refused() -> None:
    """EFF-04: Test If Mole ("If this card is sent to the GY: you can ...", by its script) on the
    field since an earlier turn activates that trigger: nothing it answers happened to it, refused.
    Before: accepted. Sent to the GY by Dark Hole it activates; summoned this turn (it may have left
    and come back), or with no script read, it is undecided."""
    board = position({"mzone": [mon("if_mole", IF_MOLE)], "hand": [{"code": DARK_HOLE, "id": "hole"}]}, turn=4)
    mole = ev("activated", player=0, card="if_mole", effect_type="trigger")
    refused_with([board, mole], "EFF-04", SAT_THERE, cards=TIMING_CARDS)
    sent = [board, ev("activated", player=0, card="hole", zone=1), ev("chain_link_resolved", link=1),
            ev("card_moved", card="if_mole", to=[0, "gy"], reason="destroyed", cause="hole"),
            ev("card_moved", card="hole", to=[0, "gy"], reason="resolved"), ev("chain_ended")]
    assert fold(*sent, mole, cards=TIMING_CARDS).chain[0].card == "if_mole"
    arrived = position({"mzone": [mon("if_mole", IF_MOLE, summoned=True)]}, turn=4)
    assert fold(arrived, mole, cards=TIMING_CARDS).chain[0].card == "if_mole"
    assert fold(board, mole, cards=NO_SCRIPTS).chain[0].card == "if_mole"


HERALD = 990372                          # this file's own monster: "When this card is Normal Summoned: you can"
HERALD_CARDS = TIMING_CARDS.merged(CardDB([CardFacts(code=HERALD, name="Test Herald", type=0x21, level=4,
                                                     atk=1500)])).with_effects(
    {HERALD: (EffectFact(("single", "trigger_o"), "EVENT_SUMMON_SUCCESS", (), ("draw",)),)})


def test_eff_04_a_summon_trigger_of_a_monster_summoned_in_an_earlier_turn_refused() -> None:
    """EFF-04: Test Herald, on the field since an earlier turn, activates its "when this card is
    Normal Summoned" trigger: refused, its summon was not this turn. Before: accepted. Normal
    Summoned now, it activates."""
    herald = ev("activated", player=0, card="herald", effect_type="trigger")
    refused_with([position({"mzone": [mon("herald", HERALD)]}, turn=4), herald], "EFF-04", SAT_THERE,
                 cards=HERALD_CARDS)
    summoned = fold(position({"hand": [{"code": HERALD, "id": "herald"}]}, turn=4),
                    ev("normal_summoned", player=0, card="herald", zone=0), herald, cards=HERALD_CARDS)
    assert summoned.chain[0].card == "herald"


def test_eff_04_at_the_table_a_trigger_that_never_triggered_is_flagged_and_kept() -> None:
    """EFF-04 at the table: the same activation stands, flagged."""
    board = position({"mzone": [mon("if_mole", IF_MOLE)]}, turn=4)
    state = witnessed(board, ev("activated", player=0, card="if_mole", effect_type="trigger"), cards=TIMING_CARDS)
    assert [(f.index, f.rule) for f in state.flags] == [(1, "EFF-04")] and state.chain[0].card == "if_mole"
