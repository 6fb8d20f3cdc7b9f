"""Views of the duels the EDOPro importer makes of messages the real corpus lacks, attacked.

``test_engine_unseen`` writes small duels message by message (Flip Summons, Book of Moon, Set
cards shuffled among their zones, a reversed Deck, a Graveyard swapped with a Deck, the Extra
Deck's top card revealed, a hand shuffled into the Deck, coins and dice, tokens, random
discards, Change of Heart) and
``test_engine_check`` two MSG_SWAPs (``cards_swapped``). Each is imported by running that test
itself (its own assertions hold first), and every view of it (p0, p1, spectator) is checked as
``test_views`` checks the sample duels: no passcode hidden from the viewer anywhere in the file's
bytes, a card named only where the viewer may name it, the same public board as the full record
at every event, and ``verify --against`` passing. Then the hidden orders those messages make: a
reversed Deck, the new Deck a Graveyard became, a hand that went back into its Deck.

The streams' passcodes are small numbers (1000, 2001...) that a view rightly carries as ATK, DEF
or LP, so the record is recoded first to passcodes as real ones are (eight digits): a byte found
is then a leak, not a DEF of 1000. That a view cannot tell which Set card a shuffle put where
is ``test_views``'s (``set_cards_shuffled``).
"""
from __future__ import annotations

import dataclasses
import functools
import inspect
from types import ModuleType
from typing import Callable

import msgpack
import pytest
import test_engine_check
import test_engine_unseen
from test_views import (
    RECORD_ROOT, SECRET, VIEWERS, assert_same_public_board, known_codes, leaked, named_only_where_allowed,
    raw, walk_file)

from ygoreplay.cards import CardDB
from ygoreplay.events import DECK, DeckRegistered, DeckShuffled, Event, TokenCreated, from_dict
from ygoreplay.exchange import make_replay, verify_against
from ygoreplay.replay_file import ReplayFile, dumps, loads, referenced_codes
from ygoreplay.rules import History, audit
from ygoreplay.views import Redactor

def _streams() -> dict[str, tuple[ModuleType, Callable[[], None]]]:
    out = {name: (test_engine_unseen, test) for name, test in vars(test_engine_unseen).items()
           if name.startswith("test_")}
    for name in ("test_two_monsters_switching_control_at_once", "test_two_monsters_of_one_player_trading_zones"):
        out[name] = (test_engine_check, getattr(test_engine_check, name))
    return out


STREAMS = _streams()
REVERSED = "test_a_reversed_deck_is_the_engines_order_and_draws_from_the_old_bottom"
GY_SWAPPED = "test_graveyard_and_deck_swapped"
HAND_BACK = "test_a_hand_shuffled_into_the_deck_then_as_many_drawn"
OFFSET = 46_980_000          # 1000 -> 46981000: a passcode no ATK, DEF, LP or time can be


@dataclasses.dataclass(frozen=True)
class Duel:
    events: tuple[Event, ...]
    times: tuple[str, ...]
    cards: CardDB


def _recoded(events, cards: CardDB) -> tuple[list[Event], CardDB]:
    """The record and its card facts with every passcode moved by OFFSET."""
    def code(c: int) -> int:
        return c + OFFSET if c else 0

    out = []
    for event in events:
        if isinstance(event, DeckRegistered):
            event = dataclasses.replace(event, main=tuple(map(code, event.main)), extra=tuple(map(code, event.extra)),
                                        side=tuple(map(code, event.side)))
        elif isinstance(event, TokenCreated):
            event = dataclasses.replace(event, code=code(event.code))
        out.append(event)
    assert referenced_codes(out) == {code(c) for c in referenced_codes(list(events))}
    facts = CardDB(dataclasses.replace(f, code=code(f.code), alias=code(f.alias), name=f"Card {code(f.code)}")
                   for f in cards.values())
    return out, facts


