"""The state of a duel as the fold builds it: every card, every zone, the turn, the chain.

The state holds full information, as a judge sees it; views for players and spectators are
derived from it. It is mutable on purpose: the fold changes it in place, event by event, so a
10,000-event duel is not 10,000 copies of the board. ``copy()`` makes an independent snapshot when
a caller needs to keep one (rewind, branch).
"""
from __future__ import annotations

import operator
import re
from dataclasses import field, fields
from typing import TYPE_CHECKING, Any, Iterator

from .cards import HIDDEN_CARD, CardDB, CardFacts, UnknownFacts
from .errors import InputError
from .i18n import say
from .lazy_dataclass import dataclass
from .rulesets import RULESETS
from .events import (
    BANISHED, DECK, EXTRA, FACE_UP_POSITIONS, FACEDOWN, FZONE, GY, HAND, MZONE, OVERLAY, SZONE, Cite, Event, Loc)

if TYPE_CHECKING:
    from .events import PositionSetUp

MAIN_MONSTER_ZONES = 5
SPELL_TRAP_ZONES = 5
#: Marks, after a card's id in ``DuelState.flip_uses``, a Flip effect an attack's flip gave and
#: that was not activated in that attack's Damage Step (BATTLE-12: ``rules.base.PASSED``).
FLIP_PASSED = "~passed"


class Card:
    """One physical card (or token) in the duel, with what the rules remember about it."""

    __slots__ = (
        "id", "owner", "code", "facts", "controller", "zone", "position",
        "arrived_turn", "summoned_turn", "summon_method", "set_turn", "position_changed_turn",
        "attacked_turn", "atk", "defense", "level", "counters", "materials", "host",
        "properly_summoned", "is_token", "revealed", "field_exits", "equipped_to", "equip_exits",
        "equip_pending", "last_controller", "summoned_by", "pile", "seal", "unseen_play")

    def __init__(self, card_id: str, owner: int, facts: CardFacts, zone: str = DECK,
                 is_token: bool = False) -> None:
        self.id = card_id
        self.owner = owner
        self.code = facts.code
        self.facts = facts
        self.controller = owner
        self.zone = zone
        self.position: str | None = None
        self.arrived_turn = 0            # turn it last arrived on the field
        self.summoned_turn = 0           # turn it was last Normal/Flip/Special Summoned or Set
        self.summon_method: str | None = None
        self.set_turn = 0                # turn a Spell/Trap was Set (SPELL-12, TRAP-02)
        self.position_changed_turn = 0   # POS-07: once per turn
        self.attacked_turn = 0           # BATTLE-03 / POS-08
        self.atk: int | None = None      # current values set by effects; None = printed value
        self.defense: int | None = None
        self.level: int | None = None
        self.counters: dict[str, int] = {}
        self.materials: list[str] = []   # xyz materials under this monster, bottom first
        self.host: str | None = None     # the xyz monster this card is a material of
        self.properly_summoned = False   # SPS-12
        self.is_token = is_token
        self.revealed = False
        self.field_exits = 0             # times it has left the field: tells one visit from the next
        self.equipped_to: str | None = None   # SPELL-05/07: the monster this Equip Spell is equipped to
        self.equip_exits = 0             # that monster's field_exits when it was equipped
        self.equip_pending = False       # equipped to a monster not yet on the field (e.g. a revival)
        self.last_controller: int | None = None   # CTRL-01: who controlled it as it last left the field
        self.summoned_by: int | None = None  # who summoned or Set it (POS-08 under reposition_opponents_summons)
        self.pile: str | None = None     # "main" or "extra": the part of a registered deck it came from
        self.seal: list | None = None    # [player, seal]: its holder's device sealed it, not yet opened (LOG-11)
        # (event index, how, number) of each play made with the card while the record did not know
        # it, one flat triple after another: a Normal Summon or Set and its Tributes, a Set in a Spell
        # & Trap or Field Zone, an Xyz material and the Rank it was for, a Synchro, Link or Ritual
        # material and its whole summon (a tuple: ``rules.summon.judge_unseen_sum``), a monster
        # Pendulum Summoned and its Scales, (low, high, from the hand). Judged once an event shows
        # the card (SUM-08, SPELL-03, XYZ-01, SYN-01, LINK-02, RIT-02, PEND-03:
        # ``rules.identity.bind``), wherever it went meanwhile.
        self.unseen_play: tuple[int | str | tuple, ...] | None = None

    @property
    def face_up(self) -> bool:
        return self.position in FACE_UP_POSITIONS

    def seen_by(self, player: int | None) -> bool:
        """May ``player`` (None: the table, who sees what is public) know what this card is where
        it is now? (ZONE-11..16, POS-04) The one answer every view (``views.can_see``) and every
        rule judging a card its writer may not see (``rules.base.unseen_by_writer``) gives."""
        zone = self.zone
        if zone == GY or zone == OVERLAY:
            return True
        if zone == MZONE or zone == SZONE or zone == FZONE:
            return self.position in FACE_UP_POSITIONS or self.controller == player
        if zone == BANISHED or zone == EXTRA:
            return self.position in FACE_UP_POSITIONS or self.owner == player
        if zone == HAND:
            return self.controller == player
        return False                                   # the Deck: its order is nobody's business

    @property
    def current_atk(self) -> int:
        return self.facts.base_atk if self.atk is None else self.atk

    @property
    def current_def(self) -> int:
        base = self.facts.base_def or 0
        return base if self.defense is None else self.defense

    @property
    def current_level(self) -> int | None:
        return self.facts.printed_level if self.level is None else self.level

    @property
    def name(self) -> str:
        return self.facts.name

    def leave_field(self) -> None:
        """Forget what belonged to its time on the field (a card that leaves is a new card)."""
        self.atk = self.defense = self.level = None
        self.counters = {}
        self.arrived_turn = self.summoned_turn = self.set_turn = 0
        self.position_changed_turn = self.attacked_turn = 0
        self.summon_method = self.summoned_by = None
        self.last_controller = self.controller
        self.controller = self.owner
        self.field_exits += 1
        self.equipped_to = None
        self.equip_pending = False
        # not ``unseen_play``: leaving the field (Tributed, a material, returned to the hand) does
        # not change what the card is, and an event may still show it (SUM-08, XYZ-01)

    def note_unseen(self, index: int, how: str, number: int | tuple) -> None:
        """Remember a play made with this card while the record did not know it, to judge once an
        event shows it (after any made before: each is judged)."""
        self.unseen_play = (*(self.unseen_play or ()), index, how, number)

    def __repr__(self) -> str:
        return f"<Card {self.id} {self.facts.name} {self.zone} {self.position}>"


