"""Attack on the witnessed table's LOG-10 claim and the paper table's seat links (#25, nineteenth
pass, ``attack25bb``).

Found and fixed:

* The disclosures were an oracle (MEDIUM). In a witnessed duel the table's recorder naming a
  hidden card as another than a player's device had entered it is kept, flagged LOG-10 for the
  judge (``rules.identity``), and the answer is the same either way. But the event's disclosures,
  in every view's ``/events`` (the table's code, the other player's device, a public spectator's),
  named the card twice when the claim contradicted the hidden card and once when it did not:
  ``views._shown_again`` added the owner's row to views that had just learned the card by the
  same event (``_learn``). Now a view that did not know the card learns it by its disclosures
  alone, once, as it would the card named right; its owner keeps the claim in the event's ``shows``
  (leftovers19: its own fold flags LOG-10).

Tried and held: the round's attention column and counts (a flag is no call nor dispute), the
write's answer (its own view's flags), the table's ``/frames``, ``/state``, ``/cards``,
``/actions``, ``/lp-sheet`` (its view's chain), ``/verify``, ``/receipt`` (refused to the
table), library and search badges (the spectator's own fold): each differs between the two
claims only by the name the table itself gave. Seat links of a round's paper table (by hand, this
pass): seat p0's token is refused p1's decklist and its own (the organiser's, MATCH-04), starting
or ending a game, conceding for p1, a branch, and another table's match (404); in the duel it
sees p1's hand hidden, and entering p1's card, or showing (renaming) p0's Set card from p1's
device through ``card_revealed`` or ``cards_drawn``, is refused (a player's device records and
shows its own side); the seat tokens are the match's own random tokens, kept hashed.
"""
from __future__ import annotations

import json

from test_release import auth, client, store  # noqa: F401  (fixtures: an in-process service)
from test_attack_25aw import LUSTER, _table
from test_device_names import board, post

POT = 55144522


def test_a_claim_against_a_hidden_card_is_disclosed_once_to_every_view_that_did_not_know_it(client):  # noqa: F811
    rows, shows = {}, {}
    for code in (LUSTER, POT):
        duel, recorder = _table(client)
        tokens = duel["tokens"]
        card = board(client, duel["id"], recorder)["players"][1]["mzone"][2]["id"]
        answer = post(client, duel["id"], recorder, [{"kind": "card_revealed", "player": 1, "cards": [card],
                                                      "shows": {card: code}}])
        assert answer.status_code == 200, answer.text
        for who in ("recorder", "p0", "spectator", "p1"):
            events = client.get(f"/duels/{duel['id']}/events", headers=auth(tokens[who]))
            assert events.status_code == 200, events.text
            last = [line for line in events.text.splitlines() if line.strip()][-1]
            step = json.loads(last)
            assert step["event"]["kind"] == "card_revealed"
            rows[code, who] = [row[2] for row in step["disclosures"]]
            if who == "p1":
                shows[code] = sorted(step["event"].get("shows", {}).values())
    for who in ("recorder", "p0", "spectator"):
        # baseline: [POT, POT] against [LUSTER]: a second row said the table's claim contradicted the card
        assert rows[LUSTER, who] == [LUSTER] and rows[POT, who] == [POT], (who, rows)
    # its owner knew the card: nothing disclosed; its event keeps the table's name (leftovers19: its
    # own fold flags LOG-10 and it may dispute, LOG-02)
    assert rows[POT, "p1"] == [] and rows[LUSTER, "p1"] == [], rows
    assert shows[POT] == [POT] and shows[LUSTER] == [], shows     # named right: nothing kept to flag
