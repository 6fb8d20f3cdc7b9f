"""Writes the sample duels in replays/ as JSON Lines, checking every event as it goes.

Run from the repository root: ``python replays/make_samples.py``. Each duel is a list of events
written out play by play; the ``Duel`` helper folds them through the rules engine as they are added,
so a sample that breaks a rule fails here, at the play that broke it.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import hashlib

from ygoreplay.cards import CardDB
from ygoreplay.decks import Banlist
from ygoreplay.exchange import make_replay
from ygoreplay.chain import from_ms as _iso
from ygoreplay.replay_file import dumps
from ygoreplay.events import from_dict
from ygoreplay.jsonl import parse_lines
from ygoreplay.rules import History, audit
from ygoreplay.state import DuelState
from ygoreplay.views import recorded_by

HERE = Path(__file__).resolve().parent
START_MS = 1_764_547_200_000          # 2025-12-01T00:00:00Z, the samples' nominal recording time
DB = CardDB.classic()

FILLER = [91152256, 5053103, 13039848, 15025844, 97590747, 14898066, 43096270, 69247929,
          11091375, 26202165, 78010363, 71413901, 74131780, 33184167]


def deck(top: list[int], size: int = 40) -> list[int]:
    """A legal 40-card deck whose first cards are ``top`` (at most 3 copies of any card)."""
    cards = list(top)
    counts = {c: cards.count(c) for c in cards}
    for code in FILLER * 3:
        if len(cards) >= size:
            break
        if counts.get(code, 0) < 3:
            cards.append(code)
            counts[code] = counts.get(code, 0) + 1
    assert len(cards) == size, "not enough filler for a legal deck"
    return cards


class Duel:
    """Events added one by one, each checked by the rules engine before it is kept."""

    def __init__(self, title: str, witnessed: bool = False) -> None:
        self.lines: list[str] = [f"# {title}"]
        self.events: list[tuple[int, dict]] = []        # (line number, event) for variants
        self.history = History(DB)                       # strict: a witnessed duel flags, never refuses
        self.witnessed = witnessed

    @property
    def state(self) -> DuelState:
        return self.history.state

    def note(self, text: str) -> None:
        self.lines.append(f"# {text}")

    def __call__(self, kind: str, **fields) -> None:
        data = {"kind": kind, **fields}
        if self.witnessed:                              # who entered it: the table's recorder unless said
            data.setdefault("entered_by", "recorder")
        self.history.append(from_dict(data, f"event {self.state.index}"))
        self.events.append((len(self.lines), data))
        self.lines.append(json.dumps(data))

    def start(self, decks: tuple[list[int], list[int]], first: int = 0,
              extras: tuple[list[int], list[int]] = ([], []), banlist: Banlist | None = None) -> None:
        under = {} if banlist is None else {"banlist": {
            "name": banlist.name, "hash": banlist.content_hash(),
            "limits": sorted([code, n] for code, n in banlist.limits.items())}}
        self("duel_started", first_player=first, chosen_by=first, method="rps",
             players=["Yugi", "Kaiba"], **under, **({"witnessed": True} if self.witnessed else {}))
        for p in (0, 1):
            self("deck_registered", player=p, main=decks[p], **({"extra": extras[p]} if extras[p] else {}))
        for p in (0, 1):
            self("cards_drawn", player=p, count=5)

    def turn(self, number: int, player: int, draw: bool = True) -> None:
        self.note(f"turn {number}")
        self("turn_started", player=player, turn=number)
        self("phase_entered", phase="draw")
        if draw:
            self("cards_drawn", player=player, count=1)
        self("phase_entered", phase="standby")
        self("phase_entered", phase="main1")

    def card(self, player: int, code: int) -> str:
        """The id of the first card with this passcode in the player's hand."""
        for cid in self.state.sides[player].hand:
            if self.state.cards[cid].code == code:
                return cid
        raise LookupError(f"player {player} holds no {DB[code].name}")

    def write(self, name: str) -> None:
        (HERE / name).write_text("\n".join(self.lines) + "\n", encoding="utf-8")

    def write_replays(self, name: str) -> None:
        """The same duel as .ygr files, judge and spectator views, unsigned (fixed times, root and
        secret, so the bytes are the same every run). A sample's judge file is published beside
        its view, so nothing it hides is secret; a recorded duel's root and secret are random."""
        events = [from_dict(data) for _, data in self.events]
        times = [_iso(START_MS + i) for i in range(len(events))]
        root = hashlib.sha256(name.encode()).digest()
        secret = hashlib.sha256(b"published sample " + name.encode()).digest()
        stem = name.removesuffix(".jsonl")
        for view in ("judge", "spectator"):
            replay = make_replay(events, times, DB, view, root, secret, {"title": stem}, created=times[0])
            (HERE / f"{stem}.{view}.ygr").write_bytes(dumps(replay))


