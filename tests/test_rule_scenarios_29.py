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
* PEND-03, SPS-13, SPS-01: a monster Pendulum Summoned while the record did not know it (entered
  face-up without its name) was undecided (its Level unknown) and never judged once shown (a Level 8
  monster between Scales 1 and 8, a Ritual monster from the hand, a Spell): judged now when shown.
* TURN-08, HAND-01: after the hand adjustment that ends the End Phase, an activation was accepted
  (the discard restarted the passes).
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


def test_syn_01_an_unknown_synchro_monster_with_unseen_materials_is_not_judged_later() -> None:
    """SYN-01: the Synchro monster itself came unseen from a hidden Extra Deck (never shown): its
    Level is unknown, so materials shown later (3 + 6) judge nothing."""
    events = unseen_summons([0], 2)
    events.append(ev("special_summoned", player=1, card="p1.x0", zone=5, position="attack", method="synchro",
                     materials=["p1.m0", "p1.m1"]))
    assert history([*events, shown_in_gy(**{"p1.m0": JUNK_SYNCHRON, "p1.m1": SUMMONED_SKULL})]).flags == []


# == HAND-01, TURN-08: the hand adjusted is the End Phase's last step =================================

END_PHASE = position({"hand": [{"code": CELTIC, "id": f"h{i}"} for i in range(7)] + [{"code": MST, "id": "mst"}]},
                     {"szone": [{"code": MST, "id": "p1_mst", "position": "set"}],
                      "hand": [{"code": CELTIC, "id": f"o{i}"} for i in range(8)]}, phase="end")


def test_hand_01_after_the_hand_is_adjusted_nothing_more_is_activated_in_the_end_phase() -> None:
    """TURN-08, HAND-01, PRIO-05: both players pass in the End Phase (its end), the turn player
    discards down to 6: the End Phase is over, and no Mystical Space Typhoon follows in it.
    Before: the discard restarted the passes, and the activation was accepted."""
    refused_with([END_PHASE, passed(0), passed(1), ev("hand_size_discard", cards=["h0", "h1"]),
                  ev("activated", player=0, card="mst", zone=0, targets=["p1_mst"])], "PRIO-05",
                 "the End Phase has ended")


@pytest.mark.parametrize("events", [
    pytest.param([passed(0), passed(1), ev("hand_size_discard", cards=["h0", "h1"])], id="after-the-passes"),
    pytest.param([ev("hand_size_discard", cards=["h0", "h1"]), passed(0), passed(1)], id="before-the-passes"),
])
def test_hand_01_conf_26_the_turn_player_discards_to_6_and_the_opponent_keeps_8(events: list[dict]) -> None:
    """HAND-01, CONF-26: the turn player (8 cards) discards 2; the opponent's 8 are theirs to keep
    (only the turn player adjusts); the next turn starts."""
    state = fold(END_PHASE, *events, ev("turn_started", player=1, turn=3))
    assert (len(state.sides[0].hand), len(state.sides[1].hand), state.turn) == (6, 8, 3)


@pytest.mark.parametrize("event, says", [
    pytest.param(ev("turn_started", player=1, turn=3), "ended turn 2 with 8 cards in hand", id="no-discard"),
    pytest.param(ev("hand_size_discard", cards=["h0"]), "must discard down to exactly 6, not 7", id="too-few"),
    pytest.param(ev("hand_size_discard", player=1, cards=["o0", "o1"]), "only the turn player", id="the-opponent"),
])
def test_hand_01_the_hand_adjustment_refused(event: dict, says: str) -> None:
    refused_with([END_PHASE, event], "HAND-01", says)


# == XYZ-02, LINK-04, SUM-06: Tokens as materials and Tributes =====================================

TOKENS = position({"mzone": [{"code": JUNK_SYNCHRON, "id": "junk"}, {"code": CELTIC, "id": "cel"}],
                   "hand": [{"code": SUMMONED_SKULL, "id": "skull"}],
                   "extra": [{"code": 84013237, "id": "utopia"}, {"code": LINK_SPIDER, "id": "spider"},
                             {"code": STARDUST, "id": "stardust"}]})
SHEEP = ev("token_created", player=0, card="t1", code=73915052, zone=3, position="defense", cause="scapegoat",
           cite={"card": "scapegoat", "effect": "a Sheep Token"})


