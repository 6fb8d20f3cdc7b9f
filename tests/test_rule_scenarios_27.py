"""Duel scenarios a head judge rules on, recorded as a table's recorder writes them (issue 25,
eleventh pass: judge11).

First the finding: a card Set (or Normal Summoned) while the record did not know it (a recorder
who sees only public cards writes the opponent's Set card as passcode 0) was never judged once an
event showed it. A Level 6 monster Set with no Tribute, flipped face-up two turns later, stood
unflagged; a judge rules that Set illegal (SUM-08: a Level 5 or higher monster needs its Tributes
even when Set; its Level stays hidden, not its Tributes). Likewise a face-down card in a Spell &
Trap Zone destroyed and shown to be a monster (SPELL-03, PEND-01), or a Trap in the Field Zone
(ZONE-10): the rule was listed undecided at the Set and never called. The engine now remembers
such a play on the card and judges it at the first event that shows it (``rules.identity.bind``:
``rules.summon.judge_unseen_summon``, ``rules.spell_trap.judge_unseen_set``): flagged in a witnessed
duel, refused in a machine's record, collected by an audit, as PEN-02 is for a card a decklist
does not hold.

Then five plays at the table a judge refuses and the engine accepted:

* HAND-01, TURN-08: the End Phase's hand adjustment with a chain still open (a Mystical Space
  Typhoon activated in the End Phase, unresolved): the hand is adjusted as the End Phase finishes,
  after its effects (rules/turn.py).
* BATTLE-11, NIS-03: damage calculation with a chain of the Damage Step still open (Kuriboh
  discarded, unresolved): the chain resolves first, and nothing interrupts damage calculation
  (rules/battle.py).
* PEND-04: a Pendulum Summon of several monsters negated for one of them only, the others left on
  the field: a negated summon of several monsters negates them all (rules/summon.py, judged at the
  event after the last ``summon_negated``).
* SPS-11: a summon negated after both players had passed on it: the window had closed, the summon
  had succeeded (rules/summon.py).
* ZONE-15: an activation targeting a card banished face-down: such a card is unaffected by
  targeting (rules/chain.py, beside TERM-05's hidden zones).

Then scenarios of the areas the earlier passes covered least, each as a judge rules it: the legal
play accepted unflagged, the illegal one refused (or flagged) with the rule that forbids it. These
held on the old code; they are kept as the judge's rulings.
"""
from __future__ import annotations

import json

import pytest
from test_rules_battle import attack, battle_damage, calc, step, to_gy
from test_rules_turn import discard, draw, phase, turn_started

from duel import (
    BATTLE_OX, BLUE_EYES, CARDS, CELTIC, DARK_MAGICIAN, GIANT_SOLDIER, KURIBOH, LINK_SPIDER, MIRROR_FORCE, MST,
    MYSTICAL_ELF, ODD_EYES, POT, RAIGEKI, SHEEP_TOKEN, STARGAZER, SUMMONED_SKULL, TIMEGAZER, TRAP_HOLE, UTOPIA,
    VORSE, DARK_HOLE, fold, position, refused_with)

from ygoreplay.events import from_dict
from ygoreplay.rules import History, RuleViolation, audit
from ygoreplay.rules import history as history_module

BLACK_LUSTER_SOLDIER = 5405694           # a Ritual monster: Special Summoned only its own way (SPS-13)
#: Player 0's registered Main Deck; player 1's is written by a recorder who never saw it (all 0).
MAIN = ([CELTIC, BATTLE_OX, VORSE, MYSTICAL_ELF, GIANT_SOLDIER, DARK_MAGICIAN, SUMMONED_SKULL, BLUE_EYES,
         MST, DARK_HOLE, RAIGEKI, POT, MIRROR_FORCE, TRAP_HOLE] * 3)[:40]


def c(code: int, card_id: str, **flags) -> dict:
    return {"code": code, "id": card_id, **flags}


def ev(kind: str, **fields) -> dict:
    return {"kind": kind, **fields}


def table(witnessed: bool = True) -> list[dict]:
    """A duel recorded at the table: player 1's cards unseen (passcode 0), up to turn 2's Main Phase 1."""
    return [ev("duel_started", first_player=0, witnessed=witnessed),
            ev("deck_registered", player=0, main=MAIN), ev("deck_registered", player=1, main=[0] * 40),
            draw(0, 5), draw(1, 5), turn_started(0, 1), phase("draw"), phase("standby"), phase("main1"),
            phase("end"), turn_started(1, 2), phase("draw"), draw(1), phase("standby"), phase("main1")]


