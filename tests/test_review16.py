"""Review of the sixteenth pass (issue 25): what the merged branches left, each fix on its own."""
from __future__ import annotations

import threading

from ygoreplay.cards import CardDB
from ygoreplay.service import reference

from test_release import client, store  # noqa: F401  (fixtures)


def test_cards_json_languages_without_names_share_the_english_body(monkeypatch):
    """``/cards.json`` per language (scorekeeper16): a language with no names installed built
    the same English rows again (some 2 s of CPU) and kept one more copy of them, per language
    a client asked in (five with the catalogue's: ``?lang=`` or Accept-Language)."""
    monkeypatch.setattr(reference, "_rows", {})       # cold: none made yet
    cards = CardDB.classic()
    english = reference._card_rows(cards, "en")
    for language in ("ja", "ko", "zh-Hans", "zh-Hant"):
        assert reference._card_rows(cards, language)[0] is english[0], language


def test_cards_json_requests_at_once_build_the_body_once(monkeypatch):
    """Requests arriving together for a body not made yet each built it on a thread of the pool
    (a cold start, or a client asking 40 times at once: 40 builds of ~2 s CPU on a 2-core
    machine); the second now waits for the first's."""
    monkeypatch.setattr(reference, "_rows", {})
    cards = CardDB.classic()
    compress = reference.gzip.compress
    together = threading.Barrier(2, timeout=5)     # both builds under way at once: only without a lock
    built: list[int] = []

    def counted(data: bytes, *args, **kwargs) -> bytes:
        built.append(len(data))
        try:
            together.wait()
        except threading.BrokenBarrierError:
            pass
        return compress(data, *args, **kwargs)
    monkeypatch.setattr(reference.gzip, "compress", counted)
    answers: list[tuple] = []
    threads = [threading.Thread(target=lambda: answers.append(reference._card_rows(cards, "en"))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(built) == 1 and answers[0][0] is answers[1][0], built


def test_only_cards_json_varies_with_the_readers_language(client):  # noqa: F811
    """scorekeeper16 made every public cached answer say ``Vary: Accept-Language`` (one helper):
    an event schema and a page catalogue are the same in every language, and a shared cache kept
    a copy of each per browser's Accept-Language."""
    for path in ("/schemas/event.json", "/schemas/events/card_moved.json", "/i18n/ja.json"):
        assert client.get(path, headers={"Accept-Language": "ko"}).headers["vary"] == "Accept-Encoding", path
    assert "Accept-Language" in client.get("/cards.json").headers["vary"]


def test_a_board_past_the_view_is_refused_in_the_readers_language(client):  # noqa: F811
    """/state, /diff and the board images past what the view sees answered in English only
    (``duels._count`` was left out of i18n16's ``say``, its /frames twin was not); the English
    ``error`` stays as scripts read it."""
    from test_service import auth
    from test_service_table_recording import ORGANISER, at_the_table
    duel, recorder = at_the_table(client)
    past = client.get(f"/duels/{duel['id']}/state", params={"at": 999, "lang": "ja"}, headers=auth(recorder))
    assert past.status_code == 404 and past.json()["error"] == "this view may see events #0..#8, not #999"
    assert past.json()["message_translated"] == "このビューが見られるのはイベント #0..#8。#999 ではない", past.text
    empty = client.post("/duels", json={"title": "t"}, headers=ORGANISER).json()
    none = client.get(f"/duels/{empty['id']}/state", params={"at": 0, "lang": "zh-Hant"},
                      headers=auth(empty["tokens"]["recorder"]))
    assert none.status_code == 404 and none.json()["message_translated"] == "此視角還沒有可查看的事件", none.text


def test_a_matchs_judge_is_refused_a_what_if_its_token_cannot_open(client):  # noqa: F811
    """MATCH-08, scorekeeper16's *What if: branch before this*: a match's judge token (the match
    page links each game with it) made the branch (201), then the page opened it with that token:
    404, a what-if nobody at the table could open (a match's token opens its duels, not their
    branches). Now refused before anything is made; the duel's own judge branches as before."""
    from test_attack_25ag import MATCHES, WON, lines, match_body
    from test_service import auth
    from test_service_table_recording import ORGANISER
    duel = client.post("/duels", json={"title": "game 1"}, headers=ORGANISER).json()
    assert client.post(f"/duels/{duel['id']}/events", json=WON[:18],
                       headers=auth(duel["tokens"]["recorder"])).status_code == 200
    match = client.post("/matches", json=match_body(lines(MATCHES / "two-nil.jsonl")), headers=ORGANISER).json()
    assert client.post(f"/matches/{match['id']}/games", headers=auth(match["tokens"]["recorder"]),
                       json={"duel": duel["id"], "duel_token": duel["tokens"]["recorder"], "first_player": 0,
                             "chosen_by": 0}).status_code == 201
    by_match = client.post(f"/duels/{duel['id']}/branch", json={"at": 10}, headers=auth(match["tokens"]["judge"]))
    assert by_match.status_code == 403 and "what-if branches" in by_match.json()["error"], by_match.text
    assert [d["id"] for d in client.get(f"/duels/{duel['id']}/tree", headers=ORGANISER).json()] == [duel["id"]]
    own = client.post(f"/duels/{duel['id']}/branch", json={"at": 10}, headers=auth(duel["tokens"]["judge"]))
    assert own.status_code == 201, own.text
    assert client.get(f"/duels/{own.json()['id']}/frames", headers=auth(duel["tokens"]["judge"])).status_code == 200
