"""JSON Schema (draft 2020-12) for the event wire form, generated from ``ygoreplay.events``.

The schemas are derived, not written: field names, types, defaults and which fields are required
come from the event dataclasses, and enums from the same vocabularies ``from_dict`` checks
(``_CHOICES``, ``_CHOICES_BY_KIND``, ``ZONES``). So a new field or vocabulary word reaches the
schema by regenerating it, and the schema accepts what ``from_dict`` accepts. Other tools (editors,
other languages, a web form) can then check a duel file without running this package.

The only hand-written parts are those the annotations cannot express: the shape of a ``Cost``
(``events._cost``, whose accepted zones are probed) and the ``position_set_up`` side object and
its card specs. ``from_dict`` takes any dicts there and the rules engine (``rules.setup._Builder``,
whose accepted card keys are reused) checks them, so there the schema is the stricter of the two.

The replay file (``.ygr``, ``ygoreplay.replay_file``) gets two more: ``replay_file/header.json``
and ``replay_file/body.json``, the header map and the decoded body map, the latter with the event
schemas and the card facts (``CardFacts.to_dict``) as ``$defs``. Both maps are msgpack, whose binary
values JSON has no type for: validate their *JSON form* (``json_form``: bin as base64 text).

Run ``python -m ygoreplay.schema [DIR]`` to (re)write ``DIR/event.json``,
``DIR/events/<kind>.json`` and ``DIR/replay_file/{header,body}.json`` (``DIR`` defaults to
``schemas/`` at the repository root).
"""
from __future__ import annotations

import base64
import dataclasses
import inspect
import json
import sys
from pathlib import Path
from typing import Any

from . import cards as _cards, events
from .match import events as match_events
from .events import (
    BANISHED, DECK, EVENT_TYPES, EXTRA, FZONE, GY, HAND, MZONE, POSITIONS, SZONE, ZONES, Cite,
    Cost, Event, EventFormatError)
from .rules.setup import _CARD_FLAGS
from .rulesets import RULESETS

DRAFT = "https://json-schema.org/draft/2020-12/schema"
DEFAULT_DIR = Path(__file__).resolve().parent.parent / "schemas"
PLAYERS = (0, 1)

_NULL = {"type": "null"}


def _ref(name: str) -> dict:
    return {"$ref": f"#/$defs/{name}"}


# -- field annotations -> schemas ---------------------------------------------------------------
# Keyed exactly like events._BUILDERS, so a new annotation there fails here until it has a schema.

_BASE: dict[str, dict] = {
    "int": {"type": "integer"},
    "str": {"type": "string"},
    "bool": {"type": "boolean"},
    "Loc": _ref("Loc"),
    "Cite": _ref("Cite"),
    "BanlistRef": _ref("Banlist"),
    "tuple[int, ...]": {"type": "array", "items": {"type": "integer"}},
    "tuple[str, ...]": {"type": "array", "items": {"type": "string"}},
    "tuple[bool, ...]": {"type": "array", "items": {"type": "boolean"}},
    "tuple[dict, ...]": {"type": "array", "items": {"type": "object"}},
    "tuple[Cost, ...]": {"type": "array", "items": _ref("Cost")},
    "Shows": {"type": "object", "maxProperties": events.MAX_LIST,
              "additionalProperties": {"type": "integer", "minimum": 1, "maximum": events.PASSCODE_MAX},
              "description": "The cards this event shows, {card id: passcode}: a card the record did not "
                             "know (passcode 0: drawn, Set, in a hidden hand) is that card from here on."},
    "Seals": {"type": "object", "maxProperties": events.MAX_LIST,
              "additionalProperties": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
              "description": "{card id: seal}: each a SHA-256 of the card's passcode and a secret nonce "
                             "(ygoreplay.seals), written by the device of the player who holds it."},
    "Openings": {"type": "object", "maxProperties": events.MAX_LIST,
                 "additionalProperties": {
                     "type": "object", "additionalProperties": False, "required": ["code"],
                     "properties": {"code": {"type": "integer", "minimum": 1, "maximum": events.PASSCODE_MAX},
                                    "nonce": {"type": "string", "pattern": "^([0-9a-f]{2}){16,64}$"}}},
                 "description": "{card id: {code, nonce}}: the passcode of each card opened and the nonce "
                                "of its seal (none for a card never sealed)."},
}

