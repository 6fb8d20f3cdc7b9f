"""Twenty-third pass at the paper table: what its scorekeeper met.

- Refusals that read nothing hidden, told the table as they are (``RuleViolation.public``), the same
  byte for byte whatever hidden card the entry names: a chain link that is not there while a chain
  is open (LOG-07, "the chain has no link"), and a Field Zone taken by a control change (ZONE-10).
  Both said "the reason is the judge's".
"""
from __future__ import annotations

import pytest

from duel import POT
from test_release import auth, client, store  # noqa: F401  (fixtures)
from test_service_table_recording import at_the_table
from test_table_22b import FIELD_SET, NAMED, _cite, _told

#: Player 1's own Field Spell Set too, and Pot of Greed activated from its hand: a chain of one link.
CHAIN_OPEN = (*FIELD_SET, {"kind": "spell_trap_set", "player": 1, "card": "p1.m2", "field_zone": True},
              {"kind": "activated", "player": 1, "card": "p1.m3", "zone": 0, "shows": {"p1.m3": POT}})

PUBLIC = {
    "LOG-07 a link the open chain has not": (
        lambda c: {"kind": "chain_link_resolved", "link": 3, **_cite(c)}, (*NAMED, None), "the chain has no link 3"),
    "LOG-07 a negation of a link the open chain has not": (
        lambda c: {"kind": "chain_link_negated", "link": 3, **_cite(c)}, (*NAMED, None), "the chain has no link 3"),
    "ZONE-10 a Field Spell's control to a taken Field Zone": (
        lambda c: {"kind": "control_changed", "card": "p0.m3", "to_player": 1, "zone": 0, **({"cause": c} if c else {})},
        (*NAMED, None), "player 1's Field Zone is occupied"),
}


@pytest.mark.parametrize("case", sorted(PUBLIC))
def test_a_refusal_reading_nothing_hidden_is_the_same_whatever_hidden_card_it_names(client, case) -> None:  # noqa: F811
    make, named, words = PUBLIC[case]
    duel, recorder = at_the_table(client, *CHAIN_OPEN)
    told = _told(client, duel, recorder, [make(c) for c in named])
    assert len(told) == 1, told                                 # nothing in it says which card was named
    status, rule, message = told.pop()
    assert status == 422 and rule == case.split()[0] and words in message, message
    assert "judge's" not in message and not any(card in message for card in NAMED)
