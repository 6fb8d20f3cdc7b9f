"""Effect facts: what each effect of a card *is*, as its EDOPro/ProjectIgnis script declares it.

A card script (``cNNNN.lua``) builds each effect with ``Effect.CreateEffect`` and declares it
with ``SetType`` (activate, ignition, trigger, quick, flip, continuous, field ...), ``SetCode``
(the event it answers, or the lasting effect it applies: ``EFFECT_AVOID_BATTLE_DAMAGE``),
``SetProperty`` (``EFFECT_FLAG_DAMAGE_STEP``: may be activated in the Damage Step,
``EFFECT_FLAG_DELAY``: an "if" trigger that cannot miss the timing), ``SetCategory`` and
``SetCountLimit``, ``SetRange`` (where it is activated or applies from), and whether it has a
``SetCondition`` (a condition only its code decides).
``card_scripts`` reads them (never running a script); the installed card
database keeps them (table ``effects``); ``CardDB.effects(code)`` and the file lookups give them
to whoever reads rules from them.

Facts are kept by *name*, as the script spells them (``damage_step``, ``EVENT_FREE_CHAIN``), not
by the engine's bit values: a script's code may be an expression (``EVENT_PHASE+PHASE_END``),
and names say what a judge reads.
"""
from __future__ import annotations

from typing import Iterable

from .lazy_dataclass import dataclass

#: The table of an installed ``cards.cdb`` that keeps them: one row per effect, in script order.
EFFECTS_TABLE = "effects"
EFFECTS_COLUMNS = ("id", "seq", "types", "code", "properties", "categories", "count_limit", "count_code", "initial",
                   "condition", "ranges")
#: The columns a database stored before ``condition`` and ``ranges`` were read holds: its facts read
#: ``condition=None`` and no ranges (not known).
EFFECTS_COLUMNS_V1 = EFFECTS_COLUMNS[:-2]

#: SetType words (EFFECT_TYPE_* without the prefix, lower case) that make an effect of each kind.
TRIGGER_OPTIONAL, TRIGGER_MANDATORY = "trigger_o", "trigger_f"
#: The type of the fact a script's call of a shared procedure leaves (``Pendulum.AddProcedure``,
#: its ``code``): the effects it declares are not read, so the card may have more than its facts say.
HELPER = "helper"
#: The shared Link procedure (``Link.AddProcedure(c,f,min,max,...)``): its helper fact keeps ``min``.
LINK_PROCEDURE = "Link.AddProcedure"
QUICK_OPTIONAL, QUICK_MANDATORY = "quick_o", "quick_f"


