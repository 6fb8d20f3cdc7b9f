"""What a card's own text obliges or limits, as its script states it (``rules.card_text``, issue
24): a mandatory trigger must be activated (GEN-03, EFF-05), once-per-turn limits (TEXT-01), and a
monster whose script declares no activated effect has none to activate (EFF-03, EFF-07).

The scripts are this project's own, written in the shape EDOPro/ProjectIgnis scripts have and read
with ``card_scripts.read_script`` as ``ygoreplay cards update --scripts`` reads a folder (third-party
scripts are never kept in the repository). Where the facts leave any doubt (a condition, a cost, a
target, a count limit, a card that could stop activations) nothing is called.
"""
from __future__ import annotations

import sqlite3

import msgpack
import pytest
from duel import CARDS, DARK_HOLE, MST, VORSE, fold, position, refused_with
from test_rules_gaps import c, ev

from ygoreplay.card_scripts import read_script
from ygoreplay.cards import CardDB, CardFacts
from ygoreplay.effect_facts import EFFECTS_COLUMNS_V1, EffectFact
from ygoreplay.events import from_dict
from ygoreplay.rules import RuleViolation, apply
from ygoreplay.state import DuelState

(HERALD, WARY_HERALD, FLIPPER, SEED, SEARCHER, SOFT, CHARITY, WALL, DRAGON, VEILER, AMBUSH, ENDLESS,
 WATCHER) = range(990201, 990214)


def _script(body: str) -> str:
    return f"local s,id=GetID()\nfunction s.initial_effect(c)\n{body}\nend\n" + _FUNCTIONS


_FUNCTIONS = """function s.target(e,tp,eg,ep,ev,re,r,rp,chk)
	if chk==0 then return true end
	Duel.SetOperationInfo(0,CATEGORY_DRAW,nil,0,tp,1)
end
function s.checked(e,tp,eg,ep,ev,re,r,rp,chk)
	if chk==0 then return Duel.IsPlayerCanDraw(tp,1) end
end
function s.condition(e,tp,eg,ep,ev,re,r,rp)
	return e:GetHandler():IsPreviousLocation(LOCATION_ONFIELD)
end
function s.operation(e,tp,eg,ep,ev,re,r,rp)
	Duel.Draw(tp,1,REASON_EFFECT)
end
"""

#: "When this card is Normal Summoned: draw 1 card" (no "you can": mandatory).
HERALD_LUA = _script("""	local e1=Effect.CreateEffect(c)
	e1:SetCategory(CATEGORY_DRAW)
	e1:SetType(EFFECT_TYPE_SINGLE+EFFECT_TYPE_TRIGGER_F)
	e1:SetCode(EVENT_SUMMON_SUCCESS)
	e1:SetTarget(s.target)
	e1:SetOperation(s.operation)
	c:RegisterEffect(e1)""")
#: The same, but only "if ... while it was on the field" (a condition) and a target that checks.
WARY_LUA = HERALD_LUA.replace("\te1:SetTarget(s.target)", "\te1:SetCondition(s.condition)\n\te1:SetTarget(s.checked)")
#: "FLIP: Draw 1 card."
FLIPPER_LUA = _script("""	local e1=Effect.CreateEffect(c)
	e1:SetType(EFFECT_TYPE_SINGLE+EFFECT_TYPE_FLIP)
	e1:SetTarget(s.target)
	e1:SetOperation(s.operation)
	c:RegisterEffect(e1)""")
#: "If this card is sent to the GY: draw 1 card" (mandatory).
SEED_LUA = HERALD_LUA.replace("EVENT_SUMMON_SUCCESS", "EVENT_TO_GRAVE").replace(
    "e1:SetCategory", "e1:SetProperty(EFFECT_FLAG_DELAY)\n\te1:SetCategory")
#: "You can only use this effect of Test Searcher once per turn": an Ignition Effect, a hard limit.
SEARCHER_LUA = _script("""	local e1=Effect.CreateEffect(c)
	e1:SetType(EFFECT_TYPE_IGNITION)
	e1:SetRange(LOCATION_MZONE)
	e1:SetCountLimit(1,id)
	e1:SetTarget(s.target)
	e1:SetOperation(s.operation)
	c:RegisterEffect(e1)""")
