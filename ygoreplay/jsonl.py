"""Duels as JSON Lines: one event a line, the way a scorekeeper or a test writes them by hand.

Blank lines and lines starting with ``#`` are comments. Every error names the file and line.

Reading is bounded: a file larger than ``MAX_FILE_SIZE`` is refused before it is read, a line
longer than ``MAX_LINE`` bytes when it is reached (the file is read line by line, never whole),
and JSON nested deeper than Python can parse is an ``EventFormatError`` naming the line, like any
other bad line. The events themselves are bounded by ``events.from_dict``.

A scorekeeper may name cards instead of giving passcodes where a duel says which cards exist: in
``deck_registered`` lists and ``position_set_up`` zones, ``"Dark Magician"`` or
``{"card": "Dark Magician", ...}`` for ``46986414``. Names are read against a card database
(``passcode``, e.g. ``CardLookup.resolve``) when the file is read; a name no card has, or several
different cards share, is an error at its line.
"""
from __future__ import annotations

import codecs
import io
import json
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterable, Iterator

from .events import Event, EventFormatError, from_dict
from .files import mode_for, open_readable, write_atomic
from .i18n import say

#: 256 MiB: a duel of a thousand turns is a few MB of JSON Lines.
MAX_FILE_SIZE = 256 << 20
#: 1 MiB a line: the longest event, a set-up position of every card of both players, is a few KB.
MAX_LINE = 1 << 20

_BLOCK = 1 << 20


Passcode = Callable[[str], int]
_SET_UP_ZONES = ("deck", "hand", "gy", "banished", "extra", "mzone", "szone")


def parse_lines(lines: Iterable[str], source: str = "<input>", passcode: Passcode | None = None) -> Iterator[Event]:
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        where = f"{source}:{number}"
        if len(text) > MAX_LINE:
            raise EventFormatError(say("a line of {count:,} characters; a line is at most {MAX_LINE:,}",
                                       count=len(text), MAX_LINE=MAX_LINE), where)
        yield from_dict(_named_cards(_json(text, where), passcode, where), where)


def _named_cards(data: Any, passcode: Passcode | None, where: str) -> Any:
    """The event with every card name where a passcode goes replaced by that passcode."""
    if not isinstance(data, dict):
        return data

    def code(name: str) -> int:
        if passcode is None:
            raise EventFormatError(say("the card {name!r} is named, not given by passcode, and no card database was "
                                       "given to read names with", name=name), where)
        try:
            return passcode(name)
        except KeyError as exc:
            raise EventFormatError(str(exc.args[0]) if exc.args else say("no card is named {name!r}", name=name),
                                   where) from None

    def card(spec: Any) -> Any:
        if isinstance(spec, str):
            return code(spec)
        if isinstance(spec, dict) and isinstance(spec.get("card"), str) and "code" not in spec:
            spec = {**{k: v for k, v in spec.items() if k != "card"}, "code": code(spec["card"])}
        if isinstance(spec, dict) and isinstance(spec.get("materials"), list):
            spec = {**spec, "materials": [card(m) for m in spec["materials"]]}
        return spec

    kind = data.get("kind")
    if kind == "deck_registered" or kind == "decklist_registered":      # a duel's, a match's
        return {**data, **{part: [card(c) for c in data[part]] for part in ("main", "extra", "side")
                           if isinstance(data.get(part), list)}}
    if kind == "position_set_up" and isinstance(data.get("sides"), list):
        sides = []
        for side in data["sides"]:
            if isinstance(side, dict):
                side = {**side, **{zone: [card(c) for c in side[zone]] for zone in _SET_UP_ZONES
                                   if isinstance(side.get(zone), list)}}
                if "fzone" in side:
                    side["fzone"] = card(side["fzone"])
            sides.append(side)
        return {**data, "sides": sides}
    return data


