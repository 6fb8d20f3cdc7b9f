"""End-of-match procedures, versioned like rule sets: what time, draws and undecided matches mean.

The procedure has changed many times and differs between OCG and TCG (RULES.md NIS-09, CONF-29).
A match names its policy in ``match_started``; the match fold (``rules.py``) asks the policy, never
a hard-coded table, whenever a rule depends on it. Every policy here says where its facts come from:
the seeds (through RULES.md rule IDs) or outside knowledge, marked as such.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

#: What happens to a duel in progress when time is called.
EXTRA_TURNS, FINISH_PHASE = "extra_turns", "finish_phase"
#: What equal LP mean when a duel is judged on LP.
SUDDEN_DEATH, DRAW = "sudden_death", "draw"
#: What a match no one won 2 duels of is, at time or after three duels with draws.
MOST_WINS, DOUBLE_LOSS = "most_wins", "double_loss"
#: Who chooses to go first or second after a drawn duel.
NEW_DRAW_RPS, SAME_CHOOSER = "rps", "same_chooser"
#: When sudden death is decided (CONF-05): at the LP change itself, or at the end of its turn.
IMMEDIATE, END_OF_TURN = "immediate", "end_of_turn"


@dataclass(frozen=True)
class Policy:
    """One end-of-match procedure. ``name`` is what a match file writes."""

    name: str
    title: str
    date: str
    source: str
    at_time: str                 # EXTRA_TURNS or FINISH_PHASE
    extra_turns: int             # how many, after the turn in progress is finished
    on_tie: str                  # SUDDEN_DEATH or DRAW
    undecided: str               # MOST_WINS or DOUBLE_LOSS
    after_draw: str              # NEW_DRAW_RPS or SAME_CHOOSER
    judge_between_games: bool    # 判定3 (TIME-09) and the extra duel of 判定2 (TIME-08)
    points: tuple[int, int, int] = (3, 1, 0)   # standing points for a win, a draw, a loss
    sudden_death_at: str = IMMEDIATE             # CONF-05: IMMEDIATE or END_OF_TURN

    def to_dict(self) -> dict:
        return {"name": self.name, "title": self.title, "date": self.date, "source": self.source,
                "at_time": self.at_time, "extra_turns": self.extra_turns, "on_tie": self.on_tie,
                "undecided": self.undecided, "after_draw": self.after_draw,
                "judge_between_games": self.judge_between_games, "points": list(self.points),
                "sudden_death_at": self.sudden_death_at}


OCG_2005 = Policy(
    name="ocg-2005",
    title="OCG tournament rules of the 新專家規則 (rulebook v2.0)",
    date="2005-11-01",
    source="the seeds: 001_b8709a3ee4dd36db.txt (dated 「2005.11.01 適用」) and 002_851bbf185f571d60.txt, "
           "as RULES.md MATCH-01/02/07, TIME-01..09 and CONF-05/06/25",
    # TIME-03: finish the current turn, then 3 extra turns from the opponent's; TIME-04: higher LP
    # wins; TIME-05: equal LP go to sudden death; MATCH-02: 1 win + 2 draws wins, 1-1-1 is a draw;
    # TIME-07..09: time between duels is judged (a 1-0 lead wins, else an extra duel of 4 turns).
    at_time=EXTRA_TURNS, extra_turns=3, on_tie=SUDDEN_DEATH, undecided=MOST_WINS,
    after_draw=NEW_DRAW_RPS, judge_between_games=True)

OCG_2017 = replace(
    OCG_2005,
    name="ocg-2017",
    title="OCG tournament rules as the newest seed reads them (New Master Rule era)",
    date="2017 (000_f682c5902d633803.txt, the seed of the New Master Rule)",
    source="the seeds: 000_f682c5902d633803.txt, as RULES.md TIME-03..09 and CONF-05 (its Rec.): the "
           "ocg-2005 procedure, but sudden death is decided at the end of the turn in which LP changed, "
           "the player with more LP then winning; LP level again, the next turn is played",
    # CONF-05 Rec.: 000_f682c5902d633803.txt, the newest text, decides at the end of the turn;
    # the rest as ocg-2005 (the same tournament text, reused: CONF-29).
    sudden_death_at=END_OF_TURN)

TCG_2024 = Policy(
    name="tcg-2024",
    title="Konami Yu-Gi-Oh! TCG Tournament Policy, end-of-match procedure",
    date="2024 (the policy in force in 2024; the date of its last revision was not checked)",
    source="outside knowledge, not in the seeds (RULES.md NIS-09 says the TCG has its own procedure): "
           "the turn in progress is 'turn 0', then 3 more turns; higher LP wins the game, equal LP "
           "draw it; the player with more game wins wins the match, else it is a draw; after a drawn "
           "game the player who chose in it chooses again; no game starts after time is called",
    at_time=EXTRA_TURNS, extra_turns=3, on_tie=DRAW, undecided=MOST_WINS,
    after_draw=SAME_CHOOSER, judge_between_games=False)

OCG_2024 = Policy(
    name="ocg-2024",
    title="Konami OCG official tournament rules, procedure at the end of the time limit",
    date="2024 (the rules in force in 2024; the date of their last revision was not checked)",
    source="outside knowledge, not in the seeds (RULES.md NIS-09): the phase in progress is finished, "
           "then the player with more LP wins the duel, equal LP draw it; a match that no one has won "
           "2 duels of when the round ends is a loss for both players (1 win + 2 draws included)",
    at_time=FINISH_PHASE, extra_turns=0, on_tie=DRAW, undecided=DOUBLE_LOSS,
    after_draw=NEW_DRAW_RPS, judge_between_games=False)

POLICIES: dict[str, Policy] = {p.name: p for p in (OCG_2005, OCG_2017, TCG_2024, OCG_2024)}
