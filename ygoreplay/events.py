"""The event vocabulary: the duel's kinds here, the match's in ``match/events.py``.

Every game action is one immutable event. An event is a frozen dataclass whose ``kind`` names it
in files and in the store; ``VERSION`` is the version of its shape. The wire form is a plain dict
(``to_dict``/``from_dict``), the same for JSON Lines, msgpack and JSON Schema, so one hand-written
line and one stored record are the same thing::

    {"kind": "normal_summoned", "player": 0, "card": "p0.m7", "zone": 2}

Cards are named by instance ids that hold for the whole duel: ``p0.m7`` is the card at index 7 of
player 0's registered main deck, ``p0.x2`` index 2 of the extra deck, ``p1.t1`` player 1's first
token. Locations are ``[controller, zone, index]``. Events from an older version of a shape pass
through ``UPCASTERS`` before they are built, so old files keep loading.

Adding an event kind is one class, one handler and one sentence, each registered where it is
written; every table the folds, the log and the schemas use is built from those:

1. the class, here (a duel's: its class statement the body of a function named for its kind,
   run when the kind is first used, ``_lazy``) or in ``match/events.py`` (a match's, on ``MatchEvent``)::

       @_lazy
       def _card_flipped() -> type[Event]:
           @event_kind
           class CardFlipped(Event):
               '''Why it exists, what its fields mean, its rule IDs.'''
               kind: ClassVar[str] = "card_flipped"
               keeps_summon_window: ClassVar[bool] = True   # what the fold must know of it (see Event)
               vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"position": MONSTER_POSITIONS}
               card: str
               position: str
           return CardFlipped

   ``@event_kind`` makes it a frozen dataclass and registers its kind for the decoder, the wire
   form and the schemas. A field whose annotation says less than it holds (passcodes, a list of
   fixed length) adds its decoder to ``_FIELD_BUILDERS`` (``register`` for a match kind) and its
   schema to ``schema._OVERRIDES``; a field that holds card ids is named like the others that do
   (``card``, ``cards``, ``target`` ...: ``ID_FIELDS``), so every view renames it;
2. its handler, in the ``rules/`` module of its rule area (``match/rules.py`` for a match's), by
   its kind's name (the class only in annotations, imported under ``TYPE_CHECKING``)::

       @handles("card_flipped")
       def card_flipped(state: DuelState, ev: CardFlipped) -> None: ...

3. its sentence, in ``sentences.py`` (``match/sentences.py``)::

       @describes("card_flipped")
       def _flipped(w: Line, e, n: "Narrator") -> str: ...

then ``python -m ygoreplay.schema`` writes its JSON Schema, and ``tests/test_kinds.py`` fails,
naming the kind, until it has all of them; ``tests/test_schemas.py`` wants an example of it.
"""
from __future__ import annotations

import dataclasses
import operator
import re
import reprlib
import threading
from types import FunctionType
from collections import namedtuple
from typing import Any, Callable, ClassVar, Mapping, TypeVar, dataclass_transform

from . import seals
from .errors import InputError
from .lazy_dataclass import dataclass
from .i18n import N_, say

# -- vocabularies -------------------------------------------------------------------------------

DECK, HAND, MZONE, SZONE, FZONE, GY, BANISHED, EXTRA, OVERLAY = (
    "deck", "hand", "mzone", "szone", "fzone", "gy", "banished", "extra", "overlay")
ZONES = (DECK, HAND, MZONE, SZONE, FZONE, GY, BANISHED, EXTRA, OVERLAY)
#: Main monster zones are mzone 0-4; mzone 5 and 6 are the extra monster zones, left and right as
#: the controller sees them (the same numbering EDOPro uses).
EMZ_LEFT, EMZ_RIGHT = 5, 6

ATTACK, DEFENSE, SET, FACEDOWN_ATTACK, FACEUP, FACEDOWN = (
    "attack", "defense", "set", "facedown_attack", "faceup", "facedown")
MONSTER_POSITIONS = (ATTACK, DEFENSE, SET, FACEDOWN_ATTACK)
POSITIONS = (ATTACK, DEFENSE, SET, FACEDOWN_ATTACK, FACEUP, FACEDOWN)
FACE_UP_POSITIONS = frozenset((ATTACK, DEFENSE, FACEUP))

PHASES = ("draw", "standby", "main1", "battle", "main2", "end")
BATTLE_STEPS = ("start", "battle", "damage", "end")
SUMMON_METHODS = ("inherent", "effect", "ritual", "fusion", "synchro", "xyz", "pendulum", "link")
EFFECT_TYPES = ("ignition", "trigger", "quick", "flip", "continuous", "pendulum")
MOVE_REASONS = (
    "destroyed", "battle", "sent", "tributed", "material", "discarded", "banished", "returned",
    "shuffled", "added", "resolved", "cost", "rule", "detached", "attached", "negated")
LP_REASONS = ("battle_damage", "effect_damage", "cost", "gain", "set")
END_REASONS = ("lp", "deck_out", "draw", "surrender", "effect", "judge", "time", "disconnect")
RULESETS = ("mr2020", "nmr2017", "mr3")
COST_ZONES = (GY, BANISHED, DECK, HAND, EXTRA)
#: Settings of ``duel_started`` that the players agreed on, or the room imposed, in place of the
#: basic rules' values (CONF-01): the starting LP (SETUP-01), the opening hand (SETUP-02), the
#: Draw Phase draw (TURN-02), and decks that are not checked (DECK-01..06: a casual room's
#: "Don't check deck"). EDOPro rooms offer all four. The rest are older rulings a room's duel
#: mode may keep (EDOPro's Goat format, its duel flags: yrpx/mapping.py ``_flag_options``):
#: the first player draws on turn 1 (``first_turn_draw``: SETUP-04, CONF-08); a player may change
#: the position of, or Flip Summon, a monster the other player summoned this turn
#: (``reposition_opponents_summons``: POS-08, SUM-11); two 0 ATK Attack Position monsters that
#: battle are both destroyed (``zero_atk_destroyed``: DMG-03); and one face-up Field Spell on the
#: whole field, the replaced one destroyed (``one_field_spell``: SPELL-11, CONF-03).
#: Who entered an event of a witnessed duel (``Event.entered_by``): the table's recorder, a player, the judge.
ENTERED_BY = ("recorder", "p0", "p1", "judge")
#: What a judge decided about an entry a ruling is ``on`` (``judge_note.decision``): it stands as
#: played, it stands with a warning, with a penalty, or it was reverted (a rollback follows).
DECISIONS = ("stands", "warning", "penalty", "reverted")
DUEL_OPTIONS = ("starting_lp", "hand_size", "draw_count", "no_deck_check", "first_turn_draw",
                "reposition_opponents_summons", "zero_atk_destroyed", "one_field_spell")


#: The fields that hold card ids (one or a list): every view renames them, and the fold looks in
#: them for the unknown cards an event names (``rules.candidates``).
ID_FIELDS = frozenset(("card", "tributes", "materials", "targets", "attacker", "target", "destroyed",
                       "cards", "order", "other"))


class EventFormatError(InputError):
    """An event that cannot be built: unknown kind, missing or ill-typed field. Says which."""

    def __init__(self, message: str, where: str = "") -> None:
        super().__init__(f"{where}: {message}" if where else message)
        self.where = where
        self.detail = message


class Loc(namedtuple("Loc", ("controller", "zone", "index"), defaults=(None,))):
    """Where a card is: ``(controller, zone, index)``. ``index`` is None where order is not given."""

    __slots__ = ()  # ``collections.namedtuple``: ``typing.NamedTuple`` would compile each field's string annotation,
    # and a process's first ``compile`` builds the AST types (4% of a fresh ``show --at N``: issue 25)
    controller: int
    zone: str
    index: int | None

    def to_wire(self) -> list:
        return [self.controller, self.zone] if self.index is None else list(self)


class Shows(tuple):
    """Card identities an event shows: ``(card id, passcode)`` pairs, ``{"p0.m3": 12580477}`` on the
    wire. A card the record did not know (passcode 0: a draw, a Set, a card in a hidden hand) is
    that card from this event on (``rules.identity``), as Hearthstone's ``SHOW_ENTITY`` binds an
    id to an entity that already existed."""

    __slots__ = ()


class Seals(tuple):
    """Seals a player's device wrote of hidden cards of its own: ``(card id, seal)`` pairs,
    ``{"p0.m3": "sha256:..."}`` on the wire (``seals``: a hash of passcode and a secret nonce)."""

    __slots__ = ()


class Opening(namedtuple("Opening", ("card", "code", "nonce"), defaults=("",))):
    """One card opened: its passcode, and the nonce of its seal ("" for a card never sealed)."""

    __slots__ = ()  # ``collections.namedtuple``: see ``Loc``
    card: str
    code: int
    nonce: str


class Openings(tuple):
    """The cards a ``cards_opened`` opens, ``Opening`` each; ``{"p0.m3": {"code": 12580477,
    "nonce": "9f0c..."}}`` on the wire (no ``nonce``: a card its player never sealed)."""

    __slots__ = ()


#: How a cite says that nothing explains it (``Cite.unexplained``): an importer of a duel a real
#: engine played sets aside what the engine allowed, and where neither the record nor the card's
#: effect facts name a card effect behind it, the effect text begins with this, for a judge to review.
UNEXPLAINED = "unexplained: "


@dataclass(frozen=True, slots=True)
class Cite:
    """The card effect that permits an exception to a basic rule (GEN-01)."""

    card: str
    effect: str = ""

    @property
    def unexplained(self) -> bool:
        """Cited for review: the engine allowed it and nothing known explains it (``UNEXPLAINED``)."""
        return self.effect.startswith(UNEXPLAINED)


@dataclass(frozen=True, slots=True)
class Cost:
    """A cost paid as part of an activation (CHAIN-11): LP, or a card moved from where it is."""

    lp: int = 0
    card: str | None = None
    to: str | None = None          # zone the card goes to (gy, banished, deck, hand, extra)
    reason: str = "cost"           # cost, tributed, discarded, detached, banished


@dataclass(frozen=True, slots=True)
class BanlistRef:
    """The Forbidden/Limited list a duel is played under (DECK-08, CONF-02), carried whole so the
    record can be judged without the file: its ``name``, ``hash`` (``sha256:`` of its content,
    ``decks.Banlist.content_hash``) and ``limits``, ``[passcode, copies]`` pairs sorted by
    passcode; on a ``whitelist`` unlisted cards are forbidden."""

    name: str
    hash: str
    limits: tuple[tuple[int, int], ...] = ()
    whitelist: bool = False


# -- the event base -----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Fields every event may carry: the acting player, a cited effect, a wall-clock time.

    The class attributes below say what the folds need to know of a kind; a kind sets those that
    hold for it (``rules.fold`` and ``match.rules`` build their sets from them once, at import).
    """

    kind: ClassVar[str] = ""
    VERSION: ClassVar[int] = 1
    #: The stream the kind is recorded in: ``"duel"`` (folded by ``rules``) or ``"match"``
    #: (``match.rules``); each fold refuses the other's kinds (LOG-03).
    stream: ClassVar[str] = "duel"
    #: Closed vocabularies of its fields, ``{field: words}``, checked at decode and put in the
    #: schema (a field named in ``_CHOICES`` takes that vocabulary unless its kind says otherwise).
    vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    #: A duel may begin with it (LOG-03).
    opens_duel: ClassVar[bool] = False
    #: It may still be recorded once a player has lost (WIN-01/02): the duel is over, but what
    #: happens at that same moment (the other player's damage, the cards it moved), the end of the
    #: chain it happened in (no link left resolves) and the end itself are part of the record.
    after_loss: ClassVar[bool] = False
    #: It may follow the duel's end (a judge's note): nothing else may (WIN-01..04).
    after_end: ClassVar[bool] = False
    #: It keeps open the moment a summon just attempted can be negated in (SUM-03): the chain
    #: that answers the summon, what it moves and pays, the next summon attempt, and whatever
    #: ``keeps_passes`` (it uses no priority, so it neither ends nor reopens that moment).
    keeps_summon_window: ClassVar[bool] = False
    #: It does not break a run of passes (CHAIN-04, PRIO-03): passes count only in succession,
    #: and only a play made with priority (an activation, a summon, a Set, an attack, a position
    #: change), a chain link resolving or the game moving on (a phase, a step) breaks it. What happens
    #: without anyone using priority (a card shown, LP, a move by the rules or a cost, a coin, the
    #: hand adjusted) neither hands priority back nor reopens a phase both players ended (PRIO-05),
    #: except what an End Phase effect changes after both passed (TURN-08: ``turn.end_phase_effect``).
    keeps_passes: ClassVar[bool] = False
    #: It may go on the Pendulum Summon just made (PEND-03: the monsters of one summon).
    continues_pendulum_summon: ClassVar[bool] = False
    #: Its fields a replay file's header repeats (a duel's or a match's players): held to what
    #: the header's reader reads (``replay_file.check_event``, at every append and write).
    in_header: ClassVar[tuple[str, ...]] = ()
    player: int | None = None
    cite: Cite | None = None
    time: str | None = None
    #: The identities of unknown cards this event shows (``Shows``): bound before it is applied.
    shows: Shows = Shows()
    #: Who entered it, in a witnessed duel (``ENTERED_BY``): stamped from the writer's role by the
    #: command that stores it (``application.Records``), so the record says who said so. (Not
    #: ``by``: a chain_link_negated's ``by`` is the link that negated it.)
    entered_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The wire form: ``kind`` first, then every field that differs from its default."""
        cls = type(self)
        write = _WIRE_WRITERS.get(cls)
        if write is not None:
            return write(self)
        uses = _WIRE_USES[cls] = _WIRE_USES.get(cls, 0) + 1
        if uses > _COMPILE_AFTER:
            write = _WIRE_WRITERS[cls] = _compiled_wire(cls)
            return write(self)
        out: dict[str, Any] = {"kind": self.kind}
        if self.VERSION != 1:
            version = self.wire_version()
            if version != 1:
                out["v"] = version
        for name, default in _WIRE_PLANS.get(cls) or _wire_plan(cls, _FIELDS[cls]):
            value = getattr(self, name)
            if value == default:
                continue
            out[name] = _to_wire(value)
        return out

    def wire_version(self) -> int:
        """The version this event is written as: its class's, unless a kind says otherwise."""
        return self.VERSION


