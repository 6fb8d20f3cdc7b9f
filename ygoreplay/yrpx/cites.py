"""Cite inference (GEN-01): where EDOPro did something the basic rules forbid, the event cites the
card the stream shows doing it.

The stream names no card texts, so the cite is the card the stream shows behind the exception:
the chain link resolving, the card a HINT_CARD names, the link that resolved with no other
outcome just before (e.g. "Normal Summon 1 monster"), a card that targeted the monster this turn
(an ability granted), or the card's own text (a summon procedure, "can attack directly",
piercing damage, a Normal Spell that stays on the field after resolving). A Battle Phase out of
turn order is a forced attack (``ForceAttack``): it and the return to the phase it interrupted
cite the link that resolved just before it.

**A skipped Draw Phase (TURN-01).** "Skip your next Draw Phase" is an effect registered on the
player (EFFECT_SKIP_DP) long before the skip; at the skip EDOPro sends only MSG_NEW_TURN then
MSG_NEW_PHASE for the Standby Phase. So the ``phase_entered`` standby event cites the chain link
that, judged by what the stream says about it, most likely registered the skip. Candidates are
the links that resolved (not negated) since that player's last Draw Phase that was not skipped,
plus any link whose client hint is still on the player. What the stream can say about a link:

- MSG_PLAYER_HINT ``PHINT_DESC_ADD`` (6) on a player, sent while the link resolved: the core
  writes it when an effect with EFFECT_FLAG_CLIENT_HINT is registered on the player, and
  ``PHINT_DESC_REMOVE`` (7) when that effect goes away. The description names the card and the
  effect (``aux.Stringid(code, n)``).
- MSG_HINT ``HINT_OPSELECTED`` (4): a script telling the opponent which of its card's effects was
  chosen; its data is the effect's description. EDOPro descriptions are u64 ``code << 20 | n``
  (MSG_CHAINING carries the same); YGOPro's u32 ``code << 4 | n`` is recognised too. The server
  does not record HINT_EFFECT (5) or the select hints (1-3).
- What the link did while it resolved: cards its player drew (MSG_DRAW) or moved from their Deck
  to their hand (MSG_MOVE), and whether one of those was the top card taken without a draw
  (Dr. Frankenderp's "add the top card of your Deck to your hand"); cards its player discarded
  from the hand (MSG_MOVE with REASON_DISCARD) in the same resolution, so that what counts is
  the cards it gained on balance (Graceful Charity's "draw 3, then discard 2" gains 1, Card
  Destruction's discard and draw none; Reckless Greed's "draw 2" gains 2), and whether it gave
  the opponent cards too (Morphing Jar: both players draw 5, no advantage to pay for).

The choice, strongest evidence first (ties for 1-4: a link that gave only its own player cards,
then more cards gained, then one a skip before this was cited to (Reckless Greed skips two Draw
Phases: a Pot of Greed in between does not take the second), then the later link):

1. a client hint the link put on the skipping player, still in force at the skip, from an
   opponent's link or one that gave its player cards: the stream names the lasting effect. Cited
   without "inferred";
2. an effect HINT_OPSELECTED named that gave its player cards from the Deck (Number 60: Dugares
   the Timeless, "draw 2 … skip your next Draw Phase");
3. an effect that took the top card of its player's Deck into the hand without a draw: the card
   the next Draw Phase would have drawn, taken early;
4. an effect that gave its player more cards from the Deck than it made them discard (a skipped
   Draw Phase is the usual price of extra cards: Reckless Greed, Dugares, Frankenderp);
5. any other client hint still on the player;
6. the most recent effect that player resolved;
7. else the most recent effect their opponent resolved, one that gave them no cards first (Fenrir:
   "your opponent skips their next Draw Phase", no client hint).

A link whose own client hint on the player was removed before the skip comes after all of these:
its lasting effect on the player was over (Pot of Extravagance's "no more draws this turn").
Levels 2-7 are inferences, not proof: the cite says "inferred", and an import note names the
evidence and the packet. With no candidate at all there is no cite, only a note. No passcode is
looked up: the card names above are what the real corpus shows.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..events import Cite, LifePointsChanged
from ..rules.summon import tributes_needed
from .constants import LOCATION_EXTRA, LOCATION_GRAVE, LOCATION_HAND, LOCATION_MZONE, LOCATION_OVERLAY, \
    LOCATION_SZONE, MSG_CHAIN_END, MSG_MOVE, MSG_UPDATE_CARD, MSG_UPDATE_DATA, PHINT_DESC_ADD, PHINT_DESC_REMOVE, \
    REASON_RULE, TYPE_SPSUMMON, TYPE_TUNER
from .container import Packet, Where
from .messages import stringid, stringid_index

if TYPE_CHECKING:
    from .mapping import Importer


@dataclass(frozen=True)
class ForcedBattle:
    """A Battle Phase an effect forced out of turn order (``Duel.ForceAttack``: Last Turn): the
    engine's ForcedBattle process enters it from whatever phase the chain resolved in, then
    returns to that phase and resets every monster's attack count."""

    card: str                      # the link that resolved just before: the effect forcing it
    back: str                      # the phase it interrupted, which play returns to
    attacked: frozenset[str]       # monsters that had attacked this turn before it
    #: Entered from Main Phase 1, as a Battle Phase may be: forced only if play goes back there.
    maybe: bool = False


