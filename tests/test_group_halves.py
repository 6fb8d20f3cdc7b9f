"""A group commit that fails (issue 25), on SQLite and on PostgreSQL: its halves are written, each
signed again as a group of its own, down to the append at fault, which alone is told its error;
the others are written and acknowledged, every anchor of them good. A write cut off part way
acknowledges exactly the appends whose rows were committed. Nothing here is timed: writes are counted.
"""
from __future__ import annotations

import math
import threading

import msgpack

from test_group_commit import _first_position_taken, _held_group, _writers, concurrent, url  # noqa: F401 (the fixtures)
from ygoreplay.errors import ConflictError, StoreError
from ygoreplay.store import Store


def _appender(store: Store, event, outcomes: dict):
    def append(duel: str) -> None:
        try:
            outcomes[duel] = store.append(duel, event, expected_position=3)
        except (StoreError, ConflictError, _Cut) as exc:
            outcomes[duel] = exc
    return append


class _Cut(BaseException):
    """The leader's write cut off (an interrupt, the process ending) part way through a failed group."""


def test_one_append_at_fault_in_a_large_group_costs_a_few_writes_not_one_an_append(url, concurrent):
    events, duels = _first_position_taken(url, concurrent, 16)
    outcomes: dict[str, object] = {}
    append = _appender(concurrent, events[3], outcomes)
    inner, refused = concurrent._write_rows, set()

    def write_rows(rows, snapshot_rows):         # the signatures of every write refused
        try:
            inner(rows, snapshot_rows)
        except Exception:
            refused.update(msgpack.unpackb(r.state)["sig"] for r in rows if str(r.originator_id).endswith("/head"))
            raise
    concurrent._write_rows = write_rows
    first = concurrent.create_duel("the first write, held")
    writes = _held_group(concurrent, lambda: concurrent.append(first, events[0]),
                         [lambda d=d: append(d) for d in duels])
    assert any(owners == set(duels) for _thread, owners in writes), "the sixteen appends were offered as one group"
    assert isinstance(outcomes[duels[0]], ConflictError)          # the one that lost the race, alone
    assert all(outcomes[d] == 4 for d in duels[1:])
    # the group, then halves down to four appends, then those four alone: 1 + 2 + 2 + 4 (was 1 + 16)
    group_writes = len(writes) - 1
    assert group_writes <= 2 * math.ceil(math.log2(len(duels))) + 1 < len(duels)
    if concurrent.backend == "postgresql":       # the position found taken: the rest as one group, it alone
        assert group_writes == 3
    with Store(url, readonly=True) as reader:
        for duel in duels:                # each anchor signed again with its part's group: it verifies
            assert [r.event for r in reader.records(duel)] == list(events[:4]) and reader.verify(duel).ok
            # and no refused write's signature is stored: it covers an append never written, whose
            # anchor or receipt it and a group-mate's path would rebuild (a head the store never held)
            head = reader.events.select_events(f"{duel}/head", desc=True, limit=1)[0]
            assert msgpack.unpackb(head.state)["sig"] not in refused
    assert refused


def test_two_appends_at_one_position_in_one_group_one_is_written_the_other_conflicts(url, concurrent):
    """A match's game end appends to its duel in its own transaction (``others``) while that duel's
    recorder appends at the same position: both in one group, the first offered is written, the
    other is refused as a conflict, and the group's other appends are written."""
    events, duels = _first_position_taken(url, concurrent, 8)
    game, contested, rest = duels[1], duels[2], duels[3:]
    outcomes: dict[str, object] = {}
    seen, release, holding = _writers(concurrent, hold_first=True)
    held = threading.Thread(target=lambda: concurrent.append(concurrent.create_duel("held"), events[0]))
    held.start()
    assert holding.wait(30)

    def game_end() -> None:
        try:
            outcomes["game"] = concurrent.append_records(game, [events[3]], expected_position=3,
                                                         others=[(contested, [events[3]], 3)])
        except (StoreError, ConflictError) as exc:
            outcomes["game"] = exc
    threads = [threading.Thread(target=game_end)]
    threads[0].start()
    while concurrent._committer.waiting() < 1:
        threading.Event().wait(0.01)
    append = _appender(concurrent, events[3], outcomes)
    threads += [threading.Thread(target=append, args=(d,)) for d in [contested, *rest]]
    for thread in threads[1:]:
        thread.start()
    while concurrent._committer.waiting() < len(threads):
        threading.Event().wait(0.01)
    release.set()
    for thread in threads + [held]:
        thread.join(30)
        assert not thread.is_alive(), "an append was left waiting"
    assert any({game, contested} <= owners for _thread, owners in seen), "both were offered in one group"
    assert isinstance(outcomes[contested], ConflictError)
    assert [r.position for r in outcomes["game"]] == [3]
    assert all(outcomes[d] == 4 for d in rest)
    with Store(url, readonly=True) as reader:
        for duel in [game, contested, *rest]:
            assert reader.info(duel).events == 4 and reader.verify(duel).ok


def _offered_in_order(store: Store, first, others: list) -> None:
    """``first`` (an append) held in its write until each of ``others`` waits behind it, offered
    one after the other, in their order: the first of them leads their group."""
    seen, release, holding = _writers(store, hold_first=True)
    held = threading.Thread(target=first)
    held.start()
    assert holding.wait(30)
    threads = [threading.Thread(target=call) for call in others]
    for waiting, thread in enumerate(threads, 1):
        thread.start()
        while store._committer.waiting() < waiting:
            threading.Event().wait(0.01)
    release.set()
    for thread in threads + [held]:
        thread.join(30)
        assert not thread.is_alive(), "an append was left waiting"


def test_a_write_cut_off_part_way_through_a_failed_group_acknowledges_exactly_what_was_committed(url, concurrent):
    events, duels = _first_position_taken(url, concurrent, 8)
    outcomes: dict[str, object] = {}
    append = _appender(concurrent, events[3], outcomes)
    inner, calls = concurrent._write_rows, []

    def write_rows(rows, snapshot_rows):  # the first write after a part of the refused group was written: cut
        if calls and calls[-1] == "written" and len(calls) > 2:
            raise _Cut()
        calls.append("refused")
        inner(rows, snapshot_rows)
        calls[-1] = "written"
    concurrent._write_rows = write_rows
    first = concurrent.create_duel("the first write, held")
    # duel 0's append (its position taken) leads the group: it is told the cut, every other is not
    _offered_in_order(concurrent, lambda: concurrent.append(first, events[0]), [lambda d=d: append(d) for d in duels])
    concurrent._write_rows = inner
    assert [d for d in duels if isinstance(outcomes[d], _Cut)] == [duels[0]], "the write was cut off in the leader"
    with Store(url, readonly=True) as reader:
        stored = {d for d in duels[1:] if reader.info(d).events == 4}
        for duel in duels:
            assert reader.verify(duel).ok
    told_written = {d for d in duels if outcomes[d] == 4}
    assert told_written <= stored, "an append was acknowledged that was not committed"
    assert stored == told_written, "an append committed with a part was told it was not"
    assert told_written, "a part was written before the cut"
