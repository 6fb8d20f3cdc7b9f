"""Attacks on issue 25's sixteenth pass (``attack25ak``): a view held back learns where the record
ends from a door that answers on it.

A judge's what-if branch shows a player's view (and a spectator's) only where it left until its
parent released what it hid (``LiveDuel.branch_cut``: its own events play Kaiba's hand, ZONE-14),
and a spectator held back by a delay sees nothing past it. Every read cut the view's events at
what it may see; three doors still told what lies past the cut:

* ``/follow`` ended the stream (``event: end``) once the duel had ended and ``from`` (or
  ``Last-Event-ID``) reached the record's count: a player following an ended what-if from ``N``
  was ended at once for ``N`` at its length and kept waiting below it, so a few requests told
  him the what-if's length and that it was played to its end.
* A player's view of a branch was fed every event of it, the what-if's too, and only cut where
  it was read: a witnessed duel's steps carry what later events said of them (their marks), so
  the judge's what-if rollback to #6 turned Yugi's steps #6..#8 from unconfirmed to not, on every
  door (``/events``, ``/frames``, ``/follow``). Such a view is now fed only what it may see, as
  a spectator's is (``LiveDuel.fed_when_asked``).
* ``POST /verify`` refused a receipt past the view (403) only when the record held more than the
  view saw: a forged receipt told a player whether the judge had played past where the branch
  left, and a delayed spectator the moment the table entered an event (the delay hides its
  timing too).

The stream and the receipt now ask ``LiveDuel.holds_back``: whether the view may be shown less
than the record, decided by the view and the settings, never by the record's length.
"""
from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from test_attack_25ag import _what_if
from test_device_names import ADMIN, ORGANISER, START, WON, auth
from test_store import fresh_url
from ygoreplay.access import digest
from ygoreplay.service import create_app, duels
from ygoreplay.store import Store

ENDED = {"kind": "duel_ended", "winner": 1, "reason": "surrender"}


@pytest.fixture
def served(tmp_path, monkeypatch):
    # keep-alives soon, so a stream that stays open sends something to read up to
    monkeypatch.setattr(duels, "KEEPALIVE", 0.05)
    with fresh_url("sqlite", tmp_path / "duels.sqlite") as url, Store(url, concurrent=True) as store, \
            TestClient(create_app(store, digest(ADMIN))) as client:
        yield client


def _first(client, path: str, headers: dict) -> bytes:
    """What a stream sends until its end or its first keep-alive (it stays open after that)."""
    got = b""
    with client.stream("GET", path, headers=headers) as stream:
        for chunk in stream.iter_bytes():
            got += chunk
            if b"event: end" in got or b": keepalive" in got:
                break
    return got


def _forged(client, duel_id: str, headers: dict, events: int) -> dict:
    """A receipt of ``events`` events anyone can write (its signature is checked after the 403)."""
    key = client.get(f"/duels/{duel_id}/verify", headers=headers).json()["key"]
    return {"receipt": "ygoreplay/receipt", "version": 1, "duel": duel_id, "events": events, "head": "00" * 32,
            "time": "2026-01-01T00:00:00Z", "key": key, "signature": ""}


def test_a_players_stream_of_an_ended_what_if_never_says_where_it_ends(served):
    """Yugi follows the judge's what-if (ended by a surrender) from each position past where it
    left: the stream ended at once from its length on (20) and waited below it, so he read the
    what-if's length and that it ended while the duel hides Kaiba's hand (ZONE-14)."""
    client = served
    duel, branch = _what_if(client, "never")
    recorder, yugi = auth(duel["tokens"]["recorder"]), auth(duel["tokens"]["p0"])
    assert client.post(f"/duels/{branch}/events", json=[ENDED], headers=recorder).status_code == 200
    for headers in (yugi, {}, auth(duel["tokens"]["spectator"])):
        for start in (19, 20, 25):
            got = _first(client, f"/duels/{branch}/follow?from={start}", headers)
            assert b"event: end" not in got, (start, "the stream ended where the what-if does")
        resumed = _first(client, f"/duels/{branch}/follow", {**headers, "Last-Event-ID": "19"})
        assert b"event: end" not in resumed
    assert b"event: end" in _first(client, f"/duels/{branch}/follow?from=20", recorder), "the judge view's ends"


def test_a_stream_of_a_what_if_ends_once_its_parent_released_what_it_hid(served):
    """Under ``end``, the duel played to its end releases the what-if: every view's stream of it
    ends where it does, as a duel's does."""
    client = served
    duel, branch = _what_if(client, "end")
    recorder, yugi = auth(duel["tokens"]["recorder"]), auth(duel["tokens"]["p0"])
    assert client.post(f"/duels/{branch}/events", json=[ENDED], headers=recorder).status_code == 200
    assert b"event: end" not in _first(client, f"/duels/{branch}/follow?from=20", yugi)
    assert client.post(f"/duels/{duel['id']}/events", json=WON[20:], headers=recorder).status_code == 200
    assert b"event: end" in _first(client, f"/duels/{branch}/follow?from=20", yugi)
    assert b"event: end" in _first(client, f"/duels/{branch}/follow?from=18", {})


