"""Duel scenarios a head judge rules on, recorded as a table's recorder writes them (issue 25,
twelfth pass: judge12).

Found, each a play the engine accepted that a judge refuses:

* SUM-08, SUM-04: a card Normal Summoned or Set while the record did not know it was judged when
  an event showed it, but only while it stayed on the field: leaving it (Card.reset) forgot the
  play. Set without a Tribute, then Tributed for a Tribute Summon (or returned to the hand) and
  shown there, the Level 6 monster stood unflagged. A card does not change by leaving the field:
  the play is judged whenever it is shown, wherever it went (unless an unfollowed shuffle of the
  Deck hid which card the id is). A card played unseen twice (Set, returned, Set again) has each
  play judged, not only the last.
* XYZ-01: an Xyz material the record did not know (a face-up monster entered without its name)
  left the Xyz Summon undecided (its Level unknown) and nothing judged it once it was shown.
* WIN-05: a ``duel_ended`` for a surrender naming the surrendering player (its ``player``) as the
  winner, or a surrender as a draw, was accepted: the match counted the surrender as its win.
* PRIO-05 (was "not yet"): with the passes recorded, the turn player's pass in an open game state
  declares the end of the phase; the opponent may answer it "before the end", and once they pass
  too the phase has ended. The turn player activating, summoning or passing again in it was
  accepted (the opponent's pass was read as handing priority back for more). An open game state
  also needs the turn player to hold priority (PRIO-06): not after their own pass.
* XYZ-01, LINK-01: a face-down material the record did not know was left undecided (taking the
  materials read their unknown facts), though a face-down card is never an Xyz material whoever it is.

And one the engine refused that a judge allows:

* SUM-03 (PEND-04 misapplied): a Flip Summon entered as a position change, negated (Solemn
  Warning), after a Normal Summon earlier that turn: the Normal Summon's monster was taken as part
  of the negated summon, and the next event was refused as PEND-04 ("negates them all").

Each is refused (a machine's record) or flagged (a witnessed duel) with the rule cited, and the
legal play beside it still folds clean.
"""
from __future__ import annotations

import pytest
from test_rule_scenarios_27 import SET_NO_TRIBUTE, TRIBUTE_ON_FIELD, ev, history, next_turns, refused_at, table
from test_rules_turn import ended, phase

from duel import CARDS, CELTIC, MST, POT, SOLEMN, SUMMONED_SKULL, UTOPIA, VORSE, fold, position, refused_with

from ygoreplay.events import from_dict
from ygoreplay.rules import audit


def reveal(card: str, code: int) -> dict:
    """An effect of player 0's shows ``card`` (a confirming effect, or a card public where it lies)."""
    return ev("card_revealed", cards=[card], cause="p0.m0", shows={card: code})


def flags(events: list[dict]) -> list[tuple[int, str]]:
    return [(f.index, f.rule) for f in history(events).flags]


# == SUM-08: a card played unseen is judged when shown, wherever it went meanwhile ===================

#: Player 1's unseen Set card (#15) Tributed on turn 4 for a Tribute Summon the record sees.
TRIBUTED = ev("normal_summoned", player=1, card="p1.m1", zone=3, tributes=["p1.m0"], shows={"p1.m1": SUMMONED_SKULL})
RETURNED = ev("card_moved", card="p1.m0", to=[1, "hand"], reason="returned", cause="p0.m0")


def test_sum_08_an_unseen_set_tributed_then_shown_in_the_gy_is_flagged() -> None:
    """SUM-08: player 1 Sets a card unseen with no Tribute (#15); on turn 4 Tributes it to Tribute
    Summon Summoned Skull, and it is shown in the GY afterwards: Summoned Skull, Level 6. The Set
    needed a Tribute. Before: leaving the field forgot the unseen Set, and nothing was flagged."""
    events = [*table(), SET_NO_TRIBUTE, *next_turns(0, 1), TRIBUTED, reveal("p1.m0", SUMMONED_SKULL)]
    h = history(events)
    assert [(f.index, f.rule) for f in h.flags] == [(len(events) - 1, "SUM-08")]
    assert "Summoned Skull, Set at #15 while the record did not know it, is Level 6" in h.flags[0].message
    assert h.state.cards["p1.m0"].zone == "gy", "what was played stands"
    machine = [table(witnessed=False)[0], *events[1:]]
    v = refused_at(machine)
    assert (v.rule, v.index) == ("SUM-08", len(events) - 1)
    assert [(v.index, v.rule) for v in audit([from_dict(e) for e in machine], CARDS).violations] == [
        (len(events) - 1, "SUM-08")]


