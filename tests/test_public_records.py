"""Records of what their recorder saw (issue 22): a duel recorded from the public side only, with
unknown cards (passcode 0) named by the events that show them, checks, views, exports and
verifies end to end; what its record cannot decide is listed, never called."""
from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from test_release import client, store  # noqa: F401  (fixtures: the service in-process)
from ygoreplay.cards import CardDB
from ygoreplay.cli import main
from ygoreplay.events import DeckShuffled, Event, Shows, from_dict
from ygoreplay.exchange import make_replay
from ygoreplay.jsonl import read_events
from ygoreplay.replay_file import dumps, referenced_codes
from ygoreplay.rules import audit
from ygoreplay.views import ViewReplay, public_board, recorded_by, redact, view_cards

ROOT = Path(__file__).resolve().parent.parent
REPLAYS = ROOT / "replays"
PUBLIC = REPLAYS / "won-by-damage.public.jsonl"
DB = CardDB.classic()
KEY = b"k" * 32


def full(name: str = "won-by-damage.jsonl") -> list[Event]:
    return read_events(REPLAYS / name)


def run(*args, env: dict | None = None):
    return CliRunner().invoke(main, [str(a) for a in args], env=env)


def write(path: Path, events: list[Event]) -> Path:
    path.write_text("".join(json.dumps(e.to_dict()) + "\n" for e in events), encoding="utf-8")
    return path


def with_decklists(events: list[Event], source: list[Event]) -> list[Event]:
    """The public record with both players' registered decklists (``unordered``) in place of zeros."""
    lists = {e.player: e for e in source if e.kind == "deck_registered"}
    return [dataclasses.replace(e, main=lists[e.player].main, extra=lists[e.player].extra, unordered=True)
            if e.kind == "deck_registered" else e for e in events]


# -- the public sample --------------------------------------------------------------------------

def test_the_public_sample_is_the_spectators_record_of_the_readme_duel():
    assert read_events(PUBLIC) == recorded_by(full(), DB, "spectator")
    text = PUBLIC.read_text()
    assert text.startswith("# Won by damage") and "public side only" in text
    registered = [e for e in read_events(PUBLIC) if e.kind == "deck_registered"]
    assert registered and all(set(e.main) == {0} for e in registered), "no deck order, no hand"


