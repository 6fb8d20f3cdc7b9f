"""A synthetic, LEGAL, long duel for benchmarks and property tests.

``generate(n, seed)`` plays a duel between two simulated players and returns its first ``n``
events. Every event is folded through the rules engine (``ygoreplay.rules.apply``) the moment it is
generated, so a generator bug that breaks a rule fails here, at that event; a prefix of a legal
duel is itself legal, so cutting the record at ``n`` keeps it legal.

What the duel contains (``python bench/synthetic.py`` prints the exact mix):

* many turns of both players: draws, Standby/Main/Battle/Main 2/End phases, Battle Phase steps;
* Normal Summons and Sets with 0-2 Tributes, Flip Summons with Flip effects, Special Summons
  (Cyber Dragon's inherent one, Monster Reborn, Premature Burial, Call of the Haunted), tokens
  (Scapegoat), manual position changes and changes by effect (Book of Moon, Swords);
* Spells and Traps Set and activated; chains of 1-4 links built by both players with Spell Speed
  1, 2 and 3 cards, resolved in reverse order, with links negated by Counter Traps (Magic
  Jammer, Seven Tools, Solemn Judgment, which also negates summons), costs paid in LP and cards;
* attacks on monsters in every position and direct attacks, attack responses (Mirror Force,
  Sakuretsu Armor, Magic Cylinder, Negate Attack), replays when the defender's monsters change,
  damage calculation, battle damage, destruction by battle;
* destruction, banishment, equip cards that follow their monster, LP costs and effect damage,
  End Phase hand-size discards.

Card flow: in their Standby Phase a player holding fewer than 3 cards draws 2 by an effect
(``cards_drawn`` with a ``cause``, as a draw engine would record it); without it both hands are
empty after a dozen turns and the rest of a long duel is top-decking.

How it lasts: each player starts (``position_set_up``) with a 60-card Main Deck (55 in the Deck,
5 in the hand) and 1,000,000,000 LP. When a Deck falls under 15 cards its owner's Graveyard and
banished cards are shuffled back into it in their Standby Phase (``card_moved`` to the deck, then ``deck_shuffled``),
so Decks never run out; LP are kept well above 0 by declining attacks and costs that would bring
them near it. The same seed gives the same duel.
"""
from __future__ import annotations

import argparse
import collections
import random
import sys
from dataclasses import dataclass, field
from typing import Callable

from ygoreplay.cards import CardDB
from ygoreplay.events import (
    ATTACK, BANISHED, DECK, DEFENSE, FZONE, GY, HAND, MZONE, SET, SZONE, Event, from_dict)
from ygoreplay.rules import apply, audit
from ygoreplay.state import Card, DuelState

DB = CardDB.classic()

# -- the card pool --------------------------------------------------------------------------------

CELTIC, GEMINI, MYSTICAL_ELF, LA_JINN, BATTLE_OX = 91152256, 69140098, 15025844, 97590747, 5053103
GIANT_SOLDIER, VORSE, ALEXANDRITE, WARWOLF, LUSTER = 13039848, 14898066, 43096270, 69247929, 11091375
MAN_EATER, MAGICIAN_OF_FAITH = 54652250, 31560081
SANGAN, WITCH, BREAKER = 26202165, 78010363, 71413901
SKULL, JINZO, CYBER_DRAGON, DARK_MAGICIAN, BLUE_EYES = 70781052, 77585513, 70095154, 46986414, 89631139
POT, DARK_HOLE, RAIGEKI, REBORN, SWORDS = 55144522, 53129443, 12580477, 83764718, 72302403
NOBLEMAN, HEAVY_STORM, GRACEFUL, MST, SCAPEGOAT = 71044499, 19613556, 79571449, 5318639, 73915051
BOOK, MESSENGER, AXE, PREMATURE, YAMI = 14087893, 44656491, 40619825, 70828912, 59197169
MIRROR_FORCE, TRAP_HOLE, CYLINDER, RING, TORRENTIAL = 44095762, 4206964, 62279055, 83555666, 53582587
SAKURETSU, DUST_TORNADO, BOTTOMLESS, CALL, SOLEMN = 56120475, 60082869, 29401950, 97077563, 41420027
JAMMER, SEVEN_TOOLS, NEGATE_ATTACK = 77414722, 3819470, 14315573
SHEEP_TOKEN = 73915052

DECKLIST: dict[int, int] = {
    # 19 monsters
    SANGAN: 2, WITCH: 2, BREAKER: 2, GEMINI: 1, GIANT_SOLDIER: 1, VORSE: 1, LUSTER: 1, MAN_EATER: 2,
    MAGICIAN_OF_FAITH: 1, SKULL: 2, CYBER_DRAGON: 2, DARK_MAGICIAN: 1, BLUE_EYES: 1,
    # 21 spells (draw power keeps the hands full; the engine does not apply a Forbidden/Limited list)
    POT: 3, GRACEFUL: 3, DARK_HOLE: 1, RAIGEKI: 1, REBORN: 1, NOBLEMAN: 1, HEAVY_STORM: 1, MST: 3,
    SCAPEGOAT: 1, BOOK: 2, AXE: 1, PREMATURE: 1, MESSENGER: 1, YAMI: 1,
    # 20 traps
    MIRROR_FORCE: 1, TRAP_HOLE: 2, CYLINDER: 1, RING: 1, TORRENTIAL: 1, SAKURETSU: 2, DUST_TORNADO: 3,
    BOTTOMLESS: 1, CALL: 1, SOLEMN: 2, JAMMER: 2, SEVEN_TOOLS: 2, NEGATE_ATTACK: 1,
}
assert sum(DECKLIST.values()) == 60 and max(DECKLIST.values()) <= 3

