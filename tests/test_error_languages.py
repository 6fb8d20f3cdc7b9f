"""The store's errors, a verification's reasons, a malformed match event and FastAPI's request
validation in the reader's language (issue 27): the English stays what scripts match on (the CLI
in English, ``error``/``message`` in JSON, the verdict's ``problem``), and the reader of another
language gets it said from the catalogue (``message_translated``, ``problem_translated``), with a
stable ``code`` beside each validation problem."""
from __future__ import annotations

import re
import sqlite3

import msgpack
import pytest
from click.testing import CliRunner

from conftest import ROOT
from ygoreplay.cli import main
from ygoreplay.jsonl import read_events
from ygoreplay.store import Store

QUIET = {"YGOREPLAY_LANG": "", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": ""}
SAMPLE = ROOT / "replays" / "won-by-damage.jsonl"
MATCH = ROOT / "replays" / "matches" / "two-nil.jsonl"
ADMIN = "error-languages-admin"


def _latin_words(text: str, *names: str) -> list[str]:
    """The English words left in ``text`` once the names it quotes (paths, ids) are taken out."""
    for name in names:
        text = text.replace(name, "")
    return re.findall(r"[A-Za-z]{4,}", text)


def test_a_store_error_is_said_in_the_language_asked_and_stays_english_in_english(tmp_path):
    folder = tmp_path / "not-a-store"
    folder.mkdir()
    runner = CliRunner()
    english = runner.invoke(main, ["show", "0123456789ab", "--store", str(folder)], env=QUIET)
    assert english.exit_code == 2 and f"error: {folder} is a folder, not a store file" in english.stderr
    ja = runner.invoke(main, ["show", "0123456789ab", "--store", str(folder), "--lang", "ja"], env=QUIET)
    assert ja.exit_code == 2 and f"エラー: {folder} はストアファイルではなくフォルダー" in ja.stderr
    missing = tmp_path / "none.sqlite"
    ko = runner.invoke(main, ["show", "0123456789ab", "--store", str(missing)], env={**QUIET, "LANG": "ko_KR.UTF-8"})
    assert ko.exit_code == 2 and f"{missing}에 스토어가 없다" in ko.stderr
    assert not _latin_words(ko.stderr, str(missing))


def _altered_store(tmp_path) -> tuple[str, str]:
    """A store holding the sample whose event 3 was rewritten in the database: (store, duel)."""
    path = str(tmp_path / "altered.sqlite")
    with Store(path) as store:
        duel, _count, _violation = store.record(read_events(SAMPLE), "altered")
    conn = sqlite3.connect(path)
    state = conn.execute("SELECT state FROM stored_events WHERE originator_id = ? AND originator_version = 4",
                         (duel,)).fetchone()[0]
    env = msgpack.unpackb(state)
    env["t"] = "1999-01-01T00:00:00Z"        # its time changed: the chain's hash no longer holds
    conn.execute("UPDATE stored_events SET state = ? WHERE originator_id = ? AND originator_version = 4",
                 (msgpack.packb(env), duel))
    conn.commit()
    conn.close()
    return path, duel


def test_verify_says_where_and_why_a_record_is_broken_in_the_readers_language(tmp_path):
    path, duel = _altered_store(tmp_path)
    runner = CliRunner()
    english = runner.invoke(main, ["verify", duel, "--store", path], env={**QUIET, "HOME": str(tmp_path)})
    assert english.exit_code == 1 and f"{duel}: BROKEN at event 3: event 3 was altered" in english.stdout
    zh = runner.invoke(main, ["verify", duel, "--store", path, "--lang", "zh-Hans"], env={**QUIET, "HOME": str(tmp_path)})
    assert zh.exit_code == 1 and f"{duel}：在 事件 3 处损坏：事件 3 被篡改" in zh.stdout
    ja = runner.invoke(main, ["verify", duel, "--store", path, "--lang", "ja"], env={**QUIET, "HOME": str(tmp_path)})
    assert f"{duel}：イベント 3 で破損：イベント 3 が改ざんされた" in ja.stdout
    assert "was altered" not in zh.stdout and "BROKEN" not in zh.stdout


@pytest.fixture
def client(tmp_path):
    from fastapi.testclient import TestClient

    from ygoreplay.access import digest
    from ygoreplay.service import create_app
    store = Store(str(tmp_path / "service.sqlite"), concurrent=True)
    with TestClient(create_app(store, digest(ADMIN))) as client:
        yield client


def _auth() -> dict:
    return {"Authorization": f"Bearer {ADMIN}"}


def test_a_conflict_over_http_keeps_the_english_and_says_it_in_the_readers_language(client):
    duel = client.post("/duels", json={"title": "conflict"}, headers=_auth()).json()["id"]
    events = [e.to_dict() for e in read_events(SAMPLE)[:2]]
    english = client.post(f"/duels/{duel}/events?expected=3", json=events, headers=_auth())
    assert english.status_code == 409 and "message_translated" not in english.json()
    ja = client.post(f"/duels/{duel}/events?expected=3&lang=ja", json=events, headers=_auth())
    assert ja.status_code == 409
    answer = ja.json()
    assert answer["error"] == answer["message"] == english.json()["error"]
    assert answer["message_translated"] != answer["error"] and "デュエル" in answer["message_translated"]
    assert not _latin_words(answer["message_translated"], duel)


def test_a_verdict_over_http_gives_its_problem_in_the_readers_language(tmp_path):
    from fastapi.testclient import TestClient

    from ygoreplay.access import digest
    from ygoreplay.service import create_app
    path, duel = _altered_store(tmp_path)
    with TestClient(create_app(Store(path, concurrent=True), digest(ADMIN))) as client:
        english = client.get(f"/duels/{duel}/verify", headers=_auth()).json()
        assert english["ok"] is False and english["problem"] == "the record fails verification"
        assert "problem_translated" not in english
        ko = client.get(f"/duels/{duel}/verify?lang=ko", headers=_auth()).json()
        assert ko["problem"] == english["problem"] and ko["problem_translated"] == "기록이 검증에 실패했다"


@pytest.mark.parametrize("language, said", [
    ("ja", "0 以上でなければならない"), ("ko", "0 이상이어야 한다"), ("zh-Hans", "必须大于或等于 0"),
    ("zh-Hant", "必須大於或等於 0")])
def test_request_validation_answers_in_the_readers_language_with_a_stable_code(client, language, said):
    """FastAPI's validation (pydantic's English only): each problem keeps its place (``where``)
    and pydantic's English (``error``), gains its error type as ``code``, and says it in the
    request's language (``message_translated``)."""
    duel = client.post("/duels", json={"title": "validation"}, headers=_auth()).json()["id"]
    english = client.post(f"/duels/{duel}/events?expected=-1", json=[], headers=_auth())
    assert english.status_code == 400
    problem = english.json()["problems"][0]
    assert problem == {"where": "query.expected", "code": "greater_than_equal", "error": problem["error"]}
    assert english.json()["code"] == "invalid_request" and "message_translated" not in english.json()
    asked = client.post(f"/duels/{duel}/events?expected=-1", json=[], headers={**_auth(), "Accept-Language": language})
    assert asked.status_code == 400 and asked.headers["content-language"] == language
    translated = asked.json()["problems"][0]
    assert translated == {**problem, "message_translated": said}
    assert asked.json()["message_translated"] == f"query.expected: {said}"
    missing = client.get(f"/duels/{duel}/diff?b=1&lang={language}", headers=_auth())
    assert missing.status_code == 400
    gone = missing.json()["problems"][0]
    assert gone["where"] == "query.a" and gone["code"] == "missing" and not _latin_words(gone["message_translated"])
    wrong = client.get(f"/duels/{duel}/diff?a=x&b=1&lang={language}", headers=_auth()).json()["problems"][0]
    assert wrong["code"] == "int_parsing" and not _latin_words(wrong["message_translated"])


def _bad_match(tmp_path, old: str, new: str):
    text = MATCH.read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(text) if line.startswith("{"))
    path = tmp_path / "bad-match.jsonl"
    path.write_text(text[first].replace(old, new, 1) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("old, new, english, chinese", [
    ('"players"', '"playerz"', "match_started: unknown field(s) 'playerz'", "match_started：未知欄位 'playerz'"),
    ('"limit": 0', '"limit": 7', "match_started.limits[0]: a banlist limit is 0 to 3 copies, got 7",
     "match_started.limits[0]: 禁限卡表的限制為0到3張，收到的是 7")])
def test_a_malformed_match_event_is_said_in_the_readers_language(tmp_path, old, new, english, chinese):
    path = _bad_match(tmp_path, old, new)
    runner = CliRunner()
    en = runner.invoke(main, ["match", "result", str(path)], env=QUIET)
    assert en.exit_code == 2 and english in en.stderr
    zh = runner.invoke(main, ["match", "result", str(path), "--lang", "zh-Hant"], env=QUIET)
    assert zh.exit_code == 2 and chinese in zh.stderr and english not in zh.stderr


def test_a_malformed_match_over_http_keeps_the_english_and_translates_it(client):
    from test_match_service import lines, match_body
    body = match_body(lines(MATCH))
    body["banlist"]["limits"] = [{"code": 55144522, "limit": 7}]
    answer = client.post("/matches?lang=ja", json=body, headers=_auth())
    assert answer.status_code == 400, answer.text
    data = answer.json()
    assert "a banlist limit is 0 to 3 copies, got 7" in data["error"]
    assert "リミットレギュレーションの制限は0〜3枚、受け取ったのは 7" in data["message_translated"]


def test_match_show_says_its_labels_in_the_readers_language():
    ja = CliRunner().invoke(main, ["show", str(MATCH), "--lang", "ja"], env=QUIET)
    assert ja.exit_code == 0, ja.output
    assert "マッチ：Yugi（プレイヤー0）対 Kaiba（プレイヤー1）" in ja.stdout
    assert "デッキ 0：メイン 40、エクストラ 2、サイド 5" in ja.stdout and "Yugi の勝ち" in ja.stdout
    for word in ("match:", "policy:", "banlist:", "deck 0", "won by", "result:", "first;"):
        assert word not in ja.stdout
    english = CliRunner().invoke(main, ["show", str(MATCH)], env=QUIET)
    assert "match: Yugi (player 0) vs Kaiba (player 1)" in english.stdout and "won by Yugi" in english.stdout


def test_a_malformed_pairings_file_is_refused_in_the_readers_language(tmp_path):
    pairings = tmp_path / "round3.csv"
    pairings.write_text("1,Yugi,Yugi\n", encoding="utf-8")
    args = ["round", "create", str(pairings), "--event", "Locals", "--round", "3", "--store", str(tmp_path / "s.sqlite")]
    runner = CliRunner()
    english = runner.invoke(main, args, env={**QUIET, "HOME": str(tmp_path)})
    assert english.exit_code == 2 and "line 1: Yugi cannot play themselves" in english.stderr
    ko = runner.invoke(main, [*args, "--lang", "ko"], env={**QUIET, "HOME": str(tmp_path)})
    assert ko.exit_code == 2 and "Yugi는 자기 자신과 대전할 수 없다" in ko.stderr, ko.stderr