def won_by_damage() -> Duel:
    d = Duel("Won by damage: battle damage of every kind, a Magic Cylinder, a Raigeki, lethal direct attacks")
    d.start((deck([13039848, 62279055, 70781052, 12580477, 69140098, 46986414, 5053103]),
             deck([14898066, 11091375, 40619825, 26202165, 91152256, 15025844, 5053103])))
    p0, p1 = 0, 1
    d.turn(1, p0, draw=False)
    d("monster_set", player=p0, card=d.card(p0, 13039848), zone=2)
    d("spell_trap_set", player=p0, card=d.card(p0, 62279055), zone=1)
    d("phase_entered", phase="end")

    d.turn(2, p1)
    vorse = d.card(p1, 14898066)
    d("normal_summoned", player=p1, card=vorse, zone=2)
    d("phase_entered", phase="battle")
    d("step_entered", step="battle")
    d.note("Vorse Raider (1900) attacks the Set Giant Soldier of Stone (DEF 2000): DMG-07")
    d("attack_declared", player=p1, attacker=vorse, target="p0.m0")
    d("step_entered", step="damage")
    d("damage_calculated", destroyed=[], damage=[0, 100])
    d("life_points_changed", player=p1, amount=100, reason="battle_damage", lp=7900)
    d("step_entered", step="battle")
    d("step_entered", step="end")
    d("phase_entered", phase="main2")
    d("phase_entered", phase="end")

    d.turn(3, p0)
    skull = d.card(p0, 70781052)
    d("normal_summoned", player=p0, card=skull, zone=1, tributes=["p0.m0"])
    d("phase_entered", phase="battle")
    d("step_entered", step="battle")
    d("attack_declared", player=p0, attacker=skull, target=vorse)
    d("step_entered", step="damage")
    d("damage_calculated", destroyed=[vorse], damage=[0, 600])
    d("life_points_changed", player=p1, amount=600, reason="battle_damage", lp=7300)
    d("card_moved", card=vorse, to=[p1, "gy"], reason="battle")
    d("step_entered", step="battle")
    d("step_entered", step="end")
    d("phase_entered", phase="end")

    d.turn(4, p1)
    luster = d.card(p1, 11091375)
    axe = d.card(p1, 40619825)
    d("normal_summoned", player=p1, card=luster, zone=0)
    d("activated", player=p1, card=axe, zone=0, targets=[luster], description="equip to Luster Dragon")
    d("chain_link_resolved", link=1)
    d("stats_changed", card=luster, atk=2900, cause=axe)
    d("chain_ended")
    d("phase_entered", phase="battle")
    d("step_entered", step="battle")
    d("attack_declared", player=p1, attacker=luster, target=skull)
    d.note("Magic Cylinder: negate the attack, inflict damage equal to its ATK")
    d("activated", player=p0, card="p0.m1", targets=[luster])
    d("chain_link_resolved", link=1)
    d("attack_cancelled", cause="p0.m1")
    d("life_points_changed", player=p1, amount=2900, reason="effect_damage", lp=4400, cause="p0.m1")
    d("card_moved", card="p0.m1", to=[p0, "gy"], reason="resolved")
    d("chain_ended")
    d("step_entered", step="end")
    d("phase_entered", phase="end")

    d.turn(5, p0)
    raigeki = d.card(p0, 12580477)
    d("activated", player=p0, card=raigeki, zone=0)
    d("chain_link_resolved", link=1)
    d("card_moved", card=luster, to=[p1, "gy"], reason="destroyed", cause=raigeki)
    d("card_moved", card=axe, to=[p1, "gy"], reason="rule", cause=luster)
    d("card_moved", card=raigeki, to=[p0, "gy"], reason="resolved")
    d("chain_ended")
    elf = d.card(p0, 69140098)
    d("normal_summoned", player=p0, card=elf, zone=3)
    d("phase_entered", phase="battle")
    d("step_entered", step="battle")
    for attacker, atk, lp in ((skull, 2500, 1900), (elf, 1900, 0)):
        d("attack_declared", player=p0, attacker=attacker)
        d("step_entered", step="damage")
        d("damage_calculated", damage=[0, atk])
        d("life_points_changed", player=p1, amount=atk, reason="battle_damage", lp=lp)
        if lp:
            d("step_entered", step="battle")
    d("duel_ended", winner=p0, reason="lp")
    return d