class Side:
    """One player's zones and per-turn facts. Zone lists hold card ids; None is an empty zone."""

    __slots__ = ("lp", "deck", "hand", "mzone", "szone", "fzone", "gy", "banished", "extra",
                 "normal_summon_turn", "pendulum_summon_turn", "registered", "side_deck",
                 "summon_negated_turn", "listed", "order_known")

    def __init__(self, lp: int, spell_trap_zones: int = SPELL_TRAP_ZONES) -> None:
        self.lp = lp
        self.deck: list[str] = []        # index 0 is the top (ZONE-11)
        self.hand: list[str] = []
        self.mzone: list[str | None] = [None] * MAIN_MONSTER_ZONES
        # 5 S/T zones; under Master Rule 3 two more, 5 and 6, are the separate Pendulum Zones (CONF-09)
        self.szone: list[str | None] = [None] * spell_trap_zones
        self.fzone: str | None = None
        self.gy: list[str] = []          # in order, newest last (ZONE-13)
        self.banished: list[str] = []
        self.extra: list[str] = []
        self.normal_summon_turn = 0      # SUM-01: the turn the Normal Summon/Set was used
        self.pendulum_summon_turn = 0    # SPS-02
        self.registered = False
        self.side_deck: tuple[int, ...] = ()
        self.summon_negated_turn = 0     # SUM-03: the turn the opponent negated their Normal Summon
        # A decklist registered without its order (``deck_registered`` ``unordered``): the
        # passcodes of its Main and Extra Deck not yet shown, [main, extra] (PEN-02); else None.
        self.listed: list[list[int]] | None = None
        # The record knows which card id is where in the Deck (ZONE-11): not when it was
        # registered with unknown cards or shuffled where the recorder could not follow; then a
        # draw may name any card of it (the ids of unknown cards are only names).
        self.order_known = True


@dataclass(slots=True)
class ChainLink:
    number: int
    player: int
    card: str
    speed: int
    effect_type: str | None
    targets: tuple[str, ...] = ()
    simultaneous: bool = False
    is_card_activation: bool = False
    negates: int | None = None                       # the link it negates (TRAP-06)
    paid: tuple[str, ...] = ()                       # cards paid as its cost (TERM-14)
    paid_lp: int = 0
    left_for_gy: bool = False                        # its Pendulum card went to the GY: legal if negated (PEND-01)
    negated_by: int | None = None                    # the resolved link that negated its activation (TERM-14)
    mandatory: bool | None = None                    # a mandatory trigger; None: not one, or unknown (NIS-02)
    exits: int | None = None                         # a lasting card's field exits at activation (SPELL-09, CHAIN-06)


@dataclass(slots=True)
class Attack:
    """The attack in progress (BATTLE-02): attacker, target (None = direct), what was declared."""

    attacker: str
    target: str | None
    defender_monsters: frozenset[str]
    calculated: bool = False
    destroyed: tuple[str, ...] = ()
    pending_damage: list[int] = field(default_factory=lambda: [0, 0])
    #: A direct attack, as the Damage Step began: whether the opponent's monsters had changed since
    #: the declaration (BATTLE-06: a replay was owed). None until then, and for an attack on a
    #: monster: a change in the Damage Step makes no replay.
    replay_owed: bool | None = None


@dataclass(slots=True)
class Override:
    """A basic rule set aside by a cited card effect (GEN-01), listed by the audit."""

    index: int
    rule: str
    message: str
    cite: Cite


@dataclass(slots=True)
class Violation:
    index: int
    rule: str
    message: str


# -- DuelState.copy, attribute by attribute ------------------------------------------------------
#
# Each attribute of a DuelState is copied in one of these ways; ``_STATE_ATTRS`` is all of them,
# and they are its slots: a state holds no other (a new attribute must be added here, or it cannot
# be set). tests/test_state_copy.py walks both object graphs after every event of real
# duels: no mutable object is shared.

#: Immutable values (numbers, strings, None, tuples of them) and what ``deepcopy``'s memo shared
#: before: the card database and the facts of unknown cards (``unknown``).
_SHARED = ("db", "unknown", "index", "started", "ruleset", "starting_lp", "hand_size", "draw_count",
           "decks_checked", "options", "first_player", "players", "turn", "turn_player", "phase", "step",
           "battle_phase_entered", "normal_draw_done", "draw_given_up", "deck_order_known", "resolving",
           "summon_window", "pendulum_summon_open", "last_kind", "ended", "winner", "end_reason", "lost_by", "token_count",
           "passes", "passes_recorded", "negations_recorded", "reads_before", "unknowns", "witnessed", "turn_began")
#: Flat lists of card ids, link numbers or flags: a new list with the same (immutable) items.
_ID_LISTS = ("emz", "opening_drawn", "to_leave", "negated", "negated_links", "taken_next", "taken_later",
             "equips", "summon_group", "shed", "flipped", "flip_uses", "forfeited", "attacked_earlier", "inert")
#: Lists of ``Violation`` or None.
_VIOLATION_LISTS = ("violations", "undecided", "flags")
#: The slots of ``DuelState.card_text`` (``rules.card_text``'s OWED .. MOVED_ON).
CARD_TEXT_SLOTS = 9
#: Nested plain data (lists, dicts, sets of immutables and of each other): ``_copy_data``.
_DATA = ("must_lose", "material_moves", "resolved", "unrefunded", "timing", "field_placed", "banlist", "card_text",
         "lapsing")
#: Copied by their own code in ``copy``.
_OWN = ("cards", "sides", "chain", "attack", "overrides")
_STATE_COPY = _SHARED + _ID_LISTS + _VIOLATION_LISTS + _DATA + _OWN
_STATE_ATTRS = frozenset(_STATE_COPY)
if len(_STATE_ATTRS) != len(_STATE_COPY):
    raise ImportError("state._STATE_COPY names an attribute twice")


