"""Starting a duel: the first event, deck registration, shuffles, and set-up positions.

DECK-01..06 and DECK-10 are checked when a deck is registered (PEN-02 items 14-15: a judge refuses
such a deck before the duel) by ``decks.deck_problems``, the same check ``ygoreplay deck check``
runs, and DECK-08 against the banlist the duel names (``duel_started.banlist``), carried whole. A set-up
position is refused whole when it is not a possible board.
"""
from __future__ import annotations

from operator import is_
from typing import Any, TYPE_CHECKING

from ..i18n import N_, say
from ..cards import CardFacts
from ..decks import Banlist, Problem, banlist_hash, banlist_problems, deck_problems
from ..events import (
    ATTACK, BANISHED, BATTLE_STEPS, DECK, DEFENSE, EXTRA, FACEDOWN, FACEUP, FZONE, GY, HAND, MONSTER_POSITIONS, MZONE,
    OVERLAY, SET, SZONE, Event)
from ..rulesets import RULESETS
from ..state import Card, DuelState, Side, add_deck_cards
from ..text import name_key, printable
from .base import call, fail, handles, impossible
from .identity import forget_deck

if TYPE_CHECKING:                  # annotations only: a kind is made on its first use (events._lazy)
    from ..events import DeckRegistered, DeckShuffled, DuelStarted, PositionSetUp

def facts_for(state: DuelState, ev: Event, code: int) -> CardFacts:
    """A passcode's facts (CARD-01); 0 is a card the record does not know (``rules.identity``)."""
    if code == 0:
        state.unknowns = True
        return state.unknown
    facts = state.db.get(code)
    if facts is None:
        impossible(state, ev, "CARD-01", say("no card facts for passcode {code}: the card is unknown", code=code))
    return facts


def _facts_of(state: DuelState, ev: Event, codes: tuple[int, ...]) -> list[CardFacts]:
    """``facts_for`` of each passcode of a deck: looked up at once when the record knows them all."""
    facts = None if 0 in codes else state.db.facts_of(codes)
    if facts is None:                             # an unknown card (0), or a passcode without facts
        return [facts_for(state, ev, code) for code in codes]
    return facts


@handles("duel_started")
def duel_started(state: DuelState, ev: DuelStarted) -> None:
    if state.started:
        impossible(state, ev, "LOG-03", N_("the duel has already started"))
    if ev.ruleset not in RULESETS:
        impossible(state, ev, "LOG-05", say("unknown rule set {ruleset!r}", ruleset=ev.ruleset))
    if ev.first_player not in (0, 1) or ev.chosen_by not in (0, 1, None):
        impossible(state, ev, "LOG-05", N_("players are 0 and 1"))
    if ev.starting_lp < 1 or ev.hand_size < 0 or ev.draw_count < 1:
        impossible(state, ev, "LOG-05", N_("a duel starts with at least 1 LP, no negative hand and at least 1 card "
                                           "a draw"))
    if ev.banlist is not None and banlist_hash(ev.banlist.limits, ev.banlist.whitelist) != ev.banlist.hash:
        impossible(state, ev, "LOG-05", say("the banlist {name!r} does not hold what its hash {hash} names: its "
                                            "limits were changed, or the hash is not of them",
                                            name=ev.banlist.name, hash=ev.banlist.hash))
    if len(ev.players) == 2 and (key := name_key(ev.players[0])) and key == name_key(ev.players[1]):
        # a duel's seats are told apart by name (``access.seat_order``): one name twice seated
        # neither (a match's judge saw it only as a duel not of the match's players, LOG-09).
        # Refused where every door's duel starts; two unnamed players (an import without names)
        # pass. A record stored or signed before the check is folded in audit (``History``): kept,
        # its start flagged, so nothing recorded is lost; never set aside by a cite (``call``)
        call(state, ev, "LOG-05", say("the duel's players {first} and {second} read as one name (case, width and "
                                            "characters not seen aside): a duel is played by two players told apart "
                                            "by their names", first=printable(ev.players[0]),
                                            second=printable(ev.players[1])), play=False)
    state.witnessed = ev.witnessed         # from here on a broken rule is a flag (rules.base.fail)
    # CONF-01: a setting the players agreed on, or the room set, is a duel option, not a breach
    options = ev.options
    if ev.starting_lp != 8000 and "starting_lp" not in options:
        fail(state, ev, "SETUP-01", say("each player starts with 8000 LP, not {starting_lp} (unless the duel's "
                                        "options say it was agreed: starting_lp)", starting_lp=ev.starting_lp))
    if ev.hand_size != 5 and "hand_size" not in options:
        fail(state, ev, "SETUP-02", say("each player draws 5 cards to start, not {hand_size} (unless the duel's "
                                        "options say it was agreed: hand_size)", hand_size=ev.hand_size))
    if ev.draw_count != 1 and "draw_count" not in options:
        fail(state, ev, "TURN-02", say("the Draw Phase draw is 1 card, not {draw_count} (unless the duel's options "
                                       "say it was agreed: draw_count)", draw_count=ev.draw_count))
    state.started = True
    if ev.banlist is not None:             # DECK-08: the decks are registered against it
        b = ev.banlist
        state.banlist = [b.name, b.hash, [list(pair) for pair in b.limits], b.whitelist]
    state.starting_lp = ev.starting_lp
    state.hand_size = ev.hand_size
    state.draw_count = ev.draw_count
    state.decks_checked = "no_deck_check" not in options
    state.options = tuple(options)
    state.first_player = ev.first_player
    state.turn_player = ev.first_player
    state.players = ev.players
    state.sides = [Side(ev.starting_lp), Side(ev.starting_lp)]
    state.use_ruleset(ev.ruleset)          # MR3: separate Pendulum Zones, S/T 5 and 6 (CONF-09)