@dataclass(eq=False)
class Effect:
    """One chain link as evidence for a later cite (a skipped Draw Phase): what the stream said."""

    index: int                     # packet of its MSG_CHAINING
    card: str
    code: int
    player: int
    desc: int                      # MSG_CHAINING's description
    named: tuple[int, int] | None = None     # (description, packet) of a HINT_OPSELECTED naming it
    resolved: bool = False
    gained: int = 0                # cards its player drew or moved from their Deck to their hand
    gained_at: int = -1            # packet of the first of them
    spent: int = 0                 # cards its player discarded from the hand while it resolved
    both: bool = False             # it gave the opponent cards from their Deck too
    skipped: bool = False          # a Draw Phase skip was already cited to it
    top_at: int | None = None      # packet where it took the Deck's top card into the hand, not by a draw
    hints: list[tuple[int, int, int]] = field(default_factory=list)    # (player, description, packet) added
    hint_ended: set[int] = field(default_factory=set)                   # players whose hint from it was removed


def skipped_draw_cite(imp: Importer, player: int, since: list[int] | None = None) -> Cite | None:
    """The cite for a Draw Phase of ``player`` that EDOPro skipped, and a note saying why
    (``since``: where each player's last Draw Phase began in the effect log, if not the marks)."""
    in_force = {id(e): (desc, at) for desc, at, e in imp.turns.player_hints[player] if e is not None and e.resolved}
    pool = [e for e in imp.turns.effect_log[(since or imp.turns.draw_mark)[player]:] if e.resolved]
    pool += [e for _d, _a, e in imp.turns.player_hints[player]
             if e is not None and e.resolved and all(e is not f for f in pool)]
    best: tuple[tuple[int, tuple[bool, int, bool], int], Effect] | None = None
    for e in pool:
        own = e.player == player
        gained = e.gained if own else 0
        net = gained - e.spent if own else 0      # on balance: a discard pays for a draw
        ended = player in e.hint_ended and id(e) not in in_force
        if id(e) in in_force and (gained or not own):
            level = 6
        elif ended:                 # its lasting effect on the player is over
            if not own:
                continue
            level = 0
        elif own and e.named is not None and gained:
            level = 5
        elif own and e.top_at is not None:
            level = 4
        elif own and net > 0:
            level = 3
        elif id(e) in in_force:
            level = 2
        elif own:
            level = 1
        else:                       # an opponent's link, naming nothing (Fenrir: "your opponent skips
            level = -1              # their next Draw Phase"): the weakest evidence, one that gave them none first
        key = (level, (not e.both, net, e.skipped) if level > 2 else (level < 0 and not e.gained, 0, False), e.index)
        if best is None or key > best[0]:
            best = (key, e)
    where = f"turn {imp.turns.turn} skips its Draw Phase"
    if best is None:
        imp.note(f"{where}: no effect of player {player} resolved since their last Draw Phase; no cite")
        return None
    (level, _, _), e = best
    gained = e.gained
    e.skipped = True
    name = imp.facts.card_name(e.code)
    if level == 6:
        desc, at = in_force[id(e)]
        effect = f"skip the Draw Phase: its lasting effect {stringid(desc, e.code)} is on player {player}"
        why = f"the client hint {stringid(desc, e.code)} it put on player {player} (MSG_PLAYER_HINT, packet {at})"
    elif level == 5:
        desc, at = e.named
        effect = f"skip the Draw Phase (inferred): effect {stringid(desc, e.code)}, which gave {gained} card(s)"
        why = (f"HINT_OPSELECTED named its effect {stringid(desc, e.code)} (packet {at}) and it gave player "
               f"{player} {gained} card(s) from the Deck (packet {e.gained_at}); inferred")
    elif level == 4:
        effect = "skip the Draw Phase (inferred): it took the top card of the Deck into the hand"
        why = (f"it took the top card of player {player}'s Deck into the hand without a draw (packet {e.top_at}); "
               "inferred")
    elif level == 3:
        discarded = f" and discarded {e.spent}" if e.spent else ""
        effect = f"skip the Draw Phase (inferred): it gave {e.gained} card(s) from the Deck{discarded}"
        why = (f"it gave player {player} {e.gained} card(s) from the Deck (packet {e.gained_at}){discarded}; "
               "inferred")
    elif level == 2:
        desc, at = in_force[id(e)]
        effect = f"skip the Draw Phase (inferred): its lasting effect {stringid(desc, e.code)} is on player {player}"
        why = f"its client hint {stringid(desc, e.code)} is on player {player} (packet {at}); inferred"
    elif level < 0:
        effect = "skip the Draw Phase (inferred): the last effect of the opponent that resolved"
        why = (f"player {player} resolved no effect and has no client hint: it is the last effect their opponent "
               "resolved since; inferred")
    else:
        effect = "skip the Draw Phase (inferred): the last effect its player resolved"
        why = f"the stream names no effect: it is the last effect player {player} resolved; inferred"
        if level == 0:
            why += " (its client hint on the player had already been removed)"
    imp.note(f"{where}: cited {e.card} {name} (chain link at packet {e.index}) by {why}")
    return Cite(e.card, effect)


