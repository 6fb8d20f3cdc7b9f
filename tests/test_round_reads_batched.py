"""A round's page reads its tables' access records and marks in one statement each (#25,
nineteenth pass): a statement a table for each was ~0.14 ms of CPU a table, 69 ms a read of a
500-table round, most of it the recorders' handling of each statement. The batched reads give
what the per-table ones give, on both backends, and the private check is still made on every read."""
from __future__ import annotations

import msgpack

from test_rounds import pairings
from test_store import execute, store_url  # noqa: F401  (fixture: a fresh SQLite file or PostgreSQL schema)
from ygoreplay.errors import StoreError
from ygoreplay.rounds import RoundSettings, TableRows, create_round, read_pairings, status
from ygoreplay.store import Store

NONE = "0123456789ab"                    # a stream the store has not


def _round(store: Store, tables: int) -> tuple[str, list[str]]:
    made = create_round(store, read_pairings(pairings(tables)), RoundSettings("Regional", 1), "http://x")
    return made.id, [table.match for table in made.tables]


def _per_stream(store: Store, stream_id: str) -> object:
    try:
        return store.attachment(stream_id, "access")
    except StoreError as exc:
        return str(exc)


def test_the_batched_marks_and_access_records_are_the_per_stream_reads(store_url):  # noqa: F811
    with Store(store_url) as store:
        _, matches = _round(store, 5)
        store.attach(matches[1], "access", {**store.attachment(matches[1], "access"), "visibility": "private"})
        # a record that is not a map (rewritten in the database): refused for that stream alone
        execute(store_url, "UPDATE {t} SET state = ? WHERE originator_id = ?", (msgpack.packb([1]), f"{matches[2]}/access"))
        if not store_url.startswith("postgresql"):      # a TEXT where a record is (SQLite keeps one)
            execute(store_url, "UPDATE {t} SET state = 'x' WHERE originator_id = ?", (f"{matches[3]}/access",))
            execute(store_url, "UPDATE {t} SET state = 'x' WHERE originator_id = ?", (f"{matches[4]}/head",))
        ids = [*matches, NONE, matches[0]]
        refused: dict[str, StoreError] = {}
        found = store.attachments(ids, "access", refused)
        assert {**found, **{i: str(exc) for i, exc in refused.items()}} == {i: _per_stream(store, i) for i in ids}
        assert found[NONE] is None and matches[2] in refused and found[matches[1]]["visibility"] == "private"
        assert store.head_marks(ids) == {i: store.head_mark(i) for i in ids}
        assert store.head_marks(ids)[NONE] is None and store.head_marks([]) == {} == store.attachments([], "access", {})
        before = store.head_marks(matches)
        store.attach(matches[0], "access", store.attachment(matches[0], "access"))
        assert store.head_marks(matches) == before       # another attachment is not the stream's anchor


def _counted(store: Store, monkeypatch) -> list[str]:
    """Each statement the store's reads issue, by the reader that issued it."""
    issued: list[str] = []
    for owner, name in ((store.events, "select_events"), (store.events, "select_notifications"),
                        (store.snapshots, "select_events"), (store, "_read")):
        def counting(*args, _read=getattr(owner, name), _name=name, **kwargs):
            issued.append(_name)
            return _read(*args, **kwargs)
        monkeypatch.setattr(owner, name, counting)
    return issued


def test_a_round_read_is_one_statement_for_its_tables_access_and_one_for_their_marks(store_url, monkeypatch):  # noqa: F811
    with Store(store_url) as store:
        counts = {}
        for size in (3, 12):
            round_id, matches = _round(store, size)
            store.attach(matches[0], "access", {**store.attachment(matches[0], "access"), "visibility": "private"})
            rows = TableRows()
            status(store, round_id, rows=rows)                  # every row made (the organiser's)
            first = status(store, round_id, anyone=True, rows=rows)
            with monkeypatch.context() as patch:
                issued = _counted(store, patch)
                again = status(store, round_id, anyone=True, rows=rows)
                read_by_anyone = len(issued)
                status(store, round_id, rows=rows)
                counts[size] = (read_by_anyone, len(issued) - read_by_anyone)
            assert again == first and again["tables"][0]["private"] and "private" not in again["tables"][1]
            # the private check is made on every read, never kept: made private now, hidden now
            store.attach(matches[1], "access", {**store.attachment(matches[1], "access"), "visibility": "private"})
            assert status(store, round_id, anyone=True, rows=rows)["tables"][1]["private"]
        # the round's record, the access records, the marks; the organiser's read no access records
        assert counts[3] == counts[12] == (3, 2)