def chain_with_counter_traps() -> Duel:
    d = Duel("A five-link chain with two Counter Traps (RULES.md CHAIN-07's worked example)")
    d.start((deck([91152256, 5318639, 3819470, 53129443, 69140098, 14898066]),
             deck([5053103, 51452091, 77414722, 15025844, 13039848, 26202165])))
    p0, p1 = 0, 1
    d.turn(1, p0, draw=False)
    celtic = d.card(p0, 91152256)
    mst, tools = d.card(p0, 5318639), d.card(p0, 3819470)
    d("normal_summoned", player=p0, card=celtic, zone=2)
    d("spell_trap_set", player=p0, card=mst, zone=0)
    d("spell_trap_set", player=p0, card=tools, zone=1)
    d("phase_entered", phase="end")

    d.turn(2, p1)
    ox = d.card(p1, 5053103)
    decree, jammer = d.card(p1, 51452091), d.card(p1, 77414722)
    d("normal_summoned", player=p1, card=ox, zone=2)
    d("spell_trap_set", player=p1, card=decree, zone=0)
    d("spell_trap_set", player=p1, card=jammer, zone=1)
    d("phase_entered", phase="end")

    d.turn(3, p0)
    hole = d.card(p0, 53129443)
    d.note("CL1 Dark Hole (speed 1)")
    d("activated", player=p0, card=hole, zone=2, speed=1)
    d.note("CL2 Royal Decree (continuous trap, speed 2)")
    d("activated", player=p1, card=decree, speed=2)
    d.note("CL3 Mystical Space Typhoon (quick-play, speed 2) targeting Royal Decree")
    d("activated", player=p0, card=mst, speed=2, targets=[decree])
    d.note("CL4 Magic Jammer (counter trap, speed 3): discard 1 card as cost")
    discard = d.state.sides[p1].hand[0]
    d("activated", player=p1, card=jammer, speed=3, targets=[mst], negates=3,
      costs=[{"card": discard, "to": "gy", "reason": "discarded"}])
    d.note("CL5 Seven Tools of the Bandit (counter trap, speed 3): pay 1000 LP")
    d("activated", player=p0, card=tools, speed=3, negates=4, costs=[{"lp": 1000}])
    d("priority_passed", player=p1)
    d("priority_passed", player=p0)
    d.note("resolution in reverse order (CHAIN-05)")
    d("chain_link_resolved", link=5)
    d("chain_link_negated", link=4, by=5)
    d("card_moved", card=jammer, to=[p1, "gy"], reason="negated")
    d("chain_link_resolved", link=3)
    d("card_moved", card=decree, to=[p1, "gy"], reason="destroyed", cause=mst)
    d("chain_link_resolved", link=2)
    d("chain_link_resolved", link=1)
    d("card_moved", card=celtic, to=[p0, "gy"], reason="destroyed", cause=hole)
    d("card_moved", card=ox, to=[p1, "gy"], reason="destroyed", cause=hole)
    for card in (tools, mst, hole):
        d("card_moved", card=card, to=[p0, "gy"], reason="resolved")
    d("chain_ended")
    elf = d.card(p0, 69140098)
    d("normal_summoned", player=p0, card=elf, zone=2)
    d("phase_entered", phase="end")
    d.turn(4, p1)
    d("duel_ended", winner=p0, reason="surrender")
    return d


