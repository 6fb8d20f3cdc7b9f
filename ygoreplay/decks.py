"""Decks and banlists in the formats players already have, and the deck-construction check.

- ``.ydk`` files (YGOPro/EDOPro): one passcode a line; ``#main`` / ``#extra`` / ``!side`` mark the
  sections; other ``#`` lines are comments. A deck is judged as written, section by section, the
  way a duel registers it (``deck_registered``): a Main Deck monster under ``#extra`` is DECK-03.
- ``ydke://`` URLs: ``ydke://`` + base64(main) + ``!`` + base64(extra) + ``!`` + base64(side) + ``!``,
  each part the base64 of a little-endian u32 array of passcodes.
- ``lflist.conf`` banlists: several ``!name`` lists a file, ``$whitelist``, ``code count --comment``.
- ``check_deck``: DECK-01/02/03/05/06 (shared with deck registration in ``rules/setup.py``),
  DECK-08 against a banlist, DECK-10 for Tokens, and CARD-01 for passcodes without card facts —
  an unknown card is reported, never guessed.

Format facts: shared/formats/CARD-AND-DECK-FORMATS.md; rules: RULES.md section 2.
"""
from __future__ import annotations

import os
import re
import struct
from collections import Counter, namedtuple
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from operator import eq
from typing import Union

from .cards import CardFacts
from .errors import InputError
from .i18n import say
from .files import read_limited
from .lazy_dataclass import dataclass

MAIN_MIN, MAIN_MAX, EXTRA_MAX, SIDE_MAX, COPIES_MAX = 40, 60, 15, 15, 3
MAX_FILE = 4 << 20        # a .ydk is a few hundred bytes; an lflist.conf of every list ever, under 1 MB
_PASSCODE_MAX = 0xFFFFFFFF  # ydke:// stores u32 passcodes
#: Cards a section of a deck list may hold: what a registered deck's event holds (``events.MAX_LIST``,
#: not imported: ``deck check`` needs no events); the deck rules judge any size up to it.
MAX_LIST = 1_000
SECTIONS = ("main", "extra", "side")
SECTION_NAMES = {"main": "Main Deck", "extra": "Extra Deck", "side": "Side Deck"}


class DeckFormatError(InputError):
    """A .ydk file or ydke:// URL that cannot be read; the message names the line or the part."""


class BanlistFormatError(InputError):
    """An lflist.conf that cannot be read; the message names the line."""


class Problem(namedtuple("Problem", ("rule", "message"))):
    """One broken deck rule: the rule ID (RULES.md) and what is wrong, in words."""

    __slots__ = ()  # ``collections.namedtuple``: see ``events.Loc``
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.rule} {self.message}"

    def to_dict(self) -> dict[str, str]:
        return {"rule": self.rule, "message": self.message}


# -- reading text that may be a path ------------------------------------------------------------

PathOrText = Union[str, os.PathLike]


def _decode(data: bytes) -> str:
    """UTF-8 with or without a BOM, UTF-16 with a BOM (Windows Notepad), else Latin-1.

    Only comments can hold non-ASCII text, so the Latin-1 fallback never changes a passcode.
    """
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16").lstrip("\ufeff")
        except UnicodeDecodeError:      # cut short, or not UTF-16 after all: its lines are named as read
            pass
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _text_of(path_or_text: PathOrText | bytes, error: type[InputError]) -> tuple[str, str]:
    """(where, text): a path-like or a one-line string is a file; a string with newlines is text."""
    if isinstance(path_or_text, bytes):
        return "<text>", _decode(path_or_text)
    if isinstance(path_or_text, str) and ("\n" in path_or_text or "\r" in path_or_text):
        return "<text>", path_or_text.lstrip("\ufeff")
    from pathlib import Path
    path = Path(path_or_text)
    return str(path), _decode(read_limited(path, MAX_FILE, "deck list or banlist file", error))


# -- decks --------------------------------------------------------------------------------------

