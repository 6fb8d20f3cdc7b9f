"""What each event says, one sentence per event kind, against the state just before it.

A sentence names a card as the reader of the log knows it (``_Line.card``): on the field with its
zone (``Vorse Raider [M2]``), elsewhere with a copy number when its owner has several, a hidden
card as what is seen of it; and it records the cards it names, for ``log --card`` and ``--json``.
``log.Narrator`` strings the sentences together.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Iterable, TYPE_CHECKING

from .card_names import card_name
from .events import (
    ATTACK, DECK, DEFENSE, EXTRA, FACEDOWN, FACEDOWN_ATTACK, FZONE, GY, HAND, MZONE, OVERLAY, SET, SZONE,
    Event, is_kind, kind_names)
from .i18n import N_, t
from .kinds import PerKind
from .state import Card, DuelState
from .text import printable

if TYPE_CHECKING:
    from .log import Narrator

# The words are English constants (``N_``), said in the reader's language where they are shown.
ZONE_NAMES = {DECK: N_("Deck"), HAND: N_("hand"), MZONE: N_("Monster Zone"), SZONE: N_("Spell & Trap Zone"),
              FZONE: N_("Field Zone"), GY: N_("GY"), "banished": N_("banished cards"), EXTRA: N_("Extra Deck"),
              OVERLAY: N_("Xyz materials")}
_MOVE_REASONS = {"destroyed": N_("destroyed"), "battle": N_("destroyed by battle"), "sent": N_("sent"),
                 "tributed": N_("Tributed"), "material": N_("used as material"), "discarded": N_("discarded"),
                 "banished": N_("banished"), "returned": N_("returned"), "shuffled": N_("shuffled in"),
                 "added": N_("added"), "resolved": N_("after resolving"), "cost": N_("as a cost"),
                 "rule": N_("by rule"), "detached": N_("detached"), "attached": N_("attached as material"),
                 "negated": N_("negated")}
_COST_VERBS = {"discarded": N_("discarding {card}"), "tributed": N_("Tributing {card}"),
               "detached": N_("detaching {card}"), "banished": N_("banishing {card}")}
#: Why a duel ended (``DuelEnded.reason``) in words: the log's and the recorder's offered end.
END_REASONS = {"lp": N_("LP reached 0"), "deck_out": N_("could not draw"), "draw": N_("a draw"),
               "surrender": N_("surrender"), "effect": N_("a card effect"), "judge": N_("a judge's decision"),
               "time": N_("time"), "disconnect": N_("disconnection")}
PHASE_NAMES = {"draw": N_("Draw Phase"), "standby": N_("Standby Phase"), "main1": N_("Main Phase 1"),
               "battle": N_("Battle Phase"), "main2": N_("Main Phase 2"), "end": N_("End Phase"),
               None: N_("start of the turn")}
#: An activated effect's kind as its log line says it: the JSON word (``quick``) read in English,
#: the OCG term in another language (a zh-Hant line said （quick效果）).
_EFFECT_KINDS = {"ignition": N_("ignition"), "trigger": N_("trigger"), "quick": N_("quick"), "flip": N_("flip"),
                 "continuous": N_("continuous"), "pendulum": N_("pendulum")}
#: How a monster was Special Summoned (``SpecialSummoned.method``), in words: a zh-Hant line said （link）.
_SUMMON_METHODS = {"inherent": N_("inherent"), "effect": N_("effect"), "ritual": N_("ritual"), "fusion": N_("fusion"),
                   "synchro": N_("synchro"), "xyz": N_("xyz"), "pendulum": N_("pendulum"), "link": N_("link")}
#: The Special Summons (SPS-01) players name by their own verb ("Xyz Summons", エクシーズ召喚, 超量召唤,
#: 엑시즈 소환), not "Special Summons … (xyz)"; the others (``inherent``, ``effect``) keep the method in words.
_SUMMON_SENTENCES = {
    "ritual": N_("{player} Ritual Summons {card} to {zone} in {position}{materials}{together}"),
    "fusion": N_("{player} Fusion Summons {card} to {zone} in {position}{materials}{together}"),
    "synchro": N_("{player} Synchro Summons {card} to {zone} in {position}{materials}{together}"),
    "xyz": N_("{player} Xyz Summons {card} to {zone} in {position}{materials}{together}"),
    "pendulum": N_("{player} Pendulum Summons {card} to {zone} in {position}{materials}{together}"),
    "link": N_("{player} Link Summons {card} to {zone} in {position}{materials}{together}")}
STEP_NAMES = {"start": N_("start step"), "battle": N_("battle step"), "damage": N_("damage step"),
              "end": N_("end step")}


def end_reason(reason: str | None) -> str:
    """Why a duel ended (``DuelEnded.reason``) as the reader's language names it."""
    return t(END_REASONS[reason]) if reason in END_REASONS else str(reason)


