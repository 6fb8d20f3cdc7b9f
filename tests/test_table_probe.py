"""The table's recorder and what its writes tell it (#25, nineteenth pass, ``tableprobe19``).

* The rules' refusal was an oracle (MEDIUM). The table's recorder (``access.TABLE``) names a
  hidden card by its view's name when it is shown; the record knows it where a player's device
  entered it. Shown as the card the record knows, the entry was accepted (200); shown as another,
  refused (``LOG-10``, 422, nothing written). Naming one card after another, the holder of the
  table's code learned each hidden card. In a witnessed duel the table's claim now stands as what
  the table saw, flagged LOG-10 for the judge and the card's owner (``rules.identity``): the
  table's answer and its view are the same either way; the owner's device sees the card as the
  table named it (to dispute the entry, LOG-02).
* One shared token at a paper table (LOW–MEDIUM). A round's table had one code, the recorder's,
  which both players' phones scanned (README, *Running a round*): its view, the table's, knows what
  its own entries named, so a player naming his own Set card with it showed it on the other's
  phone. A round's paper table now hands each seat its own link (``record.p0``/``record.p1``, as
  ``POST /duels`` of a witnessed duel does: ``access.recorders_of``), printed on the QR sheet
  under its player's name, and the recorder's page, opened with the table's code, tells players
  to enter their own hidden cards with their seat's link.
"""
from __future__ import annotations

import json

import pytest

from test_release import ORGANISER, auth, client, store  # noqa: F401  (fixtures: an in-process service)
from test_attack_25aw import LUSTER, _table
from test_device_names import board, post
from test_browser import browser, service  # noqa: F401  (the fixtures: Debian's chromium, a served store)
from test_match_service import MATCHES, lines
from test_service import create

POT = 55144522


def _set_monster(client, duel: dict, recorder: str) -> str:  # noqa: F811
    """The table's name of player 1's face-down monster (Luster Dragon to the record)."""
    return board(client, duel["id"], recorder)["players"][1]["mzone"][2]["id"]


def _flags(client, duel: dict, token: str) -> list[str]:  # noqa: F811
    """The rules each event of the duel was flagged with, through ``token``'s view."""
    answer = client.get(f"/duels/{duel['id']}/frames", headers=auth(token))
    assert answer.status_code == 200, answer.text
    return [f["rule"] for step in answer.json()["frames"] for f in step.get("flags") or []]


def test_the_table_naming_a_hidden_card_learns_nothing_from_the_answer(client):  # noqa: F811
    answers = {}
    for code in (LUSTER, POT):
        duel, recorder = _table(client)
        card = _set_monster(client, duel, recorder)
        answer = post(client, duel["id"], recorder, [{"kind": "card_revealed", "player": 1, "cards": [card],
                                                      "shows": {card: code}}])
        answers[code] = (answer.status_code, answer.json().get("flags"))
        assert answer.status_code == 200, answer.text         # baseline: 422 LOG-10 for Pot of Greed
        if code == POT:
            assert "LOG-10" in _flags(client, duel, duel["tokens"]["judge"])
            assert "LOG-10" not in _flags(client, duel, recorder)
            for door in ("frames", "events", "state", "cards"):
                seen = client.get(f"/duels/{duel['id']}/{door}", headers=auth(recorder)).text
                assert "Luster" not in seen and str(LUSTER) not in seen, (door, seen)
            for token in (recorder, duel["tokens"]["p1"], duel["tokens"]["judge"]):
                # what the table saw stands: its owner's device sees the claim, to dispute it
                assert board(client, duel["id"], token)["players"][1]["mzone"][2]["code"] == POT
    assert answers[POT] == answers[LUSTER] == (200, []), answers


# -- each seat its own link ------------------------------------------------------------------------

