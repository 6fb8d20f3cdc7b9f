"""Attacks on issue 25's fifteenth pass (``attack25ai``): a judge's what-if branch, after
``LiveDuel.branch_cut`` (``attack25ag``) stopped every view but the judge's where it left.

* In a witnessed duel a player's device wrote into the branch past its cut: its entry was judged on
  the what-if's board and its answer (the flags its own view finds, a refusal's reason) was read
  from events that view may not read. A player enters nothing into a what-if branch before its
  parent released what it hid (``Records._not_in_what_if``), by every door.
* A search's row of a branch showed the what-if's result, length and turns where the public list
  (``as_seen``) cuts them at the branch point; a search by result found the branch by its what-if.
* A device's ``made_on`` past the head skipped the repeated-turn check: refused (409) as no head
  any device saw.
"""
from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from test_device_names import ADMIN, ORGANISER, WON, auth
from test_release import client, store  # noqa: F401  (fixtures)
from test_service_table_recording import at_the_table
from test_store import fresh_url
from test_table_repeats import END_TURN_1, _count, _post
from ygoreplay.access import digest
from ygoreplay.application import Records
from ygoreplay.errors import Forbidden
from ygoreplay.events import from_dict
from ygoreplay.service import create_app
from ygoreplay.store import Store

EQUIP = {"kind": "activated", "player": 1, "card": "p1.m2", "zone": 0, "targets": ["p1.m0"]}   # the Axe, from his hand
SECOND = {"kind": "normal_summoned", "player": 1, "card": "p1.m4", "zone": 3}     # a second Normal Summon: SUM-01
SURRENDER = {"kind": "duel_ended", "winner": 1, "reason": "surrender"}


@pytest.fixture
def served(tmp_path):
    with fresh_url("sqlite", tmp_path / "duels.sqlite") as url, Store(url, concurrent=True) as opened, \
            TestClient(create_app(opened, digest(ADMIN))) as served_client:
        yield served_client, opened


def _what_if(web, mode: str = "machine") -> tuple[dict, str]:
    """A public duel at Kaiba's Main Phase 1 after his Normal Summon, and a judge's branch there in
    which Kaiba equips the Axe of Despair from his hand (the duel itself goes on without it)."""
    duel = web.post("/duels", json={"title": "what if", "visibility": "public", "mode": mode},
                       headers=ORGANISER).json()
    recorder = auth(duel["tokens"]["recorder"])
    first = [{**WON[0], "witnessed": True}] if mode == "witnessed" else WON[:1]
    assert web.post(f"/duels/{duel['id']}/events", json=[*first, *WON[1:18]], headers=recorder).status_code == 200
    made = web.post(f"/duels/{duel['id']}/branch", json={"at": 17}, headers=auth(duel["tokens"]["judge"]))
    assert made.status_code == 201, made.text
    branch = made.json()["id"]
    # the judge plays the what-if (a witnessed duel's recorder reads the table's view, cut where the
    # branch left, and enters nothing into it: attack25az)
    answer = web.post(f"/duels/{branch}/events", json=[EQUIP], headers=auth(duel["tokens"]["judge"]))
    assert answer.status_code == 200, answer.text
    return duel, branch


def test_a_player_enters_nothing_into_a_what_if_branch_its_view_stops_before(served):
    """Kaiba's device, in a witnessed duel, wrote a second Normal Summon into the judge's what-if:
    judged on the what-if's board (the Axe equipped), its answer came from events his view of the
    branch may not read. Refused (403, in the reader's language) by his token and by the command
    line's ``append --by p1`` (``Records.append_records`` entered as p1); the duel itself takes it."""
    web, opened = served
    duel, branch = _what_if(web, "witnessed")
    kaiba = auth(duel["tokens"]["p1"])
    for path in (f"/duels/{branch}/events", f"/duels/{branch}/events?lang=ja"):
        refused = web.post(path, json=[SECOND], headers=kaiba)
        assert refused.status_code == 403, refused.text
        assert "what-if" in refused.json()["message"]
    assert "ジャッジ" in refused.json()["message_translated"], refused.json()
    with pytest.raises(Forbidden):
        Records(opened).append_records(branch, [from_dict(SECOND)], role="organiser", entered_by="p1")
    assert web.get(f"/duels/{branch}/state", headers=auth(duel["tokens"]["judge"])).json()["events"] == 19
    kept = web.post(f"/duels/{duel['id']}/events", json=[SECOND], headers=kaiba)
    assert kept.status_code == 200 and "SUM-01" in [f["rule"] for f in kept.json()["flags"]], kept.text


