"""What the EDOPro importer states for the newer rules (issue 24): ``negates`` on the link that
negated another's activation (MSG_CHAIN_NEGATED; TRAP-06, TERM-14), ``together`` on the monsters
one MSG_SPSUMMONED closes (PEND-03/04), and Ritual Tributes from the hand (RIT-02). Each on a
small stream built here and on the real replay where it occurs (skipped without ../shared)."""
from __future__ import annotations

import struct

from conftest import shared_path
from test_yrpx import DECKS, HAND, atk_of, draw, loc, opening, packet, query, replay, stringid
from ygoreplay.rules import audit
from ygoreplay.yrpx import (MSG_CHAIN_DISABLED, MSG_CHAIN_END, MSG_CHAIN_NEGATED, MSG_CHAIN_SOLVED,
                            MSG_CHAIN_SOLVING, MSG_CHAINED, MSG_CHAINING, MSG_MOVE, MSG_NEW_PHASE, MSG_NEW_TURN,
                            MSG_SPSUMMONED, MSG_SPSUMMONING, MSG_START, MSG_UPDATE_DATA, MSG_WIN, REASON_EFFECT,
                            REASON_MATERIAL, REASON_RELEASE, REASON_RITUAL, REASON_RULE, REASON_SPSUMMON,
                            import_yrpx)

MZONE, SZONE, GRAVE = 0x04, 0x08, 0x10


def chaining(player: int, code: int, hand_seq: int, link: int) -> bytes:
    return (packet(MSG_CHAINING, struct.pack("<I", code) + loc(player, HAND, hand_seq, 0xA)
                   + struct.pack("<BBIQI", player, HAND, hand_seq, stringid(code, 0), link))
            + packet(MSG_CHAINED, bytes([link])))


def summon_from_hand(code: int, hand_seq: int, zone: int) -> bytes:
    """One monster of a Special Summon: its move from the hand, then MSG_SPSUMMONING."""
    return (packet(MSG_MOVE, struct.pack("<I", code) + loc(0, HAND, hand_seq, 0xA) + loc(0, MZONE, zone, 0x1)
                   + struct.pack("<I", REASON_SPSUMMON))
            + packet(MSG_SPSUMMONING, struct.pack("<I", code) + loc(0, MZONE, zone, 0x1)))


def answered(message: int) -> bytes:
    """Player 0 activates link 1, player 1 answers with link 2, whose resolution sends
    ``message`` about link 1; then link 1's turn; player 1 wins."""
    mine, theirs = DECKS[0][0][::-1][0], DECKS[1][0][::-1][0]
    stream = opening() + chaining(0, mine, 0, 1) + chaining(1, theirs, 0, 2)
    stream += packet(MSG_CHAIN_SOLVING, bytes([2])) + packet(message, bytes([1]))
    stream += packet(MSG_CHAIN_SOLVED, bytes([2])) + packet(MSG_CHAIN_SOLVING, bytes([1]))
    return stream + packet(MSG_CHAIN_SOLVED, bytes([1])) + packet(MSG_CHAIN_END, b"") + packet(MSG_WIN, bytes([1]))


def test_the_link_that_negates_an_activation_names_it():
    """Player 1's hand trap (link 2) negates player 0's activation (link 1): EDOPro sends
    MSG_CHAIN_NEGATED 1 while link 2 resolves, so link 2's ``activated`` says ``negates: 1``; link
    1 is then ``chain_link_negated`` by 2 and the fold agrees (TERM-14: it does not resolve)."""
    result = import_yrpx(replay(stream=answered(MSG_CHAIN_NEGATED)))
    links = [e for e in result.events if e.kind == "activated"]
    assert [(e.player, e.link, e.negates) for e in links] == [(0, 1, None), (1, 2, 1)]
    assert links[1].to_dict()["v"] == 2
    negated = [e for e in result.events if e.kind == "chain_link_negated"]
    assert [(e.link, e.by) for e in negated] == [(1, 2)]
    assert [v.rule for v in audit(result.events, result.cards).violations] == []


