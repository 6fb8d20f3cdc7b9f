"""Attacks on issue 25's thirteenth pass (``attackrev13``): the refactor of ``review13`` tried
by a player's device, a writer to the database and an importer of forged files.

* A player's correction (LOG-12) is judged on the entries it strikes (``views.out_of_sight``:
  none may have taken cards out of the player's Deck, whose order the draw showed it). Those
  were read from the database (``Records._going_back``), only as far as they chain and their
  signed anchors vouch for them: a draw altered there (one field), rechained, or deleted was
  left out of what was judged, and the correction struck it all the same (the store's head is
  the fold it holds): the player read its Deck's order again. The read refuses now.
"""
from __future__ import annotations

import sqlite3

import msgpack
import pytest

from test_device_names import auth, board, count, post, table  # noqa: F401  (fixture)
from ygoreplay import chain
from ygoreplay.application import Records
from ygoreplay.events import from_dict
from ygoreplay.store import Store


def _behind_the_store(url: str, duel: str, position: int, how: str) -> None:
    """Event #position (and what follows it) changed in the database by a writer without the
    store's key: a field altered (its hash not), the chain made again from it, or deleted."""
    with sqlite3.connect(url) as conn:
        rows = conn.execute("SELECT originator_version, state FROM stored_events WHERE originator_id = ? AND "
                            "originator_version > ? ORDER BY originator_version", (duel, position)).fetchall()
        if how == "deleted":
            conn.execute("DELETE FROM stored_events WHERE originator_id = ? AND originator_version > ?",
                         (duel, position))
            return
        prev = None
        for version, state in rows:
            envelope = msgpack.unpackb(state)
            if version == position + 1:
                envelope["e"]["count"] = 4
                prev = envelope["p"]
            if how == "rechained":
                envelope["p"], envelope["h"] = prev, chain.link(prev, version - 1, envelope["e"], envelope["t"])
                prev = envelope["h"]
            conn.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = ?",
                         (msgpack.packb(envelope), duel, version))


@pytest.mark.parametrize("how", ["altered", "rechained", "deleted"])
def test_a_players_correction_strikes_no_draw_the_database_hid_from_its_judging(table, tmp_path, how):
    """Player 0's device drew five cards (its hand shows them in the Deck's order), then an LP
    change; the draw was changed in the database (the service's head still holds it) and the
    device corrected back to before the draw: it was judged on none of the entries it struck and
    struck the draw, its cards back on top of the Deck in the order the device read. Refused
    now (nothing written, the draw stands), as the same correction is on a record intact."""
    client, duel_id, tokens, store = table
    at = count(client, duel_id, tokens)
    hand = len(board(client, duel_id, tokens["p0"])["players"][0]["hand"])
    draw = {"kind": "cards_drawn", "player": 0, "count": 5}
    lp = {"kind": "life_points_changed", "player": 0, "amount": 500, "reason": "gain"}
    assert post(client, duel_id, tokens["p0"], [draw]).status_code == 200
    assert post(client, duel_id, tokens["p0"], [lp]).status_code == 200
    _behind_the_store(str(tmp_path / "duels.sqlite"), duel_id, at, how)
    correction = {"kind": "entry_corrected", "to": at, "reason": "mis-entry"}
    refused = post(client, duel_id, tokens["p0"], [correction])
    assert refused.status_code in (403, 409) and "nothing was" in refused.json()["error"], refused.text
    assert count(client, duel_id, tokens) == at + 2
    assert len(board(client, duel_id, tokens["p0"])["players"][0]["hand"]) == hand + 5, "the draw stands"


@pytest.mark.parametrize("asked", [False, True])
def test_a_players_correction_strikes_no_draw_entered_while_it_was_judged(table, monkeypatch, asked):
    """Player 0's device sent a correction back before an LP change of its own and, at once, a
    draw of five: the correction was judged on the head without the draw (nothing out of its
    Deck), then written after the draw, which it struck: the five cards back on top of the Deck
    in the order the device had read them. Asking for the position the draw made (``expected``)
    let it through the same way. It is judged on the head it is written at now: refused."""
    client, duel_id, tokens, store = table
    at = count(client, duel_id, tokens)
    lp = {"kind": "life_points_changed", "player": 0, "amount": 500, "reason": "gain"}
    assert post(client, duel_id, tokens["p0"], [lp]).status_code == 200
    hand = len(board(client, duel_id, tokens["p0"])["players"][0]["hand"])
    held, drawn = Store.witnessed, []

    def draw_meanwhile(self, duel, fresh=False):
        answer = held(self, duel, fresh)
        if not drawn:                   # the device's other request, appended as this one is judged
            drawn.append(duel)
            Records(self).append_records(duel, [from_dict({"kind": "cards_drawn", "player": 0, "count": 5})],
                                         role="p0")
        return answer
    monkeypatch.setattr(Store, "witnessed", draw_meanwhile)
    correction = [{"kind": "entry_corrected", "to": at, "reason": "mis-entry"}]
    answer = client.post(f"/duels/{duel_id}/events", json=correction, headers=auth(tokens["p0"]),
                         params={"expected": at + 2} if asked else {})
    monkeypatch.undo()
    assert drawn and answer.status_code in (403, 409), answer.text
    assert "nothing was" in answer.json()["error"], answer.text
    assert count(client, duel_id, tokens) == at + 2
    assert len(board(client, duel_id, tokens["p0"])["players"][0]["hand"]) == hand + 5, "the draw stands"