def _json(text: str, where: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise EventFormatError(say("not valid JSON ({msg} at column {colno})",
                                   msg=exc.msg, colno=exc.colno), where) from None
    except RecursionError:
        raise EventFormatError(say("not valid JSON (nested too deeply; an event is a few levels deep)"),
                               where) from None
    except ValueError:                   # a number of more than 4,300 digits (sys.int_info)
        raise EventFormatError(say("not valid JSON (a number too long to read)"), where) from None


def read_events(path: str | Path, passcode: Passcode | None = None) -> list[Event]:
    """All events of a JSON Lines duel; EventFormatError (with file:line) or OSError if unreadable.
    ``passcode`` reads card names (see above)."""
    path = Path(path)
    source = str(path)
    size = path.stat().st_size
    if size > MAX_FILE_SIZE:
        raise EventFormatError(say("the file is {size:,} bytes; a duel file is at most {MAX_FILE_SIZE:,} ({value} "
                                   "MiB)", size=size, MAX_FILE_SIZE=MAX_FILE_SIZE, value=MAX_FILE_SIZE >> 20), source)
    with open_readable(path, "duel file", EventFormatError) as f:
        if not f.seekable():                                # a pipe: read it once, within the cap
            data = f.read(MAX_FILE_SIZE + 1)
            _too_large(len(data), source)
            f = io.BytesIO(data)
        return _events_of(f, source, passcode)


def loads_events(data: bytes, source: str = "<input>", passcode: Passcode | None = None) -> list[Event]:
    """``read_events`` of a file's bytes (an upload, a sniffed file), within the same limits."""
    _too_large(len(data), source)
    return _events_of(io.BytesIO(data), source, passcode)


def _events_of(f: BinaryIO, source: str, passcode: Passcode | None) -> list[Event]:
    bad = _first_bad_utf8(f, source)
    if bad is not None:
        raise EventFormatError(say("not UTF-8 text (byte {bad})", bad=bad), source)
    f.seek(0)
    return list(parse_lines(_text_lines(f, source), source, passcode))


def _too_large(read: int, source: str) -> None:
    if read > MAX_FILE_SIZE:
        raise EventFormatError(say("the file is more than {MAX_FILE_SIZE:,} bytes; a duel file is at most "
                                   "{MAX_FILE_SIZE:,} ({value} MiB)",
                                   MAX_FILE_SIZE=MAX_FILE_SIZE, value=MAX_FILE_SIZE >> 20), source)


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
    """The lines of the (valid UTF-8) file, one read at a time: only "\\n" (or "\\r\\n") ends a line,
    as JSON Lines says (``str.splitlines`` would also cut at a U+2028 inside a JSON string)."""
    number = offset = 0
    while True:
        raw = f.readline(MAX_LINE + 2)              # a line, its "\r\n", and one byte more
        if not raw:
            return
        if len(raw) > MAX_LINE + 1 and not raw.endswith(b"\n"):
            raise EventFormatError(say("a line longer than {MAX_LINE:,} bytes ({value} MiB)",
                                       MAX_LINE=MAX_LINE, value=MAX_LINE >> 20),
                                   f"{source}:{number + 1}")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:           # the file changed since it was checked
            raise EventFormatError(say("not UTF-8 text (byte {value})", value=offset + exc.start), source) from None
        if not offset:                              # a byte order mark (Notepad's), as the registry reads it
            text = text.removeprefix("\ufeff")
        offset += len(raw)
        _too_large(offset, source)
        number += 1
        yield text.removesuffix("\n").removesuffix("\r")   # U+2028 or U+0085 may be in a string


def dumps(events: Iterable[Event]) -> str:
    """Events as JSON Lines text, one event a line, in the form ``read_events`` reads back."""
    return "".join(json.dumps(e.to_dict(), ensure_ascii=False, separators=(", ", ": ")) + "\n" for e in events)


def write_events(path: str | Path, events: Iterable[Event], view: str = "judge") -> int:
    """Write a duel (or a match) as a JSON Lines file, whole or not at all (``files.write_atomic``),
    as ``view`` has it: the judge's (a record, the default) for its owner alone (``files.mode_for``);
    its size."""
    return write_atomic(path, dumps(events).encode("utf-8"), mode_for(view))
