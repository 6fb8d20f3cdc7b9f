"""Duel set-up, turns, phases, draws, the hand limit and the end of the duel.

One legal and one illegal case for every rule ID that rules/setup.py, rules/turn.py, rules/win.py
and the must-lose/after-end checks of rules/__init__.py enforce; the GEN-01 override; the audit.
Each illegal case asserts the rule ID and a telling piece of the message.
"""
from __future__ import annotations

from dataclasses import replace

import pytest
from duel import (
    BATTLE_OX, BLUE_EYES, CARDS, CELTIC, DARK_MAGICIAN, DECODE_TALKER, KURIBOH, LINK_SPIDER, MST,
    ODD_EYES, SHEEP_TOKEN, STARDUST, STARGAZER, UTOPIA, VORSE, YAMI, fold, position, refused)

from ygoreplay.cards import CardDB
from ygoreplay.events import EventFormatError, PositionSetUp, from_dict
from ygoreplay.rules import RuleViolation, apply, audit
from ygoreplay.state import DuelState

# -- building blocks ------------------------------------------------------------------------------

MAIN_POOL = sorted(c.code for c in CARDS.values() if not c.is_extra_deck and not c.is_token)
EXTRA_POOL = sorted(c.code for c in CARDS.values() if c.is_extra_deck)


def cards_of(pool: list[int], count: int) -> list[int]:
    """``count`` passcodes from ``pool``, three copies of each in turn (DECK-06 stays satisfied)."""
    return [code for code in pool for _ in range(3)][:count]


START = {"kind": "duel_started", "first_player": 0}


def register(player: int, main: list[int] | None = None, **deck: list[int]) -> dict:
    return {"kind": "deck_registered", "player": player,
            "main": cards_of(MAIN_POOL, 40) if main is None else main, **deck}


def draw(player: int | None = 0, count: int = 1, **fields) -> dict:
    return {"kind": "cards_drawn", "player": player, "count": count, **fields}


def turn_started(player: int | None, number: int) -> dict:
    return {"kind": "turn_started", "player": player, "turn": number}


def phase(name: str) -> dict:
    return {"kind": "phase_entered", "phase": name}


def step(name: str) -> dict:
    return {"kind": "step_entered", "step": name}


def discard(*cards: str, **fields) -> dict:
    return {"kind": "hand_size_discard", "cards": list(cards), **fields}


def lp_lost(player: int, amount: int, reason: str = "effect_damage") -> dict:
    return {"kind": "life_points_changed", "player": player, "amount": amount, "reason": reason}


def ended(winner: int | None, reason: str, **fields) -> dict:
    return {"kind": "duel_ended", "winner": winner, "reason": reason, **fields}


def opening(first: int = 0) -> list[dict]:
    """duel_started, both decks registered, both opening hands drawn (SETUP-02)."""
    return [{**START, "first_player": first}, register(0), register(1), draw(0, 5), draw(1, 5)]


def turn(number: int, player: int, drawn: bool = True) -> list[dict]:
    """A turn from its start to Main Phase 1."""
    return [turn_started(player, number), phase("draw"), *([draw(player)] if drawn else []),
            phase("standby"), phase("main1")]


OPENING = opening()
QUICK = {"kind": "activated", "card": "kuriboh", "effect_type": "quick"}   # opens a chain
RESOLVE = [{"kind": "chain_link_resolved", "link": 1}, {"kind": "chain_ended"}]
WITH_KURIBOH = {"hand": [{"code": KURIBOH, "id": "kuriboh"}]}


def refused_as(rule: str, fragment: str, *events: dict) -> RuleViolation:
    """The last event is refused with ``rule`` and a message holding ``fragment``."""
    v = refused(*events)
    assert v.rule == rule, v
    assert fragment in v.message, v.message
    return v


# -- duel start (SETUP-01/02/04, MATCH-07) --------------------------------------------------------

def test_setup_01_02_opening_gives_8000_lp_and_five_cards() -> None:
    """SETUP-01: 8000 LP each; SETUP-02: each draws 5 from the top of a 40-card Deck."""
    state = fold(*OPENING)
    assert [s.lp for s in state.sides] == [8000, 8000]
    assert [len(s.hand) for s in state.sides] == [5, 5]
    assert [len(s.deck) for s in state.sides] == [35, 35]
    assert state.sides[0].hand == [f"p0.m{i}" for i in range(5)]
    assert state.opening_drawn == [True, True]


def test_setup_01_other_starting_lp_is_refused() -> None:
    refused_as("SETUP-01", "8000 LP", {**START, "starting_lp": 4000})


# -- CONF-01: settings the players agreed on, or the room set, are duel options ---------------------

def agreed(**settings) -> dict:
    """duel_started with these settings recorded as duel options."""
    return {**START, **settings, "v": 2, "options": sorted(settings)}


def test_conf_01_an_agreed_starting_lp_is_no_violation() -> None:
    """SETUP-01, CONF-01: 8000 LP, or another figure by agreement (a room's setting): recorded as a
    duel option in duel_started, the duel starts with it and nothing is set aside."""
    events = [agreed(starting_lp=4000), register(0), register(1), draw(0, 5), draw(1, 5)]
    report = audit([from_dict(e) for e in events], CARDS)
    assert report.violations == [] and report.overrides == []
    assert [s.lp for s in report.state.sides] == [4000, 4000] and report.state.starting_lp == 4000