STARTING_LP = 1_000_000_000
LP_FLOOR = 100_000          # no damage or cost may take a player below this
SOLEMN_MIN_LP = 4_000_000   # Solemn Judgment costs half the LP: only used while LP are high
RECYCLE_BELOW = 15          # Deck size under which the Graveyard is shuffled back
HAND_LIMIT = 6
REFILL_BELOW, REFILL_DRAW = 3, 2    # Standby Phase: a hand under 3 cards draws 2 by an effect

#: Spells/Traps that go to the GY once their chain is over (SPELL-04, TRAP-04).
LEAVES = frozenset(("normal", "quickplay", "ritual", "counter"))
#: Equip-like cards that stay attached to a monster: code -> "face-up monster needed"?
ATTACHES = {AXE: True, PREMATURE: True, CALL: False}


class GenerationError(AssertionError):
    """The generator produced an event the rules refuse: a bug in the generator (or the engine)."""


@dataclass
class Link:
    number: int
    player: int
    card: str
    effect: int                      # passcode of the card whose effect this is
    card_activation: bool
    speed: int
    targets: tuple[str, ...] = ()
    negates_link: int | None = None  # counter traps
    negates_summon: str | None = None
    negated: bool = False
    data: dict = field(default_factory=dict)
    ignition: bool = False