def lost_by_deck_out() -> Duel:
    d = Duel("Lost by deck-out: player 1 must draw from an empty Deck on turn 72 (WIN-02)")
    d.start((deck([]), deck([])))
    number = 0
    while True:
        number += 1
        player = (number - 1) % 2
        d.note(f"turn {number}")
        d("turn_started", player=player, turn=number)
        d("phase_entered", phase="draw")
        if number > 1:
            d("cards_drawn", player=player, count=1)
        if d.state.must_lose:
            d("duel_ended", winner=1 - player, reason="deck_out")
            return d
        d("phase_entered", phase="standby")
        d("phase_entered", phase="main1")
        d("phase_entered", phase="end")
        hand = d.state.sides[player].hand
        if len(hand) > 6:
            d("hand_size_discard", player=player, cards=hand[:len(hand) - 6])


def every_summon_method() -> Duel:
    d = Duel("Every way to summon: Normal, Tribute, Set and Flip, inherent, by effect, Ritual, Fusion, "
             "Synchro, Xyz, Pendulum, Link, and Tokens")
    STARGAZER, TIMEGAZER, POT, CYBER_DRAGON, MAN_EATER = 94415058, 20409757, 55144522, 70095154, 54652250
    ODD_EYES, JUNK_SYNCHRON, FLASH_KNIGHT, CELTIC = 16178681, 63977008, 17390179, 91152256
    RITUAL_SPELL, BLACK_LUSTER_SOLDIER, STARDUST, UTOPIA = 55761792, 5405694, 44508094, 84013237
    VORSE, SCAPEGOAT, REBORN, SKULL, POLY, OX = 14898066, 73915051, 83764718, 70781052, 24094653, 5053103
    SPIDER, PROXY, FLAME_SWORDSMAN, SHEEP = 98978921, 22862454, 45231177, 73915052
    d.start((deck([STARGAZER, TIMEGAZER, POT, CYBER_DRAGON, MAN_EATER, ODD_EYES, JUNK_SYNCHRON, POT, FLASH_KNIGHT,
                   CELTIC, POT, RITUAL_SPELL, BLACK_LUSTER_SOLDIER]),
             deck([VORSE, SCAPEGOAT, REBORN, SKULL, POLY, OX, CELTIC])),
            extras=([STARDUST, UTOPIA], [SPIDER, PROXY, FLAME_SWORDSMAN]),
            banlist=Banlist("sample list (DECK-08)", {4031928: 0, POT: 3, REBORN: 1}))
    p0, p1 = 0, 1
    stardust, utopia, spider, proxy, swordsman = "p0.x0", "p0.x1", "p1.x0", "p1.x1", "p1.x2"

    def resolve_spell(player: int, card: str, zone: int, *outcomes: tuple[str, dict], targets=()) -> None:
        d("activated", player=player, card=card, zone=zone, **({"targets": list(targets)} if targets else {}))
        d("chain_link_resolved", link=1)
        for kind, fields in outcomes:
            d(kind, **fields)
        d("card_moved", card=card, to=[player, "gy"], reason="resolved")
        d("chain_ended")

    d.turn(1, p0, draw=False)
    pot = d.card(p0, POT)
    resolve_spell(p0, pot, 0, ("cards_drawn", {"player": p0, "count": 2, "cause": pot}))
    d.note("Pendulum Scales 1 and 8 in the Pendulum Zones, the outer Spell & Trap Zones (ZONE-09)")
    for card, zone in ((d.card(p0, STARGAZER), 0), (d.card(p0, TIMEGAZER), 4)):
        d("activated", player=p0, card=card, zone=zone)
        d("chain_link_resolved", link=1)
        d("chain_ended")
    d("phase_entered", phase="end")

    d.turn(2, p1)
    vorse, scapegoat = d.card(p1, VORSE), d.card(p1, SCAPEGOAT)
    d.note("Normal Summon (SUM-01)")
    d("normal_summoned", player=p1, card=vorse, zone=2)
    d("spell_trap_set", player=p1, card=scapegoat, zone=1)
    d("phase_entered", phase="end")

    d.turn(3, p0)
    pot = d.card(p0, POT)
    resolve_spell(p0, pot, 1, ("cards_drawn", {"player": p0, "count": 2, "cause": pot}))
    cyber = d.card(p0, CYBER_DRAGON)
    d.note("inherent Special Summon: only the opponent controls a monster (SPS-07)")
    d("special_summoned", player=p0, card=cyber, zone=2, method="inherent")
    odd, junk = d.card(p0, ODD_EYES), d.card(p0, JUNK_SYNCHRON)
    d.note("Pendulum Summon of two monsters, Levels 7 and 3 between the Scales 1 and 8 (PEND-03)")
    d("special_summoned", player=p0, card=odd, zone=0, method="pendulum")
    d("special_summoned", player=p0, card=junk, zone=1, method="pendulum", together=True)
    d.note("Scapegoat answers: four Sheep Tokens (TOKEN-01)")
    tokens = [f"p1.t{i}" for i in range(1, 5)]
    resolve_spell(p1, scapegoat, 1, *(("token_created", {"player": p1, "card": t, "code": SHEEP, "zone": z,
                                                          "position": "defense", "cause": scapegoat})
                                       for t, z in zip(tokens, (0, 1, 3, 4))))
    d.note("Synchro Summon: Tuner Junk Synchron (3) + Cyber Dragon (5) = Stardust Dragon (8) (SYN-01)")
    d("special_summoned", player=p0, card=stardust, zone=5, method="synchro", materials=[junk, cyber])
    man_eater = d.card(p0, MAN_EATER)
    d.note("Set (SUM-02): the Normal Summon of the turn")
    d("monster_set", player=p0, card=man_eater, zone=3)
    d("phase_entered", phase="battle")
    d("step_entered", step="battle")
    d("attack_declared", player=p0, attacker=stardust, target=vorse)
    d("step_entered", step="damage")
    d("damage_calculated", destroyed=[vorse], damage=[0, 600])
    d("life_points_changed", player=p1, amount=600, reason="battle_damage", lp=7400)
    d("card_moved", card=vorse, to=[p1, "gy"], reason="battle")
    d("step_entered", step="battle")
    d("step_entered", step="end")
    d("phase_entered", phase="end")

    d.turn(4, p1)
    d.note("Link Summons: Link Spider from a Token into the Extra Monster Zone; Proxy Dragon from two Tokens "
           "into the zone Link Spider points to (LINK-01/02/04, ZONE-03)")
    d("special_summoned", player=p1, card=spider, zone=5, method="link", materials=[tokens[0]])
    d("special_summoned", player=p1, card=proxy, zone=1, method="link", materials=tokens[1:3])
    reborn = d.card(p1, REBORN)
    d.note("Special Summon by an effect: Monster Reborn (SPS-10)")
    resolve_spell(p1, reborn, 0, ("special_summoned", {"player": p1, "card": vorse, "zone": 0, "method": "effect",
                                                       "cause": reborn}), targets=[vorse])
    d.note("Tribute Summon (SUM-04)")
    d("normal_summoned", player=p1, card=d.card(p1, SKULL), zone=0, tributes=[vorse])
    poly, ox, celtic = d.card(p1, POLY), d.card(p1, OX), d.card(p1, CELTIC)
    d.note("Fusion Summon by Polymerization, materials from the hand as recorded (FUS-01/02)")
    resolve_spell(p1, poly, 0, ("special_summoned", {"player": p1, "card": swordsman, "zone": 2, "method": "fusion",
                                                     "materials": [ox, celtic], "cause": poly}))
    d("phase_entered", phase="end")

    d.turn(5, p0)
    pot = d.card(p0, POT)
    resolve_spell(p0, pot, 1, ("cards_drawn", {"player": p0, "count": 2, "cause": pot}))
    d.note("Flip Summon (SUM-10); Man-Eater Bug's flip effect destroys Proxy Dragon")
    d("flip_summoned", player=p0, card=man_eater)
    d("activated", player=p0, card=man_eater, effect_type="flip", targets=[proxy])
    d("chain_link_resolved", link=1)
    d("card_moved", card=proxy, to=[p1, "gy"], reason="destroyed", cause=man_eater)
    d("chain_ended")
    knight, celtic = d.card(p0, FLASH_KNIGHT), d.card(p0, CELTIC)
    d("special_summoned", player=p0, card=knight, zone=1, method="pendulum")
    d("special_summoned", player=p0, card=celtic, zone=2, method="pendulum", together=True)
    d.note("Xyz Summon: two Level 4 monsters become the materials of a Rank 4 (XYZ-01, XMAT-01)")
    d("special_summoned", player=p0, card=utopia, zone=1, method="xyz", materials=[knight, celtic])
    ritual, soldier = d.card(p0, RITUAL_SPELL), d.card(p0, BLACK_LUSTER_SOLDIER)
    d.note("Ritual Summon: Man-Eater Bug (2) + Odd-Eyes (7) >= Black Luster Soldier (8); the Pendulum goes "
           "face-up to the Extra Deck (RIT-02, PEND-05)")
    resolve_spell(p0, ritual, 1, ("special_summoned", {"player": p0, "card": soldier, "zone": 2, "method": "ritual",
                                                       "materials": [man_eater, odd], "cause": ritual}))
    d("phase_entered", phase="end")
    d.turn(6, p1)
    d("duel_ended", winner=p0, reason="surrender")
    return d


