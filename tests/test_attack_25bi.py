"""Attack 25bi: the twenty-third pass's merges looked at from a second way in.

- table23's place in between: a negative place (``[0, "deck", -1]``) went in as Python counts
  (the 2nd card from the bottom of the Deck), its log line saying "place 0 from the top of
  Player 0's Deck" and the board's ``deck_places`` another place; -100 put it on top, said "place
  -99". A pile's place counts from its top, 0: LOG-05 refuses any other, at every door (the rules).
"""
from __future__ import annotations

import pytest

from duel import refused
from test_table_22b import ON_BOARD


@pytest.mark.parametrize("to", [[0, "deck", -1], [0, "deck", -100], [0, "gy", -1], [0, "banished", -3]],
                         ids=["deck -1", "deck -100", "gy -1", "banished -3"])
def test_log_05_a_negative_place_in_a_pile_is_refused(to) -> None:
    """LOG-05: Dark Magician sent to a negative place of a pile is refused, saying the place."""
    reason = "returned" if to[1] == "deck" else "sent"
    violation = refused(ON_BOARD, {"kind": "card_moved", "card": "p0.s13", "to": to, "reason": reason})
    assert violation.rule == "LOG-05" and str(to[2]) in str(violation)

