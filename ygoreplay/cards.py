"""Card facts the rules engine needs, and nothing else: no card text, no art, no prices.

The facts mirror what YGOPro/EDOPro keep in ``cards.cdb`` (bit layout in
shared/formats/CARD-AND-DECK-FORMATS.md), so a player's own ``cards.cdb`` can be loaded as is.
No ``cards.cdb`` may be shipped, so the package bundles a small curated set instead
(``data/classic_cards.json``, provenance in ``data/classic_cards.SOURCES.md``).
"""
from __future__ import annotations

import collections.abc
import enum
import functools
import os
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import closing
from dataclasses import fields
from typing import TYPE_CHECKING, Any

from .effect_facts import EFFECTS_COLUMNS, EffectFact
from .errors import InputError
from .files import read_limited
from .i18n import N_, say, t
from .lazy_dataclass import dataclass

if TYPE_CHECKING:
    from pathlib import Path


class CardType(enum.IntFlag):
    """``datas.type`` bits (ocgcore TYPE_*)."""

    MONSTER = 0x1
    SPELL = 0x2
    TRAP = 0x4
    NORMAL = 0x10
    EFFECT = 0x20
    FUSION = 0x40
    RITUAL = 0x80
    TRAPMONSTER = 0x100
    SPIRIT = 0x200
    UNION = 0x400
    GEMINI = 0x800
    TUNER = 0x1000
    SYNCHRO = 0x2000
    TOKEN = 0x4000
    QUICKPLAY = 0x10000
    CONTINUOUS = 0x20000
    EQUIP = 0x40000
    FIELD = 0x80000
    COUNTER = 0x100000
    FLIP = 0x200000
    TOON = 0x400000
    XYZ = 0x800000
    PENDULUM = 0x1000000
    SPSUMMON = 0x2000000
    LINK = 0x4000000


class Attribute(enum.IntFlag):
    """``datas.attribute`` bits (CARD-04)."""

    EARTH = 0x1
    WATER = 0x2
    FIRE = 0x4
    WIND = 0x8
    LIGHT = 0x10
    DARK = 0x20
    DIVINE = 0x40


class Race(enum.IntFlag):
    """``datas.race`` bits: the monster Type (CARD-05). EDOPro adds Rush-only bits above these."""

    WARRIOR = 0x1
    SPELLCASTER = 0x2
    FAIRY = 0x4
    FIEND = 0x8
    ZOMBIE = 0x10
    MACHINE = 0x20
    AQUA = 0x40
    PYRO = 0x80
    ROCK = 0x100
    WINGED_BEAST = 0x200
    PLANT = 0x400
    INSECT = 0x800
    THUNDER = 0x1000
    DRAGON = 0x2000
    BEAST = 0x4000
    BEAST_WARRIOR = 0x8000
    DINOSAUR = 0x10000
    FISH = 0x20000
    SEA_SERPENT = 0x40000
    REPTILE = 0x80000
    PSYCHIC = 0x100000
    DIVINE_BEAST = 0x200000
    CREATOR_GOD = 0x400000
    WYRM = 0x800000
    CYBERSE = 0x1000000
    ILLUSION = 0x2000000


class LinkMarker(enum.IntFlag):
    """Link arrow bits, stored in ``datas.def`` for Link monsters (0x10 would be the centre)."""

    BOTTOM_LEFT = 0x1
    BOTTOM = 0x2
    BOTTOM_RIGHT = 0x4
    LEFT = 0x8
    RIGHT = 0x20
    TOP_LEFT = 0x40
    TOP = 0x80
    TOP_RIGHT = 0x100


class CardDBError(InputError):
    """Card data that cannot be used; the message says what is wrong and where."""


# Plain ints for the hot-path properties: IntFlag arithmetic is much slower than int arithmetic.
_MONSTER = int(CardType.MONSTER)
_SPELL = int(CardType.SPELL)
_TRAP = int(CardType.TRAP)
_NORMAL = int(CardType.NORMAL)
_EFFECT = int(CardType.EFFECT)
_FUSION = int(CardType.FUSION)
_RITUAL = int(CardType.RITUAL)
_TUNER = int(CardType.TUNER)
_SYNCHRO = int(CardType.SYNCHRO)
_TOKEN = int(CardType.TOKEN)
_QUICKPLAY = int(CardType.QUICKPLAY)
_CONTINUOUS = int(CardType.CONTINUOUS)
_EQUIP = int(CardType.EQUIP)
_FIELD = int(CardType.FIELD)
_COUNTER = int(CardType.COUNTER)
_FLIP = int(CardType.FLIP)
_XYZ = int(CardType.XYZ)
_PENDULUM = int(CardType.PENDULUM)
_LINK = int(CardType.LINK)
_LINK_MONSTER = _LINK | _MONSTER
_XYZ_MONSTER = _XYZ | _MONSTER
_SYNCHRO_MONSTER = _SYNCHRO | _MONSTER
_FUSION_MONSTER = _FUSION | _MONSTER
_RITUAL_MONSTER = _RITUAL | _MONSTER
_PENDULUM_MONSTER = _PENDULUM | _MONSTER
_TUNER_MONSTER = _TUNER | _MONSTER
_FLIP_MONSTER = _FLIP | _MONSTER
_EXTRA_DECK = _FUSION | _SYNCHRO | _XYZ | _LINK
_NOT_NORMAL_FRAMES = _EXTRA_DECK | _RITUAL
_ALL_MARKERS = int(sum(LinkMarker))
_UNKNOWN_STAT = -2  # cards.cdb's encoding of a printed "?"

