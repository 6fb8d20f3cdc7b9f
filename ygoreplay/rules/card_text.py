"""What a card's own text obliges or limits, as its script states it (issue 24).

* **A mandatory trigger must be activated** (GEN-03: an effect without "can" is mandatory; EFF-05:
  a FLIP effect is). A card whose script declares a mandatory trigger of its own (``single`` and
  ``TRIGGER_F``, or a ``FLIP`` effect that is no optional trigger) answering what just happened to
  it (``EVENT_SUMMON_SUCCESS``, ``EVENT_SPSUMMON_SUCCESS``, ``EVENT_FLIP_SUMMON_SUCCESS``, a Flip
  Summon for a FLIP effect, ``EVENT_TO_GRAVE``, ``EVENT_DESTROYED``, ``EVENT_REMOVE``), with nothing
  that could keep it from being activated (no ``SetCondition``, no ``SetCost``, a target check
  that is a plain ``true``, no target, no count limit: ``EffectFact.condition``), owes its
  activation (none is owed in the Damage Step). It is owed until the duel moves on past the point
  where the chain of those triggers had to be built: an action of an open game state (a Normal
  Summon or Set, a Flip Summon, a Special Summon by a monster's own procedure, inherent or
  Synchro, Xyz, Link, Pendulum, its own materials' and costs' spared, or a manual change of
  battle position: ``left_by_action``; a Spell/Trap Set, an attack) or a new phase, step or
  turn, with no chain open. Any activation of
  the card pays it (a recorder may not know an activation's kind: EDOPro's stream does not say).
  Nothing is called when the card has moved since, when a card that could stop activations or
  negate effects is face-up on the field or has been activated in the duel (``BLOCKERS``), when
  the card's script calls a shared procedure, or when the card's facts were not read (a database
  stored before ``condition`` was read): a false call is worse than silence.
* **A trigger in its window** (EFF-04, NIS-02): the triggers of a card's own events (its summon,
  its being sent to the GY, destroyed or banished) are activated in the chain built right after
  them: once the duel has moved on as above, a card whose script declares only such triggers
  activating one answers nothing (``after_its_window``; optional triggers too, which GEN-03 does
  not reach). Undecided where the card was not seen going where it is (``after_its_window``).
  A chain opened by something surely no trigger moves the duel on too (``opens_past``), and the
  mandatory triggers still owed are judged there (GEN-03, ``left_by_opening``). A card whose
  summon was negated was never summoned: its triggers on its own summon answer nothing (SUM-03,
  SPS-06: ``summon_negated``).
* **Once-per-turn limits** (TEXT-01, our own ID for a card's own text that no game rule states):
  an activation uses the ``SetCountLimit`` of the effect activated, decided only when every effect
  the activation may be (the card activation of a Spell/Trap; else every activated effect of the
  card) has the same limit. A limit by code ("You can only use this effect of X once per turn")
  counts per player across copies (``id`` is the card's passcode), with
  ``EFFECT_COUNT_CODE_DUEL`` per duel; one without code per card, until it moves. "You can only
  activate 1 X per turn" (``EFFECT_COUNT_CODE_OATH``) counts activations that were not negated: a
  negated one gives its use back, as the engine does; "use" limits count every activation.
  Undecided (never called): a limit per chain, one kept while face-up (``EFFECT_FLAG_NO_TURN_RESET``),
  a card with Xyz Materials or beside a card granting effects, and every card once a card whose
  script registers an activated effect while resolving (it may give one to another) was activated.
* **An effect that is never activated** (EFF-03, EFF-07): a monster whose script declares no
  effect that is activated (only lasting Continuous effects, EFF-03, or summoning procedures and
  other rule effects, EFF-07) has no effect to activate.
* **No trigger from a hidden zone** (CHAIN-12): a card in the hand whose script's activated
  effects are all ``field`` triggers with a ``SetRange`` that is not the hand activates none.

The state keeps (``state.card_text``): the triggers owed ``{card: [what happened, field visits,
zone]}``, the uses this turn and this duel ``{key: count}``, the chain links whose use an
activation negation gives back ``{link: [key, per duel]}``, whether a card that may stop
activations (and one that may give effects) has been activated, whether the duel's cards have
any facts at all (None until asked), so a duel whose cards have none pays one look, where the
cards with triggers on their own events last went ``{card: [zone, field visits, event index]}``,
and the index of the event at which the duel last moved on.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import re

from ..effect_facts import HELPER, EffectFact
from ..events import BANISHED, DECK, EXTRA, FACE_UP_POSITIONS, FZONE, GY, HAND, MZONE, OVERLAY, SZONE, Event
from ..i18n import N_, say
from ..state import CARD_TEXT_SLOTS, Card, DuelState
from .base import fail, unseen_by_writer
from .effects import SUMMON_PROCEDURES, may_be_given, own_triggers, script_effects

if TYPE_CHECKING:                  # annotations only: a kind is made on its first use (events._lazy)
    from ..events import Activated

OWED, TURN_USES, DUEL_USES, LINKS, BLOCKED, GIVEN, HAS_FACTS, SEEN, MOVED_ON = range(CARD_TEXT_SLOTS)

#: Lasting effects that may keep a trigger from being activated (a negation, a floodgate).
BLOCKERS = frozenset(("EFFECT_DISABLE", "EFFECT_DISABLE_EFFECT", "EFFECT_CANNOT_TRIGGER", "EFFECT_CANNOT_ACTIVATE",
                      "EFFECT_DISABLE_CHAIN", "EFFECT_FORBIDDEN"))
#: Events after which no trigger waits: the actions of an open game state, the turn moving on.
MOVES_ON = frozenset(("normal_summoned", "monster_set", "flip_summoned", "spell_trap_set", "attack_declared",
                      "phase_entered", "step_entered", "turn_started"))
#: The kinds of event that may leave a card owing its trigger (a draw owes none: ``owe``).
OWING = frozenset(("normal_summoned", "monster_set", "flip_summoned", "special_summoned", "card_moved",
                   "cards_drawn"))
_ACTIVATED_KINDS = frozenset(("ignition", "trigger", "flip", "quick"))
#: The EFFECT_TYPE_* words a script's SetType may name (``card_scripts`` keeps them lower case).
_KNOWN_TYPES = frozenset(("single", "field", "equip", "activate", "flip", "ignition", "trigger_o", "trigger_f",
                          "quick_o", "quick_f", "continuous", "xmaterial", "grant", "target", HELPER))
_ID = re.compile(r"\bid\b")


def _has_facts(state: DuelState) -> bool:
    """Do any of the duel's cards have effect facts? Asked once (the answer is kept)."""
    text = state.card_text
    if text[HAS_FACTS] is None:
        db = state.db
        reader = getattr(db, "effects", None)
        if reader is None or not getattr(db, "has_effects", True):   # a CardDB with none says so at once
            text[HAS_FACTS] = False
        else:
            codes = {card.code for card in state.cards.values() if card.code}
            text[HAS_FACTS] = bool(codes and any(reader(code) for code in codes))
    return text[HAS_FACTS]


