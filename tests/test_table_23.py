"""Twenty-third pass at the paper table: what its scorekeeper met.

- Refusals that read nothing hidden, told the table as they are (``RuleViolation.public``), the same
  byte for byte whatever hidden card the entry names: a chain link that is not there while a chain
  is open (LOG-07, "the chain has no link"), and a Field Zone taken by a control change (ZONE-10).
  Both said "the reason is the judge's".
- A monster's ATK/DEF set by an effect (``stats_changed``) and an attack stopped (``attack_cancelled``)
  are each a tap on the card, by the card of the link just resolved: both were typed whole in
  *Something else…* (six taps and four).
- ZONE-11: a card a view knew, put at a named place in between the top and the bottom of a Deck
  ("the 3rd from the top", "into the Deck, not shuffled"), stays known there, where it is, as the
  cards put on it move it down, until the Deck is shuffled or a card is taken out of it (a draw, a
  mill: the view cannot tell which side of it that card lay). Only the top and the bottom were
  followed: the table's recorder could not name it for the effect that then took it.
"""
from __future__ import annotations

import pytest

from duel import CARDS, DARK_MAGICIAN, POT, fold
from test_release import auth, client, store  # noqa: F401  (fixtures)
from test_service_table_recording import (CYLINDER_RESOLVED, TURN_2, VORSE, VORSE_SUMMONED, WARWOLF_ATTACKS,
                                          at_the_table, offered, tapped)
from test_table_22b import DRAW, FIELD_SET, NAMED, ON_BOARD, VIEWERS, _cite, _known_in_deck, _put, _told
from test_views import named_only_where_allowed, replay, walk_file
from ygoreplay import i18n
from ygoreplay.events import from_dict
from ygoreplay.log import judge_steps, narrate
from ygoreplay.replay_file import dumps, loads

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


# -- ZONE-11: a card put in between the top and the bottom of a Deck ---------------------------

#: Dark Magician, face-up, put 3rd from the top of player 0's Deck of 10; then Pot of Greed from
#: the hand on top of it (hidden but from player 0), then Vorse Raider put 8th, below it.
IN_BETWEEN = [ON_BOARD, _put("p0.s13", 2), _put("p0.s11", 0), _put("p0.s12", 7)]
#: What each view then knows of player 0's Deck: Dark Magician 4th (its owner the Pot on top too).
KEPT = {"p0": [(0, POT), (3, DARK_MAGICIAN), (7, VORSE)]}


def _taken(events: list[dict]) -> dict[str, list[dict]]:
    top = fold(*events).sides[0].deck[0]
    return {"its owner's draw": [DRAW],
            "a mill of the top card": [{"kind": "card_moved", "card": top, "to": [0, "gy"], "source": [0, "deck", 0],
                                        "reason": "sent"}],
            "a shuffle": [{"kind": "deck_shuffled", "player": 0}],
            "the top card put at the bottom": [_put(top, None)]}


@pytest.mark.parametrize("view", VIEWERS)
def test_a_card_put_in_between_stays_known_where_it_is_until_a_card_is_taken_out(view) -> None:
    assert _known_in_deck(IN_BETWEEN[:2], view) == [(2, DARK_MAGICIAN)]
    kept = KEPT.get(view, [(3, DARK_MAGICIAN)])
    assert _known_in_deck(IN_BETWEEN, view) == kept
    assert _known_in_deck([*IN_BETWEEN, {"kind": "deck_shuffled", "player": 1}], view) == kept
    for how, taken in _taken(IN_BETWEEN).items():
        left = _known_in_deck([*IN_BETWEEN, *taken], view)
        assert (3, DARK_MAGICIAN) not in left and (2, DARK_MAGICIAN) not in left, (how, left)


@pytest.mark.parametrize("view", VIEWERS)
def test_the_bottom_card_stays_known_past_a_draw_the_card_in_between_does_not(view) -> None:
    """The bottom stays the bottom whichever card a draw takes; a card in between may move up."""
    events = [ON_BOARD, _put("p0.s13", None), _put("p0.s12", 4)]
    assert (11, DARK_MAGICIAN) in _known_in_deck(events, view)
    after = _known_in_deck([*events, DRAW], view)
    assert (10, DARK_MAGICIAN) in after and all(code != VORSE for _, code in after), after


