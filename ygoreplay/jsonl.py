"""Duels as JSON Lines: one event a line, the way a scorekeeper or a test writes them by hand.

Blank lines and lines starting with ``#`` are comments. Every error names the file and line.

Reading is bounded: a file larger than ``MAX_FILE_SIZE`` is refused before it is read, a line
longer than ``MAX_LINE`` bytes when it is reached (the file is read line by line, never whole),
and JSON nested deeper than Python can parse is an ``EventFormatError`` naming the line, like any
other bad line. The events themselves are bounded by ``events.from_dict``.
"""
from __future__ import annotations

import codecs
import io
import json
from pathlib import Path
from typing import BinaryIO, Iterable, Iterator

from .events import Event, EventFormatError, from_dict

#: 256 MiB: a duel of a thousand turns is a few MB of JSON Lines.
MAX_FILE_SIZE = 256 << 20
#: 1 MiB a line: the longest event, a set-up position of every card of both players, is a few KB.
MAX_LINE = 1 << 20

_BLOCK = 1 << 20


def parse_lines(lines: Iterable[str], source: str = "<input>") -> Iterator[Event]:
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        where = f"{source}:{number}"
        if len(text) > MAX_LINE:
            raise EventFormatError(f"a line of {len(text):,} characters; a line is at most {MAX_LINE:,}", where)
        yield from_dict(_json(text, where), where)


def _json(text: str, where: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise EventFormatError(f"not valid JSON ({exc.msg} at column {exc.colno})", where) from None
    except RecursionError:
        raise EventFormatError("not valid JSON (nested too deeply; an event is a few levels deep)", where) from None
    except ValueError:                   # a number of more than 4,300 digits (sys.int_info)
        raise EventFormatError("not valid JSON (a number too long to read)", where) from None


def read_events(path: str | Path) -> list[Event]:
    """All events of a JSON Lines duel; EventFormatError (with file:line) or OSError if unreadable."""
    path = Path(path)
    source = str(path)
    size = path.stat().st_size
    if size > MAX_FILE_SIZE:
        raise EventFormatError(f"the file is {size:,} bytes; a duel file is at most {MAX_FILE_SIZE:,} "
                               f"({MAX_FILE_SIZE >> 20} MiB)", source)
    with path.open("rb") as f:
        if not f.seekable():                                # a pipe: read it once, within the cap
            data = f.read(MAX_FILE_SIZE + 1)
            _too_large(len(data), source)
            f = io.BytesIO(data)
        bad = _first_bad_utf8(f, source)
        if bad is not None:
            raise EventFormatError(f"not UTF-8 text (byte {bad})", source)
        f.seek(0)
        return list(parse_lines(_text_lines(f, source), source))


def _too_large(read: int, source: str) -> None:
    if read > MAX_FILE_SIZE:
        raise EventFormatError(f"the file is more than {MAX_FILE_SIZE:,} bytes; a duel file is at most "
                               f"{MAX_FILE_SIZE:,} ({MAX_FILE_SIZE >> 20} MiB)", source)


def _first_bad_utf8(f: BinaryIO, source: str) -> int | None:
    """The offset of the first byte that is not UTF-8, checked before any line is parsed (so a
    file that is not text says so first, as when it was decoded whole); constant memory."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0                                      # bytes fed to the decoder so far
    while True:
        block = f.read(_BLOCK)
        _too_large(offset + len(block), source)     # the file grew since it was measured
        pending = len(decoder.getstate()[0])        # an unfinished character from the last block
        try:
            decoder.decode(block, final=not block)
        except UnicodeDecodeError as exc:
            return offset - pending + exc.start
        if not block:
            return None
        offset += len(block)


def _text_lines(f: BinaryIO, source: str) -> Iterator[str]:
    """The lines of the (valid UTF-8) file, as ``str.splitlines`` cuts them, one read at a time."""
    number = offset = 0
    while True:
        raw = f.readline(MAX_LINE + 2)              # a line, its "\r\n", and one byte more
        if not raw:
            return
        if len(raw) > MAX_LINE + 1 and not raw.endswith(b"\n"):
            raise EventFormatError(f"a line longer than {MAX_LINE:,} bytes ({MAX_LINE >> 20} MiB)",
                                   f"{source}:{number + 1}")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:           # the file changed since it was checked
            raise EventFormatError(f"not UTF-8 text (byte {offset + exc.start})", source) from None
        offset += len(raw)
        _too_large(offset, source)
        for line in text.splitlines():              # "\r", "\x0c", "\u2028" … also end lines
            number += 1
            yield line


def dumps(events: Iterable[Event]) -> str:
    return "".join(json.dumps(e.to_dict(), ensure_ascii=False, separators=(", ", ": ")) + "\n" for e in events)
