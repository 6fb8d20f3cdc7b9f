"""A duel's opening takes shortcuts for speed (issue 25): a set-up card written as a bare passcode
or as ``{"code", "id"}`` skips reading flags, a view names a Deck's cards with one keyed hash
prefix, and the deck rules judge each card type once. These tests hold each shortcut to the long
way it replaces, on legal and illegal openings alike."""
from __future__ import annotations

import dataclasses
import hashlib
import hmac
from typing import Any

import msgpack
import pytest
from duel import CARDS, CELTIC, MST, ODD_EYES, SHEEP_TOKEN, STARDUST, UTOPIA, position

from ygoreplay.cards import CardDB
from ygoreplay.decks import deck_problems
from ygoreplay.events import from_dict
from ygoreplay.rules import RuleViolation, apply
from ygoreplay.state import DuelState
from ygoreplay.views import _Names


def outcome(event: dict) -> tuple:
    """What the rules make of a set-up: its refusal (rule and words), or the state it gives."""
    state = DuelState(CARDS)
    try:
        apply(state, from_dict(event))
    except RuleViolation as refusal:
        return "refused", refusal.rule, refusal.message
    return "placed", state.to_data()


def long_way(spec: Any) -> dict:
    """The same card with its owner written out: the rules then read every flag."""
    data = {"code": spec} if isinstance(spec, int) else dict(spec)
    return {**data, "owner": 0}


ZONES = ("deck", "hand", "gy", "banished", "extra")
CODES = (CELTIC, STARDUST, SHEEP_TOKEN, ODD_EYES, MST, 0)


@pytest.mark.parametrize("zone", ZONES)
@pytest.mark.parametrize("code", CODES, ids=lambda c: str(c))
@pytest.mark.parametrize("written", ("bare", "code", "code-and-id"))
def test_a_set_up_card_written_short_is_placed_or_refused_as_written_long(zone: str, code: int,
                                                                           written: str) -> None:
    spec: Any = {"bare": code, "code": {"code": code}, "code-and-id": {"code": code, "id": "p0.mine"}}[written]
    side = {zone: [spec, spec] if written != "code-and-id" else [spec]}
    other = {zone: [long_way(spec)] * len(side[zone])}
    assert outcome(position(side)) == outcome(position(other))


def test_a_given_id_that_an_unnamed_card_would_take_is_refused_alike() -> None:
    short = {"deck": [{"code": CELTIC, "id": "p0.s2"}, CELTIC, CELTIC]}
    long = {"deck": [long_way({"code": CELTIC, "id": "p0.s2"}), long_way(CELTIC), long_way(CELTIC)]}
    refusal = outcome(position(short))
    assert refusal[:2] == ("refused", "LOG-04")
    assert refusal == outcome(position(long))


@pytest.mark.parametrize("salt", ["p0.m%d", "p1.x%d", 0, 5, 300, 70_000, 2**33, "s" * 40])
def test_a_views_keyed_order_is_the_hmac_of_each_whole_name(salt: object) -> None:
    names = _Names(b"a test secret, 32 bytes long....", "spectator")
    ids = [f"p0.m{i}" for i in range(60)] + ["p1.x" + "9" * 40]

    def mac(card_id: str) -> bytes:
        message = msgpack.packb(["ygoreplay/name", "spectator", salt, card_id])
        return hmac.new(names.key, message, hashlib.sha256).digest()

    assert names._keyed(ids, salt) == sorted(ids, key=mac)


def test_each_extra_deck_monster_of_one_type_in_the_main_deck_is_reported() -> None:
    main = [CARDS[CELTIC]] * 38 + [CARDS[STARDUST], CARDS[UTOPIA]]
    twin = dataclasses.replace(CARDS[STARDUST], code=99_000_001, name="Stardust Twin")
    problems = deck_problems([*main, twin], [CARDS[CELTIC], twin], [])
    assert [p.rule for p in problems] == ["DECK-02"] * 3 + ["DECK-03", "DECK-06"]
    assert "Stardust Twin (99000001) may not be in the Main Deck" in problems[2].message


def test_two_passcodes_of_one_name_without_an_alias_share_three_copies() -> None:
    celtic = CARDS[CELTIC]
    reprint = dataclasses.replace(celtic, code=99_000_002)       # no alias: the name alone joins them
    cards = CardDB([celtic, reprint])
    others = list({f.name: f for f in CARDS.values() if not (f.alias or f.is_extra_deck or f.is_token)
                   and f.name != celtic.name}.values())[:13]
    main = [cards[CELTIC]] * 2 + [cards[99_000_002]] * 2 + others[:12] * 3
    problems = deck_problems(main, [], [])
    assert [(p.rule, p.message.split(";")[0]) for p in problems] == [("DECK-06", "4 copies of Celtic Guardian")]
    assert deck_problems(main[1:] + others[12:], [], []) == []
