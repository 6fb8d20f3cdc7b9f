"""Leftovers 18: what earlier passes left open.

* A duel of a match took play after its match ended the game (LOG-03, LOG-09): a concession, a
  penalty's game loss or ``/games/N/end`` said the game was over, and the duel's record went on
  (or, unbegun, began). Now the match's game end closes the duel in the same transaction
  (``match.commands._closing``): its ``duel_ended`` at the head it was judged on, or, unbegun, its
  ``opening`` claim (``access.OPENING``), which the duel's first append makes too. What a duel
  takes after its end (a judge's note) it still takes.
"""
from __future__ import annotations

import json

from test_attack_25ar import _opening
from test_attack_25i import table_duel
from test_release import auth, client, store  # noqa: F401  (fixtures)
from ygoreplay.application import Records
from ygoreplay.events import from_dict
from ygoreplay.rules import RuleViolation
from ygoreplay.store import Store

import pytest

TURN = {"kind": "turn_started", "player": 0, "turn": 1}
DRAW_PHASE = {"kind": "phase_entered", "phase": "draw"}


def _begun(client):  # noqa: F811
    """Table 1's duel, begun (the opening and turn 1): (table, duel, recorder, judge headers)."""
    made, duel = table_duel(client)
    one = made["tables"][0]
    recorder = auth(one["tokens"]["recorder"])
    assert client.post(f"/duels/{duel['id']}/events", json=[*_opening(["Yugi", "Kaiba"]), TURN],
                       headers=recorder).status_code == 200
    return one, duel, recorder, auth(one["tokens"]["judge"])


def _events(client, duel: dict, headers: dict) -> list[dict]:  # noqa: F811
    text = client.get(f"/duels/{duel['id']}/events", headers=headers).text
    return [json.loads(line)["event"] for line in text.splitlines() if line.strip()]


def test_a_duel_takes_no_play_after_its_match_game_was_conceded(client):  # noqa: F811
    """LOG-03, LOG-09: Kaiba concedes game 1 in the match; the duel's record ends there (Yugi's
    win, a surrender), and the recorder's next entry is refused (422), a judge's note still taken."""
    one, duel, recorder, judge = _begun(client)
    assert client.post(f"/matches/{one['match']}/games/1/end", json={"winner": 0, "how": "surrender"},
                       headers=recorder).status_code == 200
    last = _events(client, duel, recorder)[-1]
    assert (last["kind"], last["winner"], last["reason"]) == ("duel_ended", 0, "surrender"), last
    r = client.post(f"/duels/{duel['id']}/events", json=[DRAW_PHASE], headers=recorder)
    assert r.status_code == 422 and r.json()["rule"] == "LOG-03", r.text
    note = {"kind": "judge_note", "judge": "A. Judge", "note": "game 1 conceded at the table"}
    assert client.post(f"/duels/{duel['id']}/events", json=[note], headers=judge).status_code == 200


def test_a_penalty_game_loss_ends_the_duel_in_progress_as_the_judges(client):  # noqa: F811
    """LOG-03: a game loss given by the judge ends the duel's record as the judge's end (reason
    ``judge``) for the opponent; the duel takes no more play."""
    one, duel, recorder, judge = _begun(client)
    penalty = {"player": 0, "judge": "A. Judge", "infraction": "slow_play", "penalty": "game_loss"}
    assert client.post(f"/matches/{one['match']}/penalties", json=penalty, headers=judge).status_code == 200
    last = _events(client, duel, recorder)[-1]
    assert (last["kind"], last["winner"], last["reason"]) == ("duel_ended", 1, "judge"), last
    r = client.post(f"/duels/{duel['id']}/events", json=[DRAW_PHASE], headers=recorder)
    assert r.status_code == 422 and r.json()["rule"] == "LOG-03", r.text


def test_a_duel_whose_game_was_lost_before_it_began_takes_no_opening(client):  # noqa: F811
    """LOG-03: Yugi is late, a game loss before the duel's first entry; the duel stays empty and its
    opening, entered after, is refused (422), naming the match's game."""
    made, duel = table_duel(client)
    one = made["tables"][0]
    judge, recorder = auth(one["tokens"]["judge"]), auth(one["tokens"]["recorder"])
    penalty = {"player": 0, "judge": "A. Judge", "infraction": "lateness", "penalty": "game_loss"}
    assert client.post(f"/matches/{one['match']}/penalties", json=penalty, headers=judge).status_code == 200
    r = client.post(f"/duels/{duel['id']}/events", json=[*_opening(["Yugi", "Kaiba"]), TURN], headers=recorder)
    assert r.status_code == 422 and r.json()["rule"] == "LOG-03" and "game 1 of match" in r.json()["message"], r.text
    assert _events(client, duel, recorder) == []


