"""The twenty-second pass at the table: what a scorekeeper recording a paper duel, by the page or
by a script over HTTP, met.

- An append's answer numbers its events as its ``flags`` do (``first_index``, ``last_index``) and
  says what ``position`` always was, the new length (``length``: the next ``?expected=``); a script
  read ``position`` as the last event's index and was one off. ``position`` still answers.
- ZONE-11: a card returned to the Deck by an effect that places it (the top, the bottom) is
  offered as such, and stays known where it went: the next draw deals a card put on top. The
  sheet offered *Return to the Deck* alone, a shuffle: the record lost the card and the draw.
- A refusal that reads nothing of a hidden card (``RuleViolation.public``: an event's own shape, an
  LP total, whether an attack waits) is told the table as it is, the same words whatever hidden
  card the entry named, or none: it said "the reason is the judge's" for an LP change whose cause
  chip was a Set card, and the scorekeeper could not tell what to fix.
"""
from __future__ import annotations

import pytest

from test_release import auth, client, store  # noqa: F401  (fixtures)
from test_service_table_recording import TURN_2, VORSE, VORSE_SUMMONED, at_the_table, offered, tapped


def test_an_append_answers_its_events_indexes_as_its_flags_number_them(client) -> None:  # noqa: F811
    duel, recorder = at_the_table(client)
    length = client.get(f"/duels/{duel['id']}/state", headers=auth(recorder)).json()["events"]
    # a Vorse Raider Normal Summoned, then a second Normal Summon (SUM-01: one a turn): flagged, kept
    events = [{"kind": "normal_summoned", "player": 0, "card": "p0.m0", "zone": 0, "shows": {"p0.m0": VORSE}},
              {"kind": "normal_summoned", "player": 0, "card": "p0.m1", "zone": 1, "shows": {"p0.m1": VORSE}}]
    r = client.post(f"/duels/{duel['id']}/events", params={"expected": length}, json=events, headers=auth(recorder))
    answer = r.json()
    assert r.status_code == 200, r.text
    assert answer["position"] == answer["length"] == length + 2                 # the old name keeps working
    assert (answer["first_index"], answer["last_index"]) == (length, length + 1)
    assert [f["index"] for f in answer["flags"]] == [answer["last_index"]]      # one numbering for both
    empty = client.post(f"/duels/{duel['id']}/events", json=[], headers=auth(recorder)).json()
    assert empty == {"position": length + 2, "length": length + 2}              # nothing written: no index


def test_a_judges_note_and_a_match_append_answer_the_same_fields(client) -> None:  # noqa: F811
    duel, _recorder = at_the_table(client)
    judge = auth(duel["tokens"]["judge"])
    r = client.post(f"/duels/{duel['id']}/notes", json={"judge": "Ann", "text": "watch the clock"}, headers=judge)
    answer = r.json()
    assert r.status_code == 200 and answer["length"] == answer["position"] == answer["last_index"] + 1, r.text
    assert answer["first_index"] == answer["last_index"]


def test_the_openapi_schema_documents_length_and_the_indexes_of_every_append(client) -> None:  # noqa: F811
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/duels/{duel_id}/events", "/matches/{match_id}/events", "/duels/{duel_id}/notes",
                 "/duels/{duel_id}/rollback"):
        schema = paths[path]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
        assert {"length", "position", "first_index", "last_index"} <= set(schema["properties"]), path
        assert "NOT an index" in schema["properties"]["position"]["description"], path


def _judge_board(client, duel: dict) -> dict:  # noqa: F811
    return client.get(f"/duels/{duel['id']}/state", headers=auth(duel["tokens"]["judge"])).json()["board"]


