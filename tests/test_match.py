"""Matches (issue 14): the match fold's rules (legal and refused, by rule ID), each difference
between the end-of-match policies, the samples, duels checked against their match, the CLI,
and the match .ygr that carries its duels."""
from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ygoreplay.cards import CardDB
from ygoreplay.decks import Banlist
from ygoreplay.errors import InputError
from ygoreplay.events import from_dict
from ygoreplay.jsonl import read_events
from ygoreplay.match.files import match_replay, open_match, verify_games
from ygoreplay.match.policies import POLICIES
from ygoreplay.match.rules import fold, limits_hash
from ygoreplay.replay_file import dumps, loads, verify_chain
from ygoreplay.rules import RuleViolation
from ygoreplay.signing import OrganiserKey
from ygoreplay.state import DuelState

MATCHES = Path(__file__).resolve().parent.parent / "replays" / "matches"
LEGAL = sorted(MATCHES.glob("*.jsonl"))
ILLEGAL = sorted((MATCHES / "illegal").glob("*.jsonl"))
DB = CardDB.classic()
FILLER = [91152256, 5053103, 13039848, 15025844, 97590747, 14898066, 43096270, 69247929,
          11091375, 26202165, 78010363, 71413901, 74131780, 33184167]
MAIN = [FILLER[i % 14] for i in range(40)]
CLOCK = "2025-12-06T10:40:00Z"
LIMITS = [{"code": 55144522, "limit": 0}, {"code": 12580477, "limit": 1}]


def ev(kind: str, **fields):
    return from_dict({"kind": kind, **fields})


def opening(policy: str = "tcg-2024") -> list:
    return [ev("match_started", players=["Yugi", "Kaiba"], policy=policy, banlist="L",
               banlist_hash=limits_hash(LIMITS), limits=LIMITS),
            ev("decklist_registered", player=0, main=MAIN, extra=[44508094], side=[40640057, 31305911]),
            ev("decklist_registered", player=1, main=MAIN, extra=[], side=[23205979])]


def game(n: int, winner: int | None, first: int = 0, chosen: int | None = 0) -> list:
    return [ev("game_started", game=n, duel="", first_player=first, chosen_by=chosen),
            ev("game_ended", game=n, winner=winner, how="draw" if winner is None else "lp")]


def refused(events: list, rule: str, policy_note: str = "") -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        fold(events, DB)
    assert info.value.rule == rule, (info.value, policy_note)
    assert info.value.index == len(events) - 1
    return info.value


def result(events: list):
    return fold(events, DB).result()


def ended(state_events: list):
    r = result(state_events)
    return ev("match_ended", winner=r.winner, how=r.how, games=list(r.games), points=list(r.points))


# -- the samples ------------------------------------------------------------------------------------

def test_there_are_the_sample_matches_the_issue_asks_for():
    names = {p.name for p in LEGAL}
    assert {"two-nil.jsonl", "two-one-side-decking.jsonl", "time-extra-turns-tcg.jsonl",
            "time-phase-end-ocg.jsonl", "ended-by-penalty.jsonl"} <= names
    assert len(ILLEGAL) >= 15


@pytest.mark.parametrize("path", LEGAL, ids=lambda p: p.name)
def test_sample_match_and_its_duels_are_legal(path):
    """Every sample match is legal as it stands, with its duels: MATCH-01 (two wins end two-nil),
    MATCH-04 (one decklist each, only its cards), MATCH-05 and MATCH-06 (siding between duels,
    one-for-one, in two-one-side-decking), DECK-02 and DECK-03 (what is sided in), MATCH-07 (the
    loser chooses), MATCH-08 (a judge call and its ruling, appealed before the end, in
    ended-by-penalty), PEN-02 (a game loss, then a disqualification), TIME-02, TIME-03 and TIME-04
    (time, three extra turns, the duel decided on LP, in time-extra-turns-tcg), DECK-09 (each
    banlist hashes to its content), LOG-09 (every duel is what its match says of it)."""
    match = open_match(path, DB)
    state, problems = match.audit()
    assert state.violations == [] and problems == [] and match.missing == {}
    assert state.ended is not None


