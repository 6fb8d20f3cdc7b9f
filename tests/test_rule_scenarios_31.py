"""Duel scenarios a head judge rules on, recorded as a table's recorder writes them (issue 25,
fifteenth pass: judge15).

Refused though legal:

* TURN-08, PRIO-01 (PRIO-05): after both players passed in the End Phase an End Phase effect
  applied without a chain (LP gained, ATK set, a counter placed "during the End Phase") changes
  the game state as a card it moves does: the turn player holds priority again. Only a move
  reopened the End Phase; after LP, ATK/DEF or counters the Quick-Play Spell that followed was
  refused as PRIO-05. Judged without card text: a change naming its cause is an effect applying;
  one naming none, or a cost, is no End Phase effect, and the End Phase stays ended.

Called under the wrong rule:

* WIN-02: a turn player with an empty Deck who must draw has lost; the record going on to the
  Standby Phase was refused as TURN-02 ("left the Draw Phase without drawing"), as if they could.

Let through though illegal:

* TURN-02: in the Draw Phase cards are activated after the turn player's draw. Mystical Space
  Typhoon activated by either player before the draw was accepted (the draw still owed).
* CHAIN-12, ZONE-11, XMAT-02, ZONE-15, POS-04: a card activates none of its effects from the
  Deck (hidden), as an Xyz material (no card on the field), banished face-down (unusable), or as a
  face-down monster (its effects hidden until it is flipped). Each was accepted.
* CHAIN-11 with TERM-07, XMAT-01, NIS-05, SUM-06: a card paid as a cost moves as its reason says.
  A "discarded" cost from the field, a "detached" one that was no Xyz material or went to the
  banished zone, a "tributed" one from the GY were accepted (only a ``card_moved`` was checked).
* TERM-14: a negated activation applies nothing. Cards drawn by a negated Pot of Greed, Tokens
  made by a negated Scapegoat, a monster turned face-down by a negated Book of Moon, an attack
  stopped by a negated Negate Attack, monsters swapped or moved by a negated effect were accepted
  (only moves, LP, ATK/DEF, counters, control and Special Summons were checked).
"""
from __future__ import annotations

import pytest
from test_rule_scenarios_27 import ev
from test_rule_scenarios_28 import passed
from test_rule_scenarios_30 import END_PHASE, QUICK_PLAY

from duel import (
    CELTIC, KURIBOH, MAGIC_JAMMER, MST, POT, SEVEN_TOOLS, SHEEP_TOKEN, VORSE, fold, position, refused_with)

SCAPEGOAT, BOOK_OF_MOON, NEGATE_ATTACK = 73915051, 14087893, 14315573
ENDED = "both players passed in succession with no chain open: the End Phase has ended (PRIO-05)"
NEGATED = "activation was negated: a negated activation applies nothing"

# == TURN-08, PRIO-01: whatever an End Phase effect changes gives priority back ====================

#: What an End Phase effect applied with no chain may change besides moving a card (``imt`` is a
#: card in player 0's GY, ``cel`` player 1's Celtic Guardian), each beside the same change naming
#: no effect, or paid as a cost: no End Phase effect.
CHANGES = [
    pytest.param(ev("life_points_changed", player=0, amount=500, reason="gain", cause="imt"),
                 ev("life_points_changed", player=0, amount=500, reason="gain"), id="lp-gained"),
    pytest.param(ev("life_points_changed", player=1, amount=500, reason="effect_damage", cause="imt"),
                 ev("life_points_changed", player=0, amount=500, reason="cost", cause="imt"), id="damage"),
    pytest.param(ev("stats_changed", card="cel", atk=0, cause="imt"), ev("stats_changed", card="cel", atk=0),
                 id="atk-set"),
    pytest.param(ev("counters_changed", card="cel", counter="spell", count=1, cause="imt"),
                 ev("life_points_changed", player=1, amount=100, reason="set"), id="counter-placed"),
]


