"""Attack pass 25bh: second doors. A heads NOTIFY is anyone's word: PostgreSQL lets every role
that may connect send one on any channel (no privilege on the store's tables needed), so a
listener that took its notification ids as read skipped the store's own appends after a forged
one (``store._Heads``): a follower never woke again (issue 25). A deck list or banlist of too
long a number, or a UTF-16 file cut short, raised a traceback, not its line named."""
from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from urllib.parse import urlparse

import pytest
from psycopg import sql

from ygoreplay.store import postgres as store_postgres
from ygoreplay.decks import BanlistFormatError, DeckFormatError, read_lflist, read_ydk
from ygoreplay.store import HEADS_MARK, Store

from test_live_followers import EVENTS
from test_store import POSTGRES, _pg_connect, fresh_url

WAIT = 60          # seconds a head is waited for before the listener is called stuck (a liveness bound)


@contextmanager
def _nobody():
    """A connection as a role that may connect and nothing else: no privilege on any table."""
    import psycopg
    role = f"nobody_{uuid.uuid4().hex[:12]}"
    with _pg_connect() as admin:
        admin.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
    try:
        p = urlparse(POSTGRES)
        with psycopg.connect(host=p.hostname, port=p.port or 5432, user=role, dbname=p.path.lstrip("/") or "postgres",
                             connect_timeout=5, autocommit=True) as conn:
            yield conn
    finally:
        with _pg_connect() as admin:
            admin.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


def _next(pool, heads):
    """The listener's next head, or AssertionError (the listener stopped) if none comes within ``WAIT``."""
    try:
        return pool.submit(next, heads).result(timeout=WAIT)
    except TimeoutError:
        heads.stop()
        raise AssertionError("the store's own append never reached the listener") from None


def test_a_forged_heads_notify_makes_no_listener_skip_the_stores_own_appends(tmp_path, monkeypatch):
    """A role with no privilege on the store NOTIFYs its channel a head numbered past every real
    one: the listener took that number as its last seen, and every append after it (said in
    its NOTIFY, or read on an empty one) was numbered lower, so skipped for good."""
    with fresh_url("postgresql", tmp_path / "x.sqlite", "forged") as url, \
            Store(url, concurrent=True) as writer, Store(url, concurrent=True) as reader, \
            _nobody() as nobody, ThreadPoolExecutor(1) as pool:
        schema = url.rsplit("schema=", 1)[1]
        channel = reader.events.channel_name
        after = reader.last_notification()
        duel = writer.create_duel("forged")
        heads = reader.subscribe(after)
        with heads:
            assert _next(pool, heads) == (duel, 0)
            forged = f"{HEADS_MARK}{schema}\n999999999 7 {duel}/head"
            nobody.execute(sql.SQL("SELECT pg_notify({}, {})").format(sql.Literal(channel), sql.Literal(forged)))
            writer.append(duel, EVENTS[:2], expected_position=0)          # said in its NOTIFY
            got = _next(pool, heads)
            if got == (duel, 7):                                           # the forgery, handed on: harmless
                got = _next(pool, heads)
            assert got == (duel, 2)
            nobody.execute(sql.SQL("SELECT pg_notify({}, {})").format(
                sql.Literal(channel), sql.Literal(f"{HEADS_MARK}{schema}\n999999998 9 {duel}/head")))
            monkeypatch.setattr(store_postgres, "HEADS_SAID", 0)             # a NOTIFY saying none: read
            with Store(url, concurrent=True) as wide:
                wide.append(duel, EVENTS[2:3], expected_position=2)
            got = _next(pool, heads)
            if got == (duel, 9):
                got = _next(pool, heads)
            assert got == (duel, 3)


# -- deck lists and banlists: a bad line is named, never a traceback ---------------------------------


@pytest.mark.parametrize("data, line", [
    (b"#main\n" + b"9" * 5000 + b"\n", 2),                # int() refuses 4,300 digits: ValueError
    (b"#main\n" + b"0" * 5000 + b"\n", 2),
    (b"\xff\xfe\x00", 1),                                 # a UTF-16 BOM, then half a character
    (b"\xfe\xff\x00\x31\x00", 1),
])
def test_a_ydk_too_long_a_number_or_cut_short_utf16_is_refused_naming_its_line(data, line):
    with pytest.raises(DeckFormatError, match=f"line {line}"):
        read_ydk(data)


@pytest.mark.parametrize("data", [
    b"!x\n" + b"9" * 5000 + b" 1\n",
    b"!x\n1 " + b"9" * 5000 + b"\n",
    "!x\n\u0661\u0662 1\n".encode(),                      # Arabic-Indic digits: no .ydk line may hold them
    b"\xff\xfe!",
])
def test_an_lflist_too_long_a_number_other_digits_or_cut_short_utf16_is_refused_naming_its_line(data):
    with pytest.raises(BanlistFormatError, match="line 2" if data.startswith(b"!x") else "line 1"):
        read_lflist(data)


def test_a_store_the_file_size_limit_keeps_from_opening_is_not_called_no_store(tmp_path):
    """Under ``ulimit -f`` (or a full disk) SQLite cannot set up a store's shared memory file: it
    was said "is not a ygoreplay store (not an SQLite database: disk I/O error)", which its
    owner might act on by removing the store. It is said as what it is; a file that is no
    SQLite database is still said to be no store."""
    import os
    import resource
    import subprocess
    import sys

    import ygoreplay

    path = tmp_path / "s.sqlite"
    with Store(str(path)) as store:
        store.create_duel("kept")
    tree = os.path.dirname(os.path.dirname(ygoreplay.__file__))
    env = {**os.environ, "YGOREPLAY_STORE": str(path), "YGOREPLAY_RESIDENT": "off", "PYTHONPATH": tree,
           "YGOREPLAY_LANG": "en"}

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))
    done = subprocess.run([sys.executable, "-m", "ygoreplay", "list"], env=env, capture_output=True, text=True,
                          preexec_fn=limited, timeout=120)
    assert done.returncode != 0 and "disk I/O error" in done.stderr, done.stderr
    assert "not a ygoreplay store" not in done.stderr, done.stderr
    assert "cannot open the store" in done.stderr
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"not a database, " * 16)
    done = subprocess.run([sys.executable, "-m", "ygoreplay", "list"], env={**env, "YGOREPLAY_STORE": str(bad)},
                          capture_output=True, text=True, timeout=120)
    assert "is not a ygoreplay store" in done.stderr, done.stderr
