"""Issue 22 attacked: records with unknown cards must call no legal play illegal (a scorekeeper
names unknown cards as it likes, real duels recorded from each side), leak nothing, keep the one
door, and refuse malformed input by name."""
from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path

import pytest
from conftest import shared_path

from ygoreplay.card_sources import card_lookup
from ygoreplay.cards import CardDB
from ygoreplay.events import Event, Shows, from_dict
from ygoreplay.jsonl import read_events
from ygoreplay.rules import History, RuleViolation, audit
from ygoreplay.source import open_source
from ygoreplay.views import recorded_by

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ROOT / "replays" / "won-by-damage.public.jsonl"
DB = CardDB.classic()


def public() -> list[Event]:
    return read_events(PUBLIC)


def renamed(events: list[Event], a: str, b: str) -> list[Event]:
    """The same record with two unknown cards' ids swapped: ids of unknown cards are only names."""
    def swap(value):
        if isinstance(value, dict):
            return {k: swap(v) for k, v in value.items()}
        if isinstance(value, list):
            return [swap(v) for v in value]
        return {a: b, b: a}.get(value, value) if isinstance(value, str) else value
    return [from_dict(swap(e.to_dict())) for e in events]


def calls(events: list[Event], cards: CardDB = DB) -> list[tuple[int, str]]:
    return [(v.index, v.rule) for v in audit(events, cards).violations]


@functools.cache
def real(name: str):
    return open_source(str(shared_path("real-replays", "edopro", name)), None, card_lookup(()))


# -- false calls --------------------------------------------------------------------------------

def test_a_draw_may_name_any_unknown_card_of_a_deck_whose_order_the_record_does_not_know():
    """ZONE-11: a Deck of unknown cards has no order the record knows; the scorekeeper's first
    draw naming p0.m20 rather than p0.m0 is the same duel."""
    assert calls(renamed(public(), "p0.m0", "p0.m20")) == []


def test_a_draw_still_names_different_cards_of_that_deck_as_many_as_drawn():
    events = public()
    assert events[3].kind == "cards_drawn" and events[3].count == 5
    for cards in (("p0.m0", "p0.m0", "p0.m2", "p0.m3", "p0.m4"), ("p0.m0", "p0.m1"), ("p0.m0", "p1.m9")):
        bad = events[:3] + [dataclasses.replace(events[3], cards=cards)]
        history = History(DB)
        for event in bad[:3]:
            history.append(event)
        with pytest.raises(RuleViolation, match=r"LOG-02 the drawn cards .* are not 5 different cards of player 0's Deck"):
            history.append(bad[3])
        assert history.state.sides[0].hand == []


def test_the_top_card_of_a_deck_of_unknown_order_may_be_any_of_its_cards():
    """A card sent from the top of the Deck (index 0) is named by whatever unknown id the
    scorekeeper picks; so is a card added from the Deck to the hand."""
    events = public()
    moves = [from_dict({"kind": "card_moved", "card": "p0.m33", "to": [0, "hand"], "cause": "p0.m2"}),
             from_dict({"kind": "card_moved", "card": "p0.m17", "source": [0, "deck", 0], "to": [0, "gy"],
                        "reason": "sent", "cause": "p0.m2", "shows": {"p0.m17": 13039848}})]
    assert calls(events[:33] + moves + events[33:]) == []


def test_a_known_card_shuffled_back_unseen_is_drawn_by_any_name():
    events = public()
    back = [from_dict({"kind": "card_moved", "card": "p1.m0", "to": [1, "deck", 20], "cause": "p1.m0"}),
            from_dict({"kind": "deck_shuffled", "player": 1})]
    events = events[:41] + back + events[41:]
    draw = next(i for i, e in enumerate(events) if i > 44 and e.kind == "cards_drawn" and e.player == 1)
    events[draw] = dataclasses.replace(events[draw], cards=("p1.m0",))
    assert calls(events) == []


