"""Chains as our events. The stream names neither an effect's type nor its costs, so an activation
gathers its costs and targets until MSG_CHAINED, and its type is judged by when it came."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..events import (FZONE, Activated, CardMoved, ChainEnded, ChainLinkNegated, ChainLinkResolved, Cite, Cost,
    CountersChanged, Event, LifePointsChanged)
from ..rules.spell_trap import leaves_after_resolving
from .authority import effects_of
from .cites import Effect, stayed_cite
from .constants import (LOCATION_GRAVE, LOCATION_MZONE, LOCATION_REMOVED, LOCATION_SZONE, MSG_BECOME_TARGET,
    MSG_CHAINED, MSG_CHAINING, MSG_CHAIN_END, MSG_CHAIN_NEGATED, MSG_CHAIN_SOLVED, MSG_CHAIN_SOLVING, MSG_WIN)
from .container import Where
from .messages import reads


#: What ends a link's resolution in the stream (``negated_while_solving`` looks no further).
_LINK_OVER = frozenset((MSG_CHAIN_SOLVED, MSG_CHAIN_SOLVING, MSG_CHAIN_END, MSG_WIN))


@dataclass
class Link:
    card: str
    player: int
    effect_type: str | None
    negated: bool = False
    negated_by: int | None = None
    done: bool = False             # its ``chain_link_resolved`` (or ``_negated``) is written
    effect: Effect | None = None
    activated_at: int = -1         # index of its ``activated`` in the events (``negates`` is set there)
    events_from: int = -1          # len(events) right after its ``chain_link_resolved``


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
    after_loss: bool = False       # a player was already at 0 LP when it began (MSG_CHAINING)


@dataclass(slots=True)
class ChainState:
    """The chain as the stream builds it, and what earlier links leave for later cites."""

    chain: list[Link] = field(default_factory=list)    # the open chain, link 1 first
    solving: int | None = None                         # the link resolving (MSG_CHAIN_SOLVING to _SOLVED)
    #: The link being activated: from MSG_CHAINING to MSG_CHAINED ``emit`` gathers events in it.
    activation: Activation | None = None
    #: A card put on the field from the hand to be activated by the next MSG_CHAINING, where, and
    #: the packet of that MSG_MOVE (where its activation begins).
    pending_place: tuple[str, Where, int] | None = None
    #: A Set card turned face-up to be activated by the next MSG_CHAINING, and that packet.
    pending_flip: tuple[str, int] | None = None
    last_link_card: str | None = None                  # the last card activated: a cause when none resolves
    last_link_by_player: dict[int, str] = field(default_factory=dict)   # the same, each player's
    #: Card activations of this chain that go to the GY once resolved or negated (``stayed_cite``).
    to_leave: list[str] = field(default_factory=list)
    #: (card, player) of the link that resolved last (a summon's procedure, a forced battle).
    last_resolved: tuple[str, int] | None = None
    chain_end_at: int = -1                             # len(events) right after the last chain_ended
    solved_at: tuple[int, str] | None = None           # (packet, card) of the last link resolved
    #: (packet, card, player) of each link resolved this turn, not negated (``damage_link``).
    resolved_turn: list[tuple[int, str, int]] = field(default_factory=list)
    #: Cards whose link resolved in this chain: their move from the field to the GY is "resolved".
    resolved_cards: set[str] = field(default_factory=set)
    #: This turn's activations and their targets (``granted_to``: who granted an ability).
    turn_activations: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    #: (card, player) of this chain's links that resolved with nothing to see (a grant for later).
    quiet_links: list[tuple[str, int]] = field(default_factory=list)
    #: len(events) at the last chain's end, and its quiet links (``summon_grant``).
    after_chain: tuple[int, list[tuple[str, int]]] = field(default_factory=lambda: (-1, []))


#: What other cards do while a link resolves, not the link's own outcome: counters a card on the
#: field places each time a Spell resolves (Spell Counters), LP a lasting effect gives. A link
#: with only these resolved quietly (Double Summon: its grant shows later).
_ASIDE = (CountersChanged, LifePointsChanged)
#: Where a Flip effect is activated from (EFF-05): the field, or the GY or banishment its monster
#: went to since its flip (destroyed by the attack that flipped it), as the rules allow.
_FLIPPED_IN = (LOCATION_MZONE, LOCATION_GRAVE, LOCATION_REMOVED)


class ChainHandling:
    """The Importer's handlers for activations and the chain."""

    @reads(MSG_CHAINING)
    def on_chaining(self, m: dict) -> None:
        self.flush()
        at, code, link = m["at"], m["code"], m["chain"]
        card = self.field.lookup(at, code)
        place, self.chains.pending_place = self.chains.pending_place, None
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
        elif card in self.moves.facedown_st and (facts.is_spell or facts.is_trap):
            self.moves.facedown_st.discard(card)
            effect_type = None
            if (facts.is_trap or facts.spell_subtype == "quickplay") and self.moves.set_turn.get(card) == self.turns.turn:
                cite = Cite(card, "activated the turn it was Set as its own text allows")
        else:
            effect_type = self.effect_type(card, player, link, at)
        if self.before_the_draw():
            # TURN-02, GEN-01: "before you draw: you can give up your normal draw" (Magical Blast);
            # the turn player's activation, cited, gives it up (the engine owes no draw after it)
            if cite is None:
                cite = Cite(card, "activated in the Draw Phase before the draw, as its own text allows")
            self.turns.draw_given_up = player == self.turns.turn_player
        effect = Effect(self.i, card, code, player, m["desc"])
        self.turns.effect_log.append(effect)
        # the activation begins where the card was put in its zone, if it was (the engine's state
        # packets show it there from that MSG_MOVE on)
        flip, self.chains.pending_flip = self.chains.pending_flip, None
        begins = (place[2] if place is not None and place[0] == card and effect_type is None
                  else flip[1] if flip is not None and flip[0] == card and effect_type is None else self.i)
        self.chains.activation = Activation(self.i, card, player, link, effect_type, zone, field_zone, cite=cite,
                                      effect=effect, begins=begins, after_loss=self.turns.lost)

    def before_the_draw(self) -> bool:
        """TURN-02: a Draw Phase whose normal draw is still owed (not the first player's first
        turn, SETUP-04, unless the room draws then too): only a card's own text activates there."""
        turns = self.turns
        return (turns.phase == "draw" and not turns.normal_drawn and not turns.draw_given_up
                and (turns.turn > 1 or "first_turn_draw" in turns.options))

    def emit_place(self, place: tuple[str, Where, int]) -> None:
        card, w, _at = place
        to, pos = self.dest(w, card)
        self.emit(CardMoved(card=card, to=to, reason="sent", position=pos, cause=self.cause))

    def effect_type(self, card: str, player: int, link: int, at: Where) -> str:
        """Which kind of effect: the stream does not say, so judge by when it was activated."""
        facts = self.fx(card)
        if link > 1 or self.chains.chain:
            return "quick"
        if facts.is_flip and at.location in _FLIPPED_IN and self.flip_owed(card):
            self.moves.flip_uses.append(card)     # EFF-05: one of the triggers its flip gave is spent
            return "flip"
        if self.open_game_state(player):
            if at.location == LOCATION_SZONE and facts.is_pendulum and facts.is_monster:
                return "pendulum"
            return "ignition"
        return "trigger"

    def flip_owed(self, card: str) -> bool:
        """EFF-05 as the rules count it (``rules.chain._check_flip``): each flip face-up this turn
        triggers each Flip effect its script declares (one when its script was not read) once, so
        a second Flip effect of one flip is a Flip effect too, and a third activation is not."""
        flips = self.moves.flipped.count(card)
        if not flips:
            return False
        effects = effects_of(self.facts.names)
        declared = effects.effects(self.field.code(card)) if effects is not None else ()
        return self.moves.flip_uses.count(card) < flips * (sum(1 for f in declared if f.kind == "flip") or 1)

    @reads(MSG_BECOME_TARGET)
    def on_become_target(self, m: dict) -> None:
        act = self.chains.activation
        if act is None:
            return
        for w in m["locs"]:
            card = self.field.lookup(w)
            if card is not None and card not in act.targets:
                act.targets.append(card)

    @reads(MSG_CHAINED)
    def on_chained(self, m: dict) -> None:
        act, self.chains.activation = self.chains.activation, None
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
        at = len(self.events)
        self.events.append(ev)
        self.sources.append(act.begins)
        for event, source in act.after:
            self.events.append(event)
            self.sources.append(source)
        while len(self.chains.chain) >= act.link:
            self.chains.chain.pop()
        self.chains.chain.append(Link(act.card, act.player, act.effect_type, effect=act.effect, activated_at=at))
        self.chains.last_link_card = act.card
        self.chains.last_link_by_player[act.player] = act.card
        self.chains.turn_activations.append((act.card, tuple(act.targets)))

    @reads(MSG_CHAIN_SOLVING)
    def on_chain_solving(self, m: dict) -> None:
        """A link starts resolving: its ``chain_link_resolved`` comes first, then what it does (the
        events up to its MSG_CHAIN_SOLVED), as the rules read a chain (NIS-06, TERM-14). A link
        whose activation was negated (now, or by a later link) does nothing: ``chain_link_negated``."""
        self.flush()
        ct = m["chain"]
        self.chains.solving = ct
        if not 0 < ct <= len(self.chains.chain):
            return
        link = self.chains.chain[ct - 1]
        if not link.negated and self.negated_while_solving(ct):
            link.negated = True
        if link.negated:
            self.finish_negated(ct)
        elif not link.done:
            link.done = True
            self.emit(ChainLinkResolved(link=ct))
            link.events_from = len(self.events)

    def negated_while_solving(self, ct: int) -> bool:
        """MSG_CHAIN_NEGATED of this very link before its MSG_CHAIN_SOLVED: negated as it began
        to resolve (an EVENT_CHAIN_ACTIVATING effect; ``processor.cpp`` SolveChain then skips its
        operation), so it does not resolve."""
        packets = self.packets
        for j in range(self.i + 1, len(packets)):
            pid = packets[j].id
            if pid in _LINK_OVER:
                return False
            if pid == MSG_CHAIN_NEGATED:
                m = self.msg(j)
                if m is not None and m["chain"] == ct:
                    return True
        return False

    def finish_negated(self, ct: int) -> None:
        link = self.chains.chain[ct - 1]
        if link.negated and not link.done:
            link.done = True
            if link.effect_type is None:
                self.chains.to_leave.append(link.card)   # a negated card activation goes to the GY
            self.emit(ChainLinkNegated(link=ct, by=link.negated_by))

    @reads(MSG_CHAIN_NEGATED)
    def on_chain_negated(self, m: dict) -> None:
        """A link's activation negated (``field::negate_chain``, ``Duel.NegateActivation``; an
        effect negated is MSG_CHAIN_DISABLED, and that link still resolves, doing nothing). Sent
        while the negating link resolves: its ``activated`` says which link it negates
        (``negates``: TRAP-06, TERM-14); the negated link's turn comes later."""
        self.flush()
        ct = m["chain"]
        chain = self.chains.chain
        if 0 < ct <= len(chain) and not chain[ct - 1].negated:
            link = chain[ct - 1]
            link.negated = True
            solving = self.chains.solving
            link.negated_by = solving if solving and solving > ct else None
            if link.negated_by is not None:
                self.name_negated(chain[link.negated_by - 1], ct)
            if solving == ct:
                self.finish_negated(ct)

    def name_negated(self, negator: Link, ct: int) -> None:
        """``negates`` on the negating link's ``activated``: one link, the first it negates (a
        link that negates several, "negate the activations of all", names the first; a note
        says so)."""
        at = negator.activated_at
        event = self.events[at] if 0 <= at < len(self.events) else None
        if not isinstance(event, Activated) or event.card != negator.card:
            return
        if event.negates is None:
            self.events[at] = replace(event, negates=ct)
        else:
            self.note(f"{negator.card} negates Chain Links {event.negates} and {ct}: its activated names only "
                      f"the first (negates holds one link)")

    @reads(MSG_CHAIN_SOLVED)
    def on_chain_solved(self, m: dict) -> None:
        """The link has resolved (its events are written after its ``chain_link_resolved``): what
        later cites read of it is kept from here (``solved_at``, ``resolved_turn``, quiet links)."""
        self.flush()
        ct = m["chain"]
        if 0 < ct <= len(self.chains.chain):
            link = self.chains.chain[ct - 1]
            if link.negated:
                self.finish_negated(ct)
            else:
                if not link.done:
                    self.note(f"chain link {ct} resolved with no MSG_CHAIN_SOLVING before it")
                    link.done = True
                    self.emit(ChainLinkResolved(link=ct))
                    link.events_from = len(self.events)
                if link.effect is not None:
                    link.effect.resolved = True
                self.resolved_link(link)
                self.chains.solved_at = (self.i, link.card)
                self.chains.resolved_turn.append((self.i, link.card, link.player))
                if all(type(e) in _ASIDE for e in self.events[link.events_from:]):
                    self.chains.quiet_links.append((link.card, link.player))
            self.chains.last_resolved = (link.card, link.player)
            self.chains.resolved_cards.add(link.card)
            del self.chains.chain[ct - 1:]
        self.chains.solving = None

    def resolved_link(self, link: Link) -> None:
        """SPELL-04, TRAP-04: a Normal or Quick-Play Spell, Ritual Spell or Normal or Counter Trap
        activated as a card goes to the GY once resolved (``to_leave``; the chain's end checks)."""
        facts = self.fx(link.card)
        if link.effect_type is None and leaves_after_resolving(facts):
            self.chains.to_leave.append(link.card)

    @reads(MSG_CHAIN_END)
    def on_chain_end(self, m: dict) -> None:
        self.flush()
        self.chains.solving = None
        for ct in range(len(self.chains.chain), 0, -1):
            link = self.chains.chain[ct - 1]
            if link.negated:
                self.finish_negated(ct)
                continue
            if not link.done:
                self.note(f"chain link {ct} ends without resolving; counted as resolved")
                self.emit(ChainLinkResolved(link=ct))
            else:
                self.note(f"chain link {ct} ends with no MSG_CHAIN_SOLVED; counted as resolved")
            if link.effect is not None:
                link.effect.resolved = True
            self.resolved_link(link)
        self.chains.chain.clear()
        cite, self.chains.to_leave = stayed_cite(self, self.chains.to_leave), []
        self.emit(ChainEnded(cite=cite))
        self.chains.chain_end_at = len(self.events)
        self.chains.resolved_cards.clear()
        self.chains.after_chain = (len(self.events), list(self.chains.quiet_links))
        for card, player in self.chains.quiet_links:     # what it did may show later this turn (Double Summon)
            self.summons.ns_grants[player].append(card)
        self.chains.quiet_links = []
