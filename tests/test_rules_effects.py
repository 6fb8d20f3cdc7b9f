"""Rules that read what a card's effects are (``rules.effects``, ``rules.timing``, issue 24): the
order of simultaneous triggers (NIS-02), what may be activated in the Damage Step (BATTLE-09/10),
the kind of effect an activation is (EFF-02/06) and missing the timing (NIS-06).

The effect facts are those the cards' scripts declare, written here as ``card_scripts`` reads
them (the scripts themselves are never kept in the repository), or stated by the ``activated``
event for a recorder without scripts. Where neither says, the rule is undecided: nothing is
called, as before the facts were known.
"""
from __future__ import annotations

import pytest
from duel import CARDS, KURIBOH, MST, VORSE, fold, position, refused_with
from test_rules_gaps import DAMAGE_STEP, attack_on, c, ev

from ygoreplay.cards import CardDB, CardFacts
from ygoreplay.effect_facts import EffectFact
from ygoreplay.events import from_dict

SANGAN, WITCH, SHINING_ANGEL, MAN_EATER, EXILED_FORCE = 26202165, 78010363, 95956346, 54652250, 74131780
STARDUST, YATA, MIRROR_FORCE = 44508094, 3078576, 44095762
RUSH, VEILER = 990101, 990104          # this file's own: an ATK-changing Quick-Play Spell, a Quick Effect monster

CARDS_HERE = CARDS.merged(CardDB([CardFacts(code=RUSH, name="Test Rush", type=0x10002),
                                  CardFacts(code=VEILER, name="Test Veiler", type=0x21, level=1, atk=0)]))

#: What the scripts declare, in ``card_scripts``' words.
FACTS = {
    KURIBOH: (EffectFact(("quick_o",), "EVENT_PRE_DAMAGE_CALCULATE"),
              EffectFact(("field",), "EFFECT_AVOID_BATTLE_DAMAGE", ("player_target",), initial=False)),
    SANGAN: (EffectFact(("single", "trigger_f"), "EVENT_TO_GRAVE", (), ("tohand", "search"), 1, "id"),),
    WITCH: (EffectFact(("single", "trigger_f"), "EVENT_TO_GRAVE", (), ("tohand", "search"), 1, "id"),),
    SHINING_ANGEL: (EffectFact(("single", "trigger_o"), "EVENT_BATTLE_DESTROYED", (), ("special_summon",)),),
    MAN_EATER: (EffectFact(("single", "flip"), "", ("card_target",), ("destroy",)),),
    EXILED_FORCE: (EffectFact(("ignition",), "", ("card_target",), ("destroy",)),),
    MST: (EffectFact(("activate",), "EVENT_FREE_CHAIN", ("card_target",), ("destroy",)),),
    MIRROR_FORCE: (EffectFact(("activate",), "EVENT_ATTACK_ANNOUNCE", (), ("destroy",)),),
    STARDUST: (EffectFact(("quick_o",), "EVENT_CHAINING", ("damage_step", "damage_cal"), ("negate", "destroy")),
               EffectFact(("trigger_o", "field"), "EVENT_PHASE+PHASE_END", (), ("special_summon",), 1)),
    YATA: (EffectFact(("helper",), "Spirit.AddProcedure"),
           EffectFact(("single", "trigger_f"), "EVENT_BATTLE_DAMAGE")),
    RUSH: (EffectFact(("activate",), "EVENT_FREE_CHAIN", ("damage_step", "card_target"), ("atkchange",)),),
    VEILER: (EffectFact(("quick_o",), "EVENT_FREE_CHAIN", ("card_target",), ("disable",)),
             EffectFact(("single",), "EFFECT_DISABLE", initial=False)),
}
SCRIPTS = CARDS_HERE.with_effects(FACTS)


def act(card: str, player: int = 0, **fields) -> dict:
    return ev("activated", player=player, card=card, **fields)


def legal(*events: dict, cards: CardDB = SCRIPTS) -> None:
    fold(*events, cards=cards)


def check(events: list[dict], rule: str, says: str = "", cards: CardDB = SCRIPTS) -> None:
    refused_with(events, rule, says, cards)


# -- NIS-02: simultaneous triggers, turn player's mandatory first ------------------------------------

GRAVES = position({"gy": [c(SANGAN, "sangan"), c(SHINING_ANGEL, "angel")]},
                  {"gy": [c(WITCH, "witch"), c(SHINING_ANGEL, "p1_angel")]})


