"""Attacks on what the live path shows (``Store.opened``, ``Store.vouched_cards``, the pages that
read a stream through the hub), issue 25: someone who may write the database, not holding the
organiser's key, must get nothing altered shown, nothing vouched hidden, and no internal error."""
from __future__ import annotations

import msgpack
import pytest

from ygoreplay.live import LiveDuel
from ygoreplay.store import CARDS_TOPIC, Store

from test_live_vouched import EVENTS, FORGED, _recorded, _retitle
from test_store import _set_state, execute, fresh_url


def _insert(url: str, owner: str, version: int, topic: str, state: bytes) -> None:
    execute(url, "INSERT INTO {t} (originator_id, originator_version, topic, state) VALUES (?, ?, ?, ?)",
            (owner, version, topic, state))


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_card_facts_forged_before_the_first_anchor_are_not_shown(tmp_path, backend):
    """A table is created and followed before its first event (its live duel holds no event).
    A forger puts a card record at version 0, where no append writes one and no anchor vouches
    for it, holding every card the duel will name made stronger. The first load took it
    unchecked (there was no anchor past 0 to compare it with), and the appends that followed
    named only cards it held, so they were never read again: every follower saw the forger's
    card facts for the whole duel. A follower relied on the card text and stats being the
    organiser's: now nothing is shown from where it was put, as verify does not hold."""
    with fresh_url(backend, tmp_path / "x.sqlite", "att") as url, Store(url) as writer:
        model = writer.create_duel("model")                 # the facts the duel will name, to forge
        writer.append(model, EVENTS[:8])
        facts = [dict(card, name=FORGED, atk=9999) for card in writer.cards_of(model)[0].to_json_list()]
        duel = writer.create_duel("table")
        _insert(url, f"{duel}/cards", 0, CARDS_TOPIC, msgpack.packb({"cards": facts}))
        with Store(url) as reader:                          # the follower's process
            live = LiveDuel(reader, duel)
            assert live.count == 0
            for i, event in enumerate(EVENTS[:8]):
                writer.append(duel, event, expected_position=i)
            live.refresh()
            shown = live.cards.to_json_list()
            assert FORGED not in {card.get("name") for card in shown}
            assert all(card.get("atk") != 9999 for card in shown)
            # every anchor from 0 on signs other card facts than those stored: cut where it was put
            assert (live.count, live.broken) == (0, 0)
            assert not reader.verify(duel).ok


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_an_unreadable_card_record_cuts_what_is_shown_as_an_altered_one_does(tmp_path, backend):
    """A card record rewritten as bytes that do not decode: the first load refused the whole
    duel as "its card facts cannot be read", which the service answers as no duel at all (404),
    hiding the events the anchors before it vouch for, where a record altered to decode cuts
    the duel at that anchor; and a follower's read of it later raised instead of stopping there
    (read again on every wake-up). A follower relied on the vouched events being shown, and on
    being told the duel was altered, not that it was not there."""
    with fresh_url(backend, tmp_path / "x.sqlite", "att") as url, Store(url) as writer:
        duel = writer.create_duel("vouched")
        writer.append(duel, EVENTS[:2])
        with Store(url) as follower:
            held = LiveDuel(follower, duel)                    # followed at 2 events
            for i, event in enumerate(EVENTS[2:8], start=2):
                writer.append(duel, event, expected_position=i)
            _set_state(url, f"{duel}/cards", 3, b"\xc1")
            assert held.refresh() is False
            assert (held.count, held.broken) == (2, 2)
        with Store(url) as reader:
            live = LiveDuel(reader, duel)
            assert (live.count, live.broken) == (2, 2)
            assert [r.event for r in live.records] == list(EVENTS[:2])


def _client(url: str):
    from fastapi.testclient import TestClient
    from ygoreplay.access import digest
    from ygoreplay.service import create_app
    from test_release import ADMIN
    return TestClient(create_app(Store(url, concurrent=True), digest(ADMIN)))



def paper_round(client) -> dict:
    """A round of two tables (Yugi v Kaiba at table 1, on paper), table 1's decklists registered."""
    from test_match_service import MATCHES, lines
    from test_release import ORGANISER, auth
    made = client.post("/rounds?event=Regional&round=3", content="1,Yugi,Kaiba\n2,Joey,Mai\n",
                       headers={"Content-Type": "text/csv", **ORGANISER}).json()
    one = made["tables"][0]
    decks = [e for e in lines(MATCHES / "two-nil.jsonl") if e["kind"] == "decklist_registered"]
    assert client.post(f"/matches/{one['match']}/events", json=decks,
                       headers=auth(one["tokens"]["recorder"])).status_code == 200
    return made


def table_duel(client) -> tuple[dict, dict]:
    """A ``paper_round`` whose first duel table 1's match has just made, empty: (round, that duel
    as ``/games`` answers it)."""
    from test_release import auth
    made = paper_round(client)
    one = made["tables"][0]
    duel = client.post(f"/matches/{one['match']}/games", json={"first_player": 0, "chosen_by": 0},
                       headers=auth(one["tokens"]["recorder"])).json()["duel"]
    return made, duel


