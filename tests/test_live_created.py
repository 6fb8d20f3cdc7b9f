"""A table's first append on the worker that created its duel (issue 25, eleventh pass).

The paced service's p99 was the burst of the tables' first appends: each read its new duel back
(``Store.opened``) and checked its anchor twice (by its MAC, then by its Ed25519 signature), on
the worker that had just written it too. That worker now holds the duel as it wrote it
(``Hub.created``). What must not change: the duel shown is the one stored, another process's
appends to a duel created here reach it, and a worker that did not create it checks the anchor's
signature before its first append (an append reads the anchor by its signature:
``test_group_signature``).
"""
from __future__ import annotations

import asyncio

import pytest

from test_live_first_append import EVENTS, OPENING, WITNESSED, _counted
from test_live_followers import _until
from test_store import fresh_url
from ygoreplay.access import Access, digest
from ygoreplay.application import Records
from ygoreplay.errors import InputError
from ygoreplay.live import Hub
from ygoreplay.service.core import Service
from ygoreplay.signing import PublicKey
from ygoreplay.store import Store


@pytest.fixture
def signatures(monkeypatch) -> list[bytes]:
    """The Ed25519 signatures checked from now on (their messages)."""
    checked: list[bytes] = []
    real = PublicKey.verify

    def counted(self, signature, message):
        checked.append(message)
        return real(self, signature, message)
    monkeypatch.setattr(PublicKey, "verify", counted)
    return checked


def _service(store: Store) -> Service:
    return Service(store, digest("organiser-" + "0" * 40))


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_duel_created_here_is_appended_to_without_reading_it_back(tmp_path, backend, monkeypatch, signatures):
    """Its first append read the duel back in a statement and checked its anchor by its
    signature: ~1 ms of CPU a table in the burst of a room's first appends. The live duel
    held is the one a fresh read of the store gives."""
    with fresh_url(backend, tmp_path / "x.sqlite", "created") as url, Store(url) as store:
        service = _service(store)
        duel = service.create("table", "private", 0, 0.0)["id"]
        reads = _counted(store, monkeypatch)
        signatures.clear()
        live = service.hub.get(duel)                             # the caller's check
        written = service.hub.appending(
            duel, lambda: service.records.append_records(duel, EVENTS[:OPENING], 0, "recorder")[0])
        assert reads == [], "the duel was read back"
        assert signatures == [], "an anchor this process wrote was checked by its signature"
        monkeypatch.undo()
        assert [r.position for r in written] == list(range(OPENING))
        assert [r.event for r in live.records] == list(EVENTS[:OPENING])
        fresh = Hub(store).get(duel)                             # as a worker that did not create it reads it
        assert (live.header, live.access, live.broken) == (fresh.header, fresh.access, fresh.broken)
        assert [(r.hash, r.event) for r in live.records] == [(r.hash, r.event) for r in fresh.records]
        assert live.cards.to_json_list() == fresh.cards.to_json_list()
        assert store.verify(duel).ok


def test_a_duel_created_witnessed_here_is_held_witnessed(tmp_path):
    """What its first append is checked by is the access it was created with: a machine's
    opening is refused in a duel created witnessed, a table's kept."""
    with Store(str(tmp_path / "x.sqlite")) as store:
        service = _service(store)
        duel = service.create("table", "private", 0, 0.0, mode="witnessed")["id"]
        live = service.hub.duels[duel]
        assert live.access == Access.from_dict(store.attachment(duel, "access")) and live.access.mode == "witnessed"
        with pytest.raises(InputError, match="witnessed"):
            service.records.append_records(duel, EVENTS[:OPENING], 0, "recorder")
        written = service.hub.appending(
            duel, lambda: service.records.append_records(duel, WITNESSED[:OPENING], 0, "recorder")[0])
        assert len(written) == OPENING and live.count == OPENING


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_first_append_on_another_worker_reads_the_duel_and_checks_its_signature(tmp_path, backend, monkeypatch,
                                                                                  signatures):
    """A worker that did not create the duel holds nothing of it: it reads it once (the live
    duel's load) and checks its anchor's signature before the append is judged on it."""
    with fresh_url(backend, tmp_path / "x.sqlite", "other") as url, Store(url) as creator, Store(url) as store:
        duel = _service(creator).create("table", "private", 0, 0.0)["id"]
        hub, records = Hub(store), Records(store)
        reads = _counted(store, monkeypatch)
        signatures.clear()
        hub.get(duel)
        hub.appending(duel, lambda: records.append_records(duel, EVENTS[:OPENING], 0, "recorder")[0])
        assert reads == [f"statement {duel}"] and len(signatures) == 1
        monkeypatch.undo()
        assert store.verify(duel).ok


def test_a_duel_created_here_and_appended_to_by_another_process_is_read_here(tmp_path):
    """Held from its creation on, before its id is answered: the other process's appends are
    notified to it, and the next request here reads them."""
    with fresh_url("postgresql", tmp_path / "x.sqlite", "notified") as url, \
            Store(url, concurrent=True) as store, Store(url, concurrent=True) as other:
        service = _service(store)
        loop = asyncio.new_event_loop()           # its wake-ups are only queued: nobody waits here
        service.hub.start(loop)
        try:
            duel = service.create("table", "private", 0, 0.0)["id"]
            assert service.hub.duels[duel].count == 0
            Records(other).append_records(duel, EVENTS[:OPENING], 0, "recorder")
            _until(lambda: service.hub.duels[duel].behind == OPENING, "the other process's append is heard here")
            live = service.hub.get(duel)
            assert [r.event for r in live.records] == list(EVENTS[:OPENING])
            written = service.hub.appending(
                duel, lambda: service.records.append_records(duel, [EVENTS[OPENING]], OPENING, "recorder")[0])
            assert [r.position for r in written] == [OPENING] and live.count == OPENING + 1
        finally:
            service.hub.stop()
            loop.close()
