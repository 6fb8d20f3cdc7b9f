"""The paper LP record (issue 23): a duel's LP changes turn by turn with their causes, as a
printable page both players sign and as CSV; made from the duel as a view has it, so a
spectator's sheet names no card a spectator could not see; the CLI and the service give it
under the same access rules and delay as the duel's other reads."""
from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from test_release import ADMIN, ORGANISER, auth, client, store  # noqa: F401  (fixtures: an in-process service)
from test_service import REPLAYS, events_of
from ygoreplay.cards import CardDB
from ygoreplay.cli import main
from ygoreplay.events import from_dict
from ygoreplay.lpsheet import CSV_HEADER, guarded, sheet_of, to_csv, to_html
from ygoreplay.rules import History
from ygoreplay.views import redact, view_cards

CLASSIC = CardDB.classic()
DAMAGE = REPLAYS / "won-by-damage.jsonl"


def decoded(rows: list[dict]) -> list:
    return [from_dict(row, f"event {i}") for i, row in enumerate(rows)]


def spectator_sheet(events: list, cards: CardDB = CLASSIC):
    red = redact(events, cards, "spectator", b"k" * 32)
    return sheet_of(red.events, view_cards(cards, red.codes), "spectator", disclosures=red.disclosures,
                    renames=red.renames)


def test_the_sheet_of_a_duel_won_by_damage_is_the_folds_lp_after_every_change():
    events = decoded(events_of("won-by-damage.jsonl"))
    history = History(CLASSIC, audit=True)
    expected = []
    for index, event in enumerate(events):
        before = [s.lp for s in history.state.sides]
        state = history.append(event)
        if event.kind == "life_points_changed":
            expected.append((index, event.player, before[event.player], state.sides[event.player].lp,
                             (state.sides[0].lp, state.sides[1].lp)))
    sheet = sheet_of(events, CLASSIC)
    assert [(r.index, r.player, r.before, r.after, r.lp) for r in sheet.rows] == expected
    assert sheet.lp == (8000, 0) == tuple(s.lp for s in history.state.sides)
    assert sheet.players == ("Yugi", "Kaiba") and sheet.starting_lp == (8000, 8000)
    assert sheet.result == "Yugi wins (LP reached 0), LP 8000 / 0"
    first, cylinder = sheet.rows[0], sheet.rows[2]
    assert (first.turn, first.phase, first.step, first.reason, first.change) == (2, "battle", "damage",
                                                                                  "battle_damage", -100)
    assert first.cause == "Kaiba's Vorse Raider [M2] attacking Yugi's Giant Soldier of Stone [M2] (#20)"
    assert (cylinder.reason, cylinder.cause) == ("effect_damage", "Yugi's Magic Cylinder [S1]")
    assert sheet.rows[-1].cause == "Yugi's Gemini Elf [M3] attacking directly (#84)"
    # every LP change of this duel is public: the spectator's sheet has the same rows
    assert [(r.index, r.after, r.cause) for r in spectator_sheet(events).rows] == \
           [(r.index, r.after, r.cause) for r in sheet.rows]


def test_an_lp_cost_a_gain_and_a_rollback_are_rows_and_the_rows_it_undid_are_marked():
    events = decoded(events_of("chain-counter-traps.jsonl"))
    cost = sheet_of(events, CLASSIC).rows
    assert [(r.index, r.reason, r.change) for r in cost] == [(31, "cost", -1000)]
    assert cost[0].cause.startswith("activating Yugi's Seven Tools of the Bandit")
    rows = events_of("won-by-damage.jsonl")[:30]          # turn 2's battle damage is #23
    rows += [{"kind": "life_points_changed", "player": 0, "amount": 300, "reason": "gain"},
             {"kind": "rolled_back", "to": 23, "judge": "J. Smith", "reason": "misread ATK"}]
    sheet = sheet_of(decoded(rows), CLASSIC)
    assert [(r.index, r.player, r.reason, r.change, r.reverted_by) for r in sheet.rows] == [
        (23, 1, "battle_damage", -100, 31), (30, 0, "gain", 300, 31),
        (31, 0, "rollback", -300, None), (31, 1, "rollback", 100, None)]
    assert sheet.rows[-1].cause == "a judge's rollback to before #23: misread ATK"
    assert sheet.lp == (8000, 8000)
    assert 'class="reverted"' in to_html(sheet)