@pytest.mark.parametrize("change, by_no_effect", CHANGES)
def test_turn_08_an_end_phase_effect_that_changes_lp_or_stats_gives_priority_back(change: dict,
                                                                                   by_no_effect: dict) -> None:
    """TURN-08, PRIO-01: both players pass in the End Phase; an effect worded "during the End
    Phase" gains LP (deals damage, sets ATK, places a counter) without a chain: the game state
    changed, the turn player holds priority again and activates Mystical Space Typhoon. Before:
    refused as PRIO-05 (only a card moved gave priority back). Once both pass again it has ended.
    Judged without card text: the same change naming no effect (a recorder's correction of the
    LP, a stat lapsing) or a cost is no End Phase effect applying: the End Phase stays ended."""
    state = fold(END_PHASE, passed(0), passed(1), change, QUICK_PLAY)
    assert state.chain[0].card == "mst"
    refused_with([END_PHASE, passed(0), passed(1), change, passed(0), passed(1), QUICK_PLAY], "PRIO-05", ENDED)
    refused_with([END_PHASE, passed(0), passed(1), by_no_effect, QUICK_PLAY], "PRIO-05", ENDED)


# == TERM-14: a negated activation applies nothing, whatever it would have done ====================

def _negated(card: dict, p0: dict | None = None, p1: dict | None = None, **fields) -> list[dict]:
    """Player 0 activates ``card`` (Chain Link 1); player 1's Magic Jammer (discarding Kuriboh)
    negates it; the chain resolves down to the negation of link 1."""
    p1 = {"szone": [{"code": MAGIC_JAMMER, "id": "jammer", "position": "set"}],
          "hand": [{"code": KURIBOH, "id": "kuriboh"}], **(p1 or {})}
    return [position(p0, p1, **fields), card,
            ev("activated", player=1, card="jammer", negates=1, costs=[{"card": "kuriboh", "to": "gy"}]),
            passed(0), passed(1), ev("chain_link_resolved", link=2), ev("chain_link_negated", link=1)]


def _resolved(card: dict, p0: dict | None = None, p1: dict | None = None, **fields) -> list[dict]:
    """The same card activated and not answered: it resolves."""
    return [position(p0, p1, **fields), card, passed(1), passed(0), ev("chain_link_resolved", link=1)]


POT_ = ev("activated", player=0, card="pot", zone=0)
POT_HAND = {"hand": [{"code": POT, "id": "pot"}]}


def test_term_14_a_negated_pot_of_greed_draws_nothing() -> None:
    """TERM-14: Pot of Greed's activation negated by Magic Jammer: player 0 draws no card by it.
    Before: the 2 cards drawn (cause: Pot of Greed) were accepted. Resolved, it draws 2."""
    draw = ev("cards_drawn", player=0, count=2, cause="pot")
    refused_with([*_negated(POT_, POT_HAND), draw], "TERM-14", "Pot of Greed's " + NEGATED)
    assert len(fold(*_resolved(POT_, POT_HAND), draw).sides[0].hand) == 2


def test_term_14_a_negated_scapegoat_makes_no_tokens() -> None:
    """TERM-14: Scapegoat (a Quick-Play Spell) negated: no Sheep Token is made. Before: accepted."""
    goat = ev("activated", player=0, card="goat", zone=0)
    hand = {"hand": [{"code": SCAPEGOAT, "id": "goat"}]}
    sheep = ev("token_created", card="sheep1", code=SHEEP_TOKEN, zone=1, position="defense", cause="goat")
    refused_with([*_negated(goat, hand), sheep], "TERM-14", "Scapegoat's " + NEGATED)
    assert fold(*_resolved(goat, hand), sheep).cards["sheep1"].zone == "mzone"


def test_term_14_a_negated_book_of_moon_turns_nothing_face_down() -> None:
    """TERM-14: Book of Moon negated: player 1's Vorse Raider stays face-up. Before: the change to
    face-down (cause: Book of Moon) was accepted."""
    book = ev("activated", player=0, card="book", zone=0, targets=["vorse"])
    hand = {"hand": [{"code": BOOK_OF_MOON, "id": "book"}]}
    down = ev("position_changed", card="vorse", position="set", cause="book")
    refused_with([*_negated(book, hand, {"mzone": [{"code": VORSE, "id": "vorse"}]}), down], "TERM-14",
                 "Book of Moon's " + NEGATED)
    assert fold(*_resolved(book, hand, {"mzone": [{"code": VORSE, "id": "vorse"}]}), down).cards["vorse"].position == "set"


