"""Normal Summons and Sets with Tributes, Flip Summons, Special Summons, tokens (SUM, SPS, TOKEN).

Special Summons (RULES.md §12) by each method of ``SpecialSummoned.method``:

* ``inherent`` (SPS-07): by the monster's own condition, in your Main Phase with an open game state;
* ``effect`` (SPS-10..15): by a resolving effect; a monster with a summoning condition must first
  have been properly summoned before an effect brings it back from the GY or banishment (SPS-12),
  and comes from the hand or Deck only by an effect that ignores its conditions (SPS-15, cite it);
* ``ritual`` (RIT-01/02): from the hand, by a Ritual Spell (the ``cause``) Tributing monsters from
  your hand or field whose Levels total at least the Ritual monster's (CONF-19);
* ``fusion`` (FUS-01/02): from the Extra Deck, by a resolving effect (the ``cause``), 2 or more
  materials to the GY from your hand or field;
* ``synchro`` (SYN-01, CARD-07): from the Extra Deck, exactly 1 face-up Tuner and 1 or more face-up
  non-Tuners you control, Levels summing exactly to the Synchro monster's;
* ``xyz`` (XYZ-01/02/03): from the Extra Deck, 2 or more face-up monsters you control of the Level
  equal to the Rank, no Tokens; they are attached as materials (XMAT-01/02), not sent;
* ``pendulum`` (PEND-03/06, SPS-02): from the hand and the face-up Extra Deck, Levels strictly
  between the Scales of both Pendulum Zones, once per turn (several monsters are consecutive
  events, all but the first ``together``), to the zones ZONE-07 allows;
* ``link`` (LINK-01..05): from the Extra Deck, face-up materials you control (Tokens too), each
  counting 1 or (a Link monster) its Link rating, some combination totalling the Link rating.

Materials are those listed in the event plus those a ``card_moved`` with reason ``material`` moved
just before it (EDOPro records materials that go elsewhere than the GY that way). The engine does
not read card text: printed material lists ("Dark Magician + Buster Blader") are taken as recorded;
what the basic rules say about every material is checked. A negated summon (SUM-03, SYN-04,
XYZ-04, PEND-04) sends the monsters to the GY and does not count as properly summoned.
"""
from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING, Sequence

from ..i18n import N_, say
from ..cards import HIDDEN_NAME, CardFacts, CardType
from ..events import ATTACK, DECK, DEFENSE, EXTRA, FACEUP, GY, HAND, MZONE, OVERLAY, SET, Event
from ..state import Card, DuelState
from .base import (
    bury, check_not_negated, fail, get_card, handles, impossible, open_game_state, player_of, put, send_from_field,
    take)
from . import card_text
from .timing import procedure_sent
from .spell_trap import check_equips, in_chain, settle_equips
from .zones import check_monster_zone, pendulum_zones, ruleset_of, scales

if TYPE_CHECKING:                  # annotations only: a kind is made on its first use (events._lazy)
    from ..events import FlipSummoned, MonsterSet, NormalSummoned, SpecialSummoned, SummonNegated, TokenCreated

#: SPS-03: a Special Summon (a Token's too) into a taken monster zone is refused as this rule.
SPS_03 = "SPS-03"
#: A summon by its printed procedure makes a monster "properly summoned" (SPS-12, TERM-13).
PROPER_METHODS = frozenset(("inherent", "ritual", "fusion", "synchro", "xyz", "pendulum", "link"))
#: Summons of one monster by its own procedure, made in an open game state (no chain): the duel
#: moves on past every trigger waiting (EFF-04, GEN-03), as at an inherent Special Summon (SPS-07).
#: A Pendulum Summon's monsters are several events: it moves on at the first (its monsters' own
#: triggers answer it).
_BY_ITS_PROCEDURE = frozenset(("synchro", "xyz", "link"))


def between_scales(level: int | None, left: int, right: int) -> bool:
    """PEND-03: a Pendulum Summon brings out monsters whose Level is strictly between the Scales."""
    low, high = sorted((left, right))
    return level is not None and low < level < high


def tributes_needed(level: int) -> int:
    """SUM-04: Level 4 or lower none, 5-6 one, 7 or higher two."""
    return 0 if level <= 4 else 1 if level <= 6 else 2


def _normal_summon(state: DuelState, ev: NormalSummoned | MonsterSet, position: str) -> None:
    player = player_of(state, ev)
    card = get_card(state, ev, ev.card)
    side = state.sides[player]
    what = "Set" if position == SET else "Normal Summon"
    if card.zone == MZONE and card.facts.type & _GEMINI:
        _gemini_summon(state, ev, card, player, position)
        return
    if card.zone != HAND or card.controller != player:
        fail(state, ev, "SUM-01", say("{name} ({id}) is not in player {player}'s hand; a {what} comes from the "
                                      "hand", name=card.name, id=card.id, player=player, what=what))
    if not card.facts.is_monster or card.facts.is_extra_deck or card.is_token:
        fail(state, ev, "SUM-01", say("{name} cannot be Normal Summoned or Set: only Main Deck monsters can",
                                      name=card.name))
    elif has_summoning_condition(card):
        kind = "a Ritual monster" if card.facts.is_ritual else "a monster that cannot be Normal Summoned"
        fail(state, ev, "SPS-13", say("{name} is {kind}: it can only be Special Summoned its own way, never Normal "
                                      "Summoned or Set", name=card.name, kind=kind))
    why = open_game_state(state, player)
    if why:
        rule = "TURN-06" if state.phase == "battle" else "SUM-01"
        fail(state, ev, rule, say("a {what} needs an open game state in your own Main Phase: {why}",
                                  what=what, why=why))
    _check_normal_summon_used(state, ev, player)
    level = card.current_level or 0
    need = tributes_needed(level)
    if len(ev.tributes) != need:
        fail(state, ev, "SUM-04",
             say("{name} is Level {level} and needs {need} Tribute(s), not {count}",
                 name=card.name, level=level, need=need, count=len(ev.tributes)))
    if len(set(ev.tributes)) != len(ev.tributes):
        impossible(state, ev, "LOG-04", N_("the same monster is Tributed twice"))
    tributes = [get_card(state, ev, t) for t in ev.tributes]
    for t in tributes:
        if t.zone != MZONE or t.controller != player:
            fail(state, ev, "SUM-06", say("{name} ({id}) is not a monster player {player} controls on the field",
                                          name=t.name, id=t.id, player=player))
    if ev.zone >= 5:
        fail(state, ev, "ZONE-03", N_("a Normal Summoned or Set monster goes to a Main Monster Zone (0-4)"))
    check_monster_zone(state, ev, player, card, ev.zone, frozenset(ev.tributes))
    if position == DEFENSE:
        fail(state, ev, "SUM-09", N_("a Normal Summon is face-up Attack; face-up Defense needs an effect that "
                                     "allows it"))
    stranded = _check_equips(state, ev)
    for t in tributes:
        send_from_field(state, t, GY)
    if tributes:
        _tributes_sent(state)
    take(state, card)
    put(state, card, MZONE, player, ev.zone, position)
    card.summoned_turn, card.summoned_by = state.turn, player
    card.summon_method = "set" if position == SET else "normal"
    card.properly_summoned = True
    # SUM-08: a card the record does not know is judged once an event shows it (a Level an effect
    # gave it, or a cited effect, was judged here)
    if card.facts is state.unknown and card.level is None and ev.cite is None:
        card.note_unseen(state.index, "set" if position == SET else "summon", len(ev.tributes))
    side.normal_summon_turn = state.turn
    # SUM-02/03: a Set is not a "Summon", so there is nothing to negate (summon_negated refuses it).
    state.summon_window = None if position == SET else card.id
    state.summon_group = [] if position == SET else [card.id]
    settle_equips(state, stranded)