def witnessed_illegal_play() -> Duel:
    """A paper duel recorded at the table: a second Normal Summon nobody noticed stood (SUM-01,
    kept and flagged), a mis-entry corrected within its turn (LOG-12), the other side's
    confirmations, and the judge's ruling once the summon was found (it stands)."""
    d = Duel("Witnessed at a table: a second Normal Summon that stood (SUM-01, flagged), a corrected "
             "mis-entry, the judge's ruling", witnessed=True)
    d.start((deck([13039848, 62279055, 70781052, 12580477, 69140098, 46986414, 5053103]),
             deck([14898066, 11091375, 40619825, 26202165, 91152256, 15025844, 5053103])))
    p0, p1 = 0, 1
    d.turn(1, p0, draw=False)
    d("monster_set", player=p0, card=d.card(p0, 13039848), zone=2)
    d("phase_entered", phase="end")

    d.turn(2, p1)
    d("normal_summoned", player=p1, card=d.card(p1, 14898066), zone=2)
    d("entry_confirmed", on=d.state.index - 1, entered_by="p0")
    d.note("Luster Dragon: player 1's second Normal Summon this turn; nobody at the table noticed (SUM-01)")
    second = d.state.index
    d("normal_summoned", player=p1, card=d.card(p1, 11091375), zone=3)
    assert [(f.index, f.rule) for f in d.history.flags] == [(second, "SUM-01")]
    d("entry_confirmed", on=second, entered_by="p0")
    d("phase_entered", phase="end")

    d.turn(3, p0)
    d.note("The recorder enters a Battle Phase player 0 never entered, and corrects it (LOG-12)")
    wrong = d.state.index
    d("phase_entered", phase="battle")
    d("entry_corrected", to=wrong, reason="player 0 stayed in Main Phase 1: the Battle Phase was mis-entered")
    d.note("Player 0 finds the second summon; the judge lets it stand: the turn is long past")
    d("entry_disputed", on=second, entered_by="p0", reason="player 1 Normal Summoned twice in turn 2")
    d("judge_note", judge="A. Judge", category="ruling", on=second, decision="stands", entered_by="judge",
      note="SUM-01 broken in turn 2, found in turn 3: the monsters stay on the field, no rollback")
    d("phase_entered", phase="end")

    d.turn(4, p1)
    d("normal_summoned", player=p1, card=d.card(p1, 26202165), zone=1)
    d("entry_confirmed", on=d.state.index - 1, entered_by="p0")
    d("phase_entered", phase="end")

    d.turn(5, p0)
    d("duel_ended", winner=p1, reason="surrender")
    return d


