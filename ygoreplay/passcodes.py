"""The passcodes a record names: the card facts a file or a stored duel must carry with it.

Apart from the replay file's reader and writer, which use it too, so that folding a JSON Lines
duel (``check``) does not import them (issue 25: start-up).
"""
from __future__ import annotations

from typing import Any

from .events import Event


def referenced_codes(events: list[Event]) -> set[int]:
    """Every passcode the events mention: the card facts the file must carry (the identities an
    event ``shows`` among them: a record of unknown cards names its cards there)."""
    codes: set[int] = set()
    for e in events:
        kind = e.kind
        if e.shows:                                # a card the record did not know, named here
            codes.update(code for _, code in e.shows)
        if kind == "cards_opened":                 # a sealed card, opened
            codes.update(opening.code for opening in e.cards)
        elif kind == "deck_registered" or kind == "decklist_registered":     # a duel's, a match's
            codes.update(e.main, e.extra, e.side)
        elif kind == "token_created":
            codes.add(e.code)
        elif kind == "position_set_up":
            for side in e.sides:
                for zone, value in side.items():
                    if zone != "lp":
                        for item in value if isinstance(value, list) else [value]:
                            if item.__class__ is int:        # a bare passcode: most of a set-up's cards
                                codes.add(item)
                            else:
                                codes.update(_spec_codes(item))
    codes.discard(0)
    return codes


def _spec_codes(item: Any) -> list[int]:
    if isinstance(item, int) and not isinstance(item, bool):
        return [item]
    if isinstance(item, dict):
        materials = item.get("materials", [])
        return _spec_codes(item.get("code", 0)) + [
            c for m in (materials if isinstance(materials, list) else []) for c in _spec_codes(m)]
    return []