def next_turns(*players: int, first: int = 3) -> list[dict]:
    """The End Phase of the current turn, then each turn in ``players`` up to its Main Phase 1."""
    events = []
    for number, player in enumerate(players, first):
        events += [phase("end"), turn_started(player, number), phase("draw"), draw(player), phase("standby"),
                   phase("main1")]
    return events


#: A monster of player 1's on the field to Tribute (a judge's fix, cited: how it came is not the point).
TRIBUTE_ON_FIELD = ev("card_moved", card="p1.m9", to=[1, "mzone", 0], reason="rule", shows={"p1.m9": CELTIC},
                      cite={"card": "p1.m9", "effect": "a judge's fix"})
SET_NO_TRIBUTE = ev("monster_set", player=1, card="p1.m0", zone=2)            # #15 after table()
FLIP = ev("position_changed", player=1, card="p1.m0", position="attack")      # a Flip Summon, turn 4


def shown(event: dict, code: int) -> dict:
    return {**event, "shows": {"p1.m0": code}}


def history(events: list[dict], **kw) -> History:
    h = History(CARDS, **kw)
    for data in events:
        h.append(from_dict(data), strict=True)
    return h


def refused_at(events: list[dict]) -> RuleViolation:
    h = history(events[:-1])
    with pytest.raises(RuleViolation) as info:
        h.append(from_dict(events[-1]), strict=True)
    return info.value


# == SUM-08: a Set the record could not see, judged once the card is shown ===========================

def test_sum_08_a_level_6_set_without_a_tribute_is_flagged_when_its_flip_shows_it() -> None:
    """SUM-08: player 1 Sets a card the recorder cannot see, with no Tribute; on turn 4 its Flip
    Summon shows Summoned Skull, Level 6. The judge rules the Set illegal: a Level 5 or higher
    monster needs its Tributes even when Set. Kept and flagged in a witnessed duel (the play stood
    at the table), at the event that showed it, naming the Set. Before: no flag at all."""
    events = [*table(), SET_NO_TRIBUTE, *next_turns(0, 1), shown(FLIP, SUMMONED_SKULL)]
    h = history(events)
    assert [(f.index, f.rule) for f in h.flags] == [(len(events) - 1, "SUM-08")]
    assert "Summoned Skull, Set at #15 while the record did not know it, is Level 6" in h.flags[0].message
    assert "needed 1 Tribute(s), not 0" in h.flags[0].message
    assert h.state.cards["p1.m0"].position == "attack", "what was played stands"


def test_sum_08_the_same_record_from_a_machine_is_refused_and_an_audit_collects_it() -> None:
    """SUM-08: not witnessed, the event that shows the illegal Set is refused (as PEN-02 refuses a
    card the decklist does not hold), leaving the state as it was; an audit collects it."""
    events = [*table(witnessed=False), SET_NO_TRIBUTE, *next_turns(0, 1), shown(FLIP, SUMMONED_SKULL)]
    v = refused_at(events)
    assert (v.rule, v.index) == ("SUM-08", len(events) - 1)
    report = audit([from_dict(e) for e in events], CARDS)
    assert [(v.index, v.rule) for v in report.violations] == [(len(events) - 1, "SUM-08")]


@pytest.mark.parametrize("set_event, code, reveal", [
    pytest.param(SET_NO_TRIBUTE, VORSE, shown(FLIP, VORSE), id="level-4-no-tribute-flipped"),
    pytest.param({**SET_NO_TRIBUTE, "tributes": ["p1.m9"]}, SUMMONED_SKULL, shown(FLIP, SUMMONED_SKULL),
                 id="level-6-one-tribute-flipped"),
    pytest.param(SET_NO_TRIBUTE, VORSE, ev("card_moved", card="p1.m0", to=[1, "gy"], reason="destroyed",
                                           cause="p0.m0", shows={"p1.m0": VORSE}),
                 id="level-4-destroyed-face-down-shown-in-the-gy"),
])
def test_sum_08_a_set_shown_later_that_had_its_tributes_stands_unflagged(set_event: dict, code: int,
                                                                          reveal: dict) -> None:
    """SUM-08: a Set card shown later (flipped, or destroyed face-down and seen in the GY) that had
    the Tributes its Level needs was legal: nothing is flagged."""
    before = [*table()]
    if set_event.get("tributes"):              # the Tribute: a monster Set by an earlier turn's effect
        before.append(TRIBUTE_ON_FIELD)
    events = [*before, set_event, *next_turns(0, 1), reveal]
    h = history(events)
    assert h.flags == [] and h.state.cards["p1.m0"].code == code


