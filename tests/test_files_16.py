"""Attacks on ygoreplay's files (issue 25, sixteenth pass: ``files16``).

* ``Records.import_yrpx`` read the replay twice: once to import it, once for its digest. A file
  swapped in between had its digest stored as the source of the other's duel, and could never be
  imported after ("already imported"). The bytes are read once (``yrpx.read_file``: bounded, a
  regular file only) and the import, the digest and the size are all of them
  (``application._edopro``: the store's import, the ``-o`` judge file and an upload go through it).
* ``import FIFO`` waited for ever: the replay was opened with ``open``, which waits for a pipe's
  writer. A file that is not a regular one is refused unread (``files.open_regular``), exit 2,
  naming it.
* A signing key file others can read (0644) was loaded without a word: anyone who reads it signs
  as its owner. Each load says so on stderr, with the file and ``chmod 600`` (``signing``).
* ``error: PATH: ...`` printed a path with a newline as it is: a file name forged a line of its own
  on the terminal, where the README says every printed name shows it as ``\\n``. Every error line
  is printed escaped (``cli.output.answered``).
"""
from __future__ import annotations

import hashlib
import os
import stat
import threading

from conftest import shared_path
from test_store_cli import clean, run

import ygoreplay.yrpx as yrpx
from ygoreplay.application import Records, import_replay_file
from ygoreplay.signing import OrganiserKey, PublicKey
from ygoreplay.store import Store

FIRST, SECOND = "2020-09-03_18-31-20.yrpX", "2022-10-01_16-15-33.yrpX"


def _replays(tmp_path):
    folder = shared_path("real-replays", "edopro")
    return (folder / FIRST).read_bytes(), (folder / SECOND).read_bytes()


def _changed_after_import(monkeypatch, change):
    """``change()`` run right after each import of a replay (a file swapped meanwhile); the import."""
    imported = yrpx.import_yrpx

    def import_then_change(*args, **kwargs):
        result = imported(*args, **kwargs)
        change()
        return result

    monkeypatch.setattr(yrpx, "import_yrpx", import_then_change)
    return imported


# -- one read: the digest is of the bytes imported -------------------------------------------------

def test_a_file_swapped_after_the_import_read_is_not_taken_for_imported(tmp_path, monkeypatch):
    """Before: the duel of the first file was stored with the second's digest, and the second
    file was then "already stored" (skipped) for ever."""
    first, second = _replays(tmp_path)
    path = tmp_path / "game.yrpX"
    path.write_bytes(first)
    imported = _changed_after_import(monkeypatch, lambda: path.write_bytes(second))   # the attacker's swap
    with Store(str(tmp_path / "duels.sqlite")) as store:
        records = Records(store)
        done, _ = records.import_yrpx(path, None, None)
        source = store.info(done.id).source
        assert source["sha256"] == hashlib.sha256(first).hexdigest()
        assert source["size"] == len(first)
        monkeypatch.setattr(yrpx, "import_yrpx", imported)
        again, _ = records.import_yrpx(path, None, None)           # the second file, now there
        assert not again.skipped and again.id != done.id
        assert store.info(again.id).source["sha256"] == hashlib.sha256(second).hexdigest()


# -- a pipe is refused, not waited on ----------------------------------------------------------------

def _unblocked(call, fifo):
    """``call()`` run in a thread; a reader waiting on ``fifo`` (the code before) is released
    by a writer that closes at once, so the test ends either way: what it says is the assertion."""
    outcome = {}
    thread = threading.Thread(target=lambda: outcome.setdefault("value", call()), daemon=True)
    thread.start()
    thread.join(30)
    while thread.is_alive():
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:                               # no reader yet
            pass
        thread.join(1)
    return outcome.get("value")


