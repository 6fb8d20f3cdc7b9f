"""Our signed replay file (``.ygr``, ``replay_file``) as a registered format: read whole and
verified as it is read; its check is the hash chain, then the rules as far as its view knows."""
from __future__ import annotations

import os
from typing import Any

from ..replay_file import ReplayFileError, loads, read as read_file, verify_chain
from ..rules import audit
from ..views import ViewReplay
from . import YGR
from .reading import Checked, Loaded


def read(source: str | os.PathLike[str] | bytes, names: Any, name: str) -> Loaded:
    if isinstance(source, (bytes, bytearray, memoryview)):
        try:
            replay = loads(bytes(source))
        except ReplayFileError as exc:
            raise ReplayFileError(f"{name}: {exc}") from None
    else:
        replay = read_file(source)
    return Loaded(YGR, name, replay.events, replay.cards, replay)


def check(loaded: Loaded) -> Checked:
    replay = loaded.native
    report = audit(replay.events, replay.cards) if replay.view == "judge" else \
        ViewReplay(replay.events, replay.cards, replay.disclosures, replay.renames).audit()
    return Checked(verify_chain(replay) is None and not report.violations, list(report.violations), report)
