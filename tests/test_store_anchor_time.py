"""An append's recording time and its anchor's status, made without parsing back (issue 25,
fifth pass, attack): ``store._now`` gives ``chain.now``'s text and its milliseconds at any
instant (under a millisecond, the last of a second, year 9999, the clock going backwards), and
the index's status columns are those the duel's last anchor signs, on SQLite and PostgreSQL.
"""
from __future__ import annotations

import sqlite3
from urllib.parse import parse_qs, urlparse

import msgpack
import pytest

from test_store import DECK_OUT, _pg_connect, sample, store, open_store, store_url  # noqa: F401
from ygoreplay import chain
from ygoreplay.store import records as store_records
from ygoreplay.store import HEAD_TOPIC, Store

#: nanoseconds since the epoch: 0, under a millisecond, the last of a second, of a day, of 9999,
#: then back by 0.9 ms in the same second and by a second (a clock set back)
INSTANTS = [0, 999_999, 1_999_999_999, 86_399_999_999_999, 253_402_300_799_999_999_999,
            1_700_000_000_999_999_999, 1_700_000_000_000_100_000, 1_699_999_999_500_000_000]


def test_an_append_time_is_the_chain_time_of_its_milliseconds(monkeypatch):
    clock = iter(INSTANTS)
    monkeypatch.setattr(store_records.time, "time_ns", lambda: next(clock))
    for ns in INSTANTS:
        text, ms = store_records._now()
        assert ms == ns // 1_000_000
        assert text == chain.from_ms(ms) and chain.to_ms(text) == ms


def _indexed(url: str, duel: str) -> tuple:
    query = "SELECT turn, ended, winner, reason, p0, p1 FROM {t} WHERE id = ?"
    if url.startswith("postgresql"):
        schema = parse_qs(urlparse(url).query)["schema"][0]
        with _pg_connect() as conn:
            return conn.execute(query.format(t=f'"{schema}".library_streams').replace("?", "%s"), (duel,)).fetchone()
    conn = sqlite3.connect(url)
    try:
        return conn.execute(query.format(t="library_streams"), (duel,)).fetchone()
    finally:
        conn.close()


def test_the_index_shows_the_status_the_last_anchor_signs(store: Store, store_url):
    events = sample(DECK_OUT)
    duel = store.create_duel("status")
    for i in range(0, len(events), 9):
        store.append(duel, events[i:i + 9])
        (row,) = store.events.select_events(f"{duel}/head", desc=True, limit=1)
        assert row.topic == HEAD_TOPIC and row.originator_version == i + len(events[i:i + 9])
        status = msgpack.unpackb(row.state)["status"]
        players = [str(p) for p in status["players"]][:2] + ["", ""]
        assert _indexed(store_url, duel) == (status["turn"], int(status["ended"]), status["winner"],
                                             status["reason"], players[0], players[1])
    assert _indexed(store_url, duel)[1] == 1      # the duel ended: its last anchor says so
