"""JSON Lines event logs (``jsonl``) as a registered format: the events as written, their card
facts (and effect facts, for the check) from the card lookup given; checked by the rules."""
from __future__ import annotations

import os
from typing import Any

from ..card_sources import facts_and_effects_of
from ..cards import CardDB
from ..jsonl import loads_events, read_events
from ..rules import audit
from . import JSONL
from .reading import Checked, Loaded


def read(source: str | os.PathLike[str] | bytes, names: Any, name: str) -> Loaded:
    passcode = getattr(names, "passcode", None)
    events = loads_events(bytes(source), name, passcode) if isinstance(source, (bytes, bytearray, memoryview)) \
        else read_events(source, passcode)
    return Loaded(JSONL, name, events, facts_and_effects_of(events, names) if names is not None else CardDB())


def check(loaded: Loaded) -> Checked:
    report = audit(loaded.events, loaded.cards)
    return Checked(not report.violations, list(report.violations), report)
