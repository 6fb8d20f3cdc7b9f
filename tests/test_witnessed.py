"""Witnessed duels (issue 22): what stood at the table is kept, and who said so.

A duel whose duel_started says ``witnessed`` keeps an event that breaks a rule, flagged with its
rule ID (``rules.base.fail``: the one place, whichever door the event came through); an event
that cannot be applied at all is still refused. Each event says who entered it (stamped from the
writer's role), the other side confirms or disputes it, a judge rules on it, and a mis-entry is
corrected within its turn (LOG-12) without a judge. A machine's record refuses as before.
"""
from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from test_match_doors import service  # noqa: F401  (fixture: a service on a SQLite store whose path it names)
from test_service import ADMIN, auth, events_of
from ygoreplay.application import check
from ygoreplay.cards import CardDB
from ygoreplay.cli import main
from ygoreplay.events import from_dict
from ygoreplay.jsonl import read_events
from ygoreplay.replay_file import read, verify_chain
from ygoreplay.rules import History, RuleViolation, audit
from ygoreplay.rules import history as history_module
from ygoreplay.state import DuelState

DB = CardDB.classic()
REPLAYS = Path(__file__).resolve().parent.parent / "replays"
WON = events_of("won-by-damage.jsonl")
#: Play up to Kaiba's Normal Summon of turn 2 (#17), recorded at a table.
TABLE = [{**WON[0], "witnessed": True}, *WON[1:18]]
SECOND = {"kind": "normal_summoned", "player": 1, "card": "p1.m4", "zone": 3}     # #18: SUM-01
BATTLE = {"kind": "phase_entered", "phase": "battle"}


def fold(dicts: list[dict], **kw) -> History:
    history = History(DB, **kw)
    for data in dicts:
        history.append(from_dict(data), strict=True)
    return history


def effective_state(dicts: list[dict], history: History) -> dict:
    """The state a fresh fold of only the events still in effect gives (what going back must equal)."""
    kept = [d for i, d in enumerate(dicts) if i not in history.reverted
            and d["kind"] not in ("rolled_back", "entry_corrected", "entry_confirmed", "entry_disputed")]
    fresh = History(DB)
    for data in kept:
        fresh.append(from_dict(data))
    data = fresh.state.to_data()
    data["scalars"].pop("index")
    return data


def state_of(history: History) -> dict:
    data = history.state.to_data()
    data["scalars"].pop("index")
    return data


# -- the fold ------------------------------------------------------------------------------------------

def test_a_witnessed_duel_keeps_an_illegal_play_flagged_in_every_mode():
    for kw in ({}, {"audit": True}):
        history = fold([*TABLE, SECOND], **kw)           # strict appends: a machine's would raise
        assert [(f.index, f.rule) for f in history.flags] == [(18, "SUM-01")]
        assert history.violations == [] and history.position == 19
        assert history.state.cards["p1.m4"].zone == "mzone", "the play stood: the monster is on the field"


def test_a_machines_record_still_refuses_the_same_play_exactly_as_before():
    machine = [WON[0], *WON[1:18]]
    with pytest.raises(RuleViolation) as refused:
        fold([*machine, SECOND])
    assert (refused.value.rule, refused.value.index) == ("SUM-01", 18)
    report = audit([from_dict(d) for d in [*machine, SECOND]], DB)
    assert [(v.index, v.rule) for v in report.violations] == [(18, "SUM-01")]
    assert report.history.flags == []


def test_an_event_that_cannot_be_applied_is_refused_even_when_witnessed():
    with pytest.raises(RuleViolation) as refused:
        fold([*TABLE, {**SECOND, "card": "p1.m99"}])
    assert refused.value.rule == "LOG-01"
    history = fold(TABLE)
    with pytest.raises(RuleViolation):
        history.append(from_dict({**SECOND, "card": "p1.m99"}), strict=True)
    assert history.flags == [] and history.position == 18, "a refused event leaves no flag behind"


