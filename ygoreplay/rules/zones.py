"""Zones: which monster zone a monster may enter (ZONE-01..07, NIS-01), where link arrows point
(LINK-06), Extra Link (ZONE-05), and the Spell & Trap / Pendulum Zones of each rule set (ZONE-08/09,
CONF-09).

The field is a grid seen from player 0's side: row 0 is player 0's main monster zones (columns
0-4), row 1 the two extra monster zones (columns 1 and 3), row 2 player 1's main monster zones
(player 1's zone j sits at column 4 - j). A Link monster's arrows are relative to its controller,
so player 1's arrows are turned half a circle.

Pendulum Zones: under the New Master Rule (``nmr2017``, ``mr2020``) they are the outer Spell &
Trap Zones, S/T indexes 0 (left) and 4 (right), sharing the 5-card limit (ZONE-08/09, MR-04).
Under Master Rule 3 (``mr3``) they are two separate zones beside the five S/T zones (MR-03,
CONF-09); a side then has seven S/T slots and the Pendulum Zones are S/T indexes 5 (left) and 6
(right). They hold only Pendulum cards, activated face-up; indexes 5 and 6 do not exist under the
New Master Rule.
"""
from __future__ import annotations

import functools
from collections.abc import Iterable

from ..i18n import N_, say
from ..cards import LinkMarker
from ..events import EXTRA, FACEUP, SZONE, Event
from ..rulesets import RULESETS, RuleSet
from ..state import MAIN_MONSTER_ZONES, Card, DuelState
from .base import fail, impossible, refuse_by_identity

#: Each link arrow's bit and the cell it points to, one row up or down, one column left or right.
#: The bits are plain ints: ``int & IntFlag`` runs the enum's Python ``__rand__`` (a few µs per
#: arrow, 8 arrows per Link monster each time a zone is checked), ``int & int`` does not.
_ARROWS: tuple[tuple[int, int, int], ...] = tuple((int(marker), dr, dc) for marker, dr, dc in (
    (LinkMarker.TOP, 1, 0), (LinkMarker.BOTTOM, -1, 0), (LinkMarker.LEFT, 0, -1),
    (LinkMarker.RIGHT, 0, 1), (LinkMarker.TOP_LEFT, 1, -1), (LinkMarker.TOP_RIGHT, 1, 1),
    (LinkMarker.BOTTOM_LEFT, -1, -1), (LinkMarker.BOTTOM_RIGHT, -1, 1)))

Cell = tuple[int, int]


def ruleset_of(state: DuelState) -> RuleSet:
    return RULESETS[state.ruleset]


# -- the grid and link arrows ---------------------------------------------------------------------

def _valid_cell(row: int, col: int) -> bool:
    if row in (0, 2):
        return 0 <= col <= 4
    return row == 1 and col in (1, 3)


def zone_cell(state: DuelState, player: int, zone: int) -> Cell:
    """The grid cell of ``player``'s monster zone ``zone`` (0-4 main, 5-6 extra)."""
    if zone >= 5:
        return 1, 1 + 2 * state.emz_slot(player, zone)
    return (0, zone) if player == 0 else (2, 4 - zone)


def _cell(state: DuelState, card: Card) -> Cell:
    if card.id in state.emz:
        return 1, 1 + 2 * state.emz.index(card.id)
    seq = state.sides[card.controller].mzone.index(card.id)
    return (0, seq) if card.controller == 0 else (2, 4 - seq)


@functools.lru_cache(maxsize=4096)
def arrow_cells(markers: int, cell: Cell, controller: int) -> frozenset[Cell]:
    """The cells a Link monster with these arrows, at ``cell``, controlled by ``controller``, points
    to. Worked out once per arrows, cell and side (a few hundred in all): every summon from the
    Extra Deck asks it for each Link monster on the field."""
    row, col = cell
    sign = 1 if controller == 0 else -1
    out: set[Cell] = set()
    for marker, dr, dc in _ARROWS:
        if markers & marker:
            r, c = row + sign * dr, col + sign * dc
            if _valid_cell(r, c):
                out.add((r, c))
    return frozenset(out)