def test_sum_08_an_unseen_level_4_set_tributed_then_shown_stands() -> None:
    """SUM-08: the same, the card shown a Level 4 monster (Vorse Raider): its Set needed no Tribute."""
    assert flags([*table(), SET_NO_TRIBUTE, *next_turns(0, 1), TRIBUTED, reveal("p1.m0", VORSE)]) == []


@pytest.mark.parametrize("code, expected", [
    pytest.param(SUMMONED_SKULL, [(23, "SUM-08")], id="level-6-flagged"),
    pytest.param(VORSE, [], id="level-4-stands"),
])
def test_sum_08_an_unseen_set_returned_to_the_hand_is_judged_when_shown(code: int, expected: list) -> None:
    """SUM-08: the unseen Set card (#15) is returned to its owner's hand by an effect on turn 3
    (#22), then an effect shows it in the hand (#23): a Level 6 monster was Set without a
    Tribute (flagged), a Level 4 one legally. Before: the return to the hand forgot the Set."""
    assert flags([*table(), SET_NO_TRIBUTE, *next_turns(0), RETURNED, reveal("p1.m0", code)]) == expected


def test_sum_08_each_unseen_play_of_a_card_is_judged_not_only_its_last() -> None:
    """SUM-08: Set unseen with no Tribute (#15), returned to the hand (#22), Set again on turn 4
    with a Tribute (#30), shown by an effect as Summoned Skull: the second Set was legal, the
    first was not, and it is the one flagged. Before: nothing (the return forgot the first Set)."""
    again = {**SET_NO_TRIBUTE, "tributes": ["p1.m9"]}
    events = [*table(), SET_NO_TRIBUTE, *next_turns(0), RETURNED, *next_turns(1, first=4), TRIBUTE_ON_FIELD, again,
              reveal("p1.m0", SUMMONED_SKULL)]
    assert events[15] == SET_NO_TRIBUTE and events[30] == again
    h = history(events)
    assert [(f.index, f.rule) for f in h.flags] == [(len(events) - 1, "SUM-08")]
    assert "Set at #15" in h.flags[0].message


def test_sum_08_an_unfollowed_shuffle_hides_which_card_was_set() -> None:
    """SUM-08: the unseen Set card is returned to the Deck and the Deck shuffled where the
    recorder could not follow: which card the id now names is unknown, so a Summoned Skull later
    shown under that id judges no earlier Set of it (nothing flagged)."""
    to_deck = ev("card_moved", card="p1.m0", to=[1, "deck"], reason="returned", cause="p0.m0")
    milled = ev("card_moved", card="p1.m0", to=[1, "gy"], reason="sent", cause="p0.m0",
                shows={"p1.m0": SUMMONED_SKULL})
    assert flags([*table(), SET_NO_TRIBUTE, *next_turns(0), to_deck, ev("deck_shuffled", player=1), milled]) == []


# == XYZ-01: an Xyz material the record did not know, judged when shown =============================

def xyz_table(witnessed: bool = True, cause: str | None = None) -> list[dict]:
    """Player 1 (Utopia in the Extra Deck) Special Summons two monsters by effect, the recorder not
    reading their names (#15, #16), and overlays them for Utopia, Rank 4 (#17)."""
    events = table(witnessed)
    events[2] = {**events[2], "extra": [UTOPIA]}
    xyz = ev("special_summoned", player=1, card="p1.x0", zone=2, position="attack", method="xyz",
             materials=["p1.m0", "p1.m1"], shows={"p1.x0": UTOPIA})
    return [*events, *(ev("special_summoned", player=1, card=f"p1.m{i}", zone=i, position="attack", method="effect",
                          cause=f"p1.m{i}") for i in (0, 1)), {**xyz, "cause": cause} if cause else xyz]


