"""What any replay importer gives, whatever the format: our events with their card facts and
what the replay itself says the duel came to, and the check of one against the other.

A format's importer (``ygoreplay.yrpx`` for EDOPro) implements ``ReplayImporter``: it turns a file
into an ``ImportResult`` and may compare the fold with the file's own record of the board
(``check``; EDOPro's state packets, ``engine_check``). ``fold_and_compare`` is the one verdict
the command line, the service and the benchmarks show.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

from .cards import CardDB
from .events import Cite, Event
from .rules import AuditReport, audit
from .state import DuelState


@dataclass
class Expected:
    """What the replay itself says the duel came to: each player's final LP and the result
    (EDOPro: the LP after its last LP message, MSG_WIN; winner None for a draw or when the file
    records no end)."""

    lp: tuple[int, int]
    winner: int | None
    reason: str | None
    turns: int = 0


@dataclass
class ImportResult:
    """An imported duel: our events, the card facts they need, and what the replay said.

    ``times`` holds one synthetic wall-clock time per event (a millisecond apart, starting at the
    replay's timestamp); ``sources`` the index in ``replay.packets`` of the first packet behind each
    event (-1 for the set-up events the importer writes itself); ``notes`` what was skipped or
    guessed."""

    events: list[Event]
    cards: CardDB
    times: list[str]
    players: tuple[str, ...]
    expected: Expected
    notes: list[str]
    replay: Any                    # the decoded file, in its format's own terms
    sources: list[int]
    path: str | None = None
    #: Plays the rules refuse that the engine allowed, cited by the importer (the engine is the
    #: authority on a duel it played): (event index, rule IDs, the cite); ``Cite.unexplained``
    #: marks those for review.
    engine_allowed: list[tuple[int, tuple[str, ...], Cite]] = field(default_factory=list)


#: A format's own check of an import: the one auditing fold, with its agreement with what the
#: file records of the board (None when the format records none).
Check = Callable[[ImportResult], "tuple[Any, AuditReport]"]


class ReplayImporter(Protocol):
    """A replay format we import: the import, and its own board check (its name, suffixes and
    magic bytes are registered in ``formats``)."""

    def import_file(self, path_or_bytes: str | os.PathLike[str] | bytes, *, names: CardDB | None = None) -> ImportResult:
        """The duel as our events; raises an ``InputError`` naming what and where for a file it cannot import."""

    def check(self, result: ImportResult) -> tuple[Any, AuditReport]:
        """Fold the events once (auditing) and compare the board with the file's own record."""


@dataclass
class Agreement:
    """An import folded through our rules: does it come to what the replay said it came to, and
    was its board the one the file records (``engine``: EDOPro's state packets, ``engine_check``)?"""

    lp: bool
    winner: bool
    violations: list
    state: DuelState
    engine: Any = None             # the format's agreement figures (EDOPro: engine_check.EngineAgreement)

    @property
    def ok(self) -> bool:
        return self.lp and self.winner and not self.violations and (self.engine is None or self.engine.ok)


def fold_and_compare(result: ImportResult, check: Check | None = None) -> Agreement:
    """Audit the imported events, compare the board with the file's own record on the way (one
    fold, ``check``), and compare the final LP and winner with the replay's own."""
    engine, report = check(result) if check is not None else (None, audit(result.events, result.cards))
    state = report.state
    lp_ok = tuple(side.lp for side in state.sides) == tuple(result.expected.lp)
    winner_ok = state.ended == (result.expected.reason is not None) and state.winner == result.expected.winner
    return Agreement(lp_ok, winner_ok, report.violations, state, engine)
