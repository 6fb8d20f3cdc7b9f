"""Every file format ygoreplay reads, in one registry, and which of them a file is.

A format is its name, the suffixes its files carry, the magic bytes they begin with, what reading
one yields and the check that goes with it:

========  ==============  ===================================  =========  ==========================================
name      suffixes        recognised by                        yields     check
========  ==============  ===================================  =========  ==========================================
``yrpX``  .yrpX .yrp      ``yrp1`` ``yrp2`` ``yrpX`` (id)      import     LP, winner and every board against the
                                                                          engine's state packets (``yrpx.engine_check``)
``ygr``   .ygr            ``\\x89YGR\\r\\n\\x1a\\n``               replay     hash chain, then the rules
``jsonl`` .jsonl .json    UTF-8 text, a JSON object a line     events     the rules
``match`` (its file's)    a ``.ygr`` whose header says match,  match      the match rules
                          or JSON Lines opening with
                          ``match_started``
========  ==============  ===================================  =========  ==========================================

``find_format`` decides by content first (magic bytes, then JSON Lines text), by suffix only when
the content says nothing, so a ``.yrpX`` renamed ``.bin`` is still an EDOPro replay, a ``.jsonl``
that is really a ``.ygr`` is read as one, and a damaged file is reported by its own reader (bad
magic, truncated) rather than as bad JSON. Deciding is bounded: at most ``LOOK`` bytes are read,
whatever the file's size, and only a regular file is opened (never a pipe or a device, which may
block or never end).

Each format's reader is a module named by a string (``Format.module``: ``read`` and ``check``),
imported when a file of that format is first read, so deciding what a file is imports no reader:
``check`` of a JSON Lines file never loads the EDOPro importer (start-up, issue 25).
"""
from __future__ import annotations

import importlib
import os
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..errors import InputError
from ..files import NotRegularFile, open_regular
from ..i18n import N_, say, t

if TYPE_CHECKING:
    from .reading import Checked, Loaded

#: What is read of a file at first: magic bytes, the start of a JSON Lines file's first event.
SNIFF = 4096
#: The most ever read to decide: a match ``.ygr``'s header (``replay_file.MAX_HEADER`` and the
#: 24 bytes around it), or the first event of a JSON Lines file behind comments.
LOOK = 24 + (256 << 10)
#: Bytes of a magic that recognise its format (the rest is the reader's to check: a ``.ygr`` with
#: a damaged magic is reported as a damaged ``.ygr``).
SIGNATURE = 4


class FormatError(InputError):
    """A file no registered format reads: names the file and says what was expected."""


class Format:
    """One format: how a file of it is recognised, and the module that reads and checks it (a
    plain class: a dataclass would cost ``check`` a millisecond of start-up)."""

    __slots__ = ("name", "title", "suffixes", "magic", "yields", "stored_by", "module", "within", "sniff")

    def __init__(self, name: str, title: str, suffixes: tuple[str, ...], magic: tuple[bytes, ...], yields: str,
                 stored_by: str | None, module: str, within: tuple[str, ...] = (),
                 sniff: Callable[[Callable[[int], bytes], str], bool] | None = None) -> None:
        self.name = name
        self.title = title              # what a file of it is, in a message (translated where shown)
        self.suffixes = suffixes        # as written (".yrpX"); matched ignoring case
        self.magic = magic              # what its files begin with; () for text
        self.yields = yields            # "import", "replay", "events" or "match"
        self.stored_by = stored_by      # the command that stores one ("import", "record")
        self.module = module            # read(source, names, name) -> Loaded; check(Loaded) -> Checked
        self.within = within            # the formats whose files it is a kind of (a match: .ygr, .jsonl)
        self.sniff = sniff              # (head, container) -> whether the file is one

    def __repr__(self) -> str:
        return f"<format {self.name}>"

    def has_suffix(self, path: str | os.PathLike[str]) -> bool:
        return Path(path).suffix.lower() in (s.lower() for s in self.suffixes)

    def read(self, source: str | os.PathLike[str] | bytes, names: Any = None, *, name: str | None = None) -> Loaded:
        """The file's events and card facts (``names``: the card lookup that names what the file
        does not); an ``InputError`` naming what and where for a file it cannot read."""
        shown = name or (str(source) if not isinstance(source, (bytes, bytearray, memoryview)) else t("the file"))
        return importlib.import_module(self.module).read(source, names, shown)

    def check(self, loaded: Loaded) -> Checked:
        return importlib.import_module(self.module).check(loaded)

    def describe(self) -> str:
        """The title, suffixes and magic bytes, for a message saying what was expected."""
        marks = [" ".join(self.suffixes)] if self.suffixes else []
        marks += ["|".join(repr(m)[2:-1] for m in self.magic)] if self.magic else []
        return t(self.title) + (f" ({'; '.join(marks)})" if marks else "")


def _match_sniff(head: Callable[[int], bytes], container: str) -> bool:
    """A ``.ygr`` whose header says ``{"kind": "match"}``, or JSON Lines whose first event is
    ``match_started`` (its first key: how every writer writes it)."""
    if container == "jsonl":
        line = _first_line(head)
        return line is not None and line.replace(" ", "").startswith('{"kind":"match_started"')
    start = head(16)
    if len(start) < 16:
        return False
    from ..replay_file import MAX_HEADER, read_header     # only for a .ygr
    size = struct.unpack_from("<I", start, 12)[0]
    if size > MAX_HEADER:
        return False
    try:
        header = read_header(head(16 + size + 8))[0]
    except InputError:                    # a damaged header: its reader says so
        return False
    match = header.get("match")
    return isinstance(match, dict) and match.get("kind") == "match"


