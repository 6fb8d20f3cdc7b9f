"""The importer checked against the engine: EDOPro's own state packets beside our fold's board.

The first tests read state packets byte by byte (both race sizes, empty slots, items this reader
does not know, truncation). Then small replays, built message by message as EDOPro's server
writes them (``test_yrpx``'s builders), import the classes of play that used to come out wrong and
are compared with the state packets in them: a monster moved to another of its controller's
zones, Xyz materials attached while the Xyz monster is still in the Extra Deck, an Xyz monster
and its materials leaving, a Spell turned face-down by its own effect, a duel started at 4000 LP,
position changes by an effect outside a chain, a monster an effect keeps from being destroyed by
battle. A tampered import shows where the check finds it. Last, the real corpus in
``../shared/real-replays/edopro``: every importable file agrees with the engine at every state
packet, with no violation, LP and winner as the replay says.
"""
from __future__ import annotations

import dataclasses
import json
import struct

import pytest
from conftest import shared_path
from test_yrpx import DECKS, FLAGS, MR5, draw, duel_stream, loc, packet, replay, teams, wrap

from ygoreplay.yrpx import engine_check
from ygoreplay.cli import main as cli
from ygoreplay.rules import audit
from ygoreplay.yrpx import (
    LOCATION_DECK, LOCATION_EXTRA, LOCATION_GRAVE, LOCATION_HAND, LOCATION_MZONE, LOCATION_SZONE,
    MSG_ATTACK, MSG_BATTLE, MSG_CHAIN_END, MSG_CHAIN_SOLVED, MSG_CHAIN_SOLVING, MSG_CHAINED,
    MSG_CHAINING, MSG_DAMAGE, MSG_DAMAGE_STEP_END, MSG_DAMAGE_STEP_START, MSG_HINT, MSG_MOVE,
    MSG_ADD_COUNTER, MSG_NEW_PHASE, MSG_NEW_TURN, MSG_PAY_LPCOST, MSG_PLAYER_HINT, PHINT_DESC_ADD, MSG_REMOVE_COUNTER, MSG_POS_CHANGE, MSG_SET, MSG_SPSUMMONED, MSG_SPSUMMONING, MSG_START,
    MSG_SUMMONED, MSG_SUMMONING, MSG_SWAP, MSG_UPDATE_CARD, MSG_UPDATE_DATA, MSG_WIN, OLD_REPLAY_MODE, QUERY_ATTACK,
    QUERY_BASE_ATTACK, QUERY_BASE_DEFENSE, QUERY_CODE, QUERY_DEFENSE, QUERY_END, QUERY_LEVEL,
    QUERY_POSITION, QUERY_RACE, QUERY_RANK, QUERY_TYPE, REPLAY_LUA64, REPLAY_NEWREPLAY,
    REPLAY_64BIT_DUELFLAG, YRP1, YRPX, Packet, YrpxError, card_slots, import_yrpx,
    parse_update_card, parse_update_data, read_yrpx)

# -- state packets ------------------------------------------------------------------------------

NORMAL, EFFECT, SPELL, XYZ, LINK = 0x11, 0x21, 0x2, 0x800021, 0x4000021
#: What the test cards are: passcode -> (type, Level or Rank, ATK). The rest are Normal monsters.
#: 5011 is an Effect Monster: the streams Special Summon it by its own procedure (SPS-07: a Normal
#: Monster prints none).
KINDS = {5011: (EFFECT, 4, 2100), 5012: (SPELL, 0, 0), 7000: (XYZ, 4, 2500), 6012: (NORMAL, 5, 2700),
         7001: (LINK, 2, 1800)}


def atk(code: int) -> int:
    return KINDS.get(code, (0, 0, 1000 + 100 * (code % 100) + (500 if code >= 6000 else 0)))[2]


def query(code: int, position: int = 0xA, race_size: int = 4, extra: bytes = b"") -> bytes:
    """One card's query as the server writes it: ``u16 size, u32 flag, value`` items, QUERY_END."""
    kind, level, attack = KINDS.get(code, (NORMAL, 4, atk(code)))
    items = [(QUERY_CODE, code), (QUERY_POSITION, position), (QUERY_TYPE, kind),
             (QUERY_RANK if kind & 0x800000 else QUERY_LEVEL, level), (QUERY_ATTACK, attack),
             (QUERY_DEFENSE, 1000), (QUERY_BASE_ATTACK, attack), (QUERY_BASE_DEFENSE, 1000)]
    out = b"".join(struct.pack("<HII", 8, flag, value) for flag, value in items)
    out += struct.pack("<HI", 4 + race_size, QUERY_RACE) + (1).to_bytes(race_size, "little") + extra
    return out + struct.pack("<HI", 4, QUERY_END)


def zone(player: int, location: int, slots, race_size: int = 4) -> bytes:
    """MSG_UPDATE_DATA: every slot of a location; a slot is (passcode, position) or None (empty)."""
    body = b"".join(struct.pack("<H", 0) if s is None else query(*s, race_size=race_size) for s in slots)
    return packet(MSG_UPDATE_DATA, struct.pack("<BBI", player, location, len(body)) + body)


def one(player: int, location: int, seq: int, code: int, position: int = 0x5) -> bytes:
    """MSG_UPDATE_CARD: the card that just arrived at (player, location, seq)."""
    return packet(MSG_UPDATE_CARD, struct.pack("<BBB", player, location, seq) + query(code, position))


def decoded(data: bytes) -> Packet:
    return Packet(data[0], data[5:], 5)


@pytest.mark.parametrize("race_size", [4, 8], ids=["core-9-u32-race", "core-10-u64-race"])
def test_state_packets_read_by_item_size_for_every_core(race_size):
    """The race item is 4 bytes before core 10 and 8 from it; an item this reader does not know
    (QUERY_COVER here) is stepped over by its size; an empty slot is ``u16 0``."""
    cover = struct.pack("<HII", 8, 0x2000000, 77)
    body = struct.pack("<H", 0) + query(5013, 0x1, race_size, cover) + struct.pack("<H", 0)
    data = packet(MSG_UPDATE_DATA, struct.pack("<BBI", 1, LOCATION_MZONE, len(body)) + body)
    assert card_slots(decoded(data)) == (1, LOCATION_MZONE, None, [None, (5013, 0x1), None])
    player, location, queries = parse_update_data(decoded(data).payload)
    assert [q and (q.code, q.position, q.race) for q in queries] == [None, (5013, 0x1, 1), None]
    single = one(0, LOCATION_GRAVE, 3, 5012)
    assert card_slots(decoded(single)) == (0, LOCATION_GRAVE, 3, [(5012, 0x5)])
    assert parse_update_card(decoded(single).payload)[3].code == 5012


@pytest.mark.parametrize("body, says", [
    pytest.param(query(5013) + b"\x08", "ends inside an item size", id="stray-byte"),
    pytest.param(query(5013)[:-3], "does not fit", id="cut-item"),
])
def test_a_truncated_state_packet_says_where(body, says):
    payload = struct.pack("<BBI", 0, LOCATION_MZONE, len(body)) + body
    with pytest.raises(YrpxError, match=says) as info:
        card_slots(Packet(MSG_UPDATE_DATA, payload, 100))
    assert info.value.offset is not None and info.value.offset >= 100


# -- small duels with the engine's state packets -------------------------------------------------

D0, D1 = DECKS[0][0], DECKS[1][0]            # bottom first, as the engine lists a Deck
HAND0, HAND1 = D0[::-1][:5], D1[::-1][:5]    # 5013 5012 5012 5012 5011 / 6013 6012 6012 6012 6011


def opening(lp: int = 8000, extra0=()) -> bytes:
    """MSG_START, both Decks and Extra Decks listed, the opening hands drawn, turn 1 to Main
    Phase 1 for player 0."""
    out = packet(MSG_START, struct.pack("<BII4H", 0, lp, lp, 40, len(extra0), 40, 0))
    out += zone(0, LOCATION_DECK, [(c, 0xA) for c in D0]) + zone(1, LOCATION_DECK, [(c, 0xA) for c in D1])
    out += zone(0, LOCATION_EXTRA, [(c, 0xA) for c in extra0]) + zone(1, LOCATION_EXTRA, [])
    out += draw(0, HAND0) + draw(1, HAND1) + packet(MSG_NEW_TURN, bytes([0]))
    for phase in (0x1, 0x2, 0x4):
        out += packet(MSG_NEW_PHASE, struct.pack("<H", phase))
    return out


def move(code: int, old: tuple, new: tuple, reason: int) -> bytes:
    return packet(MSG_MOVE, struct.pack("<I", code) + loc(*old) + loc(*new) + struct.pack("<I", reason))


def summon(code: int, hand_seq: int, zone_: int) -> bytes:
    """A Normal Summon from the hand, as the engine writes it."""
    return (move(code, (0, LOCATION_HAND, hand_seq, 0xA), (0, LOCATION_MZONE, zone_, 0x1), 0)
            + packet(MSG_SUMMONING, struct.pack("<I", code) + loc(0, LOCATION_MZONE, zone_, 0x1))
            + packet(MSG_SUMMONED, b""))


def monsters(player: int, **at: tuple) -> bytes:
    """MSG_UPDATE_DATA of a Monster Zone: ``z2=(code, position)`` ..."""
    return zone(player, LOCATION_MZONE, [at.get(f"z{i}") for i in range(7)])


def chain_one(code: int, at: tuple, during: bytes = b"", resolving: bytes = b"") -> bytes:
    """Chain Link 1 of the card at ``at``: activated, (``during``), resolved (``resolving``), ended."""
    return (packet(MSG_CHAINING, struct.pack("<I", code) + loc(*at) + struct.pack("<BBIQI", *at[:3], 0, 1))
            + during + packet(MSG_CHAINED, bytes([1])) + packet(MSG_CHAIN_SOLVING, bytes([1])) + resolving
            + packet(MSG_CHAIN_SOLVED, bytes([1])) + packet(MSG_CHAIN_END, b""))


