"""The event around the table (issue 23): an organiser makes a round from a pairings file, one
match per table written with the round in one transaction; the tables' recorder links and a
printed sheet of their QR codes are given once, to the organiser only; the round page shows the
tables, scores and which are recording, and holds no token."""
from __future__ import annotations

import dataclasses
import json
import re
from typing import Iterator

import httpx

import pytest
from click.testing import CliRunner

from test_match_service import MATCHES, lines
from test_service import ADMIN as SERVICE_ADMIN, Server
from test_release import ADMIN, ORGANISER, auth, client, store  # noqa: F401  (fixtures: an in-process service)
from ygoreplay.cli import main
from ygoreplay.errors import StoreError
from ygoreplay.match import application as match_app
from ygoreplay.decks import Banlist
from ygoreplay.rounds import (
    MAX_TABLES, PairingsError, RoundSettings, create_round, load_round, pairings_of_json, read_pairings, status)
from ygoreplay.rules import RuleViolation
from ygoreplay.store import Store

DUEL = lines(MATCHES / "duels" / "g1-yugi-wins.jsonl")        # Yugi (player 0) wins on LP
TOKEN = re.compile(r"token=([A-Za-z0-9_-]{20,})")


def pairings(n: int) -> str:
    return "table,player,player\n" + "".join(f"{t},Player {2 * t - 1},Player {2 * t}\n" for t in range(1, n + 1))


# -- reading a pairings file ------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["1,Yugi,Kaiba\n2,Joey,Mai\n", "table,player1,player2\n1,Yugi,Kaiba\n2,Joey,Mai\n",
                                  "\ufeffTable, Player, Player\r\n1, Yugi ,Kaiba\r\n\r\n2,Joey,Mai",
                                  'table,player 1,player 2\n1,"Yugi",Kaiba\n2,Joey,"Mai"\n'])
def test_pairings_are_read_with_or_without_a_header(text):
    assert [(p.table, p.players) for p in read_pairings(text)] == [(1, ("Yugi", "Kaiba")), (2, ("Joey", "Mai"))]


@pytest.mark.parametrize("text, message", [
    ("1,Yugi\n", "line 1: 2 field(s); a line is table,player,player"),
    ("1,Yugi,Kaiba\nx,Joey,Mai\n", "line 2: the table is a number 1..100000, not 'x'"),
    ("1,Yugi,Kaiba\n\n1,Joey,Mai\n", "line 3: table 1 is paired already, on line 1"),
    ("1,Yugi,Kaiba\n2,Joey,yugi\n", "line 2: yugi is at table 1 already (line 1)"),
    ("1,Yugi,\n", "line 1: a player's name is missing"),
    ("1,Yugi,Yugi\n", "line 1: Yugi cannot play themselves"),
    ("table,player,player\n", "no tables"),
    ("1,Yugi,Ka\x1biba\n", "line 1: a player's name holds a control character"),
])
def test_a_malformed_pairings_file_is_refused_naming_the_line(text, message):
    with pytest.raises(PairingsError) as caught:
        read_pairings(text, "round3.csv")
    assert str(caught.value).startswith("round3.csv") and message in str(caught.value)


def test_a_pairings_file_is_bounded():
    assert len(read_pairings(pairings(MAX_TABLES))) == MAX_TABLES
    with pytest.raises(PairingsError, match=f"line {MAX_TABLES + 2}: a round has at most {MAX_TABLES} tables"):
        read_pairings(pairings(MAX_TABLES + 1))
    with pytest.raises(PairingsError, match="bytes; a pairings file is at most"):
        read_pairings(b"1,a,b\n" * 200_000)
    with pytest.raises(PairingsError, match="not UTF-8"):
        read_pairings(b"1,Yugi,\xff\n")
    assert pairings_of_json([{"table": 4, "players": ["A", "B"]}])[0].table == 4
    with pytest.raises(PairingsError, match=r"tables\[0\]"):
        pairings_of_json([{"table": "4", "players": ["A"]}])


