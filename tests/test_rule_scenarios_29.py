"""Duel scenarios a head judge rules on, recorded as a table's recorder writes them (issue 25,
thirteenth pass: judge13).

Let through though illegal:

* PRIO-05 (PRIO-03): an attack declared in a Battle Step both players had ended (the turn player
  passed, declaring its end, and the opponent passed too), or after the turn player's own pass
  while the opponent held priority to answer the end. Only the End Step may follow.
* SYN-01, CARD-07, LINK-02, RIT-02: a Synchro, Link or Ritual Summon whose materials the record did
  not know (face-up monsters entered without their names, cards Tributed from a hidden hand) was
  left undecided, and nothing judged it once they were shown: only an Xyz material was re-judged.
  Their rules are on all the materials together (a sum, exactly one Tuner), so the summon is
  judged once the last unknown material is shown, whenever and wherever.
* PRIO-05, SPS-11 (gap 3): an event that neither uses priority nor passes it (a card shown, an LP
  change, a card moved by the rules) restarted the count of passes: a phase both players had ended
  reopened (the turn player summoned in it), and a summon both players had passed on could be
  negated after an LP change.

Refused though legal:

* PRIO-01/03 (gap 3): battle damage entered between the turn player's pass and the opponent's (the
  page offers it whenever it is due) made the opponent's pass "out of turn".

Then scenarios of the areas the earlier passes covered least, each as a judge rules it (chains on
summon timing, Damage Step timings, Pendulum placement, Extra Link, control changes, equips leaving,
the hand in the End Phase, Tokens as materials, negated summons and revival, rollbacks): the legal
play accepted, the illegal one refused with the rule that forbids it. These held on the old code;
they are kept as the judge's rulings.
"""
from __future__ import annotations

import pytest
from test_rule_scenarios_27 import ev, history, refused_at, table
from test_rule_scenarios_28 import BOARD, ENDED, SUMMON, passed
from test_rules_battle import attack, battle_damage, calc, step

from duel import (
    CARDS, CELTIC, DECODE_TALKER, KURIBOH, LINK_SPIDER, MST, STARDUST, SUMMONED_SKULL, VORSE, fold, position,
    refused_with)

from ygoreplay.events import from_dict
from ygoreplay.rules import audit

JUNK_SYNCHRON, DARK_MAGICIAN, PROXY_DRAGON = 63977008, 46986414, 22862454
BLACK_LUSTER_SOLDIER, BLACK_LUSTER_RITUAL = 5405694, 55761792

# == PRIO-05: the Battle Step both players ended takes no attack =====================================

BATTLE_STEP = position({"mzone": [{"code": VORSE, "id": "v"}, {"code": CELTIC, "id": "cel0"}]},
                       {"mzone": [{"code": CELTIC, "id": "cel"}], "szone": [{"code": MST, "id": "p1_mst",
                                                                             "position": "set"}],
                        "hand": [{"code": KURIBOH, "id": "kb"}]},
                       phase="battle", step="battle")
STEP_ENDED = "both players passed in succession with no chain open: the Battle Step has ended (PRIO-05)"


def test_prio_05_an_attack_after_both_players_ended_the_battle_step_is_refused() -> None:
    """PRIO-04/05, BATTLE-05: in the Battle Step the turn player passes, declaring its end, and the
    opponent passes too: the Battle Step has ended, the End Step follows, and no attack is declared
    in it. Before: Vorse Raider's attack was accepted."""
    refused_with([BATTLE_STEP, passed(0), passed(1), attack("v", "cel")], "PRIO-05", STEP_ENDED)
    state = fold(BATTLE_STEP, passed(0), passed(1), step("end"))
    assert state.step == "end"


def test_prio_03_after_declaring_the_end_of_the_battle_step_the_turn_player_does_not_attack() -> None:
    """PRIO-03/05: after the turn player's own pass the opponent holds priority, to answer the end
    of the Battle Step or pass: the turn player declares no attack meanwhile. Before: accepted."""
    refused_with([BATTLE_STEP, passed(0), attack("v", "cel")], "PRIO-03",
                 "player 0 passed priority, declaring the end of the Battle Step: player 1 holds it")


def test_prio_05_the_opponent_answers_the_end_of_the_battle_step_and_the_attacks_go_on() -> None:
    """PRIO-05: the opponent answers the end (Mystical Space Typhoon on nothing of note); once the
    chain has resolved the turn player holds priority again and declares an attack; after the
    Damage Step, back in the Battle Step, a second monster attacks."""
    state = fold(BATTLE_STEP, passed(0), ev("activated", player=1, card="p1_mst", targets=[]), passed(0), passed(1),
                 ev("chain_link_resolved", link=1), ev("card_moved", card="p1_mst", to=[1, "gy"], reason="resolved"),
                 ev("chain_ended"), attack("v", "cel"), passed(0), passed(1), step("damage"),
                 calc(["cel"], (0, 500)), battle_damage(1, 500), ev("card_moved", card="cel", to=[1, "gy"],
                                                                    reason="battle"),
                 step("battle"), attack("cel0"))
    assert state.attack.attacker == "cel0" and state.cards["cel"].zone == "gy"


