"""EDOPro's message stream mapped to our events, with the mirror of the engine's field.

How the stream becomes our events (the parts the stream does not spell out):

* **Card ids and deck order.** Cards are registered from the embedded YRP1 deck lists
  (``p0.m7`` is index 7 of player 0's list as stored, bottom of the deck first). Each shuffle
  starts an *epoch* in which the deck's positions are unknown; when a card leaves the deck its
  passcode pins an id to that position, and so does the engine's listing of the whole Deck (a
  state packet after every chain), so the ``deck_shuffled`` written at the shuffle carries the
  engine's own order. Cards with the same passcode are interchangeable (``mirror``).
* **Duel options.** The room's start LP, opening hand and draw count, and a deck check that was
  off (a deck the check would refuse), are duel options of ``duel_started`` (CONF-01), not
  breaches of SETUP-01/02, TURN-02 or DECK-01..06.
* **Where each event begins.** ``ImportResult.sources`` gives the first packet behind each event:
  an activation begins where its card was put in its zone or turned face-up, a summon at its
  first Tribute or material. The engine's state packets show those changes from there on, and
  ``engine_check`` compares the board with every state packet on that footing.
* **Summons.** A move to a Monster Zone followed by MSG_SUMMONING / MSG_SET is a Normal Summon
  or Set (the Tributes are the releases just before it); one with the SPSUMMON reason is a
  Special Summon whose method comes from its materials' reason bits (fusion, synchro, xyz, link,
  ritual), else ``effect`` while a chain link resolves, ``pendulum`` when the player's Scales
  allow it, ``inherent`` otherwise.
* **Activations.** A Spell/Trap card moved from the hand, or turned face-up, just before
  MSG_CHAINING is a card activation; anything else is an effect: ``ignition`` in the player's
  open game state (PRIO-06), ``trigger`` outside it, ``quick`` when chained to (the stream does
  not name the effect type). Costs and targets are what happens between MSG_CHAINING and
  MSG_CHAINED.
* **Moves on the field.** A card moved to another zone of its controller's row is a
  ``zone_changed``; an Xyz monster's materials attached while it is still in the Extra Deck wait
  for its summon; a Spell/Trap an effect turns face-down (or face-up) is a ``position_changed``
  with that cause. A monster's position change is manual only when it answers an idle command
  (the server's field and hand refreshes just before it), else an effect's (POS-07/08).
* **Battle.** Steps EDOPro does not announce are written in; stats are synced to the ATK/DEF of
  MSG_BATTLE; an attacked face-down monster is flipped where the engine flips it (POS-04); the
  recorded destruction and battle damage are what EDOPro then did, set beside what the rules
  give (``rules.battle.battle_outcome``, DMG-01..09).
* **Cites (GEN-01).** ``cites``: the card the stream shows behind what the basic rules forbid.
* **Deck check.** A deck that breaks DECK-01..06 is imported as it is (the audit reports it);
  an import note says EDOPro's deck check was off. That is not a card effect, so nothing is
  cited; the room option itself is not in the file, only "Don't shuffle deck" is (the duel
  flag DUEL_PSEUDO_SHUFFLE), and the note says so when it is set.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ..cards import CardDB, CardDBError, CardFacts
from ..decks import deck_problems
from ..events import (
    ATTACK, BANISHED, DECK, DEFENSE, EXTRA, FACEDOWN, FACEDOWN_ATTACK, FACEUP, FZONE, GY, HAND, MZONE,
    OVERLAY, SET, SZONE, Activated, AttackCancelled, AttackDeclared, AttackRetargeted, CardMoved,
    CardRevealed, CardsDrawn, ChainEnded, ChainLinkNegated, ChainLinkResolved, Cite, CoinTossed,
    ControlChanged, Cost, CountersChanged, DamageCalculated, DeckRegistered, DeckShuffled, DieRolled,
    DuelEnded, DuelStarted, Event, FlipSummoned, HandSizeDiscard, LifePointsChanged, Loc, MonsterSet, NormalSummoned,
    PhaseEntered, PositionChanged, SpecialSummoned, SpellTrapSet, StatsChanged, StepEntered,
    SummonNegated, TokenCreated, TurnStarted, ZoneChanged)
from ..importing import Expected, ImportResult
from ..rules.base import has_open_game_state
from ..rules.battle import battle_outcome
from ..rules.fold import AFTER_LOSS
from ..rules.summon import PROPER_METHODS, between_scales
from .cites import (Effect, battle_cite, credit_gain, effect_named, granted_to, normal_summon_cite, player_hint,
                    skipped_draw_cite, special_summon_cite)
from .constants import (HINT_CARD, HINT_OPSELECTED, LOCATION_DECK, LOCATION_EXTRA, LOCATION_GRAVE,
    LOCATION_HAND, LOCATION_MZONE, LOCATION_OVERLAY, LOCATION_REMOVED, LOCATION_SZONE, MSG_ADD_COUNTER,
    MSG_ATTACK, MSG_ATTACK_DISABLED, MSG_BATTLE, MSG_BECOME_TARGET, MSG_CHAINED, MSG_CHAINING, MSG_CHAIN_END,
    MSG_CHAIN_NEGATED, MSG_CHAIN_SOLVED, MSG_CHAIN_SOLVING, MSG_CONFIRM_CARDS, MSG_CONFIRM_DECKTOP,
    MSG_CONFIRM_EXTRATOP, MSG_DAMAGE, MSG_DAMAGE_STEP_END, MSG_DAMAGE_STEP_START, MSG_DECK_TOP, MSG_DRAW,
    MSG_FLIPSUMMONED, MSG_FLIPSUMMONING, MSG_HINT, MSG_LPUPDATE, MSG_MOVE, MSG_NEW_PHASE, MSG_NEW_TURN,
    MSG_PAY_LPCOST, MSG_PLAYER_HINT, MSG_POS_CHANGE, MSG_RECOVER, MSG_REMOVE_COUNTER, MSG_REVERSE_DECK,
    MSG_SET, MSG_SHUFFLE_DECK, MSG_SHUFFLE_EXTRA, MSG_SHUFFLE_HAND, MSG_SHUFFLE_SET_CARD, MSG_SPSUMMONED,
    MSG_SPSUMMONING, MSG_START, MSG_SUMMONED, MSG_SUMMONING, MSG_SWAP, MSG_SWAP_GRAVE_DECK, MSG_TOSS_COIN,
    MSG_TOSS_DICE, MSG_UPDATE_CARD, MSG_UPDATE_DATA, MSG_WIN, PHASE_BATTLE_START, PHASE_DRAW, PHASE_END,
    PHASE_MAIN1, PHASE_MAIN2, PHASE_STANDBY, POS_ATTACK, POS_DEFENSE, POS_FACEDOWN, POS_FACEDOWN_ATTACK,
    POS_FACEUP, POS_FACEUP_ATTACK, POS_FACEUP_DEFENSE, REASON_BATTLE, REASON_COST, REASON_DESTROY,
    REASON_DISCARD, REASON_FUSION, REASON_LINK, REASON_MATERIAL, REASON_RELEASE, REASON_RITUAL, REASON_RULE,
    REASON_SPSUMMON, REASON_SUMMON, REASON_SYNCHRO, REASON_XYZ, WIN_REASONS)
from .container import (DUEL_EMZONE, DUEL_FSX_MMZONE, DUEL_PSEUDO_SHUFFLE, DUEL_RELAY, DUEL_SEPARATE_PZONE,
                        REPLAY_HAND_TEST, REPLAY_SINGLE_MODE, REPLAY_TAG, YRP1, YRPX, Packet, Where, YrpxError,
                        YrpxReplay, read_yrpx)
from .facts import QueriedFacts
from .messages import QUIET, Query, card_slots, parse_message, parse_update_card, parse_update_data
from .mirror import Mirror, Cell

_PHASES = {PHASE_DRAW: "draw", PHASE_STANDBY: "standby", PHASE_MAIN1: "main1",
           PHASE_BATTLE_START: "battle", PHASE_MAIN2: "main2", PHASE_END: "end"}
_MATERIAL_METHODS = ((REASON_FUSION, "fusion"), (REASON_SYNCHRO, "synchro"), (REASON_XYZ, "xyz"),
                     (REASON_LINK, "link"), (REASON_RITUAL, "ritual"))


@dataclass
class _Link:
    card: str
    player: int
    effect_type: str | None
    negated: bool = False
    negated_by: int | None = None
    done: bool = False
    effect: Effect | None = None


@dataclass
class _Activation:
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
    cite: Cite | None = None
    effect: Effect | None = None
    begins: int = -1               # the packet the activation's first event stands for


def import_yrpx(path_or_bytes: str | os.PathLike[str] | bytes | bytearray | YrpxReplay, *,
                names: CardDB | None = None) -> ImportResult:
    """Import a replay: read it, check it is a 1v1 duel with a message stream, map it to events.

    ``names`` optionally supplies card names (e.g. a cards.cdb); the facts themselves come from
    the card queries inside the replay. Raises ``YrpxError`` for a file that cannot be imported,
    saying why (puzzle, hand test, tag duel, legacy replay, corrupt data and where).
    """
    path = None if isinstance(path_or_bytes, (bytes, bytearray, memoryview, YrpxReplay)) else str(path_or_bytes)
    replay = path_or_bytes if isinstance(path_or_bytes, YrpxReplay) else read_yrpx(path_or_bytes)
    try:
        _check_importable(replay)
        result = Importer(replay, names).run()
    except YrpxError as err:
        if path and not err.path:
            raise YrpxError(err.detail, err.offset, path, err.space) from None
        raise
    result.path = path
    return result


def _check_importable(replay: YrpxReplay) -> None:
    if replay.id == YRP1:
        raise YrpxError("cannot import: a legacy .yrp replay holds only the players' responses; replaying it "
                        "needs the EDOPro engine and its card scripts (open it in EDOPro and save it as .yrpX)")
    if replay.id != YRPX:
        raise YrpxError(f"cannot import: a {replay.kind} replay has no message stream")
    if replay.flags & REPLAY_HAND_TEST:
        raise YrpxError("cannot import: hand test replay (a solo test of a deck, not a duel)")
    if replay.flags & REPLAY_SINGLE_MODE:
        raise YrpxError("cannot import: puzzle replay (single mode: a scripted position, not a duel)")
    if replay.flags & REPLAY_TAG or any(len(team) != 1 for team in replay.names) or replay.duel_flags & DUEL_RELAY:
        sizes = "v".join(str(len(team)) for team in replay.names)
        raise YrpxError(f"cannot import: {'relay' if replay.duel_flags & DUEL_RELAY else 'tag'} duel ({sizes}); "
                        "only single 1v1 duels are supported")
    if not replay.packets or replay.packets[0].id != MSG_START:
        first = replay.packets[0].offset if replay.packets else replay.body_size
        raise YrpxError("cannot import: the message stream does not begin with MSG_START", first, space="body")


def _ruleset(duel_flags: int) -> tuple[str, str | None]:
    """Our rule set for EDOPro's duel flags, and a note when the match is not exact."""
    if duel_flags & DUEL_FSX_MMZONE and duel_flags & DUEL_EMZONE:
        return "mr2020", None
    if duel_flags & DUEL_EMZONE:
        return "nmr2017", None
    if duel_flags & DUEL_SEPARATE_PZONE:
        return "mr3", None
    return "mr3", f"duel flags {duel_flags:#x} name an older Master Rule; checked under mr3"