def test_term_14_a_negated_negate_attack_stops_no_attack() -> None:
    """TERM-14: player 1 answers Vorse Raider's attack with Negate Attack; player 0's Seven Tools
    of the Bandit (paying 1000 LP) negates it: the attack goes on. Before: the attack cancelled by
    Negate Attack was accepted. Not negated, Negate Attack ends the attack."""
    board = position({"mzone": [{"code": VORSE, "id": "vorse"}],
                      "szone": [{"code": SEVEN_TOOLS, "id": "tools", "position": "set"}]},
                     {"mzone": [{"code": CELTIC, "id": "cel"}],
                      "szone": [{"code": NEGATE_ATTACK, "id": "na", "position": "set"}]}, phase="battle")
    attack = [board, ev("step_entered", step="battle"), ev("attack_declared", attacker="vorse", target="cel"), passed(0),
              ev("activated", player=1, card="na")]
    stop = ev("attack_cancelled", cause="na")
    negated = [*attack, ev("activated", player=0, card="tools", negates=1, costs=[{"lp": 1000}]), passed(1), passed(0),
               ev("chain_link_resolved", link=2), ev("chain_link_negated", link=1)]
    refused_with([*negated, stop], "TERM-14", "Negate Attack's " + NEGATED)
    assert fold(*attack, passed(0), passed(1), ev("chain_link_resolved", link=1), stop).attack is None


def test_term_14_a_negated_swap_swaps_nothing() -> None:
    """TERM-14: a negated Quick-Play Spell that would swap two monsters (or move one to another
    zone) applies nothing. Before: the swap and the move naming it were accepted."""
    mst = ev("activated", player=0, card="qp", zone=0)
    p0 = {"hand": [{"code": MST, "id": "qp"}], "mzone": [{"code": VORSE, "id": "vorse"}]}
    p1 = {"mzone": [{"code": CELTIC, "id": "cel"}]}
    swap = ev("cards_swapped", card="vorse", other="cel", cause="qp")
    move = ev("zone_changed", card="vorse", zone=3, cause="qp")
    refused_with([*_negated(mst, p0, p1), swap], "TERM-14", NEGATED)
    refused_with([*_negated(mst, p0, p1), move], "TERM-14", NEGATED)
    assert fold(*_resolved(mst, p0, p1), swap).cards["vorse"].controller == 1


# == TURN-02, WIN-02: the Draw Phase begins with the draw ===========================================

DRAW_PHASE = position({"szone": [{"code": MST, "id": "mst", "position": "set"}]},
                      {"szone": [{"code": MST, "id": "p1_mst", "position": "set"}]}, phase="draw")
NOT_DRAWN = "player 0 has not drawn yet: in the Draw Phase cards and effects are activated after the turn player's draw"


def test_turn_02_nothing_is_activated_in_the_draw_phase_before_the_draw() -> None:
    """TURN-02: the turn player draws first; then either player may activate a Quick-Play Spell
    or a Trap. Before: Mystical Space Typhoon, the turn player's or (after their pass) the
    opponent's, was accepted before the draw."""
    mine = ev("activated", player=0, card="mst", targets=["p1_mst"])
    theirs = ev("activated", player=1, card="p1_mst", targets=["mst"])
    refused_with([DRAW_PHASE, mine], "TURN-02", NOT_DRAWN)
    refused_with([DRAW_PHASE, theirs], "TURN-02", NOT_DRAWN)     # a pass before the draw: 31b
    drawn = ev("cards_drawn", player=0, count=1)
    assert fold(DRAW_PHASE, drawn, mine).chain[0].card == "mst"
    assert fold(DRAW_PHASE, drawn, passed(0), theirs).chain[0].card == "p1_mst"
    # the first player's first turn has no draw (SETUP-04): they may activate at once
    assert fold(position({"szone": [{"code": MST, "id": "mst", "position": "set"}]},
                         {"szone": [{"code": MST, "id": "p1_mst", "position": "set"}]},
                         phase="draw", turn=1, first_player=0), mine).chain[0].card == "mst"


