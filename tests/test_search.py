"""Issue 26, the library's search: public duels found by player, title, result, source and by what
happened to a card, on both stores, over HTTP and on the command line; only what a spectator may
know (public duels, cut at their delay, a spectator's card events, rollbacks undone); an existing
store gets its index; and the redaction test: no hidden passcode of any sample duel is found."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from duel import CARDS
from test_store import store_url  # noqa: F401  (fixture: a fresh SQLite file or PostgreSQL schema)
from test_views import CASES, events_of, never_public
from ygoreplay.access import Access, digest
from ygoreplay.application import Records
from ygoreplay.cli import main
from ygoreplay.library_search import card_stats, parse, search
from ygoreplay.match import stream as _match_stream  # noqa: F401  (the store's matches: registers their kind)
from ygoreplay.service import create_app
from ygoreplay.store import Store
from ygoreplay.views import redact

ADMIN = "search-organiser-token-0123456789abcdef01234567"
DAMAGE, COUNTERS = "won-by-damage", "chain-counter-traps"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def store(store_url):
    opened = Store(store_url, CARDS)
    yield opened
    opened.close()


@pytest.fixture
def client(store):
    with TestClient(create_app(store, digest(ADMIN))) as test_client:
        yield test_client


def recorded(store: Store, case: str, visibility: str = "public", title: str | None = None,
             upto: int | None = None, **access: object) -> str:
    """A sample duel recorded through the application, under these access settings."""
    events = list(events_of(case))[:upto]
    done = Records(store).record(events, title or case,
                                 attachments={"access": Access(visibility, **access).to_dict()})
    assert done.id is not None
    return done.id


def found(store: Store, **params: str) -> list[str]:
    return [row["id"] for row in search(store, parse(params, CARDS))["results"]]


def first(case: str, kind: str) -> tuple[int, object]:
    """The position of the first event of ``kind`` in a sample, and the event."""
    return next((i, e) for i, e in enumerate(events_of(case)) if e.kind == kind)


# -- what a search finds ----------------------------------------------------------------------------

def test_a_public_duel_is_found_by_player_title_result_and_card_events(store, client):
    damage, counters = recorded(store, DAMAGE, title="Regional top 8"), recorded(store, COUNTERS)
    answer = client.get("/search").json()
    assert [row["id"] for row in answer["results"]] == [counters, damage] and answer["next"] is None
    row = answer["results"][1]
    assert row == {"kind": "duel", "id": damage, "title": "Regional top 8", "players": ["Yugi", "Kaiba"],
                   "event": None, "round": None, "format": None, "banlist": None, "created": row["created"],
                   "result": {"winner": 0, "reason": "lp"}, "events": len(events_of(DAMAGE)),
                   "turns": row["turns"], "badges": ["signed"], "url": f"/view/{damage}"}
    assert row["turns"] > 1
    assert found(store, player="yugi") == [counters, damage]
    assert found(store, player="Nobody") == []
    assert found(store, title="top 8") == [damage] == found(store, q="regional")
    assert found(store, result="p0") == [counters, damage] and found(store, result="draw") == []
    assert found(store, result="Yugi") == [counters, damage] and found(store, result="Kaiba") == []
    assert found(store, source="api") == [counters, damage] and found(store, source="imported") == []
    assert found(store, kind="match") == []
    # a card by passcode, by name in any case and without its accents, by what happened to it
    _, activation = first(COUNTERS, "activated")
    code = _code_of(COUNTERS, activation.card)
    name = CARDS[code].name
    assert counters in found(store, card=str(code), action="activated")
    assert counters in found(store, card=name.upper(), action="activated")
    assert found(store, card=name, action="activated", turn_max="0") == []
    turn = _turn_of(COUNTERS, activation)
    assert counters in found(store, card=name, action="activated", turn_max=str(turn))
    page = client.get("/search", params={"limit": 1}).json()
    assert [r["id"] for r in page["results"]] == [counters] and page["next"]
    rest = client.get("/search", params={"limit": 1, "cursor": page["next"]}).json()
    assert [r["id"] for r in rest["results"]] == [damage] and rest["next"] is None


def _code_of(case: str, card_id: str) -> int:
    from ygoreplay.rules import History
    history = History(CARDS, audit=True)
    for event in events_of(case):
        history.append(event)
        if card_id in history.state.cards and history.state.cards[card_id].code:
            return history.state.cards[card_id].code
    raise AssertionError(card_id)


def _turn_of(case: str, wanted: object) -> int:
    from ygoreplay.rules import History
    history = History(CARDS, audit=True)
    for event in events_of(case):
        history.append(event)
        if event is wanted:
            return history.state.turn
    raise AssertionError(wanted)


@pytest.mark.parametrize("params, where", [
    ({"turn_max": "x"}, "turn_max"), ({"limit": "0"}, "limit"), ({"limit": "101"}, "limit"),
    ({"action": "drawn", "card": "Pot of Greed"}, "action"), ({"card": "no such card at all"}, "card"),
    ({"kind": "game"}, "kind"), ({"since": "yesterday"}, "since"), ({"cursor": "!!"}, "cursor"),
    ({"result": "x" * 201}, "result"), ({"colour": "red"}, "colour"), ({"action": "activated"}, "action")])
def test_a_bad_parameter_is_400_saying_which(client, params, where):
    r = client.get("/search", params=params)
    assert r.status_code == 400 and r.json()["where"] == where, r.text


def test_private_and_unlisted_duels_are_never_found_and_a_change_of_visibility_shows(store, client):
    hidden = [recorded(store, DAMAGE, "private"), recorded(store, DAMAGE, "unlisted")]
    shown = recorded(store, DAMAGE)
    assert found(store) == [shown]
    code = _code_of(DAMAGE, first(DAMAGE, "activated")[1].card)
    assert found(store, player="Yugi", card=str(code)) == [shown]
    assert card_stats(store, code)["duels"] == 1
    assert [d["id"] for d in client.get("/players/Yugi").json()["duels"]] == [shown]
    store.attach(hidden[1], "access", Access("public").to_dict())          # its link made public
    store.attach(shown, "access", Access("private").to_dict())
    assert found(store) == [hidden[1]]


def test_a_delayed_duel_is_found_only_up_to_what_its_delay_releases(store):
    events = events_of(DAMAGE)
    position, activation = first(DAMAGE, "activated")
    code = _code_of(DAMAGE, activation.card)
    delay = len(events) - position                          # the activation is the first event held back
    duel = recorded(store, DAMAGE, upto=len(events) - 1, delay_events=delay)
    row = search(store, parse({}, CARDS))["results"][0]
    assert row["events"] == position - 1 and row["result"] is None
    assert found(store, card=str(code), action="activated") == []
    assert card_stats(store, code)["activated"] == 0
    # by seconds: nothing recorded in the last hour shows
    late = recorded(store, COUNTERS, upto=10, delay_seconds=3600.0)
    assert late not in found(store)
    import time
    assert late in [r["id"] for r in search(store, parse({}, CARDS), now=time.time() + 3601)["results"]]
    # once it ends, all of it: its length, result and card events
    store.append(duel, events[-1:])
    row = next(r for r in search(store, parse({}, CARDS))["results"] if r["id"] == duel)
    assert row["events"] == len(events) and row["result"] == {"winner": 0, "reason": "lp"}
    assert found(store, card=str(code), action="activated") == [duel]


def test_a_rolled_back_activation_is_not_a_hit(store):
    position, activation = first(DAMAGE, "activated")
    code = _code_of(DAMAGE, activation.card)
    duel = recorded(store, DAMAGE, upto=position + 1)
    assert found(store, card=str(code), action="activated") == [duel]
    Records(store).rollback(duel, position, "Head Judge", "misplay", "judge")
    assert found(store, card=str(code), action="activated") == []
    assert "rollback" in search(store, parse({}, CARDS))["results"][0]["badges"]
    assert card_stats(store, code)["activations"] == 0


def test_card_stats_and_a_players_duels(store, client):
    damage, counters = recorded(store, DAMAGE), recorded(store, COUNTERS)
    recorded(store, COUNTERS, "private")
    code = _code_of(COUNTERS, first(COUNTERS, "activated")[1].card)
    stats = client.get(f"/cards/{code}/stats").json()
    assert {k: stats[k] for k in ("code", "name")} == {"code": code, "name": CARDS[code].name}
    assert stats["duels"] == stats["activated"] == 1 and stats["won_by_user"] + stats["lost_by_user"] == 1
    kaiba = client.get("/players/kaiba").json()
    assert [d["id"] for d in kaiba["duels"]] == [counters, damage]
    assert (kaiba["won"], kaiba["lost"], kaiba["drawn"]) == (0, 2, 0)


def test_a_cards_numbers_read_its_duels_a_bounded_number_at_a_time(store, monkeypatch):
    """A popular card's numbers read every public duel of it: named all in one statement, past
    32,766 duels SQLite refused it (65,535 on PostgreSQL). They are read a bounded number at a
    time, every duel still counted."""
    import re

    import ygoreplay.library_search as library_search
    for _ in range(3):
        recorded(store, COUNTERS)
    code = _code_of(COUNTERS, first(COUNTERS, "activated")[1].card)
    whole = card_stats(store, code)
    named: list[int] = []                               # the streams each statement names
    sql = store.library.sql

    def noted(text: str) -> str:
        named.extend(len(m.group(1).split(",")) for m in re.finditer(r"stream IN \(([?, ]+)\)", text))
        return sql(text)
    monkeypatch.setattr(store.library, "sql", noted)
    monkeypatch.setattr(library_search, "_AMONG", 2)
    assert card_stats(store, code) == whole and whole["duels"] == 3
    assert named and max(named) == 2, named


def test_the_parents_of_branches_found_are_read_a_bounded_number_at_a_time(store, monkeypatch):
    """What holds a branch back is read of its parent (and theirs): every parent's access named
    in one statement, past 32,766 parents SQLite refused it, and the store asked again of
    parents its decision on the search's own streams had decided. They are read a bounded
    number at a time, decided once; each branch is still found (a delayed running parent's is
    not: ``test_attack_26b``, ``test_vouched_reads``)."""
    import re

    import ygoreplay.library_search as library_search
    records = Records(store)
    parents = [recorded(store, DAMAGE, upto=12) for _ in range(5)]             # running
    branches = [records.branch(parent, 10, f"branch {i}") for i, parent in enumerate(parents)]
    named: list[int] = []                               # the access rows each statement names
    sql = store.library.sql

    def noted(text: str) -> str:
        named.extend(len(m.group(1).split(",")) for m in re.finditer(r"originator_id IN \(([?, ]+)\)", text))
        return sql(text)
    asked: list[int] = []
    listed = store.listed

    def counted(*args, **kwargs):
        asked.append(1)
        return listed(*args, **kwargs)
    monkeypatch.setattr(store.library, "sql", noted)
    monkeypatch.setattr(store, "listed", counted)
    monkeypatch.setattr(library_search, "_AMONG", 2)
    found_ = found(store)
    assert set(branches) <= set(found_)
    assert sorted(named) == [1, 2, 2], named            # five running parents, two a statement
    assert len(asked) == 1, "the store decides the branches' parents with the search's own streams"


def test_more_parents_than_a_statement_takes_parameters_are_read(store_url, monkeypatch):
    """Past the parameters a statement takes (SQLite's 32,766 as it is built by default, this
    machine's Debian build 250,000; PostgreSQL's 65,535): the parents of the branches found, each
    running, are still read (their access: none, so none holds them back). Named all in one
    statement, it was refused."""
    import sqlite3
    from types import SimpleNamespace

    from ygoreplay.library_search import _held_back
    connect = sqlite3.connect

    def built_by_default(*args, **kwargs):
        connection = connect(*args, **kwargs)
        connection.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 32_766)
        return connection
    monkeypatch.setattr(sqlite3, "connect", built_by_default)
    with Store(store_url, CARDS) as store:
        recorded(store, DAMAGE)                         # an index to read
        parents = {f"{n:012x}" for n in range(65_536 + 500)}
        running = SimpleNamespace(header=SimpleNamespace(parent=None), status={})
        assert _held_back(store, parents, dict.fromkeys(parents, running)) == set()


def test_the_command_line_gives_the_same_answer_as_http(store_url, client, store):
    recorded(store, DAMAGE)
    recorded(store, COUNTERS)
    name = CARDS[_code_of(COUNTERS, first(COUNTERS, "activated")[1].card)].name
    params = {"player": "Yugi", "card": name, "action": "activated", "turn_max": "9"}
    over_http = client.get("/search", params=params).json()
    result = CliRunner().invoke(main, ["search", "--store", store_url, "--player", "Yugi", "--card", name,
                                       "--action", "activated", "--turn-max", "9", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == over_http and over_http["results"]
    bad = CliRunner().invoke(main, ["search", "--store", store_url, "--action", "summoned"])
    assert bad.exit_code == 2 and "--action" in bad.output


# -- an existing store ----------------------------------------------------------------------------

def test_a_store_made_before_the_index_gets_it_on_its_first_writable_open(store_url):
    code = _code_of(DAMAGE, first(DAMAGE, "activated")[1].card)
    with Store(store_url, CARDS) as store:
        duel = recorded(store, DAMAGE)
        _drop_index(store)
    with Store(store_url, CARDS, readonly=True) as old:
        with pytest.raises(Exception, match="search --reindex"):
            search(old, parse({}, CARDS))
    result = CliRunner().invoke(main, ["search", "--store", store_url, "--json"])
    assert result.exit_code != 0 and "--reindex" in result.output
    with Store(store_url, CARDS) as store:                    # any writable open builds it
        assert found(store, card=str(code)) == [duel]
    result = CliRunner().invoke(main, ["search", "--store", store_url, "--reindex", "--card", str(code),
                                       "--json"])
    assert result.exit_code == 0, result.output
    assert [r["id"] for r in json.loads(result.output.splitlines()[-1])["results"]] == [duel]
    with Store(store_url, CARDS) as store:                    # an index of another version is made anew
        with store.events.datastore.transaction(commit=True) as cursor:
            cursor.execute(store.library.sql("UPDATE {meta} SET version = 0"))
            cursor.execute(store.library.sql("DELETE FROM {cards}"))
    with Store(store_url, CARDS) as store:
        assert found(store, card=str(code)) == [duel]


def _drop_index(store: Store) -> None:
    index = store.library
    with store.events.datastore.transaction(commit=True) as cursor:
        for table in (index.streams, index.marks, index.cards, index.rollbacks, index.meta):
            cursor.execute(f"DROP TABLE {table}")
        if store.backend == "sqlite":
            cursor.execute("DROP TABLE library_text")


# -- the redaction test ---------------------------------------------------------------------------------

@pytest.mark.parametrize("case", CASES)
def test_no_hidden_passcode_of_a_sample_is_found_counted_or_shown(store, client, case):
    duel = recorded(store, case)
    hidden = never_public(case, "spectator")
    for code in hidden:
        assert found(store, card=str(code)) == [], code
        stats = client.get(f"/cards/{code}/stats").json()
        assert stats["duels"] == 0, (code, stats)
    answers = client.get("/search").content + client.get("/players/Yugi").content + client.get("/players/Kaiba").content
    assert not {code for code in hidden if str(code).encode() in answers}
    # every indexed card event is one the spectator's view has disclosed by then
    disclosed: dict[int, set[int]] = {}
    for index, _name, code in redact(list(events_of(case)), CARDS, "spectator", store.header(duel).secret).disclosures:
        disclosed.setdefault(index, set()).add(code)
    rows = _card_rows(store, duel)
    assert rows or case == "set-up position"
    for position, code in rows:
        seen = set().union(*(codes for at, codes in disclosed.items() if at <= position))
        assert code in seen and code not in hidden, (case, position, code)


def _card_rows(store: Store, duel: str) -> list[tuple[int, int]]:
    index = store.library
    with store.events.datastore.transaction(commit=False) as cursor:
        cursor.execute(index.sql("SELECT position, code FROM {cards} WHERE stream = ?"), (duel,))
        return [(row["position"], row["code"]) for row in cursor.fetchall()]



def test_a_public_match_is_found_with_its_event_round_format_and_banlist(client):
    sample = [json.loads(line) for line in (ROOT / "replays" / "matches" / "two-nil.jsonl").read_text().splitlines()
              if line.strip() and not line.startswith("#")]
    start = sample[0]
    body = {"title": "Feature match", "players": start["players"], "policy": start["policy"],
            "banlist": {"name": start["banlist"], "limits": start.get("limits", [])},
            "decklists": [{k: ev[k] for k in ("main", "extra", "side") if k in ev}
                          for ev in sample[1:3] if ev["kind"] == "decklist_registered"],
            "format": start["format"], "event_name": start["event_name"], "round": start["round"]}
    organiser = {"Authorization": f"Bearer {ADMIN}"}
    public = client.post("/matches", json={**body, "visibility": "public"}, headers=organiser)
    unlisted = client.post("/matches", json=body, headers=organiser)
    assert public.status_code == unlisted.status_code == 201, public.text
    rows = client.get("/search", params={"kind": "match", "event": "regional", "round": "1"}).json()["results"]
    assert [r["id"] for r in rows] == [public.json()["id"]]
    assert {k: rows[0][k] for k in ("kind", "event", "round", "format", "banlist", "players", "url")} == {
        "kind": "match", "event": start["event_name"], "round": "1", "format": start["format"],
        "banlist": start["banlist"], "players": start["players"], "url": f"/match/{public.json()['id']}"}
    assert client.get("/search", params={"kind": "duel", "event": "regional"}).json()["results"] == []
    assert client.get("/search", params={"banlist": start["banlist"][:10], "kind": "any"}).json()["results"] == rows


def test_a_witnessed_duel_with_flagged_plays_has_its_badges_and_is_a_tables(store):
    duel = recorded(store, "witnessed-illegal-play", mode="witnessed")
    other = recorded(store, DAMAGE)
    row = search(store, parse({"source": "table"}, CARDS))["results"]
    assert [r["id"] for r in row] == [duel]
    assert {"table", "witnessed", "flagged"} <= set(row[0]["badges"])
    assert found(store, source="api") == [other]


def test_a_common_card_is_searched_newest_first_with_the_same_answer(store, monkeypatch):
    """A card in many duels is looked up duel by duel, newest first (``library_search.RARE``):
    the same duels as reading the card's duels first, rollbacks and delays included."""
    import ygoreplay.library_search as library_search
    position, activation = first(COUNTERS, "activated")
    code = _code_of(COUNTERS, activation.card)
    whole = [recorded(store, COUNTERS), recorded(store, DAMAGE)]
    cut = recorded(store, COUNTERS, upto=position + 1)
    Records(store).rollback(cut, position, "Head Judge", "misplay", "judge")
    queries = [{"card": str(code)}, {"card": str(code), "action": "activated", "turn_max": "1"},
               {"card": str(code), "action": "activated"}, {"card": CARDS[code].name, "player": "Kaiba"}]
    rare = [found(store, **q) for q in queries]
    monkeypatch.setattr(library_search, "RARE", 0)
    assert [found(store, **q) for q in queries] == rare
    assert rare[2] == [whole[0]]
