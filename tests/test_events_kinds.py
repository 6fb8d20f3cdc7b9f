"""Event kinds are made by ``events._frozen_kind``, not by ``dataclass`` (which compiled six
methods a kind: most of every command's start-up, issue 25): each kind must be the class
``dataclass(frozen=True, slots=True, kw_only=True)`` makes of the same body, in everything but
speed. Each is compared with that twin, built here from the kind's own namespace."""
from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import subprocess
import sys
from typing import Any, Callable

import pytest

from conftest import ROOT
from ygoreplay.events import EVENT_TYPES, Event, from_dict
from ygoreplay.jsonl import read_events
from ygoreplay.match import events as _match_kinds  # noqa: F401  (registers the match's kinds)

MADE = {"__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__", "__match_args__",
        "__getstate__", "__setstate__", "__slots__", "__dataclass_fields__", "__dataclass_params__", "__dict__",
        "__weakref__"}


def twin(kind: type[Event]) -> type[Event]:
    """The dataclass of the kind's body: its own annotations, defaults, class variables, methods."""
    namespace = {key: value for key, value in vars(kind).items()
                 if key not in MADE and not isinstance(value, type(Event.player))}     # not the slots
    namespace.update((f.name, f.default) for f in dataclasses.fields(kind)
                     if f.name in kind.__annotations__ and f.default is not dataclasses.MISSING)
    if namespace["__doc__"].startswith(f"{kind.__name__}("):
        namespace["__doc__"] = None                  # the signature dataclass wrote for a kind without one
    return dataclasses.dataclass(frozen=True, slots=True, kw_only=True)(
        type(kind.__name__, kind.__bases__, namespace))


def outcome(call: Callable[[], Any]) -> tuple[str, str]:
    try:
        return "ok", repr(call())
    except Exception as exc:                         # noqa: BLE001 - the exception is what is compared
        return type(exc).__name__, str(exc)


def _field_facts(cls: type) -> list[tuple]:
    return [(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.hash, f.compare, dict(f.metadata),
             f.kw_only, f._field_type) for f in dataclasses.fields(cls)]


@pytest.mark.parametrize("kind", sorted(EVENT_TYPES))
def test_a_kind_is_the_dataclass_of_its_body(kind):
    made = EVENT_TYPES[kind]
    want = twin(made)
    assert made.__doc__ == want.__doc__
    assert str(inspect.signature(made)) == str(inspect.signature(want))
    assert _field_facts(made) == _field_facts(want)
    assert made.__slots__ == want.__slots__ and made.__match_args__ == want.__match_args__ == ()
    assert made.__init__.__annotations__ == want.__init__.__annotations__
    assert made.__init__.__qualname__ == want.__init__.__qualname__
    assert repr(made.__dataclass_params__) == repr(want.__dataclass_params__)
    assert sorted(vars(made)) == sorted(vars(want))
    assert dataclasses.is_dataclass(made)
    for given in ({}, {"zz": 1}, {"player": 0}, {"player": 0, "time": "12:00"}):
        assert outcome(lambda: made(**given)) == outcome(lambda: want(**given)), given
    assert outcome(lambda: made(1)) == outcome(lambda: want(1))


def _recorded() -> list[Event]:
    return [event for path in sorted((ROOT / "replays").glob("*.jsonl")) for event in read_events(path)]