def test_sample_results():
    got = {p.name: open_match(p, DB).audit()[0].ended.to_dict() for p in LEGAL}
    assert got["two-nil.jsonl"] == {"kind": "match_ended", "winner": 0, "how": "games", "games": [2, 0, 0],
                                         "points": [3, 0]}
    assert got["two-one-side-decking.jsonl"]["games"] == [2, 1, 0]
    assert got["ended-by-penalty.jsonl"]["how"] == "penalty"


def test_time_samples_give_different_results_from_the_same_duels():
    tcg, ocg = (open_match(MATCHES / name, DB) for name in ("time-extra-turns-tcg.jsonl", "time-phase-end-ocg.jsonl"))
    assert [d.name for d in tcg.duels.values()] == [d.name for d in ocg.duels.values()]
    assert tcg.audit()[0].ended.winner is None and tcg.audit()[0].ended.how == "time"
    assert ocg.audit()[0].ended.winner == 0 and ocg.audit()[0].ended.games == (2, 0, 0)
    assert ocg.audit()[0].ended.how == "time"


def test_side_decked_duels_are_played_with_the_sided_decks():
    match = open_match(MATCHES / "two-one-side-decking.jsonl", DB)
    state = match.audit()[0]
    assert state.decks[0].main.count(40640057) == 1 and len(state.decks[0].main) == 40
    assert len(state.decks[0].side) == 5 and len(state.decks[1].side) == 5


@pytest.mark.parametrize("path", ILLEGAL, ids=lambda p: p.name)
def test_refused_variant_is_refused_with_its_rule(path):
    declared = re.search(r"breaks ([A-Z]+-\d+)", path.read_text().splitlines()[0]).group(1)
    events = read_events(path)
    state = fold(events, DB, audit=True)
    assert [(v.rule, v.index) for v in state.violations] == [(declared, len(events) - 1)]
    refused(events, declared)