def _read(facts: tuple[EffectFact, ...]) -> bool:
    """Facts a rule may judge the card by: every effect's type read as the engine's own words (not
    a variable's name), and no shared procedure but one that only adds a summon."""
    return bool(facts) and all(
        f.types and set(f.types) <= _KNOWN_TYPES and not (f.kind == HELPER and not f.code.startswith(SUMMON_PROCEDURES))
        for f in facts)


# -- GEN-03, EFF-05: a mandatory trigger must be activated -----------------------------------------

def _owed_effects(facts: tuple[EffectFact, ...], happened: str) -> list[EffectFact]:
    """The card's own mandatory triggers, nothing but code could keep from being activated, that
    answer ``happened`` (an event name, or ``flip`` for a Flip Summon)."""
    found = []
    for f in facts:
        if f.condition is not False or f.count_limit or "single" not in f.types or "card_target" in f.properties:
            continue
        flip = f.kind == "flip" and "trigger_o" not in f.types
        if (f.mandatory and f.kind == "trigger" and f.code == happened) or (flip and happened == "flip"):
            found.append(f)
    return found


def owe(state: DuelState, event: Event) -> None:
    """After ``event`` (an ``OWING`` kind) was applied: the cards it left owing a mandatory trigger
    (none in the Damage Step, where what may be activated has rules of its own: BATTLE-09), and
    where each card with triggers on its own events went (EFF-04: ``SEEN``). A summon's Tributes
    and materials were sent too (SUM-07, SPS-09: their "if this card is sent to the GY" or "used
    as material" triggers answer it); a drawn card is only noted (a draw owes nothing here)."""
    if not _has_facts(state):
        return
    kind = event.kind
    happened: list[tuple[str, tuple[str, ...]]] = []
    if kind == "card_moved":
        card = state.cards.get(event.card)
        if card is not None:
            happened.append((event.card, _went(card.zone, event.reason) + (
                ("EVENT_DESTROYED",) if event.reason in ("destroyed", "battle") else ())))
    elif kind == "cards_drawn":
        for drawn in event.cards:
            card = state.cards.get(drawn)
            if card is not None and card.zone == HAND:
                _note(state, card, ())
        return
    else:
        card = state.cards.get(event.card)
        if card is not None and card.zone == MZONE and card.position in FACE_UP_POSITIONS:
            if kind == "normal_summoned":
                happened.append((card.id, ("EVENT_SUMMON_SUCCESS",)))
            elif kind == "flip_summoned":
                happened.append((card.id, ("EVENT_FLIP_SUMMON_SUCCESS", "flip")))
            elif kind == "special_summoned":
                happened.append((card.id, ("EVENT_SPSUMMON_SUCCESS",)))
        tributes = getattr(event, "tributes", ()) or ()
        for sent in tributes + (getattr(event, "materials", ()) or ()):
            if sent in state.cards:
                happened.append((sent, _went(state.cards[sent].zone, "material")))
        moves = state.material_moves
        if tributes and moves and moves[-1][0] == state.index - 1:
            # EFF-04, SUM-07: its Tributes' Xyz materials, told going first, answer it too
            happened.extend((row[1], _went(state.cards[row[1]].zone, None)) for row in moves if row[1] in state.cards)
    for card_id, events in happened:
        _note(state, state.cards[card_id], events)