SAMPLES = {"won-by-damage.jsonl": won_by_damage, "chain-counter-traps.jsonl": chain_with_counter_traps,
           "lost-by-deck-out.jsonl": lost_by_deck_out, "every-summon-method.jsonl": every_summon_method,
           "witnessed-illegal-play.jsonl": witnessed_illegal_play}


# Illegal variants: (file, rule broken, base duel, the event to cut before (None: after the end),
# what is played instead; the last event of it is the illegal one).
ILLEGAL = [
    ("summon-without-tributes.jsonl", "SUM-04", won_by_damage, {"kind": "normal_summoned", "card": "p0.m2"},
     [{"kind": "normal_summoned", "player": 0, "card": "p0.m2", "zone": 1}]),
    ("second-normal-summon.jsonl", "SUM-01", won_by_damage, {"kind": "phase_entered", "phase": "battle"},
     [{"kind": "normal_summoned", "player": 1, "card": "p1.m4", "zone": 3}]),
    ("battle-phase-on-turn-1.jsonl", "NIS-04", won_by_damage, {"kind": "monster_set"},
     [{"kind": "phase_entered", "phase": "battle"}]),
    ("first-player-draws-on-turn-1.jsonl", "SETUP-04", won_by_damage, {"kind": "phase_entered", "phase": "standby"},
     [{"kind": "cards_drawn", "player": 0, "count": 1}]),
    ("wrong-battle-damage.jsonl", "DMG-07", won_by_damage, {"kind": "damage_calculated"},
     [{"kind": "damage_calculated", "destroyed": [], "damage": [0, 0]}]),
    ("direct-attack-past-a-monster.jsonl", "BATTLE-02", won_by_damage, {"kind": "attack_declared", "attacker": "p0.m2"},
     [{"kind": "attack_declared", "player": 0, "attacker": "p0.m2"}]),
    ("trap-activated-the-turn-it-was-set.jsonl", "TRAP-02", chain_with_counter_traps,
     {"kind": "spell_trap_set", "card": "p1.m2"}, [{"kind": "activated", "player": 1, "card": "p1.m1"}]),
    ("quick-play-answers-counter-trap.jsonl", "CHAIN-03", chain_with_counter_traps,
     {"kind": "activated", "card": "p1.m1"},
     [{"kind": "activated", "player": 1, "card": "p1.m2", "targets": ["p0.m3"],
       "costs": [{"card": "p1.m3", "to": "gy", "reason": "discarded"}]},
      {"kind": "activated", "player": 0, "card": "p0.m1", "targets": ["p1.m1"]}]),
    ("counter-trap-negates-a-link-below.jsonl", "TRAP-06", chain_with_counter_traps,
     {"kind": "activated", "card": "p1.m2"},
     [{"kind": "activated", "player": 1, "card": "p1.m2", "speed": 3, "negates": 1,
       "costs": [{"card": "p1.m3", "to": "gy", "reason": "discarded"}]}]),
    ("chain-resolved-after-one-pass.jsonl", "CHAIN-04", chain_with_counter_traps,
     {"kind": "priority_passed", "player": 0}, [{"kind": "chain_link_resolved", "link": 5}]),
    ("chain-resolved-in-order.jsonl", "CHAIN-05", chain_with_counter_traps,
     {"kind": "chain_link_resolved", "link": 5}, [{"kind": "chain_link_resolved", "link": 1}]),
    ("hand-over-the-limit.jsonl", "HAND-01", lost_by_deck_out, {"kind": "hand_size_discard"},
     [{"kind": "turn_started", "player": 0, "turn": 5}]),
    ("deck-out-wrong-winner.jsonl", "WIN-02", lost_by_deck_out, {"kind": "duel_ended"},
     [{"kind": "duel_ended", "winner": 1, "reason": "deck_out"}]),
    ("play-after-the-end.jsonl", "WIN-01", won_by_damage, None,
     [{"kind": "turn_started", "player": 1, "turn": 6}]),
    ("synchro-without-a-tuner.jsonl", "SYN-01", every_summon_method, {"kind": "special_summoned", "method": "synchro"},
     [{"kind": "special_summoned", "player": 0, "card": "p0.x0", "zone": 5, "method": "synchro",
       "materials": ["p0.m3", "p0.m5"]}]),
]