def test_sum_04_a_normal_summon_the_record_did_not_see_is_judged_when_shown() -> None:
    """SUM-04: a face-up Normal Summon entered without naming the card (the recorder did not read
    it), Tributing a monster; shown later by an effect to be Vorse Raider, Level 4: it takes no
    Tribute. Undecided at the summon, flagged when shown."""
    summon = ev("normal_summoned", player=1, card="p1.m0", zone=2, tributes=["p1.m9"])
    h = history([*table(), TRIBUTE_ON_FIELD, summon,
                 ev("card_revealed", cards=["p1.m0"], cause="p0.m0", shows={"p1.m0": VORSE})])
    assert "SUM-04" in {u.rule for u in h.undecided if u.index == 16}
    assert [(f.index, f.rule) for f in h.flags] == [(17, "SUM-04")]
    assert "Vorse Raider, Normal Summoned at #16 while the record did not know it, is Level 4" in h.flags[0].message


def test_sum_08_a_level_an_effect_gave_the_unseen_card_was_judged_at_its_set() -> None:
    """SUM-08: an effect made the unseen card in the hand Level 4 (a stats_changed naming its
    cause); Set with no Tribute, it was judged at the Set by that Level. Shown later
    as Summoned Skull (printed Level 6), the Set is not judged again by its printed Level."""
    made_level_4 = ev("stats_changed", card="p1.m0", level=4, cause="p1.m1")
    h = history([*table(), made_level_4, SET_NO_TRIBUTE, *next_turns(0, 1), shown(FLIP, SUMMONED_SKULL)])
    assert h.flags == []


def test_sum_08_sps_13_a_ritual_monster_set_unseen_is_flagged_when_shown() -> None:
    """SPS-13: a Ritual monster is Special Summoned only its own way; Set unseen and shown by a
    card_revealed (a confirming effect), the Set is flagged as SPS-13."""
    events = [*table(), SET_NO_TRIBUTE, ev("card_revealed", cards=["p1.m0"], cause="p0.m0",
                                           shows={"p1.m0": BLACK_LUSTER_SOLDIER})]
    h = history(events)
    assert [(f.index, f.rule) for f in h.flags] == [(16, "SPS-13")]
    assert "Black Luster Soldier, Set at #15, can only be Special Summoned its own way" in h.flags[0].message


def test_sum_08_a_correction_of_the_set_before_the_reveal_leaves_nothing_to_judge() -> None:
    """SUM-08 with LOG-12: the recorder entered the Set without its Tribute, corrected it within
    the turn and entered it again with the Tribute; the reveal two turns later finds it legal."""
    tribute = TRIBUTE_ON_FIELD
    events = [*table(), tribute, SET_NO_TRIBUTE, ev("entry_corrected", to=16, reason="forgot the Tribute"),
              {**SET_NO_TRIBUTE, "tributes": ["p1.m9"]}, *next_turns(0, 1), shown(FLIP, SUMMONED_SKULL)]
    h = history(events)
    assert h.struck == {16: 17} and h.flags == []
    wrong = [*table(), tribute, {**SET_NO_TRIBUTE, "tributes": ["p1.m9"]},
             ev("entry_corrected", to=16, reason="there was no Tribute"), SET_NO_TRIBUTE,
             *next_turns(0, 1), shown(FLIP, SUMMONED_SKULL)]
    assert [f.rule for f in history(wrong).flags] == ["SUM-08"]


