"""A duel each player recorded their own side of: what its seals say, and its judge record.

When each player's device records its own side, the stored record is the public record (what a
scorekeeper sees) with each player's seals of their own hidden cards (``cards_sealed``) and, once
revealed or at the end, their openings (``cards_opened``). Until both players have opened, the
record is what it is: the sealed cards unknown, the judge view no fuller than the record.
``seal_report`` says what was sealed, what was opened and whether every opening matched its seal
(LOG-11: ``verify`` reports it); ``opened`` gives the full-information record once every seal is
opened, each opened identity applied from the start, as a judge folds a duel a machine recorded.

A card id is one physical card only until its Deck is shuffled where nobody followed it
(``rules.identity.forget_deck``): from then on the id only says where a card lies, and the card
drawn as it may be another. So the judge record keeps each id's identities span by span (``_Spans``):
registered as it was first known, and named again, after a shuffle that changed which card it is,
as the card it was known as next; nothing the table saw is lost (LOG-10, LOG-11).
"""
from __future__ import annotations

import bisect
import dataclasses
from dataclasses import dataclass, field

from .cards import CardDB
from .errors import InputError
from .i18n import said, say
from .events import (
    CardMoved, CardsOpened, CardsSealed, DeckRegistered, DeckShuffled, Event, PositionSetUp, RolledBack, Shows)
from .rules import History
from .state import DuelState, Violation

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


@dataclass
class _Spans:
    """Each card id's identities between the shuffles that forget it: ``codes[id, span]`` the
    passcode it was last known as in that span (span 0 from the start), ``forgets[index]`` the
    player whose Deck the event at ``index`` forgot and the ids it held (each starts a new span)."""

    span: dict[str, int] = field(default_factory=dict)
    codes: dict[tuple[str, int], int] = field(default_factory=dict)
    forgets: dict[int, tuple[int, tuple[str, ...]]] = field(default_factory=dict)

    def learn(self, card_id: str, code: int) -> None:
        self.codes[card_id, self.span.get(card_id, 0)] = code

    def of(self, card_id: str, span: int) -> int:
        """What the judge names ``card_id`` in ``span``: as it was known there, else as it was
        known next (the card a later opening said it was), else as it was known last."""
        spans = self.span.get(card_id, 0)
        for at in (span, *range(span + 1, spans + 1), *range(span - 1, -1, -1)):
            code = self.codes.get((card_id, at), 0)
            if code:
                return code
        return 0