@dataclass(frozen=True, slots=True)
class EffectFact:
    """One ``Effect.CreateEffect`` of a card script.

    ``initial`` is True for an effect the card registers as its own (``initial_effect``), False
    for one an effect of it applies while resolving (Kuriboh's "you take no battle damage", an
    ``EFFECT_AVOID_BATTLE_DAMAGE`` registered on the player). ``condition`` is whether the script
    gives it a ``SetCondition``: None when not known (a database stored before it was read), and
    then no rule treats it as unconditional."""

    types: tuple[str, ...] = ()          # EFFECT_TYPE_* names: ("field", "trigger_o")
    code: str = ""                       # SetCode as written: "EVENT_SUMMON_SUCCESS", "EFFECT_EXTRA_SUMMON_COUNT"
    properties: tuple[str, ...] = ()     # EFFECT_FLAG_* names: ("damage_step", "delay")
    categories: tuple[str, ...] = ()     # CATEGORY_* names: ("negate", "destroy")
    count_limit: int = 0                 # SetCountLimit's count (0: none)
    count_code: str = ""                 # what the limit counts by, as written ("id", "{id,1}")
    initial: bool = True
    condition: bool | None = None        # SetCondition present; None: not known
    ranges: tuple[str, ...] = ()         # SetRange's LOCATION_* names: ("hand", "grave"); (): none or not known

    @property
    def kind(self) -> str:
        """The effect's kind in the rules' words: activate (a card activation), ignition,
        trigger, quick, flip, continuous, field, or the first SetType word."""
        types = set(self.types)
        for word, kind in (("activate", "activate"), ("ignition", "ignition"), (TRIGGER_OPTIONAL, "trigger"),
                           (TRIGGER_MANDATORY, "trigger"), (QUICK_OPTIONAL, "quick"), (QUICK_MANDATORY, "quick"),
                           ("flip", "flip"), ("continuous", "continuous"), ("field", "field")):
            if word in types:
                return kind
        return self.types[0] if self.types else ""

    @property
    def mandatory(self) -> bool:
        """A mandatory trigger or quick effect (TRIGGER_F / QUICK_F): it must be activated."""
        return TRIGGER_MANDATORY in self.types or QUICK_MANDATORY in self.types

    @property
    def when_optional(self) -> bool:
        """"When ... you can": an optional trigger without EFFECT_FLAG_DELAY, which can miss the
        timing; with the flag it is an "if" trigger, which cannot."""
        return TRIGGER_OPTIONAL in self.types and "delay" not in self.properties

    @property
    def in_damage_step(self) -> bool:
        """May be activated in the Damage Step (EFFECT_FLAG_DAMAGE_STEP), or during damage
        calculation (EFFECT_FLAG_DAMAGE_CAL), or answers an event of it."""
        return bool({"damage_step", "damage_cal"} & set(self.properties)) or self.code in DAMAGE_STEP_EVENTS

    @property
    def fewest_materials(self) -> int:
        """LINK-02 (the printed count): the fewest materials a ``Link.AddProcedure(c,f,min,...)``
        helper fact's script passes as ``min`` (``count_limit`` keeps it: a helper has no count
        limit of its own), 1 for World Ocean Dragon - Zealantis's "1+ Effect Monsters"; 0 for any
        other fact, or when the script writes no plain number there."""
        return self.count_limit if self.kind == HELPER and self.code == LINK_PROCEDURE else 0

    def applies(self, *codes: str) -> bool:
        """Its SetCode names one of ``codes`` (``EFFECT_EXTRA_SUMMON_COUNT``)."""
        return any(code and (self.code == code or code in self.code.replace("+", " ").replace("|", " ").split())
                   for code in codes)

    def describe(self) -> str:
        parts = ["+".join(self.types) or "untyped"]
        if self.code:
            parts.append(self.code)
        if self.properties:
            parts.append("flags " + ",".join(self.properties))
        if self.categories:
            parts.append("categories " + ",".join(self.categories))
        if self.fewest_materials:
            parts.append(f"{self.fewest_materials}+ materials")
        elif self.count_limit:
            parts.append(f"limit {self.count_limit}" + (f" by {self.count_code}" if self.count_code else ""))
        if self.ranges:
            parts.append("in " + ",".join(self.ranges))
        if self.condition:
            parts.append("with a condition")
        return " ".join(parts)

    def to_row(self, code: int, seq: int) -> tuple:
        return (code, seq, " ".join(self.types), self.code, " ".join(self.properties), " ".join(self.categories),
                self.count_limit, self.count_code, int(self.initial),
                None if self.condition is None else int(self.condition), " ".join(self.ranges))

    @classmethod
    def from_row(cls, row: Iterable) -> EffectFact:
        """A row of ``EFFECTS_COLUMNS`` after ``id, seq``, or of ``EFFECTS_COLUMNS_V1`` (an older
        database: its conditions and ranges are not known); a value of the wrong type reads as empty."""
        types, code, properties, categories, limit, count_code, initial, *rest = row
        condition, ranges = (list(rest) + [None, None])[:2]
        return cls(_words(types), code if isinstance(code, str) else "", _words(properties), _words(categories),
                   limit if isinstance(limit, int) and not isinstance(limit, bool) else 0,
                   count_code if isinstance(count_code, str) else "", bool(initial),
                   bool(condition) if isinstance(condition, int) else None, _words(ranges))


#: Events of the Damage Step: an effect answering one is activated there (Kuriboh).
DAMAGE_STEP_EVENTS = frozenset(("EVENT_PRE_DAMAGE_CALCULATE", "EVENT_PRE_BATTLE_DAMAGE", "EVENT_BATTLE_CONFIRM",
                                "EVENT_BATTLE_START", "EVENT_BATTLED", "EVENT_DAMAGE_STEP_END",
                                "EVENT_BATTLE_DAMAGE", "EVENT_BATTLE_DESTROYED", "EVENT_BATTLE_DESTROYING"))


def _words(value: object) -> tuple[str, ...]:
    return tuple(value.split()) if isinstance(value, str) else ()


__all__ = ["DAMAGE_STEP_EVENTS", "EFFECTS_COLUMNS", "EFFECTS_COLUMNS_V1", "EFFECTS_TABLE", "HELPER", "LINK_PROCEDURE",
           "EffectFact"]
