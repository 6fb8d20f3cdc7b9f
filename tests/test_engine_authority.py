"""The engine is the authority on a duel it played (``yrpx.authority``): on an import, a play our
rules refuse is an override citing the card behind it, never a violation.

One test per kind of false call seen on duels EDOPro's engine played (issue 24): each is a small
event list, as the importer's mapping writes it, folded by the importer's one citing fold
(``CitingFold``, which ``import_yrpx`` runs on every import). The card behind it comes from
the card's effect facts (its script) when they say so, else from the stream (the resolving or
open chain link), else from the card's own text, else the cite is marked unexplained.
"""
from __future__ import annotations

import pytest
from duel import BATTLE_OX, CARDS, CELTIC, KURIBOH, MST, STARDUST, VORSE, position

from ygoreplay.cards import CardDB, CardFacts
from ygoreplay.effect_facts import EffectFact
from ygoreplay.events import from_dict
from ygoreplay.importing import Expected, ImportResult
from ygoreplay.rules import audit
from ygoreplay.yrpx.authority import CitingFold

JUNK_SYNCHRON, SWORDS = 63977008, 72302403
GRANTER, NO_DAMAGE, SETTER = 990001, 990002, 990003     # this file's own cards (continuous Spells)
XYZ_PENDULUM = 990004


def c(code: int, card_id: str, **flags) -> dict:
    return {"code": code, "id": card_id, **flags}


def ev(kind: str, **fields) -> dict:
    return {"kind": kind, **fields}


def spell(code: int, name: str) -> CardFacts:
    return CardFacts(code=code, name=name, type=0x20002)          # a Continuous Spell


CARDS_HERE = CARDS.merged(CardDB([spell(GRANTER, "Granter"), spell(NO_DAMAGE, "No Damage"),
                                  spell(SETTER, "Setter"),
                                  CardFacts(code=XYZ_PENDULUM, name="Xyz Pendulum", type=0x1800021, level=4,
                                            atk=2500, defense=2000, lscale=4, rscale=4)]))

#: The effect facts of this file's cards, as ``card_scripts`` reads them from their scripts.
FACTS = {GRANTER: (EffectFact(("field",), "EFFECT_EXTRA_SUMMON_COUNT"),),
         NO_DAMAGE: (EffectFact(("field",), "EFFECT_AVOID_BATTLE_DAMAGE", ("player_target",)),),
         SETTER: (EffectFact(("field",), "EFFECT_MONSTER_SSET"),),
         MST: (EffectFact(("activate",), "EVENT_FREE_CHAIN", ("card_target", "damage_step"), ("destroy",)),),
         JUNK_SYNCHRON: (EffectFact(("single",), "EFFECT_HAND_SYNCHRO"),)}


def imported(*events: dict, facts: dict | None = None) -> tuple[ImportResult, list]:
    """The events as an import, through the authority pass; its audit's violations and overrides."""
    result = ImportResult([from_dict(e) for e in events], CARDS_HERE, [], ("a", "b"),
                          Expected((8000, 8000), None, None), [], None, [])
    fold = CitingFold(result, CARDS_HERE.with_effects(facts) if facts is not None else None)
    for k in range(len(result.events)):
        fold.append(k)
    report = audit(result.events, result.cards)
    assert report.violations == [], [(v.rule, v.message) for v in report.violations]
    return result, report.overrides


def refused_by_rules(*events: dict) -> list[str]:
    """What our rules say of the same events without the engine's authority."""
    return [v.rule for v in audit([from_dict(e) for e in events], CARDS_HERE).violations]


# -- BATTLE-09: a card activated in the Damage Step after damage calculation --------------------------

DAMAGE_STEP = [position({"mzone": [c(VORSE, "vorse", position="attack")], "szone": [c(MST, "mst", position="set")]},
                        {"mzone": [c(BATTLE_OX, "ox", position="attack")], "szone": [c(MST, "p1_mst", position="set")]},
                        phase="battle", step="battle"),
               ev("attack_declared", player=0, attacker="vorse", target="ox"), ev("step_entered", step="damage"),
               ev("damage_calculated", destroyed=["ox"], damage=[0, 200])]
MST_AFTER_CALC = ev("activated", player=0, card="mst", targets=["p1_mst"])


def test_battle_09_a_card_its_script_allows_in_the_damage_step_is_an_explained_override():
    assert "BATTLE-09" in refused_by_rules(*DAMAGE_STEP, MST_AFTER_CALC)
    result, overrides = imported(*DAMAGE_STEP, MST_AFTER_CALC, facts=FACTS)
    [o] = [o for o in overrides if o.rule == "BATTLE-09"]
    assert o.cite.card == "mst" and "Damage Step" in o.cite.effect and "damage_step" in o.cite.effect
    assert not o.cite.unexplained and result.engine_allowed[0][1] == ("BATTLE-09",)


def test_battle_09_without_effect_facts_cites_the_card_activated_as_inferred():
    result, overrides = imported(*DAMAGE_STEP, MST_AFTER_CALC)
    [o] = [o for o in overrides if o.rule == "BATTLE-09"]
    assert o.cite.card == "mst" and "inferred" in o.cite.effect and not o.cite.unexplained


# -- DMG-08/01/07: battle damage an effect made 0 ---------------------------------------------------

DIRECT = [position({"mzone": [c(VORSE, "vorse", position="attack")]},
                   {"szone": [c(NO_DAMAGE, "shield", position="faceup")]}, phase="battle", step="battle"),
          ev("attack_declared", player=0, attacker="vorse", target=None), ev("step_entered", step="damage"),
          ev("damage_calculated", destroyed=[], damage=[0, 0])]


