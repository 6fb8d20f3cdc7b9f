"""Where card facts come from: the databases a user already has, looked up in one order.

A command that needs card names or facts asks, in this order (the first that knows a passcode
wins): the duel's own facts (they travel with a stored duel and a ``.ygr`` file, so the source
below is for what a duel does not carry), then ``--cards`` (each file given; a later one wins
over an earlier, as EDOPro's expansions win over its base ``cards.cdb``), then
``$YGOREPLAY_CARDS`` (files separated by ``os.pathsep``), then the ``cards.cdb`` files of a local
EDOPro or YGOPro install found in its usual places (``LOCAL_INSTALLS``), then the database
``ygoreplay cards update`` installed (``card_install``), then the bundled classic set. A passcode none of them knows stays a passcode: nothing fails for want of a name.

A ``cards.cdb`` holds some 13,000 cards and a duel needs a few dozen, so a database file is
read on demand (one indexed query per passcode, remembered), never loaded whole.
"""
from __future__ import annotations

import abc
import collections.abc
import os
import unicodedata
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence

from .cards import CardDB, CardDBError, CardFacts, CdbReader, facts_from_cdb_row
from .effect_facts import EFFECTS_COLUMNS, EFFECTS_TABLE, EffectFact
from .events import Event
from .files import installed_path
from .passcodes import referenced_codes

CARDS_ENV = "YGOREPLAY_CARDS"

#: Folders where a local install keeps its card databases. EDOPro (Project Ignis) keeps
#: ``cards.cdb`` and its expansions' ``*.cdb`` in ``expansions/`` of its folder; YGOPro and its
#: forks keep one ``cards.cdb`` in the game folder.
LOCAL_INSTALLS = (
    "C:/ProjectIgnis/expansions", "~/ProjectIgnis/expansions", "C:/ygopro", "C:/MyCardLibrary/ygopro",
) if os.name == "nt" else (
    "~/ProjectIgnis/expansions", "~/.local/share/ProjectIgnis/expansions", "/opt/ProjectIgnis/expansions",
    "~/Applications/ProjectIgnis/expansions", "/Applications/ProjectIgnis/expansions",
    "~/ygopro", "~/.ygopro", "/opt/ygopro",
)

_ROW = ("select datas.id, alias, type, atk, def, level, race, attribute, texts.name "
        "from datas join texts on datas.id = texts.id")


class _Lookup(collections.abc.Mapping[int, CardFacts]):
    """A mapping that answers ``get`` without listing itself: counting or listing a database of
    13,000 cards is never needed to look one up."""

    @abc.abstractmethod
    def get(self, code: object, default: object = None) -> CardFacts | None:   # type: ignore[override]
        """The facts of ``code``, or ``default`` when this source does not know it."""

    def __getitem__(self, code: int) -> CardFacts:
        facts = self.get(code)
        if facts is None:
            raise KeyError(f"unknown passcode {code!r}")
        return facts

    def __contains__(self, code: object) -> bool:
        return self.get(code) is not None

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:
        return True

    def facts_of(self, codes: Iterable[int]) -> list[CardFacts] | None:
        """Each passcode's facts, or None when one has none (``CardDB.facts_of``: a fold reads a
        registered deck through it, whatever its card source)."""
        found = [self.get(code) for code in codes]
        return None if None in found else found  # type: ignore[return-value]