class DuelState:
    """Everything the rules know at one point of the duel.

    Its attributes are slots (``_STATE_COPY``): the fold reads dozens of them an event, and
    a slot read is a fixed offset where an instance dict's is a hinted look-up (#25: a few
    percent of the fold, bench/README.md's eighteenth pass). So a state has no ``__dict__``:
    ``copy``, ``become`` and ``from_data`` set its slots in one statement (``_assigner``)."""

    __slots__ = _STATE_COPY

    def __init__(self, cards: CardDB) -> None:
        self.db = cards
        self.cards: dict[str, Card] = {}
        self.sides: list[Side] = [Side(8000), Side(8000)]
        self.emz: list[str | None] = [None, None]   # left and right, as player 0 sees them
        self.index = 0                   # events applied so far
        self.started = False
        self.ruleset = "mr2020"
        self.starting_lp = 8000
        self.hand_size = 5
        self.draw_count = 1                          # the Draw Phase draw (TURN-02; a duel option)
        self.decks_checked = True                    # DECK-01..06 hold (a duel option may say not)
        self.options: tuple[str, ...] = ()           # duel_started's options (CONF-01): older rulings kept
        self.first_player = 0
        self.players: tuple[str, ...] = ()
        self.turn = 0
        self.turn_player = 0
        self.phase: str | None = None
        self.step: str | None = None
        self.battle_phase_entered = False
        self.opening_drawn = [False, False]          # SETUP-02
        self.normal_draw_done = False                # TURN-02
        # TURN-02: the turn player's cited activation before the draw: no draw owed, one still allowed
        self.draw_given_up = False
        self.deck_order_known = True                 # False when folding a view: orders are hidden
        self.chain: list[ChainLink] = []
        self.resolving = False                         # a chain is resolving: from its first link to chain_ended
        self.to_leave: list[str] = []                  # cards that must leave once the chain ends
        self.negated: list[str] = []                   # cards whose activation this chain negated: they apply nothing (TERM-14)
        self.inert: list[str] = []                     # lasting cards whose link resolved off the field: nothing (SPELL-09)
        self.negated_links: list[int] = []             # this chain's links whose activation was negated: they negate nothing (TERM-14)
        # FUS-03, RIT-03: [card, None] for each link that resolved since the last chain ended; None
        # becomes the card whose activation then started a new chain (that chain's end unrecorded):
        # a Fusion or Ritual Summon the resolved card makes after it came after that activation.
        self.resolved: list[list] = []
        self.flipped: list[str] = []                   # monsters flipped face-up this turn (EFF-05, TERM-10)
        self.flip_uses: list[str] = []                 # one entry per Flip effect activated this turn (EFF-05)
        self.forfeited: list[str] = []                 # monsters whose attack a replay forfeited this turn (BATTLE-07)
        self.attacked_earlier: list[str] = []          # monsters that attacked in an earlier Battle Phase this turn (BATTLE-03)
        # CTRL-01: cards another player controlled as they left the field. That player activates
        # their trigger in the next chain; then the card is its owner's. ``taken_next``: the window
        # closes when the next chain ends; ``taken_later``: they left in a chain, the window is the one after.
        self.taken_next: list[str] = []
        self.taken_later: list[str] = []
        # TURN-08: what effects changed this turn, so their lapse is told from an effect applying:
        # ["stats", card, cause, field_exits, ΔATK, ΔDEF, ΔLevel], ["control", card, cause, field_exits, from]
        self.lapsing: list[list] = []
        self.equips: list[str] = []                    # Equip Spells bound to a monster (SPELL-05/07)
        self.attack: Attack | None = None
        self.summon_window: str | None = None          # a summon just attempted (SUM-03)
        self.pendulum_summon_open = False              # one Pendulum Summon, many monsters
        self.summon_group: list[str] = []              # the monsters of the summon now attempted (PEND-04)
        self.material_moves: list[list] = []           # materials moved just before their summon:
                                                       # [event index, id, name, zone, controller, face_up,
                                                       #  level, tuner, token, link rating] (summon.py)
        self.last_kind = ""                            # kind of the last event applied
        self.must_lose: dict[int, str] = {}            # player -> reason (WIN-01/02)
        self.lost_by: str | None = None                # what took LP to 0: the cause, or win.BY_BATTLE (WIN-04)
        self.ended = False
        self.winner: int | None = None
        self.end_reason: str | None = None
        self.overrides: list[Override] = []
        self.violations: list[Violation] | None = None  # collected when auditing, else None
        self.token_count = 0
        self.shed: list[str] = []                      # materials of a monster being moved (rules.base.bury)
        self.passes = 0                                # priority passes in succession (PRIO-03, CHAIN-04)
        self.passes_recorded = False                   # the record states passes: they are checked
        self.negations_recorded = False                # the record names negated links (BATTLE-09)
        self.unrefunded: list = []                     # [cards, LP] paid for negated links (TERM-14)
        # NIS-06 (``rules.timing``): [links resolved in the chain resolving, the last of them after which
        # something happened, {card: [that count, what it did]}, {card: [what it did, rule]} that missed the timing]
        self.timing: list = [0, -1, {}, {}]
        self.field_placed: list | None = None          # [event index, player, Field Spell it replaced] (SPELL-11)
        self.banlist: list | None = None               # [name, hash, [[code, copies]...], whitelist] (DECK-08)
        # The facts of every card the record does not know (passcode 0). Their reads are counted:
        # a check that read one during an event cannot decide (``rules.base.fail``), and its
        # rule goes to ``undecided`` (a list while a history collects them) rather than called.
        self.unknown = UnknownFacts()
        self.reads_before = 0                          # ``unknown.reads`` as the event began
        self.undecided: list[Violation] | None = []
        self.unknowns = False                          # it has held a card it does not know
        # A witnessed duel (``duel_started.witnessed``): a broken rule is a flag on the event,
        # kept (a list while a history collects them), never a refusal (``rules.base.fail``).
        self.witnessed = False
        self.flags: list[Violation] | None = None
        self.turn_began = 0                            # the current turn's turn_started (LOG-12)
        # What the cards' scripts oblige or limit (``rules.card_text``): triggers owed, count limits used
        # and since when the cards with triggers on their own events were where they are (EFF-04:
        # {card: [zone, field visits, event index]}), the index of the event the duel last moved on at
        self.card_text: list = [{}, {}, {}, {}, False, False, None, {}, 0]     # CARD_TEXT_SLOTS of them

    def deck_ordered(self, player: int) -> bool:
        """Does the record know which card is where in ``player``'s Deck (ZONE-11)? Else any
        card of it may be the one drawn or taken from the top."""
        return self.deck_order_known and self.sides[player].order_known

    def __str__(self) -> str:
        """The board, as ``ygoreplay show`` draws it: ``print(state)``."""
        from .render import render
        return render(self).rstrip("\n")

    def __repr__(self) -> str:
        after = f"after event #{self.index - 1}" if self.index else "before the first event"
        if not self.started:
            return f"<DuelState not started, {len(self.cards)} cards, {after}>"
        where = (f"turn {self.turn}, player {self.turn_player}'s {self.phase or 'turn start'}"
                 + (f" ({self.step} step)" if self.step else "")) if self.turn else "before the first turn"
        result = (f", ended: {'a draw' if self.winner is None else f'player {self.winner} won'} ({self.end_reason})"
                  if self.ended else "")
        chain = f", chain of {len(self.chain)}" if self.chain else ""
        return (f"<DuelState {where}, LP {self.sides[0].lp} / {self.sides[1].lp}{chain}{result}, "
                f"{len(self.cards)} cards, {after}>")

    def position_set_up(self) -> Event:
        """This board as a ``position_set_up`` event, as a FEN is a chess position: folding it
        gives this board back (``position_of``, below)."""
        return position_of(self)

    def use_ruleset(self, name: str) -> None:
        """Name the rule set and shape both sides for it: under MR3 a side has 7 S/T slots, the
        last two being the separate Pendulum Zones (CONF-09; rules/zones.py)."""
        self.ruleset = name
        count = RULESETS[name].spell_trap_zone_count
        for side in self.sides:
            side.szone = (side.szone + [None] * count)[:count]

    # -- lookups -------------------------------------------------------------------------------

    def card(self, card_id: str) -> Card:
        try:
            return self.cards[card_id]
        except KeyError:
            raise KeyError(card_id) from None

    def monsters(self, player: int) -> Iterator[Card]:
        """The monsters a player controls: main monster zones, then their extra monster zone(s)."""
        for cid in self.sides[player].mzone:
            if cid is not None:
                yield self.cards[cid]
        for cid in self.emz:
            if cid is not None and self.cards[cid].controller == player:
                yield self.cards[cid]

    def monster_count(self, player: int) -> int:
        side = self.sides[player]
        n = MAIN_MONSTER_ZONES - side.mzone.count(None)
        for cid in self.emz:
            if cid is not None and self.cards[cid].controller == player:
                n += 1
        return n

    def emz_slot(self, player: int, zone: int) -> int:
        """Index into ``emz`` of mzone 5/6 as ``player`` sees it (left/right are mirrored)."""
        left = zone == 5
        return (0 if left else 1) if player == 0 else (1 if left else 0)

    def mzone_card(self, player: int, zone: int) -> str | None:
        if zone < MAIN_MONSTER_ZONES:
            return self.sides[player].mzone[zone]
        return self.emz[self.emz_slot(player, zone)]

    def location(self, card: Card) -> Loc:
        """Where a card is now, as ``(controller, zone, index)``."""
        side = self.sides[card.controller]
        zone = card.zone
        if zone == MZONE:
            if card.id in side.mzone:
                return Loc(card.controller, MZONE, side.mzone.index(card.id))
            slot = self.emz.index(card.id)
            left = (slot == 0) if card.controller == 0 else (slot == 1)
            return Loc(card.controller, MZONE, 5 if left else 6)
        if zone == SZONE:
            return Loc(card.controller, SZONE, side.szone.index(card.id))
        if zone == FZONE:
            return Loc(card.controller, FZONE, 0)
        if zone == OVERLAY:
            host = self.cards[card.host] if card.host else None
            return Loc(host.controller if host else card.owner, OVERLAY,
                       host.materials.index(card.id) if host else None)
        owner_side = self.sides[card.owner]
        pile = {DECK: owner_side.deck, HAND: side.hand, GY: owner_side.gy,
                BANISHED: owner_side.banished, EXTRA: owner_side.extra}[zone]
        ctl = card.controller if zone == HAND else card.owner
        return Loc(ctl, zone, pile.index(card.id))

    @property
    def open_chain(self) -> bool:
        return bool(self.chain)

    def rename_card(self, old: str, new: str) -> Card:
        """Give a card a new id everywhere the state names it. A view does this when a card it
        knew goes where it can no longer be followed (into a Deck or a hidden hand), so its old
        name cannot tell which hidden card it became (``views``)."""
        card = self.cards.pop(old)
        card.id = new
        self.cards[new] = card

        def swap(ids: list) -> None:
            for i, cid in enumerate(ids):
                if cid == old:
                    ids[i] = new

        for side in self.sides:
            for pile in (side.deck, side.hand, side.mzone, side.szone, side.gy, side.banished, side.extra):
                swap(pile)
            if side.fzone == old:
                side.fzone = new
        for pile in (self.emz, self.to_leave, self.equips, self.summon_group, self.negated, self.inert, self.taken_next,
                     self.taken_later, self.flipped, self.flip_uses, self.forfeited, self.attacked_earlier):
            swap(pile)
        passed, renamed = old + FLIP_PASSED, new + FLIP_PASSED    # BATTLE-12: a Flip effect passed goes too
        self.flip_uses[:] = [renamed if cid == passed else cid for cid in self.flip_uses]
        for pair in self.resolved:
            swap(pair)
        for entry in self.lapsing:
            swap(entry)
        for other in self.cards.values():
            swap(other.materials)
            if other.host == old:
                other.host = new
            if other.equipped_to == old:
                other.equipped_to = new
        for link in self.chain:
            if link.card == old:
                link.card = new
            if old in link.targets:
                link.targets = tuple(new if t == old else t for t in link.targets)
        attack = self.attack
        if attack is not None:
            if attack.attacker == old:
                attack.attacker = new
            if attack.target == old:
                attack.target = new
            if old in attack.defender_monsters:
                attack.defender_monsters = (attack.defender_monsters - {old}) | {new}
            if old in attack.destroyed:
                attack.destroyed = tuple(new if c == old else c for c in attack.destroyed)
        if self.summon_window == old:
            self.summon_window = new
        for move in self.material_moves:
            if len(move) > 1 and move[1] == old:
                move[1] = new
        return card

    def copy(self) -> "DuelState":
        """An independent snapshot: it shares no mutable object with this state, only the
        immutable ones (card facts, the card database, ``unknown``'s facts, strings, numbers,
        tuples and frozensets). The fold takes one before each event that names an unknown card
        (``rules.fold.apply``), so it is copied attribute by attribute (``_STATE_COPY``) rather
        than by ``copy.deepcopy``, which was a third of a view's step."""
        state = _new(DuelState)
        _assign_state(state, _state_values(self))  # the immutable values, shared
        state.cards = _copy_cards(self.cards)
        state.sides = [_copy_side(side) for side in self.sides]
        for name in _ID_LISTS:
            setattr(state, name, getattr(self, name)[:])
        state.chain = [_copy_slotted(link, ChainLink) for link in self.chain]
        attack = self.attack
        if attack is not None:
            state.attack = attack = _copy_slotted(attack, Attack)
            attack.pending_damage = attack.pending_damage[:]
        state.overrides = [_copy_slotted(o, Override) for o in self.overrides]
        for name in _VIOLATION_LISTS:
            found = getattr(self, name)
            if found is not None:
                setattr(state, name, [_copy_slotted(v, Violation) for v in found])
        for name in _DATA:
            setattr(state, name, _copy_data(getattr(self, name)))
        return state

    def become(self, other: "DuelState") -> None:
        """Hold what ``other`` holds, every attribute (its lists are this state's then: ``other``
        is dropped). How a refused event puts back the state before it (``rules.fold._decide``)."""
        _assign_state(self, _state_values(other))

    # -- snapshots: plain data (msgpack/JSON-safe), never pickle, so a shared store runs no code --

    _SCALARS = ("index", "started", "ruleset", "starting_lp", "hand_size", "draw_count", "decks_checked", "options",
                "first_player", "players", "turn", "turn_player", "phase", "step", "battle_phase_entered", "opening_drawn",
                "normal_draw_done", "draw_given_up", "deck_order_known", "to_leave", "equips", "summon_window", "pendulum_summon_open", "last_kind",
                "ended", "winner", "end_reason", "lost_by", "token_count", "emz", "summon_group", "material_moves",
                "resolving", "negated", "inert", "negated_links", "resolved", "flipped", "flip_uses", "forfeited", "attacked_earlier", "taken_next", "taken_later", "lapsing", "passes", "passes_recorded", "negations_recorded", "unrefunded", "field_placed", "banlist",
                "shed", "witnessed", "turn_began", "timing", "card_text")

    def to_data(self) -> dict:
        """The whole state as plain data; ``from_data`` rebuilds it with the same card facts."""
        return {
            "scalars": {name: _plain(getattr(self, name)) for name in self._SCALARS},
            "cards": [_card_row(c) for c in self.cards.values()],
            "sides": [[_plain(getattr(side, slot)) for slot in Side.__slots__] for side in self.sides],
            "chain": [[getattr(link, f) for f in ChainLink.__slots__] for link in self.chain],
            "attack": None if self.attack is None else [
                _plain(getattr(self.attack, f)) for f in Attack.__slots__],
            "must_lose": [[p, r] for p, r in self.must_lose.items()],
            "overrides": [[o.index, o.rule, o.message, o.cite.card, o.cite.effect] for o in self.overrides],
        }

    @classmethod
    def from_data(cls, data: dict, cards: CardDB) -> "DuelState":
        """The state ``to_data`` gave (or an older version's: missing card fields get their
        defaults). It takes the data's lists and dicts as its own. Every seek builds one, so the
        work is done in bulk: the scalars set in one statement (``_assign_scalars``; an older
        version's, which may lack some, one by one: a name no slot has is dropped), the card facts
        looked up in one call, the cards built in one loop (``_cards_from_rows``)."""
        state = cls(cards)
        made_text = state.card_text
        scalars = data["scalars"]
        if scalars.keys() == _SCALAR_NAMES:
            _assign_scalars(state, _scalar_values(scalars))
        else:                                      # an older version's: what it holds (the rest as made)
            for name in scalars.keys() & _SCALAR_NAMES:
                setattr(state, name, scalars[name])
        if len(state.card_text) < len(made_text):   # stored before EFF-04's window was kept: none seen
            state.card_text.extend(made_text[len(state.card_text):])
        for name in ("players", "options"):
            if name in scalars:
                setattr(state, name, tuple(scalars[name]))
        rows = data["cards"]
        codes = [row[2] for row in rows]
        facts = None if 0 in codes else cards.facts_of(codes)
        if facts is None:                          # unknown cards (passcode 0), or a passcode missing: KeyError
            facts = [cards[code] if code else state.unknown for code in codes]
            state.unknowns = 0 in codes
        state.cards = _cards_from_rows(rows, facts)
        if "flipped" not in scalars:
            state.flipped = _flipped_unknown(state)
        for side, row in zip(state.sides, data["sides"]):
            for slot, value in zip(Side.__slots__, row):
                setattr(side, slot, tuple(value) if slot == "side_deck" else value)
        state.chain = [ChainLink(*row[:5], tuple(row[5]), *row[6:9], *(tuple(p) for p in row[9:10]), *row[10:])
                       for row in data["chain"]]
        if data["attack"] is not None:
            # a snapshot stored before ``replay_owed`` was kept has none (its default)
            attacker, target, monsters, calculated, destroyed, damage, *later = data["attack"]
            state.attack = Attack(attacker, target, frozenset(monsters), calculated, tuple(destroyed), damage, *later)
        state.must_lose = {p: r for p, r in data["must_lose"]}
        state.overrides = [Override(i, rule, msg, Cite(card, effect)) for i, rule, msg, card, effect in data["overrides"]]
        return state

    @staticmethod
    def fits(data: object) -> bool:
        """Whether ``data``, the state of a snapshot that names no version (written before
        snapshots carried one: ``rules.history.SNAPSHOT_VERSION``), is of a shape ``from_data``
        reads: this version's, or an older one's (short rows and missing scalars get their
        defaults), nothing wider and no other type. A wider one holds fields this version does not
        know: read, they would be dropped (a wrong state) or break the fold further on."""
        if not isinstance(data, dict) or not data.keys() <= _DATA_KEYS:
            return False
        scalars, cards, attack = data.get("scalars"), data.get("cards"), data.get("attack")
        text = scalars.get("card_text", ()) if isinstance(scalars, dict) else None
        # one ``to_data`` made every card row alike: the first stands for them (this is asked on
        # every seek of a store written before snapshots named their version), and a wider one
        # further on is refused by ``_cards_from_rows`` all the same (ValueError)
        return (isinstance(text, (list, tuple)) and len(text) <= CARD_TEXT_SLOTS and scalars.keys() <= _SCALAR_NAMES
                and type(cards) is list and (not cards or _rows_within(cards[:1], _CARD_WIDTH, _CARD_NARROWEST))
                and _rows_within(data.get("sides"), len(Side.__slots__))
                and _rows_within(data.get("chain"), len(ChainLink.__slots__))
                and (attack is None or isinstance(attack, list) and len(attack) <= len(Attack.__slots__)))


