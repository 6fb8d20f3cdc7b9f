"""Hostile inputs a user's files can be: a ``cards.cdb`` whose ``datas`` or ``texts`` is a view that
computes without end (a recursive query) or makes gigabytes out of an 8 KB file (huge names); a
device that never ends (``/dev/zero``) given as a card source, a replay, a deck, a duel, a key; a
match file naming duel files outside its folder. Every reader takes real tables only, within
bounds of rows, bytes and time, reads regular files and pipes only, and says what was wrong; each
command runs under a memory limit and a timeout: it must refuse quickly."""
from __future__ import annotations

import json
import os
import re
import resource
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_cards import _make_cdb
from ygoreplay import card_install, cards, replay_file
from ygoreplay.card_sources import CdbFile
from ygoreplay.cards import CardDB, CardDBError
from ygoreplay.decks import read_ydk
from ygoreplay.errors import InputError
from ygoreplay.jsonl import read_events
from ygoreplay.match.files import open_match

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = str(ROOT / "replays" / "won-by-damage.jsonl")
_DATAS = "id, ot, alias, setcode, type, atk, def, level, race, attribute, category"
#: A recursive query that never ends, and one of 100 rows (each given a 100 MB name below).
_ENDLESS = "with recursive r(n) as (select 1 union all select n + 1 from r) select n from r"
_HUGE = "with recursive r(n) as (select 1 union all select n + 1 from r where n < 100) select n from r"


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def run(*args: str, home: Path) -> subprocess.CompletedProcess:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "ygoreplay", *args], capture_output=True, text=True, timeout=30,
                          env={**os.environ, "XDG_DATA_HOME": str(home)}, preexec_fn=_limited)
    assert time.monotonic() - started < 20
    return done


def _view_cdb(path: Path, datas: str, texts: str) -> Path:
    with sqlite3.connect(path) as conn:
        conn.execute(f"create view datas ({_DATAS}) as {datas}")
        conn.execute(f"create view texts (id, name, desc) as {texts}")
    conn.close()
    return path


def recursive_view(path: Path) -> Path:
    """``datas`` a view over an endless recursive query."""
    return _view_cdb(path, f"select n, 3, 0, 0, 17, 1000, 1000, 4, 1, 16, 0 from ({_ENDLESS})",
                     f"select n, 'Card ' || n, '' from ({_ENDLESS})")


def huge_name_view(path: Path) -> Path:
    """``texts`` a view whose every name is 100 MB: an 8 KB file that fills gigabytes."""
    return _view_cdb(path, f"select n, 3, 0, 0, 17, 1000, 1000, 4, 1, 16, 0 from ({_HUGE})",
                     f"select n, printf('%.*c', 100000000, 'x'), '' from ({_HUGE})")


@pytest.mark.parametrize("make", [recursive_view, huge_name_view])
def test_a_cards_cdb_of_views_is_refused_by_check_and_cards_update(make, tmp_path):
    hostile = make(tmp_path / "hostile.cdb")
    assert hostile.stat().st_size < 16384
    checked = run("check", SAMPLE, "--cards", str(hostile), home=tmp_path)
    assert checked.returncode == 2 and "Traceback" not in checked.stderr
    assert f"{hostile}: not a cards.cdb: 'datas' is a view, not a table" in checked.stderr
    updated = run("cards", "update", "--source", str(hostile), home=tmp_path)
    assert updated.returncode == 2 and "Traceback" not in updated.stderr
    assert "'datas' is a view, not a table" in updated.stderr and "unchanged" in updated.stderr
    assert not (tmp_path / "ygoreplay" / "cards.cdb").exists()


def test_a_device_is_not_a_cards_cdb(tmp_path):
    checked = run("check", SAMPLE, "--cards", "/dev/zero", home=tmp_path)
    assert checked.returncode == 2 and "/dev/zero: not a regular file" in checked.stderr


def test_a_virtual_table_is_not_a_card_table(tmp_path):
    path = tmp_path / "virtual.cdb"
    with sqlite3.connect(path) as conn:
        conn.execute(f"create virtual table datas using fts5({_DATAS})")
        conn.execute("create table texts (id integer primary key, name, desc)")
    conn.close()
    with pytest.raises(CardDBError, match="'datas' is a virtual table, not a table"):
        CdbFile(path)


def test_a_card_table_is_read_within_a_bound_of_rows_and_bytes(tmp_path, monkeypatch):
    path = _make_cdb(tmp_path / "many.cdb", [(code, 0x11, 1000, 1000, 4, f"Card {code}") for code in range(1, 51)])
    monkeypatch.setattr(cards, "CDB_MAX_ROWS", 40)
    with pytest.raises(CardDBError, match=r"many\.cdb: more than 40 rows"):
        CardDB.from_cdb(path)
    monkeypatch.setattr(cards, "CDB_MAX_ROWS", 1000)
    monkeypatch.setattr(cards, "CDB_MAX_BYTES", 200)
    with pytest.raises(CardDBError, match=r"many\.cdb: more than 200 bytes"):
        CardDB.from_cdb(path)
    big = _make_cdb(tmp_path / "big.cdb", [(1, 0x11, 1000, 1000, 4, "x" * (2 << 20))])
    with pytest.raises(CardDBError, match=r"big\.cdb: a value longer than 1 MiB"):
        CdbFile(big)[1]


