"""Reading a duel in the OCG's own languages (issue 27): the log, the board, the rules and their
seed text, card names from a localized database, the service's ?lang= and Accept-Language — and
the language never changes what is recorded."""
from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT, shared_path
from ygoreplay import i18n
from ygoreplay.card_names import card_name, write_names
from ygoreplay.card_sources import card_lookup, facts_of
from ygoreplay.cards import CardDB, CardFacts, CardType
from ygoreplay.cli import main
from ygoreplay.jsonl import read_events
from ygoreplay.log import judge_steps, log_lines, narrate
from ygoreplay.match.rules import fold as match_fold
from ygoreplay.match.sentences import sentence
from ygoreplay.render import render
from ygoreplay.rules import History
from ygoreplay.rules.coverage import RULES, TABLE

OTHERS = [language for language in i18n.LANGUAGES if language != i18n.DEFAULT]
DUELS = sorted((ROOT / "replays").glob("*.jsonl"))
MATCHES = sorted((ROOT / "replays" / "matches").glob("*.jsonl"))
LATIN_WORDS = re.compile(r"\b(activates|draws|Summons|attacks|destroyed|resolves|Phase|negated|begins|"
                         r"registers|shuffles|takes|passes|Chain Link|cards?)\b")


def _entries(path: Path, language: str) -> list:
    events = read_events(path)
    with i18n.using(language):
        return list(narrate(judge_steps(events, facts_of(events, card_lookup(())))))


@pytest.mark.parametrize("language", OTHERS)
@pytest.mark.parametrize("path", DUELS, ids=lambda p: p.name)
def test_every_sample_log_reads_in_each_language_with_no_english_sentence_left(path, language):
    english, translated = _entries(path, "en"), _entries(path, language)
    assert [e.kind for e in english] == [e.kind for e in translated]
    for before, after in zip(english, translated):
        assert after.text != before.text, f"#{after.index} {after.kind} untranslated in {language}: {after.text}"
        # what is left in Latin letters is names and values (and what a player or judge wrote),
        # never the sentence's own words
        said = after.text
        for value in after.event.to_dict().values():
            if isinstance(value, str) and len(value) > 3:
                said = said.replace(value, "")
        leftover = LATIN_WORDS.findall(said)
        assert not leftover, f"#{after.index} {after.kind} in {language}: {after.text}"
    with i18n.using(language):
        lines = list(log_lines(translated))
    assert len(lines) == len(list(log_lines(english)))


@pytest.mark.parametrize("language", OTHERS)
@pytest.mark.parametrize("path", MATCHES, ids=lambda p: p.name)
def test_every_sample_match_log_reads_in_each_language(path, language):
    events = read_events(path)
    state = match_fold(events, CardDB.classic(), audit=True)
    english = [sentence(ev, state) for ev in events]
    with i18n.using(language):
        translated = [sentence(ev, state) for ev in events]
    assert all(a != b for a, b in zip(english, translated)), list(zip(english, translated))


@pytest.mark.parametrize("language", OTHERS)
def test_the_board_prints_its_labels_in_the_readers_language(language):
    events = read_events(ROOT / "replays" / "won-by-damage.jsonl")
    history = History(facts_of(events, card_lookup(())), audit=True)
    for event in events[:31]:
        history.append(event)
    english = render(history.state)
    with i18n.using(language):
        board = render(history.state)
    assert english != board
    assert "hand 5" in english and "hand 5" not in board and "Player 1" not in board