@dataclass
class Deck:
    """Passcodes in the order the file gives them, section by section."""

    main: list[int] = field(default_factory=list)
    extra: list[int] = field(default_factory=list)
    side: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.main, self.extra, self.side = list(self.main), list(self.extra), list(self.side)

    def sizes(self) -> dict[str, int]:
        return {"main": len(self.main), "extra": len(self.extra), "side": len(self.side)}

    def codes(self) -> list[int]:
        """Every passcode, Main then Extra then Side."""
        return [*self.main, *self.extra, *self.side]


def _whole(digits: str) -> int:
    """ASCII ``digits`` as a number, one past ``_PASSCODE_MAX`` at most: a longer one is only too
    large (``int`` raised ValueError past 4,300 digits: a traceback, not the line named)."""
    significant = digits.lstrip("0")
    return int(significant or "0") if len(significant) <= 10 else _PASSCODE_MAX + 1


def _passcode(text: str) -> int | None:
    """A passcode written in decimal (leading zeros allowed), or None."""
    if not text.isascii() or not text.isdigit():
        return None
    code = _whole(text)
    return code if 0 < code <= _PASSCODE_MAX else None


_MARKERS = {"#main": "main", "#extra": "extra", "!side": "side"}


def read_ydk(path_or_text: PathOrText | bytes) -> Deck:
    """A .ydk file (path) or its text (a string with newlines, or bytes).

    ``#main``, ``#extra`` and ``!side`` switch sections (any other ``!`` line starts the Side Deck,
    as in YGOPro); other ``#`` lines and blank lines are comments. Anything else must be a passcode:
    a DeckFormatError names the line otherwise, and the line past ``MAX_LIST`` cards of a section
    (what a registered deck holds; 4 MiB of passcodes was read as a deck of two million cards).
    """
    where, text = _text_of(path_or_text, DeckFormatError)
    deck = Deck()
    section, cards = "main", deck.main
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        marker = _MARKERS.get(line.lower())
        if marker is not None:
            section = marker
            cards = getattr(deck, section)
            continue
        if line.startswith("!"):
            section, cards = "side", deck.side
            continue
        if line.startswith("#"):
            continue
        code = _passcode(line)
        if code is None:
            digits = line.isascii() and line.isdigit()
            why = (say("passcode 0 is no card") if digits and not line.strip("0")
                   else say("out of the passcode range 1..{_PASSCODE_MAX}", _PASSCODE_MAX=_PASSCODE_MAX) if digits
                   else say("not a passcode (digits only)"))
            raise DeckFormatError(say("{file}: line {number}: {text!r}: {why}",
                                      file=where, number=number, text=line[:60], why=why))
        if len(cards) == MAX_LIST:
            raise DeckFormatError(say("{where}: line {number}: the {section} deck passes {MAX_LIST:,} cards, more "
                                      "than a deck holds",
                                      where=where, number=number, section=section, MAX_LIST=MAX_LIST))
        cards.append(code)
    return deck


def write_ydk(deck: Deck, created_by: str = "ygoreplay") -> str:
    """The .ydk text EDOPro writes: a ``#created by`` line, ``#main``, ``#extra``, ``!side``."""
    lines = [f"#created by {created_by}", "#main", *map(str, deck.main),
             "#extra", *map(str, deck.extra), "!side", *map(str, deck.side)]
    return "\n".join(lines) + "\n"


YDKE_PREFIX = "ydke://"