# The card details line in the reader's language (i18n.t, the OCG's own terms in the catalogues).
_SPELL_LABELS = {"normal": N_("Normal Spell"), "quickplay": N_("Quick-Play Spell"),
                 "continuous": N_("Continuous Spell"), "equip": N_("Equip Spell"),
                 "field": N_("Field Spell"), "ritual": N_("Ritual Spell")}
_TRAP_LABELS = {"normal": N_("Normal Trap"), "continuous": N_("Continuous Trap"),
                "counter": N_("Counter Trap")}
# Konami's type-line order: summoning frame, Pendulum, then abilities; Effect/Normal come last.
_MONSTER_WORDS = ((CardType.FUSION, N_("Fusion")), (CardType.RITUAL, N_("Ritual")),
                  (CardType.SYNCHRO, N_("Synchro")), (CardType.XYZ, N_("Xyz")),
                  (CardType.LINK, N_("Link")), (CardType.PENDULUM, N_("Pendulum")),
                  (CardType.FLIP, N_("Flip")), (CardType.GEMINI, N_("Gemini")),
                  (CardType.SPIRIT, N_("Spirit")), (CardType.TOON, N_("Toon")),
                  (CardType.UNION, N_("Union")), (CardType.TUNER, N_("Tuner")))
_ATTRIBUTE_NAMES = {Attribute.EARTH: N_("EARTH"), Attribute.WATER: N_("WATER"),
                    Attribute.FIRE: N_("FIRE"), Attribute.WIND: N_("WIND"),
                    Attribute.LIGHT: N_("LIGHT"), Attribute.DARK: N_("DARK"),
                    Attribute.DIVINE: N_("DIVINE")}
_RACE_NAMES = {Race.WARRIOR: N_("Warrior"), Race.SPELLCASTER: N_("Spellcaster"),
               Race.FAIRY: N_("Fairy"), Race.FIEND: N_("Fiend"), Race.ZOMBIE: N_("Zombie"),
               Race.MACHINE: N_("Machine"), Race.AQUA: N_("Aqua"), Race.PYRO: N_("Pyro"),
               Race.ROCK: N_("Rock"), Race.WINGED_BEAST: N_("Winged Beast"), Race.PLANT: N_("Plant"),
               Race.INSECT: N_("Insect"), Race.THUNDER: N_("Thunder"), Race.DRAGON: N_("Dragon"),
               Race.BEAST: N_("Beast"), Race.BEAST_WARRIOR: N_("Beast-Warrior"),
               Race.DINOSAUR: N_("Dinosaur"), Race.FISH: N_("Fish"),
               Race.SEA_SERPENT: N_("Sea Serpent"), Race.REPTILE: N_("Reptile"),
               Race.PSYCHIC: N_("Psychic"), Race.DIVINE_BEAST: N_("Divine-Beast"),
               Race.CREATOR_GOD: N_("Creator God"), Race.WYRM: N_("Wyrm"),
               Race.CYBERSE: N_("Cyberse"), Race.ILLUSION: N_("Illusion")}
# Arrows read clockwise from bottom-left, the way a judge scans the card frame.
_ARROWS = ((LinkMarker.BOTTOM_LEFT, "↙"), (LinkMarker.LEFT, "←"), (LinkMarker.TOP_LEFT, "↖"),
           (LinkMarker.TOP, "↑"), (LinkMarker.TOP_RIGHT, "↗"), (LinkMarker.RIGHT, "→"),
           (LinkMarker.BOTTOM_RIGHT, "↘"), (LinkMarker.BOTTOM, "↓"))


def _flag_names(value: int, names: Mapping[enum.IntFlag, str]) -> str:
    """'DARK', 'Winged Beast', … (in the reader's language) for the bits of ``value``; unknown
    bits show in hex."""
    parts = [t(name) for member, name in names.items() if value & member]
    rest = value & ~int(sum(names))
    if rest:
        parts.append(f"0x{rest:x}")
    return "/".join(parts)


class _TypeFacts:
    """What a card's type (and Level) make of it, set once as its ``CardFacts`` is made
    (``_derive``): the rules read these in every check, and Python 3.11 calls a property on each
    read (~20 times a slot's cost). Not fields: equality, hashing and the wire are the fields'.

    ``is_ritual`` is a Ritual *monster* (a Ritual Spell is ``spell_subtype == 'ritual'``);
    ``is_normal_monster`` is CARD-03's: an effectless main-deck monster or Normal Pendulum (not an
    effectless Ritual or Extra Deck monster; Tokens cards.cdb marks Normal count, as effectless
    Tokens are treated as Normal Monsters); ``is_extra_deck``: Fusion, Synchro, Xyz and Link
    monsters (a main-deck Pendulum only visits the Extra Deck); ``spell_subtype``: 'normal',
    'quickplay', 'continuous', 'equip', 'field' or 'ritual', None if not a Spell; ``trap_subtype``:
    'normal', 'continuous' or 'counter', None if not a Trap; ``activation_speed``: CHAIN-01 Spell
    Speed of activating the card itself (Quick-Play 2, other Spells 1, Counter Traps 3, other
    Traps 2; None for monsters, whose effects each have their own)."""

    __slots__ = ("is_monster", "is_spell", "is_trap", "is_token", "is_link", "is_xyz", "is_synchro", "is_fusion",
                 "is_ritual", "is_pendulum", "is_tuner", "is_flip", "is_normal_monster", "is_extra_deck",
                 "spell_subtype", "trap_subtype", "activation_speed", "rank", "link_rating")
    # the slots' types, for type checkers (``_derive`` sets them; not dataclass fields: this is no dataclass)
    is_monster: bool
    is_spell: bool
    is_trap: bool
    is_token: bool
    is_link: bool
    is_xyz: bool
    is_synchro: bool
    is_fusion: bool
    is_ritual: bool
    is_pendulum: bool
    is_tuner: bool
    is_flip: bool
    is_normal_monster: bool
    is_extra_deck: bool
    spell_subtype: str | None
    trap_subtype: str | None
    activation_speed: int | None
    rank: int | None
    link_rating: int | None


