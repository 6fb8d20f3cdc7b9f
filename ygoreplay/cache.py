"""A bounded cache of answers: what anyone may make the service keep is capped.

Every answer the service keeps for reuse (a duel's frames, a view's file, a verification) goes
into one ``Cache`` per process, keyed by what its reader may see (never by what lies past a
view's delay): past ``entries`` answers or ``size`` bytes the least recently used go first, so
asking for many distinct answers costs time, never unbounded memory.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Hashable, TypeVar

T = TypeVar("T")


class Cache:
    """Answers by key, least recently used dropped first past ``entries`` or ``size`` bytes."""

    def __init__(self, entries: int, size: int) -> None:
        self.max_entries, self.max_size = entries, size
        self.size = 0
        self._kept: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, key: Hashable, build: Callable[[], T], size: Callable[[T], int] = len) -> T:
        """The answer kept for ``key``, else ``build()`` kept (``size`` says its bytes). An answer
        larger than the whole cache is given and not kept."""
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None:
                self._kept.move_to_end(key)
                return kept[0]
        value = build()
        cost = size(value)
        if cost > self.max_size:
            return value
        with self._lock:
            if key in self._kept:
                return self._kept[key][0]
            self._kept[key] = (value, cost)
            self.size += cost
            while len(self._kept) > self.max_entries or self.size > self.max_size:
                _old, (_value, freed) = self._kept.popitem(last=False)
                self.size -= freed
        return value


__all__ = ["Cache"]