def paid(state: DuelState, card: Card, reason: str) -> None:
    """CHAIN-11, EFF-04: ``card`` was paid as the cost of an activation (discarded, Tributed,
    banished, sent to the GY): it was sent as surely as a resolving effect sends one, so its
    triggers on going there answer it (``owe``)."""
    if _has_facts(state):
        _note(state, card, _went(card.zone, reason))


def _went(zone: str, reason: str | None) -> tuple[str, ...]:
    """The events of a card's own that its going to ``zone`` for ``reason`` raises."""
    return _ARRIVALS.get(zone, ()) + (("EVENT_BE_MATERIAL",) if reason == "material" else ())


#: The event a card's own trigger answers as it arrives in a zone (the Extra Deck is the Deck's).
_ARRIVALS = {GY: ("EVENT_TO_GRAVE",), BANISHED: ("EVENT_REMOVE",), HAND: ("EVENT_TO_HAND",),
             DECK: ("EVENT_TO_DECK",), EXTRA: ("EVENT_TO_DECK",), OVERLAY: ()}


def _note(state: DuelState, card: Card, events: tuple[str, ...]) -> None:
    """What happened to ``card`` (``events``: its own events, ``flip`` for a Flip Summon): where its
    trigger window opened (EFF-04), and the mandatory trigger it now owes (GEN-03, EFF-05)."""
    facts = script_effects(state, card)
    if not _read(facts):
        return
    if any(f.kind == "trigger" and "single" in f.types and f.code in _OWN_EVENTS for f in facts):
        state.card_text[SEEN][card.id] = [card.zone, card.field_exits, state.index]   # EFF-04: where its window opened
    if not events or state.step == "damage":
        return
    for name in events:
        if _owed_effects(facts, name):
            state.card_text[OWED][card.id] = [name, card.field_exits, card.zone]
            break