def _rows_within(rows: object, widest: int, narrowest: int = 0) -> bool:
    """Whether ``rows`` is a list of lists of ``narrowest`` to ``widest`` fields."""
    return type(rows) is list and all(type(row) is list and narrowest <= len(row) <= widest for row in rows)


def _flipped_unknown(state: DuelState) -> list[str]:
    """EFF-05 in a snapshot stored before ``flipped`` was kept: which monsters were flipped face-up
    this turn is not known, so any on the field may have been (a duel recorded then, appended to
    now in the same turn, keeps its legal Flip effects); ``turn_started`` ends the doubt. A missing
    ``resolved`` (FUS-03, RIT-03) is left empty: it only lets a summon through."""
    return [card.id for card in state.cards.values() if card.zone == MZONE]


def _assigner(names: tuple[str, ...]) -> Any:
    """A function setting a state's attributes ``names`` to a sequence of values in one statement
    (one slot store each, as ``_cards_from_rows`` sets a card's), as ``dataclasses`` writes code."""
    source = f"def assign(state, values):\n    ({', '.join(f'state.{name}' for name in names)},) = values\n"
    made: dict[str, Any] = {}
    exec(source, {}, made)                  # noqa: S102 - our own attribute names
    return made["assign"]


#: Every attribute of a state, read and set at once (``copy``, ``become``).
_state_values = operator.attrgetter(*_STATE_COPY)