def phase_name(phase: str | None) -> str:
    """A phase as the reader's language names it (``rules.base.phase_name`` is the English the
    rules' messages use)."""
    return t(PHASE_NAMES[phase]) if phase in PHASE_NAMES else str(phase)


def step_name(step: str | None) -> str:
    """A Battle Phase step as the reader's language names it."""
    return t(STEP_NAMES[step]) if step in STEP_NAMES else t("{step} step", step=step)


def aside(words: str) -> str:
    """`` (words)`` in the reader's language's own brackets: full-width （words） in Chinese and
    Japanese, where a half-width (words) reads as a stray Latin mark."""
    return t(" ({aside})", aside=words)


def zone_name(zone: str | None) -> str:
    """A pile's or zone's name in the reader's language."""
    return t(ZONE_NAMES[zone]) if zone in ZONE_NAMES else str(zone)


def player_label(player: int) -> str:
    """A player the record does not name."""
    return t("Player {number}", number=player)


def zone_tag(zone: str, index: int | None) -> str:
    """The short name of a zone, the same the board prints over it: ``M0``..``M4`` the Main
    Monster Zones, ``M5``/``M6`` the Extra Monster Zones (left/right as their controller sees
    them, as events number them), ``S0``..``S4`` the Spell & Trap Zones (``S5``/``S6`` the
    Pendulum Zones of Master Rule 3), ``FZ`` the Field Zone."""
    if zone == MZONE:
        return f"M{index}"
    if zone == SZONE:
        return f"S{index}"
    if zone == FZONE:
        return "FZ"
    return zone_name(zone)


class Line:
    """The words of one entry, and the cards they name."""

    def __init__(self, state: DuelState, shows: Iterable[tuple[str, int]] = ()) -> None:
        self.s = state
        self.cards: list[dict[str, Any]] = []
        self._copies: dict[tuple[int, int], list[str]] | None = None
        # The identities the event shows (``Event.shows``) of cards the state before it does not
        # know: named where they are first mentioned ("a card in Kaiba's hand (revealed as …)").
        self.shows = {card_id: code for card_id, code in shows}
        self.revealed: set[str] = set()

    # -- players and places ---------------------------------------------------------------------

    def who(self, player: int | None) -> str:
        s = self.s
        player = s.turn_player if player is None else player
        if 0 <= player < len(s.players) and s.players[player]:
            return s.players[player]
        return player_label(player)

    def whose(self, player: int) -> str:
        return t("{player}'s", player=self.who(player))

    def pile(self, controller: int, zone: str) -> str:
        return t("{player}'s {zone}", player=self.who(controller), zone=zone_name(zone))

    # -- cards ------------------------------------------------------------------------------------

    def copy_number(self, card: Card) -> str:
        """`` (copy 2)`` when its owner has several known cards of that name, else nothing."""
        if self._copies is None:
            copies: dict[tuple[int, int], list[str]] = {}
            for c in self.s.cards.values():
                if c.code and not c.is_token:
                    copies.setdefault((c.owner, c.code), []).append(c.id)
            self._copies = copies
        same = self._copies.get((card.owner, card.code), ())
        if len(same) < 2:
            return ""
        return t(" (copy {number})", number=sorted(same, key=_natural).index(card.id) + 1)

    def card(self, card_id: str | None, *, owner: bool = False) -> str:
        """A card as the view knows it: its name and, on the field, its zone (``Vorse Raider [M2]``),
        elsewhere a copy number when there are several; a hidden card as what is seen of it."""
        if card_id is None:
            return "—"
        s = self.s
        card = s.cards.get(card_id)
        if card is None:
            self.cards.append({"id": card_id, "name": None, "zone": None})
            return t("a card ({id})", id=card_id)
        loc = s.location(card)
        on_field = card.zone in (MZONE, SZONE, FZONE)
        tag = f" [{zone_tag(loc.zone, loc.index)}]" if on_field else ""
        mine = f"{self.whose(card.controller)} " if owner else ""
        if card.code == 0:
            shown = s.db.get(self.shows[card_id]) if card_id in self.shows else None
            zone = zone_tag(loc.zone, loc.index) if on_field else card.zone
            shown_name = card_name(shown) if shown else None
            self.cards.append({"id": card_id, "name": shown_name, "zone": zone})
            if shown is not None and card_id in self.revealed:
                return f"{mine}{shown_name}{tag}"
            if on_field:
                if owner:
                    what = (t("face-down monster") if card.zone == MZONE else t("Set card")) if not card.face_up \
                        else t("unknown card")
                    text = f"{mine}{what}{tag}"
                else:
                    text = (t("a face-down monster{zone}", zone=tag) if card.zone == MZONE else
                            t("a Set card{zone}", zone=tag)) if not card.face_up else t("an unknown card{zone}", zone=tag)
            else:
                text = t("a card in {pile}", pile=self.pile(loc.controller, card.zone)) if card.zone != OVERLAY \
                    else t("an Xyz material")
            if shown is None:
                return text
            self.revealed.add(card_id)
            return t("{card} (revealed as {name})", card=text, name=shown_name)
        name = card_name(card.facts)
        self.cards.append({"id": card_id, "name": name, "zone": zone_tag(loc.zone, loc.index) if on_field else card.zone})
        return f"{mine}{name}{tag if on_field else self.copy_number(card)}"

    def unmentioned_shows(self) -> str:
        """``; revealed: a Set card [S1] (revealed as Mirror Force)``: the cards the event shows
        that its sentence did not name."""
        rest = [c for c in self.shows if c not in self.revealed and c in self.s.cards and not self.s.cards[c].code]
        return t("; revealed: {cards}", cards=t(", ").join(self.card(c) for c in rest)) if rest else ""

    def cards_of(self, ids: Iterable[str], *, owner: bool = False) -> str:
        return t(", ").join(self.card(c, owner=owner) for c in ids)

    def cause(self, card_id: str | None, resolved: str | None = None, word: str = "by") -> str:
        """`` (by Magic Cylinder)``: the cause an event records, else the chain link that just
        resolved (what a hand-written record leaves implicit)."""
        cid = card_id or resolved
        if cid is None:
            return ""
        what = self.card(cid) if cid in self.s.cards else printable(cid)
        return t(" (from {cause})", cause=what) if word == "from" else t(" (by {cause})", cause=what)