def test_sum_08_what_waits_to_be_judged_survives_a_snapshot_and_checkpoints(monkeypatch) -> None:
    """SUM-08: the unseen Set is part of the state: a history stored after it and resumed (plain
    data, JSON) still judges the reveal, as does a fold with a checkpoint every 2 events."""
    monkeypatch.setattr(history_module, "CHECKPOINT_EVERY", 2)
    before = [*table(), SET_NO_TRIBUTE, *next_turns(0, 1)]
    resumed = History.from_data(json.loads(json.dumps(history(before).to_data())), CARDS)
    resumed.append(from_dict(shown(FLIP, SUMMONED_SKULL)), strict=True)
    assert [f.rule for f in resumed.flags] == ["SUM-08"]
    rollback = ev("rolled_back", to=len(before), judge="A. Judge", reason="the flip came later")
    h = history([*before, shown(FLIP, SUMMONED_SKULL), rollback, shown(FLIP, SUMMONED_SKULL)])
    assert [(f.index, f.rule) for f in h.flags] == [(len(before), "SUM-08"), (len(before) + 2, "SUM-08")]


SET_FACE_DOWN = ev("spell_trap_set", player=1, card="p1.m0", zone=1)             # #15
DESTROYED = ev("card_moved", card="p1.m0", to=[1, "gy"], reason="destroyed", cause="p0.m0")


@pytest.mark.parametrize("set_event, code, rule, says", [
    pytest.param(SET_FACE_DOWN, VORSE, "SPELL-03", "Vorse Raider, Set at #15 while the record did not know it, "
                 "is a monster and cannot be Set in a Spell & Trap Zone", id="monster-in-a-spell-trap-zone"),
    pytest.param(SET_FACE_DOWN, ODD_EYES, "PEND-01", "is a monster and cannot be Set",
                 id="pendulum-monster-shown-by-an-effect"),
    pytest.param({**SET_FACE_DOWN, "field_zone": True, "zone": 0}, MIRROR_FORCE, "ZONE-10",
                 "is not a Field Spell: not the Field Zone", id="trap-in-the-field-zone"),
])
def test_spell_03_zone_10_a_face_down_card_set_unseen_is_judged_when_destroyed_and_shown_refused(
        set_event: dict, code: int, rule: str, says: str) -> None:
    """SPELL-03, PEND-01, ZONE-10: player 1 Sets a card the recorder cannot see; on turn 3 an
    effect destroys it and it is shown going to the GY (or an effect shows it): a monster was Set in
    a Spell & Trap Zone (a Pendulum monster cannot be Set there either), a Trap in the Field Zone. Flagged
    when witnessed, refused in a machine's record. Before: undecided at the Set, never called."""
    shows = {"p1.m0": code}
    reveal = (ev("card_revealed", cards=["p1.m0"], cause="p0.m0", shows=shows) if rule == "PEND-01"
              else {**DESTROYED, "shows": shows})   # destroyed, a Pendulum would go to the Extra Deck (PEND-05)
    events = [*table(), set_event, *next_turns(0), reveal]
    h = history(events)
    assert [(f.index, f.rule) for f in h.flags] == [(len(events) - 1, rule)] and says in h.flags[0].message
    v = refused_at([table(witnessed=False)[0], *events[1:]])
    assert (v.rule, v.index) == (rule, len(events) - 1) and says in v.message


@pytest.mark.parametrize("set_event, code", [
    pytest.param(SET_FACE_DOWN, MIRROR_FORCE, id="trap"),
    pytest.param({**SET_FACE_DOWN, "field_zone": True, "zone": 0}, 18161786, id="field-spell-in-the-field-zone"),
])
def test_spell_03_zone_10_a_face_down_card_set_unseen_shown_where_it_belongs(set_event: dict, code: int) -> None:
    """SPELL-03, ZONE-10: a Trap Set in a Spell & Trap Zone, a Field Spell (Mystic Plasma Zone) in
    the Field Zone, shown once destroyed: legal, nothing flagged."""
    h = history([*table(), set_event, *next_turns(0), {**DESTROYED, "shows": {"p1.m0": code}}])
    assert h.flags == [] and h.state.cards["p1.m0"].zone == "gy"


def test_sum_08_a_card_set_while_known_is_judged_at_its_set_not_again() -> None:
    """SUM-08, checked as SUM-04 when the record knows the card: the Set itself is refused."""
    p1 = {"hand": [c(SUMMONED_SKULL, "skull")]}
    refused_with([position({}, p1, turn_player=1), ev("monster_set", player=1, card="skull", zone=2)],
                 "SUM-04", "Summoned Skull is Level 6 and needs 1 Tribute(s), not 0")


# == ZONE-15: a card banished face-down is not targeted =============================================