def left_behind(state: DuelState, event: Event) -> None:
    """Before ``event`` (a ``MOVES_ON`` kind) is applied, with triggers owed: once no chain is open
    the duel moves past them, and each still owed that nothing could have kept back is GEN-03
    (EFF-05 for a FLIP effect)."""
    if state.chain or state.resolving or state.card_text[BLOCKED] or _blocked_on_field(state):
        return
    moves = state.material_moves
    if moves and moves[-1][0] == state.index - 1 and getattr(event, "tributes", None):
        # SUM-07, EFF-04: what went right before a Tribute Summon for it (its Tributes' Xyz
        # materials, recorded first) answers it, owing its triggers after it
        _judge_owed(state, event, frozenset(row[1] for row in moves))
        return
    _judge_owed(state, event)


def _judge_owed(state: DuelState, event: Event, spared: str | frozenset[str] | None = None) -> None:
    """GEN-03, EFF-05: each trigger still owed (but those of ``spared``: the opener, whose activation
    pays its own; a summon's materials and costs, whose triggers answer it), by a card that has
    not moved since, was left unactivated when the duel moved on at ``event``."""
    for card_id, (happened, exits, zone) in state.card_text[OWED].items():
        card = state.cards.get(card_id)
        if card is None or card.field_exits != exits or card.zone != zone or card_id == spared or (
                isinstance(spared, frozenset) and card_id in spared):
            continue                                   # it moved again: what it owed is not judged
        flip = happened == "flip"
        words = N_("Flip Summoned") if flip else _HAPPENED.get(happened, happened)
        rule = "EFF-05" if flip else "GEN-03"
        what = (N_("a FLIP effect, which is mandatory") if flip
                else N_("a mandatory trigger (TRIGGER_F: no 'you can')"))
        fail(state, event, rule, say("{name} was {words}: its script declares {what} for it, with no condition, "
                                     "cost or target that could keep it back, and it was not activated before the "
                                     "duel moved on ({kind})", name=card.name, words=words, what=what,
                                     kind=event.kind.replace("_", " ")))


def flip_left(state: DuelState, event: Event, card: Card) -> None:
    """EFF-05, BATTLE-12 (a Flip effect is mandatory; one an attack's flip gave is activated in that
    attack's Damage Step, after damage calculation): the Damage Step ends at ``event`` with a Flip
    effect of ``card`` not activated. Mandatory triggers are not tracked in the Damage Step
    (``owe``: BATTLE-09), so this is judged here: a FLIP effect its script declares mandatory, with
    no condition, cost or target that could keep it back, and no card that may stop activations."""
    if state.card_text[BLOCKED] or not _read(facts := script_effects(state, card)) or not _owed_effects(
            facts, "flip") or _blocked_on_field(state):
        return
    fail(state, event, "EFF-05", say("{name} was flipped face-up by an attack: its script declares a FLIP effect, "
                                     "which is mandatory, with no condition, cost or target that could keep it "
                                     "back, and it was not activated before that Damage Step ended (BATTLE-12)",
                                     name=card.name))


def left_by_action(state: DuelState, event: Event, spared: frozenset[str]) -> None:
    """GEN-03, EFF-05 (a mandatory trigger is activated in the chain built right after its event,
    NIS-02): a Special Summon by a monster's own procedure (inherent, Synchro, Xyz, Link, the first
    monster of a Pendulum Summon) or a manual change of battle position is an action of an open
    game state, not a chain: each trigger still owed when it is made, but those of a summon's own
    materials and costs (``spared``, moved right before it: theirs answer it), was left
    unactivated, judged as at any other move on (``left_behind``), before the action is applied.
    Judged only with no chain open and no card that may stop activations (``BLOCKERS``)."""
    text = state.card_text
    if not text[OWED] or state.chain or state.resolving or text[BLOCKED] or _blocked_on_field(state):
        return
    _judge_owed(state, event, spared)


