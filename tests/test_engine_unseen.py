"""Messages the real corpus never holds, imported and checked against the engine's state packets.

The 100 real replays have no Flip Summon, no coin toss, no shuffled Set cards, no reversed Deck
and no Graveyard swapped with a Deck; a Goat-format duel (Book of Moon, Scapegoat, Change of
Heart, Delinquent Duo, Time Wizard-like coins, flip monsters) has them all. Each test here writes
a small duel message by message as ygopro-core writes it (``operations.cpp``, ``field.cpp``,
``processor.cpp``, ``libduel.cpp``), with the state packets EDOPro's server records around each
message (``gframe/generic_duel.cpp`` BeforeParsing / AfterParsing: a MSG_MOVE's card is
refreshed after it, a Flip Summon's card *before* MSG_FLIPSUMMONING, MSG_REVERSE_DECK's two Decks
and MSG_SWAP_GRAVE_DECK's Graveyard after them), and asserts the events we import, no violation
and our board agreeing with every state packet (``engine_check``).

The cards are this file's own (their types come from the state packets): a Flip monster, two
Quick-Play Spells, four Normal Spells, a token, two Fusion monsters, two Pendulum Scales and a
monster that summons itself; the rest Normal monsters.
"""
from __future__ import annotations

import struct

from test_yrpx import FLAGS, MR5, draw, loc, packet, teams, wrap

from ygoreplay.yrpx import engine_check
from ygoreplay.yrpx import (
    LOCATION_DECK, LOCATION_EXTRA, LOCATION_GRAVE, LOCATION_HAND, LOCATION_MZONE, LOCATION_SZONE,
    MSG_ATTACK, MSG_BATTLE, MSG_BECOME_TARGET, MSG_CARD_SELECTED, MSG_CHAIN_END, MSG_CHAIN_SOLVED, MSG_CHAIN_SOLVING,
    MSG_CHAINED, MSG_CHAINING, MSG_CONFIRM_EXTRATOP, MSG_DAMAGE, MSG_DAMAGE_STEP_END, MSG_DAMAGE_STEP_START,
    MSG_DECK_TOP, MSG_FLIPSUMMONED, MSG_FLIPSUMMONING, MSG_MOVE, MSG_NEW_PHASE, MSG_NEW_TURN,
    MSG_PAY_LPCOST, MSG_POS_CHANGE, MSG_RANDOM_SELECTED, MSG_REVERSE_DECK, MSG_SET, MSG_SHUFFLE_DECK,
    MSG_SHUFFLE_EXTRA, MSG_SHUFFLE_SET_CARD, MSG_SPSUMMONED, MSG_SPSUMMONING, MSG_START, MSG_SUMMONED,
    MSG_SUMMONING, MSG_SWAP_GRAVE_DECK, MSG_TOSS_COIN, MSG_TOSS_DICE, MSG_UPDATE_CARD, MSG_UPDATE_DATA,
    MSG_WIN, OLD_REPLAY_MODE, QUERY_ATTACK, QUERY_BASE_ATTACK, QUERY_BASE_DEFENSE, QUERY_CODE,
    QUERY_DEFENSE, QUERY_END, QUERY_LEVEL, QUERY_LSCALE, QUERY_POSITION, QUERY_RACE, QUERY_RSCALE, QUERY_TYPE,
    REASON_DESTROY,
    REASON_DISCARD, REASON_EFFECT, REASON_RULE, REASON_SPSUMMON, REPLAY_64BIT_DUELFLAG, REPLAY_LUA64,
    REPLAY_NEWREPLAY, YRP1, YRPX, import_yrpx)

DECK, HAND, MZONE, SZONE, GRAVE, EXTRA = (LOCATION_DECK, LOCATION_HAND, LOCATION_MZONE, LOCATION_SZONE,
                                          LOCATION_GRAVE, LOCATION_EXTRA)
UP_ATK, DOWN_ATK, UP_DEF, DOWN_DEF, UP, DOWN = 0x1, 0x2, 0x4, 0x8, 0x5, 0xA

NORMAL, FLIP, SPELL, QUICK, TOKEN, FUSION = 0x11, 0x200021, 0x2, 0x10002, 0x4011, 0x41
FLIPPER, MOON, GOAT, HEART, DUO, COIN = 2001, 2002, 2003, 2004, 2005, 2006
SHEEP, FUSE1, FUSE2 = 2100, 2201, 2202
#: passcode -> (type, Level, ATK, DEF); the rest are Level 4 Normal monsters
KINDS = {FLIPPER: (FLIP, 3, 300, 2300), MOON: (QUICK, 0, 0, 0), GOAT: (QUICK, 0, 0, 0),
         HEART: (SPELL, 0, 0, 0), DUO: (SPELL, 0, 0, 0), COIN: (SPELL, 0, 0, 0), SHEEP: (TOKEN, 1, 0, 0),
         FUSE1: (FUSION, 7, 2500, 2000), FUSE2: (FUSION, 8, 2800, 2500)}
# Pendulum Scales 1 and 8, a monster that summons itself from the hand (cdb SPSUMMON bit), Levels 4, 6, 8
PENDULUM, SELF_SUMMONER = 0x1000011, 0x2000021
SCALE1, SCALE8, THRASHER, PEND4, PEND6, BIG8 = 2301, 2302, 2303, 2304, 2305, 2306
KINDS |= {SCALE1: (PENDULUM, 3, 1000, 1000), SCALE8: (PENDULUM, 5, 1500, 1000), THRASHER: (SELF_SUMMONER, 4, 2100, 0),
          PEND6: (NORMAL, 6, 2000, 1000), BIG8: (NORMAL, 8, 2500, 2000)}
SCALES = {SCALE1: 1, SCALE8: 8}