BANISHED_TWO = position({"hand": [c(MST, "mst")]},
                        {"banished": [c(MST, "up", position="faceup"), c(MST, "down", position="facedown")]})


def test_zone_15_term_05_a_face_up_banished_card_may_be_targeted() -> None:
    """ZONE-15, TERM-05: a face-up banished card is public: an effect may target it."""
    state = fold(BANISHED_TWO, ev("activated", card="mst", zone=0, targets=["up"]))
    assert state.chain[0].targets == ("up",)


def test_zone_15_a_card_banished_face_down_cannot_be_targeted_refused() -> None:
    """ZONE-15: a face-down banished card is seen by its owner only and is unaffected by targeting:
    an activation targeting it is refused. Before: accepted (only the hand, Deck and face-down
    Extra Deck were hidden to TERM-05)."""
    refused_with([BANISHED_TWO, ev("activated", card="mst", zone=0, targets=["down"])], "ZONE-15",
                 "down is banished face-down: only its owner sees it, and it cannot be targeted")


# == Turn structure, hand size, Battle Phase (TURN, HAND, NIS-04, BATTLE) =============================

def test_nis_04_turn_01_no_battle_phase_on_the_first_turn_nor_before_main_phase_1() -> None:
    """NIS-04: the first player's first turn has no Battle Phase; TURN-01: the Battle Phase follows
    Main Phase 1, never the Standby Phase, and comes once a turn."""
    first = [*table(witnessed=False)[:9], phase("battle")]
    assert refused_at(first).rule == "NIS-04"
    refused_with([position({"mzone": [c(BATTLE_OX, "ox")]}, phase="standby"), phase("battle")], "TURN-01",
                 "cannot follow the Standby Phase")
    refused_with([position({"mzone": [c(BATTLE_OX, "ox")]}), phase("battle"), phase("main2"), phase("battle")],
                 "TURN-01", "cannot follow the Main Phase 2")


def test_hand_01_seven_cards_at_the_end_discard_exactly_one() -> None:
    """HAND-01: seven cards in hand as the End Phase ends: discard exactly one, in the End Phase;
    not in Main Phase 2, not two, and the next turn cannot start before it."""
    hand = {"hand": [c(CELTIC, f"h{i}") for i in range(7)]}
    state = fold(position(hand, phase="main2"), phase("end"), discard("h0"), turn_started(1, 3))
    assert len(state.sides[0].hand) == 6 and state.cards["h0"].zone == "gy"
    refused_with([position(hand, phase="main2"), phase("end"), turn_started(1, 3)], "HAND-01",
                 "ended turn 2 with 7 cards in hand")
    refused_with([position(hand, phase="main2"), discard("h0")], "HAND-01", "not in the Main Phase 2")
    refused_with([position(hand, phase="main2"), phase("end"), discard("h0", "h1")], "HAND-01",
                 "discard down to exactly 6, not 5")


def test_hand_01_turn_08_the_hand_is_adjusted_once_the_end_phases_chain_has_resolved() -> None:
    """HAND-01, TURN-08: player 0 activates Mystical Space Typhoon in the End Phase; the hand (7
    cards) is adjusted as the End Phase finishes, after that chain has resolved: a discard while
    the chain is still open is refused. Before: accepted."""
    hand = {"hand": [*(c(CELTIC, f"h{i}") for i in range(7)), c(MST, "mst")]}
    board = position(hand, {"szone": [c(MIRROR_FORCE, "mf", position="set")]}, phase="end")
    typhoon = ev("activated", card="mst", zone=0, targets=["mf"])
    resolved = [ev("chain_link_resolved", link=1),
                ev("card_moved", card="mf", to=[1, "gy"], reason="destroyed", cause="mst"),
                ev("card_moved", card="mst", to=[0, "gy"], reason="resolved"), ev("chain_ended")]
    state = fold(board, typhoon, *resolved, discard("h0"), turn_started(1, 3))
    assert len(state.sides[0].hand) == 6 and state.turn == 3
    refused_with([board, typhoon, discard("h0")], "HAND-01", "once every chain has resolved: a chain of 1 link(s)")


BATTLE_BOARD = position({"mzone": [c(BATTLE_OX, "ox"), c(VORSE, "vorse")]},
                        {"mzone": [c(CELTIC, "cel"), c(KURIBOH, "kb")]}, phase="battle", step="battle")
