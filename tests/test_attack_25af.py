"""Attacks on issue 25's fourteenth pass, fourth round (``attack25af``): the merge attack25ae,
reached by another door.

* LOG-12: a correction strikes no judge's note (attack25ac). The check read only the events the
  fold holds in memory; a fold resumed from a snapshot (every ``SNAPSHOT_EVERY`` events: each
  command line append, the service after a restart or once a duel left its cache) holds none
  before it, so the table recorder's correction going back past a judge's note made before the
  latest snapshot was stored, the judge's word struck as a mis-entry. The judge's notes in
  effect are now kept in the fold's own data (``History.notes``, in its snapshot), so the check
  is the same from any resumed fold; a snapshot written before it is not resumed from, but
  folded again (``History.from_data``).
"""
from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner

from duel import CARDS
from test_attack_25ad import ROOT
from ygoreplay.cli import main
from ygoreplay.events import EntryCorrected, JudgeNote, RolledBack, Shows
from ygoreplay.jsonl import read_events
from ygoreplay.rules import History, RuleViolation


def _witnessed() -> list:
    """The sample duel, witnessed, each entry the table recorder's: an activated card named as the
    recorder names it, seeing it face-up (LOG-05, ``shows``), from the registered Decks."""
    events = read_events(ROOT / "replays" / "won-by-damage.jsonl")
    events[0] = dataclasses.replace(events[0], witnessed=True)
    decks = {e.player: e.main for e in events if e.kind == "deck_registered"}
    named = [dataclasses.replace(e, shows=Shows(((e.card, decks[int(e.card[1])][int(e.card[4:])]),)))
             if e.kind == "activated" else e for e in events]
    return [dataclasses.replace(e, entered_by="recorder") for e in named]


def _invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def _noted_duel(tmp_path) -> tuple[str, str]:
    """A witnessed duel stored through the command line (the store and the duel's id): turn 4
    (from #44), the judge's note at #50, then play to #65, so the snapshot after #63 holds no
    event of the note."""
    events = _witnessed()
    store = str(tmp_path / "s.sqlite")
    (tmp_path / "duel.jsonl").write_text("".join(json.dumps(e.to_dict()) + "\n" for e in events[:50]))
    done = _invoke("record", str(tmp_path / "duel.jsonl"), "--witnessed", "--json", "--store", store)
    assert done.exit_code == 0, done.output
    duel = json.loads(done.stdout)["id"]
    noted = _invoke("note", duel, "the summon stands", "--judge", "Head Judge", "--category", "ruling",
                    "--store", store)
    assert noted.exit_code == 0 and "event 50" in noted.output, noted.output
    (tmp_path / "play.jsonl").write_text("".join(json.dumps(e.to_dict()) + "\n" for e in events[50:65]))
    played = _invoke("append", duel, str(tmp_path / "play.jsonl"), "--by", "recorder", "--store", store)
    assert played.exit_code == 0 and played.stdout.strip() == "66", played.output
    assert not any(e.kind == "turn_started" for e in events[45:65])        # all of it turn 4's
    return store, duel


def _corrected(tmp_path, store: str, duel: str, to: int):
    """The recorder's correction back to ``to``, appended through the command line."""
    (tmp_path / "fix.jsonl").write_text(json.dumps({"kind": "entry_corrected", "to": to, "reason": "oops"}) + "\n")
    return _invoke("append", duel, str(tmp_path / "fix.jsonl"), "--by", "recorder", "--store", store)


def _refused_and_nothing_written(tmp_path, store: str, duel: str) -> None:
    refused = _corrected(tmp_path, store, duel, 49)
    said = refused.output + refused.stderr
    assert refused.exit_code != 0 and "LOG-12" in said and "strikes no judge's note: #50" in said, said
    logged = _invoke("log", duel, "--json", "--store", store)
    assert len(logged.stdout.splitlines()) == 66                            # nothing was written
    assert all(json.loads(line).get("struck") is None for line in logged.stdout.splitlines())