def test_conf_01_agreed_hand_size_and_draw_count() -> None:
    """SETUP-02, TURN-02 as duel options: a 4-card opening hand and 2 cards a Draw Phase."""
    state = fold(agreed(hand_size=4, draw_count=2), register(0), register(1), draw(0, 4), draw(1, 4),
                 *turn(1, 0, drawn=False), phase("end"), turn_started(1, 2), phase("draw"), draw(1, 2))
    assert [len(s.hand) for s in state.sides] == [4, 6] and state.draw_count == 2 and state.overrides == []
    refused_as("TURN-02", "is 2 cards, not 1", agreed(draw_count=2), register(0), register(1), draw(0, 5),
               draw(1, 5), *turn(1, 0, drawn=False), phase("end"), turn_started(1, 2), phase("draw"), draw(1, 1))


def test_conf_01_unchecked_decks_are_a_duel_option() -> None:
    """DECK-01, CONF-01: a room that does not check decks (EDOPro's "Don't check deck") records
    it as the duel option no_deck_check; a 9-card deck then breaks nothing. Without it, DECK-01."""
    small = cards_of(MAIN_POOL, 9)
    state = fold({**START, "v": 2, "options": ["no_deck_check"]}, register(0, small), register(1), draw(0, 5))
    assert len(state.sides[0].deck) == 4 and not state.decks_checked
    refused_as("DECK-01", "9 cards", START, register(0, small))


@pytest.mark.parametrize("event, rule, fragment", [
    pytest.param({**START, "draw_count": 2}, "TURN-02", "draw_count", id="draw-count-not-agreed"),
    pytest.param({**START, "starting_lp": 4000, "options": ["hand_size"]}, "SETUP-01", "8000 LP",
                 id="another-setting-agreed"),
    pytest.param({**START, "starting_lp": 0, "options": ["starting_lp"]}, "LOG-05", "at least 1 LP",
                 id="no-lp"),
])
def test_conf_01_settings_not_agreed_or_impossible_refused(event: dict, rule: str, fragment: str) -> None:
    refused_as(rule, fragment, event)


def test_conf_01_an_unknown_duel_option_is_refused_at_decoding() -> None:
    with pytest.raises(EventFormatError, match="a duel option is one of starting_lp"):
        from_dict({**START, "options": ["no_banlist"]})


@pytest.mark.parametrize("events, fragment", [
    pytest.param([{**START, "hand_size": 6}], "draws 5 cards", id="hand-size-6"),
    pytest.param([START, register(0), draw(0, 4)], "5 cards, not 4", id="opening-of-4"),
    pytest.param([*OPENING, draw(0, 5)], "already drawn an opening hand", id="second-opening"),
    pytest.param([*OPENING[:-1], turn_started(0, 1)], "player 1 has not drawn", id="turn-before-hand"),
])
def test_setup_02_pre_duel_order(events: list[dict], fragment: str) -> None:
    """SETUP-02: 5-card opening hands, drawn once each, before the first turn."""
    refused_as("SETUP-02", fragment, *events)


@pytest.mark.parametrize("first", [0, 1])
def test_setup_04_first_player_skips_first_draw(first: int) -> None:
    """SETUP-04: the first player has no draw on turn 1; the second player draws on turn 2."""
    state = fold(*opening(first), *turn(1, first, drawn=False), phase("end"), *turn(2, 1 - first))
    assert len(state.sides[first].hand) == 5
    assert len(state.sides[1 - first].hand) == 6
    assert (state.turn, state.turn_player, state.phase) == (2, 1 - first, "main1")


def test_setup_04_first_player_drawing_on_turn_1_is_refused() -> None:
    refused_as("SETUP-04", "does not draw on the first turn", *OPENING, turn_started(0, 1), phase("draw"), draw(0))


def test_setup_04_first_turn_draw_option_lets_the_first_player_draw() -> None:
    """SETUP-04, CONF-08: under the duel option first_turn_draw (the older rule EDOPro's Goat
    format keeps) the first player draws on turn 1 like any turn player, nothing set aside."""
    goat = {**START, "v": 2, "options": ["first_turn_draw"]}
    report = audit([from_dict(e) for e in [goat, *OPENING[1:], *turn(1, 0), phase("end"), *turn(2, 1)]], CARDS)
    assert report.violations == [] and report.overrides == []
    assert [len(s.hand) for s in report.state.sides] == [6, 6]


def test_setup_04_first_turn_draw_option_the_first_player_must_draw_refused() -> None:
    """SETUP-04 with first_turn_draw: the first player's turn-1 draw is due (TURN-02 if skipped);
    another duel option does not lift SETUP-04."""
    goat = {**START, "v": 2, "options": ["first_turn_draw"]}
    refused_as("TURN-02", "left the Draw Phase without drawing", goat, *OPENING[1:], turn_started(0, 1),
               phase("draw"), phase("standby"))
    other = {**START, "v": 2, "options": ["starting_lp"], "starting_lp": 4000}
    refused_as("SETUP-04", "does not draw on the first turn", other, *OPENING[1:], turn_started(0, 1), phase("draw"),
               draw(0))


def test_match_07_the_chosen_player_goes_first() -> None:
    state = fold(*opening(first=1), turn_started(1, 1))
    assert (state.turn, state.turn_player, state.first_player) == (1, 1, 1)


def test_match_07_the_other_player_going_first_is_refused() -> None:
    refused_as("MATCH-07", "player 1 was chosen to go first", *opening(first=1), turn_started(0, 1))


# -- deck registration (DECK-01..06, CARD-01) -----------------------------------------------------

