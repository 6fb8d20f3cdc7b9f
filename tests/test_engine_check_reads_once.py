"""The engine check takes each MSG_UPDATE_CARD's (passcode, position) from the card query the
importer already read of the same bytes (``YrpxReplay.card_queries``) instead of reading them
again (#25: a state packet's bytes are read once an import), with the same slots."""
from __future__ import annotations

import struct

import pytest

from conftest import shared_path
from ygoreplay.yrpx import Packet, import_yrpx, read_yrpx
from ygoreplay.yrpx import engine_check
from ygoreplay.yrpx.constants import MSG_UPDATE_CARD, QUERY_CODE, QUERY_END, QUERY_POSITION
from ygoreplay.yrpx.messages import card_slots, parse_update_card

DUEL = "2020-06-21_12-58-40.yrpX"


def _item(flag: int, value: bytes = b"") -> bytes:
    return struct.pack("<HI", 4 + len(value), flag) + value


CARD = (_item(QUERY_CODE, struct.pack("<I", 89631139)) + _item(QUERY_POSITION, struct.pack("<I", 0x1))
        + _item(QUERY_END))


@pytest.mark.parametrize("payload", [
    b"\x00\x04\x02",                                         # no query: no slot
    b"\x01\x04\x02\x00\x00",                                 # an empty zone
    b"\x00\x04\x02" + CARD,                                  # a card
    b"\x00\x08\x01" + _item(QUERY_POSITION, struct.pack("<I", 0x8)) + _item(QUERY_END),   # no passcode said
    b"\x00\x04\x02" + _item(QUERY_CODE, b"\x01\x02") + _item(QUERY_END),                  # a short code item
], ids=["head only", "empty", "card", "no code", "short code"])
def test_a_card_querys_slot_from_the_importers_reading_is_the_engine_checks(payload):
    packet = Packet(MSG_UPDATE_CARD, payload, 0)
    query = parse_update_card(payload)
    assert (payload[0], payload[1], payload[2], engine_check._card_slot(payload, query[3])) == card_slots(packet)


def test_the_engine_check_reads_no_card_query_the_importer_read(monkeypatch):
    path = shared_path("real-replays", "edopro", DUEL)
    read_again = []

    def counting(packet):
        read_again.append(packet.id)
        return card_slots(packet)
    monkeypatch.setattr(engine_check, "card_slots", counting)
    result = import_yrpx(read_yrpx(path), check=True)
    figures, _report = engine_check.check(result)
    assert figures.ok and figures.packets > 1000
    assert MSG_UPDATE_CARD not in read_again and read_again            # state listings are still read
    assert {p.payload for p in result.replay.packets if p.id == MSG_UPDATE_CARD} <= set(result.replay.card_queries)
