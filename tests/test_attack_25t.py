"""Attacks on issue 25's eleventh pass (``attack25t``): second ways in that the doors did not watch.

* A player's own device and LOG-12: a player corrects their own mis-entries of the current turn,
  and a correction puts back what the struck entries moved. Player 0's device entered a draw of
  five cards (kept, flagged TURN-02: a witnessed duel keeps what its devices say), read its hand
  (the record's top five cards of its Deck, in order) and struck the draw: its Deck's order, with
  the Deck, the hand and the count every other view sees just as before. The door
  (``views.out_of_sight``) now refuses a player's correction that would put cards back into its
  Deck; the table's recorder or a judge corrects those entries.
* A branch was written, then given its parent's access in a second write: a store that failed
  between them kept a branch no token of the duel opens, the judge was told the store was not
  answering (503, "nothing written"), and the retry wrote a second branch. Now its access goes in
  with it, as an upload's does.
* Two uploads (or imports) of one judge file at once each found no duel imported from it and
  each recorded one: the same record twice, with two sets of tokens. The store claims the file's
  head with the duel, in its transaction: one writer has it; the other is told the duel it is.
* ``import --unsigned`` of a judge file whose ``source`` named a real EDOPro replay's digest: the
  replay's own import was then skipped as stored, the forged (unverified) duel answered for it.
"""
from __future__ import annotations

import hashlib
import json
import secrets
import threading

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from test_device_names import ADMIN, ORGANISER, START, WON, auth, board, count, post, table  # noqa: F401  (fixture)
from test_store import fresh_url
from ygoreplay.access import digest
from ygoreplay.application import Records, trusted_keys
from ygoreplay.cards import CardDB
from ygoreplay.cli import main
from ygoreplay.errors import StoreUnavailable
from ygoreplay.events import from_dict
from ygoreplay.exchange import make_replay
from ygoreplay.replay_file import dumps, loads
from ygoreplay.service import create_app
from ygoreplay.signing import OrganiserKey
from ygoreplay.store import Store


def _hand(client, duel_id: str, token: str) -> list[int]:
    return [card.get("code") for card in board(client, duel_id, token)["players"][0]["hand"]]


def _deck(store: Store, duel_id: str) -> list[int]:
    """Player 0's Deck, top first, as only the record knows it."""
    state = store.head_state(duel_id)
    return [state.cards[card_id].code for card_id in state.sides[0].deck]


def test_a_players_device_cannot_read_its_decks_order_by_striking_a_draw(table):
    """Player 0's device drew five cards in its Main Phase (flagged, kept), read them in its hand
    in the order its Deck held them, and struck the draw as a mis-entry: 200, its hand and Deck as
    before, and the order of its next five draws known. The correction is refused now (nothing
    written, the draw stands for the table to see and correct), alone, after the draw in one
    append, or after entries of its own put the cards back; a correction that takes nothing out of
    a Deck is still the player's."""
    client, duel_id, tokens, store = table
    at = count(client, duel_id, tokens)
    hand, deck = _hand(client, duel_id, tokens["p0"]), _deck(store, duel_id)
    draw = {"kind": "cards_drawn", "player": 0, "count": 5}
    correction = {"kind": "entry_corrected", "to": at, "reason": "mis-entry"}
    both = post(client, duel_id, tokens["p0"], [draw, correction])
    assert both.status_code == 403 and "nothing was written" in both.json()["error"], both.text
    assert count(client, duel_id, tokens) == at
    assert post(client, duel_id, tokens["p0"], [draw]).status_code == 200
    assert _hand(client, duel_id, tokens["p0"]) == hand + deck[:5], "the draw shows the top five, in order"
    refused = post(client, duel_id, tokens["p0"], [correction])
    assert refused.status_code == 403, refused.text
    assert "Deck" in refused.json()["error"] and "nothing was written" in refused.json()["error"]
    assert count(client, duel_id, tokens) == at + 1
    assert _deck(store, duel_id) == deck[5:], "the draw stands: its cards are not back on top of the Deck"
    # put back on top in their order by entries of its own first (the Deck as it was): still refused
    drawn = [card["id"] for card in board(client, duel_id, tokens["p0"])["players"][0]["hand"]][len(hand):]
    back = [{"kind": "card_moved", "card": card, "to": [0, "deck", 0], "reason": "returned"}
            for card in reversed(drawn)]
    assert post(client, duel_id, tokens["p0"], back).status_code == 200
    assert _deck(store, duel_id) == deck and _hand(client, duel_id, tokens["p0"]) == hand
    refused = post(client, duel_id, tokens["p0"], [correction])
    assert refused.status_code == 403 and "Deck" in refused.json()["error"], refused.text
    # the recorder corrects it; a player's own correction of what changed no Deck stays theirs
    assert post(client, duel_id, tokens["recorder"], [correction]).status_code == 200
    lp = {"kind": "life_points_changed", "player": 0, "amount": 500, "reason": "gain"}
    assert post(client, duel_id, tokens["p0"], [lp]).status_code == 200
    undo = {"kind": "entry_corrected", "to": count(client, duel_id, tokens) - 1, "reason": "mis-entry"}
    assert post(client, duel_id, tokens["p0"], [undo]).status_code == 200, "an LP change is corrected by its player"