@pytest.mark.parametrize("deck", [
    pytest.param({"main": cards_of(MAIN_POOL, 40)}, id="main-40"),
    pytest.param({"main": cards_of(MAIN_POOL, 60)}, id="main-60"),
    pytest.param({"main": cards_of(MAIN_POOL, 40), "extra": cards_of(EXTRA_POOL, 15)}, id="extra-15"),
    pytest.param({"main": cards_of(MAIN_POOL, 40), "side": cards_of(MAIN_POOL[20:], 15)}, id="side-15"),
    # MAIN_POOL[13] is in the Main Deck once: two more in the Side Deck make exactly 3 copies.
    pytest.param({"main": cards_of(MAIN_POOL, 40), "side": [MAIN_POOL[13]] * 2}, id="3-copies-with-side"),
])
def test_deck_01_to_06_legal_decks_are_registered(deck: dict) -> None:
    """DECK-01 40-60 Main, DECK-03 <=15 Extra, DECK-05 <=15 Side, DECK-06 <=3 copies in all."""
    state = fold(START, register(0, **deck))
    side = state.sides[0]
    assert side.registered
    assert len(side.deck) == len(deck["main"])
    assert len(side.extra) == len(deck.get("extra", []))
    assert side.side_deck == tuple(deck.get("side", []))
    assert state.cards["p0.m0"].code == deck["main"][0]


@pytest.mark.parametrize("deck, rule, fragment", [
    pytest.param({"main": cards_of(MAIN_POOL, 39)}, "DECK-01", "39 cards", id="main-39"),
    pytest.param({"main": cards_of(MAIN_POOL, 61)}, "DECK-01", "61 cards", id="main-61"),
    pytest.param({"main": cards_of(MAIN_POOL, 40) + [STARDUST]}, "DECK-02", "Stardust Dragon", id="synchro-in-main"),
    pytest.param({"main": cards_of(MAIN_POOL, 40) + [SHEEP_TOKEN]}, "DECK-10", "Sheep Token", id="token-in-main"),
    pytest.param({"main": cards_of(MAIN_POOL, 40), "extra": cards_of(EXTRA_POOL, 16)}, "DECK-03", "16 cards", id="extra-16"),
    pytest.param({"main": cards_of(MAIN_POOL, 40), "extra": [CELTIC]}, "DECK-03", "not an Extra Deck monster",
                 id="main-monster-in-extra"),
    pytest.param({"main": cards_of(MAIN_POOL, 40), "side": cards_of(MAIN_POOL[20:], 16)}, "DECK-05", "16 cards",
                 id="side-16"),
    pytest.param({"main": cards_of(MAIN_POOL, 40), "side": [MAIN_POOL[0]]}, "DECK-06", "4 copies", id="4-copies"),
    pytest.param({"main": cards_of(MAIN_POOL, 39) + [12345]}, "CARD-01", "passcode 12345", id="unknown-card"),
])
def test_deck_01_to_06_illegal_decks_are_refused(deck: dict, rule: str, fragment: str) -> None:
    refused_as(rule, fragment, START, register(0, **deck))


def test_deck_02_a_deck_folded_again_is_judged_again_only_on_other_facts(monkeypatch: pytest.MonkeyPatch) -> None:
    """DECK-01..06: a deck registered again on the very facts it was judged on is not judged again
    (a store folds a duel again at each seek from its start); the same passcodes on other facts are:
    DECK-02 when one of them is an Extra Deck monster there."""
    from ygoreplay.rules import setup
    judged: list[int] = []
    judge = setup.deck_problems
    monkeypatch.setattr(setup, "deck_problems", lambda *parts, **how: judged.append(1) or judge(*parts, **how))
    monkeypatch.setattr(setup, "_DECK_FINDINGS", {}, raising=False)     # none judged before in this process
    main = cards_of(MAIN_POOL, 44)[::-1]
    deck = register(0, main=main)
    for _ in range(3):
        assert fold(START, deck).sides[0].registered
    assert len(judged) == 1
    changed = main[0]
    other = CardDB([replace(facts, type=CARDS.get(STARDUST).type) if code == changed else facts
                    for code in CARDS for facts in (CARDS.get(code),)])
    state = fold(START, cards=other)
    with pytest.raises(RuleViolation) as info:
        apply(state, from_dict(deck))
    assert (info.value.rule, len(judged)) == ("DECK-02", 2)
    assert "may not be in the Main Deck" in info.value.message


# -- log consistency (LOG-02..06) -----------------------------------------------------------------

@pytest.mark.parametrize("events, fragment", [
    pytest.param([turn_started(0, 1)], "a duel begins with", id="nothing-before-start"),
    pytest.param([START, START], "already started", id="started-twice"),
    pytest.param([START, register(0), register(0)], "already registered", id="registered-twice"),
    pytest.param([START, register(0), draw(0, 5), register(1)], "before the opening hands", id="registered-late"),
    pytest.param([START, position()], "must be the first event", id="set-up-after-start"),
    pytest.param([START, draw(0, 5)], "no registered deck", id="draw-unregistered"),
    pytest.param([*OPENING, phase("draw")], "no turn has started", id="phase-before-turn"),
])
def test_log_03_events_out_of_the_duel_order(events: list[dict], fragment: str) -> None:
    """LOG-03: a duel opens with duel_started or position_set_up; decks before hands; turns first."""
    refused_as("LOG-03", fragment, *events)


@pytest.mark.parametrize("events, fragment", [
    pytest.param([START, {**register(0), "player": None}], "needs the player", id="deck-without-player"),
    pytest.param([START, register(0), {"kind": "deck_shuffled", "order": []}], "needs the player",
                 id="shuffle-without-player"),
    pytest.param([START, register(0), draw(0, 0)], "at least one card", id="draw-0"),
    pytest.param([*OPENING, turn_started(None, 1)], "needs the player", id="turn-without-player"),
    pytest.param([{"kind": "position_set_up", "sides": [{}]}], "exactly two sides", id="one-side"),
    pytest.param([position(turn=0)], "turn >= 1", id="turn-0"),
    pytest.param([position({"graveyard": []})], "unknown keys", id="unknown-zone"),
    pytest.param([position({"lp": -1})], "LP must be", id="negative-lp"),
    pytest.param([position({"hand": ["celtic"]})], "passcode or an object", id="card-as-name"),
    pytest.param([position({"hand": [{"code": CELTIC, "position": "attack"}]})], "takes no position",
                 id="position-in-hand"),
    pytest.param([position(normal_summon_used=[True])], "one flag per player", id="one-summon-flag"),
    pytest.param([position({"mzone": [{"code": CELTIC, "id": "c", "counters": 5}]})], "counters are an object",
                 id="counters-not-object"),
])
def test_log_05_malformed_events(events: list[dict], fragment: str) -> None:
    """LOG-05: players are 0 and 1, counts positive, a set-up side has the known zones only."""
    refused_as("LOG-05", fragment, *events)