def test_a_search_row_of_a_what_if_branch_shows_no_more_than_the_public_list(served):
    """The judge's what-if ends in Yugi's surrender while the duel goes on: the public list shows the
    branch as it left (18 events, no result); a search showed its result, length and turns, and
    found it by ``result=p1``."""
    web, _opened = served
    duel, branch = _what_if(web)
    assert web.post(f"/duels/{branch}/events", json=[SURRENDER],
                       headers=auth(duel["tokens"]["recorder"])).status_code == 200
    listed = {d["id"]: d for d in web.get("/duels").json()}
    assert (listed[branch]["events"], listed[branch]["result"]) == (18, None), listed[branch]
    rows = {row["id"]: row for row in web.get("/search").json()["results"]}
    assert (rows[branch]["events"], rows[branch]["result"]) == (18, None), rows[branch]
    assert rows[branch]["turns"] <= rows[duel["id"]]["turns"], rows
    for result in ("p1", "Kaiba"):
        found = web.get("/search", params={"result": result}).json()["results"]
        assert branch not in [row["id"] for row in found], (result, found)
    assert branch in [row["id"] for row in web.get("/search", params={"result": "ongoing"}).json()["results"]]


def test_a_made_on_past_the_head_is_refused_not_taken_as_fresh(client):  # noqa: F811
    """Device B's *Next turn*, queued behind device A's, said it was made on a head the duel never
    reached: no turn began after it, so ``repeated_turn`` stored a third turn over A's second (its
    draw just entered). Refused (409, translated), nothing written; made on the head it saw, it is
    the 428 ``turn_repeated`` it always was."""
    duel, recorder = at_the_table(client)
    at = _count(client, duel)
    assert _post(client, duel, recorder, END_TURN_1, expected=at, made_on=at).status_code == 200
    drawn = [{"kind": "phase_entered", "phase": "draw"}, {"kind": "cards_drawn", "player": 1}]
    assert _post(client, duel, recorder, drawn, expected=at + 2).status_code == 200
    mine = [{"kind": "phase_entered", "phase": "end"}, {"kind": "turn_started", "player": 0, "turn": 3}]
    for params in ({"expected": at + 4}, {}):
        r = _post(client, duel, recorder, mine, made_on=10 ** 6, lang="ja", **params)
        assert r.status_code == 409, (params, r.text)
        assert r.json()["message"].startswith("this entry says it was made when the duel had 1000000 events")
        assert "1000000" in r.json()["message_translated"] and "this entry" not in r.json()["message_translated"]
    assert _count(client, duel) == at + 4                     # nothing written
    r = _post(client, duel, recorder, mine, expected=at + 4, made_on=at)
    assert r.status_code == 428 and r.json()["confirm"] == "turn_repeated", r.text


def test_a_players_actions_in_a_what_if_branch_are_judged_where_its_view_stops(served):
    """``/actions``, a witnessed duel's player's device's list of what it may enter, was worked out on
    the board after every event of its view of the branch, the what-if's too: its ``at`` said how long
    the what-if was, and Kaiba's Normal Summon was offered no more (the what-if's open chain) where
    his view of the branch, stopped where it left, still has his turn's Main Phase open."""
    web, _opened = served
    duel, branch = _what_if(web, "witnessed")
    for role in ("p0", "p1"):
        answer = web.get(f"/duels/{branch}/actions", headers=auth(duel["tokens"][role]))
        assert answer.status_code == 200 and answer.json()["at"] == 17, (role, answer.text)
    mine = web.get(f"/duels/{branch}/actions", headers=auth(duel["tokens"]["p1"])).json()["actions"]
    parent = web.get(f"/duels/{duel['id']}/actions", headers=auth(duel["tokens"]["p1"])).json()["actions"]
    assert mine == parent, "the branch, as Kaiba may see it, is the duel where it left"
    judge = web.get(f"/duels/{branch}/actions", headers=auth(duel["tokens"]["judge"])).json()
    assert judge["at"] == 18, "the judge's what-if is the judge's"


def test_an_empty_append_tells_a_player_no_head_past_its_view_of_a_what_if(served):
    """An empty append answers the head (a device's check before it writes), and its ``expected``
    a 409 naming it: Kaiba's token learnt the what-if's length (19) from the branch his view stops
    at 18 of, and could confirm any guess. It answers his view's head; and his page's ``writes``
    offer him nothing there (``/frames``), as every write of his would be refused."""
    web, _opened = served
    duel, branch = _what_if(web, "witnessed")
    kaiba = auth(duel["tokens"]["p1"])
    assert web.post(f"/duels/{branch}/events", json=[], headers=kaiba).json() == {"position": 18, "length": 18}
    assert web.post(f"/duels/{branch}/events?expected=19", json=[], headers=kaiba).status_code == 409
    assert web.post(f"/duels/{branch}/events?expected=18", json=[], headers=kaiba).status_code == 200
    judge = auth(duel["tokens"]["judge"])
    assert web.post(f"/duels/{branch}/events", json=[], headers=judge).json() == {"position": 19, "length": 19}
    assert web.get(f"/duels/{branch}/frames", headers=kaiba).json()["writes"] == []
    assert "normal_summoned" in web.get(f"/duels/{duel['id']}/frames", headers=kaiba).json()["writes"]