def test_win_02_a_turn_player_who_cannot_draw_has_lost() -> None:
    """WIN-02: player 0's Deck is empty in their Draw Phase: they must draw and cannot, so they
    have lost; the record going on to the Standby Phase is refused as that, not as a draw left
    out (TURN-02). With a card in the Deck left undrawn it is TURN-02."""
    empty = position({"deck": []}, phase="draw")
    refused_with([empty, ev("phase_entered", phase="standby")], "WIN-02",
                 "player 0 must draw with an empty Deck: they have lost the duel")
    refused_with([DRAW_PHASE, ev("phase_entered", phase="standby")], "TURN-02",
                 "player 0 left the Draw Phase without drawing")
    # the one check (base.draw_owed): an activation or a pass before that draw is WIN-02 too, not TURN-02
    refused_with([empty, ev("priority_passed", player=0)], "WIN-02", "player 0 must draw with an empty Deck")
    refused_with([position({"deck": [], "szone": [{"code": MST, "id": "mst", "position": "set"}]},
                           {"szone": [{"code": MST, "id": "p1_mst", "position": "set"}]}, phase="draw"),
                  ev("activated", player=0, card="mst", targets=["p1_mst"])], "WIN-02",
                 "player 0 must draw with an empty Deck")


# == CHAIN-12, ZONE-11, XMAT-02, ZONE-15, POS-04: where a card activates none of its effects ==========

CITE = {"card": "p0.s1", "effect": "its own text lets it activate there"}
HIDDEN = [
    pytest.param({}, "p0.s1", "trigger", "CHAIN-12", "Celtic Guardian is in the Deck, face-down and hidden",
                 id="deck-trigger"),
    pytest.param({}, "p0.s1", "quick", "ZONE-11", "Celtic Guardian is in the Deck, face-down and hidden", id="deck-quick"),
    pytest.param({"banished": [{"code": KURIBOH, "id": "kuriboh", "position": "facedown"}]}, "kuriboh", "quick",
                 "ZONE-15", "Kuriboh is banished face-down: it is unusable there", id="banished-face-down"),
    pytest.param({"mzone": [{"code": KURIBOH, "id": "kuriboh", "position": "set"}]}, "kuriboh", "quick", "POS-04",
                 "Kuriboh is face-down: its effects are hidden", id="face-down-monster"),
]


@pytest.mark.parametrize("p0, card, effect_type, rule, says", HIDDEN)
def test_a_card_activates_no_effect_where_it_is_hidden_or_unusable(p0: dict, card: str, effect_type: str, rule: str,
                                                                   says: str) -> None:
    """CHAIN-12, ZONE-11: a card in the Deck is hidden; ZONE-15: one banished face-down is
    unusable; POS-04: a face-down monster's effects are hidden until it is face-up. None of their
    effects is activated there. Before: each activation was accepted."""
    refused_with([position(p0), ev("activated", player=0, card=card, effect_type=effect_type)], rule, says)


@pytest.mark.parametrize("p0, card, effect_type, rule, says", HIDDEN)
def test_a_card_whose_text_allows_it_activates_there_citing_it(p0: dict, card: str, effect_type: str, rule: str,
                                                               says: str) -> None:
    """GEN-01 (CHAIN-12, ZONE-11, ZONE-15, POS-04): a card's own text that lets it activate from
    there is cited: the activation stands,
    the rule set aside and listed (before: nothing was set aside, no rule being broken). Face-up
    in the GY or the banished zone, or in the hand for a Quick Effect, a card activates uncited."""
    state = fold(position(p0), ev("activated", player=0, card=card, effect_type=effect_type, cite=CITE))
    assert [o.rule for o in state.overrides] == [rule] and state.chain[0].card == card
    for where in ("gy", "banished", "hand"):
        assert fold(position({where: [{"code": KURIBOH, "id": "k"}]}),
                    ev("activated", player=0, card="k", effect_type="quick")).chain[0].card == "k"