def _tributes_sent(state: DuelState) -> None:
    """SUM-07, NIS-05, EFF-04: the Xyz materials of a Tribute Summon's Tributes go to the GY with
    them, for the summon (buried now, ``state.shed``), as do those the record sent there "by the
    rules" right before it (``tribute_run``): they were sent while the summon was made, so their
    optional "when" triggers miss the timing, and their "if" ones answer the summon (those told
    first: ``card_text.owe`` notes them with the Tributes)."""
    run = tribute_run(state)
    sent = frozenset((*state.shed, *run))
    if not sent:
        return
    if state.shed:
        bury(state)
    procedure_sent(state, sent, tribute=True)


def tribute_run(state: DuelState) -> tuple[str, ...]:
    """The cards moved outside any chain right before a Tribute Summon (``note_material_move``):
    the Xyz materials of its Tributes, sent "by the rules" as the record told their going first."""
    moves = state.material_moves
    return tuple(row[1] for row in moves) if moves and moves[-1][0] == state.index - 1 else ()


def judge_unseen_summon(state: DuelState, ev: Event, card: Card, facts: CardFacts, index: int, how: str,
                        count: int) -> None:
    """SUM-08: a Set monster need not be shown, but a Level 5 or higher one needs its Tributes
    even when Set (SUM-04 for a Normal Summon the record did not see). The first event that shows
    a card Normal Summoned or Set while the record did not know it (``rules.identity.bind``) tells
    its Level, and so judges that summon: what was played there is called here, naming it."""
    was_set = how == "set"
    what = "Set" if was_set else "Normal Summoned"
    if not facts.is_monster or facts.is_extra_deck:
        fail(state, ev, "SUM-01", say("{name}, {what} at #{index}, cannot be Normal Summoned or Set: only Main "
                                      "Deck monsters can", name=facts.name, what=what, index=index))
    elif has_summoning_condition(card, facts):
        fail(state, ev, "SPS-13", say("{name}, {what} at #{index}, can only be Special Summoned its own way, never "
                                      "Normal Summoned or Set", name=facts.name, what=what, index=index))
    elif tributes_needed(facts.printed_level or 0) != count:
        fail(state, ev, "SUM-08" if was_set else "SUM-04",
             say("{name}, {what} at #{index} while the record did not know it, is Level {level}: it needed "
                 "{need} Tribute(s), not {count}",
                 name=facts.name, what=what, index=index, level=facts.printed_level or 0,
                 need=tributes_needed(facts.printed_level or 0), count=count))


def judge_unseen_material(state: DuelState, ev: Event, card: Card, facts: CardFacts, index: int, _how: str,
                          rank: int) -> None:
    """XYZ-01, CARD-07 for an Xyz material the record did not know when the Xyz Summon at
    ``index`` overlaid it (a face-up monster entered without its name): its Level was unknown, so
    the summon could not be judged then. The first event that shows it (detached, sent to the GY,
    revealed: ``rules.identity.bind``) tells it, and so judges that summon, naming it."""
    level = facts.printed_level
    if level is None:
        fail(state, ev, "CARD-07", say("{name}, an Xyz material at #{index} while the record did not know it, has "
                                       "no Level: it could not be the material of an Xyz Summon",
                                       name=facts.name, index=index))
    elif level != rank:
        fail(state, ev, "XYZ-01", say("{name}, an Xyz material at #{index} while the record did not know it, is "
                                      "Level {level}: the materials of a Rank {rank} Xyz Summon are monsters of "
                                      "Level {rank}", name=facts.name, index=index, level=level, rank=rank))


def _gemini_summon(state: DuelState, ev: NormalSummoned | MonsterSet, card: Card, player: int, position: str) -> None:
    """CARD-09: a face-up Gemini monster on the field may be Normal Summoned a second time, which
    gives it its effects. It uses the turn's Normal Summon (SUM-01), takes no Tribute and stays
    where and as it is; it counts as Normal Summoned this turn (POS-08)."""
    if card.controller != player:
        fail(state, ev, "SUM-01", say("player {player} does not control {name} ({id})",
                                      player=player, name=card.name, id=card.id))
    if position == SET or not card.face_up:
        fail(state, ev, "CARD-09", say("{name} is a Gemini monster on the field: it is Normal Summoned again only "
                                       "while face-up, and never Set", name=card.name))
    if state.location(card).index != ev.zone:
        impossible(state, ev, "LOG-02", say("{name} ({id}) is in monster zone {index}, not {zone}: a Gemini "
                                            "monster is Normal Summoned again where it is",
                                            name=card.name, id=card.id, index=state.location(card).index, zone=ev.zone))
    why = open_game_state(state, player)
    if why:
        rule = "TURN-06" if state.phase == "battle" else "SUM-01"
        fail(state, ev, rule, say("a Normal Summon needs an open game state in your own Main Phase: {why}", why=why))
    _check_normal_summon_used(state, ev, player)
    if ev.tributes:
        fail(state, ev, "SUM-04", say("{name} is on the field already: its second Normal Summon takes no Tribute",
                                      name=card.name))
    state.sides[player].normal_summon_turn = state.turn
    card.summoned_turn, card.summoned_by = state.turn, player
    card.summon_method = "gemini"
    state.summon_window = None
    state.summon_group = []


def _check_normal_summon_used(state: DuelState, ev: Event, player: int) -> None:
    """SUM-01: one Normal Summon or Set a turn; SUM-03: after the opponent negated it, none again."""
    side = state.sides[player]
    if side.summon_negated_turn == state.turn:
        fail(state, ev, "SUM-03", say("player {player}'s Normal Summon was negated this turn: they cannot Normal "
                                      "Summon or Set again this turn", player=player))
    elif side.normal_summon_turn == state.turn:
        fail(state, ev, "SUM-01", say("player {player} has already used the Normal Summon or Set of turn {turn}",
                                      player=player, turn=state.turn))


