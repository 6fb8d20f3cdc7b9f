"""A judge's review of the tenth pass's two rule changes (issue 25): legal plays accepted, illegal
ones refused with the ID that forbids them.

EFF-05 / TERM-10: a Flip effect activated by a monster face-down on the field that was not
flipped face-up this turn is refused (a confirmed card is not flipped). A flip by any cause counts:
a Flip Summon, an attack (damage calculation flips it when the record does not), an effect
(Swords of Revealing Light, in the middle of a chain's resolution), whoever's turn it is; a Flip
effect activated off the field (Man-Eater Bug destroyed by battle, or Flip Summoned and then
destroyed) is no face-down monster's; a refused Flip Summon flips nothing. A snapshot the engine
stored before ``flipped`` existed does not say what was flipped: the rest of its turn gives the
monsters then on the field the benefit of it.

RIT-03 / FUS-03: judged at the summon. Responses before the Spell resolves (a chained card, itself
negated), several summons of one resolution, a Fusion or Ritual Summon by a monster's effect, a
second summoning card activated once the first has resolved, a Contact Fusion: accepted; a summon
after an activation that followed its cause's resolution: refused. TERM-14 beside them: a negated
Polymerization summons nothing; a card activated again in a new chain applies again.
"""
from __future__ import annotations

import pytest
from test_rule_scenarios_25 import JAMMER, P1_TRAPS, RITUAL_BOARD, RITUAL_START
from test_rule_review_25 import FUSION_BOARD, MST_ON_JAMMER
from test_rules_battle import MAN_EATER, VORSE_, attack, battle, calc, mon, step, to_gy
from test_rules_summon import monster_set
from test_rules_turn import phase, turn_started
from test_special_summons import (
    POLYMERIZATION, THOUSAND_DRAGON, act, board, c, check, fold, fuse, moved, resolved, ritual, ss)

from duel import CELTIC, DARK_MAGICIAN, GIANT_SOLDIER, KURIBOH, MAGIC_JAMMER, MST, VORSE

#: XYZ-Dragon Cannon: a Contact Fusion ("Must be Special Summoned from your Extra Deck by
#: banishing the above cards"), an inherent summon of its own text (SPS-07).
XYZ_DRAGON_CANNON = 91998119
from ygoreplay.events import from_dict
from ygoreplay.rules import RuleViolation, apply
from ygoreplay.state import DuelState

# == EFF-05 / TERM-10 ===============================================================================

#: Player 1's two Set Flip monsters (Set in an earlier turn), player 0's Set Swords of Revealing Light.
FLIPS = board({"szone": [c(MST, "swords", position="set")], "mzone": [c(VORSE, "vorse", position="attack")]},
              {"mzone": [c(MAN_EATER, "bug", position="set"), c(GIANT_SOLDIER, "soldier", position="set")],
               "szone": [c(MAGIC_JAMMER, "jammer", position="set")]})


def flip(card: str, cause: str | None = "swords", position: str = "defense", player: int = 0) -> dict:
    return {"kind": "position_changed", "player": player, "card": card, "position": position, "cause": cause}


def flip_effect(card: str, player: int = 1, **fields: object) -> dict:
    return act(card, player=player, effect_type="flip", **fields)


