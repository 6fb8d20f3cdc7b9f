"""Card facts from the replay itself: the engine's card queries say each card's type, Level or
Rank, ATK/DEF, Attribute, Type, scales and Link arrows; names come from a card database when one
is given (or the bundled classic set), else the passcode stands for the name."""
from __future__ import annotations

from typing import Callable

from ..cards import CardDB, CardDBError, CardFacts, unnamed
from .constants import LOCATION_DECK, LOCATION_EXTRA, MSG_UPDATE_CARD, MSG_UPDATE_DATA, TYPE_LINK, TYPE_MONSTER, \
    TYPE_PENDULUM, TYPE_XYZ
from .container import Packet, StreamIndex
from .messages import Query, parse_update_card, parse_update_data


_CARD, _DATA = bytes((MSG_UPDATE_CARD,)), bytes((MSG_UPDATE_DATA,))


class QueriedFacts:
    """The facts of every card the stream queried, gathered once; ``facts_for`` fills the rest."""

    def __init__(self, packets: list[Packet], names: CardDB | None, note: Callable[[str], None]) -> None:
        self.packets = packets
        self.names = names
        self.note = note
        self.facts: dict[int, CardFacts] = {}
        # What ``collect`` parsed, for the importer to read again without parsing twice: the
        # whole-Deck / Extra Deck refreshes by packet index, the single-card queries by payload.
        self.refreshes: dict[int, tuple[int, int, list[Query | None]]] = {}
        self.card_queries: dict[bytes, tuple[int, int, int, Query | None]] = {}

    def collect(self, index: StreamIndex) -> None:
        seen_refresh: set[tuple[int, int]] = set()
        raw: dict[int, Query] = {}
        links: dict[int, tuple[int, int]] = {}
        scales: dict[int, tuple[int, int]] = {}

        def take(q: Query | None) -> None:
            if q is None or not q.code:
                return
            if q.code not in raw and q.type is not None:
                raw[q.code] = q
            if q.link is not None and q.link_marker is not None and q.type and q.type & TYPE_LINK:
                links.setdefault(q.code, (q.link, q.link_marker))
            if q.lscale is not None and q.rscale is not None and q.type and q.type & TYPE_PENDULUM:
                scales.setdefault(q.code, (q.lscale, q.rscale))

        seen = self.card_queries              # the server queries the same card the same way many times
        packets = self.packets
        # the single-card queries and the Deck / Extra Deck listings, in stream order
        at = sorted(index.where(_CARD) + index.where(_DATA, LOCATION_DECK) + index.where(_DATA, LOCATION_EXTRA))
        for index_ in at:
            pid, payload, offset = packets[index_]
            if pid == MSG_UPDATE_CARD:
                if payload not in seen:
                    parsed = seen[payload] = parse_update_card(payload, offset)
                    take(parsed[3])
            elif len(payload) > 2:
                key = (payload[0], payload[1])
                if key in seen_refresh:
                    continue
                seen_refresh.add(key)
                refresh = self.refreshes[index_] = parse_update_data(payload, offset)
                for q in refresh[2]:
                    take(q)
        for code, q in raw.items():
            self.facts[code] = self.make_facts(code, q, links.get(code), scales.get(code))

    def known(self, code: int) -> CardFacts | None:
        """The card in the given names database or the bundled classic set, if there."""
        for db in (self.names, CardDB.classic()):
            if db is not None and code in db:
                return db[code]
        return None

    def card_name(self, code: int) -> str:
        known = self.known(code)
        return known.name if known is not None else unnamed(code)

    def make_facts(self, code: int, q: Query, link: tuple[int, int] | None,
                   scale: tuple[int, int] | None) -> CardFacts:
        type_ = q.type or 0
        is_link = type_ & (TYPE_LINK | TYPE_MONSTER) == TYPE_LINK | TYPE_MONSTER
        if is_link and link is None:
            # only a Link monster that reached the field was queried for its rating and arrows
            known = self.known(code)
            if known is not None and known.is_link:
                link = (known.level, known.link_markers)
        if is_link:
            level = link[0] if link else 0
        elif type_ & TYPE_XYZ:
            level = q.rank or 0
        else:
            level = q.level or 0
        atk = q.base_attack if q.base_attack is not None else (q.attack or 0)
        defense = q.base_defense if q.base_defense is not None else (q.defense or 0)
        lscale, rscale = scale if scale else (0, 0)
        alias = q.alias if q.alias and q.alias != code else 0
        def fix(v: int) -> int:
            return v if v >= 0 or v == -2 else 0
        try:
            return _made(code, self.card_name(code), type_, min(max(level, 0), 255), fix(atk),
                         None if is_link else fix(defense), q.attribute or 0, q.race or 0, min(lscale, 255),
                         min(rscale, 255), (link[1] & 0x1EF) if is_link and link else 0, alias)
        except CardDBError as err:
            self.note(f"card facts for {code} are not usable ({err}); kept as a plain card")
            return CardFacts(code=code, name=self.card_name(code), type=type_ & 0x7)

    def facts_for(self, code: int) -> CardFacts:
        facts = self.facts.get(code)
        if facts is None:
            known = self.known(code)
            facts = known or CardFacts(code=code, name=self.card_name(code), type=TYPE_MONSTER)
            if known is None:
                self.note(f"no card query for passcode {code}: its facts are unknown")
            self.facts[code] = facts
        return facts


#: Facts made from card queries, by their fields (``CardFacts``' order): a card is queried the same
#: way in duel after duel, and facts are frozen, made to be shared; a folder of the 100 real duels
#: made 6,746 facts of 1,359 distinct fields, 7.4 µs each (#25). Emptied when full.
_MADE: dict[tuple, CardFacts] = {}
_MADE_MAX = 8192


def _made(*fields: object) -> CardFacts:
    """``CardFacts(*fields)``, the one made before for equal fields if any (raises ``CardDBError``
    as it does: facts it refuses are never kept)."""
    facts = _MADE.get(fields)
    if facts is None:
        facts = CardFacts(*fields)
        if len(_MADE) >= _MADE_MAX:
            _MADE.clear()
        _MADE[fields] = facts
    return facts
