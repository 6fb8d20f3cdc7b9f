"""Summons as our events: a Normal Summon or Set with its Tributes, a Special Summon with its
materials and method, told from the MSG_MOVE that puts the monster in its zone (``moves``) and the
moves of its parts before it, which wait here until their summon comes."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..events import ATTACK, BANISHED, DEFENSE, EXTRA, FACEUP, GY, MZONE, OVERLAY, Cite, CardMoved, Loc, MonsterSet, \
    NormalSummoned, SpecialSummoned, StatsChanged
from ..rules.summon import PROPER_METHODS, between_scales
from .cites import granted_to, normal_summon_cite, special_summon_cite
from .constants import (LOCATION_EXTRA, LOCATION_HAND, LOCATION_MZONE, LOCATION_SZONE, MSG_BECOME_TARGET,
    MSG_CARD_SELECTED, MSG_HINT, MSG_MOVE, MSG_PAY_LPCOST, MSG_SET, MSG_SPSUMMONING, MSG_SUMMONING, MSG_UPDATE_CARD,
    MSG_UPDATE_DATA, POS_DEFENSE, POS_FACEUP, REASON_FUSION, REASON_LINK, REASON_RITUAL, REASON_SPSUMMON,
    REASON_SYNCHRO, REASON_XYZ)
from .container import Where
from .messages import QUIET, Query, parse_update_card, parse_update_data
from .moves import our_position


#: The Spell & Trap Zones that are Pendulum Zones: 0 and 4 (Master Rule 4 on), 6 and 7 (Master Rule 3).
_PZONES = (0, 4, 6, 7)

_MATERIAL_METHODS = ((REASON_FUSION, "fusion"), (REASON_SYNCHRO, "synchro"), (REASON_XYZ, "xyz"),
                     (REASON_LINK, "link"), (REASON_RITUAL, "ritual"))


@dataclass(slots=True)
class SummonState:
    """What the importer holds of summons: the parts of a summon still to come (EDOPro moves the
    Tributes and materials first, the monster after), and what later summons are judged by."""

    #: Tributes released for a Normal Summon still to come, and where EDOPro sent each.
    pending_tributes: list[tuple[str, Loc]] = field(default_factory=list)
    #: Each pending Tribute's controller as it left (SUM-06: a Tribute the summoner did not control).
    tributed_from: dict[str, int] = field(default_factory=dict)
    #: Materials moved for a Special Summon still to come: (card, reason bits, destination,
    #: position, packet); ``flush`` writes them as moves of their own when no summon takes them.
    pending_materials: list[tuple[str, int, Loc, str | None, int]] = field(default_factory=list)
    #: Where each material was, with EDOPro's query of it there (its Level, whether a Tuner).
    material_from: dict[str, tuple[Where, Query | None]] = field(default_factory=dict)
    #: The state packets ``field_query`` has parsed, by packet index (each parsed once).
    refresh_cache: dict[int, list[Query | None]] = field(default_factory=dict)
    #: Xyz materials attached to a monster still in the Extra Deck: they wait for its summon.
    pre_overlay: dict[str, list[str]] = field(default_factory=dict)
    #: The packet of each pending Tribute or material: where its summon begins (``sources``).
    pending_at: dict[str, int] = field(default_factory=dict)
    #: The packet the summon being written began at, which ``emit`` gives its events.
    began_at: int | None = None
    #: Summoned, with no MSG_SUMMONED yet: leaving the field now is a negated summon (SUM-03).
    summoning: set[str] = field(default_factory=set)
    #: A ``special_summoned`` is written since the last MSG_SPSUMMONED: the next monster is summoned
    #: at the same time (``together``). EDOPro writes one MSG_SPSUMMONED for all the monsters one
    #: procedure or effect summons at once (a Pendulum Summon's, "Special Summon 2 monsters"), after
    #: each one's MSG_MOVE and MSG_SPSUMMONING.
    in_group: bool = False
    #: Monsters properly summoned (``PROPER_METHODS``): an effect may summon them again uncited.
    proper: set[str] = field(default_factory=set)
    #: The turn of each player's last Normal Summon or Set (a second one is SUM-01's).
    ns_turn: list[int] = field(default_factory=lambda: [0, 0])
    #: By player: (turn, card) of a Normal Summon an effect made (not the player's own).
    ns_by_effect: dict[int, tuple[int, str]] = field(default_factory=dict)
    #: ``summon_grant``'s last answer came from a HINT_CARD (stronger than a quiet link).
    grant_was_hint: bool = False
    #: By player, this turn's cards that may have granted an additional Normal Summon.
    ns_grants: dict[int, list[str]] = field(default_factory=lambda: {0: [], 1: []})


class SummonHandling:
    """The Importer's summons: ``moves.map_move`` hands a move to a Monster Zone to
    ``to_monster_zone``."""

    def to_monster_zone(self, card: str, old: Where, new: Where, reason: int) -> None:
        player = new.controller & 1
        nid, same = self.next_names(new)
        self.arrive(card)
        if nid in (MSG_SUMMONING, MSG_SET) and same and old.location == LOCATION_HAND:
            pending, self.summons.pending_tributes = self.summons.pending_tributes, []
            tributes = tuple(c for c, _ in pending)
            self.flush()
            self.summons.began_at = self.began(tributes)
            try:
                self.normal_summon(card, new, player, nid, pending, tributes)
            finally:
                self.summons.began_at = None
            return
        if reason & REASON_SPSUMMON or nid == MSG_SPSUMMONING:
            self.special_summon(card, old, new, reason)
            return
        waiting = self.summons.pre_overlay.pop(card, None)    # materials attached to it before it came out
        self.flush()
        to, pos = self.dest(new, card)
        self.emit(CardMoved(card=card, to=to, reason=self.reason_name(card, old, new, reason), position=pos,
                            cause=self.effect_cause(player)))
        for material in waiting or ():
            self.summons.pending_at.pop(material, None)
            self.emit(CardMoved(card=material, to=Loc(player, OVERLAY, new.sequence), reason="attached",
                                cause=self.effect_cause(player)))

    def normal_summon(self, card: str, new: Where, player: int, nid: int, pending: list[tuple[str, Loc]],
                      tributes: tuple[str, ...]) -> None:
        """A Normal Summon or Set from the hand, with the Tributes just released (SUM-01, SUM-04)."""
        level = self.sync_level(card, new)
        cite = normal_summon_cite(self, card, player, len(tributes), level)
        theirs = [t for t in tributes if self.summons.tributed_from.pop(t, player) != player]
        if cite is None and theirs:              # SUM-06: a Tribute the summoner did not control
            cite = Cite(granted_to(self, theirs[0]), "Tributes the opponent's monster, as this card's effect allows")
        if nid == MSG_SUMMONING:
            position = DEFENSE if new.position & POS_DEFENSE else ATTACK
            self.summons.summoning.add(card)
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
        self.summons.material_from[card] = (old, query)

    def field_query(self, w: Where) -> Query | None:
        """The latest refresh of the zone ``w`` (Monster or Spell & Trap) before the current packet
        (parsed on demand)."""
        for j in range(self.i - 1, max(0, self.i - 400), -1):
            p = self.packets[j]
            if p.id == MSG_UPDATE_DATA and len(p.payload) > 2 and p.payload[0] == w.controller and p.payload[1] == w.location:
                queries = self.summons.refresh_cache.get(j)
                if queries is None:
                    queries = self.summons.refresh_cache[j] = parse_update_data(p.payload, p.offset)[2]
                return queries[w.sequence] if w.sequence < len(queries) else None
        return None

    def special_summon(self, card: str, old: Where, new: Where, reason: int) -> None:
        pending, self.summons.pending_materials = self.summons.pending_materials, []
        tributes, self.summons.pending_tributes = self.summons.pending_tributes, []
        overlay = self.summons.pre_overlay.pop(card, [])
        moved_at = [self.summons.pending_at.pop(c) for c in [t for t, _ in tributes] + overlay if c in self.summons.pending_at]
        moved_at += [at for *_, at in pending]
        self.summons.began_at = min(moved_at) if moved_at else None
        try:
            self.write_special_summon(card, old, new, pending, tributes, overlay)
        finally:
            self.summons.began_at = None

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
        # an Xyz Monster among them: its materials reach the GY after the whole group (``end_group``)
        group, self.moves.group_pending = self.moves.group_pending and not sent, False
        for n, (m_card, m_reason, to, pos, at) in enumerate(pending):
            mat_reason |= m_reason
            if sent:
                listed.append(m_card)
            else:
                self.emit(CardMoved(card=m_card, to=to, reason="material", position=pos, cause=cause,
                                    with_next=group and n < len(pending) - 1), at)
        if not sent:
            self.summons.began_at = None                  # the summon itself comes at its own packet
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
        self.summons.summoning.add(card)
        position = our_position(new.position, MZONE) or ATTACK
        cite = special_summon_cite(self, card, old, new, method, cause, materials)
        if cite is None and method == "pendulum":
            cite = self.scale_cite(card, player)
        if method in PROPER_METHODS:
            self.summons.proper.add(card)
        together = self.together(method)
        self.emit(SpecialSummoned(player=player, card=card, zone=new.sequence, method=method,
                                  position=position, materials=tuple(listed), cite=cite,
                                  cause=cause if method != "inherent" and method != "pendulum" else None,
                                  together=together))

    def together(self, method: str) -> bool | None:
        """``together`` for the monster written next: False for the first of its group, True for
        a later one right after a ``special_summoned`` of the same method (PEND-03), else None:
        summoned at once, but not as consecutive events of one procedure, so left to the order."""
        first, self.summons.in_group = not self.summons.in_group, True
        if first:
            return False
        act = self.chains.activation
        if act is not None:                   # its events follow the activation, written at MSG_CHAINED
            last = act.after[-1][0] if act.after else None
        else:
            last = self.events[-1] if self.events else None
        return True if isinstance(last, SpecialSummoned) and last.method == method else None

    def procedure_cause(self, player: int) -> str | None:
        """The effect making a summon: the link resolving, the link that just resolved when the
        summon comes between links (an effect's "then Synchro Summon"), or the chain's last link
        when it comes right after the chain ended, outside the player's open game state."""
        if self.cause is not None:
            return self.cause
        if self.chains.last_resolved is not None:
            card, who = self.chains.last_resolved
            if self.chains.chain and self.chains.solving is None:
                return card
            if len(self.events) == self.chains.chain_end_at and not self.open_game_state(player) and who == player:
                return card
        return None

    def sync_material_level(self, card: str) -> None:
        old, query = self.summons.material_from.get(card, (None, None))
        if query is None or query.level is None:
            return
        facts = self.fx(card)
        if facts.printed_level is None:
            return
        believed = (self.moves.believed.get(card) or (None, None, facts.printed_level))[2]
        if query.level != believed and query.level > 0:
            b = self.moves.believed.get(card) or (None, None, None)
            self.moves.believed[card] = (b[0], b[1], query.level)
            self.emit(StatsChanged(player=old.controller & 1, card=card, level=query.level))

    def current_level(self, card: str) -> int:
        facts = self.fx(card)
        level = (self.moves.believed.get(card) or (None, None, None))[2]
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
        believed = (self.moves.believed.get(card) or (None, None, facts.printed_level))[2]
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
