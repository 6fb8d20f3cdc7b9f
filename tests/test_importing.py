"""The importer interface (``ygoreplay.importing``) and the rule functions importers call.

An importer maps another engine's stream to our events; where a rule decides (battle damage,
open game state, Pendulum Scales, Tributes, what may follow a loss) it calls the rules'
own function, so an import and the fold cannot disagree about the rule. Each rule function has
a legal and an illegal case, with its rule ID; ``fold_and_compare`` works without a format's own
board check, as a second format would use it.
"""
from __future__ import annotations

import pytest

from conftest import shared_path
from ygoreplay import importing
from ygoreplay.cards import CardDB
from ygoreplay.events import DuelEnded, LifePointsChanged
from ygoreplay.rules.base import has_open_game_state
from ygoreplay.rules.battle import battle_outcome
from ygoreplay.rules.fold import AFTER_LOSS
from ygoreplay.rules.summon import PROPER_METHODS, between_scales, tributes_needed
from ygoreplay.yrpx import EDOPRO, YrpxError, fold_and_compare, import_yrpx


@pytest.mark.parametrize("atk, target, expected", [
    (1800, (True, 1500), ("DMG-01", False, True, 0, 300)),
    (1500, (True, 1500), ("DMG-02", True, True, 0, 0)),
    (0, (True, 0), ("DMG-03", False, False, 0, 0)),
    (1000, (True, 1500), ("DMG-04", True, False, 500, 0)),
    (1800, (False, 1500), ("DMG-05", False, True, 0, 0)),
    (1500, (False, 1500), ("DMG-06", False, False, 0, 0)),
    (1000, (False, 1500), ("DMG-07", False, False, 500, 0)),
    (1200, None, ("DMG-08", False, False, 0, 1200)),
    (0, None, ("DMG-09", False, False, 0, 0)),
])
def test_battle_outcome_gives_each_damage_rule(atk, target, expected):
    assert battle_outcome(atk, target) == expected


def test_open_game_state_prio_06():
    assert has_open_game_state(0, 0, "main1", False)              # legal: the turn player's Main Phase
    assert has_open_game_state(1, 1, "main2", False)
    assert not has_open_game_state(1, 0, "main1", False)          # PRIO-06: not their turn
    assert not has_open_game_state(0, 0, "battle", False)         # PRIO-06: not a Main Phase
    assert not has_open_game_state(0, 0, "main1", True)           # PRIO-06: a chain is open


def test_between_scales_pend_03():
    assert between_scales(4, 1, 8) and between_scales(4, 8, 1)    # legal, either Scale first
    assert not between_scales(8, 1, 8)                             # PEND-03: strictly between
    assert not between_scales(1, 1, 8) and not between_scales(None, 1, 8)


def test_tributes_and_proper_methods():
    assert [tributes_needed(level) for level in (1, 4, 5, 6, 7, 12)] == [0, 0, 1, 1, 2, 2]   # SUM-04
    assert "effect" not in PROPER_METHODS and {"inherent", "xyz", "pendulum"} <= PROPER_METHODS  # SPS-12


def test_after_loss_win_01():
    assert "life_points_changed" in AFTER_LOSS and "duel_ended" in AFTER_LOSS     # legal after a loss
    assert "normal_summoned" not in AFTER_LOSS and "activated" not in AFTER_LOSS  # WIN-01: the duel is over


def test_fold_and_compare_without_a_board_check():
    """A format with no record of the board of its own: the audit, LP and winner alone."""
    from ygoreplay.events import DeckRegistered, DuelStarted
    events = [DuelStarted(first_player=0), DeckRegistered(player=0, main=()), DeckRegistered(player=1, main=()),
              LifePointsChanged(player=1, amount=8000, reason="effect_damage", lp=0, cause=None),
              DuelEnded(winner=0, reason="lp")]
    result = importing.ImportResult(events, CardDB(), [""] * len(events), ("a", "b"),
                                    importing.Expected(lp=(8000, 0), winner=0, reason="lp"), [], None,
                                    [-1] * len(events))
    agreement = importing.fold_and_compare(result)
    assert agreement.engine is None and agreement.lp and agreement.winner
    wrong = importing.ImportResult(events, CardDB(), result.times, ("a", "b"),
                                   importing.Expected(lp=(8000, 100), winner=1, reason="lp"), [], None, result.sources)
    verdict = importing.fold_and_compare(wrong)
    assert not verdict.lp and not verdict.winner and not verdict.ok


def test_edopro_is_a_replay_importer():
    importer: importing.ReplayImporter = EDOPRO
    folder = shared_path("real-replays", "edopro")
    path = next(p for p in sorted(folder.iterdir()) if p.suffix == ".yrpX")
    result = importer.import_file(path)
    assert result.events == import_yrpx(path).events
    agreement = fold_and_compare(result)
    assert agreement.ok and agreement.engine.ok
    with pytest.raises(YrpxError):
        importer.import_file(b"not a replay")
