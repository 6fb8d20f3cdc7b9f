"""Battle as our events. EDOPro announces only some steps and not what the rules give, so the
others are written in, and what EDOPro did at damage calculation is set beside the rules' outcome."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..events import (AttackCancelled, AttackDeclared, AttackRetargeted, Cite, DamageCalculated, StatsChanged,
    StepEntered)
from ..rules.battle import battle_outcome
from .cites import ForcedBattle, battle_cite, granted_to
from .constants import (LOCATION_MZONE, LOCATION_OVERLAY, MSG_ATTACK, MSG_ATTACK_DISABLED, MSG_BATTLE, MSG_CHAINING,
    MSG_DAMAGE, MSG_DAMAGE_STEP_END, MSG_DAMAGE_STEP_START, MSG_MOVE, MSG_NEW_PHASE, MSG_NEW_TURN, MSG_WIN, POS_ATTACK,
    REASON_BATTLE, REASON_DESTROY)
from .container import Where
from .messages import reads


@dataclass(slots=True)
class BattleState:
    """The attack in progress, and what this turn's battles leave for later ones."""

    attack: tuple[str, str | None] | None = None       # (attacker, target or None: direct)
    attack_at: int = -1                                # packet of its MSG_ATTACK
    #: The opponent's monsters at its declaration: a change of them makes a replay (BATTLE-06).
    attack_defenders: frozenset[str] = frozenset()
    calculated: bool = False                           # its damage calculation is written
    #: A battling monster that left the field before damage calculation, and the effect that
    #: removed it (the ``attack_cancelled``'s cause).
    removed_by: dict[str, str | None] = field(default_factory=dict)
    battle_destroyed: set[str] = field(default_factory=set)    # destroyed by battle: their move is "battle"
    battle_damage_at: set[int] = field(default_factory=set)    # packets of the MSG_DAMAGE of the battle
    attacked: dict[str, int] = field(default_factory=dict)     # each monster's last turn attacking (BATTLE-03)
    #: Monsters whose attacks a forced Battle Phase reset: attacker -> (turn, the forcing card).
    attack_reset: dict[str, tuple[int, str]] = field(default_factory=dict)
    forced: ForcedBattle | None = None                 # a Battle Phase an effect forced, in progress


