"""Twenty-second pass, b, at the paper table: what its scorekeeper met.

- Refusals that read nothing hidden, told the table as they are (``RuleViolation.public``), each
  shown the same, byte for byte, whatever hidden card the entry names (or none): a Field Zone
  taken (ZONE-10), a chain link that does not exist (LOG-07), no attack to replay (BATTLE-06), a
  turn out of order (LOG-06), a card already where it is sent (LOG-02: by the entry's own name for
  it, never by what the record knows it is). They said "the reason is the judge's".
"""
from __future__ import annotations

import pytest

from test_release import ORGANISER, auth, client, store  # noqa: F401  (fixtures)
from test_service_table_recording import TURN_2, at_the_table
from test_table_22 import HIDDEN

#: A Field Spell Set by player 0 and a Set monster each (the table sees none of them), then
#: player 1's Main Phase 1 of turn 2, with no chain and no attack.
FIELD_SET = ({"kind": "spell_trap_set", "player": 0, "card": "p0.m3", "field_zone": True},
             {"kind": "monster_set", "player": 0, "card": "p0.m4", "zone": 0}, *TURN_2,
             {"kind": "monster_set", "player": 1, "card": "p1.m4", "zone": 0})
#: Cards the table does not see, then the Field Spell.
NAMED = (*HIDDEN, "p0.m3")


def _cite(card: str | None) -> dict:
    return {"cite": {"card": card, "effect": "its effect"}} if card else {}


#: Each check now marked ``public``: the entry it refuses, naming a card (``None``: none), and the
#: words the table is told, the same for every card named.
PUBLIC = {
    "ZONE-10 a Field Zone taken": (lambda c: {"kind": "card_moved", "card": c, "to": [0, "fzone"]},
                                   HIDDEN, "player 0's Field Zone is occupied"),
    "LOG-07 no chain to resolve": (lambda c: {"kind": "chain_link_resolved", "link": 2, **_cite(c)},
                                   (*NAMED, None), "no chain is open to resolve link 2"),
    "LOG-07 a negation by no later link": (lambda c: {"kind": "chain_link_negated", "link": 1, "by": 1, **_cite(c)},
                                           (*NAMED, None), "link 1 can be negated only by a later link, not 1"),
    "BATTLE-06 a replay with no attack": (lambda c: {"kind": "attack_retargeted", "target": c},
                                          (*NAMED, None), "no attack is waiting for damage calculation"),
    "BATTLE-06 a cancel with no attack": (lambda c: {"kind": "attack_cancelled", "cause": c},
                                          (*NAMED, None), "no attack is waiting for damage calculation"),
    "LOG-06 a turn out of order": (lambda c: {"kind": "turn_started", "player": 0, "turn": 9, **_cite(c)},
                                   (*NAMED, None), "turn 9 follows turn 2; expected turn 3"),
}


def _told(client, duel: dict, recorder: str, events: list[dict]) -> set[tuple]:  # noqa: F811
    length = client.get(f"/duels/{duel['id']}/state", headers=auth(recorder)).json()["events"]
    told = set()
    for event in events:
        r = client.post(f"/duels/{duel['id']}/events", params={"expected": length}, json=[event],
                        headers=auth(recorder))
        told.add((r.status_code, r.json().get("rule"), r.json().get("message")))
    return told


@pytest.mark.parametrize("case", sorted(PUBLIC))
def test_a_refusal_reading_nothing_hidden_is_the_same_whatever_hidden_card_it_names(client, case) -> None:  # noqa: F811
    make, named, words = PUBLIC[case]
    duel, recorder = at_the_table(client, *FIELD_SET)
    told = _told(client, duel, recorder, [{k: v for k, v in make(c).items() if v is not None} for c in named])
    assert len(told) == 1, told                                 # nothing in it says which card was named
    status, rule, message = told.pop()
    assert status == 422 and rule == case.split()[0] and words in message, message
    assert "judge's" not in message and not any(card in message for card in NAMED)


#: LOG-02: a card sent where it already is (its own Monster Zone, its Spell & Trap Zone, its
#: owner's hand), each told by the entry's own name for it and nothing the record knows of it.
ALREADY = {
    "a Set monster to its Monster Zone": (("p0.m4", [0, "mzone", 3]), ("p1.m4", [1, "mzone", 3])),
    "a Set Field Spell to the Field Zone": (("p0.m3", [0, "fzone"]),),
    "a card in a hand to that hand": (("p0.m2", [0, "hand"]), ("p1.m1", [1, "hand"])),
}


@pytest.mark.parametrize("case", sorted(ALREADY))
def test_a_card_already_where_it_goes_is_told_by_the_entrys_own_name(client, case) -> None:  # noqa: F811
    duel, recorder = at_the_table(client, *FIELD_SET)
    for card, to in ALREADY[case]:
        told = _told(client, duel, recorder, [{"kind": "card_moved", "card": card, "to": to}])
        assert {(s, r, m.replace(card, "X")) for s, r, m in told} == {(422, "LOG-02", f"X is already in the {to[1]}")}, told
