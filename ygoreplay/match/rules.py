"""The match fold: each match event checked against the MATCH, TIME, PEN and DECK rules and the
match's policy (``policies.py``), then applied. Like the duel's fold it does no I/O, reads no
clock and draws no random number; a handler checks before it changes anything, so a refused
event leaves the state as it was.

A refused event raises ``RuleViolation`` naming its rule ID. When auditing (``violations`` is a
list) the violation is collected and the event is skipped, so the rest of the match is judged on
what the rules allowed.
"""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable

from ..cards import CardDB
from ..decks import Banlist, Deck, banlist_hash, check_deck
from ..events import Event
from ..i18n import N_, say
from ..kinds import PerKind
from ..rules.base import RuleViolation
from ..state import Violation
from ..text import name_key, printable
from .events import (
    CLOCK_FORMAT, KINDS, MATCH_KINDS, DecklistRegistered, ExtraTurnStarted, GameDecided, GameEnded, GameStarted,
    JudgeCalled, JudgeRuled, MatchConceded, MatchEnded, MatchStarted, PenaltyGiven, RulingAppealed,
    SideDeckSwapped, TimeCalled, is_clock)
from .policies import (
    DOUBLE_LOSS, EXTRA_TURNS, FINISH_PHASE, IMMEDIATE, POLICIES, SAME_CHOOSER, SUDDEN_DEATH, Policy)

#: The match fold's handler of each kind, registered with ``@handles(EventClass)`` where it is defined.
handles = PerKind("match handler")

#: A deck's parts as a refusal names them (catalogued: a refusal is translated where it is shown).
MAIN, EXTRA, SIDE = N_("Main Deck"), N_("Extra Deck"), N_("Side Deck")
#: What a judge's signed word is, as MATCH-08 names it.
_SIGNED = {"judge_ruled": N_("judge ruled"), "ruling_appealed": N_("ruling appealed"),
           "penalty_given": N_("penalty given")}