@handles("deck_registered")
def deck_registered(state: DuelState, ev: DeckRegistered) -> None:
    player = ev.player
    if player not in (0, 1):
        impossible(state, ev, "LOG-05", N_("deck_registered needs the player, 0 or 1"))
    side = state.sides[player]
    if side.registered:
        impossible(state, ev, "LOG-03", say("player {player} has already registered a deck", player=player))
    if state.turn or any(s.hand for s in state.sides):
        impossible(state, ev, "LOG-03", N_("decks are registered before the opening hands are drawn"))
    main, extra, side_cards = (_facts_of(state, ev, part) for part in (ev.main, ev.extra, ev.side))
    if ev.unordered and 0 in (*ev.main, *ev.extra, *ev.side):
        impossible(state, ev, "LOG-05", N_("a registered decklist (unordered) names every card; 0 is an unknown "
                                           "one"))
    if state.decks_checked:                  # a duel option may say the room did not (CONF-01)
        # An unknown card counts toward the sizes, as a card of its own for the 3-copy limit.
        for problem in _deck_findings(ev, main, extra, side_cards):
            fail(state, ev, *problem)
    if state.banlist is not None:            # DECK-08: named by the duel, it is held to it
        name, _, limits, whitelist = state.banlist
        for problem in banlist_problems([f for f in (*main, *extra, *side_cards) if f.code],
                                        Banlist(name, {code: n for code, n in limits}, whitelist)):
            fail(state, ev, *problem)
    if ev.unordered:                         # the decklist: every card unknown until shown
        state.unknowns = True
        side.listed = [list(ev.main), list(ev.extra)]
        main, extra = [state.unknown] * len(main), [state.unknown] * len(extra)
    main_ids = _card_ids(f"p{player}.m", len(main))[:len(main)]
    extra_ids = _card_ids(f"p{player}.x", len(extra))[:len(extra)]
    add_deck_cards(state.cards, main_ids, player, main, DECK, None, "main")
    add_deck_cards(state.cards, extra_ids, player, extra, EXTRA, FACEDOWN, "extra")
    side.deck += main_ids
    side.extra += extra_ids
    side.side_deck = ev.side
    side.registered = True
    side.order_known = not ev.unordered and 0 not in ev.main     # ids of unknown cards are only names