#: "Once per turn": a soft limit, per card.
SOFT_LUA = SEARCHER_LUA.replace("SetCountLimit(1,id)", "SetCountLimit(1)")
#: "You can only activate 1 Test Charity per turn" (an oath: a negated activation does not count).
CHARITY_LUA = _script("""	local e1=Effect.CreateEffect(c)
	e1:SetCategory(CATEGORY_DRAW)
	e1:SetType(EFFECT_TYPE_ACTIVATE)
	e1:SetCode(EVENT_FREE_CHAIN)
	e1:SetCountLimit(1,id,EFFECT_COUNT_CODE_OATH)
	e1:SetTarget(s.target)
	e1:SetOperation(s.operation)
	c:RegisterEffect(e1)""")
#: "Monsters you control gain 300 ATK": a Continuous effect only.
WALL_LUA = _script("""	local e1=Effect.CreateEffect(c)
	e1:SetType(EFFECT_TYPE_FIELD)
	e1:SetCode(EFFECT_UPDATE_ATTACK)
	e1:SetRange(LOCATION_MZONE)
	e1:SetTargetRange(LOCATION_MZONE,0)
	e1:SetValue(300)
	c:RegisterEffect(e1)""")
#: "If only your opponent controls a monster, you can Special Summon this card (from your hand)."
DRAGON_LUA = _script("""	local e1=Effect.CreateEffect(c)
	e1:SetType(EFFECT_TYPE_FIELD)
	e1:SetCode(EFFECT_SPSUMMON_PROC)
	e1:SetProperty(EFFECT_FLAG_UNCOPYABLE)
	e1:SetRange(LOCATION_HAND)
	e1:SetCondition(s.condition)
	c:RegisterEffect(e1)""")
#: A Quick Effect that negates a monster's effects until the end of the turn (it registers EFFECT_DISABLE).
VEILER_LUA = _script("""	local e1=Effect.CreateEffect(c)
	e1:SetType(EFFECT_TYPE_QUICK_O)
	e1:SetCode(EVENT_FREE_CHAIN)
	e1:SetRange(LOCATION_HAND)
	e1:SetOperation(s.negate)
	c:RegisterEffect(e1)
end
function s.negate(e,tp,eg,ep,ev,re,r,rp)
	local e1=Effect.CreateEffect(e:GetHandler())
	e1:SetType(EFFECT_TYPE_SINGLE)
	e1:SetCode(EFFECT_DISABLE)
	e1:SetReset(RESET_EVENT+RESETS_STANDARD+RESET_PHASE+PHASE_END)
	Duel.GetFirstTarget():RegisterEffect(e1)""")

#: A Trap "you can activate from your hand if you control no cards" (its own EFFECT_TRAP_ACT_IN_HAND).
AMBUSH_LUA = _script("""	local e1=Effect.CreateEffect(c)
	e1:SetType(EFFECT_TYPE_ACTIVATE)
	e1:SetCode(EVENT_FREE_CHAIN)
	c:RegisterEffect(e1)
	local e2=Effect.CreateEffect(c)
	e2:SetType(EFFECT_TYPE_SINGLE)
	e2:SetCode(EFFECT_TRAP_ACT_IN_HAND)
	e2:SetCondition(s.condition)
	c:RegisterEffect(e2)""")
#: A Continuous Spell: "You have no hand size limit" (EFFECT_HAND_LIMIT while face-up).
ENDLESS_LUA = _script("""	local e1=Effect.CreateEffect(c)
	e1:SetType(EFFECT_TYPE_ACTIVATE)
	e1:SetCode(EVENT_FREE_CHAIN)
	c:RegisterEffect(e1)
	local e2=Effect.CreateEffect(c)
	e2:SetType(EFFECT_TYPE_FIELD)
	e2:SetCode(EFFECT_HAND_LIMIT)
	e2:SetRange(LOCATION_SZONE)
	e2:SetProperty(EFFECT_FLAG_PLAYER_TARGET)
	e2:SetTargetRange(1,0)
	e2:SetValue(100)
	c:RegisterEffect(e2)""")
