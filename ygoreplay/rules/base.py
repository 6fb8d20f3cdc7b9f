"""What every rule module shares: how a broken rule is reported, and how cards move.

A handler first checks, then changes the state. A check that fails calls ``fail``: when the event
cites a card effect the rule is set aside and the override is remembered (GEN-01); when auditing
the violation is collected and the fold goes on; otherwise ``RuleViolation`` is raised before
anything has changed, so a refused event leaves the state as it was. ``impossible`` is for events
that cannot be applied at all (a card that does not exist); it always raises.

Rule IDs are those of RULES.md. Checks that keep the log itself consistent, and that no game rule
states, use ``LOG-nn``; checks of a card's own text (its script's count limits), ``TEXT-nn`` (see README).
"""
from __future__ import annotations

from typing import NoReturn

from ..i18n import N_, say
from ..errors import YgoreplayError
from ..events import (
    BANISHED, DECK, EXTRA, FACEUP, FZONE, GY, HAND, MZONE, OVERLAY, SZONE, Event, is_kind)
from ..kinds import PerKind
from ..state import FLIP_PASSED, Card, DuelState, Override, Violation

#: The duel fold's handler of each kind, ``(state, event) -> None``: each rule module registers
#: its own with ``@handles("kind_name")``; ``rules.fold`` imports them all and dispatches on it.
handles = PerKind("handler", known=is_kind)


class RuleViolation(YgoreplayError):
    """An event the rules refuse: the rule ID, the event's index, and a message for a judge.
    ``public``: the check read nothing of a card the event's writer may not see (the event's own
    shape, an LP total, whether an attack waits: the same refusal whatever hidden card it names)
    and the message names none, so a writer told no more of other refusals
    (``views.DeviceNames.refused``) is told this one as it is: what to fix."""

    exit_code = 1

    def __init__(self, rule: str, message: str, index: int, kind: str = "", *, public: bool = False) -> None:
        super().__init__(f"#{index} {rule} {message}")
        self.rule = rule
        self.message = message
        self.index = index
        self.kind = kind
        self.public = public

    def as_dict(self) -> dict:
        return {"index": self.index, "rule": self.rule, "message": self.message}


def fail(state: DuelState, ev: Event, rule: str, message: str, *, play: bool = True) -> None:
    """A basic rule is broken: overridden when cited, collected when auditing, else refused.

    When the check read a fact of a card the record does not know (``cards.UnknownFacts``) it
    cannot tell: the rule is undecided (listed, never called either way). In a witnessed duel
    what was played at the table stands: the event is kept and the broken rule is its *flag*,
    in every mode (the one place that decides it, whichever door the event came through);
    ``play=False`` is a rule of the record itself (a judge's word), which no table makes stand."""
    if ev.cite is not None:
        state.overrides.append(Override(state.index, rule, message, ev.cite))
    elif state.unknown.reads != state.reads_before:   # it read a card the record does not know
        if state.undecided is not None:
            state.undecided.append(Violation(state.index, rule, message))
    else:
        call(state, ev, rule, message, play=play)


def undecided(state: DuelState, rule: str, message: str) -> None:
    """A rule the record cannot decide (what would decide it is in the card's text, which the
    duel's card data does not hold): said in the record, as undecided, never called either way.
    Added once every check of the event has passed (a refused event leaves none)."""
    if state.undecided is not None:
        state.undecided.append(Violation(state.index, rule, message))


def call(state: DuelState, ev: Event, rule: str, message: str, *, play: bool = True, public: bool = False) -> None:
    """A broken rule decided: a flag in a witnessed duel (what was played stands), collected when
    auditing, else refused (``public``: ``RuleViolation.public``)."""
    if play and state.witnessed:
        if state.flags is not None:                   # None while a history folds again
            state.flags.append(Violation(state.index, rule, message))
    elif state.violations is not None:
        state.violations.append(Violation(state.index, rule, message))
    else:
        raise RuleViolation(rule, message, state.index, ev.kind, public=public)


def impossible(state: DuelState, ev: Event, rule: str, message: str, *, public: bool = False) -> NoReturn:
    """The event cannot be applied to this state at all, cited or not (``public``:
    ``RuleViolation.public``)."""
    raise RuleViolation(rule, message, state.index, ev.kind, public=public)


#: The player whose own device wrote an event (``Event.entered_by``): they see their hidden cards.
_DEVICES = {"p0": 0, "p1": 1}


