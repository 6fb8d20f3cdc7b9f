"""An organiser running a big round (eighteenth pass): the round says which tables need someone
(a judge called at the table, in the match or in the duel, MATCH-08; an entry disputed; a result
the rules give that nobody recorded, MATCH-01/PEN-02; the time called, TIME-01..03), with the
round at a glance; time is called at every table at once at one clock (TIME-01), each table
told apart (LOG-03, LOG-05); and the round's page and command say it all in the reader's
language (zh_Hans here), not in English."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from test_match_service import MATCHES, lines
from test_release import ORGANISER, auth, client, store  # noqa: F401  (fixtures: an in-process service)
from ygoreplay import i18n
from ygoreplay.cli import main
from ygoreplay.round_pages import round_page
from ygoreplay.rounds import RoundSettings, create_round, read_pairings, status

DECKS = [e for e in lines(MATCHES / "two-nil.jsonl") if e["kind"] == "decklist_registered"]
DUEL = lines(MATCHES / "duels" / "g1-yugi-wins.jsonl")        # Yugi (player 0) wins on LP
PAPER = [{**DUEL[0], "witnessed": True}, *DUEL[1:]]
CALL = [{"kind": "judge_note", "category": "call", "judge": "", "note": "a ruling, please"}]


def _round(client, tables: int = 4) -> dict:
    # table 1's players are the sample duel's (a player's phone is seated in its duel by name)
    body = "1,Yugi,Kaiba\n" + "".join(f"{t},Player {2 * t - 1},Player {2 * t}\n" for t in range(2, tables + 1))
    made = client.post("/rounds?event=Regional&round=2", content=body, headers={"Content-Type": "text/csv", **ORGANISER})
    assert made.status_code == 201, made.text
    return made.json()


def _start(client, table: dict) -> dict:
    """The table registers its decklists and starts duel 1: the duel made for it."""
    writer = auth(table["tokens"]["recorder"])
    assert client.post(f"/matches/{table['match']}/events", json=DECKS, headers=writer).status_code == 200
    game = client.post(f"/matches/{table['match']}/games", json={"first_player": 0, "chosen_by": 0}, headers=writer)
    assert game.status_code == 201, game.text
    return game.json()["duel"]


def _called(client) -> tuple[dict, dict, dict]:
    """A round whose first table's duel has begun (its first six entries) and called the judge
    (the recorder page's *Call the judge*): the round, that table and its duel."""
    made = _round(client)
    one = made["tables"][0]
    duel = _start(client, one)
    writer = auth(duel["tokens"]["recorder"])
    assert client.post(f"/duels/{duel['id']}/events", json=PAPER[:6], headers=writer).status_code == 200
    assert client.post(f"/duels/{duel['id']}/events", json=CALL, headers=writer).status_code == 200
    return made, one, duel


def _tables(client, made: dict) -> dict[int, dict]:
    return {t["table"]: t for t in client.get(f"/rounds/{made['id']}.json").json()["tables"]}


def test_a_judge_called_at_a_table_flags_it_on_the_round_until_the_ruling(client):
    """MATCH-08: table 2 calls a judge through its match; the round says so (and counts it)
    until the judge rules."""
    made = _round(client)
    two = made["tables"][1]
    _start(client, two)
    called = client.post(f"/matches/{two['match']}/judge-calls", json={"player": 0, "judge": "", "question": "chain?"},
                         headers=auth(two["tokens"]["recorder"]))
    assert called.status_code == 200, called.text
    now = client.get(f"/rounds/{made['id']}.json").json()
    assert now["tables"][1]["attention"] == ["judge_called"] and now["tables"][0]["attention"] == []
    assert now["counts"] == {"tables": 4, "playing": 1, "between_duels": 0, "ended": 0, "not_started": 3,
                             "private": 0, "attention": 1}
    ruled = client.post(f"/matches/{two['match']}/rulings", json={"judge": "Head Judge", "ruling": "it chains"},
                        headers=auth(two["tokens"]["judge"]))
    assert ruled.status_code == 200, ruled.text
    assert _tables(client, made)[2]["attention"] == []


def test_a_call_or_a_dispute_in_a_tables_duel_flags_it_until_a_judge_answers(client):
    """MATCH-08 at the table: the recorder page's *Call the judge* is a call in the duel; a
    player's device disputing an entry is one too; a judge's note answers them."""
    made, one, duel = _called(client)
    assert _tables(client, made)[1]["attention"] == ["judge_called"]
    note = client.post(f"/duels/{duel['id']}/notes", json={"judge": "Floor", "text": "resolved", "category": "ruling"},
                       headers=auth(one["tokens"]["judge"]))
    assert note.status_code in (200, 201), note.text
    assert _tables(client, made)[1]["attention"] == []
    # player 1's device disputes an entry the scorekeeper made: open until a judge rules on it
    dispute = [{"kind": "entry_disputed", "on": 5, "reason": "that was not summoned"}]
    r = client.post(f"/duels/{duel['id']}/events", json=dispute, headers=auth(one["tokens"]["p1"]))
    assert r.status_code == 200, r.text
    assert _tables(client, made)[1]["attention"] == ["disputed"]


def test_a_concession_not_recorded_as_the_result_is_flagged_until_it_is(client):
    """MATCH-01/PEN-02: a player drops (concedes) mid-round: the match is decided, but its
    standing counts only once the result is recorded; the round says so meanwhile."""
    made = _round(client)
    three = made["tables"][2]
    _start(client, three)
    conceded = client.post(f"/matches/{three['match']}/concede", json={"player": 1},
                           headers=auth(three["tokens"]["recorder"]))
    assert conceded.status_code == 200, conceded.text
    assert _tables(client, made)[3]["attention"] == ["result_due"]
    done = client.post(f"/matches/{three['match']}/result", headers=auth(three["tokens"]["recorder"]))
    assert done.status_code == 200 and done.json()["result"]["points"] == [3, 0]
    table = _tables(client, made)[3]
    assert table["attention"] == [] and table["state"] == "ended" and table["winner"] == 0
    assert table["points"] == [3, 0] and table["how"] == "concession"


def test_the_rounds_results_are_exported_as_csv_for_the_standings(client):
    """MATCH-01/02: one row a table, the winner by name, how, each player's match points once
    recorded, what the table still needs; a name a spreadsheet would run is guarded."""
    import csv
    import io
    body = "1,Yugi,Kaiba\n2,=HYPERLINK(\"x\"),Mai\n3,Joey,Bakura\n"
    made = client.post("/rounds?event=Regional&round=4", content=body,
                       headers={"Content-Type": "text/csv", **ORGANISER}).json()
    one, two, _three = made["tables"]
    _start(client, one)
    _start(client, two)
    writer = auth(one["tokens"]["recorder"])
    assert client.post(f"/matches/{one['match']}/concede", json={"player": 1}, headers=writer).status_code == 200
    assert client.post(f"/matches/{one['match']}/result", headers=writer).status_code == 200
    assert client.post(f"/matches/{two['match']}/concede", json={"player": 0},
                       headers=auth(two["tokens"]["recorder"])).status_code == 200
    r = client.get(f"/rounds/{made['id']}/results.csv")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert [row["table"] for row in rows] == ["1", "2", "3"]
    assert {k: rows[0][k] for k in ("winner", "how", "points_1", "points_2", "won_1", "state", "attention")} == {
        "winner": "Yugi", "how": "concession", "points_1": "3", "points_2": "0", "won_1": "1", "state": "ended",
        "attention": ""}
    assert rows[1]["player_1"] == "'=HYPERLINK(\"x\")" and rows[1]["attention"] == "result_due"
    assert rows[1]["points_1"] == "" and rows[2]["state"] == "not started"
    assert 'href="/rounds/' + made["id"] + '/results.csv"' in client.get(f"/rounds/{made['id']}").text
    assert client.get("/rounds/ffffffffffff/results.csv").status_code == 404


def test_time_is_called_at_every_table_of_the_round_at_one_clock(client):
    """TIME-01: one call for the hall. A duel in progress is called where its record stands
    (TIME-03 counts the extra turns from there); a table between duels or not started is called
    between duels (TIME-08/09); an ended match is left; a duel whose record has not begun cannot
    say its turn (LOG-05): refused, the other tables called all the same; again, each says so."""
    made = _round(client)
    one, two, three, _four = made["tables"]
    duel = _start(client, one)
    assert client.post(f"/duels/{duel['id']}/events", json=PAPER[:8],
                       headers=auth(duel["tokens"]["recorder"])).status_code == 200
    _start(client, two)                                    # its device never sent an entry
    _start(client, three)
    assert client.post(f"/matches/{three['match']}/concede", json={"player": 0},
                       headers=auth(three["tokens"]["recorder"])).status_code == 200
    assert client.post(f"/matches/{three['match']}/result", headers=auth(three["tokens"]["recorder"])).status_code == 200
    path = f"/rounds/{made['id']}/time"
    assert client.post(path, json={}).status_code == 401
    assert client.post(path, json={}, headers=auth(one["tokens"]["judge"])).status_code == 403
    assert client.post(path, json={"clock": "ten past"}, headers=ORGANISER).status_code == 400
    clock = "2026-12-07T10:40:00Z"
    r = client.post(path, json={"clock": clock}, headers=ORGANISER)
    assert r.status_code == 200, r.text
    answer = r.json()
    assert answer["clock"] == clock
    outcomes = {t["table"]: t for t in answer["tables"]}
    assert [outcomes[n]["outcome"] for n in (1, 2, 3, 4)] == ["called", "refused", "ended", "called"]
    assert outcomes[1]["game"] == 1 and outcomes[1]["turn"] >= 1 and outcomes[1]["phase"]
    assert outcomes[2]["rule"] == "LOG-05" and f"/matches/{two['match']}/time" in outcomes[2]["message"]
    assert outcomes[4]["game"] is None
    state = client.get(f"/matches/{one['match']}/state", headers=auth(one["tokens"]["judge"])).json()
    assert json.dumps(state).count(clock) >= 1
    tables = _tables(client, made)
    assert tables[1]["attention"] == ["time_called"] and tables[1]["time"]["clock"] == clock
    assert tables[3]["attention"] == []
    again = client.post(path, headers=ORGANISER).json()
    assert [t["outcome"] for t in again["tables"]] == ["already", "refused", "ended", "already"]
    assert client.post("/rounds/ffffffffffff/time", headers=ORGANISER).status_code == 404


def test_the_round_page_says_who_records_and_what_a_table_needs_in_the_readers_language(tmp_path):
    """A zh_Hans organiser's page: the recorders, what a table needs and the round at a glance
    in Chinese, no English word of ours left in its rows."""
    from ygoreplay.store import Store
    with Store(str(tmp_path / "s.sqlite")) as opened:
        made = create_round(opened, read_pairings("1,甲,乙\n2,丙,丁\n"), RoundSettings("地区赛", 1))
        now = status(opened, made.id)
    now["tables"][0].update(state="playing duel 1", attention=["judge_called", "time_called"],
                            time={"clock": "2026-12-07T10:40:00Z", "extra_turns": 2},
                            recording={"by": ["recorder", "p1"], "who": "scorekeeper + player 1", "last_entry": None})
    now["counts"].update({"playing": 1, "not_started": 1, "attention": 1})
    with i18n.using("zh-Hans"):
        page = round_page(now)
    row = page.split('id="table-1"')[1].split("</tr>")[0]
    assert "已呼叫裁判 · 时间到（额外回合 2）" in row and "记录员 + 玩家1" in row
    assert "1 桌对局中" in page and "1 桌需处理" in page and "需处理" in page
    for english in ("scorekeeper", "player 1", "judge called", "time called", "playing"):
        assert english not in row, english


def test_the_command_calls_time_for_the_round_and_shows_what_each_table_needs(tmp_path):
    """The organiser's command line: ``round time`` (TIME-01; exit 1 while a table could not be
    called: LOG-05) and ``round show`` naming what each table needs."""
    db = str(tmp_path / "s.sqlite")
    runner = CliRunner()
    pairings = tmp_path / "r.csv"
    pairings.write_text("1,Yugi,Kaiba\n2,Joey,Mai\n")
    made = runner.invoke(main, ["round", "create", str(pairings), "--event", "Regional", "--round", "5",
                                "--json", "--store", db])
    assert made.exit_code == 0, made.output
    round_id = json.loads(made.output)["id"]
    called = runner.invoke(main, ["round", "time", round_id, "--clock", "2026-12-07T10:40:00Z", "--json", "--store", db])
    assert called.exit_code == 0, called.output
    answer = json.loads(called.output)
    assert [t["outcome"] for t in answer["tables"]] == ["called", "called"]
    again = runner.invoke(main, ["round", "time", round_id, "--store", db])
    assert again.exit_code == 0 and "table 1: time was called already" in again.output
    assert runner.invoke(main, ["round", "time", round_id, "--clock", "ten past", "--store", db]).exit_code == 2
    shown = runner.invoke(main, ["round", "show", round_id, "--store", db])
    assert shown.exit_code == 0, shown.output
    assert "2 tables · 2 not started · 2 need attention" in shown.output
    assert "NEEDS: result to record · time called" in shown.output
    as_csv = runner.invoke(main, ["round", "show", round_id, "--csv", "--store", db])
    assert as_csv.exit_code == 0 and as_csv.output.splitlines()[0].startswith("table,player_1,player_2,won_1")
    assert "result_due time_called" in as_csv.output


@pytest.mark.parametrize("language", [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT])
def test_every_word_the_round_says_of_a_table_is_translated(language):
    from ygoreplay.round_time import OUTCOMES
    from ygoreplay.rounds import ATTENTION, RECORDERS
    catalogue = i18n.catalogue(language)
    pages = i18n.catalogue(language, "pages")
    for words in (*ATTENTION.values(), *RECORDERS.values(), *OUTCOMES.values()):
        assert catalogue.get(words), words
    for words in (*ATTENTION.values(), *RECORDERS.values()):
        assert pages.get(words), words


def test_the_qr_sheet_and_the_round_pages_heading_are_punctuated_in_the_readers_language(tmp_path):
    """A zh_Hans organiser's printed sheet says 甲 对 乙 under each code, and the round's heading
    joins its format with the language's own comma, no English "vs" or ", " left in them."""
    from ygoreplay.round_pages import qr_page
    from ygoreplay.store import Store
    with Store(str(tmp_path / "s.sqlite")) as opened:
        made = create_round(opened, read_pairings("1,甲,乙\n"), RoundSettings("地区赛", 1, "高级"))
        now = status(opened, made.id)
    with i18n.using("zh-Hans"):
        sheet, page = qr_page(made), round_page(now)
    assert "<br>甲 对 乙</figcaption>" in sheet and " vs " not in sheet
    assert "<h1>地区赛，第 1 轮，高级</h1>" in page


def test_a_tables_call_a_reader_does_not_see_yet_is_not_flagged_to_it(client, store):  # noqa: F811
    """A reader held back (a spectator's delay: the round reads a duel's events through the
    reader's cut, ``seen``) is not told of a call its cut leaves out: a call the judge answered,
    then a new one past the cut. The duel's anchor counts the whole record's open calls: the
    table was flagged to that reader before its delay let it see why."""
    made, one, duel = _called(client)
    writer = auth(duel["tokens"]["recorder"])
    note = client.post(f"/duels/{duel['id']}/notes", json={"judge": "Floor", "text": "resolved", "category": "ruling"},
                       headers=auth(one["tokens"]["judge"]))
    assert note.status_code in (200, 201), note.text
    seen_then = len(store.records_after(duel["id"], 0))
    assert client.post(f"/duels/{duel['id']}/events", json=CALL, headers=writer).status_code == 200
    records = store.records_after(duel["id"], 0)
    whole = status(store, made["id"], seen=lambda d: records if d == duel["id"] else [])
    assert whole["tables"][0]["attention"] == ["judge_called"]
    held = status(store, made["id"], seen=lambda d: records[:seen_then] if d == duel["id"] else [])
    assert held["tables"][0]["attention"] == []
