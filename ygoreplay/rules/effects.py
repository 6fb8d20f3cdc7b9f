"""Rules that read what a card's effects are (NIS-02, BATTLE-09/10, EFF-02/04/06, SUM-12, SPS-06).

The facts come from the card's script (``effect_facts``: ``CardDB.effects``, filled by ``ygoreplay
cards update --scripts``) or, for a recorder without scripts, from the ``activated`` event itself
(``mandatory``, ``damage_step``): a script's facts win where both are known. An activation names
its card and the kind of its effect, not which of the card's effects it is, so a fact is known
only when every effect of that kind the script declares agrees; otherwise, and for a card whose
script was not read, the rule is undecided and nothing is called (a false call is worse than
silence). Effects a card may be *given* by another (an Xyz Material's, a granted one: types
``xmaterial``, ``grant``) are not its own script's, so a card that may have them is not judged
on the kinds its script declares; nor is a card whose script calls a shared procedure that may
declare effects the reader does not see (``effect_facts.HELPER``: ``Spirit.AddProcedure``), unless
it only adds a way to summon the card (``SUMMON_PROCEDURES``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..i18n import N_, say
from ..effect_facts import DAMAGE_STEP_EVENTS, HELPER, EffectFact
from ..events import FZONE, MZONE, SUMMON_METHODS, SZONE
from ..state import Card, DuelState

if TYPE_CHECKING:                  # annotations only: a kind is made on its first use (events._lazy)
    from ..events import Activated

#: The kinds of script effect (``EffectFact.kind``) a recorded ``effect_type`` may be; None for a
#: card activation (a Spell or Trap card itself).
_MAY_BE: dict[str | None, frozenset[str]] = {
    None: frozenset(("activate",)), "ignition": frozenset(("ignition",)), "quick": frozenset(("quick",)),
    "trigger": frozenset(("trigger", "flip")), "flip": frozenset(("flip", "trigger"))}
#: The kinds an activation can be: a card whose script declares none of them has only lasting effects.
_ACTIVATED = frozenset(("activate", "ignition", "quick", "trigger", "flip"))
#: The kinds of effect a script may say an activation is, whatever the record calls it.
KIND_RULES = frozenset(("ignition", "trigger", "flip", "quick"))
_GIVEN = frozenset(("xmaterial", "grant"))
#: Shared procedures that only add a way to Special Summon the card (its Extra Deck procedure).
SUMMON_PROCEDURES = ("Xyz.AddProcedure", "Synchro.AddProcedure", "Link.AddProcedure", "Fusion.AddProc")
_STAT_CHANGES = frozenset(("atkchange", "defchange"))


def script_effects(state: DuelState, card: Card) -> tuple[EffectFact, ...]:
    """The effect facts of the card's script; () when none were read (or the card is unknown)."""
    code = card.facts.code
    reader = getattr(state.db, "effects", None)          # a plain mapping of card facts has none
    return reader(code) if code and reader is not None else ()


def candidates(state: DuelState, card: Card, effect_type: str | None) -> tuple[EffectFact, ...] | None:
    """The effects of its script the activation may be; None when its script is unknown or the
    recorded kind is one scripts do not name (a Pendulum or continuous effect)."""
    kinds = _MAY_BE.get(effect_type)
    facts = script_effects(state, card)
    if kinds is None or not facts or any(f.kind == HELPER and not f.code.startswith(SUMMON_PROCEDURES) for f in facts):
        return None
    return tuple(f for f in facts if f.kind in kinds)


def _agreed(values: list[bool]) -> bool | None:
    return values[0] if values and all(v == values[0] for v in values) else None


def is_mandatory(fact: EffectFact) -> bool:
    """A mandatory trigger (TRIGGER_F), or a FLIP effect that is no optional trigger (EFF-05)."""
    return fact.mandatory or (fact.kind == "flip" and "trigger_o" not in fact.types)


def mandatory(state: DuelState, ev: Activated, card: Card) -> bool | None:
    """Whether the trigger activated is a mandatory one (GEN-03): its script's word, else the
    event's, else None."""
    found = candidates(state, card, ev.effect_type)
    return _agreed([is_mandatory(f) for f in found]) if found else ev.mandatory


def in_damage_step(state: DuelState, ev: Activated, card: Card) -> tuple[bool | None, bool, bool]:
    """(Whether the effect may be activated in the Damage Step, whether it only changes ATK/DEF,
    whether it may be after damage calculation too): the script's word (``EFFECT_FLAG_DAMAGE_STEP``
    or ``DAMAGE_CAL``, or an event of the Damage Step; an activation negator or one of damage
    calculation stays usable after it), else the event's ``damage_step``; None when neither says."""
    found = candidates(state, card, ev.effect_type)
    if not found:
        return ev.damage_step, False, bool(ev.damage_step)
    usable = [f for f in found if f.in_damage_step]
    if not usable:
        return False, False, False
    stat_only = all(f.categories and set(f.categories) <= _STAT_CHANGES and "damage_cal" not in f.properties
                    for f in usable)
    late = any("negate" in f.categories or "damage_cal" in f.properties or f.code in DAMAGE_STEP_EVENTS
               for f in usable)
    return True, stat_only, late