#: "If a monster is destroyed while this card is in your GY: you can draw 1 card" (a field trigger in the GY).
WATCHER_LUA = _script("""	local e1=Effect.CreateEffect(c)
	e1:SetType(EFFECT_TYPE_FIELD+EFFECT_TYPE_TRIGGER_O)
	e1:SetProperty(EFFECT_FLAG_DELAY)
	e1:SetCode(EVENT_DESTROYED)
	e1:SetRange(LOCATION_GRAVE)
	e1:SetTarget(s.target)
	e1:SetOperation(s.operation)
	c:RegisterEffect(e1)""")

SCRIPTS = {HERALD: HERALD_LUA, WARY_HERALD: WARY_LUA, FLIPPER: FLIPPER_LUA, SEED: SEED_LUA, SEARCHER: SEARCHER_LUA,
           SOFT: SOFT_LUA, CHARITY: CHARITY_LUA, WALL: WALL_LUA, DRAGON: DRAGON_LUA, VEILER: VEILER_LUA,
           AMBUSH: AMBUSH_LUA, ENDLESS: ENDLESS_LUA, WATCHER: WATCHER_LUA}
_TYPES = {CHARITY: 0x2, AMBUSH: 0x4, ENDLESS: 0x20002}
OWN = CardDB([CardFacts(code=code, name=name, type=_TYPES.get(code, 0x21), level=4, atk=1000,
                        defense=1000) for code, name in (
    (HERALD, "Test Herald"), (WARY_HERALD, "Test Wary Herald"), (FLIPPER, "Test Flipper"), (SEED, "Test Seed"),
    (SEARCHER, "Test Searcher"), (SOFT, "Test Soft"), (CHARITY, "Test Charity"), (WALL, "Test Wall"),
    (DRAGON, "Test Dragon"), (VEILER, "Test Veiler"), (AMBUSH, "Test Ambush"), (ENDLESS, "Test Endless"),
    (WATCHER, "Test Watcher"))])
FACTS = {code: read_script(text) for code, text in SCRIPTS.items()}
TEXT = CARDS.merged(OWN).with_effects(FACTS)
NO_SCRIPTS = CARDS.merged(OWN)


def act(card: str, player: int = 0, **fields) -> dict:
    return ev("activated", player=player, card=card, **fields)


def resolve(links: int = 1) -> list[dict]:
    return [*(ev("chain_link_resolved", link=n) for n in range(links, 0, -1)), ev("chain_ended")]


def legal(*events: dict, cards: CardDB = TEXT) -> None:
    fold(*events, cards=cards)


def check(events: list[dict], rule: str, says: str = "", cards: CardDB = TEXT) -> None:
    refused_with(events, rule, says, cards)


def test_the_facts_say_what_keeps_an_effect_back():
    """``condition``: a SetCondition, a SetCost, or a target check that is not a plain ``true``."""
    herald, = FACTS[HERALD]
    wary, = FACTS[WARY_HERALD]
    assert herald.mandatory and herald.condition is False and "with a condition" not in herald.describe()
    assert wary.mandatory and wary.condition is True and "with a condition" in wary.describe()
    assert FACTS[FLIPPER][0].kind == "flip" and FACTS[FLIPPER][0].condition is False
    assert EffectFact(("single", "trigger_f")).condition is None          # not read: not known


# -- GEN-03, EFF-05: a mandatory trigger must be activated -------------------------------------------

HAND = position({"hand": [c(HERALD, "herald"), c(WARY_HERALD, "wary"), c(SEED, "seed"), c(VEILER, "veiler")],
                 "mzone": [c(FLIPPER, "flipper", position="set")], "szone": [c(MST, "mst", position="set")]},
                {"hand": [c(VEILER, "p1_veiler")], "szone": [c(MST, "p1_mst", position="set")]})
SUMMON = ev("normal_summoned", player=0, card="herald", zone=1)
ONWARD = ev("phase_entered", phase="battle")


def test_gen_03_a_mandatory_trigger_activated_when_it_triggers():
    """GEN-03: Test Herald's "when Normal Summoned: draw 1" (TRIGGER_F) activated, then the duel moves on."""
    legal(HAND, SUMMON, act("herald", effect_type="trigger"), *resolve(), ONWARD)
    # a recorder that cannot tell the kind (EDOPro's stream) records Chain Link 1 as an ignition effect
    legal(HAND, SUMMON, act("herald", effect_type="ignition"), *resolve(), ONWARD)


