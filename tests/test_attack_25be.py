"""Attacks on what landed on main in the twenty-first pass, second round (#25, ``attack25be``).

* A sealed card shuffled into its Deck kept its seal (LOW-MEDIUM, a paper table's record). A
  player's device seals each card it draws (``cards_sealed``, LOG-11: what it saw, kept from
  everyone else); a card of its hand shuffled back into its Deck (``card_moved``, reason
  ``shuffled``: ``table21`` made the Deck forget its cards, ``rules.identity.forget_deck``) lost
  its name but not its seal. Its record id is the next card drawn, and that draw, whatever card
  it was, opened as the sealed card (``cards_opened`` with the old nonce: accepted, no flag), while
  the device's honest seal of it was flagged LOG-04 ("sealed already") and not kept, and its
  honest opening LOG-11. A Deck forgotten forgets its seals too: which card an id is, the shuffle hid, and a seal said only that.
"""
from __future__ import annotations

from test_release import client, store  # noqa: F401  (fixtures: an in-process service)
from test_device_names import board, post
from test_hidden_identity import _flags, _table
from ygoreplay.seals import seal

POT, LUSTER = 55144522, 11091375


def test_a_sealed_card_shuffled_into_its_deck_is_not_the_card_drawn_next(client):  # noqa: F811
    """Player 1's device seals a card of its hand as Pot of Greed, shuffles it into its Deck; the
    table enters player 1's next draw. Baseline: the device's seal of its new card is flagged LOG-04
    and not kept, so its honest opening was flagged LOG-11 too (its judge called twice on an honest
    player), while that draw opened as the Pot of Greed with the old nonce, unflagged. Now the new
    seal is kept and opens, nothing flagged, and the old opening is flagged LOG-11 (no seal)."""
    duel, _seen = _table(client, None, None)
    tokens = duel["tokens"]
    card = board(client, duel["id"], tokens["p1"])["players"][1]["hand"][0]["id"]
    digest, nonce = seal(POT)
    sealed = post(client, duel["id"], tokens["p1"], [{"kind": "cards_sealed", "player": 1, "seals": {card: digest}}])
    assert sealed.status_code == 200, sealed.text
    moved = post(client, duel["id"], tokens["p1"], [{"kind": "card_moved", "card": card, "to": [1, "deck"],
                                                     "reason": "shuffled"}])
    assert moved.status_code == 200, moved.text
    before = [c["id"] for c in board(client, duel["id"], tokens["p1"])["players"][1]["hand"]]
    drawn = post(client, duel["id"], tokens["recorder"], [{"kind": "cards_drawn", "player": 1}])
    assert drawn.status_code == 200, drawn.text
    new = [c["id"] for c in board(client, duel["id"], tokens["p1"])["players"][1]["hand"] if c["id"] not in before]
    assert len(new) == 1, new
    flagged = _flags(client, duel, tokens["judge"])          # TURN-02: a draw in the Main Phase
    digest2, nonce2 = seal(LUSTER)
    honest = post(client, duel["id"], tokens["p1"], [{"kind": "cards_sealed", "player": 1, "seals": {new[0]: digest2}}])
    assert honest.status_code == 200, honest.text
    assert _flags(client, duel, tokens["judge"]) == flagged, "the device's seal of the card it drew is its first"
    opened = post(client, duel["id"], tokens["p1"], [{"kind": "cards_opened", "player": 1,
                                                     "cards": {new[0]: {"code": LUSTER, "nonce": nonce2}}}])
    assert opened.status_code == 200, opened.text
    assert _flags(client, duel, tokens["judge"]) == flagged, "the card drawn opens as what it was sealed as"
    duel, _seen = _table(client, None, None)
    tokens = duel["tokens"]
    card = board(client, duel["id"], tokens["p1"])["players"][1]["hand"][0]["id"]
    assert post(client, duel["id"], tokens["p1"], [{"kind": "cards_sealed", "player": 1,
                                                    "seals": {card: digest}}]).status_code == 200
    assert post(client, duel["id"], tokens["p1"], [{"kind": "card_moved", "card": card, "to": [1, "deck"],
                                                    "reason": "shuffled"}]).status_code == 200
    before = [c["id"] for c in board(client, duel["id"], tokens["p1"])["players"][1]["hand"]]
    assert post(client, duel["id"], tokens["recorder"], [{"kind": "cards_drawn", "player": 1}]).status_code == 200
    flagged = _flags(client, duel, tokens["judge"])
    new = [c["id"] for c in board(client, duel["id"], tokens["p1"])["players"][1]["hand"] if c["id"] not in before]
    opened = post(client, duel["id"], tokens["p1"], [{"kind": "cards_opened", "player": 1,
                                                     "cards": {new[0]: {"code": POT, "nonce": nonce}}}])
    assert opened.status_code == 200, opened.text
    assert _flags(client, duel, tokens["judge"]) == [*flagged, "LOG-11"], "a card drawn after the shuffle is no card sealed"