def past_action(state: DuelState, spared: frozenset[str]) -> None:
    """After such an action was applied: what was owed before it (but a summon's materials' and
    costs') is owed no longer (``left_by_action`` judged it); what a summon itself leaves owed is
    noted after it (``owe``), to be judged at the next move on."""
    owed = state.card_text[OWED]
    if owed and not (state.chain or state.resolving):
        state.card_text[OWED] = {card: row for card, row in owed.items() if card in spared}


def moved_on(state: DuelState, since: int | None = None) -> None:
    """After a ``MOVES_ON`` event was applied with no chain open: nothing is owed any longer, and
    what happened before it is past every trigger's window (EFF-04, ``after_its_window``). A
    Special Summon by a monster's own procedure (inherent, Synchro, Xyz, Link, Pendulum) moves the
    duel on ``since`` the first of the moves of its materials and costs before it (theirs answer
    it); what was owed before it is judged there (``left_by_action``)."""
    if since is not None:
        state.card_text[MOVED_ON] = since
    elif not (state.chain or state.resolving):
        text = state.card_text
        text[OWED] = {}
        text[MOVED_ON] = state.index


def opens_past(state: DuelState, ev: Activated, card: Card) -> bool:
    """EFF-04, NIS-02: whether an activation that opens a chain (Chain Link 1) is surely no trigger
    (a card activation, or a card whose script declares no trigger or FLIP effect): one made in an
    open game state, where the chain of the triggers waiting had to come first, so the duel moves
    on past their window as with any other action (``moved_on``). A card that may have been given
    an effect, or whose script was not read, may have activated a trigger: it does not."""
    if ev.effect_type is not None:
        facts = script_effects(state, card)
        if not _read(facts) or any(f.kind in ("trigger", "flip") for f in facts) or may_be_given(state, card):
            return False
    return True


def left_by_opening(state: DuelState, ev: Activated, card: Card) -> bool:
    """GEN-03, EFF-05 (a mandatory trigger is activated in the chain built right after its event,
    NIS-02): an activation that ``opens_past`` the triggers waiting left each still owed (but the
    opening card's own) unactivated, judged as at any other move on (``left_behind``), before the
    activation is applied. Whether it was judged: not once a card may stop activations
    (``BLOCKERS``)."""
    if state.card_text[BLOCKED] or _blocked_on_field(state):
        return False
    _judge_owed(state, ev, card.id)
    return True


def opened(state: DuelState, judged: bool) -> None:
    """After an activation that ``opens_past`` the triggers waiting was applied: the duel has moved
    on past their window (EFF-04); what they owed was ``judged`` (``left_by_opening``), and is owed
    no longer."""
    state.card_text[MOVED_ON] = state.index
    if judged:
        state.card_text[OWED] = {}


#: A card's own events the window is kept for (``owe`` notes them): its trigger on one of them
#: answers the last recorded thing that happened to it (its summon; its going to the GY, banished,
#: to the hand or the Deck, by an effect, as a cost or as material; its destruction).
_OWN_EVENTS = frozenset(("EVENT_SUMMON_SUCCESS", "EVENT_SPSUMMON_SUCCESS", "EVENT_FLIP_SUMMON_SUCCESS",
                         "EVENT_TO_GRAVE", "EVENT_DESTROYED", "EVENT_REMOVE", "EVENT_TO_HAND", "EVENT_TO_DECK",
                         "EVENT_BE_MATERIAL"))


#: ``SEEN``'s zone for a card whose summon was negated (``summon_negated``): no zone a card is in.
NEGATED = "negated"
#: A card's own triggers on its summon's success, which a negated summon never reaches.
_SUMMON_SUCCESS = frozenset(("EVENT_SUMMON_SUCCESS", "EVENT_SPSUMMON_SUCCESS", "EVENT_FLIP_SUMMON_SUCCESS"))


