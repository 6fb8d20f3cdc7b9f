"""Duels as JSON Lines: one event a line, the way a scorekeeper or a test writes them by hand.

Blank lines and lines starting with ``#`` are comments. Every error names the file and line.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Iterator

from .events import Event, EventFormatError, from_dict


def parse_lines(lines: Iterable[str], source: str = "<input>") -> Iterator[Event]:
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        where = f"{source}:{number}"
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise EventFormatError(f"not valid JSON ({exc.msg} at column {exc.colno})", where) from None
        yield from_dict(data, where)


def read_events(path: str | Path) -> list[Event]:
    """All events of a JSON Lines duel; EventFormatError (with file:line) or OSError if unreadable."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise EventFormatError(f"not UTF-8 text (byte {exc.start})", str(path)) from None
    return list(parse_lines(text.splitlines(), str(path)))


def dumps(events: Iterable[Event]) -> str:
    return "".join(json.dumps(e.to_dict(), ensure_ascii=False, separators=(", ", ": ")) + "\n" for e in events)