def test_recorded_events_behave_as_their_dataclass_twins_do():
    """Equality, hashing, repr, immutability, pickling, copying, ``dataclasses.replace``."""
    twins: dict[type, type] = {}
    events = _recorded()
    assert len({type(event) for event in events}) > 20
    for event in events:
        want_cls = twins.setdefault(type(event), twin(type(event)))
        values = {f.name: getattr(event, f.name) for f in dataclasses.fields(event)}
        want = want_cls(**values)
        same = type(event)(**values)
        assert repr(event) == repr(want).replace(want_cls.__qualname__, type(event).__qualname__, 1)
        assert event == same and not event != same and hash(event) == hash(same) == hash(want)
        assert event != want and event.__eq__(want) is NotImplemented
        assert pickle.loads(pickle.dumps(event)) == event and copy.deepcopy(event) == event == copy.copy(event)
        assert event.__getstate__() == want.__getstate__()
        assert dataclasses.replace(event, player=1) == type(event)(**{**values, "player": 1})
        assert outcome(lambda: dataclasses.replace(event, zz=1)) == outcome(lambda: dataclasses.replace(want, zz=1))
        assert dataclasses.asdict(event) == dataclasses.asdict(want)
        for name in ("player", "kind"):
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(event, name, 1)
            with pytest.raises(dataclasses.FrozenInstanceError):
                delattr(event, name)
        assert from_dict(event.to_dict()) == event


def test_an_init_is_compiled_when_first_looked_up():
    """Until then the class holds a stand-in that makes it: reading events compiles none."""
    probe = """
import inspect
from ygoreplay.events import EVENT_TYPES
from ygoreplay.jsonl import read_events
read_events("replays/won-by-damage.jsonl")
compiled = [kind for kind, cls in EVENT_TYPES.items() if inspect.isfunction(vars(cls)["__init__"])]
signature = str(inspect.signature(EVENT_TYPES["coin_tossed"]))
print(compiled, inspect.isfunction(vars(EVENT_TYPES["coin_tossed"])["__init__"]), signature)
"""
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.startswith("[] True (*, player: 'int | None' = None"), done.stdout + done.stderr


def test_a_kind_may_not_write_what_is_made_for_it():
    with pytest.raises(TypeError, match="defines __repr__"):
        from ygoreplay.events import _frozen_kind

        class Bad(Event):
            def __repr__(self) -> str:
                return "bad"
        _frozen_kind(Bad)


def test_a_kind_writes_its_wire_form_compiled_once_it_has_written_many(monkeypatch):
    """``to_dict`` of a kind that wrote ``_COMPILE_AFTER`` events is compiled for it
    (``events._compiled_wire``, #25: a third of writing an import's file): every recorded event,
    real EDOPro duels' too, is written key for key, in order and as bytes, as the loop writes it."""
    import msgpack
    from conftest import shared_path
    from ygoreplay import events
    recorded = _recorded()
    real = sorted(shared_path("real-replays", "edopro").glob("*.yrpX"))[:3]
    if real:
        from ygoreplay.yrpx import import_yrpx
        recorded += [event for path in real for event in import_yrpx(path).events]
    monkeypatch.setattr(events, "_WIRE_WRITERS", {})
    monkeypatch.setattr(events, "_WIRE_USES", {})
    monkeypatch.setattr(events, "_COMPILE_AFTER", 1 << 60)
    by_loop = [event.to_dict() for event in recorded]
    assert events._WIRE_WRITERS == {}
    monkeypatch.setattr(events, "_COMPILE_AFTER", 0)
    compiled = [event.to_dict() for event in recorded]
    assert set(events._WIRE_WRITERS) == {type(event) for event in recorded}
    for event, want, got in zip(recorded, by_loop, compiled):
        assert list(got) == list(want) and msgpack.packb(got) == msgpack.packb(want), event
    assert any(event.VERSION != 1 and "v" in wire for event, wire in zip(recorded, compiled))


def test_a_subclass_of_a_kind_of_another_layout_is_built_as_itself():
    """A regression guard: a kind's ``__init__`` fills the kind through its twin (``_twin``), of the
    kind's layout only; an instance of a subclass with slots of its own keeps its class and fields."""
    kind = EVENT_TYPES["card_moved"]

    class Tagged(kind):                             # type: ignore[misc, valid-type]
        __slots__ = ("tag",)

    made = Tagged(card="c1", to=None, reason="tributed")
    assert type(made) is Tagged and (made.card, made.reason, made.to, made.cause) == ("c1", "tributed", None, None)
    assert type(kind(card="c1", to=None)) is kind