XYZ_BOARD = position({"mzone": [{"code": CELTIC, "id": "c1"}, {"code": CELTIC, "id": "c2"}],
                      "extra": [{"code": 84013237, "id": "utopia"}]})
XYZ = ev("special_summoned", card="utopia", zone=5, method="xyz", materials=["c1", "c2"])


def test_xmat_02_an_xyz_material_activates_none_of_its_effects() -> None:
    """XMAT-02: Celtic Guardian, an Xyz material of Number 39: Utopia, is no card on the field:
    its own effects are not activated while it is one (Utopia's are Utopia's). Before: accepted."""
    refused_with([XYZ_BOARD, XYZ, ev("activated", player=0, card="c1", effect_type="ignition")], "XMAT-02",
                 "Celtic Guardian is an Xyz material, no card on the field")


def test_xmat_02_a_detached_material_or_one_whose_text_allows_it_activates() -> None:
    """XMAT-02, GEN-01: detached, in the GY, the material may activate; as a material only by its
    own text, cited (the rule set aside and listed; before, nothing was)."""
    cited = fold(XYZ_BOARD, XYZ, ev("activated", player=0, card="c1", effect_type="quick", cite=CITE))
    assert [o.rule for o in cited.overrides] == ["XMAT-02"]
    detach = ev("card_moved", card="c1", to=[0, "gy"], reason="detached", cause="utopia")
    assert fold(XYZ_BOARD, XYZ, detach, ev("activated", player=0, card="c1", effect_type="quick")).chain[0].card == "c1"


# == CHAIN-11: a cost is paid as its reason says (TERM-07, XMAT-01, NIS-05, SUM-06) ====================

COST_BOARD = position({"mzone": [{"code": CELTIC, "id": "c1"}, {"code": CELTIC, "id": "c2"}, {"code": VORSE, "id": "vorse"}],
                       "extra": [{"code": 84013237, "id": "utopia"}], "hand": [{"code": KURIBOH, "id": "kuriboh"}],
                       "gy": [{"code": VORSE, "id": "gy_vorse"}]})


@pytest.mark.parametrize("cost, legal, rule, says", [
    pytest.param({"card": "vorse", "to": "gy", "reason": "discarded"},
                 {"card": "kuriboh", "to": "gy", "reason": "discarded"}, "TERM-07",
                 "only a card in the hand is discarded; Vorse Raider is in the mzone", id="discard-from-the-field"),
    pytest.param({"card": "c1", "to": "banished", "reason": "detached"}, {"card": "c1", "to": "gy", "reason": "detached"},
                 "NIS-05", "a detached Xyz material goes to the GY, not the banished", id="detached-to-banished"),
    pytest.param({"card": "vorse", "to": "gy", "reason": "detached"}, {"card": "c2", "to": "gy", "reason": "detached"},
                 "XMAT-01", "only an Xyz material is detached; Vorse Raider is in the mzone", id="detached-no-material"),
    pytest.param({"card": "gy_vorse", "to": "banished", "reason": "tributed"},
                 {"card": "vorse", "to": "gy", "reason": "tributed"}, "SUM-06", "Vorse Raider is in the gy", id="tributed-from-the-gy"),
])
def test_chain_11_a_cost_is_paid_as_its_reason_says(cost: dict, legal: dict, rule: str, says: str) -> None:
    """CHAIN-11: Number 39: Utopia (materials Celtic Guardian x2) activates an effect paying a
    card: discarded from the hand (TERM-07), detached from its materials to the GY (XMAT-01,
    NIS-05), Tributed from the field (SUM-06). Before: a cost of that reason from anywhere, to
    anywhere, was accepted (a card_moved of the same reason was refused)."""
    xyz = ev("special_summoned", card="utopia", zone=5, method="xyz", materials=["c1", "c2"])
    act = ev("activated", player=0, card="utopia", effect_type="quick")
    refused_with([COST_BOARD, xyz, {**act, "costs": [cost]}], rule, says)
    assert fold(COST_BOARD, xyz, {**act, "costs": [legal]}).chain[0].card == "utopia"