@pytest.mark.parametrize("data", [{**START, "first_player": 2}, {**draw(2, 5)}, ended(2, "surrender")],
                         ids=["first-player-2", "draw-player-2", "winner-2"])
def test_a_player_other_than_0_or_1_is_refused_when_read(data: dict) -> None:
    """Players are 0 and 1: anything else is refused when the event is read, before the fold."""
    with pytest.raises(EventFormatError, match="a player is 0 or 1"):
        from_dict(data)


def test_log_02_shuffle_and_draw_follow_the_deck() -> None:
    """LOG-02: a shuffle names exactly the Deck's cards; named draws are the top cards."""
    order = [f"p0.m{i}" for i in reversed(range(40))]
    state = fold(START, register(0), {"kind": "deck_shuffled", "player": 0, "order": order},
                 draw(0, 5, cards=order[:5]))
    assert state.sides[0].hand == order[:5]
    assert state.sides[0].deck == order[5:]


@pytest.mark.parametrize("events, fragment", [
    pytest.param([START, register(0), {"kind": "deck_shuffled", "player": 0, "order": ["p0.m0"]}],
                 "exactly the 40 cards", id="shuffle-loses-cards"),
    pytest.param([START, register(0), draw(0, 5, cards=[f"p0.m{i}" for i in range(1, 6)])],
                 "are not the top 5", id="draw-not-from-top"),
    pytest.param([position({"gy": [{"code": VORSE, "id": "vorse"}]}, phase="end"), discard("vorse")],
                 "not in player 0's hand", id="discard-from-gy"),
])
def test_log_02_events_that_do_not_match_the_cards(events: list[dict], fragment: str) -> None:
    refused_as("LOG-02", fragment, *events)


def test_log_06_turns_are_numbered_in_order() -> None:
    """LOG-06 (legal): turn 1, 2, 3 follow each other."""
    state = fold(*OPENING, *turn(1, 0, drawn=False), phase("end"), *turn(2, 1), phase("end"), *turn(3, 0))
    assert (state.turn, state.turn_player) == (3, 0)


def test_log_06_a_skipped_turn_number_is_refused() -> None:
    refused_as("LOG-06", "expected turn 1", *OPENING, turn_started(0, 2))


# -- set-up positions (setup.py) ------------------------------------------------------------------

RICH_BOARD = position(
    {"lp": 4000,
     "hand": [{"code": CELTIC, "id": "hand"}],
     "mzone": [{"code": DARK_MAGICIAN, "id": "dm", "position": "set"},
               {"code": SHEEP_TOKEN, "id": "sheep", "position": "defense"},
               None, None, None, {"code": LINK_SPIDER, "id": "spider"}],
     "szone": [{"code": STARGAZER, "id": "scale"}, {"code": MST, "id": "mst"}],
     "fzone": {"code": YAMI, "id": "yami"},
     "gy": [{"code": BLUE_EYES, "id": "gy"}],
     "banished": [{"code": VORSE, "id": "banished", "position": "facedown"}],
     "extra": [{"code": ODD_EYES, "id": "odd", "position": "faceup"}, {"code": STARDUST, "id": "stardust"}]},
    {"mzone": [{"code": UTOPIA, "id": "utopia",
                "materials": [{"code": BATTLE_OX, "id": "mat1"}, {"code": BATTLE_OX, "id": "mat2"}]},
               None, None, None, None, {"code": DECODE_TALKER, "id": "decode"}]},
    turn=3)


def test_set_up_places_every_card_as_described() -> None:
    """ZONE-01/03/04/08/09/10/12, POS-01, TOKEN-02, XMAT-01, LINK-05, CTRL-03 (legal board)."""
    state = fold(RICH_BOARD)
    p0, p1 = state.sides
    assert (state.turn, state.turn_player, state.phase, p0.lp, p1.lp) == (3, 0, "main1", 4000, 8000)
    assert p0.mzone == ["dm", "sheep", None, None, None] and p0.hand == ["hand"] and p0.gy == ["gy"]
    assert state.emz == ["spider", "decode"]          # p0's left EMZ, and p1's left as p1 sees it
    assert [state.cards[c].position for c in ("dm", "sheep", "spider", "scale", "mst", "yami")] == [
        "set", "defense", "attack", "faceup", "set", "faceup"]
    assert [state.cards[c].position for c in ("banished", "odd", "stardust")] == ["facedown", "faceup", "facedown"]
    assert state.cards["sheep"].is_token and state.cards["dm"].properly_summoned
    assert state.cards["utopia"].materials == ["mat1", "mat2"]
    assert (state.cards["mat1"].zone, state.cards["mat1"].host) == ("overlay", "utopia")
    assert state.cards["decode"].controller == 1
    assert not state.must_lose


def _piles(player: int) -> dict:
    return {"deck": [CELTIC, 0, VORSE], "hand": [KURIBOH, {"code": MST, "id": f"named{player}"}, BATTLE_OX],
            "gy": [VORSE, 0], "banished": [MST, {"code": CELTIC, "position": "facedown"}], "extra": [STARDUST, UTOPIA]}


