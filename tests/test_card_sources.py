"""Where card names come from: --cards (several, a later one winning), $YGOREPLAY_CARDS, a local
EDOPro/YGOPro install in its usual place, the bundled set; a cards.cdb read on demand; and the
study commands opening an EDOPro replay directly, naming its cards from those sources."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import shared_path
from test_cards import _make_cdb
from ygoreplay.card_sources import CARDS_ENV, CdbFile, card_lookup, facts_of, local_databases
from ygoreplay.cards import CardDB, CardDBError
from ygoreplay.jsonl import read_events

ROOT = Path(__file__).resolve().parent.parent
DARK_MAGICIAN = 46986414
NORMAL = 0x11


def cdb(path: Path, *rows: tuple[int, str]) -> Path:
    return _make_cdb(path, [(code, NORMAL, 1000, 1000, 4, name) for code, name in rows])


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ygoreplay", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=120)


def test_a_cards_cdb_is_read_a_passcode_at_a_time(tmp_path):
    db = CdbFile(cdb(tmp_path / "cards.cdb", (1, "One"), (2, "Two")))
    assert db[2].name == "Two" and 3 not in db and db.get(3) is None and db.get("2") is None
    assert list(db) == [1, 2] and db.named("one")[0].code == 1
    with pytest.raises(KeyError, match="unknown passcode 3"):
        db[3]
    with pytest.raises(CardDBError, match="no such file"):
        CdbFile(tmp_path / "missing.cdb")
    (tmp_path / "junk.cdb").write_bytes(b"not a database at all" * 100)
    with pytest.raises(CardDBError, match="junk.cdb"):
        CdbFile(tmp_path / "junk.cdb")


def test_the_lookup_order(tmp_path):
    base = cdb(tmp_path / "base.cdb", (1, "Base One"), (2, "Base Two"), (DARK_MAGICIAN, "Renamed Magician"))
    patch = cdb(tmp_path / "patch.cdb", (2, "Patched Two"))
    env = cdb(tmp_path / "env.cdb", (1, "Env One"), (3, "Env Three"))
    install = tmp_path / "ProjectIgnis" / "expansions"
    install.mkdir(parents=True)
    cdb(install / "cards.cdb", (4, "Installed Four"), (5, "Installed Five"))
    cdb(install / "zz-expansion.cdb", (5, "Expansion Five"))
    (install / "broken.cdb").write_text("not SQLite")               # an install's bad file is passed over
    lookup = card_lookup([str(base), str(patch)], environment={CARDS_ENV: str(env)}, installs=[str(install)])
    assert [lookup[c].name for c in (1, 2, 3, 4, 5)] == [
        "Base One", "Patched Two", "Env Three", "Installed Four", "Expansion Five"]
    assert lookup[DARK_MAGICIAN].name == "Renamed Magician", "a given file wins over the bundled set"
    assert card_lookup(environment={}, installs=[])[DARK_MAGICIAN].name == "Dark Magician"
    assert 999 not in lookup and lookup.get(999) is None
    assert lookup.by_name("patched two").code == 2
    subset = lookup.subset([1, 4])
    assert isinstance(subset, CardDB) and sorted(subset) == [1, 4]
    assert local_databases([str(install)])[0].name == "cards.cdb", "the base before its expansions"
    with pytest.raises(CardDBError, match="nowhere.cdb"):
        card_lookup([str(tmp_path / "nowhere.cdb")], environment={}, installs=[])


def test_a_duel_read_from_a_file_carries_only_the_facts_of_its_cards():
    events = read_events(ROOT / "replays" / "won-by-damage.jsonl")
    facts = facts_of(events, card_lookup(environment={}, installs=[]))
    assert isinstance(facts, CardDB) and DARK_MAGICIAN in facts and len(facts) < 60


def test_the_cli_takes_several_cards_files_and_the_environment(tmp_path):
    sample = str(ROOT / "replays" / "won-by-damage.jsonl")
    first = cdb(tmp_path / "a.cdb", (DARK_MAGICIAN, "Magician A"))
    second = cdb(tmp_path / "b.cdb", (DARK_MAGICIAN, "Magician B"))
    shown = run("log", sample, "--cards", str(first), "--cards", str(second))
    assert shown.returncode == 0, shown.stderr
    assert "Magician B" in shown.stdout and "Magician A" not in shown.stdout
    from_env = run("log", sample, env={CARDS_ENV: str(first)})
    assert "Magician A" in from_env.stdout
    missing = run("log", sample, "--cards", str(tmp_path / "nowhere.cdb"))
    assert missing.returncode == 2 and "nowhere.cdb: no such file" in missing.stderr and "Traceback" not in missing.stderr


def test_a_local_edopro_install_names_the_cards_of_a_real_replay(tmp_path):
    """No --cards at all: the cards.cdb of an EDOPro install in its usual place names them (a
    database made here of the replay's own passcodes: the shared one holds none of them)."""
    from ygoreplay.yrpx import import_yrpx
    replay = shared_path("real-replays", "edopro", "GG_DW_vs_Cyberse.yrpX")
    codes = sorted(import_yrpx(replay).cards)
    home = tmp_path / "home"
    expansions = home / "ProjectIgnis" / "expansions"
    expansions.mkdir(parents=True)
    cdb(expansions / "cards.cdb", *[(code, f"Installed {code}") for code in codes])
    bare = run("log", str(replay))
    named = run("log", str(replay), env={"HOME": str(home)})
    assert bare.returncode == 0 and named.returncode == 0, named.stderr
    assert "Installed " not in bare.stdout and "Installed " in named.stdout
    assert [line for line in named.stdout.splitlines() if "Card " in line] == [], "every card named"


@pytest.mark.parametrize("command", ["show", "log", "check", "audit"])
def test_the_study_commands_open_an_edopro_replay_directly(command):
    replay = shared_path("real-replays", "edopro", "GG_DW_vs_Cyberse.yrpX")
    done = run(command, str(replay), *(["--json"] if command in ("check", "audit") else []))
    assert "not UTF-8" not in done.stderr and "Traceback" not in done.stderr
    assert done.returncode in (0, 1), done.stderr                 # 1: the rules found something
    if command == "show":
        assert "LP" in done.stdout
    if command in ("check", "audit"):
        assert json.loads(done.stdout)["events"] == 284


def test_export_and_play_open_an_edopro_replay_directly(tmp_path):
    replay = shared_path("real-replays", "edopro", "GG_DW_vs_Cyberse.yrpX")
    out = tmp_path / "duel.spectator.ygr"
    done = run("export", str(replay), "--view", "spectator", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert run("verify", str(out)).returncode == 0
    played = subprocess.run([sys.executable, "-m", "ygoreplay", "play", str(replay)], input="n\nq\n",
                            capture_output=True, text=True, timeout=120)
    assert played.returncode == 0 and "event #1/283" in played.stdout
