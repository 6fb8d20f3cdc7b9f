"""Two recorder devices at one table both tap *Next turn*: the second tap is refused, not stored as
a second turn (``application.repeated_turn``), on the one write path every face takes — over
HTTP (428 with a translated message and ``confirm``) and on the command line (``append``,
``--confirm``) — and a device that really means it confirms."""
from __future__ import annotations

import json

from click.testing import CliRunner

from test_release import auth, client, store  # noqa: F401  (fixtures)
from test_service_table_recording import at_the_table
from ygoreplay.cli import main

END_TURN_1 = [{"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "player": 1, "turn": 2}]


def _count(client, duel: dict) -> int:  # noqa: F811
    return client.get(f"/duels/{duel['id']}/state", headers=auth(duel["tokens"]["judge"])).json()["events"]


def _post(client, duel: dict, token: str, events: list, **params) -> object:  # noqa: F811
    return client.post(f"/duels/{duel['id']}/events", params=params, json=events, headers=auth(token))


def test_a_second_next_turn_on_a_turn_nothing_was_entered_in_is_refused_until_confirmed(client) -> None:  # noqa: F811
    """Device A ends turn 1; device B, having seen it, taps *Next turn* too: turn 2 holds nothing
    at all (not even its draw). Stored, the record had two turns; now nothing is written and the
    answer (428) says why in the reader's language, offering to confirm; confirmed, it is stored."""
    duel, recorder = at_the_table(client)
    at = _count(client, duel)
    assert _post(client, duel, recorder, END_TURN_1, expected=at).status_code == 200
    again = [{"kind": "turn_started", "player": 0, "turn": 3}]
    r = _post(client, duel, recorder, again, expected=at + 2, lang="ja")
    assert r.status_code == 428, r.text
    answer = r.json()
    assert answer["confirm"] == "turn_empty"
    assert answer["message"].startswith("nothing was entered in turn 2, not even its draw")
    assert answer["message_translated"].startswith("ターン2には何も入力されていません"), answer
    assert _count(client, duel) == at + 2                     # nothing written
    r = _post(client, duel, recorder, again, expected=at + 2, confirm="true")
    assert r.status_code == 200, r.text
    assert _count(client, duel) == at + 3


def test_a_plain_append_is_judged_for_a_repeated_turn_too(client) -> None:  # noqa: F811
    """An append whose query is plain (``expected`` alone, or none) takes the service's direct
    route (``DirectRoute``), which calls the endpoint itself: it is refused alike (428), not
    stored as a second turn. (It passed ``confirm`` its ``Query`` marker, truthy: every such
    append counted as confirmed.)"""
    duel, recorder = at_the_table(client)
    at = _count(client, duel)
    assert _post(client, duel, recorder, END_TURN_1, expected=at).status_code == 200
    again = [{"kind": "turn_started", "player": 0, "turn": 3}]
    for params in ({"expected": at + 2}, {}):
        r = _post(client, duel, recorder, again, **params)
        assert r.status_code == 428 and r.json()["confirm"] == "turn_empty", (params, r.text)
    assert _count(client, duel) == at + 2                     # nothing written


def test_a_next_turn_queued_before_another_devices_is_refused_as_made_on_a_stale_head(client) -> None:  # noqa: F811
    """Device B tapped *Next turn* before it saw device A's; its queue moves the entry after A's
    (``expected`` the new head) but it keeps the head it was made on (``made_on``): a turn was
    started after that head, so it is the same turn entered twice (turn_repeated), refused even
    though A's turn already has its draw. A's own entry sent again at the
    head it was made on (its answer lost) is the 409 the page reconciles by, never a repeat."""
    duel, recorder = at_the_table(client)
    at = _count(client, duel)
    assert _post(client, duel, recorder, END_TURN_1, expected=at, made_on=at).status_code == 200
    assert _post(client, duel, recorder, END_TURN_1, expected=at, made_on=at).status_code == 409
    drawn = [{"kind": "phase_entered", "phase": "draw"}, {"kind": "cards_drawn", "player": 1}]
    assert _post(client, duel, recorder, drawn, expected=at + 2).status_code == 200
    mine = [{"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "player": 1, "turn": 2}]
    r = _post(client, duel, recorder, mine, expected=at + 4, made_on=at, lang="zh-Hant")
    assert r.status_code == 428 and r.json()["confirm"] == "turn_repeated", r.text
    assert "第2回合已由另一條輸入" in r.json()["message_translated"], r.text
    assert _count(client, duel) == at + 4                     # nothing written
    # a turn change made on the head it meets is the table's own: stored at once
    assert _post(client, duel, recorder, [{"kind": "phase_entered", "phase": "end"},
                                          {"kind": "turn_started", "player": 0, "turn": 3}],
                 expected=at + 4, made_on=at + 4).status_code == 200


def test_the_command_lines_append_refuses_an_empty_turn_until_confirmed(tmp_path) -> None:
    """The same check on the command line's ``append`` (the one write path): exit 2 naming the
    turn, nothing written; ``--confirm`` stores it (a paper duel's: kept, flagged TURN-01 for the
    End Phase never entered, as the rules see it)."""
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "YGOREPLAY_KEY": str(tmp_path / "k.pem"), "YGOREPLAY_LANG": "en"}
    setup = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["Yugi", "Kaiba"]},
             *({"kind": "deck_registered", "player": p, "main": [0] * 40, "extra": []} for p in (0, 1)),
             *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
             {"kind": "turn_started", "player": 0, "turn": 1},
             *({"kind": "phase_entered", "phase": phase} for phase in ("draw", "standby", "main1", "end")), {"kind": "turn_started", "player": 1, "turn": 2}]
    (tmp_path / "d.jsonl").write_text("\n".join(json.dumps(e) for e in setup))
    (tmp_path / "more.jsonl").write_text(json.dumps({"kind": "turn_started", "player": 0, "turn": 3}))
    runner = CliRunner()
    made = runner.invoke(main, ["record", str(tmp_path / "d.jsonl"), "--witnessed"], env=env)   # kept, flagged
    assert made.exit_code == 0, made.output
    duel = made.stdout.strip()
    refused = runner.invoke(main, ["append", duel, str(tmp_path / "more.jsonl")], env=env)
    assert refused.exit_code == 2 and "nothing was entered in turn 2" in refused.stderr, refused.output
    assert runner.invoke(main, ["log", duel, "--json"], env=env).stdout.count("\n") == len(setup)
    confirmed = runner.invoke(main, ["append", duel, str(tmp_path / "more.jsonl"), "--confirm"], env=env)
    assert confirmed.exit_code == 0 and confirmed.stdout.strip() == str(len(setup) + 1), confirmed.output



def test_a_plain_append_judged_on_a_head_another_process_moved_is_judged_again_on_the_stored_one(tmp_path) -> None:
    """Two service workers (two stores on one file): worker B appended up to a turn's start and
    holds that head; worker A then enters the turn's plays; B takes the next turn change with no
    ``expected``. Judged on B's head, turn 2 held nothing and the legal append was refused 428
    (``turn_empty``; the multi-process service test saw it now and then); judged again on the
    stored head, it is written. (An ``expected`` or a ``made_on`` the device sent stays its own.)"""
    from test_store import sample
    from ygoreplay.application import Records
    from ygoreplay.store import Store
    events = list(sample("won-by-damage.jsonl"))
    starts = [i for i, e in enumerate(events) if e.kind == "turn_started"]
    began, after = next((a, b) for a, b in zip(starts, starts[1:]) if b - a > 1)
    path = str(tmp_path / "s.sqlite")
    with Store(path) as a, Store(path) as b:
        duel = a.create_duel("two workers")
        Records(b).append(duel, events[:began + 1])              # B holds the head at the turn's start
        Records(a).append(duel, events[began + 1:after])         # A enters the turn's plays
        Records(b).append(duel, events[after:after + 1])         # B: the next turn, no expected
        assert b.info(duel).events == after + 1