@handles("normal_summoned")
def normal_summoned(state: DuelState, ev: NormalSummoned) -> None:
    _normal_summon(state, ev, ev.position)


@handles("monster_set")
def monster_set(state: DuelState, ev: MonsterSet) -> None:
    _normal_summon(state, ev, SET)


@handles("flip_summoned")
def flip_summoned(state: DuelState, ev: FlipSummoned) -> None:
    player = player_of(state, ev)
    card = get_card(state, ev, ev.card)
    if card.zone != MZONE or card.controller != player:
        impossible(state, ev, "SUM-10", say("{id} is not a monster player {player} controls on the field",
                                            id=card.id, player=player), public=True)     # where it is: seen
    check_flip(state, ev, card, player)
    stranded = _check_equips(state, ev)
    card.position = ATTACK
    card.position_changed_turn = state.turn
    card.summon_method = "flip"                   # a Flip Summon can be negated (SUM-03)
    state.flipped.append(card.id)                 # EFF-05: its Flip effect may be activated
    state.summon_window = card.id
    state.summon_group = [card.id]
    settle_equips(state, stranded)


def _check_equips(state: DuelState, ev: Event) -> list[Card]:
    """SPELL-07 at a summon made outside a chain (inside one, the chain's own events check it)."""
    return [] if in_chain(state) else check_equips(state, ev)


def summoned_this_turn(state: DuelState, card: Card) -> bool:
    """POS-08/SUM-11: summoned or Set this turn, so its position stays until the next turn. Under the
    duel option ``reposition_opponents_summons`` (an older ruling EDOPro's Goat format keeps) only
    for the player who summoned it: a monster the opponent summoned this turn and you now control
    (Snatch Steal, Change of Heart) may change position or be Flip Summoned."""
    if card.summoned_turn != state.turn:
        return False
    return not ("reposition_opponents_summons" in state.options
                and card.summoned_by is not None and card.summoned_by != card.controller)


def check_flip(state: DuelState, ev: Event, card: Card, player: int) -> None:
    """SUM-10/11: a Flip Summon is a position change made in your Main Phase."""
    if card.position not in (SET, "facedown_attack"):
        fail(state, ev, "SUM-10", say("{name} is already face-up; only a face-down monster can be Flip Summoned",
                                      name=card.name))
    why = open_game_state(state, player)
    if why:
        fail(state, ev, "SUM-10", say("a Flip Summon needs an open game state in your own Main Phase: {why}", why=why))
    if summoned_this_turn(state, card):
        fail(state, ev, "SUM-11", say("{name} was Set or summoned this turn and cannot be Flip Summoned until the "
                                      "next", name=card.name))
    if card.position_changed_turn == state.turn:
        fail(state, ev, "SUM-11", say("{name} has already changed its battle position this turn", name=card.name))
    if card.attacked_turn == state.turn:         # e.g. turned face-down by an effect after attacking
        fail(state, ev, "POS-08", say("{name} declared an attack this turn and cannot change position",
                                      name=card.name))



# -- Special Summons ------------------------------------------------------------------------------

#: The procedures that summon from the Extra Deck: the card kind each needs and the rule that says so.
_EXTRA_PROCEDURES = {"fusion": ("is_fusion", "Fusion", "FUS-02"), "synchro": ("is_synchro", "Synchro", "SYN-01"),
                     "xyz": ("is_xyz", "Xyz", "XYZ-01"), "link": ("is_link", "Link", "LINK-01")}
#: Each summon by procedure as a sentence names it, article and capitals right (a value translated whole).
SUMMON_PHRASES = {"inherent": N_("an inherent Special Summon"), "ritual": N_("a Ritual Summon"),
                  "fusion": N_("a Fusion Summon"), "synchro": N_("a Synchro Summon"), "xyz": N_("an Xyz Summon"),
                  "pendulum": N_("a Pendulum Summon"), "link": N_("a Link Summon")}
#: The monster each procedure from the Extra Deck summons, as a sentence names it.
_MONSTER_PHRASES = {"fusion": N_("a Fusion monster"), "synchro": N_("a Synchro monster"), "xyz": N_("an Xyz monster"),
                    "link": N_("a Link monster")}
_SPSUMMON = int(CardType.SPSUMMON)
_EFFECT = int(CardType.EFFECT)
_NONE_FREED: frozenset[str] = frozenset()
_GEMINI = int(CardType.GEMINI)


def has_summoning_condition(card: Card, facts: CardFacts | None = None) -> bool:
    """SPS-12/13: Fusion, Synchro, Xyz and Link monsters, Ritual monsters, and monsters that
    cannot be Normal Summoned (``cards.cdb``'s SPSUMMON bit) have a summoning condition (the
    card's facts, or ``facts``: what an event shows it to be)."""
    facts = card.facts if facts is None else facts
    return facts.is_extra_deck or facts.is_ritual or bool(facts.type & _SPSUMMON)


class Material(namedtuple("Material", ("id", "name", "zone", "controller", "face_up", "level", "tuner", "token",
                                       "link_rating", "unknown"), defaults=(False,))):
    """A material as it was when the summon took it: where, whose, face-up, Level, Tuner, Token,
    Link rating, and whether the record knew the card then (else those facts are not known). A
    named tuple: a frozen dataclass took as long to build as the rest of a summon's checks."""

    __slots__ = ()  # ``collections.namedtuple``: see ``events.Loc``
    id: str
    name: str
    zone: str
    controller: int
    face_up: bool
    level: int | None
    tuner: bool
    token: bool
    link_rating: int | None
    unknown: bool

    @classmethod
    def of(cls, card: Card) -> "Material":
        """A card the record does not know is taken without reading its facts (its Level only if
        an effect gave it one): where it is and its face tell what they tell whoever it is (a
        face-down material is refused as such), and a check that needs its facts reads them then
        (``_read_unknown``), leaving that rule undecided."""
        if not card.code:
            return cls(card.id, HIDDEN_NAME, card.zone, card.controller, card.face_up, card.level, False,
                       card.is_token, None, True)
        return cls(card.id, card.name, card.zone, card.controller, card.face_up, card.current_level,
                   card.facts.is_tuner, card.is_token, card.facts.link_rating, False)

    def row(self) -> list:
        return list(self)


def _read_unknown(state: DuelState, materials: list[Material]) -> None:
    """A check about to use the Level, Tuner or Link rating of the materials: any the record did
    not know is read now (``cards.UnknownFacts``), so what it decides is undecided."""
    if any(m.unknown for m in materials):
        state.unknown.read_before()