DETACHED = ev("card_moved", card="p1.m0", to=[1, "gy"], reason="detached", cause="p1.x0")


def test_xyz_01_an_unseen_xyz_material_shown_of_another_level_is_flagged() -> None:
    """XYZ-01: Utopia's material, detached (#18), is shown to be Summoned Skull, Level 6: the
    materials of a Rank 4 Xyz Summon are Level 4 monsters. Undecided at the summon (its Level was
    unknown), flagged when shown; refused in a machine's record. Before: never judged."""
    events = [*xyz_table(), {**DETACHED, "shows": {"p1.m0": SUMMONED_SKULL}}]
    h = history(events)
    assert "CARD-07" in {u.rule for u in h.undecided if u.index == 17}
    assert [(f.index, f.rule) for f in h.flags] == [(18, "XYZ-01")]
    assert ("Summoned Skull, an Xyz material at #17 while the record did not know it, is Level 6: the materials "
            "of a Rank 4 Xyz Summon are monsters of Level 4") in h.flags[0].message
    v = refused_at([*xyz_table(witnessed=False), {**DETACHED, "shows": {"p1.m0": SUMMONED_SKULL}}])
    assert (v.rule, v.index) == ("XYZ-01", 18)


@pytest.mark.parametrize("events", [
    pytest.param([*xyz_table(), {**DETACHED, "shows": {"p1.m0": VORSE}}], id="level-4-material"),
    pytest.param([*xyz_table(cause="p1.m2"), {**DETACHED, "shows": {"p1.m0": SUMMONED_SKULL}}],
                 id="overlaid-by-an-effect-XYZ-03"),
])
def test_xyz_01_an_unseen_xyz_material_shown_legal_stands(events: list[dict]) -> None:
    """XYZ-01: a Level 4 material of the Rank 4 Utopia was legal; XYZ-03: a material an effect
    overlaid (the summon's cause) is the effect's to allow: nothing flagged."""
    assert history(events).flags == []


# == WIN-05: a surrender is the surrendering player's loss ==========================================

@pytest.mark.parametrize("end, says", [
    pytest.param({**ended(1, "surrender"), "player": 1}, "player 1 surrendered, so player 0 wins, not player 1",
                 id="surrendering-player-named-winner"),
    pytest.param(ended(None, "surrender"), "never a draw", id="surrender-as-a-draw"),
])
def test_win_05_a_surrender_naming_the_surrendering_player_winner_is_refused(end: dict, says: str) -> None:
    """WIN-05 (a duel's end outside WIN-01..04, counted by the match, MATCH-01): the player who
    surrenders loses. An end for a surrender entered by player 1's side (``player`` 1) naming
    player 1 the winner, or a surrender as a draw, is refused, in a witnessed duel too (the
    record's word on the result, not a play). Before: accepted, and the match counted it."""
    refused_with([position(), end], "WIN-05", says)
    v = refused_at([*table(), end])
    assert (v.rule, v.index) == ("WIN-05", 15) and says in v.message


@pytest.mark.parametrize("end", [
    pytest.param({**ended(0, "surrender"), "player": 1}, id="the-surrendering-player-loses"),
    pytest.param(ended(1, "surrender"), id="no-player-named"),
])
def test_win_05_a_surrender_won_by_the_other_player_ends_the_duel(end: dict) -> None:
    state = fold(position(), end)
    assert state.ended and (state.winner, state.end_reason) == (end["winner"], "surrender")


# == PRIO-05: the end declared, answered or not ======================================================

P0 = {"hand": [{"code": POT, "id": "pot"}, {"code": MST, "id": "mst_hand"}, {"code": CELTIC, "id": "celtic"}],
      "szone": [{"code": MST, "id": "mst", "position": "set"}]}
