"""A match's refusals and a match file's export refusal in the reader's language: MATCH rules
said with ``say`` (recorded in English, translated where shown), and ``trust.signable``'s every
phrase catalogued, so a refusal read in Japanese or Chinese is not half English."""
from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx

from test_match_service import MATCHES, create, lines, post, service  # noqa: F401  (fixture)
from test_service import ADMIN, auth
from ygoreplay.match import events as _match_events  # noqa: F401  (a match file's kinds: registered)
from ygoreplay.replay_file import dumps, loads, sign
from ygoreplay.signing import OrganiserKey

ROOT = Path(__file__).resolve().parent.parent


def test_a_match_07_refusal_over_http_is_translated_with_lang(service):
    """MATCH-07: the loser of duel 1 chooses in duel 2. Asked with ``?lang=ja`` the refusal keeps
    its English ``message`` (what scripts match on) and gives ``message_translated`` in Japanese."""
    base = service.url
    match = create(base, lines(MATCHES / "two-nil.jsonl"))
    m, token = match["id"], match["tokens"]["recorder"]
    post(base, f"/matches/{m}/games", token, {"first_player": 0, "chosen_by": 0}, 201)
    post(base, f"/matches/{m}/games/1/end", token, {"winner": 0, "how": "lp"})
    r = httpx.post(f"{base}/matches/{m}/games?lang=ja", json={"first_player": 0, "chosen_by": 0}, headers=auth(token))
    assert r.status_code == 422, r.text
    refusal = r.json()
    assert refusal["rule"] == "MATCH-07"
    assert refusal["message"] == "player 1 lost duel 1, so they choose who goes first in duel 2, not player 0"
    assert refusal["message_translated"] == ("プレイヤー1がデュエル1に負けたので、デュエル2の先攻・後攻はそのプレイヤーが"
                                             "選ぶ。プレイヤー0ではない")


def _export(*args: str, cwd: Path, key: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_DATA_HOME": str(cwd / "xdg"), "HOME": str(cwd), "YGOREPLAY_KEY": str(key),
           "PYTHONPATH": str(ROOT)}                                # this tree's ygoreplay, wherever run from
    return subprocess.run([sys.executable, "-m", "ygoreplay", "export", *args], cwd=cwd, capture_output=True,
                          text=True, env=env)


def _english_words(text: str, *allowed: str) -> list[str]:
    """The Latin words of ``text`` once the names it quotes (a file, a key, its fingerprint) are
    taken out."""
    for name in allowed:
        text = text.replace(name, "")
    return re.findall(r"[A-Za-z]{3,}", re.sub(r"--key \S+|[0-9a-f]{16}", "", text))


def test_exporting_a_forged_match_file_refuses_wholly_in_chinese(tmp_path):
    """``trust.signable`` translated its template but filled it with English: "it is signed by key
    …, which is not a key trusted here", "its hash chain is broken", "duel 1"."""
    key = OrganiserKey.generate()
    key_path = tmp_path / "organiser.key"
    key_path.write_bytes(key.to_pem())
    key_path.chmod(0o600)            # as ``keys`` makes one: a key others may read is warned about
    (tmp_path / "duels").mkdir()
    for duel in (MATCHES / "duels").glob("*.jsonl"):
        (tmp_path / "duels" / duel.name).write_bytes(duel.read_bytes())
    (tmp_path / "m.jsonl").write_bytes((MATCHES / "two-nil.jsonl").read_bytes())
    made = _export("m.jsonl", "-o", "m.ygr", cwd=tmp_path, key=key_path)
    assert made.returncode == 0, made.stderr
    match = loads((tmp_path / "m.ygr").read_bytes())
    unsigned = dumps(match)

    # re-signed by a key not trusted here
    (tmp_path / "forged.ygr").write_bytes(sign(unsigned, OrganiserKey.generate()))
    out = _export("forged.ygr", "-o", "out.ygr", "--lang", "zh-Hans", cwd=tmp_path, key=key_path)
    assert out.returncode != 0 and not (tmp_path / "out.ygr").exists()
    assert "无法再次导出" in out.stderr and "但它不是此处信任的密钥" in out.stderr, out.stderr
    assert _english_words(out.stderr, "forged.ygr") == [], out.stderr

    # signed by us, but duel 1 inside it altered: its chain no longer holds
    duel = loads(match.games[0])
    events = list(duel.events)
    index = next(i for i, e in enumerate(events) if e.kind == "life_points_changed")
    events[index] = dataclasses.replace(events[index], amount=events[index].amount + 1)
    broken = dataclasses.replace(duel, events=events)           # its chain as it was: no longer holds
    forged = dataclasses.replace(match, games=[dumps(broken, key), *match.games[1:]])
    (tmp_path / "inner.ygr").write_bytes(dumps(forged, key))
    out = _export("inner.ygr", "-o", "out.ygr", "--lang", "zh-Hans", cwd=tmp_path, key=key_path)
    assert out.returncode != 0 and not (tmp_path / "out.ygr").exists()
    assert "第1局决斗" in out.stderr and "哈希链已损坏" in out.stderr, out.stderr
    assert _english_words(out.stderr, "inner.ygr") == [], out.stderr


