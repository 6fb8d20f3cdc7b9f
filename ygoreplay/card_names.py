"""Card names in the reader's language: names a user installed per language, beside the facts.

The facts of a card (type, Level, ATK, its English name) come from the card databases in
``card_sources``; a duel keeps the passcode and its own facts, whatever language it is read in.
What a reader sees of a card's name is ``card_name(facts)``: the name in the current language
(``i18n``) from ``names.<lang>.sqlite`` beside the installed card database, which ``ygoreplay
cards update --source FILE.cdb --lang zh-Hans`` writes from a localized YGOPro/EDOPro
``cards.cdb`` (or YGOPRODeck's ``language=`` answer); missing there, the English name, then the
passcode (``cards.unnamed``). ``$YGOREPLAY_CARD_LANG`` names cards in another language than the
messages (``fr``: YGOPRODeck's French names in English sentences). A names file is small (some
10,000 rows) and read whole once.

Chinese has two scripts and one card database (``zh-CN-2019.cdb``, Simplified): names read for a
Traditional reader are converted once as the file is read (OpenCC ``s2twp``: 灰流丽 → 灰流麗), and
a name is found whichever script it is typed in: the typed text and the names are compared folded
to Simplified (``fold``; the page folds with ``fold_table``, the same conversion per character).
OpenCC is imported when Chinese names are first read (start-up does not pay for it).
"""
from __future__ import annotations

import os
import sqlite3
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from . import i18n
from .cards import CardFacts, unnamed
from .files import data_dir, version_of
from .text import plain

if TYPE_CHECKING:
    from pathlib import Path

#: The languages a names file can hold: the catalogue languages and YGOPRODeck's others.
NAME_LANGUAGES = (*i18n.LANGUAGES, "fr", "de", "it", "pt")
#: Card names in another language than the messages' (``fr``: French names, English sentences).
NAMES_ENV = "YGOREPLAY_CARD_LANG"
#: The OpenCC conversion of the names a reader of each language reads (the databases are Simplified).
_READER_SCRIPT = {"zh-Hant": "s2twp"}
#: Languages whose names are compared folded to one script (``fold``).
FOLDED_LANGUAGES = frozenset(("zh-Hans", "zh-Hant"))
#: The Traditional forms a folding table maps back to Simplified: the conversion a Traditional
#: reader's names get (made once; s2t, s2tw, s2hk each cost as much again, 90-140 ms of CPU).
_TRADITIONAL = ("s2twp",)
#: The language ``one_language`` fixed for what this thread or task draws now (None: none fixed).
_FIXED: ContextVar[str | None] = ContextVar("ygoreplay_names_language", default=None)


def names_language() -> str:
    """The language cards are named in: ``$YGOREPLAY_CARD_LANG`` if it names one, else the reader's
    (or the one ``one_language`` fixed for a drawing under way in this thread or task)."""
    fixed = _FIXED.get()
    if fixed is not None:
        return fixed
    chosen = os.environ.get(NAMES_ENV, "").strip()
    if chosen:
        try:
            return name_language(chosen)
        except i18n.LanguageError:
            pass
    return i18n.current()


@contextmanager
def one_language() -> Iterator[str]:
    """Name every card in one language while a board is drawn: ``names_language`` read once, at
    the start, not at every name (reading an unset ``$YGOREPLAY_CARD_LANG`` raises and catches a
    KeyError in ``os.environ``: 2 µs a name, some 20 a board, issue 25). Held in a context
    variable: another thread or task reads its own."""
    language = names_language()
    token = _FIXED.set(language)
    try:
        yield language
    finally:
        _FIXED.reset(token)


def names_path(language: str, folder: Path | None = None) -> Path:
    """Where the names of ``language`` are kept: beside the installed card database."""
    return (folder or data_dir()) / f"names.{language}.sqlite"


