"""Attacks on issue 25's eighteenth pass (``attack25ay``): the table's view of a paper duel
(``access.TABLE``, attack25aw) and the round's new results CSV and flags (organiser18).

A round's ``results.csv`` (and a duel's LP sheet as CSV) guard a cell that a spreadsheet runs as
a formula (``lpsheet.guarded``, OWASP's list: ``=``, ``+``, ``-``, ``@``, tab, CR). A player's
name in its full-width form (``＝HYPERLINK(...)``, ``＋``, ``－``, ``＠``), the small forms, or
after a space, went out unguarded: Japanese Excel reads ``＝`` as ``=`` (the name is typed at a
Japanese table with the IME on), so a pairing's name ran as a formula on the organiser's machine.
The table view folds in the record's ids, so mixing a hidden pile renamed nothing, and its fold
kept the faces there: a card the table saw (shown as Pot of Greed), back in the hand, kept its face,
and a player's device's Set of it was "Pot of Greed" on the scorekeeper's board and picture
(``ViewReplay._settle`` now loses them as a mix in fresh names does). Its id is still the record's
(left open: naming it anew needs the recorder's writes turned back into record ids; closed in the
nineteenth pass, ``tests/test_table_names.py``).

Tried and held: the record's head hash at none of the table's doors (state, frames, events, cards,
verify, tree, LP sheet and its CSV, board picture, .ygr); ``POST /rounds/{id}/time`` with no token
(401) or a table's recorder, judge or player token (403); a private round table in the round's JSON
and CSV (its number and "private" only)."""
from __future__ import annotations

import csv
import io

import pytest

from test_release import ORGANISER, auth, client, store  # noqa: F401  (fixtures: an in-process service)
from ygoreplay.lpsheet import guarded

#: Names a spreadsheet reads as a formula: full-width, small, after a space (a full-width one too).
FORMULAS = ("＝HYPERLINK(\"http://x.example\",\"win\")", "＋1+cmd|' /C calc'!A0", "－2+3", "＠SUM(1+1)",
            "﹦1+1", "﹢1", "﹣1", "﹫SUM(1)", " =1+1", "\u3000＝1+1", "\u00a0@SUM(1)")


@pytest.mark.parametrize("name", FORMULAS)
def test_a_cell_a_spreadsheet_reads_as_a_formula_is_guarded(name):
    """``lpsheet.guarded``, shared by the LP sheet and the round's results: each form is quoted."""
    assert guarded(name) == "'" + name


def test_a_rounds_results_csv_guards_full_width_formulas(client):  # noqa: F811
    """A round paired by names a Japanese table typed in full width: no cell of its results.csv
    is a formula to a spreadsheet (each player cell starts with ``'``); a plain name, full-width
    letters or a sign inside it, is as it was typed."""
    tables = [{"table": 1, "players": ["＝HYPERLINK(\"http://x.example\",\"win\")", "＋1+1"]},
              {"table": 2, "players": ["－2+3", "＠SUM(1+1)"]}]
    plain = {"table": 3, "players": ["海馬瀬人", "Ｙｕｇｉ A-1=x"]}
    made = client.post("/rounds", json={"event": "Regional", "round": 1, "tables": [*tables, plain]},
                       headers=ORGANISER)
    assert made.status_code == 201, made.text
    answer = client.get(f"/rounds/{made.json()['id']}/results.csv")
    assert answer.status_code == 200, answer.text
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    cells = [row[column] for row in rows for column in ("player_1", "player_2")]
    assert cells == ["'" + name for table in tables for name in table["players"]] + plain["players"], cells


def test_a_duels_lp_sheet_csv_guards_a_full_width_formula_name(client):  # noqa: F811
    """The LP sheet's CSV names each row's player: typed ``＝1+1`` at the table, it is guarded too."""
    duel = client.post("/duels", json={"title": "table 3"}, headers=ORGANISER).json()
    start = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["＝1+1", "Kaiba"]},
             *({"kind": "deck_registered", "player": p, "main": [0] * 40, "extra": []} for p in (0, 1)),
             *({"kind": "cards_drawn", "player": p, "count": 5} for p in (0, 1)),
             {"kind": "turn_started", "player": 0, "turn": 1},
             *({"kind": "phase_entered", "phase": phase} for phase in ("draw", "standby", "main1")),
             {"kind": "life_points_changed", "player": 0, "amount": 1000, "reason": "gain"}]
    written = client.post(f"/duels/{duel['id']}/events", json=start, headers=auth(duel["tokens"]["recorder"]))
    assert written.status_code == 200, written.text
    sheet = client.get(f"/duels/{duel['id']}/lp-sheet.csv", headers=auth(duel["tokens"]["judge"]))
    assert sheet.status_code == 200, sheet.text
    names = {row["name"] for row in csv.DictReader(io.StringIO(sheet.text)) if row["name"]}
    assert names == {"'＝1+1"}, sheet.text


POT = 55144522


def _revealed_then_set(client):  # noqa: F811
    """The table (attack25aw's ``_table``) sees player 1 show Pot of Greed from the hand (the
    scorekeeper enters it); the card stays in the hand, and player 1's device Sets it later:
    which card of the hand went face-down, nobody at the table can tell."""
    from test_attack_25aw import _table
    from test_device_names import board, post
    duel, recorder = _table(client)
    hand = board(client, duel["id"], recorder)["players"][1]["hand"]
    shown = hand[2]["id"]
    revealed = post(client, duel["id"], recorder, [{"kind": "card_revealed", "player": 1, "cards": [shown],
                                                    "shows": {shown: POT}}])
    assert revealed.status_code == 200, revealed.text
    mine = board(client, duel["id"], duel["tokens"]["p1"])["players"][1]["hand"]
    pot = [card["id"] for card in mine if card.get("code") == POT]
    assert len(pot) == 1, mine
    set_ = post(client, duel["id"], duel["tokens"]["p1"], [{"kind": "spell_trap_set", "player": 1, "card": pot[0],
                                                            "zone": 0}])
    assert set_.status_code == 200, set_.text
    return duel, recorder, shown


def test_a_card_the_table_saw_then_set_from_the_hand_is_not_shown_as_it_was_seen(client):  # noqa: F811
    """The table view folds in the record's ids, so a hidden pile's mix (the hand, once the card
    the table saw went back into it) renamed nothing, and its fold kept the card's face: the
    device's Set of it was "Pot of Greed" on the scorekeeper's board. A mix in kept names loses
    the pile's faces as a mix in fresh names does (``ViewReplay._settle``)."""
    from test_device_names import board
    duel, recorder, shown = _revealed_then_set(client)
    judge = board(client, duel["id"], duel["tokens"]["judge"])["players"][1]["szone"][0]
    assert judge["id"] == shown and judge["code"] == POT, "the record: the card shown is the one Set"
    seen = board(client, duel["id"], recorder)["players"][1]
    assert seen["szone"][0].get("hidden") and "code" not in seen["szone"][0], seen["szone"][0]
    picture = client.get(f"/duels/{duel['id']}/board.svg", headers=auth(recorder)).text
    assert "Pot of Greed" not in picture