REPLAY = [BATTLE_BOARD, attack("ox", "cel"), ev("card_moved", card="cel", to=[1, "gy"], reason="destroyed",
                                                cause="x")]


def test_battle_11_nis_03_damage_is_calculated_after_the_damage_steps_chain_resolves() -> None:
    """BATTLE-11, NIS-03: Vorse Raider attacks Celtic Guardian; in the Damage Step player 1
    discards Kuriboh (its Quick Effect: no battle damage). Its link resolves before damage
    calculation, which nothing interrupts: damage calculated with the chain still open is refused
    (before: accepted, the link left to resolve after the damage). Resolved first, the calculation
    stands (the battle damage Kuriboh prevents is the cited effect's, GEN-01)."""
    board = position({"mzone": [c(VORSE, "v")]}, {"mzone": [c(CELTIC, "cel")], "hand": [c(KURIBOH, "kb")]},
                     phase="battle", step="battle")
    kuriboh = [attack("v", "cel"), step("damage"),
               ev("activated", player=1, card="kb", effect_type="quick",
                  costs=[{"card": "kb", "to": "gy", "reason": "discarded"}])]
    refused_with([board, *kuriboh, calc(["cel"], (0, 500))], "BATTLE-11", "a chain of 1 link(s) is open")
    state = fold(board, *kuriboh, ev("chain_link_resolved", link=1), ev("chain_ended"),
                 calc(["cel"], (0, 0), cite={"card": "kb", "effect": "no battle damage"}))
    assert state.attack.calculated and state.attack.pending_damage == [0, 0]


def test_battle_07_an_attack_forfeited_in_a_replay_is_spent_and_fixes_the_position() -> None:
    """BATTLE-06/07: Celtic Guardian, the target, is destroyed by an effect: a replay. Player 0
    attacks Kuriboh with Vorse Raider instead; Battle Ox has forfeited its attack: it cannot attack
    again this Battle Phase (BATTLE-07), nor change position in Main Phase 2 (POS-08)."""
    vorse_wins = [attack("vorse", "kb"), step("damage"), calc(["kb"], (0, 1600)), to_gy("kb", 1),
                  battle_damage(1, 1600), step("battle")]
    state = fold(*REPLAY, *vorse_wins)
    assert state.sides[1].lp == 6400 and state.cards["ox"].zone == "mzone"
    refused_with([*REPLAY, *vorse_wins, attack("ox")], "BATTLE-07", "Battle Ox forfeited its attack")
    refused_with([*REPLAY, ev("attack_cancelled"), step("end"), phase("main2"),
                  ev("position_changed", card="ox", position="defense")], "POS-08", "declared an attack this turn")


def test_battle_06_a_direct_attack_meets_a_new_monster_replay_first() -> None:
    """BATTLE-06, BATTLE-04: a monster Special Summoned after a direct attack was declared changes
    the opponent's monsters: damage is not calculated before a replay; retargeting it is legal, and
    a direct attack is then no longer allowed (BATTLE-02)."""
    board = position({"mzone": [c(BATTLE_OX, "ox")]}, {"hand": [c(KURIBOH, "kb")]}, phase="battle", step="battle")
    arrives = [board, attack("ox"), ev("special_summoned", player=1, card="kb", zone=0, cause="kb")]
    refused_with([*arrives, step("damage")], "BATTLE-06", "a replay")   # judge20: as the Damage Step begins
    state = fold(*arrives, ev("attack_retargeted", target="kb"), step("damage"), calc(["kb"], (0, 1400)))
    assert state.attack.target == "kb"
    refused_with([*arrives, ev("attack_retargeted", target=None)], "BATTLE-02", "controls a monster")


def test_battle_06_a_position_change_by_an_effect_is_no_replay_refused() -> None:
    """BATTLE-06: the target turned to Defense by an effect: the opponent's monsters are the same,
    so there is no replay and the attack cannot be moved to Kuriboh."""
    refused_with([BATTLE_BOARD, attack("ox", "cel"),
                  ev("position_changed", card="cel", position="defense", cause="x"),
                  ev("attack_retargeted", target="kb")], "BATTLE-06", "a replay happens only when")


