"""ygoreplay: event-sourced record and replay of Yu-Gi-Oh! duels.

The log is the truth: a duel is a list of immutable events (``ygoreplay.events``), and its state
at any point is the fold of the rules engine over them (``ygoreplay.rules.apply``)::

    >>> from ygoreplay import CardDB, read_events, replay
    >>> state = replay(read_events("replays/won-by-damage.jsonl"), CardDB.classic())
    >>> [side.lp for side in state.sides], state.winner
    ([8000, 0], 0)
    >>> state
    <DuelState turn 5, player 0's battle (damage step), LP 8000 / 0, ended: player 0 won (lp), 80 cards, after event #88>

``print(state)`` draws the board; ``state.position_set_up()`` writes it down as an event (like a
FEN). Files: ``read_events``/``write_events`` (JSON Lines), ``read_replay``/``write_replay``
(signed ``.ygr`` replay files). ``Store`` is the event store; ``redact``/``ViewReplay`` derive and
fold what a player or a spectator may see (``VIEWS``).
"""
from __future__ import annotations

TYPE_CHECKING = False            # not ``typing``'s: the command line's launcher imports this package
if TYPE_CHECKING:
    from typing import Any

#: Each public name -> (its module, its name there), imported the first time it is used (PEP 562),
#: so that ``import ygoreplay`` and the command line's start-up pay only for what they use.
_PUBLIC: dict[str, tuple[str, str]] = {
    "AuditReport": (".rules", "AuditReport"), "CardDB": (".cards", "CardDB"), "CardFacts": (".cards", "CardFacts"),
    "DuelState": (".state", "DuelState"), "Event": (".events", "Event"),
    "EventFormatError": (".events", "EventFormatError"), "ReplayFile": (".replay_file", "ReplayFile"),
    "RuleViolation": (".rules", "RuleViolation"), "Store": (".store", "Store"), "VIEWS": (".views", "VIEWS"),
    "ViewReplay": (".views", "ViewReplay"), "apply": (".rules", "apply"), "audit": (".rules", "audit"),
    "dump_events": (".jsonl", "dumps"), "from_dict": (".events", "from_dict"),
    "read_events": (".jsonl", "read_events"), "read_replay": (".replay_file", "read"),
    "redact": (".views", "redact"), "replay": (".rules", "replay"), "write_events": (".jsonl", "write_events"),
    "write_replay": (".replay_file", "write"),
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    """A public name, imported when first asked for. The match stream's event kinds and its kind
    of stream (``match.stream``) are registered with it, so that what this API reads or opens
    (a match file, a store holding matches) is understood, as the modules that open them do."""
    where = _PUBLIC.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module  # here, not at the top: the launcher imports this package first
    from .match import stream  # noqa: F401  (registers the match's event kinds and its kind of stream)
    value = getattr(import_module(where[0], __name__), where[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})


__version__ = "0.1.0"
