"""One function per event kind, registered where it is defined.

The duel fold's handlers (``rules``), the match fold's (``match.rules``) and the log's sentences
(``sentences``, ``match.sentences``) are each a ``PerKind`` table that fills itself as its
modules are imported::

    handles = PerKind("handler")

    @handles(SpecialSummoned)
    def special_summoned(state, ev): ...

So adding an event kind never means editing a central table, and a kind registered twice is
refused at import, naming it. ``tests/test_kinds.py`` checks every kind has its handler and its
sentence.
"""
from __future__ import annotations

from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class PerKind(dict[str, Callable[..., Any]]):
    """``kind -> function``, filled by decorating each function with the event classes it is for."""

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what

    def __call__(self, *classes: type) -> Callable[[F], F]:
        """Register the decorated function for the kinds of ``classes`` (event classes)."""
        kinds = [getattr(cls, "kind", "") for cls in classes]
        for cls, kind in zip(classes, kinds):
            if not kind:
                raise TypeError(f"{cls.__name__} is no event kind: it has no 'kind'")

        def register(function: F) -> F:
            for kind in kinds:
                if kind in self and self[kind] is not function:
                    raise ValueError(f"{kind!r} already has a {self.what} "
                                     f"({self[kind].__module__}.{self[kind].__qualname__})")
                self[kind] = function
            return function
        return register

    def __repr__(self) -> str:
        return f"<PerKind {self.what}: {len(self)} kinds>"