def test_battle_04_a_monster_in_the_extra_monster_zone_stops_a_direct_attack() -> None:
    """BATTLE-04: Link Spider in the opponent's Extra Monster Zone battles normally and its
    controller cannot be attacked directly."""
    board = position({"mzone": [c(BATTLE_OX, "ox")]}, {"mzone": [None] * 5 + [c(LINK_SPIDER, "spider")]},
                     phase="battle", step="battle")
    refused_with([board, attack("ox")], "BATTLE-02", "so a direct attack is not allowed")
    state = fold(board, attack("ox", "spider"), step("damage"), calc(["spider"], (0, 700)))
    assert state.attack.pending_damage == [0, 700]


# == Win and loss (WIN) ==============================================================================

def test_win_04_both_players_at_0_lp_is_a_draw() -> None:
    """WIN-04: both players reach 0 LP by one effect: the duel is a draw; a winner named is refused."""
    board = position()
    both = [ev("life_points_changed", player=p, amount=8000, reason="effect_damage") for p in (0, 1)]
    state = fold(board, *both, ev("duel_ended", winner=None, reason="draw"))
    assert state.ended and state.winner is None
    refused_with([board, *both, ev("duel_ended", winner=0, reason="lp")], "WIN-04", "a draw")


def test_win_02_an_empty_deck_loses_at_the_draw_phase_draw() -> None:
    """WIN-02: player 1 must draw with an empty Deck: they lose; leaving the Draw Phase without
    drawing is refused as that loss (WIN-02, judge15: not as a draw left out, TURN-02)."""
    board = position({}, {"deck": []}, phase="end")
    state = fold(board, turn_started(1, 3), phase("draw"), draw(1), ev("duel_ended", winner=0, reason="deck_out"))
    assert state.ended and state.winner == 0
    refused_with([board, turn_started(1, 3), phase("draw"), phase("standby")], "WIN-02",
                 "must draw with an empty Deck")


# == Summon rules of the Extra Deck and Tokens (LINK, XYZ, PEND, TOKEN) ==============================

@pytest.mark.parametrize("p0, p1, summon, rule, says", [
    pytest.param({"mzone": [c(BATTLE_OX, "ox")], "extra": [c(LINK_SPIDER, "spider")]}, {},
                 ev("special_summoned", card="spider", zone=5, method="link", position="defense", materials=["ox"]),
                 "LINK-05", "always in Attack Position", id="link-summoned-in-defense"),
    pytest.param({"mzone": [c(BATTLE_OX, "ox", position="set")], "extra": [c(LINK_SPIDER, "spider")]}, {},
                 ev("special_summoned", card="spider", zone=5, method="link", materials=["ox"]),
                 "LINK-01", "face-down: Link materials are face-up", id="face-down-link-material"),
    pytest.param({"extra": [c(LINK_SPIDER, "spider")]}, {"mzone": [c(BATTLE_OX, "ox")]},
                 ev("special_summoned", card="spider", zone=5, method="link", materials=["ox"]),
                 "LINK-01", "controlled by player 1", id="opponents-link-material"),
    pytest.param({"mzone": [c(SHEEP_TOKEN, "sheep"), c(CELTIC, "cel")], "extra": [c(UTOPIA, "utopia")]}, {},
                 ev("special_summoned", card="utopia", zone=5, method="xyz", materials=["sheep", "cel"]),
                 "XYZ-02", "Tokens cannot be Xyz materials", id="token-xyz-material"),
])
def test_link_01_05_xyz_02_extra_deck_summons_refused(p0: dict, p1: dict, summon: dict, rule: str,
                                                      says: str) -> None:
    refused_with([position(p0, p1), summon], rule, says)


SCALES = {"szone": [c(STARGAZER, "sg", position="faceup"), None, None, None, c(TIMEGAZER, "tg", position="faceup")]}
SUMMON_BOARD = position({"hand": [c(CELTIC, "cel")]}, {"szone": [c(41420027, "solemn", position="set")]})
CELTIC_SUMMONED = ev("normal_summoned", card="cel", zone=0)
PASS = [ev("priority_passed", player=0), ev("priority_passed", player=1)]
SOLEMN_NEGATES = ev("summon_negated", card="cel", cause="solemn")