@handles("deck_shuffled")
def deck_shuffled(state: DuelState, ev: DeckShuffled) -> None:
    player = ev.player
    if player not in (0, 1):
        impossible(state, ev, "LOG-05", N_("deck_shuffled needs the player, 0 or 1"))
    deck = state.sides[player].deck
    if not ev.order:                         # the recorder did not see the order: nobody knows it
        forget_deck(state, player)
        state.sides[player].order_known = False
        return
    order = ev.order
    if not (len(order) == len(deck) and _same_cards(order, deck)) and sorted(order) != sorted(deck):
        missing = sorted(set(deck) - set(ev.order))[:3]
        extra = sorted(set(ev.order) - set(deck))[:3]
        impossible(state, ev, "LOG-02",
                   say("the shuffled order must hold exactly the {count} cards of player {player}'s Deck (missing "
                       "{missing}, not in the Deck {extra})",
                       count=len(deck), player=player, missing=missing or N_("none"), extra=extra or N_("none")))
    deck[:] = order
    state.sides[player].order_known = True


#: DECK-01..06's findings for the decks of known cards this process has judged, by their passcodes
#: in order, with the very facts they were judged on (held here, so no other object takes their
#: place): a deck folded again (a store's seek from the start, an audit, a resident's next command,
#: the bench's runs) is judged once. The check reads every card's cold facts and name, 30-70 us a
#: deck, some tenth of folding a real duel; its findings depend on nothing else. At most
#: ``_DECK_FINDINGS_MAX`` decks are kept (a few KB each), then the table starts again.
_DECK_FINDINGS: dict[tuple[tuple[int, ...], ...], tuple[tuple[CardFacts, ...], tuple[Problem, ...]]] = {}
_DECK_FINDINGS_MAX = 256


def _deck_findings(ev: DeckRegistered, main: list[CardFacts], extra: list[CardFacts],
                   side: list[CardFacts]) -> tuple[Problem, ...]:
    """``deck_problems`` of the registered deck (DECK-01/02/03/05/06, DECK-10), an unknown card
    (0) counting toward the sizes and as a card of its own for the 3-copy limit; the findings of
    a deck of known cards judged before on the same facts are not worked out again."""
    if 0 in ev.main or 0 in ev.extra or 0 in ev.side:
        unknown = iter(range(-1, -1 - len(main) - len(extra) - len(side), -1))
        parts = tuple([next(unknown) if f.code == 0 else f for f in part] for part in (main, extra, side))
        return tuple(deck_problems(*parts, separate_tokens=True))
    key = (ev.main, ev.extra, ev.side)
    facts = (*main, *extra, *side)
    found = _DECK_FINDINGS.get(key)
    if found is not None and len(found[0]) == len(facts) and all(map(is_, found[0], facts)):
        return found[1]
    problems = tuple(deck_problems(main, extra, side, separate_tokens=True))
    if len(_DECK_FINDINGS) >= _DECK_FINDINGS_MAX:
        _DECK_FINDINGS.clear()
    _DECK_FINDINGS[key] = (facts, problems)
    return problems


def _same_cards(order: tuple[str, ...], deck: list[str]) -> bool:
    """The same cards, each once (what comparing both sorted says, without sorting them: a
    shuffle is one event in twenty of a real duel), for orders as long as the Deck (the caller
    says): distinct, and holding every card of the Deck, they hold no other. The Deck's cards are
    looked up, not made a set of their own (they are distinct: each card is in one place)."""
    cards = set(order)
    return len(cards) == len(order) and cards.issuperset(deck)


#: The ids of a registered deck's cards by prefix (``p0.m``: player 0's Main Deck), in order:
#: made once per process, not per duel.
_IDS: dict[str, list[str]] = {}


def _card_ids(prefix: str, count: int) -> list[str]:
    """At least ``count`` ids of a deck's cards, in order: ``prefix`` then the index (``p0.m0`` ...)."""
    ids = _IDS.get(prefix)
    if ids is None or len(ids) < count:
        ids = _IDS[prefix] = [f"{prefix}{i}" for i in range(max(count, 64))]
    return ids


# -- set-up positions ---------------------------------------------------------------------------

#: The key sets of a card object ``_Builder.plain_card`` builds (a dict's keys compare as a set).
_CODE_AND_ID = ({"code"}, {"code", "id"})
_CARD_FLAGS = {"code", "id", "owner", "position", "summoned", "set", "position_changed", "attacked",
               "materials", "atk", "defense", "level", "counters", "properly_summoned", "token"}