class BattleHandling:
    """The Importer's handlers for the Battle Phase's attacks and the Damage Step."""

    def end_attack(self, cause: str | None = None, disabled: bool = False, quiet: bool = False) -> None:
        """The attack in progress ends without damage calculation (negated, or a monster left).

        ``quiet`` when the phase or turn ends: leaving the Battle Phase closes it in our fold."""
        if self.battle.attack is None:
            return
        attacker, target = self.battle.attack
        if not self.battle.calculated and not quiet:
            gone = [c for c in (attacker, target) if c is not None and c in self.battle.removed_by]
            if disabled or gone:
                why = cause or (self.battle.removed_by.get(gone[0]) if gone else None) or self.chains.last_link_card
                self.emit(AttackCancelled(player=self.turns.turn_player, cause=why))
        self.battle.attack = None
        self.battle.calculated = False
        self.battle.removed_by.clear()

    @reads(MSG_ATTACK)
    def on_attack(self, m: dict) -> None:
        self.flush()
        attacker = self.field.lookup(m["a"])
        target = self.field.lookup(m["b"]) if m["b"].location else None
        if attacker is None:
            self.note("an attack by no card")
            return
        if self.battle.attack is not None and not self.battle.calculated and self.battle.attack[0] == attacker and attacker not in self.battle.removed_by:
            self.battle.attack = (attacker, target)
            defenders = self.defenders(1 - (m["a"].controller & 1))
            # BATTLE-06: a replay follows a change of the opponent's monsters; with none, an
            # effect moved the attack ("change the attack target to this card")
            cite = (Cite(self.effect_cause(self.turns.turn_player), "changes the attack target")
                    if defenders == self.battle.attack_defenders else None)
            self.battle.attack_defenders = defenders
            self.emit(AttackRetargeted(player=self.turns.turn_player, target=target, cite=cite))
            return
        self.end_attack()
        if self.turns.step != "battle":
            self.emit(StepEntered(player=self.turns.turn_player, step="battle"))
            self.turns.step = "battle"
        player = m["a"].controller & 1
        cite = None
        reset = self.battle.attack_reset.pop(attacker, None)
        if self.battle.attacked.get(attacker) == self.turns.turn and reset is not None and reset[0] == self.turns.turn:
            cite = Cite(reset[1], "the attack it forced reset this monster's attacks: it may attack again")
        elif self.battle.attacked.get(attacker) == self.turns.turn:
            cite = Cite(granted_to(self, attacker), "this monster can attack more than once")
        elif target is None and any(c is not None for c in self.field.sides[1 - player].mzone):
            cite = Cite(granted_to(self, attacker), "this monster can attack directly")
        self.battle.attacked[attacker] = self.turns.turn
        self.battle.attack = (attacker, target)
        self.battle.attack_at = self.i
        self.battle.attack_defenders = self.defenders(1 - player)
        self.battle.calculated = False
        self.battle.battle_destroyed = set()
        self.emit(AttackDeclared(player=player, attacker=attacker, target=target, cite=cite))

    def defenders(self, player: int) -> frozenset[str]:
        """The monsters ``player`` controls now (the mirror's Monster Zones, Extra ones included)."""
        return frozenset(c for c in self.field.sides[player].mzone if c is not None)

    @reads(MSG_ATTACK_DISABLED)
    def on_attack_disabled(self, m: dict) -> None:
        self.flush()
        self.end_attack(disabled=True)

    @reads(MSG_DAMAGE_STEP_START)
    def on_damage_step_start(self, m: dict) -> None:
        self.flush()
        if self.battle.attack is None:
            self.note("a damage step with no attack")
            return
        if self.turns.step != "battle":
            self.emit(StepEntered(player=self.turns.turn_player, step="battle"))
        self.turns.step = "damage"
        self.emit(StepEntered(player=self.turns.turn_player, step="damage"))

    @reads(MSG_BATTLE)
    def on_battle(self, m: dict) -> None:
        self.flush()
        attacker = self.field.lookup(m["attacker"])
        target = self.field.lookup(m["target"]) if m["target"].location else None
        if attacker is None or self.battle.attack is None:
            self.note("damage calculation with no attack in progress")
            return
        if m["attacker"].location != LOCATION_MZONE:
            # BATTLE-06: the attacker left the field in the Damage Step, yet the engine calculated
            # (Mutant Mindmaster's borrowed attacker sent to the GY by rule as its link resolves):
            # no damage calculation for our rules, which have none; what it destroyed and dealt
            # follows as moves and LP changes (cited where the rules refuse them)
            self.note(f"MSG_BATTLE with the attacker {attacker} no longer on the field ({m['attacker']}): "
                      "the engine calculated damage anyway; no damage_calculated is written")
            return
        if self.turns.step != "damage":
            self.emit(StepEntered(player=self.turns.turn_player, step="damage"))
            self.turns.step = "damage"
        atk, t_atk, t_def = m["attacker_atk"], m["target_atk"], m["target_def"]
        self.sync_stats(attacker, atk, m["attacker_def"])
        if target is not None:
            self.sync_stats(target, t_atk, t_def)
        a_loc, t_loc = m["attacker"], m["target"]
        # what the basic rules give (DMG-01..09), as our fold will compute it
        me = a_loc.controller & 1
        t_attack = target is not None and bool(t_loc.position & POS_ATTACK)
        _rule, lost, beaten, to_me, to_other = battle_outcome(
            max(atk, 0) if target is None else atk, None if target is None else (t_attack, t_atk if t_attack else t_def),
            "zero_atk_destroyed" in self.turns.options)
        rules_damage = [0, 0]
        rules_damage[me] += to_me
        rules_damage[1 - me if target is None else t_loc.controller & 1] += to_other
        rules_destroyed = ({attacker, target} if lost and beaten else {attacker} if lost
                           else {target} if beaten else set())
        # what happened: battle damage right after, destruction by battle before the step ends
        damage = [0, 0]
        j = self.i
        self.battle.battle_damage_at = set()
        while True:
            j = self.next_significant(j)
            if j is None or self.packets[j].id != MSG_DAMAGE:
                break
            dm = self.msg(j)
            damage[dm["player"] & 1] += dm["amount"]
            self.battle.battle_damage_at.add(j)
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
        self.battle.battle_destroyed = set(destroyed)
        hint = None
        if self.turns.hint_card is not None and self.turns.hint_card[0] > self.attack_index_floor():
            hint = self.field.card_with_code(self.turns.hint_card[1])
        self.turns.hint_card = None
        pierce = (target is not None and not t_attack and atk > t_def
                  and damage[t_loc.controller & 1] == atk - t_def)
        battling = {a_loc.controller & 1: attacker}
        if target is not None:
            battling[t_loc.controller & 1] = target
        cite = battle_cite(self, attacker, (destroyed, damage), (rules_destroyed, rules_damage), pierce,
                           hint, detach_host, chain_card, battling)
        self.battle.calculated = True
        self.emit(DamageCalculated(player=self.turns.turn_player, destroyed=tuple(destroyed), damage=tuple(damage),
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
        b_atk, b_def, b_lvl = self.moves.believed.get(card) or (facts.base_atk, facts.base_def, facts.printed_level)
        new_atk = atk if atk != b_atk else None
        new_def = defense if facts.base_def is not None and defense != b_def else None
        if new_atk is None and new_def is None:
            return
        self.moves.believed[card] = (atk, defense if facts.base_def is not None else None, b_lvl)
        self.emit(StatsChanged(player=self.owner_of(card), card=card, atk=new_atk, defense=new_def))

    def owner_of(self, card: str) -> int:
        return int(card[1]) if card[:1] == "p" and card[1:2] in ("0", "1") else 0

    @reads(MSG_DAMAGE_STEP_END)
    def on_damage_step_end(self, m: dict) -> None:
        self.flush()
        if self.turns.step == "damage":
            self.emit(StepEntered(player=self.turns.turn_player, step="battle"))
            self.turns.step = "battle"
        self.battle.attack = None
        self.battle.calculated = False
        self.battle.removed_by.clear()