def summon_negated(state: DuelState, card: Card) -> None:
    """SUM-03, SPS-06: ``card``'s summon was negated (it has gone to the GY): it was never summoned,
    and, "not treated as sent from the hand or field", its other own triggers are undecided here."""
    if card.id in state.card_text[SEEN]:
        state.card_text[SEEN][card.id] = [NEGATED, card.field_exits, state.index]


def _only_own_triggers(state: DuelState, ev: Activated, card: Card,
                       codes: frozenset[str]) -> tuple[EffectFact, ...] | None:
    """The card's triggers ``ev`` may be, when every one answers one of ``codes`` happening to it;
    None when it may be something else, may have been given an effect, or the event's writer may
    not see it (``unseen_by_writer``)."""
    found = own_triggers(state, card, ev.effect_type)
    if not found or any(f.code not in codes for f in found):
        return None
    if may_be_given(state, card) or unseen_by_writer(state, ev, card):
        return None
    return found


def after_its_window(state: DuelState, ev: Activated, card: Card) -> tuple[str, str] | None:
    """EFF-04 (a trigger "activates at the timing its text states"; NIS-02: the chain of triggers
    is built right after the event, before any new action): a card whose script's triggers all
    answer its own summon, its being sent to the GY, destroyed or banished (``_OWN_EVENTS``),
    activating one when the last of those that was recorded for it (``owe``: where it went, at
    which event) came before the duel last moved on (``moved_on``: an action of an open game
    state, a new phase, step or turn, with no chain open). Undecided when it was not seen to go
    where it is (moved by what ``owe`` does not read, or before a snapshot that kept no
    ``SEEN``), its script was not read, it may have been given an effect, or the event's writer
    may not see it (``unseen_by_writer``). A card whose summon was negated (``summon_negated``)
    activating a trigger on its own summon answers nothing at all."""
    text = state.card_text
    seen = text[SEEN].get(card.id)
    if seen is not None and seen[0] == NEGATED and seen[1] == card.field_exits:
        # SUM-03, SPS-06: its summon was negated, and it has not moved since
        found = _only_own_triggers(state, ev, card, _SUMMON_SUCCESS)
        if not found:
            return None
        return "EFF-04", say("{name}'s script declares only triggers on its own summon ({codes}), and its summon "
                             "was negated: a negated summon never succeeded, so there is no timing for them to "
                             "answer (SUM-03, SPS-06)", name=card.name,
                             codes=", ".join(sorted({f.code for f in found})))
    if seen is None or seen[2] >= text[MOVED_ON] or seen[0] != card.zone or seen[1] != card.field_exits:
        return None
    found = _only_own_triggers(state, ev, card, _OWN_EVENTS)
    if not found:
        return None
    return "EFF-04", say("{name}'s script declares only triggers on what happens to it ({codes}), and the last of "
                         "those recorded for it came before the duel moved on: a trigger is activated in the chain "
                         "built right after its event, not after a new action (a chain opened by something else), "
                         "phase, step or turn", name=card.name,
                         codes=", ".join(sorted({f.code for f in found})))


_HAPPENED = {"EVENT_SUMMON_SUCCESS": N_("Normal Summoned"), "EVENT_SPSUMMON_SUCCESS": N_("Special Summoned"),
             "EVENT_FLIP_SUMMON_SUCCESS": N_("Flip Summoned"), "EVENT_TO_GRAVE": N_("sent to the GY"),
             "EVENT_DESTROYED": N_("destroyed"), "EVENT_REMOVE": N_("banished"),
             "EVENT_TO_HAND": N_("added to the hand"), "EVENT_TO_DECK": N_("returned to the Deck"),
             "EVENT_BE_MATERIAL": N_("used as material")}


