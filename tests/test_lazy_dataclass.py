"""``lazy_dataclass.dataclass`` (issue 25: start-up): a class whose methods are compiled on first
use is, once used, the class ``dataclasses.dataclass`` makes: compared here with an eager twin
built from the same class body, on every class the program defines with it and on each
combination of parameters."""
from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import re
import sys

import pytest

from ygoreplay import lazy_dataclass

#: What ``dataclasses`` writes into a class, which a twin gets from its own ``dataclass``.
_WRITTEN = {"__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__", "__lt__", "__le__",
            "__gt__", "__ge__", "__match_args__", "__getstate__", "__setstate__", "__dataclass_fields__",
            "__dataclass_params__", "__dict__", "__weakref__", "__slots__"}


def _own(method: object) -> bool:
    """Whether ``method`` is the class's own (in its module's source), not one ``dataclasses`` wrote."""
    code = getattr(method, "__code__", None)
    return code is not None and code.co_filename.endswith(".py") and "dataclasses" not in code.co_filename


def _twin(cls: type) -> type:
    """``cls`` as ``dataclasses.dataclass`` builds it eagerly from the same body and parameters."""
    params = cls.__dataclass_params__
    fields = {f.name: f for f in dataclasses.fields(cls)}
    body = {key: value for key, value in cls.__dict__.items() if key not in fields and (key not in _WRITTEN or _own(value))}
    body["__annotations__"] = {name: f.type for name, f in fields.items()}
    for name, f in fields.items():   # each field as declared (``repr=False``, ``compare``...: ``source.Source``'s)
        body[name] = dataclasses.field(default=f.default, default_factory=f.default_factory, kw_only=f.kw_only,
                                       init=f.init, repr=f.repr, hash=f.hash, compare=f.compare, metadata=f.metadata)
    generated = cls.__doc__ and cls.__doc__.startswith(cls.__name__ + "(")
    body["__doc__"] = None if generated else cls.__doc__
    twin = type(cls.__name__, cls.__bases__, body)
    twin.__qualname__ = cls.__qualname__
    return dataclasses.dataclass(twin, init=params.init, repr=params.repr, eq=params.eq, order=params.order,
                                 unsafe_hash=params.unsafe_hash, frozen=params.frozen,
                                 slots="__slots__" in cls.__dict__)


def _outcome(call):
    """What a call gives: its value, or its exception's type and message."""
    try:
        return "value", call()
    except Exception as exc:  # noqa: BLE001 - the two classes must fail alike, whatever the failure
        return type(exc), str(exc)


#: Values a class checks in ``__post_init__`` (by class name), for its fields without a default.
_VALID = {"CardFacts": lambda n: {"code": 1000 + n, "name": f"Card {n}", "type": 0x21},
          "PublicKey": lambda n: {"raw": bytes([n]) * 32},          # an Ed25519 public key's size
          "Source": lambda n: {"name": (n,), "events": (1 + n,), "cards": (2 + n,), "secret": bytes([n]) * 32},  # not random
          # its kind's default (``store.DUEL``) compares by identity: every field given
          "_Live": lambda n: {name: (i + n,) for i, name in enumerate(
              ("history", "header", "cards", "cards_digest", "head", "kind", "effects_digest"))}}


def _repr(value: object) -> str:
    """``repr(value)`` without the address a default repr shows."""
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))


def _values(cls: type, offset: int) -> dict:
    """Keyword arguments for every field without a default (distinct, comparable values)."""
    if cls.__name__ in _VALID:
        return _VALID[cls.__name__](offset)
    return {f.name: (i + offset,) for i, f in enumerate(dataclasses.fields(cls))
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}


def _same(lazy: type, eager: type) -> None:
    """``lazy`` behaves as ``eager``: its signature, doc, parameters, instances' repr, equality,
    order, hash, immutability, copying, pickling (when importable), ``replace``, and each written
    method in its place under its own name once looked up."""
    assert str(inspect.signature(lazy)) == str(inspect.signature(eager))
    assert lazy.__doc__ == eager.__doc__ and lazy.__match_args__ == eager.__match_args__
    assert repr(lazy.__dataclass_params__) == repr(eager.__dataclass_params__)
    assert ("__slots__" in lazy.__dict__) == ("__slots__" in eager.__dict__)
    assert (lazy.__hash__ is None) == (eager.__hash__ is None)
    for name in _WRITTEN & set(vars(eager)):
        written = getattr(eager, name)
        if callable(written):
            assert getattr(lazy, name).__qualname__ == written.__qualname__, name
            assert inspect.isfunction(vars(lazy)[name]) or not inspect.isfunction(vars(eager)[name]), name
    made = [(lazy(**_values(lazy, n)), eager(**_values(eager, n))) for n in (0, 0, 1)]
    for (a, b), (c, d) in zip(made, made[1:] + made[:1]):
        assert _outcome(lambda: _repr(a)) == _outcome(lambda: _repr(b))
        assert (a == c) == (b == d) and (a != c) == (b != d) and (a == b) is False
        assert _outcome(lambda: a < c)[0] == _outcome(lambda: b < d)[0]
        hashed = lazy.__dataclass_params__.eq and lazy.__hash__ is not object.__hash__
        assert _outcome(lambda: hash(a))[::1 if hashed else 2] == _outcome(lambda: hash(b))[::1 if hashed else 2]
        for same in (copy.copy, copy.deepcopy, dataclasses.replace):
            assert (same(a) == a) == (same(b) == b) and _outcome(lambda: _repr(same(a))) == _outcome(lambda: _repr(a))
        assert dataclasses.asdict(a) == dataclasses.asdict(b)
        if getattr(sys.modules.get(lazy.__module__), lazy.__qualname__, None) is lazy:
            assert (pickle.loads(pickle.dumps(a)) == a) == lazy.__dataclass_params__.eq
    for name in [f.name for f in dataclasses.fields(lazy)] + ["not_a_field"]:
        x, y = lazy(**_values(lazy, 9)), eager(**_values(eager, 9))
        assert _outcome(lambda: setattr(x, name, 5))[0] == _outcome(lambda: setattr(y, name, 5))[0]
        assert _outcome(lambda: delattr(x, name))[0] == _outcome(lambda: delattr(y, name))[0]
        assert _outcome(lambda: _repr(x)) == _outcome(lambda: _repr(y))
    assert _outcome(lambda: lazy(not_a_field=1))[0] == _outcome(lambda: eager(not_a_field=1))[0]


