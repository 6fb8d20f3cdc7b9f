"""What the fifteenth pass's closing note left (issue 25, sixteenth pass).

* A judge's what-if branch wrote its own rollbacks into the library index: a rollback in the
  what-if, past where the branch left, reverted the parent's card events the branch keeps, so a
  card search dropped the branch once its parent released it (index version 8: a what-if writes
  no rollback row, as it writes no card row; ``library.seen``).
* A search's page was the statement's ``limit + 1`` rows less those the checks after it left out
  (a branch whose cut shows no result, a row not vouched for): ``result=p0`` over duels with
  branches came back with fewer rows than asked while more existed. A page now reads on past
  them (``library_search._BATCHES``) and its ``next`` follows its last row.
* A judge call that said nothing was refused as "a judge's judge note needs a note: it is signed
  and explained": ``judges_word`` stood a "-" in for the judge's name a call has none of, and
  told the table a call is signed. It says what a call is (MATCH-08), in the reader's language.
* ``lp-sheet --view p0`` of a stored duel named only a public match, where the service's sheet
  of the player's own token names the private match the player signs it for: the command line
  (the store's owner) now decides as the service decides a reader in that role
  (``access.view_knows_match`` is ``knows_match`` of that role). And ``export --view p0`` (p1,
  spectator) of a judge's what-if branch held the what-if a player's token never reads while its
  parent hides what it played: ``Records.export`` cuts it with ``library_search.branch_cut``, the
  one rule the service's views and the search's rows use.
* ``play --plain`` (a terminal that is none, a judge's script) had no command for the next judge
  call, flagged or disputed entry, which the terminal viewer's ``c`` / ``C`` keys go to: ``c`` and
  ``C`` now do the same there; and ``check`` / ``audit`` (``calls``) say whether a judge ruled on
  each call (``ruled``, null while it is open), as they say of a disputed entry.
"""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from test_device_names import ADMIN, ORGANISER, WON, auth
from test_match_context_privacy import SECRET, _public_duel_of, _tells, served  # noqa: F401  (a fixture)
from test_store import fresh_url, store_url  # noqa: F401  (fixture: served's store)
from ygoreplay.access import digest
from ygoreplay.application import check
from ygoreplay.cards import CardDB
from ygoreplay.cli import main
from ygoreplay.events import from_dict
from ygoreplay.i18n import said, using
from ygoreplay.replay_file import read as read_replay
from ygoreplay.service import create_app
from ygoreplay.store import Store

SUMMONED = 14898066     # Kaiba's p1.m0, Normal Summoned at event #17 of ``WON``


@pytest.fixture
def url(tmp_path):
    with fresh_url("sqlite", tmp_path / "duels.sqlite") as found:
        yield found


def _rolled_back_what_if(client: TestClient) -> tuple[str, str]:
    """A public duel played to its end (released at its end) and a judge's branch after Kaiba's
    Normal Summon, in which the judge rolled the summon back: the duel's and the branch's ids."""
    duel = client.post("/duels", json={"title": "what if", "visibility": "public", "release": "end"},
                       headers=ORGANISER).json()
    recorder, judge = auth(duel["tokens"]["recorder"]), auth(duel["tokens"]["judge"])
    assert client.post(f"/duels/{duel['id']}/events", json=WON, headers=recorder).status_code == 200
    made = client.post(f"/duels/{duel['id']}/branch", json={"at": 18}, headers=judge)
    assert made.status_code == 201, made.text
    branch = made.json()["id"]
    back = client.post(f"/duels/{branch}/rollback", json={"to": 17, "judge": "Head judge", "reason": "what if"},
                       headers=judge)
    assert back.status_code == 200, back.text
    return duel["id"], branch


def _found(client: TestClient) -> list[str]:
    answer = client.get("/search", params={"card": str(SUMMONED), "action": "summoned"})
    assert answer.status_code == 200, answer.text
    return [hit["id"] for hit in answer.json()["results"]]


