"""ygoreplay: event-sourced record and replay of Yu-Gi-Oh! duels.

The log is the truth: a duel is a list of immutable events (``ygoreplay.events``), and its state
at any point is the fold of the rules engine over them (``ygoreplay.rules.apply``)::

    >>> from ygoreplay import CardDB, read_events, replay
    >>> state = replay(read_events("replays/won-by-damage.jsonl"), CardDB.classic())
    >>> [side.lp for side in state.sides], state.winner
    ([8000, 0], 0)
"""
from .cards import CardDB, CardFacts
from .events import Event, EventFormatError, from_dict
from .jsonl import read_events
from .rules import RuleViolation, apply, audit, replay
from .state import DuelState

__all__ = ["CardDB", "CardFacts", "DuelState", "Event", "EventFormatError", "RuleViolation",
           "apply", "audit", "from_dict", "read_events", "replay"]
__version__ = "0.1.0"