@functools.cache
def duel(name: str) -> Duel:
    """The stream of test ``name`` as that test imports it (the test runs, its assertions hold)."""
    module, test = STREAMS[name]
    results = []
    original = module.imported

    def capturing(*args, **kwargs):
        answer = original(*args, **kwargs)
        results.append(answer[0])
        return answer

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "imported", capturing)
        test()
    [result] = results
    events, cards = _recoded(result.events, result.cards)
    return Duel(tuple(events), tuple(result.times), cards)


@functools.cache
def file_of(name: str, view: str) -> bytes:
    d = duel(name)
    return dumps(make_replay(list(d.events), list(d.times), d.cards, view, RECORD_ROOT, SECRET))


def view_of(name: str, view: str) -> ReplayFile:
    return loads(file_of(name, view))


def test_every_new_message_is_attacked():
    """The streams are found in their modules, so a duel added there is attacked here too."""
    assert len(STREAMS) >= 12 and {REVERSED, GY_SWAPPED, HAND_BACK} <= set(STREAMS)
    assert sum("shuffled_set_cards(" in inspect.getsource(test) for _, test in STREAMS.values()) == 2


@pytest.mark.parametrize("view", VIEWERS)
@pytest.mark.parametrize("name", sorted(STREAMS))
def test_no_passcode_hidden_from_the_viewer_is_in_its_file(name, view):
    d = duel(name)
    data = file_of(name, view)
    everything, known = known_codes(d.events, d.cards, view)
    hidden = set(everything - known)
    assert hidden, "each duel has cards nobody sees (Deck), so the search is not vacuous"
    leaks = leaked(data, hidden, d.cards)
    assert not leaks, f"{name}, {view} view: the file holds hidden card(s) {leaks}"
    assert not hidden & set(loads(data).cards)


@pytest.mark.parametrize("view", VIEWERS)
@pytest.mark.parametrize("name", sorted(STREAMS))
def test_the_view_names_a_card_only_where_the_viewer_may_and_replays_to_the_same_board(name, view):
    d = duel(name)
    view_file = view_of(name, view)
    assert_same_public_board(view_file, d.events, d.cards, view)
    shown, hidden = named_only_where_allowed(walk_file(view_file, d.events, d.cards, view))
    assert hidden and (shown or view == "spectator"), "a player sees their own hand"
    assert verify_against(view_file, loads(file_of(name, "judge"))) == []


# -- hidden orders ------------------------------------------------------------------------------------

def _steps(name: str, view: str) -> list:
    """The view derived event by event, with the Redactor's names after each (white box: the
    record id -> view id map an attacker would need)."""
    d = duel(name)
    redactor = Redactor(d.cards, view, SECRET)
    return [(redactor.feed(event), dict(redactor.names.of)) for event in d.events]


def _reshuffles(name: str) -> list[int]:
    """The deck_shuffled events after the opening (the opening's are each Deck's first order)."""
    events = duel(name).events
    first_draw = next(i for i, e in enumerate(events) if e.kind == "cards_drawn")
    return [i for i, e in enumerate(events) if isinstance(e, DeckShuffled) and i > first_draw]


def _not_given_away(name: str, view: str, index: int) -> None:
    """At deck_shuffled ``index``: the view's order is neutral (its own old names, sorted), no
    seed, a commitment; every card of that Deck gets a fresh name (nothing before follows it
    through), and the fresh names, read in the Deck's true order, are not in order."""
    events = duel(name).events
    true = events[index]
    steps = _steps(name, view)
    step, names = steps[index]
    before = steps[index - 1][1]
    assert list(step.event.order) == sorted(before[c] for c in true.order)
    assert step.event.seed is None
    assert [c[:2] for c in step.commitments] == [[index, true.player]]
    [(_, old, new)] = [r for r in step.renames if set(r[1]) == {before[c] for c in true.order}]
    assert not set(old) & set(new) and len(new) == len(true.order)
    dealt = [names[c] for c in true.order]
    if len(dealt) > 2:
        assert dealt != sorted(dealt) and dealt != sorted(dealt, reverse=True), "fresh names follow the Deck"
    assert msgpack.packb(list(true.order)) not in raw(file_of(name, view))