@pytest.mark.parametrize("name", ["GG_Evol_GMX_vs_IA_Cyberse.yrpX", "GG_Psy_nouv_2__vs_IA_DM_3.yrpX"])
@pytest.mark.parametrize("view", ["spectator", "p0", "p1"])
def test_a_real_duel_recorded_by_each_side_calls_nothing(name, view):
    """EDOPro shuffles every Deck (orders the recorder does not see) and summons from the Extra
    Deck; each side's record of the legal duel is legal."""
    source = real(name)
    assert calls(source.events, source.cards) == []
    assert calls(recorded_by(source.events, source.cards, view), source.cards) == []


def test_a_players_record_shows_its_own_extra_deck_monster_when_it_is_first_named():
    """Its decklist names no card id: the Xyz monster it summons is shown by the summon."""
    source = real("GG_Evol_GMX_vs_IA_Cyberse.yrpX")
    record = recorded_by(source.events, source.cards, "p0")
    index = summoned_at(record, "p0.x4")
    assert dict(record[index].shows) == {"p0.x4": 74294676}
    assert not any("p0.x4" in dict(e.shows) for e in record[index + 1:])


def summoned_at(record: list[Event], card: str) -> int:
    """The index of the first ``special_summoned`` of ``card`` in ``record``."""
    return next(k for k, e in enumerate(record) if e.kind == "special_summoned" and e.card == card)


def _missed(name: str, card: str) -> list[Event]:
    """The spectator's record with the name of one summoned monster missed (it stays unknown)."""
    source = real(name)
    record = recorded_by(source.events, source.cards, "spectator")
    index = summoned_at(record, card)
    assert dict(record[index].shows) == {card: dict(record[index].shows)[card]}
    return record[:index] + [dataclasses.replace(record[index], shows=Shows())] + record[index + 1:]


def test_materials_attach_under_a_monster_whose_name_was_missed():
    """XMAT-01: an unknown monster may be the Xyz monster."""
    source = real("GG_Evol_GMX_vs_IA_Cyberse.yrpX")
    assert calls(_missed("GG_Evol_GMX_vs_IA_Cyberse.yrpX", "p0.x4"), source.cards) == []


def test_a_material_whose_name_was_missed_is_not_called_at_the_summon_it_is_for():
    """CARD-07 read the material's Level as it was moved (unknown): undecided, not called."""
    source = real("GG_Psy_nouv_2__vs_IA_DM_3.yrpX")
    record = _missed("GG_Psy_nouv_2__vs_IA_DM_3.yrpX", "p0.x4")
    report = audit(record, source.cards)
    assert report.violations == []
    used = next(k for k, e in enumerate(record)
                if e.kind == "card_moved" and e.card == "p0.x4" and e.reason == "material")
    summon = next(k for k in range(used, len(record)) if record[k].kind == "special_summoned")
    assert (summon, "CARD-07") in [(u.index, u.rule) for u in report.history.undecided]


# -- time ---------------------------------------------------------------------------------------

def test_a_copied_state_shares_no_card_list_with_the_original():
    """``DuelState.copy`` runs before every event naming an unknown card and for every card it
    could be (``rules.candidates``): its cards' counters, materials and seals are the copy's own."""
    history = History(DB)
    for event in public()[:5]:
        history.append(event)
    state = history.state
    card = state.cards["p0.m0"]
    card.counters["spell"], card.materials, card.seal = 1, ["p0.m9"], [0, "sha256:" + "0" * 64]
    copy = state.copy()
    twin = copy.cards["p0.m0"]
    twin.counters["spell"] = 2
    twin.materials.append("p0.m8")
    twin.seal[0] = 1
    assert (card.counters, card.materials, card.seal[0]) == ({"spell": 1}, ["p0.m9"], 0)
    assert twin.facts is card.facts and copy.sides[0].hand == state.sides[0].hand


def test_a_players_record_of_a_record_that_never_knew_its_deck_is_legal():
    """The public sample seen by player 0: its deck is still unknown, not a decklist (LOG-05)."""
    for view in ("p0", "p1"):
        assert calls(recorded_by(public(), DB, view)) == []