def _ydke_part(name: str, part: str) -> list[int]:
    part = part.strip()
    if not part:
        return []
    if not re.fullmatch(r"[A-Za-z0-9+/]*={0,2}", part):
        bad = [ch for ch in part if not (ch.isascii() and (ch.isalnum() or ch in "+/="))]
        why = (say("has {char!r}, which is not base64", char=bad[0]) if bad
               else say("has '=' padding before its end"))
        raise DeckFormatError(say("ydke URL: the {name} part {why}", name=name, why=why))
    padded = part.rstrip("=")
    padded += "=" * (-len(padded) % 4)
    import base64                       # here, as below: only a ydke:// URL needs it
    import binascii
    try:
        data = base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise DeckFormatError(say("ydke URL: the {name} part is not valid base64 ({exc})",
                                  name=name, exc=exc)) from None
    if len(data) % 4:
        raise DeckFormatError(say("ydke URL: the {name} part holds {count} bytes, not whole 4-byte passcodes",
                                  name=name, count=len(data)))
    if len(data) > 4 * MAX_LIST:
        raise DeckFormatError(say("ydke URL: the {name} part holds {cards:,} cards, more than a deck holds (at most "
                                  "{MAX_LIST:,})", name=name, cards=len(data) // 4, MAX_LIST=MAX_LIST))
    codes = list(struct.unpack(f"<{len(data) // 4}I", data))
    for position, code in enumerate(codes, start=1):
        if code == 0:
            raise DeckFormatError(say("ydke URL: the {name} part has passcode 0 (card {position}), which is no card",
                                      name=name, position=position))
    return codes


def read_ydke(url: str) -> Deck:
    """A ``ydke://main!extra!side!`` URL; a DeckFormatError names the part that is wrong."""
    text = url.strip()
    if not text.lower().startswith(YDKE_PREFIX):
        raise DeckFormatError(say("ydke URL: must start with {YDKE_PREFIX!r}", YDKE_PREFIX=YDKE_PREFIX))
    parts = text[len(YDKE_PREFIX):].split("!")
    if len(parts) < 3:
        raise DeckFormatError(say("ydke URL: needs the main, extra and side parts, each ended by '!'; found {count} "
                                  "part(s)", count=len(parts)))
    if any(p.strip() for p in parts[3:]):
        raise DeckFormatError(say("ydke URL: unexpected text after the side part"))
    return Deck(*(_ydke_part(name, part) for name, part in zip(SECTIONS, parts)))


def write_ydke(deck: Deck) -> str:
    """The ``ydke://`` URL EDOPro exports, with '=' padding and a closing '!'."""
    def part(codes: Sequence[int]) -> str:
        for code in codes:
            if not 0 < code <= _PASSCODE_MAX:
                raise DeckFormatError(say("passcode {code} does not fit a ydke URL (1..{_PASSCODE_MAX})",
                                          code=code, _PASSCODE_MAX=_PASSCODE_MAX))
        import base64
        return base64.b64encode(struct.pack(f"<{len(codes)}I", *codes)).decode("ascii")
    return YDKE_PREFIX + "".join(part(codes) + "!" for codes in (deck.main, deck.extra, deck.side))


def read_deck(spec: str | os.PathLike) -> Deck:
    """A ``ydke://`` URL, else a .ydk path."""
    if isinstance(spec, str):
        if spec.strip().lower().startswith(YDKE_PREFIX):
            return read_ydke(spec)
        scheme = re.match(r"([A-Za-z][A-Za-z0-9+.-]*)://", spec.strip())
        from pathlib import Path
        if scheme and not Path(spec).exists():
            raise DeckFormatError(say("{spec}: {scheme}:// is no deck format; give a .ydk file or a ydke:// URL",
                                      spec=spec[:60], scheme=scheme.group(1)))
    from pathlib import Path
    return read_ydk(Path(spec))


# -- banlists -----------------------------------------------------------------------------------

_LIMIT_WORDS = {0: "Forbidden", 1: "Limited", 2: "Semi-Limited"}


@dataclass(frozen=True)
class Banlist:
    """One ``!name`` list of an lflist.conf: passcode -> copies allowed.

    Unlisted cards are allowed 3 copies (DECK-06 still caps every card at 3), unless the list is a
    ``$whitelist``: then unlisted cards are forbidden.
    """

    name: str
    limits: Mapping[int, int] = field(default_factory=dict)
    whitelist: bool = False

    def content_hash(self) -> str:
        """``sha256:`` of what the list allows, not of how its file was written (comments, order,
        the list's name): ``$whitelist`` then one ``passcode copies`` line a card, by passcode."""
        return banlist_hash(self.limits.items(), self.whitelist)

    def limit(self, card: CardFacts | int) -> int | None:
        """Copies allowed by this list for a card, matched on its passcode, then its ``alias``
        (the original passcode of an alternate artwork); None when the list does not name it."""
        if isinstance(card, int):
            return self.limits.get(card)
        found = self.limits.get(card.code)
        if found is None and card.alias:
            found = self.limits.get(card.alias)
        return found


def banlist_hash(limits: Iterable[tuple[int, int]], whitelist: bool) -> str:
    """The content hash of a banlist (``Banlist.content_hash``), from its limits and kind."""
    lines = (["$whitelist"] if whitelist else []) + [f"{code} {count}" for code, count in sorted(limits)]
    import hashlib                          # here: a check of a duel without a banlist needs none (OpenSSL: 1-3 ms)
    return "sha256:" + hashlib.sha256("\n".join(lines).encode("ascii")).hexdigest()


#: ``passcode count``: ASCII digits (``\d`` took any script's, which no .ydk line may hold), a count
#: of at most 9 digits (a longer one is no count EDOPro reads).
_ENTRY = re.compile(r"([0-9]+)[ \t]+(-?[0-9]{1,9})(?:(?:[ \t]|--).*)?")


def read_lflist(path_or_text: PathOrText | bytes) -> dict[str, Banlist]:
    """Every list of an lflist.conf, by name, in file order.

    ``!name`` starts a list, ``$whitelist`` makes the current list a whitelist, ``#`` lines are
    comments, and each entry is ``passcode count`` with an optional ``--comment`` (leading zeros
    allowed, any count from 0 up, as EDOPro takes). A BanlistFormatError names the bad line.
    """
    where, text = _text_of(path_or_text, BanlistFormatError)
    lists: dict[str, Banlist] = {}
    started: dict[str, int] = {}
    name: str | None = None
    limits: dict[int, int] = {}
    whitelist = False

    def close() -> None:
        if name is not None:
            lists[name] = Banlist(name, dict(limits), whitelist)

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue

        def bad(why: str) -> BanlistFormatError:
            return BanlistFormatError(say("{file}: line {number}: {text!r}: {why}",
                                          file=where, number=number, text=line[:60], why=why))

        if line.startswith("!"):
            close()
            name = line[1:].strip()
            if not name:
                raise bad(say("a list needs a name after '!'"))
            if name in started:
                raise bad(say("the list {name!r} was already started on line {line}", name=name, line=started[name]))
            started[name] = number
            limits, whitelist = {}, False
            continue
        if line.startswith("$"):
            if (line[1:].split() or [""])[0].lower() != "whitelist":
                raise bad(say("unknown directive; only $whitelist is known"))
            if name is None:
                raise bad(say("$whitelist before any !name list"))
            whitelist = True
            continue
        match = _ENTRY.fullmatch(line)
        if match is None:
            raise bad(say("expected 'passcode count', e.g. '4031928 0 --Change of Heart'"))
        if name is None:
            raise bad(say("an entry before any !name list"))
        code, count = _whole(match.group(1)), int(match.group(2))
        if not 0 < code <= _PASSCODE_MAX:
            raise bad(say("passcode {code} is no card", code=match.group(1)[:20]))
        if count < 0:
            raise bad(say("count {count} is negative", count=count))
        limits[code] = count  # as EDOPro: a later entry for the same passcode wins
    close()
    return lists


# -- the deck rules -----------------------------------------------------------------------------

Entry = Union[CardFacts, int]  # an int is a passcode without card facts


def _label(entry: Entry) -> str:
    if isinstance(entry, int):
        return f"passcode {entry} (unknown card)"
    return entry.name


def _distinct(entries: Iterable[Entry]) -> tuple[dict[int, Entry], Counter[int]]:
    """Each passcode's first entry, in deck order, and its copies: a deck of 60 holds some 25
    different cards, and every rule below is judged once per card, not once per copy."""
    entries = list(entries)
    codes = [entry if entry.__class__ is int else entry.code for entry in entries]  # type: ignore[union-attr]
    return dict(zip(codes, entries)), Counter(codes)      # keys in deck order; one passcode, one card


def _name_groups(entries: Iterable[Entry]) -> list[tuple[int, list[Entry], int]]:
    """(key, distinct cards, copies) for each card name, sorted by key: cards share a name when
    they share ``alias or code`` or have the same printed name (DECK-06). A passcode without
    facts is a name of its own (the same passcode is the same card; nothing more is guessed)."""
    distinct, copies = _distinct(entries)
    parent: dict[int, int] = {}

    def find(key: int) -> int:
        root = parent.setdefault(key, key)
        while root != parent[root]:
            root = parent[root]
        parent[key] = root
        return root

    def union(a: int, b: int) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    first_with_name: dict[str, int] = {}
    for code, entry in distinct.items():
        find(code)
        if not isinstance(entry, int):
            if entry.alias:
                union(code, entry.alias)
            union(code, first_with_name.setdefault(entry.name, code))
    groups: dict[int, list[Entry]] = {}
    counted: Counter[int] = Counter()
    for code, entry in distinct.items():
        root = find(code)
        groups.setdefault(root, []).append(entry)
        counted[root] += copies[code]
    return [(root, groups[root], counted[root]) for root in sorted(groups)]


def deck_problems(main: Sequence[Entry], extra: Sequence[Entry], side: Sequence[Entry],
                  *, separate_tokens: bool = False) -> list[Problem]:
    """DECK-01/02/03/05/06 for one deck, one problem per offending card, in deck order.

    Entries are CardFacts, or bare passcodes for cards without facts: those count toward the
    section sizes and the 3-copy limit (same passcode, same card) but their type is not judged.
    Deck registration (``rules/setup.py``) uses the default, which reports a Token in the Main
    Deck under DECK-02 and in the Extra Deck under DECK-03; ``check_deck`` passes
    ``separate_tokens=True`` so that a Token anywhere is DECK-10 instead.
    """
    problems: list[Problem] = []
    if not MAIN_MIN <= len(main) <= MAIN_MAX:
        problems.append(Problem("DECK-01", f"the Main Deck has {len(main)} cards; it must have 40 to 60"))
    if any(f.is_extra_deck or f.is_token for f in _kinds(main)):
        for f in main:
            if isinstance(f, int):
                continue
            if separate_tokens and f.is_token:
                problems.append(_token_problem(f, "main"))
            elif f.is_extra_deck or f.is_token:
                problems.append(Problem("DECK-02", f"{f.name} ({f.code}) may not be in the Main Deck"))
    if len(extra) > EXTRA_MAX:
        problems.append(Problem("DECK-03", f"the Extra Deck has {len(extra)} cards; at most 15"))
    if any(f.is_token or not f.is_extra_deck for f in _kinds(extra)):
        for f in extra:
            if isinstance(f, int):
                continue
            if separate_tokens and f.is_token:
                problems.append(_token_problem(f, "extra"))
            elif not f.is_extra_deck:
                problems.append(Problem("DECK-03", f"{f.name} ({f.code}) is not an Extra Deck monster"))
    if len(side) > SIDE_MAX:
        problems.append(Problem("DECK-05", f"the Side Deck has {len(side)} cards; at most 15"))
    if separate_tokens:
        problems.extend(_token_problem(f, "side") for f in side
                        if not isinstance(f, int) and f.is_token)
    problems += _copies_problems([*main, *extra, *side])
    return problems


def _kinds(entries: Sequence[Entry]) -> Iterable[CardFacts]:
    """One card of each card type among ``entries`` (passcodes without facts aside): what a
    card may be and where it may go depend on its type alone, and a deck holds a few types."""
    return {f.type: f for f in entries if f.__class__ is not int}.values()  # type: ignore[union-attr]


def _copies_problems(entries: list[Entry]) -> list[Problem]:
    """DECK-06: at most 3 copies of a card name across Main, Extra and Side. In a deck where each
    name is one card (its alternate artworks alias it) and no card has more than 3 copies, there
    is nothing to find; anything else is grouped by name in full (``_name_groups``)."""
    codes = [entry if entry.__class__ is int else entry.code for entry in entries]  # type: ignore[union-attr]
    card_of: dict[int, int] = {}                    # each passcode's card: its alias or itself
    names: dict[str, int] = {}
    for code, entry in dict(zip(codes, entries)).items():     # each passcode once, in deck order
        if entry.__class__ is int:
            card_of[code] = code
            continue
        card = card_of[code] = entry.alias or code  # type: ignore[union-attr]
        if names.setdefault(entry.name, card) != card:  # type: ignore[union-attr]
            break                                   # one name, two cards: group in full
    else:
        # sorted, a card with more than 3 copies is one whose first and fourth are 3 apart
        # (no Counter: its construction was a third of the check)
        cards = sorted([card_of[code] for code in codes])
        if not any(map(eq, cards, cards[COPIES_MAX:])):
            return []
    return [Problem("DECK-06", f"{n} copies of {_label(group[-1])}; at most 3 across Main, Extra and Side")
            for _, group, n in _name_groups(entries) if n > COPIES_MAX]


def _token_problem(f: CardFacts, section: str) -> Problem:
    return Problem("DECK-10", f"{f.name} ({f.code}) is a Token and cannot be in any deck "
                              f"(found in the {SECTION_NAMES[section]})")


def banlist_problems(entries: Sequence[Entry], banlist: Banlist) -> list[Problem]:
    """DECK-08: copies of each name across Main + Extra + Side against the list's 0/1/2 (any
    count in EDOPro lists); on a ``$whitelist`` an unlisted card is forbidden. An unknown passcode
    is judged only when the list names that very passcode."""
    problems: list[Problem] = []
    listed = f"the list {banlist.name!r}"
    for _, group, n in _name_groups(entries):
        limits = [limit for limit in (banlist.limit(entry) for entry in group) if limit is not None]
        if banlist.whitelist:
            for entry in group:
                if not isinstance(entry, int) and banlist.limit(entry) is None:
                    problems.append(Problem(
                        "DECK-08", f"{entry.name} ({entry.code}) is not on {listed}, a whitelist: "
                                   "unlisted cards are forbidden"))
        if limits and n > min(limits):
            limit = min(limits)
            word = _LIMIT_WORDS.get(limit)
            problems.append(Problem(
                "DECK-08", f"{n} {'copy' if n == 1 else 'copies'} of {_label(group[0])}; "
                           f"{listed} allows {limit}" + (f" ({word})" if word else "")))
    return problems


def check_deck(deck: Deck, cards: Mapping[int, CardFacts],
               banlist: Banlist | None = None) -> list[Problem]:
    """Every problem with ``deck`` as written, each section as it is: what ``deck_registered``
    finds in the same deck (the two never disagree).

    CARD-01 for each passcode ``cards`` does not know (its type and name are then not judged),
    DECK-01/02/03/05/06, DECK-08 against ``banlist``, DECK-10 for Tokens. Identical problems from
    several copies of a card are reported once, with the count. Sorted by rule ID, stable.
    """
    sections = {name: [cards.get(code, code) for code in getattr(deck, name)] for name in SECTIONS}
    problems: list[Problem] = []
    unknown: dict[int, Counter[str]] = {}
    for name in SECTIONS:
        for code in getattr(deck, name):
            if code not in cards:
                unknown.setdefault(code, Counter())[name] += 1
    for code, where in unknown.items():
        places = ", ".join(SECTION_NAMES[s] + (f" x{n}" if n > 1 else "") for s, n in where.items())
        problems.append(Problem("CARD-01", f"passcode {code} is unknown: no card facts for it "
                                           f"({places}); it is reported, not guessed"))
    problems += _collapse(deck_problems(sections["main"], sections["extra"], sections["side"],
                                        separate_tokens=True))
    if banlist is not None:
        problems += banlist_problems([*sections["main"], *sections["extra"], *sections["side"]],
                                     banlist)
    return sorted(problems, key=lambda p: p.rule)


def _collapse(problems: list[Problem]) -> list[Problem]:
    """One problem per distinct (rule, message), with '(N copies)' when a card repeats it."""
    counts = Counter(problems)
    out = []
    for problem in dict.fromkeys(problems):
        n = counts[problem]
        out.append(problem if n == 1 else Problem(problem.rule, f"{problem.message} ({n} copies)"))
    return out


__all__ = ["Banlist", "BanlistFormatError", "banlist_hash", "Deck", "DeckFormatError", "Problem",
           "banlist_problems", "check_deck", "deck_problems", "read_deck", "read_lflist",
           "read_ydk", "read_ydke", "write_ydk", "write_ydke"]
