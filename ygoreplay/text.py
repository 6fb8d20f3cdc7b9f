"""Text that is safe to print: a crafted name cannot rewrite a judge's terminal.

Player names, titles, judge notes and card names come from files anyone can write. Printed raw,
an escape sequence in one can move the cursor, recolour or erase lines, or a newline can forge a
line of ``log`` or ``audit``. ``printable`` shows every control character (C0, DEL, C1), every
bidirectional control, every zero-width character and every unpaired surrogate (an undecodable
byte of a file name) as a visible escape; ``terminal`` does the same but keeps line breaks, for
whole blocks of output.
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .errors import InputError
from .i18n import say

#: Characters that reorder or hide the text around them, or are not seen at all: bidirectional
#: controls, zero-width characters, line and paragraph separators, unpaired surrogates. The web
#: pages show the same ones escaped (viewer/text.js; a test compares the two rules).
_HIDDEN = "\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\u2028\u2029\ufeff\ud800-\udfff"
#: What ``terminal`` (False) and ``printable`` (True) escape.
_UNSAFE = {False: f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_HIDDEN}]", True: f"[\x00-\x1f\x7f-\x9f{_HIDDEN}]"}
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\e"}


def _escape(match: re.Match) -> str:
    ch = match.group(0)
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:             # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


@lru_cache(maxsize=None)
def _unsafe(line: bool) -> re.Pattern[str]:
    """Compiled when first needed: a character class beyond Latin-1 takes 1-2 ms to compile, a
    tenth of ``ygoreplay --help``."""
    return re.compile(_UNSAFE[line])


@lru_cache(maxsize=None)
def _hidden() -> re.Pattern[str]:
    return re.compile(f"[{_HIDDEN}]")


def plain(text: str) -> str:
    """Text as typed compared with names: compatibility forms folded (``ＡＢＣ`` typed in a Chinese
    or Japanese input's full-width mode is ``ABC``, ``Z－ONE`` is ``Z-ONE``: NFKC), case folded. The
    recorder page's name box folds so (viewer/names.js ``plain``), and so do the names compared
    here (``card_names.find_codes``, ``name_key``). A search of the library folds the same forms
    and accents besides (``card_sources.normal_name``: NFKD, its index's keys)."""
    return unicodedata.normalize("NFKC", text).casefold()


def name_key(name: str) -> str:
    """A player's name as it reads: compatibility forms folded (``Ｙｕｇｉ`` is ``Yugi``: NFKC), case
    folded, every character not seen left out (zero-width, bidirectional controls) and white space
    made one space; in a name that mixes Latin letters with another script's, each letter of that
    script that looks like a Latin one read as it (``Yugі``, its ``і`` Cyrillic, is ``Yugi``: UTS #39's
    mixed-script confusables). Two names with one key are one name to whoever reads them (an LP
    sheet, a pairing, a match's seats): the one comparison of players' names (``rounds.read_pairings``,
    ``match.rules``: a match's two players; ``rules.setup``: a duel's)."""
    text = unicodedata.normalize("NFKC", _hidden().sub("", name))
    if not text.isascii() and any(ch.isascii() and ch.isalpha() for ch in text):   # Latin mixed with more
        look_alikes = _latin_look_alikes()
        text = "".join(look_alikes.get(ch, ch) for ch in text)
    return " ".join(unicodedata.normalize("NFKC", plain(text)).split())


#: Scripts whose letters stay as written in a mixed-script name (``_latin_look_alikes``).
_KEPT_SCRIPTS = ("LATIN", "COMMON", "INHERITED")


@lru_cache(maxsize=None)
def _latin_look_alikes() -> dict[str, str]:
    """Each letter of another script that Unicode's confusables (UTS #39, ``confusables.txt``, as
    the ``confusable-homoglyphs`` package carries it) call a look-alike of a basic Latin letter →
    that letter (the first in code point order): Cyrillic ``і`` → ``i``, Greek ``Α`` → ``A``. Read once,
    when a name first mixes Latin letters with others (70-100 ms of CPU: never for a name in one
    script, so a Japanese or Chinese name costs nothing)."""
    from confusable_homoglyphs.categories import alias
    from confusable_homoglyphs.confusables import confusables_data
    out: dict[str, str] = {}
    for ch, glyphs in confusables_data.items():
        if len(ch) != 1 or alias(ch) in _KEPT_SCRIPTS:
            continue
        latin = sorted(g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii() and g["c"].isalpha())
        if latin:
            out[ch] = latin[0]
    return out


def printable(text: str) -> str:
    """One line of text with every control character shown as an escape (newlines included)."""
    if text.isascii() and text.isprintable():       # nothing to escape: no pattern needed
        return text
    return _unsafe(True).sub(_escape, text)


def terminal(text: str) -> str:
    """A block of output with every control character but the line break (and tab) escaped."""
    if text.isascii() and text.isprintable():
        return text
    return _unsafe(False).sub(_escape, text)


def checked(value: str, what: str, limit: int = 65536) -> str:
    """A text a user gave (a title, a judge's name, a note): valid Unicode (a name that was not
    UTF-8 on the command line is refused, not stored) and not too long."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(say("{what} is not valid UTF-8 text ({text})",
                             what=what, text=printable(value)[:60])) from None
    if len(value) > limit:
        raise InputError(say("{what} is {count} characters long; at most {limit}",
                             what=what, count=len(value), limit=limit))
    return value


def number(text: str) -> int | None:
    """A whole number written in ASCII digits, at most 18 of them, or None (``'²'.isdigit()`` is
    true, ``int('²')`` fails; a 5,000-digit ``int()`` raises)."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 18 else None


def cells(text: str) -> int:
    """The terminal cells ``text`` takes: a wide character (``デッキ``, ``获胜``, ``패``) two, as
    rich measures it (imported only for such a text), so columns line up in every language."""
    if text.isascii():
        return len(text)
    from rich.cells import cell_len
    return cell_len(text)


def padded(text: str, width: int) -> str:
    """``text`` with spaces after it to ``width`` cells (``str.ljust`` counts characters: a
    Japanese, Chinese or Korean word came out short)."""
    return text + " " * (width - cells(text))