def name_language(tag: str) -> str:
    """The names language a user named: a catalogue language (``zh`` → ``zh-Hans``) or one of
    YGOPRODeck's (fr, de, it, pt); else ``i18n.LanguageError``."""
    folded = tag.strip().lower().replace("_", "-")
    for language in NAME_LANGUAGES[len(i18n.LANGUAGES):]:
        if folded.split("-")[0] == language:
            return language
    return i18n.named(tag)


def write_names(language: str, names: Iterable[tuple[int, str]], folder: Path | None = None) -> int:
    """Replace the names of ``language`` with ``names`` (passcode, name) whole; → how many."""
    path = names_path(language, folder)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".sqlite.tmp")
    temporary.unlink(missing_ok=True)
    rows = [(code, name) for code, name in names if isinstance(name, str) and name.strip()]
    with sqlite3.connect(temporary) as db:
        db.execute("create table names (id integer primary key, name text not null)")
        db.executemany("insert or replace into names values (?, ?)", rows)
    db.close()
    temporary.replace(path)
    return len(rows)


def names_of(language: str, folder: Path | None = None) -> dict[int, str]:
    """passcode → name in ``language`` (empty when none is installed)."""
    path = names_path(language, folder)
    if language == i18n.DEFAULT:
        return {}
    try:
        changed = version_of(path)
    except OSError:
        return {}
    return _read(str(path), changed, _READER_SCRIPT.get(language))


@lru_cache(maxsize=16)
def _read(path: str, changed: tuple[int, ...], script: str | None = None) -> dict[int, str]:
    """A names file read whole (``changed``, ``files.version_of`` it, keys the cache: a new install
    is seen), in the reader's ``script`` (an OpenCC conversion: a Traditional reader's names)."""
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            found = dict(db.execute("select id, name from names"))
        db.close()
    except sqlite3.Error:
        return {}
    if script and found:
        found = dict(zip(found, _convert_all(script, list(found.values()))))
    return found


@lru_cache(maxsize=None)
def _converter(config: str):
    """An OpenCC converter (``s2twp``, ``t2s`` …), made once: the package is imported on first use."""
    import opencc
    return opencc.OpenCC(config)


def _convert_all(config: str, texts: list[str]) -> list[str]:
    """``texts`` converted in one call (a call each costs more than the conversion)."""
    joined = _converter(config).convert("\n".join(texts)).split("\n")
    return joined if len(joined) == len(texts) else [_converter(config).convert(text) for text in texts]


def fold(text: str) -> str:
    """Chinese text as names are compared: Simplified, then ``text.plain`` (閃刀 and 闪刀 the same,
    ＡＢＣ and abc too), as the page folds it (``fold_table``, then names.js ``plain``)."""
    return plain(_converter("t2s").convert(text))


def installed_names(compare: Callable[[str], str]) -> list[tuple[int, str]]:
    """(passcode, name as ``compare`` makes it) of every card name installed in any language
    (``cards update --lang``), Chinese names folded to Simplified first (as ``fold``): what a
    search of the library by a card's name goes through besides the card databases' own names
    (``library_search.resolve_card``: a replay was not found by the name its reader reads it
    by). Made once a names file as installed."""
    out: list[tuple[int, str]] = []
    for language in NAME_LANGUAGES:
        path = names_path(language)
        try:
            changed = version_of(path)
        except OSError:                   # none installed in that language
            continue
        out += _compared(str(path), changed, language in FOLDED_LANGUAGES, compare)
    return out


def typed_forms(text: str, compare: Callable[[str], str]) -> set[str]:
    """``text`` as ``compare`` makes it, and, where Chinese names are installed and it holds a
    CJK character, folded to Simplified first too (``installed_names``' Chinese names are): a
    name typed in either script. Japanese kanji are not folded: the form as typed stays."""
    forms = {compare(text)}
    if any(ord(c) > 0x2e7f for c in text) and any(names_path(language).is_file() for language in FOLDED_LANGUAGES):
        forms.add(compare(_converter("t2s").convert(text)))
    return forms