def test_a_judges_word_is_still_refused_in_a_witnessed_duel():
    with pytest.raises(RuleViolation) as refused:
        fold([*TABLE, {"kind": "judge_note", "judge": " ", "note": "slow play"}])
    assert refused.value.rule == "MATCH-08"
    with pytest.raises(RuleViolation) as half:
        fold([*TABLE, {"kind": "judge_note", "judge": "A. Judge", "note": "it stands", "on": 17}])
    assert half.value.rule == "LOG-05", "a ruling on an entry says what was decided"


def test_a_flag_reverted_by_a_rollback_stays_listed_and_is_not_flagged_twice():
    rollback = {"kind": "rolled_back", "to": 18, "judge": "A. Judge", "reason": "second Normal Summon"}
    events = [*TABLE, SECOND, BATTLE, rollback, BATTLE]
    history = fold(events)
    assert [(f.index, f.rule) for f in history.flags] == [(18, "SUM-01")]
    assert history.ruling_on(18) == {"at": 20, "how": "rolled_back", "decision": "reverted", "judge": "A. Judge"}
    assert history.state.cards["p1.m4"].zone == "hand"
    assert state_of(history) == effective_state(events, history)


def test_a_ruling_lets_a_flagged_play_stand():
    ruling = {"kind": "judge_note", "judge": "A. Judge", "note": "found too late", "category": "ruling",
              "on": 18, "decision": "stands"}
    history = fold([*TABLE, SECOND, BATTLE, ruling])
    assert history.ruling_on(18) == {"at": 20, "how": "judge_note", "decision": "stands", "judge": "A. Judge"}
    assert fold([*TABLE, SECOND]).ruling_on(18) is None, "open until something follows it"


# -- who said so ----------------------------------------------------------------------------------------

def test_the_other_side_confirms_or_disputes_an_entry_and_a_dispute_waits_for_a_judge():
    recorded = [{**d, "entered_by": "recorder"} for d in TABLE]
    confirm = {"kind": "entry_confirmed", "on": 17, "entered_by": "p0"}
    dispute = {"kind": "entry_disputed", "on": 17, "entered_by": "p1", "reason": "it was Set"}
    history = fold([*recorded, confirm, dispute])
    marks = history.marks(17)
    assert marks["by"] == "recorder" and marks["confirmed"] == 18 and not marks["unconfirmed"]
    assert marks["disputed"] == {"at": 19, "by": "p1", "reason": "it was Set", "open": True}
    assert history.marks(16)["unconfirmed"] and not history.marks(18)["unconfirmed"]
    history.append(from_dict({"kind": "judge_note", "judge": "A. Judge", "note": "it was summoned",
                              "on": 17, "decision": "stands"}))
    assert history.marks(17)["disputed"]["open"] is False
    assert history.state.index == 21 and history.state.cards["p1.m0"].zone == "mzone", "no play changed"


@pytest.mark.parametrize("remark, rule", [
    ({"kind": "entry_confirmed", "on": 17, "entered_by": "recorder"}, "LOG-05"),   # not a player
    ({"kind": "entry_confirmed", "on": 17}, "LOG-05"),                             # nobody named
    ({"kind": "entry_confirmed", "on": 17, "entered_by": "p1"}, "LOG-05"),         # p1's own entry
    ({"kind": "entry_disputed", "on": 18, "entered_by": "p0", "reason": "?"}, "LOG-02"),   # itself
    ({"kind": "entry_confirmed", "on": 40, "entered_by": "p0"}, "LOG-02"),         # not yet entered
])
def test_a_confirmation_is_the_other_sides_of_an_earlier_entry(remark, rule):
    entered = [*[{**d, "entered_by": "recorder"} for d in TABLE[:17]], {**TABLE[17], "entered_by": "p1"}]
    with pytest.raises(RuleViolation) as refused:
        fold([*entered, remark])
    assert (refused.value.rule, refused.value.index) == (rule, 18)


def test_a_machines_record_has_no_confirmations_nor_corrections():
    machine = WON[:18]
    for event in ({"kind": "entry_confirmed", "on": 17, "entered_by": "p0"},
                  {"kind": "entry_corrected", "to": 17, "reason": "wrong card"}):
        with pytest.raises(RuleViolation) as refused:
            fold([*machine, event])
        assert refused.value.rule in ("LOG-05", "LOG-12")


