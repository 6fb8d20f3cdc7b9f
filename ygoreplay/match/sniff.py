"""Whether a file is a match's, from its first bytes: every command that takes a duel file asks
first, so this imports no reader (a match ``.ygr``'s header is read only when the file is one).
"""
from __future__ import annotations

from pathlib import Path

from ..errors import InputError

LOOK = 16 + (256 << 10)          # what is read of a JSON Lines file for its first event


def is_match_file(path: Path) -> bool:
    """A JSON Lines file whose first event is ``match_started`` (within its first ``LOOK`` bytes),
    or a match ``.ygr``."""
    try:
        start = head(path, LOOK)
    except InputError:
        return False
    if start.startswith(b"\x89YGR"):
        from ..replay_file import MAX_HEADER, read_header
        try:
            header = read_header(head(path, 16 + MAX_HEADER))[0]
        except InputError:
            return False
        match = header.get("match")
        return isinstance(match, dict) and match.get("kind") == "match"
    for line in start.decode("utf-8", "replace").splitlines():
        text = line.strip()
        if text and not text.startswith("#"):
            return text.replace(" ", "").startswith('{"kind":"match_started"')
    return False


def head(path: Path, size: int) -> bytes:
    """The first ``size`` bytes of ``path`` (never more, whatever the file is)."""
    try:
        with path.open("rb") as f:
            return f.read(size)
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