@lru_cache(maxsize=16)
def _compared(path: str, changed: tuple[int, ...], folded: bool, compare: Callable[[str], str]
              ) -> tuple[tuple[int, str], ...]:
    """The names of one file (``changed``: its version, so a new install is seen) as compared."""
    names = _read(path, changed)
    texts = _convert_all("t2s", list(names.values())) if folded and names else list(names.values())
    return tuple(zip(names, map(compare, texts)))


def fold_table(names: Iterable[str]) -> dict[str, str]:
    """Each character of ``names`` that folds (``fold``) to another, and each Traditional form of
    one, → its Simplified: the page folds typed text and names with it, offline, as ``fold`` does."""
    chars = sorted({c for name in names for c in name if ord(c) > 0x2e7f})
    simplified = _convert_all("t2s", chars)
    table = {c: s for c, s in zip(chars, simplified) if len(s) == 1 and s != c}
    plain = [s for c, s in zip(chars, simplified) if len(s) == 1]
    for config in _TRADITIONAL:
        table.update((t, s) for t, s in zip(_convert_all(config, plain), plain) if len(t) == 1 and t != s)
    return table


def localized(code: int, alias: int = 0, language: str | None = None) -> str | None:
    """The name of ``code`` (or of the card it is an artwork of) in ``language``, or None."""
    names = names_of(language or names_language())
    return names.get(code) or (names.get(alias) if alias else None)


def card_name(facts: CardFacts | None, code: int = 0) -> str:
    """A card's name as the reader reads it: in their language, else English, else the passcode."""
    if facts is None:
        return unnamed(code)
    if names_language() != i18n.DEFAULT:
        name = localized(facts.code, facts.alias or 0)
        if name:
            return name
    return facts.name or unnamed(facts.code)


def find_codes(text: str, language: str | None = None, limit: int = 50) -> list[int]:
    """Passcodes whose name in ``language`` holds ``text`` (case and width ignored, ``text.plain``;
    Chinese in either script, ``fold``), exact names first."""
    language = language or names_language()
    same = fold if language in FOLDED_LANGUAGES else plain
    wanted = same(text.strip())
    if not wanted:
        return []
    names = names_of(language)
    folded = dict(zip(names, map(same, names.values())))
    exact = [code for code, name in folded.items() if name == wanted]
    partial = [code for code, name in folded.items() if wanted in name and code not in exact]
    return (exact + sorted(partial))[:limit]


def strings_path(language: str, folder: Path | None = None) -> Path:
    """Where a YGOPro/EDOPro client's ``strings.conf`` of ``language`` is read from, for the names
    of counters (``!counter 0x4 Psychic Counter``): beside the installed card database, as
    ``strings.<lang>.conf`` (``strings.conf``: English, and any language without its own). It is
    the client's data, never the package's: a user copies or links their client's file there."""
    name = "strings.conf" if language == i18n.DEFAULT else f"strings.{language}.conf"
    return (folder or data_dir()) / name


def counter_name(kind: str, folder: Path | None = None) -> str | None:
    """The name of a counter kind (EDOPro's number, ``0x4``) in the reader's language, from the
    client's ``strings.conf`` (``strings_path``), else in English; None when neither names it
    (a counter a record named by a word is its own name)."""
    try:
        number = hex(int(kind, 16)) if kind.lower().startswith("0x") else None
    except ValueError:
        number = None
    if number is None:
        return None
    for language in dict.fromkeys((names_language(), i18n.DEFAULT)):
        path = strings_path(language, folder)
        try:
            changed = version_of(path)
        except OSError:
            continue
        name = _counters(str(path), changed).get(number)
        if name:
            return name
    return None


@lru_cache(maxsize=8)
def _counters(path: str, changed: tuple[int, ...]) -> dict[str, str]:
    """A ``strings.conf``'s ``!counter`` lines, number → name (read once per content)."""
    found: dict[str, str] = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as lines:
            for line in lines:
                if line.startswith("!counter "):
                    _, number, *name = line.split(None, 2)
                    if name and name[0].strip():
                        try:
                            found[hex(int(number, 16))] = name[0].strip()
                        except ValueError:
                            continue
    except OSError:
        return {}
    return found