def test_a_paper_tables_seats_each_have_their_own_link_on_the_qr_sheet(client):  # noqa: F811
    """One shared token at a paper table (LOW–MEDIUM): both players scanning the table's code read
    the table's view, which knows what its own entries named; a player who named his own Set card
    with it showed it on the other's phone. A round's paper table now hands each seat its own link
    (``record.p0``/``record.p1``, as a witnessed duel's ``POST /duels`` does), printed on the QR
    sheet under the player's name, opening the recorder's page as that player's device."""
    made = client.post("/rounds?event=Regional&round=1", content="1,Yugi,Kaiba\n",
                       headers={"Content-Type": "text/csv", **ORGANISER})
    assert made.status_code == 201, made.text
    table = made.json()["tables"][0]
    tokens = table["tokens"]
    assert table["record"] == {role: f"http://testserver/record/match/{table['match']}?token={tokens[role]}"
                               for role in ("recorder", "p0", "p1")}
    sheet = client.post("/rounds?event=Regional&round=2&page=qr", content="1,Yugi,Kaiba\n",
                        headers={"Content-Type": "text/csv", **ORGANISER}).text
    assert sheet.count("<svg") == 3 and 'id="table-1-p0"' in sheet and "Kaiba&#x27;s own phone" in sheet
    assert 'id="seats"' in sheet
    # between duels a seat's link opens its player's match page; the table starts the duel
    seat = table["record"]["p1"].removeprefix("http://testserver")
    waiting = client.get(seat, follow_redirects=False)
    assert waiting.status_code == 303 and waiting.headers["location"] == (
        f"/match/{table['match']}?token={tokens['p1']}")
    decks = [e for e in lines(MATCHES / "two-nil.jsonl") if e["kind"] == "decklist_registered"]
    assert client.post(f"/matches/{table['match']}/events", json=decks, headers=ORGANISER).status_code == 200
    game = client.post(f"/matches/{table['match']}/games", json={"first_player": 0, "chosen_by": 0},
                       headers=auth(tokens["recorder"]))
    assert game.status_code in (200, 201), game.text
    duel = game.json()["duel"]["id"]
    opened = client.get(seat, follow_redirects=False)
    assert opened.status_code == 303 and opened.headers["location"] == (
        f"/record/{duel}?token={tokens['p1']}&match={table['match']}")
    assert client.get(f"/record/match/{table['match']}?token={tokens['spectator']}").status_code == 403


def test_the_tables_page_sends_players_to_their_seat_links(service, browser):  # noqa: F811
    """The recorder's page, opened with a paper table's code (a witnessed duel's recorder link),
    says that players enter their own hidden cards with their seat's link; a seat's page does not,
    nor a machine's recorder's."""
    expect = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]' installs playwright").expect
    paper, machine = create(service.url, mode="witnessed"), create(service.url)
    for link, shown in ((paper["record"]["recorder"], True), (paper["record"]["p0"], False),
                        (machine["record"]["recorder"], False)):
        page = browser.new_context().new_page()
        page.goto(link)
        page.wait_for_selector("body[data-ready=true]", timeout=15_000)
        notice = page.locator("#table-code")
        if shown:
            expect(notice).to_be_visible()
            expect(notice).to_contain_text("seat's link")
        else:
            expect(notice).to_be_hidden()
        page.context.close()


def test_the_owner_of_a_card_the_table_showed_as_another_sees_its_flag(client):  # noqa: F811
    """The table shows player 1's Set Luster Dragon as Pot of Greed (LOG-10, kept in a witnessed
    duel): its owner, whose device entered the card and who would dispute the entry, sees the flag
    the judge sees; nobody else does (the table's view, player 0's and a spectator's never knew it),
    and they learn the card as they would had it been named right."""
    duel, recorder = _table(client)
    card = _set_monster(client, duel, recorder)
    answer = post(client, duel["id"], recorder, [{"kind": "card_revealed", "player": 1, "cards": [card],
                                                  "shows": {card: POT}}])
    assert answer.status_code == 200, answer.text
    tokens = duel["tokens"]
    assert "LOG-10" in _flags(client, duel, tokens["judge"])
    assert "LOG-10" in _flags(client, duel, tokens["p1"])      # baseline: not flagged for the owner
    for token in (recorder, tokens["p0"], tokens["spectator"]):
        assert "LOG-10" not in _flags(client, duel, token), token
        # learnt once, as a card named right is (baseline: a second row told the claim was wrong)
        last = json.loads(client.get(f"/duels/{duel['id']}/events", headers=auth(token)).text.splitlines()[-1])
        assert [code for _, _, code in last["disclosures"]] == [POT], last
