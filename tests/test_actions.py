"""What may be entered next (ygoreplay/actions.py): the actions that fit a card where it is, and
the turn's own moves, each with the verdict the fold gives it; the same from the command line and
over HTTP, for the duel's writers only."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from test_release import ORGANISER, auth, client, events_of, store  # noqa: F401  (fixtures)

from ygoreplay.actions import actions
from ygoreplay.cards import CardDB
from ygoreplay.cli import main
from ygoreplay.errors import InputError
from ygoreplay.events import from_dict
from ygoreplay.rules import replay

CARDS = CardDB.classic()
SAMPLE = [from_dict(e) for e in events_of("won-by-damage.jsonl")]


def by_label(found) -> dict:
    return {a.label: a for a in found}


def test_a_hand_card_gets_what_a_hand_card_can_do_with_the_rules_verdict() -> None:
    """After player 0 Set a monster on turn 1 (#9), a second Normal Summon is SUM-01, zones free."""
    state = replay(SAMPLE, CARDS, 10)
    skull = by_label(actions(state, "p0.m2"))                      # Summoned Skull, in the hand
    summon = skull["Normal Summon"]
    assert summon.verdict == "illegal" and summon.rules == ["SUM-01"]
    assert summon.event["tributes"] == ["p0.m0"] and summon.choices["zone"] == [0, 1, 3, 4]
    assert skull["Send to the GY"].verdict == "legal" and "Attack" not in skull
    raigeki = by_label(actions(state, "p0.m3"))
    assert raigeki["Activate"].verdict == "legal" and "Normal Summon" not in raigeki


def test_every_action_offered_is_recorded_as_its_verdict_says() -> None:
    """An action's verdict is the fold's: legal ones fold, illegal ones are refused with its rules."""
    from ygoreplay.rules import History, RuleViolation
    for at in (10, 20, 33, 40):
        state = replay(SAMPLE, CARDS, at)
        cards = [None, *state.sides[state.turn_player].hand, *(c for c in state.sides[state.turn_player].mzone if c)]
        for card in cards:
            for action in actions(state, card):
                history = History(CARDS)
                history.extend(SAMPLE[:at + 1])
                if action.verdict == "legal":
                    history.append(from_dict(action.event))
                else:
                    with pytest.raises(RuleViolation) as info:
                        history.append(from_dict(action.event))
                    assert info.value.rule in action.rules


def test_the_turn_moves_follow_the_turn() -> None:
    moves = by_label(actions(replay(SAMPLE, CARDS, 10)))        # turn 1, Main Phase 1
    assert moves["To battle"].verdict == "illegal" and moves["To battle"].rules == ["NIS-04"]
    assert moves["To end (skip the Battle Phase)"].verdict == "legal"
    damage_step = next(i for i, e in enumerate(SAMPLE) if e.kind == "step_entered" and e.step == "damage")
    calc = by_label(actions(replay(SAMPLE, CARDS, damage_step)))["Damage calculation"]
    # against a face-down monster: it flips it (POS-04), so its player enters it (a player's device)
    assert calc.verdict == "legal" and calc.event == {**SAMPLE[damage_step + 1].to_dict(), "player": 0}


def test_an_unknown_card_is_offered_everything_a_card_could_do_undecided() -> None:
    events = [from_dict(e) for e in (
        {"kind": "duel_started", "first_player": 0},
        {"kind": "deck_registered", "player": 0, "main": [0] * 40},
        {"kind": "deck_registered", "player": 1, "main": [0] * 40},
        {"kind": "cards_drawn", "player": 0, "count": 5}, {"kind": "cards_drawn", "player": 1, "count": 5},
        {"kind": "turn_started", "player": 0, "turn": 1}, {"kind": "phase_entered", "phase": "draw"},
        {"kind": "phase_entered", "phase": "standby"}, {"kind": "phase_entered", "phase": "main1"})]
    found = by_label(actions(replay(events, CARDS), "p0.m0"))
    assert {"Normal Summon", "Set (monster)", "Set (Spell/Trap)", "Send to the GY"} <= set(found)
    assert found["Set (monster)"].verdict == "undecided" and found["Send to the GY"].verdict == "legal"
    assert "Activate" not in found       # an activated card is shown to all: it is entered named


def test_a_card_the_duel_does_not_have_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="no card 'p9.m0'"):
        actions(replay(SAMPLE, CARDS, 10), "p9.m0")


def test_the_command_line_lists_the_actions(tmp_path) -> None:
    result = CliRunner().invoke(main, ["actions", "replays/won-by-damage.jsonl", "--at", "10", "--card", "p0.m2",
                                       "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["at"] == 10 and by_label_dicts(data["actions"])["Normal Summon"]["rules"] == ["SUM-01"]
    result = CliRunner().invoke(main, ["actions", "replays/won-by-damage.jsonl", "--card", "nobody"])
    assert result.exit_code == 2 and "no card 'nobody'" in result.output and "Traceback" not in result.output


def by_label_dicts(found: list[dict]) -> dict:
    return {a["label"]: a for a in found}


def test_the_service_answers_the_duels_writers_only(client) -> None:  # noqa: F811
    duel = client.post("/duels", json={"title": "actions"}, headers=ORGANISER).json()
    tokens = duel["tokens"]
    client.post(f"/duels/{duel['id']}/events", json=events_of("won-by-damage.jsonl")[:11],
                headers=auth(tokens["recorder"]))
    r = client.get(f"/duels/{duel['id']}/actions", params={"card": "p0.m2"}, headers=auth(tokens["recorder"]))
    assert r.status_code == 200 and r.json()["at"] == 10
    assert by_label_dicts(r.json()["actions"])["Normal Summon"]["rules"] == ["SUM-01"]
    for role in ("spectator", "p0", "p1"):
        if role in tokens:
            assert client.get(f"/duels/{duel['id']}/actions", headers=auth(tokens[role])).status_code == 403
    assert client.get(f"/duels/{duel['id']}/actions", params={"card": "p9.x"},
                      headers=auth(tokens["judge"])).status_code in (400, 422)