def yrp1(lp: int = 8000, decks=DECKS, extra0=()) -> bytes:
    flags = REPLAY_LUA64 | REPLAY_NEWREPLAY | REPLAY_64BIT_DUELFLAG
    body = teams(flags) + struct.pack("<IIIQ", lp, 5, 1, MR5)
    for player, (main, extra) in enumerate(decks):
        extra = tuple(extra0) if player == 0 else extra
        body += struct.pack(f"<I{len(main)}I", len(main), *main) + struct.pack(f"<I{len(extra)}I", len(extra), *extra)
    return wrap(YRP1, flags, body + struct.pack("<I", 0) + bytes([1, 0]))


def duel(stream: bytes, lp: int = 8000, extra0=()) -> bytes:
    """A replay of the stream: player 1 wins at its end, the YRP1 (decks, start LP) embedded."""
    body = teams(FLAGS) + struct.pack("<Q", MR5) + stream + packet(MSG_WIN, bytes([1, 0]))
    return wrap(YRPX, FLAGS, body + packet(OLD_REPLAY_MODE, yrp1(lp, extra0=extra0)))


def imported(data: bytes):
    result = import_yrpx(data)
    agreement, report = engine_check.check(result)
    return result, agreement, report


def test_a_monster_moved_to_another_of_its_zones():
    """Player 0 Normal Summons 5013 to Monster Zone 2; an effect moves it to zone 4 (MSG_MOVE
    from one of its Monster Zones to another): one zone_changed, and the board is the engine's."""
    stream = opening() + summon(5013, 0, 2) + monsters(0, z2=(5013, 0x1)) + monsters(1)
    stream += move(5013, (0, LOCATION_MZONE, 2, 0x1), (0, LOCATION_MZONE, 4, 0x1), 0x40) + monsters(0, z4=(5013, 0x1))
    result, agreement, report = imported(duel(stream))
    moved = [e for e in result.events if e.kind == "zone_changed"]
    assert len(moved) == 1 and (moved[0].card, moved[0].zone) == ("p0.m39", 4) and moved[0].cause
    assert not any("not expressible" in n or "no zone-to-zone" in n for n in result.notes)
    assert report.violations == [] and report.state.sides[0].mzone == [None, None, None, None, "p0.m39"]
    assert agreement.ok and agreement.zones == 2 + 2 + 3 * 7 and agreement.packets == 7


def their_summon_on_turn_2() -> bytes:
    """Player 0's turn 1 ends; on turn 2 player 1 draws and Normal Summons 6011 to zone 1."""
    out = packet(MSG_NEW_PHASE, struct.pack("<H", 0x200)) + packet(MSG_NEW_TURN, bytes([1]))
    out += packet(MSG_NEW_PHASE, struct.pack("<H", 0x1)) + draw(1, [THEIRS])
    for phase in (0x2, 0x4):
        out += packet(MSG_NEW_PHASE, struct.pack("<H", phase))
    return (out + move(THEIRS, (1, LOCATION_HAND, 5, 0xA), (1, LOCATION_MZONE, 1, 0x1), 0)
            + packet(MSG_SUMMONING, struct.pack("<I", THEIRS) + loc(1, LOCATION_MZONE, 1, 0x1))
            + packet(MSG_SUMMONED, b"") + monsters(0, z2=(5013, 0x1)) + monsters(1, z1=(THEIRS, 0x1)))


def swapped(code1: int, at1: tuple, code2: int, at2: tuple) -> bytes:
    """MSG_SWAP as the core writes it (field::swap_card: each card keeps its sequence), then the
    server's refresh of both places (generic_duel.cpp: RefreshSingle of each)."""
    return (packet(MSG_SWAP, struct.pack("<I", code1) + loc(*at1) + struct.pack("<I", code2) + loc(*at2))
            + one(at1[0], at1[1], at1[2], code2, 0x1) + one(at2[0], at2[1], at2[2], code1, 0x1))


def test_two_monsters_switching_control_at_once():
    """CTRL-02: Creature Swap. Player 1's 6011 (zone 1) and player 0's 5013 (zone 2) switch
    control in one MSG_SWAP: one cards_swapped citing the resolving card, each monster in the
    other's zone, and the board is the engine's before and after."""
    mine_at, theirs_at = (0, LOCATION_MZONE, 2, 0x1), (1, LOCATION_MZONE, 1, 0x1)
    stream = opening() + summon(5013, 0, 2) + monsters(0, z2=(5013, 0x1)) + monsters(1) + their_summon_on_turn_2()
    stream += chain_one(THEIRS, theirs_at, resolving=swapped(5013, mine_at, THEIRS, theirs_at))
    stream += monsters(0, z2=(THEIRS, 0x1)) + monsters(1, z1=(5013, 0x1))
    result, agreement, report = imported(duel(stream))
    swaps = [e for e in result.events if e.kind == "cards_swapped"]
    assert [(e.card, e.other, e.cause) for e in swaps] == [("p0.m39", "p1.m34", "p1.m34")]
    assert not any("MSG_SWAP" in n for n in result.notes)
    sides = report.state.sides
    assert (sides[0].mzone[2], sides[1].mzone[1]) == ("p1.m34", "p0.m39") and report.violations == []
    assert agreement.ok, agreement


def test_two_monsters_of_one_player_trading_zones():
    """ZONE-16: MSG_SWAP of two monsters one player controls (Duel.SwapSequence): each takes the
    other's zone, as one cards_swapped; our board is the engine's."""
    a, b = (0, LOCATION_MZONE, 2, 0x1), (0, LOCATION_MZONE, 1, 0x1)
    stream = opening() + summon(5013, 0, 2) + monsters(0, z2=(5013, 0x1)) + monsters(1)
    stream += move(5011, (0, LOCATION_HAND, 3, 0xA), (0, LOCATION_MZONE, 1, 0x1), 0x800)
    stream += packet(MSG_SPSUMMONING, struct.pack("<I", 5011) + loc(*b)) + packet(MSG_SPSUMMONED, b"")
    stream += chain_one(5013, a, resolving=swapped(5013, a, 5011, b))
    stream += monsters(0, z1=(5013, 0x1), z2=(5011, 0x1))
    result, agreement, report = imported(duel(stream))
    assert [e.kind for e in result.events].count("cards_swapped") == 1
    assert report.state.sides[0].mzone[1:3] == ["p0.m39", "p0.m35"] and report.violations == []
    assert agreement.ok, agreement


def test_a_tampered_import_shows_the_first_divergence():
    """The same duel without its zone_changed: the check names the packet, the turn, the zone,
    what the engine held and what our board held; the figure counts every zone compared."""
    stream = opening() + summon(5013, 0, 2) + monsters(0, z2=(5013, 0x1)) + monsters(1)
    stream += move(5013, (0, LOCATION_MZONE, 2, 0x1), (0, LOCATION_MZONE, 4, 0x1), 0x40) + monsters(0, z4=(5013, 0x1))
    result = import_yrpx(duel(stream))
    k = next(i for i, e in enumerate(result.events) if e.kind == "zone_changed")
    tampered = dataclasses.replace(result, events=result.events[:k] + result.events[k + 1:],
                                   sources=result.sources[:k] + result.sources[k + 1:])
    agreement, _ = engine_check.check(tampered)
    first = agreement.first
    assert not agreement.ok and agreement.zones - agreement.agreeing == 2
    assert (first.turn, first.player, first.zone) == (1, 0, "mzone 2")
    assert (first.engine, first.ours) == ("empty", "5013 attack")
    assert result.replay.packets[first.packet].id == MSG_UPDATE_DATA
    assert agreement.divergences[1].zone == "mzone 4" and agreement.divergences[1].engine == "5013 attack"
    data = agreement.to_dict()
    assert data["first_divergence"]["zone"] == "mzone 2" and 0 < data["agreement"] < 1
    assert "first divergence: packet" in str(agreement)


XYZ_EXTRA = (7000,)


def xyz_stream(flush_in_between: bool, leaving: bytes | None = None, extra0: tuple = XYZ_EXTRA) -> bytes:
    """5013 Normal Summoned to zone 0, 5011 Special Summoned to zone 1 (its own procedure); both
    attached to the Xyz 7000 while it is still in the Extra Deck (location OVERLAY|EXTRA), then
    (maybe) a card leaves the hand by an effect, then 7000 comes out to zone 2; later it is
    destroyed, and the engine sends it to the GY first, then its materials (or ``leaving`` follows)."""
    out = opening(extra0=extra0) + summon(5013, 0, 0)
    out += move(5011, (0, LOCATION_HAND, 3, 0xA), (0, LOCATION_MZONE, 1, 0x1), 0x800)
    out += packet(MSG_SPSUMMONING, struct.pack("<I", 5011) + loc(0, LOCATION_MZONE, 1, 0x1))
    out += packet(MSG_SPSUMMONED, b"") + monsters(0, z0=(5013, 0x1), z1=(5011, 0x1))
    out += move(5013, (0, LOCATION_MZONE, 0, 0x1), (0, 0xC0, 0, 0), 0x200008)
    out += move(5011, (0, LOCATION_MZONE, 1, 0x1), (0, 0xC0, 0, 1), 0x200008)
    if flush_in_between:
        out += move(5012, (0, LOCATION_HAND, 0, 0xA), (0, LOCATION_GRAVE, 0, 0x5), 0x40) + one(0, LOCATION_GRAVE, 0, 5012)
    out += move(7000, (0, LOCATION_EXTRA, 0, 0xA), (0, LOCATION_MZONE, 2, 0x1), 0x800)
    out += packet(MSG_SPSUMMONING, struct.pack("<I", 7000) + loc(0, LOCATION_MZONE, 2, 0x1))
    out += packet(MSG_SPSUMMONED, b"") + monsters(0, z2=(7000, 0x1))
    if leaving is not None:
        return out + leaving
    gy = 1 if flush_in_between else 0
    out += move(7000, (0, LOCATION_MZONE, 2, 0x1), (0, LOCATION_GRAVE, gy, 0x5), 0x41) + one(0, LOCATION_GRAVE, gy, 7000)
    out += move(5013, (0, 0x90, gy, 0), (0, LOCATION_GRAVE, gy + 1, 0x5), 0x600) + one(0, LOCATION_GRAVE, gy + 1, 5013)
    out += move(5011, (0, 0x90, gy, 0), (0, LOCATION_GRAVE, gy + 2, 0x5), 0x600) + one(0, LOCATION_GRAVE, gy + 2, 5011)
    return out + monsters(0)