@pytest.mark.parametrize("events", [
    pytest.param([act("swords"), resolved(), flip("bug"), flip("soldier"),
                  flip_effect("bug", targets=["vorse"]), flip_effect("soldier", link=2, simultaneous=True)],
                 id="swords-flips-both-in-the-opponents-turn"),
    pytest.param([act("swords"), act("jammer", player=1, costs=[{"card": "p1_hand", "to": "gy",
                                                                 "reason": "discarded"}], negates=1),
                  resolved(2), {"kind": "chain_link_negated", "link": 1, "by": 2},
                  act("vorse", effect_type="ignition"), resolved(), flip("bug", "vorse"),
                  flip_effect("bug", targets=["vorse"])],
                 id="flipped-in-a-later-chains-resolution"),
    pytest.param([{"kind": "card_revealed", "cards": ["bug"]}, act("swords"), resolved(), flip("bug"),
                  flip("bug", "y", "set"), flip_effect("bug", targets=["vorse"])],
                 id="confirmed-then-flipped-then-face-down-again"),
])
def test_eff_05_a_flip_by_an_effect_whoever_turn_lets_its_flip_effect_activate(events: list[dict]) -> None:
    """EFF-05: a Flip effect triggers on any flip face-up: by Swords of Revealing Light in the
    opponent's turn (both monsters at once, chained together), in the resolution of a chain that
    followed a negated one; confirmed first (TERM-10) then flipped, the flip counts."""
    state = fold(_with_hand(FLIPS), *events)
    assert state.chain[0].card == "bug" and state.chain[0].effect_type == "flip"


def _with_hand(start: dict) -> dict:
    """Player 1 holds a card to discard for Magic Jammer."""
    sides = [dict(side) for side in start["sides"]]
    sides[1]["hand"] = [c(CELTIC, "p1_hand")]
    return {**start, "sides": sides}


#: Player 0's Celtic Guardian in the hand, to Set this turn.
FLIP_BOARD_P0 = {"hand": [c(CELTIC, "celtic")]}
BUG_ATTACKED = [battle([VORSE_], [mon("bug", MAN_EATER, "set")]), attack("vorse", "bug"), step("damage")]


def test_eff_05_battle_12_man_eater_bug_destroyed_by_battle_activates_in_the_gy() -> None:
    """EFF-05, BATTLE-12: the record states no flip; damage calculation flips the attacked Bug and
    destroys it. Its Flip effect follows from the GY."""
    state = fold(*BUG_ATTACKED, calc(["bug"], [0, 0]), to_gy("bug", 1), flip_effect("bug", targets=["vorse"]))
    assert state.chain[0].card == "bug" and state.cards["bug"].zone == "gy"


def test_battle_12_a_flip_effect_before_damage_calculation_refused_the_flip_unrecorded() -> None:
    """BATTLE-12: attacked face-down, the Bug is flipped by the rules before damage calculation and
    its Flip effect waits for it. With the flip recorded (position_changed) this was refused as
    BATTLE-12; with it left to damage calculation, as EFF-05 "not flipped face-up this turn",
    which it is about to be: the same play, one rule."""
    check([*BUG_ATTACKED, flip_effect("bug", targets=["vorse"])], "BATTLE-12", "after damage calculation")


def test_eff_05_flip_summoned_then_sent_activates_from_the_gy() -> None:
    """EFF-05: a monster Flip Summoned, then destroyed before its Flip effect is activated, still
    activates it, off the field."""
    state = fold(board({"mzone": [c(MAN_EATER, "bug", position="set")]}, P1_TRAPS),
                 {"kind": "flip_summoned", "card": "bug"}, moved("bug", [0, "gy"], "destroyed", cause="x"),
                 act("bug", effect_type="flip", targets=["p1_celtic"]))
    assert state.chain[0].card == "bug" and state.cards["bug"].zone == "gy"


@pytest.mark.parametrize("events, says", [
    pytest.param([{"kind": "card_revealed", "cards": ["bug"]}], "it does not flip it, TERM-10",
                 id="confirmed-in-the-opponents-turn"),
    pytest.param([flip("soldier"), flip("soldier", "y", "set")], "not flipped face-up this turn",
                 id="another-monster-flipped"),
])
def test_term_10_eff_05_no_flip_of_this_monster_refused(events: list[dict], says: str) -> None:
    """TERM-10, EFF-05: confirmed, the Bug was shown, not flipped; another monster's flip is not its."""
    check([FLIPS, *events, flip_effect("bug", targets=["vorse"])], "EFF-05", says)