def unseen_by_writer(state: DuelState, ev: Event, card: Card) -> bool:
    """In a witnessed duel, is ``card`` where the event's writer may not know what it is
    (``Card.seen_by``)? The judge sees every card; a player's device its own hidden ones too; the
    table's recorder (and an entry that names no writer) what is public. The record may know the
    card all the same: a player's device named it, for itself."""
    return state.witnessed and ev.entered_by != "judge" and not card.seen_by(_DEVICES.get(ev.entered_by))


def hidden_from_writer(state: DuelState, ev: Event) -> list[str]:
    """The cards ``ev``'s writer may not see before it (``unseen_by_writer``), by id: none but in a
    witnessed duel, for a writer other than the judge (``shown_to_writer`` asks after the event).
    Not a card of a player's own Deck to that player's device: what its draw takes from there is
    a card of its own decklist, in the record's order, no hidden card of the other player's."""
    if not state.witnessed or ev.entered_by == "judge":
        return []
    player = _DEVICES.get(ev.entered_by)
    return [card_id for card_id, card in state.cards.items()
            if not card.seen_by(player) and (card.zone != DECK or card.owner != player)]


def shown_to_writer(state: DuelState, ev: Event, hidden: list[str]) -> bool:
    """Did ``ev`` show its writer one of the ``hidden`` cards (``hidden_from_writer``, read before
    it) that it does not name itself (``shows``: the record takes the writer's word, LOG-10)?
    Decided on where the cards are, never on what they are: a later event of its batch whose check
    reads such a card would answer the writer what it is, nothing written."""
    player = _DEVICES.get(ev.entered_by)
    cards, named = state.cards, {card_id for card_id, _code in ev.shows} if ev.shows else ()
    return any((card := cards.get(card_id)) is not None and card.seen_by(player) and card_id not in named
               for card_id in hidden)


def refuse_by_identity(state: DuelState, ev: Event, card: Card, rule: str, message: str) -> None:
    """An event breaks a rule that reads what ``card`` is (an Xyz monster, a Pendulum card, a Spell
    or Trap): refused, unless its writer may not know the card (``unseen_by_writer``). There the
    refusal would answer the writer whether the card is what it would have to be (422 against 200,
    nothing written when a later event of its batch is refused on purpose), which the record knows
    only where a player's device named it: trying one card after another, the table's recorder
    learned the other side's hidden cards. In a witnessed duel such an event is ``fail``ed: kept,
    flagged for the judge and the views that know the card (its owner's; the writer's view, not
    knowing it, cannot tell, as when the record does not know it either); a machine's record refuses."""
    if unseen_by_writer(state, ev, card):
        fail(state, ev, rule, message)
    else:
        impossible(state, ev, rule, message)


def judges_word(state: DuelState, ev: Event, text: str, what: str, signed: bool = True) -> None:
    """MATCH-08: a judge's ruling or rollback is followed, so the record says whose it is and
    what it says: a nameless or empty one is refused through every door (kept, flagged, by an audit).
    A call (not ``signed``) is made before any judge comes: it says why, and needs no judge's name."""
    if not signed:
        if not text.strip():
            fail(state, ev, "MATCH-08", say("a judge call says what the judge is called for (its note): whichever "
                                            "judge comes answers it, so it names none"), play=False)
        return
    missing = [name for name, value in (("the judge", ev.judge), (f"a {what}", text)) if not value.strip()]
    if missing:
        fail(state, ev, "MATCH-08", say("a judge's {replace} needs {join}: it is signed and explained",
                                        replace=ev.kind.replace('_', ' '), join=' and '.join(missing)), play=False)