def _old_banlist_digest(name: str, limits: Iterable[dict], whitelist: bool) -> str:
    """DECK-09, compatibility: the hash ``match_started`` named its banlist by before one hash
    served every record (SHA-256 of the list as JSON, its name included). Matches recorded then
    carry it; their events are signed and chained as written, so it is read, never rewritten."""
    entries = sorted((int(e["code"]), int(e["limit"])) for e in limits)
    text = json.dumps({"name": name, "whitelist": bool(whitelist), "limits": entries}, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def limits_hash(limits: Iterable[dict], whitelist: bool = False) -> str:
    """DECK-09: a match's banlist hashes as every banlist does (``decks.banlist_hash``, the hash
    ``deck check`` and ``duel_started`` name it by): of its content, not its name."""
    return banlist_hash(((int(e["code"]), int(e["limit"])) for e in limits), whitelist)


@dataclass
class Game:
    """One duel of the match as the match knows it."""

    number: int
    duel: str
    first_player: int | None
    chosen_by: int | None
    extra_duel: bool = False
    ended: bool = False
    winner: int | None = None
    how: str | None = None
    lp: tuple[int, ...] | None = None       # the LP a time decision was judged on
    stage: str | None = None                # the stage it was judged at (sudden death: TIME-05/06)
    extra_turns: int = 0
    decks: tuple[Deck, Deck] | None = None  # each player's deck as it was for this duel
    sudden_death_at: str = IMMEDIATE        # CONF-05: when its sudden death was decided, as its policy says

    def to_dict(self) -> dict:
        return {"game": self.number, "duel": self.duel, "first_player": self.first_player,
                "chosen_by": self.chosen_by, "extra_duel": self.extra_duel, "ended": self.ended,
                "winner": self.winner, "how": self.how, "lp": list(self.lp) if self.lp else None,
                "extra_turns": self.extra_turns}


@dataclass
class MatchState:
    """The match after its events: decklists, current decks, duels, time, and the result."""

    cards: CardDB
    index: int = 0
    players: tuple[str, ...] = ()
    policy: Policy | None = None
    banlist: Banlist | None = None
    banlist_hash: str = ""
    decklists: list[Deck | None] = field(default_factory=lambda: [None, None])
    decks: list[Deck | None] = field(default_factory=lambda: [None, None])
    games: list[Game] = field(default_factory=list)
    time: Event | None = None                 # the time_called event
    over: tuple[int | None, str] | None = None  # (winner, how) once conceded or lost by penalty
    ended: Event | None = None                # the match_ended event
    call_open: bool = False
    ruling_open: bool = False
    penalties: list[Event] = field(default_factory=list)
    violations: list[Violation] | None = None

    @property
    def started(self) -> bool:
        return self.policy is not None

    @property
    def current(self) -> Game | None:
        """The duel being played, if one is."""
        return self.games[-1] if self.games and not self.games[-1].ended else None

    def score(self) -> tuple[int, int, int]:
        """[duels won by player 0, by player 1, drawn] so far."""
        done = [g for g in self.games if g.ended]
        return (sum(g.winner == 0 for g in done), sum(g.winner == 1 for g in done),
                sum(g.winner is None for g in done))

    def result(self) -> "Result":
        """What the match's result is now under its policy, or why it cannot end yet."""
        return outcome(self)


@dataclass(frozen=True)
class Result:
    """A match result, or (``final`` False) the rule that says the match cannot end yet."""

    winner: int | None
    how: str | None
    games: tuple[int, int, int]
    points: tuple[int, int]
    rule: str
    why: str
    final: bool = True

    def to_dict(self) -> dict:
        return {"winner": self.winner, "games": list(self.games), "how": self.how,
                "points": list(self.points) if self.final else None}


class _Refused(Exception):
    def __init__(self, rule: str, message: str) -> None:
        super().__init__(message)
        self.rule, self.message = rule, message


def refuse(rule: str, message: str) -> None:
    raise _Refused(rule, message)


def flag(state: MatchState, rule: str, message: str) -> None:
    """A rule broken in what an event says, not in what it does: refused when written, and
    flagged (the event kept, as it stood) when a match is audited."""
    if state.violations is None:
        refuse(rule, message)
    state.violations.append(Violation(state.index, rule, message))


def signed(state: MatchState, ev: Event, *said: str) -> None:
    """MATCH-08: a judge's ruling, appeal decision or penalty names the judge (and says what),
    as a duel's judge note does (``rules.base.judges_word``)."""
    if not ev.judge.strip() or any(not text.strip() for text in said):
        flag(state, "MATCH-08", say("a {what} names the judge and says what was decided: it is followed, so the "
                                    "record says whose it is", what=_SIGNED[ev.kind]))


# -- the result ---------------------------------------------------------------------------------

def outcome(state: MatchState) -> Result:
    """The result the rules and the policy give (MATCH-01/02, TIME-02/07/09, the policy's own)."""
    policy = state.policy
    games = state.score()
    wins0, wins1, draws = games

    def done(winner: int | None, how: str, rule: str, why: str) -> Result:
        win, draw, loss = policy.points if policy else (3, 1, 0)
        points = (0, 0) if how == "double_loss" else (draw, draw) if winner is None else (
            (win, loss) if winner == 0 else (loss, win))
        return Result(winner, how, games, points, rule, why)

    def not_yet(rule: str, why: str) -> Result:
        return Result(None, None, games, (0, 0), rule, why, final=False)

    if policy is None:
        return not_yet("LOG-03", say("the match has not started"))
    if state.over is not None:
        winner, how = state.over
        return done(winner, how, "PEN-02" if how == "penalty" else "MATCH-01",
                    say("player {winner} wins by {how}", winner=winner, how=how))
    for player, wins in ((0, wins0), (1, wins1)):
        if wins >= 2:                              # after time, the procedure decided a duel
            return done(player, "games" if state.time is None else "time", "MATCH-01",
                        say("player {player} won 2 duels", player=player))
    if state.current is not None:
        return not_yet("MATCH-01", say("duel {number} is still being played", number=state.current.number))
    leader = 0 if wins0 > wins1 else 1 if wins1 > wins0 else None
    if state.time is not None:
        if policy.undecided == DOUBLE_LOSS:
            return done(None, "double_loss", "TIME-02",
                        say("under {policy} a match no one has won 2 duels of at time is a loss for both",
                            policy=policy.name))
        if leader is not None:
            rule = "TIME-09" if policy.judge_between_games and state.time.game is None else "TIME-02"
            return done(leader, "time", rule, say("player {leader} has more duel wins at time ({wins0}-{wins1})",
                                                  leader=leader, wins0=wins0, wins1=wins1))
        extra = [g for g in state.games if g.extra_duel]
        if policy.judge_between_games and not extra:
            return not_yet("TIME-07", say("the match is level ({wins0}-{wins1}) at time: under {policy} an extra "
                                          "duel of 4 turns from 8000 LP decides it (TIME-08)", wins0=wins0,
                                          wins1=wins1, policy=policy.name))
        return done(None, "time", "TIME-02", say("the duel wins are level ({wins0}-{wins1}) at time: a draw",
                                                 wins0=wins0, wins1=wins1))
    if len([g for g in state.games if not g.extra_duel]) < 3:
        return not_yet("MATCH-01", say("no one has won 2 duels ({wins0}-{wins1}, {draws} drawn) and duel {next} has "
                                       "not been played", wins0=wins0, wins1=wins1, draws=draws,
                                       next=len(state.games) + 1))
    if policy.undecided == DOUBLE_LOSS:
        return done(None, "double_loss", "MATCH-02",
                    say("under {policy} a match no one has won 2 duels of is a loss for both", policy=policy.name))
    if leader is not None:
        return done(leader, "games", "MATCH-02", say("{wins} win(s) and {draws} draw(s) win the match",
                                                     wins=max(wins0, wins1), draws=draws))
    return done(None, "games", "MATCH-02", say("{wins} win(s) each and {draws} draw(s): a drawn match",
                                               wins=wins0, draws=draws))


# -- handlers -----------------------------------------------------------------------------------

def _deck_problems(state: MatchState, deck: Deck) -> None:
    problems = check_deck(deck, state.cards, state.banlist)
    if problems:
        first = problems[0]
        refuse(first.rule, say("{problem} (and {more} more)", problem=first.message, more=len(problems) - 1)
               if len(problems) > 1 else first.message)


@handles(MatchStarted)
def match_started(state: MatchState, ev: Event) -> None:
    if state.started:
        refuse("LOG-03", say("a match starts once: a second match_started"))
    digest = limits_hash(ev.limits, ev.whitelist)
    if ev.banlist_hash != digest and ev.banlist_hash != _old_banlist_digest(ev.banlist, ev.limits, ev.whitelist):
        refuse("DECK-09", say("the banlist {banlist!r} travels with the record, and its content hashes to {digest}, "
                              "not {named}: the list named is not the list carried", banlist=ev.banlist,
                              digest=digest, named=ev.banlist_hash))
    codes = Counter(e["code"] for e in ev.limits)
    repeated = [c for c, n in codes.items() if n > 1]
    if repeated:
        refuse("LOG-05", say("the banlist names passcode {code} more than once", code=repeated[0]))
    if len(ev.players) == 2 and name_key(ev.players[0]) == name_key(ev.players[1]):
        # each duel of the match seats its players by their names (``access.seat_order``): one name
        # twice seated neither, every player token of the match a spectator's at the table
        refuse("LOG-05", say("the match's players {first} and {second} read as one name (case, width and "
                             "characters not seen aside): a match is played by two players told apart by their names",
                             first=printable(ev.players[0]), second=printable(ev.players[1])))
    state.players = ev.players
    state.policy = POLICIES[ev.policy]
    state.banlist = Banlist(ev.banlist, {e["code"]: e["limit"] for e in ev.limits}, ev.whitelist)
    state.banlist_hash = digest                     # the one canonical hash, whichever was written


@handles(DecklistRegistered)
def decklist_registered(state: MatchState, ev: Event) -> None:
    if state.decklists[ev.player] is not None:
        refuse("MATCH-04", say("player {player} registered a decklist already: one deck per tournament, and "
                               "changing it is an infraction (PEN-02 item 5)", player=ev.player))
    if state.games:
        refuse("MATCH-04", say("decklists are registered before the first duel"))
    deck = Deck(list(ev.main), list(ev.extra), list(ev.side))
    _deck_problems(state, deck)
    state.decklists[ev.player] = deck
    state.decks[ev.player] = Deck(list(ev.main), list(ev.extra), list(ev.side))


@handles(GameStarted)
def game_started(state: MatchState, ev: Event) -> None:
    policy = state.policy
    missing = [p for p in (0, 1) if state.decks[p] is None]
    if missing:
        refuse("MATCH-04", say("player {player} has no registered decklist; a duel is played with one",
                               player=missing[0]))
    if state.current is not None:
        refuse("LOG-03", say("duel {number} is still being played", number=state.current.number))
    if ev.game != len(state.games) + 1:
        refuse("LOG-05", say("this is duel {number} of the match, not duel {game}", number=len(state.games) + 1,
                             game=ev.game))
    result = outcome(state)
    if result.final:
        refuse(result.rule, say("the match is decided ({why}); no duel {game} is played", why=result.why, game=ev.game))
    if state.time is not None:
        if not policy.judge_between_games:
            refuse("TIME-02", say("time has been called: under {policy} no duel starts after time",
                                  policy=policy.name))
        if not ev.extra_duel:
            refuse("TIME-08", say("time has been called: only the extra duel of 4 turns from 8000 LP may start"))
    elif ev.extra_duel:
        refuse("TIME-08", say("an extra duel is played only when time ends a level match"))
    elif ev.game > 3:
        refuse("MATCH-01", say("a match is at most 3 duels"))
    previous = state.games[-1] if state.games else None
    if previous is not None and not ev.extra_duel:
        if ev.chosen_by is None:
            refuse("MATCH-07", say("say who chose to go first or second in duel {game} (chosen_by)", game=ev.game))
        if previous.winner is not None and ev.chosen_by != 1 - previous.winner:
            refuse("MATCH-07", say("player {loser} lost duel {number}, so they choose who goes first in duel {game}, "
                                   "not player {chosen_by}", loser=1 - previous.winner, number=previous.number,
                                   game=ev.game, chosen_by=ev.chosen_by))
        if previous.winner is None and policy.after_draw == SAME_CHOOSER and previous.chosen_by is not None \
                and ev.chosen_by != previous.chosen_by:
            refuse("MATCH-07", say("duel {number} was a draw: under {policy} player {chooser}, who chose in it, "
                                   "chooses again", number=previous.number, policy=policy.name,
                                   chooser=previous.chosen_by))
    decks = tuple(Deck(list(d.main), list(d.extra), list(d.side)) for d in state.decks)
    state.games.append(Game(ev.game, ev.duel, ev.first_player, ev.chosen_by, ev.extra_duel, decks=decks))


@handles(SideDeckSwapped)
def side_deck_swapped(state: MatchState, ev: Event) -> None:
    if not state.games:
        refuse("MATCH-05", say("no siding before the first duel of a match"))
    if state.current is not None:
        refuse("MATCH-06", say("siding happens only between duels; duel {number} is being played",
                               number=state.current.number))
    if outcome(state).final:
        refuse("LOG-03", say("the match is decided; there is no next duel to side for"))
    for part, out, into in ((MAIN, ev.main_out, ev.main_in), (EXTRA, ev.extra_out, ev.extra_in)):
        if len(out) != len(into):
            refuse("MATCH-06", say("siding is one-for-one: {out} card(s) out of the {part}, {into} in; every deck "
                                   "keeps its size", out=len(out), part=part, into=len(into)))
    # the cards' own facts first: a refusal after the decklist's check would tell a writer that does
    # not see the decklist (the table's recorder) that it holds the cards (``commands._checked``)
    for code in ev.main_in:
        facts = state.cards.get(code)
        if facts is not None and facts.is_extra_deck:
            refuse("DECK-02", say("{card} ({code}) may not be sided into the Main Deck", card=facts.name, code=code))
    for code in ev.extra_in:
        facts = state.cards.get(code)
        if facts is not None and not facts.is_extra_deck:
            refuse("DECK-03", say("{card} ({code}) is not an Extra Deck monster", card=facts.name, code=code))
    deck = state.decks[ev.player]
    main, extra, side = Counter(deck.main), Counter(deck.extra), Counter(deck.side)
    for part, have, out in ((MAIN, main, ev.main_out), (EXTRA, extra, ev.extra_out),
                            (SIDE, side, ev.main_in + ev.extra_in)):
        lacking = Counter(out) - have
        if lacking:
            code = next(iter(lacking))
            refuse("MATCH-04", say("player {player}'s {part} holds no (further) copy of {card}: only the "
                                   "decklist's cards may be sided", player=ev.player, part=part,
                                   card=_name(state, code)))
    new_main = list((main - Counter(ev.main_out) + Counter(ev.main_in)).elements())
    new_extra = list((extra - Counter(ev.extra_out) + Counter(ev.extra_in)).elements())
    new_side = list((side - Counter(ev.main_in) - Counter(ev.extra_in) + Counter(ev.main_out)
                     + Counter(ev.extra_out)).elements())
    state.decks[ev.player] = Deck(new_main, new_extra, new_side)


def _name(state: MatchState, code: int) -> str:
    facts = state.cards.get(code)
    return f"{facts.name} ({code})" if facts is not None else say("passcode {code}", code=code)


def _playing(state: MatchState, ev: Event) -> Game:
    game = state.current
    if game is None:
        refuse("LOG-03", say("no duel is being played, so no {kind}", kind=ev.kind))
    if ev.game != game.number:
        refuse("LOG-05", say("duel {number} is being played, not duel {game}", number=game.number, game=ev.game))
    return game


@handles(GameEnded)
def game_ended(state: MatchState, ev: Event) -> None:
    game = _playing(state, ev)
    if (ev.how == "draw") != (ev.winner is None):
        refuse("WIN-04", say("a duel ends as a draw exactly when it has no winner"))
    game.ended, game.winner, game.how = True, ev.winner, ev.how


@handles(TimeCalled)
def time_called(state: MatchState, ev: Event) -> None:
    if not is_clock(ev.clock):
        flag(state, "LOG-05", say("time is called at {clock!r}, not at {format}", clock=ev.clock[:40],
                                  format=CLOCK_FORMAT))
    if state.time is not None:
        refuse("LOG-03", say("time is called once in a match"))
    if outcome(state).final:
        refuse("LOG-03", say("the match is decided; there is no time left to call"))
    game = state.current
    if game is None and ev.game is not None:
        refuse("LOG-05", say("no duel is being played, so time cannot be called in duel {game}", game=ev.game))
    if game is not None:
        if ev.game != game.number:
            refuse("LOG-05", say("duel {number} is being played: time is called in it, not in duel {game}",
                                 number=game.number, game=ev.game))
        if ev.turn is None or ev.phase is None:
            refuse("LOG-05", say("time called in a duel says the turn and the phase it was called in"))
    state.time = ev


@handles(ExtraTurnStarted)
def extra_turn_started(state: MatchState, ev: Event) -> None:
    game = _playing(state, ev)
    policy = state.policy
    time = state.time
    if time is None or time.game != game.number:
        refuse("TIME-03", say("extra turns are played only after time is called in this duel"))
    if policy.at_time != EXTRA_TURNS or game.extra_duel:
        refuse("TIME-03", say("under {policy} the phase in progress is finished, then LP are compared: there are no "
                              "extra turns", policy=policy.name) if not game.extra_duel else
               say("the extra duel has 4 turns, not extra turns (TIME-08)"))
    if ev.n != game.extra_turns + 1 or ev.n > policy.extra_turns:
        refuse("TIME-03", say("after extra turn {played} comes extra turn {next} (of {most}), not {n}",
                              played=game.extra_turns, next=game.extra_turns + 1, most=policy.extra_turns, n=ev.n))
    if ev.turn != time.turn + ev.n:
        refuse("TIME-03", say("the turn in progress at time (turn {turn}) is finished first, and the extra turns "
                              "count from the next: extra turn {n} is turn {wanted}, not {given}", turn=time.turn,
                              n=ev.n, wanted=time.turn + ev.n, given=ev.turn))
    game.extra_turns = ev.n


@handles(GameDecided)
def game_decided(state: MatchState, ev: Event) -> None:
    game = _playing(state, ev)
    policy = state.policy
    time = state.time
    lp0, lp1 = ev.lp
    if game.extra_duel:
        if ev.stage not in ("extra_duel", "sudden_death"):
            refuse("TIME-08", say("the extra duel is judged on LP after its 4 turns (stage extra_duel)"))
        if ev.stage == "extra_duel" and (ev.turn is None or ev.turn < 4):
            refuse("TIME-08", say("the extra duel is judged after turn 4, not turn {turn}", turn=ev.turn))
    else:
        if time is None or time.game != game.number:
            refuse("TIME-02", say("a duel is judged on LP only when time was called in it"))
        if policy.at_time == FINISH_PHASE:
            if ev.stage != "phase_end":
                refuse("TIME-03", say("under {policy} the duel is judged at the end of the phase in progress "
                                      "(stage phase_end)", policy=policy.name))
        elif ev.stage == "phase_end":
            refuse("TIME-03", say("under {policy} the turn in progress and {turns} extra turns are played before LP "
                                  "are compared", policy=policy.name, turns=policy.extra_turns))
        elif game.extra_turns < policy.extra_turns:
            refuse("TIME-04", say("the duel is judged after {turns} extra turns; {played} were played",
                                  turns=policy.extra_turns, played=game.extra_turns))
    if ev.stage == "sudden_death":
        if policy.on_tie != SUDDEN_DEATH:
            refuse("TIME-05", say("under {policy} equal LP draw the duel: there is no sudden death",
                                  policy=policy.name))
        if lp0 == lp1:
            refuse("TIME-05", say("sudden death ends when the LP differ; they are equal"))
    winner = 0 if lp0 > lp1 else 1 if lp1 > lp0 else None
    if winner is None and policy.on_tie == SUDDEN_DEATH:
        refuse("TIME-05", say("LP are equal ({lp}): under {policy} the duel goes to sudden death, the first LP "
                              "change deciding it (record that as stage sudden_death)", lp=lp0, policy=policy.name))
    if ev.winner != winner:
        result = say("a draw") if winner is None else say("player {player} wins", player=winner)
        refuse("TIME-04", say("at LP {lp0} / {lp1} {result}, not a draw", lp0=lp0, lp1=lp1, result=result)
               if ev.winner is None else say("at LP {lp0} / {lp1} {result}, not player {player}", lp0=lp0, lp1=lp1,
                                             result=result, player=ev.winner))
    game.ended, game.winner, game.lp, game.stage = True, winner, ev.lp, ev.stage
    game.sudden_death_at = policy.sudden_death_at
    game.how = "time" if winner is not None else "draw"


@handles(JudgeCalled)
def judge_called(state: MatchState, ev: Event) -> None:
    state.call_open, state.ruling_open = True, False


@handles(JudgeRuled)
def judge_ruled(state: MatchState, ev: Event) -> None:
    signed(state, ev, ev.ruling)
    if not state.call_open:
        refuse("MATCH-08", say("a ruling answers a judge call; no judge was called"))
    state.call_open, state.ruling_open = False, True


@handles(RulingAppealed)
def ruling_appealed(state: MatchState, ev: Event) -> None:
    signed(state, ev)
    if state.ended is not None:
        refuse("MATCH-10", say("appeals made after the match are not accepted"))
    if not state.ruling_open:
        refuse("MATCH-08", say("an appeal is made against a ruling; there is no ruling to appeal"))
    state.ruling_open = False


@handles(PenaltyGiven)
def penalty_given(state: MatchState, ev: Event) -> None:
    signed(state, ev)
    opponent = 1 - ev.player
    if ev.penalty == "game_loss":
        game = state.current
        if game is not None:
            game.ended, game.winner, game.how = True, opponent, "penalty"
        else:
            if outcome(state).final:
                refuse("LOG-03", say("the match is decided: a game loss has no duel left to apply to"))
            if len(state.games) >= 3:
                refuse("MATCH-01", say("a match is at most 3 duels: no next duel to lose"))
            decks = tuple(Deck(list(d.main), list(d.extra), list(d.side)) for d in state.decks)
            state.games.append(Game(len(state.games) + 1, "", None, None, ended=True, winner=opponent,
                                    how="penalty", decks=decks))
    elif ev.penalty in ("match_loss", "disqualification"):
        state.over = (opponent, "penalty")
        game = state.current
        if game is not None:                       # the duel in progress ends with the match
            game.ended, game.winner, game.how = True, opponent, "penalty"
    state.penalties.append(ev)


@handles(MatchConceded)
def match_conceded(state: MatchState, ev: Event) -> None:
    if state.over is not None:
        refuse("LOG-03", say("the match is already over ({how})", how=state.over[1]))
    state.over = (1 - ev.player, "concession")
    game = state.current
    if game is not None:
        game.ended, game.winner, game.how = True, 1 - ev.player, "surrender"


@handles(MatchEnded)
def match_ended(state: MatchState, ev: Event) -> None:
    result = outcome(state)
    if not result.final:
        refuse(result.rule, say("the match cannot end yet: {why}", why=result.why))
    said = (ev.winner, ev.how, tuple(ev.games), tuple(ev.points))
    wanted = (result.winner, result.how, result.games, result.points)
    if said != wanted:
        refuse(result.rule, say("under {policy} the result is {result} ({why}), not {given}", policy=state.policy.name,
                                result=_describe(result.winner, result.how, result.games, result.points),
                                why=result.why, given=_describe(*said)))
    state.ended = ev


def _describe(winner: int | None, how: str, games: tuple, points: tuple) -> str:
    who = say("a double loss") if how == "double_loss" else say("a draw") if winner is None else say(
        "player {player} wins", player=winner)
    return say("{who} by {how}, duels {games}, points {points}", who=who, how=how, games="-".join(map(str, games)),
               points="/".join(map(str, points)))


#: Every match kind's handler, registered above with ``@handles``; built once, in the kinds' order.
HANDLERS: dict[str, Callable[[MatchState, Event], None]] = {
    cls.kind: handles[cls.kind] for cls in MATCH_KINDS}
_AFTER_RESULT = frozenset(cls.kind for cls in MATCH_KINDS if cls.after_result)
_CONTINUES_PLAY = frozenset(cls.kind for cls in MATCH_KINDS if cls.continues_play)
_OPENERS = frozenset(cls.kind for cls in MATCH_KINDS if cls.opens_match)


def apply(state: MatchState, ev: Event) -> MatchState:
    """Check one match event and apply it (in place); RuleViolation if refused (see the module)."""
    try:
        if ev.kind not in KINDS:
            refuse("LOG-03", say("a {kind} event belongs to a duel's stream, not to a match", kind=ev.kind))
        if not state.started and ev.kind not in _OPENERS:
            refuse("LOG-03", say("a match begins with match_started"))
        if state.ended is not None and ev.kind not in _AFTER_RESULT:
            refuse("LOG-03", say("the match has ended; no {kind} may follow its result", kind=ev.kind))
        if state.over is not None and ev.kind in _CONTINUES_PLAY:
            refuse("LOG-03", say("the match is over ({how}); only its result may follow", how=state.over[1]))
        HANDLERS[ev.kind](state, ev)
    except _Refused as refused:
        if state.violations is None:
            raise RuleViolation(refused.rule, refused.message, state.index, ev.kind) from None
        state.violations.append(Violation(state.index, refused.rule, refused.message))
    state.index += 1
    return state


def fold(events: Iterable[Event], cards: CardDB, *, audit: bool = False) -> MatchState:
    """The match after ``events``: raises at the first refused event, or (``audit``) collects them."""
    state = MatchState(cards, violations=[] if audit else None)
    for ev in events:
        apply(state, ev)
    return state


def is_match(events: list[Event]) -> bool:
    """A stream is a match's when it opens with ``match_started``."""
    return bool(events) and events[0].kind == "match_started"