class Sim:
    """Two simulated players; the live engine state is the board they read."""

    def __init__(self, seed: int = 1, cards: CardDB = DB) -> None:
        self.rng = random.Random(seed)
        self.state = DuelState(cards)
        self.events: list[Event] = []
        self.chain: list[Link] = []
        self.last_chain: list[Link] = []
        self.attached: dict[str, str] = {}      # equip/continuous card id -> monster id
        self.tokens = [0, 0]
        self.cautious = [0, 0]                  # turns left in a player's cautious stretch
        self.phase_over = False                 # both passed with no chain open: the phase has ended (PRIO-05)
        self.pending: list[str] = []            # Sangan / Witch sent from the field to the GY

    # -- recording ------------------------------------------------------------------------------

    def emit(self, kind: str, **fields) -> Event:
        data = {"kind": kind}
        data.update((k, v) for k, v in fields.items() if v is not None)
        event = from_dict(data, f"synthetic event {len(self.events)}")
        try:
            apply(self.state, event)
        except Exception as exc:                # RuleViolation, or an engine crash
            raise GenerationError(f"event {len(self.events)} {data} refused: {exc!r}") from exc
        self.events.append(event)
        return event

    # -- board queries ---------------------------------------------------------------------------

    def c(self, cid: str) -> Card:
        return self.state.cards[cid]

    def code(self, cid: str) -> int:
        return self.state.cards[cid].code

    def hand(self, p: int) -> list[str]:
        return list(self.state.sides[p].hand)

    def mons(self, p: int) -> list[Card]:
        return list(self.state.monsters(p))

    def free_mzones(self, p: int) -> list[int]:
        return [i for i, cid in enumerate(self.state.sides[p].mzone) if cid is None]

    def free_szones(self, p: int) -> list[int]:
        return [i for i, cid in enumerate(self.state.sides[p].szone) if cid is None]

    def spell_traps(self, p: int) -> list[Card]:
        side = self.state.sides[p]
        ids = [cid for cid in side.szone if cid is not None]
        if side.fzone is not None:
            ids.append(side.fzone)
        return [self.c(cid) for cid in ids]

    def in_chain(self, cid: str) -> bool:
        return any(link.card == cid for link in self.chain)

    def on_field(self, cid: str | None, zones=(MZONE,)) -> bool:
        card = self.state.cards.get(cid) if cid else None
        return card is not None and card.zone in zones

    def lp(self, p: int) -> int:
        return self.state.sides[p].lp

    def can_lose(self, p: int, amount: int) -> bool:
        return self.lp(p) - amount > LP_FLOOR

    def ready_set(self, p: int, codes: tuple[int, ...] | frozenset[int]) -> list[Card]:
        """Face-down Spells/Traps of ``p`` with these passcodes that may be activated now."""
        out = []
        for card in self.spell_traps(p):
            if card.code in codes and card.position == SET and card.set_turn != self.state.turn \
                    and not self.in_chain(card.id):
                out.append(card)
        return out

    # -- moves -------------------------------------------------------------------------------------

    def move(self, cid: str, zone: str, reason: str, cause: str | None = None) -> None:
        card = self.c(cid)
        from_field = card.zone == MZONE
        source = self.state.location(card).to_wire() if self.rng.random() < 0.5 else None
        self.emit("card_moved", card=cid, to=[card.owner, zone], reason=reason, source=source, cause=cause)
        if from_field and zone == GY and card.code in (SANGAN, WITCH):
            self.pending.append(cid)

    def triggers(self) -> None:
        """Sangan / Witch of the Black Forest: sent from the field to the GY, they search the Deck."""
        while self.pending:
            cid = self.pending.pop(0)
            card = self.state.cards.get(cid)
            if card is None or card.zone != GY:
                continue
            self.run_chain(lambda cid=cid, p=card.owner: self.activate(p, cid, effect_type="trigger"))

    def destroy(self, cid: str, cause: str | None, reason: str = "destroyed") -> None:
        if self.on_field(cid, (MZONE, SZONE, FZONE)):
            self.move(cid, GY, reason, cause)

    def cleanup(self) -> None:
        """Equip-like cards follow their monster: each leaves when the other has gone."""
        changed = True
        while changed:
            changed = False
            for st, mon in list(self.attached.items()):
                st_card = self.state.cards.get(st)
                mon_card = self.state.cards.get(mon)
                st_on = st_card is not None and st_card.zone == SZONE and st_card.face_up
                needs_face_up = ATTACHES[st_card.code] if st_card is not None else False
                mon_on = mon_card is not None and mon_card.zone == MZONE and (
                    mon_card.face_up or not needs_face_up)
                if st_on and mon_on:
                    continue
                del self.attached[st]
                changed = True
                if st_on:                                    # the monster left: the card follows
                    if st_card.code == AXE and mon_card is not None and mon_card.zone == MZONE:
                        self.emit("stats_changed", card=mon, atk=max(0, mon_card.current_atk - 1000), cause=st)
                    self.move(st, GY, "rule", cause=mon)
                elif mon_card is not None and mon_card.zone == MZONE:
                    if st_card is not None and st_card.code == AXE:
                        self.emit("stats_changed", card=mon, atk=max(0, mon_card.current_atk - 1000), cause=st)
                    else:                                    # Call / Premature Burial gone
                        self.move(mon, GY, "destroyed", cause=st)
                break

    # -- set-up and turns ------------------------------------------------------------------------

    def setup(self) -> None:
        sides = []
        for _ in (0, 1):
            cards = [code for code, n in DECKLIST.items() for _ in range(n)]
            self.rng.shuffle(cards)
            sides.append({"lp": STARTING_LP, "deck": cards[5:], "hand": cards[:5]})
        self.emit("position_set_up", sides=sides, turn=1, turn_player=0, phase="main1", first_player=0)

    def play_turn(self) -> None:
        s = self.state
        if s.turn == 1 and s.phase == "main1" and not self.events[1:]:
            pass                                             # the set-up put us in Main Phase 1
        else:
            p = 1 - s.turn_player
            self.emit("turn_started", player=p, turn=s.turn + 1)
            self.emit("phase_entered", phase="draw")
            self.emit("cards_drawn", player=p, count=1, cards=[s.sides[p].deck[0]])
            self.emit("phase_entered", phase="standby")
            self.standby()
            self.emit("phase_entered", phase="main1")
        p = s.turn_player
        if self.cautious[p] == 0 and self.rng.random() < 0.08:
            self.cautious[p] = self.rng.randint(4, 8)   # a cautious stretch: the hand fills up (HAND-01)
        if self.cautious[p]:
            self.cautious[p] -= 1
            self.main_phase(0 if self.rng.random() < 0.8 else 1)
        else:
            self.main_phase(self.rng.randint(3, 9))
        if s.turn > 1 and self.rng.random() < 0.85:
            self.emit("phase_entered", phase="battle")
            self.battle_phase()
            if self.rng.random() < 0.5:
                self.emit("phase_entered", phase="main2")
                self.main_phase(self.rng.randint(0, 3))
        self.emit("phase_entered", phase="end")
        self.end_phase()

    def standby(self) -> None:
        p = self.state.turn_player
        for card in self.spell_traps(p):                     # Messenger of Peace upkeep
            if card.code == MESSENGER and card.face_up and self.can_lose(p, 100):
                self.emit("life_points_changed", player=p, amount=100, reason="cost",
                          lp=self.lp(p) - 100, cause=card.id)
        side = self.state.sides[p]
        if len(side.hand) < REFILL_BELOW and len(side.deck) > REFILL_DRAW + 2:
            # card flow: without it both hands are empty after a dozen turns and turns thin out
            cause = side.gy[-1] if side.gy else side.deck[-1]
            self.emit("cards_drawn", player=p, count=REFILL_DRAW, cause=cause)
        if len(side.deck) < RECYCLE_BELOW and (side.gy or side.banished):
            cause = (side.gy or side.banished)[-1]
            for cid in list(side.gy):
                self.emit("card_moved", card=cid, to=[p, DECK], reason="shuffled", cause=cause)
            for cid in list(side.banished):
                self.emit("card_moved", card=cid, to=[p, DECK], reason="returned", cause=cause)
            order = list(side.deck)
            self.rng.shuffle(order)
            self.emit("deck_shuffled", player=p, order=order)
        if self.rng.random() < 0.2:
            self.pass_priority(p)

    def end_phase(self) -> None:
        p = self.state.turn_player
        if self.rng.random() < 0.35:                         # the classic End Phase Dust Tornado
            self.try_first_link(1 - p, self.free_chain_options(1 - p))
        hand = self.hand(p)
        if len(hand) > HAND_LIMIT:
            self.emit("hand_size_discard", player=p, cards=self.rng.sample(hand, len(hand) - HAND_LIMIT))

    # -- Main Phase --------------------------------------------------------------------------------

    def main_phase(self, actions: int) -> None:
        self.phase_over = False
        for _ in range(actions):
            if self.phase_over:
                return
            options = self.main_options()
            if not options:
                return
            weights = [w for w, _ in options]
            action = self.rng.choices([a for _, a in options], weights)[0]
            action()

    def main_options(self) -> list[tuple[float, Callable[[], None]]]:
        s, p, rng = self.state, self.state.turn_player, self.rng
        opts: list[tuple[float, Callable[[], None]]] = []
        hand = [self.c(cid) for cid in s.sides[p].hand]
        if s.sides[p].normal_summon_turn != s.turn:
            for card in hand:
                if card.facts.is_monster and self.tributes_for(p, card) is not None:
                    opts.append((4, lambda card=card: self.normal_summon(p, card)))
                    break
        if not self.mons(p) and self.mons(1 - p) and self.free_mzones(p):
            for card in hand:
                if card.code == CYBER_DRAGON:
                    opts.append((3, lambda card=card: self.special_inherent(p, card)))
                    break
        for card in self.mons(p):
            if card.position == SET and card.summoned_turn != s.turn and card.position_changed_turn != s.turn \
                    and card.attacked_turn != s.turn:      # POS-08: set face-down after it attacked
                opts.append((3, lambda card=card: self.flip_summon(p, card)))
            elif card.position in (ATTACK, DEFENSE) and card.summoned_turn != s.turn and \
                    card.position_changed_turn != s.turn and card.attacked_turn != s.turn:
                new = DEFENSE if card.position == ATTACK else ATTACK
                opts.append((0.4, lambda card=card, new=new: self.emit(
                    "position_changed", player=p, card=card.id, position=new)))
        free = self.free_szones(p)
        for card in hand:
            f = card.facts
            if f.spell_subtype == "field":
                opts.append((0.5, lambda card=card: self.emit(
                    "spell_trap_set", player=p, card=card.id, field_zone=True)))
            elif (f.is_spell or f.is_trap) and len(free) >= 2:     # keep a zone to activate into
                opts.append((2 if f.is_trap else 0.7, lambda card=card: self.emit(
                    "spell_trap_set", player=p, card=card.id, zone=rng.choice(self.free_szones(p)))))
        for make in self.spell_options(p):
            opts.append((3, lambda make=make: self.run_chain(make)))
        for card in self.mons(p):
            if card.code == BREAKER and card.face_up and card.counters.get("spell") and not s.chain:
                targets = [c.id for c in self.spell_traps(1 - p)]
                if targets:
                    opts.append((3, lambda card=card, t=rng.choice(targets): self.breaker(p, card, t)))
        for make in self.free_chain_options(p):
            opts.append((1, lambda make=make: self.run_chain(make)))
        if rng.random() < 0.1:
            opts.append((0.3, lambda: self.pass_priority(p)))
        return opts

    def pass_priority(self, p: int) -> None:
        """The turn player passes, declaring the end of the phase, which hands priority to the
        opponent (PRIO-03): the opponent answers it with a chain, after which the turn player acts
        again, or passes too, and the phase has ended (PRIO-05)."""
        if self.state.passes % 2:
            return
        self.emit("priority_passed", player=p)
        opts = self.free_chain_options(1 - p)
        if opts and self.rng.random() < 0.5:
            self.run_chain(self.rng.choice(opts))
        else:
            self.emit("priority_passed", player=1 - p)
            self.phase_over = True

    def tributes_for(self, p: int, card: Card) -> list[str] | None:
        level = card.current_level or 0
        need = 0 if level <= 4 else 1 if level <= 6 else 2
        candidates = [m for m in self.mons(p) if not m.is_token]
        if len(candidates) < need or (need == 0 and not self.free_mzones(p)):
            return None
        candidates.sort(key=lambda m: m.current_atk)
        return [m.id for m in candidates[:need]]

    def normal_summon(self, p: int, card: Card) -> None:
        tributes = self.tributes_for(p, card) or []
        zones = self.free_mzones(p) + [self.c(t) and self.state.location(self.c(t)).index for t in tributes]
        zone = self.rng.choice(zones)
        face_down = card.facts.is_flip or self.rng.random() < (0.5 if card.current_atk < 1500 else 0.15)
        kind = "monster_set" if face_down else "normal_summoned"
        self.pending += [t for t in tributes if self.code(t) in (SANGAN, WITCH)]
        self.emit(kind, player=p, card=card.id, zone=zone, tributes=tributes or None)
        self.cleanup()
        if not face_down:
            self.summon_window(p, card.id)
            if card.code == BREAKER and self.on_field(card.id) and card.face_up:
                self.run_chain(lambda: self.activate(p, card.id, effect_type="trigger"))
        self.triggers()

    def special_inherent(self, p: int, card: Card) -> None:
        position = ATTACK if self.rng.random() < 0.8 else DEFENSE
        self.emit("special_summoned", player=p, card=card.id, zone=self.rng.choice(self.free_mzones(p)),
                  method="inherent", position=position)
        self.summon_window(p, card.id)

    def flip_summon(self, p: int, card: Card) -> None:
        if self.rng.random() < 0.3:                          # the same, recorded as a position change
            self.emit("position_changed", player=p, card=card.id, position=ATTACK)
        else:
            self.emit("flip_summoned", player=p, card=card.id)
        if card.code in (MAN_EATER, MAGICIAN_OF_FAITH):
            make = self.flip_effect(p, card)
            if make is not None:
                self.run_chain(make)
                return
        self.summon_window(p, card.id)

    def breaker(self, p: int, card: Card, target: str) -> None:
        """Remove the Spell Counter (a cost, recorded before the activation) to destroy a Spell/Trap."""
        self.emit("counters_changed", player=p, card=card.id, counter="spell", count=0, cause=card.id)
        self.emit("stats_changed", card=card.id, atk=max(0, card.current_atk - 300), cause=card.id)
        self.run_chain(lambda: self.activate(p, card.id, targets=[target], effect_type="ignition", ignition=True))

    def summon_window(self, p: int, cid: str) -> None:
        """The opponent may answer a summon: Solemn Judgment, Trap Hole, Torrential Tribute."""
        opts = self.summon_responses(1 - p, cid)
        if opts and self.rng.random() < 0.75:
            self.run_chain(self.rng.choice(opts))

    # -- chains ----------------------------------------------------------------------------------

    def run_chain(self, first: Callable[[], Link]) -> None:
        first()
        while len(self.chain) < 4:
            responder = 1 - self.chain[-1].player
            opts = self.responses(responder)
            if not opts or self.rng.random() > 0.85:
                break
            self.rng.choice(opts)()
        last = self.chain[-1].player
        self.emit("priority_passed", player=1 - last)
        self.rng.random()                  # kept so the duel a seed makes stays the same around it
        self.emit("priority_passed", player=last)     # CHAIN-04: both pass, then the chain resolves
        self.resolve_chain()

    def try_first_link(self, p: int, opts: list[Callable[[], Link]]) -> None:
        if opts:
            self.run_chain(self.rng.choice(opts))

    def activate(self, p: int, cid: str, *, targets: list[str] | tuple[str, ...] = (),
                 costs: list[dict] | None = None, effect_type: str | None = None, **data) -> Link:
        card = self.c(cid)
        f = card.facts
        if not self.chain and p != self.state.turn_player and effect_type not in ("trigger", "flip") \
                and self.state.passes % 2 == 0:
            self.emit("priority_passed", player=self.state.turn_player)   # PRIO-01: the turn player first
        fields: dict = {"player": p, "card": cid, "link": len(self.chain) + 1}
        if effect_type is not None:
            fields["effect_type"] = effect_type
            speed = 2 if effect_type == "quick" else 1
        else:
            speed = f.activation_speed
            if card.zone == HAND:
                if f.spell_subtype == "field":
                    fields["field_zone"] = True
                else:
                    fields["zone"] = self.rng.choice(self.free_szones(p))
        if self.rng.random() < 0.3:
            fields["speed"] = speed
        if targets:
            fields["targets"] = list(targets)
        if costs:
            fields["costs"] = costs
        self.emit("activated", **fields)
        link = Link(len(self.chain) + 1, p, cid, card.code, effect_type is None, speed, tuple(targets), **data)
        self.chain.append(link)
        return link

    def resolve_chain(self) -> None:
        negated_by: dict[int, int] = {}
        for link in reversed(self.chain):
            if link.number in negated_by:
                self.emit("chain_link_negated", link=link.number, by=negated_by[link.number])
                link.negated = True
                continue
            self.emit("chain_link_resolved", link=link.number)
            if link.negates_link is not None:
                negated_by[link.negates_link] = link.number
            self.resolve(link)
            self.cleanup()
        for link in self.chain:                       # SPELL-04/TRAP-04: finished cards leave
            card = self.state.cards.get(link.card)
            if not link.card_activation or card is None or card.zone not in (SZONE, FZONE) or not card.face_up:
                continue
            sub = card.facts.spell_subtype or card.facts.trap_subtype
            if link.negated or sub in LEAVES:
                self.move(card.id, GY, "negated" if link.negated else "resolved")
        self.cleanup()
        self.emit("chain_ended")
        self.last_chain, self.chain = self.chain, []
        self.triggers()

    # -- what each card does when it resolves --------------------------------------------------------

    def resolve(self, link: Link) -> None:
        s, p, code, cid = self.state, link.player, link.effect, link.card
        t = link.targets[0] if link.targets else None
        if link.negates_summon is not None:
            if s.summon_window == link.negates_summon and self.on_field(link.negates_summon):
                self.emit("summon_negated", card=link.negates_summon, cause=cid)
            return
        if link.negates_link is not None:
            return
        if code in (MST, DUST_TORNADO):
            if self.on_field(t, (SZONE, FZONE)):
                self.move(t, GY, "destroyed", cause=cid)
        elif code == BOOK:
            if self.on_field(t) and self.c(t).face_up:
                self.emit("position_changed", card=t, position=SET, cause=cid)
        elif code == RING:
            if self.on_field(t) and self.c(t).face_up:
                atk = self.c(t).current_atk
                self.move(t, GY, "destroyed", cause=cid)
                for q in (0, 1):
                    if atk and self.can_lose(q, atk):
                        self.emit("life_points_changed", player=q, amount=atk, reason="effect_damage",
                                  lp=self.lp(q) - atk, cause=cid)
        elif code == SCAPEGOAT:
            for zone in self.free_mzones(p)[:4]:
                self.tokens[p] += 1
                self.emit("token_created", player=p, card=f"p{p}.t{self.tokens[p]}", code=SHEEP_TOKEN,
                          zone=zone, position=DEFENSE, cause=cid)
        elif code in (TRAP_HOLE, MAN_EATER):
            if self.on_field(t):
                self.move(t, GY, "destroyed", cause=cid)
        elif code == BOTTOMLESS:
            if self.on_field(t):
                self.move(t, BANISHED, "banished", cause=cid)
        elif code in (TORRENTIAL, DARK_HOLE):
            for q in (0, 1):
                for m in self.mons(q):
                    self.move(m.id, GY, "destroyed", cause=cid)
        elif code == RAIGEKI:
            for m in self.mons(1 - p):
                self.move(m.id, GY, "destroyed", cause=cid)
        elif code == MIRROR_FORCE:
            for m in self.mons(1 - p):
                if m.position == ATTACK:
                    self.move(m.id, GY, "destroyed", cause=cid)
        elif code == SAKURETSU:
            attack = s.attack
            if attack is not None and self.on_field(attack.attacker):
                self.move(attack.attacker, GY, "destroyed", cause=cid)
        elif code == CYLINDER:
            attack = s.attack
            if attack is not None and not attack.calculated and self.on_field(attack.attacker):
                victim = self.c(attack.attacker).controller
                atk = self.c(attack.attacker).current_atk
                self.emit("attack_cancelled", cause=cid)
                if atk and self.can_lose(victim, atk):
                    self.emit("life_points_changed", player=victim, amount=atk, reason="effect_damage",
                              lp=self.lp(victim) - atk, cause=cid)
        elif code == NEGATE_ATTACK:
            if s.attack is not None and not s.attack.calculated:
                self.emit("attack_cancelled", cause=cid)
                link.data["end_battle"] = True
        elif code in (REBORN, PREMATURE, CALL):
            free = self.free_mzones(p)
            if t in s.cards and self.c(t).zone == GY and free:
                position = ATTACK if code != REBORN or self.rng.random() < 0.8 else DEFENSE
                self.emit("special_summoned", player=p, card=t, zone=self.rng.choice(free), method="effect",
                          position=position, cause=cid)
                if code != REBORN and self.on_field(cid, (SZONE,)):
                    self.attached[cid] = t
            elif code != REBORN and self.on_field(cid, (SZONE,)):
                self.move(cid, GY, "rule")
        elif code == AXE:
            if self.on_field(t) and self.c(t).face_up and self.on_field(cid, (SZONE,)):
                self.emit("stats_changed", card=t, atk=self.c(t).current_atk + 1000, cause=cid)
                self.attached[cid] = t
            elif self.on_field(cid, (SZONE,)):
                self.move(cid, GY, "rule")
        elif code == POT:
            self.emit("cards_drawn", player=p, count=2, cause=cid)
        elif code == GRACEFUL:
            self.emit("cards_drawn", player=p, count=3, cause=cid)
            for victim in self.rng.sample(self.hand(p), min(2, len(self.hand(p)))):
                self.move(victim, GY, "discarded", cause=cid)
        elif code == HEAVY_STORM:
            for q in (0, 1):
                for card in self.spell_traps(q):
                    if not self.in_chain(card.id):
                        self.move(card.id, GY, "destroyed", cause=cid)
        elif code == SWORDS:
            for m in self.mons(1 - p):
                if m.position == SET:
                    self.emit("position_changed", card=m.id, position=DEFENSE, cause=cid)
        elif code == NOBLEMAN:
            if self.on_field(t) and self.c(t).position == SET:
                self.move(t, BANISHED, "banished", cause=cid)
        elif code == MAGICIAN_OF_FAITH:
            if t in s.cards and self.c(t).zone == GY:
                self.emit("card_moved", card=t, to=[p, HAND], reason="added", cause=cid)
        elif code in (SANGAN, WITCH):
            deck = s.sides[p].deck
            fits = [d for d in deck if self.c(d).facts.is_monster and (
                self.c(d).facts.base_atk if code == SANGAN else self.c(d).current_def) <= 1500]
            if fits:
                self.emit("card_moved", card=self.rng.choice(fits), to=[p, HAND], reason="added", cause=cid)
                order = list(deck)
                self.rng.shuffle(order)
                self.emit("deck_shuffled", player=p, order=order)
        elif code == BREAKER and link.ignition:
            if self.on_field(t, (SZONE, FZONE)):
                self.move(t, GY, "destroyed", cause=cid)
        elif code == BREAKER:
            if self.on_field(cid) and self.c(cid).face_up:
                self.emit("counters_changed", card=cid, counter="spell", count=1, cause=cid)
                self.emit("stats_changed", card=cid, atk=self.c(cid).current_atk + 300, cause=cid)
        # MESSENGER, YAMI: continuous / field cards whose activation does nothing more here

    # -- who may activate what -------------------------------------------------------------------------

    def spell_options(self, p: int) -> list[Callable[[], Link]]:
        """Spell Speed 1 Spells the turn player may start a chain with in their Main Phase."""
        s = self.state
        if s.chain or p != s.turn_player or s.phase not in ("main1", "main2"):
            return []
        free = bool(self.free_szones(p))
        cards = [self.c(cid) for cid in s.sides[p].hand if free or self.code(cid) == YAMI]
        cards += [c for c in self.spell_traps(p) if c.position == SET and c.facts.is_spell
                  and c.facts.spell_subtype != "quickplay"]
        out: list[Callable[[], Link]] = []
        opp_mons, my_mons = self.mons(1 - p), self.mons(p)
        deck = len(s.sides[p].deck)
        for card in cards:
            code, cid = card.code, card.id
            if code == POT and deck >= 4:
                out.append(lambda cid=cid: self.activate(p, cid))
            elif code == GRACEFUL and deck >= 5:
                out.append(lambda cid=cid: self.activate(p, cid))
            elif code == DARK_HOLE and len(opp_mons) > len(my_mons):
                out.append(lambda cid=cid: self.activate(p, cid))
            elif code == RAIGEKI and opp_mons:
                out.append(lambda cid=cid: self.activate(p, cid))
            elif code == HEAVY_STORM and any(not c.face_up for c in self.spell_traps(1 - p)):
                out.append(lambda cid=cid: self.activate(p, cid))
            elif code == SWORDS and any(m.position == SET for m in opp_mons):
                out.append(lambda cid=cid: self.activate(p, cid))
            elif code == NOBLEMAN:
                down = [m.id for m in opp_mons if m.position == SET]
                if down:
                    out.append(lambda cid=cid, t=self.rng.choice(down): self.activate(p, cid, targets=[t]))
            elif code in (REBORN, PREMATURE) and self.free_mzones(p):
                piles = s.sides[p].gy + (s.sides[1 - p].gy if code == REBORN else [])
                dead = [g for g in piles if self.c(g).facts.is_monster]
                if dead and (code == REBORN or self.can_lose(p, 800)):
                    costs = [{"lp": 800}] if code == PREMATURE else None
                    out.append(lambda cid=cid, t=self.rng.choice(dead), costs=costs:
                               self.activate(p, cid, targets=[t], costs=costs))
            elif code == AXE:
                mine = [m.id for m in my_mons if m.face_up]
                if mine:
                    out.append(lambda cid=cid, t=self.rng.choice(mine): self.activate(p, cid, targets=[t]))
            elif code in (MESSENGER, YAMI):
                if not any(c.code == code and c.face_up for c in self.spell_traps(p)):
                    out.append(lambda cid=cid: self.activate(p, cid))
        return out

    def flip_effect(self, p: int, card: Card) -> Callable[[], Link] | None:
        if card.code == MAN_EATER:
            others = [m.id for m in self.mons(1 - p)] or [m.id for m in self.mons(p) if m.id != card.id]
            if others:
                t = self.rng.choice(others)
                return lambda: self.activate(p, card.id, targets=[t], effect_type="flip")
        else:
            spells = [g for g in self.state.sides[p].gy if self.c(g).facts.is_spell]
            if spells:
                t = self.rng.choice(spells)
                return lambda: self.activate(p, card.id, targets=[t], effect_type="flip")
        return None

    def quick_cards(self, p: int) -> list[tuple[Card, bool]]:
        """(card, from_hand) for Quick-Play Spells and Traps ``p`` may activate now."""
        s = self.state
        out = [(c, False) for c in self.ready_set(p, DECKLIST.keys()) if not c.facts.is_monster
               and (c.facts.is_trap or c.facts.spell_subtype == "quickplay")]
        if p == s.turn_player and self.free_szones(p):
            out += [(self.c(cid), True) for cid in s.sides[p].hand
                    if self.c(cid).facts.spell_subtype == "quickplay"]
        return out

    def free_chain_options(self, p: int, counters: bool = False) -> list[Callable[[], Link]]:
        """Spell Speed 2 cards usable at almost any time: MST, Dust Tornado, Book of Moon, Ring,
        Scapegoat, Call of the Haunted."""
        out: list[Callable[[], Link]] = []
        s = self.state
        opp_st = [c.id for c in self.spell_traps(1 - p) if not self.in_chain(c.id)]
        face_up_mons = [m.id for q in (1 - p, p) for m in self.mons(q) if m.face_up and not m.is_token]
        opp_face_up = [m.id for m in self.mons(1 - p) if m.face_up]
        for card, from_hand in self.quick_cards(p):
            code, cid = card.code, card.id
            if code in (MST, DUST_TORNADO) and opp_st:
                out.append(lambda cid=cid, t=self.rng.choice(opp_st): self.activate(p, cid, targets=[t]))
            elif code == BOOK and face_up_mons:
                out.append(lambda cid=cid, t=self.rng.choice(face_up_mons): self.activate(p, cid, targets=[t]))
            elif code == RING and opp_face_up:
                t = self.rng.choice(opp_face_up)
                atk = self.c(t).current_atk
                if self.can_lose(0, atk) and self.can_lose(1, atk):
                    out.append(lambda cid=cid, t=t: self.activate(p, cid, targets=[t]))
            elif code == SCAPEGOAT and len(self.free_mzones(p)) >= 4:
                out.append(lambda cid=cid: self.activate(p, cid))
            elif code == CALL and self.free_mzones(p):
                dead = [g for g in s.sides[p].gy if self.c(g).facts.is_monster]
                if dead:
                    out.append(lambda cid=cid, t=self.rng.choice(dead): self.activate(p, cid, targets=[t]))
        return out

    def counter_options(self, p: int) -> list[Callable[[], Link]]:
        """Counter Traps answering the top chain link."""
        if not self.chain:
            return []
        top = self.chain[-1]
        top_card = self.c(top.card) if top.card in self.state.cards else None
        if top_card is None or not top.card_activation:
            return []
        out: list[Callable[[], Link]] = []
        for card in self.ready_set(p, (JAMMER, SEVEN_TOOLS, SOLEMN)):
            code, cid = card.code, card.id
            if code == JAMMER and top_card.facts.is_spell:
                hand = self.hand(p)
                if hand:
                    cost = [{"card": self.rng.choice(hand), "to": GY, "reason": "discarded"}]
                    out.append(lambda cid=cid, cost=cost, n=top.number:
                               self.activate(p, cid, costs=cost, targets=[top.card], negates_link=n))
            elif code == SEVEN_TOOLS and top_card.facts.is_trap and self.can_lose(p, 1000):
                out.append(lambda cid=cid, n=top.number:
                           self.activate(p, cid, costs=[{"lp": 1000}], negates_link=n))
            elif code == SOLEMN and self.lp(p) > SOLEMN_MIN_LP:
                out.append(lambda cid=cid, n=top.number:
                           self.activate(p, cid, costs=[{"lp": self.lp(p) // 2}], negates_link=n))
        return out

    def summon_responses(self, p: int, summoned: str) -> list[Callable[[], Link]]:
        """``p`` answers the opponent's summon of ``summoned`` (a fresh chain)."""
        out: list[Callable[[], Link]] = []
        card = self.c(summoned)
        for st in self.ready_set(p, (SOLEMN, TRAP_HOLE, BOTTOMLESS, TORRENTIAL)):
            code, cid = st.code, st.id
            if code == SOLEMN and self.lp(p) > SOLEMN_MIN_LP and not self.chain \
                    and card.summon_method != "effect":
                # (the engine keeps summon_method "effect" through a later Flip Summon and then
                # refuses summon_negated with SPS-11, so such Flip Summons are not negated here)
                out.append(lambda cid=cid: self.activate(p, cid, costs=[{"lp": self.lp(p) // 2}],
                                                         negates_summon=summoned))
            elif code == TRAP_HOLE and card.face_up and card.current_atk >= 1000:
                out.append(lambda cid=cid: self.activate(p, cid, targets=[summoned]))
            elif code == BOTTOMLESS and card.face_up and card.current_atk >= 1500:
                out.append(lambda cid=cid: self.activate(p, cid, targets=[summoned]))
            elif code == TORRENTIAL:
                out.append(lambda cid=cid: self.activate(p, cid))
        return out

    def attack_responses(self, p: int) -> list[Callable[[], Link]]:
        """The defender ``p`` answers an attack declaration."""
        attack = self.state.attack
        if attack is None or attack.calculated or self.chain:
            return []
        attacker = self.c(attack.attacker)
        out: list[Callable[[], Link]] = []
        for st in self.ready_set(p, (MIRROR_FORCE, SAKURETSU, CYLINDER, NEGATE_ATTACK)):
            code, cid = st.code, st.id
            if code == CYLINDER and not self.can_lose(1 - p, attacker.current_atk):
                continue
            targets = [attacker.id] if code in (SAKURETSU, CYLINDER) else []
            out.append(lambda cid=cid, targets=targets: self.activate(p, cid, targets=targets))
        return out

    def responses(self, p: int) -> list[Callable[[], Link]]:
        top = self.chain[-1]
        out = self.counter_options(p)
        if top.speed <= 2:
            out += self.free_chain_options(p)
            summoned = self.state.cards.get(self.state.summon_window or "")
            if summoned is not None and summoned.zone == MZONE and summoned.controller != p:
                out += self.summon_responses(p, summoned.id)
        return out

    # -- Battle Phase ------------------------------------------------------------------------------

    def battle_phase(self) -> None:
        s, p, rng = self.state, self.state.turn_player, self.rng
        if rng.random() < 0.15:
            self.try_first_link(1 - p, self.free_chain_options(1 - p))
        self.emit("step_entered", step="battle")
        while True:
            attackers = [m for m in self.mons(p) if m.position == ATTACK and m.attacked_turn != s.turn]
            if not attackers or rng.random() < 0.15:
                break
            attacker = rng.choice(attackers)
            targets = self.mons(1 - p)
            target = rng.choice(targets).id if targets else None
            if not self.battle_affordable(attacker, target):
                break
            self.emit("attack_declared", player=p, attacker=attacker.id, target=target)
            if self.attack_window(p) == "end_battle":
                break
        self.emit("step_entered", step="end")

    def battle_affordable(self, attacker: Card, target: str | None) -> bool:
        _, damage = self.battle_result(attacker, self.c(target) if target else None)
        return all(self.can_lose(q, damage[q]) for q in (0, 1))

    def attack_window(self, p: int) -> str | None:
        """After a declaration: responses, a replay if needed, then damage calculation."""
        s, rng = self.state, self.rng
        defender = 1 - p
        opts = self.attack_responses(defender)
        end_battle = False
        self.last_chain = []
        if opts and rng.random() < 0.7:
            self.run_chain(rng.choice(opts))
            end_battle = any(link.data.get("end_battle") for link in self.last_chain)
        elif rng.random() < 0.25:
            self.try_first_link(defender, self.free_chain_options(defender))
        self.cleanup()
        attack = s.attack
        if attack is None:                                      # cancelled by an effect
            return "end_battle" if end_battle or rng.random() < 0.2 else None
        attacker = self.state.cards.get(attack.attacker)
        if attacker is None or attacker.zone != MZONE or attacker.position != ATTACK or \
                attacker.controller != p:
            # the attacker left the field or was turned face-down: the attack stops
            if attacker is None:
                # a Token attacker has ceased to exist (TOKEN-02): the Battle Step ends, which
                # closes the attack (older engines crashed on attack_cancelled here: KeyError)
                return "end_battle"
            cause = self.last_chain[-1].card if self.last_chain else attack.attacker
            self.emit("attack_cancelled", cause=cause)
            return None
        now = frozenset(m.id for m in self.mons(defender))
        if now != attack.defender_monsters:                     # BATTLE-06: a replay
            choices = [m.id for m in self.mons(defender)]
            new = rng.choice(choices) if choices else None
            if rng.random() < 0.2 or not self.battle_affordable(attacker, new):
                self.emit("attack_cancelled", player=p)
                return None
            self.emit("attack_retargeted", player=p, target=new)
        target = self.state.cards.get(s.attack.target) if s.attack.target else None
        self.emit("step_entered", step="damage")
        destroyed, damage = self.battle_result(attacker, target)
        self.emit("damage_calculated", destroyed=sorted(destroyed), damage=damage)
        for q in (0, 1):
            if damage[q]:
                self.emit("life_points_changed", player=q, amount=damage[q], reason="battle_damage",
                          lp=self.lp(q) - damage[q])
        for cid in sorted(destroyed):
            self.move(cid, GY, "battle", cause=None if rng.random() < 0.5 else attacker.id)
        self.cleanup()
        self.triggers()
        self.emit("step_entered", step="battle")
        return None

    @staticmethod
    def battle_result(attacker: Card, target: Card | None) -> tuple[set[str], list[int]]:
        """Damage calculation as the rule book states it (DMG-01..09), written independently."""
        me = attacker.controller
        atk = attacker.current_atk
        damage = [0, 0]
        if target is None:
            damage[1 - me] = atk
            return set(), damage
        if target.position == ATTACK:
            other = target.current_atk
            if atk > other:
                damage[1 - me] = atk - other
                return {target.id}, damage
            if atk == other:
                return (set() if atk == 0 else {attacker.id, target.id}), damage
            damage[me] = other - atk
            return {attacker.id}, damage
        other = target.current_def
        if atk > other:
            return {target.id}, damage
        if atk < other:
            damage[me] = other - atk
        return set(), damage


def generate(n: int = 10_000, seed: int = 1, cards: CardDB = DB) -> list[Event]:
    """The first ``n`` events of a legal synthetic duel (each checked by the engine as it is made)."""
    sim = Sim(seed, cards)
    sim.setup()
    while len(sim.events) < n:
        sim.play_turn()
    if sim.state.overrides:
        raise GenerationError(f"the synthetic duel relies on cited overrides: {sim.state.overrides[:3]}")
    return sim.events[:n]


def kind_mix(events: list[Event]) -> collections.Counter:
    return collections.Counter(e.kind for e in events)


def chain_lengths(events: list[Event]) -> collections.Counter:
    """How many chains reached each length (the largest link number before each chain_ended)."""
    out: collections.Counter = collections.Counter()
    longest = 0
    for e in events:
        if e.kind == "activated":
            longest = max(longest, e.link or 0)
        elif e.kind == "chain_ended":
            out[longest] += 1
            longest = 0
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--events", type=int, help="default 10,000; quick 1,000")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="tiny sizes, a few seconds: does it run (CI)")
    args = parser.parse_args(argv)
    events = generate(args.events or (1_000 if args.quick else 10_000), args.seed)
    report = audit(events, DB)
    state = report.state
    print(f"{len(events)} events, seed {args.seed}: {state.turn} turns, LP {[s.lp for s in state.sides]}, "
          f"audit {'legal' if report.legal else f'{len(report.violations)} violation(s)'}")
    print("event kinds:")
    for kind, count in kind_mix(events).most_common():
        print(f"  {kind:22} {count:6}  {100 * count / len(events):5.1f}%")
    print("chains by length:", dict(sorted(chain_lengths(events).items())))
    return 0 if report.legal else 1


if __name__ == "__main__":
    sys.exit(main())