def check_not_negated(state: DuelState, ev: Event, subject: str | None = None) -> None:
    """TERM-14: a card whose activation was negated in this chain applies nothing, so it causes no
    outcome (a move, a change, a Special Summon: a negated Polymerization summons nothing);
    SPELL-06: a negated Equip Spell equips nothing and changes no ATK or DEF. SPELL-09, CHAIN-06:
    nor does a Continuous, Equip or Field Spell, Continuous Trap or Pendulum Scale whose link
    resolved after it left the field (``state.inert``). ``subject``, the card the event moves, may
    be the cause itself (a negated Spell going to the GY). Most events come with neither list
    filled: one test, so every outcome calls it bare."""
    if not (state.negated or state.inert):
        return
    cause = ev.cause
    if cause is None or cause == subject:
        return
    if cause in state.inert:
        card = state.cards[cause]
        fail(state, ev, "SPELL-09" if card.facts.is_spell else "CHAIN-06",
             say("{name} left the field before its Chain Link resolved: a Continuous, Equip, Field or Pendulum card "
                 "that has left the field applies nothing", name=card.name))
        return
    if not state.negated or cause not in state.negated:
        return
    card = state.cards[cause]
    if card.facts.spell_subtype == "equip":
        fail(state, ev, "SPELL-06", say("{name}'s activation was negated: an Equip Spell then equips nothing and "
                                        "changes nothing", name=card.name))
    else:
        fail(state, ev, "TERM-14", say("{name}'s activation was negated: a negated activation applies nothing",
                                       name=card.name))


def get_card(state: DuelState, ev: Event, card_id: str | None) -> Card:
    card = state.cards.get(card_id) if card_id is not None else None
    if card is None:
        impossible(state, ev, "LOG-01", say("no card {card_id!r} in this duel", card_id=card_id))
    return card


def player_of(state: DuelState, ev: Event) -> int:
    """The acting player: as given, else the turn player."""
    return state.turn_player if ev.player is None else ev.player


def is_main_phase(state: DuelState) -> bool:
    return state.phase == "main1" or state.phase == "main2"


def has_open_game_state(player: int, turn_player: int, phase: str | None, chain_open: bool) -> bool:
    """PRIO-06 on values (for importers reading another engine's stream): the turn player, in a
    Main Phase, with no chain open."""
    return player == turn_player and (phase == "main1" or phase == "main2") and not chain_open


def open_game_state(state: DuelState, player: int) -> str | None:
    """Why ``player`` does not have an open game state (PRIO-06: their Main Phase, they hold
    priority, no chain), or None when they do."""
    if player != state.turn_player:
        return N_("it is not their turn")
    if state.phase != "main1" and state.phase != "main2":
        return say("it is the {phase}, not a Main Phase", phase=phase_name(state.phase))
    if state.chain:
        return say("a chain of {count} link(s) is open", count=len(state.chain))
    if state.passes and end_passes(state):
        return ended_by_passes(state)
    if state.passes == 1 and state.summon_window is not None:     # PRIO-03, SPS-11: the opponent answers first
        return say("player {player} passed priority after the summon: player {opponent} holds it, to answer the "
                   "summon or pass (PRIO-03, SPS-11)", player=state.turn_player, opponent=1 - state.turn_player)
    return None


def must_still_draw(state: DuelState) -> bool:
    """TURN-02: the turn player must draw, except the first player on turn 1 (SETUP-04) unless the
    duel's option ``first_turn_draw`` keeps the older rule that they draw too (CONF-08), or once
    their cited activation before the draw may have given it up (``draw_given_up``)."""
    if state.normal_draw_done or state.draw_given_up or state.turn_player in state.must_lose:
        return False
    return not (state.turn == 1 and state.turn_player == state.first_player and "first_turn_draw" not in state.options)


def draw_owed(state: DuelState, ev: Event, message: str) -> None:
    """TURN-02: the turn player's draw is still owed in the Draw Phase (``must_still_draw``) and
    the record goes on as if it were made (``message`` says how). WIN-02: with an empty Deck that
    draw loses the duel instead. The one check of a phase left, a pass and an activation."""
    turn_player = state.turn_player
    if not state.sides[turn_player].deck:         # WIN-02: the draw they must make loses the duel
        fail(state, ev, "WIN-02", say("player {turn_player} must draw with an empty Deck: they have lost the "
                                      "duel, and no phase follows", turn_player=turn_player))
    else:
        fail(state, ev, "TURN-02", message)


def end_passes(state: DuelState) -> int:
    """PRIO-04/05: how far the end of the phase or step is: 0 not declared, 1 declared by the turn
    player's pass (the opponent holds priority, to answer it), 2 or more ended. Only with the passes
    recorded and no chain open: a chain whose last link has resolved is over, its ``chain_ended``
    recorded or not (PRIO-01), so passes after it end the phase. The first two passes after a summon
    answer it (SPS-11):
    the turn player's pass after them declares the end. Not in the Damage Step: there two passes
    end one of its timings (NIS-03, BATTLE-15: start, before damage calculation, damage
    calculation, after it, end), which a record does not mark, and the turn player holds priority
    first in the next (PRIO-01)."""
    if not state.passes_recorded or state.chain or state.step == "damage":
        return 0
    if state.summon_window is not None:
        return max(0, state.passes - 2)
    return state.passes