#: The bits that name a Spell's and a Trap's subtype, in the order they are read: the first set
#: names it, none is a Normal one.
_SPELL_SUBTYPES = ((_QUICKPLAY, "quickplay"), (_CONTINUOUS, "continuous"), (_EQUIP, "equip"), (_FIELD, "field"),
                   (_RITUAL, "ritual"))
_TRAP_SUBTYPES = ((_COUNTER, "counter"), (_CONTINUOUS, "continuous"))


def _subtype(t: int, kind: int, subtypes: tuple[tuple[int, str], ...]) -> str | None:
    """The Spell (or Trap) subtype of type ``t``; None if it is no ``kind`` card."""
    return next((name for bit, name in subtypes if t & bit), "normal") if t & kind else None


def _derive(facts: "CardFacts") -> None:
    """Set ``facts``' ``_TypeFacts`` from its type and Level."""
    t, level = facts.type, facts.level
    is_link, is_xyz = t & _LINK_MONSTER == _LINK_MONSTER, t & _XYZ_MONSTER == _XYZ_MONSTER
    for name, value in zip(_TypeFacts.__slots__, (
            bool(t & _MONSTER), bool(t & _SPELL), bool(t & _TRAP), bool(t & _TOKEN), is_link, is_xyz,
            t & _SYNCHRO_MONSTER == _SYNCHRO_MONSTER, t & _FUSION_MONSTER == _FUSION_MONSTER,
            t & _RITUAL_MONSTER == _RITUAL_MONSTER, t & _PENDULUM_MONSTER == _PENDULUM_MONSTER,
            t & _TUNER_MONSTER == _TUNER_MONSTER, t & _FLIP_MONSTER == _FLIP_MONSTER,
            bool(t & _MONSTER) and bool(t & _NORMAL) and not t & _NOT_NORMAL_FRAMES,
            bool(t & _MONSTER) and bool(t & _EXTRA_DECK), _subtype(t, _SPELL, _SPELL_SUBTYPES),
            _subtype(t, _TRAP, _TRAP_SUBTYPES),
            (2 if t & _QUICKPLAY else 1) if t & _SPELL else (3 if t & _COUNTER else 2) if t & _TRAP else None,
            level if is_xyz else None, level if is_link else None)):
        object.__setattr__(facts, name, value)


