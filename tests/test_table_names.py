"""The table's view of a witnessed duel names its cards as a spectator's view does (#25,
nineteenth pass: ``views.redactor_of``, ``application.names_view``).

The table's view (``access.TABLE``, its recorder's) kept the record's card ids: a card the table
saw (player 1 shows Pot of Greed from the hand) went back into the hand, and player 1's device
Set it later; the Set card's id on the scorekeeper's board, frames, events and stream was the id
the table had seen shown, so the table knew which card was Set. Its hidden piles are now named
anew as they are mixed, and whatever the recorder writes, in the names its view gives, is turned
into record ids by the one translation a player's device's entries go through
(``views.DeviceNames``).

The rules' refusal of a recorder's entry that shows a hidden card as another than the record knows
it (LOG-10, 422, nothing written) against its acceptance (200) told the table whether the card it
named is the one it saw shown: in a witnessed duel what the table saw now stands, flagged for the
judge (``test_table_probe``); each miss writes an entry the players' devices may dispute."""
from __future__ import annotations

import json
import os
import re

import pytest

from test_release import ORGANISER, auth, client, store  # noqa: F401  (fixtures: an in-process service)
from test_attack_25aw import _table
from test_device_names import board, post
from ygoreplay.replay_file import loads

POT = 55144522
#: A name a view deals a card of a hidden pile it mixed (``views._Names.mix``): never a record id.
FRESH = re.compile(r"p[01]\.h\d+")
#: The table's doors of a duel (``/follow`` read apart: a stream).
DOORS = {"state": {}, "frames": {}, "events": {}, "cards": {}, "board.svg": {}, "diff": {"a": 0, "b": 19}}


@pytest.fixture
def one_secret(monkeypatch):
    """Every duel made gets the same secret (and root): two duels' views are named by one key, so
    what a view gives of them can be compared name for name."""
    real = os.urandom
    monkeypatch.setattr(os, "urandom", lambda n: b"\x19" * n if n == 32 else real(n))


def _shown_then_set(client, seen: bool) -> tuple[dict, str, str]:  # noqa: F811
    """attack25aw's table; the recorder enters player 1 showing a card of the hand as Pot of Greed
    (``shown``: the table's name of it then); player 1's device Sets that very card (``seen``) or
    another of the hand it names Pot of Greed for itself (a second copy); then player 1 concedes.
    The duel, its recorder's token, and the record id of the card Set."""
    duel, recorder = _table(client)
    shown = board(client, duel["id"], recorder)["players"][1]["hand"][2]["id"]
    answer = post(client, duel["id"], recorder, [{"kind": "card_revealed", "player": 1, "cards": [shown],
                                                  "shows": {shown: POT}}])
    assert answer.status_code == 200, answer.text
    hand = board(client, duel["id"], duel["tokens"]["p1"])["players"][1]["hand"]
    card = next(c["id"] for c in hand if (c.get("code") == POT) == seen)
    answer = post(client, duel["id"], duel["tokens"]["p1"], [{"kind": "spell_trap_set", "player": 1, "card": card,
                                                              "zone": 0, "shows": {card: POT}}])
    assert answer.status_code == 200, answer.text
    ended = {"kind": "duel_ended", "reason": "surrender", "player": 1, "winner": 0}
    assert post(client, duel["id"], recorder, [ended]).status_code == 200
    record = board(client, duel["id"], duel["tokens"]["judge"])["players"][1]["szone"][0]
    assert record["code"] == POT, record
    return duel, recorder, record["id"]


def _canonical(text: str, duel: dict) -> str:
    """A door's answer with what differs between two duels whatever was played (the duel's id,
    when each event was stored) and the names a mix dealt (which of them a card took is the key's
    to decide, as the view may not follow the cards) made alike."""
    text = FRESH.sub("p?.h", text.replace(duel["id"], "DUEL"))
    return re.sub(r'"time": ?"[^"]*"', '"time": ""', text)