E = TypeVar("E", bound=Event)

#: Every event kind made so far, by name (``EVENT_TYPES`` is all of them: ``__getattr__``).
_KINDS: dict[str, type[Event]] = {}
#: The duel's kinds not made yet, in the order they are defined: kind -> the function that makes it
#: (``_lazy``), and their class names -> their kinds.
_UNMADE: dict[str, Callable[[], type[Event]]] = {}
_CLASS_KINDS: dict[str, str] = {}
_FIELDS: dict[type, tuple[dataclasses.Field, ...]] = {}
#: (kind, field) -> the closed vocabulary of that field, from the kinds' ``vocabularies``.
_CHOICES_BY_KIND: dict[tuple[str, str], tuple[str, ...]] = {}
#: kind -> its fields that hold card ids (``ID_FIELDS``), in field order.
_ID_FIELDS_BY_KIND: dict[str, tuple[str, ...]] = {}


# -- making an event kind -------------------------------------------------------------------------
# ``dataclass(frozen=True, slots=True, kw_only=True)`` writes and compiles six methods per class
# and builds each class twice: 0.8 ms a kind, two thirds of importing this module (every command
# that reads a duel pays it). ``_frozen_kind`` makes the same class, taking its parameters from
# the base (``Event``, a real dataclass, as ``match.events.MatchEvent`` is) and compiling only
# ``__init__``; equality, hashing, repr, immutability, pickling, ``__match_args__``,
# ``dataclasses.fields``/``replace`` and the docstring are the dataclass's
# (``tests/test_events_kinds.py`` compares every kind with the dataclass built from it). Unlike
# 3.11's, assigning an attribute that is no field raises FrozenInstanceError too (3.11's
# ``__setattr__`` raised a TypeError from a stale ``super()``).

#: A string annotation that names ``ClassVar`` (this module's annotations are strings).
_CLASSVAR = re.compile(r"\s*(?:typing\s*\.\s*)?ClassVar\b")


#: The methods ``_frozen_kind`` writes, which a kind may not define itself.
_WRITTEN = frozenset(("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__", "__match_args__",
                      "__getstate__", "__setstate__"))


def _frozen_kind(cls: type[E]) -> type[E]:
    """``cls`` as ``dataclass(frozen=True, slots=True, kw_only=True)`` makes it (the parameters
    of its dataclass base), without compiling more than its ``__init__``."""
    params = cls.__dataclass_params__
    if not (params.frozen and params.eq and params.init and params.repr) or params.order or params.unsafe_hash:
        raise TypeError(say("{kind}: an event kind's base must be a frozen dataclass", kind=cls.__name__))
    fields: dict[str, dataclasses.Field] = {}
    for base in cls.__mro__[-1:0:-1]:
        fields.update(base.__dict__.get("__dataclass_fields__", {}))
    own = cls.__dict__
    for name, annotation in own.get("__annotations__", {}).items():
        if not isinstance(annotation, str):
            raise TypeError(say("{kind}.{name}: annotations are strings here (from __future__ import annotations)",
                                kind=cls.__name__, name=name))
        if _CLASSVAR.match(annotation):
            continue
        default = own.get(name, dataclasses.MISSING)
        if isinstance(default, dataclasses.Field) or "InitVar" in annotation or "KW_ONLY" in annotation:
            raise TypeError(say("{kind}.{name}: an event field is a plain annotation with a constant default",
                                kind=cls.__name__, name=name))
        if default is not dataclasses.MISSING and type(default).__hash__ is None:
            raise ValueError(say("mutable default {value} for field {name} is not allowed: use default_factory",
                                 value=type(default), name=name))
        made = dataclasses.field(default=default, kw_only=True)
        made.name, made.type, made._field_type = name, annotation, dataclasses._FIELD  # type: ignore[attr-defined]
        fields[name] = made
    listed = tuple(f for f in fields.values() if f._field_type is dataclasses._FIELD)  # type: ignore[attr-defined]
    names = tuple(f.name for f in listed)
    written = _WRITTEN.intersection(own)
    if written:
        raise TypeError(say("{kind} defines {names_list}: an event kind's are made for it",
                            kind=cls.__name__, names_list=', '.join(sorted(written))))
    namespace = {key: value for key, value in own.items() if key not in names and key not in ("__dict__", "__weakref__")}
    inherited = {slot for base in cls.__mro__[1:-1] for slot in base.__dict__.get("__slots__", ())}
    namespace["__slots__"] = tuple(name for name in names if name not in inherited)
    namespace["__dataclass_fields__"], namespace["__dataclass_params__"] = fields, params
    values = operator.attrgetter(*names)        # a tuple: every kind has Event's five fields
    init = _Init(listed)
    namespace.update(__init__=init, __repr__=_repr(cls, names), __eq__=_eq(values),
                     __hash__=_hash(values), __match_args__=(),       # keyword-only fields only
                     __getstate__=_getstate(values), __setstate__=_setstate(names))
    if not own.get("__doc__"):
        namespace["__doc__"] = cls.__name__ + _signature(listed)
    qualname = cls.__qualname__
    if _making and _making == cls.__dict__.get("kind"):     # made by its ``_lazy`` function: named as at module level
        qualname = cls.__name__
        for value in namespace.values():
            if isinstance(value, FunctionType) and value.__qualname__.startswith(cls.__qualname__ + "."):
                value.__qualname__ = qualname + value.__qualname__[len(cls.__qualname__):]
    built = type(cls)(cls.__name__, cls.__bases__, namespace)
    built.__qualname__ = qualname
    init.kind = built
    built.__setattr__, built.__delattr__ = _frozen(built, frozenset(names))
    return built


class _Init:
    """A kind's ``__init__``, compiled and put in its place the first time it is looked up (the
    first ``Kind(...)``, ``inspect.signature``, ``help``): compiling them all was half of making
    the kinds, and a command that only reads events never needs one (``_maker`` builds them)."""

    __slots__ = ("fields", "kind")

    def __init__(self, fields: tuple[dataclasses.Field, ...]) -> None:
        self.fields = fields
        self.kind: type = object                 # the kind, once made

    def __get__(self, instance: Any, owner: type | None = None) -> Callable[..., None]:
        init = _init(self.kind, self.fields)
        setattr(self.kind, "__init__", init)
        return init if instance is None else init.__get__(instance, owner)


