"""Every match write through one door (issue 21): the typed endpoints, the raw
``/matches/{id}/events`` endpoint and the ``ygoreplay match`` commands hand each event to the
same checks, so the same refused input is refused the same way through each; and what a match
reads of a duel it names is only what its linking authorised.
"""
from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from test_match_service import MATCHES, create, lines, post
from test_service import ADMIN, Server, auth
from ygoreplay.cli import main
from ygoreplay.match import events as _match_kinds  # noqa: F401  (loads reads match files: their kinds)
from ygoreplay.replay_file import loads

DUEL = lines(MATCHES / "duels" / "g1-yugi-wins.jsonl")      # player 0 wins, on LP


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    path = tmp_path_factory.mktemp("doors") / "service.sqlite"
    srv = Server(str(path))
    srv.path = path
    yield srv
    srv.stop()


def private_duel(base: str, visibility: str = "private") -> dict:
    """A private duel (or one of ``visibility``) recorded to its end, the match's recorder holding
    no token for it."""
    duel = httpx.post(f"{base}/duels", json={"title": "table 9", "visibility": visibility}, headers=auth(ADMIN)).json()
    post(base, f"/duels/{duel['id']}/events", duel["tokens"]["recorder"], DUEL)
    return duel


def started(duel: str, game: int = 1) -> dict:
    return {"kind": "game_started", "game": game, "duel": duel, "first_player": 0, "chosen_by": 0}


def events(base: str, match: dict) -> list[dict]:
    r = httpx.get(f"{base}/matches/{match['id']}", headers=auth(match["tokens"]["judge"]))
    return [item["event"] for item in r.json()["events"]]


# -- a match recorder reads no duel it may not (high) ----------------------------------------------------

@pytest.mark.parametrize("visibility", ["unlisted", "public"])
def test_a_raw_game_started_links_a_duel_only_as_the_games_endpoint_does(service, visibility):
    base = service.url
    match = create(base, lines(MATCHES / "two-nil.jsonl"), visibility=visibility)
    m, t = match["id"], match["tokens"]
    secret = private_duel(base)
    before = events(base, match)
    typed = post(base, f"/matches/{m}/games", t["recorder"], {"duel": secret["id"]}, 403)
    raw = post(base, f"/matches/{m}/events", t["recorder"], [started(secret["id"])], 403)
    assert typed["where"] == raw["where"] == "duel_token"
    wrong = post(base, f"/matches/{m}/events?duel_token={secret['tokens']['p0']}", t["recorder"],
                 [started(secret["id"])], 403)
    assert wrong["where"] == "duel_token"
    assert events(base, match) == before, "nothing written"
    for token in (t["judge"], t["spectator"], None):
        r = httpx.get(f"{base}/matches/{m}/replay.ygr", headers=auth(token) if token else {})
        if token is None and visibility != "public":
            assert r.status_code == 404
            continue
        assert r.status_code == 200 and loads(r.content).games == [], "no duel embedded"
    # given with its own token, a private duel is still no duel of a match its spectators watch
    rec = secret["tokens"]["recorder"]
    assert post(base, f"/matches/{m}/games", t["recorder"], {"duel": secret["id"], "duel_token": rec}, 409)["where"] \
        == post(base, f"/matches/{m}/events?duel_token={rec}", t["recorder"], [started(secret["id"])], 409)["where"] \
        == "duel"
    own = private_duel(base, visibility)                 # watched by whoever watches the match
    rec = own["tokens"]["recorder"]
    second = post(base, f"/matches/{m}/games", t["recorder"], {"duel": own["id"], "duel_token": rec, "first_player": 1},
                  422)
    raw_second = post(base, f"/matches/{m}/events?duel_token={rec}", t["recorder"],
                      [{**started(own["id"]), "first_player": 1}], 422)
    assert second["rule"] == raw_second["rule"] == "MATCH-07"
    # the duel's own recorder token links it through either door, and the link is written
    linked = post(base, f"/matches/{m}/events?duel_token={rec}", t["recorder"], [started(own["id"])])
    assert linked["position"] == len(before) + 1
    assert httpx.get(f"{base}/duels/{own['id']}/state", headers=auth(t["p1"])).json()["view"] == "p1"
    again = create(base, lines(MATCHES / "two-nil.jsonl"), visibility=visibility)
    assert post(base, f"/matches/{again['id']}/events", ADMIN, [started(own["id"])], 409)["where"] == "duel"
    assert post(base, f"/matches/{again['id']}/games", ADMIN, {"duel": own["id"]}, 409)["where"] == "duel"


