"""The end of the duel (WIN-01..05): who lost, and that nothing follows."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..i18n import N_, say
from ..events import Event
from ..state import DuelState
from .base import fail, handles

if TYPE_CHECKING:                  # annotations only: a kind is made on its first use (events._lazy)
    from ..events import DuelEnded, LifePointsChanged

#: The rule behind each way of losing.
LOSS_RULES = {"lp": "WIN-01", "deck_out": "WIN-02"}


def expected_result(state: DuelState) -> tuple[int | None, str] | None:
    """The result the rules impose now, or None when no one has lost by the rules."""
    losers = set(state.must_lose)
    if not losers:
        return None
    if len(losers) == 2:
        return None, "draw"                                       # WIN-04
    loser = losers.pop()
    return 1 - loser, state.must_lose[loser]


def after_loss(state: DuelState, ev: Event) -> None:
    """WIN-01/02: a player has lost: the duel ends at once, and no ``ev`` may follow."""
    loser, reason = next(iter(state.must_lose.items()))
    fail(state, ev, LOSS_RULES.get(reason, "WIN-01"),
         say("player {loser} has lost ({reason}); the duel ends at once and no {kind} may follow",
             loser=loser, reason=reason, kind=ev.kind))


#: ``DuelState.lost_by`` when battle damage took a player to 0 LP (no card id is empty).
BY_BATTLE = ""


def loss_cause(ev: LifePointsChanged) -> str | None:
    """What took a player to 0 LP at ``ev``, as ``late_lp_change`` compares it: the effect named,
    or a battle's damage (``BY_BATTLE``); None when an effect's change names none (undecided)."""
    return BY_BATTLE if ev.reason == "battle_damage" else ev.cause


def late_lp_change(state: DuelState, ev: LifePointsChanged) -> bool:
    """WIN-01, WIN-04: whether ``ev`` changes LP after a player lost at 0 LP, by another effect
    than the one that took them there (called ``after_loss``). Only what that effect does at once
    is simultaneous with the loss (one effect's damage to both players: a draw); another effect's
    (an earlier Chain Link's, its resolution unrecorded) is not, and kept (a witnessed duel) it
    makes no second loser. Battle damage is simultaneous only with the same damage calculation's:
    an effect's change after a loss by battle damage, or battle damage after a loss by an effect,
    is late too."""
    cause = loss_cause(ev)
    late = state.lost_by is not None and cause is not None and cause != state.lost_by
    if late:
        after_loss(state, ev)
    return late


@handles("duel_ended")
def duel_ended(state: DuelState, ev: DuelEnded) -> None:
    expected = expected_result(state)
    if expected is not None:
        winner, reason = expected
        if ev.winner != winner or (reason != "draw" and ev.reason != reason):
            rule = "WIN-04" if reason == "draw" else LOSS_RULES[reason]
            fail(state, ev, rule, say("the rules end this duel with {result} ({reason}), not {result2} ({reason2})",
                                      result=_result(winner), reason=reason, result2=_result(ev.winner), reason2=ev.reason))
    elif ev.reason in ("lp", "deck_out", "draw"):
        rule = {"lp": "WIN-01", "deck_out": "WIN-02", "draw": "WIN-04"}[ev.reason]
        fail(state, ev, rule, say("no player has lost by {reason}: LP are {value}",
                                  reason=ev.reason, value=[s.lp for s in state.sides]))
    elif ev.reason == "surrender" and (ev.winner is None or (ev.winner == ev.player and ev.player in (0, 1))):
        # WIN-05: a duel ended outside WIN-01..04 counts for the match (MATCH-01) as the loss of the
        # player who surrendered (the event's ``player``, when it names them): never their win, nor a
        # draw. The record's word on the result, not a play: refused even in a witnessed duel.
        fail(state, ev, "WIN-05", N_("a surrender is the surrendering player's loss, never a draw")
             if ev.winner is None else say("a surrender is the surrendering player's loss: player {player} "
                                           "surrendered, so player {winner} wins, not player {player}",
                                           player=ev.player, winner=1 - ev.player), play=False)
    if ev.winner not in (0, 1, None):
        fail(state, ev, "LOG-05", N_("the winner is 0, 1, or null for a draw"))
    state.ended = True
    state.winner = ev.winner
    state.end_reason = ev.reason


def _result(winner: int | None) -> str:
    return N_("a draw") if winner is None else say("player {winner} winning", winner=winner)