def trigger(card: str, player: int, **fields) -> dict:
    return act(card, player, effect_type="trigger", simultaneous=True, **fields)


def test_nis_02_segoc_mandatory_before_optional_turn_player_first():
    """NIS-02: the turn player's mandatory, the opponent's mandatory, the turn player's optional,
    the opponent's optional."""
    legal(GRAVES, trigger("sangan", 0), trigger("witch", 1), trigger("angel", 0), trigger("p1_angel", 1))
    legal(GRAVES, trigger("sangan", 0), trigger("angel", 0), trigger("p1_angel", 1))


@pytest.mark.parametrize("events, says", [
    pytest.param([trigger("angel", 0), trigger("witch", 1)], "the turn player's optional triggers", id="optional-first"),
    pytest.param([trigger("witch", 1), trigger("sangan", 0)], "the opponent's mandatory triggers", id="opponent-first"),
    pytest.param([trigger("sangan", 0), trigger("p1_angel", 1), trigger("angel", 0)], "the opponent's optional",
                 id="opponent-optional-before-turn-player-optional"),
])
def test_nis_02_simultaneous_triggers_out_of_order_refused(events, says):
    check([GRAVES, *events], "NIS-02", says)


def test_nis_02_a_recorder_without_scripts_states_which_trigger_is_mandatory():
    """NIS-02 read from the events' ``mandatory``; with neither scripts nor the field, undecided."""
    check([GRAVES, trigger("angel", 0, mandatory=False), trigger("witch", 1, mandatory=True)], "NIS-02",
          cards=CARDS_HERE)
    legal(GRAVES, trigger("angel", 0), trigger("witch", 1), cards=CARDS_HERE)
    legal(GRAVES, trigger("angel", 0, mandatory=False), trigger("witch", 1), cards=CARDS_HERE)


def test_nis_02_the_scripts_word_beats_the_events():
    """Sangan's script declares a mandatory trigger: an event calling it optional changes nothing."""
    check([GRAVES, trigger("angel", 0), trigger("sangan", 0, mandatory=False)], "NIS-02")


# -- BATTLE-09/10: the Damage Step ------------------------------------------------------------------

BATTLE = position({"mzone": [c(VORSE, "vorse", position="attack")],
                   "szone": [c(MST, "mst", position="set"), c(RUSH, "rush", position="set")]},
                  {"mzone": [c(MAN_EATER, "bug", position="set")], "hand": [c(KURIBOH, "kuriboh")],
                   "szone": [c(MST, "p1_mst", position="set"), c(MIRROR_FORCE, "mirror", position="set")]},
                  phase="battle", step="battle")
CALC = ev("damage_calculated", destroyed=["bug"], damage=[0, 0])


def test_battle_09_an_effect_its_script_allows_in_the_damage_step():
    """BATTLE-09: an ATK change (EFFECT_FLAG_DAMAGE_STEP) before damage calculation; Kuriboh's
    effect answering damage calculation."""
    legal(BATTLE, *attack_on("bug"), act("rush", targets=["vorse"]))
    legal(BATTLE, *attack_on("bug"), act("kuriboh", 1, effect_type="quick"))


@pytest.mark.parametrize("events", [
    pytest.param([act("mst", targets=["p1_mst"])], id="before-damage-calculation"),
    pytest.param([CALC, act("mst", targets=["p1_mst"])], id="after-damage-calculation"),
    pytest.param([act("mirror", 1)], id="a-trap-of-the-battle-step"),
])
def test_battle_09_an_effect_its_script_keeps_out_of_the_damage_step_refused(events):
    check([BATTLE, *attack_on("bug"), *events], "BATTLE-09", "its script declares it is not one")


def test_battle_09_unknown_effects_are_undecided_before_damage_calculation():
    """Without the script (or the event's word) MST in the Damage Step is not called."""
    legal(BATTLE, *attack_on("bug"), act("mst", targets=["p1_mst"]), cards=CARDS_HERE)


def test_battle_09_a_recorder_without_scripts_states_damage_step_use():
    check([BATTLE, *attack_on("bug"), act("mst", targets=["p1_mst"], damage_step=False)], "BATTLE-09",
          "the record says it is not one", cards=CARDS_HERE)
    legal(BATTLE, *attack_on("bug"), CALC, act("mst", targets=["p1_mst"], damage_step=True), cards=CARDS_HERE)