def test_the_cli_reads_the_log_in_the_language_asked_and_refuses_an_unknown_one():
    sample = str(ROOT / "replays" / "won-by-damage.jsonl")
    runner = CliRunner()
    zh = runner.invoke(main, ["log", sample, "--lang", "zh"])
    assert zh.exit_code == 0 and "主要阶段1" in zh.stdout and "Main Phase 1" not in zh.stdout
    assert i18n.current() == "en"                       # a command's language ends with it
    ja = runner.invoke(main, ["--lang", "ja", "log", sample])
    assert ja.exit_code == 0 and "メインフェイズ1" in ja.stdout
    env = runner.invoke(main, ["log", sample], env={"YGOREPLAY_LANG": "", "LANGUAGE": "", "LC_ALL": "",
                                                    "LC_MESSAGES": "", "LANG": "ko_KR.UTF-8"})
    assert env.exit_code == 0 and "메인 페이즈 1" in env.stdout
    bad = runner.invoke(main, ["log", sample, "--lang", "klingon"])
    assert bad.exit_code == 2 and "zh-Hans" in bad.output and "Traceback" not in bad.output


# -- the rules, and the seed text they were distilled from ---------------------------------------

def test_every_rule_summary_is_translated_in_every_language():
    for language in OTHERS:
        missing = [rule.id for rule in TABLE if not i18n.catalogue(language).get(rule.summary)]
        assert not missing, f"{language}: {missing[:10]}"


def test_rules_sum_04_in_chinese_prints_the_summary_and_quotes_the_seed_text():
    seeds = shared_path("seeds")
    result = CliRunner().invoke(main, ["rules", "SUM-04", "--lang", "zh", "--seeds", str(seeds)])
    assert result.exit_code == 0, result.output
    first, *quotes = result.stdout.splitlines()
    assert first.startswith("SUM-04 按等级解放")
    assert quotes and all(q.strip().startswith("「") for q in quotes)
    assert any("7星以上" in q and "解放" in q for q in quotes)                 # the seed's own words


def test_a_rule_with_a_key_phrase_is_quoted_from_each_seed_file_that_has_it():
    from ygoreplay.explain import seed_quotes
    seeds = shared_path("seeds")
    quotes = seed_quotes(RULES["GEN-01"], seeds)
    assert {q.file for q in quotes} == {"001_b8709a3ee4dd36db.txt", "003_3c666cbf16f14d6b.txt"}
    assert "以卡的效果優先" in quotes[0].text and "以卡的效果优先" in quotes[1].text
    assert not re.search(r"\([a-zāáǎàēéěèīíǐìōóǒòūúǔù]+\)", quotes[0].text)     # no pinyin mojibake


def test_rules_without_seeds_print_the_summary_alone_and_json_keeps_its_keys(tmp_path):
    result = CliRunner().invoke(main, ["rules", "GEN-01", "--lang", "ja", "--json", "--seeds", str(tmp_path)])
    data = json.loads(result.stdout)["rules"][0]
    assert data["id"] == "GEN-01" and data["status"] == "enforced" and data["seed_quotes"] == []
    assert data["summary"] == i18n.t_in("ja", RULES["GEN-01"].summary) != RULES["GEN-01"].summary
    missing = CliRunner().invoke(main, ["rules", "GEN-01", "--seeds", str(tmp_path / "none")])
    assert missing.exit_code == 2


# -- card names in the reader's language -------------------------------------------------------------

def _facts(code: int, name: str, alias: int = 0) -> CardFacts:
    return CardFacts(code=code, name=name, type=int(CardType.MONSTER | CardType.NORMAL), alias=alias)