@pytest.mark.parametrize("view", ("spectator", "p0", "p1"))      # the views a file is made for
def test_each_view_names_a_deck_card_only_where_it_is_and_only_one_it_may_follow(view) -> None:
    """The privacy oracle (``test_views``), which also checks that a card a view names in a Deck
    lies there, at every event: the card put in between is named, where it is, then lost."""
    for taken in _taken(IN_BETWEEN).values():
        events = [from_dict(e) for e in (*IN_BETWEEN, *taken)]
        named = []                                 # Dark Magician's places in the view's Deck, event by event

        def watched(walked):
            for index, state, truth, followed in walked:
                named.append([i for i, d in enumerate(state.sides[0].deck) if state.cards[d].code == DARK_MAGICIAN])
                yield index, state, truth, followed
        named_only_where_allowed(watched(walk_file(loads(dumps(replay(events, view))), events, CARDS, view)))
        assert named == [[], [2], [3], [3], []]


#: What each language says of Dark Magician put 3rd from the top of its Deck.
THIRD = {"en": "→ place 3 from the top of Player 0's Deck (returned)", "ja": "の上から3枚目", "ko": "위에서 3번째",
         "zh-Hans": "从上数第3张", "zh-Hant": "從上數第3張"}


@pytest.mark.parametrize("language", sorted(THIRD))
def test_the_log_line_says_the_place_in_between(language) -> None:
    with i18n.using(language):
        said = list(narrate(judge_steps([from_dict(e) for e in IN_BETWEEN[:2]], CARDS)))[-1].text
    assert THIRD[language] in said, said


def test_the_tables_recorder_places_a_card_3rd_from_the_top_and_names_it_there(client) -> None:  # noqa: F811
    """At the table: Vorse Raider put 3rd from the top of its Deck (the sheet's action, its place
    typed), shown at that place on the table's board, then sent from there to the GY by name."""
    duel, recorder = at_the_table(client, VORSE_SUMMONED)
    place = offered(client, duel, "p0.m0", "", "Place in the Deck, from the top")
    assert place["event"] == {"kind": "card_moved", "card": "p0.m0", "to": [0, "deck", 2], "reason": "returned"}
    board = tapped(client, duel, recorder, place["event"])
    assert [(i, c["id"], c["code"]) for i, c in board["players"][0]["deck_places"]] == [(2, "p0.m0", VORSE)]
    assert board["players"][0]["deck_top"] is None
    spectator = client.get(f"/duels/{duel['id']}/state", headers=auth(duel["tokens"]["spectator"])).json()["board"]
    assert [c["code"] for _, c in spectator["players"][0]["deck_places"]] == [VORSE]
    board = tapped(client, duel, recorder, {"kind": "card_moved", "card": "p0.m0", "to": [0, "gy"], "reason": "sent"})
    assert [c["id"] for c in board["players"][0]["gy"]] == ["p0.m0"] and board["players"][0]["deck_places"] == []


def test_a_monster_the_damage_calculation_destroyed_is_among_the_turns_moves(client) -> None:  # noqa: F811
    """BATTLE-14: Warwolf (2000) destroys Vorse Raider (1900): the turn's moves offer it to the GY,
    destroyed by battle, as they offer the battle damage; once it is there, no more."""
    duel, recorder = at_the_table(client, VORSE_SUMMONED, *TURN_2, *WARWOLF_ATTACKS,
                                  {"kind": "step_entered", "step": "damage"},
                                  {"kind": "damage_calculated", "destroyed": ["p0.m0"], "damage": [100, 0]})

    def moves() -> dict:
        r = client.get(f"/duels/{duel['id']}/actions", headers=auth(duel["tokens"]["judge"]))
        return {a["label"]: a for a in r.json()["actions"]}
    to_gy = moves()["To the GY (destroyed by battle)"]
    assert to_gy["event"] == {"kind": "card_moved", "card": "p0.m0", "to": [0, "gy"], "reason": "battle"}
    assert to_gy["choices"] == {"card": ["p0.m0"]} and to_gy["verdict"] == "legal"
    tapped(client, duel, recorder, to_gy["event"])
    assert "To the GY (destroyed by battle)" not in moves()