def test_a_what_ifs_rollback_drops_no_branch_from_a_card_search(url):
    """The branch keeps the parent's Normal Summon (event #17); the judge's what-if rolled it back
    past where the branch left: the search found the duel and not its branch, by a what-if of the
    kind the index otherwise never writes (its card events)."""
    with Store(url, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        duel, branch = _rolled_back_what_if(client)
        assert sorted(_found(client)) == sorted([duel, branch])
        hit = next(hit for hit in client.get("/search", params={"player": "Yugi"}).json()["results"]
                   if hit["id"] == branch)
        assert "rollback" not in hit["badges"], "a what-if's rollback is the judge's, not the duel's"


def test_an_index_of_version_7_is_rebuilt_without_a_what_ifs_rollbacks(url):
    """A store whose index holds a what-if's rollback row (as version 7 wrote it) gets it rebuilt on
    its next writable open: the branch is found again."""
    with Store(url, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        duel, branch = _rolled_back_what_if(client)
        index = store.library
        with store.events.datastore.transaction(commit=True) as cursor:
            cursor.execute(index.sql("INSERT INTO {rollbacks} (stream, position, back_to, mac) VALUES (?, ?, ?, ?)"),
                           (branch, 18, 17, index.tag("rollbacks", branch, 18, 17)))
            cursor.execute(index.sql("DELETE FROM {meta}"))
            cursor.execute(index.sql("INSERT INTO {meta} (version, mac) VALUES (?, ?)"), (7, index.tag("meta", 7)))
    with Store(url, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        assert sorted(_found(client)) == sorted([duel, branch])


def _won_with_branches(client: TestClient, duels: int) -> list[str]:
    """``duels`` public duels Yugi (player 0) won, each followed by a judge's branch of it (its
    what-if never ended: no result): the duels' ids."""
    ids = []
    for _ in range(duels):
        duel = client.post("/duels", json={"title": "won", "visibility": "public", "release": "end"},
                           headers=ORGANISER).json()
        assert client.post(f"/duels/{duel['id']}/events", json=WON,
                           headers=auth(duel["tokens"]["recorder"])).status_code == 200
        made = client.post(f"/duels/{duel['id']}/branch", json={"at": 18}, headers=auth(duel["tokens"]["judge"]))
        assert made.status_code == 201, made.text
        ids.append(duel["id"])
    return ids


def test_a_search_page_is_full_while_more_exist_and_its_next_goes_on_from_it(url):
    """Three duels Yugi won, each with a newer branch the result filter leaves out after the
    statement: pages of two were one row and a branch's worth short (a first page of one)."""
    with Store(url, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        won = _won_with_branches(client, 3)
        pages, cursor = [], None
        while True:
            params = {"result": "p0", "limit": "2", **({"cursor": cursor} if cursor else {})}
            answer = client.get("/search", params=params)
            assert answer.status_code == 200, answer.text
            pages.append([hit["id"] for hit in answer.json()["results"]])
            cursor = answer.json()["next"]
            if cursor is None:
                break
            assert len(pages) < 5, pages
        assert [len(page) for page in pages] == [2, 1], pages
        assert sorted(sum(pages, [])) == sorted(won)


def test_match_08_a_call_that_says_nothing_is_refused_as_a_call_in_the_readers_language():
    setup = [{"kind": "duel_started", "first_player": 0, "chosen_by": 0, "players": ["Yugi", "Kaiba"]},
             *({"kind": "deck_registered", "player": p, "main": [0] * 40} for p in (0, 1))]
    call = {"kind": "judge_note", "category": "call", "judge": "", "note": " ", "entered_by": "recorder"}
    found = check([from_dict(e) for e in [*setup, call]], CardDB.classic()).to_dict()["violations"]
    assert [v["rule"] for v in found] == ["MATCH-08"], found
    message = found[0]["message"]
    assert "judge call" in message and "signed" not in message and "-" not in message, message
    with using("ja"):
        assert said(message) == ("ジャッジコールは何のためにジャッジを呼ぶのか（そのメモ）を述べる："
                                 "来たジャッジが誰でも答えるので、ジャッジの名前は書かない")


@pytest.mark.parametrize("view", ["p0", "p1"])
def test_a_players_sheet_from_the_command_line_names_the_private_match_the_service_tells_them(served, view):  # noqa: F811
    url, client = served
    match, duel = _public_duel_of(client, "private")
    served_sheet = client.get(f"/duels/{duel['id']}/lp-sheet", headers=auth(duel["tokens"][view]))
    assert served_sheet.status_code == 200 and SECRET in served_sheet.text
    printed = CliRunner().invoke(main, ["lp-sheet", duel["id"], "--store", url, "--view", view])
    assert printed.exit_code == 0, printed.output
    assert _tells(printed.output, match) and "Secret Format" in printed.output


AXE_EQUIP = {"kind": "activated", "player": 1, "card": "p1.m2", "zone": 0, "targets": ["p1.m0"]}


def test_an_exported_view_of_a_what_if_branch_stops_where_the_service_stops_it(url, tmp_path):
    """The judge's branch of a running duel in which Kaiba equips the Axe of Despair from his hand:
    the command line's p0, p1 and spectator files (and the records their viewers wrote, ``--record``)
    held the what-if (19 events) where every token's ``/replay.ygr`` of those views stops where the
    branch left (18); the judge's holds it."""
    with Store(url, concurrent=True) as store, TestClient(create_app(store, digest(ADMIN))) as client:
        duel = client.post("/duels", json={"title": "what if", "visibility": "public", "release": "end"},
                           headers=ORGANISER).json()
        recorder, judge = auth(duel["tokens"]["recorder"]), auth(duel["tokens"]["judge"])
        assert client.post(f"/duels/{duel['id']}/events", json=WON[:18], headers=recorder).status_code == 200
        made = client.post(f"/duels/{duel['id']}/branch", json={"at": 17}, headers=judge)
        assert made.status_code == 201, made.text
        branch = made.json()["id"]
        assert client.post(f"/duels/{branch}/events", json=[AXE_EQUIP], headers=recorder).status_code == 200
        served_counts = {}
        for view in ("judge", "p0", "p1", "spectator"):
            answer = client.get(f"/duels/{branch}/replay.ygr", params={"view": view}, headers=judge)
            assert answer.status_code == 200, answer.text
            (tmp_path / f"{view}.ygr").write_bytes(answer.content)
            served_counts[view] = len(read_replay(tmp_path / f"{view}.ygr").events)
    assert served_counts == {"judge": 19, "p0": 18, "p1": 18, "spectator": 18}
    for view, count in served_counts.items():
        out = tmp_path / f"cli-{view}.ygr"
        done = CliRunner().invoke(main, ["export", branch, "--store", url, "--view", view, "-o", str(out)])
        assert done.exit_code == 0, done.output
        assert len(read_replay(out).events) == count, view
        record = tmp_path / f"cli-{view}.jsonl"
        done = CliRunner().invoke(main, ["export", branch, "--store", url, "--view", view, "--record", "-o", str(record)])
        assert done.exit_code == 0, done.output
        written = [line for line in record.read_text().splitlines() if line.strip() and not line.startswith("#")]
        assert len(written) == count, (view, "the record the view's viewer wrote")


def test_play_plain_goes_to_the_next_and_previous_judge_call(tmp_path):
    call = {"kind": "judge_note", "category": "call", "judge": "", "note": "was the Trap activated first?"}
    events = [*WON[:12], call, *WON[12:20]]
    path = tmp_path / "called.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    done = CliRunner().invoke(main, ["play", str(path), "--plain"], input="c\nc\nj 19\nC\nq\n")
    assert done.exit_code == 0, done.output
    headings = [line.split(":")[0] for line in done.output.splitlines() if line.startswith("event #")]
    assert headings == ["event #0/20", "event #12/20", "event #12/20", "event #19/20", "event #12/20"], headings
    assert "no later judge call, flag or dispute" in done.output


def test_match_08_check_says_which_calls_a_judge_ruled_on(tmp_path):
    call = {"kind": "judge_note", "category": "call", "judge": "", "note": "was the Trap activated first?"}
    ruling = {"kind": "judge_note", "category": "ruling", "judge": "Head judge", "note": "it was",
              "on": 12, "decision": "stands"}
    events = [*WON[:12], call, *WON[12:15], {**call, "note": "a second question"}, ruling, *WON[15:18]]
    calls = check([from_dict(e) for e in events], CardDB.classic()).to_dict()["calls"]
    assert [(c["index"], c["ruled"] and c["ruled"]["decision"]) for c in calls] == [(12, "stands"), (16, None)]
    assert calls[0]["ruled"]["at"] == 17 and calls[0]["ruled"]["judge"] == "Head judge"
    path = tmp_path / "ruled.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    out = CliRunner().invoke(main, ["check", str(path)]).output
    assert "#12 judge call by -" not in out
    assert "was the Trap activated first? (ruled at #17 by Head judge: stands)" in out, out
    assert "a second question (open: a judge call)" in out, out
