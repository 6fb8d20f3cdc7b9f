"""Attacks and damage calculation (BATTLE, DMG-01..09, POS-03/04).

The engine computes the result of every battle itself and compares it with what was recorded:
which monsters are destroyed and how much battle damage each player takes. An effect that changes
the result (a monster that cannot be destroyed by battle, damage halved) is cited on the event.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..i18n import N_, say
from ..events import ATTACK, DEFENSE, MZONE, SET, Event
from ..state import Attack, Card, DuelState
from .base import (
    check_not_negated, end_passes, ended_by_passes, fail, get_card, handles, impossible, phase_name, player_of)
from .spell_trap import check_equips, settle_equips

if TYPE_CHECKING:                  # annotations only: a kind is made on its first use (events._lazy)
    from ..events import AttackCancelled, AttackDeclared, AttackRetargeted, DamageCalculated


@handles("attack_declared")
def attack_declared(state: DuelState, ev: AttackDeclared) -> None:
    player = player_of(state, ev)
    attacker = get_card(state, ev, ev.attacker)
    if ev.target is not None:
        get_card(state, ev, ev.target)
    if attacker.zone != MZONE or attacker.controller != player:
        # where a card is, the table sees: told as it is (its id, the writer's own name for it)
        impossible(state, ev, "BATTLE-02", say("{id} is not a monster player {player} controls on the field",
                                               id=attacker.id, player=player), public=True)
    if player != state.turn_player:
        fail(state, ev, "BATTLE-02", N_("only the turn player declares attacks"))
    if state.phase != "battle" or state.step != "battle":
        where = say("{step} step", step=state.step) if state.phase == "battle" else phase_name(state.phase)
        fail(state, ev, "BATTLE-02", say("attacks are declared in the Battle Step, not the {where}", where=where))
    previous = state.attack
    # an attack is over once its monster stopped attacking (left the field, POS-03: no longer in
    # face-up Attack Position) or in a replay (BATTLE-06): its player attacks anew, with it or another
    attacking = previous is not None and _attacking(state, previous)
    replayed = attacking and _replayed(state, previous)
    if attacking and not replayed:
        fail(state, ev, "BATTLE-02", say("the attack of {attacker} is not over yet", attacker=previous.attacker))
    if state.chain:
        fail(state, ev, "CHAIN-10", N_("an attack is declared with no chain open; it is not an activation"))
    elif state.passes and (ended := end_passes(state)):   # PRIO-03/05: the turn player declared the step's end
        fail(state, ev, "PRIO-05" if ended >= 2 else "PRIO-03", ended_by_passes(state))
    if attacker.position != ATTACK:
        fail(state, ev, "POS-03", say("{name} is in {position} position; only face-up Attack Position monsters "
                                      "attack", name=attacker.name, position=attacker.position))
    if (attacker.attacked_turn == state.turn and attacker.id not in state.attacked_earlier
            and not (replayed and previous.attacker == attacker.id)):
        if attacker.id in state.forfeited:
            fail(state, ev, "BATTLE-07", say("{name} forfeited its attack when another monster attacked instead after "
                                             "a replay: it cannot attack again this Battle Phase", name=attacker.name))
        else:
            fail(state, ev, "BATTLE-03", say("{name} has already attacked this Battle Phase", name=attacker.name))
    _check_target(state, ev, 1 - player, ev.target)
    stranded = check_equips(state, ev) if state.equips else ()   # SPELL-07: moved before the attack
    # -- all checks done ----------------------------------------------------------------------
    if replayed and previous.attacker != attacker.id:
        state.forfeited.append(previous.attacker)        # BATTLE-07: another monster attacks instead
    state.attack = Attack(attacker.id, ev.target, frozenset(c.id for c in state.monsters(1 - player)))
    attacker.attacked_turn = state.turn
    if attacker.id in state.attacked_earlier:            # BATTLE-03: its attack of this Battle Phase
        state.attacked_earlier.remove(attacker.id)
    if state.equips:
        settle_equips(state, stranded)


def _check_target(state: DuelState, ev: Event, defender: int, target_id: str | None) -> None:
    if target_id is None:
        if state.monster_count(defender):
            fail(state, ev, "BATTLE-02", say("player {defender} controls a monster, so a direct attack is not "
                                             "allowed", defender=defender))
        return
    target = get_card(state, ev, target_id)
    if target.zone != MZONE or target.controller != defender:
        fail(state, ev, "BATTLE-02", say("{name} ({id}) is not a monster the opponent controls",
                                         name=target.name, id=target.id))


@handles("attack_retargeted")
def attack_retargeted(state: DuelState, ev: AttackRetargeted) -> None:
    attack = _current_attack(state, ev)
    if ev.target is not None:
        get_card(state, ev, ev.target)
    defender = 1 - state.turn_player
    now = frozenset(c.id for c in state.monsters(defender))
    if state.step == "damage":
        fail(state, ev, "BATTLE-06", NO_REPLAY_IN_THE_DAMAGE_STEP)
    elif now == attack.defender_monsters:
        fail(state, ev, "BATTLE-06", N_("a replay happens only when the opponent's monsters have changed since the "
                                        "attack was declared"))
    _check_target(state, ev, defender, ev.target)
    attack.target = ev.target
    attack.defender_monsters = now


@handles("attack_cancelled")
def attack_cancelled(state: DuelState, ev: AttackCancelled) -> None:
    attack = _current_attack(state, ev)
    defender = 1 - state.turn_player
    in_damage_step = state.step == "damage"
    if ev.cause is None and in_damage_step:
        if _battle_goes_on(state, attack):
            fail(state, ev, "BATTLE-06", NO_REPLAY_IN_THE_DAMAGE_STEP)
    elif ev.cause is None and frozenset(c.id for c in state.monsters(defender)) == attack.defender_monsters:
        fail(state, ev, "BATTLE-06", N_("without an effect, an attack is cancelled only in a replay, after the "
                                        "opponent's monsters changed"))
    check_not_negated(state, ev)                  # TERM-14: a negated Negate Attack stops no attack
    if ev.cause is None and not in_damage_step:
        state.forfeited.append(attack.attacker)   # BATTLE-07: called off in a replay, it is spent
    state.attack = None


#: BATTLE-06: the replay is the Battle Step's (EDOPro's ``attack_rollback`` is never set in the
#: Damage Step): a monster that comes or goes there leaves the attack as it is.
NO_REPLAY_IN_THE_DAMAGE_STEP = N_(
    "there is no replay in the Damage Step: a change of the opponent's monsters there leaves the attack as it "
    "is (a direct attack stays direct), and it stops only if a monster in the battle left the field")


def replay_owed(state: DuelState, attack: Attack) -> bool:
    """BATTLE-06: a direct attack whose defender gained monsters since it was declared (and has
    some now) owes a replay: a new target, or the attack called off; it cannot stay direct."""
    now = frozenset(c.id for c in state.monsters(1 - state.turn_player))
    return bool(now) and now != attack.defender_monsters


REPLAY_OWED = N_("the opponent's monsters changed after this direct attack was declared: a replay "
                 "(attack_retargeted or attack_cancelled) comes before the Damage Step and any damage calculation, "
                 "and the attack cannot stay direct")


def damage_step_begins(state: DuelState, ev: Event) -> None:
    """BATTLE-06: a direct attack enters the Damage Step; whether a replay was owed (the opponent's
    monsters changed in the Battle Step) is settled now, as a change from here on makes none. One
    owed and not made is refused here, as the Damage Step begins (flagged at the table, where
    the attack that went on stands, and not again at its damage calculation): a direct attack that
    stops in the Damage Step has no damage calculation to judge it at."""
    attack = state.attack
    if attack is not None and attack.target is None:
        owed = replay_owed(state, attack)
        if owed:
            fail(state, ev, "BATTLE-06", REPLAY_OWED)
        attack.replay_owed = owed


def _battle_goes_on(state: DuelState, attack: Attack) -> bool:
    """Whether the battle still has both its monsters (or a direct attack its attacker) in it:
    neither left the field, changed control, nor (the attacker) left face-up Attack Position."""
    if not _attacking(state, attack):
        return False
    if attack.target is None:
        return True
    target = state.cards.get(attack.target)
    return (target is not None and target.zone == MZONE and target.controller == 1 - state.turn_player
            and attack.target in attack.defender_monsters)


def left_uncalculated(state: DuelState, attack: Attack) -> tuple[str, str] | None:
    """(rule, why) an attack not yet calculated cannot end here, or None. BATTLE-02: once declared,
    the battle goes "to the Damage Step and back": leaving the Battle Step, an attack still owes its
    Damage Step unless it stopped (negated: ``attack_cancelled``; its monster left face-up Attack
    Position or the field) or a replay ended it (the opponent's monsters changed: BATTLE-06, the
    turn player may call it off). NIS-03: in the Damage Step, damage calculation comes between its
    start and its end unless a monster in the battle left it (``_battle_goes_on``; no replay there)."""
    if state.step == "damage":
        if _battle_goes_on(state, attack) and not attack.replay_owed:
            return "NIS-03", say("the battle of {attacker} goes on: the Damage Step runs from its start through damage "
                                 "calculation to its end, and before damage calculation an attack stops only when "
                                 "negated or when a monster in the battle leaves it",
                                 attacker=attack.attacker)
    elif _attacking(state, attack) and not _replayed(state, attack):
        return "BATTLE-02", say("the attack of {attacker} was declared: it goes to the Damage Step and back before the "
                                "Battle Step ends, unless it is negated or a replay calls it off",
                                attacker=attack.attacker)
    return None


def _attacking(state: DuelState, attack: Attack) -> bool:
    """Whether the attack's monster is still on the field, in face-up Attack Position, attacking."""
    attacker = state.cards.get(attack.attacker)
    return (attacker is not None and attacker.zone == MZONE and attacker.position == ATTACK
            and _still_attacking(state, attacker))