# -- the round in the store ---------------------------------------------------------------------------

def test_a_round_of_500_tables_is_its_matches_written_at_once(tmp_path):
    with Store(str(tmp_path / "s.sqlite")) as store:
        made = create_round(store, read_pairings(pairings(500)), RoundSettings("Regional", 3, "Advanced"), "http://x")
        assert len(made.tables) == 500 == len(store.ids("match"))
        kept = load_round(store, made.id)
        assert kept["event"] == "Regional" and [t["match"] for t in kept["tables"]] == [t.match for t in made.tables]
        assert not any(t.tokens["recorder"] in json.dumps(kept) for t in made.tables)
        first = store.records_after(made.tables[0].match, 0)[0].event
        assert (first.kind, first.event_name, first.round, first.format, first.players) == (
            "match_started", "Regional", 3, "Advanced", ("Player 1", "Player 2"))
        assert store.attachment(made.tables[499].match, "round_table") == {"round": made.id, "table": 500}
        assert made.tables[0].recorder_link == (f"http://x/record/match/{made.tables[0].match}"
                                                f"?token={made.tables[0].tokens['recorder']}")
        assert [t["state"] for t in status(store, made.id)["tables"]] == ["not started"] * 500


def test_one_refused_match_writes_nothing_of_the_round(tmp_path):
    with Store(str(tmp_path / "s.sqlite")) as store:
        good, _ = match_app.match_stream(match_app.started(["A", "B"], "tcg-2024", Banlist("x")), "t", "unlisted")
        bad_events = match_app.started(["C", "D"], "tcg-2024", Banlist("x"))
        bad_events[0] = dataclasses.replace(bad_events[0], banlist_hash="sha256:00")
        bad, _ = match_app.match_stream(bad_events, "t", "unlisted")
        with pytest.raises(RuleViolation, match="DECK-09"):
            store.record_together([good, bad], {"0123456789ab": {"round": {"tables": []}}})
        assert store.ids("match") == [] and store.attachment("0123456789ab", "round") is None
        with pytest.raises(StoreError, match="no round"):
            load_round(store, "0123456789ab")


# -- the command line -------------------------------------------------------------------------------

def test_the_command_creates_a_round_writes_its_qr_codes_and_shows_it(tmp_path):
    runner = CliRunner()
    source = tmp_path / "round3.csv"
    source.write_text("table,player1,player2\n1,Yugi,Kaiba\n2,Joey,Mai\n")
    qr = tmp_path / "qr.html"
    db = str(tmp_path / "s.sqlite")
    result = runner.invoke(main, ["round", "create", str(source), "--event", "Regional", "--round", "3",
                                  "--format", "Advanced", "--qr", str(qr), "--store", db, "--url", "https://ev.example"])
    assert result.exit_code == 0, result.output
    round_id = re.search(r"round ([0-9a-f]{12}):", result.output).group(1)
    links = re.findall(r"recorder (https://ev\.example/record/match/[0-9a-f]{12}\?token=\S+)", result.output)
    assert len(links) == 2
    seats = re.findall(r"(p[01]): (\w+)'s own phone, hand to this player only: "
                       r"(https://ev\.example/record/match/[0-9a-f]{12}\?token=\S+)", result.output)
    assert [(seat, player) for seat, player, _ in seats] == [("p0", "Yugi"), ("p1", "Kaiba"), ("p0", "Joey"),
                                                             ("p1", "Mai")], result.output   # baseline: none
    assert len({link for *_, link in seats} | set(links)) == 6      # each seat its own link, none the table's
    page = qr.read_text()
    assert page.count("<svg") == 6 and "Organiser only" in page and "Table 2" in page and "Joey vs Mai" in page
    assert qr.stat().st_mode & 0o077 == 0                    # it holds tokens: the owner's only
    shown = runner.invoke(main, ["round", "show", round_id, "--store", db])
    assert shown.exit_code == 0, shown.output
    assert "table 1: Yugi 0 – 0 Kaiba  not started" in shown.output
    assert not TOKEN.search(shown.output)
    bad = tmp_path / "bad.csv"
    bad.write_text("1,Yugi,Kaiba\n2,Joey\n")
    refused = runner.invoke(main, ["round", "create", str(bad), "--event", "R", "--round", "1", "--store", db])
    assert refused.exit_code == 2 and "bad.csv, line 2: 2 field(s)" in refused.output
    assert runner.invoke(main, ["round", "show", "ffffffffffff", "--store", db]).exit_code == 2