@pytest.mark.parametrize("summon", [
    pytest.param(ev("special_summoned", player=0, card="spider", zone=5, method="link", materials=["t1"]),
                 id="link-material-LINK-04"),
    pytest.param(ev("special_summoned", player=0, card="stardust", zone=5, method="synchro",
                    materials=["junk", "cel", "t1"]), id="synchro-material-3+4+1"),
    pytest.param(ev("normal_summoned", player=0, card="skull", zone=3, tributes=["t1"]), id="tribute-SUM-06"),
])
def test_link_04_a_token_is_a_link_synchro_material_and_a_tribute(summon: dict) -> None:
    """LINK-04, SYN-01, SUM-06: a Sheep Token (Level 1) is Link material, Synchro material, a
    Tribute; it vanishes as it leaves the field (TOKEN-02)."""
    state = fold(TOKENS, SHEEP, summon)
    assert "t1" not in state.cards


def test_xyz_02_a_token_is_no_xyz_material_refused() -> None:
    refused_with([TOKENS, SHEEP, ev("special_summoned", player=0, card="utopia", zone=5, method="xyz",
                                     materials=["cel", "t1"])], "XYZ-02", "Tokens cannot be Xyz materials")


# == SYN-04, SPS-12: a negated Synchro Summon is never properly summoned ==============================

NEGATED = position({"mzone": [{"code": JUNK_SYNCHRON, "id": "junk"}, {"code": CELTIC, "id": "cel"},
                              {"code": KURIBOH, "id": "kb"}],
                    "extra": [{"code": STARDUST, "id": "stardust"}], "hand": [{"code": 83764718, "id": "reborn"}]},
                   {"szone": [{"code": 41420027, "id": "solemn", "position": "set"}]})
SYNCHRO = ev("special_summoned", player=0, card="stardust", zone=5, method="synchro", materials=["junk", "cel", "kb"])
REBORN = [ev("activated", player=0, card="reborn", zone=1, targets=["stardust"]), ev("chain_link_resolved", link=1),
          ev("special_summoned", player=0, card="stardust", zone=2, cause="reborn")]


def test_syn_04_sps_12_a_negated_synchro_monster_is_not_revived() -> None:
    """SYN-04, SPS-12: Solemn Judgment negates Stardust Dragon's Synchro Summon: it goes to the GY
    not Synchro Summoned, and Monster Reborn cannot Special Summon it."""
    negated = [SYNCHRO, ev("activated", player=1, card="solemn", costs=[{"lp": 4000}]),
               ev("chain_link_resolved", link=1), ev("summon_negated", card="stardust", cause="solemn"),
               ev("card_moved", card="solemn", to=[1, "gy"], reason="resolved"), ev("chain_ended")]
    refused_with([NEGATED, *negated, *REBORN], "SPS-12", "must first be properly summoned")


def test_sps_12_a_synchro_monster_properly_summoned_then_destroyed_is_revived() -> None:
    state = fold(NEGATED, SYNCHRO, ev("card_moved", card="stardust", to=[0, "gy"], reason="destroyed", cause="x"),
                 *REBORN)
    assert state.cards["stardust"].zone == "mzone"


# == CTRL-02/03, SPELL-07: a taken monster, an equip left behind ===================================

TAKEN = position({"mzone": [{"code": VORSE, "id": "v"}],
                  "hand": [{"code": 4031928, "id": "coh"}, {"code": SUMMONED_SKULL, "id": "skull"},
                           {"code": 40619825, "id": "axe"}]},
                 {"mzone": [{"code": 89631139, "id": "be"}, {"code": CELTIC, "id": "pcel", "position": "set"}]})
HEART = [ev("activated", player=0, card="coh", zone=0, targets=["be"]), ev("chain_link_resolved", link=1),
         ev("control_changed", card="be", to_player=0, zone=1, cause="coh"),
         ev("card_moved", card="coh", to=[0, "gy"], reason="resolved"), ev("chain_ended")]


def test_ctrl_03_a_taken_monster_tributed_goes_to_its_owners_gy() -> None:
    """CTRL-02/03, SUM-06: Change of Heart takes Blue-Eyes, Tributed for Summoned Skull: it goes to
    its owner's GY."""
    state = fold(TAKEN, *HEART, ev("normal_summoned", player=0, card="skull", zone=2, tributes=["be"]))
    assert state.cards["be"].zone == "gy" and "be" in state.sides[1].gy


def test_ctrl_03_a_taken_monster_sent_to_the_takers_gy_refused() -> None:
    refused_with([TAKEN, *HEART, ev("card_moved", card="be", to=[0, "gy"], reason="destroyed", cause="x")],
                 "CTRL-03", "goes to its owner's gy (player 1)")


AXE_ON_VORSE = [ev("activated", player=0, card="axe", zone=1, targets=["v"]), ev("chain_link_resolved", link=1),
                ev("chain_ended")]