def test_import_of_a_pipe_is_refused_naming_it(tmp_path):
    """Before: the command waited for a writer for ever."""
    fifo = tmp_path / "game.yrpX"
    os.mkfifo(fifo)
    result = _unblocked(lambda: run("import", fifo, url=str(tmp_path / "duels.sqlite")), fifo)
    clean(result, 2)
    assert "game.yrpX" in result.output and "not a regular file" in result.output, result.output
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_every_import_door_refuses_a_pipe(tmp_path):
    """The store's import (and so an upload's) and the judge file's (``import -o``)."""
    fifo = tmp_path / "game.yrpX"
    os.mkfifo(fifo)
    with Store(str(tmp_path / "duels.sqlite")) as store:
        stored = _unblocked(lambda: import_replay_file(fifo, None, None, records=Records(store)), fifo)
    written = _unblocked(lambda: import_replay_file(fifo, None, None, target=tmp_path / "out.ygr",
                                                    key=OrganiserKey.generate()), fifo)
    for outcome in (stored, written):
        assert outcome.id is None and "not a regular file" in (outcome.error or ""), outcome
    assert not (tmp_path / "out.ygr").exists()


def test_a_judge_file_records_the_size_of_the_bytes_imported(tmp_path, monkeypatch):
    """The ``-o`` door keeps the size of what it read, not a second ``stat``'s."""
    from ygoreplay.replay_file import read
    first, _ = _replays(tmp_path)
    path = tmp_path / "game.yrpX"
    path.write_bytes(first)
    _changed_after_import(monkeypatch, lambda: path.write_bytes(first + b"\0" * 100))
    outcome = import_replay_file(path, None, None, target=tmp_path / "out.ygr", key=OrganiserKey.generate())
    assert outcome.error is None
    assert read(tmp_path / "out.ygr").source["size"] == len(first)


# -- a private key others can read -------------------------------------------------------------------

def _exposed_key(path):
    path.write_bytes(OrganiserKey.generate().to_pem())
    path.chmod(0o644)
    return path


def test_a_private_key_others_can_read_is_said_with_the_fix(tmp_path, capsys):
    """Before: loaded without a word. A key its owner alone reads is loaded silently still."""
    exposed = _exposed_key(tmp_path / "organiser.key")
    assert OrganiserKey.load(exposed) is not None
    said = capsys.readouterr().err
    assert str(exposed) in said and "other users" in said and "0644" in said and f"chmod 600 {exposed}" in said
    PublicKey.parse(str(exposed))                     # ``verify --key FILE`` of a private key
    assert f"chmod 600 {exposed}" in capsys.readouterr().err
    own = tmp_path / "own.key"
    own.write_bytes(OrganiserKey.generate().to_pem())
    own.chmod(0o600)
    assert OrganiserKey.load(own) is not None
    assert capsys.readouterr().err == ""


def test_the_exposed_key_warning_is_in_the_readers_language_and_names_the_file_escaped(tmp_path, monkeypatch):
    exposed = _exposed_key(tmp_path / "my\nkey.pem")
    monkeypatch.setenv("YGOREPLAY_KEY", str(exposed))
    result = run("--lang", "ja", "key")
    clean(result, 0)
    assert "秘密鍵" in result.output and "chmod 600" in result.output, result.output
    assert "my\\nkey.pem" in result.output and "my\nkey" not in result.output, result.output


# -- an error naming a path prints it escaped ------------------------------------------------------

def test_an_error_naming_a_path_with_a_newline_is_one_line(tmp_path):
    """Before: ``error: x`` and then a line of the file name's own (``x.ygr: ok, ...``)."""
    forged = "x\nx.ygr: ok, 90 events, hash chain intact\x1b[32m\u202e"
    for command in ("check", "record"):
        result = run(command, tmp_path / f"{forged}.ygr")
        clean(result, 2)
        lines = result.output.splitlines()
        assert not any(line.startswith("x.ygr: ok") for line in lines), result.output
        assert any(line.startswith("error: ") and "x\\nx.ygr: ok" in line and "\\e[32m\\u202e" in line
                   for line in lines), result.output