# -- the service --------------------------------------------------------------------------------------

def test_only_the_organiser_creates_a_round(client):
    body = "1,Yugi,Kaiba\n"
    query = "/rounds?event=Regional&round=1"
    assert client.post(query, content=body, headers={"Content-Type": "text/csv"}).status_code == 401
    duel = client.post("/duels", json={}, headers=ORGANISER).json()
    other = {"Content-Type": "text/csv", **auth(duel["tokens"]["judge"])}
    assert client.post(query, content=body, headers=other).status_code == 403
    assert client.post(query + "&page=qr", content=body, headers=other).status_code == 403


def test_a_round_from_csv_its_qr_page_and_its_page_that_holds_no_token(client):
    csv_body = "table,player,player\n1,Yugi,Kaiba\n2,Joey,Mai\n"
    r = client.post("/rounds?event=Regional&round=3&format=Advanced", content=csv_body,
                    headers={"Content-Type": "text/csv", **ORGANISER})
    assert r.status_code == 201, r.text
    made = r.json()
    assert [(t["table"], t["players"]) for t in made["tables"]] == [(1, ["Yugi", "Kaiba"]), (2, ["Joey", "Mai"])]
    one = made["tables"][0]
    assert one["links"]["recorder"].endswith(f"/match/{one['match']}?token={one['tokens']['recorder']}")
    # the table's link, and at a paper table each seat's (tableprobe19)
    assert one["record"] == {role: f"http://testserver/record/match/{one['match']}?token={one['tokens'][role]}"
                             for role in ("recorder", "p0", "p1")}
    # the table's link (its QR code) opens the recorder's page, which starts the next duel; a
    # spectator's token is not the table's
    table_link = one["record"]["recorder"].removeprefix("http://testserver")
    opened = client.get(table_link, follow_redirects=False)
    assert opened.status_code == 200 and "record.js" in opened.text
    assert client.get(f"/record/match/{one['match']}?token={one['tokens']['spectator']}").status_code == 403
    assert client.get(f"/record/match/{one['match']}").status_code in (401, 404)
    match = client.get(f"/matches/{one['match']}/state", headers=auth(one["tokens"]["recorder"]))
    assert match.status_code == 200 and match.json()["players"] == ["Yugi", "Kaiba"]
    # table 1 registers its decklists and plays its first duel: the round page shows it recording, then the score
    decks = [e for e in lines(MATCHES / "two-nil.jsonl") if e["kind"] == "decklist_registered"]
    assert client.post(f"/matches/{one['match']}/events", json=decks,
                       headers=auth(one["tokens"]["recorder"])).status_code == 200
    game = client.post(f"/matches/{one['match']}/games", json={"first_player": 0, "chosen_by": 0}, headers=auth(one["tokens"]["recorder"])).json()
    duel = game["duel"]
    # while a duel is being played, the table's link goes to its recorder's page, the same token
    gone = client.get(table_link, follow_redirects=False)
    assert gone.status_code == 303
    assert gone.headers["location"] == f"/record/{duel['id']}?token={one['tokens']['recorder']}&match={one['match']}"
    assert client.get(f"/duels/{duel['id']}/frames", headers=auth(one["tokens"]["recorder"])).json()["role"] == "recorder"
    # a round is played on paper: its duels are witnessed (a machine's record would be refused here)
    assert client.post(f"/duels/{duel['id']}/events", json=DUEL, headers=auth(duel["tokens"]["recorder"])).status_code == 400
    paper = [{**DUEL[0], "witnessed": True}, *DUEL[1:]]
    assert client.post(f"/duels/{duel['id']}/events", json=paper, headers=auth(duel["tokens"]["recorder"])).status_code == 200
    page = client.get(f"/rounds/{made['id']}.json").json()
    assert page["tables"][0]["state"] == "playing duel 1" and page["tables"][0]["last_event"]
    assert page["tables"][1]["last_event"] is None and page["tables"][1]["state"] == "not started"
    assert client.post(f"/matches/{one['match']}/games/1/end", json={},
                       headers=auth(one["tokens"]["recorder"])).status_code == 200
    page = client.get(f"/rounds/{made['id']}.json").json()
    assert page["tables"][0]["score"][:2] == [1, 0]
    html = client.get(f"/rounds/{made['id']}")
    assert html.status_code == 200 and "Regional, round 3" in html.text
    # live by its own script (scripts from the service only), reloading itself with scripts off
    assert "script-src 'self'" in html.headers["content-security-policy"] and "unsafe-inline" not in \
        html.headers["content-security-policy"].split("script-src")[1].split(";")[0]
    assert '<script type="module" src="/viewer/round.js">' in html.text
    assert '<noscript><meta http-equiv="refresh"' in html.text
    assert client.get("/viewer/round.js").status_code == 200
    tokens = {tok for t in made["tables"] for tok in t["tokens"].values()} | set(duel["tokens"].values())
    for text in (html.text, json.dumps(page)):
        assert not any(tok in text for tok in tokens) and not TOKEN.search(text)
    # the duel's LP sheet says where it was played
    sheet = client.get(f"/duels/{duel['id']}/lp-sheet", headers=auth(one["tokens"]["judge"])).text
    assert "Event: Regional" in sheet and "Round: 3" in sheet and "Table: 1" in sheet and "Format: Advanced" in sheet
    assert client.get("/rounds/ffffffffffff.json").status_code == 404
    assert client.get("/rounds/nope").status_code == 404