def test_gen_03_a_mandatory_trigger_never_activated_refused():
    check([HAND, SUMMON, ONWARD], "GEN-03", "Test Herald was Normal Summoned")
    check([HAND, SUMMON, ev("monster_set", player=0, card="wary", zone=2)], "GEN-03", "mandatory trigger")


def test_gen_03_a_mandatory_trigger_of_a_card_sent_to_the_gy_in_a_chain_waits_for_the_chain():
    """GEN-03: Test Seed, discarded while a chain resolves, owes its trigger once the chain ends."""
    discard = ev("card_moved", card="seed", to=[0, "gy"], reason="discarded", cause="mst")
    opening = [HAND, act("mst", targets=["p1_mst"]), ev("chain_link_resolved", link=1), discard,
               ev("card_moved", card="p1_mst", to=[1, "gy"], reason="destroyed", cause="mst"),
               ev("card_moved", card="mst", to=[0, "gy"], reason="resolved"), ev("chain_ended")]
    legal(*opening, act("seed", effect_type="trigger"), *resolve(), ONWARD)
    check([*opening, ONWARD], "GEN-03", "sent to the GY")


def test_gen_03_what_could_keep_a_trigger_back_is_never_called():
    """A condition or a checking target (Test Wary Herald), no script read, a database stored
    before conditions were read, a card that moved again, an effect-negating card activated: undecided."""
    legal(HAND, ev("normal_summoned", player=0, card="wary", zone=1), ONWARD)
    legal(HAND, SUMMON, ONWARD, cards=NO_SCRIPTS)
    old = {code: tuple(EffectFact.from_row(f.to_row(code, 0)[2:-2]) for f in facts) for code, facts in FACTS.items()}
    assert old[HERALD][0].condition is None
    legal(HAND, SUMMON, ONWARD, cards=NO_SCRIPTS.with_effects(old))
    legal(HAND, SUMMON, ev("card_moved", card="herald", to=[0, "gy"], reason="destroyed", cause="p1_mst"), ONWARD)
    legal(HAND, SUMMON, act("p1_veiler", 1, effect_type="quick", targets=["herald"]), *resolve(), ONWARD)


def test_eff_05_a_flip_effect_activated_after_its_flip_summon():
    """EFF-05: a FLIP effect (no "you can") is mandatory: activated once Flip Summoned."""
    legal(HAND, ev("flip_summoned", player=0, card="flipper"), act("flipper", effect_type="flip"), *resolve(), ONWARD)


def test_eff_05_a_flip_effect_left_behind_refused():
    check([HAND, ev("flip_summoned", player=0, card="flipper"), ONWARD], "EFF-05", "a FLIP effect, which is mandatory")


def test_the_old_database_columns_still_read():
    """An ``effects`` table stored before ``condition`` was read gives rows without it."""
    conn = sqlite3.connect(":memory:")
    conn.execute(f"create table effects ({', '.join(EFFECTS_COLUMNS_V1)})")
    conn.execute("insert into effects values (1, 0, 'single trigger_f', 'EVENT_SUMMON_SUCCESS', '', '', 0, '', 1)")
    fact, = (EffectFact.from_row(row) for row in conn.execute(f"select {', '.join(EFFECTS_COLUMNS_V1[2:])} from effects"))
    assert fact.mandatory and fact.condition is None


# -- TEXT-01: once-per-turn limits -------------------------------------------------------------------

FIELD = position({"mzone": [c(SEARCHER, "searcher", position="attack"), c(SEARCHER, "searcher2", position="attack"),
                            c(SOFT, "soft", position="attack"), c(SOFT, "soft2", position="attack")],
                  "hand": [c(CHARITY, "charity"), c(CHARITY, "charity2"), c(WALL, "wall"), c(DRAGON, "dragon")],
                  "gy": [c(DARK_HOLE, "hole")]},
                 {"mzone": [c(SEARCHER, "p1_searcher", position="attack")], "szone": [c(MST, "p1_mst", position="set")],
                  "hand": [c(VORSE, "p1_vorse")]})


