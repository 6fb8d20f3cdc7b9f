"""Attacks on the PostgreSQL write sent as one pipeline through psycopg's own steps (issue 25,
tenth pass): its connection cut at each point of the write (after its BEGIN, mid-rows, just
before its COMMIT's Execute), alone and with many stores appending at once. Nothing of such a
write reaches the server's COMMIT, and the store learns so on a new connection: the append was
told the store "refused the write" (a ``StoreError``: exit 2, the service's 503 without a code
or Retry-After, as a write at fault), where the store is not answering (``StoreUnavailable``:
exit 75, ``store_unavailable``). Nothing acknowledged is lost, nothing is recorded twice, every
duel verifies. The cuts are made by a TCP relay this test controls: never by stopping the shared
server. Nothing here is timed."""
from __future__ import annotations

import socket
import threading

import pytest

from test_attack_25k import _Cutter, _through
from test_group_commit import DAMAGE
from test_pg_outage import _outcome
from test_store import sample
from ygoreplay.errors import ConflictError, StoreUnavailable, WriteOutcomeUnknown
from ygoreplay.store import Store

_SYNC = b"S\x00\x00\x00\x04"                 # the message that ends a pipeline


class _MidCut(_Cutter):
    """A TCP relay that, once armed, holds what a client sends until its pipeline's Sync, and
    when that is a write (large), passes on only its first part (``keep``: a fraction, or when
    negative all but that many of its last bytes: -15, all but the COMMIT's Execute and the
    Sync), then cuts that connection: the server has a part of the write, never its COMMIT. (The
    COMMIT is a prepared statement once the connection ran it five times: its text is not looked
    for.)"""

    keep: float = 0.5

    def _relay(self, source: socket.socket, to: socket.socket, answers: bool) -> None:
        held = b""
        try:
            while data := source.recv(65536):
                if answers or not (held or self.armed.is_set()) or (not held and data[:1] in b"Q\x00"):
                    # (a simple query, as ROLLBACK, is never held, nor a new connection's startup
                    # message (no type byte): held, its connect waited for its timeout, a minute a run)
                    to.sendall(data)
                    continue
                held += data
                if (end := held.rfind(_SYNC)) < 0:       # (a Flush may follow the Sync)
                    continue
                if end > 2000 and self.armed.is_set():
                    to.sendall(held[:int(end * self.keep) if self.keep > 0 else end + 5 + int(self.keep)])
                    self._cut()
                    break
                to.sendall(held)
                held = b""
        except OSError:
            pass
        self._hang_up(source, to)


@pytest.fixture
def midcut(tmp_path):
    """A PostgreSQL store's URL, and that URL through a ``_MidCut``."""
    yield from _through(_MidCut(), tmp_path, "atk25s")


@pytest.mark.parametrize("keep", [0.1, 0.5, -15])
@pytest.mark.parametrize("concurrent_store", [False, True])
def test_a_write_cut_before_its_commit_reached_the_server_is_told_the_store_is_unavailable(
        midcut, keep, concurrent_store):
    """The connection is cut while the write is sent (after its BEGIN, mid-rows, just before its
    COMMIT): the server never had the COMMIT, so nothing is written, and the store learns so (a
    new connection finds the rows absent). The append is told the store is not answering and
    nothing was written (``StoreUnavailable``: 503, exit 75), not that the store "refused the
    write" (a ``StoreError``: the service's 503 without its code, exit 2, as for a write at fault);
    the next append goes on from the same head."""
    where, via, relay = midcut
    events = sample(DAMAGE)
    with Store(via, concurrent=concurrent_store) as store:
        duel = store.create_duel("cut mid-write")
        assert store.append(duel, events[:3]) == 3
        relay.keep = keep
        relay.armed.set()
        told = _outcome(lambda: store.append(duel, events[3:40]))
        assert relay.cut.is_set()
        assert type(told) is StoreUnavailable and told.exit_code == 75, repr(told)
        assert "nothing was written" in str(told) and "try again" in str(told), str(told)
        with Store(where, readonly=True) as reader:
            assert reader.info(duel).events == 3
        assert store.append(duel, events[3:40]) == 40
    with Store(where, readonly=True) as reader:
        assert [r.event for r in reader.records(duel)] == list(events[:40]) and reader.verify(duel).ok


def test_many_stores_appending_while_connections_are_cut_keep_exactly_what_they_were_told(midcut):
    """Four stores (the service's workers) append to their own duels and to shared ones while
    the relay cuts a write before its COMMIT again and again: every append is told it was
    written (and is stored once), or a conflict, or the store unavailable with nothing written,
    or its outcome unknown; the stored events are exactly those, and every duel verifies."""
    where, via, relay = midcut
    events = sample(DAMAGE)
    stores = [Store(via, concurrent=True) for _ in range(4)]
    try:
        duels = [stores[0].create_duel(f"table {i}") for i in range(6)]
        written: dict[str, set[int]] = {duel: set() for duel in duels}
        unknown: dict[str, set[int]] = {duel: set() for duel in duels}
        wrong: list[BaseException] = []
        guard = threading.Lock()
        stop = threading.Event()

        def worker(store: Store, mine: list[str]) -> None:
            for _ in range(3):
                for duel in mine:
                    try:
                        head = store.info(duel).events
                        if head >= len(events):
                            continue
                        count = store.append(duel, events[head], expected_position=head)
                        with guard:
                            written[duel].add(count)
                    except (ConflictError, WriteOutcomeUnknown) as exc:
                        if isinstance(exc, WriteOutcomeUnknown):
                            with guard:
                                unknown[duel].add(head + 1)
                    except StoreUnavailable as exc:
                        if "nothing was written" not in str(exc) and "not answering" not in str(exc):
                            wrong.append(exc)
                    except Exception as exc:          # noqa: BLE001 (a wrong answer: asserted)
                        wrong.append(exc)

        def cutter() -> None:
            while not stop.is_set():
                relay.armed.set()
                relay.cut.wait(5)
                relay.cut.clear()
                threading.Event().wait(0.05)
        threads = [threading.Thread(target=worker, args=(store, duels[k::2] + duels[:1]))
                   for k, store in enumerate(stores)]
        cutting = threading.Thread(target=cutter, daemon=True)
        cutting.start()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(300)
            assert not thread.is_alive()
        stop.set()
        relay.armed.clear()
        assert wrong == [], wrong
        with Store(where, readonly=True) as reader:
            for duel in duels:
                stored = reader.info(duel).events
                assert written[duel] <= set(range(1, stored + 1)), (written[duel], stored)
                assert set(range(1, stored + 1)) <= written[duel] | unknown[duel], (duel, stored)
                assert [r.event for r in reader.records(duel)] == list(events[:stored]) and reader.verify(duel).ok
    finally:
        for store in stores:
            store.close()