def test_the_csv_parses_back_with_a_header_row_and_the_result_last():
    sheet = sheet_of(decoded(events_of("won-by-damage.jsonl")), CLASSIC)
    text = to_csv(sheet)
    assert text.endswith("\r\n") and "\r\n" in text.split("\n", 1)[0] + "\n"
    table = list(csv.DictReader(io.StringIO(text, newline="")))
    assert tuple(table[0]) == CSV_HEADER
    assert len(table) == len(sheet.rows) + 1
    assert [(int(r["event"]), r["name"], int(r["change"]), int(r["lp_p1"])) for r in table[:-1]] == \
           [(23, "Kaiba", -100, 7900), (39, "Kaiba", -600, 7300), (60, "Kaiba", -2900, 4400),
            (82, "Kaiba", -2500, 1900), (87, "Kaiba", -1900, 0)]
    assert table[-1]["reason"] == "result" and table[-1]["cause"].startswith("Yugi wins")


def test_a_name_that_is_a_formula_is_text_in_the_csv_and_markup_is_text_on_the_page():
    rows = events_of("won-by-damage.jsonl")[:30]
    rows[0] = {**rows[0], "players": ["=HYPERLINK(\"http://evil\")", "@SUM(A1)<script>x</script>"]}
    sheet = sheet_of(decoded(rows), CLASSIC)
    table = list(csv.reader(io.StringIO(to_csv(sheet), newline="")))
    names = {row[6] for row in table[1:-1]}
    assert names == {"'@SUM(A1)<script>x</script>"}
    assert all(not cell.startswith(("=", "+", "@")) or cell.lstrip("-").isdigit() for row in table for cell in row)
    assert guarded("-1+2") == "'-1+2" and guarded("+x") == "'+x" and guarded("Yugi") == "Yugi"
    page = to_html(sheet)
    assert "<script>" not in page and "&lt;script&gt;x&lt;/script&gt;" in page


def hidden_cost() -> list:
    """Turn 1 of the sample, then Yugi pays 500 LP citing Summoned Skull, still in his hand."""
    rows = events_of("won-by-damage.jsonl")[:11]
    assert rows[-1]["kind"] == "spell_trap_set"
    return decoded(rows + [{"kind": "life_points_changed", "player": 0, "amount": 500, "reason": "cost",
                            "cause": "p0.m2"}])


def test_a_spectators_sheet_does_not_name_a_card_paid_from_a_hidden_place():
    events = hidden_cost()
    judge = sheet_of(events, CLASSIC)
    assert judge.rows[-1].cause == "Yugi's Summoned Skull"
    sheet = spectator_sheet(events)
    assert [(r.index, r.change) for r in sheet.rows] == [(11, -500)]
    assert sheet.rows[0].cause == "a card in Yugi's hand"
    for text in (to_csv(sheet), to_html(sheet), json.dumps(sheet.to_dict())):
        assert "Summoned Skull" not in text and "70781052" not in text


# -- the command line ---------------------------------------------------------------------------------