@pytest.mark.parametrize("flush_in_between", [False, True], ids=["summoned-at-once", "other-moves-first"])
def test_xyz_materials_attached_in_the_extra_deck_wait_for_the_summon(flush_in_between):
    """XYZ-01, XMAT-01: materials attached while the Xyz monster is in the Extra Deck belong to
    its summon however many other messages come first (they used to be lost when pending moves
    were flushed); NIS-05: when it leaves, it reaches the GY first, then its materials."""
    result, agreement, report = imported(duel(xyz_stream(flush_in_between), extra0=XYZ_EXTRA))
    summoned = next(e for e in result.events if e.kind == "special_summoned" and e.card == "p0.x0")
    assert summoned.method == "xyz" and summoned.materials == ("p0.m39", "p0.m35")
    assert report.violations == [], report.violations
    gy = report.state.sides[0].gy
    assert gy[-3:] == ["p0.x0", "p0.m39", "p0.m35"]
    assert agreement.ok, agreement


def test_xyz_materials_reach_the_gy_after_the_whole_group_that_moved_their_monster():
    """NIS-05, ZONE-13: one effect destroys the Xyz monster 7000 and 5012 at once; EDOPro sends
    both to the GY, then the materials (REASON_RULE|REASON_LOST_TARGET from the overlay of a card
    in the GY, ``operations.cpp`` send_to step 10). The two moves are one group (``with_next``),
    so our GY holds 7000, 5012, then the materials, at every state packet."""
    out = move(5012, (0, LOCATION_HAND, 0, 0xA), (0, LOCATION_MZONE, 3, 0x1), 0x800)
    out += packet(MSG_SPSUMMONING, struct.pack("<I", 5012) + loc(0, LOCATION_MZONE, 3, 0x1))
    out += packet(MSG_SPSUMMONED, b"") + monsters(0, z2=(7000, 0x1), z3=(5012, 0x1))
    out += move(7000, (0, LOCATION_MZONE, 2, 0x1), (0, LOCATION_GRAVE, 0, 0x5), 0x41) + one(0, LOCATION_GRAVE, 0, 7000)
    out += move(5012, (0, LOCATION_MZONE, 3, 0x1), (0, LOCATION_GRAVE, 1, 0x5), 0x41) + one(0, LOCATION_GRAVE, 1, 5012)
    out += move(5013, (0, 0x90, 0, 0), (0, LOCATION_GRAVE, 2, 0x5), 0x600) + one(0, LOCATION_GRAVE, 2, 5013)
    out += move(5011, (0, 0x90, 0, 0), (0, LOCATION_GRAVE, 3, 0x5), 0x600) + one(0, LOCATION_GRAVE, 3, 5011)
    result, agreement, report = imported(duel(xyz_stream(False, out + monsters(0)), extra0=XYZ_EXTRA))
    left = [e for e in result.events if e.kind == "card_moved" and e.to.zone == "gy"]
    assert [(e.card, e.with_next) for e in left] == [("p0.x0", True), ("p0.m38", False)]
    assert report.violations == [], report.violations
    assert report.state.sides[0].gy == ["p0.x0", "p0.m38", "p0.m39", "p0.m35"]
    assert agreement.ok, agreement


def test_xyz_materials_reach_the_gy_after_a_link_summons_materials_one_of_them_banished():
    """NIS-05, ZONE-13, LINK-01: 7000 (holding 5013 and 5011) and 5012 are the materials of the
    Link Monster 7001; 7000 goes to the GY, 5012 is banished (an effect's "banish it when it
    leaves the field"), then the engine sends 7000's materials to the GY, then 7001 comes out.
    The materials' moves are one group (``with_next``), so our GY holds 7000, then the
    materials, as the engine's state packets show it."""
    link_mat = 0x10000008                          # REASON_MATERIAL | REASON_LINK
    out = move(5012, (0, LOCATION_HAND, 0, 0xA), (0, LOCATION_MZONE, 3, 0x1), 0x800)
    out += packet(MSG_SPSUMMONING, struct.pack("<I", 5012) + loc(0, LOCATION_MZONE, 3, 0x1))
    out += packet(MSG_SPSUMMONED, b"") + monsters(0, z2=(7000, 0x1), z3=(5012, 0x1))
    out += move(7000, (0, LOCATION_MZONE, 2, 0x1), (0, LOCATION_GRAVE, 0, 0x5), link_mat) + one(0, LOCATION_GRAVE, 0, 7000)
    out += move(5012, (0, LOCATION_MZONE, 3, 0x1), (0, 0x20, 0, 0x5), link_mat) + one(0, 0x20, 0, 5012)
    out += move(5013, (0, 0x90, 0, 0), (0, LOCATION_GRAVE, 1, 0x5), 0x600) + one(0, LOCATION_GRAVE, 1, 5013)
    out += move(5011, (0, 0x90, 0, 0), (0, LOCATION_GRAVE, 2, 0x5), 0x600) + one(0, LOCATION_GRAVE, 2, 5011)
    out += move(7001, (0, LOCATION_EXTRA, 0, 0xA), (0, LOCATION_MZONE, 5, 0x1), 0x800)
    out += packet(MSG_SPSUMMONING, struct.pack("<I", 7001) + loc(0, LOCATION_MZONE, 5, 0x1))
    out += packet(MSG_SPSUMMONED, b"") + monsters(0, z5=(7001, 0x1))
    stream = xyz_stream(False, out, extra0=(7000, 7001))
    result, agreement, report = imported(duel(stream, extra0=(7000, 7001)))
    left = [e for e in result.events if e.kind == "card_moved" and e.reason == "material"]
    assert [(e.card, e.with_next) for e in left] == [("p0.x0", True), ("p0.m38", False)]
    assert report.violations == [], report.violations
    assert report.state.sides[0].gy == ["p0.x0", "p0.m39", "p0.m35"]
    assert agreement.ok, agreement


def test_a_tribute_returned_to_the_hand_is_not_the_copy_summoned_for_it():
    """SUM-04, ZONE-13: turn 3, player 0 Tribute Summons the 5011 just drawn with the 5011 on the
    field, which returns to the hand instead of the GY (Fantastic Striborg); the hand is shuffled
    (MSG_SHUFFLE_HAND), so the summoned copy's MSG_MOVE from the hand says nothing of which one it
    is. The summoned monster is the other copy, never its own Tribute: no violation follows."""
    stream = opening() + summon(5011, 4, 0) + packet(MSG_NEW_PHASE, struct.pack("<H", 0x200))
    stream += packet(MSG_NEW_TURN, bytes([1])) + packet(MSG_NEW_PHASE, struct.pack("<H", 0x1)) + draw(1, [THEIRS])
    for phase in (0x2, 0x4, 0x200):
        stream += packet(MSG_NEW_PHASE, struct.pack("<H", phase))
    stream += packet(MSG_NEW_TURN, bytes([0])) + packet(MSG_NEW_PHASE, struct.pack("<H", 0x1)) + draw(0, [5011])
    for phase in (0x2, 0x4):
        stream += packet(MSG_NEW_PHASE, struct.pack("<H", phase))
    stream += move(5011, (0, LOCATION_MZONE, 0, 0x1), (0, LOCATION_HAND, 4, 0xA), 0x0400001A)
    hand = (5013, 5012, 5012, 5012, 5011, 5011)
    stream += packet(33, struct.pack(f"<BI{len(hand)}I", 0, len(hand), *hand))
    stream += move(5011, (0, LOCATION_HAND, 4, 0xA), (0, LOCATION_MZONE, 1, 0x1), 0)
    stream += packet(MSG_SUMMONING, struct.pack("<I", 5011) + loc(0, LOCATION_MZONE, 1, 0x1)) + packet(MSG_SUMMONED, b"")
    stream += monsters(0, z1=(5011, 0x1))
    result, agreement, report = imported(duel(stream))
    summoned = [e for e in result.events if e.kind == "normal_summoned"][-1]
    assert summoned.tributes and summoned.card not in summoned.tributes
    assert report.violations == [] and agreement.ok, (report.violations, agreement)


def test_a_spell_turned_face_down_by_its_own_effect():
    """SPELL-03: a Spell activated from the hand whose effect Sets it again (MSG_POS_CHANGE to
    face-down while it resolves) is a position_changed with its cause; it stays on the field,
    Set, and the chain ends with no SPELL-04."""
    at = (0, LOCATION_SZONE, 1, 0x5)
    stream = opening() + move(5012, (0, LOCATION_HAND, 1, 0xA), at, 0) + one(0, LOCATION_SZONE, 1, 5012)
    stream += chain_one(5012, at, resolving=packet(MSG_POS_CHANGE, struct.pack("<IBBBBB", 5012, 0, LOCATION_SZONE,
                                                                              1, 0x5, 0xA)))
    stream += zone(0, LOCATION_SZONE, [None, (5012, 0xA)] + [None] * 6)
    result, agreement, report = imported(duel(stream))
    turned = next(e for e in result.events if e.kind == "position_changed")
    assert (turned.card, turned.position, turned.cause) == ("p0.m38", "set", "p0.m38")
    assert report.violations == [] and report.state.cards["p0.m38"].position == "set"
    assert agreement.ok, agreement