def test_a_card_name_in_the_readers_language_falls_back_to_english_then_the_passcode(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert write_names("zh-Hans", [(89631139, "青眼白龙"), (1, "")]) == 1
    blue_eyes, artwork = _facts(89631139, "Blue-Eyes White Dragon"), _facts(89631140, "Blue-Eyes", alias=89631139)
    with i18n.using("zh-Hans"):
        assert card_name(blue_eyes) == "青眼白龙" and card_name(artwork) == "青眼白龙"
        assert card_name(_facts(46986414, "Dark Magician")) == "Dark Magician"      # not in the names: English
        assert card_name(None, 46986414) == "Card 46986414"                          # no facts: the passcode
    with i18n.using("zh-Hant"):
        assert card_name(blue_eyes) == "Blue-Eyes White Dragon"                      # no names installed
    assert card_name(blue_eyes) == "Blue-Eyes White Dragon"


def _small_cdb(path: Path, names: dict[int, str]) -> Path:
    with sqlite3.connect(path) as conn:
        conn.execute("create table datas (id integer primary key, ot integer, alias integer, setcode integer, "
                     "type integer, atk integer, def integer, level integer, race integer, attribute integer, "
                     "category integer)")
        conn.execute("create table texts (id integer primary key, name text, desc text, "
                     + ", ".join(f"str{i} text" for i in range(1, 17)) + ")")
        for code, name in names.items():
            conn.execute("insert into datas values (?, 3, 0, 0, 17, 1000, 1000, 4, 1, 1, 0)", (code,))
            conn.execute("insert into texts (id, name, desc) values (?, ?, '')", (code, name))
    conn.close()
    return path


def test_cards_update_with_lang_installs_names_the_log_and_search_read(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    events = read_events(ROOT / "replays" / "won-by-damage.jsonl")
    english = facts_of(events, card_lookup(()))
    runner = CliRunner()
    english_log = runner.invoke(main, ["log", str(ROOT / "replays" / "won-by-damage.jsonl")]).stdout
    codes = [code for code in sorted(english) if english[code].name in english_log]
    chinese = {code: f"中文卡{code}" for code in codes[:-1]}                        # the last one stays English
    cdb = _small_cdb(tmp_path / "zh.cdb", chinese)
    installed = runner.invoke(main, ["cards", "update", "--source", str(cdb), "--lang", "zh"])
    assert installed.exit_code == 0 and f"{len(chinese)}" in installed.stdout and "zh-Hans" in installed.stdout
    log = runner.invoke(main, ["log", str(ROOT / "replays" / "won-by-damage.jsonl"), "--lang", "zh-Hans"]).stdout
    assert f"中文卡{codes[0]}" in log and english[codes[-1]].name in log
    assert "中文卡" not in runner.invoke(main, ["log", str(ROOT / "replays" / "won-by-damage.jsonl")]).stdout
    found = runner.invoke(main, ["cards", "find", f"中文卡{codes[0]}", "--lang", "zh-Hans"])
    assert found.exit_code == 0 and str(codes[0]) in found.stdout
    refused = runner.invoke(main, ["cards", "update", "--lang", "zh"])           # YGOPRODeck has no Chinese
    assert refused.exit_code == 2 and "fr" in refused.output


def test_a_real_chinese_card_database_names_the_cards(tmp_path, monkeypatch):
    cdb = shared_path("cards", "zh-CN-2019.cdb")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    result = CliRunner().invoke(main, ["cards", "update", "--source", str(cdb), "--lang", "zh-Hans"])
    assert result.exit_code == 0 and "9874" in result.stdout
    log = CliRunner().invoke(main, ["log", str(ROOT / "replays" / "won-by-damage.jsonl"), "--lang", "zh"]).stdout
    assert "岩石巨兵" in log and "Giant Soldier of Stone" not in log


# -- the language never changes what is recorded -------------------------------------------------------

def test_a_record_made_under_each_language_is_byte_identical_in_its_events(tmp_path):
    runner = CliRunner()
    sample = ROOT / "replays" / "every-summon-method.jsonl"
    recorded = {}
    for language in i18n.LANGUAGES:
        store = str(tmp_path / f"{language}.sqlite")
        duel = runner.invoke(main, ["record", str(sample), "--store", store, "--lang", language])
        assert duel.exit_code == 0, duel.output
        out = tmp_path / f"{language}.jsonl"
        exported = runner.invoke(main, ["export", duel.stdout.strip(), "--store", store, "--record", "-o", str(out),
                                        "--lang", language])
        assert exported.exit_code == 0, exported.output
        recorded[language] = [json.loads(line)["kind"] for line in out.read_text().splitlines() if line.strip()
                              and not line.startswith("#")], out.read_bytes()
    assert len({data for _, data in recorded.values()}) == 1


# -- the service -----------------------------------------------------------------------------------------

ADMIN = "language-admin-token"


@pytest.fixture
def client(tmp_path):
    from fastapi.testclient import TestClient

    from ygoreplay.access import digest
    from ygoreplay.service import create_app
    from ygoreplay.store import Store
    store = Store(str(tmp_path / "service.sqlite"), concurrent=True)
    with TestClient(create_app(store, digest(ADMIN))) as client:
        yield client


def _duel(client, events) -> tuple[str, str]:
    duel = client.post("/duels", json={"title": "languages", "visibility": "public"},
                       headers={"Authorization": f"Bearer {ADMIN}"}).json()
    token = duel["tokens"]["judge"] if "judge" in duel["tokens"] else ADMIN
    answer = client.post(f"/duels/{duel['id']}/events", json=[e.to_dict() for e in events],
                         headers={"Authorization": f"Bearer {ADMIN}"})
    assert answer.status_code < 300, answer.text
    return duel["id"], token


def test_the_service_speaks_lang_or_accept_language_and_says_which(client):
    events = read_events(ROOT / "replays" / "won-by-damage.jsonl")
    duel, _ = _duel(client, events)
    auth = {"Authorization": f"Bearer {ADMIN}"}
    english = client.get(f"/duels/{duel}/frames", headers=auth)
    assert english.headers["content-language"] == "en"
    chinese = client.get(f"/duels/{duel}/frames?lang=zh-Hans", headers=auth)
    assert chinese.headers["content-language"] == "zh-Hans"
    taiwan = client.get(f"/duels/{duel}/frames", headers={**auth, "Accept-Language": "zh-TW, en;q=0.5"})
    assert taiwan.headers["content-language"] == "zh-Hant"
    lines = {name: [f["line"] for f in answer.json()["frames"]]
             for name, answer in (("en", english), ("zh-Hans", chinese), ("zh-Hant", taiwan))}
    assert all(a != b for a, b in zip(lines["en"], lines["zh-Hans"]))
    assert any("主要階段" in line or "蓋放" in line for line in lines["zh-Hant"])
    assert [f["kind"] for f in english.json()["frames"]] == [f["kind"] for f in chinese.json()["frames"]]
    again = client.get(f"/duels/{duel}/frames", headers=auth)                # the English view is its own
    assert [f["line"] for f in again.json()["frames"]] == lines["en"]
    unknown = client.get(f"/duels/{duel}/frames?lang=klingon", headers={**auth, "Accept-Language": "ja"})
    assert unknown.status_code == 200 and unknown.headers["content-language"] == "ja"    # as the pages choose


def test_a_rule_for_the_viewers_pop_up_in_the_asked_language_with_its_seed_quotes(client, monkeypatch):
    monkeypatch.setenv("YGOREPLAY_SEEDS", str(shared_path("seeds")))
    answer = client.get("/rules/sum-04?lang=ja")
    assert answer.status_code == 200 and answer.headers["content-language"] == "ja"
    data = answer.json()
    assert set(data) == {"id", "summary", "seed_quotes"} and data["id"] == "SUM-04"
    assert data["summary"].startswith("レベルによるリリース")
    assert data["seed_quotes"] and all(set(q) == {"file", "text"} for q in data["seed_quotes"])
    assert client.get("/rules/SUM-04", headers={"Accept-Language": "ko"}).json()["summary"].startswith("레벨")
    assert client.get("/rules/NOPE-99").status_code == 404


def test_the_events_a_service_records_are_the_same_whatever_the_language(client):
    events = read_events(ROOT / "replays" / "won-by-damage.jsonl")
    stored = []
    for language in ("en", "ja", "zh-Hant"):
        duel = client.post(f"/duels?lang={language}", json={"title": "same", "visibility": "public"},
                           headers={"Authorization": f"Bearer {ADMIN}", "Accept-Language": language}).json()
        client.post(f"/duels/{duel['id']}/events?lang={language}", json=[e.to_dict() for e in events],
                    headers={"Authorization": f"Bearer {ADMIN}"})
        answer = client.get(f"/duels/{duel['id']}/events?lang={language}", headers={"Authorization": f"Bearer {ADMIN}"})
        records = [json.loads(line) for line in answer.text.splitlines() if line.strip()]
        assert len(records) == len(events)
        stored.append(json.dumps([r["event"] for r in records], sort_keys=True))
    assert len(set(stored)) == 1


def test_the_viewer_gets_card_names_in_its_language_and_the_english_beside(client, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "names"))
    events = read_events(ROOT / "replays" / "won-by-damage.jsonl")
    english = facts_of(events, card_lookup(()))
    code = next(code for code in english if english[code].name == "Giant Soldier of Stone")
    write_names("zh-Hans", [(code, "岩石巨兵")])
    duel, _ = _duel(client, events)
    auth = {"Authorization": f"Bearer {ADMIN}"}
    cards = {c["code"]: c for f in client.get(f"/duels/{duel}/frames?lang=zh", headers=auth).json()["frames"]
             for c in f["cards"]}
    assert cards[code]["name"] == "岩石巨兵" and cards[code]["name_en"] == "Giant Soldier of Stone"
    other = next(c for c in cards.values() if c["code"] != code)
    assert "name_en" not in other and other["name"] == english[other["code"]].name    # no name: English
    plain = {c["code"]: c for f in client.get(f"/duels/{duel}/frames", headers=auth).json()["frames"] for c in f["cards"]}
    assert plain[code]["name"] == "Giant Soldier of Stone" and "name_en" not in plain[code]


def test_the_viewers_card_details_line_is_in_its_language(client):
    """The frames' card ``text`` (the details panel of the viewer and the recorder page) is said
    in the language the reader chose, with the OCG's words; English without one."""
    events = read_events(ROOT / "replays" / "won-by-damage.jsonl")
    duel, _ = _duel(client, events)
    auth = {"Authorization": f"Bearer {ADMIN}"}

    def texts(query: str) -> dict[int, str]:
        return {c["code"]: c["text"] for f in client.get(f"/duels/{duel}/frames{query}", headers=auth).json()["frames"]
                for c in f["cards"]}
    english, japanese = texts(""), texts("?lang=ja")
    code = next(code for code, text in english.items() if " Normal Monster, ATK " in text)
    assert "通常モンスター、攻撃力 " in japanese[code] and "Monster" not in japanese[code]
    assert "属性" in japanese[code] and "族" in japanese[code]


def test_ygoprodeck_names_in_french_come_from_its_language_parameter(tmp_path, monkeypatch):
    """No network: YGOPRODeck's answer in French is a fixture; the facts stay the English database's."""
    from ygoreplay import card_install
    asked = []
    answer = {"data": [{"id": 89631139, "name": "Dragon Blanc aux Yeux Bleus", "type": "Normal Monster",
                        "frameType": "normal", "race": "Dragon", "attribute": "LIGHT", "level": 8, "atk": 3000,
                        "def": 2500, "card_images": [{"id": 89631139}, {"id": 89631140}]}]}

    def fetch(source: str) -> tuple[bytes, str]:
        asked.append(source)
        return json.dumps(answer).encode(), source
    monkeypatch.setattr(card_install, "fetch", fetch)
    count, url = card_install.install_names("ygoprodeck", "fr", tmp_path)
    assert count == 2 and asked == [f"{card_install.YGOPRODECK}?language=fr"] == [url]
    from ygoreplay.card_names import names_of
    assert names_of("fr", tmp_path) == {89631139: "Dragon Blanc aux Yeux Bleus", 89631140: "Dragon Blanc aux Yeux Bleus"}
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path.parent))
    write_names("fr", [(89631139, "Dragon Blanc aux Yeux Bleus")])
    monkeypatch.setenv("YGOREPLAY_CARD_LANG", "fr")                  # French names, English sentences
    assert card_name(_facts(89631139, "Blue-Eyes White Dragon")) == "Dragon Blanc aux Yeux Bleus"