#: Fields whose annotation says less than their documented structure.
_OVERRIDES: dict[tuple[str, str], dict] = {
    ("position_set_up", "sides"): {
        "type": "array", "items": _ref("Side"), "minItems": 2, "maxItems": 2,
        "description": "One side per player, player 0 first."},
    ("duel_started", "options"): {
        "type": "array", "items": {"type": "string", "enum": list(events.DUEL_OPTIONS)},
        "maxItems": len(events.DUEL_OPTIONS),
        "description": "Settings agreed on or set by the room in place of the basic rules' (CONF-01)."},
    # the match stream (match/events.py)
    ("match_started", "players"): {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2,
                                   "description": "Player 0's name, then player 1's."},
    ("match_started", "limits"): {
        "type": "array", "description": "The banlist's entries: passcode and copies allowed (DECK-08).",
        "items": {"type": "object", "additionalProperties": False, "required": ["code", "limit"],
                  "properties": {"code": {"type": "integer", "minimum": 0, "maximum": events.PASSCODE_MAX},
                                 "limit": {"type": "integer", "minimum": 0, "maximum": 3}}}},
    ("game_decided", "lp"): {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
                             "description": "Player 0's LP, then player 1's."},
    ("time_called", "clock"): {"type": "string", "maxLength": 32, "format": "date-time",
                               "pattern": match_events.CLOCK_PATTERN, "description": match_events.CLOCK_FORMAT},
    ("match_ended", "games"): {"type": "array", "items": {"type": "integer"}, "minItems": 3, "maxItems": 3,
                               "description": "Duels won by player 0, by player 1, drawn."},
    ("match_ended", "points"): {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
                                "description": "Standing points of player 0, of player 1."},
    **{("decklist_registered", part): {"type": "array", "items": {"type": "integer", "minimum": 0,
                                                                   "maximum": events.PASSCODE_MAX}}
       for part in ("main", "extra", "side")},
    **{("side_deck_swapped", part): {"type": "array", "items": {"type": "integer", "minimum": 0,
                                                                 "maximum": events.PASSCODE_MAX}}
       for part in ("main_out", "main_in", "extra_out", "extra_in")},
}


def field_choices(kind: str, name: str) -> tuple | None:
    """The closed vocabulary of an event field (``events.choices``; players are 0 or 1); None if free."""
    if name in events.PLAYER_FIELDS:
        return (0, 1)
    return events.choices(kind, name) or None


def _field_schema(kind: str, name: str, annotation: str, default: Any, vocab: bool) -> dict:
    """One field: the annotation's type, its vocabulary if it has one, null if ``| None``.

    ``vocab`` is for event fields only: a Cost's ``reason`` is not an event's ``reason``."""
    optional = annotation.endswith("| None")
    base = annotation.removesuffix(" | None")
    if (kind, name) in _OVERRIDES:
        schema = dict(_OVERRIDES[(kind, name)])
    elif base in _BASE:
        schema = dict(_BASE[base])
    else:
        raise TypeError(f"{kind}.{name}: no JSON Schema for annotation {annotation!r}")
    choices = field_choices(kind, name) if vocab else None
    if choices is not None:
        schema["enum"] = list(choices)
    if optional:
        if "$ref" in schema:
            schema = {"anyOf": [schema, _NULL]}
        elif "enum" in schema:
            schema["type"] = [schema["type"], "null"]
            schema["enum"] = schema["enum"] + [None]
        else:
            schema["type"] = [schema["type"], "null"]
    if default is not dataclasses.MISSING:
        schema["default"] = events._to_wire(default)
    return schema


def _object(kind: str, fields: tuple[dataclasses.Field, ...],
            vocab: bool = True) -> tuple[dict, list[str]]:
    properties = {f.name: _field_schema(kind, f.name, f.type, events._default(f), vocab)
                  for f in fields}
    required = [f.name for f in fields if events._default(f) is dataclasses.MISSING]
    return properties, required


def _doc(cls: type) -> str | None:
    """The class's own docstring (not the signature dataclass puts there when it has none)."""
    doc = cls.__doc__
    if not doc or doc.startswith(f"{cls.__name__}("):
        return None
    return inspect.cleandoc(doc)