EDOPRO = Format("yrpX", N_("an EDOPro replay"), (".yrpX", ".yrp"), (b"yrpX", b"yrp1", b"yrp2"), "import", "import",
                "ygoreplay.formats.edopro")
YGR = Format("ygr", N_("a ygoreplay file"), (".ygr",), (b"\x89YGR\r\n\x1a\n",), "replay", "import",
             "ygoreplay.formats.ygr")
JSONL = Format("jsonl", N_("JSON Lines events"), (".jsonl", ".json"), (), "events", "record",
               "ygoreplay.formats.jsonl")
MATCH = Format("match", N_("a match file"), (), (), "match", None, "ygoreplay.match.format",
               within=("ygr", "jsonl"), sniff=_match_sniff)

#: Every format, most specific first where one is a kind of another.
FORMATS: tuple[Format, ...] = (MATCH, EDOPRO, YGR, JSONL)


def by_suffix(path: str | os.PathLike[str]) -> Format | None:
    """The format a file's name says (no content read): what a name that is not yet a file means."""
    return next((f for f in FORMATS if f.has_suffix(path)), None)


def find_format(source: str | os.PathLike[str] | bytes, *, name: str | None = None) -> Format:
    """The format of a file (a path) or of its bytes: by its magic bytes or its text, else its
    suffix; a ``FormatError`` naming the file and what was expected when neither says."""
    return _sniffed(source, name, refine=True)


def container_of(source: str | os.PathLike[str] | bytes, *, name: str | None = None) -> Format:
    """``find_format`` without the formats that are a kind of another: the file a match is in."""
    return _sniffed(source, name, refine=False)


def _sniffed(source: str | os.PathLike[str] | bytes, name: str | None, refine: bool) -> Format:
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source[:LOOK])
        return _decide(lambda n: data[:min(n, LOOK)], None, name or t("the file"), refine)
    path = Path(source)
    shown = name or str(path)
    with _open_regular(path, shown) as f:
        def head(n: int) -> bytes:
            f.seek(0)
            return f.read(min(n, LOOK))
        try:
            return _decide(head, path, shown, refine)
        except OSError as exc:      # a file that opens and fails to read (EIO): the file's fault, named
            raise FormatError(say("{shown}: cannot read ({value})", shown=shown, value=exc.strerror or exc)) from None


def _open_regular(path: Path, shown: str) -> Any:
    """The file opened for reading if it is a regular one (not blocking on a pipe meanwhile)."""
    try:
        return open_regular(path)
    except NotRegularFile:
        raise FormatError(t("{path}: not a regular file (a folder, a pipe or a device)", path=shown)) from None
    except OSError as exc:
        raise FormatError(say("{shown}: cannot read ({value})", shown=shown, value=exc.strerror or exc)) from None


def _decide(head: Callable[[int], bytes], path: Path | None, shown: str, refine: bool) -> Format:
    start = head(SNIFF)
    container = _by_content(start, head)
    if container is None and path is not None:
        container = by_suffix(path)
    if container is None:
        expected = ", ".join(f.describe() for f in FORMATS if f.suffixes)
        if not start:
            raise FormatError(t("{path}: empty; expected {expected}", path=shown, expected=expected))
        raise FormatError(t("{path}: not a file ygoreplay reads (it begins {start}); expected {expected}",
                            path=shown, start=start[:8].hex(" "), expected=expected))
    return next((f for f in FORMATS if refine and container.name in f.within and f.sniff is not None
                 and f.sniff(head, container.name)), container)


def _by_content(start: bytes, head: Callable[[int], bytes]) -> Format | None:
    for fmt in FORMATS:
        for magic in fmt.magic:
            signature = magic[:SIGNATURE]
            if start.startswith(signature) or (start and len(start) < SIGNATURE and signature.startswith(start)):
                return fmt
    line = _first_line(head)
    return JSONL if line is not None and line.startswith("{") else None


def _first_line(head: Callable[[int], bytes]) -> str | None:
    """The first line of JSON Lines text that is not blank or a comment (its start, when it runs
    past ``LOOK``); None when the bytes are not UTF-8 text or hold no such line."""
    cut = ""
    for size in (SNIFF, LOOK):
        data = head(size)
        complete = len(data) < size
        text = _text(data, complete)
        if text is None:
            return None
        lines = text.split("\n")
        cut = "" if complete else lines.pop().strip()      # a line the end of what was read cut
        for line in lines:
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                return stripped
        if complete:
            return None
    return cut if cut and not cut.startswith("#") else None


def _text(data: bytes, complete: bool) -> str | None:
    """``data`` as UTF-8 text (a character cut by the end of what was read allowed), else None."""
    data = data.removeprefix(b"\xef\xbb\xbf")
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not complete and exc.start >= len(data) - 3 and exc.reason == "unexpected end of data":
            return data[:exc.start].decode("utf-8", "replace")
        return None
