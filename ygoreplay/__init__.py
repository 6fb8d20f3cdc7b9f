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
from .cards import CardDB, CardFacts
from .events import Event, EventFormatError, from_dict
from .jsonl import dumps as dump_events, read_events, write_events
from .replay_file import ReplayFile, read as read_replay, write as write_replay
from .rules import AuditReport, RuleViolation, apply, audit, replay
from .state import DuelState
from .store import Store
from .views import VIEWS, ViewReplay, redact
# The match stream's event kinds and its kind of stream join the one vocabulary and the store here,
# where the package is put together, so that neither ``events`` nor ``store`` imports a layer of matches.
from .match import events as _match_events, stream as _match_stream  # noqa: F401

__all__ = ["AuditReport", "CardDB", "CardFacts", "DuelState", "Event", "EventFormatError", "ReplayFile",
           "RuleViolation", "Store", "VIEWS", "ViewReplay", "apply", "audit", "dump_events", "from_dict",
           "read_events", "read_replay", "redact", "replay", "write_events", "write_replay"]
__version__ = "0.1.0"
