"""MSG_MOVE as our events. One message stands for many of ours (a cost, a Tribute or material, a
summon, a Spell/Trap put on the field, a zone change), so ``map_move`` decides here which it is."""
from __future__ import annotations

from dataclasses import replace

from ..events import (ATTACK, BANISHED, DECK, DEFENSE, EXTRA, FACEDOWN, FACEDOWN_ATTACK, FACEUP, FZONE, GY, HAND,
    MZONE, OVERLAY, SET, SZONE, CardMoved, CardsSwapped, Cite, ControlChanged, Cost, HandSizeDiscard, Loc, MonsterSet,
    NormalSummoned, SpecialSummoned, SpellTrapSet, StatsChanged, SummonNegated, TokenCreated, ZoneChanged)
from ..rules.summon import PROPER_METHODS, between_scales
from .cites import credit_gain, credit_spent, granted_to, normal_summon_cite, special_summon_cite
from .constants import (LOCATION_DECK, LOCATION_EXTRA, LOCATION_GRAVE, LOCATION_HAND, LOCATION_MZONE, LOCATION_OVERLAY,
    LOCATION_REMOVED, LOCATION_SZONE, MSG_BECOME_TARGET, MSG_CARD_SELECTED, MSG_CHAINING, MSG_HINT, MSG_MOVE,
    MSG_PAY_LPCOST, MSG_SET, MSG_SPSUMMONING, MSG_SUMMONING, MSG_SWAP, MSG_UPDATE_CARD, MSG_UPDATE_DATA, POS_ATTACK,
    POS_DEFENSE, POS_FACEDOWN_ATTACK, POS_FACEUP, POS_FACEUP_ATTACK, POS_FACEUP_DEFENSE, REASON_BATTLE, REASON_COST,
    REASON_DESTROY, REASON_DISCARD, REASON_FUSION, REASON_LINK, REASON_MATERIAL, REASON_RELEASE, REASON_RITUAL,
    REASON_RULE, REASON_SPSUMMON, REASON_SUMMON, REASON_SYNCHRO, REASON_XYZ)
from .container import Where
from .messages import QUIET, Query, parse_update_card, parse_update_data, reads


#: The Spell & Trap Zones that are Pendulum Zones: 0 and 4 (Master Rule 4 on), 6 and 7 (Master Rule 3).
_PZONES = (0, 4, 6, 7)