@dataclass(frozen=True, slots=True)
class CardFacts(_TypeFacts):
    """One card's rules-relevant facts, encoded as in ``cards.cdb``.

    Frozen and hashable so states, events and caches can share one object per card.
    """

    code: int
    name: str
    type: int
    level: int = 0
    atk: int = 0
    defense: int | None = 0
    attribute: int = 0
    race: int = 0
    lscale: int = 0
    rscale: int = 0
    link_markers: int = 0
    alias: int = 0

    def __post_init__(self) -> None:
        _validate(self)
        _derive(self)

    def __setstate__(self, state: list) -> None:
        """Unpickled or copied: its fields, then what they make of it."""
        for field, value in zip(_FIELD_NAMES, state):
            object.__setattr__(self, field, value)
        _derive(self)

    @property
    def printed_level(self) -> int | None:
        """The Level, for monsters that have one (CARD-07/08: Xyz and Link monsters do not)."""
        t = self.type
        if not t & _MONSTER or t & (_XYZ | _LINK):
            return None
        return self.level

    @property
    def base_atk(self) -> int:
        """Original ATK; a printed '?' counts as 0 (CARD-06)."""
        return 0 if self.atk < 0 else self.atk

    @property
    def base_def(self) -> int | None:
        """Original DEF; '?' counts as 0 (CARD-06); None for Link monsters (CARD-08)."""
        d = self.defense
        if d is None:
            return None
        return 0 if d < 0 else d

    def describe(self, name: str | None = None) -> str:
        """One line a judge reads: what the card is, never what it says; in the reader's language
        (``i18n.current``: the page's, the command's), with the OCG's terms of that language, and
        by ``name`` when given: the name in that language (the page showed 黑蔷薇龙 over a line
        that began Black Rose Dragon)."""
        name = name or self.name
        t_ = self.type
        if t_ & _SPELL:
            return f"{name} — {t(_SPELL_LABELS[self.spell_subtype or 'normal'])}"
        if t_ & _TRAP:
            return f"{name} — {t(_TRAP_LABELS[self.trap_subtype or 'normal'])}"
        if not t_ & _MONSTER:
            return f"{name} — " + t("card type {hex}", hex=f"0x{t_:x}")
        if self.is_link:
            rating = t("Link-{value}", value=self.level)
        elif self.is_xyz:
            rating = t("Rank {value}", value=self.level)
        else:
            rating = t("Level {value}", value=self.level)
        words = [t(word) for bit, word in _MONSTER_WORDS if t_ & bit]
        if t_ & _TOKEN:
            kind = t("Token")
        else:
            if t_ & _EFFECT:
                words.append(t("Effect"))
            elif t_ & _NORMAL:
                words.append(t("Normal"))
            kind = t("{types} Monster", types="/".join(words)) if words else t("Monster")
        head = " ".join(part for part in (
            rating, _flag_names(self.attribute, _ATTRIBUTE_NAMES),
            _flag_names(self.race, _RACE_NAMES), kind) if part)
        atk = "?" if self.atk == _UNKNOWN_STAT else str(self.atk)
        if self.defense is None:
            arrows = "".join(arrow for bit, arrow in _ARROWS if self.link_markers & bit)
            details = t("ATK {atk}, arrows {arrows}", atk=atk, arrows=arrows or t("none"))
        else:
            defense = "?" if self.defense == _UNKNOWN_STAT else str(self.defense)
            details = t("ATK {atk} / DEF {defense}", atk=atk, defense=defense)
        if self.is_pendulum:
            scale = (str(self.lscale) if self.lscale == self.rscale
                     else f"{self.lscale}/{self.rscale}")
            details = t("Scale {scale}, {stats}", scale=scale, stats=details)
        return t("{name} — {head}, {details}", name=name, head=head, details=details)

    def to_dict(self) -> dict[str, Any]:
        """Compact msgpack/JSON-safe form: code, name and type, plus fields off their default.

        A Link monster's absent DEF is its default, so it is omitted too. Made once for equal
        facts (``_WIRE``): a copy of it is given.
        """
        plain = type(self) is CardFacts             # (an unknown card's facts count their reads)
        if plain and (known := _WIRE.get(self.code)) is not None and (known[0] is self or known[0] == self):
            return dict(known[1])
        out: dict[str, Any] = {"code": self.code, "name": self.name, "type": self.type}
        for name in _OPTIONAL_FIELDS:
            value = getattr(self, name)
            if name == "defense" and value is None and self.is_link:
                continue
            if value != _DEFAULTS[name]:
                out[name] = value
        if plain:
            if len(_WIRE) >= _WIRE_MAX:
                _WIRE.clear()
            _WIRE[self.code] = (self, out)
            return dict(out)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CardFacts:
        """Inverse of ``to_dict``; raises CardDBError naming the bad field (for any input at all:
        wrong types, numbers of any size, keys that are not field names)."""
        if not isinstance(d, Mapping):
            raise CardDBError(say("a card must be an object, not {kind}", kind=type(d).__name__))
        try:
            kwargs = {key: d[key] for key in d}
        except Exception as err:                 # an odd Mapping: iterating it or reading it fails
            raise CardDBError(say("a card object that cannot be read ({kind})", kind=type(err).__name__)) from None
        unknown = sorted(_shown(key) for key in kwargs
                         if not isinstance(key, str) or (key not in _DEFAULTS and key not in _REQUIRED))
        if unknown:
            raise CardDBError(say("unknown field {field}", field=unknown[0]))
        missing = [name for name in _REQUIRED if name not in kwargs]
        if missing:
            raise CardDBError(say("missing field {field!r}", field=missing[0]))
        type_ = kwargs["type"]
        if "defense" not in kwargs and _is_int(type_) and type_ & _LINK_MONSTER == _LINK_MONSTER:
            kwargs["defense"] = None
        try:
            return cls(**kwargs)
        except CardDBError as err:
            code = kwargs["code"]
            raise CardDBError(say("card {code}: {why}", code=code, why=str(err)) if _is_passcode(code)
                              else str(err)) from None


_FIELD_NAMES = tuple(f.name for f in fields(CardFacts))
_REQUIRED = ("code", "name", "type")
#: ``CardFacts.to_dict`` of the facts last met for each passcode, with those facts (each duel's card
#: record writes its new cards': 5 µs a card, a first append's ~70 cards): taken only for the same
#: facts or equal ones, so a card database changed under the process (other facts for a passcode)
#: is written as it now is. At most ``_WIRE_MAX`` passcodes, emptied when full.
_WIRE: dict[int, tuple[CardFacts, dict[str, Any]]] = {}
_WIRE_MAX = 4096
_OPTIONAL_FIELDS = tuple(name for name in _FIELD_NAMES if name not in _REQUIRED)
_DEFAULTS = {f.name: f.default for f in fields(CardFacts) if f.name not in _REQUIRED}


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


HIDDEN_NAME = "(hidden card)"


def unnamed(code: int) -> str:
    """The name given to a card whose facts are known but whose name is not (e.g. from a replay)."""
    return f"Card {code}"


#: Said once where cards are shown by passcode (``unnamed``): what installs their names.
NAMES_MISSING = N_("a card shown as 'Card <passcode>' has no name installed: 'ygoreplay cards update' "
                   "installs every card's name")


#: Bounds of card facts: a passcode is an unsigned 32-bit integer (cards.cdb, EDOPro); type,
#: attribute and race are bit sets of at most 64 bits (EDOPro's race is a u64); ATK and DEF are
#: signed 32-bit; a name is valid Unicode of at most ``MAX_NAME`` characters (the longest real card
#: name is under 100).
PASSCODE_MAX = (1 << 32) - 1
BITS_MAX = (1 << 64) - 1
STAT_MAX = (1 << 31) - 1
MAX_NAME = 256


