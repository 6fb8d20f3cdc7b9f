"""EDOPro's ``.yrpX`` (and YGOPro's ``.yrp``) as a registered format: imported by ``ygoreplay.yrpx``
(``EDOPRO``), checked against the engine's own state packets (``yrpx.engine_check``)."""
from __future__ import annotations

import os
from typing import Any

from ..yrpx import EDOPRO as IMPORTER, YrpxError, fold_and_compare
from . import EDOPRO
from .reading import Checked, Loaded


def read(source: str | os.PathLike[str] | bytes, names: Any, name: str) -> Loaded:
    try:
        result = IMPORTER.import_file(source, names=names)
    except YrpxError as exc:
        if exc.path is not None:
            raise
        raise YrpxError(exc.detail, exc.offset, name, exc.space) from None     # bytes: named as given
    return Loaded(EDOPRO, name, result.events, result.cards, result)


def check(loaded: Loaded) -> Checked:
    agreement = fold_and_compare(loaded.native)
    return Checked(agreement.ok, list(agreement.violations), agreement)