def test_a_raw_game_started_naming_a_duel_not_stored_or_held_back_is_refused_as_by_games(service):
    base = service.url
    match = create(base, lines(MATCHES / "two-nil.jsonl"))
    m = match["id"]
    delayed = httpx.post(f"{base}/duels", json={"delay": {"events": 3}}, headers=auth(ADMIN)).json()
    for duel, status in (("ffffffffffff", 400), ("../../etc", 400), (delayed["id"], 409)):
        typed = post(base, f"/matches/{m}/games", ADMIN, {"duel": duel, "first_player": 0, "chosen_by": 0}, status)
        raw = post(base, f"/matches/{m}/events", ADMIN, [started(duel)], status)
        assert typed["where"] == raw["where"] == "duel"
    secret = private_duel(base)
    twice = [started(secret["id"]), {"kind": "game_ended", "game": 1, "winner": 0, "how": "lp"},
             {**started(secret["id"], 2), "chosen_by": 1}]
    assert post(base, f"/matches/{m}/events", ADMIN, twice, 409)["where"] == "duel"
    many = httpx.post(f"{base}/matches/{m}/events", params=[("duel_token", "x")] * 9, json=twice[:1],
                      headers=auth(match["tokens"]["recorder"]))
    assert many.status_code == 400 and many.json()["where"] == "duel_token"
    assert len(events(base, match)) == 3


def test_a_match_naming_a_duel_it_did_not_link_reads_nothing_of_it(service):
    """A match written before the door was shut (its game_started names a duel it never linked):
    its file embeds no such duel, and time, decisions and endings take nothing from its record."""
    from ygoreplay.access import Access
    from ygoreplay import from_dict          # the public name: it knows the match kinds
    from ygoreplay.store import Store
    base = service.url
    secret = private_duel(base)
    sample = [from_dict(e) for e in lines(MATCHES / "time-phase-end-ocg.jsonl")][:3]
    access, tokens = Access.issue("public", 0, 0.0)
    with Store(str(service.path)) as store:
        m, _count, _violation = store.record(sample + [from_dict(started(secret["id"]))], "old", kind="match",
                                             strict=True, attachments={"access": access.to_dict()})
    for token in (tokens["judge"], None):
        r = httpx.get(f"{base}/matches/{m}/replay.ygr", headers=auth(token) if token else {})
        assert r.status_code == 200 and loads(r.content).games == []
    state = httpx.get(f"{base}/matches/{m}/state", headers=auth(tokens["judge"])).json()
    assert [(p["rule"], "not a duel this match linked" in p["message"]) for p in state["problems"]] == [("LOG-09", True)]
    assert post(base, f"/matches/{m}/time", tokens["recorder"], {"clock": "2025-12-06T10:40:00Z"}, 422)["rule"] == "LOG-05"
    assert post(base, f"/matches/{m}/games/1/end", tokens["recorder"], None, 422)["rule"] == "LOG-09"
    post(base, f"/matches/{m}/time", tokens["recorder"], {"clock": "2025-12-06T10:40:00Z", "turn": 2, "phase": "main1"})
    assert post(base, f"/matches/{m}/decide", tokens["recorder"], None, 400)["where"] == "lp"


# -- results are not falsified through raw events (medium) -------------------------------------------------

def test_a_game_ended_against_its_duels_record_is_refused_through_every_door(service, tmp_path):
    base = service.url
    match = create(base, lines(MATCHES / "two-nil.jsonl"))
    m, t = match["id"], match["tokens"]
    game = post(base, f"/matches/{m}/games", t["recorder"], {"first_player": 0, "chosen_by": 0}, 201)
    post(base, f"/duels/{game['duel']['id']}/events", t["recorder"], DUEL)
    lie = {"kind": "game_ended", "game": 1, "winner": 1, "how": "lp"}
    typed = post(base, f"/matches/{m}/games/1/end", t["recorder"], {"winner": 1, "how": "lp"}, 422)
    raw = post(base, f"/matches/{m}/events", t["recorder"], [lie], 422)
    judged = post(base, f"/matches/{m}/events", t["judge"], [lie], 422)
    assert typed["rule"] == raw["rule"] == judged["rule"] == "LOG-09"
    assert typed["message"] == raw["message"]
    # the CLI: duel 1 is a file beside the match, recorded to its end after the duel started
    path = match_file(tmp_path)
    assert CliRunner().invoke(main, ["match", "duel", str(path), "g1.jsonl", "--first", "0", "--chosen-by", "0"]).exit_code == 0
    (tmp_path / "g1.jsonl").write_bytes((MATCHES / "duels" / "g1-yugi-wins.jsonl").read_bytes())
    text = path.read_text()
    done = CliRunner().invoke(main, ["match", "end-duel", str(path), "--winner", "1", "--how", "lp"])
    assert done.exit_code == 1 and raw["message"] in done.output and "LOG-09" in done.output, done.output
    assert path.read_text() == text
    assert CliRunner().invoke(main, ["match", "end-duel", str(path), "--winner", "0", "--how", "lp"]).exit_code == 0
    post(base, f"/matches/{m}/events", t["recorder"], [{**lie, "winner": 0}])
    state = httpx.get(f"{base}/matches/{m}/state", headers=auth(t["judge"])).json()
    assert state["games"][0]["winner"] == 0 and state["problems"] == []


