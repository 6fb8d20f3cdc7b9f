"""Every event kind is one class, its handler and its sentence, registered where they are defined
(``events.event_kind``, ``rules.base.handles``, ``sentences.describes`` and the match's own): the
tables the folds and the log use are built from those registrations, and nothing is missing."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import ClassVar

import pytest

from ygoreplay import sentences, views
from ygoreplay.events import EVENT_TYPES, ID_FIELDS, ChainEnded, Event, event_kind
from ygoreplay.kinds import PerKind
from ygoreplay.match import rules as match_rules, sentences as match_sentences
from ygoreplay.rules import fold
from ygoreplay.schema import event_schema
from ygoreplay.yrpx import mapping

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"

#: The duel fold's bits of a kind's plan (``fold._traits``, read from its class on its first event)
#: and the trait of ``events.Event`` each says, or its negation.
_DUEL_BITS = {"_OPENS": ("opens_duel", True), "_LOST_OK": ("after_loss", True), "_ENDED_OK": ("after_end", True),
              "_RESETS_PASSES": ("keeps_passes", False), "_ENDS_PENDULUM": ("continues_pendulum_summon", False)}
_MATCH_TRAITS = {"_OPENERS": "opens_match", "_AFTER_RESULT": "after_result", "_CONTINUES_PLAY": "continues_play"}


def lacking(kind: str) -> list[str]:
    """What an event kind lacks of its registration: handler, sentence, schema, or a fold that
    does not know its traits (its class was defined after the fold built its tables)."""
    cls = EVENT_TYPES[kind]
    duel = cls.stream == "duel"
    folds = {"duel": (fold.HANDLERS, fold, {"AFTER_LOSS": "after_loss"}),
             "match": (match_rules.HANDLERS, match_rules, _MATCH_TRAITS)}
    if cls.stream not in folds:
        return [f"a stream the folds know (it says {cls.stream!r})"]
    handlers, module, traits = folds[cls.stream]
    other = folds["match" if duel else "duel"][0]
    missing = []
    if kind not in handlers:
        missing.append(f"a handler in the {cls.stream} fold (@handles({cls.__name__}))")
    if kind in other:
        missing.append(f"no handler in the other stream's fold (it is a {cls.stream} kind)")
    said = sentences.SENTENCES if duel else match_sentences.SENTENCES
    if kind not in said:
        module_name = "ygoreplay/sentences.py" if duel else "ygoreplay/match/sentences.py"
        missing.append(f"a sentence (@describes({cls.__name__}) in {module_name})")
    for table, trait in traits.items():
        if getattr(cls, trait) != (kind in getattr(module, table)):
            missing.append(f"its {trait} in {module.__name__}.{table} (defined after the fold was imported?)")
    if duel and kind in handlers:
        bits = fold._traits(kind)
        for bit, (trait, says) in _DUEL_BITS.items():
            if bool(bits & getattr(fold, bit)) != (getattr(cls, trait) == says):
                missing.append(f"its {trait} in its plan's {bit} (fold._traits)")
        if bool(bits & fold._RESETS_WINDOW) == (cls.keeps_summon_window or cls.keeps_passes):
            missing.append("its keeps_summon_window in its plan's _RESETS_WINDOW (fold._traits)")
        # what ``apply`` tests on every event, as booleans in the plan of the kind's class: the same bits
        plan = fold._unpacked(handlers[kind], bits, kind)
        for at, bit in enumerate(("_MOVES_ON", "_TIMED", "_SENDS", "_OWING", "_RESETS_WINDOW", "_ENDS_PENDULUM"), 3):
            if plan[at] is not bool(bits & getattr(fold, bit)):
                missing.append(f"its plan's {bit} as the boolean apply tests (fold._unpacked)")
    if not (SCHEMAS / "events" / f"{kind}.json").is_file():
        missing.append(f"a committed schema schemas/events/{kind}.json (python -m ygoreplay.schema)")
    try:
        event_schema(kind)
    except TypeError as exc:                 # an annotation the schema generator has no schema for
        missing.append(f"a JSON Schema: {exc}")
    return missing


@pytest.mark.parametrize("kind", list(EVENT_TYPES))
def test_every_kind_has_a_handler_a_sentence_and_a_schema(kind):
    missing = lacking(kind)
    assert not missing, f"event kind {kind!r} lacks " + "; ".join(missing)


def test_there_are_both_streams():
    streams = {cls.stream for cls in EVENT_TYPES.values()}
    assert streams == {"duel", "match"}
    assert len(fold.HANDLERS) + len(match_rules.HANDLERS) == len(EVENT_TYPES)


def test_a_kind_without_a_sentence_is_named():
    kind = "chain_ended"
    said = sentences.SENTENCES.pop(kind)
    try:
        assert lacking(kind) == ["a sentence (@describes(ChainEnded) in ygoreplay/sentences.py)"]
    finally:
        sentences.SENTENCES[kind] = said
    handler = match_rules.HANDLERS.pop("game_ended")
    try:
        assert lacking("game_ended") == ["a handler in the match fold (@handles(GameEnded))"]
    finally:
        match_rules.HANDLERS["game_ended"] = handler


def test_the_importer_stops_where_the_fold_does():
    # WIN-01: after a loss the importer keeps only what the fold accepts, from the same declaration.
    assert mapping.AFTER_LOSS is fold.AFTER_LOSS
    assert fold.AFTER_LOSS == {k for k, cls in EVENT_TYPES.items() if cls.after_loss}
    assert "chain_ended" in fold.AFTER_LOSS and "activated" not in fold.AFTER_LOSS


def test_a_kind_or_a_handler_registered_twice_is_refused():
    with pytest.raises(ValueError, match="'chain_ended' of Again is already ygoreplay.events.ChainEnded's"):
        @event_kind
        class Again(Event):
            kind: ClassVar[str] = "chain_ended"
    assert EVENT_TYPES["chain_ended"] is ChainEnded

    table = PerKind("handler")

    @table(ChainEnded)
    def first(state, event):
        """The first handler."""

    with pytest.raises(ValueError, match="'chain_ended' already has a handler .*first"):
        @table(ChainEnded)
        def second(state, event):
            """A second one."""
    with pytest.raises(TypeError, match="Event is no event kind"):
        table(Event)


def test_a_vocabulary_names_a_field_of_its_kind():
    with pytest.raises(ValueError, match="a vocabulary for 'colour', which is no field of it"):
        @event_kind
        class Painted(Event):
            kind: ClassVar[str] = "painted_for_this_test"
            vocabularies: ClassVar[dict] = {"colour": ("red",)}
    assert "painted_for_this_test" not in EVENT_TYPES


#: Text fields of duel events that hold no card id and are shown to every view as they are: closed
#: vocabularies, names, times, set-up sides and locations (which the views redact themselves) ...
_PLAIN = frozenset(("banlist", "category", "counter", "decision", "effect_type", "entered_by", "method", "options", "phase", "players",
                    "position", "ruleset", "seed", "sides", "source", "step", "time", "timing", "to"))
#: ... and objects whose own keys are card ids or free text (a cite's card and effect, a cost's card).
_NESTED = frozenset(("cite", "costs"))


def test_views_know_every_text_field_of_a_duel_event():
    # A field holding card ids that the views do not rename would give a record's ids away: each
    # field that can hold text is a card id (renamed), free text (ids in it renamed) or plain.
    known = ID_FIELDS | views._TEXT_FIELDS | _PLAIN | _NESTED
    unknown = sorted(f"{kind}.{f.name}" for kind, cls in EVENT_TYPES.items() if cls.stream == "duel"
                     for f in dataclasses.fields(cls)
                     if any(t in f.type for t in ("str", "dict", "Loc", "Cite", "Cost", "Banlist"))
                     and f.name not in known)
    assert not unknown, f"say in views.py whether these hold card ids: {', '.join(unknown)}"