def _cards(state: DuelState) -> list[tuple]:
    return [(c.id, c.owner, c.controller, c.code, c.zone, c.position, c.is_token, c.properly_summoned)
            for c in state.cards.values()]


def test_a_piles_bare_passcodes_are_placed_as_their_card_objects_are() -> None:
    """A pile's bare passcodes are made in a loop of their own (``_Builder.pile``: the set-up was a
    third of a table's first append, issue 25): the same cards, ids and positions as each written
    ``{"code": N}``, among unknown cards (0) and card objects, and the same refusals."""
    as_objects = [{zone: [{"code": item} if isinstance(item, int) else item for item in items]
                   for zone, items in _piles(player).items()} for player in (0, 1)]
    bare, objects = fold(position(_piles(0), _piles(1))), fold(position(*as_objects))
    assert _cards(bare) == _cards(objects) and len(bare.cards) == 2 * 12
    assert [(s.deck, s.hand, s.gy, s.banished, s.extra) for s in bare.sides] == \
        [(s.deck, s.hand, s.gy, s.banished, s.extra) for s in objects.sides]
    for pile in ({"hand": [{"code": CELTIC, "id": "p0.s2"}], "gy": [VORSE]},      # the next automatic id
                 {"gy": [SHEEP_TOKEN]}, {"hand": [STARDUST]}, {"extra": [CELTIC]}, {"deck": [12345]}):
        wrapped = {zone: [{"code": i} if isinstance(i, int) else i for i in items] for zone, items in pile.items()}
        one, other = refused(position(pile)), refused(position(wrapped))
        assert (one.rule, str(one)) == (other.rule, str(other))


@pytest.mark.parametrize("fields, next_step", [({}, "battle"), ({"step": "battle"}, "end")])
def test_battle_01_set_up_in_the_battle_phase(fields: dict, next_step: str) -> None:
    """BATTLE-01 (legal): a Battle Phase set-up starts at its Start Step unless a step is given."""
    state = fold(position(phase="battle", **fields), step(next_step))
    assert state.battle_phase_entered and (state.phase, state.step) == ("battle", next_step)


ILLEGAL_BOARDS = [
    # (p0 side, p1 side, fields, rule, fragment)
    ({"mzone": [CELTIC] * 8}, {}, {}, "ZONE-01", "lists 8 monster zones"),
    ({"mzone": [CELTIC] * 6}, {}, {"ruleset": "mr3"}, "ZONE-01", "lists 6 monster zones"),
    ({"deck": [{"code": CELTIC, "owner": 1}]}, {}, {}, "CTRL-03", "owner's deck"),
    ({"szone": [MST] * 6}, {}, {}, "ZONE-08", "there are 5"),
    ({"fzone": MST}, {}, {}, "ZONE-10", "is not a Field Spell"),
    ({"szone": [None, YAMI]}, {}, {}, "ZONE-10", "it goes in the Field Zone"),
    ({"hand": [{"code": CELTIC, "id": "x"}], "gy": [{"code": VORSE, "id": "x"}]}, {}, {}, "LOG-04", "used twice"),
    ({"hand": [SHEEP_TOKEN]}, {}, {}, "TOKEN-02", "only be in a Monster Zone"),
    ({"mzone": [{"code": SHEEP_TOKEN, "position": "set"}]}, {}, {}, "TOKEN-02", "always face-up"),
    ({"hand": [STARDUST]}, {}, {}, "DECK-02", "Extra Deck monster"),
    ({"extra": [CELTIC]}, {}, {}, "ZONE-12", "cannot be in the Extra Deck"),
    ({"extra": [{"code": STARDUST, "position": "faceup"}]}, {}, {}, "ZONE-12", "only Pendulum monsters are face-up"),
    ({"mzone": [{"code": CELTIC, "materials": [VORSE]}]}, {}, {}, "XMAT-01", "only a face-up Xyz monster"),
    ({"mzone": [{"code": UTOPIA, "position": "set", "materials": [VORSE]}]}, {}, {}, "XMAT-01",
     "only a face-up Xyz monster"),
    ({"hand": [CELTIC] * 51}, {}, {}, "DECK-01", "owns 61 Main Deck cards"),   # and 10 in the Deck
    ({"extra": [UTOPIA] * 16}, {}, {}, "DECK-03", "owns 16 Extra Deck monsters"),
    ({"mzone": [MST]}, {}, {}, "ZONE-03", "not a monster"),
    ({"mzone": [None] * 5 + [CELTIC]}, {}, {}, "ZONE-03", "not from the Extra Deck"),
    ({"mzone": [None] * 5 + [{"code": LINK_SPIDER, "position": "defense"}]}, {}, {}, "LINK-05", "always in Attack"),
    ({"mzone": [None] * 5 + [LINK_SPIDER]}, {"mzone": [None] * 6 + [LINK_SPIDER]}, {}, "ZONE-04",
     "two monsters in one Extra Monster Zone"),
    ({"szone": [CELTIC]}, {}, {}, "ZONE-09", "is a monster"),
    ({"szone": [None, None, STARGAZER]}, {}, {}, "ZONE-09", "outer zone"),
    ({"mzone": [{"code": CELTIC, "position": "faceup"}]}, {}, {}, "POS-01", "cannot be 'faceup'"),
    ({"fzone": {"code": YAMI, "position": "attack"}}, {}, {}, "POS-01", "cannot be 'attack'"),
    ({"szone": [{"code": STARGAZER, "position": "set"}]}, {}, {}, "POS-01", "cannot be 'set'"),
    ({"banished": [{"code": VORSE, "position": "attack"}]}, {}, {}, "POS-01", "in the banished"),
    ({"hand": [12345]}, {}, {}, "CARD-01", "passcode 12345"),
    ({}, {}, {"turn": 1, "phase": "battle"}, "NIS-04", "first turn"),
    ({}, {}, {"phase": "main1", "step": "battle"}, "BATTLE-01", "only in the Battle Phase"),
    ({}, {}, {"phase": "battle", "step": "charge"}, "BATTLE-01", "'charge'"),
]