def _doors(client, duel: dict, recorder: str) -> dict[str, str]:  # noqa: F811
    """What the recorder reads of the duel at each door, canonical (``_canonical``)."""
    out = {}
    for path, params in DOORS.items():
        answer = client.get(f"/duels/{duel['id']}/{path}", params=params, headers=auth(recorder))
        assert answer.status_code == 200, (path, answer.text)
        out[path] = _canonical(answer.text, duel)
    with client.stream("GET", f"/duels/{duel['id']}/follow", headers=auth(recorder)) as stream:
        lines = "".join(stream.iter_text()).splitlines()
    out["follow"] = _canonical("\n".join(line for line in lines if line.startswith(("event:", "data:"))), duel)
    with client.stream("GET", f"/duels/{duel['id']}/follow?format=frames", headers=auth(recorder)) as stream:
        lines = "".join(stream.iter_text()).splitlines()
    out["follow frames"] = _canonical("\n".join(line for line in lines if line.startswith(("event:", "data:"))),
                                      duel)
    kept = loads(client.get(f"/duels/{duel['id']}/replay.ygr", headers=auth(recorder)).content)
    out["replay.ygr"] = _canonical(json.dumps([[e.to_dict() for e in kept.events], kept.disclosures, kept.renames,
                                               sorted(kept.cards)]), duel)
    return out


def test_the_recorder_cannot_tell_which_card_a_device_set_after_the_table_saw_one(client, one_secret):  # noqa: F811
    """Two duels, one key: in one player 1's device Sets the card the table saw shown as Pot of
    Greed, in the other another card of the hand (named Pot of Greed for itself). The record holds
    two different cards Set; every door of the recorder's (board, frames, events, the stream of
    each, the cards it may know, its picture, a diff, its .ygr) reads the same of both, but for
    which of the names the hand's mix dealt the Set card took. In the record's ids, the Set card
    was the very id the table had seen shown."""
    one, recorder_one, set_one = _shown_then_set(client, seen=True)
    other, recorder_other, set_other = _shown_then_set(client, seen=False)
    assert set_one != set_other, "the record: two different cards Set"
    doors_one, doors_other = _doors(client, one, recorder_one), _doors(client, other, recorder_other)
    for door in doors_one:
        assert doors_one[door] == doors_other[door], door
    seen = board(client, one["id"], recorder_one)["players"][1]
    assert FRESH.fullmatch(seen["szone"][0]["id"]) and "code" not in seen["szone"][0], seen["szone"][0]


def test_a_recorders_entry_names_a_card_as_its_view_does_and_lands_on_the_record_card(client):  # noqa: F811
    """The table's name of player 1's Set card (the card it saw shown, mixed into the hand, Set by
    the device) is none of the record's; the recorder activates it by that name, showing it: the
    record's card activated is the one Set, Pot of Greed. The name the table knew the card by
    before the mix names no card of its view any more: refused (400), nothing written."""
    duel, recorder = _table(client)
    shown = board(client, duel["id"], recorder)["players"][1]["hand"][2]["id"]
    assert post(client, duel["id"], recorder, [{"kind": "card_revealed", "player": 1, "cards": [shown],
                                                "shows": {shown: POT}}]).status_code == 200
    hand = board(client, duel["id"], duel["tokens"]["p1"])["players"][1]["hand"]
    pot = next(c["id"] for c in hand if c.get("code") == POT)
    assert post(client, duel["id"], duel["tokens"]["p1"],
                [{"kind": "spell_trap_set", "player": 1, "card": pot, "zone": 0}]).status_code == 200
    record = board(client, duel["id"], duel["tokens"]["judge"])["players"][1]["szone"][0]["id"]
    named = board(client, duel["id"], recorder)["players"][1]["szone"][0]["id"]
    assert named != record and FRESH.fullmatch(named), (named, record)
    stale = post(client, duel["id"], recorder, [{"kind": "card_revealed", "player": 1, "cards": [shown],
                                                 "shows": {shown: POT}}])
    assert stale.status_code == 400 and "table's view" in stale.text, stale.text
    turn = [{"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "player": 0, "turn": 3},
            {"kind": "phase_entered", "phase": "draw"}, {"kind": "cards_drawn", "player": 0},
            {"kind": "phase_entered", "phase": "standby"}, {"kind": "phase_entered", "phase": "main1"},
            {"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "player": 1, "turn": 4},
            {"kind": "phase_entered", "phase": "draw"}, {"kind": "cards_drawn", "player": 1},
            {"kind": "phase_entered", "phase": "standby"}, {"kind": "phase_entered", "phase": "main1"},
            {"kind": "activated", "player": 1, "card": named, "shows": {named: POT}}]
    answer = post(client, duel["id"], recorder, turn)
    assert answer.status_code == 200, answer.text
    chain = client.get(f"/duels/{duel['id']}/state", headers=auth(duel["tokens"]["judge"])).json()["board"]["chain"]
    assert [(link["card"]["id"], link["card"]["code"]) for link in chain] == [(record, POT)], chain