# -- shared definitions -------------------------------------------------------------------------

def _accepted(build: Any, value: Any) -> bool:
    try:
        build(value)
    except (TypeError, ValueError, EventFormatError):
        return False
    return True


def _cost_zones() -> list[str]:
    """The zones a card paid as a cost may go to: whatever ``events._cost`` accepts."""
    return [z for z in ZONES if _accepted(events._cost, {"card": "p0.m0", "to": z})]


def _loc_def() -> dict:
    return {
        "description": "Where a card is: [controller, zone] or [controller, zone, index].",
        "type": "array", "minItems": 2, "maxItems": 3,
        "prefixItems": [
            {"type": "integer", "enum": list(PLAYERS)},
            {"type": "string", "enum": list(ZONES)},
            {"type": ["integer", "null"]},
        ],
    }


def _cite_def() -> dict:
    properties, required = _object("cite", dataclasses.fields(Cite), vocab=False)
    return {
        "description": _doc(Cite) + " A bare string is the card alone.",
        "anyOf": [
            {"type": "string"},
            {"type": "object", "properties": properties, "required": required,
             "additionalProperties": False},
        ],
    }


def _cost_def() -> dict:
    properties, required = _object("cost", dataclasses.fields(Cost), vocab=False)
    if required:
        raise TypeError("Cost has required fields now: update the if/then/else below")
    return {
        "description": _doc(Cost) + " A card cost names where the card goes; else lp > 0.",
        "type": "object", "properties": properties, "additionalProperties": False,
        "if": {"required": ["card"], "properties": {"card": {"type": "string"}}},
        "then": {"required": ["to"], "properties": {"to": {"enum": _cost_zones()}}},
        "else": {"required": ["lp"], "properties": {"lp": {"minimum": 1}}},
    }


#: Types of the card-spec keys ``rules.setup._Builder`` reads (its ``_CARD_FLAGS``).
_CARD_KEYS: dict[str, dict] = {
    "code": {"type": "integer", "description": "The passcode."},
    "id": {"type": "string", "description": "Instance id; by default p<owner>.s<n> (t<n> for a token)."},
    "owner": {"type": "integer", "enum": list(PLAYERS),
              "description": "Owner, if not the side the card is listed on."},
    "position": {"type": ["string", "null"], "enum": list(POSITIONS) + [None]},
    "summoned": {"type": "boolean", "description": "Summoned this turn."},
    "set": {"type": "boolean", "description": "Set this turn."},
    "position_changed": {"type": "boolean", "description": "Position changed this turn."},
    "attacked": {"type": "boolean", "description": "Attacked this turn."},
    "materials": {"type": "array", "items": _ref("SetupCard"),
                  "description": "Xyz materials attached to it."},
    "atk": {"type": ["integer", "null"]},
    "defense": {"type": ["integer", "null"]},
    "level": {"type": ["integer", "null"]},
    "counters": {"type": "object", "additionalProperties": {"type": "integer"},
                 "description": "Counter name -> count."},
    "properly_summoned": {"type": "boolean"},
    "token": {"type": "boolean"},
}


def _setup_card_def() -> dict:
    missing = set(_CARD_FLAGS) ^ set(_CARD_KEYS)
    if missing:
        raise TypeError(f"set-up card keys changed ({', '.join(sorted(missing))}): update _CARD_KEYS")
    return {
        "description": "A card in a set-up position: a passcode, or an object with its state.",
        "anyOf": [
            {"type": "integer"},
            {"type": "object", "required": ["code"], "additionalProperties": False,
             "properties": {k: _CARD_KEYS[k] for k in sorted(_CARD_FLAGS)}},
        ],
    }


def _side_def() -> dict:
    card, slot = _ref("SetupCard"), {"anyOf": [_ref("SetupCard"), _NULL]}
    pile = {"type": "array", "items": card}
    return {
        "description": "One player's side of a set-up position; zones not given are empty.",
        "type": "object", "additionalProperties": False,
        "properties": {
            "lp": {"type": "integer", "minimum": 0, "default": 8000},
            DECK: pile | {"description": "Top card first."},
            HAND: pile, GY: pile, BANISHED: pile, EXTRA: pile,
            MZONE: {"type": "array", "items": slot, "maxItems": 7,
                    "description": "Slots 0-4 main, 5-6 extra monster zones; null is empty."},
            SZONE: {"type": "array", "items": slot, "maxItems": 7,
                    "description": "Slots 0-4 (0 and 4 double as Pendulum Zones); 5-6 are the separate "
                                   "Pendulum Zones under Master Rule 3 only; null is empty."},
            FZONE: slot,
        },
    }