def test_a_card_returned_to_the_top_of_the_deck_is_the_next_card_drawn(client) -> None:  # noqa: F811
    """ZONE-11: Vorse Raider put back on top of its owner's Deck at the table (the sheet's tap), then
    player 1's turn, then player 0's Draw Phase draw: the record deals Vorse Raider back."""
    duel, recorder = at_the_table(client, VORSE_SUMMONED)
    top = offered(client, duel, "p0.m0", "", "Return to the top of the Deck")
    assert top["event"]["to"] == [0, "deck", 0] and top["event"]["reason"] == "returned"
    tapped(client, duel, recorder, top["event"])
    assert _judge_board(client, duel)["players"][0]["deck"] == 36       # 40 - 5 drawn + Vorse back
    played = [*TURN_2, {"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "player": 0, "turn": 3},
              {"kind": "phase_entered", "phase": "draw"}, {"kind": "cards_drawn", "player": 0}]
    for event in played:
        tapped(client, duel, recorder, event)
    hand = _judge_board(client, duel)["players"][0]["hand"]
    assert [c["code"] for c in hand if c and c["id"] == "p0.m0"] == [VORSE], hand


def test_a_card_returned_to_the_bottom_is_not_drawn_and_a_shuffle_is_its_own_tap(client) -> None:  # noqa: F811
    duel, recorder = at_the_table(client, VORSE_SUMMONED)
    shuffle = offered(client, duel, "p0.m0", "", "Shuffle into the Deck")
    assert shuffle["event"]["to"] == [0, "deck"] and shuffle["event"]["reason"] == "shuffled"
    bottom = offered(client, duel, "p0.m0", "", "Return to the bottom of the Deck")
    assert bottom["event"]["to"] == [0, "deck", 35]                    # past the 35 cards left: the bottom
    tapped(client, duel, recorder, bottom["event"])
    for event in [*TURN_2, {"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "player": 0, "turn": 3},
                  {"kind": "phase_entered", "phase": "draw"}, {"kind": "cards_drawn", "player": 0}]:
        tapped(client, duel, recorder, event)
    players = _judge_board(client, duel)["players"]
    assert players[0]["deck"] == 35 and "p0.m0" not in [c and c["id"] for c in players[0]["hand"]]


#: A Set monster on each side (the table sees neither), then player 1's Main Phase 1 of turn 2.
SET_MONSTERS = ({"kind": "monster_set", "player": 0, "card": "p0.m4", "zone": 0}, *TURN_2,
                {"kind": "monster_set", "player": 1, "card": "p1.m4", "zone": 0})
#: Cards the table does not see: the Set monsters, a card in each hand.
HIDDEN = ("p0.m4", "p1.m4", "p0.m2", "p1.m1")
BIG = 2 ** 63 - 1


def _across(card: str) -> int:
    """The other player's side: a Set monster moved to its own Monster Zone is "already there"."""
    return 1 - int(card[1])


#: Each check marked ``public``: the entry it refuses, naming one card (``None``: naming none, where
#: the card is only a cause), the cards it is tried with, and the words the table is told.
PUBLIC = {
    "LOG-05 an LP change amount": (lambda c: {"kind": "life_points_changed", "player": 1, "amount": -100,
                                               "reason": "effect_damage", "cause": c},
                                   (*HIDDEN, None), "an LP change amount is positive"),
    "LOG-05 an LP total": (lambda c: {"kind": "life_points_changed", "player": 1, "amount": BIG, "reason": "gain",
                                      "cause": c}, (*HIDDEN, None), "an LP total is at most"),
    "LOG-05 a die": (lambda c: {"kind": "die_rolled", "player": 1, "results": [7], "cause": c},
                     (*HIDDEN, None), "a die shows 1 to 6, not [7]"),
    "LOG-05 a coin": (lambda c: {"kind": "coin_tossed", "player": 1, "results": [], "cause": c},
                      (*HIDDEN, None), "a coin toss has at least one result"),
    "LOG-05 a draw of none": (lambda c: {"kind": "cards_drawn", "player": 1, "count": 0, "cause": c},
                              (*HIDDEN, None), "a draw takes at least one card"),
    "BATTLE-11 no attack waits": (lambda c: {"kind": "damage_calculated", "destroyed": [c] if c else []},
                                  (*HIDDEN, None), "no attack is waiting for damage calculation"),
    "LOG-05 a move to a Monster Zone": (lambda c: {"kind": "card_moved", "card": c, "to": [_across(c), "mzone"]},
                                        HIDDEN, "a move to a Monster Zone names the zone index"),
    "POS-01 a move's position": (lambda c: {"kind": "card_moved", "card": c, "to": [_across(c), "mzone", 4],
                                            "position": "faceup"}, HIDDEN, "'faceup' is not a battle position"),
    "LOG-05 a position in a pile": (lambda c: {"kind": "card_moved", "card": c, "to": [_across(c), "gy"],
                                               "position": "attack"}, HIDDEN, "a card in the gy takes no position"),
    "LOG-05 a counter count": (lambda c: {"kind": "counters_changed", "card": c, "counter": "spell", "count": -1},
                               HIDDEN, "a counter count is 0 or more"),
    "POS-01 a position change": (lambda c: {"kind": "position_changed", "player": int(c[1]), "card": c,
                                            "position": "faceup"}, HIDDEN[:2], "'faceup' is not a battle position"),
}


@pytest.mark.parametrize("case", sorted(PUBLIC))
def test_a_refusal_reading_nothing_hidden_is_told_the_table_as_it_is(client, case) -> None:  # noqa: F811
    make, named, words = PUBLIC[case]
    duel, recorder = at_the_table(client, *SET_MONSTERS)
    length = client.get(f"/duels/{duel['id']}/state", headers=auth(recorder)).json()["events"]
    told = set()
    for card in named:
        event = {k: v for k, v in make(card).items() if v is not None}
        r = client.post(f"/duels/{duel['id']}/events", params={"expected": length}, json=[event],
                        headers=auth(recorder))
        told.add((r.status_code, r.json().get("rule"), r.json().get("message")))
    assert len(told) == 1, told                                 # nothing in it says which card was named
    status, rule, message = told.pop()
    assert status == 422 and rule == case.split()[0] and words in message, message
    assert "judge's" not in message and not any(card in message for card in HIDDEN)


#: Checks of where a card is (the table sees that), telling the card by the entry's own name for it:
#: the same words, that name aside, whatever hidden card it is.
WHERE = {
    "BATTLE-02 an attacker not on the field": lambda c: {"kind": "attack_declared", "player": 1, "attacker": c},
    "SUM-10 a Flip Summon of a card not on the field": lambda c: {"kind": "flip_summoned", "player": 1, "card": c},
}


@pytest.mark.parametrize("case", sorted(WHERE))
def test_a_refusal_of_where_a_card_is_names_only_what_the_entry_named(client, case) -> None:  # noqa: F811
    duel, recorder = at_the_table(client, *SET_MONSTERS)
    length = client.get(f"/duels/{duel['id']}/state", headers=auth(recorder)).json()["events"]
    told = set()
    for card in ("p0.m4", "p0.m2", "p1.m1", "p1.m2"):          # player 0's Set monster, cards in the hands
        r = client.post(f"/duels/{duel['id']}/events", params={"expected": length}, json=[WHERE[case](card)],
                        headers=auth(recorder))
        told.add((r.status_code, r.json().get("rule"), r.json().get("message", "").replace(card, "X")))
    assert told == {(422, case.split()[0], "X is not a monster player 1 controls on the field")}, told


def test_an_append_behind_the_head_says_what_to_do_in_the_readers_language(client) -> None:  # noqa: F811
    """A 409 said what happened ("someone else appended") but not what to do: a scorekeeper's
    script sent the same entries again, and was refused again."""
    duel, recorder = at_the_table(client)
    length = client.get(f"/duels/{duel['id']}/state", headers=auth(recorder)).json()["events"]
    late = {"kind": "phase_entered", "phase": "battle"}
    r = client.post(f"/duels/{duel['id']}/events", params={"expected": length - 2}, json=[late], headers=auth(recorder))
    assert r.status_code == 409 and "nothing was written" in r.json()["message"], r.text
    assert f"send yours again expecting {length}" in r.json()["message"], r.text
    r = client.post(f"/duels/{duel['id']}/events", params={"expected": length - 2, "lang": "ja"}, json=[late],
                    headers=auth(recorder))
    assert f"期待するイベント数を {length} として送り直す" in r.json()["message_translated"], r.text
