"""Unknown cards and the events that show them (rules/identity.py): a record of what its
recorder saw holds cards with no passcode (0), named by the first event that shows them.

LOG-10: a card shown stays that card. PEN-02: a card shown is one the registered decklist still
holds. DECK-02/03: a card from the Main Deck is no Extra Deck monster, and one from the Extra Deck is.
"""
from __future__ import annotations

import pytest
from duel import (
    BATTLE_OX, BLUE_EYES, CARDS, CELTIC, DARK_HOLE, DARK_MAGICIAN, GIANT_SOLDIER, JINZO, MIRROR_FORCE, MST,
    MYSTICAL_ELF, POT, RAIGEKI, STARDUST, SUMMONED_SKULL, TRAP_HOLE, UTOPIA, VORSE)

from ygoreplay.events import from_dict
from ygoreplay.rules import History, RuleViolation, audit

MAIN = ([CELTIC, BATTLE_OX, VORSE, MYSTICAL_ELF, GIANT_SOLDIER, DARK_MAGICIAN, SUMMONED_SKULL, BLUE_EYES,
         MST, DARK_HOLE, RAIGEKI, POT, MIRROR_FORCE, TRAP_HOLE] * 3)[:40]
EXTRA = [STARDUST, UTOPIA]


def start(p0: dict, p1: dict | None = None) -> list[dict]:
    """A duel: both decks registered as given, both opening hands drawn, turn 1's Main Phase 1."""
    other = p1 or {"main": [0] * 40}
    return [{"kind": "duel_started", "first_player": 0},
            {"kind": "deck_registered", "player": 0, **p0}, {"kind": "deck_registered", "player": 1, **other},
            {"kind": "cards_drawn", "player": 0, "count": 5}, {"kind": "cards_drawn", "player": 1, "count": 5},
            {"kind": "turn_started", "player": 0, "turn": 1}, {"kind": "phase_entered", "phase": "draw"},
            {"kind": "phase_entered", "phase": "standby"}, {"kind": "phase_entered", "phase": "main1"}]


def history(*events: dict) -> History:
    h = History(CARDS)
    for data in events:
        h.append(from_dict(data))
    return h


def refused(*events: dict) -> RuleViolation:
    h = history(*events[:-1])
    with pytest.raises(RuleViolation) as info:
        h.append(from_dict(events[-1]))
    return info.value


UNORDERED = {"main": MAIN, "extra": EXTRA, "unordered": True}


def test_unknown_cards_are_cards_like_any_other_until_an_event_shows_them() -> None:
    """LOG-10: an unknown card is named by the event that shows it, and is that card from then on."""
    h = history(*start({"main": [0] * 40}),
                {"kind": "monster_set", "card": "p0.m0", "zone": 2},
                {"kind": "spell_trap_set", "card": "p0.m1", "zone": 1})
    state = h.state
    assert state.cards["p0.m0"].code == 0 and state.sides[0].mzone[2] == "p0.m0"
    assert len(state.sides[0].hand) == 3 and len(state.sides[0].deck) == 35
    h.append(from_dict({"kind": "card_moved", "card": "p0.m0", "to": [0, "gy"], "reason": "destroyed",
                        "shows": {"p0.m0": VORSE}}))    # sent face-up to the GY: shown
    assert state.cards["p0.m0"].code == VORSE and state.cards["p0.m0"].name == "Vorse Raider"
    assert h.violations == [] and h.state.violations is None


def test_a_rule_that_needs_an_unknown_card_is_undecided_never_called() -> None:
    """The Set card might be a monster: no call either way; the undecided rule is listed."""
    h = history(*start({"main": [0] * 40}), {"kind": "monster_set", "card": "p0.m0", "zone": 2})
    assert [(u.index, u.rule) for u in h.undecided] == [(9, "SUM-01")] and h.unknown_events == 1
    # A second Set the same turn is decided without knowing either card (SUM-01 counts summons).
    v = refused(*start({"main": [0] * 40}), {"kind": "monster_set", "card": "p0.m0", "zone": 2},
                {"kind": "monster_set", "card": "p0.m1", "zone": 3})
    assert v.rule == "SUM-01"


def test_log_10_a_card_shown_stays_that_card() -> None:
    events = [*start({"main": [0] * 40}),
              {"kind": "normal_summoned", "card": "p0.m0", "zone": 2, "shows": {"p0.m0": VORSE}}]
    v = refused(*events, {"kind": "card_revealed", "cards": ["p0.m0"], "shows": {"p0.m0": CELTIC}})
    assert v.rule == "LOG-10" and "Vorse Raider" in v.message
    assert history(*events, {"kind": "card_revealed", "cards": ["p0.m0"], "shows": {"p0.m0": VORSE}})


def test_pen_02_a_card_the_registered_decklist_does_not_hold_is_flagged() -> None:
    v = refused(*start(UNORDERED), {"kind": "normal_summoned", "card": "p0.m0", "zone": 2,
                                    "shows": {"p0.m0": JINZO}})          # not on the list
    assert v.rule == "PEN-02" and "registered Main Deck holds no" in v.message
    # three copies listed, three shown in the hand: a fourth, from the Deck, is PEN-02 too
    shown = [{"kind": "card_revealed", "cards": [f"p0.m{i}"], "shows": {f"p0.m{i}": CELTIC}} for i in range(3)]
    v = refused(*start(UNORDERED), *shown,
                {"kind": "card_moved", "card": "p0.m9", "to": [0, "hand"], "reason": "added", "shows": {"p0.m9": CELTIC}})
    assert v.rule == "PEN-02" and "no more copies of" in v.message