class CdbFile(_Lookup):
    """One ``cards.cdb``, opened read-only and read a passcode at a time."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._cdb = CdbReader(self.path)
        self._query = self._cdb.rows
        self._known: dict[int, CardFacts | None] = {}
        self._codes: list[int] | None = None
        self._names: list[tuple[int, int, str, str]] | None = None
        self._has_effects: bool | None = None
        self._effect_columns: list[str] = []
        self._effects: dict[int, tuple[EffectFact, ...]] = {}

    def get(self, code: object, default: object = None) -> CardFacts | None:   # type: ignore[override]
        if not isinstance(code, int) or isinstance(code, bool) or not 0 <= code < 1 << 63:
            return default                                        # type: ignore[return-value]
        if code not in self._known:
            rows = self._query(f"{_ROW} where datas.id = ?", (code,))
            self._known[code] = facts_from_cdb_row(self.path, rows[0]) if rows else None
        facts = self._known[code]
        return default if facts is None else facts               # type: ignore[return-value]

    def effects(self, code: int) -> tuple[EffectFact, ...]:
        """The effect facts ``ygoreplay cards update --scripts`` stored for ``code`` (or for the
        card it is an alternate artwork of); () when this database holds none."""
        if self._has_effects is None:
            # a table stored before ``condition`` was read lacks its column: its facts read None
            held = {row[1] for row in self._query(f"pragma table_info({EFFECTS_TABLE})", ())}
            self._has_effects = bool(held)
            self._effect_columns = [c for c in EFFECTS_COLUMNS[2:] if c in held]
        if not self._has_effects or not isinstance(code, int) or isinstance(code, bool):
            return ()
        if code not in self._effects:
            sql = (f"select {', '.join(self._effect_columns)} from {EFFECTS_TABLE} where id = ? order by seq")
            rows = self._query(sql, (code,))
            facts = self.get(code)
            if not rows and facts is not None and facts.alias:
                rows = self._query(sql, (facts.alias,))
            self._effects[code] = tuple(EffectFact.from_row(row) for row in rows)
        return self._effects[code]

    def __iter__(self) -> Iterator[int]:
        if self._codes is None:
            self._codes = [row[0] for row in self._query("select datas.id from datas join texts on datas.id = texts.id "
                                                         "order by datas.id")]
        return iter(self._codes)

    def named(self, name: str) -> list[CardFacts]:
        """The cards with exactly this name, ignoring case (an alternate artwork shares it)."""
        rows = self._query(f"{_ROW} where texts.name = ? collate nocase order by alias != 0, datas.id", (name,))
        return [facts_from_cdb_row(self.path, row) for row in rows]

    def names(self) -> list[tuple[int, int, str, str]]:
        """(passcode, alias, name, name as compared) of every card, read once: what a search
        goes through (originals before their artworks)."""
        if self._names is None:
            self._names = [(code, alias or 0, name, normal_name(name)) for code, alias, name in self._query(
                "select datas.id, alias, texts.name from datas join texts on datas.id = texts.id "
                "order by alias != 0, datas.id") if isinstance(name, str)]
        return self._names

    def close(self) -> None:
        self._cdb.close()


class CardLookup(_Lookup):
    """Card facts from several sources in order of priority; read like a ``CardDB``."""

    def __init__(self, layers: Sequence[Mapping[int, CardFacts]]) -> None:
        self.layers = list(layers)

    def get(self, code: object, default: object = None) -> CardFacts | None:   # type: ignore[override]
        for layer in self.layers:
            facts = layer.get(code)                              # type: ignore[call-overload]
            if facts is not None:
                return facts
        return default                                            # type: ignore[return-value]

    def __iter__(self) -> Iterator[int]:
        seen: set[int] = set()
        for layer in self.layers:
            for code in layer:
                if code not in seen:
                    seen.add(code)
                    yield code

    def effects(self, code: int) -> tuple[EffectFact, ...]:
        """The effect facts of ``code`` from the first source that has any."""
        for layer in self.layers:
            reader = getattr(layer, "effects", None)
            found = reader(code) if reader is not None else ()
            if found:
                return found
        return ()

    def subset(self, codes: Iterable[int]) -> CardDB:
        """Just these passcodes, as a ``CardDB`` (with their effect facts); every one must be known."""
        wanted = list(dict.fromkeys(codes))
        missing = [code for code in wanted if code not in self]
        if missing:
            raise KeyError(f"unknown passcode(s): {', '.join(map(str, missing))}")
        return CardDB((self[code] for code in wanted), {code: found for code in wanted if (found := self.effects(code))})

    def merged(self, other: Mapping[int, CardFacts]) -> CardLookup:
        """These sources with ``other`` first (it wins where both know a passcode)."""
        return CardLookup([other, *self.layers])

    def by_name(self, name: str) -> CardFacts:
        """The card with exactly this name, ignoring case, from the first source that has one."""
        for layer in self.layers:
            found = layer.named(name) if isinstance(layer, CdbFile) else _named(layer, name)
            if found:
                return found[0]
        raise KeyError(f"no card named {name!r}")

    def to_json_list(self) -> list[dict]:
        return [self[code].to_dict() for code in self]

    def find(self, text: str, limit: int = 10) -> list[CardFacts]:
        """Cards whose name holds ``text``, ignoring case and accents: exact names first, then
        names that start with it, then the rest, shorter first; one entry per card (its
        alternate artworks are the same card)."""
        wanted = normal_name(text)
        if not wanted:
            return []
        best: dict[int, tuple[int, int, str, int, int]] = {}
        for layer in self.layers:
            for code, alias, name, folded in _names_of(layer):
                card = alias or code
                if card in best or wanted not in folded:
                    continue
                rank = 0 if folded == wanted else 1 if folded.startswith(wanted) else 2
                best[card] = (rank, len(name), name, card, code)
        found = [self.get(card) or self[code] for _, _, _, card, code in sorted(best.values())]
        return found[:limit]

    def resolve(self, name: str) -> CardFacts:
        """The one card with exactly this name (ignoring case and accents), as a scorekeeper
        writes it; KeyError when no card, or several different cards, have it."""
        wanted = normal_name(name)
        for layer in self.layers:
            matches = [(code, alias) for code, alias, _name, folded in _names_of(layer) if folded == wanted]
            cards = {alias or code for code, alias in matches}
            if len(cards) > 1:
                raise KeyError(f"{name!r} names {len(cards)} different cards ({', '.join(map(str, sorted(cards)))}): "
                               "give the passcode")
            if cards:                         # the original print, else the artwork this source has
                return self.get(cards.pop()) or self[min(code for code, _alias in matches)]
        raise KeyError(f"no card is named {name!r} (ygoreplay cards find {name!r} searches)")

    def passcode(self, name: str) -> int:
        """``resolve``'s passcode: how a JSON Lines duel's card names are read (``jsonl``)."""
        return self.resolve(name).code


def facts_of(events: Iterable[Event], cards: Mapping[int, CardFacts]) -> CardDB:
    """The facts ``cards`` has of the cards these events name: what a duel read from a file
    carries from then on (a passcode nobody knows is left to the rules: CARD-01)."""
    return CardDB(cards[code] for code in referenced_codes(events) if code in cards)


def facts_and_effects_of(events: Iterable[Event], cards: Mapping[int, CardFacts]) -> CardDB:
    """``facts_of``, with the effect facts ``cards`` has of them (``cards update --scripts``): what
    a check reads the rules that need them with (``rules.effects``), and what a duel recorded from
    a file is stored with (the store keeps them with its card facts, signed)."""
    db = facts_of(events, cards)
    reader = getattr(cards, "effects", None)
    return db.with_effects({code: found for code in db if (found := reader(code))}) if reader is not None else db


def normal_name(name: str) -> str:
    """A name as a search compares it: no accents, no case, single spaces."""
    decomposed = unicodedata.normalize("NFKD", name)
    return " ".join("".join(c for c in decomposed if not unicodedata.combining(c)).casefold().split())


def _names_of(layer: Mapping[int, CardFacts]) -> list[tuple[int, int, str, str]]:
    """(passcode, alias, name, name as compared) of every card of a source."""
    if isinstance(layer, CdbFile):
        return layer.names()
    return [(facts.code, facts.alias, facts.name, normal_name(facts.name)) for facts in layer.values()]


def _named(cards: Mapping[int, CardFacts], name: str) -> list[CardFacts]:
    if isinstance(cards, CardDB):
        try:
            return [cards.by_name(name)]
        except KeyError:
            return []
    return [c for c in cards.values() if c.name.casefold() == name.casefold()]


def local_databases(installs: Iterable[str] = LOCAL_INSTALLS) -> list[Path]:
    """The ``cards.cdb`` files of local EDOPro/YGOPro installs, base first, then expansions."""
    found: list[Path] = []
    for folder in installs:
        path = Path(folder).expanduser()
        if not path.is_dir():
            continue
        files = sorted(path.glob("*.cdb"), key=lambda p: (p.name != "cards.cdb", p.name))
        found += [f for f in files if f.is_file()]
    return found


def card_lookup(files: Sequence[str] = (), *, environment: Mapping[str, str] | None = None,
                installs: Iterable[str] = LOCAL_INSTALLS) -> CardLookup:
    """The card facts a command uses besides a duel's own, in the order this module describes.

    A file the user named (``--cards``, ``$YGOREPLAY_CARDS``) that cannot be read is an error that
    says so; a local install's file that cannot be read is passed over."""
    environment = os.environ if environment is None else environment
    named = [*reversed(files), *reversed([f for f in environment.get(CARDS_ENV, "").split(os.pathsep) if f])]
    layers: list[Mapping[int, CardFacts]] = [CdbFile(path) for path in named]
    for path in [*reversed(local_databases(installs)), installed_path()]:
        if not path.is_file():
            continue
        try:
            layers.append(CdbFile(path))
        except CardDBError:
            continue
    layers.append(CardDB.classic())
    return CardLookup(layers)


__all__ = ["CARDS_ENV", "LOCAL_INSTALLS", "CardLookup", "CdbFile", "card_lookup", "facts_and_effects_of", "facts_of", "local_databases",
           "normal_name"]
