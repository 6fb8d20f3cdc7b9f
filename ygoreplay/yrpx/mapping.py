"""EDOPro's message stream mapped to our events, with the mirror of the engine's field.

Here is the ``Importer``'s core (set-up, the run over the stream, what each event is built on);
each message's handler is a ``@reads`` method in the module of its domain: ``turns`` (turns,
the Deck, LP, the end), ``moves`` (MSG_MOVE), ``summons``, ``chains``, ``positions``, ``battle``.
Each domain's state is a dataclass its module owns (``TurnState``, ``MoveState``, ``SummonState``,
``ChainState``, ``BattleState``), held as ``self.turns``, ``self.moves``, ``self.summons``,
``self.chains`` and ``self.battle``: a handler reading another domain's state names it
(``self.chains.solving``), so what couples the domains is in plain sight.

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
* **A chain resolving.** A link's ``chain_link_resolved`` is written where the engine starts
  resolving it (MSG_CHAIN_SOLVING), so what it did follows it, up to the next link's: the order
  the rules read (NIS-06's segments) and the log shows. A link whose activation was negated, by a
  later link or as it began to resolve (MSG_CHAIN_NEGATED of that link before its
  MSG_CHAIN_SOLVED, looked ahead for), is ``chain_link_negated`` there, and nothing of it follows
  (TERM-14). What a resolved link leaves for later cites (``solved_at``, ``last_resolved``) is
  kept at its MSG_CHAIN_SOLVED.
* **Negation and simultaneous summons.** MSG_CHAIN_NEGATED, sent while a link resolves, makes
  that link's ``activated`` name the link whose activation it negates (``negates``); an effect
  negated (MSG_CHAIN_DISABLED) is no activation negated, and that link still resolves. The
  monsters one MSG_SPSUMMONED closes were summoned at once: each after the first is
  ``together`` when its ``special_summoned`` follows the one before (PEND-03/04).
* **What the stream does not say, so is not written.** *Priority passes* (PRIO-01/03,
  CHAIN-04): the prompts (MSG_SELECT_CHAIN, MSG_SELECT_IDLECMD) are not recorded. The server's
  field refreshes before each prompt are (four before a chain prompt, six before an idle one),
  but they name neither the player asked nor the question: the core asks with MSG_SELECT_CHAIN
  both for priority (``processor.cpp`` QuickEffect: the other player first after each link,
  then its own) and whether to activate an optional trigger. In the 100 shared duels, 216 links
  added by the player of the link before come after a single prompt, where priority alone needs
  two (the opponent's pass, then theirs), and 91 of 2,755 chains resolve after three prompts,
  not two. A record that states one pass must state them all (the fold then checks every
  activation's priority), so none is written. *Simultaneous triggers* (``simultaneous``, CHAIN-08, NIS-02): a link chained with no
  prompt before it (45 in the shared duels) was added without asking anyone, a trigger of the
  same event or a mandatory Quick Effect; the stream does not say which, so it stays a ``quick``
  link, not marked simultaneous.
* **Cites (GEN-01).** ``cites``: the card the stream shows behind what the basic rules forbid.
* **Deck check.** A deck that breaks DECK-01..06 is imported as it is (the audit reports it);
  an import note says EDOPro's deck check was off. That is not a card effect, so nothing is
  cited; the room option itself is not in the file, only "Don't shuffle deck" is (the duel
  flag DUEL_PSEUDO_SHUFFLE), and the note says so when it is set.
"""
from __future__ import annotations

import os
import weakref
from typing import Callable

from ..cards import CardDB, CardDBError, CardFacts
from ..chain import from_ms
from ..decks import deck_problems
from ..i18n import said, say
from ..events import OVERLAY, CardMoved, DeckRegistered, DeckShuffled, DuelStarted, Event, Loc
from ..importing import Expected, ImportResult
from ..rules.base import has_open_game_state
from ..rules.fold import AFTER_LOSS
from ..text import name_key, printable
from .authority import CitingFold, effects_of
from .battle import BattleHandling, BattleState
from .chains import ChainHandling, ChainState
from .constants import LOCATION_DECK, LOCATION_EXTRA, MSG_NEW_TURN, MSG_START, MSG_UPDATE_CARD, MSG_UPDATE_DATA
from .container import (DUEL_0_ATK_DESTROYED, DUEL_1_FACEUP_FIELD, DUEL_1ST_TURN_DRAW, DUEL_CAN_REPOS_IF_NON_SUMPLAYER,
    DUEL_EMZONE, DUEL_FSX_MMZONE, DUEL_PSEUDO_SHUFFLE, DUEL_RELAY, DUEL_SEPARATE_PZONE, REPLAY_HAND_TEST, REPLAY_SINGLE_MODE, REPLAY_TAG, YRP1, YRPX, StreamIndex, YrpxError, YrpxReplay, read_yrpx)