def test_spell_07_an_equip_whose_monster_left_goes_to_the_gy() -> None:
    """SPELL-07: Vorse Raider, equipped with Axe of Despair, is destroyed; the Axe goes to the GY
    by the rules, and play goes on."""
    state = fold(TAKEN, *AXE_ON_VORSE, ev("card_moved", card="v", to=[0, "gy"], reason="destroyed", cause="x"),
                 ev("card_moved", card="axe", to=[0, "gy"], reason="rule"), *HEART)
    assert state.cards["axe"].zone == "gy" and state.cards["be"].controller == 0


def test_spell_07_an_equip_left_on_a_face_down_monster_refused() -> None:
    """SPELL-07, POS-06: Book of Moon turns the equipped Vorse Raider face-down: the Axe must go."""
    refused_with([TAKEN, *AXE_ON_VORSE, ev("position_changed", card="v", position="set", cause="book"), HEART[0]],
                 "SPELL-07", "is face-down")


# == ZONE-05, ZONE-07, NIS-01: Extra Monster Zones and Pendulum placement ===========================

SCALES = position({"szone": [{"code": 94415058, "id": "sg"}, None, None, None, {"code": 20409757, "id": "tg"}],
                   "extra": [{"code": 16178681, "id": "odd", "position": "faceup"}],
                   "hand": [{"code": 16178681, "id": "odd_h"}]})


def test_zone_07_pendulum_summon_from_the_extra_deck_to_the_emz_and_from_the_hand_to_a_main_zone() -> None:
    """ZONE-07, PEND-03, NIS-01: one Pendulum Summon: Odd-Eyes from the face-up Extra Deck to the
    Extra Monster Zone, another from the hand to a Main Monster Zone."""
    state = fold(SCALES, ev("special_summoned", player=0, card="odd", zone=5, method="pendulum"),
                 ev("special_summoned", player=0, card="odd_h", zone=0, method="pendulum", together=True))
    assert state.emz[0] == "odd" and state.sides[0].mzone[0] == "odd_h"


@pytest.mark.parametrize("summon, rule", [
    pytest.param(ev("special_summoned", player=0, card="odd", zone=0, method="pendulum"), "NIS-01",
                 id="from-the-extra-deck-to-an-unlinked-main-zone"),
    pytest.param(ev("special_summoned", player=0, card="odd_h", zone=5, method="pendulum"), "ZONE-03",
                 id="from-the-hand-to-the-emz"),
])
def test_zone_07_pendulum_placement_refused(summon: dict, rule: str) -> None:
    refused_with([SCALES, summon], rule)


def test_zone_05_a_second_extra_monster_zone_without_extra_link_refused() -> None:
    """ZONE-04/05: with Link Spider in one Extra Monster Zone, another Link Spider in the other is
    not co-linked: refused."""
    board = position({"mzone": [{"code": CELTIC, "id": "a"}, None, None, None, None,
                                {"code": LINK_SPIDER, "id": "sp1"}],
                      "extra": [{"code": LINK_SPIDER, "id": "sp2"}]})
    refused_with([board, ev("special_summoned", player=0, card="sp2", zone=6, method="link", materials=["a"])],
                 "ZONE-04", "needs Extra Link (ZONE-05)")


# == Summon timing, rollbacks ========================================================================

SUMMON_TIMING = position({"hand": [{"code": VORSE, "id": "vor"}, {"code": CELTIC, "id": "cel"}]},
                         {"szone": [{"code": 4206964, "id": "th", "position": "set"},
                                    {"code": 41420027, "id": "sol", "position": "set"}]})
VORSE_NS = ev("normal_summoned", player=0, card="vor", zone=1)


def test_chain_04_at_summon_timing_the_opponent_chains_only_after_the_turn_player_passes() -> None:
    """PRIO-01, CHAIN-04: Trap Hole on Vorse Raider's summon (after the turn player's pass); Solemn
    Judgment chained by the same player needs the turn player's pass first."""
    opened = [SUMMON_TIMING, VORSE_NS, passed(0), ev("activated", player=1, card="th", targets=["vor"])]
    refused_with([*opened, ev("activated", player=1, card="sol", costs=[{"lp": 4000}], negates=1)], "CHAIN-04")
    state = fold(*opened, passed(0), ev("activated", player=1, card="sol", costs=[{"lp": 4000}]))
    assert [link.card for link in state.chain] == ["th", "sol"]