# -- the clock is a time (low) --------------------------------------------------------------------------

@pytest.mark.parametrize("clock", ["banana", "", "10:40", "2025-13-06T10:40:00Z", "2025-12-06T10:40:00",
                                   "2025-12-06T10:40:00Z" + "0" * 40, "99999-12-06T10:40:00Z", "\u202e2025"])
def test_a_clock_that_is_not_a_time_is_refused_through_every_door(service, tmp_path, clock):
    base = service.url
    match = create(base, lines(MATCHES / "two-nil.jsonl"))
    m, t = match["id"], match["tokens"]
    typed = post(base, f"/matches/{m}/time", t["recorder"], {"clock": clock}, 422)
    raw = post(base, f"/matches/{m}/events", t["recorder"], [{"kind": "time_called", "clock": clock}], 422)
    assert typed["rule"] == raw["rule"] == "LOG-05" and "ISO 8601" in typed["message"] and "ISO 8601" in raw["message"]
    path = match_file(tmp_path)
    done = CliRunner().invoke(main, ["match", "time", str(path), "--clock", clock])
    assert done.exit_code == 1 and "LOG-05" in done.output and "ISO 8601" in done.output, done.output
    assert len(events(base, match)) == 3


@pytest.mark.parametrize("clock", ["2025-12-06T10:40:00Z", "2025-12-06T10:40:00.123+09:00", "2025-12-06T10:40Z"])
def test_a_clock_in_iso_8601_is_taken(service, tmp_path, clock):
    base = service.url
    match = create(base, lines(MATCHES / "two-nil.jsonl"))
    post(base, f"/matches/{match['id']}/time", match["tokens"]["recorder"], {"clock": clock})
    done = CliRunner().invoke(main, ["match", "time", str(match_file(tmp_path)), "--clock", clock])
    assert done.exit_code == 0, done.output


def test_a_match_recorded_before_the_clock_was_checked_still_loads_its_clock_flagged(tmp_path):
    """Nothing recorded is lost: a stored match whose clock was typed as text before the check
    decodes and folds as it stood; the audit flags the clock (LOG-05)."""
    from ygoreplay.cards import CardDB
    from ygoreplay.events import from_dict
    from ygoreplay.match.rules import fold
    opening = lines(MATCHES / "two-nil.jsonl")[:3]
    old = [from_dict(e) for e in opening] + [from_dict({"kind": "time_called", "clock": "10:40"})]
    state = fold(old, CardDB.classic(), audit=True)
    assert [(v.index, v.rule) for v in state.violations] == [(3, "LOG-05")]
    assert state.time is not None and state.time.clock == "10:40", "kept as it stood"


# -- one test per door ------------------------------------------------------------------------------------

def match_file(folder: Path) -> Path:
    """The 2-0 sample's opening (match_started and both decklists) as a match file."""
    path = folder / "match.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in lines(MATCHES / "two-nil.jsonl")[:3]))
    return path