def _is_passcode(value: object) -> bool:
    return _is_int(value) and 0 <= value <= PASSCODE_MAX


def _shown(value: object) -> str:
    """A short repr for messages: never a 10,000-character name or a 4,300-digit number whole."""
    if _is_int(value) and not -10 ** 30 < value < 10 ** 30:
        return f"a {value.bit_length():,}-bit integer"
    if isinstance(value, str) and len(value) > 60:
        return f"{value[:60]!r}… ({len(value):,} characters)"
    try:
        text = repr(value)
    except Exception:                        # a repr that fails (an int inside, past 4,300 digits)
        return f"a {type(value).__name__}"
    return text if len(text) <= 80 else f"{text[:80]}… ({type(value).__name__})"


def _validate(card: CardFacts) -> None:
    """Reject facts no real card has, naming the field, so bad data fails at load, not mid-duel."""
    def bad(name: str, why: str) -> CardDBError:
        return CardDBError(say("field {name!r} {why}, got {text}", name=name, why=why,
                                text=_shown(getattr(card, name))))

    if not _is_passcode(card.code) or (card.code == 0 and card.name != HIDDEN_NAME):
        raise bad("code", say("must be a positive integer passcode (1-{PASSCODE_MAX})", PASSCODE_MAX=PASSCODE_MAX))
    if not isinstance(card.name, str) or not card.name:
        raise bad("name", say("must be a non-empty string"))
    if len(card.name) > MAX_NAME:
        raise bad("name", say("must be at most {MAX_NAME} characters", MAX_NAME=MAX_NAME))
    if not card.name.isascii():
        try:
            card.name.encode("utf-8")
        except UnicodeEncodeError as err:
            raise bad("name", say("must be valid Unicode (a lone surrogate at character {position})",
                                       position=err.start)) from None
    for name in ("type", "attribute", "race", "link_markers"):
        if not _is_int(getattr(card, name)) or not 0 <= getattr(card, name) <= BITS_MAX:
            raise bad(name, say("must be a non-negative integer of at most 64 bits"))
    if not _is_passcode(card.alias):
        raise bad("alias", say("must be a passcode (0-{PASSCODE_MAX}; 0: none)", PASSCODE_MAX=PASSCODE_MAX))
    for name in ("level", "lscale", "rscale"):
        if not _is_int(getattr(card, name)) or not 0 <= getattr(card, name) <= 0xFF:
            raise bad(name, say("must be an integer 0-255"))
    if not _is_int(card.atk) or (card.atk < 0 and card.atk != _UNKNOWN_STAT) or card.atk > STAT_MAX:
        raise bad("atk", say("must be a non-negative integer (at most {STAT_MAX}) or -2 ('?')", STAT_MAX=STAT_MAX))
    if card.type & _LINK_MONSTER == _LINK_MONSTER:
        if card.defense is not None:
            raise bad("defense", say("must be None: Link monsters have no DEF"))
        if card.link_markers & ~_ALL_MARKERS:
            raise bad("link_markers", say("has bits that are no link arrow"))
    else:
        if (not _is_int(card.defense) or (card.defense < 0 and card.defense != _UNKNOWN_STAT)
                or card.defense > STAT_MAX):
            raise bad("defense", say("must be a non-negative integer (at most {STAT_MAX}) or -2 ('?')",
                                      STAT_MAX=STAT_MAX))
        if card.link_markers:
            raise bad("link_markers", say("must be 0 for a card that is not a Link monster"))


_CDB_COLUMNS = {"datas": ("id", "alias", "type", "atk", "def", "level", "race", "attribute"),
                "texts": ("id", "name")}
_CDB_QUERY = ("select datas.id, alias, type, atk, def, level, race, attribute, texts.name "
              "from datas join texts on datas.id = texts.id order by datas.id")