def _assign_state(state: DuelState, values: tuple) -> None:
    """Writes ``_assign_state`` (``_assigner(_STATE_COPY)``) in its own place on a process's first
    copy: a seek copies no state, and writing it was 0.5% of a fresh ``show --at N`` (issue 25)."""
    global _assign_state
    _assign_state = _assigner(_STATE_COPY)
    _assign_state(state, values)


#: The scalars of a snapshot (``to_data``'s), read and set at once (``from_data``).
_SCALAR_NAMES = frozenset(DuelState._SCALARS)
_scalar_values = operator.itemgetter(*DuelState._SCALARS)
_assign_scalars = _assigner(DuelState._SCALARS)
if not _SCALAR_NAMES <= _STATE_ATTRS or len(_SCALAR_NAMES) != len(DuelState._SCALARS):
    raise ImportError("a DuelState scalar is no slot of it, or is named twice")


#: Card slots added after snapshots were first stored, with the value an old snapshot implies.
_CARD_DEFAULTS = {"field_exits": 0, "equipped_to": None, "equip_exits": 0, "equip_pending": False,
                  "last_controller": None, "summoned_by": None, "pile": None, "seal": None,
                  "unseen_play": None}
_CARD_WIDTH = len(Card.__slots__)
#: The fewest fields a snapshot's card row has (the first version's: ``_CARD_DEFAULTS`` came since).
_CARD_NARROWEST = _CARD_WIDTH - len(_CARD_DEFAULTS)
#: What a snapshot's state holds (``DuelState.to_data``).
_DATA_KEYS = frozenset(("scalars", "cards", "sides", "chain", "attack", "must_lose", "overrides"))
_CARD_PADDING = [None] * (_CARD_WIDTH - len(_CARD_DEFAULTS)) + list(_CARD_DEFAULTS.values())
_card_values = operator.attrgetter(*Card.__slots__)
_FACTS = Card.__slots__.index("facts")