def _replayed(state: DuelState, attack: Attack) -> bool:
    """BATTLE-06, of an attack whose monster is still attacking (``_attacking``): before damage
    calculation, the opponent's monsters changed since the declaration: its player declares again,
    a new target for it (a replay, not a second attack: BATTLE-03) or another monster (BATTLE-07:
    this one's attack forfeited)."""
    if attack.calculated:
        return False
    defender = 1 - state.cards[attack.attacker].controller
    return frozenset(c.id for c in state.monsters(defender)) != attack.defender_monsters


def _still_attacking(state: DuelState, attacker: Card) -> bool:
    """Whether the monster that declared the attack is still that monster, on the turn player's
    side: one that left the field and came back is a new card (its attack mark is gone), and one
    whose control changed no longer attacks for the turn player (BATTLE-06)."""
    return attacker.attacked_turn == state.turn and attacker.controller == state.turn_player


def _current_attack(state: DuelState, ev: Event) -> Attack:
    if state.attack is None or state.attack.calculated:
        impossible(state, ev, "BATTLE-06", N_("no attack is waiting for damage calculation"), public=True)
    return state.attack


def battle_outcome(atk: int, target: tuple[bool, int] | None,
                   zero_atk_destroyed: bool = False) -> tuple[str, bool, bool, int, int]:
    """DMG-01..09 on values, for the fold and for importers that set a replay's battles beside
    the rules: an attacker of ``atk`` against ``target`` (in Attack Position?, its ATK or DEF
    accordingly; None for a direct attack). Returns (the rule that applies, attacker destroyed,
    target destroyed, battle damage to the attacker's controller, to the other player).
    ``zero_atk_destroyed`` is the duel option of that name, an older ruling (EDOPro's Goat
    format): two 0 ATK Attack Position monsters destroy each other like any equal ATK (DMG-03)."""
    if target is None:
        return ("DMG-08" if atk else "DMG-09"), False, False, 0, atk   # DMG-09: 0 is no damage
    attacking, other = target
    if attacking:
        if atk > other:
            return "DMG-01", False, True, 0, atk - other
        if atk == other:
            if atk == 0:
                return "DMG-03", zero_atk_destroyed, zero_atk_destroyed, 0, 0
            return "DMG-02", True, True, 0, 0
        return "DMG-04", True, False, other - atk, 0
    if atk > other:
        return "DMG-05", False, True, 0, 0
    if atk == other:
        return "DMG-06", False, False, 0, 0
    return "DMG-07", False, False, other - atk, 0