from .facts import QueriedFacts
from .messages import QUIET, handler_table, parse_message, parse_update_data
from .mirror import Mirror, Cell
from .moves import MoveHandling, MoveState
from .positions import PositionHandling
from .summons import SummonHandling, SummonState
from .turns import TurnHandling, TurnState


def import_yrpx(path_or_bytes: str | os.PathLike[str] | bytes | bytearray | YrpxReplay, *,
                names: CardDB | None = None, check: bool = False, name: str | None = None) -> ImportResult:
    """Import a replay: read it, check it is a 1v1 duel with a message stream, map it to events.

    ``names`` optionally supplies card names (e.g. a cards.cdb); the facts themselves come from
    the card queries inside the replay. Raises ``YrpxError`` for a file that cannot be imported,
    saying why (puzzle, hand test, tag duel, legacy replay, corrupt data and where).

    The events are folded once to cite what the engine allowed (``authority``); with ``check``
    that fold also compares the board with the engine's state packets, and ``fold_and_compare``
    of the result takes its figures instead of folding again.

    ``name``: the file bytes given were read from (``read_file``), named in errors as a path is.
    """
    path = name if isinstance(path_or_bytes, (bytes, bytearray, memoryview, YrpxReplay)) else str(path_or_bytes)
    try:
        replay = path_or_bytes if isinstance(path_or_bytes, YrpxReplay) else read_yrpx(path_or_bytes)
        _check_importable(replay)
        result = Importer(replay, names).run()
        fold = CitingFold(result, effects_of(names))
        if check:
            from .engine_check import compare
            figures = compare(result, fold.history, fold.append)
            replay.checked = (list(result.events), list(result.sources), result.cards, figures)
        else:
            for k in range(len(result.events)):
                fold.append(k)
    except YrpxError as err:
        if path and not err.path:
            raise YrpxError(err.detail, err.offset, path, err.space) from None
        raise
    result.path = path
    return result


def _times(start: int, n: int) -> list[str]:
    """``n`` times a millisecond apart from ``start`` (ms since the epoch), in ISO form to the
    millisecond, UTC: each second's date and time formatted once (``chain.from_ms`` of each)."""
    out: list[str] = []
    second, head, tail = -1, "", ""
    for ms in range(start, start + n):
        whole, part = divmod(ms, 1000)
        if whole != second:
            second = whole
            text = from_ms(whole * 1000)                  # ...T12:58:40.000+00:00
            head, tail = text[:-10], text[-6:]
        out.append(f"{head}.{part:03d}{tail}")
    return out


def _check_importable(replay: YrpxReplay) -> None:
    if replay.id == YRP1:
        raise YrpxError(say("cannot import: a legacy .yrp replay holds only the players' responses; replaying it "
                            "needs the EDOPro engine and its card scripts (open it in EDOPro and save it as .yrpX)"))
    if replay.id != YRPX:
        raise YrpxError(say("cannot import: a {kind} replay has no message stream", kind=replay.kind))
    if replay.flags & REPLAY_HAND_TEST:
        raise YrpxError(say("cannot import: hand test replay (a solo test of a deck, not a duel)"))
    if replay.flags & REPLAY_SINGLE_MODE:
        raise YrpxError(say("cannot import: puzzle replay (single mode: a scripted position, not a duel)"))
    if replay.flags & REPLAY_TAG or any(len(team) != 1 for team in replay.names) or replay.duel_flags & DUEL_RELAY:
        sizes = "v".join(str(len(team)) for team in replay.names)
        if replay.duel_flags & DUEL_RELAY:
            raise YrpxError(say("cannot import: relay duel ({sizes}); only single 1v1 duels are supported", sizes=sizes))
        raise YrpxError(say("cannot import: tag duel ({sizes}); only single 1v1 duels are supported", sizes=sizes))
    if not replay.packets or replay.packets[0].id != MSG_START:
        first = replay.packets[0].offset if replay.packets else replay.body_size
        raise YrpxError(say("cannot import: the message stream does not begin with MSG_START"), first, space="body")