def special_summon_cite(imp: Importer, card: str, old: Where, new: Where, method: str, cause: str | None,
                        materials: list[str]) -> Cite | None:
    """The effect behind a Special Summon the basic rules do not allow, where the stream shows it."""
    facts = imp.fx(card)
    by = cause or card
    if not facts.is_monster:
        return Cite(by, "Special Summoned as a monster (a Trap Monster) by this card's effect")
    if (old.controller & 1) != (new.controller & 1) and old.location == LOCATION_HAND:
        return Cite(by, "Special Summoned to the opponent's field by this card's own procedure")
    conditioned = facts.is_extra_deck or facts.is_ritual or bool(facts.type & TYPE_SPSUMMON)
    if method == "effect" and conditioned and old.location != LOCATION_EXTRA and card not in imp.summons.proper:
        return Cite(by, "Special Summoned ignoring its summoning conditions")
    if method == "inherent" and not imp.open_game_state(new.controller & 1):
        return Cite(card, "Special Summoned by its own procedure outside an open game state")
    froms = [imp.summons.material_from.get(m, (None, None)) for m in materials]
    places = {w.location for w, _ in froms if w is not None}
    player = new.controller & 1
    if method in ("fusion", "ritual") and places - {LOCATION_HAND, LOCATION_MZONE}:
        return Cite(by, f"takes {method.capitalize()} materials from elsewhere than the hand or field")
    if method == "fusion" and len(materials) < 2:
        return Cite(by, "Fusion Summons with a single material as this card's effect allows")
    if any(w is not None and w.location == LOCATION_MZONE and (w.controller & 1) != player for w, _ in froms):
        return Cite(by, "uses the opponent's monster as material")
    if method == "ritual":
        total = sum(imp.current_level(m) for m in materials)
        if total < (facts.printed_level or 0):
            return Cite(by, "Ritual Tributes whose Levels count differently by this card's effect")
    if method == "synchro":
        changed = [m for m, (_w, q) in zip(materials, froms)
                   if q is not None and q.type is not None and bool(q.type & TYPE_TUNER) != imp.fx(m).is_tuner]
        if changed:
            return Cite(granted_to(imp, changed[0]), "a material is treated as a Tuner (or not) by this card's effect")
        tuners = sum(1 for m in materials if imp.fx(m).is_tuner)
        total = sum(imp.current_level(m) for m in materials)
        if tuners != 1 or total != (facts.printed_level or 0) or any(imp.fx(m).printed_level is None for m in materials):
            return Cite(by, "Synchro materials as its own text (or the effect summoning it) allows")
    if method == "xyz" and cause is None:
        odd = (len(materials) < 2 or LOCATION_OVERLAY & sum(w.location for w, _ in froms if w is not None)
               or any(imp.current_level(m) != facts.rank for m in materials))
        if odd:
            return Cite(card, "Xyz Summoned by its own procedure")
    if method == "link" and not materials:
        return Cite(by, "Link Summoned with materials that leave the duel")
    return None