class CardDB(collections.abc.Mapping[int, CardFacts]):
    """Passcode -> CardFacts. Immutable, so one instance (e.g. ``classic()``) can be shared."""

    __slots__ = ("_cards", "_names", "_effects")

    def __init__(self, facts: Iterable[CardFacts] = (),
                 effects: Mapping[int, tuple[EffectFact, ...]] | None = None) -> None:
        cards: dict[int, CardFacts] = {}
        for card in facts:
            if not isinstance(card, CardFacts):
                raise TypeError(f"CardDB holds CardFacts, not {type(card).__name__}")
            if card.code in cards:
                raise CardDBError(say("duplicate passcode {code} ({name!r} and {name2!r})",
                                      code=card.code, name=cards[card.code].name, name2=card.name))
            cards[card.code] = card
        self._cards = cards
        self._names: dict[str, CardFacts] | None = None
        self._effects: dict[int, tuple[EffectFact, ...]] = dict(effects or {})

    @classmethod
    def _made(cls, cards: dict[int, CardFacts], effects: dict[int, tuple[EffectFact, ...]]) -> CardDB:
        """A set of facts taken from sets already made (``merged``, ``subset``, ``with_effects``):
        each is a ``CardFacts`` under its own passcode, so they are not checked card by card again
        (seven sets a duel's first append, ~30 µs each for two decks)."""
        made = cls.__new__(cls)
        made._cards, made._names, made._effects = cards, None, effects
        return made

    def effects(self, code: int) -> tuple[EffectFact, ...]:
        """The effect facts its card script declares (``effect_facts``; an alternate artwork has
        its original's); () when none were read."""
        effects = self._effects
        if not effects:                   # no card script read (an import without them): one test
            return ()
        found = effects.get(code)
        if found is None:
            card = self._cards.get(code)
            found = effects.get(card.alias, ()) if card is not None and card.alias else ()
        return found

    @property
    def has_effects(self) -> bool:
        """Whether any card here has effect facts: without any, ``effects`` is () for every
        passcode, and a fold need not ask it card by card (``rules.card_text``)."""
        return bool(self._effects)

    def with_effects(self, effects: Mapping[int, tuple[EffectFact, ...]]) -> CardDB:
        """These cards with these effect facts added (a passcode given wins)."""
        return CardDB._made(self._cards, {**self._effects, **effects})

    def __getitem__(self, code: int) -> CardFacts:
        try:
            return self._cards[code]
        except KeyError:
            raise KeyError(f"unknown passcode {code!r}") from None

    def __contains__(self, code: object) -> bool:
        return code in self._cards

    def get(self, code: int, default: Any = None) -> Any:
        return self._cards.get(code, default)

    def facts_of(self, codes: Iterable[int]) -> list[CardFacts] | None:
        """Each passcode's facts, or None when one has none: a whole deck looked up at once."""
        try:
            return list(map(self._cards.__getitem__, codes))
        except KeyError:
            return None

    def __iter__(self) -> Iterator[int]:
        return iter(self._cards)

    def __len__(self) -> int:
        return len(self._cards)

    def __repr__(self) -> str:
        return f"<CardDB: {len(self._cards)} cards>"

    def by_name(self, name: str) -> CardFacts:
        """The card with exactly this name, ignoring case; the original print wins over alt arts."""
        if self._names is None:
            names: dict[str, CardFacts] = {}
            for card in self._cards.values():
                key = card.name.casefold()
                if key not in names or (names[key].alias and not card.alias):
                    names[key] = card
            self._names = names
        try:
            return self._names[name.casefold()]
        except KeyError:
            raise KeyError(f"no card named {name!r} among {len(self)} cards") from None

    def passcode(self, name: str) -> int:
        """The passcode of the card with this name (how a JSON Lines duel's card names are read)."""
        return self.by_name(name).code

    def merged(self, other: CardDB) -> CardDB:
        """Both sets; ``other`` wins where both have a passcode (e.g. a player's newer cards.cdb)."""
        if not other._cards and not other._effects:
            return self                   # immutable both: one is the other with nothing added
        if not self._cards and not self._effects:
            return other                  # (a duel's first append adds its facts to none)
        return CardDB._made({**self._cards, **other._cards}, {**self._effects, **other._effects})

    def subset(self, codes: Iterable[int]) -> CardDB:
        """Just these passcodes (e.g. the cards of one duel); every one must be known."""
        wanted = list(dict.fromkeys(codes))
        missing = [code for code in wanted if code not in self._cards]
        if missing:
            raise KeyError(f"unknown passcode(s): {', '.join(map(str, missing))}")
        cards = self._cards
        if len(wanted) == len(cards) and wanted == list(cards) and self._effects.keys() <= cards.keys():
            return self                   # all of them, in order (a first append's new cards): this set
        return CardDB._made({code: cards[code] for code in wanted},
                            {code: found for code in wanted if (found := self.effects(code))} if self._effects else {})

    @classmethod
    def classic(cls) -> CardDB:
        """The bundled curated set, loaded once per process."""
        return _classic()

    @classmethod
    def from_cdb(cls, path: str | os.PathLike[str]) -> CardDB:
        """Read a YGOPro/EDOPro ``cards.cdb`` read-only; any problem is a CardDBError naming it."""
        from pathlib import Path
        path = Path(path)
        with closing(CdbReader(path)) as cdb:
            rows = cdb.rows(_CDB_QUERY)
        return cls(facts_from_cdb_row(path, row) for row in rows)

    @classmethod
    def from_json(cls, path_or_list: str | os.PathLike[str] | list[dict[str, Any]]) -> CardDB:
        """Load a list of ``CardFacts.to_dict`` objects, from a JSON file or already parsed."""
        if isinstance(path_or_list, (str, os.PathLike)):
            import json                         # not with this module: a stored board never reads one
            where = str(path_or_list)
            try:
                data = json.loads(read_limited(path_or_list, CDB_MAX_BYTES, "card list", CardDBError))
            except (json.JSONDecodeError, UnicodeDecodeError) as err:
                raise CardDBError(say("{where}: not JSON: {err}", where=where, err=err)) from None
        else:
            where, data = "card list", path_or_list
        if not isinstance(data, (list, tuple)):
            raise CardDBError(say("{where}: expected a list of card objects, not {kind}",
                                  where=where, kind=type(data).__name__))
        facts = []
        for index, entry in enumerate(data):
            try:
                facts.append(CardFacts.from_dict(entry))
            except CardDBError as err:
                raise CardDBError(f"{where}: entry #{index}: {err}") from None
        try:
            return cls(facts)
        except CardDBError as err:
            raise CardDBError(f"{where}: {err}") from None

    def to_json_list(self) -> list[dict[str, Any]]:
        return [card.to_dict() for card in self._cards.values()]

    def effects_record(self) -> dict[str, Any] | None:
        """The effect facts of these cards as a duel's record keeps them (a store's card record, a
        ``.ygr`` body): the columns once, then each card's rows (``EffectFact.to_row``) by passcode;
        None when there are none. Column names make a record of an older column set readable."""
        if not self._effects:
            return None
        rows = [[code, [list(fact.to_row(code, seq)[2:]) for seq, fact in enumerate(found)]]
                for code in sorted(self._cards) if (found := self.effects(code))]
        return {"columns": list(EFFECTS_COLUMNS[2:]), "cards": rows} if rows else None

    def with_effects_record(self, record: object) -> CardDB:
        """These cards with the effect facts of ``effects_record``'s shape: CardDBError when it
        is not that shape or names a card these facts lack."""
        if not isinstance(record, dict) or not isinstance(record.get("columns"), list) \
                or not isinstance(record.get("cards"), list) or not all(isinstance(c, str) for c in record["columns"]):
            raise CardDBError(say("effect facts are a map of 'columns' and 'cards'"))
        columns = record["columns"]
        default = dict(zip(EFFECTS_COLUMNS[2:], EffectFact().to_row(0, 0)[2:]))   # a column it lacks
        effects: dict[int, tuple[EffectFact, ...]] = {}
        for entry in record["cards"]:
            if not (isinstance(entry, list) and len(entry) == 2 and _is_passcode(entry[0])
                    and isinstance(entry[1], list) and all(isinstance(row, list) for row in entry[1])):
                raise CardDBError(say("effect facts entry {entry}: not [passcode, [rows]]",
                                      entry=_shown(entry)))
            code, rows = entry
            if code not in self._cards or code in effects:
                raise CardDBError((say("effect facts of passcode {code}: given twice", code=code) if code in effects
                                  else say("effect facts of passcode {code}: no card facts of it", code=code)))
            effects[code] = tuple(EffectFact.from_row(tuple({**default, **dict(zip(columns, row))}[name]
                                                            for name in EFFECTS_COLUMNS[2:])) for row in rows)
        return self.with_effects(effects)