def test_the_command_lines_append_refuses_a_recorders_correction_past_a_judges_note_before_the_last_snapshot(tmp_path):
    """LOG-12, through the door that resumes from a snapshot each time (``_noted_duel``): the
    recorder's correction back to #49 was stored (the judge's note struck); it is refused naming
    the note, nothing written. A correction after the note is the recorder's as before, and the
    judge's own rollback still goes back past it."""
    store, duel = _noted_duel(tmp_path)
    _refused_and_nothing_written(tmp_path, store, duel)
    after = _corrected(tmp_path, store, duel, 60)
    assert after.exit_code == 0 and after.stdout.strip() == "67", after.output + after.stderr
    back = _invoke("rollback", duel, "--to", "49", "--judge", "Head Judge", "--reason", "misplay", "--store", store)
    assert back.exit_code == 0, back.output + back.stderr
    assert len(_invoke("log", duel, "--json", "--store", store).stdout.splitlines()) == 68


def test_a_fold_resumed_after_a_judges_note_refuses_the_correction_past_it_as_the_whole_fold_does():
    """LOG-12: the fold resumed from its snapshot (``to_data``/``from_data``) after the note
    refuses the recorder's correction back past it as the fold of the whole record does; once a
    judge's rollback reverted the note, the note is no longer in effect, and a correction back
    past where it was goes (it strikes no judge's word)."""
    events = _witnessed()
    record = [*events[:50], JudgeNote(judge="Head Judge", note="the summon stands", entered_by="judge"),
              *events[50:65]]

    def resumed(upto: list) -> History:
        whole = History(CARDS)
        whole.extend(upto)
        return History.from_data(whole.to_data(), CARDS, restore=lambda at: History(CARDS).extend(upto[:at]))
    whole = History(CARDS)
    whole.extend(record)
    for history in (whole, resumed(record)):
        with pytest.raises(RuleViolation) as refused:
            history.append(EntryCorrected(to=49, reason="oops", entered_by="recorder"))
        assert refused.value.rule == "LOG-12" and "#50" in refused.value.message
        assert not history.reverted
    rolled = [*record, RolledBack(to=50, judge="Head Judge", reason="the note was on the wrong table",
                                  entered_by="judge"), *events[50:53]]
    history = resumed(rolled)
    history.append(EntryCorrected(to=49, reason="oops", entered_by="recorder"))
    assert history.reverted[50] == len(record)                             # the judge's rollback's


def test_a_store_whose_snapshots_predate_the_notes_kept_verifies_and_refuses_the_correction(tmp_path, monkeypatch):
    """A witnessed duel's snapshots written before the judge's notes were kept in them (no
    ``notes``): the store still verifies, is not resumed from them (they cannot say which notes
    stand), and so refuses the recorder's correction past the note, writing nothing."""
    to_data = History.to_data

    def old_form(self: History) -> dict:
        data = to_data(self)
        data.get("witnessed", {}).pop("notes", None)
        return data
    with monkeypatch.context() as patched:
        patched.setattr(History, "to_data", old_form)
        store, duel = _noted_duel(tmp_path)
    checked = _invoke("verify", duel, "--store", store)
    assert checked.exit_code == 0, checked.output + checked.stderr
    _refused_and_nothing_written(tmp_path, store, duel)


def test_a_snapshot_without_the_notes_is_resumed_from_once_the_duel_is_over_only():
    """A witnessed snapshot of the older form (no ``notes``) is no fold to correct from while the
    duel goes on (KeyError: the store folds again instead), but after its end no correction
    follows (LOG-12), so a seek still resumes from it."""
    events = _witnessed()
    record = [*events[:50], JudgeNote(judge="Head Judge", note="the summon stands", entered_by="judge"), *events[50:]]
    for upto, ends in ((record[:66], False), (record, True)):
        held = History(CARDS)
        held.extend(upto)
        data = held.to_data()
        assert data["witnessed"].pop("notes") == [50] and held.state.ended is ends
        if ends:
            assert History.from_data(data, CARDS).state.ended
        else:
            with pytest.raises(KeyError):
                History.from_data(data, CARDS)
