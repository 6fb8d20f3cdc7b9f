"""A second head judge's review of judge16's rulings (issue 25, sixteenth pass: judgerev16),
recorded as a table's recorder writes them.

Refused though legal:

* TURN-02 (GEN-01): a text worded "During your Draw Phase, before you draw" need not give the
  draw up: Zexal Field places "Shining Draw" on top of the Deck, then the turn player draws it.
  judge16 read every cited activation of the turn player's before the draw as giving the draw up,
  and refused the draw after it ("draws only once"). Judged without card text the engine cannot
  tell Zexal Field from Magical Blast, so after such an activation no draw is owed (judge16) and
  one is still allowed, once.

Missed:

* WIN-02 (TURN-02): with an empty Deck the turn player's cited activation before the draw
  gave the draw up, and with it the loss the owed draw is (Magical Blast needs a card in the Deck).
* TURN-08 (PRIO-01): two boosts by one cause this turn ("gains 500 ATK until the end of this
  turn", its effect used twice) lapse one at a time in the End Phase: the first lapse, half of
  what the cause changed, was read as an End Phase effect applying, giving priority back.

Probed and found right (kept out of the suite: they pass on the baseline): the opponent's
activation chained to the turn player's Magical Blast before the draw; Magical Blast negated
(no draw owed: EDOPro sets the draw count to 0 as it is activated); a lapse after the card left
the field and came back (``field_exits``: a change by the same cause is then an End Phase
effect); a control lapse then a real End Phase effect (priority again, then the End Phase ends
after two passes); ``lapsing`` kept by ``copy`` and ``to_data``/``from_data``, and a snapshot
stored before it loads with none (a lapse then reads as an effect: priority again, never a
refusal); ocg-2017 sudden death with the LP level again at the end of a turn; the End Phase
hook for a card moved, LP and counters (tests/test_rule_scenarios_30.py, _31.py).
"""
from __future__ import annotations

import pytest
from conftest import shared_path
from test_rule_scenarios_27 import ev
from test_rule_scenarios_28 import passed
from test_rule_scenarios_30 import END_PHASE, QUICK_PLAY
from test_rule_scenarios_32 import BLAST_RESOLVED, DRAW_PHASE, ENDED

from duel import fold, refused_with
from ygoreplay.cards import CardDB

@pytest.fixture(scope="module")
def babel() -> CardDB:
    """The real card database (ProjectIgnis BabelCDB): modern cards by their own facts."""
    return CardDB.from_cdb(shared_path("cards", "babel-2026.cdb"))


def test_turn_02_a_draw_after_a_cited_activation_before_it_is_still_made(babel: CardDB) -> None:
    """TURN-02, GEN-01: turn 2, player 0 activates a card before the draw, citing "During your
    Draw Phase, before you draw: place 1 'Shining Draw' from your Deck on top of the Deck" (Zexal
    Field; Magical Blast's record stands in), it resolves, and player 0 draws: the draw is made.
    Before: refused as TURN-02 ("the turn player draws only once in the Draw Phase"). No draw is
    owed after it (the Standby Phase may follow: Magical Blast gave it up), and only one is made."""
    draw = ev("cards_drawn", player=0, count=1)
    state = fold(DRAW_PHASE, *BLAST_RESOLVED, draw, ev("phase_entered", phase="standby"), cards=babel)
    assert state.phase == "standby" and len(state.sides[0].hand) == 3
    refused_with([DRAW_PHASE, *BLAST_RESOLVED, draw, draw], "TURN-02", "draws only once in the Draw Phase",
                 cards=babel)


def test_turn_08_two_boosts_by_one_cause_lapse_one_at_a_time() -> None:
    """TURN-08, PRIO-05: an effect (cause ``imt``) gave player 1's Celtic Guardian 500 ATK until
    the end of the turn, twice (1400 -> 1900 -> 2400); both players pass in the End Phase and the
    boosts lapse one at a time (2400 -> 1900 -> 1400), recorded with their cause: no effect
    applied, the End Phase has ended and Mystical Space Typhoon is refused. Before: the first
    lapse gave priority back and it was accepted. A change by ``imt`` going past where it found
    the card (1900 -> 900) is an End Phase effect applying: priority again."""
    main, end = {**END_PHASE, "phase": "main1"}, ev("phase_entered", phase="end")
    boosts = [ev("stats_changed", card="cel", atk=1900, cause="imt"), ev("stats_changed", card="cel", atk=2400, cause="imt")]
    lapses = [ev("stats_changed", card="cel", atk=1900, cause="imt"), ev("stats_changed", card="cel", atk=1400, cause="imt")]
    refused_with([main, *boosts, end, passed(0), passed(1), lapses[0], QUICK_PLAY], "PRIO-05", ENDED)
    refused_with([main, *boosts, end, passed(0), passed(1), *lapses, QUICK_PLAY], "PRIO-05", ENDED)
    past = ev("stats_changed", card="cel", atk=900, cause="imt")
    assert fold(main, *boosts, end, passed(0), passed(1), lapses[0], past, QUICK_PLAY).chain[0].card == "mst"


def test_win_02_a_cited_activation_before_the_draw_gives_up_no_draw_with_an_empty_deck(babel: CardDB) -> None:
    """WIN-02, TURN-02: turn 2, player 0's Deck is empty; they activate Magical Blast from the GY
    before the draw, citing it (its condition wants a card in the Deck: with none, the draw owed
    loses the duel). The chain resolves, and the Standby Phase is refused as WIN-02: the draw was
    not given up. Before: the cite gave it up and the duel went on with an empty Deck."""
    empty = {**DRAW_PHASE, "sides": [{**DRAW_PHASE["sides"][0], "deck": []}, DRAW_PHASE["sides"][1]]}
    refused_with([empty, *BLAST_RESOLVED, ev("phase_entered", phase="standby")], "WIN-02",
                 "must draw with an empty Deck", cards=babel)