def test_dmg_08_damage_made_0_by_a_face_up_card_its_script_explains():
    assert "DMG-08" in refused_by_rules(*DIRECT)
    _, overrides = imported(*DIRECT, facts=FACTS)
    [o] = overrides
    assert o.rule == "DMG-08" and o.cite.card == "shield" and "EFFECT_AVOID_BATTLE_DAMAGE" in o.cite.effect


def test_dmg_08_damage_made_0_with_nothing_to_explain_it_is_unexplained():
    """The attacker is a Normal Monster and no effect facts are known: marked for review."""
    result, overrides = imported(*DIRECT)
    [o] = overrides
    assert o.rule == "DMG-08" and o.cite.unexplained and o.cite.card == "vorse"
    assert any("unexplained, for review" in note for note in result.notes)


# -- SUM-01: a second Normal Summon an effect granted ----------------------------------------------

BOARD = position({"hand": [c(CELTIC, "celtic"), c(BATTLE_OX, "ox"), c(VORSE, "vorse_hand")],
                  "szone": [c(GRANTER, "granter", position="faceup"), c(SETTER, "setter", position="faceup")]})
TWO_SUMMONS = [BOARD, ev("normal_summoned", player=0, card="celtic", zone=1),
               ev("normal_summoned", player=0, card="ox", zone=2)]


def test_sum_01_a_second_normal_summon_cites_the_card_whose_script_grants_it():
    assert refused_by_rules(*TWO_SUMMONS) == ["SUM-01"]
    _, [o] = imported(*TWO_SUMMONS, facts=FACTS)
    assert o.rule == "SUM-01" and o.cite.card == "granter" and "additional Normal Summon" in o.cite.effect


def test_sum_01_the_monster_summoned_is_no_reason_for_a_second_summon():
    """The card summoned cannot grant its own second summon (NOT_ITS_OWN): unexplained."""
    _, [o] = imported(*TWO_SUMMONS)
    assert o.rule == "SUM-01" and o.cite.unexplained and o.cite.card == "ox"


# -- SPELL-03: a monster Set in a Spell & Trap Zone by an effect -----------------------------------

MONSTER_SET_AS_SPELL = [BOARD, ev("spell_trap_set", player=0, card="vorse_hand", zone=3)]


def test_spell_03_a_monster_set_in_the_spell_trap_zone_cites_the_card_whose_script_does_it():
    assert refused_by_rules(*MONSTER_SET_AS_SPELL) == ["SPELL-03"]
    _, [o] = imported(*MONSTER_SET_AS_SPELL, facts=FACTS)
    assert o.cite.card == "setter" and "EFFECT_MONSTER_SSET" in o.cite.effect


# -- PRIO-04: a step changed while a chain was open ------------------------------------------------

STEP_WITH_CHAIN = [position({"mzone": [c(VORSE, "vorse", position="attack")]}, {"hand": [c(KURIBOH, "kuriboh")]},
                            phase="battle", step="battle"),
                   ev("activated", player=1, card="kuriboh", effect_type="quick"), ev("step_entered", step="end")]


def test_prio_04_a_step_change_with_a_chain_open_cites_the_open_link():
    assert "PRIO-04" in refused_by_rules(*STEP_WITH_CHAIN)
    _, overrides = imported(*STEP_WITH_CHAIN)
    [o] = [o for o in overrides if o.rule == "PRIO-04"]
    assert o.cite.card == "kuriboh" and "chain link 1 open" in o.cite.effect and not o.cite.unexplained


# -- SYN-01: Synchro Material from the hand --------------------------------------------------------

SYNCHRO_FROM_HAND = [position({"mzone": [c(CELTIC, "celtic", position="attack")], "hand": [c(JUNK_SYNCHRON, "junk")],
                               "extra": [c(STARDUST, "stardust")]}),
                     ev("special_summoned", player=0, card="stardust", zone=5, method="synchro",
                        materials=["junk", "celtic"])]


def test_syn_01_a_material_from_the_hand_cites_the_card_whose_script_allows_it():
    assert "SYN-01" in refused_by_rules(*SYNCHRO_FROM_HAND)
    _, overrides = imported(*SYNCHRO_FROM_HAND, facts=FACTS)
    assert {o.rule for o in overrides} >= {"SYN-01"}
    assert all(o.cite.card == "junk" and "EFFECT_HAND_SYNCHRO" in o.cite.effect for o in overrides)


# -- PEND-06/03: an Xyz Pendulum monster Pendulum Summoned from the Extra Deck ---------------------

XYZ_PENDULUM_FROM_EXTRA = [position({"extra": [c(XYZ_PENDULUM, "xyzpend", position="faceup")],
                                     "szone": [c(XYZ_PENDULUM, "scale_l", position="faceup")]}),
                           ev("special_summoned", player=0, card="xyzpend", zone=5, method="pendulum")]


def test_pend_06_an_xyz_pendulum_summoned_from_the_extra_deck_is_never_a_violation():
    refused = refused_by_rules(*XYZ_PENDULUM_FROM_EXTRA)
    assert refused and all(rule.startswith(("PEND", "SPS")) for rule in refused)
    _, overrides = imported(*XYZ_PENDULUM_FROM_EXTRA)
    assert sorted(o.rule for o in overrides) == sorted(refused)
    assert all(o.cite.card == "xyzpend" and "own text" in o.cite.effect for o in overrides)


@pytest.mark.parametrize("events", [DAMAGE_STEP, TWO_SUMMONS[:2]], ids=["battle", "one-summon"])
def test_a_legal_play_is_left_as_it_was(events):
    """Nothing the rules allow is cited, and no note is added."""
    result, overrides = imported(*events, facts=FACTS)
    assert result.engine_allowed == [] and all(e.cite is None for e in result.events) and result.notes == []