def test_the_command_prints_the_csv_or_writes_the_page(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["lp-sheet", str(DAMAGE), "--csv"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(",".join(CSV_HEADER))
    page = tmp_path / "sheet.html"
    result = runner.invoke(main, ["lp-sheet", str(REPLAYS / "won-by-damage.spectator.ygr"), "-o", str(page),
                                  "--paper", "letter"])
    assert result.exit_code == 0, result.output
    html = page.read_text()
    assert "size: letter" in html and "Yugi wins" in html and "signature" in html
    from ygoreplay.replay_file import read
    assert read(REPLAYS / "won-by-damage.spectator.ygr").chain[-1].hex() in html
    result = runner.invoke(main, ["lp-sheet", str(REPLAYS / "won-by-damage.judge.ygr"), "--view", "spectator",
                                  "--csv"])
    assert result.exit_code == 0 and "Magic Cylinder" in result.output
    missing = runner.invoke(main, ["lp-sheet", str(tmp_path / "nope.jsonl"), "--store", str(tmp_path / "s.sqlite")])
    assert missing.exit_code == 2 and "no store at" in missing.output and "Traceback" not in missing.output


# -- the service ----------------------------------------------------------------------------------------

def recorded(client, delay: int = 0, visibility: str = "unlisted") -> dict:
    duel = client.post("/duels", json={"title": "Feature match", "visibility": visibility,
                                       "delay": {"events": delay}}, headers=ORGANISER).json()
    r = client.post(f"/duels/{duel['id']}/events", json=events_of("won-by-damage.jsonl")[:61],
                    headers=auth(duel["tokens"]["recorder"]))
    assert r.status_code == 200, r.text
    duel["receipt"] = r.json()["receipt"]
    return duel


def test_the_service_serves_the_page_and_the_csv_with_the_records_head(client):
    duel = recorded(client)
    d, tokens = duel["id"], duel["tokens"]
    page = client.get(f"/duels/{d}/lp-sheet", headers=auth(tokens["recorder"]))
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "script-src" not in page.headers["content-security-policy"]
    assert duel["receipt"]["head"] in page.text and d in page.text and "Feature match" in page.text
    sheet = client.get(f"/duels/{d}/lp-sheet.csv", headers=auth(tokens["judge"]))
    assert sheet.headers["content-type"].startswith("text/csv")
    table = list(csv.DictReader(io.StringIO(sheet.text, newline="")))
    assert [int(r["lp_p1"]) for r in table] == [7900, 7300, 4400, 4400]
    assert client.get(f"/duels/{d}/lp-sheet").status_code == 404                # unlisted: no token, no duel
    assert client.get(f"/duels/{d}/lp-sheet", headers=auth("not-a-token")).status_code == 404
    assert client.get(f"/duels/{d}/lp-sheet.csv?view=judge", headers=auth(tokens["spectator"])).status_code == 403


def test_a_delayed_spectators_sheet_stops_where_the_delay_does(client):
    duel = recorded(client, delay=25)
    d, tokens = duel["id"], duel["tokens"]
    spectator = list(csv.DictReader(io.StringIO(
        client.get(f"/duels/{d}/lp-sheet.csv", headers=auth(tokens["spectator"])).text, newline="")))
    assert [int(r["event"]) for r in spectator] == [23, 35]          # 36 of the 61 events: #39 is held back
    player = list(csv.DictReader(io.StringIO(
        client.get(f"/duels/{d}/lp-sheet.csv", headers=auth(tokens["p0"])).text, newline="")))
    assert [int(r["event"]) for r in player] == [23, 39, 60, 60]
    page = client.get(f"/duels/{d}/lp-sheet", headers=auth(tokens["spectator"])).text
    assert "36 events" in page and duel["receipt"]["head"] not in page


def test_a_spectator_on_the_service_is_not_told_a_card_paid_from_a_hidden_place(client):
    duel = client.post("/duels", json={"visibility": "public"}, headers=ORGANISER).json()
    rows = [e.to_dict() for e in hidden_cost()]
    assert client.post(f"/duels/{duel['id']}/events", json=rows[:-1],
                       headers=auth(duel["tokens"]["recorder"])).status_code == 200
    # a cost citing a card in the hand is the recorder's word; append it as the judge would see it
    client.post(f"/duels/{duel['id']}/events", json=rows[-1:], headers=auth(duel["tokens"]["recorder"]))
    for path in ("lp-sheet", "lp-sheet.csv"):
        public = client.get(f"/duels/{duel['id']}/{path}")
        assert public.status_code == 200 and "Summoned Skull" not in public.text and "70781052" not in public.text
    assert "Summoned Skull" in client.get(f"/duels/{duel['id']}/lp-sheet.csv",
                                          headers=auth(duel["tokens"]["judge"])).text
