"""MSG_MOVE as our events. One message stands for many of ours (a cost, a Tribute or material, a
summon, a Spell/Trap put on the field, a zone change), so ``map_move`` decides here which it is;
a move to a Monster Zone is a summon's (``summons``)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..events import (ATTACK, BANISHED, DECK, DEFENSE, EXTRA, FACEDOWN, FACEDOWN_ATTACK, FACEUP, FZONE, GY, HAND,
    MZONE, OVERLAY, SET, SZONE, CardMoved, CardsSwapped, Cite, ControlChanged, Cost, HandSizeDiscard, Loc,
    SpellTrapSet, SummonNegated, TokenCreated, ZoneChanged)
from .cites import credit_gain, credit_spent
from .constants import (LOCATION_DECK, LOCATION_EXTRA, LOCATION_GRAVE, LOCATION_HAND, LOCATION_MZONE, LOCATION_OVERLAY,
    LOCATION_REMOVED, LOCATION_SZONE, MSG_CHAINING, MSG_MOVE, MSG_SET, MSG_SWAP, POS_ATTACK, POS_FACEDOWN_ATTACK,
    POS_FACEUP, POS_FACEUP_ATTACK, POS_FACEUP_DEFENSE, REASON_BATTLE, REASON_COST, REASON_DESTROY, REASON_DISCARD,
    REASON_FUSION, REASON_LINK, REASON_MATERIAL, REASON_RELEASE, REASON_RITUAL, REASON_RULE, REASON_SPSUMMON,
    REASON_SUMMON, REASON_SYNCHRO, REASON_XYZ)
from .container import Where
from .messages import reads


@dataclass(slots=True)
class MoveState:
    """What the importer remembers of cards on the field between messages: what our fold believes
    of them where the stream says otherwise, and what a later move or activation of them means.
    ``arrive`` and ``depart`` forget a card's entries as it enters or leaves the field."""

    #: (ATK, DEF, Level) our fold believes of a card on the field, written when an effect changed
    #: them (a ``stats_changed``); None in a place: the printed value.
    believed: dict[str, tuple[int | None, int | None, int | None]] = field(default_factory=dict)
    #: The counters on each card, by counter type: ``counters_changed`` carries the new count.
    counters: dict[str, dict[int, int]] = field(default_factory=dict)
    #: Spell/Trap cards face-down in a Spell & Trap Zone: turned face-up for MSG_CHAINING, a card activation.
    facedown_st: set[str] = field(default_factory=set)
    #: The turn each face-down Spell/Trap was Set (activated that turn, it needs a cite).
    set_turn: dict[str, int] = field(default_factory=dict)
    #: Monsters turned face-up this turn, once a flip (the rules' ``state.flipped``): an effect of
    #: theirs activated since may be a FLIP effect (EFF-05).
    flipped: list[str] = field(default_factory=list)
    #: Their FLIP effects activated this turn, one entry each (the rules' ``state.flip_uses``).
    flip_uses: list[str] = field(default_factory=list)
    #: Xyz materials our fold already sent to the GY with their monster (NIS-05): their own move is not written.
    auto_gy: set[str] = field(default_factory=set)
    #: The packet an Xyz monster left the field at, its materials not yet moved (``end_group``).
    group_from: int | None = None
    #: That group is the materials of a summon still held (``pending_materials``): ``flush`` writes
    #: them as one group when no summon takes them.
    group_pending: bool = False


def our_position(pos: int, zone: str) -> str | None:
    if zone == MZONE:
        if pos & POS_FACEUP_ATTACK:
            return ATTACK
        if pos & POS_FACEUP_DEFENSE:
            return DEFENSE
        if pos & POS_FACEDOWN_ATTACK:
            return FACEDOWN_ATTACK
        return SET
    if zone in (SZONE, FZONE):
        return FACEUP if pos & POS_FACEUP else SET
    if zone in (BANISHED, EXTRA):
        return FACEUP if pos & POS_FACEUP else FACEDOWN
    return None


