"""What a registered format gives when it reads a file and checks it (``Format.read``,
``Format.check``): imported with the first reader, not to decide what a file is."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..cards import CardDB
    from ..events import Event
    from . import Format


@dataclass
class Loaded:
    """A file read by its format: our events and their card facts, and the file in its format's
    own terms (``native``: an ``ImportResult``, a ``ReplayFile``, None for JSON Lines)."""

    format: Format
    name: str
    events: list[Event]
    cards: CardDB
    native: Any = None


@dataclass
class Checked:
    """A format's check of what it read: whether it holds up, the rule violations found, and the
    format's own figures (``detail``: EDOPro's ``Agreement``, an ``AuditReport``, a ``MatchState``)."""

    ok: bool
    violations: list
    detail: Any = None