def _ruleset(duel_flags: int) -> tuple[str, str | None]:
    """Our rule set for EDOPro's duel flags, and a note when the match is not exact."""
    if duel_flags & DUEL_FSX_MMZONE and duel_flags & DUEL_EMZONE:
        return "mr2020", None
    if duel_flags & DUEL_EMZONE:
        return "nmr2017", None
    if duel_flags & DUEL_SEPARATE_PZONE:
        return "mr3", None
    return "mr3", f"duel flags {duel_flags:#x} name an older Master Rule; checked under mr3"


#: EDOPro duel flags that keep an older ruling in place of a basic rule we check, and the duel
#: option (``DUEL_OPTIONS``, CONF-01) that says so in ``duel_started``. EDOPro's Goat format
#: (DUEL_MODE_GOAT) and Master Rules 1 and 2 set some of them. The other flags of those modes
#: change nothing our rules check, so they are not recorded:
#: DUEL_6_STEP_BATLLE_STEP and DUEL_SINGLE_CHAIN_IN_DAMAGE_SUBSTEP (when triggers open a chain in
#: the Damage Step: the steps are the same, BATTLE-01, and what may be activated there is
#: BATTLE-09/10, CONF-18); DUEL_STORE_ATTACK_REPLAYS (when a replay is offered: BATTLE-06 checks a
#: retarget, not the moment); DUEL_OCG_OBSOLETE_IGNITION, DUEL_TCG_FAST_EFFECT_IGNITION,
#: DUEL_USE_TRAPS_IN_NEW_CHAIN (who may activate first: priority, CONF-14, is judged only where
#: passes are recorded, and an import records none; an
#: Ignition effect is still Chain Link 1, EFF-02); DUEL_TRIGGER_WHEN_PRIVATE_KNOWLEDGE,
#: DUEL_RETURN_TO_DECK_TRIGGERS, DUEL_TCG_SEGOC_NONPUBLIC, DUEL_TCG_SEGOC_FIRSTTRIGGER (which
#: triggers may activate and in what order: card text, CHAIN-08 keeps one chain);
#: DUEL_SPSUMMON_ONCE_OLD_NEGATE, DUEL_CANNOT_SUMMON_OATH_OLD (how "once per turn" and "cannot
#: Special Summon" card effects count: card text); DUEL_EQUIP_NOT_SENT_IF_MISSING_TARGET (a
#: monster to be equipped to a monster gone stays in its Monster Zone: no equip, nothing to check).
FLAG_OPTIONS = (
    (DUEL_1ST_TURN_DRAW, "first_turn_draw"),                         # SETUP-04: the first player draws
    (DUEL_CAN_REPOS_IF_NON_SUMPLAYER, "reposition_opponents_summons"),   # POS-08, SUM-11
    (DUEL_0_ATK_DESTROYED, "zero_atk_destroyed"),                    # DMG-03: both destroyed
    (DUEL_1_FACEUP_FIELD, "one_field_spell"),                        # SPELL-11: one on the field, destroyed
)


def _flag_options(duel_flags: int) -> tuple[str, ...]:
    """The duel options EDOPro's duel flags set (``FLAG_OPTIONS``)."""
    return tuple(option for flag, option in FLAG_OPTIONS if duel_flags & flag)


