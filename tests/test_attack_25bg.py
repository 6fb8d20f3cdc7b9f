"""Attack 25bg (twenty-second pass): the doors this pass opened or changed.

Found: a snapshot written before snapshots named their version (snap22) is read as this
version's whenever its shape fits (``History.readable``, ``DuelState.fits``), but judge22 changed
what ``card_text`` holds in the same shape (EFF-04: a card's own move to the hand or the Deck, a
material, a cost are noted; a chain no trigger opens moves the duel on). On a store the previous
version wrote (f33f888, checked by hand against one it wrote: the snapshot differs from this
version's only by the hand move it did not note), an append resumed from such a snapshot let a
late trigger through in a machine record, and ``verify`` of the unaltered record said the snapshot
was "not the state the events give there". Now a snapshot naming no version whose fold read card
scripts is folded again, never misread; one whose fold read none is still used.
"""
from __future__ import annotations

import pytest

from test_rule_scenarios_39 import CARDS, HAND_MOLE, SALVAGE, card, trigger
from test_rule_scenarios_27 import ev
from test_snapshot_version import AT, rewrite
from test_store import open_store, store, store_url  # noqa: F401
from duel import position
from ygoreplay.events import from_dict
from ygoreplay.rules import RuleViolation
from ygoreplay.rules.card_text import SEEN

#: Test Salvage adds Test Hand Mole ("if this card is added to your hand") to the hand as the
#: snapshot's last event; the duel then moves on (the Battle Phase) before the trigger.
FIRST = [position({"gy": [card("hand_mole", HAND_MOLE)], "hand": [card("salvage", SALVAGE)]}, turn=4),
         *[ev("die_rolled", player=0, results=[3]) for _ in range(AT - 4)],
         ev("activated", player=0, card="salvage", zone=1), ev("chain_link_resolved", link=1),
         ev("card_moved", card="hand_mole", to=[0, "hand"], reason="added", cause="salvage"),
         ev("card_moved", card="salvage", to=[0, "gy"], reason="resolved"), ev("chain_ended")]
LATE = [ev("phase_entered", phase="battle"), trigger("hand_mole")]


def as_written_before_judge22(data: dict) -> None:
    """The snapshot as f33f888 wrote it: no version named, and no note of the card's move to the
    hand (EFF-04's window was kept for its own summon, going to the GY or banished only)."""
    del data["v"]
    data["state"]["scalars"]["card_text"][SEEN] = {}


def test_an_older_versions_snapshot_of_a_duel_with_scripts_is_folded_again_not_misread(store_url, store, open_store):
    duel, count, refused = store.record([from_dict(e) for e in FIRST], "upgraded", cards=CARDS)
    assert (count, refused) == (len(FIRST), None)
    rewrite(store_url, store, duel, as_written_before_judge22)
    upgraded = open_store()                             # this version, opening the store it left
    verified = upgraded.verify(duel)
    assert verified.ok, verified.problem                # before: the unaltered record failed verify
    with pytest.raises(RuleViolation) as late:          # before: the late trigger was stored
        upgraded.append_records(duel, [from_dict(e) for e in LATE])
    assert late.value.rule == "EFF-04"
    assert upgraded.info(duel).events == len(FIRST)