# -- corrections (LOG-12) ------------------------------------------------------------------------------

def test_a_correction_strikes_the_current_turns_entries_without_a_judge():
    """LOG-12: a correction within the current turn goes back like a rollback, struck, no judge."""
    correction = {"kind": "entry_corrected", "to": 18, "reason": "entered the Battle Phase by mistake"}
    events = [*TABLE, BATTLE, correction]
    history = fold(events)
    assert history.struck == {18: 19} and history.rollbacks == []
    assert history.state.phase == "main1"
    assert history.ruling_on(18) == {"at": 19, "how": "entry_corrected", "decision": "corrected", "judge": None}
    assert state_of(history) == effective_state(events, history)


def test_the_turns_own_start_may_be_corrected_but_not_what_came_before():
    """LOG-12: the current turn's turn_started may be corrected; turn 1's End Phase may not."""
    history = fold([*TABLE, {"kind": "entry_corrected", "to": 12, "reason": "it was not Kaiba's turn yet"}])
    assert history.state.turn == 1 and 12 in history.struck
    with pytest.raises(RuleViolation) as refused:             # turn 1's End Phase: not this turn's
        fold([*TABLE, {"kind": "entry_corrected", "to": 11, "reason": "mis-entry"}])
    assert (refused.value.rule, refused.value.index) == ("LOG-12", 18)
    assert "entry of the current turn (12..17)" in refused.value.message


def test_a_player_corrects_their_own_entries_and_disputes_the_others():
    """LOG-12: a player's correction strikes only what they entered; the recorder's, anyone's."""
    entered = [*[{**d, "entered_by": "recorder"} for d in TABLE[:17]], {**TABLE[17], "entered_by": "p1"},
               {**BATTLE, "entered_by": "p1"}]
    history = fold([*entered, {"kind": "entry_corrected", "to": 18, "reason": "not yet", "entered_by": "p1"}])
    assert 18 in history.struck
    with pytest.raises(RuleViolation) as refused:
        fold([*entered, {"kind": "entry_corrected", "to": 18, "reason": "not so", "entered_by": "p0"}])
    assert refused.value.rule == "LOG-12" and "entered by p1: dispute it" in refused.value.message
    with pytest.raises(RuleViolation) as refused:
        fold([*entered, {"kind": "entry_corrected", "to": 16, "reason": "mine too?", "entered_by": "p1"}])
    assert refused.value.rule == "LOG-12" and "#16 was entered by recorder" in refused.value.message
    assert 16 in fold([*entered, {"kind": "entry_corrected", "to": 16, "reason": "scribe's slip",
                                  "entered_by": "recorder"}]).struck


def test_no_correction_after_the_end():
    ended = [{**WON[0], "witnessed": True}, *WON[1:]]
    with pytest.raises(RuleViolation) as refused:
        fold([*ended, {"kind": "entry_corrected", "to": len(WON) - 1, "reason": "wrong winner"}])
    assert refused.value.rule == "LOG-12" and "over" in refused.value.message


@pytest.mark.parametrize("every", [256, 2])
def test_a_rollback_after_a_correction_and_a_correction_after_a_rollback(monkeypatch, every):
    monkeypatch.setattr(history_module, "CHECKPOINT_EVERY", every)     # also with a checkpoint every 2 events
    correction = {"kind": "entry_corrected", "to": 18, "reason": "no Battle Phase"}
    rollback = {"kind": "rolled_back", "to": 17, "judge": "A. Judge", "reason": "summon in the wrong zone"}
    summon = {"kind": "normal_summoned", "player": 1, "card": "p1.m0", "zone": 1}
    # a correction, then a judge's rollback past it
    first = [*TABLE, BATTLE, correction, BATTLE, rollback, summon]
    history = fold(first)
    assert history.struck == {18: 19} and history.reverted == {18: 19, 17: 21, 20: 21}
    assert state_of(history) == effective_state(first, history)
    with pytest.raises(RuleViolation) as twice:                       # struck is struck: no going there again
        history.append(from_dict({**correction, "to": 18}))
    assert "struck" in twice.value.message
    # a rollback, then a correction after it
    second = [*TABLE, BATTLE, rollback, summon, BATTLE, {**correction, "to": 21}]
    history = fold(second)
    assert history.reverted == {17: 19, 18: 19, 21: 22} and history.struck == {21: 22}
    assert history.state.phase == "main1" and history.state.cards["p1.m0"].zone == "mzone"
    assert state_of(history) == effective_state(second, history)
    with pytest.raises(RuleViolation) as at_a_correction:
        history.append(from_dict({**rollback, "to": 22}))
    assert at_a_correction.value.rule == "LOG-02"


