"""Match files as a registered format (``formats.MATCH``, which names this module): a match's own
stream, in JSON Lines or in a match ``.ygr`` (whose games carry each duel's file); checked by the
match rules. Its duels, named by files beside a JSON Lines match, are opened with the match
(``match.files.open_match``)."""
from __future__ import annotations

import os
from typing import Any

from ..card_sources import facts_of
from ..errors import InputError
from ..formats import MATCH, container_of
from ..formats.reading import Checked, Loaded
from ..i18n import say
from .rules import fold, is_match


def read(source: str | os.PathLike[str] | bytes, names: Any, name: str) -> Loaded:
    container = container_of(source, name=name)
    inner = container.read(source, names, name=name) if container.name in MATCH.within else None
    if inner is None or not is_match(inner.events):
        raise InputError(say("{name}: not a match (a match file begins with match_started)", name=name))
    cards = inner.cards if inner.native is not None else facts_of(inner.events, names if names is not None else {})
    return Loaded(MATCH, name, inner.events, cards, inner.native)


def check(loaded: Loaded) -> Checked:
    state = fold(loaded.events, loaded.cards, audit=True)
    return Checked(not state.violations, list(state.violations or ()), state)
