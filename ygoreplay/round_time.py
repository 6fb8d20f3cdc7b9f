"""Time at the end of a round: the organiser calls it once for the whole hall (TIME-01), and
every table still playing gets its ``time_called`` at the same wall clock, as its own judge
would record it (``commands.time_fields``: the duel's turn, phase and turn player where its
record stands), through the match's one write command (``commands.record``).

A table is told apart, never skipped silently: its match has ended, time was called at it
already (a judge at the table came first: its own clock stands, LOG-03 allows one call), or
its call was refused with the rule (a match decided but its result not recorded, LOG-03; a
duel whose record has not begun says no turn or phase, LOG-05: a judge calls it at the table
with them). Each table is a match of its own: one refused writes nothing there and the others
are called.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .chain import now
from .errors import ConflictError, StoreError, VerificationError
from .events import EventFormatError, from_dict
from .i18n import N_, say
from .match import commands
from .rounds import load_round
from .rules import RuleViolation

#: What became of a table's call, as the JSON gives it (and the words the command line says).
OUTCOMES = {"called": N_("time called"), "ended": N_("match over"), "already": N_("time was called already"),
            "refused": N_("not called")}


@dataclass(frozen=True)
class TableTime:
    """One table's part of the round's call."""

    table: int
    match: str
    outcome: str
    rule: str | None = None
    message: str | None = None
    game: int | None = None
    turn: int | None = None
    phase: str | None = None

    def to_dict(self) -> dict:
        return {"table": self.table, "match": self.match, "outcome": self.outcome, "rule": self.rule,
                "message": self.message, "game": self.game, "turn": self.turn, "phase": self.phase}


def call_time(hub: Any, round_id: str, clock: str | None = None) -> tuple[str, list[TableTime]]:
    """Call time at every table of round ``round_id`` at ``clock`` (default now; TIME-01): the
    clock used and each table's outcome, in the round's order. StoreError for no such round."""
    kept = load_round(hub.store, round_id, witness=hub.witness)
    clock = clock or now()
    return clock, [_call(hub, table["table"], table["match"], clock) for table in kept["tables"]]


def _call(hub: Any, number: int, match_id: str, clock: str) -> TableTime:
    """Time at one table, or why not."""
    fields: dict = {}
    try:
        live = hub.match(match_id)
        live.refresh()
        state = live.state()
        if state.ended is not None:
            return TableTime(number, match_id, "ended")
        if state.time is not None:
            return TableTime(number, match_id, "already", game=state.time.game, turn=state.time.turn,
                             phase=state.time.phase)
        fields = commands.time_fields(hub, match_id, state, {}, clock)
        ev = from_dict({"kind": "time_called", **{k: v for k, v in fields.items() if v is not None}}, "time_called")
        commands.record(hub, match_id, commands.Writer("organiser"), [ev], live.count)
    except RuleViolation as exc:
        # a duel whose record says no turn or phase yet (its device never sent an entry): its judge knows them
        unsaid = fields.get("game") is not None and (fields.get("turn") is None or fields.get("phase") is None)
        hint = (say("; a judge at the table calls it, saying the turn and phase (POST /matches/{match}/time)",
                    match=match_id) if unsaid else "")
        return TableTime(number, match_id, "refused", exc.rule, exc.message + hint)
    except (commands.Refused, ConflictError, StoreError, VerificationError, EventFormatError) as exc:
        return TableTime(number, match_id, "refused", None, str(exc))
    return TableTime(number, match_id, "called", game=fields["game"], turn=fields.get("turn"),
                     phase=fields.get("phase"))


__all__ = ["OUTCOMES", "TableTime", "call_time"]
