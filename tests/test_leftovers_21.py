"""Leftovers of the twentieth pass closed (``leftovers21``): a record stored before LOG-05's
one-name check still opens, a round's late seal stripped is seen on every read, a round's
witness receipt signed as a round's, the library found by installed card names, the recorder
page's UNSIGNED line kept live."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from duel import refused_with
from ygoreplay.application import Records, trusted_keys
from ygoreplay.jsonl import read_events
from ygoreplay.replay_file import dumps, loads
from ygoreplay.rules import audit, setup
from ygoreplay.store import Store

REPLAYS = Path(__file__).resolve().parent.parent / "replays"


# -- 1. nothing recorded is lost: a duel of one name twice stored before LOG-05's check ----------

def _one_name_twice() -> list:
    """A real duel whose duel_started names Yugi twice, once in full-width letters."""
    events = read_events(REPLAYS / "won-by-damage.jsonl")
    events[0] = dataclasses.replace(events[0], players=("Yugi", "ＹＵＧＩ"))
    return events


def _stored_before_the_check(store: Store, monkeypatch) -> str:
    """The duel as a store held it before LOG-05's check: written, anchored and signed through
    the store's own append with the check set aside for the write only."""
    events = _one_name_twice()
    with monkeypatch.context() as patched:
        patched.setattr(setup, "name_key", lambda name: name)      # the store as it was before the check
        duel = store.create_duel("before the check")
        store.append(duel, events)
    return duel


def test_log_05_a_duel_of_one_name_twice_stored_before_the_check_opens_reads_and_verifies(tmp_path, monkeypatch):
    """A duel stored (signed, anchored, snapshotted) before LOG-05 refused one name twice no
    longer verified (its snapshots no longer the state its events gave), exported nor audited
    past its start: the fold of a stored record refused its duel_started, and with it every
    event after. Judged as stored it is kept, its start flagged LOG-05: it opens, reads, verifies,
    exports as a signed file that verifies, reads and imports, the flag said each time. A new
    duel of one name twice is refused as before, witnessed or not."""
    store = Store(str(tmp_path / "duels.sqlite"))
    duel = _stored_before_the_check(store, monkeypatch)
    assert store.verify(duel).ok, store.verify(duel)
    loaded = store.load(duel)
    assert len(loaded.events) == 89
    state = store.state_at(duel)
    assert state.ended and state.winner == 0 and state.players == ("Yugi", "ＹＵＧＩ")
    report = audit(loaded.events, store.cards_of(duel)[0])
    assert [(v.index, v.rule) for v in report.violations] == [(0, "LOG-05")]
    assert report.state.winner == 0
    # the file it exports: signed, and it verifies, reads and imports as what it is, flagged
    data = dumps(Records(store).export(duel), store.key)
    replay = loads(data)
    assert replay.signature_valid and len(replay.events) == 89
    other = Store(str(tmp_path / "other.sqlite"))
    recorded = Records(other).import_replay(loads(data), None, trusted_keys([], store.key))
    assert recorded.stored == 89 and [v.rule for v in recorded.violations] == ["LOG-05"]
    assert other.verify(recorded.id).ok and other.state_at(recorded.id).winner == 0
    # what the stored record is let keep, no new write gets: recorded anew, refused at its start
    anew = Records(store).record(_one_name_twice(), "anew")
    assert anew.id is None and anew.stored == 0 and anew.violation.rule == "LOG-05"
    started = {"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["Yugi", "ＹＵＧＩ"]}
    for witnessed in (False, True):
        refused_with([{**started, "witnessed": witnessed}], "LOG-05", "read as one name")