def test_deck_02_03_main_and_extra_deck_cards_stay_in_their_part() -> None:
    v = refused(*start(UNORDERED), {"kind": "card_revealed", "cards": ["p0.m0"], "shows": {"p0.m0": STARDUST}})
    assert v.rule == "DECK-02"
    v = refused(*start({"main": [0] * 40, "extra": [0, 0]}),
                {"kind": "card_revealed", "cards": ["p0.x0"], "shows": {"p0.x0": CELTIC}})
    assert v.rule == "DECK-03"


def test_a_copy_returned_to_the_deck_and_searched_again_is_the_same_to_the_record() -> None:
    """Three Celtic Guardians shown, one returned to the Deck: a Celtic Guardian searched from the
    Deck is that one, whichever unknown id the recorder named (the binding moves)."""
    shown = [{"kind": "card_revealed", "cards": [f"p0.m{i}"], "shows": {f"p0.m{i}": CELTIC}} for i in range(3)]
    back = {"kind": "card_moved", "card": "p0.m0", "to": [0, "deck", 0], "reason": "returned"}
    search = {"kind": "card_moved", "card": "p0.m20", "to": [0, "hand"], "reason": "added",
              "shows": {"p0.m20": CELTIC}}
    h = history(*start(UNORDERED), *shown, back, search)
    assert h.state.cards["p0.m20"].code == CELTIC and h.state.cards["p0.m0"].code == 0
    assert h.state.sides[0].listed[0].count(CELTIC) == 0


def test_an_orderless_shuffle_makes_the_deck_unknown_again_and_gives_the_list_its_cards_back() -> None:
    shown = {"kind": "card_revealed", "cards": ["p0.m0"], "shows": {"p0.m0": CELTIC}}
    back = {"kind": "card_moved", "card": "p0.m0", "to": [0, "deck", 0], "reason": "shuffled"}
    h = history(*start(UNORDERED), shown, back)
    assert h.state.cards["p0.m0"].code == CELTIC and h.state.sides[0].listed[0].count(CELTIC) == 2
    h.append(from_dict({"kind": "deck_shuffled", "player": 0}))
    assert h.state.cards["p0.m0"].code == 0 and h.state.sides[0].listed[0].count(CELTIC) == 3


def test_a_registered_decklist_is_judged_whole_at_registration() -> None:
    """The decklist's own rules are decided without any order (DECK-06: four copies)."""
    report = audit([from_dict(e) for e in start({"main": [CELTIC] * 4 + MAIN[4:], "unordered": True})], CARDS)
    assert [v.rule for v in report.violations] == ["DECK-06"]
    v = refused({"kind": "duel_started", "first_player": 0},
                {"kind": "deck_registered", "player": 0, "main": [0] * 40, "unordered": True})
    assert v.rule == "LOG-05"


def test_unknown_decks_count_toward_their_size_only() -> None:
    report = audit([from_dict(e) for e in start({"main": [0] * 39})], CARDS)
    assert [v.rule for v in report.violations] == ["DECK-01"]


def test_a_rule_broken_whoever_the_card_is_is_called_and_a_decklist_narrows_who_it_can_be() -> None:
    """SUM-04 for a Normal Summon of an unknown card with a Tribute: undecided without a list (a
    Level 6 monster needs one), called when the registered list holds only Level 4 monsters."""
    low = {"kind": "duel_started", "first_player": 0, "options": ["no_deck_check"]}
    summon = {"kind": "normal_summoned", "card": "p0.m0", "zone": 2, "tributes": ["p0.m9"]}
    on_field = {"kind": "card_moved", "card": "p0.m9", "to": [0, "mzone", 0], "reason": "rule",
                "shows": {"p0.m9": CELTIC}, "cite": {"card": "p0.m9", "effect": "a judge's fix"}}
    unlisted = start({"main": [0] * 40})
    h = history(*unlisted[:1], *unlisted[1:], on_field, summon)
    assert "SUM-04" in {u.rule for u in h.undecided} and h.violations == []
    listed = [low, *start({"main": [CELTIC] * 20 + [BATTLE_OX] * 20, "unordered": True})[1:]]
    v = refused(*listed, on_field, summon)
    assert v.rule == "SUM-04"


def test_a_set_up_position_with_unknown_cards_leaves_rules_that_need_them_undecided() -> None:
    """A position of what the recorder saw (a hidden hand as 0): its unknown cards answer through the
    state's own facts, so the fold knows it holds unknown cards and a rule that reads one (SUM-01:
    is the Set card a monster?) is undecided, never called; the known card's Set is judged."""
    hidden = {"deck": [CELTIC] * 10, "hand": [0, 0, 0]}
    h = history({"kind": "position_set_up", "sides": [hidden, hidden], "turn": 2, "turn_player": 0,
                 "phase": "main1"})
    state = h.state
    hand = state.sides[0].hand
    assert state.unknowns and all(state.cards[card_id].facts is state.unknown for card_id in hand)
    h.append(from_dict({"kind": "monster_set", "card": hand[0], "zone": 2}))
    assert [(u.index, u.rule) for u in h.undecided] == [(1, "SUM-01")] and h.violations == []
    copied = state.copy()                     # a copy (a branch, a candidate) keeps them unknown too
    assert copied.unknowns and copied.cards[hand[1]].facts is copied.unknown