def test_an_append_judged_before_the_game_end_in_another_process_is_judged_again_after_it(client, store):  # noqa: F811
    """LOG-03, race-safe: another process (a second store on the same file) holds the duel's head
    from before the match's concession and appends on it: its write meets the duel's end, written
    in the concession's transaction, and is judged again there: refused, nothing written."""
    one, duel, recorder, _judge = _begun(client)
    other = Store(store.path, concurrent=True)
    try:
        records = Records(other)
        count, _witnessed, _access = other.witnessed(duel["id"])      # the head held, as the table's process
        assert client.post(f"/matches/{one['match']}/concede", json={"player": 1},
                           headers=recorder).status_code == 200
        with pytest.raises(RuleViolation) as refused:
            records.append_records(duel["id"], [from_dict(DRAW_PHASE)], role="recorder")
        assert refused.value.rule == "LOG-03" and refused.value.index == count + 1, refused.value
        assert other.info(duel["id"]).events == count + 1
    finally:
        other.close()


# -- LOG-02, LOG-12: a correction is the other side's to confirm or dispute ---------------------------

from test_attack_25av import WITNESSED, YUGIS, _events as _made  # noqa: E402


def _corrected(tmp_path):
    """A witnessed duel: Yugi's device enters #6 and strikes it by its own correction (#7)."""
    kept = Store(str(tmp_path / "duels.sqlite"))
    records = Records(kept)
    duel = records.record(_made(*WITNESSED), "table 1", witnessed=True).id
    records.append(duel, _made(YUGIS), entered_by="p0")
    records.append(duel, _made({"kind": "entry_corrected", "to": 6, "reason": "mis-entry"}), entered_by="p0")
    return kept, records, duel


def _witness(kept: Store, duel: str) -> dict:
    from ygoreplay.cards import CardDB
    from ygoreplay.checking import witness_dict
    from ygoreplay.rules import audit
    return witness_dict(audit(kept.load(duel).events, CardDB.classic()).history)


@pytest.mark.parametrize("remark", [{"kind": "entry_confirmed", "on": 7},
                                    {"kind": "entry_disputed", "on": 7, "reason": "#6 was what was played"}])
def test_the_other_side_confirms_or_disputes_a_correction_the_record_marks_unconfirmed(tmp_path, remark):
    """LOG-12, LOG-02: the record marks Yugi's correction (#7) unconfirmed, the other side's to
    confirm; Kaiba's device confirms it (no longer unconfirmed) or disputes it (an open dispute,
    a call of the judge, as of any entry). Both were refused, so the mark could never go."""
    kept, records, duel = _corrected(tmp_path)
    with kept:
        assert 7 in _witness(kept, duel)["unconfirmed"]
        records.append(duel, _made(remark), entered_by="p1")
        said = _witness(kept, duel)
        if remark["kind"] == "entry_confirmed":
            assert 7 not in said["unconfirmed"], said
        else:                                     # as any entry disputed: open until a judge rules
            assert [(d["index"], d["by"], d["open"]) for d in said["disputed"]] == [(7, "p1", True)], said


def test_a_correction_is_not_its_correctors_to_confirm_nor_a_rollback_anyones(tmp_path):
    """LOG-05: Yugi confirms his own correction: refused. LOG-02: a judge's rollback stays
    no side's to confirm."""
    kept, records, duel = _corrected(tmp_path)
    with kept:
        with pytest.raises(RuleViolation) as own:
            records.append(duel, _made({"kind": "entry_confirmed", "on": 7}), entered_by="p0")
        assert own.value.rule == "LOG-05"
        records.append(duel, _made(YUGIS), entered_by="p0")                       # #8
        records.rollback(duel, 8, "Ann", "a wrong phase")                           # #9
        with pytest.raises(RuleViolation) as judges:
            records.append(duel, _made({"kind": "entry_confirmed", "on": 9}), entered_by="p1")
        assert judges.value.rule == "LOG-02" and "judge's rollback" in judges.value.message


# -- HEAD: every GET route's head, in one place ---------------------------------------------------

def _public_duel(client) -> dict:  # noqa: F811
    from test_release import ORGANISER, events_of
    made = client.post("/duels", json={"title": "table 4", "visibility": "public"}, headers=ORGANISER).json()
    assert client.post(f"/duels/{made['id']}/events", json=events_of("won-by-damage.jsonl")[:20],
                       headers=auth(made["tokens"]["recorder"])).status_code == 200
    return made