P1 = {"szone": [{"code": MST, "id": "p1_mst", "position": "set"}]}
BOARD = position(P0, P1)


def passed(player: int) -> dict:
    return ev("priority_passed", player=player)


SUMMON = ev("normal_summoned", player=0, card="celtic", zone=2)
POT_ = ev("activated", player=0, card="pot", zone=1)
ENDED = "both players passed in succession with no chain open: the Main Phase 1 has ended (PRIO-05)"


@pytest.mark.parametrize("play, rule", [
    pytest.param(POT_, "SPELL-02", id="normal-spell"),
    pytest.param(SUMMON, "SUM-01", id="normal-summon"),
    pytest.param(ev("activated", player=0, card="mst_hand", zone=1, targets=["p1_mst"]), "PRIO-05",
                 id="quick-play-spell"),
    pytest.param(ev("activated", player=1, card="p1_mst", targets=["mst"]), "PRIO-05", id="opponent-after-passing"),
    pytest.param(passed(0), "PRIO-05", id="a-third-pass"),
])
def test_prio_05_once_both_players_passed_the_phase_has_ended(play: dict, rule: str) -> None:
    """PRIO-04/05: the turn player's pass declares the end of Main Phase 1; the opponent passes
    too, answering nothing: the phase has ended, and nothing more is played in it (an open game
    state is gone too, PRIO-06: the rule of the play is cited, its reason PRIO-05). Before: the
    opponent's pass was read as handing priority back, and the play was accepted."""
    refused_with([BOARD, passed(0), passed(1), play], rule, ENDED)


def test_prio_05_after_declaring_the_end_the_turn_player_does_not_summon() -> None:
    """PRIO-03/05, PRIO-06: after their own pass the turn player does not hold priority, so has no
    open game state: no Normal Summon while the opponent may answer the end. Before: accepted."""
    refused_with([BOARD, passed(0), SUMMON], "SUM-01",
                 "player 0 passed priority, declaring the end of the Main Phase 1: player 1 holds it")


def test_prio_05_the_opponent_answers_before_the_end_and_the_phase_goes_on() -> None:
    """PRIO-05: the opponent answers the end with the priority passed to them (Mystical Space
    Typhoon); once that chain has resolved the turn player holds priority again and may go on in
    the phase (a Normal Summon), then declare its end anew and move on."""
    state = fold(BOARD, passed(0), ev("activated", player=1, card="p1_mst", targets=["mst"]), passed(0), passed(1),
                 ev("chain_link_resolved", link=1), ev("card_moved", card="p1_mst", to=[1, "gy"], reason="resolved"),
                 ev("chain_ended"), SUMMON, passed(0), passed(1), phase("battle"))
    assert state.cards["celtic"].zone == "mzone" and state.phase == "battle"


def test_prio_05_passes_on_a_summon_answer_it_and_do_not_end_the_phase() -> None:
    """SPS-11 beside PRIO-05: two passes right after a summon answer the summon (it succeeds);
    the turn player goes on in the phase (a Set, a Normal Spell)."""
    state = fold(BOARD, SUMMON, passed(0), passed(1), ev("spell_trap_set", player=0, card="mst_hand", zone=2), POT_)
    assert state.cards["mst_hand"].zone == "szone" and state.chain[0].card == "pot"


# == XYZ-01, LINK-01: where an unseen material is and its face tell whoever it is ===================

def face_down_xyz(witnessed: bool = True) -> list[dict]:
    """Player 1 Sets a card unseen on turn 2 (#15) and another on turn 4 (#28), then overlays both
    face-down cards for Utopia (#29)."""
    events = xyz_table(witnessed)[:15]
    return [*events, SET_NO_TRIBUTE, *next_turns(0, 1), ev("monster_set", player=1, card="p1.m1", zone=3),
            ev("special_summoned", player=1, card="p1.x0", zone=5, position="attack", method="xyz",
               materials=["p1.m0", "p1.m1"], shows={"p1.x0": UTOPIA})]