def test_a_player_who_pays_all_their_lp_as_a_cost_loses_at_the_activation():
    """WIN-01, CHAIN-11: a Set Spell is flipped to activate and its cost of 8000 LP is paid;
    the engine's MSG_WIN comes before MSG_CHAINED (the player lost while activating). The
    activation is still recorded, with its cost and the card face-up as the engine shows it, so
    the LP reach 0 and the loss is by LP, with no violation."""
    at = (0, LOCATION_SZONE, 1, 0x5)
    stream = opening() + move(5012, (0, LOCATION_HAND, 1, 0xA), (0, LOCATION_SZONE, 1, 0xA), 0)
    stream += packet(MSG_SET, struct.pack("<I", 5012) + loc(0, LOCATION_SZONE, 1, 0xA))
    stream += packet(MSG_POS_CHANGE, struct.pack("<IBBBBB", 5012, 0, LOCATION_SZONE, 1, 0xA, 0x5))
    stream += one(0, LOCATION_SZONE, 1, 5012)
    stream += packet(MSG_CHAINING, struct.pack("<I", 5012) + loc(*at) + struct.pack("<BBIQI", *at[:3], 0, 1))
    stream += packet(MSG_PAY_LPCOST, struct.pack("<BI", 0, 8000)) + packet(MSG_WIN, bytes([1, 1]))
    data = wrap(YRPX, FLAGS, teams(FLAGS) + struct.pack("<Q", MR5) + stream + packet(OLD_REPLAY_MODE, yrp1()))
    result, agreement, report = imported(data)
    kinds = [e.kind for e in result.events]
    assert kinds[-2:] == ["activated", "duel_ended"], kinds[-4:]
    assert result.events[-2].costs and (result.expected.winner, result.expected.reason) == (1, "lp")
    assert report.violations == [] and [s.lp for s in report.state.sides] == [0, 8000]
    assert report.state.cards["p0.m38"].position == "faceup" and agreement.ok, agreement


def test_an_additional_normal_summon_a_resolved_spell_granted_cites_it_past_an_lp_cost():
    """SUM-01, GEN-01: player 0 Normal Summons, then activates 5012 (Double Summon's kind: it
    resolves with nothing to see); a card on the field makes the next summon cost 500 LP (paid
    just before it, after the chain ended); the second Normal Summon cites 5012 as the grant."""
    at = (0, LOCATION_SZONE, 1, 0x5)
    stream = opening() + summon(5013, 0, 2) + monsters(0, z2=(5013, 0x1))
    stream += move(5012, (0, LOCATION_HAND, 0, 0xA), at, 0) + one(0, LOCATION_SZONE, 1, 5012)
    stream += packet(MSG_CHAINING, struct.pack("<I", 5012) + loc(*at) + struct.pack("<BBIQI", *at[:3], 0, 1))
    stream += packet(MSG_CHAINED, bytes([1])) + packet(MSG_CHAIN_SOLVING, bytes([1]))
    stream += packet(MSG_CHAIN_SOLVED, bytes([1])) + move(5012, at, (0, LOCATION_GRAVE, 0, 0x5), 0x400)
    stream += packet(MSG_CHAIN_END, b"") + packet(MSG_PAY_LPCOST, struct.pack("<BI", 0, 500)) + summon(5011, 2, 3)
    result, agreement, report = imported(duel(stream))
    spell = next(e.card for e in result.events if e.kind == "activated")
    second = [e for e in result.events if e.kind == "normal_summoned"][1]
    assert second.cite is not None and second.cite.card == spell
    assert report.violations == [] and [o.rule for o in report.overrides] == ["SUM-01"] and agreement.ok


def tribute_summon_on_turn_2(tribute: tuple) -> bytes:
    """Turn 1: player 0 Normal Summons 5013 to zone 2. Turn 2: player 1 draws, then Tribute
    Summons the Level 5 6012 to zone 0 with the monster at ``tribute`` (code, controller, zone)."""
    code, controller, z = tribute
    stream = opening() + summon(5013, 0, 2) + monsters(0, z2=(5013, 0x1)) + monsters(1)
    stream += packet(MSG_NEW_PHASE, struct.pack("<H", 0x200)) + packet(MSG_NEW_TURN, bytes([1]))
    stream += packet(MSG_NEW_PHASE, struct.pack("<H", 0x1)) + draw(1, [THEIRS])
    for phase in (0x2, 0x4):
        stream += packet(MSG_NEW_PHASE, struct.pack("<H", phase))
    if controller == 1:                                   # a monster of its own to Tribute first
        stream += move(THEIRS, (1, LOCATION_HAND, 5, 0xA), (1, LOCATION_MZONE, z, 0x1), 0x800)
        stream += packet(MSG_SPSUMMONING, struct.pack("<I", THEIRS) + loc(1, LOCATION_MZONE, z, 0x1))
        stream += packet(MSG_SPSUMMONED, b"")
    stream += move(code, (controller, LOCATION_MZONE, z, 0x1), (controller, LOCATION_GRAVE, 0, 0x5), 0x12)
    return (stream + move(6012, (1, LOCATION_HAND, 1, 0xA), (1, LOCATION_MZONE, 0, 0x1), 0)
            + packet(MSG_SUMMONING, struct.pack("<I", 6012) + loc(1, LOCATION_MZONE, 0, 0x1))
            + packet(MSG_SUMMONED, b"") + (monsters(0) if controller == 0 else monsters(0, z2=(5013, 0x1)))
            + monsters(1, z0=(6012, 0x1)))


def test_a_tribute_the_summoner_does_not_control_is_cited():
    """SUM-06, GEN-01: player 1 Tribute Summons with player 0's monster (an effect lets it:
    the engine released it, reason RELEASE|SUMMON): the summon cites the card behind it (with no
    activation targeting the Tribute, the Tribute's own text), and no violation is left."""
    result, agreement, report = imported(duel(tribute_summon_on_turn_2((5013, 0, 2))))
    summon_ = next(e for e in result.events if e.kind == "normal_summoned" and e.player == 1)
    assert summon_.tributes == ("p0.m39",) and "opponent's monster" in summon_.cite.effect
    assert report.violations == [] and [o.rule for o in report.overrides] == ["SUM-06"] and agreement.ok


def test_a_tribute_of_ones_own_monster_cites_nothing(monkeypatch):
    """SUM-06: Tributing a monster you control is the rule itself: no cite. (6011, Special
    Summoned by its own procedure to be Tributed, is an Effect Monster here: SPS-07.)"""
    monkeypatch.setitem(KINDS, THEIRS, (EFFECT, 4, atk(THEIRS)))
    result, agreement, report = imported(duel(tribute_summon_on_turn_2((THEIRS, 1, 1))))
    summon_ = next(e for e in result.events if e.kind == "normal_summoned" and e.player == 1)
    assert summon_.tributes == ("p1.m34",) and summon_.cite is None
    assert report.violations == [] and report.overrides == [] and agreement.ok


def test_a_player_who_pays_all_their_lp_before_activating_loses_with_the_card_placed():
    """WIN-01: a card on the field makes each activation cost 500 LP; player 0 pays its last LP
    for it before the Spell is placed (MSG_PAY_LPCOST, then the MSG_MOVE to the zone, MSG_CHAINING,
    MSG_WIN): it lost before activating, so no activation is recorded (nothing but the duel's
    closing events may follow a loss), but the card is where the engine put it."""
    at = (0, LOCATION_SZONE, 1, 0x5)
    stream = opening() + packet(MSG_PAY_LPCOST, struct.pack("<BI", 0, 8000))
    stream += move(5012, (0, LOCATION_HAND, 1, 0xA), at, 0) + one(0, LOCATION_SZONE, 1, 5012)
    stream += packet(MSG_CHAINING, struct.pack("<I", 5012) + loc(*at) + struct.pack("<BBIQI", *at[:3], 0, 1))
    stream += packet(MSG_WIN, bytes([1, 1]))
    data = wrap(YRPX, FLAGS, teams(FLAGS) + struct.pack("<Q", MR5) + stream + packet(OLD_REPLAY_MODE, yrp1()))
    result, agreement, report = imported(data)
    kinds = [e.kind for e in result.events]
    assert "activated" not in kinds and kinds[-3:] == ["life_points_changed", "card_moved", "duel_ended"]
    assert report.violations == [] and report.state.cards["p0.m38"].zone == "szone"
    assert (result.expected.winner, result.expected.reason) == (1, "lp") and agreement.ok, agreement


def test_a_set_card_activated_right_before_the_opponent_decks_out_is_activated():
    """WIN-02, GEN-01: player 0's Set card is flipped and activated in player 1's Draw Phase
    before the draw (MSG_POS_CHANGE, MSG_CHAINING); the engine ends the duel by deck-out before
    MSG_CHAINED. No LP decided it: the activation was made and is recorded, the card face-up as
    the engine's refresh after MSG_POS_CHANGE shows it, and no violation is left."""
    at = (0, LOCATION_SZONE, 1, 0x5)
    stream = opening() + move(5012, (0, LOCATION_HAND, 1, 0xA), (0, LOCATION_SZONE, 1, 0xA), 0)
    stream += packet(MSG_SET, struct.pack("<I", 5012) + loc(0, LOCATION_SZONE, 1, 0xA))
    stream += packet(MSG_NEW_TURN, bytes([1])) + packet(MSG_NEW_PHASE, struct.pack("<H", 0x1))
    stream += packet(MSG_POS_CHANGE, struct.pack("<IBBBBB", 5012, 0, LOCATION_SZONE, 1, 0xA, 0x5))
    stream += one(0, LOCATION_SZONE, 1, 5012)
    stream += packet(MSG_CHAINING, struct.pack("<I", 5012) + loc(*at) + struct.pack("<BBIQI", *at[:3], 0, 1))
    stream += packet(MSG_WIN, bytes([0, 2]))
    data = wrap(YRPX, FLAGS, teams(FLAGS) + struct.pack("<Q", MR5) + stream + packet(OLD_REPLAY_MODE, yrp1()))
    result, agreement, report = imported(data)
    kinds = [e.kind for e in result.events]
    assert kinds[-2:] == ["activated", "duel_ended"], kinds[-4:]
    assert (result.expected.winner, result.expected.reason) == (0, "deck_out") and report.violations == []
    assert report.state.cards["p0.m38"].position == "faceup" and agreement.ok, agreement


