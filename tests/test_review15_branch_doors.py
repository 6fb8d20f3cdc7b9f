"""Review of issue 25's fifteenth pass (``review15``): a door of a duel that skipped the cut the
others apply to a judge's what-if branch (``LiveDuel.branch_cut``, ZONE-12/ZONE-13).

* ``/duels/{id}/actions`` worked a witnessed duel's player out the actions on the board after
  every event of the view, not after those the view may see: on a judge's branch of a running
  duel its ``at`` told the player's device how long the what-if was, and its board (the one the
  actions fit) held the what-if's Axe of Despair equipped from Kaiba's hand.
"""
from __future__ import annotations

import pytest

import test_attack_25ag
from test_attack_25ag import AXE, EQUIP, _what_if
from test_device_names import ORGANISER, WON, auth

served = test_attack_25ag.served        # the fixture: a store and its service


@pytest.fixture
def witnessed_what_if(served) -> tuple:
    """Yugi and Kaiba's running witnessed public duel at event #17, and the judge's branch there in
    which Kaiba equips the Axe of Despair from his hand: the client, the duel, the branch's id and
    Yugi's device's headers."""
    client = served
    duel = client.post("/duels", json={"title": "what if", "visibility": "public", "mode": "witnessed"},
                       headers=ORGANISER).json()
    recorder = auth(duel["tokens"]["recorder"])
    started = [{**WON[0], "witnessed": True}, *WON[1:18]]
    assert client.post(f"/duels/{duel['id']}/events", json=started, headers=recorder).status_code == 200
    made = client.post(f"/duels/{duel['id']}/branch", json={"at": 17}, headers=auth(duel["tokens"]["judge"]))
    assert made.status_code == 201, made.text
    branch = made.json()["id"]
    # the judge plays the what-if: the table's recorder enters nothing into it (attack25az)
    assert client.post(f"/duels/{branch}/events", json=[EQUIP], headers=auth(duel["tokens"]["judge"])).status_code == 200
    return client, duel, branch, auth(duel["tokens"]["p0"])


def test_a_players_actions_on_a_what_if_branch_stop_where_the_branch_left(witnessed_what_if):
    """Yugi's device asks the actions of the judge's branch of their running witnessed duel: they
    are worked out on the board where the branch left (event #17, which the duel showed him), not
    after the judge's what-if equip of the Axe in Kaiba's hand."""
    client, duel, branch, yugi = witnessed_what_if
    assert client.get(f"/duels/{branch}/state", headers=yugi).json()["at"] == 17, "the views' cut"
    for card in (None, "p1.m0"):
        answer = client.get(f"/duels/{branch}/actions", params={"card": card} if card else {}, headers=yugi)
        assert answer.status_code == 200, answer.text
        assert answer.json()["at"] == 17, ("the what-if's length is the judge's", card, answer.json())
        assert str(AXE) not in answer.text and "Axe of Despair" not in answer.text, card
    judged = client.get(f"/duels/{branch}/actions", headers=auth(duel["tokens"]["judge"]))
    assert judged.json()["at"] == 18, "the judge works on the whole what-if"


def test_a_search_shows_no_what_if_past_where_its_running_parent_showed_it(served):
    """A search is a spectator's: the judge's branch of Yugi and Kaiba's running public duel was
    listed with the what-if's length and its end (Yugi's what-if surrender) while the branch's
    spectator view stopped where it left."""
    client = served
    duel, branch = _what_if(client, "end")
    surrender = {"kind": "duel_ended", "winner": 1, "reason": "surrender"}
    recorder = auth(duel["tokens"]["recorder"])
    assert client.post(f"/duels/{branch}/events", json=[surrender], headers=recorder).status_code == 200
    seen = len(client.get(f"/duels/{branch}/events").text.splitlines())
    assert seen == 18, "the branch's spectators see where it left"
    found = client.get("/search", params={"kind": "duel"}).json()["results"]
    listed = [hit for hit in found if hit["id"] == branch]
    assert all(hit["events"] <= seen and hit["result"] is None for hit in listed), listed
    for result in ("p1", "Kaiba"):
        found = client.get("/search", params={"kind": "duel", "result": result}).json()["results"]
        assert branch not in [hit["id"] for hit in found], ("found by the what-if's end", result)
    ongoing = client.get("/search", params={"kind": "duel", "result": "ongoing"}).json()["results"]
    assert branch in [hit["id"] for hit in ongoing], "shown ongoing, and found so (not left out by its end)"


def test_a_players_entry_into_a_what_if_is_refused_before_its_head_says_the_what_ifs_length(witnessed_what_if):
    """Yugi's device enters a turn change into the judge's branch of their running witnessed duel
    saying it was made at 19, then at 20 events: the first passed the check of ``made_on`` against
    the what-if's head (19 events; Yugi's view stops at 18) and was refused 403, the second 409
    "but it has 19": the what-if's length, one guess at a time. Both are now refused alike, before the head is read."""
    client, _duel, branch, yugi = witnessed_what_if
    entry = [{"kind": "phase_entered", "phase": "battle"}]
    answers = [client.post(f"/duels/{branch}/events", params={"made_on": made_on}, json=entry, headers=yugi)
               for made_on in (18, 19, 20, 10 ** 6)]
    assert [a.status_code for a in answers] == [403] * 4, [a.text for a in answers]
    assert len({a.json()["error"] for a in answers}) == 1, [a.text for a in answers]
    assert all("19" not in a.text for a in answers), [a.text for a in answers]


def test_a_search_reads_a_parents_release_once_however_many_branches_it_lists(served, monkeypatch):
    """Each listed branch read its parent's release (its header, status, access attachments,
    its match's, each ancestor's) again: three branches of one duel, three times a search."""
    import ygoreplay.library_search as library_search
    client = served
    duel, branch = _what_if(client, "end")
    judge = auth(duel["tokens"]["judge"])
    more = [client.post(f"/duels/{duel['id']}/branch", json={"at": at}, headers=judge) for at in (16, 17)]
    assert all(made.status_code == 201 for made in more), [made.text for made in more]
    branches = {branch, *(made.json()["id"] for made in more)}
    asked: list[str] = []
    real = library_search.released

    def counted(store, duel_id, now=None):
        asked.append(duel_id)
        return real(store, duel_id, now)
    monkeypatch.setattr(library_search, "released", counted)
    found = client.get("/search", params={"kind": "duel"}).json()["results"]
    assert branches <= {hit["id"] for hit in found}, found
    assert asked.count(duel["id"]) == 1, asked
    assert all(hit["events"] <= 18 for hit in found if hit["id"] in branches), found
