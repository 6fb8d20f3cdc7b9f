"""Chains as our events. The stream names neither an effect's type nor its costs, so an activation
gathers its costs and targets until MSG_CHAINED, and its type is judged by when it came."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..events import FZONE, Activated, CardMoved, ChainEnded, ChainLinkNegated, ChainLinkResolved, Cite, Cost, Event
from ..rules.spell_trap import leaves_after_resolving
from .cites import Effect, stayed_cite
from .constants import (LOCATION_MZONE, LOCATION_SZONE, MSG_BECOME_TARGET, MSG_CHAINED, MSG_CHAINING, MSG_CHAIN_END,
    MSG_CHAIN_NEGATED, MSG_CHAIN_SOLVED, MSG_CHAIN_SOLVING)
from .container import Where
from .messages import reads


@dataclass
class Link:
    card: str
    player: int
    effect_type: str | None
    negated: bool = False
    negated_by: int | None = None
    done: bool = False
    effect: Effect | None = None


@dataclass
class Activation:
    """A chain link between MSG_CHAINING and MSG_CHAINED: costs and targets gather here."""

    index: int
    card: str
    player: int
    link: int
    effect_type: str | None
    zone: int | None
    field_zone: bool
    costs: list[Cost] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    after: list[tuple[Event, int]] = field(default_factory=list)
    #: Counters removed while it is activated: a cost ("remove 3 Spell Counters from this card")
    #: paid while the card still holds them, so recorded before the activation moves it.
    counters_paid: list[Event] = field(default_factory=list)
    cite: Cite | None = None
    effect: Effect | None = None
    begins: int = -1               # the packet the activation's first event stands for


class ChainHandling:
    """The Importer's handlers for activations and the chain."""

    @reads(MSG_CHAINING)
    def on_chaining(self, m: dict) -> None:
        self.flush()
        at, code, link = m["at"], m["code"], m["chain"]
        card = self.field.lookup(at, code)
        place, self.pending_place = self.pending_place, None
        if card is None:
            self.note(f"no card at {at} activates {code}")
            card = place[0] if place else None
            if card is None:
                return
        player = at.controller & 1
        facts = self.fx(card)
        zone: int | None = None
        field_zone = False
        cite = None
        if place is not None and place[0] == card and (facts.is_spell or facts.is_trap or facts.is_pendulum):
            effect_type = None
            loc = self.field.our_loc(place[1])
            field_zone = loc.zone == FZONE
            zone = None if field_zone else loc.index
            if facts.is_trap:
                cite = Cite(card, "activated from the hand as its own text allows")
        elif place is not None:
            self.emit_place(place)
            effect_type = self.effect_type(card, player, link, at)
        elif card in self.facedown_st and (facts.is_spell or facts.is_trap):
            self.facedown_st.discard(card)
            effect_type = None
            if (facts.is_trap or facts.spell_subtype == "quickplay") and self.set_turn.get(card) == self.turn:
                cite = Cite(card, "activated the turn it was Set as its own text allows")
        else:
            effect_type = self.effect_type(card, player, link, at)
        effect = Effect(self.i, card, code, player, m["desc"])
        self.effect_log.append(effect)
        # the activation begins where the card was put in its zone, if it was (the engine's state
        # packets show it there from that MSG_MOVE on)
        flip, self.pending_flip = self.pending_flip, None
        begins = (place[2] if place is not None and place[0] == card and effect_type is None
                  else flip[1] if flip is not None and flip[0] == card and effect_type is None else self.i)
        self.activation = Activation(self.i, card, player, link, effect_type, zone, field_zone, cite=cite,
                                      effect=effect, begins=begins)

    def emit_place(self, place: tuple[str, Where, int]) -> None:
        card, w, _at = place
        to, pos = self.dest(w, card)
        self.emit(CardMoved(card=card, to=to, reason="sent", position=pos, cause=self.cause))

    def effect_type(self, card: str, player: int, link: int, at: Where) -> str:
        """Which kind of effect: the stream does not say, so judge by when it was activated."""
        facts = self.fx(card)
        if link > 1 or self.chain:
            return "quick"
        if facts.is_flip and card in self.flipped and at.location == LOCATION_MZONE:
            return "flip"
        if self.open_game_state(player):
            if at.location == LOCATION_SZONE and facts.is_pendulum and facts.is_monster:
                return "pendulum"
            return "ignition"
        return "trigger"

    @reads(MSG_BECOME_TARGET)
    def on_become_target(self, m: dict) -> None:
        act = self.activation
        if act is None:
            return
        for w in m["locs"]:
            card = self.field.lookup(w)
            if card is not None and card not in act.targets:
                act.targets.append(card)

    @reads(MSG_CHAINED)
    def on_chained(self, m: dict) -> None:
        act, self.activation = self.activation, None
        if act is None:
            return
        self.flush()
        self.emit_activation(act)

    def emit_activation(self, act: Activation) -> None:
        """The activation, its costs and targets, then what happened while it was made; the
        card is a chain link from here on."""
        ev = Activated(player=act.player, card=act.card, effect_type=act.effect_type, zone=act.zone,
                       field_zone=act.field_zone, targets=tuple(act.targets), costs=tuple(act.costs),
                       link=act.link, cite=act.cite)
        for paid in act.counters_paid:
            self.events.append(paid)
            self.sources.append(act.begins)
        self.events.append(ev)
        self.sources.append(act.begins)
        for event, source in act.after:
            self.events.append(event)
            self.sources.append(source)
        while len(self.chain) >= act.link:
            self.chain.pop()
        self.chain.append(Link(act.card, act.player, act.effect_type, effect=act.effect))
        self.last_link_card = act.card
        self.last_link_by_player[act.player] = act.card
        self.turn_activations.append((act.card, tuple(act.targets)))

    @reads(MSG_CHAIN_SOLVING)
    def on_chain_solving(self, m: dict) -> None:
        self.flush()
        ct = m["chain"]
        self.solving = ct
        self.solving_from = len(self.events)
        if 0 < ct <= len(self.chain):
            self.finish_negated(ct)

    def finish_negated(self, ct: int) -> None:
        link = self.chain[ct - 1]
        if link.negated and not link.done:
            link.done = True
            if link.effect_type is None:
                self.to_leave.append(link.card)   # a negated card activation goes to the GY
            self.emit(ChainLinkNegated(link=ct, by=link.negated_by))

    @reads(MSG_CHAIN_NEGATED)
    def on_chain_negated(self, m: dict) -> None:
        self.flush()
        ct = m["chain"]
        if 0 < ct <= len(self.chain) and not self.chain[ct - 1].negated:
            # Usually sent while the negating link resolves; the negated link's turn comes later.
            link = self.chain[ct - 1]
            link.negated = True
            link.negated_by = self.solving if self.solving and self.solving > ct else None
            if self.solving == ct:
                self.finish_negated(ct)

    @reads(MSG_CHAIN_SOLVED)
    def on_chain_solved(self, m: dict) -> None:
        self.flush()
        ct = m["chain"]
        if 0 < ct <= len(self.chain):
            link = self.chain[ct - 1]
            if link.negated:
                self.finish_negated(ct)
            elif not link.done:
                link.done = True
                if link.effect is not None:
                    link.effect.resolved = True
                self.resolved_link(link)
                self.emit(ChainLinkResolved(link=ct))
                self.solved_at = (self.i, link.card)
                self.resolved_turn.append((self.i, link.card, link.player))
                if len(self.events) == self.solving_from + 1:
                    self.quiet_links.append((link.card, link.player))
            self.last_resolved = (link.card, link.player)
            self.resolved_cards.add(link.card)
            del self.chain[ct - 1:]
        self.solving = None

    def resolved_link(self, link: Link) -> None:
        """SPELL-04, TRAP-04: a Normal or Quick-Play Spell, Ritual Spell or Normal or Counter Trap
        activated as a card goes to the GY once resolved (``to_leave``; the chain's end checks)."""
        facts = self.fx(link.card)
        if link.effect_type is None and leaves_after_resolving(facts):
            self.to_leave.append(link.card)

    @reads(MSG_CHAIN_END)
    def on_chain_end(self, m: dict) -> None:
        self.flush()
        self.solving = None
        for ct in range(len(self.chain), 0, -1):
            link = self.chain[ct - 1]
            if link.negated:
                self.finish_negated(ct)
            elif not link.done:
                self.note(f"chain link {ct} ends without resolving; counted as resolved")
                if link.effect is not None:
                    link.effect.resolved = True
                self.resolved_link(link)
                self.emit(ChainLinkResolved(link=ct))
        self.chain.clear()
        cite, self.to_leave = stayed_cite(self, self.to_leave), []
        self.emit(ChainEnded(cite=cite))
        self.chain_end_at = len(self.events)
        self.resolved_cards.clear()
        self.after_chain = (len(self.events), list(self.quiet_links))
        for card, player in self.quiet_links:     # what it did may show later this turn (Double Summon)
            self.ns_grants[player].append(card)
        self.quiet_links = []