def test_a_receipt_past_a_players_view_of_a_what_if_says_nothing_of_its_moves(served):
    """A receipt past where the branch left was refused (403) only when the judge had played past
    it: a forged one told Yugi whether the what-if holds a move. Refused either way."""
    client = served
    duel, played = _what_if(client, "never")
    yugi = auth(duel["tokens"]["p0"])
    made = client.post(f"/duels/{duel['id']}/branch", json={"at": 17}, headers=auth(duel["tokens"]["judge"]))
    untouched = made.json()["id"]
    answers = [client.post(f"/duels/{branch}/verify", json=_forged(client, branch, yugi, 19), headers=yugi)
               for branch in (played, untouched)]
    assert [a.status_code for a in answers] == [403, 403], [a.text for a in answers]


def test_a_receipt_past_a_delayed_spectators_view_says_nothing_of_when_the_table_entered(served):
    """A spectator behind a delay of an hour posts a receipt of one event: answered (not ok)
    before the table's first entry and refused (403) after it, the moment the delay hides. The
    same answer before and after; once the duel has ended nothing is held back, and it is checked."""
    client = served
    duel = client.post("/duels", json={"visibility": "public", "delay": {"seconds": 3600}}, headers=ORGANISER).json()
    recorder, spectator = auth(duel["tokens"]["recorder"]), auth(duel["tokens"]["spectator"])
    path = f"/duels/{duel['id']}/verify"
    before = client.post(path, json=_forged(client, duel["id"], spectator, 1), headers=spectator)
    assert client.post(f"/duels/{duel['id']}/events", json=WON[:1], headers=recorder).status_code == 200
    after = client.post(path, json=_forged(client, duel["id"], spectator, 1), headers=spectator)
    assert before.status_code == after.status_code == 403, (before.text, after.text)
    assert client.post(f"/duels/{duel['id']}/events", json=WON[1:], headers=recorder).status_code == 200
    ended = client.post(path, json=_forged(client, duel["id"], spectator, 1), headers=spectator)
    assert ended.status_code == 200 and ended.json()["ok"] is False, ended.text


def _unconfirmed(client, duel_id: str, headers: dict) -> dict[int, bool]:
    lines = [json.loads(line) for line in client.get(f"/duels/{duel_id}/events", headers=headers).text.splitlines()]
    return {line["position"]: line.get("unconfirmed") for line in lines}


def test_a_players_steps_of_a_what_if_say_nothing_of_its_rollback(served):
    """A witnessed duel's what-if: the judge branches after #8 and rolls back to #6 in it. Yugi's
    view stops at #8, which the duel showed him: its steps #6..#8 stay as the duel has them
    (unconfirmed), not reverted by an event he may not see. Once the duel released what it hid
    (its end, under ``end``), the what-if and its rollback are his."""
    client = served
    duel = client.post("/duels", json={"visibility": "public", "release": "end", "mode": "witnessed"},
                       headers=ORGANISER).json()
    recorder, judge, yugi = (auth(duel["tokens"][role]) for role in ("recorder", "judge", "p0"))
    assert client.post(f"/duels/{duel['id']}/events", json=START, headers=recorder).status_code == 200
    branch = client.post(f"/duels/{duel['id']}/branch", json={"at": 8}, headers=judge).json()["id"]
    shown = _unconfirmed(client, branch, yugi)
    back = {"kind": "rolled_back", "to": 6, "judge": "Judge", "reason": "what if"}
    assert client.post(f"/duels/{branch}/events", json=[back], headers=judge).status_code == 200
    assert _unconfirmed(client, branch, judge)[7] is False, "the judge's view: reverted"
    assert _unconfirmed(client, branch, yugi) == shown == {**shown, 6: True, 7: True, 8: True}
    frames = client.get(f"/duels/{branch}/frames", headers=yugi).json()["frames"]
    assert [f.get("unconfirmed") for f in frames[6:]] == [True, True, True] and len(frames) == 9
    assert b"reverted" not in _first(client, f"/duels/{branch}/follow?from=6", yugi)
    ended = {"kind": "duel_ended", "winner": 0, "reason": "judge"}
    assert client.post(f"/duels/{duel['id']}/events", json=[ended], headers=recorder).status_code == 200
    released = _unconfirmed(client, branch, yugi)
    assert len(released) == 10 and released[7] is False, "released: the what-if is every view's"