def _blocked_on_field(state: DuelState) -> bool:
    """A face-up card on the field declares a lasting effect that may stop activations (``BLOCKERS``),
    or a card in the GY, banished or in the hand one whose ``SetRange`` is where it is."""
    for card in state.cards.values():
        facts = script_effects(state, card)
        if not facts:
            continue
        on_field = card.zone in (MZONE, SZONE, FZONE) and card.position in FACE_UP_POSITIONS
        where = _RANGES.get(card.zone)
        if any(f.code in BLOCKERS and (on_field or where in f.ranges) for f in facts):
            return True
    return False


#: The SetRange word (LOCATION_* lower case) of a zone off the field.
_RANGES = {GY: "grave", BANISHED: "removed", HAND: "hand"}


# -- TRAP-03, HAND-02: what a card's text allows -----------------------------------------------------

def text_allows(state: DuelState, code: str, card: Card | None = None) -> bool:
    """A card's text may allow what a basic rule refuses (TRAP-03: a Trap from the hand or the turn
    it was Set; HAND-02: another hand size): ``card``'s own script declares ``code``, a face-up card
    on the field does, or an effect some card registers while resolving does (its condition is
    code, not read: that the text may allow it is enough to call nothing)."""
    if card is not None and any(f.applies(code) for f in script_effects(state, card)):
        return True
    for other in state.cards.values():
        on_field = other.zone in (MZONE, SZONE, FZONE) and other.position in FACE_UP_POSITIONS
        if any(f.applies(code) and (on_field or not f.initial) for f in script_effects(state, other)):
            return True
    return False


def gy_redirected(state: DuelState, to_zone: str | None) -> bool:
    """NIS-05, GEN-01: a card bound for the GY goes to ``to_zone``, the banished zone, because a
    face-up card's text banishes it instead (Macro Cosmos, Dimensional Fissure:
    EFFECT_TO_GRAVE_REDIRECT); its move keeps its reason (a material detached as a cost)."""
    return to_zone == BANISHED and text_allows(state, "EFFECT_TO_GRAVE_REDIRECT")


# -- TEXT-01, EFF-03/07: what an activation may be -------------------------------------------------

def activation(state: DuelState, ev: Activated, card: Card, player: int) -> tuple | None:
    """Check an activation against the card's text before it is applied (EFF-03/07, TEXT-01):
    None for a card without facts, else what ``used`` keeps once it is applied (the count limit
    it uses, whether the card may stop activations, whether it may give effects)."""
    facts = script_effects(state, card)
    if not facts:
        return None
    blocks = any(not f.initial and f.code in BLOCKERS for f in facts)          # it may negate, or forbid
    gives = state.card_text[GIVEN] or any(not f.initial and f.kind in _ACTIVATED_KINDS for f in facts)
    if not _read(facts) or gives or may_be_given(state, card):
        return None, blocks, gives
    if ev.effect_type is not None and card.zone == HAND:
        activated = [f for f in facts if f.kind in _ACTIVATED_KINDS or f.kind == "activate"]
        if activated and all(f.kind == "trigger" and "field" in f.types and "single" not in f.types and f.ranges
                             and "hand" not in f.ranges for f in activated):
            fail(state, ev, "CHAIN-12", say("{name} is in the hand: its script's triggers are activated only from "
                                            "the {ranges} (SetRange), not from a hidden zone", name=card.name,
                                            ranges=", ".join(sorted({r for f in activated for r in f.ranges}))))
            return None, blocks, gives
    if ev.effect_type is not None and card.facts.is_monster and not any(
            f.kind in _ACTIVATED_KINDS or f.kind == "activate" for f in facts):
        procedure = any(f.kind == HELPER or f.applies("EFFECT_SPSUMMON_PROC", "EFFECT_SUMMON_PROC") for f in facts)
        rule = "EFF-07" if procedure else "EFF-03"
        what = (N_("summoning procedures and other effects that apply without activation") if procedure
                else N_("Continuous effects, which apply without activation"))
        fail(state, ev, rule, say("{name}'s script declares no effect that is activated, only {what}: it has no "
                                  "effect to activate", name=card.name, what=what))
        return None, blocks, gives
    limit = _limit(state, ev, card, facts, player)
    if limit is None:
        return None, blocks, gives
    key, count, per_duel, oath = limit
    uses = state.card_text[DUEL_USES if per_duel else TURN_USES]
    if uses.get(key, 0) >= count:
        fail(state, ev, "TEXT-01", say("{name}'s effect may be used {count} time(s) per {span} (its script's count "
                                       "limit{by}); this is one more", name=card.name, count=count,
                                       span=N_("Duel") if per_duel else N_("turn"),
                                       by=say(" by {code}, across copies", code=key.split(":", 1)[1])
                                       if ":" in key else ""))
    return (key, per_duel, oath), blocks, gives


