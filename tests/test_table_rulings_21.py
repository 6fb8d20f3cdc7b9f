"""A paper duel recorded at the speed of play (#25, twenty-first pass, ``table21``).

* The table learned whether a device had named its Set card (LOW). The table's recorder
  activated a Set card it cannot see without naming it: refused (``LOG-05``, 422) where no device
  had named it, accepted where one had, so the answer said what a device did for itself. Now
  refused either way (``rules.spell_trap.check_card_activation``), byte for byte the same answer;
  the card is face-up, so the table names it (a tap), and the refusal, which reads nothing of the
  card, says so (``RuleViolation.public``) instead of "the reason is the judge's".
* A card shuffled into its Deck kept its name there (LOW; the record wrong at the next draw). A
  card a device named in its hand, shuffled into its own Deck (``card_moved``, reason
  ``shuffled``, or returned with no place named: the page's *Return to the Deck*), stayed that card on top of a Deck nobody could follow: the next draw dealt it
  back, and the device, whose own Deck the shown-card check leaves out
  (``rules.base.hidden_from_writer``), found which of its freshly mixed names it took by moving
  each out in a batch refused on purpose. A witnessed Deck shuffled in is now forgotten, as
  ``deck_shuffled`` without an order forgets it (``rules.identity.forget_deck``).
* A tap on a taken zone was answered "the reason is the judge's" (LOW, at the speed of play). The
  table enters a card from a hand it does not see; a refusal of an entry that names such a card is
  told as no more than that (``views.DeviceNames.refused``), even where it reads only where cards
  are on the field: a Normal Summon or a Set into a zone already taken, the commonest slip at a
  table, left the scorekeeper to guess. Those refusals (ZONE-01/02/08) are ``public`` now.
* A dispute the judge settled by backing the game up stayed open (MEDIUM at a round). A judge who
  rules on a disputed entry and rolls the game back to before it reverts the ruling too; the
  rollback itself was not counted as the judge's word on the entry (``Entries.open_dispute``), so
  ``check`` listed the dispute open for good and the round's page kept the table waiting for a
  judge ("entry disputed") to the end of the round, nothing left to clear it.
"""
from __future__ import annotations

import pytest

from test_release import client, store  # noqa: F401  (fixtures: an in-process service)
from test_device_names import board, count, post
from test_hidden_identity import LUSTER, MIRROR, _table
from test_witnessed import SECOND, TABLE, fold
from ygoreplay.checking import witness_dict

POT = 55144522


def test_a_set_card_the_table_activates_unnamed_is_answered_alike_whatever_a_device_named_it(client):  # noqa: F811
    """Player 0's device Sets a card of its hand, named for itself (a Mirror Force, a Luster Dragon)
    or not; the table activates it without naming it. Baseline: 200 where a device named it, 422
    where none did. Now 422 LOG-05 each time, the same body, nothing written, and its reason told:
    name it. Named by the table, the activation is kept."""
    answers = set()
    for set_as in (MIRROR, LUSTER, None):
        duel, seen = _table(client, set_as, None)
        tokens = duel["tokens"]
        card = seen["players"][0]["szone"][1]["id"]
        before = count(client, duel["id"], tokens)
        answer = post(client, duel["id"], tokens["recorder"], [{"kind": "activated", "player": 0, "card": card}])
        answers.add((answer.status_code, answer.text.replace(card, "<card>")))
        assert count(client, duel["id"], tokens) == before, "nothing was written"
        assert answer.status_code == 422, answer.text
        assert answer.json()["rule"] == "LOG-05" and "name it" in answer.json()["message"], answer.text
        named = post(client, duel["id"], tokens["recorder"],
                     [{"kind": "activated", "player": 0, "card": card, "shows": {card: MIRROR}}])
        assert named.status_code == 200, named.text
    assert len(answers) == 1, answers


def test_a_zone_already_taken_is_told_to_the_table(client):  # noqa: F811
    """The table Normal Summons a card of player 1's hand to Monster Zone 2, which player 1's
    face-down monster holds, then Sets two cards of that hand in Spell & Trap Zone 1: refused
    (ZONE-01, ZONE-08), nothing written, and the table told why (baseline: "the reason is the
    judge's"), whatever player 1's device named its cards."""
    duel, seen = _table(client, None, LUSTER)
    tokens = duel["tokens"]
    hand = [card["id"] for card in seen["players"][1]["hand"]]
    monster = seen["players"][1]["mzone"][2]["id"]
    before = count(client, duel["id"], tokens)
    for entries, rule, said in (
            ([{"kind": "normal_summoned", "player": 1, "card": hand[0], "zone": 2}], "ZONE-01",
             f"monster zone 2 of player 1 holds {monster} already"),
            ([{"kind": "spell_trap_set", "player": 1, "card": hand[0], "zone": 1},
              {"kind": "spell_trap_set", "player": 1, "card": hand[1], "zone": 1}], "ZONE-08",
             f"Spell & Trap Zone 1 of player 1 holds {hand[0]} already")):
        answer = post(client, duel["id"], tokens["recorder"], entries)
        assert answer.status_code == 422 and answer.json()["rule"] == rule, answer.text
        assert answer.json()["message"] == said, answer.text
    assert count(client, duel["id"], tokens) == before, "nothing was written"