def test_an_effect_negated_is_no_activation_negated():
    """MSG_CHAIN_DISABLED (``Duel.NegateEffect``): link 1's effect is negated, not its activation;
    it still resolves (doing nothing), so link 2 names no ``negates``."""
    result = import_yrpx(replay(stream=answered(MSG_CHAIN_DISABLED)))
    assert [e.negates for e in result.events if e.kind == "activated"] == [None, None]
    assert [e.link for e in result.events if e.kind == "chain_link_resolved"] == [2, 1]
    assert [v.rule for v in audit(result.events, result.cards).violations] == []


def test_monsters_one_msg_spsummoned_closes_are_together():
    """A resolving effect Special Summons two monsters at once (one MSG_SPSUMMONED for both), then
    one more on its own: ``together`` is False, True, False."""
    hand = DECKS[0][0][::-1][:5]
    stream = opening() + chaining(0, hand[0], 0, 1) + packet(MSG_CHAIN_SOLVING, bytes([1]))
    stream += summon_from_hand(hand[1], 1, 0) + summon_from_hand(hand[2], 1, 1) + packet(MSG_SPSUMMONED, b"")
    stream += summon_from_hand(hand[3], 1, 2) + packet(MSG_SPSUMMONED, b"")
    stream += packet(MSG_CHAIN_SOLVED, bytes([1])) + packet(MSG_CHAIN_END, b"") + packet(MSG_WIN, bytes([1]))
    result = import_yrpx(replay(stream=stream))
    summons = [e for e in result.events if e.kind == "special_summoned"]
    assert [(e.method, e.together) for e in summons] == [("effect", False), ("effect", True), ("effect", False)]
    assert [v.rule for v in audit(result.events, result.cards).violations] == []