def _resumed(events: list[dict], drop: tuple[str, ...]) -> DuelState:
    """The state a Store resumes from a snapshot of ``events``' fold (``to_data``/``from_data``),
    its scalars ``drop`` removed: one stored by the engine before they existed."""
    state = fold(*events)
    data = state.to_data()
    for name in drop:
        del data["scalars"][name]
    return DuelState.from_data(data, state.db)


FLIPPED_BACK = [FLIPS, act("swords"), resolved(), flip("bug"), flip("bug", "y", "set")]


@pytest.mark.parametrize("drop", [pytest.param((), id="snapshot-of-this-engine"),
                                  pytest.param(("flipped", "resolved"), id="snapshot-before-the-upgrade")])
def test_eff_05_a_flip_before_a_snapshot_still_lets_its_flip_effect_activate(drop: tuple[str, ...]) -> None:
    """EFF-05: the Bug was flipped, then turned face-down (Book of Moon), and the Store took a
    snapshot before its Flip effect was recorded. A snapshot of this engine keeps ``flipped``; one
    stored before the upgrade has none, and a duel recorded then is appended to now: the monsters
    on the field may have been flipped this turn (refused before: a legal play)."""
    state = _resumed(FLIPPED_BACK, drop)
    apply(state, from_dict(flip_effect("bug", targets=["vorse"])))
    assert state.chain[0].card == "bug"


def test_eff_05_the_benefit_of_an_old_snapshot_lasts_its_turn_only() -> None:
    """EFF-05: from the next turn on, an old snapshot's doubt is gone: never flipped, refused."""
    state = _resumed(FLIPPED_BACK, ("flipped", "resolved"))
    for event in (phase("end"), turn_started(1, 3), phase("draw"), {"kind": "cards_drawn", "player": 1, "count": 1},
                  phase("standby"), phase("main1")):
        apply(state, from_dict(event))
    with pytest.raises(RuleViolation) as info:
        apply(state, from_dict(flip_effect("bug", targets=["vorse"])))
    assert info.value.rule == "EFF-05", info.value


# == RIT-03 / FUS-03 ================================================================================

DESTROY_JAMMER = moved("jammer", [1, "gy"], "destroyed", cause="mst")
#: Player 0 also holds a second Polymerization and a Set Magic Jammer of their own.
FUSION_MORE = board({**FUSION_BOARD, "hand": [*FUSION_BOARD["hand"], c(POLYMERIZATION, "poly2"), c(KURIBOH, "k")],
                     "szone": [None, None, c(MAGIC_JAMMER, "my_jammer", position="set")],
                     "extra": [*FUSION_BOARD["extra"], c(THOUSAND_DRAGON, "thousand2"), c(XYZ_DRAGON_CANNON, "cannon")]},
                    P1_TRAPS)


@pytest.mark.parametrize("events", [
    pytest.param([act("poly", zone=0), MST_ON_JAMMER,
                  act("my_jammer", negates=2, costs=[{"card": "k", "to": "gy", "reason": "discarded"}]),
                  resolved(3), {"kind": "chain_link_negated", "link": 2, "by": 3}, resolved(1),
                  fuse("hand_celtic", "ox")],
                 id="chained-by-the-opponent-with-a-card-that-is-negated"),
    pytest.param([act("poly", zone=0), resolved(), fuse("hand_celtic", "ox"),
                  ss("thousand2", 3, "fusion", materials=["k", "set_vorse"], cause="poly")],
                 id="two-fusion-summons-of-one-resolution"),
    pytest.param([act("poly", zone=0), resolved(), moved("poly", [0, "gy"], "resolved"), act("poly2", zone=1),
                  resolved(), fuse("hand_celtic", "ox", cause="poly2")],
                 id="a-second-polymerization-once-the-first-resolved-unsummoning"),
])
def test_fus_03_responses_before_and_summons_within_the_resolution(events: list[dict]) -> None:
    """FUS-03: a card chained to Polymerization (and negated by a third) resolved before it; one
    resolution may make more than one Fusion Summon; a second Polymerization activated once the
    first had resolved (its summon never came) makes its own."""
    state = fold(FUSION_MORE, *events)
    assert state.cards["thousand"].summon_method == "fusion"


