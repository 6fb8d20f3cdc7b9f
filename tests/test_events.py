"""Event versions: old shapes keep loading through upcasters; new shapes say their version."""
from __future__ import annotations

import json

import pytest

from ygoreplay import chain
from ygoreplay.events import UPCASTERS, DuelStarted, EventFormatError, SpecialSummoned, from_dict
from ygoreplay.jsonl import parse_lines

V1_LINE = '{"kind": "special_summoned", "player": 0, "card": "p0.x0", "zone": 5, "method": "synchro"}'


def test_special_summoned_v1_is_upcast_to_v2():
    """A v1 special_summoned (before ``controller`` existed) loads as v2 onto the summoner's field."""
    event = from_dict(json.loads(V1_LINE))
    assert isinstance(event, SpecialSummoned) and event.controller is None
    assert event.to_dict()["v"] == 2
    assert ("special_summoned", 1) in UPCASTERS


def test_a_v1_json_lines_file_still_loads():
    (event,) = parse_lines([V1_LINE], "old.jsonl")
    assert event.method == "synchro" and event.zone == 5


def test_v2_round_trips_with_controller():
    event = SpecialSummoned(player=0, card="p1.m3", zone=2, controller=1)
    assert from_dict(event.to_dict()) == event
    assert from_dict({**event.to_dict(), "v": 2}) == event


def test_a_future_version_is_refused():
    with pytest.raises(EventFormatError, match="version 4"):
        from_dict({"kind": "special_summoned", "v": 4, "card": "p0.x0", "zone": 5})


# -- duel_started v2: duel options (CONF-01) -----------------------------------------------------

V1_START = {"kind": "duel_started", "first_player": 1, "starting_lp": 8000, "players": ["Yugi", "Kaiba"]}


def test_duel_started_v1_is_upcast_and_written_back_as_it_was():
    """A v1 duel_started (before duel options) loads as v2 with none, and, using nothing v2 added,
    is written as version 1 again, byte for byte: the hash chain of every older record holds."""
    event = from_dict(dict(V1_START))
    assert isinstance(event, DuelStarted) and (event.options, event.draw_count) == ((), 1)
    assert ("duel_started", 1) in UPCASTERS
    assert event.to_dict() == {k: v for k, v in V1_START.items() if k != "starting_lp"}
    assert chain.link(chain.GENESIS, 0, event.to_dict(), "t") == chain.link(
        chain.GENESIS, 0, {k: v for k, v in V1_START.items() if k != "starting_lp"}, "t")


def test_duel_started_v2_with_options_round_trips():
    event = DuelStarted(first_player=0, starting_lp=4000, draw_count=2, options=("starting_lp", "draw_count"))
    data = event.to_dict()
    assert data["v"] == 2 and data["options"] == ["starting_lp", "draw_count"]
    assert from_dict(data) == event and from_dict(json.loads(json.dumps(data))) == event


def test_a_v1_duel_started_json_lines_file_still_loads():
    (event,) = parse_lines([json.dumps({**V1_START, "starting_lp": 4000})], "old.jsonl")
    assert event.starting_lp == 4000 and event.options == ()


# -- issue 13: activated v2 (negates), special_summoned v3 (together), duel_started v3 (banlist) --

@pytest.mark.parametrize("old, new_field, value", [
    ({"kind": "activated", "card": "p1.m2", "speed": 3}, "negates", None),
    ({"kind": "special_summoned", "v": 2, "card": "p0.m5", "zone": 0, "method": "pendulum"}, "together", None),
    ({"kind": "duel_started", "v": 2, "first_player": 0, "draw_count": 2, "options": ["draw_count"]}, "banlist", None),
    ({"kind": "card_moved", "card": "p0.x1", "to": [0, "gy"], "reason": "destroyed"}, "with_next", False),
])
def test_an_old_event_still_loads_and_keeps_its_bytes(old, new_field, value):
    """An event written before its kind's last version loads, with the new field unset, and
    writes back as the version it was (its hash chain still verifies)."""
    event = from_dict(dict(old))
    assert getattr(event, new_field) == value
    written = event.to_dict()
    assert written.get("v", 1) == old.get("v", 1) and from_dict(written) == event


def test_the_new_fields_write_the_new_versions():
    assert from_dict({"kind": "activated", "card": "a", "negates": 1, "v": 2}).to_dict()["v"] == 2
    assert from_dict({"kind": "special_summoned", "card": "a", "zone": 0, "together": False, "v": 3}).to_dict()["v"] == 3
    assert from_dict({"kind": "card_moved", "card": "a", "to": [0, "gy"], "with_next": True, "v": 2}).to_dict()["v"] == 2
    with pytest.raises(EventFormatError, match="activated.negates"):
        from_dict({"kind": "activated", "card": "a", "v": 2, "negates": "one"})
