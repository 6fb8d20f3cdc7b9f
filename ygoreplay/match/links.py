"""A match's duels judged against the match: the first player, the decks, the result, the LP at time
(in sudden death, the LP of the change that decided it: TIME-06).

The match stream says what happened between and around its duels; each duel is its own stream.
Where a duel can be read (a file beside the match file, or a game carried in a match ``.ygr``),
the two must agree: the duel is played with the match's current decks (MATCH-04/05/06) and the
first player the match records (MATCH-07), and it ends as the match says (LOG-09).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from ..access import seat_order
from ..cards import CardDB
from ..events import Event
from ..i18n import say
from ..rules import RuleViolation, audit, replay
from ..state import DuelState
from .policies import END_OF_TURN, SUDDEN_DEATH
from .rules import EXTRA, MAIN, SIDE, Game


#: A duel's deck part as MATCH-04 names it.
_PARTS = {"main": MAIN, "extra": EXTRA, "side": SIDE}


@dataclass(frozen=True)
class LinkProblem:
    """A disagreement between a match and one of its duels (``index``: the duel's event, or None)."""

    game: int
    rule: str
    message: str
    index: int | None = None

    def to_dict(self) -> dict:
        return {"game": self.game, "rule": self.rule, "message": self.message, "index": self.index}


def check_duel(game: Game, events: list[Event], cards: CardDB, time: Event | None = None,
               players: Sequence[str] = ()) -> list[LinkProblem]:
    """Every problem of duel ``game`` of the match: its own rule violations, then each way it
    disagrees with the match. A duel judged at the end of a phase (``time``) is compared at the
    end of that phase; one judged after extra turns at the end of its record. ``players``: the
    match's, in its order: the duel may seat them the other way round (``access.seat_order``),
    and what it says by seat is compared with what the match says of its players, each player's
    own (a duel naming others in its seats is a problem of its own)."""
    n = game.number
    sudden = game.how in ("time", "draw") and game.lp is not None and game.stage == SUDDEN_DEATH
    first = events[0] if events else None
    order = _seats(players, first.players if first is not None and first.kind == "duel_started" else None)
    seats = order or (0, 1)
    # the LP after each event, the match's players' (their seats'), read on the audit's one fold (an
    # event folded again to go back to the state before a rollback is the same state: the last is kept)
    lps: dict[int, tuple[int, int]] = {}
    report = audit(events, cards, (lambda at, s: lps.__setitem__(at, (s.sides[seats[0]].lp, s.sides[seats[1]].lp)))
                   if sudden else None)
    problems = [LinkProblem(n, v.rule, f"duel {n}: {v.message}", v.index) for v in report.violations]
    if first is None or first.kind != "duel_started":
        return problems + [LinkProblem(n, "LOG-03", f"duel {n} does not begin with duel_started")]
    if order is None:
        problems.append(LinkProblem(n, "LOG-09", say("duel {number} seats {seated}: not the match's players "
                                                     "({players})", number=n, seated=", ".join(first.players),
                                                     players=", ".join(players)), 0))
    first_player, chosen_by = match_player(seats, first.first_player), match_player(seats, first.chosen_by)
    if game.first_player is not None and first_player != game.first_player:
        problems.append(LinkProblem(n, "MATCH-07", say("the match says player {player} goes first in duel {number}; "
                                                       "the duel has player {first}", player=game.first_player,
                                                       number=n, first=first_player), 0))
    if game.chosen_by is not None and chosen_by is not None and chosen_by != game.chosen_by:
        problems.append(LinkProblem(n, "MATCH-07", say("the match says player {player} chose in duel {number}; the "
                                                       "duel says player {chooser}", player=game.chosen_by,
                                                       number=n, chooser=chosen_by), 0))
    for i, ev in enumerate(events):
        if ev.kind == "deck_registered" and game.decks is not None and ev.player in (0, 1):
            deck = game.decks[match_player(seats, ev.player)]
            for part in ("main", "extra", "side"):
                played, listed = Counter(getattr(ev, part)), Counter(getattr(deck, part))
                if part == "side" and not played:
                    continue                    # a duel need not restate the Side Deck
                if played != listed:
                    extra = next(iter((played - listed) or (listed - played)))
                    problems.append(LinkProblem(n, "MATCH-04", say(
                        "player {player}'s {part} in duel {number} is not their decklist after siding (passcode "
                        "{code} differs)", player=ev.player, part=_PARTS[part], number=n, code=extra), i))
    state = report.state
    if game.lp is not None and time is not None and time.game == n and game.extra_turns == 0 and not game.extra_duel:
        end = _end_of_phase(events, time.turn, time.phase)
        if end is not None and not report.violations:
            state = replay(events, cards, at=end)
    if game.how in ("time", "draw") and game.lp is not None:
        # ended "time": the match's decision closed it (``commands._closing``), not the duel itself
        if state.ended and state.end_reason != "time":
            problems.append(LinkProblem(n, "LOG-09", f"duel {n} ended by itself ({state.end_reason}); the "
                                                     "match judged it at time"))
        elif sudden and (decided := _sudden_death(n, game, time, report.history.effective, lps)) is not None:
            problems += decided
        elif (lp := tuple(state.sides[seat].lp for seat in seats)) != tuple(game.lp):
            problems.append(LinkProblem(n, "LOG-09", f"the match judged duel {n} on LP {game.lp[0]} / {game.lp[1]}; "
                                                     f"the duel's LP are {lp[0]} / {lp[1]}"))
    elif game.ended:
        # a concession or a penalty ends the game where the duel stands (its record need not end),
        # but a record that went on to end otherwise is not the match's game: its judge is told
        if not state.ended and game.how not in ("penalty", "surrender"):
            problems.append(LinkProblem(n, "LOG-09", f"the match says duel {n} ended ({game.how}); the duel "
                                                     "has not ended"))
        elif state.ended and (winner := match_player(seats, state.winner)) != game.winner:
            said = "a draw" if game.winner is None else f"won by player {game.winner}"
            had = "a draw" if winner is None else f"won by player {winner}"
            problems.append(LinkProblem(n, "LOG-09", f"the match says duel {n} was {said}; the duel was {had}"))
    return problems


def _sudden_death(n: int, game: Game, time: Event | None, effective: list[tuple[int, Event]],
                  lps: dict[int, tuple[int, int]]) -> list[LinkProblem] | None:
    """TIME-05/06: sudden death begins with the turn after the extra turns (TIME-03; after turn 4
    of an extra duel, TIME-08), and the first LP change in it decides the duel at once (CONF-05 as
    ocg-2005's seeds read it; under ocg-2017, 000_f682c5902d633803.txt's reading, the LP at the end
    of the turn they changed in decide it, and level again the next turn is played), LP paid as a cost too
    (TIME-06): a recorder who let a cost pass and judged a later change got the duel wrong. A cost
    is an LP change however it is recorded: a ``life_points_changed`` of reason cost, or the LP an
    activation pays (``activated`` costs, as the EDOPro importer writes MSG_PAY_LPCOST), so the
    duel's LP are watched (``lps``: after each event, as its audit folded it), not its events'
    kinds. Only the events still in ``effective`` at the end count: an LP change a judge rolled
    back or its recorder corrected did not happen (LOG-02, LOG-12), nor is the rollback one. LP
    changed for both players at once (one effect's damage to both, battle damage to both:
    consecutive ``life_points_changed`` of one cause and reason) are one change; one that leaves
    them level decides nothing. LP not level as sudden death begins were decided by TIME-04 before
    it. The problem if the match judged duel ``n`` on other LP than that change left (none if it
    agrees), or None when that is not known (no deciding change: the end of the record is compared)."""
    if game.extra_duel:
        start = 5
    elif time is not None and time.game == n and time.turn is not None:
        start = time.turn + game.extra_turns + 1
    else:
        return None
    begun = changed = False
    at_end = game.sudden_death_at == END_OF_TURN   # CONF-05: decided at the end of the turn, not at once
    for k, (i, ev) in enumerate(effective):
        now = lps[i]
        if not begun:
            if ev.kind == "turn_started" and ev.turn >= start:
                begun = True
                if now[0] != now[1]:          # TIME-04 decided it: no sudden death
                    return [LinkProblem(n, "TIME-05", say(
                        "the LP were {lp0} / {lp1} when turn {turn} began, after the extra turns: the higher LP "
                        "won duel {number} (TIME-04); sudden death is played only with the LP level", lp0=now[0],
                        lp1=now[1], turn=ev.turn, number=n), i)]
            continue
        # the state before an event in effect is the one after the event before it in the stream
        # (one in effect, or a rollback or correction, whose state is the one gone back to)
        before = lps[i - 1]
        if at_end:
            if ev.kind == "turn_started" and changed:
                if before[0] != before[1]:
                    return _decided_at_end(n, tuple(game.lp or ()), i, before)
                changed = False               # level again: the next turn is played
            changed = changed or before != now
        elif before != now and now[0] != now[1] and not _with_next(effective, k):
            return _decided_by(n, tuple(game.lp or ()), i, ev, now, before)
    return None


def _decided_at_end(n: int, lp: tuple[int, ...], i: int, now: tuple[int, int]) -> list[LinkProblem]:
    """TIME-05 read as CONF-05's END_OF_TURN: the problem (none if it agrees) of a match that judged duel ``n`` on
    ``lp`` when the turn that ended before event ``i`` (its next turn's start) left LP ``now``."""
    if now == tuple(lp):
        return []
    return [LinkProblem(n, "TIME-05", say("in sudden death the LP at the end of the turn they changed in decided duel "
                                          "{number} at {lp0} / {lp1}; the match judged it on {m0} / {m1}", number=n,
                                          lp0=now[0], lp1=now[1], m0=lp[0], m1=lp[1]), i)]


def _with_next(effective: list[tuple[int, Event]], k: int) -> bool:
    """Whether LP change ``k`` (of the events in effect) happens at the same moment as the next
    one: the other player's LP changed by the same named cause for the same reason (Ring of
    Destruction's damage to both players), or battle damage to both (one damage calculation)."""
    if k + 1 >= len(effective):
        return False
    ev, after = effective[k][1], effective[k + 1][1]
    return (ev.kind == after.kind == "life_points_changed" and ev.player != after.player
            and (ev.cause, ev.reason) == (after.cause, after.reason)
            and (ev.cause is not None or ev.reason == "battle_damage"))


def _decided_by(n: int, lp: tuple[int, ...], i: int, ev: Event, now: tuple[int, int],
                before: tuple[int, int]) -> list[LinkProblem]:
    """The problem (none if it agrees) of a match that judged duel ``n`` on ``lp`` when its sudden
    death was decided by the LP change of event ``i`` (``ev``), from LP ``before`` to ``now``."""
    if now == tuple(lp):
        return []
    # an activation changes LP only by paying its cost
    if ev.kind == "activated" or (ev.kind == "life_points_changed" and ev.reason == "cost"):
        player = next(p for p in (0, 1) if now[p] != before[p])
        return [LinkProblem(n, "TIME-06", say(
            "in sudden death LP paid as a cost are an LP change too: player {player} paid {amount} LP, leaving "
            "{lp0} / {lp1}, which decided duel {number}; the match judged it on {m0} / {m1} (TIME-06)",
            player=player, amount=before[player] - now[player], lp0=now[0], lp1=now[1], number=n, m0=lp[0],
            m1=lp[1]), i)]
    return [LinkProblem(n, "LOG-09", say("in sudden death the first LP change decided duel {number} at {lp0} / "
                                         "{lp1}; the match judged it on {m0} / {m1}", number=n, lp0=now[0],
                                         lp1=now[1], m0=lp[0], m1=lp[1]), i)]


def _seats(players: Sequence[str], duel_players: Sequence[str] | None) -> tuple[int, int] | None:
    """``access.seat_order``, and the duel's own order where the match's players are not known
    (a duel judged alone, ``players`` empty)."""
    return seat_order(players, duel_players) if players else (0, 1)


def match_player(seats: tuple[int, int], seat: int | None) -> int | None:
    """The match's player in ``seat`` of a duel seating them so (``access.seat_order``); a seat
    that is none (None, out of range) as it is."""
    return seats.index(seat) if seat in seats else seat


def first_players(first: Event, players: Sequence[str]) -> tuple[int | None, int | None]:
    """Who goes first and who chose in a duel opening with ``first`` (its ``duel_started``), as
    its match of ``players`` says them: by its players (``access.seat_order``; a seating of others
    as it stands, the judge told by ``check_duel``). Every door that takes them from the duel
    reads them here: ``POST /matches/{id}/games`` took the duel's seats, and a duel seating the
    match's players the other way round could not be linked without naming them (MATCH-07)."""
    seats = _seats(players, first.players) or (0, 1)
    return match_player(seats, first.first_player), match_player(seats, first.chosen_by)


@dataclass(frozen=True)
class Standing:
    """Where a duel of a match stands, as the match reads it: by the match's players, not by the
    duel's seats (``standing``). ``winner`` and ``lp[p]`` are the match's player ``p``'s."""

    ended: bool
    winner: int | None
    end_reason: str | None
    lp: tuple[int, ...]
    turn: int
    phase: str | None
    turn_player: int | None


def standing(board: DuelState, players: Sequence[str]) -> Standing:
    """Duel ``board`` as its match of ``players`` reads it (``Standing``); one whose seats are not
    the match's players in its own order, as it stands (its judge is told: ``check_duel``)."""
    seats = _seats(players, board.players) or (0, 1)
    return Standing(board.ended, match_player(seats, board.winner), board.end_reason,
                    tuple(board.sides[seat].lp for seat in seats) if len(board.sides) == 2 else (),
                    board.turn, board.phase, match_player(seats, board.turn_player))


def check_ending(game: Game, record: Standing | None, ev: Event, index: int) -> None:
    """A ``game_ended`` (at match event ``index``) must agree with its duel's record once that
    has ended (LOG-09), read by the match's players (``standing``): every face checks it here
    before writing."""
    if record is None or not record.ended or ev.winner == record.winner:
        return
    raise RuleViolation("LOG-09", say("duel {number}'s record was {recorded}, not {given}", number=game.number,
                                      recorded=_outcome(record.winner), given=_outcome(ev.winner)), index, ev.kind)


def _outcome(winner: int | None) -> str:
    """How a duel ended, as ``check_ending`` names it: a draw, or which player won."""
    return say("a draw") if winner is None else say("won by player {seat}", seat=winner)


def _end_of_phase(events: list[Event], turn: int | None, phase: str | None) -> int | None:
    """The last event of ``phase`` of ``turn`` (the phase in which time was called), or None."""
    current_turn, current_phase, last = None, None, None
    for i, ev in enumerate(events):
        if ev.kind == "turn_started":
            current_turn, current_phase = ev.turn, None
        elif ev.kind == "phase_entered":
            current_phase = ev.phase
        if current_turn == turn and current_phase == phase:
            last = i
    return last