def _init(cls: type, fields: tuple[dataclasses.Field, ...]) -> Callable[..., None]:
    """The dataclass's ``__init__`` (keyword-only), its fields set as ``_compiled_maker`` sets
    them: the event is made the kind's twin (``_twin``) for plain slot stores, then the kind
    again. The dataclass's, each field set through ``object.__setattr__``, took 2.5 times as many
    instructions (22,000 against 9,000 for a ``card_moved``; an import builds every event this
    way); an instance of a subclass of the kind (another layout) is still built that way."""
    bound: dict[str, Any] = {"__dataclass_builtins_object__": object, "__name__": cls.__module__,
                             "__dataclass_kind__": cls, "__dataclass_twin__": _twin(cls)}
    params = []
    for i, f in enumerate(fields):
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            bound[f"__dataclass_dflt_{i}__"] = f.default
            params.append(f"{f.name}=__dataclass_dflt_{i}__")
    body = ("\n    if self.__class__ is __dataclass_kind__:"
            "\n        __dataclass_builtins_object__.__setattr__(self,'__class__',__dataclass_twin__)"
            + "".join(f"\n        self.{f.name} = {f.name}" for f in fields)
            + "\n        self.__class__ = __dataclass_kind__\n        return"
            + "".join(f"\n    __dataclass_builtins_object__.__setattr__(self,{f.name!r},{f.name})" for f in fields))
    made: dict[str, Any] = {}
    exec(f"def __init__(self, *, {', '.join(params)}):{body}\n", bound, made)  # noqa: S102
    init = made["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {**{f.name: f.type for f in fields}, "return": None}
    return init


def _repr(cls: type, names: tuple[str, ...]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:
        return f"{self.__class__.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"
    __repr__.__qualname__ = f"{cls.__qualname__}.__repr__"
    return reprlib.recursive_repr()(__repr__)


def _eq(values: Callable[[Any], tuple]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented
    return __eq__


def _hash(values: Callable[[Any], tuple]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(values(self))
    return __hash__


def _getstate(values: Callable[[Any], tuple]) -> Callable[[Any], list]:
    def __getstate__(self: Any) -> list:       # pickling a frozen class with slots
        return list(values(self))
    return __getstate__


def _setstate(names: tuple[str, ...]) -> Callable[[Any, list], None]:
    def __setstate__(self: Any, state: list) -> None:
        for name, value in zip(names, state):
            object.__setattr__(self, name, value)
    return __setstate__


def _frozen(cls: type, names: frozenset[str]) -> tuple[Callable[..., None], Callable[..., None]]:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)
    return __setattr__, __delattr__


def _signature(fields: tuple[dataclasses.Field, ...]) -> str:
    """What ``inspect.signature`` says of the class, as a dataclass puts it in ``__doc__``."""
    return "(*, " + ", ".join(f"{f.name}: {f.type!r}" + ("" if f.default is dataclasses.MISSING else f" = {f.default!r}")
                              for f in fields) + ")"


@dataclass_transform(kw_only_default=True, frozen_default=True)
def event_kind(cls: type[E]) -> type[E]:
    """Make ``cls`` an event kind: a frozen dataclass with slots and keyword-only fields, in the
    one vocabulary every stream shares (its ``kind`` must be new)."""
    built = _frozen_kind(cls)
    kind = built.kind
    taken = _KINDS.get(kind)
    if taken is None and kind in _UNMADE and _making != kind:      # a duel's kind not made yet
        taken = __getattr__(_class_name(kind))
    if not kind:
        raise ValueError(say("{kind} names no event kind (kind: ClassVar[str] = ...)", kind=built.__name__))
    if taken is not None and (taken.__module__, taken.__qualname__) != (built.__module__, built.__qualname__):
        raise ValueError(say("event kind {kind!r} of {kind2} is already {module}.{kind3}'s",
                             kind=kind, kind2=built.__name__, module=taken.__module__, kind3=taken.__name__))
    fields = tuple(dataclasses.fields(built))
    stray = set(built.vocabularies) - {f.name for f in fields}
    if stray:
        raise ValueError(say("{kind}: a vocabulary for {names_list}, which is no field of it",
                             kind=kind, names_list=', '.join(map(repr, sorted(stray)))))
    _FIELDS[built] = fields
    _CHOICES_BY_KIND.update(((kind, name), words) for name, words in built.vocabularies.items())
    _ID_FIELDS_BY_KIND[kind] = tuple(f.name for f in fields if f.name in ID_FIELDS)
    # registered last: another thread finds a kind being made (``_lazy``) whole or not at all (then
    # waits for it in ``__getattr__``), never without its vocabularies, planned without them for good
    _KINDS[kind] = built
    return built


# -- the duel's kinds, each made the first time it is used ---------------------------------------
# Making a kind (its class statement, then ``_frozen_kind``) is some 0.4 M instructions: all 45 were
# a tenth of a fresh ``show DUEL --at N``, which meets five or so (issue 25). So each duel kind's
# class statement is the body of a function (``_lazy``), run the first time the kind is asked for:
# by its class's name (``from .events import CardMoved``: ``__getattr__``), by its kind
# (``kind_class``: a record decoded), or all of them (``EVENT_TYPES``: the schemas, the listings).
# Once made, a kind is the same class for good: the handlers' and sentences' tables hold kind
# names (``kinds.PerKind``) and resolve a class on its first event.

_making = ""                                   # the kind ``_lazy`` is making (``event_kind``'s check)
_lock = threading.RLock()


def _class_name(kind: str) -> str:
    """A kind's class name: ``card_moved`` -> ``CardMoved``."""
    return "".join(word.capitalize() for word in kind.split("_"))


def _lazy(make: Callable[[], type[E]]) -> Callable[[], type[E]]:
    """Register ``make`` (named ``_<kind>``, its body the kind's class statement) to make its kind
    when first asked for."""
    kind = make.__name__[1:]
    _UNMADE[kind] = make
    _CLASS_KINDS[_class_name(kind)] = kind
    return make


def kind_class(kind: str) -> type[Event] | None:
    """The class of event kind ``kind``, made now if it was not yet; None for no kind."""
    cls = _KINDS.get(kind)
    if cls is None and kind in _UNMADE:
        cls = __getattr__(_class_name(kind))
    return cls


def _known(kind: str) -> type[Event]:
    """``kind_class`` of a kind a record names: KeyError for no kind (its callers say so)."""
    cls = kind_class(kind)
    if cls is None:
        raise KeyError(kind)
    return cls


def kind_names() -> list[str]:
    """Every kind's name, made or not, in ``EVENT_TYPES``'s order (nothing is made)."""
    duel = list(_CLASS_KINDS.values())
    known = set(duel)
    return duel + [kind for kind in list(_KINDS) if kind not in known]   # copied at once: a thread may make one


def made(kind: str) -> type[Event] | None:
    """The class of ``kind`` if it was made, else None: no event, and no subclass, is of a kind
    not made (an ``isinstance`` that makes nothing)."""
    return _KINDS.get(kind)


def is_kind(kind: str) -> bool:
    """Whether ``kind`` names an event kind, made or not (nothing is made)."""
    return kind in _KINDS or kind in _UNMADE


def __getattr__(name: str) -> Any:
    """A duel kind's class the first time it is asked for by name (PEP 562), and ``EVENT_TYPES``:
    every kind, by name, in the order they are defined (the duel's, then the match's), made."""
    global _making, _KINDS
    if name == "EVENT_TYPES":
        with _lock:
            for kind in list(_UNMADE):
                kind_class(kind)
            every = {kind: _KINDS[kind] for kind in _CLASS_KINDS.values()}
            every.update(_KINDS)
            _KINDS = globals()["EVENT_TYPES"] = every        # one table from here on: kinds made later join it
        return every
    kind = _CLASS_KINDS.get(name)
    if kind is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    with _lock:
        make = _UNMADE.get(kind)
        if make is not None:                    # else another thread made it while this one waited
            _making = kind
            try:
                built = make()
            finally:
                _making = ""
            if (built.kind, built.__name__) != (kind, name):
                # the function is named for another kind than it makes (``_<kind>``, making its class)
                raise TypeError(say("{kind} names no event kind (kind: ClassVar[str] = ...)", kind=make.__name__))
            del _UNMADE[kind]
            globals()[name] = built
    return globals()[name]


def cards_named(event: "Event") -> list[str]:
    """The card ids ``event`` names in its id fields (``ID_FIELDS``), each once, in field order."""
    named: list[str] = []
    for name in _ID_FIELDS_BY_KIND.get(event.kind, ()):
        value = getattr(event, name)
        for card_id in (value,) if isinstance(value, str) else value or ():
            if isinstance(card_id, str) and card_id not in named:
                named.append(card_id)
    return named


def _default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return dataclasses.MISSING


#: Each class's (field name, default) pairs in field order, as ``to_dict`` compares them: built
#: once per class (writing a file serializes every event, and the chain hashes them all).
_WIRE_PLANS: dict[type, tuple[tuple[str, Any], ...]] = {}


def _wire_plan(cls: type, fields: tuple[dataclasses.Field, ...]) -> tuple[tuple[str, Any], ...]:
    plan = _WIRE_PLANS[cls] = tuple((f.name, _default(f)) for f in fields)
    return plan


_PLAIN = (int, str, bool, float, type(None))

#: Per kind: its compiled ``to_dict`` (``_compiled_wire``), and how many events it wrote before.
_WIRE_WRITERS: dict[type, Callable[[Any], dict[str, Any]]] = {}
_WIRE_USES: dict[type, int] = {}


def _compiled_wire(cls: type) -> Callable[[Any], dict[str, Any]]:
    """``Event.to_dict`` for the kind ``cls`` in straight-line code, as ``_compiled_maker``
    writes a maker: each field read as an attribute (not ``getattr`` by name), compared with its
    default, and a plain value (``_PLAIN``) written as it is; the same dict, key for key and in
    the same order, as the loop's. Writing a file serializes every event (a third of writing an
    import's ``.ygr``, #25); like the maker, a kind is compiled once ``_COMPILE_AFTER`` of its
    events were written, so a short command compiles nothing."""
    bound: dict[str, Any] = {"to_wire": _to_wire, "plain": _PLAIN, "type": type, "kind": cls.kind}
    lines = ["    out = {'kind': kind}"]
    if cls.VERSION != 1:
        lines += ["    version = self.wire_version()", "    if version != 1:", "        out['v'] = version"]
    for i, (name, default) in enumerate(_WIRE_PLANS.get(cls) or _wire_plan(cls, _FIELDS[cls])):
        bound[f"default{i}"] = default
        lines += [f"    value = self.{name}", f"    if not value == default{i}:",
                  f"        out[{name!r}] = value if type(value) in plain else to_wire(value)"]
    source = (f"def to_dict(self, {', '.join(f'{name}={name}' for name in bound)}):\n" + "\n".join(lines)
              + "\n    return out\n")
    made: dict[str, Any] = {}
    exec(source, dict(bound), made)         # noqa: S102 - our own field names, as dataclasses does
    return made["to_dict"]


def _to_wire(value: Any) -> Any:
    if type(value) in _PLAIN:
        return value
    if isinstance(value, Loc):
        return value.to_wire()
    if isinstance(value, (Shows, Seals)):
        return dict(value)
    if isinstance(value, Openings):
        return {o.card: {"code": o.code, "nonce": o.nonce} if o.nonce else {"code": o.code} for o in value}
    if isinstance(value, (Cite, Cost, BanlistRef)):
        cls = type(value)
        return {k: _to_wire(v) for k, default in _WIRE_PLANS.get(cls) or _wire_plan(cls, dataclasses.fields(cls))
                if (v := getattr(value, k)) != default}
    if isinstance(value, tuple):
        return [_to_wire(v) for v in value]
    return value


# -- setup --------------------------------------------------------------------------------------

@_lazy
def _duel_started() -> type[Event]:
    @event_kind
    class DuelStarted(Event):
        """The first event: rule set, starting LP, who goes first and who chose (MATCH-07, SETUP-01).

        ``options`` names the settings (``DUEL_OPTIONS``) the players agreed on or the room set in
        place of the basic rules' value (CONF-01): a 4000 LP duel is ``starting_lp: 4000`` with
        ``options: ["starting_lp"]``; without it, any LP but 8000 breaks SETUP-01. ``no_deck_check``
        says the decks were not held to DECK-01..06; the other options keep an older ruling in place of
        a basic rule (``DUEL_OPTIONS``: a new word needs no new version). Version 2 added ``options`` and ``draw_count``
        (the Draw Phase draw, TURN-02); version 3 ``banlist``, the Forbidden/Limited list the decks
        are registered against (DECK-08), carried whole.
        """

        kind: ClassVar[str] = "duel_started"
        VERSION: ClassVar[int] = 3
        opens_duel: ClassVar[bool] = True
        in_header: ClassVar[tuple[str, ...]] = ("players",)
        vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {
            "method": ("rps", "coin", "die", "loser", "agreement", "random")}
        first_player: int
        chosen_by: int | None = None
        method: str = "rps"
        ruleset: str = "mr2020"
        starting_lp: int = 8000
        hand_size: int = 5
        players: tuple[str, ...] = ()
        draw_count: int = 1
        options: tuple[str, ...] = ()
        banlist: BanlistRef | None = None
        #: Recorded at a table as it was played (a paper duel): an event that breaks a rule is kept,
        #: flagged with its violation, never refused (``rules.base.fail``); what the judge did about
        #: it follows as events. A machine's record (False) refuses the first illegal event.
        witnessed: bool = False

        def wire_version(self) -> int:
            """The lowest version that holds what it uses: every duel of before re-serializes to the
            very bytes it was recorded as, so its hash chain still verifies."""
            if self.banlist is not None:
                return 3
            return 2 if self.options or self.draw_count != 1 else 1
    return DuelStarted


@_lazy
def _deck_registered() -> type[Event]:
    @event_kind
    class DeckRegistered(Event):
        """A player's deck as passcodes; instance ids follow list order (``p0.m0``, ``p0.x0``).

        Passcode 0 is a card the record does not know (a recorder at a table sees no deck): it is a
        card like any other, named by an event that shows it (``Event.shows``). ``unordered``: the
        lists are the decklist the player registered with the tournament, not the deck's order; every
        card starts unknown, and a card shown must be one the list still holds (PEN-02), from its
        part of the deck (DECK-02/03)."""

        kind: ClassVar[str] = "deck_registered"
        main: tuple[int, ...]
        extra: tuple[int, ...] = ()
        side: tuple[int, ...] = ()
        unordered: bool = False
    return DeckRegistered


@_lazy
def _deck_shuffled() -> type[Event]:
    @event_kind
    class DeckShuffled(Event):
        """The resulting deck order, top first (randomness is recorded, not re-rolled).

        Without ``order`` the recorder did not see it (a paper duel): the cards of that Deck are
        unknown again, each one's identity back on its decklist (``rules.identity``)."""

        kind: ClassVar[str] = "deck_shuffled"
        order: tuple[str, ...] = ()
        seed: str | None = None
    return DeckShuffled


@_lazy
def _position_set_up() -> type[Event]:
    @event_kind
    class PositionSetUp(Event):
        """Start from a given position instead of the opening (like FEN): every card, LP, turn, phase.

        ``sides`` holds one dict per player: ``lp``, ``deck``, ``hand``, ``mzone`` (7 slots: 0-4 main,
        5-6 extra monster zones), ``szone`` (5; 7 under Master Rule 3, whose separate Pendulum
        Zones are 5 and 6), ``fzone``, ``gy``, ``banished``, ``extra``; each card
        a passcode or ``{"code", "id", "owner", "position", "summoned", "set", "position_changed",
        "attacked", "materials", "atk", "defense", "level", "counters", "properly_summoned", "token"}``
        (the flags say what happened this turn). Lists run top first (deck) or oldest first (GY); ``null``
        is an empty zone. A card without an ``id`` is named ``p<owner>.s<n>`` (``.t<n>`` for a token),
        ``n`` counting from 1 per owner in the order deck, hand, gy, banished, extra, mzone, szone, fzone,
        each Xyz monster's materials right after it.
        """

        kind: ClassVar[str] = "position_set_up"
        opens_duel: ClassVar[bool] = True
        sides: tuple[dict, ...]
        turn: int = 1
        turn_player: int = 0
        phase: str = "main1"
        step: str | None = None
        normal_summon_used: tuple[bool, ...] = (False, False)
        pendulum_summon_used: tuple[bool, ...] = (False, False)
        battle_phase_entered: bool = False
        ruleset: str = "mr2020"
        first_player: int = 0
    return PositionSetUp


# -- turn ---------------------------------------------------------------------------------------

@_lazy
def _cards_drawn() -> type[Event]:
    @event_kind
    class CardsDrawn(Event):
        """Cards drawn from the top of the deck: opening hands, the Draw Phase draw, or by effect.

        It can name no card: a record of what its recorder saw draws cards it does not know
        (passcode 0), named by the event that later shows them (``shows``)."""

        kind: ClassVar[str] = "cards_drawn"
        after_loss: ClassVar[bool] = True
        count: int = 1
        cards: tuple[str, ...] = ()
        cause: str | None = None
    return CardsDrawn


@_lazy
def _turn_started() -> type[Event]:
    @event_kind
    class TurnStarted(Event):
        kind: ClassVar[str] = "turn_started"
        turn: int
    return TurnStarted


@_lazy
def _phase_entered() -> type[Event]:
    @event_kind
    class PhaseEntered(Event):
        kind: ClassVar[str] = "phase_entered"
        phase: str
    return PhaseEntered


@_lazy
def _step_entered() -> type[Event]:
    @event_kind
    class StepEntered(Event):
        """A Battle Phase step (BATTLE-01): start, battle, damage, end."""

        kind: ClassVar[str] = "step_entered"
        vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"step": BATTLE_STEPS}
        step: str
    return StepEntered


@_lazy
def _priority_passed() -> type[Event]:
    @event_kind
    class PriorityPassed(Event):
        kind: ClassVar[str] = "priority_passed"
        after_loss: ClassVar[bool] = True
        keeps_summon_window: ClassVar[bool] = True
        keeps_passes: ClassVar[bool] = True
    return PriorityPassed


# -- summons and positions ----------------------------------------------------------------------

@_lazy
def _normal_summoned() -> type[Event]:
    @event_kind
    class NormalSummoned(Event):
        """A face-up Normal (or Tribute) Summon from the hand (SUM-01..05)."""

        kind: ClassVar[str] = "normal_summoned"
        keeps_summon_window: ClassVar[bool] = True
        vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"position": (ATTACK, DEFENSE)}
        card: str
        zone: int
        tributes: tuple[str, ...] = ()
        position: str = ATTACK
    return NormalSummoned


@_lazy
def _monster_set() -> type[Event]:
    @event_kind
    class MonsterSet(Event):
        """A monster Set face-down in Defence: a Normal Summon that is not a "Summon" (SUM-02, SUM-08).

        It can name no card: the Set card may be one the record does not know (passcode 0); a rule
        that needs its identity is undecided until an event shows it (``shows``)."""

        kind: ClassVar[str] = "monster_set"
        keeps_summon_window: ClassVar[bool] = True
        card: str
        zone: int
        tributes: tuple[str, ...] = ()
    return MonsterSet


@_lazy
def _flip_summoned() -> type[Event]:
    @event_kind
    class FlipSummoned(Event):
        kind: ClassVar[str] = "flip_summoned"
        keeps_summon_window: ClassVar[bool] = True
        card: str
    return FlipSummoned


@_lazy
def _special_summoned() -> type[Event]:
    @event_kind
    class SpecialSummoned(Event):
        """A Special Summon (SPS-01): inherent, by effect, or one of the summon procedures.

        ``player`` summons; ``controller`` is the player whose field the monster enters when an effect
        puts it on the opponent's field (None: the summoner's own). Version 2 added ``controller``.

        ``together`` (version 3) says whether this monster is summoned at the same time as the one of
        the ``special_summoned`` right before it, by the same procedure (one Pendulum Summon of three
        monsters is three events, the last two ``together: true``; PEND-03): ``false`` is a summon of
        its own; None (older records, EDOPro imports) leaves it to the order of events, consecutive
        Pendulum Summons being one.
        """

        kind: ClassVar[str] = "special_summoned"
        VERSION: ClassVar[int] = 3
        keeps_summon_window: ClassVar[bool] = True
        continues_pendulum_summon: ClassVar[bool] = True
        vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"position": MONSTER_POSITIONS}
        card: str
        zone: int
        method: str = "effect"
        position: str = ATTACK
        materials: tuple[str, ...] = ()
        cause: str | None = None
        controller: int | None = None
        together: bool | None = None

        def wire_version(self) -> int:
            """Version 2 while ``together`` is not stated, so earlier records keep their bytes."""
            return 2 if self.together is None else 3
    return SpecialSummoned