def note_material_move(state: DuelState, card: Card, cost: bool = False) -> None:
    """A card moved for a summon that follows (card_moved, reason "material"), as EDOPro records
    materials that go somewhere else than the GY: remember it as it was, for that summon. Only an
    unbroken run of such moves right before the summon belongs to it. A ``cost`` (an inherent
    summon's discard or banishment, SPS-07) belongs to it too, but is no material: kept as its
    id alone (``[index, id]``), which only ``_spared`` and the timing read, never a material check."""
    moves = state.material_moves
    if not moves or moves[-1][0] < state.index - 1:
        moves = []
    state.material_moves = [*moves, [state.index, card.id] if cost else [state.index, *Material.of(card).row()]]


def _moved_materials(state: DuelState, listed: Sequence[str]) -> list[Material]:
    """Materials moved by the card_moved events right before this summon (not also listed; a
    cost moved with them is none: what the summon names and the moves of reason ``material``
    or ``tributed`` are its materials)."""
    moves = state.material_moves
    if not moves or moves[-1][0] != state.index - 1:
        return []
    seen = set(listed)
    out = []
    for _, *row in moves:
        if len(row) > 1 and row[0] not in seen:
            seen.add(row[0])
            out.append(Material(*row))
    return out


@handles("special_summoned")
def special_summoned(state: DuelState, ev: SpecialSummoned) -> None:
    player = state.turn_player if ev.player is None else ev.player
    card = state.cards.get(ev.card) or get_card(state, ev, ev.card)
    method = ev.method
    # What cannot be applied at all is refused first, so a cited refusal records no override.
    if card.zone == MZONE:
        impossible(state, ev, "LOG-02", say("{name} ({id}) is already on the field", name=card.name, id=card.id))
    listed: list[Card] = []
    if ev.materials:
        if len(set(ev.materials)) != len(ev.materials) or ev.card in ev.materials:
            impossible(state, ev, "LOG-04", N_("a material is listed twice, or the summoned monster is its own "
                                               "material"))
        listed = [get_card(state, ev, m) for m in ev.materials]
    if not card.facts.is_monster:
        fail(state, ev, "SPS-01", say("{name} is not a monster", name=card.name))
    check_not_negated(state, ev)              # TERM-14, SPELL-09/CHAIN-06: it summons nothing
    _check_source(state, ev, card, player, method)
    if method == "inherent" or method == "pendulum":
        why = open_game_state(state, player)
        if why:
            if method == "inherent":
                fail(state, ev, "SPS-07", say("an inherent Special Summon needs an open game state in your own Main "
                                              "Phase: {why}", why=why))
            else:
                fail(state, ev, "PEND-03", say("a Pendulum Summon needs an open game state in your own Main Phase: "
                                               "{why}", why=why))
    elif method in ("synchro", "xyz", "link") and ev.cause is None:
        why = open_game_state(state, player)
        if why:
            rule = _EXTRA_PROCEDURES[method][2]
            fail(state, ev, rule, say("{summon} is made in your own Main Phase with an open game state, unless a "
                                      "resolving effect makes it (name it as the cause): {why}",
                                      summon=SUMMON_PHRASES[method], why=why))
    continuing = _continues_summon(state, ev, method)
    if method == "pendulum":
        _check_pendulum(state, ev, card, player, continuing)
    to_player = player if ev.controller is None else ev.controller   # an effect may summon to the opponent's field
    # SPS-03: a usable free zone, unless the procedure frees one (its materials leave first)
    check_monster_zone(state, ev, to_player, card, ev.zone,
                       frozenset([m.id for m in listed if m.zone == MZONE]) if listed else _NONE_FREED, SPS_03)
    if ev.position not in (ATTACK, DEFENSE) and method != "effect":
        fail(state, ev, "SPS-05", say("{summon} places the monster face-up; only an effect can Special Summon it "
                                      "face-down", summon=SUMMON_PHRASES[method]))
    if card.facts.is_link and ev.position != ATTACK:
        fail(state, ev, "LINK-05", say("{name} is a Link monster and is always in Attack Position", name=card.name))
    check = _MATERIAL_CHECKS.get(method)
    if check is not None or listed or state.material_moves:    # else there are none to take
        materials = [Material.of(m) for m in listed] + _moved_materials(state, ev.materials)
        if check is not None:
            check(state, ev, card, player, materials)
    stranded = _check_equips(state, ev) if state.equips else ()
    by_procedure = (method in _BY_ITS_PROCEDURE or method == "inherent" or (method == "pendulum" and not continuing)
                    ) and not (state.chain or state.resolving)
    spared = _spared(state, ev) if by_procedure and (state.card_text[card_text.OWED] or state.material_moves) \
        else _NONE_FREED
    if by_procedure and state.card_text[card_text.OWED]:
        card_text.left_by_action(state, ev, spared)     # GEN-03: an action of an open game state
    # -- all checks done: change the state ------------------------------------------------------
    if method in _SUMS and ev.cite is None and card.code and any(m.unknown for m in materials):
        _note_unseen_sum(state, card, method, materials)   # SYN-01, LINK-02, RIT-02: judged once shown
    elif method == "pendulum" and not card.code and card.level is None and ev.cite is None:
        _note_unseen_pendulum(state, card, player)          # PEND-03: judged once shown
    for m in sorted(listed, key=lambda m: m.zone != OVERLAY) if listed else ():   # a Rank-Up's old materials first
        if method == "xyz":
            if not m.code and m.level is None and ev.cause is None and ev.cite is None:
                m.note_unseen(state.index, "xyz", card.facts.rank or 0)   # XYZ-01: judged once shown
            take(state, m)                                       # XMAT-01: attached, not sent
            m.zone, m.position, m.host = OVERLAY, None, card.id
            card.materials.append(m.id)
        elif m.zone == MZONE:
            send_from_field(state, m, GY)                        # PEND-05, TOKEN-02
        else:
            take(state, m)
            put(state, m, GY, m.owner)
    if state.shed and by_procedure and method != "xyz":
        buried = frozenset(state.shed)      # NIS-05: the Xyz materials of its materials, sent with them
        bury(state)
        procedure_sent(state, buried)       # SPS-09: their "when" triggers miss the timing too
    take(state, card)
    put(state, card, MZONE, to_player, ev.zone, ev.position)
    card.summoned_turn, card.summoned_by = state.turn, player   # the summoner, maybe not its controller
    card.summon_method = method
    if method in PROPER_METHODS:
        card.properly_summoned = True
    if method == "pendulum":
        state.sides[player].pendulum_summon_turn = state.turn
    state.pendulum_summon_open = method == "pendulum"    # any other summon ends it (SPS-02)
    state.summon_window = card.id
    state.summon_group = [*state.summon_group, card.id] if continuing else [card.id]
    if by_procedure:
        if state.card_text[card_text.SEEN]:
            moves = state.material_moves                 # EFF-04: an action of an open game state
            card_text.moved_on(state, moves[0][0] if moves and moves[-1][0] == state.index - 1 else state.index)
        if state.card_text[card_text.OWED]:
            card_text.past_action(state, spared)
        if spared:
            procedure_sent(state, spared)                # SPS-09: its costs and materials miss their timing
    if state.material_moves:                             # they were this summon's
        state.material_moves = []
    if state.equips:
        settle_equips(state, stranded)