def normal_summon_cite(imp: Importer, card: str, player: int, tributes: int, level: int | None) -> Cite | None:
    """The effect behind a Normal Summon the basic rules do not allow (SUM-01, SUM-04)."""
    if imp.cause is not None:
        imp.summons.ns_by_effect[player] = (imp.turns.turn, imp.cause)
        return Cite(imp.cause, "summoned during the resolution of its effect")
    by = summoned_by_link(imp)
    if by is not None:
        imp.summons.ns_by_effect[player] = (imp.turns.turn, by)
        return Cite(by, "Normal Summoned or Set by this card's effect, right after it resolved")
    extra = imp.summons.ns_turn[player] == imp.turns.turn
    turn, effect = imp.summons.ns_by_effect.get(player, (None, None))
    if not extra and turn == imp.turns.turn and effect is not None:
        # our fold counts the effect's summon as the turn's; the player's own is still to come
        imp.summons.ns_turn[player] = imp.turns.turn
        return Cite(effect, "its effect's Normal Summon did not use the turn's Normal Summon or Set")
    imp.summons.ns_turn[player] = imp.turns.turn
    grant = summon_grant(imp, player)
    cite = None
    if extra:
        hinted = grant if grant is not None and imp.summons.grant_was_hint else None
        granted = hinted or (imp.summons.ns_grants[player].pop() if imp.summons.ns_grants[player] else None) or grant
        if granted is not None:
            cite = Cite(granted, "an additional Normal Summon")
        else:
            imp.note(f"a second Normal Summon by player {player} in turn {imp.turns.turn}, and the stream names no card")
    elif grant is not None:
        imp.summons.ns_grants[player].append(grant)      # the exception may belong to a later summon
    level = level or 0
    if cite is None and tributes != tributes_needed(level):
        cite = Cite(grant or card, f"Normal Summoned with {tributes} Tribute(s) by a summon procedure")
    return cite

def summoned_by_link(imp: Importer) -> str | None:
    """The link whose effect made this Normal Summon or Set (``Duel.Summon``/``SummonOrSet``:
    Ultimate Offering). The engine processes such a summon once the link has resolved: right
    after its MSG_CHAIN_SOLVED, or after MSG_CHAIN_END when it was the chain's last link, with
    only the server's refreshes in between; outside a Main Phase, also the chain's resolved Spells
    and Traps leaving for the GY (Arrivalrivals, Quick Summon: "immediately after this effect
    resolves, Normal Summon 1 monster", in the Battle or Draw Phase). The player's own summon at
    the idle prompt after a chain has the prompt's six refreshes before it as well
    (``answers_idle_command``): not cited."""
    if imp.chains.solved_at is None:
        return None
    at, card = imp.chains.solved_at
    start = imp.summons.began_at if imp.summons.began_at is not None else imp.i
    # outside a Main Phase no idle command could have asked for it: the chain's resolved Spells and
    # Traps may go to the GY in between
    outside_main = imp.turns.phase not in ("main1", "main2")
    if at >= start or any(p.id not in _BETWEEN_SOLVED_AND_SUMMON
                          and not (outside_main and _sent_after_resolving(p)) for p in imp.packets[at + 1:start]):
        return None
    return None if imp.answers_idle_command(start) else card


_BETWEEN_SOLVED_AND_SUMMON = frozenset((MSG_UPDATE_DATA, MSG_UPDATE_CARD, MSG_CHAIN_END))


def _sent_after_resolving(p: Packet) -> bool:
    """MSG_MOVE from the Spell & Trap Zone to the GY by rule (REASON_RULE): a resolved Spell or
    Trap leaving once its chain is over."""
    return (p.id == MSG_MOVE and len(p.payload) >= 28 and p.payload[5] == LOCATION_SZONE
            and p.payload[15] == LOCATION_GRAVE and bool(int.from_bytes(p.payload[24:28], "little") & REASON_RULE))