@_lazy
def _summon_negated() -> type[Event]:
    @event_kind
    class SummonNegated(Event):
        """A summon negated as it was attempted (SUM-03, SPS-08): the monster goes to the GY."""

        kind: ClassVar[str] = "summon_negated"
        card: str
        cause: str | None = None
    return SummonNegated


@_lazy
def _position_changed() -> type[Event]:
    @event_kind
    class PositionChanged(Event):
        """A battle-position change: manual (POS-07) unless ``cause`` names the effect that did it."""

        kind: ClassVar[str] = "position_changed"
        keeps_summon_window: ClassVar[bool] = True
        vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"position": MONSTER_POSITIONS + (FACEUP,)}
        card: str
        position: str
        cause: str | None = None
    return PositionChanged


@_lazy
def _spell_trap_set() -> type[Event]:
    @event_kind
    class SpellTrapSet(Event):
        """A Spell or Trap Set face-down from the hand into a S/T zone or the Field Zone.

        It can name no card: the Set card may be one the record does not know (passcode 0); a rule
        that needs its identity is undecided until an event shows it (``shows``)."""

        kind: ClassVar[str] = "spell_trap_set"
        card: str
        zone: int = 0
        field_zone: bool = False
    return SpellTrapSet


# -- chains -------------------------------------------------------------------------------------

@_lazy
def _activated() -> type[Event]:
    @event_kind
    class Activated(Event):
        """A card or effect activated as the next chain link (CHAIN-01..04).

        ``effect_type`` is None for the activation of a Spell/Trap card itself (its speed comes from
        the card), else one of ignition/trigger/quick/flip/continuous/pendulum. A Spell activated from
        the hand names the ``zone`` it is placed in (``field_zone`` for a Field Spell).

        ``negates`` (version 2) names the chain link whose activation this one negates (a Counter
        Trap's, TRAP-06; in the Damage Step an activation-negating effect, BATTLE-09).

        Version 3 lets a recorder without card scripts state what the effect is, as its script would
        (``effect_facts``; a script's facts win where both are known): ``mandatory`` (a mandatory
        trigger, NIS-02), ``damage_step`` (usable in the Damage Step, BATTLE-09/10) and ``timing``
        (``when``: an optional "when ... you can" trigger, which can miss the timing; ``if``: one
        that cannot, NIS-06). Left out, the rules reading them stay undecided.
        """

        kind: ClassVar[str] = "activated"
        VERSION: ClassVar[int] = 3
        vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"timing": ("when", "if")}
        keeps_summon_window: ClassVar[bool] = True
        card: str
        effect_type: str | None = None
        speed: int | None = None
        zone: int | None = None
        field_zone: bool = False
        targets: tuple[str, ...] = ()
        costs: tuple[Cost, ...] = ()
        link: int | None = None
        simultaneous: bool = False
        description: str = ""
        negates: int | None = None
        mandatory: bool | None = None
        damage_step: bool | None = None
        timing: str | None = None

        def wire_version(self) -> int:
            """The oldest version that holds its fields, so earlier records keep their bytes."""
            if self.mandatory is not None or self.damage_step is not None or self.timing is not None:
                return 3
            return 1 if self.negates is None else 2
    return Activated


@_lazy
def _chain_link_resolved() -> type[Event]:
    @event_kind
    class ChainLinkResolved(Event):
        kind: ClassVar[str] = "chain_link_resolved"
        keeps_summon_window: ClassVar[bool] = True
        link: int
    return ChainLinkResolved


@_lazy
def _chain_link_negated() -> type[Event]:
    @event_kind
    class ChainLinkNegated(Event):
        """The link's activation was negated (TERM-14) when its turn to resolve came."""

        kind: ClassVar[str] = "chain_link_negated"
        keeps_summon_window: ClassVar[bool] = True
        link: int
        by: int | None = None
    return ChainLinkNegated


@_lazy
def _chain_ended() -> type[Event]:
    @event_kind
    class ChainEnded(Event):
        kind: ClassVar[str] = "chain_ended"
        after_loss: ClassVar[bool] = True
        # PRIO-01, PRIO-05: its last link's resolution already gave the turn player priority, so passes
        # recorded before it (its end recorded late) were made once the chain was over, and one that
        # ends no chain (recorded twice) does not reopen a phase both players ended
        keeps_passes: ClassVar[bool] = True
    return ChainEnded


# -- battle -------------------------------------------------------------------------------------

@_lazy
def _attack_declared() -> type[Event]:
    @event_kind
    class AttackDeclared(Event):
        """An attack on a monster, or directly when ``target`` is None (BATTLE-02)."""

        kind: ClassVar[str] = "attack_declared"
        attacker: str
        target: str | None = None
    return AttackDeclared


@_lazy
def _attack_retargeted() -> type[Event]:
    @event_kind
    class AttackRetargeted(Event):
        """A replay (BATTLE-06): a new target, or a direct attack when ``target`` is None."""

        kind: ClassVar[str] = "attack_retargeted"
        target: str | None = None
    return AttackRetargeted


@_lazy
def _attack_cancelled() -> type[Event]:
    @event_kind
    class AttackCancelled(Event):
        kind: ClassVar[str] = "attack_cancelled"
        cause: str | None = None
    return AttackCancelled


@_lazy
def _damage_calculated() -> type[Event]:
    @event_kind
    class DamageCalculated(Event):
        """The recorded result of damage calculation; the engine recomputes it (DMG-01..09)."""

        kind: ClassVar[str] = "damage_calculated"
        destroyed: tuple[str, ...] = ()
        damage: tuple[int, ...] = (0, 0)
    return DamageCalculated


# -- outcomes -----------------------------------------------------------------------------------

@_lazy
def _card_moved() -> type[Event]:
    @event_kind
    class CardMoved(Event):
        """A card moved, for ``reason``, by ``cause`` (a card id, or None for a basic-rule move).

        To a hidden place (a hand, the Deck, face-down) it can name no card: the card moved may be
        one the record does not know (passcode 0), and stays so unless an event shows it (``shows``).

        ``with_next`` (version 2) says this card moves at the same time as the card of the next
        ``card_moved``, by the same action (one effect destroying several cards, the materials of one
        summon): the materials of the Xyz monsters such a group takes off the field reach the GY once
        the whole group has moved (NIS-05), as EDOPro sends them (``operations.cpp`` send_to, step
        10: the overlays are sent after every card of the move, and after the equipment it destroyed).
        ``false``, the default, is a move of its own: the materials follow at once.
        """

        kind: ClassVar[str] = "card_moved"
        VERSION: ClassVar[int] = 2
        after_loss: ClassVar[bool] = True
        keeps_summon_window: ClassVar[bool] = True
        keeps_passes: ClassVar[bool] = True
        vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"reason": MOVE_REASONS}
        card: str
        to: Loc
        reason: str = "sent"
        source: Loc | None = None
        position: str | None = None
        cause: str | None = None
        with_next: bool = False

        def wire_version(self) -> int:
            """Version 1 while it moves on its own, so earlier records keep their bytes."""
            return 2 if self.with_next else 1
    return CardMoved


@_lazy
def _card_revealed() -> type[Event]:
    @event_kind
    class CardRevealed(Event):
        kind: ClassVar[str] = "card_revealed"
        after_loss: ClassVar[bool] = True
        keeps_summon_window: ClassVar[bool] = True
        keeps_passes: ClassVar[bool] = True
        cards: tuple[str, ...]
        cause: str | None = None
    return CardRevealed


@_lazy
def _control_changed() -> type[Event]:
    @event_kind
    class ControlChanged(Event):
        """Control of a monster passes to ``to_player`` (CTRL-02), into monster zone ``zone``."""

        kind: ClassVar[str] = "control_changed"
        keeps_passes: ClassVar[bool] = True
        card: str
        to_player: int
        zone: int
        cause: str | None = None
    return ControlChanged


@_lazy
def _zone_changed() -> type[Event]:
    @event_kind
    class ZoneChanged(Event):
        """A card on the field moved by an effect to another of its controller's zones of the same
        kind: a monster to another Monster Zone (Main or Extra, 0-6), a Spell/Trap to another Spell &
        Trap Zone ("move this card to another of your Main Monster Zones"). It does not leave the
        field (ZONE-16): what it is, its counters, materials and equips go with it."""

        kind: ClassVar[str] = "zone_changed"
        card: str
        zone: int
        cause: str | None = None
    return ZoneChanged


@_lazy
def _cards_swapped() -> type[Event]:
    @event_kind
    class CardsSwapped(Event):
        """Two cards on the field trade places in one step, each taking the other's controller and
        zone: "switch control of those monsters" (Creature Swap, CTRL-02) or "swap the zones of two
        monsters you control". Neither leaves the field (ZONE-16); what each is, its counters,
        materials and equips go with it. Two ``control_changed`` events cannot say it: the first would
        need the zone the other still holds."""

        kind: ClassVar[str] = "cards_swapped"
        card: str
        other: str
        cause: str | None = None
    return CardsSwapped


@_lazy
def _set_cards_shuffled() -> type[Event]:
    @event_kind
    class SetCardsShuffled(Event):
        """A player's Set cards shuffled among the zones they hold ("shuffle the face-down monsters
        you control"): ``cards[i]`` goes to zone ``zones[i]`` of their row, all at once. The point of
        the shuffle is that the opponent loses track of which is which: a view whose viewer does not
        control them lists the cards in zone order and keeps them in place, and gives them fresh
        names (``views``). Nothing about a card but its zone changes (ZONE-16)."""

        kind: ClassVar[str] = "set_cards_shuffled"
        cards: tuple[str, ...]
        zones: tuple[int, ...]
        cause: str | None = None
    return SetCardsShuffled


@_lazy
def _stats_changed() -> type[Event]:
    @event_kind
    class StatsChanged(Event):
        """New current ATK/DEF/Level of a monster, as an effect set them (absolute values)."""

        kind: ClassVar[str] = "stats_changed"
        after_loss: ClassVar[bool] = True
        keeps_passes: ClassVar[bool] = True
        card: str
        atk: int | None = None
        defense: int | None = None
        level: int | None = None
        cause: str | None = None
    return StatsChanged


@_lazy
def _counters_changed() -> type[Event]:
    @event_kind
    class CountersChanged(Event):
        kind: ClassVar[str] = "counters_changed"
        keeps_passes: ClassVar[bool] = True
        card: str
        counter: str
        count: int
        cause: str | None = None
    return CountersChanged


@_lazy
def _token_created() -> type[Event]:
    @event_kind
    class TokenCreated(Event):
        """A token Special Summoned by an effect into a monster zone (TOKEN-01/02)."""

        kind: ClassVar[str] = "token_created"
        keeps_summon_window: ClassVar[bool] = True
        vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"position": MONSTER_POSITIONS}
        card: str
        code: int
        zone: int
        position: str = ATTACK
        cause: str | None = None
    return TokenCreated


