"""One function per event kind, registered where it is defined.

The duel fold's handlers (``rules``), the match fold's (``match.rules``) and the log's sentences
(``sentences``, ``match.sentences``) are each a ``PerKind`` table that fills itself as its
modules are imported::

    handles = PerKind("handler", known=is_kind)

    @handles("special_summoned")
    def special_summoned(state, ev: SpecialSummoned): ...

So adding an event kind never means editing a central table, and a kind registered twice is
refused at import, naming it. A table names a kind by its name, not its class, so that importing
the table makes no kind (``events._lazy``: a duel's kinds are made on first use); ``known`` says
which names are kinds. ``tests/test_kinds.py`` checks every kind has its handler and its sentence.
"""
from __future__ import annotations

from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class PerKind(dict[str, Callable[..., Any]]):
    """``kind -> function``, filled by decorating each function with the event classes it is for."""

    __slots__ = ("what", "known")

    def __init__(self, what: str, known: Callable[[str], bool] | None = None) -> None:
        super().__init__()
        self.what = what
        self.known = known

    def __call__(self, *classes: type | str) -> Callable[[F], F]:
        """Register the decorated function for ``classes``: event classes, or kinds by name (each
        one ``known`` says is a kind)."""
        kinds = [cls if isinstance(cls, str) else getattr(cls, "kind", "") for cls in classes]
        for cls, kind in zip(classes, kinds):
            if isinstance(cls, str):
                if self.known is None or not self.known(cls):
                    raise TypeError(f"{cls!r} names no event kind")
            elif not kind:
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