def test_sps_11_sum_03_a_normal_summon_negated_as_it_is_attempted() -> None:
    """SUM-03, SPS-11: player 1 answers Celtic Guardian's Normal Summon with Solemn Judgment at
    once, or after player 0 alone has passed: negated, to the GY, no Normal Summon again."""
    for before in ([], PASS[:1]):
        state = fold(SUMMON_BOARD, CELTIC_SUMMONED, *before, SOLEMN_NEGATES)
        assert state.cards["cel"].zone == "gy" and state.sides[0].summon_negated_turn == 2


def test_sps_11_a_summon_both_players_passed_on_cannot_be_negated_refused() -> None:
    """SPS-11, PRIO-03: both players passed after the Normal Summon: it has succeeded, and the
    summon negation window is over; Solemn Judgment then is refused. Before: accepted."""
    refused_with([SUMMON_BOARD, CELTIC_SUMMONED, *PASS, SOLEMN_NEGATES], "SPS-11",
                 "both players passed after Celtic Guardian was summoned")


PENDULUM_THREE = [position({**SCALES, "hand": [c(CELTIC, "cel"), c(ODD_EYES, "odd"), c(VORSE, "v")]},
                          {"szone": [c(41420027, "solemn", position="set")]}),
                 ev("special_summoned", card="cel", zone=0, method="pendulum"),
                 ev("special_summoned", card="odd", zone=1, method="pendulum", together=True),
                 ev("special_summoned", card="v", zone=2, method="pendulum", together=True)]
NEGATED = [ev("summon_negated", card=card, cause="solemn") for card in ("cel", "odd", "v")]


def test_pend_04_a_negated_pendulum_summon_sends_all_its_monsters_to_the_gy() -> None:
    """PEND-04: Solemn Judgment negates player 0's Pendulum Summon of three monsters: all three go
    to the GY (Odd-Eyes too, not the Extra Deck), each negated in turn; play goes on."""
    state = fold(*PENDULUM_THREE, *NEGATED, phase("battle"))
    assert [state.cards[card].zone for card in ("cel", "odd", "v")] == ["gy", "gy", "gy"]
    assert not state.cards["odd"].properly_summoned


@pytest.mark.parametrize("negated, then", [
    pytest.param(NEGATED[:1], phase("battle"), id="one-of-three-then-the-battle-phase"),
    pytest.param(NEGATED[:2], ev("activated", card="sg", effect_type="ignition"), id="two-of-three-then-an-activation"),
])
def test_pend_04_a_monster_of_a_negated_pendulum_summon_left_on_the_field_refused(negated: list[dict],
                                                                                  then: dict) -> None:
    """PEND-04: the record negated one (or two) of the three monsters and moved on: the rest of the
    negated summon is still on the field. Refused at the event that moves on, naming what was left.
    Before: accepted (coverage said "that all of one summon are negated is not checked")."""
    refused_with([*PENDULUM_THREE, *negated, then], "PEND-04", "v too)")


def test_link_04_token_03_a_token_is_a_link_material_and_vanishes() -> None:
    """LINK-04, TOKEN-03: a Sheep Token may be Link material; it vanishes off the field (TOKEN-02)."""
    state = fold(position({"mzone": [c(SHEEP_TOKEN, "sheep")], "extra": [c(LINK_SPIDER, "spider")]}),
                 ev("special_summoned", card="spider", zone=5, method="link", materials=["sheep"]))
    assert "sheep" not in state.cards and state.cards["spider"].summon_method == "link"


def test_zone_07_pend_03_a_pendulum_from_the_extra_deck_goes_to_the_extra_monster_zone() -> None:
    """ZONE-07 (NIS-01): Odd-Eyes, face-up in the Extra Deck, is Pendulum Summoned (Scales 1 and 8)
    to the Extra Monster Zone; to a Main Monster Zone no arrow points to, refused; Blue-Eyes (Level
    8) is not strictly between the Scales (PEND-03)."""
    p0 = {**SCALES, "extra": [c(ODD_EYES, "odd", position="faceup")], "hand": [c(BLUE_EYES, "bewd")]}
    state = fold(position(p0), ev("special_summoned", card="odd", zone=5, method="pendulum"))
    assert state.emz[0] == "odd"
    refused_with([position(p0), ev("special_summoned", card="odd", zone=0, method="pendulum")], "NIS-01",
                 "only if a link arrow points to it")
    refused_with([position(p0), ev("special_summoned", card="bewd", zone=0, method="pendulum")], "PEND-03",
                 "not strictly between the Scales 1 and 8")