@_lazy
def _life_points_changed() -> type[Event]:
    @event_kind
    class LifePointsChanged(Event):
        """LP lost (battle damage, effect damage, cost) or gained; ``amount`` is always positive."""

        kind: ClassVar[str] = "life_points_changed"
        after_loss: ClassVar[bool] = True
        keeps_summon_window: ClassVar[bool] = True
        keeps_passes: ClassVar[bool] = True
        vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"reason": LP_REASONS}
        amount: int
        reason: str
        lp: int | None = None
        cause: str | None = None
    return LifePointsChanged


@_lazy
def _coin_tossed() -> type[Event]:
    @event_kind
    class CoinTossed(Event):
        kind: ClassVar[str] = "coin_tossed"
        keeps_passes: ClassVar[bool] = True
        results: tuple[bool, ...]
        cause: str | None = None
    return CoinTossed


@_lazy
def _die_rolled() -> type[Event]:
    @event_kind
    class DieRolled(Event):
        kind: ClassVar[str] = "die_rolled"
        keeps_passes: ClassVar[bool] = True
        results: tuple[int, ...]
        cause: str | None = None
    return DieRolled


@_lazy
def _hand_size_discard() -> type[Event]:
    @event_kind
    class HandSizeDiscard(Event):
        """The turn player's End Phase discard down to the hand limit (HAND-01)."""

        kind: ClassVar[str] = "hand_size_discard"
        keeps_passes: ClassVar[bool] = True
        cards: tuple[str, ...]
    return HandSizeDiscard


@_lazy
def _duel_ended() -> type[Event]:
    @event_kind
    class DuelEnded(Event):
        """The result: ``winner`` 0 or 1, or None for a draw (WIN-01..04)."""

        kind: ClassVar[str] = "duel_ended"
        after_loss: ClassVar[bool] = True
        vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"reason": END_REASONS}
        winner: int | None
        reason: str
    return DuelEnded


# -- seals: each player records their own side ---------------------------------------------------

@_lazy
def _cards_sealed() -> type[Event]:
    @event_kind
    class CardsSealed(Event):
        """A player's device commits to the identities of hidden cards of its own (a card drawn,
        searched, Set), each a seal of passcode and secret nonce (``seals.seal``), so the record holds
        what the player saw without anyone else learning it. A card is sealed by the player who holds
        it (LOG-11) and once (LOG-04). The seals change nothing on the board; ``cards_opened`` opens them."""

        kind: ClassVar[str] = "cards_sealed"
        after_loss: ClassVar[bool] = True
        keeps_summon_window: ClassVar[bool] = True
        keeps_passes: ClassVar[bool] = True
        continues_pendulum_summon: ClassVar[bool] = True
        seals: Seals
    return CardsSealed


@_lazy
def _cards_opened() -> type[Event]:
    @event_kind
    class CardsOpened(Event):
        """A player opens cards of their own: each sealed one with the nonce of its seal, which must
        open it (LOG-11); one already shown with the same passcode (LOG-10); a card never sealed (the
        rest of their Deck at the end) without a nonce. From here on each is that card, as if an
        event had shown it (``Event.shows``); it may follow the duel's end."""

        kind: ClassVar[str] = "cards_opened"
        after_loss: ClassVar[bool] = True
        after_end: ClassVar[bool] = True
        keeps_summon_window: ClassVar[bool] = True
        keeps_passes: ClassVar[bool] = True
        continues_pendulum_summon: ClassVar[bool] = True
        cards: Openings
    return CardsOpened


# -- judge ------------------------------------------------------------------------------------

@_lazy
def _rolled_back() -> type[Event]:
    @event_kind
    class RolledBack(Event):
        """A judge backs the game up to the state before event ``to`` (MATCH-08).

        Play continues from that state; the events in between stay in the log, marked reverted.
        """

        kind: ClassVar[str] = "rolled_back"
        vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"reason": ()}      # free text
        to: int
        judge: str
        reason: str
    return RolledBack


@_lazy
def _judge_note() -> type[Event]:
    @event_kind
    class JudgeNote(Event):
        """A judge call, ruling, penalty or note, kept in the record (PEN-02, MATCH-08)."""

        kind: ClassVar[str] = "judge_note"
        after_end: ClassVar[bool] = True
        keeps_passes: ClassVar[bool] = True
        vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {
            "category": ("call", "ruling", "penalty", "warning", "note", "time"), "decision": DECISIONS}
        judge: str
        note: str
        category: str = "note"
        #: The entry it rules on (an event index: a flagged or disputed one), and what the judge
        #: decided about it (``DECISIONS``); both or neither.
        on: int | None = None
        decision: str | None = None
    return JudgeNote


# -- who said so (a witnessed duel) -------------------------------------------------------------

@_lazy
def _entry_confirmed() -> type[Event]:
    @event_kind
    class EntryConfirmed(Event):
        """The other side agrees that entry ``on`` is what happened (entered by a player, of an entry
        they did not make). Kept by ``rules.History``; it changes nothing on the board."""

        kind: ClassVar[str] = "entry_confirmed"
        after_end: ClassVar[bool] = True
        keeps_passes: ClassVar[bool] = True
        on: int
    return EntryConfirmed


@_lazy
def _entry_disputed() -> type[Event]:
    @event_kind
    class EntryDisputed(Event):
        """The other side says entry ``on`` is not what happened, and why: a judge call, marked
        until a judge's note ``on`` it rules (MATCH-08)."""

        kind: ClassVar[str] = "entry_disputed"
        after_end: ClassVar[bool] = True
        keeps_passes: ClassVar[bool] = True
        vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"reason": ()}      # free text
        on: int
        reason: str
    return EntryDisputed


@_lazy
def _entry_corrected() -> type[Event]:
    @event_kind
    class EntryCorrected(Event):
        """A mis-entry corrected by whoever entered it: play goes on from the state before event
        ``to``, the entries from ``to`` on stay in the record struck through. Not a judge's rollback:
        no judge needed, but only over the current turn's entries and never after the end (LOG-12)."""

        kind: ClassVar[str] = "entry_corrected"
        vocabularies: ClassVar[Mapping[str, tuple[str, ...]]] = {"reason": ()}      # free text
        to: int
        reason: str
    return EntryCorrected


# -- registry and decoding ----------------------------------------------------------------------

#: (kind, from_version) -> function turning a dict of that version into the next version's dict.
UPCASTERS: dict[tuple[str, int], Callable[[dict], dict]] = {
    # v1 had no ``controller``: the monster always entered the summoner's own field.
    ("special_summoned", 1): lambda d: {"controller": None, **d, "v": 2},
    # v1 had no duel options: every setting was the basic rules' or broke them; one card a draw.
    ("duel_started", 1): lambda d: {"draw_count": 1, "options": [], **d, "v": 2},
    # v2 named no banlist: the decks were held to DECK-06's three copies only.
    ("duel_started", 2): lambda d: {"banlist": None, **d, "v": 3},
    # v2 did not say which summons were one: consecutive Pendulum Summons were one (PEND-03).
    ("special_summoned", 2): lambda d: {"together": None, **d, "v": 3},
    # v1 had no ``negates``: no activation said which link it negated.
    ("activated", 1): lambda d: {"negates": None, **d, "v": 2},
    # v2 stated no effect facts: the card's script (if read) was the only source.
    ("activated", 2): lambda d: {"mandatory": None, "damage_step": None, "timing": None, **d, "v": 3},
    # v1 had no ``with_next``: every card moved on its own, its materials following at once.
    ("card_moved", 1): lambda d: {"with_next": False, **d, "v": 2},
}

# Which fields must hold which closed vocabulary; checked at decode so a typo is caught at its line.
_CHOICES: dict[str, tuple[str, ...]] = {
    "phase": PHASES, "method": SUMMON_METHODS, "reason": MOVE_REASONS + LP_REASONS + END_REASONS,
    "effect_type": EFFECT_TYPES, "ruleset": RULESETS, "position": POSITIONS,
    "entered_by": ENTERED_BY}


def from_dict(data: Any, where: str = "") -> Event:
    """Build an event from its wire form, upcasting older versions; EventFormatError if malformed.

    Decoding is bounded (see ``MAX_STRING`` and the limits beside it): every integer fits in 64
    bits, passcodes in 32, every string is valid Unicode of at most ``MAX_STRING`` characters,
    every list holds at most ``MAX_LIST`` items. The error names the field and, inside a list or
    a set-up side, the path to the bad value (``position_set_up.sides[0].mzone[2].atk``).
    """
    if not isinstance(data, dict):
        raise EventFormatError(say("an event must be an object, got {name}", name=type(data).__name__), where)
    kind = data.get("kind")
    cls = kind_class(kind) if isinstance(kind, str) else None
    if cls is None:
        raise EventFormatError(say("unknown event kind {brief}", brief=_brief(kind)), where)
    version = data.get("v", 1)
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= cls.VERSION:
        raise EventFormatError(
            say("{kind}: version {brief} is not one this program reads (1..{version})",
                kind=kind, brief=_brief(version), version=cls.VERSION), where)
    while version < cls.VERSION:
        data = UPCASTERS[(kind, version)](dict(data))
        version += 1
    plan, names = _PLANS.get(cls) or _plan(cls)
    if len(data) > len(names) or not names.issuperset(data):
        unknown = set(data) - names
        raise EventFormatError(say("{kind}: unknown field(s) {listed}", kind=kind, listed=_listed(unknown)), where)
    kwargs: dict[str, Any] = {}
    for name, build, optional, required, choices in plan:
        if name not in data:
            if required:
                raise EventFormatError(say("{kind}: missing field {name!r}", kind=kind, name=name), where)
            continue
        value = data[name]
        if value is None:
            if not optional:
                raise EventFormatError(say("{kind}.{name} may not be null", kind=kind, name=name), where)
            kwargs[name] = None
            continue
        try:
            value = build(value)
        except _Invalid as exc:
            raise EventFormatError(f"{kind}.{name}{exc.path}: {exc.detail}", where) from None
        except (TypeError, ValueError, KeyError) as exc:
            raise EventFormatError(f"{kind}.{name}: {exc}", where) from None
        if choices and value not in choices:
            raise EventFormatError(say("{kind}.{name}: {brief} is not one of {join}",
                                       kind=kind, name=name, brief=_brief(value), join=', '.join(choices)), where)
        kwargs[name] = value
    return (_MAKERS.get(cls) or _maker(cls))(kwargs)


def from_trusted_dict(data: dict, where: str = "") -> Event:
    """Build an event from a wire form this program wrote and a hash chain vouches for (the
    store's own records, checked against their chain before they are read): its types and
    vocabularies are trusted, not checked field by field again; older versions are still upcast.
    A form that does not even build (altered and rechained behind the store's back) goes through
    ``from_dict``, whose EventFormatError names what is wrong. Records of one shape (kind,
    version, keys) are built by one maker, written for that shape the first time it is read."""
    try:
        shape = (data["kind"], data.get("v", 1), tuple(data))
        make = _SHAPED.get(shape) or _shape(shape)
        return make(data)             # a scalar of the wrong type (rechained): TypeError, from_dict says what
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError):
        pass
    # Asked once the maker's error is dropped: raised while handling it, from_dict's error held the
    # maker's frame, and in it the event half built (a mutable twin), as long as the error lived.
    return from_dict(data, where)


def _trusted(data: dict) -> Event:
    """``from_trusted_dict``'s build of a record of any shape: upcast, its fields converted
    (``_trusted_plan``), its scalars checked by the class's maker. Raises as that does."""
    kind = data["kind"]
    cls = _KINDS.get(kind) or _known(kind)
    version = data.get("v", 1)
    while version < cls.VERSION:
        data = UPCASTERS[(kind, version)](data)      # each builds a new dict: the record stays as read
        version += 1
    required, convert, make = _TRUSTED.get(cls) or _trusted_plan(cls)
    if not required.issubset(data):
        raise KeyError(required)
    built = None
    for name, build in convert:
        value = data.get(name)
        if value is not None:
            if built is None:
                built = data = dict(data)
            data[name] = build(value)
    return make(data)


#: Per shape of record (its kind, version and keys in their order): the maker of records of
#: that shape (``_shape``). A store's records of one kind come in a few shapes (``to_dict`` writes
#: the fields that differ from their defaults: the 100 real duels hold 103); at most
#: ``_SHAPES_MAX`` are kept (some 8 KB each), as records altered behind the store's back may come in any.
_SHAPED: dict[tuple[str, Any, tuple[str, ...]], Callable[[dict], Event]] = {}
_SHAPES_MAX = 1024


#: Per shape not written yet: how many of its records ``_trusted`` built (``_shape``).
_SHAPE_USES: dict[tuple[str, Any, tuple[str, ...]], int] = {}
#: How many records of a shape ``_trusted`` builds before its maker is written: a seek folds fewer
#: than ``SNAPSHOT_EVERY`` records in a handful of shapes, so few of its shapes get there, while a
#: long read (the 100 real duels: 103 shapes, 22,000 records) builds fewer than a tenth of its
#: records the generic way (128, as a kind's maker waits: such a read end to end took 1.08 of the
#: time before, one run at load 14).
_SHAPE_COMPILE_AFTER = 16