def _spared(state: DuelState, ev: SpecialSummoned) -> frozenset[str]:
    """The cards a summon by procedure sent or moved for itself: its listed materials, and the
    unbroken run of cards moved right before it as its materials or costs (``note_material_move``:
    an inherent summon's discard or banishment, SPS-07). Their triggers answer the summon."""
    moves = state.material_moves
    moved = [row[1] for row in moves] if moves and moves[-1][0] == state.index - 1 else []
    return frozenset((*ev.materials, *moved)) if ev.materials or moved else _NONE_FREED


def _continues_summon(state: DuelState, ev: SpecialSummoned, method: str) -> bool:
    """Whether this monster is summoned at the same time as the one right before it, by the same
    procedure (PEND-03: one Pendulum Summon, several monsters). ``together`` says so; a record that
    does not (None) makes consecutive Pendulum Summons one."""
    after_summon = state.last_kind == "special_summoned" and bool(state.summon_group)
    if ev.together is None:
        return method == "pendulum" and state.pendulum_summon_open and after_summon
    if ev.together and not (after_summon and state.cards[state.summon_group[-1]].summon_method == method):
        impossible(state, ev, "LOG-03", say("this {method} Special Summon is 'together' with the one right before "
                                            "it, but the event before is no {method} Special Summon", method=method))
    return ev.together


def _check_source(state: DuelState, ev: SpecialSummoned, card: Card, player: int, method: str) -> None:
    """Where each kind of Special Summon takes its monster from, and the revival limits."""
    facts = card.facts
    if method == "inherent":
        if not facts.type & _EFFECT:         # SPS-07: an effectless monster (a Normal Monster) prints none
            fail(state, ev, "SPS-07", say("{name} has no effect: it prints no condition by which it Special Summons "
                                          "itself (an inherent Special Summon); an effect that summons it is the "
                                          "summon's cause, and a card that gives it such a condition is cited",
                                          name=card.name))
        return
    if method == "effect":
        if not has_summoning_condition(card) or card.properly_summoned or card.zone == EXTRA:
            return                           # SPS-12: "from the Extra Deck" effects still may
        if card.zone in (HAND, DECK):
            fail(state, ev, "SPS-15", say("{name} has a summoning condition: an effect Special Summons it from the "
                                          "{zone} only if it ignores summoning conditions (cite it)",
                                          name=card.name, zone=card.zone))
        else:
            fail(state, ev, "SPS-12", say("{name} must first be properly summoned before an effect can Special "
                                          "Summon it from the {zone}", name=card.name, zone=card.zone))
        return
    if method == "ritual":
        if not facts.is_ritual:
            fail(state, ev, "RIT-02", say("{name} is not a Ritual monster: only a Ritual monster is Ritual "
                                          "Summoned", name=card.name))
        elif card.zone != HAND:
            fail(state, ev, "RIT-02", say("{name} is in the {zone}: a Ritual monster is Ritual Summoned from the "
                                          "hand", name=card.name, zone=card.zone))
        else:
            _check_own(state, ev, card, player, "RIT-02", "Ritual")
        return
    if method in _EXTRA_PROCEDURES:
        kind, label, rule = _EXTRA_PROCEDURES[method]
        if not getattr(facts, kind):
            fail(state, ev, rule, say("{name} is not {monster}, so it cannot be {label} Summoned",
                                      name=card.name, monster=_MONSTER_PHRASES[method], label=label))
        elif card.zone != EXTRA:
            fail(state, ev, rule, say("{name} is in the {zone}: {summon} brings it from the Extra Deck",
                                      name=card.name, zone=card.zone, summon=SUMMON_PHRASES[method]))
        elif card.position == FACEUP:
            fail(state, ev, "PEND-06", say("{name} is face-up in the Extra Deck: it returns only by Pendulum "
                                           "Summon, not by {label} Summon", name=card.name, label=label))
        else:
            _check_own(state, ev, card, player, rule, label)
        if method == "link" and not ruleset_of(state).link_summon:
            fail(state, ev, "MR-04", say("there is no Link Summon under {title}: Link Summons came with the New "
                                         "Master Rule", title=ruleset_of(state).title))
        return
    if method == "pendulum":
        if facts.is_xyz or facts.is_link:
            fail(state, ev, "PEND-06", say("{name} has no Level ({kind}): it cannot be Pendulum Summoned",
                                           name=card.name, kind="Xyz" if facts.is_xyz else "Link"))
        elif card.zone == HAND and has_summoning_condition(card):
            fail(state, ev, "SPS-13", say("{name} has a summoning condition: it cannot be Pendulum Summoned from "
                                          "the hand", name=card.name))


def _check_pendulum(state: DuelState, ev: SpecialSummoned, card: Card, player: int, continuing: bool) -> None:
    """PEND-03 and SPS-02: once per turn, both Pendulum Zones, Levels strictly between the Scales."""
    side = state.sides[player]
    if side.pendulum_summon_turn == state.turn and not continuing:
        rule = "PEND-03" if ev.together is False and state.pendulum_summon_open else "SPS-02"
        fail(state, ev, rule, say("player {player} has already Pendulum Summoned this turn (once per turn; the "
                                  "monsters of one Pendulum Summon are 'together')", player=player))
    if card.controller != player and card.zone in (HAND, EXTRA):
        # PEND-03: another player's card, whatever the summoner's own Pendulum Zones hold
        _check_own(state, ev, card, player, "PEND-03", "Pendulum")
        return
    scale_cards = scales(state, player)
    if len(scale_cards) < 2:
        left, right = pendulum_zones(state)
        fail(state, ev, "PEND-03", say("a Pendulum Summon needs a Pendulum card in both Pendulum Zones (S/T {left} "
                                       "and {right} under {title})",
                                       left=left, right=right, title=ruleset_of(state).title))
        return
    low, high = _scale_range(scale_cards)
    level = card.current_level
    if not between_scales(level, low, high):
        fail(state, ev, "PEND-03", say("{name} (Level {level}) is not strictly between the Scales {low} and {high}",
                                       name=card.name, level=level, low=low, high=high))
    if card.zone not in (HAND, EXTRA) or (card.zone == EXTRA and card.position != FACEUP):
        fail(state, ev, "PEND-03", say("{name} must come from the hand or the face-up Extra Deck", name=card.name))
    else:
        _check_own(state, ev, card, player, "PEND-03", "Pendulum")