def battle_result(state: DuelState, attacker: Card, target: Card | None) -> tuple[str, set[str], list[int]]:
    """DMG-01..09: the rule that applies, the monsters destroyed, the battle damage per player."""
    me = attacker.controller
    attacking = target is not None and target.position == ATTACK
    rule, lost, beaten, to_me, to_other = battle_outcome(
        attacker.current_atk,
        None if target is None else (attacking, target.current_atk if attacking else target.current_def),
        "zero_atk_destroyed" in state.options)
    damage = [0, 0]
    damage[me] += to_me
    damage[1 - me if target is None else target.controller] += to_other
    destroyed = ({attacker.id} if lost else set()) | ({target.id} if beaten and target is not None else set())
    return rule, destroyed, damage


@handles("damage_calculated")
def damage_calculated(state: DuelState, ev: DamageCalculated) -> None:
    attack = state.attack
    if attack is None or attack.calculated:
        impossible(state, ev, "BATTLE-11", N_("no attack is waiting for damage calculation"), public=True)
    if len(ev.damage) != 2 or min(ev.damage) < 0:
        impossible(state, ev, "LOG-05", N_("damage is [damage to player 0, damage to player 1], each >= 0"))
    attacker = state.cards.get(attack.attacker)
    target = state.cards.get(attack.target) if attack.target else None
    if attacker is None or attacker.zone != MZONE or attacker.attacked_turn != state.turn:
        impossible(state, ev, "BATTLE-06", N_("the attacking monster is no longer on the field: there is no damage "
                                              "calculation"))
    if attacker.controller != state.turn_player or (target is not None and target.controller == attacker.controller):
        impossible(state, ev, "BATTLE-06", N_("a monster in this battle changed control after the attack was "
                                              "declared: a replay, not a damage calculation"))
    if attack.target is not None and (target is None or target.zone != MZONE
                                      or attack.target not in attack.defender_monsters):
        impossible(state, ev, "BATTLE-06", N_("the attack target left the field: a replay, not a damage "
                                              "calculation"))
    if state.phase != "battle" or state.step != "damage":
        fail(state, ev, "NIS-03", N_("damage calculation happens in the Damage Step"))
    elif state.chain:                          # NIS-03: what is activated before it resolves before it
        fail(state, ev, "BATTLE-11", say("damage is calculated once the chain before it has resolved, and nothing "
                                         "interrupts it: a chain of {count} link(s) is open", count=len(state.chain)))
    if attacker.position != ATTACK:            # POS-03: turned to Defense after its declaration, the attack stopped
        fail(state, ev, "POS-03", say("{name} is in {position} position; only face-up Attack Position monsters "
                                      "attack", name=attacker.name, position=attacker.position))
    if attack.target is None and attack.replay_owed is None and replay_owed(state, attack):
        fail(state, ev, "BATTLE-06", REPLAY_OWED)   # not entered (NIS-03 above); else judged as it began
    flip = target is not None and target.position in (SET, "facedown_attack")
    if flip:                                   # POS-04, BATTLE-12: flipped before damage calculation
        saved = target.position
        target.position = DEFENSE if saved == SET else ATTACK
    rule, destroyed, damage = battle_result(state, attacker, target)
    described = say("{target}, flipped face-up", target=_describe_target(target)) if flip else _describe_target(target)
    if flip:
        target.position = saved
    if set(ev.destroyed) != destroyed or list(ev.damage) != damage:
        fail(state, ev, rule,
             say("{name} ({current_atk} ATK) against {described}: the rules give destroyed {destroyed} and battle "
                 "damage {damage}; recorded destroyed {recorded} and damage {recorded_damage}",
                 name=attacker.name, current_atk=attacker.current_atk, described=described,
                 destroyed=sorted(destroyed) or N_("none"), damage=damage,
                 recorded=sorted(ev.destroyed) or N_("none"), recorded_damage=list(ev.damage)))
    if flip:
        target.position = DEFENSE if target.position == SET else ATTACK
        state.flipped.append(target.id)          # EFF-05: its Flip effect follows (BATTLE-12)
    attack.calculated = True
    attack.destroyed = ev.destroyed
    attack.pending_damage = list(ev.damage)


def _describe_target(target: Card | None) -> str:
    if target is None:
        return N_("a direct attack")
    value = target.current_atk if target.position == ATTACK else target.current_def
    stat = "ATK" if target.position == ATTACK else "DEF"
    return say("{name} ({value} {stat}, {position})", name=target.name, value=value, stat=stat, position=target.position)