def priority_holder(state: DuelState) -> int:
    """Who holds priority now (PRIO-01/03, CHAIN-04), counting the passes in succession: with a
    chain open, the opponent of the last link's player first, then that player once they pass;
    else the turn player first, the opponent once the turn player passes. A page's Pass and the
    proposed actions enter that player's pass, as the rules check it."""
    passes = state.passes
    if state.chain and not state.resolving:
        top = state.chain[-1].player
        return 1 - top if passes % 2 == 0 else top
    return state.turn_player if passes % 2 == 0 else 1 - state.turn_player


def ended_by_passes(state: DuelState) -> str:
    """PRIO-05, once ``end_passes``: the opponent may still answer the end, with the priority
    passed to them; once they pass too it has ended. Why the turn player may not act in it now.
    In the Battle Phase it is the step that ends (PRIO-04: the next step follows)."""
    where = f"{state.step.capitalize()} Step" if state.phase == "battle" and state.step else phase_name(state.phase)
    if end_passes(state) == 1:
        return say("player {player} passed priority, declaring the end of the {phase}: player {opponent} holds it, "
                   "to answer before the end or pass (PRIO-03, PRIO-05)", player=state.turn_player,
                   phase=where, opponent=1 - state.turn_player)
    return say("both players passed in succession with no chain open: the {phase} has ended (PRIO-05)", phase=where)


def phase_name(phase: str | None) -> str:
    return {"draw": "Draw Phase", "standby": "Standby Phase", "main1": "Main Phase 1",
            "battle": "Battle Phase", "main2": "Main Phase 2", "end": "End Phase",
            None: N_("start of the turn")}.get(phase, str(phase))


ON_FIELD = frozenset((MZONE, SZONE, FZONE))
#: Marks, in an attack's ``defender_monsters``, a monster that has left the field since (BATTLE-06).
LEFT = "~left"
#: In ``state.flip_uses``: a Flip effect its monster's flip by an attack gave, not activated in that
#: attack's Damage Step, which has ended (BATTLE-12): passed, never to be activated.
PASSED = FLIP_PASSED


#: The reasons a card moves for that say where it moves from (``reason_problem``).
REASONS_FROM = frozenset(("discarded", "tributed", "detached"))


def reason_problem(card: Card, reason: str, to_zone: str | None, from_hand: bool,
                   redirected: bool = False) -> tuple[str, str] | None:
    """(rule, why) a card cannot move for ``reason`` from where it is (to ``to_zone``), or None:
    TERM-07, only a card in the hand is discarded; SUM-06, a Tribute is a monster on the field
    (``from_hand``: or in the hand, as a resolving effect or a cost may Tribute one, RIT-02);
    XMAT-01, only an Xyz material is detached, NIS-05, to the GY (``redirected``: or banished,
    when a face-up card's text banishes what goes to the GY, Macro Cosmos: still a detach, a
    cost paid). The one check of a move (``outcome.card_moved``) and of a card paid as a cost
    (``chain.activated``, CHAIN-11)."""
    here = card.zone
    if reason == "discarded" and here != HAND:
        return "TERM-07", say("only a card in the hand is discarded; {name} is in the {zone}", name=card.name, zone=here)
    if reason == "tributed" and here != MZONE and not (here == HAND and from_hand and card.facts.is_monster):
        return "SUM-06", say("a Tribute is a monster on the field (or, as a resolving effect such as a Ritual Spell "
                             "Tributes, in the hand: RIT-02); {name} is in the {zone}", name=card.name, zone=here)
    if reason == "detached" and here != OVERLAY:
        return "XMAT-01", say("only an Xyz material is detached; {name} is in the {zone}", name=card.name, zone=here)
    if reason == "detached" and to_zone != GY and not (redirected and to_zone == BANISHED):
        return "NIS-05", say("a detached Xyz material goes to the GY, not the {zone}", zone=to_zone)
    return None


