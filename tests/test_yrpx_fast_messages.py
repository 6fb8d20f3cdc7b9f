"""The game messages read straight from their bytes (``messages._FAST``) read as their ``Reader``
parser reads them: the same fields of every such packet of real duels, and, cut short at every
length, the same fields or the same refusal (the fast reader gives way and the parser says what
is missing). Twenty-fourth pass (#25): the draws, phases, LP changes, shuffles and the messages
with no fields joined the fast readers."""
from __future__ import annotations

import pytest

from conftest import shared_path
from ygoreplay.yrpx import MSG_DRAW, MSG_NEW_PHASE, MSG_SHUFFLE_HAND, Packet, YrpxError, read_yrpx
from ygoreplay.yrpx.container import Reader
from ygoreplay.yrpx.messages import _FAST, _PARSERS, parse_message

DUELS = ("2020-06-21_12-58-40.yrpX", "2021-04-19_12-09-41.yrpX")


def by_parser(packet: Packet) -> dict | str:
    try:
        return _PARSERS[packet.id](Reader(packet.payload, packet.offset, packet.name))
    except YrpxError as err:
        return f"refused: {err.detail} at {err.offset}"


def by_import(packet: Packet) -> dict | str:
    try:
        return parse_message(packet)
    except YrpxError as err:
        return f"refused: {err.detail} at {err.offset}"


@pytest.mark.parametrize("name", DUELS)
def test_every_fast_message_of_a_real_duel_reads_as_its_parser_reads_it(name):
    packets = [p for p in read_yrpx(shared_path("real-replays", "edopro", name)).packets if p.id in _FAST]
    kinds = {p.id for p in packets}
    assert {MSG_DRAW, MSG_NEW_PHASE, MSG_SHUFFLE_HAND} <= kinds
    for packet in packets:
        assert by_import(packet) == by_parser(packet), packet


def test_a_fast_message_cut_short_is_refused_as_its_parser_refuses_it():
    packets = read_yrpx(shared_path("real-replays", "edopro", DUELS[0])).packets
    firsts = {}
    for p in packets:
        if p.id in _FAST and (p.id not in firsts or len(p.payload) > len(firsts[p.id].payload)):
            firsts[p.id] = p
    refused = 0
    for packet in firsts.values():
        for n in range(len(packet.payload) + 1):
            cut = Packet(packet.id, packet.payload[:n], packet.offset)
            got = by_import(cut)
            assert got == by_parser(cut), (cut, got)
            refused += isinstance(got, str)
    assert refused                                   # some prefixes are too short for any reader