def may_be_given(state: DuelState, card: Card) -> bool:
    """Another card may have given it an effect: it holds Xyz Materials, or a face-up card on the
    field (itself too) declares an effect that grants one."""
    if card.materials:
        return True
    for other in state.cards.values():
        if other.zone in (MZONE, SZONE, FZONE) and other.face_up:
            if any(_GIVEN & set(f.types) for f in script_effects(state, other)):
                return True
    return False


def script_kind(state: DuelState, card: Card, effect_type: str | None) -> str | None:
    """EFF-02/06: the kind an effect activation is, by the card's script where it leaves no doubt:
    a card whose script lets it activate only Ignition Effects activates an Ignition Effect (Spell
    Speed 1: never chained, only in an open game state), one with only Quick Effects a Quick
    Effect (Spell Speed 2), whatever the record calls it; else the record's ``effect_type``. (A
    card activation, a Pendulum or continuous effect keeps its own.) EFF-04: a monster whose
    script lets it activate only triggers (and FLIP effects) activates a trigger, Spell Speed 1,
    when it is chained to a link that is surely no trigger (a card activation, or a card whose
    script declares none): only simultaneous triggers share a chain (CHAIN-08), so a trigger
    there is no simultaneous one; otherwise a chained trigger is left to the record."""
    if effect_type not in KIND_RULES:
        return effect_type
    facts = script_effects(state, card)
    if not facts or candidates(state, card, effect_type) is None:
        return effect_type
    kinds = {f.kind for f in facts if f.kind in _ACTIVATED and f.kind != "activate"}
    if kinds and kinds <= _TRIGGER_KINDS and effect_type not in _TRIGGER_KINDS:
        return "trigger" if _after_no_trigger(state, card, facts) else effect_type
    if len(kinds) != 1 or kinds == {effect_type} or not kinds <= {"ignition", "quick"} or may_be_given(state, card):
        return effect_type
    return next(iter(kinds))


_TRIGGER_KINDS = frozenset(("trigger", "flip"))
#: Events of a chain being built: a trigger answering one may join the chain it answers.
_CHAIN_EVENTS = ("EVENT_CHAIN", "EVENT_BECOME_TARGET")


def _after_no_trigger(state: DuelState, card: Card, facts: tuple[EffectFact, ...]) -> bool:
    """EFF-04: the chain holds a link that is surely no trigger, and ``card`` (a monster in a
    Monster Zone or elsewhere off the Spell & Trap Zone: a Trap's effects there are Spell Speed 2,
    TRAP-05) answers no event of the chain being built."""
    if not state.chain or not card.facts.is_monster or card.zone in (SZONE, FZONE) or may_be_given(state, card):
        return False
    if any(f.code.startswith(_CHAIN_EVENTS) for f in facts) or not all(f.types for f in facts):
        return False
    for link in state.chain:
        if link.is_card_activation:
            return True
        other = state.cards.get(link.card)
        found = script_effects(state, other) if other is not None else ()
        if (found and candidates(state, other, link.effect_type) is not None and all(f.types for f in found)
                and not any(f.kind in _TRIGGER_KINDS or f.code.startswith(_CHAIN_EVENTS) for f in found)):
            return True
    return False


#: The events a summon raises while it is attempted, before it succeeds: EDOPro then offers only
#: the effects answering them (its summon's ``PointEvent`` skips free-chain effects and triggers).
SUMMON_ATTEMPTS = ("EVENT_SUMMON", "EVENT_SPSUMMON", "EVENT_FLIP_SUMMON")
#: The kinds of script effect that may answer a summon being attempted (triggers wait for its success).
_ANSWERING = frozenset(("activate", "quick"))


def may_negate_summon(state: DuelState, card: Card, effect_type: str | None) -> bool:
    """SPS-11, TRAP-06: whether this activation may answer a summon being attempted, the one time
    it can be negated: only an effect that negates a summon is activated then (Solemn Judgment,
    Black Horn of Heaven, Thunder King Rai-Oh), so any other means the summon has succeeded.

    The script's word: a Card Activation or Quick Effect answering ``SUMMON_ATTEMPTS``, whichever
    effect the record names (an importer guesses the kind from when it was activated: Rai-Oh's
    reads as a trigger). Without a script (or with effects it may be given), only a Spell Card's
    activation surely is none: a Trap Card's may be (Counter Traps, but also Royal Oppression's, a
    Continuous Trap), and so may any effect, as the record's kind may be a guess."""
    if card.facts is state.unknown:
        return True
    facts = script_effects(state, card)
    if facts and candidates(state, card, effect_type) is not None and not may_be_given(state, card):
        return any(f.kind in _ANSWERING and f.applies(*SUMMON_ATTEMPTS) for f in facts)
    return effect_type is not None or not card.facts.is_spell