def _shuffled_in(client, duel: dict, reason: str = "shuffled") -> str:  # noqa: F811
    """Player 1's device shuffles a card of its hand into its Deck (``returned``: returns it to the
    Deck, no place named, as the page's *Return to the Deck* does), naming it Pot of Greed for
    itself; the name of that card in its view before the move."""
    tokens = duel["tokens"]
    card = board(client, duel["id"], tokens["p1"])["players"][1]["hand"][0]["id"]
    moved = post(client, duel["id"], tokens["p1"], [{"kind": "card_moved", "card": card, "to": [1, "deck"],
                                                     "reason": reason, "shows": {card: POT}}])
    assert moved.status_code == 200, moved.text
    return card


def test_a_card_shuffled_into_its_deck_is_no_card_its_device_finds_there(client):  # noqa: F811
    """Player 1's device moves each card of its freshly mixed Deck to its hand and activates it,
    then an entry refused on purpose: nothing written, and the answer was the same for every
    card but the Pot of Greed it had shuffled in (baseline), whose view name it so found."""
    duel, _seen = _table(client, None, None)
    tokens = duel["tokens"]
    _shuffled_in(client, duel)
    deck = board(client, duel["id"], tokens["p1"])["players"][1]["deck"]
    before = count(client, duel["id"], tokens)
    answers = {}
    for number in range(1, deck + 1):
        name = f"p1.h{number}"
        answer = post(client, duel["id"], tokens["p1"], [
            {"kind": "card_moved", "card": name, "to": [1, "hand"], "reason": "added"},
            {"kind": "activated", "player": 1, "card": name, "zone": 0},
            {"kind": "card_moved", "card": name, "to": [1, "deck"], "source": [1, "gy"], "reason": "returned"}])
        answers.setdefault((answer.status_code, answer.text.replace(name, "<card>")), []).append(name)
    assert count(client, duel["id"], tokens) == before, "nothing was written"
    assert len(answers) == 1, {answer: names[:3] for answer, names in answers.items()}


@pytest.mark.parametrize("reason", ["shuffled", "returned"])
def test_the_draw_after_a_card_is_shuffled_in_is_not_that_card(client, reason):  # noqa: F811
    """The table enters player 1's next draw after the shuffle: the record dealt the Pot of Greed
    back (baseline, every view of the device showing it in the hand); now an unknown card, the Pot
    of Greed back on no one's board until a draw shows it. Returned on top (``[1, "deck", 0]``), it
    is the card drawn."""
    duel, _seen = _table(client, None, None)
    tokens = duel["tokens"]
    _shuffled_in(client, duel, reason)
    drawn = post(client, duel["id"], tokens["recorder"], [{"kind": "cards_drawn", "player": 1}])
    assert drawn.status_code == 200, drawn.text
    for token in (tokens["p1"], tokens["judge"]):
        hand = board(client, duel["id"], token)["players"][1]["hand"]
        assert POT not in [card.get("code") for card in hand], hand
    duel, _seen = _table(client, None, None)
    card = board(client, duel["id"], duel["tokens"]["p1"])["players"][1]["hand"][0]["id"]
    assert post(client, duel["id"], duel["tokens"]["p1"], [{"kind": "card_moved", "card": card, "to": [1, "deck", 0],
                                                            "reason": "returned", "shows": {card: POT}}]).status_code == 200
    assert post(client, duel["id"], duel["tokens"]["recorder"], [{"kind": "cards_drawn", "player": 1}]).status_code == 200
    hand = board(client, duel["id"], duel["tokens"]["judge"])["players"][1]["hand"]
    assert POT in [card.get("code") for card in hand], hand


def test_a_dispute_the_judge_settles_by_backing_the_game_up_is_closed():
    """Player 0 disputes player 1's second Normal Summon (#18); the judge rules it reverted and
    rolls the game back to before it, or only rolls it back. Baseline: the dispute open in
    ``check`` and the table waiting for a judge (``History.waiting_for_judge``, what a round's page
    reads) for good. Now closed by the rollback; a dispute no judge answered stays open."""
    entry = {**SECOND, "entered_by": "p1"}
    dispute = {"kind": "entry_disputed", "on": 18, "entered_by": "p0", "reason": "a second Normal Summon"}
    ruling = {"kind": "judge_note", "judge": "A. Judge", "note": "reverted", "category": "ruling", "on": 18,
              "decision": "reverted", "entered_by": "judge"}
    rollback = {"kind": "rolled_back", "to": 18, "judge": "A. Judge", "reason": "the second summon",
                "entered_by": "judge"}
    history = fold([*TABLE, entry, dispute])
    assert history.waiting_for_judge() == {"disputes": 1}
    for judged in ([ruling, rollback], [rollback]):
        history = fold([*TABLE, entry, dispute, *judged])
        disputed = witness_dict(history)["disputed"]
        assert [d["open"] for d in disputed] == [False], disputed
        assert disputed[0]["ruled"]["how"] == "rolled_back"
        assert history.marks(18)["disputed"]["open"] is False
        assert history.waiting_for_judge() == {}
