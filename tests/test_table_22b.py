"""Twenty-second pass, b, at the paper table: what its scorekeeper met.

- Refusals that read nothing hidden, told the table as they are (``RuleViolation.public``), each
  shown the same, byte for byte, whatever hidden card the entry names (or none): a Field Zone
  taken (ZONE-10), a chain link that does not exist (LOG-07), no attack to replay (BATTLE-06), a
  turn out of order (LOG-06), a card already where it is sent (LOG-02: by the entry's own name for
  it, never by what the record knows it is). They said "the reason is the judge's".
- ZONE-11: a card a view knew, put on the top or at the bottom of a Deck, stays known there (the
  table's recorder names it for a mill) until the Deck is shuffled or a draw takes it; a card put
  there face-down is learned by no one new. And the log line says the top or the bottom.
"""
from __future__ import annotations

import pytest

from duel import CARDS, DARK_MAGICIAN, POT, VORSE, position
from test_release import auth, client, store  # noqa: F401  (fixtures)
from test_service_table_recording import TURN_2, VORSE_SUMMONED, at_the_table, offered, tapped
from test_table_22 import HIDDEN
from ygoreplay import i18n
from ygoreplay.access import TABLE
from ygoreplay.events import from_dict
from ygoreplay.log import judge_steps, narrate
from ygoreplay.views import ViewReplay, redactor_of

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


# -- ZONE-11: a card put on the top or at the bottom of a Deck stays known there -----------------

#: Player 0: Pot of Greed and Vorse Raider in hand (p0.s11, p0.s12), Dark Magician face-up (p0.s13).
ON_BOARD = position({"hand": [POT, VORSE], "mzone": [{"code": DARK_MAGICIAN, "position": "attack"}]})
VIEWERS = ("spectator", "p0", "p1", TABLE)


def _known_in_deck(events: list[dict], view: str) -> list[tuple[int, int]]:
    """Player 0's Deck as ``view``'s own fold has it: (place from the top, passcode) of each card it knows."""
    redactor = redactor_of(view, CARDS, b"k" * 32)
    for event in events:
        redactor.feed(from_dict(event))
    out = redactor.redaction
    state = ViewReplay(out.events, CARDS, out.disclosures, out.renames).folded().state
    deck = state.sides[0].deck
    return [(i, state.cards[c].code) for i, c in enumerate(deck) if state.cards[c].code]


def _put(card: str, where: int | None) -> dict:
    return {"kind": "card_moved", "card": card, "to": [0, "deck", 10 if where is None else where], "reason": "returned"}


@pytest.mark.parametrize("where", [0, None], ids=["top", "bottom"])
@pytest.mark.parametrize("view", VIEWERS)
def test_a_face_up_card_put_on_the_top_or_bottom_of_the_deck_stays_known_there(view, where) -> None:
    """Dark Magician, face-up, put on the top (bottom) of its Deck: every view keeps it, there."""
    place = 0 if where == 0 else 10
    assert _known_in_deck([ON_BOARD, _put("p0.s13", where)], view) == [(place, DARK_MAGICIAN)]


DRAW = {"kind": "cards_drawn", "player": 0, "count": 1, "cite": {"card": "p0.s11", "effect": "draw 1"}}
HIDDEN_AGAIN = {
    "a shuffle": [{"kind": "deck_shuffled", "player": 0}],
    "a card shuffled in": [{"kind": "card_moved", "card": "p0.s11", "to": [0, "deck"], "reason": "shuffled"}],
    "its owner's draw": [DRAW],
}