def summon_grant(imp: Importer, player: int) -> str | None:
    """A card the stream names as making this summon possible: a HINT_CARD just before it, or
    the player's chain link that resolved with no visible outcome right before it (LP paid
    since, as a card on the field may make a summon cost, does not count as an outcome)."""
    imp.summons.grant_was_hint = False
    if imp.turns.hint_card is not None and imp.turns.hint_card[0] > imp.prev_sig:
        holder = imp.field.card_with_code(imp.turns.hint_card[1], player)
        imp.turns.hint_card = None
        if holder is not None:
            imp.summons.grant_was_hint = True
            return holder
    end, quiet = imp.chains.after_chain
    if 0 <= end <= len(imp.events) and all(type(e) is LifePointsChanged for e in imp.events[end:]):
        mine = [c for c, p in quiet if p == player]
        if mine:
            return mine[-1]
    return None


def granted_to(imp: Importer, card: str) -> str:
    """The card behind an ability of ``card``: the latest activation this turn that targeted it
    (an effect granting the ability), else the card itself (its own text)."""
    for source, targets in reversed(imp.chains.turn_activations):
        if card in targets and source != card:
            return source
    return card


def effect_named(imp: Importer, desc: int) -> None:
    """HINT_OPSELECTED: a script telling the opponent which of its card's effects was chosen; the
    data is that effect's description. It belongs to the link being activated or resolving, else
    to the latest link of the card the description names."""
    effect = current_effect(imp)
    if effect is None or stringid_index(desc, effect.code) is None:
        effect = next((e for e in reversed(imp.turns.effect_log) if stringid_index(desc, e.code) is not None), None)
    if effect is not None:
        effect.named = (desc, imp.i)


def given_up_draw_cite(imp: Importer) -> Cite | None:
    """The cite for a Draw Phase the turn player leaves without the normal draw (TURN-02): an
    effect of theirs resolved in it before the draw ("before you draw: you can give up your normal
    draw this turn, and if you do, add this card to your hand": Magical Blast from the GY). The
    latest such link; none resolved, a lasting effect's, judged as for a skipped Draw Phase
    (``skipped_draw_cite``: a client hint on the player, the effects resolved since their last
    Draw Phase)."""
    player = imp.turns.turn_player
    mine = [e for e in imp.turns.effect_log[imp.turns.draw_mark[player]:] if e.resolved and e.player == player]
    if not mine:
        # a lasting effect left no draw to make: the evidence a skipped Draw Phase is cited by
        return skipped_draw_cite(imp, player, since=imp.turns.draw_mark_before)
    e = mine[-1]
    imp.note(f"turn {imp.turns.turn}: player {player} leaves the Draw Phase without the normal draw; cited {e.card}, "
             f"whose effect resolved in it (packet {e.index}); inferred")
    return Cite(e.card, "gives up the normal draw (inferred): its effect resolved in the Draw Phase before the draw")


def player_hint(imp: Importer, m: dict) -> None:
    """PHINT_DESC_ADD/REMOVE: an effect with a client hint registered on, or removed from, a player."""
    player, desc = m["player"] & 1, m["value"]
    hints = imp.turns.player_hints[player]
    if m["type"] == PHINT_DESC_ADD:
        effect = current_effect(imp)
        hints.append((desc, imp.i, effect))
        if effect is not None:
            effect.hints.append((player, desc, imp.i))
    elif m["type"] == PHINT_DESC_REMOVE:
        for k, (d, _at, effect) in enumerate(hints):
            if d == desc:
                del hints[k]
                if effect is not None:
                    effect.hint_ended.add(player)
                break

def current_effect(imp: Importer) -> Effect | None:
    """The chain link being activated (costs) or, else, resolving."""
    if imp.chains.activation is not None:
        return imp.chains.activation.effect
    if imp.chains.solving is not None and 0 < imp.chains.solving <= len(imp.chains.chain):
        return imp.chains.chain[imp.chains.solving - 1].effect
    return None

def credit_gain(imp: Importer, player: int, count: int, top: bool = False) -> None:
    """Cards a resolving link gave its own player from their Deck (a draw, or a move to the hand),
    or the opponent (``both``: the link is no advantage of its own player's)."""
    if not count or imp.chains.solving is None or not 0 < imp.chains.solving <= len(imp.chains.chain):
        return
    effect = imp.chains.chain[imp.chains.solving - 1].effect
    if effect is None:
        return
    if effect.player != player:
        effect.both = True
        return
    if not effect.gained:
        effect.gained_at = imp.i
    effect.gained += count
    if top and effect.top_at is None:
        effect.top_at = imp.i