@pytest.mark.parametrize("p0, p1, fields, rule, fragment", ILLEGAL_BOARDS,
                         ids=[f"{case[3]}-{i}" for i, case in enumerate(ILLEGAL_BOARDS)])
def test_set_up_refuses_impossible_boards(p0: dict, p1: dict, fields: dict, rule: str, fragment: str) -> None:
    """A board that cannot exist is refused whole, naming the rule, and leaves the state untouched."""
    refused_as(rule, fragment, position(p0, p1, **fields))


def test_turn_01_set_up_in_an_unknown_phase_is_refused() -> None:
    """TURN-01: the wire format already refuses the phase; the engine refuses it too if built directly."""
    with pytest.raises(EventFormatError):
        from_dict(position(phase="lunch"))
    state = DuelState(CARDS)
    with pytest.raises(RuleViolation) as info:
        apply(state, PositionSetUp(sides=({}, {}), phase="lunch"))
    assert info.value.rule == "TURN-01" and "'lunch'" in info.value.message
    assert not state.started


# -- phases and turns (TURN-01/02/07, NIS-04, PRIO-04, CHAIN-05) ----------------------------------

def test_turn_01_07_a_full_turn_in_order() -> None:
    """TURN-01: Draw, Standby, Main 1, Battle, Main 2, End; TURN-07: Standby may go straight to End."""
    state = fold(*OPENING, *turn(1, 0, drawn=False), phase("end"),
                 *turn(2, 1), phase("battle"), phase("main2"), phase("end"),
                 turn_started(0, 3), phase("draw"), draw(0), phase("standby"), phase("end"))
    assert (state.turn, state.turn_player, state.phase) == (3, 0, "end")
    assert not state.battle_phase_entered
    assert [len(s.hand) for s in state.sides] == [6, 6]


@pytest.mark.parametrize("events, fragment", [
    pytest.param([*OPENING, *turn(1, 0, drawn=False), turn_started(1, 2)], "ended in the Main Phase 1",
                 id="turn-ends-in-main1"),
    pytest.param([*OPENING, *turn(1, 0, drawn=False), phase("end"), turn_started(0, 2)], "two turns in a row",
                 id="same-player-twice"),
    pytest.param([position(), phase("standby")], "Standby Phase cannot follow the Main Phase 1", id="backwards"),
    pytest.param([position(phase="standby"), phase("battle")], "Battle Phase cannot follow", id="skip-main1"),
    pytest.param([*OPENING, turn_started(0, 1), phase("standby")], "cannot follow the start of the turn",
                 id="no-draw-phase"),
])
def test_turn_01_phases_out_of_order_are_refused(events: list[dict], fragment: str) -> None:
    refused_as("TURN-01", fragment, *events)


def test_turn_02_the_turn_player_draws_one_then_effects_may_draw() -> None:
    """TURN-02: one Draw Phase draw; later draws name the effect that causes them."""
    state = fold(position(phase="draw"), draw(0), phase("standby"), phase("main1"), draw(0, 2, cause="pot"))
    assert len(state.sides[0].hand) == 3 and state.normal_draw_done
    assert len(state.sides[0].deck) == 7


@pytest.mark.parametrize("events, fragment", [
    pytest.param([draw(1)], "only the turn player draws", id="opponent-draws"),
    pytest.param([draw(0), draw(0)], "only once", id="draws-twice"),
    pytest.param([draw(0, 2)], "1 card, not 2", id="draws-two"),
    pytest.param([phase("standby")], "without drawing", id="skips-the-draw"),
    pytest.param([draw(0), phase("standby"), draw(0)], "this is the Standby Phase", id="draw-without-cause"),
])
def test_turn_02_draw_phase_draw_is_one_card_by_the_turn_player(events: list[dict], fragment: str) -> None:
    refused_as("TURN-02", fragment, position(phase="draw"), *events)


def test_turn_07_main_phase_2_after_a_battle_phase() -> None:
    state = fold(position(), phase("battle"), phase("main2"))
    assert state.phase == "main2" and state.battle_phase_entered


def test_turn_07_main_phase_2_without_a_battle_phase_is_refused() -> None:
    refused_as("TURN-07", "only after a Battle Phase", position(), phase("main2"))


def test_nis_04_battle_phase_from_turn_2() -> None:
    state = fold(*OPENING, *turn(1, 0, drawn=False), phase("end"), *turn(2, 1), phase("battle"))
    assert (state.phase, state.step) == ("battle", "start")


def test_nis_04_no_battle_phase_on_turn_1() -> None:
    refused_as("NIS-04", "no Battle Phase on the first turn", *OPENING, *turn(1, 0, drawn=False), phase("battle"))


def test_prio_04_chain_05_chain_resolved_before_moving_on() -> None:
    """PRIO-04 and CHAIN-05 (legal): once the chain has resolved, the phase and the turn move on."""
    state = fold(position(WITH_KURIBOH, phase="main2", battle_phase_entered=True),
                 QUICK, *RESOLVE, phase("end"), QUICK, *RESOLVE, turn_started(1, 3))
    assert (state.turn, state.turn_player, state.chain) == (3, 1, [])