def _round_with_a_duel(client) -> tuple[dict, str]:
    """A round of two tables; table 1 plays its first duel on paper. (round, that duel's id)."""
    from test_match_service import MATCHES, lines
    from test_release import auth
    made, duel = table_duel(client)
    played = lines(MATCHES / "duels" / "g1-yugi-wins.jsonl")
    paper = [{**played[0], "witnessed": True}, *played[1:]]
    assert client.post(f"/duels/{duel['id']}/events", json=paper, headers=auth(duel["tokens"]["recorder"])).status_code == 200
    return made, duel["id"]



def test_a_public_list_does_not_show_an_altered_duel_under_its_forged_title(tmp_path):
    """A public duel whose header was altered (retitled) is refused on its own page (409), and
    its branch is hidden from spectators (its parent shows nothing), but the public list, read
    from the headers, still listed the altered duel to anyone under the forger's title (marked
    "unverified" only in a field of its JSON). A visitor relied on a
    public list naming what the organiser recorded; a duel whose header no anchor signs is
    none a spectator may know of. The organiser's own list still names it, unsigned."""
    url = str(tmp_path / "x.sqlite")
    with Store(url) as store:
        parent = _recorded(store, 6)
        branch = store.branch(parent, 4)
        for duel in (parent, branch):
            store.attach(duel, "access", {"visibility": "public"})
        assert LiveDuel(store, branch).count == 4
        _retitle(url, parent)
    with _client(url) as client:
        assert client.get(f"/duels/{branch}/state").status_code == 404
        assert client.get(f"/duels/{branch}/frames").status_code == 404
        listed = client.get("/duels")
        assert listed.status_code == 200 and listed.json() == []
        from test_release import ORGANISER
        assert client.get(f"/duels/{branch}/state", headers=ORGANISER).json()["events"] == 4
        mine = {d["id"]: d for d in client.get("/duels", headers=ORGANISER).json()}
        assert mine[parent]["signed"] is False and mine[branch]["signed"] is True


def test_one_altered_duel_of_a_match_is_a_problem_its_judge_is_shown_not_an_error(tmp_path):
    """The judge's match state checks each duel the match linked: one whose header was altered
    raised its VerificationError through the whole match state (409), where a duel it cannot
    read is a problem it lists (LOG-09); so did the pages' link previews (/view, /match) of
    the altered duel's page and of an altered match's. The judge relied on the match's score and
    problems; a viewer on the page loading (its API calls say 409 for the duel itself)."""
    from test_release import ORGANISER
    url = str(tmp_path / "x.sqlite")
    with _client(url) as client:
        made, duel = _round_with_a_duel(client)
    match = made["tables"][0]["match"]
    _retitle(url, duel)
    with _client(url) as client:
        state = client.get(f"/matches/{match}/state", headers=ORGANISER)
        assert state.status_code == 200, state.text
        assert [p["rule"] for p in state.json()["problems"]] == ["LOG-09"]
        assert client.get(f"/view/{duel}").status_code == 200
        assert client.get(f"/match/{match}").status_code == 200
        assert client.get(f"/duels/{duel}/state", headers=ORGANISER).status_code == 409
    _retitle(url, match)
    with _client(url) as client:
        assert client.get(f"/match/{match}").status_code == 200
        assert client.get(f"/matches/{match}/state", headers=ORGANISER).status_code == 409


@pytest.mark.parametrize("forged", [b"\xc1", msgpack.packb([1]), msgpack.packb({"visibility": "public", "delay": 5}),
                                    msgpack.packb({"visibility": "public", "tokens": 3}),
                                    msgpack.packb({"visibility": "public", "tokens": {"judge": 7}}),
                                    msgpack.packb({"visibility": "public", "release": {"policy": "event", "at": "soon"}})],
                         ids=["bytes", "list", "delay", "tokens", "token", "release-at"])
def test_an_access_record_rewritten_in_the_database_is_no_internal_error(tmp_path, forged):
    """A duel's access record (who may see it, behind what delay) is not signed: a forger may
    rewrite it, but what it rewrites it into was read unchecked, and bytes that do not decode,
    or a field of another type, were an internal error (500, a traceback) of every request of
    the duel, its first load among them. Its caller relied on an answer saying what is wrong:
    the access record is refused as the store's (StoreError), so the duel is none to show (404)."""
    from test_release import ORGANISER
    url = str(tmp_path / "x.sqlite")
    with Store(url) as store:
        duel = _recorded(store, 4)
        store.attach(duel, "access", {"visibility": "public", "release": {"policy": "end"}})
        _set_state(url, f"{duel}/access", 0, forged)
    with _client(url) as client:
        for headers in ({}, ORGANISER):
            for page in (f"/duels/{duel}/state", f"/duels/{duel}/frames", f"/view/{duel}"):
                answer = client.get(page, headers=headers)
                assert answer.status_code in (200, 404), (page, answer.status_code, answer.text)
        assert client.get(f"/duels/{duel}/state").status_code == 404
        listed = client.get("/duels")
        assert listed.status_code == 200 and listed.json() == []
        assert client.get("/duels", headers=ORGANISER).status_code == 200