def stayed_cite(imp: Importer, to_leave: list[str]) -> Cite | None:
    """SPELL-04, TRAP-04: a card activation that goes to the GY once resolved or negated but is
    still face-up in its Spell & Trap Zone at MSG_CHAIN_END: the engine sends such a card to the
    GY (REASON_RULE) right after its MSG_CHAIN_SOLVED unless an effect keeps it there (Swords of
    Revealing Light: "remains on the field for 3 turns", its script's CancelToGrave). The stream
    shows no move, so the chain's end cites the card itself; one cite per event, so a second
    such card in the same chain is named in a note."""
    stayed = [c for c in dict.fromkeys(to_leave)
              if c not in imp.moves.facedown_st and any(c in side.szone for side in imp.field.sides)]
    if not stayed:
        return None
    for card in stayed[1:]:
        imp.note(f"{card} {imp.facts.card_name(imp.field.code(card))} also stays on the field after resolving; "
                 f"the chain's end cites only {stayed[0]}")
    return Cite(stayed[0], "stays on the field after it resolves, as its own effect says (the engine did not "
                "send it to the GY)")


def maybe_forced_battle(imp: Importer, phase_before: str | None) -> None:
    """A Battle Phase entered from Main Phase 1 right after a chain ended may still be a forced
    one (Last Turn resolved in Main Phase 1): it is, if play then goes back to Main Phase 1."""
    if imp.chains.last_resolved is not None and imp.chains.chain_end_at == len(imp.events) and phase_before is not None:
        imp.battle.forced = ForcedBattle(imp.chains.last_resolved[0], phase_before,
                                  frozenset(a for a, turn in imp.battle.attacked.items() if turn == imp.turns.turn), maybe=True)


def forced_battle_start(imp: Importer, phase_before: str | None) -> Cite | None:
    """TURN-01: MSG_NEW_PHASE for the Battle Phase from a phase it cannot follow (Last Turn in
    the opponent's Draw Phase). The engine enters it only by a forced attack, processed right
    after the chain that forced it ends, so the cite is the link that resolved last, if the
    chain ended with nothing in between; the forced battle is remembered for its end."""
    where = f"turn {imp.turns.turn}: a Battle Phase straight after the {phase_before or 'turn start'}"
    if imp.chains.last_resolved is None or imp.chains.chain_end_at != len(imp.events) or phase_before is None:
        imp.note(f"{where}, and no chain ended just before it; no cite")
        return None
    card = imp.chains.last_resolved[0]
    imp.battle.forced = ForcedBattle(card, phase_before,
                              frozenset(a for a, turn in imp.battle.attacked.items() if turn == imp.turns.turn))
    imp.note(f"{where}: a forced attack, cited {card} {imp.facts.card_name(imp.field.code(card))}, "
             "the chain link that resolved just before")
    return Cite(card, "forces an attack: a Battle Phase out of turn order")


def forced_battle_end(imp: Importer, phase: str) -> Cite | None:
    """The forced Battle Phase is over: play returns to the phase it interrupted (TURN-01), and
    the monsters that attacked in it may attack again this turn (BATTLE-03)."""
    forced, imp.battle.forced = imp.battle.forced, None
    if forced is None or (forced.maybe and phase != forced.back):
        return None                               # an ordinary Battle Phase after all
    for attacker, turn in imp.battle.attacked.items():
        if turn == imp.turns.turn and attacker not in forced.attacked:
            imp.battle.attack_reset[attacker] = (turn, forced.card)
    if phase != forced.back:
        imp.note(f"turn {imp.turns.turn}: the forced Battle Phase ends in the {phase}, not the {forced.back} it interrupted")
        return None
    return Cite(forced.card, f"play returns to the {forced.back} phase its forced attack interrupted")


def credit_spent(imp: Importer, player: int) -> None:
    """A card a resolving link made its own player discard from the hand (``Effect.spent``)."""
    if imp.chains.solving is None or not 0 < imp.chains.solving <= len(imp.chains.chain):
        return
    effect = imp.chains.chain[imp.chains.solving - 1].effect
    if effect is not None and effect.player == player:
        effect.spent += 1


