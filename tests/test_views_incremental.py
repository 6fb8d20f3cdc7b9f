"""A view's redaction looks, at each event, only at the cards whose state the event changed
(``views._Looked``): these tests feed the same records to a redactor that looks at every card at
every event (``full_scan``) and require the same view, step by step, for every view: the events,
disclosures, renames, commitments and passcodes, and the names and knowledge behind them."""
from __future__ import annotations

import pytest
from duel import BATTLE_OX, CARDS, DARK_MAGICIAN, KURIBOH, MIRROR_FORCE, MST, MYSTICAL_ELF, POT, RAIGEKI, position
from test_views import CASES, SECRET, VIEWERS, _shuffle_record, events_of

from ygoreplay.events import Event, from_dict
from ygoreplay.views import Redactor


def _rolled_back_reveal() -> list[Event]:
    start = position(None, {"hand": [DARK_MAGICIAN, POT, MIRROR_FORCE, RAIGEKI, MST]}, turn=2, turn_player=1)
    return [from_dict(e) for e in (
        start,
        {"kind": "card_revealed", "cards": ["p1.s13"]},
        {"kind": "rolled_back", "to": 1, "judge": "J", "reason": "the reveal was a misplay"},
        {"kind": "spell_trap_set", "player": 1, "card": "p1.s13", "zone": 2},
        {"kind": "card_revealed", "cards": ["p1.s11"]})]


def _activated_in_hand() -> list[Event]:
    """A card activated from the hand stays there: known while its link is open, lost track of
    once the link resolves (its hand mixed), though nothing about the card changed."""
    start = position(None, {"hand": [KURIBOH, POT, MIRROR_FORCE]}, turn=2, turn_player=0)
    return [from_dict(e) for e in (
        start,
        {"kind": "activated", "player": 1, "card": "p1.s11", "effect_type": "quick"},
        {"kind": "chain_link_resolved", "link": 1},
        {"kind": "chain_ended"},
        {"kind": "card_revealed", "cards": ["p1.s12"]})]


def _face_up_shuffled() -> list[Event]:
    """A shuffle naming a face-up card (refused, ZONE-16): the opponent's view deals the cards new
    names and forgets them, and learns the face-up one again at the next event."""
    board = position({"mzone": [None, {"code": MYSTICAL_ELF, "id": "elf"},
                                {"code": BATTLE_OX, "id": "ox", "position": "set"}]}, {})
    return [from_dict(board),
            from_dict({"kind": "set_cards_shuffled", "cards": ["elf", "ox"], "zones": [2, 1], "cause": "shadows"}),
            from_dict({"kind": "judge_note", "judge": "J", "note": "noted"})]


def _shuffled_back() -> list[Event]:
    return _shuffle_record([2, 1]) + [
        from_dict({"kind": "rolled_back", "to": 2, "judge": "J. Doe", "reason": "wrong order"}),
        from_dict({"kind": "set_cards_shuffled", "cards": ["elf", "ox"], "zones": [1, 2], "cause": "shadows"}),
        from_dict({"kind": "position_changed", "card": "elf", "position": "attack", "cause": "flip"})]


RECORDS = {**{case: lambda case=case: list(events_of(case)) for case in CASES},
           "rolled-back reveal": _rolled_back_reveal, "set cards shuffled, rolled back": _shuffled_back,
           "activated in the hand": _activated_in_hand, "face-up card shuffled": _face_up_shuffled}


def _state(redactor: Redactor) -> tuple:
    names = redactor.names
    return dict(names.of), set(names.known), names.fresh, list(names.tokens), list(names.undo)


@pytest.mark.parametrize("view", VIEWERS)
@pytest.mark.parametrize("record", sorted(RECORDS))
def test_looking_at_the_changed_cards_gives_the_view_looking_at_every_card_gives(record, view):
    events = RECORDS[record]()
    incremental, full = Redactor(CARDS, view, SECRET), Redactor(CARDS, view, SECRET, full_scan=True)
    for index, event in enumerate(events):
        a, b = incremental.feed(event), full.feed(event)
        assert (a.event, a.disclosures, a.renames, a.commitments, a.codes) == \
               (b.event, b.disclosures, b.renames, b.commitments, b.codes), f"{record}, {view}: event {index}"
        assert _state(incremental) == _state(full), f"{record}, {view}: names after event {index}"
    assert incremental.redaction == full.redaction
    assert incremental.looked is not None and full.full_scan and not incremental.full_scan


def test_the_records_exercise_what_the_incremental_path_must_follow():
    """The records above hold the events that change what a view knows apart from a card's
    move: reveals and activations (shown for the moment), rollbacks and a Set-card shuffle."""
    kinds = {event.kind for make in RECORDS.values() for event in make()}
    assert {"card_revealed", "activated", "rolled_back", "set_cards_shuffled", "token_created",
            "deck_shuffled", "position_set_up"} <= kinds
