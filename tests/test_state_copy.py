"""``DuelState.copy`` is written out attribute by attribute (for speed: the fold copies a state
before each event naming an unknown card). These tests hold it to what ``copy.deepcopy`` gave: a
copy equal to the state that shares no mutable object with it, only the card facts, the card
database and the unknown cards' facts; and they fail when the state gains an attribute or slot
the copy does not know."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest

from ygoreplay.cards import CardDB, CardFacts, UnknownFacts
from ygoreplay.events import Cite
from ygoreplay.jsonl import read_events
from ygoreplay.live import LiveView
from ygoreplay.rules import History, apply
from ygoreplay.state import (_STATE_ATTRS, _STATE_COPY, Attack, Card, ChainLink, DuelState,
                             Override, Side, Violation, _copy_data, _plain)
from ygoreplay.store import Record

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted(p for p in (ROOT / "replays").glob("*.jsonl") if ".public" not in p.name)
REAL = Path("/work/shared/real-replays/edopro")
#: Values a state and its copy may share: immutable, their items walked as well.
IMMUTABLE = (str, int, float, bool, bytes, type(None), tuple, frozenset, Cite)


def _reachable(obj: object, stop: set[int], found: dict[int, object]) -> None:
    """Every object reachable from ``obj`` (not through ``stop``, nor into classes): mutable ones
    into ``found`` by id. Immutable containers are walked, not kept."""
    todo = [obj]
    seen: set[int] = set()
    while todo:
        item = todo.pop()
        key = id(item)
        if key in seen or key in stop or isinstance(item, type):
            continue
        seen.add(key)
        if type(item) not in IMMUTABLE:
            found[key] = item
        if isinstance(item, (Card, Side, ChainLink, Attack, Override, Violation, Cite)):
            todo.extend(getattr(item, slot) for slot in type(item).__slots__)
        elif isinstance(item, DuelState):
            todo.extend(getattr(item, name) for name in DuelState.__slots__)
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            todo.extend(item)
        elif not isinstance(item, (str, int, float, bytes, type(None))):
            raise AssertionError(f"the walk does not know a {type(item).__name__}: teach it, or the copy")


def _shared(state: DuelState) -> set[int]:
    """What a copy shares with ``state`` (as ``deepcopy``'s memo did): the facts, the db, ``unknown``."""
    return {id(state.db), id(state.unknown)} | {id(card.facts) for card in state.cards.values()}


def assert_independent(state: DuelState, copied: DuelState) -> None:
    """``copied`` equals ``state`` and shares no mutable object with it but the facts and the db."""
    assert copied is not state
    assert copied.to_data() == state.to_data()
    assert all(hasattr(copied, name) for name in DuelState.__slots__)
    for name in ("violations", "undecided", "flags", "reads_before", "unknowns", "db", "unknown"):
        assert getattr(copied, name) == getattr(state, name), name
    assert copied.db is state.db and copied.unknown is state.unknown
    for card_id, card in state.cards.items():
        assert copied.cards[card_id].facts is card.facts
    stop = _shared(state)
    mine: dict[int, object] = {}
    theirs: dict[int, object] = {}
    _reachable(state, stop, mine)
    _reachable(copied, stop, theirs)
    common = mine.keys() & theirs.keys()
    assert not common, f"shared mutable objects: {[mine[k] for k in common][:5]}"
    assert len(theirs) == len(mine)                # no object held twice in one became two in the other


def _checking_copies(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make every ``DuelState.copy`` call (wherever the code takes one) check its copy at once."""
    original = DuelState.copy
    calls = [0]

    def checked(self: DuelState) -> DuelState:
        copied = original(self)
        assert_independent(self, copied)
        calls[0] += 1
        return copied
    monkeypatch.setattr(DuelState, "copy", checked)
    return calls


def _fold_copying(events: list, cards: CardDB, audit: bool) -> int:
    """Fold ``events`` as a history does, copying the state after each one (``audit``:
    violations collected, so the state holds a list of them); how many states were copied."""
    history = History(cards, audit=audit)
    assert_independent(history.state, history.state.copy())
    for event in events:
        history.append(event)
        assert_independent(history.state, history.state.copy())
    return len(events)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_copy_at_every_event_of_the_samples(path: Path) -> None:
    events = read_events(path)
    assert _fold_copying(events, CardDB.classic(), audit=False) == len(events) > 0
    _fold_copying(events, CardDB.classic(), audit=True)


def _real_duels(count: int) -> list:
    if not REAL.is_dir():
        pytest.skip(f"no real replays at {REAL}")
    from ygoreplay.rules import RuleViolation
    from ygoreplay.yrpx import YrpxError, import_yrpx
    found = []
    for path in sorted(REAL.glob("*.yrpX")):
        try:
            result = import_yrpx(path)
            History(result.cards).extend(result.events)
        except (YrpxError, RuleViolation):
            continue
        found.append(result)
        if len(found) == count:
            break
    assert found
    return found


def test_copy_at_every_event_of_real_duels() -> None:
    for result in _real_duels(3):
        assert _fold_copying(result.events, result.cards, audit=True) == len(result.events) > 50


def test_every_copy_a_view_takes_is_independent(monkeypatch: pytest.MonkeyPatch) -> None:
    """The copies the views' folds take themselves (before each event naming an unknown card),
    of states holding unknown cards and undecided rules: each checked as it is taken."""
    calls = _checking_copies(monkeypatch)
    for result in _real_duels(2):
        for view in ("p0", "spectator"):
            live = LiveView(view, result.cards, b"a test secret, 32 bytes long....")
            for position, event in enumerate(result.events):
                live.feed(Record(position, event, "2024-05-01T12:00:00+00:00", b"", b""))
    assert calls[0] > 0


def test_a_copy_changes_apart_from_its_state() -> None:
    events = read_events(SAMPLES[0])
    state = DuelState(CardDB.classic())
    for event in events:
        apply(state, event)
    before = state.to_data()
    copied = state.copy()
    for card in copied.cards.values():
        card.counters["spell"] = 1
        card.materials.append("x")
    for side in copied.sides:
        side.hand.append("x")
        side.mzone[0] = "x"
    copied.card_text[0]["x"] = ["EVENT_TO_GRAVE", 0, "gy"]
    copied.timing[2]["x"] = [0, "gy"]
    copied.material_moves.append([0, "x"])
    copied.must_lose[0] = "x"
    assert state.to_data() == before


def test_a_state_holds_only_the_attributes_the_copy_knows() -> None:
    """Its attributes are slots, ``_STATE_COPY``'s (#25: the fold reads them as slots): one the
    copy does not know cannot be set, and ``__init__`` sets every one."""
    state = DuelState(CardDB.classic())
    assert DuelState.__slots__ == _STATE_COPY and not hasattr(state, "__dict__")
    assert all(hasattr(state, name) for name in _STATE_ATTRS)
    with pytest.raises(AttributeError):
        state.something_new = []
    assert state.copy().to_data() == state.to_data()


def test_plain_data_is_copied_deeply_and_anything_else_refused() -> None:
    data = [1, "a", None, (1, "b"), ([2],), {"k": [3, {4}]}, frozenset({"c"})]
    copied = _copy_data(data)
    assert copied == data
    found: dict[int, object] = {}
    mine: dict[int, object] = {}
    _reachable(data, set(), mine)
    _reachable(copied, set(), found)
    assert not mine.keys() & found.keys()
    assert copied[3] is data[3]                    # a tuple of immutables is shared, as deepcopy shares it
    with pytest.raises(TypeError, match="object"):
        _copy_data([object()])


def test_the_copy_is_what_deepcopy_gave() -> None:
    """The same state as the generic deep copy it replaced, with the same objects shared."""
    state = DuelState(CardDB.classic())
    for event in read_events(SAMPLES[-1]):
        apply(state, event)
    memo = {id(state.db): state.db, id(state.unknown): state.unknown}
    memo.update((id(c.facts), c.facts) for c in state.cards.values())
    deep = copy.deepcopy(state, memo)
    fast = state.copy()
    assert fast.to_data() == deep.to_data()
    assert isinstance(fast.unknown, UnknownFacts)
    assert all(isinstance(c.facts, (CardFacts, UnknownFacts)) for c in fast.cards.values())


def test_plain_data_of_a_snapshot_is_lists_sets_sorted_whatever_the_types() -> None:
    """``_plain``'s shortcut for plain types keeps its answer for everything else (issue 25): a
    subclass of int, tuple or str, sets inside tuples, all as the generic path gives them."""
    from enum import IntEnum
    from typing import NamedTuple

    class Seat(IntEnum):
        ONE = 1

    class Pair(NamedTuple):
        a: int
        b: frozenset

    value = [1, "a", None, True, 2.5, b"x", (3, (4, frozenset({6, 5}))), {8, 7}, Seat.ONE, Pair(9, frozenset({11, 10}))]
    plain = _plain(value)
    assert plain == [1, "a", None, True, 2.5, b"x", [3, [4, [5, 6]]], [7, 8], 1, [9, [10, 11]]]
    assert type(plain[8]) is Seat and all(type(x) is list for x in (plain[6], plain[6][1], plain[7], plain[9]))
    assert _plain(("a", "b")) == ["a", "b"] and _plain(7) == 7


def test_a_snapshot_of_another_version_resumes_with_the_scalars_a_state_has() -> None:
    """``from_data`` of an older (or newer) snapshot's scalars: one it lacks keeps its default, one
    no state holds any more is dropped, and the state resumed copies like any other (#25: the
    state's attributes are its slots, set in one statement when the snapshot has them all)."""
    state = DuelState(CardDB.classic())
    state.turn_began = 7
    data = state.to_data()
    del data["scalars"]["turn_began"]
    data["scalars"]["a_retired_scalar"] = 1
    resumed = DuelState.from_data(data, state.db)
    assert resumed.turn_began == 0 and not hasattr(resumed, "a_retired_scalar")
    assert resumed.copy().to_data() == resumed.to_data()
    assert DuelState.from_data(state.to_data(), state.db).turn_began == 7
