"""``dataclass`` that writes its methods when they are first used (issue 25: start-up).

``dataclasses.dataclass`` writes the source of each method it adds (``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, a frozen class's ``__setattr__``/``__delattr__``) and compiles it with
``exec``: some 0.1 ms a method, 0.5 ms a class, 8 ms for the 16 classes ``ygoreplay check``
imports, most of whose methods that command never calls (a repr). ``dataclass`` here runs the
standard library's own ``dataclass`` with each such method deferred: in its place a descriptor
that, the first time the method is looked up (an instance made, compared, printed ...), has
the standard library compile the very same source with the very same names bound and puts the
function in its place. The class is the one ``dataclasses.dataclass`` makes, with the same
fields, parameters, slots, pickling and docstring; only the moment its methods are compiled
differs (``tests/test_lazy_dataclass.py`` compares every class with the one built eagerly).
"""
from __future__ import annotations

import dataclasses
import threading
from typing import Any, Callable, TypeVar, dataclass_transform

T = TypeVar("T")

#: The standard library's writers of methods, which ``dataclass`` defers while it runs: private
#: names of Python 3.11 and 3.12's ``dataclasses`` (3.13 writes methods another way). Where they
#: are missing, ``dataclass`` is the standard library's own, eager one.
_CREATE_FN: Callable[..., Any] | None = getattr(dataclasses, "_create_fn", None)
_REPR_FN: Callable[..., Any] | None = getattr(dataclasses, "_repr_fn", None)
#: Set (per thread) while ``dataclass`` builds a class: the writers then defer. Another
#: thread's ``dataclasses.dataclass``, and compiling a deferred method, write at once.
_deferring = threading.local()
_lock = threading.RLock()


class _Deferred:
    """A method not compiled yet: ``write()`` compiles it, the first lookup puts it in place."""

    __slots__ = ("write", "__name__")             # the name: ``dataclass`` reads a frozen class's

    def __init__(self, name: str, write: Callable[[], Callable[..., Any]]) -> None:
        self.__name__, self.write = name, write

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        owner = type(instance) if owner is None else owner
        home = next(klass for klass in owner.__mro__ if klass.__dict__.get(self.__name__) is self)
        outer = getattr(_deferring, "on", False)
        _deferring.on = False
        try:
            method = self.write()
        finally:
            _deferring.on = outer
        method.__qualname__ = f"{home.__qualname__}.{method.__name__}"
        setattr(home, self.__name__, method)
        return method if instance is None else method.__get__(instance, owner)


def _create_fn(name: str, args: Any, body: Any, **kwargs: Any) -> Any:
    if not getattr(_deferring, "on", False):
        return _CREATE_FN(name, args, body, **kwargs)
    return _Deferred(name, lambda: _CREATE_FN(name, args, body, **kwargs))


class _DeferredDoc:
    """A class's docstring when it has none: the standard library's ``Name(signature)``, written
    the first time it is read, not while the class is built (reading the signature compiles
    ``__init__``, and imports ``inspect``: a third of the start-up of ``check``, issue 25)."""

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if getattr(_deferring, "on", False):
            return self                               # ``dataclass`` sees a docstring, to be written
        owner = type(instance) if owner is None else owner
        home = next(klass for klass in owner.__mro__ if klass.__dict__.get("__doc__") is self)
        import inspect
        try:                                          # as ``dataclasses._process_class`` writes it
            text_sig = str(inspect.signature(home)).replace(" -> None", "")
        except (TypeError, ValueError):
            text_sig = ""
        home.__doc__ = home.__name__ + text_sig
        return home.__doc__


def _repr_fn(fields: Any, globals: Any) -> Any:
    if not getattr(_deferring, "on", False):
        return _REPR_FN(fields, globals)
    return _Deferred("__repr__", lambda: _REPR_FN(fields, globals))


@dataclass_transform()
def dataclass(cls: type[T] | None = None, /, **params: Any) -> Any:
    """``dataclasses.dataclass(cls, **params)``, its methods compiled on first use, and the
    docstring of a class without one (its signature) written on first use."""
    def wrap(cls: type[T]) -> type[T]:
        with _lock:
            dataclasses._create_fn, dataclasses._repr_fn = _create_fn, _repr_fn  # type: ignore[attr-defined]
            _deferring.on = True
            try:
                if not getattr(cls, "__doc__"):
                    cls.__doc__ = _DeferredDoc()  # type: ignore[assignment]
                return dataclasses.dataclass(cls, **params)
            finally:
                _deferring.on = False
                dataclasses._create_fn, dataclasses._repr_fn = _CREATE_FN, _REPR_FN  # type: ignore[attr-defined]
    if _CREATE_FN is None or _REPR_FN is None:
        return dataclasses.dataclass(cls, **params) if cls is not None else dataclasses.dataclass(**params)
    return wrap if cls is None else wrap(cls)


_new = object.__new__


def made(cls: type[T], /, **fields: Any) -> T:
    """An instance of the dataclass ``cls`` (frozen, no ``__slots__``, no ``__post_init__``) with
    exactly ``fields``, every one of its fields by name, set at once: a frozen class's
    ``__init__`` sets each through ``object.__setattr__`` (0.15 µs a field). For the records every
    append makes of values it made itself (issue 25, twenty-first pass: an event's row and record,
    its anchor, ~1 µs each); nothing is converted or checked, so a field missing or unknown is a
    TypeError here, as the ``__init__`` would raise it."""
    if fields.keys() != cls.__dataclass_fields__.keys():     # type: ignore[attr-defined]
        raise TypeError(f"{cls.__name__} has the fields {sorted(cls.__dataclass_fields__)}, "  # type: ignore[attr-defined]
                        f"not {sorted(fields)}")
    record = _new(cls)
    record.__dict__.update(fields)
    return record
