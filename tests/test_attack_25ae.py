"""Attacks on issue 25's fourteenth pass, third round (``attack25ae``): the merges recorder14b,
i18n14 and attack25ad, reached by another door.

* LOG-12 / LOG-11: a correction strikes no other's seal (attack25ad), and a player corrects
  their own entries only, were checked on the events the fold holds in memory only. A fold resumed from a snapshot (every ``SNAPSHOT_EVERY`` events:
  each command line append, the service after a restart or once a duel left its cache) holds none
  before the snapshot, so the table recorder's correction going back past a player's seal made
  before it was stored, the card unsealed (the hole attack25ad closed, open through another door),
  and a player's correction struck the recorder's entries made before it.
"""
from __future__ import annotations

import pytest

from test_attack_25ad import _sealed_draw
from duel import CARDS
from ygoreplay.events import EntryCorrected
from ygoreplay.rules import History, RuleViolation


def _resumed_after(record: list) -> History:
    """The fold of ``record`` as a store resumes it: from a snapshot taken after its last event
    (``History.to_data``/``from_data``), earlier states made again by folding the record."""
    def restore(position: int):
        return History(CARDS).extend(record[:position])
    held = History(CARDS)
    held.extend(record)
    return History.from_data(held.to_data(), CARDS, restore=restore)


def test_a_recorders_correction_past_a_seal_is_refused_by_a_fold_resumed_from_a_snapshot():
    """LOG-12/LOG-11: the recorder's correction of its draw entry back past player's seal of the
    card drawn is refused by a fold resumed after the seal as by one that folded the whole record;
    the sealer's own correction of it still goes, and the recorder's after it."""
    record, seal = _sealed_draw()
    history = _resumed_after(record)
    card, sealer = record[seal].seals[0][0], record[seal].player
    with pytest.raises(RuleViolation) as refused:
        history.append(EntryCorrected(to=seal - 1, reason="wrong card drawn", entered_by="recorder"))
    assert refused.value.rule == "LOG-12" and f"{card} was sealed by player {sealer}" in refused.value.message
    from ygoreplay import i18n
    with i18n.using("ja"):                                         # translated where shown
        assert i18n.said(refused.value.message).startswith(f"訂正は他人のシールを取り消さない：{card} は #{seal - 1} 以降")
    assert history.state.cards[card].seal is not None            # nothing was struck
    history = _resumed_after(record)
    history.append(EntryCorrected(to=seal, reason="sealed the wrong card", entered_by=f"p{sealer}"))
    assert history.state.cards[card].seal is None
    history.append(EntryCorrected(to=seal - 1, reason="wrong card drawn", entered_by="recorder"))


def test_a_players_correction_past_the_recorders_entry_is_refused_by_a_fold_resumed_from_a_snapshot():
    """LOG-12: a player corrects their own entries only. Their correction going back past the
    recorder's draw entry, made before the fold's snapshot, was stored (the fold checked the
    entries it holds in memory only), the recorder's entry struck without a dispute or a judge."""
    record, seal = _sealed_draw()
    sealer = record[seal].player
    whole = History(CARDS)
    whole.extend(record)
    for history in (whole, _resumed_after(record)):
        with pytest.raises(RuleViolation) as refused:
            history.append(EntryCorrected(to=seal - 1, reason="not my draw", entered_by=f"p{sealer}"))
        assert refused.value.rule == "LOG-12"
        assert f"p{sealer} corrects their own entries; #{seal - 1} was entered by recorder" in refused.value.message