def _link_monsters(state: DuelState, leaving: frozenset[str]) -> Iterable[Card]:
    for owner in (0, 1):
        for card in state.monsters(owner):
            if card.facts.is_link and card.face_up and card.id not in leaving:
                yield card


def linked_main_zones(state: DuelState, player: int, leaving: frozenset[str] = frozenset()) -> set[int]:
    """``player``'s main monster zones that some face-up Link monster points to (LINK-06).

    Monsters in ``leaving`` (materials of the summon being checked) have left the field by the
    time the summoned monster is placed, so their arrows open no zone."""
    linked: set[int] = set()
    for card in _link_monsters(state, leaving):
        for r, c in arrow_cells(card.facts.link_markers, _cell(state, card), card.controller):
            if r == 0 and player == 0:
                linked.add(c)
            elif r == 2 and player == 1:
                linked.add(4 - c)
    return linked


def extra_link(state: DuelState, player: int, card: Card, zone: int, leaving: frozenset[str] = frozenset()) -> bool:
    """ZONE-05, LINK-06: would ``card``, placed in extra monster zone ``zone`` of ``player``, be
    joined by a chain of co-linked Link monsters (each pointing to the next, and back) to the
    monster ``player`` already has in the other extra monster zone? That is Extra Link, and only
    then may one player use both extra monster zones."""
    if not card.facts.is_link:
        return False
    other_id = state.emz[1 - state.emz_slot(player, zone)]
    if other_id is None:
        return False
    start = zone_cell(state, player, zone)
    arrows: dict[Cell, tuple[str, frozenset[Cell]]] = {start: (card.id, arrow_cells(card.facts.link_markers, start, player))}
    for other in _link_monsters(state, leaving):
        cell = _cell(state, other)
        arrows[cell] = (other.id, arrow_cells(other.facts.link_markers, cell, other.controller))
    seen, todo = {start}, [start]
    while todo:
        here = todo.pop()
        for there in arrows[here][1]:
            if there in seen or there not in arrows or here not in arrows[there][1]:
                continue                                        # not co-linked
            if arrows[there][0] == other_id:
                return True
            seen.add(there)
            todo.append(there)
    return False


# -- monster zones --------------------------------------------------------------------------------

def check_free_monster_zone(state: DuelState, ev: Event, player: int, zone: int,
                            freed: frozenset[str] = frozenset(), taken: str = "ZONE-01") -> None:
    """ZONE-01/02: refuse a monster zone that does not exist under the rule set, or is taken (by
    a card other than those in ``freed``, which leave as the monster arrives). A taken zone is
    refused as ``taken``: a Special Summon names SPS-03 (it needs a usable free zone). Each
    refusal reads only where cards are on the field, so it is told as it is (``public``) to a
    writer who does not see the card the entry plays: a tap on a taken zone at the speed of play
    said "the reason is the judge's"."""
    if not 0 <= zone <= 6:
        impossible(state, ev, "ZONE-01", say("monster zone {zone} does not exist (0-4 main, 5-6 extra)", zone=zone),
                   public=True)
    if zone < MAIN_MONSTER_ZONES:
        occupant = state.sides[player].mzone[zone]
    else:
        ruleset = ruleset_of(state)
        if not ruleset.extra_monster_zones:
            impossible(state, ev, "ZONE-02", say("there are no Extra Monster Zones under {title}", title=ruleset.title),
                       public=True)
        occupant = state.mzone_card(player, zone)
    if occupant is not None and occupant not in freed:
        impossible(state, ev, taken, say("monster zone {zone} of player {player} holds {occupant} already",
                                         zone=zone, player=player, occupant=occupant), public=True)


