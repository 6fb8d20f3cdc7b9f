"""Attacks on issue 25's nineteenth pass (``attack25az``): the read side, through a second way in.

Found (fixed):

* A round's match read its recorder the judge view (HIGH). ``access.view_of`` gives a witnessed
  duel's recorder the table's view (attack25aw), but a match's reader was given ``VIEW_OF[role]``
  directly (``service.matches._caller``): the recorder of a witnessed match, the token on the
  table's QR code that a scorekeeper or both players' phones scan (README, *Running a round*),
  read the match as its judge: both players' whole decklists and Side Decks, every card each
  swapped between games, and the judge's ``problems``, through ``/matches/{id}``, ``/state``,
  ``/follow`` and ``replay.ygr`` (and the table's page offered the decklists' names first).
  A match's reader's view is now decided by the same ``access.view_of``: the table's, which a
  match holds as a spectator does (each list's sizes, ``withheld``); its file is a spectator's
  (``access.filed_as``, the duel's too). A judge's link to the table still names from them.
* A swap's refusal named the card a decklist lacks and the part lacking it (MEDIUM): whoever held
  the table's code probed the other player's Main and Side Deck, unwritten, refusal by refusal
  (``match.commands._as_seen``: said without either to a view that holds no decklist; the
  cards' own facts, DECK-02/03, checked before the decklist).
* A witnessed duel's recorder wrote into a judge's what-if branch its table view is cut from
  (MEDIUM): a 409 and its append's position told it the what-if's length, and its entry was
  judged and stored on the what-if's board (``Records._not_in_what_if``, as for a player).

Tried and held: no duel answer carries an ETag or Last-Modified (only the card database's
``/cards.json``, the same for everyone), and every one says ``no-store``; ``/follow`` resumed by
``Last-Event-ID`` past a delayed spectator's view sends nothing and no ``end`` while it is held
back; ``/frames?from=``, ``/state?at=``, ``/diff`` and board pictures past the view are the view's
own bounds (404 naming them), ``/events?from=`` past it empty; ``POST /verify`` with a forged
receipt (no valid signature) is doubted, never compared with the head (no hash oracle); the
board picture's, frames' and LP sheet's kept answers are keyed by the view and what it may see; a
round's rows read no delayed duel (a match's duels have no delay: ``linkable`` refuses one), a
private table is its number only, the round's time call is the organiser's; the search's card rows
are cut at the delay and ``unvouched`` counts rows by their own columns; link previews and oEmbed
are a spectator's; a match's ``problems`` are the judge's and its sentences give counts; a
player's write into a what-if is refused before any head is judged (``made_on``, ``expected``).

Left open (reported): the table's view knows what the recorder's own entries named (a Set told to
the scorekeeper): every holder of the table's code reads it, and README has both players scan it;
a player who names his own Set with it shows it to the other's phone (their own seat links,
``record.p0``/``record.p1``, keep it theirs: a round's QR sheet now prints them and the table's page
sends players to them, ``test_table_probe``). A swap that passes MATCH-04 is written: a probe of a
decklist costs an entry the judge sees. With an event-count delay, when a spectator's event appears
tells when a later one was entered (the delay's own nature).
"""
from __future__ import annotations

import json

from test_release import ORGANISER, auth, client, store  # noqa: F401  (fixtures: an in-process service)
from test_match_service import MATCHES, lines, match_body
from ygoreplay.replay_file import loads


def _round_table(client):  # noqa: F811
    """A round of one table, both decklists registered (by the organiser, README's step 2)."""
    body = {"event": "Regional", "round": 1, "tables": [{"table": 1, "players": ["Yugi", "Kaiba"]}]}
    made = client.post("/rounds", json=body, headers=ORGANISER)
    assert made.status_code == 201, made.text
    table = made.json()["tables"][0]
    decks = [e for e in lines(MATCHES / "two-nil.jsonl") if e["kind"] == "decklist_registered"]
    assert client.post(f"/matches/{table['match']}/events", json=decks, headers=ORGANISER).status_code == 200
    return table, decks