def test_a_snapshot_keeps_the_flags_and_the_book_of_entries():
    events = [*[{**d, "entered_by": "recorder"} for d in TABLE], {**SECOND, "entered_by": "recorder"},
              {"kind": "entry_disputed", "on": 18, "entered_by": "p0", "reason": "second summon"},
              {**BATTLE, "entered_by": "recorder"},
              {"kind": "entry_corrected", "to": 20, "reason": "no Battle Phase", "entered_by": "recorder"}]
    history = fold(events)
    resumed = History.from_data(json.loads(json.dumps(history.to_data())), DB)
    assert resumed.flags == history.flags and resumed.struck == history.struck
    assert [resumed.marks(i) for i in range(22)] == [history.marks(i) for i in range(22)]
    resumed.append(from_dict({"kind": "entry_confirmed", "on": 18, "entered_by": "p0"}))   # p0 not p1: the recorder's


def test_old_records_load_and_write_unchanged():
    for path in sorted(REPLAYS.glob("*.jsonl")):
        if path.name.startswith("witnessed") or ".public" in path.name:      # new samples: no .ygr of their own
            continue
        events = read_events(path)
        assert all("entered_by" not in e.to_dict() and "witnessed" not in e.to_dict() for e in events)
        judge = read(REPLAYS / path.name.replace(".jsonl", ".judge.ygr"))
        assert verify_chain(judge) is None, "the chain hashes each event's wire form: it is unchanged"
    assert from_dict(WON[0]).witnessed is False
    old = {"kind": "duel_started", "first_player": 0}                # version 1, as first written
    assert from_dict(old).to_dict() == old


# -- the sample ---------------------------------------------------------------------------------------

def test_the_witnessed_sample_lists_its_flag_and_the_judges_ruling():
    events = read_events(REPLAYS / "witnessed-illegal-play.jsonl")
    data = check(events, DB).to_dict()
    assert data["violations"] == []
    [flag] = data["flagged"]
    assert (flag["rule"], flag["by"]) == ("SUM-01", "recorder")
    assert flag["ruled"]["how"] == "judge_note" and flag["ruled"]["decision"] == "stands"
    assert [s["index"] for s in data["struck"]] == [26]
    assert data["disputed"][0]["open"] is False
    audited = CliRunner().invoke(main, ["audit", str(REPLAYS / "witnessed-illegal-play.jsonl")])
    assert audited.exit_code == 0, audited.output
    assert f"#{flag['index']} flagged SUM-01" in audited.output and "stands" in audited.output
    log = CliRunner().invoke(main, ["log", str(REPLAYS / "witnessed-illegal-play.jsonl")]).output
    assert "[flagged SUM-01]" in log and "[struck: corrected at #27]" in log and "[unconfirmed]" in log


@pytest.mark.parametrize("language, words", [
    ("ja", ("指摘 SUM-01", "が裁定: そのまま有効", "取り消し: #27 で訂正された", "相手が確認していない入力が")),
    ("ko", ("지적 SUM-01", "재정:", "삭제됨: #27 에서 정정됨", "상대가 확인하지 않은 입력")),
    ("zh-Hans", ("被标记 SUM-01", "裁定：", "已划除：于 #27 更正", "未经对方确认")),
    ("zh-Hant", ("被標記 SUM-01", "裁定：", "已劃除：於 #27 更正", "未經對方確認")),
])
def test_audit_says_flags_disputes_and_struck_entries_in_the_readers_language(language, words):
    """``audit``/``check`` lines for a witnessed duel (flags, what followed, disputes, struck and
    unconfirmed entries) in the language chosen, not English in every language."""
    audited = CliRunner().invoke(main, ["--lang", language, "audit", str(REPLAYS / "witnessed-illegal-play.jsonl")])
    assert audited.exit_code == 0, audited.output
    for word in words:
        assert word in audited.output, (word, audited.output)
    for english in ("flagged SUM-01", "entered by", "struck: corrected", "not confirmed by the other side",
                    "disputed by"):
        assert english not in audited.output