# -- the LOG, TIME, DECK and WIN refusals of the match fold -------------------------------------------

def _refusal(events: list) -> str:
    from test_match import DB
    from ygoreplay.match.rules import fold
    from ygoreplay.rules import RuleViolation
    try:
        fold(events, DB)
    except RuleViolation as refused:
        return refused.rule, refused.message
    raise AssertionError("not refused")


def _no_english(text: str) -> list[str]:
    """The English words left in a translated refusal, its event kinds, stage names, policy names
    and the rule IDs it cites (what the record and scripts name as they are) taken out."""
    kept = re.sub(r"sha256:[0-9a-f]+|\b[a-z]+(?:_[a-z]+)+\b|\b[A-Z]+-\d+\b|tcg-2024|ocg-2024|\bstage\b|\bLP\b|\blp\b|\bdraw\b|"
                  r"\bgames\b|\btime\b", "", text)
    return re.findall(r"[A-Za-z]{3,}", kept)


def test_the_match_folds_log_time_deck_and_win_refusals_are_said_in_the_readers_language():
    """LOG-03/05, TIME-02/03/04/05/08, DECK-02/09 and WIN-04 were English f-strings no catalogue
    held: ``said`` gave them back in English (MATCH-01..10 were catalogued the pass before). Each
    is recorded in English as before and said whole in Japanese, Korean and both Chinese — the
    nested results of a TIME-04 ("player 0 wins", "a draw") and a MATCH-02 mismatch included."""
    from test_match import LIMITS, at_time, ev, extra, game, opening
    from ygoreplay.i18n import said, using
    from ygoreplay.match.rules import limits_hash
    cases = {
        "LOG-05": opening() + [ev("game_started", game=2, duel="", first_player=0, chosen_by=0)],
        "LOG-03": at_time("tcg-2024") + [ev("time_called", clock="2025-12-06T10:41:00Z", game=2, turn=5,
                                             phase="main1", turn_player=1)],
        "TIME-08": opening() + [ev("game_started", game=1, duel="", first_player=0, chosen_by=0, extra_duel=True)],
        "TIME-03": at_time("tcg-2024") + [ev("extra_turn_started", game=2, n=1, turn=5)],
        "TIME-04": at_time("tcg-2024") + extra() + [ev("game_decided", game=2, lp=[1, 0], winner=1,
                                                       stage="extra_turns")],
        "WIN-04": opening() + [ev("game_started", game=1, duel="", first_player=0, chosen_by=0),
                               ev("game_ended", game=1, winner=0, how="draw")],
        "DECK-09": [ev("match_started", players=["Yugi", "Kaiba"], policy="tcg-2024", banlist="L",
                       banlist_hash=limits_hash(LIMITS[:1]), limits=LIMITS)],
        "MATCH-02": opening() + game(1, 0) + game(2, None, 1, 1) + game(3, 1, 0, 1) + [
            ev("match_ended", winner=0, how="games", games=[1, 1, 1], points=[3, 0])],
    }
    english = {rule: _refusal(events) for rule, events in cases.items()}
    assert {rule: found for rule, (found, _) in english.items()} == {rule: rule for rule in cases}
    assert english["TIME-04"][1] == "at LP 1 / 0 player 0 wins, not player 1"          # recorded as before
    assert english["LOG-05"][1] == "this is duel 1 of the match, not duel 2"
    for language in ("ja", "ko", "zh-Hans", "zh-Hant"):
        with using(language):
            for rule, (_, message) in english.items():
                translated = said(message)
                assert translated != message and _no_english(translated) == [], (language, rule, translated)
    with using("ja"):
        assert said(english["TIME-04"][1]) == "LP 1 / 0ではプレイヤー0の勝ちで、プレイヤー1の勝ちではない"
        assert said(english["LOG-05"][1]) == "これはマッチのデュエル1で、デュエル2ではない"


