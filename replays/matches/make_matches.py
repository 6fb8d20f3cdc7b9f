"""Writes the sample matches in replays/matches/ (and their duels in duels/), checking as it goes.

Run from the repository root: ``python replays/matches/make_matches.py``. Every duel is folded by
the duel rules and every match by the match rules (``ygoreplay.match.rules``) while it is written,
so a sample that breaks a rule fails here; each refused variant in ``illegal/`` is a legal match
whose last event breaks the rule its first line names.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ygoreplay.cards import CardDB
from ygoreplay.events import from_dict
from ygoreplay.match.rules import MatchState, apply as apply_match, limits_hash
from ygoreplay.rules import apply
from ygoreplay.state import DuelState

HERE = Path(__file__).resolve().parent
DB = CardDB.classic()
PLAYERS = ["Yugi", "Kaiba"]
FILLER = [91152256, 5053103, 13039848, 15025844, 97590747, 14898066, 43096270, 69247929,
          11091375, 26202165, 78010363, 71413901, 74131780, 33184167]
MAIN = [FILLER[i % 14] for i in range(40)]                    # 40 cards, at most 3 of each
SIDES = ([40640057, 40640057, 31305911, 54652250, 3078576], [23205979, 8131171, 31560081, 95956346, 70095154])
EXTRA = [44508094, 60800381]
POT_OF_GREED, RAIGEKI, DARK_HOLE, MONSTER_REBORN = 55144522, 12580477, 53129443, 83764718
LIMITS = [{"code": POT_OF_GREED, "limit": 0}, {"code": RAIGEKI, "limit": 1},
          {"code": DARK_HOLE, "limit": 1}, {"code": MONSTER_REBORN, "limit": 1}]
BANLIST = "Sample classic list 2025.12"


class Stream:
    """Lines of a JSON Lines file, each event checked by ``check`` before it is kept."""

    def __init__(self, title: str, check) -> None:
        self.lines = [f"# {title}"]
        self.check = check

    def __call__(self, kind: str, **fields) -> dict:
        data = {"kind": kind, **fields}
        self.check(from_dict(data, f"line {len(self.lines) + 1}"))
        self.lines.append(json.dumps(data))
        return data

    def note(self, text: str) -> None:
        self.lines.append(f"# {text}")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def duel(title: str, first: int, chosen_by: int, decks: tuple[dict, dict], plan: list) -> Stream:
    """A short duel: ``plan`` lists per turn the LP changes [(player, amount)], then optionally the end."""
    state = DuelState(DB)
    d = Stream(title, lambda ev: apply(state, ev))
    d("duel_started", first_player=first, chosen_by=chosen_by, method="rps" if chosen_by == first else "loser",
      players=PLAYERS)
    for p in (0, 1):
        d("deck_registered", player=p, **decks[p])
    for p in (0, 1):
        d("cards_drawn", player=p, count=5)
    turn_player = first
    for number, step in enumerate(plan, 1):
        if isinstance(step, tuple):                      # the end: (winner, reason)
            winner, reason = step
            if reason == "lp":
                d("life_points_changed", player=1 - winner, amount=state.sides[1 - winner].lp, reason="effect_damage")
            d("duel_ended", winner=winner, reason=reason, **({"player": 1 - winner} if reason == "surrender" else {}))
            break
        d.note(f"turn {number}")
        d("turn_started", player=turn_player, turn=number)
        for phase in ("draw", "standby", "main1"):
            d("phase_entered", phase=phase)
            if phase == "draw" and number > 1:
                d("cards_drawn", player=turn_player, count=1)
        for player, amount in step:
            d("life_points_changed", player=player, amount=amount, reason="effect_damage")
        d("phase_entered", phase="end")
        hand = state.sides[turn_player].hand
        if len(hand) > 6:
            d("hand_size_discard", player=turn_player, cards=hand[:len(hand) - 6])
        turn_player = 1 - turn_player
    return d


def deck_of(player: int, main: list[int] | None = None, side: list[int] | None = None) -> dict:
    return {"main": main or MAIN, "extra": EXTRA, "side": side if side is not None else SIDES[player]}


class Match(Stream):
    def __init__(self, title: str, policy: str) -> None:
        self.state = MatchState(DB)
        super().__init__(title, lambda ev: apply_match(self.state, ev))
        self.policy = policy

    def start(self, decks: tuple[dict, dict] | None = None) -> None:
        self("match_started", players=PLAYERS, policy=self.policy, format="Advanced (classic cards)",
             event_name="Sample regional", round=1, banlist=BANLIST,
             banlist_hash=limits_hash(LIMITS), limits=LIMITS)
        for p in (0, 1):
            self("decklist_registered", player=p, **(decks or (deck_of(0), deck_of(1)))[p])

    def result(self) -> dict:
        r = self.state.result()
        return self("match_ended", winner=r.winner, how=r.how, games=list(r.games), points=list(r.points))


def write(name: str, stream: Stream) -> None:
    path = HERE / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(stream.text(), encoding="utf-8")


def sided(player: int, main_out: list[int], main_in: list[int]) -> tuple[dict, dict]:
    main = list(MAIN)
    for code in main_out:
        main.remove(code)
    side = list(SIDES[player])
    for code in main_in:
        side.remove(code)
    return {"main": main + main_in, "extra": EXTRA, "side": side + main_out}


def main() -> int:
    decks = (deck_of(0), deck_of(1))
    # -- the duels ----------------------------------------------------------------------------
    duels = {
        "g1-yugi-wins.jsonl": duel("Yugi wins on LP in turn 3", 0, 0, decks,
                                   [[(1, 1000)], [(0, 500)], [(1, 2000)], (0, "lp")]),
        "g2-kaiba-surrenders.jsonl": duel("Kaiba, who lost duel 1, goes first; he surrenders in turn 2", 1, 1, decks,
                                          [[(0, 1000)], [(1, 3000)], (0, "surrender")]),
        "g1-kaiba-wins.jsonl": duel("Kaiba wins on LP in turn 4", 0, 0, decks,
                                    [[(0, 1000)], [(0, 2000)], [], [(0, 1000)], (1, "lp")]),
    }
    yugi_sided = sided(0, [FILLER[0], FILLER[1]], [40640057, 31305911])
    kaiba_sided = sided(1, [FILLER[2]], [23205979])
    duels["g2-sided-yugi-wins.jsonl"] = duel("After siding (Yugi 2, Kaiba 1): Yugi, who lost duel 1, goes first and wins",
                                             0, 0, (yugi_sided, kaiba_sided), [[(1, 2000)], [], [(1, 3000)], (0, "lp")])
    duels["g3-sided-yugi-wins.jsonl"] = duel("Kaiba, who lost duel 2, goes second; Yugi wins in turn 5", 0, 1,
                                             (yugi_sided, kaiba_sided), [[], [(0, 1000)], [(1, 4000)], [], [(1, 3000)],
                                                                         (0, "lp")])
    # A duel still going when time is called in turn 5's Main Phase 1, Yugi ahead; three more turns
    # follow (6, 7, 8) in which Kaiba takes the lead.
    duels["g2-at-time.jsonl"] = duel("Kaiba goes first; time is called in turn 5, Main Phase 1", 1, 1, decks,
                                     [[(0, 2000)], [(1, 3000)], [(0, 1000)], [(1, 1000)], [(1, 500)],
                                      [(0, 2000)], [(0, 1000)], [(0, 500)]])
    duels["g2-game-loss.jsonl"] = duel("Kaiba goes first; in turn 3 Yugi gets a game loss", 1, 1, decks,
                                       [[(0, 1000)], [(1, 1000)], []])
    duels["g3-disqualified.jsonl"] = duel("Yugi, who lost duel 2, goes first; Kaiba is disqualified in turn 2", 0, 0,
                                          decks, [[(1, 1000)], []])
    for name, d in duels.items():
        write(f"duels/{name}", d)
    for name in ("g1-yugi-wins.jsonl", "g2-kaiba-surrenders.jsonl"):   # a match file's duels are in its folder
        write(f"illegal/duels/{name}", duels[name])

    # -- the matches --------------------------------------------------------------------------
    m = Match("A 2-0: Yugi wins duels 1 and 2 (TCG policy)", "tcg-2024")
    m.start()
    m("game_started", game=1, duel="duels/g1-yugi-wins.jsonl", first_player=0, chosen_by=0)
    m("game_ended", game=1, winner=0, how="lp")
    m("game_started", game=2, duel="duels/g2-kaiba-surrenders.jsonl", first_player=1, chosen_by=1)
    m("game_ended", game=2, winner=0, how="surrender")
    m.result()
    write("two-nil.jsonl", m)

    m = Match("A 2-1 with side decking between every duel (OCG 2005 policy)", "ocg-2005")
    m.start()
    m("game_started", game=1, duel="duels/g1-kaiba-wins.jsonl", first_player=0, chosen_by=0)
    m("game_ended", game=1, winner=1, how="lp")
    m("side_deck_swapped", player=0, main_out=[FILLER[0], FILLER[1]], main_in=[40640057, 31305911])
    m("side_deck_swapped", player=1, main_out=[FILLER[2]], main_in=[23205979])
    m("game_started", game=2, duel="duels/g2-sided-yugi-wins.jsonl", first_player=0, chosen_by=0)
    m("game_ended", game=2, winner=0, how="lp")
    m("game_started", game=3, duel="duels/g3-sided-yugi-wins.jsonl", first_player=0, chosen_by=1)
    m("game_ended", game=3, winner=0, how="lp")
    m.result()
    write("two-one-side-decking.jsonl", m)

    def at_time(policy: str, title: str) -> Match:
        t = Match(title, policy)
        t.start()
        t("game_started", game=1, duel="duels/g1-yugi-wins.jsonl", first_player=0, chosen_by=0)
        t("game_ended", game=1, winner=0, how="lp")
        t("game_started", game=2, duel="duels/g2-at-time.jsonl", first_player=1, chosen_by=1)
        t("time_called", clock="2025-12-06T10:40:00Z", game=2, turn=5, phase="main1", turn_player=1)
        return t

    t = at_time("tcg-2024", "Time in duel 2 under the TCG policy: turn 5 is finished, 3 extra turns, Kaiba ahead "
                            "on LP wins duel 2, and 1-1 at time is a drawn match")
    for n in (1, 2, 3):
        t("extra_turn_started", game=2, n=n, turn=5 + n)
    t("game_decided", game=2, lp=[1500, 3500], winner=1, stage="extra_turns", turn=8)
    t.result()
    write("time-extra-turns-tcg.jsonl", t)
    t = at_time("ocg-2024", "The same duels under the OCG 2024 policy: the phase in progress is finished and "
                            "LP compared, so Yugi, ahead then, wins duel 2 and the match 2-0")
    t("game_decided", game=2, lp=[5000, 3500], winner=0, stage="phase_end", turn=5)
    t.result()
    write("time-phase-end-ocg.jsonl", t)

    p = Match("Ended by penalties: Yugi loses duel 2 to a game loss, Kaiba is disqualified in duel 3", "tcg-2024")
    p.start()
    p("game_started", game=1, duel="duels/g1-yugi-wins.jsonl", first_player=0, chosen_by=0)
    p("game_ended", game=1, winner=0, how="lp")
    p("game_started", game=2, duel="duels/g2-game-loss.jsonl", first_player=1, chosen_by=1)
    p("judge_called", player=1, judge="Head judge Mai", question="Yugi's hand count is wrong")
    p("judge_ruled", judge="Head judge Mai", ruling="Yugi misstated his hand size: game loss")
    p("ruling_appealed", player=0, judge="Head judge Mai", decision="upheld", note="appeal heard by the head judge")
    p("penalty_given", player=0, judge="Head judge Mai", infraction="misstated_hand_or_lp", penalty="game_loss")
    p("game_started", game=3, duel="duels/g3-disqualified.jsonl", first_player=0, chosen_by=0)
    p("penalty_given", player=1, judge="Head judge Mai", infraction="marked_cards", penalty="disqualification",
      note="marked sleeves found in a deck check")
    p.result()
    write("ended-by-penalty.jsonl", p)

    # -- refused variants: a legal prefix, then one event the rules refuse ----------------------
    def variant(name: str, rule: str, title: str, build) -> None:
        v = Match(f"Refused variant: breaks {rule} at its last event. {title}", build.__defaults__[0]
                  if build.__defaults__ else "tcg-2024")
        build(v)
        write(f"illegal/{name}", v)

    def refused(v: Match, kind: str, rule: str, **fields) -> None:
        data = {"kind": kind, **fields}
        try:
            apply_match(v.state, from_dict(data))
        except Exception as exc:                         # the variant must be refused, by its rule
            assert getattr(exc, "rule", None) == rule, f"{kind}: {exc} is not {rule}"
        else:
            raise AssertionError(f"{kind} {fields} was not refused ({rule})")
        v.lines.append(json.dumps(data))

    def side_before_duel_1(v: Match) -> None:
        v.start()
        refused(v, "side_deck_swapped", "MATCH-05", player=0, main_out=[FILLER[0]], main_in=[40640057])

    def side_two_for_one(v: Match) -> None:
        v.start()
        v("game_started", game=1, duel="duels/g1-yugi-wins.jsonl", first_player=0, chosen_by=0)
        v("game_ended", game=1, winner=0, how="lp")
        refused(v, "side_deck_swapped", "MATCH-06", player=1, main_out=[FILLER[0], FILLER[1]], main_in=[23205979])

    def side_during_duel(v: Match) -> None:
        v.start()
        v("game_started", game=1, duel="duels/g1-yugi-wins.jsonl", first_player=0, chosen_by=0)
        refused(v, "side_deck_swapped", "MATCH-06", player=1, main_out=[FILLER[0]], main_in=[23205979])

    def winner_chooses(v: Match) -> None:
        v.start()
        v("game_started", game=1, duel="duels/g1-yugi-wins.jsonl", first_player=0, chosen_by=0)
        v("game_ended", game=1, winner=0, how="lp")
        refused(v, "game_started", "MATCH-07", game=2, duel="duels/g2-kaiba-surrenders.jsonl", first_player=0,
                chosen_by=0)

    def third_duel_after_two_nil(v: Match) -> None:
        v.start()
        for g in (1, 2):
            v("game_started", game=g, duel="", first_player=0, chosen_by=0 if g == 1 else 1)
            v("game_ended", game=g, winner=0, how="lp")
        refused(v, "game_started", "MATCH-01", game=3, duel="", first_player=1, chosen_by=1)

    def forbidden_card(v: Match) -> None:
        v("match_started", players=PLAYERS, policy="tcg-2024", banlist=BANLIST,
          banlist_hash=limits_hash(LIMITS), limits=LIMITS)
        refused(v, "decklist_registered", "DECK-08", player=0, main=MAIN[:39] + [POT_OF_GREED], extra=EXTRA,
                side=SIDES[0])

    def small_deck(v: Match) -> None:
        v("match_started", players=PLAYERS, policy="tcg-2024", banlist=BANLIST,
          banlist_hash=limits_hash(LIMITS), limits=LIMITS)
        refused(v, "decklist_registered", "DECK-01", player=0, main=MAIN[:39], extra=EXTRA, side=SIDES[0])

    def wrong_banlist_hash(v: Match) -> None:
        refused(v, "match_started", "DECK-09", players=PLAYERS, policy="tcg-2024", banlist=BANLIST,
                banlist_hash=limits_hash(LIMITS[1:]), limits=LIMITS)

    def second_decklist(v: Match) -> None:
        v.start()
        refused(v, "decklist_registered", "MATCH-04", player=1, **deck_of(1))

    def extra_turns_under_phase_end(v: Match, policy: str = "ocg-2024") -> None:
        v.start()
        v("game_started", game=1, duel="duels/g1-yugi-wins.jsonl", first_player=0, chosen_by=0)
        v("time_called", clock="2025-12-06T10:40:00Z", game=1, turn=3, phase="battle", turn_player=0)
        refused(v, "extra_turn_started", "TIME-03", game=1, n=1, turn=4)

    def extra_turn_from_current(v: Match) -> None:
        v.start()
        v("game_started", game=1, duel="duels/g1-yugi-wins.jsonl", first_player=0, chosen_by=0)
        v("time_called", clock="2025-12-06T10:40:00Z", game=1, turn=3, phase="battle", turn_player=0)
        refused(v, "extra_turn_started", "TIME-03", game=1, n=1, turn=3)

    def decided_before_extra_turns(v: Match) -> None:
        v.start()
        v("game_started", game=1, duel="duels/g1-yugi-wins.jsonl", first_player=0, chosen_by=0)
        v("time_called", clock="2025-12-06T10:40:00Z", game=1, turn=3, phase="battle", turn_player=0)
        v("extra_turn_started", game=1, n=1, turn=4)
        refused(v, "game_decided", "TIME-04", game=1, lp=[8000, 5000], winner=0, stage="extra_turns", turn=4)

    def tie_without_sudden_death(v: Match, policy: str = "ocg-2005") -> None:
        v.start()
        v("game_started", game=1, duel="duels/g1-yugi-wins.jsonl", first_player=0, chosen_by=0)
        v("time_called", clock="2025-12-06T10:40:00Z", game=1, turn=3, phase="battle", turn_player=0)
        for n in (1, 2, 3):
            v("extra_turn_started", game=1, n=n, turn=3 + n)
        refused(v, "game_decided", "TIME-05", game=1, lp=[4000, 4000], winner=None, stage="extra_turns", turn=6)

    def duel_after_time(v: Match) -> None:
        v.start()
        v("game_started", game=1, duel="duels/g1-yugi-wins.jsonl", first_player=0, chosen_by=0)
        v("game_ended", game=1, winner=0, how="lp")
        v("time_called", clock="2025-12-06T10:40:00Z")
        refused(v, "game_started", "TIME-02", game=2, duel="", first_player=1, chosen_by=1)

    def wrong_result(v: Match) -> None:
        v.start()
        v("game_started", game=1, duel="duels/g1-yugi-wins.jsonl", first_player=0, chosen_by=0)
        v("game_ended", game=1, winner=0, how="lp")
        v("game_started", game=2, duel="duels/g2-kaiba-surrenders.jsonl", first_player=1, chosen_by=1)
        v("game_ended", game=2, winner=0, how="surrender")
        refused(v, "match_ended", "MATCH-01", winner=1, how="games", games=[2, 0, 0], points=[0, 3])

    def appeal_after_match(v: Match) -> None:
        v.start()
        v("match_conceded", player=1)
        v.result()
        refused(v, "ruling_appealed", "MATCH-10", player=1, judge="Head judge Mai", decision="upheld")

    def ruling_without_call(v: Match) -> None:
        v.start()
        refused(v, "judge_ruled", "MATCH-08", judge="Floor judge Joey", ruling="the chain resolves backwards")

    def double_loss_is_not_a_win(v: Match, policy: str = "ocg-2024") -> None:
        v.start()
        v("game_started", game=1, duel="duels/g1-yugi-wins.jsonl", first_player=0, chosen_by=0)
        v("game_ended", game=1, winner=0, how="lp")
        v("time_called", clock="2025-12-06T10:40:00Z")
        refused(v, "match_ended", "TIME-02", winner=0, how="time", games=[1, 0, 0], points=[3, 0])

    variant("side-deck-before-duel-1.jsonl", "MATCH-05", "Yugi sides before the first duel.", side_before_duel_1)
    variant("side-deck-two-for-one.jsonl", "MATCH-06", "Kaiba sides two cards out for one in.", side_two_for_one)
    variant("side-deck-during-a-duel.jsonl", "MATCH-06", "Kaiba sides while duel 1 is being played.",
            side_during_duel)
    variant("winner-chooses-first-player.jsonl", "MATCH-07", "Yugi won duel 1 and chooses in duel 2.",
            winner_chooses)
    variant("third-duel-after-2-0.jsonl", "MATCH-01", "A duel 3 after a 2-0.", third_duel_after_two_nil)
    variant("forbidden-card-in-decklist.jsonl", "DECK-08", "Pot of Greed is Forbidden on the named list.",
            forbidden_card)
    variant("decklist-of-39-cards.jsonl", "DECK-01", "A 39-card Main Deck.", small_deck)
    variant("banlist-hash-mismatch.jsonl", "DECK-09", "The banlist's hash is of another list.", wrong_banlist_hash)
    variant("second-decklist.jsonl", "MATCH-04", "Kaiba registers a second decklist.", second_decklist)
    variant("extra-turns-under-ocg-2024.jsonl", "TIME-03", "Extra turns under a finish-the-phase policy.",
            extra_turns_under_phase_end)
    variant("extra-turn-counted-from-current-turn.jsonl", "TIME-03",
            "The turn in progress at time is counted as extra turn 1.", extra_turn_from_current)
    variant("decided-before-the-extra-turns.jsonl", "TIME-04", "LP compared after 1 extra turn of 3.",
            decided_before_extra_turns)
    variant("tie-without-sudden-death.jsonl", "TIME-05", "Equal LP drawn under a sudden-death policy.",
            tie_without_sudden_death)
    variant("duel-after-time.jsonl", "TIME-02", "A new duel after time under the TCG policy.", duel_after_time)
    variant("wrong-match-result.jsonl", "MATCH-01", "A 2-0 written as the loser's win.", wrong_result)
    variant("appeal-after-the-match.jsonl", "MATCH-10", "An appeal after the result.", appeal_after_match)
    variant("ruling-without-a-call.jsonl", "MATCH-08", "A ruling no one called a judge for.", ruling_without_call)
    variant("one-win-at-time-under-double-loss.jsonl", "TIME-02",
            "1-0 at time written as a win where undecided matches are a loss for both.", double_loss_is_not_a_win)
    return 0


if __name__ == "__main__":
    sys.exit(main())
