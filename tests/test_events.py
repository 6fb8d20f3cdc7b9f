"""Event versions: old shapes keep loading through upcasters; new shapes say their version."""
from __future__ import annotations

import json

import pytest

from ygoreplay.events import UPCASTERS, EventFormatError, SpecialSummoned, from_dict
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
    with pytest.raises(EventFormatError, match="version 3"):
        from_dict({"kind": "special_summoned", "v": 3, "card": "p0.x0", "zone": 5})