def _banlist_def() -> dict:
    return {
        "description": _doc(events.BanlistRef),
        "type": "object", "required": ["name", "hash"], "additionalProperties": False,
        "properties": {
            "name": {"type": "string"},
            "hash": {"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
            "limits": {"type": "array", "maxItems": events.MAX_BANLIST, "default": [],
                       "items": {"type": "array", "minItems": 2, "maxItems": 2,
                                 "prefixItems": [{"type": "integer", "minimum": 1},
                                                 {"type": "integer", "minimum": 0}]},
                       "description": "[passcode, copies allowed], each passcode once, by passcode."},
            "whitelist": {"type": "boolean", "default": False,
                          "description": "Unlisted cards are forbidden."},
        },
    }


def _shared_defs() -> dict[str, dict]:
    return {"Loc": _loc_def(), "Cite": _cite_def(), "Cost": _cost_def(), "Banlist": _banlist_def(),
            "Side": _side_def(), "SetupCard": _setup_card_def()}


# -- per-kind and umbrella schemas --------------------------------------------------------------

def _kind_body(cls: type[Event]) -> dict:
    properties, required = _object(cls.kind, dataclasses.fields(cls))
    properties = {"kind": {"const": cls.kind},
                  "v": {"type": "integer", "minimum": 1, "maximum": cls.VERSION, "default": 1,
                        "description": "shape version; older versions are upcast on reading"},
                  **properties}
    required = ["kind", *required]
    body = {"title": cls.kind, "type": "object", "properties": properties, "required": required,
            "additionalProperties": False}
    if _doc(cls):
        body["description"] = _doc(cls)
    return body


def _used_defs(node: Any, defs: dict[str, dict], seen: set[str] | None = None) -> set[str]:
    """The shared $defs a schema refers to, directly or through other $defs."""
    seen = set() if seen is None else seen
    if isinstance(node, dict):
        ref = node.get("$ref", "")
        name = ref.removeprefix("#/$defs/")
        if ref.startswith("#/$defs/") and name not in seen:
            seen.add(name)
            _used_defs(defs[name], defs, seen)
        for value in node.values():
            _used_defs(value, defs, seen)
    elif isinstance(node, list):
        for value in node:
            _used_defs(value, defs, seen)
    return seen


def event_schema(kind: str) -> dict:
    """The standalone schema of one event kind (with just the $defs it uses)."""
    cls = EVENT_TYPES.get(kind)
    if cls is None:
        raise KeyError(f"unknown event kind {kind!r}")
    body = _kind_body(cls)
    defs = _shared_defs()
    used = _used_defs(body, defs)
    schema = {"$schema": DRAFT, **body}
    if used:
        schema["$defs"] = {name: defs[name] for name in sorted(used)}
    return schema


def _event_union() -> dict:
    """Any event, as ``if kind == k then #/$defs/k`` branches (the $defs are the caller's)."""
    kinds = list(EVENT_TYPES)
    return {
        "title": "ygoreplay event",
        "description": inspect.cleandoc("""
            One duel event in its wire form (ygoreplay.events, version 1 vocabulary): an object
            whose "kind" names its shape. A JSON Lines duel file is one such object per line."""),
        "type": "object",
        "required": ["kind"],
        "properties": {"kind": {"enum": kinds}},
        "allOf": [{"if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
                   "then": _ref(kind)} for kind in kinds],
    }


def _event_defs() -> dict[str, dict]:
    """The shared definitions and one per event kind, named by its kind."""
    return {**_shared_defs(), **{kind: _kind_body(cls) for kind, cls in EVENT_TYPES.items()}}


def umbrella_schema() -> dict:
    """Any event: the schema of the kind its ``kind`` names (all kinds in one file).

    The union is discriminated with ``if kind == k then <k's schema>`` rather than a plain
    ``oneOf``: a validator then checks only the one schema that applies, so an error names the
    bad field instead of "not valid under any of the given schemas", and it is faster."""
    return {"$schema": DRAFT, **_event_union(), "$defs": _event_defs()}


# -- the replay file (.ygr) -------------------------------------------------------------------------

def json_form(value: Any) -> Any:
    """A decoded msgpack value as JSON has it, for validation: bin as base64 text, tuples as lists."""
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, dict):
        return {key: json_form(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_form(item) for item in value]
    return value


_BASE64 = "(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?"


def _bin(description: str, size: int | None = None) -> dict:
    """A msgpack bin value, in the JSON form base64 text (of exactly ``size`` bytes if given)."""
    if size is None:
        pattern = _BASE64
    else:
        full, rest = divmod(size, 3)
        pattern = f"[A-Za-z0-9+/]{{{4 * full + (rest and rest + 1)}}}{'=' * (rest and 3 - rest)}"
    return {"type": "string", "contentEncoding": "base64", "pattern": f"^{pattern}$",
            "description": f"{description} (msgpack bin; base64 in the JSON form)"}


def _card_facts_def() -> dict:
    """``CardFacts.to_dict``: code, name and type always, the other fields when off their default."""
    u8 = {"type": "integer", "minimum": 0, "maximum": 255}
    flags = {"type": "integer", "minimum": 0}
    stat = {"type": "integer", "anyOf": [{"minimum": 0}, {"const": -2}]}
    known = {
        "code": {"type": "integer", "minimum": 1, "description": "The passcode."},
        "name": {"type": "string", "minLength": 1},
        "type": flags | {"description": "cards.cdb type bits."},
        "level": u8 | {"description": "Level, Rank or Link rating."},
        "atk": stat | {"description": "-2 is a printed '?'."},
        "defense": stat | {"description": "-2 is a printed '?'; absent for a Link monster."},
        "attribute": flags, "race": flags, "lscale": u8, "rscale": u8,
        "link_markers": flags | {"description": "Link arrows (bits); 0 unless a Link monster."},
        "alias": flags | {"description": "The passcode this card is a version of (0: none)."},
    }
    names = [f.name for f in dataclasses.fields(_cards.CardFacts)]
    if set(names) ^ set(known):
        raise TypeError(f"CardFacts fields changed ({', '.join(sorted(set(names) ^ set(known)))}): "
                        "update _card_facts_def")
    properties = {}
    for name in names:
        properties[name] = dict(known[name])
        if name in _cards._DEFAULTS:
            properties[name]["default"] = _cards._DEFAULTS[name]
    return {
        "description": "One card's rules-relevant facts, encoded as in cards.cdb (CardFacts.to_dict).",
        "type": "object", "properties": properties,
        "required": [name for name in _cards._REQUIRED if name != "name"],   # format 2: "Card <code>" left out
        "additionalProperties": False,
    }


def replay_header_schema() -> dict:
    """The header map of a ``.ygr`` file (uncompressed, readable without the body)."""
    from .replay_file import FORMAT_VERSION, VIEWS
    return {
        "$schema": DRAFT,
        "title": "ygoreplay replay file header",
        "description": inspect.cleandoc("""
            The msgpack map at byte 16 of a .ygr file (its length is the u32 at byte 12): what
            the file is, for whom, and the ends of its hash chain. See schemas/README.md for
            the byte layout around it."""),
        "type": "object",
        "required": ["format", "view", "ruleset", "players", "match", "created", "events",
                     "cards", "root", "head", "source"],
        "dependentRequired": {"size": ["dict"], "dict": ["size"]},
        "additionalProperties": False,
        "properties": {
            "format": {"type": "integer", "minimum": 1, "maximum": FORMAT_VERSION,
                       "description": "The format version, as in the u16 at byte 8 (1: names always "
                                      "present; 2: a card named only \"Card <code>\" is stored without a name; "
                                      "3: signed, the body's size and dictionary declared, views' renames "
                                      "and decklist)."},
            "view": {"enum": list(VIEWS),
                     "description": "Who the file was exported for: judge (everything), p0, p1, spectator."},
            "ruleset": {"type": "string", "enum": list(RULESETS)},
            "players": {"type": "array", "items": {"type": "string"}, "maxItems": 2,
                        "description": "Player names, player 0 first (empty if unknown)."},
            "match": {"type": "object", "description": "Match metadata (duel id, title, branch).",
                      "properties": {"duel": {"type": "string"}, "title": {"type": "string"},
                                     "parent": {"type": ["string", "null"]},
                                     "branch_at": {"type": ["integer", "null"]}}},
            "created": {"type": "string", "description": "When the duel was created (ISO 8601), or empty."},
            "events": {"type": "integer", "minimum": 0, "description": "How many events the body holds."},
            "cards": {"type": "integer", "minimum": 0, "description": "How many card facts the body holds."},
            "root": _bin("The hash the chain starts from (a judge file: the stored duel's root; a view: "
                         "sha256(that root + view name))", 32),
            "head": _bin("The last event's full hash (the root if there are no events)", 32),
            "source": {"type": "object", "description": "Where the record came from (e.g. an imported replay)."},
            "size": {"type": "integer", "minimum": 0,
                     "description": "Format 3: the body's size once decompressed; a reader expands no more."},
            "dict": {"type": "integer", "minimum": 65536, "maximum": 67108864,
                     "description": "Format 3: the LZMA2 dictionary size the body was compressed with."},
        },
    }


def replay_body_schema() -> dict:
    """The decoded body map of a ``.ygr`` file, with the event and card schemas as $defs."""
    from .replay_file import PREFIX
    defs = _event_defs()
    defs.update({
        "Event": _event_union(),
        "CardFacts": _card_facts_def(),
        "Disclosure": {
            "description": "A card the view learns at an event: [event index, card id, passcode].",
            "type": "array", "minItems": 3, "maxItems": 3, "items": False,
            "prefixItems": [{"type": "integer", "minimum": 0}, {"type": "string"},
                            {"type": "integer", "minimum": 1}]},
        "Commitment": {
            "description": "A hidden deck order, committed to: [event index, player, HMAC-SHA256 under "
                           "the duel's secret of msgpack(['ygoreplay/commitment', index, player, order])] "
                           "(format 1 and 2: sha256(key + msgpack([index, player, order]))).",
            "type": "array", "minItems": 3, "maxItems": 3, "items": False,
            "prefixItems": [{"type": "integer", "minimum": 0}, {"type": "integer", "enum": list(PLAYERS)},
                            _bin("The digest", 32)]},
        "Rename": {
            "description": "A hidden pile the view lost track of at an event: [event index, the view's "
                           "old ids of its hidden cards, their new ids], both sorted, so no new id can be "
                           "told to be a given old one.",
            "type": "array", "minItems": 3, "maxItems": 3, "items": False,
            "prefixItems": [{"type": "integer", "minimum": 0}, {"type": "array", "items": {"type": "string"}},
                            {"type": "array", "items": {"type": "string"}}]},
    })
    return {
        "$schema": DRAFT,
        "title": "ygoreplay replay file body",
        "description": inspect.cleandoc("""
            The body of a .ygr file once LZMA2-decompressed: a msgpack map of the events, their
            recording times, the facts of every card they mention and the hash chain."""),
        "type": "object",
        "required": ["events", "t0", "dt", "cards", "chain"],
        "additionalProperties": False,
        "properties": {
            "events": {"type": "array", "items": _ref("Event"),
                       "description": "The events in order (a view's are redacted)."},
            "t0": {"type": "integer", "description": "The first event's recording time, ms since 1970 (UTC)."},
            "dt": {"type": "array", "items": {"type": "integer"},
                   "description": "Each event's recording time minus the previous one's, in ms (the first: 0)."},
            "cards": {"type": "array", "items": _ref("CardFacts"),
                      "description": "Facts of every passcode the events (or a view's disclosures) mention."},
            "chain": _bin(f"The first {PREFIX} bytes of each event's hash, concatenated"),
            "effects": {
                "type": "object", "required": ["columns", "cards"], "additionalProperties": False,
                "description": "The effect facts its duel was judged with (read from the card scripts "
                               "when it was recorded: CardDB.effects_record), for the cards above that "
                               "have any; absent in a file written before them.",
                "properties": {
                    "columns": {"type": "array", "items": {"type": "string"},
                                "description": "The names of each row's values (effect_facts.EFFECTS_COLUMNS "
                                               "after id and seq)."},
                    "cards": {"type": "array", "description": "[passcode, [row, ...]] by passcode, rows in "
                                                              "script order.",
                              "items": {"type": "array", "minItems": 2, "maxItems": 2, "items": False,
                                        "prefixItems": [{"type": "integer", "minimum": 1},
                                                        {"type": "array", "items": {"type": "array"}}]}}}},
            "disclosures": {"type": "array", "items": _ref("Disclosure"),
                            "description": "Views only: when each card's identity became known to the viewer."},
            "commitments": {"type": "array", "items": _ref("Commitment"),
                            "description": "Views only: commitments to the deck orders they hide."},
            "renames": {"type": "array", "items": _ref("Rename"),
                        "description": "Views only (format 3): hidden piles whose cards were given new ids."},
            "decklist": {"type": "object", "additionalProperties": False,
                         "properties": {name: {"type": "array", "items": {"type": "integer", "minimum": 1}}
                                        for name in ("main", "extra", "side")},
                         "description": "Player views only (format 3): the viewer's own registered cards, sorted."},
            "commit_key": _bin("Judge files only: the duel's secret behind the views' commitments and "
                               "card names (32 bytes; 16 in format 1 and 2)"),
            "games": {"type": "array", "items": _bin("One duel's own signed .ygr file, whole"),
                      "description": "Match files only: the match's duels in order (ygoreplay.match.files)."},
        },
        "$defs": defs,
    }


def all_schemas() -> dict[str, dict]:
    """Every schema file, by path relative to the schema directory."""
    out = {"event.json": umbrella_schema()}
    for kind in EVENT_TYPES:
        out[f"events/{kind}.json"] = event_schema(kind)
    out["replay_file/header.json"] = replay_header_schema()
    out["replay_file/body.json"] = replay_body_schema()
    return out


def dumps(schema: dict) -> str:
    """The committed text of a schema: pretty, sorted keys, trailing newline."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_schemas(directory: str | Path = DEFAULT_DIR) -> list[Path]:
    """(Re)write every schema under ``directory``; drop event schemas of kinds that are gone."""
    directory = Path(directory)
    schemas = all_schemas()
    written = []
    for name, schema in schemas.items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dumps(schema), encoding="utf-8")
        written.append(path)
    for folder in ("events", "replay_file"):
        for stale in (directory / folder).glob("*.json"):
            if f"{folder}/{stale.name}" not in schemas:
                stale.unlink()
    reference = directory / "EVENTS.md"
    reference.write_text(events_reference(), encoding="utf-8")
    written.append(reference)
    return written


def events_reference() -> str:
    """Every event kind as a readable table (``schemas/EVENTS.md``): what a duel is written with."""
    lines = ["# Event reference", "",
             "Generated from `ygoreplay/events.py` by `python -m ygoreplay.schema`; the JSON Schemas beside",
             "this file are the exact form. Every event may also carry `player` (0 or 1), `cite`",
             "(`{\"card\", \"effect\"}`: the card effect that permits an exception, GEN-01) and `time`.",
             "A field with a default may be left out; `v` (the shape version) defaults to 1.", ""]
    base = {f.name for f in dataclasses.fields(events.Event)}
    for kind, cls in events.EVENT_TYPES.items():
        doc = (_doc(cls) or "").replace("\n", " ")
        lines += [f"## `{kind}`" + (f" (version {cls.VERSION})" if cls.VERSION > 1 else ""), "", doc, "",
                  "| field | type | default | values |", "|---|---|---|---|"]
        for f in dataclasses.fields(cls):
            if f.name in base and f.name != "player":
                continue
            default = events._default(f)
            shown = "required" if default is dataclasses.MISSING else f"`{json.dumps(events._to_wire(default))}`"
            values = field_choices(kind, f.name)
            listed = ", ".join(f"`{v}`" for v in values) if values else ""
            kind_of = f.type.replace(" | None", " or null")
            lines.append(f"| `{f.name}` | `{kind_of}` | {shown} | {listed} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 or args[:1] in (["-h"], ["--help"]):
        print("usage: python -m ygoreplay.schema [DIR]   (default: schemas/ at the repo root)")
        return 0 if args[:1] in (["-h"], ["--help"]) else 2
    written = write_schemas(args[0] if args else DEFAULT_DIR)
    print(f"wrote {len(written)} schemas under {Path(args[0] if args else DEFAULT_DIR)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