def _scale_range(scale_cards: list[Card]) -> tuple[int, int]:
    """PEND-03: the Scales a Pendulum Summon is between, low first: the left card's left Scale
    and the right card's right Scale."""
    low, high = sorted((scale_cards[0].facts.lscale, scale_cards[1].facts.rscale))
    return low, high


def _note_unseen_pendulum(state: DuelState, card: Card, player: int) -> None:
    """PEND-03: a monster Pendulum Summoned while the record did not know it (entered face-up
    without its name) was undecided: its Level unknown. It keeps the Scales it was summoned
    between, and whether it came from the hand, to be judged once an event shows it."""
    scale_cards = scales(state, player)
    if len(scale_cards) == 2:                    # else refused (or flagged) as PEND-03 already
        low, high = _scale_range(scale_cards)
        card.note_unseen(state.index, "pendulum", (low, high, card.zone == HAND))


def judge_unseen_pendulum(state: DuelState, ev: Event, card: Card, facts: CardFacts, index: int, _how: str,
                          summoned: tuple) -> None:
    """PEND-03, PEND-06, SPS-13 for a monster Pendulum Summoned at ``index`` while the record did
    not know it: the first event that shows it tells its Level, and so judges that summon."""
    low, high, from_hand = summoned
    if not facts.is_monster:
        fail(state, ev, "SPS-01", say("{name}, Pendulum Summoned at #{index} while the record did not know it, is "
                                      "not a monster", name=facts.name, index=index))
    elif facts.is_xyz or facts.is_link:
        fail(state, ev, "PEND-06", say("{name}, Pendulum Summoned at #{index} while the record did not know it, has "
                                       "no Level: it cannot be Pendulum Summoned", name=facts.name, index=index))
    elif from_hand and has_summoning_condition(card, facts):
        fail(state, ev, "SPS-13", say("{name}, Pendulum Summoned from the hand at #{index} while the record did not "
                                      "know it, has a summoning condition: it cannot be Pendulum Summoned from the "
                                      "hand", name=facts.name, index=index))
    elif not between_scales(facts.printed_level, low, high):
        fail(state, ev, "PEND-03", say("{name}, Pendulum Summoned at #{index} while the record did not know it, is "
                                       "Level {level}: not strictly between the Scales {low} and {high}",
                                       name=facts.name, index=index, level=facts.printed_level, low=low, high=high))


def _check_own(state: DuelState, ev: SpecialSummoned, card: Card, player: int, rule: str, label: str) -> None:
    """RIT-02, FUS-02, SYN-01, XYZ-01, LINK-01, PEND-03: a summon by procedure takes the monster
    from the summoner's own hand or Extra Deck (an effect that summons the opponent's cards is
    method ``effect``)."""
    if card.controller != player:
        fail(state, ev, rule, say("{name} is in player {owner}'s {zone}: {summon} takes the monster from the "
                                  "summoner's own {zone}", name=card.name, owner=card.controller, zone=card.zone,
                                  summon=SUMMON_PHRASES[label.lower()]))


# -- materials of each procedure --------------------------------------------------------------------

def _on_your_field(state: DuelState, ev: Event, m: Material, player: int, rule: str, what: str) -> bool:
    """LINK-01, SYN-01, XYZ-01: procedure materials are face-up monsters you control on the field."""
    if m.zone != MZONE or m.controller != player:
        where = "an Xyz material, not on the field (XMAT-02)" if m.zone == OVERLAY else f"in the {m.zone}"
        if m.zone == MZONE:
            where = say("controlled by player {player}", player=m.controller)
        fail(state, ev, rule, say("{name} ({id}) is {where}: {what} materials are monsters player {player} "
                                  "controls on the field",
                                  name=m.name, id=m.id, where=where, what=what, player=player))
        return False
    if not m.face_up:
        fail(state, ev, rule, say("{name} ({id}) is face-down: {what} materials are face-up",
                                  name=m.name, id=m.id, what=what))
        return False
    return True


def _check_synchro(state: DuelState, ev: SpecialSummoned, card: Card, player: int, materials: list[Material]) -> None:
    """SYN-01: exactly 1 face-up Tuner and 1 or more face-up non-Tuners you control, Levels summing
    exactly to the Synchro monster's; CARD-07: Xyz and Link monsters have no Level to use."""
    for m in materials:
        if not _on_your_field(state, ev, m, player, "SYN-01", "Synchro"):
            return
    _read_unknown(state, materials)
    problem = _synchro_sum(materials, card.name, card.current_level)
    if problem:
        fail(state, ev, *problem)


def _synchro_sum(materials: list[Material], name: str, level: int | None) -> tuple[str, str] | None:
    """SYN-01, CARD-07 on the materials' Levels and Tuners: (rule, why) they break, or None."""
    for m in materials:
        if m.level is None:
            return "CARD-07", (say("{name} is an Xyz monster: it has no Level and cannot be a Synchro material",
                                   name=m.name) if m.link_rating is None else
                               say("{name} is a Link monster: it has no Level and cannot be a Synchro material",
                                   name=m.name))
    tuners = [m for m in materials if m.tuner]
    if len(tuners) != 1 or len(materials) < 2:
        return "SYN-01", say("a Synchro Summon uses exactly 1 Tuner and 1 or more non-Tuners, not {count} Tuner(s) "
                             "and {value} non-Tuner(s)", count=len(tuners), value=len(materials) - len(tuners))
    total = sum(m.level or 0 for m in materials)
    if total != level:
        return "SYN-01", say("the materials' Levels sum to {total}; {name} is Level {level} and needs exactly that",
                             total=total, name=name, level=level)
    return None


def _check_xyz(state: DuelState, ev: SpecialSummoned, card: Card, player: int, materials: list[Material]) -> None:
    """XYZ-01: 2 or more face-up monsters you control whose Level equals the Rank; XYZ-02: no Tokens.

    XYZ-03: an effect (the ``cause``) may overlay other monsters, as its text permits (a Rank-Up):
    then only the Token rule and where the materials are is checked."""
    for m in materials:
        if m.token:
            fail(state, ev, "XYZ-02", say("{name} is a Token: Tokens cannot be Xyz materials", name=m.name))
            return
    if ev.cause is not None:
        return
    for m in materials:
        if not _on_your_field(state, ev, m, player, "XYZ-01", "Xyz"):
            return
    if len(materials) < 2:
        fail(state, ev, "XYZ-01", say("an Xyz Summon overlays 2 or more monsters, not {count}", count=len(materials)))
        return
    _read_unknown(state, materials)
    rank = card.facts.rank
    for m in materials:
        if m.level is None:
            fail(state, ev, "CARD-07", say("{name} has a Rank, not a Level: it cannot be an Xyz material by the basic "
                                           "rules", name=m.name) if m.link_rating is None else
                 say("{name} has a Link rating, not a Level: it cannot be an Xyz material by the basic rules",
                     name=m.name))
            return
        if m.level != rank:
            fail(state, ev, "XYZ-01", say("{name} is Level {level}: the materials of {name2} (Rank {rank}) are "
                                          "monsters of Level {rank}",
                                          name=m.name, level=m.level, name2=card.name, rank=rank))
            return


