"""A witnessed duel's judge record keeps each identity a card id had between two shuffles (#25,
``leftovers21b``).

At a paper table a Deck shuffled where nobody follows it (``deck_shuffled`` without an order, or a
card ``card_moved`` into it, reason ``shuffled``: ``rules.identity.forget_deck``) forgets its
cards' names and seals: its ids only say where a card lies, and the same id drawn later may be
another card. ``openings.opened`` took each id as one physical card for the whole duel: a card
opened in hand as Pot of Greed, shuffled back, its id drawn again and opened as Luster Dragon, was
Luster Dragon from the start of the judge record (and, where the Deck forgot, unknown after the
shuffle): the Pot of Greed the table saw was lost from the judge record (LOG-10, LOG-11).
"""
from __future__ import annotations

import pytest

from duel import CARDS
from ygoreplay.events import from_dict
from ygoreplay.openings import opened
from ygoreplay.rules import History, audit
from ygoreplay.seals import seal
from ygoreplay.views import redact

POT, LUSTER, FILLER = 55144522, 11091375, 46986414


def _start() -> list[dict]:
    return [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["Yugi", "Kaiba"],
             "witnessed": True, "ruleset": "mr3"},
            *({"kind": "deck_registered", "player": p, "main": [0] * 40, "extra": []} for p in (0, 1)),
            *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
            {"kind": "turn_started", "player": 0, "turn": 1},
            *({"kind": "phase_entered", "phase": phase} for phase in ("draw", "standby", "main1"))]


def _sealed_duel(shuffle: str, rest_opened: bool) -> tuple[list, str, int]:
    """Player 0 opens a card of its hand as Pot of Greed, shuffles it into its Deck (``shuffle``:
    moved in, or moved in then the Deck shuffled), draws that id again and opens it as Luster
    Dragon; ``rest_opened``: at the end it opens every other card of its Deck too. The record,
    the card's id and the index of the shuffle."""
    start = _start()
    folded = History(CARDS)
    folded.extend([from_dict(e) for e in start])
    card = folded.state.sides[0].hand[0]
    digest, nonce = seal(POT)
    digest2, nonce2 = seal(LUSTER)
    wire = [*start,
            {"kind": "cards_sealed", "player": 0, "seals": {card: digest}},
            {"kind": "cards_opened", "player": 0, "cards": {card: {"code": POT, "nonce": nonce}}},
            {"kind": "card_moved", "card": card, "to": [0, "deck"], "reason": "shuffled"}]
    shuffled = len(wire) - 1
    if shuffle == "deck_shuffled":
        wire.append({"kind": "deck_shuffled", "player": 0})
    wire += [{"kind": "cards_drawn", "player": 0},
             {"kind": "cards_sealed", "player": 0, "seals": {card: digest2}},
             {"kind": "phase_entered", "phase": "end"}]
    events = [from_dict(e) for e in wire]
    folded = History(CARDS)
    folded.extend(events)
    assert card in folded.state.sides[0].hand, "the id shuffled in is the card drawn next"
    rest = {c: {"code": FILLER} for c in folded.state.sides[0].deck} if rest_opened else {}
    events.append(from_dict({"kind": "cards_opened", "player": 0,
                             "cards": {card: {"code": LUSTER, "nonce": nonce2}, **rest}}))
    return events, card, shuffled


@pytest.mark.parametrize("rest_opened", (False, True), ids=("rest-unknown", "rest-opened"))
@pytest.mark.parametrize("shuffle", ("card_moved", "deck_shuffled"))
def test_log_10_a_card_shuffled_into_its_deck_keeps_its_first_identity_in_the_judge_record(shuffle, rest_opened):
    """The judge record: the card is Pot of Greed until it is shuffled in, Luster Dragon once its
    id is drawn again; baseline it was Luster Dragon from the start (the Pot of Greed lost) and,
    with the rest of the Deck unknown, unknown once drawn (the Luster Dragon lost too)."""
    events, card, shuffled = _sealed_duel(shuffle, rest_opened)
    judge = opened(events, CARDS)
    assert audit(judge, CARDS).violations == [], "the judge record folds clean: no card shown as another"
    history = History(CARDS, audit=True)
    codes = []
    for event in judge:
        history.append(event)
        codes.append(history.state.cards[card].code if card in history.state.cards else 0)
    moved = next(i for i, e in enumerate(judge) if e.kind == "card_moved")
    assert codes[moved - 1] == POT, "before the shuffle the card is the one opened in hand"
    assert POT not in codes[moved + 1:] and codes[-1] == LUSTER, "after it, the card drawn is the one opened then"
    assert history.state.cards[card].zone == "hand"
    if rest_opened:
        assert all(history.state.cards[c].code == FILLER for c in history.state.sides[0].deck), \
            "nothing opened is unknown in the judge record"
    for view in ("p1", "spectator"):                     # neither card was ever public
        for record in (events, judge):
            seen = redact(record, CARDS, view, b"key")
            assert not seen.codes & {POT, LUSTER}, (view, record is judge)
            assert not {code for _, _, code in seen.disclosures} & {POT, LUSTER}, (view, record is judge)
    mine = [code for _, _, code in redact(judge, CARDS, "p0", b"key").disclosures if code in (POT, LUSTER)]
    assert mine == [POT, LUSTER], "its owner saw the one in hand, then the one drawn"