@pytest.mark.parametrize("view", VIEWERS)
def test_a_reversed_deck_gives_no_order_away(view):
    """MSG_REVERSE_DECK: both Decks upside down, a deck_shuffled each. Everyone knows the
    Decks were reversed, nobody their order: a view cannot tell which card is now on top, nor
    follow a card from before the reversal, nor see the card drawn next (the old bottom) by
    any but the drawer."""
    reshuffles = _reshuffles(REVERSED)
    assert sorted(duel(REVERSED).events[i].player for i in reshuffles) == [0, 1]
    for index in reshuffles:
        _not_given_away(REVERSED, view, index)
    steps = _steps(REVERSED, view)
    drawn = next(i for i, e in enumerate(duel(REVERSED).events) if e.kind == "cards_drawn" and i > reshuffles[-1])
    disclosed = steps[drawn][0].disclosures
    assert bool(disclosed) == (view == "p1"), disclosed


@pytest.mark.parametrize("view", VIEWERS)
def test_a_graveyard_that_became_the_deck_gives_no_order_away(view):
    """MSG_SWAP_GRAVE_DECK: the old Deck becomes the Graveyard in its order (public from then
    on: the view shows that order, as the board check says), the Graveyard's cards go into the
    Deck and the engine shuffles it. Both new Deck cards were public, so only their order is
    hidden, and it is: the shuffle gives them fresh names in a neutral order."""
    [index] = _reshuffles(GY_SWAPPED)
    events = duel(GY_SWAPPED).events
    assert len(events[index].order) == 2
    _not_given_away(GY_SWAPPED, view, index)
    view_file = view_of(GY_SWAPPED, view)
    into_deck = [e for e in view_file.events[:index] if e.kind == "card_moved" and e.to.zone == DECK]
    assert len(into_deck) == 2
    later = {c for e in view_file.events[index + 1:] for c in (getattr(e, "card", None),) if c}
    assert not later & {e.card for e in into_deck}


@pytest.mark.parametrize("view", ["p1", "spectator"])
def test_a_hand_shuffled_into_the_deck_cannot_be_followed_out_again(view):
    """Four hidden cards of player 0's hand go into the Deck, it is shuffled, four are drawn: a
    view that cannot see player 0's hand cannot tell whether the same cards came back."""
    view_file = view_of(HAND_BACK, view)
    went = {e.card for e in view_file.events if e.kind == "card_moved" and e.to.zone == DECK}
    [redraw] = [e for e in view_file.events if e.kind == "cards_drawn" and len(e.cards) == 4 and e.cause]
    assert len(went) == 4 and not went & set(redraw.cards)
    [index] = _reshuffles(HAND_BACK)
    _not_given_away(HAND_BACK, view, index)


def test_a_set_monster_that_switches_control_is_shown_to_its_new_controller_only():
    """cards_swapped with a hidden card: Creature Swap's duel with player 0's monster Set instead
    of Normal Summoned. Player 1 controls it after the swap and may look at it (from that event
    on, not before); a spectator never learns it."""
    d = duel("test_two_monsters_switching_control_at_once")
    events = list(d.events)
    summon = next(i for i, e in enumerate(events) if e.kind == "normal_summoned" and e.player == 0)
    events[summon] = from_dict({"kind": "monster_set", "player": 0, "card": events[summon].card,
                                "zone": events[summon].zone})
    assert audit(events, d.cards).legal
    history = History(d.cards, audit=True)
    history.extend(events[:summon + 1])
    code = history.state.cards[events[summon].card].code
    swap = next(i for i, e in enumerate(events) if e.kind == "cards_swapped")
    for view in VIEWERS:
        data = dumps(make_replay(events, list(d.times), d.cards, view, RECORD_ROOT, SECRET))
        view_file = loads(data)
        everything, known = known_codes(events, d.cards, view)
        assert (code in known) == (view != "spectator")
        assert not leaked(data, set(everything - known), d.cards)
        assert_same_public_board(view_file, events, d.cards, view)
        named_only_where_allowed(walk_file(view_file, events, d.cards, view))
        if view == "p1":
            assert [row[0] for row in view_file.disclosures if row[2] == code] == [swap]