def _natural(card_id: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", card_id))


# -- the sentences ------------------------------------------------------------------------------------

if TYPE_CHECKING:                       # for the checker alone: a string in it would be compiled (``events.Loc``)
    Describe = Callable[[Line, Event, Narrator], str]
#: Each kind's sentence, registered with ``@describes("kind_name")`` where it is written.
describes = PerKind("sentence", known=is_kind)


def _costs(w: Line, e, player: int) -> str:
    parts = []
    lp = w.s.sides[player].lp
    for cost in e.costs:
        if cost.card is None:
            after = max(0, lp - cost.lp)
            parts.append(t("paying {amount} LP (LP {before} → {after})", amount=cost.lp, before=lp, after=after))
            lp = after
        else:
            verb = _COST_VERBS.get(cost.reason)
            what = w.card(cost.card)
            parts.append(t(verb, card=what) if verb else
                         t("sending {card} to the {zone}", card=what, zone=zone_name(cost.to or "")))
    return t(", as a cost {costs}", costs=t(" and ").join(parts)) if parts else ""


@describes("activated")
def _activated(w: Line, e, n: "Narrator") -> str:
    s = w.s
    player = s.turn_player if e.player is None else e.player
    card = s.cards.get(e.card)
    where = ""
    if card is not None and card.zone == HAND and e.effect_type is None:
        where = (t(" from the hand to the Field Zone") if e.field_zone else
                 t(" from the hand to {zone}", zone=zone_tag(SZONE, e.zone)) if e.zone is not None else t(" from the hand"))
    effect = t(" ({kind} effect)", kind=t(_EFFECT_KINDS.get(e.effect_type, e.effect_type))) if e.effect_type else ""
    targets = t(" targeting {cards}", cards=w.cards_of(e.targets, owner=True)) if e.targets else ""
    said = f" — “{printable(e.description)}”" if e.description else ""
    negates = (t(", negating Chain Link {link}{card}", link=e.negates, card=_link_card(w, e.negates))
               if e.negates is not None else "")
    return t("Chain Link {link}: {player} activates {card}{where}{effect}{targets}{negates}{costs}",
             link=len(s.chain) + 1, player=w.who(e.player), card=w.card(e.card), where=where, effect=effect,
             targets=targets, negates=negates, costs=_costs(w, e, player)) + said


def _link_card(w: Line, number: int) -> str:
    chain = w.s.chain
    return aside(w.card(chain[number - 1].card)) if 0 < number <= len(chain) else ""


@describes("cards_drawn")
def _draw(w: Line, e, n: "Narrator") -> str:
    s = w.s
    player = s.turn_player if e.player is None else e.player
    ids = list(e.cards) or (s.sides[player].deck[:e.count] if player in (0, 1) else [])
    known = ids and all(s.cards[c].code for c in ids if c in s.cards)
    shown = w.cards_of(ids) if known else (t("a card") if e.count == 1 else t("{count} cards", count=e.count))
    return t("{player} draws {cards}", player=w.who(e.player), cards=shown) + w.cause(e.cause)


@describes("special_summoned")
def _summoned(w: Line, e, n: "Narrator") -> str:
    controller = e.player if e.controller is None or e.controller == e.player else e.controller
    to = (f"{w.whose(controller)} " if controller != e.player and controller is not None else "") + zone_tag(MZONE, e.zone)
    materials = t(", using {cards}", cards=w.cards_of(e.materials)) if e.materials else ""
    together = {True: t(", at the same time as the one before"), False: t(", a summon of its own")}.get(e.together, "")
    said = dict(player=w.who(e.player), card=w.card(e.card), zone=to, position=_position(e.position),
                materials=materials, together=together)
    if e.method in _SUMMON_SENTENCES:
        return t(_SUMMON_SENTENCES[e.method], **said) + w.cause(e.cause)
    return t("{player} Special Summons {card} ({method}) to {zone} in {position}{materials}{together}",
             method=t(_SUMMON_METHODS.get(e.method, e.method)), **said) + w.cause(e.cause)


_POSITIONS = {ATTACK: N_("Attack Position"), DEFENSE: N_("Defense Position"), SET: N_("face-down Defense Position"),
              FACEDOWN_ATTACK: N_("face-down Attack Position"), "faceup": N_("face-up"), FACEDOWN: N_("face-down")}


def _position(position: str | None) -> str:
    return t(_POSITIONS[position]) if position in _POSITIONS else str(position)


@describes("monster_set")
def _set_monster(w: Line, e, n: "Narrator") -> str:
    card = w.s.cards.get(e.card)
    what = w.card(e.card) if card is not None and card.code else t("a monster")
    tributes = t(", Tributing {cards}", cards=w.cards_of(e.tributes)) if e.tributes else ""
    return t("{player} Sets {card} in {zone}{tributes}", player=w.who(e.player), card=what,
             zone=zone_tag(MZONE, e.zone), tributes=tributes)


@describes("spell_trap_set")
def _set_spell(w: Line, e, n: "Narrator") -> str:
    card = w.s.cards.get(e.card)
    what = w.card(e.card) if card is not None and card.code else t("a card")
    return t("{player} Sets {card} in {zone}", player=w.who(e.player), card=what,
             zone=t("the Field Zone") if e.field_zone else zone_tag(SZONE, e.zone))


@describes("attack_declared")
def _attack(w: Line, e, n: "Narrator") -> str:
    s = w.s
    attacker = s.cards.get(e.attacker)
    defender = 1 - attacker.controller if attacker is not None else 1 - s.turn_player
    if not e.target:
        return t("{attacker} attacks {player} directly", attacker=w.card(e.attacker, owner=True), player=w.who(defender))
    return t("{attacker} attacks {target}", attacker=w.card(e.attacker, owner=True), target=w.card(e.target, owner=True))


@describes("attack_retargeted")
def _retarget(w: Line, e, n: "Narrator") -> str:
    s = w.s
    attack = s.attack
    attacker = w.card(attack.attacker) if attack is not None else t("the attacker")
    defender = 1 - s.turn_player
    if not e.target:
        return t("Replay: {attacker} now attacks {player} directly", attacker=attacker, player=w.who(defender))
    return t("Replay: {attacker} now attacks {target}", attacker=attacker, target=w.card(e.target, owner=True))


@describes("attack_cancelled")
def _cancelled(w: Line, e, n: "Narrator") -> str:
    attack = w.s.attack
    said = (t("The attack of {attacker} is cancelled", attacker=w.card(attack.attacker, owner=True))
            if attack is not None else t("The attack is cancelled"))
    return said + w.cause(e.cause, n.resolved)


def _fighter(w: Line, card_id: str, as_target: bool) -> str:
    card = w.s.cards.get(card_id)
    if card is None or card.code == 0:
        return w.card(card_id)
    attack_position = card.position == ATTACK or (not as_target)
    stat = (t("{value} ATK", value=card.current_atk) if attack_position     # said as the reader's cards say it
            else t("{value} DEF", value=card.current_def))
    return f"{w.card(card_id)} {stat}"


@describes("damage_calculated")
def _damage(w: Line, e, n: "Narrator") -> str:
    s = w.s
    attack = s.attack
    parts = []
    if attack is not None:
        if attack.target is None:
            parts.append(t("{attacker} attacks directly", attacker=_fighter(w, attack.attacker, False)))
        else:
            target = s.cards.get(attack.target)
            flip = target is not None and target.position in (SET, FACEDOWN_ATTACK)
            parts.append(t("{attacker} vs {target}", attacker=_fighter(w, attack.attacker, False),
                           target=_fighter(w, attack.target, True))
                         + (t("; {card} is flipped face-up", card=w.card(attack.target)) if flip else ""))
    damage = [t("battle damage to player {number} ({player}): {amount}", number=p, player=w.who(p), amount=amount)
              for p, amount in enumerate(e.damage[:2]) if amount]
    between = t("; ")                             # the clauses' separator: "；" in Chinese and Japanese
    parts.append(between.join(damage) if damage else t("no battle damage"))
    if e.destroyed:
        parts.append(t("destroyed: {cards}", cards=w.cards_of(e.destroyed)))
    return t("Damage calculation: {what}", what=between.join(parts))


@describes("card_moved")
def _moved(w: Line, e, n: "Narrator") -> str:
    s = w.s
    card = s.cards.get(e.card)
    on_field = card is not None and card.zone in (MZONE, SZONE, FZONE)
    subject = w.card(e.card, owner=on_field)
    if card is not None and not on_field and card.code:
        subject = t("{card} from {pile}", card=subject, pile=w.pile(s.location(card).controller, card.zone))
    face = t(" face-down") if e.position in (FACEDOWN, SET) and e.to.zone not in (MZONE, SZONE, FZONE) else ""
    if e.to.zone in (MZONE, SZONE, FZONE):
        to = f"{w.whose(e.to.controller)} {zone_tag(e.to.zone, e.to.index)}"
    else:
        to = _deck_place(s, e, w.pile(e.to.controller, e.to.zone))
    by = e.cause or (None if e.reason in ("battle", "resolved", "cost", "material") else n.resolved)
    cause = t(", by {cause}", cause=w.card(by) if by in s.cards else printable(by)) if by else ""
    group = t(", at the same time as the next") if e.with_next else ""
    reason = t(_MOVE_REASONS[e.reason]) if e.reason in _MOVE_REASONS else e.reason
    return f"{subject} → {to}{face}" + aside(f"{reason}{cause}{group}")


def _deck_place(s: DuelState, e, pile: str) -> str:
    """ZONE-11: where in a Deck a card put there, not shuffled in, goes (the top, the bottom, the 3rd
    from the top) is said: the place is what everyone at the table follows (the next draw takes the
    top card)."""
    index = e.to.index
    if e.to.zone != DECK or index is None or e.reason == "shuffled":
        return pile
    deck = s.sides[e.to.controller].deck
    if index == 0:
        return t("the top of {pile}", pile=pile)
    if index >= len(deck) - (e.card in deck):
        return t("the bottom of {pile}", pile=pile)
    return t("place {n} from the top of {pile}", n=index + 1, pile=pile)      # "the 3rd from the top"


@describes("card_revealed")
def _revealed(w: Line, e, n: "Narrator") -> str:
    """What is revealed, from where, and why: the revealing player is implicit (a record may name
    the player shown the cards instead, as EDOPro does)."""
    s = w.s
    places = {(s.location(s.cards[c]).controller, s.cards[c].zone) for c in e.cards if c in s.cards}
    where = t(" from {pile}", pile=w.pile(*places.pop())) if len(places) == 1 else ""
    said = (t("{cards} is revealed{where}", cards=w.cards_of(e.cards), where=where) if len(e.cards) == 1 else
            t("{cards} are revealed{where}", cards=w.cards_of(e.cards), where=where))
    return said + w.cause(e.cause, n.resolved)


_STATS = (("ATK", N_("ATK {value}"), N_("ATK {value} (was {before})")),
          ("DEF", N_("DEF {value}"), N_("DEF {value} (was {before})")),
          ("Level", N_("Level {value}"), N_("Level {value} (was {before})")))


@describes("stats_changed")
def _stats(w: Line, e, n: "Narrator") -> str:
    card = w.s.cards.get(e.card)
    changes = []
    for (_, plain, was), value, now in zip(_STATS, (e.atk, e.defense, e.level),
                                           (card.current_atk if card else None, card.current_def if card else None,
                                            card.current_level if card else None)):
        if value is not None:
            known = now is not None and card is not None and card.code
            changes.append(t(was, value=value, before=now) if known else t(plain, value=value))
    if not changes:                              # a view that may not see the card sees no numbers
        return t("The stats of {card} change", card=w.card(e.card)) + w.cause(e.cause, n.resolved)
    return t("{card} now has {changes}", card=w.card(e.card), changes=t(", ").join(changes)) + w.cause(e.cause, n.resolved)


_LP_WORDS = {"battle_damage": N_("{player} takes {amount} battle damage{cause}: LP {before} → {after}"),
             "effect_damage": N_("{player} takes {amount} effect damage{cause}: LP {before} → {after}"),
             "cost": N_("{player} pays {amount} LP{cause}: LP {before} → {after}"),
             "gain": N_("{player} gains {amount} LP{cause}: LP {before} → {after}"),
             "set": N_("{player} has LP set to {amount}{cause}: LP {before} → {after}")}


@describes("life_points_changed")
def _lp(w: Line, e, n: "Narrator") -> str:
    s = w.s
    player = s.turn_player if e.player is None else e.player
    before = s.sides[player].lp if player in (0, 1) else 0
    after = lp_after(before, e.amount, e.reason)
    if e.reason == "battle_damage" and e.cause is None and s.attack is not None:
        cause = t(" (from {card}'s attack)", card=w.card(s.attack.attacker))
    else:
        cause = w.cause(e.cause, n.resolved, "from" if e.reason in ("effect_damage", "gain") else "by")
    words = _LP_WORDS.get(e.reason, N_("{player} loses {amount} LP{cause}: LP {before} → {after}"))
    return t(words, player=w.who(e.player), amount=e.amount, cause=cause, before=before, after=after)


def lp_after(lp: int, amount: int, reason: str) -> int:
    """Life points after a change (``rules.outcome.life_points_changed`` decides the same)."""
    if reason == "gain":
        return lp + amount
    if reason == "set":
        return amount
    return max(0, lp - amount)


@describes("chain_link_negated")
def _negated(w: Line, e, n: "Narrator") -> str:
    by = t(" by Chain Link {link}{card}", link=e.by, card=_link_card(w, e.by)) if e.by else ""
    return t("Chain Link {link}{card} is negated{by}", link=e.link, card=_link_card(w, e.link), by=by)


@describes("control_changed")
def _control(w: Line, e, n: "Narrator") -> str:
    return (t("{player} takes control of {card}, into {zone}", player=w.who(e.to_player),
              card=w.card(e.card, owner=True), zone=zone_tag(MZONE, e.zone)) + w.cause(e.cause, n.resolved))


@describes("cards_swapped")
def _swapped(w: Line, e, n: "Narrator") -> str:
    return (t("{card} and {other} trade places", card=w.card(e.card, owner=True), other=w.card(e.other, owner=True))
            + w.cause(e.cause, n.resolved))


@describes("set_cards_shuffled")
def _set_shuffled(w: Line, e, n: "Narrator") -> str:
    card = w.s.cards.get(e.cards[0]) if e.cards else None
    zone = card.zone if card is not None and card.zone in (MZONE, SZONE) else MZONE
    owner = card.controller if card is not None else e.player
    return (t("{player} shuffles {count} Set cards among {zones}", player=w.who(owner), count=len(e.cards),
              zones=t(", ").join(zone_tag(zone, z) for z in sorted(e.zones))) + w.cause(e.cause, n.resolved))


@describes("token_created")
def _token(w: Line, e, n: "Narrator") -> str:
    facts = w.s.db.get(e.code)
    name = card_name(facts) if facts is not None and e.code else t("a token")
    return (t("{player} gets {token} in {zone} in {position}", player=w.who(e.player), token=name,
              zone=zone_tag(MZONE, e.zone), position=_position(e.position)) + w.cause(e.cause, n.resolved))


#: How the player who went first was chosen (``DuelStarted.method``), in words: the log said ``rps``.
CHOICE_METHODS = {"rps": N_("rock-paper-scissors"), "coin": N_("a coin toss"), "die": N_("a die roll"),
                  "loser": N_("the loser of the last duel"), "agreement": N_("by agreement"), "random": N_("at random")}


#: The rule sets by name (``rulesets.RuleSet.title``): the duel's first line said its JSON key (mr2020).
RULESET_NAMES = {"mr2020": N_("Master Rule, April 2020 revision"), "nmr2017": N_("New Master Rule (2017)"),
                 "mr3": N_("Master Rule 3 (2014)")}


@describes("duel_started")
def _started(w: Line, e, n: "Narrator") -> str:
    unnamed = [player_label(0), player_label(1)]
    names = [p or player_label(i) for i, p in enumerate(e.players)] if e.players else unnamed
    name = (names + unnamed)[e.first_player] if e.first_player in (0, 1) else player_label(e.first_player)
    chosen = ""
    if e.chosen_by is not None:
        chooser = (names + unnamed)[e.chosen_by] if e.chosen_by in (0, 1) else str(e.chosen_by)
        method = t(CHOICE_METHODS[e.method]) if e.method in CHOICE_METHODS else e.method
        chosen = t(" (chosen by {player}, {method})", player=chooser, method=method)
    agreed = t("; agreed: {options}", options=", ".join(e.options)) if e.options else ""        # duel options (CONF-01)
    banlist = (t("; banlist {name} ({hash}…)", name=repr(printable(e.banlist.name)), hash=e.banlist.hash[:19])
               if e.banlist is not None else "")
    ruleset = t(RULESET_NAMES[e.ruleset]) if e.ruleset in RULESET_NAMES else e.ruleset
    return t("Duel begins under {ruleset}, {lp} LP: {player} (player {number}) goes first{chosen}{agreed}{banlist}",
             ruleset=ruleset, lp=e.starting_lp, player=name, number=e.first_player, chosen=chosen, agreed=agreed,
             banlist=banlist)


@describes("zone_changed")
def _zone_changed(w: Line, e, n: "Narrator") -> str:
    card = w.s.cards.get(e.card)
    zone = card.zone if card is not None and card.zone in (MZONE, SZONE) else MZONE
    return (t("{card} moves to {zone}", card=w.card(e.card, owner=True), zone=zone_tag(zone, e.zone))
            + w.cause(e.cause, n.resolved))


@describes("deck_registered")
def _deck(w: Line, e, n: "Narrator") -> str:
    return t("{player} registers a deck: {main} main, {extra} extra, {side} side", player=w.who(e.player),
             main=len(e.main), extra=len(e.extra), side=len(e.side))


@describes("deck_shuffled")
def _shuffled(w: Line, e, n: "Narrator") -> str:
    return t("{player} shuffles their Deck", player=w.who(e.player))


@describes("cards_sealed")
def _sealed(w: Line, e, n: "Narrator") -> str:
    """The cards sealed, as the reader knows them (a view keeps no seal: it says only that)."""
    count = len(e.seals)
    if not count:
        return t("{player} seals hidden cards of their own", player=w.who(e.player))
    cards = w.cards_of(card for card, _ in e.seals)
    if count == 1:
        return t("{player} seals 1 card of their own: {cards}", player=w.who(e.player), cards=cards)
    return t("{player} seals {count} cards of their own: {cards}", player=w.who(e.player), count=count, cards=cards)


@describes("cards_opened")
def _opened(w: Line, e, n: "Narrator") -> str:
    """Each card as it was known before, and what it is opened as (a view keeps none of them)."""
    if not e.cards:
        return t("{player} opens sealed cards", player=w.who(e.player))
    def named(card_id: str, code: int) -> str:
        card = w.s.cards.get(card_id)
        if card is not None and card.code:               # shown before: named as it was shown
            return w.card(card_id)
        facts = w.s.db.get(code)
        return t("{card} is {name}", card=w.card(card_id), name=card_name(facts) if facts is not None else code)
    sealed = sum(1 for o in e.cards if o.nonce)
    opened = "; ".join(named(o.card, o.code) for o in e.cards)
    if len(e.cards) == 1:
        return t("{player} opens 1 card ({sealed} sealed): {cards}", player=w.who(e.player), sealed=sealed, cards=opened)
    return t("{player} opens {count} cards ({sealed} sealed): {cards}", player=w.who(e.player), count=len(e.cards),
             sealed=sealed, cards=opened)


@describes("position_set_up")
def _set_up(w: Line, e, n: "Narrator") -> str:
    return t("Position set up: turn {turn}, {player}'s {phase}", turn=e.turn, player=w.who(e.turn_player),
             phase=phase_name(e.phase))


@describes("turn_started")
def _turn(w: Line, e, n: "Narrator") -> str:
    return t("Turn {turn} begins: {player}", turn=e.turn, player=w.who(e.player))


@describes("phase_entered")
def _phase(w: Line, e, n: "Narrator") -> str:
    return phase_name(e.phase)


@describes("step_entered")
def _step(w: Line, e, n: "Narrator") -> str:
    return t("Battle Phase: {step}", step=step_name(e.step))


@describes("priority_passed")
def _passed(w: Line, e, n: "Narrator") -> str:
    return t("{player} passes", player=w.who(e.player))


@describes("normal_summoned")
def _normal_summoned(w: Line, e, n: "Narrator") -> str:
    return t("{player} Normal Summons {card} to {zone}{position}{tributes}", player=w.who(e.player),
             card=w.card(e.card), zone=zone_tag(MZONE, e.zone),
             position=t(" in {position}", position=_position(e.position)) if e.position != ATTACK else "",
             tributes=t(", Tributing {cards}", cards=w.cards_of(e.tributes)) if e.tributes else "")


@describes("flip_summoned")
def _flip_summoned(w: Line, e, n: "Narrator") -> str:
    return t("{player} Flip Summons {card}", player=w.who(e.player), card=w.card(e.card))


@describes("summon_negated")
def _summon_negated(w: Line, e, n: "Narrator") -> str:
    return t("The summon of {card} is negated", card=w.card(e.card)) + w.cause(e.cause, n.resolved)


@describes("position_changed")
def _position_changed(w: Line, e, n: "Narrator") -> str:
    return (t("{card} changes to {position}", card=w.card(e.card, owner=True), position=_position(e.position))
            + w.cause(e.cause))


@describes("chain_link_resolved")
def _resolved(w: Line, e, n: "Narrator") -> str:
    return t("Chain Link {link}{card} resolves", link=e.link, card=_link_card(w, e.link))


@describes("chain_ended")
def _chain_ended(w: Line, e, n: "Narrator") -> str:
    return t("The chain ends")


@describes("counters_changed")
def _counters(w: Line, e, n: "Narrator") -> str:
    return (t("{card} has {count} {counter} counter(s)", card=w.card(e.card), count=e.count,
              counter=printable(e.counter)) + w.cause(e.cause, n.resolved))


@describes("coin_tossed")
def _coin(w: Line, e, n: "Narrator") -> str:
    results = t(", ").join(t("heads") if r else t("tails") for r in e.results)
    return t("Coin toss: {results}", results=results) + w.cause(e.cause, n.resolved)


@describes("die_rolled")
def _die(w: Line, e, n: "Narrator") -> str:
    return t("Die roll: {results}", results=", ".join(map(str, e.results))) + w.cause(e.cause, n.resolved)


@describes("hand_size_discard")
def _hand_size(w: Line, e, n: "Narrator") -> str:
    return t("{player} discards {cards} for the hand size limit", player=w.who(e.player), cards=w.cards_of(e.cards))


@describes("duel_ended")
def _ended(w: Line, e, n: "Narrator") -> str:
    reason = end_reason(e.reason)
    if e.winner is None:
        return t("The duel ends: a draw ({reason})", reason=reason)
    return t("The duel ends: {player} wins ({reason})", player=w.who(e.winner), reason=reason)


@describes("rolled_back")
def _rolled_back(w: Line, e, n: "Narrator") -> str:
    return t("JUDGE {judge} rolls the game back to before event #{index}: {reason}", judge=e.judge, index=e.to,
             reason=e.reason)


#: A judge's note's categories and decisions as the log says them (the record keeps the English word).
_NOTE_WORDS = {"call": N_("call"), "ruling": N_("ruling"), "penalty": N_("penalty"), "warning": N_("warning"),
               "note": N_("note"), "time": N_("time"), "stands": N_("stands"), "reverted": N_("reverted")}


def _note_word(word: str | None) -> str:
    return t(_NOTE_WORDS[word]) if word in _NOTE_WORDS else str(word)


@describes("judge_note")
def _note(w: Line, e, n: "Narrator") -> str:
    if e.category == "call" and e.on is None and not e.judge.strip():     # the table's call (access.CALL)
        return t("{entrant} calls a judge: {note}", entrant=_entrant(e), note=e.note)
    ruling = t(" [on #{index}: {decision}]", index=e.on, decision=_note_word(e.decision)) if e.on is not None else ""
    return t("JUDGE {judge} ({category}){ruling}: {note}", judge=e.judge, category=_note_word(e.category),
             ruling=ruling, note=e.note)


@describes("entry_confirmed")
def _confirmed(w: Line, e, n: "Narrator") -> str:
    return t("{entrant} confirms entry #{index}", entrant=_entrant(e), index=e.on)


@describes("entry_disputed")
def _disputed(w: Line, e, n: "Narrator") -> str:
    return t("{entrant} disputes entry #{index}: {reason} (a judge call)", entrant=_entrant(e), index=e.on,
             reason=e.reason)


#: The reason the recorder's page records with its Undo (record.js ``undo``): recorded in English
#: whatever the page's language, said in the reader's (any other reason is the entrant's own words).
UNDONE_ON_THE_PAGE = N_("mis-entry: undone on the recorder's page")


@describes("entry_corrected")
def _corrected(w: Line, e, n: "Narrator") -> str:
    return t("{entrant} corrects a mis-entry: the entries from #{index} on are struck ({reason})",
             entrant=_entrant(e), index=e.to, reason=t(e.reason) if e.reason == UNDONE_ON_THE_PAGE else e.reason)


_ENTRANTS = {"p0": N_("Player 0"), "p1": N_("Player 1"), "judge": N_("The judge"), "recorder": N_("The recorder")}


def _entrant(e) -> str:
    """Who entered a witnessed duel's event, as the log says it."""
    return t(_ENTRANTS.get(e.entered_by or "", _ENTRANTS["recorder"]))


#: The sentence of every duel kind, in the kinds' order (``log.Narrator`` looks them up here).
SENTENCES: dict[str, Describe] = {kind: describes[kind] for kind in kind_names() if kind in describes}