#: A card's own trigger on being summoned a way: the rule, the ways that are it, in words.
_SUMMON_TRIGGERS = {"EVENT_FLIP_SUMMON_SUCCESS": ("SUM-12", frozenset(("flip",)), N_("Flip Summoned")),
                    "EVENT_SPSUMMON_SUCCESS": ("SPS-06", frozenset(SUMMON_METHODS), N_("Special Summoned"))}


def own_triggers(state: DuelState, card: Card, effect_type: str | None) -> tuple[EffectFact, ...] | None:
    """The card's own (``single``) triggers an activation recorded as ``effect_type`` may be, when
    it can be nothing else; None when its script is unknown, it may be something else, or the
    script also declares a Quick Effect: a record may call one activated outside an open game
    state a trigger (EDOPro's stream does not say which effect it is: the importer names the kind by
    when it was activated, ``yrpx.chains``), so what its triggers answer decides nothing (EFF-04,
    SUM-12, SPS-06: a false call is worse than silence)."""
    found = candidates(state, card, effect_type)
    if not found or any(f.kind != "trigger" or "single" not in f.types for f in found):
        return None
    if any(f.kind == "quick" for f in script_effects(state, card)):
        return None
    return found


def wrong_summon(state: DuelState, ev: Activated, card: Card) -> tuple[str, str] | None:
    """SUM-12, SPS-06: a trigger whose only event is the card's own Flip Summon (or Special Summon)
    activated when the card, since it arrived, was summoned another way (a FLIP by an attack or an
    effect is no Flip Summon). Unknown how it arrived (a set-up position), undecided."""
    how = card.summon_method
    found = own_triggers(state, card, ev.effect_type) if how is not None else None
    if not found:
        return None
    codes = {f.code for f in found}
    entry = _SUMMON_TRIGGERS.get(codes.pop()) if len(codes) == 1 else None
    if entry is None or how in entry[1]:
        return None
    rule, _, words = entry
    said = {"set": N_("Set"), "normal": N_("Normal Summoned"), "gemini": N_("Normal Summoned again"),
            "flip": N_("Flip Summoned")}
    return rule, say("{name}'s trigger answers its being {words} (its script), but it was {how}: that is not the "
                     "timing it answers", name=card.name, words=words,
                     how=said.get(how) or say("Special Summoned ({method})", method=how))


#: A card's own triggers on leaving the field (or on going where only leaving it takes it), and on
#: being summoned (not Flip Summoned: a Flip Summon does not move the card, so "since before this
#: turn" does not rule it out).
_OWN_MOVES = frozenset(("EVENT_TO_GRAVE", "EVENT_REMOVE", "EVENT_TO_HAND", "EVENT_TO_DECK", "EVENT_DESTROYED",
                        "EVENT_LEAVE_FIELD", "EVENT_SUMMON_SUCCESS", "EVENT_SPSUMMON_SUCCESS"))


def never_triggered(state: DuelState, ev: Activated, card: Card) -> tuple[str, str] | None:
    """EFF-04 (a trigger "activates at the timing its text states"): a card whose script's
    triggers all answer its own leaving the field (sent to the GY, banished, destroyed, to the hand
    or Deck) or its own Normal or Special Summon, activating one while it has stayed on the field,
    neither arriving nor summoned, since before this turn: what they answer has not happened to it
    this turn. Undecided when its script was not read or it may have been given an effect."""
    if card.zone not in (MZONE, SZONE, FZONE) or card.arrived_turn >= state.turn or card.summoned_turn >= state.turn:
        return None
    found = own_triggers(state, card, ev.effect_type)
    if not found or any(f.code not in _OWN_MOVES for f in found):
        return None
    if may_be_given(state, card):
        return None
    return "EFF-04", say("{name}'s script declares only triggers on its own summon or leaving the field ({codes}), and "
                         "it has stayed on the field since before this turn: nothing they answer has happened to it "
                         "this turn", name=card.name, codes=", ".join(sorted({f.code for f in found})))


def segoc_rank(player: int, turn_player: int, is_mandatory: bool | None) -> int | None:
    """NIS-02: where a simultaneous trigger goes in its chain: the turn player's mandatory (0),
    the opponent's mandatory (1), the turn player's optional (2), the opponent's optional (3)."""
    if is_mandatory is None:
        return None
    return (0 if is_mandatory else 2) + (0 if player == turn_player else 1)


SEGOC_GROUPS = ("the turn player's mandatory triggers", "the opponent's mandatory triggers",
                "the turn player's optional triggers", "the opponent's optional triggers")


__all__ = ["KIND_RULES", "SEGOC_GROUPS", "SUMMON_PROCEDURES", "candidates", "in_damage_step", "is_mandatory",
           "mandatory", "may_be_given", "may_negate_summon", "never_triggered", "own_triggers", "script_effects", "script_kind",
           "segoc_rank", "wrong_summon"]