def check_monster_zone(state: DuelState, ev: Event, player: int, card: Card, zone: int,
                       freed: frozenset[str] = frozenset(), taken: str = "ZONE-01") -> None:
    """Refuse a zone that does not exist or is taken (as ``taken``); fail one the rules close to
    this monster."""
    check_free_monster_zone(state, ev, player, zone, freed, taken)
    from_extra = card.zone == EXTRA
    pendulum_from_extra = from_extra and card.position == FACEUP
    if zone >= 5:
        if not from_extra:
            fail(state, ev, "ZONE-03", say("{name} is not coming from the Extra Deck: it must use a Main Monster "
                                           "Zone", name=card.name))
            return
        other = state.emz[1 - state.emz_slot(player, zone)]
        if (other is not None and other not in freed and state.cards[other].controller == player
                and not extra_link(state, player, card, zone, freed)):
            fail(state, ev, "ZONE-04",
                 say("player {player} already uses an Extra Monster Zone ({other}); a second one needs Extra Link "
                     "(ZONE-05): {name} there would not be co-linked, through Link monsters pointing at each "
                     "other, to {name2}", player=player, other=other, name=card.name, name2=state.cards[other].name))
        return
    if not from_extra:
        return
    ruleset = ruleset_of(state)
    if ruleset.extra_deck_placement == "unrestricted":
        return
    needs_link = ruleset.extra_deck_placement == "nmr2017" or card.facts.is_link or pendulum_from_extra
    linked = linked_main_zones(state, player, freed) if needs_link else set()
    if needs_link and zone not in linked:
        rule = "ZONE-03" if ruleset.extra_deck_placement == "nmr2017" else "NIS-01"
        fail(state, ev, rule,
             say("{name} from the Extra Deck may enter Main Monster Zone {zone} only if a link arrow points to it "
                 "(linked zones of player {player}, materials' arrows aside: {linked})",
                 name=card.name, zone=zone, player=player, linked=sorted(linked) or N_("none")))


# -- Spell & Trap Zones and Pendulum Zones ---------------------------------------------------------

def pendulum_zones(state: DuelState) -> tuple[int, int]:
    """S/T indexes of the left and right Pendulum Zones under the duel's rule set (ZONE-09, CONF-09)."""
    return ruleset_of(state).pendulum_zones


def scales(state: DuelState, player: int) -> list[Card]:
    """The face-up Pendulum cards in ``player``'s Pendulum Zones, left then right (PEND-02/03)."""
    szone = state.sides[player].szone
    out = []
    for index in pendulum_zones(state):
        card_id = szone[index] if index < len(szone) else None
        card = state.cards.get(card_id) if card_id is not None else None
        if card is not None and card.facts.is_pendulum and card.face_up:
            out.append(card)
    return out


def in_pendulum_zone(state: DuelState, card: Card) -> bool:
    """ZONE-09: a Pendulum card in a Pendulum Zone (a non-Pendulum card in an outer zone is not)."""
    if card.zone != SZONE or not card.facts.is_pendulum:
        return False
    szone = state.sides[card.controller].szone
    return card.id in szone and szone.index(card.id) in pendulum_zones(state)


def check_spell_trap_zone(state: DuelState, ev: Event, player: int, zone: int | None, card: Card | None = None) -> None:
    """Refuse an S/T zone that does not exist under the rule set, or is taken (ZONE-08, ZONE-09).

    Under MR3 the separate Pendulum Zones (5 and 6) take only Pendulum cards (MR-03). A zone that
    does not exist or is taken is told as it is (``public``, as ``check_free_monster_zone``)."""
    ruleset = ruleset_of(state)
    count = ruleset.spell_trap_zone_count
    if zone is None or not 0 <= zone < count:
        extra = " and the Pendulum Zones 5-6" if ruleset.separate_pendulum_zones else ""
        impossible(state, ev, "ZONE-08", say("Spell & Trap Zone {zone!r} does not exist (0-4{extra} under {title})",
                                             zone=zone, extra=extra, title=ruleset.title), public=True)
    if zone >= 5 and (card is None or not card.facts.is_pendulum):
        said = say("S/T index {zone} is a Pendulum Zone under {title}: only a Pendulum card goes there, not {what}",
                   zone=zone, title=ruleset.title, what=card.name if card is not None else "this card")
        if card is None:
            impossible(state, ev, "ZONE-09", said)
        refuse_by_identity(state, ev, card, "ZONE-09", said)
    occupant = state.sides[player].szone[zone]
    if occupant is not None:
        impossible(state, ev, "ZONE-08", say("Spell & Trap Zone {zone} of player {player} holds {occupant} already",
                                             zone=zone, player=player, occupant=occupant), public=True)