def test_the_public_sample_checks_clean_and_says_what_it_could_not_decide():
    result = run("check", PUBLIC, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["violations"] == [] and data["final"]["winner"] == 0
    checked = data["checked"]
    assert checked["events"] == 89 and checked["fully_checked"] + checked["unknown_card_events"] == 89
    assert checked["unknown_card_events"] >= 1
    assert {u["rule"] for u in checked["undecided"]} == {"SUM-01", "SPELL-03"}
    assert all({"index", "rule", "message"} == set(u) for u in checked["undecided"])
    text = run("check", PUBLIC).output
    assert "legal; 89 events" in text
    assert re.search(r"89 events: \d+ fully checked, \d+ with an unknown card; not decided: #9 SUM-01", text)
    assert "ygoreplay rules SPELL-03 SUM-01" in text


def test_a_full_record_is_fully_checked():
    data = json.loads(run("check", REPLAYS / "won-by-damage.jsonl", "--json").output)
    assert data["checked"] == {"events": 89, "fully_checked": 89, "unknown_card_events": 0, "undecided": []}
    assert "fully checked" not in run("check", REPLAYS / "won-by-damage.jsonl").output


def _view(events: list[Event]):
    red = redact(events, DB, "spectator", KEY)
    return red, ViewReplay(red.events, view_cards(DB, red.codes), red.disclosures, red.renames)


def test_the_public_records_spectator_view_is_the_full_records_event_for_event():
    whole, seen = _view(full()), _view(read_events(PUBLIC))
    (red_a, replay_a), (red_b, replay_b) = whole, seen
    assert len(red_a.events) == len(red_b.events) == 89
    ids = re.compile(r"p[01]\.\w+")
    for a, b in zip(red_a.events, red_b.events):
        assert a.kind == b.kind
        assert ids.sub("ID", json.dumps(a.to_dict())) == ids.sub("ID", json.dumps(b.to_dict())), a.kind
    boards = [public_board(s, "spectator") for s in replay_a.states()]
    assert boards == [public_board(s, "spectator") for s in replay_b.states()]

    def codes(red) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for index, _, code in red.disclosures:
            out.setdefault(index, []).append(code)
        return {i: sorted(c) for i, c in out.items()}
    assert codes(red_a) == codes(red_b), "the same passcodes disclosed at each event"


# -- what the spectator's record still catches --------------------------------------------------

ILLEGAL = sorted((REPLAYS / "illegal").glob("*.jsonl"))


@pytest.mark.parametrize("path", ILLEGAL, ids=lambda p: p.name)
def test_every_illegal_sample_is_caught_from_the_spectators_record(path):
    rule = re.search(r"breaks (\S+) at its last event", path.read_text()).group(1)
    events = read_events(path)
    report = audit(recorded_by(events, DB, "spectator"), DB)
    assert [(v.index, v.rule) for v in report.violations][:1] == [(len(events) - 1, rule)]


def test_a_rule_that_needs_a_hidden_card_is_undecided_never_called():
    events = full()
    assert events[10].kind == "spell_trap_set"
    monster = next(c for c, code in zip([f"p0.m{i}" for i in range(5)], events[1].main[:5])
                   if DB[code].is_monster and c != events[9].card)
    illegal = events[:10] + [dataclasses.replace(events[10], card=monster)]
    assert [v.rule for v in audit(illegal, DB).violations] == ["SPELL-03"], "the judge's record calls it"
    report = audit(recorded_by(illegal, DB, "spectator"), DB)
    assert report.violations == []
    assert (10, "SPELL-03") in [(u.index, u.rule) for u in report.history.undecided]


def test_a_card_shown_twice_as_two_passcodes_is_log_10():
    events = read_events(PUBLIC)
    at = next(i for i, e in enumerate(events) if e.kind == "normal_summoned" and e.tributes)
    tribute = events[at].tributes[0]                 # shown before as Giant Soldier of Stone
    changed = events[:at] + [dataclasses.replace(events[at], shows=Shows(sorted(
        [*events[at].shows, (tribute, 46986414)])))] + events[at + 1:]
    report = audit(changed, DB)
    assert [(v.index, v.rule) for v in report.violations][:1] == [(at, "LOG-10")]


# -- a registered decklist --------------------------------------------------------------------

def moved(card: str, to: str, reason: str, shows: dict | None = None) -> Event:
    return from_dict({"kind": "card_moved", "player": 1, "card": card, "to": [1, to], "reason": reason,
                      **({"shows": shows} if shows else {})})


def test_with_both_decklists_the_public_record_checks_clean():
    report = audit(with_decklists(read_events(PUBLIC), full()), DB)
    assert report.violations == [] and report.state.winner == 0


def test_a_card_the_decklist_does_not_hold_is_pen_02():
    events = with_decklists(read_events(PUBLIC), full())
    at = next(i for i, e in enumerate(events) if e.kind == "normal_summoned" and e.player == 1)
    card, _ = events[at].shows[0]
    absent = 89631139                                    # Blue-Eyes White Dragon: on neither list
    assert absent in DB and absent not in events[2].main
    changed = events[:at] + [dataclasses.replace(events[at], shows=Shows([(card, absent)]))]
    assert [(v.index, v.rule) for v in audit(changed, DB).violations][:1] == [(at, "PEN-02")]


def _summons_lists() -> list[Event]:
    """every-summon-method's public record with its decklists: player 0 has an Extra Deck."""
    source = full("every-summon-method.jsonl")
    return with_decklists(recorded_by(source, DB, "spectator"), source)


def test_an_extra_deck_monster_bound_to_a_main_deck_card_is_deck_02():
    events = _summons_lists()
    assert audit(events, DB).violations == []
    fusion = next(code for code in events[1].extra if DB[code].is_extra_deck)
    at, card = next((i, c) for i, e in enumerate(events) for c, _ in e.shows if c.startswith("p0.m"))
    changed = events[:at] + [dataclasses.replace(events[at], shows=Shows([(card, fusion)]))]
    assert [v.rule for v in audit(changed, DB).violations][:1] == ["DECK-02"]


def test_a_copy_returned_into_the_deck_and_searched_again_moves_its_binding():
    events = with_decklists(read_events(PUBLIC), full())
    at = next(i for i, e in enumerate(events) if e.kind == "normal_summoned" and e.player == 1)
    card, code = events[at].shows[0]                    # Vorse Raider, shown from the hand
    copies = events[2].main.count(code)
    played = events[:at]
    # the card shown goes back into the Deck; every other copy the list holds, then this one
    # again, is searched out of the Deck: one more than the list holds only if the binding stuck
    reveal = from_dict({"kind": "card_revealed", "player": 1, "cards": [card], "shows": {card: code}})
    back = moved(card, "deck", "returned")
    deck = [f"p1.m{i}" for i in range(6, 6 + copies)]
    searched = [moved(c, "hand", "added", {c: code}) for c in deck]
    report = audit(played + [reveal, back, *searched], DB)
    assert report.violations == [], report.violations
    state = report.state
    assert state.cards[card].code == 0, "the copy returned is unknown again: the binding moved"
    assert all(state.cards[c].code == code for c in deck)
    one_more = moved(f"p1.m{6 + copies}", "hand", "added", {f"p1.m{6 + copies}": code})
    assert [v.rule for v in audit(played + [reveal, back, *searched, one_more], DB).violations] == ["PEN-02"]


def test_an_orderless_shuffle_makes_the_decks_known_cards_unknown_again():
    events = with_decklists(read_events(PUBLIC), full())
    at = next(i for i, e in enumerate(events) if e.kind == "normal_summoned" and e.player == 1)
    card, code = events[at].shows[0]
    reveal = from_dict({"kind": "card_revealed", "player": 1, "cards": [card], "shows": {card: code}})
    back = moved(card, "deck", "returned")
    state = audit(events[:at] + [reveal, back], DB).state
    assert state.cards[card].code == code and state.cards[card].zone == "deck"
    state = audit(events[:at] + [reveal, back, DeckShuffled(player=1)], DB).state
    assert state.cards[card].code == 0
    assert state.sides[1].listed[0].count(code) == events[2].main.count(code), "back on the list"


# -- views are records too ----------------------------------------------------------------------

SAMPLES = sorted(p for p in REPLAYS.glob("*.jsonl") if ".public" not in p.name)


@pytest.mark.parametrize("view", ["spectator", "p0", "p1"])
@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_a_views_file_checks_its_rules_as_far_as_it_knows(tmp_path, path, view):
    events = full(path.name)
    times = [f"2025-12-01T00:00:{i % 60:02d}.{i // 60:03d}Z" for i in range(len(events))]
    file = tmp_path / f"{view}.ygr"
    file.write_bytes(dumps(make_replay(events, times, DB, view, b"r" * 32, KEY)))
    result = run("check", file, "--json")
    data = json.loads(result.output)
    assert result.exit_code == 0 and data["violations"] == [], data["violations"]
    audited = json.loads(run("audit", file, "--json").output)
    assert audited["rules_checked"] is True and audited["violations"] == []
    assert audited["checked"] == data["checked"]


def test_the_shipped_view_files_check_clean():
    for path in sorted(REPLAYS.glob("*.ygr")):
        result = run("check", path)
        assert result.exit_code == 0, (path.name, result.output)


def test_export_record_writes_what_a_viewer_would_have_written(tmp_path):
    out = tmp_path / "p1.jsonl"
    result = run("export", REPLAYS / "won-by-damage.judge.ygr", "--view", "p1", "--record", "-o", out)
    assert result.exit_code == 0, result.output
    assert read_events(out) == recorded_by(full(), DB, "p1")
    assert run("check", out).exit_code == 0
    refused = run("export", REPLAYS / "won-by-damage.spectator.ygr", "--record", "-o", tmp_path / "x.jsonl")
    assert refused.exit_code == 2 and "derived from the full record" in refused.output


# -- end to end, from the command line ------------------------------------------------------------

def test_a_file_carries_the_facts_of_the_cards_its_events_show():
    codes = referenced_codes(read_events(PUBLIC))
    assert {14898066, 13039848, 62279055} <= codes and 0 not in codes


def test_a_public_record_records_exports_verifies_and_studies(tmp_path):
    env = {"YGOREPLAY_STORE": str(tmp_path / "s.sqlite"), "XDG_DATA_HOME": str(tmp_path / "data")}
    source = write(tmp_path / "lists.jsonl", with_decklists(read_events(PUBLIC), full()))
    duel = run("record", source, env=env).output.strip().splitlines()[-1]
    for view in ("judge", "spectator"):
        out = tmp_path / f"{view}.ygr"
        assert run("export", duel, "--view", view, "-o", out, env=env).exit_code == 0
        assert run("verify", out, env=env).exit_code == 0
        assert run("check", out, env=env).exit_code == 0
    assert run("verify", duel, env=env).exit_code == 0
    log = run("log", duel, env=env).output
    assert "Kaiba Normal Summons a card in Kaiba's hand (revealed as Vorse Raider) to M2" in log
    assert "(revealed as Magic Cylinder)" in log
    shown = run("show", duel, "--at", "12", env=env).output
    assert "M2 set" in shown and "3 hidden" in shown
    diff = run("diff", f"{duel}@20", f"{duel}@40", env=env).output
    assert "35 unknown cards" in diff and "34 unknown cards" in diff
    branch = run("branch", duel, "--at", "40", env=env).output.strip().splitlines()[-1]
    assert "are the same position" in run("diff", f"{duel}@40", branch, env=env).output
    half = write(tmp_path / "half.jsonl", read_events(PUBLIC)[:48])
    half_duel = run("record", half, env=env).output.strip().splitlines()[-1]
    assert run("rollback", half_duel, "--to", "45", "--judge", "J", "--reason", "mis-entry", env=env).exit_code == 0
    audited = json.loads(run("audit", half_duel, "--json", env=env).output)
    assert audited["violations"] == [] and audited["reverted"] == [45, 46, 47] and audited["checked"]["undecided"]


def test_a_face_up_card_no_one_named_shows_as_unknown_on_the_board_and_in_the_log(tmp_path):
    events = read_events(PUBLIC)
    at = next(i for i, e in enumerate(events) if e.kind == "normal_summoned" and e.player == 1)
    unnamed = events[:at] + [dataclasses.replace(events[at], shows=Shows())]
    path = write(tmp_path / "unnamed.jsonl", unnamed)
    assert "(unknown)" in run("show", path).output
    assert "an unknown card [M2]" in run("log", path).output or "a card in Kaiba's hand" in run("log", path).output


def test_a_public_record_over_http_checks_views_and_verifies(client, tmp_path):  # noqa: F811
    """The same end to end through the service: a scorekeeper posts what they saw, a spectator
    follows it, its file verifies, and no response names a card the record does not know."""
    from test_release import ORGANISER, auth
    duel = client.post("/duels", json={"title": "at the table"}, headers=ORGANISER).json()
    public = [e.to_dict() for e in read_events(REPLAYS / "won-by-damage.public.jsonl")]
    r = client.post(f"/duels/{duel['id']}/events", json=public, headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    spectator = auth(duel["tokens"]["spectator"])
    steps = [json.loads(line) for line in client.get(f"/duels/{duel['id']}/events", headers=spectator).text.splitlines()]
    assert len(steps) == len(public)
    full = redact(read_events(REPLAYS / "won-by-damage.jsonl"), CardDB.classic(), "spectator", b"k" * 32)
    assert [s["event"]["kind"] for s in steps] == [e.kind for e in full.events]
    assert client.get(f"/duels/{duel['id']}/verify", headers=spectator).json()["ok"] is True
    state = client.get(f"/duels/{duel['id']}/state", headers=spectator).json()
    assert state["at"] == len(public) - 1
    ygr = client.get(f"/duels/{duel['id']}/replay.ygr", headers=spectator)
    assert ygr.status_code == 200
    (tmp_path / "seen.ygr").write_bytes(ygr.content)
    result = CliRunner().invoke(main, ["check", str(tmp_path / "seen.ygr"), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["violations"] == []
