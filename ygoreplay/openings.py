"""A duel each player recorded their own side of: what its seals say, and its judge record.

When each player's device records its own side, the stored record is the public record (what a
scorekeeper sees) with each player's seals of their own hidden cards (``cards_sealed``) and, once
revealed or at the end, their openings (``cards_opened``). Until both players have opened, the
record is what it is: the sealed cards unknown, the judge view no fuller than the record.
``seal_report`` says what was sealed, what was opened and whether every opening matched its seal
(LOG-11: ``verify`` reports it); ``opened`` gives the full-information record once every seal is
opened, each opened identity applied from the start, as a judge folds a duel a machine recorded.
"""
from __future__ import annotations

import bisect
import dataclasses
from dataclasses import dataclass, field

from .cards import CardDB
from .errors import InputError
from .i18n import said, say
from .events import (
    CardsOpened, CardsSealed, DeckRegistered, DeckShuffled, Event, PositionSetUp, RolledBack, Shows)
from .rules import History
from .state import Violation

_SEAL_KINDS = (CardsSealed, CardsOpened)


@dataclass
class SealReport:
    """Seals a record holds: how many were written and opened, which are still unopened (card
    ids, with the player who sealed each), and the openings that did not match (LOG-11)."""

    sealed: int = 0
    opened: int = 0
    unopened: dict[str, int] = field(default_factory=dict)
    bad: list[Violation] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.bad

    def to_dict(self) -> dict:
        return {"sealed": self.sealed, "opened": self.opened, "unopened": dict(sorted(self.unopened.items())),
                "bad": [{"index": v.index, "rule": v.rule, "message": v.message} for v in self.bad]}

    def counts(self) -> dict:
        """What a player or spectator is told: how many, never which cards or what a bad opening claimed."""
        return {"sealed": self.sealed, "opened": self.opened, "unopened": len(self.unopened), "bad": len(self.bad)}

    def describe(self) -> str:
        unopened = len(self.unopened)
        text = (f"{self.sealed} card(s) sealed, {self.opened} opened" +
                (f", {unopened} unopened ({', '.join(sorted(self.unopened)[:5])}"
                 f"{'…' if unopened > 5 else ''})" if unopened else ""))
        if self.bad:
            first = self.bad[0]
            text += f"; {len(self.bad)} opening(s) do NOT match: #{first.index} {first.rule} {said(first.message)}"
        return text


def has_seals(events: list[Event]) -> bool:
    """Was the record made by players who each recorded their own side?"""
    return any(isinstance(event, _SEAL_KINDS) for event in events)


def seal_report(events: list[Event], cards: CardDB) -> SealReport:
    """Fold the record (rollbacks honoured) and say what its seals hold: every opening checked
    against its seal (LOG-11), against what was shown (LOG-10), every seal written once (LOG-04)."""
    history = _folded(events, cards)
    return _report(events, history)


def _folded(events: list[Event], cards: CardDB, identities: dict[str, int] | None = None,
            orders: dict[int, tuple[str, ...]] | None = None) -> History:
    history = History(cards, audit=True)
    for index, event in enumerate(events):
        history.append(event)
        state = history.state
        if orders is not None and isinstance(event, DeckShuffled) and not event.order and event.player in (0, 1):
            orders[index] = tuple(state.sides[event.player].deck)
        if identities is not None and (index + 1 == len(events) or event.shows
                                       or isinstance(event, (*_SEAL_KINDS, DeckRegistered, PositionSetUp))):
            identities.update((c.id, c.code) for c in state.cards.values() if c.code and not c.is_token)
    return history


def _report(events: list[Event], history: History) -> SealReport:
    reverted = history.reverted
    live = [e for i, e in enumerate(events) if i not in reverted]
    report = SealReport(
        sealed=sum(len(e.seals) for e in live if isinstance(e, CardsSealed)),
        opened=sum(1 for e in live if isinstance(e, CardsOpened) for o in e.cards if o.nonce),
        unopened={c.id: c.seal[0] for c in history.state.cards.values() if c.seal is not None})
    report.bad = [v for v in history.violations if v.index < len(events) and isinstance(events[v.index], _SEAL_KINDS)]
    return report


def opened(events: list[Event], cards: CardDB) -> list[Event]:
    """The judge record of a duel whose players each recorded their own side, once both have
    opened every seal: the seal and opening events dropped, each Deck registered with the
    identities its cards were opened (or shown) as, each Deck shuffled where the recorder could
    not follow it given the order the record kept, so nothing opened is ever unknown; a card set
    up unknown is named at the event after its set-up. InputError while a seal is unopened or an
    opening does not match its seal."""
    identities: dict[str, int] = {}
    orders: dict[int, tuple[str, ...]] = {}
    history = _folded(events, cards, identities, orders)
    report = _report(events, history)
    if report.bad:
        v = report.bad[0]
        raise InputError(say("event #{index}: {rule} {message}: the record cannot be opened",
                             index=v.index, rule=v.rule, message=v.message))
    if report.unopened:
        waiting = sorted({player for player in report.unopened.values()})
        cards = ", ".join(sorted(report.unopened)[:5])
        if len(waiting) == 1:
            raise InputError(say("{count} sealed card(s) not opened yet ({cards}): the judge record exists once "
                                 "player {player} opens them", count=len(report.unopened), cards=cards,
                                 player=waiting[0]))
        raise InputError(say("{count} sealed card(s) not opened yet ({cards}): the judge record exists once "
                             "player {player} and player {player2} open them", count=len(report.unopened),
                             cards=cards, player=waiting[0], player2=waiting[1]))
    kept = [i for i, e in enumerate(events) if not isinstance(e, _SEAL_KINDS)]
    registered = {f"p{e.player}.{part}{i}" for e in events if isinstance(e, DeckRegistered)
                  for part, codes in (("m", e.main), ("x", e.extra)) for i in range(len(codes))}
    set_up = {card_id: code for card_id, code in identities.items() if card_id not in registered}
    out: list[Event] = []
    for index in kept:
        event = events[index]
        if isinstance(event, DeckRegistered):
            event = dataclasses.replace(
                event, unordered=False,
                main=tuple(identities.get(f"p{event.player}.m{i}", 0) for i in range(len(event.main))),
                extra=tuple(identities.get(f"p{event.player}.x{i}", 0) for i in range(len(event.extra))))
        elif index in orders:
            event = dataclasses.replace(event, order=orders[index])
        elif isinstance(event, RolledBack):
            event = dataclasses.replace(event, to=bisect.bisect_left(kept, event.to))
        elif set_up and len(out) == 1 and isinstance(out[0], PositionSetUp):
            event = dataclasses.replace(event, shows=Shows(sorted({**dict(event.shows), **set_up}.items())))
        out.append(event)
    return out
