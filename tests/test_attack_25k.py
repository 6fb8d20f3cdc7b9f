"""Attacks on the PostgreSQL write as one pipeline with BEGIN and COMMIT as its statements, and
on closing the store while it works (issue 25, eighth pass): a group's write failing at each of
its statements, a COMMIT carried out whose answer never reached the writer, and a store closed
under appends and reads. Each append is told the truth, nothing acknowledged is lost, nothing
is recorded twice, no lock is left held, and every duel verifies. Nothing here is timed."""
from __future__ import annotations

import socket
import threading

import pytest

from test_group_commit import DAMAGE, _held_group, _owners
from test_store import _pg_connect, fresh_url, sample
from ygoreplay.errors import StoreError
from ygoreplay.store import Store

_COMMITTED = b"C\x00\x00\x00\x0bCOMMIT\x00"      # the server's CommandComplete for a COMMIT


class _Cutter:
    """A TCP relay to PostgreSQL that, once armed, drops the connection on which the server
    answers a COMMIT, instead of passing that answer on: the server committed, the client
    hears only that its connection was lost."""

    def __init__(self, port: int = 5432) -> None:
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(64)
        self.port = self._listener.getsockname()[1]
        self._target = port
        self.armed, self.cut = threading.Event(), threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self._target))
            threading.Thread(target=self._relay, args=(client, server, False), daemon=True).start()
            threading.Thread(target=self._relay, args=(server, client, True), daemon=True).start()

    def _relay(self, source: socket.socket, to: socket.socket, answers: bool) -> None:
        try:
            while data := source.recv(65536):
                if answers and self.armed.is_set() and _COMMITTED in data:
                    self.armed.clear()
                    self.cut.set()
                    break
                to.sendall(data)
        except OSError:
            pass
        for end in (source, to):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            end.close()


@pytest.fixture
def relayed(tmp_path):
    """A PostgreSQL store's URL, and that URL through a ``_Cutter``."""
    cutter = _Cutter()
    with fresh_url("postgresql", tmp_path / "x.sqlite", "atk25k") as where:
        yield where, where.replace("127.0.0.1:5432", f"127.0.0.1:{cutter.port}"), cutter
    cutter.close()


@pytest.mark.parametrize("concurrent_store", [False, True])
def test_an_append_whose_commit_answer_was_lost_is_told_it_was_written(relayed, concurrent_store):
    """The COMMIT reached the server, its answer never reached the store: the events are stored,
    so the append is told so (it was told "nothing was written", and a user who believed it and
    appended again recorded the events twice); the next append and verify see the right head."""
    where, via, cutter = relayed
    events = sample(DAMAGE)
    with Store(via, concurrent=concurrent_store) as store:
        duel = store.create_duel("lost answer")
        assert store.append(duel, events[:3]) == 3
        cutter.armed.set()
        assert store.append(duel, events[3]) == 4
        assert cutter.cut.is_set()
        assert store.append(duel, events[4]) == 5
        with Store(where, readonly=True) as reader:
            assert [r.event for r in reader.records(duel)] == list(events[:5]) and reader.verify(duel).ok


def test_a_group_whose_commit_answer_was_lost_records_nothing_twice(relayed):
    """A group of appends whose COMMIT was carried out but not answered: each append retried
    alone found its position taken (by its own rows), was told of a conflict and appended its
    events again at the new head, recording them twice (or was refused as illegal there)."""
    where, via, cutter = relayed
    events = sample(DAMAGE)
    with Store(via, concurrent=True) as store:
        duels = [store.create_duel(f"table {i}") for i in range(4)]
        for duel in duels:
            store.append(duel, events[:3])
        inner = store._write_rows

        def arm_for_the_group(rows, snapshot_rows):
            if len(_owners(rows)) > 1 and not cutter.cut.is_set():
                cutter.armed.set()
            inner(rows, snapshot_rows)
        store._write_rows = arm_for_the_group
        told: dict[str, object] = {}

        def append(duel: str) -> None:
            try:
                told[duel] = store.append(duel, events[3])      # a hand drawn: legal twice
            except Exception as exc:
                told[duel] = exc
        first = store.create_duel("the first write, held")
        _held_group(store, lambda: store.append(first, events[0]), [lambda d=d: append(d) for d in duels])
        assert cutter.cut.is_set()
        assert told == {duel: 4 for duel in duels}
        with Store(where, readonly=True) as reader:
            for duel in duels:
                assert [r.event for r in reader.records(duel)] == list(events[:4]) and reader.verify(duel).ok