@pytest.mark.parametrize("rule, fields, closing, fragment", [
    pytest.param("PRIO-04", {"phase": "main1"}, phase("end"), "phase cannot change while a chain", id="phase"),
    pytest.param("PRIO-04", {"phase": "battle", "step": "battle"}, step("end"), "step cannot change", id="step"),
    pytest.param("CHAIN-05", {"phase": "end"}, turn_started(1, 3), "chain is unresolved", id="turn"),
])
def test_prio_04_chain_05_nothing_moves_on_while_a_chain_is_open(
        rule: str, fields: dict, closing: dict, fragment: str) -> None:
    refused_as(rule, fragment, position(WITH_KURIBOH, **fields), QUICK, closing)


# -- the hand limit (HAND-01) ---------------------------------------------------------------------

SEVEN = {"hand": [{"code": CELTIC, "id": f"h{i}"} for i in range(7)]}
SEVEN_IN_HAND = position(SEVEN, {"hand": [{"code": VORSE, "id": f"o{i}"} for i in range(7)]}, phase="end")


@pytest.mark.parametrize("hand, discarded", [(7, ["h0"]), (5, [])], ids=["seven", "five"])
def test_hand_01_discard_down_to_six_then_the_turn_ends(hand: int, discarded: list[str]) -> None:
    """HAND-01: more than 6 cards are discarded down to 6; 6 or fewer need (and allow) no discard."""
    state = fold(position({"hand": SEVEN["hand"][:hand]}, phase="end"), discard(*discarded), turn_started(1, 3))
    assert len(state.sides[0].hand) == min(hand, 6)
    assert state.sides[0].gy == discarded and all(state.cards[c].zone == "gy" for c in discarded)
    assert (state.turn, state.turn_player) == (3, 1)


@pytest.mark.parametrize("events, fragment", [
    pytest.param([SEVEN_IN_HAND, turn_started(1, 3)], "ended turn 2 with 7 cards", id="keeps-seven"),
    pytest.param([SEVEN_IN_HAND, discard("h0", "h1")], "exactly 6, not 5", id="discards-too-many"),
    pytest.param([position(SEVEN, phase="end"), discard("h0"), discard("h1")], "exactly 6, not 5",
                 id="discards-a-sixth"),
    pytest.param([SEVEN_IN_HAND, discard("o0", player=1)], "only the turn player", id="opponent-discards"),
    pytest.param([position(SEVEN), discard("h0")], "not in the Main Phase 1", id="in-main1"),
])
def test_hand_01_hand_limit(events: list[dict], fragment: str) -> None:
    refused_as("HAND-01", fragment, *events)


# -- battle steps and the end of an attack (BATTLE-01, DMG-10, BATTLE-14) -------------------------

BATTLE = position({"mzone": [{"code": VORSE, "id": "vorse"}]}, {"mzone": [{"code": CELTIC, "id": "celtic"}]},
                  phase="battle", step="battle")
ATTACK = [{"kind": "attack_declared", "attacker": "vorse", "target": "celtic"}, step("damage"),
          {"kind": "damage_calculated", "destroyed": ["celtic"], "damage": [0, 500]}]
PAY = lp_lost(1, 500, "battle_damage")
KILL = {"kind": "card_moved", "card": "celtic", "to": [1, "gy"], "reason": "battle"}


def test_battle_01_dmg_10_battle_14_an_attack_carried_out_in_full() -> None:
    """BATTLE-01 steps in order; DMG-10 the damage applied; BATTLE-14 the destroyed monster moved."""
    state = fold(BATTLE, *ATTACK, PAY, KILL, step("battle"), step("end"), phase("main2"))
    assert state.sides[1].lp == 7500 and state.sides[1].gy == ["celtic"]
    assert state.attack is None and state.phase == "main2"


@pytest.mark.parametrize("events, fragment", [
    pytest.param([position(), step("battle")], "this is the Main Phase 1", id="outside-battle-phase"),
    pytest.param([position(phase="battle"), step("damage")], "cannot follow the start step", id="skip-battle-step"),
    pytest.param([BATTLE, step("damage")], "only after an attack is declared", id="damage-without-attack"),
    pytest.param([position(), phase("battle"), step("start")], "cannot follow the start step",
                 id="entering-the-battle-phase-is-its-start-step"),
])
def test_battle_01_steps_out_of_order_are_refused(events: list[dict], fragment: str) -> None:
    """BATTLE-01: entering the Battle Phase is already its Start Step; the Battle Step follows."""
    refused_as("BATTLE-01", fragment, *events)


@pytest.mark.parametrize("done, closing", [([KILL], step("battle")), ([KILL], phase("main2")),
                                           ([PAY], step("battle")), ([PAY], phase("main2"))],
                         ids=["no-damage-step", "no-damage-phase", "no-move-step", "no-move-phase"])
def test_dmg_10_battle_14_an_attack_must_be_carried_out(done: list[dict], closing: dict) -> None:
    """DMG-10: calculated damage is applied; BATTLE-14: monsters destroyed by battle leave the field."""
    rule, fragment = ("DMG-10", "never applied") if done == [KILL] else ("BATTLE-14", "still on the field")
    refused_as(rule, fragment, BATTLE, *ATTACK, *done, closing)


# -- the end of the duel (WIN-01/02/04, rules/__init__.py) ----------------------------------------

LOST_LP = [position({}, {"lp": 500}), lp_lost(1, 500)]
LOST_DECK = [position({"deck": []}, phase="draw"), draw(0)]
BOTH_LOST = [position({"lp": 100}, {"lp": 100}), lp_lost(0, 100), lp_lost(1, 100)]
SURRENDERED = [position(), ended(1, "surrender")]