@functools.cache
def _classic() -> CardDB:
    from pathlib import Path             # not at import: a stored board never reads the classic set
    return CardDB.from_json(Path(__file__).resolve().parent / "data" / "classic_cards.json")


#: Bounds of reading any ``cards.cdb``, whoever made it: EDOPro's base database with every
#: expansion holds some 30,000 cards and a few tens of MB of text; a card's longest text is a few KB.
CDB_MAX_ROWS = 200_000
CDB_MAX_BYTES = 64 << 20           # the text and blobs one query answers, all rows together
CDB_MAX_VALUE = 1 << 20            # one value (SQLite's length limit: a longer one is an error)
CDB_SECONDS = 10.0                 # one query (a progress handler interrupts it past this)


class CdbReader:
    """A ``cards.cdb`` opened the one way any is opened: read-only, its ``datas`` and ``texts``
    real tables (not views, whose queries can run without end or make gigabytes out of a few KB,
    nor virtual tables), and every query bounded in rows, bytes and time.

    ``immutable`` is for a private copy nobody else writes (SQLite then takes no locks and reads
    a WAL-mode file without its journal). Safe to share between threads."""

    def __init__(self, path: Path, *, immutable: bool = False) -> None:
        self.path = path
        if not path.is_file():
            raise CardDBError(f"{path}: {'not a regular file' if path.exists() else 'no such file'}")
        import sqlite3                      # here: only a cards.cdb needs it (every command imports this module)
        uri = path.resolve().as_uri() + ("?mode=ro&immutable=1" if immutable else "?mode=ro")
        try:
            self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
        except sqlite3.Error as err:
            raise CardDBError(say("{path}: cannot open as SQLite: {err}", path=path, err=err)) from None
        self._lock = threading.Lock()
        self._deadline = 0.0
        self._conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, CDB_MAX_VALUE)
        self._conn.set_progress_handler(lambda: time.monotonic() > self._deadline, 10_000)
        try:
            self._check_schema()
        except CardDBError:
            self._conn.close()
            raise

    def _check_schema(self) -> None:
        """Say which table or column is missing, or is not a table, rather than fail later."""
        found = {name.lower(): (kind, sql if isinstance(sql, str) else "") for name, kind, sql in
                 self.rows("select name, type, sql from sqlite_master where lower(name) in ('datas', 'texts')")
                 if isinstance(name, str)}
        for table, columns in _CDB_COLUMNS.items():
            if table not in found:
                raise CardDBError(say("{path}: not a cards.cdb: no table {table!r}",
                                      path=self.path, table=table))
            kind, sql = found[table]
            if kind != "table" or sql.lstrip().lower().startswith("create virtual"):
                raise CardDBError(say("{path}: not a cards.cdb: {table!r} is a virtual table, not a table",
                                      path=self.path, table=table) if kind == "table"
                                  else say("{path}: not a cards.cdb: {table!r} is a {kind}, not a table",
                                           path=self.path, table=table, kind=kind))
            # table_xinfo lists generated columns too (hidden 2 and 3): a card database stores its
            # values, one whose values are computed on reading (made out of nothing) is not one
            described = self.rows(f"pragma table_xinfo({table})")
            computed = [row[1] for row in described if row[-1] not in (0, None) and isinstance(row[1], str)]
            if computed:
                raise CardDBError(say("{path}: not a cards.cdb: table {table!r} computes column {names} instead of "
                                      "storing it", path=self.path, table=table,
                                      names=", ".join(repr(column) for column in computed)))
            have = {row[1].lower() for row in described if isinstance(row[1], str)}
            lacking = [column for column in columns if column not in have]
            if lacking:
                raise CardDBError(say("{path}: not a cards.cdb: table {table!r} has no column {names}",
                                      path=self.path, table=table,
                                      names=", ".join(repr(column) for column in lacking)))

    def rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """The rows ``sql`` answers, within ``CDB_MAX_ROWS``, ``CDB_MAX_BYTES`` and ``CDB_SECONDS``."""
        import sqlite3
        with self._lock:
            self._deadline = time.monotonic() + CDB_SECONDS
            try:
                found: list[tuple[Any, ...]] = []
                size = 0
                # counted row by row: a row's values may each be ``CDB_MAX_VALUE`` (a generated
                # column makes them out of nothing), so a batch of rows could be a gigabyte
                for row in self._conn.execute(sql, args):
                    found.append(row)
                    size += sum(len(value) for value in row if isinstance(value, (str, bytes)))
                    if len(found) > CDB_MAX_ROWS:
                        raise CardDBError(say("{path}: more than {CDB_MAX_ROWS:,} rows; not a cards.cdb",
                                              path=self.path, CDB_MAX_ROWS=CDB_MAX_ROWS))
                    if size > CDB_MAX_BYTES:
                        raise CardDBError(say("{path}: more than {CDB_MAX_BYTES:,} bytes of text; not a cards.cdb",
                                              path=self.path, CDB_MAX_BYTES=CDB_MAX_BYTES))
                return found
            except sqlite3.DataError:
                raise CardDBError(say("{path}: a value longer than {mib} MiB; not a cards.cdb",
                                      path=self.path, mib=CDB_MAX_VALUE >> 20)) from None
            except sqlite3.DatabaseError as err:
                if time.monotonic() > self._deadline:
                    raise CardDBError(say("{path}: reading took longer than {CDB_SECONDS:g} s; not a cards.cdb",
                                          path=self.path, CDB_SECONDS=CDB_SECONDS)) from None
                raise CardDBError(say("{path}: not a readable SQLite cards.cdb: {err}",
                                      path=self.path, err=err)) from None

    def close(self) -> None:
        self._conn.close()