_MATERIAL_METHODS = ((REASON_FUSION, "fusion"), (REASON_SYNCHRO, "synchro"), (REASON_XYZ, "xyz"),
                     (REASON_LINK, "link"), (REASON_RITUAL, "ritual"))


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
            self.summoning.add(card)
            self.emit(TokenCreated(player=new.controller & 1, card=card, code=code, zone=new.sequence,
                                   position=ATTACK if new.position & POS_ATTACK else DEFENSE,
                                   cause=self.effect_cause(new.controller & 1)))
            return
        card = self.field.lookup(old, code)
        if card is None:
            self.note(f"no card at {old} for a move of {code}")
            return
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
        link = self.chain[self.solving - 1] if self.solving is not None and 0 < self.solving <= len(self.chain) else None
        player = link.player if link is not None else self.turn_player
        self.emit(CardsSwapped(player=player, card=card1, other=card2, cause=self.effect_cause(player)))

    def arrive(self, card: str) -> None:
        self.believed.pop(card, None)
        self.counters.pop(card, None)

    def depart(self, card: str, from_mzone: bool) -> None:
        """A card leaves the field (or changes rows): what our fold forgets or does by itself."""
        self.believed.pop(card, None)
        self.counters.pop(card, None)
        self.facedown_st.discard(card)
        self.attacked.pop(card, None)
        self.set_turn.pop(card, None)
        if from_mzone:
            mats = self.field.overlays.get(card)
            if mats:
                if not self.auto_gy:
                    self.group_from = self.i     # the move group its materials wait for (end_group)
                self.auto_gy.update(mats)        # NIS-05: our fold sends them to the GY with it
            if self.attack and card in (self.attack[0], self.attack[1]) and not self.calculated:
                self.removed_by[card] = self.cause

    def end_group(self) -> None:
        """The first material of an Xyz monster that left arrives: every card of the move that took
        it off the field has moved. EDOPro sends the materials only then (``operations.cpp``
        send_to step 10: after the whole group, and after the equipment it destroyed for losing its
        target, REASON_LOST_TARGET), so the cards moved since, when each is a ``card_moved``, are one
        group (``with_next`` on all but the last) and our fold buries the materials after it (NIS-05).
        A monster that leaves on its own, or as the material of a summon still to come, makes no group."""
        start, self.group_from = self.group_from, None
        if start is None:
            return
        act = self.activation
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
        if self.activation is not None and reason & REASON_COST and self.cost_move(card, old, new, reason):
            return
        # Xyz materials our fold already sent to the GY with their Xyz monster (NIS-05)
        if card in self.auto_gy:
            self.end_group()
            self.auto_gy.discard(card)
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
                self.pre_overlay.setdefault(host, []).append(card)   # an Xyz Summon is coming
                self.pending_at[card] = self.i
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
            self.pending_tributes.append((card, self.field.our_loc(new)))
            self.tributed_from[card] = old.controller & 1
            self.pending_at[card] = self.i
            return
        if reason & REASON_MATERIAL and reason & (REASON_FUSION | REASON_SYNCHRO | REASON_XYZ | REASON_LINK | REASON_RITUAL):
            to, pos = self.dest(new, card) if nl else (Loc(old.controller & 1, GY), None)
            self.pending_materials.append((card, reason, to, pos, self.i))
            self.remember_material(card, old)
            return
        self.flush()
        # a summon negated as it was attempted (SUM-03): the monster leaves before "summoned"
        if ol == LOCATION_MZONE and card in self.summoning and self.solving is not None:
            self.summoning.discard(card)
            self.emit(SummonNegated(player=old.controller & 1, card=card, cause=self.cause))
            if nl not in (LOCATION_GRAVE, 0):
                to, pos = self.dest(new, card)
                self.emit(CardMoved(card=card, to=to, reason=self.reason_name(card, old, new, reason),
                                    position=pos, cause=self.cause))
            return
        # the turn player's discard down to six (HAND-01)
        if (ol == LOCATION_HAND and nl == LOCATION_GRAVE and reason & REASON_DISCARD and reason & REASON_RULE
                and self.phase == "end" and self.solving is None):
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
            if reason & REASON_BATTLE and card in self.battle_destroyed:
                return "battle"
            return "destroyed"
        if reason & REASON_RELEASE:
            return "tributed" if ol == LOCATION_MZONE else "cost" if reason & REASON_COST else "sent"
        if reason & REASON_MATERIAL:
            return "material"
        if reason & REASON_DISCARD and ol == LOCATION_HAND:
            return "discarded"
        if ol == LOCATION_SZONE and nl == LOCATION_GRAVE and card in self.resolved_cards:
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
        act = self.activation
        ol, nl = old.location, new.location
        zone = {LOCATION_GRAVE: GY, LOCATION_REMOVED: BANISHED, LOCATION_DECK: DECK, LOCATION_HAND: HAND,
                LOCATION_EXTRA: EXTRA}.get(nl)
        # A card activated as a Spell/Trap goes to its zone, never pays with itself (LOG-04); a
        # monster's effect may (Tribute or discard this card): a cost in the engine's order (CHAIN-11)
        if act is None or (card == act.card and act.effect_type is None) or zone is None or card in self.auto_gy:
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
        self.emit(HandSizeDiscard(player=self.turn_player, cards=tuple(cards)))

    def following(self) -> tuple[int | None, int | None, dict | None]:
        j = self.next_significant(self.i)
        if j is None:
            return None, None, None
        return j, self.packets[j].id, self.msg(j)

    def to_monster_zone(self, card: str, old: Where, new: Where, reason: int) -> None:
        player = new.controller & 1
        _j, nid, nm = self.following()
        same = nm is not None and "at" in nm and (nm["at"].controller, nm["at"].location, nm["at"].sequence) == (
            new.controller, new.location, new.sequence)
        self.arrive(card)
        if nid in (MSG_SUMMONING, MSG_SET) and same and old.location == LOCATION_HAND:
            pending, self.pending_tributes = self.pending_tributes, []
            tributes = tuple(c for c, _ in pending)
            self.flush()
            self.began_at = self.began(tributes)
            try:
                self.normal_summon(card, new, player, nid, pending, tributes)
            finally:
                self.began_at = None
            return
        if reason & REASON_SPSUMMON or nid == MSG_SPSUMMONING:
            self.special_summon(card, old, new, reason)
            return
        waiting = self.pre_overlay.pop(card, None)    # materials attached to it before it came out
        self.flush()
        to, pos = self.dest(new, card)
        self.emit(CardMoved(card=card, to=to, reason=self.reason_name(card, old, new, reason), position=pos,
                            cause=self.effect_cause(player)))
        for material in waiting or ():
            self.pending_at.pop(material, None)
            self.emit(CardMoved(card=material, to=Loc(player, OVERLAY, new.sequence), reason="attached",
                                cause=self.effect_cause(player)))

    def normal_summon(self, card: str, new: Where, player: int, nid: int, pending: list[tuple[str, Loc]],
                      tributes: tuple[str, ...]) -> None:
        """A Normal Summon or Set from the hand, with the Tributes just released (SUM-01, SUM-04)."""
        level = self.sync_level(card, new)
        cite = normal_summon_cite(self, card, player, len(tributes), level)
        theirs = [t for t in tributes if self.tributed_from.pop(t, player) != player]
        if cite is None and theirs:              # SUM-06: a Tribute the summoner did not control
            cite = Cite(granted_to(self, theirs[0]), "Tributes the opponent's monster, as this card's effect allows")
        if nid == MSG_SUMMONING:
            position = DEFENSE if new.position & POS_DEFENSE else ATTACK
            self.summoning.add(card)
            self.emit(NormalSummoned(player=player, card=card, zone=new.sequence, tributes=tributes,
                                     position=position, cite=cite))
        else:
            self.emit(MonsterSet(player=player, card=card, zone=new.sequence, tributes=tributes, cite=cite))
        for tribute, to in pending:
            if to.zone not in (GY, EXTRA):        # redirected (e.g. banished instead): move it on
                self.emit(CardMoved(card=tribute, to=to, reason="banished" if to.zone == BANISHED else "returned"))

    def remember_material(self, card: str, old: Where) -> None:
        """Where a material came from, with what EDOPro last said of it there (Level, Tuner)."""
        query = self.field_query(old) if old.location == LOCATION_MZONE else None
        self.material_from[card] = (old, query)

    def field_query(self, w: Where) -> Query | None:
        """The latest refresh of the zone ``w`` (Monster or Spell & Trap) before the current packet
        (parsed on demand)."""
        for j in range(self.i - 1, max(0, self.i - 400), -1):
            p = self.packets[j]
            if p.id == MSG_UPDATE_DATA and len(p.payload) > 2 and p.payload[0] == w.controller and p.payload[1] == w.location:
                queries = self.refresh_cache.get(j)
                if queries is None:
                    queries = self.refresh_cache[j] = parse_update_data(p.payload, p.offset)[2]
                return queries[w.sequence] if w.sequence < len(queries) else None
        return None

    def special_summon(self, card: str, old: Where, new: Where, reason: int) -> None:
        pending, self.pending_materials = self.pending_materials, []
        tributes, self.pending_tributes = self.pending_tributes, []
        overlay = self.pre_overlay.pop(card, [])
        moved_at = [self.pending_at.pop(c) for c in [t for t, _ in tributes] + overlay if c in self.pending_at]
        moved_at += [at for *_, at in pending]
        self.began_at = min(moved_at) if moved_at else None
        try:
            self.write_special_summon(card, old, new, pending, tributes, overlay)
        finally:
            self.began_at = None

    def write_special_summon(self, card: str, old: Where, new: Where, pending: list, tributes: list,
                             overlay: list[str]) -> None:
        """The Special Summon of ``card``, its method told by its materials (module docstring).

        Materials that all go to the GY are listed in the event, which sends them in that order.
        When some go elsewhere (banished, say), each is a ``card_moved`` "material" of its own,
        in the engine's order and at its own packet, and the summon lists none: the GY then
        grows exactly as the engine's state packets show it (ZONE-13)."""
        player = new.controller & 1
        cause = self.procedure_cause(player)
        # Levels an effect changed on the field are what the procedure used (SYN-01, XYZ-01, RIT-02)
        for m_card in [m for m, *_ in pending] + overlay:
            self.sync_material_level(m_card)
        for t, w in tributes:
            self.emit(CardMoved(card=t, to=w, reason="tributed", cause=cause))
        mat_reason = 0
        listed: list[str] = []
        sent = all(to.zone == GY or (to.zone == EXTRA and pos == FACEUP) or self.fx(m_card).is_token
                   for m_card, _r, to, pos, _at in pending)
        for m_card, m_reason, to, pos, at in pending:
            mat_reason |= m_reason
            if sent:
                listed.append(m_card)
            else:
                self.emit(CardMoved(card=m_card, to=to, reason="material", position=pos, cause=cause), at)
        if not sent:
            self.began_at = None                  # the summon itself comes at its own packet
        if overlay:
            listed = overlay + listed
            mat_reason |= REASON_XYZ
        self.flush()
        method = next((name for bit, name in _MATERIAL_METHODS if mat_reason & bit), None)
        if method is None:
            if cause is not None:
                method = "effect"
            elif self.is_pendulum_summon(old, player):
                method = "pendulum"
            else:
                method = "inherent"
        elif self.fx(card).is_xyz and method != "xyz" and overlay:
            method = "xyz"
        materials = [m for m, *_ in pending] + overlay
        self.arrive(card)
        self.summoning.add(card)
        position = our_position(new.position, MZONE) or ATTACK
        cite = special_summon_cite(self, card, old, new, method, cause, materials)
        if cite is None and method == "pendulum":
            cite = self.scale_cite(card, player)
        if method in PROPER_METHODS:
            self.proper.add(card)
        self.emit(SpecialSummoned(player=player, card=card, zone=new.sequence, method=method,
                                  position=position, materials=tuple(listed), cite=cite,
                                  cause=cause if method != "inherent" and method != "pendulum" else None))

    def procedure_cause(self, player: int) -> str | None:
        """The effect making a summon: the link resolving, the link that just resolved when the
        summon comes between links (an effect's "then Synchro Summon"), or the chain's last link
        when it comes right after the chain ended, outside the player's open game state."""
        if self.cause is not None:
            return self.cause
        if self.last_resolved is not None:
            card, who = self.last_resolved
            if self.chain and self.solving is None:
                return card
            if len(self.events) == self.chain_end_at and not self.open_game_state(player) and who == player:
                return card
        return None

    def sync_material_level(self, card: str) -> None:
        old, query = self.material_from.get(card, (None, None))
        if query is None or query.level is None:
            return
        facts = self.fx(card)
        if facts.printed_level is None:
            return
        believed = (self.believed.get(card) or (None, None, facts.printed_level))[2]
        if query.level != believed and query.level > 0:
            b = self.believed.get(card) or (None, None, None)
            self.believed[card] = (b[0], b[1], query.level)
            self.emit(StatsChanged(player=old.controller & 1, card=card, level=query.level))

    def current_level(self, card: str) -> int:
        facts = self.fx(card)
        level = (self.believed.get(card) or (None, None, None))[2]
        return level if level is not None else (facts.printed_level or 0)

    def is_pendulum_summon(self, old: Where, player: int) -> bool:
        """Whether a summon from the hand or Extra Deck with no materials and no effect making it
        is a Pendulum Summon (SPS-02): told by the stream, not by the Levels between the Scales.

        EDOPro's Pendulum procedure (``proc_pendulum.lua``) shows both Scales it uses,
        ``Duel.HintSelection`` (MSG_CARD_SELECTED; MSG_BECOME_TARGET in its scripts before June
        2021), right before it moves its monsters, each moved then MSG_SPSUMMONING, one
        MSG_SPSUMMONED for all; a Special Summon's LP cost (EFFECT_SPSUMMON_COST) may come
        between. A card's own procedure from the hand (Photon Thrasher, Chaos Sorcerer's
        banishing cost, Quickdraw Synchron's discard) shows no Scale: it is inherent, even with
        its Level between the player's Scales."""
        if old.location not in (LOCATION_HAND, LOCATION_EXTRA):
            return False
        szone = self.field.sides[player].szone
        shown: set[int] = set()
        for j in range(self.i - 1, max(-1, self.i - 200), -1):
            p = self.packets[j]
            if p.id in (MSG_CARD_SELECTED, MSG_BECOME_TARGET):
                locs = self.msg(j)["locs"]
                if not all(w.controller == player and w.location == LOCATION_SZONE and w.sequence in _PZONES
                           and szone[w.sequence] is not None and self.fx(szone[w.sequence]).is_pendulum
                           for w in locs):
                    return False
                shown.update(w.sequence for w in locs)
                if len(shown) >= 2:
                    return True
            elif p.id == MSG_MOVE:                # an earlier monster of the same Pendulum Summon
                m = self.msg(j)
                if not (m["reason"] & REASON_SPSUMMON and m["new"].location == LOCATION_MZONE):
                    return False
            elif p.id not in (MSG_SPSUMMONING, MSG_PAY_LPCOST) and p.id not in QUIET:
                return False                      # (an LP cost: operations.cpp SpSummonRule step 21)
        return False

    def scale_cite(self, card: str, player: int) -> Cite | None:
        """The Scale card whose Pendulum Scale an effect changed (Stargazer Magician's becomes 4),
        when the Level is strictly between the Scales EDOPro reports and not the printed ones
        (PEND-03 set aside, GEN-01): the rules know only printed Scales."""
        szone = self.field.sides[player].szone
        held = [(k, szone[k]) for k in _PZONES if szone[k] is not None and self.fx(szone[k]).is_pendulum]
        if len(held) != 2:
            return None
        level = self.current_level(card)
        (left_k, left), (right_k, right) = held
        printed = (self.fx(left).lscale, self.fx(right).rscale)
        queries = [self.field_query(Where(player, LOCATION_SZONE, k, POS_FACEUP)) for k in (left_k, right_k)]
        current = (queries[0].lscale if queries[0] and queries[0].lscale is not None else printed[0],
                   queries[1].rscale if queries[1] and queries[1].rscale is not None else printed[1])
        if current == printed or between_scales(level, *printed) or not between_scales(level, *current):
            return None
        changed, scale = (left, current[0]) if current[0] != printed[0] else (right, current[1])
        return Cite(changed, f"its Pendulum Scale is {scale}")

    def sync_level(self, card: str, new: Where) -> int | None:
        """The Level EDOPro gives the monster as it lands, when an effect changed it (SUM-04)."""
        facts = self.fx(card)
        believed = (self.believed.get(card) or (None, None, facts.printed_level))[2]
        if facts.printed_level is None:
            return None
        j = self.i + 1
        while j < len(self.packets) and self.packets[j].id in (MSG_UPDATE_CARD, MSG_UPDATE_DATA, MSG_HINT):
            p = self.packets[j]
            if p.id == MSG_UPDATE_CARD:
                c, loc, seq, q = self.facts.card_queries.get(p.payload) or parse_update_card(p.payload, p.offset)
                if (c, loc, seq) == (new.controller, new.location, new.sequence) and q is not None:
                    if q.level is not None and q.level != believed:
                        self.emit(StatsChanged(player=new.controller & 1, card=card, level=q.level,
                                               cause=self.effect_cause(new.controller & 1)))
                        return q.level
                    return believed
            j += 1
        return believed

    def to_spell_zone(self, card: str, old: Where, new: Where, reason: int) -> None:
        player = new.controller & 1
        _j, nid, nm = self.following()
        same = nm is not None and "at" in nm and (nm["at"].controller, nm["at"].location, nm["at"].sequence) == (
            new.controller, new.location, new.sequence)
        self.arrive(card)
        if old.location == LOCATION_MZONE:
            self.depart(card, True)
        if nid == MSG_CHAINING and same and old.location == LOCATION_HAND:
            self.flush()
            self.pending_place = (card, new, self.i)  # the activation puts it there
            return
        self.flush()
        to, pos = self.dest(new, card)
        if nid == MSG_SET and same:
            self.facedown_st.add(card)
            if old.location == LOCATION_HAND:
                self.set_turn[card] = self.turn
                cite = Cite(self.cause, "Set during the resolution of its effect") if self.cause else None
                self.emit(SpellTrapSet(player=player, card=card, zone=to.index or 0, field_zone=to.zone == FZONE,
                                       cite=cite))
                return
            pos = SET
        elif pos == SET:
            self.facedown_st.add(card)
        self.emit(CardMoved(card=card, to=to, reason=self.reason_name(card, old, new, reason), position=pos,
                            cause=self.effect_cause(player)))