def _check_link(state: DuelState, ev: SpecialSummoned, card: Card, player: int, materials: list[Material]) -> None:
    """LINK-01..04: face-up monsters you control (Tokens too); each counts 1, a Link monster 1 or
    its Link rating; some combination must total exactly the Link rating."""
    for m in materials:
        if not _on_your_field(state, ev, m, player, "LINK-01", "Link"):
            return
    if not materials:
        fail(state, ev, "LINK-01", say("a Link Summon sends face-up materials to the GY; none are recorded for "
                                       "{name}", name=card.name))
        return
    _read_unknown(state, materials)
    problem = _link_sum(materials, card.name, card.facts.link_rating or 0)
    if problem:
        fail(state, ev, *problem)


def _link_sum(materials: list[Material], name: str, rating: int) -> tuple[str, str] | None:
    """LINK-02/03 on the materials' values: (rule, why) no combination totals ``rating``, or None."""
    totals = {0}
    for m in materials:
        values = {1, m.link_rating} if m.link_rating else {1}
        totals = {t + v for t in totals for v in values}
    if rating in totals:
        return None
    return "LINK-02", say("{count} material(s) can count {totals} (a Link material counts 1 or its Link rating, "
                          "LINK-03), never exactly {name}'s Link rating {rating}",
                          count=len(materials), totals=sorted(totals), name=name, rating=rating)


def _check_fusion(state: DuelState, ev: SpecialSummoned, card: Card, player: int, materials: list[Material]) -> None:
    """FUS-01/02: a resolving card effect (the ``cause``) sends 2 or more materials to the GY, from
    your hand or field (other places, or the opponent's monsters, only as a cited card permits)."""
    if ev.cause is None:
        fail(state, ev, "FUS-01", say("a Fusion Summon is made by a resolving card effect (Polymerization or "
                                      "another): name it as the cause of summoning {name}", name=card.name))
    _check_not_interrupted(state, ev, card, "FUS-03")
    if len(materials) < 2:
        fail(state, ev, "FUS-02", say("a Fusion Summon uses 2 or more materials, not {count}", count=len(materials)))
        return
    for m in materials:
        if m.zone == MZONE and m.controller != player:
            fail(state, ev, "FUS-02", say("{name} ({id}) is player {controller}'s monster: Fusion materials come "
                                          "from your own hand or field",
                                          name=m.name, id=m.id, controller=m.controller))
            return
        if m.zone not in (HAND, MZONE):
            fail(state, ev, "FUS-02", say("{name} ({id}) is in the {zone}: Fusion materials come from your hand or "
                                          "field unless the card cited says otherwise",
                                          name=m.name, id=m.id, zone=m.zone))
            return


def _check_not_interrupted(state: DuelState, ev: SpecialSummoned, card: Card, rule: str) -> None:
    """FUS-03, RIT-03: nothing may be activated from the start of the resolution until the Fusion
    or Ritual Summon succeeds. Judged here, at the summon, the one event that shows the resolution
    was still going on: its cause (the resolving card) is no link of a chain being built, or it had
    resolved when an activation started a new chain (``state.resolved``). Not at the activation:
    a Ritual or Fusion Spell may resolve and summon nothing (its resolution then ends at once),
    and a record need not show it going to the GY nor the chain's end, so an activation after it
    is legal unless a summon it makes follows."""
    cause = ev.cause
    chain = state.chain
    if cause is None or any(link.card == cause for link in chain):
        return
    if all(done != cause for done, _ in state.resolved) and (not state.resolving or state.resolved):
        made_by = "FUS-01" if rule == "FUS-03" else "RIT-01"
        where = say("it is no link of the chain resolving") if state.resolving else say("no chain is resolving")
        fail(state, ev, made_by, say("{cause} is not resolving ({where}): a Fusion or Ritual Summon ({name}) is made "
                                     "as the card activated to make it resolves, before its chain ends (cite a card "
                                     "that does it otherwise)", cause=cause, where=where, name=card.name))
        return
    if chain and not state.resolving:
        fail(state, ev, rule, say("{cause} is not resolving: Chain Link 1 ({first}) was activated after it began to "
                                  "resolve; nothing may be activated from the start of a resolution until the Fusion "
                                  "or Ritual Summon it makes succeeds ({name})",
                                  cause=cause, first=chain[0].card, name=card.name))
        return
    for done, by in state.resolved:
        if done == cause and by is not None:
            fail(state, ev, rule, say("{cause} is not resolving: {by} was activated after it began to resolve, "
                                      "starting a new chain; nothing may be activated from the start of a resolution "
                                      "until the Fusion or Ritual Summon it makes succeeds ({name})",
                                      cause=cause, by=by, name=card.name))
            return


def _check_ritual(state: DuelState, ev: SpecialSummoned, card: Card, player: int, materials: list[Material]) -> None:
    """RIT-01/02: the Ritual Spell (the ``cause``) Tributes 1 or more monsters from your hand or
    field whose Levels total at least the Ritual monster's (CONF-19: "at least" unless cited)."""
    if ev.cause is None:
        fail(state, ev, "RIT-01", say("a Ritual Summon is made by a resolving Ritual Spell (or other effect): name "
                                      "it as the cause of summoning {name}", name=card.name))
    _check_not_interrupted(state, ev, card, "RIT-03")
    if not materials:
        fail(state, ev, "RIT-02", say("a Ritual Summon Tributes 1 or more monsters; none are recorded for {name}",
                                      name=card.name))
        return
    for m in materials:
        if m.zone not in (HAND, MZONE) or m.controller != player:
            where = (say("player {player}'s monster", player=m.controller) if m.zone == MZONE
                     else say("in the {zone}", zone=m.zone))
            fail(state, ev, "RIT-02", say("{name} ({id}) is {where}: Ritual Tributes come from your own hand or "
                                          "field", name=m.name, id=m.id, where=where))
            return
    _read_unknown(state, materials)
    problem = _ritual_sum(materials, card.name, card.current_level or 0)
    if problem:
        fail(state, ev, *problem)


def _ritual_sum(materials: list[Material], name: str, level: int) -> tuple[str, str] | None:
    """RIT-02 (CONF-19: at least) on the Tributes' Levels: (rule, why) they fall short, or None."""
    total = sum(m.level or 0 for m in materials)
    if total >= level:
        return None
    return "RIT-02", say("the Tributes' Levels total {total}; {name} is Level {level} and needs at least that",
                         total=total, name=name, level=level)


