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

from test_device_names import board, count, post, table  # noqa: F401  (fixture)
from ygoreplay import chain


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