def _shape(shape: tuple[str, Any, tuple[str, ...]]) -> Callable[[dict], Event]:
    """The maker of records of this shape: ``_trusted`` for its first ``_SHAPE_COMPILE_AFTER``
    records (writing a maker costs as much as building a hundred records the generic way, and a
    seek reads a few records of each of some five shapes: writing their makers was 2.4% of a
    fresh ``show DUEL --at N``, issue 25), then ``_shaped_maker``'s, or ``_trusted`` for a shape it does
    not write (a required field missing, an upcaster that does more than add fields)."""
    kind, version, keys = shape
    cls = _KINDS.get(kind) or _known(kind)         # an unknown kind: KeyError, from_dict says so
    _TRUSTED.get(cls) or _trusted_plan(cls)
    uses = _SHAPE_USES.get(shape, 0) + 1
    if uses <= _SHAPE_COMPILE_AFTER:
        if shape in _SHAPE_USES or len(_SHAPE_USES) < _SHAPES_MAX:   # as many as are kept
            _SHAPE_USES[shape] = uses
        return _trusted
    _SHAPE_USES.pop(shape, None)
    added = _added_by_upcasting(cls, version, keys)
    make = _trusted if added is None else _shaped_maker(cls, keys, added)
    if len(_SHAPED) < _SHAPES_MAX:
        _SHAPED[shape] = make
    return make


def _added_by_upcasting(cls: type[Event], version: Any, keys: tuple[str, ...]) -> dict[str, Any] | None:
    """The fields the upcasters from ``version`` add to a record with these keys, with their
    values, when that is all they do (the record's own values kept as they are, whatever they
    are): tried on two records of markers. None when they do anything else, or fail."""
    probes = [{key: object() for key in keys} for _ in range(2)]
    upcast = []
    try:
        for probe in probes:
            data, at = probe, version
            while at < cls.VERSION:
                data = UPCASTERS[(cls.kind, at)](data)
                at += 1
            upcast.append(data)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return None
    added = {key: value for key, value in upcast[0].items() if key not in keys}
    for probe, data in zip(probes, upcast):
        kept = all(key == "v" or key in data and data[key] is marker for key, marker in probe.items())
        if not kept or {key: value for key, value in data.items() if key not in keys} != added:
            return None
    added.pop("v", None)
    if any(type(value) not in _CONSTANTS for value in added.values()):
        return None
    return added


#: The values an upcaster may add that ``_shaped_maker`` takes as constants.
_CONSTANTS = frozenset((type(None), bool, int, str, list))


def _shaped_maker(cls: type[Event], keys: tuple[str, ...], added: dict[str, Any]) -> Callable[[dict], Event]:
    """``_trusted`` for records with exactly these keys, whose upcasting adds ``added``, in
    straight-line code: each present field converted or its scalar checked, as ``_trusted_plan``
    says, the fields upcasting adds and the absent ones set to what they would build to, without
    upcasting each record, asking it for every field it lacks, or checking their defaults again
    (an ``activated`` has 19 fields and its record 4 or 5: those were most of building it)."""
    required, convert, _ = _TRUSTED[cls]
    converters, checks = dict(convert), _TRUSTED_CHECKS[cls]
    present = set(keys)
    if not required <= present | added.keys():
        return _trusted                            # its KeyError sends it to from_dict
    bound: dict[str, Any] = {"new": object.__new__, "twin": _twin(cls), "cls": cls, "TypeError": TypeError,
                             "type": type}
    lines = []
    for i, f in enumerate(_FIELDS[cls]):
        name = f.name
        check = checks.get(name)
        if name in present:
            if name in converters:
                bound[f"build{i}"] = converters[name]
                lines += [f"    value = values[{name!r}]",
                          f"    event.{name} = value if value is None else build{i}(value)"]
            elif check is not None:
                lines += _check_lines(i, name, check, f"values[{name!r}]", bound)
            else:
                lines.append(f"    event.{name} = values[{name!r}]")
            continue
        value = added[name] if name in added else _default(f)
        if name in added and name in converters and value is not None:
            try:
                value = converters[name](value)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError):
                return _trusted
        if value is dataclasses.MISSING or check is not None and not _passes(value, check) or isinstance(value, list):
            return _trusted                        # a shape whose records never build: from_dict says why
        bound[f"value{i}"] = value
        lines.append(f"    event.{name} = value{i}")
    source = (f"def make(values, {', '.join(f'{name}={name}' for name in bound)}):\n"
              "    event = new(twin)\n" + "\n".join(lines) + "\n    event.__class__ = cls\n    return event\n")
    made: dict[str, Any] = {}
    exec(source, dict(bound), made)         # noqa: S102 - our own field names, as dataclasses does
    return made["make"]


def _passes(value: Any, check: tuple[frozenset, frozenset | None]) -> bool:
    """Whether ``value`` passes a scalar's check of ``_trusted_plan`` (its type, its vocabulary)."""
    kinds, values = check
    return type(value) in kinds and (values is None or value in values)


#: Each class's constructor from a dict of its fields' values (``_maker``).
_MAKERS: dict[type, Callable[[Mapping[str, Any]], Event]] = {}
#: How many events of a kind its maker builds step by step before it writes the kind's compiled
#: maker: compiling one costs as much as building some fifty events step by step, and a short
#: command (``check`` of one duel: 19 kinds, most of them a few times) would compile for nothing,
#: while a long fold builds thousands of each kind it reads.
_COMPILE_AFTER = 128


def _maker(cls: type[Event], checks: Mapping[str, tuple[frozenset, frozenset | None]] | None = None
           ) -> Callable[[Mapping[str, Any]], Event]:
    """``cls(**values)`` without the frozen dataclass's ``__init__``, which sets each of up to
    twenty fields through ``object.__setattr__`` (half of decoding an event): each slot is set
    through its descriptor, an absent field to its default (all are immutable constants). Other
    keys (``kind``, ``v``) are ignored; the caller makes sure the required fields are there. With
    ``checks`` (``from_trusted_dict``'s) a field named there whose value's type, or the value
    itself, is not among those given raises TypeError (such a maker is not kept in ``_MAKERS``).
    The first ``_COMPILE_AFTER`` events go through a loop over the fields; then the class's
    straight-line maker (``_compiled_maker``) is written, builds the rest, and takes this one's
    place in ``_MAKERS`` (or ``_TRUSTED``): the same events, the same errors, either way."""
    steps = tuple((_slot(cls, f.name).__set__, f.name, _default(f), (checks or {}).get(f.name))
                  for f in _FIELDS[cls])
    uses = 0
    compiled: Callable[[Mapping[str, Any]], Event] | None = None

    def make(values: Mapping[str, Any]) -> Event:
        nonlocal uses, compiled
        if compiled is not None:
            return compiled(values)
        uses += 1
        if uses > _COMPILE_AFTER:
            compiled = _compiled_maker(cls, checks)
            if checks is None:
                _MAKERS[cls] = compiled
            elif cls in _TRUSTED:
                _TRUSTED[cls] = (*_TRUSTED[cls][:2], compiled)
            return compiled(values)
        event = new(cls)
        get = values.get
        for set_, name, default, check in steps:
            value = get(name, default)
            if check is not None and (type(value) not in check[0] or check[1] is not None and value not in check[1]):
                raise TypeError(name)
            set_(event, value)
        return event
    new = object.__new__
    if checks is None:
        _MAKERS[cls] = make
    return make


def _compiled_maker(cls: type[Event], checks: Mapping[str, tuple[frozenset, frozenset | None]] | None
                    ) -> Callable[[Mapping[str, Any]], Event]:
    """``_maker``'s second tier: the same in straight-line code written for the class, as
    ``dataclasses`` writes ``__init__``, filling the kind's twin (``_twin``)."""
    fields = _FIELDS[cls]
    bound: dict[str, Any] = {"new": object.__new__, "twin": _twin(cls), "cls": cls, "TypeError": TypeError,
                             "type": type}
    lines = []
    for i, f in enumerate(fields):
        bound[f"default{i}"] = _default(f)
        check = (checks or {}).get(f.name)
        if check is None:
            lines.append(f"    event.{f.name} = get({f.name!r}, default{i})")
            continue
        lines += _check_lines(i, f.name, check, f"get({f.name!r}, default{i})", bound)
    source = (f"def make(values, {', '.join(f'{name}={name}' for name in bound)}):\n"
              "    event = new(twin)\n    get = values.get\n" + "\n".join(lines)
              + "\n    event.__class__ = cls\n    return event\n")
    made: dict[str, Any] = {}
    exec(source, dict(bound), made)         # noqa: S102 - our own field names, as dataclasses does
    return made["make"]


def _check_lines(i: int, name: str, check: tuple[frozenset, frozenset | None], read: str,
                 bound: dict[str, Any]) -> list[str]:
    """A maker's lines setting field ``i`` to the value ``read`` gives, once its type (and value)
    passed ``check``: TypeError names the field when it does not."""
    kinds, bound[f"values{i}"] = check
    bound[f"types{i}"] = next(iter(kinds)) if len(kinds) == 1 else kinds
    test = (f"type(value) is not types{i}" if len(kinds) == 1 else f"type(value) not in types{i}") + (
        "" if check[1] is None else f" or value not in values{i}")
    return [f"    value = {read}", f"    if {test}:", f"        raise TypeError({name!r})", f"    event.{name} = value"]


#: Per kind: its twin (``_twin``).
_TWINS: dict[type, type] = {}


def _twin(cls: type[Event]) -> type:
    """A class of the same layout as the kind ``cls`` (its base, its slots) without the frozen
    ``__setattr__``: a compiled maker fills a twin's slots with plain attribute stores (which
    3.11 specialises to a direct slot write, some 5 ns each, once neither ``__setattr__`` nor
    ``__delattr__`` is Python's: they share one type slot) and then makes it a ``cls``
    (``event.__class__ = cls``, allowed between classes of one layout). Setting each slot
    through its descriptor's ``__set__`` instead took about 100 ns a field: most of building an
    ``activated`` (19 fields). The twin never leaves the maker: what it returns is a ``cls``,
    with the same fields, equality, hash, repr and pickling as ``cls(**fields)``."""
    twin = _TWINS.get(cls)
    if twin is None:
        twin = _TWINS[cls] = type(cls)(f"_{cls.__name__}Twin", cls.__bases__, {
            "__slots__": cls.__slots__, "__setattr__": object.__setattr__, "__delattr__": object.__delattr__,
            "__module__": cls.__module__,
            "__doc__": f"A {cls.__name__} being built (events._twin)."})
    return twin


def _slot(cls: type, name: str) -> Any:
    """The slot descriptor of field ``name`` (on ``cls`` or the base class that declares it)."""
    return next(klass.__dict__[name] for klass in cls.__mro__ if name in klass.__dict__)


#: Per class: its required fields, the (field, build) of fields whose wire form is not already
#: what the event holds, and its maker checking its scalars (``from_trusted_dict``).
_TRUSTED: dict[type, tuple[frozenset, tuple[tuple[str, Callable[[Any], Any]], ...],
                           Callable[[Mapping[str, Any]], Event]]] = {}
#: Per class: the scalars ``_trusted_plan`` checks, as ``_maker`` takes them.
_TRUSTED_CHECKS: dict[type, dict[str, tuple[frozenset, frozenset | None]]] = {}
_AS_IS = {"int": int, "str": str, "bool": bool}
_AS_TUPLE = frozenset(("tuple[int, ...]", "tuple[str, ...]", "tuple[bool, ...]"))


def _trusted_tuple(kind: type) -> Callable[[Any], tuple]:
    """A list of ``kind`` as a tuple (a string or a list of anything else is no such list)."""
    only = {kind}

    def build(value: Any) -> tuple:
        if type(value) is not list or value and set(map(type, value)) != only:
            raise TypeError(value)
        return tuple(value)
    return build


_TRUSTED_TUPLES = {f"tuple[{kind.__name__}, ...]": _trusted_tuple(kind) for kind in (int, str, bool)}