def test_battle_09_an_effect_usable_in_the_damage_step_but_not_after_damage_calculation_refused():
    """BATTLE-09: Test Chalice (usable in the Damage Step, negating no activation) is not usable
    once damage is calculated; before, it is."""
    chalice = CardDB([CardFacts(code=990107, name="Test Chalice", type=0x10002)])
    cards = SCRIPTS.merged(chalice).with_effects(
        {990107: (EffectFact(("activate",), "EVENT_FREE_CHAIN", ("damage_step", "card_target"), ("disable", "atkchange")),)})
    board = position({"mzone": [c(VORSE, "vorse", position="attack")], "szone": [c(990107, "chalice", position="set")]},
                     {"mzone": [c(MAN_EATER, "bug", position="set")]}, phase="battle", step="battle")
    legal(board, *attack_on("bug"), act("chalice", targets=["bug"]), cards=cards)
    check([board, *attack_on("bug"), CALC, act("chalice", targets=["vorse"])], "BATTLE-09", "damage has been calculated",
          cards=cards)


def test_battle_10_an_atk_change_until_damage_calculation():
    """BATTLE-10: an ATK/DEF change is activated in the Damage Step until damage calculation."""
    legal(BATTLE, *attack_on("bug"), act("rush", targets=["vorse"]), ev("chain_link_resolved", link=1))


def test_battle_10_an_atk_change_after_damage_calculation_refused():
    check([BATTLE, *attack_on("bug"), CALC, act("rush", targets=["vorse"])], "BATTLE-10", "only changes ATK/DEF")


# -- EFF-02/06: the kind of effect is the script's ----------------------------------------------------

MAIN = position({"mzone": [c(EXILED_FORCE, "exiled", position="attack"), c(YATA, "yata", position="attack")],
                 "hand": [c(KURIBOH, "kuriboh")], "szone": [c(MST, "mst", position="set")],
                 "gy": [c(SANGAN, "sangan")]},
                {"mzone": [c(STARDUST, "stardust", position="attack")], "szone": [c(MST, "p1_mst", position="set")],
                 "hand": [c(VEILER, "veiler")]})
VEILER_ANSWERS = [MAIN, act("exiled", effect_type="ignition", targets=["stardust"]),
                  act("veiler", 1, effect_type="trigger", targets=["exiled"])]
EXILED_ANSWERS = [MAIN, act("p1_mst", 1, targets=["mst"]), act("exiled", effect_type="quick", targets=["stardust"])]


def test_eff_06_a_quick_effect_is_spell_speed_2_whatever_the_record_calls_it():
    """EFF-06: Test Veiler's script declares only a Quick Effect: chained as a "trigger" it is still
    Spell Speed 2. Without the script the record's word stands (CHAIN-02)."""
    state = fold(*VEILER_ANSWERS, cards=SCRIPTS)
    assert [link.speed for link in state.chain] == [1, 2]
    check(VEILER_ANSWERS, "CHAIN-02", cards=CARDS_HERE)


def test_eff_02_an_ignition_effect_its_script_declares_is_chain_link_1():
    legal(MAIN, act("exiled", effect_type="ignition", targets=["stardust"]))
    legal(*EXILED_ANSWERS, cards=CARDS_HERE)          # without the script: the record's Quick Effect


def test_eff_02_an_ignition_effect_chained_as_a_quick_effect_refused():
    """EFF-02: Exiled Force's script declares only an Ignition Effect: called a Quick Effect, it is
    still Spell Speed 1 and needs an open game state."""
    check(EXILED_ANSWERS, "EFF-02", "script declares only ignition effects: not quick")


def test_eff_06_a_card_whose_script_calls_a_shared_procedure_is_undecided():
    """Yata-Garasu's Spirit procedure declares effects the reader does not follow; a card with Xyz
    Materials may have been given an effect: neither is judged by its own script."""
    legal(MAIN, act("p1_mst", 1, targets=["mst"]), act("yata", effect_type="quick"))


# -- NIS-06: missing the timing ------------------------------------------------------------------------

MOLE, IF_MOLE = 990102, 990103           # this file's own monsters: a "when ... you can" and an "if" trigger
DUST_TORNADO, DARK_HOLE = 60082869, 53129443
TIMING_CARDS = SCRIPTS.merged(CardDB([CardFacts(code=MOLE, name="Test Mole", type=0x21, level=2, atk=1000),
                                      CardFacts(code=IF_MOLE, name="Test If Mole", type=0x21, level=2, atk=1000)]))
