"""Monster zones: which zone a monster may enter (ZONE-01..07, NIS-01) and where link arrows point.

The field is a grid seen from player 0's side: row 0 is player 0's main monster zones (columns
0-4), row 1 the two extra monster zones (columns 1 and 3), row 2 player 1's main monster zones
(player 1's zone j sits at column 4 - j). A Link monster's arrows are relative to its controller,
so player 1's arrows are turned half a circle.
"""
from __future__ import annotations

from ..cards import LinkMarker
from ..events import EXTRA, FACEUP, Event
from ..rulesets import RULESETS
from ..state import Card, DuelState
from .base import fail, impossible

_ARROWS: tuple[tuple[int, int, int], ...] = (
    (LinkMarker.TOP, 1, 0), (LinkMarker.BOTTOM, -1, 0), (LinkMarker.LEFT, 0, -1),
    (LinkMarker.RIGHT, 0, 1), (LinkMarker.TOP_LEFT, 1, -1), (LinkMarker.TOP_RIGHT, 1, 1),
    (LinkMarker.BOTTOM_LEFT, -1, -1), (LinkMarker.BOTTOM_RIGHT, -1, 1))


def _cell(state: DuelState, card: Card) -> tuple[int, int]:
    if card.id in state.emz:
        return 1, 1 + 2 * state.emz.index(card.id)
    seq = state.sides[card.controller].mzone.index(card.id)
    return (0, seq) if card.controller == 0 else (2, 4 - seq)


def linked_main_zones(state: DuelState, player: int, leaving: frozenset[str] = frozenset()) -> set[int]:
    """``player``'s main monster zones that some face-up Link monster points to (LINK-06).

    Monsters in ``leaving`` (materials of the summon being checked) have left the field by the
    time the summoned monster is placed, so their arrows open no zone."""
    linked: set[int] = set()
    for owner in (0, 1):
        for card in state.monsters(owner):
            if not card.facts.is_link or not card.face_up or card.id in leaving:
                continue
            row, col = _cell(state, card)
            sign = 1 if card.controller == 0 else -1
            for marker, dr, dc in _ARROWS:
                if not card.facts.link_markers & marker:
                    continue
                r, c = row + sign * dr, col + sign * dc
                if not 0 <= c <= 4:
                    continue
                if r == 0 and player == 0:
                    linked.add(c)
                elif r == 2 and player == 1:
                    linked.add(4 - c)
    return linked


def check_monster_zone(state: DuelState, ev: Event, player: int, card: Card, zone: int,
                       freed: frozenset[str] = frozenset()) -> None:
    """Refuse a zone that does not exist or is taken; fail one the rules close to this monster."""
    if not 0 <= zone <= 6:
        impossible(state, ev, "ZONE-01", f"monster zone {zone} does not exist (0-4 main, 5-6 extra)")
    ruleset = RULESETS[state.ruleset]
    if zone >= 5 and not ruleset.extra_monster_zones:
        impossible(state, ev, "ZONE-02", f"there are no Extra Monster Zones under {ruleset.title}")
    occupant = state.mzone_card(player, zone)
    if occupant is not None and occupant not in freed:
        impossible(state, ev, "ZONE-01", f"monster zone {zone} of player {player} holds {occupant} already")
    from_extra = card.zone == EXTRA
    pendulum_from_extra = from_extra and card.position == FACEUP
    if zone >= 5:
        if not from_extra:
            fail(state, ev, "ZONE-03", f"{card.name} is not coming from the Extra Deck: it must use a Main Monster Zone")
        other = state.emz[1 - state.emz_slot(player, zone)]
        if other is not None and other not in freed and state.cards[other].controller == player:
            fail(state, ev, "ZONE-04", f"player {player} already uses an Extra Monster Zone ({other}); a second one needs Extra Link")
        return
    if not from_extra or ruleset.extra_deck_placement == "unrestricted":
        return
    needs_link = ruleset.extra_deck_placement == "nmr2017" or card.facts.is_link or pendulum_from_extra
    linked = linked_main_zones(state, player, freed) if needs_link else set()
    if needs_link and zone not in linked:
        rule = "ZONE-03" if ruleset.extra_deck_placement == "nmr2017" else "NIS-01"
        fail(state, ev, rule,
             f"{card.name} from the Extra Deck may enter Main Monster Zone {zone} only if a link arrow points to it "
             f"(linked zones of player {player}, materials' arrows aside: {sorted(linked) or 'none'})")
