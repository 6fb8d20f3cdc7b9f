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

Run ``python -m ygoreplay.schema [DIR]`` to (re)write ``DIR/event.json`` and
``DIR/events/<kind>.json`` (``DIR`` defaults to ``schemas/`` at the repository root).
"""
from __future__ import annotations

import dataclasses
import inspect
import json
import sys
from pathlib import Path
from typing import Any

from . import events
from .events import (
    BANISHED, DECK, EVENT_TYPES, EXTRA, FZONE, GY, HAND, MZONE, POSITIONS, SZONE, ZONES, Cite,
    Cost, Event, EventFormatError)
from .rules.setup import _CARD_FLAGS

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
    "tuple[int, ...]": {"type": "array", "items": {"type": "integer"}},
    "tuple[str, ...]": {"type": "array", "items": {"type": "string"}},
    "tuple[bool, ...]": {"type": "array", "items": {"type": "boolean"}},
    "tuple[dict, ...]": {"type": "array", "items": {"type": "object"}},
    "tuple[Cost, ...]": {"type": "array", "items": _ref("Cost")},
}

#: Fields whose annotation says less than their documented structure.
_OVERRIDES: dict[tuple[str, str], dict] = {
    ("position_set_up", "sides"): {
        "type": "array", "items": _ref("Side"), "minItems": 2, "maxItems": 2,
        "description": "One side per player, player 0 first."},
}


def field_choices(kind: str, name: str) -> tuple[str, ...] | None:
    """The closed vocabulary of an event field, looked up as ``events._convert`` does it: a
    per-kind entry wins (an empty one means free text), else the field name's; None if free."""
    key = (kind, name)
    by_kind = events._CHOICES_BY_KIND
    choices = by_kind[key] if key in by_kind else events._CHOICES.get(name)
    return tuple(choices) if choices else None


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
            SZONE: {"type": "array", "items": slot, "maxItems": 5,
                    "description": "Slots 0-4; null is empty."},
            FZONE: slot,
        },
    }


def _shared_defs() -> dict[str, dict]:
    return {"Loc": _loc_def(), "Cite": _cite_def(), "Cost": _cost_def(),
            "Side": _side_def(), "SetupCard": _setup_card_def()}


# -- per-kind and umbrella schemas --------------------------------------------------------------

def _kind_body(cls: type[Event]) -> dict:
    properties, required = _object(cls.kind, dataclasses.fields(cls))
    properties = {"kind": {"const": cls.kind},
                  "v": {"type": "integer", "const": cls.VERSION, "default": 1},
                  **properties}
    required = ["kind", *(["v"] if cls.VERSION > 1 else []), *required]
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


def umbrella_schema() -> dict:
    """Any event: the schema of the kind its ``kind`` names (all kinds in one file).

    The union is discriminated with ``if kind == k then <k's schema>`` rather than a plain
    ``oneOf``: a validator then checks only the one schema that applies, so an error names the
    bad field instead of "not valid under any of the given schemas", and it is faster."""
    defs = _shared_defs()
    kinds = list(EVENT_TYPES)
    return {
        "$schema": DRAFT,
        "title": "ygoreplay event",
        "description": inspect.cleandoc("""
            One duel event in its wire form (ygoreplay.events, version 1 vocabulary): an object
            whose "kind" names its shape. A JSON Lines duel file is one such object per line."""),
        "type": "object",
        "required": ["kind"],
        "properties": {"kind": {"enum": kinds}},
        "allOf": [{"if": {"properties": {"kind": {"const": kind}}, "required": ["kind"]},
                   "then": _ref(kind)} for kind in kinds],
        "$defs": {**defs, **{kind: _kind_body(EVENT_TYPES[kind]) for kind in kinds}},
    }


def all_schemas() -> dict[str, dict]:
    """Every schema file, by path relative to the schema directory."""
    out = {"event.json": umbrella_schema()}
    for kind in EVENT_TYPES:
        out[f"events/{kind}.json"] = event_schema(kind)
    return out


def dumps(schema: dict) -> str:
    """The committed text of a schema: pretty, sorted keys, trailing newline."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_schemas(directory: str | Path = DEFAULT_DIR) -> list[Path]:
    """(Re)write every schema under ``directory``; drop event schemas of kinds that are gone."""
    directory = Path(directory)
    schemas = all_schemas()
    (directory / "events").mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in schemas.items():
        path = directory / name
        path.write_text(dumps(schema), encoding="utf-8")
        written.append(path)
    for stale in (directory / "events").glob("*.json"):
        if f"events/{stale.name}" not in schemas:
            stale.unlink()
    return written


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
