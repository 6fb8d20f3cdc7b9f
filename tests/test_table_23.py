"""Twenty-third pass at the paper table: what its scorekeeper met.

- Refusals that read nothing hidden, told the table as they are (``RuleViolation.public``), the same
  byte for byte whatever hidden card the entry names: a chain link that is not there while a chain
  is open (LOG-07, "the chain has no link"), and a Field Zone taken by a control change (ZONE-10).
  Both said "the reason is the judge's".
- A monster's ATK/DEF set by an effect (``stats_changed``) and an attack stopped (``attack_cancelled``)
  are each a tap on the card, by the card of the link just resolved: both were typed whole in
  *Something else…* (six taps and four).
"""
from __future__ import annotations

import pytest

from duel import POT
from test_release import auth, client, store  # noqa: F401  (fixtures)
from test_service_table_recording import (CYLINDER_RESOLVED, TURN_2, VORSE_SUMMONED, WARWOLF_ATTACKS, at_the_table,
                                          offered, tapped)
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


def test_an_effects_atk_and_def_are_a_tap_on_the_monster_by_the_link_just_resolved(client) -> None:  # noqa: F811
    """Vorse Raider (1900/1200) face-up: its sheet offers its ATK/DEF as they are, the page's fields
    to change; with Magic Cylinder just resolved, that is the cause. A Set monster offers none."""
    duel, recorder = at_the_table(client, VORSE_SUMMONED, *TURN_2,
                                  {"kind": "monster_set", "player": 1, "card": "p1.m1", "zone": 0})
    change = offered(client, duel, "p0.m0", "", "Change ATK/DEF")
    assert change["event"] == {"kind": "stats_changed", "card": "p0.m0", "atk": 1900, "defense": 1200}
    r = client.get(f"/duels/{duel['id']}/actions", params={"card": "p1.m1"}, headers=auth(duel["tokens"]["judge"]))
    assert "Change ATK/DEF" not in {a["label"] for a in r.json()["actions"]}
    board = tapped(client, duel, recorder, {**change["event"], "atk": 2600})
    vorse = next(c for c in board["players"][0]["mzone"] if c and c["id"] == "p0.m0")
    assert (vorse["atk"], vorse["defense"]) == (2600, 1200)
    duel, recorder = at_the_table(client, *CYLINDER_RESOLVED)
    change = offered(client, duel, "p0.m0", "", "Change ATK/DEF")
    assert change["event"]["cause"] == "p0.m1"


def test_the_attackers_sheet_stops_its_attack_in_one_tap(client) -> None:  # noqa: F811
    """BATTLE-06: Warwolf attacks; its sheet stops the attack, by the trap just resolved when one
    did (its player's), else by none (a replay: the attacker calls it off). The attacked monster's
    sheet offers no such thing."""
    duel, recorder = at_the_table(client, *CYLINDER_RESOLVED)
    stop = offered(client, duel, "p1.m0", "", "Stop this attack")
    assert stop["event"] == {"kind": "attack_cancelled", "player": 0, "cause": "p0.m1"}
    assert tapped(client, duel, recorder, stop["event"]).get("attack") is None
    duel, recorder = at_the_table(client, VORSE_SUMMONED, *TURN_2, *WARWOLF_ATTACKS)
    assert offered(client, duel, "p1.m0", "", "Stop this attack")["event"] == {"kind": "attack_cancelled"}
    r = client.get(f"/duels/{duel['id']}/actions", params={"card": "p0.m0"}, headers=auth(duel["tokens"]["judge"]))
    assert "Stop this attack" not in {a["label"] for a in r.json()["actions"]}