# == SYN-01, LINK-02, RIT-02: unseen materials judged together once shown ============================

def unseen_summons(extra: list[int], count: int, witnessed: bool = True) -> list[dict]:
    """Player 1 (``extra`` in the Extra Deck) Special Summons ``count`` monsters by effect from a
    hand the recorder does not see, entered without their names (#15 on)."""
    events = table(witnessed)
    events[2] = {**events[2], "extra": extra}
    return [*events, *(ev("special_summoned", player=1, card=f"p1.m{i}", zone=i, position="attack",
                          method="effect", cause=f"p1.m{i}") for i in range(count))]


def synchro(witnessed: bool = True, count: int = 2) -> list[dict]:
    """... then Synchro Summons Stardust Dragon (Level 8) with them (#15 + count)."""
    return [*unseen_summons([STARDUST], count, witnessed),
            ev("special_summoned", player=1, card="p1.x0", zone=5, position="attack", method="synchro",
               materials=[f"p1.m{i}" for i in range(count)], shows={"p1.x0": STARDUST})]


def shown_in_gy(**codes: int) -> dict:
    """The cards (in the GY, public) shown by name: ``{card id: passcode}``."""
    return ev("card_revealed", cards=list(codes), cause="p0.m0", shows=codes)


SYN_WORDS = ("the Synchro Summon of Stardust Dragon at #17, whose materials the record did not all know then, "
             "judged now they are shown: ")


def test_syn_01_unseen_synchro_materials_shown_to_sum_wrong_are_flagged() -> None:
    """SYN-01: Stardust Dragon's two materials, unseen at the summon (#17, undecided), are shown in
    the GY as Junk Synchron (Level 3, a Tuner) and Summoned Skull (Level 6): 9, not 8. Flagged at
    the event that shows them, naming the summon; refused in a machine's record, collected by an
    audit. Before: never judged."""
    events = [*synchro(), shown_in_gy(**{"p1.m0": JUNK_SYNCHRON, "p1.m1": SUMMONED_SKULL})]
    h = history(events)
    assert {u.rule for u in h.undecided if u.index == 17} == {"CARD-07"}   # the first check to read them
    assert [(f.index, f.rule) for f in h.flags] == [(18, "SYN-01")]
    assert h.flags[0].message == SYN_WORDS + ("the materials' Levels sum to 9; Stardust Dragon is Level 8 and needs "
                                              "exactly that")
    machine = [*synchro(witnessed=False), events[-1]]
    v = refused_at(machine)
    assert (v.rule, v.index) == ("SYN-01", 18)
    assert [(v.index, v.rule) for v in audit([from_dict(e) for e in machine], CARDS).violations] == [(18, "SYN-01")]


@pytest.mark.parametrize("shown, rule, says", [
    pytest.param({"p1.m0": CELTIC, "p1.m1": VORSE}, "SYN-01", "not 0 Tuner(s) and 2 non-Tuner(s)", id="no-tuner"),
    pytest.param({"p1.m0": JUNK_SYNCHRON, "p1.m1": JUNK_SYNCHRON}, "SYN-01", "not 2 Tuner(s)", id="two-tuners"),
])
def test_syn_01_unseen_synchro_materials_without_one_tuner_are_flagged(shown: dict, rule: str, says: str) -> None:
    """SYN-01: exactly one Tuner: none, or two, shown among the unseen materials is flagged."""
    h = history([*synchro(), shown_in_gy(**shown)])
    assert [(f.index, f.rule) for f in h.flags] == [(18, rule)] and says in h.flags[0].message


def test_syn_01_unseen_materials_shown_one_by_one_are_judged_at_the_last() -> None:
    """SYN-01: three unseen materials shown one event at a time (Junk Synchron, Celtic Guardian,
    then Vorse Raider: 3 + 4 + 4 = 11): nothing is judged until the last is shown, and it is the
    event flagged."""
    events = [*synchro(count=3), shown_in_gy(**{"p1.m0": JUNK_SYNCHRON}), shown_in_gy(**{"p1.m1": CELTIC}),
              shown_in_gy(**{"p1.m2": VORSE})]
    h = history(events)
    assert [(f.index, f.rule) for f in h.flags] == [(21, "SYN-01")]
    assert "at #18" in h.flags[0].message and "sum to 11" in h.flags[0].message


