"""Duel scenarios a head judge rules on (issue 25, twentieth pass: judge20), recorded as a table's
recorder writes them, in the areas the earlier passes probed least.

Let through though illegal:

* SPS-07 ("An inherent Special Summon is made ... by meeting the monster's printed condition"):
  an ``inherent`` Special Summon was judged only for its timing (an open game state in your own
  Main Phase), never for having a printed condition at all. Blue-Eyes White Dragon Special
  Summoned "by its own procedure" from the hand, the GY or the Deck, or the effectless Fusion
  Blue-Eyes Ultimate Dragon from the Extra Deck: all accepted. A monster with no effect (a Normal
  Monster, an effectless Ritual or Extra Deck monster) prints no such condition. Now refused, or
  flagged at the table (kept); a card that gives it a procedure is cited (GEN-01). An Effect
  Monster's condition is card text, so Cyber Dragon's stands, as before.
* BATTLE-06 ("after an attack is declared, if a card effect changes the opponent's monsters, the
  turn player may choose a new target or cancel the attack"): a direct attack whose defender got
  a monster in the Battle Step (Scapegoat's tokens, Kuriboh) went on into the Damage Step with no
  replay, and was refused only at its damage calculation. A direct attack that then stopped in the
  Damage Step (the attacker destroyed there) was never judged, nor flagged at the table. The
  Damage Step is now not entered without the replay: refused as it begins, flagged there (once)
  in a witnessed duel.

Said wrong by the engine (a judge reading ``ygoreplay.rules.coverage`` was misled): the choices
CONF-06, CONF-14, CONF-18 and CONF-25 read "not chosen yet" (the Damage Step "does not limit
activations", priority "is not followed", "no match is recorded", "no time procedure is
recorded") while MATCH-02, PRIO-01/03 with PRIO-02, BATTLE-09/10 and TIME-03 are enforced.

Probed and found right (kept out of the suite: they pass on the baseline): the End Phase hand
adjustment (none by the opponent, none in Main Phase 1, exactly down to 6, none owed at 6, a
surrender with 7 in hand), manual position changes (twice in a turn, the turn summoned, Special
Summoned or Flip Summoned, after an attack or a forfeited one in Main Phase 2, in the Battle Phase,
face-down to face-up Defense, a Link monster), Tribute counts (a Level 4 with one, a Level 6 with
two, a Level 8 with one; a Tribute Summon into full zones; an opponent's monster Tributed), a
Normal Summon after the first was negated (SUM-03) and in the Battle Phase (TURN-06), Nomi and
Semi-Nomi revivals (Stardust Dragon, Black Luster Soldier, Envoy of the Beginning, Chaos Emperor
Dragon, Relinquished, Dark Paladin, Thousand-Eyes Restrict refused; Cyber Dragon, Dark Magician of
Chaos, Jinzo, a properly summoned Black Luster Soldier legal), Synchro, Xyz and Link materials
(face-down, the opponent's, a Token, an Xyz monster as a Synchro material, Levels, counts, Link
ratings), Pendulum Summons (one Scale, a Level equal to a Scale, twice, a face-down Extra Deck
monster), a Pendulum Scale in a middle zone or Set, a Pendulum destroyed to the GY, Spell Speeds
(a Speed 1 Spell as Chain Link 2, Mystical Space Typhoon on Solemn Judgment), SEGOC order, a
Quick-Play from the hand in the opponent's turn, a Trap the turn it was Set, a Normal Spell in the
Battle Phase or the opponent's turn, an Ignition effect in the opponent's turn, a Quick-Play and a
Normal Trap in the Damage Step (BATTLE-09), a direct attack on a player with a Set monster, a
second attack, a forfeited attack (BATTLE-07), a retarget with no change (BATTLE-06), the first
turn's Battle Phase, Standby to Battle and Main 2 to Battle, both players at 0 LP (WIN-04, and not
by two causes), an effect draw from a short Deck (WIN-02), the duel going on after 0 LP (WIN-01).
"""
from __future__ import annotations

from test_rule_scenarios_27 import ev, table
from test_rule_scenarios_27 import history as table_history
from test_rule_scenarios_33 import witnessed
from test_rules_battle import attack, calc, mon, step

from duel import BLUE_EYES, KURIBOH, SHEEP_TOKEN, VORSE, fold, position, refused_with
from ygoreplay.events import from_dict
from ygoreplay.rules import audit
from ygoreplay.rules.coverage import CHOICE, ENFORCED, ID_PATTERN, TABLE