def test_a_player_who_reaches_0_lp_while_activating_after_its_cost_has_activated():
    """WIN-01, CHAIN-11: player 0 places a Spell and discards 5013 as its cost (MSG_MOVE between
    MSG_CHAINING and MSG_CHAINED), then takes 8000 damage from a lasting effect before
    MSG_CHAINED; MSG_WIN follows. They were not at 0 LP when the activation began: it is recorded
    with its cost, so the discarded card is in the GY as the engine's refresh shows it."""
    at = (0, LOCATION_SZONE, 1, 0x5)
    stream = opening() + move(5012, (0, LOCATION_HAND, 1, 0xA), at, 0) + one(0, LOCATION_SZONE, 1, 5012)
    stream += packet(MSG_CHAINING, struct.pack("<I", 5012) + loc(*at) + struct.pack("<BBIQI", *at[:3], 0, 1))
    stream += move(5013, (0, LOCATION_HAND, 0, 0xA), (0, LOCATION_GRAVE, 0, 0x5), 0x4080)
    stream += one(0, LOCATION_GRAVE, 0, 5013) + packet(MSG_DAMAGE, struct.pack("<BI", 0, 8000))
    stream += packet(MSG_WIN, bytes([1, 1]))
    data = wrap(YRPX, FLAGS, teams(FLAGS) + struct.pack("<Q", MR5) + stream + packet(OLD_REPLAY_MODE, yrp1()))
    result, agreement, report = imported(data)
    activated = next(e for e in result.events if e.kind == "activated")
    assert [c.reason for c in activated.costs] == ["discarded"]
    assert (result.expected.winner, result.expected.reason) == (1, "lp")
    assert report.violations == [] and report.state.cards["p0.m39"].zone == "gy" and agreement.ok, agreement


def spell_chain(at: tuple, hand_seq: int, gy: int, resolving: bytes = b"") -> bytes:
    """5012 from the hand to ``at``, a chain of one link, then sent to GY place ``gy``."""
    return (move(5012, (0, LOCATION_HAND, hand_seq, 0xA), at, 0) + one(at[0], at[1], at[2], 5012)
            + packet(MSG_CHAINING, struct.pack("<I", 5012) + loc(*at) + struct.pack("<BBIQI", *at[:3], 0, 1))
            + packet(MSG_CHAINED, bytes([1])) + packet(MSG_CHAIN_SOLVING, bytes([1])) + resolving
            + packet(MSG_CHAIN_SOLVED, bytes([1])) + move(5012, at, (0, LOCATION_GRAVE, gy, 0x5), 0x400)
            + packet(MSG_CHAIN_END, b""))


def test_an_additional_normal_summon_later_in_the_turn_cites_the_quiet_spell_that_granted_it():
    """SUM-01, GEN-01: the same grant (5012 resolves with nothing to see after the turn's Normal
    Summon), but another 5012 resolves in between, discarding a card: the second Normal Summon
    still cites the first, the link of this turn that showed nothing when it resolved."""
    stream = opening() + summon(5013, 0, 2) + monsters(0, z2=(5013, 0x1))
    stream += spell_chain((0, LOCATION_SZONE, 1, 0x5), 0, 0)
    discard = move(5012, (0, LOCATION_HAND, 0, 0xA), (0, LOCATION_GRAVE, 1, 0x5), 0x4040)
    stream += spell_chain((0, LOCATION_SZONE, 2, 0x5), 0, 2, resolving=discard) + summon(5011, 0, 3)
    result, agreement, report = imported(duel(stream))
    first_spell = next(e.card for e in result.events if e.kind == "activated")
    second = [e for e in result.events if e.kind == "normal_summoned"][1]
    assert second.cite is not None and second.cite.card == first_spell
    assert report.violations == [] and agreement.ok, (report.violations, agreement)


def test_a_grant_that_resolves_while_a_card_collects_a_counter_is_still_quiet():
    """SUM-01, GEN-01: 5012 resolves (Double Summon) while 5013 on the field takes a counter, as a
    card that collects a Spell Counter each time a Spell resolves does (MSG_ADD_COUNTER inside the
    link); nothing else shows. The second Normal Summon of the turn cites 5012, not unexplained."""
    counter = packet(MSG_ADD_COUNTER, struct.pack("<HBBBH", 1, 0, LOCATION_MZONE, 2, 1))
    stream = opening() + summon(5013, 0, 2) + monsters(0, z2=(5013, 0x1))
    stream += spell_chain((0, LOCATION_SZONE, 1, 0x5), 0, 0, resolving=counter) + summon(5011, 2, 3)
    result, agreement, report = imported(duel(stream))
    spell = next(e.card for e in result.events if e.kind == "activated")
    second = [e for e in result.events if e.kind == "normal_summoned"][1]
    assert second.cite is not None and second.cite.card == spell and not second.cite.unexplained
    assert report.violations == [] and [o.rule for o in report.overrides] == ["SUM-01"] and agreement.ok


def test_counters_removed_as_a_cost_are_recorded_before_the_card_pays_itself():
    """COUNTER-01, CHAIN-11: 5013 holds 3 counters a Spell placed; activating its effect, it removes them and
    sends itself to the GY as the cost (MSG_REMOVE_COUNTER, then its MSG_MOVE, before
    MSG_CHAINED): the counters leave while it is still on the field, then it goes: no
    counter is left on a card in the GY, and the board is the engine's."""
    at = (0, LOCATION_MZONE, 2, 0x1)
    counters = lambda mid: packet(mid, struct.pack("<HBBBH", 1, 0, LOCATION_MZONE, 2, 3))
    stream = opening() + summon(5013, 0, 2) + monsters(0, z2=(5013, 0x1))
    stream += spell_chain((0, LOCATION_SZONE, 1, 0x5), 0, 0, resolving=counters(MSG_ADD_COUNTER))   # 5012 places them
    stream += packet(MSG_CHAINING, struct.pack("<I", 5013) + loc(*at) + struct.pack("<BBIQI", *at[:3], 0, 1))
    stream += counters(MSG_REMOVE_COUNTER) + move(5013, at, (0, LOCATION_GRAVE, 0, 0x5), 0x80)
    stream += packet(MSG_CHAINED, bytes([1])) + packet(MSG_CHAIN_SOLVING, bytes([1]))
    stream += packet(MSG_CHAIN_SOLVED, bytes([1])) + packet(MSG_CHAIN_END, b"") + monsters(0)
    result, agreement, report = imported(duel(stream))
    kinds = [e.kind for e in result.events]
    k = len(kinds) - 1 - kinds[::-1].index("activated")           # the second activation
    assert kinds[k - 1] == "counters_changed" and result.events[k - 1].count == 0 and result.events[k].costs
    assert report.violations == [] and agreement.ok, (report.violations, agreement)


def test_a_duel_started_at_4000_lp_records_the_duel_option():
    """SETUP-01, CONF-01: the room's start LP (MSG_START, the YRP1 header) is a duel option in
    duel_started, not a violation; the LP then run from it."""
    start = packet(MSG_START, struct.pack("<BII4H", 0, 8000, 8000, 40, 0, 40, 0))
    stream = packet(MSG_START, struct.pack("<BII4H", 0, 4000, 4000, 40, 0, 40, 0)) + duel_stream()[len(start):]
    body = teams(FLAGS) + struct.pack("<Q", MR5) + stream + packet(OLD_REPLAY_MODE, yrp1(4000))
    result = import_yrpx(wrap(YRPX, FLAGS, body))
    started = result.events[0]
    assert (started.starting_lp, started.options) == (4000, ("starting_lp",))
    report = audit(result.events, result.cards)
    assert report.violations == [] and report.overrides == []
    assert [s.lp for s in report.state.sides] == [4000 - 300, 4000] == list(result.expected.lp)


#: EDOPro's DUEL_MODE_GOAT duel flags, as its server writes them for a Goat format room.
GOAT = 0x7F80D072C


@pytest.mark.parametrize("flags, unexplained", [
    pytest.param(GOAT, [], id="goat"),
    pytest.param(MR5, ["SETUP-04"], id="mr5"),
])
def test_goat_duel_flags_are_duel_options(flags: int, unexplained: list[str]):
    """CONF-01, SETUP-04: EDOPro's Goat duel flags keep older rulings in place of basic rules we
    check; the importer records them as duel options of duel_started (first_turn_draw,
    reposition_opponents_summons, zero_atk_destroyed, one_field_spell), and the rules honour
    them: the first player's turn-1 draw is legal under them. Under Master Rule 5 it breaks
    SETUP-04, and as the engine drew it, the import cites it unexplained, for review."""
    d0 = DECKS[0][0][::-1]
    base = duel_stream()
    first_draw = packet(MSG_NEW_TURN, bytes([0])) + packet(MSG_NEW_PHASE, struct.pack("<H", 0x1))
    at = base.index(first_draw) + len(first_draw)
    stream = base[:at] + draw(0, [d0[5]]) + base[at:]
    body = teams(FLAGS) + struct.pack("<Q", flags) + stream + packet(OLD_REPLAY_MODE, yrp1())
    result = import_yrpx(wrap(YRPX, FLAGS, body))
    started = result.events[0]
    expected = ("first_turn_draw", "reposition_opponents_summons", "zero_atk_destroyed", "one_field_spell")
    assert started.options == (expected if flags == GOAT else ())
    assert any(e.kind == "cards_drawn" and e.player == 0 and e.count == 1 and e.cause is None for e in result.events)
    report = audit(result.events, result.cards)
    assert report.violations == [] and [o.rule for o in report.overrides] == unexplained
    assert all(o.cite.unexplained for o in report.overrides)


#: Both Monster Zones, both Spell & Trap Zones, both hands: what the server refreshes after
#: MSG_NEW_PHASE by itself, and again before an idle command prompt.
FIELD_AND_HANDS = (monsters(0, z0=(5013, 0x4)) + monsters(1) + zone(0, LOCATION_SZONE, [None] * 8)
                   + zone(1, LOCATION_SZONE, [None] * 8) + zone(0, LOCATION_HAND, []) + zone(1, LOCATION_HAND, []))