def test_a_round_tables_recorder_code_reads_no_decklist(client):  # noqa: F811
    """The table's code (the match's recorder token) reads each decklist's sizes only, through
    every door of the match; a player's token its own list; the judge's both."""
    table, decks = _round_table(client)
    match = table["match"]
    rec = auth(table["tokens"]["recorder"])
    codes = {c for d in decks for part in ("main", "extra", "side") for c in d.get(part, [])}
    assert codes
    got = client.get(f"/matches/{match}", headers=rec)
    assert got.status_code == 200 and got.json()["view"] == "table", got.text
    for event in (e["event"] for e in got.json()["events"] if e["event"]["kind"] == "decklist_registered"):
        assert not event.get("main") and not event.get("side") and event["withheld"]["main"] == 40, event
    state = client.get(f"/matches/{match}/state", headers=rec)
    assert state.status_code == 200
    assert all(set(deck) == {"counts"} for deck in state.json()["decks"]), state.json()["decks"]
    assert "problems" not in state.json()
    with client.stream("GET", f"/matches/{match}/follow", headers=rec) as stream:
        for line in stream.iter_lines():
            if line.startswith("data:") and "decklist_registered" in line:
                event = json.loads(line[5:])["event"]
                assert not event.get("main") and event["withheld"], event
                if event["player"] == 1:
                    break
    data = client.get(f"/matches/{match}/replay.ygr", headers=rec)
    assert data.status_code == 200
    file = loads(data.content)
    assert file.view == "spectator" and not any(getattr(e, "main", ()) for e in file.events)
    for asked in ("judge", "p0", "p1"):
        assert client.get(f"/matches/{match}", params={"view": asked}, headers=rec).status_code == 403, asked
    # a player's token still reads its own list, the judge's both
    own = client.get(f"/matches/{match}/state", headers=auth(table["tokens"]["p0"])).json()["decks"]
    assert own[0]["main"] and "main" not in own[1]
    judge = client.get(f"/matches/{match}/state", headers=auth(table["tokens"]["judge"])).json()["decks"]
    assert judge[0]["main"] and judge[1]["main"]
    # a match of a simulator's duels (``POST /matches``: a machine's): its recorder records
    # everything, and reads the judge view, as a machine duel's recorder does
    made = client.post("/matches", json=match_body(lines(MATCHES / "two-nil.jsonl")), headers=ORGANISER)
    assert made.status_code == 201, made.text
    got = client.get(f"/matches/{made.json()['id']}/state", headers=auth(made.json()["tokens"]["recorder"]))
    assert got.status_code == 200 and got.json()["view"] == "judge" and got.json()["decks"][1]["main"], got.text


