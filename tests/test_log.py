"""The log a judge reads (issue 15): costs, causes, LP totals, flips, zones, copies, the turn on
every line, judge notes and rollbacks under the heading of the board they apply to, --json and
the filters; and what a player's log never says."""
from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ygoreplay.cards import CardDB
from ygoreplay.cli import main
from ygoreplay.events import CardRevealed, from_dict
from ygoreplay.jsonl import read_events, write_events
from ygoreplay.log import EntryFilter, judge_steps, log_lines, narrate
from ygoreplay.rules import History

REPLAYS = Path(__file__).resolve().parent.parent / "replays"
DAMAGE = REPLAYS / "won-by-damage.jsonl"
CHAINS = REPLAYS / "chain-counter-traps.jsonl"
SUMMONS = REPLAYS / "every-summon-method.jsonl"
SAMPLES = sorted(p for p in REPLAYS.glob("*.jsonl") if ".public" not in p.name)   # full records
EVENT_LINE = re.compile(r"^    #(\d+)\s+T(\d+) (DP|SP|M1|BP|M2|EP|--)\s+\S")


def run(*args, input: str | None = None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def lines_of(*args) -> list[str]:
    result = run("log", *args)
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def line(lines: list[str], index: int) -> str:
    return next(text for text in lines if text.startswith(f"    #{index} "))


def test_costs_are_named_the_discard_and_the_lp_paid():
    lines = lines_of(CHAINS)
    assert line(lines, 30).endswith("Kaiba activates Magic Jammer [S1] targeting Yugi's Mystical Space Typhoon [S0], "
                                    "negating Chain Link 3 (Mystical Space Typhoon [S0]), as a cost discarding "
                                    "Mystical Elf (copy 1)")
    assert line(lines, 31).endswith("Yugi activates Seven Tools of the Bandit [S1], negating Chain Link 4 (Magic "
                                    "Jammer [S1]), as a cost paying 1000 LP (LP 8000 → 7000)")
    assert line(lines, 35).endswith("Chain Link 4 (Magic Jammer [S1]) is negated by Chain Link 5")


def test_every_lp_change_says_its_cause_and_the_lp_after_it():
    lines = lines_of(DAMAGE)
    assert line(lines, 23).endswith("Kaiba takes 100 battle damage (from Vorse Raider [M2]'s attack): LP 8000 → 7900")
    assert line(lines, 60).endswith("Kaiba takes 2900 effect damage (from Magic Cylinder [S1]): LP 7300 → 4400")
    assert line(lines, 87).endswith("Kaiba takes 1900 battle damage (from Gemini Elf [M3]'s attack): LP 1900 → 0")
    totals = [json.loads(text)["lp"] for text in run("log", DAMAGE, "--json").output.splitlines()]
    assert totals[23] == [8000, 7900] and totals[60] == [8000, 4400] and totals[-1] == [8000, 0]


def test_a_cancelled_attack_says_why_and_an_attacked_monster_flips():
    lines = lines_of(DAMAGE)
    assert line(lines, 59).endswith("The attack of Kaiba's Luster Dragon [M0] is cancelled (by Magic Cylinder [S1])")
    damage = line(lines, 22)
    assert "Vorse Raider [M2] 1900 ATK vs Giant Soldier of Stone [M2] 2000 DEF" in damage
    assert "Giant Soldier of Stone [M2] is flipped face-up" in damage
    assert damage.endswith("battle damage to player 1 (Kaiba): 100")
    assert line(lines, 38).endswith("battle damage to player 1 (Kaiba): 600; destroyed: Vorse Raider [M2]")


def test_set_cards_have_their_zone_and_a_view_sees_only_the_zone():
    judge, spectator = lines_of(DAMAGE), lines_of(DAMAGE, "--view", "spectator")
    assert line(judge, 9).endswith("Yugi Sets Giant Soldier of Stone (copy 1) in M2")
    assert line(judge, 10).endswith("Yugi Sets Magic Cylinder in S1")
    assert line(spectator, 9).endswith("Yugi Sets a monster in M2")
    assert line(spectator, 10).endswith("Yugi Sets a card in S1")
    assert line(spectator, 20).endswith("Kaiba's Vorse Raider [M2] attacks Yugi's face-down monster [M2]")


def test_every_event_line_carries_its_turn_and_phase():
    for sample in SAMPLES:
        entries = list(narrate(judge_steps(read_events(sample), CardDB.classic())))
        for text in log_lines(entries):
            if text.startswith("    #"):
                match = EVENT_LINE.match(text)
                assert match, text
                entry = entries[int(match.group(1))]
                assert int(match.group(2)) == entry.turn and entry.tag == f"T{match.group(2)} {match.group(3)}"


def test_identical_cards_are_told_apart_by_zone_or_copy_number():
    lines = lines_of(SUMMONS)
    assert line(lines, 68).endswith("Kaiba Link Summons Proxy Dragon to M1 in Attack Position, using "
                                    "Sheep Token [M1], Sheep Token [M3]")
    assert "Battle Ox (copy 1), Celtic Guardian (copy 1) (by Polymerization [S0])" in line(lines, 77)
    copies = {m.group(1) for m in re.finditer(r"Vorse Raider \(copy (\d)\)", "\n".join(lines_of(DAMAGE)))}
    assert copies == {"1"}                      # one copy of three ever leaves the Deck in that duel


def test_a_reveal_names_what_from_where_and_why():
    events = read_events(DAMAGE)
    history = History(CardDB.classic())
    history.extend(events[:18])
    sangan = next(c for c in history.state.sides[1].hand if history.state.cards[c].name == "Sangan")
    events.insert(18, CardRevealed(player=1, cards=(sangan,), cause=history.state.sides[1].mzone[2]))
    entries = list(narrate(judge_steps(events, CardDB.classic())))
    assert entries[18].text == "Sangan (copy 1) is revealed from Kaiba's hand (by Vorse Raider [M2])"
    spectator_view = [e.text for e in narrate(_view_steps(events, "spectator"))]
    assert spectator_view[18] == "Sangan is revealed from Kaiba's hand (by Vorse Raider [M2])"


def _view_steps(events, view):
    from ygoreplay.source import Source
    return Source("crafted", events, CardDB.classic()).steps(view)


def test_judge_notes_and_rollbacks_stand_under_the_heading_of_their_board(tmp_path):
    store = str(tmp_path / "duels.sqlite")
    events = read_events(DAMAGE)[:40]              # turn 3, Battle Phase: Vorse Raider just destroyed
    partial = tmp_path / "partial.jsonl"
    write_events(partial, events)
    duel = run("record", partial, "--store", store).stdout.strip()
    assert run("note", duel, "Kaiba disputes the battle", "--judge", "J. Smith", "--category", "call",
               "--store", store).exit_code == 0
    assert run("rollback", duel, "--to", 33, "--judge", "J. Smith", "--reason", "Tribute Summon misread",
               "--store", store).exit_code == 0
    lines = lines_of(duel, "--store", store)
    note = lines.index(line(lines, 40))
    back = lines.index(line(lines, 41))
    assert "JUDGE J. Smith (call): Kaiba disputes the battle" in lines[note]
    assert lines[note - 1] == "  Battle Phase, damage step" or lines[note - 1].startswith("    #")
    assert lines[back].endswith("JUDGE J. Smith rolls the game back to before event #33: Tribute Summon misread")
    reverted = [text for text in lines if "[reverted by #41]" in text]
    assert reverted[0].startswith("    #33 ") and reverted[-1] == lines[note] and lines[back] not in reverted


def test_after_a_rollback_the_next_event_is_under_the_restored_phase(tmp_path):
    events = read_events(DAMAGE)[:40]
    events.append(from_dict({"kind": "rolled_back", "to": 33, "judge": "J. Smith", "reason": "misread"}))
    events.append(events[33])                                  # the Tribute Summon, again
    texts = list(log_lines(narrate(judge_steps(events, CardDB.classic()))))
    rollback = next(i for i, t in enumerate(texts) if "rolls the game back" in t)
    assert texts[rollback + 1] == "  Main Phase 1 (again, after a rollback)"
    assert EVENT_LINE.match(texts[rollback + 2]) and "T3 M1  Yugi Normal Summons Summoned Skull" in texts[rollback + 2]
    events.insert(40, from_dict({"kind": "turn_started", "player": 1, "turn": 4}))
    events[41] = dataclasses.replace(events[41], to=29)         # back to turn 3's Draw Phase, from turn 4
    texts = list(log_lines(narrate(judge_steps(events[:42], CardDB.classic()))))
    assert texts[-3:] == ["Turn 4 — Kaiba", "  start of the turn", "    #41    T4 --  JUDGE J. Smith rolls the game back to before event #29: misread"]


def test_log_json_is_one_object_per_event():
    output = run("log", DAMAGE, "--json").output.splitlines()
    assert len(output) == 89
    first = json.loads(output[22])
    assert set(first) == {"index", "turn", "phase", "step", "kind", "player", "text", "cards", "lp", "reverted_by", "event"}
    assert first["index"] == 22 and first["turn"] == 2 and first["phase"] == "battle" and first["step"] == "damage"
    assert first["event"] == {"kind": "damage_calculated", "damage": [0, 100]}
    assert {c["name"] for c in first["cards"]} == {"Vorse Raider", "Giant Soldier of Stone"}


def test_filters_keep_a_turn_a_card_or_a_player():
    turn = [t for t in lines_of(DAMAGE, "--turn", 4) if t.startswith("    #")]
    assert turn and all(" T4 " in t for t in turn)
    assert [t for t in lines_of(DAMAGE, "--turn", "3-4") if t.startswith("Turn")] == ["Turn 3 — Yugi", "Turn 4 — Kaiba"]
    cylinder = [t for t in lines_of(DAMAGE, "--card", "magic CYL") if t.startswith("    #")]
    assert [int(t.split()[0][1:]) for t in cylinder] == [3, 10, 57, 58, 59, 60, 61]
    kaiba = [json.loads(t) for t in run("log", DAMAGE, "--json", "--player", "kaiba").output.splitlines()]
    assert kaiba and all(e["player"] == 1 for e in kaiba)
    vorse = json.loads(run("log", DAMAGE, "--json").output.splitlines()[17])["cards"][0]["id"]
    assert [json.loads(t)["index"] for t in run("log", DAMAGE, "--json", "--card", vorse).output.splitlines()] \
        == [4, 17, 20, 22, 23, 36, 38, 40]
    first = next(narrate(judge_steps(read_events(DAMAGE)[:1], CardDB.classic())))
    assert not EntryFilter() and EntryFilter().keeps(first) and not EntryFilter(turns=(1, 1)).keeps(first)


@pytest.mark.parametrize("args, message", [
    (["--turn", "four"], "write a turn (4) or a range of turns (3-5)"),
    (["--turn", "5-3"], "write a turn (4) or a range of turns (3-5)"),
    (["--player", "Joey"], "no player has that name; the players are 0 (Yugi), 1 (Kaiba)"),
    (["--player", "i"], "names both players"),
])
def test_a_bad_filter_is_a_usage_error(args, message):
    result = run("log", DAMAGE, *args)
    assert result.exit_code == 2 and message in result.output and "Traceback" not in result.output


def test_a_players_log_never_names_the_opponents_hidden_cards():
    """p1's log says nothing of Yugi's Set cards before they are shown: Giant Soldier of Stone
    until it flips at #22, Magic Cylinder until it is activated at #57; Yugi's draws never."""
    lines = lines_of(DAMAGE, "--view", "p1")
    before = lambda index: "\n".join(t for t in lines if t.startswith("    #") and int(t.split()[0][1:]) < index)  # noqa: E731
    assert "Giant Soldier" not in before(22) and "Magic Cylinder" not in before(57)
    assert all("Yugi draws a card" in t or "Yugi draws 5 cards" in t for t in lines if "Yugi draws" in t)
    own = lines_of(DAMAGE, "--view", "p0")
    assert "Yugi Sets Magic Cylinder in S1" in line(own, 10)


def test_every_view_of_every_sample_names_only_what_it_was_shown():
    """No view's log names a card whose passcode the view never carries (the names come from
    the view's own fold), whatever the sample."""
    from ygoreplay.source import Source
    for sample in SAMPLES:
        events = read_events(sample)
        source = Source(sample.name, events, CardDB.classic())
        judge_names = {CardDB.classic()[code].name for e in events if e.kind == "deck_registered" for code in e.main + e.extra}
        for view in ("p0", "p1", "spectator"):
            view_events, cards, *_ = source._as(view)
            known = {cards[code].name for code in cards if code}
            for entry in narrate(source.steps(view)):
                named = {c["name"] for c in entry.cards if c["name"]}
                assert named <= known | {"(hidden card)"}, (sample.name, view, entry)
            tokens = {CardDB.classic()[e.code].name for e in events if e.kind == "token_created"}
            assert known <= judge_names | tokens


def test_a_name_cannot_forge_a_log_line(tmp_path):
    events = [e.to_dict() for e in read_events(DAMAGE)]
    events[0]["players"] = ["Yugi\nTurn 9 — forged", "Kaiba\x1b[2J"]
    path = tmp_path / "crafted.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in events) + "\n")
    output = run("log", path).output
    assert "\nTurn 9 — forged" not in output and "\x1b" not in output and "Yugi\\nTurn 9" in output
    assert all(not t or t.startswith(("Turn ", "  ", "Before")) for t in output.splitlines())


def test_entries_say_what_they_are():
    entry = list(narrate(judge_steps(read_events(DAMAGE), CardDB.classic())))[60]
    assert repr(entry).startswith("<Entry #60 T4 BP life_points_changed: 'Kaiba takes 2900 effect damage")
    assert dataclasses.asdict(entry)["lp"] == (8000, 4400)


def test_the_banlist_and_summons_made_together_are_told():
    """duel_started v3 names its banlist (DECK-08); special_summoned v3 says which monsters one
    Pendulum Summon brought out together (PEND-03)."""
    text = "\n".join(lines_of(SUMMONS))
    assert "banlist 'sample list (DECK-08)' (sha256:" in text
    assert text.count(" Pendulum Summons ") == 4 and text.count(", at the same time as the one before") == 2