CYBER_DRAGON = 70095154            # "If only your opponent controls a monster, you can Special Summon this card"
BLUE_EYES_ULTIMATE = 23995346      # an effectless Fusion monster
SCAPEGOAT = 73915051

# == SPS-07: an inherent Special Summon needs a printed condition ==================================

NO_CONDITION = "has no effect: it prints no condition by which it Special Summons itself"


def inherent(card: str, zone: int = 0, **fields) -> dict:
    return ev("special_summoned", player=0, card=card, zone=zone, method="inherent", **fields)


def test_sps_07_a_monster_without_effects_has_no_inherent_special_summon_refused() -> None:
    """SPS-07: Blue-Eyes White Dragon, a Normal Monster, Special Summoned by "its own procedure"
    from the hand, the GY or the Deck, and Blue-Eyes Ultimate Dragon (a Fusion monster with no
    effect) from the Extra Deck: refused, neither prints a condition to meet. Before: accepted."""
    for where in ("hand", "gy", "deck"):
        board = position({where: [{"code": BLUE_EYES, "id": "bewd"}]}, {"mzone": [mon("vorse", VORSE)]}, turn=4)
        refused_with([board, inherent("bewd")], "SPS-07", NO_CONDITION)
    extra = position({"extra": [{"code": BLUE_EYES_ULTIMATE, "id": "beu"}]}, turn=4)
    refused_with([extra, inherent("beu", zone=5)], "SPS-07", NO_CONDITION)


def test_sps_07_an_effect_monster_s_own_condition_stands() -> None:
    """SPS-07: Cyber Dragon, whose text lets it Special Summon itself from the hand while only the
    opponent controls a monster, is summoned that way in an open game state: legal (its condition
    is card text). Blue-Eyes White Dragon given such a procedure by a card cited (GEN-01) stands,
    the override recorded. Before: both accepted, the second with nothing to cite."""
    board = position({"hand": [{"code": CYBER_DRAGON, "id": "cyber"}, {"code": BLUE_EYES, "id": "bewd"}]},
                     {"mzone": [mon("vorse", VORSE)]}, turn=4)
    assert fold(board, inherent("cyber")).cards["cyber"].zone == "mzone"
    state = fold(board, inherent("bewd", cite={"card": "vorse", "effect": "a card that grants a procedure"}))
    assert [o.rule for o in state.overrides] == ["SPS-07"] and state.cards["bewd"].zone == "mzone"


def test_sps_07_a_witnessed_inherent_summon_without_a_condition_is_flagged_and_kept() -> None:
    """At the table Blue-Eyes White Dragon put on the field from the hand "by its own procedure"
    stands, flagged SPS-07; a machine's record of it is refused (above) and an audit collects it."""
    board = position({"hand": [{"code": BLUE_EYES, "id": "bewd"}]}, turn=4)
    state = witnessed(board, inherent("bewd"))
    assert [f.rule for f in state.flags] == ["SPS-07"] and state.cards["bewd"].zone == "mzone"
    report = audit([from_dict(e) for e in (board, inherent("bewd"))], fold().db)
    assert [(v.index, v.rule) for v in report.violations] == [(1, "SPS-07")]


def test_sps_07_at_the_table_an_unseen_card_is_undecided_and_a_shown_one_judged() -> None:
    """SPS-07 at the table, player 1's hand unseen by the recorder: a card summoned "by its own
    procedure" without being named is undecided (listed, not flagged: a false call is worse than
    silence); shown as Cyber Dragon it stands, shown as Blue-Eyes White Dragon it is flagged and
    kept. Before: never flagged, and not listed as undecided."""
    summon = ev("special_summoned", player=1, card="p1.m0", zone=0, method="inherent")
    unseen = table_history([*table(), summon])
    assert unseen.flags == [] and (15, "SPS-07") in [(u.index, u.rule) for u in unseen.undecided]
    assert table_history([*table(), {**summon, "shows": {"p1.m0": CYBER_DRAGON}}]).flags == []
    shown = table_history([*table(), {**summon, "shows": {"p1.m0": BLUE_EYES}}])
    assert [(f.index, f.rule) for f in shown.flags] == [(15, "SPS-07")]
    assert shown.state.cards["p1.m0"].zone == "mzone"


# == BATTLE-06: no Damage Step for a direct attack that owes a replay ==============================