def take(state: DuelState, card: Card) -> None:
    """Remove a card from wherever it is (the first half of every move).

    An Xyz monster's materials leave with it (NIS-05): they wait in ``state.shed`` and reach the
    GY once the event is applied (``bury``, called by ``fold.apply``), after every card the event
    moved, as the engine sends them, or after the last of a group of ``card_moved`` ``with_next``."""
    zone = card.zone
    if zone in ON_FIELD:                           # one test for the field, none more for a pile
        if zone == MZONE:
            attack = state.attack
            if attack is not None and not attack.calculated and card.id in attack.defender_monsters:
                # BATTLE-06: one of the monsters the attack was declared against has left the field;
                # back, it is a new card: either way the opponent's monsters have changed (a replay)
                attack.defender_monsters = attack.defender_monsters - {card.id} | {card.id + LEFT}
            if card.materials:
                for material in card.materials:
                    state.cards[material].host = None  # under no card on the field: waiting for the GY
                state.shed.extend(card.materials)
                card.materials = []
            side = state.sides[card.controller]
            if card.id in side.mzone:
                side.mzone[side.mzone.index(card.id)] = None
            else:
                state.emz[state.emz.index(card.id)] = None
        elif zone == SZONE:
            side = state.sides[card.controller]
            side.szone[side.szone.index(card.id)] = None
        else:
            state.sides[card.controller].fzone = None
        card.leave_field()
        if card.last_controller != card.owner:     # CTRL-01: its trigger is the taker's, once
            (state.taken_later if state.chain or state.resolving else state.taken_next).append(card.id)
    elif zone == HAND:
        state.sides[card.controller].hand.remove(card.id)
    elif zone == DECK:
        state.sides[card.owner].deck.remove(card.id)
    elif zone == GY:
        state.sides[card.owner].gy.remove(card.id)
    elif zone == OVERLAY:
        if card.id in state.shed:                  # its monster's group is still moving (with_next)
            state.shed.remove(card.id)
        elif card.host is not None:
            state.cards[card.host].materials.remove(card.id)
        card.host = None
    elif zone == BANISHED:
        state.sides[card.owner].banished.remove(card.id)
    elif zone == EXTRA:
        state.sides[card.owner].extra.remove(card.id)


def bury(state: DuelState) -> None:
    """NIS-05: the materials of the Xyz monsters an event took off the field go to their owners'
    GYs, after the monsters themselves: EDOPro moves the cards first, then the materials they
    lose, in their order (ZONE-13: the GY's order is part of the board)."""
    for material in state.shed:
        mat = state.cards[material]
        mat.zone, mat.host, mat.position = GY, None, None
        state.sides[mat.owner].gy.append(material)
    state.shed.clear()


def put(state: DuelState, card: Card, zone: str, controller: int, index: int | None = None,
        position: str | None = None) -> None:
    """Place a card that ``take`` has just removed. Piles go to their owner (CTRL-03)."""
    card.zone = zone
    card.position = position
    if zone in ON_FIELD:
        card.controller = controller
        card.arrived_turn = state.turn
        side = state.sides[controller]
        if zone == MZONE:
            if index is not None and index >= 5:
                state.emz[state.emz_slot(controller, index)] = card.id
            else:
                side.mzone[index] = card.id
        elif zone == SZONE:
            side.szone[index] = card.id
        else:
            side.fzone = card.id
    elif zone == HAND:                             # a hand is a player's, whoever owns the card
        card.controller = controller
        state.sides[controller].hand.append(card.id)
    else:
        card.controller = card.owner
        side = state.sides[card.owner]
        if zone == DECK:
            side.deck.insert(0 if index is None else min(index, len(side.deck)), card.id)
        elif zone == GY:
            side.gy.append(card.id)
        elif zone == BANISHED:
            side.banished.append(card.id)
        elif zone == EXTRA:
            side.extra.append(card.id)


def vanish(state: DuelState, card: Card) -> None:
    """A token leaving the field ceases to exist (TOKEN-02)."""
    take(state, card)
    card.zone = "gone"
    card.position = None
    del state.cards[card.id]


def send_from_field(state: DuelState, card: Card, zone: str = GY, position: str | None = None) -> None:
    """Move a card off the field by the rules: tokens vanish (TOKEN-02), Pendulum monsters bound
    for the GY go face-up to the Extra Deck instead (PEND-05), materials stay until moved."""
    if card.is_token:
        vanish(state, card)
        return
    if zone == GY and card.facts.is_pendulum and card.zone in ON_FIELD:
        zone, position = EXTRA, FACEUP
    take(state, card)
    put(state, card, zone, card.owner, None, position)