@handles("position_set_up")
def position_set_up(state: DuelState, ev: PositionSetUp) -> None:
    """Place every card as a judge describes the board; refuse a board that cannot exist."""
    if state.started:
        impossible(state, ev, "LOG-03", N_("a set-up position must be the first event"))
    if ev.ruleset not in RULESETS:
        impossible(state, ev, "LOG-05", say("unknown rule set {ruleset!r}", ruleset=ev.ruleset))
    if len(ev.sides) != 2:
        impossible(state, ev, "LOG-05", N_("a set-up position describes exactly two sides"))
    if ev.phase not in ("draw", "standby", "main1", "battle", "main2", "end"):
        impossible(state, ev, "TURN-01", say("unknown phase {phase!r}", phase=ev.phase))
    if ev.turn < 1 or ev.turn_player not in (0, 1):
        impossible(state, ev, "LOG-05", N_("a set-up position needs turn >= 1 and turn_player 0 or 1"))
    if len(ev.normal_summon_used) != 2 or len(ev.pendulum_summon_used) != 2:
        impossible(state, ev, "LOG-05", N_("normal_summon_used and pendulum_summon_used hold one flag per player"))
    if ev.turn == 1 and ev.phase in ("battle", "main2"):
        impossible(state, ev, "NIS-04", N_("no Battle Phase on the first turn of the duel"))
    if ev.step is not None and (ev.phase != "battle" or ev.step not in BATTLE_STEPS):
        impossible(state, ev, "BATTLE-01",
                   say("step {step!r}: the steps are {join}, and only in the Battle Phase",
                       step=ev.step, join=', '.join(BATTLE_STEPS)))
    # The board is built aside and taken over once complete, so a refused set-up leaves ``state`` as it was.
    board = DuelState(state.db)
    board.index = state.index
    board.unknown = state.unknown            # unknown cards' facts: the state's own, counting its reads
    board.use_ruleset(ev.ruleset)
    board.turn, board.turn_player, board.phase = ev.turn, ev.turn_player, ev.phase
    board.step = (ev.step or "start") if ev.phase == "battle" else None
    board.first_player = ev.first_player
    board.battle_phase_entered = ev.battle_phase_entered or ev.phase in ("battle", "main2")
    builder = _Builder(board, ev)
    for player, spec in enumerate(ev.sides):
        builder.side(player, spec)
    _check_card_counts(board, ev)
    for player in (0, 1):
        if ev.normal_summon_used[player]:
            board.sides[player].normal_summon_turn = ev.turn
        if ev.pendulum_summon_used[player]:
            board.sides[player].pendulum_summon_turn = ev.turn
    for side in board.sides:                 # a Deck of unknown cards: its ids are only names
        side.order_known = all(board.cards[card_id].code for card_id in side.deck)
    board.started = True
    # EFF-05: a set-up does not say which monsters were flipped face-up this turn: any face-up one may have been
    board.flipped = [card.id for card in board.cards.values() if card.zone == MZONE and card.face_up]
    for name in _SET_UP_FIELDS:
        setattr(state, name, getattr(board, name))


def _check_card_counts(board: DuelState, ev: PositionSetUp) -> None:
    """A player owns no more cards than a deck holds: 60 Main Deck cards (DECK-01) and 15 Extra
    Deck monsters (DECK-03), tokens aside (TOKEN-01 caps them by the Monster Zones)."""
    main, extra = [0, 0], [0, 0]
    for card in board.cards.values():
        if not card.is_token:
            (extra if card.facts.is_extra_deck else main)[card.owner] += 1
    for player in (0, 1):
        if main[player] > 60:
            impossible(board, ev, "DECK-01", say("impossible position: player {player} owns {main} Main Deck "
                                                 "cards; a Main Deck holds at most 60",
                                                 player=player, main=main[player]))
        if extra[player] > 15:
            impossible(board, ev, "DECK-03", say("impossible position: player {player} owns {extra} Extra Deck "
                                                 "monsters; an Extra Deck holds at most 15",
                                                 player=player, extra=extra[player]))


#: What a set-up position decides; everything else in the state keeps its value.
_SET_UP_FIELDS = ("ruleset", "turn", "turn_player", "phase", "step", "first_player", "battle_phase_entered",
                  "cards", "sides", "emz", "must_lose", "started", "unknowns", "flipped", "flip_uses")