#: Dark Magician's effect (made up: the engine reads no card text) Fusion or Ritual Summons.
DM_FIELD = board({**FUSION_BOARD, "mzone": [*FUSION_BOARD["mzone"], None, c(DARK_MAGICIAN, "dm_f", position="attack")]},
                 P1_TRAPS)


def test_fus_03_a_fusion_summon_by_a_monsters_effect() -> None:
    """FUS-01, FUS-03: a monster's Ignition effect makes a Fusion Summon; its link resolved, the
    summon follows."""
    state = fold(DM_FIELD, act("dm_f", effect_type="ignition"), resolved(),
                 fuse("hand_celtic", "ox", cause="dm_f"))
    assert state.cards["thousand"].summon_method == "fusion"


#: A monster in the hand (Vorse Raider, its effect made up) that Ritual Summons, discarded as its cost.
RITUAL_MONSTER = board({**RITUAL_BOARD, "hand": [*RITUAL_BOARD["hand"], c(VORSE, "shaman")]}, P1_TRAPS)
SHAMAN = act("shaman", effect_type="ignition", costs=[{"card": "shaman", "to": "gy", "reason": "discarded"}])


@pytest.mark.parametrize("start, cause, summon, rule", [
    pytest.param(DM_FIELD, act("dm_f", effect_type="ignition"), fuse("hand_celtic", "ox", cause="dm_f"), "FUS-03",
                 id="fusion-by-a-monster-effect"),
    pytest.param(RITUAL_MONSTER, SHAMAN, ritual("dm", "kuriboh", cause="shaman"), "RIT-03",
                 id="ritual-by-a-monster-effect-from-the-hand"),
])
def test_rit_03_fus_03_a_summon_by_a_monster_effect_interrupted_refused(
        start: dict, cause: dict, summon: dict, rule: str) -> None:
    """RIT-03, FUS-03: the monster's effect resolved; Mystical Space Typhoon then started a chain
    that has resolved: the summon the effect makes after it is refused."""
    check([start, cause, resolved(), MST_ON_JAMMER, resolved(), DESTROY_JAMMER, summon], rule,
          "mst was activated after it began to resolve")


def test_rit_03_a_ritual_summon_by_a_monster_effect() -> None:
    """RIT-01, RIT-03: a monster discarded as its own cost Ritual Summons from the hand."""
    state = fold(RITUAL_MONSTER, SHAMAN, resolved(), ritual("dm", "kuriboh", cause="shaman"))
    assert state.cards["bls"].summon_method == "ritual"


def test_rit_03_an_old_snapshot_without_resolved_lets_the_summon_through() -> None:
    """RIT-03: a snapshot stored before ``resolved`` existed does not say the Ritual Spell resolved
    before Mystical Space Typhoon's chain: the summon after it is not called (it would be from a
    fold of the whole record, which an audit makes)."""
    events = [*RITUAL_START, MST_ON_JAMMER, resolved(), DESTROY_JAMMER]
    state = _resumed(events, ("flipped", "resolved"))
    apply(state, from_dict(ritual("dm", "kuriboh")))
    assert state.cards["bls"].summon_method == "ritual"
    check([*events, ritual("dm", "kuriboh")], "RIT-03", "mst was activated after it began to resolve")



def test_rit_03_a_ritual_spell_activated_after_another_spell_resolved() -> None:
    """RIT-03: a Spell that resolved (Mystical Space Typhoon here stands for Pre-Preparation of
    Rites, which adds a Ritual Spell: the engine reads no card text), then the Ritual Spell in a
    chain of its own: its summon follows its own resolution, nothing came in between."""
    state = fold(board(RITUAL_BOARD, P1_TRAPS), MST_ON_JAMMER, resolved(), DESTROY_JAMMER,
                 moved("mst", [0, "gy"], "resolved"), act("ritual", zone=0), resolved(), ritual("dm", "kuriboh"))
    assert state.cards["bls"].summon_method == "ritual"