def write_illegal(name: str, rule: str, base: Duel, cut: dict | None, instead: list[dict]) -> None:
    """A legal duel up to ``cut``, then ``instead``; checked to break ``rule`` at its last event."""
    at = next((line for line, ev in base.events if cut is not None and cut.items() <= ev.items()),
              len(base.lines))
    lines = [f"# Illegal variant of a sample duel: breaks {rule} at its last event", *base.lines[:at]]
    lines += [json.dumps(ev) for ev in instead]
    text = "\n".join(lines) + "\n"
    events = list(parse_lines(text.splitlines(), name))
    report = audit(events, DB)
    first = report.violations[0] if report.violations else None
    assert first is not None and first.rule == rule and first.index == len(events) - 1, (name, first)
    (HERE / "illegal" / name).write_text(text, encoding="utf-8")


def write_public(name: str, base: Duel) -> None:
    """``base`` as a spectator at the table would have recorded it (``views.recorded_by``): no
    hand, no deck order; each card unknown (passcode 0) until the event that shows it names it
    (``shows``). Checked to hold no violation."""
    events = recorded_by([from_dict(data) for _, data in base.events], DB, "spectator")
    report = audit(events, DB)
    assert report.legal, (name, report.violations[:3])
    title = base.lines[0].removeprefix("# ")
    lines = [f"# {title}",
             "# Recorded from the public side only, as a spectator or a scorekeeper at the table saw it:",
             "# every deck is unknown cards (passcode 0), a draw names the card ids drawn but not what they are,",
             "# a Set card stays unknown, and the event that shows a card names it in \"shows\" {card id: passcode}.",
             "# `ygoreplay check` checks every rule this allows and lists those an unknown card left undecided."]
    lines += [json.dumps(e.to_dict()) for e in events]
    (HERE / name).write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> int:
    duels = {name: make() for name, make in SAMPLES.items()}
    for name, duel in duels.items():
        duel.write(name)
        duel.write_replays(name)
    write_public("won-by-damage.public.jsonl", duels["won-by-damage.jsonl"])
    by_maker = {SAMPLES[name]: duel for name, duel in duels.items()}
    (HERE / "illegal").mkdir(exist_ok=True)
    for name, rule, maker, cut, instead in ILLEGAL:
        write_illegal(name, rule, by_maker[maker], cut, instead)
    return 0


if __name__ == "__main__":
    sys.exit(main())
