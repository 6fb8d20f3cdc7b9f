"""Attacks on issue 25's tenth pass, after ``devreveal``: what a player's own device may make the
record release to it.

A duel's end releases what it hid to every reader under its release policy (``Access.releases``:
``end``, the default of a duel of no event, at once), and nothing undoes an end: no correction
after it (LOG-12), no rollback (MATCH-10). Player 0's device entered ``duel_ended`` naming itself
the winner (flagged WIN-01, kept): the duel was over on its word alone, and its token then read
the judge's view, player 1's hand and Deck order with it. A player's device now enters its own
loss only (a concession, or the loss the rules impose on it); a win or a draw is entered by the
table's recorder or by the device of the player who loses it (``views.out_of_sight``)."""
from __future__ import annotations

import pytest

from test_attack_25n import _codes_seen
from test_device_names import auth, count, post, table  # noqa: F401  (fixture)


def _judge_view_as(client, duel_id: str, token: str) -> int:
    """The status of player 0's token asking for the judge's view (403 while the duel hides it)."""
    return client.get(f"/duels/{duel_id}/state", params={"view": "judge"}, headers=auth(token)).status_code


@pytest.mark.parametrize("winner, reason", [(0, "lp"), (0, "surrender"), (None, "draw")])
def test_a_players_device_does_not_end_the_duel_but_by_its_own_loss(table, winner, reason):
    """Player 0's device said it won (or that the duel was drawn): the duel ended on its word,
    was released, and player 0's token read player 1's hand through the judge's view. Refused
    now, nothing written, nothing released; its own concession (player 1 wins) is its to enter."""
    client, duel_id, tokens, _store = table
    at = count(client, duel_id, tokens)
    before = _codes_seen(client, duel_id, tokens["p0"])
    refused = post(client, duel_id, tokens["p0"], [{"kind": "duel_ended", "winner": winner, "reason": reason}])
    assert refused.status_code == 403, refused.text
    assert "nothing was written" in refused.json()["error"] and "its own loss" in refused.json()["error"]
    assert count(client, duel_id, tokens) == at
    assert _judge_view_as(client, duel_id, tokens["p0"]) == 403
    assert _codes_seen(client, duel_id, tokens["p0"]) == before
    conceded = post(client, duel_id, tokens["p0"], [{"kind": "duel_ended", "winner": 1, "reason": "surrender"}])
    assert conceded.status_code == 200, conceded.text


def test_the_loser_enters_the_end_on_the_winners_turn(table):
    """Player 1's device enters its own loss on player 0's turn (its ``player``: its own side);
    player 0's device, whose turn it is, may not enter that win for it."""
    client, duel_id, tokens, _store = table
    won = {"kind": "duel_ended", "winner": 0, "reason": "surrender"}
    assert post(client, duel_id, tokens["p0"], [won]).status_code == 403
    assert post(client, duel_id, tokens["p1"], [{**won, "player": 1}]).status_code == 200


def test_actions_offer_the_end_to_the_losers_device_only(table):
    """At 0 LP (WIN-01) ``/actions`` offered player 0, whose turn it is, the end naming it the
    winner: refused now from its device, so not offered; the end is offered as player 1's entry,
    and its device enters it."""
    client, duel_id, tokens, _store = table
    lethal = {"kind": "life_points_changed", "player": 1, "amount": 8000, "reason": "effect_damage"}
    assert post(client, duel_id, tokens["recorder"], [lethal]).status_code == 200

    def ends(role: str) -> list[dict]:
        offered = client.get(f"/duels/{duel_id}/actions", headers=auth(tokens[role])).json()["actions"]
        return [a["event"] for a in offered if a["event"]["kind"] == "duel_ended"]
    assert ends("p0") == []
    offered = ends("p1")
    assert offered == [{"kind": "duel_ended", "winner": 0, "reason": "lp", "player": 1}], offered
    assert post(client, duel_id, tokens["p1"], offered).status_code == 200