def test_one_unreadable_match_header_does_not_take_its_round_page_down(tmp_path):
    """The round page reads each table's match from the store: a match whose header was
    rewritten as bytes that do not decode raised the store's error through the whole round,
    which was then "no round" (404) for everyone, where a duel of the round that cannot be read
    is left out. A player relied on the round page; that table shows no duel and no score."""
    url = str(tmp_path / "x.sqlite")
    with _client(url) as client:
        made, _duel = _round_with_a_duel(client)
        before = client.get(f"/rounds/{made['id']}.json").json()
    _set_state(url, made["tables"][1]["match"], 0, b"\xc1")
    with _client(url) as client:
        answer = client.get(f"/rounds/{made['id']}.json")
        assert answer.status_code == 200, answer.text
        tables = answer.json()["tables"]
        assert tables[0] == before["tables"][0]
        assert (tables[1]["duels"], tables[1]["score"], tables[1]["state"]) == ([], [0, 0, 0], "not started")


def _round_record(tables: object) -> dict:
    return {"event": "Regional", "round": 3, "format": "", "policy": "tcg-2024", "created": "2026-01-01", "tables": tables}


@pytest.mark.parametrize("kept", [
    {"event": "Regional", "round": 3}, _round_record(5), _round_record([7]),
    _round_record([{"table": '1"><a href="https://forged.example">pay here</a><tr id="x', "players": ["Yugi", "Kaiba"],
                    "match": "MATCH"}]),
    _round_record([{"table": 1, "players": [1, 2], "match": "MATCH"}])],
    ids=["no-tables", "tables", "table", "table-markup", "players"])
def test_a_round_record_rewritten_in_the_database_is_no_internal_error_nor_markup(tmp_path, kept):
    """A round's record (its tables, players, matches) is not signed: rewritten in the database
    into another shape it was an internal error (500) of the round's page, its JSON and its
    stream, and a table "number" of text was put into the page's markup unescaped (a link the
    forger chose, on the page every player of the event reads). Anyone with the round's address
    relied on its page; a record not in the form a round is written in is refused (no round)."""
    from ygoreplay.rounds import ATTACHMENT
    url = str(tmp_path / "x.sqlite")
    with _client(url) as client:
        made, _duel = _round_with_a_duel(client)
    match = made["tables"][0]["match"]
    for table in kept.get("tables") if isinstance(kept.get("tables"), list) else ():
        if isinstance(table, dict) and table.get("match") == "MATCH":
            table["match"] = match
    _set_state(url, f"{made['id']}/{ATTACHMENT}", 0, msgpack.packb(kept))
    with _client(url) as client:
        for page in (f"/rounds/{made['id']}.json", f"/rounds/{made['id']}", f"/rounds/{made['id']}/follow"):
            answer = client.get(page)
            assert answer.status_code == 404, (page, answer.status_code, answer.text)
            assert "forged.example" not in answer.text


def test_a_match_link_rewritten_in_the_database_is_no_internal_error(tmp_path):
    """A duel's link to its match (``match_game``) is not signed: rewritten into another shape,
    reading it (for a token that is none of the duel's own: whose match's is it?) was an
    internal error (500) of the duel's pages. The caller relied on an answer: a link not in the
    form one is written in links no match, as if the forger had deleted it."""
    from ygoreplay.access import Access
    url = str(tmp_path / "x.sqlite")
    with Store(url) as store:
        duel = _recorded(store, 4)
        store.attach(duel, "access", Access.issue("public", 0, 0)[0].to_dict())
        store.attach(duel, "match_game", {"game": 1})          # no match's id
    with _client(url) as client:
        stranger = {"Authorization": "Bearer " + "x" * 43}
        assert client.get(f"/duels/{duel}/state", headers=stranger).status_code == 401
        assert client.get(f"/duels/{duel}/state").status_code == 200


def test_a_match_whose_header_was_altered_shows_no_duel_on_its_round_page(tmp_path):
    """A table's match whose header was retitled in the database: its own page refuses it
    (its anchors sign another header), and the round page listed its duels all the same. The
    round page now shows it as the match page does: no duel, no score; the other tables as before."""
    url = str(tmp_path / "x.sqlite")
    with _client(url) as client:
        made, _duel = _round_with_a_duel(client)
        before = client.get(f"/rounds/{made['id']}.json").json()
    match = made["tables"][0]["match"]
    _retitle(url, match)
    with _client(url) as client:
        assert client.get(f"/matches/{match}/state").status_code in (404, 409)
        tables = client.get(f"/rounds/{made['id']}.json").json()["tables"]
        assert before["tables"][0]["duels"], "the duel was listed before"
        assert (tables[0]["duels"], tables[0]["score"], tables[0]["state"]) == ([], [0, 0, 0], "not started")
        assert tables[1] == before["tables"][1]