def damage_link(imp: Importer, damage: list[int], rules_damage: list[int]) -> Cite | None:
    """The chain link behind battle damage that is not the rules' (Kuriboh: "you take no battle
    damage from that battle"; Waboku: "you take no battle damage this turn"): the stream names no
    card, but such an effect resolved before damage calculation, in this attack's steps or earlier
    this turn. Preferred: a link of a player the difference favours (less damage to them, or more
    to their opponent), in this attack, then this turn; else any link resolved in this attack."""
    favoured = {p if damage[p] < rules_damage[p] else 1 - p for p in (0, 1) if damage[p] != rules_damage[p]}
    this_attack = [(card, who) for at, card, who in imp.chains.resolved_turn if at > imp.battle.attack_at]
    this_turn = [(card, who) for _at, card, who in imp.chains.resolved_turn]
    for pool, where in ((this_attack, "in this battle"), (this_turn, "earlier this turn")):
        mine = [card for card, who in pool if who in favoured]
        if mine:
            return Cite(mine[-1], f"changes the battle damage: its effect resolved {where}")
    # a lasting effect on the player spared, from any earlier turn or player (Crush Card Virus:
    # "your opponent takes no damage until the end of the next turn"): its client hint is on them
    for p in (0, 1):
        hinted = [(desc, at, e) for desc, at, e in imp.turns.player_hints[p]
                  if e is not None and e.resolved and damage[p] < rules_damage[p]]
        if hinted:
            desc, at, e = hinted[-1]
            imp.note(f"battle damage {damage} is less than the rules' {rules_damage}: cited {e.card}, whose client "
                     f"hint {stringid(desc, e.code)} is on player {p} (MSG_PLAYER_HINT, packet {at}); inferred")
            return Cite(e.card, f"changes the battle damage (inferred): its lasting effect {stringid(desc, e.code)} "
                                f"is on player {p}")
    if this_attack:
        return Cite(this_attack[-1][0], "changes the battle damage: its effect resolved in this battle")
    return None


def battle_cite(imp: Importer, attacker: str, happened: tuple[list[str], list[int]],
                rules: tuple[set[str], list[int]], pierce: bool, hint: str | None, detached: str | None,
                chain_card: str | None, battling: dict[int, str]) -> Cite | None:
    """The card behind a damage calculation that is not what the rules give (DMG-01..09):
    ``happened`` and ``rules`` are (destroyed, battle damage per player); ``hint`` the card a
    HINT_CARD names in it, ``detached`` an Xyz monster that detached a material in it,
    ``chain_card`` the first card activated before the step ended, ``battling`` the monsters in
    the battle by controller."""
    destroyed, damage = happened
    rules_destroyed, rules_damage = rules
    survivors = rules_destroyed - set(destroyed)
    if survivors or set(destroyed) - rules_destroyed:
        survivor = next(iter(survivors), attacker)
        by = hint or detached or (chain_card if chain_card in survivors else None) or survivor
        return Cite(by, "a monster is not destroyed by battle (replaced or protected by this card's effect)"
                    if survivors else "a monster is destroyed by this card's effect at damage calculation")
    if damage != rules_damage:
        if pierce:
            return Cite(granted_to(imp, attacker), "inflicts piercing battle damage")
        if hint is not None:
            return Cite(hint, "changes the battle damage")
        if imp.battle.forced is not None:
            return Cite(imp.battle.forced.card, "changes the battle damage of the attack it forces")
        by = damage_link(imp, damage, rules_damage)
        if by is not None:
            return by
        # More damage than the rules give, no link behind it: the Effect Monster dealing it
        # (Odd-Eyes Pendulum Dragon doubles what it inflicts; its own text, never a link).
        raised = [p for p in (0, 1) if damage[p] > rules_damage[p]]
        dealer = battling.get(1 - raised[0]) if len(raised) == 1 else None
        if dealer is not None and imp.fx(dealer).is_monster and not imp.fx(dealer).is_normal_monster:
            imp.note(f"battle damage {damage} is more than the rules' {rules_damage}: cited {dealer}, the monster "
                     "dealing it; inferred")
            return Cite(dealer, "its own effect changes the battle damage it inflicts (inferred)")
        imp.note(f"battle damage {damage} differs from the rules' {rules_damage} and the stream names no card")
    return None