def test_fus_03_a_contact_fusion_is_no_fusion_summon_and_waits_for_nothing() -> None:
    """FUS-03 is a Fusion Summon's, made by a resolving card: a Contact Fusion (an inherent summon,
    its materials sent as its procedure) after Polymerization resolved and another chain followed
    is not judged by it."""
    state = fold(FUSION_MORE, act("poly", zone=0), resolved(), MST_ON_JAMMER, resolved(), DESTROY_JAMMER,
                 moved("hand_celtic", [0, "gy"]), moved("ox", [0, "gy"]), ss("cannon", 2, "inherent"))
    assert state.cards["cannon"].summon_method == "inherent"


def test_eff_05_a_refused_flip_summon_is_no_flip() -> None:
    """EFF-05, SUM-11: a Flip Summon (a manual position change) of a monster Set this turn is
    refused and leaves the state as it was: the monster, still face-down, was not flipped, and
    its Flip effect is refused after it (accepted before: the refused change had counted it as
    flipped)."""
    state = fold(board(FLIP_BOARD_P0), monster_set("celtic", 3))
    with pytest.raises(RuleViolation) as info:
        apply(state, from_dict(flip("celtic", None, "attack")))
    assert info.value.rule == "SUM-11" and state.cards["celtic"].position == "set"
    with pytest.raises(RuleViolation) as info:
        apply(state, from_dict(flip_effect("celtic", player=0)))
    assert info.value.rule == "EFF-05", info.value


POLY_NEGATED = [FUSION_MORE, act("poly", zone=0), {**JAMMER, "negates": 1}, resolved(2),
                {"kind": "chain_link_negated", "link": 1, "by": 2}]


def test_term_14_a_negated_polymerization_fusion_summons_nothing() -> None:
    """TERM-14: Magic Jammer negated Polymerization's activation: it applies nothing, so the Fusion
    Summon that names it is refused (accepted before: only moves, changes and damage were checked);
    its materials may still be sent by another cause, and the chain goes on to its end."""
    check([*POLY_NEGATED, fuse("hand_celtic", "ox")], "TERM-14", "a negated activation applies nothing")
    state = fold(*POLY_NEGATED, moved("poly", [0, "gy"], "negated"), moved("jammer", [1, "gy"], "resolved"),
                 {"kind": "chain_ended"},
                 act("poly2", zone=1), resolved(), fuse("hand_celtic", "ox", cause="poly2"))
    assert state.cards["thousand"].summon_method == "fusion"


#: Dark Magician's (made-up) effect, its activation negated by Magic Jammer; the chain's end unrecorded.
DM_NEGATED = [DM_FIELD, act("dm_f", effect_type="ignition"), {**JAMMER, "negates": 1}, resolved(2),
              {"kind": "chain_link_negated", "link": 1, "by": 2}, moved("jammer", [1, "gy"], "resolved"),
              act("dm_f", effect_type="ignition", cite={"card": "dm_f", "effect": "once more"}), resolved()]


@pytest.mark.parametrize("outcome", [
    pytest.param(moved("p1_celtic", [1, "gy"], "destroyed", cause="dm_f"), id="destroys"),
    pytest.param(fuse("hand_celtic", "ox", cause="dm_f"), id="fusion-summons"),
])
def test_term_14_a_card_activated_again_in_a_new_chain_applies_again(outcome: dict) -> None:
    """TERM-14 is a chain's: the negated activation applied nothing in it. A record need not mark
    that chain's end (CHAIN-05); the same card activated again starts a new chain, and this
    activation applies: the destruction was refused as TERM-14 before (the summon would be, with
    the negated Polymerization's summon refused, had the old chain's negations not ended)."""
    state = fold(*DM_NEGATED, outcome)
    assert state.cards[outcome["card"]].zone in ("gy", "mzone") and not state.chain