DIRECT = position({"mzone": [mon("vorse", VORSE)]},
                  {"hand": [{"code": KURIBOH, "id": "kb"}], "szone": [{"code": SCAPEGOAT, "id": "goat", "position": "set"}]},
                  turn=4, phase="battle", step="battle")
GOATS = [ev("activated", player=1, card="goat"), ev("chain_link_resolved", link=1),
         *[ev("token_created", player=1, card=f"sheep{i}", code=SHEEP_TOKEN, zone=i, position="defense", cause="goat")
           for i in range(4)],
         ev("card_moved", card="goat", to=[1, "gy"], reason="resolved"), ev("chain_ended")]
KB_ARRIVES = ev("special_summoned", player=1, card="kb", zone=0, cause="kb")
OWED = "a replay (attack_retargeted or attack_cancelled) comes before the Damage Step"


def test_battle_06_a_direct_attack_that_owes_a_replay_does_not_enter_the_damage_step() -> None:
    """BATTLE-06: Vorse Raider attacks directly; player 1 answers with Scapegoat, four Sheep
    Tokens: the opponent's monsters changed, so a replay comes first (a token as the new target,
    or the attack called off); entering the Damage Step with the attack still direct is refused.
    Before: accepted there, refused only at a damage calculation. With the replay it is legal."""
    refused_with([DIRECT, attack("vorse"), *GOATS, step("damage")], "BATTLE-06", OWED)
    state = fold(DIRECT, attack("vorse"), *GOATS, ev("attack_retargeted", target="sheep0"), step("damage"),
                 calc(["sheep0"], (0, 0)))
    assert state.attack.destroyed == ("sheep0",)
    assert fold(DIRECT, attack("vorse"), *GOATS, ev("attack_cancelled"), step("end")).attack is None


def test_battle_06_a_direct_attack_stopped_in_the_damage_step_was_still_owed_its_replay() -> None:
    """BATTLE-06: after the direct attack Kuriboh is Special Summoned in the Battle Step; the
    record goes on into the Damage Step, where Vorse Raider is destroyed by an effect and the
    Damage Step ends with no damage calculation. At the table this stands, flagged once, where
    the Damage Step began; an audit of a machine's record collects the same one. Before: nothing
    was flagged or collected (only a damage calculation was judged)."""
    events = [DIRECT, attack("vorse"), KB_ARRIVES, step("damage"),
              ev("card_moved", card="vorse", to=[0, "gy"], reason="destroyed", cause="kb"), step("end")]
    state = witnessed(*events)
    assert [(f.index, f.rule) for f in state.flags] == [(3, "BATTLE-06")] and state.step == "end"
    report = audit([from_dict(e) for e in events], fold().db)
    assert [(v.index, v.rule) for v in report.violations] == [(3, "BATTLE-06")]


def test_battle_06_a_witnessed_direct_damage_calculation_owing_a_replay_is_flagged_once() -> None:
    """BATTLE-06: the same direct attack calculated as direct (1900 to player 1) at the table:
    kept, and flagged once, as the Damage Step began, not again at its damage calculation. Before:
    flagged at the damage calculation only."""
    state = witnessed(DIRECT, attack("vorse"), KB_ARRIVES, step("damage"), calc((), (0, 1900)))
    assert [(f.index, f.rule) for f in state.flags] == [(3, "BATTLE-06")]
    assert state.attack.pending_damage == [0, 1900]


# == CONF-06, CONF-14, CONF-18, CONF-25: the choices say what the engine does =======================

def test_conf_06_14_18_25_name_the_rules_the_engine_enforces() -> None:
    """CONF-06 (match results with draws: MATCH-02), CONF-14 (what the player without priority
    may activate: PRIO-02, with PRIO-01/03 enforced), CONF-18 (Damage Step activations:
    BATTLE-09/10) and CONF-25 (when the extra turns start: TIME-03) are chosen and enforced; the
    coverage table said "not chosen yet" and that the Damage Step does not limit activations."""
    rows = {rule.id: rule for rule in TABLE}
    wanted = {"CONF-06": "MATCH-02", "CONF-14": "PRIO-03", "CONF-18": "BATTLE-09", "CONF-25": "TIME-03"}
    for conf, enforcing in wanted.items():
        row = rows[conf]
        assert row.status == CHOICE and not row.why.startswith("not chosen"), row.why
        named = set(ID_PATTERN.findall(row.why))
        assert enforcing in named and rows[enforcing].status == ENFORCED, (conf, row.why)
        assert "does not limit" not in row.why and "is not followed" not in row.why