TIMING_CARDS = TIMING_CARDS.with_effects({
    MOLE: (EffectFact(("single", "trigger_o"), "EVENT_TO_GRAVE", (), ("draw",)),),
    IF_MOLE: (EffectFact(("single", "trigger_o"), "EVENT_TO_GRAVE", ("delay",), ("draw",)),)})
TWO_LINKS = position({"mzone": [c(MOLE, "mole", position="attack"), c(IF_MOLE, "if_mole", position="attack")],
                      "hand": [c(DARK_HOLE, "hole")]},
                     {"mzone": [c(VORSE, "p1_vorse", position="attack")], "szone": [c(DUST_TORNADO, "dust", position="set")]})


def chain_sending(card: str, in_link: int) -> list[dict]:
    """Dark Hole (Chain Link 1) answered by Dust Tornado (2): ``card`` goes to the GY while link
    ``in_link`` resolves; Dark Hole then destroys the opponent's monster."""
    sent = ev("card_moved", card=card, to=[0, "gy"], reason="destroyed")
    return [act("hole", zone=2), act("dust", 1, speed=2),
            ev("chain_link_resolved", link=2), *([sent] if in_link == 2 else []),
            ev("chain_link_resolved", link=1), *([sent] if in_link == 1 else []),
            ev("card_moved", card="p1_vorse", to=[1, "gy"], reason="destroyed", cause="hole"),
            ev("card_moved", card="hole", to=[0, "gy"], reason="resolved"),
            ev("card_moved", card="dust", to=[1, "gy"], reason="resolved"), ev("chain_ended")]


def test_nis_06_an_if_trigger_or_the_last_thing_to_happen_does_not_miss_the_timing():
    """NIS-06: an "if" trigger (EFFECT_FLAG_DELAY) activates after its chain whatever followed its
    event; a "when" trigger whose event was the last link's activates too."""
    legal(TWO_LINKS, *chain_sending("if_mole", 2), act("if_mole", effect_type="trigger"), cards=TIMING_CARDS)
    legal(TWO_LINKS, *chain_sending("mole", 1), act("mole", effect_type="trigger"), cards=TIMING_CARDS)


def test_nis_06_a_when_trigger_whose_event_was_not_the_last_thing_refused():
    """NIS-06: sent to the GY while Chain Link 2 resolved, then Dark Hole destroyed a monster."""
    check([TWO_LINKS, *chain_sending("mole", 2), act("mole", effect_type="trigger")], "NIS-06",
          "missed the timing", cards=TIMING_CARDS)


def test_nis_06_a_recorder_without_scripts_states_when_or_if():
    """NIS-06 read from the event's ``timing``; with neither a script nor the field, undecided."""
    no_scripts = CARDS_HERE.merged(CardDB([TIMING_CARDS[MOLE], TIMING_CARDS[IF_MOLE]]))
    check([TWO_LINKS, *chain_sending("mole", 2), act("mole", effect_type="trigger", timing="when")], "NIS-06",
          "the record says", cards=no_scripts)
    legal(TWO_LINKS, *chain_sending("mole", 2), act("mole", effect_type="trigger", timing="if"), cards=no_scripts)
    legal(TWO_LINKS, *chain_sending("mole", 2), act("mole", effect_type="trigger"), cards=no_scripts)


# -- the activated event's own word (version 3) -----------------------------------------------------------

@pytest.mark.parametrize("line", [
    '{"kind": "activated", "card": "p0.m1", "effect_type": "quick"}',
    '{"kind": "activated", "v": 2, "card": "p0.m1", "negates": 1}',
])
def test_an_activation_written_before_version_3_loads_unchanged(line):
    """An older record says nothing of the effect's facts: it loads with none, and is written back
    as it was (its bytes, and so its hash chain, unchanged)."""
    import json
    event = from_dict(json.loads(line))
    assert (event.mandatory, event.damage_step, event.timing) == (None, None, None)
    assert event.to_dict() == json.loads(line)
    stated = from_dict({**json.loads(line), "mandatory": False, "timing": "if", "v": 3})
    assert stated.to_dict()["v"] == 3 and from_dict(stated.to_dict()) == stated


# -- SUM-07 / SPS-09: Tributes and materials a summon sent to the GY ---------------------------------

