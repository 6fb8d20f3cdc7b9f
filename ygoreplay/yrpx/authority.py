"""The engine is the authority on a duel it played: what our rules would refuse becomes a cite.

EDOPro's core ran every card's script; our rules know the basic rules and a few card facts. So
on an imported duel a play our rules refuse is never a violation: the importer folds its events
once (auditing) and gives each event that broke a rule without a cite one (GEN-01), choosing the
card behind it in this order:

1. **effect facts** (``effect_facts``, from the card scripts ``ygoreplay cards update --scripts``
   read): a card in play whose script declares what the rule sets aside (``RULE_FACTS``: a Trap
   activated in the Damage Step whose effect has ``EFFECT_FLAG_DAMAGE_STEP``; a second Normal
   Summon beside a card with ``EFFECT_EXTRA_SUMMON_COUNT``; no battle damage beside
   ``EFFECT_AVOID_BATTLE_DAMAGE``). Looked at first: the event's cause, the card it names, its
   materials, Tributes and targets, the chain's links (newest first), the attacker and the attack
   target, then every face-up card on the field;
2. **the stream**: the card whose effect was resolving (the cause, else the link whose
   ``chain_link_resolved`` the event follows), else the newest open chain link's card,
   else the card the event names when its own text may allow it (the card activated, summoned,
   moved: not for a rule of the turn's structure or a player's count, ``NOT_ITS_OWN``);
3. **unexplained**: else the cite says so (``events.UNEXPLAINED``), for a judge to review; it
   names the card the event names, else the last chain link's card, else none ("").

The audit then lists overrides, never violations; ``audit`` and the import summary count the
unexplained ones. One place (``import_yrpx``), so every door that imports gets it.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Protocol

from ..effect_facts import EffectFact
from ..events import FZONE, MZONE, SZONE, UNEXPLAINED, Cite, Event
from ..importing import ImportResult
from ..rules import History, RuleViolation, apply
from ..state import DuelState, Violation


class Effects(Protocol):
    def effects(self, code: int) -> tuple[EffectFact, ...]: ...


_NO_DAMAGE = ("EFFECT_AVOID_BATTLE_DAMAGE", "EFFECT_NO_BATTLE_DAMAGE", "EFFECT_CHANGE_BATTLE_DAMAGE",
              "EFFECT_REFLECT_BATTLE_DAMAGE", "EFFECT_BOTH_BATTLE_DAMAGE", "EFFECT_ALSO_BATTLE_DAMAGE",
              "EFFECT_PIERCE", "EFFECT_INDESTRUCTABLE_BATTLE")

#: A rule's ID, or its family (``DMG``), and the effect fact that sets it aside, with what to say.
RULE_FACTS: dict[str, tuple[Callable[[EffectFact], bool], str]] = {
    "BATTLE-09": (lambda f: f.in_damage_step, "its script allows activating it in the Damage Step"),
    "BATTLE-10": (lambda f: "damage_cal" in f.properties or f.code == "EVENT_PRE_DAMAGE_CALCULATE",
                  "its script allows activating it during damage calculation"),
    "DMG": (lambda f: f.applies(*_NO_DAMAGE), "its script changes the battle damage or destruction"),
    "SUM-01": (lambda f: f.applies("EFFECT_EXTRA_SUMMON_COUNT", "EFFECT_EXTRA_SET_COUNT"),
               "its script grants an additional Normal Summon or Set"),
    "SYN-01": (lambda f: f.applies("EFFECT_HAND_SYNCHRO", "EFFECT_SYNCHRO_MAT_FROM_HAND", "EFFECT_EXTRA_MATERIAL",
                                   "EFFECT_SYNCHRO_MATERIAL_CUSTOM"),
               "its script lets it be Synchro Material from another place"),
    "SPELL-03": (lambda f: f.applies("EFFECT_MONSTER_SSET"), "its script Sets a monster in the Spell & Trap Zone"),
    "PEND": (lambda f: f.applies("EFFECT_EXTRA_PENDULUM_SUMMON"), "its script allows an extra Pendulum Summon"),
}

#: Rules the card an event names cannot set aside by its own text: the turn's structure and
#: what a player may do a number of times (the card summoned is no reason for a second summon).
NOT_ITS_OWN = ("PRIO-", "TURN-", "LOG-", "SUM-01", "WIN-", "SETUP-", "DECK-")


#: What ends the resolving link's events (``CitingFold`` cites them from that link).
_LINK_DONE = frozenset(("chain_link_negated", "chain_ended"))


class CitingFold:
    """The import's one auditing fold, citing as it goes (``append``): ``engine_check`` compares
    its board with the engine's state packets on the way, so one fold gives the cites, the audit
    and the agreement (folding twice was a fifth of an import).

    An event is first applied strictly: a refused event leaves the state as it was (the fold's
    promise: ``rules.apply``), so only an event the rules refuse costs more: it is applied as it
    is to a copy of that state (``DuelState.copy``) to learn every rule it breaks and the board it
    leaves, as an uncited audit would, and then applied cited to the state itself, as the audit
    of the cited record does."""

    def __init__(self, result: ImportResult, effects: Effects | None) -> None:
        self.result = result
        self.effects = effects
        self.history = History(result.cards, audit=True)
        self.resolving_link: tuple[str, int] | None = None   # the link whose chain_link_resolved came last

    def append(self, k: int) -> None:
        """Fold event ``k``, cited first if the rules refuse it and it has no cite."""
        history = self.history
        event = self.result.events[k]
        state = history.state
        kind = event.kind
        before = self.resolving_link
        if kind == "chain_link_resolved" and 1 <= event.link <= len(state.chain):
            link = state.chain[event.link - 1]
            self.resolving_link, before = (link.card, link.number), None
        elif kind in _LINK_DONE:
            self.resolving_link = before = None
        if event.cite is not None:
            history.append(event)
            return
        try:
            history.append(event, strict=True)
            return
        except RuleViolation:
            pass                                      # refused: the state is as it was before the event
        chain = [(link.card, link.number) for link in state.chain]
        if before is not None:
            chain.append(before)                      # the events after its chain_link_resolved are its
        trial = state.copy()
        trial.violations = []
        try:
            apply(trial, event)
        except RuleViolation as v:
            trial.violations.append(Violation(v.index, v.rule, v.message))
        broken = tuple(dict.fromkeys(v.rule for v in trial.violations))
        if broken:
            cite = _cite(event, broken, chain, state.resolving, trial, self.effects)
            event = self.result.events[k] = replace(event, cite=cite)
            self.result.engine_allowed.append((k, broken, cite))
            what = "unexplained, for review" if cite.unexplained else f"cited {_label(trial, cite.card)}: {cite.effect}"
            self.result.notes.append(f"event {k} ({kind}): the engine allowed what {', '.join(broken)} refuses; {what}")
        history.append(event)


def _cite(event: Event, rules: tuple[str, ...], chain: list[tuple[str, int]], resolving: bool,
          state: DuelState, effects: Effects | None) -> Cite:
    subject = _subject(event, state)
    cause = getattr(event, "cause", None)
    named = [c for attr in ("materials", "tributes", "targets") for c in getattr(event, attr, ()) or ()]
    near = [c for c in (cause, subject, *named, *(card for card, _ in reversed(chain))) if c]
    if state.attack is not None:
        near += [c for c in (state.attack.attacker, state.attack.target) if c]
    if effects is not None:
        found = _by_facts(rules, near + _face_up(state), state, effects)
        if found is not None:
            return found
    said = ", ".join(rules)
    if cause:
        return Cite(cause, f"the engine allowed it ({said}) while this card's effect applied")
    if resolving and chain:
        return Cite(chain[-1][0], f"the engine allowed it ({said}) while this card's chain link {chain[-1][1]} resolved")
    if chain:
        return Cite(chain[-1][0], f"the engine allowed it ({said}) with this card's chain link {chain[-1][1]} open")
    if subject and _has_text(state, subject) and not any(rule.startswith(NOT_ITS_OWN) for rule in rules):
        return Cite(subject, f"the engine allowed it ({said}): this card's own text (inferred)")
    return Cite(subject or "", f"{UNEXPLAINED}the engine allowed it ({said}) and no card in the record explains it")


def _by_facts(rules: tuple[str, ...], cards: list[str], state: DuelState, effects: Effects) -> Cite | None:
    tests = [RULE_FACTS[key] for rule in rules for key in (rule, rule.split("-")[0]) if key in RULE_FACTS]
    for card in dict.fromkeys(cards):
        known = state.cards.get(card)
        if known is None or not known.code:
            continue
        for fact in effects.effects(known.code):
            for test, says in tests:
                if test(fact):
                    return Cite(card, f"{says} ({fact.describe()})")
    return None


def _has_text(state: DuelState, card: str) -> bool:
    """A card with an effect of its own (not a Normal Monster or a token)."""
    known = state.cards.get(card)
    return known is not None and not known.facts.is_normal_monster and not known.facts.is_token


def _label(state: DuelState, card: str) -> str:
    known = state.cards.get(card)
    return f"{card} {known.facts.name}" if known is not None else card


def _subject(event: Event, state: DuelState) -> str | None:
    """The card the event names (activated, summoned, moved), else the attacker in battle."""
    card = getattr(event, "card", None)
    if isinstance(card, str) and card:
        return card
    attacker = getattr(event, "attacker", None)
    if isinstance(attacker, str) and attacker:
        return attacker
    return state.attack.attacker if state.attack is not None else None


def _face_up(state: DuelState) -> list[str]:
    return [card.id for card in state.cards.values()
            if card.zone in (MZONE, SZONE, FZONE) and card.face_up]


def effects_of(names: object) -> Effects | None:
    """The effect facts a card source gives (``CardDB``, ``card_sources.CardLookup``), if any."""
    return names if names is not None and callable(getattr(names, "effects", None)) else None


__all__ = ["CitingFold", "NOT_ITS_OWN", "RULE_FACTS", "effects_of"]