@pytest.mark.parametrize("prelude, winner, reason", [
    pytest.param(LOST_LP, 0, "lp", id="WIN-01"),
    pytest.param([position({}, {"lp": 0})], 0, "lp", id="WIN-01-set-up-at-0"),
    pytest.param(LOST_DECK, 1, "deck_out", id="WIN-02"),
    pytest.param(BOTH_LOST, None, "draw", id="WIN-04"),
    pytest.param([position()], 1, "surrender", id="surrender"),
])
def test_win_01_02_04_the_duel_ends_as_the_rules_say(prelude: list[dict], winner: int | None, reason: str) -> None:
    """WIN-01: 0 LP loses; WIN-02: a draw from an empty Deck loses; WIN-04: both at once draw."""
    state = fold(*prelude, ended(winner, reason))
    assert state.ended and (state.winner, state.end_reason) == (winner, reason)


@pytest.mark.parametrize("rule, prelude, last, fragment", [
    pytest.param("WIN-01", LOST_LP, ended(1, "lp"), "with player 0 winning (lp)", id="WIN-01-wrong-winner"),
    pytest.param("WIN-01", [position()], ended(0, "lp"), "no player has lost by lp", id="WIN-01-nobody-at-0"),
    pytest.param("WIN-01", LOST_LP, ended(0, "surrender"), "not player 0 winning (surrender)",
                 id="WIN-01-wrong-reason"),
    pytest.param("WIN-01", LOST_LP, phase("battle"), "player 1 has lost (lp)", id="WIN-01-play-on"),
    pytest.param("WIN-01", [*LOST_LP, ended(0, "lp")], phase("end"), "the duel is over (lp)", id="WIN-01-after-end"),
    pytest.param("WIN-02", LOST_DECK, ended(0, "deck_out"), "player 1 winning (deck_out)", id="WIN-02-wrong-winner"),
    pytest.param("WIN-02", [position()], ended(1, "deck_out"), "no player has lost by deck_out",
                 id="WIN-02-nobody-decked"),
    pytest.param("WIN-02", LOST_DECK, ended(1, "lp"), "(deck_out), not player 1 winning (lp)",
                 id="WIN-02-wrong-reason"),
    pytest.param("WIN-02", LOST_DECK, phase("standby"), "player 0 has lost (deck_out)", id="WIN-02-play-on"),
    pytest.param("WIN-02", [*LOST_DECK, ended(1, "deck_out")], draw(1, cause="x"), "the duel is over (deck_out)",
                 id="WIN-02-after-end"),
    pytest.param("WIN-04", BOTH_LOST, ended(0, "lp"), "with a draw (draw)", id="WIN-04-one-winner"),
    pytest.param("WIN-04", [position()], ended(None, "draw"), "no player has lost by draw", id="WIN-04-no-draw"),
    pytest.param("LOG-03", SURRENDERED, phase("battle"), "the duel is over (surrender)", id="after-surrender"),
])
def test_win_01_02_04_refused_endings_and_play_after_a_loss(
        rule: str, prelude: list[dict], last: dict, fragment: str) -> None:
    refused_as(rule, fragment, *prelude, last)


def test_win_01_what_happens_at_the_same_moment_may_still_be_recorded() -> None:
    """WIN-01: after the loss, only simultaneous outcomes (LP, moves, draws) and the end may follow."""
    state = fold(*LOST_LP, lp_lost(0, 300), {"kind": "card_moved", "card": "p0.s1", "to": [0, "gy"]},
                 ended(0, "lp"))
    assert state.sides[0].lp == 7700 and state.sides[0].gy == ["p0.s1"] and state.winner == 0


# -- GEN-01 overrides and the audit ---------------------------------------------------------------

CITE = {"card": "p0.m3", "effect": "a card effect that allows it"}


@pytest.mark.parametrize("events, rule, check", [
    pytest.param([{**START, "starting_lp": 4000, "cite": CITE}], "SETUP-01",
                 lambda s: [x.lp for x in s.sides] == [4000, 4000], id="SETUP-01"),
    pytest.param([*OPENING, turn_started(0, 1), phase("draw"), draw(0, cite=CITE)], "SETUP-04",
                 lambda s: len(s.sides[0].hand) == 6, id="SETUP-04"),
    pytest.param([*OPENING, *turn(1, 0, drawn=False), phase("end"), {**turn_started(0, 2), "cite": CITE}], "TURN-01",
                 lambda s: (s.turn, s.turn_player) == (2, 0), id="TURN-01"),
])
def test_gen_01_a_cited_effect_overrides_the_rule(events: list[dict], rule: str, check) -> None:
    """GEN-01: the illegal action citing a card effect is accepted, and the override is listed."""
    state = fold(*events)
    assert check(state)
    [override] = state.overrides
    assert (override.rule, override.index) == (rule, len(events) - 1)
    assert (override.cite.card, override.cite.effect) == (CITE["card"], CITE["effect"])


def test_audit_collects_every_violation_and_goes_on() -> None:
    """audit(): SETUP-04 and TURN-07 are collected and applied; a LOG-06 event is skipped; play goes on."""
    events = [*OPENING,
              turn_started(0, 1), phase("draw"), draw(0),          # 7: SETUP-04
              phase("standby"), phase("main1"), phase("main2"),    # 10: TURN-07
              phase("end"), turn_started(1, 3),                    # 12: LOG-06, cannot be applied
              *turn(2, 1)]
    report = audit([from_dict(e) for e in events], CARDS)
    assert [(v.index, v.rule) for v in report.violations] == [(7, "SETUP-04"), (10, "TURN-07"), (12, "LOG-06")]
    assert not report.legal and report.events == len(events)
    state = report.state
    assert [len(s.hand) for s in state.sides] == [6, 6]      # the refused draw was still applied
    assert (state.turn, state.turn_player, state.phase, state.index) == (2, 1, "main1", len(events))
    assert state.violations is None and report.overrides == []


def test_audit_of_a_legal_duel_finds_nothing() -> None:
    report = audit([from_dict(e) for e in [*OPENING, *turn(1, 0, drawn=False)]], CARDS)
    assert report.legal and report.violations == [] and report.state.phase == "main1"