def test_samples_are_what_the_script_writes(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("make_matches", MATCHES / "make_matches.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "HERE", tmp_path)
    assert module.main() == 0
    for path in sorted(MATCHES.rglob("*.jsonl")):
        written = tmp_path / path.relative_to(MATCHES)
        assert written.read_bytes() == path.read_bytes(), f"{path.name} is stale: run make_matches.py"


# -- rules, legal and refused -------------------------------------------------------------------------

def test_match_01_two_wins_end_it_and_no_fourth_duel():
    events = opening() + game(1, 0) + game(2, 0, 1, 1)
    assert result(events).final and result(events).winner == 0
    refused(events + [ev("game_started", game=3, duel="", first_player=1, chosen_by=1)], "MATCH-01")
    three = opening() + game(1, None) + game(2, None, 0, 0) + game(3, None, 0, 0)
    refused(three + [ev("game_started", game=4, duel="", first_player=0, chosen_by=0)], "MATCH-02")  # 3 duels: decided
    refused(opening() + game(1, 0) + [ev("match_ended", winner=0, how="games", games=[1, 0, 0], points=[3, 0])],
            "MATCH-01")


def test_match_02_one_win_one_draw_one_loss_is_a_draw_and_one_win_two_draws_wins():
    drawn = opening("ocg-2005") + game(1, 0) + game(2, 1, 0, 1) + game(3, None, 0, 0)
    assert (result(drawn).winner, result(drawn).how, result(drawn).rule) == (None, "games", "MATCH-02")
    fold(drawn + [ended(drawn)], DB)
    won = opening("ocg-2005") + game(1, 0) + game(2, None, 0, 1) + game(3, None, 0, 0)
    assert (result(won).winner, result(won).points) == (0, (3, 0))
    refused(won + [ev("match_ended", winner=None, how="games", games=[1, 0, 2], points=[1, 1])], "MATCH-02")


def test_match_04_one_decklist_and_only_its_cards():
    refused(opening() + [ev("decklist_registered", player=0, main=MAIN)], "MATCH-04")
    refused(opening()[:2] + [ev("game_started", game=1, duel="", first_player=0, chosen_by=0)], "MATCH-04")
    refused(opening() + game(1, 0) + [ev("side_deck_swapped", player=1, main_out=[MAIN[0]], main_in=[40640057])],
            "MATCH-04")


def test_match_05_no_siding_before_duel_1():
    swap = ev("side_deck_swapped", player=0, main_out=[MAIN[0]], main_in=[40640057])
    refused(opening() + [swap], "MATCH-05")
    fold(opening() + game(1, 1) + [swap], DB)


def test_match_06_one_for_one_between_duels_only():
    refused(opening() + game(1, 0) + [ev("side_deck_swapped", player=0, main_out=[MAIN[0]],
                                         main_in=[40640057, 31305911])], "MATCH-06")
    refused(opening() + game(1, 0)[:1] + [ev("side_deck_swapped", player=0, main_out=[MAIN[0]], main_in=[40640057])],
            "MATCH-06")
    state = fold(opening() + game(1, 0) + [ev("side_deck_swapped", player=0, main_out=[MAIN[0], MAIN[1]],
                                              main_in=[40640057, 31305911])], DB)
    assert sorted(len(getattr(state.decks[0], p)) for p in ("main", "side")) == [2, 40]


def test_deck_02_03_when_siding():
    refused(opening() + game(1, 0) + [ev("side_deck_swapped", player=0, extra_out=[44508094], extra_in=[40640057])],
            "DECK-03")


def test_match_07_the_loser_chooses_from_duel_2():
    refused(opening() + game(1, 0) + [ev("game_started", game=2, duel="", first_player=0, chosen_by=0)], "MATCH-07")
    refused(opening() + game(1, 0) + [ev("game_started", game=2, duel="", first_player=0)], "MATCH-07")
    fold(opening() + game(1, 0) + [ev("game_started", game=2, duel="", first_player=0, chosen_by=1)], DB)


def test_match_08_and_10_calls_rulings_appeals():
    refused(opening() + [ev("judge_ruled", judge="J", ruling="r")], "MATCH-08")
    refused(opening() + [ev("ruling_appealed", player=0, judge="H", decision="upheld")], "MATCH-08")
    fold(opening() + [ev("judge_called", player=0, judge="J"), ev("judge_ruled", judge="J", ruling="r"),
                      ev("ruling_appealed", player=1, judge="H", decision="overturned")], DB)
    done = opening() + [ev("judge_called", player=0, judge="J"), ev("judge_ruled", judge="J", ruling="r"),
                        ev("match_conceded", player=0)]
    refused(done + [ended(done), ev("ruling_appealed", player=0, judge="H", decision="upheld")], "MATCH-10")


def test_deck_rules_at_registration_against_the_named_banlist():
    start = opening()[:1]
    refused(start + [ev("decklist_registered", player=0, main=MAIN[:39] + [55144522])], "DECK-08")
    refused(start + [ev("decklist_registered", player=0, main=MAIN[:38] + [12580477, 12580477])], "DECK-08")
    fold(start + [ev("decklist_registered", player=0, main=MAIN[:39] + [12580477])], DB)
    refused(start + [ev("decklist_registered", player=0, main=MAIN[:39])], "DECK-01")
    refused(start + [ev("decklist_registered", player=0, main=MAIN[:39] + [44508094])], "DECK-02")
    refused(start + [ev("decklist_registered", player=0, main=MAIN, side=[FILLER[0]])], "DECK-06")
    refused(start + [ev("decklist_registered", player=0, main=MAIN, side=[40640057] * 16)], "DECK-05")


def test_deck_09_the_banlist_hash_is_of_its_content():
    refused([ev("match_started", players=["a", "b"], policy="tcg-2024", banlist="L",
                banlist_hash=limits_hash(LIMITS[:1]), limits=LIMITS)], "DECK-09")
    assert limits_hash(LIMITS) == limits_hash(list(reversed(LIMITS)))


#: What ``match_started`` named the sample banlist by before one hash served both (a digest of the
#: list as JSON with its name): the five sample matches were written with it.
SAMPLE_BANLIST = "Sample classic list 2025.12"
OLD_SAMPLE_HASH = "sha256:e57fc5ae1d0a613d7bace829930e6d6b6fa6d325dca3c1e13fdf9bdc2895e3c7"


def test_deck_09_one_banlist_has_one_hash_in_a_match_and_in_a_duel():
    """DECK-09: the list a match starts under and the list a duel names (``deck check``,
    ``duel_started``) hash alike: ``decks.Banlist.content_hash``, of the content, not the name."""
    from ygoreplay.match.application import started
    banlist = Banlist("L", {e["code"]: e["limit"] for e in LIMITS})
    opening = started(["Yugi", "Kaiba"], "tcg-2024", banlist)[0]
    assert opening.banlist_hash == banlist.content_hash() == limits_hash(LIMITS)
    assert fold([opening], DB).banlist_hash == banlist.content_hash()
    duel = from_dict({"kind": "duel_started", "first_player": 0, "banlist": {
        "name": "L", "hash": banlist.content_hash(), "limits": [[e["code"], e["limit"]] for e in LIMITS]}})
    assert duel.banlist.hash == opening.banlist_hash


def test_deck_09_a_match_recorded_with_the_old_hash_still_loads_and_verifies(tmp_path):
    """DECK-09: a match written before (``match_started`` with the old JSON digest) still folds
    clean and reads as the one canonical hash; its match file is written, signed and verified."""
    import shutil
    sample = (MATCHES / "two-nil.jsonl").read_text()
    canonical = next(e for e in read_events(MATCHES / "two-nil.jsonl") if e.kind == "match_started").banlist_hash
    assert canonical != OLD_SAMPLE_HASH and SAMPLE_BANLIST in sample
    old = tmp_path / "two-nil.jsonl"
    old.write_text(sample.replace(canonical, OLD_SAMPLE_HASH))
    shutil.copytree(MATCHES / "duels", tmp_path / "duels")
    match = open_match(old, DB)
    assert match.events[0].banlist_hash == OLD_SAMPLE_HASH
    state, problems = match.audit()
    assert state.violations == [] and problems == [] and state.banlist_hash == canonical
    key = OrganiserKey.generate()
    back = loads(dumps(match_replay(match, key), key))
    assert verify_chain(back) is None and back.signature_valid
    assert back.events[0].banlist_hash == OLD_SAMPLE_HASH and back.match["banlist_hash"] == canonical
    assert all(g["ok"] for g in verify_games(back, [key.public]))
    refused([ev("match_started", players=["a", "b"], policy="tcg-2024", banlist="Another name",
                banlist_hash=OLD_SAMPLE_HASH, limits=[dict(e) for e in match.events[0].limits])], "DECK-09")


def test_pen_02_game_loss_ends_the_duel_or_counts_as_the_next():
    in_duel = opening() + game(1, 0)[:1] + [ev("penalty_given", player=0, judge="J", infraction="marked_cards",
                                                penalty="game_loss")]
    state = fold(in_duel, DB)
    assert (state.games[0].ended, state.games[0].winner, state.games[0].how) == (True, 1, "penalty")
    between = opening() + game(1, 1) + [ev("penalty_given", player=0, judge="J", infraction="lateness",
                                           penalty="game_loss")]
    assert fold(between, DB).result().winner == 1
    warned = opening() + [ev("penalty_given", player=0, judge="J", infraction="slow_play", penalty="warning")]
    assert not fold(warned, DB).result().final
    refused(opening() + [ev("penalty_given", player=0, judge="J", infraction="slow_play", penalty="warning",
                            )] + game(1, 0) + game(2, 0, 1, 1) + [
        ev("penalty_given", player=1, judge="J", infraction="lateness", penalty="game_loss")], "LOG-03")


def test_a_match_event_in_a_duel_and_a_duel_event_in_a_match_are_refused():
    with pytest.raises(RuleViolation) as info:
        audit_state = DuelState(DB)
        from ygoreplay.rules import apply as duel_apply
        duel_apply(audit_state, ev("duel_started", first_player=0))
        duel_apply(audit_state, opening()[0])
    assert info.value.rule == "LOG-03"
    refused(opening() + [ev("turn_started", turn=1)], "LOG-03")


# -- policies: one test per difference ----------------------------------------------------------------

def at_time(policy: str, turn: int = 5) -> list:
    return opening(policy) + game(1, 0) + [
        ev("game_started", game=2, duel="", first_player=1, chosen_by=1),
        ev("time_called", clock="2025-12-06T10:40:00Z", game=2, turn=turn, phase="main1", turn_player=1)]


def extra(turn: int = 5) -> list:
    return [ev("extra_turn_started", game=2, n=n, turn=turn + n) for n in (1, 2, 3)]


def test_every_policy_is_named_dated_and_sourced():
    assert {"ocg-2005", "tcg-2024", "ocg-2024"} <= set(POLICIES)
    for policy in POLICIES.values():
        assert policy.date and policy.source and policy.title
    assert "seeds" in POLICIES["ocg-2005"].source and "outside knowledge" in POLICIES["tcg-2024"].source


def test_extra_turns_or_finish_the_phase():
    """TIME-03: extra turns where the policy plays them; refused under a finish-the-phase policy."""
    fold(at_time("tcg-2024") + extra(), DB)
    fold(at_time("ocg-2005") + extra(), DB)
    refused(at_time("ocg-2024") + extra()[:1], "TIME-03")
    fold(at_time("ocg-2024") + [ev("game_decided", game=2, lp=[100, 50], winner=0, stage="phase_end")], DB)
    refused(at_time("tcg-2024") + [ev("game_decided", game=2, lp=[100, 50], winner=0, stage="phase_end")], "TIME-03")


def test_extra_turns_count_from_the_next_turn():
    """TIME-03 / CONF-25: the turn in progress is finished first; extra turn 1 is the next one."""
    refused(at_time("tcg-2024") + [ev("extra_turn_started", game=2, n=1, turn=5)], "TIME-03")
    refused(at_time("tcg-2024") + extra() + [ev("extra_turn_started", game=2, n=4, turn=9)], "TIME-03")


def test_decided_only_after_all_extra_turns_on_the_higher_lp():
    """TIME-04: judged after every extra turn, for the player with more LP."""
    refused(at_time("tcg-2024") + extra()[:2] + [ev("game_decided", game=2, lp=[1, 0], winner=0,
                                                    stage="extra_turns")], "TIME-04")
    refused(at_time("tcg-2024") + extra() + [ev("game_decided", game=2, lp=[1, 0], winner=1,
                                                stage="extra_turns")], "TIME-04")


def test_equal_lp_sudden_death_or_a_drawn_duel():
    """TIME-05 under ocg-2005 (sudden death); a drawn duel under tcg-2024 (no sudden death)."""
    tie = [ev("game_decided", game=2, lp=[4000, 4000], winner=None, stage="extra_turns")]
    refused(at_time("ocg-2005") + extra() + tie, "TIME-05")
    fold(at_time("ocg-2005") + extra() + [ev("game_decided", game=2, lp=[3000, 4000], winner=1,
                                             stage="sudden_death")], DB)
    state = fold(at_time("tcg-2024") + extra() + tie, DB)
    assert state.games[1].winner is None and state.result().winner == 0      # 1 win + 1 draw wins at time
    refused(at_time("tcg-2024") + extra() + [ev("game_decided", game=2, lp=[3000, 4000], winner=1,
                                                stage="sudden_death")], "TIME-05")


def test_undecided_at_time_most_wins_or_a_double_loss():
    """TIME-02: 1-0 at time wins under tcg-2024; under ocg-2024 it is a loss for both."""
    level = opening("tcg-2024") + game(1, 0) + [ev("time_called", clock=CLOCK)]
    assert (result(level).winner, result(level).how) == (0, "time")
    doubled = opening("ocg-2024") + game(1, 0) + [ev("time_called", clock=CLOCK)]
    r = result(doubled)
    assert (r.winner, r.how, r.points) == (None, "double_loss", (0, 0))
    fold(doubled + [ended(doubled)], DB)


def test_one_win_two_draws_wins_or_is_a_double_loss():
    """MATCH-02 under ocg-2005 and tcg-2024; a double loss under ocg-2024."""
    for policy, winner, how in (("ocg-2005", 0, "games"), ("tcg-2024", 0, "games"), ("ocg-2024", None, "double_loss")):
        events = opening(policy) + game(1, 0) + game(2, None, 0, 1) + game(3, None, 0, 1 if policy == "tcg-2024" else 0)
        assert (result(events).winner, result(events).how) == (winner, how), policy


def test_level_at_time_an_extra_duel_or_a_draw():
    """TIME-07/08 under ocg-2005 (an extra duel decides); a drawn match under tcg-2024 (TIME-02)."""
    level = game(1, 0) + game(2, 1, 1, 1) + [ev("time_called", clock=CLOCK)]
    ocg = opening("ocg-2005") + level
    assert not result(ocg).final and result(ocg).rule == "TIME-07"
    refused(ocg + [ev("game_started", game=3, duel="", first_player=0, chosen_by=0)], "TIME-08")
    duel = ocg + [ev("game_started", game=3, duel="", first_player=0, chosen_by=0, extra_duel=True)]
    refused(duel + [ev("game_decided", game=3, lp=[8000, 7000], winner=0, stage="extra_duel", turn=3)], "TIME-08")
    done = duel + [ev("game_decided", game=3, lp=[8000, 7000], winner=0, stage="extra_duel", turn=4)]
    assert (result(done).winner, result(done).how) == (0, "time")
    tcg = opening("tcg-2024") + level
    assert (result(tcg).winner, result(tcg).how) == (None, "time")
    refused(tcg + [ev("game_started", game=3, duel="", first_player=0, chosen_by=0, extra_duel=True)], "TIME-02")


def test_one_nil_when_time_is_called_between_duels_wins_under_time_09():
    events = opening("ocg-2005") + game(1, 1) + [ev("time_called", clock=CLOCK)]
    assert (result(events).winner, result(events).rule) == (1, "TIME-09")
    fold(events + [ended(events)], DB)


def test_time_09_a_one_nil_lead_at_time_ended_otherwise_is_refused():
    events = opening("ocg-2005") + game(1, 1) + [ev("time_called", clock=CLOCK)]
    refused(events + [ev("match_ended", winner=None, how="time", games=[0, 1, 0], points=[1, 1])], "TIME-09")


def test_time_05_sudden_death_decides_when_the_lp_differ():
    """TIME-05 under ocg-2005: equal LP after the extra turns go to sudden death, which the next
    LP change decides."""
    state = fold(at_time("ocg-2005") + extra() + [ev("game_decided", game=2, lp=[3000, 4000], winner=1,
                                                       stage="sudden_death")], DB)
    assert state.games[1].winner == 1 and state.result().games == (1, 1, 0)


def test_time_07_08_an_extra_duel_decides_a_level_match():
    """TIME-07 and TIME-08 under ocg-2005: level at time, an extra duel of 4 turns from 8000 LP
    decides the match."""
    events = opening("ocg-2005") + game(1, 0) + game(2, 1, 1, 1) + [ev("time_called", clock=CLOCK),
        ev("game_started", game=3, duel="", first_player=0, chosen_by=0, extra_duel=True),
        ev("game_decided", game=3, lp=[8000, 7000], winner=0, stage="extra_duel", turn=4)]
    fold(events + [ended(events)], DB)
    assert (result(events).winner, result(events).how, result(events).games) == (0, "time", (2, 1, 0))


def test_pen_02_a_match_ended_by_a_disqualification_says_so():
    events = opening() + game(1, 0) + [ev("penalty_given", player=0, judge="J", infraction="marked_cards",
                                          penalty="disqualification")]
    assert (result(events).winner, result(events).how) == (1, "penalty")
    refused(events + [ev("match_ended", winner=0, how="games", games=[1, 0, 0], points=[3, 0])], "PEN-02")


def test_after_a_drawn_duel_who_chooses():
    """MATCH-07 after a draw: under tcg-2024 the same chooser again; under ocg-2005 a new choice."""
    again = ev("game_started", game=2, duel="", first_player=1, chosen_by=1)
    refused(opening("tcg-2024") + game(1, None, 0, 0) + [again], "MATCH-07")
    fold(opening("ocg-2005") + game(1, None, 0, 0) + [again], DB)


# -- duels against their match ------------------------------------------------------------------------

def _copy_sample(tmp_path: Path, name: str) -> Path:
    (tmp_path / "duels").mkdir()
    for duel in (MATCHES / "duels").glob("*.jsonl"):
        (tmp_path / "duels" / duel.name).write_bytes(duel.read_bytes())
    target = tmp_path / name
    target.write_bytes((MATCHES / name).read_bytes())
    return target


def test_a_duel_that_ends_otherwise_than_the_match_says_is_log_09(tmp_path):
    path = _copy_sample(tmp_path, "two-nil.jsonl")
    path.write_text(path.read_text().replace('"game": 1, "winner": 0, "how": "lp"', '"game": 1, "winner": 1, "how": "lp"'))
    state, problems = open_match(path, DB).audit()
    assert [p.rule for p in problems] == ["LOG-09"]


def test_lp_judged_at_time_must_be_the_duels(tmp_path):
    path = _copy_sample(tmp_path, "time-phase-end-ocg.jsonl")
    path.write_text(path.read_text().replace('"lp": [5000, 3500]', '"lp": [5000, 3000]'))
    assert [p.rule for p in open_match(path, DB).audit()[1]] == ["LOG-09"]


def test_duel_first_player_and_deck_must_be_the_matchs(tmp_path):
    path = _copy_sample(tmp_path, "two-one-side-decking.jsonl")
    text = path.read_text()
    path.write_text(text.replace('"main_out": [91152256, 5053103], "main_in": [40640057, 31305911]',
                                 '"main_out": [91152256, 5053103], "main_in": [40640057, 40640057]'))
    rules = {p.rule for p in open_match(path, DB).audit()[1]}
    assert rules == {"MATCH-04"}
    path.write_text(text.replace('"game": 3, "duel": "duels/g3-sided-yugi-wins.jsonl", "first_player": 0',
                                 '"game": 3, "duel": "duels/g3-sided-yugi-wins.jsonl", "first_player": 1'))
    assert "MATCH-07" in {p.rule for p in open_match(path, DB).audit()[1]}


# -- the match .ygr -------------------------------------------------------------------------------------

def test_match_ygr_round_trips_and_verifies_its_duels(tmp_path):
    key = OrganiserKey.generate()
    match = open_match(MATCHES / "two-one-side-decking.jsonl", DB)
    data = dumps(match_replay(match, key), key)
    back = loads(data)
    assert back.match["kind"] == "match" and back.match["policy"] == "ocg-2005" and len(back.games) == 3
    assert [e.to_dict() for e in back.events] == [e.to_dict() for e in match.events]
    assert verify_chain(back) is None and back.signature_valid
    games = verify_games(back, [key.public])
    assert [g["ok"] for g in games] == [True, True, True]
    for number, duel in enumerate(back.games, 1):
        inner = loads(duel)
        assert [e.to_dict() for e in inner.events] == [e.to_dict() for e in match.duels[number].events]
    path = tmp_path / "m.ygr"
    path.write_bytes(data)
    reopened = open_match(path, DB)
    assert reopened.audit()[1] == [] and reopened.audit()[0].ended.games == (2, 1, 0)
    tampered = bytearray(data)
    tampered[len(data) // 2] ^= 1                      # a byte inside the body, where the duels are
    try:
        broken = loads(bytes(tampered))
    except InputError:
        return                                         # refused outright: the CRC or the decoder
    assert broken.signature_valid is False


# -- the command line -----------------------------------------------------------------------------------

def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ygoreplay", *args], cwd=cwd, capture_output=True, text=True,
                          env={**__import__("os").environ, "XDG_DATA_HOME": str(cwd / "xdg"), "HOME": str(cwd)})


def test_cli_records_a_match_and_refuses_what_the_policy_forbids(tmp_path):
    (tmp_path / "duels").mkdir()
    for name in ("g1-yugi-wins.jsonl", "g2-kaiba-surrenders.jsonl"):
        (tmp_path / "duels" / name).write_bytes((MATCHES / "duels" / name).read_bytes())
    lflist = tmp_path / "lflist.conf"
    lflist.write_text("!Sample list\n55144522 0 -- Pot of Greed\n12580477 1 -- Raigeki\n")
    for p, side in ((0, [40640057, 40640057, 31305911, 54652250, 3078576]), (1, [23205979, 8131171, 31560081, 95956346, 70095154])):
        (tmp_path / f"d{p}.ydk").write_text("#main\n" + "\n".join(map(str, MAIN)) + "\n#extra\n44508094\n60800381\n!side\n"
                                             + "\n".join(map(str, side)) + "\n")
    m = tmp_path / "m.jsonl"
    out = _run("match", "start", str(m), "--players", "Yugi", "Kaiba", "--policy", "ocg-2024", "--banlist", str(lflist),
               "--deck0", "d0.ydk", "--deck1", "d1.ydk", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert _run("match", "duel", str(m), "duels/g1-yugi-wins.jsonl", cwd=tmp_path).returncode == 0
    before = m.read_bytes()
    bad = _run("match", "side", str(m), "--player", "1", "--main-out", str(MAIN[0]), "--main-out", str(MAIN[1]),
               "--main-in", "23205979", cwd=tmp_path)
    assert bad.returncode == 1 and "MATCH-06" in bad.stderr and m.read_bytes() == before
    assert _run("match", "side", str(m), "--player", "1", "--main-out", str(MAIN[0]), "--main-in", "23205979",
                cwd=tmp_path).returncode == 0
    early = _run("match", "result", str(m), cwd=tmp_path)
    assert early.returncode == 1 and "MATCH-01" in early.stderr
    (tmp_path / "duels" / "g2.jsonl").write_bytes((MATCHES / "duels" / "g2-kaiba-surrenders.jsonl").read_bytes())
    assert _run("match", "time", str(m), "--clock", "2025-12-06T10:40:00Z", cwd=tmp_path).returncode == 0
    late = _run("match", "duel", str(m), "duels/g2.jsonl", cwd=tmp_path)
    assert late.returncode == 1 and "TIME-02" in late.stderr
    done = _run("match", "result", str(m), "--json", cwd=tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout)["how"] == "double_loss"
    check = _run("check", str(m), "--json", cwd=tmp_path)
    report = json.loads(check.stdout)
    assert report["match"]["policy"] == "ocg-2024"
    assert report["match"]["result"] == {"winner": None, "games": [1, 0, 0], "how": "double_loss", "points": [0, 0]}
    assert check.returncode == 0
    for command in ("show", "log", "audit"):
        shown = _run(command, str(m), cwd=tmp_path)
        assert shown.returncode == 0 and ("Kaiba" in shown.stdout or "legal" in shown.stdout), (command, shown.stderr)
    assert _run("export", str(m), "-o", "m.ygr", cwd=tmp_path).returncode == 0
    verified = _run("verify", "m.ygr", "--json", cwd=tmp_path)
    assert verified.returncode == 0 and json.loads(verified.stdout)["games"][0]["ok"]


def test_check_json_of_a_refused_variant_exits_1_with_its_rule():
    out = subprocess.run([sys.executable, "-m", "ygoreplay", "check", "--json",
                          str(MATCHES / "illegal" / "side-deck-two-for-one.jsonl")], capture_output=True, text=True)
    assert out.returncode == 1
    assert [v["rule"] for v in json.loads(out.stdout)["violations"]][0] == "MATCH-06"