def next_turn(turn: int, player: int) -> list[dict]:
    return [ev("phase_entered", phase="end"), ev("turn_started", turn=turn, player=player),
            ev("phase_entered", phase="draw"), ev("cards_drawn", player=player),
            ev("phase_entered", phase="standby"), ev("phase_entered", phase="main1")]


def ignite(card: str, player: int = 0) -> list[dict]:
    return [act(card, player, effect_type="ignition"), *resolve()]


def spent(*cards: str) -> list[dict]:
    """The chain resolves, newest link first, and its Spells go to the GY."""
    return [*(ev("chain_link_resolved", link=n) for n in range(len(cards), 0, -1)),
            *(ev("card_moved", card=card, to=[int(card.startswith("p1_")), "gy"], reason="resolved") for card in cards),
            ev("chain_ended")]


def test_text_01_each_copy_and_each_player_within_the_limits():
    """TEXT-01: a soft "once per turn" is per card (two copies once each); a hard one by name is
    per player; the next turn it may be used again."""
    legal(FIELD, *ignite("soft"), *ignite("soft2"), *ignite("searcher"))
    legal(FIELD, *ignite("searcher"), *next_turn(3, 1), *ignite("p1_searcher", 1), *next_turn(4, 0), *ignite("searcher2"))


@pytest.mark.parametrize("events, says", [
    pytest.param([*ignite("searcher"), act("searcher2", effect_type="ignition")], "by 990205, across copies",
                 id="hard-limit-across-copies"),
    pytest.param([*ignite("soft"), act("soft", effect_type="ignition")], "1 time(s) per turn", id="soft-limit"),
    pytest.param([act("charity", zone=0), *spent("charity"), act("charity2", zone=1)], "by 990207",
                 id="activate-one-per-turn"),
])
def test_text_01_an_effect_used_beyond_its_limit_refused(events, says):
    check([FIELD, *events], "TEXT-01", says)


def test_text_01_a_negated_activation_of_an_activate_1_per_turn_card_does_not_count():
    """TEXT-01: Test Charity ("activate 1 per turn", an oath) negated: another may be activated, as
    EDOPro allows; Test Searcher's "use once per turn" counts even when negated."""
    negated = [ev("chain_link_resolved", link=2), ev("chain_link_negated", link=1, by=2),
               ev("card_moved", card="p1_mst", to=[1, "gy"], reason="resolved")]
    legal(FIELD, act("charity", zone=0), act("p1_mst", 1, negates=1), *negated,
          ev("card_moved", card="charity", to=[0, "gy"], reason="negated"), ev("chain_ended"), act("charity2", zone=1))
    check([FIELD, act("searcher", effect_type="ignition"), act("p1_mst", 1, negates=1), *negated, ev("chain_ended"),
           act("searcher", effect_type="ignition")], "TEXT-01")


def test_text_01_without_a_script_nothing_is_counted():
    legal(FIELD, *ignite("searcher"), act("searcher2", effect_type="ignition"), cards=NO_SCRIPTS)


# -- EFF-03, EFF-07: an effect that is never activated ---------------------------------------------------

ON_FIELD = position({"mzone": [c(WALL, "wall", position="attack"), c(DRAGON, "dragon", position="attack"),
                               c(SEARCHER, "searcher", position="attack")]})


def test_eff_03_eff_07_a_monster_activates_the_effects_its_script_declares():
    """EFF-03, EFF-07: Test Searcher's Ignition Effect is activated; Test Wall's and Test Dragon's
    effects are not, so nothing is activated for them."""
    legal(ON_FIELD, *ignite("searcher"))
    legal(ON_FIELD, act("wall", effect_type="ignition"), cards=NO_SCRIPTS)


def test_eff_03_a_monster_with_only_continuous_effects_activated_refused():
    check([ON_FIELD, act("wall", effect_type="ignition")], "EFF-03", "only Continuous effects")


def test_eff_07_a_monster_with_only_a_summoning_procedure_activated_refused():
    check([ON_FIELD, act("dragon", effect_type="quick")], "EFF-07", "summoning procedures")


# -- TRAP-03, HAND-02: what a card's text allows is not called -------------------------------------------

