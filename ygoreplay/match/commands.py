"""Every write to a stored match as one command, and what a match may read of its duels.

The service's typed match endpoints and its raw ``/matches/{id}/events`` endpoint both hand their
events to ``record``: who may write each event (``permit``, the role table below), a duel a
``game_started`` names (``linkable``: one of the store's duels, the caller's to give, no other
match's, not held back from spectators, the same first player: MATCH-07), a ``game_ended`` against
its duel's record (LOG-09), and every match rule (the store's strict append) are checked there,
then everything is written or nothing. A face may fill in defaults first, but it refuses nothing
the command would not, so the same input is refused the same way through every door.

A match reads a duel only through ``linked_duel``: a duel whose link names this match (written
by ``record`` with the ``game_started`` that links the duel, in one transaction, or with the
duel it created, in that transaction too). The link is the first version of the duel's ``match_game``: two matches (or two
requests of one) that both found the duel free cannot both write it (``Store.append_records``'s
claims), so one records the game and links the duel, the other writes nothing and is refused.
A match that names a duel it never linked reads nothing of it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..access import (ENTERS_AS, MATCH_TABLE, MATCH_WRITERS, Access, handed, linkable_into, opening_claim,
                      seat_order, seated, view_of)
from ..card_sources import facts_of
from ..errors import ConflictError, StoreError, VerificationError, YgoreplayError
from ..events import Event, from_dict
from ..i18n import say
from ..receipts import not_behind
from ..rules import RuleViolation
from ..state import DuelState
from ..store.records import Record
from .application import witness_heads
from .events import KINDS
from .links import LinkProblem, Standing, check_duel, check_ending, first_players, standing
from .rules import Game, MatchState, apply, fold
from .views import withheld
from . import stream as _stream  # noqa: F401  (a match is appended to as a stream of this kind: registered)

_ID = re.compile(r"[0-9a-f]{12}")
RETRIES = 3                  # checks made again at a new head when another writer came first
MAX_DUEL_TOKENS = 8          # duel tokens one write may give


class Refused(YgoreplayError):
    """A match write refused before the match rules judge it: ``reason`` is ``forbidden`` (the
    caller may not), ``invalid`` (what it names is not there, or not a match's) or ``conflict``
    (the duel cannot be linked); ``where`` names the field or the token at fault. ``message`` is
    English (``say``: what scripts match on), translated where it is shown (``i18n.message_dict``)."""

    REASONS = ("forbidden", "invalid", "conflict")

    def __init__(self, reason: str, message: str, where: str) -> None:
        super().__init__(message)
        self.reason, self.message, self.where = reason, message, where


@dataclass(frozen=True)
class Writer:
    """Who writes: their role in the match (``organiser`` for the service's own token) and the
    duel tokens they give to link duels (each tried against each duel they name)."""

    role: str
    duel_tokens: tuple[str, ...] = ()


@dataclass(frozen=True)
class NewDuel:
    """A duel ``record`` creates for the ``game_started`` that names it (``/games`` without a duel)."""

    id: str
    title: str


@dataclass
class Written:
    """What ``record`` wrote: the match's new length, and the tokens of the duel it created."""

    position: int
    records: list[Record]
    created: dict[str, str] = field(default_factory=dict)


def roles_for(kind: str) -> tuple[str, ...]:
    """Who may write an event of ``kind`` besides the organiser (``access.MATCH_WRITERS``)."""
    return MATCH_WRITERS.get(kind, MATCH_TABLE)


def permit(role: str, kind: str, player: int | None = None) -> None:
    """Whether ``role`` may write an event of ``kind`` (for ``player``): Refused if not."""
    if role == "organiser":
        return
    allowed = roles_for(kind)
    if role not in allowed:
        raise Refused("forbidden", say("a {role} token may not write {kind} (it takes: {roles})", role=role,
                                       kind=kind, roles=", ".join(allowed)), "token")
    if role in ("p0", "p1") and player is not None and role != f"p{player}":
        raise Refused("forbidden", say("a {role} token acts for player {seat} only, not player {player}", role=role,
                                       seat=role[1], player=player), "token")


def linkable(hub: Any, writer: Writer, duel_id: Any, match: Access) -> tuple[Any, tuple[int, dict]]:
    """Duel ``duel_id`` (a ``live.LiveDuel``), and the next version of its access record as judged
    (written with the link: ``record``), if it may become the next duel of a match whose
    access record is ``match``: one of the store's duels, the caller's to give (the organiser, or its
    recorder's or judge's token among ``writer.duel_tokens``), not a branch (a judge's what-if),
    not another match's, not holding
    its spectators back (a match shows each duel's result at once), watched by no fewer than
    the match is (``access.linkable_into``: a private duel's events never reach a public match's
    spectators), and recorded in the match's mode (``access.MODES``), as each duel the match
    makes is: a machine's record in a paper table's match refused the match players' devices
    (no entry, confirmation or dispute of theirs, MATCH-11) and kept no illegal play flagged; a
    witnessed one in a machine's match let them write a game the organiser chose a recorder's.
    A duel the caller may not give is refused alike whether or not it is there."""
    if not isinstance(duel_id, str) or not _ID.fullmatch(duel_id):
        raise Refused("invalid", say("duel is a duel's id (12 hex digits), not {value}", value=repr(str(duel_id)[:40])),
                      "duel")
    try:
        duel = hub.get(duel_id)
    except StoreError:
        duel = None
    except VerificationError:       # altered: no token has a role in it (``Service.match_role``); the
        if writer.role == "organiser":     # organiser is told so, anyone else refused as for one not there
            raise
        duel = None
    # its access record as stored, not as this worker held it: a duel made private a moment before
    # (here, or by any process) was linked into a public match on the record held; and the version
    # judged, whose next one the link writes (``record``): one made private meanwhile is a conflict
    version, stored = hub.store.attachment_version(duel_id, "access") if duel is not None else (-1, None)
    access = Access.from_dict(stored or {"visibility": "private"}) if duel is not None else None
    if writer.role != "organiser" and (access is None or not any(
            access.role_of(token) in MATCH_TABLE for token in writer.duel_tokens)):
        raise Refused("forbidden", say("linking a duel takes the organiser's token, or that duel's recorder or judge "
                                       "token in duel_token"), "duel_token")
    if duel is None or access is None:
        raise Refused("invalid", say("no duel {duel} to link", duel=repr(duel_id)), "duel")
    if duel.header.parent:
        # a judge's what-if (the record of what was played stays as it is): its first events are
        # another duel's and its end is what the judge played; a match counts the games played
        raise Refused("conflict", say("duel {duel} is a branch of duel {parent}, a judge's what-if: only a duel "
                                      "played is a duel of a match", duel=duel_id, parent=duel.header.parent), "duel")
    if hub.store.attachment(duel_id, "match_game") is not None:
        raise Refused("conflict", say("duel {duel} is a duel of a match already", duel=duel_id), "duel")
    if access.delay_events or access.delay_seconds:
        raise Refused("conflict", say("duel {duel} holds its spectators back; a match shows each duel's result "
                                      "at once, so it cannot be linked", duel=duel_id), "duel")
    if not linkable_into(access.visibility, match.visibility):
        raise Refused("conflict", say("duel {duel} is {duel_visibility} and the match is {visibility}: the match "
                                      "would show its events to spectators the duel does not have, so it cannot be "
                                      "linked", duel=duel_id, duel_visibility=access.visibility,
                                      visibility=match.visibility), "duel")
    if access.mode != match.mode:
        raise Refused("conflict", say("duel {duel} is a {duel_mode} record and the match's duels are {mode} records: "
                                      "who may enter its events would not be what the organiser chose for the "
                                      "match, so it cannot be linked", duel=duel_id, duel_mode=access.mode,
                                      mode=match.mode), "duel")
    return duel, (version + 1, access.to_dict())


def opening(duel: Any) -> Event | None:
    """The duel's ``duel_started``, if it has one yet."""
    first = duel.records[0].event if duel.records else None
    return first if first is not None and first.kind == "duel_started" else None


def linked_duel(hub: Any, match_id: str, duel_id: str) -> Any:
    """Duel ``duel_id`` as match ``match_id`` may read it (a ``live.LiveDuel``), or None when the
    store lacks it or its link does not name this match (the match never linked it)."""
    if not duel_id or not _ID.fullmatch(duel_id):
        return None
    try:
        duel = hub.get(duel_id)
    except (StoreError, VerificationError):      # not there, or altered: none the match may read
        return None
    return duel if duel.match_id() == match_id else None


def problems(hub: Any, match_id: str, state: MatchState,
             readable: Callable[[Any], bool] = lambda duel: True) -> list[LinkProblem]:
    """How each duel of the match disagrees with it (``links.check_duel``), for its judge: only
    of duels it linked; a duel it names and may not read is a problem of its own. Only the duels
    the reader may read whole (``readable``): a problem may name a card the duel hid."""
    out = []
    for game in state.games:
        if not game.duel:
            continue
        duel = linked_duel(hub, match_id, game.duel)
        if duel is not None and not readable(duel):
            continue
        if duel is None:
            out.append(LinkProblem(game.number, "LOG-09", say("duel {number} is not a duel this match linked in the "
                                                              "store: it cannot be checked", number=game.number)))
        elif duel.records:
            out += check_duel(game, [r.event for r in duel.records], duel.cards, state.time, state.players)
    return out


def board(hub: Any, match_id: str, game: Game | None, players: Sequence[str]) -> Standing | None:
    """Duel ``game``'s board now (the judge's: the match linked it) as the match of ``players``
    reads it, by its players (``links.standing``), or None when it has none to read."""
    duel = linked_duel(hub, match_id, game.duel) if game is not None else None
    return standing(_now(duel), players) if duel is not None else None


def time_fields(hub: Any, match_id: str, state: MatchState, given: dict[str, Any], clock: str) -> dict[str, Any]:
    """What a ``time_called`` says (TIME-01), ``given`` first: the wall clock (``clock``), the
    duel being played (``game``) and, from its record, the turn, phase and turn player it stood
    at (a duel whose record has not begun has none: LOG-05 then asks for them). One reading for
    a table's call (``POST /matches/{id}/time``) and the round's (``round_time``)."""
    playing = state.current
    fields = {"clock": clock, **given}
    if playing is not None:
        now_ = board(hub, match_id, playing, state.players)
        if now_ is not None:
            fields.setdefault("turn", now_.turn)
            fields.setdefault("phase", now_.phase)
            fields.setdefault("turn_player", now_.turn_player)
    fields["game"] = playing.number if playing is not None else None
    return fields


def _now(duel: Any) -> DuelState:
    """A duel's board now, as its judge sees it."""
    return duel.view("judge").state_after(duel.count)


def record(hub: Any, match_id: str, writer: Writer, events: list[Event], expected: int | None = None,
           new_duel: NewDuel | None = None) -> Written:
    """Check ``events`` after match ``match_id``'s and append them, all or none; link each duel a
    ``game_started`` names (or create ``new_duel``). Refused, RuleViolation or ConflictError
    (``expected`` is not the head) with nothing written."""
    if not events:
        raise Refused("invalid", say("no events to append"), "body")
    stray = sorted({e.kind for e in events if e.kind not in KINDS})
    if stray:
        raise Refused("invalid", say("{kinds} is a duel's event: a match records match events",
                                     kinds=", ".join(stray)), "body")
    for ev in events:
        permit(writer.role, ev.kind, getattr(ev, "player", None))
    if len(writer.duel_tokens) > MAX_DUEL_TOKENS:
        raise Refused("invalid", say("at most {most} duel tokens in one write, not {count}", most=MAX_DUEL_TOKENS,
                                     count=len(writer.duel_tokens)), "duel_token")
    live = hub.match(match_id)
    _blind_swap_last(events, view_of(writer.role, live.access.mode))
    created: dict[str, str] = {}
    for attempt in range(RETRIES):
        live.refresh()
        at = live.count if expected is None else expected
        links, ending, judged = _checked(hub, live, writer, events, new_duel)
        # each duel linked is claimed with the events, in their transaction: its link's first
        # version, which one writer only can write (two that read it free at once: one loses)
        claims = {duel_id: {"match_game": {"id": match_id, "game": game}} for game, duel_id in links
                  if new_duel is None or duel_id != new_duel.id}
        closing = _closing(hub, match_id, writer, ending, live.events, events, claims, new_duel)
        # a duel the match creates is made in that transaction too: a match never names a duel
        # not there (a crash between two writes left one), nor is a duel made for no match
        streams = []
        for game, duel_id in links:
            if new_duel is not None and duel_id == new_duel.id:
                # a duel of the match is recorded as the match is: a paper table's witnessed
                access, created = Access.issue(live.access.visibility, 0, 0.0, mode=live.access.mode,
                                               roles=handed(writer.role))
                streams.append({"events": [], "title": new_duel.title, "stream_id": duel_id, "attachments": {
                    "access": access.to_dict(), "match_game": {"id": match_id, "game": game}}})
        # LOG-09's witness: nothing is written onto the match, nor onto a duel it ends, cut back
        # behind the head its witness kept (as every duel's append, ``receipts.not_behind``)
        for stream in (match_id, *(duel_id for duel_id, _ended, _count in closing)):
            not_behind(hub.store, stream, hub.witness, match=stream == match_id)
        closed: dict[str, list[Record]] = {}
        try:
            # the access each linked duel was judged on, written again as its next version: a change of
            # visibility written meanwhile took it (a conflict: judged again), one after it sees the link
            kept = [(duel_id, "access", version, access) for duel_id, (version, access) in judged.items()]
            written = hub.store.append_records(match_id, events, expected_position=at, claims=claims,
                                               streams=streams, others=closing, written_others=closed, kept=kept)
            break
        except ConflictError:
            taken = next((duel_id for duel_id, named in claims.items() if "match_game" in named
                          and hub.store.attachment(duel_id, "match_game") is not None), None)
            if taken is not None:
                raise Refused("conflict", say("duel {duel} is a duel of a match already", duel=taken),
                              "duel") from None
            # a duel the batch closes was appended to meanwhile: judged again at its new head
            if (expected is not None and hub.store.info(match_id).events != expected) or attempt == RETRIES - 1:
                raise
        except RuleViolation as exc:
            stream = getattr(exc, "stream", None)
            if stream is None or stream == match_id:    # the match's own rules: as they said it
                raise
            game, ev_index = next((g, i) for g, i, _ev in ending if g.duel == stream)
            raise RuleViolation(exc.rule, say("duel {number}'s record cannot end as the match says (LOG-09): "
                                              "{message}", number=game.number, message=exc.message),
                                len(live.events) + ev_index, events[ev_index].kind) from None
    hub.changed(match_id, written)
    for duel_id, records in closed.items():    # its end, written with the match's: its followers see it
        hub.changed(duel_id, records)
    # LOG-09's witness: every head this write left (``match.application.witness_heads``)
    witness_heads(hub.store, hub.witness, [*((stream, records[-1].position + 1, records[-1].hash)
                                             for stream, records in [(match_id, written), *closed.items()]),
                                           *((spec["stream_id"], 0, None) for spec in streams)])
    for duel_id in claims:            # linked: its release follows the match's now, read again when next asked
        linked = hub.duels.get(duel_id)
        if linked is not None:
            linked.settings_changed()
    return Written(written[-1].position + 1, written, created)


def _closing(hub: Any, match_id: str, writer: Writer, ending: list[tuple[Game, int, Event]],
             before: list[Event], events: list[Event], claims: dict[str, dict[str, dict]],
             new_duel: NewDuel | None = None) -> list[tuple[str, list[Event], int]]:
    """What closes each duel whose game ``events`` end, written in their transaction (LOG-03,
    LOG-09: the record of a game does not go on after its match said it ended, whatever door
    writes to it): a duel begun and not ended gets its ``duel_ended`` at the head read now (the
    ``others`` of ``Store.append_records``: its next position taken with the match's events, so
    an append of the duel judged before it is refused, a conflict, and judged again after its
    end), as the match says it ended, by the duel's seats; a duel not begun is closed by its
    ``opening`` claim (``access.OPENING``), which its first append makes too: one of the two
    only. What a duel takes after its end (a judge's note, an opening of seals, a confirmation)
    it still takes. A duel that ended by itself is left as it is (``check_ending`` agreed)."""
    out = []
    players: Sequence[str] = ()
    for ev in [*before, *events]:
        if ev.kind == "match_started":
            players = ev.players
            break
    for game, _index, ev in ending:
        made = new_duel is not None and game.duel == new_duel.id     # made in this transaction: empty
        if not made and "match_game" not in claims.get(game.duel, {}) and hub.store.match_of(game.duel) != match_id:
            continue                  # a duel it names and never linked: none of its to write (``linked_duel``)
        count, witnessed, _access = (0, False, None) if made else hub.store.witnessed(game.duel, True)
        if count == 0:
            claims.setdefault(game.duel, {}).update(opening_claim(match_id, game.number))
            continue
        head = hub.store.head_state(game.duel)
        if head is None or head.ended:
            continue
        seats = seat_order(players, head.players) or (0, 1)
        fields: dict[str, Any] = {"kind": "duel_ended", "winner": None if game.winner is None else seats[game.winner],
                                  "reason": _END_REASON.get(ev.kind, game.how)}
        if ev.kind == "match_conceded":
            fields["player"] = seats[ev.player]
        if witnessed:
            role = "judge" if ev.kind == "penalty_given" else seated(writer.role, players, head.players)
            fields["entered_by"] = ENTERS_AS.get(role, "recorder")
        out.append((game.duel, [from_dict(fields, "the duel's end")], count))
    return out


#: The duel's end reason (``events.END_REASONS``) of a game a match event ends other than by
#: ``game_ended``, whose ``how`` is one already.
_END_REASON = {"game_decided": "time", "penalty_given": "judge", "match_conceded": "surrender"}


def _blind_swap_last(events: list[Event], view: str) -> None:
    """A swap whose cards the writer's ``view`` may not see (the table's recorder siding a player,
    ``withheld``) is judged against a decklist that view does not hold (MATCH-04): it is the last
    event of its batch, or Refused before anything is judged. Followed by an event refused on
    purpose (a ``game_ended`` of no duel), the batch's refusal told that writer, nothing written,
    whether the swap had passed (the later event's rule and index) or not (``_as_seen``'s): whether
    the other player's Main Deck held a card and their Side Deck another, one guess a request."""
    blind = [i for i, ev in enumerate(events[:-1]) if ev.kind == "side_deck_swapped" and withheld(ev, view) is not None]
    if blind:
        raise Refused("invalid", say("event {index} is a swap of player {player}'s cards, which this view does not "
                                     "see: it is judged against their decklist, so it is sent last in its batch "
                                     "(or alone); nothing was written", index=blind[0], player=events[blind[0]].player),
                      "body")


def _as_seen(refusal: RuleViolation, ev: Event, view: str) -> RuleViolation:
    """A match rule's ``refusal`` of ``ev`` as the writer's ``view`` may be told it: a swap refused
    for a card its player's decklist lacks (MATCH-04) names the card and the part that lacks it,
    and the writer of a witnessed match, its table's recorder (``access.TABLE``: the table's code,
    which a scorekeeper or both players' phones scan), sees no decklist: each refusal told it,
    without a write, whether the other player's Main Deck or Side Deck held a card. To such a
    writer it says no more than that one of the swap's cards is not the decklist's."""
    if refusal.rule != "MATCH-04" or ev.kind != "side_deck_swapped" or withheld(ev, view) is None:
        return refusal
    return RuleViolation("MATCH-04", say("player {player}'s swap takes out or sides in a card their decklist does "
                                         "not hold there: only the decklist's cards may be sided (which one is "
                                         "the judge's to say: this view holds no decklist)", player=ev.player),
                         refusal.index, refusal.kind)


def _checked(hub: Any, live: Any, writer: Writer, events: list[Event],
             new_duel: NewDuel | None
             ) -> tuple[list[tuple[int, str]], list[tuple[Game, int, Event]], dict[str, tuple[int, dict]]]:
    """The checks of ``events`` a fold of the match alone cannot make, each against the match as
    it stands before it, then the match rules as the store's strict append will judge it (the
    same card facts): the first refused event ends the checks, so a batch reads at most one duel
    more than the rules let it start. The (game, duel) links to write once they are, and each
    game with a duel that an event of the batch ends (the game, the event's index, the event), and the
    next version of each linked duel's access as judged (``linkable``), by duel."""
    state: MatchState = fold(live.events, live.cards.merged(facts_of(events, hub.store.cards)), audit=True)
    state.violations = None
    links: list[tuple[int, str]] = []
    ending: list[tuple[Game, int, Event]] = []
    linking: dict[int, Any] = {}             # the duels this batch links, by game: not linked in the store yet
    judged: dict[str, tuple[int, dict]] = {}
    for index, ev in enumerate(events):
        if ev.kind == "game_started" and ev.duel:
            if any(duel == ev.duel for _game, duel in links):
                raise Refused("conflict", say("duel {duel} is named by two duels of this match", duel=ev.duel),
                              "duel")
            if new_duel is None or ev.duel != new_duel.id:
                linking[ev.game], judged[ev.duel] = linkable(hub, writer, ev.duel, live.access)
                _check_first(linking[ev.game], ev, state.index, state.players)
            links.append((ev.game, ev.duel))
        elif ev.kind == "game_ended" and state.current is not None and state.current.number == ev.game:
            linked = linking.get(ev.game)
            check_ending(state.current, standing(_now(linked), state.players) if linked is not None
                         else board(hub, live.id, state.current, state.players), ev, state.index)
        playing = state.current
        try:
            apply(state, ev)
        except RuleViolation as exc:
            raise _as_seen(exc, ev, view_of(writer.role, live.access.mode)) from None
        if playing is not None and playing.ended and playing.duel:
            ending.append((playing, index, ev))
    return links, ending, judged


def _check_first(duel: Any, ev: Event, index: int, players: Sequence[str]) -> None:
    """Who goes first, and who chose, as the linked duel has it (MATCH-07), by the match's
    ``players``: the duel may seat them the other way round (``access.seat_order``; one seating
    others is the judge's problem, ``links.check_duel``)."""
    first = opening(duel)
    if first is None:
        return
    going, chose = first_players(first, players)
    if ev.first_player != going:
        raise RuleViolation("MATCH-07", say("duel {duel} has player {first} going first, not player {player}",
                                            duel=duel.id, first=going, player=ev.first_player),
                            index, ev.kind)
    if ev.chosen_by is not None and chose is not None and ev.chosen_by != chose:
        raise RuleViolation("MATCH-07", say("duel {duel} says player {chooser} chose, not player {player}",
                                            duel=duel.id, chooser=chose, player=ev.chosen_by),
                            index, ev.kind)