# -- every door --------------------------------------------------------------------------------------

def write(tmp_path: Path, events: list[dict], name: str = "duel.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return str(path)


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_cli_record_witnessed_keeps_the_illegal_play_and_append_lists_flags(tmp_path):
    store = str(tmp_path / "s.sqlite")
    machine = [WON[0], *WON[1:18], SECOND]
    refused = run("record", write(tmp_path, machine), "--store", store)
    assert refused.exit_code == 1 and "#18 SUM-01" in refused.stderr
    done = run("record", write(tmp_path, machine), "--witnessed", "--json", "--store", store)
    assert done.exit_code == 0, done.output
    answer = json.loads(done.stdout)
    assert answer["events_stored"] == 19 and [(f["index"], f["rule"]) for f in answer["flags"]] == [(18, "SUM-01")]
    duel = answer["id"]
    third = {"kind": "normal_summoned", "player": 1, "card": "p1.m3", "zone": 4}
    confirm = {"kind": "entry_confirmed", "on": 18}
    appended = run("append", duel, write(tmp_path, [third], "more.jsonl"), "--json", "--store", store)
    assert json.loads(appended.stdout)["flags"][0]["index"] == 19
    by_p0 = run("append", duel, write(tmp_path, [confirm], "confirm.jsonl"), "--by", "p0", "--json", "--store", store)
    assert by_p0.exit_code == 0 and json.loads(by_p0.stdout)["flags"] == []
    ruled = run("note", duel, "found late: it stands", "--judge", "A. Judge", "--on", "18", "--decision", "stands",
                "--store", store)
    assert ruled.exit_code == 0, ruled.output
    exported = run("log", duel, "--json", "--store", store)
    entries = [json.loads(line) for line in exported.stdout.splitlines()]
    assert entries[0]["event"]["witnessed"] is True
    assert [e["event"].get("entered_by") for e in entries[18:]] == ["recorder", "recorder", "p0", "judge"]
    assert entries[18]["marks"]["confirmed"] == 20 and entries[18]["marks"]["ruled"]["decision"] == "stands"
    assert run("record", write(tmp_path, WON[1:3], "headless.jsonl"), "--witnessed", "--store", store).exit_code != 0


def post(base: str, duel: dict, role: str, events: list[dict]) -> httpx.Response:
    return httpx.post(f"{base}/duels/{duel['id']}/events", json=events, headers=auth(duel["tokens"][role]))


def new_duel(base: str, **body) -> dict:
    r = httpx.post(f"{base}/duels", json={"title": "table 7", "visibility": "unlisted", **body}, headers=auth(ADMIN))
    assert r.status_code == 201, r.text
    return r.json()


def test_http_a_witnessed_duel_must_begin_witnessed_and_a_machines_may_not(service):
    base = service.url
    witnessed = new_duel(base, mode="witnessed")
    dropped = post(base, witnessed, "recorder", WON[:18])
    assert dropped.status_code == 400 and '"witnessed": true' in dropped.json()["error"]
    machine = new_duel(base)
    upgraded = post(base, machine, "recorder", TABLE)
    assert upgraded.status_code == 400 and "machine" in upgraded.json()["error"]
    assert httpx.post(f"{base}/duels", json={"mode": "paper"}, headers=auth(ADMIN)).status_code == 400
    # a machine's duel refuses the illegal play exactly as before
    assert post(base, machine, "recorder", WON[:18]).status_code == 200
    refused = post(base, machine, "recorder", [SECOND])
    assert refused.status_code == 422 and refused.json()["rule"] == "SUM-01" and refused.json()["index"] == 18


def test_http_witnessed_events_are_kept_stamped_and_shown_to_the_viewer(service):
    base = service.url
    duel = new_duel(base, mode="witnessed")
    first = post(base, duel, "recorder", TABLE)
    assert first.status_code == 200 and first.json()["flags"] == []
    # the summon shows the table a card of player 1's hand: it ends its batch (``store._shown_last``)
    assert post(base, duel, "recorder", [SECOND, BATTLE]).status_code == 400
    kept = post(base, duel, "recorder", [SECOND])
    assert kept.status_code == 200, kept.text
    assert kept.json()["position"] == 19 and kept.json()["flags"] == [
        {"index": 18, "rule": "SUM-01", "message": kept.json()["flags"][0]["message"]}]
    assert post(base, duel, "recorder", [BATTLE]).json()["position"] == 20
    forged = post(base, duel, "recorder", [{"kind": "entry_confirmed", "on": 18, "entered_by": "p0"}])
    assert forged.status_code == 403 and "recorder" in forged.json()["error"]
    assert post(base, duel, "p0", [BATTLE]).status_code == 403, "play is the recorder's"
    assert post(base, duel, "p0", [{"kind": "entry_confirmed", "on": 17}]).status_code == 200
    on_a_remark = post(base, duel, "p1", [{"kind": "entry_disputed", "on": 20, "reason": "p0 confirmed it"}])
    assert on_a_remark.status_code == 422 and on_a_remark.json()["rule"] == "LOG-02"
    assert post(base, duel, "p0", [{"kind": "entry_disputed", "on": 18, "reason": "two summons"}]).status_code == 200
    corrected = post(base, duel, "recorder", [{"kind": "entry_corrected", "to": 19, "reason": "no Battle Phase"}])
    assert corrected.status_code == 200, corrected.text
    note = httpx.post(f"{base}/duels/{duel['id']}/notes", headers=auth(duel["tokens"]["judge"]),
                      json={"judge": "A. Judge", "text": "it stands", "category": "ruling", "on": 18, "decision": "stands"})
    assert note.status_code == 200, note.text
    lines = httpx.get(f"{base}/duels/{duel['id']}/events", headers=auth(duel["tokens"]["judge"])).text.splitlines()
    steps = [json.loads(line) for line in lines]
    assert [s["by"] for s in steps[17:]] == ["recorder", "recorder", "recorder", "p0", "p0", "recorder", "judge"]
    assert steps[18]["flags"][0]["rule"] == "SUM-01" and steps[18]["confirmed"] is None
    assert steps[18]["disputed"]["open"] is False and steps[18]["ruled"]["decision"] == "stands"
    assert steps[17]["confirmed"] == 20 and steps[16]["unconfirmed"] is True
    assert steps[19]["struck"] == 22 and steps[18]["struck"] is None
    frames = httpx.get(f"{base}/duels/{duel['id']}/frames", headers=auth(duel["tokens"]["judge"])).json()
    frames = frames["frames"] if isinstance(frames, dict) else frames
    assert frames[22]["to"] == 19 and frames[19]["struck"] == 22 and frames[18]["flags"][0]["rule"] == "SUM-01"
    audited = CliRunner().invoke(main, ["audit", duel["id"], "--json", "--store", str(service.path)])
    data = json.loads(audited.stdout)
    assert data["flagged"][0]["index"] == 18 and data["flagged"][0]["ruled"]["decision"] == "stands"
    assert data["struck"] == [{"index": 19, "by": "recorder", "corrected_at": 22}] and 19 not in data["reverted"]


def test_a_reader_held_back_learns_no_later_mark():
    from ygoreplay.live import marks_as_of
    history = fold([*[{**d, "entered_by": "recorder"} for d in TABLE],
                    {"kind": "entry_disputed", "on": 17, "entered_by": "p0", "reason": "it was Set"},
                    {"kind": "judge_note", "judge": "A. Judge", "note": "summoned", "on": 17, "decision": "stands"}])
    marks = history.marks(17)
    assert marks["ruled"]["at"] == 19 and marks["disputed"]["open"] is False
    held = marks_as_of(marks, 19)                         # the reader sees events #0..#18
    assert held["ruled"] is None and held["disputed"]["open"] is True
    assert marks_as_of(marks, 18)["disputed"] is None and marks_as_of(marks, None) == marks