@pytest.mark.parametrize("shown", [
    pytest.param({"p1.m0": JUNK_SYNCHRON, "p1.m1": CELTIC, "p1.m2": KURIBOH}, id="3+4+1-together"),
    pytest.param({"p1.m2": KURIBOH, "p1.m0": JUNK_SYNCHRON, "p1.m1": CELTIC}, id="any-order"),
])
def test_syn_01_unseen_synchro_materials_shown_legal_stand(shown: dict) -> None:
    """SYN-01: Junk Synchron (Tuner, 3) + Celtic Guardian (4) + Kuriboh (1) = 8: nothing flagged."""
    assert history([*synchro(count=3), shown_in_gy(**shown)]).flags == []


def test_syn_01_one_unseen_material_left_unknown_leaves_the_summon_unjudged() -> None:
    """SYN-01: only one of the two materials is ever shown (two Tuners would be illegal whatever
    the other is, but its Level is what a judge needs for the sum): nothing is called."""
    assert history([*synchro(), shown_in_gy(**{"p1.m0": SUMMONED_SKULL})]).flags == []


def link(count: int, witnessed: bool = True) -> list[dict]:
    """Player 1 Link Summons Link Spider (Link-1) from one unseen monster (#16 after one summon),
    then Decode Talker (Link-3) from Link Spider and ``count`` more unseen monsters."""
    events = unseen_summons([LINK_SPIDER, DECODE_TALKER], 1 + count, witnessed)
    spider = ev("special_summoned", player=1, card="p1.x0", zone=5, position="attack", method="link",
                materials=["p1.m0"], shows={"p1.x0": LINK_SPIDER})
    decode = ev("special_summoned", player=1, card="p1.x1", zone=5, position="attack", method="link",
                materials=["p1.x0", *(f"p1.m{i}" for i in range(1, 1 + count))], shows={"p1.x1": DECODE_TALKER})
    return [*events, spider, decode]


def test_link_02_an_unseen_link_material_shown_not_to_make_the_rating_is_flagged() -> None:
    """LINK-02/03: Decode Talker (Link-3) from Link Spider (Link-1: counts 1) and one unseen monster,
    shown in the GY as Celtic Guardian (1): 2, never 3. Before: undecided, never judged."""
    events = [*link(1), shown_in_gy(**{"p1.m1": CELTIC})]
    h = history(events)
    assert [(f.index, f.rule) for f in h.flags] == [(19, "LINK-02")]
    assert ("the Link Summon of Decode Talker at #18, whose materials the record did not all know then, judged now "
            "they are shown: 2 material(s) can count [2]") in h.flags[0].message
    v = refused_at([*link(1, witnessed=False), events[-1]])
    assert (v.rule, v.index) == ("LINK-02", 19)


@pytest.mark.parametrize("events", [
    pytest.param([*link(2), shown_in_gy(**{"p1.m1": CELTIC, "p1.m2": VORSE})], id="spider-and-two-monsters"),
    pytest.param([*link(0)[:-1], shown_in_gy(**{"p1.m0": CELTIC})], id="link-1-from-one"),
])
def test_link_02_unseen_link_materials_shown_legal_stand(events: list[dict]) -> None:
    """LINK-02: Link Spider (1) + two monsters (1 each) = 3 for Decode Talker; one monster for
    Link Spider (the first summon): nothing flagged."""
    assert history(events).flags == []


def ritual(*tributes: str, witnessed: bool = True) -> list[dict]:
    """Player 1 activates Black Luster Ritual and Ritual Summons Black Luster Soldier (Level 8)
    Tributing cards from a hand the recorder does not see (#17)."""
    return [*table(witnessed), ev("activated", player=1, card="p1.m4", zone=0, shows={"p1.m4": BLACK_LUSTER_RITUAL}),
            ev("chain_link_resolved", link=1),
            ev("special_summoned", player=1, card="p1.m5", zone=2, position="attack", method="ritual",
               cause="p1.m4", materials=list(tributes), shows={"p1.m5": BLACK_LUSTER_SOLDIER})]


def test_rit_02_unseen_ritual_tributes_shown_short_of_the_level_are_flagged() -> None:
    """RIT-02 (CONF-19): the two Tributes from the hidden hand are shown in the GY as Celtic
    Guardian (4) and Kuriboh (1): 5, short of Black Luster Soldier's 8. Before: never judged."""
    events = [*ritual("p1.m0", "p1.m1"), shown_in_gy(**{"p1.m0": CELTIC, "p1.m1": KURIBOH})]
    h = history(events)
    assert [(f.index, f.rule) for f in h.flags] == [(18, "RIT-02")]
    assert ("the Ritual Summon of Black Luster Soldier at #17, whose materials the record did not all know then, "
            "judged now they are shown: the Tributes' Levels total 5") in h.flags[0].message
    v = refused_at([*ritual("p1.m0", "p1.m1", witnessed=False), events[-1]])
    assert (v.rule, v.index) == ("RIT-02", 18)