def test_the_tables_recorder_enters_nothing_into_a_judges_what_if(client):  # noqa: F811
    """A witnessed duel's recorder reads the table's view, which stops where a judge's what-if
    branch left while the duel goes on (``LiveDuel.branch_cut``), yet it wrote into the branch:
    a 409 told it the what-if's length (19 where it sees 18), an entry was judged and stored on
    the what-if's board (the Axe of Despair the judge equipped from Kaiba's hand sent to the GY
    at its word) and answered with its position. Refused now, as a player's device is
    (``Records._not_in_what_if``), in the reader's language; its page offers no form there."""
    from test_attack_25ai import EQUIP, SECOND
    from test_device_names import WON
    duel = client.post("/duels", json={"title": "what if", "visibility": "public", "mode": "witnessed"},
                       headers=ORGANISER).json()
    recorder, judge = auth(duel["tokens"]["recorder"]), auth(duel["tokens"]["judge"])
    started = [{**WON[0], "witnessed": True}, *WON[1:18]]
    assert client.post(f"/duels/{duel['id']}/events", json=started, headers=recorder).status_code == 200
    branch = client.post(f"/duels/{duel['id']}/branch", json={"at": 17}, headers=judge).json()["id"]
    assert client.post(f"/duels/{branch}/events", json=[EQUIP], headers=judge).status_code == 200
    assert client.get(f"/duels/{branch}/state", headers=recorder).json()["events"] == 18, "the table's cut"
    probe = {"kind": "card_moved", "card": "p1.m2", "to": [1, "gy"], "reason": "destroyed"}
    for params, events in (({"expected": 18}, [SECOND]), ({}, [SECOND]), ({}, [probe]), ({"lang": "ja"}, [probe])):
        answer = client.post(f"/duels/{branch}/events", params=params, json=events, headers=recorder)
        assert answer.status_code == 403, (params, answer.text)
        assert "19" not in answer.text and "what-if" in answer.json()["message"], answer.text
    assert "ジャッジ" in answer.json()["message_translated"], answer.json()
    assert client.get(f"/duels/{branch}/state", headers=judge).json()["events"] == 19, "nothing was written"
    frames = client.get(f"/duels/{branch}/frames", headers=recorder).json()
    assert frames["writes"] == [] and frames["calls"] is False, frames["writes"]
    # the duel itself takes the table's entries, and the judge's own line is the judge's
    assert client.post(f"/duels/{duel['id']}/events", json=[SECOND], headers=recorder).status_code == 200
    assert client.post(f"/duels/{branch}/events", json=[SECOND], headers=judge).status_code == 200


def between_duels(client) -> tuple[dict, list[dict]]:  # noqa: F811
    """``_round_table``'s table after its first duel, played on paper and ended: the table and
    both decklists as registered."""
    from test_rounds import DUEL
    table, decks = _round_table(client)
    match, rec = table["match"], auth(table["tokens"]["recorder"])
    game = client.post(f"/matches/{match}/games", json={"first_player": 0, "chosen_by": 0}, headers=rec).json()
    paper = [{**DUEL[0], "witnessed": True}, *DUEL[1:]]
    assert client.post(f"/duels/{game['duel']['id']}/events", json=paper, headers=rec).status_code == 200
    assert client.post(f"/matches/{match}/games/1/end", json={}, headers=rec).status_code == 200
    return table, decks


def test_a_swaps_refusal_tells_the_table_nothing_of_a_decklist(client):  # noqa: F811
    """Between games the table's recorder enters each player's siding (``/swaps``). A swap of a
    card the decklist lacks was refused naming the card and the part lacking it (MATCH-04), so
    Yugi, holding the table's code, probed Kaiba's decklist without writing a thing: a Main Deck
    card out and a card surely in no Side Deck in was "Side Deck holds no copy of X" when Kaiba's
    Main Deck held the first, "Main Deck holds no copy of Y" when not. The table's recorder is
    told only that a card of the swap is not the decklist's (and the cards' own facts, DECK-02/03,
    are checked before the decklist); the judge is told which."""
    table, decks = between_duels(client)
    match, rec = table["match"], auth(table["tokens"]["recorder"])
    kaiba = next(d for d in decks if d["player"] == 1)
    held, nowhere = kaiba["main"][0], next(c for d in decks for c in d["side"] if c not in kaiba["side"] + kaiba["main"])
    said = set()
    for out in (held, nowhere):
        swap = {"player": 1, "main_out": [out], "main_in": [nowhere]}
        refused = client.post(f"/matches/{match}/swaps", json=swap, headers=rec)
        assert refused.status_code == 422 and refused.json()["rule"] == "MATCH-04", refused.text
        assert str(out) not in refused.text and str(nowhere) not in refused.text, refused.text
        said.add(refused.json()["message"])
        judged = client.post(f"/matches/{match}/swaps", json=swap, headers=auth(table["tokens"]["judge"]))
        assert judged.status_code == 422 and str(out if out != held else nowhere) in judged.text, judged.text
    assert len(said) == 1, said
    assert client.get(f"/matches/{match}/state", headers=rec).json()["events"] == 5, "nothing was written"
