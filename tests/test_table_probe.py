"""The table's recorder and what its writes tell it (#25, nineteenth pass, ``tableprobe19``).

* The rules' refusal was an oracle (MEDIUM). The table's recorder (``access.TABLE``) names a
  hidden card by its view's name when it is shown; the record knows it where a player's device
  entered it. Shown as the card the record knows, the entry was accepted (200); shown as another,
  refused (``LOG-10``, 422, nothing written). Naming one card after another, the holder of the
  table's code learned each hidden card. In a witnessed duel the table's claim now stands as what
  the table saw, flagged LOG-10 for the judge and the card's owner (``rules.identity``): the
  table's answer and its view are the same either way; the owner's device sees the card as the
  table named it (to dispute the entry, LOG-02).
"""
from __future__ import annotations

from test_release import auth, client, store  # noqa: F401  (fixtures: an in-process service)
from test_attack_25aw import LUSTER, _table
from test_device_names import board, post

POT = 55144522


def _set_monster(client, duel: dict, recorder: str) -> str:  # noqa: F811
    """The table's name of player 1's face-down monster (Luster Dragon to the record)."""
    return board(client, duel["id"], recorder)["players"][1]["mzone"][2]["id"]


def _flags(client, duel: dict, token: str) -> list[str]:  # noqa: F811
    """The rules each event of the duel was flagged with, through ``token``'s view."""
    answer = client.get(f"/duels/{duel['id']}/frames", headers=auth(token))
    assert answer.status_code == 200, answer.text
    return [f["rule"] for step in answer.json()["frames"] for f in step.get("flags") or []]


def test_the_table_naming_a_hidden_card_learns_nothing_from_the_answer(client):  # noqa: F811
    answers = {}
    for code in (LUSTER, POT):
        duel, recorder = _table(client)
        card = _set_monster(client, duel, recorder)
        answer = post(client, duel["id"], recorder, [{"kind": "card_revealed", "player": 1, "cards": [card],
                                                      "shows": {card: code}}])
        answers[code] = (answer.status_code, answer.json().get("flags"))
        assert answer.status_code == 200, answer.text         # baseline: 422 LOG-10 for Pot of Greed
        if code == POT:
            assert "LOG-10" in _flags(client, duel, duel["tokens"]["judge"])
            assert "LOG-10" not in _flags(client, duel, recorder)
            for door in ("frames", "events", "state", "cards"):
                seen = client.get(f"/duels/{duel['id']}/{door}", headers=auth(recorder)).text
                assert "Luster" not in seen and str(LUSTER) not in seen, (door, seen)
            for token in (recorder, duel["tokens"]["p1"], duel["tokens"]["judge"]):
                # what the table saw stands: its owner's device sees the claim, to dispute it
                assert board(client, duel["id"], token)["players"][1]["mzone"][2]["code"] == POT
    assert answers[POT] == answers[LUSTER] == (200, []), answers