def test_no_query_of_a_cards_cdb_runs_past_its_time(tmp_path, monkeypatch):
    path = _make_cdb(tmp_path / "slow.cdb", [(code, 0x11, 1000, 1000, 4, f"Card {code}") for code in range(1, 2000)])
    monkeypatch.setattr(cards, "CDB_SECONDS", 0.0)
    with pytest.raises(CardDBError, match=r"slow\.cdb: reading took longer than 0 s"):
        CardDB.from_cdb(path)


def test_a_card_source_that_never_ends_is_read_only_up_to_its_bound(tmp_path, monkeypatch):
    updated = run("cards", "update", "--source", "/dev/zero", home=tmp_path)
    assert updated.returncode == 2 and "Traceback" not in updated.stderr
    assert "/dev/zero: not a regular file" in updated.stderr
    monkeypatch.setattr(card_install, "MAX_DOWNLOAD", 1000)
    read, write = os.pipe()
    os.write(write, b"x" * 4000)
    os.close(write)
    with pytest.raises(InputError, match="more than 1,000 bytes"):
        card_install.fetch(f"/dev/fd/{read}")
    os.close(read)


# -- a match file's duel files ----------------------------------------------------------------------------

MATCHES = ROOT / "replays" / "matches"


def _match_naming(folder: Path, first: str, second: str | None = None) -> Path:
    """two-nil.jsonl in ``folder`` (its duels beside it in duels/), game 1 (and 2) naming another file."""
    (folder / "duels").mkdir(parents=True)
    for duel in (MATCHES / "duels").glob("*.jsonl"):
        (folder / "duels" / duel.name).write_bytes(duel.read_bytes())
    lines = (MATCHES / "two-nil.jsonl").read_text().splitlines()
    games = [i for i, line in enumerate(lines) if '"game_started"' in line]
    for index, name in zip(games, (first, second)):
        if name is not None:
            event = json.loads(lines[index])
            lines[index] = json.dumps({**event, "duel": name})
    path = folder / "match.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("name", [str(MATCHES / "duels" / "g1-yugi-wins.jsonl"), "../outside/duels/g1-yugi-wins.jsonl",
                                  "duels/../../outside/duels/g1-yugi-wins.jsonl", "duels/g1\x00.jsonl"])
def test_a_match_file_reads_duel_files_only_inside_its_own_folder(name, tmp_path):
    _match_naming(tmp_path / "outside", None)          # a copy of the duels outside the match's folder
    path = _match_naming(tmp_path / "match", name)
    refused = rf"{re.escape(str(path))}: game 1 names the duel file {re.escape(repr(name))}, not a path inside"
    with pytest.raises(InputError, match=refused):
        open_match(path, CardDB.classic())
    shown = run("check", str(path), home=tmp_path)
    assert shown.returncode == 2 and "not a path inside the match file's folder" in shown.stderr
    assert "Traceback" not in shown.stderr


def test_a_match_file_reads_duel_files_in_its_folder_and_below(tmp_path):
    first = (MATCHES / "two-nil.jsonl").read_text().split('"duel": "', 2)[1].split('"')[0]
    path = _match_naming(tmp_path / "match", f"./duels/../{first}")
    match = open_match(path, CardDB.classic())
    assert not match.missing and set(match.duels) == {1, 2}


# -- files that never end ------------------------------------------------------------------------------

@pytest.mark.parametrize("read", [replay_file.read, read_ydk, read_events])
def test_a_device_is_not_read_as_a_replay_deck_or_duel_file(read):
    started = time.monotonic()
    with pytest.raises(InputError, match="/dev/zero: not a regular file"):
        read("/dev/zero")
    assert time.monotonic() - started < 10


def test_a_match_file_whose_name_is_not_utf8_exports_with_a_printable_title(tmp_path):
    """The title a match file's name gives (and its duels' names) is text a user sent: checked,
    never an internal error (a file name that is not UTF-8 holds an undecodable byte)."""
    path = _match_naming(tmp_path / "match", None)
    odd = path.with_name(os.fsdecode(b"two\xffnil.jsonl"))
    path.rename(odd)
    out = tmp_path / "match.ygr"
    done = run("export", odd, "-o", str(out), home=tmp_path)
    assert done.returncode == 0, done.stderr
    assert replay_file.read(out).match["title"] == "two\\xffnil.jsonl"


def test_a_device_is_not_read_as_an_organiser_key_or_a_card_list(tmp_path):
    done = subprocess.run([sys.executable, "-m", "ygoreplay", "key"], capture_output=True, text=True, timeout=30,
                          env={**os.environ, "YGOREPLAY_KEY": "/dev/zero"}, preexec_fn=_limited)
    assert done.returncode == 2 and "/dev/zero: not a regular file; not a private key" in done.stderr
    with pytest.raises(CardDBError, match="/dev/zero: not a regular file; not a card list"):
        CardDB.from_json("/dev/zero")