def test_the_qr_page_is_given_to_the_organiser_as_the_round_is_made(client):
    r = client.post("/rounds?page=qr", json={"event": "Locals", "round": 1, "tables": [
        {"table": 7, "players": ["Yugi", "Kaiba"]}, {"table": 9, "players": ["Joey", "Mai"]}]}, headers=ORGANISER)
    assert r.status_code == 201 and r.headers["content-type"].startswith("text/html")
    assert r.text.count("<svg") == 6 and 'id="table-7"' in r.text and "Organiser only" in r.text
    assert r.headers["cache-control"] == "no-store" and r.headers["referrer-policy"] == "no-referrer"


@pytest.mark.parametrize("body, where", [
    ({"event": "Locals", "round": 1, "pairings": "1,Yugi\n"}, "pairings, line 1"),
    ({"event": "Locals", "round": 1, "tables": [{"table": 1, "players": ["A", "A"]}]}, "cannot play themselves"),
    ({"event": "Locals", "round": "one", "pairings": "1,A,B\n"}, "round"),
    ({"event": "", "round": 1, "pairings": "1,A,B\n"}, "event"),
    ({"event": "Locals", "round": 1}, "one of them"),
    ({"event": "Locals", "round": 1, "pairings": "1,A,B\n", "policy": "nope"}, "policy"),
])
def test_a_bad_round_request_is_400_saying_what(client, body, where):
    r = client.post("/rounds", json=body, headers=ORGANISER)
    assert r.status_code == 400 and where in json.dumps(r.json())


# -- who is recording each table, live ------------------------------------------------------------------

@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = Server(str(tmp_path_factory.mktemp("rounds") / "service.sqlite"))
    yield srv
    srv.stop()