def _trusted_plan(cls: type[Event]) -> tuple[frozenset, tuple[tuple[str, Callable[[Any], Any]], ...],
                                            Callable[[Mapping[str, Any]], Event]]:
    """Scalars are taken as read once their type (and a player's 0 or 1, a vocabulary's word) is
    the field's, lists of scalars become tuples, a location a ``Loc``; any other shape (a cite,
    costs, a set-up side ...) is built by its checking builder, as rare as it is. Checking the
    scalars' types (and building the few fields ``_FIELD_BUILDERS`` knows more of with their
    builders) keeps a record altered and rechained with a value of the wrong type (an LP of 1.5
    or NaN, a player 7, a zone "zz", one damage) from folding into a board no checked record
    gives, or into a 500 when the board is served as JSON (NaN)."""
    plan, _ = _PLANS.get(cls) or _plan(cls)
    convert, checks = [], {}
    for f, (name, build, optional, _required, allowed) in zip(_FIELDS[cls], plan):
        base = f.type.removesuffix(" | None")
        if (cls.kind, name) in _FIELD_BUILDERS:      # more than its type says (a passcode, two damages)
            convert.append((name, build))
        elif base in _AS_TUPLE:
            convert.append((name, _TRUSTED_TUPLES[base]))
        elif base == "Loc":
            convert.append((name, _trusted_loc))
        elif base not in _AS_IS:
            convert.append((name, build))
        else:
            default = _default(f)
            kinds = {_AS_IS[base]} | ({type(None)} if optional or default is None else set())
            values = {0, 1} if name in PLAYER_FIELDS else set(allowed) if allowed else None
            if values is not None and default is not dataclasses.MISSING:
                values.add(default)
            checks[name] = (frozenset(kinds), None if values is None else frozenset(values) | {None})
    trusted = (frozenset(name for name, _b, _o, required, _c in plan if required), tuple(convert),
               _maker(cls, checks))
    _TRUSTED_CHECKS[cls] = checks                  # first: another thread's maker reads it once ``_TRUSTED`` has cls
    _TRUSTED[cls] = trusted
    return trusted


#: The locations ``_trusted_loc`` built, by their wire form: a duel names a few dozen, and a
#: ``Loc`` made again through its named tuple's ``__new__`` cost 0.3 us (a moved card names one
#: or two). At most ``_LOCS_MAX`` are kept (some 200 bytes each): altered records may name any.
_LOCS: dict[tuple, Loc] = {}
_LOCS_MAX = 4096


def _trusted_loc(value: Any) -> Loc:
    if type(value) is list:
        loc = _LOCS.get(key := tuple(value))     # an unhashable item: TypeError, from_dict says what
        if loc is not None:
            return loc
    if value[0] not in (0, 1) or value[1] not in ZONES:
        raise ValueError(value)
    loc = Loc(*value)
    if (type(value) is list and type(loc.controller) is int and (loc.index is None or type(loc.index) is int)
            and len(_LOCS) < _LOCS_MAX):
        _LOCS[key] = loc
    return loc


_Plan = tuple[tuple[tuple[str, Callable[[Any], Any], bool, bool, tuple[str, ...]], ...], frozenset]
_PLANS: dict[type, _Plan] = {}


def _plan(cls: type[Event]) -> _Plan:
    """How to build each field of an event class from the wire: worked out once per class."""
    steps = []
    for f in _FIELDS[cls]:
        base = f.type.removesuffix(" | None")
        build = _FIELD_BUILDERS.get((cls.kind, f.name)) or (
            _player if f.name in PLAYER_FIELDS else _BUILDERS[base])
        steps.append((f.name, build, f.type.endswith("| None"),
                      _default(f) is dataclasses.MISSING, choices(cls.kind, f.name)))
    plan = (tuple(steps), frozenset(f.name for f in _FIELDS[cls]) | {"kind", "v"})
    _PLANS[cls] = plan
    return plan


def choices(kind: str, name: str) -> tuple[str, ...]:
    """The closed vocabulary a field of an event kind takes (empty: any value of its type)."""
    key = (kind, name)
    if kind in _UNMADE:
        kind_class(kind)                        # its vocabularies are known once it is made
    return _CHOICES_BY_KIND[key] if key in _CHOICES_BY_KIND else _CHOICES.get(name, ())


# -- bounds of the wire form ----------------------------------------------------------------------
#
# A decoder is only as trustworthy as the largest thing it agrees to build. These are far above
# anything a duel holds, and far below what would hurt: msgpack (the store, .ygr files) and SQLite
# hold signed 64-bit integers, so a larger one would decode here and crash at export; cards.cdb
# and EDOPro passcodes are unsigned 32-bit; a lone surrogate ("\ud800" in JSON) is no character at
# all and crashes the first print of it.

#: Every integer of an event fits in a signed 64-bit integer.
INT_MIN, INT_MAX = -(1 << 63), (1 << 63) - 1
#: A passcode is an unsigned 32-bit integer; 0 is the hidden card of a redacted view.
PASSCODE_MAX = (1 << 32) - 1
#: At most 64 Ki characters a string (a judge's note is the longest text an event holds).
MAX_STRING = 1 << 16
#: At most 1,000 items a list: a deck has at most 60 + 15 + 15 cards, but deck sizes are the
#: rules' to judge (DECK-01..03), so the decoder leaves them room.
MAX_LIST = 1_000
#: A banlist names at most 20,000 cards (a whitelist of every card printed is some 13,000).
MAX_BANLIST = 20_000
#: How deeply a value the rules judge as a whole (a malformed set-up card, an unknown side key)
#: may nest before the decoder refuses it.
MAX_DEPTH = 16


class _Invalid(ValueError):
    """A bad value inside a field: ``path`` leads from the field to it (``[3]``, ``[0].mzone[2].atk``)."""

    def __init__(self, path: str, detail: str) -> None:
        super().__init__(detail)
        self.path = path
        self.detail = detail


class _Brief(reprlib.Repr):
    """Short reprs for error messages: a 1 MiB string or a 4,000-digit number is not repeated whole."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel, self.maxstring, self.maxother, self.maxlong = 3, 60, 60, 40
        self.maxlist = self.maxtuple = self.maxdict = self.maxset = 6

    def repr_int(self, x: int, level: int) -> str:
        if -10 ** 30 < x < 10 ** 30:
            return repr(x)
        return f"a {x.bit_length():,}-bit integer"      # never str(): past 4,300 digits it raises


_brief = _Brief().repr


def _listed(keys: set) -> str:
    """Unknown keys for a message: the first five, sorted, and how many in all."""
    shown = sorted(map(_brief, keys))
    return ", ".join(shown[:5]) + (f" … ({len(shown):,} in all)" if len(shown) > 5 else "")


def _int(value: Any) -> int:
    if type(value) is not int and (isinstance(value, bool) or not isinstance(value, int)):
        raise TypeError(say("expected an integer, got {brief}", brief=_brief(value)))
    if INT_MIN <= value <= INT_MAX:
        return value
    raise ValueError(say("{brief} does not fit in a signed 64-bit integer", brief=_brief(value)))


def _passcode(value: Any) -> int:
    if type(value) is not int and (isinstance(value, bool) or not isinstance(value, int)):
        raise TypeError(say("expected a passcode (an integer), got {brief}", brief=_brief(value)))
    if 0 <= value <= PASSCODE_MAX:
        return value
    raise ValueError(say("a passcode is 0..{passcode_max}, got {brief}",
                         passcode_max=PASSCODE_MAX, brief=_brief(value)))


#: Fields that name a player: 0 or 1 (null where the field allows it).
PLAYER_FIELDS = frozenset(("player", "first_player", "chosen_by", "turn_player", "to_player",
                           "controller", "winner"))


def _player(value: Any) -> int:
    if value not in (0, 1) or isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(say("a player is 0 or 1, got {brief}", brief=_brief(value)))
    return value


def _str(value: Any) -> str:
    if type(value) is not str and not isinstance(value, str):
        raise TypeError(say("expected a string, got {brief}", brief=_brief(value)))
    if len(value) > MAX_STRING:
        raise ValueError(say("a string of {got:,} characters, {brief}; at most {max_string:,}",
                             got=len(value), brief=_brief(value), max_string=MAX_STRING))
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(say("not valid Unicode: a lone surrogate {value!r} at character {start} of "
                                 "{brief}",
                                 value=value[exc.start], start=exc.start, brief=_brief(value))) from None
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(say("expected true or false, got {brief}", brief=_brief(value)))
    return value


def _seq(item: Callable[[Any], Any], least: int = 0, most: int = MAX_LIST,
         count: str = "") -> Callable[[Any], tuple]:
    """A list of ``item``: ``least`` to ``most`` of them (``count`` says why, for the message)."""
    def build(value: Any) -> tuple:
        if type(value) is not list and not isinstance(value, (list, tuple)):
            raise TypeError(say("expected a list, got {brief}", brief=_brief(value)))
        n = len(value)
        if n > most or n < least:
            if least == most:
                raise ValueError(say("expected {least} entries{count}, got {n:,}", least=least, count=count, n=n))
            if n < least:
                raise ValueError(say("expected at least {least} entries{count}, got {n:,}", least=least, count=count,
                                     n=n))
            raise ValueError(say("expected at most {most:,} entries{count}, got {n:,}", most=most, count=count, n=n))
        try:
            return tuple(map(item, value))
        except (TypeError, ValueError) as exc:
            for index, v in enumerate(value):        # which one: only on the error path
                try:
                    item(v)
                except _Invalid as inner:
                    raise _Invalid(f"[{index}]{inner.path}", inner.detail) from None
                except (TypeError, ValueError) as inner:
                    raise _Invalid(f"[{index}]", str(inner)) from None
            raise exc                                 # pragma: no cover - item() is deterministic
    return build


def _dict(value: Any) -> dict:
    if not isinstance(value, dict):
        raise TypeError(say("expected an object, got {brief}", brief=_brief(value)))
    return value


def _duel_option(value: Any) -> str:
    if not isinstance(value, str) or value not in DUEL_OPTIONS:
        raise ValueError(say("a duel option is one of {join}, got {brief}",
                             join=', '.join(DUEL_OPTIONS), brief=_brief(value)))
    return value


def _loc(value: Any) -> Loc:
    if not isinstance(value, (list, tuple)) or not 2 <= len(value) <= 3:
        raise TypeError(say("a location is [controller, zone, index], got {brief}", brief=_brief(value)))
    controller, zone = value[0], value[1]
    if controller not in (0, 1) or isinstance(controller, bool):
        raise ValueError(say("location controller must be 0 or 1, got {brief}", brief=_brief(controller)))
    if zone not in ZONES:
        raise ValueError(say("unknown zone {brief} (zones: {join})", brief=_brief(zone), join=', '.join(ZONES)))
    index = value[2] if len(value) == 3 else None
    if index is not None:
        _int(index)
    return Loc(controller, zone, index)


def _cite(value: Any) -> Cite:
    if isinstance(value, str):
        return Cite(card=_str(value))
    _dict(value)
    if set(value) - {"card", "effect"} or "card" not in value:
        raise ValueError(say("a cite is {{card, effect}}, got {brief}", brief=_brief(value)))
    return Cite(card=_str(value["card"]), effect=_str(value.get("effect", "")))


def _cost(value: Any) -> Cost:
    _dict(value)
    unknown = set(value) - {"lp", "card", "to", "reason"}
    if unknown:
        raise ValueError(say("unknown cost field(s) {listed}", listed=_listed(unknown)))
    cost = Cost(lp=_int(value.get("lp", 0)), card=value.get("card"), to=value.get("to"),
                reason=_str(value.get("reason", "cost")))
    if cost.to is not None and cost.to not in COST_ZONES:
        raise ValueError(say("a cost's 'to' is one of {join}, got {brief}",
                             join=', '.join(COST_ZONES), brief=_brief(cost.to)))
    if cost.lp < 0:
        raise ValueError(say("an LP cost is not negative, got {lp}", lp=cost.lp))
    if cost.card is not None:
        _str(cost.card)
        if cost.to is None:
            raise ValueError(say("a card cost needs 'to' ({join})", join=', '.join(COST_ZONES)))
    elif cost.lp == 0:
        raise ValueError(say("a cost pays LP (lp > 0) or moves a card"))
    return cost


def _banlist(value: Any) -> BanlistRef:
    """``{name, hash, limits, whitelist}``: limits are ``[passcode, copies]`` pairs, each passcode
    once, copies 0 or more. Whether the hash matches the content is the rules' to judge (LOG-05)."""
    _dict(value)
    unknown = set(value) - {"name", "hash", "limits", "whitelist"}
    if unknown:
        raise ValueError(say("unknown banlist field(s) {listed}", listed=_listed(unknown)))
    for key in ("name", "hash"):
        if key not in value:
            raise ValueError(say("a banlist needs its {key!r}", key=key))
    pairs = []
    pairs_of = _seq(_seq(_int, least=2, most=2, count=N_(" ([passcode, copies])")), most=MAX_BANLIST)
    for pair in pairs_of(value.get("limits", [])):
        code, count = pair
        _passcode(code)
        if count < 0:
            raise ValueError(say("copies allowed are 0 or more, got {count} for passcode {code}",
                                 count=count, code=code))
        pairs.append((code, count))
    if len({code for code, _ in pairs}) != len(pairs):
        raise ValueError(say("a banlist names each passcode once"))
    return BanlistRef(name=_str(value["name"]), hash=_str(value["hash"]), limits=tuple(sorted(pairs)),
                      whitelist=_bool(value.get("whitelist", False)))


# -- position_set_up.sides ------------------------------------------------------------------------
#
# The decoder checks the shape and the types of a set-up side; the rules (``rules.setup``) judge
# whether the board can exist, naming the rule: how many zones a side lists (ZONE-01, ZONE-08), a
# negative LP, a Token face-down (TOKEN-02), materials on a monster that is no Xyz (XMAT-01) ...
# Where the rules already refuse a malformed value with LOG-05 ("side 0 has unknown keys", "a card
# is a passcode or an object", "counters are an object and materials a list", a side count or a
# flag count other than two) the decoder leaves it to them, after checking it is a bounded plain
# value, so a duel file says the same thing it always said about it.

