"""Position changes and Flip Summons: whether a change was the player's (an idle command's
answer) or an effect's, which the stream does not say."""
from __future__ import annotations

from ..events import FACEUP, MZONE, SET, Cite, FlipSummoned, PositionChanged, SetCardsShuffled
from .constants import (LOCATION_HAND, LOCATION_MZONE, LOCATION_SZONE, MSG_CHAINED, MSG_CHAINING, MSG_CHAIN_END,
    MSG_CHAIN_SOLVED, MSG_DAMAGE_STEP_END, MSG_DAMAGE_STEP_START, MSG_DRAW, MSG_FLIPSUMMONED, MSG_FLIPSUMMONING,
    MSG_NEW_PHASE, MSG_POS_CHANGE, MSG_SHUFFLE_EXTRA, MSG_SHUFFLE_HAND, MSG_SHUFFLE_SET_CARD, MSG_SPSUMMONED,
    MSG_SUMMONED, MSG_SWAP_GRAVE_DECK, MSG_UPDATE_CARD, MSG_UPDATE_DATA, POS_FACEDOWN, POS_FACEUP)
from .messages import reads
from .moves import our_position


class PositionHandling:
    """The Importer's handlers for positions and summon messages."""

    @reads(MSG_POS_CHANGE)
    def on_pos_change(self, m: dict) -> None:
        at, old, new = m["at"], m["old_pos"], m["new_pos"]
        card = self.field.lookup(at)
        if card is None or old == new:
            return
        if at.location == LOCATION_SZONE:
            if old & POS_FACEDOWN and new & POS_FACEUP:
                _j, nid, nm = self.following()
                if nid == MSG_CHAINING and nm and nm["at"].location == LOCATION_SZONE and nm["at"].sequence == at.sequence:
                    self.chains.pending_flip = (card, self.i)
                    return                        # the activation turns it face-up
                self.flush()
                self.moves.facedown_st.discard(card)
                self.emit(PositionChanged(player=at.controller & 1, card=card, position=FACEUP,
                                          cause=self.effect_cause(at.controller & 1)))
            else:                                 # SPELL-03: only an effect turns it face-down
                self.flush()
                self.moves.facedown_st.add(card)
                self.moves.set_turn[card] = self.turns.turn
                self.emit(PositionChanged(player=at.controller & 1, card=card, position=SET,
                                          cause=self.effect_cause(at.controller & 1)))
            return
        if at.location != LOCATION_MZONE:
            return
        self.flush()
        position = our_position(new, MZONE)
        if (self.battle.attack and card == self.battle.attack[1] and not self.battle.calculated and old & POS_FACEDOWN
                and new & POS_FACEUP and self.chains.solving is None):
            self.moves.flipped.append(card)                # its FLIP effect may follow the battle
            if self.turns.step == "damage":             # POS-04: the rules flip it before damage calculation
                self.emit(PositionChanged(player=at.controller & 1, card=card, position=position))
            return                                # (else damage calculation flips it in our fold)
        if old & POS_FACEDOWN and new & POS_FACEUP:
            self.moves.flipped.append(card)
        player = at.controller & 1
        # POS-07/08: a manual change is the player's answer to an idle command; an effect's
        # change outside a chain (a continuous effect, a summon procedure's "then") is not
        manual = (self.chains.solving is None and self.chains.activation is None and player == self.turns.turn_player
                  and self.turns.phase in ("main1", "main2") and self.answers_idle_command(self.i))
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

    @reads(MSG_SHUFFLE_SET_CARD)
    def on_shuffle_set_card(self, m: dict) -> None:
        """Set cards shuffled among their zones (``Duel.ShuffleSetCard``). The message names
        their old places only (its second list names Xyz monsters' new places, else nothing);
        the server's refresh of the row right after it shows where each passcode went. The
        shuffle is one set_cards_shuffled by the resolving effect, naming every card shuffled,
        moved or not: how many moved is no business of a view that may not follow them."""
        self.flush()
        old = m["old"]
        if not old:
            return
        player, location = old[0].controller & 1, m["location"]
        side = self.field.sides[player]
        row = side.mzone if location == LOCATION_MZONE else side.szone
        seqs = [w.sequence for w in old]
        cards = [row[s] if s < 5 else None for s in seqs]
        slots = self.refresh_after(player, location)
        placed = self.shuffled_places(seqs, cards, slots) if slots is not None and None not in cards else None
        if placed is None:
            self.note(f"MSG_SHUFFLE_SET_CARD: no refresh of player {player}'s row after it shows where its "
                      "cards went; they stay where they were")
            return
        self.emit(SetCardsShuffled(player=player, cards=tuple(placed.values()), zones=tuple(placed),
                                   cause=self.effect_cause(player)))
        for s, card in placed.items():
            row[s] = card

    def shuffled_places(self, seqs: list[int], cards: list[str], slots: list) -> dict[int, str] | None:
        """Which of ``cards`` the engine's refresh shows at each of ``seqs``: by passcode, a card
        staying where it was when it can; None when the refresh does not hold them."""
        want = {s: slots[s][0] if s < len(slots) and slots[s] else None for s in seqs}
        pool = list(cards)
        placed: dict[int, str] = {}
        for s, card in zip(seqs, cards):
            if self.field.code(card) == want[s]:
                placed[s] = card
                pool.remove(card)
        for s in seqs:
            if s in placed:
                continue
            card = next((c for c in pool if self.field.code(c) == want[s]), None)
            if card is None:
                return None
            placed[s] = card
            pool.remove(card)
        return placed

    @reads(MSG_SUMMONED, MSG_SPSUMMONED, MSG_FLIPSUMMONED)
    def on_summoned(self, m: dict) -> None:
        """The summon attempted is over (each Special Summon group has one MSG_SPSUMMONED)."""
        self.summons.summoning.clear()
        self.summons.in_group = False

    @reads(MSG_FLIPSUMMONING)
    def on_flip_summoning(self, m: dict) -> None:
        """A Flip Summon. The server refreshes the card just *before* MSG_FLIPSUMMONING
        (``generic_duel.cpp`` BeforeParsing; the engine turned it face-up before writing the
        message), so the summon begins at that refresh, which already shows it."""
        self.flush()
        at = m["at"]
        card = self.field.lookup(at, m["code"])
        if card is None:
            self.note(f"no card at {at} to Flip Summon")
            return
        self.moves.flipped.append(card)
        self.summons.summoning.add(card)
        self.emit(FlipSummoned(player=at.controller & 1, card=card,
                               cite=Cite(self.cause, "Flip Summoned during the resolution of its effect")
                               if self.cause else None), self.refreshed_before(at))

    def refreshed_before(self, at) -> int | None:
        """The MSG_UPDATE_CARD of ``at`` among the state packets right before this message, if any."""
        j = self.i - 1
        while j > 0 and self.packets[j].id in (MSG_UPDATE_DATA, MSG_UPDATE_CARD):
            p = self.packets[j]
            if p.id == MSG_UPDATE_CARD and tuple(p.payload[:3]) == (at.controller, at.location, at.sequence):
                return j
            j -= 1
        return None


_IDLE_REFRESH = ((0, LOCATION_MZONE), (1, LOCATION_MZONE), (0, LOCATION_SZONE), (1, LOCATION_SZONE),
                 (0, LOCATION_HAND), (1, LOCATION_HAND))
#: How many whole-location refreshes the server writes after a message on its own (AfterParsing).
_OWN_REFRESHES = {MSG_NEW_PHASE: 6, MSG_CHAINED: 6, MSG_CHAIN_END: 8, MSG_SUMMONED: 4, MSG_SPSUMMONED: 4,
                  MSG_FLIPSUMMONED: 4, MSG_CHAIN_SOLVED: 4, MSG_DAMAGE_STEP_START: 2, MSG_DAMAGE_STEP_END: 2,
                  MSG_DRAW: 1, MSG_SHUFFLE_HAND: 1, MSG_SHUFFLE_EXTRA: 1, MSG_SWAP_GRAVE_DECK: 1}