def _rounds(stream) -> Iterator[dict]:
    """The round after each event of its Server-Sent Events, as they come: a ``round`` is the
    whole round, a ``tables`` the rows that changed and the counts, put in the round as the
    page's script puts them."""
    kind, now = None, None
    for line in stream.iter_lines():
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: ") and kind == "round":
            now = json.loads(line[6:])
            yield now
        elif line.startswith("data: ") and kind == "tables" and now is not None:
            moved = json.loads(line[6:])
            rows = {table["table"]: table for table in moved["tables"]}
            now = {**now, "counts": moved["counts"], "tables": [rows.get(t["table"], t) for t in now["tables"]]}
            yield now


def test_the_round_streams_who_records_each_table_and_its_score_as_it_moves(server):
    base = server.url
    made = httpx.post(f"{base}/rounds?event=Regional&round=4", content="1,Yugi,Kaiba\n2,Joey,Mai\n",
                      headers={"Content-Type": "text/csv", **auth(SERVICE_ADMIN)}).json()
    decks = [e for e in lines(MATCHES / "two-nil.jsonl") if e["kind"] == "decklist_registered"]
    duels = []
    for table in made["tables"]:
        writer = auth(table["tokens"]["recorder"])
        assert httpx.post(f"{base}/matches/{table['match']}/events", json=decks, headers=writer).status_code == 200
        game = httpx.post(f"{base}/matches/{table['match']}/games", json={"first_player": 0, "chosen_by": 0},
                          headers=writer).json()
        duels.append(game["duel"])
    paper = [{**DUEL[0], "witnessed": True}, *DUEL[1:]]

    def post(table: int, role: str, events: list, at: int) -> None:
        """As the table's ``role`` enters it, with the match's token it was handed (a player's phone
        is seated in the duel by it: the duel's own player tokens are the organiser's to hand out)."""
        r = httpx.post(f"{base}/duels/{duels[table]['id']}/events?expected={at}", json=events,
                       headers=auth(made["tables"][table]["tokens"][role]))
        assert r.status_code == 200, r.text

    with httpx.stream("GET", f"{base}/rounds/{made['id']}/follow", timeout=30) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        rounds = _rounds(stream)
        first = next(rounds)
        assert [t["recording"] for t in first["tables"]] == [None, None]
        assert [t["state"] for t in first["tables"]] == ["playing duel 1"] * 2
        post(0, "p1", paper[:5], 0)                  # the setup from player 1's phone ...
        now = next(rounds)
        assert now["tables"][0]["recording"]["who"] == "player 1" and now["tables"][1]["recording"] is None
        post(0, "p0", paper[5:8], 5)                 # ... player 0's turn from theirs
        while now["tables"][0]["recording"]["by"] != ["p0", "p1"]:
            now = next(rounds)
        assert now["tables"][0]["recording"]["who"] == "player 0 + player 1"
        assert now["tables"][0]["recording"]["last_entry"] == now["tables"][0]["last_event"]
        post(1, "recorder", paper, 0)                # table 2: a scorekeeper, to the end
        while not now["tables"][1]["recording"]:
            now = next(rounds)
        assert now["tables"][1]["recording"]["who"] == "scorekeeper"
        ended = httpx.post(f"{base}/matches/{made['tables'][1]['match']}/games/1/end", json={},
                           headers=auth(made["tables"][1]["tokens"]["recorder"]))
        assert ended.status_code == 200, ended.text
        while now["tables"][1]["score"][:2] != [1, 0]:
            now = next(rounds)
        text = json.dumps(now)
    tokens = {tok for t in made["tables"] for tok in t["tokens"].values()} | {
        tok for d in duels for tok in d["tokens"].values()}
    assert not any(tok in text for tok in tokens) and not TOKEN.search(text)
    assert "cards" not in text and "hand" not in text, "the round says who and when, never what"
    page = httpx.get(f"{base}/rounds/{made['id']}").text
    assert "player 0 + player 1" in page and "scorekeeper" in page
    assert httpx.get(f"{base}/rounds/ffffffffffff/follow").status_code == 404
