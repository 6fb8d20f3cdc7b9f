"""``container.StreamIndex``: where each kind of packet is, read in C. Its second bytes are each
payload's second byte, or 0 for a payload shorter than two bytes, one per packet and in order:
a short payload that added no byte (or two) would shift every packet after it, and the importer
would read the Deck listings and card queries of other packets (twenty-fourth pass, #25)."""
from __future__ import annotations

from ygoreplay.yrpx import (LOCATION_DECK, LOCATION_EXTRA, LOCATION_HAND, MSG_DRAW, MSG_UPDATE_CARD,
                            MSG_UPDATE_DATA, Packet)
from ygoreplay.yrpx.container import StreamIndex


def test_second_bytes_one_per_packet_short_payloads_read_as_zero():
    payloads = [(MSG_DRAW, b""), (MSG_UPDATE_DATA, bytes((0, LOCATION_DECK, 9, 9))), (MSG_UPDATE_CARD, b"\x01"),
                (MSG_UPDATE_DATA, bytes((1, LOCATION_EXTRA))), (MSG_DRAW, b"\x00\x00\x00"),
                (MSG_UPDATE_DATA, bytes((1, LOCATION_DECK, 0))), (MSG_UPDATE_DATA, bytes((0, LOCATION_HAND, 1)))]
    packets = [Packet(mid, payload, 5 * n) for n, (mid, payload) in enumerate(payloads)]
    index = StreamIndex(packets)
    assert index.ids == bytes(mid for mid, _ in payloads)
    assert index.second == bytes((0, LOCATION_DECK, 0, LOCATION_EXTRA, 0, LOCATION_DECK, LOCATION_HAND))
    data = bytes((MSG_UPDATE_DATA,))
    assert index.where(data, LOCATION_DECK) == [1, 5]
    assert index.where(data, LOCATION_EXTRA) == [3]
    assert index.where(bytes((MSG_UPDATE_CARD,))) == [2]
    assert index.besides(bytes((MSG_UPDATE_DATA, MSG_UPDATE_CARD))) == [0, 4]