class Importer(TurnHandling, MoveHandling, SummonHandling, ChainHandling, PositionHandling, BattleHandling):
    """One replay's message stream mapped to our events (module docstring); the handlers are
    its bases', one per domain."""

    def __init__(self, replay: YrpxReplay, names: CardDB | None) -> None:
        # the stream and what is written from it (the core every handler shares)
        self.r = replay
        self.packets = replay.packets
        self.msgs: list[dict | None] = [None] * len(self.packets)   # each message parsed once (``msg``)
        self.consumed: set[int] = set()          # packets a handler already took with an earlier one
        self.i = 0                               # the packet being handled
        self.prev_sig = 0                        # the last packet handled that is not a refresh or hint
        self.events: list[Event] = []
        self.sources: list[int] = []             # the first packet behind each event
        self.notes: list[str] = []
        self._note_counts: dict[str, int] = {}   # notes by kind: the sixth and later are only counted
        note = _note_of(self)
        self.field = Mirror(note)                # the engine's field as the stream builds it
        self.facts = QueriedFacts(replay.packets, names, note)
        replay.card_queries = self.facts.card_queries   # read once, for the engine check too
        # each domain's state, owned by its module; a handler reads another's explicitly
        self.turns = TurnState()
        self.chains = ChainState()
        self.summons = SummonState()
        self.battle = BattleState()
        self.moves = MoveState()

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
        if self.turns.lost and event.kind not in AFTER_LOSS:
            self.note(f"{event.kind} after a player reached 0 LP left out: the duel ends at once (WIN-01)")
            return
        at = source if source is not None else self.i if self.summons.began_at is None else self.summons.began_at
        if self.chains.activation is not None:
            self.chains.activation.after.append((event, at))
            return
        self.events.append(event)
        self.sources.append(at)

    def began(self, cards) -> int | None:
        """The packet of the first pending move among ``cards`` (and forget them), or None."""
        at = [self.summons.pending_at.pop(c) for c in cards if c in self.summons.pending_at]
        return min(at) if at else None

    def open_game_state(self, player: int) -> bool:
        """PRIO-06 as the stream stands: a link resolving, or one being activated, is a chain open."""
        return has_open_game_state(player, self.turns.turn_player, self.turns.phase,
                                   bool(self.chains.chain) or self.chains.solving is not None or self.chains.activation is not None)

    @property
    def cause(self) -> str | None:
        """The card whose effect is resolving now, if any."""
        if self.chains.solving is not None and 0 < self.chains.solving <= len(self.chains.chain):
            return self.chains.chain[self.chains.solving - 1].card
        return None

    def effect_cause(self, player: int | None = None) -> str:
        """The resolving card, else the last card a chain link named (this player's first)."""
        return (self.cause or (self.chains.last_link_by_player.get(player) if player is not None else None)
                or self.chains.last_link_card or "effect")


    def fx(self, card_id: str) -> CardFacts:
        return self.facts.facts_for(self.field.code(card_id))

    # -- set-up --------------------------------------------------------------------------------

    def setup(self) -> None:
        start = self.msg(0) or {}
        self.turns.lp = list(start.get("lp", (8000, 8000)))
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
        self.turns.draw_count = yrp1.draw_count if yrp1 else 1
        # The room's start LP, start hand, draw count and deck check are duel options (CONF-01),
        # and so are the older rulings its duel flags keep
        unchecked = [self.note_deck_check(player, main, extra) for player, (main, extra) in enumerate(decks)]
        options = tuple(name for name, value, default in (
            ("starting_lp", self.turns.lp[0], 8000), ("hand_size", hand, 5), ("draw_count", self.turns.draw_count, 1),
            ("no_deck_check", any(unchecked), False)) if value != default) + _flag_options(self.r.duel_flags)
        self.turns.options = options
        self.emit_setup(DuelStarted(first_player=first, method="rps", ruleset=ruleset,
                                    starting_lp=self.turns.lp[0], hand_size=hand, draw_count=self.turns.draw_count,
                                    options=options, players=self.seat_names()))
        if self.turns.lp[0] != self.turns.lp[1]:
            self.note(f"the players start with different LP {self.turns.lp}; our duel_started holds one value")
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

    def seat_names(self) -> tuple[str, ...]:
        """The players' names as the replay holds them, but a second player named as the first (an
        EDOPro duel a player hosted against himself: both ``Player``) told apart by ``#2``: a duel's
        two seats read as one name are refused (LOG-05), and the replay would be lost to the import."""
        names = list(self.r.players)
        if len(names) == 2 and (key := name_key(names[0])) and key == name_key(names[1]):
            self.note(f"both players are named {printable(names[0])!r}: the second is recorded as "
                      f"{printable(names[1])!r} #2 (LOG-05: a duel's seats are told apart by name)")
            names[1] = f"{names[1]} #2"
        return tuple(names)

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
        shown = "; ".join(f"{pr.rule} {said(pr.message)}" for pr in problems[:3])
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
        self.turns.epoch_cells[id(event)] = (event, list(reversed(deck)))      # top first
        if setup:
            self.emit_setup(event)
        else:
            self.emit(event)

    # -- the run -------------------------------------------------------------------------------

    def run(self) -> ImportResult:
        index = StreamIndex(self.packets)
        self.facts.collect(index)
        self.setup()
        handlers = _HANDLERS
        packets = self.packets
        n = len(packets)
        consumed = self.consumed
        turns = self.turns
        # Every packet but the state packets, which have no handler (quiet), and the Deck
        # listings among them (a Deck pins its order), in order: four in five are left out.
        at = sorted(index.besides(_STATE) + index.where(_DATA, LOCATION_DECK))
        i = n
        for j in at:
            if j == 0 or j in consumed:
                continue
            p = packets[j]
            pid = p[0]
            if pid == MSG_UPDATE_DATA:
                if len(p[1]) > 2:
                    self.i = j
                    self.on_deck_refresh(p)
                continue
            handler = handlers.get(pid)
            if handler is not None:
                self.i = j
                m = self.msg(j)
                if m is not None:
                    try:
                        handler(self, m)
                    except (IndexError, KeyError, TypeError, AttributeError, CardDBError) as exc:
                        raise YrpxError(say("cannot import: {name} (packet {j}) does not fit the duel so far "
                                            "({kind}: {exc}); the file is corrupt or of an unknown layout",
                                            name=p.name, j=j, kind=type(exc).__name__,
                                            exc=exc), p.offset, space="body") from None
            if pid not in QUIET:
                self.prev_sig = j
            if turns.win is not None:
                i = j + 1                                   # the duel is over: the rest is not read
                break
        self.i = min(i, n - 1)
        self.flush(final=True)
        if self.chains.activation is not None:
            self.note("the stream ends inside an activation")
            act, self.chains.activation = self.chains.activation, None
            self.events.extend(e for e, _ in act.after)
            self.sources.extend(s for _, s in act.after)
        if self.turns.win is None:
            self.note("the stream has no MSG_WIN: the duel was not finished")
        return self.finish()

    def finish(self) -> ImportResult:
        events = []
        for ev in self.events:
            epoch = self.turns.epoch_cells.get(id(ev))
            if epoch is not None and epoch[0] is ev:
                ev = DeckShuffled(player=ev.player, order=tuple(c.id for c in epoch[1]))
            events.append(ev)
        codes = set(self.field.code_of.values())
        cards = CardDB(self.facts.facts_for(code) for code in sorted(codes) if code)
        times = _times(self.r.seed * 1000, len(events))
        winner, reason = self.turns.win if self.turns.win is not None else (None, None)
        expected = Expected(lp=(self.turns.lp[0], self.turns.lp[1]), winner=winner, reason=reason, turns=self.turns.turn)
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
        summons = self.summons
        if not (summons.pending_tributes or summons.pending_materials or summons.pre_overlay):
            self.moves.group_pending = False            # nothing pending (most calls)
            return
        tributes, self.summons.pending_tributes = self.summons.pending_tributes, []
        for card, w in tributes:
            self.emit(CardMoved(card=card, to=w, reason="tributed", cause=self.cause), self.began((card,)))
        materials, self.summons.pending_materials = self.summons.pending_materials, []
        group, self.moves.group_pending = self.moves.group_pending, False
        for n, (card, reason, w, pos, at) in enumerate(materials):
            self.emit(CardMoved(card=card, to=w, reason="material", position=pos, cause=self.cause,
                                with_next=group and n < len(materials) - 1), at)
        for host, mats in list(self.summons.pre_overlay.items()):
            side_host = self.field.monster_zone_of(host)
            if side_host is None and not final:
                continue                          # its summon is still to come
            del self.summons.pre_overlay[host]
            if side_host is None:
                self.note(f"{len(mats)} card(s) attached to {host} while it was not on the field, and it never "
                          "came out: they stay where they were")
                continue
            for card in mats:
                self.summons.pending_at.pop(card, None)
                self.emit(CardMoved(card=card, to=Loc(side_host[0], OVERLAY, side_host[1]),
                                    reason="attached", cause=self.cause))


def _note_of(importer: Importer) -> Callable[[str], None]:
    """``importer.note`` for its field and facts, reached through a weak reference: the bound
    method made every importer a reference cycle, so its replay (the body's packets, about a
    megabyte) waited for the cyclic collector, a dozen files at a time in a batch, instead of
    being freed when the import returned (8–15% of an import's CPU time, #25)."""
    ref = weakref.ref(importer)

    def note(text: str) -> None:
        ref().note(text)                       # the importer outlives its field and facts' use
    return note


_STATE, _DATA = bytes((MSG_UPDATE_DATA, MSG_UPDATE_CARD)), bytes((MSG_UPDATE_DATA,))

#: The handler of each message: the methods marked ``@reads(MSG_...)`` in the modules above.
_HANDLERS = handler_table(Importer)