def _folded(events: list[Event], cards: CardDB, spans: _Spans | None = None,
            orders: dict[int, tuple[str, ...]] | None = None) -> History:
    history = History(cards, audit=True)
    for index, event in enumerate(events):
        known = None
        if spans is not None and isinstance(event, (DeckShuffled, CardMoved)):    # where a Deck forgets
            known = {c.id: c.code for c in history.state.cards.values() if c.code and not c.is_token}
        history.append(event)
        state = history.state
        if orders is not None and isinstance(event, DeckShuffled) and not event.order and event.player in (0, 1):
            orders[index] = tuple(state.sides[event.player].deck)
        if known:
            for player in (0, 1):
                deck = tuple(state.sides[player].deck)
                if any(known.get(c) and not state.cards[c].code for c in deck):
                    for card_id, code in known.items():
                        spans.learn(card_id, code)
                    spans.forgets[index] = (player, deck)
                    for card_id in deck:
                        spans.span[card_id] = spans.span.get(card_id, 0) + 1
        if spans is not None and (index + 1 == len(events) or event.shows
                                  or isinstance(event, (*_SEAL_KINDS, DeckRegistered, PositionSetUp))):
            for c in state.cards.values():
                if c.code and not c.is_token:
                    spans.learn(c.id, c.code)
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
    up unknown is named at the event after its set-up. A shuffle after which an id was opened (or
    shown) as another card than before is one the judge record does not follow either (a card
    moved in: a shuffle added after it), and the event after it names that Deck's cards again. InputError while a seal is unopened or an
    opening does not match its seal."""
    spans = _Spans()
    orders: dict[int, tuple[str, ...]] = {}
    history = _folded(events, cards, spans, orders)
    report = _report(events, history)
    if report.bad:
        v = report.bad[0]
        raise InputError(say("event #{index}: {rule} {message}: the record cannot be opened",
                             index=v.index, rule=v.rule, message=v.message))
    if report.unopened:
        waiting = sorted({player for player in report.unopened.values()})
        listed = ", ".join(sorted(report.unopened)[:5])
        if len(waiting) == 1:
            raise InputError(say("{count} sealed card(s) not opened yet ({cards}): the judge record exists once "
                                 "player {player} opens them", count=len(report.unopened), cards=listed,
                                 player=waiting[0]))
        raise InputError(say("{count} sealed card(s) not opened yet ({cards}): the judge record exists once "
                             "player {player} and player {player2} open them", count=len(report.unopened),
                             cards=listed, player=waiting[0], player2=waiting[1]))
    kept = [i for i, e in enumerate(events) if not isinstance(e, _SEAL_KINDS)]
    registered = {f"p{e.player}.{part}{i}" for e in events if isinstance(e, DeckRegistered)
                  for part, codes in (("m", e.main), ("x", e.extra)) for i in range(len(codes))}
    set_up = {c.id: code for c in history.state.cards.values()
              if c.id not in registered and (code := spans.of(c.id, 0))}
    span: dict[str, int] = {}
    judge = History(cards, audit=True)           # the record as written so far: what its Decks forgot
    starts: list[int] = []
    out: list[Event] = []
    for index in kept:
        event = events[index]
        if isinstance(event, DeckRegistered):
            event = dataclasses.replace(
                event, unordered=False,
                main=tuple(spans.of(f"p{event.player}.m{i}", 0) for i in range(len(event.main))),
                extra=tuple(spans.of(f"p{event.player}.x{i}", 0) for i in range(len(event.extra))))
        elif index in orders and not _changes(spans, span, index):
            event = dataclasses.replace(event, order=orders[index])
        elif isinstance(event, RolledBack):
            at = bisect.bisect_left(kept, event.to)
            event = dataclasses.replace(event, to=starts[at] if at < len(starts) else len(out))
        elif set_up and len(out) == 1 and isinstance(out[0], PositionSetUp):
            event = dataclasses.replace(event, shows=Shows(sorted({**dict(event.shows), **set_up}.items())))
        if not isinstance(event, (RolledBack, DeckRegistered)) and not _forgets(event):
            event = _named_again(judge.state, spans, span, event)
        starts.append(len(out))
        written = [event]
        if index in spans.forgets and index not in orders and _changes(spans, span, index):
            written.append(DeckShuffled(player=spans.forgets[index][0]))   # which card each id is, forgotten
        for step in written:
            judge.append(step)
            out.append(step)
        for card_id in spans.forgets.get(index, (0, ()))[1]:
            span[card_id] = span.get(card_id, 0) + 1
    return out


def _forgets(event: Event) -> bool:
    """A shuffle nobody followed: a card named on it would be forgotten by it."""
    return isinstance(event, DeckShuffled) and not event.order


def _changes(spans: _Spans, span: dict[str, int], index: int) -> bool:
    """Does the shuffle at ``index`` make one of its Deck's ids another card than it was?"""
    if index not in spans.forgets:
        return False
    return any(spans.of(c, span.get(c, 0)) != spans.of(c, span.get(c, 0) + 1) for c in spans.forgets[index][1])


def _named_again(state: DuelState, spans: _Spans, span: dict[str, int], event: Event) -> Event:
    """``event`` naming each Deck card the judge record forgot (a shuffle it could not follow, or
    one that made an id another card) as the card it is from then on, so nothing opened is unknown."""
    names = {c: code for player in (0, 1) for c in state.sides[player].deck
             if not state.cards[c].code and (code := spans.of(c, span.get(c, 0)))}
    if not names:
        return event
    return dataclasses.replace(event, shows=Shows(sorted({**names, **dict(event.shows)}.items())))