def test_a_time_refusal_over_http_is_translated_with_lang(service):
    """TIME over HTTP: a second time call is refused (LOG-03) with its English ``message`` kept
    and ``message_translated`` in Japanese; it was English in both."""
    base = service.url
    match = create(base, lines(MATCHES / "two-nil.jsonl"))
    m, token = match["id"], match["tokens"]["recorder"]
    post(base, f"/matches/{m}/games", token, {"first_player": 0, "chosen_by": 0}, 201)
    called = {"clock": "2025-12-06T10:40:00Z", "turn": 3, "phase": "main1", "turn_player": 0}
    post(base, f"/matches/{m}/time", token, called)
    r = httpx.post(f"{base}/matches/{m}/time?lang=ja", json=called, headers=auth(token))
    assert r.status_code == 422, r.text
    assert r.json()["rule"] == "LOG-03" and r.json()["message"] == "time is called once in a match"
    assert r.json()["message_translated"] == "タイムの宣言はマッチで一度だけ"


def test_a_match_link_refusal_reads_in_the_readers_language_and_keeps_its_english_error(service):
    """``match.commands`` refused in English f-strings only: a private duel offered to a public
    match (``access.linkable_into``), asked with ``?lang=ja``, answered wholly in English. Now
    ``error`` stays the English (what scripts match on) and ``message_translated`` says it in the
    reader's language, the visibilities too; a refusal of who may write, in Korean, the same."""
    base = service.url
    match = create(base, lines(MATCHES / "two-nil.jsonl"), visibility="public")
    m, token = match["id"], match["tokens"]["recorder"]
    duel = httpx.post(f"{base}/duels", json={"title": "table 9", "visibility": "private"},
                      headers=auth(ADMIN)).json()
    r = httpx.post(f"{base}/matches/{m}/games?lang=ja", headers=auth(token),
                   json={"duel": duel["id"], "duel_token": duel["tokens"]["recorder"]})
    assert r.status_code == 409, r.text
    refusal = r.json()
    assert refusal["where"] == "duel"
    assert refusal["error"] == refusal["message"] == (
        f"duel {duel['id']} is private and the match is public: the match would show its events to spectators "
        "the duel does not have, so it cannot be linked")
    assert refusal["message_translated"] == (
        f"デュエル{duel['id']}は非公開で、マッチは公開：マッチがそのデュエルにいない観戦者にもイベントを見せてしまうので、"
        "紐付けられない")
    started = {"kind": "game_started", "game": 1, "duel": "", "first_player": 0, "chosen_by": 0}
    r = httpx.post(f"{base}/matches/{m}/events?lang=ko", json=[started], headers=auth(match["tokens"]["spectator"]))
    assert r.status_code == 403, r.text
    assert r.json()["message_translated"].startswith("spectator 토큰은 game_started을(를) 쓸 수 없다 (쓸 수 있는 토큰: ")
    assert _english_words(r.json()["message_translated"], "spectator", "game_started", "organiser", "recorder",
                          "judge") == [], r.json()