D0 = [1000 + i // 3 for i in range(34)] + [COIN, DUO, HEART, GOAT, MOON, FLIPPER]   # bottom first
D1 = [3000 + i // 3 for i in range(40)]
HAND0, HAND1 = D0[::-1][:5], D1[::-1][:5]   # FLIPPER MOON GOAT HEART DUO / 3013 3012 3012 3012 3011
EXTRA0 = (FUSE1, FUSE2)


def kind(code: int) -> tuple[int, int, int, int]:
    return KINDS.get(code, (NORMAL, 4, 1000 + 100 * (code % 100), 1000))


def query(code: int, position: int, scale: int | None = None) -> bytes:
    """One card's query as the server writes it: ``u16 size, u32 flag, value`` items, QUERY_END;
    a Pendulum's Scales are its printed one unless ``scale`` says what an effect made it."""
    type_, level, attack, defense = kind(code)
    items = [(QUERY_CODE, code), (QUERY_POSITION, position), (QUERY_TYPE, type_), (QUERY_LEVEL, level),
             (QUERY_ATTACK, attack), (QUERY_DEFENSE, defense), (QUERY_BASE_ATTACK, attack),
             (QUERY_BASE_DEFENSE, defense), (QUERY_RACE, 1)]
    if code in SCALES:
        items += [(QUERY_LSCALE, SCALES[code] if scale is None else scale),
                  (QUERY_RSCALE, SCALES[code] if scale is None else scale)]
    return b"".join(struct.pack("<HII", 8, f, v) for f, v in items) + struct.pack("<HI", 4, QUERY_END)


def zone(player: int, location: int, slots) -> bytes:
    """MSG_UPDATE_DATA: every slot of a location, (passcode, position) or None (empty)."""
    body = b"".join(struct.pack("<H", 0) if s is None else query(*s) for s in slots)
    return packet(MSG_UPDATE_DATA, struct.pack("<BBI", player, location, len(body)) + body)


def one(player: int, location: int, seq: int, code: int, position: int = UP) -> bytes:
    """MSG_UPDATE_CARD: the server's RefreshSingle of one card."""
    return packet(MSG_UPDATE_CARD, struct.pack("<BBB", player, location, seq) + query(code, position))


def monsters(player: int, **at) -> bytes:
    return zone(player, MZONE, [at.get(f"z{i}") for i in range(7)])


def spells(player: int, **at) -> bytes:
    return zone(player, SZONE, [at.get(f"s{i}") for i in range(8)])


def deck(player: int, codes) -> bytes:
    """The whole Deck, bottom first, as the engine lists it."""
    return zone(player, DECK, [(c, DOWN) for c in codes])


def move(code: int, old: tuple, new: tuple, reason: int = REASON_EFFECT) -> bytes:
    """MSG_MOVE, and the server's refresh of the card where it arrives (not in an Xyz pile)."""
    out = packet(MSG_MOVE, struct.pack("<I", code) + loc(*old) + loc(*new) + struct.pack("<I", reason))
    if new[1] and (new[1] != old[1] or new[0] != old[0]):
        out += one(new[0], new[1], new[2], code, new[3])
    return out


def pos_change(code: int, at: tuple, old: int, new: int) -> bytes:
    """MSG_POS_CHANGE (u8 controller, location, sequence, old and new position); the server
    refreshes the card after it when it turned face-up."""
    out = packet(MSG_POS_CHANGE, struct.pack("<IBBBBB", code, *at, old, new))
    return out + (one(*at, code, new) if old & DOWN and new & UP else b"")


def phase(*phases: int) -> bytes:
    return b"".join(packet(MSG_NEW_PHASE, struct.pack("<H", p)) for p in phases)


def opening(extra0=(), d0=D0) -> bytes:
    """MSG_START, both Decks and Extra Decks listed, the opening hands, turn 1 to Main Phase 1."""
    out = packet(MSG_START, struct.pack("<BII4H", 0, 8000, 8000, 40, len(extra0), 40, 0))
    out += deck(0, d0) + deck(1, D1)
    out += zone(0, EXTRA, [(c, DOWN) for c in extra0]) + zone(1, EXTRA, [])
    return out + draw(0, d0[::-1][:5]) + draw(1, HAND1) + packet(MSG_NEW_TURN, bytes([0])) + phase(0x1, 0x2, 0x4)


def next_turn(player: int, drawn: int) -> bytes:
    """The End Phase, the next turn's Draw Phase with its draw, to Main Phase 1."""
    return (phase(0x200) + packet(MSG_NEW_TURN, bytes([player])) + phase(0x1) + draw(player, [drawn])
            + phase(0x2, 0x4))


def summoned(player: int, code: int, hand_seq: int, z: int) -> bytes:
    """A Normal Summon in Attack Position."""
    at = (player, MZONE, z, UP_ATK)
    return (move(code, (player, HAND, hand_seq, DOWN), at, 0) + packet(MSG_SUMMONING, struct.pack("<I", code) + loc(*at))
            + packet(MSG_SUMMONED, b""))


def set_card(player: int, code: int, hand_seq: int, location: int, z: int) -> bytes:
    """A monster or a Spell Set from the hand: MSG_MOVE (and the card's refresh), then MSG_SET."""
    at = (player, location, z, DOWN_DEF if location == MZONE else DOWN)
    return move(code, (player, HAND, hand_seq, DOWN), at, 0) + packet(MSG_SET, struct.pack("<I", code) + loc(*at))


def chain(code: int, at: tuple, during: bytes = b"", resolving: bytes = b"", after: bytes = b"",
          board: bytes = b"") -> bytes:
    """Chain Link 1 of the card at ``at``: activated (``during``: costs, targets), resolved
    (``resolving``), then ``after`` (a Spell leaving for the GY) and the chain's end; ``board``
    is the four field refreshes the server writes after MSG_CHAINED and MSG_CHAIN_SOLVED."""
    return (packet(MSG_CHAINING, struct.pack("<I", code) + loc(*at) + struct.pack("<BBIQI", *at[:3], 0, 1))
            + during + packet(MSG_CHAINED, bytes([1])) + board + packet(MSG_CHAIN_SOLVING, bytes([1]))
            + resolving + packet(MSG_CHAIN_SOLVED, bytes([1])) + board + after + packet(MSG_CHAIN_END, b""))


def spell(code: int, hand_seq: int, s: int, gy: int, resolving: bytes = b"", during: bytes = b"",
          player: int = 0) -> bytes:
    """A Spell activated from the hand into S/T zone ``s``, resolved, sent to GY place ``gy``."""
    at = (player, SZONE, s, UP)
    return move(code, (player, HAND, hand_seq, DOWN), at, 0) + chain(
        code, at, during, resolving, move(code, at, (player, GRAVE, gy, UP), REASON_RULE))


def yrp1(extra0=(), d0=D0) -> bytes:
    flags = REPLAY_LUA64 | REPLAY_NEWREPLAY | REPLAY_64BIT_DUELFLAG
    body = teams(flags) + struct.pack("<IIIQ", 8000, 5, 1, MR5)
    for main, extra in ((d0, tuple(extra0)), (D1, ())):
        body += struct.pack(f"<I{len(main)}I", len(main), *main) + struct.pack(f"<I{len(extra)}I", len(extra), *extra)
    return wrap(YRP1, flags, body + struct.pack("<I", 0) + bytes([1, 0]))


def imported(stream: bytes, extra0=(), win: bytes = bytes([1, 0]), d0=D0):
    """The stream as a replay (player 1 wins at its end: MSG_WIN ``win``), imported and checked
    against the engine."""
    body = teams(FLAGS) + struct.pack("<Q", MR5) + stream + packet(MSG_WIN, win)
    result = import_yrpx(wrap(YRPX, FLAGS, body + packet(OLD_REPLAY_MODE, yrp1(extra0, d0))))
    agreement, report = engine_check.check(result)
    return result, agreement, report


def kinds(result, kind_: str) -> list:
    return [e for e in result.events if e.kind == kind_]


P0_FLIPPER, P0_MOON, P0_GOAT, P0_HEART, P0_DUO, P0_COIN = (f"p0.m{i}" for i in (39, 38, 37, 36, 35, 34))
THREE = next_turn(1, D1[::-1][5]) + next_turn(0, COIN)          # to player 0's turn 3 (COIN drawn)


# -- 1. Flip Summons, flips, Sets ----------------------------------------------------------------

def flip_summon(code: int, z: int) -> bytes:
    """A Flip Summon as recorded: the server refreshes the card *before* MSG_FLIPSUMMONING (the
    engine has already turned it face-up), then MSG_FLIPSUMMONED and its four field refreshes."""
    at = (0, MZONE, z, UP_ATK)
    return (one(0, MZONE, z, code, UP_ATK) + packet(MSG_FLIPSUMMONING, struct.pack("<I", code) + loc(*at))
            + packet(MSG_FLIPSUMMONED, b"") + monsters(0, **{f"z{z}": (code, UP_ATK)}) + monsters(1)
            + spells(0) + spells(1))


def test_a_monster_set_then_flip_summoned_then_its_flip_effect():
    """SUM-02, SUM-10: FLIPPER Set on turn 1 (MSG_MOVE, its refresh, MSG_SET), Flip Summoned on
    turn 3 (refreshed face-up before the message: the summon begins there); its FLIP effect is a
    ``flip`` activation. MSG_FLIPSUMMONED ends the summon: an effect destroying it later is a
    destruction, not a negated summon."""
    stream = opening() + set_card(0, FLIPPER, 0, MZONE, 2) + monsters(0, z2=(FLIPPER, DOWN_DEF)) + THREE
    stream += flip_summon(FLIPPER, 2) + chain(FLIPPER, (0, MZONE, 2, UP_ATK))
    stream += spell(COIN, 4, 0, 1, resolving=packet(MSG_TOSS_COIN, bytes([0, 1, 1]))
                    + move(FLIPPER, (0, MZONE, 2, UP_ATK), (0, GRAVE, 0, UP), REASON_DESTROY | REASON_EFFECT))
    stream += monsters(0) + zone(0, GRAVE, [(FLIPPER, UP), (COIN, UP)])
    result, agreement, report = imported(stream)
    assert [(e.card, e.zone) for e in kinds(result, "monster_set")] == [(P0_FLIPPER, 2)]
    assert [e.card for e in kinds(result, "flip_summoned")] == [P0_FLIPPER]
    flip = next(e for e in kinds(result, "activated") if e.card == P0_FLIPPER)
    assert flip.effect_type == "flip"
    assert kinds(result, "summon_negated") == []
    gone = next(e for e in kinds(result, "card_moved") if e.card == P0_FLIPPER)
    assert (gone.reason, gone.cause) == ("destroyed", P0_COIN)
    assert report.violations == [], report.violations
    assert agreement.ok, agreement


def test_book_of_moon_turns_a_monster_face_down_and_an_attack_flips_it_up():
    """POS-04, SPELL-01: FLIPPER Normal Summoned face-up is turned face-down by MOON (a Quick-Play
    Spell; MSG_POS_CHANGE while it resolves, no refresh: it stays hidden); on turn 2 player 1's
    3013 attacks it, the engine flips it face-up in the Damage Step (MSG_POS_CHANGE, then its
    refresh) before damage calculation, and its FLIP effect activates after the battle."""
    at = (0, MZONE, 2, UP_ATK)
    stream = opening() + summoned(0, FLIPPER, 0, 2) + monsters(0, z2=(FLIPPER, UP_ATK)) + monsters(1)
    target = packet(MSG_BECOME_TARGET, struct.pack("<I", 1) + loc(*at))
    stream += spell(MOON, 0, 0, 0, during=target, resolving=pos_change(FLIPPER, at[:3], UP_ATK, DOWN_DEF))
    stream += monsters(0, z2=(FLIPPER, DOWN_DEF))
    stream += next_turn(1, D1[::-1][5]) + summoned(1, 3013, 0, 1) + phase(0x8)
    attacker, defender = (1, MZONE, 1, UP_ATK), (0, MZONE, 2, DOWN_DEF)
    stream += packet(MSG_ATTACK, loc(*attacker) + loc(*defender)) + packet(MSG_DAMAGE_STEP_START, b"")
    stream += monsters(0, z2=(FLIPPER, DOWN_DEF)) + monsters(1, z1=(3013, UP_ATK))
    stream += pos_change(FLIPPER, (0, MZONE, 2), DOWN_DEF, UP_DEF)
    stream += packet(MSG_BATTLE, loc(*attacker) + struct.pack("<iiB", 2300, 1000, 0)
                     + loc(0, MZONE, 2, UP_DEF) + struct.pack("<iiB", 300, 2300, 0))
    stream += packet(MSG_DAMAGE_STEP_END, b"") + monsters(0, z2=(FLIPPER, UP_DEF)) + monsters(1, z1=(3013, UP_ATK))
    stream += chain(FLIPPER, (0, MZONE, 2, UP_DEF)) + monsters(0, z2=(FLIPPER, UP_DEF))
    result, agreement, report = imported(stream)
    moon, flipped = kinds(result, "position_changed")
    assert (moon.card, moon.position, moon.cause) == (P0_FLIPPER, "set", P0_MOON)
    assert (flipped.card, flipped.position, flipped.cause) == (P0_FLIPPER, "defense", None)
    assert next(e for e in kinds(result, "activated") if e.card == P0_FLIPPER).effect_type == "flip"
    assert kinds(result, "damage_calculated")[0].destroyed == ()
    assert report.violations == [], report.violations
    assert agreement.ok, agreement


def shuffled_set_cards(seqs, after) -> bytes:
    """MSG_SHUFFLE_SET_CARD of player 0's S/T zones ``seqs`` (u8 location, u8 count, the old
    places, then a place per card only for an Xyz monster, empty here), and the server's
    refresh of both players' rows after it (AfterParsing), which tells the new places."""
    body = struct.pack("<BB", SZONE, len(seqs)) + b"".join(loc(0, SZONE, s, DOWN) for s in seqs)
    body += loc(0, 0, 0) * len(seqs)
    row = {f"s{s}": (code, DOWN) for s, code in zip(seqs, after)}
    return packet(MSG_SHUFFLE_SET_CARD, body) + spells(0, **row) + spells(1)


def test_spells_set_and_shuffled_among_their_zones():
    """SPELL-02, ZONE-16: MOON and GOAT Set (MSG_MOVE, refresh, MSG_SET each); an effect shuffles
    the Set cards among their zones and the refresh after it shows them swapped: one
    set_cards_shuffled with each card's new zone, and the board is the engine's."""
    stream = opening() + set_card(0, MOON, 1, SZONE, 0) + set_card(0, GOAT, 1, SZONE, 1)
    stream += spells(0, s0=(MOON, DOWN), s1=(GOAT, DOWN))
    stream += shuffled_set_cards([0, 1], [GOAT, MOON])
    stream += phase(0x200) + spells(0, s0=(GOAT, DOWN), s1=(MOON, DOWN))
    result, agreement, report = imported(stream)
    assert [(e.card, e.zone) for e in kinds(result, "spell_trap_set")] == [(P0_MOON, 0), (P0_GOAT, 1)]
    assert [(e.cards, e.zones) for e in kinds(result, "set_cards_shuffled")] == [((P0_GOAT, P0_MOON), (0, 1))]
    assert kinds(result, "zone_changed") == [] and not any("SHUFFLE_SET" in n for n in result.notes)
    assert report.state.sides[0].szone[:3] == [P0_GOAT, P0_MOON, None]
    assert report.violations == [], report.violations
    assert agreement.ok, agreement


def test_a_full_row_of_set_cards_shuffled_in_a_cycle():
    """ZONE-16: five Set Spells fill the row and the shuffle moves every one (a cycle of five):
    with no free zone, the shuffle is one set_cards_shuffled all the same; the board is the
    engine's, and the next message's card is the right one."""
    order = [MOON, GOAT, HEART, DUO, COIN]
    stream = opening() + THREE
    for s, code in enumerate(order):                 # hand: FLIPPER MOON GOAT HEART DUO COIN
        stream += set_card(0, code, 1, SZONE, s)
    stream += shuffled_set_cards(range(5), order[1:] + order[:1])
    stream += pos_change(GOAT, (0, SZONE, 0), DOWN, UP)
    result, agreement, report = imported(stream)
    assert len(kinds(result, "set_cards_shuffled")) == 1 and kinds(result, "zone_changed") == []
    row = report.state.sides[0].szone[:5]
    assert [report.state.cards[c].code for c in row] == order[1:] + order[:1]
    assert kinds(result, "position_changed")[0].card == P0_GOAT
    assert report.violations == [] and agreement.ok, agreement


# -- 2. coins and dice -------------------------------------------------------------------------

def test_coins_and_dice_are_recorded_with_the_effect_that_tossed_them():
    """Randomness is recorded: MSG_TOSS_COIN (u8 player, u8 count, a u8 per coin) and MSG_TOSS_DICE
    (the same; the other player's dice in a message of their own) are coin_tossed / die_rolled
    with their results and the resolving card."""
    rolls = (packet(MSG_TOSS_COIN, bytes([0, 3, 1, 0, 1])) + packet(MSG_TOSS_DICE, bytes([0, 1, 4]))
             + packet(MSG_TOSS_DICE, bytes([1, 2, 6, 1])))
    stream = opening() + spell(DUO, 4, 0, 0, resolving=rolls)
    result, agreement, report = imported(stream)
    [coin] = kinds(result, "coin_tossed")
    assert (coin.player, coin.results, coin.cause) == (0, (True, False, True), P0_DUO)
    assert [(e.player, e.results, e.cause) for e in kinds(result, "die_rolled")] == [(0, (4,), P0_DUO),
                                                                                     (1, (6, 1), P0_DUO)]
    assert report.violations == [] and agreement.ok, (report.violations, agreement)


# -- 3. Decks, Graveyards, Extra Decks ----------------------------------------------------------

def test_a_reversed_deck_is_the_engines_order_and_draws_from_the_old_bottom():
    """MSG_REVERSE_DECK (no payload): the engine turns both Decks upside down (``field::reverse_deck``)
    and the server lists both after it; MSG_DECK_TOP shows each new top card. Our Decks take the
    reversed order (a deck_shuffled with that order, noted as a reversal), and player 1's next
    draw is their old bottom card."""
    stream = opening() + packet(MSG_REVERSE_DECK, b"")
    rest0, rest1 = D0[:-5], D1[:-5]
    stream += deck(0, rest0[::-1]) + deck(1, rest1[::-1])
    stream += packet(MSG_DECK_TOP, struct.pack("<BIII", 0, 0, rest0[0], DOWN_DEF))
    stream += packet(MSG_DECK_TOP, struct.pack("<BIII", 1, 0, rest1[0], DOWN_DEF))
    stream += next_turn(1, rest1[0]) + deck(1, rest1[::-1][:-1])
    result, agreement, report = imported(stream)
    assert any("MSG_REVERSE_DECK" in n for n in result.notes), result.notes
    assert report.state.sides[1].hand[-1] == "p1.m0"
    assert report.violations == [], report.violations
    assert agreement.ok, agreement


def test_graveyard_and_deck_swapped():
    """MSG_SWAP_GRAVE_DECK (u8 player, u32 face-down Extra Deck size, u32 bitmap size, a bit per
    Graveyard card that goes to the Extra Deck): the Deck becomes the GY in its order, the GY
    the Deck, a Fusion monster among it returns to the Extra Deck; the server refreshes the GY,
    the engine shuffles the new Deck. Every card is a card_moved, and the board is the engine's."""
    resolving = (move(FLIPPER, (0, HAND, 0, DOWN), (0, GRAVE, 0, UP), REASON_DISCARD | REASON_EFFECT)
                 + move(MOON, (0, HAND, 0, DOWN), (0, GRAVE, 1, UP), REASON_DISCARD | REASON_EFFECT)
                 + move(FUSE1, (0, EXTRA, 0, DOWN), (0, GRAVE, 2, UP)))
    old_deck = D0[:-5]
    resolving += packet(MSG_SWAP_GRAVE_DECK, struct.pack("<BIIB", 0, 1, 1, 0b100))
    resolving += zone(0, GRAVE, [(c, UP) for c in old_deck]) + packet(MSG_SHUFFLE_DECK, bytes([0]))
    stream = opening(EXTRA0) + spell(HEART, 3, 0, len(old_deck), resolving=resolving)
    stream += deck(0, [MOON, FLIPPER]) + zone(0, EXTRA, [(FUSE2, DOWN), (FUSE1, DOWN)])
    stream += zone(0, GRAVE, [(c, UP) for c in old_deck + [HEART]])
    result, agreement, report = imported(stream, EXTRA0)
    side = report.state.sides[0]
    assert side.deck == [P0_FLIPPER, P0_MOON] and sorted(side.extra) == ["p0.x0", "p0.x1"]
    assert len(side.gy) == 36 and side.gy[0] == "p0.m0" and side.gy[-1] == P0_HEART
    assert not any("MSG_SWAP_GRAVE_DECK" in n for n in result.notes), result.notes
    assert report.violations == [], report.violations
    assert agreement.ok, agreement


def test_the_extra_deck_shuffled_and_its_top_card_revealed():
    """MSG_SHUFFLE_EXTRA (the passcodes in the new order; the server refreshes the Extra Deck)
    reorders our mirror; MSG_CONFIRM_EXTRATOP (as MSG_CONFIRM_DECKTOP: u8 player, u32 count, then
    code, controller, location, u32 sequence) reveals the top face-down card."""
    stream = opening(EXTRA0) + packet(MSG_SHUFFLE_EXTRA, struct.pack("<BIII", 0, 2, FUSE2, FUSE1))
    stream += zone(0, EXTRA, [(FUSE2, DOWN), (FUSE1, DOWN)])
    stream += packet(MSG_CONFIRM_EXTRATOP, struct.pack("<BIIBBI", 0, 1, FUSE1, 0, EXTRA, 1))
    result, agreement, report = imported(stream, EXTRA0)
    [shown] = kinds(result, "card_revealed")
    assert (shown.player, shown.cards) == (0, ("p0.x0",))
    assert not any("MSG_CONFIRM_EXTRATOP" in n for n in result.notes), result.notes
    assert report.violations == [] and agreement.ok, (report.violations, agreement)


def test_a_hand_shuffled_into_the_deck_then_as_many_drawn():
    """DECK-07: HEART resolves, the other four cards of the hand go to the top of the Deck
    (MSG_MOVE to the Deck, its size as sequence), the engine shuffles (MSG_SHUFFLE_DECK) and the
    player draws four; the Deck listing at the chain's end pins the shuffled order."""
    rest = D0[:-5]
    back = [FLIPPER, MOON, GOAT, DUO]
    resolving = b"".join(move(code, (0, HAND, 0, DOWN), (0, DECK, len(rest) + k, DOWN)) for k, code in enumerate(back))
    shuffled = rest[:10] + [GOAT] + rest[10:] + [FLIPPER, DUO, MOON]          # bottom first
    resolving += packet(MSG_SHUFFLE_DECK, bytes([0])) + draw(0, shuffled[::-1][:4])
    stream = opening() + spell(HEART, 3, 0, 0, resolving=resolving) + deck(0, shuffled[:-4]) + deck(1, D1[:-5])
    stream += zone(0, HAND, [(c, DOWN) for c in shuffled[::-1][:4]])
    result, agreement, report = imported(stream)
    assert [e.reason for e in kinds(result, "card_moved") if e.to.zone == "deck"] == ["returned"] * 4
    assert report.state.sides[0].hand == [P0_MOON, P0_DUO, P0_FLIPPER, P0_COIN]
    assert report.violations == [], report.violations
    assert agreement.ok, agreement


# -- 4. tokens, random discards, control ---------------------------------------------------------

def test_scapegoat_creates_four_tokens_at_once():
    """TOKEN-01: four tokens, each a MSG_MOVE from nowhere (location 0) to a Monster Zone in
    Defense Position with its refresh and MSG_SPSUMMONING, then one MSG_SPSUMMONED."""
    resolving = b""
    for z in range(4):
        resolving += move(SHEEP, (0, 0, 0, 0), (0, MZONE, z, UP_DEF), REASON_SPSUMMON)
        resolving += packet(MSG_SPSUMMONING, struct.pack("<I", SHEEP) + loc(0, MZONE, z, UP_DEF))
    resolving += packet(MSG_SPSUMMONED, b"")
    resolving += monsters(0, **{f"z{z}": (SHEEP, UP_DEF) for z in range(4)}) + monsters(1)
    stream = opening() + spell(GOAT, 2, 0, 0, resolving=resolving)
    stream += monsters(0, **{f"z{z}": (SHEEP, UP_DEF) for z in range(4)})
    result, agreement, report = imported(stream)
    tokens = kinds(result, "token_created")
    assert [(e.zone, e.position, e.code, e.cause) for e in tokens] == [(z, "defense", SHEEP, P0_GOAT) for z in range(4)]
    assert len({e.card for e in tokens}) == 4
    assert report.violations == [], report.violations
    assert agreement.ok, agreement


def test_delinquent_duo_discards_a_random_card_and_a_chosen_one():
    """MSG_RANDOM_SELECTED (u8 player, u32 count, the cards' places) names the random card; the
    discards are MSG_MOVEs from the hand to the GY with REASON_DISCARD; the LP paid while
    activating is the activation's cost."""
    during = packet(MSG_PAY_LPCOST, struct.pack("<BI", 0, 1000))
    resolving = packet(MSG_RANDOM_SELECTED, struct.pack("<BI", 1, 1) + loc(1, HAND, 2, DOWN))
    resolving += move(3012, (1, HAND, 2, DOWN), (1, GRAVE, 0, UP), REASON_DISCARD | REASON_EFFECT)
    resolving += move(3013, (1, HAND, 0, DOWN), (1, GRAVE, 1, UP), REASON_DISCARD | REASON_EFFECT)
    stream = opening() + spell(DUO, 4, 0, 0, resolving=resolving, during=during)
    stream += zone(1, HAND, [(c, DOWN) for c in (3012, 3012, 3011)])
    result, agreement, report = imported(stream)
    discards = [e for e in kinds(result, "card_moved") if e.reason == "discarded"]
    assert [(e.card, e.cause) for e in discards] == [("p1.m37", P0_DUO), ("p1.m39", P0_DUO)]
    assert next(e for e in kinds(result, "activated")).costs[0].lp == 1000
    assert [s.lp for s in report.state.sides] == [7000, 8000]
    assert report.violations == [], report.violations
    assert agreement.ok, agreement


def test_change_of_heart_takes_control_until_the_end_phase():
    """CTRL-02: HEART resolves and player 1's 3013 moves to player 0's Monster Zone (MSG_MOVE
    between the players' Monster Zones, refreshed); in the End Phase control returns (another
    MSG_MOVE, outside any chain). Both are control_changed, and the board is the engine's."""
    stream = opening() + next_turn(1, D1[::-1][5]) + summoned(1, 3013, 0, 1) + monsters(1, z1=(3013, UP_ATK))
    stream += next_turn(0, COIN)
    take = move(3013, (1, MZONE, 1, UP_ATK), (0, MZONE, 0, UP_ATK))
    stream += spell(HEART, 3, 0, 0, resolving=take) + monsters(0, z0=(3013, UP_ATK)) + monsters(1)
    stream += phase(0x200) + move(3013, (0, MZONE, 0, UP_ATK), (1, MZONE, 3, UP_ATK), REASON_RULE)
    stream += monsters(0) + monsters(1, z3=(3013, UP_ATK))
    result, agreement, report = imported(stream)
    taken, back = kinds(result, "control_changed")
    assert (taken.card, taken.to_player, taken.zone, taken.cause) == ("p1.m39", 0, 0, P0_HEART)
    assert (back.card, back.to_player, back.zone) == ("p1.m39", 1, 3)
    assert report.state.sides[1].mzone[3] == "p1.m39"
    assert report.violations == [], report.violations
    assert agreement.ok, agreement


def test_a_token_taken_by_change_of_heart_and_destroyed_leaves_to_its_owner():
    """CTRL-03, TOKEN-01: GOAT makes a Sheep Token for player 0; HEART gives control of it to
    player 1 (a resolving MSG_MOVE between the players' Monster Zones); DUO destroys it, a
    MSG_MOVE to nowhere under its owner. For our fold it goes to its owner's GY (and ceases to
    exist there), not its controller's: no CTRL-03."""
    token = (move(SHEEP, (0, 0, 0, 0), (0, MZONE, 0, UP_DEF), REASON_SPSUMMON)
             + packet(MSG_SPSUMMONING, struct.pack("<I", SHEEP) + loc(0, MZONE, 0, UP_DEF)) + packet(MSG_SPSUMMONED, b""))
    stream = opening() + spell(GOAT, 2, 0, 0, resolving=token) + monsters(0, z0=(SHEEP, UP_DEF))
    stream += spell(HEART, 2, 0, 1, resolving=move(SHEEP, (0, MZONE, 0, UP_DEF), (1, MZONE, 0, UP_DEF)))
    stream += monsters(0) + monsters(1, z0=(SHEEP, UP_DEF))
    stream += spell(DUO, 2, 0, 2, resolving=move(SHEEP, (1, MZONE, 0, UP_DEF), (0, 0, 0, 0),
                                                REASON_DESTROY | REASON_EFFECT))
    stream += monsters(0) + monsters(1)
    result, agreement, report = imported(stream)
    gone = [e for e in kinds(result, "card_moved") if e.card.startswith("p0.t")]
    assert [(e.to.controller, e.to.zone) for e in gone] == [(0, "gy")]
    assert report.violations == [], report.violations
    assert agreement.ok, agreement


# -- 5. Cites (GEN-01) ---------------------------------------------------------------------------

def test_a_normal_spell_its_own_effect_keeps_on_the_field_is_cited():
    """SPELL-04, GEN-01: the engine sends a resolved Normal Spell to the GY (REASON_RULE) after
    MSG_CHAIN_SOLVED; one that its own effect keeps there (Swords of Revealing Light) is still in
    its zone at MSG_CHAIN_END, so the chain's end cites the card and nothing is a violation."""
    at = (0, SZONE, 1, UP)
    stream = opening() + move(HEART, (0, HAND, 1, DOWN), at, 0) + chain(HEART, at) + spells(0, s1=(HEART, UP))
    result, agreement, report = imported(stream)
    ended = kinds(result, "chain_ended")[-1]
    assert ended.cite is not None and ended.cite.card == P0_HEART
    assert report.violations == [] and [o.rule for o in report.overrides] == ["SPELL-04"]
    assert agreement.ok, agreement


def test_a_resolved_normal_spell_sent_to_the_gy_cites_nothing():
    """SPELL-04: the usual case, the MSG_MOVE to the GY after MSG_CHAIN_SOLVED: no cite."""
    result, agreement, report = imported(opening() + spell(HEART, 1, 1, 0))
    assert all(e.cite is None for e in kinds(result, "chain_ended"))
    assert report.violations == [] and report.overrides == [] and agreement.ok


def forced_battle(damage: bool) -> bytes:
    """Last Turn as the engine plays it (c28566710.lua, ``ForcedBattle`` in processor.cpp): on
    turn 2, after player 1's draw, player 0 flips its Set MOON and activates it; it Special
    Summons player 1's bottom Deck card 3000 and forces it to attack; the engine's forced
    battle then says MSG_NEW_PHASE Battle, the attack (direct: player 0 has no monster) and
    MSG_NEW_PHASE Draw again, the phase it interrupted. ``damage``: the forced attack's battle
    damage is dealt (Last Turn's own stops it)."""
    at, sps = (0, SZONE, 0, UP), (1, MZONE, 0, UP_ATK)
    stream = opening() + set_card(0, MOON, 1, SZONE, 0) + spells(0, s0=(MOON, DOWN))
    stream += phase(0x200) + packet(MSG_NEW_TURN, bytes([1])) + phase(0x1) + draw(1, [D1[::-1][5]])
    stream += pos_change(MOON, at[:3], DOWN, UP)
    resolving = (move(3000, (1, DECK, 0, DOWN), sps, REASON_SPSUMMON)
                 + packet(MSG_SPSUMMONING, struct.pack("<I", 3000) + loc(*sps)) + packet(MSG_SPSUMMONED, b""))
    stream += chain(MOON, at, resolving=resolving, after=move(MOON, at, (0, GRAVE, 0, UP), REASON_RULE))
    stream += spells(0) + monsters(1, z0=(3000, UP_ATK))
    stream += phase(0x8) + direct_attack(sps, 1000 if damage else 0) + phase(0x1)
    return stream + phase(0x2, 0x4, 0x8) + direct_attack(sps, 1000)


def direct_attack(attacker: tuple, damage: int) -> bytes:
    """MSG_ATTACK with no target, the Damage Step with MSG_BATTLE, the battle damage if any."""
    out = packet(MSG_ATTACK, loc(*attacker) + loc(0, 0, 0)) + packet(MSG_DAMAGE_STEP_START, b"")
    out += packet(MSG_BATTLE, loc(*attacker) + struct.pack("<iiB", 1000, 1000, 0) + loc(0, 0, 0) + struct.pack("<iiB", 0, 0, 0))
    out += packet(MSG_DAMAGE, struct.pack("<BI", 0, damage)) if damage else b""
    return out + packet(MSG_DAMAGE_STEP_END, b"")


def test_a_forced_attack_out_of_turn_order_cites_the_card_that_forced_it():
    """TURN-01, BATTLE-03, DMG-08, GEN-01: the Battle Phase right after the Draw Phase, the
    return to the Draw Phase and the second attack of the monster (the engine reset its attack
    count; in a second Battle Phase it may attack again, no override) all cite MOON, the chain link that resolved just before the forced battle; so does
    the forced attack's missing battle damage."""
    result, agreement, report = imported(forced_battle(damage=False))
    phases = [(e.phase, e.cite.card if e.cite else None) for e in kinds(result, "phase_entered") if e.player == 1]
    assert phases == [("draw", None), ("battle", P0_MOON), ("draw", P0_MOON), ("standby", None),
                      ("main1", None), ("battle", None)]
    first, second = kinds(result, "attack_declared")
    assert first.cite is None and second.cite.card == P0_MOON
    assert kinds(result, "damage_calculated")[0].cite.card == P0_MOON
    assert report.violations == [], report.violations
    # (the second attack needs no override: a second Battle Phase, cited, gives its monsters
    # their attacks again, BATTLE-03)
    assert sorted(o.rule for o in report.overrides) == ["DMG-08", "TURN-01", "TURN-01"]
    assert [s.lp for s in report.state.sides] == [7000, 8000]
    assert agreement.ok, agreement


def test_a_forced_attack_dealing_its_damage_is_cited_only_for_the_phases():
    """DMG-08: battle damage as the rules give it needs no cite, in a forced battle too."""
    result, agreement, report = imported(forced_battle(damage=True))
    assert kinds(result, "damage_calculated")[0].cite is None
    assert report.violations == [] and [s.lp for s in report.state.sides] == [6000, 8000]
    assert sorted(o.rule for o in report.overrides) == ["TURN-01", "TURN-01"]


def test_a_draw_a_card_declares_ends_the_duel_by_an_effect():
    """WIN-04, WIN-03: MSG_WIN for neither player with a card's reason (0x16, Last Turn's End
    Phase check) is a draw by an effect, not one the rules impose (both players losing at
    once): reason "effect", no violation, and a note naming the engine's reason."""
    result, agreement, report = imported(opening(), win=bytes([2, 0x16]))
    [ended] = kinds(result, "duel_ended")
    assert (ended.winner, ended.reason) == (None, "effect")
    assert any("MSG_WIN reason 0x16" in n for n in result.notes)
    assert report.violations == [] and agreement.ok, report.violations


MAIN1_ATTACKER = (1, MZONE, 0, UP_ATK)


def chain_in_main_phase_1() -> bytes:
    """Turn 2, player 1's Main Phase 1: player 0 flips its Set MOON, which Special Summons player
    1's bottom Deck card 3000 to zone 0 (``MAIN1_ATTACKER``), then goes to the GY."""
    at, sps = (0, SZONE, 0, UP), MAIN1_ATTACKER
    stream = opening() + set_card(0, MOON, 1, SZONE, 0) + spells(0, s0=(MOON, DOWN))
    stream += phase(0x200) + packet(MSG_NEW_TURN, bytes([1])) + phase(0x1) + draw(1, [D1[::-1][5]]) + phase(0x2, 0x4)
    stream += pos_change(MOON, at[:3], DOWN, UP)
    resolving = (move(3000, (1, DECK, 0, DOWN), sps, REASON_SPSUMMON)
                 + packet(MSG_SPSUMMONING, struct.pack("<I", 3000) + loc(*sps)) + packet(MSG_SPSUMMONED, b""))
    return stream + chain(MOON, at, resolving=resolving, after=move(MOON, at, (0, GRAVE, 0, UP), REASON_RULE))


def test_a_forced_attack_from_main_phase_1_is_known_by_the_return_to_it():
    """TURN-01, BATTLE-03, GEN-01: Last Turn resolved in player 1's Main Phase 1: the forced
    Battle Phase follows Main Phase 1 as any may, so only the return to Main Phase 1 after it
    shows it was forced; that return and the monster's second attack cite MOON."""
    sps = MAIN1_ATTACKER
    stream = chain_in_main_phase_1()
    stream += spells(0) + monsters(1, z0=(3000, UP_ATK))
    stream += phase(0x8) + direct_attack(sps, 1000) + phase(0x4) + phase(0x8) + direct_attack(sps, 1000)
    result, agreement, report = imported(stream)
    phases = [(e.phase, e.cite.card if e.cite else None) for e in kinds(result, "phase_entered") if e.player == 1]
    assert phases[-3:] == [("battle", None), ("main1", P0_MOON), ("battle", None)]
    first, second = kinds(result, "attack_declared")
    assert first.cite is None and second.cite.card == P0_MOON
    assert report.violations == [], report.violations
    # (the second attack, in the second Battle Phase the cited return gave, needs no override: BATTLE-03)
    assert sorted(o.rule for o in report.overrides) == ["TURN-01"]
    assert agreement.ok, agreement


def test_an_ordinary_battle_phase_after_a_chain_in_main_phase_1_cites_nothing():
    """The same chain in Main Phase 1, then a Battle Phase that goes on to Main Phase 2 as
    the rules say: no cite anywhere."""
    sps = MAIN1_ATTACKER
    stream = chain_in_main_phase_1()
    stream += spells(0) + monsters(1, z0=(3000, UP_ATK)) + phase(0x8) + direct_attack(sps, 1000) + phase(0x100)
    result, agreement, report = imported(stream)
    assert all(e.cite is None for e in kinds(result, "phase_entered"))
    assert report.violations == [] and report.overrides == [] and agreement.ok


def doubled_direct_attack(player: int, code: int, z: int, atk: int, damage: int) -> bytes:
    """``player``'s monster in zone ``z`` attacks directly; the engine deals ``damage``."""
    at = (player, MZONE, z, UP_ATK)
    return (phase(0x8) + packet(MSG_ATTACK, loc(*at) + loc(0, 0, 0)) + packet(MSG_DAMAGE_STEP_START, b"")
            + packet(MSG_BATTLE, loc(*at) + struct.pack("<iiB", atk, kind(code)[3], 0) + loc(0, 0, 0)
                     + struct.pack("<iiB", 0, 0, 0))
            + packet(MSG_DAMAGE, struct.pack("<BI", 1 - player, damage)) + packet(MSG_DAMAGE_STEP_END, b""))


def test_battle_damage_an_effect_monster_doubles_cites_it():
    """DMG-08, GEN-01: the Effect Monster FLIPPER (300 ATK) attacks directly and the engine deals
    600 (Odd-Eyes Pendulum Dragon's kind of text: no link, no hint): the damage calculation
    cites the monster dealing it, inferred, and the LP follow the engine."""
    stream = opening() + THREE + summoned(0, FLIPPER, 0, 2) + monsters(0, z2=(FLIPPER, UP_ATK))
    stream += doubled_direct_attack(0, FLIPPER, 2, 300, 600)
    result, agreement, report = imported(stream)
    calc = kinds(result, "damage_calculated")[0]
    assert calc.damage == (0, 600) and calc.cite.card == P0_FLIPPER and "inferred" in calc.cite.effect
    assert report.violations == [] and [o.rule for o in report.overrides] == ["DMG-08"]
    assert report.state.sides[1].lp == 7400 and agreement.ok, agreement


def test_battle_damage_a_normal_monster_doubles_is_unexplained_for_review():
    """DMG-08: a Normal Monster has no text to double its damage: with no card named, the
    stream does not explain the doubled damage (a note says so); the engine dealt it, so it is
    no violation but an override marked unexplained, for a judge to review."""
    stream = opening() + next_turn(1, D1[::-1][5]) + summoned(1, 3013, 0, 0) + monsters(1, z0=(3013, UP_ATK))
    stream += doubled_direct_attack(1, 3013, 0, kind(3013)[2], 2 * kind(3013)[2])
    result, agreement, report = imported(stream)
    cite = kinds(result, "damage_calculated")[0].cite
    assert cite is not None and cite.unexplained
    assert report.violations == [] and [o.rule for o in report.overrides] == ["DMG-08"]
    assert any("names no card" in n for n in result.notes)
    assert any("unexplained, for review" in n for n in result.notes)


# -- 6. Pendulum Summons (SPS-02, PEND-03) -------------------------------------------------------

#: Player 0's Deck with SCALE1 SCALE8 THRASHER PEND4 PEND6 as the opening hand (top last)
PEND_D0 = D0[:35] + [PEND6, PEND4, THRASHER, SCALE8, SCALE1]


def scales_placed(right_scale: int | None = None) -> bytes:
    """SCALE1 and SCALE8 activated from the hand into S/T 0 and 4 (each a chain of one), then the
    server's refresh of the Spell & Trap Zones: the right Scale ``right_scale`` when an effect
    changed it."""
    out = b""
    for code, s in ((SCALE1, 0), (SCALE8, 4)):
        at = (0, SZONE, s, UP)
        out += move(code, (0, HAND, 0, DOWN), at, 0) + chain(code, at)
    row = [None] * 8
    row[0], row[4] = (SCALE1, UP), (SCALE8, UP)
    body = b"".join(struct.pack("<H", 0) if slot is None else query(*slot, scale=right_scale if k == 4 else None)
                    for k, slot in enumerate(row))
    return out + packet(MSG_UPDATE_DATA, struct.pack("<BBI", 0, SZONE, len(body)) + body)


def special_summons(*monsters_: tuple[int, int, int]) -> bytes:
    """Monsters (passcode, hand place, Monster Zone) moved from the hand, each then
    MSG_SPSUMMONING, one MSG_SPSUMMONED for all (operations.cpp SpSummonRule)."""
    out = b""
    for code, hand_seq, z in monsters_:
        at = (0, MZONE, z, UP_ATK)
        out += (move(code, (0, HAND, hand_seq, DOWN), at, REASON_SPSUMMON)
                + packet(MSG_SPSUMMONING, struct.pack("<I", code) + loc(*at)))
    return out + packet(MSG_SPSUMMONED, b"")


#: Duel.HintSelection of both Scales: what EDOPro's Pendulum procedure shows before its monsters
BOTH_SCALES = b"".join(packet(MSG_CARD_SELECTED, struct.pack("<I", 1) + loc(0, SZONE, s, UP)) for s in (0, 4))


def test_a_monster_summoning_itself_from_the_hand_between_the_scales_is_no_pendulum_summon():
    """SPS-02, SPS-13: Photon Thrasher's own procedure from the hand, Level 4 between Scales 1
    and 8, shows no Scale: an inherent summon, so the Pendulum Summon after it is the turn's first."""
    stream = opening(d0=PEND_D0) + scales_placed() + special_summons((THRASHER, 0, 2))
    stream += BOTH_SCALES + special_summons((PEND4, 0, 1), (PEND6, 0, 3))
    result, agreement, report = imported(stream, d0=PEND_D0)
    assert [e.method for e in kinds(result, "special_summoned")] == ["inherent", "pendulum", "pendulum"]
    assert report.violations == [] and report.overrides == [], report.violations
    assert agreement.ok, agreement


def test_a_pendulum_summon_is_known_by_both_scales_shown_before_its_monsters():
    """SPS-02: both Scales selected (MSG_CARD_SELECTED), then the monsters: one Pendulum Summon."""
    result, agreement, report = imported(opening(d0=PEND_D0) + scales_placed() + BOTH_SCALES
                                         + special_summons((PEND4, 1, 2), (PEND6, 1, 3)), d0=PEND_D0)
    assert [e.method for e in kinds(result, "special_summoned")] == ["pendulum", "pendulum"]
    assert report.violations == [] and report.overrides == [], report.violations
    assert agreement.ok, agreement


#: SCALE1 SCALE8 and a Level 8 in the opening hand
BIG_D0 = D0[:35] + [PEND6, PEND4, BIG8, SCALE8, SCALE1]


def big8_pendulum_summoned(right_scale: int):
    """BIG8 (Level 8) Pendulum Summoned with Scales 1 and 8, the right one reported as ``right_scale``."""
    result, agreement, report = imported(opening(d0=BIG_D0) + scales_placed(right_scale) + BOTH_SCALES
                                         + special_summons((BIG8, 0, 2)), d0=BIG_D0)
    summon_ = kinds(result, "special_summoned")[0]
    assert summon_.method == "pendulum" and agreement.ok, agreement
    return summon_, report


def test_a_pendulum_summon_by_a_scale_an_effect_changed_cites_that_scale():
    """PEND-03, GEN-01: a Level 8 is not between the printed Scales 1 and 8; with the right Scale
    reported as 9 (as Stargazer Magician's becomes 4) the summon cites the card whose Scale changed."""
    summon_, report = big8_pendulum_summoned(9)
    assert (summon_.cite.card, summon_.cite.effect) == ("p0.m38", "its Pendulum Scale is 9")
    assert report.violations == [] and [o.rule for o in report.overrides] == ["PEND-03"]


def test_a_pendulum_summon_outside_the_scales_edopro_reports_is_unexplained():
    """PEND-03: the right Scale reported as printed (8), the stream names no card behind the
    Level 8 summon and the monster is a Normal Monster (no text of its own): the engine made
    it, so it is an override marked unexplained, never a violation."""
    summon_, report = big8_pendulum_summoned(8)
    assert summon_.cite is not None and summon_.cite.unexplained and summon_.cite.card == summon_.card
    assert report.violations == [] and [o.rule for o in report.overrides] == ["PEND-03"]
