"""``check``: a duel folded through the rules, and the result shapes every report shares.

Apart from the rest of the application layer (``application.py`` re-exports all of it) so that
``ygoreplay check`` imports the rules and nothing of the store, signing or files (issue 25:
start-up is felt on every command).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import CardDB
from .events import Event, JudgeNote
from .i18n import message_dict
from .lazy_dataclass import dataclass
from .rules import AuditReport, History, RuleViolation, audit
from .state import DuelState, Override, Violation

if TYPE_CHECKING:
    from .source import Source


def violation_dict(v: Violation | RuleViolation) -> dict:
    return {"index": v.index, "rule": v.rule, **message_dict(v.message)}


def override_dict(o: Override) -> dict:
    """An override; ``unexplained``: cited for review (``events.UNEXPLAINED``: the engine allowed
    it and nothing known explains it)."""
    return {"index": o.index, "rule": o.rule, **message_dict(o.message),
            "cite": {"card": o.cite.card, "effect": o.cite.effect}, "unexplained": o.cite.unexplained}


def checked_dict(report: AuditReport) -> dict:
    """How much of the duel its record let the rules check: the events whose checks read no card
    the record does not know, those that did, and the rules such a card left undecided (where)."""
    history = report.history
    return {"events": report.events, "fully_checked": report.events - history.unknown_events,
            "unknown_card_events": history.unknown_events,
            "undecided": [violation_dict(v) for v in history.undecided]}


def witness_dict(history: History | None) -> dict:
    """What a witnessed duel's record says beyond its rules: every flagged event (a rule broken
    and kept) with who entered it and what followed it (a ruling, a rollback, a correction, or
    null: open); the entries disputed, struck by a correction, and not yet confirmed. Empty
    lists for a machine's record; in either, the judge calls in effect (``calls``: where the table
    called the judge, MATCH-08, ``access.CALL``; one withdrawn or rolled back is not listed), each
    with the ruling on it (``ruled``; null: open)."""
    calls = [] if history is None else [
        {"index": pos, "by": ev.entered_by, "judge": ev.judge or None, "note": ev.note, "ruled": history.ruling_on(pos)}
        for pos, ev in history.effective if isinstance(ev, JudgeNote) and ev.category == "call" and ev.on is None]
    if history is None or not history.state.witnessed:
        return {"flagged": [], "disputed": [], "struck": [], "unconfirmed": [], "calls": calls}
    entries = history.entries
    return {
        "calls": calls,
        "flagged": [{**violation_dict(f), "by": entries.by.get(f.index), "ruled": history.ruling_on(f.index)}
                    for f in history.flags],
        "disputed": [{"index": on, "by": by, "at": at, "reason": reason,
                      "open": entries.open_dispute(on, history.reverted), "ruled": history.ruling_on(on)} for on, (at, by, reason) in sorted(entries.disputed.items())],
        "struck": [{"index": pos, "by": entries.by.get(pos), "corrected_at": at} for pos, at in sorted(history.struck.items())],
        "unconfirmed": [pos for pos in range(history.position)
                        if pos not in entries.confirmed and history.needs_confirming(pos)]}


def result_dict(state: DuelState) -> dict:
    return {"lp": [s.lp for s in state.sides], "turn": state.turn, "phase": state.phase,
            "winner": state.winner, "reason": state.end_reason}


@dataclass
class CheckReport:
    """What the rules say of a duel: every violation, every override, the final position."""

    report: AuditReport

    @property
    def legal(self) -> bool:
        return self.report.legal

    def __repr__(self) -> str:
        return f"<CheckReport {repr(self.report)[1:-1].removeprefix('AuditReport ')}>"

    def to_dict(self) -> dict:
        r = self.report
        return {"events": r.events, "violations": [violation_dict(v) for v in r.violations],
                "overrides": [override_dict(o) for o in r.overrides], "checked": checked_dict(r),
                "final": result_dict(r.state), **witness_dict(r.history)}


def check(events: list[Event], cards: CardDB) -> CheckReport:
    return CheckReport(audit(events, cards))


def check_source(source: "Source") -> CheckReport:
    """A duel opened for study, checked as far as its record knows (a view's too: it is the
    record of what its viewer saw)."""
    return CheckReport(source.audit())