def test_a_door_that_reads_no_board_before_a_players_correction_refuses_it(table):
    """LOG-12, the door of a player's device (``views.out_of_sight``): a correction is judged
    against the board before the entries it strikes, which its caller hands in (``before``). A
    caller that hands none (``/actions`` does not) let any correction through unjudged, a draw's
    included: it is refused there, and the append's door still judges it."""
    from ygoreplay.views import out_of_sight
    client, duel_id, tokens, store = table
    at = count(client, duel_id, tokens)
    lp = {"kind": "life_points_changed", "player": 0, "amount": 500, "reason": "gain"}
    assert post(client, duel_id, tokens["p0"], [lp]).status_code == 200
    state = store.state_at(duel_id, at + 1)
    undo = from_dict({"kind": "entry_corrected", "to": at, "reason": "mis-entry"})
    assert out_of_sight("p0", undo, state) is not None
    assert post(client, duel_id, tokens["p0"], [undo.to_dict()]).status_code == 200, "judged with the board: its own LP"


@pytest.fixture(params=["sqlite", "postgresql"])
def served(request, tmp_path):
    """The service on a fresh store of each kind: its client and its store."""
    with fresh_url(request.param, tmp_path / "duels.sqlite") as url, Store(url, concurrent=True) as store, \
            TestClient(create_app(store, digest(ADMIN))) as client:
        yield client, store


def test_a_branch_is_written_with_its_access_or_not_at_all(served, monkeypatch):
    """The store stops answering as the branch's access is written (its second write): the judge
    was answered 503 "nothing written", yet the branch stood, which no token of the duel opens
    (404 to its own judge), and the judge's retry made a second one. Now a branch and its access
    are one write: whatever the store does after it, the branch the judge is told of is the one
    stored, and its tokens open it."""
    client, store = served
    duel = client.post("/duels", json={"title": "what if"}, headers=ORGANISER).json()
    judge = auth(duel["tokens"]["judge"])
    assert client.post(f"/duels/{duel['id']}/events", json=WON[:9], headers=auth(duel["tokens"]["recorder"])
                       ).status_code == 200
    duels = {info.id for info in store.duels()}

    def unavailable(self, stream_id, name, data):
        raise StoreUnavailable("the store is not answering (test)")
    monkeypatch.setattr(Store, "attach", unavailable)
    answer = client.post(f"/duels/{duel['id']}/branch", json={"at": 4}, headers=judge)
    monkeypatch.undo()
    made = {info.id for info in store.duels()} - duels
    if answer.status_code != 201:
        assert answer.status_code == 503 and made == set(), (answer.text, made, "nothing written, as answered")
        answer = client.post(f"/duels/{duel['id']}/branch", json={"at": 4}, headers=judge)
        made = {info.id for info in store.duels()} - duels
    assert answer.status_code == 201 and made == {answer.json()["id"]}, (answer.text, made)
    assert client.get(f"/duels/{answer.json()['id']}/state", headers=judge).status_code == 200