def _program_classes() -> list[type]:
    """Every class the program builds with ``lazy_dataclass.dataclass`` (what ``check`` imports;
    not the event kinds, which ``events.event_kind`` makes and ``test_events_kinds`` compares)."""
    import ygoreplay.checking
    from ygoreplay.events import EVENT_TYPES
    import ygoreplay.cli  # noqa: F401
    import ygoreplay.rules  # noqa: F401
    import ygoreplay.store.records  # noqa: F401  (its headers, heads, records and the fold kept at a duel's head)
    import ygoreplay.store.listing  # noqa: F401  (a duel as listed)
    import ygoreplay.store.verifying  # noqa: F401  (a verification's result)
    import ygoreplay.signing  # noqa: F401  (its keys)
    import ygoreplay.source  # noqa: F401  (a duel opened for study)
    found = []
    for module in list(sys.modules.values()):
        if getattr(module, "dataclass", None) is lazy_dataclass.dataclass:
            found += [value for value in vars(module).values() if isinstance(value, type)
                      and value.__module__ == module.__name__ and "__dataclass_params__" in value.__dict__
                      and value not in EVENT_TYPES.values()]
    assert {ygoreplay.checking.CheckReport, ygoreplay.signing.PublicKey, ygoreplay.source.Source} <= set(found)
    return found


def test_every_lazy_class_of_the_program_is_the_dataclass_built_eagerly():
    classes = _program_classes()
    assert len(classes) >= 15
    for cls in classes:
        _same(cls, _twin(cls))


PARAMS = [dict(), dict(frozen=True), dict(slots=True), dict(frozen=True, slots=True), dict(kw_only=True),
          dict(frozen=True, slots=True, kw_only=True), dict(eq=False), dict(order=True), dict(repr=False),
          dict(unsafe_hash=True), dict(frozen=True, order=True, slots=True)]


@pytest.mark.parametrize("params", PARAMS, ids=repr)
def test_each_combination_of_parameters_behaves_as_the_standard_library_s(params):
    def body() -> dict:
        return {"__annotations__": {"a": "int", "b": "tuple", "c": "list", "d": "int"},
                "__doc__": "A record.", "__qualname__": "Record", "c": dataclasses.field(default_factory=list),
                "d": 7, "total": property(lambda self: self.d * 2)}
    lazy = lazy_dataclass.dataclass(type("Record", (), body()), **params)
    eager = dataclasses.dataclass(type("Record", (), body()), **params)
    assert "__repr__" not in lazy.__dict__ or not inspect.isfunction(lazy.__dict__["__repr__"])   # not yet written
    _same(lazy, eager)
    assert lazy(a=1, b=(2,)).total == 14


def test_a_class_without_a_docstring_gets_the_standard_library_s():
    lazy = lazy_dataclass.dataclass(type("Bare", (), {"__annotations__": {"a": "int"}}), frozen=True)
    eager = dataclasses.dataclass(type("Bare", (), {"__annotations__": {"a": "int"}}), frozen=True)
    assert lazy.__doc__ == eager.__doc__ == "Bare(a: 'int')"


def test_what_the_standard_library_refuses_is_refused_alike():
    body = {"__annotations__": {"a": "int", "b": "int"}, "a": 1}             # a field without default after one with
    with pytest.raises(TypeError) as eager:
        dataclasses.dataclass(type("Bad", (), dict(body)))
    with pytest.raises(TypeError) as lazy:
        lazy_dataclass.dataclass(type("Bad", (), dict(body)))
    assert str(lazy.value) == str(eager.value)


def test_the_standard_library_s_dataclass_writes_its_methods_at_once_after_a_lazy_one():
    lazy_dataclass.dataclass(type("Mine", (), {"__annotations__": {"a": "int"}, "__doc__": "Mine."}))
    other = dataclasses.dataclass(type("Other", (), {"__annotations__": {"a": "int"}}))
    assert inspect.isfunction(other.__dict__["__init__"]) and dataclasses._create_fn is lazy_dataclass._CREATE_FN


def test_a_python_without_the_private_writers_gets_the_standard_eager_dataclass(monkeypatch):
    """Python 3.13 writes a dataclass's methods without ``_create_fn``: there ``dataclass`` must be
    the standard library's own, not fail at import or leave a method unwritten."""
    monkeypatch.setattr(lazy_dataclass, "_CREATE_FN", None)

    @lazy_dataclass.dataclass(frozen=True)
    class Point:
        """A point."""
        x: int
        y: int = 0

    assert not any(isinstance(value, lazy_dataclass._Deferred) for value in vars(Point).values())
    assert Point(1) == Point(1, 0) and repr(Point(2, 3)).endswith("<locals>.Point(x=2, y=3)")
    with pytest.raises(dataclasses.FrozenInstanceError):
        Point(1).x = 2  # type: ignore[misc]