def _limit(state: DuelState, ev: Activated, card: Card, facts: tuple[EffectFact, ...],
           player: int) -> tuple[str, int, bool, bool] | None:
    """(Key, limit, per duel, oath) of the count limit the activation uses; None when the effects
    it may be do not agree on one, or its kind is not counted here."""
    pool = [f for f in facts if (f.kind == "activate") == (ev.effect_type is None)
            and (f.kind == "activate" or f.kind in _ACTIVATED_KINDS)]
    limits = {(f.count_limit, f.count_code) for f in pool}
    if len(limits) != 1:
        return None
    count, code = limits.pop()
    if count <= 0 or any("no_turn_reset" in f.properties for f in pool):
        return None
    words = set(re.findall(r"[A-Z_]+", code))
    if "EFFECT_COUNT_CODE_CHAIN" in words:
        return None
    per_duel, oath = "EFFECT_COUNT_CODE_DUEL" in words, "EFFECT_COUNT_CODE_OATH" in words
    here = f"{card.id}@{card.field_exits}@{card.zone}"
    if code in ("", "0") or "EFFECT_COUNT_CODE_SINGLE" in words:
        if code in ("", "0") and len(pool) != 1:
            return None                                 # each effect has its own: which one is not known
        return f"{here}#{code}", count, per_duel, oath
    return f"{player}:{_ID.sub(str(card.facts.alias or card.code), code)}", count, per_duel, oath


def used(state: DuelState, card: Card, found: tuple | None, link: int) -> None:
    """After an activation was applied: the trigger it owed is paid, its use counted (``found``:
    what ``activation`` answered)."""
    text = state.card_text
    if text[OWED]:
        text[OWED].pop(card.id, None)
    if found is None:
        return
    use, blocks, gives = found
    text[BLOCKED] = text[BLOCKED] or blocks          # it may negate effects or stop activations
    text[GIVEN] = gives                               # it may give another card an effect to activate
    if use is not None:
        key, per_duel, oath = use
        uses = text[DUEL_USES if per_duel else TURN_USES]
        uses[key] = uses.get(key, 0) + 1
        if oath:
            text[LINKS][str(link)] = [key, per_duel]


def negated(state: DuelState, link: int) -> None:
    """TEXT-01: a link whose activation was negated gives back its "activate 1 per turn" (an oath's)."""
    given = state.card_text[LINKS].pop(str(link), None)
    if given is not None:
        uses = state.card_text[DUEL_USES if given[1] else TURN_USES]
        uses[given[0]] = max(uses.get(given[0], 1) - 1, 0)


def chain_over(state: DuelState) -> None:
    if state.card_text[LINKS]:
        state.card_text[LINKS] = {}


def new_turn(state: DuelState) -> None:
    if state.card_text[TURN_USES]:
        state.card_text[TURN_USES] = {}


__all__ = ["BLOCKERS", "MOVES_ON", "OWING", "activation", "after_its_window", "chain_over", "left_behind",
           "left_by_opening", "left_by_action", "moved_on", "negated", "new_turn", "opened", "opens_past", "owe",
           "paid", "past_action", "summon_negated", "text_allows", "used"]