def test_xyz_01_face_down_unseen_materials_are_refused_whoever_they_are() -> None:
    """XYZ-01: two face-down monsters the record does not know overlaid for an Xyz Summon: Xyz
    materials are face-up, whatever the cards are. Flagged at the summon (refused in a machine's
    record). Before: undecided (building the materials read the unknown cards' facts, and two
    unknown cards are too many to try each), so never called."""
    events = face_down_xyz()
    assert [(f.index, f.rule) for f in history(events).flags] == [(29, "XYZ-01")]
    assert "(p1.m0) is face-down: Xyz materials are face-up" in history(events).flags[0].message
    v = refused_at(face_down_xyz(witnessed=False))
    assert (v.rule, v.index) == ("XYZ-01", 29)


def test_xyz_01_face_up_unseen_materials_stay_undecided_until_shown() -> None:
    """XYZ-01: face-up materials the record does not know may be of the Rank's Level: the summon
    is not refused (undecided) and stands until a material is shown."""
    h = history(xyz_table())
    assert h.flags == [] and h.state.cards["p1.x0"].materials == ["p1.m0", "p1.m1"]
    assert {u.rule for u in h.undecided if u.index == 17} == {"CARD-07"}


def test_rit_02_unseen_tributes_from_the_hand_are_not_counted_as_level_0() -> None:
    """RIT-02 beside the above: a Ritual Summon (Black Luster Soldier, Level 8) Tributing two
    cards from a hand the record does not see is not refused for a Level total of 0: their Levels
    are read as unknown (undecided), and the summon stands."""
    ritual = ev("activated", player=1, card="p1.m2", zone=0, shows={"p1.m2": 55761792})
    summon = ev("special_summoned", player=1, card="p1.m3", zone=2, position="attack", method="ritual",
                cause="p1.m2", materials=["p1.m0", "p1.m1"], shows={"p1.m3": 5405694})
    h = history([*table(), ritual, ev("chain_link_resolved", link=1), summon])
    assert h.flags == [] and {u.rule for u in h.undecided if u.index == 17} == {"RIT-02"}
    assert h.state.cards["p1.m3"].zone == "mzone"


# == SUM-03: a Flip Summon entered as a position change is its own summon ===========================

FLIP_BOARD = position({"hand": [{"code": VORSE, "id": "vorse"}],
                       "mzone": [{"code": CELTIC, "id": "setmon", "position": "set"}]},
                      {"szone": [{"code": SOLEMN, "id": "solemn", "position": "set"}]})
SUMMONED_THEN_FLIPPED = [FLIP_BOARD, ev("normal_summoned", player=0, card="vorse", zone=2),
                         ev("position_changed", player=0, card="setmon", position="attack"),
                         ev("activated", player=1, card="solemn", costs=[{"lp": 2000}]),
                         ev("chain_link_resolved", link=1)]


def test_sum_03_a_flip_summon_negated_after_a_normal_summon_negates_only_itself() -> None:
    """SUM-03: player 0 Normal Summons Vorse Raider, then Flip Summons their Set Celtic Guardian
    (a position change); player 1's Solemn Warning negates the Flip Summon. Vorse Raider's summon
    was over: it stays. Before: the Flip Summon did not start its own summon, Vorse Raider was
    taken for part of it, and the Solemn Warning's move to the GY was refused as PEND-04."""
    state = fold(*SUMMONED_THEN_FLIPPED, ev("summon_negated", card="setmon", cause="solemn"),
                 ev("card_moved", card="solemn", to=[1, "gy"], reason="resolved"), ev("chain_ended"))
    assert (state.cards["setmon"].zone, state.cards["vorse"].zone) == ("gy", "mzone")


def test_sum_03_the_earlier_normal_summon_is_not_negated_with_the_flip_summon() -> None:
    """SPS-11: the summon being negated is the Flip Summon's; Vorse Raider's, over, is not."""
    refused_with([*SUMMONED_THEN_FLIPPED, ev("summon_negated", card="vorse", cause="solemn")], "SPS-11",
                 "Vorse Raider is not being summoned now")