def _position(pos: int, zone: str) -> str | None:
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


class Importer:
    """One replay's message stream mapped to our events (module docstring)."""

    def __init__(self, replay: YrpxReplay, names: CardDB | None) -> None:
        self.r = replay
        self.packets = replay.packets
        self.msgs: list[dict | None] = [None] * len(self.packets)
        self.events: list[Event] = []
        self.sources: list[int] = []
        self.notes: list[str] = []
        self._note_counts: dict[str, int] = {}
        self.i = 0
        self.consumed: set[int] = set()
        self.field = Mirror(self.note)
        self.facts = QueriedFacts(replay.packets, names, self.note)
        # turn structure as our fold sees it
        self.turn = 0
        self.turn_player = 0
        self.phase: str | None = None
        self.step: str | None = None
        self.normal_drawn = False
        # chains
        self.chain: list[_Link] = []
        self.solving: int | None = None
        self.activation: _Activation | None = None
        self.last_link_card: str | None = None
        self.last_link_by_player: dict[int, str] = {}
        self.flipped: set[str] = set()
        # summons
        self.pending_tributes: list[tuple[str, Loc]] = []               # (card, where EDOPro sent it)
        self.pending_materials: list[tuple[str, int, Loc, str | None, int]] = []  # (card, reason, to, position, packet)
        self.material_from: dict[str, tuple[Where, Query | None]] = {}   # where a material was, as queried there
        self.refresh_cache: dict[int, list[Query | None]] = {}
        self.last_resolved: tuple[str, int] | None = None      # (card, player) of the link that resolved last
        self.chain_end_at = -1                                  # len(events) just after the last chain_ended
        self.pre_overlay: dict[str, list[str]] = {}            # xyz host not yet on the field
        self.pending_at: dict[str, int] = {}                   # packet of each pending move above
        self.began_at: int | None = None                       # the summon being written began there
        self.pending_flip: tuple[str, int] | None = None       # a Set card turned face-up to be activated
        self.summoning: set[str] = set()                       # summoned, not yet "SUMMONED"
        self.auto_gy: set[str] = set()                         # xyz materials our fold already sent
        self.set_turn: dict[str, int] = {}
        # battle
        self.attack: tuple[str, str | None] | None = None
        self.attack_defenders: frozenset[str] = frozenset()   # the opponent's monsters at the declaration
        self.calculated = False
        self.removed_by: dict[str, str | None] = {}
        # values our fold believes (stats, counters), LP as EDOPro counts them
        self.believed: dict[str, tuple[int | None, int | None, int | None]] = {}
        self.counters: dict[str, dict[int, int]] = {}
        self.lp = [8000, 8000]
        self.lost = False
        self.win: tuple[int | None, str] | None = None
        self.hint_card: tuple[int, int] | None = None
        self.pending_place: tuple[str, Where, int] | None = None   # a card put on the field to be activated,
                                                                  # and the packet of that MSG_MOVE
        self.facedown_st: set[str] = set()
        self.battle_destroyed: set[str] = set()
        self.battle_damage_at: set[int] = set()
        self.resolved_cards: set[str] = set()
        self.draw_count = 1
        self.prev_sig = 0
        self.turn_activations: list[tuple[str, tuple[str, ...]]] = []
        self.solving_from = 0
        self.quiet_links: list[tuple[str, int]] = []
        self.after_chain: tuple[int, list[tuple[str, int]]] = (-1, [])
        self.ns_turn = [0, 0]
        self.grant_was_hint = False
        self.ns_grants: dict[int, list[str]] = {0: [], 1: []}
        self.attacked: dict[str, int] = {}
        self.proper: set[str] = set()
        # evidence for a skipped Draw Phase (see the module docstring)
        self.effect_log: list[Effect] = []
        self.draw_mark = [0, 0]                     # len(effect_log) at the player's last Draw Phase
        self.player_hints: dict[int, list[tuple[int, int, Effect | None]]] = {0: [], 1: []}

    # -- bookkeeping ---------------------------------------------------------------------------

    def note(self, text: str) -> None:
        key = text.split(":")[0]
        n = self._note_counts.get(key, 0)
        self._note_counts[key] = n + 1
        if n < 5:
            self.notes.append(f"packet {self.i}: {text}")

    def msg(self, i: int) -> dict | None:
        m = self.msgs[i]
        if m is None:
            p = self.packets[i]
            if p.id in (MSG_UPDATE_DATA, MSG_UPDATE_CARD):
                return None
            m = parse_message(p)
            if m is None:
                return None
            self.msgs[i] = m
        return m

    def next_significant(self, i: int) -> int | None:
        """The index of the next message after ``i`` that is not a refresh or hint."""
        j = i + 1
        n = len(self.packets)
        while j < n and (self.packets[j].id in QUIET or j in self.consumed):
            j += 1
        return j if j < n else None

    def emit(self, event: Event, source: int | None = None) -> None:
        """Append an event; ``source`` is the first packet behind it when that is not the current
        one (a summon whose Tributes or materials moved first)."""
        if self.lost and event.kind not in AFTER_LOSS:
            self.note(f"{event.kind} after a player reached 0 LP left out: the duel ends at once (WIN-01)")
            return
        at = source if source is not None else self.i if self.began_at is None else self.began_at
        if self.activation is not None:
            self.activation.after.append((event, at))
            return
        self.events.append(event)
        self.sources.append(at)

    def began(self, cards) -> int | None:
        """The packet of the first pending move among ``cards`` (and forget them), or None."""
        at = [self.pending_at.pop(c) for c in cards if c in self.pending_at]
        return min(at) if at else None

    def open_game_state(self, player: int) -> bool:
        """PRIO-06 as the stream stands: a link resolving, or one being activated, is a chain open."""
        return has_open_game_state(player, self.turn_player, self.phase,
                                   bool(self.chain) or self.solving is not None or self.activation is not None)

    @property
    def cause(self) -> str | None:
        """The card whose effect is resolving now, if any."""
        if self.solving is not None and 0 < self.solving <= len(self.chain):
            return self.chain[self.solving - 1].card
        return None

    def effect_cause(self, player: int | None = None) -> str:
        """The resolving card, else the last card a chain link named (this player's first)."""
        return (self.cause or (self.last_link_by_player.get(player) if player is not None else None)
                or self.last_link_card or "effect")


    def fx(self, card_id: str) -> CardFacts:
        return self.facts.facts_for(self.field.code(card_id))

    # -- set-up --------------------------------------------------------------------------------

    def setup(self) -> None:
        start = self.msg(0) or {}
        self.lp = list(start.get("lp", (8000, 8000)))
        yrp1 = self.r.yrp1
        refresh: dict[tuple[int, int], list[int]] = {}
        for j, p in enumerate(self.packets[1:12], 1):
            if p.id == MSG_UPDATE_DATA and len(p.payload) > 2 and p.payload[1] in (LOCATION_DECK, LOCATION_EXTRA):
                player, loc, queries = self.facts.refreshes.get(j) or parse_update_data(p.payload, p.offset)
                refresh.setdefault((player, loc), [q.code or 0 if q else 0 for q in queries])
        decks: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        for player in (0, 1):
            if yrp1 is not None and len(yrp1.decks) > player:
                decks.append(yrp1.decks[player])
            else:
                decks.append((tuple(refresh.get((player, LOCATION_DECK), ())),
                               tuple(refresh.get((player, LOCATION_EXTRA), ()))))
                self.note(f"no embedded YRP1 deck list for player {player}: the deck is taken from the first deck refresh")
        first = next((self.msg(j)["player"] for j, p in enumerate(self.packets) if p.id == MSG_NEW_TURN), 0)
        ruleset, why = _ruleset(self.r.duel_flags)
        self.field.ruleset = ruleset
        if why:
            self.note(why)
        hand = yrp1.start_hand if yrp1 else 5
        self.draw_count = yrp1.draw_count if yrp1 else 1
        # The room's start LP, start hand, draw count and deck check are duel options (CONF-01)
        unchecked = [self.note_deck_check(player, main, extra) for player, (main, extra) in enumerate(decks)]
        options = tuple(name for name, value, default in (
            ("starting_lp", self.lp[0], 8000), ("hand_size", hand, 5), ("draw_count", self.draw_count, 1),
            ("no_deck_check", any(unchecked), False)) if value != default)
        self.emit_setup(DuelStarted(first_player=first, method="rps", ruleset=ruleset,
                                    starting_lp=self.lp[0], hand_size=hand, draw_count=self.draw_count,
                                    options=options, players=tuple(self.r.players)))
        if self.lp[0] != self.lp[1]:
            self.note(f"the players start with different LP {self.lp}; our duel_started holds one value")
        for player, (main, extra) in enumerate(decks):
            self.emit_setup(DeckRegistered(player=player, main=tuple(main), extra=tuple(extra)))
            ids = [f"p{player}.m{i}" for i in range(len(main))]
            xids = [f"p{player}.x{i}" for i in range(len(extra))]
            for cid, code in zip(ids, main):
                self.field.code_of[cid] = code
            for cid, code in zip(xids, extra):
                self.field.code_of[cid] = code
            side = self.field.sides[player]
            side.deck = [Cell(cid, False) for cid in self.match_order(ids, refresh.get((player, LOCATION_DECK)), "deck", player)]
            side.extra = self.match_order(xids, refresh.get((player, LOCATION_EXTRA)), "extra deck", player)
            want = start.get("deck", (len(main), len(main)))[player]
            if want != len(main):
                self.note(f"MSG_START gives player {player} a {want}-card deck, the deck list {len(main)}")
        for player in (0, 1):
            self.new_epoch(player, setup=True)

    def note_deck_check(self, player: int, main: tuple[int, ...], extra: tuple[int, ...]) -> bool:
        """A deck EDOPro's deck check would refuse: the check was off, a duel option of the room
        (``no_deck_check`` in duel_started; not a card effect, so nothing is cited). True then.

        The room options "Don't check deck" and "Don't shuffle deck" live in EDOPro's host info.
        Only the second reaches the replay (as DUEL_PSEUDO_SHUFFLE in the duel flags); the first
        is known from the deck itself: the server refuses a deck that fails the check (size,
        copies, banlist) when the player says ready, unless the check is off."""
        problems = deck_problems(list(main), list(extra), [])
        if not problems:
            return False
        shown = "; ".join(f"{pr.rule} {pr.message}" for pr in problems[:3])
        flags = ("; the duel flags record the room's \"Don't shuffle deck\" option (DUEL_PSEUDO_SHUFFLE)"
                 if self.r.duel_flags & DUEL_PSEUDO_SHUFFLE else "")
        self.note(f"deck check off: player {player}'s deck fails the deck check ({shown}), so EDOPro's "
                  "\"Don't check deck\" room option was on, or its deck limits were loosened "
                  f"(a yrpX records neither): recorded as the duel option no_deck_check{flags}")
        return True

    def match_order(self, ids: list[str], codes: list[int] | None, what: str, player: int) -> list[str]:
        """Our ids in EDOPro's order: the first refresh's passcodes, else the list as stored."""
        if not codes:
            return list(ids)
        free: dict[int, list[str]] = {}
        for cid in ids:
            free.setdefault(self.field.code(cid), []).append(cid)
        out = []
        for code in codes:
            bucket = free.get(code)
            if not bucket:
                self.note(f"player {player}'s {what} refresh shows {code}, which the deck list does not hold")
                return list(ids)
            out.append(bucket.pop(0))
        if len(out) != len(ids):
            self.note(f"player {player}'s {what} refresh holds {len(out)} cards, the deck list {len(ids)}")
            return list(ids)
        return out

    def emit_setup(self, event: Event) -> None:
        self.events.append(event)
        self.sources.append(-1)

    def new_epoch(self, player: int, setup: bool = False) -> None:
        deck = self.field.sides[player].deck
        for n, cell in enumerate(deck):
            deck[n] = Cell(cell.id, False)
        event = DeckShuffled(player=player, order=())         # the order is known once the epoch is over
        self.epoch_cells[id(event)] = (event, list(reversed(deck)))      # top first
        if setup:
            self.emit_setup(event)
        else:
            self.emit(event)

    # -- the run -------------------------------------------------------------------------------

    def run(self) -> ImportResult:
        self.epoch_cells: dict[int, tuple[DeckShuffled, list[Cell]]] = {}
        self.facts.collect()
        self.setup()
        handlers = _HANDLERS
        packets = self.packets
        n = len(packets)
        consumed = self.consumed
        i = 1
        while i < n and self.win is None:
            if i not in consumed:
                p = packets[i]
                pid = p[0]
                if pid == MSG_UPDATE_CARD:                  # quiet, and no handler
                    i += 1
                    continue
                if pid == MSG_UPDATE_DATA:                  # quiet, no handler; a Deck pins its order
                    payload = p[1]
                    if len(payload) > 2 and payload[1] == LOCATION_DECK:
                        self.i = i
                        self.on_deck_refresh(p)
                    i += 1
                    continue
                handler = handlers.get(p.id)
                if handler is not None:
                    self.i = i
                    m = self.msg(i)
                    if m is not None:
                        try:
                            handler(self, m)
                        except (IndexError, KeyError, TypeError, AttributeError, CardDBError) as exc:
                            raise YrpxError(f"cannot import: {p.name} (packet {i}) does not fit the duel so far "
                                            f"({type(exc).__name__}: {exc}); the file is corrupt or of an "
                                            "unknown layout", p.offset, space="body") from None
                if p.id not in QUIET:
                    self.prev_sig = i
            i += 1
        self.i = min(i, n - 1)
        self.flush(final=True)
        if self.activation is not None:
            self.note("the stream ends inside an activation")
            act, self.activation = self.activation, None
            self.events.extend(e for e, _ in act.after)
            self.sources.extend(s for _, s in act.after)
        if self.win is None:
            self.note("the stream has no MSG_WIN: the duel was not finished")
        return self.finish()

    def finish(self) -> ImportResult:
        events = []
        for ev in self.events:
            epoch = self.epoch_cells.get(id(ev))
            if epoch is not None and epoch[0] is ev:
                ev = DeckShuffled(player=ev.player, order=tuple(c.id for c in epoch[1]))
            events.append(ev)
        codes = set(self.field.code_of.values())
        cards = CardDB(self.facts.facts_for(code) for code in sorted(codes) if code)
        base = self.r.seed * 1000
        times = [datetime.fromtimestamp((base + k) / 1000, timezone.utc).isoformat(timespec="milliseconds")
                 for k in range(len(events))]
        winner, reason = self.win if self.win is not None else (None, None)
        expected = Expected(lp=(self.lp[0], self.lp[1]), winner=winner, reason=reason, turns=self.turn)
        for key, count in self._note_counts.items():
            if count > 5:
                self.notes.append(f"({count - 5} more: {key})")
        return ImportResult(events, cards, times, tuple(self.r.players), expected, self.notes, self.r, self.sources)

    # -- pending summon parts ------------------------------------------------------------------

    def flush(self, final: bool = False) -> None:
        """Tributes or materials no summon took: they were moved for their own sake.

        Xyz materials attached to a monster still in the Extra Deck wait for its summon, however
        many other messages come first (``special_summon`` takes them); once it is on the field
        by another way they are attached to it. Only at the end of the stream (``final``) are
        those of a monster that never came out given up, with a note: our field has no
        materials under a card in the Extra Deck."""
        tributes, self.pending_tributes = self.pending_tributes, []
        for card, w in tributes:
            self.emit(CardMoved(card=card, to=w, reason="tributed", cause=self.cause), self.began((card,)))
        materials, self.pending_materials = self.pending_materials, []
        for card, reason, w, pos, at in materials:
            self.emit(CardMoved(card=card, to=w, reason="material", position=pos, cause=self.cause), at)
        for host, mats in list(self.pre_overlay.items()):
            side_host = self.field.monster_zone_of(host)
            if side_host is None and not final:
                continue                          # its summon is still to come
            del self.pre_overlay[host]
            if side_host is None:
                self.note(f"{len(mats)} card(s) attached to {host} while it was not on the field, and it never "
                          "came out: they stay where they were")
                continue
            for card in mats:
                self.pending_at.pop(card, None)
                self.emit(CardMoved(card=card, to=Loc(side_host[0], OVERLAY, side_host[1]),
                                    reason="attached", cause=self.cause))

    # -- turns and phases ----------------------------------------------------------------------

    def on_new_turn(self, m: dict) -> None:
        self.flush()
        self.end_attack(quiet=True)
        self.turn += 1
        self.turn_player = m["player"] & 1
        self.phase = self.step = None
        self.normal_drawn = False
        self.flipped.clear()
        self.turn_activations.clear()
        self.ns_grants = {0: [], 1: []}
        self.emit(TurnStarted(player=self.turn_player, turn=self.turn))

    def on_new_phase(self, m: dict) -> None:
        phase = _PHASES.get(m["phase"])
        if phase is None or phase == self.phase:
            return
        self.flush()
        if self.phase == "battle":
            self.end_attack(quiet=True)
        cite = None
        if phase == "draw":
            self.draw_mark[self.turn_player] = len(self.effect_log)
        elif self.phase is None and self.turn > 0:
            # EDOPro sends no marker for a phase an effect skips ("skip your next Draw Phase"):
            # cite the link that most likely registered the skip (module docstring).
            cite = skipped_draw_cite(self, self.turn_player)
        self.phase = phase
        self.step = "start" if phase == "battle" else None
        self.emit(PhaseEntered(player=self.turn_player, phase=phase, cite=cite))

    # -- draws and the deck --------------------------------------------------------------------

    def on_draw(self, m: dict) -> None:
        self.flush()
        player = m["player"] & 1
        side = self.field.sides[player]
        ids = []
        for code in m["codes"]:
            if not side.deck:
                self.note(f"player {player} draws from an empty deck")
                break
            cell = side.deck.pop()
            self.field.see(player, cell, code)
            side.hand.append(cell.id)
            ids.append(cell.id)
        count = len(ids)
        credit_gain(self, player, count)
        if self.turn == 0:
            cause = None
        elif (self.phase == "draw" and player == self.turn_player and not self.normal_drawn
              and self.solving is None and self.activation is None and count == self.draw_count):
            cause = None
            self.normal_drawn = True
        else:
            cause = self.effect_cause(player)
        if count:
            self.emit(CardsDrawn(player=player, count=count, cards=tuple(ids), cause=cause))

    def on_deck_refresh(self, p: Packet) -> None:
        """The engine lists a whole Deck (at the start and after every chain): every card not yet
        seen in this shuffle epoch is pinned where the engine has it, so the order the epoch's
        ``deck_shuffled`` records is the engine's, not just one that makes the draws right.
        Only a listing of the Deck as the mirror has it (same size, seen cards where they are)
        is used: a packet may already show a later step of the engine."""
        deck = self.field.sides[p.payload[0] & 1].deck
        if all(cell.seen for cell in deck):
            return                                # nothing left to pin in this epoch
        slots = self.r.slots.get(p.payload)
        if slots is None:
            slots = self.r.slots[p.payload] = card_slots(p)[3]
        player = p.payload[0] & 1
        codes = [s[0] if s is not None else 0 for s in slots]
        if len(codes) != len(deck) or any(c.seen and self.field.code(c.id) != code for c, code in zip(deck, codes)):
            return
        pool: dict[int, list[Cell]] = {}
        for cell in deck:
            if not cell.seen:
                pool.setdefault(self.field.code(cell.id), []).append(cell)
        need: dict[int, int] = {}
        for cell, code in zip(deck, codes):
            if not cell.seen:
                need[code] = need.get(code, 0) + 1
        if any(len(pool.get(code, ())) != n for code, n in need.items()):
            return                                # not the cards the mirror holds unseen
        for cell, code in zip(deck, codes):
            if not cell.seen:
                self.field.see(player, cell, code)

    def on_shuffle_deck(self, m: dict) -> None:
        self.flush()
        self.new_epoch(m["player"] & 1)

    def on_shuffle_hand(self, m: dict) -> None:
        player = m["player"] & 1
        hand = self.field.sides[player].hand
        pool = list(hand)
        out = []
        for code in m["codes"]:
            match = next((c for c in pool if self.field.code(c) == code), None)
            if match is None:
                self.note(f"player {player}'s hand shuffle shows {code}, not in their hand")
                return
            pool.remove(match)
            out.append(match)
        if pool:
            self.note(f"player {player}'s hand shuffle lists {len(out)} of {len(hand)} cards")
            return
        hand[:] = out

    def on_shuffle_extra(self, m: dict) -> None:
        player = m["player"] & 1
        extra = self.field.sides[player].extra
        codes = list(m["codes"])
        down = extra[:len(codes)]
        pool = list(down)
        out = []
        for code in codes:
            match = next((c for c in pool if self.field.code(c) == code), None)
            if match is None:
                self.note(f"player {player}'s Extra Deck shuffle shows {code}, not among its face-down cards")
                return
            pool.remove(match)
            out.append(match)
        extra[:len(codes)] = out

    def on_deck_top(self, m: dict) -> None:
        player = m["player"] & 1
        deck = self.field.sides[player].deck
        k = len(deck) - 1 - m["sequence"]
        if 0 <= k < len(deck) and m["code"]:
            self.field.see(player, deck[k], m["code"])

    def on_confirm(self, m: dict) -> None:
        ids = []
        for code, w in m["cards"]:
            card = self.field.lookup(w, code)
            if card is not None:
                ids.append(card)
        if ids:
            self.emit(CardRevealed(player=m["player"] & 1, cards=tuple(ids), cause=self.cause))

    def on_confirm_decktop(self, m: dict) -> None:
        player = m["player"] & 1
        deck = self.field.sides[player].deck
        ids = []
        for k, (code, _w) in enumerate(m["cards"]):
            pos = len(deck) - 1 - k
            if 0 <= pos < len(deck):
                if code:
                    self.field.see(player, deck[pos], code)
                ids.append(deck[pos].id)
        if ids:
            self.emit(CardRevealed(player=player, cards=tuple(ids), cause=self.cause))

    def on_unsupported(self, m: dict) -> None:
        self.note(f"{self.packets[self.i].name} is not mapped to our events")

    # -- moves ---------------------------------------------------------------------------------

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
        self.field.remove(old, card)
        if nl:
            self.field.place(new, card)
        leaves_field = ol in (LOCATION_MZONE, LOCATION_SZONE) and nl not in (LOCATION_MZONE, LOCATION_SZONE)
        if leaves_field or (ol == LOCATION_MZONE and nl == LOCATION_SZONE) or (ol == LOCATION_SZONE and nl == LOCATION_MZONE):
            self.depart(card, ol == LOCATION_MZONE)
        self.map_move(card, code, old, new, reason, host_before)

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
                self.auto_gy.update(mats)        # NIS-05: our fold sends them to the GY with it
            if self.attack and card in (self.attack[0], self.attack[1]) and not self.calculated:
                self.removed_by[card] = self.cause

    def dest(self, w: Where, card: str) -> tuple[Loc, str | None]:
        loc = self.field.our_loc(w, card)
        return loc, _position(w.position, loc.zone)

    def map_move(self, card: str, code: int, old: Where, new: Where, reason: int,
                 host_before: str | None) -> None:
        ol, nl = old.location, new.location
        player = new.controller & 1
        # a cost paid while activating: part of the activation (CHAIN-11)
        if self.activation is not None and reason & REASON_COST and self.cost_move(card, old, new, reason):
            return
        # Xyz materials our fold already sent to the GY with their Xyz monster (NIS-05)
        if card in self.auto_gy:
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
        if nl == 0:
            owner = old.controller & 1
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
        """The latest Monster Zone refresh of ``w`` before the current packet (parsed on demand)."""
        for j in range(self.i - 1, max(0, self.i - 400), -1):
            p = self.packets[j]
            if p.id == MSG_UPDATE_DATA and len(p.payload) > 2 and p.payload[0] == w.controller and p.payload[1] == LOCATION_MZONE:
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
            elif self.is_pendulum_summon(card, old, player):
                method = "pendulum"
            else:
                method = "inherent"
        elif self.fx(card).is_xyz and method != "xyz" and overlay:
            method = "xyz"
        materials = [m for m, *_ in pending] + overlay
        self.arrive(card)
        self.summoning.add(card)
        position = _position(new.position, MZONE) or ATTACK
        cite = special_summon_cite(self, card, old, new, method, cause, materials)
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

    def is_pendulum_summon(self, card: str, old: Where, player: int) -> bool:
        if old.location not in (LOCATION_HAND, LOCATION_EXTRA):
            return False
        szone = self.field.sides[player].szone
        scales = [szone[k] for k in (0, 4, 6, 7) if szone[k] is not None and self.fx(szone[k]).is_pendulum]
        if len(scales) < 2:
            return False
        return between_scales(self.fx(card).printed_level or 0, self.fx(scales[0]).lscale, self.fx(scales[1]).rscale)

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

    # -- chains --------------------------------------------------------------------------------

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
        self.activation = _Activation(self.i, card, player, link, effect_type, zone, field_zone, cite=cite,
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

    def on_become_target(self, m: dict) -> None:
        act = self.activation
        if act is None:
            return
        for w in m["locs"]:
            card = self.field.lookup(w)
            if card is not None and card not in act.targets:
                act.targets.append(card)

    def on_chained(self, m: dict) -> None:
        act, self.activation = self.activation, None
        if act is None:
            return
        self.flush()
        ev = Activated(player=act.player, card=act.card, effect_type=act.effect_type, zone=act.zone,
                       field_zone=act.field_zone, targets=tuple(act.targets), costs=tuple(act.costs),
                       link=act.link, cite=act.cite)
        self.events.append(ev)
        self.sources.append(act.begins)
        for event, source in act.after:
            self.events.append(event)
            self.sources.append(source)
        while len(self.chain) >= act.link:
            self.chain.pop()
        self.chain.append(_Link(act.card, act.player, act.effect_type, effect=act.effect))
        self.last_link_card = act.card
        self.last_link_by_player[act.player] = act.card
        self.turn_activations.append((act.card, tuple(act.targets)))

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
            self.emit(ChainLinkNegated(link=ct, by=link.negated_by))

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
                self.emit(ChainLinkResolved(link=ct))
                if len(self.events) == self.solving_from + 1:
                    self.quiet_links.append((link.card, link.player))
            self.last_resolved = (link.card, link.player)
            self.resolved_cards.add(link.card)
            del self.chain[ct - 1:]
        self.solving = None

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
                self.emit(ChainLinkResolved(link=ct))
        self.chain.clear()
        self.emit(ChainEnded())
        self.chain_end_at = len(self.events)
        self.resolved_cards.clear()
        self.after_chain = (len(self.events), list(self.quiet_links))
        self.quiet_links = []

    # -- positions and summon messages ---------------------------------------------------------

    def on_pos_change(self, m: dict) -> None:
        at, old, new = m["at"], m["old_pos"], m["new_pos"]
        card = self.field.lookup(at)
        if card is None or old == new:
            return
        if at.location == LOCATION_SZONE:
            if old & POS_FACEDOWN and new & POS_FACEUP:
                _j, nid, nm = self.following()
                if nid == MSG_CHAINING and nm and nm["at"].location == LOCATION_SZONE and nm["at"].sequence == at.sequence:
                    self.pending_flip = (card, self.i)
                    return                        # the activation turns it face-up
                self.flush()
                self.facedown_st.discard(card)
                self.emit(PositionChanged(player=at.controller & 1, card=card, position=FACEUP,
                                          cause=self.effect_cause(at.controller & 1)))
            else:                                 # SPELL-03: only an effect turns it face-down
                self.flush()
                self.facedown_st.add(card)
                self.set_turn[card] = self.turn
                self.emit(PositionChanged(player=at.controller & 1, card=card, position=SET,
                                          cause=self.effect_cause(at.controller & 1)))
            return
        if at.location != LOCATION_MZONE:
            return
        self.flush()
        position = _position(new, MZONE)
        if (self.attack and card == self.attack[1] and not self.calculated and old & POS_FACEDOWN
                and new & POS_FACEUP and self.solving is None):
            if self.step == "damage":             # POS-04: the rules flip it before damage calculation
                self.emit(PositionChanged(player=at.controller & 1, card=card, position=position))
            return                                # (else damage calculation flips it in our fold)
        if old & POS_FACEDOWN and new & POS_FACEUP:
            self.flipped.add(card)
        player = at.controller & 1
        # POS-07/08: a manual change is the player's answer to an idle command; an effect's
        # change outside a chain (a continuous effect, a summon procedure's "then") is not
        manual = (self.solving is None and self.activation is None and player == self.turn_player
                  and self.phase in ("main1", "main2") and self.answers_idle_command(self.i))
        self.emit(PositionChanged(player=player, card=card, position=position,
                                  cause=None if manual else self.effect_cause(player)))

    def answers_idle_command(self, i: int) -> bool:
        """Whether the message at ``i`` is what a player chose at an idle command (their free
        choice of a Main or Battle Phase action). The prompt is not recorded, but the server
        refreshes both Monster Zones, both Spell & Trap Zones and both hands just before it asks
        (``generic_duel.cpp`` BeforeParsing, MSG_SELECT_IDLECMD/BATTLECMD), so those six
        packets come right before the choice. The same six follow MSG_NEW_PHASE and MSG_CHAINED
        (and, after the two Decks, MSG_CHAIN_END) by themselves (AfterParsing): they count only
        beyond what the message before them refreshed on its own."""
        packets = self.packets
        j = i - 1
        while j >= 0 and packets[j].id in (MSG_UPDATE_DATA, MSG_UPDATE_CARD):
            j -= 1
        run = packets[j + 1:i]
        if len(run) < 6:
            return False
        for p, want in zip(run[-6:], _IDLE_REFRESH):
            if p.id != MSG_UPDATE_DATA or (p.payload[0], p.payload[1]) != want:
                return False
        own = _OWN_REFRESHES.get(packets[j].id, 0) if j >= 0 else 0
        return len(run) - own >= 6

    def on_summoned(self, m: dict) -> None:
        self.summoning.clear()

    def on_flip_summoning(self, m: dict) -> None:
        self.flush()
        at = m["at"]
        card = self.field.lookup(at, m["code"])
        if card is None:
            self.note(f"no card at {at} to Flip Summon")
            return
        self.flipped.add(card)
        self.summoning.add(card)
        self.emit(FlipSummoned(player=at.controller & 1, card=card,
                               cite=Cite(self.cause, "Flip Summoned during the resolution of its effect")
                               if self.cause else None))

    # -- battle --------------------------------------------------------------------------------

    def end_attack(self, cause: str | None = None, disabled: bool = False, quiet: bool = False) -> None:
        """The attack in progress ends without damage calculation (negated, or a monster left).

        ``quiet`` when the phase or turn ends: leaving the Battle Phase closes it in our fold."""
        if self.attack is None:
            return
        attacker, target = self.attack
        if not self.calculated and not quiet:
            gone = [c for c in (attacker, target) if c is not None and c in self.removed_by]
            if disabled or gone:
                why = cause or (self.removed_by.get(gone[0]) if gone else None) or self.last_link_card
                self.emit(AttackCancelled(player=self.turn_player, cause=why))
        self.attack = None
        self.calculated = False
        self.removed_by.clear()

    def on_attack(self, m: dict) -> None:
        self.flush()
        attacker = self.field.lookup(m["a"])
        target = self.field.lookup(m["b"]) if m["b"].location else None
        if attacker is None:
            self.note("an attack by no card")
            return
        if self.attack is not None and not self.calculated and self.attack[0] == attacker and attacker not in self.removed_by:
            self.attack = (attacker, target)
            defenders = self.defenders(1 - (m["a"].controller & 1))
            # BATTLE-06: a replay follows a change of the opponent's monsters; with none, an
            # effect moved the attack ("change the attack target to this card")
            cite = (Cite(self.effect_cause(self.turn_player), "changes the attack target")
                    if defenders == self.attack_defenders else None)
            self.attack_defenders = defenders
            self.emit(AttackRetargeted(player=self.turn_player, target=target, cite=cite))
            return
        self.end_attack()
        if self.step != "battle":
            self.emit(StepEntered(player=self.turn_player, step="battle"))
            self.step = "battle"
        player = m["a"].controller & 1
        cite = None
        if self.attacked.get(attacker) == self.turn:
            cite = Cite(granted_to(self, attacker), "this monster can attack more than once")
        elif target is None and any(c is not None for c in self.field.sides[1 - player].mzone):
            cite = Cite(granted_to(self, attacker), "this monster can attack directly")
        self.attacked[attacker] = self.turn
        self.attack = (attacker, target)
        self.attack_defenders = self.defenders(1 - player)
        self.calculated = False
        self.battle_destroyed = set()
        self.emit(AttackDeclared(player=player, attacker=attacker, target=target, cite=cite))

    def defenders(self, player: int) -> frozenset[str]:
        """The monsters ``player`` controls now (the mirror's Monster Zones, Extra ones included)."""
        return frozenset(c for c in self.field.sides[player].mzone if c is not None)

    def on_attack_disabled(self, m: dict) -> None:
        self.flush()
        self.end_attack(disabled=True)

    def on_damage_step_start(self, m: dict) -> None:
        self.flush()
        if self.attack is None:
            self.note("a damage step with no attack")
            return
        if self.step != "battle":
            self.emit(StepEntered(player=self.turn_player, step="battle"))
        self.step = "damage"
        self.emit(StepEntered(player=self.turn_player, step="damage"))

    def on_battle(self, m: dict) -> None:
        self.flush()
        attacker = self.field.lookup(m["attacker"])
        target = self.field.lookup(m["target"]) if m["target"].location else None
        if attacker is None or self.attack is None:
            self.note("damage calculation with no attack in progress")
            return
        if self.step != "damage":
            self.emit(StepEntered(player=self.turn_player, step="damage"))
            self.step = "damage"
        atk, t_atk, t_def = m["attacker_atk"], m["target_atk"], m["target_def"]
        self.sync_stats(attacker, atk, m["attacker_def"])
        if target is not None:
            self.sync_stats(target, t_atk, t_def)
        a_loc, t_loc = m["attacker"], m["target"]
        # what the basic rules give (DMG-01..09), as our fold will compute it
        me = a_loc.controller & 1
        t_attack = target is not None and bool(t_loc.position & POS_ATTACK)
        _rule, lost, beaten, to_me, to_other = battle_outcome(
            max(atk, 0) if target is None else atk, None if target is None else (t_attack, t_atk if t_attack else t_def))
        rules_damage = [0, 0]
        rules_damage[me] += to_me
        rules_damage[1 - me if target is None else t_loc.controller & 1] += to_other
        rules_destroyed = ({attacker, target} if lost and beaten else {attacker} if lost
                           else {target} if beaten else set())
        # what happened: battle damage right after, destruction by battle before the step ends
        damage = [0, 0]
        j = self.i
        self.battle_damage_at = set()
        while True:
            j = self.next_significant(j)
            if j is None or self.packets[j].id != MSG_DAMAGE:
                break
            dm = self.msg(j)
            damage[dm["player"] & 1] += dm["amount"]
            self.battle_damage_at.add(j)
        destroyed: list[str] = []
        detach_host = chain_card = None
        locs = {(a_loc.controller, a_loc.sequence): attacker}
        if target is not None:
            locs[(t_loc.controller, t_loc.sequence)] = target
        for j in range(self.i + 1, len(self.packets)):
            pid = self.packets[j].id
            if pid in (MSG_DAMAGE_STEP_END, MSG_ATTACK, MSG_NEW_PHASE, MSG_NEW_TURN, MSG_WIN):
                break
            if pid == MSG_MOVE:
                mm = self.msg(j)
                o = mm["old"]
                if o.location == LOCATION_MZONE and mm["reason"] & REASON_BATTLE and mm["reason"] & REASON_DESTROY:
                    card = locs.get((o.controller, o.sequence))
                    if card is not None and card not in destroyed:
                        destroyed.append(card)
                elif o.location & LOCATION_OVERLAY and detach_host is None:
                    detach_host = self.field.lookup(Where(o.controller, o.location & 0x7F, o.sequence, 0))
            elif pid == MSG_CHAINING and chain_card is None:
                chain_card = self.field.lookup(self.msg(j)["at"])
        self.battle_destroyed = set(destroyed)
        hint = None
        if self.hint_card is not None and self.hint_card[0] > self.attack_index_floor():
            hint = self.field.card_with_code(self.hint_card[1])
        self.hint_card = None
        pierce = (target is not None and not t_attack and atk > t_def
                  and damage[t_loc.controller & 1] == atk - t_def)
        cite = battle_cite(self, attacker, (destroyed, damage), (rules_destroyed, rules_damage), pierce,
                           hint, detach_host, chain_card)
        self.calculated = True
        self.emit(DamageCalculated(player=self.turn_player, destroyed=tuple(destroyed), damage=tuple(damage),
                                   cite=cite))

    def attack_index_floor(self) -> int:
        """Packets after the last DAMAGE_STEP_START are part of this damage calculation."""
        j = self.i
        while j > 0 and self.packets[j].id != MSG_DAMAGE_STEP_START:
            j -= 1
        return j

    def sync_stats(self, card: str, atk: int, defense: int) -> None:
        """Tell our fold the ATK/DEF EDOPro used, where effects changed them (GEN-01 outcomes)."""
        facts = self.fx(card)
        b_atk, b_def, b_lvl = self.believed.get(card) or (facts.base_atk, facts.base_def, facts.printed_level)
        new_atk = atk if atk != b_atk else None
        new_def = defense if facts.base_def is not None and defense != b_def else None
        if new_atk is None and new_def is None:
            return
        self.believed[card] = (atk, defense if facts.base_def is not None else None, b_lvl)
        self.emit(StatsChanged(player=self.owner_of(card), card=card, atk=new_atk, defense=new_def))

    def owner_of(self, card: str) -> int:
        return int(card[1]) if card[:1] == "p" and card[1:2] in ("0", "1") else 0

    def on_damage_step_end(self, m: dict) -> None:
        self.flush()
        if self.step == "damage":
            self.emit(StepEntered(player=self.turn_player, step="battle"))
            self.step = "battle"
        self.attack = None
        self.calculated = False
        self.removed_by.clear()

    # -- life points ---------------------------------------------------------------------------

    def change_lp(self, player: int, amount: int, reason: str) -> None:
        lp = self.lp
        if reason == "gain":
            lp[player] += amount
        elif reason == "set":
            lp[player] = amount
        else:
            lp[player] = max(0, lp[player] - amount)
        if amount or reason == "set":
            self.emit(LifePointsChanged(player=player, amount=amount, reason=reason, lp=lp[player],
                                        cause=None if reason == "battle_damage" else self.cause))
        if lp[player] == 0:
            self.lost = True

    def on_damage(self, m: dict) -> None:
        self.flush()
        battle = self.i in self.battle_damage_at
        self.change_lp(m["player"] & 1, m["amount"], "battle_damage" if battle else "effect_damage")

    def on_recover(self, m: dict) -> None:
        self.flush()
        self.change_lp(m["player"] & 1, m["amount"], "gain")

    def on_pay_lpcost(self, m: dict) -> None:
        player, amount = m["player"] & 1, m["amount"]
        if self.activation is not None and player == self.activation.player and amount:
            self.activation.costs.append(Cost(lp=amount))
            self.lp[player] = max(0, self.lp[player] - amount)
            if self.lp[player] == 0:
                self.lost = True
            return
        self.flush()
        self.change_lp(player, amount, "cost")

    def on_lp_update(self, m: dict) -> None:
        self.flush()
        self.change_lp(m["player"] & 1, m["amount"], "set")

    # -- counters, coins, dice, hints, the end -------------------------------------------------

    def on_counter(self, m: dict) -> None:
        self.flush()
        at = m["at"]
        card = self.field.lookup(Where(at.controller, at.location, at.sequence, 0))
        if card is None:
            self.note(f"no card at {at} for a counter")
            return
        kind = m["counter"]
        have = self.counters.setdefault(card, {})
        now = have.get(kind, 0) + (m["count"] if self.packets[self.i].id == MSG_ADD_COUNTER else -m["count"])
        have[kind] = max(0, now)
        self.emit(CountersChanged(player=at.controller & 1, card=card, counter=f"{kind:#x}", count=have[kind],
                                  cause=self.cause))

    def on_coin(self, m: dict) -> None:
        self.flush()
        self.emit(CoinTossed(player=m["player"] & 1, results=tuple(bool(r) for r in m["results"]), cause=self.cause))

    def on_dice(self, m: dict) -> None:
        self.flush()
        self.emit(DieRolled(player=m["player"] & 1, results=tuple(m["results"]), cause=self.cause))

    def on_hint(self, m: dict) -> None:
        if m["type"] == HINT_CARD:
            self.hint_card = (self.i, m["data"])
        elif m["type"] == HINT_OPSELECTED:
            effect_named(self, m["data"])

    def on_player_hint(self, m: dict) -> None:
        player_hint(self, m)

    def on_win(self, m: dict) -> None:
        self.flush()
        if self.activation is not None:
            act, self.activation = self.activation, None
            self.events.extend(e for e, _ in act.after)
            self.sources.extend(s for _, s in act.after)
        player, code = m["player"], m["reason"]
        winner = player if player in (0, 1) else None
        reason = WIN_REASONS.get(code, "effect") if winner is not None else "draw"
        if reason == "deck_out" and winner is not None:
            loser = 1 - winner
            if not self.field.sides[loser].deck and not self.decked_out(loser):
                self.emit(CardsDrawn(player=loser, count=1, cause=self.effect_cause(loser)))
        self.win = (winner, reason)
        self.lost = False
        self.emit(DuelEnded(winner=winner, reason=reason))

    def decked_out(self, player: int) -> bool:
        for ev in reversed(self.events):
            if isinstance(ev, CardsDrawn) and ev.player == player:
                return ev.count > len(ev.cards)
        return False


_IDLE_REFRESH = ((0, LOCATION_MZONE), (1, LOCATION_MZONE), (0, LOCATION_SZONE), (1, LOCATION_SZONE),
                 (0, LOCATION_HAND), (1, LOCATION_HAND))
#: How many whole-location refreshes the server writes after a message on its own (AfterParsing).
_OWN_REFRESHES = {MSG_NEW_PHASE: 6, MSG_CHAINED: 6, MSG_CHAIN_END: 8, MSG_SUMMONED: 4, MSG_SPSUMMONED: 4,
                  MSG_FLIPSUMMONED: 4, MSG_CHAIN_SOLVED: 4, MSG_DAMAGE_STEP_START: 2, MSG_DAMAGE_STEP_END: 2,
                  MSG_DRAW: 1, MSG_SHUFFLE_HAND: 1, MSG_SHUFFLE_EXTRA: 1, MSG_SWAP_GRAVE_DECK: 1}


_HANDLERS = {
    MSG_NEW_TURN: Importer.on_new_turn, MSG_NEW_PHASE: Importer.on_new_phase,
    MSG_DRAW: Importer.on_draw, MSG_SHUFFLE_DECK: Importer.on_shuffle_deck,
    MSG_SHUFFLE_HAND: Importer.on_shuffle_hand, MSG_SHUFFLE_EXTRA: Importer.on_shuffle_extra,
    MSG_DECK_TOP: Importer.on_deck_top, MSG_CONFIRM_CARDS: Importer.on_confirm,
    MSG_CONFIRM_DECKTOP: Importer.on_confirm_decktop,
    MSG_SWAP_GRAVE_DECK: Importer.on_unsupported, MSG_REVERSE_DECK: Importer.on_unsupported,
    MSG_SHUFFLE_SET_CARD: Importer.on_unsupported, MSG_SWAP: Importer.on_unsupported,
    MSG_CONFIRM_EXTRATOP: Importer.on_unsupported,
    MSG_MOVE: Importer.on_move, MSG_POS_CHANGE: Importer.on_pos_change,
    MSG_SUMMONED: Importer.on_summoned, MSG_SPSUMMONED: Importer.on_summoned,
    MSG_FLIPSUMMONING: Importer.on_flip_summoning,
    MSG_CHAINING: Importer.on_chaining, MSG_BECOME_TARGET: Importer.on_become_target,
    MSG_CHAINED: Importer.on_chained, MSG_CHAIN_SOLVING: Importer.on_chain_solving,
    MSG_CHAIN_SOLVED: Importer.on_chain_solved, MSG_CHAIN_NEGATED: Importer.on_chain_negated,
    MSG_CHAIN_END: Importer.on_chain_end,
    MSG_ATTACK: Importer.on_attack, MSG_ATTACK_DISABLED: Importer.on_attack_disabled,
    MSG_DAMAGE_STEP_START: Importer.on_damage_step_start, MSG_BATTLE: Importer.on_battle,
    MSG_DAMAGE_STEP_END: Importer.on_damage_step_end,
    MSG_DAMAGE: Importer.on_damage, MSG_RECOVER: Importer.on_recover,
    MSG_PAY_LPCOST: Importer.on_pay_lpcost, MSG_LPUPDATE: Importer.on_lp_update,
    MSG_ADD_COUNTER: Importer.on_counter, MSG_REMOVE_COUNTER: Importer.on_counter,
    MSG_TOSS_COIN: Importer.on_coin, MSG_TOSS_DICE: Importer.on_dice,
    MSG_HINT: Importer.on_hint, MSG_PLAYER_HINT: Importer.on_player_hint, MSG_WIN: Importer.on_win,
}