RITUAL_SPELL, RITUAL_MONSTER, TRIBUTE = 7001, 7002, 7003
#: Player 0's Deck, bottom first: the opening hand (the top five, top first) is 5011, 5010, the
#: Ritual Spell, the Ritual monster and a Level 4 monster to Tribute (hand sequences 0-4).
RITUAL_DECK = [5000 + i // 3 for i in range(35)] + [TRIBUTE, RITUAL_MONSTER, RITUAL_SPELL, 5010, 5011]
KINDS = {RITUAL_SPELL: 0x82, RITUAL_MONSTER: 0x81}        # TYPE_SPELL | TYPE_RITUAL, TYPE_MONSTER | TYPE_RITUAL


def deck_refresh(player: int, codes) -> bytes:
    body = b"".join(query(code, atk_of(code), kind=KINDS.get(code, 0x21)) for code in codes)
    return packet(MSG_UPDATE_DATA, struct.pack("<BBI", player, 0x01, len(body)) + body)


def move(code: int, old: bytes, new: bytes, reason: int) -> bytes:
    return packet(MSG_MOVE, struct.pack("<I", code) + old + new + struct.pack("<I", reason))


def test_a_ritual_tribute_from_the_hand_is_the_summons_material():
    """A Ritual Spell activated from the hand Tributes a monster from the hand (EDOPro:
    REASON_RITUAL | REASON_EFFECT | REASON_MATERIAL | REASON_RELEASE) and Ritual Summons: the
    ``special_summoned`` is ``ritual``, caused by the Spell, with the hand's monster as its
    material (RIT-01/02 hold)."""
    d1 = DECKS[1][0]
    stream = packet(MSG_START, struct.pack("<BII4H", 0, 8000, 8000, 40, 0, 40, 0))
    stream += deck_refresh(0, RITUAL_DECK) + deck_refresh(1, d1)
    stream += draw(0, RITUAL_DECK[::-1][:5]) + draw(1, d1[::-1][:5]) + packet(MSG_NEW_TURN, bytes([0]))
    for phase in (0x1, 0x2, 0x4):
        stream += packet(MSG_NEW_PHASE, struct.pack("<H", phase))
    stream += move(RITUAL_SPELL, loc(0, HAND, 2, 0xA), loc(0, SZONE, 0, 0x1), 0)
    stream += packet(MSG_CHAINING, struct.pack("<I", RITUAL_SPELL) + loc(0, SZONE, 0, 0x1)
                     + struct.pack("<BBIQI", 0, SZONE, 0, stringid(RITUAL_SPELL, 0), 1))
    stream += packet(MSG_CHAINED, bytes([1])) + packet(MSG_CHAIN_SOLVING, bytes([1]))
    stream += move(TRIBUTE, loc(0, HAND, 3, 0xA), loc(0, GRAVE, 0, 0x5),
                   REASON_RITUAL | REASON_EFFECT | REASON_MATERIAL | REASON_RELEASE)
    stream += move(RITUAL_MONSTER, loc(0, HAND, 2, 0xA), loc(0, MZONE, 0, 0x1), REASON_SPSUMMON)
    stream += packet(MSG_SPSUMMONING, struct.pack("<I", RITUAL_MONSTER) + loc(0, MZONE, 0, 0x1))
    stream += packet(MSG_SPSUMMONED, b"") + packet(MSG_CHAIN_SOLVED, bytes([1]))
    stream += move(RITUAL_SPELL, loc(0, SZONE, 0, 0x1), loc(0, GRAVE, 1, 0x5), REASON_RULE)
    stream += packet(MSG_CHAIN_END, b"") + packet(MSG_WIN, bytes([1]))
    result = import_yrpx(replay(stream=stream, decks=[(RITUAL_DECK, []), DECKS[1]]))
    ritual = next(e for e in result.events if e.kind == "special_summoned")
    assert (ritual.card, ritual.method, ritual.materials, ritual.cause) == ("p0.m36", "ritual", ("p0.m35",), "p0.m37")
    assert [v.rule for v in audit(result.events, result.cards).violations] == []
    assert not result.engine_allowed


# -- the real replays ---------------------------------------------------------------------------

def _real(name: str):
    return import_yrpx(shared_path("real-replays", "edopro", name))


def test_a_real_negation_names_the_link_it_negates():
    """2020-06-21_12-58-40: link 2 negates link 1's activation (MSG_CHAIN_NEGATED at packet 1042)."""
    result = _real("2020-06-21_12-58-40.yrpX")
    negators = [e for e in result.events if e.kind == "activated" and e.negates is not None]
    assert negators
    first = result.events.index(negators[0])
    negated = next(e for e in result.events[first:] if e.kind == "chain_link_negated")
    assert (negated.link, negated.by) == (negators[0].negates, negators[0].link)
    assert [v.rule for v in audit(result.events, result.cards).violations] == []
    assert not any(rule.startswith(("TRAP-06", "TERM-14", "BATTLE-09"))
                   for _, rules, _ in result.engine_allowed for rule in rules)


def test_real_monsters_summoned_at_once_are_together():
    """GG_Laval_10_Baroness_vs_IA_Scrap: effects Special Summon several monsters at once (one
    MSG_SPSUMMONED each time): all but the first are ``together`` with the one before."""
    result = _real("GG_Laval_10_Baroness_vs_IA_Scrap.yrpX")
    together = [k for k, e in enumerate(result.events) if e.kind == "special_summoned" and e.together]
    assert together
    for k in together:
        before = result.events[k - 1]
        assert before.kind == "special_summoned" and before.method == result.events[k].method
    assert [v.rule for v in audit(result.events, result.cards).violations] == []


def test_real_ritual_tributes_from_the_hand_are_the_summons_materials():
    """GG_Nouvelles_vs_Adventurer: a Ritual Spell Tributes a monster from the hand (MSG_MOVE from
    the hand with REASON_RITUAL | REASON_RELEASE | REASON_MATERIAL, packet 174): the Ritual Summon
    lists it as a material, and RIT-02 holds with nothing set aside."""
    result = _real("GG_Nouvelles_vs_Adventurer.yrpX")
    ritual = next(e for e in result.events if e.kind == "special_summoned" and e.method == "ritual")
    assert ritual.materials and ritual.cause is not None
    report = audit(result.events[:result.events.index(ritual)], result.cards)
    assert all(report.state.cards[m].zone == "hand" for m in ritual.materials)
    assert [v.rule for v in audit(result.events, result.cards).violations] == []
    assert not any(rule.startswith("RIT-") for _, rules, _ in result.engine_allowed for rule in rules)