def _card_row(card: Card) -> list:
    row = list(_card_values(card))
    row[_FACTS] = None                           # facts come back from the card database
    return row


def _cards_from_rows(rows: list[list], facts: list[CardFacts]) -> dict[str, Card]:
    """The cards of a snapshot's rows (``_card_row``'s, or an older version's, shorter: padded with
    ``_CARD_DEFAULTS``) with their facts, by id. Every seek builds a hundred or so, so it is one
    loop that assigns each card's slots in one statement (in ``Card.__slots__``' order, checked
    below): a call per card was a sixth of building them."""
    kept = {}
    new, width, padding = _new, _CARD_WIDTH, _CARD_PADDING
    for row, fact in zip(rows, facts):
        if len(row) != width:
            row = [*row, *padding[len(row):]]
        card = new(Card)
        (card.id, card.owner, card.code, card.facts, card.controller, card.zone, card.position,
         card.arrived_turn, card.summoned_turn, card.summon_method, card.set_turn,
         card.position_changed_turn, card.attacked_turn, card.atk, card.defense, card.level,
         card.counters, card.materials, card.host, card.properly_summoned, card.is_token, card.revealed,
         card.field_exits, card.equipped_to, card.equip_exits, card.equip_pending, card.last_controller,
         card.summoned_by, card.pile, card.seal, card.unseen_play) = row
        card.facts = fact
        if card.unseen_play is not None:
            card.unseen_play = tuple(card.unseen_play)   # plain data holds it as a list
        kept[card.id] = card
    return kept


def _names_in_order(code: Any, names: tuple[str, ...]) -> bool:
    """Whether ``names`` come one after another, in order, among the names a function's code uses."""
    used = code.co_names
    return any(used[i:i + len(names)] == names for i in range(len(used)))


