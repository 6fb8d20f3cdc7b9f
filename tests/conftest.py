"""Shared test fixtures: where the third-party data in ../shared lives."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("YGOREPLAY_SHARED", ROOT.parent / "shared"))


def shared_path(*parts: str) -> Path:
    """A path under ../shared, skipping the calling test when it is absent (third-party data)."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"third-party data not available: {path}")
    return path
