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
from test_service import auth
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