def facts_from_cdb_row(path: Path, row: tuple[Any, ...]) -> CardFacts:
    """Decode one ``datas``/``texts`` row: packed level and scales, link arrows kept in ``def``."""
    code, alias, type_, atk, def_, level, race, attribute, name = row
    where = f"{path}: passcode {_shown(code)}"
    for column, value in (("id", code), ("alias", alias), ("type", type_), ("atk", atk),
                          ("def", def_), ("level", level), ("race", race),
                          ("attribute", attribute)):
        if not _is_int(value):
            raise CardDBError(say("{where}: column {column!r} is {value}, not an integer",
                                  where=where, column=column, value=_shown(value)))
    if not 0 <= level <= 0xFFFFFFFF:
        raise CardDBError(say("{where}: column 'level' is {level!r}, not a packed level/scales",
                              where=where, level=level))
    is_link = type_ & _LINK_MONSTER == _LINK_MONSTER
    try:
        return CardFacts(code=code, name=name, type=type_, level=level & 0xFF, atk=atk,
                         defense=None if is_link else def_, attribute=attribute, race=race,
                         lscale=(level >> 24) & 0xFF, rscale=(level >> 16) & 0xFF,
                         link_markers=def_ if is_link else 0, alias=alias)
    except CardDBError as err:
        raise CardDBError(f"{where}: {err}") from None


#: Passcode 0 stands for a card whose identity a player's or spectator's view does not show.
HIDDEN_CARD = CardFacts(code=0, name=HIDDEN_NAME, type=0)


class UnknownFacts(CardFacts):
    """The facts of a card whose identity the record does not know (yet): passcode 0.

    A record of what its recorder saw holds cards like this (a draw, a Set, a card in a hidden
    hand), and a view holds them where its viewer cannot see. Its facts answer as the hidden card
    does (no type, no stats), and every read of one is counted in ``reads``: a rule check that
    read a fact of an unknown card cannot decide, so the fold lists it as undecided instead of
    calling it either way (``rules.base.fail``). Each duel state holds its own (``DuelState.unknown``).
    """

    def __init__(self) -> None:
        for name, value in _UNKNOWN_FACTS:
            object.__setattr__(self, name, value)
        self.__dict__["reads"] = 0

    def __getattribute__(self, name: str) -> Any:
        if name not in _QUIET:
            counts = object.__getattribute__(self, "__dict__")
            counts["reads"] += 1
        return object.__getattribute__(self, name)

    def __reduce__(self) -> tuple:
        return UnknownFacts, ()

    def read_before(self) -> None:
        """A fact of an unknown card kept from an earlier event (a material as it was moved) is
        read now: counted like any read."""
        object.__getattribute__(self, "__dict__")["reads"] += 1

    def __repr__(self) -> str:
        return "UnknownFacts()"


#: Each fact of an unknown card, as the hidden card has it: read from ``CardFacts``' fields once,
#: not at each duel state (every fold, view and set-up board makes one).
_UNKNOWN_FACTS = tuple((name, getattr(HIDDEN_CARD, name))
                       for name in (*(f.name for f in fields(CardFacts)), *_TypeFacts.__slots__))

#: Reads that tell nothing of the card: its passcode (0: unknown) and the bookkeeping itself.
_QUIET = frozenset(("code", "reads", "read_before", "__dict__", "__class__", "__reduce__", "__reduce_ex__", "__repr__",
                    "__deepcopy__", "__copy__"))