_SIDE_ZONES = (DECK, HAND, GY, BANISHED, EXTRA, MZONE, SZONE)
_FLAGS = ("summoned", "set", "position_changed", "attacked", "properly_summoned", "token")


def _plain(value: Any, path: str, depth: int = 0) -> None:
    """A JSON value (null, true/false, number, string, list, object) within the bounds, any shape."""
    kind = type(value)
    if kind is int or kind is str:
        try:
            _int(value) if kind is int else _str(value)
        except (TypeError, ValueError) as exc:
            raise _Invalid(path, str(exc)) from None
    elif value is None or kind is bool or kind is float:
        pass
    elif isinstance(value, (list, tuple, dict)):
        if depth >= MAX_DEPTH:
            raise _Invalid(path, say("nested more than {max_depth} deep", max_depth=MAX_DEPTH))
        if len(value) > MAX_LIST:
            raise _Invalid(path, say("expected at most {max_list:,} entries, got {got:,}",
                                     max_list=MAX_LIST, got=len(value)))
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise _Invalid(path, say("an object's keys are strings, got {brief}", brief=_brief(key)))
                _plain(key, path, depth + 1)
                _plain(item, f"{path}{_step(key)}", depth + 1)
        else:
            for index, item in enumerate(value):
                _plain(item, f"{path}[{index}]", depth + 1)
    elif isinstance(value, (int, str)):      # subclasses (an IntEnum, a str subclass)
        _plain(int(value) if isinstance(value, int) else str(value), path, depth)
    else:
        raise _Invalid(path, say("expected a JSON value, got {name}", name=type(value).__name__))


def _step(key: str) -> str:
    """One step of a path: ``.mzone``, or ``['a key']`` for a key that is no short name."""
    return f".{key}" if len(key) <= 40 and key.isidentifier() else f"[{_brief(key)}]"


def _checked(build: Callable[[Any], Any], value: Any, path: str) -> Any:
    try:
        return build(value)
    except (TypeError, ValueError) as exc:
        raise _Invalid(path, str(exc)) from None


def _owner(value: Any) -> int:
    if type(value) is not int or value not in (0, 1):
        raise ValueError(say("an owner is player 0 or 1, got {brief}", brief=_brief(value)))
    return value


def _card_id(value: Any) -> str:
    if _str(value) == "":
        raise ValueError(say("a card id is a non-empty string, got ''"))
    return value


def _spec_position(value: Any) -> str | None:
    if value is not None and (not isinstance(value, str) or value not in POSITIONS):
        raise ValueError(say("a position is one of {join} (or null), got {brief}",
                             join=', '.join(POSITIONS), brief=_brief(value)))
    return value


def _optional_int(value: Any) -> int | None:
    return None if value is None else _int(value)


_SPEC_CHECKS: dict[str, Callable[[Any], Any]] = {
    "code": _passcode, "id": _card_id, "owner": _owner, "position": _spec_position,
    "atk": _optional_int, "defense": _optional_int, "level": _optional_int,
    **{flag: _bool for flag in _FLAGS}}
#: The keys of a set-up card spec (the same as ``rules.setup._CARD_FLAGS``; a test keeps them equal).
SPEC_KEYS = frozenset(_SPEC_CHECKS) | {"counters", "materials"}


def _card_spec(spec: Any, path: str, material: bool = False) -> None:
    """A passcode, or an object with ``code`` and known keys of the right types."""
    if isinstance(spec, int) and not isinstance(spec, bool):
        _checked(_passcode, spec, path)
        return
    if not isinstance(spec, dict):
        _plain(spec, path)          # a name, a list …: the rules say "a card is a passcode or an object"
        return
    if "code" not in spec:
        raise _Invalid(path, say("a card object needs its passcode 'code', got {brief}", brief=_brief(spec)))
    for key, value in spec.items():
        check = _SPEC_CHECKS.get(key) if isinstance(key, str) else None
        if check is not None:
            _checked(check, value, f"{path}.{key}")
        elif key == "counters":
            if not isinstance(value, dict):
                _plain(value, f"{path}.counters")          # the rules: "counters are an object"
                continue
            if len(value) > MAX_LIST:
                raise _Invalid(f"{path}.counters", say("expected at most {max_list:,} counters, got "
                                                       "{got:,}",
                                                       max_list=MAX_LIST, got=len(value)))
            for name, count in value.items():
                _checked(_str, name, f"{path}.counters")
                where = f"{path}.counters[{_brief(name)}]"
                if _checked(_int, count, where) < 0:
                    raise _Invalid(where, say("a count is 0 or more, got {count}", count=count))
        elif key == "materials":
            if not isinstance(value, list):
                _plain(value, f"{path}.materials")         # the rules: "materials a list"
                continue
            if material and value:
                raise _Invalid(f"{path}.materials", say("a material has no materials of its own"))
            if len(value) > MAX_LIST:
                raise _Invalid(f"{path}.materials", say("expected at most {max_list:,} entries, got "
                                                        "{got:,}",
                                                        max_list=MAX_LIST, got=len(value)))
            for index, item in enumerate(value):
                _card_spec(item, f"{path}.materials[{index}]", material=True)
        else:
            raise _Invalid(path, say("unknown card key {brief} (keys: {join})",
                                     brief=_brief(key), join=', '.join(sorted(SPEC_KEYS))))


def _side(spec: Any, path: str) -> None:
    if not isinstance(spec, dict):
        raise _Invalid(path, say("a side is an object, got {brief}", brief=_brief(spec)))
    if len(spec) > MAX_LIST:
        raise _Invalid(path, say("expected at most {max_list:,} keys, got {got:,}",
                                 max_list=MAX_LIST, got=len(spec)))
    for key, value in spec.items():
        if not isinstance(key, str):
            raise _Invalid(path, say("a side's keys are zone names, got {brief}", brief=_brief(key)))
        where = f"{path}{_step(key)}"
        if key == "lp":
            _checked(_int, value, where)                   # a negative LP: LOG-05 from the rules
        elif key in _SIDE_ZONES:
            if not isinstance(value, list):
                raise _Invalid(where, say("expected a list, got {brief}", brief=_brief(value)))
            if len(value) > MAX_LIST:
                raise _Invalid(where, say("expected at most {max_list:,} entries, got {got:,}",
                                          max_list=MAX_LIST, got=len(value)))
            for index, item in enumerate(value):       # how many zones: ZONE-01/08 from the rules
                # a bare passcode (most of a set-up's cards) needs no path made: its check inline
                if item is not None and (item.__class__ is not int or not 0 <= item <= PASSCODE_MAX):
                    _card_spec(item, f"{where}[{index}]")
        elif key == FZONE:
            if value is not None:
                _card_spec(value, where)
        else:
            _checked(_str, key, path)                      # unknown zone: LOG-05 from the rules
            _plain(value, where)


def _sides(value: Any) -> tuple[dict, ...]:
    """At most two sides (a third has no player; fewer than two is LOG-05 for the rules), each
    an object of bounded, well-typed zones."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(say("expected a list, got {brief}", brief=_brief(value)))
    if len(value) > 2:
        raise ValueError(say("expected 2 sides (one per player), got {got:,}", got=len(value)))
    for index, side in enumerate(value):
        _side(side, f"[{index}]")
    return tuple(value)


def _shows(value: Any) -> Shows:
    """``{card id: passcode}``: at most ``MAX_LIST`` cards, each a known passcode (1..)."""
    if not isinstance(value, dict):
        raise TypeError(say("expected an object {{card id: passcode}}, got {brief}", brief=_brief(value)))
    if len(value) > MAX_LIST:
        raise ValueError(say("at most {max_list:,} cards, got {got:,}",
                             max_list=MAX_LIST, got=len(value)))
    pairs = []
    for card_id, code in value.items():
        try:
            code = _passcode(code)
        except (TypeError, ValueError) as exc:
            raise _Invalid(f"[{_brief(card_id)}]", str(exc)) from None
        if code == 0:
            raise _Invalid(f"[{_brief(card_id)}]", say("shows a card as a passcode: 0 is the unknown card "
                                                       "itself"))
        pairs.append((_str(card_id), code))
    return Shows(sorted(pairs))


def _seals(value: Any) -> Seals:
    """``{card id: "sha256:<64 hex>"}``: at most ``MAX_LIST`` cards."""
    if not isinstance(value, dict):
        raise TypeError(say("expected an object {{card id: seal}}, got {brief}", brief=_brief(value)))
    if len(value) > MAX_LIST:
        raise ValueError(say("at most {max_list:,} cards, got {got:,}",
                             max_list=MAX_LIST, got=len(value)))
    for card_id, digest in value.items():
        if not isinstance(digest, str) or not seals.is_digest(digest):
            raise _Invalid(f"[{_brief(card_id)}]", say("a seal is 'sha256:' and 64 lower-case hex digits, "
                                                       "got {brief}",
                                                       brief=_brief(digest)))
    return Seals(sorted((_card_id(card_id), digest) for card_id, digest in value.items()))


def _openings(value: Any) -> Openings:
    """``{card id: {"code": passcode, "nonce": hex}}``: a passcode 1.., the nonce as ``seals.seal``
    gives it (or none, for a card never sealed)."""
    if not isinstance(value, dict):
        raise TypeError(say("expected an object {{card id: {{code, nonce}}}}, got {brief}", brief=_brief(value)))
    if len(value) > MAX_LIST:
        raise ValueError(say("at most {max_list:,} cards, got {got:,}",
                             max_list=MAX_LIST, got=len(value)))
    opened = []
    for card_id, item in value.items():
        where = f"[{_brief(card_id)}]"
        if not isinstance(item, dict) or "code" not in item or set(item) - {"code", "nonce"}:
            raise _Invalid(where, say("an opening is {{code, nonce}}, got {brief}", brief=_brief(item)))
        code = _checked(_passcode, item["code"], f"{where}.code")
        if code == 0:
            raise _Invalid(f"{where}.code", say("opens a card as a passcode: 0 is the unknown card itself"))
        nonce = item.get("nonce", "")
        if not isinstance(nonce, str) or nonce and not seals.is_nonce(nonce):
            raise _Invalid(f"{where}.nonce", say("a nonce is 16 to 64 bytes in lower-case hex, got "
                                                 "{brief}",
                                                 brief=_brief(nonce)))
        opened.append(Opening(_card_id(card_id), code, nonce))
    return Openings(sorted(opened))


_BUILDERS: dict[str, Callable[[Any], Any]] = {
    "Seals": _seals, "Openings": _openings,
    "Shows": _shows, "int": _int, "str": _str, "bool": _bool, "Loc": _loc, "Cite": _cite,
    "tuple[int, ...]": _seq(_int), "tuple[str, ...]": _seq(_str), "tuple[bool, ...]": _seq(_bool),
    "tuple[dict, ...]": _seq(_dict), "tuple[Cost, ...]": _seq(_cost), "BanlistRef": _banlist,
}

#: Fields whose annotation says less than the decoder checks.
_FIELD_BUILDERS: dict[tuple[str, str], Callable[[Any], Any]] = {
    ("deck_registered", "main"): _seq(_passcode),
    ("deck_registered", "extra"): _seq(_passcode),
    ("deck_registered", "side"): _seq(_passcode),
    ("token_created", "code"): _passcode,
    ("duel_started", "options"): _seq(_duel_option, most=len(DUEL_OPTIONS)),
    # The log and the views read damage[0] and damage[1]; a third entry is LOG-05 for the rules.
    ("damage_calculated", "damage"): _seq(_int, least=2, count=N_(" (damage to player 0, to player 1)")),
    # One flag per player: more cannot mean anything; fewer is LOG-05 for the rules.
    ("position_set_up", "normal_summon_used"): _seq(_bool, most=2, count=N_(" (one per player)")),
    ("position_set_up", "pendulum_summon_used"): _seq(_bool, most=2, count=N_(" (one per player)")),
    ("position_set_up", "sides"): _sides,
}


def register(builders: dict[tuple[str, str], Callable[[Any], Any]]) -> None:
    """Add the decoders of fields whose annotation says less than they hold, for kinds defined
    elsewhere (the match stream: ``match/events.py``), keyed ``(kind, field)`` like ``_FIELD_BUILDERS``.

    Kinds themselves register by being defined (``@event_kind``): one registry means one decoder,
    one wire form, one hash chain, one ``.ygr`` body and one set of JSON Schemas for every stream;
    each fold refuses a kind of the other stream (LOG-03)."""
    unknown = [f"{kind}.{name}" for kind, name in builders
               if (cls := kind_class(kind)) is None or name not in {f.name for f in _FIELDS[cls]}]
    if unknown:
        raise ValueError(say("decoders for no field of a known kind: {names_list}",
                             names_list=', '.join(unknown)))
    _FIELD_BUILDERS.update(builders)