def _uploaded_at_once(client, store: Store, content: bytes) -> None:
    """Six uploads of ``content`` at once: one duel, the other five told (409) it is that one."""
    before = len(store.duels())
    answers: list = []
    start = threading.Barrier(6)

    def upload() -> None:
        start.wait()
        answers.append(client.post("/uploads", content=content, headers=ORGANISER))
    threads = [threading.Thread(target=upload) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(a.status_code for a in answers) == [201] + [409] * 5, [a.text[:200] for a in answers]
    made = next(a.json()["id"] for a in answers if a.status_code == 201)
    assert {a.json()["id"] for a in answers if a.status_code == 409} == {made}
    assert len(store.duels()) == before + 1


def test_one_judge_file_uploaded_six_times_at_once_is_one_duel(served):
    """Six uploads of the same judge file at once: each found it not imported yet and recorded it,
    six duels of one record, each with tokens of its own ("the same file again: 409 with the duel
    it already is"). One is recorded; the others are told (409) the duel it is."""
    client, store = served
    duel = client.post("/duels", json={"title": "twice"}, headers=ORGANISER).json()
    assert client.post(f"/duels/{duel['id']}/events", json=WON,
                       headers=auth(duel["tokens"]["recorder"])).status_code == 200
    _uploaded_at_once(client, store, client.get(f"/duels/{duel['id']}/replay.ygr",
                                                headers=auth(duel["tokens"]["judge"])).content)


def test_one_edopro_replay_uploaded_six_times_at_once_is_one_duel(served):
    """The same for an EDOPro replay, known by its file's digest."""
    from conftest import SHARED
    real = SHARED / "real-replays" / "edopro" / "GG_DW_vs_Cyberse.yrpX"
    if not real.exists():
        pytest.skip(f"{real} is not here")
    client, store = served
    _uploaded_at_once(client, store, real.read_bytes())


def test_cli_append_by_a_player_is_the_same_door_for_a_correction(tmp_path):
    """``append --by p0`` (a player's device's entries, entered at the store) is judged as the
    token's: its draw stands, its correction of it is refused, nothing written."""
    store_path = str(tmp_path / "s.sqlite")
    source = tmp_path / "start.jsonl"
    source.write_text("".join(json.dumps(e) + "\n" for e in START))
    recorded = CliRunner().invoke(main, ["record", str(source), "--json", "--store", store_path])
    duel_id = json.loads(recorded.stdout)["id"]
    entry = tmp_path / "entry.jsonl"
    for event, ok in (({"kind": "cards_drawn", "player": 0, "count": 3}, True),
                      ({"kind": "entry_corrected", "to": len(START), "reason": "mis-entry"}, False)):
        entry.write_text(json.dumps(event) + "\n")
        done = CliRunner().invoke(main, ["append", duel_id, str(entry), "--by", "p0", "--store", store_path])
        assert (done.exit_code == 0) == ok, done.output
    assert "Deck" in done.output and "nothing was written" in done.output, done.output
    with Store(store_path) as store:
        assert len(store.load(duel_id, verified=False).events) == len(START) + 1


def test_an_unverified_import_claiming_a_replays_digest_does_not_stand_for_it(tmp_path):
    """``import --unsigned`` of a judge file from anyone, whose ``source`` names the digest of a
    real EDOPro replay: importing that replay was then skipped as "already stored", the forged
    (unverified) duel answered as the replay's, the replay itself never recorded. What an
    unverified file says of its source is not the store's word (its header says unverified): the
    replay is recorded; a verified import of it is still known by its digest."""
    from conftest import SHARED
    real = SHARED / "real-replays" / "edopro" / "GG_DW_vs_Cyberse.yrpX"
    if not real.exists():
        pytest.skip(f"{real} is not here")
    events = [from_dict(e) for e in WON]
    times = [f"2026-01-01T00:00:{i % 60:02d}.000+00:00" for i in range(len(events))]
    source = {"format": "edopro", "file": real.name, "size": 1, "sha256": hashlib.sha256(real.read_bytes()).hexdigest()}
    forged = make_replay(events, times, CardDB.classic(), "judge", secrets.token_bytes(32), secrets.token_bytes(32),
                         {"title": "forged"}, source, times[0])
    with Store(str(tmp_path / "s.sqlite")) as store:
        records = Records(store)
        unverified = records.import_replay(loads(dumps(forged, OrganiserKey.generate())), None, trusted_keys([]),
                                           unsigned=True)
        assert unverified.id and not unverified.skipped
        done, _agreement = records.import_yrpx(real, None, None)
        assert not done.skipped and done.id != unverified.id, "the replay is recorded, not the forgery"
        again, _agreement = records.import_yrpx(real, None, None)
        assert again.skipped and again.id == done.id