class _Builder:
    """Turns a set-up side description into cards; every check names the rule it protects."""

    def __init__(self, state: DuelState, ev: PositionSetUp) -> None:
        self.state, self.ev = state, ev
        self.counts = [0, 0]
        # ``state.unknown``'s counter of reads, read as a dict item (each ``.reads`` was a call of
        # ``UnknownFacts.__getattribute__``, once a set-up card)
        self.reads = vars(state.unknown)
        self.mark = self.reads["reads"]          # reads of unknown cards' facts before this check

    def bad(self, rule: str, message: str) -> None:
        """Refuse the position; but a check that read a card the record does not know (passcode
        0: a position of what its recorder saw) cannot tell, and its rule is undecided."""
        if self.reads["reads"] != self.mark:
            self.mark = self.reads["reads"]
            fail(self.state, self.ev, rule, say("impossible position: {message_}", message_=message))
            return
        impossible(self.state, self.ev, rule, say("impossible position: {message_}", message_=message))

    def side(self, player: int, spec: dict) -> None:
        known = {"lp", "deck", "hand", "mzone", "szone", "fzone", "gy", "banished", "extra"}
        if not isinstance(spec, dict) or set(spec) - known:
            self.bad("LOG-05", say("side {player} has unknown keys {value}",
                                   player=player, value=sorted(set(spec) - known)))
        side = self.state.sides[player]
        side.lp = spec.get("lp", 8000)
        if not isinstance(side.lp, int) or side.lp < 0:
            self.bad("LOG-05", say("side {player} LP must be a whole number >= 0", player=player))
        if side.lp == 0:
            self.state.must_lose[player] = "lp"
        side.registered = True
        for zone, pile in ((DECK, side.deck), (HAND, side.hand), (GY, side.gy),
                           (BANISHED, side.banished), (EXTRA, side.extra)):
            self.pile(self.listed(spec, zone, player), player, zone, pile)
        mzone = self.listed(spec, MZONE, player)
        if len(mzone) > 7 or (len(mzone) > 5 and not self.state_rules_emz()):
            self.bad("ZONE-01", say("player {player} lists {count} monster zones", player=player, count=len(mzone)))
        for index, item in enumerate(mzone):
            if item is not None:
                self.place_monster(player, index, item)
        szone = self.listed(spec, SZONE, player)
        ruleset = RULESETS[self.state.ruleset]
        if len(szone) > ruleset.spell_trap_zone_count:
            extra = " and 2 Pendulum Zones (5, 6)" if ruleset.separate_pendulum_zones else ""
            self.bad("ZONE-08", say("player {player} lists {count} Spell & Trap Zones; there are 5{extra}",
                                    player=player, count=len(szone), extra=extra))
        for index, item in enumerate(szone):
            if item is not None:
                self.place_spell_trap(player, index, item)
        if spec.get("fzone") is not None:
            card = self.card(spec["fzone"], player, FZONE)
            if card.facts.spell_subtype != "field":
                self.bad("ZONE-10", say("{name} is not a Field Spell", name=card.name))
            card.position = card.position or FACEUP
            self.check_position(card, (FACEUP, SET))
            side.fzone = card.id

    def pile(self, items: list, player: int, zone: str, pile: list[str]) -> None:
        """Each card of one of ``player``'s piles put in it, in order. A bare passcode the record
        knows (most of a set-up's cards) is made here as ``plain_card`` makes it, its checks in
        the same order, without its four calls a card: the set-up's fold was a third of a table's
        first append, 120 cards (issue 25). Any other item is ``card``'s."""
        state, reads, counts = self.state, self.reads, self.counts
        cards, known = state.cards, state.db
        position = FACEDOWN if zone == EXTRA else FACEUP if zone == BANISHED else None
        for item in items:
            facts = known.get(item) if item.__class__ is int and item else None
            if facts is None:                   # an object, an unknown card (0), a passcode without facts
                card = self.card(item, player, zone)
                if card.owner != player:
                    self.bad("CTRL-03", say("{id} belongs in its owner's {zone}, not player {player}'s",
                                            id=card.id, zone=zone, player=player))
                pile.append(card.id)
                continue
            self.mark = reads["reads"]
            is_token = facts.is_token
            counts[player] += 1
            card_id = f"p{player}.{'t' if is_token else 's'}{counts[player]}"
            if card_id in cards:
                self.bad("LOG-04", say("card id {card_id} is used twice (no card may be in two places)",
                                       card_id=card_id))
            card = cards[card_id] = Card(card_id, player, facts, zone, is_token)
            self.check_place(facts, zone, is_token)
            card.position = position
            pile.append(card_id)

    def state_rules_emz(self) -> bool:
        return RULESETS[self.state.ruleset].extra_monster_zones

    def listed(self, spec: dict, zone: str, player: int) -> list:
        value = spec.get(zone, [])
        if not isinstance(value, list):
            self.bad("LOG-05", say("side {player} {zone} must be a list", player=player, zone=zone))
        return value

    def card(self, item: Any, controller: int, zone: str) -> Card:
        if item.__class__ is int:                # a bare passcode, as most of a set-up's cards are
            return self.plain_card(item, controller, zone)
        if item.__class__ is dict and item.keys() in _CODE_AND_ID:   # a view's hidden card: named, no flags
            return self.plain_card(item["code"], controller, zone, item.get("id"))
        state = self.state
        data = {"code": item} if isinstance(item, int) and not isinstance(item, bool) else item
        if not isinstance(data, dict) or "code" not in data or set(data) - _CARD_FLAGS:
            self.bad("LOG-05", say("a card is a passcode or an object with 'code', got {item!r}", item=item))
        owner = data.get("owner", controller)
        facts = facts_for(state, self.ev, data["code"])
        is_token = bool(data.get("token")) or facts.is_token
        card = self.placed(data.get("id"), owner, controller, facts, zone, is_token)
        card_id = card.id
        card.position = data.get("position")
        if zone == EXTRA:
            card.position = card.position or FACEDOWN
            self.check_position(card, (FACEDOWN, FACEUP))
            if card.position == FACEUP and not facts.is_pendulum:
                self.bad("ZONE-12", say("only Pendulum monsters are face-up in the Extra Deck ({name})",
                                        name=facts.name))
        elif zone == BANISHED:
            card.position = card.position or FACEUP
            self.check_position(card, (FACEUP, FACEDOWN))
        elif zone in (DECK, HAND, GY) and card.position is not None:
            self.bad("LOG-05", say("{card_id} in the {zone} takes no position", card_id=card_id, zone=zone))
        turn = state.turn
        if data.get("summoned"):
            card.summoned_turn = card.arrived_turn = turn
        if data.get("set"):
            card.set_turn = card.summoned_turn = card.arrived_turn = turn
        if data.get("position_changed"):
            card.position_changed_turn = turn
        if data.get("attacked"):
            card.attacked_turn = turn
        card.atk, card.defense, card.level = data.get("atk"), data.get("defense"), data.get("level")
        if not isinstance(data.get("counters", {}), dict) or not isinstance(data.get("materials", []), list):
            self.bad("LOG-05", say("{card_id}: counters are an object and materials a list", card_id=card_id))
        card.counters = dict(data.get("counters", {}))
        card.properly_summoned = bool(data.get("properly_summoned", zone == MZONE))
        for material in data.get("materials", []):
            if zone != MZONE or not facts.is_xyz or card.position not in (None, ATTACK, DEFENSE):
                self.bad("XMAT-01", say("only a face-up Xyz monster on the field has materials ({name})",
                                        name=facts.name))
            mat = self.card(material, controller, OVERLAY)
            mat.host = card_id
            card.materials.append(mat.id)
        return card

    def plain_card(self, code: int, player: int, zone: str, card_id: str | None = None) -> Card:
        """``card`` of a bare passcode, or of a card object with only its ``code`` and ``id``
        (``card_id``): no flags to read, so what they would set keeps the defaults ``card`` gives
        (no position but in the Extra Deck and banished, no counters, no materials), the same
        checks in the same order."""
        facts = facts_for(self.state, self.ev, code)
        card = self.placed(card_id, player, player, facts, zone, facts.is_token)
        if zone == EXTRA:
            card.position = FACEDOWN
        elif zone == BANISHED:
            card.position = FACEUP
        card.properly_summoned = zone == MZONE
        return card

    def placed(self, card_id: str | None, owner: int, controller: int, facts: CardFacts, zone: str,
               is_token: bool) -> Card:
        """A set-up card put in its zone, under its id or the next automatic one of its owner:
        LOG-04 (an id used twice), then the zones it may start in (``check_place``)."""
        state = self.state
        self.mark = self.reads["reads"]
        if card_id is None:
            self.counts[owner] += 1
            card_id = f"p{owner}.{'t' if is_token else 's'}{self.counts[owner]}"
        if card_id in state.cards:
            self.bad("LOG-04", say("card id {card_id} is used twice (no card may be in two places)", card_id=card_id))
        card = state.cards[card_id] = Card(card_id, owner, facts, zone, is_token=is_token)
        card.controller = controller
        self.check_place(facts, zone, is_token)
        return card

    def check_place(self, facts: CardFacts, zone: str, is_token: bool) -> None:
        """TOKEN-02, DECK-02 and ZONE-12: the zones a card may start in."""
        if is_token and zone != MZONE:
            self.bad("TOKEN-02", say("a token can only be in a Monster Zone, not the {zone}", zone=zone))
        if facts.is_extra_deck and zone in (DECK, HAND):
            self.bad("DECK-02", say("{name} is an Extra Deck monster and cannot be in the {zone}",
                                    name=facts.name, zone=zone))
        if zone == EXTRA and not (facts.is_extra_deck or facts.is_pendulum):
            self.bad("ZONE-12", say("{name} cannot be in the Extra Deck", name=facts.name))

    def check_position(self, card: Card, allowed: tuple[str, ...]) -> None:
        if card.position not in allowed:
            self.bad("POS-01", say("{id} ({name}) cannot be {position!r} in the {zone}",
                                   id=card.id, name=card.name, position=card.position, zone=card.zone))

    def place_monster(self, player: int, index: int, item: Any) -> None:
        state = self.state
        card = self.card(item, player, MZONE)
        if not card.facts.is_monster:
            self.bad("ZONE-03", say("{name} is not a monster and cannot be in a Monster Zone", name=card.name))
        card.position = card.position or ATTACK
        self.check_position(card, MONSTER_POSITIONS)
        if card.facts.is_link and card.position != ATTACK:
            self.bad("LINK-05", say("{name} is a Link monster: always in Attack Position", name=card.name))
        if card.is_token and card.position not in (ATTACK, DEFENSE):
            self.bad("TOKEN-02", say("a token is always face-up ({id})", id=card.id))
        if index >= 5:
            slot = state.emz_slot(player, index)
            if state.emz[slot] is not None:
                self.bad("ZONE-04", say("two monsters in one Extra Monster Zone ({emz}, {id})",
                                        emz=state.emz[slot], id=card.id))
            if not card.facts.is_extra_deck and not card.facts.is_pendulum:
                self.bad("ZONE-03", say("{name} is not from the Extra Deck and cannot be in an Extra Monster Zone",
                                        name=card.name))
            state.emz[slot] = card.id
        else:
            state.sides[player].mzone[index] = card.id

    def place_spell_trap(self, player: int, index: int, item: Any) -> None:
        card = self.card(item, player, SZONE)
        facts = card.facts
        zones = RULESETS[self.state.ruleset].pendulum_zones
        pendulum_zone = index in zones and facts.is_pendulum
        if facts.is_monster and not pendulum_zone:
            where = "a separate Pendulum Zone" if zones == (5, 6) else "an outer zone"
            self.bad("ZONE-09", say("{name} is a monster: only a Pendulum in {where} ({zones} or {zones2}) may be "
                                    "there", name=card.name, where=where, zones=zones[0], zones2=zones[1]))
        if index >= 5 and not facts.is_pendulum:
            self.bad("ZONE-09", say("{name} is not a Pendulum card: S/T index {index} is a Pendulum Zone (MR-03)",
                                    name=card.name, index=index))
        if facts.spell_subtype == "field":
            self.bad("ZONE-10", say("{name} is a Field Spell: it goes in the Field Zone", name=card.name))
        card.position = card.position or (FACEUP if pendulum_zone else SET)
        self.check_position(card, (FACEUP,) if pendulum_zone else (FACEUP, SET))
        self.state.sides[player].szone[index] = card.id