OUT, IN = 91152256, 40640057
#: Each match write command with a refused input: (name, CLI arguments or None, typed path, token,
#: body, raw event, the raw endpoint's token, the refusal: a rule ID or an HTTP status).
COMMANDS = [
    ("decklists", ["deck", "--player", "0", "DECK"], "decklists", "recorder",
     {"player": 0, "main": [OUT] * 40}, {"kind": "decklist_registered", "player": 0, "main": [OUT] * 40},
     "recorder", "MATCH-04"),
    ("games", ["duel", "g1.jsonl", "--first", "0", "--chosen-by", "0", "--extra-duel"], "games", "recorder",
     {"first_player": 0, "chosen_by": 0, "extra_duel": True},
     {"kind": "game_started", "game": 1, "duel": "", "first_player": 0, "chosen_by": 0, "extra_duel": True},
     "recorder", "TIME-08"),
    ("games/end", ["end-duel", "--winner", "0", "--how", "lp"], "games/1/end", "recorder", {"winner": 0, "how": "lp"},
     {"kind": "game_ended", "game": 1, "winner": 0, "how": "lp"}, "recorder", "LOG-03"),
    ("swaps", ["side", "--player", "0", "--main-out", str(OUT), "--main-in", str(IN)], "swaps", "recorder",
     {"player": 0, "main_out": [OUT], "main_in": [IN]},
     {"kind": "side_deck_swapped", "player": 0, "main_out": [OUT], "main_in": [IN]}, "recorder", "MATCH-05"),
    ("extra-turns", ["extra-turn", "--turn", "4"], "extra-turns", "recorder", {"turn": 4},
     {"kind": "extra_turn_started", "game": 0, "n": 1, "turn": 4}, "recorder", "LOG-03"),
    ("decide", ["decide", "--lp", "100", "200", "--stage", "extra_turns"], "decide", "recorder",
     {"lp": [100, 200], "stage": "extra_turns"},
     {"kind": "game_decided", "game": 0, "lp": [100, 200], "winner": 1, "stage": "extra_turns"}, "recorder", "LOG-03"),
    ("rulings", ["judge", "--judge", "J", "--ruling", "no"], "rulings", "judge", {"judge": "J", "ruling": "no"},
     {"kind": "judge_ruled", "judge": "J", "ruling": "no"}, "judge", "MATCH-08"),
    ("appeals", ["judge", "--judge", "J", "--appeal", "0"], "appeals", "judge",
     {"player": 0, "judge": "J", "decision": "upheld"},
     {"kind": "ruling_appealed", "player": 0, "judge": "J", "decision": "upheld"}, "judge", "MATCH-08"),
    ("a nameless judge's penalty", ["penalty", "--player", "0", "--infraction", "slow_play", "--penalty", "caution",
                                    "--judge", " "], "penalties", "judge",
     {"player": 0, "infraction": "slow_play", "penalty": "caution", "judge": " "},
     {"kind": "penalty_given", "player": 0, "infraction": "slow_play", "penalty": "caution", "judge": " "}, "judge",
     "MATCH-08"),
    ("penalties by a recorder", None, "penalties", "recorder",
     {"player": 0, "infraction": "slow_play", "penalty": "caution", "judge": "J"},
     {"kind": "penalty_given", "player": 0, "infraction": "slow_play", "penalty": "caution", "judge": "J"},
     "recorder", 403),
    ("judge-calls for the other player", None, "judge-calls", "p0", {"player": 1, "judge": "J"},
     {"kind": "judge_called", "player": 1, "judge": "J"}, "p0", 403),
    ("concede for the other player", None, "concede", "p0", {"player": 1},
     {"kind": "match_conceded", "player": 1}, "p0", 403),
    ("concede by a spectator", None, "concede", "spectator", {"player": 1},
     {"kind": "match_conceded", "player": 1}, "spectator", 403),
    ("result", ["result"], "result", "recorder", None,
     {"kind": "match_ended", "winner": 0, "how": "games", "games": [2, 0, 0], "points": [3, 0]}, "recorder",
     "MATCH-01"),
    ("time twice", ["time", "--clock", "2025-12-06T10:41:00Z"], "time", "recorder",
     {"clock": "2025-12-06T10:41:00Z"}, {"kind": "time_called", "clock": "2025-12-06T10:41:00Z"}, "recorder", "LOG-03"),
]


@pytest.mark.parametrize("name,cli,path,token,body,raw,raw_token,refusal", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_the_same_refused_input_is_refused_alike_through_every_door(service, tmp_path, name, cli, path, token, body,
                                                                    raw, raw_token, refusal):
    base = service.url
    match = create(base, lines(MATCHES / "two-nil.jsonl"))
    m, t = match["id"], match["tokens"]
    folder = match_file(tmp_path)
    if name == "time twice":                   # time is called once in a match
        post(base, f"/matches/{m}/time", t["recorder"], {"clock": "2025-12-06T10:40:00Z"})
        assert CliRunner().invoke(main, ["match", "time", str(folder), "--clock", "2025-12-06T10:40:00Z"]).exit_code == 0
    if name == "decklists":                    # the decklist again, as a deck file of the same cards
        deck = tmp_path / "deck.ydk"
        opening = lines(MATCHES / "two-nil.jsonl")[1]
        deck.write_text("#main\n" + "\n".join(map(str, opening["main"])) + "\n#extra\n!side\n")
        cli = [str(deck) if arg == "DECK" else arg for arg in cli]
    before = events(base, match)
    status = refusal if isinstance(refusal, int) else 422
    answers = [post(base, f"/matches/{m}/{path}", t[token], body, status),
               post(base, f"/matches/{m}/events", t[raw_token], [raw], status)]
    if isinstance(refusal, str):
        assert [a["rule"] for a in answers] == [refusal, refusal], answers
    if cli is not None:
        text = folder.read_text()
        done = CliRunner().invoke(main, ["match", cli[0], str(folder), *cli[1:]])
        assert done.exit_code == 1 and refusal in done.output, done.output
        assert folder.read_text() == text
    assert events(base, match) == before, "nothing written"