#: The summons whose materials count together (a sum, one Tuner): an unknown material of one is
#: judged with the others once every one of them is shown (``judge_unseen_sum``).
_SUMS = {"synchro": _synchro_sum, "link": _link_sum, "ritual": _ritual_sum}


def _note_unseen_sum(state: DuelState, card: Card, method: str, materials: list[Material]) -> None:
    """SYN-01, LINK-02, RIT-02: a summon whose materials the record did not all know was left
    undecided (their Levels, Tuners, Link ratings unknown). Each unknown material keeps the whole
    summon as it was (the monster, what it needed, every material's row) to judge it once the
    last of them is shown (``rules.identity.bind``), wherever they went meanwhile. (A monster the
    record does not know either is not noted: what it needed is unknown.)"""
    target = (card.facts.link_rating or 0) if method == "link" else (card.current_level or 0)
    summary = (card.name, target, tuple(tuple(m) for m in materials))
    for m in materials:
        if m.unknown and m.id in state.cards:
            state.cards[m.id].note_unseen(state.index, method, summary)


def judge_unseen_sum(state: DuelState, ev: Event, index: int, method: str, summary: tuple,
                     shown: dict[str, CardFacts]) -> None:
    """SYN-01, CARD-07, LINK-02, RIT-02 for a summon at ``index`` some of whose materials the
    record did not know: once every one is known (``shown`` by this event, or earlier), the
    materials are judged together as the summon would have judged them, naming it."""
    name, target, rows = summary
    materials = []
    for row in rows:
        m = Material(*row)
        if m.unknown:
            card = state.cards.get(m.id)
            facts = shown.get(m.id) or (card.facts if card is not None and card.code else None)
            if facts is None:
                return                           # another is still unknown: judged when it is shown
            level = m.level if m.level is not None else facts.printed_level   # an effect's Level stood
            m = m._replace(name=facts.name, level=level, tuner=facts.is_tuner, link_rating=facts.link_rating,
                           unknown=False)
        materials.append(m)
    problem = _SUMS[method](materials, name, target)
    if problem:
        rule, why = problem
        fail(state, ev, rule, say("the {method} Summon of {name} at #{index}, whose materials the record did not all "
                                  "know then, judged now they are shown: {why}",
                                  method=method.capitalize(), name=name, index=index, why=why))


_MATERIAL_CHECKS = {"synchro": _check_synchro, "xyz": _check_xyz, "link": _check_link, "fusion": _check_fusion,
                    "ritual": _check_ritual}


# -- negation and tokens ----------------------------------------------------------------------------

@handles("summon_negated")
def summon_negated(state: DuelState, ev: SummonNegated) -> None:
    """SUM-03, SYN-04, XYZ-04, PEND-04: a summon negated as it is attempted. The monster goes to the
    GY (a Pendulum too, not the Extra Deck; a Token vanishes; an Xyz monster's materials go with it,
    NIS-05) and is not properly summoned. A Pendulum Summon's monsters are negated one by one."""
    card = get_card(state, ev, ev.card)
    group = state.summon_group
    in_group = card.id in group and (state.summon_window in group or state.last_kind == "summon_negated")
    if card.summon_method == "set" and card.zone == MZONE and not card.face_up:
        fail(state, ev, "SUM-02", say("{name} was Set: a Set is not a Summon, so there is no summon to negate",
                                      name=card.name))
    elif state.summon_window != card.id and not in_group:
        fail(state, ev, "SPS-11", say("{name} is not being summoned now; a summon can be negated only as it is "
                                      "attempted", name=card.name))
    elif card.summon_method == "effect":
        fail(state, ev, "SPS-11", N_("a Special Summon by a resolving effect cannot be negated"))
    elif state.passes >= 2:                      # PRIO-03: both declined to answer it; it was summoned
        fail(state, ev, "SPS-11", say("both players passed after {name} was summoned: the summon has succeeded "
                                      "and can no longer be negated", name=card.name))
    if card.zone != MZONE:
        impossible(state, ev, "LOG-02", say("{id} is not on the field", id=card.id))
    if card.summon_method == "normal":
        state.sides[card.controller].summon_negated_turn = state.turn   # SUM-03: no Normal Summon again
    take(state, card)            # SUM-03, PEND-04: to the GY, Pendulums included; materials too (NIS-05)
    card.properly_summoned = False
    if card.is_token:
        del state.cards[card.id]
    else:
        put(state, card, GY, card.owner)
        if state.card_text[card_text.SEEN]:
            card_text.summon_negated(state, card)   # SUM-03, SPS-06: never summoned: no trigger on it (EFF-04)
    state.summon_group = [c for c in group if c != card.id]
    state.summon_window = None


def negation_unfinished(state: DuelState, ev: Event) -> None:
    """PEND-04: a negated Pendulum Summon destroys all its monsters, not some. The record negates
    them one by one, in consecutive ``summon_negated`` events; ``ev``, of another kind right after
    one, ends that negation: any monster of the summon still on the field was left behind."""
    left = [card for card in map(state.cards.get, state.summon_group) if card is not None and card.zone == MZONE]
    if left:
        fail(state, ev, "PEND-04", say("the summon that brought {names} was negated: a negated summon of several "
                                       "monsters at once negates them all (record summon_negated for {rest} too)",
                                       names=", ".join(card.name for card in left),
                                       rest=", ".join(card.id for card in left)))


@handles("token_created")
def token_created(state: DuelState, ev: TokenCreated) -> None:
    player = player_of(state, ev)
    if ev.card in state.cards:
        impossible(state, ev, "LOG-04", say("card id {card} is already in use", card=ev.card))
    facts = state.db.get(ev.code)
    if facts is None:
        impossible(state, ev, "CARD-01", say("no card facts for passcode {code}", code=ev.code))
    if not facts.is_token:
        fail(state, ev, "TOKEN-01", say("{name} is not a Token", name=facts.name))
    token = Card(ev.card, player, facts, zone="limbo", is_token=True)
    token.controller = player
    if ev.zone >= 5:
        fail(state, ev, "ZONE-03", N_("a Token goes to a Main Monster Zone (0-4)"))
    check_monster_zone(state, ev, player, token, ev.zone, taken=SPS_03)   # a Token is Special Summoned
    if ev.position not in (ATTACK, DEFENSE):
        fail(state, ev, "TOKEN-02", say("a Token is only ever face-up Attack or face-up Defense, not {position} "
                                        "({name}, {card})", position=ev.position, name=facts.name, card=ev.card))
    check_not_negated(state, ev)              # TERM-14: a negated Scapegoat makes no Tokens
    stranded = _check_equips(state, ev)
    state.cards[token.id] = token
    put(state, token, MZONE, player, ev.zone, ev.position)
    token.summoned_turn, token.summoned_by = state.turn, player
    token.summon_method = "effect"
    state.summon_window = token.id
    state.summon_group = []
    settle_equips(state, stranded)
