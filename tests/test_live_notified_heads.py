"""A write's notification names the anchors it wrote (issue 25): every worker's listener takes
the heads from it and reads none back, where each read them back with a statement at every write
of either worker. A notification that names none (too many for PostgreSQL's payload, or written
by another writer) has them read, and every head still comes once, in the order written."""
from __future__ import annotations

import threading

import pytest

from test_group_commit import _held_group
from test_store import DAMAGE, REPLAYS, fresh_url
from ygoreplay import store as store_module
from ygoreplay.jsonl import read_events
from ygoreplay.store import Store, _Heads

EVENTS = read_events(REPLAYS / DAMAGE)


@pytest.fixture
def reads(monkeypatch) -> list[int]:
    """The listeners' reads of the anchors from now on (the last notification id each read after)."""
    seen: list[int] = []
    real = _Heads._read

    def counted(self: _Heads) -> None:
        seen.append(self._last)
        real(self)
    monkeypatch.setattr(_Heads, "_read", counted)
    return seen


def heads_of(heads: _Heads, n: int) -> list[tuple[str, int]]:
    """The next ``n`` heads, read in a thread of its own (never left waiting)."""
    got: list[tuple[str, int]] = []

    def take() -> None:
        for head in heads:
            got.append(head)
            if len(got) == n:
                return
    reader = threading.Thread(target=take)
    reader.start()
    reader.join(30)
    assert not reader.is_alive(), f"heads missing: {got}"
    return got


def test_the_heads_a_write_notifies_are_taken_from_its_notification_none_read_back(tmp_path, reads):
    with fresh_url("postgresql", tmp_path / "x.sqlite", "heads") as url, \
            Store(url, concurrent=True) as writer, Store(url, concurrent=True) as reader:
        duels = [writer.create_duel(f"table {i}") for i in range(4)]
        with reader.subscribe(reader.last_notification()) as heads:
            writer.append(duels[0], EVENTS[:1], expected_position=0)
            assert heads_of(heads, 1) == [(duels[0], 1)]
            assert len(reads) == 1                      # what was written before it listened, once
            writer.append(duels[0], EVENTS[1:3], expected_position=1)
            # a group commit of three duels' appends: one notification names the three
            _held_group(writer, lambda: writer.append(duels[3], EVENTS[:1], expected_position=0),
                        [lambda d=d: writer.append(d, EVENTS[:1], expected_position=0) for d in duels[1:3]])
            got = heads_of(heads, 4)
            assert got[:2] == [(duels[0], 3), (duels[3], 1)] and sorted(got[2:]) == sorted((d, 1) for d in duels[1:3])
            assert len(reads) == 1, "no head was read back"


def test_a_notification_that_names_no_heads_has_them_read_and_each_comes_once_in_order(tmp_path, reads):
    """One writer's notifications too long for a payload (as a group of hundreds of anchors is)
    name none; another's name theirs: between them, every head once, in the order written."""
    with fresh_url("postgresql", tmp_path / "x.sqlite", "heads") as url:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(store_module, "_PAYLOAD_MOST", 10)
            unnamed = Store(url, concurrent=True)
        with unnamed, Store(url, concurrent=True) as named, Store(url, concurrent=True) as reader:
            duels = [named.create_duel(f"table {i}") for i in range(3)]
            with reader.subscribe(reader.last_notification()) as heads:
                named.append(duels[0], EVENTS[:1], expected_position=0)
                assert heads_of(heads, 1) == [(duels[0], 1)]
                counts = {duels[0]: 1}
                for writers in ((named, unnamed), (unnamed, named), (named, unnamed, named, unnamed, named)):
                    order = []
                    for k, writer in enumerate(writers):       # named and not, in turn, each way round
                        duel = duels[k % 3]
                        at = counts.get(duel, 0)
                        writer.append(duel, EVENTS[at:at + 1], expected_position=at)
                        counts[duel] = at + 1
                        order.append((duel, at + 1))
                    assert heads_of(heads, len(order)) == order
            assert len(reads) > 1, "the unnamed notifications had the heads read"