def test_trap_03_a_trap_whose_script_allows_it_from_the_hand():
    """TRAP-03: Test Ambush declares EFFECT_TRAP_ACT_IN_HAND (under a condition the reader does not
    judge): activated from the hand, TRAP-02 is not called; without its script it is."""
    board = position({"hand": [c(AMBUSH, "ambush")]})
    legal(board, act("ambush", zone=0))
    check([board, act("ambush", zone=0)], "TRAP-02", "must be Set", cards=NO_SCRIPTS)


def test_hand_02_a_face_up_card_that_changes_the_hand_size():
    """HAND-02: with Test Endless face-up (EFFECT_HAND_LIMIT) a turn may end with 7 cards in hand."""
    board = position({"hand": [c(VORSE, f"v{n}") for n in range(7)], "szone": [c(ENDLESS, "endless", position="faceup")]},
                     phase="end")
    legal(board, ev("turn_started", turn=3, player=1))
    check([board, ev("turn_started", turn=3, player=1)], "HAND-01", cards=NO_SCRIPTS)


def test_gen_03_what_is_owed_is_part_of_a_snapshot():
    """A state written as plain data (a stored snapshot) and read back still owes the trigger."""
    state = fold(HAND, SUMMON, cards=TEXT)
    again = DuelState.from_data(msgpack.unpackb(msgpack.packb(state.to_data())), TEXT)
    assert again.card_text[0] == {"herald": ["EVENT_SUMMON_SUCCESS", 0, "mzone"]}
    with pytest.raises(RuleViolation) as info:
        apply(again, from_dict(ONWARD))
    assert info.value.rule == "GEN-03"


# -- EFF-04: a trigger is Spell Speed 1 --------------------------------------------------------------

TRIGGERS = position({"hand": [c(HERALD, "herald")], "szone": [c(MST, "mst", position="set")]},
                    {"gy": [c(SEED, "p1_seed")], "szone": [c(MST, "p1_mst", position="set")]})


def test_eff_04_triggers_chained_together_whatever_the_record_calls_them():
    """EFF-04: Test Herald's and Test Seed's scripts declare only triggers; recorded as EDOPro's
    stream has them (Chain Link 1 an ignition effect, Chain Link 2 a quick one) they are
    simultaneous triggers, legal."""
    legal(TRIGGERS, SUMMON, act("herald", effect_type="ignition"), act("p1_seed", 1, effect_type="quick"))
    legal(TRIGGERS, act("mst", targets=["p1_mst"]), act("p1_seed", 1, effect_type="quick"), cards=NO_SCRIPTS)


def test_eff_04_a_trigger_chained_to_a_spell_refused():
    """EFF-04: chained to Mystical Space Typhoon's activation, Test Seed's trigger is no
    simultaneous one: Spell Speed 1 cannot respond."""
    check([TRIGGERS, act("mst", targets=["p1_mst"]), act("p1_seed", 1, effect_type="quick")], "EFF-04",
          "script declares only triggers")


# -- CHAIN-12: no trigger from a hidden zone -----------------------------------------------------------

WATCHING = position({"hand": [c(WATCHER, "watcher_hand")], "gy": [c(WATCHER, "watcher")],
                     "mzone": [c(VORSE, "vorse", position="attack")], "szone": [c(MST, "mst", position="set")]},
                    {"mzone": [c(VORSE, "p1_vorse", position="attack")]})
DESTROYED = [act("mst", targets=["p1_vorse"]), ev("chain_link_resolved", link=1),
             ev("card_moved", card="p1_vorse", to=[1, "gy"], reason="destroyed", cause="mst"),
             ev("card_moved", card="mst", to=[0, "gy"], reason="resolved"), ev("chain_ended")]


def test_chain_12_a_trigger_activated_where_its_script_lets_it():
    """CHAIN-12: Test Watcher's trigger (SetRange LOCATION_GRAVE) activated from the GY."""
    legal(WATCHING, *DESTROYED, act("watcher", effect_type="trigger"))
    legal(WATCHING, *DESTROYED, act("watcher_hand", effect_type="trigger"), cards=NO_SCRIPTS)


def test_chain_12_a_trigger_activated_from_the_hand_refused():
    check([WATCHING, *DESTROYED, act("watcher_hand", effect_type="trigger")], "CHAIN-12",
          "its script's triggers are activated only from the grave")