if not _names_in_order(_cards_from_rows.__code__, Card.__slots__):   # the statement above names every slot
    raise ImportError("state._cards_from_rows does not assign Card.__slots__ in order")


def add_deck_cards(cards: dict[str, Card], ids: list[str], owner: int, facts: list[CardFacts], zone: str,
                   position: str | None, pile: str) -> None:
    """A registered deck's cards of one pile (``rules.setup.deck_registered``): ``Card(id, owner,
    facts, zone)`` for each of ``facts``, under ``ids`` in turn, with this ``position`` and ``pile``,
    put in ``cards``. A deck is 40-75 cards at the opening of every duel, so it is one loop that
    assigns each card's slots in turn (in ``Card.__slots__``' order, checked below) with the
    values ``Card.__init__`` gives: a call per card was a sixth of building them."""
    new = object.__new__
    for card_id, fact in zip(ids, facts):
        c = cards[card_id] = new(Card)
        c.id = card_id; c.owner = owner; c.code = fact.code; c.facts = fact; c.controller = owner; c.zone = zone
        c.position = position; c.arrived_turn = 0; c.summoned_turn = 0; c.summon_method = None; c.set_turn = 0
        c.position_changed_turn = 0; c.attacked_turn = 0; c.atk = None; c.defense = None; c.level = None
        c.counters = {}; c.materials = []; c.host = None; c.properly_summoned = False; c.is_token = False
        c.revealed = False; c.field_exits = 0; c.equipped_to = None; c.equip_exits = 0; c.equip_pending = False
        c.last_controller = None; c.summoned_by = None; c.pile = pile; c.seal = None; c.unseen_play = None


def _deck_card_as_made() -> bool:
    """Whether ``add_deck_cards`` gives what ``Card.__init__`` and the two assignments would."""
    made: dict[str, Card] = {}
    add_deck_cards(made, ["p1.x0"], 1, [HIDDEN_CARD], EXTRA, FACEDOWN, "extra")
    card = Card("p1.x0", 1, HIDDEN_CARD, EXTRA)
    card.position, card.pile = FACEDOWN, "extra"
    return _card_values(made["p1.x0"]) == _card_values(card)


if not _names_in_order(add_deck_cards.__code__, Card.__slots__) or not _deck_card_as_made():
    raise ImportError("state.add_deck_cards does not assign Card.__slots__ in order, as Card.__init__ does")


_new = object.__new__
_ATOMS = frozenset({str, int, bool, float, type(None), frozenset, bytes})


def _copy_cards(cards: dict[str, Card]) -> dict[str, Card]:
    """Each card's own copy: its slots, its counters, materials and seal new; its facts shared.
    A state holds a hundred cards or so, most of a copy's work: one loop, each card's slots
    assigned in one statement (in ``Card.__slots__``' order, checked below)."""
    copied = {}
    new, values, data = _new, _card_values, _copy_data
    for card_id, card in cards.items():
        c = new(Card)
        (c.id, c.owner, c.code, c.facts, c.controller, c.zone, c.position, c.arrived_turn, c.summoned_turn,
         c.summon_method, c.set_turn, c.position_changed_turn, c.attacked_turn, c.atk, c.defense, c.level,
         c.counters, c.materials, c.host, c.properly_summoned, c.is_token, c.revealed, c.field_exits,
         c.equipped_to, c.equip_exits, c.equip_pending, c.last_controller, c.summoned_by, c.pile,
         c.seal, c.unseen_play) = values(card)
        c.counters = dict(c.counters)        # str -> int
        c.materials = c.materials[:]         # card ids
        if c.seal is not None:
            c.seal = data(c.seal)
        copied[card_id] = c
    return copied


if _copy_cards.__code__.co_names[5:5 + len(Card.__slots__)] != Card.__slots__:
    raise ImportError("state._copy_cards does not assign Card.__slots__ in order")


def _copy_side(side: Side) -> Side:
    """A side's own copy: its zone lists new (they hold card ids or None), ``listed`` copied."""
    new = _new(Side)
    (new.lp, new.deck, new.hand, new.mzone, new.szone, new.fzone, new.gy, new.banished, new.extra,
     new.normal_summon_turn, new.pendulum_summon_turn, new.registered, new.side_deck,
     new.summon_negated_turn, new.listed, new.order_known) = (
        side.lp, side.deck[:], side.hand[:], side.mzone[:], side.szone[:], side.fzone, side.gy[:],
        side.banished[:], side.extra[:], side.normal_summon_turn, side.pendulum_summon_turn, side.registered,
        side.side_deck, side.summon_negated_turn, None if side.listed is None else _copy_data(side.listed),
        side.order_known)
    return new


if not set(Side.__slots__) <= set(_copy_side.__code__.co_names):
    raise ImportError("state._copy_side does not copy every slot of Side")
#: The card slots ``_copy_cards`` copies; every other holds an immutable value (checked against
#: ``Card.__slots__``, so a new slot must be placed in one or the other).
_CARD_COPIED = ("counters", "materials", "seal")
_CARD_SHARED = ("id", "owner", "code", "facts", "controller", "zone", "position", "arrived_turn", "summoned_turn",
                "summon_method", "set_turn", "position_changed_turn", "attacked_turn", "atk", "defense", "level",
                "host", "properly_summoned", "is_token", "revealed", "field_exits", "equipped_to", "equip_exits",
                "equip_pending", "last_controller", "summoned_by", "pile", "unseen_play")
if sorted(_CARD_COPIED + _CARD_SHARED) != sorted(Card.__slots__):
    raise ImportError("state._copy_cards does not know every slot of Card (_CARD_COPIED, _CARD_SHARED)")


#: Per slotted class ``copy`` copies, its slots, read at once. Their values are immutable (each
#: field's annotation is checked below: a ``Cite`` is frozen), but an ``Attack``'s
#: ``pending_damage``, which ``copy`` copies itself.
_SLOTS = {cls: (cls.__slots__, operator.attrgetter(*cls.__slots__))
          for cls in (ChainLink, Attack, Override, Violation)}
