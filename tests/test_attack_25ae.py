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

import dataclasses
import json

import pytest
from click.testing import CliRunner

from duel import CARDS
from test_attack_25ad import ROOT, _sealed_draw
from test_seals import two_devices
from ygoreplay.cli import main
from ygoreplay.events import CardsSealed, EntryCorrected
from ygoreplay.jsonl import read_events
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


def test_the_command_lines_append_refuses_a_recorders_correction_past_a_seal_before_the_last_snapshot(tmp_path):
    """The door itself: each ``ygoreplay append`` resumes the duel from its latest snapshot (every
    16 events). Turn 4's draw (#50) and its player's seal (#51), then play to #65: the snapshot
    after #63 holds neither. The recorder's correction back to the draw was stored, the seal
    struck; it is refused, and nothing is written."""
    events, _kept = two_devices(read_events(ROOT / "replays" / "won-by-damage.jsonl"))
    events[0] = dataclasses.replace(events[0], witnessed=True)
    record = [dataclasses.replace(e, entered_by=f"p{e.player}" if isinstance(e, CardsSealed) else "recorder")
              for e in events[:66]]
    assert record[51].kind == "cards_sealed" and not any(e.kind == "turn_started" for e in record[49:])
    store = str(tmp_path / "s.sqlite")
    (tmp_path / "duel.jsonl").write_text("".join(json.dumps(e.to_dict()) + "\n" for e in record))
    done = CliRunner().invoke(main, ["record", str(tmp_path / "duel.jsonl"), "--witnessed", "--json", "--store", store])
    assert done.exit_code == 0, done.output
    duel = json.loads(done.stdout)["id"]
    (tmp_path / "fix.jsonl").write_text(json.dumps({"kind": "entry_corrected", "to": 50, "reason": "wrong card drawn"}) + "\n")
    corrected = CliRunner().invoke(main, ["append", duel, str(tmp_path / "fix.jsonl"), "--by", "recorder", "--store", store])
    assert corrected.exit_code != 0 and "LOG-12" in corrected.output + corrected.stderr
    assert "was sealed by player 1" in corrected.output + corrected.stderr
    logged = CliRunner().invoke(main, ["log", duel, "--json", "--store", store])
    assert len(logged.stdout.splitlines()) == len(record)                # nothing was written