def test_a_position_change_answers_an_idle_command_or_comes_from_an_effect():
    """POS-07/08: a manual change is what the player chose at an idle command, which the server
    refreshes both fields and hands before; a change right after a summon, with no prompt in
    between, is an effect's (it used to read as manual, and broke POS-08). Two turns later the
    player changes it back by hand."""
    change = lambda old, new: packet(MSG_POS_CHANGE, struct.pack("<IBBBBB", 5013, 0, LOCATION_MZONE, 0, old, new))
    stream = opening() + summon(5013, 0, 0) + monsters(0, z0=(5013, 0x1)) + monsters(1)
    stream += change(0x1, 0x4)                                           # by an effect
    stream += packet(MSG_NEW_PHASE, struct.pack("<H", 0x200)) + packet(MSG_NEW_TURN, bytes([1]))
    stream += packet(MSG_NEW_PHASE, struct.pack("<H", 0x1)) + draw(1, [D1[::-1][5]])
    for phase in (0x2, 0x4, 0x200):
        stream += packet(MSG_NEW_PHASE, struct.pack("<H", phase))
    stream += packet(MSG_NEW_TURN, bytes([0])) + packet(MSG_NEW_PHASE, struct.pack("<H", 0x1)) + draw(0, [D0[::-1][5]])
    for phase in (0x2, 0x4):
        stream += packet(MSG_NEW_PHASE, struct.pack("<H", phase))
    stream += FIELD_AND_HANDS + FIELD_AND_HANDS + change(0x4, 0x1)      # by hand, at the prompt
    result = import_yrpx(duel(stream))
    by_effect, by_hand = [e for e in result.events if e.kind == "position_changed"]
    assert by_effect.cause is not None and by_hand.cause is None
    assert audit(result.events, result.cards).violations == []


THEIRS = D1[::-1][5]                         # 6011, player 1's draw on turn 2


def to_battle() -> bytes:
    """Player 0's turn 1 ends; on turn 2 player 1 draws, Normal Summons 6011 to zone 1 and enters
    the Battle Phase, its monster attacking player 0's zone 2."""
    out = packet(MSG_NEW_PHASE, struct.pack("<H", 0x200)) + packet(MSG_NEW_TURN, bytes([1]))
    out += packet(MSG_NEW_PHASE, struct.pack("<H", 0x1)) + draw(1, [THEIRS])
    for phase in (0x2, 0x4):
        out += packet(MSG_NEW_PHASE, struct.pack("<H", phase))
    out += (move(THEIRS, (1, LOCATION_HAND, 5, 0xA), (1, LOCATION_MZONE, 1, 0x1), 0)
            + packet(MSG_SUMMONING, struct.pack("<I", THEIRS) + loc(1, LOCATION_MZONE, 1, 0x1))
            + packet(MSG_SUMMONED, b"") + packet(MSG_NEW_PHASE, struct.pack("<H", 0x8)))
    return out + packet(MSG_ATTACK, loc(1, LOCATION_MZONE, 1, 0x1) + loc(0, LOCATION_MZONE, 2, 0x1))


def test_a_monster_an_effect_keeps_from_being_destroyed_by_battle():
    """DMG-01, GEN-01: 6011 (2600 ATK) attacks 5013 (2300 ATK); the engine names the card whose
    effect keeps 5013 on the field (HINT_CARD before MSG_BATTLE, its destroyed flag 0): the
    damage calculation cites it, and the battle damage still applies."""
    mine, theirs = 5013, THEIRS
    stream = opening() + summon(mine, 0, 2) + to_battle()
    stream += packet(MSG_DAMAGE_STEP_START, b"") + packet(MSG_HINT, struct.pack("<BBQ", 10, 0, mine))
    stream += packet(MSG_BATTLE, loc(1, LOCATION_MZONE, 1, 0x1) + struct.pack("<iiB", atk(theirs), 1000, 0)
                     + loc(0, LOCATION_MZONE, 2, 0x1) + struct.pack("<iiB", atk(mine), 1000, 0))
    stream += packet(MSG_DAMAGE, struct.pack("<BI", 0, 300)) + packet(MSG_DAMAGE_STEP_END, b"")
    stream += monsters(0, z2=(mine, 0x1)) + monsters(1, z1=(theirs, 0x1))
    result, agreement, report = imported(duel(stream))
    calc = next(e for e in result.events if e.kind == "damage_calculated")
    assert calc.destroyed == () and calc.damage == (300, 0) and calc.cite.card == "p0.m39"
    assert report.violations == [] and [o.rule for o in report.overrides] == ["DMG-01"]
    assert [s.lp for s in report.state.sides] == [7700, 8000] and agreement.ok


def test_a_damage_calculation_the_engine_makes_after_the_attacker_left_is_not_a_violation():
    """BATTLE-06, GEN-01: 6011 attacks 5013; in the Damage Step 6011 is sent to the GY by rule
    (Mutant Mindmaster's borrowed attacker), yet the engine's MSG_BATTLE names it there and 5013
    is destroyed by battle. Our rules have no damage calculation without the attacker: none is
    written (an import note says why), the destruction is cited, and no violation is left."""
    mine, theirs = 5013, THEIRS
    stream = opening() + summon(mine, 0, 2) + to_battle() + packet(MSG_DAMAGE_STEP_START, b"")
    stream += move(theirs, (1, LOCATION_MZONE, 1, 0x1), (1, LOCATION_GRAVE, 0, 0x5), 0x400)
    stream += packet(MSG_BATTLE, loc(1, LOCATION_GRAVE, 0, 0x5) + struct.pack("<iiB", atk(theirs), 1000, 0)
                     + loc(0, LOCATION_MZONE, 2, 0x1) + struct.pack("<iiB", atk(mine), 1000, 1))
    stream += move(mine, (0, LOCATION_MZONE, 2, 0x1), (0, LOCATION_GRAVE, 0, 0x5), 0x21)
    stream += packet(MSG_DAMAGE_STEP_END, b"") + monsters(0) + monsters(1)
    result, agreement, report = imported(duel(stream))
    assert "damage_calculated" not in [e.kind for e in result.events]
    assert any("attacker" in n and "no longer on the field" in n for n in result.notes)
    assert report.violations == [] and report.state.cards["p0.m39"].zone == "gy" and agreement.ok


# -- the command line -----------------------------------------------------------------------------