_IMMUTABLE_TYPES = {"int", "str", "bool", "None", "tuple", "frozenset", "Cite"}
if any(set(re.findall(r"\w+", str(fld.type))) - _IMMUTABLE_TYPES
       for cls in _SLOTS for fld in fields(cls) if (cls, fld.name) != (Attack, "pending_damage")):
    raise ImportError("a slot of ChainLink, Attack, Override or Violation may hold a mutable value: "
                      "DuelState.copy would share it")


def _copy_slotted(obj: Any, cls: type) -> Any:
    """A new ``cls`` (a slotted dataclass) with ``obj``'s slot values."""
    new = _new(cls)
    slots, values = _SLOTS[cls]
    for slot, value in zip(slots, values(obj)):
        object.__setattr__(new, slot, value)
    return new


def _copy_data(value: Any) -> Any:
    """A deep copy of plain data: lists, dicts, sets and tuples made of each other and of immutable
    values (shared). Anything else is refused: ``copy`` would not know whether it may be shared."""
    kind = type(value)
    atoms = _ATOMS
    if kind is list:
        return [item if type(item) in atoms else _copy_data(item) for item in value]
    if kind is dict:
        return {key: item if type(item) in atoms else _copy_data(item) for key, item in value.items()}
    if kind in atoms:
        return value
    if kind is tuple:
        if all(type(item) in atoms for item in value):
            return value
        return tuple(_copy_data(item) for item in value)
    if kind is set:
        return set(value)                     # its items are hashable: immutable here
    raise TypeError(f"DuelState.copy cannot copy a {kind.__name__} held in plain data")


_PLAIN = frozenset((int, str, bool, type(None), float, bytes))    # what ``_plain`` keeps as it is


def _plain(value):
    """Tuples and frozensets as lists, for msgpack and JSON; sets sorted, so the same state is the
    same data in every process (a snapshot is checked against a fresh fold's). A value of a plain
    type, and a list or tuple of them, is answered at once (most of a state: two ``isinstance``
    tests a value were a third of a snapshot's ``to_data``, issue 25); any other, a subclass
    included, as always."""
    kind = value.__class__
    if kind in _PLAIN:
        return value
    if kind is list or kind is tuple:
        return [v if v.__class__ in _PLAIN else _plain(v) for v in value]
    if isinstance(value, (frozenset, set)):
        return sorted(_plain(v) for v in value)
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


# -- a board written down: position_set_up ------------------------------------------------------
#
# A board written back as a ``position_set_up`` event, as a FEN writes down a chess position.
#
# ``position_of(state)`` gives the event whose fold is the same board: every card with its id,
# owner, zone, position, current stats, counters, Xyz materials and what it did this turn; the LP;
# the turn, phase and step; the per-turn facts of both players. A judge rebuilds a disputed board
# with it, a test starts from it::
#
#     >>> event = position_of(state)                             # doctest: +SKIP
#     >>> apply(DuelState(cards), event)                         # the same board again
#
# A position is a board between actions: like a FEN it holds no history, so an open chain, an
# attack in progress, equip links, the player names and the events' count are not part of it. A
# card the board does not know (a record of what its recorder saw, a view) is written with
# passcode 0, as ``deck_registered`` writes one: it stays unknown in the position.

def position_of(state: DuelState) -> PositionSetUp:
    """The ``position_set_up`` event of this board (see the comment above)."""
    from .events import PositionSetUp      # made on first use (events._lazy)
    if not state.started:
        raise InputError(say("the duel has not started: there is no board to set up"))
    turn = max(1, state.turn)
    sides = [_side(state, player, turn) for player in (0, 1)]
    return PositionSetUp(
        sides=tuple(sides), turn=turn, turn_player=state.turn_player, phase=state.phase or "draw",
        step=state.step if state.phase == "battle" else None,
        normal_summon_used=tuple(side.normal_summon_turn == turn for side in state.sides),
        pendulum_summon_used=tuple(side.pendulum_summon_turn == turn for side in state.sides),
        battle_phase_entered=state.battle_phase_entered, ruleset=state.ruleset, first_player=state.first_player)


def _side(state: DuelState, player: int, turn: int) -> dict[str, Any]:
    side = state.sides[player]
    mzone: list[Any] = [_spec(state, state.cards[c], player, turn) if c else None for c in side.mzone]
    emz = [None, None]
    for card_id in state.emz:
        if card_id is not None and state.cards[card_id].controller == player:
            emz[state.location(state.cards[card_id]).index - 5] = _spec(state, state.cards[card_id], player, turn)
    if any(emz):
        mzone += emz
    return {
        "lp": side.lp,
        "deck": [_spec(state, state.cards[c], player, turn) for c in side.deck],
        "hand": [_spec(state, state.cards[c], player, turn) for c in side.hand],
        "gy": [_spec(state, state.cards[c], player, turn) for c in side.gy],
        "banished": [_spec(state, state.cards[c], player, turn) for c in side.banished],
        "extra": [_spec(state, state.cards[c], player, turn) for c in side.extra],
        "mzone": mzone,
        "szone": [_spec(state, state.cards[c], player, turn) if c else None for c in side.szone],
        "fzone": _spec(state, state.cards[side.fzone], player, turn) if side.fzone else None,
    }


def _spec(state: DuelState, card: Card, controller: int, turn: int) -> dict[str, Any]:
    """One card as a set-up position names it: only what differs from what the fold assumes."""
    spec: dict[str, Any] = {"code": card.code, "id": card.id}
    if card.owner != controller:
        spec["owner"] = card.owner
    on_field = card.zone in (MZONE, SZONE, FZONE)
    if on_field or card.zone in (EXTRA, "banished"):
        spec["position"] = card.position
    if card.is_token:
        spec["token"] = True
    for flag, value in (("summoned", card.summoned_turn), ("set", card.set_turn),
                        ("position_changed", card.position_changed_turn), ("attacked", card.attacked_turn)):
        if value == turn and turn:
            spec[flag] = True
    for name in ("atk", "defense", "level"):
        if getattr(card, name) is not None:
            spec[name] = getattr(card, name)
    if card.counters:
        spec["counters"] = dict(card.counters)
    if card.materials:
        spec["materials"] = [_spec(state, state.cards[m], controller, turn) for m in card.materials]
    if card.properly_summoned != (card.zone == MZONE):
        spec["properly_summoned"] = card.properly_summoned
    return spec
