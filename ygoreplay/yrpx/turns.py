"""The duel's course outside moves, chains and battle: turns and phases, the Deck (draws, shuffles,
the order the engine lists), reveals, LP, counters, coins and dice, hints and the win."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..events import (DECK, EXTRA, FACEDOWN, FACEUP, FZONE, GY, SZONE, CardMoved, CardRevealed, CardsDrawn, Cite,
    CoinTossed, Cost, CountersChanged, DeckShuffled, DieRolled, DuelEnded, LifePointsChanged, Loc, PhaseEntered,
    TurnStarted)
from ..rules.turn import PHASE_AFTER
from .cites import (Effect, credit_gain, effect_named, forced_battle_end, forced_battle_start, given_up_draw_cite,
                    maybe_forced_battle, player_hint, skipped_draw_cite)
from .constants import (HINT_CARD, HINT_OPSELECTED, LOCATION_GRAVE, MSG_ADD_COUNTER, MSG_CONFIRM_CARDS,
    MSG_CONFIRM_DECKTOP, MSG_CONFIRM_EXTRATOP, MSG_DAMAGE, MSG_DECK_TOP, MSG_DRAW, MSG_HINT, MSG_LPUPDATE,
    MSG_NEW_PHASE, MSG_NEW_TURN, MSG_PAY_LPCOST, MSG_PLAYER_HINT, MSG_RECOVER, MSG_REMOVE_COUNTER, MSG_REVERSE_DECK,
    MSG_SHUFFLE_DECK, MSG_SHUFFLE_EXTRA, MSG_SHUFFLE_HAND, MSG_SWAP_GRAVE_DECK, MSG_TOSS_COIN,
    MSG_TOSS_DICE, MSG_UPDATE_CARD, MSG_UPDATE_DATA, MSG_WIN, PHASE_BATTLE_START, PHASE_DRAW, PHASE_END,
    PHASE_MAIN1, PHASE_MAIN2, PHASE_STANDBY, WIN_REASONS)
from .container import Packet, Where
from .messages import card_slots, reads
from .mirror import Cell


@dataclass(slots=True)
class TurnState:
    """The duel's course as our fold will see it: the turn, phase and step written so far, the
    room's settings, LP, the end, the Deck's shuffle epochs, and the evidence a skipped Draw Phase
    is cited by (``cites.skipped_draw_cite``)."""

    turn: int = 0                  # MSG_NEW_TURNs so far (0: the opening hands)
    turn_player: int = 0
    phase: str | None = None       # our phase name; None from MSG_NEW_TURN to the turn's first phase
    step: str | None = None        # the Battle Phase step written last ("start", "battle", "damage")
    normal_drawn: bool = False     # the turn player's normal draw is written: a later draw is an effect's
    draw_given_up: bool = False    # an activation of the turn player's before the draw gave it up (TURN-02)
    draw_count: int = 1            # the room's cards per normal draw
    options: tuple[str, ...] = ()  # duel_started's options (CONF-01): what the fold applies (DMG-03)
    lp: list[int] = field(default_factory=lambda: [8000, 8000])   # as EDOPro counts them (``Expected``)
    lost: bool = False             # a player is at 0 LP: only what may follow a loss is written (WIN-01)
    win: tuple[int | None, str] | None = None    # MSG_WIN's (winner, reason): the run stops
    #: Each ``deck_shuffled`` written, by ``id``, with its epoch's cells (top first): the order
    #: is known only once the epoch is over, so ``finish`` fills it in.
    epoch_cells: dict[int, tuple[DeckShuffled, list[Cell]]] = field(default_factory=dict)
    #: (packet, passcode) of the last HINT_CARD: a card the engine shows behind what follows.
    hint_card: tuple[int, int] | None = None
    #: Every chain link activated, as evidence for a skipped Draw Phase.
    effect_log: list[Effect] = field(default_factory=list)
    #: By player: ``len(effect_log)`` at their last Draw Phase (the links since may have skipped the next).
    draw_mark: list[int] = field(default_factory=lambda: [0, 0])
    #: ``draw_mark`` as it was before the current Draw Phase began (a Draw Phase left undrawn).
    draw_mark_before: list[int] = field(default_factory=lambda: [0, 0])
    #: By player: the client hints on them (description, packet, the link that put it there).
    player_hints: dict[int, list[tuple[int, int, Effect | None]]] = field(default_factory=lambda: {0: [], 1: []})


_PHASES = {PHASE_DRAW: "draw", PHASE_STANDBY: "standby", PHASE_MAIN1: "main1",
           PHASE_BATTLE_START: "battle", PHASE_MAIN2: "main2", PHASE_END: "end"}


class TurnHandling:
    """The Importer's handlers for the turn, the Deck, LP and the duel's end."""

    @reads(MSG_NEW_TURN)
    def on_new_turn(self, m: dict) -> None:
        self.flush()
        self.end_attack(quiet=True)
        self.turns.turn += 1
        self.turns.turn_player = m["player"] & 1
        self.turns.phase = self.turns.step = None
        self.turns.normal_drawn = self.turns.draw_given_up = False
        self.moves.flipped.clear()
        self.moves.flip_uses.clear()
        self.chains.turn_activations.clear()
        self.chains.resolved_turn.clear()
        self.summons.ns_grants = {0: [], 1: []}
        self.summons.in_group = False
        self.battle.forced = None
        self.battle.attack_reset.clear()
        self.emit(TurnStarted(player=self.turns.turn_player, turn=self.turns.turn))

    @reads(MSG_NEW_PHASE)
    def on_new_phase(self, m: dict) -> None:
        phase = _PHASES.get(m["phase"])
        if phase is None or phase == self.turns.phase:
            return
        self.flush()
        if self.turns.phase == "battle":
            self.end_attack(quiet=True)
        cite = None
        if self.battle.forced is not None:
            cite = forced_battle_end(self, phase)
        elif phase == "battle" and phase not in PHASE_AFTER[self.turns.phase]:
            cite = forced_battle_start(self, self.turns.phase)
        elif phase == "battle":
            maybe_forced_battle(self, self.turns.phase)
        elif phase == "draw":
            self.turns.draw_mark_before = list(self.turns.draw_mark)
            self.turns.draw_mark[self.turns.turn_player] = len(self.turns.effect_log)
        elif self.turns.phase is None and self.turns.turn > 0:
            # EDOPro sends no marker for a phase an effect skips ("skip your next Draw Phase"):
            # cite the link that most likely registered the skip (module docstring).
            cite = skipped_draw_cite(self, self.turns.turn_player)
        elif (self.turns.phase == "draw" and not self.turns.normal_drawn and not self.turns.draw_given_up
              and self.turns.turn > 1):
            cite = given_up_draw_cite(self)
        self.turns.phase = phase
        self.turns.step = "start" if phase == "battle" else None
        self.emit(PhaseEntered(player=self.turns.turn_player, phase=phase, cite=cite))

    # -- draws and the deck --------------------------------------------------------------------

    @reads(MSG_DRAW)
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
        cite = None
        if self.turns.turn == 0:
            cause = None
        elif (self.turns.phase == "draw" and player == self.turns.turn_player and not self.turns.normal_drawn
              and self.chains.solving is None and self.chains.activation is None
              and (count == self.turns.draw_count or 0 < count == len(m["codes"]))):
            cause = None
            self.turns.normal_drawn = True
            if count != self.turns.draw_count:
                # the normal draw, of another size: a lasting effect of a card that resolved before
                # (Card of Safe Return's kin: "draw 2 cards in your Draw Phase instead of 1")
                by = self.effect_cause(player)
                if by != "effect":
                    cite = Cite(by, f"the Draw Phase draw is {count} card(s) by this card's lasting effect (inferred)")
        else:
            cause = self.effect_cause(player)
        if count:
            self.emit(CardsDrawn(player=player, count=count, cards=tuple(ids), cause=cause, cite=cite))

    def on_deck_refresh(self, p: Packet) -> None:
        """The engine lists a whole Deck (at the start and after every chain): every card not yet
        seen in this shuffle epoch is pinned where the engine has it, so the order the epoch's
        ``deck_shuffled`` records is the engine's, not just one that makes the draws right.
        Only a listing of the Deck as the mirror has it (same size, seen cards where they are)
        is used: a packet may already show a later step of the engine."""
        player = p.payload[0] & 1
        deck = self.field.sides[player].deck
        unseen = [cell for cell in deck if not cell.seen]
        if not unseen:
            return                                # nothing left to pin in this epoch
        slots = self.r.slots.get(p.payload)
        if slots is None:
            slots = self.r.slots[p.payload] = card_slots(p)[3]
        if len(slots) != len(deck):
            return
        code_of = self.field.code_of
        codes = [s[0] if s is not None else 0 for s in slots]
        need: dict[int, int] = {}
        for cell, code in zip(deck, codes):
            if not cell.seen:
                need[code] = need.get(code, 0) + 1
            elif code_of.get(cell.id, 0) != code:
                return                            # a seen card elsewhere: a later step of the engine
        pool: dict[int, int] = {}
        for cell in unseen:
            code = code_of.get(cell.id, 0)
            pool[code] = pool.get(code, 0) + 1
        if any(pool.get(code, 0) != n for code, n in need.items()):
            return                                # not the cards the mirror holds unseen
        self.field.see_all(player, codes)

    @reads(MSG_SHUFFLE_DECK)
    def on_shuffle_deck(self, m: dict) -> None:
        self.flush()
        self.new_epoch(m["player"] & 1)

    @reads(MSG_SHUFFLE_HAND)
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

    @reads(MSG_SHUFFLE_EXTRA)
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

    @reads(MSG_DECK_TOP)
    def on_deck_top(self, m: dict) -> None:
        player = m["player"] & 1
        deck = self.field.sides[player].deck
        k = len(deck) - 1 - m["sequence"]
        if 0 <= k < len(deck) and m["code"]:
            self.field.see(player, deck[k], m["code"])

    @reads(MSG_CONFIRM_CARDS, MSG_CONFIRM_EXTRATOP)
    def on_confirm(self, m: dict) -> None:
        """Cards shown (MSG_CONFIRM_EXTRATOP: the top face-down cards of an Extra Deck, each
        named by its place as in MSG_CONFIRM_CARDS)."""
        ids = []
        for code, w in m["cards"]:
            card = self.field.lookup(w, code)
            if card is not None:
                ids.append(card)
        if ids:
            self.emit(CardRevealed(player=m["player"] & 1, cards=tuple(ids), cause=self.cause))

    @reads(MSG_CONFIRM_DECKTOP)
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

    @reads(MSG_REVERSE_DECK)
    def on_reverse_deck(self, m: dict) -> None:
        """Both Decks turned over (``field::reverse_deck``: the engine reverses each list; the server
        lists both Decks after it): each is a deck_shuffled with the reversed order. The cells keep
        what is known of them (a reversal is no shuffle). That the Deck is now face-up is not
        expressible: a note says so."""
        self.flush()
        for player in (0, 1):
            deck = self.field.sides[player].deck
            if not deck:
                continue
            deck.reverse()
            event = DeckShuffled(player=player, order=())       # the order is known at the end
            self.turns.epoch_cells[id(event)] = (event, list(reversed(deck)))      # top first
            self.emit(event)
        self.note("MSG_REVERSE_DECK: both Decks turned over; our Decks take the reversed order "
                  "(deck_shuffled), but a Deck in our vocabulary has no face-up side")

    @reads(MSG_SWAP_GRAVE_DECK)
    def on_swap_grave_deck(self, m: dict) -> None:
        """A player's Graveyard and Deck swapped (``field::swap_deck_and_grave``): the Graveyard,
        in its order, becomes the Deck (bottom first), except the Extra Deck monsters its bitmap
        marks, which return to the Extra Deck; the Deck, bottom first, becomes the Graveyard. The
        server's Graveyard refresh right after names the Deck's cards (pinned first). Each card
        is a card_moved by the resolving effect; the engine shuffles the new Deck next."""
        self.flush()
        player = m["player"] & 1
        side = self.field.sides[player]
        slots = self.refresh_after(player, LOCATION_GRAVE)
        if slots is not None and len(slots) == len(side.deck):
            for cell, slot in zip(side.deck, slots):
                if slot is not None:
                    self.field.see(player, cell, slot[0])
        bits = m.get("extra_bits", b"")
        grave, old_deck = list(side.grave), [cell.id for cell in side.deck]
        to_extra = [card for k, card in enumerate(grave)
                    if (bits[k // 8] >> (k % 8) & 1 if k // 8 < len(bits) else self.fx(card).is_extra_deck)]
        cause = self.effect_cause(player)
        for card in grave:
            to = Loc(player, EXTRA) if card in to_extra else Loc(player, DECK, 0)
            self.emit(CardMoved(card=card, to=to, reason="returned", position=FACEDOWN if card in to_extra else None,
                                cause=cause))
        for card in old_deck:
            self.emit(CardMoved(card=card, to=Loc(player, GY), reason="sent", cause=cause))
        side.grave[:] = old_deck
        side.deck[:] = [Cell(card, True) for card in grave if card not in to_extra]
        at = m.get("extra_down", len(side.extra))
        side.extra[at:at] = to_extra

    def refresh_after(self, player: int, location: int) -> list | None:
        """The slots of the server's refresh of ``player``'s whole ``location`` among the state
        packets right after this message, if there is one."""
        j = self.i + 1
        while j < len(self.packets) and self.packets[j].id in (MSG_UPDATE_DATA, MSG_UPDATE_CARD):
            p = self.packets[j]
            if p.id == MSG_UPDATE_DATA and len(p.payload) > 2 and (p.payload[0], p.payload[1]) == (player, location):
                return card_slots(p)[3]
            j += 1
        return None

    # -- life points ---------------------------------------------------------------------------

    def change_lp(self, player: int, amount: int, reason: str) -> None:
        lp = self.turns.lp
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
            self.turns.lost = True

    @reads(MSG_DAMAGE)
    def on_damage(self, m: dict) -> None:
        self.flush()
        battle = self.i in self.battle.battle_damage_at
        self.change_lp(m["player"] & 1, m["amount"], "battle_damage" if battle else "effect_damage")

    @reads(MSG_RECOVER)
    def on_recover(self, m: dict) -> None:
        self.flush()
        self.change_lp(m["player"] & 1, m["amount"], "gain")

    @reads(MSG_PAY_LPCOST)
    def on_pay_lpcost(self, m: dict) -> None:
        player, amount = m["player"] & 1, m["amount"]
        if self.chains.activation is not None and player == self.chains.activation.player and amount:
            self.chains.activation.costs.append(Cost(lp=amount))
            self.turns.lp[player] = max(0, self.turns.lp[player] - amount)
            if self.turns.lp[player] == 0:
                self.turns.lost = True
            return
        self.flush()
        self.change_lp(player, amount, "cost")

    @reads(MSG_LPUPDATE)
    def on_lp_update(self, m: dict) -> None:
        self.flush()
        self.change_lp(m["player"] & 1, m["amount"], "set")

    # -- counters, coins, dice, hints, the end -------------------------------------------------

    @reads(MSG_ADD_COUNTER, MSG_REMOVE_COUNTER)
    def on_counter(self, m: dict) -> None:
        self.flush()
        at = m["at"]
        card = self.field.lookup(Where(at.controller, at.location, at.sequence, 0))
        if card is None:
            self.note(f"no card at {at} for a counter")
            return
        kind = m["counter"]
        have = self.moves.counters.setdefault(card, {})
        now = have.get(kind, 0) + (m["count"] if self.packets[self.i].id == MSG_ADD_COUNTER else -m["count"])
        have[kind] = max(0, now)
        event = CountersChanged(player=at.controller & 1, card=card, counter=f"{kind:#x}", count=have[kind],
                                cause=self.cause)
        if self.chains.activation is not None and self.packets[self.i].id != MSG_ADD_COUNTER:
            self.chains.activation.counters_paid.append(event)      # a cost of the activation
            return
        self.emit(event)

    @reads(MSG_TOSS_COIN)
    def on_coin(self, m: dict) -> None:
        self.flush()
        self.emit(CoinTossed(player=m["player"] & 1, results=tuple(bool(r) for r in m["results"]), cause=self.cause))

    @reads(MSG_TOSS_DICE)
    def on_dice(self, m: dict) -> None:
        self.flush()
        self.emit(DieRolled(player=m["player"] & 1, results=tuple(m["results"]), cause=self.cause))

    @reads(MSG_HINT)
    def on_hint(self, m: dict) -> None:
        if m["type"] == HINT_CARD:
            self.turns.hint_card = (self.i, m["data"])
        elif m["type"] == HINT_OPSELECTED:
            effect_named(self, m["data"])

    @reads(MSG_PLAYER_HINT)
    def on_player_hint(self, m: dict) -> None:
        player_hint(self, m)

    @reads(MSG_WIN)
    def on_win(self, m: dict) -> None:
        self.flush()
        player, code = m["player"], m["reason"]
        winner = player if player in (0, 1) else None
        reason = WIN_REASONS.get(code, "effect")
        if winner is None:
            # WIN-04: a draw by the rules (both at 0 LP) has a basic reason; a code of 0x10 or more
            # is a card's own condition (WIN_REASON_LAST_TURN 0x16: Last Turn's End Phase check)
            reason = "draw" if code in WIN_REASONS else "effect"
        if self.chains.activation is not None:
            act, self.chains.activation = self.chains.activation, None
            # made unless a player was at 0 LP before it began (LP paid as a card on the field
            # asks); lost by its own LP cost or by damage while it was made (after its costs), or
            # the duel ended otherwise (the opponent decked out at the Draw Phase draw after it):
            # the engine announced it, it was made
            if any(cost.lp for cost in act.costs) or reason != "lp" or not act.after_loss:
                self.emit_activation(act)
            else:
                if act.effect_type is None and (act.zone is not None or act.field_zone):   # but the card is placed
                    to = Loc(act.player, FZONE, 0) if act.field_zone else Loc(act.player, SZONE, act.zone)
                    self.emit(CardMoved(card=act.card, to=to, reason="sent", position=FACEUP), act.begins)
                self.events.extend(e for e, _ in act.after)
                self.sources.extend(s for _, s in act.after)
        if reason == "effect":
            self.note(f"MSG_WIN reason {code:#x}: a card's effect decides the duel "
                      f"({'a draw' if winner is None else f'player {winner} wins'}); the stream names no card")
        if reason == "deck_out" and winner is not None:
            loser = 1 - winner
            if not self.field.sides[loser].deck and not self.decked_out(loser):
                self.emit(CardsDrawn(player=loser, count=1, cause=self.effect_cause(loser)))
        self.turns.win = (winner, reason)
        self.turns.lost = False
        self.emit(DuelEnded(winner=winner, reason=reason))

    def decked_out(self, player: int) -> bool:
        for ev in reversed(self.events):
            if isinstance(ev, CardsDrawn) and ev.player == player:
                return ev.count > len(ev.cards)
        return False