@pytest.mark.parametrize("how", sorted(HIDDEN_AGAIN))
@pytest.mark.parametrize("view", VIEWERS)
def test_a_card_known_on_top_of_the_deck_is_lost_exactly_when_the_rules_hide_it(view, how) -> None:
    """Known on top until the Deck is shuffled or its owner draws it (then their own view alone
    knows it, in their hand); a card put on top of it, or a draw from the other Deck, hides nothing."""
    events = [ON_BOARD, _put("p0.s13", 0), _put("p0.s11", 0)]     # Pot of Greed from the hand on top of it
    kept = [(0, POT), (1, DARK_MAGICIAN)] if view == "p0" else [(1, DARK_MAGICIAN)]
    assert _known_in_deck(events, view) == kept
    assert _known_in_deck([*events, {"kind": "deck_shuffled", "player": 1}], view) == kept
    events = [ON_BOARD, _put("p0.s13", 0), *HIDDEN_AGAIN[how]]
    assert _known_in_deck(events, view) == []


@pytest.mark.parametrize("view", ("spectator", "p1", TABLE))
def test_a_card_put_face_down_on_top_of_the_deck_from_the_hand_is_not_learned(view) -> None:
    """Vorse Raider from player 0's hand to the top of their Deck: only its owner knows it there."""
    assert _known_in_deck([ON_BOARD, _put("p0.s12", 0)], view) == []
    assert _known_in_deck([ON_BOARD, _put("p0.s12", 0)], "p0") == [(0, VORSE)]
    # nor a card revealed where it is in the Deck (for that moment only)
    reveal = {"kind": "card_revealed", "player": 0, "cards": ["p0.s5"], "cause": "p0.s11"}
    assert _known_in_deck([ON_BOARD, reveal], view) == [] == _known_in_deck([ON_BOARD, reveal], "p0")


def test_the_tables_recorder_names_the_card_it_put_on_top_until_the_deck_is_shuffled(client) -> None:  # noqa: F811
    """At the table: Vorse Raider back on top (the sheet's tap), then sent from the top of the Deck
    to the GY by an effect (a mill): the table names it as it did. After a shuffle it cannot."""
    mill = {"kind": "card_moved", "card": "p0.m0", "to": [0, "gy"], "source": [0, "deck", 0], "reason": "sent"}
    for shuffled in (True, False):
        duel, recorder = at_the_table(client, VORSE_SUMMONED)
        tapped(client, duel, recorder, offered(client, duel, "p0.m0", "", "Return to the top of the Deck")["event"])
        if shuffled:
            tapped(client, duel, recorder, {"kind": "deck_shuffled", "player": 0})
        length = client.get(f"/duels/{duel['id']}/state", headers=auth(recorder)).json()["events"]
        r = client.post(f"/duels/{duel['id']}/events", params={"expected": length}, json=[mill],
                        headers=auth(recorder))
        if shuffled:
            assert r.status_code == 400 and "no card the table's view knows" in r.text, r.text
        else:
            assert r.status_code == 200 and r.json()["flags"] == [], r.text
    gy = client.get(f"/duels/{duel['id']}/state", headers=auth(recorder)).json()["board"]["players"][0]["gy"]
    assert [(c["id"], c["code"]) for c in gy] == [("p0.m0", 14898066)]


# -- the log says where in the Deck --------------------------------------------------------------

#: What each language says of Dark Magician put on the top, at the bottom of its Deck.
PLACES = {"en": ("→ the top of Player 0's Deck (returned)", "→ the bottom of Player 0's Deck (returned)"),
          "ja": ("の一番上", "の一番下"), "ko": (" 맨 위", " 맨 아래"), "zh-Hans": ("最上方", "最下方"),
          "zh-Hant": ("最上方", "最下方")}


@pytest.mark.parametrize("language", sorted(PLACES))
def test_the_log_line_says_the_top_or_the_bottom_of_the_deck(language) -> None:
    """ZONE-11: where the card went is what the next draw follows; shuffled in, no place is said."""
    moves = [_put("p0.s13", 0), _put("p0.s13", None),
             {"kind": "card_moved", "card": "p0.s13", "to": [0, "deck"], "reason": "shuffled"}]
    said = []
    with i18n.using(language):
        for move in moves:
            said.append(list(narrate(judge_steps([from_dict(e) for e in (ON_BOARD, move)], CARDS)))[-1].text)
    top, bottom = PLACES[language]
    assert top in said[0] and bottom in said[1] and top not in said[2] and bottom not in said[2], said