def test_import_reports_the_engine_agreement_per_file_and_in_all(tmp_path):
    from click.testing import CliRunner
    stream = opening() + summon(5013, 0, 2) + monsters(0, z2=(5013, 0x1))
    (tmp_path / "good.yrpX").write_bytes(duel(stream))
    (tmp_path / "bad.yrpX").write_bytes(duel(stream + monsters(0, z3=(5013, 0x1))))  # not what happened
    runner = CliRunner()
    result = runner.invoke(cli, ["import", str(tmp_path), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    good = next(line for line in result.output.splitlines() if line.startswith("good.yrpX"))
    assert "engine ok 100.000%" in good
    bad = result.output.split("bad.yrpX", 1)[1]
    assert "engine DIFFERS" in bad and "first divergence from the engine: packet" in bad
    assert "player 0's mzone 2: engine empty, ours 5013 attack" in bad
    assert "board agrees with the engine everywhere: 1/2 files" in result.output
    result = runner.invoke(cli, ["import", str(tmp_path / "bad.yrpX"), "-o", str(tmp_path / "one.ygr"), "--json"])
    [row] = json.loads(result.stdout)
    engine = row["engine"]
    assert engine["zones"] > engine["zones_agreeing"] > 0 and engine["packets"] == 6
    assert engine["first_divergence"]["zone"] == "mzone 2" and engine["first_divergence"]["turn"] == 1


# -- the real corpus ------------------------------------------------------------------------------

def test_real_replays_agree_with_the_engine_at_every_state_packet():
    """Every importable replay in ../shared/real-replays/edopro: the board agrees with EDOPro's
    state packets at every one of them, no violation, final LP and winner as the replay says."""
    folder = shared_path("real-replays", "edopro")
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in (".yrpx", ".yrp"))
    checks, problems = [], []
    for path in files:
        try:
            result = import_yrpx(path)
        except YrpxError as err:
            assert "cannot import" in err.detail, err
            continue
        agreement, report = engine_check.check(result)
        checks.append(agreement)
        state = report.state
        lp_ok = tuple(side.lp for side in state.sides) == result.expected.lp
        winner_ok = state.winner == result.expected.winner and state.ended == (result.expected.reason is not None)
        if not (agreement.ok and lp_ok and winner_ok and not report.violations):
            problems.append(f"{path.name}: {agreement}; LP {lp_ok}; winner {winner_ok}; "
                            f"violations {[(v.rule, v.message) for v in report.violations[:3]]}")
    total = engine_check.summary(checks)
    print(f"\n{total['files_agreeing']}/{total['files']} files agree with the engine everywhere; "
          f"{total['zones_agreeing']}/{total['zones']} zones")
    assert len(checks) >= 0.95 * len(files) and total["zones"] > 100 * len(checks)
    assert problems == []


def items(data: bytes, pos: int):
    """A query walked independently of the decoder: (flag, value size) per item; the position
    after it comes last. None stands for an empty slot."""
    out = []
    while True:
        size = struct.unpack_from("<H", data, pos)[0]
        pos += 2
        if size == 0:
            return None, pos
        flag = struct.unpack_from("<I", data, pos)[0]
        out.append((flag, size - 4))
        pos += size
        if flag == QUERY_END:
            return out, pos


def test_every_state_packet_of_every_core_fits_the_query_layout_exactly():
    """One real replay of each core version present (8, 9, 10, 11): every MSG_UPDATE_DATA holds
    queries (``u16 size, u32 flag, value`` items up to QUERY_END, or ``u16 0``) that end exactly
    where its size says, every MSG_UPDATE_CARD one query that ends with the packet; the race item
    is 4 bytes before core 10 and 8 from it; and the decoder reads the same slots."""
    folder = shared_path("real-replays", "edopro")
    by_core = {}
    for path in sorted(folder.glob("*.yrpX")):
        replay_ = read_yrpx(path)
        by_core.setdefault(replay_.core_version[0], replay_)
    assert set(by_core) >= {8, 9, 10, 11}
    for core, replay_ in by_core.items():
        race_sizes = set()
        for p in replay_.packets:
            if p.id not in (MSG_UPDATE_DATA, MSG_UPDATE_CARD):
                continue
            whole = p.id == MSG_UPDATE_DATA
            pos, end = (6, 6 + struct.unpack_from("<I", p.payload, 2)[0]) if whole else (3, len(p.payload))
            assert end == len(p.payload)
            slots = []
            while pos < end:
                found, pos = items(p.payload, pos)
                slots.append(found)
                if not whole:
                    break
            assert pos == end, (core, p.offset)
            race_sizes |= {n for slot in slots if slot for flag, n in slot if flag == QUERY_RACE}
            assert len(card_slots(p)[3]) == len(slots)
        assert race_sizes == ({4} if core < 10 else {8}), (core, race_sizes)


def test_replay_builder_still_imports():
    """The builders above write what the decoder reads (a guard for the tests themselves)."""
    assert import_yrpx(replay()).expected.winner == 1


def test_an_attack_an_effect_moves_to_another_target_is_cited():
    """BATTLE-06, GEN-01: a second MSG_ATTACK of the same attacker while the opponent's monsters
    are as they were is no replay: an effect moved the attack, and the retarget cites it."""
    stream = opening() + summon(5013, 0, 2)
    stream += move(5011, (0, LOCATION_HAND, 3, 0xA), (0, LOCATION_MZONE, 1, 0x1), 0x800)
    stream += packet(MSG_SPSUMMONING, struct.pack("<I", 5011) + loc(0, LOCATION_MZONE, 1, 0x1)) + packet(MSG_SPSUMMONED, b"")
    stream += to_battle() + packet(MSG_ATTACK, loc(1, LOCATION_MZONE, 1, 0x1) + loc(0, LOCATION_MZONE, 1, 0x1))
    result = import_yrpx(duel(stream))
    retarget = next(e for e in result.events if e.kind == "attack_retargeted")
    assert retarget.target == "p0.m35" and retarget.cite is not None
    report = audit(result.events, result.cards)
    assert report.violations == [] and [o.rule for o in report.overrides] == ["BATTLE-06"]


# -- a Normal Summon or Set an effect makes (GEN-01) -------------------------------------------------

MINE_AT = (0, LOCATION_MZONE, 0, 0x1)        # 5013, Normal Summoned to zone 0


def link(n: int, at: tuple = MINE_AT, code: int = 5013) -> bytes:
    """Chain Link ``n`` of the card at ``at``, activated and chained."""
    return (packet(MSG_CHAINING, struct.pack("<I", code) + loc(*at) + struct.pack("<BBIQI", *at[:3], 0, n))
            + packet(MSG_CHAINED, bytes([n])))


MINE = {"z0": (5013, 0x1)}


def fields(mine: dict) -> bytes:
    """Both Monster Zones (player 0's ``mine``: ``z1=(code, position)`` ...) and both Spell & Trap Zones."""
    return monsters(0, **mine) + monsters(1) + zone(0, LOCATION_SZONE, [None] * 8) + zone(1, LOCATION_SZONE, [None] * 8)


def solved(n: int, mine: dict = MINE) -> bytes:
    """Link ``n`` resolving with no visible outcome, and the server's four field refreshes after
    its MSG_CHAIN_SOLVED (AfterParsing)."""
    return packet(MSG_CHAIN_SOLVING, bytes([n])) + packet(MSG_CHAIN_SOLVED, bytes([n])) + fields(mine)


def field_and_hands(hand0, mine: dict = MINE, hand1=HAND1) -> bytes:
    """Both fields and both hands, as the server refreshes them before an idle prompt."""
    return (fields(mine) + zone(0, LOCATION_HAND, [(c, 0xA) for c in hand0])
            + zone(1, LOCATION_HAND, [(c, 0xA) for c in hand1]))


def chain_ended(hand0, mine: dict = MINE, hand1=HAND1) -> bytes:
    """MSG_CHAIN_END and its eight refreshes: both Decks (player 0 has drawn 5, player 1 its
    hand), then both fields and hands."""
    decks = (zone(0, LOCATION_DECK, [(c, 0xA) for c in D0[:-5]])
             + zone(1, LOCATION_DECK, [(c, 0xA) for c in D1[:-len(hand1)]]))
    return packet(MSG_CHAIN_END, b"") + decks + field_and_hands(hand0, mine, hand1)


def monster_set(code: int, hand_seq: int, zone_: int) -> bytes:
    at = (0, LOCATION_MZONE, zone_, 0x8)
    return move(code, (0, LOCATION_HAND, hand_seq, 0xA), at, 0) + packet(MSG_SET, struct.pack("<I", code) + loc(*at))


def test_a_normal_summon_right_after_a_link_resolves_cites_it_while_the_chain_is_open():
    """SUM-01, GEN-01: Ultimate Offering's ``Duel.SummonOrSet`` is processed once its link has
    resolved: link 2 of 5013 resolves and 5011 is Normal Summoned right after its
    MSG_CHAIN_SOLVED, link 1 still open and the turn's Normal Summon used. Both exceptions cite
    link 2's card (they were violations with "the stream names no card")."""
    stream = opening() + summon(5013, 0, 0) + monsters(0, z0=(5013, 0x1)) + link(1) + link(2) + solved(2)
    both = {"z0": (5013, 0x1), "z1": (5011, 0x1)}
    stream += summon(5011, 3, 1) + solved(1, both) + chain_ended([5012] * 3, both)
    result, agreement, report = imported(duel(stream))
    _first, second = (e for e in result.events if e.kind == "normal_summoned")
    assert second.cite is not None and second.cite.card == "p0.m39"
    assert report.violations == [], report.violations
    assert [o.rule for o in report.overrides] == ["SUM-01", "SUM-01"] and agreement.ok, agreement


def test_a_set_right_after_a_one_link_chain_ends_cites_the_link():
    """TURN-06, GEN-01: a chain of one link in the opponent's Battle Phase: the Set its effect
    makes comes after MSG_CHAIN_END and its own eight refreshes, with no idle prompt's refreshes
    before it: cited (it was a violation, "it is not their turn")."""
    stream = opening() + summon(5013, 0, 0) + monsters(0, z0=(5013, 0x1))
    stream += packet(MSG_NEW_PHASE, struct.pack("<H", 0x200)) + packet(MSG_NEW_TURN, bytes([1]))
    stream += packet(MSG_NEW_PHASE, struct.pack("<H", 0x1)) + draw(1, [THEIRS])
    for phase in (0x2, 0x4, 0x8):
        stream += packet(MSG_NEW_PHASE, struct.pack("<H", phase))
    stream += link(1) + solved(1) + chain_ended([5012, 5012, 5012, 5011], hand1=HAND1 + [THEIRS])
    stream += monster_set(5011, 3, 1)
    result, agreement, report = imported(duel(stream))
    [monster_set_] = [e for e in result.events if e.kind == "monster_set"]
    assert monster_set_.cite is not None and monster_set_.cite.card == "p0.m39"
    assert report.violations == [] and [o.rule for o in report.overrides] == ["TURN-06"] and agreement.ok


def test_the_players_own_normal_summon_after_a_chain_cites_nothing():
    """SUM-01: after the chain ends the server refreshes both fields and hands once more before
    the idle prompt (``answers_idle_command``): a summon then is the player's own choice. 5013
    activated its effect from the hand, the chain ended, and the player Normal Summons it: no
    cite, no exception."""
    at = (0, LOCATION_HAND, 0, 0xA)
    stream = opening() + link(1, at) + solved(1, {}) + chain_ended(HAND0, {})
    stream += field_and_hands(HAND0, {}) + summon(5013, 0, 0)
    result, agreement, report = imported(duel(stream))
    [summoned] = [e for e in result.events if e.kind == "normal_summoned"]
    assert summoned.cite is None
    assert report.violations == [] and report.overrides == [] and agreement.ok, report.violations


# -- battle damage an effect changed (GEN-01) ----------------------------------------------------------

GUARD = 5011                                 # player 0's hand card whose effect stops the damage (hand 4)
THEIRS_AT = (1, LOCATION_MZONE, 1, 0x1)


def their_direct_attack(before: bytes = b"", in_damage_step: bytes = b"", main1: bytes = b"") -> bytes:
    """Turn 2: player 1, after ``main1``, Normal Summons 6011 (2600 ATK), enters the Battle Phase
    (``before``: what happens at its start), attacks directly and, ``in_damage_step`` before
    damage calculation, MSG_BATTLE follows with no battle damage."""
    out = packet(MSG_NEW_PHASE, struct.pack("<H", 0x200)) + packet(MSG_NEW_TURN, bytes([1]))
    out += packet(MSG_NEW_PHASE, struct.pack("<H", 0x1)) + draw(1, [THEIRS])
    for phase in (0x2, 0x4):
        out += packet(MSG_NEW_PHASE, struct.pack("<H", phase))
    out += main1 + (move(THEIRS, (1, LOCATION_HAND, 5, 0xA), THEIRS_AT, 0)
                    + packet(MSG_SUMMONING, struct.pack("<I", THEIRS) + loc(*THEIRS_AT)) + packet(MSG_SUMMONED, b""))
    out += packet(MSG_NEW_PHASE, struct.pack("<H", 0x8)) + before
    out += packet(MSG_ATTACK, loc(*THEIRS_AT) + loc(0, 0, 0)) + packet(MSG_DAMAGE_STEP_START, b"") + in_damage_step
    out += packet(MSG_BATTLE, loc(*THEIRS_AT) + struct.pack("<iiB", atk(THEIRS), 1000, 0) + loc(0, 0, 0)
                  + struct.pack("<iiB", 0, 0, 0))
    return out + packet(MSG_DAMAGE_STEP_END, b"")


def hand_link(code: int, at: tuple, during: bytes = b"") -> bytes:
    """The effect of the hand card ``code`` at ``at``, activated as chain link 1 and resolved."""
    return (packet(MSG_CHAINING, struct.pack("<I", code) + loc(*at) + struct.pack("<BBIQI", *at[:3], 0, 1))
            + during + packet(MSG_CHAINED, bytes([1])) + packet(MSG_CHAIN_SOLVING, bytes([1]))
            + packet(MSG_CHAIN_SOLVED, bytes([1])) + packet(MSG_CHAIN_END, b""))


def guard_link(cost: bool) -> bytes:
    """GUARD's effect activated from the hand: discarded as its cost (Kuriboh) or kept in the
    hand (an effect that lasts the turn, as Waboku's does)."""
    at = (0, LOCATION_HAND, 4, 0xA)
    return hand_link(GUARD, at, move(GUARD, at, (0, LOCATION_GRAVE, 0, 0x5), 0x4080) if cost else b"")


@pytest.mark.parametrize("when", ["damage step", "battle phase start"])
def test_battle_damage_an_effect_prevented_cites_the_link_that_resolved_before(when):
    """DMG-08, GEN-01: a direct attack of 2600 ATK deals no battle damage; the stream names no
    card, but player 0's GUARD resolved before damage calculation: in this attack's Damage Step
    (Kuriboh, discarded as its cost) or at the start of the Battle Phase (Waboku). The damage
    calculation cites it (it was a violation, "the stream names no card")."""
    stream = opening() + (their_direct_attack(in_damage_step=guard_link(cost=True)) if when == "damage step"
                          else their_direct_attack(before=guard_link(cost=False)))
    result, agreement, report = imported(duel(stream))
    [calc] = [e for e in result.events if e.kind == "damage_calculated"]
    assert calc.damage == (0, 0) and calc.cite is not None and calc.cite.card == "p0.m35"
    assert report.violations == [] and [o.rule for o in report.overrides] == ["DMG-08"] and agreement.ok
    assert [s.lp for s in report.state.sides] == [8000, 8000]


def test_battle_damage_changed_with_only_the_attackers_earlier_link_is_unexplained():
    """DMG-08: the only link this turn was the attacking player's (a hand card's effect in Main
    Phase 1): an effect of theirs is no evidence for their opponent taking less damage, so the
    stream cites no card (the import says so) and the attacker is a Normal Monster: the engine's
    damage stands as an override marked unexplained, not a violation."""
    main1 = hand_link(HAND1[0], (1, LOCATION_HAND, 0, 0xA))
    result, agreement, report = imported(duel(opening() + their_direct_attack(main1=main1)))
    [calc] = [e for e in result.events if e.kind == "damage_calculated"]
    assert calc.cite is not None and calc.cite.unexplained
    assert report.violations == [] and [o.rule for o in report.overrides] == ["DMG-08"]
    assert any("the stream names no card" in n for n in result.notes)


def test_battle_damage_a_lasting_effect_on_the_player_prevents_cites_its_card():
    """DMG-08, GEN-01: the attacking player's own hand card resolved in Main Phase 1 and put a
    client hint on player 0 (MSG_PLAYER_HINT PHINT_DESC_ADD: Crush Card Virus, "your opponent
    takes no damage until the end of the next turn"); the direct attack then deals none. The
    damage calculation cites that card, not unexplained, and no violation is left."""
    at = (1, LOCATION_HAND, 0, 0xA)
    main1 = (packet(MSG_CHAINING, struct.pack("<I", HAND1[0]) + loc(*at) + struct.pack("<BBIQI", *at[:3], 0, 1))
             + packet(MSG_CHAINED, bytes([1])) + packet(MSG_CHAIN_SOLVING, bytes([1]))
             + packet(MSG_PLAYER_HINT, struct.pack("<BBQ", 0, PHINT_DESC_ADD, HAND1[0] << 20 | 1))
             + packet(MSG_CHAIN_SOLVED, bytes([1])) + packet(MSG_CHAIN_END, b""))
    result, agreement, report = imported(duel(opening() + their_direct_attack(main1=main1)))
    [calc] = [e for e in result.events if e.kind == "damage_calculated"]
    assert calc.damage == (0, 0) and calc.cite is not None and not calc.cite.unexplained
    assert calc.cite.card == "p1.m39" and "lasting effect" in calc.cite.effect
    assert report.violations == [] and [o.rule for o in report.overrides] == ["DMG-08"] and agreement.ok


@pytest.mark.parametrize("when", ["in-the-draw-phase", "earlier", "never"])
def test_a_draw_phase_left_without_the_normal_draw(when):
    """TURN-02, GEN-01: turn 2, player 1 leaves the Draw Phase with no MSG_DRAW. When their own
    link resolved in it before the draw (Magical Blast: "you can give up your normal draw this
    turn, and if you do, add this card to your hand"), the Standby Phase cites that card; when
    one resolved earlier (a lasting "no draw"), it is cited as for a skipped Draw Phase,
    inferred; with nothing resolved, the engine's play stands as an unexplained override. The
    activation before the draw cites its own card (TURN-02: in the Draw Phase cards are activated
    after the draw, but for such a text), and that gives the draw up: the Standby Phase then cites
    nothing (judge16). Never a violation."""
    link = hand_link(HAND1[0], (1, LOCATION_HAND, 0, 0xA))
    stream = opening() + (link if when == "earlier" else b"") + packet(MSG_NEW_PHASE, struct.pack("<H", 0x200))
    stream += packet(MSG_NEW_TURN, bytes([1])) + packet(MSG_NEW_PHASE, struct.pack("<H", 0x1))
    stream += (link if when == "in-the-draw-phase" else b"") + packet(MSG_NEW_PHASE, struct.pack("<H", 0x2))
    result, agreement, report = imported(duel(stream))
    standby = [e for e in result.events if e.kind == "phase_entered" and e.phase == "standby"][-1]
    if when == "in-the-draw-phase":
        assert standby.cite is None
    else:
        assert standby.cite is not None and standby.cite.unexplained is (when == "never")
        assert (standby.cite.card == "p1.m39") is (when != "never")
        assert ("inferred" in standby.cite.effect) is (when != "never")
    assert report.violations == [] and [o.rule for o in report.overrides] == ["TURN-02"] and agreement.ok
    if when == "in-the-draw-phase":
        [activation] = [e for e in result.events if e.kind == "activated" and e.card == "p1.m39"][-1:]
        assert activation.cite.card == "p1.m39" and "before the draw" in activation.cite.effect


def test_a_draw_phase_draw_of_two_by_a_lasting_effect_is_the_normal_draw():
    """TURN-02, GEN-01: player 1's card resolved on turn 1 (a lasting "draw 2 in your Draw Phase");
    on turn 2 their Draw Phase draw, outside any chain, is 2 cards. It is the normal draw, citing
    that card: leaving the Draw Phase after it breaks nothing, and no violation is left."""
    stream = opening() + hand_link(HAND1[0], (1, LOCATION_HAND, 0, 0xA))
    stream += packet(MSG_NEW_PHASE, struct.pack("<H", 0x200)) + packet(MSG_NEW_TURN, bytes([1]))
    stream += packet(MSG_NEW_PHASE, struct.pack("<H", 0x1)) + draw(1, D1[::-1][5:7])
    stream += packet(MSG_NEW_PHASE, struct.pack("<H", 0x2))
    result, agreement, report = imported(duel(stream))
    drawn = [e for e in result.events if e.kind == "cards_drawn"][-1]
    assert drawn.count == 2 and drawn.cause is None and drawn.cite is not None and drawn.cite.card == "p1.m39"
    assert report.violations == [] and [o.rule for o in report.overrides] == ["TURN-02"] and agreement.ok


def test_a_normal_summon_in_the_battle_phase_right_after_a_spell_resolves_cites_it():
    """TURN-06, GEN-01: turn 3, in the Battle Phase, player 0's Spell resolves (Arrivalrivals:
    "immediately after this effect resolves, Normal Summon 1 monster"), goes to the GY, the chain
    ends and 5011 is Normal Summoned. The Spell's own move to the GY between its MSG_CHAIN_SOLVED
    and the summon still makes the summon its effect's: cited, never unexplained or a violation."""
    stream = opening() + packet(MSG_NEW_PHASE, struct.pack("<H", 0x200)) + packet(MSG_NEW_TURN, bytes([1]))
    stream += packet(MSG_NEW_PHASE, struct.pack("<H", 0x1)) + draw(1, [THEIRS])
    for phase in (0x2, 0x4, 0x200):
        stream += packet(MSG_NEW_PHASE, struct.pack("<H", phase))
    stream += packet(MSG_NEW_TURN, bytes([0])) + packet(MSG_NEW_PHASE, struct.pack("<H", 0x1)) + draw(0, [D0[::-1][5]])
    for phase in (0x2, 0x4, 0x8):
        stream += packet(MSG_NEW_PHASE, struct.pack("<H", phase))
    stream += spell_chain((0, LOCATION_SZONE, 1, 0x5), 1, 0) + summon(5011, 3, 2)
    result, agreement, report = imported(duel(stream))
    spell = next(e.card for e in result.events if e.kind == "activated")
    summoned = next(e for e in result.events if e.kind == "normal_summoned")
    assert summoned.cite is not None and summoned.cite.card == spell and not summoned.cite.unexplained
    # (5012 is a Normal Spell here: its activation in the Battle Phase is SPELL-02's, cited apart)
    [turn_06] = [o for o in report.overrides if o.rule == "TURN-06"]
    assert turn_06.cite == summoned.cite and report.violations == [] and agreement.ok


def test_the_import_summary_and_audit_count_unexplained_overrides(tmp_path):
    """GEN-01: the damage above, imported through the command line: no violation, one override
    counted as unexplained in the import summary, its JSON row and the audit of the file written."""
    from click.testing import CliRunner
    main1 = hand_link(HAND1[0], (1, LOCATION_HAND, 0, 0xA))
    (tmp_path / "d.yrpX").write_bytes(duel(opening() + their_direct_attack(main1=main1)))
    runner = CliRunner()
    done = runner.invoke(cli, ["import", str(tmp_path), "-o", str(tmp_path / "out")])
    assert done.exit_code == 0, done.output
    assert "no violation  overrides 1 (1 unexplained)" in done.output
    assert "overrides (rules a cited card set aside): 1: explained 0, unexplained 1" in done.output
    [row] = json.loads(runner.invoke(cli, ["import", str(tmp_path / "d.yrpX"), "-o", str(tmp_path / "d.ygr"),
                                           "--json"]).stdout)
    assert (row["overrides"], row["unexplained"], row["violations"]) == (1, 1, [])
    audited = runner.invoke(cli, ["audit", str(tmp_path / "d.ygr")])
    assert "0 violation(s), 1 override(s) (1 unexplained, for review)" in audited.output
    checked = json.loads(runner.invoke(cli, ["check", str(tmp_path / "d.ygr"), "--json"]).stdout)
    assert [o["unexplained"] for o in checked["overrides"]] == [True]