@pytest.mark.parametrize("path", ["/health", "/duels/{id}/state", "/duels/{id}/events", "/duels/{id}/frames",
                                  "/duels/{id}/replay.ygr", "/duels/{id}/verify"])
@pytest.mark.parametrize("who", ["spectator", "recorder", None])
def test_head_answers_as_get_without_its_body(client, path, who):  # noqa: F811
    """RFC 9110: HEAD is GET's answer without its body, for every GET route (it was 405): the
    same status and headers, ``Content-Length`` the GET body's, redacted for the same reader."""
    duel = _public_duel(client)
    url = path.format(id=duel["id"])
    headers = auth(duel["tokens"][who]) if who else {}
    got, head = client.get(url, headers=headers), client.head(url, headers=headers)
    assert head.status_code == got.status_code != 405, (head.status_code, got.text)
    assert head.content == b""
    # the GET's length as sent (a compressed body's encoded length): the head's the same
    assert head.headers["content-length"] == got.headers.get("content-length", str(len(got.content)))
    drop = {"date", "etag", "last-modified"}
    assert {k: v for k, v in head.headers.items() if k not in drop} == \
        {k: v for k, v in got.headers.items() if k not in drop}


def test_head_of_a_stream_is_its_head_and_does_not_hold_the_connection(client):  # noqa: F811
    """A HEAD of a duel's Server-Sent Events answers their head (200, text/event-stream) and ends:
    the stream is told its client has gone (a GET would follow the duel until it leaves)."""
    duel = _public_duel(client)
    head = client.head(f"/duels/{duel['id']}/follow", headers=auth(duel["tokens"]["spectator"]))
    assert head.status_code == 200 and head.headers["content-type"].startswith("text/event-stream")
    assert head.content == b""


# -- the board's header and a Korean particle ------------------------------------------------------

@pytest.mark.parametrize("language, header", [("ja", "プレイヤー 0（Yugi）"), ("zh-Hans", "（Yugi）"),
                                              ("zh-Hant", "（Yugi）")])
def test_the_boards_header_names_the_player_in_the_readers_brackets(language, header):
    """``show``'s board: the player's name aside in full-width brackets in Japanese and Chinese
    (``sentences.aside``), not a half-width ``(Yugi)``."""
    from pathlib import Path

    from ygoreplay import CardDB, read_events, replay
    from ygoreplay.i18n import using
    from ygoreplay.render import render
    events = read_events(Path(__file__).parent.parent / "replays" / "won-by-damage.jsonl")
    with using(language):
        board = render(replay(events, CardDB.classic(), at=12), width=120)
    assert header in board and "(Yugi)" not in board, board


@pytest.mark.parametrize("domain", ["ygoreplay", "pages"])
def test_a_card_shown_is_said_in_korean_without_a_particle_left_to_the_reader(domain):
    """"{card} is {name}" in Korean read "{card}은(는) {name}", both particles for the reader to
    choose from: said so the particle follows a word of its own (정체는), whatever the card."""
    from ygoreplay.i18n import catalogue
    said = catalogue("ko", domain)["{card} is {name}"]
    assert "(는)" not in said and "(" not in said, said


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_duels_end_written_with_another_streams_append_refuses_an_append_judged_before_it(tmp_path, backend):
    """LOG-03 across processes, on either store: the duel's end goes in with another stream's
    append (``Store.append_records``' ``others``, as a match's game end writes it), at the duel's
    head; a second process that read that head before appends on it and is judged again after
    the end: refused, nothing of it written."""
    from pathlib import Path

    from test_store import fresh_url
    from ygoreplay import read_events
    events = read_events(Path(__file__).parent.parent / "replays" / "won-by-damage.jsonl")
    with fresh_url(backend, tmp_path / "x.sqlite", "l18") as url, Store(url) as writer, Store(url) as table:
        duel = Records(writer).record(events[:20], "game 1").id
        other = Records(writer).record(events[:19], "the match, as it were").id
        assert table.witnessed(duel) == (20, False, None)             # the table's process holds 20
        closed: dict = {}
        writer.append_records(other, events[19:20], expected_position=19, written_others=closed,
                              others=[(duel, [from_dict({"kind": "duel_ended", "winner": 0, "reason": "judge"})], 20)])
        assert [r.event.kind for r in closed[duel]] == ["duel_ended"]
        with pytest.raises(RuleViolation) as refused:
            Records(table).append_records(duel, events[20:21], role="recorder")
        assert refused.value.rule == "LOG-03" and refused.value.index == 21
        assert table.info(duel).events == 21 and writer.verify(duel).ok