def test_match_08_a_rollback_over_the_passes_reopens_the_phase_but_not_one_after_them() -> None:
    """MATCH-08, PRIO-05: a judge backs the game up to before the passes that ended Main Phase 1:
    the turn player summons. Backed up only to after them (over a reveal), the phase stays ended."""
    rollback = {"kind": "rolled_back", "judge": "J", "reason": "a misplay"}
    h = history([SUMMON_TIMING, passed(0), passed(1), {**rollback, "to": 1}, VORSE_NS])
    assert h.state.cards["vor"].zone == "mzone"
    v = refused_at([SUMMON_TIMING, passed(0), passed(1), ev("card_revealed", player=0, cards=["cel"]),
                    {**rollback, "to": 3}, VORSE_NS])
    assert v.rule == "SUM-01" and "the Main Phase 1 has ended" in v.message


# == BATTLE-12, NIS-03: a Flip effect of the monster an attack flips ================================

FLIPPED = position({"mzone": [{"code": VORSE, "id": "v"}]}, {"mzone": [{"code": 54652250, "id": "meb",
                                                                         "position": "set"}]},
                   phase="battle", step="battle")
TO_DAMAGE_STEP = [FLIPPED, attack("v", "meb"), passed(0), passed(1), step("damage")]
MAN_EATER = ev("activated", player=1, card="meb", effect_type="flip", targets=["v"])


def test_battle_12_the_flip_effect_of_an_attacked_monster_after_damage_calculation() -> None:
    """BATTLE-12, POS-04: Man-Eater Bug, attacked face-down, is flipped before damage calculation
    (DEF 600, destroyed by Vorse Raider's 1900, no damage); its Flip effect activates after damage
    calculation, targeting Vorse Raider."""
    state = fold(*TO_DAMAGE_STEP, calc(["meb"], (0, 0)), MAN_EATER)
    assert state.chain[0].card == "meb" and state.cards["meb"].position == "defense"


@pytest.mark.parametrize("events, says", [
    pytest.param([MAN_EATER], "its Flip effect activates after damage calculation, not before", id="before"),
    pytest.param([calc(["meb"], (0, 0)), {**MAN_EATER, "targets": ["meb"]}], "confirmed destroyed in this battle",
                 id="targeting-a-monster-destroyed-in-it"),
])
def test_battle_12_the_flip_effect_refused(events: list[dict], says: str) -> None:
    refused_with([*TO_DAMAGE_STEP, *events], "BATTLE-12", says)


# == PEND-03: a monster Pendulum Summoned unseen, judged once shown ==================================

def pendulum(witnessed: bool = True) -> list[dict]:
    """Player 1 activates Stargazer Magician (Scale 1) and Timegazer Magician (Scale 8) from a hand
    the recorder does not see, then Pendulum Summons a card from it entered without its name (#21)."""
    events = table(witnessed)
    for link_card, zone, code in (("p1.m0", 0, 94415058), ("p1.m1", 4, 20409757)):
        events += [ev("activated", player=1, card=link_card, zone=zone, shows={link_card: code}),
                   ev("chain_link_resolved", link=1), ev("chain_ended")]
    return [*events, ev("special_summoned", player=1, card="p1.m2", zone=2, position="attack", method="pendulum")]


@pytest.mark.parametrize("code, rule, says", [
    pytest.param(89631139, "PEND-03", "Blue-Eyes White Dragon, Pendulum Summoned at #21 while the record did not know "
                                      "it, is Level 8: not strictly between the Scales 1 and 8", id="level-8"),
    pytest.param(BLACK_LUSTER_SOLDIER, "SPS-13", "has a summoning condition", id="a-ritual-monster"),
    pytest.param(55144522, "SPS-01", "Pot of Greed, Pendulum Summoned at #21 while the record did not know it, is not "
                                     "a monster", id="a-spell"),
])
def test_pend_03_an_unseen_pendulum_summoned_monster_shown_outside_the_scales_is_flagged(code: int, rule: str,
                                                                                        says: str) -> None:
    """PEND-03, SPS-13, SPS-01: the monster Pendulum Summoned unseen (undecided then, its Level
    unknown) is shown by an effect: Blue-Eyes (Level 8, not strictly between 1 and 8), a Ritual
    monster from the hand, a Spell. Flagged at the event that shows it; refused in a
    machine's record. Before: never judged."""
    show = shown_in_gy(**{"p1.m2": code})
    h = history([*pendulum(), show])
    assert "PEND-03" in {u.rule for u in h.undecided if u.index == 21}
    assert [(f.index, f.rule) for f in h.flags] == [(22, rule)] and says in h.flags[0].message
    v = refused_at([*pendulum(witnessed=False), show])
    assert (v.rule, v.index) == (rule, 22)


def test_pend_03_an_unseen_pendulum_summoned_monster_shown_between_the_scales_stands() -> None:
    """PEND-03: Summoned Skull (Level 6) is strictly between Scales 1 and 8: nothing flagged."""
    assert history([*pendulum(), shown_in_gy(**{"p1.m2": SUMMONED_SKULL})]).flags == []