SUMMONED_SKULL, JUNK_SYNCHRON, JUNK_WARRIOR = 70781052, 63977008, 60800381
SUMMONING = position({"mzone": [c(MOLE, "mole", position="attack"), c(IF_MOLE, "if_mole", position="attack"),
                                c(JUNK_SYNCHRON, "junk", position="attack")],
                      "hand": [c(SUMMONED_SKULL, "skull")], "extra": [c(JUNK_WARRIOR, "warrior")]})


def tribute_summon(tribute: str) -> dict:
    return ev("normal_summoned", player=0, card="skull", zone=0 if tribute == "mole" else 1, tributes=[tribute])


def synchro_summon(material: str) -> dict:
    return ev("special_summoned", player=0, card="warrior", zone=3, method="synchro", materials=["junk", material])


def test_sum_07_sps_09_an_if_trigger_of_a_tribute_or_a_material_activates():
    """SUM-07, SPS-09: an "if" trigger (EFFECT_FLAG_DELAY) of a Tribute or a Synchro Material
    activates after the summon."""
    legal(SUMMONING, tribute_summon("if_mole"), act("if_mole", effect_type="trigger"), cards=TIMING_CARDS)
    legal(SUMMONING, synchro_summon("if_mole"), act("if_mole", effect_type="trigger"), cards=TIMING_CARDS)


def test_sum_07_a_when_trigger_of_a_tribute_refused():
    check([SUMMONING, tribute_summon("mole"), act("mole", effect_type="trigger")], "SUM-07",
          "Tributed for a Tribute Summon", cards=TIMING_CARDS)


def test_sps_09_a_when_trigger_of_a_synchro_material_refused():
    check([SUMMONING, synchro_summon("mole"), act("mole", effect_type="trigger")], "SPS-09",
          "sent to the GY for a summon procedure", cards=TIMING_CARDS)


# -- SUM-12 / SPS-06: a trigger on the card's own Flip Summon or Special Summon -------------------------

FLIPPER, ARRIVAL = 990105, 990106        # this file's own: "when Flip Summoned", "when Special Summoned"
SUMMON_CARDS = TIMING_CARDS.merged(CardDB([CardFacts(code=FLIPPER, name="Test Flipper", type=0x21, level=3, atk=500),
                                           CardFacts(code=ARRIVAL, name="Test Arrival", type=0x21, level=3, atk=500)]))
SUMMON_CARDS = SUMMON_CARDS.with_effects({
    FLIPPER: (EffectFact(("single", "trigger_o"), "EVENT_FLIP_SUMMON_SUCCESS", (), ("destroy",)),),
    ARRIVAL: (EffectFact(("single", "trigger_o"), "EVENT_SPSUMMON_SUCCESS", ("delay",), ("draw",)),)})
ARRIVALS = position({"mzone": [c(FLIPPER, "flipper", position="set")], "hand": [c(FLIPPER, "flipper_hand"),
                     c(ARRIVAL, "arrival_hand")], "gy": [c(ARRIVAL, "arrival")]}, {"hand": [c(MST, "p1_mst")]})


def test_sum_12_sps_06_a_trigger_on_the_summon_it_answers():
    """SUM-12: a "when Flip Summoned" trigger after a Flip Summon; SPS-06: a "when Special
    Summoned" one after a Special Summon."""
    legal(ARRIVALS, ev("flip_summoned", player=0, card="flipper"), act("flipper", effect_type="trigger"),
          cards=SUMMON_CARDS)
    legal(ARRIVALS, ev("special_summoned", player=0, card="arrival", zone=1, method="effect", cause="p1_mst"),
          act("arrival", effect_type="trigger"), cards=SUMMON_CARDS)


def test_sum_12_a_when_flip_summoned_trigger_without_a_flip_summon_refused():
    check([ARRIVALS, ev("normal_summoned", player=0, card="flipper_hand", zone=1),
           act("flipper_hand", effect_type="trigger")], "SUM-12", "it was Normal Summoned", cards=SUMMON_CARDS)


def test_sps_06_a_when_special_summoned_trigger_without_a_special_summon_refused():
    check([ARRIVALS, ev("normal_summoned", player=0, card="arrival_hand", zone=1),
           act("arrival_hand", effect_type="trigger")], "SPS-06", "answers its being Special Summoned",
          cards=SUMMON_CARDS)


def test_sum_12_how_a_set_up_monster_arrived_is_unknown():
    """A monster of a set-up position arrived no one knows how: its trigger is not judged."""
    legal(ARRIVALS, ev("position_changed", card="flipper", position="attack", cause="p1_mst"),
          act("flipper", effect_type="trigger"), cards=SUMMON_CARDS)