class MoveHandling:
    """The Importer's handling of MSG_MOVE (``map_move`` decides which of our events it is)."""

    @reads(MSG_MOVE)
    def on_move(self, m: dict) -> None:
        code, old, new, reason = m["code"], m["old"], m["new"], m["reason"]
        ol, nl = old.location, new.location
        if ol == 0:
            if nl != LOCATION_MZONE:
                self.note(f"a card {code} appears out of nowhere in {new}; not mapped")
                return
            self.flush()
            card = self.field.new_token(new.controller & 1, code)
            self.field.place(new, card)
            self.arrive(card)
            self.summons.summoning.add(card)
            self.emit(TokenCreated(player=new.controller & 1, card=card, code=code, zone=new.sequence,
                                   position=ATTACK if new.position & POS_ATTACK else DEFENSE,
                                   cause=self.effect_cause(new.controller & 1)))
            return
        card = self.field.lookup(old, code)
        if card is None:
            self.note(f"no card at {old} for a move of {code}")
            return
        if ol == LOCATION_HAND and nl == LOCATION_MZONE and any(card == t for t, _ in self.summons.pending_tributes):
            # a Tribute returned to the hand (Fantastic Striborg: "returned to the hand instead of going
            # to the GY") is not the monster it is Tributed for, even with its passcode: after the
            # shuffle the hand's order says nothing, so another card with that passcode is the one
            tributes = {t for t, _ in self.summons.pending_tributes}
            hand = self.field.sides[old.controller & 1].hand
            card = next((c for c in hand if c not in tributes and self.field.code(c) == code), card)
        host_before = self.field.host_of(card) if ol & LOCATION_OVERLAY else None
        if ol == LOCATION_DECK and nl == LOCATION_HAND and old.controller == new.controller:
            deck = self.field.sides[old.controller & 1].deck
            credit_gain(self, old.controller & 1, 1, top=old.sequence == len(deck) - 1)
        elif ol == LOCATION_HAND and reason & REASON_DISCARD and old.controller == new.controller:
            credit_spent(self, old.controller & 1)
        self.field.remove(old, card)
        if nl:
            self.field.place(new, card)
        leaves_field = ol in (LOCATION_MZONE, LOCATION_SZONE) and nl not in (LOCATION_MZONE, LOCATION_SZONE)
        if leaves_field or (ol == LOCATION_MZONE and nl == LOCATION_SZONE) or (ol == LOCATION_SZONE and nl == LOCATION_MZONE):
            self.depart(card, ol == LOCATION_MZONE)
        self.map_move(card, code, old, new, reason, host_before)

    @reads(MSG_SWAP)
    def on_swap(self, m: dict) -> None:
        """Two cards on the field trade places (``field::swap_card``: Creature Swap between the
        players, ``Duel.SwapSequence`` within one). The core writes MSG_SWAP when each takes the
        other's very zone, else two MSG_MOVE (``map_move``'s zone and control changes)."""
        at1, at2 = m["at1"], m["at2"]
        card1, card2 = self.field.lookup(at1, m["code1"]), self.field.lookup(at2, m["code2"])
        if card1 is None or card2 is None:
            self.note(f"MSG_SWAP of {at1} and {at2}: no card there in the stream so far")
            return
        self.field.remove(at1, card1)
        self.field.remove(at2, card2)
        self.field.place(at2, card1)
        self.field.place(at1, card2)
        location = at1.location
        if location != at2.location or location not in (LOCATION_MZONE, LOCATION_SZONE) or (
                location == LOCATION_SZONE and 5 in (at1.sequence, at2.sequence)):
            self.note(f"MSG_SWAP of {at1} and {at2}: only two Monster or two Spell & Trap Zone cards trade "
                      "places in our events; not expressible")
            return
        self.flush()
        link = self.chains.chain[self.chains.solving - 1] if self.chains.solving is not None and 0 < self.chains.solving <= len(self.chains.chain) else None
        player = link.player if link is not None else self.turns.turn_player
        self.emit(CardsSwapped(player=player, card=card1, other=card2, cause=self.effect_cause(player)))

    def arrive(self, card: str) -> None:
        self.moves.believed.pop(card, None)
        self.moves.counters.pop(card, None)

    def depart(self, card: str, from_mzone: bool) -> None:
        """A card leaves the field (or changes rows): what our fold forgets or does by itself."""
        self.moves.believed.pop(card, None)
        self.moves.counters.pop(card, None)
        self.moves.facedown_st.discard(card)
        self.battle.attacked.pop(card, None)
        self.moves.set_turn.pop(card, None)
        if from_mzone:
            mats = self.field.overlays.get(card)
            if mats:
                if not self.moves.auto_gy:
                    self.moves.group_from = self.i     # the move group its materials wait for (end_group)
                self.moves.auto_gy.update(mats)        # NIS-05: our fold sends them to the GY with it
            if self.battle.attack and card in (self.battle.attack[0], self.battle.attack[1]) and not self.battle.calculated:
                self.battle.removed_by[card] = self.cause

    def end_group(self) -> None:
        """The first material of an Xyz monster that left arrives: every card of the move that took
        it off the field has moved. EDOPro sends the materials only then (``operations.cpp``
        send_to step 10: after the whole group, and after the equipment it destroyed for losing its
        target, REASON_LOST_TARGET), so the cards moved since, when each is a ``card_moved``, are one
        group (``with_next`` on all but the last) and our fold buries the materials after it (NIS-05).
        A monster that leaves on its own, or as the material of a summon still to come, makes no group."""
        start, self.moves.group_from = self.moves.group_from, None
        if start is None:
            return
        act = self.chains.activation
        if act is None and len(self.summons.pending_materials) >= 2 and self.summons.pending_materials[-1][4] >= start:
            self.moves.group_pending = True      # a Link Summon's materials, held for it (``flush``)
            return
        events = [ev for ev, _ in act.after] if act is not None else self.events
        sources = [at for _, at in act.after] if act is not None else self.sources
        first = len(events)
        while first and sources[first - 1] >= start and isinstance(events[first - 1], CardMoved):
            first -= 1
        if len(events) - first < 2 or (first and sources[first - 1] >= start):
            return                               # one card, or a group holding more than cards moved
        for n in range(first, len(events) - 1):
            if act is not None:
                act.after[n] = (replace(events[n], with_next=True), sources[n])
            else:
                events[n] = replace(events[n], with_next=True)

    def dest(self, w: Where, card: str) -> tuple[Loc, str | None]:
        loc = self.field.our_loc(w, card)
        return loc, our_position(w.position, loc.zone)

    def map_move(self, card: str, code: int, old: Where, new: Where, reason: int,
                 host_before: str | None) -> None:
        ol, nl = old.location, new.location
        player = new.controller & 1
        # a cost paid while activating: part of the activation (CHAIN-11)
        if self.chains.activation is not None and reason & REASON_COST and self.cost_move(card, old, new, reason):
            return
        # Xyz materials our fold already sent to the GY with their Xyz monster (NIS-05)
        if card in self.moves.auto_gy:
            self.end_group()
            self.moves.auto_gy.discard(card)
            if nl == LOCATION_GRAVE or nl == 0:
                return
            self.flush()
            to, pos = self.dest(new, card)
            self.emit(CardMoved(card=card, to=to, reason=self.reason_name(card, old, new, reason),
                                position=pos, cause=self.cause))
            return
        if nl & LOCATION_OVERLAY:
            host = self.field.lookup(Where(new.controller, nl & 0x7F, new.sequence, 0))
            if host is not None and (nl & 0x7F) != LOCATION_MZONE:
                self.summons.pre_overlay.setdefault(host, []).append(card)   # an Xyz Summon is coming
                self.summons.pending_at[card] = self.i
                self.remember_material(card, old)
                return
            self.flush()
            self.emit(CardMoved(card=card, to=Loc(new.controller & 1, OVERLAY, new.sequence),
                                reason="attached", cause=self.effect_cause(player)))
            return
        if ol & LOCATION_OVERLAY:
            if host_before is not None and not self.field.on_field(host_before) and nl == LOCATION_GRAVE:
                return           # left with its host (already in our GY)
            self.flush()
            to, pos = self.dest(new, card)
            self.emit(CardMoved(card=card, to=to, position=pos, cause=self.cause,
                                reason="detached" if nl == LOCATION_GRAVE else self.reason_name(card, old, new, reason)))
            return
        # summons
        if nl == LOCATION_MZONE and ol != LOCATION_MZONE:
            self.to_monster_zone(card, old, new, reason)
            return
        if ol == LOCATION_MZONE and nl == LOCATION_MZONE:
            self.flush()
            if (old.controller & 1) != player:
                self.emit(ControlChanged(player=player, card=card, to_player=player, zone=new.sequence,
                                         cause=self.effect_cause(player)))
            else:                                 # "move to another of your Monster Zones"
                self.emit(ZoneChanged(player=player, card=card, zone=new.sequence, cause=self.effect_cause(player)))
            return
        if nl == LOCATION_SZONE and ol != LOCATION_SZONE:
            self.to_spell_zone(card, old, new, reason)
            return
        if ol == LOCATION_SZONE and nl == LOCATION_SZONE:
            self.flush()
            to = self.field.our_loc(new)
            if (old.controller & 1) != player:
                self.emit(ControlChanged(player=player, card=card, to_player=player,
                                         zone=to.index or 0, cause=self.effect_cause(player)))
            elif to.zone == SZONE and self.field.our_loc(old).zone == SZONE:
                self.emit(ZoneChanged(player=player, card=card, zone=to.index or 0, cause=self.effect_cause(player)))
            else:
                self.note(f"{card} moves between the Field Zone and a Spell & Trap Zone; not expressible")
            return
        # parts of a summon that follows
        if ol == LOCATION_MZONE and reason & REASON_RELEASE and reason & REASON_SUMMON and not reason & REASON_SPSUMMON:
            self.summons.pending_tributes.append((card, self.field.our_loc(new)))
            self.summons.tributed_from[card] = old.controller & 1
            self.summons.pending_at[card] = self.i
            return
        if reason & REASON_MATERIAL and reason & (REASON_FUSION | REASON_SYNCHRO | REASON_XYZ | REASON_LINK | REASON_RITUAL):
            to, pos = self.dest(new, card) if nl else (Loc(old.controller & 1, GY), None)
            self.summons.pending_materials.append((card, reason, to, pos, self.i))
            self.remember_material(card, old)
            return
        self.flush()
        # a summon negated as it was attempted (SUM-03): the monster leaves before "summoned"
        if ol == LOCATION_MZONE and card in self.summons.summoning and self.chains.solving is not None:
            self.summons.summoning.discard(card)
            self.emit(SummonNegated(player=old.controller & 1, card=card, cause=self.cause))
            if nl not in (LOCATION_GRAVE, 0):
                to, pos = self.dest(new, card)
                self.emit(CardMoved(card=card, to=to, reason=self.reason_name(card, old, new, reason),
                                    position=pos, cause=self.cause))
            return
        # the turn player's discard down to six (HAND-01)
        if (ol == LOCATION_HAND and nl == LOCATION_GRAVE and reason & REASON_DISCARD and reason & REASON_RULE
                and self.turns.phase == "end" and self.chains.solving is None):
            self.hand_discard(card)
            return
        if nl == 0:                               # it leaves the duel: for our fold, to its owner's GY (CTRL-03)
            owner = self.owner_of(card)
            if not self.fx(card).is_token:
                self.note(f"{card} leaves the duel ({old} -> nowhere); sent to the GY instead")
            self.emit(CardMoved(card=card, to=Loc(owner, GY), reason=self.reason_name(card, old, new, reason),
                                cause=self.cause))
            return
        to, pos = self.dest(new, card)
        cite = None
        if to.zone in (HAND, DECK, GY, BANISHED, EXTRA) and to.controller != self.owner_of(card):
            cite = Cite(self.cause or card, f"puts the card in the opponent's {to.zone}")
        self.emit(CardMoved(card=card, to=to, reason=self.reason_name(card, old, new, reason),
                            position=pos, cause=self.cause, cite=cite))

    def reason_name(self, card: str, old: Where, new: Where, reason: int) -> str:
        ol, nl = old.location, new.location
        if nl in (LOCATION_MZONE, LOCATION_SZONE):
            # a card placed on the field keeps stale reason bits from its last move
            return "returned" if ol == LOCATION_REMOVED else "sent"
        if reason & REASON_DESTROY:
            if reason & REASON_BATTLE and card in self.battle.battle_destroyed:
                return "battle"
            return "destroyed"
        if reason & REASON_RELEASE:
            return "tributed" if ol == LOCATION_MZONE else "cost" if reason & REASON_COST else "sent"
        if reason & REASON_MATERIAL:
            return "material"
        if reason & REASON_DISCARD and ol == LOCATION_HAND:
            return "discarded"
        if ol == LOCATION_SZONE and nl == LOCATION_GRAVE and card in self.chains.resolved_cards \
                and card in self.chains.to_leave:
            # SPELL-04, TRAP-04: only what the rules send once resolved; a Continuous Trap whose own
            # effect sends it there went by that effect
            return "resolved"
        if reason & REASON_COST:
            return "cost"
        if nl == LOCATION_REMOVED:
            return "banished"
        if nl == LOCATION_HAND:
            return "returned" if ol in (LOCATION_MZONE, LOCATION_SZONE) else "added"
        if nl in (LOCATION_DECK, LOCATION_EXTRA):
            return "returned"
        if reason & REASON_RULE:
            return "rule"
        return "sent"

    def cost_move(self, card: str, old: Where, new: Where, reason: int) -> bool:
        act = self.chains.activation
        ol, nl = old.location, new.location
        zone = {LOCATION_GRAVE: GY, LOCATION_REMOVED: BANISHED, LOCATION_DECK: DECK, LOCATION_HAND: HAND,
                LOCATION_EXTRA: EXTRA}.get(nl)
        # A card activated as a Spell/Trap goes to its zone, never pays with itself (LOG-04); a
        # monster's effect may (Tribute or discard this card): a cost in the engine's order (CHAIN-11)
        if act is None or (card == act.card and act.effect_type is None) or zone is None or card in self.moves.auto_gy:
            return False
        if zone == BANISHED and not new.position & POS_FACEUP:
            return False
        if ol & LOCATION_OVERLAY:
            if zone != GY:
                return False
            why = "detached"
        elif reason & REASON_RELEASE:
            why = "tributed"
        elif reason & REASON_DISCARD and ol == LOCATION_HAND:
            why = "discarded"
        elif zone == BANISHED:
            why = "banished"
        else:
            why = "cost"
        if zone == EXTRA and ol in (LOCATION_MZONE, LOCATION_SZONE) and self.fx(card).is_pendulum:
            zone = GY                         # PEND-05: our fold sends it on to the Extra Deck face-up
        elif zone in (EXTRA, DECK) and ol not in (LOCATION_MZONE, LOCATION_SZONE, LOCATION_GRAVE,
                                                   LOCATION_REMOVED, LOCATION_HAND):
            return False
        if zone == DECK:
            return False                      # a deck position cannot be stated in a cost
        act.costs.append(Cost(card=card, to=zone, reason=why))
        return True

    def hand_discard(self, card: str) -> None:
        """Gather the End Phase discards that follow into one hand_size_discard."""
        cards = [card]
        j = self.i
        while True:
            j = self.next_significant(j)
            if j is None or self.packets[j].id != MSG_MOVE:
                break
            m = self.msg(j)
            o, n, r = m["old"], m["new"], m["reason"]
            if not (o.location == LOCATION_HAND and n.location == LOCATION_GRAVE and r & REASON_DISCARD and r & REASON_RULE):
                break
            other = self.field.lookup(o, m["code"])
            if other is None:
                break
            self.field.remove(o, other)
            self.field.place(n, other)
            cards.append(other)
            self.consumed.add(j)
        self.emit(HandSizeDiscard(player=self.turns.turn_player, cards=tuple(cards)))

    def following(self) -> tuple[int | None, int | None, dict | None]:
        j = self.next_significant(self.i)
        if j is None:
            return None, None, None
        return j, self.packets[j].id, self.msg(j)

    def next_names(self, w: Where) -> tuple[int | None, bool]:
        """The next significant message's id, and whether it names the zone ``w`` (the MSG_SUMMONING,
        MSG_SET or MSG_CHAINING that says what the move just made there was)."""
        _j, nid, nm = self.following()
        return nid, nm is not None and "at" in nm and (nm["at"].controller, nm["at"].location, nm["at"].sequence) == (
            w.controller, w.location, w.sequence)

    def to_spell_zone(self, card: str, old: Where, new: Where, reason: int) -> None:
        player = new.controller & 1
        nid, same = self.next_names(new)
        self.arrive(card)
        if old.location == LOCATION_MZONE:
            self.depart(card, True)
        if nid == MSG_CHAINING and same and old.location == LOCATION_HAND:
            self.flush()
            self.chains.pending_place = (card, new, self.i)  # the activation puts it there
            return
        self.flush()
        to, pos = self.dest(new, card)
        if nid == MSG_SET and same:
            self.moves.facedown_st.add(card)
            if old.location == LOCATION_HAND:
                self.moves.set_turn[card] = self.turns.turn
                cite = Cite(self.cause, "Set during the resolution of its effect") if self.cause else None
                self.emit(SpellTrapSet(player=player, card=card, zone=to.index or 0, field_zone=to.zone == FZONE,
                                       cite=cite))
                return
            pos = SET
        elif pos == SET:
            self.moves.facedown_st.add(card)
        self.emit(CardMoved(card=card, to=to, reason=self.reason_name(card, old, new, reason), position=pos,
                            cause=self.effect_cause(player)))