@pytest.mark.parametrize("shown", [
    pytest.param({"p1.m0": DARK_MAGICIAN, "p1.m1": KURIBOH}, id="7+1-exactly"),
    pytest.param({"p1.m0": SUMMONED_SKULL, "p1.m1": VORSE}, id="6+4-at-least"),
])
def test_rit_02_unseen_ritual_tributes_shown_legal_stand(shown: dict) -> None:
    assert history([*ritual("p1.m0", "p1.m1"), shown_in_gy(**shown)]).flags == []


def test_rit_02_a_cited_ritual_summon_is_not_judged_again() -> None:
    """GEN-01: a Ritual Summon citing the effect that allows it (its Tributes "equal to" or another
    rule, the card's) sets RIT-02 aside then; showing its Tributes later calls nothing."""
    events = ritual("p1.m0", "p1.m1")
    events[-1] = {**events[-1], "cite": {"card": "p1.m4", "effect": "Tribute any"}}
    assert history([*events, shown_in_gy(**{"p1.m0": CELTIC, "p1.m1": KURIBOH})]).flags == []


# == PRIO-05, SPS-11, PRIO-01: what uses no priority keeps the passes ===============================

REVEAL_HAND = ev("card_revealed", player=0, cards=["celtic"])
LP_CHANGE = ev("life_points_changed", player=0, amount=500, reason="effect_damage", cause="p1_mst")


@pytest.mark.parametrize("between", [pytest.param(REVEAL_HAND, id="a-reveal"), pytest.param(LP_CHANGE, id="lp"),
                                     pytest.param(ev("die_rolled", results=[3]), id="a-die")])
def test_prio_05_a_reveal_or_lp_change_does_not_reopen_an_ended_phase(between: dict) -> None:
    """PRIO-05, PRIO-03: both players passed, ending Main Phase 1; a card shown, LP lost or a die
    rolled uses no priority: the phase stays ended, and the Normal Summon after it is refused.
    Before: the event restarted the count of passes, and the summon was accepted."""
    refused_with([BOARD, passed(0), passed(1), between, SUMMON], "SUM-01", ENDED)


def test_sps_11_a_summon_passed_on_is_not_negated_after_an_lp_change() -> None:
    """SPS-11: both players passed on the Normal Summon of Celtic Guardian: it has succeeded. An
    LP change after that does not reopen it to negation. Before: accepted."""
    refused_with([BOARD, SUMMON, passed(0), passed(1), LP_CHANGE, ev("summon_negated", card="celtic")], "SPS-11",
                 "both players passed after Celtic Guardian was summoned")


def test_prio_01_battle_damage_entered_between_the_passes_keeps_the_opponents_turn_to_pass() -> None:
    """PRIO-01/03, NIS-03: after damage calculation the turn player passes; the battle damage is
    entered, then the opponent passes. The damage uses no priority: the opponent's pass is theirs
    to make. Before: refused as PRIO-01 (the damage restarted the passes)."""
    state = fold(BATTLE_STEP, attack("v", "cel"), passed(0), passed(1), step("damage"), passed(0), passed(1),
                 calc(["cel"], (0, 500)), passed(0), battle_damage(1, 500),
                 ev("card_moved", card="cel", to=[1, "gy"], reason="battle"), passed(1), step("battle"))
    assert state.step == "battle" and state.cards["cel"].zone == "gy"


def test_prio_03_a_reveal_after_the_turn_players_pass_does_not_give_priority_back() -> None:
    """PRIO-03/05: the turn player passed, declaring the end; showing a card in hand gives them no
    priority back: still no Normal Summon. Before: accepted."""
    refused_with([BOARD, passed(0), REVEAL_HAND, SUMMON], "SUM-01",
                 "player 0 passed priority, declaring the end of the Main Phase 1")


def test_prio_05_actions_with_priority_still_break_the_passes() -> None:
    """PRIO-03: an activation (and its chain's end) does restart them: after the opponent's answer
    resolved, the turn player summons in the phase."""
    state = fold(BOARD, passed(0), ev("activated", player=1, card="p1_mst", targets=["mst"]), LP_CHANGE, passed(0),
                 passed(1), ev("chain_link_resolved", link=1),
                 ev("card_moved", card="p1_mst", to=[1, "gy"], reason="resolved"), ev("chain_ended"), SUMMON)
    assert state.cards["celtic"].zone == "mzone"
